#!/bin/sh
# Time trouble (issue 7), under libfaketime (the daemon's wall clock
# follows an offset in a file; its monotonic and boot clocks stay real),
# four parts, each on its own state, jobs directory and log.  What
# t_daemon_clock.sh and t_policy_misfire.sh check (steps of 1 h and 10 min
# with every-second jobs, their log lines, catch_up with every 1s) is not
# repeated; these add jobs that run across the step, calendar jobs and
# longer steps:
#
# fwd: the clock stepped forward by 10 h while a long job runs: the long
# job is not disturbed (no signal, its timeout of some minutes does not
# fire, it ends as it wants, succeeded); an hourly job coalesces the 10
# hours into one run, the newest (one decision, 9 instances); a daily job
# whose instant is inside the 10 h runs once, late (run_once), its twin
# with misfire = skip does not run (one decision, 1 instance); a job every
# minute with catch_up_limit 3 runs the newest 3 late minutes, oldest
# first, and records the other ~597 as one decision; nothing runs twice.
#
# back: tickd.8 "Clock changes": after a backward step the next instance
# of each job stays the one after the last instance planned, so no
# instant runs again as the clock passes it a second time.  A step back
# of 5 s (BACK), which the clock makes up within the test: nothing runs
# until it has, then every job goes on from its next instant (no gap, no
# decision), and a one-shot job that ran in those seconds does not run
# again (tests/long/t_fault_time_long.sh: 10 minutes, or 2 hours).  A
# step back of 2 h while a long job runs: nothing but a job added then
# runs, the long job is not disturbed; then the clock is corrected
# (forward 2 h), 0.3 s after a request on the control socket woke the
# daemon: every job goes on from the instant after its last one, at once
# (not whenever something else wakes the daemon: see the comment there).
#
# suspend: a long suspend, simulated: SIGSTOP, the clock moved 3 h on,
# SIGCONT: the step is seen once, and each job's misfire policy decides
# once (one decision per job), a job running across it is not disturbed,
# nothing runs twice.
#
# ahead: the clock stepped forward, then back, between the claim of an
# instant made ahead and the fork: no process starts before its instant.
#
# Checks that found bugs are soft and come last in each part (see the
# comments there).
. tests/integration/lib.sh
setup
faketime_env
: "${BACK:=5}"

# phase NAME: a fresh configuration, jobs directory $dir/NAME.d, state
# state/NAME.db and log $dir/NAME.log; the daemon's clock real again.
phase() {
	jobs=$dir/$1.d db=$dir/state/$1.db log=$dir/$1.log
	mkdir -p "$jobs"
	: >"$log"
	write_conf "jobs_dir = $1.d" "state = state/$1.db"
	echo "+0" >"$dir/faketime.rc"
}

# faked: the daemon's clock now (Unix seconds).
faked() { echo $(($(now) + $(tr -d + <"$dir/faketime.rc"))); }

# last_at JOB: the job's newest instance in the store.
last_at() { sql "SELECT coalesce(max(scheduled_at), 0) FROM runs WHERE job = '$1'"; }

# ids FILE: the first word of each line of FILE (the run ids) in FILE.ids.
ids() { cut -d " " -f 1 "$1" >"$1.ids" 2>/dev/null || : >"$1.ids"; }

# accounted JOB STEP [WHAT]: from the job's first instance to its last
# (runs and decisions' ranges), every instant (STEP seconds apart) is
# exactly one run or in exactly one decision, and no run is in a range.
accounted() {
	expect_eq "$1: every instant accounted for${3:+ ($3)}" "$(sql "WITH i(a) AS (
	    SELECT scheduled_at FROM runs WHERE job = '$1' UNION ALL
	    SELECT first_at FROM decisions WHERE job = '$1' UNION ALL
	    SELECT last_at FROM decisions WHERE job = '$1')
	    SELECT (SELECT count(*) FROM runs WHERE job = '$1') +
	    (SELECT coalesce(sum(count), 0) FROM decisions WHERE job = '$1') -
	    ((max(a) - min(a)) / $2 + 1) FROM i")" 0
	expect_eq "$1: no run inside a decision's range${3:+ ($3)}" "$(sql "SELECT
	    count(*) FROM runs r JOIN decisions d ON d.job = r.job WHERE
	    r.job = '$1' AND r.scheduled_at BETWEEN d.first_at AND d.last_at")" 0
}

# dur SECONDS: SECONDS as tickd writes a duration (1h2m5s).
dur() {
	_d=$1 _o=
	for _u in d:86400 h:3600 m:60 s:1; do
		[ $((_d / ${_u#*:})) -gt 0 ] && _o=$_o$((_d / ${_u#*:}))${_u%:*}
		_d=$((_d % ${_u#*:}))
	done
	echo "${_o:-0s}"
}

# step_logged WHAT DIRECTION SECONDS: the last step the log has is one in
# DIRECTION (forward, back) by SECONDS, or one second less (the offset is
# read from two clocks, a millisecond apart).
step_logged() {
	checks=$((checks + 1))
	grep -F 'stepped' "$log" | tail -n 1 | grep -qE "^tickd: warning: the wall clock was stepped $2 by ($(dur "$3")|$(dur $(($3 - 1)))): instances jumped over are late \(the misfire policy decides\), none already run will run again\$" ||
	    check_fail "$1: the last step logged: $(grep -F 'stepped' "$log" | tail -n 1)"
}

# long_job NAME: the job "long", which starts once, with the daemon
# (@reboot: a new state has no boot recorded; an instant computed before
# the start would be missed by a daemon that took longer to start on a
# busy machine), leaves its run id in NAME.id, marks every catchable
# signal it gets in NAME.sig, and ends when NAME.end exists.
long_job() {
	cat <<EOF2
[long]
schedule = @reboot
timeout = $((BACK + 900))s
command = for s in HUP INT QUIT TERM USR1 USR2 ALRM PIPE CONT; do trap "echo \$s >> @DIR@/$1.sig" \$s; done; echo "\$TICKD_RUN_ID" > @DIR@/$1.id; while [ ! -e @DIR@/$1.end ]; do sleep 0.1; done
EOF2
}

# long_ok NAME WHAT: NAME's long job is still running, and no signal.
long_ok() {
	checks=$((checks + 1))
	[ "$(sql "SELECT status FROM runs WHERE job = 'long'")" = running ] ||
	    fail "$1: long is not running $2: $(sql "SELECT status, reason FROM runs
	    WHERE job = 'long'")"
	expect_eq "$1: long got no signal $2" "$(cat "$dir/$1.sig" 2>/dev/null)" ""
}

# long_end NAME: end NAME's long job and check how it ended.
long_end() {
	touch "$dir/$1.end"
	wait_for "long to end" 10 eval '[ "$(sql "SELECT status FROM runs
	    WHERE job = '\''long'\''")" = succeeded ]'
	expect_eq "$1: long ended as it wanted" "$(sql "SELECT status, exit_status,
	    attempts, count(*) FROM runs WHERE job = 'long'") $(cat "$dir/$1.sig" \
	    2>/dev/null)" "succeeded|0|1|1 "
	expect_eq "$1: long's timeout did not fire" "$(log_count "ran longer than its timeout")" 0
}

# add_jobs FILE JOB BEFORE: write jobs.d/FILE from stdin (a file: in a
# pipeline it would run in a subshell, which fail cannot end) and reload;
# whether the reload planned JOB (new in FILE) before BEFORE (Unix
# seconds), or JOB has run already.  A job new at a reload is planned from
# the time of the reload (an instant before it never runs), and a busy
# machine may take seconds to reload or to start the daemon: a one-shot
# instant is chosen once the daemon is ready, and chosen again, later, if
# the reload came too late (then nothing of FILE has run).
add_jobs() {
	write_job "$1"
	_aj=$(log_count "reload done")
	kill -HUP "$tickd_pid"
	wait_for "the reload" 20 eval '[ "$(log_count "reload done")" -gt $_aj ]'
	[ "$(sql "SELECT (SELECT count(*) FROM runs WHERE job = '$2') > 0 OR
	    (SELECT planned FROM jobs WHERE job = '$2') < $3")" = 1 ]
}

# ==== fwd: forward by 10 hours ========================================================
phase fwd
F=$(now)
# The daily instant: 5 h from now, on a minute.
D=$(((F + 18000) / 60 * 60))
dcron=$(date -u -d "@$D" '+%-M %-H * * *')
{
	long_job fwd
	cat <<EOF2

[sec]
schedule = every 1s
command = echo "\$TICKD_RUN_ID" >> @DIR@/fwd-sec.out

[hr]
schedule = 0 * * * *
command = echo "\$TICKD_RUN_ID" >> @DIR@/fwd-hr.out

[dly1]
schedule = $dcron
command = echo "\$TICKD_RUN_ID" >> @DIR@/fwd-dly1.out

[dly2]
schedule = $dcron
misfire = skip
command = echo "\$TICKD_RUN_ID" >> @DIR@/fwd-dly2.out

[cu]
schedule = every 1m
misfire = catch_up
catch_up_limit = 3
misfire_grace = 1s
command = echo "\$TICKD_RUN_ID \$TICKD_TRIGGER \$(date +%s%N)" >> @DIR@/fwd-cu.out; sleep 0.2
EOF2
} | write_job fwd.job
# shellcheck disable=SC2086
daemon_start $ftenv
# When the jobs were planned (long, at the boot, has its own instant).
L=$(sql "SELECT min(planned) FROM jobs WHERE job != 'long'")
wait_for "long to start" 10 test -s "$dir/fwd.id"
wait_for "2 runs of sec" 10 eval '[ "$(lines "$dir/fwd-sec.out")" -ge 2 ]'
wait_mid_second
maxid=$(sql "SELECT max(id) FROM runs")
t_step=$(now)
echo "+36000" >"$dir/faketime.rc"
wait_for "the forward step to be logged" 10 log_has "the wall clock was stepped forward by"
wait_for "the decisions" 10 eval '[ "$(sql "SELECT count(DISTINCT job) FROM decisions")" -eq 4 ]'
wait_for "3 catch-up runs" 20 eval '[ "$(sql "SELECT count(*) FROM runs WHERE job = '\''cu'\''
    AND trigger = '\''catch_up'\'' AND status = '\''succeeded'\'' AND scheduled_at <=
    (SELECT last_at + 180 FROM decisions WHERE job = '\''cu'\''
    AND reason = '\''catch_up_limit'\'')")" -eq 3 ]'
# (Their instances, not all of theirs: an hour may begin before the test
# looks, and hr run again, on time.)
wait_for "dly1 and hr to run" 10 eval '[ "$(sql "SELECT count(*) FROM runs WHERE
    status = '\''succeeded'\'' AND (job = '\''dly1'\'' AND scheduled_at = $D OR
    job = '\''hr'\'' AND scheduled_at = (SELECT last_at + 3600 FROM decisions
    WHERE job = '\''hr'\''))")" -eq 2 ]'
wait_for "2 runs of sec after the step" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''sec'\'' AND status = '\''succeeded'\'' AND
    scheduled_at > $t_step + 30000")" -ge 2 ]'
long_ok fwd "after the step"
long_end fwd
daemon_stop_ok
step_logged "fwd: the step" forward 36000
expect_eq "fwd: one step" "$(log_count "stepped")" 1
# The last instances before the step (one may have run after t_step,
# before the daemon saw it).
p_sec=$(sql "SELECT max(scheduled_at) FROM runs WHERE job = 'sec' AND
    scheduled_at < $t_step + 100")
p_cu=$(sql "SELECT coalesce(max(scheduled_at), 0) FROM runs WHERE job = 'cu' AND
    scheduled_at < $t_step + 100")
p_hr=$(sql "SELECT coalesce(max(scheduled_at), 0) FROM runs WHERE job = 'hr' AND
    scheduled_at < $t_step + 100")
# sec: one range from the instant after its last one, about 10 h.
expect_eq "fwd: sec's decision" "$(sql "SELECT decision, reason, first_at - $p_sec,
    count BETWEEN 35990 AND 36030, count = last_at - first_at + 1 FROM decisions
    WHERE job = 'sec'")" "skipped|coalesced|1|1|1"
expect_eq "fwd: nothing new at or before sec's last instant" "$(sql "SELECT count(*)
    FROM runs WHERE id > $maxid AND job = 'sec' AND scheduled_at <= $p_sec")" 0
# hr: the 10 hours jumped over, from the hour after its last instance
# (an hour may have begun, and hr run, before the step), the newest runs:
# one decision.  The newest: the last hour begun on the daemon's clock at
# the step, or the next if one began between the step and the daemon
# seeing it.  Runs of hr after it are on time, on later hours.
h1=$(( p_hr > 0 ? p_hr + 3600 : (L / 3600 + 1) * 3600 ))
hn=$(((t_step + 36000) / 3600 * 3600))
expect_eq "fwd: hr's decision" "$(sql "SELECT decision, reason, first_at,
    last_at + 3600 BETWEEN $hn AND $hn + 3600, last_at - first_at =
    (count - 1) * 3600 FROM decisions WHERE job = 'hr'")" \
    "skipped|coalesced|$h1|1|1"
expect_eq "fwd: hr ran the newest hour, once" "$(sql "SELECT count(*), r.trigger,
    a.lateness_ms > 0 FROM runs r JOIN attempts a ON a.run = r.id
    WHERE r.job = 'hr' AND r.scheduled_at = (SELECT last_at + 3600 FROM
    decisions WHERE job = 'hr')")" "1|schedule|1"
expect_eq "fwd: hr, nothing else up to the newest hour" "$(sql "SELECT count(*)
    FROM runs WHERE job = 'hr' AND scheduled_at < (SELECT last_at + 3600 FROM
    decisions WHERE job = 'hr') AND scheduled_at != $p_hr")" 0
# dly1: its one instant, inside the 10 h: runs once, late; no decision.
expect_eq "fwd: dly1 ran its instant once, hours late" "$(sql "SELECT r.scheduled_at,
    r.status, r.trigger, a.lateness_ms > 4 * 3600 * 1000, (SELECT count(*) FROM
    decisions WHERE job = 'dly1') FROM runs r JOIN attempts a ON a.run = r.id
    WHERE r.job = 'dly1'")" "$D|succeeded|schedule|1|0"
# dly2 (skip): one decision, its instant; no run.
expect_eq "fwd: dly2 skipped its instant" "$(sql "SELECT decision, reason, first_at,
    last_at, count FROM decisions WHERE job = 'dly2'")|$(sql "SELECT count(*)
    FROM runs WHERE job = 'dly2'")" "skipped|misfire|$D|$D|1|0"
# cu: the newest 3 late minutes, oldest first, one at a time; the older
# ones one decision from the minute after its last instance.
cu_first=$(( p_cu > 0 ? p_cu + 60 : (L / 60 + 1) * 60 ))
expect_eq "fwd: cu's decision" "$(sql "SELECT decision, reason, first_at - $cu_first,
    count > 590, count = (last_at - first_at) / 60 + 1 FROM decisions
    WHERE job = 'cu' AND reason = 'catch_up_limit'")" "skipped|catch_up_limit|0|1|1"
expect_eq "fwd: cu's catch-up runs" "$(sql "SELECT group_concat(x, ',') FROM (SELECT
    (r.scheduled_at - d.last_at) || ' ' || r.status || ' ' || (a.lateness_ms > 1000) x
    FROM runs r JOIN attempts a ON a.run = r.id JOIN decisions d ON d.job = r.job AND
    d.reason = 'catch_up_limit' WHERE r.job = 'cu' AND r.trigger = 'catch_up'
    AND r.scheduled_at <= d.last_at + 180
    ORDER BY r.scheduled_at)")" "60 succeeded 1,120 succeeded 1,180 succeeded 1"
grep ' catch_up ' "$dir/fwd-cu.out" | sort -k3,3n | cut -d ' ' -f 1 >"$dir/cu.order"
expect_eq "fwd: cu's catch-up runs, oldest first" "$(tr '\n' ' ' <"$dir/cu.order")" \
    "$(sql "SELECT run_id FROM runs WHERE job = 'cu' AND trigger = 'catch_up'
    ORDER BY scheduled_at" | tr '\n' ' ')"
soft_checks=1
for j in sec hr dly1 dly2 cu; do
	ids "$dir/fwd-$j.out"
	expect_runs_match "$dir/fwd-$j.out.ids" "job = '$j'"
done
accounted sec 1
accounted cu 60
# A step does not change how long a run lasted: the attempt's duration is
# measured on the monotonic clock, as the log line says ("after N ms"),
# so the store should hold the same (it holds wall end - wall start).
expect_eq "fwd: long's duration in the store is the one logged" "$(sql "SELECT
    a.duration_ms FROM attempts a JOIN runs r ON a.run = r.id WHERE r.job = 'long'")" \
    "$(sed -n 's/.*job long: run .* succeeded (exit 0) after \([0-9]*\) ms$/\1/p' "$log")"
soft_checks=0

# snap: maxid, top and topc (the newest run, sec's and c2's newest
# instants), read in one statement (one snapshot: read one by one, a claim
# may come in between).
snap() {
	IFS='|' read -r maxid top topc <<EOF2
$(sql "SELECT max(id), (SELECT max(scheduled_at) FROM runs WHERE job = 'sec'),
    (SELECT max(scheduled_at) FROM runs WHERE job = 'c2') FROM runs")
EOF2
}

# ==== back: backward steps ============================================================
phase back
{
	long_job back
	cat <<EOF2

[sec]
schedule = every 1s
command = echo "\$TICKD_RUN_ID" >> @DIR@/back-sec.out

[c2]
schedule = */2 * * * * *
command = echo "\$TICKD_RUN_ID" >> @DIR@/back-c2.out
EOF2
} | write_job back.job
# shellcheck disable=SC2086
daemon_start $ftenv
wait_for "long to start" 10 test -s "$dir/back.id"
# once: a one-shot job, its instant one of c2's (c2 has run when once
# has), added once the daemon is ready.
tries=0
until
	x=$((($(now) + 4) / 2 * 2))
	printf '[once]\nschedule = %s\ncommand = %s\n' "$(at_cron "$x")" \
	    'echo "$TICKD_RUN_ID" >> @DIR@/back-once.out' >"$dir/once.in"
	add_jobs once.job once "$x" <"$dir/once.in"
do
	tries=$((tries + 1))
	[ "$tries" -lt 5 ] || fail "back: 5 reloads in a row came too late"
done
wait_for "once to run" 10 test -s "$dir/back-once.out"
x=$(sql "SELECT scheduled_at FROM runs WHERE job = 'once'")
wait_for "sec to be past once" 10 eval '[ "$(last_at sec)" -ge $((x + 1)) ] &&
    [ "$(lines "$dir/back-c2.out")" -ge 1 ]'

# --- back by BACK (5 s): the clock passes those instants again ------------------------
wait_mid_second
# Far enough for once's instant to come again (on a loaded machine the
# test may have got here late).
back=$BACK
[ $(($(now) - x + 2)) -le "$back" ] || back=$(($(now) - x + 2))
echo "-$back" >"$dir/faketime.rc"
checks=$((checks + 1))
[ "$(faked)" -lt "$x" ] || fail "back: the clock set back ($(faked)) is not before once's instant ($x)"
# The daemon notices the step when its wake-up for sec's next instant
# fires, and then claims nothing for $back seconds: what it had claimed
# until then is what ran before the step (read before the step, a claim
# made as a busy test got to the step would count as after it).
wait_for "the backward step to be logged" $((back + 10)) log_has "the wall clock was stepped back by"
snap
wait_for "3 runs of sec after the step" $((back + 10)) eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''sec'\'' AND id > $maxid AND status = '\''succeeded'\''")" -ge 3 ]'
wait_for "a run of c2 after the step" $((back + 10)) eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''c2'\'' AND id > $maxid AND status = '\''succeeded'\''")" -ge 1 ]'
long_ok back "after the step back by $back s"
step_logged "back: the step back by $back s" back "$back"
expect_eq "back: no instance at or before the last one, after the step" "$(sql "SELECT
    count(*) FROM runs WHERE id > $maxid AND scheduled_at <= (SELECT max(scheduled_at)
    FROM runs r WHERE r.job = runs.job AND r.id <= $maxid)")" 0
expect_eq "back: sec goes on from the instant after its last one" "$(sql "SELECT
    min(scheduled_at) - $top FROM runs WHERE job = 'sec' AND id > $maxid")" 1
expect_eq "back: c2 goes on from its next instant" "$(sql "SELECT
    min(scheduled_at) - $topc FROM runs WHERE job = 'c2' AND id > $maxid")" 2
expect_eq "back: once ran once" "$(sql "SELECT count(*) FROM runs WHERE job = 'once'")" 1
expect_eq "back: no decision" "$(sql "SELECT count(*) FROM decisions")" 0

# --- back by 2 h while long runs ------------------------------------------------------------
wait_mid_second
echo "-$((7200 + back))" >"$dir/faketime.rc"
# Every job's next instant is 2 h away now; noticed (as above), then a
# job added.
wait_for "the step back by 2h" 10 eval '[ "$(log_count "stepped back")" -eq 2 ]'
snap
write_job late.job <<'EOF2'
[late]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/back-late.out
EOF2
kill -HUP "$tickd_pid"
wait_for "3 runs of the added job" 20 eval '[ "$(sql "SELECT count(*) FROM runs WHERE
    job = '\''late'\'' AND status = '\''succeeded'\''")" -ge 3 ]'
long_ok back "after the step back by 2 h"
step_logged "back: the step back by 2 h" back 7200
expect_eq "back: only the added job ran" "$(sql "SELECT count(*) FROM runs
    WHERE id > $maxid AND job != 'late'")" 0
expect_eq "back: the added job runs in the time set back" "$(sql "SELECT count(*),
    max(scheduled_at) < $top - 7000 FROM runs WHERE job = 'late'")" \
    "$(lines "$dir/back-late.out")|1"
# The long job ends while the clock is 2 h back.
long_end back
expect_eq "back: no decision" "$(sql "SELECT count(*) FROM decisions")" 0

# --- the clock is corrected: forward 2 h ------------------------------------------------------
# poke.py SOCKET FILE TEXT: 0.70-0.75 s into a second, send "ping" on the
# control socket and read the answer; if that took until 0.80 at most,
# write TEXT to FILE (the offset), else try again the next second.
cat >"$dir/poke.py" <<'EOF2'
import socket, sys, time
for _ in range(20):
    while not 0.70 <= time.time() % 1 <= 0.75:
        time.sleep(0.005)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    s.sendall(b"ping\n")
    s.recv(100)
    s.close()
    if time.time() % 1 <= 0.80:
        break
with open(sys.argv[2], "w") as f:
    f.write(sys.argv[3] + "\n")
EOF2
maxid2=$(sql "SELECT max(id) FROM runs")
"$python" "$dir/poke.py" "$dir/ctl.sock" "$dir/faketime.rc" "+0" ||
    fail "back: poke.py failed"
t_fix=$(now)
wait_for "the forward step to be logged" 10 log_has "the wall clock was stepped forward by"
# A bug: libev reads the real-time clock at most every 0.5 s and
# interpolates from the monotonic clock in between.  The request made it
# read the clock 0.3 s before the step; at the next instant (late's, as
# libev sees it, 0.25 s after the step) the daemon reads the stepped clock
# itself, dispatches, and arms the ev_periodic at the next instant, 1 s
# away; libev still has the clock 2 h back, sees the periodic 2 h away,
# and (4.33, its own CANCEL_ON_SET timerfd armed) sleeps until something
# else wakes it.  The same happens after a real step less than 0.5 s
# after the loop last woke: libev's timerfd callback refreshes ev_rt_now
# but not the offset time_update() interpolates with, and the timerfd
# callback of server.c calls ev_now_update(), which interpolates too.
# runs_after JOB N: whether JOB has N runs after the correction.
runs_after() {
	[ "$(sql "SELECT count(*) FROM runs WHERE job = '$1' AND id > $maxid2 AND
	    status = 'succeeded'")" -ge "$2" ]
}
_end=$(($(now) + 10 * slow))
until runs_after sec 2 || [ "$(now)" -gt "$_end" ]; do
	sleep 0.05
done
checks=$((checks + 1))
if ! runs_after sec 2; then
	soft_fail "back: sec did not run twice in the 10 s after the clock was corrected forward (libev's stale real-time clock: the wake-up is armed 2 h away)"
	# Any wake-up now makes libev read the clock again.
	ctl_send 'ping\n' >/dev/null
	wait_for "sec to run again after a ping" 10 runs_after sec 2
fi
echo "back: sec ran twice $(($(now) - t_fix)) s after the correction"
wait_for "a run of c2 after the correction" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''c2'\'' AND id > $maxid2 AND status = '\''succeeded'\''")" -ge 1 ]'
daemon_stop_ok
step_logged "back: the correction" forward $((7200 + back))
# sec and c2 go on from the instant after their last one (as a run or in a
# decision: the instants of the last seconds fell due at once).
expect_eq "back: sec goes on from the instant after its last one" "$(sql "SELECT min(a) - $top
    FROM (SELECT scheduled_at a FROM runs WHERE job = 'sec' AND id > $maxid UNION ALL
    SELECT first_at FROM decisions WHERE job = 'sec')")" 1
expect_eq "back: c2 goes on from its next instant" "$(sql "SELECT min(a) - $topc
    FROM (SELECT scheduled_at a FROM runs WHERE job = 'c2' AND id > $maxid UNION ALL
    SELECT first_at FROM decisions WHERE job = 'c2')")" 2
expect_eq "back: nothing at or before the last instances, after the correction" "$(sql "SELECT
    count(*) FROM runs WHERE id > $maxid2 AND job != 'late' AND scheduled_at <= $top")" 0
expect_eq "back: late's 2 h, skipped" "$(sql "SELECT decision, reason, count > 7100
    FROM decisions WHERE job = 'late' ORDER BY id LIMIT 1")" "skipped|coalesced|1"
soft_checks=1
for j in sec c2 once late; do
	ids "$dir/back-$j.out"
	expect_runs_match "$dir/back-$j.out.ids" "job = '$j'"
done
accounted sec 1
accounted c2 2
accounted late 1
# The run that ended while the clock was 2 h back: duration in the store
# as logged (monotonic), not end - start on the wall clock (negative).
expect_eq "back: long's duration in the store is the one logged" "$(sql "SELECT
    a.duration_ms FROM attempts a JOIN runs r ON a.run = r.id WHERE r.job = 'long'")" \
    "$(sed -n 's/.*job long: run .* succeeded (exit 0) after \([0-9]*\) ms$/\1/p' "$log")"
soft_checks=0

# ==== suspend: SIGSTOP, 3 h on, SIGCONT ================================================
phase susp
{
	long_job susp
	cat <<'EOF2'

[sec]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/susp-sec.out

[cu]
schedule = every 1m
misfire = catch_up
catch_up_limit = 2
misfire_grace = 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/susp-cu.out

[sk]
schedule = every 10s
misfire = skip
misfire_grace = 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/susp-sk.out

[hr]
schedule = 0 * * * *
command = echo "$TICKD_RUN_ID" >> @DIR@/susp-hr.out
EOF2
} | write_job susp.job
# shellcheck disable=SC2086
daemon_start $ftenv
L=$(sql "SELECT min(planned) FROM jobs WHERE job != 'long'")
wait_for "long to start" 10 test -s "$dir/susp.id"
wait_for "2 runs of sec" 10 eval '[ "$(lines "$dir/susp-sec.out")" -ge 2 ]'
wait_mid_second
maxid=$(sql "SELECT max(id) FROM runs") t_step=$(now)
kill -STOP "$tickd_pid"
echo "+10800" >"$dir/faketime.rc"
wait_until $(($(now) + 2))
kill -CONT "$tickd_pid"
wait_for "the step to be logged" 10 log_has "the wall clock was stepped forward by"
wait_for "the decisions" 10 eval '[ "$(sql "SELECT count(DISTINCT job) FROM decisions")" -eq 4 ]'
# (The instances after the ranges: an hour may begin before the test looks,
# and on a busy machine a minute of cu may be late, and caught up, too.)
wait_for "2 catch-up runs" 10 eval '[ "$(sql "SELECT count(*) FROM runs WHERE job = '\''cu'\''
    AND trigger = '\''catch_up'\'' AND status = '\''succeeded'\'' AND scheduled_at <=
    (SELECT last_at + 120 FROM decisions WHERE job = '\''cu'\''
    AND reason = '\''catch_up_limit'\'')")" -eq 2 ]'
wait_for "hr to run" 10 eval '[ "$(sql "SELECT count(*) FROM runs WHERE job = '\''hr'\''
    AND status = '\''succeeded'\'' AND scheduled_at = (SELECT last_at + 3600
    FROM decisions WHERE job = '\''hr'\'')")" -eq 1 ]'
# Some more seconds go by: nothing more is decided.
wait_for "3 runs of sec after" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''sec'\'' AND id > $maxid AND status = '\''succeeded'\''")" -ge 3 ]'
long_ok susp "after the suspend"
long_end susp
daemon_stop_ok
# The last instances before the suspend (one may have been claimed after
# t_step, before the daemon stopped).
p_sec=$(sql "SELECT max(scheduled_at) FROM runs WHERE job = 'sec' AND
    scheduled_at < $t_step + 100")
p_hr=$(sql "SELECT coalesce(max(scheduled_at), 0) FROM runs WHERE job = 'hr'
    AND scheduled_at < $t_step + 100")
step_logged "susp: the step, once" forward 10800
expect_eq "susp: no other step" "$(log_count "stepped")" 1
expect_eq "susp: nothing logged as a suspend" "$(log_count "suspend")" 0
expect_eq "susp: one decision per job" "$(sql "SELECT job, decision, reason, count(*)
    FROM decisions GROUP BY job ORDER BY job" | tr '\n' ' ')" \
    "cu|skipped|catch_up_limit|1 hr|skipped|coalesced|1 sec|skipped|coalesced|1 sk|skipped|misfire|1 "
expect_eq "susp: sec's range, 3 h from its last instance" "$(sql "SELECT first_at - $p_sec,
    count BETWEEN 10790 AND 10830 FROM decisions WHERE job = 'sec'")" "1|1"
expect_eq "susp: sec ran the newest instance" "$(sql "SELECT status, trigger FROM runs
    WHERE job = 'sec' AND scheduled_at = (SELECT last_at + 1 FROM decisions
    WHERE job = 'sec')")" "succeeded|schedule"
# hr: from the hour after its last instance (or the first after the
# start) to the hour before the newest on the daemon's clock at the
# resume (2 or 3 s after t_step, or the next if one began meanwhile).
h1=$(( p_hr > 0 ? p_hr + 3600 : (L / 3600 + 1) * 3600 ))
hn=$(((t_step + 10800) / 3600 * 3600))
expect_eq "susp: hr, the hours coalesced into the newest" "$(sql "SELECT d.first_at,
    d.last_at + 3600 BETWEEN $hn AND $hn + 3600, d.count = (d.last_at -
    d.first_at) / 3600 + 1, r.trigger FROM decisions d JOIN runs r ON
    r.job = d.job AND r.scheduled_at = d.last_at + 3600 WHERE d.job = 'hr'")" \
    "$h1|1|1|schedule"
expect_eq "susp: cu's 2 catch-up runs after its range" "$(sql "SELECT group_concat(x, ',')
    FROM (SELECT r.scheduled_at - d.last_at x FROM runs r JOIN decisions d ON
    d.job = r.job AND d.reason = 'catch_up_limit' WHERE r.job = 'cu' AND
    r.trigger = 'catch_up' AND r.scheduled_at <= d.last_at + 120
    ORDER BY r.scheduled_at)")" "60,120"
# (What it skipped did not run: no run inside its skipped range.  Its
# lateness is not asserted: on a loaded machine an on-time instance may
# start over a second after its instant.)
expect_eq "susp: sk ran nothing it skipped" "$(sql "SELECT count(*) FROM runs r
    JOIN decisions d ON d.job = r.job WHERE r.job = 'sk' AND
    r.status != 'skipped' AND r.scheduled_at BETWEEN d.first_at AND d.last_at")" 0
soft_checks=1
for j in sec cu sk hr; do
	ids "$dir/susp-$j.out"
	expect_runs_match "$dir/susp-$j.out.ids" "job = '$j'"
done
accounted sec 1
accounted cu 60
accounted sk 10
soft_checks=0

# ==== ahead: the clock stepped while a claim made ahead waits ===============
# tickd.8, RUN INSTANCES: an instant claimed ahead is forked once the wall
# clock reads it, never before.  TICKD_TEST_AHEAD_MS claims AH s ahead
# (50 ms in production), a window in which the test steps the clock
# between the claim (committed: a running row, no process yet) and the
# fork.  j1: forward by STEP s during its wait; its process starts when
# the wait ends, late, once.  j2: back by STEP s during its wait (as a
# leap second, or NTP stepping a clock that ran fast): the instant is
# then further away than the wait may last; its process waits in the
# loop, which goes on answering, and starts when the daemon's clock reads
# the instant (its log line, its attempt's lateness and the job's own
# clock say so).  A manual run of j2 (overlap = queue) asked meanwhile
# starts after it, not before.
phase ahead
AH=4 STEP=6
# shellcheck disable=SC2086
daemon_start $ftenv TICKD_TEST_AHEAD_MS=$((AH * 1000))
# ahead_jobs: the jobs j1 at F1 and j2 at F2.
ahead_jobs() {
	for _j in j1:$F1 j2:$F2; do
		cat <<EOF2
[${_j%:*}]
schedule = $(at_cron "${_j#*:}")
overlap = queue
command = echo "\$TICKD_RUN_ID \$(date +%s%3N)" >> @DIR@/ahead-${_j%:*}.out

EOF2
	done
}
# j1's claim is AH s before F1, after the reload; j2's (AH s before F2 on
# the clock moved STEP s on) well after j1 has run.
tries=0
until
	F1=$(($(now) + AH + 2 + slow))
	F2=$((F1 + AH + STEP + 3 * slow))
	ahead_jobs >"$dir/ahead.in"
	add_jobs ahead.job j1 $((F1 - AH)) <"$dir/ahead.in"
do
	tries=$((tries + 1))
	[ "$tries" -lt 5 ] || fail "ahead: 5 reloads in a row came too late"
done

# claimed JOB: JOB's instance is claimed (committed, maybe not forked).
claimed() {
	[ "$(sql "SELECT count(*) FROM runs WHERE job = '$1'")" -gt 0 ]
}

# started_ok JOB INSTANT WHAT: JOB ran once, its process started when the
# daemon's wall clock (and the job's own) read INSTANT or later.
started_ok() {
	# (The start is recorded when the daemon next writes: the job's own
	# line may come first.)
	wait_for "$1's start recorded" 10 eval '[ -n "$(sql "SELECT
	    a.lateness_ms FROM runs r JOIN attempts a ON a.run = r.id WHERE
	    r.job = '"'$1'"' AND a.lateness_ms IS NOT NULL")" ]'
	_so=$(sql "SELECT count(*) || ' ' || coalesce(min(a.lateness_ms),
	    'none') FROM runs r JOIN attempts a ON a.run = r.id
	    WHERE r.job = '$1' AND r.origin = 'schedule'")
	_own=$(($(cut -d ' ' -f 2 "$dir/ahead-$1.out" | head -n 1) - $2 * 1000))
	checks=$((checks + 1))
	[ "${_so% *}" = 1 ] && [ "${_so#* }" != none ] &&
	    [ "${_so#* }" -ge 0 ] && [ "$_own" -ge 0 ] ||
	    fail "ahead: $1 ($3) did not start once, at or after its instant: $1's runs and lateness: ${_so% *}, ${_so#* } ms; its own clock at the start: $_own ms after the instant"
}

wait_for "j1's claim" $((F1 - $(now) + 5)) claimed j1
echo "+$STEP" >"$dir/faketime.rc"
wait_for "j1 to run" $((AH + 10)) test -s "$dir/ahead-j1.out"
started_ok j1 "$F1" "the clock stepped forward by $STEP s while it waited"
wait_for "j2's claim" $((F2 - $(now) + 5)) claimed j2
echo "+0" >"$dir/faketime.rc"
t_back=$(now_ms)
# Asked while j2 waits for its instant, STEP s away on the daemon's clock.
pong=$(ctl_send 'ping\n') pid=$tickd_pid
manual=$(ctl run j2)
j2_then=$(lines "$dir/ahead-j2.out")
wait_for "j2 to run" $((AH + STEP + 10)) test -s "$dir/ahead-j2.out"
# (On the daemon's clock, the wait for j2 would have ended at F2 - STEP.)
checks=$((checks + 1))
[ "$t_back" -lt $(((F2 - STEP) * 1000)) ] ||
    fail "ahead: the clock was set back $((t_back - (F2 - STEP) * 1000)) ms after j2's wait ended: too late to test it"
started_ok j2 "$F2" "the clock stepped back by $STEP s while it waited"
wait_for "j2's manual run" 10 eval '[ "$(lines "$dir/ahead-j2.out")" -ge 2 ]'
expect_eq "ahead: j2's held instance first, then the manual run" \
    "$(cut -d ' ' -f 1 "$dir/ahead-j2.out" | tr '\n' ' ')" \
    "j2@$(rfc3339 "$F2") $manual "
daemon_stop_ok
expect_eq "ahead: a ping answered while j2 waited to start" \
    "$pong $j2_then" "OK $pid 0"
expect_eq "ahead: j2's wait logged, once" "$(log_count "job j2: run \
j2@$(rfc3339 "$F2"), claimed ahead of its instant $(rfc3339 "$F2"), waits: \
the wall clock went back meanwhile")" 1
expect_before "ahead: j2 waited, then started" "claimed ahead of its instant" \
    1 "job j2: run j2@$(rfc3339 "$F2") attempt 1 started" 1
step_logged "ahead: the step back" back "$STEP"
expect_eq "ahead: no decision" "$(sql "SELECT count(*) FROM decisions")" 0
done_ok

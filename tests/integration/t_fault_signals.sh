#!/bin/sh
# Signals and broken peers (issue 7), four parts, each on its own state,
# jobs directory and log:
#
# hup: a storm of 100 SIGHUPs (HUPS), in bursts with job files rewritten,
# added and removed between them, while jobs every second run: the daemon
# survives, every reload finishes, every instance runs once (the jobs' own
# marker lines against the runs table, every instant a run or a
# decision), a running job gets no signal (it traps them all), and the
# configuration in force at the end is the last one written.
#
# term: SIGTERM while 150 jobs run (TERM_JOBS; max_running as many, 20 more
# queued; 5 of them ignore TERM, kill_grace 2s), under the descriptor
# limit systemd gives a service (1024, here soft and hard: when it holds
# fewer runs than TERM_JOBS, tickd warns and keeps the rest queued, and
# none fails to start): each run is terminated (reason
# shutdown: TERM, or KILL for the 5), not retried, not reported to
# on_failure; nothing is left running; tickd exits 0 (tickd.8: the
# last-resort SIGKILL comes 1 s after the longest kill_grace, at least
# 11 s after the signal; the deadline here is wider, the figures printed
# say how long it took); the queued instances stay queued.
#
# stop: SIGSTOP for about 4.5 s, then SIGCONT, with NOTIFY_SOCKET and the
# watchdog: no WATCHDOG=1 while stopped, pings again after; a stop is no
# clock step nor suspend; instances that fell due meanwhile go to each
# job's misfire policy once (run_once, catch_up, skip: one decision each);
# a job that ended while the daemon was stopped is recorded as it ended;
# nothing runs twice.
#
# pipe: clients that close the control socket before reading the reply
# (run, ping, nothing, half a line), 100 (CLIENTS) one after the other:
# each complete "run" request is one manual run, no more, no less; a job
# whose descendants write after tickd closed its output pipes (one
# ignores SIGPIPE and sees EPIPE, one dies of SIGPIPE); then a daemon
# whose own stderr reader goes away: it keeps running jobs and answering,
# and stops with status 0.
#
# tests/long/t_fault_signals_long.sh runs it with more of everything.
. tests/integration/lib.sh
setup
: "${HUPS:=100}" "${TERM_JOBS:=150}" "${CLIENTS:=100}"
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }

# phase NAME [LINE...]: a fresh configuration (the LINEs added), jobs
# directory $dir/NAME.d, state state/NAME.db and log $dir/NAME.log.
phase() {
	_ph=$1
	shift
	jobs=$dir/$_ph.d db=$dir/state/$_ph.db log=$dir/$_ph.log
	mkdir -p "$jobs"
	: >"$log"
	write_conf "jobs_dir = $_ph.d" "state = state/$_ph.db" "$@"
}

# ping_ok [WHAT]: the daemon answers "ping" on the control socket.
ping_ok() {
	expect_eq "${1:-ping}" "$(ctl_send 'ping\n')" "OK $tickd_pid"
}

# ids FILE: the first word of each line of FILE (the run ids) in FILE.ids.
ids() { cut -d " " -f 1 "$1" >"$1.ids" 2>/dev/null || : >"$1.ids"; }

# ==== hup: a storm of SIGHUPs ===========================================================
phase hup
t0=$(($(now) + 2 + slow))
write_job tick.job <<'EOF2'
[t1]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/hup-t1.out

[t2]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/hup-t2.out
EOF2
# hup_files R: the job files of round R (0: the first).  var's command
# says R; flip is there in even rounds only (the first and the last),
# gone in every round but the last; sw is every 2s in even rounds, every
# 3s in odd ones; long's timeout changes (its run keeps the one it started
# with); the last round (10) adds final.  (Signals that arrive during a
# reload coalesce: a busy daemon may never load some rounds, so only the
# first and the last configurations are sure to be in force for long.)
hup_files() {
	write_job var.job <<EOF2
[var]
schedule = every 1s
command = echo "\$TICKD_RUN_ID v$1" >> @DIR@/hup-var.out
EOF2
	if [ $(($1 % 2)) -eq 0 ]; then
		write_job flip.job <<'EOF2'
[flip]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/hup-flip.out
EOF2
	else
		rm -f "$jobs/flip.job"
	fi
	if [ "$1" -lt 10 ]; then
		write_job gone.job <<'EOF2'
[gone]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/hup-gone.out
EOF2
	else
		rm -f "$jobs/gone.job"
	fi
	write_job sw.job <<EOF2
[sw]
schedule = every $((2 + $1 % 2))s
command = echo "\$TICKD_RUN_ID" >> @DIR@/hup-sw.out
EOF2
	# It waits for long.end; every catchable signal leaves a mark.
	write_job long.job <<EOF2
[long]
schedule = $(at_cron "$t0")
timeout = $((600 + $1))s
command = for s in HUP INT QUIT TERM USR1 USR2 ALRM PIPE CONT; do trap "echo \$s >> @DIR@/hup-long.sig" \$s; done; echo "\$TICKD_RUN_ID" > @DIR@/hup-long.id; while [ ! -e @DIR@/hup-long.end ]; do sleep 0.1; done
EOF2
	if [ "$1" -eq 10 ]; then
		write_job final.job <<'EOF2'
[final]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/hup-final.out
EOF2
	fi
}
hup_files 0
daemon_start
wait_for "long to start" 10 test -s "$dir/hup-long.id"
wait_for "2 runs of t1, t2 and var" 10 eval '[ "$(lines "$dir/hup-t1.out")" -ge 2 ] &&
    [ "$(lines "$dir/hup-t2.out")" -ge 2 ] && [ "$(lines "$dir/hup-var.out")" -ge 2 ]'
wait_for "a run of flip and gone" 10 eval '[ "$(lines "$dir/hup-flip.out")" -ge 1 ] &&
    [ "$(lines "$dir/hup-gone.out")" -ge 1 ]'
# 10 rounds of HUPS / 10 signals, 20 ms apart; the files change between
# rounds.
r=1
while [ $r -le 10 ]; do
	hup_files $r
	i=0
	while [ $i -lt $((HUPS / 10)) ]; do
		kill -HUP "$tickd_pid" || fail "tickd died during the storm (round $r)"
		sleep 0.02
		i=$((i + 1))
	done
	r=$((r + 1))
done
checks=$((checks + 1))
pid_alive "$tickd_pid" || fail "tickd died in the HUP storm"
# The storm is over once the daemon has answered after the last signal
# and finished every reload it began: only then is the last
# configuration in force (on a loaded machine that can take seconds).
ping_ok "ping after the last SIGHUP"
# (A reload that found a file being written says "partially failed".)
wait_for "every reload to finish" 30 eval '[ $(($(log_count "tickd: notice: reload done: ") +
    $(log_count "tickd: warning: reload partially failed: "))) \
    -eq "$(log_count "tickd: notice: reloading")" ]'
t_end=$(now)
wait_for "2 runs of the job added last" 10 eval '[ "$(lines "$dir/hup-final.out")" -ge 2 ]'
wait_for "a run of var's last version" 10 grep -q ' v10$' "$dir/hup-var.out"
wait_for "a run of sw on its last schedule" 10 eval '[ "$(sql "SELECT count(*)
    FROM runs WHERE job = '\''sw'\'' AND scheduled_at >= $t_end + 2 AND
    status = '\''succeeded'\''")" -ge 1 ]'
ping_ok "ping after the storm"
nrel=$(log_count "tickd: notice: reloading")
echo "hup: $HUPS SIGHUPs, $nrel reloads"
# Signals that arrive during a reload coalesce into one more reload, so
# a busy daemon may do fewer than one per round; never more than sent.
checks=$((checks + 1))
[ "$nrel" -ge 1 ] && [ "$nrel" -le "$HUPS" ] || fail "$nrel reloads for $HUPS SIGHUPs"
# (Finished: done, or "partially failed" when it read a file being
# written.)
expect_eq "every reload finished" "$(($(log_count "tickd: notice: reload done: ") +
    $(log_count "tickd: warning: reload partially failed: ")))" "$nrel"
expect_eq "no reload failed" "$(grep -c 'reload failed\|reload partially failed' "$log")" 0
expect_eq "the last reload: the last files" "$(grep -F 'reload done: ' "$log" | tail -n 1 |
    sed 's/.*reload done: //')" "7 jobs, 0 errors"
# The last version only, from its first run on.
expect_eq "var: no older version after v10" "$(sed -n '/ v10$/,$p' "$dir/hup-var.out" |
    grep -cv ' v10$')" 0
expect_eq "gone: removed at the end" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'gone' AND scheduled_at >= $t_end + 2")" 0
wait_for "a run of flip, back at the end" 10 eval '[ "$(sql "SELECT count(*)
    FROM runs WHERE job = '\''flip'\'' AND scheduled_at >= $t_end + 2 AND
    status = '\''succeeded'\''")" -ge 1 ]'
expect_eq "sw: every 2s at the end" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'sw' AND scheduled_at >= $t_end + 2 AND scheduled_at % 2 != 0")" 0
# The long job: no signal at all, and it ends as it wants.
expect_eq "long: no signal in the storm" "$(cat "$dir/hup-long.sig" 2>/dev/null)" ""
lid=$(cat "$dir/hup-long.id")
touch "$dir/hup-long.end"
wait_for "long to end" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE run_id = '\''$lid'\''")" = succeeded ]'
daemon_stop_ok
expect_eq "long: no signal" "$(cat "$dir/hup-long.sig" 2>/dev/null)" ""
expect_eq "long: one run" "$(sql "SELECT count(*), sum(attempts), min(status)
    FROM runs WHERE job = 'long'")" "1|1|succeeded"
expect_eq "nothing failed, terminated (but by the stop) or abandoned" "$(sql "SELECT
    count(*) FROM runs WHERE status NOT IN ('succeeded', 'skipped') AND NOT
    (status = 'terminated' AND reason = 'shutdown')")" 0
soft_checks=1
for j in t1 t2 var flip gone sw final; do
	ids "$dir/hup-$j.out"
	expect_runs_match "$dir/hup-$j.out.ids" "job = '$j'"
done
for j in t1 t2 var; do
	expect_accounted $j "through the storm"
done
soft_checks=0

# ==== term: SIGTERM while TERM_JOBS jobs run ================================================
phase term "max_running = $TERM_JOBS"
sleeper zz-term
sleeper zz-termi
t0=$(($(now) + 3 + slow))
cron=$(at_cron "$t0")
started='echo "$TICKD_RUN_ID" >> @DIR@/term.started'
{
	# The 5 that ignore TERM sort first: they are among those that run.
	# (printf, a builtin: a fork per job would take seconds.)
	for i in i1 i2 i3 i4 i5 $(seq 100001 $((100000 + TERM_JOBS + 15))); do
		case $i in
		i*) printf '[%s]\nkill_grace = 2s\ncommand = %s; trap "" TERM; exec %s 60\n' \
		    "$i" "$started" "$dir/zz-termi" ;;
		*) printf '[s%s]\ncommand = %s; exec %s 60\n' "$i" "$started" "$dir/zz-term" ;;
		esac
		printf 'schedule = %s\nretries = 2\nretry_delay = 1s\non_failure = %s\n\n' \
		    "$cron" 'echo "$TICKD_RUN_ID" >> @DIR@/term.hook'
	done
} | write_job many.job
# A service's descriptors: systemd's default soft limit.
tickd_wrap="prlimit --nofile=1024 --"
daemon_start
tickd_wrap=
checks=$((checks + 1))
[ "$(now)" -lt "$t0" ] || fail "term: tickd was ready after the instant"
# Each running job holds 2 descriptors in tickd (its output pipes): under
# 1024 (soft and hard) about 480 fit.  tickd says so at start and runs that
# many; the others wait, queued like any over max_running, and none fails
# to start (the long variant runs 600).
run=$TERM_JOBS
if log_has "descriptor limit holds the output pipes of"; then
	run=$(sed -n 's/.*holds the output pipes of \([0-9]*\) runs at once.*/\1/p' \
	    "$log" | head -n 1)
	[ "$run" -lt "$TERM_JOBS" ] || fail "term: a limit of $run runs is no limit"
	echo "term: the descriptors hold $run of $TERM_JOBS runs at once"
fi
queued=$((TERM_JOBS + 20 - run))
wait_for "$run jobs to start" $((t0 - $(now) + 20 + run / 10)) eval '[ \
    "$(lines "$dir/term.started")" -ge $run ]'
expect_eq "term: no job failed to start" "$(sql "SELECT count(*) FROM attempts
    WHERE outcome = 'spawn_failed'")" 0
wait_for "$run jobs to run" 10 eval '[ "$(pgrep -fc -- "^$dir/zz-term")" -eq $run ]'
wait_for "$queued queued" 5 eval '[ "$(sql "SELECT count(*) FROM runs WHERE status = '\''queued'\''
    AND reason = '\''max_running'\''")" -eq $queued ]'
expect_eq "running" "$(sql "SELECT count(*) FROM runs WHERE status = 'running'")" "$run"
expect_eq "TERM-ignoring jobs running" "$(pgrep -fc -- "^$dir/zz-termi")" 5
t_term=$(now_ms)
# tickd(8): SIGKILL 1 s after the longest kill_grace (10s, the default),
# at least 11 s after the signal; then the end of the runs is written.
# (The deadline is wider: the machine is shared.  The figures say more.)
daemon_stop 30
took=$(($(now_ms) - t_term))
echo "term: $run running jobs stopped in $took ms; $(sql "SELECT 'the TERM ones ended ' ||
    (min(a.finished_at) - $t_term) || '-' || (max(a.finished_at) - $t_term) ||
    ' ms after SIGTERM' FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.job LIKE 's%'"), $(sql "SELECT 'the KILL ones (kill_grace 2s) ' ||
    (min(a.finished_at) - $t_term) || '-' || (max(a.finished_at) - $t_term) || ' ms'
    FROM attempts a JOIN runs r ON a.run = r.id WHERE r.job LIKE 'i%'")"
expect_eq "term: tickd exit status" "$daemon_rc" 0
log_has "tickd: notice: stopping on Terminated: $run job processes to end" ||
    fail "term: no stopping line"
log_has "tickd: notice: stopped" || fail "term: no stopped line"
expect_eq "term: no job process left" "$(pgrep -f -- "^$dir/zz-term" | tr '\n' ' ')" ""
expect_eq "term: the runs" "$(sql "SELECT status, reason, count(*) FROM runs
    GROUP BY 1, 2 ORDER BY 1" | tr '\n' ' ')" \
    "queued|max_running|$queued terminated|shutdown|$run "
expect_eq "term: how they ended" "$(sql "SELECT substr(job, 1, 1), exit_status,
    signal, count(*) FROM runs WHERE status = 'terminated' GROUP BY 1, 2, 3
    ORDER BY 1" | tr '\n' ' ')" "i||9|5 s||15|$((run - 5)) "
expect_eq "term: the attempts" "$(sql "SELECT outcome, trigger, count(*) FROM attempts
    GROUP BY 1, 2")" "terminated|schedule|$run"
expect_eq "term: the queued ones never started" "$(sql "SELECT count(*), sum(attempts),
    count(started_at), count(owner) FROM runs WHERE status = 'queued'")" "$queued|0|0|0"
expect_eq "term: not retried" "$(sql "SELECT count(*) FROM runs WHERE retry_at IS NOT NULL
    OR attempts != (status = 'terminated')")" 0
expect_eq "term: no on_failure" "$(lines "$dir/term.hook")|$(sql "SELECT count(*)
    FROM decisions")" "0|0"
expect_eq "term: the TERM-ignoring ones got SIGKILL after 2s" "$(log_count \
    'did not stop within 2s of signal 15: SIGKILL')" 5
ids "$dir/term.started"
expect_runs_match "$dir/term.started.ids" "status = 'terminated'"

# ==== stop: SIGSTOP and SIGCONT, with the watchdog ========================================
phase stop
notify_listen "$dir/notify.sock" "$dir/notify.out"
t0=$(($(now) + 2 + slow))
write_job stop.job <<EOF2
[sec]
schedule = every 1s
misfire_grace = 1s
command = echo "\$TICKD_RUN_ID" >> @DIR@/stop-sec.out

[cu]
schedule = every 1s
misfire = catch_up
catch_up_limit = 2
misfire_grace = 1s
command = echo "\$TICKD_RUN_ID" >> @DIR@/stop-cu.out

[sk]
schedule = every 1s
misfire = skip
misfire_grace = 1s
command = echo "\$TICKD_RUN_ID" >> @DIR@/stop-sk.out

[mid]
schedule = $(at_cron "$t0")
command = for s in HUP INT TERM CONT; do trap "echo \$s >> @DIR@/mid.sig" \$s; done; echo "\$TICKD_RUN_ID" > @DIR@/mid.id; while [ ! -e @DIR@/mid.end ]; do sleep 0.1; done
EOF2
# pings FROM TO: how many WATCHDOG=1 arrived from FROM to TO (Unix ms).
pings() {
	awk -v a="$1" -v b="$2" '$2 == "WATCHDOG=1" && $1 >= a && $1 <= b' \
	    "$dir/notify.out" | wc -l
}
daemon_start NOTIFY_SOCKET="$dir/notify.sock" WATCHDOG_USEC=400000
wait_for "mid to start" 10 test -s "$dir/mid.id"
wait_for "2 runs of sec, cu and sk" 10 eval '[ "$(lines "$dir/stop-sec.out")" -ge 2 ] &&
    [ "$(lines "$dir/stop-cu.out")" -ge 2 ] && [ "$(lines "$dir/stop-sk.out")" -ge 2 ]'
wait_for "3 watchdog pings" 10 eval '[ "$(pings 0 $(now_ms))" -ge 3 ]'
wait_mid_second
t_stop=$(now_ms)
kill -STOP "$tickd_pid"
wait_for "tickd to be stopped" 5 eval 'sed "s/.*) //" /proc/$tickd_pid/stat | grep -q "^T"'
# mid ends while the daemon is stopped.
touch "$dir/mid.end"
wait_until $((t_stop / 1000 + 5))
t_cont=$(now_ms)
kill -CONT "$tickd_pid"
p=$((t_stop / 1000))
wait_for "3 pings after SIGCONT" 10 eval '[ "$(pings $t_cont $(now_ms))" -ge 3 ]'
wait_for "the misfire decisions" 10 eval '[ "$(sql "SELECT count(*) FROM decisions
    WHERE reason IN ('\''catch_up_limit'\'', '\''misfire'\'') OR job = '\''sec'\''")" -ge 3 ]'
wait_for "2 catch-up runs" 10 eval '[ "$(sql "SELECT count(*) FROM runs WHERE job = '\''cu'\''
    AND trigger = '\''catch_up'\'' AND status = '\''succeeded'\''")" -eq 2 ]'
wait_for "a run of each job after the stop" 10 eval '[ "$(sql "SELECT count(DISTINCT job)
    FROM runs WHERE status = '\''succeeded'\'' AND trigger = '\''schedule'\'' AND
    scheduled_at > $t_cont / 1000 + 1")" -eq 3 ]'
wait_for "mid to be recorded" 5 eval '[ "$(sql "SELECT status FROM runs WHERE
    job = '\''mid'\''")" = succeeded ]'
daemon_stop_ok
wait_for "STOPPING=1" 5 grep -q ' STOPPING=1$' "$dir/notify.out"
kill "$listener"
echo "stop: stopped $((t_cont - t_stop)) ms; pings: $(pings 0 "$t_stop") before, $(pings \
    "$t_stop" "$t_cont") during, $(pings "$t_cont" "$(now_ms)") after"
# A ping sent just before the stop may be read late: allow 1 s.
expect_eq "stop: no ping while stopped" "$(pings $((t_stop + 1000)) "$t_cont")" 0
expect_eq "stop: READY=1 once" "$(grep -c ' READY=1$' "$dir/notify.out")" 1
expect_eq "stop: not a clock step nor a suspend" "$(grep -c 'stepped\|suspend' "$log")" 0
# The misfire policy, once per job: one range from the first instance
# after the stop, at least 3 instances long (instances due on time, within
# the 1s grace, may be coalesced into the newest: a second range, after).
expect_eq "stop: one misfire decision per job" "$(sql "SELECT job, decision, reason,
    first_at > $p - 2 AND first_at <= $p + 2,
    count >= CASE job WHEN 'cu' THEN 1 ELSE 3 END, count = last_at - first_at + 1
    FROM decisions WHERE reason != 'coalesced' OR job = 'sec' ORDER BY job" |
    tr '\n' ' ')" \
    "cu|skipped|catch_up_limit|1|1|1 sec|skipped|coalesced|1|1|1 sk|skipped|misfire|1|1|1 "
expect_eq "stop: any other range is on-time instances, after" "$(sql "SELECT count(*)
    FROM decisions d WHERE d.reason = 'coalesced' AND d.job != 'sec' AND (d.count > 1 OR
    d.first_at <= (SELECT last_at FROM decisions e WHERE e.job = d.job AND
    e.reason != 'coalesced'))")" 0
# The 2 catch-up runs: the instances right after the range, late.
expect_eq "cu: the catch-up runs follow the range, late" "$(sql "SELECT count(*),
    min(r.scheduled_at) = (SELECT last_at + 1 FROM decisions WHERE job = 'cu'
    AND reason = 'catch_up_limit'), max(r.scheduled_at) = (SELECT last_at + 2
    FROM decisions WHERE job = 'cu' AND reason = 'catch_up_limit'),
    min(a.lateness_ms) > 1000 FROM runs r JOIN attempts a ON a.run = r.id
    WHERE r.job = 'cu' AND r.trigger = 'catch_up'")" "2|1|1|1"
expect_eq "sec: the newest instance ran, right after the range" "$(sql "SELECT status,
    trigger FROM runs WHERE job = 'sec' AND scheduled_at = (SELECT last_at + 1
    FROM decisions WHERE job = 'sec')")" "succeeded|schedule"
expect_eq "mid: ended while tickd was stopped, recorded" "$(sql "SELECT status, exit_status,
    attempts FROM runs WHERE job = 'mid'") $(cat "$dir/mid.sig" 2>/dev/null)" \
    "succeeded|0|1 "
soft_checks=1
for j in sec cu sk; do
	ids "$dir/stop-$j.out"
	expect_runs_match "$dir/stop-$j.out.ids" "job = '$j'"
	expect_accounted $j "across the stop"
done
soft_checks=0

# ==== pipe: clients and readers that go away ========================================
phase pipe
t0=$(($(now) + 2 + slow))
write_job pipe.job <<EOF2
# Manual runs only (its instants are a year apart).
[pj]
schedule = $(at_cron $((t0 - 10)))
overlap = allow
max_parallel = 1000
command = echo "\$TICKD_RUN_ID" >> @DIR@/pj.out

# Two descendants write after the main process ended and tickd closed the
# pipes: w1 ignores SIGPIPE (EPIPE ends its loop), w2 dies of it.
[wr]
schedule = $(at_cron "$t0")
command = sh -c 'trap "" PIPE; echo \$\$ > @DIR@/w1.pid; sleep 1; i=0; while echo "w1 \$i"; do i=\$((i + 1)); sleep 0.05; done; echo "EPIPE after \$i" > @DIR@/w1.end' & sh -c 'echo \$\$ > @DIR@/w2.pid; sleep 1; while echo w2; do sleep 0.05; done; echo "no SIGPIPE" > @DIR@/w2.end' & echo "\$TICKD_RUN_ID" > @DIR@/wr.id

[tick]
schedule = every 1s
command = echo "\$TICKD_RUN_ID" >> @DIR@/pipe-tick.out
EOF2
# The clients: each kind in turn, each closing without reading.
cat >"$dir/clients.py" <<'EOF2'
import socket, sys
path, n = sys.argv[1], int(sys.argv[2])
kinds = [b"run pj\n", b"ping\n", b"", b"run pj"]
sent = 0
for i in range(n):
    k = kinds[i % len(kinds)]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    if k:
        s.sendall(k)
    s.close()
    sent += k == b"run pj\n"
print(sent)
EOF2
daemon_start
wait_for "wr to run" 10 eval '[ -s "$dir/wr.id" ] && [ -s "$dir/w1.pid" ] && [ -s "$dir/w2.pid" ]'
nrun=$("$python" "$dir/clients.py" "$dir/ctl.sock" "$CLIENTS") || fail "the clients failed"
echo "pipe: $CLIENTS clients gone before the reply, $nrun with \"run pj\""
checks=$((checks + 1))
pid_alive "$tickd_pid" || fail "tickd died of the clients"
ping_ok "ping after the clients"
wait_for "the manual runs" $((30 + CLIENTS / 20)) eval '[ "$(sql "SELECT count(*) FROM runs WHERE job = '\''pj'\''
    AND status NOT IN ('\''queued'\'', '\''running'\'')")" -ge "$nrun" ]'
wait_for "w1 to see EPIPE" 10 test -s "$dir/w1.end"
w2=$(cat "$dir/w2.pid")
wait_for "w2 to die of SIGPIPE" 10 eval '! pid_alive_or_zombie "$w2"'
ping_ok "ping after the writers"
expect_eq "pipe: the manual runs" "$(sql "SELECT origin, status, count(*) FROM runs
    WHERE job = 'pj' GROUP BY 1, 2")" "manual|succeeded|$nrun"
expect_eq "pipe: no run of the unfinished requests" "$(lines "$dir/pj.out")" "$nrun"
ids "$dir/pj.out"
expect_runs_match "$dir/pj.out.ids" "job = 'pj'"
expect_eq "pipe: wr" "$(sql "SELECT status FROM runs WHERE job = 'wr'")" succeeded
expect_match "pipe: w1 ended on EPIPE" "$(cat "$dir/w1.end")" "EPIPE after *"
expect_eq "pipe: w2 died of SIGPIPE" "$(cat "$dir/w2.end" 2>/dev/null)" ""
daemon_stop_ok

# --- the daemon's own stderr reader goes away ----------------------------------------
mkfifo "$dir/err.fifo"
head -n 2 <"$dir/err.fifo" >"$dir/err.head" &
reader=$!
# shellcheck disable=SC2086
"$TICKD" -c "$dir/tickd.conf" --log-target=stderr 2>"$dir/err.fifo" &
tickd_pid=$!
wait "$reader"
t_gone=$(now)
checks=$((checks + 1))
grep -q 'ready:' "$dir/err.head" || fail "no ready line: $(cat "$dir/err.head")"
wait_for "3 runs of tick after the reader went" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''tick'\'' AND status = '\''succeeded'\'' AND scheduled_at > $t_gone")" -ge 3 ]'
ping_ok "ping with stderr gone"
run_cmd ctl run pj
expect_eq "tickctl run with stderr gone" "$rc" 0
wait_for "the manual run" 10 eval '[ "$(sql "SELECT status FROM runs WHERE
    run_id = '\''$out'\''")" = succeeded ]'
daemon_stop 15
expect_eq "exit status with stderr gone" "$daemon_rc" 0
ids "$dir/pipe-tick.out"
expect_runs_match "$dir/pipe-tick.out.ids" "job = 'tick'"
done_ok

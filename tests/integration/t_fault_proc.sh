#!/bin/sh
# Process trouble (issue 7), with real processes and real limits:
#  1. fork fails (EAGAIN): tickd runs as a user of its own, tickd-fp (a
#     passwd entry that only its mount namespace sees, so that
#     RLIMIT_NPROC counts tickd and its jobs and nothing else), with
#     RLIMIT_NPROC = 3.  Two jobs hold the two free slots; six more fall
#     due at the same instant, max_running = 4, so two are forked by the
#     dispatch and four wait and are forked by the pump.  Each attempt
#     that cannot fork is recorded (failed, spawn, the system's error) and
#     retried per its policy, the daemon keeps going, and once the holders
#     end every instance runs, exactly once.
#  2. descriptors run out (EMFILE) and exec fails: tickd (root) started
#     under an RLIMIT_NOFILE that leaves it one run's pipes (four
#     descriptors; six where it forks, under AddressSanitizer: a status
#     pipe too) warns that it holds one run at a time; with that limit set
#     under it once running (prlimit --pid), and
#     RLIMIT_NPROC = 0 (root is exempt; a job run as nobody is not, and
#     Linux refuses its execve while nobody has a process).  The first job
#     gets the last descriptors: its child must still set up stdin
#     from /dev/null; the second cannot get its pipes (recorded, retried,
#     runs later); the third fails to exec, with the stage and the error.
#  3. tickd (root) and misbehaving jobs: a program that is missing or not
#     executable (the shell's 127 or 126 and its message, kept in the
#     output tail); a job that ignores SIGTERM past its timeout (SIGKILL
#     after kill_grace, failed/timeout, nothing left in /proc); a job
#     whose descendants outlive it holding stdout and stderr (the run ends
#     when the shell exits; they are reparented to tickd and reaped, and
#     not signalled, even when tickd stops; what they write afterwards
#     gets EPIPE or SIGPIPE, as tickd(8) says); jobs
#     that close stdout early; output floods (one 10 MiB line, 100 MiB in
#     all): tickd's VmRSS stays small, output_tail is exactly output_keep
#     bytes, the log holds every byte in pieces of at most 4000 bytes.
#  4. bursts: FP_BURST_JOBS jobs (100) due at the same second with
#     max_running = FP_BURST_MAX (25), FP_BURSTS times (3), each burst
#     started by a reload: every instance runs exactly once (the jobs'
#     marker files against the rows), never more than max_running at
#     once, no zombie is left, and tickd's descriptor count is back to its
#     idle baseline after every burst.
#     With FP_BURST_HOLD seconds, each burst job sleeps that long after
#     its marker, so that they overlap; FP_MIN_AT_ONCE, if set, is how
#     many must then have run at once.
# tests/long/t_fault_proc_long.sh runs it with 2000 jobs, max_running 2000,
# each holding 3 s: thousands of children at once.
. tests/integration/lib.sh
setup
[ "$(id -u)" -eq 0 ] || { echo "needs root (users, limits, mounts)"; exit 77; }
command -v setpriv >/dev/null && command -v prlimit >/dev/null &&
    command -v unshare >/dev/null ||
    { echo "setpriv, prlimit or unshare is missing"; exit 77; }
chmod 755 "$dir"
mkdir "$dir/state"
burst_jobs=${FP_BURST_JOBS:-100}
burst_max=${FP_BURST_MAX:-25}
bursts=${FP_BURSTS:-3}
burst_hold=${FP_BURST_HOLD:-0}

# use_state NAME: the daemon of a section keeps its own database.
use_state() {
	db=$dir/state/$1.db
}

# tickd_died WHAT: tickd is gone: report how it ended (soft), forget it.
tickd_died() {
	wait "$tickd_pid"
	_rc=$?
	tickd_pid=
	_how="exit status $_rc"
	[ "$_rc" -gt 128 ] && _how="signal $((_rc - 128)) (SIG$(kill -l $((_rc - 128))))"
	checks=$((checks + 1))
	soft_fail "$1: tickd died, $_how: $(grep -F 'runtime error' "$log" | head -n 1)"
}

# wait_alive DESC SECONDS EXPR: wait_for, but return 1 at once if tickd
# dies meanwhile.
wait_alive() {
	_wa_end=$(($(now) + $2 * slow))
	until eval "$3"; do
		pid_alive "$tickd_pid" || return 1
		[ "$(now)" -le "$_wa_end" ] || fail "timed out waiting for $1"
		sleep 0.05
	done
	checks=$((checks + 1))
}

# attempts RUN_ID: "attempt|outcome|error|pid known" for each attempt.
attempts() {
	sql "SELECT a.attempt, a.outcome, coalesce(a.error, ''),
	    a.pid > 1 FROM attempts a JOIN runs r ON a.run = r.id
	    WHERE r.run_id = '$1' ORDER BY a.attempt"
}

# fds: how many descriptors tickd has open.
fds() {
	ls "/proc/$tickd_pid/fd" | wc -l
}

# free_below N: how many descriptor numbers below N tickd has free (the
# limit RLIMIT_NOFILE sets is on numbers: open ones above it stay open).
free_below() {
	_fb=0 _fi=0
	while [ "$_fi" -lt "$1" ]; do
		[ -e "/proc/$tickd_pid/fd/$_fi" ] || _fb=$((_fb + 1))
		_fi=$((_fi + 1))
	done
	echo "$_fb"
}

# zombies: how many children of tickd are zombies.
zombies() {
	ps -o stat= --ppid "$tickd_pid" | grep -c '^Z'
}

# rss [FIELD]: tickd's resident set size (VmRSS, or VmHWM: its peak) in kB.
rss() {
	awk -v f="${1:-VmRSS}:" '$1 == f { print $2 }' "/proc/$tickd_pid/status"
}

# section N: note that section N starts; say how long the previous took.
sec_n=0 sec_t=$(now)
section() {
	[ "$sec_n" -gt 0 ] && echo "$sec_n: done in $(($(now) - sec_t)) s"
	sec_n=$1 sec_t=$(now)
}

# --- 1. fork fails: RLIMIT_NPROC ----------------------------------------------------------------
section 1
fp_uid=64123
use_state nproc
cp /etc/passwd "$dir/passwd"
echo "tickd-fp:x:$fp_uid:$fp_uid:tickd test:$dir/fp:/bin/sh" >>"$dir/passwd"
mkdir "$dir/fp"
chown "$fp_uid:$fp_uid" "$dir/state" "$dir/fp"
mkfifo "$dir/hold1.fifo" "$dir/hold2.fifo"
chmod 644 "$dir/hold1.fifo" "$dir/hold2.fifo"
# asuser.sh CMD...: CMD as tickd-fp with at most 4 tasks (RLIMIT_NPROC
# counts threads: tickd's loop and its spawner, forced on, and the two
# holders), in
# the mount namespace of unshare -m (private propagation: /etc/passwd
# changes for it alone).
cat >"$dir/asuser.sh" <<EOF2
mount --bind "$dir/passwd" /etc/passwd || exit 1
exec setpriv --reuid=$fp_uid --regid=$fp_uid --clear-groups prlimit --nproc=4 "\$@"
EOF2
probe=$(unshare -m sh "$dir/asuser.sh" id -un 2>&1)
# (What a failed run of this test left may take a moment to go.)
end=$(($(now) + 5))
while [ -n "$(pgrep -u "$fp_uid")" ] && [ "$(now)" -le "$end" ]; do
	sleep 0.1
done
if [ "$probe" != tickd-fp ]; then
	echo "1: skipped: cannot run as a private user ($probe)"
elif [ -n "$(pgrep -u "$fp_uid")" ]; then
	echo "1: skipped: uid $fp_uid has processes: $(pgrep -u "$fp_uid")"
else
	write_conf "control = state/ctl.sock" "state = state/nproc.db" \
	    "max_running = 4"
	t0=$(($(now) + 2 + slow))
	{
		for i in 1 2; do
			printf '[a-hold%s]\nschedule = %s\nworkdir = %s\n' \
			    $i "$(at_cron "$t0")" "$dir/fp"
			printf 'command = read _ < %s/hold%s.fifo\n\n' "$dir" $i
		done
		for i in 1 2 3 4 5 6; do
			printf '[v%s]\nschedule = %s\nworkdir = %s\n' \
			    $i "$(at_cron "$t0")" "$dir/fp"
			printf 'retries = 8\nretry_delay = 1s\nretry_delay_max = 1s\n'
			printf 'command = echo "$TICKD_RUN_ID" >> %s/fp/v.out\n\n' "$dir"
		done
	} | write_job nproc.job
	tickd_wrap="unshare -m sh $dir/asuser.sh"
	cg_delegate "$fp_uid"
	daemon_start TICKD_TEST_SPAWNER=thread
	tickd_wrap=
	expect_eq "1: tickd runs as tickd-fp" "$(stat -c %u "/proc/$tickd_pid")" "$fp_uid"
	# All six at once waiting for a retry after a spawn failure.
	if ! wait_alive "1: every v job to fail twice to fork" 20 '[ "$(sql "SELECT
	    count(*) FROM runs WHERE job LIKE '\''v_'\'' AND attempts >= 2 AND
	    status = '\''retrying'\'' AND reason = '\''spawn'\'' AND
	    retry_at > 0")" -eq 6 ]'; then
		tickd_died "1: the jobs could not fork"
		for p in $(pgrep -u "$fp_uid"); do	# the holders
			kill -KILL "$p"
		done
	else
		# The premise: tickd and the two holders are all the user has.
		expect_eq "1: tickd-fp's processes" "$(pgrep -u "$fp_uid" | wc -l)" 3
		for i in 1 2 3 4 5 6; do
			id=$(sql "SELECT run_id FROM runs WHERE job = 'v$i'")
			expect_eq "1: v$i: attempt 1" "$(attempts "$id" | head -n 1)" \
			    "1|spawn_failed|creating the process: Resource temporarily unavailable|"
			log_has "tickd: error: job v$i: run $id: cannot start: creating the process: Resource temporarily unavailable" ||
			    fail "1: v$i: the spawn failure is not logged"
			log_has "tickd: notice: job v$i: run $id: attempt 2 at " ||
			    fail "1: v$i: the retry is not logged"
		done
		# The holders end: their slots are free again.
		for i in 1 2; do
			timeout 10 sh -c "echo go > '$dir/hold$i.fifo'" ||
			    fail "1: a-hold$i is not reading its fifo"
		done
		if ! wait_alive "1: every instance to succeed" 30 '[ "$(sql "SELECT
		    count(*) FROM runs WHERE status = '\''succeeded'\''")" -eq 8 ]'
		then
			tickd_died "1: after the holders ended"
			for p in $(pgrep -u "$fp_uid"); do
				kill -KILL "$p"
			done
		else
			expect_eq "1: the holders" "$(sql "SELECT group_concat(x, ', ')
			    FROM (SELECT job || ' ' || status || ' ' || exit_status ||
			    ' ' || attempts AS x FROM runs WHERE job LIKE 'a-hold_'
			    ORDER BY job)")" \
			    "a-hold1 succeeded 0 1, a-hold2 succeeded 0 1"
			for i in 1 2 3 4 5 6; do
				id=$(sql "SELECT run_id FROM runs WHERE job = 'v$i'")
				n=$(sql "SELECT attempts FROM runs WHERE run_id = '$id'")
				want=$(for k in $(seq 1 $((n - 1))); do
					echo "$k|spawn_failed|creating the process: Resource temporarily unavailable|"
				done; echo "$n|succeeded||1")
				expect_eq "1: v$i: its attempts" "$(attempts "$id")" "$want"
			done
			expect_eq "1: one instance per job" "$(sql "SELECT count(*),
			    count(DISTINCT job) FROM runs")" "8|8"
			expect_runs_match "$dir/fp/v.out" "job LIKE 'v_'"
			expect_eq "1: each v job ran once" "$(lines "$dir/fp/v.out")" 6
			daemon_stop_ok
		fi
	fi
fi

# --- 2. descriptors run out; exec fails ---------------------------------------------------------
section 2
rm -f "$jobs"/*.job
use_state fd
# Section 1 gave state/ to tickd-fp: tickd, root again, wants its own.
chown 0:0 "$dir/state"
write_conf "state = state/fd.db"
sleeper zz-nobody
# fd_jobs INSTANT: e1 and e2 (root) at INSTANT, e3 (as nobody) 2 s later.
fd_jobs() {
	write_job fd.job <<EOF2
[e1]
schedule = $(at_cron "$1")
retries = 3
retry_delay = 1s
command = echo "\$TICKD_RUN_ID" >> @DIR@/e.out

[e2]
schedule = $(at_cron "$1")
retries = 3
retry_delay = 1s
command = echo "\$TICKD_RUN_ID" >> @DIR@/e.out

[e3]
schedule = $(at_cron $(($1 + 2)))
user = nobody
workdir = /
retries = 1
retry_delay = 1s
command = echo "\$TICKD_RUN_ID" >> @DIR@/e3.out
EOF2
}
# The limit that leaves idle tickd one run's pipes: stdout and stderr,
# and a status pipe where the child is forked (runner.c: ASan builds),
# and with a cgroup its cgroup.procs, which the child joins by.
per_run=4
! grep -qa __asan_init "$TICKD" || per_run=6
[ -z "$cgdir" ] || per_run=$((per_run + 1))
fd_jobs $(($(now) + 100000))
daemon_start
nofile=0
while [ "$(free_below "$nofile")" -lt "$per_run" ]; do
	nofile=$((nofile + 1))
done
daemon_stop_ok
# Started under that limit, tickd knows it holds one run at a time (runs
# beyond it would wait, queued).
tickd_wrap="prlimit --nofile=$nofile"
daemon_start
tickd_wrap=
log_has "tickd: warning: max_running is 256, but tickd's descriptor limit holds the output pipes of 1 runs at once" ||
    fail "2: no warning about the descriptor limit"
daemon_stop_ok
# Nobody has a process: a job's execve as nobody is refused (EAGAIN).
setpriv --reuid=nobody --regid=nogroup --clear-groups "$dir/zz-nobody" 300 &
t0=$(($(now) + 2 + slow))
fd_jobs "$t0"
tickd_wrap="prlimit --nproc=0"
daemon_start
tickd_wrap=
# The limit lowered under the running daemon, which counted its runs'
# descriptors at start: the second start runs out (EMFILE).
prlimit --pid "$tickd_pid" --nofile="$nofile"
expect_eq "2: $per_run descriptors free below the limit ($nofile)" \
    "$(free_below "$nofile")" "$per_run"
if ! wait_alive "2: e1, e2 and e3 to end" 20 '[ "$(sql "SELECT count(*)
    FROM runs WHERE status IN ('\''succeeded'\'', '\''failed'\'',
    '\''dead'\'')")" -eq 3 ]'; then
	tickd_died "2: descriptors ran out"
else
	kill "$(procs zz-nobody)"
	id1=$(sql "SELECT run_id FROM runs WHERE job = 'e1'")
	id2=$(sql "SELECT run_id FROM runs WHERE job = 'e2'")
	id3=$(sql "SELECT run_id FROM runs WHERE job = 'e3'")
	# One of e1 and e2 took the last descriptors (its child set up stdin
	# all the same); the other ran out at its pipes and ran at its retry.
	# Which one is a race: the loop prepares both (their cgroups'
	# descriptors) while the spawner makes the first one's pipes.
	first=$id1 second=$id2 jsecond=e2
	if [ "$(attempts "$id1" | head -n 1)" != "1|succeeded||1" ]; then
		first=$id2 second=$id1 jsecond=e1
	fi
	expect_eq "2: e1 or e2: its attempts" "$(attempts "$first")" \
	    "1|succeeded||1"
	# Read after the pipes' write ends were closed: it needs a descriptor.
	expect_eq "2: its start time, for adoption after a crash" \
	    "$(sql "SELECT a.pid_start > 0 FROM attempts a JOIN runs r ON
	    a.run = r.id WHERE r.run_id = '$first'")" 1
	expect_eq "2: $jsecond: its attempts" "$(attempts "$second")" \
	    "1|spawn_failed|creating the output pipes: Too many open files|
2|succeeded||1"
	log_has "tickd: error: job $jsecond: run $second: cannot start: creating the output pipes: Too many open files" ||
	    fail "2: $jsecond: the spawn failure is not logged"
	expect_runs_match "$dir/e.out" "job IN ('e1', 'e2')"
	expect_eq "2: e1 and e2 ran once each" "$(lines "$dir/e.out")" 2
	expect_eq "2: e3: its attempts" "$(attempts "$id3")" \
	    "1|spawn_failed|executing: Resource temporarily unavailable|1
2|spawn_failed|executing: Resource temporarily unavailable|1"
	expect_eq "2: e3: dead" "$(sql "SELECT status, reason, detail FROM runs
	    WHERE run_id = '$id3'")" "dead|spawn|2 attempts failed; the last: executing: Resource temporarily unavailable"
	log_has "tickd: error: job e3: run $id3: cannot start: executing: Resource temporarily unavailable" ||
	    fail "2: e3: the exec failure is not logged"
	checks=$((checks + 1))
	[ ! -e "$dir/e3.out" ] || fail "2: e3 ran"
	daemon_stop_ok
fi

# --- 3. jobs that misbehave ---------------------------------------------------------------------
section 3
rm -f "$jobs"/*.job
use_state jobs
write_conf "state = state/jobs.db"
for s in zz-ign zz-gc zz-gs zz-gshort zz-late zz-latep zz-co; do
	sleeper $s
done
echo "not a program" >"$dir/plain.txt"
printf '#!/nonexistent/interpreter\necho hi\n' >"$dir/badinterp.sh"
chmod 755 "$dir/badinterp.sh"
yline=$(head -c 1023 /dev/zero | tr '\0' y)
t0=$(($(now) + 2 + slow))
c=$(at_cron "$t0")
write_job jobs.job <<EOF2
[missing]
schedule = $c
command = @DIR@/no-such-program --flag

[notexec]
schedule = $c
command = @DIR@/plain.txt --flag

[isdir]
schedule = $c
command = @DIR@ --flag

[badinterp]
schedule = $c
command = @DIR@/badinterp.sh

# Ignores SIGTERM, and so does its child.
[ign]
schedule = $c
timeout = 1s
kill_grace = 2s
command = trap '' TERM; echo \$\$ > @DIR@/ign.pid; @DIR@/zz-ign 60 & echo \$! > @DIR@/ign.child; wait

# Descendants outlive the shell, holding stdout and stderr: one in the
# run's session, one in a session of its own, one that exits after 2 s,
# and two that write after the run has ended (told to by the test).
[dfork]
schedule = $c
command = (@DIR@/zz-gc 30 &); (setsid @DIR@/zz-gs 30 &); (@DIR@/zz-gshort 2 &); (trap '' PIPE; while [ ! -e @DIR@/late.go ]; do @DIR@/zz-late 0.1; done; echo late-out; echo \$? > @DIR@/late.rc; echo late-err >&2; echo \$? >> @DIR@/late.rc) & (while [ ! -e @DIR@/late.go ]; do @DIR@/zz-latep 0.1; done; echo late-sigpipe; echo alive > @DIR@/latep.alive) & echo \$! > @DIR@/latep.pid; echo main-done; exit 0

[closeout]
schedule = $c
command = exec >&-; @DIR@/zz-co 1; echo x >&2

[closeboth]
schedule = $c
command = exec >&- 2>&-; @DIR@/zz-co 1; echo done > @DIR@/closeboth.done

[flood10]
schedule = $c
output_keep = 1k
command = head -c 10485760 /dev/zero | tr '\0' x; echo

[flood100]
schedule = $c
command = yes "$yline" | head -c 104857600
EOF2
daemon_start
rss0=$(rss) hwm0=$(rss VmHWM)
if ! wait_alive "3: every run to end" 60 '[ "$(sql "SELECT count(*) FROM runs
    WHERE status IN ('\''succeeded'\'', '\''failed'\'')")" -eq 10 ]'; then
	tickd_died "3: misbehaving jobs"
	fail "3: cannot go on"
fi
# VmHWM is the peak of VmRSS: what the floods cost at most.
rss1=$(rss) hwm1=$(rss VmHWM)
echo "3: tickd VmRSS $rss0 kB before the floods, $rss1 kB after; peak (VmHWM) $hwm0 kB before, $hwm1 kB after"
limit=65536
[ "$slow" -gt 1 ] && limit=524288	# ASan's shadow memory and quarantine
checks=$((checks + 1))
[ "$hwm1" -lt "$limit" ] ||
    fail "3: tickd's VmRSS reached $hwm1 kB during the floods (limit $limit kB)"

# row JOB: the run's status|reason|exit_status|signal|attempts.
row() {
	sql "SELECT status, coalesce(reason, ''), coalesce(exit_status, ''),
	    coalesce(signal, ''), attempts FROM runs WHERE job = '$1'"
}
# tail_of JOB: the output tail of the job's attempt (text).
tail_of() {
	sql "SELECT CAST(a.output_tail AS TEXT) FROM attempts a JOIN runs r
	    ON a.run = r.id WHERE r.job = '$1'"
}
# run_of JOB: the job's run id.
run_of() {
	sql "SELECT run_id FROM runs WHERE job = '$1'"
}

# Missing and non-executable programs: the shell's status and message.
expect_eq "3: missing: run" "$(row missing)" "failed|exit|127||1"
expect_eq "3: missing: the message" "$(tail_of missing)" \
    "sh: 1: $dir/no-such-program: not found"
log_has "tickd: warning: $(run_of missing): stderr: sh: 1: $dir/no-such-program: not found" ||
    fail "3: missing: the message is not logged"
expect_eq "3: notexec: run" "$(row notexec)" "failed|exit|126||1"
expect_eq "3: notexec: the message" "$(tail_of notexec)" \
    "sh: 1: $dir/plain.txt: Permission denied"
expect_eq "3: isdir: run" "$(row isdir)" "failed|exit|126||1"
expect_eq "3: isdir: the message" "$(tail_of isdir)" \
    "sh: 1: $dir: Permission denied"
# (The shell names the script, not its missing interpreter.)
expect_eq "3: badinterp: run" "$(row badinterp)" "failed|exit|127||1"
expect_eq "3: badinterp: the message" "$(tail_of badinterp)" \
    "sh: 1: $dir/badinterp.sh: not found"
for j in missing notexec isdir badinterp; do
	expect_eq "3: $j: not a spawn failure" "$(sql "SELECT a.outcome,
	    a.error IS NULL, a.pid > 1 FROM attempts a JOIN runs r ON
	    a.run = r.id WHERE r.job = '$j'")" "failed|1|1"
done

# Ignores SIGTERM: SIGKILL after kill_grace, for it and its child.
id=$(run_of ign)
expect_eq "3: ign: run" "$(row ign)" "failed|timeout||9|1"
expect_eq "3: ign: attempt" "$(sql "SELECT a.outcome, a.duration_ms >= 3000,
    a.pid FROM attempts a JOIN runs r ON a.run = r.id WHERE r.job = 'ign'")" \
    "timed_out|1|$(cat "$dir/ign.pid")"
log_has "tickd: warning: job ign: run $id attempt 1 ran longer than its timeout of 1s: signal 15 to its processes" ||
    fail "3: ign: the timeout is not logged"
log_has "tickd: warning: job ign: run $id did not stop within 2s of signal 15: SIGKILL" ||
    fail "3: ign: the SIGKILL is not logged"
for p in "$(cat "$dir/ign.pid")" "$(cat "$dir/ign.child")"; do
	wait_for "3: ign: process $p to be gone from /proc" 5 eval \
	    "! pid_alive_or_zombie $p"
done
expect_eq "3: ign: nothing left" "$(procs zz-ign)" ""

# Descendants that outlive the shell.
id=$(run_of dfork)
expect_eq "3: dfork: run" "$(row dfork)" "succeeded||0||1"
dur=$(sql "SELECT a.duration_ms FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.job = 'dfork'")
echo "3: dfork: recorded after $dur ms (its descendants: 30 s)"
checks=$((checks + 1))
[ "$dur" -lt 15000 ] || fail "3: dfork: recorded after $dur ms"
dpid=$(sql "SELECT a.pid FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.job = 'dfork'")
gc=$(procs zz-gc) gs=$(procs zz-gs)
checks=$((checks + 1))
[ -n "$gc" ] && [ -n "$gs" ] ||
    fail "3: dfork: its descendants are gone ($gc, $gs): the test proves nothing"
expect_eq "3: dfork: zz-gc: parent, group, session" \
    "$(ps -o ppid=,pgid=,sid= -p "$gc" | awk '{ print $1, $2, $3 }')" \
    "$tickd_pid $dpid $dpid"
expect_eq "3: dfork: zz-gs: parent, own session" \
    "$(ps -o ppid=,sid= -p "$gs" | awk '{ print $1, $2 }')" "$tickd_pid $gs"
expect_eq "3: dfork: its output" "$(grep -F "$id: std" "$log")" \
    "tickd: info: $id: stdout: main-done"
# The late writers write now, to pipes tickd has closed.
latep=$(cat "$dir/latep.pid")
touch "$dir/late.go"
wait_for "3: dfork: the late writer's statuses" 10 eval \
    '[ "$(lines "$dir/late.rc")" -eq 2 ]'
expect_eq "3: dfork: writes after the end fail (EPIPE)" \
    "$(cat "$dir/late.rc" | tr '\n' ' ')" "1 1 "
wait_for "3: dfork: the SIGPIPE writer to end" 10 eval \
    "! pid_alive_or_zombie $latep"
checks=$((checks + 1))
[ ! -e "$dir/latep.alive" ] || fail "3: dfork: a write after the end did not raise SIGPIPE"
expect_eq "3: dfork: nothing logged after the end" \
    "$(grep -cF -e "$id: stdout: late" -e "$id: stderr: late" "$log")" 0
# The short one exits on its own, zz-gc is killed: tickd reaps both.
wait_for "3: dfork: zz-gshort to exit" 10 no_procs zz-gshort
kill -KILL "$gc"
wait_for "3: dfork: zz-gc to be reaped" 5 eval "! pid_alive_or_zombie $gc"
expect_eq "3: no zombie children of tickd" "$(zombies)" 0

# stdout closed early: the run still ends when the shell exits.
expect_eq "3: closeout: run" "$(row closeout)" "succeeded||0||1"
expect_eq "3: closeout: stderr" "$(grep -F "$(run_of closeout): std" "$log")" \
    "tickd: warning: $(run_of closeout): stderr: x"
expect_eq "3: closeout, closeboth: ended at the exit, not at EOF" \
    "$(sql "SELECT group_concat(x, ',') FROM (SELECT r.job || ' ' ||
    (a.duration_ms >= 1000) AS x FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.job LIKE 'close%' ORDER BY r.job)")" "closeboth 1,closeout 1"
expect_eq "3: closeboth: run" "$(row closeboth)" "succeeded||0||1"
expect_eq "3: closeboth: did its work" "$(cat "$dir/closeboth.done")" done

# Floods: recorded, the tail bounded by output_keep, every byte logged.
expect_eq "3: flood10: run" "$(row flood10)" "succeeded||0||1"
expect_eq "3: flood100: run" "$(row flood100)" "succeeded||0||1"
expect_eq "3: flood10: its tail: the last output_keep (1k) bytes" \
    "$(sql "SELECT length(a.output_tail), a.output_tail = CAST(printf('%.1023c',
    'x') || char(10) AS BLOB) FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.job = 'flood10'")" "1024|1"
expect_eq "3: flood100: its tail: the last output_keep (64k) bytes" \
    "$(sql "WITH RECURSIVE l(n, t) AS (SELECT 1, printf('%.1023c', 'y') ||
    char(10) UNION ALL SELECT n + 1, t FROM l WHERE n < 64)
    SELECT length(a.output_tail), a.output_tail = CAST((SELECT group_concat(t,
    '') FROM l) AS BLOB) FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.job = 'flood100'")" "65536|1"
id=$(run_of flood10)
set -- $(grep -F "tickd: info: $id: stdout: " "$log" | awk '
	{ sub(/^tickd: info: [^ ]*: stdout: /, ""); n += length($0)
	  if (length($0) > max) max = length($0) }
	END { print NR, n, max }')
echo "3: flood10: the 10 MiB line is $1 log lines of at most $3 bytes"
expect_eq "3: flood10: every byte logged" "$2" 10485760
checks=$((checks + 1))
[ "$3" -le 4000 ] && [ "$1" -ge 2622 ] ||
    fail "3: flood10: logged as $1 lines of at most $3 bytes"
id=$(run_of flood100)
expect_eq "3: flood100: every line logged whole" \
    "$(grep -cxF "tickd: info: $id: stdout: $yline" "$log")" 102400
expect_eq "3: flood100: nothing else logged" \
    "$(grep -cF "$id: std" "$log")" 102400
daemon_stop_ok
# What a run that ended on its own left behind is not signalled, not even
# when tickd stops.
checks=$((checks + 1))
pid_alive "$gs" || fail "3: dfork: zz-gs did not outlive tickd"
kill -KILL "$gs"

# --- 4. bursts ----------------------------------------------------------------------------------
section 4
rm -f "$jobs"/*.job
use_state burst
write_conf "state = state/burst.db" "max_running = $burst_max"
mkdir "$dir/m"
# burst_at INSTANT: every burst job due at INSTANT (and then a year later).
burst_at() {
	awk -v n="$burst_jobs" -v spec="$(at_cron "$1")" -v d="$dir" \
	    -v hold="$burst_hold" 'BEGIN {
		for (i = 1; i <= n; i++)
			printf "[b%05d]\nschedule = %s\ncommand = echo \"$TICKD_RUN_ID\" >> %s/m/b%05d%s\n\n", \
			    i, spec, d, i, (hold > 0 ? "; exec sleep " hold : "") }' |
	    write_job burst.job
}
burst_at $(($(now) + 100000))
daemon_start
base=$(fds)
echo "4: $burst_jobs jobs, max_running $burst_max: tickd idle: $base descriptors, VmRSS $(rss) kB"
samples=
k=1
while [ "$k" -le "$bursts" ]; do
	tk=$(($(now) + 2 + slow + burst_jobs / 500))
	burst_at "$tk"
	run_cmd ctl reload
	expect_eq "4: burst $k: reload" "$rc $out" "0 reloaded: $burst_jobs jobs"
	checks=$((checks + 1))
	[ "$(now)" -lt "$tk" ] || fail "4: burst $k: the reload ended after the burst's instant"
	if ! wait_alive "4: burst $k to end" $((30 + burst_jobs / 10)) '[ "$(sql "SELECT
	    count(*) FROM runs WHERE scheduled_at = $tk AND status NOT IN
	    ('\''running'\'', '\''queued'\'')")" -eq "$burst_jobs" ]'; then
		tickd_died "4: burst $k"
		break
	fi
	n=$(fds)
	samples="$samples $n"
	set -- $(sql "SELECT count(*), max(a.finished_at) - $tk * 1000,
	    max(a.lateness_ms), max(a.duration_ms) FROM runs r JOIN attempts a
	    ON a.run = r.id WHERE r.scheduled_at = $tk" | tr "|" " ")
	echo "4: burst $k: $1 runs ended $2 ms after their instant (about $(($1 * 1000 / ($2 > 0 ? $2 : 1))) children/s), latest start $3 ms late, longest run $4 ms; $n descriptors, $(zombies) zombies, VmRSS $(rss) kB"
	expect_eq "4: burst $k: every instance succeeded" "$(sql "SELECT status,
	    count(*), sum(attempts) FROM runs WHERE scheduled_at = $tk
	    GROUP BY status")" "succeeded|$burst_jobs|$burst_jobs"
	sql "SELECT a.started_at, a.finished_at FROM runs r JOIN attempts a
	    ON a.run = r.id WHERE r.scheduled_at = $tk" | tr '|' ' ' >"$dir/spans"
	most=$(max_overlap "$dir/spans")
	echo "4: burst $k: at most $most of its processes at once"
	checks=$((checks + 1))
	[ "$most" -le "$burst_max" ] ||
	    fail "4: burst $k: $most processes at once (max_running $burst_max)"
	if [ -n "${FP_MIN_AT_ONCE:-}" ]; then
		checks=$((checks + 1))
		[ "$most" -ge "$FP_MIN_AT_ONCE" ] ||
		    fail "4: burst $k: only $most processes at once, want $FP_MIN_AT_ONCE"
	fi
	expect_eq "4: burst $k: no zombie" "$(zombies)" 0
	expect_eq "4: burst $k: descriptors back to idle" "$n" "$base"
	k=$((k + 1))
done
section 0
echo "4: descriptors after each burst:$samples (idle: $base)"
expect_eq "4: one marker line per run" "$(cat "$dir"/m/* | sort | uniq -d)" ""
expect_eq "4: markers and runs" "$(cat "$dir"/m/* | wc -l)" \
    "$(sql "SELECT count(*) FROM runs WHERE status = 'succeeded'")"
expect_eq "4: every run has its marker" "$(sql "SELECT run_id FROM runs
    WHERE status = 'succeeded'" | sort)" "$(cat "$dir"/m/* | sort)"
if [ -n "$tickd_pid" ]; then
	expect_eq "4: nothing skipped or queued" "$(sql "SELECT count(*) FROM runs
	    WHERE status != 'succeeded'")" 0
	daemon_stop_ok
	# Every burst process has ended: spare the EXIT trap a pgrep for each
	# of the thousands of attempts (kill_groups in lib.sh).
	db=$dir/state/none.db
fi
done_ok

#!/bin/sh
# The spawner (runner.c): a thread that makes the job processes and hands
# each back to the loop, where tickd may use more than two CPUs; on two,
# the loop makes them, through the same requests.  TICKD_TEST_SPAWNER
# decides here: =slow holds each process 200 ms before handing it back,
# so short jobs are reaped before their request is back (kept, then
# matched), and a shutdown finds runs whose process does not exist yet
# (stopped once it does); =thread and =none force either way.  Each
# time every run starts once, ends once and is recorded with its pid, no
# descriptor is left behind, and nothing is left running.
. tests/integration/lib.sh
setup
write_conf "log_level = debug" "max_running = 64"
sleeper zz-sp

# quick_jobs PREFIX N EPOCH: N jobs that record their run id at EPOCH.
quick_jobs() {
	_i=1 _cron=$(at_cron "$3")
	while [ "$_i" -le "$2" ]; do
		printf '[%s%s]\nschedule = %s\ncommand = echo "$TICKD_RUN_ID" >> @DIR@/%s.out\n\n' \
		    "$1" "$_i" "$_cron" "$1"
		_i=$((_i + 1))
	done
}

# burst PART HOOK THREADS N: N jobs at once under TICKD_TEST_SPAWNER=HOOK
# (empty: the default), tickd with THREADS threads; each runs once, with
# its pid, and tickd holds as many descriptors after as before.
burst() {
	rm -f "$jobs"/*.job
	t2=$(($(now) + 3 + slow))
	quick_jobs "b$1x" "$4" "$t2" | write_job "b$1.job"
	if [ -n "$2" ]; then
		daemon_start TICKD_TEST_SPAWNER="$2"
	else
		daemon_start
	fi
	[ "$(now)" -lt "$t2" ] || fail "$1: tickd was ready after the instant"
	nfd=$(ls "/proc/$tickd_pid/fd" | wc -l)
	wait_for "$1: $4 runs to succeed" $((t2 - $(now) + 20)) eval '[ "$(sql "SELECT
	    count(*) FROM runs WHERE job LIKE '\''b'$1'x%'\'' AND
	    status = '\''succeeded'\''")" -eq '$4' ]'
	expect_eq "$1: tickd's threads" \
	    "$(awk '/^Threads:/ { print $2 }' "/proc/$tickd_pid/status")" "$3"
	expect_eq "$1: tickd's descriptors, as before the runs" \
	    "$(ls "/proc/$tickd_pid/fd" | wc -l)" "$nfd"
	daemon_stop_ok
	expect_eq "$1: $4 runs, one attempt each, with their pid" "$(sql "SELECT
	    count(*), sum(r.attempts), count(DISTINCT a.pid) FROM runs r JOIN
	    attempts a ON a.run = r.id WHERE r.job LIKE 'b$1x%' AND a.pid > 0 AND
	    a.exit_status = 0")" "$4|$4|$4"
	expect_runs_match "$dir/b$1x.out" "job LIKE 'b$1x%'"
}

# --- 1. slow: children reaped before their request is back -------------------------------------
burst 1 slow 2 20
expect_eq "1: each logged as started once" "$(grep -c 'job b1x[0-9]*: run .* started, pid [1-9]' "$log")" 20
checks=$((checks + 1))
[ "$(log_count "before its spawn request came back")" -ge 1 ] ||
    check_fail "1: no child was reaped before its request came back"
# Each one kept was matched: none is taken for a stranger.
expect_eq "1: no job's pid taken for a stranger's" "$(log_count "not a job")" 0

# --- 2. slow: a shutdown while runs are spawning ------------------------------------------------
rm -f "$jobs"/*.job
t1=$(($(now) + 3 + slow))
{
	i=1
	while [ "$i" -le 12 ]; do
		printf '[p%s]\nschedule = %s\ncommand = @DIR@/zz-sp 300\n\n' \
		    "$i" "$(at_cron "$t1")"
		i=$((i + 1))
	done
} | write_job p.job
daemon_start TICKD_TEST_SPAWNER=slow
[ "$(now)" -lt "$t1" ] || fail "2: tickd was ready after the instant"
# The spawner holds its requests 200 ms each: at the first start, others
# are still out.
wait_for "2: the first p run to start" $((t1 - $(now) + 10)) eval \
    'grep -q "job p[0-9]*: run .* started" "$log"'
daemon_stop 20
expect_eq "2: tickd exit status" "$daemon_rc" 0
checks=$((checks + 1))
[ "$(log_count "stopped once its process exists")" -ge 1 ] ||
    check_fail "2: no run was still spawning at the stop"
expect_eq "2: every p run made, stopped, recorded" "$(sql "SELECT count(*),
    count(DISTINCT a.pid), min(a.pid) > 0 FROM runs r JOIN attempts a ON
    a.run = r.id WHERE r.job LIKE 'p%' AND r.status = 'terminated' AND
    r.reason = 'shutdown' AND a.signal = 15")" "12|12|1"
expect_eq "2: nothing left running" "$(procs zz-sp)" ""

# --- 3. thread, none and the default, with 40 quick jobs each --------------------------------
burst 3 thread 2 40
burst 4 none 1 40
# By default, a spawner only where tickd may use more than two CPUs.
ncpu=$(nproc)
burst 5 "" $([ "$ncpu" -gt 2 ] && echo 2 || echo 1) 40
[ "$ncpu" -gt 2 ] || log_has "tickd: debug: $ncpu CPUs: job processes are made in the loop" ||
    fail "5: the choice is not logged"
done_ok

#!/bin/sh
# Crash test: a storm of short jobs (every second; some sleep a random
# 0-1.5 s, some fail and retry, some queue or run in parallel; recover =
# rerun on some, abandon on others) while tickd is killed with SIGKILL at
# random moments (0.1-1.5 s after its "ready:" line) and started again at
# once, CRASH_KILLS times (20 here; tests/long/t_crash_long.sh: 200);
# then a clean start and stop.  Every execution appends "JOB RUN_ID
# ATTEMPT TRIGGER" to a file.  Invariants at the end: PRAGMA
# integrity_check ok; no instance twice (job, origin, scheduled_at); no
# run left running or interrupted; per run the executions have distinct
# attempt numbers, an attempt > 1 only by a retry (after a failed attempt)
# or a recover (after an interrupted one); every execution is a run with
# that many attempts; every succeeded run executed; an abandon job never
# executed an instance twice.
. tests/integration/lib.sh
setup
: "${CRASH_KILLS:=20}"

# rnd N: a random number 0..N-1 (N <= 256).
rnd() { echo $(($(od -An -N1 -tu1 /dev/urandom) % $1)); }

rec='echo "$TICKD_JOB $TICKD_RUN_ID $TICKD_ATTEMPT $TICKD_TRIGGER" >> @DIR@/exec.log'
nap='r=$(($(od -An -N1 -tu1 /dev/urandom) * 6)); sleep $((r / 1000)).$(printf %03d $((r % 1000)))'
write_job storm.job <<EOF2
[quick]
schedule = every 1s
command = $rec

[sleepy]
schedule = every 1s
command = $rec; $nap

[aband]
schedule = every 1s
recover = abandon
command = $rec; $nap

# Fails half the time; a retry 1 s later (then 2 s: too late), unless it would
# overlap the next instance.
[retry]
schedule = every 2s
retries = 2
retry_delay = 1s
command = $rec; sleep 0.\$(rnd=\$(od -An -N1 -tu1 /dev/urandom); echo \$((rnd % 5))); [ \$(od -An -N1 -tu1 /dev/urandom) -lt 128 ] || exit 75

[queue]
schedule = every 1s
overlap = queue
command = $rec; $nap

[par]
schedule = every 1s
overlap = allow
max_parallel = 2
recover = abandon
command = $rec; $nap; $nap
EOF2
abandon_jobs="aband par"

# --- the storm ----------------------------------------------------------------------
t_begin=$(now)
kills=0
while [ $kills -lt "$CRASH_KILLS" ]; do
	daemon_start
	# 0.1 to 1.5 s after "ready:".
	r=$(($(rnd 141) + 10))
	sleep "$((r / 100)).$(printf %02d $((r % 100)))"
	daemon_stop 5 KILL
	kills=$((kills + 1))
done
t_storm=$(($(now) - t_begin))

# --- a clean start and stop -----------------------------------------------------------
daemon_start
wait_for "nothing interrupted" 15 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE status = '\''interrupted'\''")" -eq 0 ]'
sleep 2	# let time pass: reruns and retries run
daemon_stop_ok 15
# Orphans nobody adopted (forked, then killed before their pid was
# written) may still sleep; their executions are already in the file.
wait_for "the last job processes to end" 10 eval '[ -z "$(pgrep -f -- "$dir/exec.log")" ]'

# --- invariants -------------------------------------------------------------------------
expect_eq "integrity_check" "$(sql "PRAGMA integrity_check")" ok
expect_eq "no instance twice" "$(sql "SELECT job, origin, scheduled_at, count(*)
    FROM runs GROUP BY job, origin, scheduled_at HAVING count(*) > 1")" ""
expect_eq "no run id twice" "$(sql "SELECT run_id FROM runs GROUP BY run_id
    HAVING count(*) > 1")" ""
expect_eq "every run settled" "$(sql "SELECT status, count(*) FROM runs WHERE status
    IN ('running', 'interrupted', 'pending') GROUP BY status")" ""
expect_eq "every attempt closed" "$(sql "SELECT count(*) FROM attempts
    WHERE outcome IS NULL OR finished_at IS NULL")" 0
expect_eq "attempts numbered 1..n" "$(sql "SELECT count(*) FROM runs r WHERE
    attempts != (SELECT count(*) FROM attempts WHERE run = r.id) OR attempts !=
    (SELECT coalesce(max(attempt), 0) FROM attempts WHERE run = r.id)")" 0
# An attempt after the first: a retry after a failure, a rerun after an
# interruption, nothing else.
expect_eq "attempt > 1: a retry or a recover" "$(sql "SELECT r.run_id, b.attempt,
    b.trigger, a.outcome FROM attempts b JOIN attempts a ON a.run = b.run AND
    a.attempt = b.attempt - 1 JOIN runs r ON r.id = b.run WHERE NOT ((b.trigger =
    'retry' AND a.outcome IN ('failed', 'timed_out')) OR (b.trigger = 'recover'
    AND a.outcome = 'interrupted'))")" ""
expect_eq "attempt 1: the schedule" "$(sql "SELECT count(*) FROM attempts
    WHERE attempt = 1 AND trigger != 'schedule'")" 0

# The executions the jobs recorded.
sort "$dir/exec.log" >"$dir/exec.sorted"
expect_eq "no attempt executed twice" "$(cut -d ' ' -f 2,3 "$dir/exec.sorted" |
    uniq -d)" ""
expect_eq "attempt > 1 only by retry or recover" "$(awk '$3 > 1 && $4 != "retry" &&
    $4 != "recover" || $3 == 1 && $4 != "schedule"' "$dir/exec.sorted")" ""
# Every execution is an attempt of a run, with the same trigger.
sql "SELECT r.job, r.run_id, a.attempt, a.trigger FROM attempts a JOIN runs r
    ON a.run = r.id" | tr '|' ' ' | sort >"$dir/attempts.sorted"
expect_eq "every execution is an attempt in the store" "$(comm -23 \
    "$dir/exec.sorted" "$dir/attempts.sorted")" ""
# Every succeeded run executed its last attempt.
sql "SELECT job, run_id, attempts FROM runs WHERE status = 'succeeded'" |
    tr '|' ' ' | sort >"$dir/succeeded"
expect_eq "every succeeded run executed" "$(cut -d ' ' -f 1-3 "$dir/exec.sorted" |
    comm -13 - "$dir/succeeded")" ""
for j in $abandon_jobs; do
	expect_eq "$j (abandon): no instance executed twice" "$(awk -v j=$j \
	    '$1 == j { print $2 }' "$dir/exec.sorted" | uniq -d)" ""
	expect_eq "$j (abandon): no recover" "$(sql "SELECT count(*) FROM attempts a
	    JOIN runs r ON a.run = r.id WHERE r.job = '$j' AND a.trigger = 'recover'")" 0
done

# --- figures ---------------------------------------------------------------------------
n_runs=$(sql "SELECT count(*) FROM runs WHERE attempts > 0")
n_exec=$(lines "$dir/exec.log")
n_rerun=$(awk '$4 == "recover"' "$dir/exec.log" | wc -l)
n_att_rerun=$(sql "SELECT count(*) FROM attempts WHERE trigger = 'recover'")
echo "$kills kills in $t_storm s; $n_runs runs, $n_exec executions," \
    "$n_rerun reruns (recover; $n_att_rerun attempts)," \
    "$(sql "SELECT count(*) FROM runs WHERE status = 'abandoned'") abandoned," \
    "$(log_count "outlived the previous daemon: adopted") adopted" \
    "($(sql "SELECT count(*) FROM runs WHERE status = 'unknown'") unknown)," \
    "$(sql "SELECT count(*) FROM attempts WHERE trigger = 'retry'") retries," \
    "$(sql "SELECT count(*) FROM runs WHERE status = 'dead'") dead," \
    "$(sql "SELECT count(*) FROM attempts WHERE outcome = 'interrupted'") interrupted attempts"
done_ok

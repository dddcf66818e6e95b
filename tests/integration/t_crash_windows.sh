#!/bin/sh
# Crash windows: SIGKILL aimed at the two moments a random kill
# (t_crash.sh) seldom hits.  TICKD_TEST_STOP (tickd(8), a test hook)
# makes tickd stop itself (SIGSTOP) there; the test sees it stopped
# (state T), checks it is in the window, kills it with SIGKILL and
# starts it again without the hook.
#   claim: the claims of instants of cr (recover = rerun) and ca (recover
#     = abandon) are committed, nothing is forked.  At the restart both
#     are interrupted, no process found: cr runs once, attempt 2 with
#     TICKD_TRIGGER=recover; ca is abandoned and never runs.
#   reap: rr (rerun) and ra (abandon) ran and exited, and the daemon
#     reaped one (the other is its zombie) before it queued the end: the
#     exit statuses are lost with it.  The design promises no guess (no
#     success without an exit status seen): the attempt is interrupted,
#     then recover decides: ra ran once and is abandoned (at most once);
#     rr runs again (at least once: two executions, attempt 2 recover).
# Each time: PRAGMA integrity_check ok, no instance twice, nothing left
# running, no job process left.
. tests/integration/lib.sh
setup

rec='echo "$TICKD_RUN_ID $TICKD_ATTEMPT $TICKD_TRIGGER" >> @DIR@/$TICKD_JOB.out'

# stopped: whether tickd stopped itself (state T in /proc/PID/stat).
stopped() {
	[ "$(sed 's/.*) //' "/proc/$tickd_pid/stat" 2>/dev/null | cut -c 1)" = T ]
}

# jobs2 A B: write the job file: A (recover = rerun) and B (recover
# = abandon), both once at $t0, running $rec and then CMD, if given.
jobs2() {
	write_job w.job <<EOF2
[$1]
schedule = $(at_cron "$t0")
command = $rec${3:+; $3}

[$2]
schedule = $(at_cron "$t0")
recover = abandon
command = $rec${3:+; $3}
EOF2
}

# run_id JOB: the run id of JOB's instance at $t0.
run_id() { echo "$1@$(rfc3339 "$t0")"; }

# invariants WHAT: the store is sound, every instance once, nothing runs.
invariants() {
	expect_eq "$1: integrity_check" "$(sql "PRAGMA integrity_check")" ok
	expect_eq "$1: no instance twice" "$(sql "SELECT job, origin, scheduled_at
	    FROM runs GROUP BY job, origin, scheduled_at HAVING count(*) > 1")" ""
	expect_eq "$1: nothing running or interrupted" "$(sql "SELECT job, status
	    FROM runs WHERE status IN ('running', 'interrupted', 'pending')")" ""
	expect_eq "$1: every attempt closed" "$(sql "SELECT count(*) FROM attempts
	    WHERE outcome IS NULL OR finished_at IS NULL")" 0
	expect_eq "$1: no job process" "$(pgrep -f -- "$dir/.*\\.out")" ""
}

# --- claim: committed, not forked ------------------------------------------------
t0=$(($(now) + 2 + slow))
jobs2 cr ca
daemon_start TICKD_TEST_STOP=claim
log_has "TICKD_TEST_STOP=claim: a test hook" || fail "claim: the hook is not announced"
wait_for "tickd to stop itself (claim)" 10 stopped
expect_eq "claim: both claimed" "$(sql "SELECT r.job, r.status, a.attempt,
    coalesce(a.pid, '-') FROM runs r JOIN attempts a ON a.run = r.id
    ORDER BY r.job")" "ca|running|1|-
cr|running|1|-"
expect_eq "claim: nothing forked" "$(find "$dir" -maxdepth 1 -name "*.out")" ""
daemon_stop 5 KILL

daemon_start
wait_for "cr's rerun" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '\''cr'\''")" = succeeded ]'
log_has "job cr: run $(run_id cr) attempt 1 was interrupted by a daemon stop: rerun (recover = rerun)" ||
    fail "claim: cr's interruption is not logged"
log_has "job ca: run $(run_id ca) attempt 1 was interrupted by a daemon stop: abandoned (recover = abandon)" ||
    fail "claim: ca's interruption is not logged"
checks=$((checks + 2))
daemon_stop_ok
expect_eq "claim: cr ran once, as the rerun" "$(cat "$dir/cr.out")" "$(run_id cr) 2 recover"
expect_eq "claim: cr's attempts" "$(sql "SELECT group_concat(a.attempt || ' ' ||
    a.trigger || ' ' || a.outcome || ' ' || coalesce(a.pid, '-'), ',') FROM attempts a
    JOIN runs r ON a.run = r.id WHERE r.job = 'cr'")" \
    "1 schedule interrupted -,2 recover succeeded $(sql "SELECT a.pid FROM attempts a
    JOIN runs r ON a.run = r.id WHERE r.job = 'cr' AND a.attempt = 2")"
expect_eq "claim: cr succeeded" "$(sql "SELECT status, attempts FROM runs
    WHERE job = 'cr'")" "succeeded|2"
expect_eq "claim: ca never ran" "$(lines "$dir/ca.out")" 0
expect_eq "claim: ca abandoned" "$(sql "SELECT r.status, r.reason, r.attempts,
    a.outcome FROM runs r JOIN attempts a ON a.run = r.id WHERE r.job = 'ca'")" \
    "abandoned|lease_lost|1|interrupted"
invariants claim

# --- reap: exited, reaped, end not queued ------------------------------------------
t0=$(($(now) + 2 + slow))
rm -f "$jobs/w.job"
# Each exits once both have run (10 s at most): the spawner has made both
# processes when tickd reaps the first and stops, the whole of it.
wait2='i=0; until [ -s @DIR@/rr.out ] && [ -s @DIR@/ra.out ] || [ $i -ge 1000 ]; do sleep 0.01; i=$((i + 1)); done'
jobs2 rr ra "$wait2"
daemon_start TICKD_TEST_STOP=reap
wait_for "tickd to stop itself (reap)" 10 stopped
expect_eq "reap: both ran" "$(cat "$dir/rr.out" "$dir/ra.out" 2>&1)" \
    "$(run_id rr) 1 schedule
$(run_id ra) 1 schedule"
expect_eq "reap: no end recorded" "$(sql "SELECT r.job, a.finished_at FROM runs r
    JOIN attempts a ON a.run = r.id WHERE r.job IN ('rr', 'ra') AND
    (a.finished_at IS NOT NULL OR r.status != 'running')")" ""
daemon_stop 5 KILL
# The one not reaped is a zombie until init (or our subreaper) reaps it.
wait_for "the job processes to be gone" 10 eval '[ -z "$(pgrep -f -- "$dir/.*\\.out")" ]'

daemon_start
wait_for "rr's rerun" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '\''rr'\''")" = succeeded ]'
daemon_stop_ok
expect_eq "reap: ra ran once" "$(cat "$dir/ra.out")" "$(run_id ra) 1 schedule"
expect_eq "reap: ra abandoned, its end unknown" "$(sql "SELECT r.status, r.reason,
    r.attempts, a.outcome, a.exit_status IS NULL FROM runs r JOIN attempts a
    ON a.run = r.id WHERE r.job = 'ra'")" "abandoned|lease_lost|1|interrupted|1"
expect_eq "reap: rr ran again (at least once)" "$(cat "$dir/rr.out")" \
    "$(run_id rr) 1 schedule
$(run_id rr) 2 recover"
expect_eq "reap: rr's attempts" "$(sql "SELECT group_concat(a.attempt || ' ' ||
    a.trigger || ' ' || a.outcome, ',') FROM attempts a JOIN runs r
    ON a.run = r.id WHERE r.job = 'rr'")" \
    "1 schedule interrupted,2 recover succeeded"
expect_eq "reap: no guessed success" "$(sql "SELECT count(*) FROM attempts a
    JOIN runs r ON a.run = r.id WHERE r.job IN ('rr', 'ra') AND a.attempt = 1
    AND a.outcome = 'succeeded'")" 0
invariants reap
done_ok

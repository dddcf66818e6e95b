#!/bin/sh
# Claims committed ahead of the instant (tickd(8), "Starting on time"):
# an instant whose jobs have nothing running or waiting is claimed
# SERVER_AHEAD_MS (50 ms) before it, and its processes are forked at it.
# TICKD_TEST_AHEAD_MS=2000 (a test hook) widens that to 2 s, so that the
# test can look inside the window:
#   1. the claim is in the store before the instant, no process yet; the
#      job's own clock says it started at the instant, not before;
#   2. a reload asked for in the window (the job removed) is done after
#      the instant's start: the claimed instance runs, once, then the job
#      is gone;
#   3. a job still running when the window opens is not claimed ahead:
#      its run ends in the window, and at the instant overlap = skip finds
#      nothing running, so the instance runs (decided ahead, it would
#      have been skipped).
. tests/integration/lib.sh
setup

rec='echo "$TICKD_RUN_ID $(date +%s%3N)" >> @DIR@/$TICKD_JOB.out'

# claimed ID: whether run ID is claimed (running) with no process yet.
claimed() {
	[ "$(sql "SELECT r.status || ' ' || coalesce(a.pid, 'none') FROM runs r
	    JOIN attempts a ON a.run = r.id WHERE r.run_id = '$1'")" = \
	    "running none" ]
}

# started_ms JOB: when JOB's process says it started (Unix ms).
started_ms() { cut -d' ' -f2 "$dir/$1.out"; }

# --- 1 and 2: claimed before the instant, a reload waits for the fork ------------
t0=$(($(now) + 4 + slow))
write_job a.job <<EOF2
[a]
schedule = $(at_cron "$t0")
command = $rec

[b]
schedule = $(at_cron "$t0")
command = $rec
EOF2
daemon_start TICKD_TEST_AHEAD_MS=2000
wait_for "a's claim" $((4 + slow)) claimed "a@$(rfc3339 "$t0")"
seen=$(now_ms)
expect_eq "the claim is seen before the instant" \
    "$([ "$seen" -lt $((t0 * 1000)) ] && echo yes)" yes
expect_eq "b is claimed too" "$(claimed "b@$(rfc3339 "$t0")" && echo yes)" yes
# Remove b, reload: handled after the instant's forks.
write_job a.job <<EOF2
[a]
schedule = $(at_cron "$t0")
command = $rec
EOF2
kill -HUP "$tickd_pid"
wait_for "a's run" 10 eval '[ "$(lines "$dir/a.out")" = 1 ]'
wait_for "b's run" 10 eval '[ "$(lines "$dir/b.out")" = 1 ]'
wait_for "the reload" 10 log_has "reload done: 1 jobs"
for j in a b; do
	expect_eq "$j started at the instant, not before" \
	    "$([ "$(started_ms $j)" -ge $((t0 * 1000)) ] && echo yes)" yes
	wait_for "$j's end" 10 eval '[ "$(sql "SELECT status FROM runs
	    WHERE run_id = '"'$j@$(rfc3339 "$t0")'"'")" = succeeded ]'
	expect_eq "$j: lateness recorded, not negative" "$(sql "SELECT
	    a.lateness_ms >= 0 FROM attempts a JOIN runs r ON a.run = r.id
	    WHERE r.run_id = '$j@$(rfc3339 "$t0")'")" 1
done
# The reload found b's process running: it was forked first.  (Not the
# order of the log lines: under AddressSanitizer a fork's "started" line
# waits for the child's exec report, which may come after the reload.)
expect_eq "b forked, then the reload" "$(log_has "job b: removed from the \
configuration; its running process is left to finish" && echo yes)" yes
expect_eq "b is gone after the reload" "$(ctl list 2>/dev/null | grep -c '^b ')" 0

# --- 3: not ahead while the job runs -------------------------------------------------
# c every 4 s, each run 2.5 s: when the 2 s window before its next
# instant opens, the run is still going; it ends 1.5 s before the instant.
write_job c.job <<'EOF2'
[c]
schedule = */4 * * * * *
overlap = skip
command = echo "$TICKD_RUN_ID" >> @DIR@/c.out; sleep 2.5
EOF2
kill -HUP "$tickd_pid"
wait_for "the reload of c" 10 log_has "reload done: 2 jobs"
wait_for "three runs of c" $((16 + 2 * slow)) eval '[ "$(lines "$dir/c.out")" -ge 3 ]'
expect_eq "no instance of c skipped" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'c' AND status = 'skipped'") $(sql "SELECT count(*) FROM
    decisions WHERE job = 'c'")" "0 0"
expect_runs_match "$dir/c.out" "job = 'c'"
daemon_stop_ok
done_ok

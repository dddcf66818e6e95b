#!/bin/sh
# A retry never runs past the job's next instance, whatever delays it
# (issue 16, defect 9c).  server_retry_plan refuses a retry planned past
# the next instance; here the retry is planned in time but then held
# back by max_running (another job takes the only slot) until the next
# instance falls due.  Then the earlier instance is dead (its detail
# says why; on_failure runs; one event "dead"), written in the same
# transaction that decides the new instance, and the new instance is
# decided by its overlap policy (skip) as if nothing waited: it waits
# for the slot (queued, max_running), and runs; the retry never does.
#
# Timeline, T1 the job's first instance: T1 attempt 1 fails (exit 75),
# its retry is planned 2 s later; T1+1 hog takes the slot; T1+2 the
# retry is due but waits; T1+5 the next instance falls due.
. tests/integration/lib.sh
setup

# Start just after a multiple of 5 s: T1 is the next one, 5 s away.
t0=$(( ($(now) / 5 + 1) * 5 ))
wait_until "$t0"
t1=$((t0 + 5))
t2=$((t1 + 5))
write_conf "max_running = 1"
write_job f.job <<'EOF2'
[f]
schedule = every 5s
retries = 2
retry_delay = 2s
retry_on_exit = 75
on_failure = echo "$TICKD_RUN_ID $TICKD_STATUS $TICKD_REASON $TICKD_EXIT_STATUS $TICKD_ATTEMPT" >> @DIR@/f.hook
command = [ -e @DIR@/f.failed ] || { touch @DIR@/f.failed; exit 75; }; echo "$TICKD_RUN_ID" >> @DIR@/f.out
EOF2
write_job hog.job <<EOF2
[hog]
schedule = $(at_cron $((t1 + 1)))
command = while [ ! -e @DIR@/hog.end ]; do sleep 0.05; done
EOF2
daemon_start
[ "$(now)" -lt "$t1" ] || fail "setup too slow: started after $(rfc3339 "$t1")"
id1="f@$(rfc3339 "$t1")" id2="f@$(rfc3339 "$t2")"

wait_for "f's first attempt to fail" 15 eval "[ \"\$(sql \"SELECT status
    FROM runs WHERE run_id = '$id1'\")\" = retrying ]"
wait_for "hog to take the slot" 10 eval "[ \"\$(sql \"SELECT count(*) FROM
    runs WHERE job = 'hog' AND status = 'running'\")\" = 1 ]"
wait_for "f's next instance" 15 eval "[ \"\$(sql \"SELECT count(*) FROM runs
    WHERE run_id = '$id2'\")\" = 1 ]"
expect_eq "the next instance, decided as if nothing waited" "$(sql "SELECT
    status, reason FROM runs WHERE run_id = '$id2'")" "queued|max_running"
expect_eq "the earlier instance: dead, its retry never started" "$(sql "SELECT
    status, reason, attempts, exit_status, retry_at IS NULL FROM runs
    WHERE run_id = '$id1'")" "dead|exit|1|75|1"
expect_eq "the earlier instance's detail" "$(sql "SELECT detail FROM runs
    WHERE run_id = '$id1'")" "its retry (attempt 2) had not started when the next instance at $(rfc3339 "$t2") fell due; the last failure: exit 75"
expect_eq "in the same transaction" "$(sql "SELECT r1.finished_at =
    r2.created_at FROM runs r1, runs r2 WHERE r1.run_id = '$id1' AND
    r2.run_id = '$id2'")" 1
wait_for "on_failure" 10 test -s "$dir/f.hook"
expect_eq "on_failure, once" "$(cat "$dir/f.hook")" "$id1 dead exit 75 1"
expect_eq "logged dead, once" "$(log_count "tickd: error: job f: run $id1 is dead: its retry (attempt 2) had not started")" 1

touch "$dir/hog.end"
wait_for "f's next instance to run" 10 test -s "$dir/f.out"
wait_for "f's next instance to be recorded" 10 eval "[ \"\$(sql \"SELECT
    status FROM runs WHERE run_id = '$id2'\")\" = succeeded ]"
daemon_stop_ok
expect_eq "what ran" "$(head -n 1 "$dir/f.out")" "$id2"
expect_eq "the retry never ran" "$(sql "SELECT count(*) FROM attempts a JOIN
    runs r ON a.run = r.id WHERE r.run_id = '$id1'")" 1
done_ok

#!/bin/sh
# A busy store (another process holds the write lock for 2 s) delays runs
# and writes, never loses or duplicates them: no process starts while a
# claim cannot be committed, the end of a run that finished meanwhile is
# written afterwards with its true times, every instance is a run or a
# decision (here: the instances that fell due during the lock are on time,
# within misfire_grace, and due at once when it ends: the newest runs, the
# older ones are one decision, skipped/coalesced), and the trouble and the
# recovery are logged.  Then a job removed during a second lock, just
# after a manual run of it failed and planned a retry that could not be
# written yet: its instance ends abandoned (removed), not retrying.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }

write_job tick.job <<'EOF2'
[tick]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/tick.out
EOF2
# Starts when told to, and ends when told to: while the store is locked.
write_job slow.job <<'EOF2'
[slow]
schedule = every 1s
command = [ -e @DIR@/slow.go ] && [ ! -e @DIR@/slow.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/slow.id; while [ ! -e @DIR@/slow.end ]; do sleep 0.1; done
EOF2
daemon_start
wait_for "2 runs of tick" 10 eval '[ "$(lines "$dir/tick.out")" -ge 2 ]'
touch "$dir/slow.go"
wait_for "slow to start" 10 test -s "$dir/slow.id"
sid=$(cat "$dir/slow.id")
hold_lock 2 >"$dir/lock.state" &
wait_for "the lock" 10 grep -q '^locked' "$dir/lock.state"
touch "$dir/slow.end"
wait_for "the unlock" 15 grep -q '^unlocked' "$dir/lock.state"
t_lock=$(sed -n 's/^locked //p' "$dir/lock.state")
t_unlock=$(sed -n 's/^unlocked //p' "$dir/lock.state")
wait_for "a tick run after the lock" 10 eval "[ \"\$(sql \"SELECT count(*)
    FROM runs WHERE job = 'tick' AND scheduled_at * 1000 > $t_unlock AND
    status = 'succeeded'\")\" -ge 1 ]"

# A job removed while the store is locked, just after an attempt failed
# and planned a retry that is not written yet: its instance must end up
# abandoned (removed), in that order, not "retrying" for ever.
write_job flaky.job <<'EOF2'
[flaky]
schedule = @yearly
retries = 3
retry_delay = 1h
command = echo "$TICKD_RUN_ID" > @DIR@/flaky.id; while [ ! -e @DIR@/flaky.end ]; do sleep 0.1; done; exit 75
EOF2
kill -HUP "$tickd_pid"
wait_for "flaky to be loaded" 10 log_has "reload done: 3 jobs"
"$TICKCTL" -c "$dir/tickd.conf" run flaky >/dev/null || fail "tickctl run flaky: exit $?"
wait_for "flaky to start" 10 test -s "$dir/flaky.id"
fid=$(cat "$dir/flaky.id")
hold_lock 3 >"$dir/lock2.state" &
wait_for "the second lock" 10 grep -q '^locked' "$dir/lock2.state"
touch "$dir/flaky.end"
wait_for "flaky's failure" 10 log_has "job flaky: run $fid attempt 1 retrying"
rm "$jobs/flaky.job"
kill -HUP "$tickd_pid"
wait_for "flaky's removal" 10 log_has "job flaky: removed from the configuration"
expect_eq "flaky removed while the store was locked" \
    "$(grep -c '^unlocked' "$dir/lock2.state")" 0
wait_for "the second unlock" 15 grep -q '^unlocked' "$dir/lock2.state"
wait_for "flaky's instance settled" 10 eval '[ "$(sql "SELECT status || '"'/'"' ||
    reason FROM runs WHERE run_id = '"'$fid'"'")" = abandoned/removed ]'
daemon_stop_ok

expect_match "trouble logged" "$(grep -F 'runs are delayed' "$log" | head -n 1)" \
    "tickd: warning: store *: database is locked: runs are delayed until it is available"
log_has "tickd: notice: store available again after" ||
    fail "the recovery is not logged"
# Claimed before forked: nothing started while the lock was held (allow
# 300 ms: the store's busy timeout is 250 ms).
expect_eq "no process started during the lock" "$(sql "SELECT count(*) FROM
    attempts WHERE started_at > $t_lock + 300 AND started_at < $t_unlock")" 0
# The run that ended during the lock: recorded afterwards, with its times.
expect_eq "slow: recorded" "$(sql "SELECT status, exit_status,
    finished_at > $t_lock AND finished_at < $t_unlock FROM runs
    WHERE run_id = '$sid'")" "succeeded|0|1"
expect_eq "slow: its attempt" "$(sql "SELECT a.outcome,
    abs(a.duration_ms - (a.finished_at - a.started_at)) <= 2, a.finished_at = r.finished_at
    FROM attempts a JOIN runs r ON a.run = r.id WHERE r.run_id = '$sid'")" \
    "succeeded|1|1"
# The first tick run after the lock's start waited for it, and says so.
first=$(sql "SELECT min(scheduled_at) FROM runs WHERE job = 'tick' AND
    scheduled_at * 1000 > $t_lock")
expect_eq "tick: delayed by the lock" "$(sql "SELECT a.started_at >= $t_unlock,
    a.lateness_ms = a.started_at - r.scheduled_at * 1000 FROM attempts a
    JOIN runs r ON a.run = r.id WHERE r.job = 'tick' AND
    r.scheduled_at = $first")" "1|1"
# The instances due during the lock: on time, due at once: the newest
# runs, the older ones coalesce into it.
expect_eq "tick: one decision" "$(sql "SELECT decision, reason, count = last_at -
    first_at + 1, first_at * 1000 > $t_lock - 1000, last_at + 1 = $first FROM
    decisions WHERE job = 'tick' AND first_at * 1000 < $t_unlock")" \
    "skipped|coalesced|1|1|1"
expect_eq "tick: nothing skipped one by one" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'tick' AND status = 'skipped'")" 0
# Nothing lost, nothing twice.
expect_accounted tick
expect_runs_match "$dir/tick.out" "job = 'tick'"
expect_eq "nothing left running" "$(sql "SELECT count(*) FROM runs
    WHERE status IN ('running', 'pending')")" 0
done_ok

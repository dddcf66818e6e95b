#!/bin/sh
# A reload must not take back a job's state that waits in the write queue.
# An overdue alert given while another process holds the store's write
# lock is queued, not written; a reload in that time used to read the job's
# older stored row again (no alert given yet), so the alert came a second
# time, and the queued write landed after the reload's.  The state in
# memory is the newest: the alert is given once, and stored once the lock
# is gone.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }

# Never due; overdue 2 s after the load, as nothing succeeds.
write_job od.job <<'EOF2'
[od]
schedule = @yearly
expect_success_within = 2s
command = true
EOF2
daemon_start
hold_lock 6 >"$dir/lock.state" &
wait_for "the lock" 10 grep -q '^locked' "$dir/lock.state"
alert="job od: no run has succeeded for 2s"
wait_for "the overdue alert" 10 log_has "$alert"
expect_eq "the alert's state is not stored yet (the lock)" \
    "$(sql "SELECT overdue_alerted IS NULL FROM jobs WHERE job = 'od'")" 1
kill -HUP "$tickd_pid"
wait_for "the reload" 10 log_has "reload done: 1 jobs"
t_reload=$(now)
expect_eq "reloaded while the store was locked" \
    "$(grep -c '^unlocked' "$dir/lock.state")" 0
wait_for "the unlock" 15 grep -q '^unlocked' "$dir/lock.state"
wait_for "the alert's state stored" 10 eval '[ "$(sql "SELECT overdue_alerted
    IS NOT NULL FROM jobs WHERE job = '"'od'"'")" = 1 ]'
# Past the window once more after the reload: a second alert would be due.
wait_until $((t_reload + 3))
expect_eq "one overdue alert, not two" "$(grep -c -F "$alert" "$log")" 1
daemon_stop_ok
expect_eq "one overdue alert after the stop" "$(grep -c -F "$alert" "$log")" 1
done_ok

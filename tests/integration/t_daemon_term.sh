#!/bin/sh
# SIGTERM: running jobs get TERM (their whole process group), are recorded
# as terminated (reason shutdown), and tickd exits 0 once they are gone; a
# job that ignores TERM gets KILL after the grace period (10 s: this part
# costs about 10 s).  Nothing is left behind.  SIGINT stops it too.
. tests/integration/lib.sh
setup

# no_group PGID: whether no process is left in the process group.
no_group() { [ -z "$(pgrep -g "$1")" ]; }

# --- a job that stops on TERM ------------------------------------------------------
write_job trapper.job <<'EOF2'
[trapper]
schedule = every 1s
command = [ ! -e @DIR@/trap.id ] || exit 0; trap 'echo "got TERM" > @DIR@/trap.term; exit 0' TERM; echo "$TICKD_RUN_ID" > @DIR@/trap.id; sleep 30 & wait
EOF2
daemon_start
wait_for "trapper to start" 10 test -s "$dir/trap.id"
id=$(cat "$dir/trap.id")
pgid=$(sql "SELECT a.pid FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.run_id = '$id'")
checks=$((checks + 1))
[ -n "$(pgrep -g "$pgid" -x sleep)" ] || fail "trapper: no sleep in its group"
daemon_stop_ok 5
expect_eq "trapper: got TERM" "$(cat "$dir/trap.term" 2>/dev/null)" "got TERM"
expect_eq "trapper: run" "$(sql "SELECT status, reason, exit_status, signal
    FROM runs WHERE run_id = '$id'")" "terminated|shutdown|0|"
expect_eq "trapper: attempt" "$(sql "SELECT a.outcome, a.finished_at IS NOT NULL
    FROM attempts a JOIN runs r ON a.run = r.id WHERE r.run_id = '$id'")" \
    "terminated|1"
log_has "tickd: notice: stopping on Terminated: 1 job processes to end" ||
    fail "trapper: no stopping line"
log_has "tickd: warning: job trapper: run $id attempt 1 terminated (exit 0) after" ||
    fail "trapper: no terminated line"
expect_eq "nothing left running" "$(sql "SELECT count(*) FROM runs
    WHERE status IN ('running', 'pending')")" 0
wait_for "trapper's group to be gone" 5 no_group "$pgid"

# --- a job that ignores TERM (slow: the 10 s grace) ----------------------------------
rm "$jobs/trapper.job"
write_job ignorer.job <<'EOF2'
[ignorer]
schedule = every 1s
command = [ ! -e @DIR@/ign.id ] || exit 0; trap '' TERM; echo "$TICKD_RUN_ID" > @DIR@/ign.id; sleep 60; echo "not killed" > @DIR@/ign.end
EOF2
daemon_start
wait_for "ignorer to start" 10 test -s "$dir/ign.id"
id=$(cat "$dir/ign.id")
pgid=$(sql "SELECT a.pid FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.run_id = '$id'")
t0=$(now)
daemon_stop 20
took=$(($(now) - t0))
expect_eq "ignorer: tickd exit status" "$daemon_rc" 0
checks=$((checks + 1))
[ "$took" -ge 9 ] || fail "ignorer: tickd exited after $took s, before the grace"
log_has "tickd: warning: job ignorer: run $id did not stop within 10s of signal 15: SIGKILL" ||
    fail "ignorer: no SIGKILL line"
expect_eq "ignorer: run" "$(sql "SELECT status, reason, exit_status, signal
    FROM runs WHERE run_id = '$id'")" "terminated|shutdown||9"
expect_eq "ignorer: stopped" "$(log_count "tickd: notice: stopped")" 2
checks=$((checks + 1))
[ ! -e "$dir/ign.end" ] || fail "ignorer: it was not killed"
wait_for "ignorer's group to be gone" 5 no_group "$pgid"
expect_eq "no orphan of this test" "$(pgrep -f -- "$dir")" ""

# --- SIGINT ------------------------------------------------------------------------
rm "$jobs/ignorer.job"
daemon_start
kill -INT "$tickd_pid"
daemon_stop 5 0
expect_eq "SIGINT: exit status" "$daemon_rc" 0
log_has "tickd: notice: stopping on Interrupt: 0 job processes to end" ||
    fail "SIGINT: no stopping line"
done_ok

#!/bin/sh
# timeout: a run still going after `timeout` gets kill_signal (default
# TERM) on all its processes: its process group, and descendants that
# escaped with setsid (found by the TICKD_RUN_ID in their environment,
# reparented to tickd, the subreaper); then SIGKILL after kill_grace for
# what ignores it.  Nothing is left behind; the run is failed (reason
# timeout), its attempt timed_out, even when it exits 0 on the signal.
# kill_signal = INT is honoured.
. tests/integration/lib.sh
setup
for s in zz-tg-main zz-tg-child zz-tg-esc zz-tg-orphan zz-ti zz-tk zz-tc zz-tcm zz-td; do
	sleeper $s
done

# The daemon first, the jobs by a reload: due 2 s after that, not after a
# start that a loaded host may stretch past their instant (a new job's
# instant that passed before its daemon read it is not run).
daemon_start
t0=$(($(now) + 2 + slow))
tgt=$((3 * slow))	# tg's timeout: long enough to look at its processes
write_job timeout.job <<EOF2
# A group, a child, a setsid child, a setsid grandchild whose parent left.
[tg]
schedule = $(at_cron "$t0")
timeout = ${tgt}s
command = echo "\$TICKD_RUN_ID" > @DIR@/tg.id; @DIR@/zz-tg-child 300 & setsid @DIR@/zz-tg-esc 300 & setsid sh -c '@DIR@/zz-tg-orphan 300 & exit 0' & exec @DIR@/zz-tg-main 300

# kill_signal = INT; the job exits 0 on it.
[ti]
schedule = $(at_cron "$t0")
timeout = 1s
kill_signal = INT
command = trap 'echo INT >> @DIR@/ti.sig; exit 0' INT; trap 'echo TERM >> @DIR@/ti.sig; exit 0' TERM; @DIR@/zz-ti 300

# Ignores TERM: SIGKILL after kill_grace.
[tk]
schedule = $(at_cron "$t0")
timeout = 1s
kill_grace = 2s
command = trap '' TERM; exec @DIR@/zz-tk 300

# The main process exits on TERM, a child ignores it.
[tc]
schedule = $(at_cron "$t0")
timeout = 1s
kill_grace = 1s
command = (trap '' TERM; exec @DIR@/zz-tc 300) & trap 'exit 0' TERM; @DIR@/zz-tcm 300 & wait

# The main process dies on TERM, a child cleans up for 1 s (kill_grace 4s).
[td]
schedule = $(at_cron "$t0")
timeout = 1s
kill_grace = 4s
command = sh @DIR@/td.sh & wait
EOF2
cat >"$dir/td.sh" <<'EOF2'
trap '"${0%/*}/zz-td" 1; echo cleaned > "$0.done"; exit 0' TERM
echo started > "$0.started"
while :; do read _ _ < /proc/uptime; done
EOF2
# tr: kill_signal = 40, a real-time signal (queued, never merged): the
# job counts how many it receives in the 0.5 s after the first.
if [ -n "$python" ]; then
	cat >"$dir/count.py" <<'EOF2'
import signal, sys, time
sig = int(sys.argv[2])
signal.pthread_sigmask(signal.SIG_BLOCK, {sig})
n, end = 0, None
while end is None or time.time() < end:
    if signal.sigtimedwait({sig}, 0.05) is not None:
        n += 1
        end = end or time.time() + 0.5
open(sys.argv[1], "w").write("%d\n" % n)
EOF2
	write_job count.job <<EOF2
[tr]
schedule = $(at_cron "$t0")
timeout = 1s
kill_signal = 40
command = exec $python @DIR@/count.py @DIR@/tr.count 40
EOF2
fi
# 30 jobs due at the same instant, forked first (ties go by name): the
# timed jobs above start at the end of a long loop iteration.
for i in $(seq 10 39); do
	printf '[fill%s]\nschedule = %s\ncommand = true\n\n' "$i" "$(at_cron "$t0")"
done | write_job fill.job
ctl reload >/dev/null || fail "tickctl reload"
wait_for "tg's processes" 10 eval '[ -n "$(procs zz-tg-main)" ] &&
    [ -n "$(procs zz-tg-child)" ] && [ -n "$(procs zz-tg-esc)" ] &&
    [ -n "$(procs zz-tg-orphan)" ]'
tgpid=$(procs zz-tg-main)
# The escaped ones are in other sessions; the orphan's parent is tickd.
for s in zz-tg-esc zz-tg-orphan; do
	p=$(procs $s)
	checks=$((checks + 1))
	[ "$(ps -o sid= -p "$p" | tr -d ' ')" != "$tgpid" ] &&
	    [ "$(ps -o pgid= -p "$p" | tr -d ' ')" != "$tgpid" ] ||
	    fail "$s is in the run's session or group"
done
wait_for "the orphan to be reparented to tickd" 5 eval '[ "$(ps -o ppid= -p \
    "$(procs zz-tg-orphan)" | tr -d " ")" = "$tickd_pid" ]'
wait_for "the runs to end" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE status = '\''running'\''")" -eq 0 ] && [ "$(sql "SELECT count(*)
    FROM runs")" -ge 35 ]'
for s in zz-tg-main zz-tg-child zz-tg-esc zz-tg-orphan zz-ti zz-tk zz-tcm; do
	wait_for "$s to be gone" 3 no_procs $s
done
daemon_stop_ok

# --- tg: everything it started is gone ---------------------------------------------------------
id=$(cat "$dir/tg.id")
expect_eq "tg: timed out" "$(sql "SELECT status, reason, exit_status, signal, attempts
    FROM runs WHERE run_id = '$id'")" "failed|timeout||15|1"
# (Durations measured by the daemon, monotonic: see the soft check below.)
expect_eq "tg: its attempt" "$(sql "SELECT a.outcome, a.pid, a.duration_ms
    BETWEEN $tgt * 1000 AND ($tgt + 1) * 1000 * $slow FROM attempts a JOIN runs r
    ON a.run = r.id WHERE r.run_id = '$id'")" "timed_out|$tgpid|1"
log_has "tickd: warning: job tg: run $id attempt 1 ran longer than its timeout of ${tgt}s: signal 15 to its processes" ||
    fail "tg: the timeout is not logged"
log_has "tickd: warning: job tg: run $id attempt 1 timed out (signal 15, Terminated) after" ||
    fail "tg: the end is not logged"

# --- ti: INT -----------------------------------------------------------------------------------
expect_eq "ti: got INT" "$(sort -u "$dir/ti.sig")" INT
expect_eq "ti: timed out, though it exited 0" "$(sql "SELECT r.status, r.reason,
    r.exit_status, r.signal, a.outcome FROM runs r JOIN attempts a ON a.run = r.id
    WHERE r.job = 'ti'")" "failed|timeout|0||timed_out"
log_has "tickd: warning: job ti: run $(sql "SELECT run_id FROM runs WHERE job = 'ti'") attempt 1 ran longer than its timeout of 1s: signal 2 to its processes" ||
    fail "ti: the signal is not logged"

# --- tk: SIGKILL after kill_grace ---------------------------------------------------------------
tkid=$(sql "SELECT run_id FROM runs WHERE job = 'tk'")
expect_eq "tk: killed" "$(sql "SELECT r.status, r.reason, r.signal, a.outcome,
    a.duration_ms BETWEEN 3000 AND 3000 + 1500 * $slow FROM runs r
    JOIN attempts a
    ON a.run = r.id WHERE r.job = 'tk'")" "failed|timeout|9|timed_out|1"
log_has "tickd: warning: job tk: run $tkid did not stop within 2s of signal 15: SIGKILL" ||
    fail "tk: no SIGKILL line"

# --- tc: the child that ignores TERM does not outlive kill_grace --------------------------
expect_eq "tc: timed out" "$(sql "SELECT status, reason, exit_status FROM runs
    WHERE job = 'tc'")" "failed|timeout|0"
wait_until $(($(sql "SELECT finished_at / 1000 FROM runs WHERE job = 'tc'") + 2))
checks=$((checks + 1))
no_procs zz-tc ||
    fail "tc: the child that ignored TERM is still running ($(procs zz-tc)) 2 s after the run ended (kill_grace = 1s)"

# --- checks that found bugs (soft) -----------------------------------------------------
# A run is not stopped before its timeout: its attempt lasted at least
# `timeout` (from the fork to the signal; the kill itself takes longer).
# The timer is armed relative to the loop's cached time, taken when the
# loop woke up, before the claims' commit and 30 forks.
checks=$((checks + 1))
early=$(sql "SELECT group_concat(r.job || ' after ' || a.duration_ms || ' ms (started ' ||
    (a.started_at - r.scheduled_at * 1000) || ' ms after its instant)', ', ')
    FROM attempts a JOIN runs r ON a.run = r.id WHERE (r.job = 'tg' AND
    a.duration_ms < $tgt * 1000) OR (r.job IN ('ti', 'tc') AND a.duration_ms < 1000)")
[ -z "$early" ] ||
    soft_fail "runs stopped before their timeout (tg ${tgt}s, ti and tc 1s): $early"
# td: the main process died on TERM at once; its child, cleaning up, has
# kill_grace (4s) before SIGKILL, not none.
checks=$((checks + 1))
[ -s "$dir/td.sh.started" ] || fail "td: did not start"
wait_for "td's child to end" 8 no_procs zz-td
wait_until $(($(sql "SELECT finished_at / 1000 FROM runs WHERE job = 'td'") + 2))
checks=$((checks + 1))
[ -s "$dir/td.sh.done" ] ||
    soft_fail "td: its child was SIGKILLed when the main process ended, during its cleanup, inside its 4s kill_grace: $(grep -F 'job td: run' "$log" | grep -F leftover)"
# A timeout fires once: server_timeout_arm sets the timer's repeat (to
# remember the duration for the message), so while tk ignores TERM for
# its 2 s kill_grace its 1 s timeout fires again (TERM again, logged
# again).
n=$(log_count "job tk: run $tkid attempt 1 ran longer than its timeout")
checks=$((checks + 1))
[ "$n" -eq 1 ] ||
    soft_fail "tk: its timeout logged $n times (timeout 1s, kill_grace 2s), want once"
# Each process gets kill_signal once: runner_kill_tree signals the run's
# process group, then every process of that group again (its /proc scan
# matches pgrp == the run's pid).  With a real-time signal both arrive.
if [ -n "$python" ]; then
	expect_eq "tr: timed out" "$(sql "SELECT status, reason, exit_status FROM runs
	    WHERE job = 'tr'")" "failed|timeout|0"
	checks=$((checks + 1))
	[ "$(cat "$dir/tr.count")" = 1 ] ||
	    soft_fail "tr: the job received kill_signal (40) $(cat "$dir/tr.count") times, want once"
fi
done_ok

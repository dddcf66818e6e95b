#!/bin/sh
# Crash recovery: tickd is killed (-KILL) while job processes run.  At the
# next start, before its "ready:" line, every run left 'running' is
# settled: ad's process still lives (same pid, same start time): adopted,
# its timeout still counted from its original start, and when it ends the
# run is unknown (reason adopted), executed once; rr's process was killed
# meanwhile: its attempt is closed (outcome interrupted) and recover =
# rerun starts attempt 2 at once (same run id, TICKD_TRIGGER=recover: two
# executions, attempts 1 and 2); ab (recover = abandon): abandoned, no
# second execution.  A retrying run waits for its retry_at across the
# restart; queued instances (overlap = queue) are picked up again and run
# after the rerun, in order.  ad2 ignores TERM and its timeout passed
# while the daemon was down: one timeout, then SIGKILL after kill_grace.
. tests/integration/lib.sh
setup
for s in zz-ad zz-ad2 zz-rr zz-ab zz-qq; do
	sleeper $s
done

# The daemon first, the jobs by a reload: due 2 s after that, not after a
# start that a loaded host may stretch past their instant (a new job's
# instant that passed before its daemon read it is not run).
daemon_start
t0=$(($(now) + 2 + slow))
rec='echo "$TICKD_RUN_ID $TICKD_ATTEMPT $TICKD_TRIGGER" >> @DIR@/$TICKD_JOB.out'
write_job recover.job <<EOF2
[ad]
schedule = $(at_cron "$t0")
timeout = 6s
command = $rec; exec @DIR@/zz-ad 300

[ad2]
schedule = $(at_cron "$t0")
timeout = 1s
kill_grace = 3s
command = $rec; trap '' TERM; exec @DIR@/zz-ad2 300

[rr]
schedule = $(at_cron "$t0")
command = $rec; [ "\$TICKD_ATTEMPT" -gt 1 ] || exec @DIR@/zz-rr 300

[ab]
schedule = $(at_cron "$t0")
recover = abandon
command = $rec; exec @DIR@/zz-ab 300

[rt]
schedule = $(at_cron "$t0")
retries = 1
retry_delay = 5s
command = $rec; [ "\$TICKD_ATTEMPT" -gt 1 ]

[qq]
schedule = every 1s
overlap = queue
command = $rec; [ ! -e @DIR@/qq.id ] || exit 0; echo "\$TICKD_RUN_ID" > @DIR@/qq.id; exec @DIR@/zz-qq 300
EOF2
ctl reload >/dev/null || fail "tickctl reload"
wait_for "the job processes" 10 eval '[ -n "$(procs zz-ad)" ] && [ -n "$(procs zz-ad2)" ] &&
    [ -n "$(procs zz-rr)" ] && [ -n "$(procs zz-ab)" ] && [ -n "$(procs zz-qq)" ]'
wait_for "rt to be retrying" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '\''rt'\''")" = retrying ]'
wait_for "3 queued instances of qq" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''qq'\'' AND status = '\''queued'\''")" -eq 3 ]'
wait_for "the pids in the store" 10 eval '[ "$(sql "SELECT count(DISTINCT r.job)
    FROM attempts a JOIN runs r ON a.run = r.id WHERE a.pid IS NOT NULL AND
    r.job IN ('\''ad'\'', '\''ad2'\'', '\''rr'\'', '\''ab'\'', '\''qq'\'')")" -eq 5 ]'
id() { sql "SELECT run_id FROM runs WHERE job = '$1' AND attempts > 0 ORDER BY
    scheduled_at LIMIT 1"; }
adid=$(id ad) ad2id=$(id ad2) rrid=$(id rr) abid=$(id ab) rtid=$(id rt) qqid=$(cat "$dir/qq.id")
adpid=$(procs zz-ad)
ad_started=$(attempt_field "$adid" 1 started_at)
rt_retry=$(sql "SELECT retry_at FROM runs WHERE run_id = '$rtid'")
expect_eq "ad: its pid" "$(attempt_field "$adid" 1 pid)" "$adpid"

# --- kill -KILL, and the processes of rr, ab and qq -----------------------------------
daemon_stop 5 KILL
pids="$(procs zz-rr) $(procs zz-ab) $(procs zz-qq)"
kill -KILL $pids
# Dead (a zombie waiting for init is not alive: not adopted).
for p in $pids; do
	wait_for "pid $p to be dead" 10 eval "! pid_alive $p"
done
# ad2's timeout passes while the daemon is down.
wait_until $(($(attempt_field "$ad2id" 1 started_at) / 1000 + 2))
checks=$((checks + 1))
pid_alive "$adpid" || fail "ad's process did not outlive the daemon"

# --- restart: settled before "ready:" -------------------------------------------------
daemon_start
expect_before "ad adopted before ready" \
    "job ad: run $adid attempt 1 outlived the previous daemon: adopted, pid $adpid" 1 "ready:" 2
expect_before "rr interrupted before ready" \
    "tickd: warning: job rr: run $rrid attempt 1 was interrupted by a daemon stop: rerun (recover = rerun)" 1 "ready:" 2
expect_before "ab interrupted before ready" \
    "tickd: warning: job ab: run $abid attempt 1 was interrupted by a daemon stop: abandoned (recover = abandon)" 1 "ready:" 2
expect_before "qq interrupted before ready" \
    "tickd: warning: job qq: run $qqid attempt 1 was interrupted by a daemon stop: rerun (recover = rerun)" 1 "ready:" 2
# The store said so when "ready:" was logged.
expect_eq "ab: abandoned at once" "$(sql "SELECT status, reason, attempts, owner
    FROM runs WHERE run_id = '$abid'")" "abandoned|lease_lost|1|"
expect_eq "rr: attempt 1 closed at once" "$(attempt_field "$rrid" 1 outcome)" interrupted
expect_eq "ad: running, adopted" "$(sql "SELECT status, attempts, owner IS NOT NULL
    FROM runs WHERE run_id = '$adid'")" "running|1|1"
expect_eq "nothing left running from before" "$(sql "SELECT count(*) FROM runs r
    JOIN attempts a ON a.run = r.id AND a.attempt = r.attempts WHERE
    r.status = 'running' AND a.attempt = 1 AND r.job IN ('rr', 'ab', 'qq')
    AND r.scheduled_at <= $t0")" 0

wait_for "rr's rerun" 10 eval "[ \"\$(sql \"SELECT status FROM runs
    WHERE run_id = '$rrid'\")\" = succeeded ]"
wait_for "rt's retry" 15 eval "[ \"\$(sql \"SELECT status FROM runs
    WHERE run_id = '$rtid'\")\" = succeeded ]"
wait_for "ad2's kill" 15 eval "[ \"\$(sql \"SELECT status FROM runs
    WHERE run_id = '$ad2id'\")\" != running ]"
wait_for "ad's timeout" 15 eval "[ \"\$(sql \"SELECT status FROM runs
    WHERE run_id = '$adid'\")\" != running ]"
wait_for "qq's queued instances" 10 eval "[ \"\$(sql \"SELECT count(*) FROM runs
    WHERE job = 'qq' AND status = 'queued'\")\" -eq 0 ]"
daemon_stop_ok

# --- ad: adopted; its timeout counted from its start ----------------------------------
expect_eq "ad: unknown, adopted" "$(sql "SELECT status, reason, attempts, exit_status,
    signal FROM runs WHERE run_id = '$adid'")" "unknown|adopted|1||"
expect_eq "ad: executed once" "$(cat "$dir/ad.out")" "$adid 1 schedule"
checks=$((checks + 1))
log_has "tickd: warning: job ad: run $adid attempt 1 ran longer than its timeout of " ||
    fail "ad: its timeout is not logged"
fin=$(sql "SELECT finished_at FROM runs WHERE run_id = '$adid'")
checks=$((checks + 1))
[ $((fin - ad_started)) -ge 5500 ] && [ $((fin - ad_started)) -le $((7000 * slow)) ] ||
    fail "ad: ended $((fin - ad_started)) ms after its start, want about 6 s (timeout)"
checks=$((checks + 1))
no_procs zz-ad || fail "ad's process is still running"

# --- rr: rerun ------------------------------------------------------------------------------
expect_eq "rr: two executions" "$(cat "$dir/rr.out")" "$rrid 1 schedule
$rrid 2 recover"
expect_eq "rr: attempts" "$(sql "SELECT group_concat(a.attempt || ' ' || a.trigger ||
    ' ' || a.outcome, ',') FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.run_id = '$rrid'")" "1 schedule interrupted,2 recover succeeded"
expect_eq "rr: succeeded" "$(sql "SELECT status, trigger, attempts FROM runs
    WHERE run_id = '$rrid'")" "succeeded|recover|2"

# --- ab: abandoned ---------------------------------------------------------------------------
expect_eq "ab: executed once" "$(cat "$dir/ab.out")" "$abid 1 schedule"
expect_eq "ab: its attempt" "$(attempt_field "$abid" 1 "outcome || ' ' ||
    (a.finished_at IS NOT NULL)")" "interrupted 1"

# --- rt: the retry waited for retry_at ------------------------------------------------------
expect_eq "rt: executions" "$(cat "$dir/rt.out")" "$rtid 1 schedule
$rtid 2 retry"
checks=$((checks + 1))
[ "$(attempt_field "$rtid" 2 started_at)" -ge "$rt_retry" ] ||
    fail "rt: attempt 2 started before its retry_at"

# --- qq: the rerun, then the queued ones, in order -----------------------------------------
qat=$(sql "SELECT scheduled_at FROM runs WHERE run_id = '$qqid'")
expect_eq "qq: the rerun, then the queued instances" "$(head -n 5 "$dir/qq.out")" \
    "$qqid 1 schedule
$qqid 2 recover
$(for i in 1 2 3; do echo "qq@$(rfc3339 $((qat + i))) 1 schedule"; done)"
expect_eq "qq: no run id executed twice but the rerun" "$(cut -d ' ' -f 1 "$dir/qq.out" |
    sort | uniq -d)" "$qqid"
expect_accounted qq

# --- ad2: timed out during the downtime ----------------------------------------------
expect_eq "ad2: unknown, adopted" "$(sql "SELECT status, reason FROM runs
    WHERE run_id = '$ad2id'")" "unknown|adopted"
log_has "tickd: warning: job ad2: run $ad2id did not stop within 3s of signal 15: SIGKILL" ||
    fail "ad2: no SIGKILL line"
checks=$((checks + 1))
no_procs zz-ad2 || fail "ad2's process is still running"

expect_eq "nothing left running or interrupted" "$(sql "SELECT count(*) FROM runs
    WHERE status IN ('running', 'interrupted', 'pending')")" 0

# --- checks that found bugs (soft) -----------------------------------------------------
# A timeout fires once: for an adopted run whose timeout passed during the
# downtime the timer is armed at 1 ms; it must not fire again and again
# (each time a /proc scan and a log line) until the SIGKILL.
n=$(sed -n "$(log_line "ready:" 2),\$p" "$log" |
    grep -cF "job ad2: run $ad2id attempt 1 ran longer than its timeout")
checks=$((checks + 1))
[ "$n" -eq 1 ] ||
    soft_fail "ad2: its timeout logged $n times after the restart (kill_grace 3s), want once"
# The adopted runs' timeouts are their configured ones (6s, 1s), in the
# log and in runs.detail, not the time that was left at the adoption.
checks=$((checks + 1))
log_has "tickd: warning: job ad: run $adid attempt 1 ran longer than its timeout of 6s: signal 15 to its processes" ||
    soft_fail "ad: the timeout logged is not its 6s: $(grep -F "job ad: run $adid attempt 1 ran longer" "$log")"
expect_eq_soft() { soft_checks=1; expect_eq "$@"; soft_checks=0; }
expect_eq_soft "ad: detail" "$(sql "SELECT detail FROM runs WHERE run_id = '$adid'")" \
    "stopped by its timeout of 6s after it was adopted"
expect_eq_soft "ad2: detail" "$(sql "SELECT detail FROM runs WHERE run_id = '$ad2id'")" \
    "stopped by its timeout of 1s after it was adopted"
# ad was one process, which ended on TERM: nothing was left to kill.
checks=$((checks + 1))
! log_has "job ad: run $adid: " ||
    soft_fail "ad: after its single process ended on TERM: $(grep -F "job ad: run $adid: " "$log")"
done_ok

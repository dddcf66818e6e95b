#!/bin/sh
# Failure handling: on_failure runs exactly once per failed instance and
# once per dead one (after its retries), with TICKD_STATUS and the rest of
# the instance's environment, and is recorded as an on_failure decision;
# it is stopped after on_failure_timeout (decision reason timeout) and
# never delays the job's next instances.  expect_success_within = 3s:
# when no run has succeeded for 3 s, one error line and on_failure with
# TICKD_STATUS=overdue, not again until a run succeeds; then again 3 s
# after that success.  A crash loop (exit 1 every second): after 5
# attempts in a row that failed within 1 s of starting, the error
# "throttled for 10s", and the instances due meanwhile are skipped rows
# (reason throttled); then it runs again.
. tests/integration/lib.sh
setup
sleeper zz-fthook
sleeper zz-ovahook
sleeper zz-ovbhook

t_start=$(now)
t0=$((t_start + 2 + slow))
hook='on_failure = env | grep "^TICKD_" | grep -v "^TICKD_INVOCATION_ID=" | sort > @DIR@/hook.$TICKD_JOB.$TICKD_STATUS; echo "$TICKD_STATUS $TICKD_RUN_ID" >> @DIR@/hook.$TICKD_JOB'
write_job failure.job <<EOF2
[ff]
schedule = $(at_cron "$t0")
$hook
command = exit 3

[fd]
schedule = $(at_cron "$t0")
retries = 1
retry_delay = 1s
$hook
command = echo "\$TICKD_ATTEMPT" >> @DIR@/fd.out; exit 4

# The first run fails; its on_failure outlives on_failure_timeout.
[ft]
schedule = every 1s
on_failure = echo "\$TICKD_RUN_ID" >> @DIR@/ft.hook; exec @DIR@/zz-fthook 300
on_failure_timeout = 1s
command = [ ! -e @DIR@/ft.id ] || exit 0; echo "\$TICKD_RUN_ID" > @DIR@/ft.id; exit 1

# Runs once, 8 s after the start: no success before.
[ov]
schedule = $(at_cron $((t_start + 8)))
expect_success_within = 3s
$hook
command = true

[cl]
schedule = every 1s
command = exit 1

# Two jobs overdue at once, both 3 s after the start: ova's on_failure
# outlives its timeout, ovb's takes 2 s and must be left alone.
[ova]
schedule = $(at_cron $((t_start + 3600)))
expect_success_within = 3s
on_failure_timeout = 1s
on_failure = exec @DIR@/zz-ovahook 300
command = true

[ovb]
schedule = $(at_cron $((t_start + 3600)))
expect_success_within = 3s
on_failure = @DIR@/zz-ovbhook 2; echo done >> @DIR@/ovb.done
command = true
EOF2
daemon_start
wait_for "the throttle" 15 log_has "job cl: 5 attempts in a row failed"
# shellcheck disable=SC2034	# used in the eval below
t_thr=$(now_ms)
wait_for "ff's and fd's ends" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job IN ('\''ff'\'', '\''fd'\'') AND status IN ('\''failed'\'',
    '\''dead'\'')")" -eq 2 ]'
wait_for "ft's on_failure to time out" 10 log_has "job ft: on_failure for"
wait_for "ov's success" 15 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '\''ov'\''")" = succeeded ]'
wait_for "the second overdue alert" 10 eval '[ "$(lines "$dir/hook.ov")" -ge 2 ]'
wait_for "a run of cl after the throttle" 15 eval '[ "$(sql "SELECT count(*) FROM
    attempts a JOIN runs r ON a.run = r.id WHERE r.job = '\''cl'\'' AND
    a.started_at > $t_thr")" -ge 1 ]'
daemon_stop_ok

# --- on_failure: once per failed or dead instance ---------------------------------------------
ffid=$(sql "SELECT run_id FROM runs WHERE job = 'ff'")
expect_eq "ff: failed" "$(sql "SELECT status, reason, exit_status FROM runs
    WHERE job = 'ff'")" "failed|exit|3"
expect_eq "ff: one on_failure" "$(cat "$dir/hook.ff")" "failed $ffid"
expect_eq "ff: its environment" "$(cat "$dir/hook.ff.failed")" "TICKD_ATTEMPT=1
TICKD_EXIT_STATUS=3
TICKD_JOB=ff
TICKD_REASON=exit
TICKD_RUN_ID=$ffid
TICKD_SCHEDULED_AT=$(rfc3339 "$t0")
TICKD_SIGNAL=
TICKD_STATUS=failed
TICKD_TRIGGER=on_failure"
fdid=$(sql "SELECT run_id FROM runs WHERE job = 'fd'")
expect_eq "fd: dead after 2 attempts" "$(sql "SELECT status, reason, exit_status,
    attempts FROM runs WHERE job = 'fd'")" "dead|exit|4|2"
expect_eq "fd: executions" "$(cat "$dir/fd.out" | tr '\n' ' ')" "1 2 "
expect_eq "fd: one on_failure, when dead" "$(cat "$dir/hook.fd")" "dead $fdid"
expect_eq "fd: its environment" "$(grep -e STATUS -e ATTEMPT -e REASON \
    "$dir/hook.fd.dead" | tr '\n' ' ')" \
    "TICKD_ATTEMPT=2 TICKD_EXIT_STATUS=4 TICKD_REASON=exit TICKD_STATUS=dead "
for j in ff fd; do
	expect_eq "$j: the on_failure decision" "$(sql "SELECT d.decision, d.reason,
	    d.first_at, d.last_at, d.count, r.job FROM decisions d JOIN runs r ON
	    d.run = r.id WHERE d.job = '$j'")" "on_failure|succeeded|$t0|$t0|1|$j"
	log_has "tickd: info: job $j: on_failure for $(sql "SELECT run_id FROM runs
	    WHERE job = '$j'") ran (exit 0)" || fail "$j: on_failure is not logged"
done

# --- ft: on_failure_timeout; the job's instances are not delayed ------------------------------
ftid=$(cat "$dir/ft.id")
ftat=$(sql "SELECT scheduled_at FROM runs WHERE run_id = '$ftid'")
expect_eq "ft: one on_failure" "$(cat "$dir/ft.hook")" "$ftid"
expect_eq "ft: on_failure timed out" "$(sql "SELECT d.decision, d.reason, r.run_id
    FROM decisions d JOIN runs r ON d.run = r.id WHERE d.job = 'ft'")" \
    "on_failure|timeout|$ftid"
log_has "tickd: warning: job ft: on_failure for $ftid failed (timed out)" ||
    fail "ft: the timeout of on_failure is not logged"
checks=$((checks + 1))
no_procs zz-fthook || fail "ft: on_failure is still running"
expect_eq "ft: the next instances ran on time" "$(sql "SELECT count(*), sum(r.status =
    'succeeded'), max(a.lateness_ms) < 1000 FROM runs r JOIN attempts a ON
    a.run = r.id WHERE r.job = 'ft' AND r.scheduled_at BETWEEN $((ftat + 1))
    AND $((ftat + 2))")" "2|2|1"
expect_eq "ft: nothing skipped" "$(sql "SELECT count(*) FROM runs WHERE job = 'ft'
    AND status = 'skipped'")" 0

# --- ov: expect_success_within -------------------------------------------------------------
ovend=$(sql "SELECT finished_at FROM runs WHERE job = 'ov'")
expect_eq "ov: overdue twice: before and after its success" "$(cat "$dir/hook.ov")" \
    "overdue 
overdue "
# The watch starts when the daemon loads the job (at t_start or a little
# later).
since=$(sed -n 's/.*job ov: no run has succeeded for 3s (none since \(.*\))$/\1/p' "$log")
since_s=$(date -u -d "$since" +%s 2>/dev/null || echo 0)
checks=$((checks + 1))
[ "$since_s" -ge "$t_start" ] && [ "$since_s" -le $((t_start + 2)) ] ||
    fail "ov: the first alert counts from [$since], want the start ($(rfc3339 "$t_start"))"
expect_eq "ov: the alerts" "$(grep -F 'job ov: no run has succeeded' "$log")" \
    "tickd: error: job ov: no run has succeeded for 3s (none since $since)
tickd: error: job ov: no run has succeeded for 3s (last success $(rfc3339 $((ovend / 1000))))"
expect_eq "ov: on_failure's environment" "$(grep -e ^TICKD_STATUS= -e REASON -e JOB= \
    "$dir/hook.ov.overdue" | tr '\n' ' ')" \
    "TICKD_JOB=ov TICKD_REASON=expect_success_within TICKD_STATUS=overdue "
# When: 3 s after the start (a whole second) and 3 s after the success.
ds=$(sql "SELECT group_concat(decided_at, ' ') FROM decisions WHERE job = 'ov'")
set -- $ds
checks=$((checks + 1))
[ $# -eq 2 ] && [ "$1" -ge $(((since_s + 3) * 1000)) ] &&
    [ "$1" -lt $(((since_s + 4) * 1000 + 500 * slow)) ] &&
    [ "$2" -ge $((ovend + 3000)) ] && [ "$2" -lt $((ovend + 3500 * slow)) ] ||
    fail "ov: on_failure decisions at [$ds], want 3 s after $since and after $ovend"

# --- cl: throttled -------------------------------------------------------------------------
expect_eq "cl: the throttle" "$(grep -F 'job cl:' "$log" | grep -F 'throttled for')" \
    "tickd: error: job cl: 5 attempts in a row failed within 1000 ms of starting: throttled for 10s (instances due meanwhile are skipped, retries wait)"
# The 5th failure, the skipped instances, and the run after them.
t5=$(sql "SELECT a.finished_at FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.job = 'cl' ORDER BY r.scheduled_at LIMIT 1 OFFSET 4")
expect_eq "cl: 5 failures before it" "$(sql "SELECT count(*), sum(a.duration_ms < 1000)
    FROM attempts a JOIN runs r ON a.run = r.id WHERE r.job = 'cl' AND
    a.finished_at <= $t5 AND r.status = 'failed'")" "5|5"
nthr=$(sql "SELECT count(*) FROM runs WHERE job = 'cl' AND status = 'skipped'")
checks=$((checks + 1))
[ "$nthr" -ge 9 ] && [ "$nthr" -le 11 ] || fail "cl: $nthr instances throttled, want about 10"
expect_eq "cl: throttled rows" "$(sql "SELECT count(*), min(scheduled_at) * 1000 > $t5,
    max(scheduled_at) * 1000 <= $t5 + 10000, reason, detail FROM runs
    WHERE job = 'cl' AND status = 'skipped' GROUP BY reason, detail")" \
    "$nthr|1|1|throttled|the job fails instantly and is throttled"
expect_eq "cl: the run after them, 10 s later" "$(sql "SELECT a.started_at - $t5 >= 10000,
    a.started_at - $t5 < 12000 FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.job = 'cl' AND a.started_at > $t5 ORDER BY a.started_at LIMIT 1")" "1|1"
expect_eq "cl: no run during the throttle" "$(sql "SELECT count(*) FROM attempts a
    JOIN runs r ON a.run = r.id WHERE r.job = 'cl' AND a.started_at > $t5 AND
    a.started_at < $t5 + 10000")" 0
expect_accounted cl
# Each throttled instance is logged as such, not as an overlap skip (cl
# never had two instances at once) nor as "blocked" by a running one.
expect_eq "cl: each throttled instance logged" "$(grep -cF "job cl: instance " "$log" |
    tr -d ' ')|$(grep -F "job cl: instance " "$log" | grep -cvF "skipped: the job is throttled")" "$nthr|0"
expect_eq "cl: no overlap skip, not blocked" "$(grep -F 'job cl' "$log" |
    grep -c -e 'overlap = ' -e 'is blocked')" 0

# --- checks that found bugs (soft) -----------------------------------------------------
# One hook's timeout stops that hook only.  runner_kill_tree also kills
# every process on the host whose environment holds the same TICKD_RUN_ID,
# and every overdue hook has TICKD_RUN_ID empty: ova's timeout kills
# ovb's hook (as it would kill another daemon's processes of a run with
# the same job name and instant).
expect_eq "ova: on_failure timed out" "$(sql "SELECT decision, reason FROM decisions
    WHERE job = 'ova'")" "on_failure|timeout"
checks=$((checks + 1))
[ "$(sql "SELECT reason FROM decisions WHERE job = 'ovb'")" = succeeded ] &&
    [ -s "$dir/ovb.done" ] ||
    soft_fail "ovb: its on_failure was killed when ova's timed out: $(grep -F 'job ovb: on_failure' "$log")"
done_ok

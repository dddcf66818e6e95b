#!/bin/sh
# Retries: retries = N more attempts of the same instance (same
# TICKD_RUN_ID, TICKD_ATTEMPT rising, TICKD_TRIGGER=retry), attempt k+1
# min(retry_delay_max, retry_delay * 2^(k-1)) after attempt k ended plus
# up to 10 % jitter (measured from the attempts' times; the run waits as
# status retrying with retry_at); retry_on_exit = 75 retries exit 75 only:
# exit 3 and a signal are permanent (failed, detail says why); the default
# "any" retries a signal too; exhausted: dead (error "is dead"); a retry
# that would overlap the job's next instance is not made (dead, detail
# says so).  A timeout and a spawn failure have no exit code: retried
# under "any", permanent under a list of codes (a timed-out job that
# exits 75 on the TERM too).  on_failure runs once per failed or dead
# instance with its TICKD_* environment.
. tests/integration/lib.sh
setup

t0=$(($(now) + 2 + slow))
hook='on_failure = env | grep "^TICKD_" | grep -v "^TICKD_INVOCATION_ID=" | sort > @DIR@/hook.$TICKD_JOB; echo "$TICKD_RUN_ID" >> @DIR@/hook.$TICKD_JOB.count'
rec='echo "$TICKD_RUN_ID $TICKD_ATTEMPT $TICKD_TRIGGER" >> @DIR@/$TICKD_JOB.out'
write_job retry.job <<EOF2
# 75, 75, then 3: permanent.
[ex]
schedule = $(at_cron "$t0")
retries = 3
retry_delay = 1s
retry_on_exit = 75, 76
$hook
command = $rec; [ "\$TICKD_ATTEMPT" -ge 3 ] && exit 3; exit 75

# Always 75: 4 attempts, 1 s, 2 s, 2 s (retry_delay_max) apart, then dead.
[dd]
schedule = $(at_cron "$t0")
retries = 3
retry_delay = 1s
retry_delay_max = 2s
$hook
command = $rec; exit 75

# A signal is not in retry_on_exit: permanent.
[sg]
schedule = $(at_cron "$t0")
retries = 2
retry_delay = 1s
retry_on_exit = 75
$hook
command = $rec; kill -KILL \$\$

# retry_on_exit = any (the default): a signal is retried.
[an]
schedule = $(at_cron "$t0")
retries = 1
retry_delay = 1s
$hook
command = $rec; [ "\$TICKD_ATTEMPT" -gt 1 ] || kill -KILL \$\$

# Every 3 s; the first instance fails: retried once (2 s), then a retry
# (4 s) would overlap the next instance: dead.
[ov]
schedule = every 3s
retries = 2
retry_delay = 2s
$hook
command = $rec; [ ! -e @DIR@/ov.first ] || [ "\$(cat @DIR@/ov.first)" = "\$TICKD_RUN_ID" ] || exit 0; echo "\$TICKD_RUN_ID" > @DIR@/ov.first; exit 1
EOF2
# Timeouts and spawn failures have no exit code: retried under "any",
# permanent under a list of codes, even when the killed job exits with
# one of them.
sleeper tsl
write_job nocode.job <<EOF2
# Times out, then succeeds at its retry.
[ta]
schedule = $(at_cron "$t0")
timeout = 1s
retries = 1
retry_delay = 1s
command = $rec; [ "\$TICKD_ATTEMPT" -gt 1 ] || exec @DIR@/tsl 30

# Times out and answers the TERM with exit 75: still a timeout, permanent.
[t75]
schedule = $(at_cron "$t0")
timeout = 1s
retries = 2
retry_delay = 1s
retry_on_exit = 75
command = $rec; trap 'exit 75' TERM; @DIR@/tsl 30 & wait

# Cannot start (no such working directory): retried under "any" (dead
# after 2 attempts), permanent under 75.
[spa]
schedule = $(at_cron "$t0")
workdir = @DIR@/nope
retries = 1
retry_delay = 1s
command = true

[sp75]
schedule = $(at_cron "$t0")
workdir = @DIR@/nope
retries = 2
retry_delay = 1s
retry_on_exit = 75
command = true
EOF2
daemon_start
wait_for "dd's first attempt" 10 eval '[ "$(lines "$dir/dd.out")" -ge 1 ]'
id=$(sql "SELECT run_id FROM runs WHERE job = 'dd'")
wait_for "dd to be retrying" 10 eval "[ \"\$(sql \"SELECT status FROM runs
    WHERE job = 'dd'\")\" = retrying ]"
expect_eq "dd: retrying, retry_at 1-1.1 s after attempt 1" "$(sql "SELECT r.status,
    r.reason, r.exit_status, r.retry_at - a.finished_at BETWEEN 1000 AND 1100
    FROM runs r JOIN attempts a ON a.run = r.id AND a.attempt = 1
    WHERE r.job = 'dd'")" "retrying|exit|75|1"
wait_for "the dead and failed runs" 15 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job IN ('\''ex'\'', '\''dd'\'', '\''sg'\'', '\''an'\'') AND
    status IN ('\''dead'\'', '\''failed'\'', '\''succeeded'\'')")" -eq 4 ]'
wait_for "the timed out and unstarted runs" 10 eval '[ "$(sql "SELECT count(*)
    FROM runs WHERE job IN ('\''ta'\'', '\''t75'\'', '\''spa'\'', '\''sp75'\'')
    AND status IN ('\''dead'\'', '\''failed'\'', '\''succeeded'\'')")" -eq 4 ]'
wait_for "ov's dead run" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''ov'\'' AND status = '\''dead'\''")" -eq 1 ]'
wait_for "4 hooks" 10 eval '[ "$(cat "$dir"/hook.*.count | wc -l)" -eq 4 ]'
wait_for "ov's next instance" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''ov'\'' AND status = '\''succeeded'\''")" -ge 1 ]'
daemon_stop_ok

# expect_attempts JOB LINES: the attempts the job recorded ("ATTEMPT
# TRIGGER" each) and the attempts rows agree with LINES.
expect_attempts() {
	_id=$(sql "SELECT run_id FROM runs WHERE job = '$1' AND attempts > 0
	    ORDER BY scheduled_at LIMIT 1")
	expect_eq "$1: executions" "$(grep -F "$_id " "$dir/$1.out" |
	    cut -d ' ' -f 2,3 | tr '\n' ',')" "$2"
	expect_eq "$1: attempt rows" "$(sql "SELECT a.attempt || ' ' || a.trigger
	    FROM attempts a JOIN runs r ON a.run = r.id WHERE r.run_id = '$_id'
	    ORDER BY a.attempt" | tr '\n' ',')" "$2"
}

# gaps JOB: for each retry, the wait from the end of the attempt before to
# its start, in ms.
gaps() {
	sql "SELECT b.started_at - a.finished_at FROM attempts a JOIN attempts b
	    ON b.run = a.run AND b.attempt = a.attempt + 1 JOIN runs r ON
	    r.id = a.run WHERE r.job = '$1' ORDER BY a.attempt" | tr '\n' ' '
}

# expect_gap WHAT GOT DELAY_S: GOT (ms) is the delay plus up to 10 %.
expect_gap() {
	checks=$((checks + 1))
	[ "$2" -ge $(($3 * 1000)) ] && [ "$2" -le $(($3 * 1100 + 300 * slow)) ] ||
	    fail "$1: $2 ms, want $3 s + up to 10 %"
}

# --- ex: 75 is retried, 3 is permanent ----------------------------------------------------
expect_attempts ex "1 schedule,2 retry,3 retry,"
expect_eq "ex: failed" "$(sql "SELECT status, reason, exit_status, attempts, detail,
    retry_at FROM runs WHERE job = 'ex'")" \
    "failed|exit|3|3|exit 3 is not in retry_on_exit: permanent|"
# shellcheck disable=SC2046
set -- $(gaps ex)
expect_gap "ex: wait before attempt 2" "$1" 1
expect_gap "ex: wait before attempt 3" "$2" 2
expect_eq "ex: outcomes" "$(sql "SELECT group_concat(a.outcome || ' ' || a.exit_status)
    FROM attempts a JOIN runs r ON a.run = r.id WHERE r.job = 'ex'")" \
    "failed 75,failed 75,failed 3"

# --- dd: exhausted, dead --------------------------------------------------------------------
expect_attempts dd "1 schedule,2 retry,3 retry,4 retry,"
# shellcheck disable=SC2046
set -- $(gaps dd)
expect_gap "dd: wait before attempt 2" "$1" 1
expect_gap "dd: wait before attempt 3" "$2" 2
expect_gap "dd: wait before attempt 4 (retry_delay_max)" "$3" 2
expect_eq "dd: dead" "$(sql "SELECT status, reason, exit_status, attempts, detail,
    retry_at FROM runs WHERE job = 'dd'")" \
    "dead|exit|75|4|4 attempts failed; the last: exit 75|"
log_has "tickd: error: job dd: run $id is dead: 4 attempts failed; the last: exit 75" ||
    fail "dd: no \"is dead\" line"
for k in 2 3 4; do
	log_has "tickd: notice: job dd: run $id: attempt $k at " ||
	    fail "dd: attempt $k was not announced"
done

# --- sg and an: a signal ---------------------------------------------------------------------
expect_attempts sg "1 schedule,"
expect_eq "sg: failed" "$(sql "SELECT status, reason, exit_status, signal, attempts,
    detail FROM runs WHERE job = 'sg'")" \
    "failed|signal||9|1|signal 9, Killed is not in retry_on_exit: permanent"
expect_attempts an "1 schedule,2 retry,"
expect_eq "an: succeeded at its retry" "$(sql "SELECT status, reason, exit_status,
    signal, attempts FROM runs WHERE job = 'an'")" "succeeded||0||2"

# --- ta, t75: a timeout ---------------------------------------------------------------------
expect_attempts ta "1 schedule,2 retry,"
expect_eq "ta: timed out, then succeeded at its retry" "$(sql "SELECT r.status,
    r.attempts, (SELECT group_concat(outcome, ',') FROM (SELECT outcome FROM
    attempts WHERE run = r.id ORDER BY attempt)) FROM runs r
    WHERE r.job = 'ta'")" "succeeded|2|timed_out,succeeded"
expect_attempts t75 "1 schedule,"
expect_eq "t75: failed, the timeout permanent" "$(sql "SELECT r.status, r.reason,
    r.attempts, r.retry_at, a.outcome FROM runs r JOIN attempts a ON
    a.run = r.id WHERE r.job = 't75'")" "failed|timeout|1||timed_out"
# 75 is in its retry_on_exit: the detail must name the timeout, not the
# code the killed job exited with.
expect_match "t75: the detail says why" "$(sql "SELECT detail FROM runs
    WHERE job = 't75'")" "*a timeout is not an exit code in retry_on_exit: permanent"

# --- spa, sp75: a spawn failure -------------------------------------------------------------
expect_eq "spa: dead after 2 attempts that never started" "$(sql "SELECT r.status,
    r.reason, r.attempts, (SELECT group_concat(x, ',') FROM (SELECT attempt ||
    ' ' || trigger || ' ' || outcome AS x FROM attempts WHERE run = r.id
    ORDER BY attempt)) FROM runs r WHERE r.job = 'spa'")" \
    "dead|spawn|2|1 schedule spawn_failed,2 retry spawn_failed"
expect_eq "sp75: failed at once, the spawn failure permanent" "$(sql "SELECT
    r.status, r.reason, r.attempts, r.detail, a.outcome FROM runs r JOIN
    attempts a ON a.run = r.id WHERE r.job = 'sp75'")" \
    "failed|spawn|1|the process could not start (entering the working directory: No such file or directory), which retry_on_exit does not list: permanent|spawn_failed"

# --- ov: a retry never overlaps the next instance ---------------------------------------------
oid=$(cat "$dir/ov.first")
oat=$(sql "SELECT scheduled_at FROM runs WHERE run_id = '$oid'")
expect_attempts ov "1 schedule,2 retry,"
expect_match "ov: dead, the retry would overlap" "$(sql "SELECT status, reason,
    attempts, detail FROM runs WHERE run_id = '$oid'")" \
    "dead|exit|2|a retry at * would overlap the next instance at $(rfc3339 $((oat + 3))); the last failure: exit 1"
expect_eq "ov: the next instance ran on time" "$(sql "SELECT r.status, a.trigger,
    a.lateness_ms < 1000 FROM runs r JOIN attempts a ON a.run = r.id
    WHERE r.job = 'ov' AND r.scheduled_at = $((oat + 3))")" "succeeded|schedule|1"

# --- on_failure: once per failed or dead instance, with its environment -------------------------
for j in ex dd sg ov; do
	expect_eq "$j: one on_failure" "$(cat "$dir/hook.$j.count")" \
	    "$(sql "SELECT run_id FROM runs WHERE job = '$j' AND status IN
	    ('failed', 'dead')")"
	expect_eq "$j: the on_failure decision" "$(sql "SELECT d.decision, d.reason,
	    d.first_at = r.scheduled_at, d.count FROM decisions d JOIN runs r ON
	    d.run = r.id WHERE d.job = '$j'")" "on_failure|succeeded|1|1"
done
checks=$((checks + 1))
[ ! -e "$dir/hook.an.count" ] || fail "an: on_failure ran for a run that succeeded"
env_of() {
	sql "SELECT 'TICKD_ATTEMPT=' || attempts, 'TICKD_EXIT_STATUS=' ||
	    coalesce(exit_status, ''), 'TICKD_JOB=' || job, 'TICKD_REASON=' ||
	    reason, 'TICKD_RUN_ID=' || run_id, 'TICKD_SCHEDULED_AT=' ||
	    strftime('%Y-%m-%dT%H:%M:%SZ', scheduled_at, 'unixepoch'),
	    'TICKD_SIGNAL=' || coalesce(signal, ''), 'TICKD_STATUS=' || status,
	    'TICKD_TRIGGER=on_failure' FROM runs WHERE job = '$1' AND status IN
	    ('failed', 'dead')" | tr '|' '\n'
}
for j in ex dd sg ov; do
	expect_eq "$j: on_failure's environment" "$(cat "$dir/hook.$j")" "$(env_of $j)"
done
expect_eq "dd: on_failure's environment (literally)" "$(grep -e STATUS= \
    -e ATTEMPT= -e SIGNAL= "$dir/hook.dd" | tr '\n' ' ')" \
    "TICKD_ATTEMPT=4 TICKD_EXIT_STATUS=75 TICKD_SIGNAL= TICKD_STATUS=dead "
expect_eq "nothing left waiting" "$(sql "SELECT count(*) FROM runs
    WHERE status IN ('running', 'retrying', 'queued', 'pending')")" 0
done_ok

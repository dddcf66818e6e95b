#!/bin/sh
# Batches (issue 18): replay.  rp is a 4-shard batch whose shard 2 fails
# (exit 1, no retries) until a marker file says the job is fixed: the
# instance fails ("1 of 4 shards" in its detail, reason shards),
# on_failure runs once with TICKD_FAILED_SHARDS=2 and TICKD_SHARD_COUNT=4;
# fixed, "tickctl replay RUN_ID --wait" reruns shard 2 only (attempt 2,
# trigger replay) and the instance becomes succeeded.  rq is a 3-shard
# batch whose shards 0 and 2 fail: "tickctl replay RUN_ID --shard 0"
# reruns shard 0 only; the instance ends failed again, shard 2 untouched.
. tests/integration/lib.sh
setup

daemon_start
t0=$(($(now) + 2 + slow))
hook='on_failure = echo "$TICKD_RUN_ID|$TICKD_FAILED_SHARDS|$TICKD_SHARD_COUNT" >> @DIR@/$TICKD_JOB.hook'
write_job batch.job <<EOF2
[rp]
schedule = $(at_cron "$t0")
shards = 4
$hook
command = echo "start \$TICKD_SHARD_INDEX \$TICKD_ATTEMPT \$TICKD_TRIGGER" >> @DIR@/rp.out; [ "\$TICKD_SHARD_INDEX" != 2 ] || [ -e @DIR@/rp.fixed ]

[rq]
schedule = $(at_cron "$t0")
shards = 3
$hook
command = echo "start \$TICKD_SHARD_INDEX \$TICKD_ATTEMPT \$TICKD_TRIGGER" >> @DIR@/rq.out; [ "\$TICKD_SHARD_INDEX" = 1 ] || [ -e @DIR@/rq.fixed ]
EOF2
ctl reload >/dev/null || fail "tickctl reload"

wait_for "rp's instance to end" 20 batch_ended rp
wait_for "rq's instance to end" 20 batch_ended rq
rp=$(sql "SELECT run_id FROM runs WHERE job = 'rp' AND parent IS NULL")
rq=$(sql "SELECT run_id FROM runs WHERE job = 'rq' AND parent IS NULL")

# --- rp failed: 1 of 4 shards -----------------------------------------------------------
expect_eq "rp: failed, reason shards" "$(sql "SELECT status, reason FROM runs
    WHERE run_id = '$rp'")" "failed|shards"
expect_match "rp: its detail" "$(sql "SELECT detail FROM runs WHERE run_id = '$rp'")" \
    "*1 of 4 shards*"
wait_for "rp's on_failure" 10 test -s "$dir/rp.hook"
expect_eq "rp: the shards' statuses" "$(sql "SELECT r.shard, r.status FROM runs r
    JOIN runs i ON r.parent = i.id WHERE i.run_id = '$rp' ORDER BY r.shard")" \
    "0|succeeded
1|succeeded
2|failed
3|succeeded"

# --- fixed: replay --wait reruns shard 2 only ----------------------------------------------
: >"$dir/rp.fixed"
run_cmd ctl replay "$rp" --wait
expect_eq "replay $rp --wait: exit status (err: $err)" "$rc" 0
expect_eq "rp: succeeded at once after replay --wait" "$(batch_status rp)" succeeded
expect_eq "rp: the starts" "$(sort "$dir/rp.out")" "start 0 1 schedule
start 1 1 schedule
start 2 1 schedule
start 2 2 replay
start 3 1 schedule"
expect_eq "rp: the shards" "$(sql "SELECT r.shard, r.status, r.attempts FROM runs r
    JOIN runs i ON r.parent = i.id WHERE i.run_id = '$rp' ORDER BY r.shard")" \
    "0|succeeded|1
1|succeeded|1
2|succeeded|2
3|succeeded|1"
expect_eq "rp: shard 2's attempts" "$(sql "SELECT a.attempt, a.trigger, a.exit_status
    FROM attempts a JOIN runs r ON a.run = r.id WHERE r.run_id = '$rp#2'
    ORDER BY a.attempt")" "1|schedule|1
2|replay|0"
expect_eq "rp: one instance" "$(sql "SELECT count(*) FROM runs WHERE job = 'rp'
    AND parent IS NULL")" 1
# on_failure ran once, for the failure only.
expect_eq "rp: on_failure once, shard 2 in it" "$(cat "$dir/rp.hook")" "$rp|2|4"

# --- rq: replay --shard 0 --------------------------------------------------------------------
expect_eq "rq: failed, 2 of 3" "$(sql "SELECT status, reason FROM runs
    WHERE run_id = '$rq'")" "failed|shards"
expect_match "rq: its detail" "$(sql "SELECT detail FROM runs WHERE run_id = '$rq'")" \
    "*2 of 3 shards*"
wait_for "rq's on_failure" 10 test -s "$dir/rq.hook"
expect_eq "rq: on_failure, shards 0 and 2" "$(cat "$dir/rq.hook")" "$rq|0 2|3"
: >"$dir/rq.fixed"
run_cmd ctl replay "$rq" --shard 0 --wait
if [ "$rc" -ne 0 ]; then
	# The daemon's side, at least: the request --shard sends.
	soft_fail "replay $rq --shard 0 --wait: exit $rc ($err)"
	run_cmd ctl replay "$rq#0" --wait
	expect_eq "replay $rq#0 --wait: exit status (err: $err)" "$rc" 0
fi
wait_for "rq's instance to end again" 20 batch_ended rq
expect_eq "rq: the starts (shard 0 only again)" "$(sort "$dir/rq.out")" "start 0 1 schedule
start 0 2 replay
start 1 1 schedule
start 2 1 schedule"
expect_eq "rq: the shards" "$(sql "SELECT r.shard, r.status, r.attempts FROM runs r
    JOIN runs i ON r.parent = i.id WHERE i.run_id = '$rq' ORDER BY r.shard")" \
    "0|succeeded|2
1|succeeded|1
2|failed|1"
expect_eq "rq: failed again" "$(batch_status rq)" failed
expect_match "rq: its detail now" "$(sql "SELECT detail FROM runs WHERE run_id = '$rq'")" \
    "*1 of 3 shards*"
# A shard that succeeded is not replayed.
run_cmd ctl replay "$rq#1"
checks=$((checks + 1))
[ "$rc" -ne 0 ] || fail "replay of a succeeded shard ($rq#1) was accepted"
daemon_stop_ok
expect_eq "rq: shard 1 never ran again" "$(grep -c '^start 1 ' "$dir/rq.out")" 1
done_ok

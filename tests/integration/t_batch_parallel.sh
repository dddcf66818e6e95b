#!/bin/sh
# Batches (issue 18): how many shards run at once.
# 1. par: 12 shards, shard_parallel = 3, each ~0.5 s: the shards' own
#    records (start and end, ns) never overlap more than 3, and do reach
#    3 (so the check fails both ways); every shard ran once.
# 2. max_running = 4 (the daemon's) bounds shard processes across jobs:
#    m1 and m2, 6 shards each, no shard_parallel: at most 4 at once, and
#    4 at some moment; all 12 ran.
# 3. bt: batch_timeout = 2s, 3 shards sleeping 30 s, shard_parallel = 2:
#    the instance fails with reason batch_timeout well before the sleeps
#    end, the two running shards' processes are gone (the pids they
#    recorded; the shards failed, as by a timeout) and the third never
#    started (abandoned).
. tests/integration/lib.sh
setup
write_conf "max_running = 4"
sleeper zz-bt

daemon_start
t0=$(($(now) + 2 + slow))
rec='s=$(date +%s%N); sleep 0.5; echo "$TICKD_JOB $TICKD_SHARD_INDEX $s $(date +%s%N)" >>'
write_job batch.job <<EOF2
[par]
schedule = $(at_cron "$t0")
shards = 12
shard_parallel = 3
command = $rec @DIR@/par.out

[bt]
schedule = $(at_cron "$t0")
shards = 3
shard_parallel = 2
batch_timeout = 2s
kill_grace = 1s
command = echo "\$TICKD_SHARD_INDEX \$\$" >> @DIR@/bt.pids; exec @DIR@/zz-bt 30
EOF2
ctl reload >/dev/null || fail "tickctl reload"

wait_for "bt's instance to end" 15 batch_ended bt
bt_end=$(now)
wait_for "par's instance to end" 30 batch_ended par

# --- 1. shard_parallel ---------------------------------------------------------------
expect_eq "par: succeeded" "$(batch_status par)" succeeded
expect_eq "par: each shard once" "$(awk '{print $2}' "$dir/par.out" | sort -n | tr '\n' ' ')" \
    "$(seq 0 11 | tr '\n' ' ')"
expect_eq "par: at most 3 at once, and 3" "$(max_overlap "$dir/par.out")" 3

# --- 3. batch_timeout ------------------------------------------------------------------
bid=$(sql "SELECT id FROM runs WHERE job = 'bt' AND parent IS NULL")
expect_eq "bt: failed, reason batch_timeout" "$(sql "SELECT status, reason FROM runs
    WHERE id = $bid")" "failed|batch_timeout"
checks=$((checks + 1))
[ $((bt_end - t0)) -le $((10 * slow)) ] ||
    fail "bt: ended $((bt_end - t0)) s after its start, want about 2"
expect_eq "bt: two shards started" "$(awk '{print $1}' "$dir/bt.pids" | sort | tr '\n' ' ')" \
    "0 1 "
for p in $(awk '{print $2}' "$dir/bt.pids"); do
	wait_for "bt: pid $p to be gone" 5 eval "! pid_alive $p"
done
checks=$((checks + 1))
no_procs zz-bt || fail "bt: its sleeps still run: $(procs zz-bt)"
expect_eq "bt: the shards" "$(sql "SELECT shard, status, attempts FROM runs
    WHERE parent = $bid ORDER BY shard")" "0|failed|1
1|failed|1
2|abandoned|0"

# --- 2. max_running across jobs ----------------------------------------------------------
t1=$(($(now) + 2 + slow))
write_job mr.job <<EOF2
[m1]
schedule = $(at_cron "$t1")
shards = 6
command = $rec @DIR@/mr.out

[m2]
schedule = $(at_cron "$t1")
shards = 6
command = $rec @DIR@/mr.out
EOF2
ctl reload >/dev/null || fail "tickctl reload"
wait_for "m1's instance to end" 30 batch_ended m1
wait_for "m2's instance to end" 30 batch_ended m2
expect_eq "m1, m2: succeeded" "$(batch_status m1) $(batch_status m2)" "succeeded succeeded"
expect_eq "m1, m2: 12 shards ran" "$(lines "$dir/mr.out")" 12
expect_eq "m1, m2: at most 4 at once (max_running), and 4" "$(max_overlap "$dir/mr.out")" 4
daemon_stop_ok
done_ok

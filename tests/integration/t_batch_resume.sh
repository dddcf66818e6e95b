#!/bin/sh
# Batches (issue 18): resume, never redo.  rs is a 4-shard batch whose
# shards count 1..10 (shards 0 and 1 fast, 2 and 3 slowly), writing their
# cursor to $TICKD_CHECKPOINT at each step and starting from it when it
# exists ("shard I resumed at C" in the job's own log).  tickd is killed
# (-KILL) once shards 0 and 1 succeeded (in the store) and 2 and 3 are
# mid-way; their processes are killed too (lost).  At the restart: shards
# 0 and 1 never run again; 2 and 3 are rerun (recover = rerun: attempt 2,
# trigger recover) and each resumes at the cursor its checkpoint held
# when it was killed (> 0); the instance ends succeeded and the
# checkpoint files (state/checkpoints/<instance row>/<index>) are gone.
# ad: a 2-shard batch whose shard 1 outlives the daemon's kill: adopted
# at the restart (logged before "ready:"), not rerun (one start in its
# log); adopted, its exit is unknown: the shard ends unknown (reason
# adopted), and so does the instance, nothing having failed.
. tests/integration/lib.sh
setup
sleeper zz-ad

cat >"$dir/count.sh" <<EOF2
#!/bin/sh
i=\$TICKD_SHARD_INDEX
out=$dir/rs.out
echo \$\$ > $dir/rs.pid.\$i
echo "start \$i \$TICKD_ATTEMPT \$TICKD_TRIGGER \$TICKD_CHECKPOINT" >> \$out
c=0
if [ -e "\$TICKD_CHECKPOINT" ]; then
	c=\$(cat "\$TICKD_CHECKPOINT")
	echo "shard \$i resumed at \$c" >> \$out
fi
case \$i in 0 | 1) step=0.05 ;; *) step=0.5 ;; esac
while [ "\$c" -lt 10 ]; do
	sleep \$step
	c=\$((c + 1))
	echo "\$c" > "\$TICKD_CHECKPOINT"
	echo "shard \$i at \$c" >> \$out
done
echo "shard \$i done" >> \$out
EOF2

daemon_start
t0=$(($(now) + 2 + slow))
write_job batch.job <<EOF2
[rs]
schedule = $(at_cron "$t0")
shards = 4
command = sh @DIR@/count.sh

[ad]
schedule = $(at_cron "$t0")
shards = 2
command = echo "start \$TICKD_SHARD_INDEX \$TICKD_ATTEMPT" >> @DIR@/ad.out; [ "\$TICKD_SHARD_INDEX" = 0 ] || exec @DIR@/zz-ad 12
EOF2
ctl reload >/dev/null || fail "tickctl reload"

has() { grep -qxF -- "$1" "$dir/rs.out" 2>/dev/null; }
wait_for "shards 0 and 1 to finish" 15 eval 'has "shard 0 done" && has "shard 1 done"'
iid=$(sql "SELECT id FROM runs WHERE job = 'rs' AND parent IS NULL")
inst=$(sql "SELECT run_id FROM runs WHERE id = $iid")
wait_for "shards 0 and 1 to have succeeded in the store" 10 eval '[ "$(sql "SELECT
    count(*) FROM runs WHERE parent = $iid AND shard IN (0, 1) AND
    status = '\''succeeded'\''")" -eq 2 ]'
wait_for "shards 2 and 3 to be mid-way" 15 eval 'has "shard 2 at 2" && has "shard 3 at 2"'
wait_for "ad's shard 1" 10 eval '[ -n "$(procs zz-ad)" ]'
adpid=$(procs zz-ad)
wait_for "ad's shard 1 pid in the store" 10 eval '[ "$(sql "SELECT a.pid FROM attempts a
    JOIN runs r ON a.run = r.id JOIN runs i ON r.parent = i.id WHERE i.job = '\''ad'\''
    AND r.shard = 1")" = "$adpid" ]'
checks=$((checks + 1))
has "shard 2 done" || has "shard 3 done" &&
    fail "shards 2 and 3 were not mid-way when the daemon was killed"

# --- kill -KILL: the daemon, and the processes of shards 2 and 3 -----------------------
daemon_stop 5 KILL
for i in 2 3; do
	p=$(cat "$dir/rs.pid.$i")
	pkill -KILL -P "$p"
	kill -KILL "$p"
	wait_for "shard $i's process to be dead" 10 eval "! pid_alive $p"
done
ckpt2=$(cat "$dir/state/checkpoints/$iid/2") ckpt3=$(cat "$dir/state/checkpoints/$iid/3")
checks=$((checks + 1))
[ "$ckpt2" -gt 0 ] && [ "$ckpt2" -lt 10 ] && [ "$ckpt3" -gt 0 ] && [ "$ckpt3" -lt 10 ] ||
    fail "checkpoints when killed: [$ckpt2] [$ckpt3], want 1-9"
checks=$((checks + 1))
pid_alive "$adpid" || fail "ad's shard 1 did not outlive the daemon"

# --- restart ------------------------------------------------------------------------
daemon_start
wait_for "rs's instance to end" 30 batch_ended rs
wait_for "ad's instance to end" 30 batch_ended ad
daemon_stop_ok

# --- rs -----------------------------------------------------------------------------
expect_eq "rs: starts per shard (0 and 1 never again)" "$(grep '^start ' "$dir/rs.out" |
    awk '{print $2, $3, $4}' | sort -n)" "0 1 schedule
1 1 schedule
2 1 schedule
2 2 recover
3 1 schedule
3 2 recover"
expect_eq "rs: the shards that resumed, and where" "$(grep 'resumed at' "$dir/rs.out" |
    sort)" "shard 2 resumed at $ckpt2
shard 3 resumed at $ckpt3"
expect_eq "rs: each shard done once" "$(grep ' done$' "$dir/rs.out" | sort)" \
    "shard 0 done
shard 1 done
shard 2 done
shard 3 done"
expect_eq "rs: shard 2 counted on from its checkpoint" "$(grep '^shard 2 at ' "$dir/rs.out" |
    awk '{print $4}' | tr '\n' ' ')" "$(seq 1 "$ckpt2" | tr '\n' ' ')$(seq $((ckpt2 + 1)) 10 | tr '\n' ' ')"
expect_eq "rs: its TICKD_CHECKPOINT" "$(grep '^start 2 ' "$dir/rs.out" | awk '{print $5}' |
    sort -u)" "$dir/state/checkpoints/$iid/2"
expect_eq "rs: the instance succeeded" "$(sql "SELECT status FROM runs WHERE id = $iid")" \
    succeeded
expect_eq "rs: its shards" "$(sql "SELECT shard, status, attempts FROM runs
    WHERE parent = $iid ORDER BY shard")" "0|succeeded|1
1|succeeded|1
2|succeeded|2
3|succeeded|2"
expect_eq "rs: the lost attempts" "$(sql "SELECT r.shard, a.attempt, a.outcome,
    a.trigger FROM attempts a JOIN runs r ON a.run = r.id WHERE r.parent = $iid
    AND r.shard IN (2, 3) ORDER BY r.shard, a.attempt")" "2|1|interrupted|schedule
2|2|succeeded|recover
3|1|interrupted|schedule
3|2|succeeded|recover"
for i in 2 3; do
	checks=$((checks + 1))
	log_has "job rs: run $inst shard $i attempt 1 was interrupted by a daemon stop: rerun" ||
	    log_has "job rs: run $inst#$i attempt 1 was interrupted by a daemon stop: rerun" ||
	    soft_fail "rs: shard $i's interruption is not logged"
done
checks=$((checks + 1))
[ ! -e "$dir/state/checkpoints/$iid" ] ||
    fail "rs: checkpoints left after its success: $(find "$dir/state/checkpoints/$iid")"

# --- ad: adopted, not rerun ---------------------------------------------------------------
adid=$(sql "SELECT run_id FROM runs WHERE job = 'ad' AND parent IS NULL")
expect_eq "ad: each shard started once" "$(sort "$dir/ad.out")" "start 0 1
start 1 1"
checks=$((checks + 1))
grep "outlived the previous daemon: adopted, pid $adpid" "$log" | grep -qF "job ad: run $adid" ||
    fail "ad: shard 1's adoption is not logged"
expect_eq "ad: its shards" "$(sql "SELECT r.shard, r.status, r.reason, r.attempts
    FROM runs r JOIN runs i ON r.parent = i.id WHERE i.job = 'ad' ORDER BY r.shard")" \
    "0|succeeded||1
1|unknown|adopted|1"
expect_eq "ad: the instance" "$(sql "SELECT status FROM runs WHERE run_id = '$adid'")" unknown
checks=$((checks + 1))
no_procs zz-ad || fail "ad: its shard still runs"
done_ok

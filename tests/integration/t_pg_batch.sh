#!/bin/sh
# Batches (issue 18) in the PostgreSQL mode: three nodes on one database,
# the same job files, max_running = 4 each (so that one node cannot take
# every shard), lease 5 s.
# 1. pb1, 12 shards of 1.5 s: they run on at least 2 nodes, each index
#    exactly once (the job's own log: index and node) and succeeded once
#    in the store; the instance succeeded.
# 2. pb2, 6 shards counting 1..10 (0.5 s a step) with their cursor in
#    $TICKD_CHECKPOINT: once the store holds a checkpoint (saved at the
#    lease renewals) for a shard still counting on some node, that node
#    dies (kill -9, then its shards' processes, by the pids they wrote):
#    a survivor reruns each of its unfinished shards (attempt 2, another
#    node) from the checkpoint ("resumed at C", C at least what the store
#    held at the kill and at most what the shard last wrote); its
#    finished shards and the other nodes' never run again; every index
#    succeeded exactly once in the store; the instance succeeded.
. tests/integration/lib.sh
. tests/pg.sh
batch_sql=pg_sql
setup
pg_start

# pb_node NAME: pg_node's configuration plus max_running, and start it.
pb_node() {
	cat >"$dir/$1.conf" <<EOF2
[daemon]
node = $1
state = $PG_DSN
jobs_dir = jobs.d
control = $1.sock
timezone = UTC
cgroup = none
lease = 5s
max_running = 4
EOF2
	"$TICKD" -c "$dir/$1.conf" --log-target=stderr 2>>"$dir/$1.log" &
	echo $! >"$dir/$1.pid"
}
node_of='$(tr "\\0" " " </proc/$PPID/cmdline | grep -o "n[0-9].conf" | cut -c1-2)'
for n in n1 n2 n3; do
	pb_node $n
done
for n in n1 n2 n3; do
	wait_for "$n ready" 20 grep -q "ready:" "$dir/$n.log"
done

cat >"$dir/count.sh" <<EOF2
#!/bin/sh
i=\$TICKD_SHARD_INDEX node=\$1
out=$dir/pb2.out
echo "\$\$ \$node" > $dir/pb2.pid.\$i
echo "start \$i \$node \$TICKD_ATTEMPT \$TICKD_TRIGGER \$TICKD_CHECKPOINT" >> \$out
c=0
if [ -s "\$TICKD_CHECKPOINT" ]; then
	c=\$(cat "\$TICKD_CHECKPOINT")
	echo "shard \$i resumed at \$c" >> \$out
fi
while [ "\$c" -lt 10 ]; do
	sleep 0.5
	c=\$((c + 1))
	echo "\$c" > "\$TICKD_CHECKPOINT"
	echo "shard \$i at \$c" >> \$out
done
echo "shard \$i done" >> \$out
EOF2

t0=$(($(now) + 2 + slow))
write_job batch.job <<EOF2
[pb1]
schedule = $(at_cron "$t0")
shards = 12
command = echo "start \$TICKD_SHARD_INDEX $node_of \$TICKD_SHARD_RUN_ID" >> @DIR@/pb1.out; sleep 1.5; echo "end \$TICKD_SHARD_INDEX" >> @DIR@/pb1.out
EOF2
for n in n1 n2 n3; do
	"$TICKCTL" -c "$dir/$n.conf" reload >/dev/null || fail "tickctl reload on $n"
done


# --- 1. pb1: spread, each index once ------------------------------------------------
wait_for "pb1's instance to end" 40 batch_ended pb1
pb1=$(pg_sql "SELECT run_id FROM runs WHERE job = 'pb1' AND parent IS NULL")
expect_eq "pb1: succeeded" "$(batch_status pb1)" succeeded
expect_eq "pb1: each index started once" "$(grep '^start ' "$dir/pb1.out" |
    awk '{print $2}' | sort -n | tr '\n' ' ')" "$(seq 0 11 | tr '\n' ' ')"
expect_eq "pb1: each index ended once" "$(grep '^end ' "$dir/pb1.out" |
    awk '{print $2}' | sort -n | tr '\n' ' ')" "$(seq 0 11 | tr '\n' ' ')"
expect_eq "pb1: the shards' run ids" "$(grep '^start ' "$dir/pb1.out" |
    awk -v i="$pb1" '$4 != i "#" $2')" ""
nodes=$(grep '^start ' "$dir/pb1.out" | awk '{print $3}' | sort -u | wc -l)
echo "pb1: by node: $(grep '^start ' "$dir/pb1.out" | awk '{print $3}' | sort | uniq -c | tr '\n' ' ')"
checks=$((checks + 1))
[ "$nodes" -ge 2 ] || fail "pb1: its shards ran on $nodes node(s)"
expect_eq "pb1: each index succeeded once in the store" "$(pg_sql "SELECT r.shard,
    r.status, r.attempts FROM runs r JOIN runs i ON r.parent = i.id
    WHERE i.run_id = '$pb1' ORDER BY r.shard" | tr '\n' ' ')" \
    "$(seq 0 11 | sed 's/$/|succeeded|1/' | tr '\n' ' ')"

# --- 2. pb2: a node dies mid-batch ------------------------------------------------------
t1=$(($(now) + 2 + slow))
write_job batch2.job <<EOF2
[pb2]
schedule = $(at_cron "$t1")
shards = 6
command = sh @DIR@/count.sh $node_of
EOF2
for n in n1 n2 n3; do
	"$TICKCTL" -c "$dir/$n.conf" reload >/dev/null || fail "tickctl reload on $n"
done
wait_for "pb2's instance" 20 eval '[ -n "$(pg_sql "SELECT id FROM runs WHERE job = '\''pb2'\''
    AND parent IS NULL AND shards IS NOT NULL")" ]'
iid=$(pg_sql "SELECT id FROM runs WHERE job = 'pb2' AND parent IS NULL")
# A shard still counting whose checkpoint the store holds.
ckpt_shard() {
	for _s in $(pg_sql "SELECT shard FROM runs WHERE parent = $iid AND
	    status = 'running' AND checkpoint IS NOT NULL ORDER BY shard"); do
		grep -qx "shard $_s done" "$dir/pb2.out" || { echo "$_s"; return 0; }
	done
	return 1
}
wait_for "a checkpoint in the store" 20 ckpt_shard
vs=$(ckpt_shard)
vnode=$(awk '{print $2}' "$dir/pb2.pid.$vs")
# The host dies: its daemon, then its shards' processes.
kill -KILL "$(cat "$dir/$vnode.pid")"
killed=
for f in "$dir"/pb2.pid.*; do
	set -- $(cat "$f")
	[ "$2" = "$vnode" ] || continue
	pkill -KILL -P "$1"
	kill -KILL "$1" 2>/dev/null
	killed="$killed ${f##*.}"
done
for f in "$dir"/pb2.pid.*; do
	set -- $(cat "$f")
	[ "$2" = "$vnode" ] || continue
	wait_for "pid $1 to be dead" 10 eval "! pid_alive $1"
done
# What each lost shard had: in the store (its last renewal) and written.
lost=
for s in $killed; do
	grep -qx "shard $s done" "$dir/pb2.out" && continue
	lost="$lost $s"
	eval "stored_$s=\$(pg_sql \"SELECT convert_from(checkpoint, 'UTF8') FROM runs
	    WHERE parent = $iid AND shard = $s\" | tr -d '[:space:]')"
	eval "wrote_$s=\$(grep '^shard $s at ' \"\$dir/pb2.out\" | tail -n 1 | awk '{print \$4}')"
done
echo "pb2: node $vnode killed running shards$killed (lost:$lost)"
expect_match "pb2: shard $vs is lost" "$lost " "* $vs *"
wait_for "pb2's instance to end" 60 batch_ended pb2
expect_eq "pb2: succeeded" "$(batch_status pb2)" succeeded
expect_eq "pb2: each index succeeded once in the store" "$(pg_sql "SELECT shard, status
    FROM runs WHERE parent = $iid ORDER BY shard" | tr '\n' ' ')" \
    "$(seq 0 5 | sed 's/$/|succeeded/' | tr '\n' ' ')"
expect_eq "pb2: each index done once" "$(grep ' done$' "$dir/pb2.out" | awk '{print $2}' |
    sort -n | tr '\n' ' ')" "$(seq 0 5 | tr '\n' ' ')"
for s in 0 1 2 3 4 5; do
	case " $lost " in
	*" $s "*)
		expect_eq "pb2: shard $s: two starts" "$(grep -c "^start $s " "$dir/pb2.out")" 2
		expect_match "pb2: shard $s: rerun by a survivor" "$(grep "^start $s " \
		    "$dir/pb2.out" | sed -n 2p | awk '{print $3, $4, $5}')" "n[123] 2 recover"
		checks=$((checks + 1))
		[ "$(grep "^start $s " "$dir/pb2.out" | sed -n 2p | awk '{print $3}')" != "$vnode" ] ||
		    fail "pb2: shard $s rerun on its dead node $vnode"
		eval "st=\$stored_$s wr=\$wrote_$s"
		c=$(grep "^shard $s resumed at " "$dir/pb2.out" | awk '{print $5}')
		echo "pb2: shard $s: stored $st, wrote $wr, resumed at $c"
		checks=$((checks + 1))
		[ -n "$c" ] && [ -n "$st" ] && [ "$c" -gt 0 ] && [ "$c" -ge "$st" ] &&
		    [ "$c" -le "$wr" ] ||
		    fail "pb2: shard $s resumed at [$c], stored [$st], last written [$wr]"
		expect_eq "pb2: shard $s: attempts" "$(pg_sql "SELECT attempts FROM runs
		    WHERE parent = $iid AND shard = $s")" 2 ;;
	*)
		expect_eq "pb2: shard $s: one start" "$(grep -c "^start $s " "$dir/pb2.out")" 1
		expect_eq "pb2: shard $s: never resumed" "$(grep -c "^shard $s resumed" \
		    "$dir/pb2.out")" 0 ;;
	esac
done
done_ok

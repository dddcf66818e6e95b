#!/bin/sh
# Three tickd nodes on one PostgreSQL database, the same job files:
# 1. a storm of every-second jobs: each instance runs exactly once (the
#    jobs' own record and the server's rows agree) and the runs spread
#    over the nodes;
# 2. overlap = skip holds across nodes: never two runs of a long job
#    alive at once, whichever nodes claim them; max_parallel = 2 never
#    three;
# 3. a node killed (kill -9, its job's processes with it, as when a host
#    dies) mid-run: once its lease expires, exactly one survivor reruns
#    the instance (recover = rerun), and says so;
# 4. a fourth node whose clock is 5 s ahead (libfaketime) claims nothing
#    and says so; its different job files are reported by the others;
# 5. a job paused from one node runs nowhere, and resumed from another
#    every node follows;
# 6. overlap = replace across nodes: a run started on one node replaces
#    the one running on another, which that node stops.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start

# Each job records its run id and the node that started it (the config
# file its parent tickd was started with names the node).
node_of='$(tr "\\0" " " </proc/$PPID/cmdline | grep -o "n[0-9].conf" | cut -c1-2)'
t0=$(($(now) + 3))
for j in s1 s2 s3 s4 s5; do
	write_job $j.job <<EOF
[$j]
schedule = * * * * * *
command = echo "\$TICKD_RUN_ID $node_of" >> @DIR@/storm.out
EOF
done
write_job long.job <<EOF
[long]
schedule = * * * * * *
overlap = skip
command = echo "start \$(date +%s%3N) \$TICKD_RUN_ID" >> @DIR@/long.out; sleep 2.5; echo "end \$(date +%s%3N) \$TICKD_RUN_ID" >> @DIR@/long.out
EOF
write_job victim.job <<EOF
[victim]
schedule = $(at_cron $((t0 + 5)))
recover = rerun
command = echo \$\$ > @DIR@/victim.pid; echo "\$TICKD_RUN_ID attempt \$TICKD_ATTEMPT $node_of" >> @DIR@/victim.out; exec sleep 30
EOF
write_job mp.job <<EOF
[mp]
schedule = * * * * * *
overlap = allow
max_parallel = 2
command = echo "start \$(date +%s%3N) \$TICKD_RUN_ID" >> @DIR@/mp.out; sleep 3.5; echo "end \$(date +%s%3N) \$TICKD_RUN_ID" >> @DIR@/mp.out
EOF
write_job rep.job <<EOF
[rep]
schedule = @yearly
overlap = replace
kill_grace = 5s
command = echo "start \$TICKD_RUN_ID $node_of" >> @DIR@/rep.out; trap 'echo "term \$TICKD_RUN_ID $node_of" >> @DIR@/rep.out; exit 143' TERM; sleep 60 & wait
EOF

for n in n1 n2 n3; do
	pg_node $n
done
# n4: its clock 5 s ahead (libfaketime, the monotonic clock real), a
# job the others do not have and one defined otherwise: it claims
# nothing, and the others say which definitions differ.
ft=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
mkdir "$dir/jobs4.d"
cp "$jobs"/*.job "$dir/jobs4.d/"
printf '[extra]\nschedule = * * * * * *\ncommand = echo "$TICKD_RUN_ID n4" >> %s/storm.out\n' \
    "$dir" >"$dir/jobs4.d/extra.job"
printf 'timeout = 1h\n' >>"$dir/jobs4.d/s5.job"
pg_node n4
kill -KILL "$(cat "$dir/n4.pid")"
sed -i 's|^jobs_dir = .*|jobs_dir = jobs4.d|' "$dir/n4.conf"
# (Under AddressSanitizer, its runtime must not insist on coming first.)
LD_PRELOAD=$ft FAKETIME=+5s FAKETIME_DONT_FAKE_MONOTONIC=1 \
    FAKETIME_NO_CACHE=1 \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
    "$TICKD" -c "$dir/n4.conf" --log-target=stderr 2>"$dir/n4.log" &
echo $! >"$dir/n4.pid"
for n in n1 n2 n3 n4; do
	wait_for "$n ready" 20 grep -q "ready:" "$dir/$n.log"
done

# --- 1 and 2: the storm, and overlap across nodes -----------------------------------
wait_for "the victim's start" $((15 + 5)) test -s "$dir/victim.out"
sleep_until=$(($(now) + 3))
while [ "$(now)" -lt "$sleep_until" ]; do sleep 0.2; done
checks=$((checks + 1))
[ "$(lines "$dir/storm.out")" -ge 25 ] ||
    fail "the storm: only $(lines "$dir/storm.out") runs"
expect_eq "the storm: no instance ran twice" \
    "$(cut -d' ' -f1 "$dir/storm.out" | sort | uniq -d)" ""
# The storm goes on: the runs that wrote are read first, then asked for
# (a run claimed since is a row that has not written yet).
cp "$dir/storm.out" "$dir/storm.seen"
expect_eq "the storm: every started run is a row on the server" \
    "$(pg_sql "SELECT count(*) FROM runs WHERE run_id IN ($(cut -d' ' -f1 \
    "$dir/storm.seen" | sed "s/.*/'&'/" | paste -sd,)) AND attempts = 1 AND
    status IN ('running', 'succeeded')")" "$(lines "$dir/storm.seen")"
checks=$((checks + 1))
[ "$(cut -d' ' -f2 "$dir/storm.out" | sort -u | wc -l)" -ge 2 ] ||
    fail "the storm ran on one node only: $(cut -d' ' -f2 "$dir/storm.out" | sort | uniq -c)"
echo "storm: $(lines "$dir/storm.out") runs, by node: $(cut -d' ' -f2 "$dir/storm.out" | sort | uniq -c | tr '\n' ' ')"

# n4: its clock refused, its runs none, its definitions reported.
checks=$((checks + 1))
grep -q "error: this node's clock is +[45][0-9][0-9][0-9] ms off the database server's (max_clock_skew 2 s): it claims nothing until it is back within" \
    "$dir/n4.log" || fail "n4 did not say its clock is off: $(cat "$dir/n4.log")"
expect_eq "n4 ran nothing" "$(grep -c ' n4$' "$dir/storm.out")" 0
expect_match "the nodes table: n4's offset" "$(pg_sql "SELECT node,
    clock_offset_ms > 4000 FROM nodes ORDER BY node" | tr '\n' ' ')" \
    "n1|f n2|f n3|f n4|t "
checks=$((checks + 1))
grep -q "error: node n4: the definitions of extra (only there), s5 differ from this node's (n1): every node must have the same job files" \
    "$dir/n1.log" || fail "n1 did not report n4's definitions: $(grep n4 "$dir/n1.log")"
expect_eq "the nodes' own definitions: n4's differ in two jobs" "$(pg_sql "
    SELECT node, count(*) FROM node_jobs GROUP BY node ORDER BY node" |
    tr '\n' ' ')" "n1|9 n2|9 n3|9 n4|10 "
run_cmd "$TICKCTL" -c "$dir/n1.conf" status
expect_match "status on n1: the nodes" "$(printf '%s\n' "$out" |
    grep -E ' n[1-4]: beat ' | sed 's/^ *\(nodes\)\{0,1\} *//' | tr '\n' '|')" \
    "n1: beat *, clock [-+]* ms, * running|n2: beat *|n3: beat *|n4: beat * ago, clock +[45]??? ms (too far: it claims nothing), 0 running, job definitions differ from these files: extra (not in these files), s5|"
# Each node's own daemon, from its own meta values.
for n in n1 n2; do
	run_cmd "$TICKCTL" -c "$dir/$n.conf" status
	expect_match "status on $n: its own daemon, since when" "$(printf '%s\n' \
	    "$out" | grep '^daemon')" \
	    "daemon *running, pid $(cat "$dir/$n.pid"), since *"
done
expect_eq "meta: each node's own pid" "$(pg_sql "SELECT key, value FROM meta
    WHERE key LIKE 'pid%' ORDER BY key" | tr '\n' ' ')" \
    "pid@n1|$(cat "$dir/n1.pid") pid@n2|$(cat "$dir/n2.pid") pid@n3|$(cat "$dir/n3.pid") pid@n4|$(cat "$dir/n4.pid") "
run_cmd "$TICKCTL" -c "$dir/n1.conf" --json status
expect_eq "status --json: n4 as the nodes table has it" "$(printf '%s\n' "$out" |
    jpy '[(n["node"], n["clock_offset_ms"] > 4000, n["same_definitions"],
    n["differing_jobs"]) for n in o["nodes"]]' | tr -d '\n')" \
    '["n1", false, true, 0]["n2", false, true, 0]["n3", false, true, 0]["n4", true, false, 2]'
run_cmd "$TICKCTL" -c "$dir/n1.conf" check
expect_eq "check on n1: exit" "$rc" 1
expect_eq "check on n1: n4's findings" "$(printf '%s\n' "$out" |
    grep '^node ' | sed 's/+[45][0-9][0-9][0-9] ms/+N ms/')" \
    "node n4: job definitions differ from these files: extra (not in these files), s5
node n4: its clock is +N ms off the database server's (max_clock_skew 2 s): it claims nothing"
run_cmd "$TICKCTL" -c "$dir/n1.conf" metrics
expect_eq "metrics: n4 does not claim, the others do" "$(printf '%s\n' "$out" |
    grep '^tickd_node_claiming' | tr '\n' ' ')" 'tickd_node_claiming{node="n1"} 1.000 tickd_node_claiming{node="n2"} 1.000 tickd_node_claiming{node="n3"} 1.000 tickd_node_claiming{node="n4"} 0.000 '
kill -KILL "$(cat "$dir/n4.pid")"

# --- 3: the victim's node dies --------------------------------------------------------
vnode=$(awk '{print $4}' "$dir/victim.out" | head -n 1)
vpid=$(cat "$dir/$vnode.pid")
expect_eq "the victim still runs when its node dies" "$(pg_sql "SELECT status
    FROM runs WHERE job = 'victim'")" running
# The host dies: its daemon, then its job's processes (the other way
# round, the daemon would see its job killed, and record that).
kill -KILL "$vpid"
# (By its pid: a pattern would kill other tests' processes too.)
kill -KILL "$(cat "$dir/victim.pid")"
killed=$(now)
wait_for "a survivor reruns the victim" 30 eval '[ "$(lines "$dir/victim.out")" -ge 2 ]'
took=$(($(now) - killed))
echo "victim: ran on $vnode, rerun $took s after the kill (lease 5 s)"
expect_eq "the victim: rerun once" "$(lines "$dir/victim.out")" 2
expect_eq "the victim: attempt 2 on another node" \
    "$(awk 'NR == 2 && $3 == 2 && $4 != "'"$vnode"'" {print "yes"}' "$dir/victim.out")" yes
expect_eq "the victim: attempt 1 recorded interrupted, lease lost" \
    "$(pg_sql "SELECT a.outcome FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.job = 'victim' AND a.attempt = 1")" interrupted
said=0
for n in n1 n2 n3; do
	[ "$n" = "$vnode" ] && continue
	grep -q "job victim: run victim@.* attempt 1: its node ($vnode:" \
	    "$dir/$n.log" && said=$((said + 1))
done
expect_eq "the victim: one survivor settled it, and said so" "$said" 1

# overlap = skip across nodes: [start, end] of long's runs never overlap.
expect_eq "long: never two runs at once" "$(sort -k2,2n "$dir/long.out" |
    awk '$1 == "start" { if (open) bad = 1; open = 1 }
    $1 == "end" { open = 0 } END { print bad ? "overlap" : "ok" }')" ok
checks=$((checks + 1))
[ "$(pg_sql "SELECT count(*) FROM runs WHERE job = 'long' AND
    status = 'skipped' AND reason = 'overlap'")" -ge 2 ] ||
    fail "long: no overlap skips recorded"
# max_parallel = 2 across nodes: never three runs of mp alive at once.
expect_eq "mp: at most two alive at once, on any nodes" "$(sort -k2,2n \
    "$dir/mp.out" | awk '$1 == "start" { if (++alive > max) max = alive }
    $1 == "end" { alive-- } END { print max }')" 2
checks=$((checks + 1))
[ "$(pg_sql "SELECT count(*) FROM runs WHERE job = 'mp' AND
    status = 'skipped' AND reason = 'overlap'")" -ge 2 ] ||
    fail "mp: no max_parallel skips recorded"

# Paused from one survivor, resumed from the other: no instance of s1
# runs anywhere while it is paused, and the other node follows both.
pa= pb=
for n in n1 n2 n3; do
	[ "$n" = "$vnode" ] && continue
	if [ -z "$pa" ]; then pa=$n; else pb=$n; fi
done
"$TICKCTL" -c "$dir/$pa.conf" pause s1 >/dev/null || fail "pause s1 on $pa"
tp=$(now)
# (At its next beat: what of s1 waits in its FIFO is held then.)
wait_for "$pb follows the pause" 10 grep -q \
    "job s1: paused on another node" "$dir/$pb.log"
while [ "$(now)" -lt $((tp + 3)) ]; do sleep 0.2; done
expect_eq "paused from $pa: no run of s1 on any node" "$(pg_sql "SELECT
    count(*) FROM runs WHERE job = 's1' AND status != 'skipped' AND
    scheduled_at > $((tp + 1))")" 0
"$TICKCTL" -c "$dir/$pb.conf" resume s1 >/dev/null || fail "resume s1 on $pb"
tr=$(now)
wait_for "s1 runs again" 10 eval '[ "$(pg_sql "SELECT count(*) FROM runs
    WHERE job = '"'s1'"' AND status = '"'succeeded'"' AND
    scheduled_at > $tr")" -ge 2 ]'
wait_for "$pa follows the resume" 10 grep -q \
    "job s1: resumed on another node" "$dir/$pa.log"

# overlap = replace across nodes: a run of rep started on $pb replaces
# the one on $pa, which $pa stops when it next renews its leases.
"$TICKCTL" -c "$dir/$pa.conf" run rep >/dev/null || fail "run rep on $pa"
wait_for "rep's run on $pa" 10 grep -q "^start .* $pa\$" "$dir/rep.out"
"$TICKCTL" -c "$dir/$pb.conf" run rep >/dev/null || fail "run rep on $pb"
wait_for "rep's run on $pa stopped" 10 grep -q "^term .* $pa\$" \
    "$dir/rep.out"
wait_for "rep's run on $pb" 10 grep -q "^start .* $pb\$" "$dir/rep.out"
expect_eq "rep: the replaced run and the new one" "$(pg_sql "SELECT status,
    coalesce(reason, '-') FROM runs WHERE job = 'rep' ORDER BY id" |
    tr '\n' ' ')" "terminated|replaced running|- "
checks=$((checks + 1))
grep -q "job rep: run rep@.* is replaced by a newer instance on node $pb: signal 15" \
    "$dir/$pa.log" || fail "$pa did not say why it stopped rep"

for n in n1 n2 n3; do
	kill -TERM "$(cat "$dir/$n.pid")" 2>/dev/null
done
done_ok

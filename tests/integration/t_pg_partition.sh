#!/bin/sh
# Two tickd nodes, each reaching PostgreSQL through a proxy of its own.
# The node running a long job is cut off (its link blackholed: a
# partition, the client hangs): it stops its run before its lease
# expires and claims nothing; the other node reruns the instance once the
# lease has expired (recover = rerun), so the two copies are never alive
# at once; when the link comes back, the cut-off node's late end is
# refused by the fence (the attempt number), and the instance has two
# attempts, not three.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start

node_of='$(tr "\\0" " " </proc/$PPID/cmdline | grep -o "n[0-9].conf" | cut -c1-2)'
t0=$(($(now) + 4))
write_job part.job <<EOF
[part]
schedule = $(at_cron "$t0")
recover = rerun
kill_grace = 30s
command = echo "start \$(date +%s%3N) \$TICKD_ATTEMPT $node_of" >> @DIR@/part.out; trap 'echo "term \$(date +%s%3N) \$TICKD_ATTEMPT $node_of" >> @DIR@/part.out; exit 143' TERM; sleep 60 & wait
EOF

for n in n1 n2; do
	proxy_start $n
	pg_node $n "$(proxy_dsn $n)" 6s
done
for n in n1 n2; do
	wait_for "$n ready" 20 grep -q "ready:" "$dir/$n.log"
done
wait_for "part's first attempt" 20 grep -q "^start .* 1 n" "$dir/part.out"
cut=$(awk '$1 == "start" {print $4; exit}' "$dir/part.out")
other=n1
[ "$cut" = n1 ] && other=n2
proxy_blackhole "$cut"
at_cut=$(now_ms)
wait_for "the rerun on $other" 30 grep -q "^start .* 2 $other" \
    "$dir/part.out"
term1=$(awk '$1 == "term" && $3 == 1 {print $2}' "$dir/part.out")
start2=$(awk '$1 == "start" && $3 == 2 {print $2}' "$dir/part.out")
echo "cut off $cut at $at_cut; its run stopped at +$((term1 - at_cut)) ms;" \
    "rerun on $other at +$((start2 - at_cut)) ms (lease 6 s)"
checks=$((checks + 1))
[ -n "$term1" ] || fail "the cut-off node's run was not stopped: $(cat "$dir/part.out")"
checks=$((checks + 1))
[ "$term1" -lt "$start2" ] ||
    fail "two copies alive at once: attempt 1 ended $term1, attempt 2 began $start2"
checks=$((checks + 1))
grep -q "error: leases not renewed for [0-9]* ms (lease 6 s): this node stops its 1 runs before their leases expire, and claims nothing until the database answers" \
    "$dir/$cut.log" || fail "$cut did not say it fenced itself: $(tail -5 "$dir/$cut.log")"

# The link comes back: the late end is refused, nothing runs a third time.
proxy_restore "$cut"
wait_for "$cut's late end refused" 20 grep -q "was refused: another node took the instance over" "$dir/$cut.log"
wait_for "$cut claims again" 20 grep -q "claims again" "$dir/$cut.log"
expect_eq "two attempts, the second running on $other" "$(pg_sql "SELECT
    attempts, status FROM runs WHERE job = 'part'")" "2|running"
expect_eq "attempt 1 ended interrupted (lease lost)" "$(pg_sql "SELECT
    outcome FROM attempts a JOIN runs r ON a.run = r.id WHERE
    r.job = 'part' AND a.attempt = 1")" interrupted
expect_eq "no third start" "$(grep -c '^start' "$dir/part.out")" 2
for n in n1 n2; do
	kill -TERM "$(cat "$dir/$n.pid")" 2>/dev/null
done
done_ok

#!/bin/sh
# The server gone for longer than the lease (pg_ctl stop, 9 s, start; the
# lease is 6 s), two nodes, one of them running a long job:
# 1. the node running it fences itself half a lease after its last
#    renewal and stops the job before the lease would expire, though no
#    store call can succeed (the fence is a timer of its own);
# 2. nothing starts while the server is away;
# 3. once it is back, the long job's instance is rerun (recover = rerun)
#    exactly once, by one node, and its two processes never overlapped;
#    the every-second jobs' instants that fell in the outage are each one
#    run or in one decision, none run twice;
# 4. both nodes say the store was away and back, claim again, and live.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start
sql() { pg_sql "$1"; }	# for expect_runs_match, expect_accounted

node_of='$(tr "\\0" " " </proc/$PPID/cmdline | grep -o "n[0-9].conf" | cut -c1-2)'
for j in s1 s2; do
	write_job $j.job <<EOF
[$j]
schedule = * * * * * *
command = echo "\$TICKD_RUN_ID" >> @DIR@/storm.out; date +%s%3N >> @DIR@/at.out
EOF
done
write_job hold.job <<EOF
[hold]
schedule = @yearly
recover = rerun
kill_grace = 1s
command = echo "start \$(date +%s%3N) \$TICKD_ATTEMPT $node_of" >> @DIR@/hold.out; trap 'echo "term \$(date +%s%3N) \$TICKD_ATTEMPT $node_of" >> @DIR@/hold.out; exit 143' TERM; sleep 120 & wait
EOF
for n in n1 n2; do
	pg_node $n "" 6s
done
for n in n1 n2; do
	wait_for "$n ready" 20 grep -q "ready:" "$dir/$n.log"
done
"$TICKCTL" -c "$dir/n1.conf" run hold >/dev/null || fail "tickctl run hold"
wait_for "hold's start" 15 grep -qs "^start" "$dir/hold.out"
runner=$(awk '$1 == "start" { print $4 }' "$dir/hold.out")
# A renewal has happened (the run is recorded started): the fence is
# at most half a lease after the stop.
recorded() {
	[ -n "$(sql "SELECT a.started_at FROM runs r JOIN attempts a ON
	    a.run = r.id WHERE r.job = 'hold' AND a.started_at IS NOT NULL")" ]
}
wait_for "hold's start recorded" 10 recorded

down=$(now_ms)
pg_stop
stopped=$(now_ms)
# 1. Fenced, the job stopped within half a lease plus its grace, before
# the lease (6 s) could have expired.
wait_for "hold stopped by the fence" 10 grep -qs "^term" "$dir/hold.out"
term=$(awk '$1 == "term" { print $2; exit }' "$dir/hold.out")
echo "hold asked to stop $((term - down)) ms after the server was stopped"
checks=$((checks + 1))
[ $((term - down)) -lt 5500 ] || fail "hold stopped $((term - down)) ms" \
    "after the server, the lease is 6 s"
grep -q "leases not renewed for" "$dir/$runner.log" ||
    fail "$runner did not say it fenced itself"
# Away for 9 s: longer than the lease.
wait_for "9 s of outage" 15 eval '[ $(($(now_ms) - down)) -ge 9000 ]'
# 2. Nothing started while the server was away (a start in the first
# half second may come from a claim committed before the stop).
checks=$((checks + 1))
started=$(awk -v a="$stopped" '$1 > a + 500' "$dir/at.out" 2>/dev/null | wc -l)
[ "$started" -eq 0 ] || fail "$started runs started with the server away"
pg_start_again
up=$(now_ms)

# 3. The instance rerun once, by one node, after the first stopped.
wait_for "hold's second attempt" 30 eval '[ "$(grep -c "^start" \
    "$dir/hold.out")" -ge 2 ]'
# Both nodes claim again, after the server is back.
after() { awk -v up="$up" '$1 > up' "$dir/at.out" | wc -l; }
wait_for "claims again" 20 eval '[ "$(after)" -ge 6 ]'
for n in n1 n2; do
	pid_alive "$(cat "$dir/$n.pid")" || fail "$n died"
done
expect_eq "hold: two attempts, the second running" "$(sql "SELECT
    r.attempts, r.status FROM runs r WHERE r.job = 'hold'")" "2|running"
expect_eq "hold: started twice" "$(grep -c '^start' "$dir/hold.out")" 2
expect_eq "hold: the first ended before the second began" "$(awk '
    $1 == "start" && $3 == 2 { s = $2 } $1 == "term" && $3 == 1 { t = $2 }
    END { print (t != "" && s != "" && t < s) ? "yes" : "no" }' \
    "$dir/hold.out")" yes
expect_eq "hold: the first attempt's end" "$(sql "SELECT a.outcome FROM runs r
    JOIN attempts a ON a.run = r.id WHERE r.job = 'hold' AND a.attempt = 1")" \
    interrupted
for n in n1 n2; do
	kill -TERM "$(cat "$dir/$n.pid")"
done
for n in n1 n2; do
	wait "$(cat "$dir/$n.pid")"
	expect_eq "$n: exit status" "$?" 0
done
expect_runs_match "$dir/storm.out" "job IN ('s1', 's2')"
for j in s1 s2; do
	expect_accounted $j
done
# 4. Each node said the store was away, then back.
for n in n1 n2; do
	expect_match "$n: the server lost, then back" "$(grep \
	    '^tickd: [a-z]*: store' "$dir/$n.log" | cut -d : -f 3 |
	    tr '\n' '|')" " store*| store available again after *"
done
grep -h "store available again" "$dir/n1.log" "$dir/n2.log"
done_ok

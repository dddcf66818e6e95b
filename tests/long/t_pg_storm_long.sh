#!/bin/sh
# Three tickd nodes on one PostgreSQL server, a storm of every-second
# jobs for a minute; 20 s in, the server restarted (pg_ctl restart -m
# fast); 40 s in, a node killed (kill -9) and started again 6 s later.
# From the server's rows and from the jobs' own record: every instant of
# every job once (a run, or counted in a decision of the misfire policy),
# never twice; the runs spread over the three nodes; every run ended with
# a final status; an end refused only where another node had taken its
# instance over.  Prints the outage, each node's first claim after it and
# after the kill, and how the runs spread.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start
sql() { pg_sql "$1"; }	# for expect_runs_match, expect_accounted

jobs_n=8
node_of='$(tr "\\0" " " </proc/$PPID/cmdline | grep -o "n[0-9].conf" | cut -c1-2)'
for j in $(seq 1 $jobs_n); do
	write_job s$j.job <<EOF
[s$j]
schedule = * * * * * *
command = echo "\$TICKD_RUN_ID" >> @DIR@/storm.out; echo "\$(date +%s%3N) $node_of" >> @DIR@/at.out
EOF
done

node() {
	pg_node "$1"
	log=$dir/$1.log
	wait_for "$1 ready ($2)" 10 eval '[ "$(log_count "ready:")" -ge '"$2 ]"
}
for n in n1 n2 n3; do
	node $n 1
done
# after MS NODE: the first run NODE started after MS, in ms after it.
after() {
	awk -v t="$1" -v n="$2" '$1 > t && $2 == n { print $1 - t; exit }' \
	    "$dir/at.out"
}

start=$(now)
wait_until $((start + 20))
pg_restart
up=$(now_ms)
wait_until $((start + 40))
wait_mid_second
kill -KILL "$(cat "$dir/n2.pid")"
killed=$(now_ms)
wait_until $((start + 46))
node n2 2
back=$(now_ms)
wait_until $((start + 60))
for n in n1 n2 n3; do
	pid_alive "$(cat "$dir/$n.pid")" || fail "$n died"
	kill -TERM "$(cat "$dir/$n.pid")"
done
for n in n1 n2 n3; do
	wait_for "$n stopped" 15 eval '! pid_alive "$(cat "$dir/$n.pid")"'
	wait "$(cat "$dir/$n.pid")"
	expect_eq "$n: exit status" "$?" 0
done

down=$(pg_log_ms "received fast shutdown request" "received fast shutdown")
ready=$(pg_log_ms "received fast shutdown request" \
    "database system is ready to accept connections")
echo "outage: $((ready - down)) ms (shutdown asked to ready)"
echo "first claim after the restart: n1 $(after "$up" n1) ms," \
    "n2 $(after "$up" n2) ms, n3 $(after "$up" n3) ms"
echo "after the kill of n2: n1 $(after "$killed" n1) ms," \
    "n3 $(after "$killed" n3) ms; n2 started again: $(after "$back" n2) ms"
runs=$(lines "$dir/storm.out")
echo "runs: $runs; decisions: $(sql "SELECT coalesce(sum(count), 0) FROM
    decisions")"

# Once each, none lost, on every node.
expect_runs_match "$dir/storm.out" "job LIKE 's%'"
for j in $(seq 1 $jobs_n); do
	expect_accounted s$j
done
for n in n1 n2 n3; do
	c=$(grep -c " $n\$" "$dir/at.out")
	echo "runs on $n: $c"
	expect_eq "$n ran a tenth of the runs at least" \
	    "$([ $((c * 10)) -ge "$runs" ] && echo yes)" yes
done
expect_eq "every run ended" "$(sql "SELECT job, run_id, status FROM runs
    WHERE status IN ('pending', 'queued', 'running', 'retrying',
    'interrupted')")" ""

# An end refused only for an instance another node took over (a later
# attempt of the same run).
refused=$(cat "$dir"/n?.log | sed -n 's/.*run row \([0-9]*\) attempt \([0-9]*\): its end .* was refused.*/\1 \2/p')
echo "ends refused: $(printf '%s' "$refused" | grep -c .)"
printf '%s\n' "$refused" | while read -r row att; do
	[ -n "$row" ] || continue
	expect_eq "run row $row: taken over after attempt $att" "$(sql "SELECT
	    attempts > $att FROM runs WHERE id = $row")" t
done
done_ok

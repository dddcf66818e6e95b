#!/bin/sh
# Two tickd nodes on one PostgreSQL server, a load of every-second jobs,
# and the server restarted under it (pg_ctl restart -m fast):
# 1. nothing runs twice and nothing is lost: every instant of every job
#    is one run or counted in one decision, the jobs' own record and the
#    server's rows agree, and both nodes claim again;
# 2. a run that ends while the server is down has its end, with its real
#    exit status, written once the server is back (the kept end);
# 3. the daemons say they lost the server (those that used it in the
#    outage) and that they have it again, and neither dies;
# 4. the loop's timers fire during the outage: a job's timeout that falls
#    in it stops the job on time.
# Prints the outage, each node's first claim after it, and how late the
# timeout was.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start
# outage: $down and $ready, the last restart's shutdown asked and the
# server ready again, in its log.  One before the load says how long a
# restart keeps the server away here.
outage() {
	down=$(pg_log_ms "received fast shutdown request" "received fast shutdown")
	ready=$(pg_log_ms "received fast shutdown request" \
	    "database system is ready to accept connections")
}
asked=$(now_ms)
pg_restart
outage
lead=$((down - asked)) cal=$((ready - down))
sql() { pg_sql "$1"; }	# for expect_runs_match, expect_accounted

# Each run records its id, and its start in the file of the node that
# started it (the config file its parent tickd was started with).
node_of='$(tr "\\0" " " </proc/$PPID/cmdline | grep -o "n[0-9].conf" | cut -c1-2)'
t0=$(($(now) + 3))
for j in s1 s2 s3; do
	write_job $j.job <<EOF
[$j]
schedule = * * * * * *
command = echo "\$TICKD_RUN_ID" >> @DIR@/storm.out; date +%s%3N >> @DIR@/at.$node_of
EOF
done
# long: ends (status 3) once the server is down.  tmo: the restart is
# timed to put its timeout in the outage; it stamps the moment it
# is asked to stop.
write_job long.job <<EOF
[long]
schedule = $(at_cron $((t0 + 2)))
command = echo $node_of > @DIR@/long.node; while $pg_bin/pg_isready -q -h $PG_SOCKDIR -p $PG_PORT -t 1; do sleep 0.02; done; exit 3
EOF
write_job tmo.job <<EOF
[tmo]
schedule = $(at_cron $((t0 + 2)))
timeout = 1s
command = trap 'date +%s%3N > @DIR@/tmo.term; exit 0' TERM; while :; do sleep 0.05; done
EOF

pg_node n1
pg_node n2
for n in n1 n2; do
	log=$dir/$n.log
	wait_for "$n ready" 10 log_has "ready:"
done

# The restart asked so that (as measured) the server goes down a third
# of an outage before tmo's timeout (1 s) is due: the timeout falls in
# the outage, which spans the next second's instants too.
tmo_start() {
	sql "SELECT a.started_at FROM runs r JOIN attempts a ON a.run = r.id
	    WHERE r.job = 'tmo' AND a.started_at IS NOT NULL"
}
wait_for "tmo started" $((t0 + 10 - $(now))) eval '[ -n "$(tmo_start)" ]'
due=$(($(tmo_start) + 1000))
until [ "$(now_ms)" -ge $((due - lead - cal / 3)) ]; do
	sleep 0.01
done
pg_restart
up=$(now_ms)
wait_for "tmo stopped" 10 test -s "$dir/tmo.term"
wait_for "long's end written" 15 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '"'long'"'")" = failed ]'
# after N: the first run node N started after the restart, in ms after.
after() {
	awk -v up="$up" '$1 > up { print $1 - up; exit }' "$dir/at.$1" \
	    2>/dev/null
}
wait_for "both nodes claim again" 15 eval '[ -n "$(after n1)" ] &&
    [ -n "$(after n2)" ]'
for n in n1 n2; do
	pid_alive "$(cat "$dir/$n.pid")" || fail "$n died"
	kill -TERM "$(cat "$dir/$n.pid")"
done
for n in n1 n2; do
	wait_for "$n stopped" 10 eval '! pid_alive "$(cat "$dir/$n.pid")"'
	wait "$(cat "$dir/$n.pid")"
	expect_eq "$n: exit status" "$?" 0
done

outage
echo "outage: $((ready - down)) ms (shutdown asked to ready; $cal ms before the load,"\
    "the shutdown $lead ms after pg_ctl was run)"
echo "first claim after the restart: n1 $(after n1) ms, n2 $(after n2) ms"

# 1. Once each, nothing lost.
expect_runs_match "$dir/storm.out" "job IN ('s1', 's2', 's3')"
for j in s1 s2 s3; do
	expect_accounted $j
done

# 2. long ended in the outage; its end, exit 3, written after it.
expect_eq "long: failed, exit 3" "$(sql "SELECT r.status, a.exit_status,
    a.finished_at BETWEEN $down AND $ready FROM runs r JOIN attempts a ON
    a.run = r.id WHERE r.job = 'long'")" "failed|3|t"

# 3. The node that ran long (its end's write failed) said it lost the
# server, then that it has it again; the other did too if it used the
# server during the outage (else it reconnected at its next use, quiet).
lost="^tickd: warning: store [a-z]+: .+: runs are delayed until it is available$"
grep -Eq "$lost" "$dir/$(cat "$dir/long.node").log" ||
    fail "$(cat "$dir/long.node") did not say it lost the server"
for n in n1 n2; do
	grep -Eq "$lost" "$dir/$n.log" || continue
	echo "$n said it lost the server"
	expect_match "$n: the server lost, then back" "$(grep \
	    '^tickd: [a-z]*: store' "$dir/$n.log" | cut -d : -f 3 |
	    tr '\n' '|')" " store*| store available again after *"
done

# 4. tmo's timeout fell in the outage, and stopped it on time.
echo "tmo: due $((due - down)) ms after the shutdown asked," \
    "$((ready - due)) ms before ready"
late=$(($(cat "$dir/tmo.term") - due))
echo "tmo's timeout: the job asked to stop $late ms after it was due"
# (On a slow machine, under the sanitizers, the restart may not be where
# it was timed to be: then the timeout is not in the outage, said.)
if [ "$due" -gt "$down" ] && [ "$due" -lt "$ready" ]; then
	expect_eq "tmo stopped within 300 ms of its timeout" \
	    "$([ "$late" -ge 0 ] && [ "$late" -lt 300 ] && echo yes)" yes
else
	echo "tmo's timeout fell outside the outage: its lateness not checked"
fi
done_ok

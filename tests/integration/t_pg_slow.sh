#!/bin/sh
# One node whose every round trip to PostgreSQL is slow (100 ms, through
# a proxy): it falls behind (each instance costs a dozen round trips;
# misfire skips what it could not start in time) but settles nothing
# wrongly.  An instance whose end waits in the write
# queue is this node's own, not a claim it lost track of (a ghost), and
# every run that started ends succeeded, with its own record.  A job's
# timeout stops it on time (2 s allowed): the store's waits fire it
# (server-wait.c; -23 to -2 ms measured), where before the slow passes
# held it up (0.3 s late with per-pass budgets and turns, 3.2 s with
# budgets alone, 16 s without).  Stopped over the slow link with runs to
# end, it writes every end.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start

write_job tmo.job <<EOF
[tmo]
schedule = @yearly
timeout = 3s
command = echo "start \$(date +%s%3N)" >> @DIR@/tmo.out; trap 'echo "term \$(date +%s%3N)" >> @DIR@/tmo.out; exit 143' TERM; sleep 60 & wait
EOF
for j in 1 2 3 4 5 6 7 8 9 10 11 12; do
	write_job hold$j.job <<EOF
[hold$j]
schedule = @yearly
command = exec sleep 120
EOF
done
for j in s1 s2 s3 s4 s5 s6 s7 s8 s9 s10; do
	write_job $j.job <<EOF
[$j]
schedule = * * * * * *
command = echo "\$TICKD_RUN_ID" >> @DIR@/runs.out
EOF
done
proxy_start n1
pg_node n1 "$(proxy_dsn n1)" 6s
wait_for "n1 ready" 20 grep -q "ready:" "$dir/n1.log"
"$TICKCTL" -c "$dir/n1.conf" run tmo >/dev/null || fail "tickctl run tmo"
wait_for "tmo's start" 15 grep -qs "^start" "$dir/tmo.out"
proxy_delay n1 50
wait_for "tmo's timeout" 20 grep -qs "^term" "$dir/tmo.out"
late=$(awk '$1 == "start" {s = $2} $1 == "term" {print $2 - s - 3000}' \
    "$dir/tmo.out")
echo "tmo stopped $late ms after its timeout, round trips 100 ms"
checks=$((checks + 1))
[ "$late" -lt 2000 ] || fail "the timeout fired $late ms late"
# Runs under the slow link: several beats (lease/3 = 2 s) while ends
# wait in the queue.
before=$(lines "$dir/runs.out")
more_runs() { [ "$(lines "$dir/runs.out")" -ge $((before + 6)) ]; }
wait_for "runs under the slow link" 40 more_runs
proxy_delay n1 0
none_running() {
	[ "$(pg_sql "SELECT count(*) FROM runs WHERE status = 'running'")" = 0 ]
}
wait_for "every started run ended" 30 none_running
checks=$((checks + 1))
if grep -q "its claim was committed though the server did not answer" \
    "$dir/n1.log"; then
	fail "a run whose end waited was settled as a lost claim: $(grep 'did not answer' "$dir/n1.log" | head -3)"
fi
# (Instances it could not start in time are skipped by misfire, rows;
# the jobs go on meanwhile: the newest may be running.)
expect_eq "every run that ended succeeded" "$(pg_sql "SELECT status,
    count(*) FROM runs WHERE status NOT IN ('succeeded', 'skipped',
    'running') AND job != 'tmo' GROUP BY status")" ""
# (Up to two seconds ago: later instances may be claimed and not yet
# started, or started since the rows were read.)
cut=$(($(now) - 2))
expect_eq "the runs the jobs recorded are the rows of one attempt" \
    "$(pg_sql "SELECT run_id || ' ' || attempts FROM runs WHERE
    attempts > 0 AND job LIKE 's%' AND scheduled_at < $cut ORDER BY
    run_id")" \
    "$(awk -F@ -v c="$(rfc3339 "$cut")" '$2 < c { print $0 " 1" }' \
    "$dir/runs.out" | sort)"
expect_eq "no run twice" "$(sort "$dir/runs.out" | uniq -d)" ""
checks=$((checks + 1))
kill -0 "$(cat "$dir/n1.pid")" || fail "n1 died"

# Stopped over a slow link with twelve runs to end: every end is written
# (the stop's flush has no budget), none is left running.
for j in 1 2 3 4 5 6 7 8 9 10 11 12; do
	"$TICKCTL" -c "$dir/n1.conf" run "hold$j" >/dev/null ||
	    fail "tickctl run hold$j"
done
holding() {
	[ "$(pg_sql "SELECT count(*) FROM runs WHERE job LIKE 'hold%' AND
	    status = 'running'")" = 12 ]
}
wait_for "twelve runs held" 20 holding
proxy_delay n1 20
kill -TERM "$(cat "$dir/n1.pid")"
wait "$(cat "$dir/n1.pid")"
expect_eq "the stop: every end written" "$(pg_sql "SELECT status, count(*)
    FROM runs WHERE job LIKE 'hold%' GROUP BY status")" "terminated|12"
checks=$((checks + 1))
! grep -q "the last records could not be written" "$dir/n1.log" ||
    fail "records lost at the stop: $(grep 'could not' "$dir/n1.log")"
echo "$checks checks passed"

#!/bin/sh
# One node whose every round trip to PostgreSQL is slow (100 ms, through
# a proxy): it falls behind (each instance costs a dozen round trips) but
# settles nothing wrongly.  An instance whose end waits in the write
# queue is this node's own, not a claim it lost track of (a ghost), and
# every run that started ends succeeded, with its own record.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start

for j in s1 s2 s3 s4 s5 s6; do
	write_job $j.job <<EOF
[$j]
schedule = * * * * * *
command = echo "\$TICKD_RUN_ID" >> @DIR@/runs.out
EOF
done
proxy_start n1
cat >"$dir/n1.conf" <<EOF
[daemon]
node = n1
state = $(proxy_dsn n1)
jobs_dir = jobs.d
control = n1.sock
timezone = UTC
cgroup = none
lease = 6s
EOF
"$TICKD" -c "$dir/n1.conf" --log-target=stderr 2>"$dir/n1.log" &
echo $! >"$dir/n1.pid"
wait_for "n1 ready" 20 grep -q "ready:" "$dir/n1.log"
wait_for "the first runs" 10 test -s "$dir/runs.out"
proxy_delay n1 50
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
expect_eq "every run that started succeeded" "$(pg_sql "SELECT status,
    count(*) FROM runs WHERE status != 'succeeded' GROUP BY status")" ""
expect_eq "the server has a row for each run the jobs recorded" \
    "$(pg_sql "SELECT count(*) FROM runs WHERE attempts = 1")" \
    "$(lines "$dir/runs.out")"
expect_eq "no run twice" "$(sort "$dir/runs.out" | uniq -d)" ""
checks=$((checks + 1))
kill -0 "$(cat "$dir/n1.pid")" || fail "n1 died"
echo "$checks checks passed"

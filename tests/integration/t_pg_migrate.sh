#!/bin/sh
# tickctl migrate-state: a host's SQLite state moved to PostgreSQL, and
# back.  A daemon on SQLite builds history (runs that succeeded and
# failed, a paused job) and dies (kill -9) with a run in flight; the copy
# is refused while it runs, with a password, or into a state that holds
# jobs; once copied, a node started on PostgreSQL runs nothing twice,
# keeps the pause, settles the interrupted run by its recover policy, and
# tickctl reads the same history there; copied back into a new SQLite
# file, every run is there with the same ids.  A second host whose
# history shares the cluster's and goes on past it (a SQLite copy that a
# daemon ran on) merges into the cluster's database (--merge): every
# instance once, the cluster's records of the shared ones kept, the new
# runs with their attempts, each instant of tick a run or in one
# decision, the later cursor and either side's pause; a node then runs
# nothing the second host ran.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start

write_conf "node = t1"
write_job tick.job <<'EOF2'
[tick]
schedule = * * * * * *
command = echo "$TICKD_RUN_ID" >> @DIR@/tick.out
EOF2
write_job fails.job <<'EOF2'
[fails]
schedule = * * * * * *
command = exit 3
EOF2
write_job held.job <<'EOF2'
[held]
schedule = * * * * * *
command = echo "$TICKD_RUN_ID" >> @DIR@/held.out
EOF2
write_job long.job <<'EOF2'
[long]
schedule = @yearly
recover = rerun
command = echo $$ > @DIR@/long.pid; echo "$TICKD_RUN_ID $TICKD_ATTEMPT" >> @DIR@/long.out; exec sleep 120
EOF2
daemon_start
wait_for "runs on SQLite" 10 eval '[ "$(lines "$dir/tick.out")" -ge 3 ]'
ctl pause held >/dev/null || fail "pause held"
ctl run long >/dev/null || fail "run long"
wait_for "long's first attempt" 10 test -s "$dir/long.out"

# Refused while the daemon holds the state, or with a password.
run_cmd ctl migrate-state --to "$PG_DSN"
expect_eq "daemon running: exit" "$rc" 1
expect_match "daemon running: why" "$err" "tickctl: migrate-state: tickd (pid $tickd_pid) holds $dir/state/tickd.db: stop it first"
run_cmd ctl migrate-state --to "$PG_DSN password=secret"
expect_eq "password: exit" "$rc" 2
expect_match "password: why, not the password" "$err" "tickctl: migrate-state: --to: a password in the connection string is refused*"
checks=$((checks + 1))
case "$err" in *secret*) fail "the password was printed" ;; esac

# The host dies with long running: the daemon, then the job's process.
kill -KILL "$tickd_pid"
wait "$tickd_pid" 2>/dev/null
# (By its pid: a pattern would kill other tests' processes too.)
kill -KILL "$(cat "$dir/long.pid")"
expect_eq "on SQLite: long was running" "$(sql "SELECT status FROM runs
    WHERE job = 'long'")" running
runs=$(sql "SELECT count(*) FROM runs")
atts=$(sql "SELECT count(*) FROM attempts")
decs=$(sql "SELECT count(*) FROM decisions")
sql "SELECT run_id, status, attempts FROM runs WHERE job != 'long' ORDER BY
    run_id" >"$dir/sqlite.runs"
sql "SELECT job, sched_hash, planned, paused FROM jobs ORDER BY job" \
    >"$dir/sqlite.jobs"
ticks=$(lines "$dir/tick.out")
held=$(lines "$dir/held.out")

run_cmd ctl migrate-state --to "$PG_DSN"
expect_eq "migrate: exit" "$rc:$err" "0:"
expect_eq "migrate: what it copied" "$(printf '%s\n' "$out" | head -n 1)" \
    "copied 4 jobs, $runs runs, $atts attempts, $decs decisions from $dir/state/tickd.db to $PG_DSN"
expect_eq "on PostgreSQL: the same runs" "$(pg_sql "SELECT run_id, status,
    attempts FROM runs WHERE job != 'long' ORDER BY run_id")" \
    "$(cat "$dir/sqlite.runs")"
expect_eq "on PostgreSQL: the jobs' cursors and pauses" "$(pg_sql "SELECT
    job, sched_hash, planned, paused FROM jobs ORDER BY job")" \
    "$(cat "$dir/sqlite.jobs")"
expect_eq "on PostgreSQL: held paused, long node t1's to settle" \
    "$(pg_sql "SELECT paused FROM jobs WHERE job = 'held'"; pg_sql "SELECT
    owner FROM runs WHERE job = 'long'")" "1
t1:0"
run_cmd ctl migrate-state --to "$PG_DSN"
expect_eq "again: exit" "$rc" 1
expect_match "again: refused" "$err" "tickctl: migrate-state: --to $PG_DSN: the destination holds jobs or runs already: --merge adds this state's history to it (nothing was copied)"

# Node t1 on PostgreSQL goes on: long rerun once (recover = rerun), tick
# from its cursor, held still paused.
write_conf "node = t1" "state = $PG_DSN"
daemon_start
wait_for "long rerun on PostgreSQL" 15 eval \
    '[ "$(lines "$dir/long.out")" -ge 2 ]'
wait_for "tick runs on PostgreSQL" 10 eval \
    '[ "$(lines "$dir/tick.out")" -ge $((ticks + 2)) ]'
expect_eq "long: attempt 2 of the same instance" "$(cut -d' ' -f2 \
    "$dir/long.out" | tr '\n' ' ')" "1 2 "
expect_eq "long: one instance" "$(cut -d' ' -f1 "$dir/long.out" | sort -u |
    wc -l)" 1
expect_eq "tick: no instance twice" "$(sort "$dir/tick.out" | uniq -d)" ""
expect_eq "held: still paused" "$(lines "$dir/held.out")" "$held"
run_cmd ctl history tick --limit 1000
expect_eq "history on PostgreSQL: the SQLite runs too" "$(printf '%s\n' \
    "$out" | grep -c "$(head -n 1 "$dir/tick.out")")" 1
daemon_stop_ok

# Back into a new SQLite file.
run_cmd ctl migrate-state --to "$dir/back.db"
expect_eq "back: exit" "$rc:$err" "0:"
expect_eq "back: every run, the same ids" "$(sqlite3 "$dir/back.db" \
    "SELECT run_id, status, attempts FROM runs ORDER BY run_id")" \
    "$(pg_sql "SELECT run_id, status, attempts FROM runs ORDER BY run_id")"
expect_eq "back: the attempts" "$(sqlite3 "$dir/back.db" "SELECT count(*)
    FROM attempts")" "$(pg_sql "SELECT count(*) FROM attempts")"

# Host t2: the cluster's history, then runs of its own, tick paused there.
cp "$dir/back.db" "$dir/t2.db"
write_conf "node = t2" "state = $dir/t2.db"
db=$dir/t2.db
daemon_start
ticks=$(lines "$dir/tick.out")
wait_for "t2's runs" 10 eval '[ "$(lines "$dir/tick.out")" -ge $((ticks + 3)) ]'
ctl pause tick >/dev/null || fail "pause tick on t2"
daemon_stop_ok
pg_sql "SELECT run_id || ' ' || status || ' ' || attempts FROM runs ORDER BY
    run_id" >"$dir/pg.runs"
sql "SELECT run_id || ' ' || status || ' ' || attempts FROM runs ORDER BY
    run_id" >"$dir/t2.runs"
# t2's own: the instances the cluster does not hold.
join -v 1 "$dir/t2.runs" "$dir/pg.runs" >"$dir/t2.own"
own=$(lines "$dir/t2.own")
own_atts=$(sql "SELECT count(*) FROM attempts a JOIN runs r ON r.id = a.run
    WHERE r.run_id IN ($(awk '{ printf "%s\047%s\047", (NR > 1 ? "," : ""),
    $1 }' "$dir/t2.own"))")
pg_atts=$(pg_sql "SELECT count(*) FROM attempts")
tick_planned=$(sql "SELECT planned FROM jobs WHERE job = 'tick'")
checks=$((checks + 1))
[ "$own" -ge 3 ] || fail "t2 ran $own instances of its own"
run_cmd ctl migrate-state --to "$PG_DSN"
expect_eq "t2 without --merge: refused" "$rc" 1
run_cmd ctl migrate-state --merge --to "$PG_DSN"
expect_eq "merge: exit" "$rc:$err" "0:"
expect_match "merge: what it added" "$(printf '%s\n' "$out" | head -n 1)" \
    "merged 4 jobs, $own runs, $own_atts attempts, * decisions from $dir/t2.db into $PG_DSN"
expect_eq "merge: every instance once, the cluster's records kept" \
    "$(pg_sql "SELECT run_id || ' ' || status || ' ' || attempts FROM runs
    ORDER BY run_id")" "$(sort -m "$dir/pg.runs" "$dir/t2.own")"
expect_eq "merge: the new runs' attempts" "$(pg_sql "SELECT count(*) FROM
    attempts")" $((pg_atts + own_atts))
expect_eq "merge: tick's cursor t2's (the later), paused there; held paused" \
    "$(pg_sql "SELECT planned, paused FROM jobs WHERE job = 'tick'";
    pg_sql "SELECT paused FROM jobs WHERE job = 'held'")" "$tick_planned|1
1"
# The same into a SQLite file (back.db holds the cluster's runs as they
# were before the merge).
run_cmd ctl migrate-state --merge --to "$dir/back.db"
expect_eq "merge into SQLite: exit" "$rc:$err" "0:"
expect_eq "merge into SQLite: every instance once" "$(sqlite3 "$dir/back.db" \
    "SELECT run_id || ' ' || status || ' ' || attempts FROM runs ORDER BY
    run_id")" "$(sort -m "$dir/pg.runs" "$dir/t2.own")"
expect_eq "merge into SQLite: the attempts" "$(sqlite3 "$dir/back.db" \
    "SELECT count(*) FROM attempts")" $((pg_atts + own_atts))
sql() { pg_sql "$1"; }	# for expect_accounted
expect_accounted tick "after the merge"
run_cmd ctl migrate-state --merge --to "$PG_DSN"
expect_eq "merge again: nothing added" "$(printf '%s\n' "$out" | head -n 1)" \
    "merged 4 jobs, 0 runs, 0 attempts, 0 decisions from $dir/t2.db into $PG_DSN"

# A node on the cluster goes on after t2's instants: none run twice.
write_conf "node = t1" "state = $PG_DSN"
daemon_start
ticks=$(lines "$dir/tick.out")
ctl resume tick >/dev/null || fail "resume tick"
wait_for "tick on the cluster" 10 eval \
    '[ "$(lines "$dir/tick.out")" -ge $((ticks + 2)) ]'
daemon_stop_ok
expect_eq "tick: no instance twice, after the merge" \
    "$(sort "$dir/tick.out" | uniq -d)" ""
done_ok

#!/bin/sh
# tickd on a PostgreSQL server's database, one node: jobs run once per
# instance with every row on the server; tickctl reads the server; a
# claim committed without the daemon knowing is settled and rerun; a
# second tickd on the same control socket is refused by the node's lock;
# a password in the connection string is refused at --check.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start
write_conf "state = $PG_DSN" "node = t1" "lease = 6s"
write_job tick.job <<'EOF2'
[tick]
schedule = * * * * * *
command = echo "$TICKD_RUN_ID" >> @DIR@/out
EOF2
write_job ghost.job <<'EOF2'
[ghost]
schedule = 0 0 1 1 *
recover = rerun
command = echo "$TICKD_RUN_ID $TICKD_ATTEMPT" >> @DIR@/ghost.out
EOF2
daemon_start
wait_for "three runs" 10 eval '[ "$(lines "$dir/out")" -ge 3 ]'

# A claim committed though the daemon could not tell (the server did not
# answer its COMMIT in time): a row running under the daemon's own lease
# that it does not know.  Its next scan settles it and reruns it.
pg_sql "INSERT INTO runs (run_id, job, scheduled_at, origin, trigger,
    status, attempts, owner, lease_until, created_at) VALUES
    ('ghost@2026-01-01T00:00:00Z', 'ghost', 1767225600, 'schedule',
    'schedule', 'running', 1, 't1:$tickd_pid', 9999999999, 0);
    INSERT INTO attempts (run, attempt, trigger) SELECT id, 1, 'schedule'
    FROM runs WHERE job = 'ghost'" >/dev/null
wait_for "the ghost claim rerun" 15 test -s "$dir/ghost.out"
expect_eq "the ghost: attempt 2 ran" "$(cat "$dir/ghost.out")" \
    "ghost@2026-01-01T00:00:00Z 2"
checks=$((checks + 1))
log_has "job ghost: run ghost@2026-01-01T00:00:00Z attempt 1: its claim was committed though the server did not answer the commit in time: no process started: rerun here (recover = rerun)" ||
    fail "the ghost's settlement was not logged"

run_cmd ctl status
expect_eq "status: exit" "$rc" 0
expect_match "status: the daemon and the server" "$out" "daemon   running, pid $tickd_pid, since *
state    $PG_DSN (schema 8)*"
run_cmd ctl history tick
expect_eq "history: exit" "$rc" 0
# (The newest may be running still.)
expect_match "history: a run" "$(printf '%s\n' "$out" | grep -m 1 ' succeeded ')" \
    "tick@20*Z *schedule *succeeded *1 *"

# Every reading command answers from the server (their SQL is the
# SQLite one: the subset both accept).
id=$(pg_sql "SELECT run_id FROM runs WHERE job = 'tick' LIMIT 1")
for c in metrics stats "stats --since 1h" history "history --status \
    succeeded" "show $id" list check "status tick" "next tick" "env tick" \
    "--json status" "--json history" "--json show $id" "--json stats" \
    "--json list"; do
	# shellcheck disable=SC2086
	run_cmd ctl $c
	expect_eq "tickctl $c: exit" "$rc:$err" "0:"
done

# One write of the node's job hashes fails (after a reload that changed a
# definition; a constraint stands in for a fault that lasts a moment):
# the beat's transaction is rolled back, the heartbeat goes on, and once
# the fault is gone the node runs its jobs again.
pg_sql "ALTER TABLE node_jobs ADD CONSTRAINT fault CHECK (job <> 'tick')
    NOT VALID" >/dev/null
echo "description = changed" >>"$jobs/ghost.job"
kill -HUP "$tickd_pid"
wait_for "the failed write said" 10 log_has "store cluster: "
pg_sql "ALTER TABLE node_jobs DROP CONSTRAINT fault" >/dev/null
n=$(lines "$dir/out")
wait_for "runs again after the fault" 15 eval \
    '[ "$(lines "$dir/out")" -ge $((n + 3)) ]'
expect_eq "no transaction left open on the server" "$(pg_sql "SELECT count(*)
    FROM pg_stat_activity WHERE usename = 'tickd' AND state LIKE
    'idle in transaction%'")" 0
expect_eq "the job hashes written again" "$(pg_sql "SELECT job FROM node_jobs
    WHERE node = 't1' ORDER BY job" | tr '\n' ' ')" "ghost tick "

# Many live nodes whose definitions differ (more than a line holds, with
# long names): each is reported once, the daemon lives.
pg_sql "INSERT INTO nodes (node, owner, heartbeat_at, clock_offset_ms,
    running, defs_hash) SELECT 'node-' || g || repeat('x', 40), 'x:1',
    CAST(extract(epoch FROM clock_timestamp()) * 1000 AS bigint), 0, 0,
    'deadbeef0000000' || g FROM generate_series(1, 9) AS g" >/dev/null
wait_for "the ninth node reported" 10 log_has "node node-9$(printf '%040d' 0 |
    tr 0 x): the definitions of ghost (only here), tick (only here) differ from this node's (t1)"
checks=$((checks + 1))
pid_alive "$tickd_pid" || fail "the daemon died reporting the nodes"
expect_eq "each reported once" "$(grep -c "node node-.*: the definitions of" "$log")" 9
pg_sql "DELETE FROM nodes WHERE node LIKE 'node-%'" >/dev/null

# A second daemon for this node: the node's lock says who holds it.
run_cmd timeout $((10 * slow)) "$TICKD" -c "$dir/tickd.conf" \
    --log-target=stderr
expect_eq "a second tickd: exit" "$rc" 1
expect_match "a second tickd: why" "$err" "*node lock $dir/ctl.sock.node is in use by another tickd (pid $tickd_pid): one daemon per control socket*"

daemon_stop_ok
expect_eq "one run per instance" "$(sort "$dir/out" | uniq -d)" ""
# (The stop may end the last run: terminated, its line written or not,
# as the TERM came before its echo or after.)
expect_eq "every run is a row on the server" "$(pg_sql "SELECT run_id FROM
    runs WHERE job = 'tick' AND status = 'succeeded' ORDER BY run_id")" \
    "$(sort "$dir/out" | grep -vxF "$(pg_sql "SELECT run_id FROM runs WHERE
    job = 'tick' AND status = 'terminated'")")"
expect_eq "every attempt recorded its start (but the ghost's first)" \
    "$(pg_sql "SELECT count(*) FROM attempts WHERE pid IS NULL OR
    started_at IS NULL")" 1

# A database of schema 6 (before node_jobs, run_stops and batches) is brought to 8
# at the start.
pg_sql "DROP TABLE node_jobs, run_stops; ALTER TABLE runs DROP COLUMN parent,
    DROP COLUMN shard, DROP COLUMN shards, DROP COLUMN checkpoint;
    UPDATE meta SET value = '6' WHERE
    key = 'schema_version'" >/dev/null
daemon_start
n=$(lines "$dir/out")
wait_for "runs after the migration" 10 eval \
    '[ "$(lines "$dir/out")" -ge $((n + 2)) ]'
expect_eq "schema 8, node_jobs written" "$(pg_sql "SELECT value FROM meta
    WHERE key = 'schema_version'"; pg_sql "SELECT count(*) FROM node_jobs")" \
    "8
2"
daemon_stop_ok

# A password in the connection string: refused, the line named.
write_conf "state = $PG_DSN password=secret"
run_cmd "$TICKD" --check -c "$dir/tickd.conf"
expect_eq "password: --check exit (EX_CONFIG)" "$rc" 78
expect_match "password: the line, not the password" "$out$err" "*tickd.conf:*: state: a password in the connection string is refused*"
checks=$((checks + 1))
case "$out$err" in *secret*) fail "the password was printed" ;; esac
done_ok

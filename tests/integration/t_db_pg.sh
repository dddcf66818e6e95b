#!/bin/sh
# The db.h seam and the store on a real PostgreSQL server: test_db's
# tables run on SQLite and on PostgreSQL; then, on one connection with a
# 500 ms deadline, its backend is stopped (the call gives up at its
# deadline, the next reconnects), the server restarted between two calls
# and inside a transaction, all its processes stopped; the link through
# a TCP proxy blackholed and cut.  The times measured are printed.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start
proxy_start n1
px() {
	echo "$python $pg_tools/netproxy.py ctl $dir/px/n1.sock $1 >/dev/null"
}

checks=$((checks + 1))
out=$(TICKD_TEST_PG=$PG_DSN TICKD_TEST_PG_LOCAL=1 \
    TICKD_TEST_PG_RESTART="$(pg_restart_cmd)" \
    TICKD_TEST_PG_STOP="$(pg_signal_cmd STOP)" \
    TICKD_TEST_PG_CONT="$(pg_signal_cmd CONT)" \
    TICKD_TEST_PG_PROXY=$PROXY_DSN_n1 \
    TICKD_TEST_PG_BLACKHOLE="$(px blackhole)" \
    TICKD_TEST_PG_CUT="$(px cut)" TICKD_TEST_PG_RESTORE="$(px restore)" \
    "$B/tests/test_db" 2>&1) ||
    fail "test_db on PostgreSQL: $out"
printf '%s\n' "$out" | grep -E 'gave up|reconnected|failed after|answered in'
expect_match "test_db ran on PostgreSQL" "$(printf '%s\n' "$out" | tail -n 1)" \
    "* checks, 0 failed"
expect_eq "the schema's version" "$(pg_sql "SELECT value FROM meta
    WHERE key = 'schema_version'")" 8
expect_eq "the claim's row" "$(pg_sql "SELECT run_id, status, attempts
    FROM runs")" "j@2027-03-14T07:00:00Z|succeeded|1"
expect_eq "the output tail, bytes as written" "$(pg_sql "SELECT
    encode(output_tail, 'hex') FROM attempts")" "6f7574007075740a"
expect_eq "written after the restart" "$(pg_sql "SELECT value FROM meta
    WHERE key = 'k'")" w
done_ok

#!/bin/sh
# The db.h seam and the store on a real PostgreSQL server: test_db's
# tables run on SQLite and on PostgreSQL; then the server is restarted
# between two uses of one connection, and the next call reconnects; and
# its processes are stopped: a call gives up within its deadline.
. tests/integration/lib.sh
. tests/integration/pg.sh
setup
pg_start

checks=$((checks + 1))
out=$(TICKD_TEST_PG=$PG_DSN TICKD_TEST_PG_LOCAL=1 \
    TICKD_TEST_PG_RESTART="$(pg_restart_cmd)" \
    TICKD_TEST_PG_STOP="$(pg_signal_cmd STOP)" \
    TICKD_TEST_PG_CONT="$(pg_signal_cmd CONT)" \
    "$B/tests/test_db" 2>&1) ||
    fail "test_db on PostgreSQL: $out"
printf '%s\n' "$out" | grep -E 'a silent server|a stopped|then:|a restart'
expect_match "test_db ran on PostgreSQL" "$(printf '%s\n' "$out" | tail -n 1)" \
    "* checks, 0 failed"
expect_eq "the schema's version" "$(pg_sql "SELECT value FROM meta
    WHERE key = 'schema_version'")" 6
expect_eq "the claim's row" "$(pg_sql "SELECT run_id, status, attempts
    FROM runs")" "j@2027-03-14T07:00:00Z|succeeded|1"
expect_eq "the output tail, bytes as written" "$(pg_sql "SELECT
    encode(output_tail, 'hex') FROM attempts")" "6f7574007075740a"
expect_eq "written after the restart" "$(pg_sql "SELECT value FROM meta
    WHERE key = 'k'")" w
done_ok

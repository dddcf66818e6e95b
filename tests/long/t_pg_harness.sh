#!/bin/sh
# tests/pg.sh and tests/tools/netproxy.py, the harness of the cluster
# tests, on their own: the server answers on its socket, on TCP and
# through a proxy; the password role takes its password from the file;
# "cut" makes a query fail fast, on a new connection and on an open one;
# "blackhole" makes a new one hang until libpq's connect timeout, and an
# open connection's query is answered once restored; "delay 300" adds at
# least 600 ms to a query's round trip; a committed row survives
# pg_restart; and a test that ends by TERM to its process group (tests/run.sh's timeout) or by
# KILL leaves no server and no proxy running.  (In make check-long: the
# cluster tests of make check use all of it.)
. tests/integration/lib.sh
. tests/pg.sh
setup

# ms CMD...: run CMD, its output to $dir/ms.out; set $elapsed (how many
# milliseconds it took) and $rc.
ms() {
	_ms0=$(now_ms)
	"$@" >"$dir/ms.out" 2>&1
	rc=$?
	elapsed=$(($(now_ms) - _ms0))
}

# inner MODE: a test of its own (its own $dir, server and proxy) in a
# process group of its own, ended by MODE (TERM or KILL) sent to the
# group once its server runs; $dir/inner.MODE gets its directory, its
# postmaster's pid and its proxy's.  Started first, checked last.
inner() {
	cat >"$dir/inner.sh" <<'EOF_INNER'
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start
proxy_start x
pg_psql_at "$PROXY_DSN_x" "SELECT 1" >/dev/null || fail "inner: proxy"
echo "$dir $(pg_pid) $(cat "$dir/px/x.pid")" >"$INNER_OUT.tmp"
mv "$INNER_OUT.tmp" "$INNER_OUT"
while :; do sleep 0.2; done
EOF_INNER
	KEEP= INNER_OUT=$dir/inner.$1 setsid sh "$dir/inner.sh" \
	    >"$dir/inner.$1.log" 2>&1 &
	echo $! >"$dir/inner.$1.pid"
}
# inner_ready MODE: whether the inner test is ready; fails the test if
# it ended before (a signal from elsewhere: status 128 + its number).
inner_ready() {
	[ -s "$dir/inner.$1" ] && return 0
	_ir_pid=$(cat "$dir/inner.$1.pid")
	pid_alive "$_ir_pid" && return 1
	wait "$_ir_pid" 2>/dev/null
	fail "the inner test ($1) ended with status $? before it was ready:" \
	    "$(tail -n 5 "$dir/inner.$1.log")"
}
inner TERM
inner KILL

_t0=$(now_ms)
pg_start
echo "pg_start: $(($(now_ms) - _t0)) ms (with two more servers starting)"
expect_match "socket path" "$PG_SOCKDIR" "$dir/pg"
expect_match "conninfo" "$PG_DSN" "host=$dir/pg port=$PG_PORT user=tickd dbname=tickd"

# --- socket, TCP, a proxy, the password role ---------------------------------
expect_eq "socket: a query" "$(pg_psql "SELECT current_user, 40 + 2")" \
    "tickd|42"
expect_eq "TCP: a query" "$(pg_psql_at "$PG_DSN_TCP" "SELECT
    inet_server_port()")" "$PG_PORT"
expect_eq "fsync is on" "$(pg_psql "SHOW fsync")" on
pg_psql "CREATE TABLE t (v text); INSERT INTO t VALUES ('before')" ||
    fail "create a table"

proxy_start n1
proxy_start n2
expect_eq "the last proxy's port" "$proxy_port" "$PROXY_PORT_n2"
expect_eq "proxy_dsn" "$(proxy_dsn n1)" \
    "host=127.0.0.1 port=$PROXY_PORT_n1 user=tickd dbname=tickd"
expect_eq "through proxy n1" "$(pg_psql_at "$PROXY_DSN_n1" "SELECT v FROM t")" \
    before
expect_eq "through proxy n2" "$(pg_psql_at "$PROXY_DSN_n2" "SELECT v FROM t")" \
    before
expect_eq "proxy n1: status" "$(proxy_status n1)" "open 0 0 1"

expect_eq "password file: 0600" "$(stat -c %a "$PG_PW_FILE") $(stat -c %a \
    "$PG_PGPASS")" "600 600"
expect_eq "tickd_pw: the password from the file" "$(PGPASSWORD=$(cat \
    "$PG_PW_FILE") pg_psql_at "$PG_DSN_PW" "SELECT current_user")" tickd_pw
expect_eq "tickd_pw: the libpq password file, through a proxy" \
    "$(PGPASSFILE=$PG_PGPASS pg_psql_at "host=127.0.0.1 port=$PROXY_PORT_n1
    user=tickd_pw dbname=tickd" "SELECT v FROM t")" before
run_cmd env PGPASSWORD=wrong "$pg_bin/psql" -X -w -d "$PG_DSN_PW" -c "SELECT 1"
expect_match "tickd_pw: a wrong password refused" "$rc $err" \
    "2 *password authentication failed*"
run_cmd env PGPASSFILE=/dev/null "$pg_bin/psql" -X -w -d "$PG_DSN_PW" \
    -c "SELECT 1"
expect_match "tickd_pw: no password refused" "$rc $err" "2 *password*"

# --- an open session through n1, fed by a fifo ----------------------------
# session_start: psql on proxy n1 reading $dir/sess.in; its answers in
# $dir/sess.out, its errors in $dir/sess.err.  ask SQL: send one line.
session_start() {
	rm -f "$dir/sess.in" "$dir/sess.out" "$dir/sess.err"
	mkfifo "$dir/sess.in"
	"$pg_bin/psql" -X -q -A -t -d "$PROXY_DSN_n1" <"$dir/sess.in" \
	    >"$dir/sess.out" 2>"$dir/sess.err" &
	sess_pid=$!
	exec 3>"$dir/sess.in"
}
ask() { printf '%s\n' "$1" >&3; }
has() { grep -qx "$2" "$dir/$1" 2>/dev/null; }

# cut: the open connection fails at its next query, a new one at once.
session_start
ask "SELECT 'one';"
wait_for "the session's first answer" 5 has sess.out one
proxy_cut n1
expect_match "cut: no connection left" "$(proxy_status n1)" "cut * 0 *"
_t0=$(now_ms)
ask "SELECT 'two';"
wait_for "the session's query to fail after the cut" 2 \
    grep -q 'connection\|terminated' "$dir/sess.err"
echo "cut: the open session's query failed in $(($(now_ms) - _t0)) ms"
exec 3>&-
wait "$sess_pid"
expect_eq "cut: the session's second query unanswered" \
    "$(grep -c two "$dir/sess.out")" 0
ms "$pg_bin/psql" -X -d "$PROXY_DSN_n1" -c "SELECT 1"
_ms=$elapsed
echo "cut: a new connection failed in $_ms ms"
expect_eq "cut: a new connection fails" "$rc" 2
[ "$_ms" -lt $((1500 * slow)) ] || fail "cut: $_ms ms to fail"
expect_eq "cut: the other proxy still forwards" "$(pg_psql_at \
    "$PROXY_DSN_n2" "SELECT v FROM t")" before
proxy_restore n1
expect_eq "restore after cut" "$(pg_psql_at "$PROXY_DSN_n1" "SELECT v
    FROM t")" before

# blackhole: a new connection hangs until libpq gives up; an open
# session's query waits, and is answered once restored.
session_start
ask "SELECT 'one';"
wait_for "the session's first answer" 5 has sess.out one
proxy_blackhole n1
ask "SELECT 'two';"
ms env PGCONNECT_TIMEOUT=2 "$pg_bin/psql" -X -d "$PROXY_DSN_n1" -c "SELECT 1"
echo "blackhole: a new connection gave up after $elapsed ms" \
    "(PGCONNECT_TIMEOUT=2)"
expect_match "blackhole: libpq's connect timeout" "$rc $(cat "$dir/ms.out")" \
    "2 *timeout expired*"
[ "$elapsed" -ge 1900 ] || fail "blackhole: psql gave up after $elapsed ms"
expect_eq "blackhole: the session's query unanswered meanwhile" \
    "$(grep -c two "$dir/sess.out")" 0
expect_eq "blackhole: the session's connection still open" \
    "$(grep -c . "$dir/sess.err")" 0
proxy_restore n1
wait_for "the session's query answered once restored" 5 has sess.out two

# delay: a query on the open session takes at least a round trip more
# (2 x 300 ms).
_t0=$(now_ms)
ask "SELECT 'three';"
wait_for "the session's query" 5 has sess.out three
_base=$(($(now_ms) - _t0))
proxy_delay n1 300
_t0=$(now_ms)
ask "SELECT 'four';"
wait_for "the session's query, delayed" 5 has sess.out four
_slow=$(($(now_ms) - _t0))
echo "delay 300: a query's round trip took $_slow ms, $_base ms without"
# A lower bound only: the base is measured with wait_for's 50 ms steps.
[ "$_slow" -ge 600 ] || fail "delay 300: a round trip in $_slow ms"
expect_match "delay: status" "$(proxy_status n1)" "open 300 1 *"
proxy_delay n1 0
exec 3>&-
wait "$sess_pid"
expect_eq "restore after delay" "$(pg_psql_at "$PROXY_DSN_n1" "SELECT v
    FROM t")" before

# --- pg_restart keeps what was committed -------------------------------------
pg_psql "INSERT INTO t VALUES ('committed')" || fail "insert"
_pm=$(pg_pid)
_t0=$(now_ms)
pg_restart
echo "pg_restart: $(($(now_ms) - _t0)) ms"
[ "$(pg_pid)" != "$_pm" ] || fail "pg_restart: the same postmaster"
expect_eq "the committed row after the restart" "$(pg_psql "SELECT v FROM t
    ORDER BY v")" "before
committed"
expect_eq "through the proxy after the restart" "$(pg_psql_at \
    "$PROXY_DSN_n2" "SELECT count(*) FROM t")" 2
_t0=$(now_ms)
pg_stop
echo "pg_stop: $(($(now_ms) - _t0)) ms"
pg_running && fail "pg_stop: the server still runs"
pg_start_again
expect_eq "after pg_stop and pg_start_again" "$(pg_psql "SELECT count(*)
    FROM t")" 2

# --- the tests ended by TERM and by KILL leave nothing running ---------------
# gone_all PIDS: whether none of PIDS is alive.
gone_all() {
	for _p in "$@"; do
		pid_alive "$_p" && return 1
	done
	return 0
}
for _m in TERM KILL; do
	wait_for "the inner test ($_m) to be ready" 20 inner_ready "$_m"
	read -r _idir _ipm _ipx <"$dir/inner.$_m"
	_ikids=$(pgrep -P "$_ipm" | tr '\n' ' ')
	expect_match "inner ($_m): a server and its processes" "$_ikids" "[0-9]*"
	_ipid=$(cat "$dir/inner.$_m.pid")
	kill -"$_m" "-$_ipid"
	wait "$_ipid" 2>/dev/null	# after TERM, once its cleanup is done
	# The reaper looks once a second; the server stops within 5 s.
	wait_for "the inner test's server and proxy to end ($_m)" 10 \
	    gone_all "$_ipm" "$_ipx" $_ikids
	# (after a KILL, the reaper may still be waiting for pg_ctl or rm)
	wait_for "no process to name the inner test's directory ($_m)" 5 \
	    eval '[ -z "$(pgrep -f -- "$_idir")" ]'
	case $_m in
	TERM) expect_eq "inner (TERM): its directory removed by its cleanup" \
	    "$(ls -d "$_idir" 2>/dev/null)" "" ;;
	KILL) wait_for "the inner test's data removed by the reaper" 5 \
	    eval '[ ! -d "$_idir/pg/data" ]'
	    rm -rf "$_idir" ;;
	esac
done
done_ok

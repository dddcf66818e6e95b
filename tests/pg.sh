# pg.sh -- a PostgreSQL server of a test's own, and TCP proxies between
# the nodes and it.  Sourced after tests/integration/lib.sh, called after
# setup (it lives in $dir and is stopped by lib.sh's cleanup):
#
#	. tests/integration/lib.sh
#	. tests/pg.sh
#	setup
#	pg_start
#	proxy_start n1
#	write_conf "state = $PROXY_DSN_n1"
#	...
#	proxy_blackhole n1
#
# pg_start: initdb into $dir/pg/data and start the server there, as the
#   unprivileged user "nobody" (the server refuses root), on a Unix
#   socket in $dir/pg and on 127.0.0.1 on a free TCP port (the proxies'
#   side).  fsync and synchronous_commit stay on: tests check durability.
#   Roles: "tickd" (LOGIN, trust, owns the database "tickd"), "tickd_pw"
#   (LOGIN, a member of tickd, password only: SCRAM on the socket and
#   on TCP), "postgres" (the superuser, trust).  Returns once the
#   server accepts connections on both, or fails the test.  Skips the
#   test (exit 77) where PostgreSQL or runuser is not installed.  Sets
#   and exports:
#	PG_SOCKDIR	the socket's directory ($dir/pg)
#	PG_PORT		the TCP port, which the socket's name holds too
#	PG_DSN		libpq conninfo: tickd on tickd through the socket
#	PG_DSN_TCP	the same through 127.0.0.1:PG_PORT (no proxy)
#	PG_PW_USER	tickd_pw
#	PG_PW_FILE	a file (0600) holding tickd_pw's password, one line
#	PG_PGPASS	a libpq password file (0600) for tickd_pw on the
#			socket and on 127.0.0.1 at any port (the proxies)
#	PG_DSN_PW	conninfo: tickd_pw on tickd through the socket, no
#			password in it (from PG_PW_FILE or PGPASSFILE)
#	PG_DATA, PG_LOG	the data directory and the server's log
# pg_psql SQL: run SQL as tickd on tickd through the socket; rows
#   unaligned, tuples only, "|" between columns; exits non-zero on an
#   error.  pg_sql is the same (the name tests/integration/pg.sh used).
# pg_psql_at DSN SQL: the same on another conninfo (a proxy's).
# pg_admin SQL: the same as the superuser postgres.
# pg_stop: stop the server (-m fast), waiting for it.
# pg_start_again: start the stopped server again (same port, same data).
# pg_restart: pg_ctl restart -m fast, waiting until it accepts again.
# pg_restart_cmd, pg_signal_cmd SIG: commands that do these (for a
#   program that restarts the server or stops its processes itself).
# pg_running: whether the postmaster runs.
# pg_log_ms AFTER TEXT: the time (Unix ms) of the server log's first line
#   holding TEXT from the last holding AFTER on ("received fast shutdown
#   request", "database system is ready to accept connections": the last
#   outage).
#
# proxy_start NAME: a TCP proxy (tests/tools/netproxy.py) on 127.0.0.1
#   on a free port, forwarding to the server's; NAME is [A-Za-z0-9_]+
#   (a node's).  Sets and exports PROXY_PORT_NAME and PROXY_DSN_NAME
#   (tickd on tickd through it), and $proxy_port and $proxy_dsn (the
#   last started).  proxy_dsn NAME prints PROXY_DSN_NAME.
# proxy_cut NAME: reset its connections now and every new one (fast
#   failure).  proxy_blackhole NAME: forward nothing, close nothing (a
#   partition: the client hangs).  proxy_delay NAME MS: MS more each
#   way.  proxy_restore NAME: forward again (the delay stays).  Each
#   returns once the change is in effect.  proxy_status NAME prints
#   "MODE DELAY_MS CONNECTIONS ACCEPTED".  proxy_stop NAME.
#
# Cleanup: lib.sh's cleanup calls pg_cleanup on every exit (a failure,
# TERM from tests/run.sh's timeout): it stops the proxies and the
# server.  Against a KILL (timeout -k), pg_start also leaves a reaper
# in a session of its own that stops both once the test's shell is gone.

pg_bin=
for _v in 15 16 17 14 13; do
	[ -x /usr/lib/postgresql/$_v/bin/postgres ] &&
	    { pg_bin=/usr/lib/postgresql/$_v/bin; break; }
done
pg_user=nobody
PG_SOCKDIR= PG_PORT= PG_DATA= PG_LOG=
pg_reaper= pg_proxies=
pg_tools=$PWD/tests/tools

# _pg_as CMD...: run CMD as the server's user.
_pg_as() {
	runuser -u "$pg_user" -- "$@"
}

# _pg_free_port: a TCP port free on 127.0.0.1 now.
_pg_free_port() {
	"$python" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

_pg_ready() {
	"$pg_bin/pg_isready" -q -h "$PG_SOCKDIR" -p "$PG_PORT" -t 1 &&
	    "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -t 1
}

# _pg_ctl_start: start the server on $PG_PORT; 1 if it did not start.
_pg_ctl_start() {
	_pg_as "$pg_bin/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w \
	    -t $((30 * slow)) -o "-p $PG_PORT" start >/dev/null 2>&1
}

# _pg_initdb: $PG_DATA, a new cluster: a copy of the one cached in
# $pg_cache, else initdb's (then cached: one initdb a build directory,
# not one a test; the copy takes a tenth of initdb's time).  The cache is
# taken before the server ever ran and before the test's settings.
pg_cache=${B:-build}/pg-initdb-$(basename "$(dirname "$pg_bin")")-v1
_pg_initdb() {
	if [ -d "$pg_cache" ] && cp -a "$pg_cache" "$PG_DATA" 2>/dev/null; then
		echo "a copy of $pg_cache" >"$dir/pg/initdb.log"
		return 0
	fi
	rm -rf "$PG_DATA"
	# --no-sync: initdb's own fsync of the new files (a second); the
	# server runs with fsync on.
	_pg_as "$pg_bin/initdb" -D "$PG_DATA" -U postgres -A trust -E UTF8 \
	    --locale=C --no-sync --no-instructions >"$dir/pg/initdb.log" 2>&1 ||
	    { cat "$dir/pg/initdb.log"; fail "initdb"; }
	# Another test may be doing the same: the cache appears whole, by a
	# rename, or not at all.
	[ -d "${pg_cache%/*}" ] && cp -a "$PG_DATA" "$pg_cache.$$" 2>/dev/null &&
	    mv -T "$pg_cache.$$" "$pg_cache" 2>/dev/null
	rm -rf "$pg_cache.$$"
}

pg_start() {
	[ -n "$pg_bin" ] || { echo "PostgreSQL is not installed"; exit 77; }
	command -v runuser >/dev/null || { echo "runuser is missing"; exit 77; }
	[ -n "${dir:-}" ] && [ -d "$dir" ] || fail "pg_start before setup"
	# mktemp made $dir 0700: the server's user must reach $dir/pg.
	chmod go+x "$dir"
	PG_SOCKDIR=$dir/pg PG_DATA=$dir/pg/data PG_LOG=$dir/pg/server.log
	mkdir -m 0711 "$PG_SOCKDIR" "$dir/px" || fail "mkdir $PG_SOCKDIR"
	chown "$pg_user" "$PG_SOCKDIR"
	# The socket is $PG_SOCKDIR/.s.PGSQL.PORT: sun_path holds 107 bytes.
	[ ${#PG_SOCKDIR} -le 90 ] ||
	    fail "socket directory $PG_SOCKDIR: too long for a Unix socket"
	_pg_initdb
	cat >>"$PG_DATA/postgresql.conf" <<EOF_PG_CONF
# tests/pg.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = '$PG_SOCKDIR'
fsync = on
synchronous_commit = on
full_page_writes = on
shared_buffers = 16MB
max_connections = 60
max_wal_senders = 0
wal_level = minimal
max_parallel_workers_per_gather = 0
log_connections = on
log_disconnections = on
log_line_prefix = '%m [%p] %u@%d %r '
EOF_PG_CONF
	cat >"$PG_DATA/pg_hba.conf" <<'EOF_PG_HBA'
# tests/pg.sh: tickd_pw by password only, the others trusted
local	all	tickd_pw			scram-sha-256
host	all	tickd_pw	127.0.0.1/32	scram-sha-256
local	all	all				trust
host	all	all		127.0.0.1/32	trust
EOF_PG_HBA
	_pg_started=
	for _try in 1 2 3; do	# a port taken meanwhile: another one
		PG_PORT=$(_pg_free_port) || fail "no free TCP port"
		_pg_ctl_start && { _pg_started=1; break; }
		grep -q 'could not bind\|could not create listen' "$PG_LOG" ||
		    break
	done
	[ -n "$_pg_started" ] || { cat "$PG_LOG"; fail "pg_ctl start"; }
	_pg_reaper_start
	wait_for "the server to accept connections" 30 _pg_ready
	PG_DSN="host=$PG_SOCKDIR port=$PG_PORT user=tickd dbname=tickd"
	PG_DSN_TCP="host=127.0.0.1 port=$PG_PORT user=tickd dbname=tickd"
	PG_PW_USER=tickd_pw
	PG_PW_FILE=$dir/px/tickd_pw.password
	PG_PGPASS=$dir/px/pgpass
	PG_DSN_PW="host=$PG_SOCKDIR port=$PG_PORT user=tickd_pw dbname=tickd"
	_pg_pw=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	(umask 077 && printf '%s\n' "$_pg_pw" >"$PG_PW_FILE" &&
	    printf '%s:*:*:tickd_pw:%s\n' "$PG_SOCKDIR" "$_pg_pw" \
	    127.0.0.1 "$_pg_pw" localhost "$_pg_pw" >"$PG_PGPASS") ||
	    fail "writing the password files"
	# One statement a call: CREATE DATABASE refuses a transaction.
	pg_admin "CREATE ROLE tickd LOGIN" >/dev/null &&
	    pg_admin "CREATE DATABASE tickd OWNER tickd" >/dev/null &&
	    pg_admin "CREATE ROLE tickd_pw LOGIN IN ROLE tickd
	    PASSWORD '$_pg_pw'" >/dev/null ||
	    fail "creating the roles and the database"
	export PG_SOCKDIR PG_PORT PG_DSN PG_DSN_TCP PG_PW_USER PG_PW_FILE \
	    PG_PGPASS PG_DSN_PW PG_DATA PG_LOG
}

pg_psql_at() {
	"$pg_bin/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$1" -c "$2"
}

pg_psql() {
	pg_psql_at "$PG_DSN" "$1"
}

pg_sql() {
	pg_psql "$1"
}

pg_admin() {
	pg_psql_at "host=$PG_SOCKDIR port=$PG_PORT user=postgres dbname=postgres" "$1"
}

# pg_pid: the postmaster's pid, from postmaster.pid (empty if none).
pg_pid() {
	[ -n "$PG_DATA" ] && head -n 1 "$PG_DATA/postmaster.pid" 2>/dev/null
}

pg_running() {
	_pp=$(pg_pid)
	[ -n "$_pp" ] && pid_alive "$_pp"
}

pg_stop() {
	[ -n "$PG_DATA" ] && [ -d "$PG_DATA" ] || return 0
	_pg_as "$pg_bin/pg_ctl" -D "$PG_DATA" -m fast -w -t $((30 * slow)) \
	    stop >/dev/null 2>&1
}

pg_start_again() {
	_pg_ctl_start || { tail -n 20 "$PG_LOG"; fail "pg_ctl start"; }
	wait_for "the server to accept connections" 30 _pg_ready
}

pg_restart_cmd() {
	echo "runuser -u $pg_user -- $pg_bin/pg_ctl -D $PG_DATA -l $PG_LOG" \
	    "-m fast -w -t $((30 * slow)) -o '-p $PG_PORT' restart >/dev/null"
}

pg_log_ms() {
	_pl_n=$(grep -n "$1" "$PG_LOG" | tail -n 1 | cut -d : -f 1)
	date -d "$(tail -n +"$_pl_n" "$PG_LOG" | grep -m 1 "$2" |
	    cut -d ' ' -f 1-3)" +%s%3N
}

pg_restart() {
	sh -c "$(pg_restart_cmd)" || { tail -n 20 "$PG_LOG"; fail "pg_ctl restart"; }
	wait_for "the server to accept connections" 30 _pg_ready
}

# pg_signal_cmd SIG: a command that sends SIG to the server's processes
# (the postmaster and its children) as they are when it runs.
pg_signal_cmd() {
	echo "pm=\$(head -n 1 $PG_DATA/postmaster.pid);" \
	    "kill -$1 \$pm \$(pgrep -P \$pm)"
}

# --- nodes ---------------------------------------------------------------------

# pg_node NAME [STATE [LEASE]]: write $dir/NAME.conf, node NAME on STATE
# (default $PG_DSN) with lease LEASE (default 5s), the test's jobs.d and
# control socket NAME.sock, and start tickd on it: stderr appended to
# $dir/NAME.log, its pid in $dir/NAME.pid.
pg_node() {
	cat >"$dir/$1.conf" <<EOF
[daemon]
node = $1
state = ${2:-$PG_DSN}
jobs_dir = jobs.d
control = $1.sock
timezone = UTC
cgroup = none
lease = ${3:-5s}
EOF
	"$TICKD" -c "$dir/$1.conf" --log-target=stderr 2>>"$dir/$1.log" &
	echo $! >"$dir/$1.pid"
}

# --- proxies -------------------------------------------------------------------

proxy_start() {
	case $1 in
	"" | *[!A-Za-z0-9_]*) fail "proxy_start: bad name [$1]" ;;
	esac
	[ -n "$PG_PORT" ] || fail "proxy_start before pg_start"
	rm -f "$dir/px/$1.port"
	"$python" "$pg_tools/netproxy.py" serve \
	    --target "127.0.0.1:$PG_PORT" --control "$dir/px/$1.sock" \
	    --port-file "$dir/px/$1.port" 2>>"$dir/px/$1.log" &
	echo $! >"$dir/px/$1.pid"
	pg_proxies="$pg_proxies $1"
	wait_for "proxy $1 to listen" 10 test -s "$dir/px/$1.port"
	proxy_port=$(cat "$dir/px/$1.port")
	proxy_dsn="host=127.0.0.1 port=$proxy_port user=tickd dbname=tickd"
	eval "PROXY_PORT_$1=\$proxy_port PROXY_DSN_$1=\$proxy_dsn"
	export "PROXY_PORT_$1" "PROXY_DSN_$1"
}

proxy_dsn() {
	eval "printf '%s\n' \"\$PROXY_DSN_$1\""
}

# _proxy_ctl NAME COMMAND...: send COMMAND, print the answer's fields
# after "ok".
_proxy_ctl() {
	_pc_name=$1
	shift
	_pc_out=$("$python" "$pg_tools/netproxy.py" ctl \
	    "$dir/px/$_pc_name.sock" "$@" 2>&1) ||
	    fail "proxy $_pc_name: $*: $_pc_out"
	printf '%s\n' "${_pc_out#ok }"
}

proxy_cut() { _proxy_ctl "$1" cut >/dev/null; }
proxy_blackhole() { _proxy_ctl "$1" blackhole >/dev/null; }
proxy_delay() { _proxy_ctl "$1" delay "$2" >/dev/null; }
proxy_restore() { _proxy_ctl "$1" restore >/dev/null; }
proxy_status() { _proxy_ctl "$1" status; }

proxy_stop() {
	_ps_pid=$(cat "$dir/px/$1.pid" 2>/dev/null) || return 0
	kill -TERM "$_ps_pid" 2>/dev/null
	_ps_end=$(($(now) + 5))
	while pid_alive "$_ps_pid" && [ "$(now)" -le "$_ps_end" ]; do
		sleep 0.05
	done
	kill -KILL "$_ps_pid" 2>/dev/null
	wait "$_ps_pid" 2>/dev/null
	rm -f "$dir/px/$1.pid"
}

# --- cleanup -------------------------------------------------------------------

# _pg_kill_server: stop the server however it is (its processes may be
# stopped by SIGSTOP): fast, else immediate, else SIGKILL to the
# postmaster and its children, and then its System V shared memory
# segment, which a killed postmaster leaves behind.  Used by pg_cleanup
# and, as text, by the reaper: plain sh, variables PG_DATA, pg_bin,
# pg_user.
_pg_kill_server='
pm=$(head -n 1 "$PG_DATA/postmaster.pid" 2>/dev/null)
if [ -n "$pm" ] && kill -0 "$pm" 2>/dev/null; then
	kill -CONT "$pm" $(pgrep -P "$pm") 2>/dev/null
	runuser -u "$pg_user" -- "$pg_bin/pg_ctl" -D "$PG_DATA" -m fast -w \
	    -t 5 stop >/dev/null 2>&1 ||
	runuser -u "$pg_user" -- "$pg_bin/pg_ctl" -D "$PG_DATA" -m immediate \
	    -w -t 5 stop >/dev/null 2>&1
	if kill -0 "$pm" 2>/dev/null; then
		kill -KILL "$pm" $(pgrep -P "$pm") 2>/dev/null
		shm=$(sed -n 7p "$PG_DATA/postmaster.pid" | awk "{print \$2}")
		sleep 0.2
		[ -n "$shm" ] && ipcrm -m "$shm" 2>/dev/null
	fi
fi
'

# _pg_reaper_start: a process in a session of its own (out of reach of
# the signals tests/run.sh sends the test's process group) that waits for
# this shell to end, then stops the proxies and the server if they still
# run, and removes the data directory (unless KEEP is set; the rest of
# $dir stays, as after any test killed so): after a KILL, no trap ran.
_pg_reaper_start() {
	PG_DATA=$PG_DATA pg_bin=$pg_bin pg_user=$pg_user px=$dir/px \
	    KEEP=${KEEP:-} setsid sh -c 'while kill -0 "$0" 2>/dev/null; do sleep 1; done
	    for f in "$px"/*.pid; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	    done
	    '"$_pg_kill_server"'
	    [ -n "$KEEP" ] || rm -rf "$PG_DATA"' $$ </dev/null >/dev/null 2>&1 &
	pg_reaper=$!
}

# Called by lib.sh's cleanup, before it kills what is left in $dir.
pg_cleanup() {
	[ -n "$PG_DATA" ] || return 0
	[ -z "$pg_reaper" ] || kill -KILL "$pg_reaper" 2>/dev/null
	for _pn in $pg_proxies; do
		proxy_stop "$_pn"
	done
	PG_DATA=$PG_DATA pg_bin=$pg_bin pg_user=$pg_user \
	    sh -c "$_pg_kill_server" 2>/dev/null
	PG_DATA=
}

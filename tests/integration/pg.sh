# pg.sh -- a PostgreSQL server of a test's own, sourced after lib.sh.
#
# pg_start: initdb into a new directory under /tmp and start the server on
# a Unix socket there (no TCP), as the unprivileged user "nobody" (the
# server refuses root), with trust authentication for the role "tickd",
# and a database "tickd".  Sets PG_DSN, the connection string tickd and
# psql use.  The server is stopped by cleanup (lib.sh), whatever ends
# the test.  Skips the test (exit 77) where PostgreSQL is not installed.
#
# pg_sql SQL: run SQL as "tickd" on "tickd"; rows unaligned, "|" between
# columns.  pg_stop, pg_restart: pg_ctl's, -m fast.

pg_bin=
for _v in 17 16 15 14 13; do
	[ -x /usr/lib/postgresql/$_v/bin/postgres ] &&
	    { pg_bin=/usr/lib/postgresql/$_v/bin; break; }
done
pg_dir=

pg_start() {
	[ -n "$pg_bin" ] || { echo "PostgreSQL is not installed"; exit 77; }
	command -v runuser >/dev/null || { echo "runuser is missing"; exit 77; }
	pg_dir=$(mktemp -d /tmp/tickd-pg.XXXXXX) || fail "mktemp"
	chown nobody "$pg_dir"
	# Not on TMPDIR's disk cache alone: fsync stays on, as in production.
	runuser -u nobody -- "$pg_bin/initdb" -D "$pg_dir/data" -A trust \
	    -U tickd >"$pg_dir/initdb.log" 2>&1 ||
	    { cat "$pg_dir/initdb.log"; fail "initdb"; }
	runuser -u nobody -- "$pg_bin/pg_ctl" -D "$pg_dir/data" \
	    -l "$pg_dir/server.log" -w -t $((30 * slow)) \
	    -o "-k $pg_dir -c listen_addresses=''" start >/dev/null ||
	    { cat "$pg_dir/server.log"; fail "pg_ctl start"; }
	runuser -u nobody -- "$pg_bin/createdb" -h "$pg_dir" -U tickd tickd ||
	    fail "createdb"
	PG_DSN="host=$pg_dir user=tickd dbname=tickd"
	export PG_DSN
}

pg_sql() {
	psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$pg_dir" -U tickd -d tickd \
	    -c "$1"
}

pg_stop() {
	[ -n "$pg_dir" ] && [ -d "$pg_dir/data" ] || return 0
	runuser -u nobody -- "$pg_bin/pg_ctl" -D "$pg_dir/data" -m fast \
	    -w stop >/dev/null 2>&1
}

# pg_restart_cmd: the command that restarts the server (for a program).
pg_restart_cmd() {
	echo "runuser -u nobody -- $pg_bin/pg_ctl -D $pg_dir/data" \
	    "-l $pg_dir/server.log -m fast -w -t $((30 * slow)) restart" \
	    ">/dev/null"
}

pg_restart() {
	sh -c "$(pg_restart_cmd)" || fail "pg_ctl restart"
}

# pg_signal_cmd SIG: a command that sends SIG to the server's processes
# (the postmaster and its children) as they are when it runs.
pg_signal_cmd() {
	echo "pm=\$(head -n 1 $pg_dir/data/postmaster.pid);" \
	    "kill -$1 \$pm \$(pgrep -P \$pm)"
}

# Called by lib.sh's cleanup.
pg_cleanup() {
	[ -n "$pg_dir" ] || return 0
	[ -f "$pg_dir/data/postmaster.pid" ] &&
	    sh -c "$(pg_signal_cmd CONT)" 2>/dev/null
	pg_stop || pkill -KILL -f -- "$pg_dir/data" 2>/dev/null
	rm -rf "$pg_dir"
}

#!/bin/sh
# Cluster burst benchmark (issue 17): N jobs due in the same second, each
# running bench/stamp (as burst.sh), on
#   sqlite1  one tickd on SQLite (burst.sh's tickd row)
#   pg1      one tickd on PostgreSQL ([daemon] node = n1)
#   pg3      three tickd nodes (n1, n2, n3: each its own control socket,
#            the same jobs_dir and state) on one PostgreSQL database
# in the same run, the rows interleaved over REPEAT rounds.  The server is
# tests/pg.sh's (initdb as "nobody" in a temporary directory, a Unix
# socket, fsync and synchronous_commit on); each PostgreSQL row gets a
# fresh database (DROP DATABASE ... WITH (FORCE), CREATE DATABASE as the
# superuser).  Per row: p50/p99/max lateness of the stamps (stamp - the
# instant, ms); claims per second, N / (last - first attempts.started_at:
# the node's wall clock in ms as the fork of a claimed run returns, after
# its claim committed; every node is on this host, one clock; not
# runs.created_at, which is the loop pass's time, the same for all the
# claims of a pass); for pg3 the runs per node.  Every job's
# command is `stamp FILE $PPID:$TICKD_JOB` (the shell's parent is the
# daemon that started it: its node): the run fails loudly unless there
# are exactly N stamps, each job once, every run one attempt.
# Figures are medians over the rounds, the ratios medians of the
# per-round ratios.  Runs as root (the server runs as "nobody" through
# runuser).  Usage: sh bench/cluster.sh [N...] (default 1000);
# env B, REPEAT (3), ROWS ("sqlite1 pg1 pg3"), TICKD, LEAD (seconds from
# writing the jobs to their instant, 8: every daemon must be ready
# before it, or the run fails), TIMEOUT (s per burst, 180), STATEMENTS
# (1: pg_stat_statements' calls per run and times, after the table),
# CGROUP (default none: process groups, as the cluster tests run).
set -eu
. "$(dirname "$0")/lib.sh"
B=${B:-build}
REPEAT=${REPEAT:-3}
LEAD=${LEAD:-8}
TIMEOUT=${TIMEOUT:-180}
CGROUP=${CGROUP:-none}
sizes=${*:-1000}
rows=${ROWS:-sqlite1 pg1 pg3}
tickd=${TICKD:-$PWD/$B/tickd}
stamp=$PWD/$B/bench/stamp
[ -x "$tickd" ] && [ -x "$stamp" ] ||
    { echo "cluster.sh: build $tickd and $stamp first (make bench)" >&2; exit 2; }
# make bench goes on without it where it cannot run.
[ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null || {
	echo "cluster.sh: skipped: needs root and runuser (the server runs as" \
	    "nobody)"; exit 0; }

# What tests/pg.sh needs of tests/integration/lib.sh (whose setup would
# also set up cgroups and its own write_conf): dir, fail, wait_for, now,
# pid_alive, slow, python.
slow=1
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
now() { date +%s; }
fail() { echo "cluster.sh: FAIL: $*" >&2; exit 1; }
wait_for() {
	_wf_desc=$1 _wf_end=$(($(now) + $2))
	shift 2
	until "$@"; do
		[ "$(now)" -le "$_wf_end" ] || fail "timed out waiting for $_wf_desc"
		sleep 0.05
	done
}
pid_alive() {
	[ -r "/proc/$1/stat" ] || return 1
	case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) in
	Z* | X* | "") return 1 ;;
	esac
}
. "$(dirname "$0")/../tests/pg.sh"
[ -n "$pg_bin" ] || { echo "cluster.sh: skipped: PostgreSQL is not" \
    "installed (make deps)"; exit 0; }

umask 022
dir=$(mktemp -d /tmp/tickd-cluster.XXXXXX)
pids=
notify_pids=
waiter=
cleanup() {
	kill_wait $waiter $pids $notify_pids 2>/dev/null
	pg_cleanup 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
pg_start
# STATEMENTS=1: pg_stat_statements counts each statement's calls and time
# per PostgreSQL row (BEGIN and COMMIT included: about one a round trip),
# printed after the table.  Costs the server a little; off by default.
if [ "${STATEMENTS:-0}" = 1 ]; then
	cat >> "$PG_DATA/postgresql.conf" <<'EOF_CONF'
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
pg_stat_statements.track_utility = on
EOF_CONF
	pg_restart
	# In the database postgres: tickd's must hold tickd's tables only.
	# The view shows every database's statements.
	pg_admin "CREATE EXTENSION pg_stat_statements" >/dev/null ||
	    fail "CREATE EXTENSION pg_stat_statements"
fi

fresh_db() {
	pg_admin "DROP DATABASE IF EXISTS tickd WITH (FORCE)" >/dev/null &&
	    pg_admin "CREATE DATABASE tickd OWNER tickd" >/dev/null ||
	    fail "recreating the database"
	[ "${STATEMENTS:-0}" = 1 ] || return 0
	pg_admin "SELECT pg_stat_statements_reset()" >/dev/null ||
	    fail "pg_stat_statements"
}

# statements N WHAT: the calls per run and the time of the statements of
# this row, the busiest first, to $dir/statements.
statements() {
	[ "${STATEMENTS:-0}" = 1 ] || return 0
	{
		echo "--- $2 N=$1: calls/run, total ms, mean ms, statement"
		pg_admin "SELECT round(sum(calls) / $1.0, 2), round(sum(total_exec_time)::numeric),
		    NULL, 'all' FROM pg_stat_statements s JOIN pg_database d ON
		    d.oid = s.dbid WHERE d.datname = 'tickd'
		    UNION ALL (SELECT round(calls / $1.0, 2),
		    round(total_exec_time::numeric), round(mean_exec_time::numeric, 2),
		    left(regexp_replace(query, '\s+', ' ', 'g'), 90) FROM
		    pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
		    WHERE d.datname = 'tickd' ORDER BY calls DESC LIMIT 14)" |
		    tr '|' '\t'
	} >> "$dir/statements"
}

# start D CONF NODE: a daemon on D/CONF, READY=1 to D/NODE.notify; its
# pid appended to $pids, its pid and node to D/nodes.
start() {
	# (Its shell says "Terminated" when the listener is killed.)
	notify_start "$1/$3.nsock" "$1/$3.notify" 2>>"$1/notify.err"
	notify_pids="$notify_pids $notify_pid"
	NOTIFY_SOCKET=$1/$3.nsock "$tickd" -c "$1/$2" --log-target=stderr \
	    >"$1/$3.log" 2>&1 &
	pids="$pids $!"
	echo "$! $3" >> "$1/nodes"
}

# run_row n what -> "p50 p99 max first last count claims_per_s spread
#   xacts_per_run rollbacks lock_timeouts" (the last three "-" on SQLite)
run_row() {
	n=$1 what=$2 d=$dir/$2-$1
	rm -rf "$d"
	at=$(( $(date +%s) + LEAD ))
	# The shell's $PPID: the daemon that forked it.
	burst_dir "$d" "$n" "$at" "$stamp $d/stamps \$PPID:\$TICKD_JOB"
	: > "$d/nodes"
	case $what in
	sqlite1)
		start "$d" tickd.conf n1 ;;
	pg1 | pg3)
		fresh_db
		logsz=$(stat -c %s "$PG_LOG")
		nodes=n1
		[ "$what" = pg3 ] && nodes="n1 n2 n3"
		for k in $nodes; do
			sed -e "s|^state = .*|state = $PG_DSN|" \
			    -e "s|^control = .*|control = $d/$k.sock|" \
			    "$d/tickd.conf" > "$d/$k.conf"
			echo "node = $k" >> "$d/$k.conf"
		done
		for k in $nodes; do start "$d" "$k.conf" "$k"; done ;;
	esac
	first=$(cut -d' ' -f1 "$d/nodes" | head -n 1)
	# In the background: the shell runs its INT/TERM trap at once in a
	# wait, only after a foreground command ends.
	wait_lines "$d/stamps" "$n" "$TIMEOUT" "$first" &
	waiter=$!
	wait "$waiter" ||
	    fail "$what N=$n: $(wc -l < "$d/stamps" 2>/dev/null || echo 0)" \
	    "stamps of $n after $TIMEOUT s: $(tail -n 3 "$d"/*.log)"
	# Anything started twice would come in now.
	sleep 1
	while read -r p k; do
		grep -q ' READY=1$' "$d/$k.notify" || fail "$what: $k never ready"
		rdy=$(awk '/ READY=1$/ { print $1; exit }' "$d/$k.notify")
		[ "$rdy" -lt "$((at * 1000000000))" ] ||
		    fail "$what N=$n: $k ready $(( (rdy - at * 1000000000) / 1000000 ))" \
		    "ms after the instant: raise LEAD (now $LEAD)"
	done < "$d/nodes"
	kill_wait $pids $notify_pids 2>/dev/null
	pids= notify_pids=
	# Exactly N, each job once, one attempt each.
	got=$(wc -l < "$d/stamps")
	[ "$got" -eq "$n" ] || fail "$what N=$n: $got stamps, want $n"
	dup=$(cut -d' ' -f1 "$d/stamps" | cut -d: -f2 | sort | uniq -d | head -n 3)
	[ -z "$dup" ] || fail "$what N=$n: started twice: $dup"
	# runs.created_at is the loop pass's clock (every claim of one
	# pass has the same): the span is from the first attempt's start
	# (its fork returned, after its claim committed) to the last's.
	q="SELECT count(*), count(DISTINCT job), sum(attempts),
	    (SELECT count(*) FROM attempts), (SELECT max(started_at) -
	    min(started_at) FROM attempts) FROM runs"
	if [ "$what" = sqlite1 ]; then
		db=$(sqlite3 -separator ' ' "$d/state/tickd.db" "$q")
		srv="- - -"
	else
		db=$(pg_psql "$q" | tr '|' ' ')
		# The server's side (the database is new each row; its
		# counters are flushed as the daemons disconnect): its
		# transactions per run, rolled back ones, and statements
		# cancelled by lock_timeout (the server's log, this row's).
		sleep 0.5
		srv=$(pg_psql "SELECT round((xact_commit + xact_rollback)
		    / $n.0, 1), xact_rollback FROM pg_stat_database WHERE
		    datname = 'tickd'" | tr '|' ' ')
		srv="$srv $(tail -c +"$((logsz + 1))" "$PG_LOG" |
		    grep -c 'lock timeout' || true)"
		statements "$n" "$what"
	fi
	set -- $db
	[ "$1 $2 $3 $4" = "$n $n $n $n" ] || fail "$what N=$n: runs, distinct" \
	    "jobs, attempts in runs, attempt rows: $1 $2 $3 $4, want $n each"
	span=$5
	[ "$span" -ge 1 ] || span=1
	cps=$(awk -v n="$n" -v s="$span" 'BEGIN { printf "%.0f", n * 1000 / s }')
	# Runs per node: the stamps' daemon pid mapped to its node.
	spread=$(awk 'NR == FNR { node[$1] = $2; next }
	    { split($1, a, ":"); c[(a[1] in node) ? node[a[1]] : "?"]++ }
	    END { s = ""; for (k in c) s = s (s == "" ? "" : ",") k "=" c[k]
		  print s }' "$d/nodes" "$d/stamps" | tr ',' '\n' | sort |
	    paste -sd, -)
	cut -d' ' -f2 "$d/stamps" > "$d/ns"
	echo "$(lat_stats "$d/ns" "$((at * 1000000000))") $cps $spread $srv"
}

printf '%-6s %-8s %9s %9s %9s %9s %9s %7s %5s %5s  %s\n' N what p50_ms \
    p99_ms max_ms first_ms claims/s xact/run rollb lockto \
    'runs per node (last round)'
: > "$dir/ratios"
for n in $sizes; do
	for what in $rows; do : > "$dir/res.$what"; done
	r=0
	while [ $r -lt "$REPEAT" ]; do
		for what in $rows; do
			run_row "$n" "$what" >> "$dir/res.$what"
		done
		r=$((r + 1))
	done
	for what in $rows; do
		f=$dir/res.$what
		printf '%-6s %-8s %9s %9s %9s %9s %9s %7s %5s %5s  %s\n' \
		    "$n" "$what" \
		    "$(col_median "$f" 1)" "$(col_median "$f" 2)" \
		    "$(col_median "$f" 3)" "$(col_median "$f" 4)" \
		    "$(col_median "$f" 7)" "$(col_median "$f" 9)" \
		    "$(col_median "$f" 10)" "$(col_median "$f" 11)" \
		    "$(tail -n 1 "$f" | cut -d' ' -f8)"
	done
	line=
	for other in pg1 pg3; do
		case " $rows " in *" sqlite1 "*) ;; *) continue ;; esac
		case " $rows " in *" $other "*) ;; *) continue ;; esac
		# Fields 2 and 13: the p99 of the row and of sqlite1;
		# 7 and 18: their claims per second.
		p=$(paste -d' ' "$dir/res.$other" "$dir/res.sqlite1" | awk '
		    $13 > 0 { printf "%.2f\n", $2 / $13 }' | median)
		c=$(paste -d' ' "$dir/res.$other" "$dir/res.sqlite1" | awk '
		    $18 > 0 { printf "%.2f\n", $7 / $18 }' | median)
		line="${line:+$line, }$other/sqlite1 p99 $p claims/s $c"
	done
	[ -z "$line" ] || echo "N=$n: $line" >> "$dir/ratios"
	for what in $rows; do
		printf 'N=%s %s per round (p99 ms, claims/s):' "$n" "$what"
		awk '{ printf " %s/%s", $2, $7 }' "$dir/res.$what"
		echo
	done >> "$dir/ratios"
done
cat "$dir/ratios"
[ ! -s "$dir/statements" ] || cat "$dir/statements"
echo "(median of $REPEAT interleaved rounds; ratios: median of the per-round" \
    "ratios; a fresh database per PostgreSQL row; load: $(uptime | sed 's/.*load/load/'))"

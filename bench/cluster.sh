#!/bin/sh
# Cluster benchmark: N jobs due in the same second, each running a
# trivial program (stamp) that records its own start, on
#   sqlite1  one tickd on SQLite (burst.sh's tickd row),
#   pg1      one tickd node on a PostgreSQL database,
#   pg3      three tickd nodes (the same jobs) on one database.
# Per row: the lateness of the stamps (stamp - instant: p50, p99, max),
# the claims per second (N over the span of the runs' created_at, the
# moment each claim was written, by the store), and for pg3 how many runs
# each node started.  Every instance must run exactly once (else the
# script fails).  The rows are interleaved over REPEAT rounds, a fresh
# database each round (its schema dropped and created again); figures are
# medians, the ratios pg1/sqlite1 and pg3/sqlite1 of p99 the median of
# the per-round ratios.  PostgreSQL is tests/pg.sh's: a private server
# as an unprivileged user, on a Unix socket.  Log level info on every
# row (the per-node counts come from the logs).
# Usage: sh bench/cluster.sh [N...]; env B, REPEAT, TICKD.
. tests/integration/lib.sh
. tests/pg.sh
B=${B:-build}
REPEAT=${REPEAT:-3}
sizes=${*:-1000}
tickd=${TICKD:-$PWD/$B/tickd}
stamp=$PWD/$B/bench/stamp
TICKD=$tickd
setup
pg_start
. bench/lib.sh	# after setup: its write_conf is the bench's
pids=

stop_all() {	# stop the row's daemons
	# shellcheck disable=SC2086
	kill_wait $pids
	pids=
}

fresh_db() {	# the database emptied: the schema dropped and made again
	pg_psql_at "host=$PG_SOCKDIR port=$PG_PORT user=postgres dbname=tickd" \
	    "SET client_min_messages = warning; DROP SCHEMA public CASCADE;
	    CREATE SCHEMA public AUTHORIZATION
	    tickd" >/dev/null
}

# node_dir DIR N AT STATE NODE: a daemon's directory, its conf on STATE.
node_dir() {
	burst_dir "$1" "$2" "$3" "$stamp $dir/stamps"
	sed -i "s|^state = .*|state = $4|; s|^log_level = .*|log_level = info|" \
	    "$1/tickd.conf"
	[ -z "$5" ] || echo "node = $5" >>"$1/tickd.conf"
}

run_row() {	# what n -> "p50 p99 max first last count claims_per_s spread"
	what=$1 n=$2
	rm -rf "$dir/row" "$dir/stamps"
	mkdir -p "$dir/row"
	at=$(( $(date +%s) + 4 ))
	case $what in
	sqlite1) node_dir "$dir/row/a" "$n" "$at" state/tickd.db "" ;;
	pg1)	fresh_db
		node_dir "$dir/row/a" "$n" "$at" "$PG_DSN" n1 ;;
	pg3)	fresh_db
		for k in 1 2 3; do
			node_dir "$dir/row/n$k" "$n" "$at" "$PG_DSN" "n$k"
		done ;;
	esac
	for d in "$dir"/row/*; do
		"$tickd" -c "$d/tickd.conf" --log-target=stderr 2>"$d/log" &
		pids="$pids $!"
	done
	wait_lines "$dir/stamps" "$n" 90 "${pids##* }" ||
	    { echo "cluster.sh: $what: timeout: $(tail -3 "$dir"/row/*/log)" >&2
	    exit 1; }
	stop_all
	if [ "$what" = sqlite1 ]; then
		span=$(sqlite3 "$dir/row/a/state/tickd.db" "SELECT max(created_at)
		    - min(created_at) FROM runs")
		nrows=$(sqlite3 "$dir/row/a/state/tickd.db" "SELECT count(*)
		    FROM runs WHERE status = 'succeeded' AND attempts = 1")
	else
		span=$(pg_sql "SELECT max(created_at) - min(created_at) FROM runs")
		nrows=$(pg_sql "SELECT count(*) FROM runs WHERE
		    status = 'succeeded' AND attempts = 1")
	fi
	[ "$nrows" = "$n" ] && [ "$(lines "$dir/stamps")" = "$n" ] || {
		echo "cluster.sh: $what: $nrows runs recorded, $(lines \
		    "$dir/stamps") started, of $n instances" >&2; exit 1; }
	spread=$(for d in "$dir"/row/*; do
		grep -c ' attempt 1 started' "$d/log"; done | paste -sd/)
	cps=$(awk -v n="$n" -v s="$span" 'BEGIN {
	    if (s > 0) printf "%.0f", n * 1000 / s; else print "-" }')
	echo "$(lat_stats "$dir/stamps" "$((at * 1000000000))") $cps $spread"
}

printf '%-6s %-8s %9s %9s %9s %9s %9s  %s\n' N what p50_ms p99_ms max_ms \
    first_ms claims/s runs_per_node
rows="sqlite1 pg1 pg3"
: >"$dir/ratios"
for n in $sizes; do
	for what in $rows; do : >"$dir/res.$what"; done
	r=0
	while [ $r -lt "$REPEAT" ]; do
		for what in $rows; do
			run_row "$what" "$n" >>"$dir/res.$what"
		done
		r=$((r + 1))
	done
	for what in $rows; do
		f=$dir/res.$what
		printf '%-6s %-8s %9s %9s %9s %9s %9s  %s\n' "$n" "$what" \
		    "$(col_median "$f" 1)" "$(col_median "$f" 2)" \
		    "$(col_median "$f" 3)" "$(col_median "$f" 4)" \
		    "$(col_median "$f" 7)" "$(tail -n 1 "$f" | cut -d' ' -f8)"
	done
	for what in pg1 pg3; do
		q=$(paste -d' ' "$dir/res.$what" "$dir/res.sqlite1" | awk '
		    $2 > 0 && $10 > 0 { printf "%.2f\n", $2 / $10 }' | median)
		echo "N=$n: p99 $what/sqlite1 $q" >>"$dir/ratios"
	done
done
cat "$dir/ratios"
echo "(median of $REPEAT interleaved runs; runs_per_node: the last round's;" \
    "ratios: median of the per-round ratios)"

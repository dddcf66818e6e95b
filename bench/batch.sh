#!/bin/sh
# Batch benchmark (issue 18): one instance of N shards against N separate
# jobs due at the same instant, each process the same trivial program
# (stamp) recording its own start.  Per row: the p50/p99/last start after
# the instant (ms), the daemon's CPU time (schedstat, ms), and its writes
# per process started: write(2) calls and bytes (/proc/PID/io syscw and
# wchar; log_level = warning, so nearly all of it is the store's WAL) and
# the store's rows (runs + attempts).  Rows interleaved, medians over
# REPEAT runs; the ratios batch/jobs are medians of the per-repeat ratios
# (a shared machine drifts).  Usage: sh bench/batch.sh [N]; env B,
# REPEAT (3), TICKD.
set -eu
. "$(dirname "$0")/lib.sh"
B=${B:-build}
REPEAT=${REPEAT:-3}
N=${1:-1000}
tickd=${TICKD:-$PWD/$B/tickd}
stamp=$PWD/$B/bench/stamp
work=$(mktemp -d)
pid=
trap 'kill_wait "$pid"; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

[ -x "$stamp" ] || { echo "batch.sh: $stamp: make bench builds it" >&2; exit 1; }

# run ROW -> "p50 p99 last count cpu_ms syscw wchar rows"
run() {
	d=$work/run-$1
	rm -rf "$d"
	at=$(( $(date +%s) + 3 ))
	burst_dir "$d" "$N" "$at" "$stamp $d/stamps"
	if [ "$1" = batch ]; then
		printf '[b]\nschedule = %s * * *\nshards = %s\nexec = %s %s\n' \
		    "$(date -u -d "@$at" '+%-S %-M %-H')" "$N" "$stamp" \
		    "$d/stamps" > "$d/jobs.d/burst.job"
		# A tickd from before issue 18: say so, not a timeout.
		"$tickd" -n -c "$d/tickd.conf" >"$d/check" 2>&1 || {
			echo "batch.sh: $tickd does not accept a job with" \
			    "shards:" >&2
			grep -v '^jobs are tracked' "$d/check" >&2
			exit 1
		}
	fi
	"$tickd" -c "$d/tickd.conf" --log-target=stderr 2>"$d/log" &
	pid=$!
	io0=$(awk '/^syscw|^wchar/ { printf "%s ", $2 }' "/proc/$pid/io")
	wait_lines "$d/stamps" "$N" 120 "$pid" ||
	    { echo "timeout: $(tail -3 "$d/log")" >&2; exit 1; }
	# The last end recorded (the batch's settle, the last job's end).
	poll 60 0.1 "[ \"\$(sqlite3 '$d/state/tickd.db' \"SELECT count(*)
	    FROM runs WHERE status IN ('queued', 'running')\")\" = 0 ]" \
	    "$pid" || { echo "no end: $(tail -3 "$d/log")" >&2; exit 1; }
	cpu=$(awk '{ printf "%.1f", $1 / 1e6 }' "/proc/$pid/schedstat")
	io1=$(awk '/^syscw|^wchar/ { printf "%s ", $2 }' "/proc/$pid/io")
	kill "$pid"; wait "$pid" || true; pid=
	rows=$(sqlite3 "$d/state/tickd.db" "SELECT (SELECT count(*) FROM
	    runs) + (SELECT count(*) FROM attempts)")
	set -- $io0 $io1
	lat=$(lat_stats "$d/stamps" "$((at * 1000000000))" | cut -d' ' -f1,2,5,6)
	printf '%s %s %s %s %s\n' "$lat" "$cpu" "$(( ($4 - $2) / N ))" \
	    "$(( ($3 - $1) / N ))" "$rows"
}

for r in $(seq "$REPEAT"); do
	for row in jobs batch; do
		line=$(run $row) || exit 1
		echo "$line" >> "$work/$row"
	done
	paste -d' ' "$work/batch" "$work/jobs" | tail -n 1 | awk '{
		printf "%.3f %.3f %.3f %.3f %.3f\n", $2 / $10, $3 / $11,
		    $5 / $13, $6 / $14, $7 / $15 }' >> "$work/ratio"
done

echo "N=$N, $REPEAT repeats (medians)"
printf '%-6s %9s %9s %9s %6s %9s %8s %9s %6s\n' row p50_ms p99_ms \
    last_ms count cpu_ms writes bytes rows
for row in jobs batch; do
	printf '%-6s' "$row"
	for c in 1 2 3 4 5 6 7 8; do
		printf ' %9s' "$(col_median "$work/$row" "$c")"
	done
	echo
done
printf 'batch/jobs: p99 %s  last %s  cpu %s  writes %s  bytes %s\n' \
    "$(col_median "$work/ratio" 1)" "$(col_median "$work/ratio" 2)" \
    "$(col_median "$work/ratio" 3)" "$(col_median "$work/ratio" 4)" \
    "$(col_median "$work/ratio" 5)"

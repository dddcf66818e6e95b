#!/bin/sh
# Burst dispatch benchmark: N jobs due in the same second, each running a
# trivial program (stamp) that records its own start, against the physical
# floor: a loop that only fork+execs (and posix_spawns) the same program
# N times through /bin/sh -c (rows fork+exec, posix_spawn), the program
# itself with no shell (row exec: what tickd runs for a command without
# shell syntax, issue 20) and the same split over two loops at once (row
# exec2: both cores), and against Debian's cron (bench/cron.sh N, the
# same stamp, due in the same minute).  Lateness = start stamp - scheduled instant (tickd,
# cron) or - loop start (floor).  Figures are medians over REPEAT runs,
# the rows interleaved (one of each per repeat); the ratios are medians of
# the per-repeat ratios: the machine is shared, and its speed drifts over
# minutes.  Usage: sh bench/burst.sh [N...];
# env B, REPEAT, TICKD (another tickd binary), TICKD2 (a second one, row
# tickd2: two builds compared in one run), ROWS (which of "tickd tickd2
# fork+exec posix_spawn exec exec2 cron" to run; cron by default only as root with
# /usr/sbin/cron (make deps-bench): it takes a minute or more per run),
# CRON (cron's binary, for cron.sh).
set -eu
. "$(dirname "$0")/lib.sh"
B=${B:-build}
REPEAT=${REPEAT:-3}
sizes=${*:-10 100 1000}
if [ "$(id -u)" -eq 0 ] && [ -x "${CRON:-/usr/sbin/cron}" ]; then
	rows=${ROWS:-tickd fork+exec posix_spawn exec exec2 cron}
else
	rows=${ROWS:-tickd fork+exec posix_spawn exec exec2}
fi
tickd=${TICKD:-$PWD/$B/tickd}
stamp=$PWD/$B/bench/stamp
forkloop=$PWD/$B/bench/forkloop
cron_sh=$(dirname "$0")/cron.sh
work=$(mktemp -d)
pid=
trap 'kill_wait "$pid"; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

run_tickd() {	# n binary -> "p50 p99 max first last count cpu_ms spawn_ms"
	n=$1 d=$work/t$n
	rm -rf "$d"
	at=$(( $(date +%s) + 3 ))
	burst_dir "$d" "$n" "$at" "$stamp $d/stamps"
	"$2" -c "$d/tickd.conf" --log-target=stderr 2>"$d/log" &
	pid=$!
	wait_lines "$d/stamps" "$n" 60 \
	    "$pid" || { echo "timeout: $(tail -3 "$d/log")" >&2; exit 1; }
	# The daemon's own CPU time (its children's is not in it), in ns
	# (schedstat: utime+stime of /proc/PID/stat counts 10 ms ticks).
	cpu=$(awk '{ printf "%.1f", $1 / 1e6 }' "/proc/$pid/schedstat")
	kill "$pid"; wait "$pid" || true; pid=
	# When tickd itself says the first process started (its clone or
	# fork returned), after the claim was committed.
	spawn=$(sqlite3 "$d/state/tickd.db" "SELECT min(lateness_ms) FROM attempts")
	echo "$(lat_stats "$d/stamps" "$((at * 1000000000))") $cpu $spawn"
}

run_floor() {	# n mode -> "p50 p99 max first last count - -"
	n=$1 mode=$2 f=$work/floor$n$mode
	rm -f "$f"
	case $mode in
	spawn)	t0=$("$forkloop" -s "$n" /bin/sh -c "$stamp $f") ;;
	exec)	t0=$("$forkloop" -s "$n" "$stamp" "$f") ;;
	exec2)	# Two loops at once, half each; measured from the first start.
		"$forkloop" -s $((n / 2)) "$stamp" "$f" > "$f.t1" &
		"$forkloop" -s $((n - n / 2)) "$stamp" "$f" > "$f.t2"
		wait $!
		t0=$(sort -n "$f.t1" "$f.t2" | head -n 1) ;;
	*)	t0=$("$forkloop" "$n" /bin/sh -c "$stamp $f") ;;
	esac
	echo "$(lat_stats "$f" "$t0") - -"
}

run_cron() {	# n -> "p50 p99 max first last count - -" (cron.sh N)
	if line=$(B=$B sh "$cron_sh" "$1"); then
		echo "$line - -"
	else
		echo "burst.sh: cron.sh $1 failed" >&2
		echo "- - - - - 0 - -"
	fi
}

printf '%-6s %-14s %9s %9s %9s %9s %9s %9s\n' N what p50_ms p99_ms max_ms \
    first_ms spawn_ms cpu_ms
: > "$work/ratios"
for n in $sizes; do
	# Interleaved: each repeat runs every row once, so that a machine
	# getting slower or faster meanwhile moves all rows alike; the ratios
	# are then the median of the per-repeat ratios.
	for what in $rows; do : > "$work/res.$what"; done
	r=0
	while [ $r -lt "$REPEAT" ]; do
		for what in $rows; do
			case $what in
			tickd)		run_tickd "$n" "$tickd" ;;
			tickd2)		run_tickd "$n" "${TICKD2:?TICKD2 unset}" ;;
			fork+exec)	run_floor "$n" fork ;;
			posix_spawn)	run_floor "$n" spawn ;;
			exec)		run_floor "$n" exec ;;
			exec2)		run_floor "$n" exec2 ;;
			cron)		run_cron "$n" ;;
			*)		echo "burst.sh: unknown row $what" >&2
					exit 2 ;;
			esac >> "$work/res.$what"
		done
		r=$((r + 1))
	done
	for what in $rows; do
		f=$work/res.$what
		printf '%-6s %-14s %9s %9s %9s %9s %9s %9s\n' "$n" "$what" \
		    "$(col_median "$f" 1)" "$(col_median "$f" 2)" \
		    "$(col_median "$f" 3)" "$(col_median "$f" 4)" \
		    "$(col_median "$f" 8)" "$(col_median "$f" 7)"
	done
	line=
	for other in tickd2 fork+exec exec exec2 cron; do
		case " $rows " in *" tickd "*) ;; *) continue ;; esac
		case " $rows " in *" $other "*) ;; *) continue ;; esac
		# Fields 2 and 10: the p99 of tickd and of the other row.
		q=$(paste -d' ' "$work/res.tickd" "$work/res.$other" | awk '
		    $2 ~ /^[0-9.]+$/ && $10 ~ /^[0-9.]+$/ && $10 > 0 {
			printf "%.2f\n", $2 / $10 }' | median)
		[ -n "$q" ] && line="${line:+$line, }tickd/$other $q"
	done
	[ -z "$line" ] || echo "N=$n: p99 $line" >> "$work/ratios"
done
cat "$work/ratios"
echo "(median of $REPEAT interleaved runs; ratios: median of the per-run ratios;" \
    "fork+exec and posix_spawn run /bin/sh -c PROGRAM, exec and exec2 the program;" \
    "tickd runs the jobs' command, which has no shell syntax, directly)"

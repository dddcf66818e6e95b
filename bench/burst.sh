#!/bin/sh
# Burst dispatch benchmark: N jobs due in the same second, each running a
# trivial program (stamp) that records its own start, against the physical
# floor: a loop that only fork+execs (and posix_spawns) the same program
# N times.  Lateness = start stamp - scheduled instant (tickd) or - loop
# start (floor).  Figures are medians over REPEAT runs; compare ratios, the
# machine is shared.  Usage: sh bench/burst.sh [N...]; env B, REPEAT,
# TICKD (another tickd binary, to compare builds in one run), ROWS (which
# of "tickd fork+exec posix_spawn" to run).
set -eu
B=${B:-build}
REPEAT=${REPEAT:-3}
sizes=${*:-10 100 1000}
rows=${ROWS:-tickd fork+exec posix_spawn}
tickd=${TICKD:-$PWD/$B/tickd}
stamp=$PWD/$B/bench/stamp
forkloop=$PWD/$B/bench/forkloop
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
pid=

# stats FILE ZERO_NS: "p50 p99 max first" in ms from the stamps in FILE.
stats() {
	python3 - "$1" "$2" <<'PY'
import sys
z = int(sys.argv[2])
v = sorted((int(l) - z) / 1e6 for l in open(sys.argv[1]) if l.strip())
q = lambda p: v[min(len(v) - 1, int(p * len(v)))]
print("%.1f %.1f %.1f %.1f %d" % (q(0.5), q(0.99), v[-1], v[0], len(v)))
PY
}

# median of the values on stdin, one per line
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

run_tickd() {	# n -> "p50 p99 max first count cpu_ms spawn_ms"
	n=$1 d=$work/t$n
	rm -rf "$d"; mkdir -p "$d/jobs.d"
	cat > "$d/tickd.conf" <<CONF
[daemon]
jobs_dir = jobs.d
state = state/tickd.db
timezone = UTC
max_running = 100000
log_level = warning
CONF
	at=$(( $(date +%s) + 3 ))
	spec=$(date -u -d "@$at" '+%-S %-M %-H')
	awk -v n="$n" -v spec="$spec" -v cmd="$stamp $d/stamps" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "[j%05d]\nschedule = %s * * *\ncommand = %s\n", \
			    i, spec, cmd }' > "$d/jobs.d/burst.job"
	"$tickd" -c "$d/tickd.conf" --log-target=stderr 2>"$d/log" &
	pid=$!
	i=0
	while [ "$(cat "$d/stamps" 2>/dev/null | wc -l)" -lt "$n" ]; do
		i=$((i + 1))
		[ $i -gt 1200 ] && { echo "timeout: $(cat "$d/log" | tail -3)" >&2; exit 1; }
		sleep 0.05
	done
	# The daemon's own CPU time (its children's is not in these fields).
	cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) * 1000 / hz }' \
	    "/proc/$pid/stat")
	kill "$pid"; wait "$pid" || true; pid=
	# When tickd itself says the first process started (its clone or
	# fork returned), after the claim was committed.
	spawn=$(sqlite3 "$d/state/tickd.db" "SELECT min(lateness_ms) FROM attempts")
	echo "$(stats "$d/stamps" "$((at * 1000000000))") $cpu $spawn"
}

run_floor() {	# n mode -> "p50 p99 max first count - -"
	n=$1 mode=$2 f=$work/floor$n$mode
	rm -f "$f"
	if [ "$mode" = spawn ]; then
		t0=$("$forkloop" -s "$n" /bin/sh -c "$stamp $f")
	else
		t0=$("$forkloop" "$n" /bin/sh -c "$stamp $f")
	fi
	echo "$(stats "$f" "$t0") - -"
}

printf '%-6s %-14s %9s %9s %9s %9s %9s %9s\n' N what p50_ms p99_ms max_ms \
    first_ms spawn_ms cpu_ms
for n in $sizes; do
	for what in $rows; do
		: > "$work/res"
		r=0
		while [ $r -lt "$REPEAT" ]; do
			case $what in
			tickd)		run_tickd "$n" >> "$work/res" ;;
			fork+exec)	run_floor "$n" fork >> "$work/res" ;;
			posix_spawn)	run_floor "$n" spawn >> "$work/res" ;;
			esac
			r=$((r + 1))
		done
		p50=$(cut -d' ' -f1 "$work/res" | median)
		p99=$(cut -d' ' -f2 "$work/res" | median)
		max=$(cut -d' ' -f3 "$work/res" | median)
		first=$(cut -d' ' -f4 "$work/res" | median)
		cpu=$(cut -d' ' -f6 "$work/res" | median)
		spawn=$(cut -d' ' -f7 "$work/res" | median)
		printf '%-6s %-14s %9s %9s %9s %9s %9s %9s\n' "$n" "$what" "$p50" \
		    "$p99" "$max" "$first" "$spawn" "$cpu"
	done
done
echo "(median of $REPEAT runs; each program run through /bin/sh -c as tickd does)"

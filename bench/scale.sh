#!/bin/sh
# Scale benchmark (issue 8): JOBS jobs in FILES job files.  Measures, with
# sd_notify timestamps taken by a python3 listener on $NOTIFY_SOCKET:
#   - first start on a fresh store: exec -> READY=1
#   - restart on the existing store: exec -> READY=1
#   - SIGHUP reloads -> READY=1: nothing changed; every file touched (new
#     mtime, same content); one job's schedule changed in one file; one
#     new file of JOBS/FILES jobs added
#   - VmRSS/VmHWM after each phase, database and WAL size after the start
#   - at the end, tickd -n on the final files (load and check the
#     configuration only, no store: the parsing floor of a reload)
# No job is due while it runs: schedules avoid the current hour and the
# next two in each job's zone (a run takes minutes at 100k, not hours).
# Usage: sh bench/scale.sh; env JOBS (100000), FILES (1000), REPEAT (3,
# for the reloads and restarts: medians), B, TICKD, TIMEOUT (s per wait,
# 900), ID_ORDER (file: ids sort in file order; random: they do not),
# PERF=1 (one more reload under perf record --call-graph dwarf; the top
# of perf report, inclusive and self; PERF_STEP=one: after one job's
# schedule changed, else nothing changed),
# KEEP=1 (keep the work dir).
set -eu
. "$(dirname "$0")/lib.sh"
B=${B:-build}
JOBS=${JOBS:-100000}
FILES=${FILES:-1000}
REPEAT=${REPEAT:-3}
TIMEOUT=${TIMEOUT:-900}
ID_ORDER=${ID_ORDER:-file}
PERF=${PERF:-0}
KEEP=${KEEP:-0}
TICKD=${TICKD:-$PWD/$B/tickd}
work=$(mktemp -d "${TMPDIR:-/tmp}/tickd-scale.XXXXXX")
pid='' lpid='' ppid_perf=''
cleanup() {
	kill_wait "$ppid_perf" "$pid" "$lpid"
	if [ "$KEEP" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

conf=$work/tickd.conf
jobs=$work/jobs.d
log=$work/tickd.log
notes=$work/notify.log
res=$work/results
write_conf "$work" 'log_level = notice'
: > "$log"
: > "$res"

die() { echo "scale.sh: $*" >&2; tail -n 5 "$log" >&2; exit 1; }
now_ns() { date +%s%N; }

# --- the job files -----------------------------------------------------------

# Zones of the jobs that set one, with the current hour there: schedules
# use hours from 3 to 21 hours after it, so nothing is due for 3 hours.
zones=""
for z in Europe/Berlin America/New_York Asia/Tokyo Australia/Sydney \
    America/Los_Angeles Asia/Kolkata; do
	zones="$zones $z:$(TZ=$z date +%-H)"
done
utc_hour=$(date -u +%-H)
# A month at least five away: for schedules that must never be due now.
far_month=$(( ($(date -u +%-m) + 5) % 12 + 1 ))

# gen FIRST COUNT: the job files number FIRST .. FIRST+COUNT-1 into $jobs.
gen() {
	awk -v first="$1" -v count="$2" -v per=$((JOBS / FILES)) \
	    -v extra=$((JOBS % FILES)) -v files="$FILES" -v total="$JOBS" \
	    -v order="$ID_ORDER" -v dir="$jobs" -v zones="$zones" \
	    -v uh="$utc_hour" '
	function hour(h0) { return (h0 + 3 + int(rand() * 19)) % 24 }
	BEGIN {
		srand(42 + first)
		nz = split(zones, zl, " ")
		for (i = 1; i <= nz; i++) {
			split(zl[i], p, ":"); zname[i] = p[1]; zhour[i] = p[2]
		}
		k = 0
		for (f = 0; f < first; f++) k += per + (f < extra)
		for (f = first; f < first + count; f++) {
			name = sprintf("svc%04d", f)
			path = dir "/" name ".job"
			n = per + (f < extra)
			for (j = 0; j < n; j++) {
				if (order == "random")	# a permutation of 0..total-1
					id = sprintf("job%07d", (k * 7919) % total)
				else
					id = sprintf("%s-%03d", name, j)
				tz = ""; h0 = uh
				if (rand() < 0.25) {
					z = 1 + int(rand() * nz)
					tz = zname[z]; h0 = zhour[z]
				}
				m = int(rand() * 60); r = rand()
				if (r < 0.55)
					s = sprintf("%d %d * * *", m, hour(h0))
				else if (r < 0.70)
					s = sprintf("%d %d * * 1-5", m, hour(h0))
				else if (r < 0.80)
					s = sprintf("*/15 %d * * *", hour(h0))
				else if (r < 0.88) {
					a = hour(h0); b = hour(h0)
					if (a == b) s = sprintf("%d %d * * *", m, a)
					else if (a < b) s = sprintf("%d %d,%d * * *", m, a, b)
					else s = sprintf("%d %d,%d * * *", m, b, a)
				} else if (r < 0.94)
					s = sprintf("%d %d %d * *", m, hour(h0), 1 + int(rand() * 28))
				else if (r < 0.98)
					s = sprintf("%d %d * * 0", m, hour(h0))
				else
					s = "after 6h"
				printf "[%s]\n", id > path
				if (rand() < 0.1)
					printf "description = job %d of %s\n", j, name > path
				printf "schedule = %s\n", s > path
				if (tz != "")
					printf "timezone = %s\n", tz > path
				r = rand()
				if (r < 0.5) c = "true"
				else if (r < 0.8) c = "/bin/true"
				else c = sprintf("echo %s done", id)
				printf "command = %s\n", c > path
				if (rand() < 0.1) printf "retries = 2\n" > path
				if (rand() < 0.1) printf "timeout = 30m\n" > path
				if (rand() < 0.03)
					printf "environment = SVC=%s\n", name > path
				printf "\n" > path
				k++
			}
			close(path)
		}
	}'
}

# --- the notify listener and the daemon ---------------------------------------

notify_start "$work/notify.sock" "$notes"
lpid=$notify_pid

# wait_for COND_CMD WHAT: poll until COND_CMD succeeds, within TIMEOUT.
wait_for() {
	_rc=0
	poll "$TIMEOUT" 0.02 "$1" "$pid" || _rc=$?
	case $_rc in
	0) ;;
	2) die "tickd exited while waiting for $2" ;;
	*) die "timeout waiting for $2" ;;
	esac
}

count() { grep -c " $1\$" "$notes" || true; }
# nth MSG N: the time (ns) of the Nth message MSG.
nth() { grep " $1\$" "$notes" | sed -n "$2p" | cut -d' ' -f1; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'; }

# start: exec tickd; $last = exec -> READY=1 in ms.
start() {
	n=$(( $(count READY=1) + 1 ))
	NOTIFY_SOCKET=$work/notify.sock sh -c 'date +%s%N > "$1"; shift;
	    exec "$@"' sh "$work/t0" "$TICKD" -c "$conf" \
	    --log-target=stderr >>"$log" 2>&1 &
	pid=$!
	wait_for '[ "$(count READY=1)" -ge $n ]' "READY=1 after start"
	last=$(ms "$(cat "$work/t0")" "$(nth READY=1 $n)")
}

stop() {
	kill -TERM "$pid"
	wait "$pid" || die "tickd exited with status $? at stop"
	pid=
}

# reload: SIGHUP; $last = signal -> READY=1 in ms.
reload() {
	n=$(( $(count READY=1) + 1 ))
	t0=$(now_ns)
	kill -HUP "$pid"
	wait_for '[ "$(count READY=1)" -ge $n ]' "READY=1 after SIGHUP"
	last=$(ms "$t0" "$(nth READY=1 $n)")
}

mem() {	# "VmRSS VmHWM" in MB
	awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 }
	    END { printf "%.1f %.1f", r / 1024, h / 1024 }' "/proc/$pid/status"
}

fsize() { [ -e "$1" ] && stat -c %s "$1" || echo 0; }

# The log's new lines since the last check: warnings and errors.
logpos=0
logcheck() {	# STEP: $nlog = the count, the lines on stderr
	_n=$(tail -n +$((logpos + 1)) "$log" |
	    grep -cE '^tickd: (critical|error|warning):' || true)
	if [ "$_n" -gt 0 ]; then
		echo "scale.sh: $1: $_n warning/error lines in the log:" >&2
		tail -n +$((logpos + 1)) "$log" |
		    grep -E '^tickd: (critical|error|warning):' | head -3 >&2
	fi
	logpos=$(wc -l < "$log")
	nlog=$_n
}

# record STEP VALUE_MS
record() { echo "$1 $2" >> "$res"; }

t=$(now_ns)
gen 0 "$FILES"
gen_s=$(ms "$t" "$(now_ns)")
echo "generated $JOBS jobs in $FILES files ($(du -sh "$jobs" | cut -f1)," \
    "ids in $ID_ORDER order) in $(awk -v v="$gen_s" 'BEGIN{printf "%.1f", v/1000}') s" >&2

# --- the steps -------------------------------------------------------------------

start; record first "$last"
mem_first=$(mem)
logcheck first; log_first=$nlog
db=$(fsize "$work/state/tickd.db") wal=$(fsize "$work/state/tickd.db-wal")
stop

r=0
while [ $r -lt "$REPEAT" ]; do
	start; record restart "$last"
	mem_restart=$(mem)
	[ $r -eq $((REPEAT - 1)) ] || stop
	r=$((r + 1))
done
logcheck restart; log_restart=$nlog
db2=$(fsize "$work/state/tickd.db") wal2=$(fsize "$work/state/tickd.db-wal")

r=0
while [ $r -lt "$REPEAT" ]; do
	reload; record full "$last"
	r=$((r + 1))
done
mem_full=$(mem)
logcheck "reload, nothing changed"; log_full=$nlog

r=0
while [ $r -lt "$REPEAT" ]; do
	touch "$jobs"/*.job
	reload; record touch "$last"
	r=$((r + 1))
done
mem_touch=$(mem)
logcheck "reload, all touched"; log_touch=$nlog

# tickd reads again a file changed less than 2 s before the load that
# read it (conf.c: the same clock tick could hide a change): as when an
# administrator edits one file of many, let the touched files age, and let
# one untimed reload record them as old.
newest=$(stat -c %Z "$jobs"/*.job | sort -n | tail -n 1)
poll 30 0.2 '[ $(($(date +%s) - newest)) -ge 3 ]' || true
reload

# One job of one file in the middle gets a new schedule each time (a
# minute of a far month: never due now, whatever its zone).
one=$(ls "$jobs" | sed -n "$((FILES / 2 + 1))p")
r=0
while [ $r -lt "$REPEAT" ]; do
	awk -v s="schedule = $((r + 1)) 4 1 $far_month *" '
	    !done && /^schedule = / { print s; done = 1; next } { print }' \
	    "$jobs/$one" > "$work/one.tmp"
	mv "$work/one.tmp" "$jobs/$one"
	reload; record one "$last"
	r=$((r + 1))
done
mem_one=$(mem)
logcheck "reload, one file changed"; log_one=$nlog

# A new file of JOBS/FILES jobs each time, its ids new ("add").
r=0
while [ $r -lt "$REPEAT" ]; do
	per=$((JOBS / FILES))
	awk -v n="$per" -v r="$r" -v mon="$far_month" 'BEGIN {
		for (j = 0; j < n; j++)
			printf "[add%d-%03d]\nschedule = %d 5 2 %d *\n" \
			    "command = true\n\n", r, j, j % 60, mon }' \
	    > "$work/add.tmp"
	mv "$work/add.tmp" "$jobs/zzadd$r.job"
	reload; record add "$last"
	r=$((r + 1))
done
mem_add=$(mem)
logcheck "reload, one file added"; log_add=$nlog
njobs=$(grep 'STATUS=' "$notes" | tail -n 1 | sed 's/.*STATUS=\([0-9]*\) jobs.*/\1/')

if [ "$PERF" = 1 ]; then
	# One more full reload, profiled from SIGHUP to READY=1: perf starts
	# disabled and is switched through its control FIFO.
	mkfifo "$work/ctl" "$work/ack"
	exec 8<>"$work/ctl" 9<>"$work/ack"
	perf record -q -D -1 --control "fifo:$work/ctl,$work/ack" \
	    --call-graph dwarf,32768 -F 499 -p "$pid" -o "$work/perf.data" \
	    2>"$work/perf.err" &
	ppid_perf=$!
	pctl() {
		echo "$1" >&8
		timeout 30 head -n 1 <&9 >/dev/null ||
		    die "perf did not acknowledge '$1': $(cat "$work/perf.err")"
	}
	# PERF_STEP=one: the reload after one job's schedule changed.
	if [ "${PERF_STEP:-full}" = one ]; then
		awk -v s="schedule = 9 4 1 $far_month *" '
		    !done && /^schedule = / { print s; done = 1; next }
		    { print }' "$jobs/$one" > "$work/one.tmp"
		mv "$work/one.tmp" "$jobs/$one"
	fi
	pctl enable
	reload; perf_ms=$last
	pctl disable
	kill -INT "$ppid_perf"
	wait "$ppid_perf" || true
	ppid_perf=
	echo "--- perf: one ${PERF_STEP:-full} reload (${perf_ms} ms under perf, dwarf" \
	    "call graphs, 499 Hz); inclusive (perf report --children):"
	perf report -i "$work/perf.data" --stdio --children --sort sym \
	    -g none --percent-limit 2 2>/dev/null | grep -v '^#' |
	    grep -v '^$' | head -40
	echo "--- self time (perf report --no-children):"
	perf report -i "$work/perf.data" --stdio --no-children --sort dso,sym \
	    -g none --percent-limit 1 2>/dev/null | grep -v '^#' |
	    grep -v '^$' | head -20
	echo "---"
	logcheck "reload under perf"
fi

stop
logcheck stop

# The parsing floor: tickd -n loads and checks the same files.
r=0
while [ $r -lt "$REPEAT" ]; do
	t=$(now_ns)
	out=$("$TICKD" -n -c "$conf" 2>&1) || die "tickd -n: $out"
	record check "$(ms "$t" "$(now_ns)")"
	r=$((r + 1))
done
echo "tickd -n: $out" >&2

# --- the table ---------------------------------------------------------------------

python3 - "$res" <<PY
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    rows.setdefault(k, []).append(float(v))
names = [
    ("check", "tickd -n (the final files)", "-", "-"),
    ("first", "first start, fresh store", "$mem_first", "$log_first"),
    ("restart", "restart, existing store", "$mem_restart", "$log_restart"),
    ("full", "reload, nothing changed", "$mem_full", "$log_full"),
    ("touch", "reload, every file touched", "$mem_touch", "$log_touch"),
    ("one", "reload, one job changed", "$mem_one", "$log_one"),
    ("add", "reload, one file added", "$mem_add", "$log_add"),
]
print("%-36s %3s %10s %10s %10s %8s %8s %4s" % ("step", "n", "median_ms",
      "min_ms", "max_ms", "RSS_MB", "HWM_MB", "log"))
for k, what, mem, logn in names:
    v = rows.get(k, [])
    if not v:
        continue
    rss, hwm = mem.split() if mem != "-" else ("-", "-")
    print("%-36s %3d %10.1f %10.1f %10.1f %8s %8s %4s" % (what, len(v),
          statistics.median(v), min(v), max(v), rss, hwm, logn))
full = statistics.median(rows["full"]) if rows.get("full") else 0
one = statistics.median(rows["one"]) if rows.get("one") else 0
if full > 0:
    print("one changed / nothing changed: %.2f" % (one / full))
PY
awk -v db="$db" -v wal="$wal" -v db2="$db2" -v wal2="$wal2" 'BEGIN {
	printf "database after the first start: %.1f MB + WAL %.1f MB; " \
	    "after the restarts: %.1f MB + WAL %.1f MB\n", db / 1048576,
	    wal / 1048576, db2 / 1048576, wal2 / 1048576 }'
echo "($JOBS jobs in $FILES files, ids in $ID_ORDER order; $njobs jobs at" \
    "the end; exec or SIGHUP to READY=1 on \$NOTIFY_SOCKET, ms, median of" \
    "$REPEAT where n > 1; log = warning/error lines; $(uptime | sed 's/.*load/load/'))"

#!/bin/sh
# Steady-state benchmark (issue 8): JOBS jobs, each due once every
# PERIOD_MIN minutes, spread evenly over the seconds of the period, so that
# some are due every second (about 17 a second at 10,000 jobs and 10 min).
# Each runs /bin/sh -c 'stamp FILE $TICKD_RUN_ID': stamp appends the run
# id (job@instant) and its own start (CLOCK_REALTIME, ns).  After a
# warm-up of WARMUP seconds from READY=1, for DURATION seconds: lateness
# (start - scheduled instant) p50/p99/max of the instances due in the
# window, the daemon's CPU (utime+stime of /proc/PID/stat) and CPU per
# run, its RSS, and its context switches (all threads, /proc/PID/task/*).
# Usage: sh bench/steady.sh; env B, TICKD, JOBS (10000), PERIOD_MIN (10, a
# divisor of 60), PER_FILE (100), DURATION (180), WARMUP (20),
# READY_TIMEOUT (300), FLOOR_REPEAT (DURATION: as many samples in the
# floors as in the window, or their p99 is the max of a few dozen, blind
# to the host's stalls that tickd's p99 of hundreds sees).
set -eu
. "$(dirname "$0")/lib.sh"
B=${B:-build}
JOBS=${JOBS:-10000}
PERIOD_MIN=${PERIOD_MIN:-10}
PER_FILE=${PER_FILE:-100}
DURATION=${DURATION:-180}
WARMUP=${WARMUP:-20}
READY_TIMEOUT=${READY_TIMEOUT:-300}
TICKD=${TICKD:-$PWD/$B/tickd}
FLOOR_REPEAT=${FLOOR_REPEAT:-$DURATION}
stamp=$PWD/$B/bench/stamp
forkloop=$PWD/$B/bench/forkloop
case $PERIOD_MIN in
1|2|3|4|5|6|10|12|15|20|30|60) ;;
*) echo "PERIOD_MIN must divide 60" >&2; exit 2 ;;
esac
[ -x "$TICKD" ] && [ -x "$stamp" ] && [ -x "$forkloop" ] || {
	echo "build first: make all $B/bench/stamp $B/bench/forkloop" >&2; exit 2; }

work=$(mktemp -d)
pid='' listener=''
cleanup() {
	kill_wait "$pid" "$listener"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The helpers: the expected runs, the stamps, the statistics (the
# sd_notify listener and the /proc samples are lib.sh's).
cat > "$work/h.py" <<'PY'
import sys
from datetime import datetime, timezone

def expected(jobs, period, t0, t1):
	# Instances due in [t0, t1): job i fires when t mod period == off(i).
	jobs, period, t0, t1 = int(jobs), int(period), int(t0), int(t1)
	offs = {}
	for i in range(jobs):
		o = i * period // jobs
		offs[o] = offs.get(o, 0) + 1
	print(sum(offs.get(t % period, 0) for t in range(t0, t1)))

def stamps(path, t0, t1):
	# {run_id: lateness_ms} for the stamps of instants in [t0, t1); each
	# line is "JOB@INSTANT START_NS" (the tag is $TICKD_RUN_ID).
	t0, t1 = int(t0), int(t1)
	r = {}
	try:
		lines = open(path).read().split("\n")
	except OSError:
		return r
	for l in lines:
		p = l.split()
		if len(p) != 2 or "@" not in p[0]:
			continue
		at = int(datetime.strptime(p[0].split("@")[1], "%Y-%m-%dT%H:%M:%SZ")
		    .replace(tzinfo=timezone.utc).timestamp())
		if t0 <= at < t1:
			r[p[0]] = (int(p[1]), (int(p[1]) - at * 10**9) / 1e6)
	return r

def count(path, t0, t1):
	print(len(stamps(path, t0, t1)))

def forks(db, t0, t1):
	# {run_id: (started_at_ms, lateness_ms)}: what tickd recorded when it
	# forked (attempts.started_at is read just before the clone).
	import sqlite3
	c = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
	q = ("SELECT r.run_id, a.started_at, a.lateness_ms FROM runs r "
	    "JOIN attempts a ON a.run = r.id WHERE a.attempt = 1 AND "
	    "r.origin = 'schedule' AND r.scheduled_at >= ? AND r.scheduled_at < ?")
	r = {k: (s, l) for k, s, l in c.execute(q, (int(t0), int(t1)))}
	c.close()
	return r

def floor_lat(path):
	fl = []
	for l in open(path):
		z, t = l.split()
		fl.append((int(t) - int(z)) / 1e6)
	return sorted(fl)

def report(path, db, t0, t1, want, a, b, hz, ready, jobs, nfiles, floor,
    prefork, per):
	t0, t1, want, hz = int(t0), int(t1), int(want), int(hz)
	a = [float(x) for x in a.split()]
	b = [float(x) for x in b.split()]
	ready = [float(x) for x in ready.split()]
	st = stamps(path, t0, t1)
	fk = forks(db, t0, t1)
	v = sorted(x[1] for x in st.values())
	n = len(v)
	# Per run: tickd's lateness at fork, and from fork to the stamp
	# (clone, /bin/sh, exec of stamp).
	f = sorted(float(x[1]) for x in fk.values() if x[1] is not None)
	e = sorted((st[k][0] - fk[k][0] * 10**6) / 1e6 for k in st
	    if k in fk and fk[k][0] is not None)
	fl = floor_lat(floor)
	pf = floor_lat(prefork)
	def q(v, p):
		return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")
	def pct(v):
		return "%8.2f %8.2f %8.2f" % (q(v, 0.5), q(v, 0.99),
		    v[-1] if v else float("nan"))
	el = b[0] - a[0]
	cpu = (b[1] - a[1]) / hz
	cpu_ns = (b[2] - a[2]) / 1e9
	rows = [
	    ("jobs", "%d in %d files" % (int(jobs), int(nfiles))),
	    ("startup to READY=1", "%.2f s" % ready[0]),
	    ("window", "%d s (%.1f s measured)" % (t1 - t0, el)),
	    ("runs in window", "%d stamped, %d forked, of %d due (%.1f/s)"
		% (n, len(fk), want, n / (t1 - t0))),
	    ("lateness, ms", "%8s %8s %8s" % ("p50", "p99", "max")),
	    ("  instant to stamp", pct(v)),
	    ("  instant to fork (tickd)", pct(f)),
	    ("  fork to stamp", pct(e)),
	    ("  floor: %s spawned at once" % per, pct(fl)),
	    ("  floor: %s forked before, exec at" % per, pct(pf)),
	    ("daemon CPU (utime+stime)", "%.2f s (%.1f%% of one core)"
		% (cpu, 100 * cpu / el)),
	    ("daemon CPU (schedstat)", "%.3f s" % cpu_ns),
	    ("CPU per run", "%.0f us (schedstat %.0f us)"
		% (1e6 * cpu / max(n, 1), 1e6 * cpu_ns / max(n, 1))),
	    ("RSS at READY/start/end", "%d / %d / %d KiB"
		% (ready[1], a[5], b[5])),
	    ("voluntary ctx switches", "%.1f/s (%.1f per run)"
		% ((b[3] - a[3]) / el, (b[3] - a[3]) / max(n, 1))),
	    ("nonvoluntary ctx switches", "%.1f/s" % ((b[4] - a[4]) / el)),
	]
	w = max(len(k) for k, _ in rows)
	for k, x in rows:
		print("%-*s  %s" % (w, k, x))
	ok = n == want and n > 0 and q(v, 0.99) < 10
	print("target: lateness p99 under 10 ms: %s (the floors' p99 here: %.1f "
	    "and %.1f ms)" % ("met" if ok else "not met" if n == want else
	    "not met (runs missing)", q(fl, 0.99), q(pf, 0.99)))

getattr(sys.modules[__name__], sys.argv[1])(*sys.argv[2:])
PY
h() { python3 "$work/h.py" "$@"; }

# The jobs: job i at second offset i*P/JOBS of each period of P seconds,
# "S M/PERIOD_MIN * * * *" (seconds first), PER_FILE jobs a file.
write_conf "$work" 'max_running = 100000' 'log_level = warning'
awk -v n="$JOBS" -v pm="$PERIOD_MIN" -v per="$PER_FILE" -v d="$work/jobs.d" \
    -v cmd="$stamp $work/stamps \$TICKD_RUN_ID" 'BEGIN {
	p = pm * 60
	for (i = 0; i < n; i++) {
		o = int(i * p / n)
		f = sprintf("%s/s%05d.job", d, int(i / per))
		printf "[j%06d]\nschedule = %d %d/%d * * * *\ncommand = %s\n\n", \
		    i, o % 60, int(o / 60), pm, cmd > f
		if ((i + 1) % per == 0) close(f)
	} }'
nfiles=$(ls "$work/jobs.d" | wc -l)

notify_start "$work/notify.sock" "$work/notify.out"
listener=$notify_pid

t_start=$(date +%s%N)
NOTIFY_SOCKET=$work/notify.sock "$TICKD" -c "$work/tickd.conf" \
    --log-target=stderr 2>"$work/log" &
pid=$!
rc=0
poll "$READY_TIMEOUT" 0.1 'grep -q " READY=1$" "$work/notify.out" 2>/dev/null' \
    "$pid" || rc=$?
case $rc in
0) ;;
2) echo "tickd exited:" >&2; tail -5 "$work/log" >&2; exit 1 ;;
*) echo "not ready after $READY_TIMEOUT s" >&2; exit 1 ;;
esac
t_ready=$(grep ' READY=1$' "$work/notify.out" | head -n 1 | cut -d' ' -f1)
rss_ready=$(proc_sample 0 "$pid" | cut -d' ' -f6)
ready="$(python3 -c "print(($t_ready - $t_start) / 1e9)") $rss_ready"

# The window: whole seconds, from WARMUP s after READY=1.
t0=$(python3 -c "import math; print(math.ceil($t_ready / 1e9 + $WARMUP))")
t1=$((t0 + DURATION))
a=$(proc_sample "$t0" "$pid")
b=$(proc_sample "$t1" "$pid")

# Wait for the stamps of every instance due in the window (the last ones
# may still be starting), at most 30 s.
want=$(h expected "$JOBS" $((PERIOD_MIN * 60)) "$t0" "$t1")
poll 30 0.2 '[ "$(h count "$work/stamps" "$t0" "$t1")" -ge "$want" ]' || true

kill "$pid"; wait "$pid" || true; pid=

# The floor: the same programs due at one instant, started by posix_spawn
# (tickd uses clone(CLONE_VM|CLONE_VFORK)) with no scheduler, once a second
# (as in the window) FLOOR_REPEAT times; each from the start of its loop.
# Then the floor of any scheduler that starts nothing early: forked in
# advance, each sleeping until the instant, then exec (forkloop -p).
per=$(( (JOBS + PERIOD_MIN * 60 - 1) / (PERIOD_MIN * 60) ))
for mode in -s -p; do
	r=0
	while [ "$r" -lt "$FLOOR_REPEAT" ]; do
		sleep_until "$(( $(date +%s) + 1 ))"
		t=$("$forkloop" "$mode" "$per" /bin/sh -c "$stamp $work/f$mode$r")
		sed "s/^/$t /" "$work/f$mode$r" >> "$work/floor$mode"
		r=$((r + 1))
	done
done

h report "$work/stamps" "$work/state/tickd.db" "$t0" "$t1" "$want" "$a" \
    "$b" "$(getconf CLK_TCK)" "$ready" "$JOBS" "$nfiles" "$work/floor-s" \
    "$work/floor-p" "$per"
echo "(steady state: $JOBS jobs, each every $PERIOD_MIN min, spread evenly," \
    "up to $per due at each second; lateness = the job's own start -" \
    "its instant; floors: $FLOOR_REPEAT x $per posix_spawns at once, and" \
    "$FLOOR_REPEAT x $per forked early, exec at the instant;" \
    "CPU and switches: the daemon alone, not its jobs)"
if [ -s "$work/log" ]; then
	echo "daemon log: $(wc -l < "$work/log") lines at warning or above;" \
	    "the first:" >&2
	head -n 3 "$work/log" >&2
fi

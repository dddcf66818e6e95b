#!/bin/sh
# Steady-state benchmark (issue 8): JOBS jobs, each due once every
# PERIOD_MIN minutes, spread evenly over the seconds of the period, so that
# some are due every second (about 17 a second at 10,000 jobs and 10 min).
# Each runs /bin/sh -c 'stamp FILE $TICKD_RUN_ID': stamp appends the run
# id (job@instant) and its own start (CLOCK_REALTIME, ns).  After a
# warm-up of WARMUP seconds from READY=1, REPEAT windows of DURATION
# seconds back to back: lateness (start - scheduled instant) of the
# instances due in each, p50/p99/max pooled and each window's p99 with
# their median; the daemon's CPU (utime+stime of /proc/PID/stat) and CPU
# per run, its RSS, and its context switches (all threads).
# The floors run in the same windows, half a second after each of tickd's
# instants, so that both see the same host (its stalls come and go over
# minutes): every other second the same number of `sh -c stamp`
# posix_spawned at once at the half second (forkloop -s -t), or forked
# before it and each exec'd at it (forkloop -p -t), measured from that
# instant as tickd's lateness is.
# Usage: sh bench/steady.sh; env B, TICKD, JOBS (10000), PERIOD_MIN (10, a
# divisor of 60), PER_FILE (100), DURATION (60), REPEAT (3), WARMUP (20),
# READY_TIMEOUT (300), TICKD_ENV (NAME=VALUE ... for the daemon alone,
# e.g. a slow disk: "LD_PRELOAD=$PWD/build/bench/slowsync.so").
set -eu
. "$(dirname "$0")/lib.sh"
B=${B:-build}
JOBS=${JOBS:-10000}
PERIOD_MIN=${PERIOD_MIN:-10}
PER_FILE=${PER_FILE:-100}
DURATION=${DURATION:-60}
REPEAT=${REPEAT:-3}
WARMUP=${WARMUP:-20}
READY_TIMEOUT=${READY_TIMEOUT:-300}
TICKD=${TICKD:-$PWD/$B/tickd}
stamp=$PWD/$B/bench/stamp
forkloop=$PWD/$B/bench/forkloop
case $PERIOD_MIN in
1|2|3|4|5|6|10|12|15|20|30|60) ;;
*) echo "PERIOD_MIN must divide 60" >&2; exit 2 ;;
esac
[ -x "$TICKD" ] && [ -x "$stamp" ] && [ -x "$forkloop" ] || {
	echo "build first: make all $B/bench/stamp $B/bench/forkloop" >&2; exit 2; }

work=$(mktemp -d)
pid='' listener='' floors=''
cleanup() {
	kill_wait "$pid" "$listener" "$floors"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The helpers: the expected runs, the stamps, the statistics (the
# sd_notify listener and the /proc samples are lib.sh's).
cat > "$work/h.py" <<'PY'
import statistics, sys
from datetime import datetime, timezone

def expected(jobs, period, t0, t1):
	# Instances due in [t0, t1): job i fires when t mod period == off(i).
	jobs, period, t0, t1 = int(jobs), int(period), int(t0), int(t1)
	offs = {}
	for i in range(jobs):
		o = i * period // jobs
		offs[o] = offs.get(o, 0) + 1
	print(sum(offs.get(t % period, 0) for t in range(t0, t1)))

def instant(run_id):
	# The scheduled instant (s) of a run id, JOB@RFC3339.
	return int(datetime.strptime(run_id.split("@")[1], "%Y-%m-%dT%H:%M:%SZ")
	    .replace(tzinfo=timezone.utc).timestamp())

def pairs(path):
	# The lines "TAG NS" of a stamp file (none if it is missing).
	try:
		lines = open(path).read().split("\n")
	except OSError:
		return []
	return [p for p in (l.split() for l in lines) if len(p) == 2]

def stamps(path, t0, t1):
	# {run_id: lateness_ms} for the stamps of instants in [t0, t1); each
	# line is "JOB@INSTANT START_NS" (the tag is $TICKD_RUN_ID).
	t0, t1 = int(t0), int(t1)
	r = {}
	for p in pairs(path):
		if "@" not in p[0]:
			continue
		at = instant(p[0])
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

def floors(forkloop, stamp, out, per, t0, t1):
	# The floors, between tickd's instants: at s + 0.5 for each second s
	# of [t0, t1), alternately spawned at once and forked before.
	import subprocess, time
	for t in range(int(t0), int(t1)):
		d = t + 0.25 - time.time()
		if d > 0:
			time.sleep(d)
		m = "-s" if (t - int(t0)) % 2 == 0 else "-p"
		at = t * 10**9 + 5 * 10**8
		subprocess.run([forkloop, m, "-t", str(at), per, "/bin/sh", "-c",
		    "%s %s%s %d" % (stamp, out, m, at)], stdout=subprocess.DEVNULL)

def floor_lat(path, t0, t1):
	# {instant_ns: [lateness_ms]} of the floor's stamps "AT_NS NOW_NS".
	r = {}
	for p in pairs(path):
		if t0 <= int(p[0]) // 10**9 < t1:
			r.setdefault(int(p[0]), []).append((int(p[1]) - int(p[0])) / 1e6)
	return r

def q(v, p):
	v = sorted(v)
	return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")

def report(path, db, t0, t1, repeat, want, a, b, hz, ready, jobs, nfiles,
    floor, prefork, per):
	t0, t1, repeat, want, hz = int(t0), int(t1), int(repeat), int(want), int(hz)
	a = [float(x) for x in a.split()]
	b = [float(x) for x in b.split()]
	ready = [float(x) for x in ready.split()]
	st = stamps(path, t0, t1)
	fk = forks(db, t0, t1)
	n = len(st)
	fl = floor_lat(floor, t0, t1)
	pf = floor_lat(prefork, t0, t1)
	# Per window [w0, w1): each measure's values.
	def measures(w0, w1):
		ks = [k for k in st if w0 <= instant(k) < w1]
		return [
		    [st[k][1] for k in ks],
		    [float(fk[k][1]) for k in fk if w0 <= instant(k) < w1 and
			fk[k][1] is not None],
		    [(st[k][0] - fk[k][0] * 10**6) / 1e6 for k in ks
			if k in fk and fk[k][0] is not None],
		    [x for i, v in fl.items() if w0 <= i // 10**9 < w1 for x in v],
		    [x for i, v in pf.items() if w0 <= i // 10**9 < w1 for x in v]]
	names = ["  instant to stamp", "  instant to fork (tickd)",
	    "  fork to stamp", "  floor: %s spawned at once" % per,
	    "  floor: %s forked before, exec at" % per]
	d = (t1 - t0) // repeat
	win = [measures(t0 + i * d, t0 + (i + 1) * d) for i in range(repeat)]
	pool = measures(t0, t1)
	def pct(v):
		v = sorted(v)
		return "%8.2f %8.2f %8.2f" % (q(v, 0.5), q(v, 0.99),
		    v[-1] if v else float("nan"))
	p99 = [[q(w[m], 0.99) for w in win] for m in range(5)]
	med = [statistics.median(x) for x in p99]
	ratio = [p99[0][i] / p99[3][i] for i in range(repeat)]
	el = b[0] - a[0]
	cpu = (b[1] - a[1]) / hz
	cpu_ns = (b[2] - a[2]) / 1e9
	rows = [
	    ("jobs", "%d in %d files" % (int(jobs), int(nfiles))),
	    ("startup to READY=1", "%.2f s" % ready[0]),
	    ("windows", "%d x %d s, back to back (%.1f s measured)" %
		(repeat, d, el)),
	    ("runs in windows", "%d stamped, %d forked, of %d due (%.1f/s)"
		% (n, len(fk), want, n / (t1 - t0))),
	    ("lateness, ms, pooled", "%8s %8s %8s" % ("p50", "p99", "max"))]
	rows += [(names[m], pct(pool[m])) for m in range(5)]
	rows += [("lateness p99, ms, by window", " ".join("%8s" % ("w%d" % (i + 1))
	    for i in range(repeat)) + "   median")]
	rows += [(names[m], " ".join("%8.2f" % x for x in p99[m]) +
	    " %8.2f" % med[m]) for m in range(5)]
	rows += [
	    ("  to stamp / spawn floor", " ".join("%8.2f" % x for x in ratio) +
		" %8.2f" % statistics.median(ratio)),
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
	ok = n == want and n > 0 and med[0] < 10
	print("target: lateness p99 under 10 ms (median of the windows): %s "
	    "(the floors' here: %.1f and %.1f ms)" % ("met" if ok else
	    "not met" if n == want else "not met (runs missing)", med[3],
	    med[4]))

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
# shellcheck disable=SC2086
env NOTIFY_SOCKET="$work/notify.sock" ${TICKD_ENV:-} "$TICKD" -c "$work/tickd.conf" \
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

# The windows: whole seconds, from WARMUP s after READY=1; the floors run
# in them (h floors), between tickd's instants.
per=$(( (JOBS + PERIOD_MIN * 60 - 1) / (PERIOD_MIN * 60) ))
t0=$(python3 -c "import math; print(math.ceil($t_ready / 1e9 + $WARMUP))")
t1=$((t0 + DURATION * REPEAT))
h floors "$forkloop" "$stamp" "$work/floor" "$per" "$t0" "$t1" &
floors=$!
a=$(proc_sample "$t0" "$pid")
b=$(proc_sample "$t1" "$pid")

# Wait for the stamps of every instance due in the windows (the last ones
# may still be starting), at most 30 s.
want=$(h expected "$JOBS" $((PERIOD_MIN * 60)) "$t0" "$t1")
poll 30 0.2 '[ "$(h count "$work/stamps" "$t0" "$t1")" -ge "$want" ]' || true
wait "$floors"; floors=
kill "$pid"; wait "$pid" || true; pid=

h report "$work/stamps" "$work/state/tickd.db" "$t0" "$t1" "$REPEAT" \
    "$want" "$a" "$b" "$(getconf CLK_TCK)" "$ready" "$JOBS" "$nfiles" \
    "$work/floor-s" "$work/floor-p" "$per"
echo "(steady state: $JOBS jobs, each every $PERIOD_MIN min, spread evenly," \
    "up to $per due at each second; lateness = the job's own start -" \
    "its instant; floors, in the same windows at each half second," \
    "alternately: $per posix_spawned at once, $per forked early and" \
    "exec'd at it; CPU and switches: the daemon alone, not its jobs)"
if [ -s "$work/log" ]; then
	echo "daemon log: $(wc -l < "$work/log") lines at warning or above;" \
	    "the first:" >&2
	head -n 3 "$work/log" >&2
fi

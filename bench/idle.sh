#!/bin/sh
# Idle-cost benchmark (issue 8): two daemons side by side, one with SMALL
# jobs and one with LARGE jobs, none of them due for hours (each job daily,
# in the hour that starts about 12 h from now, spread over its minutes),
# PER_FILE jobs a file.  Each daemon has its own configuration, jobs
# directory, store and control socket.  They are started one after the
# other (startup = launch to READY=1 on NOTIFY_SOCKET); then, over the same
# IDLE_SECONDS window, each one's context switches (voluntary +
# nonvoluntary, all threads: every wake-up of a sleeping daemon is a
# voluntary switch) and CPU time (utime+stime from /proc/PID/stat, and the
# ns-resolution sum of /proc/PID/task/*/schedstat).  The cost must not grow
# with the number of jobs: the last row is LARGE / SMALL.
# Usage: sh bench/idle.sh; env B, TICKD, SMALL (1000), LARGE (100000),
# PER_FILE (100), IDLE_SECONDS (300), READY_TIMEOUT (900).
set -eu
. "$(dirname "$0")/lib.sh"
B=${B:-build}
SMALL=${SMALL:-1000}
LARGE=${LARGE:-100000}
PER_FILE=${PER_FILE:-100}
IDLE_SECONDS=${IDLE_SECONDS:-300}
READY_TIMEOUT=${READY_TIMEOUT:-900}
TICKD=${TICKD:-$PWD/$B/tickd}
[ -x "$TICKD" ] || { echo "build first: make" >&2; exit 2; }

work=$(mktemp -d)
pids=
cleanup() {
	# shellcheck disable=SC2086
	kill_wait $pids
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The report (the sd_notify listener and the /proc samples are lib.sh's).
cat > "$work/h.py" <<'PY'
import sys

def report(hz, *rows):
	# rows: "name jobs startup_s" "sample_a" "sample_b", per daemon
	hz = int(hz)
	out, got = [], []
	for k in range(0, len(rows), 3):
		name, jobs, startup = rows[k].split()
		a = [float(x) for x in rows[k + 1].split()]
		b = [float(x) for x in rows[k + 2].split()]
		el = b[0] - a[0]
		v, nv = b[3] - a[3], b[4] - a[4]
		wpm = (v + nv) * 60 / el
		cpu = (b[1] - a[1]) / hz
		cpu_ns = (b[2] - a[2]) / 1e9
		got.append((wpm, cpu_ns, int(jobs), float(startup), b[5]))
		out.append((name, jobs, "%.2f" % float(startup), "%d" % b[5],
		    "%.1f" % (v * 60 / el), "%.1f" % (nv * 60 / el), "%.1f" % wpm,
		    "%.2f" % cpu, "%.4f" % cpu_ns))
	if len(got) == 2:
		r = lambda x, y: ("%.2f" % (x / y) if y else
		    "both 0" if x == 0 else "inf")
		s, l = got
		out.append(("large/small", r(l[2], s[2]), r(l[3], s[3]),
		    r(l[4], s[4]), "", "", r(l[0], s[0]), "", r(l[1], s[1])))
	head = ("daemon", "jobs", "ready_s", "rss_kib", "vol/min", "invol/min",
	    "wakeups/min", "cpu_s", "cpu_s_sched")
	w = [max(len(str(r[i])) for r in out + [head]) for i in range(len(head))]
	for r in [head] + out:
		print("%-*s" % (w[0], r[0]) + "".join(
		    "  %*s" % (w[i], r[i]) for i in range(1, len(r))))

getattr(sys.modules[__name__], sys.argv[1])(*sys.argv[2:])
PY
h() { python3 "$work/h.py" "$@"; }

# setup NAME N: a configuration and N jobs, daily in the hour 12 h ahead.
hour=$(date -u -d "@$(( $(date +%s) + 12 * 3600 ))" +%-H)
setup() {
	d=$work/$1
	write_conf "$d" 'max_running = 100000' 'log_level = warning'
	awk -v n="$2" -v per="$PER_FILE" -v d="$d/jobs.d" -v hr="$hour" 'BEGIN {
		for (i = 0; i < n; i++) {
			f = sprintf("%s/i%05d.job", d, int(i / per))
			printf "[j%06d]\nschedule = %d %d * * *\ncommand = true\n\n", \
			    i, i % 60, hr > f
			if ((i + 1) % per == 0) close(f)
		} }'
}

# start NAME: launch, wait for READY=1; sets pid, prints the startup time.
start() {
	d=$work/$1
	notify_start "$d/notify.sock" "$d/notify.out"
	pids="$pids $notify_pid"
	t_start=$(date +%s%N)
	NOTIFY_SOCKET=$d/notify.sock "$TICKD" -c "$d/tickd.conf" \
	    --log-target=stderr 2>"$d/log" &
	pid=$!
	pids="$pids $pid"
	rc=0
	poll "$READY_TIMEOUT" 0.2 \
	    'grep -q " READY=1$" "$d/notify.out" 2>/dev/null' "$pid" || rc=$?
	case $rc in
	0) ;;
	2) echo "tickd $1 exited:" >&2; tail -5 "$d/log" >&2; exit 1 ;;
	*) echo "$1: not ready after $READY_TIMEOUT s" >&2; exit 1 ;;
	esac
	t_ready=$(grep ' READY=1$' "$d/notify.out" | head -n 1 | cut -d' ' -f1)
	startup=$(python3 -c "print('%.3f' % (($t_ready - $t_start) / 1e9))")
}

setup small "$SMALL"
setup large "$LARGE"
start small; pid_s=$pid; up_s=$startup
start large; pid_l=$pid; up_l=$startup

# A few seconds for anything that follows READY=1 to settle, then the window.
t0=$(( $(date +%s) + 5 ))
a=$(proc_sample "$t0" "$pid_s" "$pid_l")
b=$(proc_sample "$((t0 + IDLE_SECONDS))" "$pid_s" "$pid_l")

h report "$(getconf CLK_TCK)" \
    "small $SMALL $up_s" "$(echo "$a" | sed -n 1p)" "$(echo "$b" | sed -n 1p)" \
    "large $LARGE $up_l" "$(echo "$a" | sed -n 2p)" "$(echo "$b" | sed -n 2p)"
echo "(idle: no job due within ${IDLE_SECONDS} s; per daemon over the same" \
    "window: context switches per minute, CPU seconds; rss at the end)"
for n in small large; do
	if [ -s "$work/$n/log" ]; then
		echo "$n daemon log: $(wc -l < "$work/$n/log") lines; the first:" >&2
		head -n 3 "$work/$n/log" >&2
	fi
done

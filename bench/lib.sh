# bench/lib.sh -- helpers shared by the bench scripts (POSIX sh; sourced,
# not run: `. "$(dirname "$0")/lib.sh"`).  Names starting with _bl are
# this file's own.
#
#   median                  the median of the numbers on stdin, one a line
#   col_median FILE FIELD  the median of field FIELD (space-separated)
#   lat_stats FILE ZERO_NS  "p50 p99 max first last count" (ms) of the
#                           stamps (ns, one a line) in FILE minus ZERO_NS;
#                           "- - - - - 0" when there are none
#   write_conf DIR [LINE..] DIR/tickd.conf: [daemon] jobs_dir = jobs.d,
#                           state = state/tickd.db, control = DIR/tickd.sock
#                           (never the system's /run/tickd/tickd.sock),
#                           timezone = UTC, then each LINE ("key = value");
#                           makes DIR/jobs.d and DIR/state
#   notify_start SOCK OUT   a python3 listener on the unix datagram socket
#                           SOCK (for NOTIFY_SOCKET) appending "NS MESSAGE"
#                           (CLOCK_REALTIME ns, one line per message line)
#                           to OUT; returns once SOCK exists; its pid in
#                           $notify_pid
#   burst_dir DIR N AT CMD  a configuration in DIR (write_conf, no limit
#                           on running jobs, log_level warning) and N jobs
#                           in DIR/jobs.d/burst.job, all due once at the
#                           epoch second AT (one 6-field schedule), each
#                           running CMD
#   poll SECS STEP COND [PID]  eval COND every STEP s until it succeeds:
#                           0; 1 after SECS s; 2 once PID has exited
#   kill_wait PID...        TERM each (empty ones skipped), then reap each
#   proc_sample AT PID...   at the instant AT (epoch s; 0: now), per PID:
#                           "time cpu_ticks cpu_ns vcsw nvcsw rss_kb" (the
#                           whole process: utime+stime, the sum of
#                           task/*/schedstat, switches of all threads)
#   sleep_until T           sleep until the epoch instant T (s, fractional)
#   wait_lines FILE N SECS [PID]  wait until FILE has N lines: 0; 1 after
#                           SECS s; 2 once PID has exited.  One process
#                           that stats FILE every 20 ms: what waits must
#                           not compete for the cores with what is measured
#                           (poll's COND forks: a `cat | wc` every 50 ms
#                           took 7% of the CPU during a 1000-job burst)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

burst_dir() {
	write_conf "$1" 'max_running = 100000' 'log_level = warning'
	awk -v n="$2" -v spec="$(date -u -d "@$3" '+%-S %-M %-H')" \
	    -v cmd="$4" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "[j%05d]\nschedule = %s * * *\ncommand = %s\n", \
			    i, spec, cmd }' > "$1/jobs.d/burst.job"
}
col_median() { cut -d' ' -f"$2" "$1" | median; }

# The python side of the helpers below: _blpy SUBCOMMAND ARGS...
_blpy() {
	python3 - "$@" <<'PY'
import glob, socket, sys, time

def lat_stats(path, zero):
    z = int(zero)
    try:
        v = sorted((int(l) - z) / 1e6 for l in open(path) if l.strip())
    except FileNotFoundError:
        v = []
    if not v:
        print("- - - - - 0")
        return
    q = lambda p: v[min(len(v) - 1, int(p * len(v)))]
    print("%.1f %.1f %.1f %.1f %.1f %d" % (q(0.5), q(0.99), v[-1], v[0],
        v[-1], len(v)))

def listen(path, out):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    with open(out, "a", buffering=1) as f:
        while True:
            m = s.recv(65536)
            t = time.time_ns()		# CLOCK_REALTIME, as date +%s%N
            for line in m.decode(errors="replace").split("\n"):
                if line:
                    f.write("%d %s\n" % (t, line))

def sleep_until(t):
    d = float(t) - time.time()
    if d > 0:
        time.sleep(d)

def one(pid):
    t = time.time()
    st = open("/proc/%s/stat" % pid).read()
    f = st[st.rindex(")") + 2:].split()
    ticks = int(f[11]) + int(f[12])	# utime, stime (fields 14, 15)
    v = nv = ns = 0
    for task in glob.glob("/proc/%s/task/*" % pid):
        try:
            for line in open(task + "/status"):
                if line.startswith("voluntary_ctxt_switches"):
                    v += int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches"):
                    nv += int(line.split()[1])
            ns += int(open(task + "/schedstat").read().split()[0])
        except OSError:
            pass
    rss = 0
    for line in open("/proc/%s/status" % pid):
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return "%.6f %d %d %d %d %d" % (t, ticks, ns, v, nv, rss)

def wait_lines(path, n, secs, pid=None):
    import os
    end, size, lines = time.monotonic() + float(secs), -1, 0
    while True:
        try:
            st = os.stat(path).st_size
        except FileNotFoundError:
            st = 0
        if st != size and st > 0:
            size = st
            with open(path, "rb") as f:
                lines = f.read().count(b"\n")
        if lines >= int(n):
            sys.exit(0)
        if pid:
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                sys.exit(2)
        if time.monotonic() >= end:
            sys.exit(1)
        time.sleep(0.02)

def sample(at, *pids):
    sleep_until(at)
    for p in pids:
        print(one(p))

globals()[sys.argv[1]](*sys.argv[2:])
PY
}

lat_stats() { _blpy lat_stats "$1" "$2"; }
proc_sample() { _blpy sample "$@"; }
sleep_until() { _blpy sleep_until "$1"; }
wait_lines() { _blpy wait_lines "$@"; }

write_conf() {
	_bld=$1
	shift
	case $_bld in /*) ;; *) _bld=$PWD/$_bld ;; esac
	# sun_path holds 108 bytes with its NUL.
	[ ${#_bld} -le 96 ] || { echo "write_conf: $_bld: too long for a" \
	    "unix socket path" >&2; return 1; }
	mkdir -p "$_bld/jobs.d" "$_bld/state"
	{
		echo '[daemon]'
		echo 'jobs_dir = jobs.d'
		echo 'state = state/tickd.db'
		echo "control = $_bld/tickd.sock"
		echo 'timezone = UTC'
		# CGROUP=PATH or none: where the jobs are tracked (default:
		# where tickd starts; in a root cgroup, process groups).
		[ -z "${CGROUP:-}" ] || echo "cgroup = $CGROUP"
		for _bll in "$@"; do echo "$_bll"; done
	} > "$_bld/tickd.conf"
}

poll() {
	_blend=$(( $(date +%s) + $1 ))
	until eval "$3"; do
		if [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null; then
			return 2
		fi
		[ "$(date +%s)" -lt "$_blend" ] || return 1
		sleep "$2"
	done
}

notify_start() {
	_blsock=$1
	_blpy listen "$1" "$2" &
	_blsub=$!
	poll 10 0.02 '[ -S "$_blsock" ]' "$_blsub" || {
		echo "notify listener on $_blsock did not start" >&2; return 1; }
	# $! is the subshell that runs the function: the pid to kill is its
	# python (killing the subshell would leave python holding stdout).
	notify_pid=$(pgrep -P "$_blsub" python3 || echo "$_blsub")
}

kill_wait() {
	for _blp in "$@"; do
		[ -z "$_blp" ] || kill "$_blp" 2>/dev/null || true
	done
	for _blp in "$@"; do
		[ -z "$_blp" ] || wait "$_blp" 2>/dev/null || true
	done
}

#!/bin/sh
# Store cost benchmark (issue 8), two parts:
#   a) the real daemon: NJOBS jobs "every 1s" running `true`, state on the
#      disk (TMPDIR).  Over WINDOW seconds after WARMUP: bytes the daemon
#      wrote per run (/proc/PID/io write_bytes and wchar deltas; the io of
#      reaped children is added to it, and `true` writes nothing; on a
#      kernel with large folios write_bytes counts whole folios and
#      overstates small writes), its CPU time per run, and per
#      run the fsync/fdatasync and pwrite64 calls of the daemon, by file
#      (perf record on the syscalls tracepoints; strace -c if they are not
#      available), from which commits per run: SQLite (WAL,
#      synchronous=FULL) syncs the WAL at every commit and the database
#      file at every checkpoint.  Runs = attempts claimed in the window,
#      from the store (a claim is committed before its fork).
#   b) database growth per million runs with retention on: bench_store.c
#      drives the store module as the daemon does (claim, job state,
#      started, end, prune every 20 ends with history_keep, hourly age
#      prune) for SJOBS jobs every virtual second, on /dev/shm, and prints
#      the file sizes every STEP runs up to RUNS.
# With PREFILL=N, part a starts tickd on a store that bench_store filled
# with N past runs of the same jobs (N >= NJOBS x KEEP: at the plateau,
# where every end also prunes).
# Usage: sh bench/store.sh; env NJOBS (200), WINDOW (60), WARMUP (5),
# SJOBS (NJOBS), RUNS (1000000), STEP (100000), TAIL (bytes of output per
# run in b, 0), KEEP (history_keep, 1000), PREFILL (0), PARTS ("a b"), B,
# TICKD.
set -eu
. "$(dirname "$0")/lib.sh"
B=${B:-build}
NJOBS=${NJOBS:-200}
WINDOW=${WINDOW:-60}
WARMUP=${WARMUP:-5}
SJOBS=${SJOBS:-$NJOBS}
RUNS=${RUNS:-1000000}
STEP=${STEP:-100000}
TAIL=${TAIL:-0}
KEEP=${KEEP:-1000}
PARTS=${PARTS:-a b}
PREFILL=${PREFILL:-0}
TICKD=${TICKD:-$PWD/$B/tickd}
work=$(mktemp -d "${TMPDIR:-/tmp}/tickd-store.XXXXXX")
shm=
pid='' tpid='' bench_store=''
cleanup() {
	kill_wait "$tpid" "$pid"
	rm -rf "$work"
	[ -z "$shm" ] || rm -rf "$shm"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

die() { echo "store.sh: $*" >&2; [ ! -f "$work/log" ] || tail -n 5 "$work/log" >&2; exit 1; }

# --- a) the daemon -----------------------------------------------------------------

# tracer enable|disable: switch perf's recording, once it says it did.
tracer() {
	[ "$tool" = perf ] || return 0
	echo "$1" >&8
	timeout 30 head -n 1 <&9 >/dev/null ||
	    die "perf record did not acknowledge '$1': $(cat "$work/perf.err")"
}

part_a() {
	d=$work/a
	write_conf "$d" 'log_level = notice' "history_keep = $KEEP"
	awk -v n="$NJOBS" 'BEGIN { for (i = 0; i < n; i++)
		printf "[job%04d]\nschedule = every 1s\ncommand = true\n\n", i }' \
	    > "$d/jobs.d/often.job"
	if [ "$PREFILL" -gt 0 ]; then
		# The same job ids as bench_store's, instants in the past.
		build_bench
		shm=$(mktemp -d /dev/shm/tickd-store.XXXXXX)
		"$bench_store" -e -j "$NJOBS" -n "$PREFILL" -s "$PREFILL" \
		    -k "$KEEP" "$shm/tickd.db" | head -n 2 | sed 's/^/prefill: /'
		cp "$shm/tickd.db" "$d/state/tickd.db"
		rm -rf "$shm"
		shm=
	fi
	"$TICKD" -c "$d/tickd.conf" --log-target=stderr 2>"$work/log" &
	pid=$!
	rc=0
	poll 60 0.02 'grep -q "notice: ready:" "$work/log"' "$pid" || rc=$?
	case $rc in
	0) ;;
	2) die "tickd exited" ;;
	*) die "tickd not ready" ;;
	esac
	sleep "$WARMUP"		# past the first second's burst of claims
	db=$d/state/tickd.db

	if perf stat -e syscalls:sys_enter_fdatasync true >/dev/null 2>&1; then
		# Recording starts disabled and is switched on and off through
		# perf's control FIFO, so that it covers the window exactly.
		tool=perf
		mkfifo "$work/ctl" "$work/ack"
		exec 8<>"$work/ctl" 9<>"$work/ack"
		perf record -q -D -1 --control "fifo:$work/ctl,$work/ack" \
		    -e syscalls:sys_enter_fsync -e syscalls:sys_enter_fdatasync \
		    -e syscalls:sys_enter_pwrite64 -e syscalls:sys_enter_write \
		    --no-inherit -p "$pid" -o "$work/perf.data" \
		    2>"$work/perf.err" &
		tpid=$!
	else
		tool=strace
		strace -c -o "$work/strace.out" \
		    -e trace=fsync,fdatasync,pwrite64,write -p "$pid" \
		    2>"$work/strace.err" &
		tpid=$!
		sleep 1		# strace attaches (not observable otherwise)
	fi
	tracer enable
	io0=$(cat "/proc/$pid/io")
	cpu0=$(cut -d' ' -f14,15 "/proc/$pid/stat")
	t0=$(date +%s%3N)
	sleep "$WINDOW"
	io1=$(cat "/proc/$pid/io")
	cpu1=$(cut -d' ' -f14,15 "/proc/$pid/stat")
	t1=$(date +%s%3N)
	tracer disable
	kill -INT "$tpid"
	wait "$tpid" || true
	tpid=
	ls -l "/proc/$pid/fd" 2>/dev/null | sed -n 's/.* \([0-9][0-9]*\) -> \(.*\)/\1 \2/p' \
	    > "$work/fds"
	# Attempts claimed in the window: each claim is committed before its
	# fork, so nothing of the window is still unwritten.
	runs=$(sqlite3 "$db" "SELECT count(*) FROM attempts a JOIN runs r ON \
	    r.id = a.run WHERE r.created_at >= $t0 AND r.created_at < $t1")
	skipped=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = \
	    'skipped' AND created_at >= $t0 AND created_at < $t1")
	decided=$(sqlite3 "$db" "SELECT coalesce(sum(count), 0) FROM decisions \
	    WHERE decided_at >= $t0 AND decided_at < $t1")
	late=$(sqlite3 "$db" "SELECT coalesce(max(lateness_ms), 0) || ' / ' || \
	    coalesce(round(avg(lateness_ms), 1), 0) FROM attempts WHERE \
	    started_at >= $t0 AND started_at < $t1")
	dbsz=$(stat -c %s "$db") walsz=$(stat -c %s "$db-wal" 2>/dev/null || echo 0)
	kill -TERM "$pid"
	wait "$pid" || die "tickd exited with $? at stop"
	pid=
	errs=$(grep -cE '^tickd: (critical|error):' "$work/log" || true)
	warns=$(grep -cE '^tickd: warning:' "$work/log" || true)
	grep -E '^tickd: (critical|error|warning):' "$work/log" | head -3 >&2
	if [ "$tool" = perf ]; then
		perf script -i "$work/perf.data" -F event,trace 2>/dev/null \
		    > "$work/calls"
	fi

	python3 - "$tool" "$work" "$runs" "$WINDOW" "$NJOBS" "$cpu0" "$cpu1" \
	    "$(getconf CLK_TCK)" "$t0" "$t1" <<PY
import re, sys
tool, work, runs, window, njobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def io(text):
    return {k: int(v) for k, v in (l.split(": ") for l in text.strip().split("\n"))}
io0, io1 = io("""$io0"""), io("""$io1""")
fds = {}
for l in open(work + "/fds"):
    fd, p = l.split(" ", 1)
    fds[int(fd)] = p.strip()
def kind(fd):
    p = fds.get(fd, "?")
    if p.endswith(".db-wal"): return "wal"
    if p.endswith(".db"): return "db"
    if p.endswith(".db-shm"): return "shm"
    return "other"
calls = {}
pbytes = {}
if tool == "perf":
    for l in open(work + "/calls"):
        m = re.search(r"sys_enter_(\w+):\s+fd: (0x[0-9a-f]+)", l)
        if not m: continue
        name, fd = m.group(1), int(m.group(2), 16)
        key = (name, kind(fd))
        calls[key] = calls.get(key, 0) + 1
        c = re.search(r"count: (0x[0-9a-f]+)", l)
        if c and name in ("pwrite64", "write"):
            pbytes[key] = pbytes.get(key, 0) + int(c.group(1), 16)
else:
    for l in open(work + "/strace.out"):
        f = l.split()
        if len(f) >= 5 and f[-1] in ("fsync", "fdatasync", "pwrite64", "write"):
            calls[(f[-1], "all")] = int(f[3])
if runs == 0:
    print("no runs in the window"); sys.exit(1)
print("%-44s %14s %12s" % ("per run (daemon, %d runs in %d s)" % (runs, window), "total", "per_run"))
def row(what, v):
    print("%-44s %14d %12.2f" % (what, v, v / runs))
row("write_bytes (/proc/PID/io)", io1["write_bytes"] - io0["write_bytes"])
row("wchar (/proc/PID/io)", io1["wchar"] - io0["wchar"])
cpu = lambda v: sum(int(x) for x in v.split())
print("%-44s %14.0f %12.3f" % ("daemon CPU ms (utime+stime)", (cpu(sys.argv[7]) - cpu(sys.argv[6])) * 1000.0 / int(sys.argv[8]), (cpu(sys.argv[7]) - cpu(sys.argv[6])) * 1000.0 / int(sys.argv[8]) / runs))
for key in sorted(calls):
    row("%s calls, %s" % key, calls[key])
for key in sorted(pbytes):
    row("%s bytes, %s" % key, pbytes[key])
syncs = lambda k: calls.get(("fdatasync", k), 0) + calls.get(("fsync", k), 0)
if tool == "perf":
    w, d = syncs("wal"), syncs("db")
    row("fsync+fdatasync, all files", sum(v for (n, k), v in calls.items() if n in ("fsync", "fdatasync")))
    row("commits (WAL syncs - db syncs)", w - d)
    row("checkpoints (db syncs)", d)
span = (int(sys.argv[10]) - int(sys.argv[9])) / 1e3
print("(write_bytes counts page-cache folios dirtied: with large folios, as on Linux 6.18,\n"
      " a 4 KB write counts up to the folio's size; wchar and pwrite64 bytes are what SQLite wrote)")
print("runs/s: %.1f over %.2f s (%d jobs every 1s: %d expected)" % (runs / span, span, njobs, njobs))
PY
	echo "in the window: $skipped instances skipped (overlap), $decided" \
	    "coalesced or missed (decisions); lateness max/avg ms: $late;" \
	    "database $(awk -v a="$dbsz" -v b="$walsz" 'BEGIN { printf "%.1f MB + WAL %.1f MB", a/1048576, b/1048576 }');" \
	    "log: $errs errors, $warns warnings; counted with $tool"
}

# --- b) growth with retention ----------------------------------------------------------

# build_bench: $bench_store, the one make builds ($B/bench/bench_store,
# with -DBENCH_STORE_FULL), else one compiled here.
build_bench() {
	[ -z "$bench_store" ] || return 0
	bench_store=$PWD/$B/bench/bench_store
	if [ -x "$bench_store" ]; then
		case $("$bench_store" 2>&1 || true) in
		*"run sh bench/store.sh"*) ;;	# built without the store
		*) return 0 ;;
		esac
	fi
	[ -f "$B/libtickd-daemon.a" ] && [ -f "$B/libtickd.a" ] ||
	    die "build first: make $B/bench/bench_store"
	bench_store=$work/bench_store
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -Wall -Wextra -O2 -g -D_GNU_SOURCE -DBENCH_STORE_FULL -Isrc \
	    $(pkg-config --cflags sqlite3 2>/dev/null) -o "$bench_store" \
	    bench/bench_store.c "$B/libtickd-daemon.a" "$B/libtickd.a" \
	    $(pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3) -lm
}

part_b() {
	build_bench
	shm=$(mktemp -d /dev/shm/tickd-store.XXXXXX)
	"$bench_store" -j "$SJOBS" -n "$RUNS" -s "$STEP" -t "$TAIL" \
	    -k "$KEEP" "$shm/tickd.db"
	echo "page_count freelist_count page_size: $(sqlite3 "$shm/tickd.db" \
	    'PRAGMA page_count; PRAGMA freelist_count; PRAGMA page_size' |
	    tr '\n' ' ')"
}

for p in $PARTS; do
	case $p in
	a) part_a ;;
	b) part_b ;;
	*) die "unknown part $p" ;;
	esac
done
echo "($(uptime | sed 's/.*load/load/'))"

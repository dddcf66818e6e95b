# lib.sh -- helpers for integration tests (sourced by tests/integration/t_*.sh).
#
# Each test runs from the repository root with TICKCTL and TICKD set to the
# binaries under test (tests/run.sh passes them).  A test prints what it
# checks, calls fail on the first wrong result, and exits 0 when done
# (77 to skip).
set -u
: "${TICKCTL:=$PWD/build/tickctl}"
: "${TICKD:=$PWD/build/tickd}"
FIXTURES=$PWD/tests/data/tzif/fat
checks=0

failures=
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures="$failures
FAIL: $*"
	exit 1
}

# check_fail MESSAGE: a failed check: fatal (fail), or reported and
# carried on from (soft_fail, defined below) while soft_checks=1, for a
# section whose checks are independent of each other.
soft_checks=0
check_fail() {
	if [ "$soft_checks" = 1 ]; then
		soft_fail "$@"
	else
		fail "$@"
	fi
}

# expect_eq WHAT GOT WANT
expect_eq() {
	checks=$((checks + 1))
	[ "$2" = "$3" ] || check_fail "$1: got [$2], want [$3]"
}

# expect_match WHAT TEXT GLOB
expect_match() {
	checks=$((checks + 1))
	case $2 in
	$3) ;;
	*) check_fail "$1: [$2] does not match [$3]" ;;
	esac
}

# first TEXT: the first line of TEXT (tickd -n's summary; its second line
# says how the jobs are tracked).
first() {
	printf '%s\n' "$1" | head -n 1
}

# run_cmd CMD...: runs CMD, sets $out, $err and $rc.
run_cmd() {
	_o=$(mktemp) _e=$(mktemp)
	"$@" >"$_o" 2>"$_e"
	rc=$?
	out=$(cat "$_o")
	err=$(cat "$_e")
	rm -f "$_o" "$_e"
}

done_ok() {
	if [ "${soft_failed:-0}" -gt 0 ]; then
		echo "$soft_failed checks failed, $checks passed" >&2
		exit 1
	fi
	echo "$checks checks passed"
	exit 0
}

# --- daemon tests -----------------------------------------------------------
#
# A daemon test calls setup, writes job files with write_job, starts the
# daemon with daemon_start and asserts on the database (sql), the files its
# jobs write and the log.  The EXIT trap kills the daemon and whatever its
# jobs left running, prints the end of the log if the test failed, and
# removes the directory.  Variables set by setup:
#   dir	the test's directory (tickd.conf, jobs.d/, state/, tickd.log)
#   jobs	$dir/jobs.d
#   db	$dir/state/tickd.db
#   log	$dir/tickd.log (the daemon's stderr, appended by each start)
# and by daemon_start: tickd_pid.  KEEP=1 in the environment keeps the
# directory for a post-mortem.  Job commands hold $dir in their text, and
# each job leads its own process group: that is how the trap finds what a
# test left running, and nothing else.

# Deadlines are stretched under the sanitizers (build/san): only failing
# waits ever run into them.
slow=1
case $TICKD in */san/*) slow=3 ;; esac
soft_failed=0
tickd_pid=
# The system's python3 (a pyenv shim in PATH takes a second to start).
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)

# now: the Unix time in seconds.
now() { date +%s; }

# soft_fail MESSAGE: report a failed check but carry on (for checks placed
# after the main ones, so one bug does not hide another); done_ok then
# exits 1.
soft_fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures="$failures
FAIL: $*"
	soft_failed=$((soft_failed + 1))
}

# wait_for DESC SECONDS CMD...: run CMD every 50 ms until it succeeds; fail
# with DESC after SECONDS (times $slow).  For an expression, pass
# eval '...'.
wait_for() {
	_wf_desc=$1 _wf_end=$(($(now) + $2 * slow))
	shift 2
	until "$@"; do
		[ "$(now)" -le "$_wf_end" ] ||
		    fail "timed out waiting for $_wf_desc"
		sleep 0.05
	done
	checks=$((checks + 1))
}

# wait_until EPOCH: let time pass on purpose until the wall clock reaches
# EPOCH (used where a test needs instants to go by, e.g. downtime).
wait_until() {
	while [ "$(now)" -lt "$1" ]; do
		sleep 0.05
	done
}

# lines FILE: how many lines FILE has (0 if it does not exist).
lines() {
	if [ -f "$1" ]; then
		wc -l <"$1"
	else
		echo 0
	fi
}

# sql QUERY: run QUERY on the daemon's database (WAL: fine while it runs).
# A batch job's instance's status (tickd.job(5), BATCHES), and whether it
# ended; batch_sql=pg_sql for a server's database.
batch_status() {
	${batch_sql:-sql} "SELECT status FROM runs WHERE job = '$1' AND
	    parent IS NULL"
}
batch_ended() {
	case $(batch_status "$1") in
	succeeded | failed | dead | unknown | terminated) return 0 ;;
	esac
	return 1
}

sql() {
	sqlite3 -batch -cmd '.timeout 5000' "$db" "$1"
}

# hold_lock SECONDS: another process holds the store's write lock for
# SECONDS (as an administrator's sqlite3 would); prints "locked MS" and
# "unlocked MS" (Unix ms) as it takes and releases it.  Run it in the
# background with its output to a file, and wait for the lines.
hold_lock() {
	"$python" - "$db" "$1" <<'EOF_HOLD_LOCK'
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
c.execute("BEGIN IMMEDIATE")
print("locked", int(time.time() * 1000), flush=True)
time.sleep(float(sys.argv[2]))
t = int(time.time() * 1000)
c.execute("COMMIT")
print("unlocked", t, flush=True)
EOF_HOLD_LOCK
}

# log_has TEXT: whether the log holds a line containing TEXT (fixed string).
log_has() {
	grep -qF -- "$1" "$log" 2>/dev/null
}

# log_count TEXT: how many lines of the log contain TEXT.
log_count() {
	grep -cF -- "$1" "$log" 2>/dev/null
}

# expect_runs_match FILE WHERE: FILE (one TICKD_RUN_ID per line, written by
# jobs) and the runs table agree: no line twice, each line a run matching
# the SQL condition WHERE, and each succeeded run matching it in FILE.
expect_runs_match() {
	expect_eq "$1: no run id twice" "$(sort "$1" 2>/dev/null | uniq -d)" ""
	for _id in $(cat "$1" 2>/dev/null); do
		expect_eq "$1: $_id is a run" "$(sql "SELECT count(*) FROM runs
		    WHERE run_id = '$_id' AND ($2)")" 1
	done
	for _id in $(sql "SELECT run_id FROM runs WHERE status = 'succeeded'
	    AND ($2)"); do
		expect_eq "$1: run $_id is there" "$(grep -cxF "$_id" "$1")" 1
	done
}

# expect_accounted JOB [WHAT]: from JOB's first run to its last, every
# instant of an every-second job is exactly one run or counted in exactly
# one decision (both sides read in one query: the daemon may be running).
expect_accounted() {
	expect_eq "$1: every instant accounted for${2:+ ($2)}" "$(sql "SELECT
	    (SELECT count(*) FROM runs WHERE job = '$1') +
	    (SELECT coalesce(sum(count), 0) FROM decisions WHERE job = '$1' AND
	    first_at >= (SELECT min(scheduled_at) FROM runs WHERE job = '$1') AND
	    last_at <= (SELECT max(scheduled_at) FROM runs WHERE job = '$1'))
	    - (SELECT max(scheduled_at) - min(scheduled_at) + 1 FROM runs
	    WHERE job = '$1')")" 0
	expect_eq "$1: no run inside a decision's range${2:+ ($2)}" "$(sql "SELECT
	    count(*) FROM runs r JOIN decisions d ON d.job = r.job WHERE
	    r.job = '$1' AND r.scheduled_at BETWEEN d.first_at AND d.last_at")" 0
}

# at_cron EPOCH: a 6-field cron expression that fires at EPOCH (UTC) and
# then only a year later: a one-shot schedule for a test.
at_cron() {
	date -u -d "@$1" '+%-S %-M %-H %-d %-m *'
}

# rfc3339 EPOCH: EPOCH as YYYY-MM-DDTHH:MM:SSZ, the form of run ids.
rfc3339() {
	date -u -d "@$1" '+%Y-%m-%dT%H:%M:%SZ'
}

# write_conf [LINE...]: write $dir/tickd.conf: [daemon] with a UTC default
# zone, jobs in jobs.d, state in state/tickd.db, then the extra LINEs,
# then the control socket in ctl.sock and the test's own cgroup subtree
# (last, so that the LINEs keep their line numbers; tests never share a
# socket, nor take the system's /run/tickd/tickd.sock).  A LINE that sets
# one of these keys ("state = other.db", "cgroup = none") replaces its
# default.
write_conf() {
	{
		echo "[daemon]"
		_wc_default "timezone = UTC" "$@"
		_wc_default "jobs_dir = jobs.d" "$@"
		_wc_default "state = state/tickd.db" "$@"
		for _l in "$@"; do
			echo "$_l"
		done
		_wc_default "control = ctl.sock" "$@"
		[ -z "$cgdir" ] || _wc_default "cgroup = $cgdir" "$@"
	} >"$dir/tickd.conf"
	chmod 644 "$dir/tickd.conf"
}

# --- cgroups ------------------------------------------------------------------
#
# Every daemon test runs its jobs in a cgroup v2 subtree of its own,
# $cgdir, beside the cgroup the test runs in (tickd's way under systemd
# with Delegate=yes), when this machine has a cgroup v2 hierarchy the
# test may write; else $cgdir is empty and tickd falls back to process
# groups.  TICKD_TEST_CGROUP=none runs a test in the fallback.

# cg_mount: where the cgroup v2 hierarchy is mounted (mountinfo: the
# field after " - " is the type), or nothing.
cg_mount() {
	sed -n 's/^[0-9]* [0-9]* [^ ]* [^ ]* \([^ ]*\) .* - cgroup2 .*/\1/p' \
	    /proc/self/mountinfo | head -n 1
}

# cg_setup: make $cgdir, this test's cgroup subtree, if possible.
cgdir=
cg_setup() {
	[ "${TICKD_TEST_CGROUP:-}" != none ] || return 0
	_cm=$(cg_mount)
	_cs=$(sed -n 's/^0:://p' /proc/self/cgroup)
	[ -n "$_cm" ] && [ -n "$_cs" ] || return 0
	_cs=${_cs%/}
	_cg=$_cm$_cs/tickd-test.${dir##*.}
	mkdir "$_cg" 2>/dev/null && [ -w "$_cg/cgroup.procs" ] || {
		rmdir "$_cg" 2>/dev/null
		return 0
	}
	cgdir=$_cg
}

# cg_kill_all: kill every process in $cgdir's subtree and remove it.
cg_kill_all() {
	[ -n "$cgdir" ] && [ -d "$cgdir" ] || return 0
	echo 1 >"$cgdir/cgroup.kill" 2>/dev/null
	_ck_end=$(($(now) + 5))
	while grep -q '^populated 1' "$cgdir/cgroup.events" 2>/dev/null &&
	    [ "$(now)" -le "$_ck_end" ]; do
		sleep 0.05
	done
	find "$cgdir" -depth -type d -exec rmdir {} + 2>/dev/null
}

# cg_delegate USER: hand $cgdir to USER, as systemd does for a unit with
# User= and Delegate=yes (the directory and its cgroup.procs,
# cgroup.subtree_control and cgroup.threads), and start the daemon in
# its leaf supervisor/: a process can move its children only within a
# subtree whose top it may write.
cg_enter=
cg_delegate() {
	[ -n "$cgdir" ] || return 0
	mkdir -p "$cgdir/supervisor"
	chown "$1" "$cgdir" "$cgdir/cgroup.procs" \
	    "$cgdir/cgroup.subtree_control" "$cgdir/cgroup.threads" \
	    "$cgdir/supervisor" "$cgdir/supervisor/cgroup.procs" \
	    "$cgdir/supervisor/cgroup.threads"
	cg_enter=$cgdir/supervisor
}

# setup_mode MODE: setup for a test that runs in both ways of tracking:
# cgroup (skipped without a cgroup subtree) or pgrp (process groups,
# TICKD_TEST_CGROUP=none).
setup_mode() {
	[ "$1" = pgrp ] && TICKD_TEST_CGROUP=none
	setup
	if [ "$1" = cgroup ]; then
		need_cgroup
	else
		expect_eq "no cgroup in this mode" "$cgdir" ""
	fi
}

# need_cgroup: skip the test (77) without a cgroup subtree of its own.
need_cgroup() {
	[ -n "$cgdir" ] || { echo "no writable cgroup v2 hierarchy here"; exit 77; }
}

# _wc_default DEFAULT [LINE...]: print DEFAULT ("key = value") unless a
# LINE sets the same key.
_wc_default() {
	_wd=$1
	shift
	for _l in "$@"; do
		case $_l in
		"${_wd%% *} "* | "${_wd%% *}="*) return 0 ;;
		esac
	done
	echo "$_wd"
}

# write_job NAME: jobs.d/NAME from stdin with every @DIR@ replaced by $dir
# (so a quoted here-document can hold job commands verbatim), mode 0644;
# written aside, then renamed into place, so a reload never sees half a
# file.
write_job() {
	sed "s|@DIR@|$dir|g" >"$dir/.job.tmp"
	chmod 644 "$dir/.job.tmp"
	mv -f "$dir/.job.tmp" "$jobs/$1"
}

# setup: make the test directory and the default tickd.conf, and install
# the EXIT trap.
setup() {
	umask 022
	dir=$(mktemp -d /tmp/tickd-test.XXXXXX) || fail "mktemp"
	jobs=$dir/jobs.d
	db=$dir/state/tickd.db
	log=$dir/tickd.log
	mkdir "$jobs"
	: >"$log"
	cg_setup
	write_conf
	trap cleanup EXIT
	trap 'exit 1' INT TERM HUP
}

# pid_alive PID: whether PID exists and is not a zombie.
pid_alive() {
	[ -r "/proc/$1/stat" ] || return 1
	case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) in
	Z* | X* | "") return 1 ;;
	esac
	return 0
}

# pid_alive_or_zombie PID: whether PID exists at all (zombies included).
pid_alive_or_zombie() {
	[ -e "/proc/$1" ]
}

# daemon_spawn [NAME=VALUE...]: start tickd on $dir/tickd.conf in the
# background (with the given extra environment, and through the command
# $tickd_wrap if set, e.g. setpriv), stderr appended to $log; do not wait.
# With cg_enter set (cg_delegate), tickd starts in that cgroup.
tickd_wrap=
daemon_spawn() {
	# shellcheck disable=SC2086
	if [ -n "$cg_enter" ]; then
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg_enter" \
		    env "$@" $tickd_wrap "$TICKD" -c "$dir/tickd.conf" \
		    --log-target=stderr 2>>"$log" &
	else
		env "$@" $tickd_wrap "$TICKD" -c "$dir/tickd.conf" \
		    --log-target=stderr 2>>"$log" &
	fi
	tickd_pid=$!
}

# daemon_start [NAME=VALUE...]: daemon_spawn, then wait for a new "ready:"
# line in the log.  Fails at once if tickd exits first.
daemon_start() {
	_ds_ready=$(log_count "ready:")
	daemon_spawn "$@"
	_ds_end=$(($(now) + 10 * slow))
	while [ "$(log_count "ready:")" -le "$_ds_ready" ]; do
		if ! pid_alive "$tickd_pid"; then
			wait "$tickd_pid"
			fail "tickd exited with status $? before it was ready"
		fi
		[ "$(now)" -le "$_ds_end" ] ||
		    fail "timed out waiting for tickd to be ready"
		sleep 0.05
	done
	checks=$((checks + 1))
}

# daemon_stop [SECONDS] [SIGNAL]: send SIGNAL (TERM) to tickd and wait up
# to SECONDS (10, times $slow) for it to exit; its status is in $daemon_rc.
daemon_stop() {
	_st_end=$(($(now) + ${1:-10} * slow))
	kill -"${2:-TERM}" "$tickd_pid" 2>/dev/null
	while pid_alive "$tickd_pid"; do
		[ "$(now)" -le "$_st_end" ] ||
		    fail "tickd (pid $tickd_pid) did not exit within ${1:-10} s"
		sleep 0.05
	done
	wait "$tickd_pid"
	daemon_rc=$?
	tickd_pid=
}

# daemon_stop_ok [SECONDS]: daemon_stop, then expect exit status 0 (which a
# sanitizer report would change) and "stopped" in the log.
daemon_stop_ok() {
	daemon_stop "${1:-10}"
	expect_eq "tickd exit status" "$daemon_rc" 0
	checks=$((checks + 1))
	log_has "tickd: notice: stopped" || fail "no \"stopped\" in the log"
}

# kill_groups: kill every process left in the process group of a job
# (each job leads its own group: the pids of attempts) and every process
# whose command line holds $dir (tickd, helpers).  Only this test's.
kill_groups() {
	_kg_pids=
	# One pgrep for a thousand groups: one per group took a minute
	# after the 2900 runs of t_ctl_busy on a loaded machine, and the
	# test past its timeout.
	#
	# Only processes of this test's attempts: pids wrap (32768 here),
	# and a group numbered like a job of ours that ended long ago may
	# be another test's job now.  An attempt's processes carry its
	# TICKD_INVOCATION_ID, unique to it.
	if [ -f "$db" ]; then
		sqlite3 -batch -cmd '.timeout 2000' "$db" "SELECT DISTINCT
		    'TICKD_INVOCATION_ID=' || invocation FROM attempts WHERE
		    invocation IS NOT NULL" >"$dir/.kg_inv" 2>/dev/null
		for _p in $(sqlite3 -batch -cmd '.timeout 2000' "$db" \
		    'SELECT DISTINCT pid FROM attempts WHERE pid > 1' \
		    2>/dev/null | xargs -r -n 1000 echo | tr ' ' ',' |
		    while read -r _gs; do pgrep -g "$_gs"; done); do
			tr '\0' '\n' 2>/dev/null <"/proc/$_p/environ" |
			    grep -qxF -f "$dir/.kg_inv" &&
			    _kg_pids="$_kg_pids $_p"
		done
	fi
	_kg_pids="$_kg_pids $(pgrep -f -- "$dir")"
	for _p in $_kg_pids; do
		[ "$_p" = $$ ] || kill -KILL "$_p" 2>/dev/null
	done
}

cleanup() {
	_rc=$?
	trap - EXIT
	[ "$_rc" -eq 0 ] && [ "$soft_failed" -gt 0 ] && _rc=1
	if [ -n "$tickd_pid" ] && pid_alive "$tickd_pid"; then
		kill -KILL "$tickd_pid" 2>/dev/null
		wait "$tickd_pid" 2>/dev/null
	fi
	# A test's PostgreSQL server (pg.sh) is stopped before the processes
	# left in $dir are killed: its postmaster's command line names $dir,
	# and a killed postmaster leaves its shared memory behind.
	command -v pg_cleanup >/dev/null && pg_cleanup
	[ -n "${dir:-}" ] && kill_groups
	cg_kill_all
	# The nodes of a PostgreSQL test (tests/pg.sh) log each to its own.
	[ "$_rc" -eq 0 ] || for _nl in "${dir:-/nonexistent}"/n[0-9].log; do
		[ -s "$_nl" ] && [ "$_nl" != "${log:-}" ] || continue
		echo "--- last 30 lines of $_nl:" >&2
		tail -n 30 "$_nl" | cut -c 1-300 >&2
	done
	if [ "$_rc" -ne 0 ] && [ -s "${log:-/nonexistent}" ]; then
		echo "--- last 50 lines of $log:" >&2
		tail -n 50 "$log" | cut -c 1-300 >&2
		# Again, so that the end of the output says what failed.
		printf '%s\n' "--- failed:$failures" >&2
	fi
	if [ -n "${KEEP:-}" ]; then
		echo "kept $dir" >&2
	elif [ -n "${dir:-}" ]; then
		rm -rf "$dir"
	fi
	exit "$_rc"
}

# --- helpers for the policy tests ---------------------------------------------

# now_ms: the Unix time in milliseconds.
now_ms() { date +%s%3N; }

# notify_listen SOCK OUT: a datagram listener on SOCK (what tickd's
# sd_notify writes to, NOTIFY_SOCKET) appending "MS MESSAGE" to OUT per
# message, MS its arrival (Unix ms), newlines in it made spaces; its pid
# in $listener, once the socket is there.
notify_listen() {
	"$python" -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as f:
    while True:
        m = s.recv(65536).decode(errors="replace")
        f.write("%d %s\n" % (time.time() * 1000, m.replace("\n", " ")))
' "$1" "$2" &
	listener=$!
	wait_for "the listener's socket" 10 test -S "$1"
}

# wait_mid_second: let time pass until the wall clock is 0.3-0.7 s into a
# second, away from the instants of every-second jobs (a kill -KILL then
# falls between their short runs, not during one).
wait_mid_second() {
	until _wm=$(date +%N) && [ "${_wm%????????}" -ge 3 ] &&
	    [ "${_wm%????????}" -le 6 ]; do
		sleep 0.05
	done
}

# sleeper NAME: $dir/NAME, a link to sleep(1) whose command line names the
# process uniquely: "pgrep -f $dir/NAME" finds exactly the job processes
# that run it, wherever they went (their own session, another parent).
sleeper() {
	ln -sf "$(command -v sleep)" "$dir/$1"
}

# procs NAME: the pids of processes running $dir/NAME (see sleeper): their
# command line starts with it (not a shell or setsid(1) that names it).
procs() {
	pgrep -f -- "^$dir/$1( |\$)" | tr '\n' ' ' | sed 's/ $//'
}

# no_procs NAME: whether no process runs $dir/NAME.
no_procs() {
	[ -z "$(procs "$1")" ]
}

# max_overlap FILE: the largest number of intervals of FILE (lines
# "... START END", numbers in the last two fields) that hold one instant
# (an end at the same instant as a start is counted before it).
max_overlap() {
	awk '{ print $(NF - 1), 1; print $NF, 0 }' "$1" | sort -k1,1n -k2,2n |
	    awk '$2 == 1 { if (++n > m) m = n; next } { n-- } END { print m + 0 }'
}

# attempt_field RUN_ID ATTEMPT COLUMN: a column of an attempt row.
attempt_field() {
	sql "SELECT a.$3 FROM attempts a JOIN runs r ON a.run = r.id
	    WHERE r.run_id = '$1' AND a.attempt = $2"
}

# faketime_env: set $ftenv, the environment that runs the daemon under
# libfaketime with its wall clock offset by the contents of
# $dir/faketime.rc ("+0" to start with; the monotonic clock stays real),
# or exit 77 when libfaketime is missing or does not work here.
faketime_env() {
	_ft=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
	[ -r "$_ft" ] || { echo "libfaketime ($_ft) is not installed"; exit 77; }
	# libfaketime 0.9.10: FAKETIME_DONT_FAKE_MONOTONIC.
	ftenv="LD_PRELOAD=$_ft FAKETIME_TIMESTAMP_FILE=$dir/faketime.rc
	    FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1
	    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	echo "+3600" >"$dir/faketime.rc"
	# shellcheck disable=SC2086
	_faked=$(env $ftenv date +%s)
	[ $((_faked - $(now))) -ge 3590 ] ||
	    { echo "libfaketime does not move the clock here"; exit 77; }
	echo "+0" >"$dir/faketime.rc"
}

# log_line TEXT [N]: the line number in the log of the Nth (1st) line
# containing TEXT, or 0.
log_line() {
	grep -nF -- "$1" "$log" | sed -n "${2:-1}p" | sed 's/:.*//;s/^$/0/' |
	    grep . || echo 0
}

# expect_before WHAT TEXT1 N1 TEXT2 N2: the N1th log line with TEXT1 comes
# before the N2th with TEXT2 (both exist).
expect_before() {
	checks=$((checks + 1))
	_eb1=$(log_line "$2" "$3") _eb2=$(log_line "$4" "$5")
	[ "$_eb1" -gt 0 ] && [ "$_eb2" -gt 0 ] && [ "$_eb1" -lt "$_eb2" ] ||
	    fail "$1: line $_eb1 ($2) is not before line $_eb2 ($4)"
}

# --- helpers for the tickctl tests ----------------------------------------------

# ctl ARGS...: tickctl on the test's configuration.
ctl() {
	"$TICKCTL" -c "$dir/tickd.conf" "$@"
}

# json_lines FIELD...: whether stdin is JSON lines, each one an object
# holding every FIELD (null allowed); prints the problem otherwise.
json_lines() {
	"$python" -c '
import json, sys
n = 0
for i, l in enumerate(sys.stdin, 1):
    try:
        o = json.loads(l)
    except ValueError as e:
        sys.exit("line %d is not JSON (%s): %r" % (i, e, l[:200]))
    if not isinstance(o, dict):
        sys.exit("line %d is not an object: %r" % (i, l[:200]))
    miss = [f for f in sys.argv[1:] if f not in o]
    if miss:
        sys.exit("line %d lacks %s: %r" % (i, ", ".join(miss), l[:300]))
    n += 1
if n == 0:
    sys.exit("no JSON line")
' "$@"
}

# expect_json WHAT FIELD... <INPUT: the input is JSON lines holding FIELDs.
expect_json() {
	_ej_what=$1
	shift
	checks=$((checks + 1))
	_ej_why=$(json_lines "$@" 2>&1) || check_fail "$_ej_what: $_ej_why"
}

# jpy EXPR <INPUT: evaluate the Python expression EXPR over L, the list of
# JSON objects read from stdin (one per line; "o" is the first); print the
# result: a list one element per line, None as "null", a string as it is,
# anything else as JSON (true, 3, ...).  EXPR may span lines.  Example: ctl --json list | jpy '[x["job"] for x in L]'
jpy() {
	"$python" -c '
import json, sys
L = [json.loads(l) for l in sys.stdin if l.strip()]
o = L[0] if L else None
r = eval("(" + sys.argv[1] + "\n)")
for x in (r if isinstance(r, list) else [r]):
    print("null" if x is None else x if isinstance(x, str) else json.dumps(x))
' "$1"
}

# ctl_send TEXT [SOCKET]: send TEXT (Python escapes such as \n allowed)
# on the control socket ($dir/ctl.sock) as one write, and print what comes
# back until the daemon closes (a reset after its reply counts as the
# close: the daemon may leave part of an oversized request unread).
# "connect: REASON" when the connection is refused.  $ctl_wrap, if set,
# is a command that runs the client (e.g. setpriv as another user).
ctl_wrap=
ctl_send() {
	# shellcheck disable=SC2086
	$ctl_wrap "$python" -c '
import socket, sys
data = sys.argv[1].encode().decode("unicode_escape").encode("latin-1")
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
try:
    s.connect(sys.argv[2])
except OSError as e:
    print("connect: %s" % e.strerror)
    sys.exit(0)
try:
    s.sendall(data)
except OSError:
    pass
out = b""
while True:
    try:
        b = s.recv(65536)
    except ConnectionResetError:
        break
    if not b:
        break
    out += b
sys.stdout.write(out.decode("utf-8", "replace"))
' "$1" "${2:-$dir/ctl.sock}"
}

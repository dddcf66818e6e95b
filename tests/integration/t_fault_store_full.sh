#!/bin/sh
# Store trouble (issue 7), writes that fail: the state's file system full,
# and the daemon's file size limit (RLIMIT_FSIZE) reached.  In both, tickd
# must not crash or exit; it logs the store error at error level, starts
# nothing it cannot claim, keeps the writes it could not make (the end of
# a run that finished meanwhile) and makes them when it can, logs the
# recovery, and afterwards every run that started is a row (job markers =
# rows), nothing twice, every instant accounted for.
#
# 1. A 4 MiB tmpfs holds the state; a dummy file fills it while jobs run,
#    for FAULT_FULL_SECONDS (5; 30 in tests/long), then is removed.  Needs
#    mount(8) (root, and a system that allows it): when it fails, the
#    test ends with status 77 after part 2, saying so.
# 2. The daemon's soft RLIMIT_FSIZE lowered to 4 KiB (prlimit(1)) while it
#    runs: every WAL write past that offset fails (EFBIG, "disk I/O
#    error" from SQLite), then the limit is raised again.  The kernel also
#    sends SIGXFSZ, which kills a process by default: tickd must ignore
#    it.  If it dies, that is reported and part 2 is run again with
#    SIGXFSZ ignored from the start, to check the rest.  tickd's stderr
#    goes through a pipe here, so that its log lines are not cut by the
#    limit.
. tests/integration/lib.sh
setup
[ -x /bin/bash ] || { echo "bash is missing"; exit 77; }
F=${FAULT_FULL_SECONDS:-5}
mnt=$dir/mnt
mounted=0
skip_full=

# The EXIT trap: the daemon killed and the tmpfs unmounted before the
# directory is removed.
fs_cleanup() {
	_fs_rc=$?
	if [ "$mounted" = 1 ]; then
		if [ -n "$tickd_pid" ]; then
			kill -KILL "$tickd_pid" 2>/dev/null
			wait "$tickd_pid" 2>/dev/null
			tickd_pid=
		fi
		kill_groups
		umount "$mnt" 2>/dev/null || umount -l "$mnt"
	fi
	(exit "$_fs_rc")
	cleanup
}
trap fs_cleanup EXIT

# mark NAME: a job command that appends "RUN_ID START_MS" to NAME.out.
mark() {
	echo "echo \"\$TICKD_RUN_ID \$(date +%s%3N)\" >> @DIR@/$1.out"
}

# jobs_write: tick, every second, and slow, which starts when slow.go
# exists (once: slow.id) and ends when slow.end does (slow.done).
jobs_write() {
	write_job tick.job <<EOF2
[tick]
schedule = every 1s
command = $(mark tick)
EOF2
	write_job slow.job <<'EOF2'
[slow]
schedule = every 1s
command = [ -e @DIR@/slow.go ] && [ ! -e @DIR@/slow.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/slow.id; while [ ! -e @DIR@/slow.end ]; do sleep 0.1; done; touch @DIR@/slow.done
EOF2
}

# slow_start: start the slow job's run and wait for it.
slow_start() {
	rm -f "$dir/slow.id" "$dir/slow.end" "$dir/slow.done"
	touch "$dir/slow.go"
	wait_for "slow to start" 10 test -s "$dir/slow.id"
	sid=$(cat "$dir/slow.id")
}

# after_fault WHAT T_FAULT T_BACK: the checks once the store works again
# and the daemon stopped: the run that ended during the fault was written
# afterwards with its own times; markers and rows agree; every instant is
# accounted for.
after_fault() {
	expect_eq "$1: slow's end, written after the fault" "$(sql "SELECT
	    r.status, r.exit_status, r.finished_at > $2, r.finished_at < $3,
	    a.outcome, a.finished_at = r.finished_at FROM runs r JOIN attempts
	    a ON a.run = r.id WHERE r.run_id = '$sid'")" \
	    "succeeded|0|1|1|succeeded|1"
	cut -d ' ' -f 1 "$dir/tick.out" >"$dir/tick.ids"
	expect_runs_match "$dir/tick.ids" "job = 'tick'"
	expect_accounted tick "$1"
	expect_eq "$1: nothing left running" "$(sql "SELECT count(*) FROM runs
	    WHERE status IN ('running', 'pending')")" 0
	expect_eq "$1: the database is sound" "$(sql "PRAGMA integrity_check")" ok
}

# --- 1. the file system full ---------------------------------------------------
echo "1. the state's file system full for $F s"
mkdir "$mnt"
if ! mount -t tmpfs -o size=4m,mode=0700 tmpfs "$mnt" 2>"$dir/mount.err"; then
	skip_full="mount -t tmpfs failed: $(head -n 1 "$dir/mount.err")"
	echo "skipped: $skip_full"
else
	mounted=1
	write_conf "state = $mnt/tickd.db"
	db=$mnt/tickd.db
	jobs_write
	daemon_start
	wait_for "2 runs of tick" 10 eval '[ "$(lines "$dir/tick.out")" -ge 2 ]'
	slow_start
	# Until ENOSPC.
	dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
	t_fill=$(now_ms)
	expect_eq "tmpfs: full" "$(df --output=avail "$mnt" | tail -n 1 |
	    tr -d ' ')" 0
	touch "$dir/slow.end"
	wait_for "the store error" 15 log_has "database or disk is full"
	wait_for "slow to end" 10 test -e "$dir/slow.done"
	wait_until $((t_fill / 1000 + F))
	pid_alive "$tickd_pid" || fail "tickd exited while the disk was full"
	expect_eq "full: slow's end waits in memory" "$(sql "SELECT status
	    FROM runs WHERE run_id = '$sid'")" running
	rm -f "$mnt/fill"
	t_free=$(now_ms)
	n_during=$(awk -v a="$t_fill" -v b="$t_free" '$2 > a && $2 < b { n++ }
	    END { print n + 0 }' "$dir/tick.out")
	wait_for "the store back" 15 log_has "store available again"
	wait_for "a tick run after the space returned" 10 eval "[ \"\$(sql \"SELECT
	    count(*) FROM runs WHERE job = 'tick' AND status = 'succeeded' AND
	    scheduled_at * 1000 > $t_free + 1000\")\" -ge 1 ]"
	daemon_stop_ok

	expect_match "full: logged at error level" \
	    "$(grep -F 'runs are delayed' "$log" | head -n 1)" \
	    "tickd: error: store *: database or disk is full: runs are delayed until it is available"
	expect_eq "full: logged once" "$(log_count 'runs are delayed')" 1
	back=$(sed -n 's/^tickd: notice: store available again after //p' \
	    "$log" | head -n 1)
	after_fault full "$t_fill" "$t_free"
	echo "full: disk full for $((t_free - t_fill)) ms, store back after $back; $(lines "$dir/tick.ids") tick runs checked ($n_during started while the disk was full), slow's end written afterwards"
	# Last: a decision is logged when it commits, not at every retry of a
	# transaction that cannot commit.
	soft_checks=1
	expect_eq "full: each decision logged once" \
	    "$(grep -c '^tickd: warning: job tick: .*instances\{0,1\} from .* skipped (' "$log")" \
	    "$(sql "SELECT count(*) FROM decisions WHERE job = 'tick'")"
	soft_checks=0
	kill_groups
	umount "$mnt" || umount -l "$mnt"
	mounted=0
fi

# --- 2. RLIMIT_FSIZE ----------------------------------------------------------
echo "2. the daemon's file size limit reached"
command -v prlimit >/dev/null || { echo "prlimit is missing"; exit 77; }
write_conf
db=$dir/state/tickd.db
log=$dir/tickd-fsize.log
: >"$log"
rm -f "$dir"/tick.* "$dir"/slow.*
jobs_write
# run-piped [--ignore-xfsz] CMD...: CMD with stderr through a pipe (the
# same pid: exec), SIGXFSZ ignored if asked.
cat >"$dir/run-piped" <<'EOF2'
#!/bin/bash
[ "$1" = --ignore-xfsz ] && { trap '' XFSZ; shift; }
exec "$@" 2> >(exec cat >&2)
EOF2
chmod +x "$dir/run-piped"
read -r soft0 hard0 <<EOF2
$(prlimit --pid $$ --fsize --output SOFT,HARD --noheadings --raw)
EOF2

# fsize_round: start the daemon, start slow, lower the limit, let slow end;
# wait for the store error or the daemon's death.
fsize_round() {
	daemon_start
	wait_for "2 runs of tick" 10 eval '[ "$(lines "$dir/tick.out")" -ge 2 ]'
	slow_start
	prlimit --pid "$tickd_pid" --fsize=4096:"$hard0" ||
	    fail "prlimit cannot lower the file size limit"
	t_limit=$(now_ms)
	touch "$dir/slow.end"
	wait_for "the store error, or the daemon's end" 15 eval \
	    'log_has "runs are delayed" || ! pid_alive "$tickd_pid"'
}
tickd_wrap="$dir/run-piped"
fsize_round
if ! pid_alive "$tickd_pid"; then
	wait "$tickd_pid"
	st=$?
	tickd_pid=
	[ "$st" -gt 128 ] && st="$st, SIG$(kill -l $((st - 128)))"
	soft_fail "fsize: tickd died (status $st) when a write reached its file size limit: it must ignore SIGXFSZ and see EFBIG"
	echo "fsize: again with SIGXFSZ ignored from the start, on a new database"
	kill_groups
	write_conf "state = state2/tickd.db"
	db=$dir/state2/tickd.db
	mv "$dir/tick.out" "$dir/tick.round1"
	tickd_wrap="$dir/run-piped --ignore-xfsz"
	fsize_round
fi
pid_alive "$tickd_pid" || fail "fsize: tickd died with SIGXFSZ ignored"
wait_for "slow to end" 10 test -e "$dir/slow.done"
wait_until $((t_limit / 1000 + F))
pid_alive "$tickd_pid" || fail "fsize: tickd exited while over its limit"
prlimit --pid "$tickd_pid" --fsize="$soft0:$hard0" ||
    fail "prlimit cannot restore the file size limit"
t_free=$(now_ms)
wait_for "the store back" 15 log_has "store available again"
wait_for "a tick run after the limit" 10 eval "[ \"\$(sql \"SELECT count(*)
    FROM runs WHERE job = 'tick' AND status = 'succeeded' AND
    scheduled_at * 1000 > $t_free + 1000\")\" -ge 1 ]"
daemon_stop_ok
expect_match "fsize: logged at error level" \
    "$(grep -F 'runs are delayed' "$log" | tail -n 1)" \
    "tickd: error: store *: disk I/O error: runs are delayed until it is available"
back=$(sed -n 's/^tickd: notice: store available again after //p' "$log" |
    head -n 1)
after_fault fsize "$t_limit" "$t_free"
echo "fsize: over the limit for $((t_free - t_limit)) ms, store back after $back; $(lines "$dir/tick.ids") tick runs checked"

if [ -n "$skip_full" ]; then
	[ "$soft_failed" -gt 0 ] && done_ok
	echo "$checks checks passed (file size limit); the full file system part was skipped: $skip_full"
	exit 77
fi
done_ok

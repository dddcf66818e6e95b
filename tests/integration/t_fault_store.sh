#!/bin/sh
# Store trouble (issue 7): tickd keeps working when its SQLite file cannot
# be written, loses nothing and runs nothing twice, and refuses a file it
# cannot trust.  (A full file system and a file size limit are in
# t_fault_store_full.sh; the long variants in tests/long.)
#
# 1. The write lock held by another process for FAULT_LOCK_SECONDS (6 s
#    here, 30 s in tests/long/t_fault_store_long.sh; t_daemon_busy.sh has
#    the 2 s case, on-time instances only): jobs due every second under
#    the three misfire policies, misfire_grace 2s, so most instances due
#    during the lock are late.  No job process starts while the lock is
#    held (a claim is committed before the fork): every marker a job
#    writes has its run row, no run id twice; afterwards every instant is
#    one run or counted in one decision (run_once: coalesced; catch_up:
#    the newest catch_up_limit run, with their lateness, older ones
#    catch_up_limit; skip: misfire); the trouble (warning) and the
#    recovery (notice, with its length) are logged, each decision once.
# 2. The state file deleted or replaced (renamed over) under a running
#    daemon.  Chosen behaviour: the daemon notices before its next write
#    (SQLITE_FCNTL_HAS_MOVED), says so at error level, empties its WAL
#    into the old file and writes nothing more, so no job starts, until
#    it is restarted and opens the file now at the path.  Going on with
#    the open descriptor would commit claims into a file that vanishes at
#    the next start ("claimed before fork" would then mean nothing), and
#    its WAL, still named after the path, would be read over the new
#    file.  Checked: detection; nothing started afterwards; renamed back,
#    it goes on; the replacement (an older copy) stays sound while the
#    daemon runs; after a restart no run id appears twice (misfire
#    run_once, overlap skip: only the newest due instance runs); a
#    deleted file gives a fresh database, without the old WAL's pages.
# 3. A damaged file at startup: garbage over the header, truncated, a
#    page overwritten, an SQLite file that is not tickd's (with and
#    without a schema version): tickd exits 1 with one line naming the
#    file and the recovery in tickd(8), runs no job, leaves the file as
#    it was; tickctl status and check say why they cannot read it (all
#    but the overwritten page, which only PRAGMA quick_check finds).
#    Then the documented recovery: moved aside, tickd starts afresh.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }
L=${FAULT_LOCK_SECONDS:-6}
RECOVER='move it aside to recover it or start afresh (see "If the database is corrupt" in tickd(8))'

# mark NAME: a job command that appends "RUN_ID START_MS" to NAME.out.
mark() {
	echo "echo \"\$TICKD_RUN_ID \$(date +%s%3N)\" >> @DIR@/$1.out"
}

# ids NAME: NAME.out's run ids, one a line, in NAME.ids.
ids() {
	cut -d ' ' -f 1 "$dir/$1.out" >"$dir/$1.ids" 2>/dev/null
}

# instant RUN_ID: the instant of a run id, in Unix seconds.
instant() {
	date -u -d "$(echo "${1#*@}" | sed 's/T/ /;s/Z$//')" +%s
}

# ran_after NAME MS: how many markers of NAME.out are for an instant
# after MS.  A claim for instant S commits at S or later: such a marker
# means a claim committed after MS.
ran_after() {
	n=0
	for _id in $(cut -d ' ' -f 1 "$dir/$1.out" 2>/dev/null); do
		[ $(($(instant "$_id") * 1000)) -gt "$2" ] && n=$((n + 1))
	done
	echo $n
}

# started_early NAME FROM TO: how many markers of NAME.out are for an
# instant after FROM (Unix ms: it cannot have been claimed before) but
# started before TO.  A job writes its marker after its fork, so only
# a process that started before TO can have a marker before TO.
started_early() {
	n=0
	while read -r _id _ms; do
		[ $(($(instant "$_id") * 1000)) -gt "$2" ] && [ "$_ms" -lt "$3" ] &&
		    n=$((n + 1))
	done <"$dir/$1.out"
	echo $n
}

# decisions_logged_once JOB: each decision row of JOB was logged once.
decisions_logged_once() {
	expect_eq "$1: each decision logged once" \
	    "$(grep -c "^tickd: warning: job $1: .*instances\{0,1\} from .* skipped (" \
	    "$log")" \
	    "$(sql "SELECT count(*) FROM decisions WHERE job = '$1'")"
}

# --- 1. the write lock --------------------------------------------------------
echo "1. the database write-locked by another process for $L s"
write_job once.job <<EOF2
[once]
schedule = every 1s
misfire_grace = 2s
command = $(mark once)
EOF2
write_job catch.job <<EOF2
[catch]
schedule = every 1s
misfire = catch_up
catch_up_limit = 2
misfire_grace = 2s
command = $(mark catch)
EOF2
write_job skip.job <<EOF2
[skip]
schedule = every 1s
misfire = skip
misfire_grace = 2s
command = $(mark skip)
EOF2
daemon_start
for j in once catch skip; do
	wait_for "2 runs of $j" 10 eval "[ \$(lines \"\$dir/$j.out\") -ge 2 ]"
done
hold_lock "$L" >"$dir/lock.state" &
wait_for "the lock" 10 grep -q '^locked' "$dir/lock.state"
wait_for "the unlock" $((L + 15)) grep -q '^unlocked' "$dir/lock.state"
t_lock=$(sed -n 's/^locked //p' "$dir/lock.state")
t_unlock=$(sed -n 's/^unlocked //p' "$dir/lock.state")
# Afterwards each job runs on time again, and the catch-up runs are done.
for j in once catch skip; do
	wait_for "$j: a run after the lock" 15 eval "[ \"\$(sql \"SELECT
	    count(*) FROM runs WHERE job = '$j' AND status = 'succeeded' AND
	    scheduled_at * 1000 > $t_unlock + 1000\")\" -ge 1 ]"
done
wait_for "catch: its catch-up runs" 15 eval "[ \"\$(sql \"SELECT count(*)
    FROM runs WHERE job = 'catch' AND trigger = 'catch_up' AND
    status = 'succeeded'\")\" -ge 2 ]"
daemon_stop_ok

expect_match "trouble logged at warning level" \
    "$(grep -F 'runs are delayed' "$log" | head -n 1)" \
    "tickd: warning: store *: database is locked: runs are delayed until it is available"
expect_eq "trouble logged once" "$(log_count 'runs are delayed')" 1
back=$(sed -n 's/^tickd: notice: store available again after \([0-9]*\)s$/\1/p' \
    "$log" | head -n 1)
expect_match "recovery logged, with its length" "$back" "[0-9]*"
# The lock began up to a second before the daemon met it.
[ "${back:-0}" -ge $((L - 2)) ] ||
    fail "recovery after ${back}s, but the lock lasted ${L}s"
echo "lock held $((t_unlock - t_lock)) ms; the daemon reported the store back after ${back}s"

# No process started while the lock was held: an instant after the start
# of the lock cannot be claimed before its end (the fork comes after the
# commit), seen from the job (its marker) and from the daemon (attempts).
runs=0 lost=0
for j in once catch skip; do
	ids "$j"
	expect_eq "$j: no job process of the lock's instants started during it" \
	    "$(started_early "$j" "$t_lock" "$t_unlock")" 0
	expect_runs_match "$dir/$j.ids" "job = '$j'"
	expect_accounted "$j"
	decisions_logged_once "$j"
	# The runs of instants during the lock started after it, and say how
	# late they were.
	expect_eq "$j: runs of the lock's instants started after it, lateness
	    recorded" "$(sql "SELECT count(*) FROM attempts a JOIN runs r ON
	    a.run = r.id WHERE r.job = '$j' AND r.scheduled_at * 1000 > $t_lock
	    AND r.scheduled_at * 1000 < $t_unlock AND NOT (a.started_at >=
	    $t_unlock AND a.lateness_ms = a.started_at - r.scheduled_at *
	    1000)")" 0
	runs=$((runs + $(lines "$dir/$j.ids")))
done
# run_once: the instants of the lock collapse into the newest.
expect_eq "once: one decision for the lock, coalesced" "$(sql "SELECT
    count(*), min(decision), min(reason), min(count = last_at - first_at + 1),
    min(count >= $L - 2) FROM decisions WHERE job = 'once' AND
    last_at * 1000 > $t_lock")" "1|skipped|coalesced|1|1"
expect_eq "once: the newest runs" "$(sql "SELECT count(*) FROM runs r,
    decisions d WHERE r.job = 'once' AND d.job = 'once' AND
    d.last_at * 1000 > $t_lock AND r.scheduled_at = d.last_at + 1 AND
    r.status = 'succeeded'")" 1
# catch_up: the newest 2 late instants run, late; older ones are one
# decision.
expect_eq "catch: 2 catch-up runs of the lock's instants, late by more than
    misfire_grace" "$(sql "SELECT count(*), min(a.lateness_ms >= 2000),
    min(a.trigger) FROM runs r JOIN attempts a ON a.run = r.id WHERE
    r.job = 'catch' AND r.trigger = 'catch_up'")" "2|1|catch_up"
expect_eq "catch: older late instants, one decision" "$(sql "SELECT count(*),
    min(reason), min(count >= $L - 5) FROM decisions WHERE job = 'catch' AND
    reason = 'catch_up_limit' AND last_at * 1000 > $t_lock")" "1|catch_up_limit|1"
# skip: the late ones are one decision.
expect_eq "skip: late instants, one decision" "$(sql "SELECT count(*),
    min(count >= $L - 3) FROM decisions WHERE job = 'skip' AND
    reason = 'misfire' AND last_at * 1000 > $t_lock")" "1|1"
late=$(sql "SELECT max(a.lateness_ms) FROM attempts a JOIN runs r ON
    a.run = r.id WHERE r.scheduled_at * 1000 > $t_lock")
dec=$(sql "SELECT coalesce(sum(count), 0) FROM decisions WHERE
    last_at * 1000 > $t_lock")
echo "runs checked: $runs (markers = rows, none twice); instances of the lock in decisions: $dec; largest lateness: $late ms"

# --- 2. the file deleted or replaced under the daemon ---------------------------
echo "2. the state file deleted or replaced while the daemon runs"
rm -f "$jobs"/*.job
write_job tick.job <<EOF2
[tick]
schedule = every 1s
command = $(mark tick)
EOF2
daemon_start
wait_for "2 runs of tick" 10 eval '[ "$(lines "$dir/tick.out")" -ge 2 ]'

# 2a. Renamed away and back: noticed, then writes resume.
mv "$db" "$db.away"
wait_for "the move noticed" 10 log_has "was deleted or replaced while tickd ran"
expect_match "move: logged at error level" \
    "$(grep -F 'was deleted or replaced' "$log" | head -n 1)" \
    "tickd: error: store *: *state/tickd.db was deleted or replaced while tickd ran: nothing more is written to it; restart tickd to use the file now at that path: runs are delayed until it is available"
n_back=$(log_count "store available again")
mv "$db.away" "$db"
wait_for "writes to resume" 10 eval '[ "$(log_count "store available again")" -gt "$n_back" ]'
t_back=$(now_ms)
wait_for "a run after the return" 10 eval "[ \"\$(sql \"SELECT count(*)
    FROM runs WHERE job = 'tick' AND status = 'succeeded' AND
    scheduled_at * 1000 > $t_back\")\" -ge 1 ]"

# 2b. Replaced by an older copy (renamed over it).
sql ".backup '$dir/state/old.db'" || fail "cannot copy the database"
t_copy=$(now_ms)
n_tick=$(lines "$dir/tick.out")
wait_for "2 runs after the copy" 10 eval '[ "$(lines "$dir/tick.out")" -ge $((n_tick + 2)) ]'
n_err=$(log_count "was deleted or replaced")
mv -f "$dir/state/old.db" "$db"
wait_for "the replacement noticed" 10 eval '[ "$(log_count "was deleted or replaced")" -gt "$n_err" ]'
t_detect=$(now_ms)
pid_alive "$tickd_pid" || fail "tickd exited after the replacement"
# The file now at the path is the copy, whole: no page of the daemon's
# WAL read over it.
expect_eq "replacement: sound while the daemon runs" \
    "$(sql "PRAGMA integrity_check")" ok
expect_eq "replacement: holds only what was copied" "$(sql "SELECT
    count(*) FROM runs WHERE scheduled_at * 1000 > $t_copy")" 0
# Let time pass: nothing is claimed after the daemon noticed.
wait_until $((t_detect / 1000 + 3))
expect_eq "replacement: no run claimed after it was noticed" \
    "$(ran_after tick "$t_detect")" 0
lost=$(ran_after tick "$t_copy")
daemon_stop_ok
t_restart=$(now_ms)
daemon_start
wait_for "a run on the replacement" 10 eval "[ \"\$(sql \"SELECT count(*)
    FROM runs WHERE job = 'tick' AND status = 'succeeded' AND
    scheduled_at * 1000 > $t_restart\")\" -ge 1 ]"
daemon_stop_ok
ids tick
expect_eq "replacement: no run id twice across the restart" \
    "$(sort "$dir/tick.ids" | uniq -d)" ""
# Each run after the restart is a row; the instants the old file alone
# knew are one decision (on time: the newest runs, overlap = skip).
grep -xF "$(sql "SELECT run_id FROM runs WHERE job = 'tick' AND
    scheduled_at * 1000 > $t_restart - 1000")" "$dir/tick.ids" \
    >"$dir/tick.after" 2>/dev/null
expect_runs_match "$dir/tick.after" "job = 'tick' AND scheduled_at * 1000 >
    $t_restart - 1000"
expect_accounted tick "after the replacement"
echo "replacement: $lost runs were recorded only in the replaced file (lost, not run again)"

# 2c. Deleted: a restart creates a new file, without the old WAL's pages.
daemon_start
wait_for "a run" 10 eval "[ \"\$(sql \"SELECT count(*) FROM runs WHERE
    job = 'tick' AND status = 'succeeded' AND
    scheduled_at * 1000 > $(now_ms)\")\" -ge 1 ]"
n_err=$(log_count "was deleted or replaced")
rm -f "$db"
wait_for "the deletion noticed" 10 eval '[ "$(log_count "was deleted or replaced")" -gt "$n_err" ]'
t_detect=$(now_ms)
wait_until $((t_detect / 1000 + 3))
expect_eq "deletion: no run claimed after it was noticed" \
    "$(ran_after tick "$t_detect")" 0
pid_alive "$tickd_pid" || fail "tickd exited after the deletion"
expect_eq "deletion: the WAL left at the path is empty" \
    "$(stat -c %s "$db-wal" 2>/dev/null || echo 0)" 0
daemon_stop_ok
t_restart=$(now_ms)
daemon_start
wait_for "a run on the new file" 10 eval "[ \"\$(sql \"SELECT count(*)
    FROM runs WHERE job = 'tick' AND status = 'succeeded'\")\" -ge 1 ]"
expect_eq "deletion: the new file is sound" "$(sql "PRAGMA integrity_check")" ok
expect_eq "deletion: the new file is new" "$(sql "SELECT count(*) FROM runs
    WHERE scheduled_at * 1000 < $t_restart - 1000")" 0
daemon_stop_ok
ids tick
expect_eq "deletion: no run id twice across the restart" \
    "$(sort "$dir/tick.ids" | uniq -d)" ""
echo "tick: $(lines "$dir/tick.ids") runs checked, none twice"

# --- 3. a damaged file at startup -------------------------------------------
echo "3. a damaged database, or not tickd's, at startup"
cp "$db" "$dir/good.db"
pages=$(sqlite3 "$dir/good.db" "PRAGMA page_count")
psize=$(sqlite3 "$dir/good.db" "PRAGMA page_size")
root=$(sqlite3 "$dir/good.db" "SELECT rootpage FROM sqlite_schema WHERE
    name = 'runs'")
[ "$pages" -ge 4 ] || fail "the database has only $pages pages"
# damage CASE: make $db the damaged file of CASE.
damage() {
	rm -f "$db" "$db-wal" "$db-shm"
	case $1 in
	header)	cp "$dir/good.db" "$db"
		head -c 100 /dev/urandom |
		    dd of="$db" conv=notrunc status=none ;;
	truncated)
		cp "$dir/good.db" "$db"
		truncate -s $((pages / 2 * psize)) "$db" ;;
	page)	cp "$dir/good.db" "$db"
		head -c 64 /dev/urandom | dd of="$db" bs=1 \
		    seek=$(((root - 1) * psize)) conv=notrunc status=none ;;
	foreign)
		sqlite3 "$db" "CREATE TABLE notes (t TEXT);
		    INSERT INTO notes VALUES ('mine')" ;;
	foreign7)
		sqlite3 "$db" "CREATE TABLE notes (t TEXT);
		    PRAGMA user_version = 9" ;;
	esac
}
n_ran=$(lines "$dir/tick.out")
for c in header truncated page foreign foreign7; do
	damage $c
	sum=$(md5sum <"$db")
	run_cmd timeout $((20 * slow)) "$TICKD" -c "$dir/tickd.conf" \
	    --log-target=stderr
	expect_eq "$c: tickd exits 1" "$rc" 1
	expect_eq "$c: one line on stderr" "$(printf '%s\n' "$err" | wc -l)" 1
	case $c in
	header)	why="file is not a database" ;;
	truncated) why="database disk image is malformed" ;;
	page)	why="the database is damaged: *" ;;
	foreign) why="not a tickd database (tables, but no schema version): check the state setting, or" ;;
	foreign7) why="not a tickd database (a schema version, but not tickd's tables): check the state setting, or" ;;
	esac
	expect_match "$c: names the file, the problem, the recovery" "$err" \
	    "tickd: error: store: $dir/state/tickd.db: $why*$RECOVER"
	expect_eq "$c: the file left as it was" "$(md5sum <"$db")" "$sum"
	expect_eq "$c: no job ran" "$(lines "$dir/tick.out")" "$n_ran"
	# tickctl reads without quick_check: a damaged page inside is only
	# found when a query reaches it.
	[ $c = page ] && continue
	case $c in
	foreign*) want="cannot read: not a tickd database*" ;;
	*)	want="cannot read: $why" ;;
	esac
	run_cmd ctl status
	expect_match "$c: tickctl status says why" "$out" \
	    "*state *$dir/state/tickd.db: $want*"
	run_cmd ctl check
	expect_eq "$c: tickctl check fails" "$rc" 1
	expect_match "$c: tickctl check says why" "$out" \
	    "*state $dir/state/tickd.db: $want*"
done
# The documented recovery, starting afresh: the file moved aside.
for f in "$db" "$db-wal" "$db-shm"; do
	[ -e "$f" ] && mv "$f" "$dir/state/old-${f##*/}"
done
daemon_start
wait_for "a run after starting afresh" 10 eval \
    '[ "$(lines "$dir/tick.out")" -gt "$n_ran" ]'
daemon_stop_ok
expect_eq "afresh: the new file is sound" "$(sql "PRAGMA quick_check")" ok
expect_eq "afresh: the file moved aside is untouched" \
    "$(md5sum <"$dir/state/old-tickd.db")" "$sum"
done_ok

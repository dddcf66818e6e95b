#!/bin/sh
# One tickd per state database: a second one on the same state exits
# non-zero at once, naming the pid of the first, which keeps running.
# The same database reached through a symbolic link to the file or to
# its directory is the same state (the lock is on the database file);
# a database with a second hard link is refused.
. tests/integration/lib.sh
setup
write_job tick.job <<'EOF2'
[tick]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/out
EOF2
daemon_start
first=$tickd_pid
wait_for "a run" 10 test -s "$dir/out"

# other NAME STATE: a configuration like tickd.conf with state = STATE
# and a control socket of its own, in $dir/NAME.conf.
other() {
	sed -e "s|^state = .*|state = $2|" -e "s|^control = .*|control = $1.sock|" \
	    "$dir/tickd.conf" >"$dir/$1.conf"
}

# refused WHAT CONF MESSAGE: tickd -c CONF exits non-zero at once with
# MESSAGE on stderr and nothing on stdout.
refused() {
	"$TICKD" -c "$2" --log-target=stderr >"$dir/second.out" \
	    2>"$dir/second.err" &
	second=$!
	end=$(($(now) + 10 * slow))
	while pid_alive "$second"; do
		[ "$(now)" -le "$end" ] || { kill -KILL "$second";
		    fail "$1: the second tickd is still running"; }
		sleep 0.05
	done
	wait "$second"
	rc=$?
	checks=$((checks + 1))
	[ "$rc" -ne 0 ] || fail "$1: exit status 0"
	expect_eq "$1: message" "$(cat "$dir/second.err")" "$3"
	expect_eq "$1: stdout" "$(cat "$dir/second.out")" ""
}

inuse="tickd: critical: fatal: state $db is in use by another tickd (pid $first): only one daemon may use a state database"
# in_use STATE: the refusal of a daemon configured with STATE.
in_use() {
	echo "tickd: critical: fatal: state $1 (the file $db) is in use by another tickd (pid $first): only one daemon may use a state database"
}
ln -s tickd.db "$dir/state/link.db"
ln -s state "$dir/alias"
other link "$dir/state/link.db"
other alias alias/tickd.db
for attempt in 1 2; do
	refused "same configuration ($attempt)" "$dir/tickd.conf" "$inuse"
done
refused "a symbolic link to the database" "$dir/link.conf" \
    "$(in_use "$dir/state/link.db")"
refused "a symbolic link to its directory" "$dir/alias.conf" \
    "$(in_use "$dir/alias/tickd.db")"
out=$("$TICKCTL" -c "$dir/link.conf" status 2>&1)
expect_match "tickctl through the link sees the daemon" "$out" \
    "daemon   running, pid $first, since *"
expect_eq "no lock file beside the link" "$(ls "$dir/state" | grep -c link)" 1
# A FIFO in place of the .lock file: tickctl and a second tickd do not
# wait on it (the lock is found in /proc/locks by the database's inode).
mv "$db.lock" "$dir/lock.saved"
mkfifo -m 600 "$db.lock"
run_cmd timeout $((10 * slow)) "$TICKCTL" -c "$dir/tickd.conf" status
expect_match "a FIFO for the .lock file: tickctl status answers" "$out" \
    "daemon   running, pid $first, since *"
refused "a FIFO for the .lock file" "$dir/tickd.conf" "$inuse"
rm "$db.lock"
mv "$dir/lock.saved" "$db.lock"

# The first one is unharmed: it still runs jobs.
checks=$((checks + 1))
pid_alive "$first" || fail "the first tickd is gone"
t=$(now)
wait_for "a run after the refusals" 10 eval "[ \"\$(sql \"SELECT count(*)
    FROM runs WHERE scheduled_at > $t AND status = 'succeeded'\")\" -ge 1 ]"
expect_eq "no run interrupted" "$(sql "SELECT count(*) FROM runs
    WHERE status = 'interrupted'")" 0
expect_eq "lock file names the first" "$(cat "$db.lock")" "$first"
daemon_stop_ok
expect_eq "one line per run" "$(sort "$dir/out" | uniq -d)" ""

# A second hard link: each name would have its own -wal; refused even
# with no daemon running, and the database is left as it was.
ln "$db" "$dir/state/hard.db"
sum=$(cksum <"$db")
refused "a hard-linked database" "$dir/tickd.conf" \
    "tickd: error: state $db: refused: it has 2 hard links, and SQLite names its -wal and -shm after the name it opens: under two names one database has two logs, and commits made under one name are lost under the other (keep one name, or copy the file): not starting"
expect_eq "a hard-linked database: exit status 78" "$rc" 78
expect_eq "the hard-linked database untouched" "$(cksum <"$db")" "$sum"
rm "$dir/state/hard.db"
daemon_start
daemon_stop_ok
done_ok

#!/bin/sh
# One tickd per state database: a second one on the same state exits
# non-zero at once, naming the pid of the first, which keeps running.
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

for attempt in 1 2; do
	"$TICKD" -c "$dir/tickd.conf" --log-target=stderr \
	    >"$dir/second.out" 2>"$dir/second.err" &
	second=$!
	end=$(($(now) + 10 * slow))
	while pid_alive "$second"; do
		[ "$(now)" -le "$end" ] || { kill -KILL "$second";
		    fail "the second tickd is still running"; }
		sleep 0.05
	done
	wait "$second"
	rc=$?
	checks=$((checks + 1))
	[ "$rc" -ne 0 ] || fail "second tickd ($attempt): exit status 0"
	expect_eq "second tickd ($attempt): message" "$(cat "$dir/second.err")" \
	    "tickd: critical: fatal: state $db is in use by another tickd (pid $first): only one daemon may use a state database"
	expect_eq "second tickd ($attempt): stdout" "$(cat "$dir/second.out")" ""
done

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
done_ok

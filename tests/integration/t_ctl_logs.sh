#!/bin/sh
# tickctl logs from the store (no journald here): the last run's kept
# output with its header, --limit N runs, a given RUN_ID, --json, a run of
# another job refused, an unknown job (exit 2), and -f printing the runs
# that end after it started, until SIGINT (exit 0).  The journal source is
# asked for explicitly and fails cleanly when there is no journal.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }

write_job echo.job <<'EOF2'
[echo]
schedule = * * * * * *
command = echo "line one of $TICKD_RUN_ID"; echo "line two" >&2
EOF2
write_job quiet.job <<'EOF2'
[quiet]
schedule = * * * * * *
command = true
EOF2
daemon_start
wait_for "3 runs of echo" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''echo'\'' AND status = '\''succeeded'\''")" -ge 3 ]'
# While following, nothing is printed for ended runs: freeze the runs.
ctl pause echo >/dev/null || fail "pause echo"
wait_for "no echo running" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''echo'\'' AND status IN ('\''running'\'', '\''queued'\'')")" = 0 ]'
last=$(sql "SELECT run_id FROM runs WHERE job = 'echo' ORDER BY scheduled_at DESC LIMIT 1")
first=$(sql "SELECT run_id FROM runs WHERE job = 'echo' ORDER BY scheduled_at LIMIT 1")

out=$(ctl logs echo) || fail "logs echo: exit $?"
expect_eq "logs: source line" "$(echo "$out" | sed -n 1p)" \
    "-- output from the store (the kept tail of each attempt) --"
expect_match "logs: header" "$(echo "$out" | sed -n 2p)" \
    "== echo@*Z ($last) attempt 1, status succeeded"
expect_eq "logs: output" "$(echo "$out" | sed -n '3,$p' | sort)" \
    "line one of $last
line two"
expect_eq "logs --limit 2: two headers" \
    "$(ctl logs --limit 2 echo | grep -c '^== echo@')" 2
expect_eq "logs RUN_ID" "$(ctl logs echo "$first" | grep -c "line one of $first")" 1
expect_eq "logs --json" "$(ctl --json logs echo | json_lines source job run_id \
    attempt scheduled_at status output_tail)" ""
expect_eq "logs --json run_id" "$(ctl logs echo --json | "$python" -c '
import json, sys
for l in sys.stdin: print(json.loads(l)["run_id"])')" "$last"
run_cmd ctl logs quiet "$first"
expect_eq "logs: another job's run: exit" "$rc" 1
expect_match "logs: another job's run: message" "$err" "*is of job \"echo\"*"
run_cmd ctl logs echo "echo@2000-01-01T00:00:00Z"
expect_eq "logs: unknown run: exit" "$rc" 1
expect_match "logs: unknown run: message" "$err" "tickctl: logs: no run \"echo@2000-01-01T00:00:00Z\" in *"
run_cmd ctl logs nosuch
expect_eq "logs: unknown job: exit" "$rc" 2
run_cmd ctl logs --source journal echo
expect_eq "logs --source journal without a journal: exit" "$rc" 1
expect_match "logs --source journal: message" "$err" "tickctl: logs: *"
run_cmd ctl logs --limit 0 echo
expect_eq "logs --limit 0: exit" "$rc" 2

# -f: the runs that end after it started, then SIGINT ends it (exit 0).
"$TICKCTL" -c "$dir/tickd.conf" logs -f echo >"$dir/follow.out" 2>&1 &
fpid=$!
wait_for "logs -f prints the last run" 5 grep -q "line one of $last" "$dir/follow.out"
ctl resume echo >/dev/null || fail "resume echo"
wait_for "logs -f prints a new run" 10 eval '[ "$(grep -c "^== echo@" "$dir/follow.out")" -ge 3 ]'
kill -INT "$fpid"
wait "$fpid"
expect_eq "logs -f: exit on SIGINT" "$?" 0
new=$(grep "^== echo@" "$dir/follow.out" | sed -n 2p | sed 's/.*(\(.*\)).*/\1/')
checks=$((checks + 1))
[ "$new" != "$last" ] && grep -q "line one of $new" "$dir/follow.out" ||
    fail "logs -f: the new run $new: $(cat "$dir/follow.out")"
expect_eq "logs -f: each run once" "$(grep '^== echo@' "$dir/follow.out" |
    sort | uniq -d)" ""
done_ok

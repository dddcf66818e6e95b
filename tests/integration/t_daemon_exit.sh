#!/bin/sh
# How a run ends is recorded: an exit status, a signal, a process that
# could not be started (bad working directory: a spawn failure with its
# reason), and a missing program (the shell's exit 127, a normal exit).
. tests/integration/lib.sh
setup

write_job fail.job <<'EOF'
[exit3]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/exit3; exit 3

[killed]
schedule = * * * * * *
command = echo "$TICKD_RUN_ID" >> @DIR@/killed; kill -KILL $$

[baddir]
schedule = every 1s
workdir = /nonexistent/tickd-test
command = echo "$TICKD_RUN_ID" >> @DIR@/baddir

[missing]
schedule = every 1s
command = tickd-test-no-such-program --flag
EOF

daemon_start
# first_done JOB: the run_id of JOB's first finished run, if any.
first_done() {
	sql "SELECT run_id FROM runs WHERE job = '$1' AND status != 'running'
	    ORDER BY scheduled_at LIMIT 1"
}
for job in exit3 killed baddir missing; do
	wait_for "a finished run of $job" 10 eval \
	    "[ -n \"\$(first_done $job)\" ]"
done
# The daemon carries on after each kind of failure: a second round.
for job in exit3 killed baddir missing; do
	wait_for "2 finished runs of $job" 10 eval "[ \"\$(sql \"SELECT count(*)
	    FROM runs WHERE job = '$job' AND status != 'running'\")\" -ge 2 ]"
done

# row RUN_ID: the run's status|reason|exit_status|signal|attempts.
row() {
	sql "SELECT status, reason, exit_status, signal, attempts FROM runs
	    WHERE run_id = '$1'"
}
# attempt RUN_ID: outcome|exit_status|signal|error and time columns set.
attempt() {
	sql "SELECT a.outcome, a.exit_status, a.signal, a.error,
	    a.started_at IS NOT NULL AND a.finished_at >= a.started_at AND
	    a.duration_ms >= 0 AND a.lateness_ms >= 0
	    FROM attempts a JOIN runs r ON a.run = r.id WHERE r.run_id = '$1'"
}

id=$(first_done exit3)
expect_eq "exit 3: run" "$(row "$id")" "failed|exit|3||1"
expect_eq "exit 3: attempt" "$(attempt "$id")" "failed|3|||1"
expect_eq "exit 3: the job ran" "$(grep -cxF "$id" "$dir/exit3")" 1
log_has "tickd: warning: job exit3: run $id attempt 1 failed (exit 3) after" ||
    fail "exit 3: no warning in the log"

id=$(first_done killed)
expect_eq "SIGKILL: run" "$(row "$id")" "failed|signal||9|1"
expect_eq "SIGKILL: attempt" "$(attempt "$id")" "failed||9||1"
expect_eq "SIGKILL: the job ran" "$(grep -cxF "$id" "$dir/killed")" 1
log_has "tickd: warning: job killed: run $id attempt 1 failed (signal 9, Killed) after" ||
    fail "SIGKILL: no warning in the log"

id=$(first_done baddir)
expect_eq "bad workdir: run" "$(row "$id")" "failed|spawn|||1"
expect_eq "bad workdir: attempt" "$(attempt "$id")" \
    "spawn_failed|||entering the working directory: No such file or directory|1"
expect_eq "bad workdir: the command did not run" "$(lines "$dir/baddir")" 0
log_has "tickd: error: job baddir: run $id: cannot start: entering the working directory: No such file or directory" ||
    fail "bad workdir: no error in the log"
expect_eq "bad workdir: no started line" \
    "$(log_count "job baddir: run $id attempt 1 started")" 0

id=$(first_done missing)
expect_eq "missing program: run" "$(row "$id")" "failed|exit|127||1"
expect_eq "missing program: attempt" "$(attempt "$id")" "failed|127|||1"
expect_match "missing program: the shell's message" \
    "$(grep -F "tickd: warning: $id: stderr: " "$log")" \
    "*tickd-test-no-such-program*not found*"

daemon_stop_ok
expect_eq "decisions" "$(sql "SELECT count(*) FROM decisions
    WHERE decision != 'skipped'")" 0
done_ok

#!/bin/sh
# A pass of overlap = replace whose transaction fails (issue 16, defect
# 3) leaves the daemon's memory as it was: what the pass decided is
# applied only once its transaction commits.  Writes are made to fail
# with the daemon's RLIMIT_FSIZE lowered to 4 KiB (as t_fault_store_full
# does): every commit fails, the decisions before it succeed.
#   1. tickctl run of a replace job while its instance runs, refused
#      with the store failing: the running instance is not marked
#      replaced; it ends 0 and is recorded succeeded.
#   2. A scheduled instance of a replace job due while the store fails,
#      with a manual instance of it waiting (max_running = 1, another
#      job holding the slot): the pass is retried once the store works,
#      and then replaces the waiting instance (skipped, reason replaced),
#      which never runs, not even after a restart.
#   3. tickctl run of a replace job whose manual instance waits: the
#      waiting one is replaced, the new one recorded and run, and the
#      request is not answered as refused.
. tests/integration/lib.sh
setup
[ -x /bin/bash ] || { echo "bash is missing"; exit 77; }
command -v prlimit >/dev/null || { echo "prlimit is missing"; exit 77; }
read -r soft0 hard0 <<EOF2
$(prlimit --pid $$ --fsize --output SOFT,HARD --noheadings --raw)
EOF2
# tickd's stderr through a pipe, so that the log is not cut by the limit.
cat >"$dir/run-piped" <<'EOF2'
#!/bin/bash
exec "$@" 2> >(exec cat >&2)
EOF2
chmod +x "$dir/run-piped"
tickd_wrap="$dir/run-piped"

# fault_on, fault_off: writes past 4 KiB fail, or work again.
fault_on() {
	prlimit --pid "$tickd_pid" --fsize=4096:"$hard0" ||
	    fail "prlimit cannot lower the file size limit"
}
fault_off() {
	prlimit --pid "$tickd_pid" --fsize="$soft0:$hard0" ||
	    fail "prlimit cannot restore the file size limit"
}

write_conf "max_running = 1"
# rep and hog run until their .end file exists; markers are short lines
# (the jobs inherit the limit while it is low).
write_job rep.job <<'EOF2'
[rep]
schedule = 0 0 1 1 *
overlap = replace
command = echo "$TICKD_RUN_ID" >> @DIR@/rep.out; while [ ! -e @DIR@/rep.end ]; do sleep 0.05; done
EOF2
write_job hog.job <<'EOF2'
[hog]
schedule = 0 0 1 1 *
command = while [ ! -e @DIR@/hog.end ]; do sleep 0.05; done
EOF2
daemon_start

# --- 1. tickctl run refused: the running instance is not replaced -----------------------
run_cmd ctl run rep
expect_eq "1: run rep" "$rc" 0
r1=$out
wait_for "rep's first run" 10 eval "[ \"\$(sql \"SELECT a.started_at IS NOT
    NULL FROM runs r JOIN attempts a ON a.run = r.id WHERE
    r.run_id = '$r1'\")\" = 1 ]"
fault_on
run_cmd ctl run rep
expect_eq "1: run rep, the store failing: exit" "$rc" 1
expect_match "1: run rep, the store failing: why" "$err" \
    "tickctl: run rep: the store is not available (*): try again"
fault_off
touch "$dir/rep.end"
wait_for "rep's first run to be recorded" 10 eval "[ \"\$(sql \"SELECT status
    FROM runs WHERE run_id = '$r1'\")\" != running ]"
wait_for "the store back" 15 log_has "store available again"
# Soft: part 2 is independent of part 1.
soft_checks=1
expect_eq "1: the instance that ran on, not replaced" "$(sql "SELECT status,
    coalesce(reason, '-'), exit_status FROM runs WHERE run_id = '$r1'")" \
    "succeeded|-|0"
expect_eq "1: not logged as replaced" "$(log_count "run $r1 is replaced")" 0
expect_eq "1: nothing else of rep" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'rep'")" 1
soft_checks=0
rm -f "$dir/rep.end"

# --- 2. a dispatch pass refused: what it replaced still waits -----------------------------
t_due=$(($(now) + 5))
write_job rep2.job <<EOF2
[rep2]
schedule = $(at_cron "$t_due")
overlap = replace
command = echo "\$TICKD_RUN_ID" >> @DIR@/rep2.out
EOF2
run_cmd ctl reload
expect_eq "2: reload" "$rc $out" "0 reloaded: 3 jobs"
run_cmd ctl run hog
expect_eq "2: run hog" "$rc" 0
hog1=$out
wait_for "hog to run" 10 eval "[ \"\$(sql \"SELECT status FROM runs WHERE
    run_id = '$hog1'\")\" = running ]"
run_cmd ctl run rep2
expect_eq "2: run rep2" "$rc" 0
m1=$out
expect_eq "2: the manual instance waits for the slot" "$(sql "SELECT status,
    reason FROM runs WHERE run_id = '$m1'")" "queued|max_running"
fault_on
[ "$(now)" -lt "$t_due" ] || fail "2: setup too slow: the store failed after $(rfc3339 "$t_due")"
n_trouble=$(log_count "runs are delayed")
wait_until $((t_due + 1))
wait_for "the dispatch to fail" 10 eval \
    '[ "$(log_count "runs are delayed")" -gt "$n_trouble" ]'
expect_eq "2: nothing written while the store fails" "$(sql "SELECT count(*)
    FROM runs WHERE job = 'rep2' AND origin = 'schedule'")" 0
fault_off
wait_for "the scheduled instance of rep2" 15 eval "[ \"\$(sql \"SELECT count(*)
    FROM runs WHERE job = 'rep2' AND scheduled_at = $t_due AND
    origin = 'schedule'\")\" = 1 ]"
soft_checks=1
expect_eq "2: the waiting manual instance, replaced" "$(sql "SELECT status,
    reason FROM runs WHERE run_id = '$m1'")" "skipped|replaced"
soft_checks=0
log_has "tickd: warning: job rep2: instance $(rfc3339 "$(sql "SELECT
    scheduled_at FROM runs WHERE run_id = '$m1'")") skipped: replaced by a newer instance (overlap = replace)" ||
    fail "2: the replaced instance is not logged"
touch "$dir/hog.end"
wait_for "the scheduled instance of rep2 to run" 10 test -s "$dir/rep2.out"
expect_eq "2: what ran" "$(cat "$dir/rep2.out")" "rep2@$(rfc3339 "$t_due")"
daemon_stop_ok
daemon_start
wait_for "hog's end" 10 eval "[ \"\$(sql \"SELECT status FROM runs WHERE
    run_id = '$hog1'\")\" = succeeded ]"
run_cmd ctl run hog
expect_eq "2: run hog after the restart" "$rc" 0
wait_for "hog's second run to end" 10 eval "[ \"\$(sql \"SELECT status FROM
    runs WHERE run_id = '$out'\")\" = succeeded ]"
expect_eq "2: after a restart, the replaced instance did not run" \
    "$(sql "SELECT status, reason FROM runs WHERE run_id = '$m1'")" \
    "skipped|replaced"
expect_eq "2: what ran, after a restart" "$(cat "$dir/rep2.out")" \
    "rep2@$(rfc3339 "$t_due")"
expect_eq "2: nothing of rep2 waits" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'rep2' AND status IN ('queued', 'running', 'retrying')")" 0

# --- 3. tickctl run replacing a waiting instance: accepted ------------------------------
rm -f "$dir/hog.end"
run_cmd ctl run hog
expect_eq "3: run hog" "$rc" 0
hog3=$out
wait_for "hog to run" 10 eval "[ \"\$(sql \"SELECT status FROM runs WHERE
    run_id = '$hog3'\")\" = running ]"
run_cmd ctl run rep2
expect_eq "3: run rep2" "$rc" 0
m2=$out
run_cmd ctl run rep2
expect_eq "3: run rep2 again, replacing the waiting one" "$rc|$err" "0|"
m3=$out
expect_eq "3: the waiting one, replaced" "$(sql "SELECT status, reason FROM
    runs WHERE run_id = '$m2'")" "skipped|replaced"
expect_eq "3: the new one waits" "$(sql "SELECT status, reason FROM runs
    WHERE run_id = '$m3'")" "queued|max_running"
touch "$dir/hog.end"
wait_for "the new one to run" 10 eval "[ \"\$(sql \"SELECT status FROM runs
    WHERE run_id = '$m3'\")\" = succeeded ]"
daemon_stop_ok
done_ok

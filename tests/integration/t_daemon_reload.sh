#!/bin/sh
# SIGHUP reloads the configuration: new jobs start, removed jobs stop, a
# changed schedule gets no retroactive run and its old instant does not
# fire, an invalid new definition (bad value, or a syntax error in its
# file) keeps the previous good one, a running job is not signalled, and
# an invalid tickd.conf keeps everything as it was.
. tests/integration/lib.sh
setup

# chg's old schedule fires once, at an odd second some seconds from now;
# the reload happens before it and switches chg to "every 2s" (even
# seconds), so a run at t_old could only come from the old schedule.
t_old=$(($(now) + 6))
[ $((t_old % 2)) -eq 1 ] || t_old=$((t_old + 1))

write_job base.job <<'EOF'
[base]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/base.out
EOF
write_job gone.job <<'EOF'
[gone]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/gone.out
EOF
write_job keep.job <<'EOF'
[keep]
schedule = every 1s
command = echo "v1 $TICKD_RUN_ID" >> @DIR@/keep.out
EOF
write_job pair.job <<'EOF'
[p1]
schedule = every 1s
command = echo "v1 $TICKD_RUN_ID" >> @DIR@/pair.out

[p2]
schedule = * * * * * *
command = echo "v1 $TICKD_RUN_ID" >> @DIR@/pair.out
EOF
write_job chg.job <<EOF
[chg]
schedule = $(at_cron "$t_old")
command = echo "\$TICKD_RUN_ID" >> @DIR@/chg.out
EOF
# Disabled by reload 1, enabled again by reload 3.
write_job toggle.job <<'EOF'
[toggle]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/toggle.out
EOF
# Runs for 4 s the first time (later instances do nothing).
write_job slow.job <<'EOF'
[slow]
schedule = every 1s
command = [ ! -e @DIR@/slow.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/slow.id; sleep 4; echo done > @DIR@/slow.done
EOF

# The same, but its file is removed by the reload while it runs.
write_job slowgone.job <<'EOF'
[slowgone]
schedule = every 1s
command = [ ! -e @DIR@/slowgone.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/slowgone.id; sleep 4; echo done > @DIR@/slowgone.done
EOF

daemon_start
wait_for "slow to start" 10 test -s "$dir/slow.id"
wait_for "slowgone to start" 10 test -s "$dir/slowgone.id"
wait_for "a run of keep" 10 test -s "$dir/keep.out"
wait_for "runs of p1 and p2" 10 eval 'grep -q " p1@" "$dir/pair.out" 2>/dev/null &&
    grep -q " p2@" "$dir/pair.out"'
[ "$(now)" -lt $((t_old - 2)) ] ||
    fail "setup too slow: the reload must come before $(rfc3339 "$t_old")"
[ ! -e "$dir/slow.done" ] && [ ! -e "$dir/slowgone.done" ] ||
    fail "setup too slow: slow or slowgone ended before the reload"

# --- reload 1: every kind of change -------------------------------------------------
write_job new.job <<'EOF'
[new]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/new.out
EOF
rm "$jobs/gone.job" "$jobs/slowgone.job"
write_job keep.job <<'EOF'
[keep]
schedule = every 1s
command = echo "v2 $TICKD_RUN_ID" >> @DIR@/keep.out
colour = blue
EOF
write_job pair.job <<'EOF'
[p1]
schedule = every 1s
command = echo "v2 $TICKD_RUN_ID" >> @DIR@/pair.out
this line is neither a section nor a key
[p2]
schedule = * * * * * *
command = echo "v2 $TICKD_RUN_ID" >> @DIR@/pair.out
EOF
write_job toggle.job <<'EOF'
[toggle]
schedule = every 1s
enabled = no
command = echo "$TICKD_RUN_ID" >> @DIR@/toggle.out
EOF
write_job chg.job <<'EOF'
[chg]
schedule = every 2s
command = echo "$TICKD_RUN_ID" >> @DIR@/chg.out
EOF
t_hup=$(now)
kill -HUP "$tickd_pid"
wait_for "the reload" 10 log_has "reload partially failed"
expect_match "reload: summary" "$(grep -F 'reload partially failed' "$log")" \
    "tickd: warning: reload partially failed: 8 jobs, 2 errors"
for j in keep p1 p2; do
	expect_eq "$j: kept" "$(log_count "tickd: warning: job $j: the new definition is invalid; keeping the previous one")" 1
done
log_has "tickd: error: $jobs/keep.job:4: colour: unknown key" ||
    fail "keep: the bad value is not logged"
log_has "tickd: error: $jobs/pair.job:4: syntax error" ||
    fail "pair: the syntax error is not logged"
log_has "tickd: notice: job gone: removed from the configuration" ||
    fail "gone: removal not logged"
log_has "tickd: notice: job slowgone: removed from the configuration; its running process is left to finish" ||
    fail "slowgone: removal not logged"

wait_for "slow to finish" 15 test -e "$dir/slow.done"
wait_for "slowgone to finish" 15 test -e "$dir/slowgone.done"
# base's instance at t_old was dispatched with chg's old one, if any.
wait_for "base's run at $(rfc3339 "$t_old")" 15 eval "[ \"\$(sql \"SELECT
    count(*) FROM runs WHERE job = 'base' AND scheduled_at >= $t_old AND
    status != 'running'\")\" -ge 1 ]"
wait_for "2 runs of new" 10 eval '[ "$(lines "$dir/new.out")" -ge 2 ]'

# The running child was left alone.
for j in slow slowgone; do
	sid=$(cat "$dir/$j.id")
	wait_for "$j's end to be recorded" 10 eval "[ \"\$(sql \"SELECT status
	    FROM runs WHERE run_id = '$sid'\")\" != running ]"
	expect_eq "$j: completed" "$(sql "SELECT status, reason, exit_status,
	    signal FROM runs WHERE run_id = '$sid'")" "succeeded||0|"
done
expect_eq "slowgone: no run after its removal" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'slowgone' AND scheduled_at > $t_hup + 1")" 0
# New job: runs, all after the reload.
expect_eq "new: no run before the reload" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'new' AND scheduled_at <= $t_hup")" 0
# Removed job: nothing after the reload.
last=$(sql "SELECT max(scheduled_at) FROM runs WHERE job = 'gone'")
checks=$((checks + 1))
[ -n "$last" ] && [ "$last" -le $((t_hup + 1)) ] ||
    fail "gone: ran at $(rfc3339 "${last:-0}") after the reload at $(rfc3339 "$t_hup")"
expect_eq "gone: side effects match the runs" "$(lines "$dir/gone.out")" \
    "$(sql "SELECT count(*) FROM runs WHERE job = 'gone'")"
# Invalid new definitions: still the old command, after the reload too.
for j in keep p1 p2; do
	expect_eq "$j: v1 runs after the reload" "$(sql "SELECT count(*) > 0
	    FROM runs WHERE job = '$j' AND scheduled_at > $t_hup + 1")" 1
done
expect_eq "no v2 command ran" "$(cat "$dir/keep.out" "$dir/pair.out" |
    grep -vc '^v1 ')" 0
# Changed schedule: not at t_old, nothing retroactive, only even seconds.
expect_eq "chg: no run at the old instant" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'chg' AND scheduled_at = $t_old")" 0
expect_eq "chg: no run at or before the reload" "$(sql "SELECT count(*) FROM
    runs WHERE job = 'chg' AND scheduled_at <= $t_hup")" 0
expect_eq "chg: no missed instances" "$(sql "SELECT count(*) FROM decisions
    WHERE job = 'chg'")" 0
expect_eq "chg: runs on the new schedule" "$(sql "SELECT count(*) > 0 AND
    sum(scheduled_at % 2) = 0 FROM runs WHERE job = 'chg'")" 1

# --- reload 2: an invalid tickd.conf changes nothing --------------------------------
write_conf "colour = blue"
t_hup2=$(now)
kill -HUP "$tickd_pid"
wait_for "the failed reload" 10 log_has "reload failed: $dir/tickd.conf is invalid; the running configuration stays"
for j in base new keep p1 p2; do
	wait_for "a run of $j after the failed reload" 10 eval "[ \"\$(sql \"SELECT
	    count(*) FROM runs WHERE job = '$j' AND
	    scheduled_at > $t_hup2 + 1\")\" -ge 1 ]"
done
expect_eq "still no v2 command" "$(cat "$dir/keep.out" "$dir/pair.out" |
    grep -vc '^v1 ')" 0

# --- reload 3: toggle enabled again: it starts afresh ------------------------------
write_conf
write_job toggle.job <<'EOF'
[toggle]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/toggle.out
EOF
t_hup3=$(now)
kill -HUP "$tickd_pid"
# (keep.job and pair.job are still invalid: partially failed again.)
wait_for "the third reload" 10 eval \
    '[ "$(log_count "reload partially failed")" -ge 2 ]'
wait_for "a run of toggle after the third reload" 10 eval "[ \"\$(sql \"SELECT
    count(*) FROM runs WHERE job = 'toggle' AND scheduled_at > $t_hup3 AND
    status = 'succeeded'\")\" -ge 1 ]"
expect_eq "toggle: nothing while disabled" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'toggle' AND scheduled_at > $t_hup + 1 AND
    scheduled_at <= $t_hup3")" 0
expect_eq "toggle: no decision about the disabled time" "$(sql "SELECT count(*)
    FROM decisions WHERE job = 'toggle'")" 0
daemon_stop_ok
for j in base gone new chg toggle; do
	expect_runs_match "$dir/$j.out" "job = '$j'"
done
expect_eq "nothing failed" "$(sql "SELECT count(*) FROM runs WHERE status
    NOT IN ('succeeded', 'terminated', 'skipped')")" 0
done_ok

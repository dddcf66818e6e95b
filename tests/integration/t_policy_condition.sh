#!/bin/sh
# only_if and the working directory, as Debian's crontabs need them.
# only_if = COMMAND runs before each attempt, as the job (its user,
# directory, environment, output): exit 0 runs the command, 1-254 records
# the instance skipped (reason condition) without running it, 255 or a
# signal fails it (reason condition).  A job without workdir runs in its
# user's home, or in / when that does not exist (nobody's /nonexistent),
# as cron does; an explicit workdir that does not exist still fails.
. tests/integration/lib.sh
setup

status_of() {
	sql "SELECT status || '|' || coalesce(reason, '') FROM runs
	    WHERE job = '$1' AND parent IS NULL ORDER BY id DESC LIMIT 1"
}
final() {
	case $(status_of "$1") in
	succeeded* | skipped* | failed* | dead*) return 0 ;;
	esac
	return 1
}

# A static shards list starts no process to check first: refused.
write_job bad.job <<'EOF'
[static]
schedule = @daily
shards = 2
only_if = true
command = true
EOF
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "only_if with static shards: exit" "$rc" 1
expect_match "only_if with static shards: why" "$err" \
    "*$jobs/bad.job:4: only_if: job \"static\" has a static shards list (line 3), which starts no process of its instance to check it first: use shards_from, or test in the command*"
rm "$jobs/bad.job"

# nobody's home, /nonexistent, is not there: said once, by tickd -n too.
chmod o+x "$dir"	# nobody writes in $dir/pub
mkdir "$dir/pub" && chmod 777 "$dir/pub"
daemon_start
t0=$(($(now) + 2 + slow))
write_job cond.job <<EOF
[no]
schedule = $(at_cron "$t0")
only_if = echo "checking \$TICKD_RUN_ID"; test -x @DIR@/missing
command = echo ran >> @DIR@/no.out

[yes]
schedule = $(at_cron "$t0")
only_if = test -d @DIR@ && echo "\$PWD" > @DIR@/yes.cond
command = echo "\$TICKD_RUN_ID" >> @DIR@/yes.out

[broken]
schedule = $(at_cron "$t0")
only_if = exit 255
command = echo ran >> @DIR@/broken.out

[batch]
schedule = $(at_cron "$t0")
only_if = false
shards_from = echo a; echo b
command = echo "\$TICKD_SHARD" >> @DIR@/batch.out

[home]
schedule = $(at_cron "$t0")
user = nobody
command = pwd > @DIR@/pub/home.pwd

[gone]
schedule = $(at_cron "$t0")
user = nobody
workdir = /nonexistent
command = pwd > @DIR@/pub/gone.pwd
EOF
# Loaded at once: the instant is 2 s away (the checks below take time).
run_cmd ctl reload
expect_eq "reload: exit" "$rc" 0
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "tickd -n: exit" "$rc" 0
expect_match "tickd -n: nobody's home" "$err" \
    "*$jobs/cond.job:22: workdir: the home directory /nonexistent of user nobody does not exist: its jobs without workdir run in / (as under cron)*"
expect_eq "tickd -n: said once" \
    "$(printf '%s\n' "$err" | grep -c 'home directory /nonexistent')" 1
run_cmd ctl env home
expect_match "env home: its directory" "$out" \
    "*as nobody in / (its home /nonexistent does not exist)*"
run_cmd ctl env gone
expect_match "env gone: its workdir" "$out" "*as nobody in /nonexistent,*"
run_cmd ctl --json env no
expect_eq "env --json no: only_if" "$(printf '%s\n' "$out" | jpy 'o["only_if"]')" \
    "echo \"checking \$TICKD_RUN_ID\"; test -x $dir/missing"
for j in no yes broken batch home gone; do
	wait_for "$j to end" $((10 + 2 * slow)) final "$j"
done

expect_eq "no: skipped" "$(status_of no)" "skipped|condition"
expect_eq "no: the command did not run" "$(cat "$dir/no.out" 2>/dev/null)" ""
expect_eq "no: its attempt" "$(sql "SELECT a.outcome || '|' || a.exit_status
    FROM attempts a JOIN runs r ON r.id = a.run WHERE r.job = 'no'")" \
    "skipped|1"
nid=$(sql "SELECT run_id FROM runs WHERE job = 'no'")
run_cmd ctl show "$nid"
expect_match "show no: the condition's output" "$out" "*checking $nid*"
log_has "job no: run $nid attempt 1 skipped (its only_if condition exited 1)" ||
    check_fail "no: not logged"

expect_eq "yes: succeeded" "$(status_of yes)" "succeeded|"
expect_eq "yes: ran once" "$(sql "SELECT run_id FROM runs WHERE job = 'yes'")" \
    "$(cat "$dir/yes.out")"
expect_eq "yes: the condition ran in the job's directory" \
    "$(cat "$dir/yes.cond")" "$HOME"

expect_eq "broken: failed" "$(status_of broken)" "failed|condition"
expect_eq "broken: the command did not run" \
    "$(cat "$dir/broken.out" 2>/dev/null)" ""
bid=$(sql "SELECT run_id FROM runs WHERE job = 'broken'")
log_has "job broken: run $bid attempt 1 failed (its only_if condition exited 255)" ||
    check_fail "broken: not logged"

expect_eq "batch: skipped before its shards" "$(status_of batch)" \
    "skipped|condition"
expect_eq "batch: no shard" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'batch' AND parent IS NOT NULL")" 0
expect_eq "batch: no output" "$(cat "$dir/batch.out" 2>/dev/null)" ""

expect_eq "home: ran in /" "$(status_of home)|$(cat "$dir/pub/home.pwd")" \
    "succeeded||/"
expect_eq "gone: an explicit workdir must exist" "$(status_of gone)" \
    "failed|spawn"
expect_eq "gone: did not run" "$(cat "$dir/pub/gone.pwd" 2>/dev/null)" ""

# A manual run of a skipped job is checked too; a condition met later runs.
run_cmd ctl run --wait no
expect_eq "run --wait no: skipped" "$rc|$(status_of no)" "1|skipped|condition"
: >"$dir/missing" && chmod 755 "$dir/missing"
run_cmd ctl run --wait no
expect_eq "run --wait no (condition met): ran" "$rc|$(status_of no)|$(cat "$dir/no.out")" \
    "0|succeeded||ran"
daemon_stop_ok
done_ok

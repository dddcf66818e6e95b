#!/bin/sh
# tickctl check FILE...: the given files alone, no daemon and no store:
# the same "file:line: key: message" lines and summary as tickd -n, exit
# 1 on a problem and 0 when valid; a tickd.conf argument is checked with
# its jobs directory, or with the job files beside it.
. tests/integration/lib.sh
setup

mkdir "$dir/repo"
printf '[bad]\nschedule = bogus\ncommand = true\nfoo = 1\n' >"$dir/repo/bad.job"
printf '[good]\nschedule = @daily\ncommand = true\n' >"$dir/repo/good.job"
write_job other.job <<'EOF2'
[other]
schedule = @hourly
command = true
EOF2

cd "$dir/repo" || fail "cd"
run_cmd "$TICKCTL" check bad.job good.job
expect_eq "check 2 files: exit" "$rc" 1
expect_eq "check 2 files: causes" "$err" \
"bad.job:2: schedule: expected 5 fields (minute hour day-of-month month day-of-week) or 6 (with seconds first), found 1
bad.job:4: foo: unknown key"
expect_eq "check 2 files: summary" "$(first "$out")" \
    "2 job files: 1 jobs valid, 2 problems"
tctl_out=$out tctl_err=$err
run_cmd "$TICKD" -n bad.job good.job
expect_eq "check and tickd -n: stderr" "$err" "$tctl_err"
expect_eq "check and tickd -n: stdout" "$out" "$tctl_out"

run_cmd "$TICKCTL" check good.job
expect_eq "check a valid file: exit" "$rc" 0
expect_eq "check a valid file: summary" "$(first "$out")" \
    "good.job: 1 jobs valid, 0 problems"
# A tickd.conf alone: with its jobs directory (other.job, not the repo's).
run_cmd "$TICKCTL" check "$dir/tickd.conf"
expect_eq "check tickd.conf: exit" "$rc" 0
expect_eq "check tickd.conf: summary" "$(first "$out")" \
    "$dir/tickd.conf: 1 jobs valid, 0 problems"
# A tickd.conf and job files: those files instead of its directory.
run_cmd "$TICKCTL" check bad.job "$dir/tickd.conf"
expect_eq "check tickd.conf + a job file: exit" "$rc" 1
expect_eq "check tickd.conf + a job file: summary" "$(first "$out")" \
    "bad.job: 0 jobs valid, 2 problems"
printf '[daemon]\nfrobnicate = yes\n' >"$dir/bad.conf"
run_cmd "$TICKCTL" check "$dir/bad.conf"
expect_eq "check a bad tickd.conf: exit" "$rc" 1
expect_match "check a bad tickd.conf: cause" "$err" \
    "$dir/bad.conf:2: frobnicate: *"
run_cmd "$TICKCTL" check "$dir/tickd.conf" "$dir/bad.conf"
expect_eq "check two tickd.conf: exit" "$rc" 2
# A warning (as root: a program others may change): exit 1 only with
# --strict.
if [ "$(id -u)" = 0 ]; then
	printf '#!/bin/sh\n' >"$dir/repo/ww.sh"
	chmod 777 "$dir/repo/ww.sh"
	printf '[w]\nschedule = @daily\ncommand = %s\n' "$dir/repo/ww.sh" >w.job
	run_cmd "$TICKCTL" check w.job
	expect_eq "check a warning: exit" "$rc" 0
	expect_match "check a warning: line" "$err" "warning: w.job:3: command: *"
	run_cmd "$TICKCTL" check --strict w.job
	expect_eq "check --strict a warning: exit" "$rc" 1
fi
# No daemon ran: no state database was created.
checks=$((checks + 1))
[ ! -e "$db" ] || fail "check FILE created the state database"
done_ok

#!/bin/sh
# The counts of a configuration in error agree: with several errors in
# one job, a file whose errors name no job, a duplicate id, a bad id and
# a file with one good and one bad job, tickctl status (from the daemon's
# record), list (its "error" rows), check and tickd's ready line all
# count the same jobs in error (the ids defined but invalid), and status
# and check the same problems (the lines check prints) in the same files.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }

printf '[multi]\nschedule = bogus\ncommand = true\nfoo = 1\nbar = 2\n' >"$jobs/multi.job"
printf 'junk line\n' >"$jobs/nojob.job"
printf '[dup]\nschedule = @daily\ncommand = true\n' >"$jobs/dup1.job"
printf '[dup]\nschedule = @daily\ncommand = true\n' >"$jobs/dup2.job"
printf '[ok]\nschedule = @daily\ncommand = true\n[bad id!]\ncommand = true\n' >"$jobs/ok.job"
printf '[whole]\nschedule = @daily\ncommand = true\n[half]\ncommand = true\n' >"$jobs/half.job"
chmod 644 "$jobs"/*.job
daemon_start
wait_for "status from the daemon" 10 eval 'ctl --json status |
    grep -q "\"jobs_source\":\"daemon\""'

# multi (3 causes), nojob (1), dup2 (1), ok.job's bad id (1), half (1).
expect_eq "check: the configuration's lines" \
    "$(ctl check | grep -c "^$jobs/")" 7
expect_match "check: summary" "$(ctl check | sed -n 1p)" \
    "CRITICAL: 7 problems (7 in the configuration, in 5 files; 2 jobs in error), *"
expect_eq "list: error rows" "$(ctl list | awk '$4 == "error"' | wc -l)" 2
expect_eq "status: jobs" "$(ctl status | sed -n 's/^jobs *//p')" \
    "3 loaded, 2 in error; 7 problems in 5 files (tickctl check lists them)"
expect_eq "status --json: counts" "$(ctl --json status | "$python" -c '
import json, sys
o = json.loads(sys.stdin.read())
print(o["jobs"], o["jobs_in_error"], o["problems"], o["files_in_error"])')" \
    "3 2 7 5"
expect_eq "check --json: counts" "$(ctl --json check | sed -n 1p |
    "$python" -c '
import json, sys
o = json.loads(sys.stdin.read())
print(o["config_problems"], o["files_in_error"], o["jobs_in_error"])')" \
    "7 5 2"
log_has "ready: 3 jobs (2 in error)" || fail "ready line: $(grep ready: "$log")"
done_ok

#!/bin/sh
# Dialects: a job with cron_dialect = quartz loads in tickd -n (which
# says when a job whose years end fires last), tickctl next shows its
# instants; a bad Quartz expression is file:line: schedule: message; a
# cron job with Jenkins' H gets stable values from its id.
. tests/integration/lib.sh
setup

write_job q.job <<'EOF2'
[report]
schedule = 0 0 12 ? * 6L
cron_dialect = quartz
command = true

[finite]
cron_dialect = quartz
schedule = 0 30 9 LW * ? 2027-2028
command = true

[spread]
schedule = H H(0-5) * * *
command = true
EOF2

run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "check: exit" "$rc" 0
expect_match "check: summary" "$out" "*3 jobs valid, 0 problems*"
expect_match "check: last instant" "$out" "*q.job:6: [[]finite] last fires at 2028-12-29T09:30:00+00:00; then never (its years end in 2028)*"

# Quartz 6L is the last Friday (cron's 6L would be Saturday).
run_cmd "$TICKCTL" -c "$dir/tickd.conf" next report --from 2027-01-01T00:00:00Z -n 2
expect_eq "next report: exit" "$rc" 0
expect_eq "next report" "$(echo $out)" "2027-01-29T12:00:00+00:00 2027-02-26T12:00:00+00:00"
run_cmd "$TICKCTL" -c "$dir/tickd.conf" next finite --from 2028-12-01T00:00:00Z -n 3
expect_eq "next finite: exit" "$rc" 1
expect_eq "next finite" "$out" "2028-12-29T09:30:00+00:00"

# Across DST the job's dst_gap decides, not Quartz: 02:30 on the second
# Sunday of March does not exist in New York; shifted to 03:00, or
# skipped, every year.
run_cmd env TZDIR="$FIXTURES" "$TICKCTL" next --dialect quartz --cron '0 30 2 ? 3 1#2' --tz America/New_York --from 2027-01-01T00:00:00Z -n 1
expect_eq "dst shift" "$out" "2027-03-14T03:00:00-04:00"
run_cmd env TZDIR="$FIXTURES" "$TICKCTL" next --dialect quartz --cron '0 30 2 ? 3 1#2' --tz America/New_York --from 2027-01-01T00:00:00Z -n 1 --dst-gap skip
expect_eq "dst skip: never (every second Sunday of March is the gap)" "$rc|$out" "1|"

# H: the job's instants are those of its resolved form, with --id too.
run_cmd "$TICKCTL" -c "$dir/tickd.conf" next spread --from 2027-01-01T00:00:00Z -n 2
expect_eq "next spread: exit" "$rc" 0
job_out=$out
run_cmd "$TICKCTL" next --cron 'H H(0-5) * * *' --id spread --from 2027-01-01T00:00:00Z -n 2
expect_eq "next --id: same instants" "$out" "$job_out"
run_cmd "$TICKCTL" -c "$dir/tickd.conf" status spread
expect_match "status: resolved form" "$out" "*H H(0-5) * * * (= [0-9]* [0-5] * * *)*"

# A bad Quartz expression: where and why.
write_job bad.job <<'EOF2'
[bad]
cron_dialect = quartz
schedule = 0 0 12 * * MON
command = true

[badw]
schedule = 0 12 15W * *
command = true
EOF2
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "bad: exit" "$rc" 1
expect_match "bad: quartz ?" "$err" "*jobs.d/bad.job:3: schedule: exactly one of day-of-month and day-of-week must be '?' in Quartz dialect*"
expect_match "bad: W under cron" "$err" "*jobs.d/bad.job:7: schedule: day-of-month field: \"15W\" W is not supported in cron dialect; use cron_dialect = quartz*"

# Numeric day-of-week with L or # under cron: a warning naming the day.
rm -f "$jobs/bad.job"
write_job last.job <<'EOF2'
[last]
command = true
schedule = 0 12 * * 6L
EOF2
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "6L: exit" "$rc" 0
expect_match "6L: warning" "$err" "*warning: $jobs/last.job:3: schedule: 6L means the last Saturday under cron (0-7 from Sunday); under cron_dialect = quartz it would be Friday*"
run_cmd "$TICKCTL" -c "$dir/tickd.conf" check
expect_match "6L: tickctl check" "$out" "*warning: $jobs/last.job:3: schedule: 6L means the last Saturday under cron*"

# The daemon runs a Quartz job, and keeps one whose years are over idle.
rm -f "$jobs/last.job" "$jobs/q.job"
write_job run.job <<'EOF2'
[every-2s]
cron_dialect = quartz
schedule = */2 * * ? * *
command = echo tick >>@DIR@/ticks

[over]
cron_dialect = quartz
schedule = 0 0 0 1 1 ? 2020
command = echo never >>@DIR@/ticks
EOF2
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_match "over: said" "$out" "*[[]over] fired last at 2020-01-01T00:00:00+00:00; then never (its years end in 2020)*"
daemon_start
wait_for "two quartz runs" 15 eval '[ "$(lines "$dir/ticks")" -ge 2 ]'
run_cmd "$TICKCTL" -c "$dir/tickd.conf" next over
expect_eq "over: next" "$rc" 1
expect_match "over: next says" "$err" "*no firing instant after now: its years end in 2020*"
daemon_stop_ok
expect_eq "over: never ran" "$(grep -c never "$dir/ticks")" 0
done_ok

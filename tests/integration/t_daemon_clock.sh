#!/bin/sh
# Wall-clock steps, simulated with libfaketime (the daemon's CLOCK_REALTIME
# follows an offset read from a file; the monotonic clock stays real): a
# step forward by 1 h is logged and the instances it jumped over become
# one "skipped/coalesced" decision (about 3600 for a job every second), not 3600
# runs; a step back by 10 min is logged and runs nothing twice.
#
# libfaketime only moves the time the daemon reads: the kernel sees no
# clock change, so the daemon's timerfd (TFD_TIMER_CANCEL_ON_SET) does not
# fire and a step is noticed at the daemon's next wake-up.  After the step
# back every job's next instant is 10 min away, so a job added by a reload
# provides that wake-up.
. tests/integration/lib.sh
setup

ft=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
[ -r "$ft" ] || { echo "libfaketime ($ft) is not installed"; exit 77; }
# libfaketime 0.9.10: FAKETIME_DONT_FAKE_MONOTONIC (older: DONT_FAKE_MONOTONIC).
ftenv="LD_PRELOAD=$ft FAKETIME_TIMESTAMP_FILE=$dir/faketime.rc
    FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
echo "+3600" >"$dir/faketime.rc"
# shellcheck disable=SC2086
faked=$(env $ftenv date +%s)
[ $((faked - $(now))) -ge 3590 ] ||
    { echo "libfaketime does not move the clock here"; exit 77; }
echo "+0" >"$dir/faketime.rc"

write_job a.job <<'EOF2'
[every]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/out

[cron]
schedule = * * * * * *
command = echo "$TICKD_RUN_ID" >> @DIR@/out
EOF2
# shellcheck disable=SC2086
daemon_start $ftenv
wait_for "2 runs of each job" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE status = '\''succeeded'\'' GROUP BY job HAVING count(*) >= 2" |
    wc -l)" -eq 2 ]'

# --- forward by one hour ----------------------------------------------------------
echo "+3600" >"$dir/faketime.rc"
t_step=$(now)
wait_for "the forward step to be logged" 10 log_has "the wall clock was stepped forward by"
wait_for "2 runs of each job after the step" 10 eval '[ "$(sql "SELECT count(*)
    FROM runs WHERE status = '\''succeeded'\'' AND scheduled_at > $t_step + 3600
    GROUP BY job HAVING count(*) >= 2" | wc -l)" -eq 2 ]'
expect_match "forward step logged" "$(grep -F 'stepped forward' "$log")" \
    "tickd: warning: the wall clock was stepped forward by *: instances jumped over are late (the misfire policy decides), none already run will run again"
for job in every cron; do
	expect_eq "$job: one decision" "$(sql "SELECT count(*) FROM decisions
	    WHERE job = '$job'")" 1
	before=$(sql "SELECT max(scheduled_at) FROM runs WHERE job = '$job' AND
	    scheduled_at < $t_step + 1800")
	after=$(sql "SELECT min(scheduled_at) FROM runs WHERE job = '$job' AND
	    scheduled_at > $t_step + 1800")
	expect_eq "$job: the jumped-over instances" "$(sql "SELECT decision, reason,
	    first_at, last_at, count FROM decisions WHERE job = '$job'")" \
	    "skipped|coalesced|$((before + 1))|$((after - 1))|$((after - 1 - before))"
	checks=$((checks + 1))
	n=$((after - 1 - before))
	[ "$n" -ge 3595 ] && [ "$n" -le 3610 ] || fail "$job: $n instances missed"
	expect_eq "$job: a handful of runs, not thousands" "$(sql "SELECT
	    count(*) < 30 FROM runs WHERE job = '$job'")" 1
	expect_accounted "$job"
	log_has "tickd: warning: job $job: $n instances from $(rfc3339 $((before + 1))) to $(rfc3339 $((after - 1))) skipped (found late: coalesced into one run, misfire = run_once)" ||
	    fail "$job: the missed instances are not logged"
done

# --- back by ten minutes -------------------------------------------------------------
wait_for "a run of each job after the step" 10 eval '[ "$(sql "SELECT count(*)
    FROM runs WHERE status = '\''succeeded'\'' AND scheduled_at > $t_step + 3600
    GROUP BY job HAVING count(*) >= 3" | wc -l)" -eq 2 ]'
top=$(sql "SELECT max(scheduled_at) FROM runs")
echo "+3000" >"$dir/faketime.rc"
t_back=$(now)
write_job b.job <<'EOF2'
[late]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/out
EOF2
kill -HUP "$tickd_pid"
wait_for "the backward step to be logged" 5 log_has "the wall clock was stepped back by"
# (Instances of cron and every may have run between the offset change
# and the daemon seeing it: count from the moment it logged the step.)
nruns=$(sql "SELECT count(*) FROM runs WHERE job != 'late'")
wait_for "2 runs of the added job" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''late'\'' AND status = '\''succeeded'\''")" -ge 2 ]'
expect_match "backward step logged" "$(grep -F 'stepped back' "$log")" \
    "tickd: warning: the wall clock was stepped back by *m*: instances jumped over are late (the misfire policy decides), none already run will run again"
expect_eq "late: runs in the stepped-back time" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'late' AND scheduled_at > $top - 660 AND
    scheduled_at < $top - 500")" "$(sql "SELECT count(*) FROM runs WHERE job = 'late'")"
expect_eq "no other run since the step back" \
    "$(sql "SELECT count(*) FROM runs WHERE job != 'late'")" "$nruns"
expect_eq "no new decision" "$(sql "SELECT count(*) FROM decisions")" 2
daemon_stop_ok
expect_runs_match "$dir/out" 1
done_ok

#!/bin/sh
# max_running: 500 jobs due in the same second with max_running = 32.
# Never more than 32 job processes at once (from the intervals the jobs
# record themselves, and from the attempts' times), the others wait as
# queued rows (reason max_running) and start in order, none is dropped:
# all 500 run exactly once.
. tests/integration/lib.sh
setup
: "${NJOBS:=500}" "${MAXR:=32}" "${NAP:=0.2}"

write_conf "max_running = $MAXR"
t0=$(($(now) + 2 + slow))
cron=$(at_cron "$t0")
# Each job records "JOB START END" (from /proc/uptime, read by the shell:
# no fork that would stretch the interval).
i=0
while [ $i -lt "$NJOBS" ]; do
	printf '[j%03d]\nschedule = %s\ncommand = read s _ < /proc/uptime; sleep %s; read e _ < /proc/uptime; echo "$TICKD_JOB $s $e" >> @DIR@/out\n\n' \
	    $i "$cron" "$NAP"
	i=$((i + 1))
done | write_job burst.job
daemon_start
checks=$((checks + 1))
[ "$(now)" -lt "$t0" ] || fail "tickd was ready after the instant"
wait_for "queued instances (max_running)" $((t0 - $(now) + 5)) eval '[ "$(sql "SELECT
    count(*) FROM runs WHERE status = '\''queued'\'' AND
    reason = '\''max_running'\''")" -gt 0 ]'
wait_for "all runs" 60 eval '[ "$(sql "SELECT count(*) FROM runs WHERE status =
    '\''succeeded'\''")" -eq "$NJOBS" ]'
daemon_stop_ok

expect_eq "all ran once" "$(wc -l <"$dir/out" | tr -d ' ')|$(cut -d ' ' -f 1 "$dir/out" |
    sort -u | wc -l | tr -d ' ')" "$NJOBS|$NJOBS"
expect_eq "runs and attempts" "$(sql "SELECT count(*), sum(attempts), sum(status =
    'succeeded'), count(DISTINCT job) FROM runs")" "$NJOBS|$NJOBS|$NJOBS|$NJOBS"
peak=$(max_overlap "$dir/out")
sql "SELECT r.job, a.started_at, a.finished_at FROM attempts a JOIN runs r
    ON a.run = r.id" | tr '|' ' ' >"$dir/attempts"
tpeak=$(max_overlap "$dir/attempts")
echo "peak: $peak running (the jobs' own times), $tpeak (the attempts')"
checks=$((checks + 1))
[ "$peak" -le "$MAXR" ] || fail "$peak jobs ran at once (their own times), max_running = $MAXR"
checks=$((checks + 1))
[ "$tpeak" -le "$MAXR" ] || fail "$tpeak attempts at once, max_running = $MAXR"
# The cap was reached: it was the limit.
checks=$((checks + 1))
[ "$tpeak" -eq "$MAXR" ] || fail "at most $tpeak attempts at once: the cap ($MAXR) was never reached"
# In order: by job id (the order they were due in), and each waited.
expect_eq "started in order" "$(sql "SELECT count(*) FROM (SELECT a.started_at s,
    lag(a.started_at) OVER (ORDER BY r.job) p FROM attempts a JOIN runs r
    ON a.run = r.id) WHERE s < p")" 0
expect_eq "the queue delay is recorded" "$(sql "SELECT max(a.lateness_ms) >= 1000,
    min(a.lateness_ms) >= 0, count(*) FROM attempts a JOIN runs r ON a.run = r.id
    WHERE a.lateness_ms = a.started_at - r.scheduled_at * 1000")" "1|1|$NJOBS"
expect_eq "nothing skipped or left" "$(sql "SELECT count(*) FROM runs WHERE status
    != 'succeeded'") $(sql "SELECT count(*) FROM decisions")" "0 0"
echo "first start $(sql "SELECT min(started_at) - $t0 * 1000 FROM attempts") ms, last end $(sql "SELECT max(finished_at) - $t0 * 1000 FROM attempts") ms after the instant"
done_ok

#!/bin/sh
# max_running: 500 jobs due in the same second with max_running = 32.
# Never more than 32 job processes at once (from the intervals the jobs
# record themselves, and from the attempts' times), the others wait as
# queued rows (reason max_running) and start in order, none is dropped:
# all 500 run exactly once.  Catch-up runs count toward max_running too:
# with max_running = 1, the late instances of three misfire = catch_up
# jobs and another job found late at a start run one at a time.
. tests/integration/lib.sh
setup
: "${NJOBS:=500}" "${MAXR:=32}" "${NAP:=0.5}"

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
# The cap was reached: it was the limit.  (The spawner makes the first 32
# while the loop reaps: a job must outlast 32 spawns on a loaded host,
# hence NAP = 0.5 s.)
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

# --- catch-up runs count toward max_running ---------------------------------------
# max_running = 1.  Three every-second jobs with misfire = catch_up run
# once, the daemon stops, and while it is down hold's instant passes:
# at the next start hold (late, within its misfire_grace: a normal run,
# 1 s long), the late instances of cu1..cu3 (catch-up runs) and their
# on-time ones all want the one slot.  Never more than one job process.
rm -f "$jobs"/*.job
write_conf "max_running = 1"
t1=$(now)
hat=$((t1 + 3 + slow))
cmd='read s _ < /proc/uptime; sleep %s; read e _ < /proc/uptime; echo "$TICKD_JOB $TICKD_TRIGGER $s $e" >> @DIR@/cu.out'
{
	for j in cu1 cu2 cu3; do
		printf "[%s]\nschedule = * * * * * *\nmisfire = catch_up\nmisfire_grace = 1s\ncommand = $cmd\n\n" \
		    "$j" 0.05
	done
	printf "[hold]\nschedule = %s\ncommand = $cmd\n" "$(at_cron "$hat")" 1
} | write_job cu.job
daemon_start
wait_for "a run of each cu job" 10 eval '[ "$(sql "SELECT count(DISTINCT job)
    FROM runs WHERE job LIKE '\''cu_'\'' AND status = '\''succeeded'\''")" -eq 3 ]'
# Stop when no job process runs or waits: in the second half of a second,
# after the every-second jobs' turns.
quiet() {
	_q=$(date +%N)
	[ "${_q%????????}" -ge 5 ] && [ "${_q%????????}" -le 7 ] &&
	    [ "$(sql "SELECT count(*) FROM runs WHERE job LIKE 'cu_' AND
	    status IN ('queued', 'running')")" -eq 0 ]
}
wait_for "a quiet moment" 10 quiet
daemon_stop_ok
checks=$((checks + 1))
[ "$(now)" -lt $((hat - 1)) ] || fail "the daemon stopped too late for hold's instant"
# Down until 2 s after hold's instant: 2 or more late instances of each
# cu job (found more than 1 s late), hold's found 2 s late.
wait_until $((hat + 2))
restart=$(now)
daemon_start
wait_for "hold's run" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '\''hold'\''")" = succeeded ]'
wait_for "the catch-up runs" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job LIKE '\''cu_'\'' AND status IN ('\''queued'\'', '\''running'\'')")" -eq 0 ] &&
    [ "$(sql "SELECT count(DISTINCT job) FROM runs WHERE job LIKE '\''cu_'\''
    AND trigger = '\''catch_up'\'' AND status = '\''succeeded'\''")" -eq 3 ]'
daemon_stop_ok

expect_eq "catch-up: 2 or more late instances of each job ran" "$(sql "SELECT
    group_concat(job || '=' || (n >= 2), ' ') FROM (SELECT job, count(*) n
    FROM runs WHERE trigger = 'catch_up' AND status = 'succeeded' GROUP BY job
    ORDER BY job)")" "cu1=1 cu2=1 cu3=1"
expect_eq "catch-up: hold ran on its instant, not as a catch-up" "$(sql "SELECT
    r.trigger, r.scheduled_at, a.lateness_ms >= 1000 FROM runs r JOIN attempts a
    ON a.run = r.id WHERE r.job = 'hold'")" "schedule|$hat|1"
cpeak=$(max_overlap "$dir/cu.out")
sql "SELECT r.job, a.started_at, a.finished_at FROM attempts a JOIN runs r
    ON a.run = r.id WHERE r.job LIKE 'cu_' OR r.job = 'hold'" | tr '|' ' ' \
    >"$dir/cu.attempts"
ctpeak=$(max_overlap "$dir/cu.attempts")
expect_eq "catch-up: one job process at a time (own times, attempts')" \
    "$cpeak $ctpeak" "1 1"
# hold and the catch-up runs were all due when the daemon started again:
# more than one slot's worth, and none ran beside another.
expect_eq "catch-up: all due at the start" "$(sql "SELECT max(scheduled_at) <
    $restart, count(*) > 3 FROM runs WHERE trigger = 'catch_up' OR job = 'hold'")" "1|1"
expect_eq "catch-up: none ran beside hold" "$(awk '
    $1 == "hold" { hs = $3; he = $4 }
    $2 == "catch_up" { s[++n] = $3; e[n] = $4 }
    END { for (i = 1; i <= n; i++) if (s[i] < he && e[i] > hs) bad++
	print (n > 0 && hs > 0), bad + 0 }' "$dir/cu.out")" "1 0"
done_ok

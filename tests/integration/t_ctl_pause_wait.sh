#!/bin/sh
# tickctl pause holds what waits (issue 16, defect 7): instances of a
# paused job already waiting to start (here queued behind max_running or
# overlap = queue, and a retry) do not start until resume, across a
# restart too; each row says why it waits (detail "the job is paused:
# it waits for tickctl resume") and the journal says so once per daemon.
# For a paused job, tickctl run is refused (a skipped row, reason
# paused) unless --force, which runs it now (held back by max_running
# only, not by the job's held instances); tickctl replay queues the
# instance, which waits for resume like the others and says so.  After
# resume everything held starts, in order.
#
# max_running = 1: hog (run by hand) holds the slot while q's instances
# queue; tick (every second) shows the daemon going on meanwhile.
. tests/integration/lib.sh
setup
write_conf "max_running = 1"
HELD='the job is paused: it waits for tickctl resume'
write_job hog.job <<'EOF2'
[hog]
schedule = 0 0 1 1 *
command = while [ ! -e @DIR@/hog.end ]; do sleep 0.05; done
EOF2
write_job q.job <<'EOF2'
[q]
schedule = every 1s
overlap = queue
queue_limit = 3
command = [ -e @DIR@/q.go ] || exit 0; echo "$TICKD_RUN_ID" >> @DIR@/q.out
EOF2
write_job r.job <<'EOF2'
[r]
schedule = 0 0 1 1 *
retries = 1
retry_delay = 3s
command = [ -e @DIR@/r.failed ] || { touch @DIR@/r.failed; exit 75; }; echo "$TICKD_RUN_ID" >> @DIR@/r.out
EOF2
write_job d.job <<'EOF2'
[d]
schedule = 0 0 1 1 *
command = [ -e @DIR@/d.ok ] || exit 3; echo "$TICKD_RUN_ID" >> @DIR@/d.out
EOF2
write_job tick.job <<'EOF2'
[tick]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/tick.out
EOF2
daemon_start

# ticks_after MS: how many runs of tick started after MS (Unix ms).
ticks_after() {
	sql "SELECT count(*) FROM runs r JOIN attempts a ON a.run = r.id WHERE
	    r.job = 'tick' AND a.started_at > $1 AND r.status = 'succeeded'"
}

# --- what waits: a retry, a dead letter, queued instances -----------------------------
run_cmd ctl run d
expect_eq "run d" "$rc" 0
did=$out
wait_for "d to fail" 10 eval "[ \"\$(sql \"SELECT status FROM runs WHERE
    run_id = '$did'\")\" = failed ]"
run_cmd ctl run r
expect_eq "run r" "$rc" 0
rid=$out
wait_for "r to wait for its retry" 10 eval "[ \"\$(sql \"SELECT status FROM
    runs WHERE run_id = '$rid'\")\" = retrying ]"
run_cmd ctl run hog
expect_eq "run hog" "$rc" 0
hid=$out
wait_for "hog to run" 10 eval "[ \"\$(sql \"SELECT status FROM runs WHERE
    run_id = '$hid'\")\" = running ]"
touch "$dir/q.go"
wait_for "3 instances of q queued" 10 eval "[ \"\$(sql \"SELECT count(*) FROM
    runs WHERE job = 'q' AND status = 'queued'\")\" = 3 ]"
expect_eq "hog holds the slot" "$(sql "SELECT status FROM runs WHERE
    run_id = '$hid'")" running
qids=$(sql "SELECT run_id FROM runs WHERE job = 'q' AND status = 'queued'
    ORDER BY scheduled_at")

# --- pause: they wait -------------------------------------------------------------------
soft_checks=1
run_cmd ctl pause q
expect_eq "pause q" "$rc $out" "0 q paused: 3 waiting instances wait for tickctl resume"
run_cmd ctl pause r
expect_eq "pause r" "$rc $out" "0 r paused: 1 waiting instance waits for tickctl resume"
run_cmd ctl pause d
expect_eq "pause d" "$rc $out" "0 d paused"
retry_at=$(sql "SELECT retry_at FROM runs WHERE run_id = '$rid'")
touch "$dir/hog.end"
wait_for "hog to end" 10 eval "[ \"\$(sql \"SELECT status FROM runs WHERE
    run_id = '$hid'\")\" = succeeded ]"
wait_until $((retry_at / 1000 + 1))
t_free=$(now_ms)
wait_for "2 runs of tick with the slot free" 10 eval \
    '[ "$(ticks_after "$t_free")" -ge 2 ]'
expect_eq "q: nothing started while paused" "$(lines "$dir/q.out")" 0
expect_eq "r: its retry did not start while paused" "$(lines "$dir/r.out")" 0
expect_eq "q: the rows say why they wait" "$(sql "SELECT DISTINCT status ||
    ' ' || detail FROM runs WHERE job = 'q' AND status = 'queued'")" \
    "queued $HELD"
expect_eq "q: still 3 waiting" "$(sql "SELECT run_id FROM runs WHERE
    job = 'q' AND status = 'queued' ORDER BY scheduled_at")" "$qids"
expect_eq "r: the row says why it waits" "$(sql "SELECT status, detail FROM
    runs WHERE run_id = '$rid'")" "retrying|$HELD"
for id in $qids $rid; do
	expect_eq "$id: logged once" "$(log_count "run $id waits: the job is paused")" 1
done
soft_checks=0

# --- run and replay of a paused job -------------------------------------------------------
run_cmd ctl run q
expect_eq "run q (paused): exit" "$rc" 1
expect_match "run q (paused): why" "$err" \
    "tickctl: run q: q@*/manual skipped: q is paused (tickctl resume q, or run --force)"
mid=$(sql "SELECT run_id FROM runs WHERE job = 'q' AND origin = 'manual'")
expect_eq "run q (paused): a skipped row" "$(sql "SELECT status, reason, detail
    FROM runs WHERE run_id = '$mid'")" "skipped|paused|the job is paused"
run_cmd ctl replay "$did"
expect_eq "replay d (paused)" "$rc $out" "0 $did"
expect_eq "replay d (paused): it waits, and says so" "$err" \
    "tickctl: replay $did: d is paused: the instance waits for tickctl resume"
wait_for "d's replay to be noted" 10 eval "[ \"\$(sql \"SELECT detail FROM runs
    WHERE run_id = '$did'\")\" = '$HELD' ]"
expect_eq "d: queued for its replay" "$(sql "SELECT status, reason, attempts
    FROM runs WHERE run_id = '$did'")" "queued|replay|1"

# --- a restart while paused: they still wait --------------------------------------------
daemon_stop_ok
daemon_start
t_up=$(now_ms)
wait_for "2 runs of tick after the restart" 10 eval \
    '[ "$(ticks_after "$t_up")" -ge 2 ]'
expect_eq "after a restart: nothing of q, r, d started" \
    "$(lines "$dir/q.out") $(lines "$dir/r.out") $(lines "$dir/d.out")" "0 0 0"
expect_eq "after a restart: still waiting, and why" "$(sql "SELECT count(*)
    FROM runs WHERE job IN ('q', 'r', 'd') AND status IN ('queued',
    'retrying') AND detail = '$HELD'")" 5

# --- --force runs now; resume starts the rest, in order -----------------------------------
# The forced run waits for the slot hog holds again, not for q's held
# instances before it in the queue.
rm -f "$dir/hog.end"
run_cmd ctl run hog
expect_eq "run hog again" "$rc" 0
hid=$out
wait_for "hog to run again" 10 eval "[ \"\$(sql \"SELECT status FROM runs
    WHERE run_id = '$hid'\")\" = running ]"
run_cmd ctl run --force q
expect_eq "run --force q (paused)" "$rc" 0
fid=$out
expect_eq "the forced run waits for the slot only" "$(sql "SELECT status,
    reason, detail IS NULL FROM runs WHERE run_id = '$fid'")" \
    "queued|max_running|1"
touch "$dir/hog.end"
wait_for "the forced run" 10 eval "[ \"\$(sql \"SELECT status FROM runs WHERE
    run_id = '$fid'\")\" = succeeded ]"
expect_eq "only the forced run of q ran" "$(cat "$dir/q.out")" "$fid"
touch "$dir/d.ok"
for j in q r d; do
	run_cmd ctl resume "$j"
	expect_match "resume $j" "$rc $out" "0 $j resumed*"
done
wait_for "q's held instances to run" 15 eval \
    '[ "$(lines "$dir/q.out")" -ge 4 ]'
wait_for "r's retry to run" 10 test -s "$dir/r.out"
wait_for "d's replay to run" 10 test -s "$dir/d.out"
echo "$qids" >"$dir/q.held"
expect_eq "q: the held ones ran, in order" \
    "$(grep -Fx -f "$dir/q.held" "$dir/q.out")" "$qids"
expect_eq "r: its retry" "$(sql "SELECT status, attempts, detail IS NULL FROM
    runs WHERE run_id = '$rid'")" "succeeded|2|1"
wait_for "d's replay to be recorded" 10 eval "[ \"\$(sql \"SELECT status
    FROM runs WHERE run_id = '$did'\")\" = succeeded ]"
daemon_stop_ok
expect_eq "no run id twice" "$(cat "$dir/q.out" "$dir/r.out" "$dir/d.out" |
    sort | uniq -d)" ""
done_ok

#!/bin/sh
# overlap: what becomes of an instance that falls due while an earlier one
# of the same job still runs.  skip (the default): a skipped row (reason
# overlap, detail naming the running instance), and after 3 in a row one
# error line "job X is blocked".  queue: queued rows (reason overlap), at
# most queue_limit, the rest skipped; they start when the running one
# ends, one at a time, in order.  allow: concurrent runs, never more than
# max_parallel (measured by the jobs themselves), the rest skipped.
# replace: the running instance gets kill_signal (a trap sees it), or
# SIGKILL after kill_grace when it ignores it; it is recorded terminated
# (reason replaced) and the new instance starts once it has exited.
# An instance waiting for a replaced one to stop is itself replaced by a
# newer one (rw: TERM ignored, kill_grace 3s, due every second): a
# skipped row (reason replaced), logged once each.
# All six jobs run side by side in one daemon, every second (ri every 3).
. tests/integration/lib.sh
setup
sleeper zz-ri
sleeper zz-rw

write_job sk.job <<'EOF2'
[sk]
schedule = every 1s
command = [ ! -e @DIR@/sk.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/sk.id; while [ ! -e @DIR@/sk.end ]; do sleep 0.05; done
EOF2
write_job qu.job <<'EOF2'
[qu]
schedule = every 1s
overlap = queue
queue_limit = 2
command = echo "$TICKD_RUN_ID $(date +%s%N)" >> @DIR@/qu.out; [ ! -e @DIR@/qu.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/qu.id; while [ ! -e @DIR@/qu.end ]; do sleep 0.05; done
EOF2
write_job al.job <<'EOF2'
[al]
schedule = every 1s
overlap = allow
max_parallel = 2
command = [ ! -e @DIR@/al.stop ] || exit 0; s=$(date +%s%N); sleep 2.3; echo "$TICKD_RUN_ID $s $(date +%s%N)" >> @DIR@/al.out
EOF2
write_job rp.job <<'EOF2'
[rp]
schedule = every 1s
overlap = replace
command = [ ! -e @DIR@/rp.stop ] || exit 0; trap 'echo "$TICKD_RUN_ID $(date +%s%3N)" >> @DIR@/rp.term; exit 143' TERM; echo "$TICKD_RUN_ID $(date +%s%3N)" >> @DIR@/rp.start; sleep 30 & wait
EOF2
write_job ri.job <<'EOF2'
[ri]
schedule = every 3s
overlap = replace
kill_grace = 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/ri.out; [ ! -e @DIR@/ri.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/ri.id; trap '' TERM; exec @DIR@/zz-ri 30
EOF2
write_job rw.job <<'EOF2'
[rw]
schedule = every 1s
overlap = replace
kill_grace = 3s
command = [ ! -e @DIR@/rw.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/rw.id; trap '' TERM; exec @DIR@/zz-rw 30
EOF2
daemon_start

# --- the waits (the jobs run side by side) -----------------------------------------
wait_for "sk to start" 10 test -s "$dir/sk.id"
wait_for "4 skips of sk" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''sk'\'' AND status = '\''skipped'\''")" -ge 4 ]'
touch "$dir/sk.end"
wait_for "qu to start" 10 test -s "$dir/qu.id"
wait_for "2 queued instances of qu" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''qu'\'' AND status = '\''queued'\''")" -eq 2 ]'
expect_eq "qu: queued for overlap" "$(sql "SELECT status, reason, attempts FROM
    runs WHERE job = 'qu' AND status = 'queued'")" "queued|overlap|0
queued|overlap|0"
wait_for "2 skips of qu (the queue is full)" 10 eval '[ "$(sql "SELECT count(*)
    FROM runs WHERE job = '\''qu'\'' AND status = '\''skipped'\''")" -ge 2 ]'
# shellcheck disable=SC2034	# used in the eval below
t_qend=$(now_ms)
touch "$dir/qu.end"
wait_for "4 runs of al" 15 eval '[ "$(lines "$dir/al.out")" -ge 4 ]'
touch "$dir/al.stop"
wait_for "2 replaced runs of rp" 10 eval '[ "$(lines "$dir/rp.term")" -ge 2 ]'
touch "$dir/rp.stop"
wait_for "ri to start" 10 test -s "$dir/ri.id"
riid=$(cat "$dir/ri.id")
wait_for "ri's replacement to run" 15 eval '[ "$(lines "$dir/ri.out")" -ge 2 ]'
wait_for "waiting instances of rw replaced" 10 eval '[ "$(sql "SELECT count(*)
    FROM runs WHERE job = '\''rw'\'' AND status = '\''skipped'\''")" -ge 2 ]'
wait_for "the runs after the waits" 10 eval '[ "$(sql "SELECT count(DISTINCT job)
    FROM runs WHERE status = '\''succeeded'\'' AND finished_at > $t_qend + 2000
    AND job IN ('\''sk'\'', '\''qu'\'', '\''rp'\'', '\''ri'\'')")" -eq 4 ]'
daemon_stop_ok

# --- skip --------------------------------------------------------------------------
skid=$(cat "$dir/sk.id")
sk_at=$(sql "SELECT scheduled_at FROM runs WHERE run_id = '$skid'")
nsk=$(sql "SELECT count(*) FROM runs WHERE job = 'sk' AND status = 'skipped'")
expect_eq "sk: the long run" "$(sql "SELECT status, attempts FROM runs
    WHERE run_id = '$skid'")" "succeeded|1"
expect_eq "sk: skipped rows, the instants after it" "$(sql "SELECT min(scheduled_at),
    max(scheduled_at), count(*) FROM runs WHERE job = 'sk' AND
    status = 'skipped'")" "$((sk_at + 1))|$((sk_at + nsk))|$nsk"
expect_eq "sk: reason and detail" "$(sql "SELECT DISTINCT reason || '|' || detail ||
    '|' || trigger || '|' || attempts FROM runs WHERE job = 'sk' AND
    status = 'skipped'")" "overlap|$skid is still running|schedule|0"
expect_eq "sk: one blocked line" "$(grep -F 'is blocked' "$log" | grep -F 'job sk')" \
    "tickd: error: job sk is blocked: 3 instances in a row skipped since $(rfc3339 $((sk_at + 1))) while $skid"
expect_eq "sk: a warning for each other skip" "$(grep -F "job sk: instance " "$log" |
    grep -cF " skipped (overlap = skip): still running: $skid")" $((nsk - 1))
expect_eq "sk: the runs after it" "$(sql "SELECT count(*) FROM runs WHERE job = 'sk'
    AND scheduled_at > $((sk_at + nsk)) AND status != 'succeeded'")" 0
expect_accounted sk

# --- queue -------------------------------------------------------------------------
quid=$(cat "$dir/qu.id")
qu_at=$(sql "SELECT scheduled_at FROM runs WHERE run_id = '$quid'")
expect_eq "qu: the two queued instances ran after it" "$(sql "SELECT r.scheduled_at -
    $qu_at, r.status, a.trigger, r.attempts
    FROM runs r JOIN attempts a ON a.run = r.id WHERE r.job = 'qu' AND
    r.scheduled_at IN ($qu_at + 1, $qu_at + 2) ORDER BY r.scheduled_at")" \
    "1|succeeded|schedule|1
2|succeeded|schedule|1"
expect_eq "qu: they started after the long run ended" "$(sql "SELECT count(*) FROM
    attempts a JOIN runs r ON a.run = r.id WHERE r.job = 'qu' AND
    r.scheduled_at IN ($qu_at + 1, $qu_at + 2) AND a.started_at >= (SELECT
    finished_at FROM runs WHERE run_id = '$quid')")" 2
nqs=$(sql "SELECT count(*) FROM runs WHERE job = 'qu' AND status = 'skipped'")
expect_eq "qu: skipped beyond queue_limit" "$(sql "SELECT min(scheduled_at) - $qu_at,
    count(*), reason, detail FROM runs WHERE job = 'qu' AND status = 'skipped'
    GROUP BY reason, detail")" "3|$nqs|overlap|$quid is still running; the queue is full"
# Started one at a time, in the order of their instants.
expect_eq "qu: started in order" "$(cut -d ' ' -f 1 "$dir/qu.out" | tr '\n' ' ')" \
    "$(sql "SELECT run_id FROM runs WHERE job = 'qu' AND attempts > 0 ORDER BY
    scheduled_at" | tr '\n' ' ')"
expect_eq "qu: never two at once" "$(sql "SELECT count(*) FROM attempts a JOIN runs r
    ON a.run = r.id JOIN attempts b JOIN runs s ON b.run = s.id WHERE r.job = 'qu'
    AND s.job = 'qu' AND r.id < s.id AND a.started_at < b.finished_at AND
    b.started_at < a.finished_at")" 0
expect_accounted qu

# --- allow -------------------------------------------------------------------------
expect_eq "al: at most max_parallel = 2 at once" "$(max_overlap "$dir/al.out")" 2
nal=$(sql "SELECT count(*) FROM runs WHERE job = 'al' AND status = 'skipped'")
checks=$((checks + 1))
[ "$nal" -ge 1 ] || fail "al: nothing skipped"
expect_eq "al: skipped beyond max_parallel" "$(sql "SELECT DISTINCT reason || '|' ||
    detail FROM runs WHERE job = 'al' AND status = 'skipped'")" \
    "overlap|max_parallel (2) instances are in flight"
expect_eq "al: every skipped instance had 2 running" "$(sql "SELECT count(*) FROM runs s
    WHERE s.job = 'al' AND s.status = 'skipped' AND (SELECT count(*) FROM runs r
    JOIN attempts a ON a.run = r.id WHERE r.job = 'al' AND a.started_at <=
    s.created_at AND a.finished_at >= s.created_at) != 2")" 0
# (Those still in their 2.3 s when the daemon stops are terminated.)
expect_eq "al: the runs" "$(sql "SELECT count(*) FROM runs WHERE job = 'al'
    AND status NOT IN ('skipped', 'succeeded') AND
    (status, reason) IS NOT ('terminated', 'shutdown')")" 0
cut -d ' ' -f 1 "$dir/al.out" >"$dir/al.ids"
expect_eq "al: each recorded run once" "$(sort "$dir/al.ids" | uniq -d)" ""
expect_accounted al

# --- replace -----------------------------------------------------------------------
for id in $(cut -d ' ' -f 1 "$dir/rp.term" | uniq); do
	expect_eq "rp: $id replaced" "$(sql "SELECT status, reason, exit_status, signal,
	    attempts FROM runs WHERE run_id = '$id'")" "terminated|replaced|143||1"
	expect_eq "rp: $id attempt" "$(attempt_field "$id" 1 outcome)" terminated
	log_has "tickd: notice: job rp: run $id is replaced by a newer instance: signal 15" ||
	    fail "rp: the replacement of $id is not logged"
	# The next instance started after it ended.
	at=$(sql "SELECT scheduled_at FROM runs WHERE run_id = '$id'")
	expect_eq "rp: the instance after $id started after it ended" "$(sql "SELECT
	    a.started_at >= (SELECT finished_at FROM runs WHERE run_id = '$id'),
	    a.trigger FROM attempts a JOIN runs r ON a.run = r.id WHERE
	    r.job = 'rp' AND r.scheduled_at = $at + 1")" "1|schedule"
done
expect_eq "rp: every run but the last replaced" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'rp' AND status = 'terminated' AND reason = 'replaced'")" \
    "$(sql "SELECT count(*) FROM runs WHERE job = 'rp' AND status = 'terminated'")"
expect_eq "rp: nothing else" "$(sql "SELECT DISTINCT status FROM runs WHERE job = 'rp'
    AND reason IS NOT 'replaced' AND status != 'terminated'")" succeeded
expect_accounted rp

# ri ignores TERM: SIGKILL after kill_grace = 1s, then the new one runs.
ri_at=$(sql "SELECT scheduled_at FROM runs WHERE run_id = '$riid'")
expect_eq "ri: killed" "$(sql "SELECT status, reason, exit_status, signal FROM runs
    WHERE run_id = '$riid'")" "terminated|replaced||9"
log_has "tickd: warning: job ri: run $riid did not stop within 1s of signal 15: SIGKILL" ||
    fail "ri: no SIGKILL line"
expect_eq "ri: the next instance waited for the kill" "$(sql "SELECT r.status,
    a.lateness_ms >= 1000, a.lateness_ms < 2500, a.started_at >= (SELECT
    finished_at FROM runs WHERE run_id = '$riid') FROM runs r JOIN attempts a
    ON a.run = r.id WHERE r.job = 'ri' AND r.scheduled_at = $ri_at + 3")" "succeeded|1|1|1"
expect_eq "ri: killed about 1 s after the instant" "$(sql "SELECT finished_at -
    ($ri_at + 3) * 1000 BETWEEN 1000 AND 2000 FROM runs WHERE run_id = '$riid'")" 1
wait_for "ri's process to be gone" 5 no_procs zz-ri

# rw: the instances that waited for the kill and were replaced in turn.
expect_eq "rw: waiting instances replaced, each logged once" "$(sql "SELECT
    count(*) FROM runs WHERE job = 'rw' AND status = 'skipped' AND reason =
    'replaced'")" "$(grep -c "^tickd: warning: job rw: instance .* skipped: replaced by a newer instance (overlap = replace)$" "$log")"
expect_eq "rw: skipped only as replaced" "$(sql "SELECT DISTINCT reason FROM runs
    WHERE job = 'rw' AND status = 'skipped'")" replaced
wait_for "rw's process to be gone" 5 no_procs zz-rw

# --- checks that found bugs (soft) -------------------------------------------------
# kill_signal is sent once: runner_kill_tree signals the run's process
# group, then each process of that group again (its /proc scan matches
# pgrp == the run's pid), so a TERM trap that takes a moment (here: it
# runs date) runs twice.
checks=$((checks + 1))
dup=$(cut -d ' ' -f 1 "$dir/rp.term" | sort | uniq -d | tr '\n' ' ')
[ -z "$dup" ] ||
    soft_fail "rp: the TERM trap ran twice in these runs (kill_signal sent twice): $dup"
done_ok

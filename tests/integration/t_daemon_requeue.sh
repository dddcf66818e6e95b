#!/bin/sh
# Instances waiting when the daemon died keep their trigger: a manual run
# queued behind a running instance (overlap = queue) and a replay queued
# behind it too are started after the restart as "manual" and "replay"
# (TICKD_TRIGGER, attempts.trigger), not as scheduled ones.
. tests/integration/lib.sh
setup
write_job mq.job <<'EOF2'
[mq]
schedule = @yearly
overlap = queue
command = echo "$TICKD_RUN_ID $TICKD_TRIGGER $TICKD_ATTEMPT" >> @DIR@/mq.out; if [ -e @DIR@/mq.fail ]; then rm @DIR@/mq.fail; exit 3; fi; [ -e @DIR@/mq.long ] || exit 0; rm @DIR@/mq.long; while [ ! -e @DIR@/mq.end ]; do sleep 0.05; done
EOF2
daemon_start
# A failed manual run, to be replayed.
touch "$dir/mq.fail"
fid=$(ctl run --wait mq)
expect_eq "the first run failed" "$(sql "SELECT status FROM runs WHERE run_id = '$fid'")" failed
# A long one, then a manual run and the replay queued behind it.
touch "$dir/mq.long"
lid=$(ctl run mq)
wait_for "the long run" 10 eval '[ ! -e "$dir/mq.long" ]'
qid=$(ctl run mq)
expect_eq "the manual run: queued" "$(sql "SELECT status, origin FROM runs
    WHERE run_id = '$qid'")" "queued|manual"
run_cmd ctl replay "$fid"
expect_eq "replay: accepted" "$rc" 0
expect_eq "the replay: queued" "$(sql "SELECT status, reason FROM runs
    WHERE run_id = '$fid'")" "queued|replay"

daemon_stop 5 KILL
daemon_start
touch "$dir/mq.end"
wait_for "the long run's end" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE run_id = '"'$lid'"'")" != running ]'
wait_for "the queued ones to run" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE run_id IN ('"'$qid'"', '"'$fid'"') AND status = '"'succeeded'"'")" -eq 2 ]'
expect_eq "the manual run: TICKD_TRIGGER manual" "$(grep "^$qid " "$dir/mq.out")" "$qid manual 1"
expect_eq "the replay: TICKD_TRIGGER replay, attempt 2" "$(grep "^$fid " "$dir/mq.out" |
    tail -n 1)" "$fid replay 2"
expect_eq "the attempts say so" "$(sql "SELECT group_concat(x, ',') FROM (SELECT
    r.run_id || ' ' || a.attempt || ' ' || a.trigger AS x FROM attempts a JOIN
    runs r ON a.run = r.id WHERE r.run_id IN ('$qid', '$fid') ORDER BY x)")" \
    "$(printf '%s\n' "$fid 1 manual" "$fid 2 replay" "$qid 1 manual" | sort | paste -sd, -)"
daemon_stop_ok
done_ok

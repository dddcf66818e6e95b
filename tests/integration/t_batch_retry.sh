#!/bin/sh
# Batches (issue 18): a 16-shard instance whose shards 3 and 7 exit 75 on
# their first attempt (a marker file per shard: they fail once) retries
# exactly those two (retries = 2, retry_on_exit = 75): the job's own log
# has 18 starts, two for shards 3 and 7; the store has 16 shard rows
# under the instance (run id "<instance>#I", origin "schedule#I"),
# attempts 2 for shards 3 and 7 (attempt 1 exit 75), 1 for the others,
# all succeeded, and the instance succeeded with its list recorded.  Each
# shard saw TICKD_SHARD_INDEX, TICKD_SHARD_COUNT, TICKD_SHARD (its index)
# and TICKD_SHARD_RUN_ID right, TICKD_RUN_ID the instance's, TICKD_ATTEMPT
# its own.  A list "shards = beijing, shanghai, shenzhen" gives those
# parameters, in order.
. tests/integration/lib.sh
setup

daemon_start
t0=$(($(now) + 2 + slow))
rec='echo "$TICKD_SHARD_INDEX|$TICKD_ATTEMPT|$TICKD_SHARD_COUNT|$TICKD_SHARD|$TICKD_SHARD_RUN_ID|$TICKD_RUN_ID" >> @DIR@/$TICKD_JOB.out'
write_job batch.job <<EOF2
[b16]
schedule = $(at_cron "$t0")
shards = 16
retries = 2
retry_delay = 1s
retry_on_exit = 75
command = $rec; case \$TICKD_SHARD_INDEX in 3|7) [ -e @DIR@/failed.\$TICKD_SHARD_INDEX ] || { : > @DIR@/failed.\$TICKD_SHARD_INDEX; exit 75; } ;; esac; exit 0

[cities]
schedule = $(at_cron "$t0")
shards = beijing, shanghai, shenzhen
command = $rec
EOF2
ctl reload >/dev/null || fail "tickctl reload"

wait_for "b16's instance to end" 30 batch_ended b16
wait_for "cities' instance to end" 10 batch_ended cities
daemon_stop_ok

# --- b16: the job's own log -------------------------------------------------------
inst=$(sql "SELECT run_id FROM runs WHERE job = 'b16' AND parent IS NULL")
iid=$(sql "SELECT id FROM runs WHERE job = 'b16' AND parent IS NULL")
expect_match "b16: one instance, its run id" "$inst" "b16@$(rfc3339 "$t0")"
expect_eq "b16: 18 starts" "$(lines "$dir/b16.out")" 18
want= i=0
while [ $i -lt 16 ]; do
	case $i in
	3 | 7)	want="$want$i 2
" ;;
	*)	want="$want$i 1
" ;;
	esac
	i=$((i + 1))
done
expect_eq "b16: starts per shard (two for 3 and 7)" \
    "$(cut -d'|' -f1 "$dir/b16.out" | sort -n | uniq -c | awk '{print $2, $1}')" \
    "${want%?}"
expect_eq "b16: attempts 1 and 2 of shards 3 and 7" \
    "$(awk -F'|' '$1 == 3 || $1 == 7 {print $1, $2}' "$dir/b16.out" | sort)" \
    "3 1
3 2
7 1
7 2"
expect_eq "b16: the others' attempt is 1" \
    "$(awk -F'|' '$1 != 3 && $1 != 7 && $2 != 1' "$dir/b16.out")" ""
expect_eq "b16: each shard's environment" \
    "$(awk -F'|' -v inst="$inst" '$3 != 16 || $4 != $1 ||
    $5 != inst "#" $1 || $6 != inst' "$dir/b16.out")" ""

# --- b16: the store ---------------------------------------------------------------
expect_eq "b16: the instance succeeded" "$(sql "SELECT status, exit_status IS NULL,
    shard IS NULL FROM runs WHERE id = $iid")" "succeeded|1|1"
expect_eq "b16: its recorded list" "$(sql "SELECT shards FROM runs WHERE id = $iid")" \
    "$(seq 0 15)"
expect_eq "b16: 16 shard rows" "$(sql "SELECT count(*), count(DISTINCT shard),
    min(shard), max(shard) FROM runs WHERE parent = $iid")" "16|16|0|15"
want=$(i=0; while [ $i -lt 16 ]; do
	case $i in 3 | 7) a=2 ;; *) a=1 ;; esac
	echo "$i|$a|succeeded|$inst#$i|schedule#$i|$i|b16"
	i=$((i + 1))
done)
expect_eq "b16: each shard row" "$(sql "SELECT shard, attempts, status, run_id,
    origin, shards, job FROM runs WHERE parent = $iid ORDER BY shard")" "$want"
expect_eq "b16: the shards' scheduled_at is the instance's" "$(sql "SELECT count(*)
    FROM runs WHERE parent = $iid AND scheduled_at = (SELECT scheduled_at
    FROM runs WHERE id = $iid)")" 16
expect_eq "b16: attempt rows (3 and 7: exit 75, then 0)" "$(sql "SELECT r.shard,
    a.attempt, a.exit_status FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.parent = $iid AND r.shard IN (3, 7) ORDER BY r.shard, a.attempt")" \
    "3|1|75
3|2|0
7|1|75
7|2|0"
expect_eq "b16: 18 attempt rows in all" "$(sql "SELECT count(*) FROM attempts a
    JOIN runs r ON a.run = r.id WHERE r.parent = $iid")" 18
expect_eq "b16: each retry waited retry_delay (1 s)" "$(sql "SELECT count(*)
    FROM attempts a1 JOIN attempts a2 ON a2.run = a1.run AND a2.attempt = 2
    JOIN runs r ON a1.run = r.id WHERE r.parent = $iid AND a1.attempt = 1
    AND a2.started_at - a1.finished_at >= 1000")" 2
expect_eq "b16: one instance, not 16" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'b16' AND parent IS NULL")" 1

# --- cities: a parameter per shard ------------------------------------------------
cinst=$(sql "SELECT run_id FROM runs WHERE job = 'cities' AND parent IS NULL")
expect_eq "cities: its shards' environment" "$(sort "$dir/cities.out")" \
    "0|1|3|beijing|$cinst#0|$cinst
1|1|3|shanghai|$cinst#1|$cinst
2|1|3|shenzhen|$cinst#2|$cinst"
expect_eq "cities: the store" "$(sql "SELECT r.shard, r.shards, r.status FROM runs r
    JOIN runs i ON r.parent = i.id WHERE i.job = 'cities' ORDER BY r.shard")" \
    "0|beijing|succeeded
1|shanghai|succeeded
2|shenzhen|succeeded"
expect_eq "cities: the instance" "$(sql "SELECT status, shards FROM runs
    WHERE job = 'cities' AND parent IS NULL")" "succeeded|beijing
shanghai
shenzhen"
done_ok

#!/bin/sh
# Batches (issue 18): shards_from.  fr's lister (a script that logs each
# run) prints alpha, beta, gamma; the list file is changed once the
# batch began: beta fails once (exit 75, retries = 1) and its retry gets
# "beta" again; gamma fails (exit 1, permanent) until fixed, and the
# replay of the failed instance reruns it as "gamma", shard 2 of 3; the
# lister ran exactly once; the instance's recorded list is the first
# one.  fz's shards_from exits 3: the instance fails (reason shards_from)
# and no shard runs (no shard row, nothing in its log).
. tests/integration/lib.sh
setup

printf 'alpha\nbeta\ngamma\n' >"$dir/list"
cat >"$dir/lister.sh" <<EOF2
echo "lister \$TICKD_RUN_ID" >> $dir/lister.out
cat $dir/list
EOF2
daemon_start
t0=$(($(now) + 2 + slow))
write_job batch.job <<EOF2
[fr]
schedule = $(at_cron "$t0")
shards_from = sh @DIR@/lister.sh
retries = 1
retry_delay = 2s
retry_on_exit = 75
command = echo "start \$TICKD_SHARD_INDEX \$TICKD_SHARD \$TICKD_SHARD_COUNT \$TICKD_ATTEMPT \$TICKD_TRIGGER" >> @DIR@/fr.out; case \$TICKD_SHARD in beta) [ -e @DIR@/beta.once ] || { : > @DIR@/beta.once; exit 75; } ;; gamma) [ -e @DIR@/gamma.fixed ] || exit 1 ;; esac; exit 0

[fz]
schedule = $(at_cron "$t0")
shards_from = echo "lister fz" >> @DIR@/lister.out; echo one; exit 3
command = echo "start \$TICKD_SHARD_INDEX" >> @DIR@/fz.out
EOF2
ctl reload >/dev/null || fail "tickctl reload"

wait_for "fr's shards to start" 15 test -s "$dir/fr.out"
# The source changes once the batch began.
printf 'x\ny\nz\nw\n' >"$dir/list"
wait_for "fr's instance to end" 20 batch_ended fr
wait_for "fz's instance to end" 10 batch_ended fz
fr=$(sql "SELECT run_id FROM runs WHERE job = 'fr' AND parent IS NULL")

expect_eq "fr: failed (gamma)" "$(batch_status fr)" failed
expect_eq "fr: the starts (beta's retry as beta)" "$(sort "$dir/fr.out")" \
    "start 0 alpha 3 1 schedule
start 1 beta 3 1 schedule
start 1 beta 3 2 retry
start 2 gamma 3 1 schedule"
expect_eq "fr: its recorded list" "$(sql "SELECT shards FROM runs WHERE run_id = '$fr'")" \
    "alpha
beta
gamma"

# --- the replay: the recorded list, not the file's -----------------------------------------
: >"$dir/gamma.fixed"
run_cmd ctl replay "$fr" --wait
expect_eq "replay $fr --wait: exit status (err: $err)" "$rc" 0
wait_for "fr's instance to end again" 20 batch_ended fr
expect_eq "fr: succeeded" "$(batch_status fr)" succeeded
expect_eq "fr: the replay's start" "$(grep ' replay$' "$dir/fr.out")" \
    "start 2 gamma 3 2 replay"
expect_eq "fr: 5 starts in all" "$(lines "$dir/fr.out")" 5
expect_eq "fr: the shard rows" "$(sql "SELECT r.shard, r.shards, r.status, r.attempts
    FROM runs r JOIN runs i ON r.parent = i.id WHERE i.run_id = '$fr'
    ORDER BY r.shard")" "0|alpha|succeeded|1
1|beta|succeeded|2
2|gamma|succeeded|2"
expect_eq "the lister ran once per instance" "$(sort "$dir/lister.out")" "lister $fr
lister fz"

# --- fz: shards_from failed ---------------------------------------------------------------
expect_eq "fz: failed, reason shards_from" "$(sql "SELECT status, reason FROM runs
    WHERE job = 'fz' AND parent IS NULL")" "failed|shards_from"
expect_eq "fz: no shard row" "$(sql "SELECT count(*) FROM runs WHERE job = 'fz'
    AND parent IS NOT NULL")" 0
checks=$((checks + 1))
[ ! -e "$dir/fz.out" ] || fail "fz: a shard ran: $(cat "$dir/fz.out")"
daemon_stop_ok
done_ok

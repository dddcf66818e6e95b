#!/bin/sh
# Restarts: after kill -KILL, a job process that outlived the daemon is
# adopted at the next start (before "ready:"), and its end is recorded as
# status unknown (reason adopted), never as a guessed success; the
# instances of an every-second job that fell due during a 3 s downtime are
# on time (within the 60 s misfire_grace) and due at once: with overlap =
# skip the newest runs and the older ones are one decision (skipped,
# coalesced), none runs twice; a job added, and one whose schedule was
# edited, while the daemon was down get no instance, run or decision, for
# the instants before the start, while an unchanged one gets its misfire
# decision; @reboot runs once per boot, not at each daemon start.
. tests/integration/lib.sh
setup

# A short lease (renewed every lease / 3) to see it renewed.
write_conf "lease = 5s"
write_job tick.job <<'EOF2'
[tick]
schedule = * * * * * *
command = echo "$TICKD_RUN_ID" >> @DIR@/tick.out
EOF2
# long: its first run lasts until the test creates long.end.
write_job long.job <<'EOF2'
[long]
schedule = every 1s
command = [ ! -e @DIR@/long.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/long.id; while [ ! -e @DIR@/long.end ]; do sleep 0.1; done
EOF2
write_job boot.job <<'EOF2'
[boot]
schedule = @reboot
command = echo "$TICKD_RUN_ID" >> @DIR@/boot.out
EOF2
# same: unchanged across the downtime, its late instances a misfire
# decision; chg: its schedule edited while the daemon is down (and added,
# a job added then): no retroactive instance, run or decision.
write_job same.job <<'EOF2'
[same]
schedule = * * * * * *
misfire = skip
misfire_grace = 1s
command = true
EOF2
write_job chg.job <<'EOF2'
[chg]
schedule = * * * * * *
misfire = run_once
misfire_grace = 1s
command = true
EOF2

# check_tick WHEN: tick's instances are accounted for and its side effects
# match its runs.
check_tick() {
	expect_accounted tick "$1"
	expect_runs_match "$dir/tick.out" "job = 'tick'"
}

# --- start 1, then kill -KILL while long runs ------------------------------------------
daemon_start
wait_for "the @reboot run" 10 test -s "$dir/boot.out"
wait_for "long to start" 10 test -s "$dir/long.id"
lid=$(cat "$dir/long.id")
wait_for "long's attempt row" 10 eval "[ -n \"\$(sql \"SELECT a.pid FROM
    attempts a JOIN runs r ON a.run = r.id WHERE r.run_id = '$lid'\")\" ]"
wait_for "2 runs of tick" 10 eval '[ "$(lines "$dir/tick.out")" -ge 2 ]'
lpgid=$(sql "SELECT a.pid FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.run_id = '$lid'")
expect_eq "long: running" "$(sql "SELECT status, owner IS NOT NULL,
    lease_until > $(now) FROM runs WHERE run_id = '$lid'")" "running|1|1"
# The claim's lease is claim time + 5 s; it is renewed while long runs.
lease0=$(sql "SELECT created_at / 1000 + 5 FROM runs WHERE run_id = '$lid'")
wait_for "long's lease to be renewed" 10 eval "[ \"\$(sql \"SELECT lease_until
    FROM runs WHERE run_id = '$lid'\")\" -gt $lease0 ]"
# Between two of tick's short runs, so that none is cut short.
wait_mid_second
daemon_stop 5 KILL
t_kill=$(now)
last_before=$(sql "SELECT max(scheduled_at) FROM runs WHERE job = 'tick'")
expect_eq "tick: nothing running at the kill" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'tick' AND status != 'succeeded'")" 0
checks=$((checks + 1))
pid_alive "$lpgid" || fail "long's process did not outlive the daemon"
last_same=$(sql "SELECT max(scheduled_at) FROM runs WHERE job = 'same'")
last_chg=$(sql "SELECT max(scheduled_at) FROM runs WHERE job = 'chg'")
sed 's/^schedule = .*/schedule = *\/2 * * * * */' "$jobs/chg.job" | write_job chg.job
sed 's/^\[chg\]/[added]/' "$jobs/chg.job" | write_job added.job
# The daemon stays down while several of tick's instants go by.
wait_until $((t_kill + 3))

# --- start 2: long is adopted -------------------------------------------------------------
t_restart=$(now)
daemon_start
expect_eq "long: adopted" "$(grep -F "outlived the previous daemon" "$log")" \
    "tickd: notice: job long: run $lid attempt 1 outlived the previous daemon: adopted, pid $lpgid"
# Settled before READY: the adoption is logged before the second "ready:".
expect_before "adopted before ready" "outlived the previous daemon" 1 "ready:" 2
expect_eq "long: still running, owned by the new daemon" "$(sql "SELECT status,
    owner, attempts FROM runs WHERE run_id = '$lid'")" "running|$(hostname):$tickd_pid|1"
# Its lease is renewed by the new daemon (every lease / 3), past what the
# restart gave it.
lease1=$(sql "SELECT lease_until FROM runs WHERE run_id = '$lid'")
wait_for "long's lease renewed after the restart" 10 eval "[ \"\$(sql \"SELECT
    lease_until FROM runs WHERE run_id = '$lid'\")\" -gt $lease1 ]"
expect_eq "no run interrupted" "$(sql "SELECT count(*) FROM runs
    WHERE status = 'interrupted'")" 0
checks=$((checks + 1))
! log_has "was interrupted by a daemon stop" || fail "a run was interrupted: $(grep -F 'was interrupted' "$log")"
wait_for "a tick run after the restart" 10 eval "[ \"\$(sql \"SELECT count(*)
    FROM runs WHERE job = 'tick' AND scheduled_at > $t_restart AND
    status = 'succeeded'\")\" -ge 1 ]"
# long ends now: its exit status cannot be known.
touch "$dir/long.end"
wait_for "long's end to be recorded" 10 eval "[ \"\$(sql \"SELECT status FROM runs
    WHERE run_id = '$lid'\")\" != running ]"
expect_eq "long: unknown, adopted" "$(sql "SELECT status, reason, exit_status,
    signal, owner, lease_until, finished_at >= created_at FROM runs
    WHERE run_id = '$lid'")" "unknown|adopted|||||1"
expect_eq "long: its attempt" "$(sql "SELECT a.attempt, a.outcome, a.exit_status,
    a.finished_at IS NOT NULL FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.run_id = '$lid'")" "1|unknown||1"
log_has "tickd: notice: job long: run $lid attempt 1 unknown (adopted after a restart: its exit status cannot be known)" ||
    fail "long: the end of the adopted run is not logged"
wait_for "long's process to be gone" 5 eval "! pid_alive $lpgid"

# Jobs added or changed while the daemon was down start afresh: nothing
# for the instants before the start.  The unchanged one's late instances
# more than its misfire_grace late are one misfire decision.
for j in added chg; do
	wait_for "a run of $j after the restart" 10 eval "[ \"\$(sql \"SELECT
	    count(*) FROM runs WHERE job = '$j' AND scheduled_at > $t_restart AND
	    status = 'succeeded'\")\" -ge 1 ]"
done
expect_eq "added: no run or decision before the start" "$(sql "SELECT
    (SELECT count(*) FROM runs WHERE job = 'added' AND
    scheduled_at <= $t_restart), (SELECT count(*) FROM decisions
    WHERE job = 'added')")" "0|0"
expect_eq "chg: no run or decision in the downtime" "$(sql "SELECT
    (SELECT count(*) FROM runs WHERE job = 'chg' AND scheduled_at >
    $last_chg AND scheduled_at <= $t_restart), (SELECT count(*) FROM
    decisions WHERE job = 'chg')")" "0|0"
expect_eq "chg: the edited schedule" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'chg' AND scheduled_at > $t_restart AND
    scheduled_at % 2 = 1")" 0
expect_eq "same: the misfire decision" "$(sql "SELECT decision, first_at,
    last_at < $t_restart, count = last_at - first_at + 1 FROM decisions
    WHERE job = 'same' AND reason = 'misfire'")" "skipped|$((last_same + 1))|1|1"
expect_eq "same: none of them ran" "$(sql "SELECT count(*) FROM runs r
    JOIN decisions d ON d.job = r.job WHERE r.job = 'same' AND
    r.scheduled_at BETWEEN d.first_at AND d.last_at")" 0

# The downtime: the instances due at once are on time; with overlap = skip
# the newest runs and the older ones coalesce into it: one decision.
late=$(sql "SELECT min(scheduled_at) FROM runs WHERE job = 'tick' AND
    scheduled_at > $last_before")
expect_eq "tick: the newest due instance ran, late" "$(sql "SELECT r.status,
    r.origin, a.trigger, a.lateness_ms < 1000 FROM runs r JOIN attempts a
    ON a.run = r.id WHERE r.job = 'tick' AND r.scheduled_at = $late")" \
    "succeeded|schedule|schedule|1"
checks=$((checks + 1))
[ $((late - 1 - last_before)) -ge 2 ] && [ "$late" -le $((t_restart + 1)) ] ||
    fail "tick: after the downtime from $(rfc3339 "$last_before") the first run is $(rfc3339 "$late")"
expect_eq "tick: one decision for the older ones" "$(sql "SELECT decision, reason,
    first_at, last_at, count FROM decisions WHERE job = 'tick'")" \
    "skipped|coalesced|$((last_before + 1))|$((late - 1))|$((late - 1 - last_before))"
log_has "tickd: warning: job tick: $((late - 1 - last_before)) instances from $(rfc3339 $((last_before + 1))) to $(rfc3339 $((late - 1))) skipped (due at once after a short stall: coalesced into the newest)" ||
    fail "tick: the coalesced instances are not logged"
expect_eq "tick: nothing skipped one by one" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'tick' AND status = 'skipped'")" 0
check_tick "after kill -KILL"

# @reboot: once, at the first start.
btime=$(sed -n 's/^btime //p' /proc/stat)
expect_eq "boot: one run" "$(sql "SELECT run_id, origin, status, scheduled_at
    FROM runs WHERE job = 'boot'")" \
    "boot@$(rfc3339 "$btime")/reboot|reboot|succeeded|$btime"
expect_eq "boot: boot id stored" "$(sql "SELECT boot_id FROM jobs
    WHERE job = 'boot'")" "$(cat /proc/sys/kernel/random/boot_id)"

# --- a clean stop and start 3 -------------------------------------------------------------
daemon_stop_ok
daemon_start
t3=$(now)
wait_for "a tick run after the third start" 10 eval "[ \"\$(sql \"SELECT
    count(*) FROM runs WHERE job = 'tick' AND scheduled_at > $t3 AND
    status = 'succeeded'\")\" -ge 1 ]"
daemon_stop_ok
check_tick "after a clean restart"
expect_eq "boot: still one run" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'boot'")" 1
expect_eq "boot: one side effect" "$(lines "$dir/boot.out")" 1
# (An instant of long whose short run a clean stop caught is terminated,
# reason shutdown: not a second run of the long one.)
expect_eq "long: ran once" "$(sql "SELECT count(*), sum(attempts) FROM runs
    WHERE job = 'long' AND status NOT IN ('succeeded', 'skipped') AND
    NOT (status = 'terminated' AND reason = 'shutdown' AND run_id != '$lid')")" "1|1"
expect_eq "long: its other runs" "$(sql "SELECT count(*) FROM runs WHERE
    job = 'long' AND status = 'skipped' AND detail != '$lid is still running'")" 0
expect_eq "nothing left running" "$(sql "SELECT count(*) FROM runs
    WHERE status IN ('running', 'pending', 'interrupted')")" 0

# --- checks that found bugs (soft) -------------------------------------------------------
# The adopted run's record is complete: when it started (its attempt did).
checks=$((checks + 1))
[ "$(sql "SELECT started_at IS NOT NULL FROM runs WHERE run_id = '$lid'")" = 1 ] ||
    soft_fail "long: the adopted run has no started_at"
done_ok

#!/bin/sh
# tickctl steers the daemon through its control socket: run (a manual
# instance starts at once; --wait exits with the job's status; overlap
# refuses a busy job unless --force), replay (a failed instance again under
# its own identity, a succeeded one refused), pause and resume (persisted
# across a restart, no back-fill, --catch-up hands the missed instants to
# the misfire policy), reload (accepted, partly refused with the problems,
# refused for an invalid tickd.conf); each with --json.  status counts the
# jobs the daemon loaded, not what the files say until a reload; a job
# whose file became invalid is read and steered as the daemon runs it.  A
# manual run's lateness is one figure in the log, show and stats.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }

# Jobs that only run when asked (@yearly), and one every second.
write_job manual.job <<'EOF'
[zero]
schedule = @yearly
command = true

[three]
schedule = @yearly
command = exit 3

[selfkill]
schedule = @yearly
command = kill -KILL $$

[busy]
schedule = @yearly
command = sleep 30

[flaky]
schedule = @yearly
command = env > @DIR@/flaky.$TICKD_ATTEMPT; [ "$TICKD_ATTEMPT" -ge 2 ]
EOF
write_job tick.job <<'EOF'
[tick]
schedule = * * * * * *
command = echo "v1 $TICKD_RUN_ID" >> @DIR@/tick.out
EOF
daemon_start

# ended RUN_ID: whether the instance has a final status.
ended() {
	case $(sql "SELECT status FROM runs WHERE run_id = '$1'") in
	succeeded | failed | dead | skipped | terminated | abandoned | unknown)
		return 0 ;;
	esac
	return 1
}

# --- run: a run id, and a start within moments --------------------------------------
t_req=$(now_ms)
run_cmd ctl run zero
expect_eq "run zero: exit" "$rc" 0
expect_match "run zero: the run id" "$out" "zero@20??-??-??T??:??:??Z/manual"
zid=$out
wait_for "zero's run to end" 5 ended "$zid"
expect_eq "run zero: succeeded, trigger manual" "$(sql "SELECT status || ' ' ||
    trigger || ' ' || origin FROM runs WHERE run_id = '$zid'")" "succeeded manual manual"
t_start=$(attempt_field "$zid" 1 started_at)
expect_eq "run zero: started within 1 s of the request" \
    "$([ $((t_start - t_req)) -le 1000 ] && echo yes)" yes
echo "run zero: started $((t_start - t_req)) ms after tickctl was called"
# A manual run's lateness counts from the request, to the millisecond,
# in the log, on its attempt, in show and in stats alike (its instant is
# the request's second).
late=$(attempt_field "$zid" 1 lateness_ms)
log_has "job zero: run $zid attempt 1 started, pid $(attempt_field "$zid" 1 pid), $late ms after its request" ||
    check_fail "run zero: the log's lateness is not the attempt's ($late ms)"
expect_eq "run zero: show's lateness is the attempt's" \
    "$(ctl --json show "$zid" | jpy 'o["lateness_ms"]')" "$late"
expect_eq "run zero: stats' lateness is the attempt's" \
    "$(ctl --json stats zero | jpy 'o["lateness_max_ms"]')" "$late"

# --- run --wait: the job's exit status ---------------------------------------------------
run_cmd ctl run --wait zero
expect_eq "run --wait zero: exit" "$rc" 0
expect_match "run --wait zero: stderr" "$err" "zero@*Z/manual: succeeded"
run_cmd ctl run --wait three
expect_eq "run --wait three: exit 3" "$rc" 3
expect_match "run --wait three: stderr" "$err" "three@*Z/manual: failed, exit"
run_cmd ctl run --wait selfkill
expect_eq "run --wait selfkill: exit 128 + 9" "$rc" 137
expect_match "run --wait selfkill: stderr" "$err" "selfkill@*Z/manual: failed, signal"
run_cmd ctl --json run --wait three
expect_eq "--json run --wait three: exit" "$rc" 3
printf '%s\n' "$out" | expect_json "--json run --wait" run_id job exit_status
expect_match "--json run --wait three" "$(printf '%s\n' "$out" | jpy '[o["job"],
    o["exit_status"], o["run_id"]]' | tr '\n' ' ')" "three 3 three@*Z/manual "

# --- run on a busy job: overlap, then --force ----------------------------------------------
run_cmd ctl run busy
expect_eq "run busy: exit" "$rc" 0
bid=$out
wait_for "busy to run" 5 eval '[ "$(sql "SELECT status FROM runs
    WHERE run_id = '"'$bid'"'")" = running ]'
run_cmd ctl run busy
expect_eq "run busy (busy): exit" "$rc" 1
expect_match "run busy (busy): why" "$err" \
    "tickctl: run busy: busy@*Z/manual skipped (overlap = skip): $bid is still running; use --force"
expect_eq "run busy (busy): one line" "$(printf '%s\n' "$err" | wc -l)" 1
run_cmd ctl run --force busy
expect_eq "run --force busy: exit" "$rc" 0
fbid=$out
wait_for "the forced busy to run" 5 eval '[ "$(sql "SELECT status FROM runs
    WHERE run_id = '"'$fbid'"'")" = running ]'
expect_eq "busy: two instances running" "$(sql "SELECT count(*) FROM runs WHERE
    job = 'busy' AND status = 'running'")" 2
expect_eq "busy: the refused one is recorded as skipped" "$(sql "SELECT count(*)
    FROM runs WHERE job = 'busy' AND status = 'skipped' AND reason = 'overlap'")" 1

# --json pause and resume, on busy (instances in flight) and zero (none).
# list_next JOB: the next instant list shows for JOB.
list_next() {
	ctl --json list | jpy '[x["next_at"] for x in L if x["job"] == "'"$1"'"]'
}
run_cmd ctl --json pause busy
expect_eq "--json pause busy: exit" "$rc" 0
printf '%s\n' "$out" | expect_json "--json pause busy" job state in_flight message
expect_eq "--json pause busy" "$(printf '%s\n' "$out" | jpy '[o["job"], o["state"],
    o["in_flight"], o["message"]]' | tr '\n' '|')" \
    "busy|paused|true|busy paused: its running instance goes on|"
run_cmd ctl --json resume busy
expect_eq "--json resume busy: exit" "$rc" 0
printf '%s\n' "$out" | expect_json "--json resume busy" job state next_at catch_up
expect_eq "--json resume busy" "$(printf '%s\n' "$out" | jpy '[o["job"], o["state"],
    o["next_at"], o["catch_up"]]' | tr '\n' ' ')" "busy running $(list_next busy) false "
expect_match "--json resume busy: next_at" "$(printf '%s\n' "$out" | jpy 'o["next_at"]')" \
    "20??-??-??T??:??:??Z"
run_cmd ctl --json pause zero
expect_eq "--json pause zero" "$rc $(printf '%s\n' "$out" | jpy '[o["state"],
    o["in_flight"]]' | tr '\n' ' ')" "0 paused false "
expect_eq "--json list: zero paused, no next" "$(list_next zero)" null
run_cmd ctl --json resume zero
expect_eq "--json resume zero" "$rc $(printf '%s\n' "$out" | jpy '[o["state"],
    o["next_at"]]' | tr '\n' ' ')" "0 idle $(list_next zero) "
run_cmd ctl --json pause nosuch
expect_eq "--json pause (unknown job): exit" "$rc" 2
expect_eq "--json pause (unknown job): no output" "$out" ""
run_cmd ctl --json resume
expect_eq "--json resume (no job): exit" "$rc" 2

# How long manual instances took to start: the request (created_at) to
# the start of their process.
lat=$(sql "SELECT max(a.started_at - r.created_at) || ' ms max, ' ||
    CAST(avg(a.started_at - r.created_at) AS INTEGER) || ' ms mean over ' ||
    count(*) FROM runs r JOIN attempts a ON a.run = r.id AND a.attempt = 1
    WHERE r.origin = 'manual' AND a.started_at IS NOT NULL")
echo "manual run start latency (request to process start): $lat"
expect_eq "manual runs start within 100 ms of the request" "$(sql "SELECT count(*)
    FROM runs r JOIN attempts a ON a.run = r.id AND a.attempt = 1
    WHERE r.origin = 'manual' AND a.started_at - r.created_at > 100 * $slow")" 0

# --- replay ------------------------------------------------------------------------
run_cmd ctl run --wait flaky
expect_eq "run --wait flaky: exit" "$rc" 1
fid=$out
run_cmd ctl replay "$fid"
expect_eq "replay: exit" "$rc" 0
expect_eq "replay: the run id" "$out" "$fid"
wait_for "the replayed attempt" 5 test -s "$dir/flaky.2"
wait_for "the replay to end" 5 ended "$fid"
expect_eq "replay: the same TICKD_RUN_ID" "$(grep '^TICKD_RUN_ID=' "$dir/flaky.2")" \
    "TICKD_RUN_ID=$fid"
expect_eq "replay: attempt 2, trigger replay" "$(grep -E '^TICKD_(ATTEMPT|TRIGGER)=' \
    "$dir/flaky.2" | sort | tr '\n' ' ')" "TICKD_ATTEMPT=2 TICKD_TRIGGER=replay "
expect_eq "replay: the first attempt's" "$(grep -E '^TICKD_(RUN_ID|ATTEMPT|TRIGGER)=' \
    "$dir/flaky.1" | sort | tr '\n' ' ')" "TICKD_ATTEMPT=1 TICKD_RUN_ID=$fid TICKD_TRIGGER=manual "
expect_eq "replay: one instance, 2 attempts, succeeded" "$(ctl --json show "$fid" |
    jpy '[o["status"], o["attempts"], o["trigger"]] + [a["trigger"] + "/" +
    str(a["exit_status"]) for a in o["attempt_list"]]' | tr '\n' ' ')" \
    "succeeded 2 replay manual/1 replay/0 "
run_cmd ctl replay "$fid"
expect_eq "replay (succeeded): exit" "$rc" 1
expect_eq "replay (succeeded): why" "$err" "tickctl: replay $fid: $fid: its status is succeeded: only failed and dead instances can be replayed"
run_cmd ctl replay "$zid"
expect_eq "replay (never failed): exit" "$rc" 1
run_cmd ctl --json replay --wait "$(ctl --json history three --limit 1 | jpy 'o["run_id"]')"
expect_eq "replay --wait (fails again): exit" "$rc" 3

# --- pause and resume ----------------------------------------------------------------
wait_for "a run of tick" 5 test -s "$dir/tick.out"
run_cmd ctl pause tick
expect_eq "pause: exit" "$rc" 0
# (A run that wrote its line may not have ended yet: it goes on.)
expect_match "pause: output" "$out" "tick paused*"
t_pause=$(now)
expect_match "list: paused" "$(ctl list | grep '^tick ')" "tick *paused *- *- *"
wait_until $((t_pause + 2))
expect_eq "paused: no instance after the pause" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'tick' AND scheduled_at > $t_pause")" 0
daemon_stop_ok
daemon_start
expect_match "paused across a restart: list" "$(ctl list | grep '^tick ')" "tick *paused *- *- *"
wait_until $(($(now) + 1))
expect_eq "paused across a restart: no instance" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'tick' AND scheduled_at > $t_pause")" 0
run_cmd ctl resume tick
expect_eq "resume: exit" "$rc" 0
expect_match "resume: output" "$out" "tick resumed: next at 20??-??-??T??:??:??Z"
t_resume=$(now)
wait_for "a run of tick after resume" 5 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '"'tick'"' AND scheduled_at > $t_resume")" -ge 1 ]'
expect_eq "resume: no back-fill (runs)" "$(sql "SELECT count(*) FROM runs
    WHERE job = 'tick' AND scheduled_at > $t_pause AND scheduled_at < $t_resume")" 0
# What passed meanwhile is one decision: skipped, reason paused.  (Not
# the only decision of tick on a loaded machine: a stall of the daemon
# before the pause may have coalesced an instance it found late.)
paused="FROM decisions WHERE job = 'tick' AND reason = 'paused'"
expect_eq "resume: the instants passed over, one decision" "$(sql "SELECT decision,
    reason, first_at <= $t_pause + 1, last_at >= $t_resume - 1, last_at <= $t_resume,
    count = last_at - first_at + 1 $paused")" \
    "skipped|paused|1|1|1|1"
log_has "tickd: notice: job tick: $(sql "SELECT count $paused") instances from $(rfc3339 "$(sql "SELECT first_at $paused")") to $(rfc3339 "$(sql "SELECT last_at $paused")") skipped (passed over while the job was paused)" ||
    fail "resume: the passed-over instants are not logged"
expect_match "list: idle again" "$(ctl list | grep '^tick ' | sed 's/ running / idle /')" \
    "tick *idle *20*"

# --catch-up: the instants missed while paused go to the misfire policy
# (run_once: the newest runs, the others are one coalesced decision).
# The pause takes effect somewhere in the call, which a loaded machine
# can stretch over a second boundary: the last instant before it is the
# one the store says was planned last.
run_cmd ctl pause tick
t_pause=$(sql "SELECT planned FROM jobs WHERE job = 'tick'")
# The catch-up's decision: from the pause on (see above).
cu="FROM decisions WHERE job = 'tick' AND reason != 'paused' AND
    first_at >= $t_pause"
wait_until $((t_pause + 4))
run_cmd ctl resume --catch-up tick
expect_eq "resume --catch-up: exit" "$rc" 0
t_resume=$(now)
wait_for "the catch-up decision" 5 eval '[ "$(sql "SELECT count(*) $cu")" -ge 1 ]'
expect_eq "resume --catch-up: one coalesced decision" "$(sql "SELECT decision || ' ' ||
    reason || ' ' || (first_at = $t_pause + 1) $cu")" \
    "skipped coalesced 1"
wait_for "the newest missed instant's run" 5 eval '[ "$(sql "SELECT count(*)
    FROM runs r WHERE r.job = '"'tick'"' AND
    r.scheduled_at = (SELECT last_at + 1 $cu)")" -eq 1 ]'
expect_eq "resume --catch-up: every missed instant accounted for once" "$(sql "SELECT
    (SELECT count $cu) +
    (SELECT count(*) FROM runs WHERE job = 'tick' AND scheduled_at > $t_pause AND
    scheduled_at <= (SELECT last_at + 1 $cu)) -
    ((SELECT last_at + 1 $cu) - $t_pause)")" 0
expect_match "history: the decision" "$(ctl history tick --status skipped)" \
    "*tick *- *skipped (coalesced) *- *20* UTC *- *- *- *- *- *[0-9]* instant*"

# --- reload --------------------------------------------------------------------------
# status_jobs: status's job counts and where they come from.
status_jobs() {
	ctl --json status | jpy '[o["jobs"], o["jobs_in_error"], o["jobs_source"]]' |
	    tr '\n' ' '
}
expect_eq "status: the daemon's jobs" "$(status_jobs)" "6 0 daemon "
write_job extra.job <<'EOF'
[extra]
schedule = @yearly
command = true
EOF
expect_eq "status: a new job file, not reloaded" "$(status_jobs)" "6 0 daemon "
expect_match "status: a new job file, not reloaded (text)" "$(ctl status | grep '^jobs ')" \
    "jobs *6 loaded, 0 in error (the files now say 7 and 0)"
ctl pause zero >/dev/null || check_fail "pause zero before the reload"
run_cmd ctl reload
expect_eq "reload (good): exit" "$rc" 0
expect_eq "reload (good): output" "$out" "reloaded: 7 jobs"
expect_eq "reload (good): stderr" "$err" ""
expect_eq "status: reloaded" "$(status_jobs)" "7 0 daemon "
# A paused job stays paused through a reload (its state is kept in memory).
expect_match "reload: zero still paused" "$(ctl list | grep '^zero ')" "zero *paused *- *- *"
ctl resume zero >/dev/null || check_fail "resume zero after the reload"
expect_match "status: reloaded (text)" "$(ctl status | grep '^jobs ')" \
    "jobs *7 loaded, 0 in error"
run_cmd ctl --json reload
expect_eq "--json reload (good): exit" "$rc" 0
expect_eq "--json reload (good): stderr" "$err" ""
printf '%s\n' "$out" | expect_json "--json reload (good)" accepted partial jobs \
    problems warnings message
expect_eq "--json reload (good)" "$(printf '%s\n' "$out" | jpy '[o["accepted"],
    o["partial"], o["jobs"], o["problems"], o["warnings"], o["message"]]' |
    tr '\n' '|')" "true|false|7|[]|[]|reloaded: 7 jobs|"
# A bad key in tick's file: tick keeps running its previous definition.
write_job tick.job <<'EOF'
[tick]
schedule = * * * * * *
command = echo "v2 $TICKD_RUN_ID" >> @DIR@/tick.out
colour = blue
EOF
run_cmd ctl reload
t_reload=$(now)
expect_eq "reload (bad job file): exit" "$rc" 1
expect_eq "reload (bad job file): stderr" "$err" "$jobs/tick.job:4: colour: unknown key
tickctl: reload: reload partially failed: 1 problems; the jobs concerned keep their previous definitions"
wait_for "a run of tick after the bad reload" 5 eval '[ "$(sql "SELECT count(*)
    FROM runs WHERE job = '"'tick'"' AND scheduled_at > $t_reload AND status =
    '"'succeeded'"'")" -ge 1 ]'
expect_eq "reload (bad job file): tick keeps its definition" \
    "$(grep -c '^v2 ' "$dir/tick.out")" 0
log_has "job tick: the new definition is invalid; keeping the previous one" ||
    check_fail "reload (bad job file): not logged"
run_cmd ctl --json reload
expect_eq "--json reload (bad job file): exit" "$rc" 1
expect_eq "--json reload (bad job file): stderr" "$err" "tickctl: reload: reload partially failed: 1 problems; the jobs concerned keep their previous definitions"
printf '%s\n' "$out" | expect_json "--json reload (bad job file)" accepted partial jobs \
    problems
expect_eq "--json reload (bad job file)" "$(printf '%s\n' "$out" | jpy '[o["accepted"],
    o["partial"], o["jobs"]] + o["problems"]' | tr '\n' '|')" \
    "false|true|7|$jobs/tick.job:4: colour: unknown key|"
# The daemon runs tick's previous definition, which the files no longer hold.
expect_eq "status: tick kept" "$(status_jobs)" "7 1 daemon "
expect_match "status: tick kept (text)" "$(ctl status | grep '^jobs ')" \
    "jobs *7 loaded, 1 in error (the files now say 6 and 1); 1 problem in 1 file (tickctl check lists them)"
# tickctl reads and steers tick as the daemon runs it, and says so.
for c in status next env pause resume run; do
	run_cmd ctl "$c" tick
	expect_eq "$c tick (file invalid): exit" "$rc" 0
	expect_eq "$c tick (file invalid): stderr" "$err" "tickctl: $c: job \"tick\": the daemon runs its previous definition ($jobs/tick.job:1): the file's is invalid ($jobs/tick.job:1): see tickctl check"
	eval "out_$c=\$out"
done
expect_match "status tick: the previous command" "$out_status" \
    "*command       echo \"v1 \$TICKD_RUN_ID\" >> $dir/tick.out*"
expect_eq "next tick: instants" "$(printf '%s\n' "$out_next" | grep -c '^20.*+00:00$')" 5
expect_match "env tick: its environment" "$out_env" "*TICKD_JOB=tick*"
# (tick runs every second: the pause may meet one of its runs.)
case $out_pause in
"tick paused" | "tick paused: its running instance goes on") ;;
*) check_fail "pause tick: got [$out_pause]" ;;
esac
expect_match "resume tick" "$out_resume" "tick resumed: next at *"
expect_match "run tick: a manual instance" "$out_run" "tick@*Z/manual"
wait_for "tick's manual run to end" 5 ended "$out_run"
expect_eq "run tick: the previous definition ran" \
    "$(grep -c "^v1 $out_run\$" "$dir/tick.out")" 1
# A file tickctl cannot read as the daemon would (writable by others):
# the files hold no tick at all, the daemon still runs it.
chmod 666 "$jobs/tick.job"
run_cmd ctl reload
expect_eq "reload (unsafe file): exit" "$rc" 1
run_cmd ctl pause tick
expect_eq "pause tick (unsafe file)" "$rc|${out%: its running instance goes on}|$err" "0|tick paused|tickctl: pause: job \"tick\": the daemon runs its previous definition ($jobs/tick.job:1): the files do not define it now (see tickctl check)"
run_cmd ctl resume tick
expect_eq "resume tick (unsafe file): exit" "$rc" 0
chmod 644 "$jobs/tick.job"
run_cmd ctl reload
# An invalid tickd.conf: tickctl says so; the daemon, asked directly,
# refuses it and changes nothing.
cp "$dir/tickd.conf" "$dir/tickd.conf.good"
echo "this is not a key" >>"$dir/tickd.conf"
run_cmd ctl reload
expect_eq "reload (bad tickd.conf): exit" "$rc" 1
expect_match "reload (bad tickd.conf): stderr" "$err" \
    "tickctl: config $dir/tickd.conf is invalid: $dir/tickd.conf:*: syntax error*"
expect_match "reload (bad tickd.conf): the daemon's answer" "$(ctl_send 'reload\n')" \
    "$dir/tickd.conf:*: syntax error*
ERR $dir/tickd.conf is invalid: nothing changed"
cp "$dir/tickd.conf.good" "$dir/tickd.conf"
expect_eq "reload (bad tickd.conf): the daemon goes on" "$(ctl_send 'ping\n')" \
    "OK $tickd_pid"
daemon_stop_ok

# The daemon is gone: the steering commands say so, status counts the files.
run_cmd ctl --json reload
expect_eq "--json reload (no daemon)" "$rc|$out" "1|"
expect_match "--json reload (no daemon): stderr" "$err" "tickctl: tickd is not running*"
run_cmd ctl --json pause tick
expect_eq "--json pause (no daemon)" "$rc|$out" "1|"
expect_eq "status (no daemon): the files" "$(status_jobs)" "6 1 files "
expect_match "status (no daemon): the files (text)" "$(ctl status | grep '^jobs ')" \
    "jobs *6 loaded, 1 in error (from the files: the daemon is not running); 1 problem in 1 file (tickctl check lists them)"
done_ok

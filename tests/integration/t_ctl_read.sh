#!/bin/sh
# tickctl's reading commands against a running daemon, for people and with
# --json (every line parses, with the documented fields): list (every state,
# queued too, and the next instants, flagged DST in a gap or a fold),
# status and status JOB (consecutive skips, the instances in flight), next
# JOB (as next --cron), history and its filters, show (attempts, the output
# tail, the journalctl line; an unknown run id), stats, metrics (the
# Prometheus text format), env (what the job gets), check (good setup,
# warnings with --strict, failed, blocked, overdue and invalid jobs, daemon
# down), replay of a dead instance, and bash completion of commands, job
# names and run ids.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }
soft_checks=1

t0=$(now)
t_env=$((t0 + 5))
# A job printing known text, one paused later, one disabled, one whose
# environment is compared with "tickctl env", one in another zone for next.
write_job ok.job <<'EOF'
[ok]
description = says hello every second
schedule = * * * * * *
command = echo "tickd-read-test says hello from $TICKD_RUN_ID"
EOF
write_job held.job <<'EOF'
[held]
schedule = * * * * * *
command = true
EOF
write_job off.job <<'EOF'
[off]
schedule = * * * * * *
enabled = no
command = true
EOF
write_job envjob.job <<EOF
[envjob]
schedule = $(at_cron "$t_env")
environment = GREETING=hello  world
command = env > @DIR@/env.out
EOF
write_job nightly.job <<'EOF'
[nightly]
schedule = 30 2 * * *
timezone = America/New_York
command = true
EOF
daemon_start
ctl env envjob >"$dir/env.ctl" || fail "env envjob: exit $?"
ctl --json env envjob >"$dir/env.json" || fail "env --json envjob: exit $?"
wait_for "a run of ok" 10 eval '[ "$(sql "SELECT count(*) FROM runs WHERE
    job = '"'ok'"' AND status = '"'succeeded'"'")" -ge 1 ]'

# --- check on a good setup, then with an ignored file ---------------------------
run_cmd ctl check
expect_eq "check (good): exit" "$rc" 0
expect_eq "check (good): output" "$(first "$out")" "OK: 5 jobs, daemon running, nothing wrong"
# Last, how the daemon tracks jobs, as it recorded it.
expect_eq "check (good): tracking" "$(printf '%s\n' "$out" | sed 1d)" \
    "jobs are tracked by $(sql "SELECT value FROM meta WHERE key = 'tracking'")"
run_cmd ctl --json check
expect_eq "check --json (good): exit" "$rc" 0
printf '%s\n' "$out" | expect_json "check --json (good)" status problems warnings jobs \
    tracking
expect_eq "check --json (good): status" "$(printf '%s\n' "$out" | jpy 'o["status"]')" OK
echo "notes" >"$jobs/notes.txt"
run_cmd ctl check
expect_eq "check (ignored file): exit" "$rc" 0
expect_eq "check (ignored file): output" "$(printf '%s\n' "$out" | sed '$d')" \
    "WARNING: 0 problems, 1 warning (5 jobs valid)
warning: $jobs/notes.txt: ignored: only *.job files hold jobs"
run_cmd ctl check --strict
expect_eq "check --strict (ignored file): exit" "$rc" 1
expect_match "check --strict (ignored file): output" "$out" "WARNING: *
warning: $jobs/notes.txt: ignored*"
rm "$jobs/notes.txt"

# --- every state -------------------------------------------------------------------
run_cmd ctl pause held
expect_eq "pause held: exit" "$rc" 0
# After ok's first run, so that history --since t_mid leaves it out.
wait_until $(($(sql "SELECT min(scheduled_at) FROM runs WHERE job = 'ok'") + 1))
t_mid=$(now)
# Fails with exit 3; sleeps through its every-second schedule (skipped by
# overlap, then blocked); runs once (3 s on: the reload must come first)
# and keeps running; invalid in its file.
write_job fail.job <<'EOF'
[fail]
schedule = */2 * * * * *
command = echo "about to fail" >&2; exit 3
EOF
write_job slow.job <<'EOF'
[slow]
schedule = * * * * * *
command = sleep 600
EOF
write_job busy.job <<EOF
[busy]
schedule = $(at_cron $((t_mid + 3)))
command = sleep 600
EOF
write_job broken.job <<'EOF'
[broken]
schedule = 61 * * * *
command = true
EOF
run_cmd ctl reload
expect_eq "reload with a broken file: exit" "$rc" 1
expect_match "reload with a broken file: stderr" "$err" "$jobs/broken.job:2: schedule: minute field: \"61\" is out of range 0-59
tickctl: reload: reload partially failed: 1 problems; *"
wait_for "a failed run of fail" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '"'fail'"' AND status = '"'failed'"'")" -ge 1 ]'
wait_for "busy running" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '"'busy'"' AND status = '"'running'"'")" -eq 1 ]'
wait_for "slow blocked (3 skips)" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '"'slow'"' AND status = '"'skipped'"' AND reason = '"'overlap'"'")" -ge 3 ]'
wait_for "envjob's run" 10 test -s "$dir/env.out"
wait_for "envjob's end" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '"'envjob'"'")" = succeeded ]'

# --- list --------------------------------------------------------------------------
run_cmd ctl list
expect_eq "list: exit" "$rc" 0
expect_match "list: header" "$(printf '%s\n' "$out" | head -n 1)" \
    "JOB*SCHEDULE*TIMEZONE*STATE*NEXT*NEXT (UTC)*LAST"
for pair in "ok * * * * * * *UTC *idle *20??-??-?? ??:??:?? UTC *20??-??-??T??:??:??Z *succeeded *" \
    "held * * * * * * *UTC *paused *- *- *succeeded * ago" \
    "off * * * * * * *UTC *disabled *- *- *-" \
    "envjob *UTC *idle *" \
    "nightly *30 2 * * * *America/New_York *idle *20??-??-?? 0?:?0:00 E?T* *20??-??-??T0?:?0:00Z *-" \
    "fail */2 * * * * * *UTC *idle *failed *" \
    "slow * * * * * * *UTC *blocked *" \
    "busy *UTC *running *" \
    "broken *- *- *error *- *- *invalid: $jobs/broken.job:1"; do
	job=${pair%% *}
	# ok, fail and envjob run for moments: running is right then too.
	expect_match "list: $job" "$(printf '%s\n' "$out" | grep "^$job " |
	    case $job in ok | fail | envjob) sed 's/ running / idle /' ;; *) cat ;; esac)" "$pair"
done
# ok's next instant is checked against the moment of the list, not of
# the check: the python runs between them take seconds under load.
t_list=$(now)
run_cmd ctl --json list
t_listed=$(now)
expect_eq "list --json: exit" "$rc" 0
printf '%s\n' "$out" | expect_json "list --json" job schedule timezone state \
    next_at last_status last_at
expect_eq "list --json: states" "$(printf '%s\n' "$out" | jpy '" ".join(
    x["job"] + "=" + (x["state"] if x["job"] not in ("ok", "fail", "envjob") or
    x["state"] != "running" else "idle") for x in L)')" \
    "busy=running envjob=idle fail=idle held=paused nightly=idle off=disabled ok=idle slow=blocked broken=error"
expect_eq "list --json: ok's fields" "$(printf '%s\n' "$out" | jpy '[x for x in L
    if x["job"] == "ok"][0]' | jpy '[o["schedule"], o["timezone"],
    o["last_status"], o["description"]]')" "* * * * * *
UTC
succeeded
says hello every second"
expect_eq "list --json: ok's next instant is the next second" "$(printf '%s\n' "$out" |
    jpy '[x["next_at"] for x in L if x["job"] == "ok"][0]' | {
	read -r t
	t=$(date -u -d "$t" +%s)
	[ "$t" -ge $((t_list - 1)) ] && [ "$t" -le $((t_listed + 2)) ] && echo yes; })" yes
expect_eq "list --json: nightly's next instant" "$(printf '%s\n' "$out" |
    jpy '[x["next_at"] for x in L if x["job"] == "nightly"][0]')" \
    "$(ctl --json next nightly -n 1 | jpy 'o["at"]')"
# The global options after the command too (issue 19), until a "--".
list_out=$out
expect_eq "next JOB --json as --json next JOB" \
    "$(ctl next nightly -n 2 --json)" "$(ctl --json next nightly -n 2)"
expect_eq "list --json: the same jobs as --json list" \
    "$(ctl list --json | jpy '[x["job"] for x in L]')" \
    "$(ctl --json list | jpy '[x["job"] for x in L]')"
run_cmd "$TICKCTL" list -c "$dir/tickd.conf" --json
expect_eq "list -c FILE --json: exit" "$rc" 0
expect_eq "list -c FILE --json: JSON" "$(printf '%s\n' "$out" | head -n 1 |
    jpy 'o["job"]')" busy
run_cmd ctl list -- --json
expect_eq "list -- --json: an argument, not an option: exit" "$rc" 2
out=$list_out
expect_eq "list --json: paused, disabled and invalid have no next instant" \
    "$(printf '%s\n' "$out" | jpy '[x["job"] for x in L if x["next_at"] is None]' |
    tr '\n' ' ')" "held off broken "
expect_eq "list --json: last_at of ok" "$(printf '%s\n' "$out" |
    jpy '[x["last_at"] for x in L if x["job"] == "ok"][0]' |
    grep -c '^20..-..-..T..:..:..Z$')" 1

# --- status ------------------------------------------------------------------------
run_cmd ctl status
expect_eq "status: exit" "$rc" 0
expect_match "status: daemon" "$out" "daemon   running, pid $tickd_pid, since 20*Z (*s ago)
config   $dir/tickd.conf
state    $db (schema *)
jobs     8 loaded, 1 in error; 1 problem in 1 file (tickctl check lists them)
running  *
tracked  by *"
run_cmd ctl --json status
expect_eq "status --json: exit" "$rc" 0
printf '%s\n' "$out" | expect_json "status --json" pid since config state_file \
    jobs jobs_in_error running tracking
expect_eq "status --json: fields" "$(printf '%s\n' "$out" | jpy '[o["pid"],
    o["config"], o["state_file"], o["jobs"], o["jobs_in_error"]]')" "$tickd_pid
$dir/tickd.conf
$db
8
1"
expect_eq "status --json: running (slow and busy, perhaps ok or fail)" \
    "$(printf '%s\n' "$out" | jpy 'o["running"] >= 2 and o["running"] <= 4')" true
since=$(date -u -d "$(printf '%s\n' "$out" | jpy 'o["since"]')" +%s)
expect_eq "status --json: since is the daemon's start" \
    "$([ "$since" -ge $((t0 - 1)) ] && [ "$since" -le $((t0 + 10)) ] && echo yes)" yes
run_cmd ctl status busy
expect_eq "status busy: exit" "$rc" 0
expect_match "status busy: summary" "$out" "job *busy
defined at *$jobs/busy.job:1
state *running
schedule *in UTC (dst_gap *, dst_fold *)
*
definition:
*  command *sleep 600
*
policies:
*  overlap *skip
*
in flight:
  RUN ID *STATUS *ATTEMPT *PID *STARTED *ELAPSED
  busy@* *running *1 *[0-9]* *
last 1 history entr* (tickctl history busy shows more):
  RUN ID *
  busy@* *schedule *running *"
run_cmd ctl status ok
expect_match "status ok: next instants" "$out" "*
next instants:
  20??-??-?? ??:??:?? UTC  20??-??-??T??:??:??Z*
  20??-??-?? ??:??:?? UTC  20??-??-??T??:??:??Z*
  20??-??-?? ??:??:?? UTC  20??-??-??T??:??:??Z*
  20??-??-?? ??:??:?? UTC  20??-??-??T??:??:??Z*
  20??-??-?? ??:??:?? UTC  20??-??-??T??:??:??Z*"
run_cmd ctl --json status fail
expect_eq "status --json fail: exit" "$rc" 0
printf '%s\n' "$out" | expect_json "status --json fail" job schedule timezone \
    state next_at last_status last_at next runs
expect_eq "status --json fail: next and runs" "$(printf '%s\n' "$out" | jpy '[
    len(o["next"]), o["runs"][0]["job"], o["last_error"]["status"],
    o["last_error"]["exit_status"], o["definition"]["command"],
    o["policies"]["overlap"]]')" '5
fail
failed
3
echo "about to fail" >&2; exit 3
skip'
printf '%s\n' "$out" | jpy 'o["runs"]' | expect_json "status --json fail: runs" \
    run_id job scheduled_at trigger status reason attempts started_at \
    finished_at lateness_ms duration_ms exit_status signal
# slow: its one instance in flight, and the overlap skips since it began
# (the daemon adds one a second: the count is between two readings).
skipsql="SELECT count(*) FROM runs WHERE job = 'slow' AND status = 'skipped'
    AND reason = 'overlap'"
slowid=$(sql "SELECT run_id FROM runs WHERE job = 'slow' AND status = 'running'")
skip_since=$(rfc3339 "$(sql "SELECT min(scheduled_at) FROM runs
    WHERE job = 'slow' AND status = 'skipped'")")
run_cmd ctl status slow
expect_eq "status slow: exit" "$rc" 0
expect_match "status slow: consecutive skips" "$(printf '%s\n' "$out" |
    grep '^consecutive skips')" "consecutive skips *[0-9]* (since $skip_since)"
expect_match "status slow: in flight" "$(printf '%s\n' "$out" |
    grep -A 2 '^in flight:')" "in flight:
  RUN ID *
  $slowid *running *1 *[0-9]* *"
before=$(sql "$skipsql")
run_cmd ctl --json status slow
after=$(sql "$skipsql")
expect_eq "status --json slow: exit" "$rc" 0
expect_eq "status --json slow: consecutive_skips and current" "$(printf '%s\n' "$out" |
    jpy "[$before <= o['consecutive_skips'] <= $after, o['consecutive_skips'] >= 3,
    [(x['run_id'], x['status'], x['attempts']) for x in o['current']]]")" \
    "true
true
[[\"$slowid\", \"running\", 1]]"
printf '%s\n' "$out" | jpy 'o["current"]' | expect_json "status --json slow: current" \
    run_id job scheduled_at trigger status attempts started_at

# --- next JOB, as next --cron --------------------------------------------------------
from=2027-03-13T12:00:00-05:00
run_cmd ctl next nightly -n 3 --from $from
expect_eq "next nightly: exit" "$rc" 0
expect_eq "next nightly" "$out" "2027-03-14T03:00:00-04:00
2027-03-15T02:30:00-04:00
2027-03-16T02:30:00-04:00"
expect_eq "next nightly = next --cron" "$out" "$("$TICKCTL" next --cron \
    '30 2 * * *' --tz America/New_York --from $from -n 3)"
expect_eq "next nightly (now) = next --cron (now)" "$(ctl next nightly -n 3)" \
    "$("$TICKCTL" next --cron '30 2 * * *' --tz America/New_York -n 3)"
run_cmd ctl --json next nightly -n 3 --from $from
printf '%s\n' "$out" | expect_json "next --json" job at
expect_eq "next --json" "$(printf '%s\n' "$out" | jpy '[x["job"] + " " + x["at"]
    for x in L]')" "nightly 2027-03-14T07:00:00Z
nightly 2027-03-15T06:30:00Z
nightly 2027-03-16T06:30:00Z"
expect_eq "next ok -n 2: one second apart" "$(ctl next ok -n 2 | {
	read -r a
	read -r b
	echo $(($(date -d "$b" +%s) - $(date -d "$a" +%s)))
    })" 1

# --- history -------------------------------------------------------------------------
hfields="run_id job scheduled_at trigger status reason attempts started_at
finished_at lateness_ms duration_ms exit_status signal"
run_cmd ctl history
expect_eq "history: exit" "$rc" 0
expect_match "history: header" "$(printf '%s\n' "$out" | head -n 1)" \
    "RUN ID*TRIGGER*STATUS*ATT*SCHEDULED*STARTED*FINISHED*LATENESS*DURATION*EXIT*NOTE"
expect_match "history: a failed run" "$(printf '%s\n' "$out" | grep -m 1 '^fail@.* failed (exit) ')" \
    "fail@20*Z *schedule *failed (exit) *1 *20* UTC *??:??:?? *??:??:?? *+*ms *ms *exit 3*"
expect_match "history: a skipped run" "$(printf '%s\n' "$out" | grep -m 1 ' skipped ')" \
    "slow@20*Z *schedule *skipped (overlap) *0 *20* UTC *- *??:??:?? *- *- *- *slow@20*Z is still running"
nruns=$(sql "SELECT count(*) FROM runs")
run_cmd ctl --json history --limit 0
expect_eq "history --json: exit" "$rc" 0
# shellcheck disable=SC2086
printf '%s\n' "$out" | expect_json "history --json" $hfields
expect_eq "history --json: newest first" "$(printf '%s\n' "$out" | jpy '[x["scheduled_at"]
    or x["last_at"] for x in L] == sorted([x["scheduled_at"] or x["last_at"]
    for x in L], reverse=True)')" true
expect_eq "history --json --limit 0: every run row" "$(printf '%s\n' "$out" |
    jpy "len([x for x in L if x['kind'] == 'run']) >= $nruns")" true
run_cmd ctl --json history --limit 3
expect_eq "history --limit 3" "$(printf '%s\n' "$out" | wc -l)" 3
run_cmd ctl history --limit 3
expect_eq "history --limit 3 (text)" "$(printf '%s\n' "$out" | wc -l)" 4
run_cmd ctl --json history --since 2m --limit 0
expect_eq "history --since 2m: exit" "$rc" 0
expect_eq "history --since 2m: every entry" "$(printf '%s\n' "$out" | jpy "len(L) > 10 and
    all(x['scheduled_at'] is not None for x in L if x['kind'] == 'run')")" true
run_cmd ctl --json history --since "$(rfc3339 "$t_mid")" --limit 0
expect_eq "history --since RFC 3339: exit" "$rc" 0
expect_eq "history --since RFC 3339: nothing older" "$(printf '%s\n' "$out" | jpy "
    [x['run_id'] for x in L if (x['scheduled_at'] or x['last_at']) <
    '$(rfc3339 "$t_mid")']")" ""
expect_eq "history --since RFC 3339: fail's runs (all after it)" "$(printf '%s\n' "$out" |
    jpy "len([x for x in L if x['job'] == 'fail']) > 0")" true
first=$(sql "SELECT min(run_id) FROM runs WHERE job = 'ok'")
expect_eq "history --since RFC 3339: ok's first run (before it) left out" \
    "$(printf '%s\n' "$out" | jpy "len([x for x in L if x['run_id'] == '$first'])")" 0
run_cmd ctl --json history --status failed,skipped --limit 0
expect_eq "history --status: exit" "$rc" 0
expect_eq "history --status failed,skipped" "$(printf '%s\n' "$out" |
    jpy 'sorted(set(x["status"] for x in L))' | tr '\n' ' ')" "failed skipped "
run_cmd ctl --json history fail --status failed --limit 1
fid=$(printf '%s\n' "$out" | jpy 'o["run_id"]')
expect_eq "history fail --status failed: exit, attempts" "$rc $(printf '%s\n' "$out" |
    jpy '[o["job"], o["trigger"], o["reason"], o["attempts"], o["exit_status"],
    o["signal"], o["duration_ms"] >= 0, o["lateness_ms"] >= 0]' | tr '\n' ' ')" \
    "0 fail schedule exit 1 3 null true true "

# --- show ----------------------------------------------------------------------------
oid=$(ctl --json history ok --status succeeded --limit 1 | jpy 'o["run_id"]')
run_cmd ctl show "$oid"
expect_eq "show: exit" "$rc" 0
expect_match "show: the instance" "$out" "run id     $oid
row id     [0-9]*
job        ok
origin     schedule
trigger    schedule
status     succeeded
scheduled  20* UTC  ${oid#ok@}
started    20* UTC
finished   20* UTC
lateness   +*ms (scheduling delay: first start minus when it was due)
duration   *ms (execution time of the latest attempt)
ended      exit 0
attempts   1

ATTEMPT  TRIGGER   PID *STARTED *FINISHED *LATENESS *DURATION *EXIT *OUTCOME *CPU *MEMORY *ERROR
1        schedule  [0-9]* *20* UTC *20* UTC *+*ms *ms *exit 0 *succeeded *ms *[0-9.]*[KM] *-
attempt 1: *; usage of * (*)

output of attempt 1 (its tail, as kept):
  | tickd-read-test says hello from $oid
full output:  journalctl -u tickd TICKD_RUN_ID=$oid"
rowid=$(sql "SELECT id FROM runs WHERE run_id = '$oid'")
expect_eq "show ROW_ID = show RUN_ID" "$(ctl show "$rowid")" "$out"
for id in ok@2000-01-01T00:00:00Z 999999; do
	for json in "" --json; do
		# shellcheck disable=SC2086
		run_cmd ctl $json show "$id"
		expect_eq "show$json $id (unknown): exit, nothing on stdout" \
		    "$rc [$out]" "1 []"
		expect_eq "show$json $id (unknown): the one line" "$err" \
		    "tickctl: show: no run \"$id\" in $db (tickctl history lists them)"
	done
done
run_cmd ctl --json show "$fid"
expect_eq "show --json: exit" "$rc" 0
# shellcheck disable=SC2086
printf '%s\n' "$out" | expect_json "show --json" $hfields attempt_list journal
expect_eq "show --json: attempts" "$(printf '%s\n' "$out" | jpy '[o["status"],
    len(o["attempt_list"]), sorted(o["attempt_list"][0].keys()),
    o["attempt_list"][0]["exit_status"], o["attempt_list"][0]["output_tail"],
    o["journal"]]')" "failed
1
[\"attempt\", \"cgroup\", \"cpu_system_us\", \"cpu_user_us\", \"duration_ms\", \"error\", \"exit_status\", \"finished_at\", \"invocation_id\", \"lateness_ms\", \"memory_peak_bytes\", \"outcome\", \"output_tail\", \"pid\", \"signal\", \"started_at\", \"trigger\", \"usage_source\"]
3
about to fail

journalctl -u tickd TICKD_RUN_ID=$fid"

# --- stats ---------------------------------------------------------------------------
run_cmd ctl stats
expect_eq "stats: exit" "$rc" 0
expect_match "stats: header" "$(printf '%s\n' "$out" | head -n 1)" \
    "JOB *RUNS *SUCCEEDED *FAILED *SKIPPED *LATE p50 *LATE p95 *LATE p99 *LATE max *DUR p50 *DUR p95 *DUR max *CPU p50 *CPU p95 *CPU max *MEM p50 *MEM p95 *MEM max"
expect_match "stats: ok" "$(printf '%s\n' "$out" | grep '^ok ')" \
    "ok *[0-9]* *[0-9]* *0 *0 *[0-9]*ms *[0-9]*ms *[0-9]*ms *[0-9]*ms *[0-9]*ms *[0-9]*ms *[0-9]*ms *[0-9.]*ms *[0-9.]*ms *[0-9.]*ms *[0-9.]*[KM] *[0-9.]*[KM] *[0-9.]*[KM]"
expect_match "stats: off (no runs)" "$(printf '%s\n' "$out" | grep '^off ')" \
    "off *0 *0 *0 *0 *- *- *- *- *- *- *- *- *- *- *- *- *-"
run_cmd ctl --json stats
# shellcheck disable=SC2086
printf '%s\n' "$out" | expect_json "stats --json" job runs succeeded failed \
    skipped lateness_p50_ms lateness_p95_ms lateness_p99_ms lateness_max_ms \
    duration_p50_ms duration_p95_ms duration_max_ms cpu_p50_us cpu_p95_us \
    cpu_max_us memory_peak_p50_bytes memory_peak_p95_bytes \
    memory_peak_max_bytes
expect_eq "stats --json: figures" "$(printf '%s\n' "$out" | jpy '
    [(x["job"], x["runs"] >= 2 and x["runs"] - x["succeeded"] <= 1 and
    x["failed"] == 0 and None not in (x["lateness_p50_ms"], x["lateness_p95_ms"],
    x["lateness_p99_ms"], x["lateness_max_ms"], x["duration_p50_ms"],
    x["duration_p95_ms"], x["duration_max_ms"]) and x["lateness_p50_ms"] <=
    x["lateness_p99_ms"] <= x["lateness_max_ms"]) for x in L if x["job"] == "ok"] +
    [(x["job"], x["failed"] >= 1 and x["succeeded"] == 0) for x in L
    if x["job"] == "fail"] + [(x["job"], x["skipped"] >= 3) for x in L
    if x["job"] == "slow"]' | tr -d '\n')" '["ok", true]["fail", true]["slow", true]'
expect_eq "stats --json JOB --since" "$(ctl --json stats fail --since 5m | jpy '[len(L), o["job"]]' |
    tr '\n' ' ')" "1 fail "

# --- metrics -------------------------------------------------------------------------
run_cmd ctl metrics
expect_eq "metrics: exit" "$rc" 0
printf '%s\n' "$out" >"$dir/metrics.txt"
expect_eq "metrics: the text exposition format" "$("$python" - "$dir/metrics.txt" <<'EOF'
import re, sys
label = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{' + label + r'(?:,' + label +
    r')*\})? (-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|[+-]Inf)$')
helps, types, seen, bad = {}, {}, set(), []
for n, line in enumerate(open(sys.argv[1]), 1):
    line = line.rstrip('\n')
    m = re.match(r'^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$', line)
    if m:
        d = helps if m.group(1) == 'HELP' else types
        if m.group(2) in d:
            bad.append('%d: second %s for %s' % (n, m.group(1), m.group(2)))
        if m.group(2) in seen:
            bad.append('%d: %s after samples of %s' % (n, m.group(1), m.group(2)))
        d[m.group(2)] = m.group(3)
        if m.group(1) == 'TYPE' and m.group(3) not in ('counter', 'gauge',
                'summary', 'histogram', 'untyped'):
            bad.append('%d: type %s' % (n, m.group(3)))
        continue
    m = sample.match(line)
    if not m:
        bad.append('%d: not a sample: %r' % (n, line))
        continue
    name = m.group(1)
    fam = name
    for suffix in ('_sum', '_count'):
        if name.endswith(suffix) and types.get(name[:-len(suffix)]) == 'summary':
            fam = name[:-len(suffix)]
    if fam not in helps or fam not in types:
        bad.append('%d: %s has no HELP or TYPE before it' % (n, name))
    seen.add(fam)
print('\n'.join(bad) if bad else 'ok')
EOF
)" ok
for line in 'tickd_up 1' 'tickd_state_readable 1' \
    'tickd_job_state{job="held",state="paused"} 1' \
    'tickd_job_state{job="off",state="disabled"} 1' \
    'tickd_job_state{job="slow",state="blocked"} 1' \
    'tickd_job_state{job="busy",state="running"} 1' \
    'tickd_job_state{job="broken",state="error"} 1' \
    'tickd_job_state{job="broken",state="idle"} 0' \
    'tickd_jobs{state="error"} 1'; do
	expect_eq "metrics: $line" "$(grep -cxF "$line" "$dir/metrics.txt")" 1
done
for re in '^tickd_runs_total{job="fail",status="failed"} [1-9][0-9]*$' \
    '^tickd_skipped_total{job="slow",reason="overlap"} [1-9][0-9]*$' \
    '^tickd_lateness_seconds{job="ok",quantile="0.99"} [0-9]*\.[0-9]\{3\}$' \
    '^tickd_lateness_seconds_count{job="ok"} [1-9][0-9]*$' \
    '^tickd_duration_seconds{job="ok",quantile="0.5"} [0-9]*\.[0-9]\{3\}$' \
    '^tickd_next_run_timestamp_seconds{job="ok"} [0-9]*$' \
    '^tickd_last_success_timestamp_seconds{job="ok"} [0-9.]*$'; do
	expect_eq "metrics: $re" "$(grep -c "$re" "$dir/metrics.txt")" 1
done

# --- env -----------------------------------------------------------------------------
expect_match "env: the comment lines" "$(head -n 2 "$dir/env.ctl")" \
    "# job envjob, instance envjob@$(rfc3339 "$t_env") (attempt 1, trigger schedule)
# runs /bin/sh -c COMMAND as * in *, with exactly this environment:"
# The shell adds PWD; the order is the shell's; the invocation id is new
# for each attempt (tickctl env says so in its place).
expect_eq "env: what the job got" "$(grep -v '^PWD=\|^TICKD_INVOCATION_ID=' \
    "$dir/env.out" | sort)" "$(grep -v '^#\|^TICKD_INVOCATION_ID=' \
    "$dir/env.ctl" | sort)"
expect_eq "env: an invocation id" "$(grep -c \
    '^TICKD_INVOCATION_ID=[0-9a-f]\{32\}$' "$dir/env.out")" 1
expect_eq "env: tickd env's invocation id" "$(grep '^TICKD_INVOCATION_ID=' \
    "$dir/env.ctl")" "TICKD_INVOCATION_ID=random-128-bit-id-per-attempt"
expect_json "env --json" job run_id scheduled_at attempt trigger user workdir \
    environment <"$dir/env.json"
expect_eq "env --json = env" "$(jpy 'o["environment"]' <"$dir/env.json")" \
    "$(grep -v '^#' "$dir/env.ctl")"
expect_eq "env: GREETING" "$(grep -c '^GREETING=hello  world$' "$dir/env.out")" 1

# --- check with problems ---------------------------------------------------------------
run_cmd ctl check
expect_eq "check (problems): exit" "$rc" 1
expect_match "check (problems)" "$out" "CRITICAL: 3 problems (1 in the configuration, in 1 file; 1 job in error), 0 warnings (8 jobs valid)
$jobs/broken.job:2: schedule: minute field: \"61\" is out of range 0-59
job fail: fail@*Z failed (exit) *; * failed or dead since the last success (tickctl show fail@*Z)
job slow: blocked: * instances in a row skipped for overlap since *Z
jobs are tracked by *"
run_cmd ctl --json check
expect_eq "check --json (problems): exit" "$rc" 1
printf '%s\n' "$out" | sed 1d | expect_json "check --json findings" severity kind job message
expect_eq "check --json (problems): kinds" "$(printf '%s\n' "$out" | sed 1d |
    jpy '[x["kind"] + " " + str(x["job"]) for x in L]')" "config None
failed fail
blocked slow"

# --- completion (the daemon still runs) ------------------------------------------------------
comp() {
	PATH=$(dirname "$TICKCTL"):$PATH TICKD_CONFIG=$dir/tickd.conf bash -c '
	    . contrib/tickctl.bash
	    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tickctl
	    printf "%s\n" "${COMPREPLY[@]}"' comp "$@" | sort | tr '\n' ' '
}
expect_eq "completion: ru" "$(comp tickctl ru)" "run "
expect_eq "completion: r" "$(comp tickctl r)" "reload replay resume run "
expect_eq "completion: run JOB" "$(comp tickctl run "")" \
    "broken busy envjob fail held nightly off ok slow "
expect_eq "completion: run JOB (-c)" "$(TICKD_CONFIG=/nonexistent comp tickctl -c "$dir/tickd.conf" pause h)" \
    "held "
expect_match "completion: show RUN_ID" "$(comp tickctl show fail@)" "fail@20*Z *"
expect_eq "completion: show RUN_ID (-c)" "$(TICKD_CONFIG=/nonexistent comp tickctl -c "$dir/tickd.conf" show "$oid")" "$oid "

# In an interactive bash, "@" and ":" end words (COMP_WORDBREAKS): a run id
# typed up to its seconds must still complete to the whole id.
cat >"$dir/drive.py" <<'EOF'
import os, pty, select, signal, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp('bash', ['bash', '--norc', '--noprofile', '-i'])
def read(until=None, quiet=None, limit=5.0):
    out, end, last = b'', time.time() + limit, time.time()
    while time.time() < end:
        if until is not None and until in out:
            break
        if quiet is not None and out and time.time() - last > quiet:
            break
        if select.select([fd], [], [], 0.02)[0]:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
            last = time.time()
    return out
os.write(fd, b"PS1='$ '; . contrib/tickctl.bash; echo RE''ADY\n")
read(until=b'READY\r\n')
read(quiet=0.2, limit=1.0)
os.write(fd, sys.argv[1].encode() + b'\t')
# Until the completion (argv[2]) shows, or 10 s: tickctl answers bash
# slowly on a loaded machine, or under the sanitizers.
out = read(until=sys.argv[2].encode(), limit=10.0)
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
sys.stdout.write(out.decode('utf-8', 'replace').replace('\x07', ''))
EOF
expect_eq "completion in bash: a job name" "$(PATH=$(dirname "$TICKCTL"):$PATH \
    TICKD_CONFIG=$dir/tickd.conf "$python" "$dir/drive.py" "tickctl run bu" "tickctl run busy " |
    tr -d '\r' | tail -n 1)" "tickctl run busy "
bid=$(sql "SELECT run_id FROM runs WHERE job = 'busy'")
expect_eq "completion in bash: a run id after its \"@\" and \":\"" \
    "$(PATH=$(dirname "$TICKCTL"):$PATH TICKD_CONFIG=$dir/tickd.conf \
    "$python" "$dir/drive.py" "tickctl show ${bid%?}" "$bid " | tr -d '\r' |
    tail -n 1)" "tickctl show $bid "

# --- the daemon down ---------------------------------------------------------------------
daemon_stop_ok
run_cmd ctl check
expect_eq "check (daemon down): exit" "$rc" 1
expect_match "check (daemon down)" "$out" "CRITICAL: 4 problems (1 in the configuration, *), *
the daemon is not running (no lock on $db)
*"
run_cmd ctl status
expect_eq "status (daemon down): exit" "$rc" 1
expect_match "status (daemon down)" "$out" "daemon   not running (no lock on $db)*"
run_cmd ctl list
expect_eq "list (daemon down): exit" "$rc" 0
expect_eq "metrics (daemon down): tickd_up 0" "$(ctl metrics | grep -c '^tickd_up 0$')" 1
for c in list status "status ok" "next ok" history "show $oid" stats env\ ok check; do
	# shellcheck disable=SC2086
	ctl --json $c | expect_json "--json $c (daemon down)"
done

# --- the DST flag in list (tickctl alone, its clock moved) -----------------------------
# nightly (02:30 in New York) seen from the day before the spring gap: its
# next instant is shifted to 03:00 and flagged; fold (01:30) seen from the
# day before the autumn fold: flagged, and nightly then is not.
ft=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
write_job fold.job <<'EOF2'
[fold]
schedule = 30 1 * * *
timezone = America/New_York
command = true
EOF2
# list_at EPOCH ARGS...: tickctl ARGS with its wall clock at EPOCH.
list_at() {
	_la=$1
	shift
	env LD_PRELOAD="$ft" FAKETIME="+$((_la - $(now)))" \
	    FAKETIME_DONT_FAKE_MONOTONIC=1 \
	    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    "$TICKCTL" -c "$dir/tickd.conf" "$@"
}
if [ ! -r "$ft" ]; then
	echo "libfaketime ($ft) is not installed: the DST flag is not checked"
else
	spring=$(date -u -d 2030-03-09T17:00:00Z +%s)	# noon, EST
	autumn=$(date -u -d 2030-11-02T16:00:00Z +%s)	# noon, EDT
	run_cmd list_at "$spring" list
	expect_eq "list (DST gap): exit" "$rc" 0
	expect_match "list (DST gap): nightly" "$(printf '%s\n' "$out" | grep '^nightly ')" \
	    "nightly *30 2 * * * *America/New_York *idle *2030-03-10 03:00:00 EDT DST *2030-03-10T07:00:00Z *"
	expect_match "list (DST gap): fold" "$(printf '%s\n' "$out" | grep '^fold ')" \
	    "fold *America/New_York *idle *2030-03-10 01:30:00 EST *2030-03-10T06:30:00Z *"
	expect_eq "list --json (DST gap)" "$(list_at "$spring" --json list |
	    jpy '[x["job"] + " " + x["next_at"] + " " + str(x["next_dst"])
	    for x in L if x["job"] in ("nightly", "fold")]')" \
	    "fold 2030-03-10T06:30:00Z None
nightly 2030-03-10T07:00:00Z gap"
	run_cmd list_at "$autumn" list
	expect_eq "list (DST fold): exit" "$rc" 0
	expect_match "list (DST fold): fold" "$(printf '%s\n' "$out" | grep '^fold ')" \
	    "fold *America/New_York *idle *2030-11-03 01:30:00 E?T DST *2030-11-03T0?:30:00Z *"
	expect_match "list (DST fold): nightly" "$(printf '%s\n' "$out" | grep '^nightly ')" \
	    "nightly *America/New_York *idle *2030-11-03 02:30:00 EST *2030-11-03T07:30:00Z *"
	expect_eq "list --json (DST fold)" "$(list_at "$autumn" --json list |
	    jpy '[x["job"] + " " + str(x["next_dst"])
	    for x in L if x["job"] in ("nightly", "fold")]')" \
	    "fold fold
nightly None"
fi

# --- queued, overdue, a dead instance replayed (the daemon again) -----------------------
# One slot (max_running = 1) and new jobs that run only when asked: dj
# fails until dj.ok exists (one retry, then dead), hog holds the slot,
# waiter waits for it, od never succeeds within its 1 s.
rm -f "$jobs"/*.job
write_conf "max_running = 1"
rec='echo "$TICKD_RUN_ID $TICKD_ATTEMPT $TICKD_TRIGGER" >> @DIR@/$TICKD_JOB.out'
sleeper hog
write_job more.job <<EOF2
[dj]
schedule = 0 0 1 1 *
retries = 1
retry_delay = 1s
command = $rec; [ -e @DIR@/dj.ok ]

[hog]
schedule = 0 0 1 1 *
command = @DIR@/hog 60

[waiter]
schedule = 0 0 1 1 *
command = $rec

[od]
schedule = 0 0 1 1 *
expect_success_within = 1s
command = true
EOF2
daemon_start
run_cmd ctl run dj
expect_eq "run dj: exit" "$rc" 0
djid=$out
wait_for "dj dead" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE run_id = '"'$djid'"'")" = dead ]'
: >"$dir/dj.ok"
run_cmd ctl replay "$djid"
expect_eq "replay (dead): exit, the run id" "$rc $out" "0 $djid"
wait_for "dj's replay to end" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE run_id = '"'$djid'"'")" = succeeded ]'
expect_eq "replay (dead): the same instance, the next attempt" "$(cat "$dir/dj.out")" \
    "$djid 1 manual
$djid 2 retry
$djid 3 replay"
expect_eq "replay (dead): one instance, 3 attempts" "$(sql "SELECT count(*),
    max(attempts) FROM runs WHERE job = 'dj'")" "1|3"

run_cmd ctl run hog
expect_eq "run hog: exit" "$rc" 0
wait_for "hog running" 10 eval '[ -n "$(procs hog)" ]'
run_cmd ctl run waiter
expect_eq "run waiter: exit" "$rc" 0
wid=$out
wait_for "waiter queued" 10 eval '[ "$(sql "SELECT status || reason FROM runs
    WHERE run_id = '"'$wid'"'")" = queuedmax_running ]'
run_cmd ctl list
expect_match "list: waiter queued" "$(printf '%s\n' "$out" | grep '^waiter ')" \
    "waiter *0 0 1 1 * *UTC *queued *"
expect_match "list: hog running" "$(printf '%s\n' "$out" | grep '^hog ')" \
    "hog *UTC *running *"
expect_eq "list --json: states" "$(ctl --json list | jpy '" ".join(x["job"] + "=" +
    x["state"] for x in L)')" "dj=idle hog=running od=idle waiter=queued"
expect_eq "status --json waiter: current" "$(ctl --json status waiter |
    jpy '[(x["run_id"], x["status"], x["reason"], x["attempts"]) for x in
    o["current"]] + [o["state"]]')" "[\"$wid\", \"queued\", \"max_running\", 0]
queued"
expect_eq "waiter has not run" "$(lines "$dir/waiter.out")" 0

wait_for "od overdue" 10 eval 'ctl check | grep -q "^job od: overdue"'
run_cmd ctl check
expect_eq "check (overdue): exit" "$rc" 1
expect_match "check (overdue)" "$out" "CRITICAL: 1 problem, 0 warnings (4 jobs valid)
job od: overdue: no instance succeeded within 1s (expect_success_within); none since *s ago
jobs are tracked by *"
expect_eq "check --json (overdue)" "$(ctl --json check | sed 1d |
    jpy '[o["severity"], o["kind"], o["job"]]')" "critical
overdue
od"
daemon_stop_ok
done_ok

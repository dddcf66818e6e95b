#!/bin/sh
# misfire: instances found more than misfire_grace (here 2s) late, under
# libfaketime (the daemon's wall clock follows an offset in a file; the
# monotonic clock stays real).  A downtime of about 25 s (a clean stop,
# then a start 25 s later on the daemon's clock): run_once runs the newest
# due instance and records every other one in one decision (skipped,
# coalesced); catch_up runs the newest catch_up_limit misfires (5, and 3)
# one after another, oldest first, trigger catch_up (queued, reason
# catch_up, while they wait), the older ones one decision (catch_up_limit);
# skip runs none of them, one decision (misfire), and of the on-time ones
# (within the grace) the newest runs, the older ones coalesce into it.
# No instance is in two decisions, every range is logged.  Then a forward
# step of 1 h while the daemon runs: the same decisions (catch_up_limit 3:
# 3 catch-up runs, about 3597 skipped).  Then a step back of 3 s: nothing
# runs twice, no new decision.
. tests/integration/lib.sh
setup
faketime_env

for spec in "once run_once 100" "cu5 catch_up 5" "cu3 catch_up 3" "sk skip 100"; do
	set -- $spec
	write_job "$1.job" <<EOF2
[$1]
schedule = every 1s
misfire = $2
catch_up_limit = $3
misfire_grace = 2s
command = s=\$(date +%s%N); sleep 0.2; echo "\$TICKD_RUN_ID \$TICKD_TRIGGER \$s \$(date +%s%N)" >> @DIR@/$1.out
EOF2
done
jobs_all="once cu5 cu3 sk"

# faked: the daemon's clock now.
faked() { echo $(($(now) + $(tr -d + <"$dir/faketime.rc"))); }

# last_at JOB: the job's newest instance in the store.
last_at() { sql "SELECT max(scheduled_at) FROM runs WHERE job = '$1'"; }

# check_late JOB POLICY LIMIT P MIN WHAT: the instances of JOB after P (its
# newest before a downtime or a step), at least MIN of them late, were
# decided as POLICY (LIMIT: catch_up_limit) says.  Soft checks: each job
# and each event is checked whatever the others gave.
check_late() {
	_j=$1 _pol=$2 _lim=$3 _p=$4 _min=$5 _w=$6
	# The daemon may run an instance or two more before it sees a
	# step (libfaketime rereads its file lazily): start after the
	# newest instance that ran before the range.
	_p=$(sql "SELECT coalesce(max(scheduled_at), $_p) FROM runs WHERE
	    job = '$_j' AND scheduled_at BETWEEN $_p AND $_p + 5 AND
	    scheduled_at < (SELECT coalesce(min(first_at), $_p + 6) FROM
	    decisions WHERE job = '$_j' AND first_at > $_p)")
	_l=$(sql "SELECT last_at FROM decisions WHERE job = '$_j' AND
	    first_at = $((_p + 1))")
	checks=$((checks + 1))
	if [ -z "$_l" ]; then
		soft_fail "$_j ($_w): no decision from $(rfc3339 $((_p + 1)))"
		return
	fi
	soft_checks=1
	checks=$((checks + 1))
	[ $((_l - _p)) -ge "$_min" ] ||
	    check_fail "$_j ($_w): $((_l - _p)) instances decided, want at least $_min"
	case $_pol in
	run_once) _r=coalesced _n=1 _tr=schedule
		_text="found late: coalesced into one run, misfire = run_once" ;;
	catch_up) _r=catch_up_limit _n=$_lim _tr=catch_up
		_text="older than the catch_up_limit newest late ones" ;;
	skip) _r=misfire _n=1 _tr=schedule
		_text="found late, misfire = skip" ;;
	esac
	expect_eq "$_j ($_w): the decision" "$(sql "SELECT decision, reason, count
	    FROM decisions WHERE job = '$_j' AND first_at = $((_p + 1))")" \
	    "skipped|$_r|$((_l - _p))"
	# ... and no other range holds any of these instances.
	expect_eq "$_j ($_w): no instance in two decisions" "$(sql "SELECT
	    group_concat(reason || ' ' || first_at || '-' || last_at, ', ') FROM
	    decisions WHERE job = '$_j' AND last_at > $_p AND first_at <= $_l")" \
	    "$_r $((_p + 1))-$_l"
	checks=$((checks + 1))
	log_has "tickd: warning: job $_j: $((_l - _p)) instances from $(rfc3339 $((_p + 1))) to $(rfc3339 "$_l") skipped ($_text)" ||
	    check_fail "$_j ($_w): the decision is not logged"
	# A step can land while the run before the range still runs: the
	# first instance after the range is then skipped by overlap = skip,
	# naming that run, and the runs follow it.
	_ov=$(sql "SELECT scheduled_at FROM runs WHERE job = '$_j' AND
	    status = 'skipped' AND reason = 'overlap' AND scheduled_at = (SELECT
	    min(scheduled_at) FROM runs WHERE job = '$_j' AND scheduled_at > $_l)")
	if [ -n "$_ov" ]; then
		echo "$_j ($_w): $(rfc3339 "$_ov") skipped, the run before the range still ran"
		expect_eq "$_j ($_w): skipped for the run before the range" "$(sql "SELECT
		    r.detail = p.run_id || ' is still running' AND p.finished_at >=
		    r.created_at FROM runs r, runs p WHERE r.job = '$_j' AND
		    r.scheduled_at = $_ov AND p.job = '$_j' AND p.scheduled_at = $_p")" 1
	fi
	# The instances that ran: right after the range.
	expect_eq "$_j ($_w): the runs after the range" "$(sql "SELECT
	    group_concat(r.status || ' ' || r.trigger || ' ' || a.trigger || ' ' ||
	    r.attempts, ',') FROM (SELECT * FROM runs WHERE job = '$_j' AND
	    scheduled_at > ${_ov:-$_l} ORDER BY scheduled_at LIMIT $_n) r JOIN attempts a
	    ON a.run = r.id")" "$(for _i in $(seq "$_n"); do
	    printf 'succeeded %s %s 1,' $_tr $_tr; done | sed 's/,$//')"
	case $_pol in
	run_once)
		# The newest due instance ran (or was the one skipped for
		# overlap); nothing else did.
		if [ -n "$_ov" ]; then
			expect_eq "$_j ($_w): the newest due instance skipped" "$_ov" $((_l + 1))
		else
			expect_eq "$_j ($_w): the run is late" "$(sql "SELECT
			    a.lateness_ms >= 0 FROM attempts a JOIN runs r ON a.run = r.id
			    WHERE r.job = '$_j' AND r.scheduled_at = $((_l + 1))")" 1
		fi ;;
	skip)
		# The on-time instances (within the grace) due at once: the
		# newest runs, the older ones coalesce into it.
		_r1=$(sql "SELECT min(scheduled_at) FROM runs WHERE job = '$_j'
		    AND scheduled_at > ${_ov:-$_l}")
		# (On time: started within the grace, 2 s; 1 s was too
		# tight under a load of 15 on two cores.)
		expect_eq "$_j ($_w): the newest on-time instance ran" "$(sql "SELECT
		    r.status, a.lateness_ms < 2000 FROM attempts a JOIN runs r ON
		    a.run = r.id WHERE r.job = '$_j' AND r.scheduled_at = $_r1")" \
		    "succeeded|1"
		_top=${_ov:-$_r1}
		if [ "$_top" -gt $((_l + 1)) ]; then
			expect_eq "$_j ($_w): the on-time ones before it" "$(sql "SELECT
			    reason, first_at, last_at FROM decisions WHERE job = '$_j'
			    AND first_at > $_l AND first_at < $_top")" \
			    "coalesced|$((_l + 1))|$((_top - 1))"
		fi ;;
	catch_up)
		# Misfires all (more than 2 s late), oldest first, one at a time.
		expect_eq "$_j ($_w): catch-up runs were misfires" "$(sql "SELECT
		    min(a.lateness_ms) > 2000 FROM attempts a JOIN runs r ON
		    a.run = r.id WHERE r.job = '$_j' AND r.scheduled_at BETWEEN
		    $((_l + 1)) AND $((_l + _lim))")" 1
		sql "SELECT run_id FROM runs WHERE job = '$_j' AND scheduled_at
		    BETWEEN $((_l + 1)) AND $((_l + _lim))" >"$dir/ids"
		grep -F -f "$dir/ids" "$dir/$_j.out" >"$dir/cu.lines"
		expect_eq "$_j ($_w): catch-up runs in order" "$(sort -k3,3n \
		    "$dir/cu.lines" | cut -d ' ' -f 1,2 | tr '\n' ' ')" \
		    "$(sed 's/$/ catch_up/' "$dir/ids" | tr '\n' ' ')"
		expect_eq "$_j ($_w): one at a time" "$(max_overlap "$dir/cu.lines")" 1
		;;
	esac
	soft_checks=0
}

# --- before: 2 runs of each ----------------------------------------------------------
# shellcheck disable=SC2086
daemon_start $ftenv
wait_for "2 runs of each job" 10 eval '[ "$(sql "SELECT count(*) FROM (SELECT job
    FROM runs WHERE status = '\''succeeded'\'' GROUP BY job HAVING
    count(*) >= 2)")" -eq 4 ]'
daemon_stop_ok

# --- a downtime of 25 s on the daemon's clock -------------------------------------------
p1_once=$(last_at once) p1_cu5=$(last_at cu5) p1_cu3=$(last_at cu3) p1_sk=$(last_at sk)
echo "+25" >"$dir/faketime.rc"
# shellcheck disable=SC2086
daemon_start $ftenv
wait_for "the catch-up decisions" 10 eval '[ "$(sql "SELECT count(*) FROM
    decisions WHERE reason = '\''catch_up_limit'\''")" -eq 2 ]'
# While they wait, the catch-up instances are queued rows (one may run).
checks=$((checks + 1))
[ "$(sql "SELECT count(*) FROM runs WHERE job = 'cu5' AND status = 'queued' AND
    reason = 'catch_up' AND trigger = 'catch_up'")" -ge 3 ] ||
    fail "cu5: the catch-up instances are not queued: $(sql "SELECT run_id,
    status, reason, trigger FROM runs WHERE job = 'cu5' AND
    scheduled_at > $p1_cu5")"
wait_for "the catch-up runs" 15 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE trigger = '\''catch_up'\'' AND status = '\''succeeded'\''")" -eq 8 ]'
wait_for "an on-time run of each job" 10 eval '[ "$(sql "SELECT count(DISTINCT job)
    FROM runs WHERE status = '\''succeeded'\'' AND trigger = '\''schedule'\''
    AND scheduled_at > $(faked) - 1")" -eq 4 ]'
check_late once run_once 1 "$p1_once" 22 downtime
check_late cu5 catch_up 5 "$p1_cu5" 15 downtime
check_late cu3 catch_up 3 "$p1_cu3" 17 downtime
check_late sk skip 1 "$p1_sk" 20 downtime
soft_checks=1
for j in $jobs_all; do
	expect_accounted $j "after the downtime"
done
soft_checks=0

# --- a step forward by 1 h ------------------------------------------------------------------
p2_once=$(last_at once) p2_cu5=$(last_at cu5) p2_cu3=$(last_at cu3) p2_sk=$(last_at sk)
echo "+3625" >"$dir/faketime.rc"
wait_for "the forward step to be logged" 10 log_has "the wall clock was stepped forward by"
wait_for "the catch-up runs after the step" 15 eval '[ "$(sql "SELECT count(*)
    FROM runs WHERE trigger = '\''catch_up'\'' AND status = '\''succeeded'\''")" -eq 16 ]'
wait_for "an on-time run of each job" 10 eval '[ "$(sql "SELECT count(DISTINCT job)
    FROM runs WHERE status = '\''succeeded'\'' AND trigger = '\''schedule'\''
    AND scheduled_at > $(faked) - 1")" -eq 4 ]'
check_late once run_once 1 "$p2_once" 3595 step
check_late cu5 catch_up 5 "$p2_cu5" 3590 step
check_late cu3 catch_up 3 "$p2_cu3" 3592 step
check_late sk skip 1 "$p2_sk" 3595 step
soft_checks=1
for j in $jobs_all; do
	expect_accounted $j "after the step"
	expect_eq "$j: a handful of runs, not thousands" "$(sql "SELECT
	    count(*) < 60 FROM runs WHERE job = '$j'")" 1
done
soft_checks=0

# --- a step back by 3 s: nothing runs twice -----------------------------------------------
# One statement, one snapshot: read apart, the daemon could claim the next
# second's instances between the reads (newer than maxid, not after top).
snap=$(sql "SELECT max(id), max(scheduled_at), (SELECT max(id) FROM decisions) FROM runs")
maxid=${snap%%|*} maxdec=${snap##*|} top=${snap#*|} top=${top%|*}
echo "+3622" >"$dir/faketime.rc"
wait_for "the backward step to be logged" 10 log_has "the wall clock was stepped back by"
wait_for "a run of each job after the step back" 10 eval '[ "$(sql "SELECT
    count(DISTINCT job) FROM runs WHERE status = '\''succeeded'\'' AND
    scheduled_at > $top")" -eq 4 ]'
daemon_stop_ok
expect_eq "nothing new at or before the newest instance" "$(sql "SELECT count(*)
    FROM runs WHERE id > $maxid AND scheduled_at <= $top")" 0
expect_eq "no decision after the step back" "$(sql "SELECT count(*) FROM decisions
    WHERE id > $maxdec")" 0
soft_checks=1
for j in $jobs_all; do
	expect_eq "$j: no run id twice" "$(cut -d ' ' -f 1 "$dir/$j.out" | sort | uniq -d)" ""
	cut -d ' ' -f 1 "$dir/$j.out" >"$dir/$j.ids"
	expect_runs_match "$dir/$j.ids" "job = '$j'"
	expect_accounted $j "after the step back"
done
soft_checks=0
done_ok

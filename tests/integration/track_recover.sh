# track_recover.sh -- the body of t_track_recover.sh (mode=cgroup) and
# tests/long/t_track_recover_pgrp.sh (mode=pgrp): what a daemon started after a
# crash (kill -9) takes for a run's process, and what it does not.
#
# Start 1 runs, then is killed:
# - ad: a running job with a descendant that left its session: adopted
#   (same pid), and its timeout then stops that descendant too.
# - lv: its main process ends while no daemon runs, leaving a setsid
#   daemon behind: not adopted through that leftover (issue 16, item 1a):
#   interrupted, rerun (recover = rerun), the leftover left alone.
# - pl: its main process ends while no daemon runs, and another user
#   starts a session leader carrying its (predictable) TICKD_RUN_ID:
#   ignored (item 1b): interrupted, rerun.
# - bt: alive, but its record says another boot: never adopted (item 9:
#   after a power loss a new process can have the old pid and start time).
# Start 2 is killed while pf runs; start 3 runs where pidfd_open fails
# (seccomp: tests/tools/nopidfd.c): pf is still followed, by polling, and
# not rerun while it lives (item 5).
# Start 4 stops itself after claiming cw, before forking it
# (TICKD_TEST_STOP=claim), another user plants a session leader with
# cw's run id, start 4 is killed: start 5 reruns cw (item 1b, the crash
# window).
# With cgroups, start 6 runs in the top of its cgroup, with no cgroup key:
# it moves itself to the leaf supervisor and its jobs go beside it.
. tests/integration/lib.sh
setup_mode "$mode"
root=
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && root=1
chmod 755 "$dir"	# nobody runs the planted processes from it
nopidfd=$(dirname "$TICKD")/tools/nopidfd
[ -x "$nopidfd" ] || nopidfd=$PWD/build/tools/nopidfd
for s in zz-ad zz-ad-esc zz-lv-left zz-pl-planted zz-bt zz-pf \
    zz-cw-planted; do
	sleeper $s
done

write_job recover.job <<'EOF2'
[ad]
schedule = @yearly
timeout = 12s
kill_grace = 2s
command = setsid @DIR@/zz-ad-esc 300 & exec @DIR@/zz-ad 300

[lv]
schedule = @yearly
command = [ "$TICKD_ATTEMPT" = 1 ] || exit 0; setsid @DIR@/zz-lv-left 300 & while [ ! -e @DIR@/go ]; do sleep 0.1; done

[pl]
schedule = @yearly
command = [ "$TICKD_ATTEMPT" = 1 ] || exit 0; while [ ! -e @DIR@/go ]; do sleep 0.1; done

[bt]
schedule = @yearly
command = [ "$TICKD_ATTEMPT" = 1 ] || exit 0; exec @DIR@/zz-bt 300

[pf]
schedule = @yearly
command = while [ ! -e @DIR@/pf.end ]; do @DIR@/zz-pf 0.1; done

[cw]
schedule = @yearly
command = echo "$TICKD_RUN_ID $TICKD_ATTEMPT" >> @DIR@/cw.out
EOF2

# run_id JOB: the run id of JOB's only instance.
run_id() { sql "SELECT run_id FROM runs WHERE job = '$1'"; }
# attempt_pid JOB N: the recorded pid of JOB's attempt N.
attempt_pid() {
	sql "SELECT a.pid FROM attempts a JOIN runs r ON a.run = r.id
	    WHERE r.job = '$1' AND a.attempt = $2"
}
# plant NAME RUN_ID: as nobody, a session leader running $dir/NAME with
# TICKD_RUN_ID=RUN_ID and nothing else in its environment.
plant() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    env -i TICKD_RUN_ID="$2" setsid "$dir/$1" 300 &
	wait_for "$1 to run" 5 eval '[ -n "$(procs '"$1"')" ]'
}

# --- start 1 --------------------------------------------------------------------------
daemon_start
for j in ad lv pl bt; do
	ctl run $j >/dev/null || fail "run $j"
done
wait_for "the four attempts' pids" 10 eval '[ "$(sql "SELECT count(*) FROM
    attempts WHERE pid > 0")" -eq 4 ]'
wait_for "ad's and lv's descendants" 10 eval '[ -n "$(procs zz-ad-esc)" ] &&
    [ -n "$(procs zz-lv-left)" ] && [ -n "$(procs zz-bt)" ]'
adpid=$(attempt_pid ad 1)
btpid=$(attempt_pid bt 1)
daemon_stop 5 KILL

# While no daemon runs: lv and pl end, lv leaving its leftover; another
# user plants pl's run id; bt's record is made another boot's.
touch "$dir/go"
lvpid=$(attempt_pid lv 1)
plpid=$(attempt_pid pl 1)
wait_for "lv's and pl's main processes to end" 10 eval \
    '! pid_alive $lvpid && ! pid_alive $plpid'
[ -n "$root" ] && plant zz-pl-planted "$(run_id pl)"
sql "UPDATE attempts SET boot_id = 'an-earlier-boot' WHERE run =
    (SELECT id FROM runs WHERE job = 'bt')"
lvleft=$(procs zz-lv-left)

# --- start 2 ------------------------------------------------------------------------------
daemon_start
expect_eq "ad: adopted" "$(log_count "job ad: run $(run_id ad) attempt 1 outlived the previous daemon: adopted, pid $adpid")" 1
for j in lv pl bt; do
	expect_eq "$j: not adopted" "$(log_count "job $j: run $(run_id $j) attempt 1 outlived")" 0
	expect_eq "$j: interrupted, rerun" "$(log_count "job $j: run $(run_id $j) attempt 1 was interrupted by a daemon stop: rerun (recover = rerun)")" 1
	wait_for "$j: its rerun to succeed" 10 eval '[ "$(sql "SELECT status,
	    attempts FROM runs WHERE job = '"'$j'"'")" = "succeeded|2" ]'
done
expect_eq "lv: the leftover left alone" "$(procs zz-lv-left)" "$lvleft"
[ -n "$root" ] && expect_eq "pl: the planted process left alone" \
    "$(ps -o user= -p "$(procs zz-pl-planted)")" nobody
checks=$((checks + 1))
pid_alive "$btpid" || fail "bt: the process of the other boot's record is gone"
kill -KILL "$btpid"
if [ "$mode" = cgroup ]; then
	# lv's first attempt's cgroup stays while its leftover lives.
	lvcg=$(sql "SELECT a.cgroup FROM attempts a JOIN runs r ON a.run = r.id
	    WHERE r.job = 'lv' AND a.attempt = 1")
	expect_eq "lv: its cgroup holds the leftover" "$(cat "$lvcg/cgroup.procs")" \
	    "$lvleft"
	kill -KILL "$lvleft"
	wait_for "lv's cgroup to be removed once empty" 10 eval '[ ! -d "$lvcg" ]'
fi
# ad: its timeout (12 s after its start) stops the descendant that left
# its session too.  (Adopted: how it ended cannot be known.)
wait_for "ad's timeout" 20 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '\''ad'\''")" != running ]'
expect_eq "ad: stopped by its timeout" "$(sql "SELECT status, reason, detail
    FROM runs WHERE job = 'ad'")" "unknown|adopted|stopped by its timeout of 12s after it was adopted"
wait_for "ad's escaped descendant to be stopped" 10 no_procs zz-ad-esc

# --- start 2 killed while pf runs; start 3 without pidfd_open -------------------------------
ctl run pf >/dev/null || fail "run pf"
wait_for "pf's pid" 10 eval '[ -n "$(attempt_pid pf 1)" ]'
pfpid=$(attempt_pid pf 1)
daemon_stop 5 KILL
tickd_wrap=$nopidfd
daemon_start
tickd_wrap=
expect_eq "pf: adopted" "$(log_count "job pf: run $(run_id pf) attempt 1 outlived the previous daemon: adopted, pid $pfpid")" 1
# Still running, not rerun, while it lives (polled: 1 s).
wait_until $(($(now) + 3))
expect_eq "pf: still running, one attempt" "$(sql "SELECT status, attempts
    FROM runs WHERE job = 'pf'")" "running|1"
checks=$((checks + 1))
pid_alive "$pfpid" || fail "pf: its process died"
touch "$dir/pf.end"
wait_for "pf's end to be recorded" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '\''pf'\''")" = unknown ]'
expect_eq "pf: its end, adopted" "$(sql "SELECT status, reason, attempts FROM
    runs WHERE job = 'pf'")" "unknown|adopted|1"
daemon_stop_ok

# --- start 4 stops after claiming cw; start 5 reruns it ---------------------------------------
daemon_start TICKD_TEST_STOP=claim
ctl run cw >/dev/null 2>&1 &
wait_for "start 4 to stop itself" 10 eval '[ "$(ps -o stat= -p $tickd_pid |
    cut -c1)" = T ]'
cwid=$(run_id cw)
expect_eq "cw: claimed, no pid" "$(sql "SELECT r.status, a.pid IS NULL FROM
    runs r JOIN attempts a ON a.run = r.id WHERE r.job = 'cw'")" "running|1"
[ -n "$root" ] && plant zz-cw-planted "$cwid"
daemon_stop 5 KILL
daemon_start
expect_eq "cw: not adopted" "$(log_count "job cw: run $cwid attempt 1 outlived")" 0
wait_for "cw: its rerun" 10 eval '[ "$(sql "SELECT status, attempts FROM runs
    WHERE job = '\''cw'\''")" = "succeeded|2" ]'
expect_eq "cw: one run, attempt 2" "$(cat "$dir/cw.out")" "$cwid 2"
[ -n "$root" ] && expect_eq "cw: the planted process left alone" \
    "$(ps -o user= -p "$(procs zz-cw-planted)")" nobody
daemon_stop_ok

# --- start 6: in the top of its cgroup, the default key ------------------------------------------
if [ "$mode" = cgroup ]; then
	write_conf "cgroup = "
	sed -i '/^cgroup = $/d' "$dir/tickd.conf"
	cg_enter=$cgdir
	daemon_start
	cg_enter=
	expect_eq "start 6: moved to its supervisor cgroup" \
	    "$(sed -n 's/^0:://p' "/proc/$tickd_pid/cgroup")" \
	    "${cgdir#$(cg_mount)}/supervisor"
	log_has "jobs are tracked by cgroup $cgdir (controllers: " ||
	    fail "start 6: no line about its cgroup"
	log_has "tickd moved itself to its supervisor cgroup" ||
	    fail "start 6: no line about the move"
	ctl run cw >/dev/null || fail "run cw"
	wait_for "cw's run in start 6" 10 eval '[ "$(sql "SELECT count(*) FROM
	    attempts a JOIN runs r ON a.run = r.id WHERE r.job = '\''cw'\'' AND
	    a.cgroup LIKE '\''$cgdir/cw@%'\''")" -ge 1 ]'
	daemon_stop_ok
fi
done_ok

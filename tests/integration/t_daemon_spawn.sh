#!/bin/sh
# How job processes are made (runner.c): clone(CLONE_VM | CLONE_VFORK)
# when the working directory is known to be local, fork when it is not
# (a symbolic link or ".." in the path: it could lead to a hung network
# mount, and the daemon waits for a clone child to exec; one that cannot be
# looked at is not known either).  Either way the
# job runs in its directory, as tickd's direct child, in its own session;
# a directory that does not exist is a recorded spawn failure, and the
# daemon, which waited for that child, goes on.  tickd raises its soft
# descriptor limit to the hard one; jobs start with the soft one.
. tests/integration/lib.sh
setup
write_conf "log_level = debug"
mkdir -p "$dir/wd/sub"
ln -s "$dir/wd" "$dir/wdlink"

cmd='echo "$TICKD_JOB $(pwd -P) $PPID $$ $(ps -o sid= -p $$ | tr -d " ") $(ulimit -Sn) $(ulimit -Hn)" >> @DIR@/out'
{
	printf '[home]\nschedule = every 1s\ncommand = %s\n\n' "$cmd"
	for j in slash:/ local:@DIR@/wd link:@DIR@/wdlink \
	    dotdot:@DIR@/wd/sub/.. missing:@DIR@/nope; do
		printf '[%s]\nschedule = every 1s\nworkdir = %s\ncommand = %s\n\n' \
		    "${j%%:*}" "${j#*:}" "$cmd"
	done
	# A clone child that fails before exec (nobody cannot enter the
	# test directory): its report comes through the daemon's memory.
	# Its on_failure fails the same way, and is recorded so.
	[ "$(id -u)" -ne 0 ] || printf '[denied]\nschedule = every 1s\nuser = nobody\nworkdir = @DIR@/wd\ncommand = %s\non_failure = true\n\n' "$cmd"
} | write_job spawn.job
# A soft descriptor limit below the hard one (outside systemd): tickd
# raises its own to the hard one, jobs get the soft one back.
tickd_wrap="prlimit --nofile=256:4096 --"
daemon_start
tickd_wrap=
expect_eq "tickd's descriptor limit, raised" "$(awk '/^Max open files/ {
    print $4, $5 }' "/proc/$tickd_pid/limits")" "4096 4096"
pid=$tickd_pid sid=$(ps -o sid= -p "$tickd_pid" | tr -d ' ')
for j in home slash local link dotdot; do
	wait_for "a run of $j" 10 grep -q "^$j " "$dir/out"
done
[ "$(id -u)" -ne 0 ] || wait_for "a spawn failure of denied" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''denied'\'' AND status = '\''failed'\''")" -ge 1 ]'
wait_for "a spawn failure of missing" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''missing'\'' AND status = '\''failed'\''")" -ge 1 ]'
daemon_stop_ok

home=$(getent passwd "$(id -un)" | cut -d: -f6)
for j in home:"$(cd "$home" && pwd -P)" slash:/ local:"$dir/wd" \
    link:"$dir/wd" dotdot:"$dir/wd"; do
	n=${j%%:*} want=${j#*:}
	line=$(grep -m 1 "^$n " "$dir/out")
	set -- $line
	expect_eq "$n: the directory" "$2" "$want"
	expect_eq "$n: tickd's own child" "$3" "$pid"
	expect_eq "$n: its own session" "$5" "$4"
	expect_eq "$n: the descriptor limits tickd started with" "$6 $7" "256 4096"
	expect_eq "$n: every run succeeded" "$(sql "SELECT count(*) FROM runs
	    WHERE job = '$n' AND status NOT IN ('succeeded', 'terminated')")" 0
done
# Fork only for the directories that could lead elsewhere (or that are
# not there to be looked at).
for d in "$dir/wdlink" "$dir/wd/sub/.." "$dir/nope"; do
	checks=$((checks + 1))
	log_has "tickd: debug: $d is not known to be on a local file system: fork" ||
	    check_fail "no fork for $d"
done
expect_eq "fork for those only" "$(grep 'not known to be on a local' "$log" |
    grep -v -e "$dir/wdlink is" -e "$dir/wd/sub/\.\. is" -e "$dir/nope is" |
    head -n 3)" ""
expect_eq "missing: a spawn failure" "$(sql "SELECT DISTINCT a.outcome, a.error
    FROM attempts a JOIN runs r ON a.run = r.id WHERE r.job = 'missing'")" \
    "spawn_failed|entering the working directory: No such file or directory"
if [ "$(id -u)" -eq 0 ]; then
	expect_eq "denied: a spawn failure, from a clone child" "$(sql "SELECT
	    DISTINCT a.outcome, a.error FROM attempts a JOIN runs r ON
	    a.run = r.id WHERE r.job = 'denied'")" \
	    "spawn_failed|entering the working directory: Permission denied"
	expect_eq "denied: never logged as started" \
	    "$(grep -c 'job denied: .* started' "$log")" 0
	wait_for "denied: an on_failure decision" 10 eval '[ -n "$(sql "SELECT
	    reason FROM decisions WHERE job = '\''denied'\'' AND
	    decision = '\''on_failure'\''")" ]'
	expect_eq "denied: its on_failure could not start either" \
	    "$(sql "SELECT DISTINCT reason FROM decisions WHERE
	    job = 'denied' AND decision = 'on_failure'")" failed
	checks=$((checks + 1))
	grep -q "job denied: on_failure for denied@.* failed (entering the working directory: Permission denied)" "$log" ||
	    check_fail "denied: the on_failure failure is not logged with its cause"
fi

# The start time recorded for each process (what identifies it across pid
# reuse when a restarted daemon adopts it): taken from the boot clock
# around the clone when that brackets one clock tick, else from /proc.
# Either way it must be what /proc/PID/stat says (field 22).  40 jobs
# started in one second: most bracketed, a few across a tick boundary.
rm -f "$jobs/spawn.job"
i=0
while [ "$i" -lt 40 ]; do
	printf '[s%02d]\nschedule = every 1s\ncommand = exec sleep 30\n\n' "$i"
	i=$((i + 1))
done | write_job starts.job
daemon_start
# (Only these jobs' attempts: those of the tests above have a start too.)
starts() {
	sql "SELECT a.pid, a.pid_start FROM attempts a JOIN runs r ON r.id =
	    a.run WHERE r.job GLOB 's[0-9][0-9]' AND a.pid_start IS NOT NULL"
}
wait_for "40 recorded starts" 10 eval '[ "$(starts | wc -l)" -ge 40 ]'
starts |
while IFS='|' read -r p st; do
	pid_alive "$p" || continue
	echo "$p $st $(sed 's/.*) //' "/proc/$p/stat" | cut -d' ' -f20)"
done > "$dir/starts"
expect_eq "started processes compared" "$(lines "$dir/starts")" 40
expect_eq "the recorded start times are /proc's" \
    "$(awk '$2 != $3' "$dir/starts")" ""
daemon_stop 10 KILL
done_ok

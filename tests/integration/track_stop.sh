# track_stop.sh -- the body of t_track_stop.sh (mode=cgroup: one cgroup
# per attempt) and t_track_stop_pgrp.sh (mode=pgrp: process groups and
# the invocation id): which processes are an attempt's when it is stopped.
#
# - tg: a timeout stops every process the attempt made: its group, a
#   child, a setsid child, a setsid grandchild whose parent left (handed
#   to tickd), and, with a cgroup, one that also cleared its environment.
# - rt: the sweep after a stopped attempt (at the end of its kill_grace)
#   kills what is left of that attempt only: the retry of the same run,
#   started within the grace and running past its end, lives (issue 16,
#   item 2: it was killed with the same TICKD_RUN_ID).
# - hk: the same for the on_failure command of a stopped attempt.
# - ru: after the attempt's main process is reaped, its pid is reused by a
#   process of someone else that makes it its group and session: the
#   sweep does not kill it (item 9: kill(-pgid) after the reap).
# - cpu: what an attempt used is recorded: CPU time and peak memory, from
#   its cgroup or from its main process (rusage).
# - every attempt's cgroup is removed once the attempt is recorded and
#   empty.
. tests/integration/lib.sh
setup_mode "$mode"
for s in zz-tg-main zz-tg-child zz-tg-esc zz-tg-orphan zz-tg-clean zz-rt \
    zz-hk zz-ru zz-victim; do
	sleeper $s
done
clean=
[ "$mode" = cgroup ] && clean="setsid env -i @DIR@/zz-tg-clean 300 & "

write_conf "log_level = debug"
# The daemon first, the jobs by a reload: due 2 s after that, not after a
# start that a loaded host may stretch past their instant (a new job's
# instant that passed before its daemon read it is not run).
daemon_start
t0=$(($(now) + 2 + slow))
write_job stop.job <<EOF2
[tg]
schedule = $(at_cron "$t0")
timeout = $((2 * slow))s
kill_grace = 2s
command = @DIR@/zz-tg-child 300 & setsid @DIR@/zz-tg-esc 300 & setsid sh -c '@DIR@/zz-tg-orphan 300 & exit 0' & $clean exec @DIR@/zz-tg-main 300

# Attempt 1 times out at 5 s and ends; its kill_grace runs 3 s more.
# Attempt 2 starts about 1 s after the end of attempt 1 and runs 4 s:
# alive at the end of attempt 1's grace, done within its own timeout.
[rt]
schedule = $(at_cron "$t0")
timeout = 5s
kill_grace = 3s
retries = 1
retry_delay = 1s
retry_on_exit = any
command = if [ "\$TICKD_ATTEMPT" = 1 ]; then trap 'exit 1' TERM; @DIR@/zz-rt 300 & wait; else @DIR@/zz-rt 4; echo "\$TICKD_RUN_ID" > @DIR@/rt.2; fi

# Times out at 2 s (kill_grace 5s); its on_failure runs 8 s.
[hk]
schedule = $(at_cron "$t0")
timeout = 2s
kill_grace = 5s
command = trap 'exit 1' TERM; @DIR@/zz-hk 300 & wait
on_failure = sleep 8; echo "\$TICKD_RUN_ID" > @DIR@/hk.hook

# Its main process alone, gone at the TERM; the sweep 4 s later.
[ru]
schedule = $(at_cron "$t0")
timeout = 1s
kill_grace = 4s
command = exec @DIR@/zz-ru 300

[cpu]
schedule = $(at_cron "$t0")
command = i=0; while [ \$i -lt 300000 ]; do i=\$((i + 1)); done
EOF2
ctl reload >/dev/null || fail "tickctl reload"
wait_for "tg's processes" $((t0 - $(now) + 10)) eval '[ -n "$(procs zz-tg-main)" ] &&
    [ -n "$(procs zz-tg-child)" ] && [ -n "$(procs zz-tg-esc)" ] &&
    [ -n "$(procs zz-tg-orphan)" ] && { [ -z "$clean" ] ||
    [ -n "$(procs zz-tg-clean)" ]; }'
tgpid=$(procs zz-tg-main)
for s in zz-tg-esc zz-tg-orphan; do
	p=$(procs $s)
	checks=$((checks + 1))
	[ "$(ps -o sid= -p "$p" | tr -d ' ')" != "$tgpid" ] ||
	    fail "$s is in the run's session"
done
if [ "$mode" = cgroup ]; then
	tgcg=$(sql "SELECT a.cgroup FROM attempts a JOIN runs r ON a.run = r.id
	    WHERE r.job = 'tg'")
	expect_eq "tg: its cgroup" "$tgcg" "$cgdir/tg@$(rfc3339 "$t0").1"
	expect_eq "tg: the escaped process is in it" "$(grep -cx \
	    "$(procs zz-tg-clean)" "$tgcg/cgroup.procs")" 1
fi

# ru: its pid taken by a process of someone else (not tickd's), leading a
# session of its own, between the end of the attempt and its sweep.
ruid=$(sql "SELECT run_id FROM runs WHERE job = 'ru'")
wait_for "ru to be stopped" 10 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '\''ru'\''")" = failed ]'
rupid=$(sql "SELECT a.pid FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.job = 'ru'")
victim=
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/kernel/ns_last_pid ]; then
	"$python" - "$rupid" "$dir/zz-victim" >"$dir/victim.out" 2>&1 <<'EOF2' &
import os, sys
target, prog = int(sys.argv[1]), sys.argv[2]
for _ in range(2000):
    try:
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(target - 1))
    except OSError:
        break
    pid = os.fork()
    if pid == 0:
        if os.getpid() == target:
            os.setsid()
            os.execv(prog, [prog, "300"])
        os._exit(0)
    if pid == target:
        print("victim", pid, flush=True)
        break
    os.waitpid(pid, 0)
EOF2
	wait_for "the victim to take pid $rupid" 10 eval \
	    'grep -q "^victim $rupid\$" "$dir/victim.out" ||
	    ! kill -0 $! 2>/dev/null'
	grep -q "^victim $rupid\$" "$dir/victim.out" && victim=$rupid
fi
if [ -z "$victim" ]; then
	echo "ru: pid $rupid could not be taken again here (not root?):" \
	    "that check is left out"
else
	expect_eq "ru: the victim leads its own group" \
	    "$(ps -o pgid= -p "$victim" | tr -d ' ')" "$victim"
fi
# The sweep: its cgroup removed, or the debug line.
if [ "$mode" = cgroup ]; then
	wait_for "ru's sweep (its cgroup removed)" 15 eval \
	    '[ ! -d "$cgdir/$ruid.1" ]'
else
	wait_for "ru's sweep" 15 eval 'log_has "job ru: run $ruid attempt 1: nothing left at the end of its kill_grace" ||
	    log_has "job ru: run $ruid: 1 leftover process killed"'
fi
if [ -n "$victim" ]; then
	checks=$((checks + 1))
	pid_alive "$victim" && [ "$(procs zz-victim)" = "$victim" ] ||
	    fail "ru: the sweep killed the process that took its pid $victim"
	kill -KILL "$victim"
fi

# tg: nothing it made is left.
for s in zz-tg-main zz-tg-child zz-tg-esc zz-tg-orphan zz-tg-clean; do
	wait_for "$s to be gone" 10 no_procs $s
done
expect_eq "tg: timed out" "$(sql "SELECT status, reason, signal FROM runs
    WHERE job = 'tg'")" "failed|timeout|15"

# rt: attempt 2 lived past attempt 1's sweep and succeeded.
rtid=$(sql "SELECT run_id FROM runs WHERE job = 'rt'")
# (One read: between two, retrying may become running.)
wait_for "rt's attempt 2 to end" 20 eval '[ "$(sql "SELECT status NOT IN
    ('\''running'\'', '\''retrying'\'') FROM runs WHERE job = '\''rt'\''")" = 1 ]'
expect_eq "rt: attempt 2 succeeded" "$(sql "SELECT status, attempts FROM runs
    WHERE job = 'rt'")" "succeeded|2"
expect_eq "rt: attempt 2 wrote its line" "$(cat "$dir/rt.2" 2>/dev/null)" "$rtid"
expect_eq "rt: the attempts" "$(sql "SELECT group_concat(a.outcome, ' ') FROM
    (SELECT outcome FROM attempts a JOIN runs r ON a.run = r.id WHERE
    r.job = 'rt' ORDER BY a.attempt) a")" "timed_out succeeded"

# hk: its on_failure command lived past the attempt's sweep.
hkid=$(sql "SELECT run_id FROM runs WHERE job = 'hk'")
wait_for "hk's on_failure to finish" 20 test -s "$dir/hk.hook"
expect_eq "hk: on_failure finished" "$(cat "$dir/hk.hook")" "$hkid"
wait_for "hk's on_failure decision" 10 eval '[ "$(sql "SELECT count(*) FROM
    decisions WHERE job = '\''hk'\'' AND decision = '\''on_failure'\''")" = 1 ]'
expect_eq "hk: on_failure ran" "$(sql "SELECT reason FROM decisions
    WHERE job = 'hk' AND decision = 'on_failure'")" succeeded

# cpu: its usage.
wait_for "cpu to end" 20 eval '[ "$(sql "SELECT status FROM runs
    WHERE job = '\''cpu'\''")" = succeeded ]'
src=rusage
[ "$mode" = cgroup ] && src=cgroup
expect_eq "cpu: usage recorded" "$(sql "SELECT a.usage_source,
    a.cpu_user_us + a.cpu_system_us > 100000, a.mem_peak > 100000 FROM
    attempts a JOIN runs r ON a.run = r.id WHERE r.job = 'cpu'")" "$src|1|1"

# Every attempt's cgroup is gone once it ended and emptied.
if [ "$mode" = cgroup ]; then
	wait_for "the attempts' cgroups to be removed" 10 eval \
	    '[ -z "$(ls "$cgdir" | grep @)" ]'
else
	expect_eq "no cgroup recorded" "$(sql "SELECT count(*) FROM attempts
	    WHERE cgroup IS NOT NULL")" 0
fi
daemon_stop_ok
done_ok

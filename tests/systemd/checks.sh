#!/bin/bash
# tests/systemd/checks.sh -- tickd's checks under a real systemd, inside
# the virtual machine of "make check-systemd" (tests/systemd/run.sh puts
# it in /usr/local/lib/tickd-checks/, tickd-checks.service runs it).
#
# It waits for the boot to finish, runs every check of CHECKS in order
# and prints one line per check on the console, which the host collects:
#
#   TICKD-CHECK PASS name 1.2s
#   TICKD-CHECK FAIL name 3.4s: why
#   TICKD-CHECKS DONE 7 passed, 1 failed
#
# then powers the machine off.  Each check runs in a process of its own
# ("checks.sh --one NAME", under a timeout), with its output in
# /run/tickd-checks/NAME.log; after a failure that output's end, the
# unit's status and the end of tickd's journal are printed on the console
# as TICKD-DIAG lines.  A check leaves tickd as it found it: the unit as
# installed, active, whatever it changed (drop-ins, a stopped daemon)
# undone by the cleanups it registers with on_exit.
#
# Adding a check: write a function check_NAME (it passes when it returns
# 0; "fail WHY" ends it with that reason) and add NAME to CHECKS, in the
# order it should run.  CHECK_TIMEOUT (seconds, default 180) bounds each;
# timeout_NAME=SECS, set beside the function, overrides it.  The helpers
# below the list do most of the work: prop, state, wait_for, expect_eq,
# restart, dropin, tickd_reset, jcursor, jfind, jfield.

CHECKS="
boot
unit
notify_ready
status
reload
run_wait
journal_fields
scheduled
watchdog_alive
watchdog_stop
cgroup_tree
limits_written
memory_max_oom
tasks_max
cpu_accounting
adopt_after_kill
"

dir=/run/tickd-checks
unit=tickd.service
dropins=/run/systemd/system/$unit.d
. /usr/local/lib/tickd-checks/message-ids	# MSGID_STARTED=... (src/log.c)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# --- helpers ---------------------------------------------------------------------

# Microseconds since the epoch; seconds (one decimal) since such a reading.
us() { echo "${EPOCHREALTIME/./}"; }
since() {
	local d=$(( $(us) - $1 ))
	printf '%d.%d' $(( d / 1000000 )) $(( d / 100000 % 10 ))
}

# fail WHY: end the check with that reason.
fail() {
	echo "FAIL: $*"
	printf '%s\n' "$*" > "$dir/$CHECK.why"
	exit 1
}

# note TEXT: a figure for the verdict line, "PASS name 1.2s (TEXT)".
note() { echo "$*"; printf '%s\n' "$*" >> "$dir/$CHECK.note"; }

# on_exit COMMAND: run COMMAND when the check ends, however it ends; the
# last registered runs first.
cleanups=:
on_exit() { cleanups="$*; $cleanups"; }

# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }

# wait_for SECS WHAT COMMAND...: run COMMAND every 0.2 s until it succeeds;
# fail after SECS seconds, saying WHAT did not happen.
wait_for() {
	local secs=$1 what=$2 end=$(( $(us) + $1 * 1000000 ))
	shift 2
	until "$@" >/dev/null 2>&1; do
		[ "$(us)" -lt "$end" ] || fail "$what: not within ${secs}s"
		sleep 0.2
	done
}

# prop NAME: a property of tickd.service; state: ActiveState/SubState.
prop() { systemctl show -P "$1" "$unit"; }
state() { echo "$(prop ActiveState)/$(prop SubState)"; }
is_state() { [ "$(state)" = "$1" ]; }

# A restart the unit asked for (NRestarts above N) is done and a new main
# process (not PID) runs: restarted_from PID N.
restarted_from() {
	[ "$(prop NRestarts)" -gt "$2" ] && is_state active/running &&
	    [ "$(prop MainPID)" != "$1" ] && [ "$(prop MainPID)" -gt 0 ]
}

# restart: systemctl restart tickd, which returns once READY=1 came.
restart() {
	timeout 90 systemctl restart "$unit" ||
	    fail "systemctl restart $unit: exit $?"
	expect_eq "state after systemctl restart" "$(state)" active/running
}

# dropin NAME LINE...: a runtime drop-in ([Service] and the lines), read
# by systemd at once; dropin_rm NAME takes it back.  Neither restarts.
dropin() {
	local name=$1
	shift
	mkdir -p "$dropins"
	printf '%s\n' "[Service]" "$@" > "$dropins/$name.conf"
	systemctl daemon-reload
}
dropin_rm() { rm -f "$dropins/$1.conf"; systemctl daemon-reload; }

# tickd_reset: the unit as installed (no drop-in), active; restarted only
# if something was changed.
tickd_reset() {
	local had=
	[ -n "$(ls "$dropins" 2>/dev/null)" ] && had=1
	rm -rf "$dropins"
	[ -n "$had" ] && systemctl daemon-reload
	if [ -n "$had" ] || ! is_state active/running; then
		systemctl reset-failed "$unit" 2>/dev/null
		timeout 90 systemctl restart "$unit"
	fi
}

# jcursor: the cursor of the journal's last entry.  jfind CURSOR
# FIELD=VALUE...: the entries after CURSOR (all when it is empty) that
# have every FIELD=VALUE, in export format (one FIELD=value per line,
# each entry starting with __CURSOR=).  The matching is done here, not by
# journalctl: systemd 252's journalctl --after-cursor with matches skips
# the first entry that matches.  Binary fields (NUL bytes) are mangled,
# which does not matter to tickd's text fields.  jfield CURSOR FIELD
# FIELD=VALUE...: FIELD of the first entry found.
jcursor() { journalctl -q -n 1 -o export | sed -n 's/^__CURSOR=//p'; }
jfind() {
	local c=$1
	shift
	journalctl -q --no-pager -o export ${c:+--after-cursor="$c"} |
	    tr -d '\000' | awk -v want="$(printf '%s\n' "$@")" '
		function flush(  i) {
			for (i = 1; i <= n; i++)
				if (index("\n" rec, "\n" w[i] "\n") == 0)
					return
			if (rec != "")
				printf "%s\n", rec
		}
		BEGIN { n = split(want, w, "\n") }
		/^__CURSOR=/ { flush(); rec = "" }
		{ rec = rec $0 "\n" }
		END { flush() }'
}
jfield() {
	local c=$1 f=$2
	shift 2
	jfind "$c" "$@" | sed -n "s/^$f=//p" | head -n 1
}

# hold_start: run the job hold (it runs until $dir/hold.release exists,
# made when the check ends); sets id (its run id) and jpid (its pid).
hold_start() {
	local out
	on_exit "touch $dir/hold.release"
	rm -f "$dir/hold.pid" "$dir/hold.release"
	out=$(tickctl run hold 2>&1) || fail "tickctl run hold: $out"
	id=$(echo "$out" | sed -n 1p)
	wait_for 30 "the job's pid file" test -s "$dir/hold.pid"
	jpid=$(cat "$dir/hold.pid")
}

# --- the checks -------------------------------------------------------------------

# The boot ended "running": no unit failed (tickd.service included).
check_boot() {
	local s
	s=$(systemctl is-system-running)
	[ "$s" = running ] || fail "system $s; failed units:" \
	    $(systemctl --failed --plain --no-legend | awk '{ print $1 }')
}

# The unit systemd loaded is the one make install wrote, enabled, with
# the settings tickd(8) describes, and verified by systemd itself.
check_unit() {
	local frag out doc page sec
	frag=$(prop FragmentPath)
	[ "$(readlink -f "$frag")" = \
	    "$(readlink -f /lib/systemd/system/tickd.service)" ] ||
	    fail "FragmentPath $frag: not /lib/systemd/system/tickd.service"
	expect_eq "drop-ins" "$(prop DropInPaths)" ""
	expect_eq UnitFileState "$(prop UnitFileState)" enabled
	expect_eq Type "$(prop Type)" notify
	expect_eq NotifyAccess "$(prop NotifyAccess)" main
	expect_eq WatchdogUSec "$(prop WatchdogUSec)" 30s
	expect_eq Restart "$(prop Restart)" on-failure
	expect_eq KillMode "$(prop KillMode)" process
	expect_eq Delegate "$(prop Delegate)" yes
	prop ExecStopPost | grep -qF \
	    'argv[]=/usr/sbin/tickd --release-cgroup -c /etc/tickd/tickd.conf ;' ||
	    fail "ExecStopPost: $(prop ExecStopPost)"
	prop ExecStart | grep -qF \
	    'argv[]=/usr/sbin/tickd -c /etc/tickd/tickd.conf --log-target=journal ;' ||
	    fail "ExecStart: $(prop ExecStart)"
	# verify runs man(1) for Documentation=, which the machine lacks:
	# the pages are looked for where make install put them instead.
	out=$(systemd-analyze verify --man=no "$unit" 2>&1) ||
	    fail "systemd-analyze verify: $out"
	for doc in $(prop Documentation | tr -d '"'); do
		page=${doc#man:}
		sec=${page#*(}
		sec=${sec%)}
		[ -f "/usr/share/man/man$sec/${page%(*}.$sec" ] ||
		    fail "Documentation=$doc: no /usr/share/man/man$sec/${page%(*}.$sec"
	done
	expect_eq "started at boot" "$(state)" active/running
}

# Type=notify: while the daemon has not sent READY=1 the unit is
# "activating"; it becomes active/running when it does.  A drop-in
# delays the exec of tickd (same pid, so NotifyAccess=main still takes
# its READY=1) until a file exists.  Then, without the drop-in, the
# daemon answers tickctl as soon as "systemctl restart" has returned.
timeout_notify_ready=240
check_notify_ready() {
	local argv pid t0 held start active
	argv=$(prop ExecStart | sed -n 's/.*argv\[\]=\([^;]*[^; ]\) *;.*/\1/p')
	[ -n "$argv" ] || fail "cannot read ExecStart: $(prop ExecStart)"
	on_exit tickd_reset
	rm -f "$dir/ready.go"
	dropin hold "ExecStart=" "ExecStart=/bin/sh -c 'while [ ! -e \
$dir/ready.go ]; do sleep 0.1; done; exec $argv'"
	systemctl restart --no-block "$unit"
	wait_for 60 "the held start (activating/start)" is_state activating/start
	pid=$(prop MainPID)
	[ "$pid" -gt 0 ] || fail "no MainPID while activating"
	sleep 3
	expect_eq "state 3 s later, before READY=1" "$(state)" activating/start
	expect_eq "MainPID 3 s later" "$(prop MainPID)" "$pid"
	tickctl status >/dev/null 2>&1 &&
	    fail "tickctl status: the daemon runs before its exec"
	t0=$(us)
	touch "$dir/ready.go"
	wait_for 60 "active/running after READY=1" is_state active/running
	note "active $(since "$t0") s after the exec was let go"
	expect_eq "MainPID once active (the same process, now tickd)" \
	    "$(prop MainPID)" "$pid"
	expect_eq "its name" "$(cat "/proc/$pid/comm")" tickd
	start=$(prop ExecMainStartTimestampMonotonic)
	active=$(prop ActiveEnterTimestampMonotonic)
	held=$(( (active - start) / 1000 ))
	note "active ${held} ms after the fork"
	[ "$held" -ge 3000 ] ||
	    fail "active ${held} ms after the fork: before READY=1"
	[ -n "$(prop StatusText)" ] || fail "no StatusText: STATUS= not seen"
	dropin_rm hold
	restart
	out=$(tickctl status 2>&1) ||
	    fail "tickctl status just after systemctl restart: $out"
	echo "$out" | grep -q "^daemon *running, pid $(prop MainPID)," ||
	    fail "tickctl status: $out"
}

# tickctl status, as installed (/usr/bin/tickctl, /etc/tickd/tickd.conf
# by default), reports the daemon that systemd runs.
check_status() {
	local out pid n
	out=$(tickctl status 2>&1) || fail "tickctl status: exit $?: $out"
	echo "$out"
	pid=$(prop MainPID)
	echo "$out" | grep -q "^daemon *running, pid $pid," ||
	    fail "tickctl status does not say running, pid $pid"
	echo "$out" | grep -q '^config *\/etc\/tickd\/tickd.conf$' ||
	    fail "tickctl status: not /etc/tickd/tickd.conf"
	# One job per [section] of the job files.
	n=$(cat /etc/tickd/jobs.d/*.job | grep -c '^\[')
	echo "$out" | grep -q "^jobs *$n loaded, 0 in error$" ||
	    fail "tickctl status: jobs line (want $n)"
	prop StatusText | grep -q "^$n jobs, " ||
	    fail "StatusText (STATUS=): '$(prop StatusText)'"
}

# systemctl reload tickd: SIGHUP to the daemon alone; a job file added
# before it is loaded after it; the journal says so; the unit goes back
# to active/running with the same main process.
check_reload() {
	local c pid n out
	on_exit 'rm -f /etc/tickd/jobs.d/added.job; systemctl reload tickd'
	pid=$(prop MainPID)
	n=$(prop NRestarts)
	printf '[added]\nschedule = @yearly\ncommand = echo added\n' \
	    > /etc/tickd/jobs.d/added.job
	tickctl run added >/dev/null 2>&1 &&
	    fail "tickctl run added: the daemon knows it before the reload"
	tickctl status | grep -q '^jobs .*(the files now say' ||
	    fail "tickctl status: no 'the files now say' before the reload"
	c=$(jcursor)
	timeout 60 systemctl reload "$unit" ||
	    fail "systemctl reload $unit: exit $?"
	wait_for 30 "active/running after the reload" is_state active/running
	expect_eq "MainPID after the reload" "$(prop MainPID)" "$pid"
	expect_eq "NRestarts after the reload" "$(prop NRestarts)" "$n"
	wait_for 30 "'reload done' in the journal" eval \
	    "jfind '$c' _SYSTEMD_UNIT=$unit MESSAGE_ID=$MSGID_RELOADED _PID=$pid |
	    grep -q '^MESSAGE=reload done: '"
	jfind "$c" _SYSTEMD_UNIT=$unit _PID="$pid" |
	    grep -q '^MESSAGE=reloading ' ||
	    fail "no 'reloading' message in the journal"
	tickctl list | grep -q '^added ' ||
	    fail "tickctl list: no 'added' after the reload"
	tickctl status | grep -q '^jobs .*(the files now say' &&
	    fail "tickctl status: the daemon's count is still the old one"
	out=$(tickctl run --wait added 2>&1) ||
	    fail "tickctl run --wait added after the reload: $out"
}

# tickctl run --wait against the daemon of the unit: a success (exit 0),
# a failure (the job's exit status, 3), each recorded.
check_run_wait() {
	local out rc id
	out=$(tickctl run --wait hello 2>&1)
	rc=$?
	echo "$out"
	expect_eq "tickctl run --wait hello: exit status" "$rc" 0
	id=$(echo "$out" | sed -n 1p)
	case $id in hello@*) ;; *) fail "no run id: $out" ;; esac
	echo "$out" | grep -qxF "$id: succeeded" || fail "no '$id: succeeded'"
	expect_eq "tickctl show $id: status" \
	    "$(tickctl show "$id" | awk '$1 == "status" { print $2 }')" succeeded
	out=$(tickctl run --wait exit3 2>&1)
	rc=$?
	echo "$out"
	expect_eq "tickctl run --wait exit3: exit status" "$rc" 3
}

# The journal entries of a run: journalctl TICKD_RUN_ID=ID finds its
# start, its output line and its end, each with TICKD_JOB and the
# MESSAGE_ID of its kind (src/log.c), from tickd.service; -t JOB finds
# the output.
check_journal_fields() {
	local id out e
	out=$(tickctl run --wait hello 2>&1) || fail "tickctl run --wait: $out"
	id=$(echo "$out" | sed -n 1p)
	wait_for 30 "the end of $id in the journal" eval \
	    "jfind '' TICKD_RUN_ID='$id' MESSAGE_ID=$MSGID_SUCCEEDED | grep -q ."
	jfind "" TICKD_RUN_ID="$id"
	for e in "STARTED:MESSAGE=job hello: run $id attempt 1 started," \
	    "OUTPUT:MESSAGE=hello from $id" \
	    "SUCCEEDED:MESSAGE=job hello: run $id attempt 1 succeeded (exit 0)"
	do
		jfind "" TICKD_RUN_ID="$id" TICKD_JOB=hello \
		    _SYSTEMD_UNIT=$unit TICKD_ATTEMPT=1 TICKD_TRIGGER=manual \
		    MESSAGE_ID="$(eval echo "\$MSGID_${e%%:*}")" |
		    grep -qF "${e#*:}" ||
		    fail "no entry ${e%%:*} (${e#*:}) for TICKD_RUN_ID=$id"
	done
	[ "$(jfield "" TICKD_PID TICKD_RUN_ID="$id" \
	    MESSAGE_ID=$MSGID_STARTED)" -gt 0 ] 2>/dev/null ||
	    fail "the start of $id has no TICKD_PID"
	journalctl -q -u "$unit" -t hello TICKD_RUN_ID="$id" -o cat |
	    grep -qxF "hello from $id" ||
	    fail "journalctl -u $unit -t hello: no output line"
}

# Scheduled runs: the "tick" job (every 5s) runs on its own, trigger
# schedule, its run ids the scheduled instants, multiples of 5 s.
check_scheduled() {
	local c ids id s
	c=$(jcursor)
	wait_for 30 "two scheduled runs of tick" eval "[ \"\$(jfind '$c' \
	    TICKD_JOB=tick TICKD_TRIGGER=schedule MESSAGE_ID=$MSGID_SUCCEEDED |
	    grep -c '^TICKD_RUN_ID=')\" -ge 2 ]"
	ids=$(jfind "$c" TICKD_JOB=tick MESSAGE_ID=$MSGID_SUCCEEDED |
	    sed -n 's/^TICKD_RUN_ID=//p')
	echo "$ids"
	for id in $ids; do
		s=${id#tick@????-??-??T??:??:}
		s=${s%Z}
		[ $(( 10#$s % 5 )) -eq 0 ] || fail "run id $id: not a multiple of 5 s"
	done
	note "lateness $(jfind "$c" TICKD_JOB=tick MESSAGE_ID=$MSGID_STARTED |
	    sed -n 's/^TICKD_LATENESS_MS=//p' | paste -s -d ' ') ms"
}

# WatchdogSec=2s (a drop-in): the daemon pings (WatchdogTimestamp moves)
# and stays active, same process, no restart, for 4 periods.
check_watchdog_alive() {
	local pid n c w last moves=0 i
	on_exit tickd_reset
	dropin watchdog "WatchdogSec=2s"
	restart
	expect_eq WatchdogUSec "$(prop WatchdogUSec)" 2s
	pid=$(prop MainPID)
	n=$(prop NRestarts)
	c=$(jcursor)
	last=$(prop WatchdogTimestampMonotonic)
	for i in 1 2 3 4 5 6 7 8; do
		sleep 1
		w=$(prop WatchdogTimestampMonotonic)
		[ "$w" != "$last" ] && moves=$((moves + 1))
		last=$w
	done
	note "WatchdogTimestamp moved in $moves of 8 s"
	expect_eq "state after 8 s" "$(state)" active/running
	expect_eq "MainPID after 8 s" "$(prop MainPID)" "$pid"
	expect_eq "NRestarts after 8 s" "$(prop NRestarts)" "$n"
	[ "$moves" -ge 3 ] || fail "WatchdogTimestamp moved in $moves of 8 s"
	jfind "$c" UNIT=$unit | grep -q '^MESSAGE=.*[Ww]atchdog timeout' &&
	    fail "the journal has a watchdog timeout"
	return 0
}

# A daemon stopped with SIGSTOP stops pinging: systemd's watchdog ends it
# with SIGABRT (WatchdogSignal; systemd sends SIGCONT after it, so that
# a stopped process gets it) and Restart=on-failure starts another
# (NRestarts grows).
check_watchdog_stop() {
	local pid n c t0
	on_exit tickd_reset
	dropin watchdog "WatchdogSec=2s"
	restart
	pid=$(prop MainPID)
	n=$(prop NRestarts)
	c=$(jcursor)
	on_exit "kill -CONT $pid 2>/dev/null"
	t0=$(us)
	kill -STOP "$pid"
	wait_for 90 "a restart after SIGSTOP" restarted_from "$pid" "$n"
	note "restarted $(since "$t0") s after SIGSTOP"
	jfind "$c" UNIT=$unit | sed -n 's/^MESSAGE=//p'
	jfind "$c" UNIT=$unit | grep -q '^MESSAGE=.*[Ww]atchdog timeout' ||
	    fail "no watchdog timeout in the journal"
	jfind "$c" UNIT=$unit |
	    grep -q '^MESSAGE=.*Main process exited, .*status=6/ABRT' ||
	    fail "the daemon did not end by SIGABRT"
	[ -e "/proc/$pid" ] && fail "the stopped daemon, pid $pid, still exists"
	return 0
}

# The unit's cgroup, delegated, is tickd's: tickd in its leaf supervisor,
# the unit's controllers passed down to the jobs' cgroups, one cgroup per
# attempt beside it (named after the run id), removed when the attempt
# ended; tickctl status says so.
cg=/sys/fs/cgroup/system.slice/tickd.service
check_cgroup_tree() {
	local pid out id jpid
	pid=$(prop MainPID)
	expect_eq "tickd's cgroup" "$(sed -n 's/^0:://p' /proc/"$pid"/cgroup)" \
	    /system.slice/tickd.service/supervisor
	note "controllers passed down: $(cat $cg/cgroup.subtree_control)"
	for c in cpu io memory pids; do
		grep -qw "$c" $cg/cgroup.subtree_control ||
		    fail "$c not in $cg/cgroup.subtree_control: $(cat \
		    $cg/cgroup.subtree_control)"
	done
	out=$(tickctl status)
	echo "$out"
	echo "$out" | grep -qxF "tracked  by cgroup $cg (controllers: cpu io memory pids)" ||
	    fail "tickctl status: no 'tracked  by cgroup $cg (controllers: cpu io memory pids)'"
	hold_start
	expect_eq "the job's cgroup" "$(sed -n 's/^0:://p' /proc/"$jpid"/cgroup)" \
	    "/system.slice/tickd.service/$(echo "$id" | tr / _).1"
	touch "$dir/hold.release"
	wait_for 30 "its cgroup removed once it ended" eval \
	    "[ ! -d '$cg/$(echo "$id" | tr / _).1' ]"
	expect_eq "no attempt cgroup left" "$(ls -d $cg/*@* 2>/dev/null)" ""
}

# Every limit key is written into the attempt's cgroup with systemd's
# meaning (lim.job: memory_max 256M, memory_high 200M, cpu_weight 50,
# cpu_max 150%, tasks_max 64, io_weight 30), memory.oom.group set.
check_limits_written() {
	local out id d
	on_exit "touch $dir/lim.release"
	rm -f "$dir/lim.pid" "$dir/lim.release"
	out=$(tickctl run lim 2>&1) || fail "tickctl run lim: $out"
	id=$(echo "$out" | sed -n 1p)
	wait_for 30 "lim's pid file" test -s "$dir/lim.pid"
	d=$cg/$(echo "$id" | tr / _).1
	expect_eq memory.max "$(cat $d/memory.max)" 268435456
	expect_eq memory.high "$(cat $d/memory.high)" 209715200
	expect_eq memory.oom.group "$(cat $d/memory.oom.group)" 1
	expect_eq cpu.weight "$(cat $d/cpu.weight)" 50
	expect_eq cpu.max "$(cat $d/cpu.max)" "150000 100000"
	expect_eq pids.max "$(cat $d/pids.max)" 64
	expect_eq "io.weight (its default line)" \
	    "$(sed -n 's/^default //p' $d/io.weight)" 30
	tickctl status lim | grep -E '^ *(memory_max|cpu_max|tasks_max)' |
	    paste -s -d ';' | sed 's/  */ /g' > "$dir/lim.status"
	note "$(cat "$dir/lim.status")"
}

# memory_max = 64M and a process that wants 200M: the kernel's
# out-of-memory killer stops the attempt, recorded as failed, reason oom,
# with its peak memory near the limit.
check_memory_max_oom() {
	local out id st peak
	out=$(tickctl run --wait mem 2>&1)
	echo "$out"
	id=$(echo "$out" | sed -n 1p)
	case $id in mem@*) ;; *) fail "no run id: $out" ;; esac
	st=$(tickctl show "$id" | awk '$1 == "status" { print $2, $3 }')
	expect_eq "status of $id" "$st" "failed (oom)"
	tickctl show "$id"
	peak=$(tickctl --json show "$id" | sed -n \
	    's/.*"memory_peak_bytes":\([0-9]*\).*/\1/p')
	note "peak memory $peak bytes (limit 67108864)"
	[ -n "$peak" ] && [ "$peak" -gt 33554432 ] &&
	    [ "$peak" -le 67108864 ] || fail "peak memory $peak"
	tickctl metrics | grep -qx 'tickd_failed_total{job="mem",reason="oom"} [1-9][0-9]*' ||
	    fail "no tickd_failed_total{job=\"mem\",reason=\"oom\"}"
}

# tasks_max = 5: a job that starts 10 sleeps has at most 5 processes at
# once; the forks beyond fail.
check_tasks_max() {
	local out id d n max=0 i
	on_exit "touch $dir/tasks.release"
	rm -f "$dir/tasks.release"
	out=$(tickctl run tasks 2>&1) || fail "tickctl run tasks: $out"
	id=$(echo "$out" | sed -n 1p)
	d=$cg/$(echo "$id" | tr / _).1
	wait_for 30 "its cgroup" test -d "$d"
	expect_eq pids.max "$(cat $d/pids.max)" 5
	for i in 1 2 3 4 5 6 7 8 9 10; do
		n=$(wc -l < "$d/cgroup.procs" 2>/dev/null || echo 0)
		[ "$n" -gt "$max" ] && max=$n
		sleep 0.3
	done
	note "at most $max processes seen"
	[ "$max" -le 5 ] || fail "$max processes in its cgroup"
	[ "$max" -ge 3 ] || fail "only $max processes: the job did not fork"
	touch "$dir/tasks.release"
	wait_for 60 "the end of $id" eval "tickctl show '$id' |
	    awk '\$1 == \"status\" { print \$2 }' | grep -qvx running"
	journalctl -q -t tasks TICKD_RUN_ID="$id" -o cat | grep -qi fork ||
	    fail "no fork failure in its output"
}

# CPU time is recorded from the attempt's cgroup, all its processes
# together; cpu_max = 20% holds a busy loop of 3 s to about 0.6 s of CPU.
check_cpu_accounting() {
	local out id burn lim
	out=$(tickctl run --wait burn 2>&1) || fail "tickctl run burn: $out"
	id=$(echo "$out" | sed -n 1p)
	burn=$(tickctl --json show "$id" | sed -n \
	    's/.*"cpu_user_us":\([0-9]*\).*/\1/p')
	tickctl --json show "$id" | grep -q '"usage_source":"cgroup"' ||
	    fail "burn's usage is not from its cgroup"
	out=$(tickctl run --wait slow 2>&1) || fail "tickctl run slow: $out"
	id=$(echo "$out" | sed -n 1p)
	lim=$(tickctl --json show "$id" | sed -n \
	    's/.*"cpu_user_us":\([0-9]*\).*/\1/p')
	note "burn (2 s, two processes) $burn us; slow (3 s, cpu_max 20%) $lim us"
	[ "$burn" -gt 1500000 ] || fail "burn used $burn us of CPU"
	[ "$lim" -gt 200000 ] && [ "$lim" -lt 1200000 ] ||
	    fail "slow used $lim us of CPU under cpu_max = 20%"
}

# A job outlives a SIGKILL of the daemon alone (systemctl kill
# --kill-whom=main: plain "systemctl kill" signals every process of the
# unit, jobs included); Restart=on-failure starts a daemon that adopts
# it: same pid, "outlived the previous daemon: adopted" in the journal,
# and its end recorded once it ends.
timeout_adopt_after_kill=240
check_adopt_after_kill() {
	local id pid jpid n c out npid st t0
	hold_start
	wait_for 30 "the start of $id in the journal" eval \
	    "jfind '' TICKD_RUN_ID='$id' MESSAGE_ID=$MSGID_STARTED | grep -q ."
	expect_eq "TICKD_PID of the start" "$(jfield "" TICKD_PID \
	    TICKD_RUN_ID="$id" MESSAGE_ID=$MSGID_STARTED)" "$jpid"
	pid=$(prop MainPID)
	n=$(prop NRestarts)
	c=$(jcursor)
	t0=$(us)
	if systemctl --help | grep -q -- '--kill-whom'; then
		systemctl kill --kill-whom=main -s KILL "$unit"
	else
		systemctl kill --kill-who=main -s KILL "$unit"
	fi || fail "systemctl kill: exit $?"
	wait_for 60 "a restart after the kill" restarted_from "$pid" "$n"
	npid=$(prop MainPID)
	note "restarted $(since "$t0") s after the kill"
	kill -0 "$jpid" 2>/dev/null || fail "the job, pid $jpid, died"
	grep -q hold.release "/proc/$jpid/cmdline" ||
	    fail "pid $jpid is not the job any more"
	wait_for 30 "'adopted' in the journal" eval \
	    "jfind '$c' TICKD_RUN_ID='$id' MESSAGE_ID=$MSGID_ADOPTED | grep -q ."
	jfind "$c" TICKD_RUN_ID="$id" MESSAGE_ID=$MSGID_ADOPTED _PID="$npid" \
	    TICKD_PID="$jpid" |
	    grep -q '^MESSAGE=.*outlived the previous daemon: adopted' ||
	    fail "no 'outlived the previous daemon: adopted, pid $jpid'" \
	    "from the new daemon"
	st=$(tickctl show "$id" | awk '$1 == "status" { print $2 }')
	expect_eq "status of $id while adopted" "$st" running
	# With its cgroup: still in it, its limit written again after
	# ExecStopPost stopped passing the controllers down.
	expect_eq "the new daemon's cgroup" \
	    "$(sed -n 's/^0:://p' /proc/"$npid"/cgroup)" \
	    /system.slice/tickd.service/supervisor
	expect_eq "the adopted job's cgroup" \
	    "$(sed -n 's/^0:://p' /proc/"$jpid"/cgroup)" \
	    "/system.slice/tickd.service/$(echo "$id" | tr / _).1"
	expect_eq "its memory.max again" "$(cat "$cg/$(echo "$id" |
	    tr / _).1/memory.max")" 268435456
	touch "$dir/hold.release"
	wait_for 30 "the end of the adopted job" eval "[ ! -e /proc/$jpid ]"
	wait_for 30 "the end of $id recorded" eval "tickctl show '$id' |
	    awk '\$1 == \"status\" { print \$2 }' | grep -qvx running"
	tickctl show "$id"
	st=$(tickctl show "$id" | awk '$1 == "status" { print $2 }')
	expect_eq "status of $id after its end" "$st" unknown
	expect_eq "restarts during the end" "$(prop MainPID)" "$npid"
}

# --- running them -------------------------------------------------------------------

# One check, in this process (checks.sh --one NAME).
run_one() {
	CHECK=$1
	trap 'eval "$cleanups"' EXIT
	trap 'exit 124' TERM
	"check_$CHECK"
}

# The unit's state and the ends of the check's output and of the journal,
# on the console after a failure.
diagnose() {
	{
		echo "--- the check's output (its end)"
		tail -n 40 "$dir/$1.log"
		echo "--- systemctl status $unit"
		systemctl status "$unit" --no-pager -l -n 0 2>&1
		echo "--- journalctl -u $unit (its end)"
		journalctl -u "$unit" -n 40 --no-pager -o short-monotonic 2>&1
	} | sed "s/^/TICKD-DIAG $1 | /" >&3
}

main() {
	local name limit t0 rc why pass=0 failed=0 st
	exec 3>/dev/console
	mkdir -p "$dir"
	[ -s /usr/local/lib/tickd-checks/only ] &&
	    CHECKS=$(cat /usr/local/lib/tickd-checks/only)
	st=$(systemctl is-system-running --wait)
	echo "TICKD-CHECKS START system $st, uptime $(cut -d' ' -f1 \
	    /proc/uptime) s; $(systemd-analyze time 2>&1 | head -n 1)" >&3
	for name in $CHECKS; do
		limit=timeout_$name
		limit=${!limit:-${CHECK_TIMEOUT:-180}}
		t0=$(us)
		timeout -k 10 "$limit" "$0" --one "$name" >"$dir/$name.log" 2>&1
		rc=$?
		if [ "$rc" -eq 0 ]; then
			why=$(paste -s -d ';' "$dir/$name.note" 2>/dev/null |
			    sed 's/;/; /g')
			echo "TICKD-CHECK PASS $name $(since "$t0")s${why:+ ($why)}" >&3
			pass=$((pass + 1))
			continue
		fi
		why=$(head -n 1 "$dir/$name.why" 2>/dev/null)
		case $rc in
		124|137) why="timed out after ${limit}s${why:+ ($why)}" ;;
		*) why=${why:-exit status $rc} ;;
		esac
		echo "TICKD-CHECK FAIL $name $(since "$t0")s: $why" >&3
		failed=$((failed + 1))
		diagnose "$name"
	done
	echo "TICKD-CHECKS DONE $pass passed, $failed failed" >&3
	systemctl poweroff
}

if [ "${1:-}" = --one ]; then
	run_one "$2"
	exit
fi
main

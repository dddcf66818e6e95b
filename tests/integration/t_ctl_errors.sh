#!/bin/sh
# tickctl's errors: unknown jobs and commands, bad options and times
# (exit 2, one line), a daemon that is not running (exit 1, naming the
# socket), an unreadable store (exit 1), and the control socket's own
# defences: other users refused (by its mode, and by SO_PEERCRED),
# oversized, malformed and unknown requests; a second daemon configured
# with the same socket does not take it from the first.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }
soft_checks=1

write_job a.job <<'EOF'
[a]
schedule = @yearly
command = true
EOF

# expect_usage CMD...: exit 2, one line on stderr, nothing on stdout.
# expect_fail1 CMD...: the same with exit 1.
expect_rc_line() {
	_want=$1
	shift
	run_cmd ctl "$@"
	expect_eq "tickctl $*: exit" "$rc" "$_want"
	expect_eq "tickctl $*: stdout" "$out" ""
	expect_eq "tickctl $*: one line on stderr" "$(printf '%s\n' "$err" |
	    grep -c '^tickctl: ')/$(printf '%s\n' "$err" | wc -l)" 1/1
}
expect_usage() { expect_rc_line 2 "$@"; }
expect_fail1() { expect_rc_line 1 "$@"; }

# --- usage errors (no daemon needed) --------------------------------------------------
for c in "status nosuch" "next nosuch" "env nosuch" "run nosuch" \
    "pause nosuch" "resume nosuch"; do
	# shellcheck disable=SC2086
	expect_usage $c
	expect_match "tickctl $c: names the job" "$err" "*unknown job \"nosuch\"*"
done
expect_usage bogus
expect_eq "unknown command: message" "$err" \
    'tickctl: unknown command "bogus" (try tickctl --help)'
expect_usage --bogus list
expect_usage list --bogus
expect_eq "unknown option: message" "$err" \
    'tickctl: list: unknown option "--bogus" (see tickctl list --help)'
expect_usage list extra
expect_usage run
expect_usage run a extra
expect_usage replay
expect_usage replay --force x
expect_usage pause
expect_usage resume a --bogus
expect_usage reload now
expect_usage show
expect_usage show a b
expect_usage check --bogus
expect_usage history --limit x
expect_usage history --limit -1
expect_usage history --status weird
expect_usage history --since
expect_usage next a -n 0
expect_usage next
expect_usage next a --tz UTC
for t in yesterday 5q 2027-13-01T00:00:00Z 2027-01-01T00:00:00 "2027-01-01 25:00:00Z" ""; do
	expect_usage history --since "$t"
	expect_match "history --since \"$t\": says why" "$err" \
	    "tickctl: history: --since: *"
	expect_usage stats --since "$t"
	expect_usage metrics --since "$t"
	expect_usage next a --from "$t"
	expect_match "next --from \"$t\": says why" "$err" "tickctl: next: --from: *"
	expect_usage next --cron '* * * * *' --from "$t"
done
"$TICKCTL" -c "$dir/nonexistent.conf" list >/dev/null 2>"$dir/err"
expect_eq "a missing configuration: exit" "$?" 1
expect_match "a missing configuration: message" "$(cat "$dir/err")" \
    "tickctl: config $dir/nonexistent.conf is invalid*"

# --- the daemon is not running ----------------------------------------------------------
for c in "run a" "pause a" "resume a" "resume a --catch-up" reload "replay a@2027-01-01T00:00:00Z" "run --wait a"; do
	# shellcheck disable=SC2086
	expect_fail1 $c
	expect_eq "tickctl $c (no daemon): message" "$err" \
	    "tickctl: tickd is not running, or not reachable: $dir/ctl.sock: No such file or directory"
done
daemon_start
# history and stats also know jobs that are gone from the configuration
# but not from the store: they need the store to call a job unknown.
for c in "history nosuch" "stats nosuch"; do
	# shellcheck disable=SC2086
	expect_usage $c
	expect_match "tickctl $c: names the job" "$err" "*unknown job \"nosuch\"*"
done
# Killed: its socket stays behind, and nobody listens.
daemon_stop 10 KILL
expect_eq "a stale socket is left" "$(test -S "$dir/ctl.sock" && echo yes)" yes
expect_fail1 run a
expect_eq "tickctl run a (stale socket): message" "$err" \
    "tickctl: tickd is not running, or not reachable: $dir/ctl.sock: Connection refused"

# --- an unreadable store ------------------------------------------------------------------
# A directory where the state file should be, then a file that is not
# SQLite: every reading command says so, exit 1; list and status fall back
# to the configuration after a warning.
mkdir "$dir/statedir"
head -c 8192 /dev/urandom >"$dir/junk.db"
for state in statedir junk.db; do
	case $state in
	statedir) why="cannot open: not a regular file" ;;
	*) why="cannot read: file is not a database" ;;
	esac
	write_conf "state = $state"
	for c in history "show 1" stats "history a"; do
		# shellcheck disable=SC2086
		expect_fail1 $c
		expect_eq "tickctl $c ($state): message" "$err" \
		    "tickctl: state $dir/$state: $why"
	done
	run_cmd ctl list
	expect_eq "list ($state): exit" "$rc" 0
	expect_eq "list ($state): warning" "$err" \
	    "tickctl: list: state $dir/$state: $why: showing the configuration only"
	expect_match "list ($state): the job" "$out" "*
a *@yearly *UTC *idle *"
	run_cmd ctl check
	expect_eq "check ($state): exit" "$rc" 1
	expect_match "check ($state): finding" "$out" "CRITICAL: *
state $dir/$state: $why
jobs are tracked by *"
done
write_conf

# --- the control socket --------------------------------------------------------------------
daemon_start
expect_eq "the socket: mode 0600" "$(stat -c %a "$dir/ctl.sock")" 600
expect_eq "ping" "$(ctl_send 'ping\n')" "OK $tickd_pid"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	asnobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	chmod 755 "$dir"
	expect_eq "another user: refused by the socket's mode" \
	    "$(ctl_wrap=$asnobody ctl_send 'ping\n')" "connect: Permission denied"
	# Past the mode (as if it were 0666): refused by SO_PEERCRED.
	chmod 666 "$dir/ctl.sock"
	expect_eq "another user: refused by its credentials" \
	    "$(ctl_wrap=$asnobody ctl_send 'pause a\n')" "ERR permission denied"
	chmod 600 "$dir/ctl.sock"
	expect_eq "another user: nothing paused" "$(sql "SELECT count(*) FROM jobs
	    WHERE paused = 1")" 0
	wait_for "the refusal logged" 5 log_has \
	    "tickd: warning: control: refused a client (uid $(id -u nobody)): only root and uid 0 may steer tickd"
else
	echo "not root or no setpriv: other users not tried"
fi
expect_eq "a request of 5000 bytes without a newline" \
    "$(ctl_send "$("$python" -c 'print("x" * 5000, end="")')")" \
    "ERR request longer than 4096 bytes"
expect_eq "a request of 100000 bytes" \
    "$(ctl_send "$("$python" -c 'print("run a " * 16000, end="")')")" \
    "ERR request longer than 4096 bytes"
# tickctl itself with an oversized argument: the daemon's answer, not a
# connection reset (it reads what was left before closing).
run_cmd "$TICKCTL" -c "$dir/tickd.conf" replay "$("$python" -c 'print("x" * 4100, end="")')"
expect_match "tickctl replay with a 4100-byte id: the daemon's answer" "$rc|$err" \
    "1|tickctl: replay x*x: request longer than 4096 bytes"
expect_eq "a request line of 4095 bytes" \
    "$(ctl_send "ping$("$python" -c 'print(" " * 4091, end="")')\\n")" "OK $tickd_pid"
expect_eq "a request line of 4096 bytes (the limit)" \
    "$(ctl_send "ping$("$python" -c 'print(" " * 4092, end="")')\\n")" "OK $tickd_pid"
expect_eq "a request with a control character" "$(ctl_send 'run\x01a\n')" \
    "ERR malformed request"
expect_eq "a request with a NUL" "$(ctl_send 'ping\x00\n')" "ERR malformed request"
expect_eq "a request with an escape sequence" "$(ctl_send 'pause \x1b[2Ja\n')" \
    "ERR malformed request"
expect_eq "a request ending in CR LF" "$(ctl_send 'ping\r\n')" "OK $tickd_pid"
expect_eq "an unknown request" "$(ctl_send 'frobnicate\n')" \
    'ERR unknown or malformed request "frobnicate"'
expect_eq "a known word, wrong arguments" "$(ctl_send 'run a please\n')" \
    'ERR unknown or malformed request "run"'
expect_eq "an empty request" "$(ctl_send '\n')" "ERR empty request"
expect_eq "too many words" "$(ctl_send 'w w w w w w w w w w w w w w w w w\n')" \
    "ERR too many words in the request"
expect_eq "run of an unknown job (asked directly)" "$(ctl_send 'run nosuch\n')" \
    'ERR no job "nosuch"'
expect_fail1 replay nosuch@2027-01-01T00:00:00Z
expect_eq "replay of an unknown run: message" "$err" \
    "tickctl: replay nosuch@2027-01-01T00:00:00Z: nosuch@2027-01-01T00:00:00Z: no such run id"
expect_usage replay "a b"
expect_eq "the daemon still answers" "$(ctl_send 'ping\n')" "OK $tickd_pid"
expect_eq "no error logged by the daemon" "$(grep -c 'tickd: error:' "$log")" 0

# --- a second daemon with the same socket ------------------------------------------------
# Another tickd (its own state) started with the same control path must
# not take the socket from the running one (tickctl would then steer the
# wrong daemon's jobs): it refuses to start, saying why, and the first
# keeps answering.
first_pid=$tickd_pid
mkdir "$dir/other" "$dir/other/jobs.d"
cat >"$dir/other/tickd.conf" <<EOF
[daemon]
timezone = UTC
jobs_dir = jobs.d
state = state/tickd.db
control = $dir/ctl.sock
EOF
chmod 644 "$dir/other/tickd.conf"
rc=0
timeout 20 "$TICKD" -c "$dir/other/tickd.conf" --log-target=stderr \
    2>"$dir/other.log" || rc=$?
expect_eq "two daemons, one socket: the second exits 1" "$rc" 1
expect_eq "two daemons, one socket: the second says why" \
    "$(grep 'tickd: error:' "$dir/other.log")" \
    "tickd: error: control $dir/ctl.sock: in use by another process (another tickd with the same control path?): not starting"
expect_eq "two daemons, one socket: the second ran no job" \
    "$(grep -c 'ready:' "$dir/other.log")" 0
expect_eq "two daemons, one socket: the first still answers" \
    "$(ctl_send 'ping\n')" "OK $first_pid"
run_cmd ctl pause a
expect_eq "two daemons, one socket: tickctl pause a reaches the first" \
    "$rc $out" "0 a paused"
daemon_stop_ok
done_ok

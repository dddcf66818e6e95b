#!/bin/sh
# systemd notifications (NOTIFY_SOCKET): READY=1 and a STATUS= line once
# ready, RELOADING=1 then READY=1 around a reload, WATCHDOG=1 when
# WATCHDOG_USEC is set, STOPPING=1 on SIGTERM.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }

# A datagram listener: each message on its own line.
cat >"$dir/listen.py" <<'EOF2'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as f:
    while True:
        f.write(s.recv(65536).decode(errors="replace") + "\n")
EOF2
"$python" "$dir/listen.py" "$dir/notify.sock" "$dir/notify.out" &
listener=$!
wait_for "the listener's socket" 10 test -S "$dir/notify.sock"

write_job tick.job <<'EOF2'
[tick]
schedule = every 1h
command = true
EOF2
# messages: what tickd sent so far, watchdog pings left out.
messages() { grep -v '^WATCHDOG=1$' "$dir/notify.out" 2>/dev/null; }

daemon_start NOTIFY_SOCKET="$dir/notify.sock" WATCHDOG_USEC=400000
wait_for "READY=1" 10 eval 'messages | grep -qx "READY=1"'
expect_eq "the first message" "$(head -n 1 "$dir/notify.out")" "READY=1"
expect_eq "the job is planned when ready" \
    "$(sql "SELECT count(*) FROM jobs WHERE job = 'tick' AND planned > 0")" 1
wait_for "STATUS=" 10 eval 'messages | grep -q "^STATUS="'
expect_match "STATUS line" "$(messages | grep '^STATUS=' | head -n 1)" \
    "STATUS=1 jobs, 0 running, next: tick at ????-??-??T??:00:00Z"
# Pings every WATCHDOG_USEC / 2.
wait_for "3 watchdog pings" 10 eval '[ "$(grep -cx WATCHDOG=1 "$dir/notify.out")" -ge 3 ]'

kill -HUP "$tickd_pid"
wait_for "the second READY=1" 10 eval '[ "$(messages | grep -cx READY=1)" -ge 2 ]'
wait_for "the second STATUS=" 10 eval '[ "$(messages | grep -c "^STATUS=")" -ge 2 ]'
daemon_stop_ok
wait_for "STOPPING=1" 5 eval 'messages | grep -qx STOPPING=1'
expect_eq "the sequence" "$(messages | sed 's/^STATUS=.*/STATUS=/' | tr '\n' ' ')" \
    "READY=1 STATUS= RELOADING=1 READY=1 STATUS= STOPPING=1 "
kill "$listener"
done_ok

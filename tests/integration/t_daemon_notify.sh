#!/bin/sh
# systemd notifications (NOTIFY_SOCKET): READY=1 and a STATUS= line once
# ready, STATUS= saying the store is unavailable while it is (and back),
# RELOADING=1 then READY=1 around a reload, WATCHDOG=1 when
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

# Store trouble shows in STATUS= until the store works again: another
# process holds the write lock while tickctl pause asks for a write.
cat >"$dir/lock.py" <<'EOF2'
import sqlite3, sys, os, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    time.sleep(0.02)
c.execute("COMMIT")
EOF2
"$python" "$dir/lock.py" "$db" "$dir/locked" "$dir/unlock" &
locker=$!
wait_for "the write lock" 10 test -e "$dir/locked"
run_cmd ctl pause tick
expect_eq "pause while locked: refused" "$rc" 1
wait_for "STATUS= store unavailable" 10 eval 'messages | grep -q "^STATUS=store unavailable"'
expect_match "STATUS line, store unavailable" \
    "$(messages | grep '^STATUS=store' | head -n 1)" \
    "STATUS=store unavailable since ????-??-??T??:??:??Z: runs are delayed (*locked*); 1 jobs, 0 running"
touch "$dir/unlock"
wait "$locker"
run_cmd ctl pause tick
expect_eq "pause once unlocked" "$rc" 0
wait_for "STATUS= back to normal" 10 eval '[ "$(messages | grep "^STATUS=" | tail -n 1 |
    cut -c 1-14)" = "STATUS=1 jobs," ]'
kill -HUP "$tickd_pid"
wait_for "the second READY=1" 10 eval '[ "$(messages | grep -cx READY=1)" -ge 2 ]'
wait_for "the second STATUS=" 10 eval '[ "$(messages | grep -c "^STATUS=")" -ge 2 ]'
daemon_stop_ok
wait_for "STOPPING=1" 5 eval 'messages | grep -qx STOPPING=1'
expect_eq "the sequence" "$(messages | sed 's/^STATUS=.*/STATUS=/' | tr '\n' ' ')" \
    "READY=1 STATUS= STATUS= STATUS= RELOADING=1 READY=1 STATUS= STOPPING=1 "
kill "$listener"
done_ok

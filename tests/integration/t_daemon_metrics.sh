#!/bin/sh
# [daemon] metrics_listen: GET /metrics from the daemon, on its loop.
# The families the daemon writes from its memory are the lines tickctl
# metrics writes from the store for the same jobs (one writer,
# metrics.c), last success included; other paths are 404, other methods
# 405; idle and surplus clients neither block a scrape nor the jobs;
# a reload rebinds, a busy port is an error the daemon survives; a bad
# address is a precise error in tickd -n.
. tests/integration/lib.sh
setup
python=$(command -v python3) || fail "python3 is required"

# free_port: a TCP port of 127.0.0.1 nobody listens on now.
free_port() {
	"$python" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# http METHOD PATH [PORT]: "STATUS" on the first line, then "Content-Type:
# VALUE" and "Allow: VALUE" lines, then the body, in $dir/http.out;
# "refused" when nothing listens.
http() {
	"$python" - "$1" "$2" "${3:-$port}" >"$dir/http.out" <<'PY'
import http.client, sys
m, path, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request(m, path)
    r = c.getresponse()
except ConnectionRefusedError:
    print("refused"); sys.exit(0)
print(r.status)
print("Content-Type:", r.getheader("Content-Type"))
print("Allow:", r.getheader("Allow"))
sys.stdout.write(r.read().decode())
PY
}
status() { head -n 1 "$dir/http.out"; }
body() { tail -n +4 "$dir/http.out"; }

# Jobs: one that ran, one that never runs this hour, one disabled, one
# invalid.
write_job once.job <<'EOF2'
[once]
schedule = every 1h
command = true
EOF2
write_job tick.job <<'EOF2'
[tick]
schedule = every 1s
command = echo x >> @DIR@/ticks
EOF2
write_job off.job <<'EOF2'
[off]
schedule = every 1s
command = true
enabled = no
EOF2
write_job broken.job <<'EOF2'
[broken]
schedule = 61 * * * *
command = true
EOF2

# A port taken between free_port and the bind: another, by reload.
port=$(free_port)
write_conf "metrics_listen = $port" "log_level = debug"
daemon_start
tries=0
while ! log_has "metrics: serving GET /metrics at 127.0.0.1:$port"; do
	tries=$((tries + 1))
	[ "$tries" -lt 5 ] || fail "no port could be bound: $(tail -n 3 "$log")"
	port=$(free_port)
	write_conf "metrics_listen = $port" "log_level = debug"
	kill -HUP "$tickd_pid"
	wait_for "the reload" 10 eval 'log_has "metrics_listen $port:" ||
	    log_has "metrics: serving GET /metrics at 127.0.0.1:$port"'
done

# --- content ------------------------------------------------------------
run_cmd ctl run once --wait
expect_eq "once ran" "$rc" 0
wait_for "tick runs" 10 test -s "$dir/ticks"
http GET /metrics
expect_eq "GET /metrics" "$(status)" 200
expect_eq "content type" "$(sed -n 2p "$dir/http.out")" \
    "Content-Type: text/plain; version=0.0.4; charset=utf-8"
body >"$dir/daemon.txt"
for line in 'tickd_up 1' 'tickd_state_readable 1' \
    'tickd_jobs{state="disabled"} 1' 'tickd_jobs{state="error"} 1' \
    'tickd_job_state{job="broken",state="error"} 1' \
    'tickd_job_state{job="off",state="disabled"} 1' \
    'tickd_job_state{job="once",state="idle"} 1' \
    '# TYPE tickd_last_success_timestamp_seconds gauge'; do
	expect_eq "daemon: $line" "$(grep -cxF "$line" "$dir/daemon.txt")" 1
done
# The store's figures stay with tickctl metrics.
expect_eq "daemon: no tickd_runs_total" \
    "$(grep -c '^tickd_runs_total' "$dir/daemon.txt")" 0
# The last success is the store's (finished_at of the succeeded run).
ms=$(sql "SELECT max(finished_at) FROM runs WHERE job = 'once' AND
    status = 'succeeded'")
want=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
expect_eq "daemon: once's last success is the store's" "$(grep \
    '^tickd_last_success_timestamp_seconds{job="once"}' "$dir/daemon.txt")" \
    "tickd_last_success_timestamp_seconds{job=\"once\"} $want"
# The next instant: the next whole hour, as tickctl plans it.
hour=$(( ($(now) / 3600 + 1) * 3600 ))
expect_eq "daemon: once's next run" "$(grep \
    '^tickd_next_run_timestamp_seconds{job="once"}' "$dir/daemon.txt")" \
    "tickd_next_run_timestamp_seconds{job=\"once\"} $hour"
# Same writer: the stable jobs' lines are tickctl metrics' lines.
ctl metrics >"$dir/ctl.txt"
stable='job="\(once\|off\|broken\)"\|^# \|^tickd_up \|tickd_jobs{state="\(disabled\|error\)"'
store='^\(# [A-Z]* \)\{0,1\}tickd_\(runs\|shards\|skipped\|failed\|node\|lateness\|duration\|cpu\|memory\)'
for f in daemon ctl; do
	grep "$stable" "$dir/$f.txt" | grep -v "$store" |
	    grep -v '^# HELP tickd_state_readable' >"$dir/$f.stable"
done
expect_eq "daemon and tickctl write the same lines" \
    "$(diff "$dir/ctl.stable" "$dir/daemon.stable" && echo same)" same
expect_eq "the lines compared" "$(grep -c 'job="once"' "$dir/daemon.stable")" 9

# Paused: the state the daemon holds, in a body at most a second old.
run_cmd ctl pause once
wait_for "once paused in /metrics" 3 eval 'http GET /metrics &&
    body | grep -qxF '"'"'tickd_job_state{job="once",state="paused"} 1'"'"
expect_eq "daemon: a paused job has no next run" "$(body | grep -c \
    '^tickd_next_run_timestamp_seconds{job="once"}')" 0

# Clients scraping in a loop: one body a second, whatever their number.
made=$(log_count " jobs written in ")
t0=$(now)
"$python" - "$port" <<'PY'
import http.client, sys, time
end = time.time() + 2
while time.time() < end:
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
    c.request("GET", "/metrics")
    c.getresponse().read()
    c.close()
PY
made=$(( $(log_count " jobs written in ") - made ))
[ "$made" -ge 1 ] && [ "$made" -le $(( $(now) - t0 + 1 )) ] ||
    fail "2 s of scrapes made $made bodies"

# --- answers --------------------------------------------------------------
http HEAD /metrics
expect_eq "HEAD /metrics" "$(status)" 200
expect_eq "HEAD: no body" "$(body)" ""
http GET /
expect_eq "GET /" "$(status)" 404
http GET /metrics/x
expect_eq "GET /metrics/x" "$(status)" 404
http POST /metrics
expect_eq "POST /metrics" "$(status)" 405
expect_eq "POST: Allow" "$(sed -n 3p "$dir/http.out")" "Allow: GET, HEAD"
http DELETE /
expect_eq "DELETE /" "$(status)" 405

# --- hostile clients ------------------------------------------------------
# 40 connections that send nothing, then a half request line, held open:
# beyond the limit of 16; the jobs go on, and once they are gone a scrape
# is answered.  5 idle ones do not block a scrape.
"$python" - "$port" "$dir" <<'PY' &
import socket, sys, time, os
port, d = int(sys.argv[1]), sys.argv[2]
def conns(n):
    out = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        out.append(s)
    return out
few = conns(5)
few[0].sendall(b"GET /metr")
open(os.path.join(d, "idle.5"), "w").close()
while not os.path.exists(os.path.join(d, "idle.next")):
    time.sleep(0.05)
many = []
try:
    many = conns(40)
except OSError:
    pass
open(os.path.join(d, "idle.40"), "w").close()
while not os.path.exists(os.path.join(d, "idle.done")):
    time.sleep(0.05)
for s in few + many:
    s.close()
PY
idle_pid=$!
wait_for "5 idle clients" 10 test -e "$dir/idle.5"
http GET /metrics
expect_eq "a scrape beside 5 idle clients" "$(status)" 200
touch "$dir/idle.next"
wait_for "40 more clients" 10 test -e "$dir/idle.40"
n=$(lines "$dir/ticks")
wait_for "tick runs while the clients wait" 10 \
    eval '[ "$(lines "$dir/ticks")" -ge $((n + 1)) ]'
pid_alive "$tickd_pid" || fail "tickd died"
touch "$dir/idle.done"
wait "$idle_pid"
wait_for "a scrape once they are gone" 10 eval \
    'http GET /metrics && [ "$(status)" = 200 ]'

# --- reload ---------------------------------------------------------------
old=$port
port=$(free_port)
write_conf "metrics_listen = 127.0.0.1:$port" "log_level = debug"
kill -HUP "$tickd_pid"
wait_for "the rebind" 10 log_has "metrics: serving GET /metrics at 127.0.0.1:$port"
http GET /metrics
expect_eq "the new address serves" "$(status)" 200
http GET /metrics "$old"
expect_eq "the old one is closed" "$(status)" refused

# A port another process holds: an error; the daemon and its jobs go on.
"$python" -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$dir/busy" &
busy_pid=$!
wait_for "the busy port" 10 test -s "$dir/busy"
busy=$(cat "$dir/busy")
write_conf "metrics_listen = 127.0.0.1:$busy"
kill -HUP "$tickd_pid"
wait_for "the bind error" 10 log_has \
    "error: metrics_listen 127.0.0.1:$busy: 127.0.0.1:$busy: bind: Address already in use: /metrics is not served"
kill "$busy_pid"
wait "$busy_pid" 2>/dev/null
n=$(lines "$dir/ticks")
wait_for "tick runs after the failed bind" 10 \
    eval '[ "$(lines "$dir/ticks")" -ge $((n + 1)) ]'
# Unchanged, but not served: a reload tries again.
kill -HUP "$tickd_pid"
wait_for "the retry" 10 log_has "metrics: serving GET /metrics at 127.0.0.1:$busy"
daemon_stop_ok

# --- tickd -n -------------------------------------------------------------
write_conf "metrics_listen = 0.0.0.0"
line=$(grep -n '^metrics_listen' "$dir/tickd.conf" | cut -d: -f1)
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "tickd -n: exit" "$rc" 78
expect_eq "tickd -n: the error" "$(printf '%s\n' "$err" | grep metrics_listen)" \
    "$dir/tickd.conf:$line: metrics_listen: \"0.0.0.0\" is neither a port nor ADDRESS:PORT (forms: 9464, :9464, 127.0.0.1:9464, 0.0.0.0:9464, [::1]:9464)"
write_conf "metrics_listen = myhost:9464"
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "tickd -n: a host name" "$(printf '%s\n' "$err" | grep metrics_listen)" \
    "$dir/tickd.conf:$line: metrics_listen: \"myhost\" is not an IPv4 address, [IPv6 address] or localhost (host names are not resolved)"
done_ok

#!/bin/sh
# tickctl's side of batches (issue 18), against a state database the test
# fills itself (the schema from a daemon start, then rows by sqlite3, the
# daemon stopped): a failed batch instance with 16 shards (3 and 7
# failed), a running one (9 succeeded, 4 running, 1 failed, 2 queued), a
# plain run.  Shard rows are never instances (history, list, stats,
# metrics' tickd_runs_total); history says what a batch's shards did
# ("failed: 2 of 16 shards") and --json counts them; show lists every
# shard (bounded parameter and checkpoint, escaped) and a shard says whose
# it is; status shows a running batch's progress; metrics counts shards;
# replay --shard sends the shard's run id and refuses a non-integer; run
# --wait shows a batch's progress as plain lines when the counts change
# and exits 1 for a failed batch.  The control socket is a fake daemon (a
# Python listener) that records the request and answers OK.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }
soft_checks=1

write_job batch.job <<'EOF'
[batch]
schedule = 0 3 1 1 *
command = true
EOF
write_job plain.job <<'EOF'
[plain]
schedule = 0 3 1 1 *
command = true
EOF
daemon_start
daemon_stop_ok
expect_eq "schema" "$(sql 'PRAGMA user_version')" 8

now_s=$(now)
now_ms=$((now_s * 1000))
T1=$((now_s / 3600 * 3600 - 86400))	# the failed batch, yesterday
T2=$((now_s - 70))			# the running one
T0=$((T1 - 86400))			# a plain run
R1=batch@$(date -u -d "@$T1" +%Y-%m-%dT%H:%M:%SZ)
R0=plain@$(date -u -d "@$T0" +%Y-%m-%dT%H:%M:%SZ)
R2=batch@$(date -u -d "@$T2" +%Y-%m-%dT%H:%M:%SZ)
fin1=$(((T1 + 600) * 1000))

# ins ID RUN_ID SCHED ORIGIN STATUS REASON ATTEMPTS PARENT SHARD SHARDS
#     CREATED STARTED FINISHED EXIT: one row of runs (NULL as "NULL";
#     strings already quoted).
ins() {
	printf "INSERT INTO runs (id, run_id, job, scheduled_at, origin, trigger,
	    status, reason, attempts, parent, shard, shards, created_at,
	    started_at, finished_at, exit_status) VALUES (%s, '%s', '%s', %s,
	    '%s', 'schedule', '%s', %s, %s, %s, %s, %s, %s, %s, %s, %s);\n" \
	    "$@"
}
{
	echo "BEGIN;"
	ins 1 "$R0" plain $T0 schedule succeeded NULL 1 \
	    NULL NULL NULL $((T0 * 1000)) $((T0 * 1000)) $((T0 * 1000 + 500)) 0
	# The failed batch: shards 3 and 7 failed, the others succeeded.
	list=$(seq -s '|' 0 15 | sed "s/|/' || char(10) || '/g")
	ins 100 "$R1" batch $T1 schedule failed "'shards'" 0 NULL NULL \
	    "'$list'" $((T1 * 1000)) $((T1 * 1000)) $fin1 NULL
	for i in $(seq 0 15); do
		st=succeeded ex=0 at=1
		case $i in 3 | 7) st=failed ex=75 at=3 ;; esac
		ins $((101 + i)) "$R1#$i" batch $T1 "schedule#$i" $st NULL $at \
		    100 $i "'tenant-$i'" $((T1 * 1000)) $((T1 * 1000)) \
		    $((fin1 - 1000 + i)) $ex
		echo "INSERT INTO attempts (run, attempt, trigger, pid,
		    started_at, finished_at, exit_status, outcome) VALUES
		    ($((101 + i)), $at, 'schedule', $((5000 + i)),
		    $((T1 * 1000)), $((fin1 - 1000 + i)), $ex, '$st');"
	done
	# A long parameter; checkpoints: two lines, a control byte, 100 bytes.
	echo "UPDATE runs SET shards = 'a-very-long-tenant-name-that-goes-on'
	    WHERE id = 101;"
	echo "UPDATE runs SET checkpoint = CAST('cursor=1234' || char(10) ||
	    'second line' AS BLOB) WHERE id = 104;"
	echo "UPDATE runs SET checkpoint = X'6F66667365743D0142' WHERE id = 108;"
	echo "UPDATE runs SET checkpoint = CAST(printf('%.100c', 'x') AS BLOB)
	    WHERE id = 102;"
	# The running batch: its shards ended after the failed batch did, so
	# that a shard counted as an instance would be the job's last run.
	ins 200 "$R2" batch $T2 schedule running NULL 0 NULL NULL "'$list'" \
	    $((T2 * 1000)) $((now_ms - 63000)) NULL NULL
	for i in $(seq 0 15); do
		fin=NULL ex=NULL
		if [ $i -lt 9 ]; then st=succeeded fin=$((now_ms - 5000)) ex=0
		elif [ $i -lt 13 ]; then st=running
		elif [ $i -lt 14 ]; then st=dead fin=$((now_ms - 4000)) ex=1
		else st=queued
		fi
		ins $((201 + i)) "$R2#$i" batch $T2 "schedule#$i" $st NULL 1 200 \
		    $i "'$i'" $((T2 * 1000)) $((now_ms - 60000)) $fin $ex
	done
	echo "COMMIT;"
} >"$dir/rows.sql"
sqlite3 -batch "$db" <"$dir/rows.sql" || fail "inserting the rows"
expect_eq "rows" "$(sql 'SELECT count(*) FROM runs')" 35

# --- history ------------------------------------------------------------------
run_cmd ctl history batch
expect_eq "history batch: exit" "$rc" 0
expect_eq "history batch: entries" "$(printf '%s\n' "$out" | sed 1d | wc -l)" 2
expect_match "history batch: failed" "$(printf '%s\n' "$out" | grep -F "$R1 ")" \
    "*failed: 2 of 16 shards *"
expect_match "history batch: running" "$(printf '%s\n' "$out" | grep -F "$R2 ")" \
    "*running: 9 of 16 shards done *"
run_cmd ctl --json history batch
printf '%s\n' "$out" | expect_json "history --json" run_id status shards
expect_eq "history --json: shards" "$(printf '%s\n' "$out" | jpy '[json.dumps(x["shards"], sort_keys=True) for x in L]')" \
    '{"failed": 1, "running": 4, "succeeded": 9, "total": 16, "waiting": 2}
{"failed": 2, "running": 0, "succeeded": 14, "total": 16, "waiting": 0}'
run_cmd ctl --json history
expect_eq "history (all): instances" "$(printf '%s\n' "$out" | jpy '[x["run_id"] for x in L]')" \
    "$R2
$R1
$R0"
expect_eq "history --json plain: no shards" "$(printf '%s\n' "$out" | jpy '"shards" in L[2]')" false
run_cmd ctl history --status succeeded
expect_eq "history --status succeeded" "$(printf '%s\n' "$out" | sed 1d | wc -l)" 1

# --- show ---------------------------------------------------------------------
run_cmd ctl show "$R1"
expect_eq "show: exit" "$rc" 0
expect_match "show: status" "$(printf '%s\n' "$out" | grep '^status')" \
    "status *failed: 2 of 16 shards"
expect_match "show: counts" "$out" "*
shards: 16 shards: 14 done, 0 running, 2 failed, 0 waiting
*"
expect_eq "show: shard lines" "$(printf '%s\n' "$out" | grep -c '^  [0-9]')" 16
expect_match "show: shard 3" "$(printf '%s\n' "$out" | grep '^  3 ')" \
    "  3 *tenant-3 *failed *3 *- *exit 75 *cursor=1234"
expect_match "show: shard 7 escaped" "$(printf '%s\n' "$out" | grep '^  7 ')" \
    '*offset=\\x01B'
expect_match "show: shard 0 bounded" "$(printf '%s\n' "$out" | grep '^  0 ')" \
    "  0 *a-very-long-tenant-na... *succeeded*"
expect_match "show: checkpoint bounded" "$(printf '%s\n' "$out" | grep '^  1 ')" \
    "*succeeded*$(printf '%.57s' xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)..."
run_cmd ctl --json show "$R1"
expect_eq "show --json: shards" "$(printf '%s\n' "$out" | jpy 'len(o["shards"])')" 16
expect_eq "show --json: shard 3" "$(printf '%s\n' "$out" | jpy 'json.dumps(o["shards"][3], sort_keys=True)')" \
    '{"attempts": 3, "checkpoint": "cursor=1234", "exit_status": 75, "index": 3, "owner": null, "param": "tenant-3", "pid": null, "reason": null, "run_id": "'"$R1"'#3", "signal": null, "status": "failed"}'
expect_eq "show --json: counts" "$(printf '%s\n' "$out" | jpy 'o["shard_counts"]["failed"]')" 2
run_cmd ctl show "$R1#3"
expect_eq "show shard: exit" "$rc" 0
expect_match "show shard: whose" "$(printf '%s\n' "$out" | grep '^shard of')" \
    "shard of *$R1 (shard 3)"
expect_match "show shard: status" "$(printf '%s\n' "$out" | grep '^status')" \
    "status *failed"
run_cmd ctl --json show "$R1#3"
expect_eq "show --json shard" "$(printf '%s\n' "$out" | jpy '[o["shard_of"], o["shard"]]')" \
    "$R1
3"
run_cmd ctl show "$R2"
expect_match "show running: shard 9" "$(printf '%s\n' "$out" | grep '^  9 ')" \
    "  9 *9 *running *1 *- *-*"

# --- status, list, stats, metrics -----------------------------------------------
run_cmd ctl status batch
expect_eq "status batch: exit" "$rc" 0
expect_match "status batch: progress" "$out" "*
  batch $(date -u -d "@$T2" +%Y-%m-%dT%H:%M:%SZ): 16 shards: 9 done, 4 running, 1 failed, 2 waiting, 1m[0-5][0-9]s elapsed*"
expect_match "status batch: last" "$(printf '%s\n' "$out" | grep '^last   ')" \
    "last *failed (shards) *ago ($R1)"
# 23 shards succeeded, no instance did.
expect_match "status batch: last success" "$(printf '%s\n' "$out" | grep '^last success')" \
    "last success *never"
expect_eq "status batch: in flight" "$(printf '%s\n' "$out" | grep -c "^  $R2 *running ")" 1
run_cmd ctl --json status batch
expect_eq "status --json: current" "$(printf '%s\n' "$out" | jpy '[len(o["current"]), o["current"][0]["shards"]["running"], o["current"][0]["shards"]["waiting"]]')" \
    "1
4
2"
run_cmd ctl --json list
expect_eq "list: last run of batch" "$(printf '%s\n' "$out" | jpy '[x["last_run_id"] for x in L if x["job"] == "batch"]')" "$R1"
run_cmd ctl --json stats batch
expect_eq "stats batch: instances" "$(printf '%s\n' "$out" | jpy '[o["instances"], o["failed"], o["succeeded"]]')" \
    "2
1
0"
run_cmd ctl metrics
expect_eq "metrics: exit" "$rc" 0
expect_eq "metrics: runs of batch" "$(printf '%s\n' "$out" | grep '^tickd_runs_total{job="batch"')" \
    'tickd_runs_total{job="batch",status="failed"} 1
tickd_runs_total{job="batch",status="running"} 1'
expect_eq "metrics: shards" "$(printf '%s\n' "$out" | grep '^tickd_shards_total')" \
    'tickd_shards_total{job="batch",status="dead"} 1
tickd_shards_total{job="batch",status="failed"} 2
tickd_shards_total{job="batch",status="queued"} 2
tickd_shards_total{job="batch",status="running"} 4
tickd_shards_total{job="batch",status="succeeded"} 23'
expect_eq "metrics: shards HELP/TYPE" "$(printf '%s\n' "$out" | grep -c '^# [A-Z]* tickd_shards_total ')" 2
expect_eq "metrics: failed" "$(printf '%s\n' "$out" | grep '^tickd_failed_total{job="batch"')" \
    'tickd_failed_total{job="batch",reason="shards"} 1'

# --- replay --shard, run --wait against a fake daemon ------------------------------
# fake_daemon REPLY: answer one request on $dir/ctl.sock with REPLY, the
# request in $dir/request.
fake_daemon() {
	rm -f "$dir/ctl.sock" "$dir/request"
	"$python" - "$dir/ctl.sock" "$dir/request" "$1" <<'EOF_FAKE' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(1)
s.settimeout(20)
c, _ = s.accept()
data = b""
while not data.endswith(b"\n"):
	b = c.recv(4096)
	if not b:
		break
	data += b
open(sys.argv[2], "wb").write(data)
c.sendall(sys.argv[3].encode() + b"\n")
c.close()
EOF_FAKE
	fake_pid=$!
	wait_for "the fake daemon" 10 test -S "$dir/ctl.sock"
}

run_cmd ctl replay "$R1" --shard x
expect_eq "replay --shard x: exit" "$rc" 2
expect_match "replay --shard x: message" "$err" "*--shard: \"x\" is not a shard index*"
run_cmd ctl replay "$R1" --shard -1
expect_eq "replay --shard -1: exit" "$rc" 2
run_cmd ctl replay "$R1#3" --shard 3
expect_eq "replay RUN#3 --shard: exit" "$rc" 2
fake_daemon "OK $R1"
run_cmd ctl replay "$R1" --shard 3
wait "$fake_pid"
expect_eq "replay --shard 3: exit" "$rc" 0
expect_eq "replay --shard 3: request" "$(cat "$dir/request")" "replay $R1#3"

# run --wait: the counts change after a second, then the batch fails.
cp "$db" "$dir/before.db"
fake_daemon "OK $R2"
(
	# From the request on: tickctl shows the first counts at once.
	until [ -s "$dir/request" ]; do sleep 0.05; done
	sleep 1.5
	sql "UPDATE runs SET status = 'succeeded', finished_at = $now_ms
	    WHERE id IN (210, 211)"
	sleep 1.5
	# The shards and their instance end together, as the daemon
	# writes them: no count of ended shards shows before the end.
	sql "BEGIN; UPDATE runs SET status = 'failed', finished_at = $now_ms
	    WHERE parent = 200 AND status != 'succeeded';
	    UPDATE runs SET status = 'failed', reason = 'shards',
	    finished_at = $now_ms WHERE id = 200; COMMIT"
) &
upd_pid=$!
run_cmd ctl run batch --wait
wait "$fake_pid"
wait "$upd_pid"
expect_eq "run --wait: exit" "$rc" 1
expect_eq "run --wait: request" "$(cat "$dir/request")" "run batch"
expect_eq "run --wait: stdout" "$out" "$R2"
expect_eq "run --wait: progress" "$err" \
    "16 shards: 9 done, 4 running, 1 failed, 2 waiting
16 shards: 11 done, 2 running, 1 failed, 2 waiting
$R2: failed, shards"

# On a terminal: one line rewritten in place, then a newline before the end.
rm -f "$db-wal" "$db-shm"
cp "$dir/before.db" "$db" || fail "resetting the running batch"
expect_eq "reset: running batch" "$(sql "SELECT status FROM runs WHERE id = 200")" running
fake_daemon "OK $R2"
(
	until [ -s "$dir/request" ]; do sleep 0.05; done
	sleep 2.5
	sql "UPDATE runs SET status = 'failed', reason = 'shards',
	    finished_at = $now_ms WHERE id = 200"
) &
upd_pid=$!
"$python" - "$TICKCTL" "$dir/tickd.conf" >"$dir/tty.out" <<'EOF_TTY'
import os, pty, subprocess, sys
m, s = pty.openpty()
p = subprocess.Popen(["timeout", "20", sys.argv[1], "-c", sys.argv[2], "run", "--wait",
    "batch"], stdout=subprocess.PIPE, stderr=s)
os.close(s)
err = b""
while True:
	try:
		b = os.read(m, 4096)
	except OSError:
		break
	if not b:
		break
	err += b
out = p.stdout.read()
print(p.wait())
print(err.decode().replace("\r", "<CR>").replace("\n", "<NL>"))
EOF_TTY
wait "$fake_pid"
wait "$upd_pid"
expect_eq "run --wait (terminal): exit" "$(sed -n 1p "$dir/tty.out")" 1
tty_err=$(sed -n 2p "$dir/tty.out")
# Rewrites a second apart, each "\r" then the line (its newline a \r\n on a terminal).
expect_match "run --wait (terminal): live line" "$tty_err" \
    "<CR>16 shards: 9 done, 4 running, 1 failed, 2 waiting, 1m[0-5][0-9]s<CR>16 shards: 9 done, 4 running, 1 failed, 2 waiting, 1m[0-5][0-9]s*[0-9]s<CR><NL>$R2: failed, shards<CR><NL>"
n=$(printf '%s' "$tty_err" | grep -o '<CR>16 shards' | wc -l)
expect_eq "run --wait (terminal): 2 to 4 rewrites in 2.5 s" \
    "$([ "$n" -ge 2 ] && [ "$n" -le 4 ] && echo yes)" yes

done_ok

#!/bin/sh
# A server so slow that every statement takes most of the store's
# deadline (a proxy adds 300 ms each way; a claim's transaction is then
# several seconds of waiting inside one loop callback) must not hold up
# the loop's urgent work (server-wait.c): the systemd watchdog is pinged
# on time (no gap of WATCHDOG_USEC, after which systemd would kill
# tickd), a job's timeout stops it on time, and a job that writes more
# than a pipe holds is read meanwhile, not stopped until the store
# answers.  Before server-wait.c: a watchdog gap of 3979 ms, the timeout
# 1541 ms late, the chatty job had written 1945 of its 3000 lines after
# 20 s; with it: 752 ms (the ping interval), -8 ms, 18 ms.
. tests/integration/lib.sh
. tests/pg.sh
setup
pg_start

notify_listen "$dir/notify.sock" "$dir/notify.out"

write_job tmo.job <<EOF
[tmo]
schedule = @yearly
timeout = 4s
command = echo "start \$(date +%s%3N)" >> @DIR@/tmo.out; trap 'echo "term \$(date +%s%3N)" >> @DIR@/tmo.out; exit 143' TERM; sleep 60 & wait
EOF
# 3000 lines of 100 bytes, 2 s after its start (once the link is slow).
write_job chat.job <<EOF
[chat]
schedule = @yearly
command = echo "start \$(date +%s%3N)" >> @DIR@/chat.out; sleep 2; echo "write \$(date +%s%3N)" >> @DIR@/chat.out; i=0; while [ \$i -lt 3000 ]; do echo "line \$i ........................................................................................."; i=\$((i + 1)); done; echo "done \$(date +%s%3N)" >> @DIR@/chat.out
EOF
for j in s1 s2 s3 s4; do
	write_job $j.job <<EOF
[$j]
schedule = * * * * * *
command = true
EOF
done
proxy_start n1
export NOTIFY_SOCKET="$dir/notify.sock" WATCHDOG_USEC=1500000
pg_node n1 "$(proxy_dsn n1)" 10s
unset NOTIFY_SOCKET WATCHDOG_USEC
wait_for "n1 ready" 20 grep -q "ready:" "$dir/n1.log"
for j in tmo chat; do
	"$TICKCTL" -c "$dir/n1.conf" run $j >/dev/null || fail "tickctl run $j"
done
wait_for "tmo's start" 15 grep -qs "^start" "$dir/tmo.out"
wait_for "chat's start" 5 grep -qs "^start" "$dir/chat.out"
proxy_delay n1 300
slow_from=$(now_ms)
wait_for "tmo's timeout" 20 grep -qs "^term" "$dir/tmo.out"
wait_for "chat's end" 30 grep -qs "^done" "$dir/chat.out"
# Slow for a few more seconds: claims go on, the watchdog must go on.
wait_for "3 s more of the slow link" 10 eval \
    '[ $(($(now_ms) - slow_from)) -ge 9000 ]'
slow_until=$(now_ms)
proxy_delay n1 0

late=$(awk '$1 == "start" {s = $2} $1 == "term" {print $2 - s - 4000}' \
    "$dir/tmo.out")
took=$(awk '$1 == "write" {s = $2} $1 == "done" {print $2 - s}' \
    "$dir/chat.out")
gap=$(awk -v a="$slow_from" -v b="$slow_until" '$2 == "WATCHDOG=1" {
	if (p != "" && $1 > a && p < b && $1 - p > g) g = $1 - p; p = $1 }
	END { print g + 0 }' "$dir/notify.out")
echo "round trips 600 ms: watchdog gap $gap ms (pings every 750 ms)," \
    "tmo stopped $late ms after its timeout, chat wrote 300 KB in $took ms"
checks=$((checks + 1))
[ "$gap" -gt 0 ] || fail "no watchdog ping while the link was slow"
[ "$gap" -lt 1500 ] || fail "a watchdog gap of $gap ms: systemd would" \
    "have killed tickd (WATCHDOG_USEC 1.5 s)"
checks=$((checks + 1))
[ "$late" -lt 1000 ] || fail "the timeout fired $late ms late"
checks=$((checks + 1))
[ "$took" -lt 4000 ] || fail "chat took $took ms to write 300 KB"
expect_eq "every line of chat logged" "$(grep -c 'chat.*line [0-9]' \
    "$dir/n1.log")" 3000
wait_for "chat recorded succeeded" 20 eval '[ "$(pg_sql "SELECT status FROM
    runs WHERE job = '"'chat'"'")" = succeeded ]'
checks=$((checks + 1))
kill -0 "$(cat "$dir/n1.pid")" || fail "n1 died"
kill "$listener"
echo "$checks checks passed"

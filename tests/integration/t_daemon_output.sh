#!/bin/sh
# Job output goes to the log, one line per output line, prefixed with the
# run: stdout at info, stderr at warning, control characters escaped.  A
# flood (one 10 MiB line, then 100 MiB in all) does not grow the daemon's
# memory and does not stop it scheduling; a grandchild that keeps stdout
# open does not keep the run going.
. tests/integration/lib.sh
setup

write_job talk.job <<'EOF'
[talk]
schedule = every 1s
command = echo "hello out"; echo "hello err" >&2; printf 'esc:\033[31mred\033[0m tab:\there bs:\\ end\n'; printf 'no newline at the end'
EOF
# The next two run once, when the test creates their trigger file.
write_job flood.job <<'EOF'
[flood]
schedule = every 1s
command = [ -e @DIR@/flood.go ] && [ ! -e @DIR@/flood.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/flood.id; head -c 10485760 /dev/zero | tr '\0' x; echo; yes "$(head -c 1023 /dev/zero | tr '\0' y)" | head -c 94371840; echo flood-end
EOF
write_job holder.job <<'EOF'
[holder]
schedule = every 1s
command = [ -e @DIR@/holder.go ] && [ ! -e @DIR@/holder.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/holder.id; sleep 30 & echo "sleeping $!"
EOF

daemon_start

# --- ordinary output -------------------------------------------------------
wait_for "2 runs of talk" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''talk'\'' AND status = '\''succeeded'\''")" -ge 2 ]'
id=$(sql "SELECT run_id FROM runs WHERE job = 'talk' AND
    status = 'succeeded' ORDER BY scheduled_at LIMIT 1")
tab=$(printf '\t')
# Two pipes: the order within each stream is kept, not across them.
expect_eq "talk: stdout lines" "$(grep -F "$id: stdout: " "$log")" \
"tickd: info: $id: stdout: hello out
tickd: info: $id: stdout: esc:\\x1b[31mred\\x1b[0m tab:${tab}here bs:\\\\ end
tickd: info: $id: stdout: no newline at the end"
expect_eq "talk: stderr lines" "$(grep -F "$id: stderr: " "$log")" \
    "tickd: warning: $id: stderr: hello err"

# --- a flood of output -------------------------------------------------------
# hwm: tickd's peak resident set size so far, in KiB.
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$tickd_pid/status"; }
before=$(hwm)
flood_t0=$(now)
touch "$dir/flood.go"
wait_for "the flood job to start" 10 test -s "$dir/flood.id"
fid=$(cat "$dir/flood.id")
wait_for "the flood run to end" 60 eval "[ \"\$(sql \"SELECT status FROM runs
    WHERE run_id = '$fid'\")\" = succeeded ]"
flood_t1=$(now)
after=$(hwm)
echo "flood: VmHWM ${before} kB before, ${after} kB after, $((flood_t1 - flood_t0)) s"
checks=$((checks + 1))
[ $((after - before)) -le 16384 ] ||
    fail "flood: tickd's VmHWM grew from $before to $after kB"
expect_eq "flood: run" "$(sql "SELECT status, exit_status FROM runs
    WHERE run_id = '$fid'")" "succeeded|0"
# Every byte of the long line is in the log, in bounded pieces.
pieces=$(grep -F "tickd: info: $fid: stdout: x" "$log" | awk '
	{ sub(/^tickd: info: [^ ]*: stdout: /, ""); n += length($0)
	  if (length($0) > max) max = length($0) }
	END { print NR, n, max }')
set -- $pieces
expect_eq "flood: the 10 MiB line is all logged" "$2" 10485760
checks=$((checks + 1))
[ "$1" -ge 2560 ] && [ "$3" -le 4096 ] ||
    fail "flood: the long line was logged as $1 pieces of at most $3 bytes"
expect_eq "flood: all of the 1 KiB lines are logged" \
    "$(grep -F "tickd: info: $fid: stdout: y" "$log" |
    sed 's/^tickd: info: [^ ]*: stdout: //' | tr -d '\n' | wc -c)" \
    $((92160 * 1023))
log_has "tickd: info: $fid: stdout: flood-end" || fail "flood: no last line"

# The daemon kept scheduling during the flood: talk ran every second,
# on time.
wait_for "a talk run after the flood" 10 eval "[ \"\$(sql \"SELECT count(*)
    FROM runs WHERE job = 'talk' AND scheduled_at > $flood_t1 AND
    status = 'succeeded'\")\" -ge 1 ]"
expect_eq "talk: a run for every instant" "$(sql "SELECT count(*) -
    (max(scheduled_at) - min(scheduled_at) + 1) FROM runs
    WHERE job = 'talk'")" 0
late=$(sql "SELECT max(lateness_ms) FROM attempts a JOIN runs r ON
    a.run = r.id WHERE r.job = 'talk'")
checks=$((checks + 1))
[ "$late" -lt $((2000 * slow)) ] ||
    fail "talk: a run started $late ms late during the flood"

# --- a grandchild holding stdout ----------------------------------------------
touch "$dir/holder.go"
wait_for "the holder job to start" 10 test -s "$dir/holder.id"
hid=$(cat "$dir/holder.id")
wait_for "the holder run to end" 10 eval "[ \"\$(sql \"SELECT status FROM runs
    WHERE run_id = '$hid'\")\" = succeeded ]"
hpid=$(sql "SELECT a.pid FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.run_id = '$hid'")
checks=$((checks + 1))
[ -n "$(pgrep -g "$hpid" -x sleep)" ] ||
    fail "holder: its sleep is gone: the test proves nothing"
dur=$(sql "SELECT a.duration_ms FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.run_id = '$hid'")
checks=$((checks + 1))
[ "$dur" -lt 5000 ] || fail "holder: recorded after $dur ms"
expect_match "holder: its output" \
    "$(grep -F "tickd: info: $hid: stdout: " "$log")" "*: stdout: sleeping [0-9]*"
# The sleep was reparented to tickd (a subreaper), which reaps it: no
# zombie is left.
spid=$(pgrep -g "$hpid" -x sleep)
expect_eq "holder: sleep's parent" "$(ps -o ppid= -p "$spid" | tr -d ' ')" "$tickd_pid"
kill -KILL "$spid"
# zombies: tickd's children that are zombies.
zombies() { ps --ppid "$tickd_pid" -o stat= | grep -c '^Z'; }
wait_for "the sleep to be reaped" 5 eval '[ "$(zombies)" -eq 0 ] &&
    ! pid_alive_or_zombie "$spid"'

daemon_stop_ok

# --- checks that found bugs: soft, so that all are reported -------------------

# A line shorter than a piece (1023 bytes) is logged whole, however fast
# the output comes: 92160 such lines, 92160 log lines.
n=$(grep -cxF "tickd: info: $fid: stdout: $(head -c 1023 /dev/zero | tr '\0' y)" "$log")
checks=$((checks + 1))
[ "$n" -eq 92160 ] ||
    soft_fail "flood: of 92160 lines of 1023 bytes, only $n were logged whole; the others were split in two log lines"

# Escaping must not lose output: a line of 2000 ESC bytes (8000 bytes once
# escaped) is logged whole, split if need be.
write_job esc.job <<'EOF'
[esc]
schedule = every 1s
command = [ ! -e @DIR@/esc.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/esc.id; head -c 2000 /dev/zero | tr '\0' '\033'; echo END
EOF
rm -f "$jobs/flood.job" "$jobs/holder.job" "$jobs/talk.job"
daemon_start
wait_for "the esc run" 10 eval '[ -s "$dir/esc.id" ] && [ "$(sql "SELECT
    status FROM runs WHERE run_id = '\''$(cat "$dir/esc.id")'\''")" = succeeded ]'
eid=$(cat "$dir/esc.id")
n=$(grep -F "$eid: stdout: " "$log" | grep -o 'x1b' | wc -l)
checks=$((checks + 1))
[ "$n" -eq 2000 ] || soft_fail "esc: 2000 ESC bytes were logged as $n \\x1b escapes: output lost"
checks=$((checks + 1))
grep -F "$eid: stdout: " "$log" | grep -q 'END$' ||
    soft_fail "esc: the text after the escapes (END) is not in the log"
daemon_stop_ok

# log_level = warning: the job's stdout (info) is not logged, its stderr
# (warning) is.
rm -f "$jobs/esc.job"
write_job talk.job <<'EOF'
[talk2]
schedule = every 1s
command = echo "quiet out"; echo "loud err" >&2
EOF
write_conf "log_level = warning"
daemon_spawn		# "ready:" is a notice: not logged at this level
wait_for "a talk2 run" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '\''talk2'\'' AND status = '\''succeeded'\''")" -ge 1 ]'
daemon_stop_ok
checks=$((checks + 1))
log_has "stderr: loud err" || soft_fail "log_level warning: stderr not logged"
checks=$((checks + 1))
! log_has "stdout: quiet out" ||
    soft_fail "log_level = warning: job stdout (info) is logged anyway: $(grep -m1 -F 'stdout: quiet out' "$log")"
done_ok

#!/bin/sh
# Soak: an accelerated run of many jobs per second for SOAK_SECONDS
# (default 600; the equivalent of weeks of a normal host's schedule),
# with every kind of end (success, failure with retries, timeouts,
# replacement, queueing, parallel runs, output), history retention
# pruning all along, a reload every 30 s and tickctl commands every 5 s.
# Checked:
# - memory and descriptors stay flat: the daemon's RSS in the last third
#   of the run is within 10% + 4 MiB of the second third; its
#   descriptors other than pipes and sockets (the store, the lock, the
#   loop's) are as many at the end as at the start and never more than 4
#   above, and its pipes return to their idle count when nothing runs;
# - no sanitizer or valgrind report, and exit status 0 at the end;
# - nothing lost or duplicated: every instant of the every-second jobs
#   is in their marker files (once) or in a skipped range (decisions).
# SOAK_VALGRIND=1 runs tickd under valgrind (memcheck, leaks checked at
# exit): slower, so fewer jobs (SOAK_JOBS, default 20, 5 under valgrind).
# Under "make check-long SANITIZE=1" it runs the ASan/UBSan build.
. tests/integration/lib.sh
setup
SOAK_SECONDS=${SOAK_SECONDS:-600}
njobs=${SOAK_JOBS:-20}
if [ "${SOAK_VALGRIND:-0}" = 1 ]; then
	command -v valgrind >/dev/null ||
	    { echo "valgrind is missing (apt-get install valgrind)"; exit 77; }
	njobs=${SOAK_JOBS:-5}
	slow=10
	tickd_wrap="valgrind -q --error-exitcode=99 --leak-check=full
	    --errors-for-leak-kinds=definite --show-leak-kinds=definite
	    --track-fds=no"
fi
# ASan keeps freed memory in quarantine (256 MiB by default): a small one
# lets RSS level off within minutes instead of growing for hours.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16
export ASAN_OPTIONS

write_conf "history_keep = 50" "max_running = 256"
i=1
while [ "$i" -le "$njobs" ]; do
	printf '[fast%02d]\nschedule = * * * * * *\noverlap = allow\nmax_parallel = 100\n' "$i"
	printf 'command = echo "$TICKD_RUN_ID" >> @DIR@/fast.out\n\n'
	i=$((i + 1))
done | write_job fast.job
write_job mixed.job <<'EOF'
[out]
schedule = * * * * * *
command = i=0; while [ $i -lt 200 ]; do echo "line $i of $TICKD_RUN_ID"; i=$((i + 1)); done; echo err >&2

[flaky]
schedule = */2 * * * * *
retries = 2
retry_delay = 1s
retry_on_exit = 75
command = exit 75

[perm]
schedule = */3 * * * * *
retries = 3
retry_on_exit = 75
command = exit 1

[queued]
schedule = * * * * * *
overlap = queue
queue_limit = 2
command = sleep 1.5

[par]
schedule = * * * * * *
overlap = allow
max_parallel = 3
command = sleep 2.5

[slowpoke]
schedule = */3 * * * * *
timeout = 1s
kill_grace = 1s
command = trap '' TERM; sleep 10

[repl]
schedule = */2 * * * * *
overlap = replace
kill_grace = 1s
command = sleep 5
EOF
daemon_start
pid=$tickd_pid
t0=$(($(now) + 1))
t_end=$((t0 + SOAK_SECONDS))

# sample: "SECONDS RSS_KB OTHER_FDS PIPES SOCKETS RUNNING" to samples.
sample() {
	_fds=$(ls -l "/proc/$pid/fd" 2>/dev/null | tail -n +2)
	_pipes=$(printf '%s\n' "$_fds" | grep -c 'pipe:')
	_socks=$(printf '%s\n' "$_fds" | grep -c 'socket:')
	_all=$(printf '%s\n' "$_fds" | grep -c .)
	_rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
	_kids=$(grep -l "^PPid:[[:space:]]*$pid\$" /proc/[0-9]*/status 2>/dev/null |
	    wc -l)
	echo "$(($(now) - t0)) $_rss $((_all - _pipes - _socks)) $_pipes $_socks $_kids" \
	    >>"$dir/samples"
}
n=0
while [ "$(now)" -lt "$t_end" ]; do
	pid_alive "$pid" || fail "tickd died (pid $pid) after $(($(now) - t0)) s"
	n=$((n + 1))
	sample
	ctl list >/dev/null || check_fail "tickctl list: exit $?"
	ctl history --limit 20 >/dev/null || check_fail "tickctl history: exit $?"
	ctl run --force out >/dev/null || check_fail "tickctl run: exit $?"
	if [ $((n % 6)) -eq 0 ]; then
		# A reload that changes a job every 30 s.
		printf '[extra]\nschedule = */%d * * * * *\ncommand = true\n' \
		    $((n / 6 % 5 + 1)) | write_job extra.job
		kill -HUP "$pid"
	fi
	wait_until $(($(now) + 5))
done
# Quiet: no job due any more, wait for everything to end, then a last
# sample with nothing running.
rm -f "$jobs/fast.job" "$jobs/mixed.job" "$jobs/extra.job"
kill -HUP "$pid"
wait_for "every run to end" $((30 * slow)) eval '[ "$(sql "SELECT count(*) FROM
    runs WHERE status IN ('"'running', 'queued', 'retrying'"')")" -eq 0 ]'
wait_for "no child left" $((10 * slow)) eval '! grep -q "^PPid:[[:space:]]*$pid\$" \
    /proc/[0-9]*/status 2>/dev/null'
sample
soft_checks=1	# from here on, report every check
daemon_stop $((30 * slow))
expect_eq "no sanitizer or valgrind report" "$(grep -E \
    'ERROR: (Address|Leak)Sanitizer|runtime error:|==[0-9]+== [A-Z]' "$log" |
    head -n 5)" ""
grep -E -A12 'ERROR: (Address|Leak)Sanitizer|runtime error:|==[0-9]+== [A-Z]' \
    "$log" | head -n 60
expect_eq "tickd exit status" "$daemon_rc" 0
log_has "tickd: notice: stopped" || check_fail "no \"stopped\" in the log"

# --- figures and checks ------------------------------------------------------------
echo "samples (seconds rss_kb other_fds pipes sockets children):"
awk 'NR % 12 == 1' "$dir/samples"
tail -n 1 "$dir/samples"
nsamp=$(wc -l <"$dir/samples")
third=$((nsamp / 3))
rss2=$(awk -v a="$third" -v b=$((2 * third)) 'NR > a && NR <= b { s += $2; n++ }
    END { print int(s / n) }' "$dir/samples")
rss3=$(awk -v b=$((2 * third)) 'NR > b { s += $2; n++ } END { print int(s / n) }' \
    "$dir/samples")
echo "RSS: second third $rss2 kB, last third $rss3 kB on average"
expect_eq "RSS flat (last third <= second third + 10% + 4 MiB)" \
    "$([ "$rss3" -le $((rss2 + rss2 / 10 + 4096)) ] && echo yes)" yes
# Other descriptors: the same at the start and at the end, and only a
# few more at any moment (a /proc file read while stopping a run, a zone
# file at a reload).
echo "other descriptors seen: $(awk '{ print $3 }' "$dir/samples" | sort -n |
    uniq -c | tr -s ' \n' '  ')"
expect_eq "descriptors other than pipes and sockets: as many at the end" \
    "$(tail -n 1 "$dir/samples" | awk '{ print $3 }')" \
    "$(head -n 1 "$dir/samples" | awk '{ print $3 }')"
expect_eq "descriptors other than pipes and sockets: never more than 4 above" \
    "$(awk 'NR == 1 { b = $3 } $3 > b + 4 { print }' "$dir/samples" | head -n 3)" ""
first_pipes=$(awk '$6 == 0 { print $4; exit }' "$dir/samples")
expect_eq "pipes when nothing runs: as at the first idle sample" \
    "$(tail -n 1 "$dir/samples" | awk '{ print $4 }')" "${first_pipes:-?}"
expect_eq "no error logged by tickd itself" "$(grep -E \
    'tickd: (critical|alert|emergency):' "$log" | head -n 3)" ""

# Every instant of the fast jobs from t0 to the quiet point: once in the
# markers, or in a skipped range.
t_last=$(sql "SELECT max(scheduled_at) FROM runs WHERE job = 'fast01'")
dups=$(sort "$dir/fast.out" | uniq -d | head -n 3)
expect_eq "no fast run twice" "$dups" ""
got=$(awk -v t0="$(rfc3339 "$t0")" -v t1="$(rfc3339 "$t_last")" -F@ '
    $2 >= t0 && $2 <= t1 { n++ } END { print n + 0 }' "$dir/fast.out")
skipped=$(sql "SELECT coalesce(sum(count), 0) FROM decisions WHERE job LIKE
    'fast%' AND first_at >= $t0 AND last_at <= $t_last")
echo "fast jobs' rows kept, by status: $(sql "SELECT group_concat(s, ' ') FROM
    (SELECT status || ':' || count(*) AS s FROM runs WHERE job LIKE 'fast%'
    GROUP BY status)")"
expect_eq "every fast instant ran or was recorded as skipped" $((got + skipped)) \
    $((njobs * (t_last - t0 + 1)))
nruns=$(cat "$dir/fast.out" | wc -l)
echo "soak: ${SOAK_SECONDS}s, $nruns fast runs, $skipped skipped, $(sql \
    "SELECT count(*) FROM runs") rows kept, db $(stat -c %s "$dir/state/tickd.db") bytes"
done_ok

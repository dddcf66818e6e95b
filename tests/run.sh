#!/bin/bash
# Run test programs and shell tests, TEST_JOBS at a time (default 5: most
# integration tests wait on the clock, not the CPU); print PASS/FAIL/SKIP
# for each in the order given, keep the logs of failures only, and end
# with "N passed, N failed".  Exit status 77 from a test means "skipped"
# (the reason is its last line of output).
# Environment: B (build directory), TEST_TIMEOUT (seconds per test: 300,
# 900 under the sanitizers), TEST_JOBS (tests at once), KEEP_LOGS=1 (keep
# the logs of passing tests too: the long soaks print their figures there).
B=${B:-build}
logs=$B/test-logs
jobs=${TEST_JOBS:-5}
timeout=${TEST_TIMEOUT:-300}
case $B in	# the sanitizers triple the CPU (lib.sh's slow): two at a time
*/san)	jobs=${TEST_JOBS:-2} timeout=${TEST_TIMEOUT:-900} ;;
esac
mkdir -p "$logs"
pass=0 fail=0 skip=0 failed= running=0 i=0

# Results wait in a directory of this run's own (two runners may share
# $B, e.g. make check beside a single test run by hand).
done_dir=$(mktemp -d "${TMPDIR:-/tmp}/tickd-run.XXXXXX") || exit 1
trap 'rm -rf "$done_dir"' EXIT

# run_one I TEST: run TEST, leave "rc ms" in $done_dir/I.
run_one() {
	log=$logs/$(basename "$2" .sh).log
	start=$(date +%s%N)
	case $2 in
	*.sh)	timeout -k 5 "$timeout" sh "$2" >"$log" 2>&1 ;;
	*)	timeout -k 5 "$timeout" "$2" >"$log" 2>&1 ;;
	esac
	rc=$?
	echo "$rc $(( ($(date +%s%N) - start) / 1000000 ))" > "$done_dir/$1"
}

# report I TEST: print the result of test I and count it.
report() {
	name=$(basename "$2" .sh)
	log=$logs/$name.log
	read -r rc ms < "$done_dir/$1"
	rm -f "$done_dir/$1"
	case $rc in
	0)	pass=$((pass + 1))
		printf 'PASS %-28s %6d ms  %s\n' "$name" "$ms" \
		    "$(tail -n 1 "$log")"
		[ "${KEEP_LOGS:-0}" = 1 ] || rm -f "$log" ;;
	77)	skip=$((skip + 1))
		printf 'SKIP %-28s %s\n' "$name" "$(tail -n 1 "$log")" ;;
	*)	fail=$((fail + 1)) failed="$failed $name"
		printf 'FAIL %-28s %6d ms  exit %d, log %s\n' "$name" "$ms" \
		    "$rc" "$log"
		# The failed checks first: the tail is often the daemon's log.
		grep -m 10 'FAIL' "$log" | sed 's/^/    /'
		echo "    ..."
		tail -n 30 "$log" | sed 's/^/    /' ;;
	esac
}

next=1		# the next test to report, in order
for t in "$@"; do
	i=$((i + 1))
	run_one "$i" "$t" &
	running=$((running + 1))
	# Keep at most $jobs running; report finished ones in order.
	while [ "$running" -ge "$jobs" ]; do
		wait -n 2>/dev/null || sleep 0.1
		running=$(jobs -r | wc -l)
	done
	while [ -f "$done_dir/$next" ]; do
		eval "report $next \"\${$next}\""
		next=$((next + 1))
	done
done
wait
while [ "$next" -le "$i" ]; do
	eval "report $next \"\${$next}\""
	next=$((next + 1))
done
[ -n "$failed" ] && echo "failed:$failed"
[ "$skip" -gt 0 ] && echo "$skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# Run test programs and shell tests; print PASS/FAIL/SKIP for each, keep the
# log of failures only, and end with "N passed, N failed".  Exit status 77
# from a test means "skipped" (the reason is its last line of output).
# Environment: B (build directory), TEST_TIMEOUT (seconds per test).
B=${B:-build}
logs=$B/test-logs
mkdir -p "$logs"
pass=0 fail=0 skip=0 failed=
for t in "$@"; do
	name=$(basename "$t" .sh)
	log=$logs/$name.log
	start=$(date +%s%N)
	case $t in
	*.sh)	timeout -k 5 "${TEST_TIMEOUT:-300}" sh "$t" >"$log" 2>&1 ;;
	*)	timeout -k 5 "${TEST_TIMEOUT:-300}" "$t" >"$log" 2>&1 ;;
	esac
	rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	case $rc in
	0)	pass=$((pass + 1))
		printf 'PASS %-28s %6d ms  %s\n' "$name" "$ms" \
		    "$(tail -n 1 "$log")"
		rm -f "$log" ;;
	77)	skip=$((skip + 1))
		printf 'SKIP %-28s %s\n' "$name" "$(tail -n 1 "$log")" ;;
	*)	fail=$((fail + 1)) failed="$failed $name"
		printf 'FAIL %-28s %6d ms  exit %d, log %s\n' "$name" "$ms" \
		    "$rc" "$log"
		tail -n 40 "$log" | sed 's/^/    /' ;;
	esac
done
[ -n "$failed" ] && echo "failed:$failed"
[ "$skip" -gt 0 ] && echo "$skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

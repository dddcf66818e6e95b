#!/bin/sh
# Replay every committed fuzz corpus file and crash reproducer through the
# fuzz targets built by the normal compiler against the library (make
# fuzz-replay builds them into $B/fuzz-replay/), so that a change which
# breaks an invariant on a known input fails make check, without clang.
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
total=0 targets=0 rc=0
for src in tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	bin=$B/fuzz-replay/$t
	if [ ! -x "$bin" ]; then
		echo "$bin: not built (make fuzz-replay)"
		exit 1
	fi
	set -- "tests/fuzz/corpus/$t"
	[ -d "tests/fuzz/regress/$t" ] && set -- "$@" "tests/fuzz/regress/$t"
	if ! out=$("$bin" "$@"); then
		echo "$out"
		echo "$t: FAILED"
		rc=1
		continue
	fi
	echo "$out"
	n=$(echo "$out" | sed -n 's/.*: \([0-9][0-9]*\) inputs replayed$/\1/p')
	total=$((total + ${n:-0}))
	targets=$((targets + 1))
done
[ "$rc" -eq 0 ] || exit 1
echo "$total inputs replayed through $targets fuzz targets"

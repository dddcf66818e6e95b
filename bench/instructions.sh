#!/bin/sh
# Instruction counts of a daemon's whole life (callgrind: reproducible on
# a shared, noisy machine, where wall-clock figures are not): start on a
# fresh store, N jobs due in the same second (each `stamp FILE`, as
# burst.sh), SIGTERM once all have stamped.  Prints the total and the
# inclusive count of the functions that a run's bookkeeping goes through.
# Under valgrind tickd forks its jobs (it cannot clone them there): the
# kernel's share of a spawn is not in these counts, see burst.sh for it.
# Usage: sh bench/instructions.sh [N]; env B, TICKD, FUNCS (names).
set -eu
. "$(dirname "$0")/lib.sh"
B=${B:-build}
n=${1:-300}
tickd=${TICKD:-$PWD/$B/tickd}
stamp=$PWD/$B/bench/stamp
funcs=${FUNCS:-"server_dispatch store_run_claim store_attempt_started
    store_attempt_end store_prune_job jobenv_build runner_spawn
    server_jobs_sync conf_load"}
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
	{ echo "instructions.sh: valgrind is not installed" >&2; exit 2; }
work=$(mktemp -d)
pid=
trap 'kill_wait "$pid"; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# Valgrind starts slowly: the instant is 8 s away.
burst_dir "$work" "$n" $(( $(date +%s) + 8 )) "$stamp $work/stamps"
valgrind -q --tool=callgrind --callgrind-out-file="$work/cg.out" \
    "$tickd" -c "$work/tickd.conf" --log-target=stderr 2>"$work/log" &
pid=$!
wait_lines "$work/stamps" "$n" 120 "$pid" ||
	{ echo "instructions.sh: $(tail -3 "$work/log")" >&2; exit 1; }
kill "$pid"; wait "$pid" || true; pid=
callgrind_annotate --inclusive=yes "$work/cg.out" 2>/dev/null >"$work/ann"
total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }' "$work/ann")
printf '%-28s %14s %12s\n' function Ir "Ir per job"
printf '%-28s %14s %12s\n' total "$total" "$((total / n))"
for f in $funcs; do
	ir=$(awk -v f="$f" '$0 ~ ":" f " \\[" { gsub(",", "", $1); print $1;
	    exit }' "$work/ann")
	printf '%-28s %14s %12s\n' "$f" "${ir:--}" \
	    "$([ -n "$ir" ] && echo $((ir / n)) || echo -)"
done
echo "($n jobs due at once; callgrind of the daemon's whole life, start and" \
    "stop included; $(basename "$tickd"))"

#!/bin/sh
# The process-trouble test of tests/integration/t_fault_proc.sh with the
# bursts at full size: 2000 jobs due at the same second, max_running 2000,
# each holding 3 s (thousands of children at once), five bursts (several minutes;
# FP_BURST_JOBS, FP_BURST_MAX and FP_BURSTS for other sizes).  Run by
# "make check-long".
#
# tickd holds two pipes per running job (runner_budget in src/runner.c:
# two descriptors per run, 128 kept for the rest) and makes the runs
# beyond what RLIMIT_NOFILE allows wait: under a limit of 1024 it would
# run 448 at a time, and the burst would not be the one asked for.  The
# soft limit is raised to what FP_BURST_MAX runs need (tickd inherits
# it); the test is skipped when the hard limit forbids it.
FP_BURST_JOBS=${FP_BURST_JOBS:-2000}
FP_BURST_MAX=${FP_BURST_MAX:-2000}
FP_BURSTS=${FP_BURSTS:-5}
# Each job holds 3 s after its marker, so that the burst's processes
# overlap: at least 1000 of them at once.
FP_BURST_HOLD=${FP_BURST_HOLD:-3}
FP_MIN_AT_ONCE=${FP_MIN_AT_ONCE:-1000}
need=$((FP_BURST_MAX * 2 + 128 + 64))
have=$(ulimit -Sn)
if [ "$have" != unlimited ] && [ "$have" -lt "$need" ] &&
    ! ulimit -Sn "$need" 2>/dev/null; then
	echo "RLIMIT_NOFILE is $have and cannot be raised to $need" \
	    "(max_running $FP_BURST_MAX)"
	exit 77
fi
echo "RLIMIT_NOFILE $(ulimit -Sn) (max_running $FP_BURST_MAX needs $need)"
export FP_BURST_JOBS FP_BURST_MAX FP_BURSTS FP_BURST_HOLD FP_MIN_AT_ONCE
exec sh tests/integration/t_fault_proc.sh

#!/bin/sh
# The process-trouble test of tests/integration/t_fault_proc.sh with the
# bursts at full size: 2000 jobs due at the same second, max_running 500,
# five bursts (several minutes; FP_BURST_JOBS, FP_BURST_MAX and FP_BURSTS
# for other sizes).  Run by "make check-long".
FP_BURST_JOBS=${FP_BURST_JOBS:-2000} FP_BURST_MAX=${FP_BURST_MAX:-500} \
    FP_BURSTS=${FP_BURSTS:-5} exec sh tests/integration/t_fault_proc.sh

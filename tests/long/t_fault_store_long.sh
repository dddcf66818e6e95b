#!/bin/sh
# The store fault tests of tests/integration/t_fault_store.sh and
# t_fault_store_full.sh with faults of 30 s: the write lock held for 30 s
# (FAULT_LOCK_SECONDS), the file system full and the file size limit
# reached for 30 s each (FAULT_FULL_SECONDS); about 3 minutes.  Run by
# "make check-long".  Exit status 77 (skipped) only when the second test
# skips its tmpfs part and nothing failed.
FAULT_LOCK_SECONDS=${FAULT_LOCK_SECONDS:-30} \
    sh tests/integration/t_fault_store.sh || exit
FAULT_FULL_SECONDS=${FAULT_FULL_SECONDS:-30} \
    exec sh tests/integration/t_fault_store_full.sh

#!/bin/sh
# tests/integration/t_fault_time.sh with a natural step back of 10 min
# (BACK seconds; BACK=7200 for the 2 hours of issue 7, which takes as
# long): the clock is set back while jobs run and the test waits for it
# to pass the instants that ran again, none of which may run twice.
# Run by "make check-long".
BACK=${BACK:-600} exec sh tests/integration/t_fault_time.sh

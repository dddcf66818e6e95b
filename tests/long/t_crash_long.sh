#!/bin/sh
# The crash test of tests/integration/t_crash.sh with 200 kills (about
# 4 minutes; CRASH_KILLS=N for another number).  Run by "make check-long".
CRASH_KILLS=${CRASH_KILLS:-200} exec sh tests/integration/t_crash.sh

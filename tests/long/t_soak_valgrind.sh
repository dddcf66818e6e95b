#!/bin/sh
# The soak of t_soak.sh with tickd under valgrind's memcheck (errors and
# definite leaks make it exit 99): fewer jobs, SOAK_SECONDS (default 600).
# Needs valgrind (make deps-long).
SOAK_VALGRIND=1 exec sh tests/long/t_soak.sh

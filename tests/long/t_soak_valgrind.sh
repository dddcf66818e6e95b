#!/bin/sh
# The soak of t_soak.sh with tickd under valgrind's memcheck (errors and
# definite leaks make it exit 99): fewer jobs, SOAK_SECONDS (default 600).
# Needs valgrind (make deps-long).  Skipped (77) for a sanitizer build
# (make check-long SANITIZE=1: build/san): valgrind cannot run a binary
# whose shadow memory ASan maps; that build soaks in t_soak.sh instead.
case ${TICKD:-} in
*/san/*)
	echo "TICKD ($TICKD) is a sanitizer build: valgrind cannot run it"
	exit 77 ;;
esac
SOAK_VALGRIND=1 exec sh tests/long/t_soak.sh

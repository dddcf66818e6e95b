#!/bin/sh
# tests/integration/t_fault_signals.sh with more of everything (a few
# minutes): 2000 SIGHUPs, SIGTERM with 600 jobs due (more than the 1024
# descriptors systemd gives a service hold: tickd runs the 480 they hold
# and keeps the rest queued), 2000 clients that leave before the reply.
# Run by "make check-long".
HUPS=${HUPS:-2000} TERM_JOBS=${TERM_JOBS:-600} CLIENTS=${CLIENTS:-2000} \
    exec sh tests/integration/t_fault_signals.sh

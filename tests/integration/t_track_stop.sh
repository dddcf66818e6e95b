#!/bin/sh
# Stopping an attempt kills its own processes and nothing else, with one
# cgroup per attempt: see tests/integration/track_stop.sh.
mode=cgroup
. tests/integration/track_stop.sh

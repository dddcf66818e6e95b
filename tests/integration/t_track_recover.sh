#!/bin/sh
# What a daemon started after a crash takes for a run's process, with one
# cgroup per attempt: see tests/integration/track_recover.sh.
mode=cgroup
. tests/integration/track_recover.sh

#!/bin/sh
# What a daemon started after a crash takes for a run's process, without
# cgroups: see tests/integration/track_recover.sh.
mode=pgrp
. tests/integration/track_recover.sh

#!/bin/sh
# Stopping an attempt kills its own processes and nothing else, without
# cgroups (process groups and the invocation id): see
# tests/integration/track_stop.sh.
mode=pgrp
. tests/integration/track_stop.sh

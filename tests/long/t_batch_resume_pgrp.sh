#!/bin/sh
# t_batch_resume.sh with the jobs tracked by process groups (no cgroup):
# the lost shards found, and the live one adopted, by their pids.
TICKD_TEST_CGROUP=none
. tests/integration/t_batch_resume.sh

#!/bin/sh
# The mount table behind the spawn path (runner.c, mounts.c): a job whose
# working directory is on a local file system is cloned; once a file
# system of a type not known to be local is mounted on that directory the
# daemon forks it instead (entering it could hang), and once it is
# unmounted clones it again.  The daemon reads /proc/self/mountinfo again
# only when a poll says the table changed, so this checks that a change
# is seen.  In a private mount namespace: nothing of the host is touched.
if [ -z "${TICKD_MOUNTS_NS:-}" ]; then
	if unshare -m true 2>/dev/null; then
		TICKD_MOUNTS_NS=1 exec unshare -m sh "$0" "$@"
	fi
	echo "cannot make a mount namespace (unshare -m): skipped"
	exit 77
fi
. tests/integration/lib.sh
setup
write_conf "log_level = debug"
mkdir "$dir/wd"
mount -t mqueue none "$dir/wd" 2>/dev/null ||
    { echo "cannot mount an mqueue file system: skipped"; exit 77; }
umount "$dir/wd"

write_job w.job <<'EOF2'
[w]
schedule = every 1s
workdir = @DIR@/wd
command = echo "$(stat -f -c %T .)" >> @DIR@/out
EOF2
forks() { grep -c "$dir/wd is not known to be on a local file system: fork" "$log"; }
runs() { lines "$dir/out"; }
# wait_runs N: until N more runs have written their line.
wait_runs() {
	_wr=$(($(runs) + $1))
	wait_for "$1 more runs of w" 10 eval '[ "$(runs)" -ge '"$_wr"' ]'
}

daemon_start
wait_runs 2
expect_eq "local: cloned, no fork" "$(forks)" 0

mount -t mqueue none "$dir/wd"
wait_for "a fork once mqueue is mounted on the directory" 10 eval \
    '[ "$(forks)" -ge 1 ]'
wait_runs 2
expect_eq "the job ran on the mounted file system" "$(tail -n 1 "$dir/out")" mqueue

umount "$dir/wd"
wait_runs 2
n=$(forks)
wait_runs 2
expect_eq "unmounted: cloned again, no more forks" "$(forks)" "$n"
expect_eq "the job ran on the directory's own file system" \
    "$(tail -n 1 "$dir/out")" "$(stat -f -c %T "$dir")"
daemon_stop_ok
done_ok

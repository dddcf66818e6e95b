#!/bin/sh
# An incremental reload (conf_reload): the jobs of a job file that loaded
# cleanly and has not changed since (inode, size, mtime, ctime) are taken
# unread; a changed file is read again, and so is one changed less than 2 s
# before the reload that read it (a change within the same clock tick
# would leave the same times).  What a file does not say is looked at
# again even for an unchanged file: a root job's program that became
# writable by others is refused with strict_exec = yes.  Through all of
# it, the jobs of unchanged files run on, once per instant.
. tests/integration/lib.sh
setup
write_conf "log_level = debug" "strict_exec = yes"
sleeper zz-reuse
cp "$dir/zz-reuse" "$dir/prog"
chmod 755 "$dir/prog"
for j in a b c; do
	write_job "$j.job" <<EOF2
[$j]
schedule = every 1s
command = echo "\$TICKD_RUN_ID v1" >> @DIR@/$j.out
EOF2
done
write_job e.job <<EOF2
[e]
schedule = every 1s
command = $dir/prog 0; echo "\$TICKD_RUN_ID" >> @DIR@/e.out
EOF2

# taken N M: the last reload took N of M files unread.
taken() {
	expect_eq "$3: files taken unread" "$(grep 'files unchanged, their jobs taken' "$log" |
	    tail -n 1 | sed 's/.*reload: \([0-9]*\) of \([0-9]*\) .*/\1 \2/')" "$1 $2"
}
# reload: SIGHUP, then wait for its end (done, or partially failed).
reloads() { grep -c -e 'reload done: ' -e 'reload partially failed: ' "$log"; }
reload() {
	_n=$(reloads)
	kill -HUP "$tickd_pid"
	wait_for "reload $_n to finish" 10 eval '[ "$(reloads)" -gt "$_n" ]'
}
# old FILE...: wait until each file was last changed 3 s ago or more.
old() {
	for _f in "$@"; do
		wait_for "$_f to be 3 s old" 10 eval \
		    '[ $(($(date +%s) - $(stat -c %Z "$jobs/$_f"))) -ge 3 ]'
	done
}

daemon_start
wait_for "a run of each" 10 eval '[ "$(lines "$dir/a.out")" -ge 1 ] &&
    [ "$(lines "$dir/c.out")" -ge 1 ] && [ "$(lines "$dir/e.out")" -ge 1 ]'
old a.job b.job c.job e.job
# The start read them less than 2 s after they were written: the first
# reload reads them again, and records them as old enough.
reload
taken 0 4 "read again: written just before the start"

# 1. One file changed: the other three are taken.
sed -i 's/ v1"/ v2"/' "$jobs/b.job"
reload
taken 3 4 "one changed"
wait_for "b's new version" 10 grep -q ' v2$' "$dir/b.out"

# 2. Nothing changed: b was read 3 s after its change, not before: all 4
# would be taken, but b changed less than 2 s before its read, so it is
# read again; once it is old, all four are taken.
reload
taken 3 4 "b read again: it was changed just before the last read"
old b.job
reload
reload
taken 4 4 "nothing changed"

# 3. The same file, the same size, other content, at once: read again.
sed -i 's/ v2"/ v3"/' "$jobs/b.job"
reload
taken 3 4 "b changed, same size"
wait_for "b's third version" 10 grep -q ' v3$' "$dir/b.out"

# 4. An unchanged file whose program becomes writable by others: refused
# (strict_exec), as a read would refuse it; the job stops.
chmod o+w "$dir/prog"
reload
checks=$((checks + 1))
log_has "command: $dir/prog is writable by group or others (mode 0757), and the job runs as root: refused (strict_exec)" ||
    fail "e: its program is not refused"
e_end=$(lines "$dir/e.out")
chmod o-w "$dir/prog"
# ... and with the program safe again, a reload brings it back.
reload
wait_for "e to run again" 10 eval '[ "$(lines "$dir/e.out")" -gt "$e_end" ]'
daemon_stop_ok

# The jobs of the files taken unread ran on, once per instant.
soft_checks=1
for j in a c; do
	expect_accounted "$j" "through the reloads"
	cut -d ' ' -f 1 "$dir/$j.out" >"$dir/$j.ids"
	expect_runs_match "$dir/$j.ids" "job = '$j'"
	expect_eq "$j: one version" "$(cut -d ' ' -f 2 "$dir/$j.out" | sort -u)" v1
	expect_eq "$j: no decision" "$(sql "SELECT count(*) FROM decisions
	    WHERE job = '$j'")" 0
done
soft_checks=0
expect_eq "no run but succeeded or stopped" "$(sql "SELECT count(*) FROM runs
    WHERE job != 'e' AND status NOT IN ('succeeded', 'skipped') AND
    NOT (status = 'terminated' AND reason = 'shutdown')")" 0
done_ok

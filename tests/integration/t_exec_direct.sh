#!/bin/sh
# A command without shell syntax runs without a shell (shwords.c): the
# program itself is the job's process, found through the job's PATH, and
# it behaves as under /bin/sh -c.  A table of commands runs both as jobs
# and through sh -c here (argv[0] "sh", as tickd runs it), in the same
# directory with the same PATH, and the exit status, stdout and stderr
# must be the same: plain words, a program by path, a missing program
# (127 and dash's message), a file that is not executable (126, or 127
# through PATH), a directory, a script without #! (ENOEXEC: /bin/sh runs
# it), PWD, and commands that need the shell.  The exec key's words
# (ExecStart= quoting, no variables, no globs) are compared with the
# same words quoted for sh.
. tests/integration/lib.sh
setup
write_conf "log_level = debug"	# to see which jobs are forked

mkdir "$dir/bin" "$dir/w"
printf 'echo "script $0 $#: $*"\necho "to stderr" >&2\nexit 5\n' \
    >"$dir/bin/script"
chmod 755 "$dir/bin/script"
printf 'echo never\n' >"$dir/bin/noexec"
chmod 644 "$dir/bin/noexec"
mkdir "$dir/bin/adir"
ln -s w "$dir/wlink"
jobpath=$dir/bin:/usr/bin:/bin

# ID|COMMAND (@DIR@ is $dir).
table='echo|echo a b
echo2|echo   spaced	tab
abs|/bin/echo x y
true|true
false|false
status|ls @DIR@/nonexistent
missing|tickd-no-such-prog --flag
misspath|/nonexistent/prog a
noexec|noexec
noexecpath|@DIR@/bin/noexec
dir|adir
dirpath|@DIR@/bin/adir
script|script a b
scriptpath|@DIR@/bin/script c
pwd|printenv PWD
env|printenv PATH
shell|echo "quoted $((1 + 2))"; exit 4
shellmiss|tickd-no-such-prog 2>&1; echo "after $?"
glob|echo @DIR@/bin/s*'

# The same through a working directory that is a symbolic link: tickd
# forks there instead of clone(CLONE_VM) (tickd(8), THE JOB'S PROCESS),
# and the child reports through its status pipe.  IDs start with "fk".
ftable='fkecho|echo a b
fkmissing|tickd-no-such-prog
fknoexec|@DIR@/bin/noexec
fkscript|script z
fkpwd|printenv PWD'

# ID|EXEC VALUE|THE SAME FOR SH
xtable='xquote|/bin/echo "a  b" '"'c d'"'|/bin/echo "a  b" '"'c d'"'
xname|echo a b|echo a b
xmissing|tickd-no-such-prog x|tickd-no-such-prog x
xdollar|/bin/echo $HOME ${X}|/bin/echo '"'\$HOME'"' '"'\${X}'"'
xglob|/bin/echo @DIR@/bin/*|/bin/echo '"'@DIR@/bin/*'"'
xsemi|/bin/echo a;b|/bin/echo '"'a;b'"'
xescape|/bin/echo a\tb\x41|printf '"'a\\tbA\\n'"'
xscript|script a|script a
xnoexec|@DIR@/bin/noexec|@DIR@/bin/noexec'

# The jobs: each runs once, at the daemon's start.
{
	printf '%s\n' "$table" | while IFS='|' read -r id cmd; do
		printf '[%s]\nschedule = @reboot\nworkdir = @DIR@/w\n' "$id"
		printf 'environment = PATH=%s\ncommand = %s\n\n' "$jobpath" \
		    "$cmd"
	done
	printf '%s\n' "$ftable" | while IFS='|' read -r id cmd; do
		printf '[%s]\nschedule = @reboot\nworkdir = @DIR@/wlink\n' \
		    "$id"
		printf 'environment = PATH=%s\ncommand = %s\n\n' "$jobpath" \
		    "$cmd"
	done
	printf '%s\n' "$xtable" | while IFS='|' read -r id cmd shcmd; do
		printf '[%s]\nschedule = @reboot\nworkdir = @DIR@/w\n' "$id"
		printf 'environment = PATH=%s\nexec = %s\n\n' "$jobpath" "$cmd"
	done
} | write_job direct.job

# exec and command together: the job is refused.
write_job both.job <<'EOF'
[both]
schedule = @reboot
command = true
exec = /bin/true
EOF
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "exec and command: tickd -n" "$rc" 1
expect_match "exec and command: the cause" "$err" \
    "*$jobs/both.job:4: exec: job \"both\" has a command too (line 3): one of them only*"
rm "$jobs/both.job"

# Two that stay: a direct one and one through the shell.
write_job sleep.job <<'EOF'
[sleepdirect]
schedule = @reboot
command = sleep 30

[sleepshell]
schedule = @reboot
command = sleep 30; :

[sleepexec]
schedule = @reboot
exec = sleep 30
EOF

daemon_start
ids=$(printf '%s\n%s\n%s\n' "$table" "$ftable" "$xtable" | cut -d'|' -f1)
for id in $ids; do
	wait_for "the run of $id" 10 eval "[ -n \"\$(sql \"SELECT run_id
	    FROM runs WHERE job = '$id' AND status != 'running'\")\" ]"
done

# The program is the job's process: no shell in between.
pidof_job() {
	sql "SELECT a.pid FROM attempts a JOIN runs r ON a.run = r.id
	    WHERE r.job = '$1' AND a.pid IS NOT NULL"
}
wait_for "sleepdirect's pid" 10 eval '[ -n "$(pidof_job sleepdirect)" ]'
wait_for "sleepshell's pid" 10 eval '[ -n "$(pidof_job sleepshell)" ]'
expect_eq "sleep 30: the job's process is sleep" \
    "$(cat "/proc/$(pidof_job sleepdirect)/comm")" sleep
expect_eq "sleep 30; :: the job's process is the shell" \
    "$(cat "/proc/$(pidof_job sleepshell)/comm")" sh
wait_for "sleepexec's pid" 10 eval '[ -n "$(pidof_job sleepexec)" ]'
expect_eq "exec = sleep 30: the job's process is sleep" \
    "$(cat "/proc/$(pidof_job sleepexec)/comm")" sleep

# out RUN_ID STREAM: the run's lines on STREAM, from the log.
out() {
	grep -F ": $1: $2: " "$log" | sed "s|^tickd: [a-z]*: $1: $2: ||"
}
# (Not in a pipeline: the checks must count in this shell.)
while IFS='|' read -r id cmd; do
	cmd=$(printf '%s' "$cmd" | sed "s|@DIR@|$dir|g")
	rid=$(sql "SELECT run_id FROM runs WHERE job = '$id'")
	got_rc=$(sql "SELECT coalesce(a.exit_status, 'signal ' || a.signal)
	    || ' ' || a.outcome FROM attempts a JOIN runs r ON a.run = r.id
	    WHERE r.run_id = '$rid'")
	wd=$dir/w
	case $id in fk*) wd=$dir/wlink ;; esac
	(cd "$wd" && exec env -i PATH="$jobpath" sh -c "$cmd" \
	    >"$dir/sh.out" 2>"$dir/sh.err" </dev/null)
	want_rc=$?
	case $want_rc in
	0) want_rc="0 succeeded" ;;
	*) want_rc="$want_rc failed" ;;
	esac
	expect_eq "$id ($cmd): exit status" "$got_rc" "$want_rc"
	expect_eq "$id ($cmd): stdout" "$(out "$rid" stdout)" \
	    "$(cat "$dir/sh.out")"
	expect_eq "$id ($cmd): stderr" "$(out "$rid" stderr)" \
	    "$(cat "$dir/sh.err")"
	echo "$id: $got_rc: $(head -c 60 "$dir/sh.out" "$dir/sh.err" |
	    tr '\n' ' ')"
done <<EOF
$table
$ftable
$(printf '%s\n' "$xtable" | cut -d'|' -f1,3)
EOF
log_has "$dir/wlink is not known to be on a local file system: fork" ||
    fail "the fk jobs were not forked"


# The messages are dash's, and a missing program is no spawn failure.
id=$(sql "SELECT run_id FROM runs WHERE job = 'missing'")
expect_eq "missing: stderr" "$(out "$id" stderr)" \
    "sh: 1: tickd-no-such-prog: not found"
expect_eq "missing: run" "$(sql "SELECT status, reason, exit_status FROM runs
    WHERE run_id = '$id'")" "failed|exit|127"
id=$(sql "SELECT run_id FROM runs WHERE job = 'noexecpath'")
expect_eq "noexecpath: stderr" "$(out "$id" stderr)" \
    "sh: 1: $dir/bin/noexec: Permission denied"

daemon_stop_ok
done_ok

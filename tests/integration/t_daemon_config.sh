#!/bin/sh
# Configuration: tickd --check reports every problem as file:line: key:
# message; the daemon refuses an invalid tickd.conf (exit 78) but runs the
# good jobs next to bad job files (a syntax error disables its whole file,
# a bad value only its job, unsafe files are refused); other names in
# jobs_dir are ignored and logged once; long values and ";" in commands
# survive inih.
. tests/integration/lib.sh
setup

# --- tickd --check on a directory full of mistakes ---------------------------
mkdir "$dir/check.d"
cat >"$dir/check.conf" <<EOF
[daemon]
timezone = UTC
jobs_dir = check.d
state = state/check.db
EOF
cat >"$dir/check.d/a.job" <<'EOF'
schedule = every 1s

[unknownkey]
schedule = every 1s
command = true
colour = blue

[badsched]
schedule = 61 * * * *
command = true

[never]
schedule = 0 0 30 2 *
command = true

[zone]
schedule = every 1s
timezone = Mars/Olympus_Mons
command = true

[who]
schedule = every 1s
user = tickd-no-such-user
command = true

[twice]
schedule = every 1s
command = true
command = false

[dup]
schedule = every 1s
command = true
EOF
cat >"$dir/check.d/b.job" <<'EOF'
[dup]
schedule = every 1s
command = true

[fine]
schedule = @daily
command = true

[envbad]
schedule = @daily
environment = 1BAD=x
environment = GOOD=1
  NOEQUALS
command = true
EOF
cat >"$dir/check.d/c.job" <<'EOF'
[c_ok]
schedule = every 1s
command = true
this line is neither a section nor a key
EOF
chmod 644 "$dir"/check.d/*
run_cmd "$TICKD" --check -c "$dir/check.conf"
expect_eq "--check bad: exit" "$rc" 1
c=$dir/check.d
expect_eq "--check bad: every problem" "$err" \
"$c/a.job:1: schedule: the key is outside any [section]
$c/a.job:6: colour: unknown key
$c/a.job:9: schedule: minute field: \"61\" is out of range 0-59
$c/a.job:13: schedule: schedule \"0 0 30 2 *\" never fires: no date matches its day-of-month, month and day-of-week
$c/a.job:18: timezone: unknown time zone \"Mars/Olympus_Mons\": /usr/share/zoneinfo/Mars/Olympus_Mons: No such file or directory
$c/a.job:23: user: unknown user \"tickd-no-such-user\"
$c/a.job:29: command: set twice (first at line 28)
$c/b.job:1: [dup]: duplicate job id (also defined at $c/a.job:31)
$c/b.job:11: environment: \"1BAD=x\" is not NAME=value
$c/b.job:12: environment: \"NOEQUALS\" is not NAME=value
$c/c.job:4: syntax error: expected [section], key = value, or a comment"
expect_eq "--check bad: summary" "$(first "$out")" "$dir/check.conf: 2 jobs valid, 11 problems"

# A good configuration.
rm "$dir"/check.d/*
cat >"$dir/check.d/good.job" <<'EOF'
[one]
schedule = */5 * * * * *
command = true ; echo "a; b # c %"

[two]
schedule = every 1h
timezone = Europe/Berlin
environment = A=b c
command = true
EOF
chmod 644 "$dir/check.d/good.job"
run_cmd "$TICKD" --check -c "$dir/check.conf"
expect_eq "--check good: exit" "$rc" 0
expect_eq "--check good: stderr" "$err" ""
expect_eq "--check good" "$(first "$out")" "$dir/check.conf: 2 jobs valid, 0 problems"
# How the jobs are tracked: no daemon recorded it, and without a cgroup
# key it is the cgroup the daemon will be started in, unknown here.
expect_eq "--check good: tracking" "$(printf '%s\n' "$out" | sed 1d)" \
    "jobs are tracked by the cgroup tickd is started in (not known before it starts: jobs' limits are checked then)"

# An invalid tickd.conf: --check says so, the daemon does not start.
write_conf "colour = blue"
run_cmd "$TICKD" --check -c "$dir/tickd.conf"
expect_eq "--check bad tickd.conf: exit" "$rc" 78
expect_eq "--check bad tickd.conf" "$err" "$dir/tickd.conf:5: colour: unknown key
tickd: $dir/tickd.conf is invalid"
write_job early.job <<'EOF'
[early]
schedule = every 1s
command = touch @DIR@/early.ran
EOF
daemon_spawn
daemon_stop 10 0	# signal 0: only wait for it to exit
expect_eq "invalid tickd.conf: exit status" "$daemon_rc" 78
log_has "tickd: error: $dir/tickd.conf:5: colour: unknown key" ||
    fail "invalid tickd.conf: the cause is not logged"
log_has "is invalid: not starting" || fail "invalid tickd.conf: no message"
checks=$((checks + 1))
[ ! -e "$db" ] || [ "$(sql 'SELECT count(*) FROM runs')" -eq 0 ] ||
    fail "invalid tickd.conf: runs were created"
[ ! -e "$dir/early.ran" ] || fail "invalid tickd.conf: a job ran"
write_conf

# A jobs_dir others can write in (sticky, as /tmp is, or not): whoever
# can delete or rename its files decides which jobs run.  --check says so
# at the line of tickd.conf that names it, and the daemon does not start,
# as for an unsafe tickd.conf (a reload keeps the running jobs:
# t_hostile_jobs.sh).
for mode in 1777 0757; do
	chmod "$mode" "$jobs"
	cause="$dir/tickd.conf:3: jobs_dir: $jobs: refused: tickd runs as root and the directory must be owned by root and not writable by group or others (owner uid 0, mode $mode)"
	run_cmd "$TICKD" --check -c "$dir/tickd.conf"
	expect_eq "--check, jobs_dir mode $mode" "$rc|$err|$(first "$out")" \
	    "1|$cause|$dir/tickd.conf: 0 jobs valid, 1 problems"
	daemon_spawn
	daemon_stop 10 0	# signal 0: only wait for it to exit
	expect_eq "jobs_dir mode $mode: exit status" "$daemon_rc" 78
	expect_eq "jobs_dir mode $mode: the cause, logged once" \
	    "$(log_count "tickd: error: $cause")" 1
	log_has "tickd: error: jobs_dir $jobs is not safe: not starting" ||
	    fail "jobs_dir mode $mode: no message"
done
chmod 755 "$jobs"
checks=$((checks + 1))
[ ! -e "$dir/early.ran" ] || fail "unsafe jobs_dir: a job ran"
rm "$jobs/early.job"

# --- options --------------------------------------------------------------------
run_cmd "$TICKD" -n --config="$dir/check.conf"
expect_eq "-n --config=FILE" "$rc|$(first "$out")" "0|$dir/check.conf: 2 jobs valid, 0 problems"
run_cmd "$TICKD" --check --config "$dir/check.conf"
expect_eq "--check --config FILE" "$rc" 0
# One job file checked alone (issue 19: editors, a configuration
# repository's CI), with the same file:line messages, even without a
# tickd.conf ([daemon]'s defaults); a second file's duplicate id is seen.
mkdir "$dir/repo"
printf '[one]\nschedule = @daily\ncommand = true\n\n[two]\nschedule = 61 * * * *\ncommand = true\n' \
    >"$dir/repo/a.job"
printf '[one]\nschedule = @hourly\ncommand = true\n' >"$dir/repo/b.job"
run_cmd "$TICKD" -n -c "$dir/repo/none.conf" "$dir/repo/a.job"
expect_eq "-n FILE.job: exit" "$rc" 1
expect_eq "-n FILE.job: summary" "$(first "$out")" "$dir/repo/a.job: 1 jobs valid, 1 problems"
expect_eq "-n FILE.job: its problem" "$err" \
    "$dir/repo/a.job:6: schedule: minute field: \"61\" is out of range 0-59"
run_cmd "$TICKD" -n -c "$dir/repo/none.conf" "$dir/repo/a.job" "$dir/repo/b.job"
expect_eq "-n two files: summary" "$(first "$out")" "2 job files: 1 jobs valid, 2 problems"
expect_match "-n two files: the duplicate id" "$err" \
    "*$dir/repo/b.job:1: \[one\]: duplicate job id (also defined at $dir/repo/a.job:1)*"
run_cmd "$TICKD" -n -c "$dir/check.conf" "$dir/repo/b.job"
expect_eq "-n -c FILE FILE.job" "$rc|$(first "$out")" "0|$dir/repo/b.job: 1 jobs valid, 0 problems"
run_cmd "$TICKD" -c "$dir/check.conf" "$dir/repo/b.job"
expect_eq "a job file without -n: exit" "$rc" 2
expect_match "a job file without -n" "$err" "tickd: unexpected argument*checked with -n FILE.job*"

# $TICKD_CONFIG as tickctl reads it (issue 19); -c wins over it.
run_cmd env TICKD_CONFIG="$dir/check.conf" "$TICKD" -n
expect_eq "TICKD_CONFIG" "$rc|$(first "$out")" "0|$dir/check.conf: 2 jobs valid, 0 problems"
run_cmd env TICKD_CONFIG="$dir/nonexistent.conf" "$TICKD" -n -c "$dir/check.conf"
expect_eq "-c over TICKD_CONFIG" "$rc|$(first "$out")" "0|$dir/check.conf: 2 jobs valid, 0 problems"
run_cmd env TICKD_CONFIG= "$TICKD" -n
expect_match "an empty TICKD_CONFIG is not one" "$err$out" "*/etc/tickd/tickd.conf*"
run_cmd "$TICKD" --check -c "$dir/nonexistent.conf"
expect_eq "--check missing file: exit" "$rc" 78
expect_eq "--check missing file: the hint" "$(first "$err")" \
    "$dir/nonexistent.conf: No such file or directory (no configuration there: give its path with -c FILE or TICKD_CONFIG; make install puts one at /etc/tickd/tickd.conf)"
run_cmd "$TICKD" --log-target bogus -c "$dir/check.conf"
expect_eq "--log-target bogus: exit" "$rc" 2
expect_eq "--log-target bogus" "$err" \
    "tickd: --log-target: \"bogus\" is not journal, stderr or auto"
run_cmd "$TICKD" -c "$dir/check.conf" extra
expect_eq "extra argument: exit" "$rc" 2
run_cmd "$TICKD" --no-such-option
expect_eq "unknown option: exit" "$rc" 2
run_cmd "$TICKD" --version
expect_match "--version" "$rc $out" "0 tickd [0-9]*"
run_cmd "$TICKD" --help
expect_match "--help" "$rc $out" "0 usage: tickd *"

# --- the daemon with good and bad job files ---------------------------------------
write_job good.job <<'EOF'
[good]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/good.out
EOF
# A line inih rejects: every job of the file is out, even the one before it.
write_job syntax.job <<'EOF'
[syn1]
schedule = every 1s
command = touch @DIR@/syn1.ran
this line is neither a section nor a key
[syn2]
schedule = every 1s
command = touch @DIR@/syn2.ran
EOF
# A bad value: only its job is out.
write_job mixed.job <<'EOF'
[m_bad]
schedule = every 1s
command = touch @DIR@/m_bad.ran
colour = blue

[m_ok]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/m_ok.out
EOF
# An 8 KiB value (inih's default would cut it at 200 bytes) and ";".
long=$(head -c 8192 /dev/zero | tr '\0' z)
write_job long.job <<EOF
[long]
schedule = every 1s
command = printf '%s' '$long' > @DIR@/long.out; echo done >> @DIR@/long.out

[semi]
schedule = every 1s
command = echo a >> @DIR@/semi.out ; echo b >> @DIR@/semi.out
EOF
# Not job files: ignored, logged once (a hidden one says why).
for name in x.job~ x.job.dpkg-old README .hidden.job; do
	printf '[ign%s]\nschedule = every 1s\ncommand = touch %s/ign.ran\n' \
	    "$(echo "$name" | tr -cd a-z)" "$dir" >"$jobs/$name"
done
# Unsafe job files, refused: writable by group, by others, not owned by
# root, a symbolic link.
for f in gw ow nr real; do
	printf '[%s]\nschedule = every 1s\ncommand = touch %s/%s.ran\n' \
	    "$f" "$dir" "$f" >"$jobs/$f.job"
	chmod 644 "$jobs/$f.job"
done
chmod 664 "$jobs/gw.job"
chmod 646 "$jobs/ow.job"
chown nobody "$jobs/nr.job"
mv "$jobs/real.job" "$dir/real.job"
ln -s "$dir/real.job" "$jobs/link.job"

daemon_start
expect_match "ready: the good jobs" "$(grep -F 'ready:' "$log" | tail -n 1)" \
    "tickd: notice: ready: 4 jobs (*"
wait_for "2 runs of good" 10 eval '[ "$(lines "$dir/good.out")" -ge 2 ]'
wait_for "a run of m_ok" 10 test -s "$dir/m_ok.out"
wait_for "a run of long" 10 eval '[ "$(lines "$dir/long.out")" -ge 1 ]'
wait_for "a run of semi" 10 test -s "$dir/semi.out"

expect_eq "jobs with runs" "$(sql 'SELECT DISTINCT job FROM runs ORDER BY job' |
    tr '\n' ' ')" "good long m_ok semi "
for f in syn1 syn2 m_bad ign gw ow nr real; do
	checks=$((checks + 1))
	[ ! -e "$dir/$f.ran" ] || fail "$f ran"
done
expect_eq "long: the 8 KiB value whole" "$(head -n 1 "$dir/long.out")" \
    "${long}done"
expect_eq "semi: both commands" "$(head -n 2 "$dir/semi.out" | tr '\n' ' ')" "a b "

# Each problem is logged at error level.
for text in \
    "$jobs/syntax.job:4: syntax error" \
    "$jobs/mixed.job:4: colour: unknown key" \
    "$jobs/gw.job: refused: tickd runs as root and the file must be owned by root and not writable by group or others (owner uid 0, mode 0664)" \
    "$jobs/ow.job: refused: tickd runs as root and the file must be owned by root and not writable by group or others (owner uid 0, mode 0646)" \
    "$jobs/nr.job: refused: tickd runs as root and the file must be owned by root and not writable by group or others (owner uid $(id -u nobody), mode 0644)" \
    "$jobs/link.job: is a symbolic link, which is not followed"; do
	expect_eq "logged once at error level: $text" \
	    "$(log_count "tickd: error: $text")" 1
done
# Ignored names: logged once, not again on reload.
for name in x.job~ x.job.dpkg-old README; do
	expect_eq "ignored $name: logged" \
	    "$(log_count "tickd: notice: $jobs/$name: ignored: only *.job files hold jobs")" 1
done
expect_eq "ignored .hidden.job: logged, saying why" \
    "$(log_count "tickd: notice: $jobs/.hidden.job: ignored: a hidden file (its name starts with a dot), as editors' and dpkg's leftovers are")" 1
kill -HUP "$tickd_pid"
wait_for "the reload" 10 log_has "reload partially failed"
for name in x.job~ x.job.dpkg-old README; do
	expect_eq "ignored $name: logged once" "$(log_count "$jobs/$name: ignored")" 1
done
# --check sees the unsafe files too.
run_cmd "$TICKD" --check -c "$dir/tickd.conf"
expect_eq "--check: exit" "$rc" 1
expect_eq "--check: problems" "$(echo "$err" | wc -l)" 6
daemon_stop_ok
done_ok

#!/bin/sh
# tickd run unprivileged (as nobody, through setpriv): jobs run as tickd's
# own user with that user's environment; a job naming another user is a
# configuration error for that job only.  Job files (and tickd.conf) may
# be owned by tickd's user or root, and must not be writable by group or
# others: anyone who could change one would run commands as tickd's user.
# The state directory must be tickd's user's or root's and not writable
# by group or others; the database is the user's, mode 0600.
. tests/integration/lib.sh
setup
[ "$(id -u)" -eq 0 ] || { echo "needs root to become nobody"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv is missing"; exit 77; }
nobody_uid=$(id -u nobody)
nobody_gid=$(id -g nobody)
nobody_home=$(getent passwd nobody | cut -d: -f6)

chmod 755 "$dir"
mkdir "$dir/state" "$dir/w"
chown nobody "$dir/state" "$dir/w"
cg_delegate nobody
# The control socket where nobody may create it.
write_conf "control = state/ctl.sock"
write_job me.job <<'EOF2'
[me]
schedule = every 1s
workdir = @DIR@/w
command = echo "$TICKD_RUN_ID $(id -u) $(id -g) $USER $LOGNAME $HOME $(pwd)" >> @DIR@/w/me.out

[other]
schedule = every 1s
user = root
command = touch @DIR@/w/other.ran
EOF2
# Owned by nobody: fine.  Writable by others, or owned by another user
# than nobody or root: refused.
for f in mine loose alien; do
	write_job $f.job <<EOF2
[$f]
schedule = every 1s
workdir = /
command = echo "\$TICKD_RUN_ID" >> @DIR@/w/$f.out
EOF2
done
chown nobody "$jobs/mine.job" "$jobs/loose.job"
chmod 666 "$jobs/loose.job"
alien_uid=4242
chown $alien_uid "$jobs/alien.job"
refusal="and the file must be owned by uid $nobody_uid or root and not writable by group or others"
refused_alien="$jobs/alien.job: refused: tickd runs as uid $nobody_uid $refusal (owner uid $alien_uid, mode 0644)"
refused_loose="$jobs/loose.job: refused: tickd runs as uid $nobody_uid $refusal (owner uid $nobody_uid, mode 0666)"
user_root="$jobs/me.job:8: user: user \"root\": tickd runs as uid $nobody_uid, not root, and cannot switch users"

tickd_wrap="setpriv --reuid=$nobody_uid --regid=$nobody_gid --clear-groups"
run_cmd $tickd_wrap "$TICKD" --check -c "$dir/tickd.conf"
expect_eq "--check: exit" "$rc" 1
expect_eq "--check: the problems" "$err" "$refused_alien
$refused_loose
$user_root"
# tickd.conf itself: the same rule; refused, it is invalid.
cp "$dir/tickd.conf" "$dir/loose.conf"
chmod 664 "$dir/loose.conf"
run_cmd $tickd_wrap "$TICKD" --check -c "$dir/loose.conf"
expect_eq "--check, tickd.conf writable by its group: exit" "$rc" 78
expect_eq "--check, tickd.conf writable by its group: the problem" "$err" \
    "$dir/loose.conf: refused: tickd runs as uid $nobody_uid $refusal (owner uid 0, mode 0664)
tickd: $dir/loose.conf is invalid"
rm "$dir/loose.conf"

daemon_start
expect_eq "tickd runs as nobody" "$(stat -c %u "/proc/$tickd_pid")" "$nobody_uid"
wait_for "2 runs of me" 10 eval '[ "$(lines "$dir/w/me.out")" -ge 2 ]'
wait_for "a run of mine" 10 test -s "$dir/w/mine.out"
for l in "$user_root" "$refused_alien" "$refused_loose"; do
	log_has "tickd: error: $l" || fail "not logged: $l"
	checks=$((checks + 1))
done
# The control socket: the daemon's own user may steer it, as root may.
run_cmd $tickd_wrap "$TICKCTL" -c "$dir/tickd.conf" pause me
expect_eq "tickctl pause as nobody" "$rc $out" "0 me paused"
run_cmd "$TICKCTL" -c "$dir/tickd.conf" resume me
expect_match "tickctl resume as root" "$rc $out" "0 me resumed: next at *"
# tickctl run by root checks the configuration as the daemon reads it
# (the store says it runs as nobody): the root job and the files nobody
# must not trust are problems, nobody's own file is not; a job naming no
# user runs as nobody.
run_cmd "$TICKCTL" -c "$dir/tickd.conf" check
expect_eq "check as root: exit" "$rc" 1
expect_match "check as root: as the daemon's uid" "$out" \
    "CRITICAL: *; configuration checked as uid $nobody_uid, the daemon's*"
for l in "$user_root" "$refused_alien" "$refused_loose"; do
	expect_match "check as root: the daemon's problem" "$out" "*$l*"
done
case $out in *mine*) fail "check as root: mine.job reported: $out" ;; esac
checks=$((checks + 1))
expect_eq "check --json as root: as_uid" "$("$TICKCTL" -c "$dir/tickd.conf" \
    --json check | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["as_uid"])')" \
    "$nobody_uid"
expect_eq "env as root: the job's user" "$("$TICKCTL" -c "$dir/tickd.conf" env mine |
    grep -E '^(USER|HOME)=' | sort | tr '\n' ' ')" "HOME=$nobody_home USER=nobody "
daemon_stop_ok
expect_eq "me: no run twice" "$(cut -d' ' -f1 "$dir/w/me.out" | sort | uniq -d)" ""
for id in $(sql "SELECT run_id FROM runs WHERE job = 'me' AND
    status = 'succeeded'"); do
	expect_eq "$id: identity and environment" "$(grep -F "$id " "$dir/w/me.out")" \
	    "$id $nobody_uid $nobody_gid nobody nobody $nobody_home $dir/w"
done
checks=$((checks + 1))
[ ! -e "$dir/w/other.ran" ] || fail "other ran"
expect_eq "jobs that ran" "$(sql 'SELECT DISTINCT job FROM runs ORDER BY job' |
    tr '\n' ' ')" "me mine "
expect_eq "state: nobody's, mode 0600" "$(stat -c '%u %a' "$db")" \
    "$nobody_uid 600"

# A state directory writable by its group: tickd does not start.
chmod 775 "$dir/state"
# (timeout: a tickd that starts anyway is stopped, with another status.)
run_cmd timeout $((10 * slow)) $tickd_wrap "$TICKD" -c "$dir/tickd.conf" \
    --log-target=stderr
expect_eq "state directory writable by its group: exit" "$rc" 78
expect_eq "state directory writable by its group: the refusal" \
    "$(printf '%s\n' "$err" | grep -F 'state directory')" \
    "tickd: error: state directory $dir/state: refused: it must be owned by uid $nobody_uid or root and not writable by group or others (owner uid $nobody_uid, mode 0775): not starting"
done_ok

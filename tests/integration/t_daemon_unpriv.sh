#!/bin/sh
# tickd run unprivileged (as nobody, through setpriv): jobs run as tickd's
# own user with that user's environment; a job naming another user is a
# configuration error for that job only; job files need not be owned by
# root then.
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
# Owned by nobody and writable by others: fine when tickd is not root.
write_job loose.job <<'EOF2'
[loose]
schedule = every 1s
workdir = /
command = echo "$TICKD_RUN_ID" >> @DIR@/w/loose.out
EOF2
chown nobody "$jobs/loose.job"
chmod 666 "$jobs/loose.job"

tickd_wrap="setpriv --reuid=$nobody_uid --regid=$nobody_gid --clear-groups"
run_cmd $tickd_wrap "$TICKD" --check -c "$dir/tickd.conf"
expect_eq "--check: exit" "$rc" 1
expect_eq "--check: the problem" "$err" \
    "$jobs/me.job:8: user: user \"root\": tickd runs as uid $nobody_uid, not root, and cannot switch users"

daemon_start
expect_eq "tickd runs as nobody" "$(stat -c %u "/proc/$tickd_pid")" "$nobody_uid"
wait_for "2 runs of me" 10 eval '[ "$(lines "$dir/w/me.out")" -ge 2 ]'
wait_for "a run of loose" 10 test -s "$dir/w/loose.out"
log_has "tickd: error: $jobs/me.job:8: user: user \"root\": tickd runs as uid $nobody_uid" ||
    fail "other: the error is not logged"
# The control socket: the daemon's own user may steer it, as root may.
run_cmd $tickd_wrap "$TICKCTL" -c "$dir/tickd.conf" pause me
expect_eq "tickctl pause as nobody" "$rc $out" "0 me paused"
run_cmd "$TICKCTL" -c "$dir/tickd.conf" resume me
expect_match "tickctl resume as root" "$rc $out" "0 me resumed: next at *"
# tickctl run by root checks the configuration as the daemon reads it
# (the store says it runs as nobody): the root job is a problem, the loose
# file is not; a job naming no user runs as nobody.
run_cmd "$TICKCTL" -c "$dir/tickd.conf" check
expect_eq "check as root: exit" "$rc" 1
expect_match "check as root: as the daemon's uid" "$out" \
    "CRITICAL: *; configuration checked as uid $nobody_uid, the daemon's*"
expect_match "check as root: the daemon's problem" "$out" \
    "*$jobs/me.job:8: user: user \"root\": tickd runs as uid $nobody_uid, not root, and cannot switch users*"
case $out in *loose*) fail "check as root: loose.job reported: $out" ;; esac
checks=$((checks + 1))
expect_eq "check --json as root: as_uid" "$("$TICKCTL" -c "$dir/tickd.conf" \
    --json check | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["as_uid"])')" \
    "$nobody_uid"
expect_eq "env as root: the job's user" "$("$TICKCTL" -c "$dir/tickd.conf" env loose |
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
    tr '\n' ' ')" "loose me "
expect_eq "state owned by nobody" "$(stat -c %u "$db")" "$nobody_uid"
done_ok

#!/bin/sh
# tickctl import-crontab on real-world crontabs: the output is a valid job
# file (tickd -n), schedules fire when cron's would, variables, CRON_TZ,
# the user column and cron's "%" rule are carried over, and what cannot
# be converted is commented out with the reason (exit 1).
. tests/integration/lib.sh
setup
write_conf
data=$PWD/tests/data/crontab

# A user crontab.
run_cmd "$TICKCTL" import-crontab --prefix u "$data/user-crontab"
expect_eq "user crontab: exit (one bad entry)" "$rc" 1
expect_match "user crontab: the bad entry named" "$err" \
    "*1 entry could not be converted*"
printf '%s\n' "$out" > "$dir/jobs.d/user.job"
expect_match "bad entry commented out with its reason" "$out" \
    '*# *user-crontab:13: not converted: minute field: "61" is out of range 0-59*'
expect_match "MAILTO noted" "$out" "*# MAILTO=ops@example.com: tickd sends no mail*"
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "converted user crontab is valid: exit" "$rc" 0
expect_match "converted user crontab: six jobs" "$(first "$out")" "*: 6 jobs valid, 0 problems"
for id in u-1 u-2 u-3 u-5 u-6; do
	expect_eq "$id: timezone" "$("$TICKCTL" -c "$dir/tickd.conf" --json \
	    status "$id" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["timezone"])')" \
	    "Europe/Berlin"
done
# The schedules fire when cron's would (CRON_TZ=Europe/Berlin).
expect_eq "u-1: next instants" \
    "$("$TICKCTL" -c "$dir/tickd.conf" next u-1 --from 2027-03-27T00:00:00Z -n 3)" \
    "$("$TICKCTL" next --cron '30 2 * * *' --tz Europe/Berlin --from 2027-03-27T00:00:00Z -n 3)"
expect_eq "u-3: next instants" \
    "$("$TICKCTL" -c "$dir/tickd.conf" next u-3 --from 2027-01-01T00:00:00Z -n 6)" \
    "$("$TICKCTL" next --cron '0 9 * * mon-fri' --tz Europe/Berlin --from 2027-01-01T00:00:00Z -n 6)"
# Variables, quotes removed, in every job after them.
expect_eq "u-1: environment" "$("$TICKCTL" -c "$dir/tickd.conf" env u-1 |
    grep -E '^(PATH|BACKUP_DIR)=')" "PATH=/usr/local/bin:/usr/bin:/bin
BACKUP_DIR=/srv/backup"
# Cron's %: the rest is the command's stdin, % is a newline, \% a %.
cmd=$(sed -n '/^\[u-5\]/,/^$/p' "$dir/jobs.d/user.job" | sed -n 's/^command = //p')
expect_eq "u-5: command" "$cmd" \
    "printf '%s\n' 'first line' 'second line' | date +%Y > /tmp/year"
sh -c "$(echo "$cmd" | sed "s|date +%Y > /tmp/year|cat > $dir/stdin|")"
expect_eq "u-5: the stdin cron would give" "$(cat "$dir/stdin")" \
    "first line
second line"
expect_match "u-6: a # in a command is the shell's" "$(sed -n '/^\[u-6\]/,/^$/p' \
    "$dir/jobs.d/user.job")" "*command = tar czf /srv/home.tgz /home   # comment kept*"

# Debian's /etc/crontab: a user column; SHELL=/bin/sh needs nothing.
rm -f "$dir/jobs.d/user.job"
run_cmd "$TICKCTL" import-crontab --system "$data/debian-etc-crontab"
expect_eq "system crontab: exit" "$rc" 0
printf '%s\n' "$out" > "$dir/jobs.d/system.job"
expect_eq "system crontab: users" "$(grep -c '^user = root$' "$dir/jobs.d/system.job")" 4
expect_eq "system crontab: no SHELL variable" "$(grep -c 'SHELL' "$dir/jobs.d/system.job")" 0
expect_match "system crontab: the command without the user" "$out" \
    "*command = test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }*"
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "converted system crontab is valid" "$rc" 0

# Debian's /etc/cron.d files as packages ship them (certbot, e2scrub_all,
# php, sysstat) and a site's own with CRON_TZ and an empty MAILTO, in one
# call: each file's variables stay its own.
rm -f "$dir/jobs.d/system.job"
run_cmd "$TICKCTL" import-crontab --system --prefix d "$data/debian-cron.d-certbot" \
    "$data/debian-cron.d-e2scrub_all" "$data/debian-cron.d-php" \
    "$data/debian-cron.d-sysstat" "$data/cron.d-tz-mailto"
expect_eq "cron.d files: exit" "$rc" 0
printf '%s\n' "$out" > "$dir/jobs.d/crond.job"
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "converted cron.d files are valid: exit" "$rc" 0
expect_match "converted cron.d files: seven jobs" "$(first "$out")" "*: 7 jobs valid, 0 problems"
job() { sed -n "/^\[$1\]/,/^\$/p" "$dir/jobs.d/crond.job"; }
expect_eq "certbot: the job" "$(job d-1)" "[d-1]
schedule = 0 */12 * * *
user = root
environment = PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin
command = test -x /usr/bin/certbot -a \\! -d /run/systemd/system && perl -e 'sleep int(rand(43200))' && certbot -q renew"
expect_eq "e2scrub_all: no variables of certbot's" "$(job d-2 | grep -c '^environment')" 0
expect_eq "php: next instants as cron's" \
    "$("$TICKCTL" -c "$dir/tickd.conf" next d-4 --from 2027-01-01T00:00:00Z -n 4)" \
    "$("$TICKCTL" next --cron '9,39 * * * *' --from 2027-01-01T00:00:00Z -n 4)"
expect_eq "sysstat: its PATH, both jobs" "$(grep -c '^environment = PATH=/usr/lib/sysstat:' \
    "$dir/jobs.d/crond.job")" 2
expect_eq "sysstat: next instants as cron's" \
    "$("$TICKCTL" -c "$dir/tickd.conf" next d-5 --from 2027-01-01T00:00:00Z -n 7)" \
    "$("$TICKCTL" next --cron '5-55/10 * * * *' --from 2027-01-01T00:00:00Z -n 7)"
expect_eq "CRON_TZ and the user column" "$(job d-7 | grep -E '^(timezone|user) ')" \
    "timezone = America/New_York
user = backup"
expect_eq "CRON_TZ: next instants as cron's" \
    "$("$TICKCTL" -c "$dir/tickd.conf" next d-7 --from 2027-03-13T00:00:00Z -n 3)" \
    "$("$TICKCTL" next --cron '0 2 * * *' --tz America/New_York --from 2027-03-13T00:00:00Z -n 3)"
expect_eq "an empty MAILTO noted" "$(grep -c '^# MAILTO is empty: cron sent no mail' \
    "$dir/jobs.d/crond.job")" 1
rm -f "$dir/jobs.d/crond.job"

# Usage errors.
run_cmd "$TICKCTL" import-crontab
expect_eq "no file: exit" "$rc" 2
run_cmd "$TICKCTL" import-crontab --prefix 'a b' "$data/user-crontab"
expect_eq "bad prefix: exit" "$rc" 2
run_cmd "$TICKCTL" import-crontab /nonexistent/crontab
expect_eq "missing file: exit" "$rc" 1
# Two files with variables in one call (a double free, found by fuzzing):
# each file's jobs get their own file's variables only.
run_cmd "$TICKCTL" import-crontab "$data/user-crontab" "$data/user-crontab"
expect_eq "two files: exit (one bad entry each)" "$rc" 1
expect_eq "two files: each file's variables, once per job" \
    "$(printf '%s\n' "$out" | grep -c '^environment = BACKUP_DIR=/srv/backup$')" \
    "$(($(printf '%s\n' "$out" | grep -c '^\[') ))"
# Many variables: every one reaches the job (there was a limit of 64).
i=0
while [ $i -lt 100 ]; do echo "V$i=value$i"; i=$((i + 1)); done > "$dir/many"
echo 'V7=again' >> "$dir/many"
echo '* * * * * true' >> "$dir/many"
run_cmd "$TICKCTL" import-crontab --prefix m "$dir/many"
expect_eq "100 variables: exit" "$rc" 0
expect_eq "100 variables: all kept" \
    "$(printf '%s\n' "$out" | grep -c '^environment = V[0-9]*=')" 100
expect_match "100 variables: the last one" "$out" "*environment = V99=value99*"
expect_match "100 variables: a name set twice keeps the later value" \
    "$out" "*environment = V7=again*"
done_ok

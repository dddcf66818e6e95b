#!/bin/sh
# tickctl import-crontab on real-world crontabs: the output is a valid job
# file (tickd -n), schedules fire when cron's would, variables, CRON_TZ,
# the user column and cron's "%" rule are carried over, and what cannot
# be converted is commented out with the reason (exit 1).  Imported jobs
# behave as under Debian's cron: its environment, its escapes byte for
# byte (run under tickd), "test ... &&" as only_if, ids unique in a run.
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

# Debian's /etc/crontab: a user column; SHELL=/bin/sh kept, as cron
# exports it.
rm -f "$dir/jobs.d/user.job"
run_cmd "$TICKCTL" import-crontab --system "$data/debian-etc-crontab"
expect_eq "system crontab: exit" "$rc" 0
printf '%s\n' "$out" > "$dir/jobs.d/system.job"
expect_eq "system crontab: users" "$(grep -c '^user = root$' "$dir/jobs.d/system.job")" 4
expect_eq "system crontab: SHELL=/bin/sh in every job" \
    "$(grep -c '^environment = SHELL=/bin/sh$' "$dir/jobs.d/system.job")" 4
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
expect_eq "CRON_TZ: said on stderr, once per entry" "$err" \
    "tickctl: import-crontab: $data/cron.d-tz-mailto:5: CRON_TZ=America/New_York: Debian's cron ignores it, tickd follows it (timezone = America/New_York)"
printf '%s\n' "$out" > "$dir/jobs.d/crond.job"
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "converted cron.d files are valid: exit" "$rc" 0
expect_match "converted cron.d files: seven jobs" "$(first "$out")" "*: 7 jobs valid, 0 problems"
job() { sed -n "/^\[$1\]/,/^\$/p" "$dir/jobs.d/crond.job"; }
expect_eq "certbot: the job" "$(job d-1)" "[d-1]
schedule = 0 */12 * * *
user = root
environment = SHELL=/bin/sh
environment = PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin
only_if = test -x /usr/bin/certbot -a \\! -d /run/systemd/system
command = perl -e 'sleep int(rand(43200))' && certbot -q renew"
expect_eq "e2scrub_all: cron's environment, none of certbot's" \
    "$(job d-2 | grep '^environment')" "environment = PATH=/usr/bin:/bin
environment = SHELL=/bin/sh"
expect_eq "e2scrub_all: test ... || is no condition" "$(job d-2 | grep -c '^only_if')" 0
expect_eq "php: its test as only_if, the if ... fi as command" \
    "$(job d-4 | grep -E '^(only_if|command) ')" \
    "only_if = [ -x /usr/lib/php/sessionclean ]
command = if [ ! -d /run/systemd/system ]; then /usr/lib/php/sessionclean; fi"
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
expect_match "CRON_TZ: said in the job" "$(job d-7)" \
    "*# CRON_TZ=America/New_York: Debian's cron ignores it*"
expect_match "header: misfire named" "$(cat "$dir/jobs.d/crond.job")" \
    "*misfire = run_once:*cron forgot it*"
expect_match "header: overlap named" "$(cat "$dir/jobs.d/crond.job")" \
    "*overlap = skip:*cron starts another copy*"
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
# Two files of one base name (and one named as the second's prefix): the
# ids stay unique across the run, the same on every run.
mkdir "$dir/a" "$dir/b" "$dir/c"
echo '0 1 * * * root true' > "$dir/a/backup"
printf '0 2 * * * root true\n0 3 * * * root true\n' > "$dir/b/backup"
echo '0 4 * * * root true' > "$dir/c/backup-2"
run_cmd "$TICKCTL" import-crontab --system "$dir/a/backup" "$dir/b/backup" \
    "$dir/c/backup-2"
expect_eq "same names: exit" "$rc" 0
expect_eq "same names: ids" "$(printf '%s\n' "$out" | grep '^\[')" "[backup-1]
[backup-2-1]
[backup-2-2]
[backup-2-2-1]"
printf '%s\n' "$out" > "$jobs/same.job"
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_match "same names: all valid" "$(first "$out")" "*: 4 jobs valid, 0 problems"
rm "$jobs/same.job"

# The working directory: nobody's home (/nonexistent) is said per entry;
# a HOME of the crontab is the job's workdir, as cron changes into $HOME
# (/ when it is missing: cron ignores the failed chdir).
printf '%s\n' '0 1 * * * nobody true' "HOME=$dir" '0 2 * * * nobody true' \
    'HOME=/nonexistent/x' '0 3 * * * nobody true' > "$dir/homes"
run_cmd "$TICKCTL" import-crontab --system --prefix h "$dir/homes"
expect_match "missing home: said" "$out" \
    "*\[h-1\]*# workdir: / (home /nonexistent does not exist; cron ignores the failed chdir)*\[h-2\]*"
expect_match "HOME of the crontab: workdir" "$out" "*\[h-2\]*workdir = $dir
*"
expect_match "HOME of the crontab missing: workdir /, said" "$out" \
    "*\[h-3\]
schedule = 0 3 \* \* \*
user = nobody
# workdir: / (HOME=/nonexistent/x is not a directory here; cron ignores the failed chdir)
workdir = /
*"

# Debian's mdadm (its \% in a $(date)): the command as cron runs it.
cat > "$dir/mdadm" <<'EOF'
57 0 * * 0 root if [ -x /usr/share/mdadm/checkarray ] && [ $(date +\%d) -le 7 ]; then /usr/share/mdadm/checkarray --cron --all --idle --quiet; fi
EOF
run_cmd "$TICKCTL" import-crontab --system "$dir/mdadm"
expect_eq "mdadm: \\% is %, no condition (an if)" \
    "$(printf '%s\n' "$out" | grep -E '^(only_if|command) ')" \
    'command = if [ -x /usr/share/mdadm/checkarray ] && [ $(date +%d) -le 7 ]; then /usr/share/mdadm/checkarray --cron --all --idle --quiet; fi'

# Escapes byte for byte: imported jobs run under tickd write what the same
# lines write under Debian's cron (expected bytes from its do_command.c:
# "\\" is "\" in the command, "%" starts the input, "cat%" reads nothing).
mkdir "$dir/out"
sed "s|@OUT@|$dir/out|" > "$dir/escapes" <<'EOF'
HOME=@OUT@
* * * * * awk 'BEGIN{print "a\\tb"}' > tab
* * * * * cat > empty%
* * * * * exec > backslash; echo 100\\%
* * * * * exec > lines; cat%line one%line two
* * * * * printf '\%s|\%s\n' a b > percent
* * * * * exec > input; cat%a\\%b\%c%
* * * * * env > env
* * * * * test -x /nonexistent/foo && echo ran > skipped
* * * * * [ -d / ] && echo ran > ran
SHELL=/bin/bash
* * * * * [[ -n $BASH_VERSION ]] && echo "$SHELL" > bash
EOF
run_cmd "$TICKCTL" import-crontab --prefix e "$dir/escapes"
expect_eq "escapes: exit" "$rc" 0
printf '%s\n' "$out" > "$jobs/escapes.job"
daemon_start
for n in 1 2 3 4 5 6 7 8 9 10; do
	run_cmd ctl run "e-$n" --wait
done
bytes() { od -An -c "$dir/out/$1"; }
expect_eq "awk's \\\\t: a TAB, as cron" "$(bytes tab)" "$(printf 'a\tb\n' | od -An -c)"
expect_eq "cat%: empty input" "$(wc -c < "$dir/out/empty")" 0
expect_eq "echo 100\\\\%: echo 100\\ with no input" "$(bytes backslash)" \
    "$(printf '100\\\n' | od -An -c)"
expect_eq "%: lines of input" "$(bytes lines)" "$(printf 'line one\nline two\n' | od -An -c)"
expect_eq "\\%: a %" "$(bytes percent)" "$(printf 'a|b\n' | od -An -c)"
expect_eq "input: \\\\% and \\% as cron writes them" "$(bytes input)" \
    "$(printf 'a\\%%b%%c\n' | od -An -c)"
expect_eq "environment: cron's" "$(grep -E '^(SHELL|PATH|HOME|LOGNAME)=' \
    "$dir/out/env" | sort)" "HOME=$dir/out
LOGNAME=$(id -un)
PATH=/usr/bin:/bin
SHELL=/bin/sh"
expect_eq "test ... &&: a condition, not run" "$([ -e "$dir/out/skipped" ] ||
    echo absent)" absent
expect_eq "test ... &&: the instance skipped, reason condition" \
    "$(sql "SELECT status || '|' || coalesce(reason, '') FROM runs
    WHERE job = 'e-8' ORDER BY id DESC LIMIT 1")" "skipped|condition"
expect_eq "[ ... ] &&: run" "$(cat "$dir/out/ran")" "ran"
expect_eq "SHELL=/bin/bash: the command run by bash, as cron" \
    "$(cat "$dir/out/bash")" "/bin/bash"
done_ok

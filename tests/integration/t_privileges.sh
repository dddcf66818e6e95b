#!/bin/sh
# Privileges (issue 7), tickd running as root.
# 1. The programs of root jobs: a root job whose program (the first word
#    of command or on_failure, when an absolute path) or its directory is
#    owned by another user or writable by group or others is warned about
#    as "file:line: command: ..." by tickd -n, in the log at warning level
#    and by tickctl check, and runs; with strict_exec = yes (in the job, or
#    as the [daemon] default) it is an error, and at a reload such a job
#    stops instead of keeping its previous definition.  Jobs of other
#    users, programs found through PATH and safe programs are left alone.
# 2. user=: a test user with two supplementary groups (made with groupadd
#    and useradd, removed at exit): uid, gid and groups from id and
#    /proc/self/status, no capabilities left, HOME, USER, LOGNAME and SHELL
#    from the password database, the home as working directory, group=
#    as the primary group; the umask is the daemon's; only descriptors
#    0-2; tickd's descriptors out of reach, tickd not signalable, its
#    state database (mode 0600, made so under umask 022) neither readable
#    nor writable, its directory not writable.
# 3. The state: a directory writable by group or others, or owned by
#    another user than root, stops tickd at startup (exit 78, one line);
#    so does a database owned by another user; a database readable by
#    others is narrowed to 0600, with a warning.
# Other users on the control socket: t_ctl_errors.sh.
. tests/integration/lib.sh
setup
[ "$(id -u)" -eq 0 ] || { echo "not root"; exit 77; }
for c in useradd userdel groupadd groupdel; do
	command -v "$c" >/dev/null || { echo "$c is missing"; exit 77; }
done

# The test user and groups, removed at exit (before lib.sh's cleanup,
# which sees the exit status first).
tu=tkdp$$ ga=tkdp$$a gb=tkdp$$b
priv_cleanup() {
	userdel -f "$tu" >/dev/null 2>&1
	for _g in "$tu" "$ga" "$gb"; do
		groupdel "$_g" >/dev/null 2>&1
	done
}
trap '_prc=$?; priv_cleanup; (exit $_prc); cleanup' EXIT
groupadd "$ga" || fail "groupadd $ga"
groupadd "$gb" || fail "groupadd $gb"
useradd -M -d "$dir/home" -s /bin/bash -U -G "$ga,$gb" "$tu" ||
    fail "useradd $tu"
uid=$(id -u "$tu")
# The user reaches its home and the programs through $dir; the state
# directory is made beforehand, readable by all (as a careless package
# would), so that only the database's own mode keeps the user out.
chmod 711 "$dir"
mkdir -m 700 "$dir/home"
chown "$tu:$tu" "$dir/home"
mkdir -m 755 "$dir/state"
: >"$dir/ran"
chmod 666 "$dir/ran"

# --- 1. the programs of root jobs ------------------------------------------------
b=$dir/bin
# mkprog PATH [MODE] [OWNER]: a program that records which job ran it.
mkprog() {
	printf '#!/bin/sh\necho "$TICKD_JOB" >> %s/ran\n' "$dir" >"$1"
	chmod "${2:-755}" "$1"
	[ -z "${3:-}" ] || chown "$3" "$1"
}
mkdir -m 755 "$b" "$b/safe" "$b/gw" "$b/own" "$b/odir"
mkdir -m 777 "$b/wdir"
chown "$tu" "$b/odir"
mkprog "$b/safe/prog"
mkprog "$b/gw/prog" 775
mkprog "$b/wdir/prog"
mkprog "$b/own/prog" 755 "$tu"
mkprog "$b/own/both" 775 "$tu"
mkprog "$b/odir/prog"
mkprog "$b/odir/gwprog" 775
ln -s ../gw/prog "$b/safe/link"

cat >"$jobs/exec.job" <<EOF
[safe]
schedule = every 1s
command = $b/safe/prog --flag

[gw]
schedule = every 1s
command = $b/gw/prog

[wdir]
schedule = every 1s
command = $b/wdir/prog; true

[owned]
schedule = every 1s
command = $b/own/prog

[both]
schedule = every 1s
command = $b/own/both

[odir]
schedule = every 1s
command = $b/odir/prog

[multi]
schedule = every 1s
command = $b/odir/gwprog

[link]
schedule = every 1s
command = $b/safe/link

[missing]
schedule = every 1s
command = $b/wdir/nothere || true

[hook]
schedule = @yearly
on_failure = $b/gw/prog
command = true

[lenient]
schedule = every 1s
strict_exec = no
command = $b/gw/prog

[asuser]
schedule = every 1s
user = $tu
command = $b/gw/prog

[viapath]
schedule = every 1s
environment = PATH=$b/gw:/usr/bin:/bin
command = prog

[strict]
schedule = every 1s
strict_exec = yes
command = $b/gw/prog
EOF
chmod 644 "$jobs/exec.job"
x=$jobs/exec.job root=", and the job runs as root"
gwm="is writable by group or others (mode 0775)"
wdm="is writable by group or others (mode 0777)"
warnings="$x:7: command: $b/gw/prog $gwm$root
$x:11: command: $b/wdir $wdm$root
$x:15: command: $b/own/prog is owned by uid $uid, not root$root
$x:19: command: $b/own/both is owned by uid $uid and writable by group or others (mode 0775)$root
$x:23: command: $b/odir is owned by uid $uid, not root$root
$x:27: command: $b/odir/gwprog $gwm; $b/odir is owned by uid $uid, not root$root
$x:31: command: $b/gw/prog (where $b/safe/link leads) $gwm$root
$x:35: command: $b/wdir $wdm$root
$x:39: on_failure: $b/gw/prog $gwm$root
$x:45: command: $b/gw/prog $gwm$root"
refused="$x:60: command: $b/gw/prog $gwm$root: refused (strict_exec)"

# The refusal needs nothing but conf.c; the warnings need tickd -n, the
# daemon and tickctl check to show conf's warnings (the lead's patch to
# tickd.c, server.c and ctl-check.c): checked softly, so that one missing
# piece does not hide the rest.
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "tickd -n: exit (warnings are not problems)" "$rc" 1
expect_eq "tickd -n: the refusal first" "$(printf '%s\n' "$err" | head -n 1)" \
    "$refused"
soft_checks=1
expect_eq "tickd -n: the warnings" "$(printf '%s\n' "$err" | sed -n '2,$p')" \
    "$(printf '%s\n' "$warnings" | sed 's/^/warning: /')"
expect_eq "tickd -n: summary" "$(first "$out")" \
    "$dir/tickd.conf: 13 jobs valid, 1 problems, 10 warnings"
soft_checks=0

daemon_start
for j in safe gw wdir owned both odir multi link lenient asuser viapath; do
	wait_for "$j runs" 10 grep -qx "$j" "$dir/ran"
done
expect_eq "strict: refused" "$(log_count "tickd: error: $refused")" 1
expect_eq "strict: never runs" "$(sql "SELECT count(*) FROM runs WHERE
    job = 'strict'")" 0
soft_checks=1
printf '%s\n' "$warnings" | while IFS= read -r w; do
	[ "$(log_count "tickd: warning: $w")" -eq 1 ] || echo "$w"
done >"$dir/unlogged"
expect_eq "each warning logged once at warning level" "$(cat "$dir/unlogged")" ""
run_cmd ctl check
printf '%s\n' "$warnings" | while IFS= read -r w; do
	printf '%s\n' "$out" | grep -qxF "warning: $w" || echo "$w"
done >"$dir/unchecked"
expect_eq "tickctl check: each warning" "$(cat "$dir/unchecked")" ""
soft_checks=0
expect_match "tickctl check: the refusal" "$out" "*
$refused*"
# None about the safe program, another user's job, PATH, or a safe link.
expect_eq "no warning about safe, asuser, viapath" \
    "$(grep -cE "exec.job:(3|50|55): " "$log")" 0

# strict_exec = yes for every job, at a reload: the unsafe root jobs stop
# (they do not keep their previous definitions); lenient (strict_exec =
# no) only warns; safe, asuser and viapath run on.
write_conf "strict_exec = yes"
run_cmd ctl reload
t=$(now)
expect_eq "[daemon] strict_exec: tickctl reload: exit" "$rc" 1
expect_eq "[daemon] strict_exec: the refusals" "$(printf '%s\n' "$err" |
    grep -v -e '^tickctl: ' -e '^warning: ')" "$(printf '%s\n' "$warnings" | grep -v ':45: ' |
    sed 's/$/: refused (strict_exec)/')
$refused"
for j in gw wdir owned both odir multi link missing hook; do
	log_has "tickd: notice: job $j: removed from the configuration" ||
	    check_fail "[daemon] strict_exec: $j not stopped"
	checks=$((checks + 1))
done
for j in safe lenient asuser viapath; do
	wait_for "$j runs after the reload" 10 eval "[ \"\$(sql \"SELECT count(*)
	    FROM runs WHERE job = '$j' AND scheduled_at > $t\")\" -ge 1 ]"
done
expect_eq "[daemon] strict_exec: the unsafe jobs run no more" "$(sql "SELECT
    count(*) FROM runs WHERE scheduled_at > $t AND job IN ('gw', 'wdir',
    'owned', 'both', 'odir', 'multi', 'link', 'missing')")" 0
daemon_stop_ok
rm "$jobs/exec.job"
write_conf

# --- 2. user= -----------------------------------------------------------------------
# who records, once, what its process is and can do, in its home.
cat >"$jobs/user.job" <<EOF
[who]
schedule = every 1s
user = $tu
command = d=\$HOME/who; [ ! -e "\$d/done" ] || exit 0
    mkdir -p "\$d"; pwd > "\$d/pwd"; cd "\$d" || exit 1
    id -u > uid; id -g > gid; id -G | tr ' ' '\n' | sort -n > groups
    grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapAmb):' /proc/self/status > status
    env > env; umask > umask
    ls -l /proc/self/fd > fds.self
    i=\$(readlink /proc/\$\$/fd/0); o=\$(readlink /proc/\$\$/fd/1)
    e=\$(readlink /proc/\$\$/fd/2); printf '%s\\n' "\$i" "\$o" "\$e" > std
    ls /proc/\$PPID/fd > tickd.fds 2>&1; echo \$? > tickd.fds.rc
    kill -0 \$PPID 2> kill.err; echo \$? > kill.rc
    if [ -w $db ]; then echo yes; else echo no; fi > db.w
    (cat $db > /dev/null) 2> db.r.err; echo \$? > db.r.rc
    (printf x >> $db) 2> db.err; echo \$? > db.rc
    (printf x >> $db-wal) 2> wal.err; echo \$? > wal.rc
    (: > $dir/state/intruder) 2> state.err; echo \$? > state.rc
    echo "\$TICKD_RUN_ID" > done

[grp]
schedule = every 1s
user = $tu
group = $ga
command = d=\$HOME/grp; [ ! -e "\$d/done" ] || exit 0; mkdir -p "\$d"
    id -g > "\$d/gid"; id -G | tr ' ' '\n' | sort -n > "\$d/groups"
    echo "\$TICKD_RUN_ID" > "\$d/done"
EOF
chmod 644 "$jobs/user.job"
daemon_start
w=$dir/home/who
wait_for "who runs" 10 test -s "$w/done"
wait_for "grp runs" 10 test -s "$dir/home/grp/done"

ugid=$(id -g "$tu")
gids=$(id -G "$tu" | tr ' ' '\n' | sort -n)
expect_eq "uid" "$(cat "$w/uid")" "$uid"
expect_eq "gid: the user's" "$(cat "$w/gid")" "$ugid"
expect_eq "groups: the user's (own group, $ga, $gb)" "$(cat "$w/groups")" \
    "$(printf '%s\n' "$ugid" "$(getent group "$ga" | cut -d: -f3)" \
    "$(getent group "$gb" | cut -d: -f3)" | sort -n)"
expect_eq "groups: as id says" "$(cat "$w/groups")" "$gids"
expect_eq "/proc/self/status: real, effective, saved, fs ids; groups;
    no capabilities" "$(tr -s '\t ' '  ' <"$w/status" | sed 's/ $//')" \
    "Uid: $uid $uid $uid $uid
Gid: $ugid $ugid $ugid $ugid
Groups: $(printf '%s' "$gids" | tr '\n' ' ')
CapInh: 0000000000000000
CapPrm: 0000000000000000
CapEff: 0000000000000000
CapAmb: 0000000000000000"
e() { sed -n "s/^$1=//p" "$w/env"; }
expect_eq "HOME USER LOGNAME SHELL from the password database" \
    "$(e HOME) $(e USER) $(e LOGNAME) $(e SHELL)" "$dir/home $tu $tu /bin/bash"
expect_eq "the working directory: the home" "$(cat "$w/pwd")" "$dir/home"
expect_eq "files the job makes are the user's" "$(stat -c '%u:%g' "$w/uid")" \
    "$uid:$ugid"
expect_eq "umask: the daemon's" "$(cat "$w/umask")" 0022
# ls -l /proc/self/fd: 0-2, and 3, the directory ls reads; stdout is the
# file it writes, stdin /dev/null, stderr tickd's pipe.  Nothing else: a
# descriptor of tickd's that leaked into the job would be there too.
fds() { sed -n 's/.* \([0-9][0-9]*\) -> \(.*\)/\1 \2/p' "$1"; }
expect_eq "descriptors of ls" "$(fds "$w/fds.self" | cut -d ' ' -f 1 | tr '\n' ' ')" \
    "0 1 2 3 "
expect_eq "ls: stdin" "$(fds "$w/fds.self" | sed -n 's/^0 //p')" /dev/null
expect_eq "ls: stdout" "$(fds "$w/fds.self" | sed -n 's/^1 //p')" "$w/fds.self"
expect_match "ls: stderr" "$(fds "$w/fds.self" | sed -n 's/^2 //p')" "pipe:*"
expect_match "ls: 3, its own" "$(fds "$w/fds.self" | sed -n 's/^3 //p')" "/proc/*/fd"
# The job's own 0-2 (read through $(...), which leaves them alone): stdin
# /dev/null, stdout and stderr two different pipes.
expect_eq "the job's stdin, stdout, stderr" \
    "$(sed 's/pipe:.*/pipe/' "$w/std" | tr '\n' ' ')" "/dev/null pipe pipe "
checks=$((checks + 1))
[ "$(sed -n 2p "$w/std")" != "$(sed -n 3p "$w/std")" ] ||
    fail "stdout and stderr: the same pipe"
expect_match "tickd's descriptors: out of reach" \
    "$(cat "$w/tickd.fds.rc") $(cat "$w/tickd.fds")" "[12] *Permission denied*"
expect_match "tickd: not signalable" "$(cat "$w/kill.rc") $(cat "$w/kill.err")" \
    "[12] *ot permitted*"
expect_eq "the state database: not writable" "$(cat "$w/db.w")" no
expect_match "the state database: reading fails" \
    "$(cat "$w/db.r.rc") $(cat "$w/db.r.err")" "[12] *Permission denied*"
expect_match "the state database: writing fails" \
    "$(cat "$w/db.rc") $(cat "$w/db.err")" "[12] *Permission denied*"
expect_match "its WAL: writing fails" "$(cat "$w/wal.rc") $(cat "$w/wal.err")" \
    "[12] *Permission denied*"
expect_match "the state directory: writing fails" \
    "$(cat "$w/state.rc") $(cat "$w/state.err")" "[12] *Permission denied*"
checks=$((checks + 1))
[ ! -e "$dir/state/intruder" ] || fail "the job created a file in the state directory"
expect_eq "the database's mode, under umask 022" "$(stat -c %a "$db")" 600
expect_eq "its WAL's mode" "$(stat -c %a "$db-wal")" 600
# group=: the primary group; the supplementary groups are those that list
# the user ($ga, $gb), without the user's own group (as initgroups(3)
# with that group, and systemd's Group=, do).
expect_eq "group=: gid" "$(cat "$dir/home/grp/gid")" \
    "$(getent group "$ga" | cut -d: -f3)"
expect_eq "group=: groups" "$(cat "$dir/home/grp/groups")" \
    "$(printf '%s\n' "$(getent group "$ga" | cut -d: -f3)" \
    "$(getent group "$gb" | cut -d: -f3)" | sort -n)"
expect_eq "who: every run succeeded" "$(sql "SELECT count(*) FROM runs WHERE
    job IN ('who', 'grp') AND status NOT IN ('succeeded', 'running',
    'skipped')")" 0
daemon_stop_ok

# The umask follows the daemon's.
rm -rf "$w"
umask 027
daemon_start
umask 022
wait_for "who runs again" 10 test -s "$w/done"
expect_eq "umask: the daemon's (027)" "$(cat "$w/umask")" 0027
daemon_stop_ok

# --- 3. the state directory and database ------------------------------------------
# refused WHAT LINE: tickd does not start (exit 78) and says LINE, once.
# (timeout: a tickd that starts anyway is stopped, with another status.)
refused() {
	run_cmd timeout $((10 * slow)) "$TICKD" -c "$dir/tickd.conf" \
	    --log-target=stderr
	expect_eq "$1: exit" "$rc" 78
	expect_eq "$1: the refusal" "$(printf '%s\n' "$err" |
	    grep -F 'not starting')" "tickd: error: $2: not starting"
}
rule="refused: it must be owned by root and not writable by group or others"
chmod 757 "$dir/state"
refused "state directory writable by others" \
    "state directory $dir/state: $rule (owner uid 0, mode 0757)"
chmod 1777 "$dir/state"
refused "state directory sticky, writable by all" \
    "state directory $dir/state: $rule (owner uid 0, mode 1777)"
chmod 775 "$dir/state"
refused "state directory writable by its group" \
    "state directory $dir/state: $rule (owner uid 0, mode 0775)"
chmod 755 "$dir/state"
chown "$tu" "$dir/state"
refused "state directory owned by $tu" \
    "state directory $dir/state: $rule (owner uid $uid, mode 0755)"
chown root "$dir/state"
chown "$tu" "$db"
refused "database owned by $tu" \
    "state $db: refused: it must be owned by uid 0, tickd's (owner uid $uid)"
chown root "$db"
# A state named through a symbolic link: the directory of its file holds
# the -wal and -shm, and must be safe too; a link that leads to no file
# is refused (tickd creates a database only under its own name), and
# nothing is created where it points.
mkdir "$dir/open"
chmod 1777 "$dir/open"
mv "$db" "$dir/open/tickd.db"
ln -s "$dir/open/tickd.db" "$db"
refused "state linked into a directory writable by all" \
    "state directory $dir/open: $rule (owner uid 0, mode 1777)"
rm "$db"
ln -s "$dir/open/planted.db" "$db"
refused "state a link to no file" \
    "state $db: refused: a symbolic link that leads to no file; tickd creates a database only under its own name"
checks=$((checks + 1))
[ ! -e "$dir/open/planted.db" ] || fail "the database was made through a link"
rm "$db"
# A state named in a directory writable by all, through a link someone
# put there to a file of root's in a safe directory: the directory of the
# name is refused, and the file it leads to is not opened.
mkdir "$dir/victim"
: >"$dir/victim/important.conf"	# an empty file: SQLite's to fill
chmod 777 "$dir/open"
ln -s "$dir/victim/important.conf" "$dir/open/named.db"
cp "$dir/tickd.conf" "$dir/tickd.conf.saved"
sed -i "s|^state = .*|state = $dir/open/named.db|" "$dir/tickd.conf"
refused "state named through a link in a directory writable by all" \
    "state directory $dir/open: $rule (owner uid 0, mode 0777)"
expect_eq "the file the link leads to: untouched" \
    "$(stat -c %s "$dir/victim/important.conf"; ls "$dir/victim")" "0
important.conf"
mv "$dir/tickd.conf.saved" "$dir/tickd.conf"
rm "$dir/open/named.db"
mv "$dir/open/tickd.db" "$db"
# An older database, readable by all: narrowed, and tickd runs.
chmod 644 "$db"
daemon_start
expect_eq "database readable by all: now 0600" "$(stat -c %a "$db")" 600
checks=$((checks + 1))
log_has "tickd: warning: state $db: mode 0644 let group or others in; now 0600" ||
    fail "database readable by all: no warning"
daemon_stop_ok
done_ok

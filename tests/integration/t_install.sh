#!/bin/sh
# make install into a DESTDIR: the file list, the unit (paths substituted,
# systemd-analyze verify), an existing configuration never overwritten,
# the installed binaries running the installed example configuration with
# a temporary state, and make uninstall.  Then an install with another
# SYSCONFDIR after a build: the binaries must be rebuilt to read it.
. tests/integration/lib.sh
setup
root=$dir/root
: "${B:=build}"
unset TICKD_CONFIG

# UNITDIR is passed: the Makefile's default comes from pkg-config, which
# says /lib/systemd/system on Debian 12 and /usr/lib/systemd/system on
# later systems.
install_root() {
	run_cmd make -s "$@" DESTDIR="$root" PREFIX=/usr SYSCONFDIR=/etc \
	    UNITDIR=/lib/systemd/system B="$B"
}

install_root install
expect_eq "make install: exit" "$rc" 0
expect_eq "installed files" "$(cd "$root" && find . -type f | sort)" \
"./etc/tickd/jobs.d/backup.job.example
./etc/tickd/jobs.d/disk.job.example
./etc/tickd/jobs.d/export.job.example
./etc/tickd/jobs.d/health.job.example
./etc/tickd/jobs.d/heartbeat.job.example
./etc/tickd/jobs.d/quartz.job.example
./etc/tickd/jobs.d/report.job.example
./etc/tickd/tickd.conf
./lib/systemd/system/tickd.service
./usr/bin/tickctl
./usr/sbin/tickd
./usr/share/bash-completion/completions/tickctl
./usr/share/fish/vendor_completions.d/tickctl.fish
./usr/share/man/man1/tickctl.1
./usr/share/man/man5/tickd.conf.5
./usr/share/man/man5/tickd.job.5
./usr/share/man/man8/tickd.8
./usr/share/zsh/vendor-completions/_tickctl"
expect_eq "modes" "$(cd "$root" && stat -c '%a %n' usr/sbin/tickd \
    usr/bin/tickctl etc/tickd/tickd.conf lib/systemd/system/tickd.service)" \
"755 usr/sbin/tickd
755 usr/bin/tickctl
644 etc/tickd/tickd.conf
644 lib/systemd/system/tickd.service"
unit=$root/lib/systemd/system/tickd.service
expect_match "unit: ExecStart" "$(grep '^ExecStart=' "$unit")" \
    "ExecStart=/usr/sbin/tickd -c /etc/tickd/tickd.conf --log-target=journal"
expect_eq "unit: nothing left to substitute" "$(grep -c @ "$unit")" 0
expect_eq "unit: ConfigurationDirectory with SYSCONFDIR=/etc" \
    "$(grep '^ConfigurationDirectory=' "$unit")" "ConfigurationDirectory=tickd"
expect_match "installed config: system paths" \
    "$(grep -E '^(jobs_dir|state|control) =' "$root/etc/tickd/tickd.conf")" \
    "jobs_dir = /etc/tickd/jobs.d
state = /var/lib/tickd/tickd.db
control = /run/tickd/tickd.sock"

# systemd-analyze verify needs the binary at its path: point it at ours.
# (make deps installs systemd, which provides it without running it.)
command -v systemd-analyze >/dev/null 2>&1 ||
    fail "systemd-analyze is missing: make deps installs it (package systemd)"
sed "s|/usr/sbin/tickd|$root/usr/sbin/tickd|" "$unit" > "$dir/tickd.service"
run_cmd systemd-analyze verify --man=no "$dir/tickd.service"
expect_eq "systemd-analyze verify: exit" "$rc" 0
expect_eq "systemd-analyze verify: no complaint" "$out$err" ""

# A second install keeps an edited configuration.
echo "# edited" >> "$root/etc/tickd/tickd.conf"
install_root install
expect_eq "reinstall: exit" "$rc" 0
expect_eq "reinstall keeps the configuration" \
    "$(tail -n 1 "$root/etc/tickd/tickd.conf")" "# edited"

# The installed binaries on the installed example configuration, every
# example enabled (the backup stays disabled inside its file).
sed -e "s|^jobs_dir = .*|jobs_dir = $root/etc/tickd/jobs.d|" \
    -e "s|^state = .*|state = $dir/state/tickd.db|" \
    -e "s|^control = .*|control = $dir/ctl.sock|" \
    "$root/etc/tickd/tickd.conf" > "$dir/tickd.conf"
for f in "$root"/etc/tickd/jobs.d/*.job.example; do
	cp "$f" "${f%.example}"
done
TICKD=$root/usr/sbin/tickd TICKCTL=$root/usr/bin/tickctl
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "installed tickd -n: exit" "$rc" 0
expect_eq "installed tickd -n: every example valid" "$(first "$out")" \
    "$dir/tickd.conf: 9 jobs valid, 0 problems"
expect_eq "installed tickd -n: nothing on stderr" "$err" ""
daemon_start
wait_for "a heartbeat run" 20 eval '[ "$(sql "SELECT count(*) FROM runs WHERE
    job = '\''heartbeat'\'' AND status = '\''succeeded'\''")" -ge 1 ]'
expect_eq "installed tickctl list" "$("$TICKCTL" -c "$dir/tickd.conf" list |
    awk 'NR > 1 { print $1 }' | sort | tr '\n' ' ')" \
    "cache-prune disk-inodes disk-usage heartbeat local-health month-end-close nightly-backup tenant-export weekly-report "
daemon_stop_ok

# make uninstall leaves what it says it leaves: the configuration
# directory, edited or not, with the enabled jobs.
install_root uninstall
expect_eq "make uninstall: exit" "$rc" 0
expect_match "make uninstall: says what it leaves" "$out" \
    "*left in place: /etc/tickd and /var/lib/tickd*"
expect_eq "files left by make uninstall" \
    "$(cd "$root" && find . -type f | sort)" \
"./etc/tickd/jobs.d/backup.job
./etc/tickd/jobs.d/backup.job.example
./etc/tickd/jobs.d/disk.job
./etc/tickd/jobs.d/disk.job.example
./etc/tickd/jobs.d/export.job
./etc/tickd/jobs.d/export.job.example
./etc/tickd/jobs.d/health.job
./etc/tickd/jobs.d/health.job.example
./etc/tickd/jobs.d/heartbeat.job
./etc/tickd/jobs.d/heartbeat.job.example
./etc/tickd/jobs.d/quartz.job
./etc/tickd/jobs.d/quartz.job.example
./etc/tickd/jobs.d/report.job
./etc/tickd/jobs.d/report.job.example
./etc/tickd/tickd.conf"

# Another SYSCONFDIR after a build: a copy of the build (objects and the
# SYSCONFDIR stamp, timestamps kept) installed with SYSCONFDIR elsewhere
# must recompile what holds the path, so that both binaries, without -c,
# read the installed configuration.  A real install (no DESTDIR) inside
# the test's directory, so that the compiled-in path exists.
opt=$dir/opt
san=
case $B in */san) san=SANITIZE=1 ;; esac
mkdir -p "$dir/build"
cp -pR "$B/src" "$dir/build/"
[ ! -e "$B/sysconfdir.stamp" ] || cp -p "$B/sysconfdir.stamp" "$dir/build/"
opt_install() {
	run_cmd make -s install $san B="$dir/build" PREFIX="$opt/usr" \
	    SYSCONFDIR="$opt/etc" UNITDIR="$opt/unit"
}
opt_install
expect_eq "SYSCONFDIR=$opt/etc: make install: exit" "$rc" 0
expect_eq "SYSCONFDIR=$opt/etc: unit: no ConfigurationDirectory" \
    "$(grep -c '^ConfigurationDirectory=' "$opt/unit/tickd.service")" 0
expect_match "SYSCONFDIR=$opt/etc: unit: ExecStart" \
    "$(grep '^ExecStart=' "$opt/unit/tickd.service")" \
    "ExecStart=$opt/usr/sbin/tickd -c $opt/etc/tickd/tickd.conf *"
sed -i -e "s|^state = .*|state = $dir/optstate/tickd.db|" \
    -e "s|^control = .*|control = $dir/opt.sock|" "$opt/etc/tickd/tickd.conf"
cp "$opt/etc/tickd/jobs.d/heartbeat.job.example" \
    "$opt/etc/tickd/jobs.d/heartbeat.job"
run_cmd "$opt/usr/sbin/tickd" -n
expect_eq "SYSCONFDIR=$opt/etc: installed tickd -n without -c" "$(first "$out")" \
    "$opt/etc/tickd/tickd.conf: 1 jobs valid, 0 problems"
run_cmd "$opt/usr/bin/tickctl" list
expect_match "SYSCONFDIR=$opt/etc: installed tickctl list without -c" \
    "$out" "*heartbeat*every 10s*"

# The same SYSCONFDIR again: the stamp is unchanged, nothing recompiles.
touch "$dir/mark"
opt_install
expect_eq "SYSCONFDIR unchanged: reinstall: exit" "$rc" 0
expect_eq "SYSCONFDIR unchanged: objects recompiled" \
    "$(find "$dir/build" -name '*.o' -newer "$dir/mark")" ""
done_ok

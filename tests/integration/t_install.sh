#!/bin/sh
# make install into a DESTDIR: the file list, the unit (paths substituted,
# systemd-analyze verify), an existing configuration never overwritten,
# and the installed binaries running the installed example configuration
# with a temporary state.
. tests/integration/lib.sh
setup
root=$dir/root
: "${B:=build}"

run_cmd make -s install DESTDIR="$root" PREFIX=/usr SYSCONFDIR=/etc B="$B"
expect_eq "make install: exit" "$rc" 0
expect_eq "installed files" "$(cd "$root" && find . -type f | sort)" \
"./etc/tickd/jobs.d/backup.job.example
./etc/tickd/jobs.d/disk.job.example
./etc/tickd/jobs.d/health.job.example
./etc/tickd/jobs.d/heartbeat.job.example
./etc/tickd/jobs.d/report.job.example
./etc/tickd/tickd.conf
./lib/systemd/system/tickd.service
./usr/bin/tickctl
./usr/sbin/tickd
./usr/share/bash-completion/completions/tickctl
./usr/share/man/man1/tickctl.1
./usr/share/man/man5/tickd.conf.5
./usr/share/man/man5/tickd.job.5
./usr/share/man/man8/tickd.8"
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
expect_match "installed config: system paths" "$(grep -E '^(jobs_dir|state|control) =' \
    "$root/etc/tickd/tickd.conf")" "jobs_dir = /etc/tickd/jobs.d
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
run_cmd make -s install DESTDIR="$root" PREFIX=/usr SYSCONFDIR=/etc B="$B"
expect_eq "reinstall: exit" "$rc" 0
expect_eq "reinstall keeps the configuration" "$(tail -n 1 "$root/etc/tickd/tickd.conf")" \
    "# edited"

# The installed binaries on the installed example configuration.
sed -e "s|^jobs_dir = .*|jobs_dir = $root/etc/tickd/jobs.d|" \
    -e "s|^state = .*|state = $dir/state/tickd.db|" \
    -e "s|^control = .*|control = $dir/ctl.sock|" \
    "$root/etc/tickd/tickd.conf" > "$dir/tickd.conf"
for f in heartbeat disk; do
	cp "$root/etc/tickd/jobs.d/$f.job.example" "$root/etc/tickd/jobs.d/$f.job"
done
TICKD=$root/usr/sbin/tickd TICKCTL=$root/usr/bin/tickctl
run_cmd "$TICKD" -n -c "$dir/tickd.conf"
expect_eq "installed tickd -n: exit" "$rc" 0
daemon_start
wait_for "a heartbeat run" 20 eval '[ "$(sql "SELECT count(*) FROM runs WHERE
    job = '\''heartbeat'\'' AND status = '\''succeeded'\''")" -ge 1 ]'
expect_match "installed tickctl list" "$("$TICKCTL" -c "$dir/tickd.conf" list)" \
    "*heartbeat*"
daemon_stop_ok
done_ok

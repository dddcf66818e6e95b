#!/bin/bash
# tests/systemd/run.sh -- "make check-systemd": boot Debian 12 with systemd
# as PID 1 in qemu (TCG) and check tickd there.  See tests/systemd/README.
#
# 1. The base root file system, build/vm/base/, is made once with
#    debootstrap (minbase and tests/systemd/packages) and made again only
#    when it is missing or the package list changed (build/vm/base.stamp).
# 2. Each run copies it, installs the current tickd into the copy with
#    "make install DESTDIR=...", enables tickd.service, adds the test
#    configuration (tests/systemd/tickd.conf, jobs.d/), the checks
#    (checks.sh) and the probe unit (tickd-checks.service), and turns the
#    copy into an ext4 image with mkfs.ext4 -d: nothing is mounted.
# 3. qemu boots the image; its serial console goes to build/vm/console.log.
#    Inside, checks.sh prints one TICKD-CHECK line per check on the
#    console, then TICKD-CHECKS DONE, and powers the machine off.  This
#    script prints those lines as they come, the boot time (qemu's start
#    to the first check) and the total, and fails on a FAIL, a missing
#    DONE line or a VM still running after VM_TIMEOUT seconds (killed).
#
# Run from the top of the checkout, as root (debootstrap, and file owners
# kept in the image).  Environment: MAKE (default make), VM_TIMEOUT
# (seconds from qemu's start to its power-off, default 900), VM_MEM (MiB,
# default 1024), VM_CPUS (default 2), VM_MIRROR (default: apt's first
# Debian source on this host), KEEP=1 (keep build/vm/run.*/: the root
# file system copy and the image), VM_CHECKS (the names of the checks to
# run, in order; default: all of them).
set -u

vm=build/vm
suite=bookworm
timeout_s=${VM_TIMEOUT:-900}
mem=${VM_MEM:-1024}
cpus=${VM_CPUS:-2}
log=$vm/console.log
run=
qpid=

say() { printf 'check-systemd: %s\n' "$*"; }
die() { printf 'check-systemd: %s\n' "$*" >&2; exit 1; }

# Microseconds since the epoch, and seconds since a reading of it.
us() { echo "${EPOCHREALTIME/./}"; }
since() {
	local d=$(( $(us) - $1 ))
	printf '%d.%d' $(( d / 1000000 )) $(( d / 100000 % 10 ))
}

cleanup() {
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null
		sleep 2
		kill -KILL "$qpid" 2>/dev/null
	fi
	if [ -n "$run" ] && [ -d "$run" ]; then
		if [ "${KEEP:-}" = 1 ]; then
			say "kept $run (KEEP=1)"
		else
			rm -rf "$run"
		fi
	fi
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

# --- what is needed -----------------------------------------------------------

[ -f tests/systemd/run.sh ] || die "run me from the top of the checkout"
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, and file owners" \
    "kept in the image): run it as root, e.g. sudo make check-systemd"
missing=
for t in debootstrap:debootstrap qemu-system-x86_64:qemu-system-x86 \
    mkfs.ext4:e2fsprogs flock:util-linux timeout:coreutils; do
	command -v "${t%%:*}" >/dev/null 2>&1 ||
	    PATH=$PATH:/usr/sbin:/sbin command -v "${t%%:*}" >/dev/null 2>&1 ||
	    missing="$missing ${t#*:}"
done
[ -z "$missing" ] || die "missing packages:$missing (make deps-systemd" \
    "installs them)"
PATH=$PATH:/usr/sbin:/sbin

mkdir -p "$vm"
exec 9>"$vm/lock"
flock -n 9 || die "another make check-systemd runs in this checkout"

# --- the base root file system -------------------------------------------------

# The first Debian source of apt on this host (deb822 or one-line format),
# not the security archive.
mirror() {
	local m
	m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
	    sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n' | grep -v security |
	    head -n 1)
	[ -n "$m" ] || m=$(cat /etc/apt/sources.list \
	    /etc/apt/sources.list.d/*.list 2>/dev/null |
	    sed -n 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*\).*/\2/p' |
	    grep -v security | head -n 1)
	echo "${m:-http://deb.debian.org/debian}"
}

pkgs=$(sed 's/#.*//' tests/systemd/packages | tr -s ' \t' '\n\n' |
    grep -v '^$' | sort -u)
want=$(printf 'suite %s\n%s\n' "$suite" "$pkgs")
if [ -d "$vm/base" ] && [ "$(cat "$vm/base.stamp" 2>/dev/null)" = "$want" ]
then
	say "base: $vm/base (up to date with tests/systemd/packages)"
else
	src=${VM_MIRROR:-$(mirror)}
	say "base: debootstrap $suite from $src into $vm/base" \
	    "(2 to 3 minutes; log $vm/debootstrap.log)"
	rm -rf "$vm/base" "$vm/base.new" "$vm/base.stamp"
	t=$(us)
	if ! debootstrap --variant=minbase --components=main \
	    --include="$(echo $pkgs | tr ' ' ',')" "$suite" "$vm/base.new" \
	    "$src" >"$vm/debootstrap.log" 2>&1; then
		tail -n 20 "$vm/debootstrap.log"
		[ -f "$vm/base.new/debootstrap/debootstrap.log" ] &&
		    tail -n 20 "$vm/base.new/debootstrap/debootstrap.log"
		die "debootstrap failed (log $vm/debootstrap.log)"
	fi
	ls "$vm"/base.new/boot/vmlinuz-* >/dev/null 2>&1 &&
	    ls "$vm"/base.new/boot/initrd.img-* >/dev/null 2>&1 ||
	    die "debootstrap left no kernel or initramfs in $vm/base.new/boot"
	mv "$vm/base.new" "$vm/base"
	printf '%s\n' "$want" > "$vm/base.stamp"
	say "base: built in $(since "$t") s"
fi
kernel=$(ls "$vm"/base/boot/vmlinuz-* | sort -V | tail -n 1)
initrd=$vm/base/boot/initrd.img-${kernel##*/vmlinuz-}
[ -f "$initrd" ] || die "no $initrd for $kernel"

# --- this run's image -----------------------------------------------------------

t_run=$(us)
run=$(mktemp -d "$vm/run.XXXXXX")
root=$run/root
img=$run/disk.img
t=$(us)
cp -a "$vm/base" "$root" || die "cp -a $vm/base $root failed"
say "copy: $(du -sm "$root" | cut -f1) MB in $(since "$t") s"

# The machine: no login on the console (it is the checks' output), no
# apt timers, a root file system the kernel mounts read-write.
echo tickd-vm > "$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\ttickd-vm\n' > "$root/etc/hosts"
printf '/dev/vda\t/\text4\trw\t0\t0\n' > "$root/etc/fstab"
for u in serial-getty@ttyS0.service apt-daily.timer \
    apt-daily-upgrade.timer; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done

# tickd as a user installs it, the unit where Debian's own units are.
t=$(us)
${MAKE:-make} -s install DESTDIR="$PWD/$root" PREFIX=/usr SYSCONFDIR=/etc \
    UNITDIR=/lib/systemd/system SANITIZE= >"$run/install.log" 2>&1 || {
	cat "$run/install.log"; die "make install DESTDIR=$root failed"; }
[ -f "$root/lib/systemd/system/tickd.service" ] ||
    die "make install left no $root/lib/systemd/system/tickd.service"
wants=$root/etc/systemd/system/multi-user.target.wants
mkdir -p "$wants"
ln -sf /lib/systemd/system/tickd.service "$wants/tickd.service"
install -m 0644 tests/systemd/tickd.conf "$root/etc/tickd/tickd.conf"
install -m 0644 tests/systemd/jobs.d/*.job "$root/etc/tickd/jobs.d/"

# The checks and the unit that runs them once the boot is done.
lib=$root/usr/local/lib/tickd-checks
install -d "$lib"
install -m 0755 tests/systemd/checks.sh "$lib/checks.sh"
sed -n 's/^[[:space:]]*\[LOG_EV_\([A-Z_]*\)\] = "\([0-9a-f]\{32\}\)",$/MSGID_\1=\2/p' \
    src/log.c > "$lib/message-ids"
[ "$(wc -l < "$lib/message-ids")" -ge 20 ] ||
    die "cannot read the MESSAGE_IDs of src/log.c"
[ -z "${VM_CHECKS:-}" ] || echo "$VM_CHECKS" > "$lib/only"
install -m 0644 tests/systemd/tickd-checks.service "$root/etc/systemd/system/"
ln -sf ../tickd-checks.service "$wants/tickd-checks.service"

# The binaries run with the guest's libraries, and the configuration is
# valid there: found now rather than after the boot.
chroot "$root" /usr/sbin/tickd -n -c /etc/tickd/tickd.conf \
    >"$run/preflight.log" 2>&1 || {
	cat "$run/preflight.log"
	die "tickd -n fails in the guest's root (a library missing from" \
	    "tests/systemd/packages?)"; }
say "install: $(sed -n 1p "$run/preflight.log") ($(since "$t") s)"

t=$(us)
mkfs.ext4 -q -F -L tickd-vm -d "$root" "$img" 3G >"$run/mkfs.log" 2>&1 || {
	cat "$run/mkfs.log"; die "mkfs.ext4 -d $root $img failed"; }
[ "${KEEP:-}" = 1 ] || rm -rf "$root"
say "image: $img in $(since "$t") s"

# --- the boot -------------------------------------------------------------------

# Every complete line of the console that the checks printed, without the
# carriage returns; a line still being written is left for the next time.
verdicts() {
	local end
	end=$(tail -c 1 "$log" | od -An -tx1 | tr -d ' ')
	tr -d '\r' < "$log" | { if [ "$end" = 0a ]; then cat; else sed '$d'; fi; } |
	    grep -av 'TICKD-DIAG' | grep -a -o 'TICKD-CHECKS\{0,1\} .*'
}

: > "$log"
say "boot: qemu, TCG, $cpus CPUs, $mem MiB; console $log;" \
    "deadline ${timeout_s} s (VM_TIMEOUT)"
t_vm=$(us)
qemu-system-x86_64 -name tickd-vm -accel tcg,thread=multi -m "$mem" \
    -smp "$cpus" -display none -vga none -monitor none \
    -serial "file:$log" -nic none -no-reboot \
    -kernel "$kernel" -initrd "$initrd" \
    -append "root=/dev/vda rw console=ttyS0 panic=10" \
    -drive "file=$img,format=raw,if=virtio" \
    </dev/null >"$run/qemu.log" 2>&1 &
qpid=$!

shown=0 boot= timed_out=
while kill -0 "$qpid" 2>/dev/null; do
	sleep 0.5
	lines=$(verdicts)
	n=$(printf '%s' "$lines" | grep -c '^')
	if [ "$n" -gt "$shown" ]; then
		printf '%s\n' "$lines" | sed -n "$((shown + 1)),${n}p"
		shown=$n
	fi
	[ -z "$boot" ] && printf '%s\n' "$lines" | grep -q '^TICKD-CHECKS START' &&
	    boot=$(since "$t_vm")
	if [ $(( ($(us) - t_vm) / 1000000 )) -ge "$timeout_s" ]; then
		timed_out=1
		break
	fi
done
if [ -n "$timed_out" ]; then
	kill -TERM "$qpid" 2>/dev/null
	sleep 2
	kill -KILL "$qpid" 2>/dev/null
fi
wait "$qpid"
qrc=$?
qpid=
vm_time=$(since "$t_vm")

# --- the verdict ----------------------------------------------------------------

# The console's last lines, without carriage returns and colours.
tail_log() {
	tr -d '\r' < "$log" | sed 's/\x1b\[[0-9;]*m//g' | tail -n 15 |
	    sed 's/^/  /'
}

lines=$(tr -d '\r' < "$log" | grep -av 'TICKD-DIAG' |
    grep -a -o 'TICKD-CHECKS\{0,1\} .*')
[ "$(printf '%s' "$lines" | grep -c '^')" -gt "$shown" ] &&
    printf '%s\n' "$lines" | sed -n "$((shown + 1)),\$p"
pass=$(printf '%s\n' "$lines" | grep -c '^TICKD-CHECK PASS ')
fail=$(printf '%s\n' "$lines" | grep -c '^TICKD-CHECK FAIL ')
done_line=$(printf '%s\n' "$lines" | grep '^TICKD-CHECKS DONE ' | tail -n 1)
diag=$(tr -d '\r' < "$log" | grep -a -o 'TICKD-DIAG .*')

echo
[ -n "$diag" ] && { echo "diagnostics (from the console):"; echo "$diag"; echo; }
echo "boot:   ${boot:-?} s (qemu's start to the first check)"
echo "VM:     $vm_time s (qemu's start to its end)"
echo "total:  $(since "$t_run") s (copy, install, image, VM)"
echo "console: $log"
status=0
if [ -n "$timed_out" ]; then
	echo "FAILED: the VM did not power off within ${timeout_s} s" \
	    "(VM_TIMEOUT): qemu killed; the last lines of $log:"
	tail_log
	status=1
elif [ "$qrc" -ne 0 ]; then
	echo "FAILED: qemu exited with status $qrc:"
	sed 's/^/  /' "$run/qemu.log"
	status=1
fi
if [ -z "$done_line" ]; then
	[ -n "$timed_out" ] || {
		echo "the last lines of $log:"
		tail_log; }
	echo "FAILED: no TICKD-CHECKS DONE line: the checks did not finish" \
	    "($pass passed, $fail failed before)"
	status=1
elif [ "$done_line" != "TICKD-CHECKS DONE $pass passed, $fail failed" ]; then
	echo "FAILED: '$done_line', but $pass PASS and $fail FAIL lines were read"
	status=1
elif [ "$fail" -gt 0 ]; then
	echo "FAILED: $fail of $((pass + fail)) checks"
	status=1
elif [ "$pass" -eq 0 ]; then
	echo "FAILED: no check ran"
	status=1
fi
[ "$status" -eq 0 ] && echo "check-systemd: $pass checks passed"
exit "$status"

#!/bin/sh
# Install the Debian packages named as arguments that are missing, with
# apt-get, non-interactively; do nothing when all are present.
#
# No package may start a service: the tests start what they need
# themselves (tests/pg.sh runs a PostgreSQL server of each test's own),
# and a machine without systemd as PID 1 must not be left with a
# system-wide server (postgresql's postinst creates the cluster 15/main
# and would start it through invoke-rc.d).  So the install runs under a
# policy-rc.d that answers 101 (forbidden): a temporary one, removed
# afterwards, where there is none.  Where one exists and allows starting
# services it is left alone and said so, and a server process that
# appears during the install is reported, not killed (as make deps-bench
# does for cron).
missing=
for p in "$@"; do
	dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null |
	    grep -qx installed || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: all installed"
	exit 0
fi
sudo=
[ "$(id -u)" -ne 0 ] && sudo=sudo
pol=/usr/sbin/policy-rc.d
made=

# servers: the pids of system-wide servers a package might start.
servers() {
	for _c in /proc/[0-9]*/comm; do
		case $(cat "$_c" 2>/dev/null) in
		postgres | postmaster | cron) _p=${_c#/proc/}; echo "${_p%/comm}" ;;
		esac
	done
}
before=" $(servers | tr '\n' ' ') "

if [ -e "$pol" ]; then
	rc=0
	"$pol" postgresql start >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 101 ] || echo "deps: WARNING: $pol allows starting" \
	    "services (exit $rc, not 101): a package may start one" >&2
else
	made=1
	trap '$sudo rm -f "$pol"' EXIT
	trap 'exit 1' INT TERM HUP
	printf '#!/bin/sh\nexit 101\n' | $sudo tee "$pol" >/dev/null &&
	    $sudo chmod 0755 "$pol" || exit 1
fi

echo "deps: installing$missing"
$sudo apt-get update -qq &&
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends $missing
rc=$?

for p in $(servers); do
	case $before in
	*" $p "*) ;;
	*) echo "deps: WARNING: a server process appeared during the" \
	    "install: pid $p ($(tr '\0' ' ' </proc/$p/cmdline))" >&2 ;;
	esac
done
[ -z "$made" ] || echo "deps: services forbidden during the install" \
    "(a temporary $pol, removed)"
exit $rc

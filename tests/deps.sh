#!/bin/sh
# Install the Debian packages named as arguments that are missing, with
# apt-get, non-interactively; do nothing when all are present.
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
echo "deps: installing$missing"
$sudo apt-get update -qq &&
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends $missing

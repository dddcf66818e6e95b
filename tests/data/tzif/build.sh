#!/bin/sh
# Rebuild the committed TZif fixtures from src/fixtures.zi with zic, once
# "fat" (explicit transitions to 2037, then the footer rule) and once
# "slim" (transitions only up to the last rule change; the footer does the
# rest), so that tests exercise both paths and prove they agree.
#
# src/fixtures.zi was extracted from the tzdata 2025b "tzdata.zi" (the
# release the conformance kit uses) with:
#   awk -v zones="$ZONES" -f extract.awk tzdata.zi > src/fixtures.zi
# Tests read only the compiled files, never the host's /usr/share/zoneinfo.
set -eu
cd "$(dirname "$0")"
rm -rf fat slim
zic -b fat -d fat src/fixtures.zi
zic -b slim -d slim src/fixtures.zi
echo "fixtures: $(find fat -type f | wc -l) zones in fat/ and slim/"

#!/bin/sh
# The shared cron/DST conformance kit against our tickctl; it must pass
# 100%.  Skipped (77) when the kit is not beside the checkout.
: "${CONFORMANCE:=../shared/conformance/run.sh}"
if [ ! -x "$CONFORMANCE" ]; then
	echo "conformance kit not found at $CONFORMANCE"
	exit 77
fi
"$CONFORMANCE" "$TICKCTL"

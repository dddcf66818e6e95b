#!/bin/sh
# tickctl next: the output contract, defaults and every kind of bad input,
# against the real binary and the committed zone fixtures.
. tests/integration/lib.sh
export TZDIR=$FIXTURES

# Valid cases: arguments | expected output (lines joined by spaces).
while IFS='|' read -r args want; do
	[ -z "$args" ] && continue
	eval "run_cmd \"\$TICKCTL\" next $args"
	expect_eq "next $args: exit" "$rc" 0
	expect_eq "next $args: stderr" "$err" ""
	expect_eq "next $args" "$(echo $out)" "$want"
done <<'CASES'
--cron '30 2 * * *' --tz America/New_York --from 2027-03-13T00:00:00Z -n 3|2027-03-13T02:30:00-05:00 2027-03-14T03:00:00-04:00 2027-03-15T02:30:00-04:00
--cron '30 2 * * *' --tz America/New_York --from 2027-03-13T00:00:00Z -n 2 --dst-gap skip|2027-03-13T02:30:00-05:00 2027-03-15T02:30:00-04:00
--cron '30 1 * * *' --tz America/New_York --from 2027-11-07T00:00:00-04:00 -n 2|2027-11-07T01:30:00-04:00 2027-11-08T01:30:00-05:00
--cron '30 1 * * *' --tz America/New_York --from 2027-11-07T00:00:00-04:00 -n 2 --dst-fold second|2027-11-07T01:30:00-05:00 2027-11-08T01:30:00-05:00
--cron '30 1 * * *' --tz America/New_York --from 2027-11-07T00:00:00-04:00 -n 3 --dst-fold both|2027-11-07T01:30:00-04:00 2027-11-07T01:30:00-05:00 2027-11-08T01:30:00-05:00
--cron '0 * * * *' --tz America/New_York --from 2027-11-07T00:30:00-04:00 -n 3|2027-11-07T01:00:00-04:00 2027-11-07T01:00:00-05:00 2027-11-07T02:00:00-05:00
--cron '*/30 * * * *' --tz America/New_York --from 2027-03-14T01:00:00-05:00 -n 3|2027-03-14T01:30:00-05:00 2027-03-14T03:00:00-04:00 2027-03-14T03:30:00-04:00
--cron '0,30 2 * * *' --tz America/New_York --from 2027-03-14T00:00:00-05:00 -n 2|2027-03-14T03:00:00-04:00 2027-03-15T02:00:00-04:00
--cron '0 2 * * *' --tz America/New_York --from 2027-03-14T01:59:59-05:00 -n 1|2027-03-14T03:00:00-04:00
--cron '15 2 * * *' --tz Australia/Lord_Howe --from 2027-10-02T12:00:00Z -n 2|2027-10-03T02:30:00+11:00 2027-10-04T02:15:00+11:00
--cron '0 12 * * *' --tz Pacific/Apia --from 2011-12-29T13:00:00-10:00 -n 2|2011-12-31T00:00:00+14:00 2011-12-31T12:00:00+14:00
--cron '0 12 * * *' --tz Pacific/Apia --from 2011-12-29T13:00:00-10:00 -n 1 --dst-gap skip|2011-12-31T12:00:00+14:00
--cron '0 0 1 1 *' --from 2026-06-01T00:00:00Z -n 2|2027-01-01T00:00:00+00:00 2028-01-01T00:00:00+00:00
--cron '@hourly' --from 2026-06-01T00:00:00Z -n 2|2026-06-01T01:00:00+00:00 2026-06-01T02:00:00+00:00
--cron '*/20 * * * * *' --from 2026-06-01T00:00:00Z -n 3|2026-06-01T00:00:20+00:00 2026-06-01T00:00:40+00:00 2026-06-01T00:01:00+00:00
--cron '0 9 * * mon-fri' --tz Europe/Berlin --from 2026-12-04T10:00:00+01:00 -n 2|2026-12-07T09:00:00+01:00 2026-12-08T09:00:00+01:00
--cron '0 0 L * *' --from 2028-02-01T00:00:00Z -n 2|2028-02-29T00:00:00+00:00 2028-03-31T00:00:00+00:00
--cron '0 0 * * 5L' --from 2026-12-01T00:00:00Z -n 1|2026-12-25T00:00:00+00:00
--cron '0 0 * * 1#2' --from 2026-12-01T00:00:00Z -n 1|2026-12-14T00:00:00+00:00
--cron '0 0 30 2 1' --from 2027-01-31T00:00:00Z -n 1|2027-02-01T00:00:00+00:00
CASES

# Running out of instants before year 10000: what exists, then status 1.
run_cmd "$TICKCTL" next --cron '0 0 1 1 *' --from 9998-06-01T00:00:00Z -n 3
expect_eq "exhausted: exit" "$rc" 1
expect_eq "exhausted: output" "$out" "9999-01-01T00:00:00+00:00"
expect_match "exhausted: message" "$err" "tickctl: next: no firing instant*"

# Default --from is now: every instant is in the future, 5 lines.
now=$(date +%s)
run_cmd "$TICKCTL" next --cron '* * * * * *'
expect_eq "default: exit" "$rc" 0
expect_eq "default: count" "$(echo "$out" | wc -l)" 5
first=$(date -d "$(echo "$out" | head -n 1)" +%s)
[ "$first" -gt "$now" ] || fail "default from: $first is not after $now"
checks=$((checks + 1))

# Invalid input: one line on stderr, nothing on stdout, exit 2.
while IFS='|' read -r args msg; do
	[ -z "$args" ] && continue
	eval "run_cmd \"\$TICKCTL\" next $args"
	expect_eq "next $args: exit" "$rc" 2
	expect_eq "next $args: stdout" "$out" ""
	expect_match "next $args: message" "$err" "tickctl: next: $msg"
	expect_eq "next $args: one line" "$(echo "$err" | wc -l)" 1
done <<'CASES'
--cron '61 * * * *'|minute field: \"61\" is out of range 0-59
--cron '*/0 * * * *'|minute field: \"\*/0\" step must be at least 1
--cron '5-1 * * * *'|minute field: \"5-1\" range start 5 is after its end 1
--cron '0 0 30 2 *'|schedule \"0 0 30 2 \*\" never fires*
--cron '* * * *'|expected 5 fields*found 4
--cron ''|empty schedule
--cron '@reboot'|@reboot has no firing instants*
--cron '@foo'|unknown macro*
--cron 'every 1h30m'|interval schedules go in job files: schedule = every 1h30m*
--cron '@every 90s'|interval schedules go in job files: schedule = every 90s*
--cron 'after 5m'|interval schedules go in job files: schedule = after 5m*
--cron '* * * * *' --tz Mars/Olympus_Mons|unknown time zone \"Mars/Olympus_Mons\"*
--cron '* * * * *' --tz America|unknown time zone \"America\"*not a zone file
--cron '* * * * *' --tz ../../etc/passwd|unknown time zone*not a zone name
--cron '* * * * *' --tz /etc/localtime|unknown time zone*not a zone name
--cron '* * * * *' --tz localtime|time zone \"localtime\" is not a zone name: name the zone*
--cron '* * * * *' --tz posixrules|time zone \"posixrules\" is not a zone name*
--cron '* * * * *' --from yesterday|--from: \"yesterday\" is not an RFC 3339 timestamp*
--cron '* * * * *' --from 2027-02-30T00:00:00Z|--from: *out of range
--cron '* * * * *' -n 0|-n: \"0\" is not a count*
--cron '* * * * *' -n 1000001|-n: \"1000001\" is not a count*
--cron '* * * * *' -n x|-n: \"x\" is not a count*
--cron '* * * * *' --dst-gap later|--dst-gap: \"later\" is not shift or skip
--cron '* * * * *' --dst-fold third|--dst-fold: \"third\" is not first, second or both
--tz UTC|--cron EXPR is required
--cron '* * * * *' backup|unexpected argument \"backup\"*
CASES

# localtime is refused even where the zone directory has such a file.
ltdir=$(mktemp -d /tmp/tickd-next.XXXXXX) || fail "mktemp"
ln -s "$FIXTURES/Europe/Berlin" "$ltdir/localtime"
run_cmd env TZDIR="$ltdir" "$TICKCTL" next --cron '0 3 * * *' --tz localtime
rm -rf "$ltdir"
expect_eq "--tz localtime with a localtime file: exit" "$rc|$out" "2|"

# --json: the DST decision of each instant and the local time asked for.
json_next() {
	"$TICKCTL" --json next "$@" | sed 's/.*"local":"\([^"]*\)".*"dst":\([^,]*\),"nominal":\([^}]*\)}/\1 \2 \3/'
}
expect_eq "next --json: a gap" "$(json_next --cron '30 2 * * *' \
    --tz America/New_York --from 2027-03-13T12:00:00Z -n 2)" \
'2027-03-14T03:00:00-04:00 "gap-shifted" "02:30"
2027-03-15T02:30:00-04:00 null "02:30"'
expect_eq "next --json: a fold" "$(json_next --cron '30 1 * * *' \
    --tz America/New_York --from 2027-11-07T00:00:00-04:00 -n 3 \
    --dst-fold both)" \
'2027-11-07T01:30:00-04:00 "fold-first" "01:30"
2027-11-07T01:30:00-05:00 "fold-second" "01:30"
2027-11-08T01:30:00-05:00 null "01:30"'
expect_eq "next --json: seconds" "$(json_next --cron '30 59 2 * * *' \
    --tz America/New_York --from 2027-03-13T12:00:00Z -n 1)" \
    '2027-03-14T03:00:00-04:00 "gap-shifted" "02:59:30"'

# Usage errors from getopt and the top level.
run_cmd "$TICKCTL" next --cron
expect_eq "missing argument: exit" "$rc" 2
expect_eq "missing argument: stdout" "$out" ""
run_cmd "$TICKCTL" frobnicate
expect_eq "unknown command: exit" "$rc" 2
expect_match "unknown command" "$err" "tickctl: unknown command \"frobnicate\"*"
run_cmd "$TICKCTL"
expect_eq "no command: exit" "$rc" 2
run_cmd "$TICKCTL" next --help
expect_eq "help: exit" "$rc" 0
expect_match "help" "$out" "usage: tickctl next --cron EXPR*"
run_cmd "$TICKCTL" --version
expect_match "version" "$out" "tickctl [0-9]*"

# A full stdout is an error, not a silent truncation.
if [ -w /dev/full ]; then
	"$TICKCTL" next --cron '* * * * *' -n 1000 >/dev/full 2>/dev/null
	expect_eq "stdout full: exit" "$?" 1
fi
done_ok

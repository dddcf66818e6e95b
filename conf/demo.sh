#!/bin/sh
# What "make demo" shows: the next firing instants
# of a few example schedules, computed by "tickctl next" from the system's
# zone database (TZDIR, default /usr/share/zoneinfo), starting just before
# daylight saving time changes so that the rules of tickd.job(5) show.
#
# Usage: sh conf/demo.sh PATH/TO/tickctl
tickctl=${1:?usage: sh conf/demo.sh PATH/TO/tickctl}
status=0

# example TITLE EXPR ZONE FROM COUNT [OPTION...]: a header, then instants.
example() {
	title=$1 expr=$2 zone=$3 from=$4 count=$5
	shift 5
	printf '\n== %s\n$ tickctl next --cron '\''%s'\'' --tz %s --from %s -n %s%s\n' \
	    "$title" "$expr" "$zone" "$from" "$count" "${*:+ $*}"
	"$tickctl" next --cron "$expr" --tz "$zone" --from "$from" \
	    -n "$count" "$@" || status=1
}

echo "Next firing instants of example schedules; see man -l man/tickd.job.5"

example "Fixed time, spring forward: 02:30 does not exist on 14 March; \
the job runs at 03:00 (gap shift)" \
    '30 2 * * *' America/New_York 2027-03-12T12:00:00-05:00 4

example "Fixed time, fall back: 01:30 happens twice on 7 November; \
the job runs once (fold first)" \
    '30 1 * * *' America/New_York 2027-11-05T12:00:00-04:00 4

example "Real time: every 20 minutes through both passes of the repeated \
hour (fold both)" \
    '*/20 * * * *' America/New_York 2027-11-07T00:30:00-04:00 8

example "Real time, spring forward: 02:00 does not exist on 28 March; \
no run for it (gap skip)" \
    '0 * * * *' Europe/Berlin 2027-03-28T00:30:00+01:00 3

example "30-minute DST on Lord Howe Island: 02:15 does not exist on \
3 October; the job runs at 02:30" \
    '15 2 * * *' Australia/Lord_Howe 2027-10-01T12:00:00+10:30 4

example "The same job with --dst-gap skip: no run on 3 October" \
    '15 2 * * *' Australia/Lord_Howe 2027-10-01T12:00:00+10:30 3 \
    --dst-gap skip

example "Extensions: the last Friday of the month (5L) at 18:00" \
    '0 18 * * 5L' Europe/Berlin 2027-01-01T00:00:00+01:00 3

example "Six fields, seconds first: every 20 seconds from 09:00:00 to \
09:00:40" \
    '*/20 0 9 * * *' Asia/Kolkata 2027-01-01T00:00:00+05:30 3

if [ "$status" -ne 0 ]; then
	echo "demo: some examples failed (zone database missing? make deps)" >&2
fi
exit "$status"

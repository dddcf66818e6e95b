#!/bin/sh
# Debian's cron (Vixie cron 3.0pl1, package cron) on the burst of
# bench/burst.sh: N jobs due in the same minute, each running
# `/bin/sh -c 'stamp FILE'` (the same stamp program tickd runs), from one
# /etc/cron.d file of N lines.  Lateness = stamp - the scheduled minute.
#
#   sh bench/cron.sh N        one run: "p50 p99 max first last count" (ms;
#                             last = the last start = max)
#   sh bench/cron.sh [N...]   a table, default N = 10 100 1000, medians of
#                             REPEAT (3) runs
#
# Needs root and /usr/sbin/cron (make deps-bench).  Each run writes
# /etc/cron.d/tickd-bench-PID, starts its own `cron -f`, waits for the
# next whole minute at least LEAD (5) s away and for N stamps (at most
# DEADLINE (180) s), then kills only that cron and removes the file.
# It refuses to run while another cron process exists (it would run the
# file too), and skips minutes in which another crontab line may fire
# (our cron reads /etc/crontab and /etc/cron.d as well).  Env: B, REPEAT,
# LEAD, DEADLINE, CRON (the binary), CRON_LOGLEVEL (-L, default 0),
# PHASE (aligned or random: when in its second cron starts; see below).
set -eu
. "$(dirname "$0")/lib.sh"
B=${B:-build}
REPEAT=${REPEAT:-3}
LEAD=${LEAD:-5}
DEADLINE=${DEADLINE:-180}
CRON=${CRON:-/usr/sbin/cron}
CRON_LOGLEVEL=${CRON_LOGLEVEL:-0}
PHASE=${PHASE:-aligned}
stamp=$PWD/$B/bench/stamp
tab=/etc/cron.d/tickd-bench-$$
reboot=/run/crond.reboot	# Debian cron: @reboot jobs already run
pidfile=/run/crond.pid		# left behind when cron is killed
work=$(mktemp -d)
cpid=
had_reboot=1 had_pidfile=1
[ -e $reboot ] || had_reboot=
[ -e $pidfile ] || had_pidfile=

# Stop our cron (only it, by pid): TERM, then KILL after 5 s.
stop_cron() {
	[ -n "$cpid" ] || return 0
	kill "$cpid" 2>/dev/null || true
	i=0
	while kill -0 "$cpid" 2>/dev/null && [ "$(awk '{print $3}' \
	    "/proc/$cpid/stat" 2>/dev/null)" != Z ]; do
		i=$((i + 1))
		[ $i -eq 50 ] && kill -KILL "$cpid" 2>/dev/null
		sleep 0.1
	done
	wait "$cpid" 2>/dev/null || true
	cpid=
}

cleanup() {
	stop_cron
	rm -f "$tab"
	# Our cron marks @reboot jobs as done for this boot; undo that.
	[ -n "$had_reboot" ] || rm -f $reboot
	[ -n "$had_pidfile" ] || rm -f $pidfile
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

die() { echo "cron.sh: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (writes $tab, runs cron)"
[ -x "$CRON" ] || die "no $CRON: run make deps-bench"
[ -x "$stamp" ] || die "no $stamp: run make $B/bench/stamp"

# Pids of processes named cron (the daemon, and its per-job children).
crons() {
	grep -lx cron /proc/[0-9]*/comm 2>/dev/null | sed 's|^/proc/||; s|/comm$||'
}

# Wait (10 s at most) until no cron process is left: the children of our
# previous run's cron may still be exiting; a cron daemon of someone
# else's would stay, and would run our file too.
no_cron() {
	t=$(($(date +%s) + 10))
	while [ -n "$(crons)" ]; do
		if [ "$(date +%s)" -ge $t ]; then
			for p in $(crons); do
				echo "  pid $p: $(tr '\0' ' ' < /proc/$p/cmdline \
				    2>/dev/null)" >&2
			done
			die "another cron is running (above): it would run" \
			    "$tab too; stop it first"
		fi
		sleep 0.1
	done
}

# A file left by a run that was killed (its pid gone) would run too.
for f in /etc/cron.d/tickd-bench-*; do
	[ -e "$f" ] || continue
	if kill -0 "${f##*-}" 2>/dev/null; then
		die "$f: another cron.sh (pid ${f##*-}) is running"
	fi
	echo "cron.sh: removing $f, left by a run that is gone" >&2
	rm -f "$f"
done

# The crontab lines our cron reads besides ours: the minutes in which
# they may fire (as "M:H", H "*" when the hour is not a plain list;
# days are ignored, to be safe) are avoided; a line that can fire at any
# minute or at start-up is only reported.
others=$(cat /etc/crontab /etc/cron.d/* /var/spool/cron/crontabs/* \
    2>/dev/null | awk '
	/^[ \t]*(#|$)/ { next }
	/^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*=/ { next }	# VAR=value
	{ print }')
busy=$(printf '%s\n' "$others" | awk '
	function expand(f, out,    a, r, i, k, n) {
		n = split(f, a, ",")
		for (i = 1; i <= n; i++)
			if (split(a[i], r, "-") == 2)
				for (k = r[1]; k <= r[2]; k++) out[k] = 1
			else
				out[a[i] + 0] = 1
	}
	$1 ~ /^[0-9,-]+$/ {
		split("", mins); split("", hrs)
		expand($1, mins)
		if ($2 ~ /^[0-9,-]+$/) expand($2, hrs); else hrs["*"] = 1
		for (m in mins) for (h in hrs) printf " %s:%s", m, h
	}')
printf '%s\n' "$others" | awk '$1 !~ /^[0-9,-]+$/ && NF' | while read -r l; do
	echo "cron.sh: note: our cron will also run: $l" >&2
done
if printf '%s\n' "$others" | grep -q '^[ \t]*@reboot' && [ -z "$had_reboot" ]
then
	die "an @reboot crontab line exists and $reboot does not:" \
	    "our cron would run it"
fi

run_cron() {	# n -> "p50 p99 max first last count"
	n=$1 d=$work/c$n
	rm -rf "$d"; mkdir -p "$d"
	no_cron
	# The next whole minute at least LEAD s away, in which no other line
	# of the crontabs fires, nor in the minute after it.
	now=$(date +%s)
	at=$(( (now + LEAD + 59) / 60 * 60 ))
	while [ $at -lt $((now + 86400)) ]; do
		m=$(date -d "@$at" +%-M:%-H)
		m1=$(date -d "@$((at + 60))" +%-M:%-H)
		case " $busy " in
		*" $m "*|*" ${m%:*}:* "*|*" $m1 "*|*" ${m1%:*}:* "*)
			at=$((at + 60)) ;;
		*) break ;;
		esac
	done
	[ $at -lt $((now + 86400)) ] || die "no free minute in the next day"
	spec=$(date -d "@$at" '+%-M %-H')	# local time, as cron reads it
	{
		echo 'SHELL=/bin/sh'
		echo 'MAILTO=""'
		awk -v n="$n" -v l="$spec * * * root $stamp $d/stamps" \
		    'BEGIN { for (i = 0; i < n; i++) print l }'
	} > "$tab"
	chown root:root "$tab"; chmod 0644 "$tab"
	# The file is in place before cron starts: it is read at start-up
	# (afterwards only when its mtime changes, checked each minute).
	# cron sleeps whole seconds: it wakes 1 s after the minute plus the
	# fraction of a second at which it started.  PHASE=aligned (default)
	# starts it just after a whole second, its best case; PHASE=random
	# starts it at once, as a cron started at boot would be.
	python3 -c 'import os, sys, time
if sys.argv[1] == "aligned":
    time.sleep(1.001 - time.time() % 1)
os.execv(sys.argv[2], sys.argv[2:])' "$PHASE" "$CRON" -f -L "$CRON_LOGLEVEL" \
	    2>"$d/log" &
	cpid=$!
	rc=0
	wait_lines "$d/stamps" "$n" $((at + DEADLINE - $(date +%s))) "$cpid" ||
	    rc=$?
	case $rc in
	1)	echo "cron.sh: N=$n: $(cat "$d/stamps" 2>/dev/null | wc -l) of" \
		    "$n started within ${DEADLINE} s" >&2 ;;
	2)	echo "cron.sh: cron exited: $(tail -3 "$d/log")" >&2 ;;
	esac
	stop_cron
	rm -f "$tab"
	[ -s "$d/log" ] && sed 's/^/cron.sh: cron: /' "$d/log" | head -5 >&2
	lat_stats "$d/stamps" "$((at * 1000000000))"
}

if [ $# -eq 1 ]; then
	run_cron "$1" > "$work/line"	# not in a subshell: $cpid stays here
	line=$(cat "$work/line")
	echo "$line"
	[ "${line##* }" -gt 0 ] || die "cron started none of the $1 jobs"
	exit 0
fi

sizes=${*:-10 100 1000}
printf '%-6s %-22s %9s %9s %9s %9s %7s\n' N what p50_ms p99_ms max_ms \
    first_ms ran
for n in $sizes; do
	: > "$work/res"
	r=0
	while [ $r -lt "$REPEAT" ]; do
		run_cron "$n" >> "$work/res"
		r=$((r + 1))
	done
	p50=$(col_median "$work/res" 1)
	p99=$(col_median "$work/res" 2)
	max=$(col_median "$work/res" 3)
	first=$(col_median "$work/res" 4)
	ran=$(cut -d' ' -f6 "$work/res" | sort -n | head -1)
	printf '%-6s %-22s %9s %9s %9s %9s %7s\n' "$n" cron "$p50" "$p99" \
	    "$max" "$first" "$ran/$n"
done
echo "(Debian cron -f, N lines of one /etc/cron.d file due in the same" \
    "minute; ms after the minute; median of $REPEAT runs; ran = fewest" \
    "started in a run)"

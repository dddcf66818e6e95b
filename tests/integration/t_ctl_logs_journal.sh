#!/bin/sh
# tickctl logs from the journal, with journal files written by
# systemd-journal-remote from entries shaped as tickd's (log.c: MESSAGE,
# PRIORITY, TICKD_JOB, SYSLOG_IDENTIFIER=JOB, TICKD_RUN_ID, TICKD_ATTEMPT,
# TICKD_SCHEDULED_AT) and read through $TICKCTL_JOURNAL_DIR: the last run,
# --limit, a RUN_ID, --json (stream from PRIORITY), tickd's own events
# left out, auto preferring the journal, and -f printing a run whose
# entries arrive later, in a new journal file, until SIGINT.
. tests/integration/lib.sh
setup
remote=
for p in /lib/systemd/systemd-journal-remote /usr/lib/systemd/systemd-journal-remote; do
	[ -x "$p" ] && remote=$p && break
done
[ -n "$remote" ] || { echo "systemd-journal-remote is missing"; exit 77; }
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }

write_job r.job <<'EOF2'
[r]
schedule = @daily
command = true
EOF2
jd=$dir/journal
mkdir "$jd"
# journal_write FILE I0 RUN...: two output lines and one event per run.
journal_write() {
	f=$1 i0=$2
	shift 2
	"$python" - "$i0" "$@" <<'PY' | "$remote" -o "$jd/$f.journal" - 2>/dev/null
import sys, time
i = int(sys.argv[1]); t = int(time.time() * 1e6)
for run in sys.argv[2:]:
    for prio, line in (("6", "out of " + run), ("4", "err of " + run)):
        i += 1
        print("__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n"
              "_BOOT_ID=0123456789abcdef0123456789abcdef\nMESSAGE=%s\n"
              "PRIORITY=%s\nTICKD_JOB=r\nSYSLOG_IDENTIFIER=r\n"
              "TICKD_RUN_ID=%s\nTICKD_ATTEMPT=1\nTICKD_SCHEDULED_AT=%s\n"
              % (t + i, i, line, prio, run, run[2:]))
    i += 1
    print("__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n"
          "_BOOT_ID=0123456789abcdef0123456789abcdef\nMESSAGE=job r: done\n"
          "PRIORITY=6\nTICKD_JOB=r\nSYSLOG_IDENTIFIER=tickd\nTICKD_RUN_ID=%s\n"
          % (t + i, i, run))
PY
}
r1=r@2027-01-01T00:00:00Z r2=r@2027-01-02T00:00:00Z r3=r@2027-01-03T00:00:00Z
journal_write a 0 "$r1" "$r2"
export TICKCTL_JOURNAL_DIR=$jd

run_cmd ctl logs r
expect_eq "journal: exit" "$rc" 0
expect_eq "journal: the last run" "$out" "-- output from the journal --
== r@2027-01-02T00:00:00Z ($r2) attempt 1
out of $r2
err of $r2"
expect_eq "journal: --limit 2" "$(ctl logs --limit 2 r | grep -c '^== ')" 2
expect_eq "journal: RUN_ID" "$(ctl logs r "$r1" | sed 1,2d)" "out of $r1
err of $r1"
expect_eq "journal: --json" "$(ctl --json logs r | "$python" -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    print(o["source"], o["run_id"], o["attempt"], o["scheduled_at"], o["stream"], o["line"])')" \
"journal $r2 1 2027-01-02T00:00:00Z stdout out of $r2
journal $r2 1 2027-01-02T00:00:00Z stderr err of $r2"
run_cmd ctl logs --source store r
expect_eq "journal: --source store (no state)" "$rc" 1

# -f: a run logged later, in another file, is printed; SIGINT ends it.
"$TICKCTL" -c "$dir/tickd.conf" logs -f r >"$dir/follow.out" 2>&1 &
fpid=$!
wait_for "logs -f prints the last run" 5 grep -q "out of $r2" "$dir/follow.out"
journal_write b 100 "$r3"
wait_for "logs -f prints the new run" 10 grep -q "err of $r3" "$dir/follow.out"
kill -INT "$fpid"
wait "$fpid"
expect_eq "journal -f: exit on SIGINT" "$?" 0
expect_eq "journal -f: output" "$(sed 1d "$dir/follow.out")" \
"== r@2027-01-02T00:00:00Z ($r2) attempt 1
out of $r2
err of $r2
== r@2027-01-03T00:00:00Z ($r3) attempt 1
out of $r3
err of $r3"
done_ok

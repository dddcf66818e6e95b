#!/bin/sh
# With --log-target=journal every message is one journal entry, and every
# message about a job can be found by its job: TICKD_JOB, and TICKD_RUN_ID
# when a run is known, with the priority and MESSAGE_ID of tickd(8).  The
# daemon talks to a fake journald: a private mount namespace puts a tmpfs
# on /run/systemd and a listener on /run/systemd/journal/socket that
# decodes the native protocol (plain, binary-length and memfd forms) into
# one JSON object per entry.  Covered: start, stdout and stderr lines,
# success, failure, on_failure and its output, a timeout that ends in
# SIGKILL, leftover processes killed, configuration errors inside a job
# section, pause by tickctl, a reload that removes a job and rejects a new
# definition.
if [ -z "${TICKD_JOURNAL_NS:-}" ]; then
	# The namespace needs root, or a user namespace mapped to root.
	for ns in "unshare -m" "unshare -rm"; do
		if $ns true 2>/dev/null; then
			TICKD_JOURNAL_NS=1 exec $ns sh "$0" "$@"
		fi
	done
	echo "cannot make a mount namespace (unshare -m): skipped"
	exit 77
fi
. tests/integration/lib.sh

# Only this namespace sees the tmpfs; no journald of the host is touched.
top=/run/systemd
[ -d "$top" ] || top=/run
mount -t tmpfs tmpfs "$top" 2>/dev/null ||
    { echo "cannot mount a tmpfs on $top: skipped"; exit 77; }
mkdir -p /run/systemd/journal
setup
journal=$dir/journal.jsonl
: >"$journal"
cat >"$dir/listen.py" <<'EOF'
import array, json, os, socket, struct, sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
out = open(sys.argv[2], "a", buffering=1)

def parse(d):
    rec, i = {}, 0
    while i < len(d):
        nl = d.index(b"\n", i)
        line = d[i:nl]
        if b"=" in line:
            k, v = line.split(b"=", 1)
            i = nl + 1
        else:	# KEY \n, 64-bit little-endian length, value, \n
            k = line
            n = struct.unpack("<Q", d[nl + 1:nl + 9])[0]
            v = d[nl + 9:nl + 9 + n]
            i = nl + 9 + n + 1
        rec.setdefault(k.decode(), []).append(v.decode(errors="replace"))
    return rec

while True:
    d, anc, _, _ = s.recvmsg(1 << 20, socket.CMSG_SPACE(4 * 4))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds = array.array("i")
            fds.frombytes(data[:len(data) - len(data) % 4])
            for fd in fds:	# too big for a datagram: a sealed memfd
                os.lseek(fd, 0, os.SEEK_SET)
                with os.fdopen(fd, "rb") as f:
                    d = f.read()
    out.write(json.dumps(parse(d)) + "\n")
EOF
"$python" "$dir/listen.py" /run/systemd/journal/socket "$journal" &
wait_for "the fake journald" 10 test -S /run/systemd/journal/socket

# jget FIELD COND...: FIELD of each entry matching every COND, one line
# per entry: KEY=VALUE (equal), KEY~TEXT (contains), KEY! (absent).  A
# field given twice prints as A|B; a missing one as "-".
jget() {
	"$python" - "$journal" "$@" <<'EOF'
import json, sys
field, conds = sys.argv[2], sys.argv[3:]
def ok(r, c):
    if c.endswith("!"):
        return c[:-1] not in r
    for op in "=~":
        k, sep, v = c.partition(op)
        if sep and "=" not in k and "~" not in k:
            got = "|".join(r.get(k, []))
            return k in r and (got == v if op == "=" else v in got)
    raise SystemExit("bad condition " + c)
for l in open(sys.argv[1]):
    r = json.loads(l)
    if all(ok(r, c) for c in conds):
        print("|".join(r[field]) if field in r else "-")
EOF
}

# jhas COND...: whether an entry matches (for wait_for).
jhas() { [ -n "$(jget MESSAGE "$@")" ]; }

# The one-shot instant of every job, after the daemon is ready.
t=$(($(now) + 3))
cron=$(at_cron "$t")
when=$(rfc3339 "$t")
write_job ok.job <<EOF
[ok]
schedule = $cron
command = echo out-line; echo err-line >&2
EOF
write_job bad.job <<EOF
[bad]
schedule = $cron
command = exit 3
on_failure = echo hook-ran
EOF
# Ignores the kill_signal: SIGKILL after kill_grace.
write_job slow.job <<EOF
[slow]
schedule = $cron
timeout = 1s
kill_grace = 1s
command = trap "" TERM; sleep 5
EOF
# The shell ends on the kill_signal, its background child does not.
write_job leftover.job <<EOF
[leftover]
schedule = $cron
timeout = 1s
kill_grace = 1s
command = (trap "" TERM; exec sleep 30) & sleep 30
EOF
# After ok.job in name order: its [ok] is the duplicate.
write_job zbroken.job <<EOF
[broken]
schedule = $cron
command = true
retries = banana

[ok]
schedule = $cron
command = true
EOF

"$TICKD" -c "$dir/tickd.conf" --log-target=journal 2>>"$log" &
tickd_pid=$!
wait_for "ready in the journal" 10 jhas MESSAGE~"ready: "

echo "configuration errors"
expect_eq "ready: priority, id" "$(jget PRIORITY MESSAGE~"ready: " \
    MESSAGE_ID=d809a04bcc584a23bcc7fcaac0926140 TICKD_JOB!)" 5
expect_eq "bad value: job, priority, id" "$(jget TICKD_JOB \
    MESSAGE~"zbroken.job:4: retries: " PRIORITY=3 \
    MESSAGE_ID=a9b39baa0a864928b4b26a39142d4413)" broken
expect_eq "duplicate id: job" "$(jget TICKD_JOB \
    MESSAGE~"zbroken.job:6: [ok]: duplicate job id" PRIORITY=3 \
    MESSAGE_ID=a9b39baa0a864928b4b26a39142d4413)" ok

wait_for "ok to succeed" 15 jhas MESSAGE_ID=f53af89ddf834a538837d6d5e3bb8583
wait_for "the hook of bad" 15 jhas MESSAGE_ID=6dc5a05e271c4c9abec5061a786322b7
wait_for "slow to end" 15 jhas TICKD_JOB=slow TICKD_SIGNAL=9
wait_for "leftover processes killed" 15 jhas TICKD_JOB=leftover \
    MESSAGE~"leftover process"

echo "start, output, success"
expect_eq "ok started" "$(jget TICKD_RUN_ID TICKD_JOB=ok PRIORITY=6 \
    MESSAGE_ID=d0a41cc524da4c0cba7c2d5508a4767b TICKD_ATTEMPT=1 \
    TICKD_TRIGGER=schedule TICKD_SCHEDULED_AT="$when")" "ok@$when"
expect_eq "ok stdout: priority, identifier" "$(jget PRIORITY MESSAGE=out-line \
    SYSLOG_IDENTIFIER=ok TICKD_JOB=ok TICKD_RUN_ID="ok@$when" \
    MESSAGE_ID=1ab384d15da54df483e30d08d8d68349)" 6
expect_eq "ok stderr: priority, identifier" "$(jget PRIORITY MESSAGE=err-line \
    SYSLOG_IDENTIFIER=ok TICKD_JOB=ok TICKD_RUN_ID="ok@$when" \
    MESSAGE_ID=1ab384d15da54df483e30d08d8d68349)" 4
expect_eq "ok succeeded" "$(jget TICKD_EXIT_STATUS TICKD_JOB=ok \
    TICKD_RUN_ID="ok@$when" PRIORITY=6 \
    MESSAGE_ID=f53af89ddf834a538837d6d5e3bb8583)" 0

echo "failure, on_failure"
expect_eq "bad failed" "$(jget TICKD_EXIT_STATUS TICKD_JOB=bad \
    TICKD_RUN_ID="bad@$when" PRIORITY=4 \
    MESSAGE_ID=f6a3b5577db84843bfa5a822f0ac204f)" 3
expect_eq "bad: on_failure output" "$(jget TICKD_TRIGGER MESSAGE=hook-ran \
    TICKD_JOB=bad TICKD_RUN_ID="bad@$when" PRIORITY=6 \
    SYSLOG_IDENTIFIER=bad)" on_failure
expect_eq "bad: on_failure ended" "$(jget TICKD_EXIT_STATUS TICKD_JOB=bad \
    TICKD_RUN_ID="bad@$when" TICKD_TRIGGER=on_failure PRIORITY=6 \
    MESSAGE_ID=6dc5a05e271c4c9abec5061a786322b7)" 0

echo "timeout, SIGKILL, leftovers"
expect_eq "slow: timed out (signalled, ended)" "$(jget TICKD_SIGNAL \
    TICKD_JOB=slow TICKD_RUN_ID="slow@$when" PRIORITY=4 \
    MESSAGE_ID=4acc9660af67477eab4f454e32c481e6)" "-
9"
expect_eq "slow: SIGKILL after kill_grace" "$(jget PRIORITY TICKD_JOB=slow \
    TICKD_RUN_ID="slow@$when" MESSAGE_ID! \
    MESSAGE~"did not stop within 1s of signal 15: SIGKILL")" 4
expect_eq "leftover: killed after kill_grace" "$(jget PRIORITY \
    TICKD_JOB=leftover TICKD_RUN_ID="leftover@$when" MESSAGE_ID! \
    MESSAGE~"1 leftover process killed at the end of its kill_grace")" 4

echo "pause, reload"
run_cmd ctl pause ok
expect_eq "tickctl pause ok" "$rc" 0
wait_for "ok paused" 10 jhas MESSAGE~"job ok: paused by tickctl"
expect_eq "ok paused: job, priority" "$(jget TICKD_JOB \
    MESSAGE~"job ok: paused by tickctl" PRIORITY=5 MESSAGE_ID!)" ok
rm "$jobs/bad.job"
write_job ok.job <<EOF
[ok]
schedule = $cron
command = true
retries = banana
EOF
kill -HUP "$tickd_pid"
wait_for "the reload" 10 jhas MESSAGE_ID=607edeb53e884d758ed883622ee215e5
expect_eq "bad removed" "$(jget TICKD_JOB PRIORITY=5 MESSAGE_ID! \
    MESSAGE~"job bad: removed from the configuration")" bad
expect_eq "ok: new definition invalid" "$(jget TICKD_JOB PRIORITY=4 \
    MESSAGE_ID! MESSAGE~"job ok: the new definition is invalid")" ok
expect_eq "ok: its error" "$(jget TICKD_JOB MESSAGE~"/ok.job:4: retries: " \
    MESSAGE_ID=a9b39baa0a864928b4b26a39142d4413)" ok

daemon_stop
expect_eq "tickd exit status" "$daemon_rc" 0
wait_for "stopped in the journal" 10 jhas MESSAGE=stopped PRIORITY=5
expect_eq "nothing on stderr" "$(cat "$log")" ""

echo "every entry"
ids=$(sed -n 's/^\.It Li \([0-9a-f]\{32\}\)$/\1/p' man/tickd.8 | sort -u)
checks=$((checks + 1))
[ "$(echo "$ids" | wc -l)" -ge 20 ] || fail "no MESSAGE_ID list in tickd.8"
# A message "job X..." carries TICKD_JOB=X, one naming run X@... carries
# TICKD_RUN_ID=X@...; every entry has a priority, and a MESSAGE_ID only
# from tickd(8).
bad=$("$python" - "$journal" "$ids" <<'EOF'
import json, re, sys
ids = set(sys.argv[2].split())
n = 0
for l in open(sys.argv[1]):
    r = {k: "|".join(v) for k, v in json.loads(l).items()}
    msg, n = r.get("MESSAGE", ""), n + 1
    m = re.match(r"job ([A-Za-z0-9_.-]+)[: ]", msg)
    if m and r.get("TICKD_JOB") != m.group(1):
        print("no TICKD_JOB=%s: %s" % (m.group(1), msg))
    m = re.search(r"\b([A-Za-z0-9_.-]+@\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
        r"(/reboot)?)", msg)
    if m and r.get("TICKD_RUN_ID") != m.group(1):
        print("no TICKD_RUN_ID=%s: %s" % (m.group(1), msg))
    if r.get("PRIORITY", "") not in "0 1 2 3 4 5 6 7".split():
        print("PRIORITY %r: %s" % (r.get("PRIORITY"), msg))
    if "MESSAGE_ID" in r and r["MESSAGE_ID"] not in ids:
        print("MESSAGE_ID %s not in tickd.8: %s" % (r["MESSAGE_ID"], msg))
if n < 20:
    print("only %d entries" % n)
EOF
)
expect_eq "job and run fields of every entry" "$bad" ""
done_ok

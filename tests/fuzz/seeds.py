#!/usr/bin/env python3
"""Write the hand-made seed inputs of the fuzz corpora.

    python3 tests/fuzz/seeds.py [CASES.jsonl]

Run from the top of the checkout.  Writes tests/fuzz/corpus/<target>/seed-*
(the rest of each corpus is what libFuzzer found, merged with
`make fuzz-merge`).  CASES.jsonl defaults to the conformance kit beside the
checkout, ../shared/conformance/cases.jsonl; without it the conformance
seeds are left as they are.  Also writes tests/fuzz/fuzz_conf.dict from the
keys of src/conf_table.c.  Deterministic for a given checkout: the job-file
seeds include the job files of conf/jobs.d and of the here-documents in
tests/integration/*.sh.
"""
import calendar
import datetime
import glob
import json
import os
import re
import struct
import sys

CORPUS = "tests/fuzz/corpus"

# --- cron expressions and schedules -------------------------------------

# The grammar of cronexpr.c and schedule.c, valid and invalid.
GRAMMAR = [
    "* * * * *", "*/15 * * * *", "30 2 * * *", "0 9 * * 1-5", "0 0 L * *",
    "0 12 * * 5L", "0 0 * * 1#2", "*/10 * * * * *", "0 3 * * 0",
    "0 0 29 2 *", "0 0 30 2 1", "0 0 29 2 */7", "5,10-20/5,55 * * * *",
    "0 0-23/6 * * *", "0 0 1/10 * *", "0 0 * * 1/2", "0 0 * * 7",
    "0 0 * * 0,7", "0 0 * JAN-mar,Dec MON-fri", "0 0 ? * sun",
    "0 0 1 * ?", "0 0 l * *", "0 0 * * 0l", "0 0 * * 6#5", "0 0 * * 1#1,5L",
    "0 0 L 2 *", "0 0 31 * *", "0 0 31 4 *", "0 0 30 2 *", "0 0 L,15 * *",
    "59 23 31 12 *", "0 0 1 1 *", "0-59 0-23 1-31 1-12 0-7",
    "0-59/59 0-23/23 1-31/30 1-12/11 0-7/7", "0 */1 * * *",
    "0 0 0 * * *", "*/1 * * * * *", "59 59 23 31 12 *", "30 0 2 * * *",
    "0 30 1 * * *", "0 30 2 * * 0", "15,45 1,2 * * *", "0 2 * * *",
    "30 1 * * *", "0 1 * * 0", "*/5 2 * * *", "* 2 * * *", "0 * * * *",
    "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight",
    "@hourly", "@reboot", "@HOURLY", "@Daily", "  @weekly  ", "\t0 0 * * *\t",
    "0\t0 *  *\t\t*", "every 15m", "every 1h30m", "every 1s", "every 90",
    "after 1h", "after 2d 12h", "EVERY 1w", "every\t5m", "every 0s",
    "after 0", "every 101y", "every", "every ", "every 1x", "after -1h",
    "every 36600d", "every 36601d", "everything", "after1h",
    # invalid
    "", " ", "@", "@every", "@reboot x", "@yearly 0", "61 * * * *",
    "60 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *", "* * * 0 *",
    "* * * 13 *", "* * * * 8", "*/0 * * * *", "5-1 * * * *", "1-2-3 * * * *",
    "* * * *", "* * * * * * *", "a * * * *", "* * * foo *", "* * * * mo",
    "* * * * monday", "* * * jan-feb-mar *", "1, * * * *", ",1 * * * *",
    "1,,2 * * * *", "*/ * * * *", "*/x * * * *", "** * * * *", "*1 * * * *",
    "1/ * * * *", "1-/2 * * * *", "-1 * * * *", "L * * * *", "* L * * *",
    "* * * L *", "* * 1L * *", "* * * * 8L", "* * * * 1#0", "* * * * 1#6",
    "* * * * 1#", "* * * * #1", "* * * * 1#1x", "* * * * 1Lx", "? * * * *",
    "* ? * * *", "* * ?? * *", "0 0 31 2 *", "0 0 30,31 2 *",
    "0 0 31 2,4,6,9,11 *", "99999999999 * * * *", "*/99999999999 * * * *",
    "0 0 1 1 * 2030", "0 0 * * 1-7/0", "* * * * 7-0", "1-1 * * * *",
    "0 0 1#2 * *", "0 0 * * MON#2", "0 0 * * SUNL", "0 0 * JANUARY *",
    "0 0 * 1-DEC *", "0 0 * * fri-mon",
    "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,"
    "27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,"
    "50,51,52,53,54,55,56,57,58,59 * * * *",
    # Quartz dialect (the fuzz target picks the dialect from a hash) and H
    "0 0 12 ? * 6L", "0 0 12 ? * 6L 2027-2030", "0 0 12 LW * ?",
    "0 0 12 L-3W * ?", "0 0 12 15W * ?", "0 0 12 31W * ?", "0 0 12 ? * 2#1",
    "0 0 22-2 ? * FRI-MON", "0 0 0 1 1 ? 2028/2", "0 0 0 L-30 * ? 2099",
    "0 0 12 * * ?", "0 0 12 ? * ?", "0 0 12 0W * ?", "0 0 12 1W,15W * ?",
    "H H * * *", "H/15 * * * *", "H(0-29)/10 H(9-17) * * *", "0 0 H * H",
    "H * * * * *", "H(5-1) * * * *", "H/61 * * * *",
]

# Awkward starting instants for some seeds (see fuzz_cronexpr.c).
STARTS = [
    "1772953200", "1793512799", "1775314799", "1791041400", "1325239199",
    "-9223372036854775808", "9223372036854775807", "253402300799",
    "-253402300800", "0 1 2", "-2717650801", "4108690800",
]


def unix(ts):
    d = datetime.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return calendar.timegm(d.utctimetuple())


def cron_seeds(cases):
    out = {}
    for i, e in enumerate(GRAMMAR):
        out["seed-gram-%03d" % i] = e.encode()
        if i % 5 == 0:
            out["seed-gram-%03d-start" % i] = (e.encode() + b"\0" +
                STARTS[i // 5 % len(STARTS)].encode())
    if cases is None:
        return out
    seen = set()
    taken = {}
    with open(cases) as f:
        for line in f:
            c = json.loads(line)
            e = c["expr"]
            cat = c["category"]
            # Up to 25 distinct expressions per category, and one in 15
            # of the random ones.  Keep the case's start: most are near a
            # DST transition of some zone.
            if e in seen:
                continue
            seen.add(e)
            n = taken.get(cat, 0)
            taken[cat] = n + 1
            if (cat == "random" and n % 15) or (cat != "random" and
                                                n >= 25):
                continue
            data = e.encode()
            try:
                data += b"\0" + str(unix(c["from"])).encode()
            except ValueError:
                pass
            out["seed-conf-" + c["id"]] = data
    return out

# --- TZif images ----------------------------------------------------------


def tzif(trans, types, chars, footer=b"", version=b"2", leap=0,
         v1=True, raw_counts=None):
    """A TZif image: trans [(t, type)], types [(utoff, isdst, abbrind)]."""
    def block(size):
        fmt = ">q" if size == 8 else ">l"
        data = b""
        for t, _ in trans:
            if size == 4:
                t = max(-2**31, min(2**31 - 1, t))
            data += struct.pack(fmt, t)
        data += bytes(i for _, i in trans)
        for off, dst, ab in types:
            data += struct.pack(">lBB", off, dst, ab)
        data += chars
        data += b"\0" * (leap * (size + 4))
        counts = raw_counts or (0, 0, leap, len(trans), len(types),
                                len(chars))
        head = b"TZif" + version + b"\0" * 15 + struct.pack(">6l", *counts)
        return head + data
    if version == b"\0":
        return block(4)
    first = block(4) if v1 else (b"TZif" + version + b"\0" * 15 +
                                 struct.pack(">6l", 0, 0, 0, 0, 1, 1) +
                                 b"\0" * 6 + b"\0")
    return first + block(8) + b"\n" + footer + b"\n"


def tzif_seeds():
    ny = open("tests/data/tzif/fat/America/New_York", "rb").read()
    est = [(-18000, 0, 0), (-14400, 1, 4)]
    chars = b"EST\0EDT\0"
    out = {}
    for flavour in ("fat", "slim"):
        root = "tests/data/tzif/" + flavour
        for d, _, files in sorted(os.walk(root)):
            for f in sorted(files):
                p = os.path.join(d, f)
                name = "seed-%s-%s" % (flavour, os.path.relpath(p, root)
                                       .replace("/", "-"))
                out[name] = open(p, "rb").read()
    # Truncated and damaged copies of a real file.
    for n in (0, 4, 43, 44, 100, 1000, len(ny) - 30, len(ny) - 1):
        out["seed-bad-truncated-%d" % n] = ny[:n]
    out["seed-bad-magic"] = b"TZIF" + ny[4:]
    out["seed-bad-version-A"] = ny[:4] + b"A" + ny[5:]
    out["seed-v9"] = ny[:4] + b"9" + ny[5:]
    out["seed-footer-no-newline"] = ny.rstrip(b"\n")
    out["seed-footer-nul"] = ny.rstrip(b"\n")[:-4] + b"\0EDT\n"
    # Rule-only zones (no transitions): the footer does everything.
    rules = {
        "us": b"EST5EDT,M3.2.0,M11.1.0",
        "us-default": b"EST5EDT",
        "permanent-dst": b"EST5EDT,0/0,J365/25",
        "south-167h": b"<-03>3<-02>,M10.1.0/-167,M2.3.0/167",
        "julian1": b"CET-1CEST,J60/2,J300/3",
        "julian0": b"CET-1CEST,59,365/0",
        "lord-howe": b"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
        "negative-dst": b"IST-1GMT0,M10.5.0,M3.5.0/1",
        "big-offsets": b"<-24>24<+2459>-24:59:59,M3.5.0/-1,M10.5.0/167",
        "5th-week": b"XXX3YYY,M2.5.6/23,M12.5.0/24",
        "fixed": b"<+13>-13",
        "bad-short-abbr": b"EST5ED",
        "bad-month": b"EST5EDT,M13.1.0,M11.1.0",
        "bad-hours": b"EST25",
        "bad-trailing": b"EST5EDT,M3.2.0,M11.1.0x",
    }
    for name, rule in rules.items():
        out["seed-rule-" + name] = tzif([], est, chars, rule)
    out["seed-empty-footer"] = tzif([(0, 1)], est, chars, b"")
    out["seed-v1-only"] = tzif([(-100, 1), (100, 0)], est, chars,
                               version=b"\0")
    out["seed-v1-min"] = tzif([], est[:1], b"EST\0", version=b"\0")
    out["seed-leap"] = tzif([(0, 1)], est, chars, b"EST5", leap=1)
    out["seed-bad-order"] = tzif([(100, 1), (100, 0)], est, chars, b"EST5")
    out["seed-bad-type-index"] = tzif([(100, 2)], est, chars, b"EST5")
    out["seed-bad-offset"] = tzif([(100, 1)], [(-18000, 0, 0),
                                  (100000, 1, 4)], chars, b"EST5")
    out["seed-bad-isdst"] = tzif([(100, 1)], [(-18000, 0, 0),
                                 (-14400, 2, 4)], chars, b"EST5")
    out["seed-bad-abbr-index"] = tzif([(100, 1)], [(-18000, 0, 0),
                                      (-14400, 1, 8)], chars, b"EST5")
    out["seed-bad-abbr-unterminated"] = tzif([(100, 1)], est, b"EST\0EDT",
                                             b"EST5")
    out["seed-bad-counts"] = tzif([], est, chars, b"EST5",
                                  raw_counts=(0, 0, 0, 0, 0, 8))
    # Extreme transitions and offsets.
    out["seed-int64-ends"] = tzif([(-2**63, 1), (2**63 - 1, 0)], est,
                                  chars, b"EST5EDT,M3.2.0,M11.1.0")
    out["seed-offset-26h"] = tzif([(0, 1), (86400, 0)],
                                  [(-93600, 0, 0), (93600, 1, 4)], chars,
                                  b"<-24>24<+24>-24,J1/0,J365/0")
    # A clock that swings an hour back and forth every second: each local
    # time occurs more than TZ_OCC_MAX times.
    out["seed-swing"] = tzif([(1000 + i, i % 2) for i in range(40)],
                             [(0, 0, 0), (3600, 1, 4)], b"AAA\0BBB\0",
                             b"AAA0")
    # Apia-like: a whole day skipped, then a fixed footer offset.
    out["seed-skip-day"] = tzif([(1325239200, 1)], [(-36000, 1, 0),
                                (50400, 1, 4)], b"-10\0+14\0", b"<+13>-13")
    return out

# --- durations and timestamps --------------------------------------------


DURATIONS = [
    "90s", "15m", "1h30m", "2d 12h", "1w", "1w2d3h4m5s", "36600d", "36601d",
    "0", "0s", "15", " 5m", "5m ", "1h 1h", "1m1h", "1x", "", "h",
    "100000000000000000000s", "3162240000", "3162240001", "1d\t2h",
    "9223372036854775807s", "52w", "5220w",
]
TIMESTAMPS = [
    "2027-03-14T03:00:00-04:00", "2027-03-14T07:00:00Z",
    "1970-01-01t00:00:00z", "2016-12-31T23:59:60Z", "2024-02-29 12:00:00Z",
    "0000-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59",
    "2024-02-29T12:00:00.123456+05:30", "2023-02-29T00:00:00Z",
    "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:00",
    "2024-01-01T00:00:00+0530", "2024-01-01T00:00:00.Z", "2024-01-01T",
    "2024-01-01", "1900-01-01T00:00:00+00:00", "2038-01-19T03:14:07Z",
]


# --- job files ------------------------------------------------------------

# Hand-made job files: every key, bad values, and the reader's corners
# (continuations, NUL bytes, long lines, BOM, CRLF, duplicates).
JOBS = {
    "minimal": "[a]\nschedule = every 1m\ncommand = true\n",
    "every-key": """[full]
description = every key set
schedule = 30 2 * * 1-5
timezone = Europe/Berlin
dst_gap = skip
dst_fold = both
command = tar -czf "$DEST/x.tgz" . ; echo ok
user = root
group = root
workdir = /
environment = A=1
random_delay = 10m
enabled = yes
overlap = queue
queue_limit = 7
max_parallel = 2
misfire = catch_up
misfire_grace = 5m
catch_up_limit = 10
retries = 3
retry_delay = 10s
retry_delay_max = 1h
retry_on_exit = 1,2,75-78
timeout = 2h
kill_signal = SIGINT
kill_grace = 1m
recover = abandon
on_failure = logger failed
on_failure_timeout = 30s
expect_success_within = 26h
output_keep = 1MiB
""",
    "bad-values": """[bad]
schedule = 61 * * * *
command =
timezone = ../../etc/passwd
dst_gap = sideways
dst_fold = third
user = no_such_user_here
group = no_such_group_here
workdir = relative/dir
environment = 1BAD=x
random_delay = 8d
enabled = maybe
overlap = sometimes
queue_limit = 0
max_parallel = 1001
misfire = never
misfire_grace = 0s
catch_up_limit = -1
retries = 101
retry_delay = 0
retry_delay_max = 8d
retry_on_exit = 256
timeout = 31d
kill_signal = SIGFOO
kill_grace = 0
recover = maybe
on_failure =
on_failure_timeout = 2d
expect_success_within = 367d
output_keep = 2M
colour = blue
lease = 60s
""",
    "continuations": """[cont]
schedule = every 5m
command = first line
    [not a section]
\t; not a comment
  # not a comment either
environment = A=1
    B=2
  C = 3
description = one
  two

[after-blank]
    indented key = after a blank line
schedule = @hourly
command = true
""",
    "duplicates": """[dup]
schedule = every 1m
command = true
command = false
[dup]
schedule = every 2m
command = true
[base]
schedule = every 1h
command = true
""",
    "crlf-bom": "\ufeff[crlf]\r\nschedule = every 1m\r\ncommand = true\r\n",
    "nul": "[nul]\nschedule = every 1m\ncommand = tr\0ue\n",
    "nul-comment": "# \0\n[n]\nschedule = @daily\ncommand = true\n",
    "long-line": "[long]\nschedule = every 1m\ncommand = " + "z" * 3000 +
    "\n",
    "long-section": "[" + "x" * 60 + "]\nschedule = every 1m\ncommand = t\n",
    "id-48": "[" + "a" * 48 + "]\nschedule = every 1m\ncommand = t\n",
    "id-49": "[" + "a" * 49 + "]\nschedule = every 1m\ncommand = t\n",
    "bad-ids": "[a b]\nschedule = every 1m\ncommand = t\n[]\nschedule = "
    "every 1m\ncommand = t\n[\u00e9t\u00e9]\nschedule = @daily\ncommand = t\n"
    "[ok.-_9]\nschedule = @daily\ncommand = t\n",
    "syntax": "[s]\nschedule = every 1m\ncommand = t\nno equals sign here\n",
    "outside": "schedule = every 1m\n[o]\nschedule = every 1m\ncommand = t\n",
    "no-key": "[k]\n= value\nschedule = every 1m\ncommand = t\n",
    "unclosed": "[open\nschedule = every 1m\ncommand = t\n",
    "header-trailer": "[h] trailing\nschedule = every 1m\ncommand = t\n"
    "  [i]\nschedule = every 1m\ncommand = t\n",
    "comments": "; c\n# c\n[c]\n; schedule = bad\nschedule = every 1m ; x\n"
    "command = echo a ; echo b # c\n",
    "missing": "[m1]\ncommand = t\n[m2]\nschedule = every 1m\n[m3]\n",
    "empty": "",
    "only-newlines": "\n\n\n",
    "no-newline": "[nn]\nschedule = every 1m\ncommand = true",
    "sizes": "[s1]\nschedule = @daily\ncommand = t\noutput_keep = 64k\n"
    "[s2]\nschedule = @daily\ncommand = t\noutput_keep = 1024KiB\n"
    "[s3]\nschedule = @daily\ncommand = t\noutput_keep = 9999999999999G\n"
    "[s4]\nschedule = @daily\ncommand = t\noutput_keep = 1T\n"
    "[s5]\nschedule = @daily\ncommand = t\noutput_keep = -1\n",
    "counts": "[c1]\nschedule = @daily\ncommand = t\nretries = "
    "99999999999999999999\n[c2]\nschedule = @daily\ncommand = t\n"
    "queue_limit = 0x10\n[c3]\nschedule = @daily\ncommand = t\n"
    "catch_up_limit = 1e3\n",
    "schedules": "".join(
        "[sch%d]\nschedule = %s\ncommand = t\n" % (i, e) for i, e in
        enumerate(["@reboot", "after 1h30m", "every 36600d", "every 0s",
                   "0 0 30 2 *", "*/10 * * * * *", "0 0 L * *",
                   "0 12 * * 5L", "0 0 * * 1#2", "@yearly"])),
    "zones": "".join(
        "[z%d]\nschedule = 30 2 * * *\ntimezone = %s\ncommand = t\n" %
        (i, z) for i, z in enumerate(
            ["America/New_York", "Australia/Lord_Howe", "Pacific/Apia",
             "Etc/UTC", "UTC", "Europe", "/etc/localtime", "Nowhere/City",
             "", "Asia/Kathmandu"])),
    "env": "[e]\nschedule = @daily\ncommand = t\nenvironment = A=1\n"
    "environment = B=2\n    C=3\n    =x\n    D\n    E==\n",
    "signals": "".join(
        "[k%d]\nschedule = @daily\ncommand = t\nkill_signal = %s\n" % (i, v)
        for i, v in enumerate(["TERM", "SIGKILL", "9", "0", "65", "term",
                               "HUP", "SIGRTMIN"])),
    "exit-codes": "".join(
        "[r%d]\nschedule = @daily\ncommand = t\nretry_on_exit = %s\n" %
        (i, v) for i, v in enumerate(["any", "0", "1,2,3", "255", "1-5",
                                      "1,,2", "", "ANY", "-1"])),
    "many-sections": "".join(
        "[j%d]\nschedule = every %dm\ncommand = t\n" % (i, i + 1)
        for i in range(60)),
    "key-twice-env": "[t]\nschedule = @daily\nschedule = @daily\n"
    "command = t\nenvironment = A=1\nenvironment = A=2\n",
}


def job_seeds():
    out = {}
    for name, text in JOBS.items():
        out["seed-hand-" + name] = text.encode()
    for f in sorted(glob.glob("conf/jobs.d/*.job")):
        out["seed-conf-" + os.path.basename(f)[:-4]] = open(f, "rb").read()
    # Job files written by the integration tests (write_job NAME <<'EOF'
    # or cat >"...job" <<EOF, up to the terminator line): the first two
    # distinct ones of each test.
    start = re.compile(r"""(?:write_job\s+\S+|cat\s+>\s*"?[^"\s]*\.job"?)"""
                       r"""\s+<<\s*'?(\w+)'?\s*$""")
    seen = set()
    for f in sorted(glob.glob("tests/integration/*.sh")):
        lines = open(f).read().split("\n")
        i = taken = 0
        while i < len(lines) and taken < 2:
            m = start.search(lines[i])
            i += 1
            if not m:
                continue
            body = []
            while i < len(lines) and lines[i] != m.group(1):
                body.append(lines[i])
                i += 1
            text = ("\n".join(body) + "\n").replace(
                "@DIR@", "/tmp/tickd-test.Ab12Cd")
            if text in seen:
                continue
            seen.add(text)
            taken += 1
            out["seed-it-%s-%02d" % (os.path.basename(f)[2:-3],
                                     len(seen))] = text.encode()
    return out


def conf_dict():
    """Keys and values of job files, from src/conf_table.c."""
    table = open("src/conf_table.c").read()
    keys = re.findall(r'\{ CONF_SEC_(?:JOB|DAEMON), "([a-z_]+)"', table)
    vals = ["every ", "after ", "@reboot", "@daily", "@hourly", "@yearly",
            "* * * * *", "0 0 L * *", "1#2", "5L", "*/", "yes", "no",
            "shift", "skip", "first", "second", "both", "queue", "allow",
            "replace", "run_once", "catch_up", "rerun", "abandon", "TERM",
            "SIGKILL", "any", "64k", "1MiB", "G", "1h30m", "2d 12h", "0s",
            "UTC", "Europe/Berlin", "America/New_York",
            "Australia/Lord_Howe", "Pacific/Apia", "root", "nobody", "A=1",
            "/bin", "999999999999999999999"]
    toks = ["[", "]", " = ", "=", "\\x0a", "\\x0a    ", "\\x0a\\x09",
            "\\x0d\\x0a", "\\x00", "\\xef\\xbb\\xbf", ";", "#", "[base]"]
    lines = ["# libFuzzer dictionary for fuzz_conf: job-file syntax and the",
             "# keys of src/conf_table.c (written by tests/fuzz/seeds.py)."]
    lines += ['"%s"' % t for t in toks]
    lines += ['"%s"' % k for k in keys]
    lines += ['"%s = "' % k for k in keys]
    lines += ['"%s"' % v for v in vals]
    with open("tests/fuzz/fuzz_conf.dict", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("fuzz_conf.dict: %d keys" % len(keys))

# --- tickctl command lines ------------------------------------------------

# Words separated by NUL bytes (fuzz_ctl_args.c); the fixture's jobs are
# nightly, fold, every5, after, boot, off and lordhowe (broken and lost
# are invalid).
CTL = [
    "", "--help", "--version", "-h", "-V", "--json", "-c", "-x", "frobnicate",
    "-c\0/etc/x.conf\0list", "--config=/x\0--json\0list", "--json\0--",
    "list", "list\0extra", "list\0--help", "list\0-z", "--json\0list",
    "status", "status\0nightly", "--json\0status\0nightly", "status\0boot",
    "status\0broken", "status\0nosuch", "status\0a\0b", "status\0--help",
    "next\0--cron\0@hourly", "next\0--cron\0*/15 * * * *\0-n\0003",
    "next\0--cron\0" "30 2 * * *\0--tz\0Europe/Berlin\0--dst-gap\0skip\0"
    "--dst-fold\0both\0--from\0" "2027-03-28T00:00:00Z\0-n\0" "5",
    "--json\0next\0--cron\0" "0 0 L * *\0--tz\0Australia/Lord_Howe",
    "next\0--cron\0@reboot", "next\0--cron\0" "0 0 30 2 *",
    "next\0--cron\0" "61 * * * *", "next\0--cron\0x\0--tz\0Nowhere",
    "next\0--cron\0@daily\0--tz\0../../etc/passwd",
    "next\0--cron\0@daily\0-n\0" "0", "next\0--cron\0@daily\0-n\0" "1000001",
    "next\0--cron\0@daily\0-n\0" "12x", "next\0--cron\0@daily\0--from\0now",
    "next\0--cron\0@daily\0--dst-gap\0sideways",
    "next\0--cron\0@daily\0--dst-fold\0third", "next\0--cron",
    "next\0--tz\0UTC", "next", "next\0nightly\0-n\0" "3",
    "--json\0next\0fold\0-n\0" "4\0--from\0" "2027-11-07T04:00:00Z",
    "next\0every5", "next\0after", "next\0boot", "next\0off",
    "next\0nightly\0--tz\0UTC", "next\0nightly\0--cron\0@daily",
    "next\0nightly\0extra", "next\0broken", "next\0--count=2\0lordhowe",
    "next\0--cr\0@daily", "next\0-n3\0every5", "next\0--help",
    "history", "history\0nightly\0--since\0" "2h\0--status\0failed,dead",
    "--json\0history\0--limit\0" "0", "history\0--status\0", "history\0"
    "--status\0bogus", "history\0--status\0failed,,dead, skipped",
    "history\0--status\0" + ",".join(["failed"] * 20),
    "history\0--since\0" "2027-03-14T07:00:00+01:00\0-n\0" "5",
    "history\0--since\0yesterday", "history\0--limit\0-1",
    "history\0--limit\0" "100000001", "history\0a\0b", "history\0gone",
    "history\0--status\0failed\0--status\0dead",
    "show", "show\0nightly@2027-03-14T01:30:00Z", "show\0a\0b",
    "--json\0show\0x", "stats", "stats\0nightly\0--since\0" "7d",
    "stats\0--since\0x", "stats\0a\0b", "metrics", "metrics\0--since\0" "1h",
    "metrics\0extra", "--json\0metrics", "env\0nightly", "env\0boot",
    "--json\0env\0after", "env\0every5", "env", "env\0a\0b", "env\0broken",
    "check", "check\0--strict", "--json\0check", "check\0x",
    "run\0nightly", "run\0nightly\0--force\0--wait", "--json\0run\0--wait\0"
    "every5", "run", "run\0a\0b", "run\0broken", "run\0nosuch",
    "replay\0nightly@2027-03-14T01:30:00Z", "replay\0--wait\0x@y",
    "replay\0a b", "replay\0--force\0x", "replay",
    "pause\0nightly", "pause\0--catch-up\0nightly", "pause",
    "resume\0nightly\0--catch-up", "resume\0off", "resume\0a\0b",
    "reload", "reload\0x", "--json\0reload",
    "import-crontab", "import-crontab\0/etc/crontab",
    "import-crontab\0--system\0--prefix\0web\0--user\0www-data\0a\0b\0c",
    "import-crontab\0--prefix\0bad id\0x", "import-crontab\0--prefix\0\0x",
    "import-crontab\0/etc/cron.d/php\0" "crontab.txt\0user\0more\0files",
    "import-crontab\0--user\0root\0" + "x" * 40, "import-crontab\0--help",
    "--json\0import-crontab\0a",
]


def ctl_seeds():
    out = {}
    for i, words in enumerate(CTL):
        out["seed-ctl-%03d" % i] = words.encode()
    return out


def write(target, seeds):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    print("%s: %d seeds" % (target, len(seeds)))


def main():
    cases = sys.argv[1] if len(sys.argv) > 1 else \
        "../shared/conformance/cases.jsonl"
    if not os.path.exists(cases):
        print("seeds: %s not found; no conformance seeds" % cases)
        cases = None
    write("fuzz_cronexpr", cron_seeds(cases))
    write("fuzz_tzif", tzif_seeds())
    dr = {}
    for i, s in enumerate(DURATIONS):
        dr["seed-duration-%02d" % i] = s.encode()
    for i, s in enumerate(TIMESTAMPS):
        dr["seed-rfc3339-%02d" % i] = s.encode()
    write("fuzz_duration_rfc3339", dr)
    write("fuzz_conf", job_seeds())
    conf_dict()
    write("fuzz_ctl_args", ctl_seeds())


if __name__ == "__main__":
    main()

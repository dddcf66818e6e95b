#!/usr/bin/env python3
"""Write the hand-made seed inputs of the fuzz corpora.

    python3 tests/fuzz/seeds.py [CASES.jsonl]

Run from the top of the checkout.  Writes tests/fuzz/corpus/<target>/seed-*
(the rest of each corpus is what libFuzzer found, merged with
`make fuzz-merge`).  CASES.jsonl defaults to the conformance kit beside the
checkout, ../shared/conformance/cases.jsonl; without it the conformance
seeds are left as they are.  Deterministic: the same inputs every time.
"""
import calendar
import datetime
import json
import os
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


if __name__ == "__main__":
    main()

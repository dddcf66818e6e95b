/*
 * test_tz.c -- unit tests for the tz module (src/tz.c).
 *
 * Hermetic: every zone comes from the committed fixtures in
 * $TICKD_TESTDATA/tzif/{fat,slim} (default tests/data), compiled by zic from
 * tzdata 2025b, or from TZif images assembled in memory below; the host's
 * /usr/share/zoneinfo is never read.  Expected instants, offsets and
 * abbreviations in the tables were computed outside this module (Python's
 * zoneinfo on the same fixture files, zdump, and zic output for the footer
 * rule cases) and are committed as literal numbers.
 *
 * Tables: UTC -> local periods around transitions; local -> UTC (gaps,
 * folds); tz_resolve under every gap and fold policy; POSIX footer rules;
 * hostile TZif images; zone names.  Sweeps: fat and slim files agree, and
 * conversion properties hold for every fixture zone.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "civil.h"
#include "tz.h"

#include "t.h"

#define FAT		"fat"
#define SLIM		"slim"
#define NO_TIME		INT64_MIN	/* "no instant" in the tables */
#define T_1850		(-3786825600LL)	/* 1850-01-01T00:00:00Z */
#define T_2200		7258118400LL	/* 2200-01-01T00:00:00Z */
#define SWEEP_STEP	(7 * 86400 + 3600 + 17)
#define MAX_FAILS	10		/* per sweep, to keep logs readable */

/* Every zone in the fixture set. */
static const char *const zones[] = {
	"America/New_York", "America/Los_Angeles", "America/Sao_Paulo",
	"America/Havana", "America/Santiago", "America/St_Johns",
	"Europe/Berlin", "Europe/London", "Europe/Dublin",
	"Australia/Lord_Howe", "Australia/Sydney", "Pacific/Apia",
	"Pacific/Chatham", "Asia/Kolkata", "Asia/Kathmandu", "Asia/Tehran",
	"Asia/Tokyo", "Africa/Casablanca", "Antarctica/Troll", "Etc/UTC"
};
#define NZONES	(sizeof zones / sizeof zones[0])

/* The test data directory: $TICKD_TESTDATA, default tests/data. */
static const char *
testdata(void)
{
	const char *base = getenv("TICKD_TESTDATA");

	return base != NULL && *base != '\0' ? base : "tests/data";
}

/* The fixture directory of one flavour ("fat" or "slim"). */
static const char *
fixture_dir(const char *flavour)
{
	static char	 fat[4096], slim[4096];
	char		*buf = strcmp(flavour, FAT) == 0 ? fat : slim;

	(void)snprintf(buf, sizeof fat, "%s/tzif/%s", testdata(), flavour);
	return buf;
}

/* Load a fixture zone; a missing fixture ends the test run. */
static struct tz *
load(const char *flavour, const char *zone)
{
	struct tz	*z;
	char		*cause = NULL;

	if ((z = tz_load_file(fixture_dir(flavour), zone, &cause)) == NULL) {
		(void)printf("cannot load fixture %s/%s: %s\n", flavour, zone,
		    cause);
		free(cause);
		exit(1);
	}
	return z;
}

/* Local civil seconds of "YYYY-MM-DDTHH:MM:SS". */
static int64_t
civ(const char *s)
{
	struct civil	c;
	long long	y;

	memset(&c, 0, sizeof c);
	if (sscanf(s, "%lld-%d-%dT%d:%d:%d", &y, &c.month, &c.day, &c.hour,
	    &c.min, &c.sec) != 6) {
		(void)printf("bad civil time in a table: %s\n", s);
		exit(1);
	}
	c.year = y;
	return civil_join(&c);
}

/* Whether cause is set and contains both words. */
static int
cause_has(const char *cause, const char *a, const char *b)
{
	return cause != NULL && (a == NULL || strstr(cause, a) != NULL) &&
	    (b == NULL || strstr(cause, b) != NULL);
}

/* Read a whole file into a new buffer; exits on failure. */
static unsigned char *
slurp(const char *path, size_t *len)
{
	unsigned char	*buf;
	struct stat	 st;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		(void)printf("%s: %s\n", path, strerror(errno));
		exit(1);
	}
	buf = malloc((size_t)st.st_size + 1);
	n = buf == NULL ? -1 : read(fd, buf, (size_t)st.st_size);
	if (n != st.st_size) {
		(void)printf("%s: short read\n", path);
		exit(1);
	}
	(void)close(fd);
	*len = (size_t)n;
	return buf;
}

/*
 * Assembling TZif images (RFC 8536) in memory, so that hostile input is
 * built from readable arrays instead of committed binaries.
 */

struct tzif_type {
	int32_t	utoff;
	uint8_t	isdst;
	uint8_t	abbr;
};

enum { HDR_NONE, HDR_ISUTCNT, HDR_ISSTDCNT, HDR_LEAPCNT, HDR_TIMECNT,
    HDR_TYPECNT, HDR_CHARCNT };

struct tzif {
	char			 version;	/* 0 (v1 only), '2', '3', ... */
	const char		*magic;		/* NULL: "TZif" */
	const int64_t		*trans;
	const uint8_t		*idx;
	uint32_t		 ntrans;
	const struct tzif_type	*types;
	uint32_t		 ntypes;
	const char		*chars;
	uint32_t		 nchars;
	uint32_t		 nleap;		/* leap-second records */
	int			 stdut;		/* write isstd and isut */
	int			 hdr;		/* a header count to replace */
	uint32_t		 hdr_value;
	const char		*footer;	/* NULL: none, else "\n%s\n" */
	const char		*tail;		/* raw bytes after the data */
	size_t			 tail_len;
};

struct obuf {
	unsigned char	b[8192];
	size_t		len;
};

/* Append n bytes to the image. */
static void
put(struct obuf *o, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (n > sizeof o->b - o->len) {
		(void)printf("tzif image too large\n");
		exit(1);
	}
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

/* Append a big-endian 32-bit value. */
static void
put32(struct obuf *o, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)(v >> 24),
	    (unsigned char)(v >> 16), (unsigned char)(v >> 8),
	    (unsigned char)v };

	put(o, b, 4);
}

/* Append a big-endian 64-bit value. */
static void
put64(struct obuf *o, uint64_t v)
{
	put32(o, (uint32_t)(v >> 32));
	put32(o, (uint32_t)v);
}

/* One header and data block; v2 selects 64-bit times. */
static void
tzif_block(struct obuf *o, const struct tzif *s, int v2)
{
	uint32_t	cnt[6], i;
	unsigned char	z[15] = { 0 }, ver = (unsigned char)s->version;

	cnt[0] = cnt[1] = s->stdut ? s->ntypes : 0;
	cnt[2] = s->nleap;
	cnt[3] = s->ntrans;
	cnt[4] = s->ntypes;
	cnt[5] = s->nchars;
	if (s->hdr != HDR_NONE)
		cnt[s->hdr - 1] = s->hdr_value;
	put(o, s->magic != NULL ? s->magic : "TZif", 4);
	put(o, &ver, 1);
	put(o, z, sizeof z);
	for (i = 0; i < 6; i++)
		put32(o, cnt[i]);
	for (i = 0; i < s->ntrans; i++) {
		if (v2)
			put64(o, (uint64_t)s->trans[i]);
		else
			put32(o, (uint32_t)s->trans[i]);
	}
	put(o, s->idx, s->ntrans);
	for (i = 0; i < s->ntypes; i++) {
		put32(o, (uint32_t)s->types[i].utoff);
		put(o, &s->types[i].isdst, 1);
		put(o, &s->types[i].abbr, 1);
	}
	put(o, s->chars, s->nchars);
	for (i = 0; i < s->nleap; i++) {	/* 1972-07-01, +1 s each */
		if (v2)
			put64(o, 78796800 + i);
		else
			put32(o, 78796800 + i);
		put32(o, i + 1);
	}
	for (i = 0; s->stdut && i < 2 * s->ntypes; i++)
		put(o, z, 1);
}

/* Assemble an image: v1 block, then (v2+) v2 block and footer. */
static void
tzif_build(struct obuf *o, const struct tzif *s)
{
	o->len = 0;
	tzif_block(o, s, 0);
	if (s->version != 0)
		tzif_block(o, s, 1);
	if (s->footer != NULL) {
		put(o, "\n", 1);
		put(o, s->footer, strlen(s->footer));
		put(o, "\n", 1);
	}
	if (s->tail != NULL)
		put(o, s->tail, s->tail_len);
}

/* Load an image through a heap copy of exactly its length (for ASan). */
static struct tz *
tzif_load(const char *name, const unsigned char *img, size_t len,
    char **cause)
{
	unsigned char	*copy = malloc(len ? len : 1);
	struct tz	*z;

	if (copy == NULL)
		exit(1);
	if (len > 0)
		memcpy(copy, img, len);
	z = tz_load_mem(name, copy, len, cause);
	free(copy);
	return z;
}

/* The period of t in z, with its fields checked against the want values. */
static void
check_period(const struct tz *z, int64_t t, int32_t utoff, int isdst,
    const char *abbr)
{
	struct tz_period p;

	tz_period_at(z, t, &p);
	T_EQ_INT(p.utoff, utoff);
	T_EQ_INT(p.isdst, isdst);
	T_EQ_STR(p.abbr, abbr);
	T_TRUE(p.start <= t && t < p.end);
}

/*
 * UTC -> local: the period (offset, isdst, abbreviation, bounds) at and
 * around transitions.  Bounds are those of the file's transitions, so a
 * fat file's extra transition at 2038-01-19T03:14:07Z splits a period.
 */
static const struct utc_case {
	const char	*flavour;
	const char	*zone;
	int64_t		 t;
	int32_t		 utoff;
	int		 isdst;
	const char	*abbr;
	int64_t		 start, end;
} utc_cases[] = {
	/* Lord Howe: 30-minute DST starts, 02:00 +10:30 -> 02:30 +11 */
	{ FAT, "Australia/Lord_Howe", 1728142199, 37800, 0, "+1030",
	    1712415600, 1728142200 },	/* 2024-10-05T15:29:59Z */
	{ FAT, "Australia/Lord_Howe", 1728142200, 39600, 1, "+11",
	    1728142200, 1743865200 },	/* 2024-10-05T15:30:00Z */
	{ FAT, "Australia/Lord_Howe", 1728142201, 39600, 1, "+11",
	    1728142200, 1743865200 },	/* 2024-10-05T15:30:01Z */
	/* Lord Howe: 30-minute DST ends, 02:00 +11 -> 01:30 +10:30 */
	{ FAT, "Australia/Lord_Howe", 1712415599, 39600, 1, "+11",
	    1696087800, 1712415600 },	/* 2024-04-06T14:59:59Z */
	{ FAT, "Australia/Lord_Howe", 1712415600, 37800, 0, "+1030",
	    1712415600, 1728142200 },	/* 2024-04-06T15:00:00Z */
	{ FAT, "Australia/Lord_Howe", 1712415601, 37800, 0, "+1030",
	    1712415600, 1728142200 },	/* 2024-04-06T15:00:01Z */
	/* Lord Howe 2100, footer rule */
	{ FAT, "Australia/Lord_Howe", 4126174200, 39600, 1, "+11",
	    4126174200, 4141897200 },	/* 2100-10-02T15:30:00Z */
	/* Dublin: negative DST; winter GMT is the isdst=1 type */
	{ FAT, "Europe/Dublin", 1711846799, 0, 1, "GMT",
	    1698541200, 1711846800 },	/* 2024-03-31T00:59:59Z */
	{ FAT, "Europe/Dublin", 1711846800, 3600, 0, "IST",
	    1711846800, 1729990800 },	/* 2024-03-31T01:00:00Z */
	{ FAT, "Europe/Dublin", 1711846801, 3600, 0, "IST",
	    1711846800, 1729990800 },	/* 2024-03-31T01:00:01Z */
	{ FAT, "Europe/Dublin", 1729990799, 3600, 0, "IST",
	    1711846800, 1729990800 },	/* 2024-10-27T00:59:59Z */
	{ FAT, "Europe/Dublin", 1729990800, 0, 1, "GMT",
	    1729990800, 1743296400 },	/* 2024-10-27T01:00:00Z */
	{ FAT, "Europe/Dublin", 1729990801, 0, 1, "GMT",
	    1729990800, 1743296400 },	/* 2024-10-27T01:00:01Z */
	/* Dublin 1968: IST becomes standard time (isdst 1 -> 0) */
	{ FAT, "Europe/Dublin", -37242001, 3600, 1, "IST",
	    -59004000, -37242000 },	/* 1968-10-26T22:59:59Z */
	{ FAT, "Europe/Dublin", -37242000, 3600, 0, "IST",
	    -37242000, 57722400 },	/* 1968-10-26T23:00:00Z */
	{ FAT, "Europe/Dublin", -37241999, 3600, 0, "IST",
	    -37242000, 57722400 },	/* 1968-10-26T23:00:01Z */
	/* Dublin 1971: first negative-DST winter */
	{ FAT, "Europe/Dublin", 57722399, 3600, 0, "IST",
	    -37242000, 57722400 },	/* 1971-10-31T01:59:59Z */
	{ FAT, "Europe/Dublin", 57722400, 0, 1, "GMT",
	    57722400, 69818400 },	/* 1971-10-31T02:00:00Z */
	{ FAT, "Europe/Dublin", 57722401, 0, 1, "GMT",
	    57722400, 69818400 },	/* 1971-10-31T02:00:01Z */
	/* Dublin 1880: LMT -> DMT, same offset -0:25:21 */
	{ FAT, "Europe/Dublin", -2821649680, -1521, 0, "LMT",
	    TZ_TIME_MIN, -2821649679 },	/* 1880-08-02T00:25:20Z */
	{ FAT, "Europe/Dublin", -2821649679, -1521, 0, "DMT",
	    -2821649679, -1691962479 },	/* 1880-08-02T00:25:21Z */
	{ FAT, "Europe/Dublin", -2821649678, -1521, 0, "DMT",
	    -2821649679, -1691962479 },	/* 1880-08-02T00:25:22Z */
	/* Dublin 1916: DMT -> IST +0:34:39 */
	{ FAT, "Europe/Dublin", -1691962480, -1521, 0, "DMT",
	    -2821649679, -1691962479 },	/* 1916-05-21T02:25:20Z */
	{ FAT, "Europe/Dublin", -1691962479, 2079, 1, "IST",
	    -1691962479, -1680471279 },	/* 1916-05-21T02:25:21Z */
	{ FAT, "Europe/Dublin", -1691962478, 2079, 1, "IST",
	    -1691962479, -1680471279 },	/* 1916-05-21T02:25:22Z */
	/* Apia skips 2011-12-30: 23:59:59 -10 -> 12-31 00:00 +14 */
	{ FAT, "Pacific/Apia", 1325239199, -36000, 1, "-10",
	    1316872800, 1325239200 },	/* 2011-12-30T09:59:59Z */
	{ FAT, "Pacific/Apia", 1325239200, 50400, 1, "+14",
	    1325239200, 1333202400 },	/* 2011-12-30T10:00:00Z */
	{ FAT, "Pacific/Apia", 1325239201, 50400, 1, "+14",
	    1325239200, 1333202400 },	/* 2011-12-30T10:00:01Z */
	/* Apia 2011-04-02: DST ends, 04:00 -10 -> 03:00 -11 */
	{ FAT, "Pacific/Apia", 1301752799, -36000, 1, "-10",
	    1285498800, 1301752800 },	/* 2011-04-02T13:59:59Z */
	{ FAT, "Pacific/Apia", 1301752800, -39600, 0, "-11",
	    1301752800, 1316872800 },	/* 2011-04-02T14:00:00Z */
	{ FAT, "Pacific/Apia", 1301752801, -39600, 0, "-11",
	    1301752800, 1316872800 },	/* 2011-04-02T14:00:01Z */
	/* Apia 1892: date line move repeats 1892-07-04 (LMT -> LMT) */
	{ FAT, "Pacific/Apia", -2445424385, 45184, 0, "LMT",
	    TZ_TIME_MIN, -2445424384 },	/* 1892-07-04T11:26:55Z */
	{ FAT, "Pacific/Apia", -2445424384, -41216, 0, "LMT",
	    -2445424384, -1861878784 },	/* 1892-07-04T11:26:56Z */
	{ FAT, "Pacific/Apia", -2445424383, -41216, 0, "LMT",
	    -2445424384, -1861878784 },	/* 1892-07-04T11:26:57Z */
	/* Havana: midnight transitions */
	{ FAT, "America/Havana", 1710046799, -18000, 0, "CST",
	    1699160400, 1710046800 },	/* 2024-03-10T04:59:59Z */
	{ FAT, "America/Havana", 1710046800, -14400, 1, "CDT",
	    1710046800, 1730610000 },	/* 2024-03-10T05:00:00Z */
	{ FAT, "America/Havana", 1710046801, -14400, 1, "CDT",
	    1710046800, 1730610000 },	/* 2024-03-10T05:00:01Z */
	{ FAT, "America/Havana", 1730609999, -14400, 1, "CDT",
	    1710046800, 1730610000 },	/* 2024-11-03T04:59:59Z */
	{ FAT, "America/Havana", 1730610000, -18000, 0, "CST",
	    1730610000, 1741496400 },	/* 2024-11-03T05:00:00Z */
	{ FAT, "America/Havana", 1730610001, -18000, 0, "CST",
	    1730610000, 1741496400 },	/* 2024-11-03T05:00:01Z */
	/* Santiago: DST starts at Saturday 24:00 */
	{ FAT, "America/Santiago", 1725767999, -14400, 0, "-04",
	    1712458800, 1725768000 },	/* 2024-09-08T03:59:59Z */
	{ FAT, "America/Santiago", 1725768000, -10800, 1, "-03",
	    1725768000, 1743908400 },	/* 2024-09-08T04:00:00Z */
	{ FAT, "America/Santiago", 1725768001, -10800, 1, "-03",
	    1725768000, 1743908400 },	/* 2024-09-08T04:00:01Z */
	/* Santiago: DST ends at Saturday 24:00 -03 */
	{ FAT, "America/Santiago", 1712458799, -10800, 1, "-03",
	    1693713600, 1712458800 },	/* 2024-04-07T02:59:59Z */
	{ FAT, "America/Santiago", 1712458800, -14400, 0, "-04",
	    1712458800, 1725768000 },	/* 2024-04-07T03:00:00Z */
	{ FAT, "America/Santiago", 1712458801, -14400, 0, "-04",
	    1712458800, 1725768000 },	/* 2024-04-07T03:00:01Z */
	/* New York */
	{ FAT, "America/New_York", 1710053999, -18000, 0, "EST",
	    1699164000, 1710054000 },	/* 2024-03-10T06:59:59Z */
	{ FAT, "America/New_York", 1710054000, -14400, 1, "EDT",
	    1710054000, 1730613600 },	/* 2024-03-10T07:00:00Z */
	{ FAT, "America/New_York", 1710054001, -14400, 1, "EDT",
	    1710054000, 1730613600 },	/* 2024-03-10T07:00:01Z */
	{ FAT, "America/New_York", 1730613599, -14400, 1, "EDT",
	    1710054000, 1730613600 },	/* 2024-11-03T05:59:59Z */
	{ FAT, "America/New_York", 1730613600, -18000, 0, "EST",
	    1730613600, 1741503600 },	/* 2024-11-03T06:00:00Z */
	{ FAT, "America/New_York", 1730613601, -18000, 0, "EST",
	    1730613600, 1741503600 },	/* 2024-11-03T06:00:01Z */
	/* New York 1883: LMT -4:56:02 -> EST */
	{ FAT, "America/New_York", -2717650801, -17762, 0, "LMT",
	    TZ_TIME_MIN, -2717650800 },	/* 1883-11-18T16:59:59Z */
	{ FAT, "America/New_York", -2717650800, -18000, 0, "EST",
	    -2717650800, -1633280400 },	/* 1883-11-18T17:00:00Z */
	{ FAT, "America/New_York", -2717650799, -18000, 0, "EST",
	    -2717650800, -1633280400 },	/* 1883-11-18T17:00:01Z */
	/* Sydney: southern hemisphere */
	{ FAT, "Australia/Sydney", 1712419199, 39600, 1, "AEDT",
	    1696089600, 1712419200 },	/* 2024-04-06T15:59:59Z */
	{ FAT, "Australia/Sydney", 1712419200, 36000, 0, "AEST",
	    1712419200, 1728144000 },	/* 2024-04-06T16:00:00Z */
	{ FAT, "Australia/Sydney", 1712419201, 36000, 0, "AEST",
	    1712419200, 1728144000 },	/* 2024-04-06T16:00:01Z */
	{ FAT, "Australia/Sydney", 1728143999, 36000, 0, "AEST",
	    1712419200, 1728144000 },	/* 2024-10-05T15:59:59Z */
	{ FAT, "Australia/Sydney", 1728144000, 39600, 1, "AEDT",
	    1728144000, 1743868800 },	/* 2024-10-05T16:00:00Z */
	{ FAT, "Australia/Sydney", 1728144001, 39600, 1, "AEDT",
	    1728144000, 1743868800 },	/* 2024-10-05T16:00:01Z */
	/* Kolkata: no DST since 1945 */
	{ FAT, "Asia/Kolkata", 1717200000, 19800, 0, "IST",
	    -764145000, TZ_TIME_MAX },	/* 2024-06-01T00:00:00Z */
	/* Kolkata: LMT +5:53:28 -> HMT +5:53:20 (1854) -> MMT +5:21:10 */
	{ FAT, "Asia/Kolkata", -3645237209, 21208, 0, "LMT",
	    TZ_TIME_MIN, -3645237208 },	/* 1854-06-27T18:06:31Z */
	{ FAT, "Asia/Kolkata", -3645237208, 21200, 0, "HMT",
	    -3645237208, -3155694800 },	/* 1854-06-27T18:06:32Z */
	{ FAT, "Asia/Kolkata", -3645237207, 21200, 0, "HMT",
	    -3645237208, -3155694800 },	/* 1854-06-27T18:06:33Z */
	{ FAT, "Asia/Kolkata", -3155694801, 21200, 0, "HMT",
	    -3645237208, -3155694800 },	/* 1869-12-31T18:06:39Z */
	{ FAT, "Asia/Kolkata", -3155694800, 19270, 0, "MMT",
	    -3155694800, -2019705670 },	/* 1869-12-31T18:06:40Z */
	{ FAT, "Asia/Kolkata", -3155694799, 19270, 0, "MMT",
	    -3155694800, -2019705670 },	/* 1869-12-31T18:06:41Z */
	/* Troll: +2 DST on a +0 base */
	{ FAT, "Antarctica/Troll", 1711846799, 0, 0, "+00",
	    1698541200, 1711846800 },	/* 2024-03-31T00:59:59Z */
	{ FAT, "Antarctica/Troll", 1711846800, 7200, 1, "+02",
	    1711846800, 1729990800 },	/* 2024-03-31T01:00:00Z */
	{ FAT, "Antarctica/Troll", 1711846801, 7200, 1, "+02",
	    1711846800, 1729990800 },	/* 2024-03-31T01:00:01Z */
	{ FAT, "Antarctica/Troll", 1729990799, 7200, 1, "+02",
	    1711846800, 1729990800 },	/* 2024-10-27T00:59:59Z */
	{ FAT, "Antarctica/Troll", 1729990800, 0, 0, "+00",
	    1729990800, 1743296400 },	/* 2024-10-27T01:00:00Z */
	{ FAT, "Antarctica/Troll", 1729990801, 0, 0, "+00",
	    1729990800, 1743296400 },	/* 2024-10-27T01:00:01Z */
	/* Troll 2005: -00 (uninhabited) -> +00 */
	{ FAT, "Antarctica/Troll", 1108166399, 0, 0, "-00",
	    TZ_TIME_MIN, 1108166400 },	/* 2005-02-11T23:59:59Z */
	{ FAT, "Antarctica/Troll", 1108166400, 0, 0, "+00",
	    1108166400, 1111885200 },	/* 2005-02-12T00:00:00Z */
	{ FAT, "Antarctica/Troll", 1108166401, 0, 0, "+00",
	    1108166400, 1111885200 },	/* 2005-02-12T00:00:01Z */
	/* Casablanca: +00 (isdst) during Ramadan */
	{ FAT, "Africa/Casablanca", 1740275999, 3600, 0, "+01",
	    1713060000, 1740276000 },	/* 2025-02-23T01:59:59Z */
	{ FAT, "Africa/Casablanca", 1740276000, 0, 1, "+00",
	    1740276000, 1743904800 },	/* 2025-02-23T02:00:00Z */
	{ FAT, "Africa/Casablanca", 1740276001, 0, 1, "+00",
	    1740276000, 1743904800 },	/* 2025-02-23T02:00:01Z */
	{ FAT, "Africa/Casablanca", 1743904799, 0, 1, "+00",
	    1740276000, 1743904800 },	/* 2025-04-06T01:59:59Z */
	{ FAT, "Africa/Casablanca", 1743904800, 3600, 0, "+01",
	    1743904800, 1771120800 },	/* 2025-04-06T02:00:00Z */
	{ FAT, "Africa/Casablanca", 1743904801, 3600, 0, "+01",
	    1743904800, 1771120800 },	/* 2025-04-06T02:00:01Z */
	/* Casablanca after its last transition (2087) */
	{ FAT, "Africa/Casablanca", 4102444800, 3600, 0, "+01",
	    3703456800, TZ_TIME_MAX },	/* 2100-01-01T00:00:00Z */
	/* Berlin 1850: LMT +0:53:28 */
	{ FAT, "Europe/Berlin", -3786825600, 3208, 0, "LMT",
	    TZ_TIME_MIN, -2422054408 },	/* 1850-01-01T00:00:00Z */
	/* St. John's: -3:30 -> -2:30 */
	{ FAT, "America/St_Johns", 1710048599, -12600, 0, "NST",
	    1699158600, 1710048600 },	/* 2024-03-10T05:29:59Z */
	{ FAT, "America/St_Johns", 1710048600, -9000, 1, "NDT",
	    1710048600, 1730608200 },	/* 2024-03-10T05:30:00Z */
	{ FAT, "America/St_Johns", 1710048601, -9000, 1, "NDT",
	    1710048600, 1730608200 },	/* 2024-03-10T05:30:01Z */
	/* Chatham: +13:45 -> +12:45 */
	{ FAT, "Pacific/Chatham", 1712411999, 49500, 1, "+1345",
	    1695477600, 1712412000 },	/* 2024-04-06T13:59:59Z */
	{ FAT, "Pacific/Chatham", 1712412000, 45900, 0, "+1245",
	    1712412000, 1727532000 },	/* 2024-04-06T14:00:00Z */
	{ FAT, "Pacific/Chatham", 1712412001, 45900, 0, "+1245",
	    1712412000, 1727532000 },	/* 2024-04-06T14:00:01Z */
	/* Kathmandu: +5:45 (fat file splits at 2038-01-19) */
	{ FAT, "Asia/Kathmandu", 504921600, 20700, 0, "+0545",
	    504901800, 2147483647 },	/* 1986-01-01T00:00:00Z */
	/* Far future from the footer rule: 2100, 2500, 9999 */
	{ FAT, "America/New_York", 4108690799, -18000, 0, "EST",
	    4097196000, 4108690800 },	/* 2100-03-14T06:59:59Z */
	{ FAT, "America/New_York", 4108690800, -14400, 1, "EDT",
	    4108690800, 4129250400 },	/* 2100-03-14T07:00:00Z */
	{ FAT, "America/New_York", 4108690801, -14400, 1, "EDT",
	    4108690800, 4129250400 },	/* 2100-03-14T07:00:01Z */
	{ FAT, "America/New_York", 4118385600, -14400, 1, "EDT",
	    4108690800, 4129250400 },	/* 2100-07-04T12:00:00Z */
	{ FAT, "Australia/Sydney", 16726435200, 39600, 1, "AEDT",
	    16717507200, 16733232000 },	/* 2500-01-15T00:00:00Z */
	{ FAT, "Australia/Lord_Howe", 253385020800, 37800, 0, "+1030",
	    253378767600, 253394494200 },	/* 9999-06-15T00:00:00Z */
	{ FAT, "Europe/Dublin", 253386403200, 3600, 0, "IST",
	    253378198800, 253396947600 },	/* 9999-07-01T00:00:00Z */
	{ FAT, "Europe/Dublin", 253370764800, 0, 1, "GMT",
	    253364893200, 253378198800 },	/* 9999-01-01T00:00:00Z */
	{ FAT, "America/Santiago", 4123799999, -14400, 0, "-04",
	    4110490800, 4123800000 },	/* 2100-09-05T03:59:59Z */
	{ FAT, "America/Santiago", 4123800000, -10800, 1, "-03",
	    4123800000, 4141940400 },	/* 2100-09-05T04:00:00Z */
	{ FAT, "America/Santiago", 4123800001, -10800, 1, "-03",
	    4123800000, 4141940400 },	/* 2100-09-05T04:00:01Z */
	/* Slim files: the footer rule from 2007, 1996 and 2008 on */
	{ SLIM, "America/New_York", 1710053999, -18000, 0, "EST",
	    1699164000, 1710054000 },	/* 2024-03-10T06:59:59Z */
	{ SLIM, "America/New_York", 1710054000, -14400, 1, "EDT",
	    1710054000, 1730613600 },	/* 2024-03-10T07:00:00Z */
	{ SLIM, "America/New_York", 1710054001, -14400, 1, "EDT",
	    1710054000, 1730613600 },	/* 2024-03-10T07:00:01Z */
	{ SLIM, "Europe/Dublin", 1729990799, 3600, 0, "IST",
	    1711846800, 1729990800 },	/* 2024-10-27T00:59:59Z */
	{ SLIM, "Europe/Dublin", 1729990800, 0, 1, "GMT",
	    1729990800, 1743296400 },	/* 2024-10-27T01:00:00Z */
	{ SLIM, "Europe/Dublin", 1729990801, 0, 1, "GMT",
	    1729990800, 1743296400 },	/* 2024-10-27T01:00:01Z */
	{ SLIM, "Australia/Lord_Howe", 1728142199, 37800, 0, "+1030",
	    1712415600, 1728142200 },	/* 2024-10-05T15:29:59Z */
	{ SLIM, "Australia/Lord_Howe", 1728142200, 39600, 1, "+11",
	    1728142200, 1743865200 },	/* 2024-10-05T15:30:00Z */
	{ SLIM, "Australia/Lord_Howe", 1728142201, 39600, 1, "+11",
	    1728142200, 1743865200 },	/* 2024-10-05T15:30:01Z */
};

/* Run the UTC -> local table. */
static void
test_utc_to_local(void)
{
	const struct utc_case	*c;
	struct tz_period	 p;
	struct tz		*z;
	int32_t			 off;
	size_t			 i;

	T_RUN("utc to local");
	for (i = 0; i < sizeof utc_cases / sizeof utc_cases[0]; i++) {
		c = &utc_cases[i];
		z = load(c->flavour, c->zone);
		tz_period_at(z, c->t, &p);
		if (!T_EQ_INT(p.utoff, c->utoff) ||
		    !T_EQ_INT(p.isdst, c->isdst) ||
		    !T_EQ_STR(p.abbr, c->abbr) ||
		    !T_EQ_TIME(p.start, c->start) ||
		    !T_EQ_TIME(p.end, c->end))
			(void)printf("  in case %zu: %s %s at %" PRId64 "\n",
			    i, c->flavour, c->zone, c->t);
		off = 0;
		T_EQ_INT(tz_to_local(z, c->t, &off), c->t + c->utoff);
		T_EQ_INT(off, c->utoff);
		T_EQ_INT(tz_to_local(z, c->t, NULL), c->t + c->utoff);
		tz_free(z);
	}
}

/*
 * Local -> UTC: every instant a wall-clock time denotes (0 in a gap, with
 * the instant that ends the gap; 2 in a fold).
 */
static const struct local_case {
	const char	*flavour;
	const char	*zone;
	const char	*local;
	int		 n;
	int64_t		 out[2];
	int64_t		 gap_end;
} local_cases[] = {
	/* New York springs forward: 02:00-02:59:59 does not exist */
	{ FAT, "America/New_York", "2024-03-10T01:59:59", 1,
	    { 1710053999 }, 0 },	/* 2024-03-10T06:59:59Z */
	{ FAT, "America/New_York", "2024-03-10T02:00:00", 0,
	    { 0 }, 1710054000 },	/* gap to 2024-03-10T07:00:00Z */
	{ FAT, "America/New_York", "2024-03-10T02:30:00", 0,
	    { 0 }, 1710054000 },	/* gap to 2024-03-10T07:00:00Z */
	{ FAT, "America/New_York", "2024-03-10T02:59:59", 0,
	    { 0 }, 1710054000 },	/* gap to 2024-03-10T07:00:00Z */
	{ FAT, "America/New_York", "2024-03-10T03:00:00", 1,
	    { 1710054000 }, 0 },	/* 2024-03-10T07:00:00Z */
	/* New York falls back: 01:00-01:59:59 happens twice */
	{ FAT, "America/New_York", "2024-11-03T00:59:59", 1,
	    { 1730609999 }, 0 },	/* 2024-11-03T04:59:59Z */
	{ FAT, "America/New_York", "2024-11-03T01:00:00", 2,
	    { 1730610000, 1730613600 }, 0 },	/* 05:00:00Z 06:00:00Z */
	{ FAT, "America/New_York", "2024-11-03T01:30:00", 2,
	    { 1730611800, 1730615400 }, 0 },	/* 05:30:00Z 06:30:00Z */
	{ FAT, "America/New_York", "2024-11-03T01:59:59", 2,
	    { 1730613599, 1730617199 }, 0 },	/* 05:59:59Z 06:59:59Z */
	{ FAT, "America/New_York", "2024-11-03T02:00:00", 1,
	    { 1730617200 }, 0 },	/* 2024-11-03T07:00:00Z */
	/* An ordinary time; then the footer rule in 2100 */
	{ FAT, "America/New_York", "2024-07-01T12:00:00", 1,
	    { 1719849600 }, 0 },	/* 2024-07-01T16:00:00Z */
	{ FAT, "America/New_York", "2100-03-14T02:30:00", 0,
	    { 0 }, 4108690800 },	/* gap to 2100-03-14T07:00:00Z */
	{ FAT, "America/New_York", "2100-11-07T01:30:00", 2,
	    { 4129248600, 4129252200 }, 0 },	/* 05:30:00Z 06:30:00Z */
	/* New York 1883: LMT -> EST repeats 12:00:00-12:03:57 */
	{ FAT, "America/New_York", "1883-11-18T12:02:00", 2,
	    { -2717650918, -2717650680 }, 0 },	/* 16:58:02Z 17:02:00Z */
	{ FAT, "America/New_York", "1883-11-18T12:03:58", 1,
	    { -2717650562 }, 0 },	/* 1883-11-18T17:03:58Z */
	/* Apia: all of 2011-12-30 is one gap, ending at 12-31 00:00 +14 */
	{ FAT, "Pacific/Apia", "2011-12-29T23:59:59", 1,
	    { 1325239199 }, 0 },	/* 2011-12-30T09:59:59Z */
	{ FAT, "Pacific/Apia", "2011-12-30T00:00:00", 0,
	    { 0 }, 1325239200 },	/* gap to 2011-12-30T10:00:00Z */
	{ FAT, "Pacific/Apia", "2011-12-30T12:00:00", 0,
	    { 0 }, 1325239200 },	/* gap to 2011-12-30T10:00:00Z */
	{ FAT, "Pacific/Apia", "2011-12-30T23:59:59", 0,
	    { 0 }, 1325239200 },	/* gap to 2011-12-30T10:00:00Z */
	{ FAT, "Pacific/Apia", "2011-12-31T00:00:00", 1,
	    { 1325239200 }, 0 },	/* 2011-12-30T10:00:00Z */
	/* Apia: 03:00-03:59:59 twice */
	{ FAT, "Pacific/Apia", "2011-04-02T02:59:59", 1,
	    { 1301749199 }, 0 },	/* 2011-04-02T12:59:59Z */
	{ FAT, "Pacific/Apia", "2011-04-02T03:00:00", 2,
	    { 1301749200, 1301752800 }, 0 },	/* 13:00:00Z 14:00:00Z */
	{ FAT, "Pacific/Apia", "2011-04-02T03:30:00", 2,
	    { 1301751000, 1301754600 }, 0 },	/* 13:30:00Z 14:30:00Z */
	{ FAT, "Pacific/Apia", "2011-04-02T04:00:00", 1,
	    { 1301756400 }, 0 },	/* 2011-04-02T15:00:00Z */
	/* Apia 1892: the whole of 4 July twice, 24 hours apart */
	{ FAT, "Pacific/Apia", "1892-07-04T12:00:00", 2,
	    { -2445467584, -2445381184 }, 0 },	/* 23:26:56Z 23:26:56Z */
	/* Lord Howe: a 30-minute gap and a 30-minute fold */
	{ FAT, "Australia/Lord_Howe", "2024-10-06T01:59:59", 1,
	    { 1728142199 }, 0 },	/* 2024-10-05T15:29:59Z */
	{ FAT, "Australia/Lord_Howe", "2024-10-06T02:00:00", 0,
	    { 0 }, 1728142200 },	/* gap to 2024-10-05T15:30:00Z */
	{ FAT, "Australia/Lord_Howe", "2024-10-06T02:15:00", 0,
	    { 0 }, 1728142200 },	/* gap to 2024-10-05T15:30:00Z */
	{ FAT, "Australia/Lord_Howe", "2024-10-06T02:29:59", 0,
	    { 0 }, 1728142200 },	/* gap to 2024-10-05T15:30:00Z */
	{ FAT, "Australia/Lord_Howe", "2024-10-06T02:30:00", 1,
	    { 1728142200 }, 0 },	/* 2024-10-05T15:30:00Z */
	{ FAT, "Australia/Lord_Howe", "2024-04-07T01:29:59", 1,
	    { 1712413799 }, 0 },	/* 2024-04-06T14:29:59Z */
	{ FAT, "Australia/Lord_Howe", "2024-04-07T01:30:00", 2,
	    { 1712413800, 1712415600 }, 0 },	/* 14:30:00Z 15:00:00Z */
	{ FAT, "Australia/Lord_Howe", "2024-04-07T01:45:00", 2,
	    { 1712414700, 1712416500 }, 0 },	/* 14:45:00Z 15:15:00Z */
	{ FAT, "Australia/Lord_Howe", "2024-04-07T02:00:00", 1,
	    { 1712417400 }, 0 },	/* 2024-04-06T15:30:00Z */
	/* Santiago: Saturday 23:00-23:59:59 twice; the gap is Sunday 00:xx */
	{ FAT, "America/Santiago", "2024-04-06T22:59:59", 1,
	    { 1712455199 }, 0 },	/* 2024-04-07T01:59:59Z */
	{ FAT, "America/Santiago", "2024-04-06T23:00:00", 2,
	    { 1712455200, 1712458800 }, 0 },	/* 02:00:00Z 03:00:00Z */
	{ FAT, "America/Santiago", "2024-04-06T23:30:00", 2,
	    { 1712457000, 1712460600 }, 0 },	/* 02:30:00Z 03:30:00Z */
	{ FAT, "America/Santiago", "2024-04-07T00:00:00", 1,
	    { 1712462400 }, 0 },	/* 2024-04-07T04:00:00Z */
	{ FAT, "America/Santiago", "2024-09-07T23:59:59", 1,
	    { 1725767999 }, 0 },	/* 2024-09-08T03:59:59Z */
	{ FAT, "America/Santiago", "2024-09-08T00:00:00", 0,
	    { 0 }, 1725768000 },	/* gap to 2024-09-08T04:00:00Z */
	{ FAT, "America/Santiago", "2024-09-08T00:30:00", 0,
	    { 0 }, 1725768000 },	/* gap to 2024-09-08T04:00:00Z */
	{ FAT, "America/Santiago", "2024-09-08T01:00:00", 1,
	    { 1725768000 }, 0 },	/* 2024-09-08T04:00:00Z */
	/* Havana: midnight gap and fold */
	{ FAT, "America/Havana", "2024-03-10T00:30:00", 0,
	    { 0 }, 1710046800 },	/* gap to 2024-03-10T05:00:00Z */
	{ FAT, "America/Havana", "2024-11-03T00:30:00", 2,
	    { 1730608200, 1730611800 }, 0 },	/* 04:30:00Z 05:30:00Z */
	/* Dublin: negative DST, gap into IST and fold into GMT (isdst 1) */
	{ FAT, "Europe/Dublin", "2024-03-31T01:30:00", 0,
	    { 0 }, 1711846800 },	/* gap to 2024-03-31T01:00:00Z */
	{ FAT, "Europe/Dublin", "2024-10-27T01:30:00", 2,
	    { 1729989000, 1729992600 }, 0 },	/* 00:30:00Z 01:30:00Z */
	{ FAT, "Europe/Dublin", "9999-10-31T01:30:00", 2,
	    { 253396945800, 253396949400 }, 0 },
	/* Sydney; Troll with a 2-hour change; Chatham at :45 */
	{ FAT, "Australia/Sydney", "2024-10-06T02:30:00", 0,
	    { 0 }, 1728144000 },	/* gap to 2024-10-05T16:00:00Z */
	{ FAT, "Australia/Sydney", "2024-04-07T02:30:00", 2,
	    { 1712417400, 1712421000 }, 0 },	/* 15:30:00Z 16:30:00Z */
	{ FAT, "Antarctica/Troll", "2024-03-31T02:00:00", 0,
	    { 0 }, 1711846800 },	/* gap to 2024-03-31T01:00:00Z */
	{ FAT, "Antarctica/Troll", "2024-10-27T01:30:00", 2,
	    { 1729985400, 1729992600 }, 0 },	/* 23:30:00Z 01:30:00Z */
	{ FAT, "Pacific/Chatham", "2024-09-29T03:00:00", 0,
	    { 0 }, 1727532000 },	/* gap to 2024-09-28T14:00:00Z */
	{ FAT, "Pacific/Chatham", "2024-04-07T03:00:00", 2,
	    { 1712409300, 1712412900 }, 0 },	/* 13:15:00Z 14:15:00Z */
	/* Kolkata: none; 1854 LMT -> HMT repeats 8 seconds */
	{ FAT, "Asia/Kolkata", "2024-06-01T12:00:00", 1,
	    { 1717223400 }, 0 },	/* 2024-06-01T06:30:00Z */
	{ FAT, "Asia/Kolkata", "1854-06-27T23:59:55", 2,
	    { -3645237213, -3645237205 }, 0 },	/* 18:06:27Z 18:06:35Z */
	/* Berlin 1893: LMT -> CET skips 6 min 32 s */
	{ FAT, "Europe/Berlin", "1893-04-01T00:03:00", 0,
	    { 0 }, -2422054408 },	/* gap to 1893-03-31T23:06:32Z */
	/* Casablanca: back to +00 for Ramadan, then forward */
	{ FAT, "Africa/Casablanca", "2025-02-23T02:30:00", 2,
	    { 1740274200, 1740277800 }, 0 },	/* 01:30:00Z 02:30:00Z */
	{ FAT, "Africa/Casablanca", "2025-04-06T02:30:00", 0,
	    { 0 }, 1743904800 },	/* gap to 2025-04-06T02:00:00Z */
	/* Slim files: the same answers from the footer rule */
	{ SLIM, "America/New_York", "2024-03-10T02:30:00", 0,
	    { 0 }, 1710054000 },	/* gap to 2024-03-10T07:00:00Z */
	{ SLIM, "America/New_York", "2024-11-03T01:30:00", 2,
	    { 1730611800, 1730615400 }, 0 },	/* 05:30:00Z 06:30:00Z */
	{ SLIM, "Australia/Lord_Howe", "2024-04-07T01:45:00", 2,
	    { 1712414700, 1712416500 }, 0 },	/* 14:45:00Z 15:15:00Z */
};

/* Run the local -> UTC table, then sweep Apia's missing day. */
static void
test_local_to_utc(void)
{
	const struct local_case	*c;
	struct tz		*z;
	int64_t			 out[TZ_OCC_MAX], gap_end, local;
	size_t			 i;
	int			 n, k;

	T_RUN("local to utc");
	for (i = 0; i < sizeof local_cases / sizeof local_cases[0]; i++) {
		c = &local_cases[i];
		z = load(c->flavour, c->zone);
		gap_end = NO_TIME;
		n = tz_local_to_utc(z, civ(c->local), out, &gap_end);
		if (!T_EQ_INT(n, c->n))
			(void)printf("  in case %zu: %s %s %s\n", i,
			    c->flavour, c->zone, c->local);
		for (k = 0; k < n && k < c->n; k++)
			T_EQ_TIME(out[k], c->out[k]);
		if (c->n == 0)
			T_EQ_TIME(gap_end, c->gap_end);
		/* gap_end may be NULL. */
		T_EQ_INT(tz_local_to_utc(z, civ(c->local), out, NULL), c->n);
		tz_free(z);
	}

	/* Every second of Apia's 2011-12-30 is in the one gap. */
	z = load(FAT, "Pacific/Apia");
	for (local = civ("2011-12-30T00:00:00");
	    local < civ("2011-12-31T00:00:00"); local++) {
		gap_end = NO_TIME;
		if (tz_local_to_utc(z, local, out, &gap_end) != 0 ||
		    gap_end != 1325239200) {
			T_EQ_TIME(gap_end, 1325239200);
			break;
		}
	}
	T_EQ_TIME(local, civ("2011-12-31T00:00:00"));
	tz_free(z);
}

/*
 * TZif plus civil time -> UTC under each policy.  shift is the instant a
 * gap time fires at under TZ_GAP_SHIFT (NO_TIME when the time exists);
 * first and second are the earliest and latest occurrences (equal when
 * there is one, NO_TIME in a gap).  AUTO means SHIFT and FIRST.
 */
static const struct resolve_case {
	const char	*zone;
	const char	*local;
	int64_t		 shift;
	int64_t		 first;
	int64_t		 second;
} resolve_cases[] = {
	{ "America/New_York", "2024-03-10T02:30:00", 1710054000,
	    NO_TIME, NO_TIME },
	{ "America/New_York", "2024-11-03T01:30:00", NO_TIME,
	    1730611800, 1730615400 },
	{ "America/New_York", "2024-07-01T12:00:00", NO_TIME,
	    1719849600, 1719849600 },
	{ "Pacific/Apia", "2011-12-30T12:00:00", 1325239200,
	    NO_TIME, NO_TIME },
	{ "Pacific/Apia", "2011-04-02T03:30:00", NO_TIME,
	    1301751000, 1301754600 },
	{ "Pacific/Apia", "1892-07-04T12:00:00", NO_TIME,	/* 24 h apart */
	    -2445467584, -2445381184 },
	{ "Australia/Lord_Howe", "2024-10-06T02:15:00", 1728142200,
	    NO_TIME, NO_TIME },
	{ "Australia/Lord_Howe", "2024-04-07T01:45:00", NO_TIME,
	    1712414700, 1712416500 },
	{ "America/Santiago", "2024-04-06T23:30:00", NO_TIME,
	    1712457000, 1712460600 },
	{ "America/Santiago", "2024-09-08T00:30:00", 1725768000,
	    NO_TIME, NO_TIME },
	{ "America/Havana", "2024-03-10T00:30:00", 1710046800,
	    NO_TIME, NO_TIME },
	{ "America/Havana", "2024-11-03T00:30:00", NO_TIME,
	    1730608200, 1730611800 },
	{ "Europe/Dublin", "2024-03-31T01:30:00", 1711846800,
	    NO_TIME, NO_TIME },
	{ "Europe/Dublin", "2024-10-27T01:30:00", NO_TIME,
	    1729989000, 1729992600 },
	{ "Antarctica/Troll", "2024-03-31T02:00:00", 1711846800,
	    NO_TIME, NO_TIME },
	{ "Antarctica/Troll", "2024-10-27T01:30:00", NO_TIME,
	    1729985400, 1729992600 },
	{ "Pacific/Chatham", "2024-09-29T03:00:00", 1727532000,
	    NO_TIME, NO_TIME },
	{ "Europe/Berlin", "1893-04-01T00:03:00", -2422054408,
	    NO_TIME, NO_TIME },
	{ "Asia/Kolkata", "2024-06-01T12:00:00", NO_TIME,
	    1717223400, 1717223400 },
};

/* Run the resolve table under all 3 x 4 policy pairs. */
static void
test_resolve(void)
{
	static const enum tz_gap	gaps[] = { TZ_GAP_AUTO, TZ_GAP_SHIFT,
					    TZ_GAP_SKIP };
	static const enum tz_fold	folds[] = { TZ_FOLD_AUTO, TZ_FOLD_FIRST,
					    TZ_FOLD_SECOND, TZ_FOLD_BOTH };
	const struct resolve_case	*c;
	struct tz			*z;
	int64_t				 out[TZ_OCC_MAX], want[2];
	size_t				 i, g, f;
	int				 n, nwant, k;

	T_RUN("resolve");
	for (i = 0; i < sizeof resolve_cases / sizeof resolve_cases[0];
	    i++) {
		c = &resolve_cases[i];
		z = load(FAT, c->zone);
		for (g = 0; g < 3; g++) {
			for (f = 0; f < 4; f++) {
				if (c->shift != NO_TIME) {
					nwant = gaps[g] == TZ_GAP_SKIP ? 0 : 1;
					want[0] = c->shift;
				} else if (folds[f] == TZ_FOLD_SECOND) {
					nwant = 1;
					want[0] = c->second;
				} else if (folds[f] == TZ_FOLD_BOTH &&
				    c->second != c->first) {
					nwant = 2;
					want[0] = c->first;
					want[1] = c->second;
				} else {
					nwant = 1;
					want[0] = c->first;
				}
				n = tz_resolve(z, civ(c->local), gaps[g],
				    folds[f], out);
				if (!T_EQ_INT(n, nwant))
					(void)printf("  %s %s gap %s fold %s\n",
					    c->zone, c->local,
					    tz_gap_name(gaps[g]),
					    tz_fold_name(folds[f]));
				for (k = 0; k < n && k < nwant; k++)
					T_EQ_TIME(out[k], want[k]);
			}
		}
		tz_free(z);
	}
}

/*
 * POSIX TZ rules in the footer, on images with no transitions (so the
 * rule governs every instant, RFC 8536 3.2).  Values agree with glibc on
 * the TZ string except in two places where glibc, which evaluates a rule
 * by the UTC year of the instant, is wrong near New Year:
 *  - "AAA-13BBB,0/1,M11.1.0" is what zic writes for DST starting at 01:00
 *    local on 1 January; the expected instant, 2023-12-31T12:00Z, is the
 *    explicit transition zic computed (glibc says 2024-01-01T00:00Z);
 *  - "EST5EDT,0/0,J365/25" is DST all year (RFC 8536 3.3.1); glibc says
 *    EST for the first five hours of each UTC year.
 */
static const struct rule_case {
	const char	*footer;
	int64_t		 t;
	int32_t		 utoff;
	int		 isdst;
	const char	*abbr;
} rule_cases[] = {
	/* No dates: the US rules M3.2.0,M11.1.0. */
	{ "EST5EDT", 1710053999, -18000, 0, "EST" },
	{ "EST5EDT", 1710054000, -14400, 1, "EDT" },
	{ "EST5EDT", 1730613600, -18000, 0, "EST" },
	/* Jn never counts 29 February: J60 is 1 March in leap years too. */
	{ "AAA3BBB,J60/2,J300/2", 1709269199, -10800, 0, "AAA" },
	{ "AAA3BBB,J60/2,J300/2", 1709269200, -7200, 1, "BBB" },
	{ "AAA3BBB,J60/2,J300/2", 1730001599, -7200, 1, "BBB" },
	{ "AAA3BBB,J60/2,J300/2", 1730001600, -10800, 0, "AAA" },
	/* n counts from 0 and does: 59 is 29 February 2024, 1 March 2023. */
	{ "AAA3BBB,59/2,299/2", 1709182799, -10800, 0, "AAA" },
	{ "AAA3BBB,59/2,299/2", 1709182800, -7200, 1, "BBB" },
	{ "AAA3BBB,59/2,299/2", 1677646799, -10800, 0, "AAA" },
	{ "AAA3BBB,59/2,299/2", 1677646800, -7200, 1, "BBB" },
	{ "AAA3BBB,59/2,299/2", 1729915200, -10800, 0, "AAA" },
	/* Negative transition times (America/Nuuk). */
	{ "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", 1711846799, -7200, 0, "-02" },
	{ "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", 1711846800, -3600, 1, "-01" },
	{ "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", 1729990799, -3600, 1, "-01" },
	{ "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", 1729990800, -7200, 0, "-02" },
	/* Times past 24:00 (Asia/Gaza). */
	{ "EET-2EEST,M3.4.4/50,M10.4.4/50", 1711756799, 7200, 0, "EET" },
	{ "EET-2EEST,M3.4.4/50,M10.4.4/50", 1711756800, 10800, 1, "EEST" },
	{ "EET-2EEST,M3.4.4/50,M10.4.4/50", 1729897199, 10800, 1, "EEST" },
	{ "EET-2EEST,M3.4.4/50,M10.4.4/50", 1729897200, 7200, 0, "EET" },
	/* DST from 01:00 local on 1 January, which is still 2023 in UTC. */
	{ "AAA-13BBB,0/1,M11.1.0", 1704023999, 46800, 0, "AAA" },
	{ "AAA-13BBB,0/1,M11.1.0", 1704024000, 50400, 1, "BBB" },
	{ "AAA-13BBB,0/1,M11.1.0", 1699099200, 46800, 0, "AAA" },
	/* Permanent DST, the RFC 8536 3.3.1 example: no change at all. */
	{ "EST5EDT,0/0,J365/25", 1704067199, -14400, 1, "EDT" },
	{ "EST5EDT,0/0,J365/25", 1704067200, -14400, 1, "EDT" },
	{ "EST5EDT,0/0,J365/25", 1719792000, -14400, 1, "EDT" },
	{ "EST5EDT,0/0,J365/25", 1735689599, -14400, 1, "EDT" },
	{ "EST5EDT,0/0,J365/25", 1735707600, -14400, 1, "EDT" },
	/* Offsets with minutes and seconds, and the largest one accepted. */
	{ "<+0545>-5:45", 1704067200, 20700, 0, "+0545" },
	{ "AAA-24:59:59", 1704067200, 89999, 0, "AAA" },
	{ "AAA+0:00:01", 1704067200, -1, 0, "AAA" },
};

/* The same rules from local time: gaps and folds the footer creates. */
static const struct rule_local_case {
	const char	*footer;
	const char	*local;
	int		 n;
	int64_t		 first;		/* or the gap's end */
} rule_local_cases[] = {
	{ "AAA-13BBB,0/1,M11.1.0", "2024-01-01T01:30:00", 0, 1704024000 },
	{ "AAA-13BBB,0/1,M11.1.0", "2024-01-01T00:59:59", 1, 1704023999 },
	{ "AAA-13BBB,0/1,M11.1.0", "2024-01-01T02:00:00", 1, 1704024000 },
	{ "EST5EDT,0/0,J365/25", "2024-01-01T00:00:00", 1, 1704081600 },
	{ "EST5EDT,0/0,J365/25", "2023-12-31T23:30:00", 1, 1704079800 },
	{ "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2024-03-30T23:30:00", 0,
	    1711846800 },
	{ "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2024-10-26T23:30:00", 2,
	    1729989000 },
};

/* A footer-only image: no transitions, one neutral type, the rule. */
static struct tz *
rule_zone(const char *footer)
{
	static const struct tzif_type	 neutral[] = { { 0, 0, 0 } };
	struct tzif			 s;
	struct obuf			 o;
	struct tz			*z;
	char				*cause = NULL;

	memset(&s, 0, sizeof s);
	s.version = '2';
	s.types = neutral;
	s.ntypes = 1;
	s.chars = "ZZZ";
	s.nchars = 4;
	s.footer = footer;
	tzif_build(&o, &s);
	if ((z = tzif_load("Test/Rule", o.b, o.len, &cause)) == NULL) {
		(void)printf("footer \"%s\" refused: %s\n", footer, cause);
		exit(1);
	}
	return z;
}

/* Run the footer rule tables. */
static void
test_rules(void)
{
	const struct rule_case		*c;
	const struct rule_local_case	*l;
	struct tz_period		 p;
	struct tz			*z;
	int64_t				 out[TZ_OCC_MAX], gap_end;
	size_t				 i;
	int				 n;

	T_RUN("footer rules");
	for (i = 0; i < sizeof rule_cases / sizeof rule_cases[0]; i++) {
		c = &rule_cases[i];
		z = rule_zone(c->footer);
		if (!T_EQ_INT(tz_to_local(z, c->t, NULL) - c->t, c->utoff))
			(void)printf("  footer %s at %" PRId64 "\n", c->footer,
			    c->t);
		check_period(z, c->t, c->utoff, c->isdst, c->abbr);
		tz_free(z);
	}
	/*
	 * A rule whose DST "ends" exactly when the next year's begins has
	 * no change there: one period runs across New Year.
	 */
	z = rule_zone("EST5EDT,0/0,J365/25");
	tz_period_at(z, 1735707599, &p);	/* 2025-01-01T04:59:59Z */
	T_TRUE(p.start < 1704085200 && p.end > 1735707600);
	tz_free(z);

	for (i = 0; i < sizeof rule_local_cases / sizeof rule_local_cases[0];
	    i++) {
		l = &rule_local_cases[i];
		z = rule_zone(l->footer);
		gap_end = NO_TIME;
		n = tz_local_to_utc(z, civ(l->local), out, &gap_end);
		if (!T_EQ_INT(n, l->n))
			(void)printf("  footer %s at %s\n", l->footer,
			    l->local);
		else
			T_EQ_TIME(n == 0 ? gap_end : out[0], l->first);
		tz_free(z);
	}
}

/*
 * Hostile and malformed TZif images.  Each either loads (cause NULL in the
 * table; then the probes below must hold) or is refused with a cause that
 * names the zone and the problem.
 */
static const struct tzif_type est_types[] = {
	{ -18000, 0, 0 }, { -14400, 1, 4 }
};
static const int64_t	est_trans[] = { 1710054000, 1730613600 };
static const uint8_t	est_idx[] = { 1, 0 };

#define EST_TYPES	.types = est_types, .ntypes = 2, \
			.chars = "EST\0EDT", .nchars = 8
#define EST_TRANS	.trans = est_trans, .idx = est_idx, .ntrans = 2
#define EST_RULE	"EST5EDT,M3.2.0,M11.1.0"

static const struct image_case {
	const char	*what;
	struct tzif	 img;
	const char	*cause;		/* NULL: must load */
	int32_t		 late;		/* offset at 2033-05-18 if it loads */
} image_cases[] = {
	{ "valid v2", { '2', EST_TRANS, EST_TYPES, .footer = EST_RULE },
	    NULL, -14400 },
	{ "valid v3", { '3', EST_TRANS, EST_TYPES, .footer = EST_RULE },
	    NULL, -14400 },
	{ "valid v4", { '4', EST_TRANS, EST_TYPES, .footer = EST_RULE },
	    NULL, -14400 },
	{ "valid v1 (32-bit data only)", { 0, EST_TRANS, EST_TYPES },
	    NULL, -18000 },

	{ "v2 with empty footer: last type continues",
	    { '2', EST_TRANS, EST_TYPES, .footer = "" }, NULL, -18000 },
	{ "isstd and isut indicators",
	    { '2', EST_TRANS, EST_TYPES, .stdut = 1, .footer = EST_RULE },
	    NULL, -14400 },
	{ "bytes after the footer are ignored",
	    { '2', EST_TRANS, EST_TYPES, .footer = EST_RULE, .tail = "junk",
	    .tail_len = 4 }, NULL, -14400 },
	{ "offset +26:00", { '2', .types = (const struct tzif_type[]){
	    { 93600, 0, 0 } }, .ntypes = 1, .chars = "AAA", .nchars = 4,
	    .footer = "" }, NULL, 93600 },
	{ "offset -26:00", { '2', .types = (const struct tzif_type[]){
	    { -93600, 0, 0 } }, .ntypes = 1, .chars = "AAA", .nchars = 4,
	    .footer = "" }, NULL, -93600 },

	{ "bad magic", { '2', EST_TRANS, EST_TYPES, .magic = "TZiF",
	    .footer = EST_RULE }, "not a TZif file", 0 },
	{ "bad version byte", { 'x', EST_TRANS, EST_TYPES,
	    .footer = EST_RULE }, "not a TZif file", 0 },
	{ "typecnt 0", { '2', EST_TRANS, EST_TYPES, .hdr = HDR_TYPECNT,
	    .hdr_value = 0, .footer = EST_RULE }, "bad header counts", 0 },
	{ "typecnt 257", { '2', EST_TRANS, EST_TYPES, .hdr = HDR_TYPECNT,
	    .hdr_value = 257, .footer = EST_RULE }, "bad header counts", 0 },
	{ "charcnt 0", { '2', EST_TRANS, EST_TYPES, .hdr = HDR_CHARCNT,
	    .hdr_value = 0, .footer = EST_RULE }, "bad header counts", 0 },
	{ "timecnt 2^32-1", { '2', EST_TRANS, EST_TYPES, .hdr = HDR_TIMECNT,
	    .hdr_value = 0xffffffff, .footer = EST_RULE },
	    "bad header counts", 0 },
	{ "timecnt 1000000, data missing", { '2', EST_TRANS, EST_TYPES,
	    .hdr = HDR_TIMECNT, .hdr_value = 1000000, .footer = EST_RULE },
	    "truncated file", 0 },
	{ "isutcnt neither 0 nor typecnt", { '2', EST_TRANS, EST_TYPES,
	    .hdr = HDR_ISUTCNT, .hdr_value = 1, .footer = EST_RULE },
	    "bad header counts", 0 },
	{ "isstdcnt neither 0 nor typecnt", { '2', EST_TRANS, EST_TYPES,
	    .hdr = HDR_ISSTDCNT, .hdr_value = 3, .footer = EST_RULE },
	    "bad header counts", 0 },
	{ "leapcnt 2^32-1", { '2', EST_TRANS, EST_TYPES, .hdr = HDR_LEAPCNT,
	    .hdr_value = 0xffffffff, .footer = EST_RULE },
	    "bad header counts", 0 },
	{ "leap-second records", { '2', EST_TRANS, EST_TYPES, .nleap = 2,
	    .footer = EST_RULE }, "leap-second", 0 },
	{ "leap-second records, v1", { 0, EST_TRANS, EST_TYPES,
	    .nleap = 1 }, "leap-second", 0 },
	{ "transitions out of order", { '2', .trans = (const int64_t[]){
	    1730613600, 1710054000 }, .idx = est_idx, .ntrans = 2, EST_TYPES,
	    .footer = EST_RULE }, "transitions out of order", 0 },
	{ "repeated transition", { '2', .trans = (const int64_t[]){
	    1710054000, 1710054000 }, .idx = est_idx, .ntrans = 2, EST_TYPES,
	    .footer = EST_RULE }, "transitions out of order", 0 },
	{ "type index out of range", { '2', .trans = est_trans,
	    .idx = (const uint8_t[]){ 1, 2 }, .ntrans = 2, EST_TYPES,
	    .footer = EST_RULE }, "missing type", 0 },
	{ "type index 255", { '2', .trans = est_trans,
	    .idx = (const uint8_t[]){ 255, 0 }, .ntrans = 2, EST_TYPES,
	    .footer = EST_RULE }, "missing type", 0 },
	{ "abbreviation index out of range", { '2', EST_TRANS,
	    .types = (const struct tzif_type[]){ { -18000, 0, 0 },
	    { -14400, 1, 8 } }, .ntypes = 2, .chars = "EST\0EDT", .nchars = 8,
	    .footer = EST_RULE }, "bad local time type", 0 },
	{ "abbreviation not NUL-terminated", { '2', EST_TRANS,
	    .types = (const struct tzif_type[]){ { -18000, 0, 0 },
	    { -14400, 1, 4 } }, .ntypes = 2, .chars = "EST\0EDT", .nchars = 7,
	    .footer = EST_RULE }, "bad local time type", 0 },
	{ "isdst 2", { '2', EST_TRANS, .types = (const struct tzif_type[]){
	    { -18000, 0, 0 }, { -14400, 2, 4 } }, .ntypes = 2,
	    .chars = "EST\0EDT", .nchars = 8, .footer = EST_RULE },
	    "bad local time type", 0 },
	{ "offset +26:00:01", { '2', .types = (const struct tzif_type[]){
	    { 93601, 0, 0 } }, .ntypes = 1, .chars = "AAA", .nchars = 4,
	    .footer = "" }, "UTC offset out of range", 0 },
	{ "offset -26:00:01", { '2', .types = (const struct tzif_type[]){
	    { -93601, 0, 0 } }, .ntypes = 1, .chars = "AAA", .nchars = 4,
	    .footer = "" }, "UTC offset out of range", 0 },
	{ "offset -2^31", { '2', .types = (const struct tzif_type[]){
	    { INT32_MIN, 0, 0 } }, .ntypes = 1, .chars = "AAA", .nchars = 4,
	    .footer = "" }, "UTC offset out of range", 0 },
	{ "v2 without footer", { '2', EST_TRANS, EST_TYPES },
	    "bad footer", 0 },
	{ "v3 without footer", { '3', EST_TRANS, EST_TYPES },
	    "bad footer", 0 },
	{ "footer without its leading newline", { '2', EST_TRANS, EST_TYPES,
	    .tail = EST_RULE "\n", .tail_len = sizeof EST_RULE },
	    "bad footer", 0 },
	{ "footer without its final newline", { '2', EST_TRANS, EST_TYPES,
	    .tail = "\n" EST_RULE, .tail_len = sizeof EST_RULE },
	    "bad footer", 0 },
	{ "NUL inside the footer", { '2', EST_TRANS, EST_TYPES,
	    .tail = "\nEST5\0EDT\n", .tail_len = 10 }, "bad footer", 0 },
};

/* Load each hostile image; check the cause or the probes. */
static void
test_images(void)
{
	static const unsigned char	 zeros[44];
	const struct image_case		*c;
	struct obuf			 o;
	struct tz			*z;
	char				*cause;
	size_t				 i;

	T_RUN("hostile images");

	/* Raw buffers the builder cannot make. */
	cause = NULL;
	T_TRUE(tz_load_mem("Test/Empty", NULL, 0, &cause) == NULL);
	T_TRUE(cause_has(cause, "Test/Empty", "truncated file"));
	free(cause);
	cause = NULL;
	T_TRUE(tzif_load("Test/Magic", (const unsigned char *)"TZif2", 5,
	    &cause) == NULL);
	T_TRUE(cause_has(cause, "Test/Magic", "truncated file"));
	free(cause);
	cause = NULL;
	T_TRUE(tzif_load("Test/Zeros", zeros, sizeof zeros, &cause) == NULL);
	T_TRUE(cause_has(cause, "Test/Zeros", "not a TZif file"));
	free(cause);

	for (i = 0; i < sizeof image_cases / sizeof image_cases[0]; i++) {
		c = &image_cases[i];
		tzif_build(&o, &c->img);
		cause = NULL;
		z = tzif_load("Test/Hostile", o.b, o.len, &cause);
		if (c->cause != NULL) {
			if (!T_TRUE(z == NULL) ||
			    !T_TRUE(cause_has(cause, "Test/Hostile",
			    c->cause)))
				(void)printf("  %s: cause \"%s\", want "
				    "\"%s\"\n", c->what, cause ? cause : "",
				    c->cause);
			tz_free(z);
			free(cause);
			continue;
		}
		if (!T_TRUE(z != NULL)) {
			(void)printf("  %s: %s\n", c->what, cause);
			free(cause);
			continue;
		}
		T_EQ_STR(tz_name(z), "Test/Hostile");
		T_EQ_INT(tz_to_local(z, 2000000000, NULL) - 2000000000,
		    c->late);
		if (c->img.ntrans == 2) {
			/* Before, between and on the transitions. */
			check_period(z, 1710053999, -18000, 0, "EST");
			check_period(z, 1710054000, -14400, 1, "EDT");
			check_period(z, 1730613599, -14400, 1, "EDT");
			check_period(z, 1730613600, -18000, 0, "EST");
			check_period(z, -5000000000LL, -18000, 0, "EST");
		}
		tz_free(z);
	}
}

/*
 * Footer strings: each either loads or is refused as a bad rule.  The
 * empty footer is valid (RFC 8536 3.3: no rule; the last type goes on).
 */
static const struct footer_case {
	const char	*footer;
	int		 ok;
} footer_cases[] = {
	{ "", 1 },
	{ "EST5", 1 },
	{ "EST+5", 1 },
	{ "EST-5", 1 },
	{ "<+0545>-5:45", 1 },
	{ "<-03>3", 1 },
	{ "EST5EDT", 1 },
	{ "EST5EDT4", 1 },
	{ "EST5EDT,M3.2.0,M11.1.0", 1 },
	{ "EST5EDT4,M3.2.0/2:00:00,M11.1.0/02", 1 },
	{ "EST5EDT,M3.2.0/167,M11.1.0/-167", 1 },
	{ "EST5EDT,J1,J365", 1 },
	{ "EST5EDT,0,365", 1 },
	{ "IST-1GMT0,M10.5.0,M3.5.0/1", 1 },
	{ "AAAAAAAAAAAAAAA5", 1 },		/* 15 letters */
	{ "AAA-24:59:59", 1 },
	{ "EST", 0 },
	{ "EST5EDT,M3.2.0", 0 },
	{ "<+03>", 0 },
	{ "X5Y,M13.1.0,M1.1.0", 0 },
	{ "EST5EDT,M13.1.0,M1.1.0", 0 },
	{ "EST5EDT,M0.1.0,M11.1.0", 0 },
	{ "EST5EDT,M3.0.0,M11.1.0", 0 },
	{ "EST5EDT,M3.6.0,M11.1.0", 0 },
	{ "EST5EDT,M3.2.7,M11.1.0", 0 },
	{ "EST5EDT,J0,J365", 0 },
	{ "EST5EDT,J1,J366", 0 },
	{ "EST5EDT,0,366", 0 },
	{ "EST5EDT,M3.2.0/168,M11.1.0", 0 },
	{ "EST5EDT,M3.2.0/-168,M11.1.0", 0 },
	{ "EST5EDT,M3.2.0/2:60,M11.1.0", 0 },
	{ "EST5EDT,M3.2.0,M11.1.0,", 0 },
	{ "EST5EDT,M3.2.0,M11.1.0 ", 0 },
	{ "EST5EDT;M3.2.0,M11.1.0", 0 },
	{ "EST5EDT,M3.2,M11.1.0", 0 },
	{ "EST25", 0 },
	{ "EST5:60", 0 },
	{ "EST1000", 0 },
	{ "EST5EDT-25", 0 },
	{ "ES5", 0 },
	{ "<ES>5", 0 },
	{ "<EST5", 0 },
	{ "<E T>5", 0 },
	{ "AAAAAAAAAAAAAAAA5", 0 },		/* 16 letters */
	{ "5EST", 0 },
	{ "EST+", 0 },
	{ "EST 5", 0 },
	{ "garbage!", 0 },
	{ "\x01\x02\x03", 0 },
};

/* Load the EST image with each footer string. */
static void
test_footers(void)
{
	const struct footer_case	*c;
	struct tzif			 s = { '2', EST_TRANS, EST_TYPES };
	struct obuf			 o;
	struct tz			*z;
	char				*cause;
	size_t				 i;

	T_RUN("footers");
	for (i = 0; i < sizeof footer_cases / sizeof footer_cases[0]; i++) {
		c = &footer_cases[i];
		s.footer = c->footer;
		tzif_build(&o, &s);
		cause = NULL;
		z = tzif_load("Test/Footer", o.b, o.len, &cause);
		if (!T_EQ_INT(z != NULL, c->ok))
			(void)printf("  footer \"%s\": %s\n", c->footer,
			    cause ? cause : "loaded");
		if (z == NULL)
			T_TRUE(cause_has(cause, "Test/Footer",
			    "bad TZ rule in footer"));
		tz_free(z);
		free(cause);
	}
}

/* Probe a zone that loaded from damaged input: nothing may crash. */
static void
poke(const struct tz *z)
{
	static const int64_t	 probes[] = { INT32_MIN, -1, 0, 1710054000,
				    2147483647, 4102444800LL, T_2200 };
	struct tz_period	 p;
	int64_t			 out[TZ_OCC_MAX], gap_end;
	size_t			 i;

	for (i = 0; i < sizeof probes / sizeof probes[0]; i++) {
		tz_period_at(z, probes[i], &p);
		(void)tz_local_to_utc(z, probes[i], out, &gap_end);
	}
}

/*
 * Every prefix of a real fixture is refused with a cause naming the zone,
 * except the whole file.  (The one prefix that ends exactly where the
 * footer starts is a complete-looking version 2 file without a footer:
 * RFC 8536 requires the footer, and accepting it would give CEST for ever
 * from 1996 on with the slim file.)  Then every single-byte corruption of
 * the file, which may load or not but must not crash.
 */
static void
test_truncation(void)
{
	static const char *const	 flavours[] = { FAT, SLIM };
	unsigned char			*file;
	struct tz			*z;
	char				 path[4200], *cause;
	size_t				 len, cut, i, f, footer_at;
	int				 loaded, refused, bad_cause;

	T_RUN("truncation");
	for (f = 0; f < 2; f++) {
		(void)snprintf(path, sizeof path, "%s/Europe/Berlin",
		    fixture_dir(flavours[f]));
		file = slurp(path, &len);
		/* The footer is the last "\n...\n" of the file. */
		footer_at = len - 1;
		while (footer_at > 0 && file[footer_at - 1] != '\n')
			footer_at--;
		footer_at--;
		loaded = refused = bad_cause = 0;
		for (cut = 0; cut <= len; cut++) {
			cause = NULL;
			z = tzif_load("Europe/Berlin", file, cut, &cause);
			if (z != NULL) {
				loaded++;
				T_EQ_INT(cut, len);
				T_EQ_INT(tz_to_local(z, 1720000000, NULL) -
				    1720000000, 7200);
				poke(z);
				tz_free(z);
			} else {
				refused++;
				if (!cause_has(cause, "Europe/Berlin", NULL))
					bad_cause++;
				if (cut == footer_at)
					T_TRUE(cause_has(cause, "bad footer",
					    NULL));
			}
			free(cause);
		}
		T_EQ_INT(loaded, 1);
		T_EQ_INT(refused, (int)len);
		T_EQ_INT(bad_cause, 0);

		/* Every byte replaced by its complement, then by 0. */
		for (i = 0; i < len; i++) {
			unsigned char	old = file[i];
			int		k;

			for (k = 0; k < 2; k++) {
				file[i] = k == 0 ? (unsigned char)~old : 0;
				cause = NULL;
				z = tzif_load("Europe/Berlin", file, len,
				    &cause);
				if (z != NULL)
					poke(z);
				else
					T_TRUE(cause_has(cause,
					    "Europe/Berlin", NULL));
				tz_free(z);
				free(cause);
			}
			file[i] = old;
		}
		free(file);
	}
}

/*
 * Zone names.  check: tz_name_check accepts; load: tz_load_file finds it
 * in the fat fixture directory.  Refusals name the zone.
 */
static const struct name_case {
	const char	*name;
	int		 check;
	int		 load;
	const char	*cause;
} name_cases[] = {
	{ "Europe/Berlin", 1, 1, NULL },
	{ "Etc/UTC", 1, 1, NULL },
	{ "America/Los_Angeles", 1, 1, NULL },
	{ "", 0, 0, "empty time zone name" },
	{ "/etc/passwd", 0, 0, "not a zone name" },
	{ "../x", 0, 0, "not a zone name" },
	{ "Europe/../../x", 0, 0, "not a zone name" },
	{ "Europe/..", 0, 0, "not a zone name" },
	{ "Europe/", 0, 0, "not a zone name" },
	{ "Europe//Berlin", 0, 0, "not a zone name" },
	{ "/Europe/Berlin", 0, 0, "not a zone name" },
	{ ".", 0, 0, "not a zone name" },
	{ "..", 0, 0, "not a zone name" },
	{ "./Europe/Berlin", 0, 0, "not a zone name" },
	{ "Europe/./Berlin", 0, 0, "not a zone name" },
	{ "Europe/Ber lin", 0, 0, "not a zone name" },
	{ " Europe/Berlin", 0, 0, "not a zone name" },
	{ "Europe/Berlin\n", 0, 0, "not a zone name" },
	{ "Europe\\Berlin", 0, 0, "not a zone name" },
	{ "Europe/Berlin;rm", 0, 0, "not a zone name" },
	{ "Europe/Ber\xc3\xa4lin", 0, 0, "not a zone name" },
	/* The system's zone is never used, even by its file's name. */
	{ "localtime", 0, 0, "is not a zone name: name the zone" },
	{ "posixrules", 0, 0, "is not a zone name" },
	{ "Europe/localtime", 1, 0, "No such file" },
	{ "America", 1, 0, "not a zone file" },
	{ "Mars/Olympus_Mons", 1, 0, "No such file" },
	{ "Etc/GMT+5", 1, 0, "No such file" },
	{ "..x/.y", 1, 0, "No such file" },
	{ "Europe/Berlin/x", 1, 0, "Not a directory" },
};

/* Run the name table, then a non-TZif file and the length limit. */
static void
test_names(void)
{
	const struct name_case	*c;
	struct tz		*z;
	char			*cause, longname[300], dir[4200];
	size_t			 i;

	T_RUN("names");
	for (i = 0; i < sizeof name_cases / sizeof name_cases[0]; i++) {
		c = &name_cases[i];
		cause = NULL;
		if (!T_EQ_INT(tz_name_check(c->name, &cause) == 0, c->check))
			(void)printf("  name \"%s\"\n", c->name);
		if (!c->check)
			T_TRUE(cause_has(cause, c->name, c->cause));
		free(cause);
		cause = NULL;
		z = tz_load_file(fixture_dir(FAT), c->name, &cause);
		if (!T_EQ_INT(z != NULL, c->load))
			(void)printf("  name \"%s\": %s\n", c->name,
			    cause ? cause : "loaded");
		if (z != NULL)
			T_EQ_STR(tz_name(z), c->name);
		else if (!T_TRUE(cause_has(cause, c->name, c->cause)))
			(void)printf("  name \"%s\": %s\n", c->name, cause);
		tz_free(z);
		free(cause);
	}

	/* A file that is not TZif, and a name that is too long. */
	cause = NULL;
	(void)snprintf(dir, sizeof dir, "%s/tzif", testdata());
	T_TRUE(tz_load_file(dir, "src/fixtures.zi", &cause) == NULL);
	T_TRUE(cause_has(cause, "src/fixtures.zi", "not a TZif file"));
	free(cause);
	memset(longname, 'a', 256);
	longname[256] = '\0';
	cause = NULL;
	T_EQ_INT(tz_name_check(longname, &cause), -1);
	T_TRUE(cause_has(cause, "too long", NULL));
	free(cause);
	longname[255] = '\0';
	cause = NULL;
	T_EQ_INT(tz_name_check(longname, &cause), 0);
	free(cause);
}

/* $TZDIR: the default directory when set and non-empty. */
static void
test_tzdir(void)
{
	const char	*fat = fixture_dir(FAT);
	char		*saved = NULL, *cause = NULL;
	struct tz	*z;

	T_RUN("tzdir");
	if (getenv("TZDIR") != NULL)
		saved = strdup(getenv("TZDIR"));
	T_EQ_INT(unsetenv("TZDIR"), 0);
	T_EQ_STR(tz_default_dir(), TZ_DEFAULT_DIR);
	T_EQ_INT(setenv("TZDIR", "", 1), 0);
	T_EQ_STR(tz_default_dir(), TZ_DEFAULT_DIR);
	T_EQ_INT(setenv("TZDIR", fat, 1), 0);
	T_EQ_STR(tz_default_dir(), fat);
	z = tz_load_file(NULL, "Asia/Tokyo", &cause);
	T_TRUE(z != NULL);
	if (z != NULL)
		check_period(z, 1710054000, 32400, 0, "JST");
	tz_free(z);
	T_TRUE(tz_load_file(NULL, "Mars/Olympus_Mons", &cause) == NULL);
	T_TRUE(cause_has(cause, "Mars/Olympus_Mons", fat));
	free(cause);
	if (saved != NULL)
		(void)setenv("TZDIR", saved, 1);
	else
		(void)unsetenv("TZDIR");
	free(saved);
}

/* The cache: one load per name, UTC built in, failures not cached. */
static void
test_cache(void)
{
	struct tz_cache		*c;
	const struct tz		*a, *b, *u;
	struct tz_period	 p;
	unsigned char		*file;
	char			 dir[] = "/tmp/test_tz.XXXXXX", path[4200];
	char			*cause = NULL, *saved = NULL;
	size_t			 len;
	FILE			*fp;

	T_RUN("cache");
	c = tz_cache_new(fixture_dir(FAT));
	a = tz_cache_get(c, "Europe/Berlin", &cause);
	b = tz_cache_get(c, "Europe/Berlin", &cause);
	T_TRUE(a != NULL && a == b);
	T_TRUE(tz_cache_get(c, "Europe/London", &cause) != a);
	T_TRUE(tz_cache_get(c, "Europe/Berlin", &cause) == a);
	/* No "UTC" file in the fixtures: it is built in. */
	u = tz_cache_get(c, "UTC", &cause);
	T_TRUE(u != NULL && u == tz_cache_get(c, "UTC", &cause));
	if (u != NULL) {
		T_EQ_STR(tz_name(u), "UTC");
		tz_period_at(u, 1710054000, &p);
		T_EQ_INT(p.utoff, 0);
		T_EQ_STR(p.abbr, "UTC");
	}
	T_TRUE(tz_cache_get(c, "../etc/passwd", &cause) == NULL);
	T_TRUE(cause_has(cause, "../etc/passwd", NULL));
	free(cause);
	cause = NULL;
	tz_cache_free(c);
	tz_cache_free(NULL);

	/* A failed name is looked up again: create it, then it loads. */
	if (!T_TRUE(mkdtemp(dir) != NULL))
		return;
	c = tz_cache_new(dir);
	T_TRUE(tz_cache_get(c, "Test", &cause) == NULL);
	T_TRUE(cause_has(cause, "Test", "No such file"));
	free(cause);
	cause = NULL;
	(void)snprintf(path, sizeof path, "%s/Europe/Berlin",
	    fixture_dir(FAT));
	file = slurp(path, &len);
	(void)snprintf(path, sizeof path, "%s/Test", dir);
	if (T_TRUE((fp = fopen(path, "w")) != NULL)) {
		T_EQ_INT(fwrite(file, 1, len, fp), len);
		T_EQ_INT(fclose(fp), 0);
	}
	free(file);
	a = tz_cache_get(c, "Test", &cause);
	T_TRUE(a != NULL);
	if (a != NULL)
		check_period(a, 1720000000, 7200, 1, "CEST");
	tz_cache_free(c);
	(void)unlink(path);
	(void)rmdir(dir);

	/* A cache without a directory follows $TZDIR at each load. */
	if (getenv("TZDIR") != NULL)
		saved = strdup(getenv("TZDIR"));
	(void)setenv("TZDIR", fixture_dir(SLIM), 1);
	c = tz_cache_new(NULL);
	T_TRUE(tz_cache_get(c, "Pacific/Apia", &cause) != NULL);
	tz_cache_free(c);
	if (saved != NULL)
		(void)setenv("TZDIR", saved, 1);
	else
		(void)unsetenv("TZDIR");
	free(saved);
	tz_free(NULL);
}

/* Policy names as written in job files, and their parsers. */
static const struct policy_case {
	const char	*name;
	int		 gap;		/* enum tz_gap, or -1 if refused */
	int		 fold;		/* enum tz_fold, or -1 if refused */
} policy_cases[] = {
	{ "auto", TZ_GAP_AUTO, TZ_FOLD_AUTO },
	{ "shift", TZ_GAP_SHIFT, -1 },
	{ "skip", TZ_GAP_SKIP, -1 },
	{ "first", -1, TZ_FOLD_FIRST },
	{ "second", -1, TZ_FOLD_SECOND },
	{ "both", -1, TZ_FOLD_BOTH },
	{ "", -1, -1 },
	{ "Shift", -1, -1 },
	{ "FIRST", -1, -1 },
	{ "skip ", -1, -1 },
	{ "bothx", -1, -1 },
};

/* Run the policy name table and round-trip every value. */
static void
test_policies(void)
{
	const struct policy_case	*c;
	enum tz_gap			 g;
	enum tz_fold			 f;
	size_t				 i;

	T_RUN("policies");
	for (i = 0; i < sizeof policy_cases / sizeof policy_cases[0]; i++) {
		c = &policy_cases[i];
		g = TZ_GAP_SKIP;
		if (c->gap == -1)
			T_EQ_INT(tz_gap_parse(c->name, &g), -1);
		else if (T_EQ_INT(tz_gap_parse(c->name, &g), 0)) {
			T_EQ_INT(g, c->gap);
			T_EQ_STR(tz_gap_name(g), c->name);
		}
		f = TZ_FOLD_BOTH;
		if (c->fold == -1)
			T_EQ_INT(tz_fold_parse(c->name, &f), -1);
		else if (T_EQ_INT(tz_fold_parse(c->name, &f), 0)) {
			T_EQ_INT(f, c->fold);
			T_EQ_STR(tz_fold_name(f), c->name);
		}
	}
	/* Every value round-trips. */
	for (g = TZ_GAP_AUTO; g <= TZ_GAP_SKIP; g++) {
		enum tz_gap back = TZ_GAP_SKIP + 1;

		T_EQ_INT(tz_gap_parse(tz_gap_name(g), &back), 0);
		T_EQ_INT(back, g);
	}
	for (f = TZ_FOLD_AUTO; f <= TZ_FOLD_BOTH; f++) {
		enum tz_fold back = TZ_FOLD_BOTH + 1;

		T_EQ_INT(tz_fold_parse(tz_fold_name(f), &back), 0);
		T_EQ_INT(back, f);
	}
}

/* The built-in UTC zone and the offset span of some fixtures. */
static const struct span_case {
	const char	*zone;
	int32_t		 span;
} span_cases[] = {
	{ "America/New_York", 3600 },		/* EST .. EDT */
	{ "Pacific/Apia", 91800 },		/* -11:30 .. +14 */
	{ "Australia/Lord_Howe", 5400 },	/* AEST .. +11:30 */
	{ "Asia/Kolkata", 4130 },		/* MMT .. +06:30 */
	{ "Europe/Dublin", 5121 },		/* LMT .. IST */
	{ "Antarctica/Troll", 7200 },
	{ "Etc/UTC", 0 },
};

/* Check tz_new_utc and the span table. */
static void
test_utc_and_span(void)
{
	struct tz_period	 p;
	struct tz		*z;
	int64_t			 out[TZ_OCC_MAX], gap_end = NO_TIME;
	size_t			 i, f;

	T_RUN("utc and span");
	z = tz_new_utc();
	T_EQ_STR(tz_name(z), "UTC");
	tz_period_at(z, 1710054000, &p);
	T_EQ_INT(p.utoff, 0);
	T_EQ_INT(p.isdst, 0);
	T_EQ_STR(p.abbr, "UTC");
	T_EQ_TIME(p.start, TZ_TIME_MIN);
	T_EQ_TIME(p.end, TZ_TIME_MAX);
	T_EQ_INT(tz_local_to_utc(z, 1710054000, out, &gap_end), 1);
	T_EQ_TIME(out[0], 1710054000);
	T_EQ_INT(tz_offset_span(z), 0);
	tz_free(z);

	for (i = 0; i < sizeof span_cases / sizeof span_cases[0]; i++) {
		for (f = 0; f < 2; f++) {
			z = load(f == 0 ? FAT : SLIM, span_cases[i].zone);
			T_EQ_INT(tz_offset_span(z), span_cases[i].span);
			tz_free(z);
		}
	}
}

/* Compare the local_to_utc answers of two zones for one local time. */
static int
same_local(const struct tz *a, const struct tz *b, int64_t local)
{
	int64_t	oa[TZ_OCC_MAX], ob[TZ_OCC_MAX], ga = 0, gb = 0;
	int	na, nb, k;

	na = tz_local_to_utc(a, local, oa, &ga);
	nb = tz_local_to_utc(b, local, ob, &gb);
	if (na != nb || (na == 0 && ga != gb))
		return 0;
	for (k = 0; k < na; k++) {
		if (oa[k] != ob[k])
			return 0;
	}
	return 1;
}

/* Whether two periods carry the same offset, isdst and abbreviation. */
static int
same_type(const struct tz_period *p, const struct tz_period *q)
{
	return p->utoff == q->utoff && p->isdst == q->isdst &&
	    strcmp(p->abbr, q->abbr) == 0;
}

/*
 * Fat and slim files of every zone describe the same time: compare at a
 * sweep of instants from 1850 to 2200, at every transition of the fat
 * file +-1 s, and local -> UTC at the local times around each transition.
 */
static void
test_fat_slim(void)
{
	struct tz_period	 p, q, np;
	struct tz		*fz, *sz;
	int64_t			 t, b;
	size_t			 i;
	int			 d, fails, ntrans = 0, nsweep = 0;

	T_RUN("fat vs slim");
	for (i = 0; i < NZONES; i++) {
		fz = load(FAT, zones[i]);
		sz = load(SLIM, zones[i]);
		fails = t_failures;
		for (t = T_1850; t < T_2200 && t_failures - fails < MAX_FAILS;
		    t += SWEEP_STEP) {
			tz_period_at(fz, t, &p);
			tz_period_at(sz, t, &q);
			nsweep++;
			if (!T_TRUE(same_type(&p, &q)) ||
			    !T_TRUE(same_local(fz, sz, t + p.utoff)))
				(void)printf("  %s at %" PRId64 "\n",
				    zones[i], t);
		}
		tz_period_at(fz, T_1850, &np);
		while (np.end < T_2200 && t_failures - fails < MAX_FAILS) {
			b = np.end;
			ntrans++;
			for (d = -1; d <= 1; d++) {
				tz_period_at(fz, b + d, &p);
				tz_period_at(sz, b + d, &q);
				if (!T_TRUE(same_type(&p, &q)))
					(void)printf("  %s at %" PRId64 "\n",
					    zones[i], b + d);
			}
			tz_period_at(fz, b - 1, &p);
			tz_period_at(fz, b, &np);
			for (d = -1; d <= 1; d++) {
				if (!T_TRUE(same_local(fz, sz,
				    b + d + p.utoff)) ||
				    !T_TRUE(same_local(fz, sz,
				    b + d + np.utoff)))
					(void)printf("  %s local at %" PRId64
					    "\n", zones[i], b + d);
			}
		}
		tz_free(fz);
		tz_free(sz);
	}
	(void)printf("fat vs slim: %zu zones, %d sweep instants, %d "
	    "transitions\n", NZONES, nsweep, ntrans);
}

/*
 * Properties over every fixture zone, fat and slim:
 *  - tz_period_at(t) contains t, and periods tile the time line;
 *  - tz_local_to_utc(tz_to_local(t)) contains t, ascending, and every
 *    instant it returns has that local time;
 *  - a local time with no instant lies strictly between the local times
 *    just before and at gap_end.
 */
static void
test_properties(void)
{
	static const char *const	 flavours[] = { FAT, SLIM };
	struct tz_period		 p, q;
	struct tz			*z;
	int64_t				 t, local, out[TZ_OCC_MAX], gap_end;
	size_t				 i, f;
	int				 n, k, found, fails, gaps = 0;
	int				 folds = 0, nperiods = 0;

	T_RUN("properties");
	for (i = 0; i < NZONES; i++) {
		for (f = 0; f < 2; f++) {
			z = load(flavours[f], zones[i]);
			fails = t_failures;

			/* Periods tile 1850 .. 2200. */
			tz_period_at(z, T_1850, &p);
			T_TRUE(p.start <= T_1850 && T_1850 < p.end);
			while (p.end < T_2200 &&
			    t_failures - fails < MAX_FAILS) {
				nperiods++;
				tz_period_at(z, p.end, &q);
				if (!T_EQ_TIME(q.start, p.end) ||
				    !T_TRUE(q.end > q.start))
					(void)printf("  %s %s at %" PRId64
					    "\n", flavours[f], zones[i],
					    p.end);
				tz_period_at(z, p.end - 1, &q);
				T_EQ_TIME(q.end, p.end);
				tz_period_at(z, p.end, &p);
			}

			/* Round trips of sampled instants. */
			for (t = T_1850 + 12345; t < T_2200 &&
			    t_failures - fails < MAX_FAILS;
			    t += SWEEP_STEP - 3600 * 5) {
				tz_period_at(z, t, &p);
				T_TRUE(p.start <= t && t < p.end);
				local = tz_to_local(z, t, NULL);
				n = tz_local_to_utc(z, local, out, &gap_end);
				found = 0;
				for (k = 0; k < n; k++) {
					found |= out[k] == t;
					T_EQ_INT(tz_to_local(z, out[k], NULL),
					    local);
					if (k > 0)
						T_TRUE(out[k - 1] < out[k]);
				}
				folds += n > 1;
				if (!T_TRUE(n >= 1 && found))
					(void)printf("  %s %s at %" PRId64
					    "\n", flavours[f], zones[i], t);
			}

			/* Sampled local times, gaps included. */
			for (local = T_1850 + 777; local < T_2200 &&
			    t_failures - fails < MAX_FAILS;
			    local += SWEEP_STEP / 3) {
				gap_end = NO_TIME;
				n = tz_local_to_utc(z, local, out, &gap_end);
				for (k = 0; k < n; k++)
					T_EQ_INT(tz_to_local(z, out[k], NULL),
					    local);
				if (n > 0)
					continue;
				gaps++;
				if (!T_TRUE(gap_end != NO_TIME &&
				    tz_to_local(z, gap_end - 1, NULL) <
				    local && local <
				    tz_to_local(z, gap_end, NULL)))
					(void)printf("  %s %s local %" PRId64
					    "\n", flavours[f], zones[i],
					    local);
			}
			tz_free(z);
		}
	}
	(void)printf("properties: %d periods, %d folds and %d gaps seen\n",
	    nperiods, folds, gaps);
}

/* Run every test; the exit status says whether any check failed. */
int
main(void)
{
	test_utc_to_local();
	test_local_to_utc();
	test_resolve();
	test_rules();
	test_images();
	test_footers();
	test_truncation();
	test_names();
	test_tzdir();
	test_cache();
	test_policies();
	test_utc_and_span();
	test_fat_slim();
	test_properties();
	return t_done();
}

/*
 * tz.c -- IANA time zones read from TZif files, and conversions.
 *
 * A zone is its list of transitions (instant, local time type) from the
 * TZif file plus, for instants at or after the last transition, the POSIX
 * TZ rule in the file's footer (RFC 8536 section 3.3).  Everything is
 * computed here: the process-wide TZ variable, tzset() and localtime() are
 * never used, so zones can be mixed freely and a zone that cannot be
 * loaded is an error, never a silent fallback to UTC.
 *
 * Invariants of a loaded struct tz: at least one type; transitions strictly
 * increasing; every transition names an existing type; abbreviations are
 * NUL-terminated inside the character table; offsets within +-26 hours.
 * Instants before the first transition use type 0 (RFC 8536 3.2).
 * Leap-second ("right/") files are refused: cron instants are POSIX time.
 *
 * DIAGNOSTICS: loaders return NULL with an allocated *cause naming the zone
 * and the problem; conversions cannot fail.  Nothing is logged.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "civil.h"
#include "tz.h"
#include "xmalloc.h"

#define TZ_FILE_MAX	(1024 * 1024)	/* largest zone file read */
#define TZ_NAME_MAX	255
#define TZ_UTOFF_MAX	(26 * 3600)	/* sane bound on any offset */
#define TZ_RULE_HOURS	167		/* RFC 8536 extension of POSIX times */

/* One local time type of a TZif file. */
struct tz_ttype {
	int32_t	utoff;
	uint8_t	isdst;
	uint8_t	abbr;			/* index into chars */
};

/* A date of a POSIX TZ rule: Jn, n or Mm.w.d, plus a time of day. */
struct tz_rule_date {
	enum { TZ_DATE_JULIAN1, TZ_DATE_JULIAN0, TZ_DATE_MONTH } kind;
	int	n;			/* Jn: 1-365, n: 0-365 */
	int	m, w, d;		/* Mm.w.d */
	int32_t	time;			/* seconds after local midnight */
};

/* A POSIX TZ rule ("EST5EDT,M3.2.0,M11.1.0"). */
struct tz_rule {
	int32_t			std_off;	/* seconds east of UTC */
	int32_t			dst_off;
	int			has_dst;
	char			std_abbr[TZ_ABBR_MAX + 1];
	char			dst_abbr[TZ_ABBR_MAX + 1];
	struct tz_rule_date	start;		/* standard -> daylight */
	struct tz_rule_date	end;		/* daylight -> standard */
};

struct tz {
	char		*name;
	int64_t		*trans;		/* ntrans instants, increasing */
	uint8_t		*trans_type;	/* type index of each transition */
	size_t		 ntrans;
	struct tz_ttype	*types;
	size_t		 ntypes;
	char		*chars;		/* abbreviations, NUL-separated */
	size_t		 nchars;
	int		 has_rule;
	struct tz_rule	 rule;
	int32_t		 min_off;	/* over every type and the rule */
	int32_t		 max_off;
};

struct tz_cache {
	char		*dir;
	struct tz	**zones;
	size_t		 nzones;
};

/* Set *cause to a formatted message; always returns NULL for chaining. */
static void *
tz_fail(char **cause, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void *
tz_fail(char **cause, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*cause = xvasprintf(fmt, ap);
	va_end(ap);
	return NULL;
}

/* Copy an abbreviation, truncating to TZ_ABBR_MAX. */
static void
tz_abbr_copy(char *dst, const char *src)
{
	size_t n = strnlen(src, TZ_ABBR_MAX);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Big-endian readers over a bounds-checked cursor. */
struct tz_buf {
	const unsigned char	*p;
	size_t			 left;
};

static int
tz_buf_take(struct tz_buf *b, size_t n, const unsigned char **out)
{
	if (n > b->left)
		return -1;
	*out = b->p;
	b->p += n;
	b->left -= n;
	return 0;
}

static uint32_t
tz_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int64_t
tz_be64(const unsigned char *p)
{
	return (int64_t)((uint64_t)tz_be32(p) << 32 | tz_be32(p + 4));
}

/*
 * POSIX TZ string parsing (the TZif footer).  Each parser advances *sp and
 * returns 0, or -1 on malformed input.
 */

/* A zone abbreviation: 3+ letters, or <...> of letters, digits, + and -. */
static int
tz_rule_abbr(const char **sp, char *out)
{
	const char	*s = *sp, *start;
	size_t		 n;

	if (*s == '<') {
		start = ++s;
		while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    (*s >= '0' && *s <= '9') || *s == '+' || *s == '-')
			s++;
		if (*s != '>')
			return -1;
		n = (size_t)(s - start);
		s++;
	} else {
		start = s;
		while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))
			s++;
		n = (size_t)(s - start);
	}
	if (n < 3 || n > TZ_ABBR_MAX)
		return -1;
	memcpy(out, start, n);
	out[n] = '\0';
	*sp = s;
	return 0;
}

/* A small decimal number of at most 3 digits. */
static int
tz_rule_num(const char **sp, int min, int max, int *out)
{
	const char	*s = *sp;
	int		 v = 0, digits = 0;

	while (*s >= '0' && *s <= '9' && digits < 3) {
		v = v * 10 + (*s++ - '0');
		digits++;
	}
	if (digits == 0 || (*s >= '0' && *s <= '9') || v < min || v > max)
		return -1;
	*out = v;
	*sp = s;
	return 0;
}

/* [+-]hh[:mm[:ss]] with hh up to maxh; the value in seconds. */
static int
tz_rule_hms(const char **sp, int maxh, int32_t *out)
{
	const char	*s = *sp;
	int		 sign = 1, h, m = 0, sec = 0;

	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? -1 : 1;
	if (tz_rule_num(&s, 0, maxh, &h) == -1)
		return -1;
	if (*s == ':') {
		s++;
		if (tz_rule_num(&s, 0, 59, &m) == -1)
			return -1;
		if (*s == ':') {
			s++;
			if (tz_rule_num(&s, 0, 59, &sec) == -1)
				return -1;
		}
	}
	*out = sign * (h * 3600 + m * 60 + sec);
	*sp = s;
	return 0;
}

/* A rule date with optional /time: Jn, n or Mm.w.d. */
static int
tz_rule_date(const char **sp, struct tz_rule_date *d)
{
	const char *s = *sp;

	if (*s == 'J') {
		s++;
		d->kind = TZ_DATE_JULIAN1;
		if (tz_rule_num(&s, 1, 365, &d->n) == -1)
			return -1;
	} else if (*s == 'M') {
		s++;
		d->kind = TZ_DATE_MONTH;
		if (tz_rule_num(&s, 1, 12, &d->m) == -1 || *s++ != '.' ||
		    tz_rule_num(&s, 1, 5, &d->w) == -1 || *s++ != '.' ||
		    tz_rule_num(&s, 0, 6, &d->d) == -1)
			return -1;
	} else {
		d->kind = TZ_DATE_JULIAN0;
		if (tz_rule_num(&s, 0, 365, &d->n) == -1)
			return -1;
	}
	d->time = 2 * 3600;
	if (*s == '/') {
		s++;
		if (tz_rule_hms(&s, TZ_RULE_HOURS, &d->time) == -1)
			return -1;
	}
	*sp = s;
	return 0;
}

/* Parse a whole POSIX TZ string. */
static int
tz_rule_parse(const char *s, struct tz_rule *r)
{
	int32_t off;

	memset(r, 0, sizeof *r);
	if (tz_rule_abbr(&s, r->std_abbr) == -1 ||
	    tz_rule_hms(&s, 24, &off) == -1)
		return -1;
	r->std_off = -off;		/* POSIX offsets count westward */
	if (*s == '\0')
		return 0;
	if (tz_rule_abbr(&s, r->dst_abbr) == -1)
		return -1;
	r->has_dst = 1;
	r->dst_off = r->std_off + 3600;
	if (*s != ',' && *s != '\0') {
		if (tz_rule_hms(&s, 24, &off) == -1)
			return -1;
		r->dst_off = -off;
	}
	if (*s == '\0') {
		/* No rule: the US rules, as glibc and POSIX suggest. */
		r->start = (struct tz_rule_date){ TZ_DATE_MONTH, 0, 3, 2, 0,
		    7200 };
		r->end = (struct tz_rule_date){ TZ_DATE_MONTH, 0, 11, 1, 0,
		    7200 };
		return 0;
	}
	if (*s++ != ',' || tz_rule_date(&s, &r->start) == -1 ||
	    *s++ != ',' || tz_rule_date(&s, &r->end) == -1 || *s != '\0')
		return -1;
	return 0;
}

/* Day number (days since 1970-01-01) of a rule date in year y. */
static int64_t
tz_rule_day(const struct tz_rule_date *d, int64_t y)
{
	int64_t	jan1 = civil_days_from_date(y, 1, 1), first;
	int	day, dim;

	switch (d->kind) {
	case TZ_DATE_JULIAN1:
		/* Jn counts 1-365 and never counts February 29. */
		return jan1 + d->n - 1 + (civil_is_leap(y) && d->n >= 60);
	case TZ_DATE_JULIAN0:
		return jan1 + d->n;
	case TZ_DATE_MONTH:
	default:
		first = civil_days_from_date(y, d->m, 1);
		day = 1 + (d->d - civil_weekday(first) + 7) % 7 +
		    (d->w - 1) * 7;
		dim = civil_days_in_month(y, d->m);
		while (day > dim)
			day -= 7;
		return first + day - 1;
	}
}

/*
 * The period of the footer rule containing t.  The changes of the years
 * around t are sorted; ties keep generation order, so a rule whose DST
 * "ends" exactly when the next year's starts (permanent DST) has no
 * change there.  A change may fall up to 167 hours outside its own year
 * (RFC 8536 3.3.1), so two years either side are taken: the state before
 * them, guessed from the first change, is settled before t's year.  The
 * caller clamps start to the last explicit transition.
 */
static void
tz_rule_period(const struct tz *z, int64_t t, struct tz_period *p)
{
	const struct tz_rule	*r = &z->rule;
	struct { int64_t at; int on; } ev[10], tmp;
	int64_t			 y;
	int			 n = 0, i, j, state, prev;

	p->start = TZ_TIME_MIN;
	p->end = TZ_TIME_MAX;
	if (!r->has_dst) {
		p->utoff = r->std_off;
		p->isdst = 0;
		tz_abbr_copy(p->abbr, r->std_abbr);
		return;
	}

	civil_date_from_days(civil_floor_div(t + r->std_off,
	    CIVIL_SECS_PER_DAY), &y, &i, &j);
	for (y = y - 2, i = 0; i < 5; i++, y++) {
		ev[n].at = tz_rule_day(&r->start, y) * CIVIL_SECS_PER_DAY +
		    r->start.time - r->std_off;
		ev[n++].on = 1;
		ev[n].at = tz_rule_day(&r->end, y) * CIVIL_SECS_PER_DAY +
		    r->end.time - r->dst_off;
		ev[n++].on = 0;
	}
	for (i = 1; i < n; i++) {		/* stable insertion sort */
		tmp = ev[i];
		for (j = i; j > 0 && ev[j - 1].at > tmp.at; j--)
			ev[j] = ev[j - 1];
		ev[j] = tmp;
	}

	/* Walk the changes; the state before the window is the opposite. */
	state = !ev[0].on;
	for (i = 0; i < n; i++) {
		/* Of several changes at one instant, the last one counts. */
		if (i + 1 < n && ev[i + 1].at == ev[i].at)
			continue;
		prev = state;
		state = ev[i].on;
		if (state == prev)
			continue;
		if (ev[i].at <= t)
			p->start = ev[i].at;
		else {
			p->end = ev[i].at;
			state = prev;
			break;
		}
	}
	p->isdst = state;
	p->utoff = state ? r->dst_off : r->std_off;
	tz_abbr_copy(p->abbr, state ? r->dst_abbr : r->std_abbr);
}

/* Fill a period from a TZif type. */
static void
tz_type_period(const struct tz *z, size_t type, struct tz_period *p)
{
	p->utoff = z->types[type].utoff;
	p->isdst = z->types[type].isdst;
	tz_abbr_copy(p->abbr, z->chars + z->types[type].abbr);
}

/* The period of zone z containing instant t. */
void
tz_period_at(const struct tz *z, int64_t t, struct tz_period *p)
{
	size_t lo, hi, mid;

	if (z->ntrans == 0) {
		if (z->has_rule)
			tz_rule_period(z, t, p);
		else {
			tz_type_period(z, 0, p);
			p->start = TZ_TIME_MIN;
			p->end = TZ_TIME_MAX;
		}
		return;
	}
	if (t < z->trans[0]) {
		tz_type_period(z, 0, p);
		p->start = TZ_TIME_MIN;
		p->end = z->trans[0];
		return;
	}

	/* Find the last transition at or before t. */
	lo = 0;
	hi = z->ntrans;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (z->trans[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	if (lo + 1 < z->ntrans) {
		tz_type_period(z, z->trans_type[lo], p);
		p->start = z->trans[lo];
		p->end = z->trans[lo + 1];
		return;
	}
	if (z->has_rule) {
		tz_rule_period(z, t, p);
		if (p->start < z->trans[lo])
			p->start = z->trans[lo];
		return;
	}
	tz_type_period(z, z->trans_type[lo], p);
	p->start = z->trans[lo];
	p->end = TZ_TIME_MAX;
}

/* Local civil seconds of instant t; the offset in *utoff if not NULL. */
int64_t
tz_to_local(const struct tz *z, int64_t t, int32_t *utoff)
{
	struct tz_period p;

	tz_period_at(z, t, &p);
	if (utoff != NULL)
		*utoff = p.utoff;
	return t + p.utoff;
}

/*
 * The largest difference between two UTC offsets of the zone: an instant
 * farther than this from both ends of its period is its local time's only
 * occurrence.
 */
int32_t
tz_offset_span(const struct tz *z)
{
	return z->max_off - z->min_off;
}

/*
 * The instants a local time denotes, in increasing order; returns how many
 * (0 in a gap, 2 or more in a fold).  In a gap, *gap_end (if not NULL) is
 * the transition instant that ends it: the first instant after the gap.
 *
 * Every period whose instants could map to local is visited: those
 * overlapping [local - max_off, local - min_off].
 */
int
tz_local_to_utc(const struct tz *z, int64_t local, int64_t out[TZ_OCC_MAX],
    int64_t *gap_end)
{
	struct tz_period	p;
	int64_t			t, hi = local - z->min_off;
	int			n = 0, in_gap = 0;

	tz_period_at(z, local - z->max_off, &p);
	for (;;) {
		t = local - p.utoff;
		if (t >= p.start && t < p.end && n < TZ_OCC_MAX)
			out[n++] = t;
		if (p.end == TZ_TIME_MAX || p.end > hi)
			break;
		/* A gap: the old local clock ends before local, the new
		 * one starts after it. */
		t = p.end;
		tz_period_at(z, t, &p);
		if (n == 0 && !in_gap && t + p.utoff > local) {
			in_gap = 1;
			if (gap_end != NULL)
				*gap_end = t;
		}
	}
	return n;
}

/*
 * The instants at which a nominal local time fires under a gap and fold
 * policy; returns how many (0 to TZ_OCC_MAX).  AUTO counts as SHIFT and
 * FIRST: each nominal time fires exactly once.
 */
int
tz_resolve(const struct tz *z, int64_t local, enum tz_gap gap,
    enum tz_fold fold, int64_t out[TZ_OCC_MAX])
{
	int64_t	occ[TZ_OCC_MAX], gap_end = 0;
	int	n, i;

	n = tz_local_to_utc(z, local, occ, &gap_end);
	if (n == 0) {
		if (gap == TZ_GAP_SKIP)
			return 0;
		out[0] = gap_end;
		return 1;
	}
	switch (fold) {
	case TZ_FOLD_SECOND:
		out[0] = occ[n - 1];
		return 1;
	case TZ_FOLD_BOTH:
		for (i = 0; i < n; i++)
			out[i] = occ[i];
		return n;
	case TZ_FOLD_AUTO:
	case TZ_FOLD_FIRST:
	default:
		out[0] = occ[0];
		return 1;
	}
}

/* The name of a gap policy, as written in job files. */
const char *
tz_gap_name(enum tz_gap g)
{
	switch (g) {
	case TZ_GAP_SHIFT:
		return "shift";
	case TZ_GAP_SKIP:
		return "skip";
	case TZ_GAP_AUTO:
	default:
		return "auto";
	}
}

/* The name of a fold policy, as written in job files. */
const char *
tz_fold_name(enum tz_fold f)
{
	switch (f) {
	case TZ_FOLD_FIRST:
		return "first";
	case TZ_FOLD_SECOND:
		return "second";
	case TZ_FOLD_BOTH:
		return "both";
	case TZ_FOLD_AUTO:
	default:
		return "auto";
	}
}

/* Parse "shift", "skip" or "auto"; 0 on success, -1 otherwise. */
int
tz_gap_parse(const char *s, enum tz_gap *out)
{
	if (strcmp(s, "shift") == 0)
		*out = TZ_GAP_SHIFT;
	else if (strcmp(s, "skip") == 0)
		*out = TZ_GAP_SKIP;
	else if (strcmp(s, "auto") == 0)
		*out = TZ_GAP_AUTO;
	else
		return -1;
	return 0;
}

/* Parse "first", "second", "both" or "auto"; 0 on success, -1 otherwise. */
int
tz_fold_parse(const char *s, enum tz_fold *out)
{
	if (strcmp(s, "first") == 0)
		*out = TZ_FOLD_FIRST;
	else if (strcmp(s, "second") == 0)
		*out = TZ_FOLD_SECOND;
	else if (strcmp(s, "both") == 0)
		*out = TZ_FOLD_BOTH;
	else if (strcmp(s, "auto") == 0)
		*out = TZ_FOLD_AUTO;
	else
		return -1;
	return 0;
}

/* Free a zone; NULL is allowed. */
void
tz_free(struct tz *z)
{
	if (z == NULL)
		return;
	free(z->name);
	free(z->trans);
	free(z->trans_type);
	free(z->types);
	free(z->chars);
	free(z);
}

/* The zone's name as it was loaded. */
const char *
tz_name(const struct tz *z)
{
	return z->name;
}

/* Record the offset range over every type and the rule. */
static void
tz_offsets_init(struct tz *z)
{
	size_t i;

	z->min_off = z->max_off = z->types[0].utoff;
	for (i = 1; i < z->ntypes; i++) {
		if (z->types[i].utoff < z->min_off)
			z->min_off = z->types[i].utoff;
		if (z->types[i].utoff > z->max_off)
			z->max_off = z->types[i].utoff;
	}
	if (!z->has_rule)
		return;
	if (z->rule.std_off < z->min_off)
		z->min_off = z->rule.std_off;
	if (z->rule.std_off > z->max_off)
		z->max_off = z->rule.std_off;
	if (z->rule.has_dst && z->rule.dst_off < z->min_off)
		z->min_off = z->rule.dst_off;
	if (z->rule.has_dst && z->rule.dst_off > z->max_off)
		z->max_off = z->rule.dst_off;
}

/* The built-in UTC zone, which needs no file; caller frees with tz_free. */
struct tz *
tz_new_utc(void)
{
	struct tz *z = xcalloc(1, sizeof *z);

	z->name = xstrdup("UTC");
	z->types = xcalloc(1, sizeof *z->types);
	z->ntypes = 1;
	z->chars = xstrdup("UTC");
	z->nchars = 4;
	tz_offsets_init(z);
	return z;
}

/*
 * Parse a TZif image.  Returns a new zone (caller frees with tz_free), or
 * NULL with *cause set.  Everything in the image is checked before use, so
 * hostile or truncated input only ever yields an error.
 */
struct tz *
tz_load_mem(const char *name, const void *data, size_t len, char **cause)
{
	struct tz_buf		 b = { data, len };
	const unsigned char	*h, *tp, *ip, *ty, *ch, *ft;
	uint32_t		 cnt[6], isutcnt, isstdcnt, leapcnt, timecnt;
	uint32_t		 typecnt, charcnt;
	size_t			 tsize = 4, skip, i;
	int			 version, pass;
	struct tz		*z = NULL;
	char			*footer = NULL, *nl;
	const char		*what = "truncated file";

	for (pass = 0; pass < 2; pass++) {
		what = "truncated file";
		if (tz_buf_take(&b, 44, &h) == -1)
			goto bad;
		what = "not a TZif file";
		if (memcmp(h, "TZif", 4) != 0)
			goto bad;
		version = h[4] == 0 ? 1 : h[4] - '0';
		if (version < 1 || version > 9)
			goto bad;
		for (i = 0; i < 6; i++)
			cnt[i] = tz_be32(h + 20 + 4 * i);
		isutcnt = cnt[0];
		isstdcnt = cnt[1];
		leapcnt = cnt[2];
		timecnt = cnt[3];
		typecnt = cnt[4];
		charcnt = cnt[5];
		what = "bad header counts";
		if (typecnt == 0 || typecnt > 256 || charcnt == 0 ||
		    charcnt > 65536 || timecnt > 1000000 ||
		    (isutcnt != 0 && isutcnt != typecnt) ||
		    (isstdcnt != 0 && isstdcnt != typecnt) || leapcnt > 10000)
			goto bad;
		if (pass == 0 && version >= 2) {
			/* Skip the 32-bit block: version 2+ repeats it. */
			skip = (size_t)timecnt * 5 + (size_t)typecnt * 6 +
			    charcnt + (size_t)leapcnt * 8 + isstdcnt + isutcnt;
			what = "truncated file";
			if (tz_buf_take(&b, skip, &h) == -1)
				goto bad;
			tsize = 8;
			continue;
		}
		break;
	}
	what = "leap-second zone files (right/...) are not supported";
	if (leapcnt != 0)
		goto bad;

	what = "truncated file";
	if (tz_buf_take(&b, (size_t)timecnt * tsize, &tp) == -1 ||
	    tz_buf_take(&b, timecnt, &ip) == -1 ||
	    tz_buf_take(&b, (size_t)typecnt * 6, &ty) == -1 ||
	    tz_buf_take(&b, charcnt, &ch) == -1 ||
	    tz_buf_take(&b, (size_t)isstdcnt + isutcnt, &h) == -1)
		goto bad;

	z = xcalloc(1, sizeof *z);
	z->name = xstrdup(name);
	z->ntrans = timecnt;
	z->trans = xreallocarray(NULL, timecnt, sizeof *z->trans);
	z->trans_type = xmalloc(timecnt);
	z->ntypes = typecnt;
	z->types = xreallocarray(NULL, typecnt, sizeof *z->types);
	z->nchars = charcnt;
	z->chars = xmalloc(charcnt);
	memcpy(z->chars, ch, charcnt);

	for (i = 0; i < timecnt; i++) {
		z->trans[i] = tsize == 8 ? tz_be64(tp + 8 * i) :
		    (int32_t)tz_be32(tp + 4 * i);
		z->trans_type[i] = ip[i];
		what = "transitions out of order";
		if (i > 0 && z->trans[i] <= z->trans[i - 1])
			goto bad;
		what = "transition names a missing type";
		if (ip[i] >= typecnt)
			goto bad;
	}
	for (i = 0; i < typecnt; i++) {
		z->types[i].utoff = (int32_t)tz_be32(ty + 6 * i);
		z->types[i].isdst = ty[6 * i + 4];
		z->types[i].abbr = ty[6 * i + 5];
		what = "UTC offset out of range";
		if (z->types[i].utoff < -TZ_UTOFF_MAX ||
		    z->types[i].utoff > TZ_UTOFF_MAX)
			goto bad;
		what = "bad local time type";
		if (z->types[i].isdst > 1 || z->types[i].abbr >= charcnt ||
		    memchr(z->chars + z->types[i].abbr, '\0',
		    charcnt - z->types[i].abbr) == NULL)
			goto bad;
	}

	/*
	 * Version 2+: "\n<POSIX TZ string>\n" after the data.  The footer
	 * is required (RFC 8536 3.3; the string may be empty): a file cut
	 * just before it would otherwise load and keep its last type for
	 * ever, e.g. CEST since 1996 for a slim Europe/Berlin.
	 */
	if (tsize == 8) {
		what = "bad footer";
		if (tz_buf_take(&b, 1, &ft) == -1 || ft[0] != '\n' ||
		    (nl = memchr(b.p, '\n', b.left)) == NULL)
			goto bad;
		footer = xstrndup((const char *)b.p,
		    (size_t)((const unsigned char *)nl - b.p));
		if (strlen(footer) != (size_t)((const unsigned char *)nl - b.p))
			goto bad;
		if (footer[0] != '\0') {
			what = "bad TZ rule in footer";
			if (tz_rule_parse(footer, &z->rule) == -1 ||
			    z->rule.std_off < -TZ_UTOFF_MAX ||
			    z->rule.std_off > TZ_UTOFF_MAX ||
			    z->rule.dst_off < -TZ_UTOFF_MAX ||
			    z->rule.dst_off > TZ_UTOFF_MAX)
				goto bad;
			z->has_rule = 1;
		}
		free(footer);
		footer = NULL;
	}
	tz_offsets_init(z);
	return z;

bad:
	free(footer);
	tz_free(z);
	return tz_fail(cause, "time zone \"%s\": %s", name, what);
}

/* The zoneinfo directory: $TZDIR when set and non-empty, as in glibc. */
const char *
tz_default_dir(void)
{
	const char *dir = getenv("TZDIR");

	return dir != NULL && *dir != '\0' ? dir : TZ_DEFAULT_DIR;
}

/*
 * Check that a zone name is a relative path of plain components, so that
 * "../../etc/passwd" or "/tmp/x" cannot name a file outside the zone
 * directory, and not "localtime" or "posixrules" (the system's zone and
 * the POSIX rules, as files of the zone directory).  Returns 0, or -1 with *cause set.
 */
int
tz_name_check(const char *name, char **cause)
{
	const char	*s, *comp = name;
	size_t		 len = strlen(name);

	if (len == 0) {
		*cause = xstrdup("empty time zone name");
		return -1;
	}
	if (len > TZ_NAME_MAX) {
		*cause = xasprintf("time zone name too long (%zu bytes)", len);
		return -1;
	}
	/*
	 * Files of the zone directory that are not zones of their own: the
	 * system's zone (a link to /etc/localtime on Debian) and the POSIX
	 * default rules.  Zones are named: the local zone plays no part.
	 */
	if (strcmp(name, "localtime") == 0 || strcmp(name, "posixrules") == 0) {
		*cause = xasprintf("time zone \"%s\" is not a zone name: "
		    "name the zone, such as Europe/Berlin (the system's is "
		    "where /etc/localtime points)", name);
		return -1;
	}
	for (s = name;; s++) {
		if (*s == '/' || *s == '\0') {
			if (s == comp || (s - comp == 1 && comp[0] == '.') ||
			    (s - comp == 2 && comp[0] == '.' && comp[1] == '.')) {
				*cause = xasprintf("unknown time zone \"%s\": "
				    "not a zone name", name);
				return -1;
			}
			if (*s == '\0')
				return 0;
			comp = s + 1;
			continue;
		}
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' ||
		    *s == '+' || *s == '.')) {
			*cause = xasprintf("unknown time zone \"%s\": "
			    "not a zone name", name);
			return -1;
		}
	}
}

/*
 * Load zone name from directory dir (NULL: tz_default_dir()).  Returns a
 * new zone (caller frees with tz_free), or NULL with *cause set.
 */
struct tz *
tz_load_file(const char *dir, const char *name, char **cause)
{
	struct stat	 st;
	char		*path = NULL, *buf = NULL;
	struct tz	*z = NULL;
	size_t		 got = 0;
	ssize_t		 n;
	int		 fd = -1;

	if (tz_name_check(name, cause) == -1)
		return NULL;
	if (dir == NULL)
		dir = tz_default_dir();
	path = xasprintf("%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1) {
		tz_fail(cause, "unknown time zone \"%s\": %s: %s", name, path,
		    strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) == -1) {
		tz_fail(cause, "time zone \"%s\": %s: %s", name, path,
		    strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		tz_fail(cause, "unknown time zone \"%s\": %s: not a zone file",
		    name, path);
		goto out;
	}
	if (st.st_size > TZ_FILE_MAX) {
		tz_fail(cause, "time zone \"%s\": %s: file too large", name,
		    path);
		goto out;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size + 1) {
		n = read(fd, buf + got, (size_t)st.st_size + 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			tz_fail(cause, "time zone \"%s\": %s: %s", name, path,
			    strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	z = tz_load_mem(name, buf, got, cause);
out:
	if (fd != -1)
		(void)close(fd);
	free(buf);
	free(path);
	return z;
}

/* A cache of loaded zones; dir NULL means tz_default_dir() at each load. */
struct tz_cache *
tz_cache_new(const char *dir)
{
	struct tz_cache *c = xcalloc(1, sizeof *c);

	c->dir = dir != NULL ? xstrdup(dir) : NULL;
	return c;
}

/*
 * The zone called name, loaded once.  "UTC" is built in.  Returns a
 * pointer owned by the cache (valid until tz_cache_free), or NULL with
 * *cause set; failures are not cached, so a later call may succeed.
 */
const struct tz *
tz_cache_get(struct tz_cache *c, const char *name, char **cause)
{
	struct tz	*z;
	size_t		 i;

	for (i = 0; i < c->nzones; i++) {
		if (strcmp(c->zones[i]->name, name) == 0)
			return c->zones[i];
	}
	if (strcmp(name, "UTC") == 0)
		z = tz_new_utc();
	else if ((z = tz_load_file(c->dir, name, cause)) == NULL)
		return NULL;
	c->zones = xreallocarray(c->zones, c->nzones + 1, sizeof *c->zones);
	c->zones[c->nzones++] = z;
	return z;
}

/* Free a cache and every zone in it; NULL is allowed. */
void
tz_cache_free(struct tz_cache *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nzones; i++)
		tz_free(c->zones[i]);
	free(c->zones);
	free(c->dir);
	free(c);
}

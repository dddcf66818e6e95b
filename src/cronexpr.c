/*
 * cronexpr.c -- parse cron expressions and find their firing instants.
 *
 * An expression is kept as one bit set per field plus the day-of-month
 * and day-of-week extensions (L, nL, n#k).  Finding the next instant works
 * in two layers:
 *
 *   1. cronexpr_local_next() finds the next matching *local* wall-clock
 *      time in civil seconds, field by field with bit scans: it never
 *      steps second by second or day by day through non-matching time.
 *   2. cronexpr_next() walks the zone's periods (spans with one UTC
 *      offset) from the starting instant.  Inside a period local time maps
 *      to instants one-to-one and in order, so the first match is the
 *      answer unless the fold policy rejects that occurrence; between two
 *      periods whose offset grows lies a gap, whose nominal times fire at
 *      the transition instant under the shift policy.
 *
 * Instants therefore come out strictly increasing, and nominal times that
 * resolve to one instant (02:30 shifted to 03:00, onto a real 03:00) fire
 * once.  Day rule (Vixie cron, OpenBSD cron.c): when the day-of-month or
 * the day-of-week text begins with '*' (or is '?'), a day must match both;
 * when both are restricted, either one suffices.
 *
 * Invariants: every field set is non-empty; an expression that matches no
 * day in a 400-year Gregorian cycle (which repeats weekdays exactly) is
 * rejected at parse time, so searches always end.
 *
 * DIAGNOSTICS: cronexpr_parse returns NULL with *cause set ("minute field:
 * \"61\" is out of range 0-59"); cronexpr_next returns -1 when no instant
 * exists before year 10000.  Nothing is logged.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "civil.h"
#include "cronexpr.h"
#include "tz.h"
#include "xmalloc.h"

#define CRONEXPR_FIELDS_MAX	6
#define CRONEXPR_TOKEN_SHOWN	40	/* longest token quoted in errors */

struct cronexpr {
	uint64_t	 sec;		/* bit n: second n */
	uint64_t	 min;
	uint32_t	 hour;
	uint32_t	 dom;		/* bits 1-31 */
	uint16_t	 month;		/* bits 1-12 */
	uint8_t		 dow;		/* bits 0-6, Sunday = 0 */
	uint8_t		 dow_last;	/* nL: last weekday n of the month */
	uint8_t		 dow_nth[5];	/* n#k: bit n of dow_nth[k - 1] */
	unsigned	 dom_last : 1;	/* L: last day of the month */
	unsigned	 dom_star : 1;	/* text begins with '*' or is '?' */
	unsigned	 dow_star : 1;
	unsigned	 min_star : 1;
	unsigned	 hour_star : 1;
	unsigned	 seconds : 1;	/* six fields */
	unsigned	 reboot : 1;	/* @reboot: no instants */
	char		*text;		/* text_buf: one allocation */
	char		 text_buf[];
};

enum cronexpr_field {
	F_SEC, F_MIN, F_HOUR, F_DOM, F_MONTH, F_DOW
};

static const struct {
	const char	*name;
	int		 lo, hi;
} cronexpr_fields[] = {
	{ "second", 0, 59 },
	{ "minute", 0, 59 },
	{ "hour", 0, 23 },
	{ "day-of-month", 1, 31 },
	{ "month", 1, 12 },
	{ "day-of-week", 0, 7 },
};

static const char *const cronexpr_months[] = {
	"jan", "feb", "mar", "apr", "may", "jun",
	"jul", "aug", "sep", "oct", "nov", "dec"
};
static const char *const cronexpr_days[] = {
	"sun", "mon", "tue", "wed", "thu", "fri", "sat"
};

static const struct {
	const char	*name;
	const char	*expansion;
} cronexpr_macros[] = {
	{ "@yearly", "0 0 1 1 *" },
	{ "@annually", "0 0 1 1 *" },
	{ "@monthly", "0 0 1 * *" },
	{ "@weekly", "0 0 * * 0" },
	{ "@daily", "0 0 * * *" },
	{ "@midnight", "0 0 * * *" },
	{ "@hourly", "0 * * * *" },
};

/* Parser state for one field: where errors point and what is allowed. */
struct cronexpr_pf {
	enum cronexpr_field	 f;
	const char		*item;	/* the list item being parsed */
	size_t			 itemlen;
	char			**cause;
};

/* Fail with "<field> field: \"<item>\" <message>"; returns -1. */
static int
cronexpr_perr(struct cronexpr_pf *pf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
cronexpr_perr(struct cronexpr_pf *pf, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;
	int	 shown = (int)(pf->itemlen > CRONEXPR_TOKEN_SHOWN ?
		    CRONEXPR_TOKEN_SHOWN : pf->itemlen);

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	*pf->cause = xasprintf("%s field: \"%.*s%s\" %s",
	    cronexpr_fields[pf->f].name, shown, pf->item,
	    pf->itemlen > CRONEXPR_TOKEN_SHOWN ? "..." : "", msg);
	free(msg);
	return -1;
}

/*
 * Read a value: digits, or a month or weekday name where the field has
 * names.  Advances *sp; returns 0, or -1 with the cause set.
 */
static int
cronexpr_value(struct cronexpr_pf *pf, const char **sp, const char *end,
    int *out)
{
	const char		*s = *sp;
	const char *const	*names = NULL;
	size_t			 nnames = 0, i;
	long			 v = 0;
	int			 digits = 0;

	if (pf->f == F_MONTH) {
		names = cronexpr_months;
		nnames = 12;
	} else if (pf->f == F_DOW) {
		names = cronexpr_days;
		nnames = 7;
	}
	if (s < end && isalpha((unsigned char)*s)) {
		for (i = 0; i < nnames; i++) {
			if (end - s >= 3 && strncasecmp(s, names[i], 3) == 0 &&
			    (end - s == 3 || !isalpha((unsigned char)s[3])))
				break;
		}
		if (i == nnames)
			return cronexpr_perr(pf, "is not a valid %s",
			    nnames ? "name" : "number");
		*out = (int)i + (pf->f == F_MONTH);
		*sp = s + 3;
		return 0;
	}
	while (s < end && *s >= '0' && *s <= '9') {
		if (digits++ < 9)
			v = v * 10 + (*s - '0');
		s++;
	}
	if (digits == 0)
		return cronexpr_perr(pf, "is not a valid number");
	if (digits > 9 || v < cronexpr_fields[pf->f].lo ||
	    v > cronexpr_fields[pf->f].hi)
		return cronexpr_perr(pf, "is out of range %d-%d",
		    cronexpr_fields[pf->f].lo, cronexpr_fields[pf->f].hi);
	*out = (int)v;
	*sp = s;
	return 0;
}

/* Read a step after '/': a positive number. */
static int
cronexpr_step(struct cronexpr_pf *pf, const char **sp, const char *end,
    int *out)
{
	const char	*s = *sp;
	long		 v = 0;
	int		 digits = 0;

	while (s < end && *s >= '0' && *s <= '9') {
		if (digits++ < 9)
			v = v * 10 + (*s - '0');
		s++;
	}
	if (digits == 0)
		return cronexpr_perr(pf, "has no step after '/'");
	if (v < 1)
		return cronexpr_perr(pf, "step must be at least 1");
	if (digits > 9)
		return cronexpr_perr(pf, "step is too large");
	*out = (int)v;
	*sp = s;
	return 0;
}

/* Set bits lo..hi by step in *bits; day-of-week 7 becomes 0 (Sunday). */
static void
cronexpr_set(enum cronexpr_field f, uint64_t *bits, int lo, int hi, int step)
{
	int v;

	for (v = lo; v <= hi; v += step)
		*bits |= UINT64_C(1) << (f == F_DOW && v == 7 ? 0 : v);
}

/*
 * Parse one list item of a field into *bits (and the extension fields of
 * e for day-of-month and day-of-week).
 */
static int
cronexpr_item(struct cronexpr_pf *pf, struct cronexpr *e, uint64_t *bits)
{
	const char	*s = pf->item, *end = pf->item + pf->itemlen;
	int		 lo, hi, step = 1, k, range = 0;

	if (pf->f == F_DOM && pf->itemlen == 1 && (*s == 'L' || *s == 'l')) {
		e->dom_last = 1;
		return 0;
	}
	if (*s == '*') {
		s++;
		lo = cronexpr_fields[pf->f].lo;
		hi = cronexpr_fields[pf->f].hi;
		if (s < end && *s != '/')
			return cronexpr_perr(pf, "is not valid after '*'");
		if (s < end) {
			s++;
			if (cronexpr_step(pf, &s, end, &step) == -1)
				return -1;
		}
	} else {
		if (cronexpr_value(pf, &s, end, &lo) == -1)
			return -1;
		hi = lo;
		if (pf->f == F_DOW && s < end && (*s == 'L' || *s == 'l')) {
			if (s + 1 != end)
				return cronexpr_perr(pf,
				    "has text after 'L'");
			e->dow_last |= 1 << (lo % 7);
			return 0;
		}
		if (pf->f == F_DOW && s < end && *s == '#') {
			s++;
			if (s + 1 != end || *s < '1' || *s > '5')
				return cronexpr_perr(pf,
				    "needs a week number 1-5 after '#'");
			k = *s - '0';
			e->dow_nth[k - 1] |= 1 << (lo % 7);
			return 0;
		}
		if (s < end && *s == '-') {
			s++;
			range = 1;
			if (cronexpr_value(pf, &s, end, &hi) == -1)
				return -1;
			if (hi < lo)
				return cronexpr_perr(pf,
				    "range start %d is after its end %d",
				    lo, hi);
		}
		if (s < end && *s == '/') {
			s++;
			/* A/S runs through the maximum; A-A/S is just A. */
			if (!range)
				hi = cronexpr_fields[pf->f].hi;
			if (cronexpr_step(pf, &s, end, &step) == -1)
				return -1;
		}
	}
	if (s != end)
		return cronexpr_perr(pf, "has unexpected text \"%.*s\"",
		    (int)(end - s > CRONEXPR_TOKEN_SHOWN ?
		    CRONEXPR_TOKEN_SHOWN : end - s), s);
	cronexpr_set(pf->f, bits, lo, hi, step);
	return 0;
}

/* Parse one whole field (a comma list) of text [s, end). */
static int
cronexpr_field(struct cronexpr *e, enum cronexpr_field f, const char *s,
    const char *end, char **cause)
{
	struct cronexpr_pf	 pf = { f, s, (size_t)(end - s), cause };
	uint64_t		 bits = 0;
	const char		*comma, *field = s;

	if (end - s == 1 && *s == '?') {
		if (f != F_DOM && f != F_DOW)
			return cronexpr_perr(&pf,
			    "'?' is only allowed in the day fields");
		s = "*";
		end = s + 1;
		pf.item = s;
		pf.itemlen = 1;
	}
	if (f == F_DOM)
		e->dom_star = *s == '*';
	else if (f == F_DOW)
		e->dow_star = *s == '*';
	else if (f == F_MIN)
		e->min_star = *s == '*';
	else if (f == F_HOUR)
		e->hour_star = *s == '*';

	for (;;) {
		comma = memchr(s, ',', (size_t)(end - s));
		pf.item = s;
		pf.itemlen = (size_t)((comma ? comma : end) - s);
		if (pf.itemlen == 0) {
			/* No item to quote: quote the whole field. */
			pf.item = field;
			pf.itemlen = (size_t)(end - field);
			return cronexpr_perr(&pf, "has an empty list item");
		}
		if (cronexpr_item(&pf, e, &bits) == -1)
			return -1;
		if (comma == NULL)
			break;
		s = comma + 1;
	}

	switch (f) {
	case F_SEC:
		e->sec = bits;
		break;
	case F_MIN:
		e->min = bits;
		break;
	case F_HOUR:
		e->hour = (uint32_t)bits;
		break;
	case F_DOM:
		e->dom = (uint32_t)bits;
		break;
	case F_MONTH:
		e->month = (uint16_t)bits;
		break;
	case F_DOW:
		e->dow = (uint8_t)bits;
		break;
	}
	return 0;
}

/*
 * The days of month m of year y that the day fields match, as bits 1-31.
 * This is where the day-of-month / day-of-week OR rule lives.
 */
static uint32_t
cronexpr_day_mask(const struct cronexpr *e, int64_t y, int m)
{
	/* Bits 0, 7, 14, 21, 28: one weekday through a month. */
	const uint64_t	weekly = UINT64_C(0x10204081);
	int		dim = civil_days_in_month(y, m);
	int		w1 = civil_weekday(civil_days_from_date(y, m, 1));
	uint64_t	all = ((UINT64_C(1) << dim) - 1) << 1, dom, dow = 0;
	int		w, d0, k;

	dom = (e->dom & all) | (e->dom_last ? UINT64_C(1) << dim : 0);
	for (w = 0; w < 7; w++) {
		d0 = 1 + (w - w1 + 7) % 7;	/* first day on weekday w */
		if (e->dow & (1 << w))
			dow |= weekly << d0;
		if (e->dow_last & (1 << w))
			dow |= UINT64_C(1) << (d0 + 7 * ((dim - d0) / 7));
		for (k = 0; k < 5; k++) {
			if (e->dow_nth[k] & (1 << w))
				dow |= UINT64_C(1) << (d0 + 7 * k);
		}
	}
	dow &= all;
	if (e->dom_star || e->dow_star)
		return (uint32_t)(dom & dow);
	return (uint32_t)(dom | dow);
}

/* The lowest set bit at or above from in bits, or -1. */
static int
cronexpr_bit_from(uint64_t bits, int from)
{
	if (from >= 64)
		return -1;
	bits &= ~UINT64_C(0) << from;
	return bits ? __builtin_ctzll(bits) : -1;
}

/*
 * The first local time >= from and < limit (civil seconds) that matches
 * every field; 0 and *out set, or -1 if there is none.
 */
static int
cronexpr_local_next(const struct cronexpr *e, int64_t from, int64_t limit,
    int64_t *out)
{
	struct civil	c;
	int64_t		y, days = 0, t;
	int		m, d, h, mi, s, v;
	uint64_t	dmask;

	if (from >= limit)
		return -1;
	civil_split(from, &c);
	y = c.year;
	m = c.month;
	d = c.day;
	h = c.hour;
	mi = c.min;
	s = c.sec;
	for (;;) {
		/* Month: jump to the next matching one, at its first day. */
		if ((v = cronexpr_bit_from(e->month, m)) != m) {
			if (v == -1) {
				y++;
				v = cronexpr_bit_from(e->month, 1);
			}
			m = v;
			d = 1;
			h = mi = s = 0;
		}
		if (civil_days_from_date(y, m, d) * CIVIL_SECS_PER_DAY >=
		    limit)
			return -1;

		/* Day: the next matching day of this month, else move on. */
		dmask = (uint64_t)cronexpr_day_mask(e, y, m) &
		    (~UINT64_C(0) << d);
		if (dmask == 0) {
			if (++m > 12) {
				m = 1;
				y++;
			}
			d = 1;
			h = mi = s = 0;
			continue;
		}
		if ((v = __builtin_ctzll(dmask)) != d) {
			d = v;
			h = mi = s = 0;
		}
		days = civil_days_from_date(y, m, d);

		/* Time of day: an overflow moves to the next unit up. */
		if ((v = cronexpr_bit_from(e->hour, h)) == -1) {
			d++;
			h = mi = s = 0;
			continue;
		}
		if (v != h) {
			h = v;
			mi = s = 0;
		}
		if ((v = cronexpr_bit_from(e->min, mi)) == -1) {
			h++;
			mi = s = 0;
			continue;
		}
		if (v != mi) {
			mi = v;
			s = 0;
		}
		if ((v = cronexpr_bit_from(e->sec, s)) == -1) {
			mi++;
			s = 0;
			continue;
		}
		s = v;
		break;
	}
	t = days * CIVIL_SECS_PER_DAY + h * 3600 + mi * 60 + s;
	if (t >= limit)
		return -1;
	*out = t;
	return 0;
}

/* Whether local time (civil seconds) matches every field; for tests. */
int
cronexpr_match_local(const struct cronexpr *e, int64_t local)
{
	struct civil	c;
	int		dim, dom, dow, k;

	if (e->reboot)
		return 0;
	civil_split(local, &c);
	dim = civil_days_in_month(c.year, c.month);
	k = (c.day - 1) / 7;
	dom = (e->dom >> c.day & 1) || (e->dom_last && c.day == dim);
	dow = (e->dow >> c.wday & 1) ||
	    ((e->dow_last >> c.wday & 1) && c.day + 7 > dim) ||
	    (e->dow_nth[k] >> c.wday & 1);
	if (e->dom_star || e->dow_star ? !(dom && dow) : !(dom || dow))
		return 0;
	return (e->month >> c.month & 1) && (e->hour >> c.hour & 1) &&
	    (e->min >> c.min & 1) && (e->sec >> c.sec & 1);
}

/*
 * What DST did to instant t, a firing instant of e in zone z (as
 * cronexpr_next returns them; no change to how they are chosen): *nominal
 * is the local time (civil seconds) e asked for.  GAP_SHIFTED: that local
 * time does not exist and t is the first instant after the gap (the
 * earliest local time of the gap that matches e is the nominal one);
 * FOLD_FIRST or FOLD_SECOND: the local time of t occurs twice and t is
 * its earlier or later instant; else NONE.
 */
enum cronexpr_dst
cronexpr_dst(const struct cronexpr *e, const struct tz *z, int64_t t,
    int64_t *nominal)
{
	struct tz_period	 p;
	int64_t			 local, l, occ[TZ_OCC_MAX], step;
	int32_t			 off;

	local = tz_to_local(z, t, &off);
	*nominal = local;
	if (!cronexpr_match_local(e, local)) {
		/* The clock jumped at t from t + p.utoff to local. */
		tz_period_at(z, t - 1, &p);
		step = cronexpr_has_seconds(e) ? 1 : 60;
		l = t + p.utoff;
		l = l % step == 0 ? l : l - ((l % step) + step) % step + step;
		for (; l < local; l += step) {
			if (cronexpr_match_local(e, l)) {
				*nominal = l;
				return CRONEXPR_DST_GAP_SHIFTED;
			}
		}
		return CRONEXPR_DST_NONE;	/* not one of e's instants */
	}
	if (tz_local_to_utc(z, local, occ, NULL) > 1)
		return occ[0] == t ? CRONEXPR_DST_FOLD_FIRST :
		    CRONEXPR_DST_FOLD_SECOND;
	return CRONEXPR_DST_NONE;
}

/* The name of a DST decision: "gap-shifted", "fold-first", ..., NULL. */
const char *
cronexpr_dst_name(enum cronexpr_dst d)
{
	switch (d) {
	case CRONEXPR_DST_GAP_SHIFTED:
		return "gap-shifted";
	case CRONEXPR_DST_FOLD_FIRST:
		return "fold-first";
	case CRONEXPR_DST_FOLD_SECOND:
		return "fold-second";
	case CRONEXPR_DST_NONE:
	default:
		return NULL;
	}
}

/* Whether any day in a whole 400-year cycle matches the day fields. */
static int
cronexpr_fires(const struct cronexpr *e)
{
	int64_t	y;
	int	m;

	for (y = 2000; y < 2400; y++) {
		for (m = 1; m <= 12; m++) {
			if ((e->month >> m & 1) && cronexpr_day_mask(e, y, m))
				return 1;
		}
	}
	return 0;
}

/*
 * Parse an expression.  Returns a new expression (caller frees with
 * cronexpr_free), or NULL with *cause set to an allocated message that
 * names the field and the offending text.
 */
struct cronexpr *
cronexpr_parse(const char *text, char **cause)
{
	struct cronexpr	*e;
	const char	*s, *start[CRONEXPR_FIELDS_MAX + 1];
	const char	*end[CRONEXPR_FIELDS_MAX + 1];
	char		*trimmed;
	size_t		 len, i;
	int		 n = 0, f0;

	while (isspace((unsigned char)*text))
		text++;
	len = strlen(text);
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	if (len == 0) {
		*cause = xstrdup("empty schedule");
		return NULL;
	}
	e = xcalloc(1, sizeof *e + len + 1);
	memcpy(e->text_buf, text, len);
	e->text = trimmed = e->text_buf;
	if (trimmed[0] == '@') {
		if (strcasecmp(trimmed, "@reboot") == 0) {
			e->reboot = 1;
			return e;
		}
		for (i = 0; i < sizeof cronexpr_macros /
		    sizeof cronexpr_macros[0]; i++) {
			if (strcasecmp(trimmed, cronexpr_macros[i].name) == 0)
				break;
		}
		if (i == sizeof cronexpr_macros / sizeof cronexpr_macros[0]) {
			*cause = xasprintf("unknown macro \"%.*s\" (expected "
			    "@yearly, @annually, @monthly, @weekly, @daily, "
			    "@midnight, @hourly or @reboot)",
			    CRONEXPR_TOKEN_SHOWN, trimmed);
			goto fail;
		}
		text = cronexpr_macros[i].expansion;
	} else
		text = trimmed;

	/* Split into fields at runs of blanks. */
	for (s = text; *s != '\0';) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			break;
		if (n < CRONEXPR_FIELDS_MAX + 1)
			start[n] = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
		if (n < CRONEXPR_FIELDS_MAX + 1)
			end[n] = s;
		n++;
	}
	if (n != 5 && n != 6) {
		*cause = xasprintf("expected 5 fields (minute hour day-of-month"
		    " month day-of-week) or 6 (with seconds first), found %d",
		    n);
		goto fail;
	}

	e->seconds = n == 6;
	if (!e->seconds)
		e->sec = 1;		/* second 0 */
	f0 = e->seconds ? F_SEC : F_MIN;
	for (i = 0; i < (size_t)n; i++) {
		if (cronexpr_field(e, (enum cronexpr_field)(f0 + (int)i),
		    start[i], end[i], cause) == -1)
			goto fail;
	}
	if (!cronexpr_fires(e)) {
		*cause = xasprintf("schedule \"%.*s\" never fires: no date "
		    "matches its day-of-month, month and day-of-week",
		    CRONEXPR_TOKEN_SHOWN, trimmed);
		goto fail;
	}
	return e;

fail:
	cronexpr_free(e);
	return NULL;
}

/* Free an expression; NULL is allowed. */
void
cronexpr_free(struct cronexpr *e)
{
	if (e == NULL)
		return;
	free(e);
}

/* The expression's text as given, without surrounding blanks. */
const char *
cronexpr_text(const struct cronexpr *e)
{
	return e->text;
}

/* Whether this is @reboot, which has no instants. */
int
cronexpr_is_reboot(const struct cronexpr *e)
{
	return e->reboot;
}

/* Whether the expression has a seconds field. */
int
cronexpr_has_seconds(const struct cronexpr *e)
{
	return e->seconds;
}

/*
 * Replace AUTO policies by the expression's default, the rule Debian's
 * cron follows: a minute or hour field that begins with '*' means the job
 * follows real time (gap skip, fold both); otherwise it is a fixed-time
 * job (gap shift, fold first) that fires once on every day it names.
 */
void
cronexpr_policy(const struct cronexpr *e, enum tz_gap *gap,
    enum tz_fold *fold)
{
	int realtime = e->min_star || e->hour_star;

	if (*gap == TZ_GAP_AUTO)
		*gap = realtime ? TZ_GAP_SKIP : TZ_GAP_SHIFT;
	if (*fold == TZ_FOLD_AUTO)
		*fold = realtime ? TZ_FOLD_BOTH : TZ_FOLD_FIRST;
}

/*
 * Whether instant c, an occurrence of nominal local time m inside period
 * p, fires under the fold policy.  Only instants near a transition can
 * share their local time with another instant.
 */
static int
cronexpr_fold_ok(const struct tz *z, const struct tz_period *p, int64_t m,
    int64_t c, enum tz_fold fold)
{
	int64_t	occ[TZ_OCC_MAX];
	int32_t	span = tz_offset_span(z);
	int	n;

	if (fold == TZ_FOLD_BOTH)
		return 1;
	if ((p->start == TZ_TIME_MIN || c - p->start > span) &&
	    (p->end == TZ_TIME_MAX || p->end - c > span))
		return 1;
	n = tz_local_to_utc(z, m, occ, NULL);
	if (n <= 1)
		return 1;
	return c == (fold == TZ_FOLD_SECOND ? occ[n - 1] : occ[0]);
}

/*
 * Whether the gap between periods p and q (q starts where p ends) holds a
 * nominal time of the expression; those fire at q's start under the shift
 * policy.  A time that exists in some other period is not in the gap.
 */
static int
cronexpr_gap_fires(const struct cronexpr *e, const struct tz *z,
    const struct tz_period *p, const struct tz_period *q)
{
	int64_t	lo, hi, m, occ[TZ_OCC_MAX];

	if (q->utoff <= p->utoff)
		return 0;
	lo = q->start + p->utoff;
	hi = q->start + q->utoff;
	while (cronexpr_local_next(e, lo, hi, &m) == 0) {
		if (tz_local_to_utc(z, m, occ, NULL) == 0)
			return 1;
		lo = m + 1;
	}
	return 0;
}

/*
 * The first instant strictly after `after` at which the expression fires
 * in zone z under the gap and fold policies (AUTO: cronexpr_policy).
 * Returns 0 with *out set, or -1 if none exists before year 10000.
 */
int
cronexpr_next(const struct cronexpr *e, const struct tz *z, enum tz_gap gap,
    enum tz_fold fold, int64_t after, int64_t *out)
{
	struct tz_period	p, q;
	int64_t			t, lo, hi, m;

	if (e->reboot || after >= CRONEXPR_TIME_LIMIT)
		return -1;
	cronexpr_policy(e, &gap, &fold);
	t = after < -CRONEXPR_TIME_LIMIT ? -CRONEXPR_TIME_LIMIT : after + 1;
	tz_period_at(z, t, &p);

	/* Starting exactly at a transition: the gap before it counts. */
	if (gap == TZ_GAP_SHIFT && t == p.start && p.start != TZ_TIME_MIN) {
		tz_period_at(z, p.start - 1, &q);
		if (cronexpr_gap_fires(e, z, &q, &p)) {
			*out = p.start;
			return 0;
		}
	}
	for (;;) {
		/* Matches inside period p, from instant t on. */
		lo = t + p.utoff;
		hi = (p.end < CRONEXPR_TIME_LIMIT ? p.end :
		    CRONEXPR_TIME_LIMIT) + p.utoff;
		if (hi > CRONEXPR_TIME_LIMIT)	/* local time has a limit too */
			hi = CRONEXPR_TIME_LIMIT;
		while (cronexpr_local_next(e, lo, hi, &m) == 0) {
			if (cronexpr_fold_ok(z, &p, m, m - p.utoff, fold)) {
				*out = m - p.utoff;
				return 0;
			}
			lo = m + 1;
		}
		if (p.end >= CRONEXPR_TIME_LIMIT)
			return -1;

		/* Then the gap, if any, up to the next period. */
		tz_period_at(z, p.end, &q);
		if (gap == TZ_GAP_SHIFT && cronexpr_gap_fires(e, z, &p, &q)) {
			*out = p.end;
			return 0;
		}
		t = p.end;
		p = q;
	}
}

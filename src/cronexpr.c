/*
 * cronexpr.c -- parse cron expressions and find their firing instants.
 *
 * Two dialects (cronexpr_opts): cron (5 or 6 fields, Vixie's day rule,
 * Jenkins' H resolved at parse time from the job id's hash) and Quartz
 * 2.3 (6 or 7 fields, days of the week 1-7 from Sunday, wrapping ranges,
 * exactly one day field '?', L-n, nW, LW, years 1970-2099).  Input that
 * Quartz silently misreads ("5X", "1W,15W") is refused, and its bugs
 * (31W in April, 0W) are not copied: tickd.job(5) lists the departures,
 * tests/unit/test_cronexpr_quartz.c checks the rest against Quartz.
 *
 * An expression is kept as one bit set per field plus the day-of-month
 * and day-of-week extensions (L, L-n, nW, nL, n#k).  Finding the next
 * instant works in two layers:
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
 * day in a 400-year Gregorian cycle (which repeats weekdays exactly), or
 * in the years it names, is rejected at parse time, so searches always
 * end; one whose years are past is valid and has no next instant (a
 * file's validity must not depend on the day it is read).
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
#include "mix.h"
#include "tz.h"
#include "xmalloc.h"

#define CRONEXPR_FIELDS_MAX	7
#define CRONEXPR_TOKEN_SHOWN	40	/* longest token quoted in errors */
#define CRONEXPR_YEAR_MIN	1970	/* Quartz's documented year range */
#define CRONEXPR_YEAR_MAX	2099
#define CRONEXPR_QUARTZ_HINT	"is not supported in cron dialect; use " \
				"cron_dialect = quartz"

struct cronexpr {
	uint64_t	 sec;		/* bit n: second n */
	uint64_t	 min;
	uint64_t	 year[3];	/* bit n: year 1970 + n; all 0: any */
	uint32_t	 hour;
	uint32_t	 dom;		/* bits 1-31 */
	uint16_t	 month;		/* bits 1-12 */
	uint8_t		 dow;		/* bits 0-6, Sunday = 0 */
	uint8_t		 dow_last;	/* nL: last weekday n of the month */
	uint8_t		 dow_nth[5];	/* n#k: bit n of dow_nth[k - 1] */
	uint8_t		 dom_off;	/* L-n: n days before the last */
	int8_t		 dom_w;		/* nW: n; -1: LW or L-nW; 0: none */
	unsigned	 dom_last : 1;	/* L or L-n: last day (minus dom_off) */
	unsigned	 dom_star : 1;	/* text begins with '*' or is '?' */
	unsigned	 dow_star : 1;
	unsigned	 dom_any : 1;	/* '?' */
	unsigned	 dow_any : 1;
	unsigned	 min_star : 1;
	unsigned	 hour_star : 1;
	unsigned	 seconds : 1;	/* six fields */
	unsigned	 quartz : 1;
	unsigned	 reboot : 1;	/* @reboot: no instants */
	char		*resolved;	/* with H replaced by values, or NULL */
	char		*text;		/* text_buf: one allocation */
	char		 text_buf[];
};

enum cronexpr_field {
	F_SEC, F_MIN, F_HOUR, F_DOM, F_MONTH, F_DOW, F_YEAR
};

static const struct {
	const char	*name;
	int		 lo, hi;
	int		 qstep;		/* Quartz's largest step after * or n */
} cronexpr_fields[] = {
	{ "second", 0, 59, 59 },
	{ "minute", 0, 59, 59 },
	{ "hour", 0, 23, 23 },
	{ "day-of-month", 1, 31, 31 },
	{ "month", 1, 12, 12 },
	{ "day-of-week", 0, 7, 7 },
	{ "year", CRONEXPR_YEAR_MIN, CRONEXPR_YEAR_MAX, 0 },
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
	const struct cronexpr_opts *opts;
	int			 quartz;
	int			 nitems;	/* items in the whole field */
	int			 index;		/* this item's */
	int			 lo, hi;	/* the field's range */
	int			 want_res;	/* the text may have H */
	char			*res;		/* resolved text so far */
	int			 nh;		/* H items resolved */
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

/* Read up to 9 digits' worth of a number; the count of digits read. */
static int
cronexpr_digits(const char **sp, const char *end, long *out)
{
	const char	*s = *sp;
	long		 v = 0;
	int		 digits = 0;

	while (s < end && *s >= '0' && *s <= '9') {
		if (digits++ < 9)
			v = v * 10 + (*s - '0');
		s++;
	}
	*out = v;
	*sp = s;
	return digits;
}

/*
 * Read a value: digits, or a month or weekday name where the field has
 * names (Quartz numbers weekdays 1-7 from Sunday, cron 0-7).  Advances
 * *sp; *named says whether it was a name.  Returns 0, or -1 with the
 * cause set.
 */
static int
cronexpr_value(struct cronexpr_pf *pf, const char **sp, const char *end,
    int *out, int *named)
{
	const char		*s = *sp;
	const char *const	*names = NULL;
	size_t			 nnames = 0, i;
	long			 v;
	int			 digits;

	*named = 0;
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
			    (end - s == 3 || !isalpha((unsigned char)s[3]) ||
			    (pf->quartz && pf->f == F_DOW && end - s == 4 &&
			    (s[3] == 'L' || s[3] == 'l'))))	/* FRIL */
				break;
		}
		if (i == nnames)
			return cronexpr_perr(pf, "is not a valid %s",
			    nnames ? "name" : "number");
		*out = (int)i + (pf->f == F_MONTH || pf->quartz);
		*named = 1;
		*sp = s + 3;
		return 0;
	}
	if ((digits = cronexpr_digits(&s, end, &v)) == 0)
		return cronexpr_perr(pf, "is not a valid number");
	if (digits > 9 || v < pf->lo || v > pf->hi)
		return cronexpr_perr(pf, "is out of range %d-%d", pf->lo,
		    pf->hi);
	*out = (int)v;
	*sp = s;
	return 0;
}

/*
 * Read a step after '/': a positive number; under Quartz no larger than
 * Quartz allows after '*' or a single value (limit, 0 for none).
 */
static int
cronexpr_step(struct cronexpr_pf *pf, const char **sp, const char *end,
    int limit, int *out)
{
	long	 v;
	int	 digits;

	if ((digits = cronexpr_digits(sp, end, &v)) == 0)
		return cronexpr_perr(pf, "has no step after '/'");
	if (v < 1)
		return cronexpr_perr(pf, "step must be at least 1");
	if (digits > 9)
		return cronexpr_perr(pf, "step is too large");
	if (pf->quartz && limit > 0 && v > limit)
		return cronexpr_perr(pf, "step must be at most %d", limit);
	*out = (int)v;
	return 0;
}

/*
 * Set values lo..hi by step in bits; a range whose end is below its
 * start wraps through the field's maximum (Quartz's 22-2, FRI-MON).
 * Day-of-week values become bits 0-6 from Sunday.
 */
static void
cronexpr_set(struct cronexpr_pf *pf, uint64_t *bits, int lo, int hi,
    int step)
{
	int	flo = pf->lo, size = pf->hi - pf->lo + 1, v, w;

	if (pf->f == F_DOW && !pf->quartz)
		size = 7;		/* 0-7: 7 is Sunday again */
	if (hi < lo)
		hi += size;
	for (v = lo; v <= hi; v += step) {
		w = flo + (v - flo) % size;
		if (pf->f == F_DOW)
			w = pf->quartz ? w - 1 : w % 7;
		else if (pf->f == F_YEAR)
			w -= CRONEXPR_YEAR_MIN;
		bits[w / 64] |= UINT64_C(1) << (w % 64);
	}
}

/* Append fmt to the resolved text. */
static void
cronexpr_res(struct cronexpr_pf *pf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
cronexpr_res(struct cronexpr_pf *pf, const char *fmt, ...)
{
	va_list	 ap;
	char	*more, *all;

	if (!pf->want_res)
		return;
	va_start(ap, fmt);
	more = xvasprintf(fmt, ap);
	va_end(ap);
	all = xasprintf("%s%s", pf->res != NULL ? pf->res : "", more);
	free(more);
	free(pf->res);
	pf->res = all;
}

/*
 * Jenkins' H, H(a-b), H/n, H(a-b)/n: one value of the range from the
 * job's hash, or every n-th from lo + hash mod n.  Like Jenkins, a bare
 * H picks day-of-month 1-28 and day-of-week 0-6.  Each field (and list
 * item) gets its own value.
 */
static int
cronexpr_hash_item(struct cronexpr_pf *pf, uint64_t *bits)
{
	const char	*s = pf->item + 1, *end = pf->item + pf->itemlen;
	uint64_t	 h;
	int		 lo = pf->lo, hi = pf->hi, step = 0, named, v;

	if (pf->quartz)
		return cronexpr_perr(pf, "H is Jenkins' cron syntax: it needs "
		    "cron_dialect = cron");
	if (!pf->opts->hash_set)
		return cronexpr_perr(pf, "H needs a job id: its value is a "
		    "hash of the id (tickctl next --id JOB_ID)");
	if (pf->f == F_DOM)
		hi = 28;
	else if (pf->f == F_DOW)
		hi = 6;
	if (s < end && *s == '(') {
		s++;
		if (cronexpr_value(pf, &s, end, &lo, &named) == -1)
			return -1;
		if (s == end || *s++ != '-')
			return cronexpr_perr(pf, "needs H(LOW-HIGH)");
		if (cronexpr_value(pf, &s, end, &hi, &named) == -1)
			return -1;
		if (s == end || *s++ != ')')
			return cronexpr_perr(pf, "needs H(LOW-HIGH)");
		if (hi < lo)
			return cronexpr_perr(pf, "range start %d is after its "
			    "end %d", lo, hi);
	}
	if (s < end && *s == '/') {
		s++;
		if (cronexpr_step(pf, &s, end, 0, &step) == -1)
			return -1;
		if (step > hi - lo + 1)
			return cronexpr_perr(pf, "step %d is larger than the "
			    "range %d-%d", step, lo, hi);
	}
	if (s != end)
		return cronexpr_perr(pf, "has unexpected text \"%.*s\"",
		    (int)(end - s > CRONEXPR_TOKEN_SHOWN ?
		    CRONEXPR_TOKEN_SHOWN : end - s), s);
	h = mix64(pf->opts->hash + UINT64_C(0x9e3779b97f4a7c15) *
	    (uint64_t)(pf->f * 64 + pf->index + 1));
	if (step == 0) {
		v = lo + (int)(h % (uint64_t)(hi - lo + 1));
		cronexpr_set(pf, bits, v, v, 1);
		cronexpr_res(pf, "%d", v);
	} else {
		v = lo + (int)(h % (uint64_t)step);
		cronexpr_set(pf, bits, v, hi, step);
		cronexpr_res(pf, "%d-%d/%d", v, hi, step);
	}
	pf->nh++;
	return 0;
}

/*
 * Quartz's L forms in day-of-month: L, L-n (n <= 30), LW, L-nW.  Cron
 * knows only L.
 */
static int
cronexpr_dom_last(struct cronexpr_pf *pf, struct cronexpr *e)
{
	const char	*s = pf->item + 1, *end = pf->item + pf->itemlen;
	long		 v = 0;
	int		 n;

	if (s < end && *s == '-') {
		s++;
		if ((n = cronexpr_digits(&s, end, &v)) == 0 || n > 9 ||
		    v > 30)
			return cronexpr_perr(pf, "needs an offset 0-30 after "
			    "'L-'");
	}
	if (s < end && (*s == 'W' || *s == 'w')) {
		s++;
		e->dom_w = -1;
	}
	if (s != end)
		return cronexpr_perr(pf, "has unexpected text after 'L'");
	if (!pf->quartz && (e->dom_w || pf->itemlen > 1))
		return cronexpr_perr(pf, "%s " CRONEXPR_QUARTZ_HINT,
		    e->dom_w ? "W" : "L-n");
	if (pf->quartz && pf->nitems > 1)
		return cronexpr_perr(pf, "must be alone in its field (Quartz "
		    "does not combine L with other days)");
	e->dom_off = (uint8_t)v;
	e->dom_last = !e->dom_w;
	return 0;
}

/*
 * Parse one list item of a field into bits (and the extension fields of
 * e for day-of-month and day-of-week).
 */
static int
cronexpr_item(struct cronexpr_pf *pf, struct cronexpr *e, uint64_t *bits)
{
	const char	*s = pf->item, *end = pf->item + pf->itemlen;
	int		 lo, hi, step = 1, k, range = 0, named, named2;
	int		 alone = pf->quartz && pf->nitems > 1;

	if (*s == 'H' || *s == 'h')
		return cronexpr_hash_item(pf, bits);
	cronexpr_res(pf, "%.*s", (int)pf->itemlen, pf->item);
	if (pf->f == F_DOM && (*s == 'L' || *s == 'l'))
		return cronexpr_dom_last(pf, e);
	if (pf->quartz && pf->f == F_DOW && pf->itemlen == 1 &&
	    (*s == 'L' || *s == 'l')) {
		if (alone)
			return cronexpr_perr(pf, "must be alone in its field "
			    "(Quartz does not combine L with other days)");
		e->dow |= 1 << 6;	/* Quartz: L alone is 7, Saturday */
		return 0;
	}
	if (*s == '*' || (pf->quartz && *s == '/')) {
		if (*s == '*')
			s++;
		lo = pf->lo;
		hi = pf->hi;
		if (s < end && *s != '/')
			return cronexpr_perr(pf, "is not valid after '*'");
		if (s < end) {
			s++;
			if (cronexpr_step(pf, &s, end,
			    cronexpr_fields[pf->f].qstep, &step) == -1)
				return -1;
		}
	} else {
		if (cronexpr_value(pf, &s, end, &lo, &named) == -1)
			return -1;
		hi = lo;
		if (pf->f == F_DOW && s < end && (*s == 'L' || *s == 'l')) {
			if (s + 1 != end)
				return cronexpr_perr(pf,
				    "has text after 'L'");
			if (alone)
				return cronexpr_perr(pf, "must be alone in its "
				    "field (Quartz does not combine L with "
				    "other days)");
			e->dow_last |= 1 << (pf->quartz ? lo - 1 : lo % 7);
			return 0;
		}
		if (pf->f == F_DOW && s < end && *s == '#') {
			s++;
			if (s + 1 != end || *s < '1' || *s > '5')
				return cronexpr_perr(pf,
				    "needs a week number 1-5 after '#'");
			if (alone)
				return cronexpr_perr(pf, "must be alone in its "
				    "field (Quartz keeps one n#k and misreads "
				    "the rest)");
			k = *s - '0';
			e->dow_nth[k - 1] |= 1 << (pf->quartz ? lo - 1 :
			    lo % 7);
			return 0;
		}
		if (pf->f == F_DOM && s < end && (*s == 'W' || *s == 'w')) {
			if (!pf->quartz)
				return cronexpr_perr(pf,
				    "W " CRONEXPR_QUARTZ_HINT);
			if (s + 1 != end)
				return cronexpr_perr(pf, "has text after 'W'");
			if (alone)
				return cronexpr_perr(pf, "must be alone in its "
				    "field (Quartz keeps one nW and misreads "
				    "the rest)");
			e->dom_w = (int8_t)lo;
			return 0;
		}
		if (s < end && *s == '-') {
			s++;
			range = 1;
			if (cronexpr_value(pf, &s, end, &hi, &named2) == -1)
				return -1;
			if (pf->quartz && named != named2)
				return cronexpr_perr(pf, "mixes a name and a "
				    "number");
			if (hi < lo && (!pf->quartz || pf->f == F_YEAR))
				return cronexpr_perr(pf,
				    "range start %d is after its end %d",
				    lo, hi);
		}
		if (s < end && *s == '/') {
			if (pf->quartz && named)
				return cronexpr_perr(pf, "has a step after a "
				    "name, which Quartz ignores");
			s++;
			/* A/S runs through the maximum; A-A/S is just A. */
			if (!range)
				hi = pf->hi;
			if (cronexpr_step(pf, &s, end, range ? 0 :
			    cronexpr_fields[pf->f].qstep, &step) == -1)
				return -1;
		}
	}
	if (s != end) {
		if (!pf->quartz && (*s == 'W' || *s == 'w'))
			return cronexpr_perr(pf, "W " CRONEXPR_QUARTZ_HINT);
		return cronexpr_perr(pf, "has unexpected text \"%.*s\"",
		    (int)(end - s > CRONEXPR_TOKEN_SHOWN ?
		    CRONEXPR_TOKEN_SHOWN : end - s), s);
	}
	cronexpr_set(pf, bits, lo, hi, step);
	return 0;
}

/* Parse one whole field (a comma list) of text [s, end). */
static int
cronexpr_field(struct cronexpr *e, struct cronexpr_pf *pf,
    enum cronexpr_field f, const char *s, const char *end)
{
	uint64_t	 bits[3] = { 0, 0, 0 };
	const char	*comma, *field = s, *p;

	pf->f = f;
	pf->item = s;
	pf->itemlen = (size_t)(end - s);
	pf->lo = cronexpr_fields[f].lo;
	pf->hi = cronexpr_fields[f].hi;
	if (f == F_DOW && pf->quartz) {
		pf->lo = 1;
		pf->hi = 7;
	}
	if (pf->res != NULL)
		cronexpr_res(pf, " ");
	pf->nitems = 1;
	for (p = s; p < end; p++)
		pf->nitems += *p == ',';
	if (end - s == 1 && *s == '?') {
		if (f != F_DOM && f != F_DOW)
			return cronexpr_perr(pf,
			    "'?' is only allowed in the day fields");
		cronexpr_res(pf, "?");
		if (f == F_DOM)
			e->dom_any = e->dom_star = 1;
		else
			e->dow_any = e->dow_star = 1;
		cronexpr_set(pf, bits, pf->lo, pf->hi, 1);
		goto store;
	} else if (pf->quartz && memchr(s, '?', (size_t)(end - s)) != NULL)
		return cronexpr_perr(pf, "'?' must be the whole field");
	if (f == F_DOM)
		e->dom_star = *s == '*';
	else if (f == F_DOW)
		e->dow_star = *s == '*';
	else if (f == F_MIN)
		e->min_star = *s == '*';
	else if (f == F_HOUR)
		e->hour_star = *s == '*';

	for (pf->index = 0;; pf->index++) {
		comma = memchr(s, ',', (size_t)(end - s));
		pf->item = s;
		pf->itemlen = (size_t)((comma ? comma : end) - s);
		if (pf->itemlen == 0) {
			/* No item to quote: quote the whole field. */
			pf->item = field;
			pf->itemlen = (size_t)(end - field);
			return cronexpr_perr(pf, "has an empty list item");
		}
		if (pf->index > 0)
			cronexpr_res(pf, ",");
		if (cronexpr_item(pf, e, bits) == -1)
			return -1;
		if (comma == NULL)
			break;
		s = comma + 1;
	}

store:
	switch (f) {
	case F_SEC:
		e->sec = bits[0];
		break;
	case F_MIN:
		e->min = bits[0];
		break;
	case F_HOUR:
		e->hour = (uint32_t)bits[0];
		break;
	case F_DOM:
		e->dom = (uint32_t)bits[0];
		break;
	case F_MONTH:
		e->month = (uint16_t)bits[0];
		break;
	case F_DOW:
		e->dow |= (uint8_t)bits[0];
		break;
	case F_YEAR:
		memcpy(e->year, bits, sizeof e->year);
		break;
	}
	return 0;
}

/*
 * The day of month m of year y named by L-n (dom_last) or by nW, LW or
 * L-nW (dom_w) after Quartz's nearest-weekday rule (a Saturday moves to
 * the Friday before, a Sunday to the Monday after, never out of the
 * month); 0 when the month lacks the day (31W in April, L-30 in June).
 */
static int
cronexpr_special_day(const struct cronexpr *e, int64_t y, int m, int dim)
{
	int	n = e->dom_w > 0 ? e->dom_w : dim - e->dom_off, wd;

	if (n < 1 || n > dim)
		return 0;
	if (e->dom_w == 0)
		return n;
	wd = civil_weekday(civil_days_from_date(y, m, n));
	if (wd == 6)
		return n == 1 ? 3 : n - 1;
	if (wd == 0)
		return n == dim ? n - 2 : n + 1;
	return n;
}

/* Whether the expression names years (Quartz's seventh field). */
static int
cronexpr_has_years(const struct cronexpr *e)
{
	return (e->year[0] | e->year[1] | e->year[2]) != 0;
}

/* The first year from y on that the year field names, or -1. */
static int64_t
cronexpr_year_from(const struct cronexpr *e, int64_t y)
{
	int64_t	i;

	if (!cronexpr_has_years(e))
		return y;
	for (i = y < CRONEXPR_YEAR_MIN ? 0 : y - CRONEXPR_YEAR_MIN;
	    i <= CRONEXPR_YEAR_MAX - CRONEXPR_YEAR_MIN; i++) {
		if (e->year[i / 64] >> (i % 64) & 1)
			return CRONEXPR_YEAR_MIN + i;
	}
	return -1;
}

/*
 * The last year the expression can fire in (its year field's last), or
 * 0 when it names no years.
 */
int
cronexpr_last_year(const struct cronexpr *e)
{
	int	i;

	for (i = CRONEXPR_YEAR_MAX - CRONEXPR_YEAR_MIN; i >= 0 &&
	    cronexpr_has_years(e); i--) {
		if (e->year[i / 64] >> (i % 64) & 1)
			return CRONEXPR_YEAR_MIN + i;
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

	dom = e->dom & all;
	if (e->dom_last || e->dom_w)
		dom |= (UINT64_C(1) << cronexpr_special_day(e, y, m, dim)) &
		    all;
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
		/* Year (Quartz): the next one named, at its first day. */
		if ((t = cronexpr_year_from(e, y)) != y) {
			if (t == -1)
				return -1;
			y = t;
			m = d = 1;
			h = mi = s = 0;
		}
		/* Month: jump to the next matching one, at its first day. */
		if ((v = cronexpr_bit_from(e->month, m)) != m) {
			if (v == -1) {
				y++;
				m = d = 1;
				h = mi = s = 0;
				continue;
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

/* Whether local time (civil seconds) matches every field. */
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
	dom = (e->dom >> c.day & 1) || ((e->dom_last || e->dom_w) &&
	    c.day == cronexpr_special_day(e, c.year, c.month, dim));
	if (cronexpr_year_from(e, c.year) != c.year)
		return 0;
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

/*
 * Whether any day matches the day fields: in a whole 400-year cycle, or
 * in the years named.  Years already past still count: whether an
 * expression is valid must not depend on the day it is read.
 */
static int
cronexpr_fires(const struct cronexpr *e)
{
	int64_t	y, y0 = 2000, y1 = 2400;
	int	m;

	if (cronexpr_has_years(e)) {
		y0 = CRONEXPR_YEAR_MIN;
		y1 = CRONEXPR_YEAR_MAX + 1;
	}
	for (y = y0; y < y1; y++) {
		if (cronexpr_year_from(e, y) != y)
			continue;
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
cronexpr_parse(const char *text, const struct cronexpr_opts *opts,
    char **cause)
{
	static const struct cronexpr_opts cron = { CRONEXPR_CRON, 0, 0 };
	struct cronexpr_pf pf;
	struct cronexpr	*e;
	const char	*s, *start[CRONEXPR_FIELDS_MAX + 1];
	const char	*end[CRONEXPR_FIELDS_MAX + 1];
	char		*trimmed;
	size_t		 len, i;
	int		 n = 0, f0;

	memset(&pf, 0, sizeof pf);
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
	if (opts == NULL)
		opts = &cron;
	e->quartz = opts->dialect == CRONEXPR_QUARTZ;
	if (trimmed[0] == '@' && e->quartz) {
		*cause = xasprintf("\"%.*s\": macros are cron dialect; Quartz "
		    "has none (e.g. \"0 0 0 * * ?\" for @daily)",
		    CRONEXPR_TOKEN_SHOWN, trimmed);
		goto fail;
	}
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
	if (e->quartz && n != 6 && n != 7) {
		*cause = xasprintf("expected 6 fields (second minute hour "
		    "day-of-month month day-of-week) or 7 (with a year) in "
		    "Quartz dialect, found %d%s", n, n == 5 ? " (five fields "
		    "are cron: cron_dialect = cron)" : "");
		goto fail;
	}
	if (!e->quartz && n != 5 && n != 6) {
		*cause = xasprintf("expected 5 fields (minute hour day-of-month"
		    " month day-of-week) or 6 (with seconds first), found %d%s",
		    n, n == 7 ? " (seven fields with a year are Quartz's: use "
		    "cron_dialect = quartz)" : "");
		goto fail;
	}

	e->seconds = n >= 6;
	if (!e->seconds)
		e->sec = 1;		/* second 0 */
	f0 = e->seconds ? F_SEC : F_MIN;
	pf.cause = cause;
	pf.opts = opts;
	pf.quartz = e->quartz;
	pf.want_res = strpbrk(text, "Hh") != NULL;
	for (i = 0; i < (size_t)n; i++) {
		if (cronexpr_field(e, &pf, (enum cronexpr_field)(f0 + (int)i),
		    start[i], end[i]) == -1)
			goto fail;
	}
	if (pf.nh > 0) {
		e->resolved = pf.res;
		pf.res = NULL;
	}
	free(pf.res);
	pf.res = NULL;
	if (e->quartz && e->dom_any == e->dow_any) {
		*cause = xasprintf("exactly one of day-of-month and "
		    "day-of-week must be '?' in Quartz dialect (%s)",
		    e->dom_any ? "both are" : "e.g. \"0 0 12 ? * MON\" or "
		    "\"0 0 12 1 * ?\"");
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
	free(pf.res);
	cronexpr_free(e);
	return NULL;
}

/*
 * For a cron-dialect expression whose day-of-week has a number with L or
 * # ("6L", "5#3"), which Quartz reads one day earlier: an allocated note
 * naming the day it means, else NULL.
 */
char *
cronexpr_dow_note(const struct cronexpr *e)
{
	static const char *const days[] = { "Sunday", "Monday", "Tuesday",
	    "Wednesday", "Thursday", "Friday", "Saturday" };
	static const char *const nth[] = { "first", "second", "third",
	    "fourth", "fifth" };
	const char	*s = e->text, *f = NULL, *fe, *p;
	long		 v;
	int		 n = 0, k;

	if (e->quartz || e->reboot || *s == '@')
		return NULL;
	/* The day-of-week field: the last one. */
	while (*s != '\0') {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			break;
		f = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
		n++;
	}
	if (f == NULL || n < 5)
		return NULL;
	fe = f + strcspn(f, " \t");
	for (p = f; p < fe; p += strcspn(p, ","), p += *p == ',') {
		s = p;
		if (cronexpr_digits(&s, fe, &v) == 0 || v > 7 || s >= fe)
			continue;
		if (*s == 'L' || *s == 'l')
			return xasprintf("%.*s means the last %s under cron "
			    "(0-7 from Sunday); under cron_dialect = quartz it "
			    "would be %s", (int)(s + 1 - p), p, days[v % 7],
			    v == 0 ? "invalid" : days[v - 1]);
		if (*s == '#' && s[1] >= '1' && s[1] <= '5') {
			k = s[1] - '1';
			return xasprintf("%.*s means the %s %s under cron (0-7 "
			    "from Sunday); under cron_dialect = quartz it would "
			    "be the %s %s", (int)(s + 2 - p), p, nth[k],
			    days[v % 7], nth[k], v == 0 ? "(invalid)" :
			    days[v - 1]);
		}
	}
	return NULL;
}

/* Free an expression; NULL is allowed. */
void
cronexpr_free(struct cronexpr *e)
{
	if (e == NULL)
		return;
	free(e->resolved);
	free(e);
}

/*
 * The text with Jenkins' H replaced by the values it stands for
 * ("17 3 * * *" for "H H * * *"), or NULL when it has no H.
 */
const char *
cronexpr_resolved(const struct cronexpr *e)
{
	return e->resolved;
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
	int64_t			t, lo, hi, m, y_end = 0;

	if (e->reboot || after >= CRONEXPR_TIME_LIMIT)
		return -1;
	if (cronexpr_last_year(e) != 0)
		y_end = civil_days_from_date(cronexpr_last_year(e) + 1, 1, 1) *
		    CIVIL_SECS_PER_DAY;
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
		if (y_end != 0 && lo >= y_end)
			return -1;	/* its last year is over */
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

/*
 * test_cronexpr_prop.c -- property test: cronexpr_next against brute force.
 *
 * Thousands of random expressions, each generated together with a model of
 * what it means (the set of values of every field, the L, nL and n#k
 * extensions, which fields begin with '*'), written from the syntax rules
 * rather than read back through the parser.  Each runs in a random fixture
 * zone (fat or slim TZif, or the built-in UTC) under a random gap and fold
 * policy, from a random starting instant biased toward DST transitions and
 * toward the year-10000 limit.  The first K instants of cronexpr_next are
 * compared with a brute-force scan of the PROP_BOUND seconds after the
 * start:
 *
 *   - it walks UTC instants in order through tz_to_local, visiting every
 *     instant whose local time the model matches (it skips only stretches
 *     of one offset with no match, an hour at most, and finds each change
 *     of offset on the way by bisection);
 *   - fold: a matching local time fires at instant T unless another
 *     instant within +-26 hours has the same local time (tried for each
 *     offset the zone uses) and the policy wants the other pass (FIRST:
 *     an earlier one exists; SECOND: a later one);
 *   - gap: where the local clock jumps forward at T, any matching local
 *     time in [local(T - 1) + 1, local(T)) that no instant within +-26 hours
 *     has fires at T under SHIFT, not at all under SKIP;
 *   - AUTO resolves from the minute and hour text; one instant fires once;
 *     nothing at or after year 10000, local or UTC.
 *
 * When the fast answer lies beyond the bound, the brute force must have
 * found nothing more within it.  Expressions the parser rejects must never
 * fire by the model (a 400-year scan).  On the way: cronexpr_match_local
 * and cronexpr_policy against the model, and the fat and slim copies of
 * the zone against each other (the slim one runs on the footer rule).
 *
 * TICKD_PROP_SEED reproduces a run (the seed is printed first);
 * TICKD_PROP_CASES sets the number of cases.  Figures go to stdout.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "civil.h"
#include "cronexpr.h"
#include "rfc3339.h"
#include "tz.h"

#include "t.h"

#if defined(__SANITIZE_ADDRESS__)
#define PROP_SANITIZED	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROP_SANITIZED	1
#endif
#endif

#ifdef PROP_SANITIZED
#define PROP_CASES	12000		/* under AddressSanitizer */
#else
#define PROP_CASES	50000
#endif
#define PROP_K_MAX	5		/* instants compared per case */
#define PROP_BOUND	(8 * INT64_C(86400))	/* brute-force span */
#define PROP_WINDOW	(26 * INT64_C(3600))	/* fold search radius */
#define PROP_FAILS_SHOWN 10
#define PROP_TEXT_MAX	200
#define PROP_OFFS_MAX	32

enum prop_field {
	P_SEC, P_MIN, P_HOUR, P_DOM, P_MON, P_DOW, P_NFIELDS
};

static const int prop_lo[P_NFIELDS] = { 0, 0, 0, 1, 1, 0 };
static const int prop_hi[P_NFIELDS] = { 59, 59, 23, 31, 12, 7 };

static const char *const prop_zones[] = {
	"America/New_York", "America/Los_Angeles", "America/Sao_Paulo",
	"America/Havana", "America/Santiago", "America/St_Johns",
	"Europe/Berlin", "Europe/London", "Europe/Dublin",
	"Australia/Lord_Howe", "Australia/Sydney", "Pacific/Apia",
	"Pacific/Chatham", "Asia/Kolkata", "Asia/Kathmandu", "Asia/Tehran",
	"Asia/Tokyo", "Africa/Casablanca", "Antarctica/Troll", "Etc/UTC",
};
#define PROP_NZONES	(sizeof prop_zones / sizeof prop_zones[0])

static const char *const prop_months[] = {
	"jan", "feb", "mar", "apr", "may", "jun",
	"jul", "aug", "sep", "oct", "nov", "dec"
};
static const char *const prop_days[] = {
	"sun", "mon", "tue", "wed", "thu", "fri", "sat"
};

/* What an expression means, built alongside its text. */
struct prop_model {
	char		text[PROP_TEXT_MAX];
	uint64_t	bits[P_NFIELDS];	/* dow: bits 0-6 */
	unsigned	dow_last;		/* nL: bit n */
	unsigned	dow_nth[5];		/* n#k: bit n of [k - 1] */
	int		dom_last;
	int		star[P_NFIELDS];	/* starts with * or is ? */
	int		seconds;
};

/* One zone of the test, loaded once. */
struct prop_zone {
	const struct tz	*z;
	const char	*name;
	const char	*kind;		/* "fat", "slim", "builtin" */
	size_t		 twin;		/* the other kind, or -1 */
	int32_t		 offs[PROP_OFFS_MAX];	/* its offsets */
	size_t		 noffs;
};

/* Counters printed at the end. */
struct prop_stats {
	long	cases, rejected, compared, beyond, none, fails;
	long	near_transition, seconds;
};

/* --- random numbers ------------------------------------------------------ */

/* splitmix64: small, fast, and the same sequence everywhere. */
static uint64_t
prop_rand(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* A uniform integer in [lo, hi]. */
static int64_t
prop_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(prop_rand(s) % (uint64_t)(hi - lo + 1));
}

/* True with probability pct percent. */
static int
prop_chance(uint64_t *s, int pct)
{
	return (int)(prop_rand(s) % 100) < pct;
}

/* --- expression generator ------------------------------------------------ */

/* Append formatted text to the model's text. */
static void
prop_cat(struct prop_model *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
prop_cat(struct prop_model *m, const char *fmt, ...)
{
	va_list	ap;
	size_t	len = strlen(m->text);

	va_start(ap, fmt);
	(void)vsnprintf(m->text + len, sizeof m->text - len, fmt, ap);
	va_end(ap);
}

/* Write a value of field f, as a name (in random case) now and then. */
static void
prop_value(uint64_t *s, struct prop_model *m, enum prop_field f, int v)
{
	const char	*name = NULL;
	char		 buf[4];
	int		 i, style;

	if (f == P_MON && prop_chance(s, 30))
		name = prop_months[v - 1];
	else if (f == P_DOW && v < 7 && prop_chance(s, 30))
		name = prop_days[v];
	if (name == NULL) {
		prop_cat(m, "%d", v);
		return;
	}
	style = (int)prop_range(s, 0, 2);	/* lower, upper, capitalised */
	for (i = 0; i < 3; i++) {
		buf[i] = name[i];
		if (style == 1 || (style == 2 && i == 0))
			buf[i] = (char)(buf[i] - 'a' + 'A');
	}
	buf[3] = '\0';
	prop_cat(m, "%s", buf);
}

/* Mark lo..hi by step in field f; day-of-week 7 is Sunday, bit 0. */
static void
prop_set(struct prop_model *m, enum prop_field f, int lo, int hi, int step)
{
	int v;

	for (v = lo; v <= hi; v += step)
		m->bits[f] |= UINT64_C(1) << (f == P_DOW && v == 7 ? 0 : v);
}

/* A step, mostly small. */
static int
prop_step(uint64_t *s, enum prop_field f)
{
	int span = prop_hi[f] - prop_lo[f] + 1;

	if (prop_chance(s, 70))
		return (int)prop_range(s, 1, span < 6 ? span : 6);
	return (int)prop_range(s, 1, span + 2);
}

/* A value of field f, biased toward DST-prone hours and quarter hours. */
static int
prop_pick(uint64_t *s, enum prop_field f)
{
	static const int hours[] = { 0, 1, 2, 3, 23 };
	static const int quarters[] = { 0, 15, 30, 45 };

	if (f == P_HOUR && prop_chance(s, 60))
		return hours[prop_range(s, 0, 4)];
	if ((f == P_MIN || f == P_SEC) && prop_chance(s, 50))
		return quarters[prop_range(s, 0, 3)];
	if (f == P_DOM && prop_chance(s, 20))
		return (int)prop_range(s, 28, 31);
	return (int)prop_range(s, prop_lo[f], prop_hi[f]);
}

/* One list item of field f. */
static void
prop_item(uint64_t *s, struct prop_model *m, enum prop_field f, int first)
{
	int a, b, step, k, r = (int)prop_range(s, 0, 99);

	if (f == P_DOM && r < 8) {
		prop_cat(m, prop_chance(s, 50) ? "L" : "l");
		m->dom_last = 1;
		return;
	}
	if (f == P_DOW && r < 8) {
		a = (int)prop_range(s, 0, 7);
		prop_cat(m, "%d%s", a, prop_chance(s, 50) ? "L" : "l");
		m->dow_last |= 1u << (a % 7);
		return;
	}
	if (f == P_DOW && r < 16) {
		a = (int)prop_range(s, 0, 7);
		k = (int)prop_range(s, 1, 5);
		prop_value(s, m, f, a);
		prop_cat(m, "#%d", k);
		m->dow_nth[k - 1] |= 1u << (a % 7);
		return;
	}
	if (!first && r < 20) {			/* '*' later in a list */
		prop_cat(m, "*");
		prop_set(m, f, prop_lo[f], prop_hi[f], 1);
		return;
	}
	if (r < 45) {				/* N */
		a = prop_pick(s, f);
		prop_value(s, m, f, a);
		prop_set(m, f, a, a, 1);
		return;
	}
	a = prop_pick(s, f);
	b = (int)prop_range(s, a, prop_hi[f]);
	if (r < 65) {				/* A-B */
		prop_value(s, m, f, a);
		prop_cat(m, "-");
		prop_value(s, m, f, b);
		prop_set(m, f, a, b, 1);
		return;
	}
	step = prop_step(s, f);
	if (r < 85) {				/* A-B/S */
		prop_value(s, m, f, a);
		prop_cat(m, "-");
		prop_value(s, m, f, b);
		prop_cat(m, "/%d", step);
		prop_set(m, f, a, b, step);
		return;
	}
	/* A/S: through the maximum. */
	prop_value(s, m, f, a);
	prop_cat(m, "/%d", step);
	prop_set(m, f, a, prop_hi[f], step);
}

/*
 * One field: '*' or '*' with a step (dense), '?' in the day fields, or a
 * list of one to three items.  dense_pct is the chance of the first two.
 */
static void
prop_field(uint64_t *s, struct prop_model *m, enum prop_field f,
    int dense_pct)
{
	int n, i;

	if ((f == P_DOM || f == P_DOW) && prop_chance(s, 5)) {
		prop_cat(m, "?");
		prop_set(m, f, prop_lo[f], prop_hi[f], 1);
		m->star[f] = 1;
		return;
	}
	if (prop_chance(s, dense_pct)) {
		m->star[f] = 1;
		if (prop_chance(s, f >= P_DOM ? 85 : 60)) {
			prop_cat(m, "*");
			prop_set(m, f, prop_lo[f], prop_hi[f], 1);
		} else {
			i = prop_step(s, f);
			prop_cat(m, "*/%d", i);
			prop_set(m, f, prop_lo[f], prop_hi[f], i);
		}
		return;
	}
	n = prop_chance(s, 70) ? 1 : (int)prop_range(s, 2, 3);
	for (i = 0; i < n; i++) {
		if (i > 0)
			prop_cat(m, ",");
		prop_item(s, m, f, i == 0);
	}
}

/* A macro and the fields it stands for (-1: '*'). */
static const struct {
	const char	*name;
	int		 min, hour, dom, mon, dow;
} prop_macros[] = {
	{ "@yearly", 0, 0, 1, 1, -1 },
	{ "@annually", 0, 0, 1, 1, -1 },
	{ "@monthly", 0, 0, 1, -1, -1 },
	{ "@weekly", 0, 0, -1, -1, 0 },
	{ "@daily", 0, 0, -1, -1, -1 },
	{ "@midnight", 0, 0, -1, -1, -1 },
	{ "@hourly", 0, -1, -1, -1, -1 },
};

/* Set a macro's field: one value, or '*'. */
static void
prop_macro_field(struct prop_model *m, enum prop_field f, int v)
{
	if (v == -1) {
		prop_set(m, f, prop_lo[f], prop_hi[f], 1);
		m->star[f] = 1;
	} else
		prop_set(m, f, v, v, 1);
}

/* A random expression and its model. */
static void
prop_generate(uint64_t *s, struct prop_model *m)
{
	enum prop_field	f;
	int		profile, i, dense[P_NFIELDS];

	memset(m, 0, sizeof *m);
	if (prop_chance(s, 4)) {
		i = (int)prop_range(s, 0, sizeof prop_macros /
		    sizeof prop_macros[0] - 1);
		prop_cat(m, "%s", prop_macros[i].name);
		prop_set(m, P_SEC, 0, 0, 1);
		prop_macro_field(m, P_MIN, prop_macros[i].min);
		prop_macro_field(m, P_HOUR, prop_macros[i].hour);
		prop_macro_field(m, P_DOM, prop_macros[i].dom);
		prop_macro_field(m, P_MON, prop_macros[i].mon);
		prop_macro_field(m, P_DOW, prop_macros[i].dow);
		return;
	}

	/*
	 * Profiles: dense (fires every few seconds or minutes), daily (fixed
	 * times, often in DST-prone hours), sparse (restricted days).
	 */
	profile = (int)prop_range(s, 0, 99);
	m->seconds = prop_chance(s, 30);
	dense[P_SEC] = 60;
	dense[P_MIN] = profile < 45 ? 75 : 10;
	dense[P_HOUR] = profile < 45 ? 60 : 10;
	dense[P_DOM] = profile < 80 ? 92 : 40;
	dense[P_MON] = profile < 80 ? 97 : 50;
	dense[P_DOW] = profile < 80 ? 90 : 40;
	for (f = m->seconds ? P_SEC : P_MIN; f < P_NFIELDS; f++) {
		if (f != P_SEC && f != P_MIN)
			prop_cat(m, prop_chance(s, 10) ? " \t " : " ");
		else if (f == P_MIN && m->seconds)
			prop_cat(m, " ");
		prop_field(s, m, f, dense[f]);
	}
	if (!m->seconds)
		prop_set(m, P_SEC, 0, 0, 1);
}

/* --- the model's view of a local time ------------------------------------ */

/* Whether the day of c matches the day fields (OR unless one is '*'). */
static int
prop_day_match(const struct prop_model *m, const struct civil *c)
{
	int dim = civil_days_in_month(c->year, c->month), dom, dow;

	if (!(m->bits[P_MON] >> c->month & 1))
		return 0;
	dom = (m->bits[P_DOM] >> c->day & 1) || (m->dom_last && c->day == dim);
	dow = (m->bits[P_DOW] >> c->wday & 1) ||
	    ((m->dow_last >> c->wday & 1) && c->day + 7 > dim) ||
	    (m->dow_nth[(c->day - 1) / 7] >> c->wday & 1);
	if (m->star[P_DOM] || m->star[P_DOW])
		return dom && dow;
	return dom || dow;
}

/* Whether local time l matches the model. */
static int
prop_match(const struct prop_model *m, int64_t l)
{
	struct civil c;

	civil_split(l, &c);
	return prop_day_match(m, &c) && (m->bits[P_HOUR] >> c.hour & 1) &&
	    (m->bits[P_MIN] >> c.min & 1) && (m->bits[P_SEC] >> c.sec & 1);
}

/*
 * The first local time in [lo, hi) the model matches, trying every second
 * but skipping a whole day, hour or minute that cannot match.  0 and *out
 * set, or -1.
 */
static int
prop_scan(const struct prop_model *m, int64_t lo, int64_t hi, int64_t *out)
{
	struct civil	c;
	int64_t		l = lo, day = INT64_MIN, d;
	int		day_ok = 0;

	if (hi > CRONEXPR_TIME_LIMIT)
		hi = CRONEXPR_TIME_LIMIT;
	while (l < hi) {
		d = civil_floor_div(l, CIVIL_SECS_PER_DAY);
		civil_split(l, &c);
		if (d != day) {
			day = d;
			day_ok = prop_day_match(m, &c);
		}
		if (!day_ok)
			l = (d + 1) * CIVIL_SECS_PER_DAY;
		else if (!(m->bits[P_HOUR] >> c.hour & 1))
			l += 3600 - c.min * 60 - c.sec;
		else if (!(m->bits[P_MIN] >> c.min & 1))
			l += 60 - c.sec;
		else if (!(m->bits[P_SEC] >> c.sec & 1))
			l++;
		else {
			*out = l;
			return 0;
		}
	}
	return -1;
}

/* The default policy: real time if the minute or hour begins with '*'. */
static void
prop_policy(const struct prop_model *m, enum tz_gap *gap, enum tz_fold *fold)
{
	int realtime = m->star[P_MIN] || m->star[P_HOUR];

	if (*gap == TZ_GAP_AUTO)
		*gap = realtime ? TZ_GAP_SKIP : TZ_GAP_SHIFT;
	if (*fold == TZ_FOLD_AUTO)
		*fold = realtime ? TZ_FOLD_BOTH : TZ_FOLD_FIRST;
}

/* Whether any day of a 400-year Gregorian cycle matches the model. */
static int
prop_ever(const struct prop_model *m)
{
	struct civil	c;
	int64_t		d, d0 = civil_days_from_date(2000, 1, 1);

	for (d = d0; d < d0 + 146097; d++) {
		civil_split(d * CIVIL_SECS_PER_DAY, &c);
		if (prop_day_match(m, &c))
			return 1;
	}
	return 0;
}

/* --- brute force --------------------------------------------------------- */

/*
 * Whether an instant other than t, within PROP_WINDOW of it, has local
 * time l: *before for an earlier one, *after for a later one.  Such an
 * instant c has some offset o of the zone with c = l - o, so trying each
 * offset the zone ever uses finds them all.
 */
static void
prop_others(const struct prop_zone *pz, int64_t l, int64_t t, int *before,
    int *after)
{
	int64_t	c;
	size_t	i;

	*before = *after = 0;
	for (i = 0; i < pz->noffs; i++) {
		c = l - pz->offs[i];
		if (c == t || c < t - PROP_WINDOW || c > t + PROP_WINDOW ||
		    tz_to_local(pz->z, c, NULL) != l)
			continue;
		if (c < t)
			*before = 1;
		else
			*after = 1;
	}
}

/*
 * Up to k instants in (from, end] by brute force, into out; returns how
 * many.  gap and fold are resolved (not AUTO).  The walk visits every
 * instant whose local time could match (skipping only stretches of one
 * offset that the model rejects, at most an hour at a time) and every
 * instant where the offset changes (found by bisection with tz_to_local).
 */
static int
prop_brute(const struct prop_model *m, const struct prop_zone *pz,
    enum tz_gap gap, enum tz_fold fold, int64_t from, int64_t end,
    int64_t *out, int k)
{
	const struct tz	*z = pz->z;
	int64_t		 t = from + 1, l, prev, next, lo, hi, x, lm;
	int32_t		 u, u2;
	int		 n = 0, before, after;

	if (end > CRONEXPR_TIME_LIMIT - 1)
		end = CRONEXPR_TIME_LIMIT - 1;
	prev = tz_to_local(z, t - 1, NULL);
	while (t <= end && n < k) {
		l = tz_to_local(z, t, &u);

		/* The clock jumped forward at t: the local times skipped. */
		if (l > prev + 1 && gap == TZ_GAP_SHIFT) {
			lo = prev + 1;
			while (lo < l && prop_scan(m, lo, l, &lm) == 0) {
				prop_others(pz, lm, t, &before, &after);
				if (!before && !after) {
					out[n++] = t;
					break;
				}
				lo = lm + 1;
			}
		}

		/* The local time of t itself, once a fold is settled. */
		if (n < k && l < CRONEXPR_TIME_LIMIT && prop_match(m, l) &&
		    (n == 0 || out[n - 1] != t)) {
			prop_others(pz, l, t, &before, &after);
			if (fold == TZ_FOLD_BOTH ||
			    (fold == TZ_FOLD_FIRST && !before) ||
			    (fold == TZ_FOLD_SECOND && !after))
				out[n++] = t;
		}

		/* The next local match at this offset, an hour on at most. */
		if (prop_scan(m, l + 1, l + 3601, &lm) == 0)
			next = lm - u;
		else
			next = t + 3600;
		if (next > end + 1)
			next = end + 1;
		(void)tz_to_local(z, next, &u2);
		if (u2 != u) {
			/* The first instant after t with another offset. */
			lo = t;
			hi = next;
			while (hi - lo > 1) {
				x = lo + (hi - lo) / 2;
				(void)tz_to_local(z, x, &u2);
				if (u2 == u)
					lo = x;
				else
					hi = x;
			}
			next = hi;
		}
		prev = tz_to_local(z, next - 1, NULL);
		t = next;
	}
	return n;
}

/* --- starting instants --------------------------------------------------- */

/* A random instant in [lo, hi] given as years. */
static int64_t
prop_year_span(uint64_t *s, int64_t y0, int64_t y1)
{
	return prop_range(s, civil_days_from_date(y0, 1, 1) *
	    CIVIL_SECS_PER_DAY, civil_days_from_date(y1, 1, 1) *
	    CIVIL_SECS_PER_DAY - 1);
}

/*
 * A starting instant: mostly near a change of UTC offset (one second
 * before it, at it, or within a day or so), else anywhere in an era, or
 * just before year 10000.  *near is set when a transition was found.
 */
static int64_t
prop_from(uint64_t *s, const struct tz *z, int *near)
{
	struct tz_period	p, q;
	int64_t			t;
	int			era = (int)prop_range(s, 0, 99), i;

	*near = 0;
	if (prop_chance(s, 4))
		return CRONEXPR_TIME_LIMIT - prop_range(s, 1, 4 * 86400);
	if (era < 12)
		t = prop_year_span(s, 1800, 1970);
	else if (era < 60)
		t = prop_year_span(s, 1970, 2037);
	else if (era < 80)
		t = prop_year_span(s, 2037, 2100);
	else if (era < 95)
		t = prop_year_span(s, 2100, 3000);
	else
		t = prop_year_span(s, 3000, 9999);
	if (prop_chance(s, 30))
		return t;

	/* The next change of offset after t, within a few periods. */
	tz_period_at(z, t, &p);
	for (i = 0; i < 4 && p.end != TZ_TIME_MAX; i++) {
		tz_period_at(z, p.end, &q);
		if (q.utoff != p.utoff)
			break;
		p = q;
	}
	if (p.end == TZ_TIME_MAX || p.end >= CRONEXPR_TIME_LIMIT)
		return t;
	*near = 1;
	t = p.end;
	i = (int)prop_range(s, 0, 99);
	if (i < 15)
		return t - 1;
	if (i < 25)
		return t;
	if (i < 35)
		return t + prop_range(s, -120, 120);
	return t + prop_range(s, -30 * 3600, 3 * 3600);
}

/* --- one case ------------------------------------------------------------ */

/* Write instant t with its offset in zone z. */
static void
prop_fmt(const struct tz *z, int64_t t, char *buf, size_t len)
{
	int32_t off;

	(void)tz_to_local(z, t, &off);
	rfc3339_format(t, off, buf, len);
}

/* Print a failing case with everything needed to reproduce it. */
static void
prop_report(struct prop_stats *st, const char *what,
    const struct prop_model *m, const struct prop_zone *pz,
    enum tz_gap gap, enum tz_fold fold, int64_t from, const int64_t *fast,
    int nf, const int64_t *brute, int nb)
{
	char	buf[RFC3339_BUFSZ];
	int	i, property_holds = 0;

	st->fails++;
	T_TRUE(property_holds);
	if (st->fails > PROP_FAILS_SHOWN)
		return;
	rfc3339_format_utc(from, buf, sizeof buf);
	(void)printf("prop: case %ld: %s\n  expr '%s' zone %s (%s) from %s "
	    "gap %s fold %s\n", st->cases, what, m->text, pz->name, pz->kind,
	    buf, tz_gap_name(gap), tz_fold_name(fold));
	(void)printf("  fast: ");
	for (i = 0; i < nf; i++) {
		prop_fmt(pz->z, fast[i], buf, sizeof buf);
		(void)printf("%s ", buf);
	}
	(void)printf("\n  brute:");
	for (i = 0; i < nb; i++) {
		prop_fmt(pz->z, brute[i], buf, sizeof buf);
		(void)printf(" %s", buf);
	}
	rfc3339_format_utc(from, buf, sizeof buf);
	(void)printf("\n  TZDIR=tests/data/tzif/%s build/tickctl next --cron "
	    "'%s' --tz %s --from %s -n %d%s%s%s%s\n",
	    strcmp(pz->kind, "slim") == 0 ? "slim" : "fat", m->text,
	    pz->name, buf, PROP_K_MAX,
	    gap == TZ_GAP_AUTO ? "" : " --dst-gap ",
	    gap == TZ_GAP_AUTO ? "" : tz_gap_name(gap),
	    fold == TZ_FOLD_AUTO ? "" : " --dst-fold ",
	    fold == TZ_FOLD_AUTO ? "" : tz_fold_name(fold));
}

/* Run one random case. */
static void
prop_case(uint64_t *s, const struct prop_zone *zones, size_t nzones,
    struct prop_stats *st)
{
	size_t			 zi = (size_t)prop_range(s, 0,
				    (int64_t)nzones - 1);
	const struct prop_zone	*pz = &zones[zi], *twin = NULL;
	struct prop_model	 m;
	struct cronexpr		*e;
	enum tz_gap		 gap, rgap, egap;
	enum tz_fold		 fold, rfold, efold;
	int64_t			 from, after, fast[PROP_K_MAX];
	int64_t			 brute[PROP_K_MAX], l, end, other;
	char			*cause = NULL;
	int			 k = (int)prop_range(s, 3, PROP_K_MAX);
	int			 nf, nb, i, near;

	if (pz->twin < nzones)
		twin = &zones[pz->twin];
	gap = (enum tz_gap)prop_range(s, 0, 2);
	fold = (enum tz_fold)prop_range(s, 0, 3);
	prop_generate(s, &m);
	st->cases++;
	if ((e = cronexpr_parse(m.text, NULL, &cause)) == NULL) {
		/* Only an expression that never fires may be refused. */
		st->rejected++;
		if (prop_ever(&m)) {
			(void)printf("prop: case %ld: '%s' refused: %s\n",
			    st->cases, m.text, cause);
			st->fails++;
			T_TRUE(!"a valid expression is refused");
		}
		free(cause);
		return;
	}
	if (m.seconds)
		st->seconds++;
	from = prop_from(s, pz->z, &near);
	st->near_transition += near;

	/* The parse and the default policy agree with the model. */
	T_EQ_INT(cronexpr_has_seconds(e), m.seconds);
	rgap = egap = gap;
	rfold = efold = fold;
	prop_policy(&m, &rgap, &rfold);
	cronexpr_policy(e, &egap, &efold);
	if (egap != rgap || efold != rfold)
		prop_report(st, "default policy differs", &m, pz, gap, fold,
		    from, NULL, 0, NULL, 0);

	/* The fast search, chained. */
	after = from;
	for (nf = 0; nf < k; nf++) {
		if (cronexpr_next(e, pz->z, gap, fold, after, &fast[nf]) == -1)
			break;
		if (fast[nf] <= after) {
			prop_report(st, "not strictly increasing", &m, pz, gap,
			    fold, from, fast, nf + 1, NULL, 0);
			cronexpr_free(e);
			return;
		}
		after = fast[nf];
	}

	/* The same zone compiled the other way gives the same instants. */
	if (twin != NULL) {
		after = from;
		for (i = 0; i < nf + 1 && i < k; i++) {
			if (cronexpr_next(e, twin->z, gap, fold, after,
			    &other) == -1) {
				if (i < nf)
					prop_report(st, "fat and slim differ",
					    &m, twin, gap, fold, from, fast, nf,
					    NULL, 0);
				break;
			}
			if (i == nf || other != fast[i]) {
				prop_report(st, "fat and slim differ", &m,
				    twin, gap, fold, from, fast, nf, NULL, 0);
				break;
			}
			after = other;
		}
	}

	/* The brute force over the bound, and the comparison. */
	end = from + PROP_BOUND;
	nb = prop_brute(&m, pz, rgap, rfold, from, end, brute, k);
	for (i = 0; i < k; i++) {
		if (i < nf && fast[i] <= end) {
			if (i >= nb || brute[i] != fast[i]) {
				prop_report(st, "instants differ", &m, pz, gap,
				    fold, from, fast, nf, brute, nb);
				break;
			}
			st->compared++;
			continue;
		}
		/* Nothing more from the fast search within the bound. */
		if (nb != i)
			prop_report(st, "brute force found more", &m, pz, gap,
			    fold, from, fast, nf, brute, nb);
		else if (i < nf)
			st->beyond++;
		else
			st->none++;
		break;
	}

	/* cronexpr_match_local agrees with the model, matches or not. */
	for (i = 0; i < nb; i++) {
		l = tz_to_local(pz->z, brute[i], NULL);
		if (prop_match(&m, l) &&
		    !T_EQ_INT(cronexpr_match_local(e, l), 1))
			(void)printf("  expr '%s' local %" PRId64 "\n",
			    m.text, l);
	}
	for (i = 0; i < 8; i++) {
		l = tz_to_local(pz->z, from, NULL) + prop_range(s, -86400,
		    PROP_BOUND);
		if (m.seconds == 0 && prop_chance(s, 70))
			l -= civil_floor_mod(l, 60);
		if (!T_EQ_INT(cronexpr_match_local(e, l), prop_match(&m, l)))
			(void)printf("  expr '%s' local %" PRId64 "\n",
			    m.text, l);
	}
	cronexpr_free(e);
}

/*
 * Collect every UTC offset of a zone from its periods up to the year 2600
 * (the footer rule repeats its two offsets after that).
 */
static void
prop_offsets(struct prop_zone *pz)
{
	struct tz_period	p;
	int64_t			t = -CRONEXPR_TIME_LIMIT;
	int64_t			stop = civil_days_from_date(2600, 1, 1) *
				    CIVIL_SECS_PER_DAY;
	size_t			i;

	pz->noffs = 0;
	for (;;) {
		tz_period_at(pz->z, t, &p);
		for (i = 0; i < pz->noffs && pz->offs[i] != p.utoff; i++)
			;
		if (i == pz->noffs && T_TRUE(pz->noffs < PROP_OFFS_MAX))
			pz->offs[pz->noffs++] = p.utoff;
		if (p.end == TZ_TIME_MAX || p.end > stop)
			break;
		t = p.end;
	}
}

/*
 * Load every fixture zone, fat and slim, plus the built-in UTC; returns
 * how many, or 0 (with a failure counted) if a fixture is missing.
 */
static size_t
prop_zones_load(struct prop_zone *zones, struct tz **owned)
{
	static const char	*kinds[] = { "fat", "slim" };
	const char		*data = getenv("TICKD_TESTDATA");
	char			 dir[1024], *cause;
	size_t			 n, i, k;

	if (data == NULL || *data == '\0')
		data = "tests/data";
	for (k = 0; k < 2; k++) {
		(void)snprintf(dir, sizeof dir, "%s/tzif/%s", data, kinds[k]);
		for (i = 0; i < PROP_NZONES; i++) {
			n = k * PROP_NZONES + i;
			cause = NULL;
			owned[n] = tz_load_file(dir, prop_zones[i], &cause);
			if (!T_TRUE(owned[n] != NULL)) {
				(void)printf("prop: %s\n", cause);
				free(cause);
				while (n-- > 0)
					tz_free(owned[n]);
				return 0;
			}
			/* Fat and slim copies sit PROP_NZONES apart. */
			zones[n].z = owned[n];
			zones[n].name = prop_zones[i];
			zones[n].kind = kinds[k];
			zones[n].twin = k == 0 ? n + PROP_NZONES :
			    n - PROP_NZONES;
			prop_offsets(&zones[n]);
		}
	}
	n = 2 * PROP_NZONES;
	owned[n] = tz_new_utc();
	zones[n].z = owned[n];
	zones[n].name = "UTC";
	zones[n].kind = "builtin";
	zones[n].twin = (size_t)-1;
	prop_offsets(&zones[n]);
	return n + 1;
}

int
main(void)
{
	struct prop_zone	 zones[2 * PROP_NZONES + 1];
	struct tz		*owned[2 * PROP_NZONES + 1];
	struct prop_stats	 st;
	struct timespec		 t0, t1;
	const char		*env;
	uint64_t		 seed, s;
	long			 cases = PROP_CASES, i;
	size_t			 nzones, z;
	double			 secs;

	if ((env = getenv("TICKD_PROP_SEED")) != NULL && *env != '\0')
		seed = strtoull(env, NULL, 0);
	else {
		(void)clock_gettime(CLOCK_REALTIME, &t0);
		seed = (uint64_t)t0.tv_sec * 1000000007u ^
		    (uint64_t)t0.tv_nsec;
	}
	if ((env = getenv("TICKD_PROP_CASES")) != NULL && *env != '\0')
		cases = strtol(env, NULL, 10);
	(void)printf("prop: seed %" PRIu64 " (TICKD_PROP_SEED=%" PRIu64
	    " TICKD_PROP_CASES=%ld to reproduce)\n", seed, seed, cases);
	(void)fflush(stdout);

	memset(&st, 0, sizeof st);
	T_RUN("property: cronexpr_next against brute force");
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((nzones = prop_zones_load(zones, owned)) == 0)
		return t_done();
	s = seed;
	for (i = 0; i < cases; i++)
		prop_case(&s, zones, nzones, &st);
	(void)clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	(void)printf("prop: %ld cases in %zu zones (%ld six-field, %ld "
	    "started near a transition), %ld refused as never firing\n",
	    st.cases, nzones, st.seconds, st.near_transition, st.rejected);
	(void)printf("prop: %ld instants compared; %ld cases ended beyond "
	    "the %lld-day bound, %ld at the year-10000 limit; %ld failed; "
	    "%.2f s\n", st.compared, st.beyond,
	    (long long)(PROP_BOUND / 86400), st.none, st.fails, secs);

	for (z = 0; z < nzones; z++)
		tz_free(owned[z]);
	return t_done();
}

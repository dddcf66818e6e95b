/*
 * fuzz_tzif.c -- libFuzzer target: TZif images and zone conversions.
 *
 * Input: a TZif file.  tz_load_mem() must either refuse it with a cause
 * or return a zone; a zone is then queried at fixed extremes (the ends of
 * int64_t, +-1e11 s, 1900, 0, 2038, 2100, 9999), at instants hashed from
 * the input, and around each of the first transitions found by walking
 * periods from those, and must satisfy:
 *
 *   - tz_period_at: start <= t < end (an open end is +infinity), sane
 *     offset, isdst 0/1, a terminated abbreviation, and the same offset,
 *     isdst and abbreviation at the period's first and last instant;
 *   - tz_to_local(t) = t + the period's offset;
 *   - tz_local_to_utc: at most TZ_OCC_MAX instants, strictly increasing,
 *     each mapping back to that local time, including t itself for the
 *     local time of t; none means a gap, whose end is the first instant
 *     after it (local time before it is earlier, at it later);
 *   - tz_resolve agrees with tz_local_to_utc under every policy.
 *
 * Local-time conversions add a UTC offset to an instant, so they are
 * exercised for |t| <= FUZZ_TZ_SANE only; walks stay within +-FUZZ_LIMIT
 * (fuzz.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tz.h"

#define FUZZ_TZ_SANE	(INT64_MAX / 4)	/* domain of local conversions */
#define FUZZ_UTOFF_MAX	(26 * 3600)

/* Where period walks start, and how many periods each walks. */
static const struct {
	int64_t	t;
	int	steps;
} tzif_starts[] = {
	{ INT64_MIN, 40 },		/* the first transitions */
	{ INT64_MIN + 1, 1 },
	{ -FUZZ_TZ_SANE, 1 },
	{ INT64_C(-100000000000), 2 },
	{ INT64_C(-2208988800), 4 },	/* 1900 */
	{ INT64_C(-1), 2 },
	{ INT64_C(0), 2 },
	{ INT64_C(1), 1 },
	{ INT64_C(2147483647), 8 },	/* 2038: fat files end, rules begin */
	{ INT64_C(4102444800), 4 },	/* 2100 */
	{ INT64_C(253402300799), 4 },	/* 9999 */
	{ INT64_C(100000000000), 2 },
	{ FUZZ_TZ_SANE, 1 },
	{ INT64_MAX - 1, 1 },
	{ INT64_MAX, 1 },
};
#define TZIF_NSTARTS	(sizeof tzif_starts / sizeof tzif_starts[0])

static const enum tz_gap tzif_gaps[] = {
	TZ_GAP_AUTO, TZ_GAP_SHIFT, TZ_GAP_SKIP
};
static const enum tz_fold tzif_folds[] = {
	TZ_FOLD_AUTO, TZ_FOLD_FIRST, TZ_FOLD_SECOND, TZ_FOLD_BOTH
};

static int
tzif_sane(int64_t t)
{
	return t >= -FUZZ_TZ_SANE && t <= FUZZ_TZ_SANE;
}

/* One period's own invariants and its consistency at its ends. */
static void
tzif_check_period(const struct tz *z, int64_t t, const struct tz_period *p)
{
	struct tz_period q;

	FUZZ_CHECK(p->start <= t && (p->end == TZ_TIME_MAX || t < p->end),
	    "t %lld outside its period [%lld, %lld)", (long long)t,
	    (long long)p->start, (long long)p->end);
	FUZZ_CHECK(p->utoff >= -FUZZ_UTOFF_MAX && p->utoff <= FUZZ_UTOFF_MAX,
	    "t %lld: offset %d", (long long)t, (int)p->utoff);
	FUZZ_CHECK(p->isdst == 0 || p->isdst == 1, "t %lld: isdst %d",
	    (long long)t, p->isdst);
	FUZZ_CHECK(memchr(p->abbr, '\0', sizeof p->abbr) != NULL,
	    "t %lld: abbreviation not terminated", (long long)t);

	if (p->start >= -FUZZ_LIMIT && p->start != t) {
		tz_period_at(z, p->start, &q);
		FUZZ_CHECK(q.utoff == p->utoff && q.isdst == p->isdst &&
		    strcmp(q.abbr, p->abbr) == 0, "t %lld in [%lld, %lld) "
		    "offset %d, but at its start offset %d", (long long)t,
		    (long long)p->start, (long long)p->end, (int)p->utoff,
		    (int)q.utoff);
		FUZZ_CHECK(q.start <= p->start && (q.end == TZ_TIME_MAX ||
		    q.end > p->start), "period at its own start %lld is "
		    "[%lld, %lld)", (long long)p->start, (long long)q.start,
		    (long long)q.end);
	}
	if (p->end <= FUZZ_LIMIT && p->end - 1 != t) {
		tz_period_at(z, p->end - 1, &q);
		FUZZ_CHECK(q.utoff == p->utoff && q.isdst == p->isdst &&
		    strcmp(q.abbr, p->abbr) == 0, "t %lld in [%lld, %lld) "
		    "offset %d, but at its last instant offset %d",
		    (long long)t, (long long)p->start, (long long)p->end,
		    (int)p->utoff, (int)q.utoff);
	}
}

/* Every way of turning local time l back into instants. */
static void
tzif_check_local(const struct tz *z, int64_t l, int64_t must)
{
	int64_t	occ[TZ_OCC_MAX], out[TZ_OCC_MAX], gap_end = INT64_MIN;
	int	n, m, i, gi, fi, found = 0;

	if (!tzif_sane(l))
		return;
	n = tz_local_to_utc(z, l, occ, &gap_end);
	FUZZ_CHECK(n >= 0 && n <= TZ_OCC_MAX, "local %lld: %d instants",
	    (long long)l, n);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(tz_to_local(z, occ[i], NULL) == l, "local %lld: "
		    "instant %lld maps back to %lld", (long long)l,
		    (long long)occ[i], (long long)tz_to_local(z, occ[i], NULL));
		FUZZ_CHECK(i == 0 || occ[i] > occ[i - 1], "local %lld: "
		    "instants not increasing", (long long)l);
		found |= occ[i] == must;
	}
	FUZZ_CHECK(must == INT64_MIN || found || n == TZ_OCC_MAX, "local %lld "
	    "of instant %lld: tz_local_to_utc gave %d instants without it",
	    (long long)l, (long long)must, n);
	if (n == 0) {
		FUZZ_CHECK(gap_end != INT64_MIN && tzif_sane(gap_end),
		    "local %lld: no instant and no gap end", (long long)l);
		FUZZ_CHECK(tz_to_local(z, gap_end, NULL) > l &&
		    tz_to_local(z, gap_end - 1, NULL) < l, "local %lld: gap "
		    "end %lld is not just after the gap (%lld -> %lld)",
		    (long long)l, (long long)gap_end,
		    (long long)tz_to_local(z, gap_end - 1, NULL),
		    (long long)tz_to_local(z, gap_end, NULL));
	}

	for (gi = 0; gi < 3; gi++)
	for (fi = 0; fi < 4; fi++) {
		m = tz_resolve(z, l, tzif_gaps[gi], tzif_folds[fi], out);
		if (n == 0 && tzif_gaps[gi] == TZ_GAP_SKIP)
			FUZZ_CHECK(m == 0, "local %lld: skip gave %d", (long
			    long)l, m);
		else if (n == 0)
			FUZZ_CHECK(m == 1 && out[0] == gap_end, "local %lld: "
			    "shift gave %d", (long long)l, m);
		else if (tzif_folds[fi] == TZ_FOLD_BOTH) {
			FUZZ_CHECK(m == n, "local %lld: both gave %d of %d",
			    (long long)l, m, n);
			for (i = 0; i < n; i++)
				FUZZ_CHECK(out[i] == occ[i], "local %lld: "
				    "both differs", (long long)l);
		} else
			FUZZ_CHECK(m == 1 && out[0] == (tzif_folds[fi] ==
			    TZ_FOLD_SECOND ? occ[n - 1] : occ[0]),
			    "local %lld: fold %s gave %d", (long long)l,
			    tz_fold_name(tzif_folds[fi]), m);
	}
}

/* Everything at instant t. */
static void
tzif_check_instant(const struct tz *z, int64_t t, struct tz_period *p)
{
	int64_t	l;
	int32_t	off = 0;

	tz_period_at(z, t, p);
	tzif_check_period(z, t, p);
	if (!tzif_sane(t))
		return;
	l = tz_to_local(z, t, &off);
	FUZZ_CHECK(off == p->utoff && l == t + off, "t %lld: tz_to_local "
	    "%lld offset %d, period offset %d", (long long)t, (long long)l,
	    (int)off, (int)p->utoff);
	tzif_check_local(z, l, t);
}

/* Walk periods forward from t, checking both sides of each boundary. */
static void
tzif_walk(const struct tz *z, int64_t t, int steps)
{
	struct tz_period	p, q;
	int64_t			lb, la;
	int			i;

	t = fuzz_clamp(t);
	tzif_check_instant(z, t, &p);
	for (i = 0; i < steps && p.end <= FUZZ_LIMIT; i++) {
		FUZZ_CHECK(p.end > t, "period end %lld not after %lld",
		    (long long)p.end, (long long)t);
		t = p.end;
		tzif_check_instant(z, t - 1, &q);
		tzif_check_instant(z, t, &p);
		if (!tzif_sane(t))
			continue;
		/* Local times on both sides of the change, and between. */
		lb = t - 1 + q.utoff;
		la = t + p.utoff;
		tzif_check_local(z, lb + 1, INT64_MIN);
		tzif_check_local(z, la - 1, INT64_MIN);
		tzif_check_local(z, lb / 2 + la / 2, INT64_MIN);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tz	*z;
	char		*cause = NULL;
	uint64_t	 h;
	size_t		 i;
	int32_t		 span;

	if ((z = tz_load_mem("fuzz", data, size, &cause)) == NULL) {
		FUZZ_CHECK(cause != NULL && *cause != '\0', "refused without "
		    "a cause");
		free(cause);
		return 0;
	}
	FUZZ_CHECK(strcmp(tz_name(z), "fuzz") == 0, "name");
	span = tz_offset_span(z);
	FUZZ_CHECK(span >= 0 && span <= 2 * FUZZ_UTOFF_MAX, "span %d",
	    (int)span);

	for (i = 0; i < TZIF_NSTARTS; i++)
		tzif_walk(z, tzif_starts[i].t, tzif_starts[i].steps);
	h = fuzz_hash(data, size);
	tzif_walk(z, (int64_t)(h % (UINT64_C(1) << 33)) - (INT64_C(1) << 32),
	    8);
	tzif_walk(z, (int64_t)h, 2);
	tz_free(z);
	return 0;
}

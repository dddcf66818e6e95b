/*
 * fuzz_cronexpr.c -- libFuzzer target: cron expressions, their firing
 * instants, and schedules.
 *
 * Input: the expression as a C string (up to the first NUL byte), then
 * optionally up to three decimal starting instants after that NUL:
 *
 *	"0 9 * * 1-5" NUL "1772953200 -9223372036854775808"
 *
 * Two more starts come from a hash of the whole input: one within two
 * hours of a DST transition (or another awkward instant) from a table, one
 * anywhere in 1970-2106.  If the expression parses, cronexpr_next() runs a
 * few steps from every start in UTC, America/New_York (fat fixture),
 * Australia/Lord_Howe (fat: 30-minute DST) and Pacific/Apia (slim: the day
 * skipped in 2011, then the footer rule), under every gap and fold policy,
 * and checks:
 *
 *   - each instant is strictly after its start, below year 10000 (plus the
 *     largest UTC offset), and the chain strictly increases;
 *   - restarting one second earlier finds the same instant;
 *   - the instant's local time matches the expression, or the instant is a
 *     transition and the gap policy is shift (a nominal time in the gap);
 *   - under fold first/second, the instant is that occurrence;
 *   - a brute-force oracle, when the window is small: every matching local
 *     time whose instants (tz_resolve under the same policies) could fall
 *     in (start, instant] is resolved; none may land strictly inside, and
 *     one must land exactly on the instant.
 *
 * The dialect (cron or Quartz) and the hash for Jenkins' H come from the
 * input's hash.  The same text goes through schedule_parse(), which must
 * agree with cronexpr_parse(), and "every" schedules are stepped as well.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cronexpr.h"
#include "duration.h"
#include "fuzz.h"
#include "schedule.h"
#include "tz.h"

#define NEXT_STEPS	3	/* instants computed from each start */
#define STARTS_MAX	5
#define ORACLE_STEPS	240	/* local times the oracle may try */
#define SLACK		(27 * 3600)	/* beyond the largest UTC offset */
#define LATE		(CRONEXPR_TIME_LIMIT - INT64_C(401) * 366 * 86400)

/* DST transitions and other awkward instants; starts land near them. */
static const int64_t fuzz_instants[] = {
	INT64_C(1772953200),	/* 2026-03-08 07:00Z New York springs */
	INT64_C(1793512800),	/* 2026-11-01 06:00Z New York falls */
	INT64_C(1775314800),	/* 2026-04-04 15:00Z Lord Howe -30 min */
	INT64_C(1791041400),	/* 2026-10-03 15:30Z Lord Howe +30 min */
	INT64_C(1325239200),	/* 2011-12-30 10:00Z Apia skips a day */
	INT64_C(1617458400),	/* 2021-04-03 14:00Z Apia's last DST end */
	INT64_C(1774746000),	/* 2026-03-29 01:00Z Europe springs */
	INT64_C(1792890000),	/* 2026-10-25 01:00Z Europe falls */
	INT64_C(-2717650800),	/* 1883-11-18 17:00Z New York LMT -> EST */
	INT64_C(352216800),	/* 1981-02-28 14:00Z Lord Howe 10:00 -> 10:30 */
	INT64_C(2140668000),	/* 2037-11-01 New York, near the last */
	INT64_C(2152162800),	/* 2038-03-14 explicit transition, rule after */
	INT64_C(4108690800),	/* 2100-03-14 footer rule, no leap year */
	INT64_C(-2208988800),	/* 1900-01-01 */
	INT64_C(0),
	INT64_C(2147483647),	/* 2038-01-19 03:14:07Z */
	INT64_C(951782400),	/* 2000-02-29 */
	INT64_C(1709182800),	/* 2024-02-29 05:00Z */
	INT64_C(253402300799),	/* 9999-12-31 23:59:59Z: the limit */
	-CRONEXPR_TIME_LIMIT,	/* year -9999: the lower clamp */
};
#define FUZZ_NINSTANTS	(sizeof fuzz_instants / sizeof fuzz_instants[0])

static const enum tz_gap fuzz_gaps[] = {
	TZ_GAP_AUTO, TZ_GAP_SHIFT, TZ_GAP_SKIP
};
static const enum tz_fold fuzz_folds[] = {
	TZ_FOLD_AUTO, TZ_FOLD_FIRST, TZ_FOLD_SECOND, TZ_FOLD_BOTH
};

static struct tz	*fuzz_zones[4];
static const char	*fuzz_zone_names[4];

static void
fuzz_init(void)
{
	if (fuzz_zones[0] != NULL)
		return;
	fuzz_zones[0] = tz_new_utc();
	fuzz_zone_names[0] = "UTC";
	fuzz_zones[1] = fuzz_zone("fat", "America/New_York");
	fuzz_zone_names[1] = "America/New_York";
	fuzz_zones[2] = fuzz_zone("fat", "Australia/Lord_Howe");
	fuzz_zone_names[2] = "Australia/Lord_Howe";
	fuzz_zones[3] = fuzz_zone("slim", "Pacific/Apia");
	fuzz_zone_names[3] = "Pacific/Apia(slim)";
}

/* What one cronexpr_next() call is about, for messages. */
struct fuzz_ctx {
	const struct cronexpr	*e;
	const struct tz		*z;
	const char		*zname;
	enum tz_gap		 gap;		/* as passed */
	enum tz_fold		 fold;
	enum tz_gap		 rgap;		/* resolved (no AUTO) */
	enum tz_fold		 rfold;
};

#define CTX_FMT		"expr \"%s\" zone %s gap %s fold %s"
#define CTX_ARGS(c)	cronexpr_text((c)->e), (c)->zname, \
			tz_gap_name((c)->gap), tz_fold_name((c)->fold)

/*
 * The instant r that cronexpr_next() found: its local time matches, or it
 * is where a gap ends under the shift policy; a fold occurrence is the one
 * the policy names.
 */
static void
fuzz_check_instant(const struct fuzz_ctx *c, int64_t r)
{
	struct tz_period	p;
	int64_t			local, occ[TZ_OCC_MAX];
	int			n, i, found = 0;

	tz_period_at(c->z, r, &p);
	local = r + p.utoff;
	if (!cronexpr_match_local(c->e, local)) {
		FUZZ_CHECK(c->rgap == TZ_GAP_SHIFT && p.start == r,
		    CTX_FMT ": instant %lld (local %lld) does not match and "
		    "is not a shifted gap time", CTX_ARGS(c), (long long)r,
		    (long long)local);
		return;
	}
	n = tz_local_to_utc(c->z, local, occ, NULL);
	for (i = 0; i < n; i++)
		found |= occ[i] == r;
	FUZZ_CHECK(found || n == TZ_OCC_MAX, CTX_FMT ": instant %lld is not "
	    "an occurrence of its own local time", CTX_ARGS(c), (long long)r);
	if (c->rfold == TZ_FOLD_FIRST)
		FUZZ_CHECK(r == occ[0], CTX_FMT ": instant %lld is not the "
		    "first occurrence %lld", CTX_ARGS(c), (long long)r,
		    (long long)occ[0]);
	else if (c->rfold == TZ_FOLD_SECOND)
		FUZZ_CHECK(r == occ[n - 1], CTX_FMT ": instant %lld is not "
		    "the last occurrence %lld", CTX_ARGS(c), (long long)r,
		    (long long)occ[n - 1]);
}

/*
 * Brute force: the local times whose instants could fall in (t, r] are
 * those of the instants in (t, r], plus gap times ending at an instant
 * there, which start right after t's local time.  Walk them in steps of a
 * second or a minute, resolve each match like the daemon would, and
 * compare.  Skipped when the window is too wide.
 */
static void
fuzz_oracle(const struct fuzz_ctx *c, int64_t t, int64_t r)
{
	struct tz_period	p;
	int64_t			lo, hi, x, l, out[TZ_OCC_MAX];
	int			step = cronexpr_has_seconds(c->e) ? 1 : 60;
	int			n, i, found = 0;

	if (t <= -CRONEXPR_TIME_LIMIT || r - t > (int64_t)ORACLE_STEPS * step)
		return;
	tz_period_at(c->z, t, &p);
	lo = t + 1 + p.utoff;
	hi = lo;
	for (x = t + 1; x <= r; x = p.end) {
		tz_period_at(c->z, x, &p);
		if (x + p.utoff < lo)
			lo = x + p.utoff;
		l = (p.end - 1 < r ? p.end - 1 : r) + p.utoff;
		if (l > hi)
			hi = l;
		if (p.end > r)
			break;
	}
	lo += (step - lo % step) % step;	/* up to a whole step */
	if ((hi - lo) / step > ORACLE_STEPS)
		return;
	for (l = lo; l <= hi; l += step) {
		if (!cronexpr_match_local(c->e, l))
			continue;
		n = tz_resolve(c->z, l, c->rgap, c->rfold, out);
		for (i = 0; i < n; i++) {
			FUZZ_CHECK(out[i] <= t || out[i] >= r, CTX_FMT ": from "
			    "%lld the next instant is %lld, but local %lld "
			    "fires at %lld in between", CTX_ARGS(c),
			    (long long)t, (long long)r, (long long)l,
			    (long long)out[i]);
			found |= out[i] == r;
		}
	}
	FUZZ_CHECK(found, CTX_FMT ": from %lld the next instant is %lld, "
	    "which no matching local time in [%lld, %lld] resolves to",
	    CTX_ARGS(c), (long long)t, (long long)r, (long long)lo,
	    (long long)hi);
}

/* A chain of instants from start under one zone and policy. */
static void
fuzz_chain(struct fuzz_ctx *c, int64_t start)
{
	int64_t	t = start, r, r2;
	int	k;

	for (k = 0; k < NEXT_STEPS; k++) {
		if (cronexpr_next(c->e, c->z, c->gap, c->fold, t, &r) == -1) {
			/* Under shift every nominal time fires, and each
			 * expression names a day in every 400 years, or
			 * ends with the years it names. */
			FUZZ_CHECK(cronexpr_is_reboot(c->e) ||
			    c->rgap == TZ_GAP_SKIP || t > LATE ||
			    cronexpr_last_year(c->e) != 0, CTX_FMT ": no "
			    "instant after %lld", CTX_ARGS(c), (long long)t);
			return;
		}
		FUZZ_CHECK(r > t, CTX_FMT ": after %lld came %lld",
		    CTX_ARGS(c), (long long)t, (long long)r);
		FUZZ_CHECK(r < CRONEXPR_TIME_LIMIT + SLACK, CTX_FMT ": "
		    "instant %lld is beyond year 9999", CTX_ARGS(c),
		    (long long)r);
		fuzz_check_instant(c, r);
		if (r - 1 > t) {
			FUZZ_CHECK(cronexpr_next(c->e, c->z, c->gap, c->fold,
			    r - 1, &r2) == 0 && r2 == r, CTX_FMT ": after "
			    "%lld came %lld, but after %lld none or another",
			    CTX_ARGS(c), (long long)t, (long long)r,
			    (long long)(r - 1));
		}
		fuzz_oracle(c, t, r);
		t = r;
	}
}

/* Parse up to STARTS_MAX - 2 decimal instants from s. */
static size_t
fuzz_starts(const char *s, int64_t *starts, size_t max)
{
	size_t	n = 0;
	char	*end;

	while (n < max) {
		while (*s == ' ' || *s == '\n' || *s == ',')
			s++;
		if (*s == '\0')
			break;
		starts[n] = (int64_t)strtoll(s, &end, 10);
		if (end == s)
			break;
		n++;
		s = end;
	}
	return n;
}

/* The schedule layer on the same text. */
static void
fuzz_schedule(const char *text, const struct cronexpr_opts *o, int cron_ok,
    const int64_t *starts, size_t nstarts)
{
	struct schedule	*s;
	char		*cause = NULL;
	int64_t		 iv, r;
	size_t		 i;

	if ((s = schedule_parse(text, o, &cause)) == NULL) {
		FUZZ_CHECK(cause != NULL && *cause != '\0', "schedule_parse "
		    "failed without a cause");
		FUZZ_CHECK(!cron_ok, "\"%s\": cronexpr_parse accepts it but "
		    "schedule_parse does not: %s", text, cause);
		free(cause);
		return;
	}
	FUZZ_CHECK(schedule_text(s) != NULL, "no schedule text");
	switch (schedule_kind(s)) {
	case SCHEDULE_CRON:
	case SCHEDULE_REBOOT:
		FUZZ_CHECK(cron_ok && schedule_cron(s) != NULL, "\"%s\": "
		    "schedule_parse made a cron schedule cronexpr_parse "
		    "refuses", text);
		break;
	case SCHEDULE_EVERY:
		iv = schedule_interval(s);
		FUZZ_CHECK(iv >= 1 && iv <= DURATION_MAX, "\"%s\": "
		    "interval %lld", text, (long long)iv);
		for (i = 0; i < nstarts; i++) {
			if (schedule_next(s, NULL, TZ_GAP_AUTO, TZ_FOLD_AUTO,
			    starts[i], &r) == -1)
				continue;
			FUZZ_CHECK(r > starts[i] && r - starts[i] <= iv &&
			    r % iv == 0, "\"%s\": after %lld came %lld", text,
			    (long long)starts[i], (long long)r);
		}
		break;
	case SCHEDULE_AFTER:
		iv = schedule_interval(s);
		FUZZ_CHECK(iv >= 1 && iv <= DURATION_MAX, "\"%s\": "
		    "interval %lld", text, (long long)iv);
		FUZZ_CHECK(schedule_next(s, NULL, TZ_GAP_AUTO, TZ_FOLD_AUTO,
		    0, &r) == -1, "\"%s\": an after schedule has a next "
		    "instant", text);
		FUZZ_CHECK(schedule_after_next(s, 1000) == 1000 + iv,
		    "\"%s\": after_next", text);
		break;
	}
	schedule_free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cronexpr	*e;
	struct fuzz_ctx	 c;
	struct cronexpr_opts o;
	char		*text, *cause = NULL;
	int64_t		 starts[STARTS_MAX];
	uint64_t	 h = fuzz_hash(data, size);
	size_t		 nstarts, len, zi, gi, fi, si;

	fuzz_init();
	text = fuzz_strdup(data, size);
	len = strlen(text);
	nstarts = len < size ? fuzz_starts(text + len + 1, starts,
	    STARTS_MAX - 2) : 0;
	starts[nstarts++] = fuzz_instants[h % FUZZ_NINSTANTS] +
	    (int64_t)(h >> 16 & 0x3fff) - 7200;
	starts[nstarts++] = (int64_t)(h >> 32);

	o.dialect = h >> 62 & 1 ? CRONEXPR_QUARTZ : CRONEXPR_CRON;
	o.hash_set = 1;
	o.hash = h;
	e = cronexpr_parse(text, &o, &cause);
	if (e == NULL) {
		FUZZ_CHECK(cause != NULL && *cause != '\0', "\"%s\": "
		    "cronexpr_parse failed without a cause", text);
		free(cause);
		cause = NULL;
	} else {
		FUZZ_CHECK(strlen(cronexpr_text(e)) <= len, "text grew");
		c.e = e;
		for (zi = 0; zi < 4; zi++)
		for (gi = 0; gi < 3; gi++)
		for (fi = 0; fi < 4; fi++) {
			c.z = fuzz_zones[zi];
			c.zname = fuzz_zone_names[zi];
			c.gap = c.rgap = fuzz_gaps[gi];
			c.fold = c.rfold = fuzz_folds[fi];
			cronexpr_policy(e, &c.rgap, &c.rfold);
			FUZZ_CHECK(c.rgap != TZ_GAP_AUTO &&
			    c.rfold != TZ_FOLD_AUTO, "policy left AUTO");
			for (si = 0; si < nstarts; si++)
				fuzz_chain(&c, starts[si]);
		}
	}
	fuzz_schedule(text, &o, e != NULL, starts, nstarts);
	cronexpr_free(e);
	free(text);
	return 0;
}

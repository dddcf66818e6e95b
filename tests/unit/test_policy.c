/*
 * test_policy.c -- unit tests of the pure scheduling decisions:
 * policy_random_delay (stable, bounded, spread, capped before the next
 * instance) and policy_scan (the range of instances due between a job's
 * next planned instant and now, counted by arithmetic for fixed-rate
 * schedules and by walking otherwise, capped at POLICY_SCAN_MAX); the
 * policy words (overlap, misfire, recover), kill signals, retry_on_exit
 * exit codes and the retry back-off; and policy_due (what becomes of the
 * due instances of a job under each misfire policy: the coalesced,
 * misfire or catch_up_limit range, the runs, and on-time instances beyond
 * the caller's buffer), checked against policy_scan and, on random cases,
 * against a plain reference implementation.
 *
 * Tables of cases.  Instants are written in RFC 3339; "-" means -1 (none).
 * Zones come from the fat fixtures (tests/data/tzif/fat; TICKD_TESTDATA
 * overrides tests/data), so the DST cases do not depend on the host.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rfc3339.h"
#include "policy.h"
#include "schedule.h"
#include "tz.h"

#include "t.h"

#define NONE	"-"

static struct tz_cache	*cache;

/* Parse an RFC 3339 instant of a table; "-" is -1. */
static int64_t
at(const char *s)
{
	int64_t	 t = -1;
	char	*cause = NULL;

	if (strcmp(s, NONE) == 0)
		return -1;
	if (rfc3339_parse(s, &t, &cause) == -1) {
		(void)printf("bad instant in table: %s: %s\n", s, cause);
		free(cause);
		exit(2);
	}
	return t;
}

/* Seconds of CPU time used, for timing (a busy machine does not count). */
static double
cpu(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * policy_random_delay, bounds: for every instant at = base + i * step
 * (i < n), the delay is within [0, max] and below next - at, where next is
 * at + gap (gap 0: no next instance known, -1 is passed).
 */
struct delay_bound_case {
	const char	*name;
	const char	*machine;
	const char	*job;
	int64_t		 max;
	int64_t		 gap;		/* next - at, or 0 for next = -1 */
	int		 n;
	int64_t		 want_max;	/* largest delay allowed */
};

static const struct delay_bound_case delay_bound_cases[] = {
	{ "max 0", "m1", "job", 0, 0, 200, 0 },
	{ "max negative", "m1", "job", -5, 0, 200, 0 },
	{ "max 0 with next", "m1", "job", 0, 60, 200, 0 },
	{ "max 1", "m1", "job", 1, 0, 500, 1 },
	{ "max 1h, no next", "m1", "job", 3600, 0, 1000, 3600 },
	{ "max 1h, next in 1h", "m1", "job", 3600, 3600, 1000, 3599 },
	{ "max 1h, next in 10s", "m1", "job", 3600, 10, 1000, 9 },
	{ "max 1h, next in 1s", "m1", "job", 3600, 1, 1000, 0 },
	{ "max 7d, next in 1d", "m1", "job", 7 * 86400, 86400, 1000,
	    86399 },
	{ "max 10s, next in 1h", "m1", "job", 10, 3600, 1000, 10 },
};

/* Bounds, determinism, and that the cap is the only thing that binds. */
static void
delay_bound_run(const struct delay_bound_case *c)
{
	int64_t	base = at("2027-03-14T07:00:00Z"), t, next, d, top = 0;
	int	i, at_cap = 0;

	T_RUN(c->name);
	for (i = 0; i < c->n; i++) {
		t = base + (int64_t)i * 61;
		next = c->gap > 0 ? t + c->gap : -1;
		d = policy_random_delay(c->machine, c->job, t, c->max, next);
		if (d < 0 || d > c->want_max) {
			T_TRUE(d >= 0 && d <= c->want_max);
			(void)printf("  at %" PRId64 ": delay %" PRId64 "\n",
			    t, d);
			break;
		}
		if (next != -1 && d >= next - t) {
			T_TRUE(d < next - t);
			break;
		}
		T_EQ_INT(policy_random_delay(c->machine, c->job, t, c->max,
		    next), d);
		if (d > top)
			top = d;
		at_cap += d == c->want_max;
	}
	/* A small range is used up to its largest allowed delay. */
	if (c->want_max > 0 && c->want_max < 20)
		T_TRUE(at_cap > 0);
	if (c->want_max == 0)
		T_EQ_INT(top, 0);
}

/*
 * Spread: over n instants one step apart, the delays hit every tenth of
 * [0, max]; over variations of one input (jobs, machines, instants) the
 * delays are mostly distinct.
 */
static void
test_delay_spread(void)
{
	static const int64_t maxes[] = { 9, 599, 3600, 86400, 604800 };
	int64_t		base = at("2027-01-01T00:00:00Z"), d, max;
	int		deciles[10], i, k, hit, distinct;
	int64_t		v[200];
	char		job[32], machine[40];
	size_t		m;

	for (m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
		T_RUN("spread over deciles");
		max = maxes[m];
		memset(deciles, 0, sizeof deciles);
		for (i = 0; i < 1000; i++) {
			d = policy_random_delay("0123456789abcdef", "backup",
			    base + (int64_t)i * 60, max, -1);
			deciles[d * 10 / (max + 1)]++;
		}
		for (k = 0, hit = 0; k < 10; k++)
			hit += deciles[k] > 0;
		if (!T_EQ_INT(hit, 10))
			(void)printf("  max %" PRId64 "\n", max);
		/* No tenth holds more than three times its share. */
		for (k = 0; k < 10; k++)
			T_TRUE(deciles[k] < 300);
	}

	/* Each input matters: 200 variants give mostly distinct delays. */
	for (k = 0; k < 3; k++) {
		T_RUN(k == 0 ? "differs by job" : k == 1 ? "differs by machine"
		    : "differs by instant");
		for (i = 0; i < 200; i++) {
			(void)snprintf(job, sizeof job, "job%d", k == 0 ? i : 0);
			(void)snprintf(machine, sizeof machine, "machine-%d",
			    k == 1 ? i : 0);
			v[i] = policy_random_delay(machine, job,
			    base + (k == 2 ? i : 0), 1000000, -1);
		}
		distinct = 0;
		for (i = 0; i < 200; i++) {
			for (hit = 0; hit < i; hit++) {
				if (v[hit] == v[i])
					break;
			}
			distinct += hit == i;
		}
		T_TRUE(distinct >= 195);
	}

	/* Adjacent instants, jobs that differ in one letter: not equal. */
	T_RUN("near inputs");
	T_TRUE(policy_random_delay("m", "a", base, 86400, -1) !=
	    policy_random_delay("m", "b", base, 86400, -1));
	T_TRUE(policy_random_delay("m", "a", base, 86400, -1) !=
	    policy_random_delay("m", "a", base + 1, 86400, -1));
	T_TRUE(policy_random_delay("m", "a", base, 86400, -1) !=
	    policy_random_delay("n", "a", base, 86400, -1));
	/* The job and machine strings are not simply concatenated. */
	T_TRUE(policy_random_delay("ab", "c", base, 86400, -1) !=
	    policy_random_delay("a", "bc", base, 86400, -1));
}

/*
 * Stability across restarts and releases: these delays must never
 * change, or instances scheduled before an upgrade would move.  (Pinned
 * from the first release's hash.)
 */
struct delay_pin_case {
	const char	*machine;
	const char	*job;
	const char	*at;
	int64_t		 max;
	int64_t		 want;
};

static const struct delay_pin_case delay_pin_cases[] = {
	{ "0123456789abcdef0123456789abcdef", "backup",
	    "2027-03-14T07:00:00Z", 3600, 2179 },
	{ "0123456789abcdef0123456789abcdef", "rotate-logs",
	    "2027-01-01T00:00:00Z", 604800, 381887 },
	{ "", "x", "1970-01-01T00:00:00Z", 59, 48 },
};

/* A scan: schedule, zone, policies, next and now, and the summary. */
struct scan_case {
	const char	*name;
	const char	*text;
	const char	*zone;
	enum tz_gap	 gap;
	enum tz_fold	 fold;
	const char	*next;
	const char	*now;
	const char	*first, *last, *prev;
	int64_t		 count;
	int		 capped;
	const char	*next_want;
};

#define NY	"America/New_York"
#define G_AUTO	TZ_GAP_AUTO
#define F_AUTO	TZ_FOLD_AUTO

static const struct scan_case scan_cases[] = {
	/* Nothing due: next is after now, and is returned as is. */
	{ "nothing due", "0 3 * * *", "UTC", G_AUTO, F_AUTO,
	    "2027-03-14T03:00:00Z", "2027-03-14T02:59:59Z",
	    NONE, NONE, NONE, 0, 0, "2027-03-14T03:00:00Z" },
	{ "nothing planned", "0 3 * * *", "UTC", G_AUTO, F_AUTO,
	    NONE, "2027-03-14T02:59:59Z",
	    NONE, NONE, NONE, 0, 0, NONE },
	{ "every: nothing due", "every 15m", "UTC", G_AUTO, F_AUTO,
	    "2027-03-14T03:00:00Z", "2027-03-14T02:00:00Z",
	    NONE, NONE, NONE, 0, 0, "2027-03-14T03:00:00Z" },
	/* Exactly one: at now, and just before the following instant. */
	{ "one due at now", "0 3 * * *", "UTC", G_AUTO, F_AUTO,
	    "2027-03-14T03:00:00Z", "2027-03-14T03:00:00Z",
	    "2027-03-14T03:00:00Z", "2027-03-14T03:00:00Z", NONE, 1, 0,
	    "2027-03-15T03:00:00Z" },
	{ "one due, next a second away", "0 3 * * *", "UTC", G_AUTO,
	    F_AUTO, "2027-03-14T03:00:00Z", "2027-03-15T02:59:59Z",
	    "2027-03-14T03:00:00Z", "2027-03-14T03:00:00Z", NONE, 1, 0,
	    "2027-03-15T03:00:00Z" },
	{ "two due", "0 3 * * *", "UTC", G_AUTO, F_AUTO,
	    "2027-03-14T03:00:00Z", "2027-03-15T03:00:00Z",
	    "2027-03-14T03:00:00Z", "2027-03-15T03:00:00Z",
	    "2027-03-14T03:00:00Z", 2, 0, "2027-03-16T03:00:00Z" },
	/* Many: every minute for 200 minutes (201 instants). */
	{ "every minute, 200 minutes", "* * * * *", "UTC", G_AUTO, F_AUTO,
	    "2027-01-01T00:00:00Z", "2027-01-01T03:20:00Z",
	    "2027-01-01T00:00:00Z", "2027-01-01T03:20:00Z",
	    "2027-01-01T03:19:00Z", 201, 0, "2027-01-01T03:21:00Z" },
	{ "every minute, 200m 59s", "* * * * *", "UTC", G_AUTO, F_AUTO,
	    "2027-01-01T00:00:00Z", "2027-01-01T03:20:59Z",
	    "2027-01-01T00:00:00Z", "2027-01-01T03:20:00Z",
	    "2027-01-01T03:19:00Z", 201, 0, "2027-01-01T03:21:00Z" },
	{ "weekdays at 9, a month", "0 9 * * 1-5", "UTC", G_AUTO, F_AUTO,
	    "2027-03-01T09:00:00Z", "2027-03-31T23:00:00Z",
	    "2027-03-01T09:00:00Z", "2027-03-31T09:00:00Z",
	    "2027-03-30T09:00:00Z", 23, 0, "2027-04-01T09:00:00Z" },
	/* Fixed rate: arithmetic, exact. */
	{ "every 1s, a month", "every 1s", "UTC", G_AUTO, F_AUTO,
	    "2027-01-01T00:00:00Z", "2027-01-31T00:00:00Z",
	    "2027-01-01T00:00:00Z", "2027-01-31T00:00:00Z",
	    "2027-01-30T23:59:59Z", 30 * 86400 + 1, 0,
	    "2027-01-31T00:00:01Z" },
	{ "every 15m, partial", "every 15m", "UTC", G_AUTO, F_AUTO,
	    "2027-01-01T00:00:00Z", "2027-01-01T01:07:30Z",
	    "2027-01-01T00:00:00Z", "2027-01-01T01:00:00Z",
	    "2027-01-01T00:45:00Z", 5, 0, "2027-01-01T01:15:00Z" },
	{ "every 15m, one at now", "every 15m", "UTC", G_AUTO, F_AUTO,
	    "2027-01-01T00:00:00Z", "2027-01-01T00:00:00Z",
	    "2027-01-01T00:00:00Z", "2027-01-01T00:00:00Z", NONE, 1, 0,
	    "2027-01-01T00:15:00Z" },
	{ "every 15m, just before the second", "every 15m", "UTC", G_AUTO,
	    F_AUTO, "2027-01-01T00:00:00Z", "2027-01-01T00:14:59Z",
	    "2027-01-01T00:00:00Z", "2027-01-01T00:00:00Z", NONE, 1, 0,
	    "2027-01-01T00:15:00Z" },
	{ "every 7s, not minute-aligned", "every 7s", "UTC", G_AUTO, F_AUTO,
	    "2027-01-01T00:00:01Z", "2027-01-01T00:00:25Z",
	    "2027-01-01T00:00:01Z", "2027-01-01T00:00:22Z",
	    "2027-01-01T00:00:15Z", 4, 0, "2027-01-01T00:00:29Z" },
	{ "every 1s, 200 days (over the cap, exact)", "every 1s", "UTC",
	    G_AUTO, F_AUTO, "2027-01-01T00:00:00Z", "2027-07-20T00:00:00Z",
	    "2027-01-01T00:00:00Z", "2027-07-20T00:00:00Z",
	    "2027-07-19T23:59:59Z", 200 * 86400 + 1, 0,
	    "2027-07-20T00:00:01Z" },
	{ "every 1h30m, a year", "every 1h30m", "UTC", G_AUTO, F_AUTO,
	    "2027-01-01T00:00:00Z", "2027-12-31T23:59:59Z",
	    "2027-01-01T00:00:00Z", "2027-12-31T22:30:00Z",
	    "2027-12-31T21:00:00Z", 365 * 16, 0, "2028-01-01T00:00:00Z" },
	/* The zone does not matter to a fixed rate. */
	{ "every 1h in New York across DST", "every 1h", NY, G_AUTO, F_AUTO,
	    "2027-03-14T05:00:00Z", "2027-03-14T09:30:00Z",
	    "2027-03-14T05:00:00Z", "2027-03-14T09:00:00Z",
	    "2027-03-14T08:00:00Z", 5, 0, "2027-03-14T10:00:00Z" },
	/*
	 * New York springs forward on 2027-03-14 at 02:00 EST: 02:30 does
	 * not exist.  shift: 03:00 EDT (07:00Z); skip: no run that day;
	 * auto for a fixed-time job is shift.
	 */
	{ "DST gap, shift", "30 2 * * *", NY, TZ_GAP_SHIFT, F_AUTO,
	    "2027-03-13T07:30:00Z", "2027-03-16T12:00:00Z",
	    "2027-03-13T07:30:00Z", "2027-03-16T06:30:00Z",
	    "2027-03-15T06:30:00Z", 4, 0, "2027-03-17T06:30:00Z" },
	{ "DST gap, auto", "30 2 * * *", NY, G_AUTO, F_AUTO,
	    "2027-03-13T07:30:00Z", "2027-03-16T12:00:00Z",
	    "2027-03-13T07:30:00Z", "2027-03-16T06:30:00Z",
	    "2027-03-15T06:30:00Z", 4, 0, "2027-03-17T06:30:00Z" },
	{ "DST gap, skip", "30 2 * * *", NY, TZ_GAP_SKIP, F_AUTO,
	    "2027-03-13T07:30:00Z", "2027-03-16T12:00:00Z",
	    "2027-03-13T07:30:00Z", "2027-03-16T06:30:00Z",
	    "2027-03-15T06:30:00Z", 3, 0, "2027-03-17T06:30:00Z" },
	{ "DST gap, shift, stop in the gap day", "30 2 * * *", NY,
	    TZ_GAP_SHIFT, F_AUTO,
	    "2027-03-13T07:30:00Z", "2027-03-14T07:00:00Z",
	    "2027-03-13T07:30:00Z", "2027-03-14T07:00:00Z",
	    "2027-03-13T07:30:00Z", 2, 0, "2027-03-15T06:30:00Z" },
	{ "DST gap, skip, stop in the gap day", "30 2 * * *", NY,
	    TZ_GAP_SKIP, F_AUTO,
	    "2027-03-13T07:30:00Z", "2027-03-14T07:00:00Z",
	    "2027-03-13T07:30:00Z", "2027-03-13T07:30:00Z", NONE, 1, 0,
	    "2027-03-15T06:30:00Z" },
	/*
	 * New York falls back on 2027-11-07 at 02:00 EDT: 01:30 happens at
	 * 05:30Z (EDT) and 06:30Z (EST).
	 */
	{ "DST fold, both", "30 1 * * *", NY, G_AUTO, TZ_FOLD_BOTH,
	    "2027-11-06T05:30:00Z", "2027-11-07T12:00:00Z",
	    "2027-11-06T05:30:00Z", "2027-11-07T06:30:00Z",
	    "2027-11-07T05:30:00Z", 3, 0, "2027-11-08T06:30:00Z" },
	{ "DST fold, first", "30 1 * * *", NY, G_AUTO, TZ_FOLD_FIRST,
	    "2027-11-06T05:30:00Z", "2027-11-07T12:00:00Z",
	    "2027-11-06T05:30:00Z", "2027-11-07T05:30:00Z",
	    "2027-11-06T05:30:00Z", 2, 0, "2027-11-08T06:30:00Z" },
	{ "DST fold, second", "30 1 * * *", NY, G_AUTO, TZ_FOLD_SECOND,
	    "2027-11-06T05:30:00Z", "2027-11-07T12:00:00Z",
	    "2027-11-06T05:30:00Z", "2027-11-07T06:30:00Z",
	    "2027-11-06T05:30:00Z", 2, 0, "2027-11-08T06:30:00Z" },
	{ "DST fold, every 30 minutes (auto: both)", "*/30 * * * *", NY,
	    G_AUTO, F_AUTO, "2027-11-07T05:00:00Z", "2027-11-07T07:00:00Z",
	    "2027-11-07T05:00:00Z", "2027-11-07T07:00:00Z",
	    "2027-11-07T06:30:00Z", 5, 0, "2027-11-07T07:30:00Z" },
	/* No calendar: the planned instant alone, then none. */
	{ "after: only the planned one", "after 1h", "UTC", G_AUTO, F_AUTO,
	    "2027-01-01T00:00:00Z", "2027-01-01T10:00:00Z",
	    "2027-01-01T00:00:00Z", "2027-01-01T00:00:00Z", NONE, 1, 0,
	    NONE },
	/* The end of time: the last instant is due, none follows. */
	{ "end of time", "* * * * * *", "UTC", G_AUTO, F_AUTO,
	    "9999-12-31T23:59:58Z", "9999-12-31T23:59:59Z",
	    "9999-12-31T23:59:58Z", "9999-12-31T23:59:59Z",
	    "9999-12-31T23:59:58Z", 2, 0, NONE },
};

/*
 * Capped scans: more than POLICY_SCAN_MAX instants due.  The count stops
 * at POLICY_SCAN_MAX, last is the newest instant due (computed from step),
 * prev and next are its neighbours, and the scan is fast.  Only one case:
 * each costs POLICY_SCAN_MAX calls of schedule_next today (see the timing
 * check), which is seconds under the sanitizers.
 */
struct capped_case {
	const char	*name;
	const char	*text;
	const char	*next;
	int64_t		 span;		/* now = next + span */
	int64_t		 step;		/* seconds between instants */
};

static const struct capped_case capped_cases[] = {
	{ "capped: every second, 139 days", "* * * * * *",
	    "2027-01-01T00:00:00Z", 12000000, 1 },
};

/* One scan case. */
static void
scan_run(const struct scan_case *c)
{
	struct schedule		*s;
	const struct tz		*z;
	struct policy_late	 out;
	char			*cause = NULL;

	T_RUN(c->name);
	if ((s = schedule_parse(c->text, NULL, &cause)) == NULL ||
	    (z = tz_cache_get(cache, c->zone, &cause)) == NULL) {
		(void)printf("  %s: %s\n", c->name, cause);
		T_TRUE(0);
		free(cause);
		schedule_free(s);
		return;
	}
	memset(&out, 0x55, sizeof out);
	policy_scan(s, z, c->gap, c->fold, at(c->next), at(c->now), &out);
	T_EQ_TIME(out.first, at(c->first));
	T_EQ_TIME(out.last, at(c->last));
	T_EQ_TIME(out.prev, at(c->prev));
	T_EQ_INT(out.count, c->count);
	T_EQ_INT(out.capped, c->capped);
	T_EQ_TIME(out.next, at(c->next_want));
	schedule_free(s);
}

/* One capped case, timed. */
static void
capped_run(const struct capped_case *c)
{
	struct schedule		*s;
	const struct tz		*z;
	struct policy_late	 out;
	char			*cause = NULL;
	int64_t			 next = at(c->next), now = next + c->span;
	int64_t			 last = now - (now - next) % c->step;
	double			 t0, dt;

	T_RUN(c->name);
	s = schedule_parse(c->text, NULL, &cause);
	z = tz_cache_get(cache, "UTC", &cause);
	if (s == NULL || z == NULL) {
		T_TRUE(0);
		free(cause);
		return;
	}
	T_TRUE(c->span / c->step > POLICY_SCAN_MAX);
	t0 = cpu();
	policy_scan(s, z, TZ_GAP_AUTO, TZ_FOLD_AUTO, next, now, &out);
	dt = cpu() - t0;
	T_EQ_INT(out.capped, 1);
	T_EQ_INT(out.count, POLICY_SCAN_MAX);
	T_EQ_TIME(out.first, next);
	T_EQ_TIME(out.last, last);
	T_EQ_TIME(out.prev, last - c->step);
	T_EQ_TIME(out.next, last + c->step);
	/* "One pass and no memory": well under a second of CPU. */
	if (!T_TRUE(dt < 0.5))
		(void)printf("  [%s] policy_scan took %.2f s of CPU\n",
		    c->name, dt);
	schedule_free(s);
}

/* --- the policy words ----------------------------------------------------- */

/* A subtest name "a \"b\"" (valid until the next call). */
static const char *
sub(const char *a, const char *b)
{
	static char buf[160];

	(void)snprintf(buf, sizeof buf, "%s \"%s\"", a, b);
	return buf;
}

/*
 * A policy's words: each parses to its enum value and back; the others
 * are refused (the value is left alone), and values out of the enum are
 * named "?".
 */
struct word_case {
	const char	*what;
	int		(*parse)(const char *, int *);
	const char	*(*name)(int);
	const char	*words[5];	/* in enum order, NULL-terminated */
	int		 values[5];	/* the enum constants, same order */
	const char	*bad[10];	/* NULL-terminated */
};

static const struct word_case word_cases[] = {
	{ "overlap", policy_overlap_parse, policy_overlap_name,
	    { "skip", "queue", "allow", "replace", NULL },
	    { POLICY_OVERLAP_SKIP, POLICY_OVERLAP_QUEUE, POLICY_OVERLAP_ALLOW,
	      POLICY_OVERLAP_REPLACE },
	    { "", "Skip", "SKIP", " skip", "skip ", "queued", "run_once",
	      "sometimes", "0", NULL } },
	{ "misfire", policy_misfire_parse, policy_misfire_name,
	    { "run_once", "catch_up", "skip", NULL },
	    { POLICY_MISFIRE_RUN_ONCE, POLICY_MISFIRE_CATCH_UP,
	      POLICY_MISFIRE_SKIP },
	    { "", "run-once", "runonce", "RUN_ONCE", "catchup", "catch_up ",
	      "queue", "maybe", "2", NULL } },
	{ "recover", policy_recover_parse, policy_recover_name,
	    { "rerun", "abandon", NULL },
	    { POLICY_RECOVER_RERUN, POLICY_RECOVER_ABANDON },
	    { "", "Rerun", "re-run", "abandoned", "skip", "maybe", "1",
	      NULL } },
};

static void
word_run(const struct word_case *c)
{
	int	i, n, v;

	T_RUN(c->what);
	for (n = 0; c->words[n] != NULL; n++) {
		v = -7;
		T_EQ_INT(c->parse(c->words[n], &v), 0);
		T_EQ_INT(v, c->values[n]);
		T_EQ_STR(c->name(c->values[n]), c->words[n]);
		/* Round trip through the name. */
		v = -7;
		T_EQ_INT(c->parse(c->name(c->values[n]), &v), 0);
		T_EQ_INT(v, c->values[n]);
	}
	for (i = 0; c->bad[i] != NULL; i++) {
		v = -7;
		if (!T_EQ_INT(c->parse(c->bad[i], &v), -1))
			(void)printf("  [%s] \"%s\" accepted\n", c->what,
			    c->bad[i]);
		T_EQ_INT(v, -7);
	}
	T_EQ_STR(c->name(-1), "?");
	T_EQ_STR(c->name(n), "?");
	T_EQ_STR(c->name(1000), "?");
}

/* --- signals ---------------------------------------------------------- */

struct signal_case {
	const char	*text;
	int		 want;		/* -1: refused */
};

static const struct signal_case signal_cases[] = {
	{ "TERM", SIGTERM }, { "SIGTERM", SIGTERM }, { "sigterm", SIGTERM },
	{ "term", SIGTERM }, { "Term", SIGTERM }, { "15", 15 },
	{ "KILL", SIGKILL }, { "SIGKILL", SIGKILL }, { "9", 9 },
	{ "INT", SIGINT }, { "SIGINT", SIGINT }, { "HUP", SIGHUP },
	{ "QUIT", SIGQUIT }, { "USR1", SIGUSR1 }, { "SIGUSR2", SIGUSR2 },
	{ "ALRM", SIGALRM }, { "CONT", SIGCONT }, { "STOP", SIGSTOP },
	{ "TSTP", SIGTSTP }, { "WINCH", SIGWINCH }, { "PWR", SIGPWR },
	{ "1", 1 }, { "64", 64 },
	{ "0", -1 }, { "65", -1 }, { "-15", -1 }, { "", -1 }, { "FOO", -1 },
	{ "SIGFOO", -1 }, { "SIG", -1 }, { "SIGSIGTERM", -1 }, { "15x", -1 },
	{ "TERM ", -1 }, { "SIG TERM", -1 }, { "99999999999999999999", -1 },
};

/* --- exit codes ------------------------------------------------------- */

struct exit_codes_case {
	const char	*text;
	int		 ok;
	int		 any;
	const char	*codes;		/* the bits set, ascending, "," */
};

static const struct exit_codes_case exit_codes_cases[] = {
	{ "any", 1, 1, "" },
	{ "75", 1, 0, "75" },
	{ "75, 1,2", 1, 0, "1,2,75" },
	{ "1,255", 1, 0, "1,255" },
	{ " 75 , 111 ", 1, 0, "75,111" },
	{ "75,75", 1, 0, "75" },
	{ "8,7,9,15,16,17", 1, 0, "7,8,9,15,16,17" },
	{ "", 0, 0, "" },
	{ "0", 0, 0, "" },
	{ "256", 0, 0, "" },
	{ "-1", 0, 0, "" },
	{ "75,", 0, 0, "" },
	{ ",75", 0, 0, "" },
	{ "75,,76", 0, 0, "" },
	{ "x", 0, 0, "" },
	{ "75;76", 0, 0, "" },
	{ "75 76", 0, 0, "" },
	{ "0,75", 0, 0, "" },
	{ "ANY", 0, 0, "" },
	{ "any,75", 0, 0, "" },
	{ "99999999999999999999", 0, 0, "" },
};

/* The bits set in a retry_on_exit set, as "1,2,75". */
static void
bits_text(const uint8_t bits[32], char *buf, size_t len)
{
	size_t	off = 0;
	int	i;

	buf[0] = '\0';
	for (i = 0; i < 256 && off < len; i++) {
		if (bits[i / 8] >> (i % 8) & 1)
			off += (size_t)snprintf(buf + off, len - off, "%s%d",
			    off > 0 ? "," : "", i);
	}
}

static void
test_exit_codes(void)
{
	uint8_t	 bits[32];
	char	 got[1024], want[256], *cause;
	size_t	 i;
	int	 any, rc;

	for (i = 0; i < sizeof exit_codes_cases / sizeof exit_codes_cases[0];
	    i++) {
		const struct exit_codes_case *c = &exit_codes_cases[i];

		T_RUN(sub("retry_on_exit", c->text));
		memset(bits, 0xff, sizeof bits);
		any = -1;
		cause = NULL;
		rc = policy_exit_codes_parse(c->text, bits, &any, &cause);
		T_EQ_INT(rc, c->ok ? 0 : -1);
		if (c->ok) {
			T_TRUE(cause == NULL);
			T_EQ_INT(any, c->any);
			bits_text(bits, got, sizeof got);
			T_EQ_STR(got, c->codes);
		} else {
			(void)snprintf(want, sizeof want, "\"%s\" is not \"any\" "
			    "or a list of exit codes 1-255", c->text);
			T_EQ_STR(cause, want);
		}
		free(cause);
	}
}

/* --- shard lists ------------------------------------------------------ */

struct shards_case {
	const char	*text;
	int		 from;		/* shards_from output, not shards = */
	int		 want;		/* count, -1: refused */
	const char	*list;		/* as recorded, or the cause */
	size_t		 len;		/* shards_from's bytes, 0: strlen */
};

static const struct shards_case shards_cases[] = {
	{ "1", 0, 1, "0", 0 },
	{ "3", 0, 3, "0\n1\n2", 0 },
	{ " 4 ", 0, 4, "0\n1\n2\n3", 0 },
	{ "10000", 0, 10000, NULL, 0 },
	{ "0", 0, -1, "0 shards: from 1 to 10000", 0 },
	{ "10001", 0, -1, "10001 shards: from 1 to 10000", 0 },
	{ "-2", 0, -1, "-2 shards: from 1 to 10000", 0 },
	{ "beijing, shanghai,shenzhen", 0, 3, "beijing\nshanghai\nshenzhen", 0 },
	{ "a b, c", 0, 2, "a b\nc", 0 },
	{ "eu", 0, 1, "eu", 0 },
	{ "2027-01, 2027-02", 0, 2, "2027-01\n2027-02", 0 },
	{ "a,,b", 0, -1, "\"a,,b\": an empty shard in the list", 0 },
	{ "a,", 0, -1, "\"a,\": an empty shard in the list", 0 },
	{ ",a", 0, -1, "\",a\": an empty shard in the list", 0 },
	{ "a, b, a", 0, -1, "\"a\" is in the list twice", 0 },
	{ "ab, a", 0, 2, "ab\na", 0 },
	{ "t1\nt2\n", 1, 2, "t1\nt2", 0 },
	{ "  t1 \r\n\n\t\nt 2\t\n", 1, 2, "t1\nt 2", 0 },
	{ "only", 1, 1, "only", 0 },
	{ "", 1, -1, "it printed no shard", 0 },
	{ "\n \n\r\n", 1, -1, "it printed no shard", 0 },
	{ "a\nb\0c\n", 1, -1, "its output holds a NUL byte", 6 },
};

static void
shards_run(const struct shards_case *c)
{
	char	*out = NULL, *cause = NULL, **v;
	size_t	 len = c->len != 0 ? c->len : strlen(c->text);
	int	 n, k;

	T_RUN(sub(c->from ? "shards_from" : "shards", c->text));
	n = c->from ? policy_shards_from(c->text, len, &out, &cause) :
	    policy_shards_list(c->text, &out, &cause);
	T_EQ_INT(n, c->want);
	if (n == -1) {
		T_TRUE(out == NULL);
		T_EQ_STR(cause, c->list);
		free(cause);
		return;
	}
	T_TRUE(cause == NULL);
	if (c->list != NULL)
		T_EQ_STR(out, c->list);
	v = policy_shards_split(out, &k);
	T_EQ_INT(k, n);
	T_TRUE(v[k] == NULL);
	if (c->list == NULL)		/* 10000: the last is its index */
		T_EQ_STR(v[k - 1], "9999");
	free(v[0]);
	free(v);
	free(out);
}

/* Whether a failure is retried: retry_on_exit, then exit statuses. */
struct retryable_case {
	const char	*codes;
	int		 exit_status;	/* -1: signal, timeout, spawn */
	int		 want;
};

static const struct retryable_case retryable_cases[] = {
	{ "any", -1, 1 }, { "any", 1, 1 }, { "any", 75, 1 },
	{ "any", 255, 1 }, { "any", 2, 1 },
	{ "75", 75, 1 }, { "75", 74, 0 }, { "75", 76, 0 }, { "75", -1, 0 },
	{ "75", 0, 0 }, { "75", 1, 0 }, { "75", 255, 0 }, { "75", 256, 0 },
	{ "75", 75 + 256, 0 },
	{ "1,2,255", 1, 1 }, { "1,2,255", 2, 1 }, { "1,2,255", 255, 1 },
	{ "1,2,255", 3, 0 }, { "1,2,255", -1, 0 }, { "1,2,255", 0, 0 },
	{ "7,8,9", 7, 1 }, { "7,8,9", 8, 1 }, { "7,8,9", 9, 1 },
	{ "7,8,9", 6, 0 }, { "7,8,9", 10, 0 }, { "7,8,9", 16, 0 },
};

static void
test_retryable(void)
{
	uint8_t	 bits[32];
	char	*cause = NULL, name[64];
	size_t	 i;
	int	 any;

	for (i = 0; i < sizeof retryable_cases / sizeof retryable_cases[0];
	    i++) {
		const struct retryable_case *c = &retryable_cases[i];

		(void)snprintf(name, sizeof name, "retryable %s / %d",
		    c->codes, c->exit_status);
		T_RUN(sub("retryable", c->codes));
		if (!T_EQ_INT(policy_exit_codes_parse(c->codes, bits, &any,
		    &cause), 0)) {
			free(cause);
			continue;
		}
		if (!T_EQ_INT(policy_exit_retryable(bits, any,
		    c->exit_status), c->want))
			(void)printf("  %s\n", name);
	}
	/* "any" retries every kind of failure, whatever the bits say. */
	T_RUN("any ignores the bits");
	memset(bits, 0, sizeof bits);
	T_EQ_INT(policy_exit_retryable(bits, 1, -1), 1);
	T_EQ_INT(policy_exit_retryable(bits, 1, 42), 1);
	T_EQ_INT(policy_exit_retryable(bits, 0, 42), 0);
}

/* The wait before the attempt after failed attempt k. */
struct retry_delay_case {
	int64_t	delay, max;
	int	k;
	int64_t	want;
};

static const struct retry_delay_case retry_delay_cases[] = {
	{ 30, 3600, 1, 30 }, { 30, 3600, 2, 60 }, { 30, 3600, 3, 120 },
	{ 30, 3600, 4, 240 }, { 30, 3600, 5, 480 }, { 30, 3600, 6, 960 },
	{ 30, 3600, 7, 1920 }, { 30, 3600, 8, 3600 }, { 30, 3600, 9, 3600 },
	{ 30, 3600, 100, 3600 }, { 30, 3600, 1000000, 3600 },
	{ 30, 3600, 0, 30 },			/* before any: the delay */
	{ 7200, 3600, 1, 3600 },		/* delay > max: max */
	{ 7200, 3600, 5, 3600 },
	{ 60, 60, 1, 60 }, { 60, 60, 2, 60 },
	{ 1, 86400 * 7, 20, 524288 }, { 1, 86400 * 7, 21, 604800 },
	{ 86400, 86400 * 7, 3, 345600 }, { 86400, 86400 * 7, 4, 604800 },
	{ 1, 1, 64, 1 },
};

/* --- policy_due ----------------------------------------------------------- */

#define DUE_BUFSZ	128
#define RUN_ONCE	POLICY_MISFIRE_RUN_ONCE
#define CATCH_UP	POLICY_MISFIRE_CATCH_UP
#define SKIP		POLICY_MISFIRE_SKIP

/*
 * The due instances of a job, from its next planned instant through now,
 * and what becomes of them: a skipped range (reason), the instances to
 * run (oldest first; the first ncatch are catch-up runs), the on-time
 * ones that did not fit (more), the newest due and the next instant.
 */
struct due_case {
	const char	*name;
	const char	*text;
	const char	*zone;
	const char	*next;
	const char	*now;
	int64_t		 grace;
	int		 misfire;
	int64_t		 limit;		/* catch_up_limit */
	size_t		 bufsz;		/* 0: DUE_BUFSZ */
	const char	*skip_first, *skip_last;
	int64_t		 skip_count;
	const char	*skip_reason;
	const char	*run;		/* instants, blank-separated */
	size_t		 ncatch;
	const char	*more_first, *more_last;
	int64_t		 more_count;
	const char	*last;
	const char	*next_want;
};

#define NOSKIP		NONE, NONE, 0, ""
#define NOMORE		NONE, NONE, 0

static const struct due_case due_cases[] = {
	/* Nothing due. */
	{ "due: nothing due", "0 3 * * *", "UTC", "2027-03-14T03:00:00Z",
	    "2027-03-14T02:59:59Z", 60, RUN_ONCE, 100, 0, NOSKIP, "", 0,
	    NOMORE, NONE, "2027-03-14T03:00:00Z" },
	{ "due: nothing planned", "0 3 * * *", "UTC", NONE,
	    "2027-03-14T02:59:59Z", 60, RUN_ONCE, 100, 0, NOSKIP, "", 0,
	    NOMORE, NONE, NONE },
	{ "due: nothing due, catch_up", "every 15m", "UTC",
	    "2027-03-14T03:00:00Z", "2027-03-14T02:00:00Z", 60, CATCH_UP, 100,
	    0, NOSKIP, "", 0, NOMORE, NONE, "2027-03-14T03:00:00Z" },

	/* On time: within grace, whatever the misfire policy. */
	{ "due: one on time, at its instant", "0 3 * * *", "UTC",
	    "2027-03-14T03:00:00Z", "2027-03-14T03:00:00Z", 60, RUN_ONCE, 100,
	    0, NOSKIP, "2027-03-14T03:00:00Z", 0, NOMORE,
	    "2027-03-14T03:00:00Z", "2027-03-15T03:00:00Z" },
	{ "due: one on time, 30s late", "0 3 * * *", "UTC",
	    "2027-03-14T03:00:00Z", "2027-03-14T03:00:30Z", 60, SKIP, 100, 0,
	    NOSKIP, "2027-03-14T03:00:00Z", 0, NOMORE,
	    "2027-03-14T03:00:00Z", "2027-03-15T03:00:00Z" },
	{ "due: one on time, 59s late", "0 3 * * *", "UTC",
	    "2027-03-14T03:00:00Z", "2027-03-14T03:00:59Z", 60, SKIP, 100, 0,
	    NOSKIP, "2027-03-14T03:00:00Z", 0, NOMORE,
	    "2027-03-14T03:00:00Z", "2027-03-15T03:00:00Z" },
	{ "due: several on time, run_once", "* * * * * *", "UTC",
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:02Z", 60, RUN_ONCE, 100,
	    0, NOSKIP, "2027-03-14T12:00:00Z 2027-03-14T12:00:01Z "
	    "2027-03-14T12:00:02Z", 0, NOMORE, "2027-03-14T12:00:02Z",
	    "2027-03-14T12:00:03Z" },
	{ "due: several on time, catch_up", "* * * * * *", "UTC",
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:02Z", 60, CATCH_UP, 100,
	    0, NOSKIP, "2027-03-14T12:00:00Z 2027-03-14T12:00:01Z "
	    "2027-03-14T12:00:02Z", 0, NOMORE, "2027-03-14T12:00:02Z",
	    "2027-03-14T12:00:03Z" },
	{ "due: several on time, every 10s, skip", "every 10s", "UTC",
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:55Z", 60, SKIP, 100, 0,
	    NOSKIP, "2027-03-14T12:00:00Z 2027-03-14T12:00:10Z "
	    "2027-03-14T12:00:20Z 2027-03-14T12:00:30Z 2027-03-14T12:00:40Z "
	    "2027-03-14T12:00:50Z", 0, NOMORE, "2027-03-14T12:00:50Z",
	    "2027-03-14T12:01:00Z" },
	{ "due: a long grace keeps all on time", "* * * * *", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-14T00:03:00Z", 3600, SKIP, 100,
	    0, NOSKIP, "2027-03-14T00:00:00Z 2027-03-14T00:01:00Z "
	    "2027-03-14T00:02:00Z 2027-03-14T00:03:00Z", 0, NOMORE,
	    "2027-03-14T00:03:00Z", "2027-03-14T00:04:00Z" },

	/*
	 * The grace boundary: an instance is a misfire when found MORE than
	 * misfire_grace late (tickd.job(5), issue 4).  60s late is on time;
	 * 61s late is a misfire.
	 */
	{ "due: exactly grace late is on time", "every 1m", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-14T00:01:00Z", 60, SKIP, 100, 0,
	    NOSKIP, "2027-03-14T00:00:00Z 2027-03-14T00:01:00Z", 0, NOMORE,
	    "2027-03-14T00:01:00Z", "2027-03-14T00:02:00Z" },
	{ "due: a second over grace is a misfire", "every 1m", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-14T00:01:01Z", 60, SKIP, 100, 0,
	    "2027-03-14T00:00:00Z", "2027-03-14T00:00:00Z", 1, "misfire",
	    "2027-03-14T00:01:00Z", 0, NOMORE, "2027-03-14T00:01:00Z",
	    "2027-03-14T00:02:00Z" },

	/* run_once: the newest due instance runs, the rest coalesce. */
	{ "due: run_once, a daily job off at 03:00", "0 3 * * *", "UTC",
	    "2027-03-14T03:00:00Z", "2027-03-14T08:00:00Z", 60, RUN_ONCE, 100,
	    0, NOSKIP, "2027-03-14T03:00:00Z", 0, NOMORE,
	    "2027-03-14T03:00:00Z", "2027-03-15T03:00:00Z" },
	{ "due: run_once, two misfires", "0 3 * * *", "UTC",
	    "2027-03-14T03:00:00Z", "2027-03-15T05:00:00Z", 60, RUN_ONCE, 100,
	    0, "2027-03-14T03:00:00Z", "2027-03-14T03:00:00Z", 1, "coalesced",
	    "2027-03-15T03:00:00Z", 0, NOMORE, "2027-03-15T03:00:00Z",
	    "2027-03-16T03:00:00Z" },
	{ "due: run_once, three days down", "0 3 * * *", "UTC",
	    "2027-03-14T03:00:00Z", "2027-03-16T12:00:00Z", 60, RUN_ONCE, 100,
	    0, "2027-03-14T03:00:00Z", "2027-03-15T03:00:00Z", 2, "coalesced",
	    "2027-03-16T03:00:00Z", 0, NOMORE, "2027-03-16T03:00:00Z",
	    "2027-03-17T03:00:00Z" },
	{ "due: run_once, minutely, 200 minutes down", "* * * * *", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-14T03:20:30Z", 60, RUN_ONCE, 100,
	    0, "2027-03-14T00:00:00Z", "2027-03-14T03:19:00Z", 200,
	    "coalesced", "2027-03-14T03:20:00Z", 0, NOMORE,
	    "2027-03-14T03:20:00Z", "2027-03-14T03:21:00Z" },
	{ "due: run_once, one misfire and one on time", "every 1m", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-14T00:01:30Z", 60, RUN_ONCE, 100,
	    0, "2027-03-14T00:00:00Z", "2027-03-14T00:00:00Z", 1, "coalesced",
	    "2027-03-14T00:01:00Z", 0, NOMORE, "2027-03-14T00:01:00Z",
	    "2027-03-14T00:02:00Z" },
	/* Misfires and many on time: the newest on-time one runs. */
	{ "due: run_once, misfires and on-time ones", "* * * * * *", "UTC",
	    "2027-03-14T12:00:00Z", "2027-03-14T12:02:00Z", 60, RUN_ONCE, 100,
	    0, "2027-03-14T12:00:00Z", "2027-03-14T12:01:59Z", 120,
	    "coalesced", "2027-03-14T12:02:00Z", 0, NOMORE,
	    "2027-03-14T12:02:00Z", "2027-03-14T12:02:01Z" },
	{ "due: run_once, every 15m, a day down", "every 15m", "UTC",
	    "2027-01-01T00:00:00Z", "2027-01-02T00:00:30Z", 60, RUN_ONCE, 100,
	    0, "2027-01-01T00:00:00Z", "2027-01-01T23:45:00Z", 96,
	    "coalesced", "2027-01-02T00:00:00Z", 0, NOMORE,
	    "2027-01-02T00:00:00Z", "2027-01-02T00:15:00Z" },
	{ "due: run_once, after: only the planned one", "after 1h", "UTC",
	    "2027-01-01T00:00:00Z", "2027-01-01T05:00:00Z", 60, RUN_ONCE, 100,
	    0, NOSKIP, "2027-01-01T00:00:00Z", 0, NOMORE,
	    "2027-01-01T00:00:00Z", NONE },

	/* skip: misfires are one range; on-time ones are listed. */
	{ "due: skip, misfires and one on time", "* * * * *", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-14T00:10:30Z", 60, SKIP, 100, 0,
	    "2027-03-14T00:00:00Z", "2027-03-14T00:09:00Z", 10, "misfire",
	    "2027-03-14T00:10:00Z", 0, NOMORE, "2027-03-14T00:10:00Z",
	    "2027-03-14T00:11:00Z" },
	{ "due: skip, only misfires", "0 3 * * *", "UTC",
	    "2027-03-14T03:00:00Z", "2027-03-16T12:00:00Z", 60, SKIP, 100, 0,
	    "2027-03-14T03:00:00Z", "2027-03-16T03:00:00Z", 3, "misfire", "",
	    0, NOMORE, "2027-03-16T03:00:00Z", "2027-03-17T03:00:00Z" },
	/*
	 * Every two seconds, with now - grace between two instants, so
	 * that the cases below do not depend on the grace boundary.
	 */
	{ "due: skip, misfires and several on time", "*/2 * * * * *", "UTC",
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:13Z", 8, SKIP, 100, 0,
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:04Z", 3, "misfire",
	    "2027-03-14T12:00:06Z 2027-03-14T12:00:08Z 2027-03-14T12:00:10Z "
	    "2027-03-14T12:00:12Z", 0, NOMORE,
	    "2027-03-14T12:00:12Z", "2027-03-14T12:00:14Z" },

	/* catch_up: the newest catch_up_limit misfires run, oldest first. */
	{ "due: catch_up within the limit", "* * * * *", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-14T00:05:30Z", 60, CATCH_UP, 100,
	    0, NOSKIP, "2027-03-14T00:00:00Z 2027-03-14T00:01:00Z "
	    "2027-03-14T00:02:00Z 2027-03-14T00:03:00Z 2027-03-14T00:04:00Z "
	    "2027-03-14T00:05:00Z", 5, NOMORE, "2027-03-14T00:05:00Z",
	    "2027-03-14T00:06:00Z" },
	{ "due: catch_up exactly at the limit", "* * * * *", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-14T00:04:30Z", 60, CATCH_UP, 4,
	    0, NOSKIP, "2027-03-14T00:00:00Z 2027-03-14T00:01:00Z "
	    "2027-03-14T00:02:00Z 2027-03-14T00:03:00Z 2027-03-14T00:04:00Z",
	    4, NOMORE, "2027-03-14T00:04:00Z", "2027-03-14T00:05:00Z" },
	{ "due: catch_up over the limit", "* * * * *", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-14T00:10:30Z", 60, CATCH_UP, 3,
	    0, "2027-03-14T00:00:00Z", "2027-03-14T00:06:00Z", 7,
	    "catch_up_limit", "2027-03-14T00:07:00Z 2027-03-14T00:08:00Z "
	    "2027-03-14T00:09:00Z 2027-03-14T00:10:00Z", 3, NOMORE,
	    "2027-03-14T00:10:00Z", "2027-03-14T00:11:00Z" },
	{ "due: catch_up over the limit, one over", "* * * * *", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-14T00:04:30Z", 60, CATCH_UP, 3,
	    0, "2027-03-14T00:00:00Z", "2027-03-14T00:00:00Z", 1,
	    "catch_up_limit", "2027-03-14T00:01:00Z 2027-03-14T00:02:00Z "
	    "2027-03-14T00:03:00Z 2027-03-14T00:04:00Z", 3, NOMORE,
	    "2027-03-14T00:04:00Z", "2027-03-14T00:05:00Z" },
	{ "due: catch_up limit 1", "0 3 * * *", "UTC",
	    "2027-03-14T03:00:00Z", "2027-03-16T12:00:00Z", 60, CATCH_UP, 1,
	    0, "2027-03-14T03:00:00Z", "2027-03-15T03:00:00Z", 2,
	    "catch_up_limit", "2027-03-16T03:00:00Z", 1, NOMORE,
	    "2027-03-16T03:00:00Z", "2027-03-17T03:00:00Z" },
	{ "due: catch_up, misfires then several on time", "*/2 * * * * *",
	    "UTC", "2027-03-14T12:00:00Z", "2027-03-14T12:00:21Z", 10,
	    CATCH_UP, 2, 0, "2027-03-14T12:00:00Z", "2027-03-14T12:00:06Z", 4,
	    "catch_up_limit", "2027-03-14T12:00:08Z 2027-03-14T12:00:10Z "
	    "2027-03-14T12:00:12Z 2027-03-14T12:00:14Z 2027-03-14T12:00:16Z "
	    "2027-03-14T12:00:18Z 2027-03-14T12:00:20Z", 2, NOMORE,
	    "2027-03-14T12:00:20Z", "2027-03-14T12:00:22Z" },
	{ "due: catch_up, every 1h over two days", "every 1h", "UTC",
	    "2027-03-14T00:00:00Z", "2027-03-16T00:30:00Z", 60, CATCH_UP, 3,
	    0, "2027-03-14T00:00:00Z", "2027-03-15T21:00:00Z", 46,
	    "catch_up_limit", "2027-03-15T22:00:00Z 2027-03-15T23:00:00Z "
	    "2027-03-16T00:00:00Z", 3, NOMORE, "2027-03-16T00:00:00Z",
	    "2027-03-16T01:00:00Z" },

	/*
	 * New York springs forward on 2027-03-14: 02:30 does not exist and
	 * runs at 03:00 EDT (07:00Z) under the automatic gap policy.
	 * Down from the 13th to the 16th at noon.
	 */
	{ "due: DST gap, run_once over 3 days", "30 2 * * *", NY,
	    "2027-03-13T07:30:00Z", "2027-03-16T12:00:00Z", 60, RUN_ONCE, 100,
	    0, "2027-03-13T07:30:00Z", "2027-03-15T06:30:00Z", 3, "coalesced",
	    "2027-03-16T06:30:00Z", 0, NOMORE, "2027-03-16T06:30:00Z",
	    "2027-03-17T06:30:00Z" },
	{ "due: DST gap, catch_up over 3 days", "30 2 * * *", NY,
	    "2027-03-13T07:30:00Z", "2027-03-16T12:00:00Z", 60, CATCH_UP, 100,
	    0, NOSKIP, "2027-03-13T07:30:00Z 2027-03-14T07:00:00Z "
	    "2027-03-15T06:30:00Z 2027-03-16T06:30:00Z", 4, NOMORE,
	    "2027-03-16T06:30:00Z", "2027-03-17T06:30:00Z" },
	{ "due: DST gap, catch_up limit 2", "30 2 * * *", NY,
	    "2027-03-13T07:30:00Z", "2027-03-16T12:00:00Z", 60, CATCH_UP, 2,
	    0, "2027-03-13T07:30:00Z", "2027-03-14T07:00:00Z", 2,
	    "catch_up_limit", "2027-03-15T06:30:00Z 2027-03-16T06:30:00Z", 2,
	    NOMORE, "2027-03-16T06:30:00Z", "2027-03-17T06:30:00Z" },
	{ "due: DST gap, skip over 3 days", "30 2 * * *", NY,
	    "2027-03-13T07:30:00Z", "2027-03-16T12:00:00Z", 60, SKIP, 100, 0,
	    "2027-03-13T07:30:00Z", "2027-03-16T06:30:00Z", 4, "misfire", "",
	    0, NOMORE, "2027-03-16T06:30:00Z", "2027-03-17T06:30:00Z" },
	/* Found at 03:00:30 EDT, the shifted instance is on time. */
	{ "due: DST gap, the shifted instance on time", "30 2 * * *", NY,
	    "2027-03-14T07:00:00Z", "2027-03-14T07:00:30Z", 60, SKIP, 100, 0,
	    NOSKIP, "2027-03-14T07:00:00Z", 0, NOMORE,
	    "2027-03-14T07:00:00Z", "2027-03-15T06:30:00Z" },

	/* The buffer: on-time instances beyond it are one "more" range. */
	{ "due: more on time than the buffer holds", "* * * * * *", "UTC",
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:30Z", 60, RUN_ONCE, 3,
	    4, NOSKIP, "2027-03-14T12:00:00Z 2027-03-14T12:00:01Z "
	    "2027-03-14T12:00:02Z 2027-03-14T12:00:03Z", 0,
	    "2027-03-14T12:00:04Z", "2027-03-14T12:00:30Z", 27,
	    "2027-03-14T12:00:30Z", "2027-03-14T12:00:31Z" },
	{ "due: exactly as many on time as the buffer holds", "* * * * * *",
	    "UTC", "2027-03-14T12:00:00Z", "2027-03-14T12:00:03Z", 60,
	    RUN_ONCE, 3, 4, NOSKIP, "2027-03-14T12:00:00Z "
	    "2027-03-14T12:00:01Z 2027-03-14T12:00:02Z 2027-03-14T12:00:03Z",
	    0, NOMORE, "2027-03-14T12:00:03Z", "2027-03-14T12:00:04Z" },
	{ "due: one more than the buffer holds", "every 1s", "UTC",
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:04Z", 60, SKIP, 3, 4,
	    NOSKIP, "2027-03-14T12:00:00Z 2027-03-14T12:00:01Z "
	    "2027-03-14T12:00:02Z 2027-03-14T12:00:03Z", 0,
	    "2027-03-14T12:00:04Z", "2027-03-14T12:00:04Z", 1,
	    "2027-03-14T12:00:04Z", "2027-03-14T12:00:05Z" },
	/* bufsz = catch_up_limit + 1, the smallest allowed. */
	{ "due: catch_up fills the buffer, on-time ones overflow",
	    "*/2 * * * * *", "UTC", "2027-03-14T12:00:00Z",
	    "2027-03-14T12:00:27Z", 10, CATCH_UP, 4, 5,
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:08Z", 5,
	    "catch_up_limit", "2027-03-14T12:00:10Z 2027-03-14T12:00:12Z "
	    "2027-03-14T12:00:14Z 2027-03-14T12:00:16Z 2027-03-14T12:00:18Z",
	    4, "2027-03-14T12:00:20Z", "2027-03-14T12:00:26Z", 4,
	    "2027-03-14T12:00:26Z", "2027-03-14T12:00:28Z" },
	{ "due: skip with a small buffer", "*/2 * * * * *", "UTC",
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:25Z", 20, SKIP, 1, 2,
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:04Z", 3, "misfire",
	    "2027-03-14T12:00:06Z 2027-03-14T12:00:08Z", 0,
	    "2027-03-14T12:00:10Z", "2027-03-14T12:00:24Z", 8,
	    "2027-03-14T12:00:24Z", "2027-03-14T12:00:26Z" },
	{ "due: run_once with a buffer of one", "*/2 * * * * *", "UTC",
	    "2027-03-14T12:00:00Z", "2027-03-14T12:00:25Z", 20, RUN_ONCE, 0,
	    1, "2027-03-14T12:00:00Z", "2027-03-14T12:00:22Z", 12,
	    "coalesced", "2027-03-14T12:00:24Z", 0, NOMORE,
	    "2027-03-14T12:00:24Z", "2027-03-14T12:00:26Z" },
};

/* Format instants as RFC 3339, blank-separated. */
static void
instants_text(const int64_t *v, size_t n, char *buf, size_t len)
{
	char	one[RFC3339_BUFSZ];
	size_t	i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		rfc3339_format_utc(v[i], one, sizeof one);
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    i > 0 ? " " : "", one);
	}
}

/* The instant of s after t, or -1. */
static int64_t
after(const struct schedule *s, const struct tz *z, int64_t t)
{
	int64_t u;

	if (t == -1 || schedule_next(s, z, TZ_GAP_AUTO, TZ_FOLD_AUTO, t,
	    &u) == -1)
		return -1;
	return u;
}

/*
 * What any answer of policy_due must satisfy, against policy_scan of the
 * same range: the skipped range, the runs and the "more" range follow
 * one another with no instant between or left out, from the first due
 * instant to the newest, and their counts add up to the number due.
 */
static void
due_consistent(const struct schedule *s, const struct tz *z, int64_t next,
    int64_t now, const struct policy_due *d)
{
	struct policy_late	l;
	int64_t			t;
	size_t			i;

	policy_scan(s, z, TZ_GAP_AUTO, TZ_FOLD_AUTO, next, now, &l);
	T_EQ_TIME(d->last, l.last);
	T_EQ_TIME(d->next, l.next);
	if (!l.capped && !d->skip_capped)
		T_EQ_INT(d->skip_count + (int64_t)d->nrun + d->more_count,
		    l.count);
	if (l.count == 0) {
		T_EQ_INT(d->nrun + (size_t)d->skip_count + (size_t)d->more_count,
		    0);
		return;
	}
	/* From the first due instant, one after the other, to last. */
	t = l.first;
	if (d->skip_count > 0) {
		T_EQ_TIME(d->skip_first, l.first);
		t = after(s, z, d->skip_last);
	}
	for (i = 0; i < d->nrun; i++) {
		if (!T_EQ_TIME(d->run[i], t))
			break;
		t = after(s, z, t);
	}
	if (d->more_count > 0) {
		T_EQ_TIME(d->more_first, t);
		T_EQ_TIME(d->more_last, l.last);
		t = after(s, z, d->more_last);
	}
	T_EQ_TIME(t, l.next);
	T_TRUE(d->ncatch <= d->nrun);
	T_EQ_INT(d->skip_count > 0, d->skip_reason[0] != '\0');
}

static void
due_run(const struct due_case *c)
{
	struct schedule		*s;
	const struct tz		*z;
	struct policy_due	 d;
	int64_t			 buf[DUE_BUFSZ + 1];
	size_t			 bufsz = c->bufsz != 0 ? c->bufsz : DUE_BUFSZ;
	char			*cause = NULL, got[4096];

	T_RUN(c->name);
	if ((s = schedule_parse(c->text, NULL, &cause)) == NULL ||
	    (z = tz_cache_get(cache, c->zone, &cause)) == NULL) {
		(void)printf("  %s: %s\n", c->name, cause);
		T_TRUE(0);
		free(cause);
		schedule_free(s);
		return;
	}
	buf[bufsz] = INT64_C(0x5555555555555555);	/* a guard */
	memset(&d, 0x55, sizeof d);
	policy_due(s, z, TZ_GAP_AUTO, TZ_FOLD_AUTO, at(c->next), at(c->now),
	    c->grace, c->misfire, c->limit, buf, bufsz, &d);
	T_EQ_TIME(d.skip_first, at(c->skip_first));
	T_EQ_TIME(d.skip_last, at(c->skip_last));
	T_EQ_INT(d.skip_count, c->skip_count);
	T_EQ_INT(d.skip_capped, 0);
	T_EQ_STR(d.skip_reason, c->skip_reason);
	T_TRUE(d.run == buf);
	T_TRUE(d.nrun <= bufsz);
	instants_text(d.run, d.nrun <= bufsz ? d.nrun : 0, got, sizeof got);
	T_EQ_STR(got, c->run);
	T_EQ_INT(d.ncatch, c->ncatch);
	T_EQ_TIME(d.more_first, at(c->more_first));
	T_EQ_TIME(d.more_last, at(c->more_last));
	T_EQ_INT(d.more_count, c->more_count);
	T_EQ_TIME(d.last, at(c->last));
	T_EQ_TIME(d.next, at(c->next_want));
	T_TRUE(buf[bufsz] == INT64_C(0x5555555555555555));
	if (d.nrun <= bufsz)
		due_consistent(s, z, at(c->next), at(c->now), &d);
	schedule_free(s);
}

/*
 * catch_up over a huge range: a job every second down for 30 days, limit
 * 100.  Exactly the newest 100 misfires run (then the on-time ones), the
 * rest is one range with an exact count for a fixed rate, and it is
 * cheap: no walk over millions of instants.
 */
struct huge_case {
	const char	*name;
	const char	*text;
	int64_t		 span;		/* now - next */
	int64_t		 step;
	int64_t		 grace;
	int64_t		 limit;
	size_t		 bufsz;
	int		 exact;		/* the skipped count is exact */
	double		 cpu_max;	/* seconds of CPU */
};

static const struct huge_case huge_cases[] = {
	{ "due: catch_up, every 1s, 30 days down", "every 1s", 30 * 86400, 1,
	    60, 100, 256, 1, 0.1 },
	/* The rest have now - grace between two instants. */
	{ "due: catch_up, every 2s, 30 days down", "every 2s", 30 * 86400, 2,
	    61, 100, 256, 1, 0.1 },
	{ "due: catch_up, every 2s, 30 days, buffer just fits", "every 2s",
	    30 * 86400, 2, 61, 100, 101, 1, 0.1 },
	{ "due: catch_up, every 7s, 30 days, limit 1000", "every 7s",
	    30 * 86400, 7, 3600, 1000, 1200, 1, 0.1 },
	/* A cron schedule counts up to POLICY_SCAN_MAX, then estimates. */
	{ "due: catch_up, cron every 2s, 30 days", "*/2 * * * * *",
	    30 * 86400, 2, 61, 100, 256, 0, 0.5 },
};

static void
huge_run(const struct huge_case *c)
{
	struct schedule		*s;
	const struct tz		*z;
	struct policy_due	 d;
	int64_t			*buf, next, now, mlast, k, mcount, ontime;
	int64_t			 want_nrun;
	char			*cause = NULL;
	double			 t0, dt;
	size_t			 i;
	int			 ok = 1;

	T_RUN(c->name);
	s = schedule_parse(c->text, NULL, &cause);
	z = tz_cache_get(cache, "UTC", &cause);
	if (s == NULL || z == NULL) {
		T_TRUE(0);
		free(cause);
		schedule_free(s);
		return;
	}
	buf = calloc(c->bufsz, sizeof *buf);
	/* An instant of the schedule ("every" counts from the epoch). */
	next = at("2027-01-01T00:00:00Z");
	next += (c->step - next % c->step) % c->step;
	now = next + c->span;
	/* The newest misfire: more than grace late. */
	mlast = next + (now - c->grace - 1 - next) / c->step * c->step;
	mcount = (mlast - next) / c->step + 1;
	ontime = (now - next) / c->step + 1 - mcount;
	want_nrun = c->limit + ontime < (int64_t)c->bufsz ? c->limit +
	    ontime : (int64_t)c->bufsz;
	t0 = cpu();
	policy_due(s, z, TZ_GAP_AUTO, TZ_FOLD_AUTO, next, now, c->grace,
	    CATCH_UP, c->limit, buf, c->bufsz, &d);
	dt = cpu() - t0;
	if (!T_TRUE(dt < c->cpu_max))
		(void)printf("  [%s] policy_due took %.3f s of CPU\n",
		    c->name, dt);
	T_EQ_INT(d.ncatch, c->limit);
	T_EQ_INT(d.nrun, want_nrun);
	/* Exactly the newest limit misfires, then the on-time ones. */
	for (i = 0; i < (size_t)c->limit && i < d.nrun && ok; i++)
		ok = T_EQ_TIME(d.run[i], mlast - (c->limit - 1 -
		    (int64_t)i) * c->step);
	for (k = 0; c->limit + k < want_nrun && (size_t)(c->limit + k) <
	    d.nrun && ok; k++)
		ok = T_EQ_TIME(d.run[c->limit + k], mlast + (k + 1) * c->step);
	T_EQ_STR(d.skip_reason, "catch_up_limit");
	T_EQ_TIME(d.skip_first, next);
	/* The skipped range ends exactly before the first listed. */
	T_EQ_TIME(d.skip_last, mlast - c->limit * c->step);
	if (c->exact) {
		T_EQ_INT(d.skip_count, mcount - c->limit);
		T_EQ_INT(d.skip_capped, 0);
	} else {
		T_EQ_INT(d.skip_capped, 1);
		T_TRUE(d.skip_count > 0 && d.skip_count <= mcount - c->limit);
	}
	T_EQ_INT(d.more_count, c->limit + ontime - want_nrun);
	if (d.more_count > 0) {
		T_EQ_TIME(d.more_first, mlast + (want_nrun - c->limit + 1) *
		    c->step);
		T_EQ_TIME(d.more_last, mlast + ontime * c->step);
	}
	T_EQ_TIME(d.last, now - (now - next) % c->step);
	T_EQ_TIME(d.next, now - (now - next) % c->step + c->step);
	free(buf);
	schedule_free(s);
}

/*
 * More on-time instances than policy_scan counts (POLICY_SCAN_MAX): a
 * cron job every second, found 200000 s after its next instant with a
 * grace of 7 days, so all of them are on time.  The "more" range runs
 * from the first that did not fit to the newest; its count must be the
 * number of instants in it (the daemon records it as the skipped count),
 * not POLICY_SCAN_MAX minus the buffer.  (policy_due has skip_capped for
 * the skipped range but nothing that says more_count is a lower bound.)
 */
static void
test_due_more_capped(void)
{
	struct schedule		*s;
	const struct tz		*z;
	struct policy_due	 d;
	int64_t			 buf[200], next, now;
	char			*cause = NULL;
	double			 t0, dt;

	T_RUN("due: more on time than POLICY_SCAN_MAX");
	s = schedule_parse("* * * * * *", NULL, &cause);
	z = tz_cache_get(cache, "UTC", &cause);
	if (s == NULL || z == NULL) {
		T_TRUE(0);
		free(cause);
		schedule_free(s);
		return;
	}
	next = at("2027-01-01T00:00:00Z");
	now = next + 200000;
	T_TRUE(now - next + 1 > POLICY_SCAN_MAX);
	t0 = cpu();
	policy_due(s, z, TZ_GAP_AUTO, TZ_FOLD_AUTO, next, now, 7 * 86400,
	    RUN_ONCE, 100, buf, 200, &d);
	dt = cpu() - t0;
	if (!T_TRUE(dt < 0.5))
		(void)printf("  policy_due took %.3f s of CPU\n", dt);
	T_EQ_INT(d.skip_count, 0);
	T_EQ_INT(d.nrun, 200);
	T_EQ_TIME(d.run[0], next);
	T_EQ_TIME(d.run[199], next + 199);
	T_EQ_TIME(d.more_first, next + 200);
	T_EQ_TIME(d.more_last, now);
	/* Too many to count: a lower bound, and flagged as one. */
	T_EQ_INT(d.more_capped, 1);
	T_TRUE(d.more_count >= POLICY_SCAN_MAX - 200 &&
	    d.more_count <= now - (next + 200) + 1);
	T_EQ_TIME(d.last, now);
	T_EQ_TIME(d.next, now + 1);
	schedule_free(s);
}

/*
 * policy_due against a plain reference: every due instant listed, split
 * into misfires (more than grace late) and on-time ones, then each
 * misfire policy applied by the book.  Random cases from a fixed seed,
 * over schedules and zones with DST changes; cases whose now - grace is
 * itself an instant are left out (the boundary has its own cases above).
 */
struct prop_sched {
	const char	*text;
	const char	*zone;
	int64_t		 typical;	/* seconds between instants, about */
};

static const struct prop_sched prop_scheds[] = {
	{ "* * * * *", "UTC", 60 },
	{ "*/7 * * * * *", "UTC", 7 },
	{ "every 13s", "UTC", 13 },
	{ "every 1m", NY, 60 },
	{ "0 3 * * *", "UTC", 86400 },
	{ "30 2 * * *", NY, 86400 },
	{ "30 1 * * *", NY, 86400 },
	{ "*/20 1-3 * * *", NY, 1200 },
	{ "0 */6 * * *", NY, 21600 },
	{ "15 2 * * 0", "Europe/Berlin", 7 * 86400 },
};

#define PROP_CASES	3000
#define PROP_MAX	600		/* due instants at most */

static uint64_t	prop_state = UINT64_C(0x9e3779b97f4a7c15);

/* A pseudo-random number in [0, n). */
static int64_t
prop_rand(int64_t n)
{
	prop_state ^= prop_state << 13;
	prop_state ^= prop_state >> 7;
	prop_state ^= prop_state << 17;
	return (int64_t)(prop_state % (uint64_t)n);
}

static void
test_due_reference(void)
{
	static int64_t		 all[PROP_MAX + 1], buf[PROP_MAX + 2];
	const struct prop_sched	*ps;
	struct schedule		*s;
	const struct tz		*z;
	struct policy_due	 d;
	char			*cause = NULL, what[256];
	int64_t			 next, now, grace, limit, t, w_skip_first;
	int64_t			 w_skip_last, w_skip_count, w_more_first;
	int64_t			 w_more_last, w_more_count;
	int64_t			 w_run[PROP_MAX + 2];
	size_t			 n, nm, bufsz, k, w_nrun, w_ncatch, i;
	const char		*w_reason;
	int			 c, misfire, ran = 0, ok;
	int			 seen[3][3];	/* policy; skip, more, catch */

	T_RUN("due: against the reference");
	memset(seen, 0, sizeof seen);
	for (c = 0; c < PROP_CASES; c++) {
		ps = &prop_scheds[prop_rand(sizeof prop_scheds /
		    sizeof prop_scheds[0])];
		if ((s = schedule_parse(ps->text, NULL, &cause)) == NULL ||
		    (z = tz_cache_get(cache, ps->zone, &cause)) == NULL) {
			T_TRUE(0);
			free(cause);
			schedule_free(s);
			return;
		}
		/* Around the spring and autumn changes of 2027. */
		t = at(prop_rand(2) ? "2027-03-12T00:00:00Z" :
		    "2027-10-29T00:00:00Z") + prop_rand(10 * 86400);
		if (schedule_next(s, z, TZ_GAP_AUTO, TZ_FOLD_AUTO, t,
		    &next) == -1) {
			schedule_free(s);
			continue;
		}
		now = next - ps->typical + prop_rand(ps->typical * (1 +
		    prop_rand(60)));
		grace = 1 + prop_rand(ps->typical * (1 + prop_rand(30)));
		misfire = (int)prop_rand(3);
		limit = 1 + prop_rand(12);
		bufsz = (size_t)limit + 1 + (size_t)prop_rand(12);
		/* Every due instant, and how many are misfires. */
		for (n = nm = 0, t = next; t != -1 && t <= now &&
		    n <= PROP_MAX; n++) {
			all[n] = t;
			if (t == now - grace)
				break;
			nm += t < now - grace;
			if (schedule_next(s, z, TZ_GAP_AUTO, TZ_FOLD_AUTO, t,
			    &t) == -1)
				t = -1;
		}
		if (n > PROP_MAX || (n < PROP_MAX && t != -1 && t <= now &&
		    t == now - grace)) {
			schedule_free(s);
			continue;		/* too many, or on the boundary */
		}
		ran++;

		/* The reference. */
		w_skip_first = w_skip_last = w_more_first = w_more_last = -1;
		w_skip_count = w_more_count = 0;
		w_reason = "";
		w_nrun = w_ncatch = 0;
		k = nm;				/* where on-time ones start */
		if (nm > 0 && misfire == POLICY_MISFIRE_RUN_ONCE) {
			w_run[w_nrun++] = all[n - 1];
			k = n;
			if (n > 1) {
				w_skip_first = all[0];
				w_skip_last = all[n - 2];
				w_skip_count = (int64_t)n - 1;
				w_reason = "coalesced";
			}
		} else if (nm > 0 && misfire == POLICY_MISFIRE_SKIP) {
			w_skip_first = all[0];
			w_skip_last = all[nm - 1];
			w_skip_count = (int64_t)nm;
			w_reason = "misfire";
		} else if (nm > 0) {
			for (i = nm > (size_t)limit ? nm - (size_t)limit : 0;
			    i < nm; i++)
				w_run[w_nrun++] = all[i];
			w_ncatch = w_nrun;
			if (nm > (size_t)limit) {
				w_skip_first = all[0];
				w_skip_last = all[nm - (size_t)limit - 1];
				w_skip_count = (int64_t)nm - limit;
				w_reason = "catch_up_limit";
			}
		}
		for (i = k; i < n; i++) {
			if (w_nrun < bufsz)
				w_run[w_nrun++] = all[i];
			else {
				if (w_more_count++ == 0)
					w_more_first = all[i];
				w_more_last = all[i];
			}
		}

		seen[misfire][0] += w_skip_count > 0;
		seen[misfire][1] += w_more_count > 0;
		seen[misfire][2] += w_ncatch > 0;
		memset(&d, 0x55, sizeof d);
		buf[bufsz] = -42;
		policy_due(s, z, TZ_GAP_AUTO, TZ_FOLD_AUTO, next, now, grace,
		    misfire, limit, buf, bufsz, &d);
		ok = T_EQ_INT(d.skip_count, w_skip_count);
		ok &= T_EQ_TIME(d.skip_first, w_skip_first);
		ok &= T_EQ_TIME(d.skip_last, w_skip_last);
		ok &= T_EQ_STR(d.skip_reason, w_reason);
		ok &= T_EQ_INT(d.nrun, w_nrun);
		ok &= T_EQ_INT(d.ncatch, w_ncatch);
		for (i = 0; i < w_nrun && i < d.nrun && ok; i++)
			ok &= T_EQ_TIME(d.run[i], w_run[i]);
		ok &= T_EQ_INT(d.more_count, w_more_count);
		ok &= T_EQ_TIME(d.more_first, w_more_first);
		ok &= T_EQ_TIME(d.more_last, w_more_last);
		ok &= T_EQ_TIME(d.last, n > 0 ? all[n - 1] : -1);
		ok &= T_EQ_INT(buf[bufsz], -42);
		if (!ok) {
			(void)snprintf(what, sizeof what, "  case %d: \"%s\" "
			    "%s next %" PRId64 " now %" PRId64 " grace %"
			    PRId64 " misfire %d limit %" PRId64 " bufsz %zu",
			    c, ps->text, ps->zone, next, now, grace, misfire,
			    limit, bufsz);
			(void)printf("%s\n", what);
			schedule_free(s);
			break;			/* one case is enough to see */
		}
		schedule_free(s);
	}
	/* Most cases ran, and every branch of every policy was taken. */
	T_TRUE(ran > PROP_CASES / 2);
	for (c = 0; c < 3; c++) {
		if (!T_TRUE(seen[c][0] >= 20 && seen[c][1] >= 20))
			(void)printf("  misfire %d: %d skipped, %d more\n", c,
			    seen[c][0], seen[c][1]);
	}
	T_TRUE(seen[POLICY_MISFIRE_CATCH_UP][2] >= 20);
}

int
main(void)
{
	const char	*data = getenv("TICKD_TESTDATA");
	char		 dir[1024];
	size_t		 i;
	int64_t		 d;

	if (data == NULL || *data == '\0')
		data = "tests/data";
	(void)snprintf(dir, sizeof dir, "%s/tzif/fat", data);
	cache = tz_cache_new(dir);

	for (i = 0; i < sizeof delay_bound_cases /
	    sizeof delay_bound_cases[0]; i++)
		delay_bound_run(&delay_bound_cases[i]);
	test_delay_spread();
	T_RUN("pinned delays");
	for (i = 0; i < sizeof delay_pin_cases / sizeof delay_pin_cases[0];
	    i++) {
		d = policy_random_delay(delay_pin_cases[i].machine,
		    delay_pin_cases[i].job, at(delay_pin_cases[i].at),
		    delay_pin_cases[i].max, -1);
		T_EQ_INT(d, delay_pin_cases[i].want);
	}
	for (i = 0; i < sizeof scan_cases / sizeof scan_cases[0]; i++)
		scan_run(&scan_cases[i]);
	for (i = 0; i < sizeof shards_cases / sizeof shards_cases[0]; i++)
		shards_run(&shards_cases[i]);
	for (i = 0; i < sizeof capped_cases / sizeof capped_cases[0]; i++)
		capped_run(&capped_cases[i]);
	for (i = 0; i < sizeof word_cases / sizeof word_cases[0]; i++)
		word_run(&word_cases[i]);
	for (i = 0; i < sizeof signal_cases / sizeof signal_cases[0]; i++) {
		int sig = -7;

		T_RUN(sub("kill_signal", signal_cases[i].text));
		T_EQ_INT(policy_signal_parse(signal_cases[i].text, &sig),
		    signal_cases[i].want == -1 ? -1 : 0);
		T_EQ_INT(sig, signal_cases[i].want == -1 ? -7 :
		    signal_cases[i].want);
	}
	test_exit_codes();
	test_retryable();
	for (i = 0; i < sizeof retry_delay_cases /
	    sizeof retry_delay_cases[0]; i++) {
		const struct retry_delay_case *c = &retry_delay_cases[i];

		T_RUN("retry delay");
		if (!T_EQ_INT(policy_retry_delay(c->delay, c->max, c->k),
		    c->want))
			(void)printf("  delay %" PRId64 ", max %" PRId64
			    ", k %d\n", c->delay, c->max, c->k);
	}
	for (i = 0; i < sizeof due_cases / sizeof due_cases[0]; i++)
		due_run(&due_cases[i]);
	for (i = 0; i < sizeof huge_cases / sizeof huge_cases[0]; i++)
		huge_run(&huge_cases[i]);
	test_due_more_capped();
	test_due_reference();
	tz_cache_free(cache);
	return t_done();
}

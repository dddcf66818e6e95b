/*
 * test_policy.c -- unit tests of the pure scheduling decisions:
 * policy_random_delay (stable, bounded, spread, capped before the next
 * instance) and policy_scan (the range of instances due between a job's
 * next planned instant and now, counted by arithmetic for fixed-rate
 * schedules and by walking otherwise, capped at POLICY_SCAN_MAX).
 *
 * Tables of cases.  Instants are written in RFC 3339; "-" means -1 (none).
 * Zones come from the fat fixtures (tests/data/tzif/fat; TICKD_TESTDATA
 * overrides tests/data), so the DST cases do not depend on the host.
 */
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
	if ((s = schedule_parse(c->text, &cause)) == NULL ||
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
	s = schedule_parse(c->text, &cause);
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
	for (i = 0; i < sizeof capped_cases / sizeof capped_cases[0]; i++)
		capped_run(&capped_cases[i]);
	tz_cache_free(cache);
	return t_done();
}

/*
 * test_schedule.c -- unit tests of job schedules: cron text and macros,
 * "every DURATION" (fixed rate, anchored at the Unix epoch) and "after
 * DURATION" (fixed delay), their parse errors and their instants.
 *
 * Tables of cases.  Fixed-rate instants are the multiples of the interval
 * since 1970-01-01T00:00:00Z strictly after the starting instant, also
 * before 1970, and do not depend on the zone; cron schedules delegate to
 * cronexpr_next (test_cronexpr.c has those in depth).  Zones come from the
 * fat fixtures (tests/data/tzif/fat; TICKD_TESTDATA overrides tests/data).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cronexpr.h"
#include "rfc3339.h"
#include "schedule.h"
#include "tz.h"

#include "t.h"

#define NEXT_MAX	4		/* instants per case */
#define NONE		"none"		/* schedule_next returns -1 */

/* A schedule that parses: its kind, interval and text. */
struct parse_case {
	const char		*text;
	enum schedule_kind	 kind;
	int64_t			 interval;
	const char		*text_want;
};

static const struct parse_case parse_cases[] = {
	{ "every 15m", SCHEDULE_EVERY, 900, "every 15m" },
	{ "every 1h30m", SCHEDULE_EVERY, 5400, "every 1h30m" },
	{ "every 1h 30m", SCHEDULE_EVERY, 5400, "every 1h 30m" },
	{ "every 90", SCHEDULE_EVERY, 90, "every 90" },
	{ "every 1s", SCHEDULE_EVERY, 1, "every 1s" },
	{ "EVERY 2d", SCHEDULE_EVERY, 172800, "EVERY 2d" },
	{ "  every\t1w", SCHEDULE_EVERY, 604800, "every\t1w" },
	{ "@every 1h30m", SCHEDULE_EVERY, 5400, "@every 1h30m" },
	{ "@every 5s", SCHEDULE_EVERY, 5, "@every 5s" },
	{ "@EVERY 2d", SCHEDULE_EVERY, 172800, "@EVERY 2d" },
	{ "after 90s", SCHEDULE_AFTER, 90, "after 90s" },
	{ "After 1h", SCHEDULE_AFTER, 3600, "After 1h" },
	{ "after 2d12h", SCHEDULE_AFTER, 216000, "after 2d12h" },
	{ "30 2 * * *", SCHEDULE_CRON, 0, "30 2 * * *" },
	{ "0 30 2 * * *", SCHEDULE_CRON, 0, "0 30 2 * * *" },
	{ "@daily", SCHEDULE_CRON, 0, "@daily" },
	{ "@hourly", SCHEDULE_CRON, 0, "@hourly" },
	{ "@reboot", SCHEDULE_REBOOT, 0, "@reboot" },
	{ "@Reboot", SCHEDULE_REBOOT, 0, "@Reboot" },
};

/* A schedule that does not parse; cause NULL: any message will do. */
struct reject_case {
	const char	*text;
	const char	*cause;
};

static const struct reject_case reject_cases[] = {
	{ "every", "every: needs a duration, e.g. \"every 15m\"" },
	{ "@every", "every: needs a duration, e.g. \"every 15m\"" },
	{ "@every 0s", "every: the interval must be at least 1s" },
	{ "after", "after: needs a duration, e.g. \"after 15m\"" },
	{ "every ", "every: needs a duration, e.g. \"every 15m\"" },
	{ "every\t", "every: needs a duration, e.g. \"every 15m\"" },
	{ "every 0s", "every: the interval must be at least 1s" },
	{ "every 0", "every: the interval must be at least 1s" },
	{ "after 0s", "after: the interval must be at least 1s" },
	{ "every 5x", "every: \"5x\" is not a duration (examples: 90s, 15m, "
	    "1h30m, 2d)" },
	{ "after -1m", "after: \"-1m\" is not a duration (examples: 90s, "
	    "15m, 1h30m, 2d)" },
	{ "every 1m1h", "every: \"1m1h\" is not a duration (examples: 90s, "
	    "15m, 1h30m, 2d)" },
	{ "every 1h 1h", "every: \"1h 1h\" is not a duration (examples: "
	    "90s, 15m, 1h30m, 2d)" },
	{ "every 37000d", "every: duration \"37000d\" is longer than 100 "
	    "years" },
	{ "", "empty schedule" },
	{ "61 * * * *", "minute field: \"61\" is out of range 0-59" },
	{ "0 0 30 2 *", "schedule \"0 0 30 2 *\" never fires: no date "
	    "matches its day-of-month, month and day-of-week" },
};

/*
 * A schedule's next instants from a starting instant, each found from the
 * one before, in a zone ("UTC": built in).  NONE: no instant remains.
 */
struct next_case {
	const char	*text;
	const char	*zone;
	const char	*from;
	const char	*want[NEXT_MAX];
};

static const struct next_case next_cases[] = {
	/* Multiples of the interval since the epoch, strictly after. */
	{ "every 15m", "UTC", "2025-01-01T00:00:00Z",
	    { "2025-01-01T00:15:00Z", "2025-01-01T00:30:00Z" } },
	{ "every 15m", "UTC", "2025-01-01T00:07:30Z",
	    { "2025-01-01T00:15:00Z", "2025-01-01T00:30:00Z" } },
	{ "every 15m", "UTC", "2025-01-01T00:14:59Z",
	    { "2025-01-01T00:15:00Z" } },
	{ "every 1h30m", "UTC", "1970-01-01T00:00:00Z",
	    { "1970-01-01T01:30:00Z", "1970-01-01T03:00:00Z" } },
	{ "every 1h30m", "UTC", "2025-01-01T00:00:00Z",
	    { "2025-01-01T01:30:00Z", "2025-01-01T03:00:00Z" } },
	{ "every 7m", "UTC", "2025-01-01T00:00:00Z",
	    { "2025-01-01T00:05:00Z", "2025-01-01T00:12:00Z" } },
	{ "every 1s", "UTC", "2025-01-01T00:00:00Z",
	    { "2025-01-01T00:00:01Z", "2025-01-01T00:00:02Z" } },
	/* Nothing at or after year 10000. */
	{ "every 1d", "UTC", "9999-12-30T00:00:00Z",
	    { "9999-12-31T00:00:00Z", NONE } },
	{ "every 1d", "UTC", "9999-12-31T00:00:00Z", { NONE } },
	/* Before the epoch: still multiples, rounding toward the past. */
	{ "every 15m", "UTC", "1969-12-31T23:50:00Z",
	    { "1970-01-01T00:00:00Z", "1970-01-01T00:15:00Z" } },
	{ "every 15m", "UTC", "1969-12-31T23:45:00Z",
	    { "1970-01-01T00:00:00Z" } },
	{ "every 15m", "UTC", "1969-12-31T23:44:59Z",
	    { "1969-12-31T23:45:00Z", "1970-01-01T00:00:00Z" } },
	{ "every 15m", "UTC", "1969-12-31T23:59:59Z",
	    { "1970-01-01T00:00:00Z" } },
	{ "every 7s", "UTC", "1969-12-31T23:59:45Z",
	    { "1969-12-31T23:59:46Z", "1969-12-31T23:59:53Z",
	      "1970-01-01T00:00:00Z", "1970-01-01T00:00:07Z" } },
	{ "every 1d", "UTC", "1900-03-01T12:00:00Z",
	    { "1900-03-02T00:00:00Z" } },
	/* The zone plays no part: "every 1d" is UTC midnight. */
	{ "every 1d", "America/New_York", "2025-03-09T05:00:00Z",
	    { "2025-03-10T00:00:00Z", "2025-03-11T00:00:00Z" } },
	{ "every 1h", "America/New_York", "2025-11-02T04:30:00Z",
	    { "2025-11-02T05:00:00Z", "2025-11-02T06:00:00Z",
	      "2025-11-02T07:00:00Z" } },
	{ "every 1h", "UTC", "9999-12-31T22:00:00Z",
	    { "9999-12-31T23:00:00Z" } },
	/* Cron text goes to cronexpr_next with the job's zone. */
	{ "30 2 * * *", "America/New_York", "2025-03-08T12:00:00-05:00",
	    { "2025-03-09T03:00:00-04:00", "2025-03-10T02:30:00-04:00" } },
	{ "@hourly", "America/New_York", "2025-11-02T00:30:00-04:00",
	    { "2025-11-02T01:00:00-04:00", "2025-11-02T01:00:00-05:00",
	      "2025-11-02T02:00:00-05:00" } },
	{ "* * * * * *", "UTC", "9999-12-31T23:59:59Z", { NONE } },
	/* No calendar of instants: fixed delay and @reboot. */
	{ "after 90s", "UTC", "2025-01-01T00:00:00Z", { NONE } },
	{ "@reboot", "UTC", "2025-01-01T00:00:00Z", { NONE } },
};

/* A fixed-delay schedule after a run that ended at `end`. */
struct after_case {
	const char	*text;
	const char	*end;
	const char	*want;
};

static const struct after_case after_cases[] = {
	{ "after 90s", "2025-01-01T00:00:00Z", "2025-01-01T00:01:30Z" },
	{ "after 1h30m", "2025-03-09T06:30:00Z", "2025-03-09T08:00:00Z" },
	{ "after 1s", "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z" },
};

static char	 t_name[256];

/* Parse a table timestamp; a bad one is a broken table, not a result. */
static int64_t
t_when(const char *text)
{
	int64_t	 t;
	char	*cause = NULL;

	if (rfc3339_parse(text, &t, &cause) == -1) {
		(void)printf("bad timestamp in a table: %s\n", cause);
		exit(2);
	}
	return t;
}

/* Parse a schedule that must be valid; NULL (and a failure) if not. */
static struct schedule *
t_parse(const char *text)
{
	struct schedule	*s;
	char		*cause = NULL;

	if ((s = schedule_parse(text, NULL, &cause)) == NULL) {
		(void)printf("[%s] \"%s\": %s\n", t_subtest, text, cause);
		T_TRUE(s != NULL);
		free(cause);
	}
	return s;
}

/* Valid schedules: kind, interval, text, and the cron expression. */
static void
test_parse(void)
{
	const struct parse_case	*c;
	struct schedule		*s;
	size_t			 i;

	for (i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
		c = &parse_cases[i];
		(void)snprintf(t_name, sizeof t_name, "parse \"%s\"", c->text);
		T_RUN(t_name);
		if ((s = t_parse(c->text)) == NULL)
			continue;
		T_EQ_INT(schedule_kind(s), c->kind);
		T_EQ_INT(schedule_interval(s), c->interval);
		T_EQ_STR(schedule_text(s), c->text_want);
		/* Cron and @reboot schedules carry an expression. */
		T_EQ_INT(schedule_cron(s) != NULL, c->kind == SCHEDULE_CRON ||
		    c->kind == SCHEDULE_REBOOT);
		if (schedule_cron(s) != NULL)
			T_EQ_INT(cronexpr_is_reboot(schedule_cron(s)),
			    c->kind == SCHEDULE_REBOOT);
		schedule_free(s);
	}
	schedule_free(NULL);
}

/* Invalid schedules: NULL and the cause. */
static void
test_reject(void)
{
	const struct reject_case	*c;
	struct schedule			*s;
	char				*cause;
	size_t				 i;

	for (i = 0; i < sizeof reject_cases / sizeof reject_cases[0]; i++) {
		c = &reject_cases[i];
		(void)snprintf(t_name, sizeof t_name, "reject \"%s\"", c->text);
		T_RUN(t_name);
		cause = NULL;
		s = schedule_parse(c->text, NULL, &cause);
		T_TRUE(s == NULL);
		T_TRUE(cause != NULL);
		if (c->cause != NULL)
			T_EQ_STR(cause, c->cause);
		schedule_free(s);
		free(cause);
	}
}

/* Next instants, chained, compared as instants. */
static void
test_next(struct tz_cache *cache)
{
	const struct next_case	*c;
	const struct tz		*z;
	struct schedule		*s;
	struct tz		*utc = tz_new_utc();
	int64_t			 after, got = 0;
	char			*cause;
	size_t			 i, k;

	for (i = 0; i < sizeof next_cases / sizeof next_cases[0]; i++) {
		c = &next_cases[i];
		(void)snprintf(t_name, sizeof t_name, "next \"%s\" %s from %s",
		    c->text, c->zone, c->from);
		T_RUN(t_name);
		if ((s = t_parse(c->text)) == NULL)
			continue;
		z = utc;
		cause = NULL;
		if (strcmp(c->zone, "UTC") != 0 &&
		    (z = tz_cache_get(cache, c->zone, &cause)) == NULL) {
			(void)printf("[%s] %s\n", t_subtest, cause);
			T_TRUE(z != NULL);
			free(cause);
			schedule_free(s);
			continue;
		}
		after = t_when(c->from);
		for (k = 0; k < NEXT_MAX && c->want[k] != NULL; k++) {
			if (schedule_next(s, z, TZ_GAP_AUTO, TZ_FOLD_AUTO,
			    after, &got) == -1) {
				T_EQ_STR(NONE, c->want[k]);
				break;
			}
			if (strcmp(c->want[k], NONE) == 0) {
				T_EQ_TIME(got, -1);
				break;
			}
			T_EQ_TIME(got, t_when(c->want[k]));
			after = got;
		}
		schedule_free(s);
	}
	tz_free(utc);
}

/* Fixed delay: the end of the previous run plus the interval. */
static void
test_after(void)
{
	const struct after_case	*c;
	struct schedule		*s;
	size_t			 i;

	for (i = 0; i < sizeof after_cases / sizeof after_cases[0]; i++) {
		c = &after_cases[i];
		(void)snprintf(t_name, sizeof t_name, "after \"%s\" ended %s",
		    c->text, c->end);
		T_RUN(t_name);
		if ((s = t_parse(c->text)) == NULL)
			continue;
		T_EQ_TIME(schedule_after_next(s, t_when(c->end)),
		    t_when(c->want));
		schedule_free(s);
	}
}

int
main(void)
{
	struct tz_cache	*cache;
	const char	*data = getenv("TICKD_TESTDATA");
	char		 dir[1024];

	if (data == NULL || *data == '\0')
		data = "tests/data";
	(void)snprintf(dir, sizeof dir, "%s/tzif/fat", data);
	cache = tz_cache_new(dir);

	test_parse();
	test_reject();
	test_next(cache);
	test_after();

	tz_cache_free(cache);
	return t_done();
}

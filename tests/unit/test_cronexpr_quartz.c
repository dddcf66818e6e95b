/*
 * test_cronexpr_quartz.c -- the Quartz dialect against Quartz itself, the
 * cron dialect's hints, and Jenkins' H.
 *
 * quartz_table.h holds Quartz 2.3.2's own answers (Debian's
 * libquartz2-java) for the cases of tests/quartz/cases.txt, made by
 *
 *	make quartz-ref
 *
 * which runs tests/quartz/QuartzRef.java: for each expression and start
 * instant (UTC) CronExpression.getTimeAfter's next fire times, or REJECT
 * with its ParseException.  Each case must give the same instants here
 * (all in UTC: across DST the job's dst_gap and dst_fold decide, as for
 * every schedule, see test_cronexpr.c) or be rejected, except the
 * deliberate departures below, each with Quartz's answer in the table
 * and ours here:
 *
 *   (b) input Quartz silently misreads is rejected: "5X" (= 5), "**"
 *       (= *), "1-5W" (= 1-5), "1W,15W" (= 1W), a step of 0 (= every
 *       value, or the start value alone), an eighth
 *       field (ignored), "2#1,3" (= 2#1), "MON/2" (= MON), "?X" (= ?),
 *       "MONDAY" (= MON), "2-6L" (= 2-6), L in the hour field (accepted,
 *       then getTimeAfter throws).
 *   (c) Quartz bugs are not copied: "0W" is an error (Quartz loops
 *       forever); a nW or L-nW whose day the month lacks skips that
 *       month (31W in a 30-day month; "30W" in February never fires, so
 *       it is refused as every never-firing schedule is, where Quartz
 *       fires on the 29th in some leap years; L-30W fires in 31-day months
 *       only, where Quartz loops forever).
 *   Years are 1970-2099, as Quartz documents; Quartz takes any number and
 *   stretches "*" and "Y/n" to the current year + 100.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cronexpr.h"
#include "policy.h"
#include "rfc3339.h"
#include "tz.h"

#include "t.h"

#define QMAX	8
enum { ACCEPT, REJECT, HANG, THROWS };

struct qcase {
	const char	*expr;
	const char	*from;
	int		 kind;
	const char	*want[QMAX];
};

/* Quartz's answers: generated, do not edit. */
static const struct qcase quartz_cases[] = {
#include "quartz_table.h"
};

/* Where we depart from Quartz on purpose (see the head of this file). */
static const struct qcase departures[] = {
	{ "5X * * ? * *", NULL, REJECT, { NULL } },
	{ "** * * ? * *", NULL, REJECT, { NULL } },
	{ "0 0 12 1-5W * ?", NULL, REJECT, { NULL } },
	{ "0 0 12 1W,15W * ?", NULL, REJECT, { NULL } },
	{ "*/0 * * ? * *", NULL, REJECT, { NULL } },
	{ "0 0 12 ? * * 2027 X", NULL, REJECT, { NULL } },
	{ "0 0 12 ? * 2#1,3", NULL, REJECT, { NULL } },
	{ "0 0 12 ? * MON/2", NULL, REJECT, { NULL } },
	{ "0 0 12 ?X * *", NULL, REJECT, { NULL } },
	{ "0 0 12 ? * MONDAY", NULL, REJECT, { NULL } },
	{ "0 0 12 ? * 2-6L", NULL, REJECT, { NULL } },
	{ "0 0 L * * ?", NULL, REJECT, { NULL } },
	{ "0 0 12 0W * ?", NULL, REJECT, { NULL } },
	{ "0 0 12 30W 2 ?", NULL, REJECT, { NULL } },
	{ "0 0 0 1 1 ? 2150", NULL, REJECT, { NULL } },
	{ "0 0 12 1 * ? 1969", NULL, REJECT, { NULL } },
	{ "0 0 0 ? * 2L 2", NULL, REJECT, { NULL } },
	{ "0 0 12 L-30W * ?", "2026-01-01T00:00:00Z", ACCEPT,
	    { "2026-01-01T12:00:00Z", "2026-03-02T12:00:00Z" } },
	{ "0 0 12 L-30W 1,3,5,7,8,10,12 ?", "2026-01-01T00:00:00Z", ACCEPT,
	    { "2026-01-01T12:00:00Z", "2026-03-02T12:00:00Z",
	      "2026-05-01T12:00:00Z", "2026-07-01T12:00:00Z" } },
	/* Quartz: 2027-04-30 (April has no 31st), then 05-31. */
	{ "0 0 12 31W * ?", "2027-04-01T00:00:00Z", ACCEPT,
	    { "2027-05-31T12:00:00Z", "2027-07-30T12:00:00Z" } },
	{ "0 0 0 1 1 ? 2090/5", "2026-01-01T00:00:00Z", ACCEPT,
	    { "2090-01-01T00:00:00Z", "2095-01-01T00:00:00Z", "none" } },
};

static const struct cronexpr_opts quartz = { CRONEXPR_QUARTZ, 0, 0 };

/* The departure for a case: by expression, and start when it has one. */
static const struct qcase *
departure(const struct qcase *c)
{
	const struct qcase	*d;
	size_t			 i;

	for (i = 0; i < sizeof departures / sizeof departures[0]; i++) {
		d = &departures[i];
		if (strcmp(d->expr, c->expr) == 0 && (d->from == NULL ||
		    strcmp(d->from, c->from) == 0))
			return d;
	}
	return NULL;
}

/* Run one case: its instants from `from`, or a rejection. */
static void
run_case(const struct qcase *c, const struct cronexpr_opts *o)
{
	struct cronexpr	*e;
	struct tz	*z = tz_new_utc();
	char		*cause = NULL, buf[64], msg[160];
	int64_t		 t, next;
	int		 i;

	e = cronexpr_parse(c->expr, o, &cause);
	(void)snprintf(msg, sizeof msg, "%s: parse (%s)", c->expr,
	    cause != NULL ? cause : "ok");
	T_RUN(msg);
	if (c->kind != ACCEPT) {
		T_TRUE(e == NULL && cause != NULL);
		goto out;
	}
	T_TRUE(e != NULL);
	if (e == NULL || rfc3339_parse(c->from, &t, &cause) == -1)
		goto out;
	for (i = 0; i < QMAX && c->want[i] != NULL; i++) {
		(void)snprintf(msg, sizeof msg, "%s from %s: #%d", c->expr,
		    c->from, i + 1);
		T_RUN(msg);
		if (cronexpr_next(e, z, TZ_GAP_AUTO, TZ_FOLD_AUTO, t,
		    &next) == -1) {
			T_EQ_STR("none", c->want[i]);
			break;
		}
		rfc3339_format(next, 0, buf, sizeof buf);
		/* "+00:00" from rfc3339_format, "Z" from Quartz. */
		if (strlen(buf) > 6 && strcmp(buf + strlen(buf) - 6,
		    "+00:00") == 0)
			(void)strcpy(buf + strlen(buf) - 6, "Z");
		T_EQ_STR(buf, c->want[i]);
		t = next;
	}
out:
	free(cause);
	cronexpr_free(e);
	tz_free(z);
}

/* An expression's parse error, or "ok". */
static void
expect_cause(const char *expr, const struct cronexpr_opts *o,
    const char *want)
{
	struct cronexpr	*e;
	char		*cause = NULL;

	T_RUN(expr);
	e = cronexpr_parse(expr, o, &cause);
	T_EQ_STR(e != NULL ? "ok" : cause, want);
	free(cause);
	cronexpr_free(e);
}

static void
test_quartz(void)
{
	const struct qcase	*d;
	size_t			 i, n = 0;

	for (i = 0; i < sizeof quartz_cases / sizeof quartz_cases[0]; i++) {
		if ((d = departure(&quartz_cases[i])) != NULL) {
			run_case(d->from != NULL ? d : &(struct qcase){
			    quartz_cases[i].expr, quartz_cases[i].from,
			    d->kind, { NULL } }, &quartz);
			n++;
		} else
			run_case(&quartz_cases[i], &quartz);
	}
	T_RUN("every departure is in the table");
	T_EQ_INT(n, sizeof departures / sizeof departures[0]);
}

/* Messages: Quartz-only syntax under cron, cron-only under Quartz. */
static void
test_dialect_causes(void)
{
	static const struct cronexpr_opts cron = { CRONEXPR_CRON, 0, 0 };
	static const struct {
		const struct cronexpr_opts	*o;
		const char			*expr, *cause;
	} cases[] = {
		{ &cron, "0 12 15W * *", "day-of-month field: \"15W\" W is "
		    "not supported in cron dialect; use cron_dialect = "
		    "quartz" },
		{ &cron, "0 12 LW * *", "day-of-month field: \"LW\" W is not "
		    "supported in cron dialect; use cron_dialect = quartz" },
		{ &cron, "0 12 L-2 * *", "day-of-month field: \"L-2\" L-n is "
		    "not supported in cron dialect; use cron_dialect = "
		    "quartz" },
		{ &cron, "0 0 12 ? * MON 2027", "expected 5 fields (minute "
		    "hour day-of-month month day-of-week) or 6 (with seconds "
		    "first), found 7 (seven fields with a year are Quartz's: "
		    "use cron_dialect = quartz)" },
		{ &cron, "0 12 * * *", "ok" },
		{ &cron, "0 0 12 ? * 6L", "ok" },
		{ &quartz, "0 12 * * *", "expected 6 fields (second minute "
		    "hour day-of-month month day-of-week) or 7 (with a year) "
		    "in Quartz dialect, found 5 (five fields are cron: "
		    "cron_dialect = cron)" },
		{ &quartz, "0 0 12 * * ? 2027 X", "expected 6 fields (second "
		    "minute hour day-of-month month day-of-week) or 7 (with a "
		    "year) in Quartz dialect, found 8" },
		{ &quartz, "0 0 12 * * *", "exactly one of day-of-month and "
		    "day-of-week must be '?' in Quartz dialect (e.g. \"0 0 12 "
		    "? * MON\" or \"0 0 12 1 * ?\")" },
		{ &quartz, "0 0 12 ? * ?", "exactly one of day-of-month and "
		    "day-of-week must be '?' in Quartz dialect (both are)" },
		{ &quartz, "@daily", "\"@daily\": macros are cron dialect; "
		    "Quartz has none (e.g. \"0 0 0 * * ?\" for @daily)" },
		{ &quartz, "0 H * * * ?", "minute field: \"H\" H is Jenkins' "
		    "cron syntax: it needs cron_dialect = cron" },
		{ &quartz, "5X * * ? * *", "second field: \"5X\" has "
		    "unexpected text \"X\"" },
		{ &quartz, "*/0 * * ? * *", "second field: \"*/0\" step must "
		    "be at least 1" },
		{ &quartz, "0 0 12 1W,15W * ?", "day-of-month field: \"1W\" "
		    "must be alone in its field (Quartz keeps one nW and "
		    "misreads the rest)" },
		{ &quartz, "0 0 12 0W * ?", "day-of-month field: \"0W\" is "
		    "out of range 1-31" },
		{ &quartz, "0 0 12 30W 2 ?", "schedule \"0 0 12 30W 2 ?\" "
		    "never fires: no date matches its day-of-month, month and "
		    "day-of-week" },
		{ &quartz, "0 0 12 1 1 ? 2020", "ok" },	/* past: valid */
		{ &quartz, "0 0 12 30 2 ? 2020", "schedule \"0 0 12 30 2 ? "
		    "2020\" never fires: no date matches its day-of-month, "
		    "month and day-of-week" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_cause(cases[i].expr, cases[i].o, cases[i].cause);
}

/* The year list: the last year, and no instant after it. */
static void
test_years(void)
{
	struct cronexpr	*e;
	struct tz	*z = tz_new_utc();
	char		*cause = NULL;
	int64_t		 t;

	T_RUN("last year");
	e = cronexpr_parse("0 0 12 1 1 ? 2027,2030", &quartz, &cause);
	T_TRUE(e != NULL);
	if (e != NULL) {
		T_EQ_INT(cronexpr_last_year(e), 2030);
		T_EQ_INT(cronexpr_next(e, z, TZ_GAP_AUTO, TZ_FOLD_AUTO,
		    INT64_C(1893499200), &t), -1);	/* 2030-01-01T12Z */
		T_EQ_INT(cronexpr_next(e, z, TZ_GAP_AUTO, TZ_FOLD_AUTO,
		    INT64_C(1893499199), &t), 0);
		T_EQ_TIME(t, INT64_C(1893499200));
	}
	cronexpr_free(e);
	e = cronexpr_parse("0 0 12 1 1 ?", &quartz, &cause);
	T_EQ_INT(e != NULL ? cronexpr_last_year(e) : -1, 0);
	cronexpr_free(e);
	free(cause);
	tz_free(z);
}

/*
 * Jenkins' H: values from the job id's hash, stable, in range, day of
 * month 1-28, and shown resolved.
 */
static void
test_hash(void)
{
	static const char *const exprs[] = {
		"H H * * *", "H/15 * * * *", "H(0-29)/10 * * * *",
		"0 H(9-17) * * H", "0 0 H * *", "H H H H H", "H * * * * *",
		"H,30 * * * *",
	};
	struct cronexpr_opts	 o = { CRONEXPR_CRON, 1, 0 };
	struct cronexpr		*e, *e2;
	char			*cause = NULL, name[80];
	size_t			 i, k;
	int			 spread[60] = { 0 }, used = 0;

	for (i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
		o.hash = policy_id_hash("backup");
		T_RUN(exprs[i]);
		e = cronexpr_parse(exprs[i], &o, &cause);
		e2 = cronexpr_parse(exprs[i], &o, &cause);
		T_TRUE(e != NULL && e2 != NULL);
		if (e != NULL && e2 != NULL) {
			T_TRUE(cronexpr_resolved(e) != NULL);
			/* Stable: the same id gives the same values. */
			T_EQ_STR(cronexpr_resolved(e), cronexpr_resolved(e2));
			/* The resolved text is a cron expression itself. */
			cronexpr_free(e2);
			e2 = cronexpr_parse(cronexpr_resolved(e), NULL,
			    &cause);
			T_TRUE(e2 != NULL);
		}
		cronexpr_free(e);
		cronexpr_free(e2);
	}
	/* Known values for one id: a change breaks every installation. */
	o.hash = policy_id_hash("backup");
	e = cronexpr_parse("H H * * *", &o, &cause);
	T_RUN("resolved H H * * * for backup");
	T_EQ_STR(e != NULL ? cronexpr_resolved(e) : "", "14 11 * * *");
	cronexpr_free(e);
	e = cronexpr_parse("H(0-29)/10 * H * *", &o, &cause);
	T_RUN("resolved H(0-29)/10 * H * * for backup");
	T_EQ_STR(e != NULL ? cronexpr_resolved(e) : "",
	    "4-29/10 * 3 * *");
	cronexpr_free(e);
	e = cronexpr_parse("0 12 * * 1", &o, &cause);
	T_RUN("no H: no resolved text");
	T_TRUE(e != NULL && cronexpr_resolved(e) == NULL);
	cronexpr_free(e);

	/* Different ids spread: 200 ids use most of the 60 minutes. */
	for (k = 0; k < 200; k++) {
		(void)snprintf(name, sizeof name, "job-%zu", k);
		o.hash = policy_id_hash(name);
		e = cronexpr_parse("H * * * *", &o, &cause);
		if (e != NULL)
			spread[atoi(cronexpr_resolved(e))]++;
		cronexpr_free(e);
	}
	for (k = 0; k < 60; k++)
		used += spread[k] > 0;
	T_RUN("H spreads ids over the minutes");
	T_TRUE(used >= 45);

	/* Day of month: 1-28 as Jenkins. */
	for (k = 0; k < 500; k++) {
		(void)snprintf(name, sizeof name, "j%zu", k);
		o.hash = policy_id_hash(name);
		e = cronexpr_parse("0 0 H * *", &o, &cause);
		T_RUN("H day of month 1-28");
		T_TRUE(e != NULL && atoi(cronexpr_resolved(e) + 4) >= 1 &&
		    atoi(cronexpr_resolved(e) + 4) <= 28);
		cronexpr_free(e);
	}
	free(cause);

	o.hash = 0;
	expect_cause("H * * * *", NULL, "minute field: \"H\" H needs a job "
	    "id: its value is a hash of the id (tickctl next --id JOB_ID)");
	expect_cause("H/61 * * * *", &o, "minute field: \"H/61\" step 61 is "
	    "larger than the range 0-59");
	expect_cause("H(30-10) * * * *", &o, "minute field: \"H(30-10)\" "
	    "range start 30 is after its end 10");
	expect_cause("H(0-60) * * * *", &o, "minute field: \"H(0-60)\" is "
	    "out of range 0-59");
	expect_cause("H(5 * * * *", &o, "minute field: \"H(5\" needs "
	    "H(LOW-HIGH)");
	expect_cause("HX * * * *", &o, "minute field: \"HX\" has unexpected "
	    "text \"X\"");
}

/* The note on numeric day-of-week with L or # under cron. */
static void
test_dow_note(void)
{
	static const struct {
		const char	*expr, *note;
	} cases[] = {
		{ "0 12 * * 6L", "6L means the last Saturday under cron (0-7 "
		    "from Sunday); under cron_dialect = quartz it would be "
		    "Friday" },
		{ "0 0 12 * * 1,5#3", "5#3 means the third Friday under cron "
		    "(0-7 from Sunday); under cron_dialect = quartz it would "
		    "be the third Thursday" },
		{ "0 12 * * 0L", "0L means the last Sunday under cron (0-7 "
		    "from Sunday); under cron_dialect = quartz it would be "
		    "invalid" },
		{ "0 12 * * 7#1", "7#1 means the first Sunday under cron (0-7 "
		    "from Sunday); under cron_dialect = quartz it would be "
		    "the first Saturday" },
		{ "0 12 * * FRIL", NULL },	/* not cron syntax anyway */
		{ "0 12 * * fri#2", NULL },	/* names mean the same */
		{ "0 12 L * 5", NULL },
		{ "@weekly", NULL },
	};
	struct cronexpr	*e;
	char		*cause = NULL, *note;
	size_t		 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		T_RUN(cases[i].expr);
		e = cronexpr_parse(cases[i].expr, NULL, &cause);
		note = e != NULL ? cronexpr_dow_note(e) : NULL;
		T_EQ_STR(note != NULL ? note : "(none)", cases[i].note != NULL ?
		    cases[i].note : "(none)");
		free(note);
		free(cause);
		cause = NULL;
		cronexpr_free(e);
	}
	/* Under Quartz the numbers are Quartz's: no note. */
	e = cronexpr_parse("0 0 12 ? * 6L", &quartz, &cause);
	T_RUN("quartz 6L");
	T_TRUE(e != NULL && cronexpr_dow_note(e) == NULL);
	cronexpr_free(e);
}

int
main(void)
{
	test_dow_note();
	test_quartz();
	test_dialect_causes();
	test_years();
	test_hash();
	return t_done();
}

/*
 * t.h -- the unit test harness: checks that print "file:line: got X, want
 * Y", named subtests, and an exit status that says whether anything failed.
 *
 *	int
 *	main(void)
 *	{
 *		T_RUN("parse");
 *		T_EQ_INT(f(1), 2);
 *		return t_done();
 *	}
 */
#ifndef TICKD_T_H
#define TICKD_T_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "civil.h"

static int		 t_checks, t_failures;
static const char	*t_subtest = "";

#define T_RUN(name)		(t_subtest = (name))
#define T_TRUE(c)		t_true(__FILE__, __LINE__, #c, (c) != 0)
#define T_EQ_INT(got, want)	t_eq_int(__FILE__, __LINE__, #got, \
				    (int64_t)(got), (int64_t)(want))
#define T_EQ_STR(got, want)	t_eq_str(__FILE__, __LINE__, #got, \
				    (got), (want))
#define T_EQ_TIME(got, want)	t_eq_time(__FILE__, __LINE__, #got, \
				    (int64_t)(got), (int64_t)(want))

/* Format an instant as UTC for messages. */
static inline void
t_fmt_time(int64_t t, char *buf, size_t len)
{
	struct civil c;

	civil_split(t, &c);
	(void)snprintf(buf, len, "%04lld-%02d-%02dT%02d:%02d:%02dZ (%" PRId64
	    ")", (long long)c.year, c.month, c.day, c.hour, c.min, c.sec, t);
}

static inline int
t_report(const char *file, int line, const char *what, const char *got,
    const char *want)
{
	t_checks++;
	if (got == NULL)
		return 1;
	t_failures++;
	(void)printf("%s:%d: [%s] %s: got %s, want %s\n", file, line,
	    t_subtest, what, got, want);
	return 0;
}

static inline int
t_true(const char *file, int line, const char *what, int ok)
{
	return t_report(file, line, what, ok ? NULL : "false", "true");
}

static inline int
t_eq_int(const char *file, int line, const char *what, int64_t got,
    int64_t want)
{
	char g[32], w[32];

	if (got == want)
		return t_report(file, line, what, NULL, NULL);
	(void)snprintf(g, sizeof g, "%" PRId64, got);
	(void)snprintf(w, sizeof w, "%" PRId64, want);
	return t_report(file, line, what, g, w);
}

static inline int
t_eq_str(const char *file, int line, const char *what, const char *got,
    const char *want)
{
	char g[512], w[512];

	if (got != NULL && want != NULL && strcmp(got, want) == 0)
		return t_report(file, line, what, NULL, NULL);
	(void)snprintf(g, sizeof g, "\"%s\"", got ? got : "(null)");
	(void)snprintf(w, sizeof w, "\"%s\"", want ? want : "(null)");
	return t_report(file, line, what, g, w);
}

static inline int
t_eq_time(const char *file, int line, const char *what, int64_t got,
    int64_t want)
{
	char g[64], w[64];

	if (got == want)
		return t_report(file, line, what, NULL, NULL);
	t_fmt_time(got, g, sizeof g);
	t_fmt_time(want, w, sizeof w);
	return t_report(file, line, what, g, w);
}

/* Print the summary; returns the exit status for main. */
static inline int
t_done(void)
{
	(void)printf("%d checks, %d failed\n", t_checks, t_failures);
	if (t_checks == 0) {
		(void)printf("no checks ran: a test that asserts nothing is "
		    "a failure\n");
		return 1;
	}
	return t_failures ? 1 : 0;
}

#endif /* TICKD_T_H */

/*
 * test_duration.c -- duration parsing and printing, table driven.
 */
#include <stdlib.h>

#include "duration.h"
#include "t.h"

static const struct {
	const char	*text;
	int64_t		 secs;		/* -1: must be rejected */
	const char	*cause;		/* exact message when rejected */
} duration_cases[] = {
	{ "90s", 90, NULL },
	{ "15m", 900, NULL },
	{ "1h30m", 5400, NULL },
	{ "2d", 172800, NULL },
	{ "1w", 604800, NULL },
	{ "1w2d3h4m5s", 788645, NULL },
	{ "2d 12h", 216000, NULL },
	{ "  45 ", 45, NULL },
	{ "0", 0, NULL },
	{ "0s", 0, NULL },
	{ "90m", 5400, NULL },
	{ "36600d", 36600 * INT64_C(86400), NULL },
	{ "", -1, "empty duration" },
	{ "   ", -1, "empty duration" },
	{ "h", -1, "\"h\" is not a duration (examples: 90s, 15m, 1h30m, 2d)" },
	{ "5x", -1, "\"5x\" is not a duration (examples: 90s, 15m, 1h30m, "
	    "2d)" },
	{ "30m1h", -1, "\"30m1h\" is not a duration (examples: 90s, 15m, "
	    "1h30m, 2d)" },
	{ "1h1h", -1, "\"1h1h\" is not a duration (examples: 90s, 15m, "
	    "1h30m, 2d)" },
	{ "-5m", -1, "\"-5m\" is not a duration (examples: 90s, 15m, 1h30m, "
	    "2d)" },
	{ "1.5h", -1, "\"1.5h\" is not a duration (examples: 90s, 15m, "
	    "1h30m, 2d)" },
	{ "10 20", -1, "\"10 20\" is not a duration (examples: 90s, 15m, "
	    "1h30m, 2d)" },
	{ "36601d", -1, "duration \"36601d\" is longer than 100 years" },
	{ "99999999999999999999999s", -1,
	    "duration \"99999999999999999999999s\" is longer than 100 years" },
};

static const struct {
	int64_t		 secs;
	const char	*text;
} format_cases[] = {
	{ 0, "0s" },
	{ 1, "1s" },
	{ 92, "1m32s" },
	{ 3600, "1h" },
	{ 5400, "1h30m" },
	{ 90061, "1d1h1m1s" },
	{ 604800, "7d" },
	{ -61, "-1m1s" },
};

int
main(void)
{
	char	 buf[DURATION_BUFSZ], *cause;
	int64_t	 v;
	size_t	 i;
	int	 rc;

	T_RUN("parse");
	for (i = 0; i < sizeof duration_cases / sizeof duration_cases[0];
	    i++) {
		cause = NULL;
		v = -1;
		rc = duration_parse(duration_cases[i].text, &v, &cause);
		T_EQ_STR(duration_cases[i].text, duration_cases[i].text);
		if (duration_cases[i].secs >= 0) {
			T_EQ_INT(rc, 0);
			T_EQ_INT(v, duration_cases[i].secs);
		} else {
			T_EQ_INT(rc, -1);
			T_EQ_STR(cause, duration_cases[i].cause);
		}
		free(cause);
	}

	T_RUN("format");
	for (i = 0; i < sizeof format_cases / sizeof format_cases[0]; i++) {
		duration_format(format_cases[i].secs, buf, sizeof buf);
		T_EQ_STR(buf, format_cases[i].text);
	}

	T_RUN("round trip");
	for (v = 0; v < 200000; v += 997) {
		int64_t back = -1;

		duration_format(v, buf, sizeof buf);
		cause = NULL;
		T_EQ_INT(duration_parse(buf, &back, &cause), 0);
		T_EQ_INT(back, v);
		free(cause);
	}
	return t_done();
}

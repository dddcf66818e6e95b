/*
 * test_rfc3339.c -- RFC 3339 parsing and printing, table driven.
 */
#include <stdlib.h>

#include "rfc3339.h"
#include "t.h"

static const struct {
	const char	*text;
	int		 ok;
	int64_t		 t;
} parse_cases[] = {
	{ "1970-01-01T00:00:00Z", 1, 0 },
	{ "2027-03-14T03:00:00-04:00", 1, 1805007600 },
	{ "2027-03-14T07:00:00Z", 1, 1805007600 },
	{ "2027-03-14t07:00:00z", 1, 1805007600 },
	{ "2027-03-14 07:00:00+00:00", 1, 1805007600 },
	{ "2027-03-14T07:00:00.999Z", 1, 1805007600 },
	{ "2027-03-14T20:45:00+13:45", 1, 1805007600 },
	{ "1969-12-31T23:59:59Z", 1, -1 },
	{ "1969-12-31T23:59:59.5Z", 1, -1 },
	{ "2016-12-31T23:59:60Z", 1, 1483228800 },
	{ "0000-01-01T00:00:00Z", 1, -62167219200 },
	{ "9999-12-31T23:59:59Z", 1, 253402300799 },
	{ "2024-02-29T12:00:00Z", 1, 1709208000 },
	{ "2023-02-29T12:00:00Z", 0, 0 },
	{ "2027-13-01T00:00:00Z", 0, 0 },
	{ "2027-03-14T24:00:00Z", 0, 0 },
	{ "2027-03-14T07:00:00", 0, 0 },
	{ "2027-03-14T07:00Z", 0, 0 },
	{ "2027-03-14", 0, 0 },
	{ "2027-03-14T07:00:00+0400", 0, 0 },
	{ "2027-03-14T07:00:00+24:00", 0, 0 },
	{ "2027-03-14T07:00:00.Z", 0, 0 },
	{ "2027-03-14T07:00:00Z junk", 0, 0 },
	{ "now", 0, 0 },
	{ "", 0, 0 },
	{ "2027-3-14T07:00:00Z", 0, 0 },
};

static const struct {
	int64_t		 t;
	int32_t		 utoff;
	const char	*text;
} format_cases[] = {
	{ 0, 0, "1970-01-01T00:00:00+00:00" },
	{ 1805007600, -4 * 3600, "2027-03-14T03:00:00-04:00" },
	{ 1805007600, 13 * 3600 + 45 * 60, "2027-03-14T20:45:00+13:45" },
	{ -1, 0, "1969-12-31T23:59:59+00:00" },
	{ -2524521600, -(4 * 3600 + 56 * 60 + 2),
	    "1889-12-31T19:03:58-04:56:02" },
};

int
main(void)
{
	char	 buf[RFC3339_BUFSZ], *cause;
	int64_t	 t;
	size_t	 i;

	T_RUN("parse");
	for (i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
		cause = NULL;
		t = 0;
		if (parse_cases[i].ok) {
			T_EQ_INT(rfc3339_parse(parse_cases[i].text, &t,
			    &cause), 0);
			T_EQ_TIME(t, parse_cases[i].t);
		} else {
			T_EQ_INT(rfc3339_parse(parse_cases[i].text, &t,
			    &cause), -1);
			T_TRUE(cause != NULL && strstr(cause,
			    parse_cases[i].text) != NULL);
		}
		free(cause);
	}

	T_RUN("format");
	for (i = 0; i < sizeof format_cases / sizeof format_cases[0]; i++) {
		rfc3339_format(format_cases[i].t, format_cases[i].utoff, buf,
		    sizeof buf);
		T_EQ_STR(buf, format_cases[i].text);
	}
	rfc3339_format_utc(1805007600, buf, sizeof buf);
	T_EQ_STR(buf, "2027-03-14T07:00:00Z");

	T_RUN("round trip");
	for (t = -2000000000; t < 4000000000; t += 7777777) {
		int64_t back = 0;

		rfc3339_format(t, -(5 * 3600 + 30 * 60), buf, sizeof buf);
		cause = NULL;
		T_EQ_INT(rfc3339_parse(buf, &back, &cause), 0);
		T_EQ_TIME(back, t);
		free(cause);
	}
	return t_done();
}

/*
 * rfc3339.c -- read and write RFC 3339 timestamps.
 *
 * Reading accepts "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)", with
 * 't', 'z' and a space as RFC 3339 allows; a fraction is dropped (floor),
 * which keeps "strictly after" comparisons exact for whole-second
 * instants.  A leap second (:60) counts as the next second.  Writing gives
 * "2027-03-14T03:00:00-04:00"; an offset with seconds (local mean time
 * before 1900) is written +HH:MM:SS, which RFC 3339 cannot express; it is
 * read back too.
 *
 * DIAGNOSTICS: rfc3339_parse returns -1 with *cause set.
 */
#include <stdio.h>
#include <stdlib.h>

#include "civil.h"
#include "rfc3339.h"
#include "xmalloc.h"

/* Read exactly n digits; -1 if they are not all digits. */
static int
rfc3339_digits(const char **sp, int n)
{
	const char	*s = *sp;
	int		 v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*sp = s + n;
	return v;
}

/* Parse a timestamp into a Unix time; 0, or -1 with *cause set. */
int
rfc3339_parse(const char *text, int64_t *out, char **cause)
{
	const char	*s = text;
	int		 y, mo, d, h, mi, sec, oh = 0, om = 0, os = 0, sign = 1;

	if ((y = rfc3339_digits(&s, 4)) == -1 || *s++ != '-' ||
	    (mo = rfc3339_digits(&s, 2)) == -1 || *s++ != '-' ||
	    (d = rfc3339_digits(&s, 2)) == -1 ||
	    (*s != 'T' && *s != 't' && *s != ' ') || *++s == '\0' ||
	    (h = rfc3339_digits(&s, 2)) == -1 || *s++ != ':' ||
	    (mi = rfc3339_digits(&s, 2)) == -1 || *s++ != ':' ||
	    (sec = rfc3339_digits(&s, 2)) == -1)
		goto bad;
	if (*s == '.') {
		if (s[1] < '0' || s[1] > '9')
			goto bad;
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	}
	if (*s == 'Z' || *s == 'z')
		s++;
	else if (*s == '+' || *s == '-') {
		sign = *s++ == '-' ? -1 : 1;
		if ((oh = rfc3339_digits(&s, 2)) == -1 || *s++ != ':' ||
		    (om = rfc3339_digits(&s, 2)) == -1)
			goto bad;
		/* +HH:MM:SS, as written for local mean time offsets. */
		if (*s == ':' && (s++, (os = rfc3339_digits(&s, 2)) == -1))
			goto bad;
	} else
		goto bad;
	if (*s != '\0')
		goto bad;
	if (mo < 1 || mo > 12 || d < 1 || d > civil_days_in_month(y, mo) ||
	    h > 23 || mi > 59 || sec > 60 || oh > 23 || om > 59 || os > 59) {
		*cause = xasprintf("\"%s\": date or time out of range", text);
		return -1;
	}
	*out = civil_days_from_date(y, mo, d) * CIVIL_SECS_PER_DAY +
	    h * 3600 + mi * 60 + sec - sign * (oh * 3600 + om * 60 + os);
	return 0;

bad:
	*cause = xasprintf("\"%s\" is not an RFC 3339 timestamp (example: "
	    "2027-03-14T03:00:00-04:00 or 2027-03-14T07:00:00Z)", text);
	return -1;
}

/* Write instant t as local time at offset utoff (seconds east of UTC). */
void
rfc3339_format(int64_t t, int32_t utoff, char *buf, size_t len)
{
	struct civil	c;
	int32_t		a = utoff < 0 ? -utoff : utoff;

	civil_split(t + utoff, &c);
	if (a % 60 != 0)
		(void)snprintf(buf, len, "%04lld-%02d-%02dT%02d:%02d:%02d"
		    "%c%02d:%02d:%02d", (long long)c.year, c.month, c.day,
		    c.hour, c.min, c.sec, utoff < 0 ? '-' : '+', a / 3600,
		    a / 60 % 60, a % 60);
	else
		(void)snprintf(buf, len, "%04lld-%02d-%02dT%02d:%02d:%02d"
		    "%c%02d:%02d", (long long)c.year, c.month, c.day, c.hour,
		    c.min, c.sec, utoff < 0 ? '-' : '+', a / 3600,
		    a / 60 % 60);
}

/* Write instant t in UTC with a "Z" suffix, as stored and logged. */
void
rfc3339_format_utc(int64_t t, char *buf, size_t len)
{
	struct civil c;

	civil_split(t, &c);
	(void)snprintf(buf, len, "%04lld-%02d-%02dT%02d:%02d:%02dZ",
	    (long long)c.year, c.month, c.day, c.hour, c.min, c.sec);
}

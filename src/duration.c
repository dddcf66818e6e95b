/*
 * duration.c -- parse and print durations in seconds.
 *
 * Syntax: one or more <number><unit> with units w, d, h, m, s (weeks,
 * days, hours, minutes, seconds), each unit at most once and in that
 * order, optionally separated by blanks: "90s", "1h30m", "2d 12h".  A bare
 * number counts seconds, as in systemd.  Durations are whole seconds from
 * 0 to DURATION_MAX.
 *
 * DIAGNOSTICS: duration_parse returns -1 with *cause set; nothing else
 * fails.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "xmalloc.h"

static const struct {
	char	unit;
	int64_t	secs;
} duration_units[] = {
	{ 'w', 7 * 86400 },
	{ 'd', 86400 },
	{ 'h', 3600 },
	{ 'm', 60 },
	{ 's', 1 },
};
#define DURATION_NUNITS	(sizeof duration_units / sizeof duration_units[0])

/*
 * Parse a duration.  Returns 0 with *out set, or -1 with *cause set to an
 * allocated message.
 */
int
duration_parse(const char *text, int64_t *out, char **cause)
{
	const char	*s = text;
	int64_t		 total = 0, v;
	size_t		 next_unit = 0, u;
	int		 digits, parts = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0') {
		*cause = xstrdup("empty duration");
		return -1;
	}
	while (*s != '\0') {
		v = 0;
		digits = 0;
		while (*s >= '0' && *s <= '9') {
			if (v <= DURATION_MAX)
				v = v * 10 + (*s - '0');
			digits++;
			s++;
		}
		if (digits == 0)
			goto bad;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' && parts == 0) {
			total = v;	/* a bare number of seconds */
			break;
		}
		for (u = next_unit; u < DURATION_NUNITS; u++) {
			if (*s == duration_units[u].unit)
				break;
		}
		if (u == DURATION_NUNITS)
			goto bad;
		s++;
		next_unit = u + 1;
		if (v > DURATION_MAX / duration_units[u].secs)
			goto big;
		total += v * duration_units[u].secs;
		if (total > DURATION_MAX)
			goto big;
		parts++;
		while (*s == ' ' || *s == '\t')
			s++;
	}
	if (total > DURATION_MAX)
		goto big;
	*out = total;
	return 0;

bad:
	*cause = xasprintf("\"%s\" is not a duration (examples: 90s, 15m, "
	    "1h30m, 2d)", text);
	return -1;
big:
	*cause = xasprintf("duration \"%s\" is longer than 100 years", text);
	return -1;
}

/* Print secs as "1h30m" ("0s" for zero; "-" prefix if negative). */
void
duration_format(int64_t secs, char *buf, size_t len)
{
	size_t	u, off = 0;
	int64_t	v;
	int	n;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (secs < 0) {
		n = snprintf(buf, len, "-");
		off = (size_t)n;
		secs = secs == INT64_MIN ? INT64_MAX : -secs;
	}
	if (secs == 0) {
		(void)snprintf(buf + off, len - off, "0s");
		return;
	}
	for (u = 1; u < DURATION_NUNITS && off < len; u++) {	/* no weeks */
		v = secs / duration_units[u].secs;
		secs %= duration_units[u].secs;
		if (v == 0)
			continue;
		n = snprintf(buf + off, len - off, "%lld%c", (long long)v,
		    duration_units[u].unit);
		if (n < 0)
			return;
		off += (size_t)n;
	}
}

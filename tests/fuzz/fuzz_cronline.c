/*
 * fuzz_cronline.c -- libFuzzer target: a crontab command as Debian's cron
 * runs it (cronline.c).
 *
 * The input, as a C string, is a command text.  cronline_percent must
 * give a command no longer than the text and an input only after a "%";
 * escaping any command as a crontab needs ("\" as "\\", "%" as "\%") and
 * splitting it again must give it back, with no input.  cronline_feed
 * must start with printf and end with the command, its braces, or (a
 * command ending in "\\") with it quoted for /bin/sh -c.  cronline_condition,
 * when it splits, must cut the text into the test, blanks, "&&", blanks
 * and the rest, the test starting with "test" or "[".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cronline.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char			*text = fuzz_strdup(data, size), *esc, *o, *feed;
	char			*cond, *rest;
	const char		*s, *r;
	struct cronline_cmd	 c, back;
	size_t			 n, m;

	cronline_percent(text, &c);
	FUZZ_CHECK(strlen(c.command) <= strlen(text), "\"%s\": command "
	    "\"%s\" is longer", text, c.command);
	FUZZ_CHECK(c.input == NULL || strchr(text, '%') != NULL, "\"%s\": "
	    "an input without a %%", text);
	FUZZ_CHECK(c.input == NULL || c.input[0] != '\0', "\"%s\": an empty "
	    "input", text);

	/* Escaped as a crontab line needs it, the command comes back. */
	o = esc = malloc(strlen(c.command) * 2 + 1);
	for (s = c.command; *s != '\0'; s++) {
		if (*s == '\\' || *s == '%')
			*o++ = '\\';
		*o++ = *s;
	}
	*o = '\0';
	cronline_percent(esc, &back);
	FUZZ_CHECK(strcmp(back.command, c.command) == 0 && back.input == NULL,
	    "\"%s\" escaped as \"%s\" gives \"%s\"", c.command, esc,
	    back.command);
	cronline_cmd_free(&back);
	free(esc);

	if (c.input != NULL) {
		feed = cronline_feed(c.command, c.input);
		n = strlen(feed);
		FUZZ_CHECK(strncmp(feed, "printf '", 8) == 0, "feed \"%s\"",
		    feed);
		m = strlen(c.command);
		if (m > 0 && c.command[m - 1] == '\\')
			FUZZ_CHECK(strstr(feed, " | /bin/sh -c '") != NULL &&
			    strcmp(feed + n - 2, "\\'") == 0, "feed \"%s\" of "
			    "\"%s\" is not /bin/sh -c", feed, c.command);
		else
			FUZZ_CHECK(strcmp(feed + n - 2, "\n}") == 0 ||
			    (n >= m && strcmp(feed + n - m, c.command) == 0),
			    "feed \"%s\" does not end with \"%s\"", feed,
			    c.command);
		free(feed);
	}

	if (cronline_condition(text, &cond, &rest)) {
		for (s = text; *s == ' ' || *s == '\t'; s++)
			;
		FUZZ_CHECK(strncmp(s, cond, strlen(cond)) == 0 &&
		    (strncmp(cond, "test", 4) == 0 || cond[0] == '['),
		    "\"%s\": condition \"%s\"", text, cond);
		for (r = s + strlen(cond); *r == ' ' || *r == '\t'; r++)
			;
		FUZZ_CHECK(strncmp(r, "&&", 2) == 0, "\"%s\": no && after "
		    "\"%s\"", text, cond);
		for (r += 2; *r == ' ' || *r == '\t'; r++)
			;
		FUZZ_CHECK(strcmp(r, rest) == 0 && rest[0] != '\0', "\"%s\": "
		    "rest \"%s\"", text, rest);
		free(cond);
		free(rest);
	}
	cronline_cmd_free(&c);
	free(text);
	return 0;
}

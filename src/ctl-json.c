/*
 * ctl-json.c -- the JSON writer behind tickctl --json.
 *
 * Objects are built member by member into a growing buffer and printed
 * as one line.  Strings are escaped per RFC 8259: '"' and '\\', every
 * control character (U+0000 to U+001F, as \b \f \n \r \t or \u00XX) and
 * DEL (\u007f).  Text that is not valid UTF-8 (job output, exit error
 * texts, file names) is repaired on the way: each maximal ill-formed
 * subsequence (Unicode 15, section 3.9, "U+FFFD substitution of maximal
 * subparts") becomes one \ufffd, so the output is always valid JSON and
 * valid UTF-8.  Overlong forms, surrogates (ED A0-BF) and code points
 * above U+10FFFF are ill-formed.
 *
 * Instants are written as RFC 3339 UTC strings, durations as integers
 * (milliseconds, by the callers' convention); -1 means "absent" for
 * ctl_json_opt and the time writers, and is written null.
 *
 * DIAGNOSTICS: none here; allocation failure is fatal (xmalloc);
 * ctl_json_print returns -1 when stdout fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-json.h"
#include "rfc3339.h"
#include "xmalloc.h"

/* Make room for n more bytes plus the NUL. */
static void
ctl_json_grow(struct ctl_json *j, size_t n)
{
	size_t cap;

	if (j->len + n + 1 <= j->cap)
		return;
	cap = j->cap > 0 ? j->cap : 256;
	while (cap < j->len + n + 1)
		cap *= 2;
	j->buf = xreallocarray(j->buf, cap, 1);
	j->cap = cap;
}

/* Append n bytes. */
static void
ctl_json_add(struct ctl_json *j, const char *s, size_t n)
{
	ctl_json_grow(j, n);
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

/* Append a NUL-terminated string. */
static void
ctl_json_adds(struct ctl_json *j, const char *s)
{
	ctl_json_add(j, s, strlen(s));
}

/* Start a member or element: the comma, then "key": if there is a key. */
static void
ctl_json_key(struct ctl_json *j, const char *key)
{
	if (j->comma)
		ctl_json_add(j, ",", 1);
	j->comma = 1;
	if (key != NULL) {
		ctl_json_add(j, "\"", 1);
		ctl_json_escape(j, key, strlen(key));
		ctl_json_add(j, "\":", 2);
	}
}

/* An empty writer. */
void
ctl_json_init(struct ctl_json *j)
{
	memset(j, 0, sizeof *j);
}

/* Release the buffer; the writer may be initialised again. */
void
ctl_json_free(struct ctl_json *j)
{
	free(j->buf);
	memset(j, 0, sizeof *j);
}

/* Forget the text so far, keeping the buffer. */
void
ctl_json_reset(struct ctl_json *j)
{
	j->len = 0;
	j->comma = 0;
	if (j->buf != NULL)
		j->buf[0] = '\0';
}

/* The text so far (valid until the next call that writes). */
const char *
ctl_json_text(const struct ctl_json *j)
{
	return j->buf != NULL ? j->buf : "";
}

/* Open an object, as member key (or an element when key is NULL). */
void
ctl_json_open(struct ctl_json *j, const char *key)
{
	ctl_json_key(j, key);
	ctl_json_add(j, "{", 1);
	j->comma = 0;
}

/* Close the innermost object. */
void
ctl_json_close(struct ctl_json *j)
{
	ctl_json_add(j, "}", 1);
	j->comma = 1;
}

/* Open an array, as member key (or an element when key is NULL). */
void
ctl_json_open_array(struct ctl_json *j, const char *key)
{
	ctl_json_key(j, key);
	ctl_json_add(j, "[", 1);
	j->comma = 0;
}

/* Close the innermost array. */
void
ctl_json_close_array(struct ctl_json *j)
{
	ctl_json_add(j, "]", 1);
	j->comma = 1;
}

/*
 * The length of the well-formed UTF-8 sequence at s (n > 0 bytes
 * available), or 0 if it is ill-formed; then *bad is the length of its
 * maximal ill-formed subpart (at least 1).  Table 3-7 of Unicode 15.
 */
size_t
ctl_json_utf8(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char	lo = 0x80, hi = 0xbf;
	size_t		need, i;

	*bad = 1;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;		/* no overlong forms */
		else if (s[0] == 0xed)
			hi = 0x9f;		/* no surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		if (s[0] == 0xf0)
			lo = 0x90;		/* no overlong forms */
		else if (s[0] == 0xf4)
			hi = 0x8f;		/* nothing above U+10FFFF */
	} else
		return 0;		/* 80-C1, F5-FF: never a lead */
	for (i = 1; i < need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need;
}

/* Append s (n bytes, NULs included) escaped, without quotes. */
void
ctl_json_escape(struct ctl_json *j, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	char			 esc[8];
	size_t			 i = 0, k, bad, start;

	while (i < n) {
		/* Runs of plain characters are copied in one go. */
		start = i;
		while (i < n && p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' &&
		    p[i] != '\\')
			i++;
		if (i > start)
			ctl_json_add(j, s + start, i - start);
		if (i >= n)
			break;
		switch (p[i]) {
		case '"':
			ctl_json_add(j, "\\\"", 2);
			i++;
			continue;
		case '\\':
			ctl_json_add(j, "\\\\", 2);
			i++;
			continue;
		case '\b':
			ctl_json_add(j, "\\b", 2);
			i++;
			continue;
		case '\f':
			ctl_json_add(j, "\\f", 2);
			i++;
			continue;
		case '\n':
			ctl_json_add(j, "\\n", 2);
			i++;
			continue;
		case '\r':
			ctl_json_add(j, "\\r", 2);
			i++;
			continue;
		case '\t':
			ctl_json_add(j, "\\t", 2);
			i++;
			continue;
		default:
			break;
		}
		if (p[i] < 0x20 || p[i] == 0x7f) {
			(void)snprintf(esc, sizeof esc, "\\u%04x", p[i]);
			ctl_json_add(j, esc, 6);
			i++;
			continue;
		}
		if ((k = ctl_json_utf8(p + i, n - i, &bad)) > 0) {
			ctl_json_add(j, s + i, k);
			i += k;
		} else {
			ctl_json_add(j, "\\ufffd", 6);
			i += bad;
		}
	}
}

/* A string member (NULL: null). */
void
ctl_json_str(struct ctl_json *j, const char *key, const char *v)
{
	if (v == NULL) {
		ctl_json_null(j, key);
		return;
	}
	ctl_json_strn(j, key, v, strlen(v));
}

/* A string member of n bytes (which may hold NULs: written \u0000). */
void
ctl_json_strn(struct ctl_json *j, const char *key, const char *v, size_t n)
{
	ctl_json_key(j, key);
	ctl_json_add(j, "\"", 1);
	ctl_json_escape(j, v, n);
	ctl_json_add(j, "\"", 1);
}

/* An integer member. */
void
ctl_json_int(struct ctl_json *j, const char *key, int64_t v)
{
	char num[24];

	ctl_json_key(j, key);
	(void)snprintf(num, sizeof num, "%lld", (long long)v);
	ctl_json_adds(j, num);
}

/* An integer member that is null when v is -1. */
void
ctl_json_opt(struct ctl_json *j, const char *key, int64_t v)
{
	if (v == -1)
		ctl_json_null(j, key);
	else
		ctl_json_int(j, key, v);
}

/* A true/false member. */
void
ctl_json_bool(struct ctl_json *j, const char *key, int v)
{
	ctl_json_key(j, key);
	ctl_json_adds(j, v ? "true" : "false");
}

/* A null member. */
void
ctl_json_null(struct ctl_json *j, const char *key)
{
	ctl_json_key(j, key);
	ctl_json_adds(j, "null");
}

/* An instant (Unix seconds) as RFC 3339 UTC; -1: null. */
void
ctl_json_time(struct ctl_json *j, const char *key, int64_t t)
{
	char buf[RFC3339_BUFSZ];

	if (t == -1) {
		ctl_json_null(j, key);
		return;
	}
	rfc3339_format_utc(t, buf, sizeof buf);
	ctl_json_str(j, key, buf);
}

/*
 * A moment (Unix milliseconds) as RFC 3339 UTC, to the second like every
 * instant tickctl prints (the milliseconds are in the *_ms fields); -1:
 * null.
 */
void
ctl_json_time_ms(struct ctl_json *j, const char *key, int64_t ms)
{
	if (ms == -1) {
		ctl_json_null(j, key);
		return;
	}
	ctl_json_time(j, key, ms / 1000 - (ms % 1000 < 0));
}

/* Print the text as one line on stdout and reset; 0, or -1 (stdio). */
int
ctl_json_print(struct ctl_json *j)
{
	int rc = 0;

	if (fputs(ctl_json_text(j), stdout) == EOF || putchar('\n') == EOF)
		rc = -1;
	ctl_json_reset(j);
	return rc;
}

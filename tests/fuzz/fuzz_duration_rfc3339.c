/*
 * fuzz_duration_rfc3339.c -- libFuzzer target: durations and RFC 3339
 * timestamps, parsed and printed.
 *
 * The input, as a C string, goes to duration_parse() and rfc3339_parse();
 * whatever parses must print and parse back to the same value, and print
 * the same text again (the printed form is canonical).  The input's first
 * 13 bytes also give a raw int64_t, a UTC offset and a buffer length, so
 * the printers are tried on any value, into buffers of exactly the given
 * size (AddressSanitizer sees every overrun), and must always terminate
 * their output; in their documented buffer size they must never truncate.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "fuzz.h"
#include "rfc3339.h"

#define YEAR0		INT64_C(-62167219200)	/* 0000-01-01T00:00:00Z */
#define YEAR10000	INT64_C(253402300800)	/* 10000-01-01T00:00:00Z */
#define UTOFF_MAX	(26 * 3600)
#define RFC_UTOFF_MAX	(23 * 3600 + 59 * 60)	/* +23:59 */

/* Little-endian bytes of the input at off, zero past its end. */
static uint64_t
raw_bytes(const uint8_t *data, size_t size, size_t off, size_t n)
{
	uint64_t	v = 0;
	size_t		i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)(off + i < size ? data[off + i] : 0) << (8 * i);
	return v;
}

static void
check_duration_text(const char *text)
{
	char	 buf[DURATION_BUFSZ], again[DURATION_BUFSZ], *cause = NULL;
	int64_t	 d, d2;

	if (duration_parse(text, &d, &cause) == -1) {
		FUZZ_CHECK(cause != NULL && *cause != '\0', "duration \"%s\" "
		    "refused without a cause", text);
		free(cause);
		return;
	}
	FUZZ_CHECK(d >= 0 && d <= DURATION_MAX, "duration \"%s\" is %lld",
	    text, (long long)d);
	duration_format(d, buf, sizeof buf);
	FUZZ_CHECK(strlen(buf) < sizeof buf - 1, "duration %lld printed as "
	    "\"%s\" may be truncated", (long long)d, buf);
	FUZZ_CHECK(duration_parse(buf, &d2, &cause) == 0 && d2 == d,
	    "duration \"%s\" = %lld printed as \"%s\" reads back as %lld",
	    text, (long long)d, buf, (long long)d2);
	duration_format(d2, again, sizeof again);
	FUZZ_CHECK(strcmp(buf, again) == 0, "duration %lld printed as "
	    "\"%s\" then \"%s\"", (long long)d, buf, again);
}

/* Print v into a heap buffer of exactly len bytes. */
static void
check_duration_value(int64_t v, size_t len)
{
	char	*buf = malloc(len > 0 ? len : 1), *cause = NULL;
	int64_t	 d;

	if (buf == NULL)
		abort();
	duration_format(v, buf, len);
	if (len > 0)
		FUZZ_CHECK(memchr(buf, '\0', len) != NULL, "duration %lld "
		    "in %zu bytes: not terminated", (long long)v, len);
	if (len == DURATION_BUFSZ) {
		FUZZ_CHECK(strlen(buf) < len - 1, "duration %lld printed as "
		    "\"%s\" may be truncated", (long long)v, buf);
		if (v >= 0 && v <= DURATION_MAX)
			FUZZ_CHECK(duration_parse(buf, &d, &cause) == 0 &&
			    d == v, "duration %lld printed as \"%s\" reads "
			    "back as %lld", (long long)v, buf, (long long)d);
	}
	free(buf);
}

/* Print t at offset utoff (or in UTC) and read it back if it is 4-digit. */
static void
check_timestamp(int64_t t, int32_t utoff, int utc)
{
	char	 buf[RFC3339_BUFSZ], again[RFC3339_BUFSZ], *cause = NULL;
	int64_t	 t2;

	if (utc)
		rfc3339_format_utc(t, buf, sizeof buf);
	else
		rfc3339_format(t, utoff, buf, sizeof buf);
	FUZZ_CHECK(strlen(buf) < sizeof buf - 1, "%lld%+d printed as \"%s\" "
	    "may be truncated", (long long)t, (int)utoff, buf);
	if (t < YEAR0 - utoff || t >= YEAR10000 - utoff)
		return;
	if (!utc && (utoff % 60 != 0 || utoff < -RFC_UTOFF_MAX ||
	    utoff > RFC_UTOFF_MAX))
		return;		/* +HH:MM:SS and +24:00 are not RFC 3339 */
	FUZZ_CHECK(rfc3339_parse(buf, &t2, &cause) == 0 && t2 == t,
	    "%lld at offset %d printed as \"%s\" reads back as %lld (%s)",
	    (long long)t, (int)utoff, buf, (long long)t2,
	    cause != NULL ? cause : "parsed");
	if (utc)
		rfc3339_format_utc(t2, again, sizeof again);
	else
		rfc3339_format(t2, utoff, again, sizeof again);
	FUZZ_CHECK(strcmp(buf, again) == 0, "printed \"%s\" then \"%s\"",
	    buf, again);
}

static void
check_timestamp_text(const char *text, int32_t utoff)
{
	char	*cause = NULL;
	int64_t	 t;

	if (rfc3339_parse(text, &t, &cause) == -1) {
		FUZZ_CHECK(cause != NULL && *cause != '\0', "timestamp "
		    "\"%s\" refused without a cause", text);
		free(cause);
		return;
	}
	/* Years 0000-9999 at offsets up to +-23:59. */
	FUZZ_CHECK(t >= YEAR0 - 86400 && t < YEAR10000 + 86400, "timestamp "
	    "\"%s\" is %lld", text, (long long)t);
	check_timestamp(t, 0, 1);
	check_timestamp(t, 0, 0);
	check_timestamp(t, utoff - utoff % 60, 0);
	check_timestamp(t, utoff, 0);
}

/* Print t at utoff into a heap buffer of exactly len bytes. */
static void
check_timestamp_len(int64_t t, int32_t utoff, size_t len)
{
	char *buf = malloc(len > 0 ? len : 1);

	if (buf == NULL)
		abort();
	rfc3339_format(t, utoff, buf, len);
	if (len > 0)
		FUZZ_CHECK(memchr(buf, '\0', len) != NULL, "%lld%+d in %zu "
		    "bytes: not terminated", (long long)t, (int)utoff, len);
	rfc3339_format_utc(t, buf, len);
	if (len > 0)
		FUZZ_CHECK(memchr(buf, '\0', len) != NULL, "%lld in %zu "
		    "bytes: not terminated", (long long)t, len);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*text = fuzz_strdup(data, size);
	int64_t	 v = (int64_t)raw_bytes(data, size, 0, 8);
	int32_t	 utoff = (int32_t)(raw_bytes(data, size, 8, 4) %
		    (2 * UTOFF_MAX + 1)) - UTOFF_MAX;
	size_t	 len = (size_t)raw_bytes(data, size, 12, 1) % (RFC3339_BUFSZ + 1);

	check_duration_text(text);
	check_duration_value(v, DURATION_BUFSZ);
	check_duration_value(v, len % (DURATION_BUFSZ + 1));
	check_duration_value(v % (DURATION_MAX + 1), DURATION_BUFSZ);

	check_timestamp_text(text, utoff);
	check_timestamp(v, 0, 1);
	check_timestamp(v % YEAR10000, utoff - utoff % 60, 0);
	/* rfc3339_format() adds the offset to the instant (fuzz.h). */
	v = fuzz_clamp(v);
	check_timestamp(v, utoff, 0);
	check_timestamp_len(v, utoff, len);
	check_timestamp_len(v, utoff, RFC3339_BUFSZ);

	free(text);
	return 0;
}

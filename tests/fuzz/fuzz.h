/*
 * fuzz.h -- shared helpers of the libFuzzer targets in tests/fuzz/.
 *
 * Each target defines LLVMFuzzerTestOneInput() and is built twice: with
 * clang and -fsanitize=fuzzer for fuzzing (build/fuzz/), and with the
 * normal compiler against libtickd.a plus replay.c, which feeds it the
 * committed corpus as an ordinary test (build/fuzz-replay/).  A failed
 * invariant prints what was expected and aborts, which libFuzzer reports
 * as a crash and saves the input.
 *
 * Zone fixtures are read from FUZZ_TZIF_DIR (the environment variable, else
 * the macro the Makefile sets to the checkout's tests/data/tzif).
 */
#ifndef TICKD_FUZZ_H
#define TICKD_FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tz.h"

#ifndef FUZZ_TZIF_DIR
#define FUZZ_TZIF_DIR	"tests/data/tzif"
#endif

/*
 * tz_period_at() (with a footer rule) and rfc3339_format() overflow within
 * a few years of the ends of int64_t (tests/fuzz/README.md), so the
 * targets keep instants within +-2^62 s, year +-1.46e11, unless built with
 * -DFUZZ_FULL_RANGE.
 */
#ifdef FUZZ_FULL_RANGE
#define FUZZ_LIMIT	INT64_MAX
#else
#define FUZZ_LIMIT	(INT64_C(1) << 62)
#endif

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_CHECK(c, ...) do {						\
	if (!(c))							\
		fuzz_fail(__FILE__, __LINE__, #c, __VA_ARGS__);		\
} while (0)

static inline void fuzz_fail(const char *, int, const char *, const char *,
    ...) __attribute__((format(printf, 4, 5), noreturn));

/* Report a broken invariant and abort, so that the input is kept. */
static inline void
fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	(void)fprintf(stderr, "%s:%d: invariant broken: %s\n    ", file,
	    line, cond);
	va_start(ap, fmt);
	(void)vfprintf(stderr, fmt, ap);
	va_end(ap);
	(void)fputc('\n', stderr);
	abort();
}

/* A zone fixture, e.g. ("fat", "America/New_York"); exits if missing. */
static inline struct tz *
fuzz_zone(const char *flavour, const char *name)
{
	const char	*base = getenv("FUZZ_TZIF_DIR");
	char		 dir[4096], *cause = NULL;
	struct tz	*z;

	if (base == NULL || *base == '\0')
		base = FUZZ_TZIF_DIR;
	(void)snprintf(dir, sizeof dir, "%s/%s", base, flavour);
	if ((z = tz_load_file(dir, name, &cause)) == NULL) {
		(void)fprintf(stderr, "fuzz: cannot load zone fixture: %s "
		    "(set FUZZ_TZIF_DIR to the checkout's tests/data/tzif)\n",
		    cause);
		exit(2);
	}
	return z;
}

/* A NUL-terminated copy of the input; caller frees. */
static inline char *
fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* t within +-FUZZ_LIMIT. */
static inline int64_t
fuzz_clamp(int64_t t)
{
	return t < -FUZZ_LIMIT ? -FUZZ_LIMIT : t > FUZZ_LIMIT ? FUZZ_LIMIT : t;
}

/* FNV-1a over the input: deterministic choices the input steers. */
static inline uint64_t
fuzz_hash(const uint8_t *data, size_t size)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325);
	size_t		i;

	for (i = 0; i < size; i++)
		h = (h ^ data[i]) * UINT64_C(0x100000001b3);
	return h;
}

#endif /* TICKD_FUZZ_H */

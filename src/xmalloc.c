/*
 * xmalloc.c -- allocation wrappers that exit on failure.
 *
 * Out of memory is treated as an impossible state: the message goes to
 * stderr (which journald captures for the service) and the process exits
 * with status 1.  Zero-sized requests
 * are rounded up to one byte so that callers never see NULL.
 *
 * DIAGNOSTICS: fatal on out-of-memory and on size overflow; nothing else.
 */
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

static void xmalloc_die(const char *, size_t, size_t)
    __attribute__((noreturn));

/* Report an allocation failure and exit. */
static void
xmalloc_die(const char *what, size_t n, size_t size)
{
	(void)fprintf(stderr, "fatal: %s: cannot allocate %zu * %zu bytes\n",
	    what, n, size);
	exit(1);
}

/* malloc that never returns NULL. */
void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		xmalloc_die("xmalloc", 1, size);
	return p;
}

/* calloc that never returns NULL. */
void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if (n == 0 || size == 0)
		n = size = 1;
	if ((p = calloc(n, size)) == NULL)
		xmalloc_die("xcalloc", n, size);
	return p;
}

/* reallocarray that never returns NULL; the old pointer is invalid after. */
void *
xreallocarray(void *old, size_t n, size_t size)
{
	void *p;

	if (n == 0 || size == 0)
		n = size = 1;
	if (size > SIZE_MAX / n)
		xmalloc_die("xreallocarray", n, size);
	if ((p = realloc(old, n * size)) == NULL)
		xmalloc_die("xreallocarray", n, size);
	return p;
}

/* strdup that never returns NULL. */
char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* strndup that never returns NULL. */
char *
xstrndup(const char *s, size_t n)
{
	size_t	 len = strnlen(s, n);
	char	*p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* asprintf that never fails; caller frees. */
char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* vasprintf that never fails; caller frees. */
char *
xvasprintf(const char *fmt, va_list ap)
{
	va_list	 ap2;
	int	 len;
	char	*s;

	va_copy(ap2, ap);
	len = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (len < 0)
		xmalloc_die("xvasprintf", 1, 0);
	s = xmalloc((size_t)len + 1);
	(void)vsnprintf(s, (size_t)len + 1, fmt, ap);
	return s;
}

/*
 * Shared strings: one copy of a text that many keep, such as the path of
 * a job file in each of its jobs.  xstrshare makes one (one holder),
 * xstrref adds a holder, xstrunref drops one and frees the text with the
 * last (NULL is allowed).  A shared string is never changed, and only
 * these free it.
 */
struct xstrshared {
	size_t	refs;
	char	text[];
};

#define XSTR_SHARED(s) \
	((struct xstrshared *)(void *)((s) - offsetof(struct xstrshared, text)))

char *
xstrshare(const char *s)
{
	size_t			 len = strlen(s);
	struct xstrshared	*h = xmalloc(sizeof *h + len + 1);

	h->refs = 1;
	memcpy(h->text, s, len + 1);
	return h->text;
}

char *
xstrref(char *s)
{
	XSTR_SHARED(s)->refs++;
	return s;
}

void
xstrunref(char *s)
{
	if (s != NULL && --XSTR_SHARED(s)->refs == 0)
		free(XSTR_SHARED(s));
}

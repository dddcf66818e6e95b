/*
 * xmalloc.h -- allocation that cannot fail.
 *
 * Every function here either returns usable memory or ends the process
 * with a message on stderr: tickd and tickctl cannot do anything sensible
 * without memory, and checking each call would hide real error paths.
 * Code that must survive allocation failure uses plain malloc instead.
 */
#ifndef TICKD_XMALLOC_H
#define TICKD_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));
char	*xstrshare(const char *);
char	*xstrref(char *);
void	 xstrunref(char *);

#endif /* TICKD_XMALLOC_H */

/*
 * duration.h -- durations written as "90s", "15m", "1h30m", "2d", "1w".
 */
#ifndef TICKD_DURATION_H
#define TICKD_DURATION_H

#include <stddef.h>
#include <stdint.h>

#define DURATION_MAX	(INT64_C(100) * 366 * 86400)	/* 100 years */
#define DURATION_BUFSZ	32

int	duration_parse(const char *, int64_t *, char **);
void	duration_format(int64_t, char *, size_t);

#endif /* TICKD_DURATION_H */

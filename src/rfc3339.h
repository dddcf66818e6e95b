/*
 * rfc3339.h -- RFC 3339 timestamps with a UTC offset.
 */
#ifndef TICKD_RFC3339_H
#define TICKD_RFC3339_H

#include <stddef.h>
#include <stdint.h>

#define RFC3339_BUFSZ	40	/* "-292277026596-12-04T15:30:07+25:59:59" */

int	rfc3339_parse(const char *, int64_t *, char **);
void	rfc3339_format(int64_t, int32_t, char *, size_t);
void	rfc3339_format_utc(int64_t, char *, size_t);

#endif /* TICKD_RFC3339_H */

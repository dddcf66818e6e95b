/*
 * civil.h -- proleptic Gregorian calendar arithmetic on integers.
 *
 * A "civil second" counts seconds since 1970-01-01 00:00:00 of some wall
 * clock, with every day exactly 86400 seconds long.  For UTC it is a Unix
 * time; for a zone's local time it is "local seconds", which the tz module
 * maps back to instants.  Nothing here knows about time zones.
 */
#ifndef TICKD_CIVIL_H
#define TICKD_CIVIL_H

#include <stdint.h>

#define CIVIL_SECS_PER_DAY	86400

/* A broken-down civil time.  wday is 0 for Sunday .. 6 for Saturday. */
struct civil {
	int64_t	year;
	int	month;		/* 1-12 */
	int	day;		/* 1-31 */
	int	hour;		/* 0-23 */
	int	min;		/* 0-59 */
	int	sec;		/* 0-59 */
	int	wday;		/* 0-6, Sunday = 0 */
};

int64_t	civil_floor_div(int64_t, int64_t);
int64_t	civil_floor_mod(int64_t, int64_t);
int	civil_is_leap(int64_t);
int	civil_days_in_month(int64_t, int);
int64_t	civil_days_from_date(int64_t, int, int);
void	civil_date_from_days(int64_t, int64_t *, int *, int *);
int	civil_weekday(int64_t);
void	civil_split(int64_t, struct civil *);
int64_t	civil_join(const struct civil *);

#endif /* TICKD_CIVIL_H */

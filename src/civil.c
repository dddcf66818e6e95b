/*
 * civil.c -- proleptic Gregorian calendar arithmetic.
 *
 * Converts between day numbers (days since 1970-01-01) and year/month/day
 * with Howard Hinnant's era-based algorithms, which are exact for every
 * representable year and need no tables or loops.  All divisions round
 * toward negative infinity, so instants before 1970 work like any other.
 *
 * Invariants: month 1-12, day 1-31, wday 0 (Sunday) - 6.  Callers keep
 * years within +-10^12 so that seconds fit in int64_t; nothing here checks.
 *
 * DIAGNOSTICS: none; pure arithmetic, no failure modes.
 */
#include "civil.h"

/* Division rounding toward negative infinity; b must be positive. */
int64_t
civil_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if ((a % b) < 0)
		q--;
	return q;
}

/* Remainder that is always in [0, b); b must be positive. */
int64_t
civil_floor_mod(int64_t a, int64_t b)
{
	int64_t r = a % b;

	if (r < 0)
		r += b;
	return r;
}

/* Whether a year is a Gregorian leap year. */
int
civil_is_leap(int64_t y)
{
	return (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
}

/* Number of days in month m (1-12) of year y. */
int
civil_days_in_month(int64_t y, int m)
{
	static const unsigned char dim[12] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};

	if (m == 2 && civil_is_leap(y))
		return 29;
	return dim[m - 1];
}

/* Days since 1970-01-01 of a date (month 1-12, day 1-31). */
int64_t
civil_days_from_date(int64_t y, int m, int d)
{
	int64_t	era, yoe, doy, doe;

	y -= m <= 2;
	era = civil_floor_div(y, 400);
	yoe = y - era * 400;				/* [0, 399] */
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;	/* [0, 365] */
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;	/* [0, 146096] */
	return era * 146097 + doe - 719468;
}

/* The date of a day number (days since 1970-01-01). */
void
civil_date_from_days(int64_t z, int64_t *yp, int *mp, int *dp)
{
	int64_t	era, doe, yoe, y, doy, mp5;

	z += 719468;
	era = civil_floor_div(z, 146097);
	doe = z - era * 146097;				/* [0, 146096] */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);	/* [0, 365] */
	mp5 = (5 * doy + 2) / 153;			/* [0, 11] */
	*dp = (int)(doy - (153 * mp5 + 2) / 5 + 1);
	*mp = (int)(mp5 < 10 ? mp5 + 3 : mp5 - 9);
	*yp = y + (*mp <= 2);
}

/* Day of the week of a day number, 0 = Sunday (1970-01-01 was a Thursday). */
int
civil_weekday(int64_t z)
{
	return (int)civil_floor_mod(z + 4, 7);
}

/* Break civil seconds into a struct civil. */
void
civil_split(int64_t secs, struct civil *c)
{
	int64_t	days = civil_floor_div(secs, CIVIL_SECS_PER_DAY);
	int64_t	sod = civil_floor_mod(secs, CIVIL_SECS_PER_DAY);

	civil_date_from_days(days, &c->year, &c->month, &c->day);
	c->hour = (int)(sod / 3600);
	c->min = (int)(sod / 60 % 60);
	c->sec = (int)(sod % 60);
	c->wday = civil_weekday(days);
}

/* Civil seconds of a struct civil (wday is ignored). */
int64_t
civil_join(const struct civil *c)
{
	return civil_days_from_date(c->year, c->month, c->day) *
	    CIVIL_SECS_PER_DAY + c->hour * 3600 + c->min * 60 + c->sec;
}

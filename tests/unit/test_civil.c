/*
 * test_civil.c -- calendar arithmetic against known dates and a day-by-day
 * walk across 1600-2400 (two full 400-year cycles plus the edges).
 */
#include "civil.h"
#include "t.h"

static const struct {
	int64_t	y;
	int	m, d;
	int64_t	days;
	int	wday;
} civil_cases[] = {
	{ 1970, 1, 1, 0, 4 },
	{ 1969, 12, 31, -1, 3 },
	{ 2000, 2, 29, 11016, 2 },
	{ 2000, 3, 1, 11017, 3 },
	{ 1900, 3, 1, -25508, 4 },
	{ 2038, 1, 19, 24855, 2 },
	{ 1600, 1, 1, -135140, 6 },
	{ 9999, 12, 31, 2932896, 5 },
	{ 1, 1, 1, -719162, 1 },
	{ 0, 3, 1, -719468, 3 },
	{ -1, 12, 31, -719529, 5 },
	{ 2011, 12, 30, 15338, 5 },
};

int
main(void)
{
	int64_t		y, days, prev;
	int		m, d, wday, i, leapdays = 0, wrong = 0;
	struct civil	c;

	T_RUN("known dates");
	for (i = 0; i < (int)(sizeof civil_cases / sizeof civil_cases[0]);
	    i++) {
		T_EQ_INT(civil_days_from_date(civil_cases[i].y,
		    civil_cases[i].m, civil_cases[i].d), civil_cases[i].days);
		civil_date_from_days(civil_cases[i].days, &y, &m, &d);
		T_EQ_INT(y, civil_cases[i].y);
		T_EQ_INT(m, civil_cases[i].m);
		T_EQ_INT(d, civil_cases[i].d);
		T_EQ_INT(civil_weekday(civil_cases[i].days),
		    civil_cases[i].wday);
	}

	T_RUN("leap years");
	T_TRUE(civil_is_leap(2000));
	T_TRUE(!civil_is_leap(1900));
	T_TRUE(civil_is_leap(2024));
	T_TRUE(!civil_is_leap(2023));
	T_TRUE(civil_is_leap(0));
	T_TRUE(civil_is_leap(-4));
	T_EQ_INT(civil_days_in_month(2024, 2), 29);
	T_EQ_INT(civil_days_in_month(2100, 2), 28);
	T_EQ_INT(civil_days_in_month(2023, 4), 30);
	T_EQ_INT(civil_days_in_month(2023, 12), 31);

	/* Every day of 1600-2399 round-trips and follows the previous. */
	T_RUN("day walk");
	prev = civil_days_from_date(1600, 1, 1) - 1;
	wday = civil_weekday(prev);
	for (y = 1600; y < 2400; y++) {
		for (m = 1; m <= 12; m++) {
			for (d = 1; d <= civil_days_in_month(y, m); d++) {
				int64_t yy;
				int mm, dd;

				days = civil_days_from_date(y, m, d);
				civil_date_from_days(days, &yy, &mm, &dd);
				wday = (wday + 1) % 7;
				if (days != prev + 1 || yy != y || mm != m ||
				    dd != d || civil_weekday(days) != wday)
					wrong++;
				if (m == 2 && d == 29)
					leapdays++;
				prev = days;
			}
		}
	}
	T_EQ_INT(wrong, 0);
	T_EQ_INT(leapdays, 2 * 97);	/* 97 leap years per 400 */

	T_RUN("split and join");
	civil_split(-1, &c);
	T_EQ_INT(c.year, 1969);
	T_EQ_INT(c.hour, 23);
	T_EQ_INT(c.min, 59);
	T_EQ_INT(c.sec, 59);
	T_EQ_INT(c.wday, 3);
	T_EQ_INT(civil_join(&c), -1);
	civil_split(1700000000, &c);	/* 2023-11-14T22:13:20Z */
	T_EQ_INT(c.year, 2023);
	T_EQ_INT(c.month, 11);
	T_EQ_INT(c.day, 14);
	T_EQ_INT(c.hour, 22);
	T_EQ_INT(c.min, 13);
	T_EQ_INT(c.sec, 20);
	T_EQ_INT(civil_join(&c), 1700000000);

	T_RUN("floor division");
	T_EQ_INT(civil_floor_div(-1, 86400), -1);
	T_EQ_INT(civil_floor_div(-86400, 86400), -1);
	T_EQ_INT(civil_floor_div(-86401, 86400), -2);
	T_EQ_INT(civil_floor_mod(-1, 7), 6);
	T_EQ_INT(civil_floor_mod(14, 7), 0);
	return t_done();
}

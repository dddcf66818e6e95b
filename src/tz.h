/*
 * tz.h -- IANA time zones from compiled TZif files, without tzset().
 *
 * A struct tz is one zone loaded from a TZif file (RFC 8536, versions 1-4),
 * including the POSIX TZ rule in the file's footer that covers instants
 * after the last explicit transition.  Conversions never touch the TZ
 * environment variable or libc's localtime, so any number of zones can be
 * used side by side.
 *
 * Times are int64_t seconds.  An "instant" is a Unix time (UTC); a "local"
 * time counts civil seconds of the zone's wall clock since 1970-01-01 (see
 * civil.h).  Conversions are defined for |t| < 2^62 (years within about
 * +-1.4e11); callers keep far inside that (cron instants stop at 9999).  Converting local to UTC yields zero instants (the local time
 * falls in a gap, e.g. 02:30 on a spring-forward night), one, or two (a
 * fold, e.g. 01:30 on an autumn night).
 */
#ifndef TICKD_TZ_H
#define TICKD_TZ_H

#include <stddef.h>
#include <stdint.h>

#define TZ_ABBR_MAX	15		/* longest abbreviation kept */
#define TZ_OCC_MAX	4		/* most instants one local time denotes */
#define TZ_TIME_MIN	INT64_MIN	/* open start of a period */
#define TZ_TIME_MAX	INT64_MAX	/* open end of a period */
#define TZ_DEFAULT_DIR	"/usr/share/zoneinfo"

/* What to do with a nominal local time that does not exist. */
enum tz_gap {
	TZ_GAP_AUTO = 0,	/* let the caller's default decide */
	TZ_GAP_SHIFT,		/* use the first instant after the gap */
	TZ_GAP_SKIP		/* no instant at all */
};

/* What to do with a nominal local time that exists more than once. */
enum tz_fold {
	TZ_FOLD_AUTO = 0,	/* let the caller's default decide */
	TZ_FOLD_FIRST,		/* the earliest instant only */
	TZ_FOLD_SECOND,		/* the latest instant only */
	TZ_FOLD_BOTH		/* every instant */
};

/*
 * A maximal span of instants [start, end) with one UTC offset, isdst flag
 * and abbreviation.  start is TZ_TIME_MIN and end TZ_TIME_MAX when open.
 */
struct tz_period {
	int64_t	start;
	int64_t	end;
	int32_t	utoff;			/* seconds east of UTC */
	int	isdst;
	char	abbr[TZ_ABBR_MAX + 1];
};

struct tz;
struct tz_cache;

struct tz	*tz_load_mem(const char *, const void *, size_t, char **);
struct tz	*tz_load_file(const char *, const char *, char **);
struct tz	*tz_new_utc(void);
void		 tz_free(struct tz *);
const char	*tz_name(const struct tz *);
const char	*tz_default_dir(void);
int		 tz_name_check(const char *, char **);

void		 tz_period_at(const struct tz *, int64_t, struct tz_period *);
int64_t		 tz_to_local(const struct tz *, int64_t, int32_t *);
int32_t		 tz_offset_span(const struct tz *);
int		 tz_local_to_utc(const struct tz *, int64_t,
		     int64_t [TZ_OCC_MAX], int64_t *);
int		 tz_resolve(const struct tz *, int64_t, enum tz_gap,
		     enum tz_fold, int64_t [TZ_OCC_MAX]);
const char	*tz_gap_name(enum tz_gap);
const char	*tz_fold_name(enum tz_fold);
int		 tz_gap_parse(const char *, enum tz_gap *);
int		 tz_fold_parse(const char *, enum tz_fold *);

struct tz_cache	*tz_cache_new(const char *);
const struct tz	*tz_cache_get(struct tz_cache *, const char *, char **);
void		 tz_cache_free(struct tz_cache *);

#endif /* TICKD_TZ_H */

/*
 * cronexpr.h -- cron expressions and their firing instants in a time zone.
 *
 * Cron dialect: five fields "minute hour day-of-month month day-of-week",
 * or six with seconds first, or a macro (@hourly ... @yearly, @reboot),
 * with Jenkins' H given a job id's hash.  Quartz dialect: Quartz 2.3's
 * "second minute hour day-of-month month day-of-week [year]".  Fields match
 * the local wall clock of a zone; nominal local times that do not exist or
 * exist twice are resolved by an explicit gap and fold policy (tz.h).
 */
#ifndef TICKD_CRONEXPR_H
#define TICKD_CRONEXPR_H

#include <stdint.h>

#include "tz.h"

/* Instants and local times are kept below year 10000. */
#define CRONEXPR_TIME_LIMIT	INT64_C(253402300800)

struct cronexpr;

enum cronexpr_dialect {
	CRONEXPR_CRON,		/* Vixie cron; 5 or 6 fields; Jenkins H */
	CRONEXPR_QUARTZ		/* Quartz 2.3: 6 or 7 fields, ?, W, years */
};

/* How to read an expression; NULL means cron without a job id. */
struct cronexpr_opts {
	enum cronexpr_dialect	 dialect;
	int			 hash_set;	/* H allowed: hash is the id's */
					/* (policy_id_hash) */
	uint64_t		 hash;
};

/* What DST did to one firing instant (cronexpr_dst). */
enum cronexpr_dst {
	CRONEXPR_DST_NONE = 0,		/* its local time exists once */
	CRONEXPR_DST_GAP_SHIFTED,	/* shifted out of a gap */
	CRONEXPR_DST_FOLD_FIRST,	/* the first of a time occurring twice */
	CRONEXPR_DST_FOLD_SECOND	/* the second of it */
};

struct cronexpr	*cronexpr_parse(const char *, const struct cronexpr_opts *,
		     char **);
const char	*cronexpr_resolved(const struct cronexpr *);
int		 cronexpr_last_year(const struct cronexpr *);
char		*cronexpr_dow_note(const struct cronexpr *);
void		 cronexpr_free(struct cronexpr *);
const char	*cronexpr_text(const struct cronexpr *);
int		 cronexpr_is_reboot(const struct cronexpr *);
int		 cronexpr_has_seconds(const struct cronexpr *);
void		 cronexpr_policy(const struct cronexpr *, enum tz_gap *,
		     enum tz_fold *);
int		 cronexpr_next(const struct cronexpr *, const struct tz *,
		     enum tz_gap, enum tz_fold, int64_t, int64_t *);
int		 cronexpr_match_local(const struct cronexpr *, int64_t);
enum cronexpr_dst cronexpr_dst(const struct cronexpr *, const struct tz *,
		     int64_t, int64_t *);
const char	*cronexpr_dst_name(enum cronexpr_dst);

#endif /* TICKD_CRONEXPR_H */

/*
 * schedule.h -- a job's schedule: a cron expression or macro, a fixed rate
 * ("every 15m") or a fixed delay after the previous run ("after 1h").
 */
#ifndef TICKD_SCHEDULE_H
#define TICKD_SCHEDULE_H

#include <stdint.h>

#include "tz.h"

enum schedule_kind {
	SCHEDULE_CRON,		/* cron expression or macro */
	SCHEDULE_EVERY,		/* fixed rate, anchored at the Unix epoch */
	SCHEDULE_AFTER,		/* fixed delay after the previous run ends */
	SCHEDULE_REBOOT		/* @reboot: once per boot */
};

struct cronexpr;
struct cronexpr_opts;
struct schedule;

struct schedule		*schedule_parse(const char *,
			     const struct cronexpr_opts *, char **);
void			 schedule_free(struct schedule *);
enum schedule_kind	 schedule_kind(const struct schedule *);
const char		*schedule_text(const struct schedule *);
const struct cronexpr	*schedule_cron(const struct schedule *);
int64_t			 schedule_interval(const struct schedule *);
int			 schedule_next(const struct schedule *,
			     const struct tz *, enum tz_gap, enum tz_fold,
			     int64_t, int64_t *);
int			 schedule_last(const struct schedule *,
			     const struct tz *, enum tz_gap, enum tz_fold,
			     int64_t *);
int64_t			 schedule_after_next(const struct schedule *,
			     int64_t);

#endif /* TICKD_SCHEDULE_H */

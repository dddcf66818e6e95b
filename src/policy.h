/*
 * policy.h -- pure scheduling decisions: when an instance is due, and what
 * becomes of instances found late.  No I/O, no event loop, no store: every
 * function takes "now" as an argument.
 */
#ifndef TICKD_POLICY_H
#define TICKD_POLICY_H

#include <stdint.h>

#include "schedule.h"
#include "tz.h"

#define POLICY_SCAN_MAX	INT64_C(100000)		/* instants counted at most */

/* The instances of a job between its next planned one and now. */
struct policy_late {
	int64_t	first;		/* oldest instant due, -1: none due */
	int64_t	last;		/* newest instant due */
	int64_t	prev;		/* the one before last, -1: none */
	int64_t	count;		/* how many are due */
	int	capped;		/* count is a lower bound (cron only) */
	int64_t	next;		/* first instant after now, -1: none */
};

int64_t	policy_random_delay(const char *, const char *, int64_t, int64_t,
	    int64_t);
void	policy_scan(const struct schedule *, const struct tz *, enum tz_gap,
	    enum tz_fold, int64_t, int64_t, struct policy_late *);

#endif /* TICKD_POLICY_H */

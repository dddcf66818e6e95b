/*
 * policy.h -- pure scheduling decisions: when an instance is due, what
 * becomes of instances found late (misfire), of instances due while
 * another runs (overlap), of failures (retries).  No I/O, no event loop,
 * no store: every function takes "now" as an argument.
 */
#ifndef TICKD_POLICY_H
#define TICKD_POLICY_H

#include <stddef.h>
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

/* An instance due while another instance of the same job is in flight. */
enum policy_overlap {
	POLICY_OVERLAP_SKIP,		/* record it as skipped */
	POLICY_OVERLAP_QUEUE,		/* run it after, up to queue_limit */
	POLICY_OVERLAP_ALLOW,		/* run alongside, up to max_parallel */
	POLICY_OVERLAP_REPLACE		/* stop the running one, run this */
};

/* Instances found more than misfire_grace late. */
enum policy_misfire {
	POLICY_MISFIRE_RUN_ONCE,	/* the newest runs, the rest coalesce */
	POLICY_MISFIRE_CATCH_UP,	/* each runs, oldest first, up to a limit */
	POLICY_MISFIRE_SKIP		/* none runs */
};

/* An instance whose process was lost with a crashed daemon. */
enum policy_recover {
	POLICY_RECOVER_RERUN,		/* a new attempt: at least once */
	POLICY_RECOVER_ABANDON		/* status abandoned: at most once */
};

/* What to do with the instances of one job that are due now. */
struct policy_due {
	int64_t		 skip_first;	/* recorded without running: */
	int64_t		 skip_last;	/* a range, count 0 if none */
	int64_t		 skip_count;
	int		 skip_capped;	/* count is a lower bound */
	const char	*skip_reason;	/* coalesced, misfire, catch_up_limit */
	int64_t		*run;		/* to run, oldest first (caller's */
	size_t		 nrun;		/* buffer) */
	size_t		 ncatch;	/* the first ncatch are catch-up runs */
	int64_t		 more_first;	/* on-time instances that did not fit */
	int64_t		 more_last;	/* in run[]: the overlap policy skips */
	int64_t		 more_count;	/* them as a range */
	int		 more_capped;	/* more_count is a lower bound */
	int64_t		 ontime_first;	/* on-time instances (not misfires): */
	int64_t		 ontime_prev;	/* first, the one before the newest, */
	int64_t		 ontime_count;	/* and how many (a lower bound if */
	int		 ontime_capped;	/* capped) */
	int64_t		 last;		/* newest due instant, -1: none */
	int64_t		 next;		/* first instant after now, -1: none */
};

#define POLICY_SHARDS_MAX	10000	/* shards of one instance */
#define POLICY_SHARD_MAX	1024	/* bytes of one shard's parameter */

int	policy_overlap_parse(const char *, int *);
int	policy_misfire_parse(const char *, int *);
int	policy_recover_parse(const char *, int *);
const char *policy_overlap_name(int);
const char *policy_misfire_name(int);
const char *policy_recover_name(int);
int	policy_signal_parse(const char *, int *);
int	policy_exit_codes_parse(const char *, uint8_t [32], int *, char **);
int	policy_exit_retryable(const uint8_t [32], int, int);
int64_t	policy_retry_delay(int64_t, int64_t, int);
int	policy_shards_list(const char *, char **, char **);
int	policy_shards_from(const char *, size_t, char **, char **);
char	**policy_shards_split(const char *, int *);
void	policy_due(const struct schedule *, const struct tz *, enum tz_gap,
	    enum tz_fold, int64_t, int64_t, int64_t, int, int64_t, int64_t *,
	    size_t, struct policy_due *);
uint64_t policy_id_hash(const char *);
int64_t	policy_random_delay(const char *, const char *, int64_t, int64_t,
	    int64_t);
void	policy_scan(const struct schedule *, const struct tz *, enum tz_gap,
	    enum tz_fold, int64_t, int64_t, struct policy_late *);

#endif /* TICKD_POLICY_H */

/*
 * ctl-job.h -- what tickctl says about a configured job: its state, its
 * next instants as the daemon plans them, and DST notes on an instant.
 */
#ifndef TICKD_CTL_JOB_H
#define TICKD_CTL_JOB_H

#include <stdint.h>

#include "conf.h"
#include "ctl-fmt.h"
#include "ctl-json.h"
#include "store_query.h"

#define CTL_JOB_BLOCKED_SKIPS	3	/* overlap skips in a row: blocked */
#define CTL_DIFF_MAX		8	/* jobs named by ctl_node_diff */

/* DST notes on an instant (ctl_job_dst). */
#define CTL_JOB_DST_GAP		1	/* nominal time absent: shifted */
#define CTL_JOB_DST_FOLD	2	/* local time occurs twice */

/* One job as tickctl shows it.  Borrows def; owns st's strings. */
struct ctl_job_view {
	const char		*id;
	const struct job_def	*def;		/* NULL: the job is invalid */
	const char		*where;		/* invalid: "file:line" */
	const char		*state;		/* idle, running, ... */
	int			 have_store;	/* st was read */
	struct store_query_job	 st;
	int64_t			 next_at;	/* s, -1: none */
	int			 next_dst;	/* CTL_JOB_DST_* of next_at */
};

int		 ctl_job_view(struct store_query *, const struct job_def *,
		     int64_t, struct ctl_job_view *, char **);
void		 ctl_job_view_bad(const char *, const char *,
		     struct ctl_job_view *);
void		 ctl_job_view_clear(struct ctl_job_view *);
int64_t		 ctl_job_base(const struct job_def *,
		     const struct store_query_job *, int64_t);
int		 ctl_job_next(const struct job_def *, int64_t, int64_t *);
int		 ctl_job_dst(const struct job_def *, int64_t);
const char	*ctl_job_dst_name(int);
void		 ctl_job_policy(const struct job_def *, enum tz_gap *,
		     enum tz_fold *);
void		 ctl_job_json_list(struct ctl_json *,
		     const struct ctl_job_view *);
void		 ctl_job_json_run(struct ctl_json *, const char *,
		     const struct store_query_run *);
void		 ctl_job_json_shards(struct ctl_json *, const char *,
		     const struct store_query_shards *);
void		 ctl_job_run_table(struct ctl_table *);
void		 ctl_job_run_row(struct ctl_table *,
		     const struct store_query_run *, const struct tz *,
		     int64_t);

int		 ctl_node_same(const struct conf *,
		     const struct store_query_node *);
int64_t		 ctl_node_diff(struct store_query *, const struct conf *,
		     const char *, char *, size_t, char **);
int		 ctl_node_skewed(const struct conf *,
		     const struct store_query_node *);

#endif /* TICKD_CTL_JOB_H */

/*
 * store_query.h -- read-only questions to the store, for tickctl.
 *
 * A struct store_query is its own read-only SQLite connection to the
 * daemon's database (WAL lets it read while tickd writes); no SQLite type
 * appears here.  Results are plain data the caller owns and frees with
 * the matching *_free function.  Times follow the store: scheduled
 * instants in Unix seconds, moments in Unix milliseconds, -1 for none.
 */
#ifndef TICKD_STORE_QUERY_H
#define TICKD_STORE_QUERY_H

#include <stddef.h>
#include <stdint.h>

/* The most statuses one history filter takes. */
#define STORE_QUERY_STATUS_MAX	16

/*
 * What the shards of a batch instance are doing (schema 8): failed
 * counts failed, dead, abandoned and terminated; waiting counts pending,
 * queued, retrying and interrupted.
 */
struct store_query_shards {
	int64_t	 total;
	int64_t	 succeeded;
	int64_t	 failed;
	int64_t	 running;
	int64_t	 waiting;
};

/*
 * One history entry: a run instance, or a decision about a range of
 * instants that did not run (is_decision; run_id NULL, status is the
 * decision, scheduled_at -1, first_at/last_at/count the range).
 */
struct store_query_run {
	int64_t	 rowid;		/* runs.id, or decisions.id */
	int	 is_decision;
	char	*run_id;
	char	*job;
	char	*origin;	/* schedule, manual, reboot */
	char	*trigger;	/* of the latest attempt */
	char	*status;
	char	*reason;
	char	*detail;
	int64_t	 scheduled_at;	/* s */
	int	 attempts;
	int64_t	 created_ms;	/* or decided_at */
	int64_t	 started_ms;	/* of the first attempt */
	int64_t	 finished_ms;
	int64_t	 lateness_ms;	/* started - scheduled (first attempt) */
	int64_t	 duration_ms;	/* of the latest attempt */
	int	 exit_status;	/* -1: none */
	int	 signal;	/* -1: none */
	int64_t	 retry_at;	/* ms, status retrying */
	int64_t	 pid;		/* of the latest attempt, -1 */
	int64_t	 attempt_started_ms; /* of the latest attempt */
	char	*error;		/* of the latest attempt */
	int64_t	 first_at;	/* decisions: the range, in s */
	int64_t	 last_at;
	int64_t	 count;		/* decisions: instants in the range */
	int	 batch;		/* a batch instance (runs.shards set) */
	int64_t	 parent;	/* a shard: its instance's runs.id, else -1 */
	int	 shard;		/* a shard: its index, else -1 */
	char	*parent_run_id;	/* a shard: its instance's run id */
	char	*owner;		/* who runs it (runs.owner), NULL */
	struct store_query_shards shards; /* batch: store_query_shard_counts */
};

/* One shard of a batch instance, for show. */
struct store_query_shard {
	int	 index;
	char	*run_id;
	char	*param;		/* its parameter (runs.shards) */
	char	*status;
	char	*reason;
	int	 attempts;
	int64_t	 pid;		/* of its latest attempt, -1 */
	char	*owner;		/* the node running it, NULL */
	int	 exit_status;	/* -1: none */
	int	 signal;	/* -1: none */
	char	*checkpoint;	/* bytes as saved, NUL added; NULL: none */
	size_t	 checkpoint_len;
};

/* One attempt of an instance. */
struct store_query_attempt {
	int	 attempt;
	char	*trigger;
	int64_t	 pid;
	int64_t	 started_ms;
	int64_t	 finished_ms;
	int64_t	 lateness_ms;
	int64_t	 duration_ms;
	int	 exit_status;
	int	 signal;
	char	*outcome;
	char	*error;
	char	*output_tail;	/* NULL: none kept (or no such column) */
	size_t	 output_len;	/* bytes of output_tail */
	int64_t	 cpu_user_us;	/* what it used (schema 6), -1 unknown */
	int64_t	 cpu_system_us;
	int64_t	 mem_peak;	/* bytes */
	char	*usage_source;	/* "cgroup", "rusage", NULL */
	char	*cgroup;	/* its cgroup, NULL: none */
	char	*invocation;	/* TICKD_INVOCATION_ID, NULL */
};

/* Which history entries to return. */
struct store_query_filter {
	const char	*job;		/* NULL: every job */
	int64_t		 since;		/* s: scheduled at or after; -1 */
	const char	*status[STORE_QUERY_STATUS_MAX]; /* any of; none: all */
	size_t		 nstatus;
	int64_t		 limit;		/* most entries; -1: all */
	int		 decisions;	/* include decision ranges */
};

/* What the store knows about one job right now. */
struct store_query_job {
	int	 known;			/* the daemon has planned it */
	char	 sched_hash[17];	/* hex, as stored */
	int64_t	 planned;		/* s, -1 */
	int	 paused;
	int64_t	 nrunning;		/* instances running */
	int64_t	 nwaiting;		/* queued, retrying, interrupted */
	int64_t	 skips;			/* consecutive overlap skips */
	int64_t	 skip_since;		/* s: scheduled_at of the first */
	char	*last_status;		/* newest ended instance, or NULL */
	char	*last_reason;
	char	*last_run_id;
	int64_t	 last_ms;		/* when it ended */
	char	*ran_status;		/* newest ended instance that ran */
	char	*ran_reason;		/* (had an attempt), or NULL */
	char	*ran_run_id;
	int64_t	 ran_ms;
	int64_t	 last_success_ms;	/* -1: never */
	int64_t	 last_end_ms;		/* any instance, -1 */
	int64_t	 first_ms;		/* oldest instance's created_at */
	int64_t	 nfailed;		/* failed or dead since the last
					   success (or ever) */
	int64_t	 overdue_alerted;	/* ms, -1 */
	int64_t	 watch_since;		/* ms: the dead man's switch counts
					   from here (schema 3), -1 */
};

/* Figures for one job over a window; lateness/duration sorted, in ms. */
struct store_query_stats {
	char	*job;
	int64_t	 instances;		/* rows in the window, any status */
	int64_t	 runs;			/* instances with an attempt */
	int64_t	 succeeded;
	int64_t	 failed;		/* failed or dead */
	int64_t	 skipped;		/* skipped rows + decision counts */
	int64_t	*lateness;		/* per instance that started */
	size_t	 nlateness;
	int64_t	*duration;		/* per instance's latest attempt */
	size_t	 nduration;
	int64_t	*cpu_us;		/* its CPU time, user + system */
	size_t	 ncpu;
	int64_t	*mem_peak;		/* its peak memory, bytes */
	size_t	 nmem;
	int64_t	 last_success_ms;	/* -1: none in the store */
};

/* What store_query_counts counts. */
#define STORE_QUERY_BY_STATUS	0	/* instances per status */
#define STORE_QUERY_SKIPPED	1	/* skipped instants per reason */
#define STORE_QUERY_FAILED	2	/* failed or dead instances per reason */
#define STORE_QUERY_SHARDS	3	/* shards of batches per status */

/* A count of instances of one job with one status (or skip reason). */
struct store_query_count {
	char	*job;
	char	*key;
	int64_t	 n;
};

/* A node sharing a server's database (its nodes table). */
struct store_query_node {
	char	*node;
	int64_t	 heartbeat_ms;		/* the server's clock */
	int64_t	 age_ms;		/* since it, by the server's clock */
	int64_t	 offset_ms;		/* its clock minus the server's */
	int64_t	 running;
	char	*defs_hash;
};

struct store_query;

struct store_query	*store_query_open(const char *, char **);
void			 store_query_close(struct store_query *);
void			 store_query_scope(struct store_query *, const char *);
int			 store_query_has_output(const struct store_query *);
int			 store_query_version(const struct store_query *);
struct conf;
int			 store_query_controllers(const struct conf *, char **,
			     void *);
int			 store_query_meta(struct store_query *, const char *,
			     char **, char **);
int			 store_query_history(struct store_query *,
			     const struct store_query_filter *,
			     struct store_query_run **, size_t *, char **);
void			 store_query_runs_free(struct store_query_run *,
			     size_t);
int			 store_query_run(struct store_query *, const char *,
			     struct store_query_run **,
			     struct store_query_attempt **, size_t *, char **);
void			 store_query_attempts_free(
			     struct store_query_attempt *, size_t);
int			 store_query_active(struct store_query *,
			     const char *, struct store_query_run **,
			     size_t *, char **);
int			 store_query_has_batch(const struct store_query *);
int			 store_query_shard_counts(struct store_query *,
			     struct store_query_run *, size_t, char **);
int			 store_query_shards(struct store_query *, int64_t,
			     struct store_query_shard **, size_t *, char **);
void			 store_query_shards_free(struct store_query_shard *,
			     size_t);
void			 store_query_shards_add(struct store_query_shards *,
			     const char *, int64_t);
int			 store_query_job(struct store_query *, const char *,
			     struct store_query_job *, char **);
void			 store_query_job_clear(struct store_query_job *);
int			 store_query_stats(struct store_query *, const char *,
			     int64_t, struct store_query_stats **, size_t *,
			     char **);
void			 store_query_stats_free(struct store_query_stats *,
			     size_t);
int			 store_query_counts(struct store_query *, int,
			     struct store_query_count **, size_t *, char **);
void			 store_query_counts_free(struct store_query_count *,
			     size_t);
int			 store_query_nodes(struct store_query *,
			     struct store_query_node **, size_t *, char **);
int			 store_query_node_jobs(struct store_query *,
			     const char *, void (*)(const char *, const char *,
			     void *), void *, char **);
void			 store_query_nodes_free(struct store_query_node *,
			     size_t);
int64_t			 store_query_percentile(const int64_t *, size_t, int);

#endif /* TICKD_STORE_QUERY_H */

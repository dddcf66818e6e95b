/*
 * store.h -- the durable record: run instances, attempts, decisions.
 *
 * struct store is opaque; no SQLite type appears here.  Every function
 * returns 0 (or a documented positive value) on success and -1 on
 * failure, with the error text available from store_error().  A failure
 * with store_busy() true means another process held the database: the
 * caller retries later and nothing was changed.
 */
#ifndef TICKD_STORE_H
#define TICKD_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STORE_SCHEMA_VERSION	8
#define STORE_RUN_ID_MAX	128
#define STORE_COPY_TABLES	4	/* jobs, runs, attempts, decisions */
#define STORE_TOKEN_MAX		40	/* an invocation id, a boot id */

/* Per-job state the scheduler keeps across restarts. */
struct store_job {
	uint64_t	sched_hash;	/* the schedule it was planned with */
	int64_t		planned;	/* last instance planned, -1: none */
	int		paused;
	char		boot_id[40];	/* boot of the last @reboot run */
	int64_t		overdue_alerted; /* ms, -1: no alert pending */
	int64_t		watch_since;	/* ms: the dead man's switch, -1 */
};

/* A run instance to claim. */
struct store_claim {
	const char	*job;
	int64_t		 scheduled_at;	/* Unix seconds */
	const char	*origin;	/* "schedule", "manual", "reboot" */
	const char	*trigger;	/* what starts this attempt */
	const char	*owner;
	int64_t		 now_ms;
	int64_t		 lease_until;	/* Unix seconds */
	const char	*reason;	/* why it is queued */
	const char	*detail;	/* for people, or NULL */
	const char	*invocation;	/* the new attempt's id, or NULL */
	const char	*boot_id;	/* the boot it is claimed in */
};

/* What a successful claim gives. */
struct store_claimed {
	int64_t	rowid;
	int	attempt;
	char	run_id[STORE_RUN_ID_MAX];
	char	invocation[STORE_TOKEN_MAX];	/* the claim's, or "" */
};

/* The end of an attempt. */
struct store_end {
	int64_t		 rowid;
	int		 attempt;
	const char	*status;	/* run status: succeeded, failed, ... */
	const char	*reason;	/* NULL or: exit, signal, spawn, ... */
	const char	*outcome;	/* attempt outcome */
	int64_t		 started_ms;	/* -1: never started */
	int64_t		 finished_ms;
	int64_t		 lateness_ms;
	int64_t		 duration_ms;	/* monotonic: a clock step changes
					   finished_ms - started_ms, not this */
	int		 exit_status;	/* -1: none */
	int		 signal;	/* -1: none */
	const char	*error;		/* spawn failure text, or NULL */
	int64_t		 retry_at;	/* ms, with status "retrying" */
	const char	*detail;	/* for people, or NULL */
	const void	*tail;		/* the output's end, or NULL */
	size_t		 tail_len;
	const char	*usage_source;	/* "cgroup", "rusage", NULL: none */
	int64_t		 cpu_user_us;	/* -1: unknown */
	int64_t		 cpu_system_us;
	int64_t		 mem_peak;	/* bytes */
};

/* An instance found by its run id (replay). */
struct store_requeued {
	int64_t	rowid;
	char	job[STORE_RUN_ID_MAX];
	char	origin[16];
	int64_t	scheduled_at;
	int	batch;		/* a batch: its shards were requeued */
};

/* The shards of a claimed instance, created (store_batch_begin). */
struct store_batch {
	int64_t		 rowid;		/* the instance's row, */
	int		 attempt;	/* its claim's attempt (the fence) */
	const char	*job;
	int64_t		 scheduled_at;
	const char	*origin;	/* the instance's */
	const char	*run_id;
	const char	*trigger;
	const char	*list;		/* parameters, one per line */
	int		 nshards;	/* lines of list */
	int64_t		 now_ms;
};

/* A batch's end, once its last shard's was (store_batch_settle). */
struct store_settled {
	char	 status[16];	/* succeeded, failed, dead */
	char	 reason[16];	/* shards, batch_timeout; "" */
	int	 total;
	int	 succeeded;
	char	*failed;	/* the others' indexes "3 7", allocated */
	char	 detail[256];
	char	 job[STORE_RUN_ID_MAX];
	char	 run_id[STORE_RUN_ID_MAX];
	int64_t	 scheduled_at;
	int	 attempt;
};

/* The last failure of an instance that waits for its retry. */
struct store_failure {
	int64_t	rowid;
	int	attempts;
	char	reason[16];	/* exit, signal, timeout, spawn */
	int	exit_status;	/* -1: none */
	int	signal;		/* -1: none */
};

/* An instance found in the store at startup. */
struct store_found {
	int64_t		 rowid;
	const char	*run_id;
	const char	*job;
	int64_t		 scheduled_at;
	const char	*origin;
	const char	*trigger;
	const char	*status;
	const char	*reason;
	int		 attempt;	/* latest attempt, 0: none */
	int64_t		 pid;		/* of the latest attempt, -1 */
	int64_t		 pid_start;
	int64_t		 started_ms;
	int64_t		 retry_at;
	const char	*invocation;	/* of the latest attempt, or NULL */
	const char	*boot_id;
	const char	*cgroup;
	const char	*owner;		/* "NODE:PID" of its lease, or NULL */
	int64_t		 parent;	/* a shard's instance, -1: none */
	int		 shard;		/* its index, -1 */
	const char	*shards;	/* an instance's list, a shard's
					   parameter, or NULL */
	int64_t		 run_started_ms; /* the instance's first start */
};

typedef void (*store_found_cb)(const struct store_found *, void *);

/* A decision about instances that did not (or will not) run. */
struct store_decision {
	const char	*job;
	const char	*decision;	/* missed, skipped, ... */
	const char	*reason;
	int64_t		 first_at;	/* Unix seconds, range of instants */
	int64_t		 last_at;
	int64_t		 count;
	int64_t		 now_ms;
	int64_t		 run_rowid;	/* related run, or -1 */
};

/* A node of a server's database (the nodes table). */
struct store_node {
	const char	*node;
	const char	*owner;		/* "NODE:PID" */
	int64_t		 heartbeat_ms;	/* the server's clock */
	int64_t		 offset_ms;	/* its clock minus the server's */
	int64_t		 running;
	const char	*defs_hash;
};

typedef void (*store_node_cb)(const struct store_node *, void *);

/* A job of this node and its definition's hash (store_node_jobs). */
struct store_node_job {
	const char	*job;
	const char	*hash;
};

/* A job whose definition differs between two nodes (store_node_diff). */
typedef void (*store_diff_cb)(const char *, int, int, void *);

struct store;

int		 store_is_server(const char *);
struct store	*store_open(const char *, int, char **);
void		 store_close(struct store *);
const char	*store_error(const struct store *);
int		 store_busy(const struct store *);
void		 store_set_wait(struct store *,
		     int (*)(void *, int, short, int64_t), void *);
int		 store_begin(struct store *);
int		 store_commit(struct store *);
void		 store_rollback(struct store *);
int		 store_part_begin(struct store *);
int		 store_part_end(struct store *, int);
int		 store_checkpoint(struct store *, int);
int		 store_job_get(struct store *, const char *,
		     struct store_job *);
int		 store_job_put(struct store *, const char *,
		     const struct store_job *, int64_t);
int		 store_run_claim(struct store *, const struct store_claim *,
		     struct store_claimed *);
int		 store_attempt_started(struct store *, int64_t, int, pid_t,
		     int64_t, int64_t, int64_t, const char *);
int		 store_run_claim_id(struct store *, int64_t,
		     const struct store_claim *, struct store_claimed *);
int		 store_run_skip(struct store *, const struct store_claim *);
int		 store_runs_found(struct store *, const char *,
		     store_found_cb, void *);
int64_t		 store_job_last_success(struct store *, const char *);
int		 store_run_requeue(struct store *, const char *,
		     struct store_requeued *, char *, size_t);
int		 store_prune_job(struct store *, const char *, int64_t, int);
int		 store_prune_age(struct store *, int64_t, int);
int		 store_run_last(struct store *, const char *, const char *,
		    int64_t *);
int		 store_attempt_end(struct store *, const struct store_end *);
int		 store_decision_add(struct store *,
		     const struct store_decision *);
int		 store_lease_renew(struct store *, const char *, int64_t);
int		 store_lease_take(struct store *, const char *, int64_t);
int		 store_meta_get(struct store *, const char *, char *, size_t);
int		 store_meta_set(struct store *, const char *, const char *);
void		 store_meta_scope(struct store *, const char *);
int		 store_version(struct store *);
struct db	*store_db(struct store *);
int		 store_copy(struct store *, struct store *, const char *, int,
		     int64_t[STORE_COPY_TABLES], char **);
void		 store_run_id(const char *, int64_t, const char *, char *,
		     size_t);
const char	*store_run_origin(const char *);
int		 store_run_queue(struct store *, const struct store_claim *);
int64_t		 store_run_unqueue(struct store *, const struct store_claim *,
		     const char *, const char *);
int		 store_job_ids(struct store *, void (*)(const char *, void *),
		     void *);
int64_t		 store_job_last_end(struct store *, const char *);
int		 store_run_failure(struct store *, const struct store_claim *,
		     struct store_failure *);
int		 store_run_note(struct store *, const struct store_claim *,
		     const char *);
int		 store_job_lock(struct store *, const char *, const char *,
		     struct store_job *, int64_t *);
int		 store_runs_expired(struct store *, const char *,
		     store_found_cb, void *);
int		 store_run_expire(struct store *, const struct store_found *,
		     const char *, const char *, const char *, const char *,
		     int64_t);
int		 store_runs_owned(struct store *, const char *,
		     store_found_cb, void *);
int		 store_server_now(struct store *, int64_t *);
int		 store_node_put(struct store *, const char *, const char *,
		     int64_t, int64_t, const char *);
int		 store_nodes(struct store *, store_node_cb, void *);
int		 store_node_gone(struct store *, const char *, const char *);
int		 store_jobs_paused(struct store *, void (*)(const char *,
		     void *), void *);
int64_t		 store_run_stops_ask(struct store *, const char *,
		     const char *, const char *, int64_t);
int		 store_run_stops(struct store *, const char *,
		     void (*)(int64_t, const char *, void *), void *);
int		 store_node_jobs(struct store *, const char *,
		     const struct store_node_job *, size_t);
int		 store_node_diff(struct store *, const char *, const char *,
		     int64_t, store_diff_cb, void *);
int		 store_batch_begin(struct store *, const struct store_batch *,
		     int64_t **);
int		 store_batch_settle(struct store *, int64_t, int64_t,
		     struct store_settled *);
int		 store_batch_abandon(struct store *, int64_t, const char *,
		     const char *, int64_t);
int		 store_batches(struct store *, int64_t, store_found_cb, void *);
int		 store_shards_waiting(struct store *, int64_t, store_found_cb,
		     void *);
int		 store_shards_running(struct store *, int64_t);
int		 store_run_status(struct store *, int64_t, char *, size_t);
int		 store_checkpoint_get(struct store *, int64_t, void **,
		     size_t *);
int		 store_checkpoint_put(struct store *, int64_t, int,
		     const void *, size_t);


#endif /* TICKD_STORE_H */

/*
 * server-int.h -- what the files of the daemon's loop share: the server,
 * its jobs, the pending FIFO, the store write queue, dispatch passes.
 *
 * server.c holds the loop's plumbing (heap, write queue, configuration,
 * watchers, startup); server-sched.c decides what runs (planning,
 * dispatch, the pending FIFO); server-run.c follows runs from fork to
 * their recorded end (retries, hooks, the dead man's switch, recovery);
 * server-ctl.c answers tickctl.  Private to those files.
 */
#ifndef TICKD_SERVER_INT_H
#define TICKD_SERVER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "conf.h"
#include "control.h"
#include "policy.h"
#include "runner.h"
#include "store.h"

struct envp;
struct pollfd;
struct batch;
struct httpd;

#define SERVER_KILL_GRACE	10.0	/* seconds from TERM to KILL at stop */
#define SERVER_RETRY		0.25	/* seconds before retrying the store */
#define SERVER_JUMP_MS		2000	/* clock offset change = a step */
#define SERVER_BLOCKED_SKIPS	3	/* consecutive skips: "blocked" */
#define SERVER_FAST_FAIL_MS	1000	/* a failure this fast is "instant" */
#define SERVER_FAST_FAILS	5	/* instant failures before throttling */
#define SERVER_THROTTLE_MIN	10	/* seconds, doubled per episode */
#define SERVER_THROTTLE_MAX	600
#define SERVER_PRUNE_EVERY	20	/* ends of a job between prunes, */
					/* at most history_keep / 2 */
#define SERVER_PRUNE_CHUNK	500	/* rows deleted at most per pass */
#define SERVER_DISPATCH_FIRST	4	/* due jobs in a burst's first claim */
#define SERVER_DISPATCH_BATCH	32	/* at most, per dispatch transaction */
#define SERVER_PASS_BUDGET	100	/* ms of store work a pass adds jobs */
#define SERVER_PRI_STORE	(-1)	/* libev priority of store passes */
#define SERVER_BATCH_SCAN	2.0	/* s between looks for shards */

/* A node whose job definitions differ from this one's, as reported. */
struct server_peer {
	char	*node;
	char	 hash[CONF_HASH_HEX];
};

/* The store passes that take turns in a loop iteration (server_turn). */
#define SERVER_TURN_DISPATCH	0x1
#define SERVER_TURN_PUMP	0x2
#define SERVER_TURN_FLUSH	0x4
#define SERVER_AHEAD_MS		50	/* claims committed before the instant */
#define SERVER_CKPT_PAGES	1000	/* WAL pages checkpointed when idle */
#define SERVER_CKPT_IDLE_MS	250	/* idle: nothing due for this long */
#define SERVER_NONE		SIZE_MAX
#define SERVER_UNARMED		INT64_MIN	/* armed_ms: to be armed */
#define SERVER_TEST_CLAIM	1	/* TICKD_TEST_STOP=claim */
#define SERVER_TEST_REAP	2	/* TICKD_TEST_STOP=reap */
#define SERVER_HELD	"the job is paused: it waits for tickctl resume"

/* A job as the loop knows it. */
struct sjob {
	char			*id;		/* shared with its def (xstrref) */
	struct job_def		*def;		/* NULL once removed */
	struct store_job	 st;		/* mirror of the store row */
	int64_t			 next_at;	/* next instance, -1: none */
	int64_t			 due_ms;	/* next_at + random delay */
	size_t			 hidx;		/* heap slot, or SERVER_NONE */
	struct run		*runs;		/* live processes (shards too) */
	int			 nruns;		/* live instances: processes
						   but shards, and batches */
	int			 npending;	/* entries in the pending FIFO */
	int			 nheld;		/* claimed ahead, held (server_hold) */
	int			 nelse;		/* running on other nodes, as the
						   last lock of its row read */
	int			 paused_row;	/* its row says paused (beat) */
	int64_t			 last_end;	/* Unix s, "after" schedules */
	int64_t			 skips;		/* consecutive overlap skips */
	int64_t			 skip_since;	/* Unix s of the first of them */
	int			 fast_fails;	/* consecutive instant failures */
	int			 throttles;	/* throttle episodes in a row */
	int64_t			 throttle_until; /* monotonic ms */
	int64_t			 last_success;	/* Unix ms, -1: never */
	int			 loaded;	/* last_success read */
	int			 ends;		/* since its history was pruned */
	int			 pruned;	/* once since the start */
	ev_timer		*overdue_w;	/* made when first armed */
	struct server		*srv;
};

/* A write for the store, done in the next batch transaction. */
struct wq_item {
	enum { WQ_STARTED, WQ_END, WQ_DECISION, WQ_JOB, WQ_PRUNE,
	    WQ_ABANDON, WQ_NOTE, WQ_BATCH, WQ_SETTLE, WQ_CHECKPOINT,
	    WQ_BATCH_STOP } kind;
	int64_t						 rowid;
	int						 attempt;
	pid_t						 pid;
	int64_t						 pid_start;
	int64_t						 started_ms;
	int64_t						 lateness_ms;
	char						*cgroup; /* WQ_STARTED */
	struct store_end				 end;
	struct store_decision				 dec;
	struct store_job				 job_st;
	char						*text;
	char						*detail;
	char						*tail;
	char						*job;
	int64_t						 at;	 /* ABANDON, NOTE */
	const char					*origin; /* ABANDON, NOTE */
	char						 obuf[24]; /* a shard's */
	struct store_batch				 batch;	 /* WQ_BATCH */
	int64_t						*ids;	 /* its shards' rows */
	int						 done;	 /* as written: */
	struct store_settled				 settled; /* SETTLE */
	struct wq_item					*next;
};

/*
 * An instance waiting to start, in one FIFO for all jobs.  It is in the
 * store too: a "queued", "retrying" or "interrupted" row (rowid), or, for
 * a new instance claimed in the same transaction, not yet (rowid -1).
 */
struct pending {
	struct sjob	*j;
	int64_t		 at;		/* scheduled instant */
	const char	*origin;	/* schedule, reboot */
	const char	*trigger;	/* schedule, catch_up, retry, recover */
	int64_t		 rowid;
	int64_t		 not_before;	/* wall ms (retries), 0: now */
	int64_t		 due_ms;	/* lateness counts from: the instant,
					   or a manual run's request */
	int		 claim;		/* dispatch: claim now, by identity */
	int		 force;		/* only max_running holds it back */
	int		 held;		/* noted: its job is paused */
	const char	*why;		/* dispatch: why it waits */
	struct store_claimed claimed;
	int		 shard;		/* a batch's shard: its index, */
	int64_t		 parent;	/* its instance's row; or -1 */
	char		 obuf[24];	/* its origin, "schedule#3" */
	void		*ckpt;		/* its checkpoint, from the store */
	size_t		 ckpt_len;
	struct pending	*next;
};

/*
 * A batch instance this daemon follows (server-batch.c): one it began,
 * or found running in the store (a restart, a replay, another node's).
 * It counts as one running instance of its job (nruns) until its end is
 * settled; its shards are pending entries and runs like any other, with
 * their index and its row.
 */
struct batch {
	struct sjob	*j;
	int64_t		 rowid;		/* the instance's */
	int64_t		 at;
	const char	*origin;	/* the instance's (static) */
	char		*run_id;
	char		**params;	/* policy_shards_split */
	int		 nshards;
	int		 nrun;		/* shard processes here */
	int		 npend;		/* its entries in the FIFO */
	int		 ready;		/* its shards' rows are committed */
	int		 seen;		/* in the store's last look */
	int		 dir_made;	/* its checkpoints' directory */
	const char	*stop_reason;	/* stopped: batch_timeout, ... */
	ev_timer	 timeout_w;
	struct batch	*next;
};

struct server {
	struct ev_loop		 *loop;
	const char		 *config_path;
	struct conf		 *conf;
	struct store		 *store;
	char			 *state;	/* conf->state, links resolved */
	int			  lock_fd[2];	/* statelock_take's */
	int			  clock_fd;
	int			  wake_fd;	/* monotonic timerfd */
	char			  owner[128];	/* "NODE:PID": runs' owner */
	char			  node[CONF_NODE_MAX]; /* [daemon] node, or the host */
	int			  cluster;	/* a server's database, shared */
	int			  skewed;	/* clock off the server's: no claims */
	int			  fenced;	/* leases not renewed: no claims */
	int64_t			  lease_ok;	/* mono ms of the last renewal */
	int64_t			  clock_offset_ms; /* ours minus the server's */
	struct server_peer	 *drift;	/* nodes reported as differing */
	size_t			  ndrift;
	char			  defs_hash[17]; /* conf_defs_hash, at each load */
	int			  defs_synced;	/* node_jobs holds this load's */
	char			  machine_id[80];
	char			  boot_id[40];
	int64_t			  boot_time;
	int			  starting;
	int			  stopping;
	int			  verbose;	/* -v: lowest level logged */
	int			  store_trouble;
	int64_t			  trouble_since;
	int64_t			  trouble_wall;	/* Unix ms, the same moment */
	int64_t			  flush_after;	/* mono ms */
	int64_t			  armed_ms;	/* wake-ups armed for, -1 none */
	int64_t			  ahead_ms;	/* SERVER_AHEAD_MS, or a test's */
	int64_t			  no_ahead;	/* an instant not claimed ahead */
	struct pending		 *held;		/* claimed ahead, wall clock */
	int64_t			  held_at;	/* set back: fork at this ms */
	size_t			  nheld;
	size_t			  fd_budget;	/* runs the descriptors hold */
	int64_t			  clock_off;	/* wall - boot */
	int64_t			  susp_off;	/* wall - mono */
	struct sjob		**jobs;		/* sorted by id */
	size_t			  njobs;
	struct sjob		**heap;
	size_t			  nheap;
	struct wq_item		 *wq;
	struct wq_item		**wq_tail;
	struct wq_item		 *wq_last;	/* last one server_wq_write wrote */
	struct pending		 *pend;		/* FIFO of waiting instances */
	struct pending		**pend_tail;
	size_t			  npend;
	size_t			  nrunning;	/* job processes (not hooks) */
	char			**reported;	/* ignored names logged */
	size_t			  nreported;
	struct sjob		**gone;		/* removed, processes left */
	size_t			  ngone;
	struct run		 *hooks;	/* on_failure commands running */
	struct batch		 *batches;	/* followed here */
	struct wq_item		 *wq_after;	/* written: what follows (batch) */
	char			 *track_fatal;	/* an unusable [daemon] cgroup */
	ev_periodic		  wake_w;
	ev_io			  wake_fd_w;	/* the same moment, wake_fd */
	ev_timer		  retry_w;	/* store trouble */
	ev_timer		  pend_w;	/* earliest not_before, throttle */
	ev_timer		  lease_w;
	ev_timer		  cluster_w;	/* failover scan, with nodes */
	ev_timer		  batch_w;	/* batches' shards, with nodes */
	ev_timer		  fence_w;	/* half a lease unrenewed */
	ev_timer		  watchdog_w;
	ev_timer		  kill_w;
	ev_io			  clock_w;
	ev_signal		  term_w;
	ev_signal		  int_w;
	ev_signal		  hup_w;
	ev_signal		  chld_w;
	ev_prepare		  flush_w;
	ev_idle			  more_w;	/* work put off: come back at once */
	ev_check		  woke_w;	/* first after each poll: woke_ms */
	int64_t			  woke_ms;	/* mono ms this iteration began */
	int			  owed;		/* SERVER_TURN_* put off once */
	struct control		 *control;	/* tickctl's socket, or NULL */
	struct httpd		 *metrics;	/* GET /metrics, or NULL */
	char			 *metrics_at;	/* its metrics_listen, or the
						   one that failed */
	int64_t			  pruned_at;	/* mono ms of the last age prune */
	int			  prune_again;	/* that pass hit its chunk */
	int			  pumping;	/* inside server_pump */
	struct pollfd		 *wait_fds;	/* server_wait: the store's, */
	struct run		**wait_runs;	/* then the runs' output */
	size_t			  nwait;
	size_t			  wait_cap;
	size_t			  burst;	/* last claim batch, if more due */
	int			  pump_again;	/* a start failed meanwhile */
};

/* An instance skipped by a dispatch pass. */
struct dskip {
	struct sjob	*j;
	int64_t		 at;
	int		 kind;		/* SERVER_SKIP_* */
};
#define SERVER_SKIP_OVERLAP	0	/* the overlap policy said no */
#define SERVER_SKIP_THROTTLED	1	/* the job fails instantly */
#define SERVER_SKIP_REPLACED	2	/* a waiting one, replaced by a newer */
#define SERVER_SKIP_PAUSED	3	/* a manual run of a paused job */

/* A retry a pass settled dead: the next instance fell due first. */
struct ddead {
	struct pending		*p;	/* its entry, which the pass drops */
	struct store_failure	 f;	/* its last failure */
	char			 detail[256];
};

/* A range of instances that do not run, logged once it is committed. */
struct drange {
	struct sjob	*j;
	const char	*reason;	/* as server_log_range takes it */
	int64_t		 first;
	int64_t		 last;
	int64_t		 count;
	int		 capped;
};

/*
 * What a dispatch pass (or a manual run) decided, applied to the daemon's
 * memory once its transaction commits (server_dispatch_apply), and only
 * then: a pass whose transaction fails is forgotten whole
 * (server_dispatch_free), the FIFO and the runs as they were.
 */
struct dispatch {
	struct pending	 *add;		/* new pending entries, in order */
	struct pending	**add_tail;
	struct run	**kill;		/* runs to stop (replace) */
	size_t		  nkill;
	struct sjob	**asked;	/* jobs whose runs on other nodes */
	size_t		  nasked;	/* were asked to stop (replace) */
	struct sjob	**replaced;	/* jobs whose batches stop (replace) */
	size_t		  nreplaced;
	struct pending	**drop;		/* FIFO entries the pass settled: */
	size_t		  ndrop;	/* replaced, or dead (in dead too) */
	struct ddead	 *dead;		/* retries settled dead */
	size_t		  ndead;
	struct dskip	 *skipped;	/* each skip, for the journal */
	size_t		  nskipped;
	struct drange	 *ranges;	/* each decision, for the journal */
	size_t		  nranges;
	size_t		  room;		/* global slots left to claim now */
	int		  force;	/* manual --force: no overlap rule */
	char		  why[STORE_RUN_ID_MAX + 64]; /* the last skip's */
	int64_t		  now;
	int64_t		  now_ms;
	int64_t		  now_mono;
};

/* What became of a finished attempt. */
struct server_outcome {
	const char	*status;	/* run status */
	const char	*reason;
	const char	*outcome;	/* attempt outcome */
	int		 exit_status;	/* -1: none */
	int		 signal;	/* -1: none */
	int		 failed;	/* a failure of the job */
	char		 why[256];	/* for people */
};

int64_t	server_boot_time(void);
struct batch *	server_batch_find(const struct server *, int64_t);
int	server_batch_begin(struct server *, struct sjob *, struct run *);
void	server_batch_final(struct server *, int64_t, const char *, const struct store_settled *);
void	server_batch_found(const struct store_found *, void *);
int	server_batch_listed(const struct sjob *, const struct run *, struct server_outcome *, char **);
void	server_batch_release(struct batch *);
int	server_batch_load(struct server *, int64_t);
void	server_batch_record(struct server *, struct sjob *, const struct run *, char *, int);
int	server_batch_scan(struct server *);
void	server_batch_settle_later(struct server *, int64_t, const char *);
void	server_batch_stop(struct server *, struct batch *, const char *);
void	server_batch_written(struct server *, struct wq_item *);
void	server_ckpt_path(const struct server *, int64_t, int, char *, size_t);
void	server_ckpt_prepare(struct server *, const struct job_def *, struct run *, const void *, size_t);
void	server_ckpt_save(struct server *, struct run *, int);
void	server_ckpt_save_all(struct server *);
void	server_ckpt_sweep(struct server *);
const char *	server_found_trigger(const struct store_found *);
int	server_is_batch(const struct job_def *);
const char *	server_origin(const char *);
void	server_pend_found(struct server *, struct sjob *, const struct store_found *, const char *, int64_t);
struct pending *	server_pend_shard(struct server *, struct batch *, int, int64_t, const char *, int64_t);
void	server_pend_soon(struct server *);
void	server_pend_gone(struct server *, const struct pending *);
void	server_pend_link(struct server *, struct pending *);
int	server_shard_can_start(const struct server *, const struct pending *, int, int64_t);
void	server_shard_env(const struct server *, const struct run *, struct envp *);
int	server_can_start(const struct sjob *, int, int64_t);
void	server_check_clock(struct server *, int64_t);
void	server_child_cb(struct ev_loop *, ev_signal *, int);
void	server_classify(struct server *, const struct run *, struct server_outcome *);
void	server_clockfd_cb(struct ev_loop *, ev_io *, int);
void	server_control_cb(int, char **, struct control_reply *, void *);
void	server_ctl_pause(struct server *, const char *, int, int, struct control_reply *);
void	server_ctl_replay(struct server *, const char *, struct control_reply *);
void	server_ctl_run(struct server *, const char *, int, struct control_reply *);
void	server_decision_later(struct server *, const char *, const char *, const char *, int64_t, int64_t, int64_t, int64_t);
void	server_dispatch(struct server *);
void	server_count_end(struct server *, struct sjob *);
int64_t	server_prune_margin(const struct server *);
void	server_dispatch_apply(struct server *, struct dispatch *);
void	server_held_drop(struct server *);
void	server_dispatch_count(const struct dispatch *, const struct sjob *, int *, int *);
void	server_dispatch_free(struct dispatch *);
void	server_dispatch_init(struct dispatch *, int);
int	server_dispatch_job(struct server *, struct dispatch *, struct sjob *, int64_t *);
void	server_env(const struct job_def *, const struct run *, struct envp *);
void	server_flush(struct server *);
int	server_wq_write(struct server *, int);
int	server_turn(struct server *, int);
int	server_wait(void *, int, short, int64_t);
int	server_spent(int64_t);
void	server_wq_committed(struct server *, int);
void	server_flush_cb(struct ev_loop *, ev_prepare *, int);
void	server_forget(struct server *);
void	server_gone_check(struct server *, struct sjob *);
void	server_heap_fix(struct server *, size_t);
int	server_heap_less(const struct sjob *, const struct sjob *);
void	server_heap_remove(struct server *, struct sjob *);
void	server_heap_set(struct server *, size_t, struct sjob *);
void	server_heap_update(struct server *, struct sjob *);
size_t	server_heap_due(const struct server *, int64_t, size_t);
size_t	server_room(const struct server *, size_t);
void	server_slots_check(struct server *);
void	server_hook(struct server *, struct sjob *, const char *, const char *, int64_t, int64_t, int, int, int, const char *, const char *, int);
void	server_hook_done(struct server *, struct run *);
void	server_identity(struct server *);
int64_t	server_jitter(int64_t);
struct sjob *	server_job(struct server *, const char *);
void	server_job_save(struct server *, struct sjob *);
void	server_job_sync(struct server *, struct sjob *, int64_t);
void	server_jobs_free(struct sjob **, size_t);
void	server_jobs_sync(struct server *);
void	server_kill_cb(struct ev_loop *, ev_timer *, int);
void	server_lease_cb(struct ev_loop *, ev_timer *, int);
void	server_cluster_cb(struct ev_loop *, ev_timer *, int);
void	server_batch_cb(struct ev_loop *, ev_timer *, int);
int	server_cluster_job(struct server *, struct sjob *, int64_t *);
int	server_cluster_ours(const struct server *, const char *);
int	server_cluster_beat(struct server *);
void	server_cluster_defs(struct server *);
void	server_peers_free(struct server_peer *, size_t);
int	server_cluster_lock(struct server *, struct sjob *, struct store_job *);
void	server_cluster_stops(struct server *);
void	server_cluster_renewed(struct server *);
void	server_cluster_fence_cb(struct ev_loop *, ev_timer *, int);
void	server_log_causes(const struct conf *, const struct conf_causes *);
void	server_log_warnings(const struct conf *);
void	server_metrics_apply(struct server *);
void	server_metrics_stop(struct server *);
void	server_log_ignored(struct server *);
void	server_log_range(struct sjob *, const char *, int64_t, int64_t, int64_t, int);
void	server_meta(struct server *);
void	server_note_skip(struct server *, const struct dskip *);
void	server_overdue_arm(struct server *, struct sjob *);
void	server_overdue_stop(struct server *, struct sjob *);
void	server_overdue_cb(struct ev_loop *, ev_timer *, int);
int	server_overlap(struct server *, struct dispatch *, struct sjob *, int64_t, const char *, const char *);
struct pending *	server_pend_add(struct server *, struct sjob *, int64_t, const char *, const char *, int64_t, int64_t);
void	server_pend_arm(struct server *);
void	server_pend_cb(struct ev_loop *, ev_timer *, int);
void	server_pend_drop(struct server *, struct pending **);
void	server_pend_hold(struct server *, struct pending *);
size_t	server_pend_pause(struct server *, struct sjob *);
size_t	server_pend_startable(struct server *);
void	server_plan(struct server *, struct sjob *, int64_t);
void	server_pump(struct server *);
int	server_read_line(const char *, char *, size_t);
void	server_rearm(struct server *);
void	server_recover_one(const struct store_found *, void *);
void	server_reload(struct server *, struct control_reply *);
void	server_requeue_one(const struct store_found *, void *);
void	server_retry_cb(struct ev_loop *, ev_timer *, int);
int64_t	server_retry_plan(struct server *, struct sjob *, const struct run *, struct server_outcome *, int64_t, char *, size_t);
void	server_run_done(struct run *, void *);
void	server_run_end(struct server *, struct run *, int);
void	server_run_spawned(struct run *, void *);
void	server_run_started(struct run *, void *);
void	server_run_unlink(struct sjob *, struct run *);
void	server_signal_cb(struct ev_loop *, ev_signal *, int);
int	server_skip_row(struct server *, struct dispatch *, struct sjob *, int64_t, const char *, const char *, const char *);
void	server_spawn_failed(struct server *, struct run *, const char *);
void	server_start(struct server *, struct pending *);
void	server_state_dir(const char *);
void	server_status(struct server *);
void	server_stop(struct server *, int);
void	server_stop_runs(struct sjob **, size_t);
void	server_store_ok(struct server *);
void	server_store_trouble(struct server *, const char *);
void	server_test_init(struct server *);
void	server_test_stop(int);
void	server_throttle_check(struct server *, struct sjob *, int, int64_t);
void	server_timeout_arm(struct server *, struct run *, double, double);
void	server_timeout_cb(struct ev_loop *, ev_timer *, int);
void	server_wake_cb(struct ev_loop *, ev_periodic *, int);
void	server_wake_fd_cb(struct ev_loop *, ev_io *, int);
void	server_watchdog_cb(struct ev_loop *, ev_timer *, int);
void	server_watchers(struct server *);
const char *	server_when(int64_t, char *, size_t);
struct wq_item *	server_wq_add(struct server *, int);
void	server_wq_free(struct wq_item *);

#endif /* TICKD_SERVER_INT_H */

/*
 * server.c -- the daemon: event loop, dispatch, policies, reload, shutdown.
 *
 * Data flow: conf (job definitions) -> one struct sjob per job with its
 * next instance -> a min-heap of due times -> one absolute ev_periodic
 * armed at the earliest -> dispatch: the misfire policy (policy_due) and
 * the overlap policy decide each due instance -> one store transaction
 * records every decision and claims what starts now; what must wait
 * (max_running, overlap = queue, catch-up, retries, recovery) is a
 * "queued" or "retrying" row and an entry of one pending FIFO -> fork
 * (runner.c) -> reap -> the attempt's end, a retry or a dead letter, queued
 * and written in one transaction before the loop next sleeps.
 *
 * Wall-clock time decides when (ev_periodic follows the real-time clock;
 * a timerfd with TFD_TIMER_CANCEL_ON_SET reports clock steps at once, and
 * the wall/boot clock offset is compared at every wake-up, which also
 * catches steps libfaketime simulates); the monotonic clock measures how
 * long (timeouts, kill grace, retry delays, throttling).  Instants are
 * identities: the last instance planned for each job is in the store, so
 * a backward step can never make one run twice; instances a forward step,
 * downtime or a busy store made late go to the misfire policy.
 *
 * Invariants: an instance is claimed in a committed transaction before its
 * process is forked; "running" means a live child in a job's run list
 * (never a counter alone); every instance that does not run is a row
 * (skipped, with its reason) or part of a decision range; nothing is
 * dropped when the store is busy or failing: the transaction is rolled
 * back, the due jobs kept, and dispatch retried, the delay showing up as
 * lateness.  At startup every instance a crashed daemon left running is
 * settled before READY: adopted if its process lives, else rerun or
 * abandoned (recover).
 *
 * DIAGNOSTICS: startup problems are fatal (exit 78 for configuration, 1
 * otherwise); after startup nothing one job does can stop the daemon:
 * spawn failures are recorded as failed attempts, bad job definitions on
 * reload keep the previous good one, store failures are retried.
 */
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>
#include <systemd/sd-daemon.h>

#include "clock.h"
#include "conf.h"
#include "control.h"
#include "duration.h"
#include "envp.h"
#include "jobenv.h"
#include "log.h"
#include "policy.h"
#include "rfc3339.h"
#include "runner.h"
#include "schedule.h"
#include "server.h"
#include "store.h"
#include "xmalloc.h"

#define SERVER_KILL_GRACE	10.0	/* seconds from TERM to KILL at stop */
#define SERVER_RETRY		0.25	/* seconds before retrying the store */
#define SERVER_JUMP_MS		2000	/* clock offset change = a step */
#define SERVER_BLOCKED_SKIPS	3	/* consecutive skips: "blocked" */
#define SERVER_FAST_FAIL_MS	1000	/* a failure this fast is "instant" */
#define SERVER_FAST_FAILS	5	/* instant failures before throttling */
#define SERVER_THROTTLE_MIN	10	/* seconds, doubled per episode */
#define SERVER_THROTTLE_MAX	600
#define SERVER_PRUNE_EVERY	20	/* ends of a job between prunes */
#define SERVER_PRUNE_CHUNK	500	/* rows deleted at most per pass */
#define SERVER_NONE		SIZE_MAX

/* A job as the loop knows it. */
struct sjob {
	char			*id;
	struct job_def		*def;		/* NULL once removed */
	struct store_job	 st;		/* mirror of the store row */
	int64_t			 next_at;	/* next instance, -1: none */
	int64_t			 due_ms;	/* next_at + random delay */
	size_t			 hidx;		/* heap slot, or SERVER_NONE */
	struct run		*runs;		/* live processes */
	int			 nruns;
	int			 npending;	/* entries in the pending FIFO */
	int64_t			 last_end;	/* Unix s, "after" schedules */
	int64_t			 skips;		/* consecutive overlap skips */
	int64_t			 skip_since;	/* Unix s of the first of them */
	int			 fast_fails;	/* consecutive instant failures */
	int			 throttles;	/* throttle episodes in a row */
	int64_t			 throttle_until; /* monotonic ms */
	int64_t			 last_success;	/* Unix ms, -1: never */
	int			 loaded;	/* last_success read */
	int			 ends;		/* since its history was pruned */
	ev_timer		 overdue_w;
	struct server		*srv;
};

/* A write for the store, done in the next batch transaction. */
struct wq_item {
	enum { WQ_STARTED, WQ_END, WQ_DECISION, WQ_JOB, WQ_PRUNE } kind;
	int64_t						 rowid;
	int						 attempt;
	pid_t						 pid;
	int64_t						 pid_start;
	int64_t						 started_ms;
	int64_t						 lateness_ms;
	struct store_end				 end;
	struct store_decision				 dec;
	struct store_job				 job_st;
	char						*text;
	char						*detail;
	char						*tail;
	char						*job;
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
	int		 claim;		/* dispatch: claim now, by identity */
	int		 force;		/* only max_running holds it back */
	const char	*why;		/* dispatch: why it waits */
	struct store_claimed claimed;
	struct pending	*next;
};

struct server {
	struct ev_loop		 *loop;
	const char		 *config_path;
	struct conf		 *conf;
	struct store		 *store;
	int			  lock_fd;
	int			  clock_fd;
	char			  owner[128];
	char			  machine_id[80];
	char			  boot_id[40];
	int64_t			  boot_time;
	int			  starting;
	int			  stopping;
	int			  verbose;	/* -v: lowest level logged */
	int			  store_trouble;
	int64_t			  trouble_since;
	int64_t			  flush_after;	/* mono ms */
	int64_t			  clock_off;	/* wall - boot */
	int64_t			  susp_off;	/* wall - mono */
	struct sjob		**jobs;		/* sorted by id */
	size_t			  njobs;
	struct sjob		**heap;
	size_t			  nheap;
	struct wq_item		 *wq;
	struct wq_item		**wq_tail;
	struct pending		 *pend;		/* FIFO of waiting instances */
	struct pending		**pend_tail;
	size_t			  npend;
	size_t			  nrunning;	/* job processes (not hooks) */
	char			**reported;	/* ignored names logged */
	size_t			  nreported;
	char			**forget;	/* jobs to forget */
	size_t			  nforget;
	struct sjob		**gone;		/* removed, processes left */
	size_t			  ngone;
	struct run		 *hooks;	/* on_failure commands running */
	ev_periodic		  wake_w;
	ev_timer		  retry_w;	/* store trouble */
	ev_timer		  pend_w;	/* earliest not_before, throttle */
	ev_timer		  lease_w;
	ev_timer		  watchdog_w;
	ev_timer		  kill_w;
	ev_io			  clock_w;
	ev_signal		  term_w;
	ev_signal		  int_w;
	ev_signal		  hup_w;
	ev_child		  child_w;
	ev_prepare		  flush_w;
	struct control		 *control;	/* tickctl's socket, or NULL */
	int64_t			  pruned_at;	/* mono ms of the last age prune */
	int			  prune_again;	/* that pass hit its chunk */
};

static void	server_dispatch(struct server *);
static void	server_pump(struct server *);
static void	server_hook(struct server *, struct sjob *, const char *,
		    const char *, int64_t, int64_t, int, int, int, const char *);
static void	server_overdue_arm(struct server *, struct sjob *);
static void	server_run_end(struct server *, struct run *, int);

/* --- the heap of due times ------------------------------------------------ */

/* Whether job a is due before job b (ties: by id, for a stable order). */
static int
server_heap_less(const struct sjob *a, const struct sjob *b)
{
	if (a->due_ms != b->due_ms)
		return a->due_ms < b->due_ms;
	return strcmp(a->id, b->id) < 0;
}

static void
server_heap_set(struct server *s, size_t i, struct sjob *j)
{
	s->heap[i] = j;
	j->hidx = i;
}

/* Restore the heap order around slot i. */
static void
server_heap_fix(struct server *s, size_t i)
{
	struct sjob	*j = s->heap[i];
	size_t		 p, c;

	while (i > 0 && server_heap_less(j, s->heap[p = (i - 1) / 2])) {
		server_heap_set(s, i, s->heap[p]);
		i = p;
	}
	for (;;) {
		c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && server_heap_less(s->heap[c + 1],
		    s->heap[c]))
			c++;
		if (!server_heap_less(s->heap[c], j))
			break;
		server_heap_set(s, i, s->heap[c]);
		i = c;
	}
	server_heap_set(s, i, j);
}

/* Take a job out of the heap, if it is in. */
static void
server_heap_remove(struct server *s, struct sjob *j)
{
	size_t i = j->hidx;

	if (i == SERVER_NONE)
		return;
	j->hidx = SERVER_NONE;
	if (--s->nheap > i) {
		server_heap_set(s, i, s->heap[s->nheap]);
		server_heap_fix(s, i);
	}
}

/* Put a job in the heap (or move it) at its due_ms. */
static void
server_heap_update(struct server *s, struct sjob *j)
{
	if (j->hidx == SERVER_NONE) {
		s->heap = xreallocarray(s->heap, s->nheap + 1,
		    sizeof *s->heap);
		server_heap_set(s, s->nheap++, j);
	}
	server_heap_fix(s, j->hidx);
}

/* Arm the wake-up at the earliest due time, or stop it. */
static void
server_rearm(struct server *s)
{
	ev_periodic_stop(s->loop, &s->wake_w);
	if (s->nheap == 0 || s->stopping || ev_is_active(&s->retry_w))
		return;
	ev_periodic_set(&s->wake_w, (double)s->heap[0]->due_ms / 1000.0, 0,
	    NULL);
	ev_periodic_start(s->loop, &s->wake_w);
}

/* --- small helpers --------------------------------------------------------- */

/* Read the first line of a small file into buf; 0 or -1. */
static int
server_read_line(const char *path, char *buf, size_t len)
{
	FILE *f;

	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(buf, (int)len, f) == NULL) {
		(void)fclose(f);
		return -1;
	}
	(void)fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] != '\0' ? 0 : -1;
}

/* The boot time (Unix seconds) from /proc/stat, or now. */
static int64_t
server_boot_time(void)
{
	char		 line[256];
	long long	 v;
	FILE		*f;

	if ((f = fopen("/proc/stat", "re")) != NULL) {
		while (fgets(line, sizeof line, f) != NULL) {
			if (sscanf(line, "btime %lld", &v) == 1) {
				(void)fclose(f);
				return (int64_t)v;
			}
		}
		(void)fclose(f);
	}
	return clock_wall_ms() / 1000;
}

/* The job called id, or NULL. */
static struct sjob *
server_job(struct server *s, const char *id)
{
	size_t	lo = 0, hi = s->njobs, mid;
	int	cmp;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		cmp = strcmp(s->jobs[mid]->id, id);
		if (cmp == 0)
			return s->jobs[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Format an instant for messages, in UTC. */
static const char *
server_when(int64_t t, char *buf, size_t len)
{
	rfc3339_format_utc(t, buf, len);
	return buf;
}

/* --- the store write queue -------------------------------------------------- */

static struct wq_item *
server_wq_add(struct server *s, int kind)
{
	struct wq_item *w = xcalloc(1, sizeof *w);

	w->kind = kind;
	*s->wq_tail = w;
	s->wq_tail = &w->next;
	return w;
}

static void
server_wq_free(struct wq_item *w)
{
	free(w->text);
	free(w->detail);
	free(w->tail);
	free(w->job);
	free(w);
}

/* Note a store failure: log it once per episode, retry later. */
static void
server_store_trouble(struct server *s, const char *what)
{
	struct log_job lj = LOG_JOB_INIT;

	if (!s->store_trouble) {
		s->store_trouble = 1;
		s->trouble_since = clock_mono_ms();
		log_job(store_busy(s->store) ? LOG_WARNING : LOG_ERR,
		    LOG_EV_STORE_BUSY, &lj, "store %s: %s: runs are delayed "
		    "until it is available", what, store_error(s->store));
	}
	if (!ev_is_active(&s->retry_w)) {
		ev_timer_set(&s->retry_w, SERVER_RETRY, 0);
		ev_timer_start(s->loop, &s->retry_w);
	}
}

/* The store works again: say how long it did not. */
static void
server_store_ok(struct server *s)
{
	char d[DURATION_BUFSZ];

	if (!s->store_trouble)
		return;
	s->store_trouble = 0;
	duration_format((clock_mono_ms() - s->trouble_since) / 1000, d,
	    sizeof d);
	log_notice("store available again after %s", d);
}

/*
 * Write every queued item in one transaction.  On failure nothing is
 * lost: the queue stays and is tried again after SERVER_RETRY.
 */
static void
server_flush(struct server *s)
{
	struct wq_item	*w, *next;
	int		 rc = 0, n;

	if (s->wq == NULL || clock_mono_ms() < s->flush_after)
		return;
	if (store_begin(s->store) == -1)
		goto fail;
	for (w = s->wq; w != NULL && rc == 0; w = w->next) {
		switch (w->kind) {
		case WQ_STARTED:
			rc = store_attempt_started(s->store, w->rowid,
			    w->attempt, w->pid, w->pid_start, w->started_ms,
			    w->lateness_ms);
			break;
		case WQ_END:
			rc = store_attempt_end(s->store, &w->end);
			break;
		case WQ_DECISION:
			rc = store_decision_add(s->store, &w->dec);
			break;
		case WQ_JOB:
			rc = store_job_put(s->store, w->job, &w->job_st,
			    clock_wall_ms());
			break;
		case WQ_PRUNE:
			rc = store_prune_job(s->store, w->job,
			    s->conf->history_keep, SERVER_PRUNE_CHUNK) == -1 ?
			    -1 : 0;
			break;
		}
	}
	/* Retention by age: hourly, in bounded chunks. */
	if (rc == 0 && (s->prune_again || clock_mono_ms() - s->pruned_at >
	    3600 * 1000)) {
		n = store_prune_age(s->store, clock_wall_ms() -
		    s->conf->history_max_age * 1000, SERVER_PRUNE_CHUNK);
		if (n == -1)
			rc = -1;
		else {
			s->prune_again = n >= SERVER_PRUNE_CHUNK;
			s->pruned_at = clock_mono_ms();
		}
	}
	if (rc == -1) {
		store_rollback(s->store);
		goto fail;
	}
	if (store_commit(s->store) == -1)
		goto fail;
	for (w = s->wq; w != NULL; w = next) {
		next = w->next;
		server_wq_free(w);
	}
	s->wq = NULL;
	s->wq_tail = &s->wq;
	server_store_ok(s);
	return;
fail:
	server_store_trouble(s, "write");
	s->flush_after = clock_mono_ms() + (int64_t)(SERVER_RETRY * 1000);
}

/* Queue a decision row about instances that do not run. */
static void
server_decision_later(struct server *s, const char *job, const char *decision,
    const char *reason, int64_t first, int64_t last, int64_t count,
    int64_t rowid)
{
	struct wq_item *w = server_wq_add(s, WQ_DECISION);

	w->job = xstrdup(job);
	w->dec.job = w->job;
	w->dec.decision = decision;
	w->dec.reason = reason;
	w->dec.first_at = first;
	w->dec.last_at = last;
	w->dec.count = count;
	w->dec.now_ms = clock_wall_ms();
	w->dec.run_rowid = rowid;
}

/* Queue the job's stored state to be written. */
static void
server_job_save(struct server *s, struct sjob *j)
{
	struct wq_item *w = server_wq_add(s, WQ_JOB);

	w->job = xstrdup(j->id);
	w->job_st = j->st;
}

/* --- planning -------------------------------------------------------------- */

/*
 * Set j's next instance and due time from its definition and stored
 * state (nothing is written), and place it in the heap.
 */
static void
server_plan(struct server *s, struct sjob *j, int64_t now)
{
	const struct job_def	*d = j->def;
	int64_t			 next = -1, after, following = -1, delay;

	if (d != NULL && d->enabled && !j->st.paused) {
		switch (schedule_kind(d->schedule)) {
		case SCHEDULE_CRON:
		case SCHEDULE_EVERY:
			after = j->st.planned >= 0 ? j->st.planned : now;
			if (schedule_next(d->schedule, d->tz, d->gap, d->fold,
			    after, &next) == -1)
				next = -1;
			else if (schedule_next(d->schedule, d->tz, d->gap,
			    d->fold, next, &following) == -1)
				following = -1;
			break;
		case SCHEDULE_AFTER:
			if (j->nruns == 0 && j->npending == 0)
				next = (j->last_end >= 0 ? j->last_end : now) +
				    schedule_interval(d->schedule);
			break;
		case SCHEDULE_REBOOT:
			if (s->starting &&
			    strcmp(j->st.boot_id, s->boot_id) != 0)
				next = s->boot_time;
			break;
		}
	}
	j->next_at = next;
	if (next < 0) {
		server_heap_remove(s, j);
		return;
	}
	delay = d->random_delay > 0 ? policy_random_delay(s->machine_id,
	    j->id, next, d->random_delay, following) : 0;
	j->due_ms = (next + delay) * 1000;
	/* @reboot's instant is the boot; it is due when the daemon starts. */
	if (schedule_kind(d->schedule) == SCHEDULE_REBOOT)
		j->due_ms = clock_wall_ms() + delay * 1000;
	server_heap_update(s, j);
}

/*
 * Bring a job's stored state in line with its definition.  A job that is
 * new, or whose schedule, zone, DST policy or enabled flag changed, is
 * planned from now: it gets no retroactive instances.
 */
static void
server_job_sync(struct server *s, struct sjob *j, int64_t now)
{
	struct store_job	st;
	int			found;
	int64_t			end;

	found = store_job_get(s->store, j->id, &st);
	if (found == -1)
		fatalx("store: reading job %s: %s", j->id,
		    store_error(s->store));
	if (found && st.sched_hash == j->def->sched_hash) {
		j->st = st;
		if (j->st.watch_since == -1) {	/* a row from before v3 */
			j->st.watch_since = now * 1000;
			server_job_save(s, j);
		}
	} else {
		memset(&j->st, 0, sizeof j->st);
		j->st.sched_hash = j->def->sched_hash;
		j->st.planned = now;
		j->st.overdue_alerted = -1;
		j->st.watch_since = now * 1000;	/* a new definition */
		if (found) {
			j->st.paused = st.paused;
			j->st.overdue_alerted = st.overdue_alerted;
			memcpy(j->st.boot_id, st.boot_id, sizeof st.boot_id);
		}
		if (!s->starting &&
		    schedule_kind(j->def->schedule) == SCHEDULE_REBOOT)
			(void)snprintf(j->st.boot_id, sizeof j->st.boot_id,
			    "%s", s->boot_id);
		if (store_job_put(s->store, j->id, &j->st,
		    clock_wall_ms()) == -1)
			log_warn("store: saving job %s: %s", j->id,
			    store_error(s->store));
	}
	j->last_end = -1;
	if (schedule_kind(j->def->schedule) == SCHEDULE_AFTER &&
	    (end = store_job_last_end(s->store, j->id)) >= 0)
		j->last_end = end / 1000;
	if (!j->loaded) {
		j->last_success = store_job_last_success(s->store, j->id);
		j->loaded = 1;
	}
	server_overdue_arm(s, j);
}

/* --- the pending FIFO ----------------------------------------------------------- */

/* Append an instance to the pending FIFO. */
static struct pending *
server_pend_add(struct server *s, struct sjob *j, int64_t at,
    const char *origin, const char *trigger, int64_t rowid,
    int64_t not_before)
{
	struct pending *p = xcalloc(1, sizeof *p);

	p->j = j;
	p->at = at;
	p->origin = strcmp(origin, "reboot") == 0 ? "reboot" :
	    strcmp(origin, "manual") == 0 ? "manual" : "schedule";
	p->trigger = trigger;
	p->rowid = rowid;
	p->not_before = not_before;
	*s->pend_tail = p;
	s->pend_tail = &p->next;
	s->npend++;
	j->npending++;
	return p;
}

/* Unlink *pp (an entry of the FIFO) and free it. */
static void
server_pend_drop(struct server *s, struct pending **pp)
{
	struct pending *p = *pp;

	*pp = p->next;
	if (s->pend_tail == &p->next)
		s->pend_tail = pp;
	s->npend--;
	p->j->npending--;
	free(p);
}

/*
 * Whether a job may start one more process now, given `more` already
 * started in this pass: not throttled, and its overlap policy allows it
 * (allow: under max_parallel; the others: nothing of it running).
 */
static int
server_can_start(const struct sjob *j, int more, int64_t now_mono)
{
	const struct job_def *d = j->def;

	if (d == NULL || j->throttle_until > now_mono)
		return 0;
	if (d->overlap == POLICY_OVERLAP_ALLOW)
		return j->nruns + more < d->max_parallel;
	return j->nruns + more == 0;
}

/* Arm the pending timer at the earliest retry or throttle end. */
static void
server_pend_arm(struct server *s)
{
	struct pending	*p;
	int64_t		 now_ms = clock_wall_ms(), now_mono = clock_mono_ms();
	int64_t		 wait = -1, w;

	for (p = s->pend; p != NULL; p = p->next) {
		w = -1;
		if (p->not_before > now_ms)
			w = p->not_before - now_ms;
		else if (p->j->throttle_until > now_mono)
			w = p->j->throttle_until - now_mono;
		if (w >= 0 && (wait == -1 || w < wait))
			wait = w;
	}
	ev_timer_stop(s->loop, &s->pend_w);
	if (wait >= 0 && !s->stopping) {
		ev_timer_set(&s->pend_w, (double)(wait + 1) / 1000.0, 0);
		ev_timer_start(s->loop, &s->pend_w);
	}
}

/* --- starting and ending runs ---------------------------------------------- */

/* Build the environment of an attempt (caller frees with envp_free). */
static void
server_env(const struct job_def *d, const struct run *r, struct envp *e)
{
	struct jobenv_run jr;

	jr.job = r->job;
	jr.run_id = r->run_id;
	jr.scheduled_at = r->scheduled_at;
	jr.attempt = r->attempt;
	jr.trigger = r->trigger;
	jobenv_build(d, &jr, e);
}

/* Queue the end of an attempt that never got a process. */
static void
server_spawn_failed(struct server *s, struct run *r, const char *why)
{
	struct wq_item	*w = server_wq_add(s, WQ_END);
	struct log_job	 lj;

	w->text = xstrdup(why);
	w->end.rowid = r->rowid;
	w->end.attempt = r->attempt;
	w->end.status = "failed";
	w->end.reason = "spawn";
	w->end.outcome = "spawn_failed";
	w->end.started_ms = -1;
	w->end.finished_ms = clock_wall_ms();
	w->end.lateness_ms = -1;
	w->end.exit_status = -1;
	w->end.signal = -1;
	w->end.retry_at = -1;
	w->end.error = w->text;
	runner_log_job(r, &lj);
	log_job(LOG_ERR, LOG_EV_SPAWN_FAILED, &lj, "job %s: run %s: cannot "
	    "start: %s", r->job, r->run_id, why);
}

/* A run's timeout: ask it to stop, then kill it. */
static void
server_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct run	*r = w->data;
	struct log_job	 lj;
	char		 d[DURATION_BUFSZ];

	(void)loop;
	(void)w;
	(void)revents;
	r->timed_out = 1;
	runner_log_job(r, &lj);
	duration_format((int64_t)r->timeout_secs, d, sizeof d);
	if (r->hook)
		log_job(LOG_WARNING, LOG_EV_HOOK, &lj, "job %s: its on_failure "
		    "command ran longer than %s: signal %d", r->job, d,
		    r->kill_signal);
	else
		log_job(LOG_WARNING, LOG_EV_TIMED_OUT, &lj, "job %s: run %s "
		    "attempt %d ran longer than its timeout of %s: signal %d "
		    "to its processes", r->job, r->run_id, r->attempt, d,
		    r->kill_signal);
	runner_stop(r, r->kill_signal, r->kill_grace);
}

/*
 * Arm a run's timeout: `left` seconds from now (0: none); `secs` is the
 * configured timeout, for messages.
 */
static void
server_timeout_arm(struct server *s, struct run *r, double left, double secs)
{
	if (secs <= 0)
		return;
	ev_now_update(s->loop);		/* not the time the loop woke up */
	ev_timer_init(&r->timeout_w, server_timeout_cb, left > 0 ? left :
	    0.001, 0);
	r->timeout_secs = secs;
	r->timeout_w.data = r;
	ev_timer_start(s->loop, &r->timeout_w);
}

/* Fork the process of a claimed instance. */
static void
server_start(struct server *s, struct sjob *j, const struct store_claimed *c,
    int64_t at, const char *trigger)
{
	const struct job_def	*d = j->def;
	struct runner_spec	 spec;
	struct envp		 env;
	struct run		*r;
	struct wq_item		*w;
	char			*cause = NULL;

	r = runner_new(j->id, c->run_id, trigger, c->rowid, c->attempt, at,
	    at * 1000);
	if (d == NULL) {
		server_spawn_failed(s, r, "the job was removed from the "
		    "configuration");
		runner_free(r);
		return;
	}
	r->kill_signal = d->kill_signal;
	r->kill_grace = (double)d->kill_grace;
	r->tail_cap = (size_t)d->output_keep;
	server_env(d, r, &env);
	spec.command = d->command;
	spec.envp = env.v;
	spec.cred = &d->cred;
	spec.workdir = d->workdir != NULL ? d->workdir : d->cred.home;
	r->owner = j;
	if (runner_spawn(r, &spec, &cause) == -1) {
		/* No process: an attempt that failed like any other. */
		free(cause);
		envp_free(&env);
		r->started_ms = clock_wall_ms();
		r->started_mono = clock_mono_ms();
		server_run_end(s, r, 0);
		return;
	}
	envp_free(&env);
	r->next_in_job = j->runs;
	j->runs = r;
	j->nruns++;
	j->skips = 0;
	if (s->nrunning++ == 0)		/* leases need renewing from now */
		ev_timer_again(s->loop, &s->lease_w);
	server_timeout_arm(s, r, (double)d->timeout, (double)d->timeout);

	w = server_wq_add(s, WQ_STARTED);
	w->rowid = r->rowid;
	w->attempt = r->attempt;
	w->pid = r->pid;
	w->pid_start = r->pid_start;
	w->started_ms = r->started_ms;
	w->lateness_ms = r->started_ms - r->scheduled_at * 1000;
}

/* A run's program is executing (runner.c calls this once exec worked). */
static void
server_run_started(struct run *r, void *arg)
{
	struct log_job lj;

	(void)arg;
	if (r->hook)
		return;
	runner_log_job(r, &lj);
	lj.lateness_ms = r->started_ms - r->scheduled_at * 1000;
	log_job(LOG_INFO, LOG_EV_STARTED, &lj, "job %s: run %s attempt %d "
	    "started, pid %ld, %" PRId64 " ms after its instant (trigger %s)",
	    r->job, r->run_id, r->attempt, (long)r->pid, lj.lateness_ms,
	    r->trigger);
}

/* A random number of milliseconds in [0, max]: retry jitter. */
static int64_t
server_jitter(int64_t max)
{
	uint64_t v = 0;

	if (max <= 0)
		return 0;
	if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v)
		v = (uint64_t)clock_mono_ms() * UINT64_C(0x9e3779b97f4a7c15);
	return (int64_t)(v % (uint64_t)(max + 1));
}

/* After a failure: count instant failures, throttle a crash loop. */
static void
server_throttle_check(struct server *s, struct sjob *j, int failed,
    int64_t duration_ms)
{
	struct log_job	lj = LOG_JOB_INIT;
	int64_t		secs;
	char		d[DURATION_BUFSZ];
	int		i;

	if (!failed || duration_ms >= SERVER_FAST_FAIL_MS) {
		j->fast_fails = 0;
		if (!failed)
			j->throttles = 0;
		return;
	}
	if (++j->fast_fails < SERVER_FAST_FAILS)
		return;
	j->fast_fails = 0;
	for (secs = SERVER_THROTTLE_MIN, i = 0; i < j->throttles &&
	    secs < SERVER_THROTTLE_MAX; i++)
		secs *= 2;
	if (secs > SERVER_THROTTLE_MAX)
		secs = SERVER_THROTTLE_MAX;
	j->throttles++;
	j->throttle_until = clock_mono_ms() + secs * 1000;
	duration_format(secs, d, sizeof d);
	lj.job = j->id;
	log_job(LOG_ERR, LOG_EV_THROTTLED, &lj, "job %s: %d attempts in a row "
	    "failed within %d ms of starting: throttled for %s (instances "
	    "due meanwhile are skipped, retries wait)", j->id,
	    SERVER_FAST_FAILS, SERVER_FAST_FAIL_MS, d);
	(void)s;
}

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

/* Classify the end of a run's process. */
static void
server_classify(struct server *s, const struct run *r,
    struct server_outcome *o)
{
	int st = r->wstatus;

	memset(o, 0, sizeof *o);
	o->exit_status = o->signal = -1;
	if (r->adopted) {
		o->status = o->outcome = "unknown";
		o->reason = "adopted";
		(void)snprintf(o->why, sizeof o->why, "adopted after a "
		    "restart: its exit status cannot be known");
		return;
	}
	if (r->spawn_failed) {
		o->failed = 1;
		o->status = "failed";
		o->reason = "spawn";
		o->outcome = "spawn_failed";
		(void)snprintf(o->why, sizeof o->why, "%s: %s",
		    child_stage_name(r->report.stage),
		    strerror(r->report.error));
		return;
	}
	if (WIFEXITED(st)) {
		o->exit_status = WEXITSTATUS(st);
		(void)snprintf(o->why, sizeof o->why, "exit %d", o->exit_status);
	} else {
		o->signal = WTERMSIG(st);
		(void)snprintf(o->why, sizeof o->why, "signal %d, %s",
		    o->signal, strsignal(o->signal));
	}
	if (r->replaced || r->stopped || s->stopping) {
		o->status = o->outcome = "terminated";
		o->reason = r->replaced ? "replaced" : "shutdown";
		return;
	}
	if (r->timed_out) {
		o->failed = 1;
		o->status = "failed";
		o->reason = "timeout";
		o->outcome = "timed_out";
		return;
	}
	if (o->exit_status == 0) {
		o->status = o->outcome = "succeeded";
		return;
	}
	o->failed = 1;
	o->status = o->outcome = "failed";
	o->reason = o->exit_status != -1 ? "exit" : "signal";
}

/*
 * Decide between a retry and a final failure for a failed attempt.
 * Returns the retry time (wall ms), or -1 with o->status set to "failed"
 * or "dead".
 */
static int64_t
server_retry_plan(struct server *s, struct sjob *j, const struct run *r,
    struct server_outcome *o, int64_t now_ms, char *detail, size_t len)
{
	const struct job_def	*d = j->def;
	int64_t			 delay_ms, at;
	char			 a[RFC3339_BUFSZ], b[RFC3339_BUFSZ];

	detail[0] = '\0';
	if (d == NULL || d->retries == 0 || s->stopping)
		return -1;
	if (!policy_exit_retryable(d->retry_codes, d->retry_any,
	    o->exit_status != -1 && !r->timed_out && !r->spawn_failed ?
	    o->exit_status : -1)) {
		(void)snprintf(detail, len, "%s is not in retry_on_exit: "
		    "permanent", o->why);
		return -1;		/* permanent: failed */
	}
	if (r->attempt > d->retries) {
		o->status = "dead";
		(void)snprintf(detail, len, "%d attempts failed; the last: %s",
		    r->attempt, o->why);
		return -1;
	}
	delay_ms = policy_retry_delay(d->retry_delay, d->retry_delay_max,
	    r->attempt) * 1000;
	at = now_ms + delay_ms + server_jitter(delay_ms / 10);
	if (j->next_at >= 0 && at >= j->due_ms && r->scheduled_at <
	    j->next_at) {
		o->status = "dead";
		(void)snprintf(detail, len, "a retry at %s would overlap the "
		    "next instance at %s; the last failure: %s",
		    server_when(at / 1000, a, sizeof a),
		    server_when(j->next_at, b, sizeof b), o->why);
		return -1;
	}
	return at;
}

/* Unlink a run from its job's list. */
static void
server_run_unlink(struct sjob *j, struct run *r)
{
	struct run **rp;

	for (rp = &j->runs; *rp != NULL; rp = &(*rp)->next_in_job) {
		if (*rp == r) {
			*rp = r->next_in_job;
			j->nruns--;
			return;
		}
	}
}

/* Free a job removed by a reload once nothing of it is left. */
static void
server_gone_check(struct server *s, struct sjob *j)
{
	size_t i;

	if (j->def != NULL || j->nruns > 0 || j->npending > 0)
		return;
	for (i = 0; i < s->ngone; i++) {
		if (s->gone[i] == j) {
			s->gone[i] = s->gone[--s->ngone];
			ev_timer_stop(s->loop, &j->overdue_w);
			free(j->id);
			free(j);
			return;
		}
	}
}

/* An on_failure command ended. */
static void
server_hook_done(struct server *s, struct run *r)
{
	struct log_job		 lj;
	struct server_outcome	 o;

	server_classify(s, r, &o);
	runner_log_job(r, &lj);
	lj.exit_status = o.exit_status;
	lj.signal = o.signal;
	log_job(o.exit_status == 0 ? LOG_INFO : LOG_WARNING, LOG_EV_HOOK, &lj,
	    "job %s: on_failure for %s %s (%s)", r->job, r->run_id[0] != '\0' ?
	    r->run_id : "the dead man's switch", o.exit_status == 0 ? "ran" :
	    "failed", r->timed_out ? "timed out" : o.why);
	server_decision_later(s, r->job, "on_failure", r->timed_out ?
	    "timeout" : o.exit_status == 0 ? "succeeded" : "failed",
	    r->scheduled_at, r->scheduled_at, 1, r->hook_rowid);
}

/* A run's process ended (runner.c calls this after the reap). */
static void
server_run_done(struct run *r, void *arg)
{
	server_run_end(arg, r, 1);
}

/*
 * The end of an attempt: classify it, decide between success, a retry, a
 * failure or a dead letter, record it, run on_failure, and start what
 * waits.  linked: the run had a process in its job's list.
 */
static void
server_run_end(struct server *s, struct run *r, int linked)
{
	struct sjob		 *j = r->owner;
	struct wq_item		 *w;
	struct log_job		  lj;
	struct server_outcome	  o;
	int64_t			  now_ms = clock_wall_ms(), retry_at = -1;
	char			  detail[512];
	int			  prio, ev;

	if (r->hook) {
		struct run **rp;

		for (rp = &s->hooks; *rp != NULL; rp = &(*rp)->next_in_job) {
			if (*rp == r) {
				*rp = r->next_in_job;
				break;
			}
		}
		server_hook_done(s, r);
		runner_free(r);
		if (s->stopping && s->nrunning == 0 && runner_count() == 0)
			ev_break(s->loop, EVBREAK_ALL);
		return;
	}
	if (linked) {
		server_run_unlink(j, r);
		if (--s->nrunning == 0)	/* idle: no wake-ups at all */
			ev_timer_stop(s->loop, &s->lease_w);
	}
	server_classify(s, r, &o);
	/* Stopped runs leave nothing behind, after their kill_grace. */
	if ((r->timed_out || r->replaced || r->stopped) && !r->adopted)
		runner_sweep(r);
	runner_log_job(r, &lj);
	lj.duration_ms = clock_mono_ms() - r->started_mono;
	lj.exit_status = o.exit_status;
	lj.signal = o.signal;
	detail[0] = '\0';
	if (o.failed) {
		server_throttle_check(s, j, 1, lj.duration_ms);
		retry_at = server_retry_plan(s, j, r, &o, now_ms, detail,
		    sizeof detail);
		if (retry_at != -1)
			o.status = "retrying";
	} else if (strcmp(o.status, "succeeded") == 0) {
		server_throttle_check(s, j, 0, lj.duration_ms);
		j->last_success = now_ms;
		if (j->st.overdue_alerted != -1) {
			j->st.overdue_alerted = -1;
			server_job_save(s, j);
		}
		server_overdue_arm(s, j);
	}

	w = server_wq_add(s, WQ_END);
	w->end.rowid = r->rowid;
	w->end.attempt = r->attempt;
	w->end.started_ms = r->adopted ? -1 : r->started_ms;
	w->end.finished_ms = now_ms;
	w->end.lateness_ms = r->adopted ? -1 :
	    r->started_ms - r->scheduled_at * 1000;
	w->end.exit_status = o.exit_status;
	w->end.signal = o.signal;
	w->end.status = o.status;
	w->end.reason = o.reason;
	w->end.outcome = o.outcome;
	w->end.retry_at = retry_at;
	if (r->spawn_failed) {
		w->text = xstrdup(o.why);
		w->end.error = w->text;
	}
	w->tail = runner_tail(r, &w->end.tail_len);
	w->end.tail = w->tail;
	if (r->adopted && r->timed_out)
		(void)snprintf(detail, sizeof detail, "stopped by its timeout "
		    "of %.0fs after it was adopted", r->timeout_secs);
	if (detail[0] != '\0') {
		w->detail = xstrdup(detail);
		w->end.detail = w->detail;
	}

	/* The journal. */
	prio = LOG_INFO;
	ev = LOG_EV_SUCCEEDED;
	if (strcmp(o.status, "terminated") == 0) {
		prio = LOG_WARNING;
		ev = r->replaced ? LOG_EV_REPLACED : LOG_EV_TERMINATED;
	} else if (r->adopted) {
		prio = LOG_NOTICE;
		ev = LOG_EV_ADOPTED;
	} else if (r->spawn_failed) {
		prio = LOG_ERR;
		ev = LOG_EV_SPAWN_FAILED;
	} else if (r->timed_out) {
		prio = LOG_WARNING;
		ev = LOG_EV_TIMED_OUT;
	} else if (o.failed) {
		prio = LOG_WARNING;
		ev = LOG_EV_FAILED;
	}
	if (r->spawn_failed)
		log_job(prio, ev, &lj, "job %s: run %s: cannot start: %s",
		    r->job, r->run_id, o.why);
	else
		log_job(prio, ev, &lj, "job %s: run %s attempt %d %s (%s) "
		    "after %" PRId64 " ms", r->job, r->run_id, r->attempt,
		    r->timed_out && o.failed ? "timed out" : o.status, o.why,
		    lj.duration_ms);
	if (retry_at != -1) {
		char when[RFC3339_BUFSZ];

		log_job(LOG_NOTICE, LOG_EV_RETRY, &lj, "job %s: run %s: attempt "
		    "%d at %s", r->job, r->run_id, r->attempt + 1,
		    server_when(retry_at / 1000, when, sizeof when));
		server_pend_add(s, j, r->scheduled_at, "schedule", "retry",
		    r->rowid, retry_at);
	} else if (o.failed) {
		if (strcmp(o.status, "dead") == 0)
			log_job(LOG_ERR, LOG_EV_DEAD, &lj, "job %s: run %s is "
			    "dead: %s", r->job, r->run_id, detail);
		server_hook(s, j, o.status, o.reason, r->rowid,
		    r->scheduled_at, r->attempt, o.exit_status, o.signal,
		    r->run_id);
	}

	/* Retention: every SERVER_PRUNE_EVERY ends, trim the history. */
	if (++j->ends >= SERVER_PRUNE_EVERY) {
		j->ends = 0;
		server_wq_add(s, WQ_PRUNE)->job = xstrdup(j->id);
	}
	if (j->def != NULL && schedule_kind(j->def->schedule) ==
	    SCHEDULE_AFTER && retry_at == -1) {
		j->last_end = now_ms / 1000;
		server_plan(s, j, now_ms / 1000);
	}
	runner_free(r);
	server_gone_check(s, j);
	if (s->stopping) {
		if (s->nrunning == 0 && runner_count() == 0)
			ev_break(s->loop, EVBREAK_ALL);
		return;
	}
	server_pump(s);
	server_rearm(s);
}

/*
 * Run a job's on_failure command about an instance that failed or died
 * (or, with status "overdue", about a job that has not succeeded).  It
 * never delays scheduling: it is not a run of the job, counts toward no
 * limit, and has its own timeout.
 */
static void
server_hook(struct server *s, struct sjob *j, const char *status,
    const char *reason, int64_t rowid, int64_t at, int attempt,
    int exit_status, int sig, const char *run_id)
{
	const struct job_def	*d = j->def;
	struct runner_spec	 spec;
	struct envp		 env;
	struct run		*r;
	char			*cause = NULL, num[16];

	if (d == NULL || d->on_failure == NULL || s->stopping)
		return;
	r = runner_new(j->id, run_id, "on_failure", rowid, attempt, at,
	    at * 1000);
	r->hook = 1;
	r->hook_rowid = rowid;
	r->owner = j;
	r->kill_signal = d->kill_signal;
	r->kill_grace = (double)d->kill_grace;
	server_env(d, r, &env);
	(void)snprintf(num, sizeof num, "%d", exit_status);
	envp_set(&env, "TICKD_EXIT_STATUS", exit_status >= 0 ? num : "");
	(void)snprintf(num, sizeof num, "%d", sig);
	envp_set(&env, "TICKD_SIGNAL", sig > 0 ? num : "");
	envp_set(&env, "TICKD_STATUS", status);
	envp_set(&env, "TICKD_REASON", reason != NULL ? reason : "");
	spec.command = d->on_failure;
	spec.envp = env.v;
	spec.cred = &d->cred;
	spec.workdir = d->workdir != NULL ? d->workdir : d->cred.home;
	if (runner_spawn(r, &spec, &cause) == -1) {
		log_err("job %s: on_failure cannot start: %s", j->id, cause);
		free(cause);
		runner_free(r);
	} else {
		r->next_in_job = s->hooks;
		s->hooks = r;
		server_timeout_arm(s, r, (double)d->on_failure_timeout,
		    (double)d->on_failure_timeout);
	}
	envp_free(&env);
}

/* --- the dead man's switch ------------------------------------------------- */

/* expect_success_within has passed without a success: say so, once. */
static void
server_overdue_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sjob	*j = w->data;
	struct server	*s = j->srv;
	struct log_job	 lj = LOG_JOB_INIT;
	int64_t		 now_ms = clock_wall_ms(), base;
	char		 d[DURATION_BUFSZ], when[RFC3339_BUFSZ];

	(void)loop;
	(void)revents;
	if (j->def == NULL || j->def->expect_success_within == 0)
		return;
	base = j->last_success > j->st.watch_since ? j->last_success :
	    j->st.watch_since;
	if (now_ms < base + j->def->expect_success_within * 1000) {
		server_overdue_arm(s, j);	/* the clock went back */
		return;
	}
	duration_format(j->def->expect_success_within, d, sizeof d);
	lj.job = j->id;
	if (j->last_success >= 0)
		log_job(LOG_ERR, LOG_EV_OVERDUE, &lj, "job %s: no run has "
		    "succeeded for %s (last success %s)", j->id, d,
		    server_when(j->last_success / 1000, when, sizeof when));
	else
		log_job(LOG_ERR, LOG_EV_OVERDUE, &lj, "job %s: no run has "
		    "succeeded for %s (none since %s)", j->id, d,
		    server_when(j->st.watch_since / 1000, when, sizeof when));
	j->st.overdue_alerted = now_ms;
	server_job_save(s, j);
	server_hook(s, j, "overdue", "expect_success_within", -1,
	    now_ms / 1000, 0, -1, -1, "");
}

/* Arm (or disarm) a job's dead man's switch. */
static void
server_overdue_arm(struct server *s, struct sjob *j)
{
	int64_t base, deadline;

	ev_timer_stop(s->loop, &j->overdue_w);
	if (j->def == NULL || j->def->expect_success_within == 0 ||
	    !j->def->enabled || j->st.paused)
		return;
	base = j->last_success > j->st.watch_since ? j->last_success :
	    j->st.watch_since;
	if (j->st.overdue_alerted >= base)
		return;			/* said already, until a success */
	deadline = base + j->def->expect_success_within * 1000;
	ev_timer_init(&j->overdue_w, server_overdue_cb,
	    (double)(deadline - clock_wall_ms()) / 1000.0 > 0 ?
	    (double)(deadline - clock_wall_ms()) / 1000.0 : 0.001, 0);
	j->overdue_w.data = j;
	ev_timer_start(s->loop, &j->overdue_w);
}

/* --- dispatch ---------------------------------------------------------------- */

/* Log a clock step or a suspend seen through the clocks' offsets. */
static void
server_check_clock(struct server *s, int64_t wall)
{
	struct log_job	lj = LOG_JOB_INIT;
	int64_t		off = wall - clock_boot_ms();
	int64_t		soff = wall - clock_mono_ms(), d;
	char		buf[DURATION_BUFSZ];

	d = off - s->clock_off;
	if (s->clock_off != 0 && (d > SERVER_JUMP_MS || d < -SERVER_JUMP_MS)) {
		duration_format((d < 0 ? -d : d) / 1000, buf, sizeof buf);
		log_job(LOG_WARNING, LOG_EV_CLOCK_JUMP, &lj, "the wall clock "
		    "was stepped %s by %s: instances jumped over are late (the "
		    "misfire policy decides), none already run will run again",
		    d > 0 ? "forward" : "back", buf);
	} else if (s->susp_off != 0 && soff - s->susp_off > SERVER_JUMP_MS) {
		duration_format((soff - s->susp_off) / 1000, buf, sizeof buf);
		log_job(LOG_NOTICE, LOG_EV_CLOCK_JUMP, &lj, "resumed after a "
		    "suspend of about %s", buf);
	}
	s->clock_off = off;
	s->susp_off = soff;
}

/* An instance skipped by a dispatch pass. */
struct dskip {
	struct sjob	*j;
	int64_t		 at;
	int		 throttled;	/* else overlap */
};

/* What a dispatch pass decided, applied once its transaction commits. */
struct dispatch {
	struct pending	 *add;		/* new pending entries, in order */
	struct pending	**add_tail;
	struct run	**kill;		/* runs to stop (replace) */
	size_t		  nkill;
	struct dskip	 *skipped;	/* each skip, for the journal */
	size_t		  nskipped;
	size_t		  room;		/* global slots left to claim now */
	int		  force;	/* manual --force: no overlap rule */
	char		  why[STORE_RUN_ID_MAX + 64]; /* the last skip's */
	int64_t		  now;
	int64_t		  now_ms;
	int64_t		  now_mono;
};

/* How many entries of job j this pass added (and how many claim now). */
static void
server_dispatch_count(const struct dispatch *dp, const struct sjob *j,
    int *added, int *claiming)
{
	const struct pending *p;

	*added = *claiming = 0;
	for (p = dp->add; p != NULL; p = p->next) {
		if (p->j == j) {
			(*added)++;
			*claiming += p->claim;
		}
	}
}

/* Record one instance that does not run, as a skipped row. */
static int
server_skip_row(struct server *s, struct dispatch *dp, struct sjob *j,
    int64_t at, const char *origin, const char *reason, const char *detail)
{
	struct store_claim c;

	memset(&c, 0, sizeof c);
	c.job = j->id;
	c.scheduled_at = at;
	c.origin = origin;
	c.trigger = "schedule";
	c.now_ms = dp->now_ms;
	c.reason = reason;
	c.detail = detail;
	return store_run_skip(s->store, &c) == -1 ? -1 : 0;
}

/*
 * Hand one instance to the job's overlap policy, inside the dispatch
 * transaction: a skipped row, or a new pending entry (claimed now when
 * the job and a global slot are free).
 */
static int
server_overlap(struct server *s, struct dispatch *dp, struct sjob *j,
    int64_t at, const char *origin, const char *trigger)
{
	const struct job_def	*d = j->def;
	struct store_claim	 c;
	struct pending		*p, **pp;
	struct run		*r;
	char			 detail[STORE_RUN_ID_MAX + 64];
	int			 added, claiming, inflight, rc, throttled = 0;

	server_dispatch_count(dp, j, &added, &claiming);
	inflight = j->nruns + j->npending + added;
	/* Catch-up runs are a backlog: they wait their turn, never skip. */
	if (strcmp(trigger, "catch_up") == 0 || dp->force)
		goto runs;
	if (j->throttle_until > dp->now_mono) {
		if (server_skip_row(s, dp, j, at, origin, "throttled",
		    "the job fails instantly and is throttled") == -1)
			return -1;
		throttled = 1;
		goto skipped;
	}
	switch (d->overlap) {
	case POLICY_OVERLAP_SKIP:
	case POLICY_OVERLAP_QUEUE:
		if (inflight == 0)
			break;
		if (d->overlap == POLICY_OVERLAP_QUEUE &&
		    j->npending + added < d->queue_limit)
			break;
		if (j->runs != NULL)
			(void)snprintf(detail, sizeof detail, "%s is still "
			    "running", j->runs->run_id);
		else
			(void)snprintf(detail, sizeof detail, "an earlier "
			    "instance is waiting to start");
		if (d->overlap == POLICY_OVERLAP_QUEUE)
			(void)strncat(detail, "; the queue is full",
			    sizeof detail - strlen(detail) - 1);
		if (server_skip_row(s, dp, j, at, origin, "overlap",
		    detail) == -1)
			return -1;
		goto skipped;
	case POLICY_OVERLAP_ALLOW:
		if (inflight < d->max_parallel)
			break;
		(void)snprintf(detail, sizeof detail, "max_parallel (%lld) "
		    "instances are in flight", (long long)d->max_parallel);
		if (server_skip_row(s, dp, j, at, origin, "overlap",
		    detail) == -1)
			return -1;
		goto skipped;
	case POLICY_OVERLAP_REPLACE:
		/* The newest wins: stop what runs, drop what waits. */
		for (r = j->runs; r != NULL; r = r->next_in_job) {
			if (r->replaced)
				continue;
			r->replaced = 1;
			dp->kill = xreallocarray(dp->kill, dp->nkill + 1,
			    sizeof *dp->kill);
			dp->kill[dp->nkill++] = r;
		}
		for (pp = &s->pend; *pp != NULL;) {
			if ((*pp)->j != j) {
				pp = &(*pp)->next;
				continue;
			}
			memset(&c, 0, sizeof c);
			c.job = j->id;
			c.scheduled_at = (*pp)->at;
			c.origin = (*pp)->origin;
			c.now_ms = dp->now_ms;
			if (store_run_unqueue(s->store, &c, "skipped",
			    "replaced") == -1)
				return -1;
			server_pend_drop(s, pp);
		}
		for (p = dp->add; p != NULL; p = p->next) {
			if (p->j != j || p->claim)
				continue;
			memset(&c, 0, sizeof c);
			c.job = j->id;
			c.scheduled_at = p->at;
			c.origin = p->origin;
			c.now_ms = dp->now_ms;
			if (store_run_unqueue(s->store, &c, "skipped",
			    "replaced") == -1)
				return -1;
			p->j = NULL;	/* superseded before it began */
		}
		break;
	}

	/* It runs: now if the job and a slot are free, else it waits. */
runs:
	p = xcalloc(1, sizeof *p);
	p->j = j;
	p->at = at;
	p->origin = strcmp(origin, "reboot") == 0 ? "reboot" :
	    strcmp(origin, "manual") == 0 ? "manual" : "schedule";
	p->trigger = trigger;
	p->rowid = -1;
	p->force = dp->force;
	memset(&c, 0, sizeof c);
	c.job = j->id;
	c.scheduled_at = at;
	c.origin = p->origin;
	c.trigger = trigger;
	c.owner = s->owner;
	c.now_ms = dp->now_ms;
	c.lease_until = dp->now + s->conf->lease;
	if (dp->room > 0 && strcmp(trigger, "catch_up") != 0 &&
	    (dp->force || (server_can_start(j, claiming, dp->now_mono) &&
	    (d->overlap == POLICY_OVERLAP_ALLOW || added == claiming)))) {
		if ((rc = store_run_claim(s->store, &c, &p->claimed)) == -1) {
			free(p);
			return -1;
		}
		if (rc == 0) {		/* it exists already: it ran */
			free(p);
			return 0;
		}
		p->claim = 1;
		dp->room--;
	} else {
		c.reason = strcmp(trigger, "catch_up") == 0 ? "catch_up" :
		    inflight > 0 ? "overlap" : "max_running";
		p->why = c.reason;
		if ((rc = store_run_queue(s->store, &c)) == -1) {
			free(p);
			return -1;
		}
		if (rc == 0) {
			free(p);
			return 0;
		}
	}
	*dp->add_tail = p;
	dp->add_tail = &p->next;
	return 0;

skipped:
	(void)snprintf(dp->why, sizeof dp->why, "%s", throttled ?
	    "the job fails instantly and is throttled" : detail);
	dp->skipped = xreallocarray(dp->skipped, dp->nskipped + 1,
	    sizeof *dp->skipped);
	dp->skipped[dp->nskipped].j = j;
	dp->skipped[dp->nskipped].at = at;
	dp->skipped[dp->nskipped++].throttled = throttled;
	return 0;
}

/* Log a range of instances that do not run. */
static void
server_log_range(struct sjob *j, const char *reason, int64_t first,
    int64_t last, int64_t count, int capped)
{
	struct log_job	lj = LOG_JOB_INIT;
	char		a[RFC3339_BUFSZ], b[RFC3339_BUFSZ];

	lj.job = j->id;
	lj.scheduled_at = last;
	log_job(LOG_WARNING, strcmp(reason, "overlap") == 0 ||
	    strcmp(reason, "stall") == 0 ? LOG_EV_SKIPPED : LOG_EV_MISSED, &lj, "job %s: %s%" PRId64
	    " instance%s from %s to %s skipped (%s)", j->id,
	    capped ? "at least " : "", count, count == 1 ? "" : "s",
	    server_when(first, a, sizeof a), server_when(last, b, sizeof b),
	    strcmp(reason, "coalesced") == 0 ? "found late: coalesced into "
	    "one run, misfire = run_once" : strcmp(reason, "stall") == 0 ?
	    "due at once after a short stall: coalesced into the newest" :
	    strcmp(reason, "misfire") == 0 ?
	    "found late, misfire = skip" : strcmp(reason, "catch_up_limit") ==
	    0 ? "older than the catch_up_limit newest late ones" :
	    "due at once while the job was busy");
}

/*
 * Decide what becomes of a due job's instances, inside the dispatch
 * transaction.  Sets *planned to the newest instance decided.
 */
static int
server_dispatch_job(struct server *s, struct dispatch *dp, struct sjob *j,
    int64_t *planned)
{
	const struct job_def	*d = j->def;
	struct store_decision	 dec;
	struct policy_due	 due;
	int64_t			*buf;
	size_t			 bufsz, i;
	int			 rc = 0;

	switch (schedule_kind(d->schedule)) {
	case SCHEDULE_REBOOT:
	case SCHEDULE_AFTER:
		/* One instance, never "late": it runs whenever it is due. */
		*planned = j->next_at;
		return server_overlap(s, dp, j, j->next_at,
		    schedule_kind(d->schedule) == SCHEDULE_REBOOT ? "reboot" :
		    "schedule", "schedule");
	case SCHEDULE_CRON:
	case SCHEDULE_EVERY:
	default:
		break;
	}
	bufsz = (size_t)d->catch_up_limit + 64;
	buf = xreallocarray(NULL, bufsz, sizeof *buf);
	policy_due(d->schedule, d->tz, d->gap, d->fold, j->next_at, dp->now,
	    d->misfire_grace + d->random_delay, d->misfire,
	    d->catch_up_limit, buf, bufsz, &due);
	*planned = due.last >= 0 ? due.last : j->st.planned;

	memset(&dec, 0, sizeof dec);
	dec.job = j->id;
	dec.decision = "skipped";
	dec.now_ms = dp->now_ms;
	dec.run_rowid = -1;
	if (due.skip_count > 0) {
		dec.reason = due.skip_reason;
		dec.first_at = due.skip_first;
		dec.last_at = due.skip_last;
		dec.count = due.skip_count;
		if (store_decision_add(s->store, &dec) == -1)
			goto fail;
	}
	if (due.skip_count > 0)
		server_log_range(j, due.skip_reason, due.skip_first,
		    due.skip_last, due.skip_count, due.skip_capped);
	for (i = 0; i < due.ncatch && rc == 0; i++)
		rc = server_overlap(s, dp, j, due.run[i], "schedule",
		    "catch_up");
	if (rc == -1)
		goto fail;
	if ((d->overlap == POLICY_OVERLAP_SKIP ||
	    d->overlap == POLICY_OVERLAP_REPLACE) &&
	    (int64_t)(due.nrun - due.ncatch) + due.more_count > 1) {
		/*
		 * Several on-time instances at once (a short stall, within
		 * misfire_grace): one instance of the job at a time, so the
		 * newest runs and the older ones coalesce into it.
		 */
		dec.reason = "coalesced";
		dec.first_at = due.run[due.ncatch];
		dec.last_at = due.ontime_prev;
		dec.count = (int64_t)(due.nrun - due.ncatch) + due.more_count -
		    1;
		if (store_decision_add(s->store, &dec) == -1 ||
		    server_overlap(s, dp, j, due.last, "schedule",
		    "schedule") == -1)
			goto fail;
		server_log_range(j, "stall", due.run[due.ncatch],
		    due.ontime_prev, dec.count, due.more_capped);
		free(buf);
		return 0;
	}
	for (i = due.ncatch; i < due.nrun && rc == 0; i++)
		rc = server_overlap(s, dp, j, due.run[i], "schedule",
		    "schedule");
	if (rc == -1)
		goto fail;
	if (due.more_count > 0) {
		dec.reason = "overlap";
		dec.first_at = due.more_first;
		dec.last_at = due.more_last;
		dec.count = due.more_count;
		if (store_decision_add(s->store, &dec) == -1)
			goto fail;
	}
	/* Logged now; rolled back with the rest if the commit fails. */
	if (due.more_count > 0)
		server_log_range(j, "overlap", due.more_first, due.more_last,
		    due.more_count, due.more_capped);
	free(buf);
	return 0;
fail:
	free(buf);
	return -1;
}

/*
 * Log a skipped instance; count overlap skips and say, once per streak,
 * that the job is stuck.
 */
static void
server_note_skip(struct server *s, const struct dskip *k)
{
	struct sjob	*j = k->j;
	struct log_job	 lj = LOG_JOB_INIT;
	char		 when[RFC3339_BUFSZ];

	(void)s;
	lj.job = j->id;
	lj.scheduled_at = k->at;
	if (k->throttled) {
		log_job(LOG_WARNING, LOG_EV_SKIPPED, &lj, "job %s: instance %s "
		    "skipped: the job is throttled", j->id,
		    server_when(k->at, when, sizeof when));
		return;
	}
	if (j->skips++ == 0)
		j->skip_since = k->at;
	if (j->skips == SERVER_BLOCKED_SKIPS)
		log_job(LOG_ERR, LOG_EV_BLOCKED, &lj, "job %s is blocked: %d "
		    "instances in a row skipped since %s%s%s", j->id,
		    SERVER_BLOCKED_SKIPS, server_when(j->skip_since, when,
		    sizeof when), j->runs != NULL ? " while " : "",
		    j->runs != NULL ? j->runs->run_id : "");
	else
		log_job(LOG_WARNING, LOG_EV_SKIPPED, &lj, "job %s: instance %s "
		    "skipped (overlap = %s)%s%s", j->id, server_when(k->at, when,
		    sizeof when), policy_overlap_name(j->def->overlap),
		    j->runs != NULL ? ": still running: " : "",
		    j->runs != NULL ? j->runs->run_id : "");
}

/* How many entries of the FIFO could start now but for max_running. */
static size_t
server_pend_startable(struct server *s)
{
	struct pending	*p;
	int64_t		 now_ms = clock_wall_ms(), now_mono = clock_mono_ms();
	size_t		 n = 0;

	for (p = s->pend; p != NULL; p = p->next) {
		if (p->not_before <= now_ms &&
		    server_can_start(p->j, 0, now_mono))
			n++;
	}
	return n;
}

/*
 * After a dispatch pass (or a manual run) committed: log the skips, stop
 * what is replaced, fork what was claimed, queue what waits.
 */
static void
server_dispatch_apply(struct server *s, struct dispatch *dp)
{
	struct pending	*p, *next;
	size_t		 i;

	for (i = 0; i < dp->nskipped; i++)
		server_note_skip(s, &dp->skipped[i]);
	for (i = 0; i < dp->nkill; i++) {
		struct log_job lj;

		runner_log_job(dp->kill[i], &lj);
		log_job(LOG_NOTICE, LOG_EV_REPLACED, &lj, "job %s: run %s is "
		    "replaced by a newer instance: signal %d",
		    dp->kill[i]->job, dp->kill[i]->run_id,
		    dp->kill[i]->kill_signal);
		runner_stop(dp->kill[i], dp->kill[i]->kill_signal,
		    dp->kill[i]->kill_grace);
	}
	for (p = dp->add; p != NULL; p = next) {
		next = p->next;
		if (p->j == NULL)		/* replaced within this pass */
			free(p);
		else if (p->claim) {
			server_start(s, p->j, &p->claimed, p->at, p->trigger);
			free(p);
		} else {
			struct log_job	lj = LOG_JOB_INIT;
			char		when[RFC3339_BUFSZ];

			lj.job = p->j->id;
			lj.scheduled_at = p->at;
			log_job(LOG_INFO, LOG_EV_NONE, &lj, "job %s: instance %s "
			    "waits (%s)", p->j->id, server_when(p->at, when,
			    sizeof when), strcmp(p->why, "catch_up") == 0 ?
			    "a catch-up run, one at a time" :
			    strcmp(p->why, "overlap") == 0 ? "overlap = queue "
			    "or replace: after the running one" :
			    "max_running reached");
			p->next = NULL;
			*s->pend_tail = p;
			s->pend_tail = &p->next;
			s->npend++;
			p->j->npending++;
		}
	}
	dp->add = NULL;
	dp->add_tail = &dp->add;
}

/*
 * Handle every job that is due: decide, write every decision and claim in
 * one transaction, then fork.  If the store refuses, nothing changes and
 * dispatch is retried after SERVER_RETRY.
 */
static void
server_dispatch(struct server *s)
{
	struct dispatch	 dp;
	struct sjob	**due = NULL;
	struct pending	 *p, *next;
	int64_t		 *planned = NULL;

	size_t		  ndue = 0, i, waiting;

	if (s->stopping)
		return;
	memset(&dp, 0, sizeof dp);
	dp.add_tail = &dp.add;
	dp.now_ms = clock_wall_ms();
	dp.now = dp.now_ms / 1000;
	dp.now_mono = clock_mono_ms();
	server_check_clock(s, dp.now_ms);
	server_flush(s);	/* earlier ends free slots and come first */
	while (s->nheap > 0 && s->heap[0]->due_ms <= dp.now_ms) {
		due = xreallocarray(due, ndue + 1, sizeof *due);
		due[ndue++] = s->heap[0];
		server_heap_remove(s, s->heap[0]);
	}
	if (ndue == 0)
		goto out;
	planned = xreallocarray(NULL, ndue, sizeof *planned);
	waiting = server_pend_startable(s);
	dp.room = (size_t)s->conf->max_running > s->nrunning + waiting ?
	    (size_t)s->conf->max_running - s->nrunning - waiting : 0;

	if (store_begin(s->store) == -1)
		goto busy;
	for (i = 0; i < ndue; i++) {
		struct store_job st = due[i]->st;

		if (server_dispatch_job(s, &dp, due[i], &planned[i]) == -1)
			goto rollback;
		st.planned = planned[i];
		if (schedule_kind(due[i]->def->schedule) == SCHEDULE_REBOOT)
			(void)snprintf(st.boot_id, sizeof st.boot_id, "%s",
			    s->boot_id);
		if (store_job_put(s->store, due[i]->id, &st, dp.now_ms) == -1)
			goto rollback;
	}
	if (store_commit(s->store) == -1)
		goto busy;
	server_store_ok(s);

	/* Committed: apply, then fork. */
	for (i = 0; i < ndue; i++) {
		due[i]->st.planned = planned[i];
		if (schedule_kind(due[i]->def->schedule) == SCHEDULE_REBOOT)
			(void)snprintf(due[i]->st.boot_id,
			    sizeof due[i]->st.boot_id, "%s", s->boot_id);
	}
	server_dispatch_apply(s, &dp);
	for (i = 0; i < ndue; i++) {
		if (due[i]->def == NULL)
			continue;
		if (schedule_kind(due[i]->def->schedule) != SCHEDULE_AFTER)
			server_plan(s, due[i], dp.now);
		else if (due[i]->nruns == 0 && due[i]->npending == 0) {
			/* The instance exists already: wait a full delay. */
			due[i]->last_end = dp.now;
			server_plan(s, due[i], dp.now);
		}
	}
	server_pump(s);
	goto out;

rollback:
	store_rollback(s->store);
busy:
	/* Nothing was written: put the jobs back as they were. */
	server_store_trouble(s, "dispatch");
	for (i = 0; i < ndue; i++)
		server_heap_update(s, due[i]);
	for (p = dp.add; p != NULL; p = next) {
		next = p->next;
		free(p);
	}
	for (i = 0; i < dp.nkill; i++)
		dp.kill[i]->replaced = 0;
out:
	free(due);
	free(planned);
	free(dp.kill);
	free(dp.skipped);
	server_rearm(s);
}

/*
 * Start what waits in the pending FIFO while slots are free, in order:
 * an entry whose job cannot start yet (overlap, throttle, a retry not yet
 * due) holds back the later entries of that job, not of others.
 */
static void
server_pump(struct server *s)
{
	struct pending		**pp, *p, **batch = NULL;
	struct sjob		**blocked = NULL;
	struct store_claim	  c;
	int64_t			  now_ms = clock_wall_ms();
	int64_t			  now_mono = clock_mono_ms();
	size_t			  n = 0, nblocked = 0, room, i, k;
	int			  rc, more;

	if (s->stopping || s->pend == NULL)
		goto out;
	room = (size_t)s->conf->max_running > s->nrunning ?
	    (size_t)s->conf->max_running - s->nrunning : 0;
	for (p = s->pend; p != NULL && n < room; p = p->next) {
		for (k = 0; k < nblocked && blocked[k] != p->j; k++)
			;
		if (k < nblocked)
			continue;
		for (more = 0, i = 0; i < n; i++)
			more += batch[i]->j == p->j;
		if (p->not_before > now_ms || (!p->force &&
		    !server_can_start(p->j, more, now_mono))) {
			blocked = xreallocarray(blocked, nblocked + 1,
			    sizeof *blocked);
			blocked[nblocked++] = p->j;
			continue;
		}
		batch = xreallocarray(batch, n + 1, sizeof *batch);
		batch[n++] = p;
	}
	if (n == 0)
		goto out;

	if (store_begin(s->store) == -1)
		goto busy;
	for (i = 0; i < n; i++) {
		p = batch[i];
		memset(&c, 0, sizeof c);
		c.job = p->j->id;
		c.scheduled_at = p->at;
		c.origin = p->origin;
		c.trigger = p->trigger;
		c.owner = s->owner;
		c.now_ms = now_ms;
		c.lease_until = now_ms / 1000 + s->conf->lease;
		rc = p->rowid == -1 ? store_run_claim(s->store, &c,
		    &p->claimed) : store_run_claim_id(s->store, p->rowid, &c,
		    &p->claimed);
		if (rc == -1) {
			store_rollback(s->store);
			goto busy;
		}
		p->claim = rc;
	}
	if (store_commit(s->store) == -1)
		goto busy;
	server_store_ok(s);
	for (i = 0; i < n; i++) {
		for (pp = &s->pend; *pp != batch[i]; pp = &(*pp)->next)
			;
		p = *pp;
		*pp = p->next;
		if (s->pend_tail == &p->next)
			s->pend_tail = pp;
		s->npend--;
		p->j->npending--;
		if (p->claim)
			server_start(s, p->j, &p->claimed, p->at, p->trigger);
		free(p);
	}
	goto out;
busy:
	server_store_trouble(s, "claim");
out:
	free(batch);
	free(blocked);
	server_pend_arm(s);
}

/* --- configuration ------------------------------------------------------------ */

/* Log every cause of a configuration load. */
static void
server_log_causes(const struct conf_causes *causes)
{
	struct log_job	lj = LOG_JOB_INIT;
	size_t		i;

	for (i = 0; i < causes->n; i++)
		log_job(LOG_ERR, LOG_EV_CONFIG_ERROR, &lj, "%s",
		    causes->v[i]);
}

/* Log, once per name, the files of jobs_dir that are not job files. */
static void
server_log_ignored(struct server *s)
{
	size_t i, k;

	for (i = 0; i < s->conf->nignored; i++) {
		for (k = 0; k < s->nreported; k++) {
			if (strcmp(s->reported[k], s->conf->ignored[i]) == 0)
				break;
		}
		if (k < s->nreported)
			continue;
		log_notice("%s/%s: ignored: only *.job files hold jobs",
		    s->conf->jobs_dir, s->conf->ignored[i]);
		s->reported = xreallocarray(s->reported, s->nreported + 1,
		    sizeof *s->reported);
		s->reported[s->nreported++] = xstrdup(s->conf->ignored[i]);
	}
}

/* The summary line for STATUS=. */
static void
server_status(struct server *s)
{
	char when[RFC3339_BUFSZ];

	if (s->nheap > 0)
		(void)sd_notifyf(0, "STATUS=%zu jobs, %zu running, next: %s at "
		    "%s", s->njobs, s->nrunning, s->heap[0]->id,
		    server_when(s->heap[0]->next_at, when, sizeof when));
	else
		(void)sd_notifyf(0, "STATUS=%zu jobs, %zu running, nothing "
		    "scheduled", s->njobs, s->nrunning);
}

/* Collect the stored jobs that are no longer configured. */
static void
server_forget_collect(const char *id, void *arg)
{
	struct server	*s = arg;

	if (conf_job(s->conf, id) == NULL) {
		s->forget = xreallocarray(s->forget, s->nforget + 1,
		    sizeof *s->forget);
		s->forget[s->nforget++] = xstrdup(id);
	}
}

/*
 * Forget the stored state of jobs that are no longer configured, so that
 * one added again later starts afresh, without retroactive instances.
 */
static void
server_forget(struct server *s)
{
	struct store_job	st;
	size_t			i;

	if (store_job_ids(s->store, server_forget_collect, s) == -1)
		log_warn("store: %s", store_error(s->store));
	memset(&st, 0, sizeof st);
	st.planned = -1;
	for (i = 0; i < s->nforget; i++) {
		if (store_job_put(s->store, s->forget[i], &st,
		    clock_wall_ms()) == -1)
			log_warn("store: %s", store_error(s->store));
		free(s->forget[i]);
	}
	free(s->forget);
	s->forget = NULL;
	s->nforget = 0;
}

/*
 * Make the loop's job list match s->conf: keep known jobs (re-planned
 * with their new definition), add new ones, drop removed ones (a job
 * with running processes is dropped when the last one ends).
 */
static void
server_jobs_sync(struct server *s)
{
	struct sjob		**jobs, *j;
	struct pending		**pp;
	struct store_claim	  c;
	size_t			  i;
	int64_t			  now = clock_wall_ms() / 1000;

	jobs = xreallocarray(NULL, s->conf->njobs + 1, sizeof *jobs);
	for (i = 0; i < s->conf->njobs; i++) {
		if ((j = server_job(s, s->conf->jobs[i]->id)) == NULL) {
			j = xcalloc(1, sizeof *j);
			j->id = xstrdup(s->conf->jobs[i]->id);
			j->hidx = SERVER_NONE;
			j->next_at = -1;
			j->srv = s;
			j->last_success = -1;
			ev_init(&j->overdue_w, NULL);
		}
		j->def = s->conf->jobs[i];
		jobs[i] = j;
	}

	if (store_begin(s->store) == -1)
		log_warn("store: %s: job state is saved later",
		    store_error(s->store));
	/* Jobs that are gone: what waits is dropped, what runs finishes. */
	for (i = 0; i < s->njobs; i++) {
		j = s->jobs[i];
		if (conf_job(s->conf, j->id) != NULL)
			continue;
		server_heap_remove(s, j);
		ev_timer_stop(s->loop, &j->overdue_w);
		j->def = NULL;
		for (pp = &s->pend; *pp != NULL;) {
			if ((*pp)->j != j) {
				pp = &(*pp)->next;
				continue;
			}
			memset(&c, 0, sizeof c);
			c.job = j->id;
			c.scheduled_at = (*pp)->at;
			c.origin = (*pp)->origin;
			c.now_ms = clock_wall_ms();
			(void)store_run_unqueue(s->store, &c, "abandoned",
			    "removed");
			server_pend_drop(s, pp);
		}
		log_notice("job %s: removed from the configuration%s", j->id,
		    j->nruns > 0 ? "; its running process is left to finish" :
		    "");
		s->gone = xreallocarray(s->gone, s->ngone + 1,
		    sizeof *s->gone);
		s->gone[s->ngone++] = j;
		server_gone_check(s, j);
	}
	free(s->jobs);
	s->jobs = jobs;
	s->njobs = s->conf->njobs;

	for (i = 0; i < s->njobs; i++) {
		server_job_sync(s, s->jobs[i], now);
		server_plan(s, s->jobs[i], now);
	}
	server_forget(s);
	if (store_commit(s->store) == -1)
		log_warn("store: saving job state: %s", store_error(s->store));
}

/* Reload the configuration (SIGHUP). */
static void
server_reload(struct server *s, struct control_reply *reply)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct conf		*c, *old = s->conf;
	size_t			 i;

	(void)sd_notify(0, "RELOADING=1");
	log_notice("reloading %s", s->config_path);
	c = conf_load(s->config_path, &causes);
	server_log_causes(&causes);
	for (i = 0; reply != NULL && i < causes.n; i++)
		control_line(reply, "%s", causes.v[i]);
	if (c == NULL) {
		log_err("reload failed: %s is invalid; the running "
		    "configuration stays", s->config_path);
		if (reply != NULL)
			control_err(reply, "%s is invalid: nothing changed",
			    s->config_path);
		goto out;
	}
	/* A job whose new definition is invalid keeps its old one. */
	for (i = old->njobs; i-- > 0;) {
		if (conf_job_is_bad(c, old->jobs[i])) {
			log_warn("job %s: the new definition is invalid; "
			    "keeping the previous one", old->jobs[i]->id);
			conf_keep_job(c, old, i);
		}
	}
	if (strcmp(c->state, old->state) != 0 ||
	    strcmp(c->control, old->control) != 0)
		log_warn("reload: state and control paths change only at "
		    "restart");
	s->conf = c;
	log_level = c->log_level > s->verbose ? c->log_level : s->verbose;
	server_jobs_sync(s);
	conf_free(old);
	server_log_ignored(s);
	{
		struct log_job lj = LOG_JOB_INIT;

		log_job(causes.n ? LOG_WARNING : LOG_NOTICE, LOG_EV_RELOADED,
		    &lj, "reload %s: %zu jobs, %zu errors",
		    causes.n ? "partially failed" : "done", s->njobs,
		    causes.n);
	}
	if (reply != NULL && causes.n > 0)
		control_err(reply, "reload partially failed: %zu problems; "
		    "the jobs concerned keep their previous definitions",
		    causes.n);
	else if (reply != NULL)
		control_ok(reply, "reloaded: %zu jobs", s->njobs);
	server_rearm(s);
out:
	conf_causes_free(&causes);
	(void)sd_notify(0, "READY=1");
	server_status(s);
}

/* --- the control socket (tickctl) ---------------------------------------- */

/*
 * tickctl run JOB [force]: a manual instance now, its instant the moment
 * of the request (the next free second of the job's manual instances).
 * It obeys the job's overlap policy unless forced, and the global
 * max_running always.
 */
static void
server_ctl_run(struct server *s, const char *id, int force,
    struct control_reply *r)
{
	struct sjob	*j = server_job(s, id);
	struct dispatch	 dp;
	char		 run_id[STORE_RUN_ID_MAX];
	int64_t		 at;
	int		 exists, tries;

	if (j == NULL || j->def == NULL) {
		control_err(r, "no job \"%s\"", id);
		return;
	}
	if (s->stopping) {
		control_err(r, "tickd is stopping");
		return;
	}
	memset(&dp, 0, sizeof dp);
	dp.add_tail = &dp.add;
	dp.now_ms = clock_wall_ms();
	dp.now = dp.now_ms / 1000;
	dp.now_mono = clock_mono_ms();
	dp.force = force;
	dp.room = (size_t)s->conf->max_running > s->nrunning +
	    server_pend_startable(s) ? (size_t)s->conf->max_running -
	    s->nrunning - server_pend_startable(s) : 0;
	if (store_begin(s->store) == -1)
		goto busy;
	for (at = dp.now, tries = 0; tries < 3600; at++, tries++) {
		if ((exists = store_run_exists(s->store, j->id, "manual",
		    at)) == -1)
			goto rollback;
		if (!exists)
			break;
	}
	if (server_overlap(s, &dp, j, at, "manual", "manual") == -1)
		goto rollback;
	if (store_commit(s->store) == -1)
		goto busy;
	server_store_ok(s);
	store_run_id(j->id, at, "manual", run_id, sizeof run_id);
	if (dp.nskipped > 0)
		control_err(r, "%s skipped (overlap = %s): %s; use --force",
		    run_id, policy_overlap_name(j->def->overlap), dp.why);
	else
		control_ok(r, "%s", run_id);
	server_dispatch_apply(s, &dp);
	free(dp.kill);
	free(dp.skipped);
	server_pump(s);
	return;
rollback:
	store_rollback(s->store);
busy:
	server_store_trouble(s, "manual run");
	control_err(r, "the store is not available (%s): try again",
	    store_error(s->store));
	free(dp.kill);
	free(dp.skipped);
	while (dp.add != NULL) {
		struct pending *p = dp.add;

		dp.add = p->next;
		free(p);
	}
}

/*
 * tickctl replay RUN_ID: a failed or dead instance runs again under its
 * own identity (its next attempt, trigger replay) once its job may start.
 */
static void
server_ctl_replay(struct server *s, const char *run_id,
    struct control_reply *r)
{
	struct store_requeued	 q;
	struct sjob		*j;
	char			 why[256];
	int			 rc;

	if (s->stopping) {
		control_err(r, "tickd is stopping");
		return;
	}
	if (store_begin(s->store) == -1)
		goto busy;
	if ((rc = store_run_requeue(s->store, run_id, &q, why,
	    sizeof why)) == -1) {
		store_rollback(s->store);
		goto busy;
	}
	if (rc == 0) {
		store_rollback(s->store);
		control_err(r, "%s: %s", run_id, why);
		return;
	}
	if ((j = server_job(s, q.job)) == NULL || j->def == NULL) {
		store_rollback(s->store);
		control_err(r, "%s: its job \"%s\" is not configured", run_id,
		    q.job);
		return;
	}
	if (store_commit(s->store) == -1)
		goto busy;
	server_store_ok(s);
	server_pend_add(s, j, q.scheduled_at, q.origin, "replay", q.rowid, 0);
	control_ok(r, "%s", run_id);
	server_pump(s);
	return;
busy:
	server_store_trouble(s, "replay");
	control_err(r, "the store is not available (%s): try again",
	    store_error(s->store));
}

/*
 * tickctl pause JOB / resume JOB [catch_up]: persisted across restarts.
 * Resuming plans from now, unless catch_up, which leaves the instances
 * missed while paused to the job's misfire policy.
 */
static void
server_ctl_pause(struct server *s, const char *id, int pause, int catch_up,
    struct control_reply *r)
{
	struct sjob	*j = server_job(s, id);
	struct store_job st;
	char		 when[RFC3339_BUFSZ];

	if (j == NULL || j->def == NULL) {
		control_err(r, "no job \"%s\"", id);
		return;
	}
	st = j->st;
	st.paused = pause;
	if (!pause && !catch_up)
		st.planned = clock_wall_ms() / 1000;
	if (store_job_put(s->store, j->id, &st, clock_wall_ms()) == -1) {
		server_store_trouble(s, "pause");
		control_err(r, "the store is not available (%s): try again",
		    store_error(s->store));
		return;
	}
	j->st = st;
	server_plan(s, j, clock_wall_ms() / 1000);
	server_overdue_arm(s, j);
	server_rearm(s);
	if (pause)
		control_ok(r, "%s paused%s", j->id, j->nruns > 0 ?
		    ": its running instance goes on" : "");
	else if (j->next_at >= 0)
		control_ok(r, "%s resumed: next at %s", j->id,
		    server_when(j->next_at, when, sizeof when));
	else
		control_ok(r, "%s resumed", j->id);
	log_notice("job %s: %s by tickctl", j->id, pause ? "paused" :
	    catch_up ? "resumed, with what it missed" : "resumed");
}

/* One request from tickctl. */
static void
server_control_cb(int argc, char **argv, struct control_reply *r, void *arg)
{
	struct server *s = arg;

	if (strcmp(argv[0], "ping") == 0 && argc == 1)
		control_ok(r, "%ld", (long)getpid());
	else if (strcmp(argv[0], "reload") == 0 && argc == 1)
		server_reload(s, r);
	else if (strcmp(argv[0], "run") == 0 && (argc == 2 || (argc == 3 &&
	    strcmp(argv[2], "force") == 0)))
		server_ctl_run(s, argv[1], argc == 3, r);
	else if (strcmp(argv[0], "replay") == 0 && argc == 2)
		server_ctl_replay(s, argv[1], r);
	else if (strcmp(argv[0], "pause") == 0 && argc == 2)
		server_ctl_pause(s, argv[1], 1, 0, r);
	else if (strcmp(argv[0], "resume") == 0 && (argc == 2 || (argc == 3 &&
	    strcmp(argv[2], "catch_up") == 0)))
		server_ctl_pause(s, argv[1], 0, argc == 3, r);
	else
		control_err(r, "unknown or malformed request \"%s\"", argv[0]);
}

/* --- watchers ----------------------------------------------------------------- */

static void
server_wake_cb(struct ev_loop *loop, ev_periodic *w, int revents)
{
	(void)loop;
	(void)revents;
	server_dispatch(w->data);
}

/* The store refused something: try what waits again. */
static void
server_retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server *s = w->data;

	(void)loop;
	(void)revents;
	server_flush(s);
	server_pump(s);
	server_dispatch(s);
}

/* A retry is due, or a throttle ended. */
static void
server_pend_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	server_pump(w->data);
}

/* The clock was set: the timerfd reports ECANCELED. */
static void
server_clockfd_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct server		*s = w->data;
	struct itimerspec	 its;
	uint64_t		 n;

	(void)loop;
	(void)revents;
	if (read(s->clock_fd, &n, sizeof n) == -1 && errno != ECANCELED &&
	    errno != EAGAIN)
		log_warn("clock timerfd: %s", strerror(errno));
	memset(&its, 0, sizeof its);
	its.it_value.tv_sec = clock_wall_ms() / 1000 + 10 * 366 * 86400;
	if (timerfd_settime(s->clock_fd, TFD_TIMER_ABSTIME |
	    TFD_TIMER_CANCEL_ON_SET, &its, NULL) == -1)
		log_warn("clock timerfd: %s", strerror(errno));
	ev_now_update(s->loop);
	server_dispatch(s);
	server_pump(s);
}

/* Renew the leases of running instances in one statement. */
static void
server_lease_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server *s = w->data;

	(void)loop;
	(void)revents;
	if (store_lease_renew(s->store, s->owner, clock_wall_ms() / 1000 +
	    s->conf->lease) == -1)
		log_warn("store: renewing leases: %s", store_error(s->store));
}

static void
server_watchdog_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	(void)sd_notify(0, "WATCHDOG=1");
}

/* The last resort at shutdown: kill whatever still runs. */
static void
server_kill_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server	*s = w->data;
	struct run	*r;
	size_t		 i;

	(void)loop;
	(void)revents;
	for (i = 0; i < s->njobs; i++) {
		for (r = s->jobs[i]->runs; r != NULL; r = r->next_in_job)
			(void)runner_kill_tree(r, SIGKILL);
	}
	for (i = 0; i < s->ngone; i++) {
		for (r = s->gone[i]->runs; r != NULL; r = r->next_in_job)
			(void)runner_kill_tree(r, SIGKILL);
	}
	for (r = s->hooks; r != NULL; r = r->next_in_job)
		(void)runner_kill_tree(r, SIGKILL);
}

/* Stop every run of a job list with its kill_signal and kill_grace. */
static void
server_stop_runs(struct sjob **jobs, size_t n)
{
	struct run	*r;
	size_t		 i;

	for (i = 0; i < n; i++) {
		for (r = jobs[i]->runs; r != NULL; r = r->next_in_job) {
			r->stopped = 1;
			runner_stop(r, r->kill_signal, r->kill_grace);
		}
	}
}

/*
 * Stop: no new runs; each running job gets its kill_signal, then SIGKILL
 * after its kill_grace; exit when they are gone.  What waits stays queued
 * in the store for the next start.
 */
static void
server_stop(struct server *s, int sig)
{
	struct log_job	 lj = LOG_JOB_INIT;
	struct run	*r;
	double		 grace = SERVER_KILL_GRACE;
	size_t		 i;

	if (s->stopping)
		return;
	s->stopping = 1;
	(void)sd_notify(0, "STOPPING=1");
	log_job(LOG_NOTICE, LOG_EV_DAEMON_STOPPING, &lj, "stopping on %s: "
	    "%zu job processes to end", strsignal(sig), s->nrunning);
	ev_periodic_stop(s->loop, &s->wake_w);
	ev_timer_stop(s->loop, &s->pend_w);
	server_stop_runs(s->jobs, s->njobs);
	server_stop_runs(s->gone, s->ngone);
	for (r = s->hooks; r != NULL; r = r->next_in_job)
		runner_stop(r, r->kill_signal, r->kill_grace);
	if (runner_count() == 0) {
		ev_break(s->loop, EVBREAK_ALL);
		return;
	}
	/* Past the longest kill_grace, anything left is killed. */
	for (i = 0; i < s->njobs; i++) {
		if ((double)s->jobs[i]->def->kill_grace > grace)
			grace = (double)s->jobs[i]->def->kill_grace;
	}
	ev_timer_set(&s->kill_w, grace + 1, 0);
	ev_timer_start(s->loop, &s->kill_w);
}

static void
server_signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)loop;
	(void)revents;
	switch (w->signum) {
	case SIGHUP:
		server_reload(w->data, NULL);
		break;
	case SIGTERM:
	case SIGINT:
	default:
		server_stop(w->data, w->signum);
		break;
	}
}

static void
server_child_cb(struct ev_loop *loop, ev_child *w, int revents)
{
	(void)loop;
	(void)revents;
	runner_reap(w->rpid, w->rstatus);
}

static void
server_flush_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	(void)loop;
	(void)revents;
	server_flush(w->data);
}

/* --- startup -------------------------------------------------------------------- */

/*
 * Take the lock that makes this the only tickd on its store; a second one
 * fails, naming the holder.
 */
static void
server_lock(struct server *s)
{
	char	*path = xasprintf("%s.lock", s->conf->state), buf[32];
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600)) == -1)
		fatal("%s", path);
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK)
			fatal("lock %s", path);
		n = pread(fd, buf, sizeof buf - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		fatalx("state %s is in use by another tickd (pid %s): only "
		    "one daemon may use a state database", s->conf->state,
		    buf[0] != '\0' ? buf : "unknown");
	}
	(void)snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == -1 ||
	    pwrite(fd, buf, strlen(buf), 0) != (ssize_t)strlen(buf))
		log_warn("%s: cannot record our pid: %s", path,
		    strerror(errno));
	s->lock_fd = fd;
	free(path);
}

/* Create the state file's directory if it is missing (one level). */
static void
server_state_dir(const char *state)
{
	char *dir = xstrdup(state), *slash;

	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) == -1 && errno != EEXIST)
			fatal("state directory %s", dir);
	}
	free(dir);
}

/*
 * Settle an instance a previous daemon left running: adopt its process if
 * it still lives (same pid and start time), else record the attempt as
 * interrupted and let the job's recover policy decide.
 */
static void
server_recover_one(const struct store_found *f, void *arg)
{
	struct server		*s = arg;
	struct sjob		*j = server_job(s, f->job);
	struct run		*r;
	struct wq_item		*w;
	struct log_job		 lj = LOG_JOB_INIT;
	char			*cause = NULL;
	int64_t			 now_ms = clock_wall_ms(), left, start, fstart;
	pid_t			 pid, found;
	int			 rerun;

	lj.job = f->job;
	lj.run_id = f->run_id;
	lj.attempt = f->attempt;
	pid = (pid_t)f->pid;
	start = f->pid_start;
	if (j != NULL && (pid <= 0 || start == -1 ||
	    runner_pid_start(pid) != start)) {
		/* Crashed before the pid was recorded: find it by marker. */
		if ((found = runner_find_marker(f->run_id, &fstart)) > 0) {
			pid = found;
			start = fstart;
		}
	}
	if (j != NULL && pid > 0 && start != -1) {
		r = runner_new(f->job, f->run_id, f->trigger, f->rowid,
		    f->attempt, f->scheduled_at, f->scheduled_at * 1000);
		if (runner_adopt(r, pid, start, &cause) == 0) {
			r->owner = j;
			r->started_ms = f->started_ms != -1 ? f->started_ms :
			    now_ms;
			r->started_mono = clock_mono_ms() - (now_ms -
			    r->started_ms);
			r->kill_signal = j->def->kill_signal;
			r->kill_grace = (double)j->def->kill_grace;
			r->next_in_job = j->runs;
			j->runs = r;
			j->nruns++;
			s->nrunning++;
			if (j->def->timeout > 0) {
				left = r->started_ms + j->def->timeout * 1000 -
				    now_ms;
				server_timeout_arm(s, r, (double)left / 1000.0,
				    (double)j->def->timeout);
			}
			lj.pid = pid;
			log_job(LOG_NOTICE, LOG_EV_ADOPTED, &lj, "job %s: run %s "
			    "attempt %d outlived the previous daemon: adopted, "
			    "pid %ld", f->job, f->run_id, f->attempt, (long)pid);
			return;
		}
		free(cause);
		runner_free(r);
	}
	rerun = j != NULL && j->def != NULL &&
	    j->def->recover == POLICY_RECOVER_RERUN;
	if (f->attempt > 0) {
		w = server_wq_add(s, WQ_END);
		w->end.rowid = f->rowid;
		w->end.attempt = f->attempt;
		w->end.status = rerun ? "interrupted" : "abandoned";
		w->end.reason = j == NULL ? "removed" : "restart";
		w->end.outcome = "interrupted";
		w->end.started_ms = -1;
		w->end.finished_ms = now_ms;
		w->end.lateness_ms = -1;
		w->end.exit_status = w->end.signal = -1;
		w->end.retry_at = -1;
		w->text = xstrdup("the daemon stopped while it ran, and its "
		    "process is gone");
		w->end.error = w->text;
	}
	log_job(LOG_WARNING, LOG_EV_RECOVERED, &lj, "job %s: run %s attempt "
	    "%d was interrupted by a daemon stop: %s", f->job, f->run_id,
	    f->attempt, rerun ? "rerun (recover = rerun)" : j == NULL ?
	    "abandoned (the job is gone)" : "abandoned (recover = abandon)");
	if (rerun)
		server_pend_add(s, j, f->scheduled_at, f->origin, "recover",
		    f->rowid, 0);
}

/*
 * Re-queue what a previous daemon left waiting: queued, retrying, or
 * interrupted (to be rerun) instances.
 */
static void
server_requeue_one(const struct store_found *f, void *arg)
{
	struct server	*s = arg;
	struct sjob	*j = server_job(s, f->job);

	if (j == NULL)
		return;		/* the job is gone; the row says queued */
	server_pend_add(s, j, f->scheduled_at, f->origin,
	    strcmp(f->status, "retrying") == 0 ? "retry" :
	    strcmp(f->status, "interrupted") == 0 ? "recover" :
	    strcmp(f->trigger, "catch_up") == 0 ? "catch_up" : "schedule",
	    f->rowid, f->retry_at > 0 ? f->retry_at : 0);
}

/* Tell tickctl who runs: the meta table of the store. */
static void
server_meta(struct server *s)
{
	char buf[32];

	if (store_begin(s->store) == -1)
		goto fail;
	(void)snprintf(buf, sizeof buf, "%ld", (long)getpid());
	if (store_meta_set(s->store, "pid", buf) == -1)
		goto rollback;
	(void)snprintf(buf, sizeof buf, "%lld", (long long)clock_wall_ms());
	if (store_meta_set(s->store, "since", buf) == -1 ||
	    store_meta_set(s->store, "config", s->config_path) == -1 ||
	    store_meta_set(s->store, "version", TICKD_VERSION) == -1)
		goto rollback;
	if (store_commit(s->store) == -1)
		goto fail;
	return;
rollback:
	store_rollback(s->store);
fail:
	log_warn("store: recording the daemon's pid: %s",
	    store_error(s->store));
}

/* Identity of this machine, boot and process. */
static void
server_identity(struct server *s)
{
	char host[64];

	if (server_read_line("/etc/machine-id", s->machine_id,
	    sizeof s->machine_id) == -1 && gethostname(s->machine_id,
	    sizeof s->machine_id) == -1)
		(void)snprintf(s->machine_id, sizeof s->machine_id, "tickd");
	if (server_read_line("/proc/sys/kernel/random/boot_id", s->boot_id,
	    sizeof s->boot_id) == -1)
		s->boot_id[0] = '\0';
	s->boot_time = server_boot_time();
	if (gethostname(host, sizeof host) == -1)
		(void)snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = '\0';
	(void)snprintf(s->owner, sizeof s->owner, "%s:%ld", host,
	    (long)getpid());
}

/* Start the watchers of the loop. */
static void
server_watchers(struct server *s)
{
	struct itimerspec	its;
	uint64_t		usec;

	ev_periodic_init(&s->wake_w, server_wake_cb, 0, 0, NULL);
	ev_timer_init(&s->retry_w, server_retry_cb, SERVER_RETRY, 0);
	ev_timer_init(&s->pend_w, server_pend_cb, 1, 0);
	ev_timer_init(&s->kill_w, server_kill_cb, SERVER_KILL_GRACE, 0);
	ev_timer_init(&s->lease_w, server_lease_cb, 0,
	    (double)s->conf->lease / 3);
	ev_signal_init(&s->term_w, server_signal_cb, SIGTERM);
	ev_signal_init(&s->int_w, server_signal_cb, SIGINT);
	ev_signal_init(&s->hup_w, server_signal_cb, SIGHUP);
	ev_child_init(&s->child_w, server_child_cb, 0, 0);
	ev_prepare_init(&s->flush_w, server_flush_cb);
	s->wake_w.data = s->retry_w.data = s->kill_w.data = s;
	s->lease_w.data = s->term_w.data = s->int_w.data = s;
	s->hup_w.data = s->child_w.data = s->flush_w.data = s;
	s->watchdog_w.data = s->clock_w.data = s->pend_w.data = s;
	ev_signal_start(s->loop, &s->term_w);
	ev_signal_start(s->loop, &s->int_w);
	ev_signal_start(s->loop, &s->hup_w);
	ev_child_start(s->loop, &s->child_w);
	ev_prepare_start(s->loop, &s->flush_w);

	/* Clock steps, reported by the kernel as soon as they happen. */
	s->clock_fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK |
	    TFD_CLOEXEC);
	if (s->clock_fd != -1) {
		memset(&its, 0, sizeof its);
		its.it_value.tv_sec = clock_wall_ms() / 1000 +
		    10 * 366 * 86400;
		if (timerfd_settime(s->clock_fd, TFD_TIMER_ABSTIME |
		    TFD_TIMER_CANCEL_ON_SET, &its, NULL) == -1)
			log_warn("clock timerfd: %s", strerror(errno));
		ev_io_init(&s->clock_w, server_clockfd_cb, s->clock_fd,
		    EV_READ);
		ev_io_start(s->loop, &s->clock_w);
	} else
		log_warn("timerfd: %s: clock steps are noticed at the next "
		    "wake-up only", strerror(errno));

	if (sd_watchdog_enabled(0, &usec) > 0) {
		ev_timer_init(&s->watchdog_w, server_watchdog_cb,
		    (double)usec / 2e6, (double)usec / 2e6);
		ev_timer_start(s->loop, &s->watchdog_w);
	}
}

/* Free a job list and what hangs off it. */
static void
server_jobs_free(struct sjob **jobs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(jobs[i]->id);
		free(jobs[i]);
	}
	free(jobs);
}

/*
 * Run the daemon on the configuration at path until SIGTERM or SIGINT.
 * Returns the exit status.
 */
int
server_main(const char *path, int verbose)
{
	struct server		 srv, *s = &srv;
	struct conf_causes	 causes = { NULL, 0 };
	struct log_job		 lj = LOG_JOB_INIT;
	struct pending		*p;
	char			*cause = NULL;
	size_t			 i;

	memset(s, 0, sizeof *s);
	s->config_path = path;
	s->lock_fd = s->clock_fd = -1;
	s->wq_tail = &s->wq;
	s->pend_tail = &s->pend;
	s->starting = 1;

	s->conf = conf_load(path, &causes);
	server_log_causes(&causes);
	conf_causes_free(&causes);
	if (s->conf == NULL) {
		log_err("%s is invalid: not starting", path);
		return SERVER_EXIT_CONFIG;
	}
	s->verbose = verbose;
	log_level = s->conf->log_level > verbose ? s->conf->log_level :
	    verbose;
	server_identity(s);
	server_state_dir(s->conf->state);
	server_lock(s);
	if ((s->store = store_open(s->conf->state, 0, &cause)) == NULL) {
		log_err("store: %s", cause);
		free(cause);
		return 1;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		log_warn("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	s->loop = ev_default_loop(EVFLAG_AUTO);
	if (s->loop == NULL)
		fatalx("cannot initialise the event loop");
	runner_init(s->loop, server_run_started, server_run_done, s);
	server_watchers(s);

	/* Jobs, then what a previous daemon left: settled before READY. */
	server_jobs_sync(s);
	if (store_runs_found(s->store, "running", server_recover_one,
	    s) == -1 || store_runs_found(s->store, "interrupted",
	    server_requeue_one, s) == -1 || store_runs_found(s->store,
	    "queued", server_requeue_one, s) == -1 ||
	    store_runs_found(s->store, "retrying", server_requeue_one,
	    s) == -1)
		fatalx("store: %s", store_error(s->store));
	server_flush(s);
	if (s->wq != NULL)
		fatalx("store: %s: cannot record the recovery",
		    store_error(s->store));
	server_log_ignored(s);
	s->starting = 0;
	server_check_clock(s, clock_wall_ms());
	server_meta(s);
	server_state_dir(s->conf->control);
	if ((s->control = control_open(s->loop, s->conf->control, geteuid(),
	    server_control_cb, s, &cause)) == NULL) {
		log_warn("%s: tickctl run, replay, pause, resume and reload "
		    "will not work", cause);
		free(cause);
		cause = NULL;
	}

	log_job(LOG_NOTICE, LOG_EV_DAEMON_STARTED, &lj, "ready: %zu jobs "
	    "(%zu in error), state %s, pid %ld", s->njobs, s->conf->nbad_ids +
	    s->conf->nbad_files, s->conf->state, (long)getpid());
	(void)sd_notify(0, "READY=1");
	server_status(s);
	server_pump(s);
	server_dispatch(s);

	ev_run(s->loop, 0);

	/* Stopped: write what is pending; what waits stays queued. */
	control_close(s->control);
	s->flush_after = 0;
	server_flush(s);
	if (s->wq != NULL)
		log_err("store: %s: the last records could not be written",
		    store_error(s->store));
	store_close(s->store);
	for (i = 0; i < s->njobs; i++)
		ev_timer_stop(s->loop, &s->jobs[i]->overdue_w);
	server_jobs_free(s->jobs, s->njobs);
	server_jobs_free(s->gone, s->ngone);
	free(s->heap);
	while ((p = s->pend) != NULL) {
		s->pend = p->next;
		free(p);
	}
	for (i = 0; i < s->nreported; i++)
		free(s->reported[i]);
	free(s->reported);
	conf_free(s->conf);
	if (s->clock_fd != -1)
		(void)close(s->clock_fd);
	if (s->lock_fd != -1)
		(void)close(s->lock_fd);
	log_notice("stopped");
	return 0;
}

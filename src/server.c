/*
 * server.c -- the daemon: event loop, dispatch, reload, shutdown.
 *
 * Data flow: conf (job definitions) -> one struct sjob per job with its
 * next instance -> a min-heap of due times -> one absolute ev_periodic
 * armed at the earliest -> dispatch -> claims committed in one store
 * transaction -> fork (runner.c) -> reap -> the attempt's end queued and
 * written in one transaction before the loop next sleeps.
 *
 * Wall-clock time decides when (ev_periodic follows the real-time clock;
 * a timerfd with TFD_TIMER_CANCEL_ON_SET reports clock steps at once, and
 * the wall/boot clock offset is compared at every wake-up, which also
 * catches steps libfaketime simulates); the monotonic clock measures how
 * long.  Instants are identities: the last instance planned for each job
 * is in the store, so a backward step can never make one run twice, and a
 * forward step, downtime or a busy store leaves late instances that
 * dispatch records as missed (beyond a grace of SERVER_GRACE_MS) or runs.
 *
 * Invariants: an instance is claimed in a committed transaction before its
 * process is forked; "running" means a live child in a job's run list
 * (never a counter alone); nothing is dropped when the store is busy or
 * failing: dispatch rolls back, keeps the due jobs and retries, and the
 * delay shows up as lateness.
 *
 * DIAGNOSTICS: startup problems are fatal (exit 78 for configuration, 1
 * otherwise); after startup nothing one job does can stop the daemon:
 * spawn failures are recorded as failed attempts, bad job definitions on
 * reload keep the previous good one, store failures are retried.
 */
#include <sys/file.h>
#include <sys/prctl.h>
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
#include "duration.h"
#include "envp.h"
#include "log.h"
#include "rfc3339.h"
#include "runner.h"
#include "policy.h"
#include "schedule.h"
#include "server.h"
#include "store.h"
#include "xmalloc.h"

#define SERVER_GRACE_MS		60000	/* late beyond this: missed */
#define SERVER_KILL_GRACE	10.0	/* seconds from TERM to KILL */
#define SERVER_RETRY		0.25	/* seconds before retrying the store */
#define SERVER_JUMP_MS		2000	/* clock offset change = a step */
#define SERVER_PATH		"/usr/local/sbin:/usr/local/bin:" \
				"/usr/sbin:/usr/bin:/sbin:/bin"
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
	int64_t			 last_end;	/* Unix s, "after" schedules */
};

/* A write for the store, done in the next batch transaction. */
struct wq_item {
	enum { WQ_STARTED, WQ_END, WQ_DECISION }	 kind;
	int64_t						 rowid;
	int						 attempt;
	pid_t						 pid;
	int64_t						 started_ms;
	int64_t						 lateness_ms;
	struct store_end				 end;
	struct store_decision				 dec;
	char						*text;
	char						*job;
	struct wq_item					*next;
};

/* An instance claimed later, when max_running allows. */
struct waiting {
	struct sjob	*j;
	int64_t		 at;
	int64_t		 due_ms;
	const char	*origin;
	int		 skip;		/* overlaps a run: do not start */
	struct waiting	*next;
};

/* What dispatch decided for one due job. */
struct plan {
	struct sjob		*j;
	enum { PLAN_NONE, PLAN_RUN, PLAN_QUEUE, PLAN_SKIP } action;
	int64_t			 run_at;
	int64_t			 due_ms;
	const char		*origin;
	struct policy_late	 late;
	int64_t			 miss_first, miss_last, miss_count;
	int64_t			 planned;	/* new planned mark */
	int64_t			 next_at;	/* following instance */
	struct store_claimed	 claimed;
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
	int			  store_trouble;	/* since (mono ms), 0: ok */
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
	struct waiting		 *wait;
	struct waiting		**wait_tail;
	size_t			  nwaiting;
	size_t			  nrunning;
	char			**reported;	/* ignored names logged */
	size_t			  nreported;
	char			**forget;	/* jobs to forget */
	size_t			  nforget;
	ev_periodic		  wake_w;
	ev_timer		  retry_w;
	ev_timer		  lease_w;
	ev_timer		  watchdog_w;
	ev_timer		  kill_w;
	ev_io			  clock_w;
	ev_signal		  term_w;
	ev_signal		  int_w;
	ev_signal		  hup_w;
	ev_child		  child_w;
	ev_prepare		  flush_w;
};

static void	server_dispatch(struct server *);
static void	server_start_waiting(struct server *);

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

/* Free a job the loop no longer tracks. */
static void
server_job_free(struct sjob *j)
{
	free(j->id);
	free(j);
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
	int		 rc = 0;

	if (s->wq == NULL || clock_mono_ms() < s->flush_after)
		return;
	if (store_begin(s->store) == -1)
		goto fail;
	for (w = s->wq; w != NULL && rc == 0; w = w->next) {
		switch (w->kind) {
		case WQ_STARTED:
			rc = store_attempt_started(s->store, w->rowid,
			    w->attempt, w->pid, w->started_ms, w->lateness_ms);
			break;
		case WQ_END:
			rc = store_attempt_end(s->store, &w->end);
			break;
		case WQ_DECISION:
			rc = store_decision_add(s->store, &w->dec);
			break;
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
	if (!ev_is_active(&s->retry_w)) {
		ev_timer_set(&s->retry_w, SERVER_RETRY, 0);
		ev_timer_start(s->loop, &s->retry_w);
	}
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
			if (j->nruns == 0)
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
 * new, or whose schedule, zone or DST policy changed, is planned from now:
 * it gets no retroactive instances.
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
	} else {
		memset(&j->st, 0, sizeof j->st);
		j->st.sched_hash = j->def->sched_hash;
		j->st.planned = now;
		if (found) {
			j->st.paused = st.paused;
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
}

/* --- starting and ending runs ---------------------------------------------- */

/* Build the environment of an attempt (caller frees with envp_free). */
static void
server_env(const struct job_def *d, const struct run *r, struct envp *e)
{
	char	when[RFC3339_BUFSZ], num[16];
	size_t	i;

	envp_init(e);
	envp_set(e, "PATH", SERVER_PATH);
	envp_set(e, "HOME", d->cred.home);
	envp_set(e, "USER", d->cred.user);
	envp_set(e, "LOGNAME", d->cred.user);
	envp_set(e, "SHELL", d->cred.shell);
	for (i = 0; i < d->nenv; i++)
		envp_put(e, d->env[i]);
	/* Last, so that the job's own environment cannot override them. */
	rfc3339_format_utc(r->scheduled_at, when, sizeof when);
	(void)snprintf(num, sizeof num, "%d", r->attempt);
	envp_set(e, "TICKD_JOB", r->job);
	envp_set(e, "TICKD_RUN_ID", r->run_id);
	envp_set(e, "TICKD_SCHEDULED_AT", when);
	envp_set(e, "TICKD_ATTEMPT", num);
	envp_set(e, "TICKD_TRIGGER", r->trigger);
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
	w->end.error = w->text;
	runner_log_job(r, &lj);
	log_job(LOG_ERR, LOG_EV_SPAWN_FAILED, &lj, "job %s: run %s: cannot "
	    "start: %s", r->job, r->run_id, why);
}

/* Fork the process of a claimed instance. */
static void
server_start(struct server *s, struct sjob *j, const struct store_claimed *c,
    int64_t at, int64_t due_ms, const char *trigger)
{
	const struct job_def	*d = j->def;
	struct runner_spec	 spec;
	struct envp		 env;
	struct run		*r;
	struct wq_item		*w;
	char			*cause = NULL;

	r = runner_new(j->id, c->run_id, trigger, c->rowid, c->attempt, at,
	    due_ms);
	if (d == NULL) {
		server_spawn_failed(s, r, "the job was removed from the "
		    "configuration");
		runner_free(r);
		return;
	}
	server_env(d, r, &env);
	spec.command = d->command;
	spec.envp = env.v;
	spec.cred = &d->cred;
	spec.workdir = d->workdir != NULL ? d->workdir : d->cred.home;
	if (runner_spawn(r, &spec, &cause) == -1) {
		server_spawn_failed(s, r, cause);
		free(cause);
		envp_free(&env);
		runner_free(r);
		if (schedule_kind(d->schedule) == SCHEDULE_AFTER) {
			/* No process to wait for: the delay counts from now. */
			j->last_end = clock_wall_ms() / 1000;
			server_plan(s, j, j->last_end);
		}
		return;
	}
	envp_free(&env);
	r->owner = j;
	r->next_in_job = j->runs;
	j->runs = r;
	j->nruns++;
	if (s->nrunning++ == 0)		/* leases need renewing from now */
		ev_timer_again(s->loop, &s->lease_w);

	w = server_wq_add(s, WQ_STARTED);
	w->rowid = r->rowid;
	w->attempt = r->attempt;
	w->pid = r->pid;
	w->started_ms = r->started_ms;
	w->lateness_ms = r->started_ms - r->scheduled_at * 1000;
}

/* A run's program is executing (runner.c calls this once exec worked). */
static void
server_run_started(struct run *r, void *arg)
{
	struct log_job lj;

	(void)arg;
	runner_log_job(r, &lj);
	lj.lateness_ms = r->started_ms - r->scheduled_at * 1000;
	log_job(LOG_INFO, LOG_EV_STARTED, &lj, "job %s: run %s attempt %d "
	    "started, pid %ld, %" PRId64 " ms after its instant", r->job,
	    r->run_id, r->attempt, (long)r->pid, lj.lateness_ms);
}

/* A run's process ended (runner.c calls this after the reap). */
static void
server_run_done(struct run *r, void *arg)
{
	struct server	 *s = arg;
	struct sjob	 *j = r->owner, **jp;
	struct run	**rp;
	struct wq_item	 *w = server_wq_add(s, WQ_END);
	struct log_job	  lj;
	int64_t		  now_ms = clock_wall_ms();
	char		  why[256];
	int		  prio = LOG_INFO, ev = LOG_EV_SUCCEEDED, st = r->wstatus;

	for (rp = &j->runs; *rp != NULL; rp = &(*rp)->next_in_job) {
		if (*rp == r) {
			*rp = r->next_in_job;
			break;
		}
	}
	j->nruns--;
	if (--s->nrunning == 0)		/* idle: no wake-ups at all */
		ev_timer_stop(s->loop, &s->lease_w);

	w->end.rowid = r->rowid;
	w->end.attempt = r->attempt;
	w->end.started_ms = r->started_ms;
	w->end.finished_ms = now_ms;
	w->end.lateness_ms = r->started_ms - r->scheduled_at * 1000;
	w->end.exit_status = -1;
	w->end.signal = -1;
	runner_log_job(r, &lj);
	lj.duration_ms = clock_mono_ms() - r->started_mono;
	if (r->spawn_failed) {
		(void)snprintf(why, sizeof why, "%s: %s",
		    child_stage_name(r->report.stage),
		    strerror(r->report.error));
		w->text = xstrdup(why);
		w->end.status = "failed";
		w->end.reason = "spawn";
		w->end.outcome = "spawn_failed";
		w->end.error = w->text;
		log_job(LOG_ERR, LOG_EV_SPAWN_FAILED, &lj, "job %s: run %s: "
		    "cannot start: %s", r->job, r->run_id, why);
	} else {
		if (WIFEXITED(st)) {
			w->end.exit_status = lj.exit_status = WEXITSTATUS(st);
			w->end.status = WEXITSTATUS(st) == 0 ? "succeeded" :
			    "failed";
			w->end.reason = WEXITSTATUS(st) == 0 ? NULL : "exit";
		} else {
			w->end.signal = lj.signal = WTERMSIG(st);
			w->end.status = "failed";
			w->end.reason = "signal";
		}
		/* Asked to stop by our shutdown: terminated, whatever it did. */
		if (s->stopping) {
			w->end.status = "terminated";
			w->end.reason = "shutdown";
		}
		w->end.outcome = w->end.status;
		if (strcmp(w->end.status, "succeeded") != 0) {
			prio = LOG_WARNING;
			ev = s->stopping ? LOG_EV_TERMINATED : LOG_EV_FAILED;
		}
		if (WIFEXITED(st))
			log_job(prio, ev, &lj, "job %s: run %s attempt %d %s "
			    "(exit %d) after %" PRId64 " ms", r->job,
			    r->run_id, r->attempt, w->end.status,
			    WEXITSTATUS(st), lj.duration_ms);
		else
			log_job(prio, ev, &lj, "job %s: run %s attempt %d %s "
			    "(signal %d, %s) after %" PRId64 " ms", r->job,
			    r->run_id, r->attempt, w->end.status, WTERMSIG(st),
			    strsignal(WTERMSIG(st)), lj.duration_ms);
	}

	if (j->def != NULL &&
	    schedule_kind(j->def->schedule) == SCHEDULE_AFTER) {
		j->last_end = now_ms / 1000;
		server_plan(s, j, now_ms / 1000);
	}
	runner_free(r);
	if (j->def == NULL && j->nruns == 0) {
		/* Removed by a reload while it ran: forget it now. */
		for (jp = s->jobs; jp < s->jobs + s->njobs; jp++) {
			if (*jp == j)
				break;
		}
		if (jp == s->jobs + s->njobs)
			server_job_free(j);
	}
	if (s->stopping) {
		if (s->nrunning == 0)
			ev_break(s->loop, EVBREAK_ALL);
		return;
	}
	server_start_waiting(s);
	server_rearm(s);
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
		    "was stepped %s by %s: instances jumped over are late, "
		    "none already run will run again", d > 0 ? "forward" :
		    "back", buf);
	} else if (s->susp_off != 0 && soff - s->susp_off > SERVER_JUMP_MS) {
		duration_format((soff - s->susp_off) / 1000, buf, sizeof buf);
		log_job(LOG_NOTICE, LOG_EV_CLOCK_JUMP, &lj, "resumed after a "
		    "suspend of about %s", buf);
	}
	s->clock_off = off;
	s->susp_off = soff;
}

/* Decide what to do with one due job (no side effects). */
static void
server_decide(struct server *s, struct plan *p, int64_t now, int64_t now_ms,
    size_t *starting)
{
	struct sjob		*j = p->j;
	const struct job_def	*d = j->def;
	int64_t			 delay;

	p->action = PLAN_NONE;
	p->run_at = -1;
	p->origin = "schedule";
	p->planned = j->st.planned;
	p->next_at = -1;
	p->miss_count = 0;
	switch (schedule_kind(d->schedule)) {
	case SCHEDULE_REBOOT:
		p->origin = "reboot";
		/* FALLTHROUGH */
	case SCHEDULE_AFTER:
		/* One instance, never "late": it runs whenever it is due. */
		p->run_at = j->next_at;
		p->due_ms = j->due_ms;
		p->planned = j->next_at;
		break;
	case SCHEDULE_CRON:
	case SCHEDULE_EVERY:
		policy_scan(d->schedule, d->tz, d->gap, d->fold, j->next_at,
		    now, &p->late);
		p->next_at = p->late.next;
		if (p->late.count == 0) {
			p->next_at = j->next_at;
			return;
		}
		p->planned = p->late.last;
		delay = d->random_delay > 0 ? policy_random_delay(s->machine_id,
		    j->id, p->late.last, d->random_delay, p->late.next) : 0;
		p->due_ms = (p->late.last + delay) * 1000;
		if (now_ms - p->due_ms <= SERVER_GRACE_MS) {
			p->run_at = p->late.last;
			if (p->late.count > 1) {
				p->miss_first = p->late.first;
				p->miss_last = p->late.prev;
				p->miss_count = p->late.count - 1;
			}
		} else {
			p->miss_first = p->late.first;
			p->miss_last = p->late.last;
			p->miss_count = p->late.count;
		}
		break;
	}
	if (p->run_at < 0)
		return;
	if (j->nruns > 0)
		p->action = PLAN_SKIP;		/* overlap: skip */
	else if (s->nwaiting > 0 ||
	    s->nrunning + *starting >= (size_t)s->conf->max_running)
		p->action = PLAN_QUEUE;
	else {
		p->action = PLAN_RUN;
		(*starting)++;
	}
}

/* Write one plan inside the dispatch transaction; 0 or -1. */
static int
server_plan_write(struct server *s, struct plan *p, int64_t now_ms)
{
	struct store_claim	c;
	struct store_decision	dec;
	struct store_job	st = p->j->st;
	int			rc;

	if (p->miss_count > 0) {
		dec.job = p->j->id;
		dec.decision = "missed";
		dec.reason = "misfire";
		dec.first_at = p->miss_first;
		dec.last_at = p->miss_last;
		dec.count = p->miss_count;
		dec.now_ms = now_ms;
		dec.run_rowid = -1;
		if (store_decision_add(s->store, &dec) == -1)
			return -1;
	}
	c.job = p->j->id;
	c.scheduled_at = p->run_at;
	c.origin = p->origin;
	c.trigger = "schedule";
	c.owner = s->owner;
	c.now_ms = now_ms;
	c.lease_until = now_ms / 1000 + s->conf->lease;
	switch (p->action) {
	case PLAN_RUN:
		if ((rc = store_run_claim(s->store, &c, &p->claimed)) == -1)
			return -1;
		if (rc == 0)
			p->action = PLAN_NONE;	/* it exists: it ran */
		break;
	case PLAN_QUEUE:
		if ((rc = store_run_queue(s->store, &c)) == -1)
			return -1;
		if (rc == 0)
			p->action = PLAN_NONE;
		break;
	case PLAN_SKIP:
		dec.job = p->j->id;
		dec.decision = "skipped";
		dec.reason = "overlap";
		dec.first_at = dec.last_at = p->run_at;
		dec.count = 1;
		dec.now_ms = now_ms;
		dec.run_rowid = p->j->runs != NULL ? p->j->runs->rowid : -1;
		if (store_decision_add(s->store, &dec) == -1)
			return -1;
		break;
	case PLAN_NONE:
		break;
	}
	st.planned = p->planned;
	if (strcmp(p->origin, "reboot") == 0)
		(void)snprintf(st.boot_id, sizeof st.boot_id, "%s",
		    s->boot_id);
	return store_job_put(s->store, p->j->id, &st, now_ms);
}

/* Log what a plan decided about instances that do not run now. */
static void
server_plan_log(struct plan *p)
{
	struct log_job	lj = LOG_JOB_INIT;
	char		a[RFC3339_BUFSZ], b[RFC3339_BUFSZ];

	lj.job = p->j->id;
	if (p->miss_count > 0) {
		lj.scheduled_at = p->miss_last;
		log_job(LOG_WARNING, LOG_EV_MISSED, &lj, "job %s: %s%" PRId64
		    " instance%s from %s to %s missed: %s (daemon down, "
		    "suspend, clock step or busy store)", p->j->id,
		    p->late.capped ? "at least " : "", p->miss_count,
		    p->miss_count == 1 ? "" : "s",
		    server_when(p->miss_first, a, sizeof a),
		    server_when(p->miss_last, b, sizeof b), p->run_at >= 0 ?
		    "found late, and only the newest due instance runs" :
		    "found more than 60s late");
	}
	lj.scheduled_at = p->run_at;
	if (p->action == PLAN_SKIP)
		log_job(LOG_WARNING, LOG_EV_SKIPPED, &lj, "job %s: instance %s "
		    "skipped: run %s is still running", p->j->id,
		    server_when(p->run_at, a, sizeof a), p->j->runs->run_id);
	else if (p->action == PLAN_QUEUE)
		log_job(LOG_NOTICE, LOG_EV_NONE, &lj, "job %s: instance %s "
		    "waits: max_running reached", p->j->id,
		    server_when(p->run_at, a, sizeof a));
}

/* Queue an instance in memory (it is queued in the store too). */
static void
server_wait_add(struct server *s, struct sjob *j, int64_t at, int64_t due_ms,
    const char *origin)
{
	struct waiting *w = xcalloc(1, sizeof *w);

	w->j = j;
	w->at = at;
	w->due_ms = due_ms;
	w->origin = strcmp(origin, "reboot") == 0 ? "reboot" : "schedule";
	*s->wait_tail = w;
	s->wait_tail = &w->next;
	s->nwaiting++;
}

/*
 * Handle every job that is due: decide, write every decision and claim in
 * one transaction, then fork.  If the store refuses, nothing changes and
 * dispatch is retried after SERVER_RETRY.
 */
static void
server_dispatch(struct server *s)
{
	struct plan	*plans = NULL;
	size_t		 n = 0, i, starting = 0;
	int64_t		 now_ms = clock_wall_ms(), now = now_ms / 1000;

	if (s->stopping)
		return;
	server_check_clock(s, now_ms);
	server_flush(s);	/* earlier ends free slots and come first */
	while (s->nheap > 0 && s->heap[0]->due_ms <= now_ms) {
		plans = xreallocarray(plans, n + 1, sizeof *plans);
		memset(&plans[n], 0, sizeof *plans);
		plans[n].j = s->heap[0];
		server_heap_remove(s, s->heap[0]);
		server_decide(s, &plans[n], now, now_ms, &starting);
		n++;
	}
	if (n == 0)
		goto out;

	if (store_begin(s->store) == -1)
		goto busy;
	for (i = 0; i < n; i++) {
		if (server_plan_write(s, &plans[i], now_ms) == -1) {
			store_rollback(s->store);
			goto busy;
		}
	}
	if (store_commit(s->store) == -1)
		goto busy;
	server_store_ok(s);

	/* Committed: apply, then fork. */
	for (i = 0; i < n; i++) {
		struct plan *p = &plans[i];

		p->j->st.planned = p->planned;
		if (strcmp(p->origin, "reboot") == 0)
			(void)snprintf(p->j->st.boot_id,
			    sizeof p->j->st.boot_id, "%s", s->boot_id);
		server_plan_log(p);
		if (p->action == PLAN_QUEUE)
			server_wait_add(s, p->j, p->run_at, p->due_ms,
			    p->origin);
		if (p->action == PLAN_RUN)
			server_start(s, p->j, &p->claimed, p->run_at,
			    p->due_ms, "schedule");
		if (p->j->def == NULL)
			continue;
		if (schedule_kind(p->j->def->schedule) != SCHEDULE_AFTER)
			server_plan(s, p->j, now);
		else if (p->action == PLAN_NONE) {
			/* The instance exists already: wait a full delay. */
			p->j->last_end = now;
			server_plan(s, p->j, now);
		}
	}
	goto out;

busy:
	/* Nothing was written: put the jobs back as they were. */
	server_store_trouble(s, "dispatch");
	for (i = 0; i < n; i++)
		server_heap_update(s, plans[i].j);
	ev_timer_set(&s->retry_w, SERVER_RETRY, 0);
	ev_timer_start(s->loop, &s->retry_w);
out:
	free(plans);
	server_rearm(s);
}

/*
 * Claim and start queued instances while slots are free.  An instance
 * whose job is running by then is skipped (overlap), as it would have
 * been had it not waited.
 */
static void
server_start_waiting(struct server *s)
{
	struct waiting		*w, *batch = NULL, **bt = &batch;
	struct store_claim	 c;
	struct store_claimed	*cl = NULL;
	struct log_job		 lj = LOG_JOB_INIT;
	size_t			 n = 0, i;
	int64_t			 now_ms = clock_wall_ms(), rowid;
	char			 when[RFC3339_BUFSZ];
	int			 rc;

	while (s->wait != NULL && s->nrunning + n <
	    (size_t)s->conf->max_running) {
		w = s->wait;
		s->wait = w->next;
		s->nwaiting--;
		w->next = NULL;
		*bt = w;
		bt = &w->next;
		n++;
	}
	if (s->wait == NULL)
		s->wait_tail = &s->wait;
	if (n == 0)
		return;
	cl = xcalloc(n, sizeof *cl);
	if (store_begin(s->store) == -1)
		goto busy;
	for (w = batch, i = 0; w != NULL; w = w->next, i++) {
		c.job = w->j->id;
		c.scheduled_at = w->at;
		c.origin = w->origin;
		c.trigger = "schedule";
		c.owner = s->owner;
		c.now_ms = now_ms;
		c.lease_until = now_ms / 1000 + s->conf->lease;
		cl[i].rowid = -1;
		if (w->j->nruns > 0 || w->skip) {
			w->skip = 1;
			if ((rowid = store_run_unqueue(s->store, &c, "skipped",
			    "overlap")) == -1)
				goto rollback;
			continue;
		}
		if ((rc = store_run_claim(s->store, &c, &cl[i])) == -1)
			goto rollback;
		if (rc == 0)
			cl[i].rowid = -1;
		else	/* later ones of this job in the batch overlap it */
			for (struct waiting *o = w->next; o; o = o->next)
				o->skip |= o->j == w->j;
	}
	if (store_commit(s->store) == -1)
		goto busy;
	server_store_ok(s);
	for (w = batch, i = 0; w != NULL; w = batch, i++) {
		batch = w->next;
		if (cl[i].rowid != -1)
			server_start(s, w->j, &cl[i], w->at, w->due_ms,
			    "schedule");
		else if (w->skip) {
			lj.job = w->j->id;
			lj.scheduled_at = w->at;
			log_job(LOG_WARNING, LOG_EV_SKIPPED, &lj, "job %s: "
			    "queued instance %s skipped: the job is running",
			    w->j->id, server_when(w->at, when, sizeof when));
		}
		free(w);
	}
	free(cl);
	return;

rollback:
	store_rollback(s->store);
busy:
	/* Put the batch back at the head of the queue, in order. */
	server_store_trouble(s, "claim");
	for (w = batch; w != NULL; w = w->next)
		w->skip = 0;
	*bt = s->wait;
	if (s->wait == NULL)
		s->wait_tail = bt;
	s->wait = batch;
	s->nwaiting += n;
	free(cl);
	if (!ev_is_active(&s->retry_w)) {
		ev_timer_set(&s->retry_w, SERVER_RETRY, 0);
		ev_timer_start(s->loop, &s->retry_w);
	}
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
	struct sjob	**jobs, *j;
	size_t		  i, k = 0;
	int64_t		  now = clock_wall_ms() / 1000;

	jobs = xreallocarray(NULL, s->conf->njobs + 1, sizeof *jobs);
	for (i = 0; i < s->conf->njobs; i++) {
		if ((j = server_job(s, s->conf->jobs[i]->id)) == NULL) {
			j = xcalloc(1, sizeof *j);
			j->id = xstrdup(s->conf->jobs[i]->id);
			j->hidx = SERVER_NONE;
			j->next_at = -1;
		}
		j->def = s->conf->jobs[i];
		jobs[i] = j;
	}
	/* Jobs that are gone. */
	for (i = 0; i < s->njobs; i++) {
		j = s->jobs[i];
		if (conf_job(s->conf, j->id) != NULL)
			continue;
		server_heap_remove(s, j);
		j->def = NULL;
		log_notice("job %s: removed from the configuration%s", j->id,
		    j->nruns > 0 ? "; its running process is left to finish" :
		    "");
		if (j->nruns == 0)
			server_job_free(j);
		k++;
	}
	free(s->jobs);
	s->jobs = jobs;
	s->njobs = s->conf->njobs;

	if (store_begin(s->store) == -1)
		log_warn("store: %s: job state is saved later",
		    store_error(s->store));
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
server_reload(struct server *s)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct conf		*c, *old = s->conf;
	size_t			 i;

	(void)sd_notify(0, "RELOADING=1");
	log_notice("reloading %s", s->config_path);
	c = conf_load(s->config_path, &causes);
	server_log_causes(&causes);
	if (c == NULL) {
		log_err("reload failed: %s is invalid; the running "
		    "configuration stays", s->config_path);
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
	server_rearm(s);
out:
	conf_causes_free(&causes);
	(void)sd_notify(0, "READY=1");
	server_status(s);
}

/* --- watchers ----------------------------------------------------------------- */

static void
server_wake_cb(struct ev_loop *loop, ev_periodic *w, int revents)
{
	(void)loop;
	(void)revents;
	server_dispatch(w->data);
}

static void
server_retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server *s = w->data;

	(void)loop;
	(void)revents;
	server_flush(s);
	server_start_waiting(s);
	server_dispatch(s);
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

/* After the grace period, kill what is left of the jobs. */
static void
server_kill_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server	*s = w->data;
	struct run	*r;
	size_t		 i;

	(void)loop;
	(void)revents;
	for (i = 0; i < s->njobs; i++) {
		for (r = s->jobs[i]->runs; r != NULL; r = r->next_in_job) {
			log_warn("job %s: run %s did not stop: SIGKILL",
			    r->job, r->run_id);
			runner_signal(r, SIGKILL);
		}
	}
}

/* Stop: no new runs; TERM the running ones; exit when they are gone. */
static void
server_stop(struct server *s, int sig)
{
	struct log_job	 lj = LOG_JOB_INIT;
	struct run	*r;
	size_t		 i;

	if (s->stopping)
		return;
	s->stopping = 1;
	(void)sd_notify(0, "STOPPING=1");
	log_job(LOG_NOTICE, LOG_EV_DAEMON_STOPPING, &lj, "stopping on %s: "
	    "%zu job processes to end", strsignal(sig), s->nrunning);
	ev_periodic_stop(s->loop, &s->wake_w);
	for (i = 0; i < s->njobs; i++) {
		for (r = s->jobs[i]->runs; r != NULL; r = r->next_in_job)
			runner_signal(r, SIGTERM);
	}
	if (s->nrunning == 0) {
		ev_break(s->loop, EVBREAK_ALL);
		return;
	}
	ev_timer_set(&s->kill_w, SERVER_KILL_GRACE, 0);
	ev_timer_start(s->loop, &s->kill_w);
}

static void
server_signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)loop;
	(void)revents;
	switch (w->signum) {
	case SIGHUP:
		server_reload(w->data);
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

/* Re-queue instances a previous daemon left waiting for a slot. */
static void
server_requeue(const char *job, int64_t at, const char *origin,
    const char *trigger, void *arg)
{
	struct server	*s = arg;
	struct sjob	*j = server_job(s, job);

	(void)trigger;
	if (j == NULL)
		return;		/* the job is gone; the row says queued */
	server_wait_add(s, j, at, at * 1000, origin);
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
	s->watchdog_w.data = s->clock_w.data = s;
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
	char			*cause = NULL;
	int			 n;
	size_t			 i;

	memset(s, 0, sizeof *s);
	s->config_path = path;
	s->lock_fd = s->clock_fd = -1;
	s->wq_tail = &s->wq;
	s->wait_tail = &s->wait;
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
	if ((n = store_runs_interrupt(s->store, clock_wall_ms(),
	    "restart")) == -1)
		fatalx("store: %s", store_error(s->store));
	if (n > 0)
		log_warn("%d instances were running when the previous daemon "
		    "stopped: recorded as interrupted", n);

	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		log_warn("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	s->loop = ev_default_loop(EVFLAG_AUTO);
	if (s->loop == NULL)
		fatalx("cannot initialise the event loop");
	runner_init(s->loop, server_run_started, server_run_done, s);
	server_watchers(s);

	server_jobs_sync(s);
	if (store_runs_queued(s->store, server_requeue, s) == -1)
		fatalx("store: %s", store_error(s->store));
	server_log_ignored(s);
	s->starting = 0;
	server_check_clock(s, clock_wall_ms());

	log_job(LOG_NOTICE, LOG_EV_DAEMON_STARTED, &lj, "ready: %zu jobs "
	    "(%zu in error), state %s, pid %ld", s->njobs, s->conf->nbad_ids +
	    s->conf->nbad_files, s->conf->state, (long)getpid());
	(void)sd_notify(0, "READY=1");
	server_status(s);
	server_start_waiting(s);
	server_dispatch(s);

	ev_run(s->loop, 0);

	/* Stopped: write what is pending, give up what is queued. */
	s->flush_after = 0;
	server_flush(s);
	if (s->wq != NULL)
		log_err("store: %s: the last records could not be written",
		    store_error(s->store));
	store_close(s->store);
	for (i = 0; i < s->njobs; i++)
		server_job_free(s->jobs[i]);
	free(s->jobs);
	free(s->heap);
	while (s->wait != NULL) {
		struct waiting *w = s->wait;

		s->wait = w->next;
		free(w);
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

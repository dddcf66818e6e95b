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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
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
#include "log.h"
#include "policy.h"
#include "rfc3339.h"
#include "runner.h"
#include "server.h"
#include "server-int.h"
#include "statelock.h"
#include "store.h"
#include "track.h"
#include "xmalloc.h"

/* --- the heap of due times ------------------------------------------------ */

/* Whether job a is due before job b (ties: by id, for a stable order). */
int
server_heap_less(const struct sjob *a, const struct sjob *b)
{
	if (a->due_ms != b->due_ms)
		return a->due_ms < b->due_ms;
	return strcmp(a->id, b->id) < 0;
}

void
server_heap_set(struct server *s, size_t i, struct sjob *j)
{
	s->heap[i] = j;
	j->hidx = i;
}

/* Restore the heap order around slot i. */
void
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
void
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

/* How many jobs are due at now_ms, counted up to limit. */
size_t
server_heap_due(const struct server *s, int64_t now_ms, size_t limit)
{
	size_t	stack[64], top = 0, i, n = 0;

	/* Depth first: a due slot's children may be due, others' are not. */
	if (s->nheap > 0)
		stack[top++] = 0;
	while (top > 0 && n < limit) {
		i = stack[--top];
		if (s->heap[i]->due_ms > now_ms)
			continue;
		n++;
		if (2 * i + 1 < s->nheap && top < 64)
			stack[top++] = 2 * i + 1;
		if (2 * i + 2 < s->nheap && top < 64)
			stack[top++] = 2 * i + 2;
	}
	return n;
}

/* Put a job in the heap (or move it) at its due_ms. */
void
server_heap_update(struct server *s, struct sjob *j)
{
	if (j->hidx == SERVER_NONE) {
		s->heap = xreallocarray(s->heap, s->nheap + 1,
		    sizeof *s->heap);
		server_heap_set(s, s->nheap++, j);
	}
	server_heap_fix(s, j->hidx);
}

/*
 * Arm the wake-up at the earliest due time, ahead_ms before it (its
 * claims are committed ahead: server_ahead) unless that instant is known
 * not to be claimed ahead, or at the instant that processes claimed
 * ahead wait for (server_hold) if that is earlier, or stop it.  Beside the
 * absolute periodic, a monotonic timerfd for the same moment: for 0.5 s
 * after reading the real-time clock libev interpolates it from the
 * monotonic one, so right after a step forward it can place the periodic
 * hours away, and nothing would run until something else woke the loop.
 * The timerfd is also the precise one (nanoseconds, where libev's epoll
 * wait rounds up to the next millisecond).  Whichever fires first
 * dispatches; the other is re-armed.
 */
void
server_rearm(struct server *s)
{
	struct itimerspec	its;
	int64_t			after, want = -1;

	/*
	 * Armed already for that moment (every run's end asks): nothing to
	 * do.  server_dispatch, where every wake-up lands, forgets it.
	 */
	if (s->nheap > 0 && !s->stopping && !ev_is_active(&s->retry_w)) {
		want = s->heap[0]->due_ms;
		if (want != s->no_ahead)
			want -= s->ahead_ms;
	}
	/* Processes claimed ahead wait for their instant (server_hold). */
	if (s->held != NULL && !s->stopping && (want == -1 ||
	    s->held_at < want))
		want = s->held_at;
	if (want == s->armed_ms)
		return;
	s->armed_ms = want;
	ev_periodic_stop(s->loop, &s->wake_w);
	memset(&its, 0, sizeof its);		/* disarmed */
	if (want != -1) {
		ev_periodic_set(&s->wake_w, (double)want / 1000.0, 0, NULL);
		ev_periodic_start(s->loop, &s->wake_w);
		/* Not from a millisecond clock: that wakes up to 1 ms late. */
		after = want * 1000000 - clock_wall_ns();
		if (after > 0) {
			its.it_value.tv_sec = after / 1000000000;
			its.it_value.tv_nsec = after % 1000000000;
		} else
			its.it_value.tv_nsec = 1;	/* now (0 disarms) */
	}
	if (timerfd_settime(s->wake_fd, 0, &its, NULL) == -1)
		log_warn("wake-up timerfd: %s", strerror(errno));
}

/* --- small helpers --------------------------------------------------------- */

/* Read the first line of a small file into buf; 0 or -1. */
int
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
int64_t
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
struct sjob *
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
const char *
server_when(int64_t t, char *buf, size_t len)
{
	rfc3339_format_utc(t, buf, len);
	return buf;
}

/* --- the store write queue -------------------------------------------------- */

struct wq_item *
server_wq_add(struct server *s, int kind)
{
	struct wq_item *w = xcalloc(1, sizeof *w);

	w->kind = kind;
	*s->wq_tail = w;
	s->wq_tail = &w->next;
	return w;
}

void
server_wq_free(struct wq_item *w)
{
	free(w->text);
	free(w->detail);
	free(w->tail);
	free(w->job);
	free(w->cgroup);
	free(w->ids);
	free(w->settled.failed);
	free(w);
}

/* Note a store failure: log it once per episode, retry later. */
void
server_store_trouble(struct server *s, const char *what)
{
	struct log_job lj = LOG_JOB_INIT;

	if (!s->store_trouble) {
		s->store_trouble = 1;
		s->trouble_since = clock_mono_ms();
		s->trouble_wall = clock_wall_ms();
		log_job(store_busy(s->store) ? LOG_WARNING : LOG_ERR,
		    LOG_EV_STORE_BUSY, &lj, "store %s: %s: runs are delayed "
		    "until it is available", what, store_error(s->store));
		server_status(s);
	}
	if (!ev_is_active(&s->retry_w)) {
		ev_timer_set(&s->retry_w, SERVER_RETRY, 0);
		ev_timer_start(s->loop, &s->retry_w);
	}
}

/* The store works again: say how long it did not. */
void
server_store_ok(struct server *s)
{
	char d[DURATION_BUFSZ];

	if (!s->store_trouble)
		return;
	s->store_trouble = 0;
	duration_format((clock_mono_ms() - s->trouble_since) / 1000, d,
	    sizeof d);
	log_notice("store available again after %s", d);
	server_status(s);
}

/*
 * An end refused: another node took the instance over after this one's
 * lease expired (its attempt number grew).  Said, and dropped: the record
 * is the new owner's.  Returns 0 (written, as far as the queue goes).
 */
static int
server_fenced(const struct wq_item *w)
{
	struct log_job lj = LOG_JOB_INIT;

	lj.attempt = w->end.attempt;
	log_job(LOG_ERR, LOG_EV_NONE, &lj, "run row %lld attempt %d: its end "
	    "(%s) was refused: another node took the instance over after "
	    "this node's lease expired", (long long)w->end.rowid,
	    w->end.attempt, w->end.status);
	return 0;
}

/*
 * Write the queued items inside the open transaction, as a part of it
 * that fails alone when part is set: 1 written (server_wq_committed frees
 * them after the commit), 0 nothing to write yet, -1 failed and undone
 * (the queue stays and is tried again after SERVER_RETRY; the rest of the
 * transaction goes on).  A dispatch carries them in its claim
 * transaction: one fsync, not two.  A transaction of their own needs no
 * part: two round trips fewer to a server.
 */
int
server_wq_write(struct server *s, int part)
{
	struct wq_item		*w;
	struct store_claim	 c;
	int64_t			 begun = clock_mono_ms();
	int			 rc = 0;

	if (s->wq == NULL || begun < s->flush_after)
		return 0;
	if (part && store_part_begin(s->store) == -1)
		goto fail;
	for (w = s->wq; w != NULL && rc == 0; w = w->next) {
		/*
		 * A slow store: the rest at the next flush, timers first;
		 * all of it at the start (the recovery) and at the stop.
		 */
		if (w != s->wq && !s->starting && !s->stopping &&
		    server_spent(begun)) {
			ev_idle_start(s->loop, &s->more_w);
			break;
		}
		s->wq_last = w;
		switch (w->kind) {
		case WQ_STARTED:
			rc = store_attempt_started(s->store, w->rowid,
			    w->attempt, w->pid, w->pid_start, w->started_ms,
			    w->lateness_ms, w->cgroup);
			break;
		case WQ_END:
			if ((rc = store_attempt_end(s->store, &w->end)) == 1)
				rc = server_fenced(w);
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
			    s->conf->history_keep - server_prune_margin(s),
			    SERVER_PRUNE_CHUNK) == -1 ?
			    -1 : 0;
			break;
		case WQ_ABANDON:
			memset(&c, 0, sizeof c);
			c.job = w->job;
			c.scheduled_at = w->at;
			c.origin = w->origin;
			c.now_ms = w->started_ms;
			rc = store_run_unqueue(s->store, &c, "abandoned",
			    "removed") == -1 ? -1 : 0;
			break;
		case WQ_NOTE:
			memset(&c, 0, sizeof c);
			c.job = w->job;
			c.scheduled_at = w->at;
			c.origin = w->origin;
			rc = store_run_note(s->store, &c, w->detail);
			break;
		case WQ_BATCH:
			free(w->ids);
			w->ids = NULL;
			if ((rc = store_batch_begin(s->store, &w->batch,
			    &w->ids)) >= 0) {
				w->done = rc;
				rc = 0;
			}
			break;
		case WQ_SETTLE:
			free(w->settled.failed);
			w->settled.failed = NULL;
			if ((rc = store_batch_settle(s->store, w->rowid,
			    clock_wall_ms(), &w->settled)) >= 0) {
				w->done = rc;
				rc = 0;
			}
			break;
		case WQ_CHECKPOINT:
			rc = store_checkpoint_put(s->store, w->rowid,
			    w->attempt, w->tail, w->end.tail_len);
			break;
		case WQ_BATCH_STOP:
			rc = store_batch_abandon(s->store, w->rowid, w->text,
			    w->detail, w->started_ms) == -1 ? -1 : 0;
			break;
		}
	}
	if ((part && store_part_end(s->store, rc == 0) == -1) || rc == -1)
		goto fail;
	return 1;
fail:
	server_store_trouble(s, "write");
	s->flush_after = clock_mono_ms() + (int64_t)(SERVER_RETRY * 1000);
	return -1;
}

/*
 * The transaction in which server_wq_write answered `wrote` committed:
 * drop what it wrote, keep what was queued since; the store works again
 * unless the write queue's part failed.
 */
void
server_wq_committed(struct server *s, int wrote)
{
	struct wq_item	*w;
	int		 last = 0;

	if (wrote == -1)
		return;
	server_store_ok(s);
	while (wrote == 1 && !last && (w = s->wq) != NULL) {
		last = w == s->wq_last;
		s->wq = w->next;
		/* What a batch's write decided, acted on out of the pass. */
		if (w->kind == WQ_BATCH || (w->kind == WQ_SETTLE &&
		    w->done > 0)) {
			w->next = s->wq_after;
			s->wq_after = w;
			server_pend_soon(s);
		} else
			server_wq_free(w);
	}
	if (s->wq == NULL)
		s->wq_tail = &s->wq;
	s->wq_last = NULL;
}

/*
 * Act on the batch writes that committed (server_wq_committed keeps
 * them aside: inside a pass, a batch's end would change the FIFO the
 * pass walks).  Oldest first.
 */
static void
server_wq_after(struct server *s)
{
	struct wq_item *w, *rev = NULL;

	while ((w = s->wq_after) != NULL) {
		s->wq_after = w->next;
		w->next = rev;
		rev = w;
	}
	while ((w = rev) != NULL) {
		rev = w->next;
		server_batch_written(s, w);
		server_wq_free(w);
	}
}

/*
 * Write every queued item in one transaction of its own, and prune by
 * age hourly.  On failure nothing is lost: the queue stays and is tried
 * again after SERVER_RETRY.
 */
void
server_flush(struct server *s)
{
	int	wrote, n, rc = 0;

	if (s->wq == NULL || clock_mono_ms() < s->flush_after)
		return;
	if (store_begin(s->store) == -1)
		goto fail;
	if ((wrote = server_wq_write(s, 0)) == -1) {
		store_rollback(s->store);
		return;
	}
	/* Retention by age: hourly, in bounded chunks. */
	if (s->prune_again || clock_mono_ms() - s->pruned_at > 3600 * 1000) {
		n = store_prune_age(s->store, clock_wall_ms() -
		    s->conf->history_max_age * 1000, SERVER_PRUNE_CHUNK);
		if (n == -1)
			rc = -1;
		else {
			s->prune_again = n >= SERVER_PRUNE_CHUNK;
			s->pruned_at = clock_mono_ms();
			/* Give back what bursts left (tickd.c keeps it). */
			(void)malloc_trim(0);
		}
	}
	if (rc == -1) {
		store_rollback(s->store);
		goto fail;
	}
	if (store_commit(s->store) == -1)
		goto fail;
	server_wq_committed(s, wrote);
	return;
fail:
	server_store_trouble(s, "write");
	s->flush_after = clock_mono_ms() + (int64_t)(SERVER_RETRY * 1000);
}

/* Queue a decision row about instances that do not run. */
void
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
void
server_job_save(struct server *s, struct sjob *j)
{
	struct wq_item *w = server_wq_add(s, WQ_JOB);

	w->job = xstrdup(j->id);
	w->job_st = j->st;
}

/* --- configuration ------------------------------------------------------------ */

/*
 * Split a configuration message "file:line: text": the length of file,
 * the line, and a pointer to text; NULL if it names no line.
 */
static const char *
server_cause_split(const char *cause, size_t *flen, long *line)
{
	const char	*p, *d;

	if ((p = strstr(cause, ": ")) == NULL)
		return NULL;
	for (d = p; d > cause && d[-1] >= '0' && d[-1] <= '9'; d--)
		;
	if (d == p || d - 1 <= cause || d[-1] != ':')
		return NULL;
	*flen = (size_t)(d - 1 - cause);
	*line = strtol(d, NULL, 10);
	return p + 2;
}

/*
 * The job a configuration message is about, so that the journal finds it
 * by TICKD_JOB: the job, valid or not, whose section in the file holds
 * the line the message names; for a message about a section header
 * ("[id]: duplicate job id"), the job of that id.  NULL for tickd.conf, a
 * file as a whole, or no c.  A section that is no job (an invalid or
 * duplicate id) is not known here: a message about a line inside one goes
 * to the job before it in the file.
 */
static const char *
server_cause_job(const struct conf *c, const char *cause)
{
	const char	*best = NULL, *id, *where, *text, *end;
	size_t		 flen, n = 0, i;
	long		 line, start, top = 0;

	if (c == NULL || (text = server_cause_split(cause, &flen,
	    &line)) == NULL)
		return NULL;
	if (text[0] == '[' && (end = strchr(text, ']')) != NULL)
		n = (size_t)(end - text - 1);
	for (i = 0; i < c->njobs + c->nbad_ids; i++) {
		if (i < c->njobs) {
			id = c->jobs[i]->id;
			where = c->jobs[i]->file;	/* its line is ->line */
		} else {
			id = c->bad_ids[i - c->njobs];
			where = c->bad_where[i - c->njobs];
		}
		if (n > 0) {
			if (strncmp(id, text + 1, n) == 0 && id[n] == '\0')
				return id;
			continue;
		}
		if (where == NULL || strncmp(where, cause, flen) != 0 ||
		    where[flen] != (i < c->njobs ? '\0' : ':'))
			continue;
		start = i < c->njobs ? c->jobs[i]->line :
		    strtol(where + flen + 1, NULL, 10);
		if (start <= line && start > top) {
			best = id;
			top = start;
		}
	}
	return n > 0 ? NULL : best;
}

/* Log every cause of a configuration load (c: what it loaded, or NULL). */
void
server_log_causes(const struct conf *c, const struct conf_causes *causes)
{
	struct log_job	lj = LOG_JOB_INIT;
	size_t		i;

	for (i = 0; i < causes->n; i++) {
		lj.job = server_cause_job(c, causes->v[i]);
		log_job(LOG_ERR, LOG_EV_CONFIG_ERROR, &lj, "%s",
		    causes->v[i]);
	}
}

/* Log the warnings of a configuration load (valid, worth a look). */
void
server_log_warnings(const struct conf *c)
{
	struct log_job	lj = LOG_JOB_INIT;
	size_t		i;

	for (i = 0; i < c->warnings.n; i++) {
		lj.job = server_cause_job(c, c->warnings.v[i]);
		log_job(LOG_WARNING, LOG_EV_NONE, &lj, "%s",
		    c->warnings.v[i]);
	}
}

/* Log, once per name, the files of jobs_dir that are not job files. */
void
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
		log_notice("%s/%s: ignored: %s", s->conf->jobs_dir,
		    s->conf->ignored[i], conf_ignored_why(s->conf->ignored[i]));
		s->reported = xreallocarray(s->reported, s->nreported + 1,
		    sizeof *s->reported);
		s->reported[s->nreported++] = xstrdup(s->conf->ignored[i]);
	}
}

/* The summary line for STATUS=. */
void
server_status(struct server *s)
{
	char when[RFC3339_BUFSZ];

	if (s->store_trouble)
		(void)sd_notifyf(0, "STATUS=store unavailable since %s: runs "
		    "are delayed (%s); %zu jobs, %zu running",
		    server_when(s->trouble_wall / 1000, when, sizeof when),
		    store_error(s->store), s->njobs, s->nrunning);
	else if (s->nheap > 0)
		(void)sd_notifyf(0, "STATUS=%zu jobs, %zu running, next: %s at "
		    "%s", s->njobs, s->nrunning, s->heap[0]->id,
		    server_when(s->heap[0]->next_at, when, sizeof when));
	else
		(void)sd_notifyf(0, "STATUS=%zu jobs, %zu running, nothing "
		    "scheduled", s->njobs, s->nrunning);
}

/* The walk of server_forget: the configuration, where it is, what to forget. */
struct server_forget_walk {
	const struct conf	 *c;
	size_t			  at;
	char			**ids;
	size_t			  nids;
};

/*
 * Collect the stored jobs that are no longer configured.  The store gives
 * them in id order, as the configuration has its jobs: one walk along
 * both (a search per id was a twentieth of a reload of 100,000 jobs).
 */
static void
server_forget_collect(const char *id, void *arg)
{
	struct server_forget_walk	*fw = arg;
	int				 cmp = 1;

	while (fw->at < fw->c->njobs && (cmp = strcmp(fw->c->jobs[fw->at]->id,
	    id)) < 0)
		fw->at++;
	if (fw->at < fw->c->njobs && cmp == 0)
		fw->at++;
	else if (conf_job(fw->c, id) == NULL) {	/* out of order: searched */
		fw->ids = xreallocarray(fw->ids, fw->nids + 1,
		    sizeof *fw->ids);
		fw->ids[fw->nids++] = xstrdup(id);
	}
}

/*
 * Forget the stored state of jobs that are no longer configured, so that
 * one added again later starts afresh, without retroactive instances.
 */
void
server_forget(struct server *s)
{
	struct server_forget_walk	 fw = { s->conf, 0, NULL, 0 };
	struct store_job		 st;
	size_t				 i;

	if (store_job_ids(s->store, server_forget_collect, &fw) == -1)
		log_warn("store: %s", store_error(s->store));
	memset(&st, 0, sizeof st);
	st.planned = -1;
	for (i = 0; i < fw.nids; i++) {
		if (store_job_put(s->store, fw.ids[i], &st,
		    clock_wall_ms()) == -1)
			log_warn("store: %s", store_error(s->store));
		free(fw.ids[i]);
	}
	free(fw.ids);
}

/*
 * Tell tickctl status how many jobs the daemon loaded and how many are in
 * error (meta "jobs", "jobs_in_error": the ids defined but invalid, the
 * rows "error" of tickctl list): the files may have changed since.
 * Inside the caller's transaction; before the pid at start, so that a
 * pid tickctl sees as this daemon's comes with this daemon's counts.
 */
static void
server_meta_jobs(struct server *s)
{
	char buf[32];

	(void)snprintf(buf, sizeof buf, "%zu", s->njobs);
	if (store_meta_set(s->store, "jobs", buf) == 0) {
		(void)snprintf(buf, sizeof buf, "%zu", s->conf->nbad_ids);
		if (store_meta_set(s->store, "jobs_in_error", buf) == 0)
			return;
	}
	log_warn("store: recording the number of jobs: %s",
	    store_error(s->store));
}

/*
 * A job added back while processes of its removed definition still run
 * (in s->gone): take it back, or NULL.  It owns them again, so its
 * overlap policy, max_parallel and max_running count them, replace stops
 * them, and their ends are its own.  Its stored state was forgotten at
 * the removal (server_forget): read again, so that it starts afresh.
 */
static struct sjob *
server_gone_take(struct server *s, const char *id)
{
	struct log_job	 lj = LOG_JOB_INIT;
	struct sjob	*j;
	size_t		 i;

	for (i = 0; i < s->ngone; i++) {
		if (strcmp(s->gone[i]->id, id) != 0)
			continue;
		j = s->gone[i];
		s->gone[i] = s->gone[--s->ngone];
		j->loaded = 0;
		lj.job = j->id;
		log_job(LOG_NOTICE, LOG_EV_NONE, &lj, "job %s: added back "
		    "while %d process%s of its removed definition run%s: %s "
		    "its own again", j->id, j->nruns, j->nruns == 1 ? "" :
		    "es", j->nruns == 1 ? "s" : "", j->nruns == 1 ? "it is" :
		    "they are");
		return j;
	}
	return NULL;
}

/*
 * Make the loop's job list match s->conf: keep known jobs (re-planned
 * with their new definition), add new ones (or take back removed ones
 * whose processes still run), drop removed ones (a job with running
 * processes is dropped when the last one ends).
 */
void
server_jobs_sync(struct server *s)
{
	struct sjob		**jobs, **gone, *j;
	struct pending		**pp;
	struct wq_item		 *w;
	struct log_job		  lj = LOG_JOB_INIT;
	size_t			  i, k = 0, ngone = 0;
	int64_t			  now = clock_wall_ms() / 1000;
	int			  begun, wrote = 0, cmp = 1;

	/*
	 * The old and the new jobs are both in id order: one walk pairs
	 * them, where a search per job made a reload of 100,000 jobs spend
	 * a tenth of its time in strcmp.
	 */
	jobs = xreallocarray(NULL, s->conf->njobs + 1, sizeof *jobs);
	gone = xreallocarray(NULL, s->njobs + 1, sizeof *gone);
	for (i = 0; i < s->conf->njobs; i++) {
		while (k < s->njobs && (cmp = strcmp(s->jobs[k]->id,
		    s->conf->jobs[i]->id)) < 0)
			gone[ngone++] = s->jobs[k++];
		if (k < s->njobs && cmp == 0)
			j = s->jobs[k++];
		else if ((j = server_gone_take(s, s->conf->jobs[i]->id)) ==
		    NULL) {
			j = xcalloc(1, sizeof *j);
			j->id = xstrref(s->conf->jobs[i]->id);
			j->hidx = SERVER_NONE;
			j->next_at = -1;
			j->srv = s;
			j->last_success = -1;
		}
		j->def = s->conf->jobs[i];
		jobs[i] = j;
	}

	/*
	 * What waits in the write queue first, in the same transaction: a
	 * job's state queued before the reload must not be written after
	 * the state the reload gives it.
	 */
	if ((begun = store_begin(s->store) == 0))
		wrote = server_wq_write(s, 1);
	else
		log_warn("store: %s: job state is saved later",
		    store_error(s->store));
	/* Jobs that are gone: what waits is dropped, what runs finishes. */
	while (k < s->njobs)
		gone[ngone++] = s->jobs[k++];
	for (i = 0; i < ngone; i++) {
		j = gone[i];
		server_heap_remove(s, j);
		server_overdue_stop(s, j);
		j->def = NULL;
		for (pp = &s->pend; *pp != NULL;) {
			if ((*pp)->j != j) {
				pp = &(*pp)->next;
				continue;
			}
			/*
			 * Through the write queue, after what is queued
			 * there: a retry planned by an end not yet written
			 * must be written before it can be abandoned.
			 */
			w = server_wq_add(s, WQ_ABANDON);
			w->job = xstrdup(j->id);
			w->at = (*pp)->at;
			(void)snprintf(w->obuf, sizeof w->obuf, "%s",
			    (*pp)->origin);
			w->origin = w->obuf;
			w->started_ms = clock_wall_ms();
			if ((*pp)->parent > 0)
				server_batch_settle_later(s, (*pp)->parent,
				    j->id);
			server_pend_drop(s, pp);
		}
		lj.job = j->id;
		log_job(LOG_NOTICE, LOG_EV_NONE, &lj, "job %s: removed from "
		    "the configuration%s", j->id, j->nruns > 0 ?
		    "; its running process is left to finish" : "");
		s->gone = xreallocarray(s->gone, s->ngone + 1,
		    sizeof *s->gone);
		s->gone[s->ngone++] = j;
		server_gone_check(s, j);
	}
	free(gone);
	free(s->jobs);
	s->jobs = jobs;
	s->njobs = s->conf->njobs;

	for (i = 0; i < s->njobs; i++) {
		server_job_sync(s, s->jobs[i], now);
		server_plan(s, s->jobs[i], now);
	}
	server_forget(s);
	server_meta_jobs(s);
	if (store_commit(s->store) == -1)
		log_warn("store: saving job state: %s", store_error(s->store));
	else if (begun)
		server_wq_committed(s, wrote);
}

/* Reload the configuration (SIGHUP). */
void
server_reload(struct server *s, struct control_reply *reply)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct conf		*c, *old = s->conf;
	size_t			 i;

	(void)sd_notify(0, "RELOADING=1");
	log_notice("reloading %s", s->config_path);
	c = conf_reload(s->config_path, old, &causes);
	server_log_causes(c, &causes);
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
	log_debug("reload: %zu of %zu job files unchanged, their jobs taken "
	    "unread", c->nreused, c->nfiles);
	server_log_warnings(c);
	for (i = 0; reply != NULL && i < c->warnings.n; i++)
		control_line(reply, "warning: %s", c->warnings.v[i]);
	/* A job whose new definition is invalid keeps its old one. */
	for (i = old->njobs; i-- > 0;) {
		if (conf_job_is_bad(c, old->jobs[i])) {
			struct log_job lj = LOG_JOB_INIT;

			lj.job = old->jobs[i]->id;
			log_job(LOG_WARNING, LOG_EV_NONE, &lj, "job %s: the new "
			    "definition is invalid; keeping the previous one",
			    old->jobs[i]->id);
			conf_keep_job(c, old, i);
		}
	}
	if (strcmp(c->state, old->state) != 0 ||
	    strcmp(c->control, old->control) != 0)
		log_warn("reload: state and control paths change only at "
		    "restart");
	if ((c->cgroup == NULL) != (old->cgroup == NULL) || (c->cgroup !=
	    NULL && strcmp(c->cgroup, old->cgroup) != 0))
		log_warn("reload: cgroup changes only at restart");
	s->conf = c;
	if (s->cluster)
		server_cluster_defs(s);
	log_level = c->log_level > s->verbose ? c->log_level : s->verbose;
	if (c->max_running != old->max_running)
		server_slots_check(s);
	server_jobs_sync(s);
	conf_free(old);
	server_metrics_apply(s);
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
	(void)malloc_trim(0);	/* the old configuration's memory */
out:
	conf_causes_free(&causes);
	(void)sd_notify(0, "READY=1");
	server_status(s);
}

/* --- watchers ----------------------------------------------------------------- */

void
server_wake_cb(struct ev_loop *loop, ev_periodic *w, int revents)
{
	(void)loop;
	(void)revents;
	server_dispatch(w->data);
}

void
server_wake_fd_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct server	*s = w->data;
	uint64_t	 n;

	(void)loop;
	(void)revents;
	(void)read(s->wake_fd, &n, sizeof n);	/* EAGAIN: re-armed since */
	server_dispatch(s);
}

/* The store refused something: try what waits again. */
void
server_retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server *s = w->data;

	(void)loop;
	(void)revents;
	/*
	 * This timer is the back-off: it was armed from the loop's cached
	 * time, flush_after from the clock a little later, and a flush that
	 * still saw itself too early re-armed nothing: after a lock on an
	 * idle daemon, queued records (ends of runs) waited for the next
	 * event, a job's instant hours away.
	 */
	s->flush_after = 0;
	server_flush(s);
	server_pump(s);
	server_dispatch(s);
}

/* A retry is due, or a throttle ended. */
void
server_pend_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	server_wq_after(w->data);
	server_pump(w->data);
}

/* The clock was set: the timerfd reports ECANCELED. */
void
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
void
server_lease_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server *s = w->data;

	(void)loop;
	(void)revents;
	server_ckpt_save_all(s);	/* written at the next flush */
	if (store_lease_renew(s->store, s->owner, clock_wall_ms() / 1000 +
	    s->conf->lease) == -1)
		log_warn("store: renewing leases: %s", store_error(s->store));
	else if (s->cluster) {
		server_cluster_renewed(s);
		server_cluster_stops(s);
	}
}

void
server_watchdog_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	(void)sd_notify(0, "WATCHDOG=1");
}

/* The last resort at shutdown: kill whatever still runs. */
void
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

/*
 * Nothing runs any more, and no sweep is to come: while stopping, that
 * is the end.
 */
static void
server_idle(void *arg)
{
	struct server *s = arg;

	if (s->stopping && s->nrunning == 0)
		ev_break(s->loop, EVBREAK_ALL);
}

/* Stop every run of a job list with its kill_signal and kill_grace. */
void
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
void
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
	ev_io_stop(s->loop, &s->wake_fd_w);
	ev_timer_stop(s->loop, &s->pend_w);
	server_held_drop(s);
	server_stop_runs(s->jobs, s->njobs);
	server_stop_runs(s->gone, s->ngone);
	runner_finish();
	for (r = s->hooks; r != NULL; r = r->next_in_job)
		runner_stop(r, r->kill_signal, r->kill_grace);
	if (runner_busy() == 0) {
		ev_break(s->loop, EVBREAK_ALL);
		return;
	}
	/* Past the longest kill_grace, anything left is killed. */
	for (i = 0; i < s->njobs; i++) {
		if ((double)s->jobs[i]->def->pol->kill_grace > grace)
			grace = (double)s->jobs[i]->def->pol->kill_grace;
	}
	ev_timer_set(&s->kill_w, grace + 1, 0);
	ev_timer_start(s->loop, &s->kill_w);
}

void
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

/*
 * SIGCHLD: reap every child that ended, with its resource usage (wait4:
 * the main process's CPU time and peak memory, the accounting of a job
 * without a cgroup).  One signal may stand for many children.
 */
void
server_child_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct rusage	ru;
	pid_t		pid;
	int		status;

	(void)loop;
	(void)w;
	(void)revents;
	for (;;) {
		memset(&ru, 0, sizeof ru);
		pid = wait4(-1, &status, WNOHANG, &ru);
		if (pid == -1 && errno == EINTR)
			continue;
		if (pid <= 0)
			break;
		server_test_stop(SERVER_TEST_REAP);	/* end not queued */
		runner_reap(pid, status, &ru);
	}
}

/*
 * A test hook for the two crash windows a random SIGKILL seldom hits:
 * TICKD_TEST_STOP=claim stops the daemon (SIGSTOP) after a claim was
 * committed, before its process is forked; =reap after a child was
 * reaped, before its end is queued.  Once, at the first such point; the
 * test then kills it (tests/integration/t_crash_windows.sh).  And
 * TICKD_TEST_AHEAD_MS=N claims instants N ms ahead instead of
 * SERVER_AHEAD_MS, a window wide enough for a test to act in
 * (t_daemon_ahead.sh).  Read once at startup.
 */
static int	server_test_at;

void
server_test_init(struct server *s)
{
	const char	*v = getenv("TICKD_TEST_AHEAD_MS");
	char		*end;
	long		 n;

	s->ahead_ms = SERVER_AHEAD_MS;
	if (v != NULL && *v != '\0') {
		n = strtol(v, &end, 10);
		if (*end != '\0' || n < 0 || n > 60000)
			log_warn("TICKD_TEST_AHEAD_MS=%s: not 0 to 60000, "
			    "ignored", v);
		else {
			s->ahead_ms = n;
			log_warn("TICKD_TEST_AHEAD_MS=%s: a test hook, instants "
			    "are claimed %ld ms ahead", v, n);
		}
	}
	v = getenv("TICKD_TEST_STOP");
	if (v == NULL || *v == '\0')
		return;
	if (strcmp(v, "claim") == 0)
		server_test_at = SERVER_TEST_CLAIM;
	else if (strcmp(v, "reap") == 0)
		server_test_at = SERVER_TEST_REAP;
	else {
		log_warn("TICKD_TEST_STOP=%s: not claim or reap, ignored", v);
		return;
	}
	log_warn("TICKD_TEST_STOP=%s: a test hook, this daemon will stop "
	    "itself", v);
}

void
server_test_stop(int at)
{
	if (server_test_at != at)
		return;
	server_test_at = 0;
	log_warn("TICKD_TEST_STOP: stopping (SIGSTOP)");
	(void)raise(SIGSTOP);
}

/* Work was put off: the loop goes on without waiting. */
static void
server_more_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	(void)revents;
	ev_idle_stop(loop, w);
}

/* Whether the store work begun at since (mono ms) has had its budget. */
int
server_spent(int64_t since)
{
	return clock_mono_ms() - since > SERVER_PASS_BUDGET;
}

/* A loop iteration begins (the first callback after the poll). */
static void
server_woke_cb(struct ev_loop *loop, ev_check *w, int revents)
{
	struct server *s = w->data;

	(void)loop;
	(void)revents;
	s->woke_ms = clock_mono_ms();
}

/*
 * Whether a store pass (SERVER_TURN_*) may run now: this loop iteration
 * has not yet spent SERVER_PASS_BUDGET, or the pass was put off once
 * already.  A slow server then holds the loop's timers up by about one
 * pass, not by every pass of an iteration.  Put off, the caller arranges
 * to be called again; the loop comes back at once.  Only with a server:
 * a local file answers without a network between, and putting passes off
 * there halved what a loaded daemon claimed (t_ctl_busy under the
 * sanitizers: 124 of 250 instants ran, 250 without).
 */
int
server_turn(struct server *s, int pass)
{
	if (s->cluster && !(s->owed & pass) && server_spent(s->woke_ms)) {
		s->owed |= pass;
		ev_idle_start(s->loop, &s->more_w);
		return 0;
	}
	s->owed &= ~pass;
	return 1;
}

void
server_flush_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	struct server	*s = w->data;
	int64_t		 now_ms = clock_wall_ms();

	(void)loop;
	(void)revents;
	/* A burst goes on in the next iteration: its claims carry the queue. */
	if (s->burst > 0 && !s->stopping && s->nheap > 0 &&
	    s->heap[0]->due_ms <= now_ms)
		return;
	if (s->wq != NULL && !server_turn(s, SERVER_TURN_FLUSH))
		return;
	server_flush(s);
	/* The WAL is copied back when idle, not inside a claim's commit. */
	if ((s->nheap == 0 || s->heap[0]->due_ms - now_ms >=
	    SERVER_CKPT_IDLE_MS) && store_checkpoint(s->store,
	    SERVER_CKPT_PAGES) == -1)
		log_debug("store checkpoint: %s (tried again later)",
		    store_error(s->store));
}

/* --- startup -------------------------------------------------------------------- */

/*
 * Take the lock that makes this the only tickd on its database, under
 * whatever name (statelock.c); a second one fails, naming the holder.
 * -1 (logged) when the database is refused.
 */
static int
server_lock(struct server *s)
{
	char	*cause = NULL, file[PATH_MAX + 16] = "", pid[32] = "";
	long	 holder;

	switch (statelock_take(s->state, s->lock_fd, &holder, &cause)) {
	case 0:
		return 0;
	case 1:
		if (holder > 0)
			(void)snprintf(pid, sizeof pid, " (pid %ld)", holder);
		if (store_is_server(s->conf->state))
			fatalx("node lock %s is in use by another tickd%s: "
			    "one daemon per control socket", s->state, pid);
		if (strcmp(s->state, s->conf->state) != 0)
			(void)snprintf(file, sizeof file, " (the file %s)",
			    s->state);
		fatalx("state %s%s is in use by another tickd%s: only one "
		    "daemon may use a state database", s->conf->state, file,
		    pid);
	default:
		log_err("state %s: not starting", cause);
		free(cause);
		return -1;
	}
}

/* Create the state file's directory if it is missing (one level). */
void
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

static const char *server_state_suffix[] = { "", "-wal", "-shm" };

/*
 * Whether the directory of the state at path is tickd's alone.  Whoever
 * can write in it can swap the database (what ran, the pids recovery
 * signals); whoever can read the database reads every job's output.  It
 * must be owned by tickd's user or root and not writable by group or
 * others: else -1, logged.
 */
static int
server_state_dir_safe(const char *state)
{
	struct stat	 st;
	uid_t		 uid = geteuid();
	char		*dir = xstrdup(state), *slash, who[64];
	int		 rc = -1;

	if ((slash = strrchr(dir, '/')) == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir)
		slash[1] = '\0';	/* "/tickd.db": the root directory */
	else
		*slash = '\0';
	if (uid == 0)
		(void)snprintf(who, sizeof who, "root");
	else
		(void)snprintf(who, sizeof who, "uid %ld or root", (long)uid);
	if (stat(dir, &st) == -1) {
		log_err("state directory %s: %s: not starting", dir,
		    strerror(errno));
		goto out;
	}
	if ((st.st_uid != uid && st.st_uid != 0) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		log_err("state directory %s: refused: it must be owned by %s "
		    "and not writable by group or others (owner uid %ld, mode "
		    "%04o): not starting", dir, who, (long)st.st_uid,
		    (unsigned)(st.st_mode & 07777));
		goto out;
	}
	rc = 0;
out:
	free(dir);
	return rc;
}

/*
 * Whether the state named name (as configured), which resolves to real
 * (statelock_path), is safe: the directory of each name owned by tickd's
 * user or root and not writable by group or others (whoever can write
 * where the name is could point it elsewhere, or where the file is, swap
 * it), and the database, its -wal and its -shm owned by tickd's user:
 * else -1, logged.  Their modes are server_state_private's, once the
 * store is open.
 */
static int
server_state_safe(const char *name, const char *real)
{
	struct stat	 st;
	uid_t		 uid = geteuid();
	char		*path;
	size_t		 i;

	if ((strcmp(name, real) != 0 && server_state_dir_safe(name) == -1) ||
	    server_state_dir_safe(real) == -1)
		return -1;
	for (i = 0; i < sizeof server_state_suffix /
	    sizeof server_state_suffix[0]; i++) {
		path = xasprintf("%s%s", real, server_state_suffix[i]);
		/* Missing: made 0600; not a file: SQLite says so. */
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_uid != uid) {
			log_err("state %s: refused: it must be owned by uid %ld, "
			    "tickd's (owner uid %ld): not starting", path,
			    (long)uid, (long)st.st_uid);
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

/*
 * Narrow to 0600, with a warning, the mode of a database, -wal or -shm
 * that lets group or others in (made before tickd created its own 0600,
 * or by hand).  Only once store_open accepted the file: a file it refuses
 * is left exactly as it was, for its recovery.
 */
static void
server_state_private(const char *state)
{
	struct stat	 st;
	char		*path;
	size_t		 i;

	for (i = 0; i < sizeof server_state_suffix /
	    sizeof server_state_suffix[0]; i++) {
		path = xasprintf("%s%s", state, server_state_suffix[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 077) != 0) {
			if (chmod(path, S_IRUSR | S_IWUSR) == -1)
				log_warn("state %s: mode %04o lets group or "
				    "others in, and chmod 0600 failed: %s",
				    path, (unsigned)(st.st_mode & 07777),
				    strerror(errno));
			else
				log_warn("state %s: mode %04o let group or "
				    "others in; now 0600", path,
				    (unsigned)(st.st_mode & 07777));
		}
		free(path);
	}
}

/* Identity of this machine, boot and process. */
void
server_identity(struct server *s)
{
	char host[CONF_NODE_MAX];

	if (server_read_line("/etc/machine-id", s->machine_id,
	    sizeof s->machine_id) == -1 && gethostname(s->machine_id,
	    sizeof s->machine_id) == -1)
		(void)snprintf(s->machine_id, sizeof s->machine_id, "tickd");
	if (server_read_line("/proc/sys/kernel/random/boot_id", s->boot_id,
	    sizeof s->boot_id) == -1)
		s->boot_id[0] = '\0';
	s->boot_time = server_boot_time();
	conf_node(s->conf, host, sizeof host);
	(void)snprintf(s->node, sizeof s->node, "%s", host);
	(void)snprintf(s->owner, sizeof s->owner, "%s:%ld", host,
	    (long)getpid());
}

/* Start the watchers of the loop. */
void
server_watchers(struct server *s)
{
	struct itimerspec	its;
	uint64_t		usec;

	ev_periodic_init(&s->wake_w, server_wake_cb, 0, 0, NULL);
	if ((s->wake_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
	    TFD_CLOEXEC)) == -1)
		fatal("timerfd_create");
	ev_io_init(&s->wake_fd_w, server_wake_fd_cb, s->wake_fd, EV_READ);
	s->wake_fd_w.data = s;
	ev_timer_init(&s->retry_w, server_retry_cb, SERVER_RETRY, 0);
	ev_timer_init(&s->pend_w, server_pend_cb, 1, 0);
	ev_timer_init(&s->kill_w, server_kill_cb, SERVER_KILL_GRACE, 0);
	/* With nodes, a renewal that fails must leave time to fence. */
	ev_timer_init(&s->lease_w, server_lease_cb, 0,
	    (double)s->conf->lease / (s->cluster ? 4 : 3));
	ev_timer_init(&s->fence_w, server_cluster_fence_cb, 0, 0);
	ev_timer_init(&s->cluster_w, server_cluster_cb, 0,
	    (double)s->conf->lease / 3);
	ev_timer_init(&s->batch_w, server_batch_cb, 0, SERVER_BATCH_SCAN);
	ev_signal_init(&s->term_w, server_signal_cb, SIGTERM);
	ev_signal_init(&s->int_w, server_signal_cb, SIGINT);
	ev_signal_init(&s->hup_w, server_signal_cb, SIGHUP);
	ev_signal_init(&s->chld_w, server_child_cb, SIGCHLD);
	ev_prepare_init(&s->flush_w, server_flush_cb);
	ev_idle_init(&s->more_w, server_more_cb);
	/*
	 * What waits on the store (dispatch, the FIFO's claims, the
	 * cluster's beat) comes after what must not wait for it (runs'
	 * timeouts and kills, their output, their ends, signals, tickctl)
	 * when both are due in one loop iteration: a slow server delays
	 * the latter by what is left of an iteration, not by all of it.
	 */
	ev_set_priority(&s->wake_w, SERVER_PRI_STORE);
	ev_set_priority(&s->wake_fd_w, SERVER_PRI_STORE);
	ev_set_priority(&s->retry_w, SERVER_PRI_STORE);
	ev_set_priority(&s->pend_w, SERVER_PRI_STORE);
	ev_set_priority(&s->cluster_w, SERVER_PRI_STORE);
	ev_set_priority(&s->batch_w, SERVER_PRI_STORE);
	ev_io_start(s->loop, &s->wake_fd_w);
	ev_check_init(&s->woke_w, server_woke_cb);
	ev_set_priority(&s->woke_w, EV_MAXPRI);
	s->woke_w.data = s->more_w.data = s;
	ev_check_start(s->loop, &s->woke_w);
	s->woke_ms = clock_mono_ms();
	s->wake_w.data = s->retry_w.data = s->kill_w.data = s;
	s->lease_w.data = s->term_w.data = s->int_w.data = s;
	s->cluster_w.data = s->fence_w.data = s->batch_w.data = s;
	s->hup_w.data = s->chld_w.data = s->flush_w.data = s;
	s->watchdog_w.data = s->clock_w.data = s->pend_w.data = s;
	ev_signal_start(s->loop, &s->term_w);
	ev_signal_start(s->loop, &s->int_w);
	ev_signal_start(s->loop, &s->hup_w);
	ev_signal_start(s->loop, &s->chld_w);
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
 * What the jobs' limits may use (conf_controllers_fn): what tickd's
 * cgroup subtree will give, seen before anything is changed
 * (server_track sets it up once the lock is held).
 */
static int
server_controllers(const struct conf *conf, char **tracking, void *arg)
{
	struct server		*s = arg;
	struct track_info	 info;
	char			 line[512], *why = NULL;
	unsigned		 c;

	if (track_probe(conf->cgroup, &info, &why) == -1) {
		s->track_fatal = why;
		*tracking = xstrdup("an unusable cgroup");
		return 0;
	}
	track_describe(&info, line, sizeof line);
	*tracking = xstrdup(line);
	c = info.controllers;
	track_info_free(&info);
	return (int)c;
}

/* Whether the cgroup at path is an adopted run's (track_cgroup_tidy). */
static int
server_cgroup_adopted(const char *path, void *arg)
{
	struct server	*s = arg;
	struct sjob	*j;
	struct run	*r;
	size_t		 i;

	for (i = 0; i < s->njobs + s->ngone; i++) {
		j = i < s->njobs ? s->jobs[i] : s->gone[i - s->njobs];
		for (r = j->runs; r != NULL; r = r->next_in_job) {
			if (r->cgroup != NULL && strcmp(r->cgroup, path) == 0)
				return 1;
		}
	}
	return 0;
}

/*
 * Set up how attempts are tracked (track.c): their cgroup subtree, or
 * process groups, said once; an explicit [daemon] cgroup that cannot be
 * used stops the start.  0, or -1 (logged).
 */
static int
server_track(struct server *s)
{
	struct track_info	 info;
	char			 line[512], c[64], *note = NULL;
	unsigned		 missing;

	if (s->track_fatal != NULL || track_init(s->conf->cgroup, &info,
	    &note) == -1) {
		log_err("%s: not starting", s->track_fatal != NULL ?
		    s->track_fatal : note);
		free(s->track_fatal);
		free(note);
		return -1;
	}
	if (note != NULL)
		log_warn("%s", note);
	free(note);
	track_describe(&info, line, sizeof line);
	if (info.ops == &track_cgroup_ops)
		log_notice("jobs are tracked by %s%s", line, info.moved ?
		    "; tickd moved itself to its supervisor cgroup" : "");
	else
		log_warn("jobs are tracked by %s: a job's process that leaves "
		    "its session and clears its environment escapes its "
		    "timeout, and resource limits are not available",
		    line);
	/* Checked against the probe: what could not be enabled after all. */
	if ((missing = s->conf->controllers & ~info.controllers) != 0) {
		cgroup_controllers_format(missing, c, sizeof c);
		log_err("cgroup %s: the %s controller%s could not be enabled: "
		    "jobs whose limits need %s fail to start", info.root, c,
		    strchr(c, ' ') != NULL ? "s" : "", strchr(c, ' ') != NULL ?
		    "them" : "it");
	}
	return 0;
}

/* Free a job list and what hangs off it. */
void
server_jobs_free(struct sjob **jobs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		xstrunref(jobs[i]->id);
		free(jobs[i]->overdue_w);
		free(jobs[i]);
	}
	free(jobs);
}

/* Let go of the state: its lock after the store (see statelock.c). */
static void
server_unlock(struct server *s)
{
	if (s->lock_fd[0] != -1)
		(void)close(s->lock_fd[0]);
	if (s->lock_fd[1] != -1)
		(void)close(s->lock_fd[1]);
	free(s->state);
}

/* Startup failed: give back what it had taken; exit status rc. */
static int
server_not_started(struct server *s, int rc)
{
	if (s->store != NULL)
		store_close(s->store);
	server_unlock(s);
	conf_free(s->conf);
	return rc;
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
	struct wq_item		*w;
	struct batch		*b;
	char			*cause = NULL, *lock;
	size_t			 i;

	memset(s, 0, sizeof *s);
	s->config_path = path;
	s->lock_fd[0] = s->lock_fd[1] = s->clock_fd = s->wake_fd = -1;
	s->wq_tail = &s->wq;
	s->armed_ms = SERVER_UNARMED;
	s->no_ahead = -1;
	s->pend_tail = &s->pend;
	s->starting = 1;

	/* The jobs' limits checked against what tickd's cgroup would give. */
	s->conf = conf_load_with(path, geteuid(), getegid(),
	    server_controllers, s, &causes);
	server_log_causes(s->conf, &causes);
	conf_causes_free(&causes);
	if (s->conf == NULL) {
		log_err("%s is invalid: not starting", path);
		return SERVER_EXIT_CONFIG;
	}
	if (s->conf->jobs_dir_unsafe) {		/* as an unsafe tickd.conf */
		log_err("jobs_dir %s is not safe: not starting",
		    s->conf->jobs_dir);
		conf_free(s->conf);
		return SERVER_EXIT_CONFIG;
	}
	server_log_warnings(s->conf);
	s->verbose = verbose;
	log_level = s->conf->log_level > verbose ? s->conf->log_level :
	    verbose;
	server_test_init(s);
	server_identity(s);
	s->cluster = store_is_server(s->conf->state);
	if (s->cluster) {
		server_cluster_defs(s);
		/* The server's database is shared: lock this node alone. */
		lock = conf_state_lock(s->conf);
		server_state_dir(lock);
		s->state = statelock_path(lock);
		free(lock);
		if (server_state_dir_safe(s->state) == -1 ||
		    server_lock(s) == -1)
			return server_not_started(s, SERVER_EXIT_CONFIG);
	} else {
		server_state_dir(s->conf->state);
		s->state = statelock_path(s->conf->state);
		if (server_state_safe(s->conf->state, s->state) == -1 ||
		    server_lock(s) == -1)
			return server_not_started(s, SERVER_EXIT_CONFIG);
	}
	if ((s->store = store_open(store_is_server(s->conf->state) ?
	    s->conf->state : s->state, 0, &cause)) == NULL) {
		log_err("store: %s", cause);
		free(cause);
		return server_not_started(s, 1);
	}
	store_meta_scope(s->store, s->node);
	if (!store_is_server(s->conf->state))
		server_state_private(s->state);
	if (server_track(s) == -1)
		return server_not_started(s, SERVER_EXIT_CONFIG);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL) == -1)
		log_warn("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	/*
	 * Not libev's default loop: that one reaps every child itself with
	 * waitpid, and tickd wants each job's rusage (server_child_cb).
	 */
	s->loop = ev_loop_new(EVFLAG_AUTO);
	if (s->loop == NULL)
		fatalx("cannot initialise the event loop");
	runner_init(s->loop, server_run_spawned, server_run_started,
	    server_run_done, server_idle, s);
	s->fd_budget = runner_budget();
	server_slots_check(s);
	server_watchers(s);
	/* A server's slow answers leave the urgent timers on time. */
	store_set_wait(s->store, server_wait, s);
	/* Clients are served once the loop runs, after the recovery. */
	server_state_dir(s->conf->control);
	if ((s->control = control_open(s->loop, s->conf->control, geteuid(),
	    server_control_cb, s, &cause)) == NULL) {
		log_err("%s: not starting", cause);
		free(cause);
		return server_not_started(s, 1);
	}
	server_metrics_apply(s);

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
	server_ckpt_sweep(s);
	/* The cgroups of attempts that ended: removed, or watched. */
	track_cgroup_tidy(server_cgroup_adopted, s);
	/* Adopted runs: under our lease from now, renewed like our own. */
	if (s->nrunning > 0) {
		if (store_lease_take(s->store, s->owner, clock_wall_ms() /
		    1000 + s->conf->lease) == -1)
			fatalx("store: %s", store_error(s->store));
		ev_timer_again(s->loop, &s->lease_w);
	}
	server_log_ignored(s);
	s->starting = 0;
	server_check_clock(s, clock_wall_ms());
	server_meta(s);
	/*
	 * Armed before READY=1: libev makes its timerfd at the first
	 * periodic, and a daemon that says it is ready has all of its
	 * descriptors (t_soak counts them from READY on).
	 */
	server_rearm(s);
	if (s->cluster) {
		if (server_cluster_beat(s) == -1)
			server_store_trouble(s, "cluster");
		ev_timer_again(s->loop, &s->cluster_w);
		ev_timer_again(s->loop, &s->batch_w);
	}

	log_job(LOG_NOTICE, LOG_EV_DAEMON_STARTED, &lj, "ready: %zu jobs "
	    "(%zu in error), state %s, pid %ld", s->njobs, s->conf->nbad_ids,
	    s->conf->state, (long)getpid());
	(void)sd_notify(0, "READY=1");
	server_status(s);
	server_pump(s);
	server_dispatch(s);

	ev_run(s->loop, 0);

	/* Stopped: write what is pending; what waits stays queued. */
	control_close(s->control);
	server_metrics_stop(s);
	s->flush_after = 0;
	server_flush(s);
	if (s->wq != NULL)
		log_err("store: %s: the last records could not be written",
		    store_error(s->store));
	if (s->cluster && store_node_gone(s->store, s->node, s->owner) == -1)
		log_warn("store: %s: this node is listed until its heartbeat "
		    "ages", store_error(s->store));
	store_close(s->store);
	for (i = 0; i < s->njobs; i++)
		server_overdue_stop(s, s->jobs[i]);
	server_jobs_free(s->jobs, s->njobs);
	server_jobs_free(s->gone, s->ngone);
	free(s->heap);
	free(s->wait_fds);
	free(s->wait_runs);
	while ((p = s->pend) != NULL) {
		s->pend = p->next;
		free(p->ckpt);
		free(p);
	}
	while ((w = s->wq_after) != NULL) {
		s->wq_after = w->next;
		server_wq_free(w);
	}
	while ((b = s->batches) != NULL) {
		s->batches = b->next;
		server_batch_release(b);
	}
	for (i = 0; i < s->nreported; i++)
		free(s->reported[i]);
	free(s->reported);
	server_peers_free(s->drift, s->ndrift);
	conf_free(s->conf);
	if (s->clock_fd != -1)
		(void)close(s->clock_fd);
	if (s->wake_fd != -1)
		(void)close(s->wake_fd);
	server_unlock(s);
	log_notice("stopped");
	return 0;
}

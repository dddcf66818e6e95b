/*
 * server-sched.c -- what runs: planning each job's next instance, the
 * pending FIFO, and dispatch.
 *
 * A due job's instances go to the misfire policy (policy_due), each
 * resulting instance to the job's overlap policy (server_overlap), and
 * every decision and claim of one pass is written in one transaction
 * before anything is forked (server_dispatch).  What may not start yet
 * waits in the pending FIFO, in order, as a queued row, until
 * server_pump finds its job free and a max_running slot.
 *
 * DIAGNOSTICS: a store that refuses a pass rolls it back whole and it is
 * retried (server_store_trouble); decisions are logged as they commit.
 */

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "clock.h"
#include "conf.h"
#include "duration.h"
#include "log.h"
#include "policy.h"
#include "rfc3339.h"
#include "runner.h"
#include "schedule.h"
#include "server.h"
#include "server-int.h"
#include "store.h"
#include "track.h"
#include "xmalloc.h"

/* --- planning -------------------------------------------------------------- */

/*
 * Set j's next instance and due time from its definition and stored
 * state (nothing is written), and place it in the heap.
 */
void
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
	delay = d->pol->random_delay > 0 ? policy_random_delay(s->machine_id,
	    j->id, next, d->pol->random_delay, following) : 0;
	j->due_ms = (next + delay) * 1000;
	/* @reboot's instant is the boot; it is due when the daemon starts. */
	if (schedule_kind(d->schedule) == SCHEDULE_REBOOT)
		j->due_ms = clock_wall_ms() + delay * 1000;
	server_heap_update(s, j);
}

/*
 * Bring a job's stored state in line with its definition.  A job that is
 * new, or whose schedule, zone, DST policy or enabled flag changed, is
 * planned from now: it gets no retroactive instances.  The state of a job
 * loaded before is the one in memory: it is the stored one or newer (a
 * change is made in memory when its commit succeeded, or made there and
 * queued for writing), and a reload of 100,000 jobs need not read them
 * all again (a fifth of its time).
 */
void
server_job_sync(struct server *s, struct sjob *j, int64_t now)
{
	struct store_job	st;
	struct log_job		lj = LOG_JOB_INIT;
	int			found;
	int64_t			end;

	if (j->loaded) {
		st = j->st;
		found = 1;
	} else if ((found = store_job_get(s->store, j->id, &st)) == -1)
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
		    clock_wall_ms()) == -1) {
			lj.job = j->id;
			log_job(LOG_WARNING, LOG_EV_NONE, &lj, "store: saving "
			    "job %s: %s", j->id, store_error(s->store));
		}
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
struct pending *
server_pend_add(struct server *s, struct sjob *j, int64_t at,
    const char *origin, const char *trigger, int64_t rowid,
    int64_t not_before)
{
	struct pending *p = xcalloc(1, sizeof *p);

	p->j = j;
	p->at = at;
	p->origin = server_origin(origin);
	p->trigger = trigger;
	p->rowid = rowid;
	p->not_before = not_before;
	p->due_ms = at * 1000;
	server_pend_link(s, p);
	return p;
}

/*
 * Append an entry to the FIFO, counted by its job (an instance) or its
 * batch (a shard: server_pend_gone undoes it), held if its job is paused.
 */
void
server_pend_link(struct server *s, struct pending *p)
{
	struct batch *b;

	p->next = NULL;
	*s->pend_tail = p;
	s->pend_tail = &p->next;
	s->npend++;
	if (p->parent <= 0)
		p->j->npending++;
	else if ((b = server_batch_find(s, p->parent)) != NULL)
		b->npend++;
	server_pend_hold(s, p);
}

/* A pending entry left the FIFO: its job's count, or its batch's. */
void
server_pend_gone(struct server *s, const struct pending *p)
{
	struct batch *b;

	s->npend--;
	if (p->parent <= 0)
		p->j->npending--;
	else if ((b = server_batch_find(s, p->parent)) != NULL)
		b->npend--;
}

/*
 * If p's job is paused, note that p waits for that: once per entry and
 * daemon, in its row's detail (through the write queue, after what is
 * queued there about the row) and in the journal.  A forced manual run
 * is not held.
 */
void
server_pend_hold(struct server *s, struct pending *p)
{
	struct wq_item	*w;
	struct log_job	 lj = LOG_JOB_INIT;
	char		 run_id[STORE_RUN_ID_MAX];

	if (p->held || p->force || !p->j->st.paused)
		return;
	p->held = 1;
	w = server_wq_add(s, WQ_NOTE);
	w->job = xstrdup(p->j->id);
	w->at = p->at;
	(void)snprintf(w->obuf, sizeof w->obuf, "%s", p->origin);
	w->origin = w->obuf;		/* a shard's entry may go first */
	w->detail = xstrdup(SERVER_HELD);
	if (p->parent > 0 && p->shard > 0)
		return;		/* a batch's first waiting shard says it */
	store_run_id(p->j->id, p->at, server_origin(p->origin), run_id,
	    sizeof run_id);
	lj.job = p->j->id;
	lj.run_id = run_id;
	lj.scheduled_at = p->at;
	log_job(LOG_NOTICE, LOG_EV_NONE, &lj, "job %s: run %s waits: the job "
	    "is paused (tickctl resume %s)", p->j->id, run_id, p->j->id);
}

/*
 * j was paused or resumed: hold what of it waits (server_pend_hold), or
 * let it go, its rows' detail cleared.  Returns how many entries are
 * held now.
 */
size_t
server_pend_pause(struct server *s, struct sjob *j)
{
	struct pending	*p;
	struct wq_item	*w;
	size_t		 n = 0;

	for (p = s->pend; p != NULL; p = p->next) {
		if (p->j != j)
			continue;
		if (j->st.paused) {
			server_pend_hold(s, p);
			n += p->held;
		} else if (p->held) {
			p->held = 0;
			w = server_wq_add(s, WQ_NOTE);
			w->job = xstrdup(j->id);
			w->at = p->at;
			(void)snprintf(w->obuf, sizeof w->obuf, "%s",
			    p->origin);
			w->origin = w->obuf;
		}
	}
	return n;
}

/* Unlink *pp (an entry of the FIFO) and free it. */
void
server_pend_drop(struct server *s, struct pending **pp)
{
	struct pending *p = *pp;

	*pp = p->next;
	if (s->pend_tail == &p->next)
		s->pend_tail = pp;
	server_pend_gone(s, p);
	free(p->ckpt);
	free(p);
}

/*
 * Whether a job may start one more process now, given `more` already
 * started in this pass: not paused, not throttled, and its overlap
 * policy allows it (allow: under max_parallel; the others: nothing of
 * it running).
 */
int
server_can_start(const struct sjob *j, int more, int64_t now_mono)
{
	const struct job_def *d = j->def;

	if (d == NULL || j->st.paused || j->throttle_until > now_mono)
		return 0;
	more += j->nheld;	/* claimed, and forked before anything else */
	if (d->pol->overlap == POLICY_OVERLAP_ALLOW)
		return j->nruns + more < d->pol->max_parallel;
	return j->nruns + more == 0;
}

/* Arm the pending timer at the earliest retry or throttle end. */
void
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

/* --- dispatch ---------------------------------------------------------------- */

/* Log a clock step or a suspend seen through the clocks' offsets. */
void
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

/* How many entries of job j this pass added (and how many claim now). */
void
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

/* Set up an empty pass at the current time; force: a manual --force. */
void
server_dispatch_init(struct dispatch *dp, int force)
{
	memset(dp, 0, sizeof *dp);
	dp->add_tail = &dp->add;
	dp->now_ms = clock_wall_ms();
	dp->now = dp->now_ms / 1000;
	dp->now_mono = clock_mono_ms();
	dp->force = force;
}

/*
 * Free what a pass holds.  After server_dispatch_apply that is its lists;
 * after a transaction that failed it is the whole pass, new entries
 * included, and nothing else is to be undone: a pass changes the
 * daemon's memory only in server_dispatch_apply.
 */
void
server_dispatch_free(struct dispatch *dp)
{
	struct pending *p;

	while ((p = dp->add) != NULL) {
		dp->add = p->next;
		free(p);
	}
	dp->add_tail = &dp->add;
	free(dp->kill);
	free(dp->asked);
	free(dp->replaced);
	dp->replaced = NULL;
	dp->nreplaced = 0;
	free(dp->drop);
	free(dp->dead);
	free(dp->skipped);
	free(dp->ranges);
	dp->kill = NULL;
	dp->asked = NULL;
	dp->nasked = 0;
	dp->drop = NULL;
	dp->dead = NULL;
	dp->skipped = NULL;
	dp->ranges = NULL;
	dp->nkill = dp->ndrop = dp->ndead = dp->nskipped = dp->nranges = 0;
}

/* Whether the pass settled FIFO entry p already. */
static int
server_dispatch_drops(const struct dispatch *dp, const struct pending *p)
{
	size_t i;

	for (i = 0; i < dp->ndrop; i++) {
		if (dp->drop[i] == p)
			return 1;
	}
	return 0;
}

/* How many FIFO entries of job j the pass settled. */
static int
server_dispatch_ndrop(const struct dispatch *dp, const struct sjob *j)
{
	size_t	i;
	int	n = 0;

	for (i = 0; i < dp->ndrop; i++)
		n += dp->drop[i]->j == j;
	return n;
}

/* Note a FIFO entry the pass settled, unlinked once it commits. */
static void
server_dispatch_drop(struct dispatch *dp, struct pending *p)
{
	dp->drop = xreallocarray(dp->drop, dp->ndrop + 1, sizeof *dp->drop);
	dp->drop[dp->ndrop++] = p;
}

/* Whether the pass stops run r already. */
static int
server_dispatch_kills(const struct dispatch *dp, const struct run *r)
{
	size_t i;

	for (i = 0; i < dp->nkill; i++) {
		if (dp->kill[i] == r)
			return 1;
	}
	return 0;
}

/* A failure as people read it: "exit 75", "signal 9", "timeout". */
static void
server_failure_text(const struct store_failure *f, char *buf, size_t len)
{
	if (strcmp(f->reason, "exit") == 0 && f->exit_status != -1)
		(void)snprintf(buf, len, "exit %d", f->exit_status);
	else if (strcmp(f->reason, "signal") == 0 && f->signal != -1)
		(void)snprintf(buf, len, "signal %d", f->signal);
	else
		(void)snprintf(buf, len, "%s", f->reason[0] != '\0' ?
		    f->reason : "unknown");
}

/*
 * An instance of j at `at` falls due: a retry of an earlier instance of
 * j that still waits to start would run past it, which
 * server_retry_plan never plans (held back since by max_running, a
 * throttle or the job's overlap policy).  That earlier instance is
 * dead, written in the pass's transaction with a detail saying why; its
 * entry leaves the FIFO, and it is logged and on_failure runs, once the
 * pass commits.  0, or -1 when the store failed.
 */
static int
server_retry_expire(struct server *s, struct dispatch *dp, struct sjob *j,
    int64_t at)
{
	struct store_claim	 c;
	struct store_failure	 f;
	struct pending		*p;
	struct ddead		*dd;
	char			 when[RFC3339_BUFSZ], last[64];
	int			 rc;

	if (j->npending == 0)		/* the common case: no walk */
		return 0;
	for (p = s->pend; p != NULL; p = p->next) {
		if (p->j != j || p->at >= at || strcmp(p->trigger, "retry") !=
		    0 || p->parent > 0 || server_dispatch_drops(dp, p))
			continue;
		memset(&c, 0, sizeof c);
		c.job = j->id;
		c.scheduled_at = p->at;
		c.origin = p->origin;
		c.now_ms = dp->now_ms;
		if ((rc = store_run_failure(s->store, &c, &f)) == -1)
			return -1;
		if (rc == 0)		/* not waiting for a retry after all */
			continue;
		dp->dead = xreallocarray(dp->dead, dp->ndead + 1,
		    sizeof *dp->dead);
		dd = &dp->dead[dp->ndead];
		dd->p = p;
		dd->f = f;
		server_failure_text(&f, last, sizeof last);
		(void)snprintf(dd->detail, sizeof dd->detail, "its retry "
		    "(attempt %d) had not started when the next instance at %s "
		    "fell due; the last failure: %s", f.attempts + 1,
		    server_when(at, when, sizeof when), last);
		c.detail = dd->detail;
		if (store_run_unqueue(s->store, &c, "dead", NULL) == -1)
			return -1;
		dp->ndead++;
		server_dispatch_drop(dp, p);
	}
	return 0;
}

/* A retry the pass settled dead (server_retry_expire), now committed. */
static void
server_retry_dead(struct server *s, const struct ddead *dd)
{
	const struct pending	*p = dd->p;
	struct log_job		 lj = LOG_JOB_INIT;
	char			 run_id[STORE_RUN_ID_MAX];

	store_run_id(p->j->id, p->at, p->origin, run_id, sizeof run_id);
	lj.job = p->j->id;
	lj.run_id = run_id;
	lj.scheduled_at = p->at;
	lj.attempt = dd->f.attempts;
	lj.exit_status = dd->f.exit_status;
	lj.signal = dd->f.signal;
	log_job(LOG_ERR, LOG_EV_DEAD, &lj, "job %s: run %s is dead: %s",
	    p->j->id, run_id, dd->detail);
	server_hook(s, p->j, "dead", dd->f.reason, dd->f.rowid, p->at,
	    dd->f.attempts, dd->f.exit_status, dd->f.signal, run_id, NULL, 0);
	server_count_end(s, p->j);
}

/* Record one instance that does not run, as a skipped row. */
int
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

/* Note a skipped instance, to be logged once the dispatch commits. */
static void
server_skip_note(struct dispatch *dp, struct sjob *j, int64_t at, int kind)
{
	dp->skipped = xreallocarray(dp->skipped, dp->nskipped + 1,
	    sizeof *dp->skipped);
	dp->skipped[dp->nskipped].j = j;
	dp->skipped[dp->nskipped].at = at;
	dp->skipped[dp->nskipped++].kind = kind;
}

/*
 * Hand one instance to the job's overlap policy, inside the dispatch
 * transaction: a skipped row, or a new pending entry (claimed now when
 * the job and a global slot are free).
 */
int
server_overlap(struct server *s, struct dispatch *dp, struct sjob *j,
    int64_t at, const char *origin, const char *trigger)
{
	const struct job_def	*d = j->def;
	struct store_claim	 c;
	struct pending		*p;
	struct run		*r;
	char			 detail[STORE_RUN_ID_MAX + 64];
	char			 tok[TRACK_TOKEN_LEN + 1];
	int64_t			 asked;
	int			 added, claiming, inflight, waiting, rc;
	int			 kind = SERVER_SKIP_OVERLAP;

	/*
	 * Never a retry past the next instance: a scheduled one settles
	 * the earlier instances whose retry still waits, and is decided as
	 * if they had not waited.
	 */
	if (strcmp(origin, "manual") != 0 &&
	    server_retry_expire(s, dp, j, at) == -1)
		return -1;
	/* What waits counts, unless this pass settled it. */
	server_dispatch_count(dp, j, &added, &claiming);
	waiting = j->npending - server_dispatch_ndrop(dp, j);
	inflight = j->nruns + j->nelse + waiting + added;
	/* Catch-up runs are a backlog: they wait their turn, never skip. */
	if (strcmp(trigger, "catch_up") == 0 || dp->force)
		goto runs;
	/* A paused job is planned no instance: this is a manual one. */
	if (j->st.paused) {
		(void)snprintf(detail, sizeof detail, "the job is paused");
		if (server_skip_row(s, dp, j, at, origin, "paused",
		    detail) == -1)
			return -1;
		kind = SERVER_SKIP_PAUSED;
		goto skipped;
	}
	if (j->throttle_until > dp->now_mono) {
		(void)snprintf(detail, sizeof detail, "the job fails "
		    "instantly and is throttled");
		if (server_skip_row(s, dp, j, at, origin, "throttled",
		    detail) == -1)
			return -1;
		kind = SERVER_SKIP_THROTTLED;
		goto skipped;
	}
	switch (d->pol->overlap) {
	case POLICY_OVERLAP_SKIP:
	case POLICY_OVERLAP_QUEUE:
		if (inflight == 0)
			break;
		if (d->pol->overlap == POLICY_OVERLAP_QUEUE &&
		    waiting + added < d->pol->queue_limit)
			break;
		if (j->runs != NULL)
			(void)snprintf(detail, sizeof detail, "%s is still "
			    "running", j->runs->run_id);
		else if (j->nelse > 0)
			(void)snprintf(detail, sizeof detail, "an instance "
			    "is running on another node");
		else
			(void)snprintf(detail, sizeof detail, "an earlier "
			    "instance is waiting to start");
		if (d->pol->overlap == POLICY_OVERLAP_QUEUE)
			(void)strncat(detail, "; the queue is full",
			    sizeof detail - strlen(detail) - 1);
		if (server_skip_row(s, dp, j, at, origin, "overlap",
		    detail) == -1)
			return -1;
		goto skipped;
	case POLICY_OVERLAP_ALLOW:
		if (inflight < d->pol->max_parallel)
			break;
		(void)snprintf(detail, sizeof detail, "max_parallel (%lld) "
		    "instances are in flight", (long long)d->pol->max_parallel);
		if (server_skip_row(s, dp, j, at, origin, "overlap",
		    detail) == -1)
			return -1;
		goto skipped;
	case POLICY_OVERLAP_REPLACE:
		/*
		 * The newest wins: stop what runs, drop what waits.  Both
		 * once the pass commits (server_dispatch_apply): until then
		 * the runs are not marked replaced, the entries stay.
		 */
		for (r = j->runs; r != NULL; r = r->next_in_job) {
			if (r->replaced || server_dispatch_kills(dp, r))
				continue;
			dp->kill = xreallocarray(dp->kill, dp->nkill + 1,
			    sizeof *dp->kill);
			dp->kill[dp->nkill++] = r;
		}
		/* A batch's waiting shards too (server_batch_stop). */
		dp->replaced = xreallocarray(dp->replaced, dp->nreplaced + 1,
		    sizeof *dp->replaced);
		dp->replaced[dp->nreplaced++] = j;
		for (p = s->pend; p != NULL; p = p->next) {
			if (p->j != j || p->parent > 0 ||
			    server_dispatch_drops(dp, p))
				continue;
			memset(&c, 0, sizeof c);
			c.job = j->id;
			c.scheduled_at = p->at;
			c.origin = p->origin;
			c.now_ms = dp->now_ms;
			if (store_run_unqueue(s->store, &c, "skipped",
			    "replaced") == -1)
				return -1;
			server_skip_note(dp, j, p->at, SERVER_SKIP_REPLACED);
			server_dispatch_drop(dp, p);
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
			server_skip_note(dp, j, p->at, SERVER_SKIP_REPLACED);
			p->j = NULL;	/* superseded before it began */
		}
		/* Another node's: that node stops it (server_cluster_stops). */
		if (j->nelse > 0) {
			if ((asked = store_run_stops_ask(s->store, j->id,
			    s->owner, s->node, dp->now_ms)) == -1)
				return -1;
			if (asked > 0) {
				dp->asked = xreallocarray(dp->asked,
				    dp->nasked + 1, sizeof *dp->asked);
				dp->asked[dp->nasked++] = j;
			}
		}
		/* Counted again: what waits is settled or superseded. */
		server_dispatch_count(dp, j, &added, &claiming);
		inflight = j->nruns + j->npending -
		    server_dispatch_ndrop(dp, j) + added;
		break;
	}

	/* It runs: now if the job and a slot are free, else it waits. */
runs:
	p = xcalloc(1, sizeof *p);
	p->j = j;
	p->at = at;
	p->origin = server_origin(origin);
	p->trigger = trigger;
	p->rowid = -1;
	p->force = dp->force;
	p->due_ms = strcmp(origin, "manual") == 0 ? dp->now_ms : at * 1000;
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
	    (d->pol->overlap == POLICY_OVERLAP_ALLOW || added == claiming)))) {
		track_token(tok, sizeof tok);
		c.invocation = tok;
		c.boot_id = s->boot_id;
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
		    inflight > 0 && !dp->force ? "overlap" : "max_running";
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
	(void)snprintf(dp->why, sizeof dp->why, "%s", detail);
	server_skip_note(dp, j, at, kind);
	return 0;
}

/* Log a range of instances that do not run. */
void
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

/* Log a range of instances that do not run once the pass commits. */
static void
server_range_later(struct dispatch *dp, struct sjob *j, const char *reason,
    int64_t first, int64_t last, int64_t count, int capped)
{
	struct drange *r;

	dp->ranges = xreallocarray(dp->ranges, dp->nranges + 1,
	    sizeof *dp->ranges);
	r = &dp->ranges[dp->nranges++];
	r->j = j;
	r->reason = reason;
	r->first = first;
	r->last = last;
	r->count = count;
	r->capped = capped;
}

/*
 * Decide what becomes of a due job's instances, inside the dispatch
 * transaction.  Sets *planned to the newest instance decided.
 */
int
server_dispatch_job(struct server *s, struct dispatch *dp, struct sjob *j,
    int64_t *planned)
{
	const struct job_def	*d = j->def;
	struct store_decision	 dec;
	struct policy_due	 due;
	int64_t			*buf;
	size_t			 bufsz, i;
	int			 rc = 0;

	/* @reboot is each host's own: not shared between nodes. */
	if (s->cluster && schedule_kind(d->schedule) != SCHEDULE_REBOOT &&
	    (rc = server_cluster_job(s, j, planned)) != 0)
		return rc == 1 ? 0 : -1;
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
	bufsz = (size_t)d->pol->catch_up_limit + 64;
	buf = xreallocarray(NULL, bufsz, sizeof *buf);
	policy_due(d->schedule, d->tz, d->gap, d->fold, j->next_at, dp->now,
	    d->pol->misfire_grace + d->pol->random_delay, d->pol->misfire,
	    d->pol->catch_up_limit, buf, bufsz, &due);
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
		server_range_later(dp, j, due.skip_reason, due.skip_first,
		    due.skip_last, due.skip_count, due.skip_capped);
	for (i = 0; i < due.ncatch && rc == 0; i++)
		rc = server_overlap(s, dp, j, due.run[i], "schedule",
		    "catch_up");
	if (rc == -1)
		goto fail;
	if ((d->pol->overlap == POLICY_OVERLAP_SKIP ||
	    d->pol->overlap == POLICY_OVERLAP_REPLACE) &&
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
		server_range_later(dp, j, "stall", due.run[due.ncatch],
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
	if (due.more_count > 0)
		server_range_later(dp, j, "overlap", due.more_first,
		    due.more_last, due.more_count, due.more_capped);
	free(buf);
	return 0;
fail:
	free(buf);
	return -1;
}

/*
 * Log a skipped instance (an end, for retention); count overlap skips and
 * say, once per streak, that the job is stuck.
 */
void
server_note_skip(struct server *s, const struct dskip *k)
{
	struct sjob	*j = k->j;
	struct log_job	 lj = LOG_JOB_INIT;
	char		 when[RFC3339_BUFSZ];

	server_count_end(s, j);
	lj.job = j->id;
	lj.scheduled_at = k->at;
	if (k->kind == SERVER_SKIP_REPLACED) {
		log_job(LOG_WARNING, LOG_EV_SKIPPED, &lj, "job %s: instance %s "
		    "skipped: replaced by a newer instance (overlap = "
		    "replace)", j->id, server_when(k->at, when, sizeof when));
		return;
	}
	if (k->kind == SERVER_SKIP_PAUSED) {
		log_job(LOG_WARNING, LOG_EV_SKIPPED, &lj, "job %s: instance %s "
		    "skipped: the job is paused", j->id,
		    server_when(k->at, when, sizeof when));
		return;
	}
	if (k->kind == SERVER_SKIP_THROTTLED) {
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
		    sizeof when), policy_overlap_name(j->def->pol->overlap),
		    j->runs != NULL ? ": still running: " : "",
		    j->runs != NULL ? j->runs->run_id : "");
}

/*
 * How many job processes may run at once: max_running, or fewer when the
 * descriptor limit cannot hold that many runs' output pipes (the rest
 * wait, queued, instead of failing to start).
 */
static size_t
server_slots(const struct server *s)
{
	return (size_t)s->conf->max_running < s->fd_budget ?
	    (size_t)s->conf->max_running : s->fd_budget;
}

/* The slots left when busy of them are taken (running, or promised). */
size_t
server_room(const struct server *s, size_t busy)
{
	return server_slots(s) > busy ? server_slots(s) - busy : 0;
}

/* Warn when the descriptor limit, not max_running, bounds the runs. */
void
server_slots_check(struct server *s)
{
	if ((size_t)s->conf->max_running > s->fd_budget)
		log_warn("max_running is %lld, but tickd's descriptor limit "
		    "holds the output pipes of %zu runs at once: the others "
		    "wait, queued (raise LimitNOFILE)",
		    (long long)s->conf->max_running, s->fd_budget);
}

/* How many entries of the FIFO could start now but for max_running. */
size_t
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
 * what is replaced, fork what was claimed, queue what waits.  The caller
 * pumps next.  Until then the pump is held: a start that fails at once
 * ends its attempt, and that end would pump the FIFO into the room the
 * pass counted on for its own claims, past max_running.
 */
void
server_dispatch_apply(struct server *s, struct dispatch *dp)
{
	struct pending	*p, *next, **pp;
	size_t		 i, left;
	int		 held = s->pumping;

	/* The FIFO entries the pass settled leave the FIFO. */
	for (i = 0; i < dp->ndead; i++)
		server_retry_dead(s, &dp->dead[i]);
	dp->ndead = 0;
	for (pp = &s->pend, left = dp->ndrop; *pp != NULL && left > 0;) {
		if (!server_dispatch_drops(dp, *pp)) {
			pp = &(*pp)->next;
			continue;
		}
		server_pend_drop(s, pp);
		left--;
	}
	dp->ndrop = 0;
	for (i = 0; i < dp->nranges; i++)
		server_log_range(dp->ranges[i].j, dp->ranges[i].reason,
		    dp->ranges[i].first, dp->ranges[i].last,
		    dp->ranges[i].count, dp->ranges[i].capped);
	for (i = 0; i < dp->nskipped; i++)
		server_note_skip(s, &dp->skipped[i]);
	for (i = 0; i < dp->nkill; i++) {
		struct log_job lj;

		dp->kill[i]->replaced = 1;
		runner_log_job(dp->kill[i], &lj);
		log_job(LOG_NOTICE, LOG_EV_REPLACED, &lj, "job %s: run %s is "
		    "replaced by a newer instance: signal %d",
		    dp->kill[i]->job, dp->kill[i]->run_id,
		    dp->kill[i]->kill_signal);
		runner_stop(dp->kill[i], dp->kill[i]->kill_signal,
		    dp->kill[i]->kill_grace);
	}
	for (i = 0; i < dp->nreplaced; i++) {
		struct batch *b;

		for (b = s->batches; b != NULL; b = b->next)
			if (b->j == dp->replaced[i])
				server_batch_stop(s, b, "replaced");
	}
	for (i = 0; i < dp->nasked; i++) {
		struct log_job lj = LOG_JOB_INIT;

		lj.job = dp->asked[i]->id;
		log_job(LOG_NOTICE, LOG_EV_REPLACED, &lj, "job %s: what of it "
		    "runs on other nodes is replaced by a newer instance: "
		    "their nodes are asked to stop it", dp->asked[i]->id);
	}
	s->pumping = 1;
	for (p = dp->add; p != NULL; p = next) {
		next = p->next;
		if (p->j == NULL)		/* replaced within this pass */
			free(p);
		else if (p->claim) {
			server_start(s, p);
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
			server_pend_link(s, p);
		}
	}
	s->pumping = held;
	dp->add = NULL;
	dp->add_tail = &dp->add;
}

/* Move dp's time forward to now (never back: a step is not for it). */
static void
server_dispatch_now(struct dispatch *dp)
{
	int64_t now_ms = clock_wall_ms();

	if (now_ms > dp->now_ms) {
		dp->now_ms = now_ms;
		dp->now = now_ms / 1000;
		dp->now_mono = clock_mono_ms();
	}
}

/*
 * Whether the earliest instant is claimed now, ahead of it: its due_ms
 * (and *room, the slots free for it), or -1.  Its claims are committed up to ahead_ms before it, so that the
 * commit (its fsync has a tail of 10 ms and more on some disks) is not
 * between the instant and the forks; the loop then waits for the instant
 * and forks (server_dispatch).  Only when the decision made now is the
 * one the instant would make: every job due then has nothing running or
 * waiting (a run's end meanwhile could change an overlap decision), is
 * not throttled, has a slot free, and all fit one claim transaction.
 * Otherwise that instant is dispatched when it comes (no_ahead).  The
 * loop waits at most ahead_ms: what arrives meanwhile (a signal, a
 * command, a run's end) is handled after those forks, as if it had come
 * just after the instant.
 */
static int64_t
server_ahead(struct server *s, int64_t now_ms, size_t *room)
{
	struct sjob	*j;
	size_t		 stack[64], top = 0, i, n = 0;
	int64_t		 at, now_mono = clock_mono_ms();

	if (s->nheap == 0 || (at = s->heap[0]->due_ms) <= now_ms ||
	    at - now_ms > s->ahead_ms || at == s->no_ahead)
		return -1;
	if (s->held != NULL)		/* one held batch at most */
		goto no;
	stack[top++] = 0;
	while (top > 0) {
		j = s->heap[i = stack[--top]];
		if (j->due_ms > at)
			continue;
		if (j->def == NULL || ++n > SERVER_DISPATCH_BATCH ||
		    j->nruns > 0 || j->npending > 0 ||
		    j->throttle_until > now_mono || top + 2 > 64)
			goto no;
		switch (schedule_kind(j->def->schedule)) {
		case SCHEDULE_CRON:
		case SCHEDULE_EVERY:
			break;
		default:		/* dispatched with its own rules */
			goto no;
		}
		if (2 * i + 1 < s->nheap)
			stack[top++] = 2 * i + 1;
		if (2 * i + 2 < s->nheap)
			stack[top++] = 2 * i + 2;
	}
	*room = server_room(s, s->nrunning + server_pend_startable(s));
	if (*room >= n)
		return at;
no:
	s->no_ahead = at;
	return -1;
}

/*
 * Keep what a pass claimed ahead of the instant at (ms) from starting:
 * the wall clock went back during the wait, and the instant is further
 * away than the loop may wait (server_dispatch).  The claims are
 * committed; the entries wait in memory, counted as pending for their
 * jobs' overlap decisions, until a wake-up finds the wall clock at the
 * instant (server_release).  Such a pass has one entry per job: each had
 * nothing running or waiting, and one instance due (server_ahead).
 */
static void
server_hold(struct server *s, struct dispatch *dp, int64_t at)
{
	struct log_job	 lj = LOG_JOB_INIT;
	struct pending	*p;
	char		 when[RFC3339_BUFSZ];

	for (p = dp->add; p != NULL; p = p->next) {
		if (p->j == NULL)	/* replaced within the pass */
			continue;
		p->j->npending++;
		p->j->nheld++;
		s->nheld++;
		if (!p->claim)
			continue;
		lj.job = p->j->id;
		lj.run_id = p->claimed.run_id;
		lj.scheduled_at = p->at;
		log_job(LOG_NOTICE, LOG_EV_NONE, &lj, "job %s: run %s, "
		    "claimed ahead of its instant %s, waits: the wall clock "
		    "went back meanwhile; it starts when the clock reads the "
		    "instant", p->j->id, p->claimed.run_id, server_when(p->at,
		    when, sizeof when));
	}
	s->held = dp->add;
	s->held_at = at;
	dp->add = NULL;
	dp->add_tail = &dp->add;
}

/* Start what server_hold kept once the wall clock reads its instant. */
static void
server_release(struct server *s)
{
	struct dispatch	 dp;
	struct pending	*p;

	if (s->held == NULL || clock_wall_ms() < s->held_at)
		return;
	server_dispatch_init(&dp, 0);
	dp.add = s->held;
	for (p = dp.add; p != NULL; p = p->next) {
		if (p->j != NULL) {	/* apply counts what it queues */
			p->j->npending--;
			p->j->nheld--;
		}
		dp.add_tail = &p->next;
	}
	s->held = NULL;
	s->nheld = 0;
	server_dispatch_apply(s, &dp);
	server_pump(s);
}

/* Log that a held instance did not start: the daemon stops. */
static void
server_held_log(const struct pending *p)
{
	struct log_job lj = LOG_JOB_INIT;

	if (!p->claim)
		return;
	lj.job = p->j->id;
	lj.run_id = p->claimed.run_id;
	lj.scheduled_at = p->at;
	log_job(LOG_WARNING, LOG_EV_NONE, &lj, "job %s: run %s did not start: "
	    "the daemon stopped before the wall clock read its instant",
	    p->j->id, p->claimed.run_id);
}

/*
 * At a stop, forget what server_hold kept: its instances stay claimed,
 * without a process, as after a crash between claim and fork; the next
 * start settles them by their job's recover policy.
 */
void
server_held_drop(struct server *s)
{
	struct pending *p;

	while ((p = s->held) != NULL) {
		s->held = p->next;
		if (p->j != NULL) {
			p->j->npending--;
			p->j->nheld--;
			server_held_log(p);
			server_gone_check(s, p->j);
		}
		free(p);
	}
	s->nheld = 0;
}

/*
 * Handle every job that is due: decide, write every decision and claim in
 * one transaction, then fork.  If the store refuses, nothing changes and
 * dispatch is retried after SERVER_RETRY.
 */
void
server_dispatch(struct server *s)
{
	struct dispatch	 dp;
	struct sjob	**due = NULL;
	int64_t		 *planned = NULL, at, begun;
	size_t		  ndue = 0, i, k, batch;
	int		  wrote;

	if (s->stopping)
		return;
	s->armed_ms = SERVER_UNARMED;	/* a wake-up may have fired */
	if (!server_turn(s, SERVER_TURN_DISPATCH)) {
		server_rearm(s);	/* due: at the next iteration */
		return;
	}
	/* Off the server's clock, or fenced: nothing (server-cluster.c). */
	if (s->skewed || s->fenced) {
		if (!ev_is_active(&s->retry_w)) {
			ev_timer_set(&s->retry_w, SERVER_RETRY, 0);
			ev_timer_start(s->loop, &s->retry_w);
		}
		return;
	}
	server_release(s);
	server_dispatch_init(&dp, 0);
	server_check_clock(s, dp.now_ms);
	/* Woken ahead of an instant to claim it: decide as at the instant. */
	if ((at = server_ahead(s, dp.now_ms, &dp.room)) != -1) {
		dp.now_mono += at - dp.now_ms;
		dp.now_ms = at;
		dp.now = at / 1000;
	}
	/*
	 * Up to SERVER_DISPATCH_BATCH due jobs are claimed in one
	 * transaction, one fsync.  A larger burst is claimed in small
	 * transactions, growing: SERVER_DISPATCH_FIRST jobs in the first,
	 * twice as many in each next one while the burst lasts.  The first
	 * of a burst of 1000 then starts after a commit of a few claims, not
	 * of all 1000, and a long burst still costs few commits.  The rest
	 * stay at the top of the heap, already due, so the wake-up fires
	 * again in the next loop iteration.
	 */
	if (s->burst > 0)
		batch = s->burst * 2;
	else if (server_heap_due(s, dp.now_ms, SERVER_DISPATCH_BATCH + 1) >
	    SERVER_DISPATCH_BATCH)
		batch = SERVER_DISPATCH_FIRST;
	else
		batch = SERVER_DISPATCH_BATCH;
	if (batch > SERVER_DISPATCH_BATCH)
		batch = SERVER_DISPATCH_BATCH;
	while (s->nheap > 0 && s->heap[0]->due_ms <= dp.now_ms &&
	    ndue < batch) {
		due = xreallocarray(due, ndue + 1, sizeof *due);
		due[ndue++] = s->heap[0];
		server_heap_remove(s, s->heap[0]);
	}
	s->burst = s->nheap > 0 && s->heap[0]->due_ms <= dp.now_ms ? batch : 0;
	if (ndue == 0)
		goto out;
	planned = xreallocarray(NULL, ndue, sizeof *planned);
	if (at == -1)		/* else server_ahead counted it */
		dp.room = server_room(s, s->nrunning + s->nheld +
		    server_pend_startable(s));

	if (store_begin(s->store) == -1)
		goto busy;
	/*
	 * The begin may have waited for the write lock (up to the busy
	 * timeout): decide at the time the lock is held, or an instant that
	 * became late meanwhile would be taken for an on-time one.
	 */
	server_dispatch_now(&dp);
	/* Earlier starts and ends first, in the same commit as the claims. */
	begun = clock_mono_ms();
	wrote = server_wq_write(s, 1);
	for (i = 0; i < ndue; i++) {
		struct store_job st;

		/* A slow store: the rest in the next pass, timers first. */
		if (i > 0 && server_spent(begun)) {
			for (k = i; k < ndue; k++)
				server_heap_update(s, due[k]);
			ndue = i;
			break;
		}
		if (server_dispatch_job(s, &dp, due[i], &planned[i]) == -1)
			goto rollback;
		st = due[i]->st;	/* as the job's row said, with nodes */
		st.planned = planned[i];
		if (schedule_kind(due[i]->def->schedule) == SCHEDULE_REBOOT)
			(void)snprintf(st.boot_id, sizeof st.boot_id, "%s",
			    s->boot_id);
		if (store_job_put(s->store, due[i]->id, &st, dp.now_ms) == -1)
			goto rollback;
	}
	if (store_commit(s->store) == -1)
		goto busy;
	server_wq_committed(s, wrote);

	/* Committed: apply, then fork (claimed ahead: at the instant). */
	for (i = 0; i < ndue; i++) {
		due[i]->st.planned = planned[i];
		if (schedule_kind(due[i]->def->schedule) == SCHEDULE_REBOOT)
			(void)snprintf(due[i]->st.boot_id,
			    sizeof due[i]->st.boot_id, "%s", s->boot_id);
	}
	/*
	 * Claimed ahead: fork once the wall clock reads the instant, never
	 * before.  If it went back meanwhile so far that the loop would wait
	 * longer than ahead_ms in all, the processes wait without it.
	 */
	if (at != -1 && clock_wait_wall_ms(at, s->ahead_ms) == -1)
		server_hold(s, &dp, at);
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
	/*
	 * Nothing was written, and nothing in memory changed but the heap:
	 * put the jobs back as they were, forget what the pass decided.
	 */
	server_store_trouble(s, "dispatch");
	for (i = 0; i < ndue; i++)
		server_heap_update(s, due[i]);
out:
	server_dispatch_free(&dp);
	free(due);
	free(planned);
	server_rearm(s);
}

static void	server_pump_pass(struct server *);

/*
 * Start what waits in the pending FIFO while slots are free, in order:
 * an entry whose job cannot start yet (overlap, throttle, a retry not yet
 * due) holds back the later entries of that job, not of others.
 *
 * A start that fails at once (no pipes, no fork: EMFILE, EAGAIN) ends its
 * attempt inside server_start, and server_run_end pumps.  That inner pump
 * must not run: the outer one still holds claimed entries of the FIFO in
 * its batch, which it would claim again (in vain), unlink and free under
 * the outer loop.  It asks the outer one for another pass instead.
 */
void
server_pump(struct server *s)
{
	if (s->pumping) {
		s->pump_again = 1;
		return;
	}
	if (s->pend != NULL && !server_turn(s, SERVER_TURN_PUMP)) {
		server_pend_soon(s);
		return;
	}
	s->pumping = 1;
	do {
		s->pump_again = 0;
		server_pump_pass(s);
	} while (s->pump_again && !s->stopping);
	s->pumping = 0;
}

/* One pass of server_pump: claim and start what can start now. */
static void
server_pump_pass(struct server *s)
{
	struct pending		**pp, *p, **batch = NULL;
	struct pending		**blocked = NULL;
	struct store_claim	  c;
	char			  tok[TRACK_TOKEN_LEN + 1], path[PATH_MAX];
	int64_t			  now_ms = clock_wall_ms();
	int64_t			  now_mono = clock_mono_ms(), begun;
	size_t			  n = 0, nblocked = 0, room, i, k;
	int			  rc, more, wrote, cut = 0, ok;

	if (s->stopping || s->pend == NULL || s->skewed || s->fenced)
		goto out;
	room = server_room(s, s->nrunning + s->nheld);
	for (p = s->pend; p != NULL && n < room; p = p->next) {
		/*
		 * An instance waits behind its job's earlier instances, a
		 * shard behind its batch's earlier shards, not behind the
		 * instances (the next one waits for the batch: overlap).
		 */
		for (k = 0; k < nblocked && (blocked[k]->j != p->j ||
		    blocked[k]->parent != p->parent); k++)
			;
		/* A forced run waits for no earlier entry of its job. */
		if (k < nblocked && !p->force)
			continue;
		for (more = 0, i = 0; i < n; i++)
			more += batch[i]->j == p->j &&
			    batch[i]->parent == p->parent;
		ok = p->parent > 0 ? server_shard_can_start(s, p, more,
		    now_mono) : server_can_start(p->j, more, now_mono);
		if (p->not_before > now_ms || (!p->force && !ok)) {
			server_pend_hold(s, p);		/* if paused */
			blocked = xreallocarray(blocked, nblocked + 1,
			    sizeof *blocked);
			blocked[nblocked++] = p;
			continue;
		}
		batch = xreallocarray(batch, n + 1, sizeof *batch);
		batch[n++] = p;
	}
	if (n == 0)
		goto out;

	if (store_begin(s->store) == -1)
		goto busy;
	begun = clock_mono_ms();
	wrote = server_wq_write(s, 1);
	for (i = 0; i < n; i++) {
		/* A slow store: the rest in the next pass, timers first. */
		if (i > 0 && server_spent(begun)) {
			n = i;
			cut = 1;
			break;
		}
		p = batch[i];
		memset(&c, 0, sizeof c);
		c.job = p->j->id;
		c.scheduled_at = p->at;
		c.origin = p->origin;
		c.trigger = p->trigger;
		c.owner = s->owner;
		c.now_ms = now_ms;
		c.lease_until = now_ms / 1000 + s->conf->lease;
		track_token(tok, sizeof tok);
		c.invocation = tok;
		c.boot_id = s->boot_id;
		/* shard_parallel across nodes: the batch's row locked. */
		if (p->parent > 0 && s->cluster && p->j->def != NULL &&
		    p->j->def->pol->shard_parallel > 0) {
			if ((rc = store_shards_running(s->store,
			    p->parent)) == -1) {
				store_rollback(s->store);
				goto busy;
			}
			if (rc >= p->j->def->pol->shard_parallel) {
				p->claim = -2;		/* it stays */
				continue;
			}
		}
		rc = p->rowid == -1 ? store_run_claim(s->store, &c,
		    &p->claimed) : store_run_claim_id(s->store, p->rowid, &c,
		    &p->claimed);
		/* A shard's checkpoint from the store, if this host has none. */
		if (rc == 1 && p->parent > 0) {
			server_ckpt_path(s, p->parent, p->shard, path,
			    sizeof path);
			free(p->ckpt);
			p->ckpt = NULL;
			if (access(path, F_OK) == -1 &&
			    store_checkpoint_get(s->store, p->rowid, &p->ckpt,
			    &p->ckpt_len) == -1)
				rc = -1;
		}
		if (rc == -1) {
			store_rollback(s->store);
			goto busy;
		}
		p->claim = rc;
	}
	if (store_commit(s->store) == -1)
		goto busy;
	server_wq_committed(s, wrote);
	for (i = 0; i < n; i++) {
		if (batch[i]->claim == -2) {	/* no slot of its batch */
			batch[i]->claim = 0;
			continue;
		}
		for (pp = &s->pend; *pp != batch[i]; pp = &(*pp)->next)
			;
		p = *pp;
		*pp = p->next;
		if (s->pend_tail == &p->next)
			s->pend_tail = pp;
		server_pend_gone(s, p);
		if (p->claim)
			server_start(s, p);
		free(p->ckpt);
		free(p);
	}
	goto out;
busy:
	server_store_trouble(s, "claim");
out:
	free(batch);
	free(blocked);
	server_pend_arm(s);
	if (cut)
		server_pend_soon(s);
}

/* Pump again at the next loop iteration. */
void
server_pend_soon(struct server *s)
{
	ev_timer_stop(s->loop, &s->pend_w);
	ev_timer_set(&s->pend_w, 0, 0);
	ev_timer_start(s->loop, &s->pend_w);
}

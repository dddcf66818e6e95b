/*
 * server-batch.c -- batch instances: one instance split into shards.
 *
 * A batch job's instance is claimed like any other (dispatch, overlap,
 * misfire: unchanged).  Its list of shards is then made once: from
 * `shards` at once, or from the output of `shards_from`, run as the
 * instance's first attempt.  server_batch_record writes the list on the
 * instance's row and a queued row per shard (store_batch_begin: the
 * instance gives up its lease, each shard has its own), and once that
 * commits each shard is a pending entry, claimed by its row and started,
 * retried, fenced, failed over and recovered as instances are
 * (server-run.c, server-sched.c), shard_parallel at a time.
 *
 * When a shard's end is final, a settle follows it in the write queue:
 * store_batch_settle decides the instance once every shard is final, in
 * one conditional update of its row (on a shared database the row is
 * locked first, so that exactly one node decides).  The node that
 * decides logs the instance's end and runs on_failure once, with the
 * failed shards in TICKD_FAILED_SHARDS.
 *
 * A batch counts as one running instance of its job (j->nruns) from its
 * list's recording to its end: overlap and misfire see the instance, not
 * its shards.  Batches found running in the store (a restart, a replay,
 * another node's on a shared database) are followed the same way.
 *
 * Checkpoints: TICKD_CHECKPOINT names a file private to (instance,
 * shard) in the state's directory.  Its content (CKPT_MAX bytes) is saved
 * on the shard's row at each lease renewal and attempt end, and written
 * back to the file before an attempt on a host that lacks it.
 *
 * DIAGNOSTICS: a batch's begin and end are journal events; a checkpoint
 * that cannot be read or written is a warning, and the attempt runs.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "clock.h"
#include "conf.h"
#include "envp.h"
#include "log.h"
#include "policy.h"
#include "runner.h"
#include "schedule.h"
#include "server-int.h"
#include "store.h"
#include "xmalloc.h"

#define CKPT_MAX	(64 * 1024)	/* bytes of a checkpoint saved */

/* Whether a job's instances are batches. */
int
server_is_batch(const struct job_def *d)
{
	return d != NULL && (d->shards != NULL || d->shards_from != NULL);
}

/* The batch of instance row rowid this daemon follows, or NULL. */
struct batch *
server_batch_find(const struct server *s, int64_t rowid)
{
	struct batch *b;

	for (b = s->batches; b != NULL; b = b->next)
		if (b->rowid == rowid)
			return b;
	return NULL;
}

/* An origin as one of the static strings (a shard's "manual#3" too). */
const char *
server_origin(const char *origin)
{
	size_t n = strcspn(origin, "#");

	if (n == 6 && strncmp(origin, "reboot", 6) == 0)
		return "reboot";
	if (n == 6 && strncmp(origin, "manual", 6) == 0)
		return "manual";
	return "schedule";
}

/* batch_timeout has passed: stop what runs, abandon what waits. */
static void
server_batch_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct batch *b = w->data;

	(void)loop;
	(void)revents;
	server_batch_stop(b->j->srv, b, "batch_timeout");
}

/*
 * Follow a batch: list its parameters, count it as a running instance of
 * j, arm its batch_timeout from started_ms (wall ms).
 */
static struct batch *
server_batch_new(struct server *s, struct sjob *j, int64_t rowid, int64_t at,
    const char *origin, const char *run_id, const char *list,
    int64_t started_ms)
{
	struct batch	*b = xcalloc(1, sizeof *b);
	double		 left;

	b->j = j;
	b->rowid = rowid;
	b->at = at;
	b->origin = server_origin(origin);
	b->run_id = xstrdup(run_id);
	b->params = policy_shards_split(list, &b->nshards);
	b->next = s->batches;
	s->batches = b;
	j->nruns++;
	ev_init(&b->timeout_w, server_batch_timeout_cb);
	b->timeout_w.data = b;
	if (j->def != NULL && j->def->pol->batch_timeout > 0) {
		left = (double)(started_ms + j->def->pol->batch_timeout * 1000 -
		    clock_wall_ms()) / 1000.0;
		ev_timer_set(&b->timeout_w, left > 0 ? left : 0.001, 0);
		ev_timer_start(s->loop, &b->timeout_w);
	}
	return b;
}

/* Drop a batch's pending shards from the FIFO. */
static void
server_batch_unpend(struct server *s, const struct batch *b)
{
	struct pending **pp;

	for (pp = &s->pend; *pp != NULL;) {
		if ((*pp)->parent == b->rowid)
			server_pend_drop(s, pp);
		else
			pp = &(*pp)->next;
	}
}

/* Stop following a batch (it ended, here or on another node). */
static void
server_batch_free(struct server *s, struct batch *b)
{
	struct batch	**bp;
	struct sjob	 *j = b->j;

	for (bp = &s->batches; *bp != NULL; bp = &(*bp)->next) {
		if (*bp == b) {
			*bp = b->next;
			break;
		}
	}
	ev_timer_stop(s->loop, &b->timeout_w);
	server_batch_unpend(s, b);
	server_batch_release(b);
	j->nruns--;
	server_gone_check(s, j);
}

/* A batch's memory (at its end, and at the daemon's). */
void
server_batch_release(struct batch *b)
{
	free(b->params[0]);
	free(b->params);
	free(b->run_id);
	free(b);
}

/* Queue the settle of a batch, after what is queued (a shard's end). */
void
server_batch_settle_later(struct server *s, int64_t parent, const char *job)
{
	struct batch	*b = server_batch_find(s, parent);
	struct wq_item	*w;

	/* Alone on the store, this daemon knows when shards are left. */
	if (!s->cluster && b != NULL && (b->nrun > 0 || b->npend > 0))
		return;
	w = server_wq_add(s, WQ_SETTLE);

	w->rowid = parent;
	w->job = xstrdup(job);
}

/*
 * Stop a batch before its end (batch_timeout, or overlap = replace):
 * its shards running here are stopped, its waiting ones abandoned, and
 * it settles once the stopped ones end.  Shards running on other nodes
 * are stopped there (their own timer), or run to their end.
 */
void
server_batch_stop(struct server *s, struct batch *b, const char *reason)
{
	struct log_job	 lj = LOG_JOB_INIT;
	struct wq_item	*w;
	struct run	*r;
	int		 n = 0;

	if (b->stop_reason != NULL)
		return;
	b->stop_reason = reason;
	for (r = b->j->runs; r != NULL; r = r->next_in_job) {
		if (r->parent != b->rowid || r->replaced || r->timed_out)
			continue;
		r->timed_out = strcmp(reason, "batch_timeout") == 0;
		runner_stop(r, r->kill_signal, r->kill_grace);
		n++;
	}
	server_batch_unpend(s, b);
	w = server_wq_add(s, WQ_BATCH_STOP);
	w->rowid = b->rowid;
	w->text = xstrdup(reason);
	w->detail = xasprintf("its batch was stopped (%s) before this shard "
	    "started", reason);
	w->started_ms = clock_wall_ms();
	server_batch_settle_later(s, b->rowid, b->j->id);
	lj.job = b->j->id;
	lj.run_id = b->run_id;
	lj.scheduled_at = b->at;
	log_job(LOG_WARNING, strcmp(reason, "batch_timeout") == 0 ?
	    LOG_EV_TIMED_OUT : LOG_EV_REPLACED, &lj, "job %s: run %s: the "
	    "batch is stopped (%s): %d shard%s running here stopped, the "
	    "waiting ones abandoned", b->j->id, b->run_id, reason, n,
	    n == 1 ? "" : "s");
}

/*
 * The shard list of a claimed instance is known (list, n lines; taken):
 * follow the batch now (it is j's running instance from here), and write
 * its shards' rows; they are pending entries once that commits
 * (server_batch_written).
 */
void
server_batch_record(struct server *s, struct sjob *j, const struct run *r,
    char *list, int n)
{
	struct wq_item	*w;
	struct batch	*b;
	struct log_job	 lj;

	b = server_batch_new(s, j, r->rowid, r->scheduled_at,
	    store_run_origin(r->run_id), r->run_id, list, clock_wall_ms());
	w = server_wq_add(s, WQ_BATCH);
	w->job = xstrdup(j->id);
	w->text = xstrdup(r->run_id);
	w->detail = list;
	w->batch.rowid = r->rowid;
	w->batch.attempt = r->attempt;
	w->batch.job = w->job;
	w->batch.scheduled_at = r->scheduled_at;
	w->batch.origin = b->origin;
	w->batch.run_id = w->text;
	w->batch.trigger = strcmp(r->trigger, "manual") == 0 ? "manual" :
	    "schedule";
	w->batch.list = w->detail;
	w->batch.nshards = n;
	w->batch.now_ms = clock_wall_ms();
	runner_log_job(r, &lj);
	log_job(LOG_INFO, LOG_EV_NONE, &lj, "job %s: run %s is a batch of %d "
	    "shard%s%s", j->id, r->run_id, n, n == 1 ? "" : "s",
	    j->def != NULL && j->def->pol->shard_parallel > 0 &&
	    j->def->pol->shard_parallel < n ? ", run shard_parallel at a time" :
	    "");
}

/*
 * A claimed instance of a batch job begins: its shards_from command
 * runs as its process (0: the caller starts it), or its static list is
 * recorded now (1: nothing to start).
 */
int
server_batch_begin(struct server *s, struct sjob *j, struct run *r)
{
	char	*list, *cause;
	int	 n;

	if (j->def->shards_from != NULL) {
		r->lister = 1;
		return 0;
	}
	if ((n = policy_shards_list(j->def->shards, &list, &cause)) == -1) {
		/* The load checked it: cannot happen. */
		server_spawn_failed(s, r, cause);
		free(cause);
		return 1;
	}
	server_batch_record(s, j, r, list, n);
	return 1;
}

/*
 * A shards_from command ended: its list in *list (n > 0 returned; the
 * caller records it after the attempt's end), or why not in o->why (0:
 * the instance's attempt failed, reason shards_from, or its only_if
 * skipped it).
 */
int
server_batch_listed(const struct sjob *j, const struct run *r,
    struct server_outcome *o, char **listp)
{
	char	*list = NULL, *cause = NULL;
	int	 n;

	*listp = NULL;
	if (r->unmet && !o->failed)	/* its only_if skipped the instance */
		return 0;
	if (strcmp(o->status, "succeeded") == 0) {
		if (r->capture_over)
			cause = xasprintf("it printed more than %d bytes",
			    RUNNER_CAPTURE_MAX);
		else if ((n = policy_shards_from(r->capture != NULL ?
		    r->capture : "", r->capture_len, &list, &cause)) != -1 &&
		    j->def != NULL) {
			*listp = list;
			return n;
		}
		o->status = "failed";
		o->failed = 1;
		o->exit_status = 0;
		(void)snprintf(o->why, sizeof o->why, "shards_from: %s",
		    cause != NULL ? cause : "the job was removed");
		free(list);
		free(cause);
	} else if (o->failed) {
		char why[sizeof o->why];

		(void)snprintf(why, sizeof why, "%s", o->why);
		(void)snprintf(o->why, sizeof o->why, "shards_from: %.230s",
		    why);
	}
	o->reason = "shards_from";
	return 0;
}

/* The write of a WQ_BATCH or WQ_SETTLE committed. */
void
server_batch_written(struct server *s, struct wq_item *w)
{
	struct batch	*b;
	struct log_job	 lj = LOG_JOB_INIT;
	int		 i;

	if (w->kind == WQ_SETTLE) {
		if (w->done == 1)
			server_batch_final(s, w->rowid, w->job, &w->settled);
		return;
	}
	if ((b = server_batch_find(s, w->batch.rowid)) == NULL)
		return;
	if (w->done == 0) {		/* taken over meanwhile */
		lj.job = b->j->id;
		lj.run_id = b->run_id;
		log_job(LOG_WARNING, LOG_EV_NONE, &lj, "job %s: run %s: its "
		    "claim was lost before its shards were recorded: left to "
		    "the node that holds it", b->j->id, b->run_id);
		server_batch_free(s, b);
		return;
	}
	b->ready = 1;
	for (i = 0; i < b->nshards && !b->stop_reason; i++)
		server_pend_shard(s, b, i, w->ids[i], w->batch.trigger, 0);
	server_pend_soon(s);
}

/* Remove a batch's checkpoint directory (it succeeded). */
static void
server_batch_ckpt_forget(struct server *s, int64_t parent)
{
	struct dirent	*e;
	DIR		*d;
	char		 path[PATH_MAX];
	int		 fd;

	server_ckpt_path(s, parent, -1, path, sizeof path);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		(void)close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			(void)unlinkat(dirfd(d), e->d_name, 0);
	}
	(void)closedir(d);
	if (rmdir(path) == -1 && errno != ENOENT)
		log_warn("checkpoints: removing %s: %s", path,
		    strerror(errno));
}

/*
 * At the start: the checkpoints of batches that succeeded or were
 * pruned (on another node, or while this daemon was down) go.
 */
void
server_ckpt_sweep(struct server *s)
{
	struct dirent	*e;
	DIR		*d;
	char		 path[PATH_MAX], status[32], *end;
	int64_t		 id;
	int		 rc;

	server_ckpt_path(s, 0, -1, path, sizeof path);
	*strrchr(path, '/') = '\0';
	if ((d = opendir(path)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		id = strtoll(e->d_name, &end, 10);
		if (*end != '\0' || id <= 0)
			continue;
		if ((rc = store_run_status(s->store, id, status,
		    sizeof status)) == -1)
			break;
		if (rc == 0 || strcmp(status, "succeeded") == 0)
			server_batch_ckpt_forget(s, id);
	}
	(void)closedir(d);
}

/*
 * A batch's end was decided here (settled): the journal, its
 * checkpoints, and what an instance's end does for its job (on_failure
 * once, the dead man's switch, the history's trim, "after" schedules).
 */
void
server_batch_final(struct server *s, int64_t rowid, const char *job,
    const struct store_settled *st)
{
	struct sjob	*j = server_job(s, job);
	struct batch	*b = server_batch_find(s, rowid);
	struct log_job	 lj = LOG_JOB_INIT;
	int64_t		 now_ms = clock_wall_ms();
	int		 ok = strcmp(st->status, "succeeded") == 0;

	lj.job = job;
	lj.run_id = st->run_id;
	lj.scheduled_at = st->scheduled_at;
	log_job(ok ? LOG_INFO : strcmp(st->status, "dead") == 0 ? LOG_ERR :
	    LOG_WARNING, ok ? LOG_EV_SUCCEEDED : strcmp(st->status, "dead") ==
	    0 ? LOG_EV_DEAD : LOG_EV_FAILED, &lj, "job %s: run %s (a batch) "
	    "%s: %s", job, st->run_id, st->status, st->detail);
	if (b != NULL)
		server_batch_free(s, b);
	if (ok)
		server_batch_ckpt_forget(s, rowid);
	if (j == NULL || j->def == NULL)
		return;
	if (ok) {
		j->last_success = now_ms;
		if (j->st.overdue_alerted != -1) {
			j->st.overdue_alerted = -1;
			server_job_save(s, j);
		}
		server_overdue_arm(s, j);
	} else if (strcmp(st->status, "failed") == 0 ||
	    strcmp(st->status, "dead") == 0)
		server_hook(s, j, st->status, st->reason, rowid,
		    st->scheduled_at, st->attempt, -1, -1, st->run_id,
		    st->failed != NULL ? st->failed : "", st->total);
	server_count_end(s, j);
	if (schedule_kind(j->def->schedule) == SCHEDULE_AFTER) {
		j->last_end = now_ms / 1000;
		server_plan(s, j, now_ms / 1000);
	}
	server_pend_soon(s);
	server_rearm(s);
}

/*
 * A batch instance found running in the store: followed from now on
 * (unless it is already), its end checked.  A batch of a job no longer
 * configured here is stopped: nothing here would run its shards.
 */
void
server_batch_found(const struct store_found *f, void *arg)
{
	struct server	*s = arg;
	struct sjob	*j = server_job(s, f->job);
	struct batch	*b;
	struct wq_item	*w;

	if ((b = server_batch_find(s, f->rowid)) != NULL) {
		b->seen = 1;
		return;
	}
	if (j == NULL || j->def == NULL) {
		if (s->cluster)		/* another node may run it */
			return;
		w = server_wq_add(s, WQ_BATCH_STOP);
		w->rowid = f->rowid;
		w->text = xstrdup("removed");
		w->detail = xstrdup("its job is no longer configured");
		w->started_ms = clock_wall_ms();
		server_batch_settle_later(s, f->rowid, f->job);
		return;
	}
	b = server_batch_new(s, j, f->rowid, f->scheduled_at, f->origin,
	    f->run_id, f->shards, f->run_started_ms > 0 ? f->run_started_ms :
	    clock_wall_ms());
	b->ready = 1;
	b->seen = 1;
	server_batch_settle_later(s, f->rowid, f->job);
}

/* Whether this daemon runs or waits to run the shard at rowid. */
static int
server_shard_known(const struct server *s, const struct batch *b,
    int64_t rowid)
{
	const struct pending	*p;
	const struct run	*r;

	for (p = s->pend; p != NULL; p = p->next)
		if (p->rowid == rowid)
			return 1;
	for (r = b->j->runs; r != NULL; r = r->next_in_job)
		if (r->rowid == rowid)
			return 1;
	return 0;
}

/* A waiting shard found in the store: pending here, unless it is. */
static void
server_shard_found(const struct store_found *f, void *arg)
{
	struct server	*s = arg;
	struct sjob	*j = server_job(s, f->job);

	if (j != NULL)
		server_pend_found(s, j, f, server_found_trigger(f),
		    f->retry_at > 0 ? f->retry_at : 0);
}

/*
 * Follow the batch at rowid (running again: a replay), and take its
 * waiting shards.  Outside a transaction; 0 or -1.
 */
int
server_batch_load(struct server *s, int64_t rowid)
{
	if (store_batches(s->store, rowid, server_batch_found, s) == -1 ||
	    store_shards_waiting(s->store, rowid, server_shard_found, s) == -1)
		return -1;
	server_pend_soon(s);
	return 0;
}

/*
 * On a shared database: the batches that run (any node's) and their
 * waiting shards, so that free slots here take them; batches that ended
 * on another node are no longer followed.  0 or -1.
 */
int
server_batch_scan(struct server *s)
{
	struct batch	*b, *next;

	for (b = s->batches; b != NULL; b = b->next)
		b->seen = !b->ready;	/* not committed yet: not looked for */
	if (store_batches(s->store, -1, server_batch_found, s) == -1)
		return -1;
	for (b = s->batches; b != NULL; b = next) {
		next = b->next;
		if (!b->seen && b->nrun == 0)
			server_batch_free(s, b);
		else if (b->ready && !b->stop_reason &&
		    store_shards_waiting(s->store, b->rowid, server_shard_found,
		    s) == -1)
			return -1;
	}
	return 0;
}

/*
 * With nodes: look for batches and their waiting shards every
 * SERVER_BATCH_SCAN seconds (a query of the live batches' index alone
 * when there are none), so that a node with free slots joins a batch
 * another began.
 */
void
server_batch_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server *s = w->data;

	(void)loop;
	(void)revents;
	if (s->stopping || s->store_trouble)
		return;
	if (server_batch_scan(s) == -1) {
		server_store_trouble(s, "batches");
		return;
	}
	server_pump(s);
}

/*
 * A pending entry for shard i of batch b (its row rowid): what it waits
 * for is its batch's shard_parallel, not its job's overlap.
 */
struct pending *
server_pend_shard(struct server *s, struct batch *b, int i, int64_t rowid,
    const char *trigger, int64_t not_before)
{
	struct pending *p = xcalloc(1, sizeof *p);

	p->j = b->j;
	p->at = b->at;
	p->shard = i;
	p->parent = b->rowid;
	(void)snprintf(p->obuf, sizeof p->obuf, "%s#%d", b->origin, i);
	p->origin = p->obuf;
	p->trigger = trigger;
	p->rowid = rowid;
	p->not_before = not_before;
	p->due_ms = not_before > 0 ? not_before : clock_wall_ms();
	server_pend_link(s, p);
	return p;
}

/*
 * An instance or a shard found waiting in the store (a restart, a
 * failover): pending here.  A shard of a batch not followed here yet is
 * left for the scan that finds its batch; one already here is not added
 * twice.
 */
void
server_pend_found(struct server *s, struct sjob *j, const struct store_found *f,
    const char *trigger, int64_t not_before)
{
	struct batch *b;

	if (f->parent <= 0) {
		server_pend_add(s, j, f->scheduled_at, f->origin, trigger,
		    f->rowid, not_before);
		return;
	}
	if ((b = server_batch_find(s, f->parent)) == NULL || b->stop_reason ||
	    server_shard_known(s, b, f->rowid) || f->shard < 0 ||
	    f->shard >= b->nshards)
		return;
	server_pend_shard(s, b, f->shard, f->rowid, trigger, not_before);
}

/* Whether a pending shard may start now, `more` of its batch before it. */
int
server_shard_can_start(const struct server *s, const struct pending *p,
    int more, int64_t now_mono)
{
	const struct job_def	*d = p->j->def;
	const struct batch	*b = server_batch_find(s, p->parent);

	if (d == NULL || p->j->st.paused || p->j->throttle_until > now_mono ||
	    b == NULL || !b->ready || b->stop_reason != NULL)
		return 0;
	return d->pol->shard_parallel <= 0 ||
	    b->nrun + more < d->pol->shard_parallel;
}

/*
 * The checkpoint of shard `shard` of instance row parent (or, with shard
 * -1, the instance's directory): DIR/checkpoints/PARENT/SHARD, DIR the
 * state's directory.
 */
void
server_ckpt_path(const struct server *s, int64_t parent, int shard,
    char *buf, size_t len)
{
	const char	*slash = strrchr(s->state, '/');
	int		 dlen = slash != NULL ? (int)(slash - s->state) : 1;

	if (shard < 0)
		(void)snprintf(buf, len, "%.*s/checkpoints/%" PRId64, dlen,
		    slash != NULL ? s->state : ".", parent);
	else
		(void)snprintf(buf, len, "%.*s/checkpoints/%" PRId64 "/%d",
		    dlen, slash != NULL ? s->state : ".", parent, shard);
}

/*
 * Read a checkpoint file (a regular file, never through a link): 1 with
 * *buf (allocated, at most CKPT_MAX bytes) and its mtime in *mtime (ns),
 * 0 when there is none, -1 (logged).
 */
static int
server_ckpt_read(const char *path, char **buf, size_t *len, int64_t *mtime)
{
	struct stat	st;
	ssize_t		n;
	int		fd;

	*buf = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		(void)close(fd);
		return -1;
	}
	*mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 +
	    st.st_mtim.tv_nsec;
	*buf = xmalloc(CKPT_MAX);
	while ((n = read(fd, *buf + *len, CKPT_MAX - *len)) > 0)
		*len += (size_t)n;
	(void)close(fd);
	if (n == -1) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	return 1;
}

/*
 * Queue the save of a shard's checkpoint if it changed since the last
 * (at lease renewals, and with force at its attempt's end, after the
 * end's record: the same attempt fences both).
 */
void
server_ckpt_save(struct server *s, struct run *r, int force)
{
	struct wq_item	*w;
	struct stat	 st;
	char		*buf;
	size_t		 len;
	int64_t		 mtime = -1;

	if (r->ckpt == NULL)
		return;
	if (!force && (lstat(r->ckpt, &st) == -1 ||
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec ==
	    r->ckpt_saved))
		return;
	switch (server_ckpt_read(r->ckpt, &buf, &len, &mtime)) {
	case 1:
		break;
	case 0:
		return;
	default:
		log_warn("job %s: run %s shard %d: its checkpoint %s cannot "
		    "be read: %s", r->job, r->run_id, r->shard, r->ckpt,
		    strerror(errno));
		return;
	}
	r->ckpt_saved = mtime;
	w = server_wq_add(s, WQ_CHECKPOINT);
	w->rowid = r->rowid;
	w->attempt = r->attempt;
	w->tail = buf;
	w->end.tail_len = len;
}

/* At a lease renewal: the checkpoints of the shards running here. */
void
server_ckpt_save_all(struct server *s)
{
	struct batch	*b;
	struct run	*r;

	for (b = s->batches; b != NULL; b = b->next) {
		if (b->nrun == 0)
			continue;
		for (r = b->j->runs; r != NULL; r = r->next_in_job)
			if (r->parent == b->rowid)
				server_ckpt_save(s, r, 0);
	}
}

/*
 * A job whose user is not the daemon's reaches its checkpoint only
 * through the state's directory: say so (once per batch) when that
 * directory does not let others through.
 */
static void
server_ckpt_reach(const struct server *s, const struct job_def *d,
    const struct run *r)
{
	struct stat	 st;
	char		*dir = xstrdup(s->state), *slash;

	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	if (d->cred.uid != geteuid() && stat(slash != NULL ? dir : ".",
	    &st) == 0 && (st.st_mode & S_IXOTH) == 0)
		log_warn("job %s: run %s: its user %s cannot reach "
		    "TICKD_CHECKPOINT: the state's directory %s does not let "
		    "others through (chmod o+x, mode 0711)", r->job, r->run_id,
		    d->cred.user, slash != NULL ? dir : ".");
	free(dir);
}

/*
 * Before a shard's attempt: its checkpoint's directory, made for the
 * job's user (the job writes there: a file of its own beside it to
 * rename over it is fine), and the checkpoint as the store has it when
 * this host has none (a shard that ran on another node).
 */
void
server_ckpt_prepare(struct server *s, const struct job_def *d, struct run *r,
    const void *saved, size_t len)
{
	struct batch	*b = server_batch_find(s, r->parent);
	char		 path[PATH_MAX], *slash;
	int		 fd;

	server_ckpt_path(s, r->parent, r->shard, path, sizeof path);
	r->ckpt = xstrdup(path);
	slash = strrchr(path, '/');
	*slash = '\0';
	if (b != NULL && b->dir_made)
		goto made;
	if ((slash = strrchr(path, '/')) != NULL) {
		*slash = '\0';
		if (mkdir(path, 0711) == -1 && errno != EEXIST)
			goto fail;
		*slash = '/';
	}
	if (mkdir(path, 0700) == -1) {
		if (errno != EEXIST)
			goto fail;
	} else if (d->cred.uid != geteuid() && chown(path, d->cred.uid,
	    d->cred.gid) == -1)
		goto fail;
	if (b != NULL)
		b->dir_made = 1;
	server_ckpt_reach(s, d, r);
made:
	if (saved == NULL)
		return;
	/* Never through what the job may have put there: a new file. */
	if ((fd = open(r->ckpt, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1) {
		if (errno == EEXIST)	/* this host's own is newer */
			return;
		goto fail;
	}
	if ((d->cred.uid != geteuid() && fchown(fd, d->cred.uid,
	    d->cred.gid) == -1) || write(fd, saved, len) != (ssize_t)len) {
		(void)close(fd);
		(void)unlink(r->ckpt);
		goto fail;
	}
	(void)close(fd);
	return;
fail:
	log_warn("job %s: run %s shard %d: its checkpoint %s: %s", r->job,
	    r->run_id, r->shard, path, strerror(errno));
}

/* A shard's environment, beside its instance's (server_env). */
void
server_shard_env(const struct server *s, const struct run *r,
    struct envp *e)
{
	const struct batch	*b = server_batch_find(s, r->parent);
	char			 num[32], *id;

	(void)snprintf(num, sizeof num, "%d", r->shard);
	envp_set(e, "TICKD_SHARD_INDEX", num);
	(void)snprintf(num, sizeof num, "%d", b != NULL ? b->nshards : 0);
	envp_set(e, "TICKD_SHARD_COUNT", num);
	envp_set(e, "TICKD_SHARD", b != NULL && r->shard < b->nshards ?
	    b->params[r->shard] : "");
	id = xasprintf("%s#%d", r->run_id, r->shard);
	envp_set(e, "TICKD_SHARD_RUN_ID", id);
	free(id);
	envp_set(e, "TICKD_CHECKPOINT", r->ckpt != NULL ? r->ckpt : "");
}

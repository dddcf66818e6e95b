/*
 * server-cluster.c -- what a node does beyond a lone daemon when several
 * share a server's database (state = postgresql://...).
 *
 * Every node computes the same instants; the database decides who acts
 * on each.  A job's row is its lock and its cursor: the dispatch takes it
 * (SELECT ... FOR UPDATE) before deciding anything about the job, reads
 * the last instant any node decided and skips what is decided already,
 * and counts the job's instances running elsewhere, so that overlap and
 * max_parallel hold across nodes.  The claim's unique key makes a lost
 * race a silent no-op: the loser records nothing.
 *
 * A node renews the leases of its runs on the server's clock
 * (store_lease_renew); when a node dies, its leases run out, and every
 * survivor's scan (server_cluster_cb, every lease / 3) finds them: one
 * survivor settles each instance by its job's `recover` (a process on
 * another host cannot be adopted: rerun, or abandon), conditionally on
 * the lease still being expired and the attempt unchanged, so that only
 * one does.  A rerun is an entry of the settling node's pending FIFO,
 * claimed by its row like any interrupted instance.
 *
 * Each scan is also the node's heartbeat (the nodes table): its clock's
 * offset to the server's, measured there (a node further off than
 * max_clock_skew claims nothing until it is back: its instants would not
 * be the others'), how many runs it has, and a hash of its job
 * definitions, compared with the other live nodes' (one whose job files
 * differ is reported at error level).
 *
 * A node that cannot renew its leases for half a lease fences itself: it
 * stops its runs (their kill_signal, then SIGKILL within a quarter of the
 * lease, so that they are gone before the lease runs out and another
 * node may rerun them) and claims nothing until a renewal succeeds.  Its
 * records of those runs say interrupted (lease_lost), or are refused if
 * another node took them over meanwhile.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>

#include "clock.h"
#include "conf.h"
#include "log.h"
#include "policy.h"
#include "runner.h"
#include "server-int.h"
#include "store.h"
#include "xmalloc.h"

/* Jobs named when a node's definitions differ from this one's. */
#define SERVER_DIFF_MAX	8

/* j was paused on another node: say so, and hold what of it waits. */
static void
server_cluster_paused(struct server *s, struct sjob *j)
{
	struct log_job lj = LOG_JOB_INIT;

	lj.job = j->id;
	log_job(LOG_NOTICE, LOG_EV_NONE, &lj, "job %s: paused on another node",
	    j->id);
	(void)server_pend_pause(s, j);
}

/*
 * Take j's row, the lock that serialises the decisions about the job
 * across nodes, into *st, and count its instances running on other nodes
 * (j->nelse).  1, 0 when it has no row yet, -1.
 */
int
server_cluster_lock(struct server *s, struct sjob *j, struct store_job *st)
{
	int64_t	elsewhere = 0;
	int	rc;

	j->nelse = 0;
	if ((rc = store_job_lock(s->store, j->id, s->owner, st,
	    &elsewhere)) == 1)
		j->nelse = (int)elsewhere;
	return rc;
}

/*
 * Take the job's row in the dispatch transaction and read what other
 * nodes did: the last instant decided (the cursor), the pause, and how
 * many of its instances run elsewhere (j->nelse).  1 when another node
 * has decided this instant already, or paused the job: nothing is
 * recorded here (*planned is the cursor); 0 to decide; -1.
 */
int
server_cluster_job(struct server *s, struct sjob *j, int64_t *planned)
{
	struct store_job	st;
	int			rc;

	if ((rc = server_cluster_lock(s, j, &st)) != 1)
		return rc;		/* no row yet: decide here */
	if (st.paused && !j->st.paused) {
		j->st.paused = 1;	/* paused from another node */
		server_cluster_paused(s, j);
		*planned = st.planned != -1 ? st.planned : j->st.planned;
		return 1;
	}
	if (st.planned != -1 && st.planned >= j->next_at) {
		*planned = st.planned;
		return 1;
	}
	return 0;
}

/* Whether a run's owner ("NODE:PID") is a daemon of this node. */
int
server_cluster_ours(const struct server *s, const char *owner)
{
	size_t n = strlen(s->node);

	return owner != NULL && strncmp(owner, s->node, n) == 0 &&
	    owner[n] == ':';
}

/*
 * Settle an instance that runs under no live node: one whose node's
 * lease expired (see the top), or with ours set one of this daemon's
 * whose claim it does not know (server_ghost_one).
 */
static void
server_settle(struct server *s, const struct store_found *f, int ours)
{
	struct sjob	*j = server_job(s, f->job);
	struct log_job	 lj = LOG_JOB_INIT;
	char		 detail[256];
	int		 rerun, rc;

	rerun = j != NULL && j->def != NULL &&
	    j->def->pol->recover == POLICY_RECOVER_RERUN;
	if (ours)
		(void)snprintf(detail, sizeof detail, "its claim was committed "
		    "though the server did not answer the commit in time: "
		    "no process started");
	else
		(void)snprintf(detail, sizeof detail, "its node (%s) stopped "
		    "renewing its lease, and a process on another host cannot "
		    "be followed", f->owner != NULL ? f->owner : "?");
	rc = store_run_expire(s->store, f, ours ? s->owner : NULL, rerun ?
	    "interrupted" : "abandoned", j == NULL ? "removed" : "lease_lost",
	    detail, clock_wall_ms());
	if (rc == -1) {
		server_store_trouble(s, "failover");
		return;
	}
	if (rc == 0)		/* another node settled it, or it lives */
		return;
	lj.job = f->job;
	lj.run_id = f->run_id;
	lj.attempt = f->attempt;
	log_job(LOG_WARNING, LOG_EV_RECOVERED, &lj, "job %s: run %s attempt "
	    "%d: %s: %s", f->job, f->run_id, f->attempt, detail, rerun ?
	    "rerun here (recover = rerun)" : j == NULL ? "abandoned (the job "
	    "is gone)" : "abandoned (recover = abandon)");
	if (rerun)
		server_pend_found(s, j, f, "recover", f->parent > 0 ? 0 :
		    f->scheduled_at * 1000);
	else if (f->parent > 0)
		server_batch_settle_later(s, f->parent, f->job);
}

static void
server_failover_one(const struct store_found *f, void *arg)
{
	server_settle(arg, f, 0);
}

/* The run of this daemon at rowid, or NULL. */
static struct run *
server_run_of(const struct server *s, int64_t rowid)
{
	struct run	*r;
	size_t		 i;

	for (i = 0; i < s->njobs; i++)
		for (r = s->jobs[i]->runs; r != NULL; r = r->next_in_job)
			if (r->rowid == rowid)
				return r;
	for (i = 0; i < s->ngone; i++)
		for (r = s->gone[i]->runs; r != NULL; r = r->next_in_job)
			if (r->rowid == rowid)
				return r;
	return NULL;
}

/* Whether this daemon knows the instance at rowid: running, waiting, ended. */
static int
server_knows(const struct server *s, int64_t rowid)
{
	const struct pending	*p;
	const struct wq_item	*w;

	if (server_run_of(s, rowid) != NULL)
		return 1;
	for (p = s->pend; p != NULL; p = p->next)
		if (p->rowid == rowid || (p->claim &&
		    p->claimed.rowid == rowid))
			return 1;
	for (p = s->held; p != NULL; p = p->next)
		if (p->claim && p->claimed.rowid == rowid)
			return 1;
	/* Ended, its end not written yet (a slow or busy store). */
	for (w = s->wq; w != NULL; w = w->next)
		if (w->kind == WQ_END && w->end.rowid == rowid)
			return 1;
	return 0;
}

/*
 * A row running under this daemon's own lease that it does not know: a
 * claim whose COMMIT failed as far as the daemon could tell (the server
 * stopped answering after it was sent) but was applied.  Its process was
 * never started; unsettled, it would stay running under a lease this
 * daemon renews, and never run.
 */
static void
server_ghost_one(const struct store_found *f, void *arg)
{
	struct server *s = arg;

	if (!server_knows(s, f->rowid))
		server_settle(s, f, 1);
}

/* The walk of server_cluster_drift: the live nodes whose hash differs. */
struct server_drift {
	struct server		*s;
	int64_t			 now_ms;	/* the server's */
	struct server_peer	*v;
	size_t			 n;
};

static void
server_drift_one(const struct store_node *n, void *arg)
{
	struct server_drift	*d = arg;
	struct server_peer	*p;

	if (strcmp(n->node, d->s->node) == 0 || n->defs_hash == NULL ||
	    strcmp(n->defs_hash, d->s->defs_hash) == 0 ||
	    d->now_ms - n->heartbeat_ms > d->s->conf->lease * 3000)
		return;
	d->v = xreallocarray(d->v, d->n + 1, sizeof *d->v);
	p = &d->v[d->n++];
	p->node = xstrdup(n->node);
	(void)snprintf(p->hash, sizeof p->hash, "%s", n->defs_hash);
}

/* The walk of server_drift_node: the jobs that differ, for people. */
struct server_diff {
	char	jobs[384];
	int	n;
};

static void
server_diff_one(const char *job, int here, int there, void *arg)
{
	struct server_diff	*d = arg;
	size_t			 len = strlen(d->jobs);

	if (++d->n > SERVER_DIFF_MAX)
		return;
	(void)snprintf(d->jobs + len, sizeof d->jobs - len, "%s%s%s%s",
	    len > 0 ? ", " : "", job, !there ? " (only here)" : "",
	    !here ? " (only there)" : "");
}

/* Say which jobs of node (a live one whose hash differs) differ. 0, -1. */
static int
server_drift_node(struct server *s, const char *node)
{
	struct server_diff	d;

	memset(&d, 0, sizeof d);
	if (store_node_diff(s->store, s->node, node, SERVER_DIFF_MAX + 1,
	    server_diff_one, &d) == -1)
		return -1;
	if (d.n == 0)		/* its jobs' own hashes are not there */
		log_err("node %s: its job definitions differ from this "
		    "node's (%s): every node must have the same job files",
		    node, s->node);
	else
		log_err("node %s: the definition%s of %s%s differ%s from "
		    "this node's (%s): every node must have the same job "
		    "files", node, d.n == 1 ? "" : "s", d.jobs,
		    d.n > SERVER_DIFF_MAX ? ", ..." : "", d.n == 1 ? "s" : "",
		    s->node);
	return 0;
}

/* Free n peers. */
void
server_peers_free(struct server_peer *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].node);
	free(v);
}

/*
 * Report the live nodes whose job definitions differ from this one's,
 * each once (again when its definitions change).  0 or -1.
 */
static int
server_cluster_drift(struct server *s, int64_t now_ms)
{
	struct server_drift	d;
	size_t			i, k;

	memset(&d, 0, sizeof d);
	d.s = s;
	d.now_ms = now_ms;
	if (store_nodes(s->store, server_drift_one, &d) == -1)
		goto fail;
	for (i = 0; i < d.n; i++) {
		for (k = 0; k < s->ndrift; k++)
			if (strcmp(s->drift[k].node, d.v[i].node) == 0 &&
			    strcmp(s->drift[k].hash, d.v[i].hash) == 0)
				break;
		if (k == s->ndrift && server_drift_node(s, d.v[i].node) == -1)
			goto fail;
	}
	server_peers_free(s->drift, s->ndrift);
	s->drift = d.v;
	s->ndrift = d.n;
	return 0;
fail:
	server_peers_free(d.v, d.n);
	return -1;
}

/*
 * The hash the beat records, of the definitions loaded (at start,
 * reload); when it changed, the jobs' own hashes go to node_jobs at the
 * next beat (a reload that changed no job writes none of them).
 */
void
server_cluster_defs(struct server *s)
{
	char hash[sizeof s->defs_hash];

	(void)snprintf(hash, sizeof hash, "%016" PRIx64,
	    conf_defs_hash(s->conf));
	if (strcmp(hash, s->defs_hash) == 0)
		return;
	(void)snprintf(s->defs_hash, sizeof s->defs_hash, "%s", hash);
	s->defs_synced = 0;
}

/* Record this node's job definitions, one hash a job.  0 or -1. */
static int
server_cluster_jobs(struct server *s)
{
	struct store_node_job	*v;
	char			(*hash)[CONF_HASH_HEX];
	size_t			 i, n = s->conf->njobs;
	int			 rc;

	v = xreallocarray(NULL, n + 1, sizeof *v);
	hash = xreallocarray(NULL, n + 1, sizeof *hash);
	for (i = 0; i < n; i++) {
		conf_job_hash(s->conf->jobs[i], hash[i]);
		v[i].job = s->conf->jobs[i]->id;
		v[i].hash = hash[i];
	}
	if ((rc = store_begin(s->store)) == 0) {
		if ((rc = store_node_jobs(s->store, s->node, v, n)) == 0)
			rc = store_commit(s->store);
		else
			store_rollback(s->store);
	}
	free(v);
	free(hash);
	if (rc == 0)
		s->defs_synced = 1;
	return rc;
}

/*
 * Beat: measure this node's clock against the server's (the middle of
 * the round trip against the server's reading), refuse to claim while
 * it is off by more than max_clock_skew, record the node, and report the
 * live nodes whose job definitions differ from this one's.  0 or -1.
 */
int
server_cluster_beat(struct server *s)
{
	int64_t			 t0, t1, srv;

	t0 = clock_wall_ms();
	if (store_server_now(s->store, &srv) != 1)
		return -1;
	t1 = clock_wall_ms();
	s->clock_offset_ms = (t0 + t1) / 2 - srv;
	if (llabs(s->clock_offset_ms) > s->conf->max_clock_skew * 1000) {
		if (!s->skewed)
			log_err("this node's clock is %+" PRId64 " ms off the "
			    "database server's (max_clock_skew %" PRId64 " s): "
			    "it claims nothing until it is back within",
			    s->clock_offset_ms, s->conf->max_clock_skew);
		s->skewed = 1;
	} else if (s->skewed) {
		log_notice("this node's clock is back within %" PRId64 " s of "
		    "the database server's (%+" PRId64 " ms): claiming again",
		    s->conf->max_clock_skew, s->clock_offset_ms);
		s->skewed = 0;
	}
	/* Fenced, its runs gone, and the database answers: claim again. */
	if (s->fenced && s->nrunning == 0) {
		s->fenced = 0;
		log_notice("the database answers again: this node claims "
		    "again");
	}
	/*
	 * The heartbeat first, whatever else fails; the hash only once
	 * the jobs' own are there to compare it by.
	 */
	if (store_node_put(s->store, s->node, s->owner, s->clock_offset_ms,
	    (int64_t)s->nrunning, s->defs_synced ? s->defs_hash : NULL) == -1)
		return -1;
	if (!s->defs_synced && server_cluster_jobs(s) == -1)
		return -1;
	return server_cluster_drift(s, srv);
}

/* The walk of server_cluster_pauses: mark the jobs whose row is paused. */
static void
server_paused_one(const char *id, void *arg)
{
	struct sjob *j = server_job(arg, id);

	if (j != NULL)
		j->paused_row = 1;
}

/*
 * Follow the pauses and resumes made on other nodes, at each beat: a job
 * whose row says paused is paused here too (what of it waits in the FIFO
 * is held); one paused here whose row no longer is was resumed
 * elsewhere: planned again from its row.  (A dispatch of the job learns
 * a pause sooner, server_cluster_job.)  0 or -1.
 */
static int
server_cluster_pauses(struct server *s)
{
	struct store_job	 st;
	struct log_job		 lj = LOG_JOB_INIT;
	struct sjob		*j;
	size_t			 i;
	int			 rc = 0, any = 0, changed;

	if (store_jobs_paused(s->store, server_paused_one, s) == -1)
		return -1;
	for (i = 0; i < s->njobs; i++) {
		j = s->jobs[i];
		changed = 0;
		if (j->def == NULL)
			;
		else if (j->paused_row && !j->st.paused) {
			j->st.paused = 1;
			changed = 1;
		} else if (!j->paused_row && j->st.paused) {
			if ((rc = store_job_get(s->store, j->id, &st)) == -1)
				break;
			if (rc == 1 && !st.paused) {
				j->st = st;
				changed = 1;
			}
		}
		j->paused_row = 0;
		if (!changed)
			continue;
		if (j->st.paused)
			server_cluster_paused(s, j);
		else {
			lj.job = j->id;
			log_job(LOG_NOTICE, LOG_EV_NONE, &lj, "job %s: resumed "
			    "on another node", j->id);
			(void)server_pend_pause(s, j);
		}
		server_plan(s, j, clock_wall_ms() / 1000);
		server_overdue_arm(s, j);
		any = 1;
	}
	for (; i < s->njobs; i++)	/* after a failed read */
		s->jobs[i]->paused_row = 0;
	if (any) {
		server_rearm(s);
		server_pump(s);
	}
	return rc == -1 ? -1 : 0;
}

/*
 * Every lease / 3: beat, settle what dead nodes left running, and what
 * this daemon claimed without knowing it; follow resumes made elsewhere.
 */
void
server_cluster_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server *s = w->data;

	(void)loop;
	(void)revents;
	if (s->stopping)
		return;
	if (server_cluster_beat(s) == -1 ||
	    store_runs_expired(s->store, s->owner, server_failover_one,
	    s) == -1 || store_runs_owned(s->store, s->owner, server_ghost_one,
	    s) == -1 || server_cluster_pauses(s) == -1) {
		server_store_trouble(s, "cluster");
		return;
	}
	server_pump(s);
}

/*
 * A renewal succeeded (or the first run started, under its claim's
 * lease): the node may claim again, and fences itself if half a lease
 * passes without another (server_cluster_fence_cb).
 */
void
server_cluster_renewed(struct server *s)
{
	s->lease_ok = clock_mono_ms();
	ev_timer_stop(s->loop, &s->fence_w);
	if (s->nrunning > 0) {
		ev_timer_set(&s->fence_w, (double)s->conf->lease / 2, 0);
		ev_timer_start(s->loop, &s->fence_w);
	}
	if (!s->fenced)
		return;
	s->fenced = 0;
	log_notice("leases renewed again: this node claims again");
}

/* Half a lease without a renewal: fence the node (see the top). */
void
server_cluster_fence_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server	*s = w->data;
	struct log_job	 lj = LOG_JOB_INIT;
	struct run	*r;
	double		 grace;
	size_t		 i;

	(void)loop;
	(void)revents;
	if (s->fenced || s->nrunning == 0)
		return;
	s->fenced = 1;
	log_job(LOG_ERR, LOG_EV_NONE, &lj, "leases not renewed for %" PRId64
	    " ms (lease %" PRId64 " s): this node stops its %zu runs before "
	    "their leases expire, and claims nothing until the database "
	    "answers", clock_mono_ms() - s->lease_ok, s->conf->lease,
	    s->nrunning);
	for (i = 0; i < s->njobs; i++) {
		for (r = s->jobs[i]->runs; r != NULL; r = r->next_in_job) {
			if (r->fenced)
				continue;
			r->fenced = 1;
			grace = r->kill_grace < (double)s->conf->lease / 4 ?
			    r->kill_grace : (double)s->conf->lease / 4;
			runner_stop(r, r->kill_signal, grace);
		}
	}
}

/* The walk of server_cluster_stops: stop one run, replaced elsewhere. */
static void
server_stop_one(int64_t rowid, const char *node, void *arg)
{
	struct run	*r = server_run_of(arg, rowid);
	struct log_job	 lj;

	if (r == NULL || r->replaced)
		return;
	r->replaced = 1;
	runner_log_job(r, &lj);
	log_job(LOG_NOTICE, LOG_EV_REPLACED, &lj, "job %s: run %s is replaced "
	    "by a newer instance on node %s: signal %d", r->job, r->run_id,
	    node != NULL ? node : "?", r->kill_signal);
	runner_stop(r, r->kill_signal, r->kill_grace);
}

/*
 * After a renewal: stop the runs another node replaced (overlap =
 * replace decided there, store_run_stops_ask), as a replace decided here
 * does: kill_signal, then kill_grace.
 */
void
server_cluster_stops(struct server *s)
{
	if (store_run_stops(s->store, s->owner, server_stop_one, s) == -1)
		log_warn("store: reading the runs other nodes replaced: %s",
		    store_error(s->store));
}

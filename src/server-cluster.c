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
 */
#include <stdio.h>
#include <string.h>

#include <ev.h>

#include "clock.h"
#include "log.h"
#include "policy.h"
#include "server-int.h"
#include "store.h"

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
	int64_t			elsewhere = 0;
	int			rc;

	j->nelse = 0;
	if ((rc = store_job_lock(s->store, j->id, s->owner, &st,
	    &elsewhere)) != 1)
		return rc;		/* no row yet: decide here */
	j->nelse = (int)elsewhere;
	if (st.paused && !j->st.paused) {
		j->st.paused = 1;	/* paused from another node */
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

/* Settle an instance whose node's lease expired (see the top). */
static void
server_failover_one(const struct store_found *f, void *arg)
{
	struct server	*s = arg;
	struct sjob	*j = server_job(s, f->job);
	struct log_job	 lj = LOG_JOB_INIT;
	char		 detail[256];
	int		 rerun, rc;

	rerun = j != NULL && j->def != NULL &&
	    j->def->recover == POLICY_RECOVER_RERUN;
	(void)snprintf(detail, sizeof detail, "its node (%s) stopped renewing "
	    "its lease, and a process on another host cannot be followed",
	    f->owner != NULL ? f->owner : "?");
	rc = store_run_expire(s->store, f, rerun ? "interrupted" :
	    "abandoned", j == NULL ? "removed" : "lease_lost", detail,
	    clock_wall_ms());
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
		server_pend_add(s, j, f->scheduled_at, f->origin, "recover",
		    f->rowid, f->scheduled_at * 1000);
}

/* Every lease / 3: settle what dead nodes left running. */
void
server_cluster_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct server *s = w->data;

	(void)loop;
	(void)revents;
	if (s->stopping)
		return;
	if (store_runs_expired(s->store, s->owner, server_failover_one,
	    s) == -1) {
		server_store_trouble(s, "failover");
		return;
	}
	server_pump(s);
}

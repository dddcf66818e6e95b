/*
 * server-ctl.c -- the daemon's answers to tickctl over the control socket
 * (control.c): run, replay, pause, resume, reload, define, ping.
 *
 * A manual run goes through the same overlap policy and transaction as a
 * scheduled instance (unless forced); a replay queues a failed or dead
 * instance for its next attempt; pause and resume are persisted.
 *
 * DIAGNOSTICS: every request gets one final line, OK or ERR with why.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "log.h"
#include "policy.h"
#include "rfc3339.h"
#include "runner.h"
#include "schedule.h"
#include "server.h"
#include "server-int.h"
#include "store.h"

/* --- the control socket (tickctl) ---------------------------------------- */

/*
 * tickctl run JOB [force]: a manual instance now, its instant the moment
 * of the request, or the second after the job's latest manual instance.
 * It obeys the job's overlap policy and its pause (a skipped row, reason
 * paused) unless forced, and the global max_running always.
 */
void
server_ctl_run(struct server *s, const char *id, int force,
    struct control_reply *r)
{
	struct sjob		*j = server_job(s, id);
	struct dispatch		 dp;
	struct store_job	 st;
	const struct dskip	*k = NULL;
	char			 run_id[STORE_RUN_ID_MAX];
	int64_t			 at, last;
	size_t			 i;
	int			 found;

	if (j == NULL || j->def == NULL) {
		control_err(r, "no job \"%s\"", id);
		return;
	}
	if (s->stopping) {
		control_err(r, "tickd is stopping");
		return;
	}
	server_dispatch_init(&dp, force);
	dp.room = server_room(s, s->nrunning + server_pend_startable(s));
	if (store_begin(s->store) == -1)
		goto busy;
	/* With nodes: the job's row, and what of it runs elsewhere. */
	if (s->cluster && server_cluster_lock(s, j, &st) == -1)
		goto rollback;
	/*
	 * After the job's latest manual instant, never in a freed second: a
	 * run id names one instance for good, also once retention deleted
	 * it.  (Retention deletes the latest only behind 10 newer instances,
	 * all scheduled ones, so the latest is in the past then.)
	 */
	if ((found = store_run_last(s->store, j->id, "manual", &last)) == -1)
		goto rollback;
	at = found && last >= dp.now ? last + 1 : dp.now;
	if (server_overlap(s, &dp, j, at, "manual", "manual") == -1)
		goto rollback;
	if (store_commit(s->store) == -1)
		goto busy;
	server_store_ok(s);
	store_run_id(j->id, at, "manual", run_id, sizeof run_id);
	/* Its own skip, if any: replace skips the instances it supersedes. */
	for (i = 0; i < dp.nskipped; i++) {
		if (dp.skipped[i].kind != SERVER_SKIP_REPLACED)
			k = &dp.skipped[i];
	}
	if (k != NULL && k->kind == SERVER_SKIP_PAUSED)
		control_err(r, "%s skipped: %s is paused (tickctl resume %s, "
		    "or run --force)", run_id, j->id, j->id);
	else if (k != NULL)
		control_err(r, "%s skipped (overlap = %s): %s; use --force",
		    run_id, policy_overlap_name(j->def->pol->overlap), dp.why);
	else
		control_ok(r, "%s", run_id);
	server_dispatch_apply(s, &dp);
	server_dispatch_free(&dp);
	server_pump(s);
	return;
rollback:
	store_rollback(s->store);
busy:
	/* As a dispatch pass: nothing changed, what it decided is forgotten. */
	server_store_trouble(s, "manual run");
	control_err(r, "the store is not available (%s): try again",
	    store_error(s->store));
	server_dispatch_free(&dp);
}

/*
 * tickctl replay RUN_ID: a failed or dead instance runs again under its
 * own identity (its next attempt, trigger replay) once its job may start;
 * for a paused job, after resume (the reply says so in a line of its own).
 */
void
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
	/* A batch: followed again, its requeued shards taken. */
	if (q.batch && server_batch_load(s, q.rowid) == -1)
		server_store_trouble(s, "replay");
	else if (!q.batch)
		server_pend_add(s, j, q.scheduled_at, q.origin, "replay",
		    q.rowid, 0);
	if (j->st.paused)
		control_line(r, "%s is paused: the instance waits for tickctl "
		    "resume", j->id);
	control_ok(r, "%s", run_id);
	server_pump(s);
	return;
busy:
	server_store_trouble(s, "replay");
	control_err(r, "the store is not available (%s): try again",
	    store_error(s->store));
}

/*
 * The instances of j a resume without catch_up passes over (after the
 * last one planned, up to now): *late, count 0 if none.
 */
static void
server_ctl_passed(const struct sjob *j, int64_t now, struct policy_late *late)
{
	const struct job_def	*d = j->def;
	int64_t			 first;

	memset(late, 0, sizeof *late);
	if (j->st.planned < 0 || schedule_next(d->schedule, d->tz, d->gap,
	    d->fold, j->st.planned, &first) == -1 || first > now)
		return;
	policy_scan(d->schedule, d->tz, d->gap, d->fold, first, now, late);
}

/*
 * tickctl pause JOB / resume JOB [catch_up]: persisted across restarts.
 * A paused job is planned nothing, and what of it waits to start stays
 * in the FIFO, held (server_pend_pause), until resume.  Resuming plans
 * from now, unless catch_up, which leaves the instances missed while
 * paused to the job's misfire policy; without it they are one decision
 * (skipped, reason paused), in the same transaction.
 */
void
server_ctl_pause(struct server *s, const char *id, int pause, int catch_up,
    struct control_reply *r)
{
	struct sjob	*j = server_job(s, id);
	struct store_job st;
	struct store_decision dec;
	struct policy_late late;
	struct log_job	 lj = LOG_JOB_INIT;
	char		 when[RFC3339_BUFSZ], when2[RFC3339_BUFSZ];
	char		 held[96];
	int64_t		 now_ms;
	size_t		 n;

	if (j == NULL || j->def == NULL) {
		control_err(r, "no job \"%s\"", id);
		return;
	}
	now_ms = clock_wall_ms();
	st = j->st;
	st.paused = pause;
	memset(&late, 0, sizeof late);
	if (!pause && !catch_up) {
		if (j->st.paused)
			server_ctl_passed(j, now_ms / 1000, &late);
		st.planned = now_ms / 1000;
	}
	memset(&dec, 0, sizeof dec);
	dec.job = j->id;
	dec.decision = "skipped";
	dec.reason = "paused";
	dec.first_at = late.first;
	dec.last_at = late.last;
	dec.count = late.count;
	dec.now_ms = now_ms;
	dec.run_rowid = -1;
	if (store_begin(s->store) == -1 || (late.count > 0 &&
	    store_decision_add(s->store, &dec) == -1) ||
	    store_job_put(s->store, j->id, &st, now_ms) == -1 ||
	    store_commit(s->store) == -1) {
		store_rollback(s->store);
		server_store_trouble(s, "pause");
		control_err(r, "the store is not available (%s): try again",
		    store_error(s->store));
		return;
	}
	server_store_ok(s);
	j->st = st;
	lj.job = j->id;
	if (late.count > 0) {
		lj.scheduled_at = late.last;
		log_job(LOG_NOTICE, LOG_EV_MISSED, &lj, "job %s: %s%" PRId64
		    " instance%s from %s to %s skipped (passed over while the "
		    "job was paused)", j->id, late.capped ? "at least " : "",
		    late.count, late.count == 1 ? "" : "s", server_when(late.first,
		    when, sizeof when), server_when(late.last, when2,
		    sizeof when2));
		lj.scheduled_at = -1;
	}
	server_plan(s, j, now_ms / 1000);
	server_overdue_arm(s, j);
	server_rearm(s);
	n = server_pend_pause(s, j);
	held[0] = '\0';
	if (n > 0)
		(void)snprintf(held, sizeof held, "%s%zu waiting instance%s "
		    "wait%s for tickctl resume", j->nruns > 0 ? "; " : ": ", n,
		    n == 1 ? "" : "s", n == 1 ? "s" : "");
	if (pause)
		control_ok(r, "%s paused%s%s", j->id, j->nruns > 0 ?
		    ": its running instance goes on" : "", held);
	else if (j->next_at >= 0)
		control_ok(r, "%s resumed: next at %s", j->id,
		    server_when(j->next_at, when, sizeof when));
	else
		control_ok(r, "%s resumed", j->id);
	log_job(LOG_NOTICE, LOG_EV_NONE, &lj, "job %s: %s by tickctl", j->id,
	    pause ? "paused" : catch_up ? "resumed, with what it missed" :
	    "resumed");
	if (!pause)		/* what was held may start */
		server_pump(s);
}

/*
 * tickctl define JOB: the definition the daemon runs, a line of its text
 * (job_def.text) per reply line, then OK with its "file:line".  tickctl
 * asks when the job's file no longer holds a valid definition, which the
 * daemon replaced by keeping the previous one (conf_keep_job).
 */
static void
server_ctl_define(struct server *s, const char *id, struct control_reply *r)
{
	struct sjob	*j = server_job(s, id);
	const char	*t, *nl;

	if (j == NULL || j->def == NULL || j->def->text == NULL) {
		control_err(r, "no job \"%s\"", id);
		return;
	}
	for (t = j->def->text; (nl = strchr(t, '\n')) != NULL; t = nl + 1)
		control_line(r, "%.*s", (int)(nl - t), t);
	control_ok(r, "%s:%d", j->def->file, j->def->line);
}

/* One request from tickctl. */
void
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
	else if (strcmp(argv[0], "define") == 0 && argc == 2)
		server_ctl_define(s, argv[1], r);
	else if (strcmp(argv[0], "pause") == 0 && argc == 2)
		server_ctl_pause(s, argv[1], 1, 0, r);
	else if (strcmp(argv[0], "resume") == 0 && (argc == 2 || (argc == 3 &&
	    strcmp(argv[2], "catch_up") == 0)))
		server_ctl_pause(s, argv[1], 0, argc == 3, r);
	else
		control_err(r, "unknown or malformed request \"%s\"", argv[0]);
}

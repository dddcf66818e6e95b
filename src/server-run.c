/*
 * server-run.c -- runs from fork to their recorded end.
 *
 * server_start forks a claimed instance (runner.c) and arms its timeout;
 * server_run_end classifies how it ended (success, failure kind, stopped,
 * adopted), decides between a retry (backoff with jitter, same run id)
 * and a final failed or dead status, runs on_failure, throttles a crash
 * loop, and queues the record.  The dead man's switch and the recovery
 * of instances a crashed daemon left running live here too.
 *
 * DIAGNOSTICS: spawn failures are failed attempts like any other; every
 * end is a journal event with its MESSAGE_ID.
 */
#include <sys/random.h>
#include <sys/wait.h>

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
#include "envp.h"
#include "jobenv.h"
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

/* --- starting and ending runs ---------------------------------------------- */

/* Build the environment of an attempt (caller frees with envp_free). */
void
server_env(const struct job_def *d, const struct run *r, struct envp *e)
{
	struct jobenv_run jr;

	jr.job = r->job;
	jr.run_id = r->run_id;
	jr.scheduled_at = r->scheduled_at;
	jr.attempt = r->attempt;
	jr.trigger = r->trigger;
	jr.invocation = r->invocation[0] != '\0' ? r->invocation : NULL;
	jobenv_build(d, &jr, e);
}

/* Queue the end of an attempt that never got a process. */
void
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
void
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
void
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

/*
 * Fork the process of a claimed instance or shard (p, its entry): p->at
 * is its instant, p->due_ms the moment its lateness counts from (the
 * instant, a manual run's request, a shard's turn).  A batch's instance
 * begins its batch instead (server-batch.c): its shards_from command is
 * its process, or it has none.
 */
void
server_start(struct server *s, struct pending *p)
{
	struct sjob		*j = p->j;
	const struct job_def	*d = j->def;
	const struct store_claimed *c = &p->claimed;
	struct runner_spec	 spec;
	struct envp		 env;
	struct run		*r;
	char			*cause = NULL, *id;

	server_test_stop(SERVER_TEST_CLAIM);	/* claimed, not forked */
	/* A shard runs as its instance: TICKD_RUN_ID, the journal. */
	id = xstrdup(c->run_id);
	if (p->parent > 0 && strrchr(id, '#') != NULL)
		*strrchr(id, '#') = '\0';
	r = runner_new(j->id, id, p->trigger, c->rowid, c->attempt, p->at,
	    p->due_ms);
	free(id);
	r->shard = p->parent > 0 ? p->shard : -1;
	r->parent = p->parent > 0 ? p->parent : -1;
	r->owner = j;
	if (d == NULL) {
		server_spawn_failed(s, r, "the job was removed from the "
		    "configuration");
		if (r->parent > 0)
			server_batch_settle_later(s, r->parent, j->id);
		runner_free(r);
		return;
	}
	if (r->parent <= 0 && server_is_batch(d) &&
	    server_batch_begin(s, j, r) == 1) {
		runner_free(r);
		return;
	}
	r->kill_signal = d->pol->kill_signal;
	r->kill_grace = (double)d->pol->kill_grace;
	r->tail_cap = (size_t)d->pol->output_keep;
	(void)snprintf(r->invocation, sizeof r->invocation, "%.32s",
	    c->invocation);
	server_env(d, r, &env);
	spec.command = d->exec != NULL ? d->exec : d->command;
	spec.exec = d->exec != NULL;
	if (r->lister) {
		spec.command = d->shards_from;
		spec.exec = 0;
	} else if (r->parent > 0) {
		server_ckpt_prepare(s, d, r, p->ckpt, p->ckpt_len);
		server_shard_env(s, r, &env);
	}
	spec.envp = env.v;
	spec.cred = &d->cred;
	spec.workdir = d->workdir != NULL ? d->workdir : d->cred.home;
	spec.workdir_home = d->workdir == NULL;
	/* A batch's condition is its instance's (shards_from), not shards'. */
	spec.condition = r->parent > 0 ? NULL : d->only_if;
	spec.limits = &d->pol->limits;
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
	if (r->parent > 0) {
		struct batch *b = server_batch_find(s, r->parent);

		if (b != NULL)
			b->nrun++;
	} else
		j->nruns++;
	j->skips = 0;
	if (s->nrunning++ == 0) {	/* leases need renewing from now */
		ev_timer_again(s->loop, &s->lease_w);
		if (s->cluster)
			server_cluster_renewed(s);
	}
	r->timeout_secs = (double)d->pol->timeout;	/* once it runs */
}

/*
 * A run's process exists (runner.c calls this when the spawner hands it
 * back): its timeout counts from now, and its pid goes to the store, for
 * a daemon that restarts after a crash to find it.
 */
void
server_run_spawned(struct run *r, void *arg)
{
	struct server	*s = arg;
	struct wq_item	*w;

	server_timeout_arm(s, r, r->timeout_secs, r->timeout_secs);
	if (r->hook)
		return;
	w = server_wq_add(s, WQ_STARTED);
	w->rowid = r->rowid;
	w->attempt = r->attempt;
	w->pid = r->pid;
	w->pid_start = r->pid_start;
	w->started_ms = r->started_ms;
	w->lateness_ms = r->started_ms - r->due_ms;
	if (r->cgroup != NULL)
		w->cgroup = xstrdup(r->cgroup);
}

/* A run's program is executing (runner.c calls this once exec worked). */
void
server_run_started(struct run *r, void *arg)
{
	struct log_job lj;

	(void)arg;
	if (r->hook)
		return;
	runner_log_job(r, &lj);
	lj.lateness_ms = r->started_ms - r->due_ms;
	if (r->parent > 0)
		log_job(LOG_INFO, LOG_EV_STARTED, &lj, "job %s: run %s shard "
		    "%d attempt %d started, pid %ld (trigger %s)", r->job,
		    r->run_id, r->shard, r->attempt, (long)r->pid, r->trigger);
	else
		log_job(LOG_INFO, LOG_EV_STARTED, &lj, "job %s: run %s attempt "
		    "%d started, pid %ld, %" PRId64 " ms after its %s (trigger "
		    "%s)%s", r->job, r->run_id, r->attempt, (long)r->pid,
		    lj.lateness_ms, strcmp(r->trigger, "manual") == 0 ?
		    "request" : "instant", r->trigger, r->lister ?
		    ": its shards_from command" : "");
}

/* A random number of milliseconds in [0, max]: retry jitter. */
int64_t
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
void
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

/* Classify the end of a run's process. */
void
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
		if (r->spawn_why != NULL)
			(void)snprintf(o->why, sizeof o->why, "%s: %s",
			    child_stage_name(r->report.stage), r->spawn_why);
		else
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
	if (r->fenced) {	/* rerun or abandoned, as by a failover */
		const struct sjob *j = r->owner;

		o->status = j != NULL && j->def != NULL &&
		    j->def->pol->recover == POLICY_RECOVER_RERUN ?
		    "interrupted" : "abandoned";
		o->outcome = "interrupted";
		o->reason = "lease_lost";
		return;
	}
	if (r->replaced || r->stopped || s->stopping) {
		const struct sjob *j = r->owner;

		o->status = o->outcome = "terminated";
		o->reason = r->replaced ? "replaced" : "shutdown";
		/* A batch's shard resumes at the next start: not the end. */
		if (!r->replaced && r->parent > 0 && j != NULL &&
		    j->def != NULL &&
		    j->def->pol->recover == POLICY_RECOVER_RERUN)
			o->status = "interrupted";
		return;
	}
	if (r->timed_out) {
		o->failed = 1;
		o->status = "failed";
		o->reason = "timeout";
		o->outcome = "timed_out";
		return;
	}
	if (r->unmet) {
		/*
		 * Its only_if said no, as systemd's ExecCondition=: exit 1-254
		 * skips the run; 255 or a signal is a failure of the check.
		 */
		o->reason = "condition";
		st = r->report.error;
		if (WIFEXITED(st) && WEXITSTATUS(st) != 255) {
			o->status = o->outcome = "skipped";
			(void)snprintf(o->why, sizeof o->why, "its only_if "
			    "condition exited %d", WEXITSTATUS(st));
			return;
		}
		o->failed = 1;
		o->status = o->outcome = "failed";
		if (WIFEXITED(st))
			(void)snprintf(o->why, sizeof o->why, "its only_if "
			    "condition exited 255");
		else
			(void)snprintf(o->why, sizeof o->why, "its only_if "
			    "condition died of signal %d, %s", WTERMSIG(st),
			    strsignal(WTERMSIG(st)));
		return;
	}
	if (o->exit_status == 0) {
		o->status = o->outcome = "succeeded";
		return;
	}
	o->failed = 1;
	o->status = o->outcome = "failed";
	o->reason = o->exit_status != -1 ? "exit" : "signal";
	/* The OOM killer took a process of the attempt: its own reason. */
	if (r->usage.oom) {
		o->reason = o->outcome = "oom";
		(void)strncat(o->why, ", out of memory (the kernel's OOM "
		    "killer)", sizeof o->why - strlen(o->why) - 1);
	}
}

/*
 * Decide between a retry and a final failure for a failed attempt.
 * Returns the retry time (wall ms), or -1 with o->status set to "failed"
 * or "dead".
 */
int64_t
server_retry_plan(struct server *s, struct sjob *j, const struct run *r,
    struct server_outcome *o, int64_t now_ms, char *detail, size_t len)
{
	const struct job_def	*d = j->def;
	int64_t			 delay_ms, at;
	char			 a[RFC3339_BUFSZ], b[RFC3339_BUFSZ];

	detail[0] = '\0';
	if (d == NULL || d->pol->retries == 0 || s->stopping)
		return -1;
	if (!policy_exit_retryable(d->pol->retry_codes, d->pol->retry_any,
	    o->exit_status != -1 && !r->timed_out && !r->spawn_failed &&
	    !r->usage.oom ? o->exit_status : -1)) {
		/* Only exit codes can be listed: the rest never qualify. */
		if (r->timed_out)
			(void)snprintf(detail, len, "a timeout is not an exit "
			    "code in retry_on_exit: permanent");
		else if (r->usage.oom)
			(void)snprintf(detail, len, "an out-of-memory kill is "
			    "not an exit code in retry_on_exit: permanent");
		else if (r->spawn_failed)
			(void)snprintf(detail, len, "the process could not "
			    "start (%s), which retry_on_exit does not list: "
			    "permanent", o->why);
		else
			(void)snprintf(detail, len, "%s is not in "
			    "retry_on_exit: permanent", o->why);
		return -1;		/* permanent: failed */
	}
	if (r->attempt > d->pol->retries) {
		o->status = "dead";
		(void)snprintf(detail, len, "%d attempts failed; the last: %s",
		    r->attempt, o->why);
		return -1;
	}
	delay_ms = policy_retry_delay(d->pol->retry_delay,
	    d->pol->retry_delay_max, r->attempt) * 1000;
	at = now_ms + delay_ms + server_jitter(delay_ms / 10);
	if (r->parent <= 0 && j->next_at >= 0 && at >= j->due_ms &&
	    r->scheduled_at < j->next_at) {
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
void
server_run_unlink(struct sjob *j, struct run *r)
{
	struct run **rp;

	for (rp = &j->runs; *rp != NULL; rp = &(*rp)->next_in_job) {
		if (*rp == r) {
			*rp = r->next_in_job;
			if (r->parent <= 0)
				j->nruns--;
			return;
		}
	}
}

/* Free a job removed by a reload once nothing of it is left. */
void
server_gone_check(struct server *s, struct sjob *j)
{
	size_t i;

	if (j->def != NULL || j->nruns > 0 || j->npending > 0)
		return;
	for (i = 0; i < s->ngone; i++) {
		if (s->gone[i] == j) {
			s->gone[i] = s->gone[--s->ngone];
			server_overdue_stop(s, j);
			xstrunref(j->id);
			free(j->overdue_w);
			free(j);
			return;
		}
	}
}

/* An on_failure command ended. */
void
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
void
server_run_done(struct run *r, void *arg)
{
	server_run_end(arg, r, 1);
}

/*
 * How many ends of a job go between two prunes of its history: each
 * prune leaves history_keep minus that many finished instances, so the
 * count never exceeds history_keep, and a prune runs once per so many
 * ends rather than at every one (it reads the newest history_keep index
 * entries: 0.3 ms of CPU at 1000, as much as the rest of a run).
 */
int64_t
server_prune_margin(const struct server *s)
{
	return s->conf->history_keep / 2 < SERVER_PRUNE_EVERY ?
	    s->conf->history_keep / 2 : SERVER_PRUNE_EVERY;
}

/*
 * An instance of j ended (ran, or was skipped): at its first end since
 * the start (what an earlier daemon left is not known), then every
 * server_prune_margin ends, trim the job's history.  The prune follows
 * the end's record in the write queue, so no commit holds more than
 * history_keep finished instances of the job.
 */
void
server_count_end(struct server *s, struct sjob *j)
{
	if (!j->pruned || ++j->ends >= server_prune_margin(s)) {
		j->pruned = 1;
		j->ends = 0;
		server_wq_add(s, WQ_PRUNE)->job = xstrdup(j->id);
	}
}

/*
 * The end of an attempt: classify it, decide between success, a retry, a
 * failure or a dead letter, record it, run on_failure, and start what
 * waits.  linked: the run had a process in its job's list.
 */
void
server_run_end(struct server *s, struct run *r, int linked)
{
	struct sjob		 *j = r->owner;
	struct batch		 *b = NULL;
	struct wq_item		 *w;
	struct log_job		  lj;
	struct server_outcome	  o;
	int64_t			  now_ms = clock_wall_ms(), retry_at = -1;
	int64_t			  now_mono = clock_mono_ms(); /* with now_ms */
	char			  detail[512], *list = NULL;
	int			  prio, ev, nlist = 0;

	if (r->hook) {
		struct run **rp;

		for (rp = &s->hooks; *rp != NULL; rp = &(*rp)->next_in_job) {
			if (*rp == r) {
				*rp = r->next_in_job;
				break;
			}
		}
		server_hook_done(s, r);
		if (r->timed_out)
			runner_sweep(r);
		else
			runner_release(r);
		runner_free(r);
		if (s->stopping && s->nrunning == 0 && runner_busy() == 0)
			ev_break(s->loop, EVBREAK_ALL);
		return;
	}
	if (r->parent > 0 && (b = server_batch_find(s, r->parent)) != NULL &&
	    linked)
		b->nrun--;
	if (linked) {
		server_run_unlink(j, r);
		if (--s->nrunning == 0) {	/* idle: no wake-ups at all */
			ev_timer_stop(s->loop, &s->lease_w);
			ev_timer_stop(s->loop, &s->fence_w);
		}
	}
	server_classify(s, r, &o);
	if (r->lister && (nlist = server_batch_listed(j, r, &o,
	    &list)) > 0)
		o.status = "running";	/* the batch goes on (its record) */
	/* A stopped batch's shards end there. */
	if (b != NULL && b->stop_reason != NULL && o.failed)
		o.reason = b->stop_reason;
	/*
	 * Stopped runs leave nothing behind, after their kill_grace; what
	 * other runs leave (a daemon started on purpose) lives on, and
	 * their cgroup goes once it is empty.
	 */
	runner_log_job(r, &lj);
	if (r->timed_out || r->replaced || r->stopped || r->fenced)
		runner_sweep(r);
	else
		runner_release(r);
	lj.duration_ms = now_mono - r->started_mono;
	lj.exit_status = o.exit_status;
	lj.signal = o.signal;
	lj.cpu_user_us = r->usage.user_us;
	lj.cpu_system_us = r->usage.system_us;
	lj.mem_peak = r->usage.mem_peak;
	detail[0] = '\0';
	if (o.failed) {
		server_throttle_check(s, j, 1, lj.duration_ms);
		if (b == NULL || b->stop_reason == NULL)
			retry_at = server_retry_plan(s, j, r, &o, now_ms,
			    detail, sizeof detail);
		if (retry_at != -1)
			o.status = "retrying";
	} else if (r->parent > 0 && strcmp(o.status, "succeeded") == 0) {
		/* A shard: the instance's success is its batch's. */
		server_throttle_check(s, j, 0, lj.duration_ms);
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
	w->end.duration_ms = lj.duration_ms;
	w->end.lateness_ms = r->adopted ? -1 : r->started_ms - r->due_ms;
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
	w->end.usage_source = r->usage.source;
	w->end.cpu_user_us = r->usage.user_us;
	w->end.cpu_system_us = r->usage.system_us;
	w->end.mem_peak = r->usage.mem_peak;
	if (r->adopted && r->timed_out)
		(void)snprintf(detail, sizeof detail, "stopped by its timeout "
		    "of %.0fs after it was adopted", r->timeout_secs);
	if (detail[0] != '\0') {
		w->detail = xstrdup(detail);
		w->end.detail = w->detail;
	}
	if (list != NULL)		/* after the lister's end */
		server_batch_record(s, j, r, list, nlist);
	if (r->parent > 0) {
		/* Its checkpoint with its end; a success's is no longer. */
		server_ckpt_save(s, r, 1);
		if (strcmp(o.status, "succeeded") == 0 && r->ckpt != NULL)
			(void)unlink(r->ckpt);
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
	} else if (r->unmet) {
		prio = LOG_NOTICE;
		ev = LOG_EV_SKIPPED;
	}
	{
		char what[64];

		if (r->parent > 0)
			(void)snprintf(what, sizeof what, " shard %d", r->shard);
		else
			what[0] = '\0';
		if (r->spawn_failed)
			log_job(prio, ev, &lj, "job %s: run %s%s: cannot start: "
			    "%s", r->job, r->run_id, what, o.why);
		else if (strcmp(o.status, "running") == 0)
			log_job(LOG_INFO, LOG_EV_NONE, &lj, "job %s: run %s: its "
			    "shards_from command listed the shards after %"
			    PRId64 " ms", r->job, r->run_id, lj.duration_ms);
		else
			log_job(prio, ev, &lj, "job %s: run %s%s attempt %d %s "
			    "(%s) after %" PRId64 " ms", r->job, r->run_id,
			    what, r->attempt, r->timed_out && o.failed ?
			    "timed out" : o.status, o.why, lj.duration_ms);
	}
	/* Stopped for its lease (server-cluster.c): rerun as if failed over. */
	if (r->fenced && strcmp(o.status, "interrupted") == 0) {
		if (r->parent > 0 && b != NULL)
			server_pend_shard(s, b, r->shard, r->rowid, "recover",
			    0);
		else if (r->parent <= 0)
			server_pend_add(s, j, r->scheduled_at,
			    store_run_origin(r->run_id), "recover", r->rowid,
			    r->scheduled_at * 1000);
	}
	if (retry_at != -1) {
		char when[RFC3339_BUFSZ];

		log_job(LOG_NOTICE, LOG_EV_RETRY, &lj, "job %s: run %s%s: "
		    "attempt %d at %s", r->job, r->run_id, r->parent > 0 ?
		    " (a shard)" : "", r->attempt + 1,
		    server_when(retry_at / 1000, when, sizeof when));
		if (r->parent > 0 && b != NULL)
			server_pend_shard(s, b, r->shard, r->rowid, "retry",
			    retry_at);
		else if (r->parent <= 0)
			server_pend_add(s, j, r->scheduled_at,
			    store_run_origin(r->run_id), "retry", r->rowid,
			    retry_at);
	} else if (r->parent > 0) {
		if (strcmp(o.status, "dead") == 0)
			log_job(LOG_ERR, LOG_EV_DEAD, &lj, "job %s: run %s shard "
			    "%d is dead: %s", r->job, r->run_id, r->shard,
			    detail);
		/* Its batch's end, once every shard's is final. */
		if (!(r->fenced && strcmp(o.status, "interrupted") == 0))
			server_batch_settle_later(s, r->parent, j->id);
	} else if (o.failed) {
		if (strcmp(o.status, "dead") == 0)
			log_job(LOG_ERR, LOG_EV_DEAD, &lj, "job %s: run %s is "
			    "dead: %s", r->job, r->run_id, detail);
		server_hook(s, j, o.status, o.reason, r->rowid,
		    r->scheduled_at, r->attempt, o.exit_status, o.signal,
		    r->run_id, NULL, 0);
	}

	/* A shard's or a listed batch's end is not its instance's. */
	if (r->parent <= 0 && strcmp(o.status, "running") != 0)
		server_count_end(s, j);
	if (j->def != NULL && schedule_kind(j->def->schedule) ==
	    SCHEDULE_AFTER && retry_at == -1 && r->parent <= 0 &&
	    strcmp(o.status, "running") != 0) {
		j->last_end = now_ms / 1000;
		server_plan(s, j, now_ms / 1000);
	}
	runner_free(r);
	server_gone_check(s, j);
	if (s->stopping) {
		if (s->nrunning == 0 && runner_busy() == 0)
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
void
server_hook(struct server *s, struct sjob *j, const char *status,
    const char *reason, int64_t rowid, int64_t at, int attempt,
    int exit_status, int sig, const char *run_id, const char *failed,
    int nshards)
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
	r->kill_signal = d->pol->kill_signal;
	r->kill_grace = (double)d->pol->kill_grace;
	/* Its own id: never taken for one of the attempt's processes. */
	track_token(r->invocation, sizeof r->invocation);
	server_env(d, r, &env);
	(void)snprintf(num, sizeof num, "%d", exit_status);
	envp_set(&env, "TICKD_EXIT_STATUS", exit_status >= 0 ? num : "");
	(void)snprintf(num, sizeof num, "%d", sig);
	envp_set(&env, "TICKD_SIGNAL", sig > 0 ? num : "");
	envp_set(&env, "TICKD_STATUS", status);
	envp_set(&env, "TICKD_REASON", reason != NULL ? reason : "");
	if (failed != NULL) {		/* a batch: which shards failed */
		envp_set(&env, "TICKD_FAILED_SHARDS", failed);
		(void)snprintf(num, sizeof num, "%d", nshards);
		envp_set(&env, "TICKD_SHARD_COUNT", num);
	}
	spec.command = d->on_failure;
	spec.exec = 0;
	spec.envp = env.v;
	spec.cred = &d->cred;
	spec.workdir = d->workdir != NULL ? d->workdir : d->cred.home;
	spec.workdir_home = d->workdir == NULL;
	spec.condition = NULL;
	spec.limits = &d->pol->limits;
	if (runner_spawn(r, &spec, &cause) == -1) {
		struct log_job lj;

		runner_log_job(r, &lj);
		log_job(LOG_ERR, LOG_EV_NONE, &lj, "job %s: on_failure cannot "
		    "start: %s", j->id, cause);
		free(cause);
		runner_free(r);
	} else {
		r->next_in_job = s->hooks;
		s->hooks = r;
		r->timeout_secs = (double)d->pol->on_failure_timeout;
	}
	envp_free(&env);
}

/* --- the dead man's switch ------------------------------------------------- */

/* expect_success_within has passed without a success: say so, once. */
void
server_overdue_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct sjob	*j = w->data;
	struct server	*s = j->srv;
	struct log_job	 lj = LOG_JOB_INIT;
	int64_t		 now_ms = clock_wall_ms(), base;
	char		 d[DURATION_BUFSZ], when[RFC3339_BUFSZ];

	(void)loop;
	(void)revents;
	if (j->def == NULL || j->def->pol->expect_success_within == 0)
		return;
	base = j->last_success > j->st.watch_since ? j->last_success :
	    j->st.watch_since;
	if (now_ms < base + j->def->pol->expect_success_within * 1000) {
		server_overdue_arm(s, j);	/* the clock went back */
		return;
	}
	duration_format(j->def->pol->expect_success_within, d, sizeof d);
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
	    now_ms / 1000, 0, -1, -1, "", NULL, 0);
}

/* Arm (or disarm) a job's dead man's switch. */
void
server_overdue_arm(struct server *s, struct sjob *j)
{
	int64_t base, deadline;

	server_overdue_stop(s, j);
	if (j->def == NULL || j->def->pol->expect_success_within == 0 ||
	    !j->def->enabled || j->st.paused)
		return;
	base = j->last_success > j->st.watch_since ? j->last_success :
	    j->st.watch_since;
	if (j->st.overdue_alerted >= base)
		return;			/* said already, until a success */
	deadline = base + j->def->pol->expect_success_within * 1000;
	if (j->overdue_w == NULL)	/* most jobs never need one */
		j->overdue_w = xmalloc(sizeof *j->overdue_w);
	ev_timer_init(j->overdue_w, server_overdue_cb,
	    (double)(deadline - clock_wall_ms()) / 1000.0 > 0 ?
	    (double)(deadline - clock_wall_ms()) / 1000.0 : 0.001, 0);
	j->overdue_w->data = j;
	ev_timer_start(s->loop, j->overdue_w);
}

/* Disarm a job's dead man's switch, if it has one. */
void
server_overdue_stop(struct server *s, struct sjob *j)
{
	if (j->overdue_w != NULL)
		ev_timer_stop(s->loop, j->overdue_w);
}

/* --- recovery ------------------------------------------------------------- */

/*
 * A job removed from the configuration that still has something of it
 * running: kept aside (s->gone) until that ends (server_gone_check).
 */
static struct sjob *
server_gone_job(struct server *s, const char *id)
{
	struct sjob	*j;
	size_t		 i;

	for (i = 0; i < s->ngone; i++) {
		if (strcmp(s->gone[i]->id, id) == 0)
			return s->gone[i];
	}
	j = xcalloc(1, sizeof *j);
	j->id = xstrshare(id);
	j->hidx = SERVER_NONE;
	j->next_at = -1;
	j->srv = s;
	j->last_success = -1;
	s->gone = xreallocarray(s->gone, s->ngone + 1, sizeof *s->gone);
	s->gone[s->ngone++] = j;
	return j;
}

/*
 * Settle an instance a previous daemon left running.  Its way of
 * tracking (track.h) says whether it still runs: its recorded main
 * process (same pid, start time and boot; in its cgroup), or, when the
 * daemon died before recording the pid, its cgroup holding processes or
 * the session leader carrying its invocation id.  A process that only
 * carries the run's id is never taken for it.  Alive: adopted (also when
 * its job was removed meanwhile: followed to its end, then forgotten).
 * Else the attempt is recorded as interrupted and the job's recover
 * policy decides.
 */
void
server_recover_one(const struct store_found *f, void *arg)
{
	struct server		*s = arg;
	struct sjob		*j = server_job(s, f->job);
	struct track_found	 tf;
	struct run		*r;
	struct wq_item		*w;
	struct log_job		 lj = LOG_JOB_INIT;
	enum track_alive	 how = TRACK_GONE;
	char			*cause = NULL;
	int64_t			 now_ms = clock_wall_ms(), left;
	int			 rerun;

	/* A batch: no process of its own; its shards are rows of theirs. */
	if (f->parent <= 0 && f->shards != NULL) {
		server_batch_found(f, s);
		return;
	}
	/* Another node's: its own to follow, or the failover's. */
	if (s->cluster && !server_cluster_ours(s, f->owner))
		return;
	lj.job = f->job;
	lj.run_id = f->run_id;
	lj.attempt = f->attempt;
	lj.shard = f->shard;
	r = runner_new(f->job, f->run_id, f->trigger, f->rowid, f->attempt,
	    f->scheduled_at, f->scheduled_at * 1000);
	if (f->parent > 0) {
		/* A shard runs as its instance (TICKD_RUN_ID, the journal). */
		if (strrchr(r->run_id, '#') != NULL)
			*strrchr(r->run_id, '#') = '\0';
		r->shard = f->shard;
		r->parent = f->parent;
		lj.run_id = r->run_id;
	}
	/* Tracked as it was started: in a cgroup, or by process group. */
	if (f->cgroup != NULL)
		r->track = &track_cgroup_ops;
	else if (f->pid > 0)
		r->track = &track_pgrp_ops;
	(void)snprintf(r->invocation, sizeof r->invocation, "%s",
	    f->invocation != NULL ? f->invocation : "");
	tf.pid = f->pid > 0 ? (pid_t)f->pid : -1;
	tf.pid_start = f->pid_start;
	tf.boot_id = f->boot_id;
	tf.invocation = f->invocation;
	tf.cgroup = f->cgroup;
	/*
	 * A batch's shards_from command is not adopted: what it printed
	 * went with the daemon, and it is run again (recover decides).
	 */
	if (f->attempt > 0 && (f->parent > 0 || f->shards != NULL ||
	    j == NULL || !server_is_batch(j->def)))
		how = r->track->find(r, &tf);
	if (how != TRACK_GONE) {
		if (j == NULL || j->def == NULL)
			j = server_gone_job(s, f->job);
		runner_adopt(r, how);
		r->owner = j;
		r->started_ms = f->started_ms != -1 ? f->started_ms : now_ms;
		r->started_mono = clock_mono_ms() - (now_ms - r->started_ms);
		if (j->def != NULL) {
			r->kill_signal = j->def->pol->kill_signal;
			r->kill_grace = (double)j->def->pol->kill_grace;
		}
		r->next_in_job = j->runs;
		j->runs = r;
		if (r->parent > 0) {
			struct batch *b = server_batch_find(s, r->parent);
			char path[PATH_MAX];

			if (b != NULL)
				b->nrun++;
			server_ckpt_path(s, r->parent, r->shard, path,
			    sizeof path);
			r->ckpt = xstrdup(path);
		} else
			j->nruns++;
		s->nrunning++;
		if (j->def != NULL && j->def->pol->timeout > 0) {
			left = r->started_ms + j->def->pol->timeout * 1000 -
			    now_ms;
			server_timeout_arm(s, r, (double)left / 1000.0,
			    (double)j->def->pol->timeout);
		}
		lj.pid = r->pid;
		lj.cgroup = r->cgroup;
		/* Its limits, as the job defines them now. */
		if (j->def != NULL && r->track->limit(r, &j->def->pol->limits,
		    &cause) == -1) {
			log_job(LOG_WARNING, LOG_EV_NONE, &lj, "job %s: run %s: "
			    "its limits could not be written again: %s",
			    f->job, f->run_id, cause);
			free(cause);
			cause = NULL;
		}
		if (how == TRACK_MAIN)
			log_job(LOG_NOTICE, LOG_EV_ADOPTED, &lj, "job %s: run %s "
			    "attempt %d outlived the previous daemon: adopted, "
			    "pid %ld%s", f->job, f->run_id, f->attempt,
			    (long)r->pid, j->def == NULL ? " (its job is "
			    "removed: followed to its end)" : "");
		else
			log_job(LOG_NOTICE, LOG_EV_ADOPTED, &lj, "job %s: run %s "
			    "attempt %d outlived the previous daemon: adopted, "
			    "its cgroup %s holding processes (its main pid was "
			    "never recorded)", f->job, f->run_id, f->attempt,
			    r->cgroup);
		return;
	}
	runner_free(r);
	rerun = j != NULL && j->def != NULL &&
	    j->def->pol->recover == POLICY_RECOVER_RERUN;
	if (f->attempt > 0) {
		w = server_wq_add(s, WQ_END);
		w->end.rowid = f->rowid;
		w->end.attempt = f->attempt;
		w->end.status = rerun ? "interrupted" : "abandoned";
		w->end.reason = j == NULL ? "removed" : "lease_lost";
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
	/* Not before its instant: it may have been claimed ahead of it. */
	if (rerun)
		server_pend_found(s, j, f, "recover", f->parent > 0 ? 0 :
		    f->scheduled_at * 1000);
	else if (f->parent > 0)
		server_batch_settle_later(s, f->parent, f->job);
}

/* The trigger of the next attempt of an instance found waiting. */
const char *
server_found_trigger(const struct store_found *f)
{
	return strcmp(f->status, "retrying") == 0 ? "retry" :
	    strcmp(f->status, "interrupted") == 0 ? "recover" :
	    f->reason != NULL && strcmp(f->reason, "replay") == 0 ? "replay" :
	    strcmp(f->trigger, "catch_up") == 0 ? "catch_up" :
	    strcmp(f->trigger, "manual") == 0 ? "manual" : "schedule";
}

/*
 * Re-queue what a previous daemon left waiting: queued, retrying, or
 * interrupted (to be rerun) instances.
 */
void
server_requeue_one(const struct store_found *f, void *arg)
{
	struct server	*s = arg;
	struct sjob	*j = server_job(s, f->job);

	if (j == NULL)
		return;		/* the job is gone; the row says queued */
	server_pend_found(s, j, f, server_found_trigger(f),
	    f->retry_at > 0 ? f->retry_at : 0);
}

/* Tell tickctl who runs: the meta table of the store. */
void
server_meta(struct server *s)
{
	const struct track_info	*ti;
	char			 buf[64], line[512];

	if (store_begin(s->store) == -1)
		goto fail;
	(void)snprintf(buf, sizeof buf, "%ld", (long)getpid());
	if (store_meta_set(s->store, "pid", buf) == -1)
		goto rollback;
	(void)snprintf(buf, sizeof buf, "%lld", (long long)clock_wall_ms());
	if (store_meta_set(s->store, "since", buf) == -1)
		goto rollback;
	/* Whose view of the configuration tickctl check takes. */
	(void)snprintf(buf, sizeof buf, "%ld", (long)geteuid());
	if (store_meta_set(s->store, "uid", buf) == -1)
		goto rollback;
	(void)snprintf(buf, sizeof buf, "%ld", (long)getegid());
	if (store_meta_set(s->store, "gid", buf) == -1 ||
	    store_meta_set(s->store, "config", s->config_path) == -1 ||
	    store_meta_set(s->store, "version", TICKD_VERSION) == -1)
		goto rollback;
	/* How jobs are tracked, and what their limits may use. */
	ti = track_current();
	track_describe(ti, line, sizeof line);
	cgroup_controllers_format(ti->controllers, buf, sizeof buf);
	if (store_meta_set(s->store, "tracking", line) == -1 ||
	    store_meta_set(s->store, "cgroup", ti->root != NULL ? ti->root :
	    "") == -1 || store_meta_set(s->store, "controllers",
	    ti->ops == &track_cgroup_ops ? buf : "") == -1)
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

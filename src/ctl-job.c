/*
 * ctl-job.c -- a configured job as tickctl shows it: state, next
 * instants, DST notes.
 *
 * State, first that applies: error (the job file has a problem and the
 * job is not loaded), disabled (enabled = no), paused (jobs.paused),
 * blocked (the last CTL_JOB_BLOCKED_SKIPS or more instances were all
 * skipped for overlap: the daemon's SERVER_BLOCKED_SKIPS, counted the way
 * the daemon counts them, since the newest instance that started),
 * running, queued (an instance waits: queued, retrying or interrupted),
 * idle.
 *
 * The next instant is planned as the daemon plans it (server_plan): the
 * first instant of the schedule after the last one it planned
 * (jobs.planned) or now, whichever is later; after now if the job is new
 * to the store or its schedule, zone, DST policy or enabled flag changed
 * (the stored sched_hash differs), since the daemon then starts afresh.
 * "after" schedules: the interval after the last run ended, unless one is
 * in flight; @reboot has none.  Disabled and paused jobs have none.
 *
 * DST notes: an instant of a cron schedule whose local time does not
 * match the expression was shifted out of a gap (the nominal time did not
 * exist); one whose local time occurs twice is one of a fold's
 * occurrences.
 *
 * DIAGNOSTICS: ctl_job_view returns -1 with *cause when the store fails.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "cronexpr.h"
#include "ctl-job.h"
#include "metrics.h"
#include "schedule.h"
#include "store_query.h"
#include "tz.h"
#include "xmalloc.h"

/*
 * Fill v for job d from the store q (NULL: no store; the state is then
 * from the configuration alone) at now (Unix s).  v's store strings are
 * new: clear with ctl_job_view_clear.  0, or -1 with *cause.
 */
int
ctl_job_view(struct store_query *q, const struct job_def *d, int64_t now,
    struct ctl_job_view *v, char **cause)
{
	int64_t base;

	memset(v, 0, sizeof *v);
	v->id = d->id;
	v->def = d;
	v->next_at = -1;
	v->st.planned = v->st.last_ms = v->st.last_success_ms = -1;
	v->st.last_end_ms = v->st.first_ms = v->st.overdue_alerted = -1;
	v->st.skip_since = v->st.ran_ms = v->st.watch_since = -1;
	if (q != NULL) {
		if (store_query_job(q, d->id, &v->st, cause) == -1)
			return -1;
		v->have_store = 1;
	}
	v->state = metrics_state(d->enabled, v->st.paused,
	    v->st.skips >= CTL_JOB_BLOCKED_SKIPS, v->st.nrunning > 0,
	    v->st.nwaiting > 0);

	if (!d->enabled || v->st.paused)
		return 0;
	switch (schedule_kind(d->schedule)) {
	case SCHEDULE_CRON:
	case SCHEDULE_EVERY:
		base = ctl_job_base(d, &v->st, now);
		if (ctl_job_next(d, base, &v->next_at) == -1)
			v->next_at = -1;
		else
			v->next_dst = ctl_job_dst(d, v->next_at);
		break;
	case SCHEDULE_AFTER:
		if (v->st.nrunning == 0 && v->st.nwaiting == 0)
			v->next_at = (v->st.last_end_ms >= 0 ?
			    v->st.last_end_ms / 1000 : now) +
			    schedule_interval(d->schedule);
		break;
	case SCHEDULE_REBOOT:
		break;
	}
	return 0;
}

/* Fill v for an invalid job id defined at where. */
void
ctl_job_view_bad(const char *id, const char *where, struct ctl_job_view *v)
{
	memset(v, 0, sizeof *v);
	v->id = id;
	v->where = where;
	v->state = "error";
	v->next_at = -1;
	v->st.planned = v->st.last_ms = v->st.last_success_ms = -1;
	v->st.last_end_ms = v->st.first_ms = v->st.overdue_alerted = -1;
	v->st.skip_since = v->st.ran_ms = v->st.watch_since = -1;
}

/* Free what a view owns. */
void
ctl_job_view_clear(struct ctl_job_view *v)
{
	store_query_job_clear(&v->st);
}

/*
 * The instant after which the daemon looks for d's next instance: the
 * last one it planned if the store's plan is for d's current schedule,
 * and never before now.
 */
int64_t
ctl_job_base(const struct job_def *d, const struct store_query_job *st,
    int64_t now)
{
	char hash[17];

	(void)snprintf(hash, sizeof hash, "%016" PRIx64, d->sched_hash);
	if (st->known && strcmp(st->sched_hash, hash) == 0 &&
	    st->planned > now)
		return st->planned;
	return now;
}

/* d's first instant strictly after `after`; 0, or -1 if none. */
int
ctl_job_next(const struct job_def *d, int64_t after, int64_t *out)
{
	return schedule_next(d->schedule, d->tz, d->gap, d->fold, after, out);
}

/* The CTL_JOB_DST_* notes on instant t of d (0 for non-cron schedules). */
int
ctl_job_dst(const struct job_def *d, int64_t t)
{
	const struct cronexpr	*e;
	int64_t			 nominal;

	if (schedule_kind(d->schedule) != SCHEDULE_CRON || d->tz == NULL ||
	    (e = schedule_cron(d->schedule)) == NULL)
		return 0;
	switch (cronexpr_dst(e, d->tz, t, &nominal)) {
	case CRONEXPR_DST_GAP_SHIFTED:
		return CTL_JOB_DST_GAP;
	case CRONEXPR_DST_FOLD_FIRST:
	case CRONEXPR_DST_FOLD_SECOND:
		return CTL_JOB_DST_FOLD;
	case CRONEXPR_DST_NONE:
	default:
		return 0;
	}
}

/* A word for DST notes: "DST gap, shifted", "DST fold", or "". */
const char *
ctl_job_dst_name(int flags)
{
	if (flags & CTL_JOB_DST_GAP)
		return "DST gap, shifted";
	if (flags & CTL_JOB_DST_FOLD)
		return "DST fold";
	return "";
}

/* d's DST policies in effect (AUTO replaced by the schedule's default). */
void
ctl_job_policy(const struct job_def *d, enum tz_gap *gap, enum tz_fold *fold)
{
	const struct cronexpr *e;

	*gap = d->gap;
	*fold = d->fold;
	if ((e = schedule_cron(d->schedule)) != NULL)
		cronexpr_policy(e, gap, fold);
}

/* The "list" fields of a job view (inside an open object). */
void
ctl_job_json_list(struct ctl_json *j, const struct ctl_job_view *v)
{
	const struct job_def	*d = v->def;
	char			 at[PATH_MAX + 16];

	ctl_json_str(j, "job", v->id);
	ctl_json_str(j, "schedule", d != NULL ?
	    schedule_text(d->schedule) : NULL);
	ctl_json_str(j, "timezone", d != NULL ? d->timezone : NULL);
	ctl_json_str(j, "state", v->state);
	ctl_json_time(j, "next_at", v->next_at);
	ctl_json_str(j, "last_status", v->st.last_status);
	ctl_json_time_ms(j, "last_at", v->st.last_ms);
	/* Additions. */
	ctl_json_str(j, "next_dst", (v->next_dst & CTL_JOB_DST_GAP) ? "gap" :
	    (v->next_dst & CTL_JOB_DST_FOLD) ? "fold" : NULL);
	ctl_json_str(j, "last_reason", v->st.last_reason);
	ctl_json_str(j, "last_run_id", v->st.last_run_id);
	ctl_json_time_ms(j, "last_success_at", v->st.last_success_ms);
	ctl_json_str(j, "description", d != NULL ? d->description : NULL);
	ctl_json_str(j, "where", d != NULL ? job_def_where(d, at, sizeof at) :
	    v->where);
}

/*
 * A history entry as the object member key (NULL: an element or a top
 * object): the fields of "history" and "show".
 */
void
ctl_job_json_run(struct ctl_json *j, const char *key,
    const struct store_query_run *r)
{
	ctl_json_open(j, key);
	ctl_json_str(j, "run_id", r->run_id);
	ctl_json_str(j, "job", r->job);
	ctl_json_time(j, "scheduled_at", r->scheduled_at);
	ctl_json_str(j, "trigger", r->trigger);
	ctl_json_str(j, "status", r->status);
	ctl_json_str(j, "reason", r->reason);
	ctl_json_int(j, "attempts", r->attempts);
	ctl_json_time_ms(j, "started_at", r->started_ms);
	ctl_json_time_ms(j, "finished_at", r->finished_ms);
	ctl_json_opt(j, "lateness_ms", r->lateness_ms);
	ctl_json_opt(j, "duration_ms", r->duration_ms);
	ctl_json_opt(j, "exit_status", r->exit_status);
	ctl_json_opt(j, "signal", r->signal);
	/* Additions. */
	ctl_json_str(j, "kind", r->is_decision ? "decision" : "run");
	ctl_json_int(j, "row_id", r->rowid);
	ctl_json_str(j, "origin", r->origin);
	ctl_json_str(j, "detail", r->detail);
	ctl_json_time(j, "first_at", r->is_decision ? r->first_at :
	    r->scheduled_at);
	ctl_json_time(j, "last_at", r->is_decision ? r->last_at :
	    r->scheduled_at);
	ctl_json_int(j, "count", r->is_decision ? r->count : 1);
	ctl_json_time_ms(j, "retry_at", r->retry_at);
	ctl_json_opt(j, "pid", r->status != NULL &&
	    strcmp(r->status, "running") == 0 ? r->pid : -1);
	if (r->batch)
		ctl_job_json_shards(j, "shards", &r->shards);
	if (r->parent != -1) {
		ctl_json_str(j, "shard_of", r->parent_run_id);
		ctl_json_int(j, "shard", r->shard);
	}
	ctl_json_close(j);
}

/* A batch's shard counts as the object member key. */
void
ctl_job_json_shards(struct ctl_json *j, const char *key,
    const struct store_query_shards *c)
{
	ctl_json_open(j, key);
	ctl_json_int(j, "total", c->total);
	ctl_json_int(j, "succeeded", c->succeeded);
	ctl_json_int(j, "failed", c->failed);
	ctl_json_int(j, "running", c->running);
	ctl_json_int(j, "waiting", c->waiting);
	ctl_json_close(j);
}

/* Start a history table: its columns and header. */
void
ctl_job_run_table(struct ctl_table *t)
{
	ctl_table_init(t, 11);
	ctl_table_row(t, "RUN ID", "TRIGGER", "STATUS", "ATT", "SCHEDULED",
	    "STARTED", "FINISHED", "LATENESS", "DURATION", "EXIT", "NOTE");
}

/*
 * Moment ms in zone z, short when it falls on the same local day as
 * instant ref: "02:30:05", else the full local time.
 */
static void
ctl_job_short(int64_t ms, int64_t ref, const struct tz *z, char *buf,
    size_t len)
{
	char full[CTL_FMT_BUFSZ], day[CTL_FMT_BUFSZ];

	if (ms == -1) {
		(void)snprintf(buf, len, "-");
		return;
	}
	ctl_fmt_local(ms / 1000, z, full, sizeof full);
	ctl_fmt_local(ref, z, day, sizeof day);
	if (ref != -1 && strncmp(full, day, 11) == 0)
		(void)snprintf(buf, len, "%.8s", full + 11);
	else
		(void)snprintf(buf, len, "%s", full);
}

/*
 * Add one history entry to a table started by ctl_job_run_table, its
 * times in zone z (the job's, or UTC), elapsed time from now_ms.
 */
void
ctl_job_run_row(struct ctl_table *t, const struct store_query_run *r,
    const struct tz *z, int64_t now_ms)
{
	char	 status[CTL_FMT_BUFSZ * 2], att[16], sched[CTL_FMT_BUFSZ];
	char	 started[CTL_FMT_BUFSZ], finished[CTL_FMT_BUFSZ];
	char	 late[CTL_FMT_BUFSZ], dur[CTL_FMT_BUFSZ], ex[CTL_FMT_BUFSZ];
	char	 last[CTL_FMT_BUFSZ], *note = NULL, *id;
	int64_t	 ref;

	ctl_fmt_status(r, status, sizeof status);
	if (r->is_decision) {
		ctl_fmt_local(r->first_at, z, sched, sizeof sched);
		ctl_fmt_local(r->last_at, z, last, sizeof last);
		note = xasprintf("%lld instant%s%s%s", (long long)r->count,
		    r->count == 1 ? "" : "s", r->count > 1 ? ", the last " :
		    "", r->count > 1 ? last : "");
		ctl_table_row(t, r->job, "-", status, "-", sched, "-", "-",
		    "-", "-", "-", note);
		free(note);
		return;
	}
	ref = r->scheduled_at;
	(void)snprintf(att, sizeof att, "%d", r->attempts);
	ctl_fmt_local(r->scheduled_at, z, sched, sizeof sched);
	ctl_job_short(r->started_ms, ref, z, started, sizeof started);
	ctl_job_short(r->finished_ms, ref, z, finished, sizeof finished);
	ctl_fmt_lateness(r->lateness_ms, late, sizeof late);
	if (r->duration_ms != -1)
		ctl_fmt_ms(r->duration_ms, dur, sizeof dur);
	else if (strcmp(r->status, "running") == 0 &&
	    r->attempt_started_ms != -1) {
		ctl_fmt_ms(now_ms - r->attempt_started_ms, dur, sizeof dur);
		(void)strncat(dur, " so far", sizeof dur - strlen(dur) - 1);
	} else
		(void)snprintf(dur, sizeof dur, "-");
	ctl_fmt_exit(r->exit_status, r->signal, ex, sizeof ex);
	if (r->error != NULL && r->detail == NULL)
		note = ctl_fmt_vis(r->error, strlen(r->error), 0);
	else if (r->detail != NULL)
		note = ctl_fmt_vis(r->detail, strlen(r->detail), 0);
	id = ctl_fmt_vis(r->run_id, strlen(r->run_id), 0);
	ctl_table_row(t, id, r->trigger, status, att, sched, started, finished,
	    late, dur, ex, note != NULL ? note : "");
	free(id);
	free(note);
}

/* Whether node n's job definitions are those of configuration c. */
int
ctl_node_same(const struct conf *c, const struct store_query_node *n)
{
	char hash[17];

	(void)snprintf(hash, sizeof hash, "%016" PRIx64, conf_defs_hash(c));
	return n->defs_hash != NULL && strcmp(n->defs_hash, hash) == 0;
}

/* The walk of ctl_node_diff: node's jobs against c's, both in id order. */
struct ctl_diff {
	const struct conf	*c;
	size_t			 next;		/* of c->jobs, not yet met */
	char			*buf;
	size_t			 len;
	size_t			 n;
};

/* Add job to the list, "job (why)" or "job". */
static void
ctl_diff_add(struct ctl_diff *d, const char *job, const char *why)
{
	size_t used = strlen(d->buf);

	if (++d->n <= CTL_DIFF_MAX)
		(void)snprintf(d->buf + used, d->len - used, "%s%s%s", used > 0 ?
		    ", " : "", job, why);
}

static void
ctl_diff_one(const char *job, const char *hash, void *arg)
{
	struct ctl_diff		*d = arg;
	const struct conf	*c = d->c;
	char			 ours[CONF_HASH_HEX];
	int			 cmp = 1;

	for (; d->next < c->njobs; d->next++) {
		if ((cmp = strcmp(c->jobs[d->next]->id, job)) >= 0)
			break;
		ctl_diff_add(d, c->jobs[d->next]->id, " (not on that node)");
	}
	if (cmp != 0) {
		ctl_diff_add(d, job, " (not in these files)");
		return;
	}
	conf_job_hash(c->jobs[d->next++], ours);
	if (hash == NULL || strcmp(hash, ours) != 0)
		ctl_diff_add(d, job, "");
}

/*
 * Which jobs of node differ from configuration c's, for people, into buf
 * ("a, b (not in these files), c (not on that node), and 3 more"): how
 * many, or -1 with *cause.
 */
int64_t
ctl_node_diff(struct store_query *q, const struct conf *c, const char *node,
    char *buf, size_t len, char **cause)
{
	struct ctl_diff	d;
	size_t		used;

	memset(&d, 0, sizeof d);
	d.c = c;
	d.buf = buf;
	d.len = len;
	buf[0] = '\0';
	if (store_query_node_jobs(q, node, ctl_diff_one, &d, cause) == -1)
		return -1;
	for (; d.next < c->njobs; d.next++)
		ctl_diff_add(&d, c->jobs[d.next]->id, " (not on that node)");
	if (d.n > CTL_DIFF_MAX) {
		used = strlen(buf);
		(void)snprintf(buf + used, len - used, ", and %zu more",
		    d.n - CTL_DIFF_MAX);
	}
	return (int64_t)d.n;
}

/* Whether node n's clock is too far from the server's for it to claim. */
int
ctl_node_skewed(const struct conf *c, const struct store_query_node *n)
{
	return n->offset_ms > c->max_clock_skew * 1000 ||
	    -n->offset_ms > c->max_clock_skew * 1000;
}

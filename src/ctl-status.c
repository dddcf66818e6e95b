/*
 * ctl-status.c -- "tickctl status": the daemon, or one job in depth.
 *
 *   tickctl [--json] status [JOB]
 *
 * Without JOB: whether the daemon runs (ctl_ctx_daemon: the lock on the
 * state database), its pid and since when (the store's meta keys "pid",
 * "since" (ms) and "config" when the daemon wrote them, else the lock
 * file and /proc/PID/stat), the configuration and state files, the jobs
 * loaded and in error (the meta keys "jobs" and "jobs_in_error", which
 * the daemon writes at start and at each reload, when they are about
 * this daemon; else from the files as tickctl loads them now, which may
 * hold what the daemon has not loaded, and it says so), and the
 * instances the store records as running.  The exit status is 0 only
 * when the daemon runs, so scripts and tests can poll it.
 *
 * With JOB: its definition (every key of tickd.job(5) with its value,
 * policies apart), state, next 5 instants, the instances in flight with
 * pid and elapsed time, consecutive overlap skips, the last error and the
 * last 10 history entries.  Exit 0 when the job exists.
 *
 * JSON: daemon: pid, since, config, state_file, jobs, jobs_in_error,
 * running (and daemon, lock, state_error, jobs_source: "daemon" or
 * "files", tracking: how jobs' processes are tracked, as the daemon
 * recorded it: "cgroup DIR (controllers: ...)" or "process groups (why)").  Job: the list fields plus next and runs (and definition,
 * policies, current, consecutive_skips, last_error).
 *
 * DIAGNOSTICS: one line on stderr for usage errors (2), an unknown job
 * (2), an invalid configuration or store failures (1).
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "cronexpr.h"
#include "ctl-fmt.h"
#include "ctl-job.h"
#include "ctl-json.h"
#include "ctl.h"
#include "duration.h"
#include "policy.h"
#include "schedule.h"
#include "store_query.h"
#include "tz.h"
#include "xmalloc.h"

#define CTL_STATUS_NEXT		5	/* next instants shown */
#define CTL_STATUS_RUNS		10	/* history entries shown */

static int	ctl_status_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_status_cmd = {
	"status",
	"[JOB]",
	"the daemon (pid, since, files, jobs, runs), or one job in depth",
	ctl_status_exec,
};

/*
 * When process pid started (Unix ms), from /proc/PID/stat's starttime
 * and /proc/stat's btime; -1 if unknown.
 */
static int64_t
ctl_status_pid_since(long pid)
{
	char		 path[64], line[1024], *p;
	unsigned long long start = 0;
	long long	 btime = -1;
	long		 hz = sysconf(_SC_CLK_TCK);
	FILE		*f;
	int		 i;

	(void)snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if (hz <= 0 || (f = fopen(path, "re")) == NULL)
		return -1;
	p = fgets(line, sizeof line, f);
	(void)fclose(f);
	/* The command name may hold blanks: fields count from its ')'. */
	if (p == NULL || (p = strrchr(line, ')')) == NULL)
		return -1;
	for (i = 2; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%llu", &start) != 1)
		return -1;
	if ((f = fopen("/proc/stat", "re")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "btime %lld", &btime) == 1)
			break;
	(void)fclose(f);
	if (btime < 0)
		return -1;
	return (int64_t)btime * 1000 + (int64_t)(start * 1000 / (unsigned long
	    long)hz);
}

/*
 * How many of node n's job definitions differ from c's (0 when its hash
 * is c's), and which, for people, into buf; -1 when they cannot be read.
 */
static int64_t
ctl_status_node_diff(struct store_query *q, const struct conf *c,
    const struct store_query_node *n, char *buf, size_t len)
{
	char	*cause = NULL;
	int64_t	 ndiff;

	buf[0] = '\0';
	if (ctl_node_same(c, n))
		return 0;
	if ((ndiff = ctl_node_diff(q, c, n->node, buf, len, &cause)) == -1) {
		free(cause);
		buf[0] = '\0';		/* not a list cut short */
	}
	return ndiff;
}

/* A node of a server's database, for people: one line into buf. */
static void
ctl_status_node_line(struct store_query *q, const struct conf *c,
    const struct store_query_node *n, char *buf, size_t len)
{
	char	beat[CTL_FMT_BUFSZ], jobs[512];
	int64_t	ndiff;

	duration_format(n->age_ms / 1000, beat, sizeof beat);
	ndiff = ctl_status_node_diff(q, c, n, jobs, sizeof jobs);
	(void)snprintf(buf, len, "%s: beat %s ago, clock %+" PRId64 " ms%s, "
	    "%" PRId64 " running%s%s%s%s", n->node, beat, n->offset_ms,
	    ctl_node_skewed(c, n) ? " (too far: it claims nothing)" : "",
	    n->running, ndiff == 0 ? "" :
	    ", job definitions differ from these files", ndiff > 0 ? ": " : "",
	    jobs, n->age_ms > c->lease * 3000 ? " (silent: gone?)" : "");
}

static void
ctl_status_node_json(struct ctl_json *j, struct store_query *q,
    const struct conf *c, const struct store_query_node *n)
{
	char	jobs[512];
	int64_t	ndiff = ctl_status_node_diff(q, c, n, jobs, sizeof jobs);

	ctl_json_open(j, NULL);
	ctl_json_str(j, "node", n->node);
	ctl_json_time_ms(j, "heartbeat", n->heartbeat_ms);
	ctl_json_int(j, "heartbeat_age_ms", n->age_ms);
	ctl_json_int(j, "clock_offset_ms", n->offset_ms);
	ctl_json_int(j, "running", n->running);
	ctl_json_bool(j, "same_definitions", ndiff == 0);
	ctl_json_opt(j, "differing_jobs", ndiff);
	ctl_json_close(j);
}

/* The daemon's status. */
static int
ctl_status_daemon(struct ctl_ctx *ctx)
{
	const struct ctl_daemon	*dm;
	struct store_query	*q;
	struct store_query_run	*act = NULL;
	struct conf		*c;
	struct ctl_json		 j;
	struct ctl_table	 t;
	char			*cause = NULL, *meta_pid = NULL;
	char			*meta_since = NULL, *meta_config = NULL;
	const char		*files_why = NULL;
	char			 buf[4352], when[CTL_FMT_BUFSZ];
	char			 ago[CTL_FMT_BUFSZ];
	struct store_query_node	*nodes = NULL;
	size_t			 nact = 0, nnodes = 0, i, n, nfiles;
	int64_t			 since = -1, nrunning = 0, njobs, nbad;
	long			 pid;
	int			 rc = CTL_EXIT_OK, ours;

	if ((c = ctl_ctx_conf(ctx)) == NULL)
		return CTL_EXIT_FAIL;
	dm = ctl_ctx_daemon(ctx);
	pid = dm->pid;
	q = ctl_ctx_store_quiet(ctx);
	if (q != NULL) {
		if (store_query_meta(q, "pid", &meta_pid, &cause) == -1 ||
		    store_query_meta(q, "since", &meta_since, &cause) == -1 ||
		    store_query_meta(q, "config", &meta_config, &cause) == -1 ||
		    store_query_active(q, NULL, &act, &nact, &cause) == -1 ||
		    store_query_nodes(q, &nodes, &nnodes, &cause) == -1) {
			ctl_error("status: state %s: %s", c->state, cause);
			free(cause);
			rc = CTL_EXIT_FAIL;
			goto out;
		}
		for (i = 0; i < nact; i++)
			nrunning += strcmp(act[i].status, "running") == 0;
	}
	/* What the daemon wrote wins, if it is about this daemon. */
	ours = dm->running && meta_pid != NULL && atol(meta_pid) == pid;
	if (ours && meta_since != NULL)
		since = strtoll(meta_since, NULL, 10);
	else if (dm->running && pid > 0)
		since = ctl_status_pid_since(pid);
	njobs = ctl_ctx_meta_count(ctx, "jobs");
	nbad = ctl_ctx_meta_count(ctx, "jobs_in_error");
	nfiles = conf_causes_files(&ctx->causes);
	if (njobs == -1 || nbad == -1) {
		/* The files say what a reload would load, not what runs. */
		files_why = !dm->running ? "the daemon is not running" :
		    q == NULL ? "the state cannot be read" :
		    "the daemon did not record them";
		njobs = (int64_t)c->njobs;
		nbad = (int64_t)c->nbad_ids;
	}

	if (ctx->json) {
		ctl_json_init(&j);
		ctl_json_open(&j, NULL);
		ctl_json_opt(&j, "pid", dm->running && pid > 0 ? pid : -1);
		ctl_json_time_ms(&j, "since", since);
		ctl_json_str(&j, "config", meta_config != NULL ? meta_config :
		    ctx->config);
		ctl_json_str(&j, "state_file", c->state);
		ctl_json_int(&j, "jobs", njobs);
		ctl_json_int(&j, "jobs_in_error", nbad);
		ctl_json_int(&j, "problems", (int64_t)ctx->causes.n);
		ctl_json_int(&j, "files_in_error", (int64_t)nfiles);
		ctl_json_opt(&j, "running", q != NULL ? nrunning : -1);
		ctl_json_str(&j, "daemon", dm->running ? "running" :
		    "not running");
		ctl_json_str(&j, "lock", dm->lock);
		ctl_json_str(&j, "state_error", q == NULL ? ctx->store_cause :
		    NULL);
		ctl_json_str(&j, "jobs_source", files_why != NULL ? "files" :
		    "daemon");
		ctl_json_str(&j, "tracking", c->tracking);
		if (nnodes > 0) {
			ctl_json_open_array(&j, "nodes");
			for (i = 0; i < nnodes; i++)
				ctl_status_node_json(&j, q, c, &nodes[i]);
			ctl_json_close_array(&j);
		}
		ctl_json_close(&j);
		if (ctl_json_print(&j) == -1)
			rc = CTL_EXIT_FAIL;
		ctl_json_free(&j);
	} else {
		ctl_table_init(&t, 2);
		if (dm->running) {
			ctl_fmt_utc(since == -1 ? -1 : since / 1000, when,
			    sizeof when);
			ctl_fmt_ago(ctx->now_ms, since, ago, sizeof ago);
			if (since != -1)
				(void)snprintf(buf, sizeof buf, "running, pid "
				    "%ld, since %s (%s)", pid, when, ago);
			else
				(void)snprintf(buf, sizeof buf, "running, pid "
				    "%ld", pid);
		} else
			(void)snprintf(buf, sizeof buf, "not running (no "
			    "lock on %s)", dm->lock);
		ctl_table_row(&t, "daemon", buf);
		ctl_table_row(&t, "config", meta_config != NULL ? meta_config :
		    ctx->config);
		if (q != NULL)
			(void)snprintf(buf, sizeof buf, "%s (schema %d)",
			    c->state, store_query_version(q));
		else	/* the cause begins "state PATH" */
			(void)snprintf(buf, sizeof buf, "%s",
			    strncmp(ctx->store_cause, "state ", 6) == 0 ?
			    ctx->store_cause + 6 : ctx->store_cause);
		ctl_table_row(&t, "state", buf);
		if (files_why != NULL)
			(void)snprintf(buf, sizeof buf, "%lld loaded, %lld in "
			    "error (from the files: %s)", (long long)njobs,
			    (long long)nbad, files_why);
		else if ((size_t)njobs != c->njobs ||
		    (size_t)nbad != c->nbad_ids)
			(void)snprintf(buf, sizeof buf, "%lld loaded, %lld in "
			    "error (the files now say %zu and %zu)",
			    (long long)njobs, (long long)nbad, c->njobs,
			    c->nbad_ids);
		else
			(void)snprintf(buf, sizeof buf, "%lld loaded, %lld in "
			    "error", (long long)njobs, (long long)nbad);
		if (ctx->causes.n > 0) {
			n = strlen(buf);
			(void)snprintf(buf + n, sizeof buf - n, "; %zu "
			    "problem%s in %zu file%s (tickctl check lists "
			    "them)", ctx->causes.n, ctx->causes.n == 1 ? "" :
			    "s", nfiles, nfiles == 1 ? "" : "s");
		}
		ctl_table_row(&t, "jobs", buf);
		if (q != NULL)
			(void)snprintf(buf, sizeof buf, "%lld%s",
			    (long long)nrunning, !dm->running && nrunning > 0 ?
			    " recorded (their daemon is gone: the next start "
			    "settles them)" : "");
		else
			(void)snprintf(buf, sizeof buf, "-");
		ctl_table_row(&t, "running", buf);
		/* Cgroups or process groups: what the daemon recorded. */
		if (c->tracking != NULL) {
			(void)snprintf(buf, sizeof buf, "by %s", c->tracking);
			ctl_table_row(&t, "tracked", buf);
		}
		for (i = 0; i < nnodes; i++) {
			ctl_status_node_line(q, c, &nodes[i], buf,
			    sizeof buf);
			ctl_table_row(&t, i == 0 ? "nodes" : "", buf);
		}
		if (ctl_table_print(&t, NULL) == -1)
			rc = CTL_EXIT_FAIL;
		ctl_table_free(&t);
	}
	if (rc == CTL_EXIT_OK && !dm->running)
		rc = CTL_EXIT_FAIL;
out:
	store_query_runs_free(act, nact);
	store_query_nodes_free(nodes, nnodes);
	free(meta_pid);
	free(meta_since);
	free(meta_config);
	return rc;
}

/* Whether key k is a policy (tickd.job(5), POLICIES): from "overlap" on. */
static int
ctl_status_is_policy(const struct conf_key *k)
{
	const struct conf_key *first = conf_key_find(CONF_SEC_JOB, "overlap");

	return first != NULL && k >= first;
}

/*
 * The value of job key k of d as it would be written in a job file (new
 * string, caller frees), or NULL when unset.  Not for CONF_T_ENV.
 */
static char *
ctl_status_value(const struct conf_key *k, const struct job_def *d)
{
	const char	*p = conf_key_addr(k, d);
	const char	*s;
	char		 buf[DURATION_BUFSZ];
	int64_t		 n;

	switch (k->type) {
	case CONF_T_STRING:
	case CONF_T_COMMAND:
	case CONF_T_EXEC:
	case CONF_T_PATH:
	case CONF_T_ABSPATH:
	case CONF_T_STATE:
	case CONF_T_NAME:
	case CONF_T_ZONE:
	case CONF_T_EXIT_CODES:
	case CONF_T_LISTEN:
		s = *(char *const *)(const void *)p;
		return s != NULL ? xstrdup(s) : NULL;
	case CONF_T_DURATION:
		duration_format(*(const int64_t *)(const void *)p, buf,
		    sizeof buf);
		return xstrdup(buf);
	case CONF_T_COUNT:
		/* A limit without a default (cpu_weight) may be unset. */
		if (k->def == NULL && *(const int64_t *)(const void *)p ==
		    CGROUP_UNSET)
			return NULL;
		return xasprintf("%lld",
		    (long long)*(const int64_t *)(const void *)p);
	case CONF_T_MEMORY:
	case CONF_T_TASKS:
	case CONF_T_QUOTA:
		n = *(const int64_t *)(const void *)p;
		if (n == CGROUP_UNSET)
			return NULL;
		if (n == CGROUP_INFINITY)
			return xstrdup("infinity");
		if (k->type == CONF_T_QUOTA)
			return xasprintf("%lld.%02lld%%", (long long)(n / 100),
			    (long long)(n % 100));
		if (k->type == CONF_T_TASKS)
			return xasprintf("%lld", (long long)n);
		ctl_fmt_bytes(n, buf, sizeof buf);
		return xstrdup(buf);
	case CONF_T_BOOL:
		return xstrdup(*(const int *)(const void *)p ? "yes" : "no");
	case CONF_T_GAP:
		return *(const enum tz_gap *)(const void *)p == TZ_GAP_AUTO ?
		    NULL : xstrdup(tz_gap_name(*(const enum tz_gap *)
		    (const void *)p));
	case CONF_T_FOLD:
		return *(const enum tz_fold *)(const void *)p == TZ_FOLD_AUTO ?
		    NULL : xstrdup(tz_fold_name(*(const enum tz_fold *)
		    (const void *)p));
	case CONF_T_SCHEDULE:
		return xstrdup(schedule_text(d->schedule));
	case CONF_T_DIALECT:
		return xstrdup(*(const int *)(const void *)p ==
		    CRONEXPR_QUARTZ ? "quartz" : "cron");
	case CONF_T_OVERLAP:
		return xstrdup(policy_overlap_name(*(const int *)
		    (const void *)p));
	case CONF_T_MISFIRE:
		return xstrdup(policy_misfire_name(*(const int *)
		    (const void *)p));
	case CONF_T_RECOVER:
		return xstrdup(policy_recover_name(*(const int *)
		    (const void *)p));
	case CONF_T_SIGNAL:
		s = sigabbrev_np(*(const int *)(const void *)p);
		return s != NULL ? xstrdup(s) :
		    xasprintf("%d", *(const int *)(const void *)p);
	case CONF_T_LOG_LEVEL:
	case CONF_T_ENV:
	default:
		return NULL;
	}
}

/* Note on the value of k when it is unset or AUTO (or NULL). */
static const char *
ctl_status_default(const struct conf_key *k, const struct job_def *d,
    char *buf, size_t len)
{
	enum tz_gap	gap;
	enum tz_fold	fold;

	ctl_job_policy(d, &gap, &fold);
	if (strcmp(k->name, "user") == 0)
		(void)snprintf(buf, len, "(unset: runs as %s)", d->cred.user);
	else if (strcmp(k->name, "group") == 0)
		(void)snprintf(buf, len, "(unset: %s's group)", d->cred.user);
	else if (strcmp(k->name, "workdir") == 0)
		(void)snprintf(buf, len, "(unset: %s)", d->cred.home);
	else if (strcmp(k->name, "dst_gap") == 0)
		(void)snprintf(buf, len, "(unset: %s for this schedule)",
		    schedule_cron(d->schedule) != NULL ? tz_gap_name(gap) :
		    "irrelevant");
	else if (strcmp(k->name, "dst_fold") == 0)
		(void)snprintf(buf, len, "(unset: %s for this schedule)",
		    schedule_cron(d->schedule) != NULL ? tz_fold_name(fold) :
		    "irrelevant");
	else if (conf_key_find(CONF_SEC_JOB, k->name)->def == NULL &&
	    (k->type == CONF_T_MEMORY || k->type == CONF_T_TASKS ||
	    k->type == CONF_T_QUOTA || strstr(k->name, "_weight") != NULL))
		(void)snprintf(buf, len, "(unset: no limit)");
	else
		(void)snprintf(buf, len, "(unset)");
	return buf;
}

/* The definition or the policies of d: a table, or a JSON object. */
static void
ctl_status_keys(struct ctl_ctx *ctx, struct ctl_json *j, const char *key,
    const struct job_def *d, int policies)
{
	const struct conf_key	*k;
	struct ctl_table	 t;
	char			*v, *vis, note[256];
	size_t			 i, e;

	if (ctx->json)
		ctl_json_open(j, key);
	else
		ctl_table_init(&t, 2);
	for (i = 0; i < conf_nkeys; i++) {
		k = &conf_keys[i];
		if (k->section != CONF_SEC_JOB ||
		    ctl_status_is_policy(k) != policies)
			continue;
		if (k->type == CONF_T_ENV) {
			if (ctx->json) {
				ctl_json_open_array(j, k->name);
				for (e = 0; e < d->nenv; e++)
					ctl_json_str(j, NULL, d->env[e]);
				ctl_json_close_array(j);
				continue;
			}
			for (e = 0; e < d->nenv; e++) {
				vis = ctl_fmt_vis(d->env[e], strlen(d->env[e]),
				    0);
				ctl_table_row(&t, k->name, vis);
				free(vis);
			}
			if (d->nenv == 0)
				ctl_table_row(&t, k->name, "(none)");
			continue;
		}
		v = ctl_status_value(k, d);
		if (ctx->json)
			ctl_json_str(j, k->name, v);
		else if (v == NULL && (k->type == CONF_T_COMMAND ||
		    k->type == CONF_T_EXEC) && k->offset != offsetof(struct
		    job_def, on_failure))
			;	/* the job has the other one */
		else if (v == NULL)
			ctl_table_row(&t, k->name, ctl_status_default(k, d,
			    note, sizeof note));
		else {
			vis = ctl_fmt_vis(v, strlen(v), 0);
			ctl_table_row(&t, k->name, vis);
			free(vis);
		}
		free(v);
	}
	if (ctx->json)
		ctl_json_close(j);
	else {
		(void)ctl_table_print(&t, "  ");
		ctl_table_free(&t);
	}
}

/*
 * A line per running batch instance of act: "batch 2026-12-05T02:00:00Z:
 * 16 shards: 9 done, 4 running, 1 failed, 2 waiting, 1m03s elapsed".
 */
static void
ctl_status_batches(struct ctl_ctx *ctx, const struct store_query_run *act,
    size_t nact)
{
	char	at[CTL_FMT_BUFSZ], line[256];
	size_t	i;
	int64_t	from;

	for (i = 0; i < nact; i++) {
		if (!act[i].batch || strcmp(act[i].status, "running") != 0 ||
		    act[i].shards.total == 0)
			continue;
		from = act[i].started_ms != -1 ? act[i].started_ms :
		    act[i].created_ms;
		ctl_fmt_utc(act[i].scheduled_at, at, sizeof at);
		ctl_fmt_progress(&act[i].shards, from != -1 ? ctx->now_ms -
		    from : -1, line, sizeof line);
		(void)printf("  batch %s: %s%s\n", at, line, from != -1 ?
		    " elapsed" : "");
	}
}

/* One job in depth. */
static int
ctl_status_job(struct ctl_ctx *ctx, const char *id)
{
	const struct job_def		*d;
	struct store_query		*q;
	struct store_query_run		*act = NULL, *runs = NULL;
	struct store_query_run		*errs = NULL;
	struct store_query_filter	 f;
	struct ctl_job_view		 v;
	struct ctl_table		 t;
	struct ctl_json			 j;
	enum tz_gap			 gap;
	enum tz_fold			 fold;
	const struct cronexpr		*ce;
	char				*cause = NULL, *vis, *text;
	char				 a[CTL_FMT_BUFSZ], b[CTL_FMT_BUFSZ];
	char				 c[CTL_FMT_BUFSZ], line[512];
	char				 defined[PATH_MAX + 16];
	int64_t				 next[CTL_STATUS_NEXT], at;
	size_t				 nact = 0, nruns = 0, nerrs = 0;
	size_t				 nnext = 0, i;
	int				 rc;

	if ((d = ctl_ctx_job(ctx, "status", id, &rc)) == NULL)
		return rc;
	rc = CTL_EXIT_OK;
	ctl_json_init(&j);
	if ((q = ctl_ctx_store_quiet(ctx)) == NULL)
		ctl_error("status: %s: showing the configuration only",
		    ctx->store_cause);
	memset(&v, 0, sizeof v);
	if (ctl_job_view(q, d, ctx->now_ms / 1000, &v, &cause) == -1)
		goto fail;
	if (q != NULL) {
		memset(&f, 0, sizeof f);
		f.job = d->id;
		f.since = -1;
		f.limit = CTL_STATUS_RUNS;
		f.decisions = 1;
		if (store_query_history(q, &f, &runs, &nruns, &cause) == -1)
			goto fail;
		f.limit = 1;
		f.decisions = 0;
		f.status[f.nstatus++] = "failed";
		f.status[f.nstatus++] = "dead";
		f.status[f.nstatus++] = "terminated";
		f.status[f.nstatus++] = "abandoned";
		f.status[f.nstatus++] = "unknown";
		if (store_query_history(q, &f, &errs, &nerrs, &cause) == -1 ||
		    store_query_active(q, d->id, &act, &nact, &cause) == -1 ||
		    store_query_shard_counts(q, runs, nruns, &cause) == -1 ||
		    store_query_shard_counts(q, act, nact, &cause) == -1 ||
		    store_query_shard_counts(q, errs, nerrs, &cause) == -1)
			goto fail;
	}
	/* The next instants, from the one the daemon plans next. */
	at = v.next_at;
	while (at != -1 && nnext < CTL_STATUS_NEXT) {
		next[nnext++] = at;
		if (schedule_kind(d->schedule) == SCHEDULE_AFTER ||
		    ctl_job_next(d, at, &at) == -1)
			break;
	}

	if (ctx->json) {
		ctl_json_open(&j, NULL);
		ctl_job_json_list(&j, &v);
		ctl_json_open_array(&j, "next");
		for (i = 0; i < nnext; i++)
			ctl_json_time(&j, NULL, next[i]);
		ctl_json_close_array(&j);
		ctl_json_open_array(&j, "runs");
		for (i = 0; i < nruns; i++)
			ctl_job_json_run(&j, NULL, &runs[i]);
		ctl_json_close_array(&j);
		ctl_status_keys(ctx, &j, "definition", d, 0);
		ctl_status_keys(ctx, &j, "policies", d, 1);
		ctl_json_open_array(&j, "current");
		for (i = 0; i < nact; i++)
			ctl_job_json_run(&j, NULL, &act[i]);
		ctl_json_close_array(&j);
		ctl_json_opt(&j, "consecutive_skips", q != NULL ? v.st.skips :
		    -1);
		if (nerrs > 0)
			ctl_job_json_run(&j, "last_error", &errs[0]);
		else
			ctl_json_null(&j, "last_error");
		ctl_json_close(&j);
		if (ctl_json_print(&j) == -1)
			rc = CTL_EXIT_FAIL;
		goto out;
	}

	/* Summary. */
	ctl_table_init(&t, 2);
	ctl_table_row(&t, "job", d->id);
	ctl_table_row(&t, "defined at", job_def_where(d, defined,
	    sizeof defined));
	if (d->description != NULL) {
		vis = ctl_fmt_vis(d->description, strlen(d->description), 0);
		ctl_table_row(&t, "description", vis);
		free(vis);
	}
	ctl_table_row(&t, "state", v.state);
	ctl_job_policy(d, &gap, &fold);
	/* H's values, and the dialect when it is not cron's. */
	ce = schedule_cron(d->schedule);
	text = xasprintf("%s%s%s%s%s", schedule_text(d->schedule),
	    ce != NULL && cronexpr_resolved(ce) != NULL ? " (= " : "",
	    ce != NULL && cronexpr_resolved(ce) != NULL ?
	    cronexpr_resolved(ce) : "", ce != NULL &&
	    cronexpr_resolved(ce) != NULL ? ")" : "", d->cron_dialect ==
	    CRONEXPR_QUARTZ ? " (quartz)" : "");
	vis = ctl_fmt_vis(text, strlen(text), 0);
	free(text);
	if (schedule_cron(d->schedule) != NULL &&
	    schedule_kind(d->schedule) == SCHEDULE_CRON)
		(void)snprintf(line, sizeof line, "%s in %s (dst_gap %s, "
		    "dst_fold %s)", vis, d->timezone, tz_gap_name(gap),
		    tz_fold_name(fold));
	else
		(void)snprintf(line, sizeof line, "%s", vis);
	free(vis);
	ctl_table_row(&t, "schedule", line);
	if (v.st.last_status != NULL) {
		ctl_fmt_ago(ctx->now_ms, v.st.last_ms, a, sizeof a);
		(void)snprintf(line, sizeof line, "%s%s%s%s %s (%s)",
		    v.st.last_status, v.st.last_reason != NULL ? " (" : "",
		    v.st.last_reason != NULL ? v.st.last_reason : "",
		    v.st.last_reason != NULL ? ")" : "", a, v.st.last_run_id);
		ctl_table_row(&t, "last", line);
	} else
		ctl_table_row(&t, "last", q != NULL ? "never ran" : "-");
	if (q != NULL) {
		ctl_fmt_ago(ctx->now_ms, v.st.last_success_ms, a, sizeof a);
		ctl_table_row(&t, "last success", v.st.last_success_ms != -1 ?
		    a : "never");
		if (v.st.skips > 0) {
			ctl_fmt_utc(v.st.skip_since, a, sizeof a);
			(void)snprintf(line, sizeof line, "%lld (since %s)",
			    (long long)v.st.skips, a);
		} else
			(void)snprintf(line, sizeof line, "0");
		ctl_table_row(&t, "consecutive skips", line);
	}
	if (nerrs > 0) {
		ctl_fmt_ago(ctx->now_ms, errs[0].finished_ms, a, sizeof a);
		ctl_fmt_exit(errs[0].exit_status, errs[0].signal, b, sizeof b);
		(void)snprintf(line, sizeof line, "%s %s%s%s%s %s%s%s",
		    errs[0].run_id, errs[0].status,
		    errs[0].reason != NULL ? " (" : "",
		    errs[0].reason != NULL ? errs[0].reason : "",
		    errs[0].reason != NULL ? ")" : "", a,
		    strcmp(b, "-") != 0 ? ", " : "",
		    strcmp(b, "-") != 0 ? b : "");
		ctl_table_row(&t, "last error", line);
		if (errs[0].error != NULL || errs[0].detail != NULL) {
			vis = errs[0].error != NULL ? ctl_fmt_vis(errs[0].error,
			    strlen(errs[0].error), 0) :
			    ctl_fmt_vis(errs[0].detail,
			    strlen(errs[0].detail), 0);
			ctl_table_row(&t, "", vis);
			free(vis);
		}
	}
	(void)ctl_table_print(&t, NULL);
	ctl_table_free(&t);

	(void)printf("\ndefinition:\n");
	ctl_status_keys(ctx, &j, NULL, d, 0);
	(void)printf("\npolicies:\n");
	ctl_status_keys(ctx, &j, NULL, d, 1);

	(void)printf("\nnext %s:\n", nnext == 1 ? "instant" : "instants");
	if (nnext == 0)
		(void)printf("  none (%s)\n", !d->enabled ? "disabled" :
		    v.st.paused ? "paused" : schedule_kind(d->schedule) ==
		    SCHEDULE_REBOOT ? "@reboot runs once per boot" :
		    schedule_kind(d->schedule) == SCHEDULE_AFTER ?
		    "after the instance in flight ends" : "the schedule ends");
	ctl_table_init(&t, 3);
	for (i = 0; i < nnext; i++) {
		ctl_fmt_local(next[i], d->tz, a, sizeof a);
		ctl_fmt_utc(next[i], b, sizeof b);
		ctl_table_row(&t, a, b, ctl_job_dst_name(ctl_job_dst(d,
		    next[i])));
	}
	(void)ctl_table_print(&t, "  ");
	ctl_table_free(&t);

	if (nact > 0) {
		(void)printf("\nin flight:\n");
		ctl_table_init(&t, 6);
		ctl_table_row(&t, "RUN ID", "STATUS", "ATTEMPT", "PID",
		    "STARTED", "ELAPSED");
		for (i = 0; i < nact; i++) {
			(void)snprintf(line, sizeof line, "%d",
			    act[i].attempts);
			if (act[i].pid != -1 &&
			    strcmp(act[i].status, "running") == 0)
				(void)snprintf(c, sizeof c, "%lld",
				    (long long)act[i].pid);
			else
				(void)snprintf(c, sizeof c, "-");
			ctl_fmt_local(act[i].attempt_started_ms == -1 ? -1 :
			    act[i].attempt_started_ms / 1000, d->tz, a,
			    sizeof a);
			if (act[i].attempt_started_ms != -1 &&
			    strcmp(act[i].status, "running") == 0)
				ctl_fmt_ms(ctx->now_ms -
				    act[i].attempt_started_ms, b, sizeof b);
			else
				(void)snprintf(b, sizeof b, "-");
			ctl_table_row(&t, act[i].run_id, act[i].status, line,
			    c, a, b);
		}
		(void)ctl_table_print(&t, "  ");
		ctl_table_free(&t);
		ctl_status_batches(ctx, act, nact);
	}

	if (q != NULL) {
		(void)printf("\nlast %zu history entr%s (tickctl history %s "
		    "shows more):\n", nruns, nruns == 1 ? "y" : "ies", d->id);
		ctl_job_run_table(&t);
		for (i = 0; i < nruns; i++)
			ctl_job_run_row(&t, &runs[i], d->tz, ctx->now_ms);
		if (nruns > 0)
			(void)ctl_table_print(&t, "  ");
		ctl_table_free(&t);
	}
	goto out;

fail:
	ctl_error("status: state %s: %s", ctx->conf->state, cause);
	free(cause);
	rc = CTL_EXIT_FAIL;
out:
	ctl_job_view_clear(&v);
	store_query_runs_free(act, nact);
	store_query_runs_free(runs, nruns);
	store_query_runs_free(errs, nerrs);
	ctl_json_free(&j);
	return rc;
}

/* tickctl status [JOB]: the daemon, or one job. */
static int
ctl_status_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch, rc;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			(void)printf("usage: tickctl status %s\n",
			    ctl_status_cmd.usage);
			return CTL_EXIT_OK;
		default:
			return ctl_getopt_error(&ctl_status_cmd, ch, argv);
		}
	}
	if (argc - optind > 1) {
		ctl_error("status: unexpected argument \"%s\"",
		    argv[optind + 1]);
		return CTL_EXIT_USAGE;
	}
	rc = optind < argc ? ctl_status_job(ctx, argv[optind]) :
	    ctl_status_daemon(ctx);
	if (ctl_flush("status") != CTL_EXIT_OK)
		rc = CTL_EXIT_FAIL;
	return rc;
}

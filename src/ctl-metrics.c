/*
 * ctl-metrics.c -- "tickctl metrics": the figures of stats and list in
 * the Prometheus text exposition format (version 0.0.4), for
 * node_exporter's textfile collector.
 *
 *   tickctl metrics [--since T]
 *
 * Each metric family is written once, with its # HELP and # TYPE lines,
 * then its samples; label values are escaped (\\, \", \n).  Families:
 *
 *   tickd_up                          1 if the daemon holds its lock
 *   tickd_state_readable              1 if the state database was read
 *   tickd_jobs{state}                 jobs per state
 *   tickd_job_state{job,state}        1 for the job's state, 0 others
 *   tickd_runs_total{job,status}      instances recorded, per status
 *                                     (a batch is one, its shards none)
 *   tickd_shards_total{job,status}    shards of batches, per status
 *                                     (written when there are any)
 *   tickd_skipped_total{job,reason}   instants skipped, per reason
 *   tickd_lateness_seconds{job,quantile} summary: scheduling delay
 *   tickd_lateness_max_seconds{job}
 *   tickd_duration_seconds{job,quantile} summary: execution time
 *   tickd_duration_max_seconds{job}
 *   tickd_cpu_seconds{job,quantile}   summary: an attempt's CPU time
 *   tickd_cpu_max_seconds{job}
 *   tickd_memory_peak_bytes{job,quantile} summary: its peak memory
 *   tickd_memory_peak_max_bytes{job}
 *   tickd_failed_total{job,reason}    failed and dead instances, per
 *                                     reason (exit, signal, timeout,
 *                                     spawn, oom, ...)
 *   tickd_last_success_timestamp_seconds{job}
 *   tickd_next_run_timestamp_seconds{job}
 *   tickd_node_clock_offset_seconds{node}  with a PostgreSQL state: each
 *   tickd_node_heartbeat_age_seconds{node} node's clock against the
 *   tickd_node_claiming{node}              server's, its last heartbeat
 *
 * The *_total counts are rows of the store, so history retention
 * (history_keep, history_max_age) bounds them: see CAVEATS in tickctl(1).
 * Summaries cover every instance kept, or those scheduled since T.
 * Without a readable store, tickd_up, tickd_state_readable and the job
 * states from the configuration are still written, after a warning.
 *
 * DIAGNOSTICS: one line on stderr: usage errors exit 2, an invalid
 * configuration or a failing store exits 1.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctl-fmt.h"
#include "ctl-job.h"
#include "ctl.h"
#include "store_query.h"
#include "xmalloc.h"

static int	ctl_metrics_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_metrics_cmd = {
	"metrics",
	"[--since T]",
	"the same figures in the Prometheus text format",
	ctl_metrics_exec,
};

static const char *const ctl_metrics_states[] = {
	"idle", "running", "queued", "blocked", "paused", "disabled", "error"
};
#define CTL_METRICS_NSTATES	(sizeof ctl_metrics_states / \
				sizeof ctl_metrics_states[0])

/* A label value escaped for the text format (caller frees). */
static char *
ctl_metrics_label(const char *s)
{
	char	*out = xmalloc(strlen(s) * 2 + 1), *o = out;

	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"') {
			*o++ = '\\';
			*o++ = *s;
		} else if (*s == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else
			*o++ = *s;
	}
	*o = '\0';
	return out;
}

/* # HELP and # TYPE of a family. */
static void
ctl_metrics_family(const char *name, const char *type, const char *help)
{
	(void)printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Microseconds as seconds, exactly: "1.234567". */
static void
ctl_metrics_usecs(int64_t us, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%lld.%06lld", (long long)(us / 1000000),
	    (long long)(us % 1000000));
}

/* A count of bytes. */
static void
ctl_metrics_bytes(int64_t b, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%lld", (long long)b);
}

/* Milliseconds as seconds, exactly: "1.234", "-0.005". */
static void
ctl_metrics_secs(int64_t ms, char *buf, size_t len)
{
	int64_t a = ms < 0 ? -ms : ms;

	(void)snprintf(buf, len, "%s%lld.%03lld", ms < 0 ? "-" : "",
	    (long long)(a / 1000), (long long)(a % 1000));
}

/* One sample with a job label and an optional second label. */
static void
ctl_metrics_sample(const char *name, const char *job, const char *lname,
    const char *lvalue, const char *value)
{
	char *j = ctl_metrics_label(job), *v = NULL;

	if (lname != NULL) {
		v = ctl_metrics_label(lvalue);
		(void)printf("%s{job=\"%s\",%s=\"%s\"} %s\n", name, j, lname,
		    v, value);
	} else
		(void)printf("%s{job=\"%s\"} %s\n", name, j, value);
	free(j);
	free(v);
}

/* A sample of a node's gauge. */
static void
ctl_metrics_node(const char *name, const char *node, double v)
{
	char *n = ctl_metrics_label(node);

	(void)printf("%s{node=\"%s\"} %.3f\n", name, n, v);
	free(n);
}

/* The sorted values of a summary, and their count. */
struct ctl_metrics_values {
	size_t		  offset;	/* of the array in the stats */
	size_t		  count;	/* of its length */
	void		(*fmt)(int64_t, char *, size_t);
};

/* The values of one job for a summary (count in *n). */
static const int64_t *
ctl_metrics_pick(const struct store_query_stats *s,
    const struct ctl_metrics_values *mv, size_t *n)
{
	*n = *(const size_t *)(const void *)((const char *)s + mv->count);
	return *(int64_t *const *)(const void *)((const char *)s +
	    mv->offset);
}

/* A summary family over sorted values per job, with its max gauge. */
static void
ctl_metrics_summary(const char *name, const char *help, const char *maxname,
    const char *maxhelp, const struct store_query_stats *v, size_t n,
    const struct ctl_metrics_values *mv, const int *qs, size_t nqs)
{
	const int64_t	*x;
	char		 val[32], qv[16];
	char		*sname = xasprintf("%s_sum", name);
	char		*cname = xasprintf("%s_count", name);
	int64_t		 sum;
	size_t		 i, k, cnt;

	ctl_metrics_family(name, "summary", help);
	for (i = 0; i < n; i++) {
		if ((x = ctl_metrics_pick(&v[i], mv, &cnt)) == NULL ||
		    cnt == 0)
			continue;
		for (k = 0; k < nqs; k++) {
			if (qs[k] % 10 == 0)
				(void)snprintf(qv, sizeof qv, "0.%d",
				    qs[k] / 10);
			else
				(void)snprintf(qv, sizeof qv, "0.%02d", qs[k]);
			mv->fmt(store_query_percentile(x, cnt, qs[k]), val,
			    sizeof val);
			ctl_metrics_sample(name, v[i].job, "quantile", qv, val);
		}
		for (sum = 0, k = 0; k < cnt; k++)
			sum += x[k];
		mv->fmt(sum, val, sizeof val);
		ctl_metrics_sample(sname, v[i].job, NULL, NULL, val);
		(void)snprintf(val, sizeof val, "%zu", cnt);
		ctl_metrics_sample(cname, v[i].job, NULL, NULL, val);
	}
	free(sname);
	free(cname);
	ctl_metrics_family(maxname, "gauge", maxhelp);
	for (i = 0; i < n; i++) {
		if ((x = ctl_metrics_pick(&v[i], mv, &cnt)) == NULL ||
		    cnt == 0)
			continue;
		mv->fmt(x[cnt - 1], val, sizeof val);
		ctl_metrics_sample(maxname, v[i].job, NULL, NULL, val);
	}
}

#define CTL_METRICS_VALUES(a, n, f) \
	{ offsetof(struct store_query_stats, a), \
	  offsetof(struct store_query_stats, n), f }

static const struct ctl_metrics_values ctl_metrics_lateness =
    CTL_METRICS_VALUES(lateness, nlateness, ctl_metrics_secs);
static const struct ctl_metrics_values ctl_metrics_duration =
    CTL_METRICS_VALUES(duration, nduration, ctl_metrics_secs);
static const struct ctl_metrics_values ctl_metrics_cpu =
    CTL_METRICS_VALUES(cpu_us, ncpu, ctl_metrics_usecs);
static const struct ctl_metrics_values ctl_metrics_mem =
    CTL_METRICS_VALUES(mem_peak, nmem, ctl_metrics_bytes);

/* tickctl metrics: read everything, then write each metric family. */
static int
ctl_metrics_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const int		 lq[] = { 50, 95, 99 };
	static const int		 dq[] = { 50, 95 };
	const struct ctl_daemon		*dm;
	struct store_query_stats	*st = NULL;
	struct store_query_count	*runs = NULL, *skips = NULL;
	struct store_query_count	*fails = NULL, *shards = NULL;
	struct store_query_node		*nodes = NULL;
	struct store_query		*q;
	struct ctl_job_view		*views = NULL;
	struct conf			*c;
	char				*cause = NULL, val[32];
	size_t				 nst = 0, nruns = 0, nskips = 0;
	size_t				 nfails = 0, nnodes = 0, nshards = 0;
	size_t				 nviews = 0, i, k, count;
	int64_t				 since = -1;
	int				 ch, rc = CTL_EXIT_OK;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			if (ctl_parse_since(optarg, ctx->now_ms, &since,
			    &cause) == -1) {
				ctl_error("metrics: --since: %s", cause);
				free(cause);
				return CTL_EXIT_USAGE;
			}
			break;
		case 'h':
			(void)printf("usage: tickctl metrics %s\n",
			    ctl_metrics_cmd.usage);
			return CTL_EXIT_OK;
		default:
			return ctl_getopt_error(&ctl_metrics_cmd, ch, argv);
		}
	}
	if (optind < argc) {
		ctl_error("metrics: unexpected argument \"%s\"", argv[optind]);
		return CTL_EXIT_USAGE;
	}
	if ((c = ctl_ctx_conf(ctx)) == NULL)
		return CTL_EXIT_FAIL;
	dm = ctl_ctx_daemon(ctx);
	if ((q = ctl_ctx_store_quiet(ctx)) == NULL)
		ctl_error("metrics: %s: writing the configuration's metrics "
		    "only", ctx->store_cause);

	/* Read everything first: a failure writes nothing. */
	views = xcalloc(c->njobs + c->nbad_ids + 1, sizeof *views);
	for (i = 0; i < c->njobs; i++, nviews++)
		if (ctl_job_view(q, c->jobs[i], ctx->now_ms / 1000,
		    &views[i], &cause) == -1)
			goto fail;
	for (i = 0; i < c->nbad_ids; i++, nviews++)
		ctl_job_view_bad(c->bad_ids[i], c->bad_where[i],
		    &views[nviews]);
	if (q != NULL && (store_query_stats(q, NULL, since, &st, &nst,
	    &cause) == -1 || store_query_counts(q, STORE_QUERY_BY_STATUS,
	    &runs, &nruns, &cause) == -1 || store_query_counts(q,
	    STORE_QUERY_SKIPPED, &skips, &nskips, &cause) == -1 ||
	    store_query_counts(q, STORE_QUERY_FAILED, &fails, &nfails,
	    &cause) == -1 || store_query_counts(q, STORE_QUERY_SHARDS,
	    &shards, &nshards, &cause) == -1 ||
	    store_query_nodes(q, &nodes, &nnodes,
	    &cause) == -1))
		goto fail;

	ctl_metrics_family("tickd_up", "gauge", "Whether the tickd daemon "
	    "runs (it holds the lock of its state database).");
	(void)printf("tickd_up %d\n", dm->running);
	ctl_metrics_family("tickd_state_readable", "gauge", "Whether tickctl "
	    "could read the state database.");
	(void)printf("tickd_state_readable %d\n", q != NULL);
	ctl_metrics_family("tickd_jobs", "gauge", "Configured jobs per "
	    "state.");
	for (k = 0; k < CTL_METRICS_NSTATES; k++) {
		for (count = 0, i = 0; i < nviews; i++)
			count += strcmp(views[i].state,
			    ctl_metrics_states[k]) == 0;
		(void)printf("tickd_jobs{state=\"%s\"} %zu\n",
		    ctl_metrics_states[k], count);
	}
	ctl_metrics_family("tickd_job_state", "gauge", "1 for the state the "
	    "job is in (idle, running, queued, blocked, paused, disabled, "
	    "error), 0 for the others.");
	for (i = 0; i < nviews; i++)
		for (k = 0; k < CTL_METRICS_NSTATES; k++)
			ctl_metrics_sample("tickd_job_state", views[i].id,
			    "state", ctl_metrics_states[k], strcmp(
			    views[i].state, ctl_metrics_states[k]) == 0 ?
			    "1" : "0");
	ctl_metrics_family("tickd_next_run_timestamp_seconds", "gauge",
	    "The job's next scheduled instant, Unix time.");
	for (i = 0; i < nviews; i++) {
		if (views[i].next_at == -1)
			continue;
		(void)snprintf(val, sizeof val, "%lld",
		    (long long)views[i].next_at);
		ctl_metrics_sample("tickd_next_run_timestamp_seconds",
		    views[i].id, NULL, NULL, val);
	}
	if (q == NULL)
		goto out;

	ctl_metrics_family("tickd_last_success_timestamp_seconds", "gauge",
	    "When the job's last successful instance ended, Unix time.");
	for (i = 0; i < nviews; i++) {
		if (views[i].st.last_success_ms == -1)
			continue;
		ctl_metrics_secs(views[i].st.last_success_ms, val, sizeof val);
		ctl_metrics_sample("tickd_last_success_timestamp_seconds",
		    views[i].id, NULL, NULL, val);
	}
	ctl_metrics_family("tickd_runs_total", "counter", "Run instances "
	    "recorded in the state database, per status (bounded by history "
	    "retention).");
	for (i = 0; i < nruns; i++) {
		(void)snprintf(val, sizeof val, "%lld", (long long)runs[i].n);
		ctl_metrics_sample("tickd_runs_total", runs[i].job, "status",
		    runs[i].key, val);
	}
	if (nshards > 0)
		ctl_metrics_family("tickd_shards_total", "counter", "Shards "
		    "of batch instances recorded in the state database, per "
		    "status (bounded by history retention).");
	for (i = 0; i < nshards; i++) {
		(void)snprintf(val, sizeof val, "%lld",
		    (long long)shards[i].n);
		ctl_metrics_sample("tickd_shards_total", shards[i].job,
		    "status", shards[i].key, val);
	}
	ctl_metrics_family("tickd_skipped_total", "counter", "Scheduled "
	    "instants that did not run, per reason: skipped instances and "
	    "skipped ranges (bounded by history retention).");
	for (i = 0; i < nskips; i++) {
		(void)snprintf(val, sizeof val, "%lld", (long long)skips[i].n);
		ctl_metrics_sample("tickd_skipped_total", skips[i].job,
		    "reason", skips[i].key, val);
	}
	ctl_metrics_family("tickd_failed_total", "counter", "Failed and dead "
	    "instances, per reason: exit, signal, timeout, spawn, oom (killed "
	    "for memory) ... (bounded by history retention).");
	for (i = 0; i < nfails; i++) {
		(void)snprintf(val, sizeof val, "%lld", (long long)fails[i].n);
		ctl_metrics_sample("tickd_failed_total", fails[i].job,
		    "reason", fails[i].key, val);
	}
	if (nnodes > 0) {
		ctl_metrics_family("tickd_node_clock_offset_seconds", "gauge",
		    "A node's clock minus the database server's, as the node "
		    "last measured it (PostgreSQL state).");
		for (i = 0; i < nnodes; i++)
			ctl_metrics_node("tickd_node_clock_offset_seconds",
			    nodes[i].node, (double)nodes[i].offset_ms / 1000);
		ctl_metrics_family("tickd_node_heartbeat_age_seconds", "gauge",
		    "Time since a node's last heartbeat, by the database "
		    "server's clock.");
		for (i = 0; i < nnodes; i++)
			ctl_metrics_node("tickd_node_heartbeat_age_seconds",
			    nodes[i].node, (double)nodes[i].age_ms / 1000);
		ctl_metrics_family("tickd_node_claiming", "gauge", "1 if a "
		    "node's clock is within max_clock_skew of the server's "
		    "(as this configuration sets it): it claims.");
		for (i = 0; i < nnodes; i++)
			ctl_metrics_node("tickd_node_claiming", nodes[i].node,
			    nodes[i].offset_ms <= c->max_clock_skew * 1000 &&
			    -nodes[i].offset_ms <= c->max_clock_skew * 1000);
	}
	ctl_metrics_summary("tickd_lateness_seconds", "Scheduling delay: an "
	    "instance's first start minus when it was due.",
	    "tickd_lateness_max_seconds", "The largest scheduling delay.",
	    st, nst, &ctl_metrics_lateness, lq, sizeof lq / sizeof lq[0]);
	ctl_metrics_summary("tickd_duration_seconds", "Execution time: how "
	    "long an instance's latest attempt ran.",
	    "tickd_duration_max_seconds", "The longest execution time.", st,
	    nst, &ctl_metrics_duration, dq, sizeof dq / sizeof dq[0]);
	ctl_metrics_summary("tickd_cpu_seconds", "CPU time, user and system, "
	    "an instance's latest attempt used.", "tickd_cpu_max_seconds",
	    "The most CPU time an attempt used.", st, nst, &ctl_metrics_cpu,
	    dq, sizeof dq / sizeof dq[0]);
	ctl_metrics_summary("tickd_memory_peak_bytes", "Peak memory of an "
	    "instance's latest attempt.", "tickd_memory_peak_max_bytes",
	    "The largest peak memory of an attempt.", st, nst,
	    &ctl_metrics_mem, dq, sizeof dq / sizeof dq[0]);
	goto out;

fail:
	ctl_error("metrics: state %s: %s", c->state, cause);
	free(cause);
	rc = CTL_EXIT_FAIL;
out:
	for (i = 0; i < nviews; i++)
		ctl_job_view_clear(&views[i]);
	free(views);
	store_query_stats_free(st, nst);
	store_query_counts_free(runs, nruns);
	store_query_counts_free(skips, nskips);
	store_query_counts_free(fails, nfails);
	store_query_counts_free(shards, nshards);
	store_query_nodes_free(nodes, nnodes);
	if (ctl_flush("metrics") != CTL_EXIT_OK)
		rc = CTL_EXIT_FAIL;
	return rc;
}

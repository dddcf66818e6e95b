/*
 * metrics.c -- tickd's figures in the Prometheus text exposition format
 * (version 0.0.4): the one writer behind "tickctl metrics" (for
 * node_exporter's textfile collector) and the daemon's GET /metrics
 * ([daemon] metrics_listen, server-metrics.c).  The callers gather the
 * figures (tickctl from the configuration and the store, the daemon
 * from its memory); this file only writes them.
 *
 * Each metric family is written once, with its # HELP and # TYPE lines,
 * then its samples; label values are escaped (\\, \", \n).  Families:
 *
 *   tickd_up                          1 if the daemon runs
 *   tickd_state_readable              1 if the state database was read
 *   tickd_jobs{state}                 jobs per state
 *   tickd_job_state{job,state}        1 for the job's state, 0 others
 *   tickd_next_run_timestamp_seconds{job}
 *   tickd_last_success_timestamp_seconds{job}   (last_success set)
 * and, when the store's figures are given (store set):
 *   tickd_runs_total{job,status}      instances recorded, per status
 *                                     (a batch is one, its shards none)
 *   tickd_shards_total{job,status}    shards of batches, per status
 *                                     (written when there are any)
 *   tickd_skipped_total{job,reason}   instants skipped, per reason
 *   tickd_failed_total{job,reason}    failed and dead instances, per
 *                                     reason (exit, signal, timeout,
 *                                     spawn, oom, ...)
 *   tickd_node_clock_offset_seconds{node}  with a PostgreSQL state: each
 *   tickd_node_heartbeat_age_seconds{node} node's clock against the
 *   tickd_node_claiming{node}              server's, its last heartbeat
 *   tickd_lateness_seconds{job,quantile} summary: scheduling delay
 *   tickd_lateness_max_seconds{job}
 *   tickd_duration_seconds{job,quantile} summary: execution time
 *   tickd_duration_max_seconds{job}
 *   tickd_cpu_seconds{job,quantile}   summary: an attempt's CPU time
 *   tickd_cpu_max_seconds{job}
 *   tickd_memory_peak_bytes{job,quantile} summary: its peak memory
 *   tickd_memory_peak_max_bytes{job}
 *
 * DIAGNOSTICS: none; the caller checks its stream (ferror).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "store_query.h"
#include "xmalloc.h"

const char *const metrics_states[METRICS_NSTATES] = {
	"idle", "running", "queued", "blocked", "paused", "disabled", "error"
};

/* A label value escaped for the text format (caller frees). */
static char *
metrics_label(const char *s)
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
metrics_family(FILE *fp, const char *name, const char *type,
    const char *help)
{
	(void)fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
	    type);
}

/* Microseconds as seconds, exactly: "1.234567". */
static void
metrics_usecs(int64_t us, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%lld.%06lld", (long long)(us / 1000000),
	    (long long)(us % 1000000));
}

/* A count of bytes. */
static void
metrics_bytes(int64_t b, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%lld", (long long)b);
}

/* Milliseconds as seconds, exactly: "1.234", "-0.005". */
static void
metrics_secs(int64_t ms, char *buf, size_t len)
{
	int64_t a = ms < 0 ? -ms : ms;

	(void)snprintf(buf, len, "%s%lld.%03lld", ms < 0 ? "-" : "",
	    (long long)(a / 1000), (long long)(a % 1000));
}

/* One sample with a job label and an optional second label. */
static void
metrics_sample(FILE *fp, const char *name, const char *job,
    const char *lname, const char *lvalue, const char *value)
{
	char *j = metrics_label(job), *v = NULL;

	if (lname != NULL) {
		v = metrics_label(lvalue);
		(void)fprintf(fp, "%s{job=\"%s\",%s=\"%s\"} %s\n", name, j,
		    lname, v, value);
	} else
		(void)fprintf(fp, "%s{job=\"%s\"} %s\n", name, j, value);
	free(j);
	free(v);
}

/* A sample of a node's gauge. */
static void
metrics_node(FILE *fp, const char *name, const char *node, double v)
{
	char *n = metrics_label(node);

	(void)fprintf(fp, "%s{node=\"%s\"} %.3f\n", name, n, v);
	free(n);
}

/* A family of counts per job and key (status, reason). */
static void
metrics_counts(FILE *fp, const char *name, const char *label,
    const struct store_query_count *c, size_t n)
{
	char	val[32];
	size_t	i;

	for (i = 0; i < n; i++) {
		(void)snprintf(val, sizeof val, "%lld", (long long)c[i].n);
		metrics_sample(fp, name, c[i].job, label, c[i].key, val);
	}
}

/* The sorted values of a summary, and their count. */
struct metrics_values {
	size_t		  offset;	/* of the array in the stats */
	size_t		  count;	/* of its length */
	void		(*fmt)(int64_t, char *, size_t);
};

/* The values of one job for a summary (count in *n). */
static const int64_t *
metrics_pick(const struct store_query_stats *s,
    const struct metrics_values *mv, size_t *n)
{
	*n = *(const size_t *)(const void *)((const char *)s + mv->count);
	return *(int64_t *const *)(const void *)((const char *)s +
	    mv->offset);
}

/* A summary family over sorted values per job, with its max gauge. */
static void
metrics_summary(FILE *fp, const char *name, const char *help,
    const char *maxname, const char *maxhelp,
    const struct store_query_stats *v, size_t n,
    const struct metrics_values *mv, const int *qs, size_t nqs)
{
	const int64_t	*x;
	char		 val[32], qv[16];
	char		*sname = xasprintf("%s_sum", name);
	char		*cname = xasprintf("%s_count", name);
	int64_t		 sum;
	size_t		 i, k, cnt;

	metrics_family(fp, name, "summary", help);
	for (i = 0; i < n; i++) {
		if ((x = metrics_pick(&v[i], mv, &cnt)) == NULL || cnt == 0)
			continue;
		for (k = 0; k < nqs; k++) {
			if (qs[k] % 10 == 0)
				(void)snprintf(qv, sizeof qv, "0.%d",
				    qs[k] / 10);
			else
				(void)snprintf(qv, sizeof qv, "0.%02d", qs[k]);
			mv->fmt(store_query_percentile(x, cnt, qs[k]), val,
			    sizeof val);
			metrics_sample(fp, name, v[i].job, "quantile", qv,
			    val);
		}
		for (sum = 0, k = 0; k < cnt; k++)
			sum += x[k];
		mv->fmt(sum, val, sizeof val);
		metrics_sample(fp, sname, v[i].job, NULL, NULL, val);
		(void)snprintf(val, sizeof val, "%zu", cnt);
		metrics_sample(fp, cname, v[i].job, NULL, NULL, val);
	}
	free(sname);
	free(cname);
	metrics_family(fp, maxname, "gauge", maxhelp);
	for (i = 0; i < n; i++) {
		if ((x = metrics_pick(&v[i], mv, &cnt)) == NULL || cnt == 0)
			continue;
		mv->fmt(x[cnt - 1], val, sizeof val);
		metrics_sample(fp, maxname, v[i].job, NULL, NULL, val);
	}
}

#define METRICS_VALUES(a, n, f) \
	{ offsetof(struct store_query_stats, a), \
	  offsetof(struct store_query_stats, n), f }

static const struct metrics_values metrics_lateness =
    METRICS_VALUES(lateness, nlateness, metrics_secs);
static const struct metrics_values metrics_duration =
    METRICS_VALUES(duration, nduration, metrics_secs);
static const struct metrics_values metrics_cpu =
    METRICS_VALUES(cpu_us, ncpu, metrics_usecs);
static const struct metrics_values metrics_mem =
    METRICS_VALUES(mem_peak, nmem, metrics_bytes);

/* The families read from the store: counts, nodes, summaries. */
static void
metrics_write_store(FILE *fp, const struct metrics *m)
{
	static const int	 lq[] = { 50, 95, 99 };
	static const int	 dq[] = { 50, 95 };
	const int64_t		 skew = m->max_clock_skew * 1000;
	size_t			 i;

	metrics_family(fp, "tickd_runs_total", "counter", "Run instances "
	    "recorded in the state database, per status (bounded by history "
	    "retention).");
	metrics_counts(fp, "tickd_runs_total", "status", m->runs, m->nruns);
	if (m->nshards > 0)
		metrics_family(fp, "tickd_shards_total", "counter", "Shards "
		    "of batch instances recorded in the state database, per "
		    "status (bounded by history retention).");
	metrics_counts(fp, "tickd_shards_total", "status", m->shards,
	    m->nshards);
	metrics_family(fp, "tickd_skipped_total", "counter", "Scheduled "
	    "instants that did not run, per reason: skipped instances and "
	    "skipped ranges (bounded by history retention).");
	metrics_counts(fp, "tickd_skipped_total", "reason", m->skips,
	    m->nskips);
	metrics_family(fp, "tickd_failed_total", "counter", "Failed and dead "
	    "instances, per reason: exit, signal, timeout, spawn, oom (killed "
	    "for memory) ... (bounded by history retention).");
	metrics_counts(fp, "tickd_failed_total", "reason", m->fails,
	    m->nfails);
	if (m->nnodes > 0) {
		metrics_family(fp, "tickd_node_clock_offset_seconds", "gauge",
		    "A node's clock minus the database server's, as the node "
		    "last measured it (PostgreSQL state).");
		for (i = 0; i < m->nnodes; i++)
			metrics_node(fp, "tickd_node_clock_offset_seconds",
			    m->nodes[i].node,
			    (double)m->nodes[i].offset_ms / 1000);
		metrics_family(fp, "tickd_node_heartbeat_age_seconds",
		    "gauge", "Time since a node's last heartbeat, by the "
		    "database server's clock.");
		for (i = 0; i < m->nnodes; i++)
			metrics_node(fp, "tickd_node_heartbeat_age_seconds",
			    m->nodes[i].node,
			    (double)m->nodes[i].age_ms / 1000);
		metrics_family(fp, "tickd_node_claiming", "gauge", "1 if a "
		    "node's clock is within max_clock_skew of the server's "
		    "(as this configuration sets it): it claims.");
		for (i = 0; i < m->nnodes; i++)
			metrics_node(fp, "tickd_node_claiming",
			    m->nodes[i].node, m->nodes[i].offset_ms <= skew &&
			    -m->nodes[i].offset_ms <= skew);
	}
	metrics_summary(fp, "tickd_lateness_seconds", "Scheduling delay: an "
	    "instance's first start minus when it was due.",
	    "tickd_lateness_max_seconds", "The largest scheduling delay.",
	    m->st, m->nst, &metrics_lateness, lq, sizeof lq / sizeof lq[0]);
	metrics_summary(fp, "tickd_duration_seconds", "Execution time: how "
	    "long an instance's latest attempt ran.",
	    "tickd_duration_max_seconds", "The longest execution time.",
	    m->st, m->nst, &metrics_duration, dq, sizeof dq / sizeof dq[0]);
	metrics_summary(fp, "tickd_cpu_seconds", "CPU time, user and system, "
	    "an instance's latest attempt used.", "tickd_cpu_max_seconds",
	    "The most CPU time an attempt used.", m->st, m->nst,
	    &metrics_cpu, dq, sizeof dq / sizeof dq[0]);
	metrics_summary(fp, "tickd_memory_peak_bytes", "Peak memory of an "
	    "instance's latest attempt.", "tickd_memory_peak_max_bytes",
	    "The largest peak memory of an attempt.", m->st, m->nst,
	    &metrics_mem, dq, sizeof dq / sizeof dq[0]);
}

/*
 * A job's state, one of metrics_states, from what is known of it: the
 * first that holds of disabled (not enabled), paused, blocked (overlap
 * skips in a row), running (a process, here or on another node), queued
 * (an instance waits), else idle.  tickctl decides it from the store,
 * the daemon from its memory; "error" (an invalid definition) is the
 * caller's.
 */
const char *
metrics_state(int enabled, int paused, int blocked, int running,
    int waiting)
{
	if (!enabled)
		return "disabled";
	if (paused)
		return "paused";
	if (blocked)
		return "blocked";
	if (running)
		return "running";
	if (waiting)
		return "queued";
	return "idle";
}

/* Write every family m holds to fp. */
void
metrics_write(FILE *fp, const struct metrics *m)
{
	char	val[32];
	size_t	i, k, count;

	metrics_family(fp, "tickd_up", "gauge", "Whether the tickd daemon "
	    "runs (it holds the lock of its state database).");
	(void)fprintf(fp, "tickd_up %d\n", m->up);
	metrics_family(fp, "tickd_state_readable", "gauge",
	    m->readable_help);
	(void)fprintf(fp, "tickd_state_readable %d\n", m->readable);
	metrics_family(fp, "tickd_jobs", "gauge", "Configured jobs per "
	    "state.");
	for (k = 0; k < METRICS_NSTATES; k++) {
		for (count = 0, i = 0; i < m->njobs; i++)
			count += strcmp(m->jobs[i].state,
			    metrics_states[k]) == 0;
		(void)fprintf(fp, "tickd_jobs{state=\"%s\"} %zu\n",
		    metrics_states[k], count);
	}
	metrics_family(fp, "tickd_job_state", "gauge", "1 for the state the "
	    "job is in (idle, running, queued, blocked, paused, disabled, "
	    "error), 0 for the others.");
	for (i = 0; i < m->njobs; i++)
		for (k = 0; k < METRICS_NSTATES; k++)
			metrics_sample(fp, "tickd_job_state", m->jobs[i].id,
			    "state", metrics_states[k], strcmp(
			    m->jobs[i].state, metrics_states[k]) == 0 ?
			    "1" : "0");
	metrics_family(fp, "tickd_next_run_timestamp_seconds", "gauge",
	    "The job's next scheduled instant, Unix time.");
	for (i = 0; i < m->njobs; i++) {
		if (m->jobs[i].next_at == -1)
			continue;
		(void)snprintf(val, sizeof val, "%lld",
		    (long long)m->jobs[i].next_at);
		metrics_sample(fp, "tickd_next_run_timestamp_seconds",
		    m->jobs[i].id, NULL, NULL, val);
	}
	if (m->last_success) {
		metrics_family(fp, "tickd_last_success_timestamp_seconds",
		    "gauge", "When the job's last successful instance ended, "
		    "Unix time.");
		for (i = 0; i < m->njobs; i++) {
			if (m->jobs[i].last_success_ms == -1)
				continue;
			metrics_secs(m->jobs[i].last_success_ms, val,
			    sizeof val);
			metrics_sample(fp,
			    "tickd_last_success_timestamp_seconds",
			    m->jobs[i].id, NULL, NULL, val);
		}
	}
	if (m->store)
		metrics_write_store(fp, m);
}

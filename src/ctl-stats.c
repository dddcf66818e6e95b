/*
 * ctl-stats.c -- "tickctl stats": per job counts, lateness and duration.
 *
 *   tickctl [--json] stats [JOB] [--since T]
 *
 * For each job (configured, or with history in the store): instances
 * that ran, succeeded, failed (failed or dead) and were skipped (skipped
 * instances and the instants of skipped ranges), then nearest-rank
 * percentiles of two different things that must not be confused:
 *
 *   lateness  scheduling delay: an instance's first start minus when
 *             it was due (store_query.c, SQ_LATENESS) (p50, p95, p99,
 *             max);
 *   duration  execution time: how long its latest attempt ran (p50, p95,
 *             max);
 *   cpu, mem  what its latest attempt used: CPU time (user and system)
 *             and peak memory (p50, p95, max; schema 6).
 *
 * Over every instance the store keeps, or those scheduled since T (an RFC
 * 3339 instant, or a duration back from now such as "24h").
 *
 * JSON: one object per job: job, runs, succeeded, failed, skipped,
 * lateness_p50_ms, lateness_p95_ms, lateness_p99_ms, lateness_max_ms,
 * duration_p50_ms, duration_p95_ms, duration_max_ms, cpu_p50_us,
 * cpu_p95_us, cpu_max_us, memory_peak_p50_bytes, memory_peak_p95_bytes,
 * memory_peak_max_bytes (null when there is no value), instances, since.
 *
 * DIAGNOSTICS: one line on stderr: usage errors and unknown jobs exit 2,
 * an unreadable store exits 1.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctl-fmt.h"
#include "ctl-json.h"
#include "ctl.h"
#include "store_query.h"
#include "xmalloc.h"

static int	ctl_stats_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_stats_cmd = {
	"stats",
	"[JOB] [--since T]",
	"per job runs, failures, skips, lateness and duration percentiles",
	ctl_stats_exec,
};

/* A percentile cell: the value for people, "-" when there is none. */
static void
ctl_stats_cell(const int64_t *v, size_t n, int p, char *buf, size_t len)
{
	ctl_fmt_ms(store_query_percentile(v, n, p), buf, len);
}

/* One job's figures (s may be an empty entry for a job with none). */
static int
ctl_stats_one(struct ctl_ctx *ctx, struct ctl_table *t, struct ctl_json *j,
    const struct store_query_stats *s, int64_t since)
{
	char	c[17][CTL_FMT_BUFSZ];
	int	k;

	if (ctx->json) {
		ctl_json_open(j, NULL);
		ctl_json_str(j, "job", s->job);
		ctl_json_int(j, "runs", s->runs);
		ctl_json_int(j, "succeeded", s->succeeded);
		ctl_json_int(j, "failed", s->failed);
		ctl_json_int(j, "skipped", s->skipped);
		ctl_json_opt(j, "lateness_p50_ms", store_query_percentile(
		    s->lateness, s->nlateness, 50));
		ctl_json_opt(j, "lateness_p95_ms", store_query_percentile(
		    s->lateness, s->nlateness, 95));
		ctl_json_opt(j, "lateness_p99_ms", store_query_percentile(
		    s->lateness, s->nlateness, 99));
		ctl_json_opt(j, "lateness_max_ms", store_query_percentile(
		    s->lateness, s->nlateness, 100));
		ctl_json_opt(j, "duration_p50_ms", store_query_percentile(
		    s->duration, s->nduration, 50));
		ctl_json_opt(j, "duration_p95_ms", store_query_percentile(
		    s->duration, s->nduration, 95));
		ctl_json_opt(j, "duration_max_ms", store_query_percentile(
		    s->duration, s->nduration, 100));
		ctl_json_opt(j, "cpu_p50_us", store_query_percentile(s->cpu_us,
		    s->ncpu, 50));
		ctl_json_opt(j, "cpu_p95_us", store_query_percentile(s->cpu_us,
		    s->ncpu, 95));
		ctl_json_opt(j, "cpu_max_us", store_query_percentile(s->cpu_us,
		    s->ncpu, 100));
		ctl_json_opt(j, "memory_peak_p50_bytes", store_query_percentile(
		    s->mem_peak, s->nmem, 50));
		ctl_json_opt(j, "memory_peak_p95_bytes", store_query_percentile(
		    s->mem_peak, s->nmem, 95));
		ctl_json_opt(j, "memory_peak_max_bytes", store_query_percentile(
		    s->mem_peak, s->nmem, 100));
		ctl_json_int(j, "instances", s->instances);
		ctl_json_time(j, "since", since);
		ctl_json_close(j);
		return ctl_json_print(j);
	}
	(void)snprintf(c[0], sizeof c[0], "%lld", (long long)s->runs);
	(void)snprintf(c[1], sizeof c[1], "%lld", (long long)s->succeeded);
	(void)snprintf(c[2], sizeof c[2], "%lld", (long long)s->failed);
	(void)snprintf(c[3], sizeof c[3], "%lld", (long long)s->skipped);
	ctl_stats_cell(s->lateness, s->nlateness, 50, c[4], sizeof c[4]);
	ctl_stats_cell(s->lateness, s->nlateness, 95, c[5], sizeof c[5]);
	ctl_stats_cell(s->lateness, s->nlateness, 99, c[6], sizeof c[6]);
	ctl_stats_cell(s->lateness, s->nlateness, 100, c[7], sizeof c[7]);
	ctl_stats_cell(s->duration, s->nduration, 50, c[8], sizeof c[8]);
	ctl_stats_cell(s->duration, s->nduration, 95, c[9], sizeof c[9]);
	ctl_stats_cell(s->duration, s->nduration, 100, c[10], sizeof c[10]);
	for (k = 0; k < 3; k++) {
		static const int p[] = { 50, 95, 100 };

		ctl_fmt_cpu(store_query_percentile(s->cpu_us, s->ncpu, p[k]),
		    c[11 + k], sizeof c[11]);
		ctl_fmt_bytes(store_query_percentile(s->mem_peak, s->nmem,
		    p[k]), c[14 + k], sizeof c[14]);
	}
	ctl_table_row(t, s->job, c[0], c[1], c[2], c[3], c[4], c[5], c[6],
	    c[7], c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15],
	    c[16]);
	return 0;
}

/* tickctl stats: figures per job, configured jobs and history merged. */
static int
ctl_stats_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct store_query_stats	*v = NULL, empty;
	struct store_query		*q;
	struct conf			*c;
	struct ctl_table		 t;
	struct ctl_json			 j;
	const char			*job = NULL;
	char				*cause = NULL, when[CTL_FMT_BUFSZ];
	size_t				 n = 0, i = 0, k = 0;
	int64_t				 since = -1;
	int				 ch, cmp, rc = CTL_EXIT_USAGE;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			if (ctl_parse_since(optarg, ctx->now_ms, &since,
			    &cause) == -1) {
				ctl_error("stats: --since: %s", cause);
				free(cause);
				return CTL_EXIT_USAGE;
			}
			break;
		case 'h':
			(void)printf("usage: tickctl stats %s\n",
			    ctl_stats_cmd.usage);
			return CTL_EXIT_OK;
		default:
			return ctl_getopt_error(&ctl_stats_cmd, ch, argv);
		}
	}
	if (argc - optind > 1) {
		ctl_error("stats: unexpected argument \"%s\"",
		    argv[optind + 1]);
		return CTL_EXIT_USAGE;
	}
	if (optind < argc)
		job = argv[optind];
	if ((q = ctl_ctx_store(ctx)) == NULL)
		return CTL_EXIT_FAIL;
	c = ctx->conf;
	if (store_query_stats(q, job, since, &v, &n, &cause) == -1) {
		ctl_error("stats: state %s: %s", c->state, cause);
		free(cause);
		return CTL_EXIT_FAIL;
	}
	if (job != NULL && n == 0 && conf_job(c, job) == NULL &&
	    !ctl_conf_bad_id(c, job)) {
		ctl_error("stats: unknown job \"%s\" (not configured, and no "
		    "history)", job);
		goto out;
	}

	rc = CTL_EXIT_OK;
	ctl_json_init(&j);
	ctl_table_init(&t, 18);
	ctl_table_row(&t, "JOB", "RUNS", "SUCCEEDED", "FAILED", "SKIPPED",
	    "LATE p50", "LATE p95", "LATE p99", "LATE max", "DUR p50",
	    "DUR p95", "DUR max", "CPU p50", "CPU p95", "CPU max", "MEM p50",
	    "MEM p95", "MEM max");
	/* Configured jobs and jobs with history, merged by id. */
	memset(&empty, 0, sizeof empty);
	if (job != NULL) {
		empty.job = xstrdup(job);
		if (ctl_stats_one(ctx, &t, &j, n > 0 ? &v[0] : &empty,
		    since) == -1)
			rc = CTL_EXIT_FAIL;
	}
	while (job == NULL && (i < c->njobs || k < n)) {
		cmp = i >= c->njobs ? 1 : k >= n ? -1 :
		    strcmp(c->jobs[i]->id, v[k].job);
		if (cmp < 0) {
			free(empty.job);
			empty.job = xstrdup(c->jobs[i]->id);
			if (ctl_stats_one(ctx, &t, &j, &empty, since) == -1)
				rc = CTL_EXIT_FAIL;
			i++;
			continue;
		}
		if (ctl_stats_one(ctx, &t, &j, &v[k], since) == -1)
			rc = CTL_EXIT_FAIL;
		if (cmp == 0)
			i++;
		k++;
	}
	free(empty.job);
	if (!ctx->json) {
		if (since != -1) {
			ctl_fmt_utc(since, when, sizeof when);
			(void)printf("instances scheduled since %s\n", when);
		}
		if (ctl_table_print(&t, NULL) == -1)
			rc = CTL_EXIT_FAIL;
		(void)printf("lateness: scheduling delay, first start minus "
		    "when it was due; duration: execution time of the "
		    "latest attempt; cpu and mem: its CPU time and peak "
		    "memory; nearest-rank percentiles\n");
	}
	ctl_table_free(&t);
	ctl_json_free(&j);
	if (ctl_flush("stats") != CTL_EXIT_OK)
		rc = CTL_EXIT_FAIL;
out:
	store_query_stats_free(v, n);
	return rc;
}

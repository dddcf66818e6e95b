/*
 * ctl-metrics.c -- "tickctl metrics": the figures of stats and list in
 * the Prometheus text exposition format (version 0.0.4), for
 * node_exporter's textfile collector.
 *
 *   tickctl metrics [--since T]
 *
 * The families and their text are metrics.c's, which the daemon's
 * GET /metrics writes too (from its memory, without the store's).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctl-job.h"
#include "ctl.h"
#include "metrics.h"
#include "store_query.h"
#include "xmalloc.h"

static int	ctl_metrics_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_metrics_cmd = {
	"metrics",
	"[--since T]",
	"the same figures in the Prometheus text format",
	ctl_metrics_exec,
};

/* tickctl metrics: read everything, then write each metric family. */
static int
ctl_metrics_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const struct ctl_daemon		*dm;
	struct store_query_stats	*st = NULL;
	struct store_query_count	*runs = NULL, *skips = NULL;
	struct store_query_count	*fails = NULL, *shards = NULL;
	struct store_query_node		*nodes = NULL;
	struct store_query		*q;
	struct ctl_job_view		*views = NULL;
	struct metrics_job		*mjobs = NULL;
	struct metrics			 m;
	struct conf			*c;
	char				*cause = NULL;
	size_t				 nst = 0, nruns = 0, nskips = 0;
	size_t				 nfails = 0, nnodes = 0, nshards = 0;
	size_t				 nviews = 0, i;
	int64_t				 since = -1;
	int				 ch, rc = CTL_EXIT_OK;

	memset(&m, 0, sizeof m);

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

	mjobs = xcalloc(nviews + 1, sizeof *mjobs);
	for (i = 0; i < nviews; i++) {
		mjobs[i].id = views[i].id;
		mjobs[i].state = views[i].state;
		mjobs[i].next_at = views[i].next_at;
		mjobs[i].last_success_ms = views[i].st.last_success_ms;
	}
	m.up = dm->running;
	m.readable = q != NULL;
	m.readable_help = "Whether tickctl could read the state database.";
	m.jobs = mjobs;
	m.njobs = nviews;
	m.last_success = m.store = q != NULL;
	m.runs = runs;
	m.nruns = nruns;
	m.skips = skips;
	m.nskips = nskips;
	m.fails = fails;
	m.nfails = nfails;
	m.shards = shards;
	m.nshards = nshards;
	m.st = st;
	m.nst = nst;
	m.nodes = nodes;
	m.nnodes = nnodes;
	m.max_clock_skew = c->max_clock_skew;
	metrics_write(stdout, &m);
	goto out;

fail:
	ctl_error("metrics: state %s: %s", c->state, cause);
	free(cause);
	rc = CTL_EXIT_FAIL;
out:
	for (i = 0; i < nviews; i++)
		ctl_job_view_clear(&views[i]);
	free(views);
	free(mjobs);
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

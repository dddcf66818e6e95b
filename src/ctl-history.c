/*
 * ctl-history.c -- "tickctl history": run instances, newest first.
 *
 *   tickctl [--json] history [JOB] [--since T] [--status S,...]
 *                            [--limit N]
 *
 * Every instance the store keeps (newest scheduled instant first) with
 * its trigger, status and reason, attempts, scheduled, started and
 * finished times (in the job's zone), lateness (first start minus when it
 * was due), duration (the latest attempt's run time) and how
 * it ended.  Ranges of instants that did not run and were recorded as one
 * decision (coalesced, misfire, catch_up_limit, overlap) are entries too,
 * with their count and range, placed by their last instant.  --since
 * takes an RFC 3339 instant or a duration back from now ("2h"); --status
 * a comma-separated list of statuses (for ranges: their decision,
 * "skipped"); --limit defaults to 50 (0: no limit).
 *
 * JSON: one object per entry: run_id, job, scheduled_at, trigger,
 * status, reason, attempts, started_at, finished_at, lateness_ms,
 * duration_ms, exit_status, signal (and kind, row_id, origin, detail,
 * first_at, last_at, count, retry_at, pid; a batch instance's shards:
 * total, succeeded, failed, running, waiting; a shard's shard_of, the
 * run id of its instance, and shard, its index).
 *
 * Shards of batches are not entries: their instance is, and its status
 * says what they did ("failed: 2 of 16 shards").
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
#include "ctl-job.h"
#include "ctl-json.h"
#include "ctl.h"
#include "store_query.h"
#include "tz.h"
#include "xmalloc.h"

#define CTL_HISTORY_LIMIT	50
#define CTL_HISTORY_LIMIT_MAX	100000000L

static int	ctl_history_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_history_cmd = {
	"history",
	"[JOB] [--since T] [--status S,...] [--limit N]",
	"run instances newest first: status, times, lateness, duration",
	ctl_history_exec,
};

/* Every status and decision a history entry can have. */
static const char *const ctl_history_statuses[] = {
	"pending", "queued", "running", "retrying", "succeeded", "failed",
	"dead", "skipped", "interrupted", "abandoned", "terminated", "unknown"
};

/*
 * Split a --status list into f (the words point into buf, which is
 * modified).  0, or -1 with a message printed.
 */
static int
ctl_history_statuses_parse(char *buf, struct store_query_filter *f)
{
	char	*w, *save = NULL;
	size_t	 i, n = sizeof ctl_history_statuses /
		    sizeof ctl_history_statuses[0];

	for (w = strtok_r(buf, ",", &save); w != NULL;
	    w = strtok_r(NULL, ",", &save)) {
		while (*w == ' ')
			w++;
		for (i = 0; i < n; i++) {
			if (strcmp(w, ctl_history_statuses[i]) == 0)
				break;
		}
		if (i == n) {
			ctl_error("history: --status: \"%s\" is not a status "
			    "(pending, queued, running, retrying, succeeded, "
			    "failed, dead, skipped, interrupted, abandoned, "
			    "terminated, unknown)", w);
			return -1;
		}
		if (f->nstatus == STORE_QUERY_STATUS_MAX) {
			ctl_error("history: --status: at most %d statuses",
			    STORE_QUERY_STATUS_MAX);
			return -1;
		}
		f->status[f->nstatus++] = w;
	}
	if (f->nstatus == 0) {
		ctl_error("history: --status: empty list");
		return -1;
	}
	return 0;
}

/* tickctl history: parse the filter, query, print newest first. */
static int
ctl_history_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "status", required_argument, NULL, 'S' },
		{ "limit", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct store_query_filter	 f;
	struct store_query_job		 sj;
	struct store_query_run		*v = NULL;
	struct store_query		*q;
	const struct job_def		*d;
	const struct tz			*z;
	struct ctl_table		 t;
	struct ctl_json			 j;
	struct tz			*utc = NULL;
	char				*cause = NULL, *statuses = NULL;
	size_t				 n = 0, i;
	long				 limit = CTL_HISTORY_LIMIT;
	int				 ch, rc = CTL_EXIT_USAGE;

	memset(&f, 0, sizeof f);
	f.since = -1;
	f.decisions = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":n:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			if (ctl_parse_since(optarg, ctx->now_ms, &f.since,
			    &cause) == -1) {
				ctl_error("history: --since: %s", cause);
				free(cause);
				goto out;
			}
			break;
		case 'S':
			free(statuses);
			statuses = xstrdup(optarg);
			break;
		case 'n':
		case 'l':
			if (ctl_parse_count(optarg, 0, CTL_HISTORY_LIMIT_MAX,
			    &limit) == -1) {
				ctl_error("history: --limit: \"%s\" is not a "
				    "count (0 for no limit)", optarg);
				goto out;
			}
			break;
		case 'h':
			(void)printf("usage: tickctl history %s\n",
			    ctl_history_cmd.usage);
			rc = CTL_EXIT_OK;
			goto out;
		default:
			rc = ctl_getopt_error(&ctl_history_cmd, ch, argv);
			goto out;
		}
	}
	if (argc - optind > 1) {
		ctl_error("history: unexpected argument \"%s\"",
		    argv[optind + 1]);
		goto out;
	}
	if (statuses != NULL && ctl_history_statuses_parse(statuses,
	    &f) == -1)
		goto out;
	f.limit = limit > 0 ? limit : -1;
	if (optind < argc) {
		f.job = argv[optind];
		/* A job removed from the configuration keeps its history. */
		if (ctl_ctx_conf(ctx) == NULL) {
			rc = CTL_EXIT_FAIL;
			goto out;
		}
		if (conf_job(ctx->conf, f.job) == NULL &&
		    !ctl_conf_bad_id(ctx->conf, f.job) &&
		    ctl_ctx_store_quiet(ctx) != NULL) {
			if (store_query_job(ctx->store, f.job, &sj,
			    &cause) == 0) {
				store_query_job_clear(&sj);
				if (sj.first_ms == -1 && !sj.known) {
					ctl_error("history: unknown job \"%s\" "
					    "(not configured, and no history)",
					    f.job);
					goto out;
				}
			} else {
				free(cause);
				cause = NULL;
			}
		}
	}
	rc = CTL_EXIT_FAIL;
	if ((q = ctl_ctx_store(ctx)) == NULL)
		goto out;
	if (store_query_history(q, &f, &v, &n, &cause) == -1 ||
	    store_query_shard_counts(q, v, n, &cause) == -1) {
		ctl_error("history: state %s: %s", ctx->conf->state, cause);
		free(cause);
		goto out;
	}

	rc = CTL_EXIT_OK;
	ctl_json_init(&j);
	ctl_job_run_table(&t);
	utc = tz_new_utc();
	for (i = 0; i < n; i++) {
		if (ctx->json) {
			ctl_job_json_run(&j, NULL, &v[i]);
			if (ctl_json_print(&j) == -1) {
				rc = CTL_EXIT_FAIL;
				break;
			}
			continue;
		}
		d = conf_job(ctx->conf, v[i].job);
		z = d != NULL && d->tz != NULL ? d->tz : utc;
		ctl_job_run_row(&t, &v[i], z, ctx->now_ms);
	}
	if (!ctx->json && n > 0 && ctl_table_print(&t, NULL) == -1)
		rc = CTL_EXIT_FAIL;
	ctl_table_free(&t);
	ctl_json_free(&j);
	if (ctl_flush("history") != CTL_EXIT_OK)
		rc = CTL_EXIT_FAIL;
out:
	tz_free(utc);
	store_query_runs_free(v, n);
	free(statuses);
	return rc;
}

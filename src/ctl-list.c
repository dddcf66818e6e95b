/*
 * ctl-list.c -- "tickctl list": every configured job, one line each.
 *
 *   tickctl [--json] list
 *
 * Job, schedule, zone, state, next instant in the job's zone and in UTC
 * ("DST" when that instant was shifted out of a gap or falls in a fold),
 * last outcome and when (ctl-job.c says how each is worked out).  Jobs
 * whose definition is invalid are listed too, with state "error" and
 * where they are defined.  When the store cannot be read (tickd never
 * ran), the jobs are listed from the configuration alone after a warning
 * on stderr.
 *
 * JSON: one object per job: job, schedule, timezone, state, next_at,
 * last_status, last_at (and next_dst, last_reason, last_run_id,
 * last_success_at, description, where).
 *
 * DIAGNOSTICS: one line on stderr for an invalid configuration (exit 1)
 * or a store that fails while it is read (exit 1).
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
#include "schedule.h"
#include "store_query.h"
#include "tz.h"

static int	ctl_list_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_list_cmd = {
	"list",
	"",
	"every job: schedule, zone, state, next instant, last outcome",
	ctl_list_exec,
};

/* Print or add one job view. */
static int
ctl_list_one(struct ctl_ctx *ctx, struct ctl_table *t, struct ctl_json *j,
    const struct ctl_job_view *v)
{
	const struct job_def	*d = v->def;
	char			 local[CTL_FMT_BUFSZ + 16];
	char			 utc[CTL_FMT_BUFSZ], ago[CTL_FMT_BUFSZ];
	char			 last[CTL_FMT_BUFSZ * 2];
	char			*sched = NULL;

	if (ctx->json) {
		ctl_json_open(j, NULL);
		ctl_job_json_list(j, v);
		ctl_json_close(j);
		return ctl_json_print(j);
	}
	if (d != NULL && v->next_at != -1) {
		ctl_fmt_local(v->next_at, d->tz, local, sizeof local);
		if (v->next_dst != 0)
			(void)strncat(local, " DST", sizeof local -
			    strlen(local) - 1);
		ctl_fmt_utc(v->next_at, utc, sizeof utc);
	} else {
		(void)snprintf(local, sizeof local, "-");
		(void)snprintf(utc, sizeof utc, "-");
	}
	if (d == NULL)
		(void)snprintf(last, sizeof last, "invalid: %s", v->where);
	else if (v->st.last_status != NULL) {
		ctl_fmt_ago(ctx->now_ms, v->st.last_ms, ago, sizeof ago);
		(void)snprintf(last, sizeof last, "%s %s", v->st.last_status,
		    ago);
	} else
		(void)snprintf(last, sizeof last, "-");
	if (d != NULL)
		sched = ctl_fmt_vis(schedule_text(d->schedule),
		    strlen(schedule_text(d->schedule)), 0);
	ctl_table_row(t, v->id, sched != NULL ? sched : "-",
	    d != NULL ? d->timezone : "-", v->state, local, utc, last);
	free(sched);
	return 0;
}

/* tickctl list: parse the options, then one line or object per job. */
static int
ctl_list_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctl_job_view	 v;
	struct ctl_table	 t;
	struct ctl_json		 j;
	struct store_query	*q;
	struct conf		*c;
	char			*cause = NULL;
	size_t			 i;
	int			 ch, rc = CTL_EXIT_OK;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			(void)printf("usage: tickctl list\n");
			return CTL_EXIT_OK;
		default:
			return ctl_getopt_error(&ctl_list_cmd, ch, argv);
		}
	}
	if (optind < argc) {
		ctl_error("list: unexpected argument \"%s\"", argv[optind]);
		return CTL_EXIT_USAGE;
	}
	if ((c = ctl_ctx_conf(ctx)) == NULL)
		return CTL_EXIT_FAIL;
	if ((q = ctl_ctx_store_quiet(ctx)) == NULL)
		ctl_error("list: %s: showing the configuration only",
		    ctx->store_cause);

	ctl_json_init(&j);
	ctl_table_init(&t, 7);
	ctl_table_row(&t, "JOB", "SCHEDULE", "TIMEZONE", "STATE", "NEXT",
	    "NEXT (UTC)", "LAST");
	for (i = 0; i < c->njobs && rc == CTL_EXIT_OK; i++) {
		if (ctl_job_view(q, c->jobs[i], ctx->now_ms / 1000, &v,
		    &cause) == -1) {
			ctl_error("list: state %s: %s", c->state, cause);
			free(cause);
			rc = CTL_EXIT_FAIL;
			break;
		}
		if (ctl_list_one(ctx, &t, &j, &v) == -1)
			rc = CTL_EXIT_FAIL;
		ctl_job_view_clear(&v);
	}
	for (i = 0; i < c->nbad_ids && rc == CTL_EXIT_OK; i++) {
		/* A job invalid now may have run before: its history. */
		ctl_job_view_bad(c->bad_ids[i], c->bad_where[i], &v);
		if (q != NULL && store_query_job(q, v.id, &v.st,
		    &cause) == -1) {
			ctl_error("list: state %s: %s", c->state, cause);
			free(cause);
			rc = CTL_EXIT_FAIL;
			break;
		}
		if (ctl_list_one(ctx, &t, &j, &v) == -1)
			rc = CTL_EXIT_FAIL;
		ctl_job_view_clear(&v);
	}
	if (!ctx->json && rc == CTL_EXIT_OK && ctl_table_print(&t, NULL) == -1)
		rc = CTL_EXIT_FAIL;
	ctl_table_free(&t);
	ctl_json_free(&j);
	if (ctl_flush("list") != CTL_EXIT_OK)
		rc = CTL_EXIT_FAIL;
	return rc;
}

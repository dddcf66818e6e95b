/*
 * ctl-check.c -- "tickctl check": is anything wrong?  For people and for
 * Nagios-style monitoring.
 *
 *   tickctl [--json] check [--strict]
 *   tickctl check FILE.job... | tickd.conf [FILE.job...]
 *
 * Problems (exit 1):
 *   - the configuration, loaded exactly as the daemon loads it, as the
 *     user the daemon last started as (the store's meta uid and gid;
 *     tickctl's own ids without them): each cause as "file:line: key:
 *     message" (as tickd -n prints it);
 *   - the state database cannot be read;
 *   - the daemon is not running;
 *   - a job is overdue: it has expect_success_within and no instance
 *     succeeded within it, counted as the daemon counts it: from the
 *     later of the last success and the moment the daemon began watching
 *     the job (jobs.watch_since, schema 3), else from the oldest instance
 *     (a job with neither is not judged);
 *   - the newest instance of a job that ran and ended is failed or dead
 *     (nothing succeeded or was replayed since; skipped instances do not
 *     count);
 *   - a job is blocked: its last instances were all skipped for overlap.
 * Warnings (exit 1 only with --strict): the configuration's warnings
 * (a root job whose program others could change, as tickd -n prints
 * them), and names in jobs_dir that are not job files and are ignored.
 *
 * Output: a first line "OK: ...", "WARNING: ..." or "CRITICAL: ..." with
 * the counts, then one line per finding; warnings begin "warning: ";
 * last, how the daemon tracks jobs and which cgroup controllers their
 * limits may use ("jobs are tracked by cgroup DIR (controllers: ...)" or
 * "... by process groups (why)"), as it recorded them.
 * JSON: the summary object (status, problems, warnings, jobs, tracking),
 * then one object per finding (severity, kind, job, message).
 *
 * With FILE arguments: only those files are validated, without a daemon
 * or a store, with the lines and the summary of tickd -n (ctl_check_files);
 * exit 1 on any problem, or warning with --strict (text only).
 *
 * DIAGNOSTICS: usage errors exit 2; everything found is output, not an
 * error message.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "ctl-fmt.h"
#include "ctl-job.h"
#include "ctl-json.h"
#include "ctl.h"
#include "duration.h"
#include "store_query.h"
#include "xmalloc.h"

static int	ctl_check_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_check_cmd = {
	"check",
	"[--strict] [FILE.job | tickd.conf ...]",
	"validate the configuration and look for trouble (exit 1 if any)",
	ctl_check_exec,
};

/* One finding. */
struct ctl_finding {
	int	 critical;
	char	*kind;		/* config, state, daemon, ... */
	char	*job;		/* or NULL */
	char	*message;
};

struct ctl_findings {
	struct ctl_finding	*v;
	size_t			 n;
	size_t			 ncritical;
};

/* Add a finding (the message is taken over). */
static void
ctl_check_add(struct ctl_findings *f, int critical, const char *kind,
    const char *job, char *message)
{
	struct ctl_finding *x;

	f->v = xreallocarray(f->v, f->n + 1, sizeof *f->v);
	x = &f->v[f->n++];
	x->critical = critical;
	x->kind = xstrdup(kind);
	x->job = job != NULL ? xstrdup(job) : NULL;
	x->message = message;
	f->ncritical += critical != 0;
}

/* The operational checks of one valid job. */
static int
ctl_check_job(struct ctl_ctx *ctx, struct ctl_findings *f,
    const struct job_def *d, char **cause)
{
	struct ctl_job_view	 v;
	char			 a[CTL_FMT_BUFSZ], b[DURATION_BUFSZ];
	char			 c[CTL_FMT_BUFSZ];
	int64_t			 base;

	if (ctl_job_view(ctx->store, d, ctx->now_ms / 1000, &v, cause) == -1)
		return -1;
	if (d->pol->expect_success_within > 0 && d->enabled && !v.st.paused) {
		/* As the daemon counts: from the later of the last success
		 * and the moment it began watching (schema 3); else from the
		 * oldest instance. */
		base = v.st.last_success_ms > v.st.watch_since ?
		    v.st.last_success_ms : v.st.watch_since;
		if (base == -1)
			base = v.st.first_ms;
		if (base != -1 && ctx->now_ms - base >
		    d->pol->expect_success_within * 1000) {
			duration_format(d->pol->expect_success_within, b,
			    sizeof b);
			ctl_fmt_ago(ctx->now_ms, base, a, sizeof a);
			ctl_check_add(f, 1, "overdue", d->id, xasprintf("job "
			    "%s: overdue: no instance succeeded within %s "
			    "(expect_success_within); %s %s", d->id, b,
			    v.st.last_success_ms == base ? "last success" :
			    "none since", a));
		}
	}
	if (v.st.ran_status != NULL &&
	    (strcmp(v.st.ran_status, "failed") == 0 ||
	    strcmp(v.st.ran_status, "dead") == 0)) {
		ctl_fmt_ago(ctx->now_ms, v.st.ran_ms, a, sizeof a);
		ctl_check_add(f, 1, "failed", d->id, xasprintf("job %s: %s "
		    "%s%s%s%s %s; %lld failed or dead since the last success "
		    "(tickctl show %s)", d->id, v.st.ran_run_id,
		    v.st.ran_status, v.st.ran_reason != NULL ? " (" : "",
		    v.st.ran_reason != NULL ? v.st.ran_reason : "",
		    v.st.ran_reason != NULL ? ")" : "", a,
		    (long long)v.st.nfailed, v.st.ran_run_id));
	}
	if (strcmp(v.state, "blocked") == 0) {
		ctl_fmt_utc(v.st.skip_since, c, sizeof c);
		ctl_check_add(f, 1, "blocked", d->id, xasprintf("job %s: "
		    "blocked: %lld instances in a row skipped for overlap "
		    "since %s", d->id, (long long)v.st.skips, c));
	}
	ctl_job_view_clear(&v);
	return 0;
}

/*
 * With a PostgreSQL state: a live node (a heartbeat within three leases)
 * whose job definitions differ from these files, or whose clock is too
 * far from the server's for it to claim, is a problem.
 */
static void
ctl_check_nodes(struct ctl_ctx *ctx, const struct conf *c,
    struct ctl_findings *f)
{
	struct store_query_node	*v = NULL;
	char			*cause = NULL, jobs[512];
	size_t			 n = 0, i;

	if (store_query_nodes(ctx->store, &v, &n, &cause) == -1) {
		ctl_check_add(f, 1, "state", NULL, xasprintf("state %s: %s",
		    c->state, cause));
		free(cause);
		return;
	}
	for (i = 0; i < n; i++) {
		if (v[i].age_ms > c->lease * 3000)
			continue;
		if (!ctl_node_same(c, &v[i])) {
			if (ctl_node_diff(ctx->store, c, v[i].node, jobs,
			    sizeof jobs, &cause) == -1) {
				free(cause);	/* the finding stands */
				cause = NULL;
				jobs[0] = '\0';
			}
			ctl_check_add(f, 1, "drift", NULL, xasprintf("node %s: "
			    "job definitions differ from these files%s%s",
			    v[i].node, jobs[0] != '\0' ? ": " : "", jobs));
		}
		if (ctl_node_skewed(c, &v[i]))
			ctl_check_add(f, 1, "clock", NULL, xasprintf("node %s: "
			    "its clock is %+" PRId64 " ms off the database "
			    "server's (max_clock_skew %" PRId64 " s): it claims "
			    "nothing", v[i].node, v[i].offset_ms,
			    c->max_clock_skew));
	}
	store_query_nodes_free(v, n);
}

/*
 * tickctl check FILE...: validate those files alone, without a daemon or
 * a store, as tickd -n does (conf_check_report): job files (names ending
 * ".job") with the tickd.conf among the arguments (at most one), else
 * with -c's; a tickd.conf alone with its jobs directory.  Exit 1 on any
 * problem, or warning with --strict.
 */
static int
ctl_check_files(struct ctl_ctx *ctx, int argc, char **argv, int strict)
{
	const char	*conf = NULL;
	char		**jobs;
	size_t		 n = 0, len, nwarn = 0;
	int		 i, rc;

	jobs = xcalloc((size_t)argc + 1, sizeof *jobs);
	for (i = 0; i < argc; i++) {
		len = strlen(argv[i]);
		if (len > 4 && strcmp(argv[i] + len - 4, ".job") == 0)
			jobs[n++] = argv[i];
		else if (conf == NULL)
			conf = argv[i];
		else {
			ctl_error("check: \"%s\" and \"%s\": one tickd.conf "
			    "at most (job files end in .job)", conf, argv[i]);
			free(jobs);
			return CTL_EXIT_USAGE;
		}
	}
	rc = conf_check_report("tickctl", conf != NULL ? conf : ctx->config,
	    jobs, n, store_query_controllers, NULL, &nwarn);
	free(jobs);
	return rc == 0 && (!strict || nwarn == 0) ? CTL_EXIT_OK :
	    CTL_EXIT_FAIL;
}

/* tickctl check: collect every finding, then the summary and them. */
static int
ctl_check_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const struct ctl_daemon	*dm;
	struct ctl_findings	 f;
	struct ctl_json		 j;
	struct conf		*c;
	const char		*status;
	char			*cause = NULL, summary[384], conf_what[128];
	size_t			 i, nwarn, njobs = 0, nfiles, nbad;
	int			 ch, strict = 0, rc;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			strict = 1;
			break;
		case 'h':
			(void)printf("usage: tickctl check %s\n",
			    ctl_check_cmd.usage);
			return CTL_EXIT_OK;
		default:
			return ctl_getopt_error(&ctl_check_cmd, ch, argv);
		}
	}
	if (optind < argc)
		return ctl_check_files(ctx, argc - optind, argv + optind,
		    strict);

	memset(&f, 0, sizeof f);
	c = ctl_ctx_conf_quiet(ctx);
	for (i = 0; i < ctx->causes.n; i++)
		ctl_check_add(&f, 1, "config", NULL,
		    xstrdup(ctx->causes.v[i]));
	if (c == NULL)
		ctl_check_add(&f, 1, "config", NULL, xasprintf("%s is "
		    "invalid: the daemon would not start", ctx->config));
	else {
		njobs = c->njobs;
		for (i = 0; i < c->warnings.n; i++)
			ctl_check_add(&f, 0, "config", NULL,
			    xstrdup(c->warnings.v[i]));
		for (i = 0; i < c->nignored; i++)
			ctl_check_add(&f, 0, "ignored", NULL,
			    xasprintf("%s/%s: ignored: %s", c->jobs_dir,
			    c->ignored[i], conf_ignored_why(c->ignored[i])));
		dm = ctl_ctx_daemon(ctx);
		if (!dm->running)
			ctl_check_add(&f, 1, "daemon", NULL, xasprintf("the "
			    "daemon is not running (no lock on %s)",
			    dm->lock));
		if (ctl_ctx_store_quiet(ctx) == NULL)
			ctl_check_add(&f, 1, "state", NULL,
			    xstrdup(ctx->store_cause));
		for (i = 0; i < c->njobs && ctx->store != NULL; i++) {
			if (ctl_check_job(ctx, &f, c->jobs[i], &cause) == -1) {
				ctl_check_add(&f, 1, "state", NULL,
				    xasprintf("state %s: %s", c->state, cause));
				free(cause);
				cause = NULL;
				break;
			}
		}
	}

	if (ctx->store != NULL)
		ctl_check_nodes(ctx, c, &f);
	nwarn = f.n - f.ncritical;
	/* As status counts: the causes, the files they name, the bad ids. */
	nfiles = conf_causes_files(&ctx->causes);
	nbad = c != NULL ? c->nbad_ids : 0;
	conf_what[0] = '\0';
	if (ctx->causes.n > 0)
		(void)snprintf(conf_what, sizeof conf_what, " (%zu in the "
		    "configuration, in %zu file%s; %zu job%s in error)",
		    ctx->causes.n, nfiles, nfiles == 1 ? "" : "s", nbad,
		    nbad == 1 ? "" : "s");
	status = f.ncritical > 0 ? "CRITICAL" : nwarn > 0 ? "WARNING" : "OK";
	if (f.n == 0)
		(void)snprintf(summary, sizeof summary, "%zu jobs, daemon "
		    "running, nothing wrong", njobs);
	else
		(void)snprintf(summary, sizeof summary, "%zu problem%s%s, "
		    "%zu warning%s (%zu jobs valid)", f.ncritical,
		    f.ncritical == 1 ? "" : "s", conf_what, nwarn,
		    nwarn == 1 ? "" : "s", njobs);
	if (ctx->as_uid != geteuid()) {
		size_t n = strlen(summary);

		(void)snprintf(summary + n, sizeof summary - n, "; "
		    "configuration checked as uid %ld, the daemon's",
		    (long)ctx->as_uid);
	}
	rc = f.ncritical > 0 || (strict && nwarn > 0) ? CTL_EXIT_FAIL :
	    CTL_EXIT_OK;
	if (ctx->json) {
		ctl_json_init(&j);
		ctl_json_open(&j, NULL);
		ctl_json_str(&j, "status", status);
		ctl_json_int(&j, "problems", (int64_t)f.ncritical);
		ctl_json_int(&j, "warnings", (int64_t)nwarn);
		ctl_json_int(&j, "config_problems", (int64_t)ctx->causes.n);
		ctl_json_int(&j, "files_in_error", (int64_t)nfiles);
		ctl_json_int(&j, "jobs_in_error", (int64_t)nbad);
		ctl_json_int(&j, "jobs", (int64_t)njobs);
		ctl_json_bool(&j, "strict", strict);
		ctl_json_int(&j, "as_uid", (int64_t)ctx->as_uid);
		ctl_json_str(&j, "tracking", c != NULL ? c->tracking : NULL);
		ctl_json_close(&j);
		(void)ctl_json_print(&j);
		for (i = 0; i < f.n; i++) {
			ctl_json_open(&j, NULL);
			ctl_json_str(&j, "severity", f.v[i].critical ?
			    "critical" : "warning");
			ctl_json_str(&j, "kind", f.v[i].kind);
			ctl_json_str(&j, "job", f.v[i].job);
			ctl_json_str(&j, "message", f.v[i].message);
			ctl_json_close(&j);
			(void)ctl_json_print(&j);
		}
		ctl_json_free(&j);
	} else {
		(void)printf("%s: %s\n", status, summary);
		for (i = 0; i < f.n; i++) {
			char *vis = ctl_fmt_vis(f.v[i].message,
			    strlen(f.v[i].message), 0);

			(void)printf("%s%s\n", f.v[i].critical ? "" :
			    "warning: ", vis);
			free(vis);
		}
		if (c != NULL && c->tracking != NULL)
			(void)printf("jobs are tracked by %s\n", c->tracking);
	}
	for (i = 0; i < f.n; i++) {
		free(f.v[i].kind);
		free(f.v[i].job);
		free(f.v[i].message);
	}
	free(f.v);
	if (ctl_flush("check") != CTL_EXIT_OK)
		rc = CTL_EXIT_FAIL;
	return rc;
}

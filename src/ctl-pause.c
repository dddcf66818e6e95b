/*
 * ctl-pause.c -- "tickctl pause", "resume" and "reload": steer the daemon.
 *
 *   tickctl pause JOB
 *   tickctl resume JOB [--catch-up]
 *   tickctl reload
 *
 * pause stops scheduling JOB (persisted across restarts; what runs goes
 * on); resume schedules it again from now, or with --catch-up hands the
 * instances it missed while paused to its misfire policy.  reload asks
 * the daemon to reload its configuration and prints every problem the
 * new configuration has; exit status 1 when it was refused or only
 * partly accepted.
 *
 * JSON (one object): pause: job, state ("paused"), in_flight (an
 * instance goes on), message (the daemon's answer).  resume: job, state
 * (as list shows it now), next_at (from the daemon's answer; null: none),
 * catch_up, message.  reload: accepted (the whole new configuration is in
 * effect), partial (some of it is: the jobs concerned keep their previous
 * definitions), jobs (the daemon's count now; null if unknown), problems
 * and warnings (arrays of the daemon's lines), message.  A reload refused
 * or partly refused prints its object too, and exits 1.
 *
 * DIAGNOSTICS: the daemon's refusal on stderr, exit 1; usage errors and
 * unknown jobs exit 2; a daemon that is not running exits 1.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-job.h"
#include "ctl-json.h"
#include "ctl.h"
#include "rfc3339.h"
#include "store_query.h"

static int	ctl_pause_exec(int, char **, struct ctl_ctx *);
static int	ctl_resume_exec(int, char **, struct ctl_ctx *);
static int	ctl_reload_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_pause_cmd = {
	"pause",
	"JOB",
	"stop scheduling a job (persisted) until resume",
	ctl_pause_exec,
};

const struct ctl_cmd ctl_resume_cmd = {
	"resume",
	"JOB [--catch-up]",
	"schedule a paused job again; --catch-up: what it missed too",
	ctl_resume_exec,
};

const struct ctl_cmd ctl_reload_cmd = {
	"reload",
	"",
	"reload the daemon's configuration and report its problems",
	ctl_reload_exec,
};

/* The object of a reload's answer r; ok: the daemon said OK. */
static void
ctl_reload_json(struct ctl_ctx *ctx, struct ctl_json *j,
    const struct ctl_reply *r, int ok)
{
	const char	*text = ctl_reply_text(r);
	size_t		 i, n;
	int		 w;

	ctl_json_bool(j, "accepted", ok);
	ctl_json_bool(j, "partial", !ok && strncmp(text,
	    "reload partially failed", 23) == 0);
	/* Not accepted whole: the count the daemon wrote before answering. */
	if (!ok || sscanf(text, "reloaded: %zu jobs", &n) != 1)
		ctl_json_opt(j, "jobs", ctl_ctx_meta_count(ctx, "jobs"));
	else
		ctl_json_int(j, "jobs", (int64_t)n);
	/* Problems first, then warnings, each in the daemon's order. */
	for (w = 0; w < 2; w++) {
		ctl_json_open_array(j, w ? "warnings" : "problems");
		for (i = 0; i < r->nlines; i++) {
			if ((strncmp(r->lines[i], "warning: ", 9) == 0) != w)
				continue;
			ctl_json_str(j, NULL, r->lines[i] + (w ? 9 : 0));
		}
		ctl_json_close_array(j);
	}
	ctl_json_str(j, "message", text);
}

/*
 * The object of a pause or resume the daemon did, for job d: its answer
 * is "JOB paused[: its running instance goes on]" or "JOB resumed[: next
 * at INSTANT]".
 */
static void
ctl_pause_json(struct ctl_ctx *ctx, struct ctl_json *j,
    const struct job_def *d, const char *what, const char *req,
    const struct ctl_reply *r)
{
	struct ctl_job_view	 v;
	const char		*text = ctl_reply_text(r), *p;
	char			*cause = NULL;
	int64_t			 next = -1;

	ctl_json_str(j, "job", d->id);
	if (strcmp(what, "pause") == 0) {
		ctl_json_str(j, "state", "paused");
		ctl_json_bool(j, "in_flight", strstr(text,
		    "its running instance goes on") != NULL);
	} else {
		/* The state as list shows it, now that the daemon wrote it. */
		if (ctl_job_view(ctl_ctx_store_quiet(ctx), d,
		    ctx->now_ms / 1000, &v, &cause) == 0)
			ctl_json_str(j, "state", v.state);
		else
			ctl_json_null(j, "state");
		ctl_job_view_clear(&v);
		free(cause);
		cause = NULL;
		if ((p = strstr(text, ": next at ")) != NULL &&
		    rfc3339_parse(p + 10, &next, &cause) == -1)
			next = -1;
		free(cause);
		ctl_json_time(j, "next_at", next);
		ctl_json_bool(j, "catch_up", strstr(req, " catch_up") != NULL);
	}
	ctl_json_str(j, "message", text);
}

/*
 * Send one request (about job d, NULL for reload); print the answer as
 * text (the daemon's lines) or one JSON object; the exit status.
 */
static int
ctl_pause_send(struct ctl_ctx *ctx, const char *what, const struct job_def *d,
    const char *req)
{
	struct ctl_reply	r;
	struct ctl_json		j;
	size_t			i;
	int			rc, ok;

	ctl_json_init(&j);
	switch ((ok = ctl_request(ctx, &r, "%s", req))) {
	case 0:
	case 1:
		rc = ok == 0 ? CTL_EXIT_OK : CTL_EXIT_FAIL;
		if (ctx->json && (ok == 0 || d == NULL)) {
			ctl_json_open(&j, NULL);
			if (d == NULL)
				ctl_reload_json(ctx, &j, &r, ok == 0);
			else
				ctl_pause_json(ctx, &j, d, what, req, &r);
			ctl_json_close(&j);
			if (ctl_json_print(&j) == -1)
				rc = CTL_EXIT_FAIL;
		} else {
			for (i = 0; i < r.nlines; i++)
				(void)fprintf(ok == 0 ? stdout : stderr,
				    "%s\n", r.lines[i]);
			if (ok == 0 && ctl_reply_text(&r)[0] != '\0')
				(void)printf("%s\n", ctl_reply_text(&r));
		}
		if (ok == 1)
			ctl_error("%s: %s", what, ctl_reply_text(&r));
		break;
	default:
		rc = CTL_EXIT_FAIL;
		break;
	}
	ctl_reply_free(&r);
	ctl_json_free(&j);
	if (ctl_flush(what) != CTL_EXIT_OK)
		rc = CTL_EXIT_FAIL;
	return rc;
}

/* Parse the options of pause and resume; 0, or an exit status + 1. */
static int
ctl_pause_opts(const struct ctl_cmd *cmd, int argc, char **argv,
    int *catch_up)
{
	static const struct option longopts[] = {
		{ "catch-up", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			if (catch_up == NULL)
				return ctl_getopt_error(cmd, '?', argv) + 1;
			*catch_up = 1;
			break;
		case 'h':
			(void)printf("usage: tickctl %s %s\n", cmd->name,
			    cmd->usage);
			return CTL_EXIT_OK + 1;
		default:
			return ctl_getopt_error(cmd, ch, argv) + 1;
		}
	}
	if (optind + (cmd == &ctl_reload_cmd ? 0 : 1) != argc) {
		ctl_error("%s: usage: tickctl %s %s", cmd->name, cmd->name,
		    cmd->usage);
		return CTL_EXIT_USAGE + 1;
	}
	return 0;
}

static int
ctl_pause_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	const struct job_def	*d;
	char			 req[256];
	int			 rc;

	if ((rc = ctl_pause_opts(&ctl_pause_cmd, argc, argv, NULL)) != 0)
		return rc - 1;
	if ((d = ctl_ctx_job(ctx, "pause", argv[optind], &rc)) == NULL)
		return rc;
	(void)snprintf(req, sizeof req, "pause %s", argv[optind]);
	return ctl_pause_send(ctx, "pause", d, req);
}

static int
ctl_resume_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	const struct job_def	*d;
	char			 req[256];
	int			 rc, catch_up = 0;

	if ((rc = ctl_pause_opts(&ctl_resume_cmd, argc, argv,
	    &catch_up)) != 0)
		return rc - 1;
	if ((d = ctl_ctx_job(ctx, "resume", argv[optind], &rc)) == NULL)
		return rc;
	(void)snprintf(req, sizeof req, "resume %s%s", argv[optind],
	    catch_up ? " catch_up" : "");
	return ctl_pause_send(ctx, "resume", d, req);
}

static int
ctl_reload_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	int rc;

	if ((rc = ctl_pause_opts(&ctl_reload_cmd, argc, argv, NULL)) != 0)
		return rc - 1;
	return ctl_pause_send(ctx, "reload", NULL, "reload");
}

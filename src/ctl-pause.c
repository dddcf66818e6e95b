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
 * DIAGNOSTICS: the daemon's refusal on stderr, exit 1; usage errors and
 * unknown jobs exit 2; a daemon that is not running exits 1.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"

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

/* Send one request; print its reply lines; the exit status. */
static int
ctl_pause_send(struct ctl_ctx *ctx, const char *what, const char *req)
{
	struct ctl_reply	r;
	size_t			i;
	int			rc;

	switch (ctl_request(ctx, &r, "%s", req)) {
	case 0:
		for (i = 0; i < r.nlines; i++)
			(void)printf("%s\n", r.lines[i]);
		if (ctl_reply_text(&r)[0] != '\0')
			(void)printf("%s\n", ctl_reply_text(&r));
		rc = CTL_EXIT_OK;
		break;
	case 1:
		for (i = 0; i < r.nlines; i++)
			(void)fprintf(stderr, "%s\n", r.lines[i]);
		ctl_error("%s: %s", what, ctl_reply_text(&r));
		rc = CTL_EXIT_FAIL;
		break;
	default:
		rc = CTL_EXIT_FAIL;
		break;
	}
	ctl_reply_free(&r);
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
	char	req[256];
	int	rc;

	if ((rc = ctl_pause_opts(&ctl_pause_cmd, argc, argv, NULL)) != 0)
		return rc - 1;
	if (ctl_ctx_job(ctx, "pause", argv[optind], &rc) == NULL)
		return rc;
	(void)snprintf(req, sizeof req, "pause %s", argv[optind]);
	return ctl_pause_send(ctx, "pause", req);
}

static int
ctl_resume_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	char	req[256];
	int	rc, catch_up = 0;

	if ((rc = ctl_pause_opts(&ctl_resume_cmd, argc, argv,
	    &catch_up)) != 0)
		return rc - 1;
	if (ctl_ctx_job(ctx, "resume", argv[optind], &rc) == NULL)
		return rc;
	(void)snprintf(req, sizeof req, "resume %s%s", argv[optind],
	    catch_up ? " catch_up" : "");
	return ctl_pause_send(ctx, "resume", req);
}

static int
ctl_reload_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	int rc;

	if ((rc = ctl_pause_opts(&ctl_reload_cmd, argc, argv, NULL)) != 0)
		return rc - 1;
	return ctl_pause_send(ctx, "reload", "reload");
}

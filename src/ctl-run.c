/*
 * ctl-run.c -- "tickctl run" and "tickctl replay": start an instance now.
 *
 *   tickctl [--json] run JOB [--force] [--wait]
 *   tickctl [--json] replay RUN_ID [--shard I] [--wait]
 *
 * run asks the daemon for a manual instance of JOB now (trigger manual):
 * it obeys the job's overlap policy unless --force, starts within
 * moments, and its run id is printed.  replay runs a failed or dead
 * instance again under its own identity: the same TICKD_RUN_ID, the next
 * attempt number, trigger replay; of a batch instance, the shards that did
 * not succeed, or with --shard I the shard I alone (the request names the
 * shard's own run id, "RUN_ID#I").  --wait waits for the instance's end
 * and exits with the job's exit status (128 + N for a signal N, 1 for
 * other failures, a failed batch among them); while a batch runs, its
 * progress is on stderr (ctl_wait_run).
 *
 * JSON: {"run_id": ..., "job": ...} (and "status" with --wait).
 *
 * DIAGNOSTICS: the daemon's refusal on stderr, exit 1; usage errors and
 * unknown jobs exit 2; a daemon that is not running exits 1.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-fmt.h"
#include "ctl-json.h"
#include "ctl.h"
#include "xmalloc.h"

#define CTL_RUN_SHARD_MAX	9999	/* the highest index (10000 shards) */

static int	ctl_run_exec(int, char **, struct ctl_ctx *);
static int	ctl_replay_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_run_cmd = {
	"run",
	"JOB [--force] [--wait]",
	"start a manual instance of a job now",
	ctl_run_exec,
};

const struct ctl_cmd ctl_replay_cmd = {
	"replay",
	"RUN_ID [--shard I] [--wait]",
	"run a failed or dead instance again under its own identity",
	ctl_replay_exec,
};

/*
 * Print on stderr what the daemon said before its OK (such as "JOB is
 * paused: the instance waits for tickctl resume"), naming the request.
 */
static void
ctl_run_notes(const struct ctl_reply *r, const char *what, const char *arg)
{
	size_t i;

	for (i = 0; i < r->nlines; i++)
		ctl_error("%s %s: %s", what, arg, r->lines[i]);
}

/* Print the run id the daemon gave, then maybe wait for the end. */
static int
ctl_run_started(struct ctl_ctx *ctx, const char *job, const char *run_id,
    int wait)
{
	struct ctl_json	 j;
	int		 rc = CTL_EXIT_OK;

	if (!ctx->json)
		(void)printf("%s\n", run_id);
	if (ctl_flush("run") != 0)
		return CTL_EXIT_FAIL;
	if (wait && (rc = ctl_wait_run(ctx, run_id)) == -1)
		rc = CTL_EXIT_FAIL;
	if (ctx->json) {
		ctl_json_init(&j);
		ctl_json_open(&j, NULL);
		ctl_json_str(&j, "run_id", run_id);
		ctl_json_str(&j, "job", job);
		if (wait)
			ctl_json_int(&j, "exit_status", rc);
		ctl_json_close(&j);
		(void)ctl_json_print(&j);
		ctl_json_free(&j);
	}
	return rc;
}

/*
 * Parse --force/--wait (and replay's --shard into *shard, else -1); 0,
 * -1 after --help, or the usage exit status.
 */
static int
ctl_run_opts(const struct ctl_cmd *cmd, int argc, char **argv, int *force,
    int *wait, long *shard)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "wait", no_argument, NULL, 'w' },
		{ "shard", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":fwh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (shard != NULL)
				return ctl_getopt_error(cmd, '?', argv);
			*force = 1;
			break;
		case 's':
			if (shard == NULL)
				return ctl_getopt_error(cmd, '?', argv);
			if (ctl_parse_count(optarg, 0, CTL_RUN_SHARD_MAX,
			    shard) == -1) {
				ctl_error("%s: --shard: \"%s\" is not a shard "
				    "index (0 to %d)", cmd->name, optarg,
				    CTL_RUN_SHARD_MAX);
				return CTL_EXIT_USAGE;
			}
			break;
		case 'w':
			*wait = 1;
			break;
		case 'h':
			(void)printf("usage: tickctl %s %s\n", cmd->name,
			    cmd->usage);
			return -1;
		default:
			return ctl_getopt_error(cmd, ch, argv);
		}
	}
	if (optind + 1 != argc) {
		ctl_error("%s: usage: tickctl %s %s", cmd->name, cmd->name,
		    cmd->usage);
		return CTL_EXIT_USAGE;
	}
	return 0;
}

static int
ctl_run_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	struct ctl_reply	 r;
	const char		*job;
	int			 force = 0, wait = 0, rc;

	if ((rc = ctl_run_opts(&ctl_run_cmd, argc, argv, &force, &wait,
	    NULL)) != 0)
		return rc == -1 ? CTL_EXIT_OK : rc;
	job = argv[optind];
	if (ctl_ctx_job(ctx, "run", job, &rc) == NULL)
		return rc;
	switch (ctl_request(ctx, &r, "run %s%s", job, force ? " force" : "")) {
	case 0:
		ctl_run_notes(&r, "run", job);
		rc = ctl_run_started(ctx, job, ctl_reply_text(&r), wait);
		break;
	case 1:
		ctl_error("run %s: %s", job, ctl_reply_text(&r));
		rc = CTL_EXIT_FAIL;
		break;
	default:
		rc = CTL_EXIT_FAIL;
		break;
	}
	ctl_reply_free(&r);
	return rc;
}

static int
ctl_replay_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	struct ctl_reply	 r;
	const char		*id;
	char			*job, *at, *sid = NULL;
	long			 shard = -1;
	int			 force = 0, wait = 0, rc;

	if ((rc = ctl_run_opts(&ctl_replay_cmd, argc, argv, &force, &wait,
	    &shard)) != 0)
		return rc == -1 ? CTL_EXIT_OK : rc;
	id = argv[optind];
	if (strpbrk(id, " \t\n") != NULL) {
		ctl_error("replay: \"%s\" is not a run id", id);
		return CTL_EXIT_USAGE;
	}
	if (shard != -1) {
		if (strchr(id, '#') != NULL) {
			ctl_error("replay: \"%s\" is a shard's run id: --shard "
			    "takes its instance's", id);
			return CTL_EXIT_USAGE;
		}
		id = sid = xasprintf("%s#%ld", id, shard);
	}
	switch (ctl_request(ctx, &r, "replay %s", id)) {
	case 0:
		ctl_run_notes(&r, "replay", id);
		job = xstrdup(ctl_reply_text(&r));
		if ((at = strchr(job, '@')) != NULL)
			*at = '\0';
		rc = ctl_run_started(ctx, job, ctl_reply_text(&r), wait);
		free(job);
		break;
	case 1:
		ctl_error("replay %s: %s", id, ctl_reply_text(&r));
		rc = CTL_EXIT_FAIL;
		break;
	default:
		rc = CTL_EXIT_FAIL;
		break;
	}
	ctl_reply_free(&r);
	free(sid);
	return rc;
}

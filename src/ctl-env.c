/*
 * ctl-env.c -- "tickctl env": the exact environment a run of a job gets.
 *
 *   tickctl [--json] env JOB
 *
 * Built by jobenv_build, the function that builds it for the daemon, for
 * the job's next instance, attempt 1, trigger schedule: PATH, HOME, USER,
 * LOGNAME and SHELL of the user it runs as, its environment entries, then
 * TICKD_JOB, TICKD_RUN_ID, TICKD_SCHEDULED_AT, TICKD_ATTEMPT and
 * TICKD_TRIGGER.  When the job has no next instance (disabled, paused, a
 * run in flight for "after"), the next one its schedule would have after
 * now stands in; @reboot uses the boot time.  Output: "# " comment lines
 * saying which instance, user and directory (its home, or "/" when the
 * home does not exist; job_def_workdir) and its only_if condition if
 * any, then one NAME=value per
 * line, in the order the process receives them (values made safe for the
 * terminal).
 *
 * The user's entries come from the password database as tickctl reads it
 * now; when tickctl does not run as root and the job names no user, they
 * are tickctl's own user's, not the daemon's (see tickctl(1)).
 *
 * JSON: one object: job, run_id, scheduled_at, attempt, trigger, user,
 * workdir, only_if (null when none), environment (an array of "NAME=value" strings, in order).
 *
 * DIAGNOSTICS: usage errors and unknown jobs exit 2; an invalid job or
 * configuration exits 1.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctl-fmt.h"
#include "ctl-job.h"
#include "ctl-json.h"
#include "ctl.h"
#include "envp.h"
#include "jobenv.h"
#include "schedule.h"
#include "shwords.h"
#include "store.h"
#include "store_query.h"
#include "xmalloc.h"

static int	ctl_env_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_env_cmd = {
	"env",
	"JOB",
	"the exact environment a run of the job gets",
	ctl_env_exec,
};

/* The boot time (Unix s) from /proc/stat, or now. */
static int64_t
ctl_env_boot_time(int64_t now)
{
	char		 line[256];
	long long	 v;
	FILE		*f;

	if ((f = fopen("/proc/stat", "re")) == NULL)
		return now;
	while (fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "btime %lld", &v) == 1) {
			(void)fclose(f);
			return (int64_t)v;
		}
	}
	(void)fclose(f);
	return now;
}

/* tickctl env JOB: the environment of the job's next instance. */
static int
ctl_env_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const struct job_def	*d;
	struct jobenv_run	 r;
	struct ctl_job_view	 v;
	struct envp		 e;
	struct ctl_json		 j;
	const char		*origin = "schedule";
	char			 run_id[STORE_RUN_ID_MAX];
	char			*cause = NULL, *vis, *why = NULL, *prog;
	char			 note[PATH_MAX + 32];
	const char		*dir;
	char			**words;
	int64_t			 now = ctx->now_ms / 1000, at = -1;
	size_t			 i;
	int			 ch, rc;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			(void)printf("usage: tickctl env %s\n",
			    ctl_env_cmd.usage);
			return CTL_EXIT_OK;
		default:
			return ctl_getopt_error(&ctl_env_cmd, ch, argv);
		}
	}
	if (optind >= argc) {
		ctl_error("env: a JOB is required");
		return CTL_EXIT_USAGE;
	}
	if (argc - optind > 1) {
		ctl_error("env: unexpected argument \"%s\"", argv[optind + 1]);
		return CTL_EXIT_USAGE;
	}
	if ((d = ctl_ctx_job(ctx, "env", argv[optind], &rc)) == NULL)
		return rc;

	/* The next instance as planned, else a stand-in (see the top). */
	if (ctl_job_view(ctl_ctx_store_quiet(ctx), d, now, &v, &cause) == 0) {
		at = v.next_at;
		ctl_job_view_clear(&v);
	} else
		free(cause);
	if (at == -1) {
		switch (schedule_kind(d->schedule)) {
		case SCHEDULE_CRON:
		case SCHEDULE_EVERY:
			if (ctl_job_next(d, now, &at) == -1)
				at = now;
			break;
		case SCHEDULE_AFTER:
			at = now + schedule_interval(d->schedule);
			break;
		case SCHEDULE_REBOOT:
			at = ctl_env_boot_time(now);
			origin = "reboot";
			break;
		}
	}
	store_run_id(d->id, at, origin, run_id, sizeof run_id);
	r.job = d->id;
	r.run_id = run_id;
	r.scheduled_at = at;
	r.attempt = 1;
	r.trigger = "schedule";
	r.invocation = "random-128-bit-id-per-attempt";
	jobenv_build(d, &r, &e);

	rc = CTL_EXIT_OK;
	if (ctx->json) {
		ctl_json_init(&j);
		ctl_json_open(&j, NULL);
		ctl_json_str(&j, "job", d->id);
		ctl_json_str(&j, "run_id", run_id);
		ctl_json_time(&j, "scheduled_at", at);
		ctl_json_int(&j, "attempt", r.attempt);
		ctl_json_str(&j, "trigger", r.trigger);
		ctl_json_str(&j, "user", d->cred.user);
		ctl_json_str(&j, "workdir", job_def_workdir(d));
		ctl_json_str(&j, "only_if", d->only_if);
		ctl_json_open_array(&j, "environment");
		for (i = 0; i < e.n; i++)
			ctl_json_str(&j, NULL, e.v[i]);
		ctl_json_close_array(&j);
		ctl_json_close(&j);
		if (ctl_json_print(&j) == -1)
			rc = CTL_EXIT_FAIL;
		ctl_json_free(&j);
	} else {
		/* What runs: the shell, or the program (shwords.c). */
		words = d->exec != NULL ? shwords_exec_split(d->exec, 0,
		    &why) : shwords_split(d->command, 0);
		free(why);
		if (words == NULL)
			prog = xstrdup("/bin/sh -c COMMAND");
		else {
			vis = ctl_fmt_vis(words[0], strlen(words[0]), 0);
			prog = xasprintf("%s (no shell; PWD set too)", vis);
			free(vis);
		}
		free(words);
		dir = job_def_workdir(d);
		note[0] = '\0';
		if (dir != d->workdir && dir != d->cred.home)
			(void)snprintf(note, sizeof note, " (its home %s does "
			    "not exist)", d->cred.home);
		(void)printf("# job %s, instance %s (attempt 1, trigger "
		    "schedule)\n# runs %s as %s in %s%s, with exactly this "
		    "environment:\n", d->id, run_id, prog, d->cred.user, dir,
		    note);
		if (d->only_if != NULL) {
			vis = ctl_fmt_vis(d->only_if, strlen(d->only_if), 0);
			(void)printf("# after its only_if condition, "
			    "/bin/sh -c '%s', exits 0 (1-254: skipped)\n",
			    vis);
			free(vis);
		}
		free(prog);
		for (i = 0; i < e.n; i++) {
			vis = ctl_fmt_vis(e.v[i], strlen(e.v[i]), 0);
			(void)printf("%s\n", vis);
			free(vis);
		}
	}
	envp_free(&e);
	if (ctl_flush("env") != CTL_EXIT_OK)
		rc = CTL_EXIT_FAIL;
	return rc;
}

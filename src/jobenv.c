/*
 * jobenv.c -- the environment a job's process gets.
 *
 * In this order, later entries replacing earlier ones of the same name
 * (envp.c): PATH (JOBENV_PATH); HOME, USER, LOGNAME and SHELL from the
 * credentials the job runs with; the job's own "environment" entries,
 * which may replace any of those; and last the TICKD_* variables of the
 * attempt, which a job cannot override: TICKD_JOB, TICKD_RUN_ID,
 * TICKD_SCHEDULED_AT (RFC 3339 UTC), TICKD_ATTEMPT, TICKD_TRIGGER and
 * TICKD_INVOCATION_ID (128 random bits, one per attempt, as systemd's
 * $INVOCATION_ID; tickctl env shows a placeholder).
 * Nothing of the daemon's own environment is passed on.
 *
 * The daemon builds each attempt's environment with it just before the
 * fork; tickctl env shows what it builds for the job's next instance.
 *
 * DIAGNOSTICS: none; allocation failure is fatal (xmalloc).
 */
#include <stdio.h>

#include "conf.h"
#include "envp.h"
#include "jobenv.h"
#include "rfc3339.h"

/*
 * Build into e (initialised here; caller frees with envp_free) the
 * environment of attempt r of job d.
 */
void
jobenv_build(const struct job_def *d, const struct jobenv_run *r,
    struct envp *e)
{
	char	when[RFC3339_BUFSZ], num[16];
	size_t	i;

	envp_init(e);
	envp_set(e, "PATH", JOBENV_PATH);
	envp_set(e, "HOME", d->cred.home);
	envp_set(e, "USER", d->cred.user);
	envp_set(e, "LOGNAME", d->cred.user);
	envp_set(e, "SHELL", d->cred.shell);
	for (i = 0; i < d->nenv; i++)
		envp_put(e, d->env[i]);
	/* Last, so that the job's own environment cannot override them. */
	rfc3339_format_utc(r->scheduled_at, when, sizeof when);
	(void)snprintf(num, sizeof num, "%d", r->attempt);
	envp_set(e, "TICKD_JOB", r->job);
	envp_set(e, "TICKD_RUN_ID", r->run_id);
	envp_set(e, "TICKD_SCHEDULED_AT", when);
	envp_set(e, "TICKD_ATTEMPT", num);
	envp_set(e, "TICKD_TRIGGER", r->trigger);
	if (r->invocation != NULL)
		envp_set(e, "TICKD_INVOCATION_ID", r->invocation);
}

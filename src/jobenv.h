/*
 * jobenv.h -- the environment of a job's process, built in one place for
 * the daemon (the environment it gives) and tickctl env (what it shows).
 */
#ifndef TICKD_JOBENV_H
#define TICKD_JOBENV_H

#include <stdint.h>

#include "conf.h"
#include "envp.h"

/* The search path every job gets (it may set its own PATH). */
#define JOBENV_PATH	"/usr/local/sbin:/usr/local/bin:" \
			"/usr/sbin:/usr/bin:/sbin:/bin"

/* The attempt an environment is for.  Borrowed strings. */
struct jobenv_run {
	const char	*job;		/* TICKD_JOB */
	const char	*run_id;	/* TICKD_RUN_ID */
	int64_t		 scheduled_at;	/* TICKD_SCHEDULED_AT */
	int		 attempt;	/* TICKD_ATTEMPT, from 1 */
	const char	*trigger;	/* TICKD_TRIGGER */
	const char	*invocation;	/* TICKD_INVOCATION_ID, or NULL */
};

void	jobenv_build(const struct job_def *, const struct jobenv_run *,
	    struct envp *);

#endif /* TICKD_JOBENV_H */

/*
 * child.h -- everything a job's process does between fork and exec.
 */
#ifndef TICKD_CHILD_H
#define TICKD_CHILD_H

#include <sys/resource.h>

#include <stdint.h>

#include "priv.h"

/* Where a child failed before exec, as reported to the daemon. */
enum child_stage {
	CHILD_SETSID = 1,
	CHILD_SIGNALS,
	CHILD_STDIO,
	CHILD_CREDENTIALS,
	CHILD_WORKDIR,
	CHILD_EXEC,
	CHILD_FORK,		/* in the parent: no child at all */
	CHILD_PIPE,		/* in the parent: no pipes, no child */
	CHILD_CGROUP,		/* entering its cgroup */
	CHILD_TRACK,		/* in the parent: no cgroup for it */
	CHILD_CONDITION		/* its only_if said no: error is the */
};				/* condition's wait status */

/* What the child needs; prepared by the parent before fork. */
struct child_spec {
	const char		*path;		/* program to execute */
	char *const		*argv;
	char *const		*envp;
	/*
	 * direct: argv are a command's words, run as /bin/sh -c would run
	 * them (path unused): a name without '/' searched in search (the
	 * job's PATH; NULL: sh's default), sh's messages and exit statuses
	 * when that fails, PWD set as sh sets it.  argv[-1] is a spare slot
	 * (for /bin/sh, a script without #!), and envp has a spare slot
	 * after its NULL (for PWD); the child writes both.
	 */
	int			 direct;
	const char		*search;
	const struct priv_cred	*cred;
	int			 same_ids;	/* cred is the daemon's own: */
						/* no switch (priv_is_self) */
	uint64_t		 signals;	/* bit n-1: reset signal n */
						/* (child_signals_set) */
	const char		*workdir;
	int			 workdir_home;	/* workdir is the user's home, */
						/* "/" when it cannot be entered */
	const char		*condition;	/* only_if: run first, or NULL */
	int			 out_fd;	/* becomes stdout */
	int			 err_fd;	/* becomes stderr */
	int			 status_fd;	/* close-on-exec report pipe, */
	struct child_report	*report;	/* or, sharing the daemon's */
						/* memory, where to write it */
	const struct rlimit	*nofile;	/* RLIMIT_NOFILE to restore */
	int			 join_fd;	/* its cgroup.procs, or -1 */
};

/*
 * The report a child leaves when something fails; a clone child also
 * leaves the boot clock as it began (runner_start_tick).
 */
struct child_report {
	int	stage;		/* enum child_stage */
	int	error;		/* errno */
	int64_t	boot_ns;	/* CLOCK_BOOTTIME at the clone child's start */
};

uint64_t	 child_signals_set(void);
void		 child_exec(const struct child_spec *)
		     __attribute__((noreturn));
const char	*child_stage_name(int);

#endif /* TICKD_CHILD_H */

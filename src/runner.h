/*
 * runner.h -- the parent side of job processes: spawn, output, signals,
 * reaping.
 */
#ifndef TICKD_RUNNER_H
#define TICKD_RUNNER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ev.h>

#include "child.h"
#include "log.h"

#define RUNNER_PIECE_MAX	4000	/* longest output line logged whole */

/* Output of one stream, split into lines of bounded length. */
struct runner_out {
	int		 fd;
	ev_io		 w;
	size_t		 len;
	char		 buf[RUNNER_PIECE_MAX];
};

/*
 * One attempt's process.  Everything a run needs is copied in at spawn,
 * so a reload can free the job definition while the process runs.
 */
struct run {
	char			*job;
	char			*run_id;
	char			*trigger;
	int64_t			 rowid;		/* store row of the instance */
	int			 attempt;
	int64_t			 scheduled_at;	/* Unix seconds */
	int64_t			 due_ms;	/* scheduled + random delay */
	int64_t			 started_ms;	/* wall clock at fork */
	int64_t			 started_mono;	/* monotonic ms at fork */
	pid_t			 pid;
	int			 status_fd;
	ev_io			 status_w;
	int			 execd;		/* exec succeeded */
	struct runner_out	 out;
	struct runner_out	 err;
	int			 reaped;
	int			 wstatus;
	int			 spawn_failed;	/* report holds why */
	struct child_report	 report;
	void			*owner;		/* the server's job */
	struct run		*next_in_job;	/* owner's list of live runs */
	struct run		*hnext;		/* pid hash chain */
};

/* What to run: prepared by the caller, copied as needed. */
struct runner_spec {
	const char		*command;
	char *const		*envp;
	const struct priv_cred	*cred;
	const char		*workdir;
};

typedef void (*runner_cb)(struct run *, void *);

void		 runner_init(struct ev_loop *, runner_cb, runner_cb, void *);
struct run	*runner_new(const char *, const char *, const char *, int64_t,
		     int, int64_t, int64_t);
int		 runner_spawn(struct run *, const struct runner_spec *,
		     char **);
void		 runner_reap(pid_t, int);
void		 runner_signal(struct run *, int);
size_t		 runner_count(void);
void		 runner_free(struct run *);
void		 runner_log_job(const struct run *, struct log_job *);

#endif /* TICKD_RUNNER_H */

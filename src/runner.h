/*
 * runner.h -- the parent side of job processes: spawn, output, signals,
 * reaping.
 */
#ifndef TICKD_RUNNER_H
#define TICKD_RUNNER_H

#include <sys/resource.h>
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "cgroup.h"
#include "child.h"
#include "log.h"
#include "track.h"

#define RUNNER_PIECE_MAX	4000	/* longest output line logged whole */
#define RUNNER_CAPTURE_MAX	(4 * 1024 * 1024) /* a lister's stdout */

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
	int64_t			 due_ms;	/* lateness counts from here */
	int64_t			 started_ms;	/* wall clock, as the spawner */
	int64_t			 started_mono;	/* made it; monotonic ms */
	pid_t			 pid;		/* -1 until the spawner's */
	int			 spawning;	/* posted to the spawner */
	int			 stop_deferred;	/* runner_stop while spawning */
	int			 status_fd;
	ev_io			 status_w;
	int			 execd;		/* exec succeeded */
	struct runner_out	 out;
	struct runner_out	 err;
	int			 reaped;
	int			 wstatus;
	int			 spawn_failed;	/* report holds why */
	int			 unmet;		/* only_if said no: */
						/* report.error its status */
	struct child_report	 report;
	char			*spawn_why;	/* or this, made in tickd */
	void			*owner;		/* the server's job */
	struct run		*next_in_job;	/* owner's list of live runs */
	struct run		*hnext;		/* pid hash chain */
	int64_t			 pid_start;	/* /proc starttime, -1 */
	ev_timer		 timeout_w;	/* the job's timeout */
	ev_timer		 kill_w;	/* kill_grace, then SIGKILL */
	int			 kill_signal;
	double			 kill_grace;
	double			 timeout_secs;	/* its timeout, armed once its */
						/* process exists; 0 none */
	int			 timed_out;	/* stopped by its timeout */
	int			 replaced;	/* stopped by overlap = replace */
	int			 stopped;	/* stopped by the shutdown */
	int			 fenced;	/* stopped: its lease could not be
						   renewed (server-cluster.c) */
	int			 hook;		/* an on_failure command */
	int64_t			 hook_rowid;	/* instance it is about */
	int			 adopted;	/* found alive after a crash */
	int			 pidfd;		/* adopted: exit notification */
	ev_io			 pidfd_w;
	int			 follow_poll;	/* adopted: polled (poll_w) */
	ev_timer		 poll_w;
	const struct track_ops	*track;		/* how its processes are told */
	char			*cgroup;	/* its cgroup directory, or NULL */
	char			 invocation[TRACK_TOKEN_LEN + 1];
	struct track_usage	 usage;		/* once its main process ended */
	char			*tail;		/* the last output, a ring */
	size_t			 tail_cap;	/* output_keep: 0, none kept */
	size_t			 tail_len;
	size_t			 tail_head;	/* where the oldest byte is */
	int			 shard;		/* a batch's shard index, -1 */
	int64_t			 parent;	/* its instance's row, -1 */
	int			 lister;	/* a batch's shards_from */
	int			 capture_over;	/* it wrote over the max */
	char			*capture;	/* its standard output */
	size_t			 capture_len;
	char			*ckpt;		/* a shard's TICKD_CHECKPOINT */
	int64_t			 ckpt_saved;	/* its mtime (ns) last saved */
};

/* What to run: prepared by the caller, copied as needed. */
struct runner_spec {
	const char			*command;	/* for /bin/sh -c, */
	int				 exec;		/* or an exec value */
	char *const			*envp;
	const struct priv_cred		*cred;
	const char			*workdir;
	int				 workdir_home;	/* child.h */
	const char			*condition;	/* only_if, or NULL */
	const struct cgroup_limits	*limits;
};

typedef void (*runner_cb)(struct run *, void *);

void		 runner_init(struct ev_loop *, runner_cb, runner_cb,
		     runner_cb, void (*)(void *), void *);
struct run	*runner_new(const char *, const char *, const char *, int64_t,
		     int, int64_t, int64_t);
int		 runner_spawn(struct run *, const struct runner_spec *,
		     char **);
void		 runner_reap(pid_t, int, const struct rusage *);
size_t		 runner_busy(void);
size_t		 runner_budget(void);
void		 runner_free(struct run *);
void		 runner_log_job(const struct run *, struct log_job *);
void		 runner_stop(struct run *, int, double);
int		 runner_out_fd(const struct run *, int);
void		 runner_out_now(struct run *, int);
int		 runner_kill_tree(struct run *, int);
void		 runner_sweep(struct run *);
void		 runner_finish(void);
void		 runner_release(struct run *);
void		 runner_adopt(struct run *, enum track_alive);
char		*runner_tail(const struct run *, size_t *);

#endif /* TICKD_RUNNER_H */

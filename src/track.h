/*
 * track.h -- which processes are an attempt's: one cgroup v2 per attempt
 * (track-cgroup.c), or, where tickd has no cgroup v2 subtree it may
 * write, the attempt's process group and a secret of the attempt in the
 * environment (track-pgrp.c).  As SQLite's VFS: one struct of
 * operations, one file per implementation filling it in, and the runner,
 * which holds only the pointer each run carries (a run adopted from a
 * daemon that tracked it the other way keeps that way).  track.c chooses
 * the way at start and holds what both share.
 */
#ifndef TICKD_TRACK_H
#define TICKD_TRACK_H

#include <sys/resource.h>
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"

struct run;

#define TRACK_TOKEN_LEN	32	/* hex digits of an invocation id */

/* An attempt a previous daemon started, as the store recorded it. */
struct track_found {
	pid_t		 pid;		/* main process, -1 if not recorded */
	int64_t		 pid_start;	/* its start, clock ticks after boot */
	const char	*boot_id;	/* boot of the claim, NULL: unknown */
	const char	*invocation;	/* TICKD_INVOCATION_ID, or NULL */
	const char	*cgroup;	/* recorded cgroup, or NULL */
};

/* Whether an attempt of a previous daemon still runs, and how. */
enum track_alive {
	TRACK_GONE,		/* nothing of it runs */
	TRACK_MAIN,		/* its main process: r->pid, r->pid_start */
	TRACK_GROUP		/* processes of it, the main one unknown */
};

/* What an ended attempt used; -1 where unknown. */
struct track_usage {
	int64_t		 user_us;
	int64_t		 system_us;
	int64_t		 mem_peak;	/* bytes */
	int		 oom;		/* the OOM killer took a process */
	const char	*source;	/* "cgroup", "rusage", or NULL */
};

struct track_ops {
	const char	*name;
	/*
	 * Before the attempt's process exists: make what it lives in.  0,
	 * with *join_fd the descriptor the child writes itself into (-1:
	 * none), or -1 with *cause.
	 */
	int		(*prepare)(struct run *, const struct cgroup_limits *,
			    int *, char **);
	/* Send sig to every process of the attempt; how many there were. */
	int		(*signal)(struct run *, int);
	/* The main process ended: SIGKILL what is left; how many. */
	int		(*sweep)(struct run *);
	/* What the ended attempt used (ru: its main process's, or NULL). */
	void		(*usage)(struct run *, const struct rusage *,
			    struct track_usage *);
	/* The attempt is recorded: remove what it lived in once empty. */
	void		(*release)(struct run *);
	/* Whether an attempt of a previous daemon still runs (fills r). */
	enum track_alive (*find)(struct run *, const struct track_found *);
	/* Whether processes of the attempt remain. */
	int		(*populated)(const struct run *);
	/* Write the job's limits anew (an adopted attempt); 0 or -1. */
	int		(*limit)(struct run *, const struct cgroup_limits *,
			    char **);
};

extern const struct track_ops	track_cgroup_ops;
extern const struct track_ops	track_pgrp_ops;

/* The daemon's way, chosen by track_init. */
struct track_info {
	const struct track_ops	*ops;		/* for new attempts */
	char			*root;		/* cgroup subtree, or NULL */
	unsigned		 controllers;	/* enabled for attempts */
	char			*why;		/* why no cgroup, or NULL */
	int			 moved;		/* tickd went to supervisor */
};

int		 track_init(const char *, struct track_info *, char **);
int		 track_same_boot(const char *);
void		 track_info_free(struct track_info *);
void		 track_describe(const struct track_info *, char *, size_t);
const struct track_info *track_current(void);
int		 track_probe(const char *, struct track_info *, char **);
int		 track_controllers(const char *, const char *, const char *,
		     char **);
int		 track_release_cgroup(const char *, char **);
void		 track_token(char *, size_t);
int64_t		 track_pid_start(pid_t);
int		 track_proc_same(pid_t, int64_t, long *);
int		 track_proc_stat(pid_t, int *, long *, long *, long *,
		     int64_t *);
char		*track_proc_env(pid_t, const char *);
char		*track_proc_cgroup(pid_t);
void		 track_cgroup_name(const struct run *, char *, size_t);
int		 track_cgroup_fd(void);
int		 track_cgroup_events(void (*)(struct run *, void *), void *);
void		 track_cgroup_follow(struct run *);
void		 track_cgroup_unfollow(struct run *);
void		 track_cgroup_tidy(int (*)(const char *, void *), void *);
void		 track_pgrp_snap_forget(void);

#endif /* TICKD_TRACK_H */

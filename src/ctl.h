/*
 * ctl.h -- tickctl subcommands and the context they share.
 *
 * Each subcommand lives in its own ctl-<name>.c and exports one
 * struct ctl_cmd (the tmux cmd-*.c pattern).  exec receives argv with the
 * command name in argv[0] and the context of the global options, and
 * returns the process exit status.  The context loads the configuration
 * and opens the store only when a command asks for them (ctl-ctx.c), so
 * that "next --cron" needs neither.
 */
#ifndef TICKD_CTL_H
#define TICKD_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"

#define CTL_EXIT_OK	0	/* success */
#define CTL_EXIT_FAIL	1	/* the answer is "something is wrong" */
#define CTL_EXIT_USAGE	2	/* bad command line or arguments */

struct store_query;

/* What the daemon's lock file says. */
struct ctl_daemon {
	int	 running;	/* a tickd holds the state's lock */
	long	 pid;		/* its pid, 0: unknown */
	char	 lock[4096];	/* the locked file: the state database */
};

/*
 * The global options and what was loaded on their behalf.  Owned by
 * main; commands borrow it for the length of exec.
 */
struct ctl_ctx {
	const char		*config;	/* -c, $TICKD_CONFIG, default */
	int			 json;		/* --json */
	int64_t			 now_ms;	/* one "now" for the run */
	struct conf		*conf;		/* NULL until ctl_ctx_conf */
	struct conf_causes	 causes;	/* conf_load's, for check */
	int			 conf_tried;
	uid_t			 as_uid;	/* the daemon's ids, as loaded */
	gid_t			 as_gid;
	struct store_query	*store;		/* NULL until ctl_ctx_store */
	char			*store_cause;
	int			 store_tried;
	struct ctl_daemon	 daemon;
	int			 daemon_tried;
	struct job_def		*daemon_job;	/* ctl_ctx_job's, if asked */
};

struct ctl_cmd {
	const char	*name;
	const char	*usage;		/* arguments after the name */
	const char	*summary;	/* one line for --help */
	int		(*exec)(int, char **, struct ctl_ctx *);
};

extern const struct ctl_cmd ctl_check_cmd;
extern const struct ctl_cmd ctl_env_cmd;
extern const struct ctl_cmd ctl_migrate_cmd;
extern const struct ctl_cmd ctl_history_cmd;
extern const struct ctl_cmd ctl_list_cmd;
extern const struct ctl_cmd ctl_logs_cmd;
extern const struct ctl_cmd ctl_metrics_cmd;
extern const struct ctl_cmd ctl_next_cmd;
extern const struct ctl_cmd ctl_show_cmd;
extern const struct ctl_cmd ctl_stats_cmd;
extern const struct ctl_cmd ctl_status_cmd;
extern const struct ctl_cmd ctl_run_cmd;
extern const struct ctl_cmd ctl_replay_cmd;
extern const struct ctl_cmd ctl_pause_cmd;
extern const struct ctl_cmd ctl_resume_cmd;
extern const struct ctl_cmd ctl_reload_cmd;
extern const struct ctl_cmd ctl_import_cmd;

/* A reply of the daemon: lines, then a final "OK ..." or "ERR ...". */
struct ctl_reply {
	char	**lines;
	size_t	  nlines;
	char	 *final;
};

void		 ctl_error(const char *, ...)
		     __attribute__((format(printf, 1, 2)));

/* ctl-ctx.c */
void		 ctl_ctx_init(struct ctl_ctx *, const char *, int);
void		 ctl_ctx_free(struct ctl_ctx *);
struct conf	*ctl_ctx_conf(struct ctl_ctx *);
struct conf	*ctl_ctx_conf_quiet(struct ctl_ctx *);
struct store_query *ctl_ctx_store(struct ctl_ctx *);
struct store_query *ctl_ctx_store_quiet(struct ctl_ctx *);
const struct ctl_daemon *ctl_ctx_daemon(struct ctl_ctx *);
int64_t		 ctl_ctx_meta_count(struct ctl_ctx *, const char *);
const struct job_def *ctl_ctx_job(struct ctl_ctx *, const char *,
		     const char *, int *);
int		 ctl_conf_bad_id(const struct conf *, const char *);
int		 ctl_getopt_error(const struct ctl_cmd *, int, char **);
int		 ctl_flush(const char *);

/* ctl-request.c */
int		 ctl_request(struct ctl_ctx *, struct ctl_reply *, const char *,
		     ...) __attribute__((format(printf, 3, 4)));
const char	*ctl_reply_text(const struct ctl_reply *);
void		 ctl_reply_free(struct ctl_reply *);
int		 ctl_wait_run(struct ctl_ctx *, const char *);

#endif /* TICKD_CTL_H */

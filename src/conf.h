/*
 * conf.h -- tickd.conf and the job files: parsed, validated, collected.
 *
 * conf_load reads the daemon file and every *.job file of its jobs_dir
 * into a new struct conf.  Every problem found anywhere becomes one cause
 * "file:line: key: message"; a job with any cause is left out (its id is
 * remembered in bad_ids so that a reload can keep its previous good
 * definition), and a file inih rejects, or that cannot be read safely,
 * loses all its jobs (bad_files).  What is valid but deserves a look (a
 * root job whose program others could change) is a warning, in the same
 * form, in the conf's own list (warnings).  Keys, types, bounds, defaults
 * and documentation live in one table, conf_keys[] (conf_table.c).
 *
 * conf_reload does the same, but takes from the running conf, unread, the
 * jobs of each file that loaded cleanly and has not changed since (same
 * inode, size, mtime and ctime); their user, groups, zone and programs are
 * looked at again.  The jobs it takes leave the old conf.
 */
#ifndef TICKD_CONF_H
#define TICKD_CONF_H

#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"
#include "priv.h"
#include "tz.h"

#ifndef TICKD_SYSCONFDIR
#define TICKD_SYSCONFDIR	"/etc"
#endif
#define CONF_DEFAULT_PATH	TICKD_SYSCONFDIR "/tickd/tickd.conf"
#define CONF_FILE_MAX		(16 * 1024 * 1024)	/* largest file read */
#define CONF_LINE_MAX		(1024 * 1024)		/* longest line */
#define CONF_CAUSE_MAX		1024	/* longest message, after escaping */
#define CONF_FILE_CAUSES_MAX	50	/* messages listed per file */

/*
 * A list of messages, each "file:line: key: message".  Text from the
 * files (names, values) is escaped in them: control characters and bytes
 * that are not UTF-8 appear as \xHH, a newline as \n; a message is cut at
 * CONF_CAUSE_MAX bytes.
 */
struct conf_causes {
	char	**v;
	size_t	  n;
};

/*
 * A job's policies (tickd.job(5), "POLICIES") and other values that most
 * jobs leave at their defaults: one copy for the jobs whose values are
 * equal (conf.c interns them per load: 100,000 jobs hold a few copies,
 * not 100,000).  Never changed once shared.
 */
struct job_policy {
	size_t			 refs;		/* jobs holding it */
	char			*retry_on_exit;	/* "any" or a list of codes */
	/* From here on compared byte for byte (made by calloc). */
	int64_t			 random_delay;	/* seconds */
	int64_t			 queue_limit;
	int64_t			 max_parallel;
	int64_t			 misfire_grace;	/* seconds */
	int64_t			 catch_up_limit;
	int64_t			 retries;
	int64_t			 retry_delay;	/* seconds */
	int64_t			 retry_delay_max;
	int64_t			 timeout;	/* seconds, 0: none */
	int64_t			 kill_grace;	/* seconds */
	int64_t			 shard_parallel; /* 0: all at once */
	int64_t			 batch_timeout;	/* seconds, 0: none */
	int64_t			 on_failure_timeout;
	int64_t			 expect_success_within; /* seconds, 0: none */
	int64_t			 output_keep;	/* bytes of output kept */
	struct cgroup_limits	 limits;	/* CGROUP_UNSET: not set */
	uint8_t			 retry_codes[32]; /* bit n: exit n retried */
	int			 overlap;	/* enum policy_overlap */
	int			 misfire;	/* enum policy_misfire */
	int			 retry_any;
	int			 kill_signal;
	int			 recover;	/* enum policy_recover */
};

/* A key's offset in struct job_policy, not job_def (conf_table.c). */
#define CONF_IN_POLICY	((size_t)1 << 24)

/*
 * One job as defined in a job file.  Plain data; conf owns it.  id, file
 * and timezone are shared strings (xstrshare: the jobs of a file hold one
 * copy of its path, the daemon's job one of its id).
 */
struct job_def {
	char			*id;		/* section name */
	char			*file;		/* the job file */
	char			*text;		/* its section, normalized */
	char			*description;
	struct schedule		*schedule;
	char			*timezone;	/* zone name in effect */
	const struct tz		*tz;		/* from the conf's tz cache */
	char			*command;	/* for sh -c, */
	char			*exec;		/* or words; one is set */
	char			*user;		/* as configured, or NULL */
	char			*group;
	struct priv_cred	 cred;		/* resolved user and groups */
	char			*workdir;	/* NULL: the user's home */
	char			**env;		/* "NAME=value", nenv of them */
	size_t			 nenv;
	struct job_policy	*pol;		/* shared by equal jobs */
	char			*on_failure;	/* command, or NULL */
	char			*only_if;	/* command, or NULL */
	char			*shards;	/* a batch: "N" or "a, b", */
	char			*shards_from;	/* or a command; or neither */
	uint64_t		 sched_hash;	/* schedule, zone, gap, fold */
	uint64_t		 def_hash;	/* every key */
	/* The ints together: no padding between them (100,000 jobs). */
	int			 line;		/* line of [id] */
	enum tz_gap		 gap;		/* as configured (may be AUTO) */
	enum tz_fold		 fold;
	int			 enabled;
	int			 strict_exec;	/* unsafe root program: error */
	int			 cron_dialect;	/* enum cronexpr_dialect */
	int			 command_line;	/* lines of the keys, for */
	int			 exec_line;	/* messages about them */
	int			 on_failure_line;
	int			 only_if_line;
	char			 text_buf[];	/* text, in the same block */
};

struct conf;

/*
 * What tickd can enforce, asked once per load by the loader when it has
 * read [daemon] (cgroup, state): the controllers the jobs' limits may
 * use (CGROUP_*), or -1 when that cannot be known (the limits are then
 * not checked), and in *tracking an allocated line saying what the
 * processes are tracked by ("cgroup /sys/fs/cgroup/x (controllers: cpu
 * pids)" or "process groups (why)").  tickd probes its cgroup; tickd -n
 * and tickctl take what the daemon recorded in the store, or probe a
 * configured path.
 */
typedef int	(*conf_controllers_fn)(const struct conf *, char **, void *);

/* A job file as loaded, for the next reload to take unread. */
struct conf_file {
	char			*path;
	struct stat		 st;		/* when it was read */
	int			 reusable;	/* clean, and not too recent */
	struct job_def		**jobs;		/* its jobs, in file order */
	size_t			 njobs;
};

/* A job's definition hash in hex (conf_job_hash), with its NUL. */
#define CONF_HASH_HEX	17
#define CONF_NODE_MAX	64	/* a node's name (conf_node), with its NUL */

/* The daemon's settings and its jobs. */
struct conf {
	char		 *path;		/* tickd.conf as given */
	char		 *jobs_dir;	/* absolute or relative to path's dir */
	char		 *state;
	char		 *timezone;	/* default zone of jobs */
	char		 *control;	/* control socket */
	char		 *metrics_listen; /* ADDRESS:PORT of /metrics, or NULL */
	char		 *node;		/* this host among nodes, NULL: host */
	int64_t		  max_clock_skew; /* seconds, to the server's clock */
	int64_t		  lease;	/* seconds */
	int64_t		  max_running;
	int		  log_level;	/* syslog priority */
	int64_t		  history_keep;	/* instances kept per job */
	int64_t		  history_max_age; /* seconds */
	int		  strict_exec;	/* default of the jobs' key */
	char		 *cgroup;	/* NULL (where tickd starts), none, path */
	int		  controllers_known; /* the limits were checked */
	unsigned	  controllers;	/* CGROUP_* jobs' limits may use */
	char		 *tracking;	/* conf_controllers_fn's line, or NULL */
	uid_t		  uid;		/* the daemon's ids it was loaded for */
	gid_t		  gid;
	struct tz_cache	 *tzc;
	struct job_def	**jobs;		/* valid jobs, sorted by id */
	size_t		  njobs;
	char		**bad_ids;	/* jobs present but invalid */
	char		**bad_where;	/* "file:line" of each bad id */
	size_t		  nbad_ids;
	char		**bad_files;	/* job files that failed as a whole */
	size_t		  nbad_files;
	char		**ignored;	/* names in jobs_dir that are skipped */
	size_t		  nignored;
	int		  jobs_dir_failed; /* jobs_dir could not be read */
	int		  jobs_dir_unsafe; /* others can write in it */
	char		**dup_ids;	/* ids defined more than once */
	size_t		  ndup_ids;
	char		**unsafe_ids;	/* bad only for strict_exec */
	size_t		  nunsafe_ids;
	struct conf_causes warnings;	/* valid, but worth a look */
	struct conf_file *files;	/* the job files, in name order */
	size_t		  nfiles;
	size_t		  nreused;	/* of them taken from the last load */
};

struct conf	*conf_load(const char *, struct conf_causes *);
struct conf	*conf_reload(const char *, struct conf *, struct conf_causes *);
struct conf	*conf_load_with(const char *, uid_t, gid_t, conf_controllers_fn,
		     void *, struct conf_causes *);
struct conf	*conf_load_files(const char *, char *const *, size_t, uid_t,
		     gid_t, conf_controllers_fn, void *, struct conf_causes *);
int		 conf_check_report(const char *, const char *, char *const *,
		     size_t, conf_controllers_fn, void *, size_t *);
void		 conf_free(struct conf *);
const char	*conf_ignored_why(const char *);
struct job_def	*conf_job(const struct conf *, const char *);
int		 conf_job_is_bad(const struct conf *, const struct job_def *);
void		 conf_keep_job(struct conf *, struct conf *, size_t);
void		 conf_causes_add(struct conf_causes *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
void		 conf_causes_free(struct conf_causes *);
size_t		 conf_causes_files(const struct conf_causes *);
void		 job_def_free(struct job_def *);
const char	*job_def_where(const struct job_def *, char *, size_t);
const char	*job_def_workdir(const struct job_def *);
int		 conf_id_valid(const char *);
char		*conf_state_lock(const struct conf *);
uint64_t	 conf_defs_hash(const struct conf *);
void		 conf_job_hash(const struct job_def *, char[CONF_HASH_HEX]);
void		 conf_node(const struct conf *, char *, size_t);
struct job_def	*conf_job_parse(struct conf *, const char *, const char *,
		     struct conf_causes *);

/* Where a key may appear. */
enum conf_section {
	CONF_SEC_DAEMON,		/* [daemon] in tickd.conf */
	CONF_SEC_JOB			/* [<id>] in a job file */
};

/* The kinds of values; each has one parser in conf.c. */
enum conf_type {
	CONF_T_STRING,			/* any text */
	CONF_T_COMMAND,			/* shell command, lines joined */
	CONF_T_EXEC,			/* a program's words (shwords.c) */
	CONF_T_PATH,			/* relative to tickd.conf's directory */
	CONF_T_ABSPATH,			/* must be absolute */
	CONF_T_STATE,			/* a path, or a server's connection
					   string (store_is_server) */
	CONF_T_NAME,			/* a user or group name */
	CONF_T_DURATION,		/* duration.c syntax, in seconds */
	CONF_T_COUNT,			/* whole number */
	CONF_T_BOOL,			/* yes/no, true/false, on/off, 1/0 */
	CONF_T_ZONE,			/* IANA zone name */
	CONF_T_GAP,			/* shift | skip */
	CONF_T_FOLD,			/* first | second | both */
	CONF_T_SCHEDULE,		/* schedule.c syntax, in the job's
					   cron_dialect */
	CONF_T_DIALECT,			/* cron | quartz */
	CONF_T_LOG_LEVEL,		/* error ... debug */
	CONF_T_ENV,			/* NAME=value, repeatable */
	CONF_T_OVERLAP,			/* skip | queue | allow | replace */
	CONF_T_MISFIRE,			/* run_once | catch_up | skip */
	CONF_T_RECOVER,			/* rerun | abandon */
	CONF_T_SIGNAL,			/* TERM, SIGTERM, 15 */
	CONF_T_EXIT_CODES,		/* any, or CODE,CODE,... */
	CONF_T_SIZE,			/* bytes: 64k, 1M, 512 */
	CONF_T_CGROUP,			/* none, or an absolute path */
	CONF_T_MEMORY,			/* bytes (1G), N% of RAM, infinity */
	CONF_T_TASKS,			/* a count, N% of the system's, infinity */
	CONF_T_QUOTA,			/* N% of one CPU (up to 2 decimals) */
	CONF_T_LISTEN			/* ADDRESS:PORT (listenaddr.c) */
};

/* One configuration key: the single source for parser, defaults, docs. */
struct conf_key {
	enum conf_section	 section;
	const char		*name;
	enum conf_type		 type;
	int64_t			 min, max;	/* DURATION, COUNT bounds */
	const char		*def;		/* default as text, or NULL */
	int			 required;
	size_t			 offset;	/* in struct conf / job_def */
	const char		*doc;		/* one line */
};

extern const struct conf_key	conf_keys[];
extern const size_t		conf_nkeys;

const struct conf_key	*conf_key_find(enum conf_section, const char *);
void			*conf_key_addr(const struct conf_key *, const void *);

#endif /* TICKD_CONF_H */

/*
 * log.h -- the daemon's log: journald with structured fields, or stderr.
 *
 * Levels are syslog priorities.  The log_* macros test the level before
 * evaluating their arguments, so disabled debug logging costs one compare.
 * Job events carry TICKD_* journal fields and a fixed MESSAGE_ID per kind
 * of event, documented in tickd(8) under JOURNAL FIELDS.
 */
#ifndef TICKD_LOG_H
#define TICKD_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <syslog.h>
#include <sys/types.h>

enum log_target {
	LOG_TARGET_AUTO,	/* journal when stderr is the journal */
	LOG_TARGET_JOURNAL,
	LOG_TARGET_STDERR
};

/* Kinds of job and daemon events; each has its own MESSAGE_ID. */
enum log_event {
	LOG_EV_NONE,		/* plain message, no MESSAGE_ID */
	LOG_EV_STARTED,
	LOG_EV_SUCCEEDED,
	LOG_EV_FAILED,
	LOG_EV_SPAWN_FAILED,
	LOG_EV_TIMED_OUT,
	LOG_EV_SKIPPED,
	LOG_EV_MISSED,
	LOG_EV_TERMINATED,
	LOG_EV_LEASE_LOST,
	LOG_EV_CLOCK_JUMP,
	LOG_EV_OUTPUT,
	LOG_EV_DAEMON_STARTED,
	LOG_EV_DAEMON_STOPPING,
	LOG_EV_RELOADED,
	LOG_EV_CONFIG_ERROR,
	LOG_EV_STORE_BUSY,
	LOG_EV_BLOCKED,
	LOG_EV_RETRY,
	LOG_EV_DEAD,
	LOG_EV_OVERDUE,
	LOG_EV_THROTTLED,
	LOG_EV_ADOPTED,
	LOG_EV_RECOVERED,
	LOG_EV_HOOK,
	LOG_EV_REPLACED,
	LOG_EV_COUNT
};

/* The fields of a job event; NULL or -1 leaves a field out. */
struct log_job {
	const char	*job;
	const char	*run_id;
	int64_t		 scheduled_at;	/* Unix time, -1: none */
	int		 attempt;
	const char	*trigger;
	pid_t		 pid;
	int		 exit_status;
	int		 signal;
	int64_t		 lateness_ms;
	int64_t		 duration_ms;
	int64_t		 cpu_user_us;	/* an ended attempt's usage */
	int64_t		 cpu_system_us;
	int64_t		 mem_peak;	/* bytes */
	const char	*cgroup;	/* the attempt's cgroup */
	int		 shard;		/* a batch's shard index, -1 */
};

#define LOG_JOB_INIT	{ NULL, NULL, -1, -1, NULL, -1, -1, -1, -1, -1, \
			  -1, -1, -1, NULL, -1 }

extern int log_level;

#define log_at(prio, ...) do {						\
	if (log_level >= (prio))					\
		log_msg((prio), __VA_ARGS__);				\
} while (0)
#define log_debug(...)	log_at(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)	log_at(LOG_INFO, __VA_ARGS__)
#define log_notice(...)	log_at(LOG_NOTICE, __VA_ARGS__)
#define log_warn(...)	log_at(LOG_WARNING, __VA_ARGS__)
#define log_err(...)	log_at(LOG_ERR, __VA_ARGS__)

void	log_init(enum log_target, int);
int	log_target_parse(const char *, enum log_target *);
int	log_level_parse(const char *, int *);
const char *log_level_name(int);
int	log_to_journal(void);
const char *log_event_id(enum log_event);
void	log_msg(int, const char *, ...) __attribute__((format(printf, 2, 3)));
void	log_job(int, enum log_event, const struct log_job *, const char *,
	    ...) __attribute__((format(printf, 4, 5)));
void	log_output(const struct log_job *, int, const char *, size_t);
size_t	log_escape(char *, size_t, const char *, size_t);
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif /* TICKD_LOG_H */

/*
 * conf_table.c -- every configuration key, its type, bounds, default and
 * documentation, in one table (Redis's config table, Postfix's postconf).
 *
 * conf.c parses values and applies defaults from this table; the man
 * pages and conf/tickd.conf are checked against it by "make check" (no key
 * may be accepted without being documented).  Defaults are written as the
 * text a user would write, and parsed by the same code as user values.
 *
 * DIAGNOSTICS: none; data only.
 */
#include <stddef.h>
#include <string.h>

#include "conf.h"

#define D(field)	offsetof(struct conf, field)
#define J(field)	offsetof(struct job_def, field)
#define SECS(x)		((int64_t)(x))

const struct conf_key conf_keys[] = {
	/* [daemon] in tickd.conf */
	{ CONF_SEC_DAEMON, "jobs_dir", CONF_T_PATH, 0, 0,
	    TICKD_SYSCONFDIR "/tickd/jobs.d", 0, D(jobs_dir),
	    "directory of *.job files" },
	{ CONF_SEC_DAEMON, "state", CONF_T_PATH, 0, 0,
	    "/var/lib/tickd/tickd.db", 0, D(state),
	    "SQLite database of runs, attempts and decisions" },
	{ CONF_SEC_DAEMON, "timezone", CONF_T_ZONE, 0, 0, NULL, 0,
	    D(timezone), "default time zone of jobs (default: the system's)" },
	{ CONF_SEC_DAEMON, "lease", CONF_T_DURATION, SECS(5), SECS(86400),
	    "60s", 0, D(lease), "how long a claim on a run lasts unrenewed" },
	{ CONF_SEC_DAEMON, "max_running", CONF_T_COUNT, 1, 100000, "256", 0,
	    D(max_running), "most job processes running at once" },
	{ CONF_SEC_DAEMON, "log_level", CONF_T_LOG_LEVEL, 0, 0, "info", 0,
	    D(log_level), "error, warning, notice, info or debug" },
	{ CONF_SEC_DAEMON, "control", CONF_T_PATH, 0, 0,
	    "/run/tickd/tickd.sock", 0, D(control),
	    "Unix socket through which tickctl steers the daemon" },

	/* [<job id>] in a job file */
	{ CONF_SEC_JOB, "schedule", CONF_T_SCHEDULE, 0, 0, NULL, 1,
	    J(schedule), "cron expression or macro, every DURATION, after "
	    "DURATION" },
	{ CONF_SEC_JOB, "command", CONF_T_COMMAND, 0, 0, NULL, 1,
	    J(command), "run by /bin/sh -c, verbatim" },
	{ CONF_SEC_JOB, "description", CONF_T_STRING, 0, 0, NULL, 0,
	    J(description), "free text shown by tickctl" },
	{ CONF_SEC_JOB, "timezone", CONF_T_ZONE, 0, 0, NULL, 0,
	    J(timezone), "zone whose wall clock the schedule follows" },
	{ CONF_SEC_JOB, "dst_gap", CONF_T_GAP, 0, 0, NULL, 0, J(gap),
	    "nominal times that do not exist: shift or skip" },
	{ CONF_SEC_JOB, "dst_fold", CONF_T_FOLD, 0, 0, NULL, 0, J(fold),
	    "nominal times that exist twice: first, second or both" },
	{ CONF_SEC_JOB, "user", CONF_T_NAME, 0, 0, NULL, 0, J(user),
	    "user the command runs as (tickd must be root)" },
	{ CONF_SEC_JOB, "group", CONF_T_NAME, 0, 0, NULL, 0, J(group),
	    "primary group (default: the user's)" },
	{ CONF_SEC_JOB, "workdir", CONF_T_ABSPATH, 0, 0, NULL, 0,
	    J(workdir), "working directory (default: the user's home)" },
	{ CONF_SEC_JOB, "environment", CONF_T_ENV, 0, 0, NULL, 0, J(env),
	    "NAME=value, one per line or key; repeatable" },
	{ CONF_SEC_JOB, "random_delay", CONF_T_DURATION, 0, SECS(86400) * 7,
	    "0", 0, J(random_delay), "stable per-instance delay, at most "
	    "this long" },
	{ CONF_SEC_JOB, "enabled", CONF_T_BOOL, 0, 0, "yes", 0, J(enabled),
	    "no: the job is loaded but never scheduled" },
};

const size_t conf_nkeys = sizeof conf_keys / sizeof conf_keys[0];

/* The key called name in a section, or NULL. */
const struct conf_key *
conf_key_find(enum conf_section section, const char *name)
{
	size_t i;

	for (i = 0; i < conf_nkeys; i++) {
		if (conf_keys[i].section == section &&
		    strcmp(conf_keys[i].name, name) == 0)
			return &conf_keys[i];
	}
	return NULL;
}

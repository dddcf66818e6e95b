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
#define P(field)	(CONF_IN_POLICY + offsetof(struct job_policy, field))
#define SECS(x)		((int64_t)(x))

const struct conf_key conf_keys[] = {
	/* [daemon] in tickd.conf */
	{ CONF_SEC_DAEMON, "jobs_dir", CONF_T_PATH, 0, 0,
	    TICKD_SYSCONFDIR "/tickd/jobs.d", 0, D(jobs_dir),
	    "directory of *.job files" },
	{ CONF_SEC_DAEMON, "state", CONF_T_STATE, 0, 0,
	    "/var/lib/tickd/tickd.db", 0, D(state),
	    "SQLite database of runs, attempts and decisions, or a "
	    "PostgreSQL server's (postgresql://...)" },
	{ CONF_SEC_DAEMON, "timezone", CONF_T_ZONE, 0, 0, NULL, 0,
	    D(timezone), "default time zone of jobs (default: the system's)" },
	{ CONF_SEC_DAEMON, "node", CONF_T_NAME, 0, 0, NULL, 0, D(node),
	    "this daemon's name among those sharing a server's database "
	    "(default: the host name)" },
	{ CONF_SEC_DAEMON, "max_clock_skew", CONF_T_DURATION, 0, SECS(3600),
	    "2s", 0, D(max_clock_skew), "with a server's database: no claim "
	    "while this clock is further than this from the server's" },
	{ CONF_SEC_DAEMON, "lease", CONF_T_DURATION, SECS(5), SECS(86400),
	    "60s", 0, D(lease), "how long a claim on a run lasts unrenewed" },
	{ CONF_SEC_DAEMON, "max_running", CONF_T_COUNT, 1, 100000, "256", 0,
	    D(max_running), "most job processes running at once" },
	{ CONF_SEC_DAEMON, "log_level", CONF_T_LOG_LEVEL, 0, 0, "info", 0,
	    D(log_level), "error, warning, notice, info or debug" },
	{ CONF_SEC_DAEMON, "control", CONF_T_PATH, 0, 0,
	    "/run/tickd/tickd.sock", 0, D(control),
	    "Unix socket through which tickctl steers the daemon" },
	{ CONF_SEC_DAEMON, "metrics_listen", CONF_T_LISTEN, 0, 0, NULL, 0,
	    D(metrics_listen), "serve GET /metrics (Prometheus) at this "
	    "ADDRESS:PORT; a bare port is loopback only (default: off)" },
	{ CONF_SEC_DAEMON, "history_keep", CONF_T_COUNT, 10, 10000000,
	    "1000", 0, D(history_keep), "finished instances kept per job "
	    "(failed and dead ones until replayed or too old)" },
	{ CONF_SEC_DAEMON, "history_max_age", CONF_T_DURATION, SECS(3600),
	    SECS(86400) * 3660, "90d", 0, D(history_max_age),
	    "instances older than this are deleted, whatever their status" },
	{ CONF_SEC_DAEMON, "strict_exec", CONF_T_BOOL, 0, 0, "no", 0,
	    D(strict_exec), "default of the jobs' strict_exec: refuse, not "
	    "only warn about, root jobs whose program others could change" },
	{ CONF_SEC_DAEMON, "cgroup", CONF_T_CGROUP, 0, 0, NULL, 0, D(cgroup),
	    "cgroup v2 subtree for the jobs, or none (default: the one tickd "
	    "is started in)" },

	/* [<job id>] in a job file */
	{ CONF_SEC_JOB, "schedule", CONF_T_SCHEDULE, 0, 0, NULL, 1,
	    J(schedule), "cron expression or macro, every DURATION, after "
	    "DURATION" },
	{ CONF_SEC_JOB, "cron_dialect", CONF_T_DIALECT, 0, 0, NULL, 0,
	    J(cron_dialect), "how the schedule's cron expression reads: cron "
	    "(default) or quartz (Quartz 2.3: seconds first, ?, L, W, #, "
	    "years)" },
	{ CONF_SEC_JOB, "command", CONF_T_COMMAND, 0, 0, NULL, 0,
	    J(command), "run as /bin/sh -c would, verbatim (without a shell "
	    "when it has no shell syntax); this or exec is required" },
	{ CONF_SEC_JOB, "exec", CONF_T_EXEC, 0, 0, NULL, 0, J(exec),
	    "a program and its arguments, split as systemd's ExecStart=, "
	    "never a shell; instead of command" },
	{ CONF_SEC_JOB, "only_if", CONF_T_COMMAND, 0, 0, NULL, 0,
	    J(only_if), "a command run before each attempt, as the job: "
	    "exit 0 runs it, 1-254 skips the instance (reason condition)" },
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
	    "0", 0, P(random_delay), "stable per-instance delay, at most "
	    "this long" },
	{ CONF_SEC_JOB, "enabled", CONF_T_BOOL, 0, 0, "yes", 0, J(enabled),
	    "no: the job is loaded but never scheduled" },
	{ CONF_SEC_JOB, "strict_exec", CONF_T_BOOL, 0, 0, NULL, 0,
	    J(strict_exec), "yes: a root job whose program others could "
	    "change is an error, not a warning (default: [daemon] "
	    "strict_exec)" },

	/* Policies. */
	{ CONF_SEC_JOB, "overlap", CONF_T_OVERLAP, 0, 0, "skip", 0,
	    P(overlap), "an instance due while one runs: skip, queue, allow "
	    "or replace" },
	{ CONF_SEC_JOB, "queue_limit", CONF_T_COUNT, 1, 1000, "3", 0,
	    P(queue_limit), "overlap = queue: instances waiting at most" },
	{ CONF_SEC_JOB, "max_parallel", CONF_T_COUNT, 1, 1000, "4", 0,
	    P(max_parallel), "overlap = allow: instances running at most" },
	{ CONF_SEC_JOB, "misfire", CONF_T_MISFIRE, 0, 0, "run_once", 0,
	    P(misfire), "instances found late: run_once, catch_up or skip" },
	{ CONF_SEC_JOB, "misfire_grace", CONF_T_DURATION, SECS(1),
	    SECS(86400) * 7, "60s", 0, P(misfire_grace),
	    "how late an instance may start and still be on time" },
	{ CONF_SEC_JOB, "catch_up_limit", CONF_T_COUNT, 1, 10000, "100", 0,
	    P(catch_up_limit), "misfire = catch_up: the newest this many "
	    "run" },
	{ CONF_SEC_JOB, "retries", CONF_T_COUNT, 0, 100, "0", 0, P(retries),
	    "attempts after a failed one" },
	{ CONF_SEC_JOB, "retry_delay", CONF_T_DURATION, SECS(1),
	    SECS(86400), "30s", 0, P(retry_delay), "wait before the first "
	    "retry, doubled for each next one" },
	{ CONF_SEC_JOB, "retry_delay_max", CONF_T_DURATION, SECS(1),
	    SECS(86400) * 7, "1h", 0, P(retry_delay_max),
	    "the longest wait between attempts" },
	{ CONF_SEC_JOB, "retry_on_exit", CONF_T_EXIT_CODES, 0, 0, "any", 0,
	    P(retry_on_exit), "any, or the exit codes that are transient" },
	{ CONF_SEC_JOB, "timeout", CONF_T_DURATION, 0, SECS(86400) * 30,
	    "0", 0, P(timeout), "longest run before it is stopped (0: none)" },
	{ CONF_SEC_JOB, "kill_signal", CONF_T_SIGNAL, 0, 0, "TERM", 0,
	    P(kill_signal), "signal that asks a run to stop" },
	{ CONF_SEC_JOB, "kill_grace", CONF_T_DURATION, SECS(1), SECS(3600),
	    "10s", 0, P(kill_grace), "wait after kill_signal before SIGKILL" },
	{ CONF_SEC_JOB, "recover", CONF_T_RECOVER, 0, 0, "rerun", 0,
	    P(recover), "an instance interrupted by a tickd crash: rerun or "
	    "abandon" },
	{ CONF_SEC_JOB, "shards", CONF_T_STRING, 0, 0, NULL, 0, J(shards),
	    "a batch: N shards (0..N-1), or a list of their parameters "
	    "(a, b, c)" },
	{ CONF_SEC_JOB, "shards_from", CONF_T_COMMAND, 0, 0, NULL, 0,
	    J(shards_from), "a batch: a command printing one shard's "
	    "parameter per line, run once per instance" },
	{ CONF_SEC_JOB, "shard_parallel", CONF_T_COUNT, 1, 10000, NULL, 0,
	    P(shard_parallel), "shards of one instance running at most at "
	    "once (default: all)" },
	{ CONF_SEC_JOB, "batch_timeout", CONF_T_DURATION, 0, SECS(86400) * 30,
	    "0", 0, P(batch_timeout), "longest run of a batch instance, its "
	    "shards stopped after it (0: none)" },
	{ CONF_SEC_JOB, "on_failure", CONF_T_COMMAND, 0, 0, NULL, 0,
	    J(on_failure), "command run once per failed or dead instance" },
	{ CONF_SEC_JOB, "on_failure_timeout", CONF_T_DURATION, SECS(1),
	    SECS(86400), "5m", 0, P(on_failure_timeout),
	    "longest run of on_failure" },
	{ CONF_SEC_JOB, "expect_success_within", CONF_T_DURATION, 0,
	    SECS(86400) * 366, "0", 0, P(expect_success_within),
	    "alert when no run succeeded for this long (0: never)" },
	{ CONF_SEC_JOB, "output_keep", CONF_T_SIZE, 0, 1024 * 1024, "64k", 0,
	    P(output_keep), "bytes of an attempt's output kept in the store "
	    "(0: none)" },
	/* Resource limits of each attempt's cgroup: systemd's meaning. */
	{ CONF_SEC_JOB, "memory_max", CONF_T_MEMORY, 0, 0, NULL, 0,
	    P(limits.memory_max), "hard memory limit: past it the job is "
	    "killed as oom (MemoryMax=)" },
	{ CONF_SEC_JOB, "memory_high", CONF_T_MEMORY, 0, 0, NULL, 0,
	    P(limits.memory_high), "memory above which the job is throttled "
	    "and reclaimed (MemoryHigh=)" },
	{ CONF_SEC_JOB, "cpu_weight", CONF_T_COUNT, 1, 10000, NULL, 0,
	    P(limits.cpu_weight), "share of CPU against other cgroups, "
	    "1-10000, default 100 (CPUWeight=)" },
	{ CONF_SEC_JOB, "cpu_max", CONF_T_QUOTA, 0, 0, NULL, 0,
	    P(limits.cpu_quota), "CPU time per second, as a percentage of one "
	    "CPU: 50%, 200% (CPUQuota=)" },
	{ CONF_SEC_JOB, "tasks_max", CONF_T_TASKS, 1, 4194304, NULL, 0,
	    P(limits.tasks_max), "most processes and threads at once "
	    "(TasksMax=)" },
	{ CONF_SEC_JOB, "io_weight", CONF_T_COUNT, 1, 10000, NULL, 0,
	    P(limits.io_weight), "share of block I/O, 1-10000, default 100 "
	    "(IOWeight=)" },
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

/*
 * ctl-ctx.c -- what tickctl commands share: the configuration, the store
 * (read-only), whether the daemon runs, and small helpers for errors.
 *
 * Everything is loaded on first use and kept in struct ctl_ctx for the
 * rest of the run.  The configuration is loaded with conf_load, exactly
 * as the daemon loads it; its causes are kept for "check".  The store is
 * opened read-only through store_query.c.
 *
 * Whether the daemon runs: a running tickd holds an exclusive flock on
 * "<state>.lock" and has written its pid there.  The lock is looked up in
 * /proc/locks (by device and inode, or by inode and that pid), which
 * takes no lock of its own: probing with flock(LOCK_SH | LOCK_NB) would,
 * for an instant, make a daemon starting at that moment fail to take
 * its lock and exit ("state is in use"), and tests poll "tickctl status"
 * while a daemon starts.  The flock probe is only the fallback when
 * /proc/locks cannot be read.
 *
 * /proc/locks is not a snapshot: the kernel produces it a page at a time
 * by position, so a lock released between two reads shifts the rest and
 * one entry is skipped, the daemon's among them (with 20 tickctl clients'
 * SQLite locks churning, 3% of reads missed a held flock).  A lock not
 * found while the pid in the lock file lives is looked up again, up to
 * CTL_LOCK_TRIES times in all.
 *
 * DIAGNOSTICS: ctl_ctx_conf, ctl_ctx_store and ctl_ctx_job print one
 * line "tickctl: ..." on stderr and return NULL; the _quiet variants
 * print nothing.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "conf.h"
#include "ctl.h"
#include "store_query.h"
#include "xmalloc.h"

#define CTL_LOCK_TRIES	20	/* /proc/locks reads while the pid lives */

/* Print "tickctl: <message>" on stderr. */
void
ctl_error(const char *fmt, ...)
{
	va_list ap;

	(void)fputs("tickctl: ", stderr);
	va_start(ap, fmt);
	(void)vfprintf(stderr, fmt, ap);
	va_end(ap);
	(void)fputc('\n', stderr);
}

/* Set up the context of the global options (config may be NULL). */
void
ctl_ctx_init(struct ctl_ctx *ctx, const char *config, int json)
{
	const char *env;

	memset(ctx, 0, sizeof *ctx);
	if (config == NULL && (env = getenv("TICKD_CONFIG")) != NULL &&
	    *env != '\0')
		config = env;
	ctx->config = config != NULL ? config : CONF_DEFAULT_PATH;
	ctx->json = json;
	ctx->now_ms = clock_wall_ms();
}

/* Release what the context loaded. */
void
ctl_ctx_free(struct ctl_ctx *ctx)
{
	store_query_close(ctx->store);
	free(ctx->store_cause);
	conf_free(ctx->conf);
	conf_causes_free(&ctx->causes);
	memset(ctx, 0, sizeof *ctx);
}

/*
 * Load the configuration again as the daemon reads it when it runs as
 * another user than tickctl (the store says as whom it last started):
 * as root, job files must be root's and jobs may name any user; a job
 * naming none runs as the daemon's user.
 */
static void
ctl_ctx_conf_as_daemon(struct ctl_ctx *ctx)
{
	char		*uid = NULL, *gid = NULL, *cause = NULL, *end;
	long		 u, g;

	ctx->as_uid = geteuid();
	ctx->as_gid = getegid();
	if (ctx->conf == NULL || ctl_ctx_store_quiet(ctx) == NULL ||
	    store_query_meta(ctx->store, "uid", &uid, &cause) != 1 ||
	    store_query_meta(ctx->store, "gid", &gid, &cause) != 1)
		goto out;
	u = strtol(uid, &end, 10);
	if (*end != '\0' || u < 0)
		goto out;
	g = strtol(gid, &end, 10);
	if (*end != '\0' || g < 0 || ((uid_t)u == ctx->as_uid &&
	    (gid_t)g == ctx->as_gid))
		goto out;
	ctx->as_uid = (uid_t)u;
	ctx->as_gid = (gid_t)g;
	conf_free(ctx->conf);
	conf_causes_free(&ctx->causes);
	ctx->conf = conf_load_with(ctx->config, ctx->as_uid, ctx->as_gid,
	    store_query_controllers, NULL, &ctx->causes);
out:
	free(uid);
	free(gid);
	free(cause);	/* an old store without them: tickctl's own ids */
}

/*
 * The configuration, loaded on first use; NULL (nothing printed) when
 * tickd.conf itself is unusable.  Its causes are in ctx->causes.
 */
struct conf *
ctl_ctx_conf_quiet(struct ctl_ctx *ctx)
{
	if (!ctx->conf_tried) {
		ctx->conf_tried = 1;
		/* The jobs' limits against what the daemon can enforce. */
		ctx->conf = conf_load_with(ctx->config, geteuid(), getegid(),
		    store_query_controllers, NULL, &ctx->causes);
		ctl_ctx_conf_as_daemon(ctx);
	}
	return ctx->conf;
}

/* The configuration; NULL with one line on stderr when it is invalid. */
struct conf *
ctl_ctx_conf(struct ctl_ctx *ctx)
{
	if (ctl_ctx_conf_quiet(ctx) != NULL)
		return ctx->conf;
	if (ctx->causes.n == 0)
		ctl_error("config %s is invalid", ctx->config);
	else if (ctx->causes.n == 1)
		ctl_error("config %s is invalid: %s", ctx->config,
		    ctx->causes.v[0]);
	else
		ctl_error("config %s is invalid: %s (and %zu more problems: "
		    "see tickctl check)", ctx->config, ctx->causes.v[0],
		    ctx->causes.n - 1);
	return NULL;
}

/*
 * The store, opened read-only on first use; NULL (nothing printed) when
 * the configuration or the store is unusable: the reason is then in
 * ctx->store_cause (or the configuration's causes).
 */
struct store_query *
ctl_ctx_store_quiet(struct ctl_ctx *ctx)
{
	char *cause = NULL;

	if (ctx->store_tried)
		return ctx->store;
	ctx->store_tried = 1;
	if (ctl_ctx_conf_quiet(ctx) == NULL) {
		ctx->store_cause = xasprintf("config %s is invalid",
		    ctx->config);
		return NULL;
	}
	if ((ctx->store = store_query_open(ctx->conf->state,
	    &cause)) == NULL) {
		ctx->store_cause = xasprintf("state %s: %s",
		    ctx->conf->state, cause);
		free(cause);
	}
	return ctx->store;
}

/* The store; NULL with one line on stderr when it cannot be read. */
struct store_query *
ctl_ctx_store(struct ctl_ctx *ctx)
{
	if (ctl_ctx_conf(ctx) == NULL)
		return NULL;
	if (ctl_ctx_store_quiet(ctx) == NULL)
		ctl_error("%s%s", ctx->store_cause,
		    access(ctx->conf->state, F_OK) == -1 && errno == ENOENT ?
		    "; is tickd installed and has it run?" : "");
	return ctx->store;
}

/* The pid written in the lock file open as fd, 0 if none. */
static long
ctl_lock_pid(int fd)
{
	char	buf[32];
	ssize_t	n;
	long	pid;

	n = pread(fd, buf, sizeof buf - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	pid = strtol(buf, NULL, 10);
	return pid > 0 ? pid : 0;
}

/*
 * Whether /proc/locks shows an exclusive flock on the file sb describes:
 * 1 yes (*holder: its pid), 0 no, -1 when /proc/locks cannot be read.
 * On overlay file systems the device in /proc/locks may not be the one
 * stat reports: an entry with the same inode held by the pid the lock
 * file names counts too.
 */
static int
ctl_proc_locks(const struct stat *sb, long pid, long *holder)
{
	FILE		*f;
	char		 line[256], type[16], rw[16];
	unsigned int	 maj, min;
	unsigned long	 ino;
	long		 lpid;
	int		 found = 0;

	if ((f = fopen("/proc/locks", "re")) == NULL)
		return -1;
	while (!found && fgets(line, sizeof line, f) != NULL) {
		/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5312437 0 EOF";
		 * waiters have "->" after the number and are skipped. */
		if (strstr(line, "->") != NULL)
			continue;
		if (sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%lu", type, rw,
		    &lpid, &maj, &min, &ino) != 6)
			continue;
		if (strcmp(type, "FLOCK") != 0 || strcmp(rw, "WRITE") != 0 ||
		    ino != (unsigned long)sb->st_ino)
			continue;
		if ((maj == major(sb->st_dev) && min == minor(sb->st_dev)) ||
		    (pid > 0 && lpid == pid)) {
			*holder = lpid;
			found = 1;
		}
	}
	(void)fclose(f);
	return found;
}

/*
 * Whether a daemon holds the store's lock, and its pid.  Needs the
 * configuration; when it is unusable the daemon is reported as not
 * running (with lock empty).
 */
const struct ctl_daemon *
ctl_ctx_daemon(struct ctl_ctx *ctx)
{
	struct ctl_daemon	*d = &ctx->daemon;
	struct stat		 sb;
	long			 holder = 0;
	int			 fd = -1, rc, tries = 0;

	if (ctx->daemon_tried)
		return d;
	ctx->daemon_tried = 1;
	if (ctl_ctx_conf_quiet(ctx) == NULL)
		return d;
	(void)snprintf(d->lock, sizeof d->lock, "%s.lock", ctx->conf->state);
	/* stat, not open: the file is 0600, tickctl may be another user. */
	if (stat(d->lock, &sb) == -1)
		return d;	/* no lock file: tickd never ran here */
	if ((fd = open(d->lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) != -1)
		d->pid = ctl_lock_pid(fd);
	do
		rc = ctl_proc_locks(&sb, d->pid, &holder);
	while (rc == 0 && d->pid > 0 && ++tries < CTL_LOCK_TRIES &&
	    (kill((pid_t)d->pid, 0) == 0 || errno == EPERM));
	if (rc == -1 && fd != -1) {
		/* No /proc: probe with a shared lock (see the top). */
		if (flock(fd, LOCK_SH | LOCK_NB) == -1)
			d->running = errno == EWOULDBLOCK;
		else
			(void)flock(fd, LOCK_UN);
	} else if (rc == 1) {
		d->running = 1;
		if (holder > 0)
			d->pid = holder;
	}
	if (!d->running)
		d->pid = 0;
	if (fd != -1)
		(void)close(fd);
	return d;
}

/*
 * A count the running daemon wrote in the store's meta table (key "jobs"
 * or "jobs_in_error"), or -1 when no daemon runs, the store cannot be
 * read, the meta is another daemon's (its "pid") or the value is not a
 * count.
 */
int64_t
ctl_ctx_meta_count(struct ctl_ctx *ctx, const char *key)
{
	const struct ctl_daemon	*dm = ctl_ctx_daemon(ctx);
	struct store_query	*q = ctl_ctx_store_quiet(ctx);
	char			*pid = NULL, *v = NULL, *cause = NULL;
	char			*end;
	int64_t			 n = -1;

	if (q != NULL && dm->running &&
	    store_query_meta(q, "pid", &pid, &cause) == 1 &&
	    atol(pid) == dm->pid &&
	    store_query_meta(q, key, &v, &cause) == 1) {
		n = strtoll(v, &end, 10);
		if (end == v || *end != '\0' || n < 0)
			n = -1;
	}
	free(pid);
	free(v);
	free(cause);
	return n;
}

/* Whether id is a job of conf that is present but invalid. */
int
ctl_conf_bad_id(const struct conf *c, const char *id)
{
	size_t i;

	for (i = 0; i < c->nbad_ids; i++) {
		if (strcmp(c->bad_ids[i], id) == 0)
			return 1;
	}
	return 0;
}

/*
 * The configured job id, for command cmd.  NULL with one line on stderr
 * and *rc set when there is none: CTL_EXIT_USAGE for an unknown job,
 * CTL_EXIT_FAIL for an invalid one or an invalid configuration.
 */
const struct job_def *
ctl_ctx_job(struct ctl_ctx *ctx, const char *cmd, const char *id, int *rc)
{
	const struct job_def	*d;
	const char		*where = NULL;
	size_t			 i;

	*rc = CTL_EXIT_FAIL;
	if (ctl_ctx_conf(ctx) == NULL)
		return NULL;
	if ((d = conf_job(ctx->conf, id)) != NULL)
		return d;
	for (i = 0; i < ctx->conf->nbad_ids; i++) {
		if (strcmp(ctx->conf->bad_ids[i], id) == 0)
			where = ctx->conf->bad_where[i];
	}
	if (where != NULL) {
		ctl_error("%s: job \"%s\" (%s) is invalid: see tickctl check",
		    cmd, id, where);
		return NULL;
	}
	*rc = CTL_EXIT_USAGE;
	ctl_error("%s: unknown job \"%s\" (tickctl list shows the jobs of %s)",
	    cmd, id, ctx->config);
	return NULL;
}

/*
 * Report a getopt_long error of cmd (ch is ':' for a missing value, else
 * an unknown option); returns CTL_EXIT_USAGE.
 */
int
ctl_getopt_error(const struct ctl_cmd *cmd, int ch, char **argv)
{
	if (ch == ':')
		ctl_error("%s: %s needs a value (see tickctl %s --help)",
		    cmd->name, argv[optind - 1], cmd->name);
	else
		ctl_error("%s: unknown option \"%s\" (see tickctl %s --help)",
		    cmd->name, argv[optind - 1], cmd->name);
	return CTL_EXIT_USAGE;
}

/* Flush stdout; 0, or CTL_EXIT_FAIL with a message naming cmd. */
int
ctl_flush(const char *cmd)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		ctl_error("%s: stdout: %s", cmd, strerror(errno));
		return CTL_EXIT_FAIL;
	}
	return CTL_EXIT_OK;
}

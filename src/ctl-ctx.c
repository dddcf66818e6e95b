/*
 * ctl-ctx.c -- what tickctl commands share: the configuration, the store
 * (read-only), whether the daemon runs, and small helpers for errors.
 *
 * Everything is loaded on first use and kept in struct ctl_ctx for the
 * rest of the run.  The configuration is loaded with conf_load, exactly
 * as the daemon loads it; its causes are kept for "check".  The store is
 * opened read-only through store_query.c.
 *
 * Whether the daemon runs: statelock_held, which takes no lock.
 *
 * DIAGNOSTICS: ctl_ctx_conf, ctl_ctx_store and ctl_ctx_job print one
 * line "tickctl: ..." on stderr and return NULL; the _quiet variants
 * print nothing.
 */

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "conf.h"
#include "ctl.h"
#include "statelock.h"
#include "store_query.h"
#include "xmalloc.h"


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
	job_def_free(ctx->daemon_job);
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
	char *cause = NULL, node[CONF_NODE_MAX];

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
		return NULL;
	}
	conf_node(ctx->conf, node, sizeof node);	/* this host's daemon */
	store_query_scope(ctx->store, node);
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

/*
 * Whether a daemon holds the state database's lock (statelock.c), and
 * its pid.  Needs the configuration; when it is unusable the daemon is
 * reported as not running (with lock empty).
 */
const struct ctl_daemon *
ctl_ctx_daemon(struct ctl_ctx *ctx)
{
	struct ctl_daemon	*d = &ctx->daemon;
	char			*lock;

	if (ctx->daemon_tried)
		return d;
	ctx->daemon_tried = 1;
	if (ctl_ctx_conf_quiet(ctx) == NULL)
		return d;
	lock = conf_state_lock(ctx->conf);
	(void)snprintf(d->lock, sizeof d->lock, "%s", lock);
	d->running = statelock_held(lock, &d->pid);
	free(lock);
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
 * The definition the running daemon keeps for id, whose file is invalid
 * now (where: its "file:line", NULL if the files hold no id at all, as
 * when the file cannot be read): asked over the control socket
 * ("define") and built as the daemon built it (conf_job_parse), with a
 * note on stderr.  NULL when no daemon runs it, or, with *failed set and
 * one line on stderr, when its text no longer makes a job here (a user
 * or zone gone since the daemon loaded it).
 */
static const struct job_def *
ctl_ctx_daemon_job(struct ctl_ctx *ctx, const char *cmd, const char *id,
    const char *where, int *failed)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct ctl_reply	 r;
	struct job_def		*d = NULL;
	char			*text = NULL, *t, at[PATH_MAX + 16];
	size_t			 i, n = 0;

	memset(&r, 0, sizeof r);
	if (!ctl_ctx_daemon(ctx)->running || ctl_request(ctx, &r, "define %s",
	    id) != 0)
		goto out;
	for (i = 0; i < r.nlines; i++)
		n += strlen(r.lines[i]) + 1;
	t = text = xmalloc(n + 1);
	for (i = 0; i < r.nlines; i++)
		t += sprintf(t, "%s\n", r.lines[i]);
	*t = '\0';
	if ((d = conf_job_parse(ctx->conf, ctl_reply_text(&r), text,
	    &causes)) == NULL) {
		ctl_error("%s: job \"%s\": the daemon runs a definition tickctl "
		    "cannot load as it stands now: %s", cmd, id, causes.n > 0 ?
		    causes.v[0] : "no job in it");
		*failed = 1;
		goto out;
	}
	ctl_error("%s: job \"%s\": the daemon runs its previous definition "
	    "(%s): %s%s%s", cmd, id, job_def_where(d, at, sizeof at),
	    where != NULL ?
	    "the file's is invalid (" : "the files do not define it now",
	    where != NULL ? where : "", where != NULL ? "): see tickctl check" :
	    " (see tickctl check)");
	job_def_free(ctx->daemon_job);
	ctx->daemon_job = d;
out:
	ctl_reply_free(&r);
	conf_causes_free(&causes);
	free(text);
	return d;
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
	int			 failed = 0;

	*rc = CTL_EXIT_FAIL;
	if (ctl_ctx_conf(ctx) == NULL)
		return NULL;
	if ((d = conf_job(ctx->conf, id)) != NULL)
		return d;
	for (i = 0; i < ctx->conf->nbad_ids; i++) {
		if (strcmp(ctx->conf->bad_ids[i], id) == 0)
			where = ctx->conf->bad_where[i];
	}
	/* The files are not what the daemon runs: it kept the previous. */
	if ((where != NULL || ctx->conf->nbad_files > 0 ||
	    ctx->conf->jobs_dir_failed) && conf_id_valid(id) &&
	    ((d = ctl_ctx_daemon_job(ctx, cmd, id, where, &failed)) != NULL ||
	    failed))
		return d;
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

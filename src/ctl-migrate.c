/*
 * ctl-migrate.c -- "tickctl migrate-state": copy the configuration's
 * state into another one, so that a host moves to a PostgreSQL database
 * that nodes share (or back to a SQLite file) without running again or
 * forgetting anything.
 *
 *   tickctl migrate-state [--merge] [--node NAME] --to STATE
 *
 * STATE is a SQLite file or a PostgreSQL connection string, as the
 * "state" setting takes.  The copy (store_copy: jobs with their cursors
 * and pauses, runs, attempts, decisions, with the same ids) goes into a
 * destination that holds no job and no run, in one transaction; with
 * --merge, into one that has a history (a cluster's): what the
 * destination records of an instance wins, the rest is added.
 * Instances that were running are given to the node that will settle
 * them when it starts (NAME, default this host's node name: the
 * configuration's "node", or the host name), on PostgreSQL.
 *
 * Refused while a daemon holds the state (its lock), or, from a
 * PostgreSQL state, while a node beat within three leases: their records
 * would change under the copy.  The configuration is not changed: point
 * "state" at the destination, then start tickd.
 *
 * DIAGNOSTICS: usage errors exit 2; a refusal or a failed copy exits 1
 * with one line, the destination unchanged.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctl.h"
#include "db_pg.h"
#include "store.h"
#include "store_query.h"
#include "xmalloc.h"

static int	ctl_migrate_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_migrate_cmd = {
	"migrate-state",
	"[--merge] [--node NAME] --to STATE",
	"copy this state (history, pauses, cursors) into another one",
	ctl_migrate_exec,
};

/* A live node of a PostgreSQL source, into buf; 0 when none, -1. */
static int
ctl_migrate_live(struct ctl_ctx *ctx, const struct conf *c, char *buf,
    size_t len)
{
	struct store_query	*q;
	struct store_query_node	*v = NULL;
	char			*cause = NULL;
	size_t			 n = 0, i;
	int			 found = 0;

	if (!store_is_server(c->state))
		return 0;
	if ((q = ctl_ctx_store(ctx)) == NULL)
		return -1;
	if (store_query_nodes(q, &v, &n, &cause) == -1) {
		ctl_error("migrate-state: state %s: %s", c->state, cause);
		free(cause);
		return -1;
	}
	for (i = 0; i < n && !found; i++) {
		if (v[i].age_ms > c->lease * 3000)
			continue;
		(void)snprintf(buf, len, "%s (its heartbeat %" PRId64 " s ago)",
		    v[i].node, v[i].age_ms / 1000);
		found = 1;
	}
	store_query_nodes_free(v, n);
	return found;
}

/* Whether the source may be copied now; says why not. */
static int
ctl_migrate_quiet(struct ctl_ctx *ctx, const struct conf *c)
{
	const struct ctl_daemon	*dm = ctl_ctx_daemon(ctx);
	char			 node[CONF_NODE_MAX + 64];
	int			 rc;

	if (dm->running) {
		ctl_error("migrate-state: tickd (pid %ld) holds %s: stop it "
		    "first", dm->pid, dm->lock);
		return 0;
	}
	if ((rc = ctl_migrate_live(ctx, c, node, sizeof node)) == 1)
		ctl_error("migrate-state: node %s is live: stop every node "
		    "first", node);
	return rc == 0;
}

static int
ctl_migrate_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "node", required_argument, NULL, 'n' },
		{ "merge", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct store	*src = NULL, *dst = NULL;
	struct conf	*c;
	const char	*to = NULL, *node = NULL;
	char		*cause = NULL, host[CONF_NODE_MAX], *owner = NULL;
	int64_t		 n[STORE_COPY_TABLES];
	int		 ch, version, merge = 0, rc = CTL_EXIT_FAIL;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":t:n:mh", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 't':
			to = optarg;
			break;
		case 'n':
			node = optarg;
			break;
		case 'm':
			merge = 1;
			break;
		case 'h':
			(void)printf("usage: tickctl migrate-state %s\n",
			    ctl_migrate_cmd.usage);
			return CTL_EXIT_OK;
		default:
			return ctl_getopt_error(&ctl_migrate_cmd, ch, argv);
		}
	}
	if (to == NULL || optind < argc) {
		ctl_error("migrate-state: usage: tickctl migrate-state %s",
		    ctl_migrate_cmd.usage);
		return CTL_EXIT_USAGE;
	}
	if ((c = ctl_ctx_conf(ctx)) == NULL)
		return CTL_EXIT_FAIL;
	if (store_is_server(to) && db_pg_conninfo_check(to, &cause) == -1) {
		ctl_error("migrate-state: --to: %s", cause);
		free(cause);
		return CTL_EXIT_USAGE;
	}
	if (strcmp(to, c->state) == 0) {
		ctl_error("migrate-state: --to is this configuration's state");
		return CTL_EXIT_USAGE;
	}
	if (!ctl_migrate_quiet(ctx, c))
		return CTL_EXIT_FAIL;
	if ((src = store_open(c->state, 1, &cause)) == NULL) {
		ctl_error("migrate-state: state %s: %s", c->state, cause);
		goto out;
	}
	if ((version = store_version(src)) != STORE_SCHEMA_VERSION) {
		ctl_error("migrate-state: state %s: its schema is version %d, "
		    "this tickctl's %d: start this release's tickd on it once "
		    "(it migrates it), stop it, then migrate", c->state,
		    version, STORE_SCHEMA_VERSION);
		goto out;
	}
	if ((dst = store_open(to, 0, &cause)) == NULL) {
		ctl_error("migrate-state: --to %s: %s", to, cause);
		goto out;
	}
	if (store_is_server(to)) {	/* its running instances: the node's */
		if (node == NULL)
			conf_node(c, host, sizeof host);
		owner = xasprintf("%s:0", node != NULL ? node : host);
	}
	if (store_copy(src, dst, owner, merge, n, &cause) == -1) {
		ctl_error("migrate-state: --to %s: %s (nothing was copied)", to,
		    cause);
		goto out;
	}
	(void)printf("%s %" PRId64 " jobs, %" PRId64 " runs, %" PRId64
	    " attempts, %" PRId64 " decisions from %s %s %s\n", merge ?
	    "merged" : "copied", n[0], n[1], n[2], n[3], c->state, merge ?
	    "into" : "to", to);
	if (owner != NULL)
		(void)printf("instances that were running are node %.*s's to "
		    "settle when it starts\n", (int)(strlen(owner) - 2), owner);
	(void)printf("set state = %s in %s, then start tickd\n", to,
	    ctx->config);
	rc = CTL_EXIT_OK;
out:
	free(cause);
	free(owner);
	if (src != NULL)
		store_close(src);
	if (dst != NULL)
		store_close(dst);
	return rc;
}

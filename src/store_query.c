/*
 * store_query.c -- read-only queries of the store for tickctl.
 *
 * A struct store_query is a read-only SQLite connection of its own: it
 * never writes, never migrates, and never holds a lock a reader in WAL
 * mode does not take, so tickctl can run beside a busy daemon.  Each
 * query prepares its statement, steps it to the end and finalizes it:
 * tickctl asks a handful of questions per run, so nothing is kept.
 *
 * Opening: a database that is not there is an error (a reader must not
 * create it).  When neither "-wal" nor "-shm" exists, the last connection
 * closed cleanly and every page is in the main file: it is opened with
 * immutable=1, which reads it without creating those two files.  Otherwise
 * a reader would leave them behind, owned by whoever ran tickctl (root),
 * where a daemon running as another user could not open them.  A daemon
 * starting while such a read runs can only make it see the state from
 * before it started.  The schema must be version 2 or later: a newer one
 * only adds columns (never renames), so this reader keeps working;
 * attempts.output_tail and jobs.watch_since (migration 3) are used when
 * they exist.
 *
 * Derived figures: an instance's lateness is its first attempt's
 * (SQ_LATENESS: scheduling delay); its duration is its latest
 * attempt's run time (execution time).  Percentiles are nearest-rank.
 *
 * DIAGNOSTICS: every function returns -1 with *cause set (SQLite's
 * message) on failure; store_query_open returns NULL with *cause.
 * Nothing is logged or printed.
 */
#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "db.h"
#include "db_pg.h"
#include "db_sqlite.h"
#include "store.h"
#include "store_query.h"
#include "track.h"
#include "xmalloc.h"

#define SQ_BUSY_MS	2000	/* longest wait for a lock */
#define SQ_MIN_VERSION	2	/* the oldest schema this reader knows */

struct store_query {
	struct db	*db;
	char	*path;
	int	 version;	/* PRAGMA user_version */
	int	 has_output;	/* attempts.output_tail exists */
	int	 has_watch;	/* jobs.watch_since exists */
	int	 has_usage;	/* attempts.cpu_user_us exists (schema 6) */
	int	 has_batch;	/* runs.parent exists (schema 8) */
	char	*node;		/* meta keys are this node's (store_meta_scope) */
};

/*
 * An instance's lateness: its first attempt's, as the daemon recorded it
 * when the attempt started (start minus the moment it was due: the
 * instant, or a manual run's request, to the millisecond), so that the
 * log, show, history, stats and metrics agree.
 */
#define SQ_LATENESS							\
	"(SELECT f.lateness_ms FROM attempts f WHERE f.run = r.id "	\
	"ORDER BY f.attempt LIMIT 1)"

/*
 * The columns of a run instance, shared by every query that returns
 * struct store_query_run (sq_run_read reads them in this order).  The
 * latest attempt is joined as "a".
 */
#define SQ_RUN_COLS							\
	"r.id, 0, r.run_id, r.job, r.origin, r.trigger, r.status, "	\
	"r.reason, r.detail, r.scheduled_at, r.attempts, r.created_at, "\
	"r.started_at, r.finished_at, r.exit_status, r.signal, "	\
	"r.retry_at, a.duration_ms, a.pid, a.started_at, a.error, "	\
	"NULL, NULL, 1, r.scheduled_at AS k, " SQ_LATENESS ", "	\
	"$BATCH, $PARENT, $SHARD, $PRUN, r.owner"
#define SQ_RUN_FROM							\
	" FROM runs r LEFT JOIN attempts a ON a.run = r.id AND "	\
	"a.attempt = r.attempts"
/* The same columns for a decision row "d". */
#define SQ_DEC_COLS							\
	"d.id, 1, NULL, d.job, NULL, NULL, d.decision, d.reason, NULL, "\
	"NULL, 0, d.decided_at, NULL, NULL, NULL, NULL, NULL, NULL, "	\
	"NULL, NULL, NULL, d.first_at, d.last_at, d.count, "		\
	"coalesce(d.last_at, d.decided_at / 1000) AS k, NULL, 0, NULL, "\
	"NULL, NULL, NULL"

/* Statuses of instances that have not ended. */
#define SQ_WAITING	"('pending', 'queued', 'retrying', 'interrupted')"
#define SQ_UNENDED	"('pending', 'queued', 'running', 'retrying', " \
			"'interrupted')"

/*
 * The words of batches (schema 8) in a statement, and what they are
 * without them: "$TOP" keeps instances and plain runs (not shards).
 */
static const struct {
	const char	*word;
	const char	*batch;
	const char	*older;
} sq_words[] = {
	{ "$TOP", "parent IS NULL", "1 = 1" },
	{ "$RTOP", "r.parent IS NULL", "1 = 1" },
	{ "$BATCH", "CASE WHEN r.shards IS NOT NULL AND r.parent IS NULL "
	    "THEN 1 ELSE 0 END", "0" },
	{ "$PARENT", "r.parent", "NULL" },
	{ "$SHARD", "r.shard", "NULL" },
	{ "$PRUN", "(SELECT p.run_id FROM runs p WHERE p.id = r.parent)",
	    "NULL" },
};

/* sql with the words of sq_words replaced for q's schema (caller frees). */
static char *
sq_expand(const struct store_query *q, const char *sql)
{
	char	*out, *o;
	size_t	 i, n;

	/* No word grows more than 16 times (PRUN: 5 to 52). */
	out = o = xmalloc(strlen(sql) * 16 + 1);
	while (*sql != '\0') {
		for (i = 0; *sql == '$' &&
		    i < sizeof sq_words / sizeof sq_words[0]; i++) {
			n = strlen(sq_words[i].word);
			if (strncmp(sql, sq_words[i].word, n) == 0)
				break;
		}
		if (*sql != '$' || i == sizeof sq_words / sizeof sq_words[0]) {
			*o++ = *sql++;
			continue;
		}
		o = stpcpy(o, q->has_batch ? sq_words[i].batch :
		    sq_words[i].older);
		sql += n;
	}
	*o = '\0';
	return out;
}

/* Set *cause from the connection's last error; returns -1. */
static int
sq_fail(struct store_query *q, const char *what, char **cause)
{
	*cause = xasprintf("%s: %s", what, db_errmsg(q->db));
	return -1;
}

/* Prepare sql; 0, or -1 with *cause. */
static int
sq_prepare(struct store_query *q, const char *sql, struct db_stmt **st,
    char **cause)
{
	char	*x = sq_expand(q, sql);
	int	 rc;

	rc = db_prepare(q->db, x, st);
	free(x);
	if (rc == -1)
		return sq_fail(q, "cannot read", cause);
	return 0;
}

/* Column i as a new string (caller frees), or NULL when NULL. */
static char *
sq_text(struct db_stmt *st, int i)
{
	const char *t;

	if (db_column_null(st, i))
		return NULL;
	t = db_column_text(st, i);
	return xstrdup(t != NULL ? t : "");
}

/* Fill r from a row of SQ_RUN_COLS or SQ_DEC_COLS. */
static void
sq_run_read(struct db_stmt *st, struct store_query_run *r)
{
	memset(r, 0, sizeof *r);
	r->rowid = db_column_int64(st, 0);
	r->is_decision = db_column_int(st, 1);
	r->run_id = sq_text(st, 2);
	r->job = sq_text(st, 3);
	r->origin = sq_text(st, 4);
	r->trigger = sq_text(st, 5);
	r->status = sq_text(st, 6);
	r->reason = sq_text(st, 7);
	r->detail = sq_text(st, 8);
	r->scheduled_at = db_column_opt(st, 9);
	r->attempts = db_column_int(st, 10);
	r->created_ms = db_column_opt(st, 11);
	r->started_ms = db_column_opt(st, 12);
	r->finished_ms = db_column_opt(st, 13);
	r->exit_status = (int)db_column_opt(st, 14);
	r->signal = (int)db_column_opt(st, 15);
	r->retry_at = db_column_opt(st, 16);
	r->duration_ms = db_column_opt(st, 17);
	r->pid = db_column_opt(st, 18);
	r->attempt_started_ms = db_column_opt(st, 19);
	r->error = sq_text(st, 20);
	r->first_at = db_column_opt(st, 21);
	r->last_at = db_column_opt(st, 22);
	r->count = db_column_int64(st, 23);
	r->lateness_ms = db_column_opt(st, 25);
	r->batch = db_column_int(st, 26) != 0;
	r->parent = db_column_opt(st, 27);
	r->shard = (int)db_column_opt(st, 28);
	r->parent_run_id = sq_text(st, 29);
	r->owner = sq_text(st, 30);
}

/* Free the strings of one entry. */
static void
sq_run_clear(struct store_query_run *r)
{
	free(r->run_id);
	free(r->job);
	free(r->origin);
	free(r->trigger);
	free(r->status);
	free(r->reason);
	free(r->detail);
	free(r->error);
	free(r->parent_run_id);
	free(r->owner);
}

/*
 * Step st to the end, appending each row to *v (count *n) as a run
 * instance.  Finalizes st.  0, or -1 with *cause.
 */
static int
sq_runs_collect(struct store_query *q, struct db_stmt *st,
    struct store_query_run **v, size_t *n, char **cause)
{
	int rc;

	while ((rc = db_step(st)) == DB_ROW) {
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		sq_run_read(st, &(*v)[(*n)++]);
	}
	if (rc != DB_DONE) {
		(void)sq_fail(q, "cannot read", cause);
		db_finalize(st);
		return -1;
	}
	db_finalize(st);
	return 0;
}

/* Run a query that yields one integer (NULL: -1); 0, or -1 with *cause. */
static int
sq_int(struct store_query *q, const char *sql, const char *job,
    int64_t *out, char **cause)
{
	struct db_stmt	*st = NULL;
	int		 rc;

	*out = -1;
	if (sq_prepare(q, sql, &st, cause) == -1)
		return -1;
	db_bind_text(st, 1, job);
	rc = db_step(st);
	if (rc == DB_ROW)
		*out = db_column_opt(st, 0);
	else if (rc != DB_DONE) {
		(void)sq_fail(q, "cannot read", cause);
		db_finalize(st);
		return -1;
	}
	db_finalize(st);
	return 0;
}

/*
 * Whether sql (a probe of a table's columns, "... LIMIT 0") runs: a
 * server may only check a statement when it first runs.
 */
static int
sq_probe(struct store_query *q, const char *sql)
{
	struct db_stmt	*st = NULL;
	int		 ok;

	if (db_prepare(q->db, sql, &st) == -1)
		return 0;
	ok = db_step(st) == DB_DONE;
	db_finalize(st);
	return ok;
}

/* path as a file: URI with immutable=1 (caller frees). */
static char *
sq_immutable_uri(const char *path)
{
	static const char	 hex[] = "0123456789ABCDEF";
	const unsigned char	*p;
	char			*uri, *o;

	uri = xmalloc(strlen(path) * 3 + 32);
	o = uri + sprintf(uri, "file:");
	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		/* Everything but unreserved characters and '/' is escaped. */
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p) != NULL)
			*o++ = (char)*p;
		else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	(void)strcpy(o, "?immutable=1");
	return uri;
}

/* Whether path with suffix exists. */
static int
sq_exists(const char *path, const char *suffix)
{
	struct stat	 sb;
	char		*p = xasprintf("%s%s", path, suffix);
	int		 rc;

	rc = stat(p, &sb) == 0;
	free(p);
	return rc;
}

/*
 * Open the store at path read-only.  Returns a new query handle (caller
 * frees with store_query_close), or NULL with *cause set to one line
 * without the path ("cannot open: No such file or directory").
 */
struct store_query *
store_query_open(const char *path, char **cause)
{
	struct store_query	*q = xcalloc(1, sizeof *q);
	struct stat		 sb;
	struct db_stmt		*st = NULL;
	char			*uri = NULL, *why = NULL;

	q->path = xstrdup(path);
	if (store_is_server(path)) {
		if ((q->db = db_pg_open(path, SQ_BUSY_MS, &why)) == NULL) {
			*cause = xasprintf("cannot open: %s", why);
			free(why);
			goto fail;
		}
		/* Its version is in meta (store.c): none yet is no schema. */
		q->version = 0;
		if (db_prepare(q->db, "SELECT value FROM meta WHERE key = "
		    "'schema_version'", &st) == 0 && db_step(st) == DB_ROW &&
		    db_column_text(st, 0) != NULL)
			q->version = atoi(db_column_text(st, 0));
		db_finalize(st);
		st = NULL;
		goto opened;
	}
	if (stat(path, &sb) == -1 || access(path, R_OK) == -1) {
		*cause = xasprintf("cannot open: %s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		*cause = xasprintf("cannot open: not a regular file");
		goto fail;
	}
	if (!sq_exists(path, "-wal") && !sq_exists(path, "-shm")) {
		uri = sq_immutable_uri(path);
		q->db = db_sqlite_open(uri, DB_SQLITE_URI, SQ_BUSY_MS, &why);
	} else
		q->db = db_sqlite_open(path, 0, SQ_BUSY_MS, &why);
	if (q->db == NULL) {
		*cause = xasprintf("cannot open: %s", why);
		free(why);
		goto fail;
	}

	q->version = -1;
	if (db_prepare(q->db, "PRAGMA user_version", &st) == 0 &&
	    db_step(st) == DB_ROW)
		q->version = db_column_int(st, 0);
	db_finalize(st);
	if (q->version < 0) {
		*cause = xasprintf("cannot read: %s", db_errmsg(q->db));
		goto fail;
	}
opened:
	if (q->version == 0) {
		*cause = xasprintf("cannot read: not a tickd database (no "
		    "schema)");
		goto fail;
	}
	if (q->version < SQ_MIN_VERSION) {
		*cause = xasprintf("cannot read: schema version %d is older "
		    "than tickctl reads (%d): start tickd once to migrate it",
		    q->version, SQ_MIN_VERSION);
		goto fail;
	}
	if (!sq_probe(q, "SELECT r.run_id, r.retry_at, r.detail, "
	    "a.outcome, d.count, j.planned, m.value FROM runs r, attempts a, "
	    "decisions d, jobs j, meta m LIMIT 0")) {
		/* A damaged file is not "not a tickd database". */
		*cause = xasprintf("cannot read: %s%s", db_damaged(q->db) ?
		    "" : "not a tickd database: ",
		    db_errmsg(q->db));
		goto fail;
	}
	q->has_output = sq_probe(q, "SELECT output_tail FROM attempts "
	    "LIMIT 0");
	q->has_watch = sq_probe(q, "SELECT watch_since FROM jobs LIMIT 0");
	q->has_usage = sq_probe(q, "SELECT cpu_user_us, invocation FROM "
	    "attempts LIMIT 0");
	q->has_batch = sq_probe(q, "SELECT parent, shard, shards, checkpoint "
	    "FROM runs LIMIT 0");
	free(uri);
	return q;

fail:
	free(uri);
	store_query_close(q);
	return NULL;
}

/* Close; NULL is allowed. */
void
store_query_close(struct store_query *q)
{
	if (q == NULL)
		return;
	db_close(q->db);
	free(q->path);
	free(q->node);
	free(q);
}

/*
 * Read the meta values of node among the nodes of a server's database
 * (store_meta_scope); nothing on SQLite.
 */
void
store_query_scope(struct store_query *q, const char *node)
{
	free(q->node);
	q->node = db_kind(q->db) == DB_PG ? xstrdup(node) : NULL;
}

/* Whether attempts keep the tail of their output (schema 3 and later). */
int
store_query_has_output(const struct store_query *q)
{
	return q->has_output;
}

/* Whether runs can be batches and their shards (schema 8 and later). */
int
store_query_has_batch(const struct store_query *q)
{
	return q->has_batch;
}

/* The schema version of the database. */
int
store_query_version(const struct store_query *q)
{
	return q->version;
}

/*
 * A meta value: 1 found (*value is new, caller frees), 0 not found,
 * -1 with *cause.
 */
int
store_query_meta(struct store_query *q, const char *key, char **value,
    char **cause)
{
	struct db_stmt	*st = NULL;
	char		*scoped = NULL;
	int		 rc;

	*value = NULL;
	if (sq_prepare(q, "SELECT value FROM meta WHERE key = ?1", &st,
	    cause) == -1)
		return -1;
	if (q->node != NULL) {
		scoped = xasprintf("%s@%s", key, q->node);
		key = scoped;
	}
	db_bind_text(st, 1, key);
	rc = db_step(st);
	if (rc == DB_ROW)
		*value = sq_text(st, 0);
	else if (rc != DB_DONE)
		(void)sq_fail(q, "cannot read", cause);
	db_finalize(st);
	free(scoped);
	if (rc != DB_ROW && rc != DB_DONE)
		return -1;
	return *value != NULL;
}

/*
 * The nodes of a server's database, by name (none for a file): 0 (*v,
 * *n; caller frees with store_query_nodes_free), or -1 with *cause.
 */
int
store_query_nodes(struct store_query *q, struct store_query_node **v,
    size_t *n, char **cause)
{
	struct db_stmt		*st = NULL;
	struct store_query_node	*x;
	int			 rc;

	*v = NULL;
	*n = 0;
	if (db_kind(q->db) != DB_PG)
		return 0;
	if (sq_prepare(q, "SELECT node, heartbeat_at, CAST(floor(extract("
	    "epoch FROM clock_timestamp()) * 1000) AS bigint) - heartbeat_at, "
	    "clock_offset_ms, running, defs_hash FROM nodes ORDER BY node",
	    &st, cause) == -1)
		return -1;
	while ((rc = db_step(st)) == DB_ROW) {
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		x = &(*v)[(*n)++];
		x->node = sq_text(st, 0);
		x->heartbeat_ms = db_column_int64(st, 1);
		x->age_ms = db_column_int64(st, 2);
		x->offset_ms = db_column_int64(st, 3);
		x->running = db_column_int64(st, 4);
		x->defs_hash = sq_text(st, 5);
	}
	db_finalize(st);
	if (rc != DB_DONE) {
		store_query_nodes_free(*v, *n);
		*v = NULL;
		*n = 0;
		return sq_fail(q, "cannot read", cause);
	}
	return 0;
}

/*
 * Call fn with each job of node and its definition's hash (node_jobs),
 * by id in strcmp's order.  0 or -1 with *cause; nothing on SQLite.
 */
int
store_query_node_jobs(struct store_query *q, const char *node,
    void (*fn)(const char *, const char *, void *), void *arg, char **cause)
{
	struct db_stmt	*st = NULL;
	int		 rc;

	if (db_kind(q->db) != DB_PG)
		return 0;
	if (sq_prepare(q, "SELECT job, def_hash FROM node_jobs WHERE "
	    "node = ?1 ORDER BY job COLLATE \"C\"", &st, cause) == -1)
		return -1;
	db_bind_text(st, 1, node);
	while ((rc = db_step(st)) == DB_ROW)
		fn(db_column_text(st, 0), db_column_text(st, 1), arg);
	db_finalize(st);
	return rc == DB_DONE ? 0 : sq_fail(q, "cannot read", cause);
}

void
store_query_nodes_free(struct store_query_node *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].node);
		free(v[i].defs_hash);
	}
	free(v);
}

/*
 * What the jobs' limits of conf c may use, for tickd -n and tickctl
 * (conf_controllers_fn): what the daemon recorded in c's state at its
 * last start, or, without a record, what a configured cgroup gives; -1
 * when that cannot be known (track_controllers).
 */
int
store_query_controllers(const struct conf *c, char **tracking, void *arg)
{
	struct store_query	*q;
	char			*rec = NULL, *ctl = NULL, *cause = NULL;
	char			 node[CONF_NODE_MAX];
	int			 mask;

	(void)arg;
	if ((store_is_server(c->state) || access(c->state, F_OK) == 0) &&
	    (q = store_query_open(c->state, &cause)) != NULL) {
		conf_node(c, node, sizeof node);	/* this host's */
		store_query_scope(q, node);
		if (store_query_meta(q, "tracking", &rec, &cause) == 1)
			(void)store_query_meta(q, "controllers", &ctl, &cause);
		store_query_close(q);
	}
	mask = track_controllers(c->cgroup, rec, ctl, tracking);
	free(rec);
	free(ctl);
	free(cause);
	return mask;
}

/*
 * History entries matching f, newest first (by scheduled instant; a
 * decision range by its last instant), at most f->limit.  *v (count *n)
 * is new: caller frees with store_query_runs_free.  0, or -1 with *cause.
 */
int
store_query_history(struct store_query *q, const struct store_query_filter *f,
    struct store_query_run **v, size_t *n, char **cause)
{
	struct db_stmt	*st = NULL;
	char		 in[STORE_QUERY_STATUS_MAX * 6 + 8], *sql;
	size_t		 i, off = 0;

	*v = NULL;
	*n = 0;
	/* "IN (?10, ?11, ...)": one parameter per status. */
	in[0] = '\0';
	for (i = 0; i < f->nstatus && i < STORE_QUERY_STATUS_MAX; i++)
		off += (size_t)snprintf(in + off, sizeof in - off, "%s?%zu",
		    i > 0 ? ", " : "", i + 10);
	sql = xasprintf("SELECT " SQ_RUN_COLS SQ_RUN_FROM " WHERE "
	    "$RTOP AND (?1 IS NULL OR r.job = ?1) AND (?2 IS NULL OR "
	    "r.scheduled_at >= ?2)%s%s%s "
	    "UNION ALL SELECT " SQ_DEC_COLS " FROM decisions d "
	    "WHERE ?4 != 0 AND d.decision != 'on_failure' AND "
	    "(?1 IS NULL OR d.job = ?1) AND "
	    "(?2 IS NULL OR coalesce(d.last_at, d.decided_at / 1000) >= ?2)"
	    "%s%s%s "
	    "ORDER BY k DESC, 2, 1 DESC LIMIT ?3",
	    f->nstatus > 0 ? " AND r.status IN (" : "", in,
	    f->nstatus > 0 ? ")" : "",
	    f->nstatus > 0 ? " AND d.decision IN (" : "", in,
	    f->nstatus > 0 ? ")" : "");
	if (sq_prepare(q, sql, &st, cause) == -1) {
		free(sql);
		return -1;
	}
	free(sql);
	db_bind_text(st, 1, f->job);
	db_bind_opt(st, 2, f->since);
	db_bind_int64(st, 3, f->limit >= 0 ? f->limit : -1);
	db_bind_int64(st, 4, f->decisions != 0);
	for (i = 0; i < f->nstatus && i < STORE_QUERY_STATUS_MAX; i++)
		db_bind_text(st, (int)i + 10, f->status[i]);
	return sq_runs_collect(q, st, v, n, cause);
}

/* Free n entries and the array; NULL is allowed. */
void
store_query_runs_free(struct store_query_run *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && v != NULL; i++)
		sq_run_clear(&v[i]);
	free(v);
}

/*
 * The instance whose run id is id, or whose row id is id when id is all
 * digits, and its attempts, oldest first.  Returns 1 found (*run, one
 * entry, and *att, *natt are new: caller frees them with
 * store_query_runs_free(*run, 1) and store_query_attempts_free), 0 not
 * found, -1 with *cause.
 */
int
store_query_run(struct store_query *q, const char *id,
    struct store_query_run **run, struct store_query_attempt **att,
    size_t *natt, char **cause)
{
	struct store_query_attempt	*a;
	struct db_stmt			*st = NULL;
	const void			*blob;
	size_t				 n = 0;
	int64_t				 rowid = -1;
	int				 rc;

	*run = NULL;
	*att = NULL;
	*natt = 0;
	if (id[0] != '\0' && strspn(id, "0123456789") == strlen(id) &&
	    strlen(id) < 19)
		rowid = strtoll(id, NULL, 10);
	if (sq_prepare(q, "SELECT " SQ_RUN_COLS SQ_RUN_FROM " WHERE "
	    "r.run_id = ?1 OR r.id = ?2 ORDER BY r.run_id = ?1 DESC LIMIT 1",
	    &st, cause) == -1)
		return -1;
	db_bind_text(st, 1, id);
	db_bind_opt(st, 2, rowid);
	if (sq_runs_collect(q, st, run, &n, cause) == -1)
		return -1;
	if (n == 0)
		return 0;

	/* Columns an older schema lacks are NULL. */
	if (sq_prepare(q, q->has_usage ?
	    "SELECT attempt, trigger, pid, started_at, finished_at, "
	    "lateness_ms, duration_ms, exit_status, signal, outcome, error, "
	    "output_tail, cpu_user_us, cpu_system_us, mem_peak, usage_source, "
	    "cgroup, invocation FROM attempts WHERE run = ?1 ORDER BY attempt" :
	    q->has_output ?
	    "SELECT attempt, trigger, pid, started_at, finished_at, "
	    "lateness_ms, duration_ms, exit_status, signal, outcome, error, "
	    "output_tail, NULL, NULL, NULL, NULL, NULL, NULL FROM attempts "
	    "WHERE run = ?1 ORDER BY attempt" :
	    "SELECT attempt, trigger, pid, started_at, finished_at, "
	    "lateness_ms, duration_ms, exit_status, signal, outcome, error, "
	    "NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM attempts "
	    "WHERE run = ?1 ORDER BY attempt", &st, cause) == -1)
		goto fail;
	db_bind_int64(st, 1, (*run)->rowid);
	while ((rc = db_step(st)) == DB_ROW) {
		*att = xreallocarray(*att, *natt + 1, sizeof **att);
		a = &(*att)[(*natt)++];
		memset(a, 0, sizeof *a);
		a->attempt = db_column_int(st, 0);
		a->trigger = sq_text(st, 1);
		a->pid = db_column_opt(st, 2);
		a->started_ms = db_column_opt(st, 3);
		a->finished_ms = db_column_opt(st, 4);
		a->lateness_ms = db_column_opt(st, 5);
		a->duration_ms = db_column_opt(st, 6);
		a->exit_status = (int)db_column_opt(st, 7);
		a->signal = (int)db_column_opt(st, 8);
		a->outcome = sq_text(st, 9);
		a->error = sq_text(st, 10);
		a->cpu_user_us = db_column_opt(st, 12);
		a->cpu_system_us = db_column_opt(st, 13);
		a->mem_peak = db_column_opt(st, 14);
		a->usage_source = sq_text(st, 15);
		a->cgroup = sq_text(st, 16);
		a->invocation = sq_text(st, 17);
		if (!db_column_null(st, 11)) {
			/* Text or blob: the bytes as stored, NUL added. */
			blob = db_column_blob(st, 11, &a->output_len);
			a->output_tail = xmalloc(a->output_len + 1);
			if (a->output_len > 0)
				memcpy(a->output_tail, blob, a->output_len);
			a->output_tail[a->output_len] = '\0';
		}
	}
	if (rc != DB_DONE) {
		(void)sq_fail(q, "cannot read", cause);
		db_finalize(st);
		goto fail;
	}
	db_finalize(st);
	return 1;

fail:
	store_query_runs_free(*run, 1);
	store_query_attempts_free(*att, *natt);
	*run = NULL;
	*att = NULL;
	*natt = 0;
	return -1;
}

/*
 * Count a shard of status (n of them) into c: failed takes every final
 * status but succeeded, waiting every status that has not begun again.
 */
void
store_query_shards_add(struct store_query_shards *c, const char *status,
    int64_t n)
{
	c->total += n;
	if (strcmp(status, "succeeded") == 0)
		c->succeeded += n;
	else if (strcmp(status, "running") == 0)
		c->running += n;
	else if (strcmp(status, "pending") == 0 ||
	    strcmp(status, "queued") == 0 ||
	    strcmp(status, "retrying") == 0 ||
	    strcmp(status, "interrupted") == 0)
		c->waiting += n;
	else
		c->failed += n;
}

/*
 * Fill the shards counts of the batch instances among the n entries of
 * v (history's page, show's instance) with one query for them all.
 * 0, or -1 with *cause.
 */
int
store_query_shard_counts(struct store_query *q, struct store_query_run *v,
    size_t n, char **cause)
{
	struct db_stmt	*st = NULL;
	const char	*status;
	int64_t		 lo = INT64_MAX, hi = INT64_MIN, parent;
	size_t		 i;
	int		 rc;

	for (i = 0; i < n; i++) {
		memset(&v[i].shards, 0, sizeof v[i].shards);
		if (!v[i].batch)
			continue;
		if (v[i].rowid < lo)
			lo = v[i].rowid;
		if (v[i].rowid > hi)
			hi = v[i].rowid;
	}
	if (lo > hi)
		return 0;
	if (sq_prepare(q, "SELECT parent, status, count(*) FROM runs WHERE "
	    "parent BETWEEN ?1 AND ?2 GROUP BY parent, status", &st,
	    cause) == -1)
		return -1;
	db_bind_int64(st, 1, lo);
	db_bind_int64(st, 2, hi);
	while ((rc = db_step(st)) == DB_ROW) {
		parent = db_column_int64(st, 0);
		if ((status = db_column_text(st, 1)) == NULL)
			continue;
		for (i = 0; i < n; i++) {
			if (v[i].batch && v[i].rowid == parent)
				store_query_shards_add(&v[i].shards, status,
				    db_column_int64(st, 2));
		}
	}
	db_finalize(st);
	if (rc != DB_DONE)
		return sq_fail(q, "cannot read", cause);
	return 0;
}

/*
 * The shards of the batch instance whose runs.id is parent, by index.
 * *v (count *n) is new: caller frees with store_query_shards_free.  0
 * (none before schema 8), or -1 with *cause.
 */
int
store_query_shards(struct store_query *q, int64_t parent,
    struct store_query_shard **v, size_t *n, char **cause)
{
	struct store_query_shard	*s;
	struct db_stmt			*st = NULL;
	const void			*blob;
	int				 rc;

	*v = NULL;
	*n = 0;
	if (!q->has_batch)
		return 0;
	if (sq_prepare(q, "SELECT r.shard, r.run_id, r.shards, r.status, "
	    "r.reason, r.attempts, a.pid, r.owner, r.exit_status, r.signal, "
	    "r.checkpoint FROM runs r LEFT JOIN attempts a ON a.run = r.id "
	    "AND a.attempt = r.attempts WHERE r.parent = ?1 ORDER BY r.shard, "
	    "r.id", &st, cause) == -1)
		return -1;
	db_bind_int64(st, 1, parent);
	while ((rc = db_step(st)) == DB_ROW) {
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		s = &(*v)[(*n)++];
		memset(s, 0, sizeof *s);
		s->index = (int)db_column_opt(st, 0);
		s->run_id = sq_text(st, 1);
		s->param = sq_text(st, 2);
		s->status = sq_text(st, 3);
		s->reason = sq_text(st, 4);
		s->attempts = db_column_int(st, 5);
		s->pid = db_column_opt(st, 6);
		s->owner = sq_text(st, 7);
		s->exit_status = (int)db_column_opt(st, 8);
		s->signal = (int)db_column_opt(st, 9);
		if (!db_column_null(st, 10)) {
			blob = db_column_blob(st, 10, &s->checkpoint_len);
			s->checkpoint = xmalloc(s->checkpoint_len + 1);
			if (s->checkpoint_len > 0)
				memcpy(s->checkpoint, blob, s->checkpoint_len);
			s->checkpoint[s->checkpoint_len] = '\0';
		}
	}
	db_finalize(st);
	if (rc != DB_DONE) {
		store_query_shards_free(*v, *n);
		*v = NULL;
		*n = 0;
		return sq_fail(q, "cannot read", cause);
	}
	return 0;
}

/* Free n shards and the array; NULL is allowed. */
void
store_query_shards_free(struct store_query_shard *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && v != NULL; i++) {
		free(v[i].run_id);
		free(v[i].param);
		free(v[i].status);
		free(v[i].reason);
		free(v[i].owner);
		free(v[i].checkpoint);
	}
	free(v);
}

/* Free n attempts and the array; NULL is allowed. */
void
store_query_attempts_free(struct store_query_attempt *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && v != NULL; i++) {
		free(v[i].trigger);
		free(v[i].outcome);
		free(v[i].error);
		free(v[i].output_tail);
		free(v[i].usage_source);
		free(v[i].cgroup);
		free(v[i].invocation);
	}
	free(v);
}

/*
 * The instances of job (NULL: every job) that have not ended: running,
 * then waiting (pending, queued, retrying, interrupted), oldest first
 * within each.  *v (count *n) is new; caller frees with
 * store_query_runs_free.  0, or -1 with *cause.
 */
int
store_query_active(struct store_query *q, const char *job,
    struct store_query_run **v, size_t *n, char **cause)
{
	struct db_stmt *st = NULL;

	*v = NULL;
	*n = 0;
	if (sq_prepare(q, "SELECT " SQ_RUN_COLS SQ_RUN_FROM " WHERE "
	    "$RTOP AND r.status IN " SQ_UNENDED " AND (?1 IS NULL OR "
	    "r.job = ?1) "
	    "ORDER BY r.status != 'running', r.scheduled_at, r.id", &st,
	    cause) == -1)
		return -1;
	db_bind_text(st, 1, job);
	return sq_runs_collect(q, st, v, n, cause);
}

/*
 * What the store says about job now (see struct store_query_job).
 * out's strings are new: clear with store_query_job_clear.  0, or -1
 * with *cause (out is then cleared).
 */
int
store_query_job(struct store_query *q, const char *job,
    struct store_query_job *out, char **cause)
{
	struct db_stmt	*st = NULL;
	const char	*hash;
	int64_t		 last_start = -1;
	int		 rc;

	memset(out, 0, sizeof *out);
	out->planned = out->last_ms = out->last_success_ms = -1;
	out->last_end_ms = out->first_ms = out->overdue_alerted = -1;
	out->skip_since = out->ran_ms = out->watch_since = -1;

	/* The daemon's row for the job. */
	if (sq_prepare(q, q->has_watch ? "SELECT sched_hash, planned, "
	    "paused, overdue_alerted, watch_since FROM jobs WHERE job = ?1" :
	    "SELECT sched_hash, planned, paused, overdue_alerted, NULL FROM "
	    "jobs WHERE job = ?1", &st, cause) == -1)
		return -1;
	db_bind_text(st, 1, job);
	if ((rc = db_step(st)) == DB_ROW) {
		hash = db_column_text(st, 0);
		/* An all-zero hash marks a job the daemon forgot. */
		out->known = hash != NULL && strcmp(hash,
		    "0000000000000000") != 0;
		(void)snprintf(out->sched_hash, sizeof out->sched_hash, "%s",
		    hash != NULL ? hash : "");
		out->planned = db_column_opt(st, 1);
		out->paused = db_column_int(st, 2) != 0;
		out->overdue_alerted = db_column_opt(st, 3);
		out->watch_since = db_column_opt(st, 4);
	} else if (rc != DB_DONE)
		goto fail_st;
	db_finalize(st);

	/* Instances in flight and waiting. */
	if (sq_prepare(q, "SELECT "
	    "count(*) FILTER (WHERE status = 'running'), "
	    "count(*) FILTER (WHERE status IN " SQ_WAITING ") FROM runs "
	    "WHERE job = ?1 AND $TOP AND status IN " SQ_UNENDED, &st,
	    cause) == -1)
		goto fail;
	db_bind_text(st, 1, job);
	if ((rc = db_step(st)) == DB_ROW) {
		out->nrunning = db_column_int64(st, 0);
		out->nwaiting = db_column_int64(st, 1);
	} else if (rc != DB_DONE)
		goto fail_st;
	db_finalize(st);

	/* The newest instance that ended, whatever its outcome. */
	if (sq_prepare(q, "SELECT status, reason, run_id, finished_at "
	    "FROM runs WHERE job = ?1 AND $TOP AND finished_at IS NOT NULL AND "
	    "status NOT IN " SQ_UNENDED " ORDER BY finished_at DESC, id DESC "
	    "LIMIT 1", &st, cause) == -1)
		goto fail;
	db_bind_text(st, 1, job);
	if ((rc = db_step(st)) == DB_ROW) {
		out->last_status = sq_text(st, 0);
		out->last_reason = sq_text(st, 1);
		out->last_run_id = sq_text(st, 2);
		out->last_ms = db_column_opt(st, 3);
	} else if (rc != DB_DONE)
		goto fail_st;
	db_finalize(st);

	/* The same among instances that ran: skips do not hide failures. */
	if (sq_prepare(q, "SELECT status, reason, run_id, finished_at "
	    "FROM runs WHERE job = ?1 AND $TOP AND finished_at IS NOT NULL AND "
	    "attempts > 0 AND status NOT IN " SQ_UNENDED " ORDER BY "
	    "finished_at DESC, id DESC LIMIT 1", &st, cause) == -1)
		goto fail;
	db_bind_text(st, 1, job);
	if ((rc = db_step(st)) == DB_ROW) {
		out->ran_status = sq_text(st, 0);
		out->ran_reason = sq_text(st, 1);
		out->ran_run_id = sq_text(st, 2);
		out->ran_ms = db_column_opt(st, 3);
	} else if (rc != DB_DONE)
		goto fail_st;
	db_finalize(st);
	st = NULL;

	if (sq_int(q, "SELECT max(finished_at) FROM runs WHERE job = ?1 AND "
	    "$TOP AND status = 'succeeded'", job, &out->last_success_ms,
	    cause) == -1 ||
	    sq_int(q, "SELECT max(finished_at) FROM runs WHERE job = ?1 AND "
	    "$TOP", job, &out->last_end_ms, cause) == -1 ||
	    sq_int(q, "SELECT min(created_at) FROM runs WHERE job = ?1 AND "
	    "$TOP", job, &out->first_ms, cause) == -1 ||
	    sq_int(q, "SELECT max(scheduled_at) FROM runs WHERE job = ?1 AND "
	    "$TOP AND started_at IS NOT NULL", job, &last_start, cause) == -1)
		goto fail;

	/*
	 * Failed or dead instances since the last success.  The daemon
	 * resets its count of overlap skips when an instance starts: the
	 * skips that count are those scheduled after the newest start.
	 */
	if (sq_prepare(q, "SELECT count(*) FROM runs WHERE job = ?1 AND "
	    "$TOP AND status IN ('failed', 'dead') AND finished_at > ?2", &st,
	    cause) == -1)
		goto fail;
	db_bind_text(st, 1, job);
	db_bind_int64(st, 2, out->last_success_ms);
	if ((rc = db_step(st)) == DB_ROW)
		out->nfailed = db_column_int64(st, 0);
	else
		goto fail_st;
	db_finalize(st);
	if (sq_prepare(q, "SELECT count(*), min(scheduled_at) FROM runs "
	    "WHERE job = ?1 AND $TOP AND status = 'skipped' AND "
	    "reason = 'overlap' AND "
	    "(?2 IS NULL OR scheduled_at > ?2)", &st, cause) == -1)
		goto fail;
	db_bind_text(st, 1, job);
	db_bind_opt(st, 2, last_start);
	if ((rc = db_step(st)) == DB_ROW) {
		out->skips = db_column_int64(st, 0);
		out->skip_since = db_column_opt(st, 1);
	} else
		goto fail_st;
	db_finalize(st);
	return 0;

fail_st:
	(void)sq_fail(q, "cannot read", cause);
	db_finalize(st);
fail:
	store_query_job_clear(out);
	return -1;
}

/* Free the strings of a job summary (the struct itself is the caller's). */
void
store_query_job_clear(struct store_query_job *j)
{
	free(j->last_status);
	free(j->last_reason);
	free(j->last_run_id);
	free(j->ran_status);
	free(j->ran_reason);
	free(j->ran_run_id);
	j->last_status = j->last_reason = j->last_run_id = NULL;
	j->ran_status = j->ran_reason = j->ran_run_id = NULL;
}

/* qsort comparison of int64_t. */
static int
sq_cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The entry for job in *v (count *n), added if absent (v sorted). */
static struct store_query_stats *
sq_stats_get(struct store_query_stats **v, size_t *n, const char *job)
{
	struct store_query_stats	*s;
	size_t				 i;

	for (i = *n; i > 0; i--) {
		if (strcmp((*v)[i - 1].job, job) == 0)
			return &(*v)[i - 1];
		if (strcmp((*v)[i - 1].job, job) < 0)
			break;
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	memmove(&(*v)[i + 1], &(*v)[i], (*n - i) * sizeof **v);
	(*n)++;
	s = &(*v)[i];
	memset(s, 0, sizeof *s);
	s->job = xstrdup(job);
	s->last_success_ms = -1;
	return s;
}

/* Append x to an array of int64_t. */
static void
sq_push(int64_t **v, size_t *n, int64_t x)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = x;
}

/*
 * Figures per job (NULL: every job with instances) over the instances
 * scheduled at or after since (-1: all the store keeps), sorted by job.
 * runs counts instances with at least one attempt; failed counts status
 * failed and dead; skipped counts skipped rows and the instants of
 * skipped decision ranges.  Lateness: one value per instance that started
 * (SQ_LATENESS); duration: one per instance whose
 * latest attempt ended; both sorted ascending.  *v (count *n) is new;
 * caller frees with store_query_stats_free.  0, or -1 with *cause.
 */
int
store_query_stats(struct store_query *q, const char *job, int64_t since,
    struct store_query_stats **v, size_t *n, char **cause)
{
	struct store_query_stats	*s;
	struct db_stmt			*st = NULL;
	const char			*status, *name;
	size_t				 i;
	int				 rc;

	*v = NULL;
	*n = 0;
	if (sq_prepare(q, q->has_usage ? "SELECT r.job, r.status, r.attempts, "
	    SQ_LATENESS ", a.duration_ms, "
	    "r.finished_at, a.cpu_user_us + a.cpu_system_us, a.mem_peak "
	    "FROM runs r LEFT JOIN attempts a ON a.run = r.id "
	    "AND a.attempt = r.attempts WHERE $RTOP AND (?1 IS NULL OR "
	    "r.job = ?1) AND "
	    "(?2 IS NULL OR r.scheduled_at >= ?2) ORDER BY r.job" :
	    "SELECT r.job, r.status, r.attempts, "
	    SQ_LATENESS ", a.duration_ms, "
	    "r.finished_at, NULL, NULL FROM runs r LEFT JOIN attempts a ON "
	    "a.run = r.id AND a.attempt = r.attempts WHERE $RTOP AND "
	    "(?1 IS NULL OR "
	    "r.job = ?1) AND (?2 IS NULL OR r.scheduled_at >= ?2) ORDER BY "
	    "r.job", &st, cause) == -1)
		return -1;
	db_bind_text(st, 1, job);
	db_bind_opt(st, 2, since);
	while ((rc = db_step(st)) == DB_ROW) {
		name = db_column_text(st, 0);
		status = db_column_text(st, 1);
		if (name == NULL || status == NULL)
			continue;
		s = sq_stats_get(v, n, name);
		s->instances++;
		if (db_column_int(st, 2) > 0)
			s->runs++;
		if (strcmp(status, "succeeded") == 0) {
			s->succeeded++;
			if (db_column_opt(st, 5) > s->last_success_ms)
				s->last_success_ms = db_column_opt(st, 5);
		} else if (strcmp(status, "failed") == 0 ||
		    strcmp(status, "dead") == 0)
			s->failed++;
		else if (strcmp(status, "skipped") == 0)
			s->skipped++;
		if (!db_column_null(st, 3))
			sq_push(&s->lateness, &s->nlateness,
			    db_column_int64(st, 3));
		if (!db_column_null(st, 4) &&
		    strcmp(status, "running") != 0)
			sq_push(&s->duration, &s->nduration,
			    db_column_int64(st, 4));
		if (!db_column_null(st, 6) &&
		    strcmp(status, "running") != 0)
			sq_push(&s->cpu_us, &s->ncpu,
			    db_column_int64(st, 6));
		if (!db_column_null(st, 7) &&
		    strcmp(status, "running") != 0)
			sq_push(&s->mem_peak, &s->nmem,
			    db_column_int64(st, 7));
	}
	if (rc != DB_DONE)
		goto fail_st;
	db_finalize(st);

	if (sq_prepare(q, "SELECT job, sum(count) FROM decisions WHERE "
	    "decision = 'skipped' AND (?1 IS NULL OR job = ?1) AND "
	    "(?2 IS NULL OR coalesce(last_at, decided_at / 1000) >= ?2) "
	    "GROUP BY job", &st, cause) == -1)
		goto fail;
	db_bind_text(st, 1, job);
	db_bind_opt(st, 2, since);
	while ((rc = db_step(st)) == DB_ROW) {
		if ((name = db_column_text(st, 0)) == NULL)
			continue;
		s = sq_stats_get(v, n, name);
		s->skipped += db_column_int64(st, 1);
	}
	if (rc != DB_DONE)
		goto fail_st;
	db_finalize(st);

	for (i = 0; i < *n; i++) {
		s = &(*v)[i];
		if (s->nlateness > 1)
			qsort(s->lateness, s->nlateness, sizeof *s->lateness,
			    sq_cmp64);
		if (s->nduration > 1)
			qsort(s->duration, s->nduration, sizeof *s->duration,
			    sq_cmp64);
		if (s->ncpu > 1)
			qsort(s->cpu_us, s->ncpu, sizeof *s->cpu_us, sq_cmp64);
		if (s->nmem > 1)
			qsort(s->mem_peak, s->nmem, sizeof *s->mem_peak,
			    sq_cmp64);
	}
	return 0;

fail_st:
	(void)sq_fail(q, "cannot read", cause);
	db_finalize(st);
fail:
	store_query_stats_free(*v, *n);
	*v = NULL;
	*n = 0;
	return -1;
}

/* Free n stats entries and the array; NULL is allowed. */
void
store_query_stats_free(struct store_query_stats *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && v != NULL; i++) {
		free(v[i].job);
		free(v[i].lateness);
		free(v[i].duration);
		free(v[i].cpu_us);
		free(v[i].mem_peak);
	}
	free(v);
}

/*
 * Counts per job for metrics, sorted by job then key: instances by
 * status (STORE_QUERY_BY_STATUS; key: the status); skipped instants by
 * reason, from skipped rows and skipped decision ranges together
 * (STORE_QUERY_SKIPPED; key: the reason, "" when none); failed or dead
 * instances by reason (STORE_QUERY_FAILED: exit, signal, timeout, spawn,
 * oom, ...).  *v (count *n) is new; caller frees with
 * store_query_counts_free.  0, or -1 with *cause.
 */
int
store_query_counts(struct store_query *q, int what,
    struct store_query_count **v, size_t *n, char **cause)
{
	struct store_query_count	*c;
	struct db_stmt			*st = NULL;
	int				 rc;

	*v = NULL;
	*n = 0;
	if (sq_prepare(q, what == STORE_QUERY_BY_STATUS ?
	    "SELECT job, status, count(*) FROM runs WHERE $TOP GROUP BY job, "
	    "status ORDER BY job, status" : what == STORE_QUERY_SHARDS ?
	    "SELECT job, status, count(*) FROM runs WHERE NOT $TOP GROUP BY "
	    "job, status ORDER BY job, status" : what == STORE_QUERY_FAILED ?
	    "SELECT job, coalesce(reason, ''), count(*) FROM runs WHERE $TOP "
	    "AND status IN ('failed', 'dead') GROUP BY job, "
	    "coalesce(reason, '') "
	    "ORDER BY job, 2" :
	    "SELECT job, k, sum(n) FROM (SELECT job, coalesce(reason, '') AS "
	    "k, count(*) AS n FROM runs WHERE $TOP AND status = 'skipped' "
	    "GROUP BY "
	    "job, k UNION ALL SELECT job, coalesce(reason, ''), sum(count) "
	    "FROM decisions WHERE decision = 'skipped' GROUP BY job, "
	    "coalesce(reason, '')) AS u GROUP BY job, k ORDER BY job, k", &st,
	    cause) == -1)
		return -1;
	while ((rc = db_step(st)) == DB_ROW) {
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		c = &(*v)[(*n)++];
		c->job = sq_text(st, 0);
		c->key = sq_text(st, 1);
		c->n = db_column_int64(st, 2);
		if (c->job == NULL)
			c->job = xstrdup("");
		if (c->key == NULL)
			c->key = xstrdup("");
	}
	if (rc != DB_DONE) {
		(void)sq_fail(q, "cannot read", cause);
		db_finalize(st);
		store_query_counts_free(*v, *n);
		*v = NULL;
		*n = 0;
		return -1;
	}
	db_finalize(st);
	return 0;
}

/* Free n counts and the array; NULL is allowed. */
void
store_query_counts_free(struct store_query_count *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && v != NULL; i++) {
		free(v[i].job);
		free(v[i].key);
	}
	free(v);
}

/*
 * The nearest-rank p-th percentile (1 <= p <= 100) of n sorted values:
 * the value at rank ceil(p / 100 * n).  -1 when n is 0.
 */
int64_t
store_query_percentile(const int64_t *sorted, size_t n, int p)
{
	size_t rank;

	if (n == 0)
		return -1;
	if (p < 1)
		p = 1;
	if (p > 100)
		p = 100;
	rank = ((size_t)p * n + 99) / 100;
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

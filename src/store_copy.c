/*
 * store_copy.c -- copy a state into another store (tickctl
 * migrate-state): from SQLite to a PostgreSQL database that nodes will
 * share, and back.
 *
 * What is copied is the history and what the scheduling goes on from:
 * every column of jobs (the cursor "planned", the pause, the @reboot
 * boot, the dead man's switch), runs, attempts (their output tails and
 * usage) and decisions, with the same row ids, so that run ids and the
 * decisions' links to runs stay what they were.  Not copied: meta (the
 * schema's version is the destination's own, the rest describes a
 * running daemon), nodes and node_jobs (each node writes its own),
 * run_stops (requests to running nodes).
 *
 * Without merge the destination must hold no job and no run.  With it
 * (a host joining a cluster whose database has a history already), the
 * source's rows are added beside the destination's:
 * - a job on both sides keeps the destination's row, with the later of
 *   the two cursors (what either side planned is not planned again) and
 *   paused if either side paused it;
 * - a run whose instance (job, origin, instant) the destination holds is
 *   left out with its attempts: the destination's record wins; every
 *   other run gets a new row id (its run id, TICKD_RUN_ID, is the
 *   instance's and stays), its attempts follow it;
 * - a decision is left out when the destination holds one of the same
 *   job whose range meets it (an instant is decided once); the others
 *   get new ids, their link to a run follows the run.
 * Instances that had not ended (pending, queued, running, retrying,
 * interrupted) keep their status; those that were running get the owner
 * "NODE:0" given by the caller, so that the daemon of that node settles
 * them by their job's recover policy when it starts (a process of another
 * host cannot be adopted), as the daemon that owned them would have.
 *
 * Everything is written in one transaction: an error leaves the
 * destination as it was.  The source is only read.
 *
 * DIAGNOSTICS: store_copy returns -1 with *cause, which names the table
 * and the engine's message, never a connection string.
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "store.h"
#include "xmalloc.h"

/*
 * A table and its columns, with their types: i (integer), t (text), b
 * (bytes).  In the order rows reference each other.
 */
static const struct {
	const char	*table;
	const char	*cols;
	const char	*types;
	const char	*order;
} store_copy_tables[] = {
	{ "jobs", "job, sched_hash, planned, paused, boot_id, updated_at, "
	    "overdue_alerted, watch_since", "ttiitiii", "job" },
	{ "runs", "id, run_id, job, scheduled_at, origin, trigger, status, "
	    "reason, attempts, owner, lease_until, created_at, started_at, "
	    "finished_at, exit_status, signal, retry_at, detail, parent, shard, "
	    "shards, checkpoint", "ittittttitiiiiiiitiitb", "id" },
	{ "attempts", "run, attempt, trigger, pid, pid_start, started_at, "
	    "finished_at, lateness_ms, duration_ms, exit_status, signal, "
	    "outcome, error, output_tail, invocation, boot_id, cgroup, "
	    "cpu_user_us, cpu_system_us, mem_peak, usage_source",
	    "iitiiiiiiiittbtttiiit", "run, attempt" },
	{ "decisions", "id, job, decided_at, decision, reason, first_at, "
	    "last_at, count, run", "itittiiii", "id" },
};

#define STORE_COPY_NTABLES \
	(sizeof store_copy_tables / sizeof store_copy_tables[0])

/* Bind column i of row (from) as parameter p of st, by its type. */
static void
store_copy_value(struct db_stmt *from, struct db_stmt *st, int i, int p,
    char type)
{
	const void	*blob;
	size_t		 len;

	int null = db_column_null(from, i);

	switch (type) {		/* a NULL of the column's type */
	case 'i':
		if (null)
			db_bind_opt(st, p, -1);
		else
			db_bind_int64(st, p, db_column_int64(from, i));
		break;
	case 'b':
		blob = null ? NULL : db_column_blob(from, i, &len);
		db_bind_blob(st, p, blob, null ? 0 : len);
		break;
	default:
		db_bind_text(st, p, null ? NULL : db_column_text(from, i));
		break;
	}
}

/*
 * What a merge made of the source's run ids (sorted: the runs are read
 * in id order): the destination's id, or -1 for none; mine says whether
 * the row is the copy (its attempts follow) or the destination's own.
 */
struct store_copy_map {
	int64_t	*from;
	int64_t	*to;
	char	*mine;
	size_t	 n;
	size_t	 cap;
};

static void
store_copy_map_add(struct store_copy_map *m, int64_t from, int64_t to,
    int mine)
{
	if (m->n == m->cap) {
		m->cap = m->cap * 2 + 256;
		m->from = xreallocarray(m->from, m->cap, sizeof *m->from);
		m->to = xreallocarray(m->to, m->cap, sizeof *m->to);
		m->mine = xreallocarray(m->mine, m->cap, 1);
	}
	m->from[m->n] = from;
	m->to[m->n] = to;
	m->mine[m->n++] = (char)mine;
}

/* The index of a source run id in the map, or -1. */
static ssize_t
store_copy_map_find(const struct store_copy_map *m, int64_t from)
{
	size_t lo = 0, hi = m->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->from[mid] == from)
			return (ssize_t)mid;
		if (m->from[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * The statement that writes one row of table k.  A copy inserts every
 * column; a merge lets the destination number runs and decisions
 * (their id, column 0, is not a parameter) and adds what is not there
 * (see the top).
 */
static char *
store_copy_sql(size_t k, int merge)
{
	const char	*table = store_copy_tables[k].table;
	const char	*cols = store_copy_tables[k].cols;
	char		*params, *sql;
	size_t		 i, n = strlen(store_copy_tables[k].types), used = 0;
	size_t		 first = 0;

	if (merge && (strcmp(table, "runs") == 0 ||
	    strcmp(table, "decisions") == 0)) {
		first = 1;
		cols = strchr(cols, ',') + 2;		/* after "id, " */
	}
	params = xmalloc(n * 5 + 1);
	params[0] = '\0';
	for (i = first; i < n; i++)
		used += (size_t)snprintf(params + used, n * 5 + 1 - used,
		    "%s?%zu", i > first ? "," : "", i + 1 - first);
	if (!merge || strcmp(table, "attempts") == 0)
		sql = xasprintf("INSERT INTO %s (%s) VALUES (%s)", table, cols,
		    params);
	else if (strcmp(table, "jobs") == 0)
		sql = xasprintf("INSERT INTO jobs (%s) VALUES (%s) ON CONFLICT "
		    "(job) DO UPDATE SET planned = CASE WHEN jobs.planned IS "
		    "NULL OR excluded.planned > jobs.planned THEN "
		    "excluded.planned ELSE jobs.planned END, paused = CASE "
		    "WHEN jobs.paused <> 0 THEN jobs.paused ELSE "
		    "excluded.paused END", cols, params);
	else if (strcmp(table, "runs") == 0)
		sql = xasprintf("INSERT INTO runs (%s) VALUES (%s) ON CONFLICT "
		    "DO NOTHING RETURNING id", cols, params);
	else	/* decisions: ?1 job, ?5 first_at, ?6 last_at */
		sql = xasprintf("INSERT INTO decisions (%s) SELECT %s WHERE "
		    "NOT EXISTS (SELECT 1 FROM decisions WHERE job = ?1 AND "
		    "first_at <= ?6 AND last_at >= ?5)", cols, params);
	free(params);
	return sql;
}

/*
 * A merge's run that the destination holds: its id there (by its run
 * id), or -1.
 */
static int64_t
store_copy_theirs(struct db *dst, struct db_stmt **st, const char *run_id)
{
	int64_t id = -1;

	if (*st == NULL && db_prepare(dst, "SELECT id FROM runs WHERE "
	    "run_id = ?1", st) == -1)
		return -1;
	db_bind_text(*st, 1, run_id);
	if (db_step(*st) == DB_ROW)
		id = db_column_int64(*st, 0);
	db_reset(*st);
	return id;
}

/*
 * Copy table k's rows; a running run's owner becomes owner.  With a map,
 * merge (see the top): the runs fill it, the attempts and decisions
 * follow it.  The number copied, or -1 with *cause.
 */
static int64_t
store_copy_table(struct db *src, struct db *dst, size_t k, const char *owner,
    struct store_copy_map *map, char **cause)
{
	const char	*table = store_copy_tables[k].table;
	const char	*types = store_copy_tables[k].types;
	struct db_stmt	*from = NULL, *to = NULL, *theirs = NULL;
	char		*sql;
	size_t		 i, n = strlen(types);
	ssize_t		 at;
	int64_t		 count = 0, id;
	int		 rc, status = -1, col_owner = -1, col_status = -1;
	int		 first = 0, col_run = -1, runs = 0;

	if (strcmp(table, "runs") == 0) {
		runs = 1;
		col_status = 6;
		col_owner = 9;
		if (map != NULL)
			col_run = 18;	/* a shard's instance, copied first */
	}
	if (map != NULL && (runs || strcmp(table, "decisions") == 0))
		first = 1;		/* the destination numbers them */
	if (map != NULL && strcmp(table, "attempts") == 0)
		col_run = 0;
	if (map != NULL && strcmp(table, "decisions") == 0)
		col_run = 8;
	sql = xasprintf("SELECT %s FROM %s ORDER BY %s",
	    store_copy_tables[k].cols, table, store_copy_tables[k].order);
	rc = db_prepare(src, sql, &from);
	free(sql);
	if (rc == -1) {
		*cause = xasprintf("reading %s: %s", table, db_errmsg(src));
		return -1;
	}
	sql = store_copy_sql(k, map != NULL);
	rc = db_prepare(dst, sql, &to);
	free(sql);
	if (rc == -1)
		goto write_failed;
	while ((rc = db_step(from)) == DB_ROW) {
		for (i = (size_t)first; i < n; i++)
			store_copy_value(from, to, (int)i, (int)i + 1 - first,
			    types[i]);
		if (col_owner != -1 && owner != NULL &&
		    strcmp(db_column_text(from, col_status), "running") == 0)
			db_bind_text(to, col_owner + 1 - first, owner);
		if (col_run != -1 && !db_column_null(from, col_run)) {
			at = store_copy_map_find(map,
			    db_column_int64(from, col_run));
			if (col_run == 0 && (at == -1 || !map->mine[at]))
				continue;	/* the destination's run */
			db_bind_opt(to, col_run + 1 - first, at == -1 ? -1 :
			    map->to[at]);
		}
		if (map == NULL || !runs) {
			if (db_step_done(to) == -1)
				goto write_failed;
			count += db_changes(dst);
			continue;
		}
		/* A merge's run: copied (its new id), or theirs. */
		if ((rc = db_step(to)) == DB_ROW) {
			id = db_column_int64(to, 0);
			db_reset(to);
			store_copy_map_add(map, db_column_int64(from, 0), id, 1);
			count++;
			continue;
		}
		db_reset(to);
		if (rc != DB_DONE)
			goto write_failed;
		id = store_copy_theirs(dst, &theirs, db_column_text(from, 1));
		store_copy_map_add(map, db_column_int64(from, 0), id, 0);
	}
	if (rc != DB_DONE) {
		*cause = xasprintf("reading %s: %s", table, db_errmsg(src));
		goto out;
	}
	status = 0;
	goto out;
write_failed:
	*cause = xasprintf("writing %s: %s", table, db_errmsg(dst));
out:
	db_finalize(from);
	db_finalize(to);
	db_finalize(theirs);
	return status == 0 ? count : -1;
}

/* How many rows table holds in db: >= 0, or -1. */
static int64_t
store_copy_count(struct db *db, const char *table)
{
	struct db_stmt	*st = NULL;
	char		*sql = xasprintf("SELECT count(*) FROM %s", table);
	int64_t		 n = -1;

	if (db_prepare(db, sql, &st) == 0 && db_step(st) == DB_ROW)
		n = db_column_int64(st, 0);
	db_finalize(st);
	free(sql);
	return n;
}

/*
 * Copy src's state into dst (both open, dst's schema current; see the
 * top): into an empty destination, or merged into one that has a
 * history.  owner: what a running instance's owner becomes, or NULL to
 * keep it.  Fills n[] (a count per table of the rows written: jobs,
 * runs, attempts, decisions).  0, or -1 with *cause; dst is unchanged
 * then.
 */
int
store_copy(struct store *src, struct store *dst, const char *owner, int merge,
    int64_t n[STORE_COPY_TABLES], char **cause)
{
	struct db		*from = store_db(src), *to = store_db(dst);
	struct store_copy_map	 map = { NULL, NULL, NULL, 0, 0 };
	size_t			 k;
	int			 rc = -1;

	if (!merge && (store_copy_count(to, "jobs") != 0 ||
	    store_copy_count(to, "runs") != 0)) {
		*cause = xstrdup("the destination holds jobs or runs already: "
		    "--merge adds this state's history to it");
		return -1;
	}
	if (db_exec(to, db_kind(to) == DB_PG ? "BEGIN" :
	    "BEGIN IMMEDIATE") == -1) {
		*cause = xasprintf("writing: %s", db_errmsg(to));
		return -1;
	}
	for (k = 0; k < STORE_COPY_NTABLES; k++)
		if ((n[k] = store_copy_table(from, to, k, owner,
		    merge ? &map : NULL, cause)) == -1)
			goto fail;
	/* Later rows get ids after the copied ones. */
	if (!merge && db_kind(to) == DB_PG && db_exec(to, "SELECT setval("
	    "pg_get_serial_sequence('runs', 'id'), coalesce(max(id), 0) + 1, "
	    "false) FROM runs; SELECT setval(pg_get_serial_sequence("
	    "'decisions', 'id'), coalesce(max(id), 0) + 1, false) FROM "
	    "decisions") == -1) {
		*cause = xasprintf("writing the ids: %s", db_errmsg(to));
		goto fail;
	}
	if (db_exec(to, "COMMIT") == 0) {
		rc = 0;
		goto out;
	}
	*cause = xasprintf("committing: %s", db_errmsg(to));
fail:
	(void)db_exec(to, "ROLLBACK");
out:
	free(map.from);
	free(map.to);
	free(map.mine);
	return rc;
}

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
 * The destination must hold no job and no run: merging two histories
 * would have to decide which of two records of an instance is true.
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
	    "finished_at, exit_status, signal, retry_at, detail",
	    "ittittttitiiiiiiit", "id" },
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

/* Bind column i of row (from) as parameter i + 1 of st, by its type. */
static void
store_copy_value(struct db_stmt *from, struct db_stmt *st, int i, char type)
{
	const void	*blob;
	size_t		 len;

	int null = db_column_null(from, i);

	switch (type) {		/* a NULL of the column's type */
	case 'i':
		if (null)
			db_bind_opt(st, i + 1, -1);
		else
			db_bind_int64(st, i + 1, db_column_int64(from, i));
		break;
	case 'b':
		blob = null ? NULL : db_column_blob(from, i, &len);
		db_bind_blob(st, i + 1, blob, null ? 0 : len);
		break;
	default:
		db_bind_text(st, i + 1, null ? NULL : db_column_text(from, i));
		break;
	}
}

/*
 * Copy table k's rows; a running run's owner becomes owner.  The number
 * copied, or -1 with *cause.
 */
static int64_t
store_copy_table(struct db *src, struct db *dst, size_t k, const char *owner,
    char **cause)
{
	const char	*types = store_copy_tables[k].types;
	struct db_stmt	*from = NULL, *to = NULL;
	char		*sql, *params;
	size_t		 i, n = strlen(types), used = 0;
	int64_t		 count = 0;
	int		 rc, status = -1, col_owner = -1, col_status = -1;

	if (strcmp(store_copy_tables[k].table, "runs") == 0) {
		col_status = 6;
		col_owner = 9;
	}
	sql = xasprintf("SELECT %s FROM %s ORDER BY %s",
	    store_copy_tables[k].cols, store_copy_tables[k].table,
	    store_copy_tables[k].order);
	rc = db_prepare(src, sql, &from);
	free(sql);
	if (rc == -1) {
		*cause = xasprintf("reading %s: %s",
		    store_copy_tables[k].table, db_errmsg(src));
		return -1;
	}
	params = xmalloc(n * 5 + 1);
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(params + used, n * 5 + 1 - used,
		    "%s?%zu", i > 0 ? "," : "", i + 1);
	sql = xasprintf("INSERT INTO %s (%s) VALUES (%s)",
	    store_copy_tables[k].table, store_copy_tables[k].cols, params);
	free(params);
	rc = db_prepare(dst, sql, &to);
	free(sql);
	if (rc == -1) {
		*cause = xasprintf("writing %s: %s",
		    store_copy_tables[k].table, db_errmsg(dst));
		goto out;
	}
	while ((rc = db_step(from)) == DB_ROW) {
		for (i = 0; i < n; i++)
			store_copy_value(from, to, (int)i, types[i]);
		if (col_owner != -1 && owner != NULL &&
		    strcmp(db_column_text(from, col_status), "running") == 0)
			db_bind_text(to, col_owner + 1, owner);
		if (db_step_done(to) == -1) {
			*cause = xasprintf("writing %s: %s",
			    store_copy_tables[k].table, db_errmsg(dst));
			goto out;
		}
		count++;
	}
	if (rc != DB_DONE) {
		*cause = xasprintf("reading %s: %s",
		    store_copy_tables[k].table, db_errmsg(src));
		goto out;
	}
	status = 0;
out:
	db_finalize(from);
	db_finalize(to);
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
 * top).  owner: what a running instance's owner becomes, or NULL to
 * keep it.  Fills n[] (a count per table: jobs, runs, attempts,
 * decisions).  0, or -1 with *cause; dst is unchanged then.
 */
int
store_copy(struct store *src, struct store *dst, const char *owner,
    int64_t n[STORE_COPY_TABLES], char **cause)
{
	struct db	*from = store_db(src), *to = store_db(dst);
	size_t		 k;

	if (store_copy_count(to, "jobs") != 0 ||
	    store_copy_count(to, "runs") != 0) {
		*cause = xstrdup("the destination holds jobs or runs already: "
		    "migrate-state copies into an empty state only");
		return -1;
	}
	if (db_exec(to, db_kind(to) == DB_PG ? "BEGIN" :
	    "BEGIN IMMEDIATE") == -1) {
		*cause = xasprintf("writing: %s", db_errmsg(to));
		return -1;
	}
	for (k = 0; k < STORE_COPY_NTABLES; k++)
		if ((n[k] = store_copy_table(from, to, k, owner, cause)) == -1)
			goto fail;
	/* Later rows get ids after the copied ones. */
	if (db_kind(to) == DB_PG && db_exec(to, "SELECT setval("
	    "pg_get_serial_sequence('runs', 'id'), coalesce(max(id), 0) + 1, "
	    "false) FROM runs; SELECT setval(pg_get_serial_sequence("
	    "'decisions', 'id'), coalesce(max(id), 0) + 1, false) FROM "
	    "decisions") == -1) {
		*cause = xasprintf("writing the ids: %s", db_errmsg(to));
		goto fail;
	}
	if (db_exec(to, "COMMIT") == 0)
		return 0;
	*cause = xasprintf("committing: %s", db_errmsg(to));
fail:
	(void)db_exec(to, "ROLLBACK");
	return -1;
}

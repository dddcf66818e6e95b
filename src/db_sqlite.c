/*
 * db_sqlite.c -- the SQLite backend of db.h: a thin layer, one call of
 * SQLite's per operation.
 *
 * Statements are SQLite's own: text and blobs are bound SQLITE_STATIC,
 * which db.h allows (they stay as they are until the next step), so a
 * claim copies nothing.  Besides the operations, the engine's upkeep:
 * the write-ahead log's size after each commit (checkpointed here past
 * DB_SQLITE_WAL_MAX pages, else when the owner asks), whether the file
 * at the path is still the one open, and whether an error means the file
 * is damaged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db.h"
#include "db_sqlite.h"
#include "xmalloc.h"

#define DB_SQLITE_WAL_MAX	10000	/* WAL pages: checkpointed in the
					   commit, as SQLite would at 1000 */

struct db_sqlite {
	struct db	 base;
	sqlite3		*db;
	int		 wal_pages;	/* in the WAL after the last commit */
	int		 last;		/* result code of the last failure */
};

struct db_sqlite_stmt {
	struct db_stmt	 base;
	sqlite3_stmt	*st;
};

#define SQ(d)	((struct db_sqlite *)(void *)(d))
#define ST(s)	(((struct db_sqlite_stmt *)(void *)(s))->st)

/* Note a failure; -1. */
static int
dbs_fail(struct db_sqlite *d, int rc)
{
	d->last = rc;
	return -1;
}

static void
dbs_close(struct db *db)
{
	(void)sqlite3_close(SQ(db)->db);
	free(db);
}

static int
dbs_prepare(struct db *db, const char *sql, struct db_stmt **out)
{
	struct db_sqlite_stmt	*s;
	sqlite3_stmt		*st = NULL;
	int			 rc;

	*out = NULL;
	if ((rc = sqlite3_prepare_v3(SQ(db)->db, sql, -1,
	    SQLITE_PREPARE_PERSISTENT, &st, NULL)) != SQLITE_OK) {
		(void)sqlite3_finalize(st);
		return dbs_fail(SQ(db), rc);
	}
	s = xcalloc(1, sizeof *s);
	s->base.db = db;
	s->base.writes = !sqlite3_stmt_readonly(st);
	s->st = st;
	*out = &s->base;
	return 0;
}

static void
dbs_finalize(struct db_stmt *s)
{
	(void)sqlite3_finalize(ST(s));
	free(s);
}

static void
dbs_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	(void)sqlite3_bind_int64(ST(s), i, v);
}

static void
dbs_bind_text(struct db_stmt *s, int i, const char *v)
{
	(void)sqlite3_bind_text(ST(s), i, v, -1, SQLITE_STATIC);
}

static void
dbs_bind_blob(struct db_stmt *s, int i, const void *v, size_t len)
{
	(void)sqlite3_bind_blob64(ST(s), i, v, len, SQLITE_STATIC);
}

static void
dbs_bind_null(struct db_stmt *s, int i, enum db_type type)
{
	(void)type;
	(void)sqlite3_bind_null(ST(s), i);
}

static int
dbs_step(struct db_stmt *s)
{
	int rc = sqlite3_step(ST(s));

	if (rc == SQLITE_ROW)
		return DB_ROW;
	if (rc == SQLITE_DONE)
		return DB_DONE;
	return dbs_fail(SQ(s->db), sqlite3_extended_errcode(SQ(s->db)->db));
}

static void
dbs_reset(struct db_stmt *s)
{
	(void)sqlite3_reset(ST(s));
	(void)sqlite3_clear_bindings(ST(s));
}

static int
dbs_column_null(struct db_stmt *s, int i)
{
	return sqlite3_column_type(ST(s), i) == SQLITE_NULL;
}

static int64_t
dbs_column_int64(struct db_stmt *s, int i)
{
	return sqlite3_column_int64(ST(s), i);
}

static const char *
dbs_column_text(struct db_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(ST(s), i);
}

static const void *
dbs_column_blob(struct db_stmt *s, int i, size_t *len)
{
	const void *p = sqlite3_column_blob(ST(s), i);

	*len = p != NULL ? (size_t)sqlite3_column_bytes(ST(s), i) : 0;
	return p;
}

static int64_t
dbs_changes(struct db *db)
{
	return sqlite3_changes64(SQ(db)->db);
}

static int
dbs_exec(struct db *db, const char *sql)
{
	int rc = sqlite3_exec(SQ(db)->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : dbs_fail(SQ(db), rc);
}

static int
dbs_in_transaction(struct db *db)
{
	return !sqlite3_get_autocommit(SQ(db)->db);
}

static const char *
dbs_errmsg(struct db *db)
{
	return sqlite3_errmsg(SQ(db)->db);
}

static int
dbs_busy(struct db *db)
{
	int base = SQ(db)->last & 0xff;

	return base == SQLITE_BUSY || base == SQLITE_LOCKED;
}

/*
 * PASSIVE: never waits for a reader; what a reader still needs is copied
 * next time.
 */
static int
dbs_checkpoint(struct db *db, int pages)
{
	struct db_sqlite	*d = SQ(db);
	int			 rc;

	if (d->wal_pages < pages)
		return 0;
	d->wal_pages = 0;
	rc = sqlite3_wal_checkpoint_v2(d->db, NULL, SQLITE_CHECKPOINT_PASSIVE,
	    NULL, NULL);
	return rc == SQLITE_OK ? 0 : dbs_fail(d, rc);
}

/* SQLITE_FCNTL_HAS_MOVED: one stat(2) of the path. */
static int
dbs_moved(struct db *db)
{
	int moved = 0;

	if (sqlite3_file_control(SQ(db)->db, "main", SQLITE_FCNTL_HAS_MOVED,
	    &moved) != SQLITE_OK)
		return 0;
	return moved != 0;
}

static int
dbs_damaged(struct db *db)
{
	int base = sqlite3_extended_errcode(SQ(db)->db) & 0xff;

	return base == SQLITE_CORRUPT || base == SQLITE_NOTADB;
}

static const struct db_ops db_sqlite_ops = {
	.kind = DB_SQLITE,
	.close = dbs_close,
	.prepare = dbs_prepare,
	.finalize = dbs_finalize,
	.bind_int64 = dbs_bind_int64,
	.bind_text = dbs_bind_text,
	.bind_blob = dbs_bind_blob,
	.bind_null = dbs_bind_null,
	.step = dbs_step,
	.reset = dbs_reset,
	.column_null = dbs_column_null,
	.column_int64 = dbs_column_int64,
	.column_text = dbs_column_text,
	.column_blob = dbs_column_blob,
	.changes = dbs_changes,
	.exec = dbs_exec,
	.in_transaction = dbs_in_transaction,
	.errmsg = dbs_errmsg,
	.busy = dbs_busy,
	.checkpoint = dbs_checkpoint,
	.moved = dbs_moved,
	.damaged = dbs_damaged,
};

/* After each commit: how many pages the WAL holds (see the top). */
static int
dbs_wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct db_sqlite *d = arg;

	d->wal_pages = pages;
	if (pages >= DB_SQLITE_WAL_MAX) {
		(void)sqlite3_wal_checkpoint_v2(db, name,
		    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		d->wal_pages = 0;
	}
	return SQLITE_OK;
}

/*
 * Open the database name (a path, or with DB_SQLITE_URI a file: URI):
 * DB_SQLITE_CREATE read-write, created if missing; else read-only.  Lock
 * waits last up to busy_ms.  Returns the connection, or NULL with *why
 * set to SQLite's message (caller frees).
 */
struct db *
db_sqlite_open(const char *name, int flags, int busy_ms, char **why)
{
	struct db_sqlite	*d = xcalloc(1, sizeof *d);
	int			 rc, of = SQLITE_OPEN_NOMUTEX;

	d->base.ops = &db_sqlite_ops;
	of |= flags & DB_SQLITE_CREATE ? SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	if (flags & DB_SQLITE_URI)
		of |= SQLITE_OPEN_URI;
	if ((rc = sqlite3_open_v2(name, &d->db, of, NULL)) != SQLITE_OK) {
		*why = xstrdup(d->db != NULL ? sqlite3_errmsg(d->db) :
		    sqlite3_errstr(rc));
		(void)sqlite3_close(d->db);
		free(d);
		return NULL;
	}
	(void)sqlite3_extended_result_codes(d->db, 1);
	(void)sqlite3_busy_timeout(d->db, busy_ms);
	/* No checkpoint inside a commit but past the maximum. */
	if (flags & DB_SQLITE_CREATE)
		(void)sqlite3_wal_hook(d->db, dbs_wal_hook, d);
	return &d->base;
}

/*
 * db.c -- calls through a backend's struct db_ops, and the conveniences
 * every caller of db.h would otherwise write again.
 */
#include "db.h"

enum db_kind
db_kind(const struct db *db)
{
	return db->ops->kind;
}

/* Close the connection and free it; NULL is allowed. */
void
db_close(struct db *db)
{
	if (db != NULL)
		db->ops->close(db);
}

/* Prepare sql; 0 (*out set), or -1 with the error in db_errmsg. */
int
db_prepare(struct db *db, const char *sql, struct db_stmt **out)
{
	return db->ops->prepare(db, sql, out);
}

/* Free a statement; NULL is allowed. */
void
db_finalize(struct db_stmt *st)
{
	if (st != NULL)
		st->db->ops->finalize(st);
}

void
db_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	st->db->ops->bind_int64(st, i, v);
}

/* Bind an integer that may be "none" (-1) as NULL. */
void
db_bind_opt(struct db_stmt *st, int i, int64_t v)
{
	if (v == -1)
		st->db->ops->bind_null(st, i, DB_T_INT);
	else
		st->db->ops->bind_int64(st, i, v);
}

/* Bind text; NULL binds NULL. */
void
db_bind_text(struct db_stmt *st, int i, const char *v)
{
	if (v == NULL)
		st->db->ops->bind_null(st, i, DB_T_TEXT);
	else
		st->db->ops->bind_text(st, i, v);
}

/* Bind bytes; none (NULL or 0 bytes) binds NULL. */
void
db_bind_blob(struct db_stmt *st, int i, const void *v, size_t len)
{
	if (v == NULL || len == 0)
		st->db->ops->bind_null(st, i, DB_T_BLOB);
	else
		st->db->ops->bind_blob(st, i, v, len);
}

void
db_bind_null(struct db_stmt *st, int i)
{
	st->db->ops->bind_null(st, i, DB_T_NONE);
}

/* The next row: DB_ROW, DB_DONE, or -1. */
int
db_step(struct db_stmt *st)
{
	return st->db->ops->step(st);
}

/* Make the statement ready to run again, its bindings cleared. */
void
db_reset(struct db_stmt *st)
{
	st->db->ops->reset(st);
}

/* Run a statement to its end, rows ignored, and reset it: 0 or -1. */
int
db_step_done(struct db_stmt *st)
{
	int rc;

	while ((rc = db_step(st)) == DB_ROW)
		;
	db_reset(st);
	return rc == DB_DONE ? 0 : -1;
}

int
db_column_null(struct db_stmt *st, int i)
{
	return st->db->ops->column_null(st, i);
}

int64_t
db_column_int64(struct db_stmt *st, int i)
{
	return st->db->ops->column_int64(st, i);
}

/* An integer column that may be NULL, as -1. */
int64_t
db_column_opt(struct db_stmt *st, int i)
{
	return db_column_null(st, i) ? -1 : db_column_int64(st, i);
}

int
db_column_int(struct db_stmt *st, int i)
{
	return (int)st->db->ops->column_int64(st, i);
}

/* A text column; NULL when the value is NULL. */
const char *
db_column_text(struct db_stmt *st, int i)
{
	return st->db->ops->column_text(st, i);
}

/* A blob column (*len its size); NULL when the value is NULL. */
const void *
db_column_blob(struct db_stmt *st, int i, size_t *len)
{
	return st->db->ops->column_blob(st, i, len);
}

/* Rows changed by the last INSERT, UPDATE or DELETE run on db. */
int64_t
db_changes(struct db *db)
{
	return db->ops->changes(db);
}

/* Run SQL text without parameters or rows wanted: 0 or -1. */
int
db_exec(struct db *db, const char *sql)
{
	return db->ops->exec(db, sql);
}

/* Whether a transaction is open on db. */
int
db_in_transaction(struct db *db)
{
	return db->ops->in_transaction(db);
}

/* The engine's message for the last failure. */
const char *
db_errmsg(struct db *db)
{
	return db->ops->errmsg(db);
}

/* Whether the last failure was a lock or a deadline: try again later. */
int
db_busy(struct db *db)
{
	return db->ops->busy(db);
}

/*
 * Copy SQLite's write-ahead log into the database when it holds at least
 * pages pages: 0, or -1.  Nothing to do for other engines.
 */
int
db_checkpoint(struct db *db, int pages)
{
	return db->ops->checkpoint != NULL ? db->ops->checkpoint(db, pages) :
	    0;
}

/*
 * Whether the database file at the path opened is no longer the one open
 * (deleted or replaced): 1 or 0.  A server's database never is.
 */
int
db_moved(struct db *db)
{
	return db->ops->moved != NULL ? db->ops->moved(db) : 0;
}

/* Whether the last failure says the database is damaged or not one. */
int
db_damaged(struct db *db)
{
	return db->ops->damaged != NULL ? db->ops->damaged(db) : 0;
}

/*
 * Let a call that waits for a server (db_pg.c) do other work meanwhile:
 * the daemon's loop keeps its urgent timers (server-wait.c).  A local
 * file (SQLite) never waits on a socket; it ignores this.
 */
void
db_set_wait(struct db *db, db_wait_fn fn, void *arg)
{
	db->wait = fn;
	db->wait_arg = arg;
}

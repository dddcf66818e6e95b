/*
 * db.h -- the one seam between the store and a database engine.
 *
 * store.c and store_query.c hold tickd's SQL and its meaning; a backend
 * (db_sqlite.c, db_pg.c) only connects, prepares, binds, steps and reads
 * columns, as SQLite's VFS only reads and writes pages for the engine
 * above it.  The scheduler and tickctl never see this layer: they call
 * store_* (store.h), which answers the same whichever backend is below.
 *
 * SQL is written once, in the subset both engines accept, with numbered
 * parameters "?1".."?N" (a backend that spells them otherwise rewrites
 * them when it prepares).  Where the engines differ, the caller asks
 * db_kind and chooses the text.
 *
 * Values: integers are int64_t, text is NUL-terminated UTF-8, blobs are
 * bytes.  A bound text or blob must stay as it is until the statement's
 * next db_step (SQLite reads it there, without a copy; a backend may copy
 * it at the bind).  Column values are valid until the next db_step or
 * db_reset of that statement.
 *
 * Failures: -1, with db_errmsg giving the engine's message and db_busy
 * saying whether it was another process's lock or a deadline (the caller
 * retries later).  On SQLite a failed call changed nothing.  On a server,
 * a write or COMMIT that failed busy (the deadline passed, the connection
 * was lost after it was sent) may have been applied: the store's writes
 * are made so that doing one again is harmless (store.c).
 */
#ifndef TICKD_DB_H
#define TICKD_DB_H

#include <stddef.h>
#include <stdint.h>

#define DB_DONE		0	/* db_step: no (more) rows */
#define DB_ROW		1	/* db_step: a row is available */

enum db_kind {
	DB_SQLITE,
	DB_PG
};

/* The type a NULL stands for (a server types its parameters). */
enum db_type {
	DB_T_NONE,
	DB_T_INT,
	DB_T_TEXT,
	DB_T_BLOB
};

struct db;
struct db_stmt;

/* What a backend implements; db.c calls through it. */
struct db_ops {
	enum db_kind	  kind;
	void		(*close)(struct db *);
	int		(*prepare)(struct db *, const char *,
			    struct db_stmt **);
	void		(*finalize)(struct db_stmt *);
	void		(*bind_int64)(struct db_stmt *, int, int64_t);
	void		(*bind_text)(struct db_stmt *, int, const char *);
	void		(*bind_blob)(struct db_stmt *, int, const void *,
			    size_t);
	void		(*bind_null)(struct db_stmt *, int, enum db_type);
	int		(*step)(struct db_stmt *);
	void		(*reset)(struct db_stmt *);
	int		(*column_null)(struct db_stmt *, int);
	int64_t		(*column_int64)(struct db_stmt *, int);
	const char	*(*column_text)(struct db_stmt *, int);
	const void	*(*column_blob)(struct db_stmt *, int, size_t *);
	int64_t		(*changes)(struct db *);
	int		(*exec)(struct db *, const char *);
	int		(*in_transaction)(struct db *);
	const char	*(*errmsg)(struct db *);
	int		(*busy)(struct db *);
	/* Engine upkeep; NULL where the engine has none. */
	int		(*checkpoint)(struct db *, int);
	int		(*moved)(struct db *);
	int		(*damaged)(struct db *);
};

/*
 * How a call that waits for a server spends the wait (db_set_wait):
 * return 0 once fd is ready for events (poll(2) flags), -1 at end
 * (CLOCK_MONOTONIC ms) or on an error.  It may do other work meanwhile,
 * but must not use the connection that waits.
 */
typedef int	(*db_wait_fn)(void *, int, short, int64_t);

/* The part every backend's connection and statement begin with. */
struct db {
	const struct db_ops	*ops;
	db_wait_fn		 wait;		/* NULL: poll the socket */
	void			*wait_arg;
};

struct db_stmt {
	struct db		*db;
	int			 writes;	/* may change the database */
};

enum db_kind	 db_kind(const struct db *);
void		 db_close(struct db *);
int		 db_prepare(struct db *, const char *, struct db_stmt **);
void		 db_finalize(struct db_stmt *);
void		 db_bind_int64(struct db_stmt *, int, int64_t);
void		 db_bind_opt(struct db_stmt *, int, int64_t);
void		 db_bind_text(struct db_stmt *, int, const char *);
void		 db_bind_blob(struct db_stmt *, int, const void *, size_t);
void		 db_bind_null(struct db_stmt *, int);
int		 db_step(struct db_stmt *);
void		 db_reset(struct db_stmt *);
int		 db_step_done(struct db_stmt *);
int		 db_column_null(struct db_stmt *, int);
int64_t		 db_column_int64(struct db_stmt *, int);
int64_t		 db_column_opt(struct db_stmt *, int);
int		 db_column_int(struct db_stmt *, int);
const char	*db_column_text(struct db_stmt *, int);
const void	*db_column_blob(struct db_stmt *, int, size_t *);
int64_t		 db_changes(struct db *);
int		 db_exec(struct db *, const char *);
int		 db_in_transaction(struct db *);
const char	*db_errmsg(struct db *);
int		 db_busy(struct db *);
int		 db_checkpoint(struct db *, int);
int		 db_moved(struct db *);
int		 db_damaged(struct db *);
void		 db_set_wait(struct db *, db_wait_fn, void *);

#endif /* TICKD_DB_H */

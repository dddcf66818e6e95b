/*
 * db_sqlite.h -- the SQLite backend of db.h.
 */
#ifndef TICKD_DB_SQLITE_H
#define TICKD_DB_SQLITE_H

#define DB_SQLITE_CREATE	0x1	/* read-write, created if missing */
#define DB_SQLITE_URI		0x2	/* the name is a file: URI */

struct db	*db_sqlite_open(const char *, int, int, char **);

#endif /* TICKD_DB_SQLITE_H */

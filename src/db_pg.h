/*
 * db_pg.h -- the PostgreSQL backend of db.h.
 */
#ifndef TICKD_DB_PG_H
#define TICKD_DB_PG_H

struct db;

struct db	*db_pg_open(const char *, int, char **);
void		 db_pg_set_deadline(struct db *, int);
int		 db_pg_conninfo_check(const char *, char **);

#endif /* TICKD_DB_PG_H */

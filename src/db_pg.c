/*
 * db_pg.c -- the PostgreSQL backend of db.h, on libpq's asynchronous API.
 *
 * The daemon's loop must not stall on a slow or unreachable server, so no
 * call here waits for it longer than the connection's deadline (in total,
 * for every round trip the call makes): connects go through
 * PQconnectStartParams/PQconnectPoll, statements through PQsend* and
 * poll(2) on the socket until the deadline.  A deadline passed, or a lost
 * connection (CONNECTION_BAD, SQLSTATE class 08), fails the call as busy
 * (the caller retries later) and drops the connection.
 *
 * Dropped, not cancelled: PQcancel connects to the server anew and waits
 * for it without a bound (libpq 15 has no asynchronous cancel; 17's
 * PQcancelStart would do), which is the very wait the deadline forbids
 * when the server or the link is what went silent.  Closing the socket
 * ends the server's work as surely, if later: the backend rolls back what
 * was open when it next reads the socket or its keepalives find the peer
 * gone (the server's tcp_keepalives_* and
 * idle_in_transaction_session_timeout bound that; a role's settings).
 *
 * The next call connects again.  A connection the server closed while it
 * was idle (a restart) is seen before anything is sent and replaced
 * within the same call; a transaction open when its connection was lost
 * is gone with it: until the caller rolls it back (a ROLLBACK, which then
 * succeeds without the server), every call fails as busy and
 * db_in_transaction says 1, so that no statement of that transaction runs
 * on a new connection as if it were the same one.
 *
 * Statements are prepared on the server once per connection ("t%u"),
 * when they first run, with the types of that first run's parameters:
 * int8, text, bytea, and for a NULL the type the caller gives (db_bind_opt
 * int8, db_bind_text text: "?1 IS NULL OR job = ?1" is then text); an
 * untyped NULL (db_bind_null) leaves the server to infer the type from
 * the statement, and fails where it cannot.  The types stay those of the
 * first run, on every later connection too: a parameter bound as an
 * integer once and as text later is sent as text for an int8 parameter,
 * which the server parses (an error if it is not a number).  "?N" in the
 * SQL becomes "$N" (not inside '...', "..." or comments; $$-quoted text
 * is not recognised).  Results come as text: integers are parsed,
 * booleans read 1 or 0, bytea columns unescaped when asked for as blobs.
 *
 * A finalized statement stays prepared on the server until its connection
 * ends (libpq 15 has no asynchronous close of one; DEALLOCATE would cost
 * a round trip): the store prepares its statements once, so the server
 * keeps a bounded set.
 */
#include <sys/types.h>

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "db.h"
#include "db_pg.h"
#include "xmalloc.h"

/*
 * libpq is opened when a server's database is first used (pg_load), not
 * linked: its dependencies (TLS, Kerberos, LDAP: 22 more libraries)
 * doubled the start of every tickctl and tickd on SQLite, 11 to 23 ms
 * here.  Its functions are called through pq.
 */
#define PG_FUNCS \
	X(PQclear) \
	X(PQcmdStatus) \
	X(PQcmdTuples) \
	X(PQconnectPoll) \
	X(PQconnectStartParams) \
	X(PQconninfoFree) \
	X(PQconninfoParse) \
	X(PQconsumeInput) \
	X(PQdb) \
	X(PQerrorMessage) \
	X(PQfinish) \
	X(PQflush) \
	X(PQfreemem) \
	X(PQgetResult) \
	X(PQgetisnull) \
	X(PQgetvalue) \
	X(PQhost) \
	X(PQisBusy) \
	X(PQnfields) \
	X(PQntuples) \
	X(PQport) \
	X(PQresultErrorField) \
	X(PQresultErrorMessage) \
	X(PQresultStatus) \
	X(PQsendPrepare) \
	X(PQsendQuery) \
	X(PQsendQueryPrepared) \
	X(PQsetNoticeProcessor) \
	X(PQsetnonblocking) \
	X(PQsocket) \
	X(PQstatus) \
	X(PQtransactionStatus) \
	X(PQunescapeBytea)

static struct {
	void	*handle;
#define X(f)	__typeof__(&f) f;
	PG_FUNCS
#undef X
} pq;

/* Open libpq and find its functions: 0, or -1 with *cause. */
static int
pg_load(char **cause)
{
	void *h;

	if (pq.handle != NULL)
		return 0;
	if ((h = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL)) == NULL) {
		*cause = xasprintf("a PostgreSQL state needs libpq (Debian: "
		    "libpq5): %s", dlerror());
		return -1;
	}
#define X(f)	if ((*(void **)(&pq.f) = dlsym(h, #f)) == NULL) \
			goto missing;
	PG_FUNCS
#undef X
	pq.handle = h;
	return 0;
missing:
	*cause = xasprintf("libpq.so.5 lacks a function tickd needs: %s",
	    dlerror());
	(void)dlclose(h);
	memset(&pq, 0, sizeof pq);
	return -1;
}

#define PG_INT8OID	20
#define PG_TEXTOID	25
#define PG_BYTEAOID	17
#define PG_PARAMS_MAX	64
#define DB_PG_IDLE_TX	"'5s'"		/* see pg_connect */
#define DB_PG_LOCK_WAIT	"'800ms'"

struct db_pg {
	struct db	 base;
	PGconn		*conn;		/* NULL: none now */
	char		*conninfo;
	int		 deadline_ms;
	unsigned int	 gen;		/* connections made: statements
					   prepared under another re-prepare */
	unsigned int	 nstmt;
	int		 in_tx;		/* as the last answer left it */
	int		 lost_tx;	/* a transaction died with its
					   connection: only ROLLBACK works */
	int		 busy;
	int64_t		 quiet_until;	/* monotonic ms: no connect before */
	int64_t		 changes;
	char		 err[512];
};

/* A bytea column's value unescaped (PQunescapeBytea's, freed by us). */
struct pg_blob {
	unsigned char	*p;
	size_t		 len;
};

struct db_pg_stmt {
	struct db_stmt	 base;
	char		*sql;		/* with $N */
	char		 name[16];
	unsigned int	 gen;		/* prepared on connection gen, 0 */
	int		 nparams;
	char		*vals[PG_PARAMS_MAX];
	int		 lens[PG_PARAMS_MAX];
	int		 fmts[PG_PARAMS_MAX];
	unsigned int	 types[PG_PARAMS_MAX];
	PGresult	*res;		/* NULL: not run since the reset */
	int		 row, nrows, ncols;
	struct pg_blob	*blobs;		/* column_blob's bytes in this row,
					   one per column: all stay valid
					   until the next step or reset */
	int		 rollback;	/* a ROLLBACK (not ROLLBACK TO) */
};

#define PG(d)	((struct db_pg *)(void *)(d))
#define PS(s)	((struct db_pg_stmt *)(void *)(s))

static int64_t
pg_now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Set the error (msg, put on one line); -1. */
static int
pg_fail(struct db_pg *d, int busy, const char *msg)
{
	const char	*p;
	char		*o;

	d->busy = busy;
	(void)snprintf(d->err, sizeof d->err, "%s", msg != NULL ? msg : "?");
	/* libpq's "\n\t" continuation lines become one space. */
	for (p = o = d->err; *p != '\0'; p++) {
		if (*p == '\n') {
			p += strspn(p + 1, "\t ");
			if (p[1] != '\0')
				*o++ = ' ';
		} else
			*o++ = *p;
	}
	*o = '\0';
	return -1;
}

/* Drop the connection (lost, or silent past the deadline). */
static void
pg_drop(struct db_pg *d)
{
	if (d->conn == NULL)
		return;
	if (d->in_tx)
		d->lost_tx = 1;
	d->in_tx = 0;
	pq.PQfinish(d->conn);
	d->conn = NULL;
}

/* The server, named without the connection string (it may hold a password). */
static void
pg_server(PGconn *c, char *buf, size_t len)
{
	const char *host = pq.PQhost(c), *port = pq.PQport(c), *db = pq.PQdb(c);

	(void)snprintf(buf, len, "%s%s%s%s%s", db != NULL ? db : "?",
	    host != NULL ? " on " : "", host != NULL ? host : "",
	    port != NULL && host != NULL ? ":" : "",
	    port != NULL && host != NULL ? port : "");
}

/*
 * Wait until the socket is ready for what events ask, at most until end
 * (monotonic ms): 0 ready, -1 at the deadline or on error.  The caller's
 * wait (db_set_wait) spends the time, if it set one.
 */
static int
pg_poll(struct db_pg *d, short events, int64_t end)
{
	struct pollfd	pfd;
	int64_t		left;
	int		rc;

	pfd.fd = pq.PQsocket(d->conn);
	pfd.events = events;
	if (d->base.wait != NULL)
		return d->base.wait(d->base.wait_arg, pfd.fd, events, end);
	for (;;) {
		if ((left = end - pg_now_ms()) <= 0)
			return -1;
		rc = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (rc > 0)
			return 0;
		if (rc == 0 || errno != EINTR)
			return -1;
	}
}

static void
pg_notice(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static PGresult	*pg_results(struct db_pg *, int64_t);

/*
 * Connect, by end (monotonic ms: the deadline of the call that needs the
 * connection, which its statement then shares): 0, or -1 busy with the
 * error set.
 *
 * One wait libpq keeps for itself: it resolves a host name with
 * getaddrinfo(3), which blocks, inside PQconnectPoll.  A server named by
 * a Unix socket directory or an address (hostaddr=) costs no lookup.
 */
static int
pg_connect(struct db_pg *d, int64_t end)
{
	static const char *const keys[] = { "dbname",
	    "fallback_application_name", NULL };
	const char			*vals[] = { d->conninfo, "tickd", NULL };
	PostgresPollingStatusType	 st = PGRES_POLLING_WRITING;
	PGresult			*res;
	char				 srv[256];

	/* dbname expanded: conninfo is a whole connection string or URI. */
	if ((d->conn = pq.PQconnectStartParams(keys, vals, 1)) == NULL)
		return pg_fail(d, 1, "out of memory");
	if (pq.PQstatus(d->conn) == CONNECTION_BAD)
		goto bad;
	while (st != PGRES_POLLING_OK) {
		if (st == PGRES_POLLING_FAILED)
			goto bad;
		if (pg_poll(d, st == PGRES_POLLING_READING ? POLLIN :
		    POLLOUT, end) == -1) {
			pg_server(d->conn, srv, sizeof srv);
			pq.PQfinish(d->conn);
			d->conn = NULL;
			(void)pg_fail(d, 1, srv);
			(void)snprintf(d->err + strlen(d->err), sizeof d->err -
			    strlen(d->err), ": the server did not answer the "
			    "connection within %d ms", d->deadline_ms);
			return -1;
		}
		st = pq.PQconnectPoll(d->conn);
	}
	if (pq.PQsetnonblocking(d->conn, 1) == -1)
		goto bad;
	/* NOTICEs ("table does not exist, skipping") are not for stderr. */
	(void)pq.PQsetNoticeProcessor(d->conn, pg_notice, NULL);
	/*
	 * The session's limits.  A client cut off inside a transaction
	 * (a partition: the server sees no end to its connection for as
	 * long as TCP takes) would keep its locks, a job's row among them,
	 * and stall every node that dispatches the job: the server ends
	 * such a session after DB_PG_IDLE_TX.  A lock awaited longer than
	 * DB_PG_LOCK_WAIT fails the call as busy, before the deadline would
	 * drop the connection.
	 */
	if (!pq.PQsendQuery(d->conn, "SET idle_in_transaction_session_"
	    "timeout = " DB_PG_IDLE_TX "; SET lock_timeout = "
	    DB_PG_LOCK_WAIT))
		goto bad;
	if ((res = pg_results(d, end)) == NULL)
		return -1;	/* dropped, the error set */
	if (pq.PQresultStatus(res) != PGRES_COMMAND_OK) {
		(void)pg_fail(d, 1, pq.PQresultErrorMessage(res));
		pq.PQclear(res);
		pq.PQfinish(d->conn);
		d->conn = NULL;
		return -1;
	}
	pq.PQclear(res);
	d->gen++;
	return 0;

bad:
	(void)pg_fail(d, 1, pq.PQerrorMessage(d->conn));
	pq.PQfinish(d->conn);
	d->conn = NULL;
	return -1;
}

/*
 * Wait for the result of what was sent, within end: the last result (the
 * first failed one, if any), or NULL with the error set (busy).  A
 * connection that fails or stays silent is dropped.
 */
static PGresult *
pg_results(struct db_pg *d, int64_t end)
{
	PGresult	*res, *keep = NULL;
	char		 srv[256];
	int		 rc;

	while ((rc = pq.PQflush(d->conn)) == 1)
		if (pg_poll(d, POLLIN | POLLOUT, end) == -1 ||
		    pq.PQconsumeInput(d->conn) == 0)
			goto lost;
	if (rc == -1)
		goto lost;
	for (;;) {
		while (pq.PQisBusy(d->conn)) {
			if (pg_poll(d, POLLIN, end) == -1 ||
			    pq.PQconsumeInput(d->conn) == 0)
				goto lost;
		}
		if ((res = pq.PQgetResult(d->conn)) == NULL)
			break;
		if (keep != NULL && pq.PQresultStatus(keep) == PGRES_FATAL_ERROR)
			pq.PQclear(res);	/* the first failure says why */
		else {
			pq.PQclear(keep);
			keep = res;
		}
	}
	if (keep == NULL)
		(void)pg_fail(d, 1, "no result from the server");
	d->in_tx = pq.PQtransactionStatus(d->conn) == PQTRANS_INTRANS ||
	    pq.PQtransactionStatus(d->conn) == PQTRANS_INERROR;
	return keep;

lost:
	pq.PQclear(keep);
	if (pg_now_ms() >= end) {
		pg_server(d->conn, srv, sizeof srv);
		d->busy = 1;
		(void)snprintf(d->err, sizeof d->err, "%s: the server did not "
		    "answer within %d ms", srv, d->deadline_ms);
	} else
		(void)pg_fail(d, 1, pq.PQerrorMessage(d->conn));
	pg_drop(d);
	return NULL;
}

/* Whether an SQLSTATE means "later": a lock, a conflict, a lost link. */
static int
pg_state_busy(const char *state)
{
	static const char *const busy[] = { "40001", "40P01", "55P03",
	    "57014", "57P01", "57P02", "57P03" };
	size_t i;

	if (state == NULL)
		return 0;
	if (strncmp(state, "08", 2) == 0)
		return 1;
	for (i = 0; i < sizeof busy / sizeof busy[0]; i++)
		if (strcmp(state, busy[i]) == 0)
			return 1;
	return 0;
}

/*
 * Check a result: 0 when it succeeded, else -1 with the error set (and
 * the connection dropped when it is gone).  res is not freed.
 */
static int
pg_check(struct db_pg *d, PGresult *res)
{
	const char	*state, *msg;
	int		 busy;

	switch (pq.PQresultStatus(res)) {
	case PGRES_COMMAND_OK:
	case PGRES_TUPLES_OK:
		d->busy = 0;
		return 0;
	default:
		break;
	}
	state = pq.PQresultErrorField(res, PG_DIAG_SQLSTATE);
	msg = pq.PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	busy = pg_state_busy(state) || pq.PQstatus(d->conn) == CONNECTION_BAD;
	(void)pg_fail(d, busy, msg != NULL ? msg :
	    pq.PQresultErrorMessage(res));
	if (pq.PQstatus(d->conn) == CONNECTION_BAD ||
	    (state != NULL && strncmp(state, "08", 2) == 0))
		pg_drop(d);
	return -1;
}

/* The successful answer to what was sent, or NULL with the error set. */
static PGresult *
pg_answer(struct db_pg *d, int64_t end)
{
	PGresult *res;

	if ((res = pg_results(d, end)) != NULL && pg_check(d, res) == -1) {
		pq.PQclear(res);
		res = NULL;
	}
	return res;
}

/*
 * Whether the server closed an idle connection (a restart, an idle
 * timeout, a backend terminated): it then sent its FATAL and EOF, which
 * wait unread in the socket.  Seen before anything is sent, a new
 * connection can take over without the caller seeing a failure: nothing
 * of its call reached the server.  A poll without waiting, then reading
 * what is there.
 */
static int
pg_closed(PGconn *c)
{
	struct pollfd	pfd;
	int		i;

	/* The FATAL is read first, EOF by a later read: a few rounds. */
	for (i = 0; i < 4; i++) {
		pfd.fd = pq.PQsocket(c);
		pfd.events = POLLIN;
		if (pfd.fd == -1)
			return 1;
		if (poll(&pfd, 1, 0) <= 0)
			return 0;
		if (pq.PQconsumeInput(c) == 0 || pq.PQstatus(c) == CONNECTION_BAD)
			return 1;
	}
	return 0;
}

/*
 * A connection to use now, made by end if need be: 0, or -1 (busy, or a
 * transaction was lost).
 */
static int
pg_ready(struct db_pg *d, int64_t end)
{
	if (d->conn != NULL && (pq.PQstatus(d->conn) == CONNECTION_BAD ||
	    pg_closed(d->conn)))
		pg_drop(d);	/* in a transaction: lost (lost_tx) */
	if (d->lost_tx)
		return pg_fail(d, 1, "the connection to the server was "
		    "lost during the transaction: it was rolled back");
	if (d->conn != NULL)
		return 0;
	/*
	 * A connect that failed is not tried again for a deadline: a loop
	 * whose every call waited a deadline for a server that does not
	 * answer would be late by a deadline per call, and a node's own
	 * timers (the lease's fence) with it.  Meanwhile, calls fail busy
	 * with that failure's message.
	 */
	if (pg_now_ms() < d->quiet_until) {
		d->busy = 1;
		return -1;
	}
	if (pg_connect(d, end) == -1) {
		d->quiet_until = pg_now_ms() + d->deadline_ms;
		return -1;
	}
	return 0;
}

static void
dbp_close(struct db *db)
{
	struct db_pg *d = PG(db);

	if (d->conn != NULL)
		pq.PQfinish(d->conn);
	free(d->conninfo);
	free(d);
}

/* "?N" to "$N", outside literals, quoted names and comments. */
static char *
pg_rewrite(const char *sql, int *nparams, unsigned char *used)
{
	char		*out = xmalloc(strlen(sql) + 1), *o = out;
	const char	*p = sql;
	char		 quote = 0;
	long		 n;

	*nparams = 0;
	memset(used, 0, PG_PARAMS_MAX);
	while (*p != '\0') {
		if (quote != 0) {
			if (*p == quote)
				quote = 0;
			*o++ = *p++;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
			*o++ = *p++;
		} else if (p[0] == '-' && p[1] == '-') {
			while (*p != '\0' && *p != '\n')
				*o++ = *p++;
		} else if (p[0] == '/' && p[1] == '*') {
			/* Not nested, as SQLite reads them. */
			*o++ = *p++;
			*o++ = *p++;
			while (*p != '\0' && !(p[0] == '*' && p[1] == '/'))
				*o++ = *p++;
			if (*p != '\0') {
				*o++ = *p++;
				*o++ = *p++;
			}
		} else if (*p == '?' && p[1] >= '1' && p[1] <= '9') {
			*o++ = '$';
			p++;
			n = strtol(p, NULL, 10);
			if (n > *nparams)
				*nparams = (int)n;
			if (n <= PG_PARAMS_MAX)
				used[n - 1] = 1;
		} else
			*o++ = *p++;
	}
	*o = '\0';
	return out;
}

/*
 * Whether sql is a ROLLBACK of the whole transaction (not ROLLBACK TO a
 * savepoint): the one statement a lost transaction still answers.
 */
static int
pg_is_rollback(const char *sql)
{
	const char *p = sql + strspn(sql, " \t\n");

	if (strncasecmp(p, "ROLLBACK", 8) != 0)
		return 0;
	p += 8;
	if (*p != '\0' && strchr(" \t\n;", *p) == NULL)
		return 0;	/* ROLLBACKX */
	p += strspn(p, " \t\n");
	if (strncasecmp(p, "WORK", 4) == 0 ||
	    strncasecmp(p, "TRANSACTION", 11) == 0)
		p += strcspn(p, " \t\n;");
	p += strspn(p, " \t\n;");
	return *p == '\0';
}

static int
dbp_prepare(struct db *db, const char *sql, struct db_stmt **out)
{
	struct db_pg		*d = PG(db);
	struct db_pg_stmt	*s;
	const char		*w;
	unsigned char		 used[PG_PARAMS_MAX];
	int			 n, i;

	*out = NULL;
	s = xcalloc(1, sizeof *s);
	s->sql = pg_rewrite(sql, &n, used);
	if (n > PG_PARAMS_MAX) {
		free(s->sql);
		free(s);
		return pg_fail(d, 0, "too many parameters");
	}
	s->nparams = n;
	/* A number the text skips ("IN (?10, ?11)"): typed, and unused. */
	for (i = 0; i < n; i++)
		if (!used[i])
			s->types[i] = PG_TEXTOID;
	s->base.db = db;
	(void)snprintf(s->name, sizeof s->name, "t%u", ++d->nstmt);
	w = sql + strspn(sql, " \t\n");
	s->base.writes = strncasecmp(w, "SELECT", 6) != 0;
	s->rollback = pg_is_rollback(sql);
	*out = &s->base;
	return 0;
}

static void
pg_unbind(struct db_pg_stmt *s)
{
	int i;

	for (i = 0; i < PG_PARAMS_MAX; i++) {
		free(s->vals[i]);
		s->vals[i] = NULL;
		s->lens[i] = s->fmts[i] = 0;
	}
}

/* Free the bytes column_blob gave out for the current row. */
static void
pg_blobs_free(struct db_pg_stmt *s)
{
	int i;

	for (i = 0; s->blobs != NULL && i < s->ncols; i++) {
		pq.PQfreemem(s->blobs[i].p);
		s->blobs[i].p = NULL;
	}
}

static void
dbp_reset(struct db_stmt *st)
{
	struct db_pg_stmt *s = PS(st);

	pg_blobs_free(s);
	free(s->blobs);
	s->blobs = NULL;
	s->ncols = 0;
	pq.PQclear(s->res);
	s->res = NULL;
	pg_unbind(s);
}

static void
dbp_finalize(struct db_stmt *st)
{
	struct db_pg_stmt *s = PS(st);

	dbp_reset(st);
	/* The server's copy goes with its connection. */
	free(s->sql);
	free(s);
}

/* Bind value i (1-based) as the text or bytes v, of type oid. */
static void
pg_bind(struct db_pg_stmt *s, int i, char *v, int len, int fmt,
    unsigned int oid)
{
	if (i < 1 || i > PG_PARAMS_MAX) {
		free(v);
		return;
	}
	free(s->vals[i - 1]);
	s->vals[i - 1] = v;
	s->lens[i - 1] = len;
	s->fmts[i - 1] = fmt;
	if (s->gen == 0 && oid != 0)
		s->types[i - 1] = oid;
}

static void
dbp_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	pg_bind(PS(st), i, xasprintf("%lld", (long long)v), 0, 0, PG_INT8OID);
}

static void
dbp_bind_text(struct db_stmt *st, int i, const char *v)
{
	pg_bind(PS(st), i, xstrdup(v), 0, 0, PG_TEXTOID);
}

static void
dbp_bind_blob(struct db_stmt *st, int i, const void *v, size_t len)
{
	char *copy = xmalloc(len > 0 ? len : 1);

	if (len > INT32_MAX)
		len = INT32_MAX;
	memcpy(copy, v, len);
	pg_bind(PS(st), i, copy, (int)len, 1, PG_BYTEAOID);
}

/* A typed NULL types its parameter, as a value would: "?1 IS NULL". */
static void
dbp_bind_null(struct db_stmt *st, int i, enum db_type type)
{
	static const unsigned int oid[] = { 0, PG_INT8OID, PG_TEXTOID,
	    PG_BYTEAOID };

	pg_bind(PS(st), i, NULL, 0, 0, oid[type]);
}

/*
 * Note the rows res changed, as SQLite's changes() counts them: only an
 * INSERT, UPDATE, DELETE or MERGE sets the count (PQcmdTuples also counts
 * a SELECT's rows, which would hide the last change from the caller).
 */
static void
pg_changes(struct db_pg *d, PGresult *res)
{
	static const char *const tags[] = { "INSERT ", "UPDATE ", "DELETE ",
	    "MERGE " };
	const char	*tag = pq.PQcmdStatus(res), *n = pq.PQcmdTuples(res);
	size_t		 i;

	for (i = 0; i < sizeof tags / sizeof tags[0]; i++)
		if (strncmp(tag, tags[i], strlen(tags[i])) == 0) {
			d->changes = *n != '\0' ? strtoll(n, NULL, 10) : 0;
			return;
		}
}

/* Run the statement (preparing it on this connection first): 0 or -1. */
static int
pg_run(struct db_pg *d, struct db_pg_stmt *s)
{
	int64_t		 end = pg_now_ms() + d->deadline_ms;
	PGresult	*res;

	if (pg_ready(d, end) == -1)
		return -1;
	if (s->gen != d->gen) {
		if (!pq.PQsendPrepare(d->conn, s->name, s->sql, s->nparams,
		    s->types))
			goto lost;
		if ((res = pg_answer(d, end)) == NULL)
			return -1;
		pq.PQclear(res);
		s->gen = d->gen;
	}
	if (!pq.PQsendQueryPrepared(d->conn, s->name, s->nparams,
	    (const char *const *)s->vals, s->lens, s->fmts, 0))
		goto lost;
	if ((res = pg_answer(d, end)) == NULL)
		return -1;
	pg_changes(d, res);
	s->res = res;
	s->nrows = pq.PQntuples(res);
	s->ncols = pq.PQnfields(res);
	s->blobs = xcalloc(s->ncols > 0 ? s->ncols : 1, sizeof *s->blobs);
	s->row = -1;
	return 0;

lost:
	(void)pg_fail(d, 1, pq.PQerrorMessage(d->conn));
	pg_drop(d);
	return -1;
}

static int
dbp_step(struct db_stmt *st)
{
	struct db_pg		*d = PG(st->db);
	struct db_pg_stmt	*s = PS(st);

	if (s->res == NULL) {
		/* Rolled back with the connection already. */
		if (s->rollback && d->lost_tx) {
			d->lost_tx = 0;
			d->changes = 0;
			return DB_DONE;
		}
		if (pg_run(d, s) == -1)
			return -1;
	}
	pg_blobs_free(s);
	return ++s->row < s->nrows ? DB_ROW : DB_DONE;
}

static int
dbp_column_null(struct db_stmt *st, int i)
{
	struct db_pg_stmt *s = PS(st);

	return s->res == NULL || s->row < 0 || s->row >= s->nrows ||
	    pq.PQgetisnull(s->res, s->row, i);
}

static int64_t
dbp_column_int64(struct db_stmt *st, int i)
{
	struct db_pg_stmt	*s = PS(st);
	const char		*v;

	if (dbp_column_null(st, i))
		return 0;
	v = pq.PQgetvalue(s->res, s->row, i);
	if (v[0] == 't' && v[1] == '\0')	/* a boolean */
		return 1;
	if (v[0] == 'f' && v[1] == '\0')
		return 0;
	return strtoll(v, NULL, 10);
}

static const char *
dbp_column_text(struct db_stmt *st, int i)
{
	struct db_pg_stmt *s = PS(st);

	if (dbp_column_null(st, i))
		return NULL;
	return pq.PQgetvalue(s->res, s->row, i);
}

static const void *
dbp_column_blob(struct db_stmt *st, int i, size_t *len)
{
	struct db_pg_stmt *s = PS(st);

	*len = 0;
	if (dbp_column_null(st, i) || i < 0 || i >= s->ncols)
		return NULL;
	/* Asked twice in one row: the same bytes again, not a second copy. */
	if (s->blobs[i].p == NULL)
		s->blobs[i].p = pq.PQunescapeBytea((const unsigned char *)
		    pq.PQgetvalue(s->res, s->row, i), &s->blobs[i].len);
	*len = s->blobs[i].p != NULL ? s->blobs[i].len : 0;
	return s->blobs[i].p;
}

static int64_t
dbp_changes(struct db *db)
{
	return PG(db)->changes;
}

static int
dbp_exec(struct db *db, const char *sql)
{
	struct db_pg	*d = PG(db);
	int64_t		 end = pg_now_ms() + d->deadline_ms;
	PGresult	*res;

	if (d->lost_tx && pg_is_rollback(sql)) {
		d->lost_tx = 0;
		return 0;
	}
	if (pg_ready(d, end) == -1)
		return -1;
	if (!pq.PQsendQuery(d->conn, sql)) {
		(void)pg_fail(d, 1, pq.PQerrorMessage(d->conn));
		pg_drop(d);
		return -1;
	}
	if ((res = pg_answer(d, end)) == NULL)
		return -1;
	pg_changes(d, res);
	pq.PQclear(res);
	return 0;
}

static int
dbp_in_transaction(struct db *db)
{
	struct db_pg *d = PG(db);

	/* INERROR too: a failed statement left it open, to roll back. */
	return d->lost_tx || (d->conn != NULL &&
	    (pq.PQtransactionStatus(d->conn) == PQTRANS_INTRANS ||
	    pq.PQtransactionStatus(d->conn) == PQTRANS_INERROR));
}

static const char *
dbp_errmsg(struct db *db)
{
	return PG(db)->err;
}

static int
dbp_busy(struct db *db)
{
	return PG(db)->busy;
}

static const struct db_ops db_pg_ops = {
	.kind = DB_PG,
	.close = dbp_close,
	.prepare = dbp_prepare,
	.finalize = dbp_finalize,
	.bind_int64 = dbp_bind_int64,
	.bind_text = dbp_bind_text,
	.bind_blob = dbp_bind_blob,
	.bind_null = dbp_bind_null,
	.step = dbp_step,
	.reset = dbp_reset,
	.column_null = dbp_column_null,
	.column_int64 = dbp_column_int64,
	.column_text = dbp_column_text,
	.column_blob = dbp_column_blob,
	.changes = dbp_changes,
	.exec = dbp_exec,
	.in_transaction = dbp_in_transaction,
	.errmsg = dbp_errmsg,
	.busy = dbp_busy,
};

/*
 * Connect to the server conninfo names (a libpq URI or key=value string;
 * a password from libpq's passfile or environment), each round trip
 * bounded by deadline_ms.  Returns the connection, or NULL with *cause
 * (which names the server, never conninfo itself).
 */
struct db *
db_pg_open(const char *conninfo, int deadline_ms, char **cause)
{
	struct db_pg	*d = xcalloc(1, sizeof *d);

	/* A string libpq cannot parse: say so without echoing it. */
	if (db_pg_conninfo_check(conninfo, cause) == -1) {
		free(d);
		return NULL;
	}
	d->base.ops = &db_pg_ops;
	d->conninfo = xstrdup(conninfo);
	d->deadline_ms = deadline_ms;
	if (pg_connect(d, pg_now_ms() + deadline_ms) == -1) {
		*cause = xstrdup(d->err);
		dbp_close(&d->base);
		return NULL;
	}
	return &d->base;
}

/* Bound every later round trip by ms. */
void
db_pg_set_deadline(struct db *db, int ms)
{
	PG(db)->deadline_ms = ms;
}

/*
 * Whether conninfo is a connection string tickd accepts: one libpq can
 * parse, without a password in it (tickd.conf is read by tickctl and
 * shown by it: the password goes in a password file, passfile= or
 * ~/.pgpass, or PGPASSWORD in the daemon's environment).  0, or -1 with
 * *cause.
 */
int
db_pg_conninfo_check(const char *conninfo, char **cause)
{
	PQconninfoOption	*opts, *o;
	char			*why = NULL;
	int			 rc = 0;

	if (pg_load(cause) == -1)
		return -1;
	/*
	 * libpq's reason quotes the text it stumbled on, which may be a
	 * password ("password=a b" is 'missing "=" after "b"'): not shown.
	 */
	if ((opts = pq.PQconninfoParse(conninfo, &why)) == NULL) {
		*cause = xstrdup(why == NULL ? "out of memory" : "not a "
		    "PostgreSQL connection string or URI (libpq cannot parse "
		    "it; its reason is not shown: it may quote a password)");
		pq.PQfreemem(why);
		return -1;
	}
	for (o = opts; o->keyword != NULL; o++) {
		if (strcmp(o->keyword, "password") == 0 && o->val != NULL &&
		    o->val[0] != '\0') {
			*cause = xstrdup("a password in the connection "
			    "string is refused (tickctl shows this setting): "
			    "put it in a password file (passfile=, or "
			    "~/.pgpass) or PGPASSWORD");
			rc = -1;
		}
	}
	pq.PQconninfoFree(opts);
	return rc;
}

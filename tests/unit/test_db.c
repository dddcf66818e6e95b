/*
 * test_db.c -- the db.h seam, the same cases on each backend: values of
 * every type through a table and back (int64 limits, text with quotes and
 * UTF-8, bytes with NUL and 0xff, NULLs), parameters reused and out of
 * order, changes(), ON CONFLICT and RETURNING, a unique violation (an
 * error, not busy), a transaction rolled back, a savepoint undone; then
 * the store itself on each backend: schema created and found again, a
 * claim (and its refusal), an attempt's start and end with an output
 * tail, a decision, the instances found, job state and meta values.
 *
 * SQLite always runs (a file in a temporary directory).  PostgreSQL runs
 * when TICKD_TEST_PG holds a connection string (tests/integration/
 * t_db_pg.sh starts a server and sets it); each run on it starts from an
 * empty schema; with TICKD_TEST_PG_RESTART (a command that restarts the
 * server), the store's connection is seen through a restart; with
 * TICKD_TEST_PG_STOP and _CONT (commands that stop and continue the
 * server's processes), a silent server costs a call its deadline only.
 */
#include <sys/types.h>

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "db_pg.h"
#include "db_sqlite.h"
#include "store.h"

#include "t.h"

#define T0	INT64_C(1805007600)	/* 2027-03-14T07:00:00Z */
#define NOW_MS	(T0 * 1000 + 1234)

static char	tmpdir[] = "/tmp/tickd-test-db.XXXXXX";

/* A row of the values table. */
static const struct {
	int64_t		 i;
	const char	*t;		/* NULL: NULL */
	const char	*b;		/* bytes, blen of them */
	size_t		 blen;
} rows[] = {
	{ 0, "plain", "\x00\x01\xff\x00", 4 },
	{ -1, "it's \"quoted\" -- not a comment ?1", "?", 1 },
	{ INT64_MAX, "\xc3\xa9t\xc3\xa9 \xe2\x8f\xb0", NULL, 0 },
	{ INT64_MIN + 1, NULL, "\xff", 1 },
};

/* Run sql; report a failure. */
static int
run(struct db *db, const char *sql)
{
	if (db_exec(db, sql) == 0)
		return 0;
	(void)printf("  %s: %s\n", sql, db_errmsg(db));
	return -1;
}

/*
 * The session's limits (db_pg.c, pg_connect): a client cut off inside a
 * transaction loses its locks after 5 s; a lock is awaited 800 ms.
 */
static void
test_session(struct db *db)
{
	struct db_stmt *st = NULL;

	T_RUN("postgresql: session");
	T_EQ_INT(db_prepare(db, "SELECT current_setting("
	    "'idle_in_transaction_session_timeout'), "
	    "current_setting('lock_timeout')", &st), 0);
	if (st == NULL)
		return;
	T_EQ_INT(db_step(st), DB_ROW);
	T_EQ_STR(db_column_text(st, 0), "5s");
	T_EQ_STR(db_column_text(st, 1), "800ms");
	db_finalize(st);
}

static void
test_values(struct db *db, const char *name)
{
	struct db_stmt	*ins = NULL, *sel = NULL;
	const void	*p;
	size_t		 i, len;
	int		 rc;

	T_RUN(name);
	if (run(db, "DROP TABLE IF EXISTS v") == -1 || run(db, db_kind(db) ==
	    DB_PG ? "CREATE TABLE v (k integer PRIMARY KEY, i bigint, "
	    "t text, b bytea)" : "CREATE TABLE v (k INTEGER PRIMARY KEY, "
	    "i INTEGER, t TEXT, b BLOB)") == -1) {
		T_TRUE(0);
		return;
	}
	/* Parameters out of order, ?1 twice. */
	T_EQ_INT(db_prepare(db, "INSERT INTO v (k, b, t, i) VALUES "
	    "(?4, ?3, ?2, ?1) ON CONFLICT DO NOTHING RETURNING k + ?4", &ins),
	    0);
	T_EQ_INT(db_prepare(db, "SELECT i, t, b, k FROM v WHERE k = ?1", &sel),
	    0);
	if (ins == NULL || sel == NULL)
		goto out;
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		db_bind_int64(ins, 1, rows[i].i);
		db_bind_text(ins, 2, rows[i].t);
		db_bind_blob(ins, 3, rows[i].b, rows[i].blen);
		db_bind_int64(ins, 4, (int64_t)i);
		T_EQ_INT(db_step(ins), DB_ROW);
		T_EQ_INT(db_column_int64(ins, 0), 2 * (int64_t)i);
		T_EQ_INT(db_step(ins), DB_DONE);
		db_reset(ins);
		T_EQ_INT(db_changes(db), 1);
	}
	/* Again: nothing inserted, no row returned. */
	db_bind_int64(ins, 1, 5);
	db_bind_text(ins, 2, "x");
	db_bind_null(ins, 3);
	db_bind_int64(ins, 4, 0);
	T_EQ_INT(db_step(ins), DB_DONE);
	db_reset(ins);
	T_EQ_INT(db_changes(db), 0);
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		db_bind_int64(sel, 1, (int64_t)i);
		T_EQ_INT(db_step(sel), DB_ROW);
		T_EQ_INT(db_column_int64(sel, 0), rows[i].i);
		T_EQ_INT(db_column_null(sel, 1), rows[i].t == NULL);
		if (rows[i].t != NULL && db_column_text(sel, 1) != NULL)
			T_EQ_STR(db_column_text(sel, 1), rows[i].t);
		p = db_column_blob(sel, 2, &len);
		T_EQ_INT(len, rows[i].blen);
		T_TRUE(rows[i].b == NULL ? p == NULL : p != NULL &&
		    memcmp(p, rows[i].b, len) == 0);
		T_EQ_INT(db_column_opt(sel, 3), (int64_t)i);
		T_EQ_INT(db_step(sel), DB_DONE);
		db_reset(sel);
	}
	/* A unique violation: an error, not "later". */
	T_EQ_INT(run(db, "INSERT INTO v (k) VALUES (0)") == -1 &&
	    !db_busy(db), 1);
	/* A transaction rolled back; a savepoint undone inside one. */
	T_EQ_INT(run(db, "BEGIN"), 0);
	T_EQ_INT(db_in_transaction(db), 1);
	T_EQ_INT(run(db, "DELETE FROM v"), 0);
	T_EQ_INT(run(db, "ROLLBACK"), 0);
	T_EQ_INT(db_in_transaction(db), 0);
	T_EQ_INT(run(db, "BEGIN"), 0);
	T_EQ_INT(run(db, "SAVEPOINT part"), 0);
	T_EQ_INT(run(db, "DELETE FROM v WHERE k = 1"), 0);
	T_EQ_INT(run(db, "ROLLBACK TO part"), 0);
	T_EQ_INT(run(db, "RELEASE part"), 0);
	T_EQ_INT(run(db, "COMMIT"), 0);
	db_bind_int64(sel, 1, 1);
	T_EQ_INT(db_step(sel), DB_ROW);
	db_reset(sel);
	/* Two blobs of one row, both valid until the next step. */
	db_finalize(ins);
	ins = NULL;
	T_EQ_INT(db_prepare(db, "SELECT b, b FROM v WHERE k = 0", &ins), 0);
	if (ins != NULL && db_step(ins) == DB_ROW) {
		const void	*b0, *b1;
		size_t		 l0, l1;

		b0 = db_column_blob(ins, 0, &l0);
		b1 = db_column_blob(ins, 1, &l1);
		T_TRUE(b0 != NULL && b1 != NULL && l0 == 4 && l1 == 4 &&
		    memcmp(b0, rows[0].b, 4) == 0 &&
		    memcmp(b1, rows[0].b, 4) == 0);
	} else
		T_TRUE(0);
	db_reset(ins);
	/*
	 * changes(): from db_exec too, and a SELECT between does not
	 * change it (SQLite's rule).
	 */
	T_EQ_INT(run(db, "UPDATE v SET t = t WHERE k < 3"), 0);
	T_EQ_INT(db_changes(db), 3);
	db_bind_int64(sel, 1, 0);
	T_EQ_INT(db_step(sel), DB_ROW);
	db_reset(sel);
	T_EQ_INT(db_changes(db), 3);
	/* "?N" left alone in literals and comments; a boolean as 1 or 0. */
	db_finalize(ins);
	ins = NULL;
	T_EQ_INT(db_prepare(db, "SELECT '?1' || ?1 /* ?2 */, -- ?3\n"
	    " ?2 = 7, \"k\" FROM v WHERE k = 0", &ins), 0);
	if (ins != NULL) {
		db_bind_text(ins, 1, "x");
		db_bind_int64(ins, 2, 7);
		T_EQ_INT(db_step(ins), DB_ROW);
		T_EQ_STR(db_column_text(ins, 0), "?1x");
		T_EQ_INT(db_column_int64(ins, 1), 1);
		db_reset(ins);
	}
	/* A count as the store reads one. */
	db_finalize(ins);
	ins = NULL;
	rc = db_prepare(db, "SELECT count(*) FILTER (WHERE i < ?1), "
	    "count(*) FROM v WHERE t IS DISTINCT FROM ?2", &ins);
	T_EQ_INT(rc, 0);
	if (rc == 0) {
		db_bind_int64(ins, 1, 0);
		db_bind_text(ins, 2, "plain");
		T_EQ_INT(db_step(ins), DB_ROW);
		T_EQ_INT(db_column_int(ins, 0), 2);
		T_EQ_INT(db_column_int(ins, 1), 3);
		db_reset(ins);
	}
out:
	db_finalize(ins);
	db_finalize(sel);
}

/* Count the instances found with a status. */
static void
count_found(const struct store_found *f, void *arg)
{
	(void)f;
	(*(int *)arg)++;
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Step st (bound to -1) until it answers, as the daemon retries: after a
 * failed connect, the backend fails busy for a deadline before it tries
 * again.  At most 10 s.
 */
static int
step_again(struct db_stmt *st)
{
	int64_t	end = mono_ms() + 10000;
	int	rc;

	do {
		db_bind_int64(st, 1, -1);
		rc = db_step(st);
		db_reset(st);
		if (rc != -1 || !db_busy(st->db))
			break;
		(void)usleep(50000);
	} while (mono_ms() < end);
	return rc;
}

/* One integer from sql: the value, or -1 (the failure printed). */
static int64_t
one_int(struct db *db, const char *sql)
{
	struct db_stmt	*st = NULL;
	int64_t		 v = -1;

	if (db_prepare(db, sql, &st) == 0 && db_step(st) == DB_ROW)
		v = db_column_int64(st, 0);
	else
		(void)printf("  %s: %s\n", sql, db_errmsg(db));
	db_finalize(st);
	return v;
}

/*
 * A connection string is never quoted back: a password in it is refused,
 * and one libpq cannot parse is not echoed.  No server needed.
 */
static void
test_pg_conninfo(void)
{
	struct db	*db;
	char		*cause = NULL;

	T_RUN("postgresql: conninfo not shown");
	db = db_pg_open("host=/nonexistent password=s3cret", 500, &cause);
	T_TRUE(db == NULL && cause != NULL && strstr(cause, "s3cret") == NULL);
	free(cause);
	cause = NULL;
	db = db_pg_open("host=/nonexistent password=s3 cr3t", 500, &cause);
	T_TRUE(db == NULL && cause != NULL && strstr(cause, "cr3t") == NULL);
	free(cause);
	cause = NULL;
	db = db_pg_open("postgresql://u@/nonexistent-db-name?host=/nonexistent",
	    500, &cause);
	T_TRUE(db == NULL && cause != NULL);
	free(cause);
}

/*
 * A silent or restarted server, seen through one connection with a 500
 * ms deadline (TICKD_TEST_PG_LOCAL: the server runs here, and this
 * process may stop its backend; TICKD_TEST_PG_RESTART, _STOP, _CONT:
 * commands that restart the server, stop and continue all its processes).
 */
static void
test_pg_faults(const char *pg)
{
	const char	*restart = getenv("TICKD_TEST_PG_RESTART");
	const char	*stop = getenv("TICKD_TEST_PG_STOP");
	const char	*cont = getenv("TICKD_TEST_PG_CONT");
	struct db	*db;
	struct db_stmt	*st = NULL;
	char		*cause = NULL;
	int64_t		 pid, t0, ms;
	int		 rc;

	T_RUN("postgresql: faults");
	if ((db = db_pg_open(pg, 5000, &cause)) == NULL) {
		(void)printf("  %s\n", cause);
		free(cause);
		T_TRUE(0);
		return;
	}
	db_pg_set_deadline(db, 500);
	T_EQ_INT(run(db, "CREATE TABLE f (k bigint PRIMARY KEY)"), 0);
	T_EQ_INT(db_prepare(db, "SELECT count(*) FROM f WHERE k > ?1", &st),
	    0);
	if (st == NULL)
		goto out;
	db_bind_int64(st, 1, -1);
	T_EQ_INT(db_step(st), DB_ROW);
	db_reset(st);

	/* Our backend stopped: the step gives up at its deadline. */
	pid = one_int(db, "SELECT pg_backend_pid()");
	T_TRUE(pid > 0);
	if (pid <= 0)
		goto out;
	T_EQ_INT(kill((pid_t)pid, SIGSTOP), 0);
	db_bind_int64(st, 1, -1);
	t0 = mono_ms();
	rc = db_step(st);
	ms = mono_ms() - t0;
	db_reset(st);
	T_EQ_INT(rc, -1);
	T_EQ_INT(db_busy(db), 1);
	T_TRUE(strstr(db_errmsg(db), "did not answer within 500 ms") != NULL);
	T_TRUE(ms >= 450 && ms < 3000);
	(void)printf("  a stopped backend: the step gave up after %lld ms "
	    "(deadline 500): %s\n", (long long)ms, db_errmsg(db));
	T_EQ_INT(kill((pid_t)pid, SIGCONT), 0);
	/* The next call connects again and prepares again. */
	db_bind_int64(st, 1, -1);
	t0 = mono_ms();
	rc = db_step(st);
	ms = mono_ms() - t0;
	T_EQ_INT(rc, DB_ROW);
	T_EQ_INT(db_column_int64(st, 0), 0);
	db_reset(st);
	(void)printf("  then: reconnected, prepared and answered in %lld ms\n",
	    (long long)ms);
	T_TRUE(one_int(db, "SELECT pg_backend_pid()") != pid);

	/*
	 * The same inside a transaction: it is lost with its connection;
	 * every call fails (busy) until the caller rolls back, and nothing
	 * of it was committed.
	 */
	pid = one_int(db, "SELECT pg_backend_pid()");
	T_EQ_INT(run(db, "BEGIN"), 0);
	T_EQ_INT(run(db, "INSERT INTO f VALUES (1)"), 0);
	T_EQ_INT(kill((pid_t)pid, SIGSTOP), 0);
	db_bind_int64(st, 1, -1);
	T_EQ_INT(db_step(st), -1);
	db_reset(st);
	T_EQ_INT(db_busy(db), 1);
	T_EQ_INT(db_in_transaction(db), 1);
	T_EQ_INT(kill((pid_t)pid, SIGCONT), 0);
	db_bind_int64(st, 1, -1);
	T_EQ_INT(db_step(st), -1);	/* not on a new connection */
	db_reset(st);
	T_EQ_INT(db_busy(db), 1);
	T_EQ_INT(db_exec(db, "COMMIT"), -1);
	T_EQ_INT(db_in_transaction(db), 1);
	T_EQ_INT(db_exec(db, "ROLLBACK"), 0);
	T_EQ_INT(db_in_transaction(db), 0);
	T_EQ_INT(one_int(db, "SELECT count(*) FROM f"), 0);

	if (restart != NULL) {
		/*
		 * Restarted between two calls, no transaction open: the
		 * closed connection is seen before anything is sent, and
		 * the call runs on a new one (or fails busy; then the next
		 * works).
		 */
		T_EQ_INT(system(restart), 0);
		db_bind_int64(st, 1, -1);
		t0 = mono_ms();
		rc = db_step(st);
		ms = mono_ms() - t0;
		db_reset(st);
		if (rc == -1)
			T_EQ_INT(db_busy(db), 1);
		(void)printf("  a restart between two calls: the next %s in "
		    "%lld ms%s%s\n", rc == DB_ROW ? "reconnected and answered"
		    : "failed", (long long)ms, rc == -1 ? ": " : "",
		    rc == -1 ? db_errmsg(db) : "");
		db_bind_int64(st, 1, -1);
		T_EQ_INT(db_step(st), DB_ROW);
		db_reset(st);
		/* Restarted inside a transaction: lost, until rolled back. */
		T_EQ_INT(run(db, "BEGIN"), 0);
		T_EQ_INT(run(db, "INSERT INTO f VALUES (2)"), 0);
		T_EQ_INT(system(restart), 0);
		T_EQ_INT(db_exec(db, "INSERT INTO f VALUES (3)"), -1);
		T_EQ_INT(db_busy(db), 1);
		T_EQ_INT(db_in_transaction(db), 1);
		T_EQ_INT(db_exec(db, "ROLLBACK"), 0);
		T_EQ_INT(db_in_transaction(db), 0);
		T_EQ_INT(one_int(db, "SELECT count(*) FROM f"), 0);
	}
	if (stop != NULL && cont != NULL) {
		/*
		 * The whole server stopped: the step gives up at its
		 * deadline, and so does the connect of the next call (the
		 * socket accepts; no one answers).
		 */
		T_EQ_INT(system(stop), 0);
		db_bind_int64(st, 1, -1);
		T_EQ_INT(db_step(st), -1);
		db_reset(st);
		T_EQ_INT(db_busy(db), 1);
		db_bind_int64(st, 1, -1);
		t0 = mono_ms();
		rc = db_step(st);
		ms = mono_ms() - t0;
		db_reset(st);
		T_EQ_INT(rc, -1);
		T_EQ_INT(db_busy(db), 1);
		T_TRUE(ms >= 450 && ms < 3000);
		(void)printf("  a stopped server: the connect gave up after "
		    "%lld ms: %s\n", (long long)ms, db_errmsg(db));
		T_EQ_INT(system(cont), 0);
		T_EQ_INT(step_again(st), DB_ROW);
	}
out:
	db_finalize(st);
	(void)db_exec(db, "DROP TABLE IF EXISTS f");
	db_close(db);
}

/* Step st (one integer parameter); the result, *ms the time it took. */
static int
timed_step(struct db_stmt *st, int64_t *ms)
{
	int64_t	t0 = mono_ms();
	int	rc;

	db_bind_int64(st, 1, -1);
	rc = db_step(st);
	*ms = mono_ms() - t0;
	db_reset(st);
	if (rc == -1)
		(void)printf("  (step: %s)\n", db_errmsg(st->db));
	return rc;
}

/*
 * Through a TCP proxy (TICKD_TEST_PG_PROXY, a conninfo; _BLACKHOLE, _CUT,
 * _RESTORE: commands that make it forward nothing, reset every
 * connection, forward again), with a 500 ms deadline: a partition costs a
 * call its deadline (and a connect too), a reset fails the call at once,
 * and once the link is back the next call reconnects.
 */
static void
test_pg_proxy(const char *pg)
{
	const char	*hole = getenv("TICKD_TEST_PG_BLACKHOLE");
	const char	*cut = getenv("TICKD_TEST_PG_CUT");
	const char	*restore = getenv("TICKD_TEST_PG_RESTORE");
	struct db	*db;
	struct db_stmt	*st = NULL;
	char		*cause = NULL;
	int64_t		 ms;

	T_RUN("postgresql: through a proxy");
	if (hole == NULL || cut == NULL || restore == NULL) {
		(void)printf("  TICKD_TEST_PG_BLACKHOLE, _CUT, _RESTORE not "
		    "set\n");
		T_TRUE(0);
		return;
	}
	if ((db = db_pg_open(pg, 500, &cause)) == NULL) {
		(void)printf("  %s\n", cause);
		free(cause);
		T_TRUE(0);
		return;
	}
	T_EQ_INT(db_prepare(db, "SELECT count(*) FROM pg_class WHERE "
	    "relpages > ?1", &st), 0);
	if (st == NULL)
		goto out;
	T_EQ_INT(timed_step(st, &ms), DB_ROW);

	T_EQ_INT(system(hole), 0);
	T_EQ_INT(timed_step(st, &ms), -1);
	T_EQ_INT(db_busy(db), 1);
	T_TRUE(ms >= 450 && ms < 3000);
	(void)printf("  blackholed: the step gave up after %lld ms: %s\n",
	    (long long)ms, db_errmsg(db));
	T_EQ_INT(timed_step(st, &ms), -1);
	T_EQ_INT(db_busy(db), 1);
	T_TRUE(ms >= 450 && ms < 3000);
	(void)printf("  blackholed: the reconnect gave up after %lld ms: %s\n",
	    (long long)ms, db_errmsg(db));
	T_EQ_INT(system(restore), 0);
	ms = mono_ms();
	T_EQ_INT(step_again(st), DB_ROW);
	ms = mono_ms() - ms;
	(void)printf("  restored: reconnected, prepared and answered in %lld "
	    "ms\n", (long long)ms);

	T_EQ_INT(system(cut), 0);
	T_EQ_INT(timed_step(st, &ms), -1);
	T_EQ_INT(db_busy(db), 1);
	T_TRUE(ms < 3000);
	(void)printf("  cut: the step failed after %lld ms: %s\n",
	    (long long)ms, db_errmsg(db));
	T_EQ_INT(system(restore), 0);
	ms = mono_ms();
	T_EQ_INT(step_again(st), DB_ROW);
	ms = mono_ms() - ms;
	(void)printf("  restored: answered in %lld ms\n", (long long)ms);
out:
	db_finalize(st);
	db_close(db);
}

static void
test_store(const char *state, const char *name, const char *restart)
{
	const char	*stop = getenv("TICKD_TEST_PG_STOP");
	const char	*cont = getenv("TICKD_TEST_PG_CONT");
	int64_t		 t0, ms;
	struct store		*s;
	struct store_claim	 c = { "j", T0, "schedule", "schedule", "me",
	    NOW_MS, T0 + 60, NULL, NULL, "0123456789abcdef0123456789abcdef",
	    "boot" };
	struct store_claimed	 out;
	struct store_end	 e;
	struct store_decision	 d = { "j", "skipped", "overlap", T0 - 60,
	    T0 - 1, 2, NOW_MS, -1 };
	struct store_job	 sj = { 0xfeedface12345678ULL, T0, 1, "b", -1,
	    NOW_MS };
	struct store_job	 got;
	char			*cause = NULL, buf[64];
	int			 n = 0;

	T_RUN(name);
	if ((s = store_open(state, 0, &cause)) == NULL) {
		(void)printf("  store_open: %s\n", cause);
		free(cause);
		T_TRUE(0);
		return;
	}
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_claim(s, &c, &out), 1);
	T_EQ_INT(out.attempt, 1);
	T_EQ_STR(out.run_id, "j@2027-03-14T07:00:00Z");
	T_EQ_INT(store_run_claim(s, &c, &out), 0);
	T_EQ_INT(store_commit(s), 0);
	T_EQ_INT(store_attempt_started(s, out.rowid, 1, 4242, 99, NOW_MS + 5,
	    5, "/sys/fs/cgroup/x"), 0);
	T_EQ_INT(store_runs_found(s, "running", count_found, &n), 0);
	T_EQ_INT(n, 1);
	memset(&e, 0, sizeof e);
	e.rowid = out.rowid;
	e.attempt = 1;
	e.status = "succeeded";
	e.outcome = "succeeded";
	e.started_ms = NOW_MS + 5;
	e.finished_ms = NOW_MS + 50;
	e.lateness_ms = 5;
	e.duration_ms = 45;
	e.exit_status = 0;
	e.signal = -1;
	e.retry_at = -1;
	e.tail = "out\0put\n";
	e.tail_len = 8;
	e.usage_source = "cgroup";
	e.cpu_user_us = 10;
	e.cpu_system_us = 20;
	e.mem_peak = 4096;
	T_EQ_INT(store_attempt_end(s, &e), 0);
	n = 0;
	T_EQ_INT(store_runs_found(s, "succeeded", count_found, &n), 0);
	T_EQ_INT(n, 1);
	T_EQ_INT(store_decision_add(s, &d), 0);
	T_EQ_INT(store_job_put(s, "j", &sj, NOW_MS), 0);
	T_EQ_INT(store_job_get(s, "j", &got), 1);
	T_EQ_INT(got.sched_hash == sj.sched_hash, 1);
	T_EQ_INT(got.planned, T0);
	T_EQ_INT(got.paused, 1);
	T_EQ_INT(got.overdue_alerted, -1);
	T_EQ_INT(store_job_last_success(s, "j"), NOW_MS + 50);
	T_EQ_INT(store_meta_set(s, "k", "v"), 0);
	T_EQ_INT(store_meta_get(s, "k", buf, sizeof buf), 1);
	T_EQ_STR(buf, "v");
	T_EQ_INT(store_lease_renew(s, "me", T0 + 120), 0);
	store_close(s);
	/* Found again: the schema is not created twice. */
	s = store_open(state, 0, &cause);
	T_TRUE(s != NULL);
	if (s == NULL) {
		(void)printf("  store_open again: %s\n", cause);
		free(cause);
		return;
	}
	T_EQ_INT(store_meta_get(s, "k", buf, sizeof buf), 1);
	if (restart != NULL) {
		/*
		 * The server restarted between two calls: the next call
		 * fails as busy (try later) or reconnects; the one after
		 * works, on a new connection.
		 */
		T_EQ_INT(system(restart), 0);
		if (store_meta_get(s, "k", buf, sizeof buf) == -1)
			T_EQ_INT(store_busy(s), 1);
		T_EQ_INT(store_meta_get(s, "k", buf, sizeof buf), 1);
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_meta_set(s, "k", "w"), 0);
		T_EQ_INT(store_commit(s), 0);
	}
	if (restart != NULL && stop != NULL && cont != NULL) {
		/*
		 * A server that stops answering (its processes stopped):
		 * the call gives up as busy within the store's deadline
		 * (1 s; at most 3 s here on a loaded machine), and works
		 * again once the server answers.
		 */
		T_EQ_INT(system(stop), 0);
		t0 = mono_ms();
		T_EQ_INT(store_meta_get(s, "k", buf, sizeof buf), -1);
		ms = mono_ms() - t0;
		T_EQ_INT(store_busy(s), 1);
		T_TRUE(ms >= 900 && ms < 3000);
		(void)printf("  a silent server: the call gave up after %lld "
		    "ms\n", (long long)ms);
		T_EQ_INT(system(cont), 0);
		T_EQ_INT(store_meta_get(s, "k", buf, sizeof buf), 1);
	}
	store_close(s);
}

int
main(void)
{
	struct db	*db;
	const char	*pg = getenv("TICKD_TEST_PG");
	char		*why = NULL, path[128];

	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	(void)snprintf(path, sizeof path, "%s/v.db", tmpdir);
	if ((db = db_sqlite_open(path, DB_SQLITE_CREATE, 250, &why)) ==
	    NULL) {
		(void)printf("sqlite: %s\n", why);
		return 1;
	}
	test_values(db, "sqlite: values");
	db_close(db);
	(void)snprintf(path, sizeof path, "%s/store.db", tmpdir);
	test_store(path, "sqlite: store", NULL);
	test_pg_conninfo();
	if (pg != NULL && *pg != '\0') {
		if ((db = db_pg_open(pg, 5000, &why)) == NULL) {
			(void)printf("postgresql: %s\n", why);
			return 1;
		}
		/* From an empty schema. */
		T_RUN("postgresql: empty");
		T_EQ_INT(run(db, "DROP SCHEMA public CASCADE; CREATE SCHEMA "
		    "public"), 0);
		test_values(db, "postgresql: values");
		test_session(db);
		T_EQ_INT(run(db, "DROP TABLE v"), 0);
		db_close(db);
		if (getenv("TICKD_TEST_PG_LOCAL") != NULL)
			test_pg_faults(pg);
		if (getenv("TICKD_TEST_PG_PROXY") != NULL)
			test_pg_proxy(getenv("TICKD_TEST_PG_PROXY"));
		test_store(pg, "postgresql: store",
		    getenv("TICKD_TEST_PG_RESTART"));
	} else
		(void)printf("postgresql: skipped (TICKD_TEST_PG is not "
		    "set)\n");
	(void)unlink(path);
	(void)snprintf(path, sizeof path, "%s/store.db-wal", tmpdir);
	(void)unlink(path);
	(void)snprintf(path, sizeof path, "%s/store.db-shm", tmpdir);
	(void)unlink(path);
	(void)snprintf(path, sizeof path, "%s/v.db", tmpdir);
	(void)unlink(path);
	(void)rmdir(tmpdir);
	return t_done();
}

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
#include <inttypes.h>
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
		T_EQ_INT(run(db, "DROP TABLE v"), 0);
		db_close(db);
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

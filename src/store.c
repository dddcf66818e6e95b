/*
 * store.c -- the SQLite store of run instances, attempts and decisions.
 *
 * One writer (the daemon; a lock file keeps it single), readers through
 * WAL.  Every statement is prepared once in store_open and finalized in
 * store_close.  synchronous=FULL: a committed claim survives power loss,
 * which is what makes "claimed before fork" mean "never run twice".  The
 * busy timeout is short (STORE_BUSY_MS): the daemon never blocks its loop
 * on another process's lock; it sees -1 with store_busy() and retries,
 * and the delay shows up as lateness.
 *
 * The identity of a run instance is (job, origin, scheduled_at), a unique
 * key; its public name, TICKD_RUN_ID, is "JOB@INSTANT" (plus "/ORIGIN"
 * for manual and @reboot instances).  A claim inserts the instance if it
 * is absent, then moves it to running with one conditional UPDATE that
 * succeeds only for a pending instance, so two claims of one instance
 * cannot both succeed.
 *
 * Opening checks the file before anything is written to it: a database
 * that is damaged (SQLite cannot read it, or PRAGMA quick_check finds a
 * fault) or that is not tickd's (tables of its own and no schema
 * version, or a schema version without tickd's tables) is refused, and
 * left as it was, with a cause that names the recovery in tickd(8).
 * Running a job on a store that cannot say what ran is what "claimed
 * before fork" exists to prevent.
 *
 * The file can also go away while the daemon runs: deleted, or replaced
 * by a rename.  SQLite would go on writing to the open descriptor, into a
 * file nobody will ever open again: every claim would vanish at the next
 * start, and the WAL beside the path would hold pages of the old file,
 * which a reader (or the next daemon) would apply to the new one.  So
 * every write transaction first asks SQLite whether the file at the path
 * is still the one open (SQLITE_FCNTL_HAS_MOVED, one stat(2)); when it is
 * not, the WAL is checkpointed into the old file and emptied, and the
 * write fails with a cause saying so (not "busy"): nothing more is
 * written, and tickd must be restarted to use the file now at the path.
 * If the same file comes back (renamed back), writes resume.
 *
 * DIAGNOSTICS: functions return -1 and keep the SQLite message for
 * store_error(); store_open returns NULL with *cause set.  Nothing is
 * logged here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "rfc3339.h"
#include "store.h"
#include "store_schema.h"
#include "xmalloc.h"

#define STORE_BUSY_MS	250
#define STORE_WAL_MAX	10000	/* WAL pages: checkpointed in the commit */

/* The end of a cause about a file tickd cannot use, in tickd(8). */
#define STORE_RECOVER	"move it aside to recover it or start afresh " \
	"(see \"If the database is corrupt\" in tickd(8))"

enum {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_SAVEPOINT,
	ST_RELEASE,
	ST_ROLLBACK_TO,
	ST_JOB_GET,
	ST_JOB_PUT,
	ST_RUN_INSERT,
	ST_RUN_CLAIM,
	ST_RUN_CLAIMED,
	ST_ATTEMPT_INSERT,
	ST_ATTEMPT_STARTED,
	ST_RUN_STARTED,
	ST_ATTEMPT_END,
	ST_RUN_END,
	ST_DECISION_ADD,
	ST_LEASE_RENEW,
	ST_META_GET,
	ST_META_SET,
	ST_RUN_QUEUE,
	ST_RUN_UNQUEUE,
	ST_JOB_IDS,
	ST_JOB_LAST_END,
	ST_RUN_CLAIM_ID,
	ST_RUN_CLAIMED_ID,
	ST_RUN_SKIP,
	ST_RUNS_FOUND,
	ST_JOB_LAST_SUCCESS,
	ST_RUN_REQUEUE,
	ST_RUN_STATUS,
	ST_PRUNE_OVER,
	ST_PRUNE_JOB,
	ST_PRUNE_AGE,
	ST_PRUNE_DECISIONS,
	ST_RUN_LAST,
	ST_LEASE_TAKE,
	ST_RUN_FAILURE,
	ST_RUN_NOTE,
	ST_COUNT
};

static const char *const store_sql[ST_COUNT] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_SAVEPOINT] = "SAVEPOINT part",
	[ST_RELEASE] = "RELEASE part",
	[ST_ROLLBACK_TO] = "ROLLBACK TO part",
	[ST_JOB_GET] = "SELECT sched_hash, planned, paused, boot_id, "
	    "overdue_alerted, watch_since FROM jobs WHERE job = ?1",
	[ST_JOB_PUT] = "INSERT INTO jobs (job, sched_hash, planned, paused, "
	    "boot_id, updated_at, overdue_alerted, watch_since) VALUES (?1, ?2, "
	    "?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (job) DO UPDATE SET "
	    "sched_hash = ?2, planned = ?3, paused = ?4, boot_id = ?5, "
	    "updated_at = ?6, overdue_alerted = ?7, watch_since = ?8",
	[ST_RUN_INSERT] = "INSERT INTO runs (run_id, job, scheduled_at, "
	    "origin, trigger, status, created_at) VALUES (?1, ?2, ?3, ?4, ?5, "
	    "'pending', ?6) ON CONFLICT DO NOTHING",
	[ST_RUN_CLAIM] = "UPDATE runs SET status = 'running', reason = NULL, "
	    "detail = NULL, trigger = ?4, owner = ?5, lease_until = ?6, "
	    "attempts = attempts + 1 "
	    "WHERE job = ?1 AND origin = ?2 AND scheduled_at = ?3 "
	    "AND (status IN ('pending', 'queued') OR "
	    "(status = 'running' AND lease_until < ?7 AND owner IS NOT ?5))",
	[ST_RUN_CLAIMED] = "SELECT id, attempts, run_id FROM runs "
	    "WHERE job = ?1 AND origin = ?2 AND scheduled_at = ?3",
	[ST_ATTEMPT_INSERT] = "INSERT INTO attempts (run, attempt, trigger, "
	    "invocation, boot_id) VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_ATTEMPT_STARTED] = "UPDATE attempts SET pid = ?3, started_at = ?4,"
	    " lateness_ms = ?5, pid_start = ?6, cgroup = ?7 "
	    "WHERE run = ?1 AND attempt = ?2",
	[ST_RUN_STARTED] = "UPDATE runs SET started_at = coalesce(started_at, "
	    "?2) WHERE id = ?1",
	[ST_ATTEMPT_END] = "UPDATE attempts SET finished_at = ?3, "
	    "duration_ms = ?4, exit_status = ?5, signal = ?6, outcome = ?7, "
	    "error = ?8, started_at = coalesce(started_at, ?9), "
	    "lateness_ms = coalesce(lateness_ms, ?10), output_tail = ?11, "
	    "cpu_user_us = ?12, cpu_system_us = ?13, mem_peak = ?14, "
	    "usage_source = ?15 WHERE run = ?1 AND attempt = ?2",
	[ST_RUN_END] = "UPDATE runs SET status = ?2, reason = ?3, "
	    "owner = NULL, lease_until = NULL, "
	    "started_at = coalesce(started_at, ?4), finished_at = ?5, "
	    "exit_status = ?6, signal = ?7, retry_at = ?8, detail = ?9 "
	    "WHERE id = ?1",
	[ST_DECISION_ADD] = "INSERT INTO decisions (job, decided_at, decision,"
	    " reason, first_at, last_at, count, run) VALUES (?1, ?2, ?3, ?4, "
	    "?5, ?6, ?7, ?8)",
	[ST_LEASE_RENEW] = "UPDATE runs SET lease_until = ?2 WHERE owner = ?1 "
	    "AND status = 'running'",
	[ST_LEASE_TAKE] = "UPDATE runs SET owner = ?1, lease_until = ?2 "
	    "WHERE status = 'running' AND owner IS NOT ?1",
	[ST_META_GET] = "SELECT value FROM meta WHERE key = ?1",
	[ST_META_SET] = "INSERT INTO meta (key, value) VALUES (?1, ?2) "
	    "ON CONFLICT (key) DO UPDATE SET value = ?2",
	[ST_RUN_QUEUE] = "INSERT INTO runs (run_id, job, scheduled_at, "
	    "origin, trigger, status, reason, detail, created_at) VALUES (?1, "
	    "?2, ?3, ?4, ?5, 'queued', ?7, ?8, ?6) ON CONFLICT DO NOTHING",
	[ST_RUN_UNQUEUE] = "UPDATE runs SET status = ?4, "
	    "reason = coalesce(?5, reason), detail = ?7, finished_at = ?6, "
	    "owner = NULL, lease_until = NULL, "
	    "retry_at = NULL WHERE job = ?1 AND origin = ?2 AND "
	    "scheduled_at = ?3 AND status IN ('queued', 'retrying', "
	    "'interrupted') RETURNING id",
	[ST_JOB_IDS] = "SELECT job FROM jobs WHERE sched_hash != "
	    "'0000000000000000' ORDER BY job",
	[ST_JOB_LAST_END] = "SELECT max(finished_at) FROM runs WHERE job = ?1",
	[ST_RUN_CLAIM_ID] = "UPDATE runs SET status = 'running', "
	    "reason = NULL, detail = NULL, retry_at = NULL, finished_at = NULL, "
	    "exit_status = NULL, signal = NULL, trigger = ?2, "
	    "owner = ?3, lease_until = ?4, attempts = attempts + 1 "
	    "WHERE id = ?1 AND (status = 'queued' OR status = 'retrying' OR "
	    "status = 'interrupted')",
	[ST_RUN_CLAIMED_ID] = "SELECT id, attempts, run_id FROM runs "
	    "WHERE id = ?1",
	[ST_RUN_SKIP] = "INSERT INTO runs (run_id, job, scheduled_at, origin, "
	    "trigger, status, reason, detail, created_at, finished_at) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, 'skipped', ?6, ?7, ?8, ?8) "
	    "ON CONFLICT DO NOTHING",
	[ST_RUNS_FOUND] = "SELECT r.id, r.run_id, r.job, r.scheduled_at, "
	    "r.origin, r.trigger, r.status, r.reason, a.attempt, a.pid, "
	    "a.pid_start, a.started_at, r.retry_at, a.invocation, a.boot_id, "
	    "a.cgroup FROM runs r "
	    "LEFT JOIN attempts a ON a.run = r.id AND a.attempt = r.attempts "
	    "WHERE r.status = ?1 ORDER BY r.scheduled_at, r.id",
	[ST_JOB_LAST_SUCCESS] = "SELECT max(finished_at) FROM runs "
	    "WHERE job = ?1 AND status = 'succeeded'",
	[ST_RUN_REQUEUE] = "UPDATE runs SET status = 'queued', reason = "
	    "'replay', detail = NULL, retry_at = NULL WHERE run_id = ?1 AND "
	    "status IN ('failed', 'dead') RETURNING id, job, origin, "
	    "scheduled_at",
	[ST_RUN_STATUS] = "SELECT status FROM runs WHERE run_id = ?1",
	/*
	 * Retention, in bounded chunks: a job's finished instances beyond
	 * the newest `keep` (failed and dead ones stay, to be replayed),
	 * and anything finished or decided before a cut-off.
	 */
	[ST_PRUNE_OVER] = "SELECT 1 FROM runs WHERE job = ?1 LIMIT 1 OFFSET ?2",
	[ST_PRUNE_JOB] = "DELETE FROM runs WHERE id IN (SELECT id FROM runs "
	    "WHERE job = ?1 AND status IN ('succeeded', 'skipped', "
	    "'terminated', 'abandoned', 'unknown') ORDER BY scheduled_at DESC "
	    "LIMIT ?3 OFFSET ?2)",
	[ST_PRUNE_AGE] = "DELETE FROM runs WHERE id IN (SELECT id FROM runs "
	    "WHERE coalesce(finished_at, created_at) < ?1 AND status NOT IN "
	    "('pending', 'queued', 'running', 'retrying', 'interrupted') "
	    "LIMIT ?2)",
	[ST_PRUNE_DECISIONS] = "DELETE FROM decisions WHERE id IN (SELECT id "
	    "FROM decisions WHERE decided_at < ?1 LIMIT ?2)",
	[ST_RUN_LAST] = "SELECT max(scheduled_at) FROM runs WHERE job = ?1 "
	    "AND origin = ?2",
	[ST_RUN_FAILURE] = "SELECT id, attempts, reason, exit_status, signal "
	    "FROM runs WHERE job = ?1 AND origin = ?2 AND scheduled_at = ?3 "
	    "AND status = 'retrying'",
	[ST_RUN_NOTE] = "UPDATE runs SET detail = ?4 WHERE job = ?1 AND "
	    "origin = ?2 AND scheduled_at = ?3 AND status IN ('queued', "
	    "'retrying', 'interrupted')",
};

struct store {
	sqlite3		*db;
	sqlite3_stmt	*st[ST_COUNT];
	char		*path;
	int		 busy;		/* the last failure was a lock */
	int		 emptied;	/* moved away, and the WAL emptied */
	int		 wal_pages;	/* in the WAL after the last commit */
	char		 err[512];
};

/* Remember the error of the last failed call; always returns -1. */
static int
store_fail(struct store *s, int rc)
{
	int base = rc & 0xff;

	s->busy = base == SQLITE_BUSY || base == SQLITE_LOCKED;
	(void)snprintf(s->err, sizeof s->err, "%s", sqlite3_errmsg(s->db));
	return -1;
}

/*
 * Whether the file at the path is still the one open; -1 with the error
 * set when it is not.  On the first call that finds it gone, what the WAL
 * holds is checkpointed into the old file and the WAL emptied, so that
 * the file now at the path never sees a page of ours.
 */
static int
store_unmoved(struct store *s)
{
	int moved = 0;

	if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_HAS_MOVED,
	    &moved) != SQLITE_OK || !moved) {
		s->emptied = 0;
		return 0;
	}
	/* A reader can make it fail: tried again at the next write. */
	if (!s->emptied && sqlite3_exec(s->db, "PRAGMA wal_checkpoint("
	    "TRUNCATE)", NULL, NULL, NULL) == SQLITE_OK)
		s->emptied = 1;
	s->busy = 0;
	(void)snprintf(s->err, sizeof s->err, "%s was deleted or replaced "
	    "while tickd ran: nothing more is written to it; restart tickd to "
	    "use the file now at that path", s->path);
	return -1;
}

/*
 * Run a statement to completion (no rows wanted); 0 or -1.  A write
 * outside a transaction (a lease renewal) checks the file first, as
 * store_begin does.
 */
static int
store_step_done(struct store *s, sqlite3_stmt *st)
{
	int rc;

	if (sqlite3_get_autocommit(s->db) && !sqlite3_stmt_readonly(st) &&
	    store_unmoved(s) == -1) {
		(void)sqlite3_clear_bindings(st);
		return -1;
	}
	rc = sqlite3_step(st);
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_fail(s, rc);
	s->busy = 0;
	return 0;
}

/* Bind an int64 that may be "none" (-1) as NULL. */
static void
store_bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
	if (v == -1)
		(void)sqlite3_bind_null(st, i);
	else
		(void)sqlite3_bind_int64(st, i, v);
}

/* Bind a string that may be NULL. */
static void
store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v == NULL)
		(void)sqlite3_bind_null(st, i);
	else
		(void)sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

/* Run some SQL text without results; 0, or -1 with *cause set. */
static int
store_exec(sqlite3 *db, const char *sql, char **cause)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		*cause = xstrdup(msg != NULL ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Whether an SQLite result says the file is damaged or not a database. */
static int
store_damaged(int rc)
{
	return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB;
}

/*
 * The cause of a failure to open path: SQLite's message, and the
 * recovery when the file is damaged.
 */
static char *
store_open_cause(sqlite3 *db, const char *path, const char *msg)
{
	if (store_damaged(sqlite3_extended_errcode(db)))
		return xasprintf("%s: %s: " STORE_RECOVER, path, msg);
	return xasprintf("%s: %s", path, msg);
}

/* Run a query that returns one integer; 0 (*out set), or -1. */
static int
store_int(sqlite3 *db, const char *sql, int *out)
{
	sqlite3_stmt	*st = NULL;
	int		 rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*out = sqlite3_column_int(st, 0);
	(void)sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/*
 * The cause for a database PRAGMA quick_check finds damaged, on one line:
 * its first finding, without the "*** in database main ***" heading.
 */
static char *
store_damage(const char *path, const char *found)
{
	static const char	 head[] = "*** in database main ***";
	char			*cause, *p;

	if (found == NULL)
		found = "?";
	if (strncmp(found, head, sizeof head - 1) == 0)
		found += sizeof head - 1;
	found += strspn(found, " \n");
	cause = xasprintf("%s: the database is damaged: %s: " STORE_RECOVER,
	    path, found);
	for (p = cause; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return cause;
}

/*
 * Check, reading only, that path is a sound tickd database or a new one
 * (no schema at all): 0, or -1 with *cause.  Nothing is written to a file
 * that fails, so that it can still be recovered.
 */
static int
store_check(sqlite3 *db, const char *path, char **cause)
{
	sqlite3_stmt	*st = NULL;
	const char	*text;
	int		 version, objects, ours, rc, ok;

	if (store_int(db, "PRAGMA user_version", &version) == -1 ||
	    store_int(db, "SELECT count(*) FROM sqlite_schema", &objects) ==
	    -1 || store_int(db, "SELECT count(*) FROM sqlite_schema WHERE "
	    "type = 'table' AND name IN ('runs', 'attempts', 'decisions', "
	    "'jobs', 'meta')", &ours) == -1) {
		*cause = store_open_cause(db, path, sqlite3_errmsg(db));
		return -1;
	}
	if (version == 0 && objects == 0)
		return 0;		/* new: the migrations create it */
	if (version == 0 || ours != 5) {
		*cause = xasprintf("%s: not a tickd database (%s): check the "
		    "state setting, or " STORE_RECOVER, path, version == 0 ?
		    "tables, but no schema version" : "a schema version, but "
		    "not tickd's tables");
		return -1;
	}
	/* Every page of every table and index, read once (not slow). */
	if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL) !=
	    SQLITE_OK) {
		*cause = store_open_cause(db, path, sqlite3_errmsg(db));
		return -1;
	}
	rc = sqlite3_step(st);
	text = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) :
	    NULL;
	ok = text != NULL && strcmp(text, "ok") == 0;
	if (rc != SQLITE_ROW)
		*cause = store_open_cause(db, path, sqlite3_errmsg(db));
	else if (!ok)
		*cause = store_damage(path, text);
	(void)sqlite3_finalize(st);
	return ok ? 0 : -1;
}

/* Bring the schema to STORE_SCHEMA_VERSION; 0 or -1 with *cause. */
static int
store_migrate(sqlite3 *db, const char *path, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		*why = NULL, *sql;
	int		 version = -1;
	size_t		 i;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) ==
	    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	(void)sqlite3_finalize(st);
	if (version < 0) {
		*cause = xasprintf("%s: cannot read the schema version: %s",
		    path, sqlite3_errmsg(db));
		return -1;
	}
	if ((size_t)version > store_schema_steps) {
		*cause = xasprintf("%s: schema version %d is newer than this "
		    "tickd understands (%zu): downgrade is not supported",
		    path, version, store_schema_steps);
		return -1;
	}
	for (i = (size_t)version; i < store_schema_steps; i++) {
		sql = xasprintf("BEGIN IMMEDIATE; %s PRAGMA user_version = %zu;"
		    " COMMIT;", store_schema[i], i + 1);
		if (store_exec(db, sql, &why) == -1) {
			free(sql);
			(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			*cause = xasprintf("%s: migrating the schema to version "
			    "%zu: %s", path, i + 1, why);
			free(why);
			return -1;
		}
		free(sql);
	}
	return 0;
}

/*
 * After each commit: how many pages the WAL holds.  The owner checkpoints
 * when it suits it (store_checkpoint); past STORE_WAL_MAX pages the
 * commit does it, as SQLite's own hook would at 1000, so that the WAL
 * stays bounded whoever writes.
 */
static int
store_wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct store *s = arg;

	s->wal_pages = pages;
	if (pages >= STORE_WAL_MAX) {
		(void)sqlite3_wal_checkpoint_v2(db, name,
		    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		s->wal_pages = 0;
	}
	return SQLITE_OK;
}

/*
 * Open (creating if needed and not readonly) the store at path.  Returns
 * a store (caller frees with store_close), or NULL with *cause set.
 */
struct store *
store_open(const char *path, int readonly, char **cause)
{
	struct store	*s = xcalloc(1, sizeof *s);
	char		*why = NULL;
	int		 i, rc, flags, fd;

	flags = readonly ? SQLITE_OPEN_READONLY :
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	/*
	 * SQLite creates the file 0644 less the umask, and the -wal and -shm
	 * files with the mode of the database: the output tails of root's
	 * jobs would be anyone's to read.  Made here first, the file is the
	 * owner's only (an existing one keeps its mode).  A failure is left
	 * to SQLite, whose message is the cause.
	 */
	if (!readonly && (fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC |
	    O_NOCTTY, 0600)) != -1)
		(void)close(fd);
	rc = sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		*cause = xasprintf("%s: %s", path, s->db != NULL ?
		    sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		goto fail;
	}
	(void)sqlite3_extended_result_codes(s->db, 1);
	(void)sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
	s->path = xstrdup(path);
	if (!readonly) {
		if (store_check(s->db, path, cause) == -1)
			goto fail;
		if (store_exec(s->db, "PRAGMA journal_mode = WAL;"
		    "PRAGMA synchronous = FULL;"
		    "PRAGMA foreign_keys = ON;", &why) == -1) {
			*cause = store_open_cause(s->db, path, why);
			free(why);
			goto fail;
		}
		if (store_migrate(s->db, path, cause) == -1)
			goto fail;
		/* No checkpoint inside a commit: store_checkpoint. */
		(void)sqlite3_wal_hook(s->db, store_wal_hook, s);
	}
	for (i = 0; i < ST_COUNT && !readonly; i++) {
		if (sqlite3_prepare_v3(s->db, store_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL) != SQLITE_OK) {
			*cause = xasprintf("%s: preparing statement %d: %s",
			    path, i, sqlite3_errmsg(s->db));
			goto fail;
		}
	}
	return s;

fail:
	store_close(s);
	return NULL;
}

/* Finalize every statement and close; NULL is allowed. */
void
store_close(struct store *s)
{
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < ST_COUNT; i++)
		(void)sqlite3_finalize(s->st[i]);
	if (s->db != NULL)
		(void)sqlite3_close(s->db);
	free(s->path);
	free(s);
}

/* The message of the last failure. */
const char *
store_error(const struct store *s)
{
	return s->err;
}

/* Whether the last failure was another process holding a lock. */
int
store_busy(const struct store *s)
{
	return s->busy;
}

/*
 * Start a write transaction (takes the write lock now), if the file is
 * still the one at the path.
 */
int
store_begin(struct store *s)
{
	if (store_unmoved(s) == -1)
		return -1;
	return store_step_done(s, s->st[ST_BEGIN]);
}

/* Commit; on failure the transaction is rolled back. */
int
store_commit(struct store *s)
{
	if (store_step_done(s, s->st[ST_COMMIT]) == -1) {
		store_rollback(s);
		return -1;
	}
	return 0;
}

/*
 * Roll back the open transaction, if any.  store_error() and store_busy()
 * keep describing the failure that made the caller roll back.
 */
void
store_rollback(struct store *s)
{
	char	err[sizeof s->err];
	int	busy = s->busy;

	if (sqlite3_get_autocommit(s->db))
		return;
	(void)memcpy(err, s->err, sizeof err);
	(void)store_step_done(s, s->st[ST_ROLLBACK]);
	(void)memcpy(s->err, err, sizeof err);
	s->busy = busy;
}

/*
 * A part of the open transaction that can fail alone: store_part_begin,
 * then store_part_end(s, 1) to keep it or (s, 0) to undo it and go on
 * with the rest of the transaction.  Parts do not nest.
 */
int
store_part_begin(struct store *s)
{
	return store_step_done(s, s->st[ST_SAVEPOINT]);
}

int
store_part_end(struct store *s, int keep)
{
	char	err[sizeof s->err];
	int	busy = s->busy;

	if (keep)
		return store_step_done(s, s->st[ST_RELEASE]);
	(void)memcpy(err, s->err, sizeof err);
	if (store_step_done(s, s->st[ST_ROLLBACK_TO]) == -1 ||
	    store_step_done(s, s->st[ST_RELEASE]) == -1)
		return -1;
	(void)memcpy(s->err, err, sizeof err);
	s->busy = busy;
	return 0;
}

/*
 * Copy the WAL back into the database if it holds at least `pages` pages.
 * SQLite would do it inside the commit that crosses 1000 pages: tens of
 * milliseconds more before the claims of that commit reach their forks.
 * The daemon calls this when nothing is due soon instead.  PASSIVE: it
 * never waits for a reader; what a reader still needs is copied next
 * time.  0, or -1 with the error set.
 */
int
store_checkpoint(struct store *s, int pages)
{
	int rc;

	if (s->wal_pages < pages)
		return 0;
	s->wal_pages = 0;
	rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE,
	    NULL, NULL);
	return rc == SQLITE_OK ? 0 : store_fail(s, rc);
}

/* The stored state of a job: 1 found, 0 not found, -1 error. */
int
store_job_get(struct store *s, const char *job, struct store_job *out)
{
	sqlite3_stmt	*st = s->st[ST_JOB_GET];
	const char	*text;
	int		 rc;

	memset(out, 0, sizeof *out);
	out->planned = -1;
	out->overdue_alerted = -1;
	out->watch_since = -1;
	(void)sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		text = (const char *)sqlite3_column_text(st, 0);
		out->sched_hash = text ? strtoull(text, NULL, 16) : 0;
		out->planned = sqlite3_column_type(st, 1) == SQLITE_NULL ?
		    -1 : sqlite3_column_int64(st, 1);
		out->paused = sqlite3_column_int(st, 2);
		text = (const char *)sqlite3_column_text(st, 3);
		(void)snprintf(out->boot_id, sizeof out->boot_id, "%s",
		    text ? text : "");
		out->overdue_alerted = sqlite3_column_type(st, 4) ==
		    SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
		out->watch_since = sqlite3_column_type(st, 5) ==
		    SQLITE_NULL ? -1 : sqlite3_column_int64(st, 5);
	}
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(s, rc);
	s->busy = 0;
	return rc == SQLITE_ROW;
}

/* Insert or replace the stored state of a job. */
int
store_job_put(struct store *s, const char *job, const struct store_job *j,
    int64_t now_ms)
{
	sqlite3_stmt	*st = s->st[ST_JOB_PUT];
	char		 hash[17];

	(void)snprintf(hash, sizeof hash, "%016" PRIx64, j->sched_hash);
	(void)sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 2, hash, -1, SQLITE_TRANSIENT);
	store_bind_opt(st, 3, j->planned);
	(void)sqlite3_bind_int(st, 4, j->paused);
	store_bind_text(st, 5, j->boot_id[0] != '\0' ? j->boot_id : NULL);
	(void)sqlite3_bind_int64(st, 6, now_ms);
	store_bind_opt(st, 7, j->overdue_alerted);
	store_bind_opt(st, 8, j->watch_since);
	return store_step_done(s, st);
}

/* The public id of an instance: "JOB@INSTANT[/ORIGIN]". */
void
store_run_id(const char *job, int64_t at, const char *origin, char *buf,
    size_t len)
{
	char when[RFC3339_BUFSZ];

	rfc3339_format_utc(at, when, sizeof when);
	if (origin == NULL || strcmp(origin, "schedule") == 0)
		(void)snprintf(buf, len, "%s@%s", job, when);
	else
		(void)snprintf(buf, len, "%s@%s/%s", job, when, origin);
}

/* The origin a run id names (its suffix): "manual", "reboot", "schedule". */
const char *
store_run_origin(const char *run_id)
{
	const char *slash = strrchr(run_id, '/');

	if (slash != NULL && strcmp(slash, "/manual") == 0)
		return "manual";
	if (slash != NULL && strcmp(slash, "/reboot") == 0)
		return "reboot";
	return "schedule";
}

/*
 * A claim's UPDATE changed its row: read what the row became (st, the
 * bound SELECT) into out and add the attempt.  1, or -1.  Not UPDATE ...
 * RETURNING, which costs a temporary table per statement.
 */
static int
store_claimed(struct store *s, sqlite3_stmt *st, const struct store_claim *c,
    struct store_claimed *out)
{
	const char	*text;
	int		 rc;

	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		out->rowid = sqlite3_column_int64(st, 0);
		out->attempt = sqlite3_column_int(st, 1);
		text = (const char *)sqlite3_column_text(st, 2);
		(void)snprintf(out->run_id, sizeof out->run_id, "%s",
		    text ? text : "");
	}
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	if (rc == SQLITE_DONE) {	/* not in this transaction */
		s->busy = 0;
		(void)snprintf(s->err, sizeof s->err, "the claimed run is gone");
		return -1;
	}
	if (rc != SQLITE_ROW)
		return store_fail(s, rc);
	st = s->st[ST_ATTEMPT_INSERT];
	(void)sqlite3_bind_int64(st, 1, out->rowid);
	(void)sqlite3_bind_int(st, 2, out->attempt);
	(void)sqlite3_bind_text(st, 3, c->trigger, -1, SQLITE_STATIC);
	store_bind_text(st, 4, c->invocation);
	store_bind_text(st, 5, c->boot_id);
	if (store_step_done(s, st) == -1)
		return -1;
	(void)snprintf(out->invocation, sizeof out->invocation, "%s",
	    c->invocation != NULL ? c->invocation : "");
	return 1;
}

/*
 * Claim an instance for a new attempt, inside the caller's transaction:
 * insert it if absent, move it to running under our lease if it is
 * pending or queued, or running under another owner's lease that has
 * expired (that owner is gone: only one daemon holds the store's lock;
 * our own expired lease means a renewal failed, not that the run ended),
 * and add the attempt row.  Returns 1 claimed (*out set), 0 when the
 * instance exists and is not claimable (it ran, or runs), -1 on error.
 */
int
store_run_claim(struct store *s, const struct store_claim *c,
    struct store_claimed *out)
{
	sqlite3_stmt	*st;
	char		 run_id[STORE_RUN_ID_MAX];

	store_run_id(c->job, c->scheduled_at, c->origin, run_id,
	    sizeof run_id);
	st = s->st[ST_RUN_INSERT];
	(void)sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 2, c->job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 3, c->scheduled_at);
	(void)sqlite3_bind_text(st, 4, c->origin, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 5, c->trigger, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 6, c->now_ms);
	if (store_step_done(s, st) == -1)
		return -1;

	st = s->st[ST_RUN_CLAIM];
	(void)sqlite3_bind_text(st, 1, c->job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 2, c->origin, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 3, c->scheduled_at);
	(void)sqlite3_bind_text(st, 4, c->trigger, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 5, c->owner, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 6, c->lease_until);
	(void)sqlite3_bind_int64(st, 7, c->now_ms / 1000);
	if (store_step_done(s, st) == -1)
		return -1;
	if (sqlite3_changes(s->db) == 0)
		return 0;
	st = s->st[ST_RUN_CLAIMED];
	(void)sqlite3_bind_text(st, 1, c->job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 2, c->origin, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 3, c->scheduled_at);
	return store_claimed(s, st, c, out);
}


/*
 * Record that an attempt's process started (pid_start: -1 if unknown;
 * cgroup: its cgroup's directory, NULL for none).
 */
int
store_attempt_started(struct store *s, int64_t rowid, int attempt, pid_t pid,
    int64_t pid_start, int64_t started_ms, int64_t lateness_ms,
    const char *cgroup)
{
	sqlite3_stmt *st = s->st[ST_ATTEMPT_STARTED];

	(void)sqlite3_bind_int64(st, 1, rowid);
	(void)sqlite3_bind_int(st, 2, attempt);
	(void)sqlite3_bind_int64(st, 3, (int64_t)pid);
	(void)sqlite3_bind_int64(st, 4, started_ms);
	(void)sqlite3_bind_int64(st, 5, lateness_ms);
	store_bind_opt(st, 6, pid_start);
	store_bind_text(st, 7, cgroup);
	if (store_step_done(s, st) == -1)
		return -1;
	st = s->st[ST_RUN_STARTED];
	(void)sqlite3_bind_int64(st, 1, rowid);
	(void)sqlite3_bind_int64(st, 2, started_ms);
	return store_step_done(s, st);
}

/* Record the end of an attempt and the instance's resulting status. */
int
store_attempt_end(struct store *s, const struct store_end *e)
{
	sqlite3_stmt	*st = s->st[ST_ATTEMPT_END];
	int64_t		 dur = e->started_ms == -1 ? -1 : e->duration_ms;

	(void)sqlite3_bind_int64(st, 1, e->rowid);
	(void)sqlite3_bind_int(st, 2, e->attempt);
	(void)sqlite3_bind_int64(st, 3, e->finished_ms);
	store_bind_opt(st, 4, dur);
	store_bind_opt(st, 5, e->exit_status);
	store_bind_opt(st, 6, e->signal);
	store_bind_text(st, 7, e->outcome);
	store_bind_text(st, 8, e->error);
	store_bind_opt(st, 9, e->started_ms);
	store_bind_opt(st, 10, e->lateness_ms);
	if (e->tail != NULL && e->tail_len > 0)
		(void)sqlite3_bind_blob(st, 11, e->tail, (int)e->tail_len,
		    SQLITE_TRANSIENT);
	else
		(void)sqlite3_bind_null(st, 11);
	if (e->usage_source != NULL) {
		store_bind_opt(st, 12, e->cpu_user_us);
		store_bind_opt(st, 13, e->cpu_system_us);
		store_bind_opt(st, 14, e->mem_peak);
		store_bind_text(st, 15, e->usage_source);
	}
	if (store_step_done(s, st) == -1)
		return -1;

	st = s->st[ST_RUN_END];
	(void)sqlite3_bind_int64(st, 1, e->rowid);
	store_bind_text(st, 2, e->status);
	store_bind_text(st, 3, e->reason);
	store_bind_opt(st, 4, e->started_ms);
	(void)sqlite3_bind_int64(st, 5, e->finished_ms);
	store_bind_opt(st, 6, e->exit_status);
	store_bind_opt(st, 7, e->signal);
	store_bind_opt(st, 8, e->retry_at);
	store_bind_text(st, 9, e->detail);
	return store_step_done(s, st);
}

/* Record a decision about a range of instants. */
int
store_decision_add(struct store *s, const struct store_decision *d)
{
	sqlite3_stmt *st = s->st[ST_DECISION_ADD];

	(void)sqlite3_bind_text(st, 1, d->job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 2, d->now_ms);
	(void)sqlite3_bind_text(st, 3, d->decision, -1, SQLITE_STATIC);
	store_bind_text(st, 4, d->reason);
	store_bind_opt(st, 5, d->first_at);
	store_bind_opt(st, 6, d->last_at);
	(void)sqlite3_bind_int64(st, 7, d->count);
	store_bind_opt(st, 8, d->run_rowid);
	return store_step_done(s, st);
}

/* Extend the lease of every instance owner runs to until. */
int
store_lease_renew(struct store *s, const char *owner, int64_t until)
{
	sqlite3_stmt *st = s->st[ST_LEASE_RENEW];

	(void)sqlite3_bind_text(st, 1, owner, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 2, until);
	return store_step_done(s, st);
}

/*
 * Take every instance still running under another owner (a previous
 * daemon's, adopted) under owner's lease, until.  Only one daemon holds
 * the store's lock, so another owner is a daemon that is gone.
 */
int
store_lease_take(struct store *s, const char *owner, int64_t until)
{
	sqlite3_stmt *st = s->st[ST_LEASE_TAKE];

	(void)sqlite3_bind_text(st, 1, owner, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 2, until);
	return store_step_done(s, st);
}

/* A meta value into buf: 1 found, 0 not found, -1 error. */
int
store_meta_get(struct store *s, const char *key, char *buf, size_t len)
{
	sqlite3_stmt	*st = s->st[ST_META_GET];
	const char	*text;
	int		 rc;

	(void)sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		text = (const char *)sqlite3_column_text(st, 0);
		(void)snprintf(buf, len, "%s", text ? text : "");
	}
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(s, rc);
	return rc == SQLITE_ROW;
}

/* Set a meta value. */
int
store_meta_set(struct store *s, const char *key, const char *value)
{
	sqlite3_stmt *st = s->st[ST_META_SET];

	(void)sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	store_bind_text(st, 2, value);
	return store_step_done(s, st);
}

/*
 * Record an instance that waits for a free slot (max_running), inside the
 * caller's transaction.  Returns 1 queued, 0 if the instance exists.
 */
int
store_run_queue(struct store *s, const struct store_claim *c)
{
	sqlite3_stmt	*st = s->st[ST_RUN_QUEUE];
	char		 run_id[STORE_RUN_ID_MAX];

	store_run_id(c->job, c->scheduled_at, c->origin, run_id,
	    sizeof run_id);
	(void)sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 2, c->job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 3, c->scheduled_at);
	(void)sqlite3_bind_text(st, 4, c->origin, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 5, c->trigger, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 6, c->now_ms);
	store_bind_text(st, 7, c->reason);
	store_bind_text(st, 8, c->detail);
	if (store_step_done(s, st) == -1)
		return -1;
	return sqlite3_changes(s->db) > 0;
}

/* Call fn for each job the store has planned, in id order; -1 on error. */
int
store_job_ids(struct store *s, void (*fn)(const char *, void *), void *arg)
{
	sqlite3_stmt	*st = s->st[ST_JOB_IDS];
	int		 rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fn((const char *)sqlite3_column_text(st, 0), arg);
	(void)sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, rc);
	return 0;
}

/*
 * Step a bound statement that yields one integer (or NULL): 1 with *v
 * set, 0 for NULL or no row, -1 on error.  Resets the statement.
 */
static int
store_int64(struct store *s, sqlite3_stmt *st, int64_t *v)
{
	int rc, found = 0;

	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*v = sqlite3_column_int64(st, 0);
		found = 1;
	}
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(s, rc);
	return found;
}

/* When the job's latest run finished (Unix ms), -1 if never, -2 error. */
int64_t
store_job_last_end(struct store *s, const char *job)
{
	sqlite3_stmt	*st = s->st[ST_JOB_LAST_END];
	int64_t		 v = -1;

	(void)sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	return store_int64(s, st, &v) == -1 ? -2 : v;
}

/*
 * Settle an instance that waits (queued, retrying, or interrupted by a
 * crash) without running it: status and reason, e.g. skipped/replaced
 * (reason NULL: the one it has, a retry's failure), and c->detail.
 * Returns its rowid, 0 if it was not waiting, -1.
 */
int64_t
store_run_unqueue(struct store *s, const struct store_claim *c,
    const char *status, const char *reason)
{
	sqlite3_stmt	*st = s->st[ST_RUN_UNQUEUE];
	int64_t		 rowid = 0;
	int		 rc;

	(void)sqlite3_bind_text(st, 1, c->job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 2, c->origin, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 3, c->scheduled_at);
	(void)sqlite3_bind_text(st, 4, status, -1, SQLITE_STATIC);
	store_bind_text(st, 5, reason);
	(void)sqlite3_bind_int64(st, 6, c->now_ms);
	store_bind_text(st, 7, c->detail);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		rowid = sqlite3_column_int64(st, 0);
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, rc);
	s->busy = 0;
	return rowid;
}

/*
 * Claim an existing instance (queued, retrying, or interrupted by a crash)
 * by its row for a new attempt, inside the caller's transaction.  Returns
 * 1 claimed (*out set), 0 when it is in no such state, -1 on error.
 */
int
store_run_claim_id(struct store *s, int64_t rowid, const struct store_claim *c,
    struct store_claimed *out)
{
	sqlite3_stmt	*st = s->st[ST_RUN_CLAIM_ID];

	(void)sqlite3_bind_int64(st, 1, rowid);
	(void)sqlite3_bind_text(st, 2, c->trigger, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 3, c->owner, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 4, c->lease_until);
	if (store_step_done(s, st) == -1)
		return -1;
	if (sqlite3_changes(s->db) == 0)
		return 0;
	st = s->st[ST_RUN_CLAIMED_ID];
	(void)sqlite3_bind_int64(st, 1, rowid);
	return store_claimed(s, st, c, out);
}

/*
 * Record an instance that does not run (status skipped, c->reason and
 * c->detail).  Returns 1 recorded, 0 if the instance exists already, -1.
 */
int
store_run_skip(struct store *s, const struct store_claim *c)
{
	sqlite3_stmt	*st = s->st[ST_RUN_SKIP];
	char		 run_id[STORE_RUN_ID_MAX];

	store_run_id(c->job, c->scheduled_at, c->origin, run_id,
	    sizeof run_id);
	(void)sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 2, c->job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 3, c->scheduled_at);
	(void)sqlite3_bind_text(st, 4, c->origin, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 5, c->trigger, -1, SQLITE_STATIC);
	store_bind_text(st, 6, c->reason);
	store_bind_text(st, 7, c->detail);
	(void)sqlite3_bind_int64(st, 8, c->now_ms);
	if (store_step_done(s, st) == -1)
		return -1;
	return sqlite3_changes(s->db) > 0;
}

/* Call fn for every instance with a status, oldest first; 0 or -1. */
int
store_runs_found(struct store *s, const char *status, store_found_cb fn,
    void *arg)
{
	sqlite3_stmt		*st = s->st[ST_RUNS_FOUND];
	struct store_found	 f;
	int			 rc;

	(void)sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		f.rowid = sqlite3_column_int64(st, 0);
		f.run_id = (const char *)sqlite3_column_text(st, 1);
		f.job = (const char *)sqlite3_column_text(st, 2);
		f.scheduled_at = sqlite3_column_int64(st, 3);
		f.origin = (const char *)sqlite3_column_text(st, 4);
		f.trigger = (const char *)sqlite3_column_text(st, 5);
		f.status = (const char *)sqlite3_column_text(st, 6);
		f.reason = (const char *)sqlite3_column_text(st, 7);
		f.attempt = sqlite3_column_type(st, 8) == SQLITE_NULL ? 0 :
		    sqlite3_column_int(st, 8);
		f.pid = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 :
		    sqlite3_column_int64(st, 9);
		f.pid_start = sqlite3_column_type(st, 10) == SQLITE_NULL ?
		    -1 : sqlite3_column_int64(st, 10);
		f.started_ms = sqlite3_column_type(st, 11) == SQLITE_NULL ?
		    -1 : sqlite3_column_int64(st, 11);
		f.retry_at = sqlite3_column_type(st, 12) == SQLITE_NULL ?
		    -1 : sqlite3_column_int64(st, 12);
		f.invocation = (const char *)sqlite3_column_text(st, 13);
		f.boot_id = (const char *)sqlite3_column_text(st, 14);
		f.cgroup = (const char *)sqlite3_column_text(st, 15);
		fn(&f, arg);
	}
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, rc);
	return 0;
}

/* When the job last succeeded (Unix ms), -1 if never, -2 on error. */
int64_t
store_job_last_success(struct store *s, const char *job)
{
	sqlite3_stmt	*st = s->st[ST_JOB_LAST_SUCCESS];
	int64_t		 v = -1;

	(void)sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	return store_int64(s, st, &v) == -1 ? -2 : v;
}

/*
 * Queue a failed or dead instance again (replay), by its run id.  Returns
 * 1 (*out set), or 0 with why (not found, or its status) in buf, or -1.
 */
int
store_run_requeue(struct store *s, const char *run_id,
    struct store_requeued *out, char *buf, size_t len)
{
	sqlite3_stmt	*st = s->st[ST_RUN_REQUEUE];
	const char	*text;
	int		 rc, found = 0;

	(void)sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		found = 1;
		out->rowid = sqlite3_column_int64(st, 0);
		text = (const char *)sqlite3_column_text(st, 1);
		(void)snprintf(out->job, sizeof out->job, "%s", text ? text :
		    "");
		text = (const char *)sqlite3_column_text(st, 2);
		(void)snprintf(out->origin, sizeof out->origin, "%s",
		    text ? text : "schedule");
		out->scheduled_at = sqlite3_column_int64(st, 3);
	}
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, rc);
	if (found)
		return 1;
	st = s->st[ST_RUN_STATUS];
	(void)sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		(void)snprintf(buf, len, "its status is %s: only failed and "
		    "dead instances can be replayed",
		    (const char *)sqlite3_column_text(st, 0));
	else
		(void)snprintf(buf, len, "no such run id");
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(s, rc);
	return 0;
}

/*
 * Delete up to chunk of a job's oldest finished instances beyond keep.
 * Unless the job has more than keep instances at all (a walk of at most
 * keep + 1 entries of the runs_job index), there is nothing to delete,
 * and the delete is not run: its two IN clauses make temporary tables
 * (70,000 instructions, more than a claim, for the first end of every
 * job after a start: each deletes nothing).
 */
int
store_prune_job(struct store *s, const char *job, int64_t keep, int chunk)
{
	sqlite3_stmt	*st = s->st[ST_PRUNE_OVER];
	int64_t		 one;
	int		 rc;

	(void)sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 2, keep);
	if ((rc = store_int64(s, st, &one)) != 1)
		return rc;		/* 0: no more than keep; -1 */
	st = s->st[ST_PRUNE_JOB];
	(void)sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 2, keep);
	(void)sqlite3_bind_int(st, 3, chunk);
	if (store_step_done(s, st) == -1)
		return -1;
	return sqlite3_changes(s->db);
}

/* Delete up to chunk instances and decisions older than cut (Unix ms). */
int
store_prune_age(struct store *s, int64_t cut, int chunk)
{
	sqlite3_stmt	*st = s->st[ST_PRUNE_AGE];
	int		 n;

	(void)sqlite3_bind_int64(st, 1, cut);
	(void)sqlite3_bind_int(st, 2, chunk);
	if (store_step_done(s, st) == -1)
		return -1;
	n = sqlite3_changes(s->db);
	st = s->st[ST_PRUNE_DECISIONS];
	(void)sqlite3_bind_int64(st, 1, cut);
	(void)sqlite3_bind_int(st, 2, chunk);
	if (store_step_done(s, st) == -1)
		return -1;
	return n + sqlite3_changes(s->db);
}

/*
 * The latest instant of a job's instances of one origin, in *at: 1, or 0
 * when there is none, or -1.
 */
int
store_run_last(struct store *s, const char *job, const char *origin,
    int64_t *at)
{
	sqlite3_stmt	*st = s->st[ST_RUN_LAST];

	(void)sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 2, origin, -1, SQLITE_STATIC);
	return store_int64(s, st, at);
}

/*
 * The last failure of an instance waiting for its retry (c's job, origin
 * and scheduled_at).  Returns 1 (*out set), 0 if it does not wait for a
 * retry, -1.
 */
int
store_run_failure(struct store *s, const struct store_claim *c,
    struct store_failure *out)
{
	sqlite3_stmt	*st = s->st[ST_RUN_FAILURE];
	const char	*text;
	int		 rc;

	(void)sqlite3_bind_text(st, 1, c->job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 2, c->origin, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 3, c->scheduled_at);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->rowid = sqlite3_column_int64(st, 0);
		out->attempts = sqlite3_column_int(st, 1);
		text = (const char *)sqlite3_column_text(st, 2);
		(void)snprintf(out->reason, sizeof out->reason, "%s",
		    text != NULL ? text : "");
		out->exit_status = sqlite3_column_type(st, 3) == SQLITE_NULL ?
		    -1 : sqlite3_column_int(st, 3);
		out->signal = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 :
		    sqlite3_column_int(st, 4);
	}
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(s, rc);
	s->busy = 0;
	return rc == SQLITE_ROW;
}

/*
 * Set the detail of an instance that waits to start (queued, retrying or
 * interrupted; c's job, origin and scheduled_at), NULL to clear it; a
 * row in any other state is left alone.  0 or -1.
 */
int
store_run_note(struct store *s, const struct store_claim *c,
    const char *detail)
{
	sqlite3_stmt *st = s->st[ST_RUN_NOTE];

	(void)sqlite3_bind_text(st, 1, c->job, -1, SQLITE_STATIC);
	(void)sqlite3_bind_text(st, 2, c->origin, -1, SQLITE_STATIC);
	(void)sqlite3_bind_int64(st, 3, c->scheduled_at);
	store_bind_text(st, 4, detail);
	return store_step_done(s, st);
}

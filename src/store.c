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
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "db_pg.h"
#include "db_sqlite.h"
#include "rfc3339.h"
#include "store.h"
#include "store_schema.h"
#include "xmalloc.h"

#define STORE_BUSY_MS	250
#define STORE_PG_DEADLINE_MS	1000	/* one round trip to a server */
#define STORE_NODE_BATCH	65536	/* bytes of job hashes a statement */

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
	ST_RUN_CLAIM_ONE,
	ST_RUN_CLAIM_ID_ONE,
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
	ST_JOB_LOCK,
	ST_JOB_ELSEWHERE,
	ST_RUNS_EXPIRED,
	ST_RUN_EXPIRE,
	ST_ATTEMPT_EXPIRE,
	ST_SERVER_NOW,
	ST_NODE_PUT,
	ST_NODES,
	ST_JOBS_PAUSED,
	ST_RUN_STOPS_ASK,
	ST_NODE_GONE,
	ST_RUN_STOPS,
	ST_NODE_JOBS_CLEAR,
	ST_NODE_JOBS_ADD,
	ST_NODE_DIFF,
	ST_RUNS_OWNED,
	ST_RUN_GHOST,
	ST_RUN_KIND,
	ST_BATCH_BEGIN,
	ST_SHARD_INSERT,
	ST_SHARD_IDS,
	ST_BATCH_LOCK,
	ST_BATCH_COUNTS,
	ST_BATCH_FAILED,
	ST_BATCH_END,
	ST_BATCH_ATTEMPT_END,
	ST_BATCH_FORGET,
	ST_BATCH_ABANDON,
	ST_BATCH_REQUEUE,
	ST_SHARDS_REQUEUE,
	ST_BATCHES,
	ST_SHARDS_WAITING,
	ST_SHARDS_RUNNING,
	ST_CHECKPOINT_GET,
	ST_CHECKPOINT_PUT,
	ST_RUN_STATUS_ID,
	ST_COUNT
};

/* The columns store_found_rows reads, an instance and its last attempt. */
#define STORE_FOUND_FROM						\
	"SELECT r.id, r.run_id, r.job, r.scheduled_at, r.origin, "	\
	"r.trigger, r.status, r.reason, a.attempt, a.pid, a.pid_start, "\
	"a.started_at, r.retry_at, a.invocation, a.boot_id, a.cgroup, "	\
	"r.owner, r.parent, r.shard, r.shards, r.started_at "		\
	"FROM runs r LEFT JOIN attempts a ON a.run = r.id AND "		\
	"a.attempt = r.attempts "

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
	    "(status = 'running' AND lease_until < ?7 AND "
	    "owner IS DISTINCT FROM ?5))",
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
	    "WHERE status = 'running' AND owner IS DISTINCT FROM ?1 AND "
	    "(shards IS NULL OR parent IS NOT NULL)",
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
	[ST_JOB_LAST_END] = "SELECT max(finished_at) FROM runs WHERE job = ?1 "
	    "AND parent IS NULL",
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
	[ST_RUNS_FOUND] = STORE_FOUND_FROM "WHERE r.status = ?1 "
	    "ORDER BY r.scheduled_at, r.id",
	[ST_JOB_LAST_SUCCESS] = "SELECT max(finished_at) FROM runs "
	    "WHERE job = ?1 AND status = 'succeeded' AND parent IS NULL",
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
	[ST_PRUNE_OVER] = "SELECT 1 FROM runs WHERE job = ?1 AND parent IS NULL "
	    "LIMIT 1 OFFSET ?2",
	[ST_PRUNE_JOB] = "DELETE FROM runs WHERE id IN (SELECT id FROM runs "
	    "WHERE job = ?1 AND status IN ('succeeded', 'skipped', "
	    "'terminated', 'abandoned', 'unknown') AND parent IS NULL "
	    "ORDER BY scheduled_at DESC LIMIT ?3 OFFSET ?2)",
	[ST_PRUNE_AGE] = "DELETE FROM runs WHERE id IN (SELECT id FROM runs "
	    "WHERE coalesce(finished_at, created_at) < ?1 AND status NOT IN "
	    "('pending', 'queued', 'running', 'retrying', 'interrupted') "
	    "AND parent IS NULL LIMIT ?2)",
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
	/*
	 * Nodes sharing a server's database (store_job_lock and the
	 * failover): on SQLite, one daemon, they are never called, and the
	 * lease is the daemon's clock (?N "now"); on PostgreSQL the server's
	 * (store_sql_pg).
	 */
	[ST_JOB_LOCK] = "SELECT sched_hash, planned, paused, boot_id, "
	    "overdue_alerted, watch_since FROM jobs WHERE job = ?1",
	[ST_JOB_ELSEWHERE] = "SELECT count(*) FROM runs WHERE job = ?1 AND "
	    "status = 'running' AND owner IS DISTINCT FROM ?2 AND "
	    "parent IS NULL",
	[ST_RUNS_EXPIRED] = STORE_FOUND_FROM
	    "WHERE r.status = 'running' AND r.owner IS DISTINCT FROM ?1 AND "
	    "r.lease_until < ?2 ORDER BY r.scheduled_at, r.id",
	[ST_RUN_EXPIRE] = "UPDATE runs SET status = ?3, reason = ?4, "
	    "detail = ?5, finished_at = ?6, owner = NULL, lease_until = NULL "
	    "WHERE id = ?1 AND attempts = ?2 AND status = 'running' AND "
	    "lease_until < ?7",
	[ST_RUNS_OWNED] = STORE_FOUND_FROM
	    "WHERE r.status = 'running' AND r.owner = ?1",
	[ST_RUN_GHOST] = "UPDATE runs SET status = ?3, reason = ?4, "
	    "detail = ?5, finished_at = ?6, owner = NULL, lease_until = NULL "
	    "WHERE id = ?1 AND attempts = ?2 AND status = 'running' AND "
	    "owner = ?7",
	/* Nothing on SQLite: the daemon's clock is the only one. */
	[ST_SERVER_NOW] = "SELECT NULL",
	[ST_NODE_PUT] = "SELECT NULL",
	[ST_NODES] = "SELECT NULL, NULL, 0, NULL, 0, NULL WHERE 0",
	[ST_JOBS_PAUSED] = "SELECT job FROM jobs WHERE paused = 1",
	/* One round trip each on a server (store_sql_pg); unused here. */
	[ST_RUN_CLAIM_ONE] = "SELECT NULL, 0, NULL WHERE 0",
	[ST_RUN_CLAIM_ID_ONE] = "SELECT NULL, 0, NULL WHERE 0",
	[ST_RUN_STOPS_ASK] = "SELECT NULL",
	[ST_NODE_GONE] = "SELECT NULL",
	[ST_RUN_STOPS] = "SELECT 0, NULL WHERE 0",
	[ST_NODE_JOBS_CLEAR] = "SELECT NULL",
	[ST_NODE_JOBS_ADD] = "SELECT NULL",
	[ST_NODE_DIFF] = "SELECT NULL, 0, 0 WHERE 0",
	[ST_ATTEMPT_EXPIRE] = "UPDATE attempts SET finished_at = ?3, "
	    "outcome = 'interrupted', error = ?4 WHERE run = ?1 AND "
	    "attempt = ?2 AND finished_at IS NULL",
	/*
	 * Batches (store_batch_*): the instance's row gives up its lease
	 * when its shards are created (they carry their own), and is
	 * settled by one conditional update once the last one is final.
	 */
	[ST_RUN_KIND] = "SELECT id, parent, shard, "
	    "CASE WHEN shards IS NULL THEN 0 ELSE 1 END "
	    "FROM runs WHERE run_id = ?1",
	[ST_BATCH_BEGIN] = "UPDATE runs SET shards = ?2, owner = NULL, "
	    "lease_until = NULL, started_at = coalesce(started_at, ?4), "
	    "finished_at = NULL, exit_status = NULL, signal = NULL "
	    "WHERE id = ?1 AND attempts = ?3 AND status = 'running'",
	[ST_SHARD_INSERT] = "INSERT INTO runs (run_id, job, scheduled_at, "
	    "origin, trigger, status, created_at, parent, shard, shards) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7, ?8, ?9) "
	    "ON CONFLICT DO NOTHING",
	[ST_SHARD_IDS] = "SELECT id FROM runs WHERE parent = ?1 ORDER BY shard",
	[ST_BATCH_LOCK] = "SELECT status, job, run_id, scheduled_at, attempts "
	    "FROM runs WHERE id = ?1",
	[ST_BATCH_COUNTS] = "SELECT status, count(*), "
	    "sum(CASE WHEN reason = 'batch_timeout' THEN 1 ELSE 0 END), "
	    "sum(CASE WHEN reason = 'replaced' THEN 1 ELSE 0 END) "
	    "FROM runs WHERE parent = ?1 GROUP BY status",
	[ST_BATCH_FAILED] = "SELECT shard FROM runs WHERE parent = ?1 AND "
	    "status <> 'succeeded' ORDER BY shard",
	[ST_BATCH_END] = "UPDATE runs SET status = ?2, reason = ?3, "
	    "detail = ?4, finished_at = ?5, owner = NULL, lease_until = NULL, "
	    "retry_at = NULL WHERE id = ?1 AND status = 'running'",
	[ST_BATCH_ATTEMPT_END] = "UPDATE attempts SET finished_at = ?2, "
	    "outcome = ?3, started_at = coalesce(started_at, ?2) "
	    "WHERE run = ?1 AND finished_at IS NULL",
	[ST_BATCH_FORGET] = "UPDATE runs SET checkpoint = NULL "
	    "WHERE parent = ?1",
	[ST_BATCH_ABANDON] = "UPDATE runs SET status = 'abandoned', "
	    "reason = ?2, detail = ?3, finished_at = ?4, retry_at = NULL "
	    "WHERE parent = ?1 AND status IN ('queued', 'retrying', "
	    "'interrupted')",
	[ST_BATCH_REQUEUE] = "UPDATE runs SET status = 'running', "
	    "reason = NULL, detail = NULL, finished_at = NULL, owner = NULL, "
	    "lease_until = NULL WHERE id = ?1 AND status IN ('running', "
	    "'failed', 'dead', 'unknown', 'terminated')",
	/* ?2: a shard's index, or -1: every one that did not succeed. */
	[ST_SHARDS_REQUEUE] = "UPDATE runs SET status = 'queued', "
	    "reason = 'replay', detail = NULL, retry_at = NULL, "
	    "finished_at = NULL WHERE parent = ?1 AND (?2 = -1 OR shard = ?2) "
	    "AND status IN ('failed', 'dead', 'abandoned', 'terminated', "
	    "'unknown')",
	/* ?1: an instance, or -1: every batch that runs. */
	[ST_BATCHES] = STORE_FOUND_FROM "WHERE r.status = 'running' AND "
	    "r.shards IS NOT NULL AND r.parent IS NULL AND (?1 = -1 OR "
	    "r.id = ?1) ORDER BY r.id",
	[ST_SHARDS_WAITING] = STORE_FOUND_FROM "WHERE r.parent = ?1 AND "
	    "r.status IN ('queued', 'retrying', 'interrupted') "
	    "ORDER BY r.shard",
	[ST_SHARDS_RUNNING] = "SELECT count(*) FROM runs WHERE parent = ?1 "
	    "AND status = 'running'",
	[ST_CHECKPOINT_GET] = "SELECT checkpoint FROM runs WHERE id = ?1",
	[ST_CHECKPOINT_PUT] = "UPDATE runs SET checkpoint = ?3 WHERE id = ?1 "
	    "AND attempts = ?2",
	[ST_RUN_STATUS_ID] = "SELECT status FROM runs WHERE id = ?1",
};

/* The server's clock, in Unix seconds: leases are judged by it. */
#define PG_NOW	"CAST(floor(extract(epoch FROM clock_timestamp())) AS bigint)"

/*
 * PostgreSQL's text where it differs: a plain BEGIN (its transactions
 * take locks as they go; the jobs row is the lock, store_job_lock), a
 * lease as a duration the server adds to its clock (the node's "until"
 * minus the node's "now"), a job's cursor that never moves back, a claim
 * and an attempt's start and end in one round trip each (the server may
 * be far), and every write that ends an attempt fenced by the attempt's
 * number: a node whose instance was taken over writes nothing.
 */
static const struct {
	int		 st;
	const char	*sql;
} store_sql_pg[] = {
	{ ST_BEGIN, "BEGIN" },
	{ ST_JOB_PUT, "INSERT INTO jobs (job, sched_hash, planned, paused, "
	    "boot_id, updated_at, overdue_alerted, watch_since) VALUES (?1, ?2, "
	    "?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (job) DO UPDATE SET "
	    "sched_hash = ?2, planned = CASE WHEN jobs.planned IS NULL OR "
	    "?3 > jobs.planned THEN ?3 ELSE jobs.planned END, paused = ?4, "
	    "boot_id = ?5, updated_at = ?6, overdue_alerted = ?7, "
	    "watch_since = ?8" },
	/*
	 * A claim in one round trip: the instance inserted running, or if
	 * it was there, taken when claimable (as ST_RUN_CLAIM says), and its
	 * attempt added; a row back when claimed.  Not ON CONFLICT DO
	 * UPDATE: that locks the row even when it is not claimable, so a
	 * node that lost an instance would hold its winner's writes up
	 * until it commits.  ?1-?6 as ST_RUN_INSERT, ?7 owner, ?8 lease
	 * until, ?9 now (s), ?10 invocation, ?11 boot.
	 */
	{ ST_RUN_CLAIM_ONE, "WITH i AS (INSERT INTO runs (run_id, job, "
	    "scheduled_at, origin, trigger, status, created_at, owner, "
	    "lease_until, attempts) VALUES (?1, ?2, ?3, ?4, ?5, 'running', ?6, "
	    "?7, " PG_NOW " + (?8 - ?9), 1) ON CONFLICT DO NOTHING "
	    "RETURNING id, attempts, run_id), "
	    "u AS (UPDATE runs SET status = 'running', reason = NULL, "
	    "detail = NULL, trigger = ?5, owner = ?7, "
	    "lease_until = " PG_NOW " + (?8 - ?9), attempts = attempts + 1 "
	    "WHERE job = ?2 AND origin = ?4 AND scheduled_at = ?3 AND "
	    "NOT EXISTS (SELECT 1 FROM i) AND "
	    "(status IN ('pending', 'queued') OR (status = 'running' AND "
	    "lease_until < " PG_NOW " AND owner IS DISTINCT FROM ?7)) "
	    "RETURNING id, attempts, run_id), "
	    "c AS (SELECT * FROM i UNION ALL SELECT * FROM u), "
	    "a AS (INSERT INTO attempts (run, attempt, trigger, invocation, "
	    "boot_id) SELECT id, attempts, ?5, ?10, ?11 FROM c) "
	    "SELECT id, attempts, run_id FROM c" },
	/* The same by row id (ST_RUN_CLAIM_ID): ?1-?5 as it, ?6, ?7. */
	{ ST_RUN_CLAIM_ID_ONE, "WITH c AS (UPDATE runs SET status = "
	    "'running', reason = NULL, detail = NULL, retry_at = NULL, "
	    "finished_at = NULL, exit_status = NULL, signal = NULL, "
	    "trigger = ?2, owner = ?3, lease_until = " PG_NOW " + (?4 - ?5), "
	    "attempts = attempts + 1 WHERE id = ?1 AND (status = 'queued' OR "
	    "status = 'retrying' OR status = 'interrupted') "
	    "RETURNING id, attempts, run_id), "
	    "a AS (INSERT INTO attempts (run, attempt, trigger, invocation, "
	    "boot_id) SELECT id, attempts, ?2, ?6, ?7 FROM c) "
	    "SELECT id, attempts, run_id FROM c" },
	/*
	 * An attempt's start and end, each with its instance's row in one
	 * round trip (store_attempt_started, store_attempt_end); the end's
	 * row is fenced by the attempt number: 0 rows back, taken over.
	 */
	{ ST_ATTEMPT_STARTED, "WITH a AS (UPDATE attempts SET pid = ?3, "
	    "started_at = ?4, lateness_ms = ?5, pid_start = ?6, cgroup = ?7 "
	    "WHERE run = ?1 AND attempt = ?2) UPDATE runs SET started_at = "
	    "coalesce(started_at, ?4) WHERE id = ?1" },
	{ ST_ATTEMPT_END, "WITH a AS (UPDATE attempts SET finished_at = ?3, "
	    "duration_ms = ?4, exit_status = ?5, signal = ?6, outcome = ?7, "
	    "error = ?8, started_at = coalesce(started_at, ?9), "
	    "lateness_ms = coalesce(lateness_ms, ?10), output_tail = ?11, "
	    "cpu_user_us = ?12, cpu_system_us = ?13, mem_peak = ?14, "
	    "usage_source = ?15 WHERE run = ?1 AND attempt = ?2), "
	    "r AS (UPDATE runs SET status = ?16, reason = ?17, owner = NULL, "
	    "lease_until = NULL, started_at = coalesce(started_at, ?9), "
	    "finished_at = ?3, exit_status = ?5, signal = ?6, retry_at = ?18, "
	    "detail = ?19 WHERE id = ?1 AND attempts = ?2 RETURNING id) "
	    "SELECT count(*) FROM r" },
	{ ST_LEASE_RENEW, "UPDATE runs SET lease_until = " PG_NOW
	    " + (?2 - ?3) WHERE owner = ?1 AND status = 'running'" },
	{ ST_LEASE_TAKE, "UPDATE runs SET owner = ?1, lease_until = " PG_NOW
	    " + (?2 - ?3) WHERE status = 'running' AND owner IS DISTINCT FROM "
	    "?1 AND left(owner, length(?4)) = ?4 AND "
	    "(shards IS NULL OR parent IS NOT NULL)" },
	{ ST_SERVER_NOW, "SELECT CAST(floor(extract(epoch FROM "
	    "clock_timestamp()) * 1000) AS bigint)" },
	{ ST_NODE_PUT, "INSERT INTO nodes (node, owner, heartbeat_at, "
	    "clock_offset_ms, running, defs_hash) VALUES (?1, ?2, "
	    "CAST(floor(extract(epoch FROM clock_timestamp()) * 1000) AS "
	    "bigint), ?3, ?4, ?5) ON CONFLICT (node) DO UPDATE SET owner = ?2, "
	    "heartbeat_at = EXCLUDED.heartbeat_at, clock_offset_ms = ?3, "
	    "running = ?4, defs_hash = ?5" },
	{ ST_NODES, "SELECT node, owner, heartbeat_at, clock_offset_ms, "
	    "running, defs_hash FROM nodes ORDER BY node" },
	/* Ask the nodes running job ?1's instances to stop them. */
	{ ST_RUN_STOPS_ASK, "INSERT INTO run_stops (run, node, asked_at) "
	    "SELECT id, ?3, ?4 FROM runs WHERE job = ?1 AND "
	    "status = 'running' AND owner IS DISTINCT FROM ?2 "
	    "ON CONFLICT DO NOTHING" },
	{ ST_RUN_STOPS, "SELECT t.run, t.node FROM run_stops t JOIN runs r "
	    "ON r.id = t.run WHERE r.owner = ?1 AND r.status = 'running'" },
	{ ST_NODE_GONE, "DELETE FROM nodes WHERE node = ?1 AND owner = ?2" },
	{ ST_NODE_JOBS_CLEAR, "DELETE FROM node_jobs WHERE node = ?1" },
	/* ?2: "JOB HASH,JOB HASH,...": job ids have no space or comma. */
	{ ST_NODE_JOBS_ADD, "INSERT INTO node_jobs (node, job, def_hash) "
	    "SELECT ?1, split_part(e, ' ', 1), split_part(e, ' ', 2) FROM "
	    "unnest(string_to_array(?2, ',')) AS e" },
	{ ST_NODE_DIFF, "SELECT coalesce(a.job, b.job), "
	    "CASE WHEN a.job IS NULL THEN 0 ELSE 1 END, "
	    "CASE WHEN b.job IS NULL THEN 0 ELSE 1 END FROM "
	    "(SELECT job, def_hash FROM node_jobs WHERE node = ?1) a FULL JOIN "
	    "(SELECT job, def_hash FROM node_jobs WHERE node = ?2) b "
	    "ON a.job = b.job WHERE a.def_hash IS DISTINCT FROM b.def_hash "
	    "ORDER BY coalesce(a.job, b.job) COLLATE \"C\" LIMIT ?3" },
	/* A batch's row locked: its shards' ends and claims one at a time. */
	{ ST_BATCH_LOCK, "SELECT status, job, run_id, scheduled_at, attempts "
	    "FROM runs WHERE id = ?1 FOR UPDATE" },
	{ ST_JOB_LOCK, "SELECT sched_hash, planned, paused, boot_id, "
	    "overdue_alerted, watch_since FROM jobs WHERE job = ?1 "
	    "FOR UPDATE" },
	{ ST_RUNS_EXPIRED, STORE_FOUND_FROM
	    "WHERE r.status = 'running' AND r.owner IS DISTINCT FROM ?1 AND "
	    "r.lease_until < " PG_NOW " ORDER BY r.scheduled_at, r.id" },
	{ ST_RUN_EXPIRE, "UPDATE runs SET status = ?3, reason = ?4, "
	    "detail = ?5, finished_at = ?6, owner = NULL, lease_until = NULL "
	    "WHERE id = ?1 AND attempts = ?2 AND status = 'running' AND "
	    "lease_until < " PG_NOW },
};

struct store {
	struct db	*db;
	struct db_stmt	*st[ST_COUNT];
	char		*path;
	int		 busy;		/* the last failure was a lock */
	int		 emptied;	/* moved away, and the WAL emptied */
	char		*node;		/* meta keys are this node's */
	char		 key[128];	/* a meta key in its node's scope */
	char		 err[512];
};

/* Remember the error of the last failed call; always returns -1. */
static int
store_fail(struct store *s)
{
	s->busy = db_busy(s->db);
	(void)snprintf(s->err, sizeof s->err, "%s", db_errmsg(s->db));
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
	if (!db_moved(s->db)) {
		s->emptied = 0;
		return 0;
	}
	/* A reader can make it fail: tried again at the next write. */
	if (!s->emptied && db_exec(s->db, "PRAGMA wal_checkpoint(TRUNCATE)") ==
	    0)
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
store_step_done(struct store *s, struct db_stmt *st)
{
	if (!db_in_transaction(s->db) && st->writes &&
	    store_unmoved(s) == -1) {
		db_reset(st);
		return -1;
	}
	if (db_step_done(st) == -1)
		return store_fail(s);
	s->busy = 0;
	return 0;
}

/*
 * The cause of a failure to open path: the engine's message, and the
 * recovery when the file is damaged.
 */
static char *
store_open_cause(struct db *db, const char *path, const char *msg)
{
	if (db_damaged(db))
		return xasprintf("%s: %s: " STORE_RECOVER, path, msg);
	return xasprintf("%s: %s", path, msg);
}

/* Run a query that returns one integer; 0 (*out set), or -1. */
static int
store_int(struct db *db, const char *sql, int *out)
{
	struct db_stmt	*st = NULL;
	int		 rc;

	if (db_prepare(db, sql, &st) == -1)
		return -1;
	if ((rc = db_step(st)) == DB_ROW)
		*out = db_column_int(st, 0);
	db_finalize(st);
	return rc == DB_ROW ? 0 : -1;
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
store_check(struct db *db, const char *path, char **cause)
{
	struct db_stmt	*st = NULL;
	const char	*text;
	int		 version, objects, ours, rc, ok;

	if (store_int(db, "PRAGMA user_version", &version) == -1 ||
	    store_int(db, "SELECT count(*) FROM sqlite_schema", &objects) ==
	    -1 || store_int(db, "SELECT count(*) FROM sqlite_schema WHERE "
	    "type = 'table' AND name IN ('runs', 'attempts', 'decisions', "
	    "'jobs', 'meta')", &ours) == -1) {
		*cause = store_open_cause(db, path, db_errmsg(db));
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
	if (db_prepare(db, "PRAGMA quick_check(1)", &st) == -1) {
		*cause = store_open_cause(db, path, db_errmsg(db));
		return -1;
	}
	rc = db_step(st);
	text = rc == DB_ROW ? db_column_text(st, 0) : NULL;
	ok = text != NULL && strcmp(text, "ok") == 0;
	if (rc != DB_ROW)
		*cause = store_open_cause(db, path, db_errmsg(db));
	else if (!ok)
		*cause = store_damage(path, text);
	db_finalize(st);
	return ok ? 0 : -1;
}

/* Bring the schema to STORE_SCHEMA_VERSION; 0 or -1 with *cause. */
static int
store_migrate(struct db *db, const char *path, char **cause)
{
	char	*sql;
	int	 version = -1;
	size_t	 i;

	if (store_int(db, "PRAGMA user_version", &version) == -1) {
		*cause = xasprintf("%s: cannot read the schema version: %s",
		    path, db_errmsg(db));
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
		if (db_exec(db, sql) == -1) {
			*cause = xasprintf("%s: migrating the schema to version "
			    "%zu: %s", path, i + 1, db_errmsg(db));
			free(sql);
			(void)db_exec(db, "ROLLBACK");
			return -1;
		}
		free(sql);
	}
	return 0;
}

/*
 * Whether state names a database server (a libpq URI, or key=value
 * connection parameters such as "service=tickd"), not a file.
 */
int
store_is_server(const char *state)
{
	return strncmp(state, "postgresql://", 13) == 0 ||
	    strncmp(state, "postgres://", 11) == 0 ||
	    (state[0] != '/' && strchr(state, '=') != NULL);
}

/*
 * The schema version of a PostgreSQL database (0: empty), or -1 with
 * *cause when it holds tables that are not tickd's.
 */
static int
store_pg_version(struct db *db, char **cause)
{
	struct db_stmt	*st = NULL;
	const char	*v;
	int		 objects, ours, version = 0;

	if (store_int(db, "SELECT count(*) FROM information_schema.tables "
	    "WHERE table_schema = current_schema()", &objects) == -1 ||
	    store_int(db, "SELECT count(*) FROM information_schema.tables "
	    "WHERE table_schema = current_schema() AND table_name IN ('runs', "
	    "'attempts', 'decisions', 'jobs', 'meta')", &ours) == -1) {
		*cause = xasprintf("cannot read the schema: %s",
		    db_errmsg(db));
		return -1;
	}
	if (objects == 0)
		return 0;
	if (ours == 5 && db_prepare(db, "SELECT value FROM meta WHERE key = "
	    "'schema_version'", &st) == 0 && db_step(st) == DB_ROW &&
	    (v = db_column_text(st, 0)) != NULL)
		version = atoi(v);
	db_finalize(st);
	if (version <= 0) {
		*cause = xstrdup("not a tickd database (tables, but not "
		    "tickd's schema): check the state setting");
		return -1;
	}
	return version;
}

/*
 * Bring a PostgreSQL schema to the current version, under an advisory
 * lock: nodes starting together migrate once.  0 or -1 with *cause.
 */
static int
store_pg_migrate(struct db *db, char **cause)
{
	char	*sql;
	int	 version;
	size_t	 i, v;

	if (db_exec(db, "BEGIN; SELECT pg_advisory_xact_lock(7274633)") ==
	    -1) {
		*cause = xasprintf("cannot lock the schema: %s",
		    db_errmsg(db));
		return -1;
	}
	if ((version = store_pg_version(db, cause)) == -1)
		goto fail;
	if (version != 0 && (size_t)version < store_schema_pg_base) {
		*cause = xasprintf("schema version %d is older than any "
		    "tickd on PostgreSQL wrote", version);
		goto fail;
	}
	if ((size_t)version > store_schema_pg_base +
	    store_schema_pg_steps - 1) {
		*cause = xasprintf("schema version %d is newer than this "
		    "tickd understands (%zu): downgrade is not supported",
		    version, store_schema_pg_base + store_schema_pg_steps - 1);
		goto fail;
	}
	i = version == 0 ? 0 : (size_t)version - store_schema_pg_base + 1;
	for (; i < store_schema_pg_steps; i++) {
		v = store_schema_pg_base + i;
		sql = xasprintf("%s INSERT INTO meta (key, value) VALUES "
		    "('schema_version', '%zu') ON CONFLICT (key) DO UPDATE "
		    "SET value = '%zu'", store_schema_pg[i], v, v);
		if (db_exec(db, sql) == -1) {
			*cause = xasprintf("migrating the schema to version "
			    "%zu: %s", v, db_errmsg(db));
			free(sql);
			goto fail;
		}
		free(sql);
	}
	if (db_exec(db, "COMMIT") == 0)
		return 0;
	*cause = xasprintf("migrating the schema: %s", db_errmsg(db));
fail:
	(void)db_exec(db, "ROLLBACK");
	return -1;
}

/*
 * Open the store on a PostgreSQL server.  The cause names what failed,
 * never the connection string (it may hold a password).
 */
static struct store *
store_open_server(const char *conninfo, int readonly, char **cause)
{
	struct store	*s = xcalloc(1, sizeof *s);
	char		*why = NULL;
	int		 i;

	s->path = xstrdup("the PostgreSQL database");
	if ((s->db = db_pg_open(conninfo, STORE_PG_DEADLINE_MS, &why)) ==
	    NULL)
		goto fail;
	if (!readonly && store_pg_migrate(s->db, &why) == -1)
		goto fail;
	for (i = 0; i < ST_COUNT && !readonly; i++)
		(void)db_prepare(s->db, store_sql[i], &s->st[i]);
	for (i = 0; i < (int)(sizeof store_sql_pg / sizeof store_sql_pg[0]) &&
	    !readonly; i++) {
		db_finalize(s->st[store_sql_pg[i].st]);
		(void)db_prepare(s->db, store_sql_pg[i].sql,
		    &s->st[store_sql_pg[i].st]);
	}
	return s;

fail:
	*cause = xasprintf("PostgreSQL: %s", why);
	free(why);
	store_close(s);
	return NULL;
}

/*
 * Open (creating if needed and not readonly) the store at path: a file,
 * or a server (store_is_server).  Returns a store (caller frees with
 * store_close), or NULL with *cause set.
 */
struct store *
store_open(const char *path, int readonly, char **cause)
{
	struct store	*s;
	char		*why = NULL;
	int		 i, fd;

	if (store_is_server(path))
		return store_open_server(path, readonly, cause);
	s = xcalloc(1, sizeof *s);

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
	if ((s->db = db_sqlite_open(path, readonly ? 0 : DB_SQLITE_CREATE,
	    STORE_BUSY_MS, &why)) == NULL) {
		*cause = xasprintf("%s: %s", path, why);
		free(why);
		goto fail;
	}
	s->path = xstrdup(path);
	if (!readonly) {
		if (store_check(s->db, path, cause) == -1)
			goto fail;
		if (db_exec(s->db, "PRAGMA journal_mode = WAL;"
		    "PRAGMA synchronous = FULL;"
		    "PRAGMA foreign_keys = ON;") == -1) {
			*cause = store_open_cause(s->db, path,
			    db_errmsg(s->db));
			goto fail;
		}
		if (store_migrate(s->db, path, cause) == -1)
			goto fail;
	}
	for (i = 0; i < ST_COUNT && !readonly; i++) {
		if (db_prepare(s->db, store_sql[i], &s->st[i]) == -1) {
			*cause = xasprintf("%s: preparing statement %d: %s",
			    path, i, db_errmsg(s->db));
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
		db_finalize(s->st[i]);
	db_close(s->db);
	free(s->path);
	free(s->node);
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
 * What a call that waits for a server does meanwhile (db_set_wait): the
 * daemon's urgent timers (server-wait.c).
 */
void
store_set_wait(struct store *s, int (*fn)(void *, int, short, int64_t),
    void *arg)
{
	db_set_wait(s->db, fn, arg);
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

	if (!db_in_transaction(s->db))
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
	return db_checkpoint(s->db, pages) == 0 ? 0 : store_fail(s);
}

/* Read a job's state with st (ST_JOB_GET's columns): 1, 0, -1. */
static int
store_job_read(struct store *s, struct db_stmt *st, const char *job,
    struct store_job *out)
{
	const char	*text;
	int		 rc;

	memset(out, 0, sizeof *out);
	out->planned = -1;
	out->overdue_alerted = -1;
	out->watch_since = -1;
	db_bind_text(st, 1, job);
	rc = db_step(st);
	if (rc == DB_ROW) {
		text = db_column_text(st, 0);
		out->sched_hash = text ? strtoull(text, NULL, 16) : 0;
		out->planned = db_column_opt(st, 1);
		out->paused = db_column_int(st, 2);
		text = db_column_text(st, 3);
		(void)snprintf(out->boot_id, sizeof out->boot_id, "%s",
		    text ? text : "");
		out->overdue_alerted = db_column_opt(st, 4);
		out->watch_since = db_column_opt(st, 5);
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return store_fail(s);
	s->busy = 0;
	return rc == DB_ROW;
}

/* The stored state of a job: 1 found, 0 not found, -1 error. */
int
store_job_get(struct store *s, const char *job, struct store_job *out)
{
	return store_job_read(s, s->st[ST_JOB_GET], job, out);
}

/* Insert or replace the stored state of a job. */
int
store_job_put(struct store *s, const char *job, const struct store_job *j,
    int64_t now_ms)
{
	struct db_stmt	*st = s->st[ST_JOB_PUT];
	char		 hash[17];

	(void)snprintf(hash, sizeof hash, "%016" PRIx64, j->sched_hash);
	db_bind_text(st, 1, job);
	db_bind_text(st, 2, hash);
	db_bind_opt(st, 3, j->planned);
	db_bind_int64(st, 4, j->paused);
	db_bind_text(st, 5, j->boot_id[0] != '\0' ? j->boot_id : NULL);
	db_bind_int64(st, 6, now_ms);
	db_bind_opt(st, 7, j->overdue_alerted);
	db_bind_opt(st, 8, j->watch_since);
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

/* A claimed row (id, attempts, run_id) into out. */
static void
store_claimed_row(struct db_stmt *st, struct store_claimed *out)
{
	const char *text = db_column_text(st, 2);

	out->rowid = db_column_int64(st, 0);
	out->attempt = db_column_int(st, 1);
	(void)snprintf(out->run_id, sizeof out->run_id, "%s",
	    text ? text : "");
}

/*
 * A claim's UPDATE changed its row: read what the row became (st, the
 * bound SELECT) into out and add the attempt.  1, or -1.  Not UPDATE ...
 * RETURNING, which costs a temporary table per statement.
 */
static int
store_claimed(struct store *s, struct db_stmt *st, const struct store_claim *c,
    struct store_claimed *out)
{
	int rc;

	if ((rc = db_step(st)) == DB_ROW)
		store_claimed_row(st, out);
	db_reset(st);
	if (rc == DB_DONE) {	/* not in this transaction */
		s->busy = 0;
		(void)snprintf(s->err, sizeof s->err, "the claimed run is gone");
		return -1;
	}
	if (rc != DB_ROW)
		return store_fail(s);
	st = s->st[ST_ATTEMPT_INSERT];
	db_bind_int64(st, 1, out->rowid);
	db_bind_int64(st, 2, out->attempt);
	db_bind_text(st, 3, c->trigger);
	db_bind_text(st, 4, c->invocation);
	db_bind_text(st, 5, c->boot_id);
	if (store_step_done(s, st) == -1)
		return -1;
	(void)snprintf(out->invocation, sizeof out->invocation, "%s",
	    c->invocation != NULL ? c->invocation : "");
	return 1;
}

/*
 * A claim in one statement (a server's: ST_RUN_CLAIM_ONE, _ID_ONE, bound
 * but for the invocation and boot, bound here): 1 claimed (*out set), 0
 * not claimable, -1.
 */
static int
store_claim_one(struct store *s, struct db_stmt *st, int inv,
    const struct store_claim *c, struct store_claimed *out)
{
	int rc;

	db_bind_text(st, inv, c->invocation);
	db_bind_text(st, inv + 1, c->boot_id);
	if ((rc = db_step(st)) == DB_ROW) {
		store_claimed_row(st, out);
		(void)snprintf(out->invocation, sizeof out->invocation, "%s",
		    c->invocation != NULL ? c->invocation : "");
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return store_fail(s);
	return rc == DB_ROW;
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
	struct db_stmt	*st;
	char		 run_id[STORE_RUN_ID_MAX];

	store_run_id(c->job, c->scheduled_at, c->origin, run_id,
	    sizeof run_id);
	st = s->st[db_kind(s->db) == DB_PG ? ST_RUN_CLAIM_ONE : ST_RUN_INSERT];
	db_bind_text(st, 1, run_id);
	db_bind_text(st, 2, c->job);
	db_bind_int64(st, 3, c->scheduled_at);
	db_bind_text(st, 4, c->origin);
	db_bind_text(st, 5, c->trigger);
	db_bind_int64(st, 6, c->now_ms);
	if (db_kind(s->db) == DB_PG) {
		db_bind_text(st, 7, c->owner);
		db_bind_int64(st, 8, c->lease_until);
		db_bind_int64(st, 9, c->now_ms / 1000);
		return store_claim_one(s, st, 10, c, out);
	}
	if (store_step_done(s, st) == -1)
		return -1;

	st = s->st[ST_RUN_CLAIM];
	db_bind_text(st, 1, c->job);
	db_bind_text(st, 2, c->origin);
	db_bind_int64(st, 3, c->scheduled_at);
	db_bind_text(st, 4, c->trigger);
	db_bind_text(st, 5, c->owner);
	db_bind_int64(st, 6, c->lease_until);
	db_bind_int64(st, 7, c->now_ms / 1000);
	if (store_step_done(s, st) == -1)
		return -1;
	if (db_changes(s->db) == 0)
		return 0;
	st = s->st[ST_RUN_CLAIMED];
	db_bind_text(st, 1, c->job);
	db_bind_text(st, 2, c->origin);
	db_bind_int64(st, 3, c->scheduled_at);
	return store_claimed(s, st, c, out);
}


/*
 * Step a bound statement that yields one integer (or NULL): 1 with *v
 * set, 0 for NULL or no row, -1 on error.  Resets the statement.
 */
static int
store_int64(struct store *s, struct db_stmt *st, int64_t *v)
{
	int rc, found = 0;

	rc = db_step(st);
	if (rc == DB_ROW && !db_column_null(st, 0)) {
		*v = db_column_int64(st, 0);
		found = 1;
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return store_fail(s);
	return found;
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
	struct db_stmt *st = s->st[ST_ATTEMPT_STARTED];

	db_bind_int64(st, 1, rowid);
	db_bind_int64(st, 2, attempt);
	db_bind_int64(st, 3, (int64_t)pid);
	db_bind_int64(st, 4, started_ms);
	db_bind_int64(st, 5, lateness_ms);
	db_bind_opt(st, 6, pid_start);
	db_bind_text(st, 7, cgroup);
	if (store_step_done(s, st) == -1)
		return -1;
	if (db_kind(s->db) == DB_PG)		/* the run's row with it */
		return 0;
	st = s->st[ST_RUN_STARTED];
	db_bind_int64(st, 1, rowid);
	db_bind_int64(st, 2, started_ms);
	return store_step_done(s, st);
}

/*
 * Record the end of an attempt and the instance's resulting status: 0, or
 * 1 when the instance is no longer this attempt's (a server's database:
 * another node took it over; nothing was changed), or -1.
 */
int
store_attempt_end(struct store *s, const struct store_end *e)
{
	struct db_stmt	*st = s->st[ST_ATTEMPT_END];
	int64_t		 dur = e->started_ms == -1 ? -1 : e->duration_ms, rows;

	db_bind_int64(st, 1, e->rowid);
	db_bind_int64(st, 2, e->attempt);
	db_bind_int64(st, 3, e->finished_ms);
	db_bind_opt(st, 4, dur);
	db_bind_opt(st, 5, e->exit_status);
	db_bind_opt(st, 6, e->signal);
	db_bind_text(st, 7, e->outcome);
	db_bind_text(st, 8, e->error);
	db_bind_opt(st, 9, e->started_ms);
	db_bind_opt(st, 10, e->lateness_ms);
	db_bind_blob(st, 11, e->tail, e->tail_len);
	if (e->usage_source != NULL) {
		db_bind_opt(st, 12, e->cpu_user_us);
		db_bind_opt(st, 13, e->cpu_system_us);
		db_bind_opt(st, 14, e->mem_peak);
		db_bind_text(st, 15, e->usage_source);
	}
	if (db_kind(s->db) == DB_PG) {		/* the run's row with it */
		db_bind_text(st, 16, e->status);
		db_bind_text(st, 17, e->reason);
		db_bind_opt(st, 18, e->retry_at);
		db_bind_text(st, 19, e->detail);
		if (store_int64(s, st, &rows) == -1)
			return -1;
		return rows == 0;
	}
	if (store_step_done(s, st) == -1)
		return -1;

	st = s->st[ST_RUN_END];
	db_bind_int64(st, 1, e->rowid);
	db_bind_text(st, 2, e->status);
	db_bind_text(st, 3, e->reason);
	db_bind_opt(st, 4, e->started_ms);
	db_bind_int64(st, 5, e->finished_ms);
	db_bind_opt(st, 6, e->exit_status);
	db_bind_opt(st, 7, e->signal);
	db_bind_opt(st, 8, e->retry_at);
	db_bind_text(st, 9, e->detail);
	if (store_step_done(s, st) == -1)
		return -1;
	return 0;
}

/* Record a decision about a range of instants. */
int
store_decision_add(struct store *s, const struct store_decision *d)
{
	struct db_stmt *st = s->st[ST_DECISION_ADD];

	db_bind_text(st, 1, d->job);
	db_bind_int64(st, 2, d->now_ms);
	db_bind_text(st, 3, d->decision);
	db_bind_text(st, 4, d->reason);
	db_bind_opt(st, 5, d->first_at);
	db_bind_opt(st, 6, d->last_at);
	db_bind_int64(st, 7, d->count);
	db_bind_opt(st, 8, d->run_rowid);
	return store_step_done(s, st);
}

/* Extend the lease of every instance owner runs to until. */
int
store_lease_renew(struct store *s, const char *owner, int64_t until)
{
	struct db_stmt *st = s->st[ST_LEASE_RENEW];

	db_bind_text(st, 1, owner);
	db_bind_int64(st, 2, until);
	db_bind_int64(st, 3, (int64_t)time(NULL));	/* a server: its clock */
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
	struct db_stmt	*st = s->st[ST_LEASE_TAKE];
	const char	*colon = strrchr(owner, ':');
	char		 node[STORE_RUN_ID_MAX];

	/* A server's database: only this node's earlier runs ("NODE:"). */
	(void)snprintf(node, sizeof node, "%.*s", colon != NULL ?
	    (int)(colon - owner + 1) : (int)strlen(owner), owner);
	db_bind_text(st, 1, owner);
	db_bind_int64(st, 2, until);
	db_bind_int64(st, 3, (int64_t)time(NULL));
	db_bind_text(st, 4, node);
	return store_step_done(s, st);
}

/*
 * The nodes of a server's database share it: their meta values (the
 * daemon's pid, its configuration, ...) are each node's own, under
 * "KEY@NODE".  Nothing on SQLite, where one daemon writes.
 */
void
store_meta_scope(struct store *s, const char *node)
{
	free(s->node);
	s->node = db_kind(s->db) == DB_PG ? xstrdup(node) : NULL;
}

/* Bind meta key at parameter 1, in the node's scope (kept until the step). */
static void
store_meta_key(struct store *s, struct db_stmt *st, const char *key)
{
	if (s->node == NULL) {
		db_bind_text(st, 1, key);
		return;
	}
	(void)snprintf(s->key, sizeof s->key, "%s@%s", key, s->node);
	db_bind_text(st, 1, s->key);
}

/* A meta value into buf: 1 found, 0 not found, -1 error. */
int
store_meta_get(struct store *s, const char *key, char *buf, size_t len)
{
	struct db_stmt	*st = s->st[ST_META_GET];
	const char	*text;
	int		 rc;

	store_meta_key(s, st, key);
	rc = db_step(st);
	if (rc == DB_ROW) {
		text = db_column_text(st, 0);
		(void)snprintf(buf, len, "%s", text ? text : "");
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return store_fail(s);
	return rc == DB_ROW;
}

/* Set a meta value. */
int
store_meta_set(struct store *s, const char *key, const char *value)
{
	struct db_stmt *st = s->st[ST_META_SET];

	store_meta_key(s, st, key);
	db_bind_text(st, 2, value);
	return store_step_done(s, st);
}

/*
 * Record an instance that waits for a free slot (max_running), inside the
 * caller's transaction.  Returns 1 queued, 0 if the instance exists.
 */
int
store_run_queue(struct store *s, const struct store_claim *c)
{
	struct db_stmt	*st = s->st[ST_RUN_QUEUE];
	char		 run_id[STORE_RUN_ID_MAX];

	store_run_id(c->job, c->scheduled_at, c->origin, run_id,
	    sizeof run_id);
	db_bind_text(st, 1, run_id);
	db_bind_text(st, 2, c->job);
	db_bind_int64(st, 3, c->scheduled_at);
	db_bind_text(st, 4, c->origin);
	db_bind_text(st, 5, c->trigger);
	db_bind_int64(st, 6, c->now_ms);
	db_bind_text(st, 7, c->reason);
	db_bind_text(st, 8, c->detail);
	if (store_step_done(s, st) == -1)
		return -1;
	return db_changes(s->db) > 0;
}

/* Call fn for each job the store has planned, in id order; -1 on error. */
int
store_job_ids(struct store *s, void (*fn)(const char *, void *), void *arg)
{
	struct db_stmt	*st = s->st[ST_JOB_IDS];
	int		 rc;

	while ((rc = db_step(st)) == DB_ROW)
		fn(db_column_text(st, 0), arg);
	db_reset(st);
	if (rc != DB_DONE)
		return store_fail(s);
	return 0;
}

/* When the job's latest run finished (Unix ms), -1 if never, -2 error. */
int64_t
store_job_last_end(struct store *s, const char *job)
{
	struct db_stmt	*st = s->st[ST_JOB_LAST_END];
	int64_t		 v = -1;

	db_bind_text(st, 1, job);
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
	struct db_stmt	*st = s->st[ST_RUN_UNQUEUE];
	int64_t		 rowid = 0;
	int		 rc;

	db_bind_text(st, 1, c->job);
	db_bind_text(st, 2, c->origin);
	db_bind_int64(st, 3, c->scheduled_at);
	db_bind_text(st, 4, status);
	db_bind_text(st, 5, reason);
	db_bind_int64(st, 6, c->now_ms);
	db_bind_text(st, 7, c->detail);
	while ((rc = db_step(st)) == DB_ROW)
		rowid = db_column_int64(st, 0);
	db_reset(st);
	if (rc != DB_DONE)
		return store_fail(s);
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
	struct db_stmt	*st = s->st[db_kind(s->db) == DB_PG ?
			    ST_RUN_CLAIM_ID_ONE : ST_RUN_CLAIM_ID];

	db_bind_int64(st, 1, rowid);
	db_bind_text(st, 2, c->trigger);
	db_bind_text(st, 3, c->owner);
	db_bind_int64(st, 4, c->lease_until);
	db_bind_int64(st, 5, c->now_ms / 1000);
	if (db_kind(s->db) == DB_PG)
		return store_claim_one(s, st, 6, c, out);
	if (store_step_done(s, st) == -1)
		return -1;
	if (db_changes(s->db) == 0)
		return 0;
	st = s->st[ST_RUN_CLAIMED_ID];
	db_bind_int64(st, 1, rowid);
	return store_claimed(s, st, c, out);
}

/*
 * Record an instance that does not run (status skipped, c->reason and
 * c->detail).  Returns 1 recorded, 0 if the instance exists already, -1.
 */
int
store_run_skip(struct store *s, const struct store_claim *c)
{
	struct db_stmt	*st = s->st[ST_RUN_SKIP];
	char		 run_id[STORE_RUN_ID_MAX];

	store_run_id(c->job, c->scheduled_at, c->origin, run_id,
	    sizeof run_id);
	db_bind_text(st, 1, run_id);
	db_bind_text(st, 2, c->job);
	db_bind_int64(st, 3, c->scheduled_at);
	db_bind_text(st, 4, c->origin);
	db_bind_text(st, 5, c->trigger);
	db_bind_text(st, 6, c->reason);
	db_bind_text(st, 7, c->detail);
	db_bind_int64(st, 8, c->now_ms);
	if (store_step_done(s, st) == -1)
		return -1;
	return db_changes(s->db) > 0;
}

static int	store_batch_lock(struct store *, int64_t,
		    struct store_settled *);
static int	store_batch_requeue(struct store *, int64_t, int);

/* Call fn for each row of st (ST_RUNS_FOUND's columns); 0 or -1. */
static int
store_found_rows(struct store *s, struct db_stmt *st, store_found_cb fn,
    void *arg)
{
	struct store_found	f;
	int			rc;

	while ((rc = db_step(st)) == DB_ROW) {
		f.rowid = db_column_int64(st, 0);
		f.run_id = db_column_text(st, 1);
		f.job = db_column_text(st, 2);
		f.scheduled_at = db_column_int64(st, 3);
		f.origin = db_column_text(st, 4);
		f.trigger = db_column_text(st, 5);
		f.status = db_column_text(st, 6);
		f.reason = db_column_text(st, 7);
		f.attempt = db_column_null(st, 8) ? 0 : db_column_int(st, 8);
		f.pid = db_column_opt(st, 9);
		f.pid_start = db_column_opt(st, 10);
		f.started_ms = db_column_opt(st, 11);
		f.retry_at = db_column_opt(st, 12);
		f.invocation = db_column_text(st, 13);
		f.boot_id = db_column_text(st, 14);
		f.cgroup = db_column_text(st, 15);
		f.owner = db_column_text(st, 16);
		f.parent = db_column_opt(st, 17);
		f.shard = db_column_null(st, 18) ? -1 : db_column_int(st, 18);
		f.shards = db_column_text(st, 19);
		f.run_started_ms = db_column_opt(st, 20);
		fn(&f, arg);
	}
	db_reset(st);
	if (rc != DB_DONE)
		return store_fail(s);
	return 0;
}

/* Call fn for every instance with a status, oldest first; 0 or -1. */
int
store_runs_found(struct store *s, const char *status, store_found_cb fn,
    void *arg)
{
	struct db_stmt *st = s->st[ST_RUNS_FOUND];

	db_bind_text(st, 1, status);
	return store_found_rows(s, st, fn, arg);
}

/*
 * Call fn for every instance running under another owner's lease that
 * has expired (its node stopped renewing it), oldest first; 0 or -1.
 */
int
store_runs_expired(struct store *s, const char *owner, store_found_cb fn,
    void *arg)
{
	struct db_stmt *st = s->st[ST_RUNS_EXPIRED];

	db_bind_text(st, 1, owner);
	db_bind_int64(st, 2, (int64_t)time(NULL));
	return store_found_rows(s, st, fn, arg);
}

/* Call fn for every instance running under owner's lease; 0 or -1. */
int
store_runs_owned(struct store *s, const char *owner, store_found_cb fn,
    void *arg)
{
	struct db_stmt *st = s->st[ST_RUNS_OWNED];

	db_bind_text(st, 1, owner);
	return store_found_rows(s, st, fn, arg);
}

/*
 * Settle an instance found by store_runs_expired, unless another node
 * did first: status ("interrupted", to be rerun, or "abandoned"), reason
 * and detail on the run, its attempt ended as interrupted.  With owner,
 * an instance of that owner's, whatever its lease (one whose claim the
 * owner does not know: store_runs_owned).  1 settled here, 0 not
 * (settled, renewed or taken meanwhile), -1.
 */
int
store_run_expire(struct store *s, const struct store_found *f,
    const char *owner, const char *status, const char *reason,
    const char *detail, int64_t now_ms)
{
	struct db_stmt	*st = s->st[owner != NULL ? ST_RUN_GHOST :
			    ST_RUN_EXPIRE];
	int64_t		 n;

	db_bind_int64(st, 1, f->rowid);
	db_bind_int64(st, 2, f->attempt);
	db_bind_text(st, 3, status);
	db_bind_text(st, 4, reason);
	db_bind_text(st, 5, detail);
	db_bind_int64(st, 6, now_ms);
	if (owner != NULL)		/* this owner's: not by its lease */
		db_bind_text(st, 7, owner);
	else
		db_bind_int64(st, 7, now_ms / 1000);
	if (store_step_done(s, st) == -1)
		return -1;
	if ((n = db_changes(s->db)) == 0)
		return 0;
	st = s->st[ST_ATTEMPT_EXPIRE];
	db_bind_int64(st, 1, f->rowid);
	db_bind_int64(st, 2, f->attempt);
	db_bind_int64(st, 3, now_ms);
	db_bind_text(st, 4, detail);
	return store_step_done(s, st) == -1 ? -1 : 1;
}

/*
 * Inside the caller's transaction, take the job's row (a server's
 * database: its lock, which serialises every node's decisions about the
 * job) and read its state into out, and in *elsewhere how many of its
 * instances run under another owner.  1, 0 when the job has no row, -1.
 */
int
store_job_lock(struct store *s, const char *job, const char *owner,
    struct store_job *out, int64_t *elsewhere)
{
	struct db_stmt	*st;
	int		 rc;

	if ((rc = store_job_read(s, s->st[ST_JOB_LOCK], job, out)) != 1)
		return rc;
	st = s->st[ST_JOB_ELSEWHERE];
	db_bind_text(st, 1, job);
	db_bind_text(st, 2, owner);
	*elsewhere = 0;
	return store_int64(s, st, elsewhere) == -1 ? -1 : 1;
}

/* When the job last succeeded (Unix ms), -1 if never, -2 on error. */
int64_t
store_job_last_success(struct store *s, const char *job)
{
	struct db_stmt	*st = s->st[ST_JOB_LAST_SUCCESS];
	int64_t		 v = -1;

	db_bind_text(st, 1, job);
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
	struct db_stmt	*st = s->st[ST_RUN_KIND];
	struct store_settled b;
	const char	*text;
	int64_t		 id = -1;
	int		 rc, found = 0, shard = -1;

	/* A batch, or one of its shards: the shards that did not succeed. */
	out->batch = 0;
	db_bind_text(st, 1, run_id);
	if ((rc = db_step(st)) == DB_ROW && (!db_column_null(st, 1) ||
	    db_column_int(st, 3))) {
		id = db_column_null(st, 1) ? db_column_int64(st, 0) :
		    db_column_int64(st, 1);
		shard = db_column_null(st, 1) ? -1 : db_column_int(st, 2);
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return store_fail(s);
	if (id != -1) {
		if ((rc = store_batch_requeue(s, id, shard)) == -1 ||
		    store_batch_lock(s, id, &b) == -1)
			return -1;
		if (rc == 0) {
			(void)snprintf(buf, len, "%s: only failed, dead, "
			    "abandoned, terminated and unknown shards can be "
			    "replayed", shard == -1 ? "every shard succeeded "
			    "or has not ended" : "the shard succeeded or has "
			    "not ended");
			return 0;
		}
		out->batch = 1;
		out->rowid = id;
		(void)snprintf(out->job, sizeof out->job, "%s", b.job);
		(void)snprintf(out->origin, sizeof out->origin, "%s",
		    store_run_origin(b.run_id));
		out->scheduled_at = b.scheduled_at;
		return 1;
	}
	st = s->st[ST_RUN_REQUEUE];
	db_bind_text(st, 1, run_id);
	while ((rc = db_step(st)) == DB_ROW) {
		found = 1;
		out->rowid = db_column_int64(st, 0);
		text = db_column_text(st, 1);
		(void)snprintf(out->job, sizeof out->job, "%s", text ? text :
		    "");
		text = db_column_text(st, 2);
		(void)snprintf(out->origin, sizeof out->origin, "%s",
		    text ? text : "schedule");
		out->scheduled_at = db_column_int64(st, 3);
	}
	db_reset(st);
	if (rc != DB_DONE)
		return store_fail(s);
	if (found)
		return 1;
	st = s->st[ST_RUN_STATUS];
	db_bind_text(st, 1, run_id);
	rc = db_step(st);
	if (rc == DB_ROW)
		(void)snprintf(buf, len, "its status is %s: only failed and "
		    "dead instances can be replayed",
		    db_column_text(st, 0));
	else
		(void)snprintf(buf, len, "no such run id");
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return store_fail(s);
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
	struct db_stmt	*st = s->st[ST_PRUNE_OVER];
	int64_t		 one;
	int		 rc;

	db_bind_text(st, 1, job);
	db_bind_int64(st, 2, keep);
	if ((rc = store_int64(s, st, &one)) != 1)
		return rc;		/* 0: no more than keep; -1 */
	st = s->st[ST_PRUNE_JOB];
	db_bind_text(st, 1, job);
	db_bind_int64(st, 2, keep);
	db_bind_int64(st, 3, chunk);
	if (store_step_done(s, st) == -1)
		return -1;
	return db_changes(s->db);
}

/* Delete up to chunk instances and decisions older than cut (Unix ms). */
int
store_prune_age(struct store *s, int64_t cut, int chunk)
{
	struct db_stmt	*st = s->st[ST_PRUNE_AGE];
	int		 n;

	db_bind_int64(st, 1, cut);
	db_bind_int64(st, 2, chunk);
	if (store_step_done(s, st) == -1)
		return -1;
	n = db_changes(s->db);
	st = s->st[ST_PRUNE_DECISIONS];
	db_bind_int64(st, 1, cut);
	db_bind_int64(st, 2, chunk);
	if (store_step_done(s, st) == -1)
		return -1;
	return n + db_changes(s->db);
}

/*
 * The latest instant of a job's instances of one origin, in *at: 1, or 0
 * when there is none, or -1.
 */
int
store_run_last(struct store *s, const char *job, const char *origin,
    int64_t *at)
{
	struct db_stmt	*st = s->st[ST_RUN_LAST];

	db_bind_text(st, 1, job);
	db_bind_text(st, 2, origin);
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
	struct db_stmt	*st = s->st[ST_RUN_FAILURE];
	const char	*text;
	int		 rc;

	db_bind_text(st, 1, c->job);
	db_bind_text(st, 2, c->origin);
	db_bind_int64(st, 3, c->scheduled_at);
	rc = db_step(st);
	if (rc == DB_ROW) {
		out->rowid = db_column_int64(st, 0);
		out->attempts = db_column_int(st, 1);
		text = db_column_text(st, 2);
		(void)snprintf(out->reason, sizeof out->reason, "%s",
		    text != NULL ? text : "");
		out->exit_status = db_column_null(st, 3) ?
		    -1 : db_column_int(st, 3);
		out->signal = db_column_null(st, 4) ? -1 :
		    db_column_int(st, 4);
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return store_fail(s);
	s->busy = 0;
	return rc == DB_ROW;
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
	struct db_stmt *st = s->st[ST_RUN_NOTE];

	db_bind_text(st, 1, c->job);
	db_bind_text(st, 2, c->origin);
	db_bind_int64(st, 3, c->scheduled_at);
	db_bind_text(st, 4, detail);
	return store_step_done(s, st);
}

/*
 * The server's clock (Unix ms) in *ms: 1, or 0 when the database has no
 * clock of its own (SQLite), or -1.
 */
int
store_server_now(struct store *s, int64_t *ms)
{
	if (db_kind(s->db) != DB_PG)
		return 0;
	return store_int64(s, s->st[ST_SERVER_NOW], ms) == 1 ? 1 : -1;
}

/*
 * A node's heartbeat (a server's database): its owner, its clock's
 * offset to the server's (ms), how many runs it has, the hash of its job
 * definitions.  0 or -1; nothing on SQLite.
 */
int
store_node_put(struct store *s, const char *node, const char *owner,
    int64_t offset_ms, int64_t running, const char *defs_hash)
{
	struct db_stmt *st = s->st[ST_NODE_PUT];

	if (db_kind(s->db) != DB_PG)
		return 0;
	db_bind_text(st, 1, node);
	db_bind_text(st, 2, owner);
	db_bind_int64(st, 3, offset_ms);
	db_bind_int64(st, 4, running);
	db_bind_text(st, 5, defs_hash);
	return store_step_done(s, st);
}

/* Call fn for each node of a server's database, by name; 0 or -1. */
int
store_nodes(struct store *s, store_node_cb fn, void *arg)
{
	struct db_stmt		*st = s->st[ST_NODES];
	struct store_node	 n;
	int			 rc;

	while ((rc = db_step(st)) == DB_ROW) {
		n.node = db_column_text(st, 0);
		n.owner = db_column_text(st, 1);
		n.heartbeat_ms = db_column_int64(st, 2);
		n.offset_ms = db_column_int64(st, 3);
		n.running = db_column_int64(st, 4);
		n.defs_hash = db_column_text(st, 5);
		fn(&n, arg);
	}
	db_reset(st);
	return rc == DB_DONE ? 0 : store_fail(s);
}

/*
 * Record node's job definitions (n jobs, each "id" and its hash) in
 * place of those it had, inside the caller's transaction: in batches, a
 * round trip each.  0 or -1; nothing on SQLite.
 */
int
store_node_jobs(struct store *s, const char *node,
    const struct store_node_job *v, size_t n)
{
	struct db_stmt	*st;
	char		*batch;
	size_t		 i, need, used;
	int		 rc = 0;

	if (db_kind(s->db) != DB_PG)
		return 0;
	st = s->st[ST_NODE_JOBS_CLEAR];
	db_bind_text(st, 1, node);
	if (store_step_done(s, st) == -1)
		return -1;
	batch = xmalloc(STORE_NODE_BATCH);
	for (i = 0; i < n && rc == 0; ) {
		for (used = 0; i < n; i++) {
			need = strlen(v[i].job) + strlen(v[i].hash) + 3;
			if (used > 0 && used + need > STORE_NODE_BATCH)
				break;	/* ids are short: one always fits */
			used += (size_t)snprintf(batch + used,
			    STORE_NODE_BATCH - used, "%s%s %s",
			    used > 0 ? "," : "", v[i].job, v[i].hash);
		}
		st = s->st[ST_NODE_JOBS_ADD];
		db_bind_text(st, 1, node);
		db_bind_text(st, 2, batch);
		rc = store_step_done(s, st);
	}
	free(batch);
	return rc;
}

/*
 * Call fn for the first max jobs (by id) whose definitions differ
 * between node and other: here/there say which of the two has the job.
 * 0 or -1; nothing on SQLite.
 */
int
store_node_diff(struct store *s, const char *node, const char *other,
    int64_t max, store_diff_cb fn, void *arg)
{
	struct db_stmt	*st = s->st[ST_NODE_DIFF];
	int		 rc;

	if (db_kind(s->db) != DB_PG)
		return 0;
	db_bind_text(st, 1, node);
	db_bind_text(st, 2, other);
	db_bind_int64(st, 3, max);
	while ((rc = db_step(st)) == DB_ROW)
		fn(db_column_text(st, 0), (int)db_column_int64(st, 1),
		    (int)db_column_int64(st, 2), arg);
	db_reset(st);
	return rc == DB_DONE ? 0 : store_fail(s);
}

/* Call fn with the id of each job whose row says paused; 0 or -1. */
int
store_jobs_paused(struct store *s, void (*fn)(const char *, void *),
    void *arg)
{
	struct db_stmt	*st = s->st[ST_JOBS_PAUSED];
	int		 rc;

	while ((rc = db_step(st)) == DB_ROW)
		fn(db_column_text(st, 0), arg);
	db_reset(st);
	return rc == DB_DONE ? 0 : store_fail(s);
}

/*
 * Overlap = replace decided by node (owner) while job's instances run
 * under other owners: ask their nodes to stop them (store_run_stops),
 * inside the caller's transaction.  How many were asked, or -1; nothing
 * on SQLite.
 */
int64_t
store_run_stops_ask(struct store *s, const char *job, const char *owner,
    const char *node, int64_t now_ms)
{
	struct db_stmt *st = s->st[ST_RUN_STOPS_ASK];

	if (db_kind(s->db) != DB_PG)
		return 0;
	db_bind_text(st, 1, job);
	db_bind_text(st, 2, owner);
	db_bind_text(st, 3, node);
	db_bind_int64(st, 4, now_ms);
	if (store_step_done(s, st) == -1)
		return -1;
	return db_changes(s->db);
}

/*
 * Call fn with each of owner's running instances another node asked to
 * stop (its row id, and the node that asked).  0 or -1.
 */
int
store_run_stops(struct store *s, const char *owner,
    void (*fn)(int64_t, const char *, void *), void *arg)
{
	struct db_stmt	*st = s->st[ST_RUN_STOPS];
	int		 rc;

	db_bind_text(st, 1, owner);
	while ((rc = db_step(st)) == DB_ROW)
		fn(db_column_int64(st, 0), db_column_text(st, 1), arg);
	db_reset(st);
	return rc == DB_DONE ? 0 : store_fail(s);
}

/* The connection, for the store's other modules (store_copy.c). */
struct db *
store_db(struct store *s)
{
	return s->db;
}

/* The schema's version (user_version, or a server's meta), or -1. */
int
store_version(struct store *s)
{
	struct db_stmt	*st = NULL;
	const char	*v;
	int		 version = -1;

	if (db_prepare(s->db, db_kind(s->db) == DB_PG ? "SELECT value FROM "
	    "meta WHERE key = 'schema_version'" : "PRAGMA user_version",
	    &st) == 0 && db_step(st) == DB_ROW &&
	    (v = db_column_text(st, 0)) != NULL)
		version = atoi(v);
	db_finalize(st);
	return version;
}

/*
 * A node's daemon (owner) stopped: its heartbeat row goes, so that it is
 * not taken for a live node.  0 or -1; nothing on SQLite.
 */
int
store_node_gone(struct store *s, const char *node, const char *owner)
{
	struct db_stmt *st = s->st[ST_NODE_GONE];

	if (db_kind(s->db) != DB_PG)
		return 0;
	db_bind_text(st, 1, node);
	db_bind_text(st, 2, owner);
	return store_step_done(s, st);
}

/* --- batches ------------------------------------------------------------- */

/*
 * Begin a claimed instance's batch, inside the caller's transaction: its
 * list recorded on its row, which gives up its lease (it has no process:
 * each shard has its own), and a queued row per shard ("ORIGIN#I", run id
 * "RUN_ID#I"), unless there already (a resume).  Fenced by the claim's
 * attempt.  Returns 1 with the shards' row ids in *ids (allocated, in
 * index order), 0 if the instance is no longer ours, -1.
 */
int
store_batch_begin(struct store *s, const struct store_batch *b,
    int64_t **ids)
{
	struct db_stmt	*st = s->st[ST_BATCH_BEGIN];
	const char	*p = b->list, *nl;
	char		 origin[32], run_id[STORE_RUN_ID_MAX + 16], *param;
	int64_t		*v;
	int		 i, rc, n = 0;

	*ids = NULL;
	db_bind_int64(st, 1, b->rowid);
	db_bind_text(st, 2, b->list);
	db_bind_int64(st, 3, b->attempt);
	db_bind_int64(st, 4, b->now_ms);
	if (store_step_done(s, st) == -1)
		return -1;
	if (db_changes(s->db) == 0)
		return 0;
	st = s->st[ST_SHARD_INSERT];
	for (i = 0; i < b->nshards; i++) {
		nl = strchr(p, '\n');
		param = nl != NULL ? xstrndup(p, (size_t)(nl - p)) :
		    xstrdup(p);
		(void)snprintf(origin, sizeof origin, "%s#%d", b->origin, i);
		(void)snprintf(run_id, sizeof run_id, "%s#%d", b->run_id, i);
		db_bind_text(st, 1, run_id);
		db_bind_text(st, 2, b->job);
		db_bind_int64(st, 3, b->scheduled_at);
		db_bind_text(st, 4, origin);
		db_bind_text(st, 5, b->trigger);
		db_bind_int64(st, 6, b->now_ms);
		db_bind_int64(st, 7, b->rowid);
		db_bind_int64(st, 8, i);
		db_bind_text(st, 9, param);
		rc = store_step_done(s, st);
		free(param);
		if (rc == -1)
			return -1;
		p = nl != NULL ? nl + 1 : p + strlen(p);
	}
	st = s->st[ST_SHARD_IDS];
	v = xreallocarray(NULL, (size_t)b->nshards + 1, sizeof *v);
	db_bind_int64(st, 1, b->rowid);
	while ((rc = db_step(st)) == DB_ROW && n < b->nshards)
		v[n++] = db_column_int64(st, 0);
	db_reset(st);
	if ((rc != DB_ROW && rc != DB_DONE) || n != b->nshards) {
		free(v);
		if (rc != DB_ROW && rc != DB_DONE)
			return store_fail(s);
		s->busy = 0;
		(void)snprintf(s->err, sizeof s->err, "the batch's shards "
		    "are not all there (%d of %d)", n, b->nshards);
		return -1;
	}
	*ids = v;
	return 1;
}

/* Lock a batch's row (PostgreSQL; SQLite's writer is alone): 1, 0, -1. */
static int
store_batch_lock(struct store *s, int64_t rowid, struct store_settled *out)
{
	struct db_stmt	*st = s->st[ST_BATCH_LOCK];
	const char	*t;
	int		 rc, running = 0;

	db_bind_int64(st, 1, rowid);
	if ((rc = db_step(st)) == DB_ROW) {
		t = db_column_text(st, 0);
		running = t != NULL && strcmp(t, "running") == 0;
		if (out != NULL) {
			t = db_column_text(st, 1);
			(void)snprintf(out->job, sizeof out->job, "%s",
			    t ? t : "");
			t = db_column_text(st, 2);
			(void)snprintf(out->run_id, sizeof out->run_id, "%s",
			    t ? t : "");
			out->scheduled_at = db_column_int64(st, 3);
			out->attempt = db_column_int(st, 4);
		}
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return store_fail(s);
	return running;
}

/*
 * How many shards of a running batch run now, its row locked until the
 * caller's transaction ends (two nodes never both take the last slot of
 * shard_parallel).  -1 on error; a batch that no longer runs has none
 * free: INT32_MAX.
 */
int
store_shards_running(struct store *s, int64_t parent)
{
	int64_t	v = 0;
	int	rc;

	if ((rc = store_batch_lock(s, parent, NULL)) != 1)
		return rc == 0 ? INT32_MAX : -1;
	db_bind_int64(s->st[ST_SHARDS_RUNNING], 1, parent);
	if (store_int64(s, s->st[ST_SHARDS_RUNNING], &v) == -1)
		return -1;
	return (int)v;
}

/* The list of failed shards as text ("3 7"), into out->failed. */
static int
store_batch_failed(struct store *s, int64_t parent, struct store_settled *out)
{
	struct db_stmt	*st = s->st[ST_BATCH_FAILED];
	size_t		 len = 0, cap = 0;
	char		 num[16];
	int		 rc, n;

	db_bind_int64(st, 1, parent);
	while ((rc = db_step(st)) == DB_ROW) {
		n = snprintf(num, sizeof num, "%s%d", len > 0 ? " " : "",
		    db_column_int(st, 0));
		if (len + (size_t)n + 1 > cap) {
			cap = (len + (size_t)n + 1) * 2;
			out->failed = xreallocarray(out->failed, cap, 1);
		}
		memcpy(out->failed + len, num, (size_t)n + 1);
		len += (size_t)n;
	}
	db_reset(st);
	if (rc != DB_DONE)
		return store_fail(s);
	return 0;
}

/*
 * Settle a batch whose shards are all final, inside the caller's
 * transaction (after the end of its last shard): its status (succeeded
 * if every shard did, dead if one is, else failed), reason, detail and
 * end, its attempt closed, and on success the shards' checkpoints
 * forgotten.  Its row locked first, so that of two nodes ending its last
 * two shards the second sees the first's end.  Returns 1 settled here
 * (*out set: the caller frees out->failed), 0 not (a shard is not final,
 * or another settled it), -1.
 */
int
store_batch_settle(struct store *s, int64_t parent, int64_t now_ms,
    struct store_settled *out)
{
	struct db_stmt	*st;
	const char	*status, *list;
	int64_t		 n, timeouts = 0, replaced = 0;
	int		 rc, open = 0, dead = 0, unknown = 0, shown;

	memset(out, 0, sizeof *out);
	if ((rc = store_batch_lock(s, parent, out)) != 1)
		return rc;
	st = s->st[ST_BATCH_COUNTS];
	db_bind_int64(st, 1, parent);
	while ((rc = db_step(st)) == DB_ROW) {
		status = db_column_text(st, 0);
		n = db_column_int64(st, 1);
		timeouts += db_column_int64(st, 2);
		replaced += db_column_int64(st, 3);
		out->total += (int)n;
		if (strcmp(status, "succeeded") == 0)
			out->succeeded += (int)n;
		else if (strcmp(status, "dead") == 0)
			dead += (int)n;
		else if (strcmp(status, "unknown") == 0)
			unknown += (int)n;
		else if (strcmp(status, "queued") == 0 ||
		    strcmp(status, "running") == 0 ||
		    strcmp(status, "retrying") == 0 ||
		    strcmp(status, "interrupted") == 0 ||
		    strcmp(status, "pending") == 0)
			open += (int)n;
	}
	db_reset(st);
	if (rc != DB_DONE)
		return store_fail(s);
	if (open > 0 || out->total == 0)
		return 0;
	if (out->succeeded == out->total) {
		(void)snprintf(out->status, sizeof out->status, "succeeded");
		(void)snprintf(out->detail, sizeof out->detail, "%d shards "
		    "succeeded", out->total);
	} else {
		if (store_batch_failed(s, parent, out) == -1)
			return -1;
		/*
		 * Unknown alone (shards adopted after a restart, their exit
		 * statuses unknowable): not a failure, as for an instance.
		 */
		(void)snprintf(out->status, sizeof out->status, "%s",
		    dead > 0 ? "dead" : unknown == out->total -
		    out->succeeded ? "unknown" : replaced > 0 ? "terminated" :
		    "failed");
		(void)snprintf(out->reason, sizeof out->reason, "%s",
		    timeouts > 0 ? "batch_timeout" : replaced > 0 ?
		    "replaced" : "shards");
		list = out->failed != NULL ? out->failed : "";
		shown = (int)strlen(list) > 120 ? 120 : (int)strlen(list);
		(void)snprintf(out->detail, sizeof out->detail, "%d of %d "
		    "shards %s%s: %.*s%s", out->total - out->succeeded,
		    out->total, strcmp(out->status, "unknown") == 0 ?
		    "ended unknown (adopted after a restart)" :
		    replaced > 0 ? "were stopped: replaced by a newer "
		    "instance" : "failed",
		    timeouts > 0 ? " (batch_timeout)" : dead > 0 ?
		    " (retries exhausted)" : "", shown, list,
		    shown < (int)strlen(list) ? " ..." : "");
	}
	st = s->st[ST_BATCH_END];
	db_bind_int64(st, 1, parent);
	db_bind_text(st, 2, out->status);
	db_bind_text(st, 3, out->reason[0] != '\0' ? out->reason : NULL);
	db_bind_text(st, 4, out->detail);
	db_bind_int64(st, 5, now_ms);
	if (store_step_done(s, st) == -1)
		goto fail;
	st = s->st[ST_BATCH_ATTEMPT_END];
	db_bind_int64(st, 1, parent);
	db_bind_int64(st, 2, now_ms);
	db_bind_text(st, 3, out->status);
	if (store_step_done(s, st) == -1)
		goto fail;
	if (out->failed == NULL) {
		st = s->st[ST_BATCH_FORGET];
		db_bind_int64(st, 1, parent);
		if (store_step_done(s, st) == -1)
			goto fail;
	}
	return 1;
fail:
	free(out->failed);
	out->failed = NULL;
	return -1;
}

/*
 * A batch's waiting shards settle without running (batch_timeout):
 * abandoned with reason and detail.  Returns how many, or -1.
 */
int
store_batch_abandon(struct store *s, int64_t parent, const char *reason,
    const char *detail, int64_t now_ms)
{
	struct db_stmt *st = s->st[ST_BATCH_ABANDON];

	db_bind_int64(st, 1, parent);
	db_bind_text(st, 2, reason);
	db_bind_text(st, 3, detail);
	db_bind_int64(st, 4, now_ms);
	if (store_step_done(s, st) == -1)
		return -1;
	return (int)db_changes(s->db);
}

/*
 * The status of the instance at rowid, in buf: 1, 0 when there is no
 * such row (pruned), -1.
 */
int
store_run_status(struct store *s, int64_t rowid, char *buf, size_t len)
{
	struct db_stmt	*st = s->st[ST_RUN_STATUS_ID];
	const char	*t;
	int		 rc;

	db_bind_int64(st, 1, rowid);
	if ((rc = db_step(st)) == DB_ROW) {
		t = db_column_text(st, 0);
		(void)snprintf(buf, len, "%s", t != NULL ? t : "");
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return store_fail(s);
	return rc == DB_ROW;
}

/* Call fn for a running batch instance (parent), or each (-1); 0, -1. */
int
store_batches(struct store *s, int64_t parent, store_found_cb fn, void *arg)
{
	struct db_stmt *st = s->st[ST_BATCHES];

	db_bind_int64(st, 1, parent);
	return store_found_rows(s, st, fn, arg);
}

/* Call fn for each waiting shard of a batch, by index; 0 or -1. */
int
store_shards_waiting(struct store *s, int64_t parent, store_found_cb fn,
    void *arg)
{
	struct db_stmt *st = s->st[ST_SHARDS_WAITING];

	db_bind_int64(st, 1, parent);
	return store_found_rows(s, st, fn, arg);
}

/*
 * A shard's checkpoint as last saved: 1 with *buf (allocated) and *len,
 * 0 none, -1.
 */
int
store_checkpoint_get(struct store *s, int64_t rowid, void **buf, size_t *len)
{
	struct db_stmt	*st = s->st[ST_CHECKPOINT_GET];
	const void	*b;
	int		 rc, found = 0;

	*buf = NULL;
	*len = 0;
	db_bind_int64(st, 1, rowid);
	if ((rc = db_step(st)) == DB_ROW && !db_column_null(st, 0)) {
		b = db_column_blob(st, 0, len);
		*buf = xmalloc(*len + 1);
		if (*len > 0)
			memcpy(*buf, b, *len);
		found = 1;
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE) {
		free(*buf);
		*buf = NULL;
		return store_fail(s);
	}
	return found;
}

/* Save a shard's checkpoint, unless its attempt was taken over; 0, -1. */
int
store_checkpoint_put(struct store *s, int64_t rowid, int attempt,
    const void *buf, size_t len)
{
	struct db_stmt *st = s->st[ST_CHECKPOINT_PUT];

	db_bind_int64(st, 1, rowid);
	db_bind_int64(st, 2, attempt);
	db_bind_blob(st, 3, buf, len);
	return store_step_done(s, st);
}

/*
 * Replay a batch, inside the caller's transaction: `id` is its row and
 * `shard` -1 (every shard that did not succeed) or one index.  Its row
 * runs again (no lease: its shards' claims have them).  Returns how many
 * shards were requeued, or -1.
 */
static int
store_batch_requeue(struct store *s, int64_t id, int shard)
{
	struct db_stmt *st = s->st[ST_SHARDS_REQUEUE];
	int64_t n;

	db_bind_int64(st, 1, id);
	db_bind_int64(st, 2, shard);
	if (store_step_done(s, st) == -1)
		return -1;
	if ((n = db_changes(s->db)) == 0)
		return 0;
	st = s->st[ST_BATCH_REQUEUE];
	db_bind_int64(st, 1, id);
	if (store_step_done(s, st) == -1)
		return -1;
	return (int)n;
}

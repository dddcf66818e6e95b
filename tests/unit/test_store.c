/*
 * test_store.c -- unit tests of the SQLite store: schema creation,
 * versioning and the 1 -> 2 migration, refusal of foreign files, job
 * state, the claim protocol (one row per instance, origins kept apart,
 * queued instances, expired leases), attempts and their end (retrying,
 * interrupted), the instances found at startup in each status, claims by
 * row (retry, recover, queued), skipped instances, settling waiting
 * instances, the last success, pruning (by age and per job), decisions,
 * leases, meta values, and a database held busy by another connection.
 *
 * Every subtest uses a fresh database file in a temporary directory and
 * checks what the store wrote with its own sqlite3 connection to the same
 * file ("SELECT ..." returning one value, compared as text; NULL is
 * "NULL").  Tables of cases throughout.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"
#include "store_schema.h"

#include "t.h"

#define T0	INT64_C(1805007600)	/* 2027-03-14T07:00:00Z */
#define NOW_MS	(T0 * 1000 + 1234)

static char	tmpdir[] = "/tmp/tickd-test-store.XXXXXX";
static int	dbseq;

/* A fresh database path in the temporary directory. */
static char *
db_path(char *buf, size_t len)
{
	(void)snprintf(buf, len, "%s/%d.db", tmpdir, ++dbseq);
	return buf;
}

/* A subtest name "a: b" (valid until the next call). */
static const char *
sub(const char *a, const char *b)
{
	static char buf[160];

	(void)snprintf(buf, sizeof buf, "%s: %s", a, b);
	return buf;
}

/* Open a fresh store, or NULL (reported). */
static struct store *
fresh(char *path, size_t len)
{
	struct store	*s;
	char		*cause = NULL;

	db_path(path, len);
	if ((s = store_open(path, 0, &cause)) == NULL) {
		(void)printf("  store_open %s: %s\n", path, cause);
		T_TRUE(s != NULL);
		free(cause);
	}
	return s;
}

/* The first column of the first row of sql, as text ("NULL", "none"). */
static void
q(sqlite3 *db, const char *sql, char *buf, size_t len)
{
	sqlite3_stmt	*st = NULL;
	const char	*text;
	int		 rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		(void)snprintf(buf, len, "error: %s", sqlite3_errmsg(db));
		return;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		text = sqlite3_column_type(st, 0) == SQLITE_NULL ? "NULL" :
		    (const char *)sqlite3_column_text(st, 0);
		(void)snprintf(buf, len, "%s", text);
	} else if (rc == SQLITE_DONE)
		(void)snprintf(buf, len, "none");
	else
		(void)snprintf(buf, len, "error: %s", sqlite3_errmsg(db));
	(void)sqlite3_finalize(st);
}

/* A check on the database: sql must give want. */
struct sql_check {
	const char	*sql;
	const char	*want;
};

/* Run checks (up to a NULL sql) on the file at path. */
static void
check_sql(const char *path, const struct sql_check *c, size_t n)
{
	sqlite3	*db = NULL;
	char	 got[480];
	size_t	 i;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		T_TRUE(0);
		(void)sqlite3_close(db);
		return;
	}
	for (i = 0; i < n && c[i].sql != NULL; i++) {
		q(db, c[i].sql, got, sizeof got);
		if (strcmp(got, c[i].want) != 0)
			(void)printf("  sql: %s\n", c[i].sql);
		T_EQ_STR(got, c[i].want);
	}
	(void)sqlite3_close(db);
}

/* Run raw SQL on the file at path; 0 or -1. */
static int
exec_sql(const char *path, const char *sql)
{
	sqlite3	*db = NULL;
	char	*msg = NULL;
	int	 rc;

	rc = sqlite3_open(path, &db) == SQLITE_OK ? sqlite3_exec(db, sql, NULL,
	    NULL, &msg) : SQLITE_ERROR;
	if (rc != SQLITE_OK)
		(void)printf("  exec %s: %s\n", sql, msg ? msg :
		    sqlite3_errmsg(db));
	sqlite3_free(msg);
	(void)sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

/*
 * A claim in one transaction at now_ms, leased until lease_until; the
 * result of store_run_claim.
 */
static int
claim_at(struct store *s, const char *job, int64_t when, const char *origin,
    const char *owner, int64_t now_ms, int64_t lease_until,
    struct store_claimed *out)
{
	struct store_claim	c;
	int			rc;

	memset(&c, 0, sizeof c);
	c.job = job;
	c.scheduled_at = when;
	c.origin = origin;
	c.trigger = strcmp(origin, "reboot") == 0 ? "schedule" : origin;
	c.owner = owner;
	c.now_ms = now_ms;
	c.lease_until = lease_until;
	/* A second owner's claims carry an invocation id and a boot. */
	if (strcmp(owner, "owner-2") == 0) {
		c.invocation = "0123456789abcdef0123456789abcdef";
		c.boot_id = "boot-2";
	}
	memset(out, 0, sizeof *out);
	if (store_begin(s) == -1)
		return -9;
	rc = store_run_claim(s, &c, out);
	if (rc == -1) {
		(void)printf("  claim: %s\n", store_error(s));
		store_rollback(s);
		return rc;
	}
	if (store_commit(s) == -1)
		return -8;
	return rc;
}

/* A claim at NOW_MS leased until T0 + 60. */
static int
claim(struct store *s, const char *job, int64_t when, const char *origin,
    const char *owner, struct store_claimed *out)
{
	return claim_at(s, job, when, origin, owner, NOW_MS, T0 + 60, out);
}

static const struct sql_check schema_checks[] = {
	{ "PRAGMA user_version", "8" },
	{ "PRAGMA journal_mode", "wal" },
	{ "SELECT group_concat(name, ' ') FROM (SELECT name FROM "
	    "sqlite_master WHERE type = 'table' ORDER BY name)",
	    "attempts decisions jobs meta runs" },
	{ "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name "
	    "IN ('runs_job', 'runs_owned', 'decisions_job', "
	    "'runs_retrying')", "4" },
	{ "SELECT group_concat(name, ' ') FROM pragma_index_info('runs_job')",
	    "job scheduled_at status parent" },
	{ "SELECT count(*) FROM runs", "0" },
	{ "SELECT group_concat(name, ' ') FROM pragma_table_info('runs') "
	    "WHERE name IN ('retry_at', 'detail')", "retry_at detail" },
	{ "SELECT count(*) FROM pragma_table_info('jobs') WHERE name = "
	    "'overdue_alerted'", "1" },
	{ "SELECT count(*) FROM pragma_table_info('attempts') WHERE name = "
	    "'pid_start'", "1" },
};

/* Schema, reopening, newer versions and foreign files. */
static void
test_open(void)
{
	struct store		*s;
	struct store_job	 j;
	char			 path[256], *cause = NULL, want[512];
	int			 fd, i;

	T_RUN("schema created");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	check_sql(path, schema_checks, sizeof schema_checks /
	    sizeof schema_checks[0]);
	memset(&j, 0, sizeof j);
	j.sched_hash = 42;
	j.planned = T0;
	T_EQ_INT(store_job_put(s, "kept", &j, NOW_MS), 0);
	store_close(s);

	T_RUN("reopen is idempotent");
	for (i = 0; i < 2; i++) {
		s = store_open(path, 0, &cause);
		T_TRUE(s != NULL);
		if (s == NULL) {
			(void)printf("  %s\n", cause);
			free(cause);
			return;
		}
		T_EQ_INT(store_job_get(s, "kept", &j), 1);
		T_EQ_INT(j.sched_hash, 42);
		T_EQ_TIME(j.planned, T0);
		store_close(s);
	}
	check_sql(path, schema_checks, sizeof schema_checks /
	    sizeof schema_checks[0]);

	T_RUN("read-only open of an existing store");
	s = store_open(path, 1, &cause);
	T_TRUE(s != NULL);
	store_close(s);

	T_RUN("newer schema refused");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	store_close(s);
	T_EQ_INT(exec_sql(path, "PRAGMA user_version = 9"), 0);
	cause = NULL;
	s = store_open(path, 0, &cause);
	T_TRUE(s == NULL);
	(void)snprintf(want, sizeof want, "%s: schema version 9 is newer than "
	    "this tickd understands (8): downgrade is not supported", path);
	T_EQ_STR(cause, want);
	free(cause);
	store_close(s);

	T_RUN("garbage file refused");
	db_path(path, sizeof path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	T_TRUE(fd != -1);
	for (i = 0; i < 100 && fd != -1; i++)
		T_TRUE(write(fd, "this is not a database, it is text\n", 35) ==
		    35);
	if (fd != -1)
		(void)close(fd);
	cause = NULL;
	s = store_open(path, 0, &cause);
	T_TRUE(s == NULL);
	(void)snprintf(want, sizeof want, "%s: file is not a database: move "
	    "it aside to recover it or start afresh (see \"If the database is "
	    "corrupt\" in tickd(8))", path);
	T_EQ_STR(cause, want);
	free(cause);
	store_close(s);

	/* Refused before anything is written: the file can be recovered. */
	T_RUN("foreign database refused, left as it was");
	db_path(path, sizeof path);
	T_EQ_INT(exec_sql(path, "CREATE TABLE notes (t TEXT)"), 0);
	cause = NULL;
	s = store_open(path, 0, &cause);
	T_TRUE(s == NULL);
	(void)snprintf(want, sizeof want, "%s: not a tickd database (tables, "
	    "but no schema version): check the state setting, or move it "
	    "aside to recover it or start afresh (see \"If the database is "
	    "corrupt\" in tickd(8))", path);
	T_EQ_STR(cause, want);
	free(cause);
	store_close(s);
	{
		static const struct sql_check c[] = {
			{ "PRAGMA journal_mode", "delete" },
			{ "SELECT group_concat(name) FROM sqlite_schema",
			    "notes" },
		};

		check_sql(path, c, sizeof c / sizeof c[0]);
	}

	T_RUN("missing directory refused");
	(void)snprintf(path, sizeof path, "%s/no/such/dir/x.db", tmpdir);
	cause = NULL;
	s = store_open(path, 0, &cause);
	T_TRUE(s == NULL);
	(void)snprintf(want, sizeof want, "%s: unable to open database file",
	    path);
	T_EQ_STR(cause, want);
	free(cause);
	store_close(s);
}

/*
 * The file renamed away under an open store: writes fail (not busy),
 * with or without a transaction, until it is back.  A failure inside a
 * transaction is still the error after the rollback.
 */
static void
test_moved(void)
{
	struct store		*s;
	struct store_decision	 d;
	char			 path[256], away[300];

	T_RUN("file renamed away");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	(void)snprintf(away, sizeof away, "%s.away", path);
	T_EQ_INT(rename(path, away), 0);
	T_EQ_INT(store_begin(s), -1);
	T_EQ_INT(store_busy(s), 0);
	T_TRUE(strstr(store_error(s), "was deleted or replaced while tickd "
	    "ran") != NULL);
	T_EQ_INT(store_lease_renew(s, "owner", 1), -1);
	T_RUN("file renamed back");
	T_EQ_INT(rename(away, path), 0);
	T_EQ_INT(store_begin(s), 0);
	T_RUN("rollback keeps the failure");
	memset(&d, 0, sizeof d);
	d.decision = "skipped";
	d.first_at = d.last_at = d.run_rowid = -1;
	T_EQ_INT(store_decision_add(s, &d), -1);	/* job NULL */
	store_rollback(s);
	T_EQ_STR(store_error(s), "NOT NULL constraint failed: decisions.job");
	T_EQ_INT(store_busy(s), 0);
	store_close(s);
}

/* Job state: put then get gives back every field. */
struct job_case {
	const char	*job;
	uint64_t	 hash;
	int64_t		 planned;
	int		 paused;
	const char	*boot_id;
	int64_t		 alerted;	/* overdue_alerted, -1: none */
	const char	*row;		/* hash planned boot_id alerted, as
					   stored */
};

static const struct job_case job_cases[] = {
	{ "a", 0x0123456789abcdefULL, T0, 0, "", -1,
	    "0123456789abcdef 1805007600 NULL NULL" },
	{ "b", 0xffffffffffffffffULL, -1, 1,
	    "5d2f8b8e-2a5e-4a51-9c3b-0e7a3f1f5c11", NOW_MS,
	    "ffffffffffffffff NULL 5d2f8b8e-2a5e-4a51-9c3b-0e7a3f1f5c11 "
	    "1805007601234" },
	{ "c", 1, 0, 0, "x", 0, "0000000000000001 0 x 0" },
	{ "a", 7, T0 + 3600, 1, "boot2", NOW_MS + 1,		/* update */
	    "0000000000000007 1805011200 boot2 1805007601235" },
	{ "a", 7, T0 + 3600, 1, "boot2", -1,		/* alert cleared */
	    "0000000000000007 1805011200 boot2 NULL" },
	{ "with space and ünïcode", 99, 12, 0, "", -1,
	    "0000000000000063 12 NULL NULL" },
};

/* Collect job ids. */
static void
collect_id(const char *id, void *arg)
{
	char *buf = arg;

	if (*buf != '\0')
		(void)strcat(buf, " ");
	(void)strcat(buf, id);
}

static void
test_jobs(void)
{
	struct store		*s;
	struct store_job	 in, out;
	char			 path[256], sql[320], ids[512];
	struct sql_check	 c[2];
	size_t			 i;

	T_RUN("job state");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof job_cases / sizeof job_cases[0]; i++) {
		const struct job_case *jc = &job_cases[i];

		memset(&in, 0, sizeof in);
		in.sched_hash = jc->hash;
		in.planned = jc->planned;
		in.paused = jc->paused;
		(void)snprintf(in.boot_id, sizeof in.boot_id, "%s",
		    jc->boot_id);
		in.overdue_alerted = jc->alerted;
		T_EQ_INT(store_job_put(s, jc->job, &in, NOW_MS + (int64_t)i),
		    0);
		memset(&out, 0x55, sizeof out);
		T_EQ_INT(store_job_get(s, jc->job, &out), 1);
		T_TRUE(out.sched_hash == jc->hash);
		T_EQ_TIME(out.planned, jc->planned);
		T_EQ_INT(out.paused, jc->paused);
		T_EQ_STR(out.boot_id, jc->boot_id);
		T_EQ_INT(out.overdue_alerted, jc->alerted);
		(void)snprintf(sql, sizeof sql, "SELECT sched_hash || ' ' || "
		    "coalesce(planned, 'NULL') || ' ' || coalesce(boot_id, "
		    "'NULL') || ' ' || coalesce(overdue_alerted, 'NULL') || "
		    "' ' || updated_at FROM jobs WHERE job = '%s'", jc->job);
		c[0].sql = sql;
		(void)snprintf(ids, sizeof ids, "%s %" PRId64, jc->row,
		    NOW_MS + (int64_t)i);
		c[0].want = ids;
		c[1].sql = NULL;
		check_sql(path, c, 2);
	}
	T_RUN("job state: missing");
	memset(&out, 0x55, sizeof out);
	T_EQ_INT(store_job_get(s, "nosuchjob", &out), 0);
	T_EQ_TIME(out.planned, -1);
	T_EQ_INT(out.overdue_alerted, -1);
	T_TRUE(out.sched_hash == 0 && out.paused == 0 && out.boot_id[0] == 0);

	T_RUN("job ids");
	ids[0] = '\0';
	T_EQ_INT(store_job_ids(s, collect_id, ids), 0);
	T_EQ_STR(ids, "a b c with space and ünïcode");
	/*
	 * A job the daemon forgets (server_forget: sched_hash 0) is left out
	 * of store_job_ids, which selects "sched_hash != '0'".
	 */
	T_RUN("job ids: forgotten job left out");
	memset(&in, 0, sizeof in);
	in.planned = -1;
	T_EQ_INT(store_job_put(s, "c", &in, NOW_MS), 0);
	ids[0] = '\0';
	T_EQ_INT(store_job_ids(s, collect_id, ids), 0);
	T_EQ_STR(ids, "a b with space and ünïcode");
	store_close(s);
}

/* One claim of a sequence on one database, and what it must give. */
struct claim_case {
	const char	*job;
	int64_t		 at;
	const char	*origin;
	int		 want;		/* 1 claimed, 0 not claimable */
	const char	*run_id;
	int		 same_as;	/* rowid equals that of case i, or -1 */
};

static const struct claim_case claim_cases[] = {
	{ "backup", T0, "schedule", 1, "backup@2027-03-14T07:00:00Z", -1 },
	{ "backup", T0, "schedule", 0, NULL, -1 },
	{ "backup", T0, "schedule", 0, NULL, -1 },
	{ "backup", T0, "reboot", 1, "backup@2027-03-14T07:00:00Z/reboot",
	    -1 },
	{ "backup", T0, "reboot", 0, NULL, -1 },
	{ "backup", T0, "manual", 1, "backup@2027-03-14T07:00:00Z/manual",
	    -1 },
	{ "backup", T0 + 3600, "schedule", 1, "backup@2027-03-14T08:00:00Z",
	    -1 },
	{ "other", T0, "schedule", 1, "other@2027-03-14T07:00:00Z", -1 },
	{ "other", T0, "schedule", 0, NULL, -1 },
};

static const struct sql_check claim_checks[] = {
	{ "SELECT count(*) FROM runs", "5" },
	{ "SELECT count(*) FROM attempts", "5" },
	{ "SELECT count(*) FROM runs WHERE job = 'backup' AND scheduled_at = "
	    "1805007600", "3" },
	{ "SELECT group_concat(origin, ',') FROM (SELECT origin FROM runs "
	    "WHERE job = 'backup' AND scheduled_at = 1805007600 ORDER BY id)",
	    "schedule,reboot,manual" },
	{ "SELECT status || ' ' || attempts || ' ' || owner || ' ' || "
	    "lease_until || ' ' || trigger || ' ' || created_at || ' ' || "
	    "coalesce(reason, 'NULL') || ' ' || coalesce(started_at, 'NULL') "
	    "FROM runs WHERE run_id = 'backup@2027-03-14T07:00:00Z'",
	    "running 1 owner-1 1805007660 schedule 1805007601234 NULL NULL" },
	{ "SELECT attempt || ' ' || trigger || ' ' || coalesce(pid, 'NULL') "
	    "|| ' ' || coalesce(outcome, 'NULL') FROM attempts WHERE run = "
	    "(SELECT id FROM runs WHERE run_id = "
	    "'backup@2027-03-14T07:00:00Z/manual')", "1 manual NULL NULL" },
	{ "SELECT trigger FROM runs WHERE origin = 'reboot'", "schedule" },
};

static void
test_claim(void)
{
	struct store		*s;
	struct store_claimed	 out, got[16];
	char			 path[256];
	size_t			 i, k;

	T_RUN("claim");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof claim_cases / sizeof claim_cases[0]; i++) {
		const struct claim_case *cc = &claim_cases[i];

		T_EQ_INT(claim(s, cc->job, cc->at, cc->origin, "owner-1",
		    &out), cc->want);
		got[i] = out;
		if (cc->want != 1)
			continue;
		T_TRUE(out.rowid > 0);
		T_EQ_INT(out.attempt, 1);
		T_EQ_STR(out.run_id, cc->run_id);
		for (k = 0; k < i; k++) {
			if (claim_cases[k].want == 1)
				T_TRUE(got[k].rowid != out.rowid);
		}
	}
	check_sql(path, claim_checks, sizeof claim_checks /
	    sizeof claim_checks[0]);

	T_RUN("run id");
	{
		char buf[STORE_RUN_ID_MAX];

		store_run_id("j", 0, NULL, buf, sizeof buf);
		T_EQ_STR(buf, "j@1970-01-01T00:00:00Z");
		store_run_id("j", T0, "schedule", buf, sizeof buf);
		T_EQ_STR(buf, "j@2027-03-14T07:00:00Z");
		store_run_id("j", T0, "manual", buf, sizeof buf);
		T_EQ_STR(buf, "j@2027-03-14T07:00:00Z/manual");
	}
	store_close(s);
}

/* Queue, then claim: queued becomes running with its first attempt. */
static const struct sql_check queue_checks_before[] = {
	{ "SELECT status || ' ' || reason || ' ' || attempts || ' ' || "
	    "coalesce(owner, 'NULL') FROM runs WHERE job = 'q'",
	    "queued max_running 0 NULL" },
	{ "SELECT count(*) FROM attempts", "0" },
	{ "SELECT detail FROM runs WHERE job = 'q'", "waiting for a slot" },
};

static const struct sql_check queue_checks_after[] = {
	{ "SELECT status || ' ' || coalesce(reason, 'NULL') || ' ' || "
	    "attempts || ' ' || owner FROM runs WHERE job = 'q'",
	    "running NULL 1 owner-1" },
	{ "SELECT count(*) FROM runs", "1" },
	{ "SELECT count(*) FROM attempts", "1" },
	/*
	 * Why it waited no longer holds once it runs: the claim clears the
	 * reason, and must clear the detail with it (store_run_claim_id
	 * does).
	 */
	{ "SELECT coalesce(detail, 'NULL') FROM runs WHERE job = 'q'",
	    "NULL" },
};

#define FOUND_BUFSZ	2048

/* A value of struct store_found as text: "-" for -1, else v - base. */
static void
found_num(char *buf, size_t len, int64_t v, int64_t base)
{
	if (v == -1)
		(void)snprintf(buf, len, "-");
	else
		(void)snprintf(buf, len, "%" PRId64, v - base);
}

/*
 * Collect found instances (FOUND_BUFSZ bytes at arg), separated by blanks,
 * as "job@at/origin/trigger/status/reason/attempt/pid/pid_start/started/
 * retry_at" with at - T0 in seconds, started and retry_at - NOW_MS in ms,
 * "-" for none, then "/invocation/boot/cgroup" when the attempt has an
 * invocation id; the run id must be the one of (job, at, origin).
 */
static void
collect_found(const struct store_found *f, void *arg)
{
	char	*buf = arg, id[STORE_RUN_ID_MAX], pid[24], ps[24], st[24];
	char	 ra[24];

	store_run_id(f->job, f->scheduled_at, f->origin, id, sizeof id);
	T_EQ_STR(f->run_id, id);
	T_TRUE(f->rowid > 0);
	found_num(pid, sizeof pid, f->pid, 0);
	found_num(ps, sizeof ps, f->pid_start, 0);
	found_num(st, sizeof st, f->started_ms, NOW_MS);
	found_num(ra, sizeof ra, f->retry_at, NOW_MS);
	(void)snprintf(buf + strlen(buf), FOUND_BUFSZ - strlen(buf),
	    "%s%s@%" PRId64 "/%s/%s/%s/%s/%d/%s/%s/%s/%s", *buf ? " " : "",
	    f->job, f->scheduled_at - T0, f->origin, f->trigger, f->status,
	    f->reason != NULL ? f->reason : "-", f->attempt, pid, ps, st, ra);
	if (f->invocation != NULL)
		(void)snprintf(buf + strlen(buf), FOUND_BUFSZ - strlen(buf),
		    "/%s/%s/%s", f->invocation, f->boot_id != NULL ?
		    f->boot_id : "-", f->cgroup != NULL ? f->cgroup : "-");
}

/* store_runs_found of one status into buf (FOUND_BUFSZ); its result. */
static int
found(struct store *s, const char *status, char *buf)
{
	buf[0] = '\0';
	return store_runs_found(s, status, collect_found, buf);
}

/* Queued instances, inserted in this order, come back oldest first. */
struct queued_case {
	const char	*job;
	int64_t		 dt;		/* scheduled_at - T0 */
	const char	*origin;
	const char	*reason;
	const char	*detail;
	int		 want;
};

static const struct queued_case queued_cases[] = {
	{ "c", 120, "schedule", "max_running", NULL, 1 },
	{ "a", 60, "schedule", "max_running", NULL, 1 },
	{ "b", 60, "manual", NULL, NULL, 1 },
	{ "d", 0, "schedule", "overlap", "behind d@2027-03-14T06:59:00Z", 1 },
	{ "a", 60, "schedule", "overlap", "x", 0 },	/* exists */
	{ "e", 180, "reboot", "catch_up", NULL, 1 },
};

/* The reason and detail of a queued row as given (the first one wins). */
static const struct sql_check queued_detail_checks[] = {
	{ "SELECT group_concat(job || '=' || coalesce(reason, 'NULL') || '/' "
	    "|| coalesce(detail, 'NULL'), ' ') FROM (SELECT * FROM runs ORDER "
	    "BY id)", "c=max_running/NULL a=max_running/NULL b=NULL/NULL "
	    "d=overlap/behind d@2027-03-14T06:59:00Z e=catch_up/NULL" },
	{ "SELECT count(*) FROM attempts", "0" },
};

static void
test_queue(void)
{
	struct store		*s;
	struct store_claim	 c;
	struct store_claimed	 out;
	char			 path[256], buf[FOUND_BUFSZ];
	size_t			 i;

	T_RUN("queue then claim");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	memset(&c, 0, sizeof c);
	c.job = "q";
	c.scheduled_at = T0;
	c.origin = "schedule";
	c.trigger = "schedule";
	c.owner = "owner-1";
	c.now_ms = NOW_MS;
	c.lease_until = T0 + 60;
	c.reason = "max_running";
	c.detail = "waiting for a slot";
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_queue(s, &c), 1);
	T_EQ_INT(store_run_queue(s, &c), 0);
	T_EQ_INT(store_commit(s), 0);
	check_sql(path, queue_checks_before, 3);
	T_EQ_INT(found(s, "queued", buf), 0);
	T_EQ_STR(buf, "q@0/schedule/schedule/queued/max_running/0/-/-/-/-");
	T_EQ_INT(claim(s, "q", T0, "schedule", "owner-1", &out), 1);
	T_EQ_INT(out.attempt, 1);
	T_EQ_STR(out.run_id, "q@2027-03-14T07:00:00Z");
	T_EQ_INT(found(s, "queued", buf), 0);
	T_EQ_STR(buf, "");
	T_EQ_INT(found(s, "running", buf), 0);
	T_EQ_STR(buf, "q@0/schedule/schedule/running/-/1/-/-/-/-");
	check_sql(path, queue_checks_after, 4);
	/* A running instance is neither queued again nor claimed again. */
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_queue(s, &c), 0);
	T_EQ_INT(store_commit(s), 0);
	T_EQ_INT(claim(s, "q", T0, "schedule", "owner-2", &out), 0);
	T_EQ_INT(found(s, "queued", buf), 0);
	T_EQ_STR(buf, "");
	store_close(s);

	T_RUN("queued oldest first");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	T_EQ_INT(store_begin(s), 0);
	for (i = 0; i < sizeof queued_cases / sizeof queued_cases[0]; i++) {
		c.job = queued_cases[i].job;
		c.scheduled_at = T0 + queued_cases[i].dt;
		c.origin = queued_cases[i].origin;
		c.trigger = "catch_up";
		c.reason = queued_cases[i].reason;
		c.detail = queued_cases[i].detail;
		T_EQ_INT(store_run_queue(s, &c), queued_cases[i].want);
	}
	T_EQ_INT(store_commit(s), 0);
	T_EQ_INT(found(s, "queued", buf), 0);
	T_EQ_STR(buf, "d@0/schedule/catch_up/queued/overlap/0/-/-/-/- "
	    "a@60/schedule/catch_up/queued/max_running/0/-/-/-/- "
	    "b@60/manual/catch_up/queued/-/0/-/-/-/- "
	    "c@120/schedule/catch_up/queued/max_running/0/-/-/-/- "
	    "e@180/reboot/catch_up/queued/catch_up/0/-/-/-/-");
	check_sql(path, queued_detail_checks, 2);
	store_close(s);
}

/* An attempt from claim to end: what the rows say afterwards. */
struct end_case {
	const char	*name;
	int		 started;	/* store_attempt_started called */
	pid_t		 pid;
	int64_t		 pid_start;	/* -1: unknown */
	int64_t		 started_ms;	/* -1: never started */
	int64_t		 lateness_ms;
	int64_t		 finished_ms;
	int		 exit_status;
	int		 signal;
	const char	*status;
	const char	*reason;
	const char	*outcome;
	const char	*error;
	int64_t		 retry_at;	/* -1: none */
	const char	*detail;
	const char	*attempt_row;	/* pid pid_start started finished
					   lateness duration exit signal
					   outcome error */
	const char	*run_row;	/* status reason started finished exit
					   signal owner lease attempts
					   retry_at detail */
};

static const struct end_case end_cases[] = {
	{ "exit 0", 1, 4242, 123456789, NOW_MS + 10, 1510, NOW_MS + 2010, 0,
	    -1, "succeeded", "exit", "exit", NULL, -1, NULL,
	    "4242 123456789 1805007601244 1805007603244 1510 2000 0 NULL exit "
	    "NULL",
	    "succeeded exit 1805007601244 1805007603244 0 NULL NULL NULL 1 "
	    "NULL NULL" },
	{ "exit 3", 1, 77, -1, NOW_MS, 0, NOW_MS + 5, 3, -1,
	    "failed", "exit", "exit", NULL, -1, "exit 3 is not retried",
	    "77 NULL 1805007601234 1805007601239 0 5 3 NULL exit NULL",
	    "failed exit 1805007601234 1805007601239 3 NULL NULL NULL 1 NULL "
	    "exit 3 is not retried" },
	{ "killed by signal 9", 1, 99, 0, NOW_MS, 250, NOW_MS + 60000, -1, 9,
	    "failed", "signal", "signal", NULL, -1, NULL,
	    "99 0 1805007601234 1805007661234 250 60000 NULL 9 signal NULL",
	    "failed signal 1805007601234 1805007661234 NULL 9 NULL NULL 1 "
	    "NULL NULL" },
	{ "spawn failure", 0, 0, -1, -1, 20, NOW_MS + 20, -1, -1,
	    "failed", "spawn", "spawn",
	    "exec /bin/sh: No such file or directory", -1, NULL,
	    "NULL NULL NULL 1805007601254 20 NULL NULL NULL spawn "
	    "exec /bin/sh: No such file or directory",
	    "failed spawn NULL 1805007601254 NULL NULL NULL NULL 1 NULL "
	    "NULL" },
	{ "started, end without started_ms", 1, 5, INT64_C(4611686018427387904),
	    -1, 7, NOW_MS + 30, 0, -1, "succeeded", NULL, "exit", NULL, -1,
	    NULL,
	    "5 4611686018427387904 1805007601234 1805007601264 7 NULL 0 NULL "
	    "exit NULL",
	    /* The run's start comes from store_attempt_started. */
	    "succeeded NULL 1805007601234 1805007601264 0 NULL NULL NULL 1 "
	    "NULL NULL" },
	/* A transient failure: the instance waits for its next attempt. */
	{ "retrying", 1, 4343, 777, NOW_MS, 0, NOW_MS + 1000, 75, -1,
	    "retrying", "exit", "exit", NULL, NOW_MS + 31000,
	    "attempt 2 of 4 in 30s",
	    "4343 777 1805007601234 1805007602234 0 1000 75 NULL exit NULL",
	    "retrying exit 1805007601234 1805007602234 75 NULL NULL NULL 1 "
	    "1805007632234 attempt 2 of 4 in 30s" },
	{ "timed out", 1, 4444, 778, NOW_MS, 0, NOW_MS + 10000, -1, 15,
	    "failed", "timeout", "timeout", NULL, -1, "killed after 10s",
	    "4444 778 1805007601234 1805007611234 0 10000 NULL 15 timeout "
	    "NULL",
	    "failed timeout 1805007601234 1805007611234 NULL 15 NULL NULL 1 "
	    "NULL killed after 10s" },
	{ "interrupted", 1, 4545, 779, NOW_MS, 0, NOW_MS + 500, -1, -1,
	    "interrupted", "daemon stopped", "interrupted", NULL, -1, NULL,
	    "4545 779 1805007601234 1805007601734 0 500 NULL NULL interrupted "
	    "NULL",
	    "interrupted daemon stopped 1805007601234 1805007601734 NULL NULL "
	    "NULL NULL 1 NULL NULL" },
};

#define COL(x)	"coalesce(" x ", 'NULL')"

static void
test_attempts(void)
{
	struct store		*s;
	struct store_claimed	 cl;
	struct store_end	 e;
	struct sql_check	 c[3];
	char			 path[256], sql1[1024], sql2[1024];
	size_t			 i;

	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof end_cases / sizeof end_cases[0]; i++) {
		const struct end_case *ec = &end_cases[i];

		T_RUN(ec->name);
		if (!T_EQ_INT(claim(s, "job", T0 + (int64_t)i * 60,
		    "schedule", "owner-1", &cl), 1))
			continue;
		if (ec->started) {
			T_EQ_INT(store_begin(s), 0);
			T_EQ_INT(store_attempt_started(s, cl.rowid,
			    cl.attempt, ec->pid, ec->pid_start,
			    ec->started_ms != -1 ? ec->started_ms : NOW_MS,
			    ec->lateness_ms, NULL), 0);
			T_EQ_INT(store_commit(s), 0);
		}
		memset(&e, 0, sizeof e);
		e.rowid = cl.rowid;
		e.attempt = cl.attempt;
		e.status = ec->status;
		e.reason = ec->reason;
		e.outcome = ec->outcome;
		e.started_ms = ec->started_ms;
		e.finished_ms = ec->finished_ms;
		e.duration_ms = ec->finished_ms - ec->started_ms;
		e.lateness_ms = ec->lateness_ms;
		e.exit_status = ec->exit_status;
		e.signal = ec->signal;
		e.error = ec->error;
		e.retry_at = ec->retry_at;
		e.detail = ec->detail;
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_attempt_end(s, &e), 0);
		T_EQ_INT(store_commit(s), 0);
		(void)snprintf(sql1, sizeof sql1, "SELECT " COL("pid")
		    " || ' ' || " COL("pid_start") " || ' ' || "
		    COL("started_at") " || ' ' || "
		    COL("finished_at") " || ' ' || " COL("lateness_ms")
		    " || ' ' || " COL("duration_ms") " || ' ' || "
		    COL("exit_status") " || ' ' || " COL("signal") " || ' ' || "
		    COL("outcome") " || ' ' || " COL("error") " FROM attempts "
		    "WHERE run = %" PRId64 " AND attempt = 1", cl.rowid);
		(void)snprintf(sql2, sizeof sql2, "SELECT status || ' ' || "
		    COL("reason") " || ' ' || " COL("started_at") " || ' ' || "
		    COL("finished_at") " || ' ' || " COL("exit_status")
		    " || ' ' || " COL("signal") " || ' ' || " COL("owner")
		    " || ' ' || " COL("lease_until") " || ' ' || attempts "
		    "|| ' ' || " COL("retry_at") " || ' ' || " COL("detail")
		    " FROM runs WHERE id = %" PRId64, cl.rowid);
		c[0].sql = sql1;
		c[0].want = ec->attempt_row;
		c[1].sql = sql2;
		c[1].want = ec->run_row;
		c[2].sql = NULL;
		check_sql(path, c, 3);
		/*
		 * An ended instance cannot be claimed again by a scheduled
		 * claim: neither a finished one nor one that waits for its
		 * retry or its recovery (those are claimed by row).
		 */
		T_EQ_INT(claim(s, "job", T0 + (int64_t)i * 60, "schedule",
		    "owner-2", &cl), 0);
	}

	T_RUN("last end");
	T_EQ_INT(store_job_last_end(s, "job"), NOW_MS + 60000);
	T_EQ_INT(store_job_last_end(s, "nosuchjob"), -1);
	/* A running instance has no end yet. */
	T_EQ_INT(claim(s, "fresh", T0, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(store_job_last_end(s, "fresh"), -1);
	store_close(s);
}

/* Decisions: each row as written. */
struct decision_case {
	struct store_decision	 d;
	const char		*row;
};

static const struct decision_case decision_cases[] = {
	{ { "backup", "missed", "downtime", T0, T0 + 86400 * 2, 3, NOW_MS,
	    -1 }, "backup 1805007601234 missed downtime 1805007600 "
	    "1805180400 3 NULL" },
	{ { "backup", "skipped", NULL, T0, T0, 1, NOW_MS + 1, 17 },
	    "backup 1805007601235 skipped NULL 1805007600 1805007600 1 17" },
	{ { "x", "skipped", "overlap", -1, -1, 1, NOW_MS + 2, -1 },
	    "x 1805007601236 skipped overlap NULL NULL 1 NULL" },
	{ { "every", "missed", "capped", T0, T0 + 10000000, 10000000,
	    NOW_MS + 3, -1 }, "every 1805007601237 missed capped 1805007600 "
	    "1815007600 10000000 NULL" },
};

static void
test_decisions(void)
{
	struct store		*s;
	struct sql_check	 c[2];
	char			 path[256], sql[512];
	size_t			 i;

	T_RUN("decisions");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof decision_cases / sizeof decision_cases[0];
	    i++) {
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_decision_add(s, &decision_cases[i].d), 0);
		T_EQ_INT(store_commit(s), 0);
		(void)snprintf(sql, sizeof sql, "SELECT job || ' ' || "
		    "decided_at || ' ' || decision || ' ' || " COL("reason")
		    " || ' ' || " COL("first_at") " || ' ' || " COL("last_at")
		    " || ' ' || count || ' ' || " COL("run") " FROM decisions "
		    "WHERE id = %zu", i + 1);
		c[0].sql = sql;
		c[0].want = decision_cases[i].row;
		c[1].sql = NULL;
		check_sql(path, c, 2);
	}
	store_close(s);
}

/* Leases and interruption: only running rows, only the owner's. */
static const struct sql_check lease_checks[] = {
	{ "SELECT group_concat(job || '=' || " COL("lease_until") ", ' ') "
	    "FROM (SELECT * FROM runs ORDER BY id)",
	    "a1=1805009999 a2=1805009999 b1=1805007660 done=NULL "
	    "q=NULL stale=1805007660" },
};

/*
 * A claim of a running instance whose lease has expired (its owner is
 * gone): at now_s (seconds after T0), leased until T0 + 60 by owner-1.
 * An expired lease is taken only from another owner: one's own running
 * row is one's own child, whose lease the renewal keeps.
 */
struct expiry_case {
	const char	*name;
	const char	*owner;		/* who claims */
	int64_t		 now_ms;	/* ms after T0 * 1000 */
	int		 want;
	int		 attempt;	/* the claim's attempt */
	const char	*row;		/* status attempts owner lease */
};

static const struct expiry_case expiry_cases[] = {
	{ "lease not expired", "owner-2", 59 * 1000, 0, 0,
	    "running 1 owner-1 1805007660" },
	{ "lease holds to the end of its second", "owner-2", 60 * 1000 + 999,
	    0, 0, "running 1 owner-1 1805007660" },
	{ "lease expired", "owner-2", 61 * 1000, 1, 2,
	    "running 2 owner-2 1805007781" },
	/* The new owner's lease holds in turn. */
	{ "new lease not expired", "owner-3", 62 * 1000, 0, 0,
	    "running 2 owner-2 1805007781" },
	{ "own lease expired", "owner-2", 182 * 1000, 0, 0,
	    "running 2 owner-2 1805007781" },
	{ "new lease expired", "owner-3", 182 * 1000, 1, 3,
	    "running 3 owner-3 1805007902" },
};

static void
test_leases(void)
{
	struct store		*s;
	struct store_claimed	 cl;
	struct store_claim	 c;
	struct store_end	 e;
	char			 path[256], buf[FOUND_BUFSZ];
	int64_t			 first;
	size_t			 i;

	T_RUN("lease renew");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	T_EQ_INT(claim(s, "a1", T0, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(claim(s, "a2", T0, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(claim(s, "b1", T0, "schedule", "owner-2", &cl), 1);
	T_EQ_INT(claim(s, "done", T0, "schedule", "owner-1", &cl), 1);
	memset(&e, 0, sizeof e);
	e.rowid = cl.rowid;
	e.attempt = 1;
	e.status = "succeeded";
	e.reason = "exit";
	e.outcome = "exit";
	e.started_ms = -1;
	e.finished_ms = NOW_MS;
	e.exit_status = 0;
	e.signal = -1;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_attempt_end(s, &e), 0);
	memset(&c, 0, sizeof c);
	c.job = "q";
	c.scheduled_at = T0;
	c.origin = "schedule";
	c.trigger = "schedule";
	c.now_ms = NOW_MS;
	c.reason = "max_running";
	T_EQ_INT(store_run_queue(s, &c), 1);
	T_EQ_INT(store_commit(s), 0);
	/* A row of owner-1 that is not running (set by hand). */
	T_EQ_INT(claim(s, "stale", T0, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(exec_sql(path, "UPDATE runs SET status = 'failed' WHERE "
	    "job = 'stale'"), 0);

	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_lease_renew(s, "owner-1", T0 + 2399), 0);
	T_EQ_INT(store_lease_renew(s, "nobody", T0 + 9999), 0);
	T_EQ_INT(store_commit(s), 0);
	check_sql(path, lease_checks, 1);

	store_close(s);

	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	T_RUN("lease expiry: first claim");
	T_EQ_INT(claim(s, "x", T0, "schedule", "owner-1", &cl), 1);
	first = cl.rowid;
	for (i = 0; i < sizeof expiry_cases / sizeof expiry_cases[0]; i++) {
		const struct expiry_case *ec = &expiry_cases[i];
		int64_t now_ms = T0 * 1000 + ec->now_ms;

		T_RUN(ec->name);
		T_EQ_INT(claim_at(s, "x", T0, "schedule", ec->owner, now_ms,
		    now_ms / 1000 + 120, &cl), ec->want);
		if (ec->want == 1) {
			T_EQ_INT(cl.rowid, first);
			T_EQ_INT(cl.attempt, ec->attempt);
			T_EQ_STR(cl.run_id, "x@2027-03-14T07:00:00Z");
		}
		{
			struct sql_check chk[] = {
				{ "SELECT status || ' ' || attempts || ' ' || "
				    "owner || ' ' || lease_until FROM runs",
				    ec->row },
				/* One attempt row per claim, numbered. */
				{ "SELECT count(*) = max(attempt) AND "
				    "max(attempt) = (SELECT attempts FROM "
				    "runs) FROM attempts", "1" },
				{ "SELECT count(*) FROM runs", "1" },
			};
			check_sql(path, chk, 3);
		}
	}
	T_RUN("lease expiry: the newest attempt is the one found");
	T_EQ_INT(found(s, "running", buf), 0);
	T_EQ_STR(buf, "x@0/schedule/schedule/running/-/3/-/-/-/-");
	store_close(s);
}

/* --- instances in every state ------------------------------------------ */

/* The integer that sql gives on the file at path, or -2. */
static int64_t
qint(const char *path, const char *sql)
{
	sqlite3	*db = NULL;
	char	 got[64], *end;
	int64_t	 v = -2;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK) {
		q(db, sql, got, sizeof got);
		v = strtoll(got, &end, 10);
		if (end == got || *end != '\0')
			v = -2;
	}
	(void)sqlite3_close(db);
	return v;
}

/* The rowid of the instance (job, "schedule", at), or -2. */
static int64_t
rowid_of(const char *path, const char *job, int64_t at)
{
	char sql[256];

	(void)snprintf(sql, sizeof sql, "SELECT id FROM runs WHERE job = '%s' "
	    "AND origin = 'schedule' AND scheduled_at = %" PRId64, job, at);
	return qint(path, sql);
}

/* End an attempt of rowid with a status (in a transaction); 0 or -1. */
static int
end_attempt(struct store *s, int64_t rowid, int attempt, const char *status,
    const char *reason, int exit_status, int64_t started_ms,
    int64_t finished_ms, int64_t retry_at)
{
	struct store_end e;

	memset(&e, 0, sizeof e);
	e.rowid = rowid;
	e.attempt = attempt;
	e.status = status;
	e.reason = reason;
	e.outcome = strcmp(status, "interrupted") == 0 ? "interrupted" :
	    reason;
	e.started_ms = started_ms;
	e.finished_ms = finished_ms;
	e.lateness_ms = 0;
	e.exit_status = exit_status;
	e.signal = -1;
	e.retry_at = retry_at;
	if (store_begin(s) == -1 || store_attempt_end(s, &e) == -1) {
		(void)printf("  end: %s\n", store_error(s));
		store_rollback(s);
		return -1;
	}
	return store_commit(s);
}

/*
 * Make the instance (job, "schedule", at) in a state through the store's
 * own functions: queued (reason overlap), running (claimed by owner-1,
 * started with pid 1000), retrying (exit 75, retry in 30s), interrupted
 * (started, the daemon stopped), succeeded, failed (exit 1), skipped
 * (reason overlap).  Returns its rowid, or -1 (reported).
 */
static int64_t
make_instance(struct store *s, const char *path, const char *job,
    int64_t at, const char *state)
{
	struct store_claim	c;
	struct store_claimed	cl;
	int			rc = 0;

	memset(&c, 0, sizeof c);
	c.job = job;
	c.scheduled_at = at;
	c.origin = "schedule";
	c.trigger = "schedule";
	c.owner = "owner-1";
	c.now_ms = NOW_MS;
	c.lease_until = T0 + 60;
	c.reason = "overlap";
	c.detail = "behind an earlier instance";
	if (strcmp(state, "queued") == 0 || strcmp(state, "skipped") == 0) {
		if (store_begin(s) == -1)
			rc = -1;
		else if ((strcmp(state, "queued") == 0 ?
		    store_run_queue(s, &c) : store_run_skip(s, &c)) != 1) {
			store_rollback(s);
			rc = -1;
		} else
			rc = store_commit(s);
	} else if (claim(s, job, at, "schedule", "owner-1", &cl) != 1)
		rc = -1;
	else if (strcmp(state, "running") == 0 ||
	    strcmp(state, "retrying") == 0 ||
	    strcmp(state, "interrupted") == 0) {
		if (store_begin(s) == -1 || store_attempt_started(s, cl.rowid,
		    cl.attempt, 1000, 42, NOW_MS, 0, NULL) == -1 ||
		    store_commit(s) == -1)
			rc = -1;
		if (rc == 0 && strcmp(state, "retrying") == 0)
			rc = end_attempt(s, cl.rowid, 1, "retrying", "exit", 75,
			    NOW_MS, NOW_MS + 1000, NOW_MS + 31000);
		if (rc == 0 && strcmp(state, "interrupted") == 0)
			rc = end_attempt(s, cl.rowid, 1, "interrupted",
			    "daemon stopped", -1, NOW_MS, NOW_MS + 2000, -1);
	} else if (strcmp(state, "succeeded") == 0)
		rc = end_attempt(s, cl.rowid, 1, "succeeded", "exit", 0, -1,
		    NOW_MS + 3000, -1);
	else if (strcmp(state, "failed") == 0)
		rc = end_attempt(s, cl.rowid, 1, "failed", "exit", 1, -1,
		    NOW_MS + 4000, -1);
	else
		rc = -1;
	if (rc == -1) {
		(void)printf("  cannot make %s %s: %s\n", state, job,
		    store_error(s));
		T_TRUE(0);
		return -1;
	}
	return rowid_of(path, job, at);
}

/* --- migration ----------------------------------------------------------- */

/* A version-1 database as the first release left it, with a run. */
static const char *const v1_rows =
    "PRAGMA user_version = 1;"
    "INSERT INTO jobs (job, sched_hash, planned, paused, boot_id, "
    "  updated_at) VALUES ('old', '00000000000000ff', 1805007600, 1, "
    "  'boot-1', 1805007601234);"
    "INSERT INTO runs (id, run_id, job, scheduled_at, origin, trigger, "
    "  status, reason, attempts, owner, lease_until, created_at, "
    "  started_at, finished_at, exit_status, signal) VALUES (7, "
    "  'old@2027-03-14T07:00:00Z', 'old', 1805007600, 'schedule', "
    "  'schedule', 'running', NULL, 1, 'owner-0', 1805007660, "
    "  1805007601234, 1805007601300, NULL, NULL, NULL);"
    "INSERT INTO attempts (run, attempt, trigger, pid, pid_start, "
    "  started_at, lateness_ms) VALUES (7, 1, 'schedule', 4321, 8765, "
    "  1805007601300, 66);"
    "INSERT INTO runs (id, run_id, job, scheduled_at, origin, trigger, "
    "  status, reason, attempts, created_at, finished_at, exit_status) "
    "  VALUES (8, 'old@2027-03-14T06:00:00Z', 'old', 1805004000, "
    "  'schedule', 'schedule', 'succeeded', 'exit', 1, 1805004000000, "
    "  1805004005000, 0);"
    "INSERT INTO runs (id, run_id, job, scheduled_at, origin, trigger, "
    "  status, reason, attempts, created_at, finished_at) VALUES (9, "
    "  'old@2027-03-14T05:00:00Z', 'old', 1805000400, 'schedule', "
    "  'schedule', 'abandoned', 'restart', 1, 1805000400000, "
    "  1805000405000);"
    "INSERT INTO decisions (job, decided_at, decision, reason, first_at, "
    "  last_at, count, run) VALUES ('old', 1805007601234, 'skipped', "
    "  'coalesced', 1805000000, 1805003600, 2, 8);";

static const struct sql_check migrate_checks[] = {
	{ "PRAGMA user_version", "8" },
	/* The old rows, intact. */
	{ "SELECT group_concat(id || ' ' || run_id || ' ' || status || ' ' || "
	    "attempts || ' ' || coalesce(owner, 'NULL') || ' ' || "
	    "coalesce(finished_at, 'NULL'), ', ') FROM (SELECT * FROM runs "
	    "WHERE id < 9 ORDER BY id)", "7 old@2027-03-14T07:00:00Z running 1 owner-0 "
	    "NULL, 8 old@2027-03-14T06:00:00Z succeeded 1 NULL "
	    "1805004005000" },
	{ "SELECT pid || ' ' || pid_start || ' ' || lateness_ms FROM attempts",
	    "4321 8765 66" },
	{ "SELECT job || ' ' || sched_hash || ' ' || planned || ' ' || paused "
	    "|| ' ' || boot_id FROM jobs", "old 00000000000000ff 1805007600 1 "
	    "boot-1" },
	{ "SELECT decision || ' ' || reason || ' ' || count || ' ' || run "
	    "FROM decisions", "skipped coalesced 2 8" },
	/* The new columns, empty for old rows; the new index. */
	{ "SELECT count(*) FROM runs WHERE retry_at IS NULL AND detail IS "
	    "NULL", "3" },
	/* 4 -> 5: reason restart renamed. */
	{ "SELECT group_concat(id || ' ' || status || ' ' || reason) FROM runs "
	    "WHERE reason IN ('restart', 'lease_lost')", "9 abandoned "
	    "lease_lost" },
	{ "SELECT coalesce(overdue_alerted, 'NULL') FROM jobs", "NULL" },
	{ "SELECT coalesce(watch_since, 'NULL') FROM jobs", "NULL" },
	{ "SELECT count(*) FROM attempts WHERE output_tail IS NULL", "1" },
	{ "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = "
	    "'runs_retrying'", "1" },
	{ "SELECT group_concat(name, ' ') FROM pragma_index_info('runs_job')",
	    "job scheduled_at status parent" },
	{ "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master "
	    "WHERE type = 'index' AND name IN ('runs_active', 'runs_owned'))",
	    "runs_owned" },
	{ "PRAGMA integrity_check", "ok" },
};

static void
test_migrate(void)
{
	struct store		*s;
	struct store_job	 j;
	sqlite3			*db = NULL;
	char			 path[256], buf[FOUND_BUFSZ], *cause = NULL;
	char			 want[512];
	int			 i;

	T_RUN("schema steps");
	T_EQ_INT(store_schema_steps, STORE_SCHEMA_VERSION);

	T_RUN("migrate 1 -> 2");
	db_path(path, sizeof path);
	T_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
	T_EQ_INT(sqlite3_exec(db, store_schema[0], NULL, NULL, NULL),
	    SQLITE_OK);
	T_EQ_INT(sqlite3_exec(db, v1_rows, NULL, NULL, NULL), SQLITE_OK);
	(void)sqlite3_close(db);
	for (i = 0; i < 2; i++) {	/* the second open has nothing to do */
		s = store_open(path, 0, &cause);
		if (!T_TRUE(s != NULL)) {
			(void)printf("  %s\n", cause);
			free(cause);
			return;
		}
		check_sql(path, migrate_checks, sizeof migrate_checks /
		    sizeof migrate_checks[0]);
		/* The store works on the migrated rows. */
		T_EQ_INT(store_job_get(s, "old", &j), 1);
		T_EQ_TIME(j.planned, T0);
		T_EQ_INT(j.paused, 1);
		T_EQ_INT(j.overdue_alerted, -1);
		T_EQ_STR(j.boot_id, "boot-1");
		T_EQ_INT(found(s, "running", buf), 0);
		T_EQ_STR(buf, "old@0/schedule/schedule/running/-/1/4321/8765/"
		    "66/-");
		T_EQ_INT(store_job_last_success(s, "old"), 1805004005000);
		store_close(s);
	}

	/*
	 * A step that fails leaves the database at its old version, with
	 * nothing of the step applied.
	 */
	T_RUN("failed migration rolls back");
	db_path(path, sizeof path);
	T_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
	T_EQ_INT(sqlite3_exec(db, store_schema[0], NULL, NULL, NULL),
	    SQLITE_OK);
	T_EQ_INT(sqlite3_exec(db, "PRAGMA user_version = 1; ALTER TABLE runs "
	    "ADD COLUMN detail TEXT", NULL, NULL, NULL), SQLITE_OK);
	(void)sqlite3_close(db);
	cause = NULL;
	s = store_open(path, 0, &cause);
	T_TRUE(s == NULL);
	(void)snprintf(want, sizeof want, "%s: migrating the schema to version "
	    "2: duplicate column name: detail", path);
	T_EQ_STR(cause, want);
	free(cause);
	store_close(s);
	{
		static const struct sql_check c[] = {
			{ "PRAGMA user_version", "1" },
			{ "SELECT count(*) FROM pragma_table_info('runs') "
			    "WHERE name = 'retry_at'", "0" },
			{ "SELECT count(*) FROM pragma_table_info('jobs') "
			    "WHERE name = 'overdue_alerted'", "0" },
		};
		check_sql(path, c, 3);
	}
}

/* --- instances found at startup ------------------------------------------ */

struct found_case {
	const char	*status;
	const char	*want;		/* as collect_found writes them */
};

static const struct found_case found_cases[] = {
	/* Oldest first, ties by row; the newest attempt of each. */
	{ "running", "run1@0/schedule/schedule/running/-/1/4242/987654321/10/- "
	    "run3@0/schedule/schedule/running/-/2/200/-/60000/-/"
	    "0123456789abcdef0123456789abcdef/boot-2//cg/run3.2 "
	    "run2@60/schedule/schedule/running/-/1/-/-/-/-" },
	{ "queued", "q0@0/schedule/schedule/queued/overlap/0/-/-/-/- "
	    "q1@120/schedule/schedule/queued/max_running/0/-/-/-/-" },
	{ "retrying", "retry@0/schedule/schedule/retrying/exit/1/77/5/0/30000" },
	{ "interrupted", "intr@0/manual/manual/interrupted/daemon stopped/1/"
	    "-/-/-/- intr@60/schedule/schedule/interrupted/daemon stopped/1/"
	    "88/6/5/-" },
	{ "succeeded", "done@0/schedule/schedule/succeeded/exit/1/-/-/-/-" },
	{ "skipped", "skip@0/schedule/schedule/skipped/overlap/0/-/-/-/-" },
	{ "pending", "" },
	{ "no such status", "" },
};

static void
test_found(void)
{
	struct store		*s;
	struct store_claimed	 cl;
	struct store_claim	 c;
	char			 path[256], buf[FOUND_BUFSZ];
	size_t			 i;

	T_RUN("found: setup");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	/* Running: started, never started, and claimed twice. */
	T_EQ_INT(claim(s, "run1", T0, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(store_attempt_started(s, cl.rowid, cl.attempt, 4242,
	    987654321, NOW_MS + 10, 10, NULL), 0);
	T_EQ_INT(claim(s, "run2", T0 + 60, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(claim(s, "run3", T0, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(store_attempt_started(s, cl.rowid, cl.attempt, 100, 1,
	    NOW_MS, 0, NULL), 0);
	T_EQ_INT(claim_at(s, "run3", T0, "schedule", "owner-2",
	    (T0 + 61) * 1000, T0 + 120, &cl), 1);
	T_EQ_INT(cl.attempt, 2);
	T_EQ_STR(cl.invocation, "0123456789abcdef0123456789abcdef");
	T_EQ_INT(store_attempt_started(s, cl.rowid, cl.attempt, 200, -1,
	    NOW_MS + 60000, 0, "/cg/run3.2"), 0);
	/* Queued, the newer first. */
	memset(&c, 0, sizeof c);
	c.job = "q1";
	c.scheduled_at = T0 + 120;
	c.origin = "schedule";
	c.trigger = "schedule";
	c.now_ms = NOW_MS;
	c.reason = "max_running";
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_queue(s, &c), 1);
	c.job = "q0";
	c.scheduled_at = T0;
	c.reason = "overlap";
	T_EQ_INT(store_run_queue(s, &c), 1);
	T_EQ_INT(store_commit(s), 0);
	/* Retrying. */
	T_EQ_INT(claim(s, "retry", T0, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(store_attempt_started(s, cl.rowid, cl.attempt, 77, 5,
	    NOW_MS, 0, NULL), 0);
	T_EQ_INT(end_attempt(s, cl.rowid, 1, "retrying", "exit", 75, NOW_MS,
	    NOW_MS + 500, NOW_MS + 30000), 0);
	/* Interrupted: one started, one (manual) never started. */
	T_EQ_INT(claim(s, "intr", T0 + 60, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(store_attempt_started(s, cl.rowid, cl.attempt, 88, 6,
	    NOW_MS + 5, 0, NULL), 0);
	T_EQ_INT(end_attempt(s, cl.rowid, 1, "interrupted", "daemon stopped",
	    -1, NOW_MS + 5, NOW_MS + 900, -1), 0);
	T_EQ_INT(claim(s, "intr", T0, "manual", "owner-1", &cl), 1);
	T_EQ_INT(end_attempt(s, cl.rowid, 1, "interrupted", "daemon stopped",
	    -1, -1, NOW_MS + 900, -1), 0);
	/* Settled. */
	T_EQ_INT(claim(s, "done", T0, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(end_attempt(s, cl.rowid, 1, "succeeded", "exit", 0, -1,
	    NOW_MS + 100, -1), 0);
	c.job = "skip";
	c.scheduled_at = T0;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_skip(s, &c), 1);
	T_EQ_INT(store_commit(s), 0);

	for (i = 0; i < sizeof found_cases / sizeof found_cases[0]; i++) {
		T_RUN(sub("found", found_cases[i].status));
		T_EQ_INT(found(s, found_cases[i].status, buf), 0);
		T_EQ_STR(buf, found_cases[i].want);
	}
	/* The statement is reusable: the same answer twice. */
	T_RUN("found twice");
	T_EQ_INT(found(s, "running", buf), 0);
	T_EQ_STR(buf, found_cases[0].want);
	store_close(s);
}

/* --- claim by row: retries, queued and interrupted instances ------------- */

struct claim_id_case {
	const char	*state;		/* make_instance */
	const char	*trigger;
	int		 want;
	int		 attempt;	/* of the claim */
	const char	*row;		/* status reason detail retry_at owner
					   lease attempts trigger */
};

static const struct claim_id_case claim_id_cases[] = {
	{ "queued", "schedule", 1, 1,
	    "running NULL NULL NULL owner-2 1805007720 1 schedule" },
	{ "retrying", "retry", 1, 2,
	    "running NULL NULL NULL owner-2 1805007720 2 retry" },
	{ "interrupted", "recover", 1, 2,
	    "running NULL NULL NULL owner-2 1805007720 2 recover" },
	/* Not waiting: untouched. */
	{ "running", "retry", 0, 0,
	    "running NULL NULL NULL owner-1 1805007660 1 schedule" },
	{ "succeeded", "retry", 0, 0,
	    "succeeded exit NULL NULL NULL NULL 1 schedule" },
	{ "failed", "retry", 0, 0,
	    "failed exit NULL NULL NULL NULL 1 schedule" },
	{ "skipped", "retry", 0, 0, "skipped overlap behind an earlier "
	    "instance NULL NULL NULL 0 schedule" },
};

static void
test_claim_id(void)
{
	struct store		*s;
	struct store_claim	 c;
	struct store_claimed	 cl;
	char			 path[256], job[64], sql[512], want[128];
	int64_t			 rowid;
	size_t			 i;
	int			 rc;

	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof claim_id_cases / sizeof claim_id_cases[0];
	    i++) {
		const struct claim_id_case *cc = &claim_id_cases[i];

		T_RUN(sub("claim by row", cc->state));
		(void)snprintf(job, sizeof job, "id-%s", cc->state);
		if ((rowid = make_instance(s, path, job, T0, cc->state)) < 0)
			continue;
		memset(&c, 0, sizeof c);
		c.trigger = cc->trigger;
		c.owner = "owner-2";
		c.now_ms = NOW_MS + 60000;
		c.lease_until = T0 + 120;
		memset(&cl, 0, sizeof cl);
		T_EQ_INT(store_begin(s), 0);
		rc = store_run_claim_id(s, rowid, &c, &cl);
		T_EQ_INT(store_commit(s), 0);
		T_EQ_INT(rc, cc->want);
		if (rc == 1) {
			T_EQ_INT(cl.rowid, rowid);
			T_EQ_INT(cl.attempt, cc->attempt);
			(void)snprintf(want, sizeof want,
			    "%s@2027-03-14T07:00:00Z", job);
			T_EQ_STR(cl.run_id, want);
		}
		(void)snprintf(sql, sizeof sql, "SELECT status || ' ' || "
		    COL("reason") " || ' ' || " COL("detail") " || ' ' || "
		    COL("retry_at") " || ' ' || " COL("owner") " || ' ' || "
		    COL("lease_until") " || ' ' || attempts || ' ' || trigger "
		    "FROM runs WHERE id = %" PRId64, rowid);
		{
			struct sql_check chk[] = {
				{ sql, cc->row },
				{ NULL, NULL },
			};
			char sql2[256];

			/* One attempt row per attempt, the newest open. */
			(void)snprintf(sql2, sizeof sql2, "SELECT count(*) || "
			    "' ' || max(attempt) || ' ' || (SELECT trigger "
			    "FROM attempts WHERE run = %" PRId64 " ORDER BY "
			    "attempt DESC LIMIT 1) FROM attempts WHERE run = "
			    "%" PRId64, rowid, rowid);
			(void)snprintf(want, sizeof want, "%d %d %s",
			    cc->attempt, cc->attempt, cc->trigger);
			check_sql(path, chk, 1);
			if (rc == 1) {
				chk[0].sql = sql2;
				chk[0].want = want;
				check_sql(path, chk, 1);
			}
		}
		/*
		 * An instance claimed again runs: the end of its previous
		 * attempt (finished_at, exit_status, signal) is no longer
		 * the instance's, or it looks finished while it runs (and
		 * store_job_last_end counts it).
		 */
		if (rc == 1) {
			T_RUN(sub("claimed by row, no end left on the instance",
			    cc->state));
			(void)snprintf(sql, sizeof sql, "SELECT "
			    COL("finished_at") " || ' ' || " COL("exit_status")
			    " || ' ' || " COL("signal") " FROM runs WHERE id = "
			    "%" PRId64, rowid);
			{
				struct sql_check chk[] = {
					{ sql, "NULL NULL NULL" },
				};

				check_sql(path, chk, 1);
			}
			T_EQ_INT(store_job_last_end(s, job), -1);
		}
	}

	T_RUN("claim by row: no such row");
	memset(&c, 0, sizeof c);
	c.trigger = "retry";
	c.owner = "owner-2";
	c.lease_until = T0 + 120;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_claim_id(s, 99999, &c, &cl), 0);
	T_EQ_INT(store_commit(s), 0);
	store_close(s);
}

/* A retry from the failed attempt to the instance's end. */
static const struct sql_check retry_checks_waiting[] = {
	{ "SELECT status || ' ' || reason || ' ' || retry_at || ' ' || "
	    "detail || ' ' || attempts || ' ' || coalesce(owner, 'NULL') "
	    "FROM runs", "retrying exit 1805007631234 attempt 2 of 3 in 30s 1 "
	    "NULL" },
	{ "SELECT outcome || ' ' || exit_status FROM attempts", "exit 75" },
};

static const struct sql_check retry_checks_running[] = {
	{ "SELECT status || ' ' || " COL("reason") " || ' ' || "
	    COL("retry_at") " || ' ' || " COL("detail") " || ' ' || attempts "
	    "|| ' ' || owner || ' ' || lease_until || ' ' || trigger FROM runs",
	    "running NULL NULL NULL 2 owner-1 1805007720 retry" },
	{ "SELECT group_concat(attempt || ' ' || trigger || ' ' || "
	    COL("pid") " || ' ' || " COL("exit_status") ", ', ') FROM (SELECT "
	    "* FROM attempts ORDER BY attempt)", "1 schedule 10 75, "
	    "2 retry NULL NULL" },
};

static const struct sql_check retry_checks_done[] = {
	{ "SELECT status || ' ' || reason || ' ' || " COL("retry_at")
	    " || ' ' || " COL("detail") " || ' ' || attempts || ' ' || "
	    "started_at || ' ' || finished_at || ' ' || exit_status FROM runs",
	    "succeeded exit NULL NULL 2 1805007601234 1805007633234 0" },
	{ "SELECT group_concat(attempt || ' ' || pid || ' ' || pid_start || "
	    "' ' || outcome || ' ' || exit_status, ', ') FROM (SELECT * FROM "
	    "attempts ORDER BY attempt)", "1 10 11 exit 75, 2 20 21 exit 0" },
};

static void
test_retry(void)
{
	struct store		*s;
	struct store_claim	 c;
	struct store_claimed	 cl;
	struct store_end	 e;
	char			 path[256], buf[FOUND_BUFSZ];
	int64_t			 rowid;

	T_RUN("retry: the failed attempt");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	T_EQ_INT(claim(s, "r", T0, "schedule", "owner-1", &cl), 1);
	rowid = cl.rowid;
	T_EQ_INT(store_attempt_started(s, rowid, 1, 10, 11, NOW_MS, 0, NULL),
	    0);
	memset(&e, 0, sizeof e);
	e.rowid = rowid;
	e.attempt = 1;
	e.status = "retrying";
	e.reason = "exit";
	e.outcome = "exit";
	e.started_ms = NOW_MS;
	e.finished_ms = NOW_MS + 1000;
	e.exit_status = 75;
	e.signal = -1;
	e.retry_at = NOW_MS + 30000;
	e.detail = "attempt 2 of 3 in 30s";
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_attempt_end(s, &e), 0);
	T_EQ_INT(store_commit(s), 0);
	check_sql(path, retry_checks_waiting, 2);
	T_EQ_INT(found(s, "retrying", buf), 0);
	T_EQ_STR(buf, "r@0/schedule/schedule/retrying/exit/1/10/11/0/30000");

	T_RUN("retry: claimed by row");
	memset(&c, 0, sizeof c);
	c.trigger = "retry";
	c.owner = "owner-1";
	c.now_ms = NOW_MS + 30000;
	c.lease_until = T0 + 120;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_claim_id(s, rowid, &c, &cl), 1);
	T_EQ_INT(store_commit(s), 0);
	T_EQ_INT(cl.rowid, rowid);
	T_EQ_INT(cl.attempt, 2);
	T_EQ_STR(cl.run_id, "r@2027-03-14T07:00:00Z");
	check_sql(path, retry_checks_running, 2);
	T_EQ_INT(found(s, "retrying", buf), 0);
	T_EQ_STR(buf, "");
	T_EQ_INT(found(s, "running", buf), 0);
	T_EQ_STR(buf, "r@0/schedule/retry/running/-/2/-/-/-/-");
	/* Claimed once: a second claim of the row, or by key, fails. */
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_claim_id(s, rowid, &c, &cl), 0);
	T_EQ_INT(store_commit(s), 0);
	T_EQ_INT(claim(s, "r", T0, "schedule", "owner-2", &cl), 0);

	T_RUN("retry: the second attempt succeeds");
	T_EQ_INT(store_attempt_started(s, rowid, 2, 20, 21, NOW_MS + 31000,
	    31000, NULL), 0);
	T_EQ_INT(found(s, "running", buf), 0);
	T_EQ_STR(buf, "r@0/schedule/retry/running/-/2/20/21/31000/-");
	e.attempt = 2;
	e.status = "succeeded";
	e.exit_status = 0;
	e.started_ms = NOW_MS + 31000;
	e.finished_ms = NOW_MS + 32000;
	e.retry_at = -1;
	e.detail = NULL;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_attempt_end(s, &e), 0);
	T_EQ_INT(store_commit(s), 0);
	check_sql(path, retry_checks_done, 2);
	T_EQ_INT(store_job_last_success(s, "r"), NOW_MS + 32000);
	T_EQ_INT(found(s, "running", buf), 0);
	T_EQ_STR(buf, "");
	store_close(s);
}

/* --- skipped instances ---------------------------------------------------- */

/* A sequence of store_run_skip calls on one database. */
struct skip_case {
	const char	*job;
	int64_t		 dt;		/* scheduled_at - T0 */
	const char	*origin;
	const char	*reason;
	const char	*detail;
	int64_t		 dms;		/* now_ms - NOW_MS */
	int		 want;
	const char	*row;		/* run_id status reason detail
					   attempts created finished trigger
					   owner, of (job, origin, at) */
};

static const struct skip_case skip_cases[] = {
	{ "s", 0, "schedule", "overlap", "s@2027-03-14T06:59:00Z still runs",
	    0, 1, "s@2027-03-14T07:00:00Z skipped overlap "
	    "s@2027-03-14T06:59:00Z still runs 0 1805007601234 1805007601234 "
	    "schedule NULL" },
	/* The same instance again: nothing changes. */
	{ "s", 0, "schedule", "misfire", NULL, 1000, 0,
	    "s@2027-03-14T07:00:00Z skipped overlap "
	    "s@2027-03-14T06:59:00Z still runs 0 1805007601234 1805007601234 "
	    "schedule NULL" },
	/* Another origin is another instance. */
	{ "s", 0, "manual", "overlap", NULL, 2000, 1,
	    "s@2027-03-14T07:00:00Z/manual skipped overlap NULL 0 "
	    "1805007603234 1805007603234 manual NULL" },
	{ "s", 60, "schedule", "coalesced", NULL, 3000, 1,
	    "s@2027-03-14T07:01:00Z skipped coalesced NULL 0 1805007604234 "
	    "1805007604234 schedule NULL" },
	{ "s", 120, "schedule", NULL, NULL, 4000, 1,
	    "s@2027-03-14T07:02:00Z skipped NULL NULL 0 1805007605234 "
	    "1805007605234 schedule NULL" },
	/* An instance that runs is not turned into a skipped one. */
	{ "running", 0, "schedule", "overlap", "x", 5000, 0,
	    "running@2027-03-14T07:00:00Z running NULL NULL 1 1805007601234 "
	    "NULL schedule owner-1" },
};

static void
test_skip(void)
{
	struct store		*s;
	struct store_claim	 c;
	struct store_claimed	 cl;
	struct sql_check	 chk[2];
	char			 path[256], sql[768], buf[FOUND_BUFSZ];
	size_t			 i;

	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	T_RUN("skip: setup");
	T_EQ_INT(claim(s, "running", T0, "schedule", "owner-1", &cl), 1);
	for (i = 0; i < sizeof skip_cases / sizeof skip_cases[0]; i++) {
		const struct skip_case *sc = &skip_cases[i];

		T_RUN(sub("skip", sc->reason != NULL ? sc->reason :
		    "no reason"));
		memset(&c, 0, sizeof c);
		c.job = sc->job;
		c.scheduled_at = T0 + sc->dt;
		c.origin = sc->origin;
		c.trigger = sc->origin;
		c.now_ms = NOW_MS + sc->dms;
		c.reason = sc->reason;
		c.detail = sc->detail;
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_run_skip(s, &c), sc->want);
		T_EQ_INT(store_commit(s), 0);
		(void)snprintf(sql, sizeof sql, "SELECT run_id || ' ' || "
		    "status || ' ' || " COL("reason") " || ' ' || "
		    COL("detail") " || ' ' || attempts || ' ' || created_at "
		    "|| ' ' || " COL("finished_at") " || ' ' || trigger || "
		    "' ' || " COL("owner") " FROM runs WHERE job = '%s' AND "
		    "origin = '%s' AND scheduled_at = %" PRId64, sc->job,
		    sc->origin, T0 + sc->dt);
		chk[0].sql = sql;
		chk[0].want = sc->row;
		chk[1].sql = NULL;
		check_sql(path, chk, 2);
	}
	T_RUN("skip: no attempts, never claimed later");
	{
		static const struct sql_check c2[] = {
			{ "SELECT count(*) FROM attempts", "1" },
			{ "SELECT count(*) FROM runs WHERE status = 'skipped'",
			    "4" },
		};

		check_sql(path, c2, 2);
	}
	T_EQ_INT(claim(s, "s", T0, "schedule", "owner-1", &cl), 0);
	T_EQ_INT(claim(s, "s", T0, "manual", "owner-1", &cl), 0);
	T_EQ_INT(found(s, "skipped", buf), 0);
	T_EQ_STR(buf, "s@0/schedule/schedule/skipped/overlap/0/-/-/-/- "
	    "s@0/manual/manual/skipped/overlap/0/-/-/-/- "
	    "s@60/schedule/schedule/skipped/coalesced/0/-/-/-/- "
	    "s@120/schedule/schedule/skipped/-/0/-/-/-/-");
	store_close(s);
}

/* --- settling waiting instances ------------------------------------------- */

struct unqueue_case {
	const char	*state;		/* make_instance */
	const char	*status;
	const char	*reason;
	int		 settled;	/* its rowid comes back, else 0 */
	const char	*row;		/* status reason finished owner lease
					   retry_at attempts */
};

static const struct unqueue_case unqueue_cases[] = {
	{ "queued", "skipped", "overlap", 1,
	    "skipped overlap 1805007606234 NULL NULL NULL 0" },
	{ "retrying", "replaced", "replace", 1,
	    "replaced replace 1805007606234 NULL NULL NULL 1" },
	{ "interrupted", "abandoned", "recover", 1,
	    "abandoned recover 1805007606234 NULL NULL NULL 1" },
	/* Not waiting: untouched. */
	{ "running", "skipped", "overlap", 0,
	    "running NULL NULL owner-1 1805007660 NULL 1" },
	{ "succeeded", "skipped", "overlap", 0,
	    "succeeded exit 1805007604234 NULL NULL NULL 1" },
	{ "failed", "skipped", "overlap", 0,
	    "failed exit 1805007605234 NULL NULL NULL 1" },
	{ "skipped", "replaced", "replace", 0,
	    "skipped overlap 1805007601234 NULL NULL NULL 0" },
};

static void
test_unqueue(void)
{
	struct store		*s;
	struct store_claim	 c;
	struct sql_check	 chk[2];
	char			 path[256], job[64], sql[512];
	int64_t			 rowid;
	size_t			 i;

	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof unqueue_cases / sizeof unqueue_cases[0]; i++) {
		const struct unqueue_case *uc = &unqueue_cases[i];

		T_RUN(sub("unqueue", uc->state));
		(void)snprintf(job, sizeof job, "u-%s", uc->state);
		if ((rowid = make_instance(s, path, job, T0, uc->state)) < 0)
			continue;
		/* A waiting row left with an owner and a lease: cleared. */
		if (uc->settled) {
			(void)snprintf(sql, sizeof sql, "UPDATE runs SET owner "
			    "= 'ghost', lease_until = %" PRId64 " WHERE id = "
			    "%" PRId64, T0 + 999, rowid);
			T_EQ_INT(exec_sql(path, sql), 0);
		}
		memset(&c, 0, sizeof c);
		c.job = job;
		c.scheduled_at = T0;
		c.origin = "schedule";
		c.now_ms = NOW_MS + 5000;
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_run_unqueue(s, &c, uc->status, uc->reason),
		    uc->settled ? rowid : 0);
		T_EQ_INT(store_commit(s), 0);
		(void)snprintf(sql, sizeof sql, "SELECT status || ' ' || "
		    COL("reason") " || ' ' || " COL("finished_at") " || ' ' || "
		    COL("owner") " || ' ' || " COL("lease_until") " || ' ' || "
		    COL("retry_at") " || ' ' || attempts FROM runs WHERE id = "
		    "%" PRId64, rowid);
		chk[0].sql = sql;
		chk[0].want = uc->row;
		chk[1].sql = NULL;
		check_sql(path, chk, 2);
		/* Settled once: a second call finds nothing waiting. */
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_run_unqueue(s, &c, "skipped", "again"), 0);
		T_EQ_INT(store_commit(s), 0);
	}
	T_RUN("unqueue: no such instance");
	memset(&c, 0, sizeof c);
	c.job = "nosuchjob";
	c.scheduled_at = T0;
	c.origin = "schedule";
	c.now_ms = NOW_MS;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_unqueue(s, &c, "skipped", "overlap"), 0);
	T_EQ_INT(store_commit(s), 0);
	store_close(s);
}

/* --- a retry's last failure; its instance settled dead ------------------- */

/* Only an instance waiting for its retry has a failure to give. */
struct failure_case {
	const char	*state;		/* make_instance */
	int		 found;
	const char	*failure;	/* attempts reason exit_status signal */
};

static const struct failure_case failure_cases[] = {
	{ "retrying", 1, "1 exit 75 -1" },
	{ "queued", 0, NULL },
	{ "running", 0, NULL },
	{ "interrupted", 0, NULL },
	{ "failed", 0, NULL },
};

static void
test_run_failure(void)
{
	struct store		*s;
	struct store_claim	 c;
	struct store_failure	 f;
	struct sql_check	 chk[2];
	char			 path[256], job[64], sql[512], got[128];
	int64_t			 rowid;
	size_t			 i;

	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof failure_cases / sizeof failure_cases[0]; i++) {
		const struct failure_case *fc = &failure_cases[i];

		T_RUN(sub("failure", fc->state));
		(void)snprintf(job, sizeof job, "f-%s", fc->state);
		if ((rowid = make_instance(s, path, job, T0, fc->state)) < 0)
			continue;
		memset(&c, 0, sizeof c);
		c.job = job;
		c.scheduled_at = T0;
		c.origin = "schedule";
		c.now_ms = NOW_MS + 6000;
		memset(&f, 0, sizeof f);
		T_EQ_INT(store_run_failure(s, &c, &f), fc->found);
		if (!fc->found)
			continue;
		T_EQ_INT(f.rowid, rowid);
		(void)snprintf(got, sizeof got, "%d %s %d %d", f.attempts,
		    f.reason, f.exit_status, f.signal);
		T_EQ_STR(got, fc->failure);

		/* Settled dead, keeping its reason, with a detail. */
		T_RUN(sub("failure", "settled dead"));
		c.detail = "its retry had not started";
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_run_unqueue(s, &c, "dead", NULL), rowid);
		T_EQ_INT(store_commit(s), 0);
		(void)snprintf(sql, sizeof sql, "SELECT status || ' ' || "
		    COL("reason") " || ' ' || " COL("detail") " || ' ' || "
		    COL("finished_at") " || ' ' || " COL("retry_at") " || ' ' "
		    "|| exit_status FROM runs WHERE id = %" PRId64, rowid);
		chk[0].sql = sql;
		chk[0].want = "dead exit its retry had not started "
		    "1805007607234 NULL 75";
		chk[1].sql = NULL;
		check_sql(path, chk, 2);
		T_EQ_INT(store_run_failure(s, &c, &f), 0);
	}
	store_close(s);
}

/* --- the detail of a waiting instance (a paused job's) ------------------- */

/* Only a waiting instance's detail is set, and cleared. */
struct note_case {
	const char	*state;		/* make_instance */
	const char	*noted;		/* its detail after the note */
};

static const struct note_case note_cases[] = {
	{ "queued", "paused" },
	{ "retrying", "paused" },
	{ "interrupted", "paused" },
	{ "running", "NULL" },
	{ "failed", "NULL" },
	{ "skipped", "behind an earlier instance" },
};

static void
test_run_note(void)
{
	struct store		*s;
	struct store_claim	 c;
	struct sql_check	 chk[2];
	char			 path[256], job[64], sql[256];
	int64_t			 rowid;
	size_t			 i;

	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof note_cases / sizeof note_cases[0]; i++) {
		const struct note_case *nc = &note_cases[i];

		T_RUN(sub("note", nc->state));
		(void)snprintf(job, sizeof job, "n-%s", nc->state);
		if ((rowid = make_instance(s, path, job, T0, nc->state)) < 0)
			continue;
		memset(&c, 0, sizeof c);
		c.job = job;
		c.scheduled_at = T0;
		c.origin = "schedule";
		(void)snprintf(sql, sizeof sql, "SELECT " COL("detail") " FROM "
		    "runs WHERE id = %" PRId64, rowid);
		chk[0].sql = sql;
		chk[1].sql = NULL;
		T_EQ_INT(store_run_note(s, &c, "paused"), 0);
		chk[0].want = nc->noted;
		check_sql(path, chk, 2);
		T_EQ_INT(store_run_note(s, &c, NULL), 0);
		chk[0].want = strcmp(nc->noted, "paused") == 0 ? "NULL" :
		    nc->noted;
		check_sql(path, chk, 2);
	}
	store_close(s);
}

/* --- the dead man's switch: the last success ------------------------------ */

/* Instances of jobs, in this order; then the last success of each job. */
struct success_case {
	const char	*job;
	int64_t		 dt;		/* scheduled_at - T0 */
	const char	*status;	/* end status, NULL: left running,
					   "skipped": store_run_skip */
	int64_t		 dms;		/* finished_ms - NOW_MS */
};

static const struct success_case success_cases[] = {
	{ "ls", 0, "succeeded", 1000 },
	{ "ls", 60, "failed", 5000 },		/* later, but failed */
	{ "ls", 120, "succeeded", 3000 },	/* the newest success */
	{ "ls", 180, "skipped", 9000 },		/* skipped: not a success */
	{ "ls", 240, "retrying", 9500 },
	{ "ls", 300, NULL, 0 },			/* running */
	{ "fails", 0, "failed", 1000 },
	{ "fails", 60, "dead", 2000 },
	{ "runs", 0, NULL, 0 },
	{ "other", 0, "succeeded", 7000 },
};

static const struct {
	const char	*job;
	int64_t		 want;		/* - NOW_MS, or -1 */
} success_wants[] = {
	{ "ls", 3000 }, { "fails", -1 }, { "runs", -1 }, { "other", 7000 },
	{ "nosuchjob", -1 },
};

static void
test_last_success(void)
{
	struct store		*s;
	struct store_claim	 c;
	struct store_claimed	 cl;
	char			 path[256];
	size_t			 i;
	int64_t			 got;

	T_RUN("last success");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof success_cases / sizeof success_cases[0]; i++) {
		const struct success_case *sc = &success_cases[i];

		if (sc->status != NULL && strcmp(sc->status, "skipped") == 0) {
			memset(&c, 0, sizeof c);
			c.job = sc->job;
			c.scheduled_at = T0 + sc->dt;
			c.origin = "schedule";
			c.trigger = "schedule";
			c.now_ms = NOW_MS + sc->dms;
			c.reason = "overlap";
			T_EQ_INT(store_begin(s), 0);
			T_EQ_INT(store_run_skip(s, &c), 1);
			T_EQ_INT(store_commit(s), 0);
			continue;
		}
		T_EQ_INT(claim(s, sc->job, T0 + sc->dt, "schedule", "owner-1",
		    &cl), 1);
		if (sc->status != NULL)
			T_EQ_INT(end_attempt(s, cl.rowid, 1, sc->status,
			    "exit", strcmp(sc->status, "succeeded") == 0 ? 0 :
			    1, NOW_MS, NOW_MS + sc->dms, strcmp(sc->status,
			    "retrying") == 0 ? NOW_MS + 60000 : -1), 0);
	}
	for (i = 0; i < sizeof success_wants / sizeof success_wants[0]; i++) {
		got = store_job_last_success(s, success_wants[i].job);
		if (!T_EQ_INT(got, success_wants[i].want == -1 ? -1 :
		    NOW_MS + success_wants[i].want))
			(void)printf("  job %s\n", success_wants[i].job);
	}
	store_close(s);
}

/* --- retention ----------------------------------------------------------- */

/*
 * An instance (job, "schedule", at) in a state: ended with that status at
 * finished_ms when it is > 0, else as make_instance makes it, or dead
 * (retries exhausted) at NOW_MS + 5 s.  Its rowid, or -1 (reported).
 */
static int64_t
make_ended(struct store *s, const char *path, const char *job, int64_t at,
    const char *state, int64_t finished_ms)
{
	struct store_claimed cl;

	if (finished_ms <= 0 && strcmp(state, "dead") != 0)
		return make_instance(s, path, job, at, state);
	if (finished_ms <= 0)
		finished_ms = NOW_MS + 5000;
	if (claim(s, job, at, "schedule", "owner-1", &cl) != 1 ||
	    end_attempt(s, cl.rowid, 1, state, "exit",
	    strcmp(state, "succeeded") == 0 ? 0 : 1, -1, finished_ms,
	    -1) == -1) {
		(void)printf("  cannot make %s %s\n", state, job);
		T_TRUE(0);
		return -1;
	}
	return rowid_of(path, job, at);
}

/* One prune call in a transaction: its result, or -9 (reported). */
static int
prune(struct store *s, const char *job, int64_t arg, int chunk)
{
	int n;

	if (store_begin(s) == -1)
		return -9;
	n = job != NULL ? store_prune_job(s, job, arg, chunk) :
	    store_prune_age(s, arg, chunk);
	if (n == -1 || store_commit(s) == -1) {
		(void)printf("  prune: %s\n", store_error(s));
		store_rollback(s);
		return -9;
	}
	return n;
}

/*
 * By age, cut at NOW_MS + 50 s: every row finished (or, skipped, created)
 * before the cut goes whatever its status (failed and dead ones too: the
 * age limit is their limit); rows that have not finished stay however
 * old they are, and so does one created long before the cut but finished
 * at it.  finished_ms 0: as make_instance ends it (before the cut).
 */
static const struct {
	const char	*job;
	const char	*state;
	int64_t		 finished;	/* ms after NOW_MS, or 0 */
} age_rows[] = {
	{ "s", "succeeded", 0 }, { "f", "failed", 0 }, { "d", "dead", 0 },
	{ "k", "skipped", 0 }, { "q", "queued", 0 }, { "r", "running", 0 },
	{ "t", "retrying", 0 }, { "w", "interrupted", 0 },
	{ "new-s", "succeeded", 50000 }, { "new-f", "failed", 60000 },
};

/* Decisions, by reason: taken NOW_MS + dms; the cut keeps "new". */
static const struct {
	const char	*reason;
	int64_t		 dms;
} age_decisions[] = {
	{ "o1", 0 }, { "o2", 1000 }, { "new", 50000 }, { "o3", 49999 },
};

/*
 * Each call deletes at most chunk (2) instances and chunk decisions, and
 * returns the sum; a call with nothing left to do returns 0.
 */
static const struct {
	int		 want;
	const char	*runs;		/* rows left */
	const char	*decisions;
} age_steps[] = {
	{ 2 + 2, "8", "2" },
	{ 2 + 1, "6", "1" },
	{ 0, "6", "1" },
};

static const struct sql_check age_checks[] = {
	{ "SELECT group_concat(job, ' ') FROM (SELECT job FROM runs ORDER "
	    "BY job)", "new-f new-s q r t w" },
	{ "SELECT group_concat(reason, ' ') FROM decisions", "new" },
	/* The attempts of deleted instances went with them. */
	{ "SELECT count(*) FROM attempts WHERE run NOT IN (SELECT id FROM "
	    "runs)", "0" },
	{ "SELECT count(*) FROM attempts", "5" },
};

/*
 * A job's history (minutes after T0): keep its 3 newest finished rows,
 * delete 2 at a time.  Failed, dead and unfinished rows are neither
 * deleted nor counted among the 3 kept; another job is not touched.
 */
static const struct {
	int		 dt;
	const char	*state;
} job_rows[] = {
	{ 0, "succeeded" }, { 1, "failed" }, { 2, "succeeded" },
	{ 3, "dead" }, { 4, "skipped" }, { 5, "succeeded" },
	{ 6, "succeeded" }, { 7, "retrying" }, { 8, "succeeded" },
	{ 9, "running" }, { 10, "queued" },
};

static const struct {
	int		 want;
	const char	*left;		/* minutes after T0 */
} job_steps[] = {
	{ 2, "0 1 3 5 6 7 8 9 10" },
	{ 1, "1 3 5 6 7 8 9 10" },
	{ 0, "1 3 5 6 7 8 9 10" },
};

static void
test_prune(void)
{
	struct store		*s;
	struct store_decision	 d;
	struct sql_check	 c[3];
	char			 path[256], sql[256];
	size_t			 i;

	T_RUN("prune by age");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof age_rows / sizeof age_rows[0]; i++)
		(void)make_ended(s, path, age_rows[i].job, T0,
		    age_rows[i].state, age_rows[i].finished == 0 ? 0 :
		    NOW_MS + age_rows[i].finished);
	for (i = 0; i < sizeof age_decisions / sizeof age_decisions[0];
	    i++) {
		memset(&d, 0, sizeof d);
		d.job = "s";
		d.decision = "skipped";
		d.reason = age_decisions[i].reason;
		d.first_at = d.last_at = T0;
		d.count = 1;
		d.now_ms = NOW_MS + age_decisions[i].dms;
		d.run_rowid = -1;
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_decision_add(s, &d), 0);
		T_EQ_INT(store_commit(s), 0);
	}
	for (i = 0; i < sizeof age_steps / sizeof age_steps[0]; i++) {
		T_EQ_INT(prune(s, NULL, NOW_MS + 50000, 2), age_steps[i].want);
		c[0].sql = "SELECT count(*) FROM runs";
		c[0].want = age_steps[i].runs;
		c[1].sql = "SELECT count(*) FROM decisions";
		c[1].want = age_steps[i].decisions;
		c[2].sql = NULL;
		check_sql(path, c, 3);
	}
	check_sql(path, age_checks, sizeof age_checks / sizeof age_checks[0]);
	store_close(s);

	T_RUN("prune a job");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof job_rows / sizeof job_rows[0]; i++)
		(void)make_ended(s, path, "p", T0 + job_rows[i].dt * 60,
		    job_rows[i].state, 0);
	(void)make_instance(s, path, "o", T0, "succeeded");
	(void)make_instance(s, path, "o", T0 + 60, "succeeded");
	(void)snprintf(sql, sizeof sql, "SELECT group_concat((scheduled_at - "
	    "%" PRId64 ") / 60, ' ') FROM (SELECT scheduled_at FROM runs "
	    "WHERE job = 'p' ORDER BY scheduled_at)", T0);
	for (i = 0; i < sizeof job_steps / sizeof job_steps[0]; i++) {
		T_EQ_INT(prune(s, "p", 3, 2), job_steps[i].want);
		c[0].sql = sql;
		c[0].want = job_steps[i].left;
		c[1].sql = "SELECT count(*) FROM runs WHERE job = 'o'";
		c[1].want = "2";
		c[2].sql = NULL;
		check_sql(path, c, 3);
	}
	/* No more instances than keep: the delete is not even tried. */
	T_EQ_INT(prune(s, "o", 2, 100), 0);
	/* One more than keep: the oldest goes. */
	T_EQ_INT(prune(s, "o", 1, 100), 1);
	/* keep = 0: every finished row of the job, up to the chunk. */
	T_EQ_INT(prune(s, "o", 0, 100), 1);
	T_EQ_INT(prune(s, "nosuchjob", 0, 100), 0);
	c[0].sql = "SELECT count(*) FROM runs WHERE job = 'o'";
	c[0].want = "0";
	c[1].sql = sql;
	c[1].want = job_steps[2].left;
	c[2].sql = NULL;
	check_sql(path, c, 3);
	store_close(s);
}

/* Meta values: a sequence of sets and gets. */
struct meta_case {
	char		 op;		/* 's' set, 'g' get */
	const char	*key;
	const char	*value;		/* set: value; get: want, NULL absent */
	size_t		 len;		/* get: buffer size (0: 64) */
};

static const struct meta_case meta_cases[] = {
	{ 'g', "boot_id", NULL, 0 },
	{ 's', "boot_id", "b0", 0 },
	{ 'g', "boot_id", "b0", 0 },
	{ 's', "boot_id", "b1", 0 },
	{ 'g', "boot_id", "b1", 0 },
	{ 'g', "BOOT_ID", NULL, 0 },
	{ 's', "machine_id", "0123456789abcdef", 0 },
	{ 'g', "machine_id", "012", 4 },
	{ 's', "empty", "", 0 },
	{ 'g', "empty", "", 0 },
	{ 's', "null", NULL, 0 },
	{ 'g', "null", "", 0 },
};

static void
test_meta(void)
{
	struct store	*s;
	char		 path[256], buf[64];
	size_t		 i;
	int		 rc;

	T_RUN("meta");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < sizeof meta_cases / sizeof meta_cases[0]; i++) {
		const struct meta_case *mc = &meta_cases[i];

		if (mc->op == 's') {
			T_EQ_INT(store_meta_set(s, mc->key, mc->value), 0);
			continue;
		}
		(void)strcpy(buf, "untouched");
		rc = store_meta_get(s, mc->key, buf, mc->len ? mc->len :
		    sizeof buf);
		T_EQ_INT(rc, mc->value != NULL);
		T_EQ_STR(buf, mc->value != NULL ? mc->value : "untouched");
	}
	store_close(s);
}

/* A part of a transaction undone alone; the rest commits. */
static void
test_part(void)
{
	struct store		*s;
	struct store_job	 j;
	char			 path[256];

	T_RUN("part: undone alone, kept, committed");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	memset(&j, 0, sizeof j);
	j.sched_hash = 7;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_job_put(s, "before", &j, NOW_MS), 0);
	T_EQ_INT(store_part_begin(s), 0);
	T_EQ_INT(store_job_put(s, "undone", &j, NOW_MS), 0);
	T_EQ_INT(store_part_end(s, 0), 0);
	T_EQ_INT(store_part_begin(s), 0);
	T_EQ_INT(store_job_put(s, "kept", &j, NOW_MS), 0);
	T_EQ_INT(store_part_end(s, 1), 0);
	T_EQ_INT(store_job_put(s, "after", &j, NOW_MS), 0);
	T_EQ_INT(store_commit(s), 0);
	T_EQ_INT(store_job_get(s, "before", &j), 1);
	T_EQ_INT(store_job_get(s, "undone", &j), 0);
	T_EQ_INT(store_job_get(s, "kept", &j), 1);
	T_EQ_INT(store_job_get(s, "after", &j), 1);

	T_RUN("part: kept, then the whole transaction rolled back");
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_part_begin(s), 0);
	T_EQ_INT(store_job_put(s, "rolled", &j, NOW_MS), 0);
	T_EQ_INT(store_part_end(s, 1), 0);
	store_rollback(s);
	T_EQ_INT(store_job_get(s, "rolled", &j), 0);
	store_close(s);
}

/* The size of a file, or -1. */
static off_t
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* --- batches ------------------------------------------------------------ */

/*
 * A batch of three shards ended as `ends` says (a letter per shard:
 * s succeeded, f failed, d dead, u unknown (adopted), x terminated
 * (replaced), r still running,
 * q still queued, t
 * abandoned by batch_timeout); what store_batch_settle decides.
 */
struct batch_case {
	const char	*ends;
	int		 want;		/* store_batch_settle */
	const char	*status;
	const char	*reason;
	const char	*failed;
	const char	*detail;
};

static const struct batch_case batch_cases[] = {
	{ "sss", 1, "succeeded", "", "", "3 shards succeeded" },
	{ "sfs", 1, "failed", "shards", "1", "1 of 3 shards failed: 1" },
	{ "fsd", 1, "dead", "shards", "0 2",
	    "2 of 3 shards failed (retries exhausted): 0 2" },
	{ "srs", 0, "", "", "", "" },
	{ "sqf", 0, "", "", "", "" },
	{ "stt", 1, "failed", "batch_timeout", "1 2",
	    "2 of 3 shards failed (batch_timeout): 1 2" },
	{ "usu", 1, "unknown", "shards", "0 2", "2 of 3 shards ended unknown "
	    "(adopted after a restart): 0 2" },
	{ "ufs", 1, "failed", "shards", "0 1", "2 of 3 shards failed: 0 1" },
	{ "sxs", 1, "terminated", "replaced", "1", "1 of 3 shards were "
	    "stopped: replaced by a newer instance: 1" },
};

/* One shard's attempt, claimed by its row and ended with status. */
static void
batch_shard_end(struct store *s, int64_t id, const char *status)
{
	struct store_claim	 c;
	struct store_claimed	 cl;
	struct store_end	 e;

	memset(&c, 0, sizeof c);
	c.trigger = "schedule";
	c.owner = "owner-1";
	c.now_ms = NOW_MS;
	c.lease_until = T0 + 60;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_claim_id(s, id, &c, &cl), 1);
	T_EQ_INT(store_commit(s), 0);
	if (strcmp(status, "running") == 0)
		return;
	memset(&e, 0, sizeof e);
	e.rowid = cl.rowid;
	e.attempt = cl.attempt;
	e.status = status;
	e.reason = strcmp(status, "succeeded") == 0 ? NULL :
	    strcmp(status, "terminated") == 0 ? "replaced" : "exit";
	e.outcome = status;
	e.started_ms = NOW_MS;
	e.finished_ms = NOW_MS + 10;
	e.duration_ms = 10;
	e.exit_status = strcmp(status, "succeeded") == 0 ? 0 : 1;
	e.signal = -1;
	e.retry_at = -1;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_attempt_end(s, &e), 0);
	T_EQ_INT(store_checkpoint_put(s, id, cl.attempt, "cursor 7", 8), 0);
	T_EQ_INT(store_commit(s), 0);
}

/* The rows a store_found callback saw: "RUN_ID STATUS SHARD, ...". */
static void
batch_found(const struct store_found *f, void *arg)
{
	char	*buf = arg;
	size_t	 n = strlen(buf);

	(void)snprintf(buf + n, 512 - n, "%s%s %s %d", n > 0 ? ", " : "",
	    f->run_id, f->status, f->shard);
}

static const struct sql_check batch_checks[] = {
	{ "SELECT group_concat(run_id || ' ' || origin || ' ' || status || "
	    "' ' || shard || ' ' || shards, ', ') FROM runs WHERE parent = 1",
	    "b@2027-03-14T07:00:00Z#0 schedule#0 queued 0 eu, "
	    "b@2027-03-14T07:00:00Z#1 schedule#1 queued 1 us, "
	    "b@2027-03-14T07:00:00Z#2 schedule#2 queued 2 asia west" },
	{ "SELECT status || ' ' || coalesce(owner, 'none') || ' ' || "
	    "coalesce(lease_until, 'none') || ' ' || replace(shards, char(10), "
	    "'|') FROM runs WHERE id = 1", "running none none eu|us|asia west" },
};

/* A batch begun, its shards ended as bc says, settled, replayed. */
static void
batch_run(const struct batch_case *bc, int first)
{
	struct store		*s;
	struct store_claimed	 cl;
	struct store_batch	 b;
	struct store_settled	 st;
	struct store_requeued	 rq;
	int64_t			*ids = NULL;
	char			 path[256], why[256], found[512], want[64];
	size_t			 k, open = 0;

	T_RUN(sub("batch", bc->ends));
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	T_EQ_INT(claim(s, "b", T0, "schedule", "owner-1", &cl), 1);
	memset(&b, 0, sizeof b);
	b.rowid = cl.rowid;
	b.attempt = cl.attempt + 1;	/* not the claim's: fenced */
	b.job = "b";
	b.scheduled_at = T0;
	b.origin = "schedule";
	b.run_id = cl.run_id;
	b.trigger = "schedule";
	b.list = "eu\nus\nasia west";
	b.nshards = 3;
	b.now_ms = NOW_MS;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_batch_begin(s, &b, &ids), 0);
	b.attempt = cl.attempt;
	T_EQ_INT(store_batch_begin(s, &b, &ids), 1);
	T_EQ_INT(store_commit(s), 0);
	if (ids == NULL) {
		store_close(s);
		return;
	}
	if (first)
		check_sql(path, batch_checks, sizeof batch_checks /
		    sizeof batch_checks[0]);
	found[0] = '\0';
	T_EQ_INT(store_batches(s, -1, batch_found, found), 0);
	T_EQ_STR(found, "b@2027-03-14T07:00:00Z running -1");
	for (k = 0; k < 3; k++) {
		const char *e = bc->ends[k] == 's' ? "succeeded" :
		    bc->ends[k] == 'f' ? "failed" : bc->ends[k] == 'd' ?
		    "dead" : bc->ends[k] == 'r' ? "running" :
		    bc->ends[k] == 'u' ? "unknown" : bc->ends[k] == 'x' ?
		    "terminated" : NULL;

		if (e != NULL)
			batch_shard_end(s, ids[k], e);
		open += bc->ends[k] != 's';
	}
	if (strchr(bc->ends, 't') != NULL) {
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_batch_abandon(s, cl.rowid, "batch_timeout",
		    "stopped", NOW_MS), 2);
		T_EQ_INT(store_commit(s), 0);
	}
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_shards_running(s, cl.rowid),
	    strchr(bc->ends, 'r') != NULL);
	T_EQ_INT(store_batch_settle(s, cl.rowid, NOW_MS + 20, &st),
	    bc->want);
	T_EQ_INT(store_commit(s), 0);
	found[0] = '\0';
	T_EQ_INT(store_shards_waiting(s, cl.rowid, batch_found, found), 0);
	T_EQ_STR(found, strchr(bc->ends, 'q') != NULL ?
	    "b@2027-03-14T07:00:00Z#1 queued 1" : "");
	if (bc->want != 1) {
		free(ids);
		store_close(s);
		return;
	}
	T_EQ_STR(st.status, bc->status);
	T_EQ_STR(st.reason, bc->reason);
	T_EQ_STR(st.failed != NULL ? st.failed : "", bc->failed);
	T_EQ_STR(st.detail, bc->detail);
	T_EQ_STR(st.run_id, "b@2027-03-14T07:00:00Z");
	T_EQ_INT(st.total, 3);
	free(st.failed);
	/* Settled once: a second settle finds nothing to decide. */
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_batch_settle(s, cl.rowid, NOW_MS, &st), 0);
	T_EQ_INT(store_commit(s), 0);
	/* Its end, its attempt closed, checkpoints kept unless it succeeded. */
	(void)snprintf(want, sizeof want, "%s %s", bc->status,
	    strcmp(bc->status, "succeeded") == 0 ? "NULL" : "cursor 7");
	{
		const struct sql_check sc[] = {
			{ "SELECT status || ' ' || coalesce((SELECT "
			    "CAST(checkpoint AS TEXT) FROM runs WHERE "
			    "parent = 1 AND shard = 0), 'NULL') FROM runs "
			    "WHERE id = 1", want },
			{ "SELECT count(*) FROM attempts WHERE run = 1 AND "
			    "finished_at IS NULL", "0" },
		};

		check_sql(path, sc, sizeof sc / sizeof sc[0]);
	}
	/* A replay: one shard by its own run id, then the rest. */
	if (strcmp(bc->status, "succeeded") != 0) {
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_run_requeue(s, "b@2027-03-14T07:00:00Z#0", &rq,
		    why, sizeof why), bc->ends[0] == 's' ? 0 : 1);
		if (bc->ends[0] == 's')
			T_EQ_STR(why, "the shard succeeded or has not ended: "
			    "only failed, dead, abandoned, terminated and "
			    "unknown shards can be replayed");
		T_EQ_INT(store_run_requeue(s, "b@2027-03-14T07:00:00Z", &rq,
		    why, sizeof why), bc->ends[0] == 's' || open > 1 ? 1 : 0);
		T_EQ_INT(rq.batch, 1);
		T_EQ_INT(rq.rowid, cl.rowid);
		T_EQ_STR(rq.origin, "schedule");
		T_EQ_INT(store_commit(s), 0);
		found[0] = '\0';
		T_EQ_INT(store_shards_waiting(s, cl.rowid, batch_found, found),
		    0);
		for (k = 0; found[0] != '\0' && found[k] != '\0'; k++)
			open -= found[k] == ',';
		T_EQ_INT((int64_t)open, found[0] != '\0' ? 1 : 0);
		{
			const struct sql_check sc[] = {
				{ "SELECT status || ' ' || coalesce("
				    "finished_at, 'NULL') FROM runs WHERE "
				    "id = 1", "running NULL" },
			};

			check_sql(path, sc, 1);
		}
	}
	free(ids);
	store_close(s);
}

static void
test_batch(void)
{
	size_t i;

	for (i = 0; i < sizeof batch_cases / sizeof batch_cases[0]; i++)
		batch_run(&batch_cases[i], i == 0);
}

/*
 * No checkpoint inside a commit, however large the WAL grows (SQLite's
 * automatic one would run at 1000 pages); store_checkpoint copies it
 * back once it holds at least the pages asked for.
 */
static void
test_checkpoint(void)
{
	struct store		*s;
	struct store_job	 j;
	char			 path[256], wal[300], job[512];
	off_t			 before;
	int			 i, bad = 0;

	T_RUN("checkpoint: none inside commits");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	(void)snprintf(wal, sizeof wal, "%s-wal", path);
	T_EQ_INT(store_checkpoint(s, 1), 0);	/* the schema, copied */
	before = file_size(path);
	memset(&j, 0, sizeof j);
	for (i = 0; i < 30000; i++) {		/* ~2000 pages, 60 commits */
		if (i % 500 == 0)
			bad += store_begin(s) != 0;
		(void)snprintf(job, sizeof job, "job-%05d-%0*d", i, 80, i);
		j.sched_hash = (uint64_t)i;
		bad += store_job_put(s, job, &j, NOW_MS) != 0;
		if (i % 500 == 499)
			bad += store_commit(s) != 0;
	}
	T_EQ_INT(bad, 0);
	T_EQ_INT(file_size(path), before);
	T_TRUE(file_size(wal) > 1000 * 4096);

	T_RUN("checkpoint: below the threshold, nothing");
	T_EQ_INT(store_checkpoint(s, 1000000), 0);
	T_EQ_INT(file_size(path), before);

	T_RUN("checkpoint: copied back");
	T_EQ_INT(store_checkpoint(s, 1000), 0);
	T_TRUE(file_size(path) > before + 1000 * 4096);
	T_EQ_INT(store_job_get(s, "job-29999-" "000000000000000000000000000000"
	    "00000000000000000000000000000000000000000000029999", &j), 1);
	T_EQ_INT(j.sched_hash, 29999);

	/* Nobody calls store_checkpoint: the WAL stops at 10000 pages. */
	T_RUN("checkpoint: the WAL is bounded");
	before = file_size(path);
	for (i = 0; i < 100000; i++) {		/* ~15000 pages */
		if (i % 2000 == 0)
			bad += store_begin(s) != 0;
		(void)snprintf(job, sizeof job, "job2-%06d-%0*d", i, 400, i);
		bad += store_job_put(s, job, &j, NOW_MS) != 0;
		if (i % 2000 == 1999)
			bad += store_commit(s) != 0;
	}
	T_EQ_INT(bad, 0);
	T_TRUE(file_size(path) > before + 5000 * 4096);
	T_TRUE(file_size(wal) < 11000 * 4096);
	store_close(s);
}

/* Milliseconds of the monotonic clock. */
static int64_t
mono_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Another connection holds the write lock; then a failed claim. */
static void
test_busy(void)
{
	struct store		*s;
	struct store_claimed	 cl;
	struct store_claim	 c;
	sqlite3			*other = NULL;
	char			 path[256];
	int64_t			 t0, dt;

	T_RUN("busy");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	T_EQ_INT(sqlite3_open(path, &other), SQLITE_OK);
	T_EQ_INT(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL),
	    SQLITE_OK);
	t0 = mono_ms();
	T_EQ_INT(store_begin(s), -1);
	dt = mono_ms() - t0;
	T_TRUE(store_busy(s));
	T_EQ_STR(store_error(s), "database is locked");
	if (!T_TRUE(dt < 1000))
		(void)printf("  store_begin took %" PRId64 " ms\n", dt);
	store_rollback(s);		/* nothing open: harmless */
	T_EQ_INT(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	T_EQ_INT(store_begin(s), 0);
	T_TRUE(!store_busy(s));
	T_EQ_INT(store_commit(s), 0);
	/* Busy again while a claim waits: nothing written. */
	T_EQ_INT(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL),
	    SQLITE_OK);
	T_EQ_INT(claim(s, "j", T0, "schedule", "owner-1", &cl), -9);
	T_TRUE(store_busy(s));
	T_EQ_INT(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	(void)sqlite3_close(other);
	T_EQ_INT(claim(s, "j", T0, "schedule", "owner-1", &cl), 1);
	T_EQ_INT(cl.attempt, 1);

	T_RUN("commit without a transaction");
	T_EQ_INT(store_commit(s), -1);
	T_TRUE(!store_busy(s));

	T_RUN("claim rolled back");
	memset(&c, 0, sizeof c);
	c.job = "rb";
	c.scheduled_at = T0;
	c.origin = "schedule";
	c.trigger = "schedule";
	c.owner = "owner-1";
	c.now_ms = NOW_MS;
	c.lease_until = T0 + 60;
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_claim(s, &c, &cl), 1);
	store_rollback(s);
	{
		static const struct sql_check none[] = {
			{ "SELECT count(*) FROM runs WHERE job = 'rb'", "0" },
			{ "SELECT count(*) FROM attempts", "1" },
		};
		check_sql(path, none, 2);
	}

	/* The attempt row cannot be written: the claim fails half-way. */
	T_RUN("failed claim leaves no row");
	T_EQ_INT(exec_sql(path, "CREATE TRIGGER no_attempts BEFORE INSERT ON "
	    "attempts BEGIN SELECT RAISE(ABORT, 'injected failure'); END"), 0);
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_claim(s, &c, &cl), -1);
	T_EQ_STR(store_error(s), "injected failure");
	T_TRUE(!store_busy(s));
	store_rollback(s);
	{
		static const struct sql_check none[] = {
			{ "SELECT count(*) FROM runs WHERE job = 'rb'", "0" },
			{ "SELECT count(*) FROM runs", "1" },
		};
		check_sql(path, none, 2);
	}
	T_EQ_INT(exec_sql(path, "DROP TRIGGER no_attempts"), 0);
	T_EQ_INT(claim(s, "rb", T0, "schedule", "owner-1", &cl), 1);
	store_close(s);
}

/* Remove the temporary directory and the databases in it. */
static void
cleanup(void)
{
	char	path[512];
	int	i;

	for (i = 1; i <= dbseq; i++) {
		(void)snprintf(path, sizeof path, "%s/%d.db", tmpdir, i);
		(void)unlink(path);
		(void)snprintf(path, sizeof path, "%s/%d.db-wal", tmpdir, i);
		(void)unlink(path);
		(void)snprintf(path, sizeof path, "%s/%d.db-shm", tmpdir, i);
		(void)unlink(path);
	}
	if (rmdir(tmpdir) == -1)
		(void)printf("warning: %s not removed\n", tmpdir);
}

/*
 * Which processes an attempt had, and what they used: the invocation id
 * and boot at the claim, the cgroup at the start, the usage at the end;
 * an end without usage leaves those columns NULL.
 */
static const struct sql_check usage_checks[] = {
	{ "SELECT invocation || ' ' || boot_id || ' ' || cgroup || ' ' || "
	    "cpu_user_us || ' ' || cpu_system_us || ' ' || mem_peak || ' ' || "
	    "usage_source || ' ' || outcome FROM attempts WHERE run = 1",
	    "00112233445566778899aabbccddeeff b-1 /cg/u@1.1 1500 250 "
	    "41943040 cgroup oom" },
	{ "SELECT reason FROM runs WHERE id = 1", "oom" },
	{ "SELECT coalesce(cpu_user_us, 'NULL') || ' ' || coalesce(mem_peak, "
	    "'NULL') || ' ' || coalesce(usage_source, 'NULL') FROM attempts "
	    "WHERE run = 2", "NULL NULL NULL" },
	{ NULL, NULL },
};

static void
test_usage(void)
{
	struct store		*s;
	struct store_claimed	 cl;
	struct store_claim	 c;
	struct store_end	 e;
	char			 path[256];
	int			 i;

	T_RUN("usage");
	if ((s = fresh(path, sizeof path)) == NULL)
		return;
	for (i = 0; i < 2; i++) {
		memset(&c, 0, sizeof c);
		c.job = i == 0 ? "u" : "v";
		c.scheduled_at = T0;
		c.origin = "schedule";
		c.trigger = "schedule";
		c.owner = "o";
		c.now_ms = NOW_MS;
		c.lease_until = T0 + 60;
		c.invocation = i == 0 ? "00112233445566778899aabbccddeeff" :
		    NULL;
		c.boot_id = "b-1";
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_run_claim(s, &c, &cl), 1);
		T_EQ_STR(cl.invocation, i == 0 ?
		    "00112233445566778899aabbccddeeff" : "");
		T_EQ_INT(store_attempt_started(s, cl.rowid, 1, 99, 7, NOW_MS, 0,
		    i == 0 ? "/cg/u@1.1" : NULL), 0);
		memset(&e, 0, sizeof e);
		e.rowid = cl.rowid;
		e.attempt = 1;
		e.status = "failed";
		e.reason = i == 0 ? "oom" : "exit";
		e.outcome = i == 0 ? "oom" : "failed";
		e.started_ms = NOW_MS;
		e.finished_ms = NOW_MS + 10;
		e.duration_ms = 10;
		e.exit_status = -1;
		e.signal = 9;
		e.retry_at = -1;
		if (i == 0) {
			e.usage_source = "cgroup";
			e.cpu_user_us = 1500;
			e.cpu_system_us = 250;
			e.mem_peak = 40 * 1024 * 1024;
		}
		T_EQ_INT(store_attempt_end(s, &e), 0);
		T_EQ_INT(store_commit(s), 0);
	}
	check_sql(path, usage_checks, 4);
	store_close(s);
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_open();
	test_moved();
	test_migrate();
	test_jobs();
	test_claim();
	test_queue();
	test_attempts();
	test_usage();
	test_found();
	test_claim_id();
	test_retry();
	test_skip();
	test_unqueue();
	test_run_failure();
	test_run_note();
	test_last_success();
	test_prune();
	test_decisions();
	test_leases();
	test_meta();
	test_part();
	test_checkpoint();
	test_batch();
	test_busy();
	cleanup();
	return t_done();
}

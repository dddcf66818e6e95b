/*
 * test_store.c -- unit tests of the SQLite store: schema creation and
 * versioning, refusal of foreign files, job state, the claim protocol
 * (one row per instance, origins kept apart, queued instances), attempts
 * and their end, decisions, leases, interrupted runs, queued runs, meta
 * values, and a database held busy by another connection.
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

/* A claim in one transaction; the result of store_run_claim. */
static int
claim(struct store *s, const char *job, int64_t when, const char *origin,
    const char *owner, struct store_claimed *out)
{
	struct store_claim	c;
	int			rc;

	memset(&c, 0, sizeof c);
	c.job = job;
	c.scheduled_at = when;
	c.origin = origin;
	c.trigger = strcmp(origin, "reboot") == 0 ? "schedule" : origin;
	c.owner = owner;
	c.now_ms = NOW_MS;
	c.lease_until = T0 + 60;
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

static const struct sql_check schema_checks[] = {
	{ "PRAGMA user_version", "1" },
	{ "PRAGMA journal_mode", "wal" },
	{ "SELECT group_concat(name, ' ') FROM (SELECT name FROM "
	    "sqlite_master WHERE type = 'table' ORDER BY name)",
	    "attempts decisions jobs meta runs" },
	{ "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name "
	    "IN ('runs_job', 'runs_active', 'decisions_job')", "3" },
	{ "SELECT count(*) FROM runs", "0" },
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
	db_path(path, sizeof path);
	T_EQ_INT(exec_sql(path, "CREATE TABLE x (a); PRAGMA user_version = 2"),
	    0);
	cause = NULL;
	s = store_open(path, 0, &cause);
	T_TRUE(s == NULL);
	(void)snprintf(want, sizeof want, "%s: schema version 2 is newer than "
	    "this tickd understands (1): downgrade is not supported", path);
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
	(void)snprintf(want, sizeof want, "%s: file is not a database", path);
	T_EQ_STR(cause, want);
	free(cause);
	store_close(s);

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

/* Job state: put then get gives back every field. */
struct job_case {
	const char	*job;
	uint64_t	 hash;
	int64_t		 planned;
	int		 paused;
	const char	*boot_id;
	const char	*row;		/* hash planned boot_id, as stored */
};

static const struct job_case job_cases[] = {
	{ "a", 0x0123456789abcdefULL, T0, 0, "",
	    "0123456789abcdef 1805007600 NULL" },
	{ "b", 0xffffffffffffffffULL, -1, 1,
	    "5d2f8b8e-2a5e-4a51-9c3b-0e7a3f1f5c11",
	    "ffffffffffffffff NULL 5d2f8b8e-2a5e-4a51-9c3b-0e7a3f1f5c11" },
	{ "c", 1, 0, 0, "x", "0000000000000001 0 x" },
	{ "a", 7, T0 + 3600, 1, "boot2",			/* update */
	    "0000000000000007 1805011200 boot2" },
	{ "with space and ünïcode", 99, 12, 0, "",
	    "0000000000000063 12 NULL" },
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
	char			 path[256], sql[256], ids[512];
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
		T_EQ_INT(store_job_put(s, jc->job, &in, NOW_MS + (int64_t)i),
		    0);
		memset(&out, 0x55, sizeof out);
		T_EQ_INT(store_job_get(s, jc->job, &out), 1);
		T_TRUE(out.sched_hash == jc->hash);
		T_EQ_TIME(out.planned, jc->planned);
		T_EQ_INT(out.paused, jc->paused);
		T_EQ_STR(out.boot_id, jc->boot_id);
		(void)snprintf(sql, sizeof sql, "SELECT sched_hash || ' ' || "
		    "coalesce(planned, 'NULL') || ' ' || coalesce(boot_id, "
		    "'NULL') || ' ' || updated_at FROM jobs WHERE job = '%s'",
		    jc->job);
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
};

static const struct sql_check queue_checks_after[] = {
	{ "SELECT status || ' ' || coalesce(reason, 'NULL') || ' ' || "
	    "attempts || ' ' || owner FROM runs WHERE job = 'q'",
	    "running NULL 1 owner-1" },
	{ "SELECT count(*) FROM runs", "1" },
	{ "SELECT count(*) FROM attempts", "1" },
};

/* Collect queued instances as "job@at/origin/trigger ". */
static void
collect_queued(const char *job, int64_t when, const char *origin,
    const char *trigger, void *arg)
{
	char *buf = arg;

	(void)snprintf(buf + strlen(buf), 512 - strlen(buf),
	    "%s%s@%" PRId64 "/%s/%s", *buf ? " " : "", job, when - T0, origin,
	    trigger);
}

/* Queued instances, inserted in this order, come back oldest first. */
struct queued_case {
	const char	*job;
	int64_t		 dt;		/* scheduled_at - T0 */
	const char	*origin;
	int		 want;
};

static const struct queued_case queued_cases[] = {
	{ "c", 120, "schedule", 1 },
	{ "a", 60, "schedule", 1 },
	{ "b", 60, "manual", 1 },
	{ "d", 0, "schedule", 1 },
	{ "a", 60, "schedule", 0 },	/* exists */
	{ "e", 180, "reboot", 1 },
};

static void
test_queue(void)
{
	struct store		*s;
	struct store_claim	 c;
	struct store_claimed	 out;
	char			 path[256], buf[512];
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
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_queue(s, &c), 1);
	T_EQ_INT(store_run_queue(s, &c), 0);
	T_EQ_INT(store_commit(s), 0);
	check_sql(path, queue_checks_before, 2);
	buf[0] = '\0';
	T_EQ_INT(store_runs_queued(s, collect_queued, buf), 0);
	T_EQ_STR(buf, "q@0/schedule/schedule");
	T_EQ_INT(claim(s, "q", T0, "schedule", "owner-1", &out), 1);
	T_EQ_INT(out.attempt, 1);
	T_EQ_STR(out.run_id, "q@2027-03-14T07:00:00Z");
	check_sql(path, queue_checks_after, 3);
	/* A running instance is neither queued again nor claimed again. */
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_queue(s, &c), 0);
	T_EQ_INT(store_commit(s), 0);
	T_EQ_INT(claim(s, "q", T0, "schedule", "owner-2", &out), 0);
	buf[0] = '\0';
	T_EQ_INT(store_runs_queued(s, collect_queued, buf), 0);
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
		T_EQ_INT(store_run_queue(s, &c), queued_cases[i].want);
	}
	T_EQ_INT(store_commit(s), 0);
	buf[0] = '\0';
	T_EQ_INT(store_runs_queued(s, collect_queued, buf), 0);
	T_EQ_STR(buf, "d@0/schedule/catch_up a@60/schedule/catch_up "
	    "b@60/manual/catch_up c@120/schedule/catch_up "
	    "e@180/reboot/catch_up");
	store_close(s);
}

/* An attempt from claim to end: what the rows say afterwards. */
struct end_case {
	const char	*name;
	int		 started;	/* store_attempt_started called */
	pid_t		 pid;
	int64_t		 started_ms;	/* -1: never started */
	int64_t		 lateness_ms;
	int64_t		 finished_ms;
	int		 exit_status;
	int		 signal;
	const char	*status;
	const char	*reason;
	const char	*outcome;
	const char	*error;
	const char	*attempt_row;	/* pid started finished lateness
					   duration exit signal outcome error */
	const char	*run_row;	/* status reason started finished exit
					   signal owner lease attempts */
};

static const struct end_case end_cases[] = {
	{ "exit 0", 1, 4242, NOW_MS + 10, 1510, NOW_MS + 2010, 0, -1,
	    "succeeded", "exit", "exit", NULL,
	    "4242 1805007601244 1805007603244 1510 2000 0 NULL exit NULL",
	    "succeeded exit 1805007601244 1805007603244 0 NULL NULL NULL 1" },
	{ "exit 3", 1, 77, NOW_MS, 0, NOW_MS + 5, 3, -1,
	    "failed", "exit", "exit", NULL,
	    "77 1805007601234 1805007601239 0 5 3 NULL exit NULL",
	    "failed exit 1805007601234 1805007601239 3 NULL NULL NULL 1" },
	{ "killed by signal 9", 1, 99, NOW_MS, 250, NOW_MS + 60000, -1, 9,
	    "failed", "signal", "signal", NULL,
	    "99 1805007601234 1805007661234 250 60000 NULL 9 signal NULL",
	    "failed signal 1805007601234 1805007661234 NULL 9 NULL NULL 1" },
	{ "spawn failure", 0, 0, -1, 20, NOW_MS + 20, -1, -1,
	    "failed", "spawn", "spawn",
	    "exec /bin/sh: No such file or directory",
	    "NULL NULL 1805007601254 20 NULL NULL NULL spawn "
	    "exec /bin/sh: No such file or directory",
	    "failed spawn NULL 1805007601254 NULL NULL NULL NULL 1" },
	{ "started, end without started_ms", 1, 5, -1, 7, NOW_MS + 30, 0,
	    -1, "succeeded", NULL, "exit", NULL,
	    "5 1805007601234 1805007601264 7 NULL 0 NULL exit NULL",
	    /* The run's start comes from store_attempt_started. */
	    "succeeded NULL 1805007601234 1805007601264 0 NULL NULL NULL 1" },
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
			    cl.attempt, ec->pid, ec->started_ms != -1 ?
			    ec->started_ms : NOW_MS, ec->lateness_ms), 0);
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
		e.lateness_ms = ec->lateness_ms;
		e.exit_status = ec->exit_status;
		e.signal = ec->signal;
		e.error = ec->error;
		T_EQ_INT(store_begin(s), 0);
		T_EQ_INT(store_attempt_end(s, &e), 0);
		T_EQ_INT(store_commit(s), 0);
		(void)snprintf(sql1, sizeof sql1, "SELECT " COL("pid")
		    " || ' ' || " COL("started_at") " || ' ' || "
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
		    "FROM runs WHERE id = %" PRId64, cl.rowid);
		c[0].sql = sql1;
		c[0].want = ec->attempt_row;
		c[1].sql = sql2;
		c[1].want = ec->run_row;
		c[2].sql = NULL;
		check_sql(path, c, 3);
		/* An ended instance cannot be claimed again. */
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

static const struct sql_check interrupt_checks[] = {
	{ "SELECT group_concat(job || '=' || status || '/' || "
	    COL("reason") " || '/' || " COL("owner") " || '/' || "
	    COL("lease_until") " || '/' || " COL("finished_at") ", ' ') "
	    "FROM (SELECT * FROM runs ORDER BY id)",
	    "a1=interrupted/daemon restarted/NULL/NULL/1805007700000 "
	    "a2=interrupted/daemon restarted/NULL/NULL/1805007700000 "
	    "b1=interrupted/daemon restarted/NULL/NULL/1805007700000 "
	    "done=succeeded/exit/NULL/NULL/1805007601234 "
	    "q=queued/max_running/NULL/NULL/NULL "
	    "stale=failed/NULL/owner-1/1805007660/NULL" },
};

static void
test_leases(void)
{
	struct store		*s;
	struct store_claimed	 cl;
	struct store_claim	 c;
	struct store_end	 e;
	char			 path[256];

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

	T_RUN("runs interrupted");
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_runs_interrupt(s, T0 * 1000 + 100000,
	    "daemon restarted"), 3);
	T_EQ_INT(store_commit(s), 0);
	check_sql(path, interrupt_checks, 1);
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_runs_interrupt(s, T0 * 1000 + 200000, "again"), 0);
	T_EQ_INT(store_commit(s), 0);
	/* An interrupted instance is not claimed again. */
	T_EQ_INT(claim(s, "a1", T0, "schedule", "owner-3", &cl), 0);
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

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_open();
	test_jobs();
	test_claim();
	test_queue();
	test_attempts();
	test_decisions();
	test_leases();
	test_meta();
	test_busy();
	cleanup();
	return t_done();
}

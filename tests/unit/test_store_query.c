/*
 * test_store_query.c -- unit tests of tickctl's read-only store queries:
 * opening (missing, garbage and schema-less files; a cleanly closed
 * database read without leaving -wal or -shm behind; reading beside an
 * open writer), history (order, decision ranges placed by their last
 * instant, job, status and since filters, limit), one instance with its
 * attempts (by run id and row id, output_tail when the column exists),
 * instances in flight, the job summary behind tickctl's states
 * (running, queued, blocked, last outcome, failures since the last
 * success, watch_since), a schema-2 database without the columns of
 * migration 3, stats (counts and nearest-rank percentiles on known data,
 * with and without a window), the counts behind metrics, and meta values;
 * batches (schema 8, rows written by SQL): shard rows are never
 * instances (history, in flight, the job summary behind list, status and
 * check, stats, metrics' counts), a page's shard counts, a batch's shards
 * by index with their checkpoints, and a shard found by its run id.
 *
 * The database is filled through the store's own API (store_open,
 * store_run_claim, store_attempt_started, store_attempt_end,
 * store_run_claim_id, store_run_skip, store_run_queue,
 * store_decision_add, store_job_put, store_meta_set), the way the daemon
 * fills it, from a table of instances.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"
#include "store_query.h"
#include "store_schema.h"

#include "t.h"

#define T0	INT64_C(1805007600)	/* 2027-03-14T07:00:00Z */
#define MS(s)	((int64_t)(s) * 1000)

static char	tmpdir[] = "/tmp/tickd-test-store-query.XXXXXX";

/*
 * One instance of the fixture: scheduled at T0 + at, its first attempt
 * started late by late ms and ran dur ms; outcome is what became of it.
 */
struct inst {
	const char	*job;
	int64_t		 at;
	const char	*outcome;	/* succeeded failed dead running skip
					   queued */
	int64_t		 late;
	int64_t		 dur;
	int		 exit_status;
	int		 sig;
};

static const struct inst fixture[] = {
	{ "a", 0, "succeeded", 10, 1000, 0, -1 },
	{ "a", 60, "succeeded", 20, 2000, 0, -1 },
	{ "a", 120, "failed", 30, 3000, 3, -1 },
	{ "a", 180, "dead", 40, 500, 2, -1 },	/* then a retry, exit 1 */
	{ "a", 240, "skip", 0, 0, -1, -1 },
	{ "a", 300, "running", 60, 0, -1, -1 },
	{ "a", 360, "skip", 0, 0, -1, -1 },
	{ "a", 420, "skip", 0, 0, -1, -1 },
	{ "a", 480, "skip", 0, 0, -1, -1 },
	{ "b", 30, "succeeded", 5, 100, 0, -1 },
	{ "b", 90, "failed", 15, 700, -1, 9 },
	{ "b", 150, "queued", 0, 0, -1, -1 },
};
#define NFIXTURE	(sizeof fixture / sizeof fixture[0])

/* The run id of job at T0 + at. */
static const char *
rid(const char *job, int64_t at, char *buf, size_t len)
{
	store_run_id(job, T0 + at, "schedule", buf, len);
	return buf;
}

/* A claim of job at T0 + at with a trigger. */
static void
claim_init(struct store_claim *c, const char *job, int64_t at,
    const char *trigger, int64_t now_ms)
{
	memset(c, 0, sizeof *c);
	c->job = job;
	c->scheduled_at = T0 + at;
	c->origin = "schedule";
	c->trigger = trigger;
	c->owner = "test:1";
	c->now_ms = now_ms;
	c->lease_until = T0 + 100000;
	c->reason = "overlap";
	c->detail = "the previous one is still running";
}

/* The end of attempt `attempt` of rowid. */
static int
end_attempt(struct store *s, int64_t rowid, int attempt, const char *status,
    const char *reason, const char *outcome, int64_t started, int64_t dur,
    int exit_status, int sig, int64_t retry_at)
{
	struct store_end e;

	memset(&e, 0, sizeof e);
	e.rowid = rowid;
	e.attempt = attempt;
	e.status = status;
	e.reason = reason;
	e.outcome = outcome;
	e.started_ms = started;
	e.finished_ms = started + dur;
	e.duration_ms = dur;
	e.lateness_ms = -1;
	e.exit_status = exit_status;
	e.signal = sig;
	e.error = NULL;
	e.retry_at = retry_at;
	e.detail = NULL;
	return store_attempt_end(s, &e);
}

/* Add one fixture instance through the store API; 0 or -1. */
static int
add_inst(struct store *s, const struct inst *in)
{
	struct store_claim	c;
	struct store_claimed	out;
	int64_t			start = MS(T0 + in->at) + in->late;
	int			ok = 1;

	claim_init(&c, in->job, in->at, "schedule", MS(T0 + in->at));
	if (store_begin(s) == -1)
		return -1;
	if (strcmp(in->outcome, "skip") == 0) {
		c.now_ms = MS(T0 + in->at) + 1;
		ok = store_run_skip(s, &c) == 1;
		goto commit;
	}
	if (strcmp(in->outcome, "queued") == 0) {
		ok = store_run_queue(s, &c) == 1;
		goto commit;
	}
	ok = store_run_claim(s, &c, &out) == 1 &&
	    store_attempt_started(s, out.rowid, out.attempt,
	    strcmp(in->outcome, "running") == 0 ? 4242 : 1000 + (int)in->at,
	    -1, start, in->late, NULL) == 0;
	if (!ok || strcmp(in->outcome, "running") == 0)
		goto commit;
	if (strcmp(in->outcome, "dead") == 0) {
		/* Attempt 1 fails and is retried 10 s later; the retry dies. */
		ok = end_attempt(s, out.rowid, 1, "retrying", "exit", "failed",
		    start, in->dur, in->exit_status, -1, start + 10000) == 0;
		claim_init(&c, in->job, in->at, "retry", start + 10000);
		ok = ok && store_run_claim_id(s, out.rowid, &c, &out) == 1 &&
		    store_attempt_started(s, out.rowid, out.attempt, 2000, -1,
		    start + 10000, 10000 + in->late, NULL) == 0 &&
		    end_attempt(s, out.rowid, 2, "dead", "exit", "failed",
		    start + 10000, 4000, 1, -1, -1) == 0;
		goto commit;
	}
	ok = end_attempt(s, out.rowid, out.attempt, in->outcome,
	    strcmp(in->outcome, "succeeded") == 0 ? NULL : in->sig > 0 ?
	    "signal" : "exit", in->outcome, start, in->dur, in->exit_status,
	    in->sig, -1) == 0;
commit:
	if (!ok) {
		(void)printf("  add %s@%lld: %s\n", in->job, (long long)in->at,
		    store_error(s));
		store_rollback(s);
		return -1;
	}
	return store_commit(s);
}

/* Build the fixture database at path; the writer (caller closes). */
static struct store *
build(const char *path)
{
	struct store_decision	d;
	struct store_job	j;
	struct store		*s;
	char			*cause = NULL;
	size_t			 i;

	if ((s = store_open(path, 0, &cause)) == NULL) {
		(void)printf("  store_open: %s\n", cause);
		free(cause);
		T_TRUE(0);
		return NULL;
	}
	for (i = 0; i < NFIXTURE; i++)
		T_EQ_INT(add_inst(s, &fixture[i]), 0);

	memset(&d, 0, sizeof d);
	d.job = "a";
	d.decision = "skipped";
	d.reason = "coalesced";
	d.first_at = T0 - 300;
	d.last_at = T0 - 60;
	d.count = 5;
	d.now_ms = MS(T0);
	d.run_rowid = -1;
	T_EQ_INT(store_decision_add(s, &d), 0);
	d.job = "b";
	d.reason = "misfire";
	d.first_at = T0 + 100;
	d.last_at = T0 + 200;
	d.count = 2;
	d.now_ms = MS(T0 + 200);
	T_EQ_INT(store_decision_add(s, &d), 0);
	/* Hook runs are decisions too, but not instances. */
	d.job = "a";
	d.decision = "on_failure";
	d.reason = "succeeded";
	d.first_at = d.last_at = T0 + 120;
	d.count = 1;
	T_EQ_INT(store_decision_add(s, &d), 0);

	memset(&j, 0, sizeof j);
	j.sched_hash = 0x1234;
	j.planned = T0 + 480;
	j.overdue_alerted = -1;
	j.watch_since = MS(T0 - 5);
	T_EQ_INT(store_job_put(s, "a", &j, MS(T0)), 0);
	j.paused = 1;
	j.planned = T0 + 150;
	j.watch_since = -1;
	T_EQ_INT(store_job_put(s, "b", &j, MS(T0)), 0);
	T_EQ_INT(store_meta_set(s, "since", "1805007600123"), 0);
	return s;
}

/* Whether path + suffix exists. */
static int
exists(const char *path, const char *suffix)
{
	struct stat	sb;
	char		p[512];

	(void)snprintf(p, sizeof p, "%s%s", path, suffix);
	return stat(p, &sb) == 0;
}

/* Open for reading, or NULL (reported). */
static struct store_query *
ropen(const char *path)
{
	struct store_query	*q;
	char			*cause = NULL;

	if ((q = store_query_open(path, &cause)) == NULL) {
		(void)printf("  store_query_open %s: %s\n", path, cause);
		free(cause);
		T_TRUE(0);
	}
	return q;
}

/* Open failures: the cause text, table-driven. */
static void
test_open_errors(void)
{
	static const struct {
		const char	*name;
		const char	*content;	/* NULL: none; "": sqlite */
		const char	*want;
	} cases[] = {
		{ "missing", NULL, "cannot open: No such file or directory" },
		{ "garbage", "this is not a database, not at all, no.\n",
		    "cannot read: file is not a database" },
		{ "empty sqlite", "", "cannot read: not a tickd database (no "
		    "schema)" },
	};
	struct store_query	*q;
	sqlite3			*db;
	FILE			*f;
	char			 path[256], *cause;
	size_t			 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		T_RUN(cases[i].name);
		(void)snprintf(path, sizeof path, "%s/err%zu.db", tmpdir, i);
		if (cases[i].content != NULL && cases[i].content[0] != '\0') {
			if ((f = fopen(path, "w")) != NULL) {
				(void)fputs(cases[i].content, f);
				(void)fclose(f);
			}
		} else if (cases[i].content != NULL) {
			db = NULL;
			(void)sqlite3_open(path, &db);
			(void)sqlite3_exec(db, "CREATE TABLE x (a)", NULL,
			    NULL, NULL);
			(void)sqlite3_close(db);
		}
		cause = NULL;
		q = store_query_open(path, &cause);
		T_TRUE(q == NULL);
		T_EQ_STR(cause, cases[i].want);
		free(cause);
		store_query_close(q);
	}
}

/* Expected history: run ids (or "a:coalesced" for ranges), in order. */
struct hist_case {
	const char	*name;
	const char	*job;
	int64_t		 since;		/* from T0; -9999: none */
	const char	*status;	/* comma-separated, or NULL */
	int64_t		 limit;
	const char	*want;		/* "a@480 ... a:coalesced" */
};

static const struct hist_case hist_cases[] = {
	{ "all, newest first", NULL, -9999, NULL, -1,
	    "a@480 a@420 a@360 a@300 a@240 b:misfire a@180 b@150 a@120 "
	    "b@90 a@60 b@30 a@0 a:coalesced" },
	{ "limit", NULL, -9999, NULL, 3, "a@480 a@420 a@360" },
	{ "job b", "b", -9999, NULL, -1, "b:misfire b@150 b@90 b@30" },
	{ "since", NULL, 150, NULL, -1,
	    "a@480 a@420 a@360 a@300 a@240 b:misfire a@180 b@150" },
	{ "status", NULL, -9999, "failed,dead", -1, "a@180 a@120 b@90" },
	{ "status of ranges", "a", -9999, "skipped", 2, "a@480 a@420" },
	{ "status matching nothing", NULL, -9999, "abandoned", -1, "" },
	{ "unknown job", "zz", -9999, NULL, -1, "" },
};

/* The history entries as "job@offset" / "job:reason" words. */
static void
hist_words(const struct store_query_run *v, size_t n, char *buf, size_t len)
{
	size_t	i, off = 0;
	int	k;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		if (v[i].is_decision)
			k = snprintf(buf + off, len - off, "%s%s:%s",
			    i > 0 ? " " : "", v[i].job, v[i].reason);
		else
			k = snprintf(buf + off, len - off, "%s%s@%lld",
			    i > 0 ? " " : "", v[i].job,
			    (long long)(v[i].scheduled_at - T0));
		if (k < 0)
			break;
		off += (size_t)k;
	}
}

static void
test_history(struct store_query *q)
{
	struct store_query_filter	 f;
	struct store_query_run		*v;
	char				 got[512], buf[64], list[64];
	char				*cause, *w, *save;
	size_t				 n, i;

	for (i = 0; i < sizeof hist_cases / sizeof hist_cases[0]; i++) {
		T_RUN(hist_cases[i].name);
		memset(&f, 0, sizeof f);
		f.job = hist_cases[i].job;
		f.since = hist_cases[i].since == -9999 ? -1 :
		    T0 + hist_cases[i].since;
		f.limit = hist_cases[i].limit;
		f.decisions = 1;
		if (hist_cases[i].status != NULL) {
			(void)snprintf(list, sizeof list, "%s",
			    hist_cases[i].status);
			save = NULL;
			for (w = strtok_r(list, ",", &save); w != NULL;
			    w = strtok_r(NULL, ",", &save))
				f.status[f.nstatus++] = w;
		}
		cause = NULL;
		v = NULL;
		n = 0;
		T_EQ_INT(store_query_history(q, &f, &v, &n, &cause), 0);
		if (cause != NULL)
			(void)printf("  %s\n", cause);
		free(cause);
		hist_words(v, n, got, sizeof got);
		T_EQ_STR(got, hist_cases[i].want);
		store_query_runs_free(v, n);
	}

	T_RUN("entry fields");
	memset(&f, 0, sizeof f);
	f.job = "a";
	f.since = -1;
	f.limit = -1;
	f.decisions = 1;
	cause = NULL;
	T_EQ_INT(store_query_history(q, &f, &v, &n, &cause), 0);
	free(cause);
	T_EQ_INT(n, 10);
	if (n != 10) {
		store_query_runs_free(v, n);
		return;
	}
	/* a@300: running, pid and start of its attempt. */
	T_EQ_STR(v[3].run_id, rid("a", 300, buf, sizeof buf));
	T_EQ_STR(v[3].status, "running");
	T_EQ_INT(v[3].pid, 4242);
	T_EQ_INT(v[3].lateness_ms, 60);
	T_EQ_INT(v[3].duration_ms, -1);
	T_EQ_INT(v[3].attempt_started_ms, MS(T0 + 300) + 60);
	/* a@240: skipped for overlap, with its detail. */
	T_EQ_STR(v[4].status, "skipped");
	T_EQ_STR(v[4].reason, "overlap");
	T_EQ_STR(v[4].detail, "the previous one is still running");
	T_EQ_INT(v[4].attempts, 0);
	T_EQ_INT(v[4].lateness_ms, -1);
	/* a@180: dead after a retry; lateness of the first start, duration
	 * and exit status of the last attempt. */
	T_EQ_STR(v[5].status, "dead");
	T_EQ_STR(v[5].trigger, "retry");
	T_EQ_INT(v[5].attempts, 2);
	T_EQ_INT(v[5].lateness_ms, 40);
	T_EQ_INT(v[5].duration_ms, 4000);
	T_EQ_INT(v[5].exit_status, 1);
	T_EQ_INT(v[5].signal, -1);
	T_EQ_INT(v[5].started_ms, MS(T0 + 180) + 40);
	T_EQ_INT(v[5].finished_ms, MS(T0 + 180) + 40 + 10000 + 4000);
	/* The range. */
	T_EQ_INT(v[9].is_decision, 1);
	T_TRUE(v[9].run_id == NULL);
	T_EQ_STR(v[9].status, "skipped");
	T_EQ_TIME(v[9].first_at, T0 - 300);
	T_EQ_TIME(v[9].last_at, T0 - 60);
	T_EQ_INT(v[9].count, 5);
	T_EQ_INT(v[9].scheduled_at, -1);
	store_query_runs_free(v, n);
}

static void
test_show(struct store_query *q, const char *path)
{
	struct store_query_attempt	*a;
	struct store_query_run		*r;
	char				 buf[64], id[32], *cause = NULL;
	size_t				 na;
	int64_t				 rowid;

	T_RUN("show by run id");
	T_EQ_INT(store_query_has_output(q), 1);
	T_EQ_INT(store_query_run(q, rid("a", 180, buf, sizeof buf), &r, &a,
	    &na, &cause), 1);
	if (r == NULL)
		return;
	T_EQ_STR(r->run_id, buf);
	T_EQ_STR(r->status, "dead");
	T_EQ_INT(na, 2);
	if (na == 2) {
		T_EQ_INT(a[0].attempt, 1);
		T_EQ_STR(a[0].trigger, "schedule");
		T_EQ_INT(a[0].pid, 1180);
		T_EQ_INT(a[0].exit_status, 2);
		T_EQ_INT(a[0].duration_ms, 500);
		T_EQ_INT(a[0].lateness_ms, 40);
		T_EQ_STR(a[0].outcome, "failed");
		T_EQ_INT(a[1].attempt, 2);
		T_EQ_STR(a[1].trigger, "retry");
		T_EQ_INT(a[1].pid, 2000);
		T_EQ_INT(a[1].exit_status, 1);
		T_EQ_INT(a[1].duration_ms, 4000);
		T_EQ_INT(a[1].lateness_ms, 10040);
		T_TRUE(a[1].output_tail == NULL);
	}
	rowid = r->rowid;
	store_query_runs_free(r, 1);
	store_query_attempts_free(a, na);

	T_RUN("show by row id");
	(void)snprintf(id, sizeof id, "%lld", (long long)rowid);
	T_EQ_INT(store_query_run(q, id, &r, &a, &na, &cause), 1);
	if (r != NULL)
		T_EQ_STR(r->run_id, buf);
	store_query_runs_free(r, 1);
	store_query_attempts_free(a, na);

	T_RUN("show unknown");
	T_EQ_INT(store_query_run(q, "a@2000-01-01T00:00:00Z", &r, &a, &na,
	    &cause), 0);
	T_TRUE(r == NULL);
	T_EQ_INT(store_query_run(q, "99999", &r, &a, &na, &cause), 0);

	T_RUN("output_tail, bytes as stored");
	{
		sqlite3			*db = NULL;
		struct store_query	*q2;
		char			 sql[256];

		(void)snprintf(sql, sizeof sql, "UPDATE attempts SET "
		    "output_tail = X'6869000a1b5b6d' WHERE run = %lld AND "
		    "attempt = 2", (long long)rowid);
		T_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
		T_EQ_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		(void)sqlite3_close(db);
		if ((q2 = ropen(path)) == NULL)
			return;
		T_EQ_INT(store_query_run(q2, buf, &r, &a, &na, &cause), 1);
		T_EQ_INT(na, 2);
		if (na == 2) {
			T_TRUE(a[0].output_tail == NULL);
			T_EQ_INT(a[1].output_len, 7);
			T_TRUE(a[1].output_tail != NULL &&
			    memcmp(a[1].output_tail, "hi\0\n\033[m", 7) == 0);
		}
		store_query_runs_free(r, 1);
		store_query_attempts_free(a, na);
		store_query_close(q2);
	}
}

/*
 * A manual run asked for 700 ms into a second: its instant (its run id)
 * is that second, its lateness the 3 ms its first attempt took to start
 * after the request, as the daemon recorded it; not 703.  Its retry
 * counts as recorded too.  The same figure in history, show and stats.
 */
static void
test_manual_lateness(void)
{
	struct store_query_filter	 f;
	struct store_query_attempt	*a = NULL;
	struct store_query_run		*r = NULL, *v = NULL;
	struct store_query_stats	*st = NULL;
	struct store_query		*q;
	struct store_claim		 c;
	struct store_claimed		 out;
	struct store			*s;
	char				 path[256], id[64], *cause = NULL;
	int64_t				 req = MS(T0 + 600) + 700;
	size_t				 n = 0, na = 0, nst = 0;

	T_RUN("a manual run's lateness is its first attempt's");
	(void)snprintf(path, sizeof path, "%s/manual.db", tmpdir);
	if ((s = store_open(path, 0, &cause)) == NULL) {
		(void)printf("  store_open: %s\n", cause);
		free(cause);
		T_TRUE(0);
		return;
	}
	claim_init(&c, "m", 600, "manual", req);
	c.origin = "manual";
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_claim(s, &c, &out), 1);
	T_EQ_INT(store_attempt_started(s, out.rowid, out.attempt, 77, -1,
	    req + 3, 3, NULL), 0);
	T_EQ_INT(end_attempt(s, out.rowid, 1, "retrying", "exit", "failed",
	    req + 3, 10, 1, -1, req + 2000), 0);
	T_EQ_INT(store_commit(s), 0);
	claim_init(&c, "m", 600, "retry", req + 2000);
	c.origin = "manual";
	T_EQ_INT(store_begin(s), 0);
	T_EQ_INT(store_run_claim_id(s, out.rowid, &c, &out), 1);
	T_EQ_INT(store_attempt_started(s, out.rowid, out.attempt, 78, -1,
	    req + 2004, 2704, NULL), 0);
	T_EQ_INT(end_attempt(s, out.rowid, 2, "succeeded", NULL, "succeeded",
	    req + 2004, 10, 0, -1, -1), 0);
	T_EQ_INT(store_commit(s), 0);
	store_close(s);
	if ((q = ropen(path)) == NULL)
		return;
	store_run_id("m", T0 + 600, "manual", id, sizeof id);
	T_EQ_INT(store_query_run(q, id, &r, &a, &na, &cause), 1);
	if (r != NULL)
		T_EQ_INT(r->lateness_ms, 3);
	T_EQ_INT(na, 2);
	if (na == 2) {
		T_EQ_INT(a[0].lateness_ms, 3);
		T_EQ_INT(a[1].lateness_ms, 2704);
	}
	memset(&f, 0, sizeof f);
	f.job = "m";
	f.since = -1;
	f.limit = -1;
	T_EQ_INT(store_query_history(q, &f, &v, &n, &cause), 0);
	T_EQ_INT(n, 1);
	if (n == 1)
		T_EQ_INT(v[0].lateness_ms, 3);
	T_EQ_INT(store_query_stats(q, "m", -1, &st, &nst, &cause), 0);
	T_EQ_INT(nst, 1);
	if (nst == 1) {
		T_EQ_INT(st[0].nlateness, 1);
		T_EQ_INT(store_query_percentile(st[0].lateness,
		    st[0].nlateness, 100), 3);
	}
	free(cause);
	store_query_stats_free(st, nst);
	store_query_runs_free(v, n);
	store_query_runs_free(r, r != NULL ? 1 : 0);
	store_query_attempts_free(a, na);
	store_query_close(q);
}

/*
 * A schema-2 database (before output tails and watch_since), written
 * with the migrations' own SQL: read without those columns.
 */
static void
test_schema2(void)
{
	struct store_query_attempt	*a = NULL;
	struct store_query_run		*r = NULL;
	struct store_query_job		 j;
	struct store_query		*q;
	sqlite3				*db = NULL;
	char				 path[256], *cause = NULL;
	size_t				 na = 0, i;

	T_RUN("schema 2");
	(void)snprintf(path, sizeof path, "%s/v2.db", tmpdir);
	T_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
	for (i = 0; i < 2 && i < store_schema_steps; i++)
		T_EQ_INT(sqlite3_exec(db, store_schema[i], NULL, NULL, NULL),
		    SQLITE_OK);
	T_EQ_INT(sqlite3_exec(db, "PRAGMA user_version = 2;"
	    "INSERT INTO jobs (job, sched_hash, planned, updated_at) VALUES "
	    "('a', '0000000000000001', 10, 0);"
	    "INSERT INTO runs (id, run_id, job, scheduled_at, origin, trigger, "
	    "status, attempts, created_at, started_at, finished_at, "
	    "exit_status) VALUES (7, 'a@x', 'a', 10, 'schedule', 'schedule', "
	    "'succeeded', 1, 10000, 10005, 10105, 0);"
	    "INSERT INTO attempts (run, attempt, trigger, pid, started_at, "
	    "finished_at, lateness_ms, duration_ms, exit_status, outcome) "
	    "VALUES (7, 1, 'schedule', 99, 10005, 10105, 5, 100, 0, "
	    "'succeeded')", NULL, NULL, NULL), SQLITE_OK);
	(void)sqlite3_close(db);
	if ((q = ropen(path)) == NULL)
		return;
	T_EQ_INT(store_query_version(q), 2);
	T_EQ_INT(store_query_has_output(q), 0);
	T_EQ_INT(store_query_run(q, "7", &r, &a, &na, &cause), 1);
	T_EQ_INT(na, 1);
	if (na == 1) {
		T_TRUE(a[0].output_tail == NULL);
		T_EQ_INT(a[0].duration_ms, 100);
	}
	if (r != NULL)
		T_EQ_INT(r->lateness_ms, 5);
	store_query_runs_free(r, 1);
	store_query_attempts_free(a, na);
	T_EQ_INT(store_query_job(q, "a", &j, &cause), 0);
	T_EQ_INT(j.known, 1);
	T_EQ_INT(j.watch_since, -1);
	T_EQ_INT(j.last_success_ms, 10105);
	store_query_job_clear(&j);
	T_EQ_INT(store_query_has_batch(q), 0);
	T_EQ_INT(store_query_run(q, "a@x", &r, &a, &na, &cause), 1);
	if (r != NULL) {
		T_EQ_INT(r->batch, 0);
		T_EQ_INT(r->parent, -1);
		T_EQ_INT(r->shard, -1);
	}
	store_query_runs_free(r, 1);
	store_query_attempts_free(a, na);
	store_query_close(q);
}

/*
 * Batches, in a database of their own: job x has a plain run (succeeded
 * at T0), a batch that succeeded (its 16 shards too) and a running batch
 * whose 16 shards are in every status; their shards ended after both
 * instances, and failed ones after the last success.  Job y has one
 * failed batch (shards 3 and 7).
 */
static const char batch_sql[] =
    "INSERT INTO runs (id, run_id, job, scheduled_at, origin, trigger, "
    "status, reason, attempts, created_at, started_at, finished_at, "
    "exit_status, shards) VALUES "
    "(1, 'x@p', 'x', 100, 'schedule', 'schedule', 'succeeded', NULL, 1, "
    "100000, 100000, 101000, 0, NULL), "
    "(10, 'x@b0', 'x', 200, 'schedule', 'schedule', 'succeeded', 'shards', "
    "0, 200000, 200000, 300000, NULL, 'list'), "
    "(30, 'x@b1', 'x', 400, 'schedule', 'schedule', 'running', NULL, 0, "
    "400000, 400000, NULL, NULL, 'list'), "
    "(50, 'y@b', 'y', 400, 'schedule', 'schedule', 'failed', 'shards', 0, "
    "400000, 400000, 500000, NULL, 'list');"
    /* x@b0's 16 shards, all succeeded, the last at 900 s. */
    "WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i "
    "WHERE n < 15) INSERT INTO runs (id, run_id, job, scheduled_at, origin, "
    "trigger, status, attempts, created_at, started_at, finished_at, "
    "exit_status, parent, shard, shards) SELECT 11 + n, 'x@b0#' || n, 'x', "
    "200, 'schedule#' || n, 'schedule', 'succeeded', 1, 200000, 200000, "
    "900000 + n, 0, 10, n, 'p' || n FROM i;"
    /* x@b1's: 5 succeeded, 5 failed, 2 running, 4 waiting. */
    "WITH s(n, st) AS (VALUES (0, 'succeeded'), (1, 'succeeded'), "
    "(2, 'succeeded'), (3, 'failed'), (4, 'succeeded'), (5, 'dead'), "
    "(6, 'abandoned'), (7, 'terminated'), (8, 'failed'), (9, 'succeeded'), "
    "(10, 'running'), (11, 'running'), (12, 'queued'), (13, 'retrying'), "
    "(14, 'interrupted'), (15, 'pending')) INSERT INTO runs (id, run_id, "
    "job, scheduled_at, origin, trigger, status, attempts, created_at, "
    "started_at, finished_at, exit_status, parent, shard, shards) SELECT "
    "31 + n, 'x@b1#' || n, 'x', 400, 'schedule#' || n, 'schedule', st, "
    "1 + (n = 3), 400000, 400000, CASE WHEN st IN ('running', 'queued', "
    "'retrying', 'interrupted', 'pending') THEN NULL ELSE 950000 + n END, "
    "CASE WHEN st = 'succeeded' THEN 0 WHEN st = 'failed' THEN 75 END, 30, "
    "n, 'p' || n FROM s;"
    /* y@b's: 3 and 7 failed. */
    "WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i "
    "WHERE n < 15) INSERT INTO runs (id, run_id, job, scheduled_at, origin, "
    "trigger, status, reason, attempts, created_at, finished_at, "
    "exit_status, parent, shard, shards) SELECT 51 + n, 'y@b#' || n, 'y', "
    "400, 'schedule#' || n, 'schedule', CASE WHEN n IN (3, 7) THEN "
    "'failed' ELSE 'succeeded' END, CASE WHEN n IN (3, 7) THEN 'exit' END, "
    "1, 400000, 990000, CASE WHEN n IN (3, 7) THEN 1 ELSE 0 END, 50, n, "
    "'p' || n FROM i;"
    "UPDATE runs SET checkpoint = X'637572736F723D3132000A6E657874' "
    "WHERE id = 34;"
    "INSERT INTO attempts (run, attempt, trigger, pid, started_at) VALUES "
    "(41, 1, 'schedule', 4711, 400000);"
    "UPDATE runs SET owner = 'n1:99', attempts = 1 WHERE id = 41;";

static void
test_batches(void)
{
	static const struct {
		int		 what;
		const char	*want;
	} counts[] = {
		{ STORE_QUERY_BY_STATUS, "x/running=1 x/succeeded=2 y/failed=1" },
		{ STORE_QUERY_FAILED, "y/shards=1" },
		{ STORE_QUERY_SKIPPED, "" },
		{ STORE_QUERY_SHARDS, "x/abandoned=1 x/dead=1 x/failed=2 "
		    "x/interrupted=1 x/pending=1 x/queued=1 x/retrying=1 "
		    "x/running=2 x/succeeded=21 x/terminated=1 y/failed=2 "
		    "y/succeeded=14" },
	};
	static const struct {
		const char			*run_id;
		int				 batch;
		struct store_query_shards	 c;
	} pages[] = {
		{ "x@b1", 1, { 16, 5, 5, 2, 4 } },
		{ "x@b0", 1, { 16, 16, 0, 0, 0 } },
		{ "x@p", 0, { 0, 0, 0, 0, 0 } },
	};
	struct store_query_filter	 f;
	struct store_query_attempt	*a = NULL;
	struct store_query_shard	*sh = NULL;
	struct store_query_count	*cv = NULL;
	struct store_query_stats	*sv = NULL;
	struct store_query_run		*v = NULL, *r = NULL;
	struct store_query_job		 j;
	struct store_query		*q;
	struct store			*s;
	sqlite3				*db = NULL;
	char				 path[256], got[512], *cause = NULL;
	size_t				 n = 0, na = 0, i, k, off;

	T_RUN("batches: a database of shards");
	(void)snprintf(path, sizeof path, "%s/batch.db", tmpdir);
	if ((s = store_open(path, 0, &cause)) == NULL) {
		(void)printf("  store_open: %s\n", cause);
		free(cause);
		T_TRUE(0);
		return;
	}
	store_close(s);
	T_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
	T_EQ_INT(sqlite3_exec(db, batch_sql, NULL, NULL, NULL), SQLITE_OK);
	(void)sqlite3_close(db);
	if ((q = ropen(path)) == NULL)
		return;
	T_EQ_INT(store_query_has_batch(q), 1);

	T_RUN("batches: history has instances, a page's shard counts");
	memset(&f, 0, sizeof f);
	f.job = "x";
	f.since = -1;
	f.limit = -1;
	f.decisions = 1;
	T_EQ_INT(store_query_history(q, &f, &v, &n, &cause), 0);
	T_EQ_INT(store_query_shard_counts(q, v, n, &cause), 0);
	T_EQ_INT(n, sizeof pages / sizeof pages[0]);
	for (i = 0; i < n && i < sizeof pages / sizeof pages[0]; i++) {
		T_EQ_STR(v[i].run_id, pages[i].run_id);
		T_EQ_INT(v[i].batch, pages[i].batch);
		T_EQ_INT(v[i].parent, -1);
		T_EQ_INT(v[i].shards.total, pages[i].c.total);
		T_EQ_INT(v[i].shards.succeeded, pages[i].c.succeeded);
		T_EQ_INT(v[i].shards.failed, pages[i].c.failed);
		T_EQ_INT(v[i].shards.running, pages[i].c.running);
		T_EQ_INT(v[i].shards.waiting, pages[i].c.waiting);
	}
	store_query_runs_free(v, n);
	f.job = NULL;
	f.status[f.nstatus++] = "succeeded";
	T_EQ_INT(store_query_history(q, &f, &v, &n, &cause), 0);
	T_EQ_INT(n, 2);
	store_query_runs_free(v, n);

	T_RUN("batches: in flight is the instance");
	T_EQ_INT(store_query_active(q, "x", &v, &n, &cause), 0);
	T_EQ_INT(n, 1);
	if (n == 1) {
		T_EQ_STR(v[0].run_id, "x@b1");
		T_EQ_INT(v[0].batch, 1);
	}
	store_query_runs_free(v, n);

	T_RUN("batches: the job summary (list, status, check)");
	T_EQ_INT(store_query_job(q, "x", &j, &cause), 0);
	T_EQ_INT(j.nrunning, 1);
	T_EQ_INT(j.nwaiting, 0);
	T_EQ_STR(j.last_status, "succeeded");
	T_EQ_STR(j.last_run_id, "x@b0");
	T_EQ_INT(j.last_ms, 300000);
	T_EQ_INT(j.last_success_ms, 300000);
	T_EQ_INT(j.last_end_ms, 300000);
	T_EQ_INT(j.nfailed, 0);
	T_EQ_INT(j.first_ms, 100000);
	store_query_job_clear(&j);
	T_EQ_INT(store_query_job(q, "y", &j, &cause), 0);
	T_EQ_INT(j.nfailed, 1);
	T_EQ_INT(j.last_success_ms, -1);
	T_EQ_STR(j.last_status, "failed");
	store_query_job_clear(&j);

	T_RUN("batches: stats count instances");
	T_EQ_INT(store_query_stats(q, NULL, -1, &sv, &n, &cause), 0);
	T_EQ_INT(n, 2);
	if (n == 2) {
		T_EQ_STR(sv[0].job, "x");
		T_EQ_INT(sv[0].instances, 3);
		T_EQ_INT(sv[0].succeeded, 2);
		T_EQ_INT(sv[0].failed, 0);
		T_EQ_INT(sv[0].last_success_ms, 300000);
		T_EQ_INT(sv[1].instances, 1);
		T_EQ_INT(sv[1].failed, 1);
	}
	store_query_stats_free(sv, n);

	T_RUN("batches: metrics' counts");
	for (i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		T_EQ_INT(store_query_counts(q, counts[i].what, &cv, &n,
		    &cause), 0);
		got[0] = '\0';
		for (k = 0, off = 0; k < n; k++)
			off += (size_t)snprintf(got + off, sizeof got - off,
			    "%s%s/%s=%lld", k > 0 ? " " : "", cv[k].job,
			    cv[k].key, (long long)cv[k].n);
		T_EQ_STR(got, counts[i].want);
		store_query_counts_free(cv, n);
	}

	T_RUN("batches: a batch's shards, by index");
	T_EQ_INT(store_query_shards(q, 30, &sh, &n, &cause), 0);
	T_EQ_INT(n, 16);
	for (i = 0; i < n; i++)
		T_EQ_INT(sh[i].index, (int)i);
	if (n == 16) {
		T_EQ_STR(sh[3].run_id, "x@b1#3");
		T_EQ_STR(sh[3].param, "p3");
		T_EQ_STR(sh[3].status, "failed");
		T_EQ_INT(sh[3].attempts, 2);
		T_EQ_INT(sh[3].exit_status, 75);
		T_EQ_INT(sh[3].checkpoint_len, 15);
		T_TRUE(sh[3].checkpoint != NULL &&
		    memcmp(sh[3].checkpoint, "cursor=12\0\nnext", 15) == 0);
		T_TRUE(sh[0].checkpoint == NULL);
		T_EQ_STR(sh[10].status, "running");
		T_EQ_INT(sh[10].pid, 4711);
		T_EQ_STR(sh[10].owner, "n1:99");
		T_EQ_INT(sh[11].pid, -1);
		T_EQ_INT(sh[12].exit_status, -1);
	}
	store_query_shards_free(sh, n);
	T_EQ_INT(store_query_shards(q, 1, &sh, &n, &cause), 0);
	T_EQ_INT(n, 0);
	store_query_shards_free(sh, n);

	T_RUN("batches: a shard by its run id");
	T_EQ_INT(store_query_run(q, "x@b1#3", &r, &a, &na, &cause), 1);
	if (r != NULL) {
		T_EQ_INT(r->batch, 0);
		T_EQ_INT(r->parent, 30);
		T_EQ_INT(r->shard, 3);
		T_EQ_STR(r->parent_run_id, "x@b1");
		T_EQ_STR(r->status, "failed");
	}
	store_query_runs_free(r, 1);
	store_query_attempts_free(a, na);
	T_EQ_INT(store_query_run(q, "x@b1", &r, &a, &na, &cause), 1);
	if (r != NULL) {
		T_EQ_INT(r->batch, 1);
		T_EQ_INT(r->shard, -1);
		T_TRUE(r->parent_run_id == NULL);
		T_EQ_INT(store_query_shard_counts(q, r, 1, &cause), 0);
		T_EQ_INT(r->shards.failed, 5);
	}
	store_query_runs_free(r, 1);
	store_query_attempts_free(a, na);
	store_query_close(q);
}

static void
test_active(struct store_query *q)
{
	struct store_query_run	*v = NULL;
	char			*cause = NULL, buf[64];
	size_t			 n = 0;

	T_RUN("in flight: running first, then waiting");
	T_EQ_INT(store_query_active(q, NULL, &v, &n, &cause), 0);
	T_EQ_INT(n, 2);
	if (n == 2) {
		T_EQ_STR(v[0].run_id, rid("a", 300, buf, sizeof buf));
		T_EQ_STR(v[0].status, "running");
		T_EQ_INT(v[0].pid, 4242);
		T_EQ_STR(v[1].run_id, rid("b", 150, buf, sizeof buf));
		T_EQ_STR(v[1].status, "queued");
	}
	store_query_runs_free(v, n);
	T_RUN("in flight: one job");
	T_EQ_INT(store_query_active(q, "b", &v, &n, &cause), 0);
	T_EQ_INT(n, 1);
	store_query_runs_free(v, n);
}

/* The job summary: a table of jobs and what tickctl derives from it. */
static void
test_job(struct store_query *q)
{
	static const struct {
		const char	*job;
		int		 known, paused;
		int64_t		 planned, nrunning, nwaiting, skips;
		int64_t		 skip_since;
		const char	*last_status, *last_reason, *ran_status;
		int64_t		 last_success, nfailed;
	} cases[] = {
		{ "a", 1, 0, T0 + 480, 1, 0, 3, T0 + 360, "skipped",
		    "overlap", "dead", MS(T0 + 60) + 20 + 2000, 2 },
		{ "b", 1, 1, T0 + 150, 0, 1, 0, -1, "failed", "signal",
		    "failed", MS(T0 + 30) + 5 + 100, 1 },
		{ "zz", 0, 0, -1, 0, 0, 0, -1, NULL, NULL, NULL, -1, 0 },
	};
	struct store_query_job	 j;
	char			*cause = NULL, buf[64];
	size_t			 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		T_RUN(cases[i].job);
		T_EQ_INT(store_query_job(q, cases[i].job, &j, &cause), 0);
		T_EQ_INT(j.known, cases[i].known);
		T_EQ_INT(j.paused, cases[i].paused);
		T_EQ_INT(j.planned, cases[i].planned);
		T_EQ_INT(j.nrunning, cases[i].nrunning);
		T_EQ_INT(j.nwaiting, cases[i].nwaiting);
		T_EQ_INT(j.skips, cases[i].skips);
		T_EQ_INT(j.skip_since, cases[i].skip_since);
		T_EQ_INT(j.last_success_ms, cases[i].last_success);
		T_EQ_INT(j.nfailed, cases[i].nfailed);
		if (cases[i].last_status == NULL) {
			T_TRUE(j.last_status == NULL);
			T_TRUE(j.ran_status == NULL);
			T_EQ_INT(j.first_ms, -1);
		} else {
			T_EQ_STR(j.last_status, cases[i].last_status);
			T_EQ_STR(j.last_reason, cases[i].last_reason);
			T_EQ_STR(j.ran_status, cases[i].ran_status);
		}
		if (strcmp(cases[i].job, "a") == 0) {
			T_EQ_INT(j.watch_since, MS(T0 - 5));
			T_EQ_STR(j.sched_hash, "0000000000001234");
			T_EQ_STR(j.last_run_id, rid("a", 480, buf,
			    sizeof buf));
			T_EQ_STR(j.ran_run_id, rid("a", 180, buf,
			    sizeof buf));
			T_EQ_INT(j.first_ms, MS(T0));
		}
		store_query_job_clear(&j);
	}
}

static void
test_percentile(void)
{
	static const int64_t	four[] = { 10, 20, 30, 40 };
	static const int64_t	twenty[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
				    11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	static const struct {
		const int64_t	*v;
		size_t		 n;
		int		 p;
		int64_t		 want;
	} cases[] = {
		{ four, 0, 50, -1 },
		{ four, 1, 50, 10 },
		{ four, 1, 99, 10 },
		{ four, 4, 1, 10 },
		{ four, 4, 25, 10 },
		{ four, 4, 26, 20 },
		{ four, 4, 50, 20 },
		{ four, 4, 51, 30 },
		{ four, 4, 75, 30 },
		{ four, 4, 95, 40 },
		{ four, 4, 100, 40 },
		{ twenty, 20, 5, 1 },
		{ twenty, 20, 50, 10 },
		{ twenty, 20, 90, 18 },
		{ twenty, 20, 95, 19 },
		{ twenty, 20, 96, 20 },
		{ twenty, 20, 99, 20 },
	};
	size_t i;

	T_RUN("nearest-rank percentiles");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		T_EQ_INT(store_query_percentile(cases[i].v, cases[i].n,
		    cases[i].p), cases[i].want);
}

static void
test_stats(struct store_query *q)
{
	static const struct {
		const char	*name;
		const char	*job;
		int64_t		 since;		/* or -9999 */
		const char	*want;		/* per job, as below */
	} cases[] = {
		{ "all", NULL, -9999,
		    "a i9 r5 s2 f2 k9 L10,20,30,40,60 D1000,2000,3000,4000; "
		    "b i3 r2 s1 f1 k2 L5,15 D100,700" },
		{ "one job", "a", -9999,
		    "a i9 r5 s2 f2 k9 L10,20,30,40,60 D1000,2000,3000,4000" },
		{ "since", NULL, 100,
		    "a i7 r3 s0 f2 k4 L30,40,60 D3000,4000; b i1 r0 s0 f0 k2 "
		    "L D" },
		{ "none", "zz", -9999, "" },
	};
	struct store_query_stats	*v = NULL;
	char				 got[512], *cause = NULL;
	size_t				 n = 0, i, k, m, off;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		T_RUN(cases[i].name);
		T_EQ_INT(store_query_stats(q, cases[i].job,
		    cases[i].since == -9999 ? -1 : T0 + cases[i].since, &v,
		    &n, &cause), 0);
		got[0] = '\0';
		off = 0;
		for (k = 0; k < n; k++) {
			off += (size_t)snprintf(got + off, sizeof got - off,
			    "%s%s i%lld r%lld s%lld f%lld k%lld L",
			    k > 0 ? "; " : "", v[k].job,
			    (long long)v[k].instances, (long long)v[k].runs,
			    (long long)v[k].succeeded, (long long)v[k].failed,
			    (long long)v[k].skipped);
			for (m = 0; m < v[k].nlateness; m++)
				off += (size_t)snprintf(got + off, sizeof got -
				    off, "%s%lld", m > 0 ? "," : "",
				    (long long)v[k].lateness[m]);
			off += (size_t)snprintf(got + off, sizeof got - off,
			    " D");
			for (m = 0; m < v[k].nduration; m++)
				off += (size_t)snprintf(got + off, sizeof got -
				    off, "%s%lld", m > 0 ? "," : "",
				    (long long)v[k].duration[m]);
		}
		T_EQ_STR(got, cases[i].want);
		if (i == 0 && n == 2) {
			/* The percentiles tickctl stats prints for a. */
			T_EQ_INT(store_query_percentile(v[0].lateness,
			    v[0].nlateness, 50), 30);
			T_EQ_INT(store_query_percentile(v[0].lateness,
			    v[0].nlateness, 95), 60);
			T_EQ_INT(store_query_percentile(v[0].duration,
			    v[0].nduration, 50), 2000);
			T_EQ_INT(store_query_percentile(v[0].duration,
			    v[0].nduration, 95), 4000);
			T_EQ_INT(v[0].last_success_ms, MS(T0 + 60) + 2020);
		}
		store_query_stats_free(v, n);
		v = NULL;
		n = 0;
	}
}

static void
test_counts(struct store_query *q)
{
	static const struct {
		int		 what;
		const char	*want;
	} cases[] = {
		{ 0, "a/dead=1 a/failed=1 a/running=1 a/skipped=4 "
		    "a/succeeded=2 b/failed=1 b/queued=1 b/succeeded=1" },
		{ 1, "a/coalesced=5 a/overlap=4 b/misfire=2" },
	};
	struct store_query_count	*v = NULL;
	char				 got[512], *cause = NULL;
	size_t				 n = 0, i, k, off;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		T_RUN(cases[i].what == 0 ? "counts by status" :
		    "skips by reason");
		T_EQ_INT(store_query_counts(q, cases[i].what, &v, &n,
		    &cause), 0);
		got[0] = '\0';
		for (off = 0, k = 0; k < n; k++)
			off += (size_t)snprintf(got + off, sizeof got - off,
			    "%s%s/%s=%lld", k > 0 ? " " : "", v[k].job,
			    v[k].key, (long long)v[k].n);
		T_EQ_STR(got, cases[i].want);
		store_query_counts_free(v, n);
		v = NULL;
		n = 0;
	}
}

static void
test_meta(struct store_query *q)
{
	char *value = NULL, *cause = NULL;

	T_RUN("meta");
	T_EQ_INT(store_query_meta(q, "since", &value, &cause), 1);
	T_EQ_STR(value, "1805007600123");
	free(value);
	T_EQ_INT(store_query_meta(q, "pid", &value, &cause), 0);
	T_TRUE(value == NULL);
}

int
main(void)
{
	struct store_query_filter	 f;
	struct store_query_run		*v = NULL;
	struct store_query		*q;
	struct store			*s;
	char				 path[256], *cause = NULL;
	size_t				 n = 0;

	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_open_errors();
	test_percentile();
	test_schema2();
	test_batches();
	test_manual_lateness();

	(void)snprintf(path, sizeof path, "%s/fixture.db", tmpdir);
	if ((s = build(path)) == NULL)
		return t_done();

	T_RUN("reading beside the writer");
	if ((q = ropen(path)) != NULL) {
		T_EQ_INT(store_query_version(q), STORE_SCHEMA_VERSION);
		memset(&f, 0, sizeof f);
		f.since = -1;
		f.limit = -1;
		T_EQ_INT(store_query_history(q, &f, &v, &n, &cause), 0);
		T_EQ_INT(n, NFIXTURE);
		store_query_runs_free(v, n);
		/* A row written now is seen by the next query. */
		{
			struct inst more = { "c", 600, "succeeded", 1, 1, 0,
			    -1 };

			T_EQ_INT(add_inst(s, &more), 0);
		}
		T_EQ_INT(store_query_history(q, &f, &v, &n, &cause), 0);
		T_EQ_INT(n, NFIXTURE + 1);
		if (n > 0)
			T_EQ_STR(v[0].job, "c");
		store_query_runs_free(v, n);
		store_query_close(q);
	}
	/* Back to the fixture proper, then a clean close (no -wal). */
	{
		sqlite3 *db = NULL;

		T_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
		T_EQ_INT(sqlite3_exec(db, "DELETE FROM attempts WHERE run IN "
		    "(SELECT id FROM runs WHERE job = 'c'); DELETE FROM runs "
		    "WHERE job = 'c'", NULL, NULL, NULL), SQLITE_OK);
		(void)sqlite3_close(db);
	}
	store_close(s);

	T_RUN("a cleanly closed database leaves no -wal or -shm");
	T_EQ_INT(exists(path, "-wal"), 0);
	if ((q = ropen(path)) == NULL)
		return t_done();
	test_history(q);
	test_active(q);
	test_job(q);
	test_stats(q);
	test_counts(q);
	test_meta(q);
	store_query_close(q);
	T_RUN("a cleanly closed database leaves no -wal or -shm");
	T_EQ_INT(exists(path, "-wal"), 0);
	T_EQ_INT(exists(path, "-shm"), 0);
	if ((q = ropen(path)) != NULL) {
		test_show(q, path);
		store_query_close(q);
	}

	(void)snprintf(path, sizeof path, "rm -rf %s", tmpdir);
	if (system(path) != 0)
		(void)printf("could not remove %s\n", tmpdir);
	return t_done();
}

/*
 * bench_store.c -- database growth per million runs with retention on.
 *
 * Drives the store module (store.c) the way the daemon does, without
 * processes and without waiting: JOBS jobs each due every (virtual)
 * second, so a million runs take minutes, not days.  Per virtual second:
 *
 *   dispatch  (server_dispatch)   transactions of SERVER_DISPATCH_BATCH
 *             due jobs: store_run_claim and store_job_put (planned) each
 *   started   (server_flush, WQ_STARTED)   store_attempt_started each
 *   ended     (server_flush, WQ_END)       store_attempt_end each
 *             (succeeded, exit 0, TAIL bytes of output); every
 *             SERVER_PRUNE_EVERY ends of a job, store_prune_job(job,
 *             KEEP, SERVER_PRUNE_CHUNK) (WQ_PRUNE); once per virtual
 *             hour store_prune_age(now - 90 days, SERVER_PRUNE_CHUNK)
 *             and malloc_trim(0)
 *   idle      (server_flush_cb)   store_checkpoint(SERVER_CKPT_PAGES)
 *
 * malloc is tuned as tickd's main does (M_TRIM_THRESHOLD 16 MB,
 * M_MMAP_THRESHOLD 1 MB): with glibc's defaults every claim's statement
 * journal is a brk grow and shrink, and this loop runs several times
 * slower.
 * After every STEP runs it prints the size of the database file and of
 * its WAL, the rows of runs and attempts, and the rate of that step.
 * With retention (history_keep, default 1000) the rows stop at JOBS x
 * KEEP and the file should stop growing: SQLite reuses freed pages.
 *
 * Usage: bench_store [-e] [-j JOBS] [-n RUNS] [-s STEP] [-t TAIL] [-k KEEP]
 * DB (defaults 200, 1000000, 100000, 0, 1000).  DB must not exist; put it
 * on a tmpfs (/dev/shm) so that fsync costs nothing: bench/store.sh does.
 * Virtual time starts now, or with -e ends now (the instances are in the
 * past: a daemon started on the result does not find its own instants
 * taken; bench/store.sh uses it to start tickd on a full history).
 *
 * It needs libtickd-daemon.a and SQLite: the Makefile builds it with
 * -DBENCH_STORE_FULL and those libraries.  Built without that flag (as
 * the generic bench rule would), it only says so and exits 0.
 */
#include <stdio.h>

#ifndef BENCH_STORE_FULL

int
main(void)
{
	(void)printf("bench_store: run sh bench/store.sh (it links the store "
	    "and SQLite, which make bench does not)\n");
	return 0;
}

#else

#include <sys/stat.h>

#include <inttypes.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"

/* As in server-int.h and conf_table.c. */
#define DISPATCH_BATCH	32	/* SERVER_DISPATCH_BATCH */
#define PRUNE_EVERY	20	/* SERVER_PRUNE_EVERY */
#define PRUNE_CHUNK	500	/* SERVER_PRUNE_CHUNK */
#define CKPT_PAGES	1000	/* SERVER_CKPT_PAGES */
#define MAX_AGE		(90 * 86400)	/* history_max_age default */
#define LEASE		60		/* lease default */
#define TRIM_THRESHOLD	(16 * 1024 * 1024)	/* as tickd.c's main sets */
#define MMAP_THRESHOLD	(1024 * 1024)

struct bjob {
	char			id[32];
	struct store_job	st;
	int			ends;
	struct store_claimed	claimed;
	int			ok;
};

static void
die(const char *what, struct store *s)
{
	(void)fprintf(stderr, "bench_store: %s: %s\n", what,
	    s != NULL ? store_error(s) : "");
	exit(1);
}

static double
mono(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
fsize_mb(const char *path)
{
	struct stat st;

	return stat(path, &st) == -1 ? 0.0 : (double)st.st_size / 1048576.0;
}

/* One integer from a query on a read-only connection of our own. */
static int64_t
q(sqlite3 *db, const char *sql)
{
	sqlite3_stmt	*st = NULL;
	int64_t		 v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	(void)sqlite3_finalize(st);
	return v;
}

int
main(int argc, char **argv)
{
	struct store		*s;
	struct store_claim	 c;
	struct store_end	 e;
	struct bjob		*jobs;
	sqlite3			*ro = NULL;
	char			*cause = NULL, wal[4096], owner[64], *tail = NULL;
	const char		*path;
	int64_t			 runs = 0, total = 1000000, step = 100000;
	int64_t			 t0, t, now_ms, keep = 1000, next_print;
	int64_t			 last_age_prune;
	double			 started, seg;
	int			 njobs = 200, tail_len = 0, ch, i, k, n;
	int			 end_now = 0;

	while ((ch = getopt(argc, argv, "ej:n:s:t:k:")) != -1) {
		switch (ch) {
		case 'e': end_now = 1; break;
		case 'j': njobs = atoi(optarg); break;
		case 'n': total = strtoll(optarg, NULL, 10); break;
		case 's': step = strtoll(optarg, NULL, 10); break;
		case 't': tail_len = atoi(optarg); break;
		case 'k': keep = strtoll(optarg, NULL, 10); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || njobs < 1 || total < 1 || step < 1 ||
	    tail_len < 0 || keep < 10)
		goto usage;
	path = argv[optind];
	(void)mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
	(void)mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	if (access(path, F_OK) == 0) {
		(void)fprintf(stderr, "bench_store: %s exists\n", path);
		return 1;
	}
	(void)snprintf(wal, sizeof wal, "%s-wal", path);
	if ((s = store_open(path, 0, &cause)) == NULL) {
		(void)fprintf(stderr, "bench_store: %s\n", cause);
		return 1;
	}
	if (sqlite3_open_v2(path, &ro, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK)
		die("opening a reader", NULL);
	if (tail_len > 0) {
		tail = malloc((size_t)tail_len);
		for (i = 0; i < tail_len; i++)	/* text, like job output */
			tail[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
	}
	(void)snprintf(owner, sizeof owner, "benchhost:%ld", (long)getpid());

	/* The jobs, as server_jobs_sync stores them at the first start. */
	t0 = (int64_t)time(NULL);
	if (end_now)
		t0 -= (total + njobs - 1) / njobs + 1;
	jobs = calloc((size_t)njobs, sizeof *jobs);
	if (store_begin(s) == -1)
		die("begin", s);
	for (i = 0; i < njobs; i++) {
		(void)snprintf(jobs[i].id, sizeof jobs[i].id, "job%04d", i);
		jobs[i].st.sched_hash = UINT64_C(0x9e3779b97f4a7c15) ^
		    (uint64_t)i;
		jobs[i].st.planned = t0;
		jobs[i].st.overdue_alerted = -1;
		jobs[i].st.watch_since = t0 * 1000;
		if (store_job_put(s, jobs[i].id, &jobs[i].st, t0 * 1000) == -1)
			die("job_put", s);
	}
	if (store_commit(s) == -1)
		die("commit", s);

	(void)printf("%10s %9s %9s %9s %10s %10s %10s %9s\n", "runs", "db_MB",
	    "wal_MB", "total_MB", "runs_rows", "attempts", "B/row", "runs/s");
	started = seg = mono();
	next_print = step;
	last_age_prune = t0;
	for (t = t0 + 1; runs < total; t++) {
		now_ms = t * 1000 + 3;
		/* Dispatch: claims and planned, DISPATCH_BATCH a commit. */
		for (i = 0; i < njobs; i += DISPATCH_BATCH) {
			n = njobs - i < DISPATCH_BATCH ? njobs - i :
			    DISPATCH_BATCH;
			if (store_begin(s) == -1)
				die("begin dispatch", s);
			for (k = i; k < i + n; k++) {
				memset(&c, 0, sizeof c);
				c.job = jobs[k].id;
				c.scheduled_at = t;
				c.origin = "schedule";
				c.trigger = "schedule";
				c.owner = owner;
				c.now_ms = now_ms;
				c.lease_until = t + LEASE;
				jobs[k].ok = store_run_claim(s, &c,
				    &jobs[k].claimed);
				if (jobs[k].ok == -1)
					die("claim", s);
				jobs[k].st.planned = t;
				if (store_job_put(s, jobs[k].id, &jobs[k].st,
				    now_ms) == -1)
					die("job_put", s);
			}
			if (store_commit(s) == -1)
				die("commit dispatch", s);
		}
		/* The starts, in one flush. */
		if (store_begin(s) == -1)
			die("begin started", s);
		for (k = 0; k < njobs; k++) {
			if (jobs[k].ok == 1 && store_attempt_started(s,
			    jobs[k].claimed.rowid, jobs[k].claimed.attempt,
			    (pid_t)(10000 + k), 123456789 + t, now_ms + 2,
			    5, NULL) == -1)
				die("attempt_started", s);
		}
		if (store_commit(s) == -1)
			die("commit started", s);
		/* The ends, in one flush, with the prunes they queue. */
		if (store_begin(s) == -1)
			die("begin end", s);
		for (k = 0; k < njobs; k++) {
			if (jobs[k].ok != 1)
				continue;
			memset(&e, 0, sizeof e);
			e.rowid = jobs[k].claimed.rowid;
			e.attempt = jobs[k].claimed.attempt;
			e.status = "succeeded";
			e.reason = NULL;
			e.outcome = "succeeded";
			e.started_ms = now_ms + 2;
			e.finished_ms = now_ms + 9;
			e.lateness_ms = 5;
			e.duration_ms = 7;
			e.exit_status = 0;
			e.signal = -1;
			e.retry_at = -1;
			e.tail = tail;
			e.tail_len = (size_t)tail_len;
			if (store_attempt_end(s, &e) == -1)
				die("attempt_end", s);
			runs++;
			if (++jobs[k].ends >= PRUNE_EVERY) {
				jobs[k].ends = 0;
				if (store_prune_job(s, jobs[k].id, keep,
				    PRUNE_CHUNK) == -1)
					die("prune_job", s);
			}
		}
		if (t - last_age_prune >= 3600) {	/* hourly, by age */
			if (store_prune_age(s, now_ms - (int64_t)MAX_AGE *
			    1000, PRUNE_CHUNK) == -1)
				die("prune_age", s);
			last_age_prune = t;
			(void)malloc_trim(0);	/* as server_flush does */
		}
		if (store_commit(s) == -1)
			die("commit end", s);
		/* Idle until the next second: the daemon checkpoints here. */
		if (store_checkpoint(s, CKPT_PAGES) == -1)
			die("checkpoint", s);

		if (runs >= next_print || runs >= total) {
			int64_t nr = q(ro, "SELECT count(*) FROM runs");
			double db = fsize_mb(path), w = fsize_mb(wal);
			double now = mono();

			(void)printf("%10" PRId64 " %9.1f %9.1f %9.1f %10" PRId64
			    " %10" PRId64 " %10.0f %9.0f\n", runs, db, w, db + w,
			    nr, q(ro, "SELECT count(*) FROM attempts"),
			    nr > 0 ? (db + w) * 1048576.0 / (double)nr : 0.0,
			    (double)step / (now - seg));
			(void)fflush(stdout);
			seg = now;
			next_print += step;
		}
	}
	(void)printf("(%d jobs every virtual second, history_keep %" PRId64
	    ", %d bytes of output per run; %" PRId64 " runs in %.0f s;"
	    " plateau expected at %" PRId64 " runs rows)\n", njobs, keep,
	    tail_len, runs, mono() - started, (int64_t)njobs * keep);
	(void)sqlite3_close(ro);
	store_close(s);
	free(jobs);
	free(tail);
	return 0;

usage:
	(void)fprintf(stderr, "usage: bench_store [-e] [-j JOBS] [-n RUNS] "
	    "[-s STEP] [-t TAIL] [-k KEEP] DB\n");
	return 2;
}

#endif /* BENCH_STORE_FULL */

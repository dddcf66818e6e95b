/*
 * fuzz_conf.c -- libFuzzer target: the job-file loader, conf_load().
 *
 * The input is one job file.  It is written verbatim as jobs.d/fuzz.job
 * of a directory made once per process, beside a fixed jobs.d/a.job (one
 * valid job, "base", read first) and a fixed tickd.conf, and loaded with
 * conf_load() exactly as the daemon loads it: inih with the reader that
 * joins continuation lines, every key typed and bounded by conf_table.c,
 * zones from the checkout's fixtures (TZDIR), users and groups resolved.
 * Everything is freed, so LeakSanitizer sees every leak.
 *
 * Invariants: tickd.conf stays valid whatever the job file says; "base"
 * is always loaded from a.job; a valid job has a well-formed id that
 * appears as "[id]" in the input, a schedule, a command, a zone, and
 * every counted value within its conf_table.c bounds; jobs are sorted
 * and unique, and none is also listed as bad; bad ids are ids, listed
 * once; every cause and every bad "file:line" names fuzz.job, at a line
 * the input has; a NUL byte makes the whole file bad; a file with bad
 * jobs has causes.  Loading the same file again gives the same jobs (ids,
 * definition hashes) and the same causes, and none of the first load's
 * jobs counts as bad in the second (conf_job_is_bad, the reload test).
 * Time is bounded by libFuzzer's -timeout (make fuzz-run: 10 s).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "envp.h"
#include "fuzz.h"
#include "schedule.h"

#define FUZZ_CONF_ID_MAX	48	/* conf.c CONF_ID_MAX */

static char	fuzz_dir[256];		/* the per-process directory */
static char	fuzz_path[1024];	/* its tickd.conf */
static char	fuzz_job[1024];		/* jobs.d/fuzz.job */
static char	fuzz_base[1024];	/* jobs.d/a.job */

/* Write a whole file, mode 0644 whatever the umask (conf.c is strict). */
static void
fuzz_write(const char *path, const void *data, size_t size)
{
	struct timespec	 ts[2];
	const char	*p = data;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1 || fchmod(fd, 0644) == -1) {
		(void)fprintf(stderr, "fuzz_conf: %s: %s\n", path,
		    strerror(errno));
		exit(2);
	}
	while (size > 0) {
		if ((n = write(fd, p, size)) == -1) {
			if (errno == EINTR)
				continue;
			(void)fprintf(stderr, "fuzz_conf: %s: %s\n", path,
			    strerror(errno));
			exit(2);
		}
		p += n;
		size -= (size_t)n;
	}
	/* Written a second ago: settled, as conf.c wants a file it reads. */
	(void)clock_gettime(CLOCK_REALTIME, &ts[1]);
	ts[1].tv_sec -= 1;
	ts[0].tv_nsec = UTIME_OMIT;
	(void)futimens(fd, ts);
	(void)close(fd);
}

/* Remove the directory at exit (a crash leaves it for the post-mortem). */
static void
fuzz_cleanup(void)
{
	char p[512];

	(void)unlink(fuzz_job);
	(void)unlink(fuzz_base);
	(void)unlink(fuzz_path);
	(void)snprintf(p, sizeof p, "%s/jobs.d", fuzz_dir);
	(void)rmdir(p);
	(void)rmdir(fuzz_dir);
}

/* Make the directory, tickd.conf and a.job once per process. */
static void
fuzz_setup(void)
{
	static const char conf[] =
	    "[daemon]\n"
	    "timezone = UTC\n"
	    "jobs_dir = jobs.d\n"
	    "state = state/tickd.db\n"
	    "control = ctl.sock\n";
	static const char base[] =
	    "[base]\n"
	    "schedule = every 1h\n"
	    "command = true\n";
	const char	*tmp = getenv("TMPDIR");
	const char	*tzif = getenv("FUZZ_TZIF_DIR");
	char		 p[512];

	if (fuzz_dir[0] != '\0')
		return;
	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	if (tzif == NULL || *tzif == '\0')
		tzif = FUZZ_TZIF_DIR;
	/* Zones come from the fixtures: hermetic, and the dictionary's. */
	(void)snprintf(p, sizeof p, "%s/fat", tzif);
	if (setenv("TZDIR", p, 1) == -1)
		abort();
	(void)snprintf(fuzz_dir, sizeof fuzz_dir, "%s/tickd-fuzz-conf.XXXXXX",
	    tmp);
	if (mkdtemp(fuzz_dir) == NULL) {
		(void)fprintf(stderr, "fuzz_conf: mkdtemp %s: %s\n", fuzz_dir,
		    strerror(errno));
		exit(2);
	}
	(void)snprintf(p, sizeof p, "%s/jobs.d", fuzz_dir);
	if (mkdir(p, 0755) == -1) {
		(void)fprintf(stderr, "fuzz_conf: mkdir %s: %s\n", p,
		    strerror(errno));
		exit(2);
	}
	(void)snprintf(fuzz_path, sizeof fuzz_path, "%s/tickd.conf", fuzz_dir);
	(void)snprintf(fuzz_base, sizeof fuzz_base, "%s/a.job", p);
	(void)snprintf(fuzz_job, sizeof fuzz_job, "%s/fuzz.job", p);
	fuzz_write(fuzz_path, conf, sizeof conf - 1);
	fuzz_write(fuzz_base, base, sizeof base - 1);
	(void)atexit(fuzz_cleanup);
}

/* Whether id is 1-48 of [A-Za-z0-9_.-] (conf.c conf_id_valid). */
static int
fuzz_id_valid(const char *id)
{
	size_t n = strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-");

	return n > 0 && id[n] == '\0' && n <= FUZZ_CONF_ID_MAX;
}

/* The line number in "<fuzz_job>:N...", or -1 if s is not of that form. */
static long
fuzz_where_line(const char *s)
{
	size_t	 n = strlen(fuzz_job);
	char	*end;
	long	 line;

	if (strncmp(s, fuzz_job, n) != 0 || s[n] != ':')
		return -1;
	line = strtol(s + n + 1, &end, 10);
	return end == s + n + 1 ? -1 : line;
}

/* One valid job of the fuzzed file. */
static void
fuzz_check_job(const struct job_def *d, const uint8_t *data, size_t size,
    long nlines)
{
	const struct conf_key	*k;
	char			*hdr, where[600], at[600];
	int64_t			 v;
	size_t			 i;

	FUZZ_CHECK(fuzz_id_valid(d->id), "job id \"%s\" is not valid", d->id);
	FUZZ_CHECK(strcmp(d->file, fuzz_job) == 0, "job %s from file %s",
	    d->id, d->file);
	FUZZ_CHECK(d->line >= 1 && d->line <= nlines, "job %s at line %d of "
	    "%ld", d->id, d->line, nlines);
	(void)snprintf(where, sizeof where, "%s:%d", d->file, d->line);
	FUZZ_CHECK(strcmp(job_def_where(d, at, sizeof at), where) == 0,
	    "job %s: where \"%s\", expected \"%s\"", d->id, at, where);
	hdr = malloc(strlen(d->id) + 3);
	if (hdr == NULL)
		abort();
	(void)sprintf(hdr, "[%s]", d->id);
	FUZZ_CHECK(memmem(data, size, hdr, strlen(hdr)) != NULL,
	    "job %s: no \"%s\" in the input", d->id, hdr);
	free(hdr);
	FUZZ_CHECK(d->schedule != NULL, "job %s: no schedule", d->id);
	FUZZ_CHECK(d->command != NULL && d->command[0] != '\0',
	    "job %s: no command", d->id);
	FUZZ_CHECK(d->timezone != NULL && d->tz != NULL, "job %s: no zone",
	    d->id);
	FUZZ_CHECK(d->enabled == 0 || d->enabled == 1, "job %s: enabled %d",
	    d->id, d->enabled);
	FUZZ_CHECK(d->pol->retry_on_exit != NULL, "job %s: no retry_on_exit",
	    d->id);
	FUZZ_CHECK(d->sched_hash != 0 && d->def_hash != 0, "job %s: no hash",
	    d->id);
	for (i = 0; i < d->nenv; i++)
		FUZZ_CHECK(envp_valid(d->env[i]), "job %s: environment "
		    "\"%s\"", d->id, d->env[i]);
	FUZZ_CHECK(d->nenv == 0 || d->env[d->nenv] == NULL, "job %s: "
	    "environment not terminated", d->id);
	for (i = 0; i < conf_nkeys; i++) {
		k = &conf_keys[i];
		if (k->section != CONF_SEC_JOB || (k->type != CONF_T_DURATION &&
		    k->type != CONF_T_COUNT && k->type != CONF_T_SIZE))
			continue;
		v = *(const int64_t *)conf_key_addr(k, d);
		/* A key without a default may be unset (limits: -1). */
		FUZZ_CHECK((v >= k->min && v <= k->max) || (k->def == NULL &&
		    v == CGROUP_UNSET), "job %s: %s = %lld "
		    "outside %lld-%lld", d->id, k->name, (long long)v,
		    (long long)k->min, (long long)k->max);
	}
}

/* Everything that must hold of one load. */
static void
fuzz_check_conf(const struct conf *c, const struct conf_causes *causes,
    const uint8_t *data, size_t size)
{
	const struct job_def	*d;
	long			 nlines = 1, line;
	size_t			 i, j, fuzz_jobs = 0;

	for (i = 0; i < size; i++)
		nlines += data[i] == '\n';
	FUZZ_CHECK(c != NULL, "tickd.conf refused because of a job file: %s",
	    causes->n > 0 ? causes->v[0] : "(no cause)");
	FUZZ_CHECK(!c->jobs_dir_failed, "jobs_dir failed");
	d = conf_job(c, "base");
	FUZZ_CHECK(d != NULL && strcmp(d->file, fuzz_base) == 0, "job base "
	    "of a.job is %s", d == NULL ? "missing" : d->file);
	for (i = 0; i < c->njobs; i++) {
		d = c->jobs[i];
		if (i > 0)
			FUZZ_CHECK(strcmp(c->jobs[i - 1]->id, d->id) < 0,
			    "jobs not sorted and unique: \"%s\" then \"%s\"",
			    c->jobs[i - 1]->id, d->id);
		FUZZ_CHECK(conf_job(c, d->id) == d, "conf_job(%s) finds "
		    "another job", d->id);
		for (j = 0; j < c->nbad_ids; j++)
			FUZZ_CHECK(strcmp(c->bad_ids[j], d->id) != 0, "job %s "
			    "is both valid and bad", d->id);
		if (d == conf_job(c, "base"))
			continue;
		fuzz_check_job(d, data, size, nlines);
		fuzz_jobs++;
	}
	for (i = 0; i < c->nbad_ids; i++) {
		FUZZ_CHECK(fuzz_id_valid(c->bad_ids[i]), "bad job id \"%s\" "
		    "is not an id", c->bad_ids[i]);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(c->bad_ids[j], c->bad_ids[i]) != 0,
			    "bad job id \"%s\" listed twice", c->bad_ids[i]);
		line = fuzz_where_line(c->bad_where[i]);
		FUZZ_CHECK(line >= 1 && line <= nlines, "bad job \"%s\" at "
		    "\"%s\" (the input has %ld lines)", c->bad_ids[i],
		    c->bad_where[i], nlines);
	}
	FUZZ_CHECK(c->nbad_files == 0 || (c->nbad_files == 1 &&
	    strcmp(c->bad_files[0], fuzz_job) == 0), "bad files: %zu, %s",
	    c->nbad_files, c->nbad_files > 0 ? c->bad_files[0] : "");
	if (c->nbad_files > 0)
		FUZZ_CHECK(fuzz_jobs == 0, "%zu jobs loaded from a bad file",
		    fuzz_jobs);
	if (memchr(data, '\0', size) != NULL)
		FUZZ_CHECK(c->nbad_files == 1, "a NUL byte, but the file is "
		    "not bad (%zu jobs from it)", fuzz_jobs);
	if (c->nbad_ids > 0 || c->nbad_files > 0)
		FUZZ_CHECK(causes->n > 0, "bad jobs or files without a cause");
	FUZZ_CHECK(c->nignored == 0, "%zu names ignored", c->nignored);
	for (i = 0; i < causes->n; i++) {
		FUZZ_CHECK(causes->v[i] != NULL && strncmp(causes->v[i],
		    fuzz_job, strlen(fuzz_job)) == 0 &&
		    causes->v[i][strlen(fuzz_job)] == ':', "cause %zu does "
		    "not name fuzz.job: \"%s\"", i, causes->v[i]);
		line = fuzz_where_line(causes->v[i]);
		if (line != -1)
			FUZZ_CHECK(line >= 1 && line <= nlines, "cause at "
			    "line %ld of %ld: \"%s\"", line, nlines,
			    causes->v[i]);
	}
}

/* A second load of the same file gives the same result. */
static void
fuzz_check_same(const struct conf *a, const struct conf_causes *ca,
    const struct conf *b, const struct conf_causes *cb)
{
	size_t i;

	FUZZ_CHECK(b != NULL && a->njobs == b->njobs && a->nbad_ids ==
	    b->nbad_ids && a->nbad_files == b->nbad_files, "loaded again: "
	    "%zu/%zu/%zu jobs/bad ids/bad files, then %zu/%zu/%zu", a->njobs,
	    a->nbad_ids, a->nbad_files, b != NULL ? b->njobs : 0,
	    b != NULL ? b->nbad_ids : 0, b != NULL ? b->nbad_files : 0);
	for (i = 0; i < a->njobs; i++) {
		FUZZ_CHECK(strcmp(a->jobs[i]->id, b->jobs[i]->id) == 0 &&
		    a->jobs[i]->def_hash == b->jobs[i]->def_hash &&
		    a->jobs[i]->sched_hash == b->jobs[i]->sched_hash,
		    "job %s loaded again differs", a->jobs[i]->id);
		FUZZ_CHECK(!conf_job_is_bad(b, a->jobs[i]), "job %s is bad "
		    "when loaded again", a->jobs[i]->id);
	}
	FUZZ_CHECK(ca->n == cb->n, "%zu causes, then %zu", ca->n, cb->n);
	for (i = 0; i < ca->n; i++)
		FUZZ_CHECK(strcmp(ca->v[i], cb->v[i]) == 0, "cause \"%s\", "
		    "then \"%s\"", ca->v[i], cb->v[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf_causes	 ca, cb;
	struct conf		*a, *b;

	fuzz_setup();
	fuzz_write(fuzz_job, data, size);
	memset(&ca, 0, sizeof ca);
	memset(&cb, 0, sizeof cb);
	a = conf_load(fuzz_path, &ca);
	fuzz_check_conf(a, &ca, data, size);
	b = conf_load(fuzz_path, &cb);
	fuzz_check_same(a, &ca, b, &cb);
	conf_free(a);
	conf_free(b);
	conf_causes_free(&ca);
	conf_causes_free(&cb);
	return 0;
}

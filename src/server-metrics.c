/*
 * server-metrics.c -- [daemon] metrics_listen: the daemon's GET /metrics
 * (httpd.c on the loop), in the text format metrics.c writes for
 * "tickctl metrics" too.
 *
 * A scrape is answered on the loop, so it reads nothing: it writes what
 * the loop keeps in memory, at O(jobs) cost (server_metrics_body: 0.3
 * ms for 200 jobs, 30 ms for 10000; httpd.c makes it once a second at
 * most):
 * tickd_up, tickd_state_readable (the store answers: no store trouble),
 * tickd_jobs, tickd_job_state, tickd_next_run_timestamp_seconds and
 * tickd_last_success_timestamp_seconds.  The families read from the
 * store (the *_total counts, the summaries, the nodes) stay with
 * "tickctl metrics" and the textfile collector: they are queries over
 * the history, a PostgreSQL round trip or tens of milliseconds of
 * SQLite per scrape, which the loop that starts jobs on time must not
 * wait for.  A job's state is decided as tickctl decides it from the
 * store, from the same facts the loop holds.
 *
 * The address is (re)bound at start and at each reload whose
 * metrics_listen differs from the one served, or when the last try
 * failed: a failure is logged, and the daemon goes on without /metrics.
 *
 * DIAGNOSTICS: "metrics_listen X: CAUSE: /metrics is not served" at
 * error level; "metrics: serving GET /metrics at 127.0.0.1:9464 and
 * [::1]:9464" at notice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "conf.h"
#include "httpd.h"
#include "log.h"
#include "metrics.h"
#include "server-int.h"
#include "xmalloc.h"

#define SERVER_METRICS_TYPE	"text/plain; version=0.0.4; charset=utf-8"

static int
server_metrics_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Job j as tickctl would see it from the store (bad: its new definition
 * is invalid, so tickctl, which loads it afresh, says error).
 */
static void
server_metrics_job(const struct sjob *j, int bad, struct metrics_job *m)
{
	m->id = j->id;
	m->next_at = -1;
	m->last_success_ms = j->loaded && j->last_success >= 0 ?
	    j->last_success : -1;
	m->state = bad ? "error" : metrics_state(j->def->enabled,
	    j->st.paused, j->skips >= SERVER_BLOCKED_SKIPS, j->nruns > 0 ||
	    j->nelse > 0, j->npending > 0);
	if (j->def->enabled && !j->st.paused)
		m->next_at = j->next_at;
}

/* The body of GET /metrics (httpd_body_fn): the loop's figures. */
static char *
server_metrics_body(void *arg, size_t *len)
{
	struct server		*s = arg;
	const struct conf	*c = s->conf;
	struct metrics		 m;
	struct metrics_job	*mj;
	FILE			*fp;
	char			*buf = NULL, **bad = NULL;
	size_t			 i, n = 0;
	int64_t			 t0 = clock_boot_ns();

	if (c->nbad_ids > 0) {
		bad = xreallocarray(NULL, c->nbad_ids, sizeof *bad);
		memcpy(bad, c->bad_ids, c->nbad_ids * sizeof *bad);
		qsort(bad, c->nbad_ids, sizeof *bad, server_metrics_cmp);
	}
	mj = xcalloc(s->njobs + c->nbad_ids + 1, sizeof *mj);
	for (i = 0; i < s->njobs; i++)
		server_metrics_job(s->jobs[i], bad != NULL && bsearch(
		    &s->jobs[i]->id, bad, c->nbad_ids, sizeof *bad,
		    server_metrics_cmp) != NULL, &mj[n++]);
	/* Invalid from the start: no job of the loop. */
	for (i = 0; i < c->nbad_ids; i++) {
		if (conf_job(c, c->bad_ids[i]) != NULL)
			continue;
		mj[n].id = c->bad_ids[i];
		mj[n].state = "error";
		mj[n].next_at = mj[n].last_success_ms = -1;
		n++;
	}
	memset(&m, 0, sizeof m);
	m.up = 1;
	m.readable = !s->store_trouble;
	m.readable_help = "Whether the daemon's state database answers (no "
	    "store trouble).";
	m.jobs = mj;
	m.njobs = n;
	m.last_success = 1;
	if ((fp = open_memstream(&buf, len)) != NULL) {
		metrics_write(fp, &m);
		if (ferror(fp) | fclose(fp)) {
			free(buf);
			buf = NULL;
		}
	}
	free(mj);
	free(bad);
	log_debug("metrics: %zu jobs written in %.3f ms", n,
	    (double)(clock_boot_ns() - t0) / 1e6);
	return buf;
}

/*
 * Serve /metrics at [daemon] metrics_listen, if it is set and not served
 * already: at start, and after each reload.
 */
void
server_metrics_apply(struct server *s)
{
	const char	*want = s->conf->metrics_listen;
	char		*cause = NULL;

	if (want != NULL && s->metrics != NULL &&
	    strcmp(want, s->metrics_at) == 0)
		return;
	if (want == NULL && s->metrics_at == NULL)
		return;
	if (s->metrics != NULL)
		log_notice("metrics: no longer serving /metrics at %s",
		    httpd_where(s->metrics));
	httpd_close(s->metrics);
	s->metrics = NULL;
	free(s->metrics_at);
	s->metrics_at = want != NULL ? xstrdup(want) : NULL;
	if (want == NULL)
		return;
	if ((s->metrics = httpd_open(s->loop, want, "/metrics",
	    SERVER_METRICS_TYPE, server_metrics_body, s, &cause)) == NULL) {
		log_err("metrics_listen %s: %s: /metrics is not served (a "
		    "reload tries again)", want, cause);
		free(cause);
		return;
	}
	log_notice("metrics: serving GET /metrics at %s",
	    httpd_where(s->metrics));
}

/* Stop serving /metrics (the daemon stops). */
void
server_metrics_stop(struct server *s)
{
	httpd_close(s->metrics);
	s->metrics = NULL;
	free(s->metrics_at);
	s->metrics_at = NULL;
}

/*
 * ctl-request.c -- talk to the daemon through its control socket, and
 * wait for a run to end.
 *
 * One request line out ("run backup force"), reply lines in until the
 * daemon closes; the last line is "OK ..." or "ERR ...".  The socket path
 * comes from the configuration ([daemon] control).  A daemon that is not
 * running is a clear one-line error, not a bare ECONNREFUSED.
 *
 * DIAGNOSTICS: ctl_request prints one line "tickctl: ..." when the daemon
 * cannot be reached and returns -1; ERR replies are the caller's to print.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "ctl-fmt.h"
#include "ctl.h"
#include "store_query.h"
#include "xmalloc.h"

#define CTL_REPLY_MAX	(1024 * 1024)	/* longest reply accepted */
#define CTL_TIMEOUT_MS	30000		/* a reload can take a while */

/* Free the lines of a reply. */
void
ctl_reply_free(struct ctl_reply *r)
{
	size_t i;

	for (i = 0; i < r->nlines; i++)
		free(r->lines[i]);
	free(r->lines);
	free(r->final);
	memset(r, 0, sizeof *r);
}

/* Split a reply buffer into lines; the last one is the final. */
static void
ctl_reply_split(char *buf, struct ctl_reply *r)
{
	char *line, *p = buf;

	while ((line = strsep(&p, "\n")) != NULL) {
		if (*line == '\0' && p == NULL)
			break;
		r->lines = xreallocarray(r->lines, r->nlines + 1,
		    sizeof *r->lines);
		r->lines[r->nlines++] = xstrdup(line);
	}
	if (r->nlines > 0) {
		r->final = r->lines[--r->nlines];
		r->lines[r->nlines] = NULL;
	}
}

/*
 * Send a request (printf-style) to the daemon and read its reply.
 * Returns 0 when the daemon said OK, 1 when it said ERR (r->final holds
 * "ERR why"), -1 when it could not be reached (a message was printed).
 */
int
ctl_request(struct ctl_ctx *ctx, struct ctl_reply *r, const char *fmt, ...)
{
	const struct conf	*c;
	struct sockaddr_un	 sun;
	struct pollfd		 pfd;
	char			*req, *buf = NULL;
	size_t			 len = 0, cap = 0;
	ssize_t			 n;
	va_list			 ap;
	int			 fd = -1, rc = -1;

	memset(r, 0, sizeof *r);
	if ((c = ctl_ctx_conf(ctx)) == NULL)
		return -1;
	va_start(ap, fmt);
	req = xvasprintf(fmt, ap);
	va_end(ap);

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(c->control) >= sizeof sun.sun_path) {
		ctl_error("control socket %s: path too long", c->control);
		goto out;
	}
	memcpy(sun.sun_path, c->control, strlen(c->control));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof sun) == -1) {
		ctl_error("tickd is not running, or not reachable: %s: %s",
		    c->control, strerror(errno));
		goto out;
	}
	if (dprintf(fd, "%s\n", req) < 0) {
		ctl_error("%s: %s", c->control, strerror(errno));
		goto out;
	}
	(void)shutdown(fd, SHUT_WR);
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, CTL_TIMEOUT_MS) == 0) {
			ctl_error("%s: no answer from tickd within %ds",
			    c->control, CTL_TIMEOUT_MS / 1000);
			goto out;
		}
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = xreallocarray(buf, cap, 1);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			ctl_error("%s: %s", c->control, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CTL_REPLY_MAX) {
			ctl_error("%s: the reply is too long", c->control);
			goto out;
		}
	}
	if (buf == NULL)
		buf = xstrdup("");
	buf[len] = '\0';
	ctl_reply_split(buf, r);
	if (r->final != NULL && strncmp(r->final, "OK", 2) == 0)
		rc = 0;
	else if (r->final != NULL && strncmp(r->final, "ERR", 3) == 0)
		rc = 1;
	else
		ctl_error("%s: a malformed reply from tickd", c->control);
out:
	if (fd != -1)
		(void)close(fd);
	free(buf);
	free(req);
	return rc;
}

/* The text after "OK " or "ERR " of a final line. */
const char *
ctl_reply_text(const struct ctl_reply *r)
{
	const char *p = r->final != NULL ? r->final : "";

	p += strncmp(p, "ERR", 3) == 0 ? 3 : strncmp(p, "OK", 2) == 0 ? 2 : 0;
	return *p == ' ' ? p + 1 : p;
}

/* Whether a status is final (the instance will not run again by itself). */
static int
ctl_status_final(const char *s)
{
	static const char *const final[] = {
		"succeeded", "failed", "dead", "skipped", "abandoned",
		"terminated", "unknown"
	};
	size_t i;

	for (i = 0; i < sizeof final / sizeof final[0]; i++) {
		if (strcmp(s, final[i]) == 0)
			return 1;
	}
	return 0;
}

/* The time of day in milliseconds. */
static int64_t
ctl_now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * While run is a running batch, show its progress on stderr (p: what
 * was shown).  Counts that cannot be read show nothing.
 */
static void
ctl_wait_progress(struct store_query *q, struct store_query_run *run,
    struct ctl_progress *p)
{
	char	 buf[512], *cause = NULL;
	int64_t	 now = ctl_now_ms(), from;

	if (!run->batch || strcmp(run->status, "running") != 0)
		return;
	if (store_query_shard_counts(q, run, 1, &cause) == -1) {
		free(cause);
		return;
	}
	/*
	 * Nothing left open: its shards ended, read after the instance's
	 * row, which ends in the same transaction; its end comes next.
	 */
	if (run->shards.total == 0 || run->shards.running +
	    run->shards.waiting == 0)
		return;
	from = run->started_ms != -1 ? run->started_ms : run->created_ms;
	if (ctl_progress_step(p, &run->shards, from != -1 ? now - from : -1,
	    now, buf, sizeof buf) == 1) {
		(void)fputs(buf, stderr);
		(void)fflush(stderr);
	}
}

/*
 * Wait for an instance to reach a final status, polling the store.
 * A batch's progress is shown on stderr meanwhile (ctl_progress_step):
 * a live line when stderr is a terminal.
 * Returns an exit status mirroring the job's: its exit code, 128+signal,
 * 0 on success, 1 for other ends; -1 if the store cannot be read.
 */
int
ctl_wait_run(struct ctl_ctx *ctx, const char *run_id)
{
	const struct conf		*c = ctl_ctx_conf(ctx);
	struct store_query		*q;
	struct store_query_run		*run;
	struct store_query_attempt	*att;
	struct timespec			 ts = { 0, 100 * 1000 * 1000 };
	struct ctl_progress		 p;
	char				*cause = NULL, end[8];
	size_t				 natt;
	int				 rc = -1, done = 0;

	if (c == NULL)
		return -1;
	memset(&p, 0, sizeof p);
	p.tty = !ctx->json && isatty(STDERR_FILENO);
	while (!done) {
		if ((q = store_query_open(c->state, &cause)) == NULL) {
			ctl_error("%s", cause);
			free(cause);
			return -1;
		}
		run = NULL;
		att = NULL;
		natt = 0;
		if (store_query_run(q, run_id, &run, &att, &natt,
		    &cause) == 1 && ctl_status_final(run->status)) {
			done = 1;
			if (ctl_progress_end(&p, end, sizeof end) == 1)
				(void)fputs(end, stderr);
			if (strcmp(run->status, "succeeded") == 0)
				rc = 0;
			else if (run->exit_status > 0)
				rc = run->exit_status;
			else if (run->signal > 0)
				rc = 128 + run->signal;
			else
				rc = 1;
			if (!ctx->json)
				(void)fprintf(stderr, "%s: %s%s%s\n", run_id,
				    run->status, run->reason ? ", " : "",
				    run->reason ? run->reason : "");
		}
		else if (run != NULL && !ctx->json)
			ctl_wait_progress(q, run, &p);
		free(cause);
		cause = NULL;
		if (run != NULL)
			store_query_runs_free(run, 1);
		store_query_attempts_free(att, natt);
		store_query_close(q);
		if (!done)
			(void)nanosleep(&ts, NULL);
	}
	return rc;
}

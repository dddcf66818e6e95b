/*
 * runner.c -- spawn job processes and follow them to the end.
 *
 * runner_spawn forks with every signal blocked (child.c resets them), so
 * the daemon is the direct parent of each job: no double fork, exit
 * status and duration are always known.  Three pipes per run, all
 * close-on-exec in the daemon: stdout and stderr (read here, split into
 * lines of at most RUNNER_PIECE_MAX bytes and logged, so a 10 MiB line
 * costs 4 KiB of memory), and a status pipe on which the child reports a
 * failure before exec; EOF there means exec succeeded.
 *
 * Reaping: the server's catch-all child watcher calls runner_reap for
 * every pid; runs are found in a pid hash.  A run ends when its main
 * process has exited: output still in the pipes is drained then, and the
 * pipes are closed, so a descendant that keeps them open cannot hold the
 * run (or the daemon) hostage.  Unknown pids (reparented grandchildren,
 * under PR_SET_CHILD_SUBREAPER) are logged at debug and forgotten.
 *
 * DIAGNOSTICS: runner_spawn returns -1 with *cause set when no process
 * could be started (pipe or fork failure); exec failures arrive later as
 * run->spawn_failed.  Output read errors are logged at warning.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "child.h"
#include "clock.h"
#include "log.h"
#include "runner.h"
#include "xmalloc.h"

#define RUNNER_HASH	4096		/* pid hash buckets */
#define RUNNER_READ_MAX	(256 * 1024)	/* bytes read per wake-up */
#define RUNNER_DRAIN_MAX (1024 * 1024)	/* bytes drained at exit */

static struct ev_loop	*runner_loop;
static runner_cb	 runner_started;
static runner_cb	 runner_done;
static void		*runner_arg;
static struct run	*runner_hash[RUNNER_HASH];
static size_t		 runner_n;

/*
 * Set up the runner: the loop for its watchers, the callback told when a
 * process has exec'd its program, and the one told when it has ended.
 */
void
runner_init(struct ev_loop *loop, runner_cb started, runner_cb done,
    void *arg)
{
	runner_loop = loop;
	runner_started = started;
	runner_done = done;
	runner_arg = arg;
}

/* How many runs have a live (unreaped) process. */
size_t
runner_count(void)
{
	return runner_n;
}

/*
 * A new run record for one attempt (not yet spawned); the strings are
 * copied.  Caller frees with runner_free unless it is spawned, in which
 * case the done callback receives it and frees it.
 */
struct run *
runner_new(const char *job, const char *run_id, const char *trigger,
    int64_t rowid, int attempt, int64_t scheduled_at, int64_t due_ms)
{
	struct run *r = xcalloc(1, sizeof *r);

	r->job = xstrdup(job);
	r->run_id = xstrdup(run_id);
	r->trigger = xstrdup(trigger);
	r->rowid = rowid;
	r->attempt = attempt;
	r->scheduled_at = scheduled_at;
	r->due_ms = due_ms;
	r->pid = -1;
	r->status_fd = r->out.fd = r->err.fd = -1;
	return r;
}

/* The journal fields of a run. */
void
runner_log_job(const struct run *r, struct log_job *lj)
{
	*lj = (struct log_job)LOG_JOB_INIT;
	lj->job = r->job;
	lj->run_id = r->run_id;
	lj->scheduled_at = r->scheduled_at;
	lj->attempt = r->attempt;
	lj->trigger = r->trigger;
	lj->pid = r->pid;
}

/* Log the complete lines in an output buffer; with flush, the rest too. */
static void
runner_out_emit(struct run *r, struct runner_out *o, int stream, int flush)
{
	struct log_job	 lj;
	char		*nl;
	size_t		 off = 0, n;

	runner_log_job(r, &lj);
	while (off < o->len) {
		nl = memchr(o->buf + off, '\n', o->len - off);
		if (nl == NULL) {
			/* A piece of a long line, or the unterminated end. */
			if (!flush && o->len - off < sizeof o->buf)
				break;
			log_output(&lj, stream, o->buf + off, o->len - off);
			off = o->len;
			break;
		}
		n = (size_t)(nl - (o->buf + off));
		log_output(&lj, stream, o->buf + off, n);
		off += n + 1;
	}
	if (off > 0) {
		memmove(o->buf, o->buf + off, o->len - off);
		o->len -= off;
	}
}

/* Close one output stream, logging what is left in its buffer. */
static void
runner_out_close(struct run *r, struct runner_out *o, int stream)
{
	if (o->fd == -1)
		return;
	ev_io_stop(runner_loop, &o->w);
	runner_out_emit(r, o, stream, 1);
	(void)close(o->fd);
	o->fd = -1;
}

/*
 * Read what is available on an output stream, up to limit bytes.  Returns
 * 1 at EOF or error (the stream is then closed), else 0.
 */
static int
runner_out_read(struct run *r, struct runner_out *o, int stream,
    size_t limit)
{
	size_t	total = 0;
	ssize_t	n;

	while (total < limit) {
		n = read(o->fd, o->buf + o->len, sizeof o->buf - o->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			if (n == -1)
				log_warn("job %s: reading %s: %s", r->job,
				    stream == 2 ? "stderr" : "stdout",
				    strerror(errno));
			runner_out_close(r, o, stream);
			return 1;
		}
		o->len += (size_t)n;
		total += (size_t)n;
		runner_out_emit(r, o, stream, 0);
	}
	return 0;
}

static void
runner_out_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct run *r = w->data;

	(void)loop;
	(void)revents;
	if (w == &r->out.w)
		(void)runner_out_read(r, &r->out, 1, RUNNER_READ_MAX);
	else
		(void)runner_out_read(r, &r->err, 2, RUNNER_READ_MAX);
}

/*
 * Read the status pipe: EOF means exec succeeded (the started callback
 * runs), a report means the child failed before exec (kept for the
 * reap).  Either way the pipe is then closed.  Returns 0 if nothing was
 * there yet.
 */
static int
runner_status_read(struct run *r)
{
	ssize_t n;

	do {
		n = read(r->status_fd, &r->report, sizeof r->report);
	} while (n == -1 && errno == EINTR);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	ev_io_stop(runner_loop, &r->status_w);
	(void)close(r->status_fd);
	r->status_fd = -1;
	if (n == (ssize_t)sizeof r->report)
		r->spawn_failed = 1;
	else {
		r->execd = 1;
		runner_started(r, runner_arg);
	}
	return 1;
}

static void
runner_status_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	(void)runner_status_read(w->data);
}

/* Index of a pid in the hash. */
static size_t
runner_slot(pid_t pid)
{
	return (size_t)pid % RUNNER_HASH;
}

/* Close every descriptor a run holds. */
static void
runner_close_fds(struct run *r)
{
	runner_out_close(r, &r->out, 1);
	runner_out_close(r, &r->err, 2);
	if (r->status_fd != -1) {
		ev_io_stop(runner_loop, &r->status_w);
		(void)close(r->status_fd);
		r->status_fd = -1;
	}
}

/*
 * Start the run's process.  Returns 0 (r->pid set; its end arrives through
 * the done callback), or -1 with *cause set when no process exists.
 */
int
runner_spawn(struct run *r, const struct runner_spec *spec, char **cause)
{
	int			 out[2] = { -1, -1 }, err[2] = { -1, -1 };
	int			 st[2] = { -1, -1 }, saved;
	char			*argv[4];
	struct child_spec	 cs;
	sigset_t		 all, old;
	pid_t			 pid;
	size_t			 slot;

	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1 ||
	    pipe2(st, O_CLOEXEC) == -1) {
		*cause = xasprintf("pipe: %s", strerror(errno));
		goto fail;
	}
	argv[0] = (char *)"sh";
	argv[1] = (char *)"-c";
	argv[2] = (char *)spec->command;
	argv[3] = NULL;
	cs.path = "/bin/sh";
	cs.argv = argv;
	cs.envp = spec->envp;
	cs.cred = spec->cred;
	cs.workdir = spec->workdir;
	cs.out_fd = out[1];
	cs.err_fd = err[1];
	cs.status_fd = st[1];

	/* No signal may run a daemon handler in the child. */
	(void)sigfillset(&all);
	(void)sigprocmask(SIG_SETMASK, &all, &old);
	r->started_ms = clock_wall_ms();
	r->started_mono = clock_mono_ms();
	pid = fork();
	if (pid == 0)
		child_exec(&cs);
	saved = errno;
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid == -1) {
		*cause = xasprintf("fork: %s", strerror(saved));
		goto fail;
	}

	r->pid = pid;
	(void)close(out[1]);
	(void)close(err[1]);
	(void)close(st[1]);
	r->out.fd = out[0];
	r->err.fd = err[0];
	r->status_fd = st[0];
	(void)fcntl(out[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(err[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(st[0], F_SETFL, O_NONBLOCK);
	ev_io_init(&r->out.w, runner_out_cb, r->out.fd, EV_READ);
	ev_io_init(&r->err.w, runner_out_cb, r->err.fd, EV_READ);
	ev_io_init(&r->status_w, runner_status_cb, r->status_fd, EV_READ);
	r->out.w.data = r->err.w.data = r->status_w.data = r;
	ev_io_start(runner_loop, &r->out.w);
	ev_io_start(runner_loop, &r->err.w);
	ev_io_start(runner_loop, &r->status_w);

	slot = runner_slot(pid);
	r->hnext = runner_hash[slot];
	runner_hash[slot] = r;
	runner_n++;
	return 0;

fail:
	if (out[0] != -1) {
		(void)close(out[0]);
		(void)close(out[1]);
	}
	if (err[0] != -1) {
		(void)close(err[0]);
		(void)close(err[1]);
	}
	if (st[0] != -1) {
		(void)close(st[0]);
		(void)close(st[1]);
	}
	return -1;
}

/*
 * A child exited (status as from waitpid).  Finds its run, collects a
 * spawn failure report, drains and closes its output, and hands the run
 * to the done callback, which owns it from then on.
 */
void
runner_reap(pid_t pid, int status)
{
	struct run	**rp, *r;

	for (rp = &runner_hash[runner_slot(pid)]; *rp != NULL;
	    rp = &(*rp)->hnext) {
		if ((*rp)->pid == pid)
			break;
	}
	if ((r = *rp) == NULL) {
		log_debug("reaped pid %ld, not a job (a reparented "
		    "descendant?)", (long)pid);
		return;
	}
	*rp = r->hnext;
	runner_n--;
	r->reaped = 1;
	r->wstatus = status;

	/* The child wrote its report, if any, before it exited. */
	if (r->status_fd != -1 && !runner_status_read(r))
		r->execd = 1;	/* cannot happen: the pipe closed at exit */

	if (r->out.fd != -1)
		(void)runner_out_read(r, &r->out, 1, RUNNER_DRAIN_MAX);
	if (r->err.fd != -1)
		(void)runner_out_read(r, &r->err, 2, RUNNER_DRAIN_MAX);
	runner_close_fds(r);
	runner_done(r, runner_arg);
}

/* Send sig to the run's whole process group. */
void
runner_signal(struct run *r, int sig)
{
	if (r->pid > 0 && !r->reaped)
		(void)kill(-r->pid, sig);
}

/* Free a run that is not (or no longer) in the pid table. */
void
runner_free(struct run *r)
{
	if (r == NULL)
		return;
	runner_close_fds(r);
	free(r->job);
	free(r->run_id);
	free(r->trigger);
	free(r);
}

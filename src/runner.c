/*
 * runner.c -- spawn job processes and follow them to the end.
 *
 * runner_spawn prepares a run in the loop and posts a request to the
 * spawner, a thread that makes the output pipes and the process, in the
 * order posted, and hands them back (runner_post, runner_made_drain), so
 * that the loop goes on while a clone waits for its child's exec; on two
 * CPUs or fewer (runner_spawner_choose), or with no thread to be had,
 * the loop makes them.  The process is made with
 * every signal blocked (child.c resets them): clone(CLONE_VM |
 * CLONE_VFORK) as posix_spawn does, or fork when the working directory
 * is not known to be local (runner_clone, mounts.c).  The daemon is the
 * direct parent of each
 * job: no double fork, exit status and duration are always known.  Two
 * pipes per run, close-on-exec in the daemon: stdout and stderr (read
 * here, split into lines of at most RUNNER_PIECE_MAX bytes and logged, so
 * a 10 MiB line costs 4 KiB of memory).  A clone child leaves a failure
 * before exec in its request, read when clone returns (the exec
 * has happened or failed by then); a forked child reports on a third,
 * status pipe, whose EOF means exec succeeded.
 *
 * Which processes are the attempt's is its way of tracking's business
 * (track.h): before the process exists, the runner has its cgroup made
 * and hands the child the descriptor it joins it by.
 *
 * Reaping: the server reaps every child with wait4 and calls runner_reap
 * with its status and resource usage; runs are found in a pid hash.  A
 * run ends when its main process has exited: output still in the pipes
 * is drained then, and the pipes are closed, so a descendant that keeps
 * them open cannot hold the run (or the daemon) hostage.  Unknown pids
 * (reparented grandchildren, under PR_SET_CHILD_SUBREAPER) are logged at
 * debug and forgotten.
 *
 * Stopping a run (timeout, replace, shutdown) signals all its processes
 * (its cgroup's, or its group, session and invocation id's), then
 * SIGKILLs them after a grace period; once its main process has ended
 * the rest of the grace is left to its descendants, then the sweep kills
 * what is left of that attempt alone.  A process left by a crashed
 * daemon can be adopted: followed through a pidfd, or by polling where
 * there is none, or through its cgroup when only that is known; its exit
 * status unknowable.
 *
 * DIAGNOSTICS: runner_spawn returns -1 with *cause set when no process
 * could be started (its cgroup, pipe or fork failure; run->report then
 * holds the stage, CHILD_TRACK, CHILD_PIPE or CHILD_FORK, and errno, and
 * run->spawn_why the cause of a CHILD_TRACK); exec failures arrive later
 * as run->spawn_failed.  Output read errors are logged at warning.
 */
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

#include "child.h"
#include "clock.h"
#include "log.h"
#include "mounts.h"
#include "runner.h"
#include "shwords.h"
#include "xmalloc.h"

#define RUNNER_HASH	4096		/* pid hash buckets */
#define RUNNER_READ_MAX	(256 * 1024)	/* bytes read per wake-up */
#define RUNNER_DRAIN_MAX (1024 * 1024)	/* bytes drained at exit */
#define RUNNER_POLL	1.0		/* s between polls of an adopted run */
#define RUNNER_SWEEP_POLL 0.2		/* s between looks while stopping */
#define RUNNER_STACK	(256 * 1024)	/* the clone child's stack */
#define RUNNER_GUARD	4096		/* its guard page */
#define RUNNER_FDS_PER_RUN 2		/* output pipes held per run */
#define RUNNER_FDS_KEPT	128		/* for the rest: runner_budget */
#define RUNNER_WAKE_EVERY 32		/* made, at most, before a wake */

/*
 * AddressSanitizer keeps a shadow of each thread's stack and cannot follow
 * a child running on a stack of its own in the daemon's memory (it
 * reports overflows there): its builds always fork.
 */
#if defined(__SANITIZE_ADDRESS__)
#define RUNNER_ASAN	1
#else
#define RUNNER_ASAN	0
#endif

/*
 * Valgrind runs clone(CLONE_VM | CLONE_VFORK) as a fork, so a clone
 * child's report could not reach the daemon's memory: under it (the
 * valgrind soak, make check-long), fork and the status pipe.  The client
 * request is a no-op sequence of instructions outside valgrind.
 */
#ifdef __has_include
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define RUNNER_VALGRIND	(RUNNING_ON_VALGRIND != 0)
#endif
#endif
#ifndef RUNNER_VALGRIND
#define RUNNER_VALGRIND	0
#endif

static struct ev_loop	*runner_loop;
static runner_cb	 runner_spawned;
static runner_cb	 runner_started;
static runner_cb	 runner_done;
static void		(*runner_idle)(void *);
static void		*runner_arg;
static size_t		 runner_nsweep;		/* sweepers waiting */
static struct run	*runner_hash[RUNNER_HASH];
static size_t		 runner_n;
static char		*runner_stack;		/* the clone children's */
static struct rlimit	 runner_nofile;		/* tickd's, at start */
static int		 runner_nofile_raised;
static struct mounts	 runner_mounts;		/* runner_dir_local */
static int		 runner_mounts_fd = -1;	/* /proc/self/mountinfo */
static int		 runner_mounts_ok;

/*
 * The spawner.  A spawn request holds what its child reads, copied (a
 * reload may free the job meanwhile): the child spec, its argv and
 * environment vectors, the credential and the strings, in one block
 * after the request; and the descriptor that puts the child in its
 * cgroup.  The spawner makes the pipes (so that a request waiting holds
 * no more descriptors than its run will: runner_budget) and the process,
 * closes the child's ends, and hands back the daemon's.
 */
struct runner_req {
	struct runner_req	*next;		/* to do, then made */
	struct run		*r;
	uint64_t		 seq;		/* posting order */
	struct child_spec	 cs;
	struct child_report	 report;	/* a clone child's */
	struct priv_cred	 cred;
	int			 join;		/* its cgroup.procs, or -1 */
	char			*argv[4];	/* sh -c COMMAND */
	char			**words;	/* or the command's words */
	/* The spawner's answers. */
	pid_t			 pid;		/* -1: none, stage says where */
	int			 stage;		/* CHILD_PIPE or CHILD_FORK */
	int			 error;
	int			 fds[3];	/* stdout, stderr, status: ours */
	int64_t			 started_ms, started_mono, pid_start;
};

/* A child reaped before its request came back (runner_reap). */
struct runner_early {
	pid_t		pid;
	int		status;
	struct rusage	ru;
	uint64_t	posted;		/* requests posted when reaped */
};

static pthread_mutex_t	 runner_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	 runner_cv = PTHREAD_COND_INITIALIZER;
static struct runner_req *runner_todo;		/* under runner_mu */
static struct runner_req **runner_todo_tail = &runner_todo;
static struct runner_req *runner_made;		/* under runner_mu */
static struct runner_req **runner_made_tail = &runner_made;
static int		 runner_thread;		/* 1 started, -1 none */
static int		 runner_slow;		/* TICKD_TEST_SPAWNER=slow */
static ev_async		 runner_made_w;
static ev_prepare	 runner_prepare_w;
static int		 runner_unwoken;	/* made since the last wake */
static uint64_t		 runner_posted;		/* requests posted */
static size_t		 runner_inflight;	/* posted, not yet back */
static struct runner_early *runner_earlies;
static size_t		 runner_nearly;

static void	runner_mounts_refresh(void);
static void	runner_cgroup_watch(void);
static void	runner_made_cb(struct ev_loop *, ev_async *, int);
static void	runner_made_drain(void);
static void	runner_prepare_cb(struct ev_loop *, ev_prepare *, int);
static void	runner_early_add(pid_t, int, const struct rusage *);

/*
 * Whether a spawner thread is worth having: only when tickd may run on
 * more than two CPUs.  On two, a burst's children keep both busy, and a
 * second thread making them only adds its own cost (bench/README.md:
 * a 1000-job burst 9% later, with 12% more CPU, on a 2-core host); the
 * loop makes them.
 * A test hook (t_daemon_spawner.sh) decides instead: TICKD_TEST_SPAWNER=
 * none, no thread (as when none can be had); =thread, one; =slow, one
 * that waits 200 ms after each process before handing it back, so that
 * short jobs are reaped before their request is back and a stop finds
 * their runs still spawning.
 */
static void
runner_spawner_choose(void)
{
	const char	*v = getenv("TICKD_TEST_SPAWNER");
	cpu_set_t	 cpus;
	int		 n;

	if (v != NULL && *v != '\0') {
		if (strcmp(v, "none") == 0 || strcmp(v, "thread") == 0 ||
		    strcmp(v, "slow") == 0) {
			log_warn("TICKD_TEST_SPAWNER=%s: a test hook", v);
			runner_thread = v[0] == 'n' ? -1 : 0;
			runner_slow = v[0] == 's';
			return;
		}
		log_warn("TICKD_TEST_SPAWNER=%s: not none, thread or slow, "
		    "ignored", v);
	}
	n = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) :
	    (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (n <= 2) {
		log_debug("%d CPUs: job processes are made in the loop", n);
		runner_thread = -1;
	}
}

/*
 * Set up the runner: the loop for its watchers, the callback told when a
 * process has exec'd its program, the one told when it has ended, and
 * the one told when a sweep ended with nothing left (runner_busy 0).
 */
void
runner_init(struct ev_loop *loop, runner_cb spawned, runner_cb started,
    runner_cb done, void (*idle)(void *), void *arg)
{
	runner_loop = loop;
	ev_async_init(&runner_made_w, runner_made_cb);
	ev_async_start(loop, &runner_made_w);
	ev_prepare_init(&runner_prepare_w, runner_prepare_cb);
	ev_set_priority(&runner_prepare_w, EV_MAXPRI);
	ev_prepare_start(loop, &runner_prepare_w);
	runner_spawner_choose();
	runner_spawned = spawned;
	/* Held from the start: counted in the idle descriptor budget. */
	runner_mounts_refresh();
	runner_started = started;
	runner_done = done;
	runner_idle = idle;
	runner_arg = arg;
	/* Cgroups left with processes are watched until they are empty. */
	if (track_current() != NULL &&
	    track_current()->ops == &track_cgroup_ops)
		runner_cgroup_watch();
	/*
	 * Each running job holds two descriptors here (three until exec):
	 * the soft limit outside systemd is often 1024.  Raise it to the
	 * hard limit, as systemd advises for programs that do not use
	 * select; jobs get the original back (child.c), since some of
	 * theirs may.
	 */
	if (getrlimit(RLIMIT_NOFILE, &runner_nofile) == 0 &&
	    runner_nofile.rlim_cur < runner_nofile.rlim_max) {
		struct rlimit rl = runner_nofile;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			runner_nofile_raised = 1;
		else
			log_warn("raising the descriptor limit to %llu: %s",
			    (unsigned long long)rl.rlim_max, strerror(errno));
	}
}

/*
 * How many runs may have a process at once with the descriptors tickd
 * has: each holds RUNNER_FDS_PER_RUN, and RUNNER_FDS_KEPT are left for
 * the rest: the daemon's own (about 20: store, lock, sockets, timers),
 * the pipes of the process the spawner is making (a waiting request holds
 * only its cgroup's descriptor: fewer than its run will), the exec-status
 * pipes of a dispatch batch (up to 32, read in the next loop iteration),
 * on_failure commands, control clients and SQLite's
 * temporary files.  Past it a pipe would fail with EMFILE, and the run
 * with it: the caller makes the rest wait instead.
 */
size_t
runner_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur ==
	    RLIM_INFINITY || rl.rlim_cur > SIZE_MAX / 2)
		return SIZE_MAX;
	if (rl.rlim_cur <= RUNNER_FDS_KEPT + RUNNER_FDS_PER_RUN)
		return 1;
	return (size_t)(rl.rlim_cur - RUNNER_FDS_KEPT) / RUNNER_FDS_PER_RUN;
}

/*
 * How many runs have a live (unreaped) process, or a sweep to come of
 * what their stopped attempt left.
 */
size_t
runner_busy(void)
{
	return runner_n + runner_nsweep;
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
	r->pid_start = -1;
	r->shard = -1;
	r->parent = -1;
	r->ckpt_saved = -1;
	r->status_fd = r->out.fd = r->err.fd = r->pidfd = -1;
	r->kill_signal = SIGTERM;
	r->track = track_current() != NULL ? track_current()->ops :
	    &track_pgrp_ops;
	r->usage.user_us = r->usage.system_us = r->usage.mem_peak = -1;
	ev_init(&r->timeout_w, NULL);
	ev_init(&r->kill_w, NULL);
	ev_init(&r->poll_w, NULL);
	return r;
}

/* The journal fields of a run. */
void
runner_log_job(const struct run *r, struct log_job *lj)
{
	*lj = (struct log_job)LOG_JOB_INIT;
	lj->job = r->job;
	lj->run_id = r->run_id[0] != '\0' ? r->run_id : NULL;
	lj->scheduled_at = r->scheduled_at;
	lj->attempt = r->attempt;
	lj->trigger = r->trigger;
	lj->pid = r->pid;
	lj->cgroup = r->cgroup;
	lj->shard = r->shard;
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
 * Keep the last tail_cap bytes of a run's output (both streams, as they
 * arrive) in a ring that grows to its size only as output comes.
 */
static void
runner_tail_add(struct run *r, const char *data, size_t n)
{
	size_t want, k;

	if (r->tail_cap == 0 || n == 0)
		return;
	if (n >= r->tail_cap) {		/* only the end of this piece stays */
		data += n - r->tail_cap;
		n = r->tail_cap;
	}
	if (r->tail_head == 0 && r->tail_len + n <= r->tail_cap) {
		/* Still linear: grow and append. */
		want = r->tail_len + n;
		r->tail = xreallocarray(r->tail, want, 1);
		memcpy(r->tail + r->tail_len, data, n);
		r->tail_len = want;
		return;
	}
	if (r->tail_len < r->tail_cap) {	/* fill to full size first */
		r->tail = xreallocarray(r->tail, r->tail_cap, 1);
		k = r->tail_cap - r->tail_len;
		if (k > n)
			k = n;
		memcpy(r->tail + r->tail_len, data, k);
		r->tail_len += k;
		data += k;
		n -= k;
	}
	while (n > 0) {			/* full: overwrite the oldest */
		k = r->tail_cap - r->tail_head;
		if (k > n)
			k = n;
		memcpy(r->tail + r->tail_head, data, k);
		r->tail_head = (r->tail_head + k) % r->tail_cap;
		data += k;
		n -= k;
	}
}

/* The kept output, oldest byte first; caller frees (NULL if none). */
char *
runner_tail(const struct run *r, size_t *len)
{
	char *out;

	*len = r->tail_len;
	if (r->tail_len == 0)
		return NULL;
	out = xmalloc(r->tail_len);
	memcpy(out, r->tail + r->tail_head, r->tail_len - r->tail_head);
	memcpy(out + (r->tail_len - r->tail_head), r->tail, r->tail_head);
	return out;
}

/* Keep a lister's standard output whole, up to RUNNER_CAPTURE_MAX. */
static void
runner_capture(struct run *r, const char *data, size_t n)
{
	if (r->capture_len + n > RUNNER_CAPTURE_MAX) {
		r->capture_over = 1;
		return;
	}
	r->capture = xreallocarray(r->capture, r->capture_len + n + 1, 1);
	memcpy(r->capture + r->capture_len, data, n);
	r->capture_len += n;
}

/*
 * Read what is available on an output stream, up to limit bytes.  Returns
 * 1 at EOF or error (the stream is then closed), else 0.
 */
static int
runner_out_read(struct run *r, struct runner_out *o, int stream,
    size_t limit)
{
	struct log_job	lj;
	size_t		total = 0;
	ssize_t		n;

	while (total < limit) {
		n = read(o->fd, o->buf + o->len, sizeof o->buf - o->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			if (n == -1) {
				runner_log_job(r, &lj);
				log_job(LOG_WARNING, LOG_EV_NONE, &lj,
				    "job %s: reading %s: %s", r->job,
				    stream == 2 ? "stderr" : "stdout",
				    strerror(errno));
			}
			runner_out_close(r, o, stream);
			return 1;
		}
		runner_tail_add(r, o->buf + o->len, (size_t)n);
		if (r->lister && stream == 1)
			runner_capture(r, o->buf + o->len, (size_t)n);
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

/* A run's output descriptor (stream 1 or 2), -1 once closed. */
int
runner_out_fd(const struct run *r, int stream)
{
	return stream == 2 ? r->err.fd : r->out.fd;
}

/*
 * Read what a run's output holds now, outside the loop's callbacks: a
 * store call that waits for a server does (server-wait.c), so that a
 * chatty job does not stop on a full pipe meanwhile.
 */
void
runner_out_now(struct run *r, int stream)
{
	if (runner_out_fd(r, stream) != -1)
		(void)runner_out_read(r, stream == 2 ? &r->err : &r->out,
		    stream, RUNNER_READ_MAX);
}

/*
 * What became of the child before its program, from its report (clone)
 * or its status pipe (fork): failed, the report is kept for the reap;
 * else it exec'd, and the started callback runs.
 */
static void
runner_exec_known(struct run *r, const struct child_report *failed)
{
	if (failed != NULL) {
		if (failed->stage == CHILD_CONDITION)
			r->unmet = 1;
		else
			r->spawn_failed = 1;
		r->report = *failed;
	} else {
		r->execd = 1;
		runner_started(r, runner_arg);
	}
}

/*
 * Read the status pipe: EOF means exec succeeded, a report that the child
 * failed before exec.  Either way the pipe is then closed.  Returns 0 if
 * nothing was there yet.
 */
static int
runner_status_read(struct run *r)
{
	struct child_report	rep;
	ssize_t			n;

	do {
		n = read(r->status_fd, &rep, sizeof rep);
	} while (n == -1 && errno == EINTR);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	ev_io_stop(runner_loop, &r->status_w);
	(void)close(r->status_fd);
	r->status_fd = -1;
	runner_exec_known(r, n == (ssize_t)sizeof rep ? &rep : NULL);
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

/* Where the run of pid is in the hash, or its chain's NULL end. */
static struct run **
runner_find(pid_t pid)
{
	struct run **rp;

	for (rp = &runner_hash[runner_slot(pid)]; *rp != NULL;
	    rp = &(*rp)->hnext) {
		if ((*rp)->pid == pid)
			break;
	}
	return rp;
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
 * Refresh the mount table when it may have changed: /proc/self/mountinfo,
 * kept open, reports a mount or unmount since it was last polled as
 * POLLPRI (proc(5)), so a spawn costs one poll, not a read and parse of
 * the whole table (hundreds of mounts on a container host).  Any error
 * reads it again, and a table that cannot be read makes every directory
 * "not known".
 */
static void
runner_mounts_refresh(void)
{
	struct pollfd	 pfd;
	char		*text = NULL;
	size_t		 len = 0, cap = 0;
	ssize_t		 n = -1;

	if (runner_mounts_ok) {
		pfd.fd = runner_mounts_fd;
		pfd.events = POLLPRI;
		pfd.revents = 0;
		if (poll(&pfd, 1, 0) == 0)
			return;			/* unchanged */
	}
	runner_mounts_ok = 0;
	if (runner_mounts_fd == -1)
		runner_mounts_fd = open("/proc/self/mountinfo",
		    O_RDONLY | O_CLOEXEC);
	if (runner_mounts_fd == -1 ||
	    lseek(runner_mounts_fd, 0, SEEK_SET) == -1)
		goto out;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 16384;
			text = xreallocarray(text, cap, 1);
		}
		if ((n = read(runner_mounts_fd, text + len,
		    cap - len - 1)) <= 0)
			break;
		len += (size_t)n;
	}
	if (n == 0) {
		text[len] = '\0';
		mounts_parse(&runner_mounts, text);
		runner_mounts_ok = 1;
	}
out:
	if (!runner_mounts_ok)
		mounts_free(&runner_mounts);
	free(text);
}

/*
 * Whether entering dir cannot block on a remote file system: every
 * component is on a local file system and none is a symbolic link (which
 * could lead anywhere), "." or "..".  Only local directories are looked
 * at (lstat), never the mount points of others.
 */
static int
runner_dir_local(const char *dir)
{
	char		 path[PATH_MAX];
	const char	*c, *next;
	struct stat	 st;
	size_t		 len;

	runner_mounts_refresh();
	if (!runner_mounts_ok || dir[0] != '/' || strlen(dir) >= sizeof path ||
	    !mounts_local(&runner_mounts, "/"))
		return 0;
	for (c = dir; *c != '\0'; c = next) {
		while (*c == '/')
			c++;
		if (*c == '\0')
			break;
		next = c + strcspn(c, "/");
		len = (size_t)(next - c);
		if ((len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		memcpy(path, dir, (size_t)(next - dir));
		path[next - dir] = '\0';
		if (!mounts_local(&runner_mounts, path) ||
		    lstat(path, &st) == -1 || S_ISLNK(st.st_mode))
			return 0;
	}
	return 1;
}

/* The clone child: becomes the job (child.c). */
static int
runner_child(void *arg)
{
	struct child_spec *cs = arg;

	cs->report->boot_ns = clock_boot_ns();	/* the vDSO: no system call */
	child_exec(cs);
}

/*
 * Whether the job's process can be created as posix_spawn does:
 * clone(CLONE_VM | CLONE_VFORK) on a stack of its own, so that no page
 * table is copied and no page of the daemon is made copy-on-write (with
 * fork both grow with the daemon: at 1000 jobs in one second, most of its
 * CPU time).  The thread that makes it (the spawner, or the loop when
 * there is none) is suspended until the child has exec'd or exited, so
 * one stack serves every spawn, and the child (child.c) writes nothing but
 * its own stack and its failure report.  Entering the working
 * directory is the one step of the child that could block (a hung
 * network file system), so a directory not known to be local gets fork,
 * as does everything when no stack can be had (and under
 * AddressSanitizer or valgrind).
 */
static int
runner_can_clone(const char *workdir)
{
	if (runner_stack == NULL && !RUNNER_ASAN && !RUNNER_VALGRIND) {
		runner_stack = mmap(NULL, RUNNER_STACK, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (runner_stack == MAP_FAILED)
			runner_stack = NULL;
		else	/* a guard page below it */
			(void)mprotect(runner_stack, RUNNER_GUARD, PROT_NONE);
	}
	if (workdir != NULL && !runner_dir_local(workdir)) {
		log_debug("%s is not known to be on a local file system: "
		    "fork", workdir);
		return 0;
	}
	return runner_stack != NULL;
}

/*
 * Make the process: a clone when runner_can_clone said so (the child then
 * reports into cs->report), else a fork.  -1 with errno if none.
 */
static pid_t
runner_clone(struct child_spec *cs)
{
	pid_t pid;

	if (cs->report != NULL)
		return clone(runner_child, runner_stack + RUNNER_STACK,
		    CLONE_VM | CLONE_VFORK | SIGCHLD, cs);
	if ((pid = fork()) == 0)
		child_exec(cs);
	return pid;
}

/*
 * The start time of the process just created between boot-clock readings
 * boot0 and boot1 (ns), in the clock ticks of /proc/PID/stat (field 22,
 * which the kernel takes from the same clock at the clone and truncates
 * to ticks): when both readings fall in one tick, that is the one, and
 * /proc need not be asked (an open, a read that waits for the new
 * process's memory map lock, a close: an eighth of the daemon's CPU in a
 * burst).  boot0 is read before the clone; boot1 by a clone child as it
 * begins (the kernel has stamped it by then), else after fork returned:
 * the narrower the window, the rarer a tick boundary inside it.  Else
 * /proc is read, after the pipes' closes: at its descriptor limit, tickd
 * needs one.
 */
static int64_t
runner_start_tick(pid_t pid, int64_t boot0, int64_t boot1)
{
	static int64_t	tick_ns;
	long		hz;

	if (tick_ns == 0)
		tick_ns = (hz = sysconf(_SC_CLK_TCK)) > 0 &&
		    1000000000 % hz == 0 ? 1000000000 / hz : -1;
	if (tick_ns > 0 && boot0 / tick_ns == boot1 / tick_ns)
		return boot0 / tick_ns;
	return track_pid_start(pid);		/* a zombie still has it */
}

/*
 * A pipe runner_make made, once the child has its copy: the child's
 * (write) end is closed; the daemon's goes to q->fds[i], non-blocking,
 * when there is a child, else it is closed too.
 */
static void
runner_keep_pair(struct runner_req *q, int i, int p[2])
{
	if (p[0] == -1)
		return;
	(void)close(p[1]);
	if (q->pid == -1)
		(void)close(p[0]);
	else {
		(void)fcntl(p[0], F_SETFL, O_NONBLOCK);
		q->fds[i] = p[0];
	}
}

/* Round n up to a multiple of a pointer's size. */
#define RUNNER_ALIGN(n)	(((n) + sizeof(void *) - 1) & ~(sizeof(void *) - 1))

/*
 * A request for spec, words its command's words (or NULL: /bin/sh -c):
 * the environment vector (with its spare slot), the groups and every
 * string the child reads are copied into the request's own block.
 */
static struct runner_req *
runner_req_new(const struct runner_spec *spec, char **words)
{
	struct runner_req	*q;
	const struct priv_cred	*c = spec->cred;
	size_t			 nenv, size, i, len;
	char			*p, **envv, *path = NULL;

	size = RUNNER_ALIGN(sizeof *q);
	for (nenv = 0; spec->envp[nenv] != NULL; nenv++)
		size += strlen(spec->envp[nenv]) + 1;
	size = RUNNER_ALIGN(size) + (nenv + 2) * sizeof *envv;
	size += (size_t)c->ngroups * sizeof *c->groups;
	if (spec->workdir != NULL)
		size += strlen(spec->workdir) + 1;
	if (spec->condition != NULL)
		size += strlen(spec->condition) + 1;
	if (words == NULL)
		size += strlen(spec->command) + 1;
	q = xcalloc(1, size);
	p = (char *)q + RUNNER_ALIGN(sizeof *q);
	envv = (char **)p;
	p += (nenv + 2) * sizeof *envv;
	q->cred.uid = c->uid;
	q->cred.gid = c->gid;
	q->cred.ngroups = c->ngroups;
	if (c->ngroups > 0) {
		q->cred.groups = (gid_t *)p;
		memcpy(p, c->groups, (size_t)c->ngroups * sizeof *c->groups);
		p += (size_t)c->ngroups * sizeof *c->groups;
	}
	for (i = 0; i < nenv; i++) {
		len = strlen(spec->envp[i]) + 1;
		envv[i] = memcpy(p, spec->envp[i], len);
		p += len;
		if (strncmp(envv[i], "PATH=", 5) == 0)
			path = envv[i] + 5;
	}
	envv[nenv] = envv[nenv + 1] = NULL;
	if (spec->workdir != NULL) {
		len = strlen(spec->workdir) + 1;
		q->cs.workdir = memcpy(p, spec->workdir, len);
		p += len;
	}
	if (spec->condition != NULL) {
		len = strlen(spec->condition) + 1;
		q->cs.condition = memcpy(p, spec->condition, len);
		p += len;
	}
	q->cs.envp = envv;
	q->words = words;
	q->cs.direct = words != NULL;
	if (q->cs.direct) {
		q->cs.search = path;
		q->cs.argv = words + 1;
	} else {
		len = strlen(spec->command) + 1;
		q->argv[0] = (char *)"sh";
		q->argv[1] = (char *)"-c";
		q->argv[2] = memcpy(p, spec->command, len);
		q->argv[3] = NULL;
		q->cs.path = "/bin/sh";
		q->cs.argv = q->argv;
	}
	q->cs.cred = &q->cred;
	q->cs.same_ids = priv_is_self(spec->cred);
	q->cs.signals = child_signals_set();
	q->cs.workdir_home = spec->workdir_home;
	q->cs.nofile = runner_nofile_raised ? &runner_nofile : NULL;
	q->fds[0] = q->fds[1] = q->fds[2] = -1;
	q->join = -1;
	q->pid = -1;
	q->pid_start = -1;
	return q;
}

static void
runner_req_free(struct runner_req *q)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (q->fds[i] != -1)
			(void)close(q->fds[i]);
	}
	if (q->join != -1)
		(void)close(q->join);
	free(q->words);
	free(q);
}

/*
 * Make a request's pipes and process, and close the child's ends (and
 * its cgroup's descriptor) once it has its copies; the daemon's ends go
 * back in q->fds.  In the spawner thread (every signal blocked since it
 * began), or in the loop when there is none.
 */
static void
runner_make(struct runner_req *q, int spawner)
{
	int		out[2] = { -1, -1 }, err[2] = { -1, -1 };
	int		st[2] = { -1, -1 };
	sigset_t	all, old;
	int64_t		boot0 = 0, boot1 = 0;

	q->started_ms = clock_wall_ms();
	q->started_mono = clock_mono_ms();
	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1 ||
	    (q->cs.report == NULL && pipe2(st, O_CLOEXEC) == -1)) {
		/* EMFILE: each running job holds two descriptors here. */
		q->stage = CHILD_PIPE;
		q->error = errno;
		goto out;
	}
	q->cs.out_fd = out[1];
	q->cs.err_fd = err[1];
	q->cs.status_fd = st[1];
	/* No signal may run a daemon handler in the child. */
	if (!spawner) {
		(void)sigfillset(&all);
		(void)sigprocmask(SIG_SETMASK, &all, &old);
	}
	boot0 = clock_boot_ns();
	q->pid = runner_clone(&q->cs);
	q->error = errno;
	boot1 = q->cs.report != NULL && q->pid != -1 ? q->report.boot_ns :
	    clock_boot_ns();
	if (!spawner)
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
	if (q->pid == -1) {
		/* EAGAIN: RLIMIT_NPROC, a pids cgroup, threads-max. */
		q->stage = CHILD_FORK;
		goto out;
	}
out:
	/*
	 * A clone child has exec'd or exited, a forked one has its copies:
	 * the child's ends go, ours are kept if there is a child.
	 */
	runner_keep_pair(q, 0, out);
	runner_keep_pair(q, 1, err);
	runner_keep_pair(q, 2, st);
	if (q->join != -1)
		(void)close(q->join);
	q->join = -1;
	/* After the closes: at its descriptor limit, tickd needs one. */
	if (q->pid != -1)
		q->pid_start = runner_start_tick(q->pid, boot0, boot1);
}

/*
 * The spawner thread: makes the processes of the requests in the order
 * they were posted and hands each back to the loop (runner_made_cb).
 * It calls nothing of the loop's but ev_async_send, logs nothing, and
 * lives as long as the daemon.
 */
static void *
runner_spawner(void *arg)
{
	struct runner_req	*q;
	int			 wake;

	(void)arg;
	for (;;) {
		(void)pthread_mutex_lock(&runner_mu);
		while (runner_todo == NULL)
			(void)pthread_cond_wait(&runner_cv, &runner_mu);
		q = runner_todo;
		if ((runner_todo = q->next) == NULL)
			runner_todo_tail = &runner_todo;
		(void)pthread_mutex_unlock(&runner_mu);

		runner_make(q, 1);
		if (runner_slow)	/* its child ends before it is back */
			(void)nanosleep(&(struct timespec){ 0, 200000000 },
			    NULL);

		(void)pthread_mutex_lock(&runner_mu);
		q->next = NULL;
		*runner_made_tail = q;
		runner_made_tail = &q->next;
		/*
		 * Wake the loop at the end of the queue, or every
		 * RUNNER_WAKE_EVERY: within a burst it wakes often enough for
		 * its children's output and ends, and takes what is made
		 * back then (runner_prepare_cb), with one store commit for
		 * them all instead of a loop iteration (and a commit) each.
		 */
		wake = runner_todo == NULL || runner_slow ||
		    ++runner_unwoken >= RUNNER_WAKE_EVERY;
		if (wake)
			runner_unwoken = 0;
		(void)pthread_mutex_unlock(&runner_mu);
		if (wake)
			ev_async_send(runner_loop, &runner_made_w);
	}
	return NULL;
}

/*
 * Start the spawner thread, with every signal blocked: the loop's
 * signals (SIGCHLD, SIGTERM, SIGHUP) go to the loop, and its children
 * begin with every signal blocked (child.c).  Without a thread the loop
 * makes each process itself.
 */
static void
runner_spawner_start(void)
{
	pthread_attr_t	attr;
	pthread_t	tid;
	sigset_t	all, old;
	int		e;

	(void)sigfillset(&all);
	(void)pthread_sigmask(SIG_SETMASK, &all, &old);
	(void)pthread_attr_init(&attr);
	(void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* It runs runner_make and little else (more under the sanitizers). */
	(void)pthread_attr_setstacksize(&attr, 256 * 1024 +
	    (size_t)PTHREAD_STACK_MIN);
	e = pthread_create(&tid, &attr, runner_spawner, NULL);
	(void)pthread_attr_destroy(&attr);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		log_warn("the spawner thread: %s: processes are made in the "
		    "loop", strerror(e));
		runner_thread = -1;
	} else
		runner_thread = 1;
}

/*
 * Hand a request to the spawner, or, when there is none, make it now.
 * Either way it comes back through runner_made_drain (woken by the
 * spawner, or before the loop waits again: runner_prepare_cb), in the
 * order posted, never before this returns.
 */
static void
runner_post(struct runner_req *q)
{
	q->seq = runner_posted++;
	q->next = NULL;
	runner_inflight++;
	if (runner_thread == 0)
		runner_spawner_start();
	if (runner_thread == 1) {
		(void)pthread_mutex_lock(&runner_mu);
		*runner_todo_tail = q;
		runner_todo_tail = &q->next;
		(void)pthread_cond_signal(&runner_cv);
		(void)pthread_mutex_unlock(&runner_mu);
		return;
	}
	runner_make(q, 0);
	(void)pthread_mutex_lock(&runner_mu);
	*runner_made_tail = q;
	runner_made_tail = &q->next;
	(void)pthread_mutex_unlock(&runner_mu);
}

/*
 * A child was reaped that no run has, while requests are out: it may be
 * one whose request has not come back yet (the spawner is between its
 * clone and handing it back).  Kept until every request posted before
 * now has come back; pids are never taken again so soon, but the order
 * makes it exact.
 */
static void
runner_early_add(pid_t pid, int status, const struct rusage *ru)
{
	struct runner_early *e;

	log_debug("reaped pid %ld before its spawn request came back",
	    (long)pid);
	runner_earlies = xreallocarray(runner_earlies, runner_nearly + 1,
	    sizeof *runner_earlies);
	e = &runner_earlies[runner_nearly++];
	e->pid = pid;
	e->status = status;
	e->ru = *ru;
	e->posted = runner_posted;
}

/* Take a child reaped early for a request posted as seq, if any. */
static int
runner_early_take(pid_t pid, uint64_t seq, struct runner_early *out)
{
	size_t i;

	for (i = 0; i < runner_nearly; i++) {
		if (runner_earlies[i].pid == pid &&
		    seq < runner_earlies[i].posted) {
			*out = runner_earlies[i];
			runner_earlies[i] = runner_earlies[--runner_nearly];
			return 1;
		}
	}
	return 0;
}

/*
 * Request seq came back, and every one before it (they come back in
 * order): forget the children reaped early that none still out can have
 * made.  Those were no job's (reparented descendants).
 */
static void
runner_early_forget(uint64_t seq)
{
	size_t i = 0;

	while (i < runner_nearly) {
		if (runner_earlies[i].posted <= seq + 1) {
			log_debug("reaped pid %ld, not a job (a reparented "
			    "descendant?)", (long)runner_earlies[i].pid);
			runner_earlies[i] = runner_earlies[--runner_nearly];
		} else
			i++;
	}
}

/* No process for r: the report says why, as a failed child's would. */
static void
runner_no_process(struct run *r, int stage, int error)
{
	r->spawn_failed = 1;
	r->report.stage = stage;
	r->report.error = error;
}

/*
 * A request came back: its run has a process (or none could be made,
 * and the run ends as a spawn failure).  A stop asked meanwhile is
 * carried out now, and a child reaped before this is reaped now.
 */
static void
runner_made_one(struct runner_req *q)
{
	struct run		*r = q->r;
	struct runner_early	 e;
	uint64_t		 seq = q->seq;
	size_t			 slot;
	int			 early;

	runner_inflight--;
	r->spawning = 0;
	r->started_ms = q->started_ms;
	r->started_mono = q->started_mono;
	if (q->pid == -1) {
		runner_no_process(r, q->stage, q->error);
		r->reaped = 1;
		r->wstatus = -1;
		runner_req_free(q);
		runner_n--;
		runner_early_forget(seq);
		runner_done(r, runner_arg);
		return;
	}
	r->pid = q->pid;
	r->pid_start = q->pid_start;
	r->out.fd = q->fds[0];
	r->err.fd = q->fds[1];
	r->status_fd = q->fds[2];
	q->fds[0] = q->fds[1] = q->fds[2] = -1;
	ev_io_init(&r->out.w, runner_out_cb, r->out.fd, EV_READ);
	ev_io_init(&r->err.w, runner_out_cb, r->err.fd, EV_READ);
	r->out.w.data = r->err.w.data = r->status_w.data = r;
	ev_io_start(runner_loop, &r->out.w);
	ev_io_start(runner_loop, &r->err.w);
	if (r->status_fd != -1) {
		ev_io_init(&r->status_w, runner_status_cb, r->status_fd,
		    EV_READ);
		ev_io_start(runner_loop, &r->status_w);
	}
	slot = runner_slot(r->pid);
	r->hnext = runner_hash[slot];
	runner_hash[slot] = r;
	runner_spawned(r, runner_arg);
	/* A clone child has exec'd, or failed, by the time clone returns. */
	if (q->cs.report != NULL)
		runner_exec_known(r, q->report.stage != 0 ? &q->report : NULL);
	if (r->stop_deferred)
		runner_stop(r, r->kill_signal, r->kill_grace);
	early = runner_early_take(q->pid, seq, &e);
	runner_early_forget(seq);
	runner_req_free(q);
	if (early)
		runner_reap(e.pid, e.status, &e.ru);
}

/* Take every request made back, in order. */
static void
runner_made_drain(void)
{
	struct runner_req *q, *next;

	(void)pthread_mutex_lock(&runner_mu);
	q = runner_made;
	runner_made = NULL;
	runner_made_tail = &runner_made;
	(void)pthread_mutex_unlock(&runner_mu);
	for (; q != NULL; q = next) {
		next = q->next;
		runner_made_one(q);
	}
}

static void
runner_made_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	runner_made_drain();
}

/*
 * Before the loop waits: what the spawner made meanwhile comes back (its
 * priority puts it before the server's, whose flush then records their
 * pids).
 */
static void
runner_prepare_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	if (runner_inflight > 0)
		runner_made_drain();
}

/*
 * Start the run's process: what can fail for the run alone is prepared
 * here, in the loop (its cgroup, its words), and the pipes and the
 * process are made by the spawner thread, so that the loop goes on
 * meanwhile; its pid reaches the run, and the spawned callback, when the
 * spawner hands it back (never before this returns).  Returns 0 (the
 * run's end, even when no process could be made, arrives through the
 * done callback), or -1 with *cause set when nothing could be prepared.
 */
int
runner_spawn(struct run *r, const struct runner_spec *spec, char **cause)
{
	struct runner_req	*q;
	char			**words, *why = NULL;
	int			 join = -1, use_clone;

	/* Where its processes will be told apart (its cgroup). */
	if (r->track->prepare(r, spec->limits, &join, cause) == -1) {
		runner_no_process(r, CHILD_TRACK, 0);
		r->spawn_why = xstrdup(*cause);
		return -1;
	}
	/*
	 * The program: the command's words when it needs no shell (shwords.c)
	 * or the exec key's, else /bin/sh -c COMMAND.  Words get a spare slot
	 * before them and the environment one after it (child.h).
	 */
	words = spec->exec ? shwords_exec_split(spec->command, 1, &why) :
	    shwords_split(spec->command, 1);
	if (words == NULL && spec->exec) {	/* checked at load */
		*cause = xasprintf("exec: %s", why);
		free(why);
		if (join != -1)
			(void)close(join);
		r->track->release(r);
		runner_no_process(r, CHILD_EXEC, EINVAL);
		return -1;
	}
	/* A clone child reports into its request: no status pipe. */
	use_clone = spec->condition == NULL &&
	    runner_can_clone(spec->workdir);
	q = runner_req_new(spec, words);
	q->r = r;
	q->join = q->cs.join_fd = join;
	q->cs.report = use_clone ? &q->report : NULL;
	r->spawning = 1;
	r->started_ms = clock_wall_ms();	/* until the spawner's */
	r->started_mono = clock_mono_ms();
	runner_n++;
	runner_post(q);
	return 0;
}

/*
 * A child exited (status as from wait4, ru its resource usage).  Finds
 * its run, collects a spawn failure report, drains and closes its
 * output, reads what the attempt used, and hands the run to the done
 * callback, which owns it from then on.
 */
void
runner_reap(pid_t pid, int status, const struct rusage *ru)
{
	struct run	**rp = runner_find(pid), *r;

	if (*rp == NULL && runner_inflight > 0) {
		/* Made, but not yet back from the spawner? */
		runner_made_drain();
		if (*(rp = runner_find(pid)) == NULL && runner_inflight > 0) {
			runner_early_add(pid, status, ru);
			return;
		}
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
	r->track->usage(r, ru, &r->usage);
	runner_done(r, runner_arg);
}

/* Free a run that is not (or no longer) in the pid table. */
void
runner_free(struct run *r)
{
	if (r == NULL)
		return;
	ev_timer_stop(runner_loop, &r->timeout_w);
	ev_timer_stop(runner_loop, &r->kill_w);
	ev_timer_stop(runner_loop, &r->poll_w);
	if (r->pidfd != -1) {
		ev_io_stop(runner_loop, &r->pidfd_w);
		(void)close(r->pidfd);
	}
	track_cgroup_unfollow(r);
	runner_close_fds(r);
	free(r->tail);
	free(r->capture);
	free(r->ckpt);
	free(r->job);
	free(r->run_id);
	free(r->trigger);
	free(r->cgroup);
	free(r->spawn_why);
	free(r);
}

/*
 * The process-group way's snapshot of /proc is good for one loop
 * iteration: forget it in a new one.
 */
static void
runner_snap_iter(void)
{
	static unsigned int	iter;
	static int		iter_ok;

	if (!iter_ok || iter != ev_iteration(runner_loop)) {
		track_pgrp_snap_forget();
		iter = ev_iteration(runner_loop);
		iter_ok = 1;
	}
}

/*
 * Send sig to every process of a run, once each, as its way of tracking
 * says (track.h).  Returns how many live processes the run had.  The
 * process-group way reads /proc once per loop iteration: stopping many
 * runs at once reads it once.
 */
int
runner_kill_tree(struct run *r, int sig)
{
	runner_snap_iter();
	return r->track->signal(r, sig);
}

/* The grace after kill_signal has passed: SIGKILL what is left. */
static void
runner_kill_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct run	*r = w->data;
	struct log_job	 lj;

	(void)loop;
	(void)revents;
	runner_log_job(r, &lj);
	log_job(LOG_WARNING, LOG_EV_NONE, &lj, "job %s: run %s did not stop "
	    "within %.0fs of signal %d: SIGKILL", r->job, r->run_id,
	    r->kill_grace, r->kill_signal);
	(void)runner_kill_tree(r, SIGKILL);
}

/*
 * Ask a run to stop: sig to all its processes now, SIGKILL after grace
 * seconds if its main process has not ended.
 */
void
runner_stop(struct run *r, int sig, double grace)
{
	if (r->reaped)
		return;
	r->kill_signal = sig;
	r->kill_grace = grace;
	if (r->spawning) {		/* when its process exists */
		log_debug("job %s: run %s attempt %d: stopped once its "
		    "process exists", r->job, r->run_id, r->attempt);
		r->stop_deferred = 1;
		return;
	}
	(void)runner_kill_tree(r, sig);
	if (!ev_is_active(&r->kill_w)) {
		ev_now_update(runner_loop);	/* the grace counts from now */
		ev_timer_init(&r->kill_w, runner_kill_cb, grace, 0);
		r->kill_w.data = r;
		ev_timer_start(runner_loop, &r->kill_w);
	}
}

/*
 * What is left of a stopped run once its main process has ended: a copy
 * of what its way of tracking needs (its ids, its pid, its cgroup).
 */
struct runner_sweeper {
	ev_timer		 w;
	struct run		 r;
	struct runner_sweeper	*next;
};

static struct runner_sweeper	*runner_sweepers;
static ev_timer			 runner_sweeps_w;	/* runner_finish */
static int			 runner_finishing;

/* A sweep is over: let the run's cgroup go, forget it. */
static void
runner_sweeper_end(struct runner_sweeper *sw)
{
	struct runner_sweeper **p;

	for (p = &runner_sweepers; *p != NULL; p = &(*p)->next) {
		if (*p == sw) {
			*p = sw->next;
			break;
		}
	}
	ev_timer_stop(runner_loop, &sw->w);
	sw->r.track->release(&sw->r);
	free(sw->r.job);
	free(sw->r.run_id);
	free(sw->r.trigger);
	free(sw->r.cgroup);
	free(sw);
	runner_nsweep--;
	if (runner_sweepers == NULL)
		ev_timer_stop(runner_loop, &runner_sweeps_w);
	if (runner_nsweep == 0 && runner_n == 0)
		runner_idle(runner_arg);
}

/*
 * While tickd stops: end every sweep whose run has nothing left (one
 * look at /proc for all of them), instead of waiting for its kill_grace.
 */
static void
runner_sweeps_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct runner_sweeper *sw, *next;

	(void)loop;
	(void)w;
	(void)revents;
	runner_snap_iter();
	for (sw = runner_sweepers; sw != NULL; sw = next) {
		next = sw->next;
		if (sw->r.track->signal(&sw->r, 0) == 0)
			runner_sweeper_end(sw);
	}
}

/*
 * tickd stops: a sweep ends as soon as its run has nothing left (still
 * at the latest at the end of its kill_grace), so that the daemon exits
 * once everything it ran is gone, not a kill_grace later.
 */
void
runner_finish(void)
{
	runner_finishing = 1;
	if (runner_sweepers != NULL && !ev_is_active(&runner_sweeps_w)) {
		ev_timer_init(&runner_sweeps_w, runner_sweeps_cb, 0,
		    RUNNER_SWEEP_POLL);
		ev_timer_start(runner_loop, &runner_sweeps_w);
	}
}

/*
 * The kill grace of an ended run is over: SIGKILL what is left of it
 * (its own processes only: never the next attempt's, nor its
 * on_failure command's), then let its cgroup go.
 */
static void
runner_sweeper_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct runner_sweeper	*sw = w->data;
	struct log_job		 lj;
	int			 n;

	(void)loop;
	(void)revents;
	runner_snap_iter();
	runner_log_job(&sw->r, &lj);
	if ((n = sw->r.track->sweep(&sw->r)) > 0)
		log_job(LOG_WARNING, LOG_EV_NONE, &lj, "job %s: run %s: %d "
		    "leftover process%s killed at the end of its kill_grace",
		    sw->r.job, sw->r.run_id, n, n == 1 ? "" : "es");
	else
		log_debug("job %s: run %s attempt %d: nothing left at the end "
		    "of its kill_grace", sw->r.job, sw->r.run_id,
		    sw->r.attempt);
	runner_sweeper_end(sw);
}

/*
 * A stopped run (timeout, replace, shutdown) has ended: its descendants
 * get the rest of its kill_grace to finish, then SIGKILL, so that nothing
 * is left behind and nothing is cut short.  Its cgroup goes after that
 * (the sweeper releases it; the run itself is not released).
 */
void
runner_sweep(struct run *r)
{
	struct runner_sweeper	*sw;
	double			 left = 0;

	if (r->pid <= 0 && r->cgroup == NULL)
		return;
	if (ev_is_active(&r->kill_w))
		left = ev_timer_remaining(runner_loop, &r->kill_w);
	sw = xcalloc(1, sizeof *sw);
	sw->r.pid = r->pid;
	sw->r.pid_start = r->pid_start;
	sw->r.reaped = 1;
	sw->r.adopted = r->adopted;
	sw->r.track = r->track;
	sw->r.job = xstrdup(r->job);
	sw->r.run_id = xstrdup(r->run_id);
	sw->r.trigger = xstrdup(r->trigger);
	sw->r.attempt = r->attempt;
	sw->r.scheduled_at = r->scheduled_at;
	sw->r.hook = r->hook;
	memcpy(sw->r.invocation, r->invocation, sizeof r->invocation);
	sw->r.cgroup = r->cgroup != NULL ? xstrdup(r->cgroup) : NULL;
	ev_timer_init(&sw->w, runner_sweeper_cb, left > 0 ? left : 0, 0);
	sw->w.data = sw;
	ev_timer_start(runner_loop, &sw->w);
	sw->next = runner_sweepers;
	runner_sweepers = sw;
	runner_nsweep++;
	if (runner_finishing)
		runner_finish();
}

/*
 * The run's end is recorded: let what it lived in go (its cgroup, once
 * empty; a stopped run's after its sweep).
 */
void
runner_release(struct run *r)
{
	r->track->release(r);
}

/* An adopted run ended: its exit status cannot be known. */
static void
runner_adopted_done(struct run *r)
{
	ev_timer_stop(runner_loop, &r->poll_w);
	if (r->pidfd != -1) {
		ev_io_stop(runner_loop, &r->pidfd_w);
		(void)close(r->pidfd);
		r->pidfd = -1;
	}
	r->reaped = 1;
	r->wstatus = -1;
	runner_n--;
	r->track->usage(r, NULL, &r->usage);
	runner_done(r, runner_arg);
}

/* An adopted process ended (its pidfd is readable). */
static void
runner_pidfd_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	runner_adopted_done(w->data);
}

/*
 * An adopted run followed by polling (no pidfd: kernels before 5.3,
 * seccomp profiles that deny pidfd_open; no inotify): ended when
 * nothing of it runs any more.
 */
static void
runner_poll_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct run *r = w->data;

	(void)loop;
	(void)revents;
	if (!r->track->populated(r))
		runner_adopted_done(r);
}

/* A run followed as a group: its cgroup is empty (track-cgroup.c). */
static void
runner_group_done(struct run *r, void *arg)
{
	(void)arg;
	runner_adopted_done(r);
}

/* inotify reported a change of a watched cgroup.events. */
static void
runner_cgroup_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	(void)track_cgroup_events(runner_group_done, NULL);
}

/* Watch the cgroups' inotify descriptor in the loop (once). */
static void
runner_cgroup_watch(void)
{
	static ev_io	w;
	int		fd;

	if (ev_is_active(&w) || (fd = track_cgroup_fd()) == -1)
		return;
	ev_io_init(&w, runner_cgroup_cb, fd, EV_READ);
	ev_io_start(runner_loop, &w);
}

/*
 * Follow a run started by a previous daemon (not our child), found
 * alive by its way of tracking (track->find): its main process through
 * a pidfd, or by polling when the kernel gives none (a live process is
 * never taken for a dead one); a group through its cgroup's
 * cgroup.events.  Its end reaches the done callback with wstatus -1.
 */
void
runner_adopt(struct run *r, enum track_alive how)
{
	int fd = -1;

	r->adopted = 1;
	r->execd = 1;
	if (how == TRACK_MAIN &&
	    (fd = (int)syscall(SYS_pidfd_open, r->pid, 0)) != -1 &&
	    track_pid_start(r->pid) != r->pid_start) {
		/* Gone between the check and the pidfd: polled, it ends. */
		(void)close(fd);
		fd = -1;
	}
	if (fd != -1) {
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		r->pidfd = fd;
		ev_io_init(&r->pidfd_w, runner_pidfd_cb, fd, EV_READ);
		r->pidfd_w.data = r;
		ev_io_start(runner_loop, &r->pidfd_w);
	} else if (how == TRACK_GROUP) {
		runner_cgroup_watch();
		track_cgroup_follow(r);
	} else
		r->follow_poll = 1;
	if (r->follow_poll) {
		ev_timer_init(&r->poll_w, runner_poll_cb, RUNNER_POLL,
		    RUNNER_POLL);
		r->poll_w.data = r;
		ev_timer_start(runner_loop, &r->poll_w);
	}
	runner_n++;
}

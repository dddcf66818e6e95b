/*
 * runner.c -- spawn job processes and follow them to the end.
 *
 * runner_spawn creates the job's process with every signal blocked
 * (child.c resets them): clone(CLONE_VM | CLONE_VFORK) as posix_spawn
 * does, or fork when the working directory is not known to be local
 * (runner_clone, mounts.c).  The daemon is the direct parent of each
 * job: no double fork, exit status and duration are always known.  Two
 * pipes per run, close-on-exec in the daemon: stdout and stderr (read
 * here, split into lines of at most RUNNER_PIECE_MAX bytes and logged, so
 * a 10 MiB line costs 4 KiB of memory).  A clone child leaves a failure
 * before exec in the daemon's memory, read when clone returns (the exec
 * has happened or failed by then); a forked child reports on a third,
 * status pipe, whose EOF means exec succeeded.
 *
 * Reaping: the server's catch-all child watcher calls runner_reap for
 * every pid; runs are found in a pid hash.  A run ends when its main
 * process has exited: output still in the pipes is drained then, and the
 * pipes are closed, so a descendant that keeps them open cannot hold the
 * run (or the daemon) hostage.  Unknown pids (reparented grandchildren,
 * under PR_SET_CHILD_SUBREAPER) are logged at debug and forgotten.
 *
 * Stopping a run (timeout, replace, shutdown) signals its process group,
 * every process of its session, and any descendant of tickd still
 * carrying its TICKD_RUN_ID (one that escaped with setsid), then SIGKILLs
 * them after a grace period.  They are found in a snapshot of /proc taken
 * once per loop iteration, so that stopping many runs at once costs one
 * pass over /proc, not one per run.  A process left by a crashed daemon
 * can be adopted: followed through a pidfd, its exit status unknowable.
 *
 * DIAGNOSTICS: runner_spawn returns -1 with *cause set when no process
 * could be started (pipe or fork failure; run->report then holds the
 * stage, CHILD_PIPE or CHILD_FORK, and errno); exec failures arrive later
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
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "child.h"
#include "clock.h"
#include "log.h"
#include "mounts.h"
#include "runner.h"
#include "xmalloc.h"

#define RUNNER_HASH	4096		/* pid hash buckets */
#define RUNNER_READ_MAX	(256 * 1024)	/* bytes read per wake-up */
#define RUNNER_DRAIN_MAX (1024 * 1024)	/* bytes drained at exit */
#define RUNNER_ENV_MAX	(4 * 1024 * 1024) /* environ read at most */
#define RUNNER_STACK	(256 * 1024)	/* the clone child's stack */
#define RUNNER_GUARD	4096		/* its guard page */
#define RUNNER_FDS_PER_RUN 2		/* output pipes held per run */
#define RUNNER_FDS_KEPT	128		/* for the rest: runner_budget */

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
static runner_cb	 runner_started;
static runner_cb	 runner_done;
static void		*runner_arg;
static struct run	*runner_hash[RUNNER_HASH];
static size_t		 runner_n;
static char		*runner_stack;		/* the clone child's */
static struct rlimit	 runner_nofile;		/* tickd's, at start */
static int		 runner_nofile_raised;
static struct mounts	 runner_mounts;		/* runner_dir_local */
static int		 runner_mounts_fd = -1;	/* /proc/self/mountinfo */
static int		 runner_mounts_ok;

/* A process as /proc showed it, for runner_kill_tree (runner_snap). */
struct runner_proc {
	long		 pid, ppid, pgrp, sid;
	int		 mine;		/* descends from tickd: 1, not: 2 */
	char		*run_id;	/* its TICKD_RUN_ID, if mine */
};

static struct runner_proc *runner_procs;	/* sorted by pid */
static size_t		 runner_nprocs, runner_procs_cap;
static unsigned int	 runner_snap_iter;	/* ev_iteration of it */
static int		 runner_snap_ok;

static void	runner_mounts_refresh(void);

/*
 * Set up the runner: the loop for its watchers, the callback told when a
 * process has exec'd its program, and the one told when it has ended.
 */
void
runner_init(struct ev_loop *loop, runner_cb started, runner_cb done,
    void *arg)
{
	runner_loop = loop;
	/* Held from the start: counted in the idle descriptor budget. */
	runner_mounts_refresh();
	runner_started = started;
	runner_done = done;
	runner_arg = arg;
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
 * the exec-status pipes of a dispatch batch (up to 32, read in the next
 * loop iteration), on_failure commands, control clients and SQLite's
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
	r->pid_start = -1;
	r->status_fd = r->out.fd = r->err.fd = r->pidfd = -1;
	r->kill_signal = SIGTERM;
	ev_init(&r->timeout_w, NULL);
	ev_init(&r->kill_w, NULL);
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
 * What became of the child before its program, from its report (clone)
 * or its status pipe (fork): failed, the report is kept for the reap;
 * else it exec'd, and the started callback runs.
 */
static void
runner_exec_known(struct run *r, const struct child_report *failed)
{
	if (failed != NULL) {
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
 * CPU time).  The daemon is suspended until the child has exec'd or
 * exited, so one stack serves every spawn, and the child (child.c) writes
 * nothing but its own stack and its failure report.  Entering the working
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
	return runner_pid_start(pid);		/* a zombie still has it */
}

/*
 * Start the run's process.  Returns 0 (r->pid set; its end arrives through
 * the done callback), or -1 with *cause set when no process exists.
 */
int
runner_spawn(struct run *r, const struct runner_spec *spec, char **cause)
{
	int			 out[2] = { -1, -1 }, err[2] = { -1, -1 };
	int			 st[2] = { -1, -1 }, saved, stage, use_clone;
	char			*argv[4];
	struct child_spec	 cs;
	struct child_report	 report = { 0, 0, 0 };
	sigset_t		 all, old;
	pid_t			 pid;
	size_t			 slot;
	int64_t			 boot0, boot1;

	/* A clone child reports into `report`: no status pipe. */
	use_clone = runner_can_clone(spec->workdir);
	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1 ||
	    (!use_clone && pipe2(st, O_CLOEXEC) == -1)) {
		/* EMFILE: each running job holds two descriptors here. */
		saved = errno;
		stage = CHILD_PIPE;
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
	cs.report = use_clone ? &report : NULL;
	cs.nofile = runner_nofile_raised ? &runner_nofile : NULL;

	/* No signal may run a daemon handler in the child. */
	(void)sigfillset(&all);
	(void)sigprocmask(SIG_SETMASK, &all, &old);
	r->started_ms = clock_wall_ms();
	r->started_mono = clock_mono_ms();
	boot0 = clock_boot_ns();
	pid = runner_clone(&cs);
	saved = errno;
	boot1 = use_clone && pid != -1 ? report.boot_ns : clock_boot_ns();
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid == -1) {
		/* EAGAIN: RLIMIT_NPROC, a pids cgroup, threads-max. */
		stage = CHILD_FORK;
		*cause = xasprintf("fork: %s", strerror(saved));
		goto fail;
	}

	r->pid = pid;
	(void)close(out[1]);
	(void)close(err[1]);
	if (st[1] != -1)
		(void)close(st[1]);
	r->pid_start = runner_start_tick(pid, boot0, boot1);
	r->out.fd = out[0];
	r->err.fd = err[0];
	r->status_fd = st[0];
	(void)fcntl(out[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(err[0], F_SETFL, O_NONBLOCK);
	ev_io_init(&r->out.w, runner_out_cb, r->out.fd, EV_READ);
	ev_io_init(&r->err.w, runner_out_cb, r->err.fd, EV_READ);
	r->out.w.data = r->err.w.data = r->status_w.data = r;
	ev_io_start(runner_loop, &r->out.w);
	ev_io_start(runner_loop, &r->err.w);
	if (st[0] != -1) {
		(void)fcntl(st[0], F_SETFL, O_NONBLOCK);
		ev_io_init(&r->status_w, runner_status_cb, r->status_fd,
		    EV_READ);
		ev_io_start(runner_loop, &r->status_w);
	}

	slot = runner_slot(pid);
	r->hnext = runner_hash[slot];
	runner_hash[slot] = r;
	runner_n++;
	/* A clone child has exec'd, or failed, by the time clone returns. */
	if (use_clone)
		runner_exec_known(r, report.stage != 0 ? &report : NULL);
	return 0;

fail:
	/* No process: the report says why, as a child's would. */
	r->spawn_failed = 1;
	r->report.stage = stage;
	r->report.error = saved;
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
	ev_timer_stop(runner_loop, &r->timeout_w);
	ev_timer_stop(runner_loop, &r->kill_w);
	if (r->pidfd != -1) {
		ev_io_stop(runner_loop, &r->pidfd_w);
		(void)close(r->pidfd);
	}
	runner_close_fds(r);
	free(r->tail);
	free(r->job);
	free(r->run_id);
	free(r->trigger);
	free(r);
}

/*
 * The start time of a process (field 22 of /proc/PID/stat, clock ticks
 * since boot): with the pid, it identifies the process across pid reuse.
 * -1 if unknown.
 */
int64_t
runner_pid_start(pid_t pid)
{
	char		 path[64], buf[1024], *p;
	long long	 v;
	ssize_t		 n;
	int		 fd, field;

	(void)snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	(void)close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The command name may hold anything: count from its last ')'. */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%lld", &v) != 1)
		return -1;
	return (int64_t)v;
}

/* The state letter of a process (R, S, D, Z, ...), or 0 if unknown. */
static int
runner_proc_state(pid_t pid)
{
	char	 path[64], buf[512], *p;
	ssize_t	 n;
	int	 fd;

	(void)snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	(void)close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 0;
	return (unsigned char)p[2];
}

/*
 * The value of TICKD_RUN_ID in process pid's environment, or NULL.  The
 * variable is set last, so it is near the end: the whole environment is
 * read (into a buffer kept between calls).
 */
static char *
runner_env_run_id(long pid)
{
	static char	*buf;
	static size_t	 cap;
	static const char name[] = "TICKD_RUN_ID=";
	char		 path[64], *p, *end, *id = NULL;
	size_t		 got = 0;
	ssize_t		 n;
	int		 fd;

	(void)snprintf(path, sizeof path, "/proc/%ld/environ", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	for (;;) {
		if (got == cap) {
			if (cap >= RUNNER_ENV_MAX)
				break;
			cap = cap == 0 ? 65536 : cap * 2;
			buf = xreallocarray(buf, cap, 1);
		}
		if ((n = read(fd, buf + got, cap - got)) <= 0)
			break;
		got += (size_t)n;
	}
	(void)close(fd);
	for (p = buf, end = buf + got; p < end; p += strlen(p) + 1) {
		if (memchr(p, '\0', (size_t)(end - p)) == NULL)
			break;
		if (strncmp(p, name, sizeof name - 1) == 0)
			id = p + sizeof name - 1;	/* the last one counts */
	}
	return id != NULL ? xstrdup(id) : NULL;
}

/* One line of /proc/PID/stat: state, parent, group and session. */
static int
runner_proc_stat(long pid, int *state, long *ppid, long *pgrp, long *sid)
{
	char	 path[64], buf[512], *p;
	ssize_t	 n;
	int	 fd;

	(void)snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	(void)close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' ||
	    sscanf(p + 2, "%*c %ld %ld %ld", ppid, pgrp, sid) != 3)
		return -1;
	*state = (unsigned char)p[2];
	return 0;
}

/* Order of the snapshot: by pid. */
static int
runner_proc_cmp(const void *a, const void *b)
{
	const struct runner_proc *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* A process of the snapshot by pid, or NULL. */
static struct runner_proc *
runner_proc_find(long pid)
{
	struct runner_proc key;

	key.pid = pid;
	return bsearch(&key, runner_procs, runner_nprocs, sizeof key,
	    runner_proc_cmp);
}

/*
 * Whether a process of the snapshot descends from tickd: through a run's
 * main process, or handed to tickd, the subreaper, when its parent died.
 * Memoized along the chain.
 */
static int
runner_proc_mine(struct runner_proc *e)
{
	struct runner_proc	*chain[64], *q;
	size_t			 n = 0, i;
	int			 mine = 2;

	for (q = e; q != NULL && n < sizeof chain / sizeof chain[0];
	    q = runner_proc_find(q->ppid)) {
		if (q->mine != 0) {
			mine = q->mine;
			break;
		}
		chain[n++] = q;
		if (q->ppid == (long)getpid()) {
			mine = 1;
			break;
		}
		if (q->ppid <= 1)
			break;
	}
	for (i = 0; i < n; i++)
		chain[i]->mine = mine;
	return mine == 1;
}

/*
 * Read every live process from /proc: pid, parent, group, session, and
 * for tickd's descendants their TICKD_RUN_ID.  Kept for the rest of the
 * loop iteration: stopping many runs at once (shutdown, timeouts due
 * together) reads /proc once, not once per run.
 */
static void
runner_snap(void)
{
	DIR		*d;
	struct dirent	*de;
	char		*p;
	long		 pid, ppid, pgrp, sid;
	size_t		 i;
	int		 state;

	if (runner_snap_ok && runner_snap_iter == ev_iteration(runner_loop))
		return;
	for (i = 0; i < runner_nprocs; i++)
		free(runner_procs[i].run_id);
	runner_nprocs = 0;
	runner_snap_ok = 1;
	runner_snap_iter = ev_iteration(runner_loop);
	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if ((pid = strtol(de->d_name, &p, 10)) <= 1 || *p != '\0' ||
		    pid == (long)getpid() ||
		    runner_proc_stat(pid, &state, &ppid, &pgrp, &sid) == -1 ||
		    state == 'Z')
			continue;
		if (runner_nprocs == runner_procs_cap) {
			runner_procs_cap = runner_procs_cap == 0 ? 1024 :
			    runner_procs_cap * 2;
			runner_procs = xreallocarray(runner_procs,
			    runner_procs_cap, sizeof *runner_procs);
		}
		runner_procs[runner_nprocs++] = (struct runner_proc){ pid,
		    ppid, pgrp, sid, 0, NULL };
	}
	(void)closedir(d);
	qsort(runner_procs, runner_nprocs, sizeof *runner_procs,
	    runner_proc_cmp);
	for (i = 0; i < runner_nprocs; i++) {
		if (runner_proc_mine(&runner_procs[i]))
			runner_procs[i].run_id =
			    runner_env_run_id(runner_procs[i].pid);
	}
}

/*
 * Send sig to every process of a run, once each: its process group
 * (with one kill), then, found in /proc, the other members of its
 * session (descendants that made their own group) and its descendants
 * that made their own session but still carry its TICKD_RUN_ID (the same
 * id in another daemon's process does not count: it does not descend
 * from this tickd).  Returns how many live processes of the run there
 * were, group included.
 */
int
runner_kill_tree(struct run *r, int sig)
{
	struct runner_proc	*e;
	size_t			 i;
	int			 count = 0;

	if (r->pid <= 0)
		return 0;
	/*
	 * /proc first: read after a SIGKILL, the group's members may be
	 * zombies already, and would not be counted.
	 */
	runner_snap();
	/* The group outlives its leader while members remain. */
	(void)kill(-r->pid, sig);
	for (i = 0; i < runner_nprocs; i++) {
		e = &runner_procs[i];
		if (e->pgrp == (long)r->pid) {	/* signalled with the group */
			count++;
			continue;
		}
		if (e->sid == (long)r->pid || (e->run_id != NULL &&
		    r->run_id[0] != '\0' && strcmp(e->run_id, r->run_id) == 0)) {
			if (kill((pid_t)e->pid, sig) == 0)
				count++;
		}
	}
	return count;
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
	(void)runner_kill_tree(r, sig);
	if (!ev_is_active(&r->kill_w)) {
		ev_now_update(runner_loop);	/* the grace counts from now */
		ev_timer_init(&r->kill_w, runner_kill_cb, grace, 0);
		r->kill_w.data = r;
		ev_timer_start(runner_loop, &r->kill_w);
	}
}

/* What is left of a stopped run once its main process has ended. */
struct runner_sweeper {
	ev_timer	 w;
	struct run	 r;		/* a copy: ids, pid, journal fields */
	char		*run_id;
};

/* The kill grace of an ended run is over: SIGKILL what is left. */
static void
runner_sweeper_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct runner_sweeper	*sw = w->data;
	struct log_job		 lj;
	int			 n;

	(void)loop;
	(void)revents;
	if ((n = runner_kill_tree(&sw->r, SIGKILL)) > 0) {
		runner_log_job(&sw->r, &lj);
		log_job(LOG_WARNING, LOG_EV_NONE, &lj, "job %s: run %s: %d "
		    "leftover process%s killed at the end of its kill_grace",
		    sw->r.job, sw->run_id, n, n == 1 ? "" : "es");
	}
	free(sw->r.job);
	free(sw->r.trigger);
	free(sw->run_id);
	free(sw);
}

/*
 * A stopped run (timeout, replace, shutdown) has ended: its descendants
 * get the rest of its kill_grace to finish, then SIGKILL, so that nothing
 * is left behind and nothing is cut short.
 */
void
runner_sweep(struct run *r)
{
	struct runner_sweeper	*sw;
	double			 left = 0;

	if (r->pid <= 0)
		return;
	if (ev_is_active(&r->kill_w))
		left = ev_timer_remaining(runner_loop, &r->kill_w);
	sw = xcalloc(1, sizeof *sw);
	sw->run_id = xstrdup(r->run_id);
	sw->r.pid = r->pid;
	sw->r.run_id = sw->run_id;
	sw->r.job = xstrdup(r->job);
	sw->r.trigger = xstrdup(r->trigger);
	sw->r.attempt = r->attempt;
	sw->r.scheduled_at = r->scheduled_at;
	ev_timer_init(&sw->w, runner_sweeper_cb, left > 0 ? left : 0, 0);
	sw->w.data = sw;
	ev_timer_start(runner_loop, &sw->w);
}

/* An adopted process ended: its exit status cannot be known. */
static void
runner_pidfd_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct run *r = w->data;

	(void)loop;
	(void)revents;
	ev_io_stop(runner_loop, &r->pidfd_w);
	(void)close(r->pidfd);
	r->pidfd = -1;
	r->reaped = 1;
	r->wstatus = -1;
	runner_n--;
	runner_done(r, runner_arg);
}

/*
 * Follow a process started by a previous daemon (not our child): its end
 * is noticed through a pidfd, and the done callback gets wstatus -1.
 * Returns 0, or -1 with *cause set if the process cannot be followed
 * (then it is gone, or was never ours).
 */
int
runner_adopt(struct run *r, pid_t pid, int64_t pid_start, char **cause)
{
	int fd;

	if (runner_pid_start(pid) != pid_start || pid_start == -1 ||
	    runner_proc_state(pid) == 'Z') {
		*cause = xasprintf("pid %ld is gone or is another process",
		    (long)pid);
		return -1;
	}
	if ((fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1) {
		*cause = xasprintf("pidfd_open %ld: %s", (long)pid,
		    strerror(errno));
		return -1;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* Check again now that the pidfd pins the process identity. */
	if (runner_pid_start(pid) != pid_start) {
		(void)close(fd);
		*cause = xasprintf("pid %ld is gone", (long)pid);
		return -1;
	}
	r->pid = pid;
	r->pid_start = pid_start;
	r->adopted = 1;
	r->execd = 1;
	r->pidfd = fd;
	ev_io_init(&r->pidfd_w, runner_pidfd_cb, fd, EV_READ);
	r->pidfd_w.data = r;
	ev_io_start(runner_loop, &r->pidfd_w);
	runner_n++;
	return 0;
}

/*
 * The main process of a run, found by its TICKD_RUN_ID: a session leader
 * (jobs start one) carrying the marker.  For the crash window between a
 * fork and the record of its pid.  Returns the pid and *start, or -1.
 */
pid_t
runner_find_marker(const char *run_id, int64_t *start)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[64], buf[512], *p, *id;
	long		 pid, sid;
	ssize_t		 n;
	pid_t		 found = -1;
	int		 fd;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while (found == -1 && (de = readdir(d)) != NULL) {
		if ((pid = strtol(de->d_name, &p, 10)) <= 1 || *p != '\0')
			continue;
		(void)snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		(void)close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if ((p = strrchr(buf, ')')) == NULL || p[2] == 'Z' ||
		    sscanf(p + 2, "%*c %*d %*d %ld", &sid) != 1 || sid != pid)
			continue;
		if ((id = runner_env_run_id(pid)) != NULL &&
		    strcmp(id, run_id) == 0) {
			found = (pid_t)pid;
			*start = runner_pid_start(found);
		}
		free(id);
	}
	(void)closedir(d);
	return found;
}

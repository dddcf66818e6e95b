/*
 * child.c -- the code that runs between fork and exec.
 *
 * WARNING: everything in child_exec runs in a child that usually shares
 * the daemon's memory (runner.c: clone(CLONE_VM | CLONE_VFORK), the daemon
 * suspended until exec), else in a forked one: async-signal-safe calls
 * only, and no write to anything but local variables and the report
 * (errno aside: the daemon reads it only when no child was made).  No
 * malloc, no stdio, no logging, no name service (credentials were
 * resolved in the parent by priv.c).  The signal handlers are the child's
 * own copy (no CLONE_SIGHAND), so resetting them leaves the daemon's
 * alone.
 * The parent blocked every signal around fork; here each disposition is
 * reset to its default while still blocked, and only then is the mask
 * cleared, so no signal can run a daemon handler inside the child.
 *
 * Order: into its cgroup (writing itself to the cgroup.procs the parent
 * opened: first, so that everything it will ever start is born there),
 * own session (setsid, so timeouts can kill the whole group),
 * signals, stdout and stderr to the output pipes, close every other
 * descriptor but the status pipe, stdin from /dev/null (after the close:
 * the daemon may be at its descriptor limit), the descriptor limit tickd
 * started with (runner.c raises its own), switch credentials
 * (priv_switch), enter the working directory as the job's user, exec.
 * A failure leaves {stage, errno} and exits 127: in the daemon's memory
 * when the child shares it (the daemon, suspended until the exec or the
 * exit, reads it when clone returns), else on the close-on-exec status
 * pipe, which a successful exec closes and the parent reads as EOF.
 *
 * DIAGNOSTICS: none here; the parent turns the report into a recorded
 * spawn failure.
 */
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "child.h"
#include "priv.h"

/*
 * Report a failure to the parent and exit 127.  Async-signal-safe.  A
 * child that shares the daemon's memory writes the report where the
 * daemon, suspended until this child exits, will look (as posix_spawn
 * does); a forked one writes it to the status pipe.
 */
static void __attribute__((noreturn))
child_fail(const struct child_spec *cs, int status_fd,
    enum child_stage stage)
{
	struct child_report r;

	r.stage = stage;
	r.error = errno;
	r.boot_ns = 0;
	if (cs->report != NULL) {	/* boot_ns is runner_child's */
		cs->report->stage = r.stage;
		cs->report->error = r.error;
	} else
		(void)write(status_fd, &r, sizeof r);
	_exit(127);
}

/*
 * Reset one signal to its default disposition.  glibc's sigaction refuses
 * the two signals it reserves for itself (32 and 33), which a job would
 * otherwise inherit ignored from a daemon started with them ignored (GNU
 * make does that); the raw system call takes them.  Async-signal-safe.
 */
static void
child_default_signal(int sig)
{
	struct sigaction	sa;
	struct {
		void		(*handler)(int);
		unsigned long	  flags;
		void		(*restorer)(void);
		unsigned long	  mask;
	}			ksa;

	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	(void)sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) == 0 || errno != EINVAL)
		return;
	ksa.handler = SIG_DFL;
	ksa.flags = 0;
	ksa.restorer = NULL;
	ksa.mask = 0;
	(void)syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof ksa.mask);
}

/* Close every descriptor from lo up, except keep.  Async-signal-safe. */
static void
child_close_from(int lo, int keep)
{
	int fd;

	if (keep >= lo) {
		if (keep > lo &&
		    syscall(SYS_close_range, lo, keep - 1, 0) == -1)
			for (fd = lo; fd < keep; fd++)
				(void)close(fd);
		lo = keep + 1;
	}
	if (syscall(SYS_close_range, lo, ~0U, 0) == 0)
		return;
	for (fd = lo; fd < 65536; fd++)
		(void)close(fd);
}

/*
 * Turn this freshly forked child into the job.  Never returns.
 * Runs between fork and exec: async-signal-safe calls only.
 */
void
child_exec(const struct child_spec *cs)
{
	sigset_t	none;
	int		sig, fd, status_fd = cs->status_fd;

	if (cs->join_fd != -1 && write(cs->join_fd, "0", 1) != 1)
		child_fail(cs, status_fd, CHILD_CGROUP);
	if (setsid() == -1)
		child_fail(cs, status_fd, CHILD_SETSID);

	/* Default dispositions (still blocked), then an empty mask. */
	for (sig = 1; sig < NSIG; sig++) {
		if (sig != SIGKILL && sig != SIGSTOP)
			child_default_signal(sig);
	}
	(void)sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
		child_fail(cs, status_fd, CHILD_SIGNALS);

	/*
	 * stdout and stderr to the pipes, every other descriptor but the
	 * status pipe closed, and only then stdin from /dev/null: the daemon
	 * may be at its descriptor limit (RLIMIT_NOFILE), and this copy of
	 * its table has a free slot only once the rest is closed.  The status
	 * pipe must not be clobbered by the dup2s: it moves above 0-2 first.
	 */
	if (status_fd != -1 && status_fd <= STDERR_FILENO) {
		if ((fd = fcntl(status_fd, F_DUPFD_CLOEXEC, 3)) == -1)
			child_fail(cs, status_fd, CHILD_STDIO);
		status_fd = fd;
	}
	if (dup2(cs->out_fd, STDOUT_FILENO) == -1 ||
	    dup2(cs->err_fd, STDERR_FILENO) == -1)
		child_fail(cs, status_fd, CHILD_STDIO);
	child_close_from(STDERR_FILENO + 1, status_fd);
	if ((fd = open("/dev/null", O_RDONLY)) == -1)
		child_fail(cs, status_fd, CHILD_STDIO);
	if (fd != STDIN_FILENO) {
		if (dup2(fd, STDIN_FILENO) == -1)
			child_fail(cs, status_fd, CHILD_STDIO);
		(void)close(fd);
	}

	/* The daemon's raised descriptor limit is not the job's. */
	if (cs->nofile != NULL)
		(void)setrlimit(RLIMIT_NOFILE, cs->nofile);
	if (priv_switch(cs->cred) == -1)
		child_fail(cs, status_fd, CHILD_CREDENTIALS);
	if (cs->workdir != NULL && chdir(cs->workdir) == -1)
		child_fail(cs, status_fd, CHILD_WORKDIR);

	(void)execve(cs->path, cs->argv, cs->envp);
	child_fail(cs, status_fd, CHILD_EXEC);
}

/* What a stage means, for spawn failure messages. */
const char *
child_stage_name(int stage)
{
	switch (stage) {
	case CHILD_SETSID:
		return "setsid";
	case CHILD_SIGNALS:
		return "resetting signals";
	case CHILD_STDIO:
		return "setting up stdin, stdout and stderr";
	case CHILD_CREDENTIALS:
		return "switching user";
	case CHILD_WORKDIR:
		return "entering the working directory";
	case CHILD_EXEC:
		return "executing";
	case CHILD_FORK:
		return "creating the process";
	case CHILD_PIPE:
		return "creating the output pipes";
	case CHILD_CGROUP:
		return "entering its cgroup";
	case CHILD_TRACK:
		return "making its cgroup";
	default:
		return "starting";
	}
}

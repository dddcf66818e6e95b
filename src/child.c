/*
 * child.c -- the code that runs between fork and exec.
 *
 * WARNING: everything in child_exec runs in a child that usually shares
 * the daemon's memory (runner.c: clone(CLONE_VM | CLONE_VFORK), the thread
 * that made it suspended until exec, the daemon's other thread running
 * on), else in a forked one: async-signal-safe calls only, and no write
 * to anything but local variables, the report (errno aside: it is the
 * suspended thread's, read only when no child was made) and, for a
 * command run without a shell, the spare slots of the argv and envp
 * vectors the runner made for this child alone (child.h), in its spawn
 * request, which nothing else touches until the child has exec'd.  No
 * malloc, no stdio, no logging, no name service (credentials were
 * resolved in the parent by priv.c).  The signal handlers are the child's
 * own copy (no CLONE_SIGHAND), so resetting them leaves the daemon's
 * alone.
 * The parent blocked every signal around fork; here each disposition the
 * daemon changed (ignored or handled: child_signals_set, read once) is
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
 * (priv_switch; not when they are the daemon's own), enter the working
 * directory as the job's user (its home when none is set; "/" when the
 * home cannot be entered, as Debian's cron does), run its only_if condition and wait for it (forked children
 * only), exec.
 * A command without shell syntax (shwords.c) is exec'd directly, as
 * dash (Debian's /bin/sh) would exec it: a name searched in the job's
 * PATH, and when that fails, dash's message on the job's stderr and its
 * exit status (127 not found, 126 not executable), which are the run's
 * like any program's; a file without #! (ENOEXEC) is given to /bin/sh.
 * A failure before the exec leaves {stage, errno} and exits 127: in the
 * daemon's memory
 * when the child shares it (the thread that made it, suspended until the
 * exec or the exit, reads it when clone returns), else on the close-on-exec status
 * pipe, which a successful exec closes and the parent reads as EOF.
 *
 * DIAGNOSTICS: none here; the parent turns the report into a recorded
 * spawn failure.
 */
#include <sys/syscall.h>

#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "priv.h"

/*
 * Report a failure to the parent and exit 127.  Async-signal-safe.  A
 * child that shares the daemon's memory writes the report where the
 * thread that made it, suspended until this child exits, will look (as posix_spawn
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

/* The kernel's struct sigaction, for the raw rt_sigaction. */
struct child_ksigaction {
	void		(*handler)(int);
	unsigned long	  flags;
	void		(*restorer)(void);
	unsigned long	  mask;
};

/*
 * Reset one signal to its default disposition.  glibc's sigaction refuses
 * the two signals it reserves for itself (32 and 33), which a job would
 * otherwise inherit ignored from a daemon started with them ignored (GNU
 * make does that); the raw system call takes them.  Async-signal-safe.
 */
static void
child_default_signal(int sig)
{
	struct sigaction	 sa;
	struct child_ksigaction	 ksa;

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

/*
 * The signals a job's child must set back to their default: those the
 * daemon ignores (SIGPIPE, SIGXFSZ, and whatever it was started with
 * ignored: an ignored signal stays ignored across execve) and those it
 * handles (execve would reset them, but the child empties its mask
 * before execve, and a daemon handler must never run in a child that
 * shares the daemon's memory).  The rest already are at their default:
 * of the 64 signals, the child resets a handful instead of every one.
 * Read once, in the daemon, with the raw system call (glibc's sigaction
 * hides 32 and 33); the daemon sets its dispositions before its first
 * job starts and never changes them after.
 */
uint64_t
child_signals_set(void)
{
	static uint64_t		 set;
	static int		 known;
	struct child_ksigaction	 ksa;
	int			 sig;

	if (known)
		return set;
	known = 1;
	for (sig = 1; sig < NSIG && sig <= 64; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (syscall(SYS_rt_sigaction, sig, NULL, &ksa,
		    sizeof ksa.mask) == -1 || ksa.handler != SIG_DFL)
			set |= UINT64_C(1) << (sig - 1);
	}
	return set;
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
 * Set PWD in envp as dash does at its start: an inherited PWD is kept
 * when it is absolute and names the working directory, else it becomes
 * getcwd()'s answer (written in buf, len bytes), in PWD's slot or in
 * the spare one after envp's NULL.  Async-signal-safe.
 */
static void
child_pwd(char **envp, char *buf, size_t len)
{
	struct stat	 a, b;
	size_t		 i;

	for (i = 0; envp[i] != NULL; i++) {
		if (strncmp(envp[i], "PWD=", 4) == 0)
			break;
	}
	if (envp[i] != NULL && envp[i][4] == '/' &&
	    stat(envp[i] + 4, &a) == 0 && stat(".", &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return;
	memcpy(buf, "PWD=", 4);
	if (getcwd(buf + 4, len - 4) == NULL)
		return;		/* dash warns and goes on */
	envp[i] = buf;		/* envp[i + 1] is NULL (the spare slot) */
}

/*
 * Execute path with argv as dash's tryexec does: a file the kernel
 * cannot execute (ENOEXEC: a script without #!) goes to /bin/sh as its
 * script, as {"/bin/sh", path, argv[1], ...}, in argv[-1]'s spare slot.
 * Returns with errno set when nothing could be executed.
 * Async-signal-safe.
 */
static void
child_try(const char *path, char **argv, char **envp)
{
	char *arg0;

	(void)execve(path, argv, envp);
	if (errno != ENOEXEC)
		return;
	arg0 = argv[0];
	argv[-1] = (char *)"/bin/sh";
	argv[0] = (char *)path;
	(void)execve("/bin/sh", argv - 1, envp);
	argv[0] = arg0;
}

/*
 * Print dash's message for a command that could not be executed: "sh: 1:
 * NAME: not found" (ENOENT, ENOTDIR) or the error's text, on stderr (the
 * job's output).  Async-signal-safe: strerrordesc_np is a table lookup,
 * in English as dash prints it (dash has no locale).
 */
static void
child_sh_error(const char *name, int e)
{
	struct iovec	 iov[5];
	const char	*msg;

	msg = e == ENOENT || e == ENOTDIR ? "not found" : strerrordesc_np(e);
	if (msg == NULL)
		msg = "Unknown error";
	iov[0].iov_base = (void *)"sh: 1: ";
	iov[0].iov_len = 7;
	iov[1].iov_base = (void *)name;
	iov[1].iov_len = strlen(name);
	iov[2].iov_base = (void *)": ";
	iov[2].iov_len = 2;
	iov[3].iov_base = (void *)msg;
	iov[3].iov_len = strlen(msg);
	iov[4].iov_base = (void *)"\n";
	iov[4].iov_len = 1;
	(void)writev(STDERR_FILENO, iov, 5);
}

/*
 * Execute a command's words as dash does for sh -c "WORDS" (exec.c:
 * find_command, shellexec), in the working directory and as the job's
 * user already.  A word with '/' is a path: not there 127, not
 * executable 126, anything else 2.  A name is tried in each directory
 * of the job's PATH in turn (an empty one: the working directory), going
 * on past the ones where it is missing or not executable: found nowhere,
 * 127, with the last error other than ENOENT and ENOTDIR in the message
 * (EACCES: "Permission denied"); found but failing to execute, 126 or
 * 2 as for a path.  Never returns.
 * Runs between fork and exec: async-signal-safe calls only; the
 * candidate paths are built on this stack.
 */
static void __attribute__((noreturn))
child_exec_direct(const struct child_spec *cs)
{
	static const char	 defpath[] =	/* dash's, PATH unset */
	    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	char			**argv = (char **)cs->argv;
	char			**envp = (char **)cs->envp;
	char			 pwd[4 + PATH_MAX], cand[PATH_MAX];
	const char		*name = argv[0], *dir, *end;
	size_t			 dlen, nlen;
	int			 e, status;

	child_pwd(envp, pwd, sizeof pwd);
	if (strchr(name, '/') != NULL) {
		child_try(name, argv, envp);
		e = errno;
	} else {
		e = ENOENT;
		nlen = strlen(name);
		dir = cs->search != NULL ? cs->search : defpath;
		for (;; dir = end + 1) {
			end = strchrnul(dir, ':');
			dlen = (size_t)(end - dir);
			if (dlen + 1 + nlen + 1 > sizeof cand)
				errno = ENAMETOOLONG;
			else {
				memcpy(cand, dir, dlen);
				if (dlen > 0)
					cand[dlen++] = '/';
				memcpy(cand + dlen, name, nlen + 1);
				child_try(cand, argv, envp);
			}
			if (errno != ENOENT && errno != ENOTDIR)
				e = errno;
			if (*end == '\0')
				break;
		}
		/* Not found, or no file that may be executed: 127. */
		if (e == ENOENT || e == ENOTDIR || e == EACCES ||
		    e == ELOOP || e == ENAMETOOLONG) {
			child_sh_error(name, e);
			_exit(127);
		}
	}
	child_sh_error(name, e);
	status = e == EACCES ? 126 : e == ENOENT || e == ENOTDIR ? 127 : 2;
	_exit(status);
}

/*
 * Run the job's only_if command, /bin/sh -c CONDITION, as the job would
 * run (its user, directory, environment, output), and wait for it: exit
 * 0 returns and the job's program follows; anything else is reported as
 * CHILD_CONDITION with the wait status, and this child exits with the
 * condition's exit status (128 + a signal's number).  Only a forked
 * child gets here (runner.c): a clone child would hold the daemon
 * suspended meanwhile.  Async-signal-safe.
 */
static void
child_condition(const struct child_spec *cs, int status_fd)
{
	struct child_report	r;
	char *const		argv[] = { (char *)"sh", (char *)"-c",
				    (char *)cs->condition, NULL };
	pid_t			pid;
	int			st;

	if ((pid = fork()) == -1)
		child_fail(cs, status_fd, CHILD_FORK);
	if (pid == 0) {
		(void)execve("/bin/sh", argv, cs->envp);
		child_sh_error("/bin/sh", errno);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1) {
		if (errno != EINTR)
			child_fail(cs, status_fd, CHILD_FORK);
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	r.stage = CHILD_CONDITION;
	r.error = st;
	r.boot_ns = 0;
	(void)write(status_fd, &r, sizeof r);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
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
	for (sig = 1; sig < NSIG && sig <= 64; sig++) {
		if (cs->signals >> (sig - 1) & 1)
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
	if (!cs->same_ids && priv_switch(cs->cred) == -1)
		child_fail(cs, status_fd, CHILD_CREDENTIALS);
	if (cs->workdir != NULL && chdir(cs->workdir) == -1 &&
	    (!cs->workdir_home || chdir("/") == -1))
		child_fail(cs, status_fd, CHILD_WORKDIR);
	if (cs->condition != NULL)
		child_condition(cs, status_fd);

	if (cs->direct)
		child_exec_direct(cs);
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
	case CHILD_CONDITION:
		return "running its only_if condition";
	default:
		return "starting";
	}
}

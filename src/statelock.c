/*
 * statelock.c -- one daemon per state database, whatever name reaches it.
 *
 * The running daemon holds an exclusive flock(2) on the database file
 * itself.  A lock belongs to the inode, not to the name: a second
 * configuration that reaches the same database through a symbolic link,
 * a bind mount or another spelling of the path finds it taken.  A
 * database with more than one hard link is refused outright: SQLite
 * names the -wal and -shm after the name it opened, so each name would
 * have a log of its own, and commits written under one name are not
 * seen under the other.
 *
 * Beside the database (symbolic links resolved), "<database>.lock" holds
 * the daemon's pid, for kill(1) and for tickctl, and is flocked as well:
 * earlier versions of tickd locked only that file, and one of them
 * running on the same database is seen too.
 *
 * The lock on the database is a flock, SQLite's are fcntl (POSIX)
 * locks: Linux keeps the two apart.  The descriptor stays open for the
 * daemon's life, as closing any descriptor of a file drops every POSIX
 * lock the process holds on it, SQLite's included.
 *
 * statelock_held finds the lock in /proc/locks (by device and inode, or
 * by inode and the pid the .lock file names), which takes no lock of its
 * own: probing with flock(LOCK_SH | LOCK_NB) would, for an instant, make
 * a daemon starting at that moment fail to take its lock and exit, and
 * tests poll "tickctl status" while a daemon starts.  The flock probe is
 * only the fallback when /proc/locks cannot be read.  /proc/locks is not
 * a snapshot: the kernel produces it a page at a time by position, so a
 * lock released between two reads shifts the rest and one entry is
 * skipped, the daemon's among them (with 20 tickctl clients' SQLite
 * locks churning, 3% of reads missed a held flock).  A lock not found
 * while the pid in the .lock file lives is looked up again, up to
 * STATELOCK_TRIES times in all.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "statelock.h"
#include "xmalloc.h"

#define STATELOCK_TRIES	20	/* /proc/locks reads while the pid lives */

/*
 * The database's path with symbolic links resolved; when it does not
 * exist yet, its directory's, with its name.  Allocated; the path as
 * given when even the directory cannot be resolved (the open that
 * follows then says why).
 */
char *
statelock_path(const char *state)
{
	char	*real, *dir, *slash, *path;

	if ((real = realpath(state, NULL)) != NULL || errno != ENOENT)
		return real != NULL ? real : xstrdup(state);
	dir = xstrdup(state);
	if ((slash = strrchr(dir, '/')) == NULL) {
		free(dir);
		dir = xstrdup(".");
		slash = NULL;
	} else
		*slash = '\0';
	if ((real = realpath(slash == dir ? "/" : dir, NULL)) == NULL)
		path = xstrdup(state);
	else
		path = xasprintf("%s/%s", strcmp(real, "/") == 0 ? "" : real,
		    slash != NULL ? slash + 1 : state);
	free(real);
	free(dir);
	return path;
}

/* The pid written in the lock file open as fd, 0 if none. */
static long
statelock_pid(int fd)
{
	char	buf[32];
	ssize_t	n;
	long	pid;

	n = pread(fd, buf, sizeof buf - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	pid = strtol(buf, NULL, 10);
	return pid > 0 ? pid : 0;
}

/*
 * Whether /proc/locks shows an exclusive flock on the file sb describes:
 * 1 yes (*holder: its pid), 0 no, -1 when /proc/locks cannot be read.
 * On overlay file systems the device in /proc/locks may not be the one
 * stat reports: an entry with the same inode held by pid counts too.
 */
static int
statelock_find(const struct stat *sb, long pid, long *holder)
{
	FILE		*f;
	char		 line[256], type[16], rw[16];
	unsigned int	 maj, min;
	unsigned long	 ino;
	long		 lpid;
	int		 found = 0;

	if ((f = fopen("/proc/locks", "re")) == NULL)
		return -1;
	while (!found && fgets(line, sizeof line, f) != NULL) {
		/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5312437 0 EOF";
		 * waiters have "->" after the number and are skipped. */
		if (strstr(line, "->") != NULL)
			continue;
		if (sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%lu", type, rw,
		    &lpid, &maj, &min, &ino) != 6)
			continue;
		if (strcmp(type, "FLOCK") != 0 || strcmp(rw, "WRITE") != 0 ||
		    ino != (unsigned long)sb->st_ino)
			continue;
		if ((maj == major(sb->st_dev) && min == minor(sb->st_dev)) ||
		    (pid > 0 && lpid == pid)) {
			*holder = lpid;
			found = 1;
		}
	}
	(void)fclose(f);
	return found;
}

/* Open the .lock file at path to read its pid: -1 unless a file. */
static int
statelock_pidfile(const char *path)
{
	struct stat	st;
	int		fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		(void)close(fd);
		return -1;
	}
	return fd;
}

/* Open (creating it, 0600) and lock path; -1 with errno on failure. */
static int
statelock_open(const char *path, int *busy)
{
	int	fd;

	*busy = 0;
	/* O_NONBLOCK: a FIFO or a device put there is not waited on. */
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK, 0600)) == -1)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		*busy = errno == EWOULDBLOCK;
		if (!*busy) {
			int e = errno;
			(void)close(fd);
			errno = e;
			return -1;
		}
	}
	return fd;
}

/*
 * Lock the database at path (from statelock_path), creating it empty if
 * missing, and write our pid beside it.  0: taken, fd[0] the database's
 * descriptor and fd[1] the .lock file's, both to be kept open; 1: another
 * daemon holds it, *holder its pid (0: unknown); -1: *cause says why.
 */
int
statelock_take(const char *path, int fd[2], long *holder, char **cause)
{
	struct stat	 st;
	char		*pidfile = xasprintf("%s.lock", path), buf[32];
	int		 busy, rc = -1;

	fd[0] = fd[1] = -1;
	*holder = 0;
	/* Not even opened: a device may act on an open. */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISLNK(st.st_mode)) {
		*cause = xasprintf("%s: not a regular file", path);
		goto out;
	}
	if ((fd[0] = statelock_open(path, &busy)) == -1) {
		if (errno == ELOOP)	/* resolved, yet a link: to nothing */
			*cause = xasprintf("%s: refused: a symbolic link that "
			    "leads to no file; tickd creates a database only "
			    "under its own name", path);
		else
			*cause = xasprintf("%s: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd[0], &st) == -1) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		*cause = xasprintf("%s: not a regular file", path);
		goto out;
	}
	if (busy) {
		long named = (fd[1] = statelock_pidfile(pidfile)) != -1 ?
		    statelock_pid(fd[1]) : 0;

		if (statelock_find(&st, named, holder) != 1)
			*holder = named;
		rc = 1;
		goto out;
	}
	if (st.st_nlink > 1) {
		*cause = xasprintf("%s: refused: it has %ju hard links, and "
		    "SQLite names its -wal and -shm after the name it opens: "
		    "under two names one database has two logs, and commits "
		    "made under one name are lost under the other (keep one "
		    "name, or copy the file)", path, (uintmax_t)st.st_nlink);
		goto out;
	}
	if ((fd[1] = statelock_open(pidfile, &busy)) == -1) {
		*cause = xasprintf("%s: %s", pidfile, strerror(errno));
		goto out;
	}
	if (busy) {	/* a tickd of an earlier version */
		*holder = statelock_pid(fd[1]);
		rc = 1;
		goto out;
	}
	(void)snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	if (ftruncate(fd[1], 0) == -1 ||
	    pwrite(fd[1], buf, strlen(buf), 0) != (ssize_t)strlen(buf)) {
		*cause = xasprintf("%s: cannot record our pid: %s", pidfile,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc != 0) {
		if (fd[0] != -1)
			(void)close(fd[0]);
		if (fd[1] != -1)
			(void)close(fd[1]);
		fd[0] = fd[1] = -1;
	}
	free(pidfile);
	return rc;
}

/*
 * Whether a daemon holds the lock on the database state names (without
 * taking it): 1 with *pid its pid (0: unknown), 0 if none does or state
 * does not exist.
 */
int
statelock_held(const char *state, long *pid)
{
	struct stat	 sb;
	char		*path = statelock_path(state), *pidfile;
	long		 holder = 0, named = 0;
	int		 fd, rc, tries = 0, held = 0;

	*pid = 0;
	/* stat, not open: the files are 0600, tickctl may be another user. */
	if (stat(path, &sb) == -1) {
		free(path);
		return 0;
	}
	pidfile = xasprintf("%s.lock", path);
	if ((fd = statelock_pidfile(pidfile)) != -1)
		named = statelock_pid(fd);
	do
		rc = statelock_find(&sb, named, &holder);
	while (rc == 0 && named > 0 && ++tries < STATELOCK_TRIES &&
	    (kill((pid_t)named, 0) == 0 || errno == EPERM));
	if (rc == -1 && fd != -1) {
		/*
		 * No /proc: probe the .lock file, which the daemon locks too,
		 * with a shared lock (see the top).  Not the database: closing
		 * a descriptor of it would drop this process's SQLite locks.
		 */
		if (flock(fd, LOCK_SH | LOCK_NB) == -1)
			held = errno == EWOULDBLOCK;
		else
			(void)flock(fd, LOCK_UN);
		holder = named;
	} else
		held = rc == 1;
	if (fd != -1)
		(void)close(fd);
	if (held)
		*pid = holder;
	free(pidfile);
	free(path);
	return held;
}

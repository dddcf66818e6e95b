/*
 * track.c -- choosing how tickd tells an attempt's processes, and what
 * both ways share: /proc readers and the invocation id.
 *
 * track_init picks the way at start.  With a cgroup v2 subtree tickd may
 * write (the [daemon] cgroup key: a path, or by default the cgroup tickd
 * was started in, as under systemd with Delegate=yes), every attempt and
 * every on_failure command gets a cgroup of its own there; when tickd
 * itself is in that subtree's top, alone, it first moves into a leaf
 * "supervisor" (cgroup v2 puts no processes in a cgroup whose children
 * have controllers) and then enables the controllers it was given (cpu,
 * io, memory, pids), which per-job limits need.  Without one (cgroup =
 * none, no cgroup v2 mounted, tickd in the hierarchy's root, a cgroup it
 * cannot write) it tracks process groups and says why, once, at start
 * and in tickctl status.  An explicit cgroup path that cannot be used
 * stops the start: falling back silently would drop the limits the
 * configuration asks for.
 *
 * The invocation id (TICKD_INVOCATION_ID) is 128 random bits per
 * attempt, as systemd's $INVOCATION_ID: unguessable, so a process
 * planted with a run's predictable TICKD_RUN_ID is never taken for one
 * of the run's (track-pgrp.c).
 *
 * DIAGNOSTICS: track_init returns -1 with a cause only for an explicit
 * cgroup that cannot be used; everything else falls back, with the
 * reason in info->why.  Nothing is logged here.
 */
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/magic.h>

#include "cgroup.h"
#include "clock.h"
#include "mounts.h"
#include "track.h"
#include "xmalloc.h"

#define TRACK_ENV_MAX	(4 * 1024 * 1024)	/* environ read at most */

static struct track_info	 track_info;	/* the daemon's choice */
static char			*track_mount;	/* cgroup2 mount point */
static char			*track_mount_root; /* the cgroup it shows */
static char			 track_boot[40];  /* this boot's id */

/* Read a whole small file into an allocated text (NULL on error). */
static char *
track_slurp(const char *path)
{
	char	*buf = NULL;
	size_t	 len = 0, cap = 0;
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 16384;
			buf = xreallocarray(buf, cap, 1);
		}
		if ((n = read(fd, buf + len, cap - len - 1)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	(void)close(fd);
	if (n == -1) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/*
 * The cgroup v2 mount: its point and root, remembered; 0, or -1 with
 * *why when there is none.
 */
static int
track_find_mount(char **why)
{
	char *text;

	if (track_mount != NULL)
		return 0;
	if ((text = track_slurp("/proc/self/mountinfo")) == NULL) {
		*why = xasprintf("/proc/self/mountinfo: %s", strerror(errno));
		return -1;
	}
	if (mounts_cgroup2(text, &track_mount, &track_mount_root) == -1) {
		free(text);
		*why = xstrdup("no cgroup v2 hierarchy is mounted");
		return -1;
	}
	free(text);
	return 0;
}

/*
 * The directory of a cgroup v2 path as /proc/PID/cgroup gives it
 * (relative to the hierarchy root this process sees), or NULL when the
 * mount does not show it.  Caller frees.
 */
static char *
track_cgroup_dir(const char *cg)
{
	size_t n;

	if (strcmp(track_mount_root, "/") == 0)
		return xasprintf("%s%s", track_mount, strcmp(cg, "/") == 0 ?
		    "" : cg);
	n = strlen(track_mount_root);
	if (strncmp(cg, track_mount_root, n) != 0 ||
	    (cg[n] != '\0' && cg[n] != '/'))
		return NULL;
	return xasprintf("%s%s", track_mount, cg + n);
}

/* The cgroup directory process pid is in (0: this one), or NULL. */
static char *
track_pid_dir(pid_t pid)
{
	char	 path[64], *text, *cg, *dir;

	if (pid == 0)
		(void)snprintf(path, sizeof path, "/proc/self/cgroup");
	else
		(void)snprintf(path, sizeof path, "/proc/%ld/cgroup",
		    (long)pid);
	if ((text = track_slurp(path)) == NULL)
		return NULL;
	cg = cgroup_self_parse(text);
	free(text);
	if (cg == NULL)
		return NULL;
	dir = track_cgroup_dir(cg);
	free(cg);
	return dir;
}

/* The cgroup directory process pid is in, or NULL (caller frees). */
char *
track_proc_cgroup(pid_t pid)
{
	char *why = NULL;

	if (track_find_mount(&why) == -1) {
		free(why);
		return NULL;
	}
	return track_pid_dir(pid);
}

/*
 * The subtree tickd would own for the configured value (NULL or "":
 * where it was started; a path: that one), into *dir; 0, or -1 with *why
 * and *fatal set when an explicit path is unusable.
 */
static int
track_root_path(const char *conf, char **dir, char **why, int *fatal)
{
	struct statfs	sf;
	char		*self;

	*fatal = conf != NULL && conf[0] != '\0';
	if (track_find_mount(why) == -1)
		return -1;
	if (*fatal) {
		if (conf[0] != '/') {
			*why = xasprintf("cgroup %s: not an absolute path",
			    conf);
			return -1;
		}
		if (statfs(conf, &sf) == -1 && errno == ENOENT &&
		    mkdir(conf, 0755) == -1) {
			*why = xasprintf("cgroup %s: mkdir: %s", conf,
			    strerror(errno));
			return -1;
		}
		if (statfs(conf, &sf) == -1) {
			*why = xasprintf("cgroup %s: %s", conf,
			    strerror(errno));
			return -1;
		}
		if (sf.f_type != CGROUP2_SUPER_MAGIC) {
			*why = xasprintf("cgroup %s: not on a cgroup v2 file "
			    "system (its hierarchy is mounted at %s)", conf,
			    track_mount);
			return -1;
		}
		*dir = xstrdup(conf);
		return 0;
	}
	if ((self = track_pid_dir(0)) == NULL) {
		*why = xstrdup("its cgroup (/proc/self/cgroup) is not in the "
		    "mounted cgroup v2 hierarchy");
		return -1;
	}
	if (strcmp(self, track_mount) == 0) {
		free(self);
		*why = xasprintf("tickd runs in the root cgroup (%s), which "
		    "belongs to the system: start it under its unit "
		    "(Delegate=yes) or set [daemon] cgroup", track_mount);
		return -1;
	}
	*dir = self;
	return 0;
}

/*
 * Whether the cgroup open as dirfd holds processes other than this one:
 * 1 yes, 0 no, -1 unreadable.
 */
static int
track_others(int dirfd)
{
	char	 buf[4096], *p, *e;
	long	 pid;

	if (cgroup_read_file(dirfd, "cgroup.procs", buf, sizeof buf) == -1)
		return -1;
	for (p = buf; *p != '\0'; p = e) {
		pid = strtol(p, &e, 10);
		if (e == p)
			break;
		if (pid != (long)getpid())
			return 1;
		e += strspn(e, "\n");
	}
	return 0;
}

/*
 * Make dir tickd's: move tickd into dir/supervisor when it sits in dir
 * alone, then enable in dir's subtree the controllers dir was given; with
 * dry, change nothing and say what that would give.  Sets info->moved
 * and info->controllers; a note for the log in *note (or NULL).  0, or -1
 * with *why when dir cannot be used at all.
 */
static int
track_own(const char *dir, int dry, struct track_info *info, char **why,
    char **note)
{
	char		 buf[512], word[16], *self = NULL;
	unsigned	 avail, on, bit;
	int		 dfd, sfd, others;

	*note = NULL;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		*why = xasprintf("cgroup %s: %s", dir, strerror(errno));
		return -1;
	}
	if (faccessat(dfd, "cgroup.procs", W_OK, AT_EACCESS) == -1) {
		*why = xasprintf("cgroup %s: cannot write it (cgroup.procs: "
		    "%s)", dir, strerror(errno));
		(void)close(dfd);
		return -1;
	}
	self = track_pid_dir(0);
	others = track_others(dfd);
	if (!dry && self != NULL && strcmp(self, dir) == 0 && others == 0) {
		if ((mkdirat(dfd, "supervisor", 0755) == -1 &&
		    errno != EEXIST) || (sfd = openat(dfd, "supervisor",
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
			*why = xasprintf("cgroup %s/supervisor: %s", dir,
			    strerror(errno));
			goto fail;
		}
		(void)snprintf(buf, sizeof buf, "%ld", (long)getpid());
		if (cgroup_write_file(sfd, "cgroup.procs", buf) == -1) {
			*why = xasprintf("cgroup %s/supervisor: moving tickd "
			    "there: %s", dir, strerror(errno));
			(void)close(sfd);
			goto fail;
		}
		(void)close(sfd);
		info->moved = 1;
	}
	avail = on = 0;
	if (cgroup_read_file(dfd, "cgroup.controllers", buf, sizeof buf) >= 0)
		avail = cgroup_controllers_parse(buf);
	if (cgroup_read_file(dfd, "cgroup.subtree_control", buf,
	    sizeof buf) >= 0)
		on = cgroup_controllers_parse(buf);
	if (others != 0 && (avail & ~on) != 0) {
		/* No process may stay in a cgroup that passes them down. */
		*note = xasprintf("cgroup %s holds other processes than tickd, "
		    "so it cannot pass down its controllers: jobs get only "
		    "those it passes already", dir);
	} else if (dry)
		on = avail;
	else {
		for (bit = 1; bit <= CGROUP_PIDS; bit <<= 1) {
			if (!(avail & bit) || (on & bit))
				continue;
			(void)snprintf(word, sizeof word, "+%s",
			    cgroup_controller_name(bit));
			if (cgroup_write_file(dfd, "cgroup.subtree_control",
			    word) == -1 && *note == NULL)
				*note = xasprintf("cgroup %s: enabling the %s "
				    "controller: %s", dir,
				    cgroup_controller_name(bit),
				    strerror(errno));
		}
		if (cgroup_read_file(dfd, "cgroup.subtree_control", buf,
		    sizeof buf) >= 0)
			on = cgroup_controllers_parse(buf);
	}
	info->controllers = on & CGROUP_ALL;
	free(self);
	(void)close(dfd);
	return 0;
fail:
	free(self);
	(void)close(dfd);
	return -1;
}

/*
 * Choose how tickd tracks attempts for the configured cgroup value (NULL
 * or "": where it was started; "none": process groups; a path): with
 * dry, only say what it would be (tickd's first load of its jobs, tickd
 * -n, tickctl); else set it up, and keep it as the daemon's
 * (track_current).  0 (*note: something to log, or NULL), or -1 with
 * *note the cause when an explicit cgroup cannot be used.
 */
static int
track_choose(const char *conf, int dry, struct track_info *info,
    char **note)
{
	char	*dir = NULL, *why = NULL;
	int	 fatal;

	*note = NULL;
	memset(info, 0, sizeof *info);
	info->ops = &track_pgrp_ops;
	if (conf != NULL && strcmp(conf, "none") == 0) {
		info->why = xstrdup("cgroup = none");
		return 0;
	}
	if (track_root_path(conf, &dir, &why, &fatal) == -1 ||
	    track_own(dir, dry, info, &why, note) == -1) {
		free(dir);
		if (fatal) {
			free(*note);
			*note = why;
			return -1;
		}
		info->why = why;
		return 0;
	}
	info->ops = &track_cgroup_ops;
	info->root = dir;
	return 0;
}

/*
 * Set up how the daemon tracks attempts (track_choose), and read this
 * boot's id.  0 (*note: something to log, or NULL), or -1 with *note the
 * cause when an explicit cgroup cannot be used.
 */
int
track_init(const char *conf, struct track_info *info, char **note)
{
	ssize_t	n;
	int	fd;

	if ((fd = open("/proc/sys/kernel/random/boot_id",
	    O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, track_boot, sizeof track_boot - 1);
		track_boot[n > 0 ? n : 0] = '\0';
		track_boot[strcspn(track_boot, "\n")] = '\0';
		(void)close(fd);
	}
	if (track_choose(conf, 0, info, note) == -1)
		return -1;
	track_info = *info;
	return 0;
}

/*
 * What track_init would set up here, changing nothing.  0, or -1 with
 * *why for an explicit cgroup that cannot be used.
 */
int
track_probe(const char *conf, struct track_info *info, char **why)
{
	char *note = NULL;

	if (track_choose(conf, 1, info, &note) == -1) {
		*why = note;
		return -1;
	}
	free(note);
	*why = NULL;
	return 0;
}

/*
 * Whether an attempt claimed during boot boot_id (NULL: not recorded)
 * may still run: it was claimed during this boot.
 */
int
track_same_boot(const char *boot_id)
{
	return boot_id == NULL || boot_id[0] == '\0' ||
	    track_boot[0] == '\0' || strcmp(boot_id, track_boot) == 0;
}

/*
 * What the jobs' limits may use, for a tool that is not the daemon
 * (tickd -n, tickctl): what the daemon recorded at its last start
 * (recorded: its "tracking" line, controllers: its words; NULL when
 * there is no record); without a record, what the configured cgroup
 * (none, or a path) gives; -1 when cgroup is the default, the cgroup the
 * daemon is started in, which a tool run elsewhere cannot know (the
 * limits are then checked when the daemon starts).  *tracking gets the
 * line to show.
 */
int
track_controllers(const char *cgroup, const char *recorded,
    const char *controllers, char **tracking)
{
	struct track_info	 info;
	char			 line[512], *why = NULL;
	int			 c;

	if (recorded != NULL && recorded[0] != '\0') {
		*tracking = xstrdup(recorded);
		return controllers != NULL ?
		    (int)cgroup_controllers_parse(controllers) : 0;
	}
	if (cgroup == NULL || cgroup[0] == '\0') {
		*tracking = xstrdup("the cgroup tickd is started in (not "
		    "known before it starts: jobs' limits are checked then)");
		return -1;
	}
	if (track_probe(cgroup, &info, &why) == -1) {
		*tracking = why;
		return 0;
	}
	track_describe(&info, line, sizeof line);
	*tracking = xasprintf("%s, if tickd is started now", line);
	c = (int)info.controllers;
	track_info_free(&info);
	return c;
}

/* The daemon's choice (track_init), or NULL before it. */
const struct track_info *
track_current(void)
{
	return track_info.ops != NULL ? &track_info : NULL;
}

/* Free what a track_info holds (not the daemon's own: it lives on). */
void
track_info_free(struct track_info *info)
{
	free(info->root);
	free(info->why);
	memset(info, 0, sizeof *info);
}

/*
 * One line for people: "cgroup DIR (controllers: cpu memory)" or
 * "process groups (WHY)".
 */
void
track_describe(const struct track_info *info, char *buf, size_t len)
{
	char c[64];

	if (info->ops == &track_cgroup_ops) {
		cgroup_controllers_format(info->controllers, c, sizeof c);
		(void)snprintf(buf, len, "cgroup %s (controllers: %s)",
		    info->root, c);
	} else
		(void)snprintf(buf, len, "process groups (%s)",
		    info->why != NULL ? info->why : "no cgroup");
}

/*
 * For the unit's ExecStopPost=: disable the controllers the delegated
 * cgroup passes down, so that systemd can put the next tickd there while
 * jobs of the last one still run in its children (a cgroup that passes
 * controllers down may not hold processes; systemd 252 attaches a
 * restarted daemon to the unit's own cgroup and fails with EBUSY).  The
 * cgroup is conf's, or, by default, the parent of the ".control" cgroup
 * systemd runs ExecStopPost= in.  The next tickd enables them again and
 * writes the limits of the jobs it adopts anew.  0, or -1 with *cause.
 */
int
track_release_cgroup(const char *conf, char **cause)
{
	char		 buf[512], word[16], *dir = NULL, *slash;
	unsigned	 on, bit;
	int		 dfd, rc = -1;

	*cause = NULL;
	if (conf != NULL && strcmp(conf, "none") == 0)
		return 0;
	if (track_find_mount(cause) == -1)
		return -1;
	if (conf != NULL && conf[0] != '\0')
		dir = xstrdup(conf);
	else {
		if ((dir = track_pid_dir(0)) == NULL ||
		    (slash = strrchr(dir, '/')) == NULL ||
		    strcmp(slash, "/.control") != 0) {
			*cause = xasprintf("not run by systemd as a control "
			    "process of tickd's unit (its cgroup is %s): name "
			    "the cgroup in [daemon] cgroup",
			    dir != NULL ? dir : "unknown");
			free(dir);
			return -1;
		}
		*slash = '\0';
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		*cause = xasprintf("cgroup %s: %s", dir, strerror(errno));
		goto out;
	}
	if (cgroup_read_file(dfd, "cgroup.subtree_control", buf,
	    sizeof buf) == -1) {
		*cause = xasprintf("cgroup %s: cgroup.subtree_control: %s",
		    dir, strerror(errno));
		goto out;
	}
	on = cgroup_controllers_parse(buf);
	rc = 0;
	for (bit = CGROUP_PIDS; bit != 0; bit >>= 1) {
		if (!(on & bit))
			continue;
		(void)snprintf(word, sizeof word, "-%s",
		    cgroup_controller_name(bit));
		if (cgroup_write_file(dfd, "cgroup.subtree_control",
		    word) == -1 && *cause == NULL) {
			*cause = xasprintf("cgroup %s: disabling the %s "
			    "controller: %s", dir, cgroup_controller_name(bit),
			    strerror(errno));
			rc = -1;
		}
	}
out:
	if (dfd != -1)
		(void)close(dfd);
	free(dir);
	return rc;
}

/* A new invocation id: TRACK_TOKEN_LEN random hex digits. */
void
track_token(char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char	 raw[TRACK_TOKEN_LEN / 2];
	size_t		 i;
	int64_t		 t;

	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		/* Never short for 16 bytes once the pool is ready. */
		t = clock_boot_ns() ^ (int64_t)getpid() << 32;
		for (i = 0; i < sizeof raw; i++, t = t * 6364136223846793005LL +
		    1442695040888963407LL)
			raw[i] = (unsigned char)(t >> 33);
	}
	for (i = 0; i < sizeof raw && 2 * i + 2 < len; i++) {
		buf[2 * i] = hex[raw[i] >> 4];
		buf[2 * i + 1] = hex[raw[i] & 15];
	}
	buf[2 * i] = '\0';
}

/*
 * A process's state letter, parent, group, session and start (field 22,
 * clock ticks after boot) from /proc/PID/stat; 0, or -1 if it is gone.
 */
int
track_proc_stat(pid_t pid, int *state, long *ppid, long *pgrp, long *sid,
    int64_t *start)
{
	char		 path[64], buf[1024], *p;
	long long	 st;
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
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' ||
	    sscanf(p + 2, "%*c %ld %ld %ld", ppid, pgrp, sid) != 3)
		return -1;
	*state = (unsigned char)p[2];
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%lld", &st) != 1)
		return -1;
	*start = (int64_t)st;
	return 0;
}

/*
 * Whether process pid lives (not a zombie) and is the one that started
 * at start (field 22 of /proc/PID/stat); its session in *sid.  1 or 0.
 */
int
track_proc_same(pid_t pid, int64_t start, long *sid)
{
	long	ppid, pgrp;
	int64_t	st;
	int	state;

	return pid > 0 && start != -1 && track_proc_stat(pid, &state, &ppid,
	    &pgrp, sid, &st) == 0 && state != 'Z' && state != 'X' &&
	    st == start;
}

/*
 * The start time of a process (field 22 of /proc/PID/stat, clock ticks
 * since boot): with the pid, it identifies the process across pid reuse.
 * -1 if unknown.
 */
int64_t
track_pid_start(pid_t pid)
{
	long	ppid, pgrp, sid;
	int64_t	start;
	int	state;

	if (track_proc_stat(pid, &state, &ppid, &pgrp, &sid, &start) == -1)
		return -1;
	return start;
}

/*
 * The value of name in process pid's environment (the last one, as
 * getenv would see it after a setenv), or NULL.  Caller frees.  The
 * whole environment is read, into a buffer kept between calls.
 */
char *
track_proc_env(pid_t pid, const char *name)
{
	static char	*buf;
	static size_t	 cap;
	char		 path[64], *p, *end, *id = NULL;
	size_t		 got = 0, n = strlen(name);
	ssize_t		 r;
	int		 fd;

	(void)snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	for (;;) {
		if (got == cap) {
			if (cap >= TRACK_ENV_MAX)
				break;
			cap = cap == 0 ? 65536 : cap * 2;
			buf = xreallocarray(buf, cap, 1);
		}
		if ((r = read(fd, buf + got, cap - got)) <= 0)
			break;
		got += (size_t)r;
	}
	(void)close(fd);
	for (p = buf, end = buf + got; p < end; p += strlen(p) + 1) {
		if (memchr(p, '\0', (size_t)(end - p)) == NULL)
			break;
		if (strncmp(p, name, n) == 0 && p[n] == '=')
			id = p + n + 1;
	}
	return id != NULL ? xstrdup(id) : NULL;
}

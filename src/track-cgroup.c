/*
 * track-cgroup.c -- one cgroup v2 per attempt, in the subtree tickd owns.
 *
 * Before an attempt's process exists its cgroup is made under tickd's
 * root (track.c), named after the run id and the attempt
 * ("backup@2026-12-04T02:30:00Z.1"; an on_failure command's gets
 * ".on_failure" after it), its limits written (cgroup.c), and
 * cgroup.procs opened: the child writes itself there before anything
 * else (child.c), so that every process it ever makes is born inside.
 * Membership cannot be forged by an unprivileged process and survives
 * setsid and double forks: stopping an attempt signals what its cgroup
 * holds (SIGKILL through cgroup.kill, atomic against forks), the sweep
 * after a stopped attempt kills its own cgroup and no other (not the
 * next attempt's, not its on_failure command's), and what it used is
 * read from cpu.stat, memory.peak and memory.events.
 *
 * An attempt's cgroup is removed once the attempt is recorded; while
 * processes it left behind live there (a daemon a job started on
 * purpose), it is watched through cgroup.events with inotify and removed
 * when they are gone.  After a crash of the daemon an attempt is alive
 * when its recorded main process is (same pid, start time and boot, and
 * in that cgroup); when no pid was recorded (the daemon died between the
 * fork and the record), when its cgroup still holds processes, and it is
 * then followed as a whole until the cgroup is empty.  At start the
 * cgroups earlier daemons left (names with '@') are removed when empty,
 * else watched the same way.
 *
 * DIAGNOSTICS: prepare returns -1 with a cause (the attempt then fails
 * to start, recorded); other failures are silent here and show as
 * counts or unknown usage.
 */
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "clock.h"
#include "runner.h"
#include "track.h"
#include "xmalloc.h"

/* A cgroup watched until it is empty. */
struct cg_watch {
	int		 wd;
	char		*path;		/* the cgroup directory */
	struct run	*run;		/* followed as a run, or NULL */
};

static int		 cg_ino = -1;	/* inotify, for cgroup.events */
static struct cg_watch	*cg_watches;
static size_t		 cg_nwatches, cg_capwatches;

/*
 * The name of the attempt's cgroup: the run id with '/' made '_' (a
 * shard's: its instance's, "#" and its index), then the attempt;
 * ".on_failure" after it for its command; an overdue alert's command (no
 * run id) "JOB@overdue.MS".
 */
void
track_cgroup_name(const struct run *r, char *buf, size_t len)
{
	char *p;

	if (r->run_id[0] == '\0')
		(void)snprintf(buf, len, "%s@overdue.%lld", r->job,
		    (long long)clock_wall_ms());
	else if (r->shard >= 0)		/* a batch's shard: its own */
		(void)snprintf(buf, len, "%s#%d.%d", r->run_id, r->shard,
		    r->attempt);
	else
		(void)snprintf(buf, len, "%s.%d%s", r->run_id, r->attempt,
		    r->hook ? ".on_failure" : "");
	for (p = buf; *p != '\0'; p++) {
		if (*p == '/')
			*p = '_';
	}
}

/* Open a cgroup directory; -1 with errno. */
static int
cg_open(const char *path)
{
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Whether the cgroup at path holds processes: 1, 0, -1 unknown. */
static int
cg_populated_path(const char *path)
{
	char	buf[256];
	int	fd, rc = -1;
	int64_t	v;

	if ((fd = cg_open(path)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (cgroup_read_file(fd, "cgroup.events", buf, sizeof buf) > 0 &&
	    (v = cgroup_keyed(buf, "populated")) != -1)
		rc = v != 0;
	(void)close(fd);
	return rc;
}

/*
 * Make the attempt's cgroup, write its limits, and open its cgroup.procs
 * for the child to write itself into.
 */
static int
cg_prepare(struct run *r, const struct cgroup_limits *l, int *join_fd,
    char **cause)
{
	const struct track_info	*ti = track_current();
	char			 name[CGROUP_NAME_MAX + 1];
	char			*path;
	int			 dfd, existed;

	*join_fd = -1;
	if (ti == NULL || ti->root == NULL) {
		*cause = xstrdup("no cgroup subtree");
		return -1;
	}
	track_cgroup_name(r, name, sizeof name);
	path = xasprintf("%s/%s", ti->root, name);
	existed = mkdir(path, 0755) == -1;
	if (existed && errno != EEXIST) {
		*cause = xasprintf("cgroup %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (existed && cg_populated_path(path) != 0) {
		*cause = xasprintf("cgroup %s exists and holds processes",
		    path);
		free(path);
		return -1;
	}
	if ((dfd = cg_open(path)) == -1) {
		*cause = xasprintf("cgroup %s: %s", path, strerror(errno));
		(void)rmdir(path);
		free(path);
		return -1;
	}
	if (cgroup_limits_write(dfd, l, ti->controllers, cause) == -1 ||
	    (*join_fd = openat(dfd, "cgroup.procs", O_WRONLY |
	    O_CLOEXEC)) == -1) {
		if (*cause == NULL)
			*cause = xasprintf("cgroup %s: cgroup.procs: %s", path,
			    strerror(errno));
		else {
			char *c = xasprintf("cgroup %s: %s", path, *cause);

			free(*cause);
			*cause = c;
		}
		(void)close(dfd);
		(void)rmdir(path);
		free(path);
		return -1;
	}
	(void)close(dfd);
	free(r->cgroup);
	r->cgroup = path;
	return 0;
}

/*
 * The pids of the cgroup at path (NUL-separated numbers in an allocated
 * array), how many; -1 if it cannot be read.
 */
static int
cg_pids(const char *path, pid_t **pids)
{
	char	*buf = NULL, *p, *e;
	size_t	 cap = 4096;
	int	 fd, n = 0, len;
	long	 v;

	*pids = NULL;
	if ((fd = cg_open(path)) == -1)
		return -1;
	for (;;) {
		buf = xreallocarray(buf, cap, 1);
		if ((len = cgroup_read_file(fd, "cgroup.procs", buf,
		    cap)) == -1) {
			free(buf);
			(void)close(fd);
			return -1;
		}
		if ((size_t)len < cap - 1)
			break;
		cap *= 2;
	}
	(void)close(fd);
	for (p = buf; *p != '\0'; p = e) {
		v = strtol(p, &e, 10);
		if (e == p)
			break;
		e += strspn(e, "\n");
		*pids = xreallocarray(*pids, (size_t)n + 1, sizeof **pids);
		(*pids)[n++] = (pid_t)v;
	}
	free(buf);
	return n;
}

/*
 * SIGKILL every process of the cgroup: cgroup.kill (Linux 5.14) kills
 * them and whatever they fork meanwhile; without it the cgroup is frozen
 * while each is killed.  How many there were.
 */
static int
cg_kill_all(const char *path)
{
	pid_t	*pids;
	int	 n, i, fd;

	n = cg_pids(path, &pids);
	if ((fd = cg_open(path)) == -1) {
		free(pids);
		return n > 0 ? n : 0;
	}
	if (cgroup_write_file(fd, "cgroup.kill", "1") == -1) {
		(void)cgroup_write_file(fd, "cgroup.freeze", "1");
		free(pids);
		n = cg_pids(path, &pids);
		for (i = 0; i < n; i++)
			(void)kill(pids[i], SIGKILL);
		(void)cgroup_write_file(fd, "cgroup.freeze", "0");
	}
	(void)close(fd);
	free(pids);
	return n > 0 ? n : 0;
}

/* Send sig to every process of the attempt's cgroup; how many. */
static int
cg_signal(struct run *r, int sig)
{
	pid_t	*pids;
	int	 n, i;

	if (r->cgroup == NULL)
		return 0;
	if (sig == SIGKILL)
		return cg_kill_all(r->cgroup);
	if ((n = cg_pids(r->cgroup, &pids)) <= 0)
		return 0;
	for (i = 0; i < n; i++)
		(void)kill(pids[i], sig);
	free(pids);
	return n;
}

/* The main process ended: SIGKILL what is left in the cgroup. */
static int
cg_sweep(struct run *r)
{
	return cg_signal(r, SIGKILL);
}

/*
 * What the attempt used, from its cgroup; the main process's peak
 * memory (rusage) where the memory controller is not there.
 */
static void
cg_usage(struct run *r, const struct rusage *ru, struct track_usage *u)
{
	struct cgroup_usage	cu;
	int			fd;

	u->user_us = u->system_us = u->mem_peak = -1;
	u->oom = 0;
	u->source = NULL;
	if (r->cgroup == NULL || (fd = cg_open(r->cgroup)) == -1)
		return;
	cgroup_usage_read(fd, &cu);
	(void)close(fd);
	u->user_us = cu.user_us;
	u->system_us = cu.system_us;
	u->mem_peak = cu.mem_peak;
	if (u->mem_peak == -1 && ru != NULL)
		u->mem_peak = (int64_t)ru->ru_maxrss * 1024;
	u->oom = cu.oom_kills > 0;
	u->source = "cgroup";
}

/* Stop watching entry i. */
static void
cg_unwatch(size_t i)
{
	if (cg_ino != -1)
		(void)inotify_rm_watch(cg_ino, cg_watches[i].wd);
	free(cg_watches[i].path);
	cg_watches[i] = cg_watches[--cg_nwatches];
}

/*
 * Watch the cgroup at path until it is empty (run: a run followed as a
 * group, or NULL: leftovers to remove).  0, or -1 if it cannot be
 * watched.
 */
static int
cg_watch(const char *path, struct run *r)
{
	char	*ev;
	int	 wd;

	if (cg_ino == -1 && (cg_ino = inotify_init1(IN_NONBLOCK |
	    IN_CLOEXEC)) == -1)
		return -1;
	ev = xasprintf("%s/cgroup.events", path);
	wd = inotify_add_watch(cg_ino, ev, IN_MODIFY);
	free(ev);
	if (wd == -1)
		return -1;
	if (cg_nwatches == cg_capwatches) {
		cg_capwatches = cg_capwatches ? cg_capwatches * 2 : 16;
		cg_watches = xreallocarray(cg_watches, cg_capwatches,
		    sizeof *cg_watches);
	}
	cg_watches[cg_nwatches].wd = wd;
	cg_watches[cg_nwatches].path = xstrdup(path);
	cg_watches[cg_nwatches++].run = r;
	return 0;
}

/*
 * The attempt is recorded: remove its cgroup, or, while leftovers live
 * there, watch it and remove it when they are gone.
 */
static void
cg_release(struct run *r)
{
	if (r->cgroup == NULL)
		return;
	track_cgroup_unfollow(r);
	if (rmdir(r->cgroup) == -1 && errno == EBUSY)
		(void)cg_watch(r->cgroup, NULL);
}

/*
 * Whether an attempt of an earlier daemon still runs: its recorded main
 * process in its cgroup, or, with no pid recorded, a cgroup holding
 * processes.  Never across a reboot.
 */
static enum track_alive
cg_find(struct run *r, const struct track_found *f)
{
	const struct track_info	*ti = track_current();
	char			 name[CGROUP_NAME_MAX + 1], *in;
	long			 sid;
	int			 same;

	if (!track_same_boot(f->boot_id))
		return TRACK_GONE;
	free(r->cgroup);
	r->cgroup = NULL;
	if (f->cgroup != NULL)
		r->cgroup = xstrdup(f->cgroup);
	else if (ti != NULL && ti->root != NULL) {
		track_cgroup_name(r, name, sizeof name);
		r->cgroup = xasprintf("%s/%s", ti->root, name);
	} else
		return TRACK_GONE;
	if (f->pid > 0) {
		if (!track_proc_same(f->pid, f->pid_start, &sid))
			return TRACK_GONE;
		in = track_proc_cgroup(f->pid);
		same = in != NULL && strcmp(in, r->cgroup) == 0;
		free(in);
		if (!same)
			return TRACK_GONE;
		r->pid = f->pid;
		r->pid_start = f->pid_start;
		return TRACK_MAIN;
	}
	return cg_populated_path(r->cgroup) == 1 ? TRACK_GROUP : TRACK_GONE;
}

/* Whether the attempt's cgroup still holds processes. */
static int
cg_populated(const struct run *r)
{
	return r->cgroup != NULL && cg_populated_path(r->cgroup) != 0;
}

/* The inotify descriptor the loop watches, or -1 before any watch. */
int
track_cgroup_fd(void)
{
	if (cg_ino == -1)
		cg_ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return cg_ino;
}

/*
 * Follow a run adopted as a group: done is called (by
 * track_cgroup_events) once its cgroup is empty.
 */
void
track_cgroup_follow(struct run *r)
{
	if (r->cgroup != NULL && cg_watch(r->cgroup, r) == -1)
		r->follow_poll = 1;
}

/* Stop following a run (it is being freed or released). */
void
track_cgroup_unfollow(struct run *r)
{
	size_t i;

	for (i = 0; i < cg_nwatches; i++) {
		if (cg_watches[i].run == r) {
			cg_unwatch(i);
			return;
		}
	}
}

/*
 * Read what inotify reported: each watched cgroup that is now empty is
 * removed (leftovers) or its run handed to done.  How many events.
 */
int
track_cgroup_events(void (*done)(struct run *, void *), void *arg)
{
	char		 buf[4096]
			    __attribute__((aligned(__alignof__(struct
			    inotify_event))));
	struct run	*r;
	ssize_t		 n;
	size_t		 i;
	int		 count = 0;

	while ((n = read(cg_ino, buf, sizeof buf)) > 0)
		count++;
	if (count == 0)
		return 0;
	/* Which one changed matters little: look at them all. */
	for (i = 0; i < cg_nwatches;) {
		if (cg_populated_path(cg_watches[i].path) != 0) {
			i++;
			continue;
		}
		r = cg_watches[i].run;
		if (r == NULL)
			(void)rmdir(cg_watches[i].path);
		cg_unwatch(i);
		if (r != NULL)
			done(r, arg);
	}
	return count;
}

/*
 * At start: remove the empty cgroups earlier daemons left in the root,
 * and watch the others (processes an attempt left behind) until they
 * are empty; known(path, arg) says which belong to attempts adopted now.
 */
void
track_cgroup_tidy(int (*known)(const char *, void *), void *arg)
{
	const struct track_info	*ti = track_current();
	DIR			*d;
	struct dirent		*de;
	char			*path;

	if (ti == NULL || ti->root == NULL || (d = opendir(ti->root)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_type != DT_DIR || strchr(de->d_name, '@') == NULL)
			continue;
		path = xasprintf("%s/%s", ti->root, de->d_name);
		if (!known(path, arg) && rmdir(path) == -1 && errno == EBUSY)
			(void)cg_watch(path, NULL);
		free(path);
	}
	(void)closedir(d);
}

/*
 * Write the job's limits into an adopted attempt's cgroup: the daemon
 * before this one may have stopped passing the controllers down
 * (tickd --release-cgroup), which took the limits with them.
 */
static int
cg_limit(struct run *r, const struct cgroup_limits *l, char **cause)
{
	const struct track_info	*ti = track_current();
	int			 dfd, rc;

	if (r->cgroup == NULL || (dfd = cg_open(r->cgroup)) == -1) {
		*cause = xasprintf("cgroup %s: %s", r->cgroup != NULL ?
		    r->cgroup : "(none)", strerror(errno));
		return -1;
	}
	rc = cgroup_limits_write(dfd, l, ti != NULL ? ti->controllers : 0,
	    cause);
	(void)close(dfd);
	return rc;
}

const struct track_ops track_cgroup_ops = {
	"cgroup",
	cg_prepare,
	cg_signal,
	cg_sweep,
	cg_usage,
	cg_release,
	cg_find,
	cg_populated,
	cg_limit,
};

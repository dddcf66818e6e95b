/*
 * track-pgrp.c -- an attempt's processes without cgroups: its process
 * group and session, and its invocation id in the environment.
 *
 * Every attempt leads a session of its own (child.c: setsid), so while
 * its main process lives, the group and the session numbered after it
 * are its processes (the kernel does not reuse a number a live process
 * holds as its group or session id).  Descendants that leave both (setsid,
 * a double fork) still carry TICKD_INVOCATION_ID, 128 random bits per
 * attempt: nobody else can know it (another user cannot read the
 * attempt's environment), and the next attempt of the same run, or its
 * on_failure command, has another.  Once the main process has ended its
 * number may be reused, so from then on only the invocation id counts,
 * and the group or session number only for tickd's own descendants that
 * carry no invocation id of another attempt.  This is the fallback: a
 * descendant that clears its environment and leaves the session escapes
 * it (a cgroup holds it: track-cgroup.c).
 *
 * After a crash of the daemon an attempt is alive when its recorded
 * main process is (same pid, same start time, same boot, still the
 * leader of its session); a process that merely carries the run's id is
 * not.  Only when the pid was never recorded (the daemon died between
 * the fork and the record) is the main process looked for: the session
 * leader carrying the attempt's invocation id, the oldest.
 *
 * /proc is read once per loop iteration at most (the runner forgets the
 * snapshot when the iteration changes): stopping many attempts at once
 * reads it once.  Usage is the main process's rusage (wait4): its CPU
 * time and peak resident memory, its waited-for descendants included.
 *
 * DIAGNOSTICS: none; processes that vanish while looked at are skipped.
 */
#include <sys/resource.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"
#include "track.h"
#include "xmalloc.h"

#define PGRP_TOKEN_VAR	"TICKD_INVOCATION_ID"

/* A process as /proc showed it. */
struct pgrp_proc {
	long		 pid, ppid, pgrp, sid;
	int64_t		 start;
	int		 mine;		/* descends from tickd: 1, not: 2 */
	int		 read;		/* token read */
	char		*token;		/* its invocation id, or NULL */
};

static struct pgrp_proc	*pgrp_procs;		/* sorted by pid */
static size_t		 pgrp_n, pgrp_cap;
static int		 pgrp_snapped;

/* Forget the snapshot: the next question reads /proc again. */
void
track_pgrp_snap_forget(void)
{
	size_t i;

	for (i = 0; i < pgrp_n; i++)
		free(pgrp_procs[i].token);
	pgrp_n = 0;
	pgrp_snapped = 0;
}

static int
pgrp_cmp(const void *a, const void *b)
{
	const struct pgrp_proc *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* A process of the snapshot by pid, or NULL. */
static struct pgrp_proc *
pgrp_find(long pid)
{
	struct pgrp_proc key;

	key.pid = pid;
	return bsearch(&key, pgrp_procs, pgrp_n, sizeof key, pgrp_cmp);
}

/* Read every live process but tickd from /proc, once per iteration. */
static void
pgrp_snap(void)
{
	DIR		*d;
	struct dirent	*de;
	char		*p;
	long		 pid, ppid, pgrp, sid;
	int64_t		 start;
	int		 state;

	if (pgrp_snapped)
		return;
	track_pgrp_snap_forget();
	pgrp_snapped = 1;
	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if ((pid = strtol(de->d_name, &p, 10)) <= 1 || *p != '\0' ||
		    pid == (long)getpid() || track_proc_stat((pid_t)pid,
		    &state, &ppid, &pgrp, &sid, &start) == -1 ||
		    state == 'Z' || state == 'X')
			continue;
		if (pgrp_n == pgrp_cap) {
			pgrp_cap = pgrp_cap == 0 ? 1024 : pgrp_cap * 2;
			pgrp_procs = xreallocarray(pgrp_procs, pgrp_cap,
			    sizeof *pgrp_procs);
		}
		pgrp_procs[pgrp_n++] = (struct pgrp_proc){ pid, ppid, pgrp,
		    sid, start, 0, 0, NULL };
	}
	(void)closedir(d);
	qsort(pgrp_procs, pgrp_n, sizeof *pgrp_procs, pgrp_cmp);
}

/*
 * Whether a process descends from tickd: through a run's main process,
 * or handed to tickd, the subreaper, when its parent died.  Memoized
 * along the chain.
 */
static int
pgrp_mine(struct pgrp_proc *e)
{
	struct pgrp_proc	*chain[64], *q;
	size_t			 n = 0, i;
	int			 mine = 2;

	for (q = e; q != NULL && n < sizeof chain / sizeof chain[0];
	    q = pgrp_find(q->ppid)) {
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

/* A process's invocation id (read once per snapshot), or NULL. */
static const char *
pgrp_token(struct pgrp_proc *e)
{
	if (!e->read) {
		e->read = 1;
		e->token = track_proc_env((pid_t)e->pid, PGRP_TOKEN_VAR);
	}
	return e->token;
}

/*
 * Whether process e is one of the attempt's, beyond its group (which the
 * caller signals with one kill while the main process lives).  Only
 * tickd's descendants are looked into, unless the attempt was adopted
 * from an earlier daemon (then its descendants are init's).
 */
static int
pgrp_match(struct pgrp_proc *e, const struct run *r)
{
	const char	*tok;
	int		 mine = pgrp_mine(e);

	tok = mine || r->adopted ? pgrp_token(e) : NULL;
	if (tok != NULL && r->invocation[0] != '\0')
		return strcmp(tok, r->invocation) == 0;
	if (!mine || r->pid <= 0)
		return 0;
	/* Numbers: pinned while the main process lives, else ours only. */
	if (!r->reaped)
		return e->sid == (long)r->pid;
	return tok == NULL && (e->pgrp == (long)r->pid ||
	    e->sid == (long)r->pid);
}

/* Nothing to make: the child leads a session of its own (child.c). */
static int
pgrp_prepare(struct run *r, const struct cgroup_limits *l, int *join_fd,
    char **cause)
{
	(void)r;
	(void)cause;
	*join_fd = -1;
	if (cgroup_limits_need(l) != 0) {
		/* conf refuses such a job when there are no cgroups. */
		*cause = xstrdup("resource limits need a cgroup, and tickd "
		    "tracks process groups");
		return -1;
	}
	return 0;
}

/*
 * Send sig to every process of the attempt, once each: its group with
 * one kill while its main process lives, then the others found in
 * /proc.  How many there were.
 */
static int
pgrp_signal(struct run *r, int sig)
{
	struct pgrp_proc	*e;
	size_t			 i;
	int			 count = 0, group;

	/*
	 * /proc first: read after a SIGKILL, the group's members may be
	 * zombies already, and would not be counted.
	 */
	pgrp_snap();
	group = r->pid > 0 && !r->reaped;
	if (group)
		(void)kill(-r->pid, sig);
	for (i = 0; i < pgrp_n; i++) {
		e = &pgrp_procs[i];
		if (group && e->pgrp == (long)r->pid) {
			count++;
			continue;
		}
		if (pgrp_match(e, r) && kill((pid_t)e->pid, sig) == 0)
			count++;
	}
	return count;
}

/* The main process ended: SIGKILL what is left of the attempt. */
static int
pgrp_sweep(struct run *r)
{
	return pgrp_signal(r, SIGKILL);
}

/* The main process's rusage (none for an adopted one). */
static void
pgrp_usage(struct run *r, const struct rusage *ru, struct track_usage *u)
{
	(void)r;
	u->user_us = u->system_us = u->mem_peak = -1;
	u->oom = 0;
	u->source = NULL;
	if (ru == NULL)
		return;
	u->user_us = (int64_t)ru->ru_utime.tv_sec * 1000000 +
	    ru->ru_utime.tv_usec;
	u->system_us = (int64_t)ru->ru_stime.tv_sec * 1000000 +
	    ru->ru_stime.tv_usec;
	u->mem_peak = (int64_t)ru->ru_maxrss * 1024;
	u->source = "rusage";
}

/* Nothing to remove. */
static void
pgrp_release(struct run *r)
{
	(void)r;
}

/*
 * Whether an attempt of an earlier daemon still runs: its recorded main
 * process, or, if none was recorded, the oldest session leader carrying
 * its invocation id.  Never across a reboot.
 */
static enum track_alive
pgrp_find_alive(struct run *r, const struct track_found *f)
{
	struct pgrp_proc	*e, *best = NULL;
	long			 sid;
	size_t			 i;

	if (!track_same_boot(f->boot_id))
		return TRACK_GONE;
	if (f->pid > 0) {
		if (!track_proc_same(f->pid, f->pid_start, &sid) ||
		    sid != (long)f->pid)
			return TRACK_GONE;
		r->pid = f->pid;
		r->pid_start = f->pid_start;
		return TRACK_MAIN;
	}
	if (f->invocation == NULL || f->invocation[0] == '\0')
		return TRACK_GONE;
	pgrp_snap();
	for (i = 0; i < pgrp_n; i++) {
		e = &pgrp_procs[i];
		if (e->sid != e->pid || pgrp_token(e) == NULL ||
		    strcmp(pgrp_token(e), f->invocation) != 0)
			continue;
		if (best == NULL || e->start < best->start)
			best = e;
	}
	if (best == NULL)
		return TRACK_GONE;
	r->pid = (pid_t)best->pid;
	r->pid_start = best->start;
	return TRACK_MAIN;
}

/* Whether the attempt's main process still lives. */
static int
pgrp_populated(const struct run *r)
{
	long sid;

	return track_proc_same(r->pid, r->pid_start, &sid);
}

/* No limits without a cgroup (conf refuses a job that sets one). */
static int
pgrp_limit(struct run *r, const struct cgroup_limits *l, char **cause)
{
	int join = -1;

	return pgrp_prepare(r, l, &join, cause);
}

const struct track_ops track_pgrp_ops = {
	"process group",
	pgrp_prepare,
	pgrp_signal,
	pgrp_sweep,
	pgrp_usage,
	pgrp_release,
	pgrp_find_alive,
	pgrp_populated,
	pgrp_limit,
};

/*
 * priv.c -- resolve a job's user and groups; switch to them in the child.
 *
 * priv_lookup runs in the daemon and does everything that needs the name
 * service (getpwnam_r, getgrnam_r, getgrouplist): NSS is not
 * async-signal-safe, so the child only receives numbers.  priv_switch runs
 * in the child between fork and exec: setgroups, setgid, setuid, in that
 * order (Postfix set_ugid.c), as raw system calls, then verifies that
 * real and effective ids all equal the target and, for a non-root target,
 * that root cannot be regained.
 *
 * When tickd is not root it cannot switch: jobs run as tickd's own user,
 * and naming another user or group is a configuration error.
 *
 * DIAGNOSTICS: priv_lookup returns -1 with *cause set ("unknown user
 * \"x\""); priv_switch returns -1 with errno set and logs nothing (it runs
 * between fork and exec).
 */
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"
#include "xmalloc.h"

#define PRIV_BUF_MAX	(1024 * 1024)

/* getpwnam_r or getpwuid_r with a growing buffer; 0, or -1 (errno). */
static int
priv_getpw(const char *name, uid_t uid, struct passwd *pw, char **buf)
{
	struct passwd	*res = NULL;
	size_t		 size = 1024;
	int		 rc;

	for (;;) {
		*buf = xreallocarray(*buf, 1, size);
		errno = 0;
		rc = name != NULL ? getpwnam_r(name, pw, *buf, size, &res) :
		    getpwuid_r(uid, pw, *buf, size, &res);
		if (rc == ERANGE && size < PRIV_BUF_MAX) {
			size *= 2;
			continue;
		}
		if (res == NULL) {
			errno = rc;	/* 0: no such entry */
			return -1;
		}
		return 0;
	}
}

/* getgrnam_r with a growing buffer; the gid, or -1 with errno. */
static int
priv_getgr(const char *name, gid_t *gid)
{
	struct group	 gr, *res = NULL;
	char		*buf = NULL;
	size_t		 size = 1024;
	int		 rc;

	for (;;) {
		buf = xreallocarray(buf, 1, size);
		errno = 0;
		rc = getgrnam_r(name, &gr, buf, size, &res);
		if (rc == ERANGE && size < PRIV_BUF_MAX) {
			size *= 2;
			continue;
		}
		break;
	}
	if (res != NULL)
		*gid = gr.gr_gid;
	free(buf);
	errno = rc;
	return res != NULL ? 0 : -1;
}

/*
 * Resolve user (NULL: the daemon's own) and group (NULL: the user's
 * primary group) into *out, which the caller frees with priv_cred_free.
 * Returns 0, or with *cause set -1 when the user is the problem and -2
 * when the group is.
 */
int
priv_lookup(const char *user, const char *group, struct priv_cred *out,
    char **cause)
{
	return priv_lookup_as(geteuid(), getegid(), user, group, out, cause);
}

/*
 * priv_lookup for a daemon running as uid/gid, which need not be this
 * process's (tickctl checks a configuration as the daemon reads it).
 */
int
priv_lookup_as(uid_t uid, gid_t egid, const char *user, const char *group,
    struct priv_cred *out, char **cause)
{
	struct passwd	 pw;
	char		*buf = NULL;
	gid_t		 gid;
	int		 n, rc = -1, root = uid == 0;

	memset(out, 0, sizeof *out);
	if (priv_getpw(user, uid, &pw, &buf) == -1) {
		if (user == NULL)
			*cause = xasprintf("uid %ld has no password entry",
			    (long)uid);
		else if (errno == 0)
			*cause = xasprintf("unknown user \"%s\"", user);
		else
			*cause = xasprintf("user \"%s\": %s", user,
			    strerror(errno));
		goto out;
	}
	if (!root && pw.pw_uid != uid) {
		*cause = xasprintf("user \"%s\": tickd runs as uid %ld, not "
		    "root, and cannot switch users", user, (long)uid);
		goto out;
	}
	gid = pw.pw_gid;
	if (group != NULL && priv_getgr(group, &gid) == -1) {
		if (errno == 0)
			*cause = xasprintf("unknown group \"%s\"", group);
		else
			*cause = xasprintf("group \"%s\": %s", group,
			    strerror(errno));
		rc = -2;
		goto out;
	}
	if (!root && gid != egid && gid != pw.pw_gid) {
		*cause = xasprintf("group \"%s\": tickd is not root and cannot "
		    "switch groups", group);
		rc = -2;
		goto out;
	}

	out->uid = pw.pw_uid;
	out->gid = gid;
	out->user = xstrdup(pw.pw_name);
	out->home = xstrdup(pw.pw_dir != NULL ? pw.pw_dir : "/");
	out->shell = xstrdup(pw.pw_shell != NULL && *pw.pw_shell != '\0' ?
	    pw.pw_shell : "/bin/sh");

	/* Supplementary groups: the user's, plus the chosen primary. */
	n = 16;
	for (;;) {
		out->groups = xreallocarray(out->groups, (size_t)n,
		    sizeof *out->groups);
		if (getgrouplist(pw.pw_name, gid, out->groups, &n) != -1)
			break;
		if (n > 65536) {
			*cause = xasprintf("user \"%s\": too many groups",
			    pw.pw_name);
			priv_cred_free(out);
			goto out;
		}
	}
	out->ngroups = n;
	rc = 0;
out:
	free(buf);
	return rc;
}

/*
 * Give dst src's credential.  Its strings and group list are shared, not
 * copied (100,000 jobs of one user hold one copy of them): both point at
 * them, counted in refs, and neither changes them.
 */
void
priv_cred_copy(struct priv_cred *dst, struct priv_cred *src)
{
	if (src->refs == NULL) {
		src->refs = xmalloc(sizeof *src->refs);
		*src->refs = 1;
	}
	(*src->refs)++;
	*dst = *src;
}

/*
 * Let go of a credential: its strings and group list are freed with
 * their last holder.  NULL is allowed.
 */
void
priv_cred_free(struct priv_cred *c)
{
	if (c == NULL)
		return;
	if (c->refs == NULL || --*c->refs == 0) {
		free(c->refs);
		free(c->groups);
		free(c->user);
		free(c->home);
		free(c->shell);
	}
	memset(c, 0, sizeof *c);
}

/*
 * Whether c is who the daemon already is: its user and group as real,
 * effective and saved ids, and the same supplementary groups.  Then the child
 * need not switch (priv_switch would set what is there: five system
 * calls in every job's child).  The daemon's ids are read once: it never
 * changes them.
 */
int
priv_is_self(const struct priv_cred *c)
{
	static int	 known, n;
	static uid_t	 uid;
	static gid_t	 gid, *groups;
	uid_t		 euid, suid;
	gid_t		 egid, sgid;
	int		 i, j;

	if (!known) {
		known = 1;
		n = -1;			/* ids that differ: never self */
		/* A saved id of root could be regained: all three alike. */
		if (getresuid(&uid, &euid, &suid) == 0 &&
		    getresgid(&gid, &egid, &sgid) == 0 &&
		    uid == euid && uid == suid && gid == egid && gid == sgid &&
		    (n = getgroups(0, NULL)) >= 0) {
			groups = xreallocarray(NULL, (size_t)n + 1,
			    sizeof *groups);
			if ((n = getgroups(n, groups)) < 0)
				n = -1;
		}
	}
	if (n < 0 || c->uid != uid || c->gid != gid)
		return 0;
	/*
	 * The same sets, each way; the primary group counts as in both (the
	 * kernel checks it before the list: root's list is often empty for
	 * the daemon, [0] for the job's user).
	 */
	for (i = 0; i < c->ngroups; i++) {
		for (j = 0; j < n && groups[j] != c->groups[i]; j++)
			;
		if (j == n && c->groups[i] != gid)
			return 0;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < c->ngroups && c->groups[j] != groups[i]; j++)
			;
		if (j == c->ngroups && groups[i] != gid)
			return 0;
	}
	return 1;
}

/*
 * Become the credential's user.  Runs between fork and exec:
 * async-signal-safe calls only.  Without root, only checks that the ids
 * already match.  Returns 0, or -1 with errno set.
 */
int
priv_switch(const struct priv_cred *c)
{
	/*
	 * Raw system calls, as glibc's posix_spawn makes them: the child
	 * may share the daemon's memory (runner.c: CLONE_VM), and glibc's
	 * wrappers would take the daemon's locks to change every thread's
	 * ids.  For root, setres[ug]id(x, x, x) is set[ug]id(x).
	 */
	if (geteuid() == 0) {
		if (syscall(SYS_setgroups, (size_t)c->ngroups, c->groups) == -1 ||
		    syscall(SYS_setresgid, c->gid, c->gid, c->gid) == -1 ||
		    syscall(SYS_setresuid, c->uid, c->uid, c->uid) == -1)
			return -1;
	}
	if (getuid() != c->uid || geteuid() != c->uid ||
	    getgid() != c->gid || getegid() != c->gid) {
		errno = EPERM;
		return -1;
	}
	/* A dropped root must not be able to come back. */
	if (c->uid != 0 && syscall(SYS_setuid, 0) != -1) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

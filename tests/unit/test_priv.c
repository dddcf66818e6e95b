/*
 * test_priv.c -- unit tests of job credentials: priv_lookup (the daemon's
 * own user, named users and groups, unknown names and their causes,
 * supplementary groups), priv_cred_copy (shared, counted) and priv_switch in a
 * forked child.
 *
 * Tables of cases.  Expected ids come from the password and group
 * databases (getpwnam, getgrnam) rather than being hard-coded, except
 * root's.  Cases that need root (other users, the switch itself) are
 * skipped, with a message, when the test does not run as root.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"

#include "t.h"

#define UNKNOWN_USER	"tickd-no-such-user"
#define UNKNOWN_GROUP	"tickd-no-such-group"

/* A lookup: user and group names (NULL: defaults), and the outcome. */
struct lookup_case {
	const char	*name;
	const char	*user;
	const char	*group;
	int		 need_root;
	const char	*want_user;	/* NULL: the lookup fails */
	const char	*want_group;	/* group whose gid is expected */
	const char	*cause;		/* expected cause when failing */
};

static const struct lookup_case lookup_cases[] = {
	{ "root by name", "root", NULL, 1, "root", "root", NULL },
	{ "root and group root", "root", "root", 1, "root", "root", NULL },
	{ "nobody", "nobody", NULL, 1, "nobody", "nogroup", NULL },
	{ "nobody, group root", "nobody", "root", 1, "nobody", "root",
	    NULL },
	{ "root, group nogroup", "root", "nogroup", 1, "root", "nogroup",
	    NULL },
	{ "unknown user", UNKNOWN_USER, NULL, 0, NULL, NULL,
	    "unknown user \"" UNKNOWN_USER "\"" },
	{ "unknown user and group", UNKNOWN_USER, UNKNOWN_GROUP, 0, NULL,
	    NULL, "unknown user \"" UNKNOWN_USER "\"" },
	{ "unknown group", "root", UNKNOWN_GROUP, 1, NULL, NULL,
	    "unknown group \"" UNKNOWN_GROUP "\"" },
	{ "unknown group, own user", NULL, UNKNOWN_GROUP, 0, NULL, NULL,
	    "unknown group \"" UNKNOWN_GROUP "\"" },
};

/* Whether gid is in a credential's group list. */
static int
has_group(const struct priv_cred *c, gid_t gid)
{
	int i;

	for (i = 0; i < c->ngroups; i++) {
		if (c->groups[i] == gid)
			return 1;
	}
	return 0;
}

/* The daemon's own user: priv_lookup(NULL, NULL). */
static void
test_self(void)
{
	struct priv_cred	 c;
	struct passwd		*pw;
	char			*cause = NULL;

	T_RUN("own user");
	if (!T_EQ_INT(priv_lookup(NULL, NULL, &c, &cause), 0)) {
		(void)printf("  cause: %s\n", cause ? cause : "(none)");
		free(cause);
		return;
	}
	T_TRUE(cause == NULL);
	T_EQ_INT(c.uid, geteuid());
	pw = getpwuid(geteuid());
	T_TRUE(pw != NULL);
	if (pw != NULL) {
		T_EQ_INT(c.gid, pw->pw_gid);
		T_EQ_STR(c.user, pw->pw_name);
		T_EQ_STR(c.home, pw->pw_dir);
		T_EQ_STR(c.shell, pw->pw_shell[0] != '\0' ? pw->pw_shell :
		    "/bin/sh");
	}
	if (geteuid() == 0) {
		T_EQ_INT(c.uid, 0);
		T_EQ_INT(c.gid, 0);
		T_EQ_STR(c.user, "root");
		T_EQ_STR(c.home, "/root");
		T_TRUE(c.shell != NULL && c.shell[0] == '/');
	}
	T_TRUE(c.ngroups >= 1);
	T_TRUE(has_group(&c, c.gid));
	priv_cred_free(&c);
	T_TRUE(c.groups == NULL && c.user == NULL && c.home == NULL);
	priv_cred_free(NULL);
}

/* One lookup case. */
static void
lookup_run(const struct lookup_case *lc)
{
	struct priv_cred	 c;
	struct passwd		*pw;
	struct group		*gr;
	char			*cause = NULL;
	int			 rc;

	T_RUN(lc->name);
	if (lc->need_root && geteuid() != 0) {
		(void)printf("  [%s] skipped: not root\n", lc->name);
		return;
	}
	rc = priv_lookup(lc->user, lc->group, &c, &cause);
	if (lc->want_user == NULL) {
		/* -1: the user is the problem, -2: the group. */
		T_EQ_INT(rc, strstr(lc->cause, "group") != NULL ? -2 : -1);
		T_EQ_STR(cause, lc->cause);
		free(cause);
		if (rc == 0)
			priv_cred_free(&c);
		return;
	}
	if (!T_EQ_INT(rc, 0)) {
		(void)printf("  cause: %s\n", cause ? cause : "(none)");
		free(cause);
		return;
	}
	pw = getpwnam(lc->want_user);
	gr = getgrnam(lc->want_group);
	T_TRUE(pw != NULL && gr != NULL);
	if (pw != NULL && gr != NULL) {
		T_EQ_INT(c.uid, pw->pw_uid);
		T_EQ_INT(c.gid, gr->gr_gid);
		T_EQ_STR(c.user, pw->pw_name);
		T_EQ_STR(c.home, pw->pw_dir);
		T_EQ_STR(c.shell, pw->pw_shell);
	}
	/* The chosen primary group is among the supplementary ones. */
	T_TRUE(c.ngroups >= 1);
	T_TRUE(has_group(&c, c.gid));
	priv_cred_free(&c);
}

/*
 * priv_cred_copy: equal contents in shared storage, freed with its last
 * holder, whichever that is (ASan sees a block used after its free).
 */
static void
test_copy(void)
{
	struct priv_cred	 a, b, c, z, zc;
	char			*cause = NULL;
	int			 i;

	T_RUN("copy");
	if (priv_lookup(NULL, NULL, &a, &cause) == -1) {
		T_TRUE(0);
		free(cause);
		return;
	}
	priv_cred_copy(&b, &a);
	priv_cred_copy(&c, &b);
	T_EQ_INT(b.uid, a.uid);
	T_EQ_INT(b.gid, a.gid);
	T_EQ_INT(b.ngroups, a.ngroups);
	T_TRUE(b.user == a.user && c.home == a.home && c.shell == b.shell);
	T_TRUE(b.groups == a.groups && c.refs == a.refs);
	T_EQ_INT(*a.refs, 3);
	T_EQ_STR(b.user, a.user);
	for (i = 0; i < a.ngroups && i < b.ngroups; i++)
		T_EQ_INT(b.groups[i], a.groups[i]);
	/* The copies outlive the original, the last one frees. */
	priv_cred_free(&a);
	T_TRUE(a.user == NULL && a.refs == NULL);
	T_EQ_INT(*b.refs, 2);
	priv_cred_free(&c);
	T_TRUE(b.user != NULL && strlen(b.user) > 0);
	T_TRUE(b.ngroups < 1 || has_group(&b, b.gid));
	T_EQ_INT(*b.refs, 1);
	priv_cred_free(&b);

	/* An empty credential copies to an empty one. */
	memset(&z, 0, sizeof z);
	priv_cred_copy(&zc, &z);
	T_TRUE(zc.user == NULL && zc.home == NULL && zc.shell == NULL);
	T_EQ_INT(zc.ngroups, 0);
	priv_cred_free(&zc);
	priv_cred_free(&z);	/* the last holder (LeakSanitizer) */
}

/* Child codes of the switch test. */
enum {
	SW_OK = 0,
	SW_SWITCH,		/* priv_switch failed */
	SW_UID,
	SW_GID,
	SW_GROUPS,
	SW_REGAIN,		/* setuid(0) succeeded */
	SW_LOOKUP = 9
};

/* A switch: target user and group, whether root is expected to stay. */
struct switch_case {
	const char	*name;
	const char	*user;
	const char	*group;
};

static const struct switch_case switch_cases[] = {
	{ "switch to nobody", "nobody", NULL },
	{ "switch to nobody:root", "nobody", "root" },
	{ "switch to root", "root", NULL },
};

/* In the child: switch, then check every id.  Never returns. */
static void
switch_child(const struct priv_cred *c)
{
	gid_t	groups[64];
	int	n, i;

	if (priv_switch(c) == -1)
		_exit(SW_SWITCH);
	if (getuid() != c->uid || geteuid() != c->uid)
		_exit(SW_UID);
	if (getgid() != c->gid || getegid() != c->gid)
		_exit(SW_GID);
	if ((n = getgroups(64, groups)) != c->ngroups)
		_exit(SW_GROUPS);
	for (i = 0; i < n; i++) {
		if (!has_group(c, groups[i]))
			_exit(SW_GROUPS);
	}
	if (c->uid != 0 && (setuid(0) != -1 || seteuid(0) != -1))
		_exit(SW_REGAIN);
	_exit(SW_OK);
}

/* Fork a child that switches; the parent checks its exit status. */
static void
switch_run(const struct switch_case *sc)
{
	struct priv_cred	 c;
	char			*cause = NULL;
	pid_t			 pid;
	int			 status = 0;

	T_RUN(sc->name);
	if (geteuid() != 0) {
		(void)printf("  [%s] skipped: not root\n", sc->name);
		return;
	}
	if (!T_EQ_INT(priv_lookup(sc->user, sc->group, &c, &cause), 0)) {
		(void)printf("  cause: %s\n", cause ? cause : "(none)");
		free(cause);
		return;
	}
	(void)fflush(stdout);
	if ((pid = fork()) == -1) {
		T_TRUE(0);
		priv_cred_free(&c);
		return;
	}
	if (pid == 0)
		switch_child(&c);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	T_TRUE(WIFEXITED(status));
	T_EQ_INT(WEXITSTATUS(status), SW_OK);
	priv_cred_free(&c);
}

/*
 * priv_is_self: the daemon's own ids and groups (in any order, each way
 * a set, the primary group in it or not) need no switch; anything else
 * does.
 */
struct self_case {
	const char	*name;
	int		 uid_delta, gid_delta;	/* added to our ids */
	int		 groups;	/* 0 ours, 1 reversed, 2 one more, */
					/* 3 one fewer, 4 first repeated, */
					/* 5 ours and the primary one */
	int		 self;
};

static const struct self_case self_cases[] = {
	{ "our ids and groups", 0, 0, 0, 1 },
	{ "our groups reversed", 0, 0, 1, 1 },
	{ "another uid", 1, 0, 0, 0 },
	{ "another gid", 0, 1, 0, 0 },
	{ "a group more", 0, 0, 2, 0 },
	{ "a group fewer", 0, 0, 3, 0 },
	{ "a group repeated for the last one", 0, 0, 4, 0 },
	{ "the primary group in the list too", 0, 0, 5, 1 },
};

static void
test_is_self(void)
{
	struct priv_cred	 c;
	gid_t			 own[256], g[258];
	const struct self_case	*t;
	size_t			 i;
	int			 n, j;

	n = getgroups(256, own);
	T_RUN("priv_is_self: getgroups");
	if (!T_TRUE(n >= 0))
		return;
	for (i = 0; i < sizeof self_cases / sizeof self_cases[0]; i++) {
		t = &self_cases[i];
		T_RUN(t->name);
		memset(&c, 0, sizeof c);
		c.uid = getuid() + (uid_t)t->uid_delta;
		c.gid = getgid() + (gid_t)t->gid_delta;
		c.groups = g;
		c.ngroups = n;
		for (j = 0; j < n; j++)
			g[j] = t->groups == 1 ? own[n - 1 - j] : own[j];
		if (t->groups == 2)
			g[c.ngroups++] = 12345;
		if (t->groups == 5)
			g[c.ngroups++] = getgid();
		if (t->groups == 3) {	/* leave out one not primary */
			for (j = 0; j < n && g[j] == getgid(); j++)
				;
			if (j == n)
				continue;
			g[j] = g[--c.ngroups];
		}
		if (t->groups == 4 && (n < 2 || own[n - 1] == getgid() ||
		    own[0] == own[n - 1]))
			continue;	/* needs two groups, the last not primary */
		if (t->groups == 4)
			g[n - 1] = g[0];
		T_EQ_INT(priv_is_self(&c), t->self);
	}
}

/* Not root: priv_switch to one's own ids succeeds, to others fails. */
static void
test_switch_self(void)
{
	struct priv_cred	 c;
	char			*cause = NULL;
	pid_t			 pid;
	int			 status = 0;

	T_RUN("switch to own user");
	if (priv_lookup(NULL, NULL, &c, &cause) == -1) {
		T_TRUE(0);
		free(cause);
		return;
	}
	(void)fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(priv_switch(&c) == 0 && getuid() == c.uid ? 0 : 1);
	T_TRUE(pid > 0);
	while (pid > 0 && waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	T_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	priv_cred_free(&c);
}

/* Lookups made by an unprivileged daemon (a child that became nobody). */
struct unpriv_case {
	const char	*user;
	const char	*group;
	const char	*cause;		/* NULL: the lookup succeeds */
};

static const struct unpriv_case unpriv_cases[] = {
	{ NULL, NULL, NULL },
	{ "nobody", NULL, NULL },
	{ "nobody", "nogroup", NULL },
	{ "root", NULL, "user \"root\": tickd runs as uid 65534, not root, "
	    "and cannot switch users" },
	{ NULL, "root", "group \"root\": tickd is not root and cannot "
	    "switch groups" },
	{ "nobody", "root", "group \"root\": tickd is not root and cannot "
	    "switch groups" },
	{ UNKNOWN_USER, NULL, "unknown user \"" UNKNOWN_USER "\"" },
};

/*
 * As root, fork a child that drops to nobody and makes each lookup of
 * unpriv_cases, writing "0" or the cause, one per line, to a pipe.
 */
static void
test_unprivileged(void)
{
	struct priv_cred	 c;
	const size_t		 n = sizeof unpriv_cases / sizeof unpriv_cases[0];
	char			 buf[4096], *line, *save = NULL, *cause;
	size_t			 i, got = 0;
	ssize_t			 r;
	pid_t			 pid;
	int			 fds[2], status = 0;
	FILE			*f;

	T_RUN("unprivileged lookups");
	if (geteuid() != 0) {
		(void)printf("  [unprivileged lookups] skipped: not root\n");
		return;
	}
	if (pipe(fds) == -1) {
		T_TRUE(0);
		return;
	}
	(void)fflush(stdout);
	if ((pid = fork()) == 0) {
		(void)close(fds[0]);
		if (setgroups(0, NULL) == -1 || setgid(65534) == -1 ||
		    setuid(65534) == -1)
			_exit(2);
		if ((f = fdopen(fds[1], "w")) == NULL)
			_exit(3);
		for (i = 0; i < n; i++) {
			cause = NULL;
			if (priv_lookup(unpriv_cases[i].user,
			    unpriv_cases[i].group, &c, &cause) == 0) {
				(void)fprintf(f, "0 %ld %ld\n", (long)c.uid,
				    (long)c.gid);
				priv_cred_free(&c);
			} else
				(void)fprintf(f, "%s\n", cause);
			free(cause);
		}
		(void)fclose(f);
		_exit(0);
	}
	(void)close(fds[1]);
	while ((r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
		got += (size_t)r;
	buf[got] = '\0';
	(void)close(fds[0]);
	while (pid > 0 && waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	T_TRUE(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	line = strtok_r(buf, "\n", &save);
	for (i = 0; i < n; i++, line = strtok_r(NULL, "\n", &save)) {
		T_TRUE(line != NULL);
		if (line == NULL)
			break;
		T_EQ_STR(line, unpriv_cases[i].cause != NULL ?
		    unpriv_cases[i].cause : "0 65534 65534");
	}

	/* priv_lookup_as for uid 65534, from root: the same answers. */
	T_RUN("lookups as uid 65534, from root");
	for (i = 0; i < n; i++) {
		char got_as[256];

		cause = NULL;
		if (priv_lookup_as(65534, 65534, unpriv_cases[i].user,
		    unpriv_cases[i].group, &c, &cause) == 0) {
			(void)snprintf(got_as, sizeof got_as, "0 %ld %ld",
			    (long)c.uid, (long)c.gid);
			priv_cred_free(&c);
		} else
			(void)snprintf(got_as, sizeof got_as, "%s", cause);
		free(cause);
		T_EQ_STR(got_as, unpriv_cases[i].cause != NULL ?
		    unpriv_cases[i].cause : "0 65534 65534");
	}
}

int
main(void)
{
	size_t i;

	test_self();
	for (i = 0; i < sizeof lookup_cases / sizeof lookup_cases[0]; i++)
		lookup_run(&lookup_cases[i]);
	test_copy();
	test_switch_self();
	test_is_self();
	test_unprivileged();
	for (i = 0; i < sizeof switch_cases / sizeof switch_cases[0]; i++)
		switch_run(&switch_cases[i]);
	return t_done();
}

/*
 * mounts.c -- which file systems are local, from /proc/self/mountinfo.
 *
 * The runner starts a job with clone(CLONE_VM | CLONE_VFORK), which
 * suspends the daemon until the child has exec'd; the only step of the
 * child that can block on a file system is entering the job's working
 * directory.  On a hung network mount (NFS home directories) that would
 * hang the whole daemon, so the runner uses this table to take the fast
 * path only for directories on file systems known to be local, and fork
 * otherwise (runner.c).
 *
 * mounts_parse reads the text of a mountinfo file (proc(5): field 5 is
 * the mount point, octal-escaped; the file system type follows the "-"
 * separator); mounts_local answers for a path by the longest mount point
 * that is a prefix of it, whole components only; of equal ones the later
 * (it hides the earlier).  Unknown types are not local: a wrong "not
 * local" costs a fork, a wrong "local" can hang the daemon.
 * mounts_cgroup2 finds the cgroup v2 hierarchy in the same text (a host
 * may mount it beside the v1 controllers, at /sys/fs/cgroup/unified).
 *
 * Pure: no I/O.  DIAGNOSTICS: none; lines it cannot read are skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "mounts.h"
#include "xmalloc.h"

/* File systems that live on this machine's own devices or memory. */
static const char *const mounts_local_types[] = {
	"bcachefs", "btrfs", "devtmpfs", "erofs", "exfat", "ext2", "ext3",
	"ext4", "f2fs", "hugetlbfs", "jfs", "overlay", "ramfs", "reiserfs",
	"squashfs", "tmpfs", "vfat", "xfs", "zfs", NULL
};

static int
mounts_type_local(const char *type, size_t len)
{
	size_t i;

	for (i = 0; mounts_local_types[i] != NULL; i++) {
		if (strlen(mounts_local_types[i]) == len &&
		    memcmp(mounts_local_types[i], type, len) == 0)
			return 1;
	}
	return 0;
}

/* A copy of the field [s, e) with \ooo escapes (space, tab, ...) undone. */
static char *
mounts_unescape(const char *s, const char *e)
{
	char	*out = xmalloc((size_t)(e - s) + 1), *o = out;

	while (s < e) {
		if (*s == '\\' && e - s >= 4 && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 4;
		} else
			*o++ = *s++;
	}
	*o = '\0';
	return out;
}

/* The next space-separated field of [*p, end): its bounds, or 0. */
static int
mounts_field(const char **p, const char *end, const char **s, const char **e)
{
	while (*p < end && **p == ' ')
		(*p)++;
	if (*p == end)
		return 0;
	*s = *p;
	while (*p < end && **p != ' ')
		(*p)++;
	*e = *p;
	return 1;
}

/*
 * The fields of one line [p, end) that matter: root (4), mount point (5)
 * and the type after the "-" separator, each as bounds; 0 if malformed.
 */
static int
mounts_fields(const char *p, const char *end, const char *f[6])
{
	const char	*s, *e;
	int		 i;

	f[0] = f[2] = NULL;
	for (i = 1; mounts_field(&p, end, &s, &e); i++) {
		if (i == 4) {
			f[0] = s;
			f[1] = e;
		} else if (i == 5) {
			f[2] = s;
			f[3] = e;
		}
		if (i > 6 && e - s == 1 && *s == '-')
			break;
	}
	if (f[2] == NULL || !mounts_field(&p, end, &f[4], &f[5]) ||
	    *f[2] != '/')
		return 0;
	return 1;
}

/* Parse one line [p, end) into the table; malformed lines are skipped. */
static void
mounts_line(struct mounts *m, const char *p, const char *end)
{
	const char *f[6];

	if (!mounts_fields(p, end, f))
		return;
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 32;
		m->point = xreallocarray(m->point, m->cap, sizeof *m->point);
		m->local = xreallocarray(m->local, m->cap, sizeof *m->local);
	}
	m->point[m->n] = mounts_unescape(f[2], f[3]);
	m->local[m->n] = (unsigned char)mounts_type_local(f[4],
	    (size_t)(f[5] - f[4]));
	m->n++;
}

/* Replace the table with the one in text (a mountinfo file's contents). */
void
mounts_parse(struct mounts *m, const char *text)
{
	const char *nl;

	mounts_free(m);
	while (*text != '\0') {
		if ((nl = strchr(text, '\n')) == NULL)
			nl = text + strlen(text);
		mounts_line(m, text, nl);
		text = *nl == '\n' ? nl + 1 : nl;
	}
}

/*
 * Whether the file system that holds the absolute path is local: 1 or 0
 * (0 also when no mount point covers it).  Lexical: symbolic links in the
 * path are the caller's business.
 */
int
mounts_local(const struct mounts *m, const char *path)
{
	size_t	i, len, best_len = 0;
	int	best = 0, found = 0;

	for (i = 0; i < m->n; i++) {
		len = strlen(m->point[i]);
		while (len > 1 && m->point[i][len - 1] == '/')
			len--;		/* "/a/" covers what "/a" does */
		if (strncmp(path, m->point[i], len) != 0)
			continue;
		if (len > 1 && path[len] != '\0' && path[len] != '/')
			continue;	/* "/home" does not cover "/homer" */
		if (!found || len >= best_len) {
			found = 1;
			best_len = len;
			best = m->local[i];
		}
	}
	return best;
}

/*
 * The first cgroup v2 mount in text (a mountinfo file's contents): its
 * mount point and its root (the cgroup it shows, "/" unless the mount is
 * of a subtree), both allocated for the caller to free.  0, or -1 if
 * there is none.
 */
int
mounts_cgroup2(const char *text, char **point, char **root)
{
	const char	*nl, *f[6];

	while (*text != '\0') {
		if ((nl = strchr(text, '\n')) == NULL)
			nl = text + strlen(text);
		if (mounts_fields(text, nl, f) && f[5] - f[4] == 7 &&
		    memcmp(f[4], "cgroup2", 7) == 0 && f[0] != NULL) {
			*root = mounts_unescape(f[0], f[1]);
			*point = mounts_unescape(f[2], f[3]);
			return 0;
		}
		text = *nl == '\n' ? nl + 1 : nl;
	}
	return -1;
}

/* Free a table's contents (it can be parsed into again). */
void
mounts_free(struct mounts *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->point[i]);
	free(m->point);
	free(m->local);
	memset(m, 0, sizeof *m);
}

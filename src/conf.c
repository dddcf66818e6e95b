/*
 * conf.c -- read and validate tickd.conf and the job files.
 *
 * Files are read whole into memory and fed to inih through a reader
 * function, which is how line numbers reach the errors without inih's
 * INI_HANDLER_LINENO (that changes the handler's signature in Debian's
 * build).  inih is switched to verbatim values: no inline comments (so
 * "command = a ; b" keeps "; b"), heap line buffers that grow up to
 * CONF_LINE_MAX.  The reader also sees every raw line, which gives the
 * line of each [section] header (inih does not report headers), joins
 * continuation lines itself (indented lines after a key, verbatim even
 * when they start with "[", ";" or "#", which inih would take for a
 * header or a comment), and catches NUL bytes and overlong lines that
 * inih would silently cut.
 *
 * Files are hostile input: only regular files are opened (a FIFO would
 * block the loader), a file that changes while it is read is read again,
 * a value grows by doubling (10,000 continuation lines are cheap), and
 * what a file says reaches a message escaped and cut short (conf_vis), at
 * most CONF_FILE_CAUSES_MAX messages per file.
 *
 * Validation collects every problem as "file:line: key: message" and never
 * stops at the first.  Outcomes: a line inih rejects, an unreadable or
 * unsafe file (a symbolic link, not a regular file, owned by another user
 * than root or tickd's, writable by group/other) invalidates every job of
 * that file; a jobs directory that cannot be read, or that others can
 * write in (then tickd does not start), invalidates every job; a bad
 * value invalidates only its job; an invalid tickd.conf makes conf_load return
 * NULL.  An id defined twice keeps its first definition, but a reload
 * keeps a running job's own definition (conf_job_is_bad).  Values come
 * from the table in conf_table.c, defaults included.
 *
 * When tickd runs as root, the program of a root job (the first word of
 * command or on_failure, when it is an absolute path) that someone else
 * could change is a warning in conf->warnings, or an error with
 * strict_exec.
 *
 * DIAGNOSTICS: conf_load returns NULL (daemon file invalid) or a conf;
 * either way every problem is in the cause list, and every warning in
 * the conf's.  Nothing is logged here.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <ini.h>

#include "conf.h"
#include "cronexpr.h"
#include "db_pg.h"
#include "duration.h"
#include "envp.h"
#include "listenaddr.h"
#include "log.h"
#include "policy.h"
#include "rfc3339.h"
#include "schedule.h"
#include "shwords.h"
#include "store.h"
#include "tz.h"
#include "xmalloc.h"

#define CONF_ID_MAX	48	/* inih keeps 50 bytes of a section name */
#define CONF_ARG_MAX	131071	/* MAX_ARG_STRLEN (32 pages) less the NUL */
#define CONF_ARG_RESERVE 65536	/* of ARG_MAX, for what tickd adds */
#define CONF_RACY_SECS	2	/* a file changed this recently is read */

/* One "key = value" line (with its continuation lines joined). */
struct conf_kv {
	char	*key;
	char	*value;
	size_t	 len;		/* of value, which ... */
	size_t	 cap;		/* ... has room for cap bytes */
	int	 line;
};

/* One [section] of a file with its keys, in file order. */
struct conf_sec {
	char		*name;
	int		 line;
	struct conf_kv	*kv;
	size_t		 nkv;
};

/* Parser state shared by the inih reader and handler. */
struct conf_parse {
	const char		*file;
	const char		*buf;
	size_t			 len;
	size_t			 pos;
	int			 lineno;	/* line being read */
	int			 mid_line;	/* reader stopped inside it */
	int			 bad;		/* file-level error seen */
	struct conf_sec		*secs;
	size_t			 nsecs;
	struct conf_causes	*causes;
};

/*
 * What one load remembers so that it costs the same per job however many
 * jobs there are: the ids seen (the jobs array is sorted once, at the
 * end), and the answers of the name service and of the program checks,
 * which many jobs share.  A string-keyed hash, open addressing.
 */
struct conf_memo_slot {
	char		*key;
	void		*value;
};

struct conf_memo {
	struct conf_memo_slot	*slot;
	size_t			 cap, n;	/* cap: 0 or a power of 2 */
	void			(*free_value)(void *);
};

/* A job file loader's context (conf_load_jobs_dir). */
struct conf_loading {
	struct conf_memo	 ids;		/* id -> struct job_def */
	struct conf_memo	 creds;		/* user NL group -> conf_cred */
	struct conf_memo	 execs;		/* program -> why unsafe */
	struct conf_memo	 zones;		/* zone name -> its xstrshare */
	char			*file;		/* the file's path, xstrshare */
	size_t			 jobs_cap;	/* of c->jobs */
	long			 arg_max;	/* sysconf: a getrlimit each */
	struct conf		*prev;		/* conf_reload's, or NULL */
	struct job_def		***taken;	/* slots of prev->jobs taken */
	size_t			 ntaken, taken_cap;
	struct timespec		 start;		/* of the load, real time */
	uid_t			 uid;		/* the daemon's, for creds */
	gid_t			 gid;
	size_t			 files_cap;	/* of c->files */
	struct job_policy	**pols;		/* interned, a holder each */
	size_t			 npols, pols_cap; /* cap: 0 or a power of 2 */
};

/* A remembered priv_lookup. */
struct conf_cred {
	int			 rc;
	struct priv_cred	 cred;
	char			*cause;
	int			 home_told;	/* its missing home warned of */
};

/*
 * The length of the well-formed UTF-8 sequence of a non-ASCII character at
 * s (n bytes left), or 0.  C1 controls (U+0080-U+009F) count as not
 * well-formed: they are escaped like C0 controls.
 */
static size_t
conf_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char	lo = 0x80, hi = 0xbf;
	size_t		need, i;

	if (s[0] == 0xc2 && n > 1 && s[1] < 0xa0)
		return 0;			/* a C1 control */
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;		/* no overlong forms */
		else if (s[0] == 0xed)
			hi = 0x9f;		/* no surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		if (s[0] == 0xf0)
			lo = 0x90;		/* no overlong forms */
		else if (s[0] == 0xf4)
			hi = 0x8f;		/* nothing above U+10FFFF */
	} else
		return 0;
	for (i = 1; i < need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
	}
	return need;
}

/*
 * A copy of s fit for a log line and a terminal (caller frees): text from
 * a hostile file may hold escape sequences, carriage returns and bytes
 * that are not UTF-8.  Printable ASCII and well-formed UTF-8 are kept, a
 * newline becomes "\n", a tab "\t" (a line's fields stay where they
 * are), anything else "\xHH"; the result is cut
 * after CONF_CAUSE_MAX bytes, marked with "...".
 */
static char *
conf_vis(const char *s)
{
	static const char	 hex[] = "0123456789abcdef";
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 n = strlen(s), i = 0, o = 0, k;
	char			*out = xmalloc(CONF_CAUSE_MAX + 8);

	while (i < n) {
		if (p[i] >= 0x80 && (k = conf_utf8_len(p + i, n - i)) > 0)
			;
		else
			k = 1;
		if (o + 4 > CONF_CAUSE_MAX) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (k > 1 || (p[i] >= 0x20 && p[i] < 0x7f)) {
			memcpy(out + o, p + i, k);
			o += k;
		} else if (p[i] == '\n' || p[i] == '\t') {
			out[o++] = '\\';
			out[o++] = p[i] == '\n' ? 'n' : 't';
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[p[i] >> 4];
			out[o++] = hex[p[i] & 15];
		}
		i += k;
	}
	out[o] = '\0';
	return out;
}

/* Append a formatted message to a cause list, escaped (conf_vis). */
void
conf_causes_add(struct conf_causes *c, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	c->v = xreallocarray(c->v, c->n + 1, sizeof *c->v);
	c->v[c->n++] = conf_vis(msg);
	free(msg);
}

/*
 * Keep at most CONF_FILE_CAUSES_MAX of the causes a file added since
 * index from, and say how many more there were: a file of binary garbage
 * must not flood the log with one message per line at every reload.
 */
/* A cause's place in its file: its line, then its order of finding. */
struct conf_cause_at {
	long	 line;
	size_t	 i;
	char	*msg;
};

static int
conf_cause_cmp(const void *a, const void *b)
{
	const struct conf_cause_at *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The causes a file added since index from, in the order of its lines
 * ("PATH:LINE: ..."; a cause about the whole file first), as found
 * within a line: a key's problem comes after the section's above it, not
 * after the whole section's keys.
 */
static void
conf_causes_sort(struct conf_causes *c, size_t from, const char *path)
{
	struct conf_cause_at	*v;
	size_t			 i, n = c->n - from, plen = strlen(path);
	const char		*m;

	if (n < 2)
		return;
	v = xreallocarray(NULL, n, sizeof *v);
	for (i = 0; i < n; i++) {
		m = c->v[from + i];
		v[i].i = i;
		v[i].msg = c->v[from + i];
		v[i].line = strncmp(m, path, plen) == 0 && m[plen] == ':' ?
		    strtol(m + plen + 1, NULL, 10) : 0;
	}
	qsort(v, n, sizeof *v, conf_cause_cmp);
	for (i = 0; i < n; i++)
		c->v[from + i] = v[i].msg;
	free(v);
}

static void
conf_causes_cap(struct conf_causes *c, size_t from, const char *path)
{
	size_t i, more;

	conf_causes_sort(c, from, path);
	if (c->n - from <= CONF_FILE_CAUSES_MAX)
		return;
	more = c->n - from - CONF_FILE_CAUSES_MAX;
	for (i = from + CONF_FILE_CAUSES_MAX; i < c->n; i++)
		free(c->v[i]);
	c->n = from + CONF_FILE_CAUSES_MAX;
	conf_causes_add(c, "%s: %zu more problems not listed", path, more);
}

/* Free the messages of a cause list and empty it. */
void
conf_causes_free(struct conf_causes *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

/* Append a copy of s to a string list. */
static void
conf_list_add(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

/* The index of s in a string list, or -1. */
static ssize_t
conf_list_find(char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(v[i], s) == 0)
			return (ssize_t)i;
	}
	return -1;
}

/* Whether s is in a string list. */
static int
conf_list_has(char *const *v, size_t n, const char *s)
{
	return conf_list_find(v, n, s) != -1;
}

/* Free a string list. */
static void
conf_list_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Whether two stats of an open file say it has not changed in between. */
static int
conf_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

#define CONF_SETTLE_MS	100	/* a file written since is still written */

/*
 * Whether the file was written less than CONF_SETTLE_MS ago: a writer that
 * truncated it and paused between two writes leaves half a file that
 * holds still while it is read.  The modification time only: a file
 * written aside and renamed into place keeps the time of its last write,
 * and is whole.  A time in the future (a clock stepped back, a copied
 * time) is not recent: such a file would never load.
 */
static int
conf_recent(const struct stat *st)
{
	struct timespec	now;
	int64_t		ms;

	if (clock_gettime(CLOCK_REALTIME, &now) == -1)
		return 0;
	ms = ((int64_t)now.tv_sec - st->st_mtim.tv_sec) * 1000 +
	    (now.tv_nsec - st->st_mtim.tv_nsec) / 1000000;
	return ms >= 0 && ms < CONF_SETTLE_MS;
}

/*
 * Whoever can change a job file runs commands as tickd's user, and
 * whoever can write in the jobs directory can remove, rename or replace
 * its files: root or that user only.  Root itself may always, so its
 * files are fine for an unprivileged daemon too.  NULL when st (what: the
 * "file" or the "directory") passes, else why not, to follow "refused: "
 * (caller frees).
 */
static char *
conf_owner_refused(const struct stat *st, uid_t uid, const char *what)
{
	if ((st->st_uid == 0 || st->st_uid == uid) &&
	    !(st->st_mode & (S_IWGRP | S_IWOTH)))
		return NULL;
	if (uid == 0)
		return xasprintf("tickd runs as root and the %s must be owned "
		    "by root and not writable by group or others (owner uid "
		    "%ld, mode %04o)", what, (long)st->st_uid,
		    (unsigned)(st->st_mode & 07777));
	return xasprintf("tickd runs as uid %ld and the %s must be owned by "
	    "uid %ld or root and not writable by group or others (owner uid "
	    "%ld, mode %04o)", (long)uid, what, (long)uid, (long)st->st_uid,
	    (unsigned)(st->st_mode & 07777));
}

/*
 * One attempt of conf_read_file.  Returns the buffer, or NULL with a cause
 * added, or NULL with *changed = 1 (and no cause) when the file changed
 * while it was read; *changed = 2 with the buffer when it was read whole
 * but changed less than CONF_SETTLE_MS before.
 */
static char *
conf_read_once(const char *path, int nofollow, uid_t uid, size_t *lenp,
    struct stat *stp, int *changed, struct conf_causes *causes)
{
	struct stat	 st, after;
	char		*buf = NULL, *why, extra;
	size_t		 got = 0;
	ssize_t		 n;
	int		 fd;

	/*
	 * Look before opening: a FIFO would block open(2) and read(2) until
	 * someone writes to it, and opening a device may do something.
	 */
	if ((nofollow ? lstat(path, &st) : stat(path, &st)) == -1) {
		conf_causes_add(causes, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (nofollow && S_ISLNK(st.st_mode)) {
		conf_causes_add(causes, "%s: is a symbolic link, which is not "
		    "followed", path);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		conf_causes_add(causes, "%s: not a regular file", path);
		return NULL;
	}
	/* O_NONBLOCK: the name may have become a FIFO since. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
	    (nofollow ? O_NOFOLLOW : 0));
	if (fd == -1) {
		if (errno == ELOOP && nofollow)
			conf_causes_add(causes, "%s: is a symbolic link, which "
			    "is not followed", path);
		else
			conf_causes_add(causes, "%s: %s", path,
			    strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1) {
		conf_causes_add(causes, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		conf_causes_add(causes, "%s: not a regular file", path);
		goto fail;
	}
	if ((why = conf_owner_refused(&st, uid, "file")) != NULL) {
		conf_causes_add(causes, "%s: refused: %s", path, why);
		free(why);
		goto fail;
	}
	if (st.st_size > CONF_FILE_MAX) {
		conf_causes_add(causes, "%s: larger than %d bytes", path,
		    CONF_FILE_MAX);
		goto fail;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			conf_causes_add(causes, "%s: %s", path,
			    strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	/*
	 * Someone writing the file in place while it is read would hand
	 * over half a definition: a value cut short is still a valid value.
	 * Shorter or longer than its size, or another size, time or inode
	 * afterwards: it changed.
	 */
	while ((n = read(fd, &extra, 1)) == -1 && errno == EINTR)
		;
	if (got != (size_t)st.st_size || n != 0 || fstat(fd, &after) == -1 ||
	    !conf_same_file(&st, &after)) {
		*changed = 1;
		goto fail;
	}
	*changed = conf_recent(&after) ? 2 : 0;	/* read whole, but young */
	buf[got] = '\0';
	(void)close(fd);
	*lenp = got;
	if (stp != NULL)
		*stp = st;
	return buf;

fail:
	free(buf);
	(void)close(fd);
	return NULL;
}

#define CONF_READ_TRIES	5	/* reads of a file that keeps changing */

/*
 * Read a whole file.  With nofollow, a symbolic link is refused; so is a
 * file owned by another user than root or uid (the daemon's), or writable
 * by group or others.  Only a regular file is opened.  A file that changes
 * while it is read, or changed less than CONF_SETTLE_MS before, is read
 * again after CONF_SETTLE_MS / 2, CONF_READ_TRIES times at most.  Returns
 * a NUL-terminated buffer (caller frees) and its length, or NULL with a
 * cause added.
 */
static char *
conf_read_file(const char *path, int nofollow, uid_t uid, size_t *lenp,
    struct stat *stp, struct conf_causes *causes)
{
	char	*buf;
	int	 i, changed;

	for (i = 0; i < CONF_READ_TRIES; i++) {
		changed = 0;
		buf = conf_read_once(path, nofollow, uid, lenp, stp,
		    &changed, causes);
		/*
		 * A file read whole but changed a moment ago may be half of
		 * one whose writer paused: read again, and refused if it
		 * never holds still for CONF_SETTLE_MS.
		 */
		if (changed == 2) {
			free(buf);
			buf = NULL;
		} else if (buf != NULL || !changed)
			return buf;
		if (i + 1 < CONF_READ_TRIES) {
			/* Half the settling time: the next read finds it
			 * settled, or still being written. */
			struct timespec ts = { 0, CONF_SETTLE_MS / 2 *
			    1000000L };

			/* The rest of it after a signal (a SIGHUP storm). */
			while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
				;
		}
	}
	conf_causes_add(causes, "%s: changed while being read, %d times; "
	    "write the new file aside and rename it into place", path,
	    CONF_READ_TRIES);
	return NULL;
}

/*
 * Append an indented continuation line to the last key of the section.
 * The value grows geometrically: 10,000 continuation lines must not cost
 * 10,000 copies of an ever longer value.
 */
static void
conf_continue(struct conf_parse *p, const char *text, size_t len)
{
	struct conf_kv	*kv;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
	    text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	while (len > 0 && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	kv = &p->secs[p->nsecs - 1].kv[p->secs[p->nsecs - 1].nkv - 1];
	if (kv->len + 1 + len + 1 > kv->cap) {
		kv->cap = (kv->len + 1 + len + 1) * 2;
		kv->value = xreallocarray(kv->value, 1, kv->cap);
	}
	kv->value[kv->len++] = '\n';
	memcpy(kv->value + kv->len, text, len);
	kv->len += len;
	kv->value[kv->len] = '\0';
}

/*
 * inih reader: hand out the buffer fgets-style.  At the start of each
 * line, look at the whole raw line first: count it, refuse NUL bytes and
 * lines longer than CONF_LINE_MAX, drop a UTF-8 BOM, and record [section]
 * headers.  An indented line after a key continues that key's value: it
 * is appended here, verbatim whatever it starts with ("[", ";", "#"), and
 * inih is handed an empty line, so inih's own multi-line rules (which
 * treat such lines as headers or comments) never apply.
 */
static char *
conf_reader(char *str, int num, void *arg)
{
	struct conf_parse	*p = arg;
	const char		*line, *nl, *s, *end;
	size_t			 linelen, n, i;

	if (p->pos >= p->len || num <= 2)
		return NULL;
	if (p->pos == 0 && p->len >= 3 && memcmp(p->buf, "\xef\xbb\xbf", 3) == 0)
		p->pos = 3;			/* a BOM is not text */
	line = p->buf + p->pos;
	nl = memchr(line, '\n', p->len - p->pos);
	linelen = (nl != NULL ? (size_t)(nl - line) + 1 : p->len - p->pos);

	if (!p->mid_line) {
		p->lineno++;
		if (memchr(line, '\0', linelen) != NULL) {
			conf_causes_add(p->causes, "%s:%d: the line contains "
			    "a NUL byte", p->file, p->lineno);
			p->bad = 1;
		}
		if (linelen > CONF_LINE_MAX) {
			conf_causes_add(p->causes, "%s:%d: the line is longer "
			    "than %d bytes", p->file, p->lineno,
			    CONF_LINE_MAX);
			p->bad = 1;
			p->pos = p->len;	/* stop: nothing after is safe */
			return NULL;
		}
		for (s = line; s < line + linelen && (*s == ' ' ||
		    *s == '\t'); s++)
			;
		/* A continuation: indented, not blank, after a key. */
		if (s > line && s < line + linelen && *s != '\n' &&
		    *s != '\r' && p->nsecs > 0 &&
		    p->secs[p->nsecs - 1].nkv > 0) {
			conf_continue(p, line, linelen);
			p->pos += linelen;
			str[0] = '\n';
			str[1] = '\0';
			return str;
		}
		/* A section header: "[name]" after optional blanks. */
		if (s < line + linelen && *s == '[' &&
		    (end = memchr(s, ']', linelen - (size_t)(s - line))) !=
		    NULL) {
			p->secs = xreallocarray(p->secs, p->nsecs + 1,
			    sizeof *p->secs);
			memset(&p->secs[p->nsecs], 0, sizeof *p->secs);
			p->secs[p->nsecs].name = xstrndup(s + 1,
			    (size_t)(end - s - 1));
			p->secs[p->nsecs].line = p->lineno;
			p->nsecs++;
		}
	}

	n = linelen < (size_t)num - 1 ? linelen : (size_t)num - 1;
	memcpy(str, line, n);
	str[n] = '\0';
	/*
	 * inih measures what it is handed with strlen: a NUL (refused above)
	 * would end the line early, and inih would take the rest for lines
	 * of their own, with wrong numbers.
	 */
	for (i = 0; i < n; i++) {
		if (str[i] == '\0')
			str[i] = ' ';
	}
	p->pos += n;
	p->mid_line = n < linelen;
	return str;
}

/* inih handler: record "key = value" in the current section. */
static int
conf_handler(void *arg, const char *section, const char *name,
    const char *value)
{
	struct conf_parse	*p = arg;
	struct conf_sec		*sec;
	struct conf_kv		*kv;

	(void)section;		/* the reader's record is exact */
	if (p->nsecs == 0) {
		conf_causes_add(p->causes, "%s:%d: %.64s: the key is outside "
		    "any [section]", p->file, p->lineno, name);
		return 1;
	}
	sec = &p->secs[p->nsecs - 1];
	sec->kv = xreallocarray(sec->kv, sec->nkv + 1, sizeof *sec->kv);
	kv = &sec->kv[sec->nkv++];
	kv->key = xstrdup(name);
	kv->value = xstrdup(value);
	kv->len = strlen(value);
	kv->cap = kv->len + 1;
	kv->line = p->lineno;
	return 1;
}

/* Free the sections of a parse. */
static void
conf_parse_free(struct conf_parse *p)
{
	size_t i, j;

	for (i = 0; i < p->nsecs; i++) {
		for (j = 0; j < p->secs[i].nkv; j++) {
			free(p->secs[i].kv[j].key);
			free(p->secs[i].kv[j].value);
		}
		free(p->secs[i].kv);
		free(p->secs[i].name);
	}
	free(p->secs);
	p->secs = NULL;
	p->nsecs = 0;
}

/*
 * Parse an INI buffer into p's sections.  Returns 0, or -1 when the file
 * as a whole is invalid (a line inih rejects, a NUL byte, an overlong
 * line); the causes say which line.
 */
static int
conf_parse_ini(struct conf_parse *p)
{
	int rc;

	/* Debian's inih defaults: 200-byte lines, " ;" comments. */
	ini_allow_inline_comments = false;
	ini_allow_multiline = true;
	ini_use_stack = false;
	ini_allow_realloc = true;
	ini_max_line = CONF_LINE_MAX + 3;
	ini_stop_on_first_error = false;

	rc = ini_parse_stream(conf_reader, p, conf_handler, p);
	if (rc > 0) {
		conf_causes_add(p->causes, "%s:%d: syntax error: expected "
		    "[section], key = value, or a comment", p->file, rc);
		p->bad = 1;
	} else if (rc < 0) {
		conf_causes_add(p->causes, "%s: out of memory while parsing",
		    p->file);
		p->bad = 1;
	}
	return p->bad ? -1 : 0;
}

/* 64-bit FNV-1a over a string and its NUL, continuing from h. */
static uint64_t
conf_hash(uint64_t h, const char *s)
{
	if (s == NULL)
		s = "";
	do {
		h ^= (unsigned char)*s;
		h *= UINT64_C(0x100000001b3);
	} while (*s++ != '\0');
	return h;
}

#define CONF_HASH_INIT	UINT64_C(0xcbf29ce484222325)

/* The slot of key in m: where it is, or the empty one it would take. */
static struct conf_memo_slot *
conf_memo_slot(const struct conf_memo *m, const char *key)
{
	size_t i = (size_t)conf_hash(CONF_HASH_INIT, key) & (m->cap - 1);

	while (m->slot[i].key != NULL && strcmp(m->slot[i].key, key) != 0)
		i = (i + 1) & (m->cap - 1);
	return &m->slot[i];
}

/* The value remembered for key; *found says whether there was one. */
static void *
conf_memo_get(const struct conf_memo *m, const char *key, int *found)
{
	struct conf_memo_slot *sl;

	*found = 0;
	if (m->cap == 0 || (sl = conf_memo_slot(m, key))->key == NULL)
		return NULL;
	*found = 1;
	return sl->value;
}

/* Remember value for key (not there yet; key is copied). */
static void
conf_memo_put(struct conf_memo *m, const char *key, void *value)
{
	struct conf_memo_slot	*old = m->slot, *sl;
	size_t			 i, cap = m->cap;

	if (2 * (m->n + 1) > m->cap) {
		m->cap = cap ? cap * 2 : 64;
		m->slot = xcalloc(m->cap, sizeof *m->slot);
		for (i = 0; i < cap; i++) {
			if (old[i].key != NULL)
				*conf_memo_slot(m, old[i].key) = old[i];
		}
		free(old);
	}
	sl = conf_memo_slot(m, key);
	sl->key = xstrdup(key);
	sl->value = value;
	m->n++;
}

static void
conf_memo_free(struct conf_memo *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		free(m->slot[i].key);
		if (m->slot[i].key != NULL && m->free_value != NULL)
			m->free_value(m->slot[i].value);
	}
	free(m->slot);
	memset(m, 0, sizeof *m);
}

static void
conf_unref(void *v)
{
	xstrunref(v);
}

static void
conf_cred_free(void *v)
{
	struct conf_cred *cc = v;

	priv_cred_free(&cc->cred);
	free(cc->cause);
	free(cc);
}

/* Parse a boolean; 0/1, or -1. */
static int
conf_bool(const char *v)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	}
	return -1;
}

/* Make a PATH value absolute against the directory of tickd.conf. */
static char *
conf_path(const char *dir, const char *v)
{
	if (v[0] == '/' || dir == NULL)
		return xstrdup(v);
	return xasprintf("%s/%s", dir, v);
}

/* Parse a cron_dialect: cron or quartz.  Returns 0, or -1. */
static int
conf_dialect(const char *v, int *out)
{
	if (strcmp(v, "cron") == 0)
		*out = CRONEXPR_CRON;
	else if (strcmp(v, "quartz") == 0)
		*out = CRONEXPR_QUARTZ;
	else
		return -1;
	return 0;
}

/*
 * A size with an optional binary unit: k or K, M, G, T, optionally
 * followed by B or iB ("64k", "1GiB", "512").  0, or -1 if it is not one;
 * too large saturates at INT64_MAX (the caller's bounds say so).
 */
static int
conf_size(const char *v, int64_t *n)
{
	long long	 ll, mult = 1;
	char		*end;

	errno = 0;
	ll = strtoll(v, &end, 10);
	if (end == v || errno != 0 || ll < 0 || !isdigit((unsigned char)*v))
		return -1;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mult = 1024;
		break;
	case 'M':
		mult = 1024 * 1024;
		break;
	case 'G':
		mult = 1024 * 1024 * 1024;
		break;
	case 'T':
		mult = 1024LL * 1024 * 1024 * 1024;
		break;
	default:
		return -1;
	}
	if (*end != '\0') {
		end++;
		if (strcmp(end, "B") == 0 || strcmp(end, "iB") == 0)
			end += strlen(end);
	}
	if (*end != '\0')
		return -1;
	*n = ll > LLONG_MAX / mult ? INT64_MAX : ll * mult;
	return 0;
}

/*
 * A percentage "N%", "N.N%" or "N.NN%" as per myriad (50% is 5000); 0,
 * or -1 if v is not one.
 */
static int
conf_permyriad(const char *v, int64_t *pm)
{
	const char	*p = v;
	int64_t		 n = 0;
	int		 dec = -1;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; *p != '%'; p++) {
		if (*p == '.' && dec == -1) {
			dec = 0;
			continue;
		}
		if (!isdigit((unsigned char)*p) || dec == 2 ||
		    n > INT64_MAX / 100)
			return -1;
		n = n * 10 + (*p - '0');
		if (dec != -1)
			dec++;
	}
	if (p[1] != '\0' || dec == 0)
		return -1;
	for (dec = dec == -1 ? 0 : dec; dec < 2; dec++)
		n *= 10;
	*pm = n;
	return 0;
}

/* The system's physical memory in bytes, or -1. */
static int64_t
conf_phys_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0)
		return -1;
	return (int64_t)pages * size;
}

/* The most tasks the system allows (pid_max, threads-max), or -1. */
static int64_t
conf_sys_tasks(void)
{
	static const char *const files[] = { "/proc/sys/kernel/pid_max",
	    "/proc/sys/kernel/threads-max" };
	char		 buf[32];
	int64_t		 best = -1, v;
	ssize_t		 n;
	size_t		 i;
	int		 fd;

	for (i = 0; i < 2; i++) {
		if ((fd = open(files[i], O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		(void)close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		v = strtoll(buf, NULL, 10);
		if (v > 0 && (best == -1 || v < best))
			best = v;
	}
	return best;
}

/*
 * A resource limit of type CONF_T_MEMORY or CONF_T_TASKS: "infinity", a
 * percentage of the system's memory or task limit (as systemd computes
 * them), or a size or count.  0, or -1 with *cause.
 */
static int
conf_limit(const struct conf_key *k, const char *v, int64_t *out,
    char **cause)
{
	int64_t	pm, sys, n;

	if (strcmp(v, "infinity") == 0) {
		*out = CGROUP_INFINITY;
		return 0;
	}
	if (conf_permyriad(v, &pm) == 0) {
		sys = k->type == CONF_T_MEMORY ? conf_phys_memory() :
		    conf_sys_tasks();
		if (pm == 0 || pm > 10000 || sys <= 0) {
			*cause = xasprintf(pm == 0 || pm > 10000 ? "\"%s\": a "
			    "percentage must be above 0%% and at most 100%%" :
			    "\"%s\": the system's total is unknown", v);
			return -1;
		}
		n = sys / 10000 * pm + sys % 10000 * pm / 10000;
		*out = n > 0 ? n : 1;
		return 0;
	}
	if (conf_size(v, &n) == -1 || (k->type == CONF_T_TASKS &&
	    strspn(v, "0123456789") != strlen(v))) {
		*cause = xasprintf(k->type == CONF_T_MEMORY ? "\"%s\" is not "
		    "a size (512M, 2G), a percentage of the memory (50%%) or "
		    "infinity" : "\"%s\" is not a number, a percentage of "
		    "the system's limit (10%%) or infinity", v);
		return -1;
	}
	if (n < 1 || (k->type == CONF_T_TASKS && n > k->max)) {
		*cause = xasprintf("\"%s\" is out of range (1 to %s)", v,
		    k->type == CONF_T_TASKS ? "4194304" : "infinity");
		return -1;
	}
	*out = n;
	return 0;
}

/*
 * Where the value of key k is in base, a struct conf or a job_def (its
 * policies in its job_policy, CONF_IN_POLICY).
 */
void *
conf_key_addr(const struct conf_key *k, const void *base)
{
	if (k->offset & CONF_IN_POLICY)
		return (char *)((const struct job_def *)base)->pol +
		    (k->offset & ~CONF_IN_POLICY);
	return (char *)(uintptr_t)base + k->offset;
}

/*
 * Set key k in the object at base from text v.  Returns 0, or -1 with
 * *cause set to a message (without file, line or key).
 */
static int
conf_set(const struct conf_key *k, void *base, const char *dir,
    const char *v, char **cause)
{
	char		*p = (char *)conf_key_addr(k, base);
	char		*why = NULL, *end, **words;
	int64_t		 n;
	long long	 ll;
	int		 b;
	struct schedule	*s;
	struct job_def	*jd;
	struct cronexpr_opts copts;

	switch (k->type) {
	case CONF_T_EXEC:
		if (strlen(v) > CONF_ARG_MAX) {
			*cause = xasprintf("the value is %zu bytes long, and "
			    "the kernel refuses an argument longer than %d "
			    "bytes", strlen(v), CONF_ARG_MAX);
			return -1;
		}
		if ((words = shwords_exec_split(v, 0, cause)) == NULL)
			return -1;
		free(words);
		free(*(char **)p);
		*(char **)p = xstrdup(v);
		return 0;
	case CONF_T_STRING:
	case CONF_T_COMMAND:
	case CONF_T_NAME:
	case CONF_T_ZONE:
		if (k->type != CONF_T_STRING && k->type != CONF_T_COMMAND &&
		    (*v == '\0' || strpbrk(v, " \t\n") != NULL)) {
			*cause = xasprintf("\"%s\" is not a valid name", v);
			return -1;
		}
		if (k->type == CONF_T_COMMAND && *v == '\0') {
			*cause = xstrdup("the command is empty");
			return -1;
		}
		if (k->type == CONF_T_COMMAND && strlen(v) > CONF_ARG_MAX) {
			*cause = xasprintf("the command is %zu bytes long, and "
			    "the kernel refuses an argument longer than %d "
			    "bytes", strlen(v), CONF_ARG_MAX);
			return -1;
		}
		free(*(char **)p);
		*(char **)p = xstrdup(v);
		return 0;
	case CONF_T_STATE:
		if (store_is_server(v)) {
			if (db_pg_conninfo_check(v, cause) == -1)
				return -1;
			free(*(char **)p);
			*(char **)p = xstrdup(v);
			return 0;
		}
		/* FALLTHROUGH */
	case CONF_T_PATH:
	case CONF_T_ABSPATH:
		if (*v == '\0' || strchr(v, '\n') != NULL) {
			*cause = xasprintf("\"%s\" is not a path", v);
			return -1;
		}
		if (k->type == CONF_T_ABSPATH && v[0] != '/') {
			*cause = xasprintf("\"%s\" is not an absolute path", v);
			return -1;
		}
		free(*(char **)p);
		*(char **)p = conf_path(dir, v);
		return 0;
	case CONF_T_DURATION:
		if (duration_parse(v, &n, &why) == -1) {
			*cause = why;
			return -1;
		}
		goto bounds;
	case CONF_T_COUNT:
	case CONF_T_SIZE:
		if (k->type == CONF_T_SIZE) {
			if (conf_size(v, &n) == -1) {
				*cause = xasprintf("\"%s\" is not a size "
				    "(examples: 512, 64k, 1M)", v);
				return -1;
			}
			goto bounds;
		}
		errno = 0;
		ll = strtoll(v, &end, 10);
		if (errno != 0 || end == v || *end != '\0') {
			*cause = xasprintf("\"%s\" is not a whole number", v);
			return -1;
		}
		n = (int64_t)ll;
	bounds:
		if (n < k->min || n > k->max) {
			char lo[DURATION_BUFSZ], hi[DURATION_BUFSZ];

			if (k->type == CONF_T_DURATION) {
				duration_format(k->min, lo, sizeof lo);
				duration_format(k->max, hi, sizeof hi);
			} else {
				(void)snprintf(lo, sizeof lo, "%lld",
				    (long long)k->min);
				(void)snprintf(hi, sizeof hi, "%lld",
				    (long long)k->max);
			}
			*cause = xasprintf("\"%s\" is out of range %s-%s", v,
			    lo, hi);
			return -1;
		}
		*(int64_t *)p = n;
		return 0;
	case CONF_T_BOOL:
		if ((b = conf_bool(v)) == -1) {
			*cause = xasprintf("\"%s\" is not yes or no", v);
			return -1;
		}
		*(int *)p = b;
		return 0;
	case CONF_T_GAP:
		if (tz_gap_parse(v, (enum tz_gap *)p) == -1) {
			*cause = xasprintf("\"%s\" is not shift or skip", v);
			return -1;
		}
		return 0;
	case CONF_T_FOLD:
		if (tz_fold_parse(v, (enum tz_fold *)p) == -1) {
			*cause = xasprintf("\"%s\" is not first, second or "
			    "both", v);
			return -1;
		}
		return 0;
	case CONF_T_SCHEDULE:
		/* Jobs only: the id and the dialect (conf_job_build) read. */
		jd = base;
		copts.dialect = (enum cronexpr_dialect)jd->cron_dialect;
		copts.hash_set = 1;
		copts.hash = policy_id_hash(jd->id);
		if ((s = schedule_parse(v, &copts, cause)) == NULL)
			return -1;
		schedule_free(*(struct schedule **)p);
		*(struct schedule **)p = s;
		return 0;
	case CONF_T_DIALECT:
		if (conf_dialect(v, (int *)p) == -1) {
			*cause = xasprintf("\"%s\" is not cron or quartz", v);
			return -1;
		}
		return 0;
	case CONF_T_LOG_LEVEL:
		if (log_level_parse(v, (int *)p) == -1) {
			*cause = xasprintf("\"%s\" is not error, warning, "
			    "notice, info or debug", v);
			return -1;
		}
		return 0;
	case CONF_T_OVERLAP:
		if (policy_overlap_parse(v, (int *)p) == -1) {
			*cause = xasprintf("\"%s\" is not skip, queue, allow or "
			    "replace", v);
			return -1;
		}
		return 0;
	case CONF_T_MISFIRE:
		if (policy_misfire_parse(v, (int *)p) == -1) {
			*cause = xasprintf("\"%s\" is not run_once, catch_up or "
			    "skip", v);
			return -1;
		}
		return 0;
	case CONF_T_RECOVER:
		if (policy_recover_parse(v, (int *)p) == -1) {
			*cause = xasprintf("\"%s\" is not rerun or abandon", v);
			return -1;
		}
		return 0;
	case CONF_T_SIGNAL:
		if (policy_signal_parse(v, (int *)p) == -1) {
			*cause = xasprintf("\"%s\" is not a signal (TERM, INT, "
			    "HUP, ... or a number)", v);
			return -1;
		}
		return 0;
	case CONF_T_EXIT_CODES: {
		uint8_t	bits[32];
		int	any;

		if (policy_exit_codes_parse(v, bits, &any, cause) == -1)
			return -1;
		free(*(char **)p);
		*(char **)p = xstrdup(v);
		return 0;
	}
	case CONF_T_CGROUP:
		if (strcmp(v, "none") != 0 && (v[0] != '/' ||
		    strchr(v, '\n') != NULL || strstr(v, "/..") != NULL)) {
			*cause = xasprintf("\"%s\" is not none or an absolute "
			    "path", v);
			return -1;
		}
		free(*(char **)p);
		*(char **)p = xstrdup(v);
		/* "/sys/fs/cgroup/x/" names "/sys/fs/cgroup/x". */
		for (end = *(char **)p + strlen(v); end > *(char **)p + 1 &&
		    end[-1] == '/'; end--)
			end[-1] = '\0';
		return 0;
	case CONF_T_MEMORY:
	case CONF_T_TASKS:
		return conf_limit(k, v, (int64_t *)p, cause);
	case CONF_T_LISTEN: {
		struct listenaddr la;

		if (listenaddr_parse(v, &la, cause) == -1)
			return -1;
		free(*(char **)p);
		*(char **)p = xstrdup(v);
		return 0;
	}
	case CONF_T_QUOTA:
		if (conf_permyriad(v, &n) == -1 || n == 0) {
			*cause = xasprintf("\"%s\" is not a percentage of one "
			    "CPU above 0%% (50%%, 150%%, 12.5%%)", v);
			return -1;
		}
		*(int64_t *)p = n;
		return 0;
	case CONF_T_ENV:
	default:
		*cause = xstrdup("internal error: unhandled key type");
		return -1;
	}
}

/*
 * Apply the keys of one section to base: defaults first, then the values
 * given.  Environment entries go to *env.  Returns the number of causes
 * added.
 */
static int
conf_apply(enum conf_section sec, const struct conf_sec *s, void *base,
    const char *dir, const char *file, struct envp *env,
    struct conf_causes *causes)
{
	const struct conf_key	*k;
	const char		*line, *nl;
	char			*cause, *one;
	size_t			 i, j;
	int			 bad = 0;

	for (i = 0; i < conf_nkeys; i++) {
		k = &conf_keys[i];
		if (k->section != sec || k->def == NULL)
			continue;
		cause = NULL;
		if (conf_set(k, base, dir, k->def, &cause) == -1) {
			conf_causes_add(causes, "%s: %s: bad default: %s",
			    file, k->name, cause);
			free(cause);
			bad++;
		}
	}

	for (i = 0; i < s->nkv; i++) {
		if (s->kv[i].key[0] == '\0') {
			conf_causes_add(causes, "%s:%d: (no key): the line has "
			    "nothing before its '='", file, s->kv[i].line);
			bad++;
			continue;
		}
		if ((k = conf_key_find(sec, s->kv[i].key)) == NULL) {
			conf_causes_add(causes, "%s:%d: %.64s: unknown key%s",
			    file, s->kv[i].line, s->kv[i].key,
			    conf_key_find(sec == CONF_SEC_JOB ? CONF_SEC_DAEMON :
			    CONF_SEC_JOB, s->kv[i].key) != NULL ? (sec ==
			    CONF_SEC_JOB ? " (it belongs in [daemon] of "
			    "tickd.conf)" : " (it belongs in a job file)") :
			    "");
			bad++;
			continue;
		}
		if (k->type == CONF_T_ENV) {
			/* One NAME=value per line. */
			for (line = s->kv[i].value; line != NULL;
			    line = nl ? nl + 1 : NULL) {
				nl = strchr(line, '\n');
				one = nl ? xstrndup(line, (size_t)(nl - line)) :
				    xstrdup(line);
				if (!envp_valid(one)) {
					conf_causes_add(causes, "%s:%d: %s: "
					    "\"%s\" is not NAME=value", file,
					    s->kv[i].line, k->name, one);
					bad++;
				} else if (strlen(one) > CONF_ARG_MAX) {
					conf_causes_add(causes, "%s:%d: %s: "
					    "\"%.32s...\" is %zu bytes long, "
					    "and the kernel refuses a "
					    "variable longer than %d bytes",
					    file, s->kv[i].line, k->name, one,
					    strlen(one), CONF_ARG_MAX);
					bad++;
				} else
					envp_put(env, one);
				free(one);
			}
			continue;
		}
		for (j = 0; j < i; j++) {
			if (strcmp(s->kv[j].key, s->kv[i].key) == 0)
				break;
		}
		if (j < i) {
			conf_causes_add(causes, "%s:%d: %s: set twice (first "
			    "at line %d)", file, s->kv[i].line, k->name,
			    s->kv[j].line);
			bad++;
			continue;
		}
		cause = NULL;
		if (conf_set(k, base, dir, s->kv[i].value, &cause) == -1) {
			conf_causes_add(causes, "%s:%d: %s: %s", file,
			    s->kv[i].line, k->name, cause);
			free(cause);
			bad++;
		}
	}
	return bad;
}

/* The line of key name in a section, or the section's own line. */
static int
conf_key_line(const struct conf_sec *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nkv; i++) {
		if (strcmp(s->kv[i].key, name) == 0)
			return s->kv[i].line;
	}
	return s->line;
}

/* Whether a job id is made of [A-Za-z0-9_.-] and not too long. */
int
conf_id_valid(const char *id)
{
	size_t n = strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-");

	return n > 0 && id[n] == '\0' && n <= CONF_ID_MAX;
}

/*
 * Why someone other than root could change the file or directory at path
 * (stat follows symbolic links), in words after "path is", or NULL when
 * nobody can or it does not exist.  Caller frees.
 */
static char *
conf_exec_path_unsafe(const char *path)
{
	struct stat st;

	if (stat(path, &st) == -1)
		return NULL;
	if (st.st_uid != 0 && (st.st_mode & (S_IWGRP | S_IWOTH)))
		return xasprintf("owned by uid %ld and writable by group or "
		    "others (mode %04o)", (long)st.st_uid,
		    (unsigned)(st.st_mode & 07777));
	if (st.st_uid != 0)
		return xasprintf("owned by uid %ld, not root",
		    (long)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return xasprintf("writable by group or others (mode %04o)",
		    (unsigned)(st.st_mode & 07777));
	return NULL;
}

/* Append "what is why" to a "; "-separated list (why is freed). */
static void
conf_exec_add(char **list, const char *what, char *why)
{
	char *s;

	if (why == NULL)
		return;
	s = xasprintf("%s%s%s is %s", *list != NULL ? *list : "",
	    *list != NULL ? "; " : "", what, why);
	free(*list);
	free(why);
	*list = s;
}

static char	*conf_exec_word_unsafe(struct conf_loading *, char *);

/*
 * Why the program a root job runs could be changed by someone other than
 * root, or NULL (caller frees).  Only the first word of cmd is looked at,
 * and only when it is an absolute path without shell quoting or
 * expansion in it; a program found through PATH is not checked.  That
 * file and its directory must be owned by root and not writable by group
 * or others, and so must the file and directory it resolves to when it is
 * a symbolic link or its path goes through one.  A program that does not
 * exist yet is not an error, but the directory it would appear in is
 * checked.  A sticky directory (/tmp) counts as writable by others.
 */
static char *
conf_exec_unsafe(struct conf_loading *L, const char *cmd)
{
	size_t n;

	cmd += strspn(cmd, " \t\n");
	n = strcspn(cmd, " \t\n;&|<>()");
	/* Quotes, escapes, expansions: the shell decides, not us. */
	if (n == 0 || cmd[0] != '/' || strcspn(cmd, "'\"\\$`*?[~") < n)
		return NULL;
	return conf_exec_word_unsafe(L, xstrndup(cmd, n));
}

/*
 * The same for the program of an exec value, its first word once split;
 * only an absolute path is checked.
 */
static char *
conf_exec_argv_unsafe(struct conf_loading *L, const char *exec)
{
	char	**v, *cause = NULL, *why = NULL;

	if ((v = shwords_exec_split(exec, 0, &cause)) == NULL)
		free(cause);		/* reported by conf_set */
	else if (v[0][0] == '/')
		why = conf_exec_word_unsafe(L, xstrdup(v[0]));
	free(v);
	return why;
}

/*
 * Why the program at the absolute path word could be changed by someone
 * other than root, or NULL (see conf_exec_unsafe); word is freed.
 */
static char *
conf_exec_word_unsafe(struct conf_loading *L, char *word)
{
	char	*dir, *slash, *real, *rdir, *what, *list = NULL;
	int	 found;

	if ((list = conf_memo_get(&L->execs, word, &found)) != NULL || found) {
		free(word);
		return list != NULL ? xstrdup(list) : NULL;
	}
	/* Its directory: "/bin/x" -> "/bin", "/x" -> "/". */
	dir = xstrdup(word);
	slash = strrchr(dir, '/');
	slash[slash == dir ? 1 : 0] = '\0';

	if ((real = realpath(word, NULL)) == NULL)	/* not there (yet) */
		conf_exec_add(&list, dir, conf_exec_path_unsafe(dir));
	else {
		if (strcmp(real, word) == 0)
			conf_exec_add(&list, word, conf_exec_path_unsafe(word));
		else {
			what = xasprintf("%s (where %s leads)", real, word);
			conf_exec_add(&list, what, conf_exec_path_unsafe(real));
			free(what);
		}
		conf_exec_add(&list, dir, conf_exec_path_unsafe(dir));
		rdir = xstrdup(real);
		slash = strrchr(rdir, '/');
		slash[slash == rdir ? 1 : 0] = '\0';
		if (strcmp(rdir, dir) != 0)
			conf_exec_add(&list, rdir, conf_exec_path_unsafe(rdir));
		free(rdir);
	}
	conf_memo_put(&L->execs, word, list != NULL ? xstrdup(list) : NULL);
	free(real);
	free(dir);
	free(word);
	return list;
}

/* The programs a job runs, which conf_exec_why checks: their keys. */
static const char *const conf_exec_keys[] = { "command", "exec",
    "on_failure", "only_if" };
#define CONF_EXEC_NKEYS (sizeof conf_exec_keys / sizeof conf_exec_keys[0])

/*
 * Why program i of job d (conf_exec_keys[i]) is unsafe for root, or NULL
 * (safe, or not set); *line is its line.  The caller frees the reason.
 */
static char *
conf_exec_why(struct conf_loading *L, const struct job_def *d, size_t i,
    int *line)
{
	const char	*cmds[] = { d->command, d->exec, d->on_failure,
			    d->only_if };
	const int	 lines[] = { d->command_line, d->exec_line,
			    d->on_failure_line, d->only_if_line };

	*line = lines[i];
	if (cmds[i] == NULL)
		return NULL;
	return i == 1 ? conf_exec_argv_unsafe(L, cmds[i]) :
	    conf_exec_unsafe(L, cmds[i]);
}

/*
 * Check the programs of a root job (conf_exec_keys): an unsafe one is a
 * warning in c->warnings, or with strict_exec a cause.  Only when tickd
 * runs as root and the job runs as root.  Returns how many causes.
 */
static int
conf_exec_check(struct conf *c, struct conf_loading *L,
    const struct job_def *d, struct conf_causes *causes)
{
	char	*why;
	size_t	 i;
	int	 bad = 0, line;

	if (c->uid != 0 || d->cred.uid != 0)
		return 0;
	for (i = 0; i < CONF_EXEC_NKEYS; i++) {
		if ((why = conf_exec_why(L, d, i, &line)) == NULL)
			continue;
		if (d->strict_exec) {
			conf_causes_add(causes, "%s:%d: %s: %s, and the job "
			    "runs as root: refused (strict_exec)", d->file,
			    line, conf_exec_keys[i], why);
			bad++;
		} else
			conf_causes_add(&c->warnings, "%s:%d: %s: %s, and the "
			    "job runs as root", d->file, line,
			    conf_exec_keys[i], why);
		free(why);
	}
	return bad;
}

/*
 * Where a job is defined, "file:line" of its [id], into buf (computed:
 * 100,000 jobs need not hold it).  Returns buf.
 */
const char *
job_def_where(const struct job_def *d, char *buf, size_t len)
{
	(void)snprintf(buf, len, "%s:%d", d->file, d->line);
	return buf;
}

/*
 * The directory a job runs in: its workdir (which must exist: a run
 * without it fails), else its user's home when that is a directory, else
 * "/", as Debian's cron, which ignores a failed chdir to the home (the
 * child falls back to "/" in the same way, child.c).
 */
const char *
job_def_workdir(const struct job_def *d)
{
	struct stat st;

	if (d->workdir != NULL)
		return d->workdir;
	if (d->cred.home != NULL && stat(d->cred.home, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		return d->cred.home;
	return "/";
}

/* A new job_policy, one holder, every value zero (padding too). */
static struct job_policy *
job_policy_new(void)
{
	struct job_policy *p = xcalloc(1, sizeof *p);

	p->refs = 1;
	return p;
}

/* Drop a holder of p; the last frees it.  NULL is allowed. */
static void
job_policy_unref(struct job_policy *p)
{
	if (p != NULL && --p->refs == 0) {
		free(p->retry_on_exit);
		free(p);
	}
}

/* Free a job definition; NULL is allowed. */
void
job_def_free(struct job_def *d)
{
	size_t i;

	if (d == NULL)
		return;
	xstrunref(d->id);
	xstrunref(d->file);
	free(d->description);
	schedule_free(d->schedule);
	xstrunref(d->timezone);
	free(d->command);
	free(d->exec);
	free(d->user);
	free(d->group);
	priv_cred_free(&d->cred);
	free(d->workdir);
	job_policy_unref(d->pol);
	free(d->on_failure);
	free(d->only_if);
	free(d->shards);
	free(d->shards_from);
	for (i = 0; i < d->nenv; i++)
		free(d->env[i]);
	free(d->env);
	free(d);
}

/* The credentials of d's user and group, looked up once per load. */
static struct conf_cred *
conf_cred_get(struct conf_loading *L, const struct job_def *d)
{
	struct conf_cred	*cc;
	char			*key;
	int			 found;

	if (d->user == NULL && d->group == NULL)
		key = NULL;		/* most jobs: tickd's own user */
	else
		key = xasprintf("%s\n%s", d->user != NULL ? d->user : "",
		    d->group != NULL ? d->group : "");
	if ((cc = conf_memo_get(&L->creds, key != NULL ? key : "\n",
	    &found)) == NULL) {
		cc = xcalloc(1, sizeof *cc);
		cc->rc = priv_lookup_as(L->uid, L->gid, d->user, d->group,
		    &cc->cred, &cc->cause);
		conf_memo_put(&L->creds, key != NULL ? key : "\n", cc);
	}
	free(key);
	return cc;
}

/* The limit keys, the controller each needs, and where it goes. */
static const struct {
	const char	*key;
	unsigned	 controller;
	size_t		 offset;
} conf_limit_keys[] = {
	{ "memory_max", CGROUP_MEMORY, offsetof(struct cgroup_limits,
	    memory_max) },
	{ "memory_high", CGROUP_MEMORY, offsetof(struct cgroup_limits,
	    memory_high) },
	{ "cpu_weight", CGROUP_CPU, offsetof(struct cgroup_limits,
	    cpu_weight) },
	{ "cpu_max", CGROUP_CPU, offsetof(struct cgroup_limits, cpu_quota) },
	{ "tasks_max", CGROUP_PIDS, offsetof(struct cgroup_limits,
	    tasks_max) },
	{ "io_weight", CGROUP_IO, offsetof(struct cgroup_limits, io_weight) },
};

/*
 * A limit the host cannot enforce makes the job invalid (a limit dropped
 * in silence is worse than none): each such key gets a cause.  Only when
 * the loader was told what tickd can enforce (conf_load_with).  How many
 * causes.
 */
static int
conf_limits_check(const struct conf *c, const struct job_def *d,
    const struct conf_sec *s, const char *file, struct conf_causes *causes)
{
	size_t	i;
	int64_t	v;
	int	bad = 0;

	if (!c->controllers_known)
		return 0;
	for (i = 0; i < sizeof conf_limit_keys / sizeof conf_limit_keys[0];
	    i++) {
		v = *(const int64_t *)(const void *)((const char *)
		    &d->pol->limits + conf_limit_keys[i].offset);
		if (v == CGROUP_UNSET || v == CGROUP_INFINITY ||
		    (c->controllers & conf_limit_keys[i].controller))
			continue;
		conf_causes_add(causes, "%s:%d: %s: needs the %s controller, "
		    "which tickd does not have: jobs are tracked by %s "
		    "(tickd(8), CGROUPS)", file,
		    conf_key_line(s, conf_limit_keys[i].key),
		    conf_limit_keys[i].key,
		    cgroup_controller_name(conf_limit_keys[i].controller),
		    c->tracking != NULL ? c->tracking : "no cgroup");
		bad++;
	}
	return bad;
}

/* The bytes of a job_policy compared and hashed: all but refs and text. */
#define POLICY_FROM	offsetof(struct job_policy, random_delay)
#define POLICY_LEN	(offsetof(struct job_policy, recover) + \
			    sizeof(int) - POLICY_FROM)

static uint64_t
conf_policy_hash(const struct job_policy *p)
{
	const unsigned char	*b = (const unsigned char *)p + POLICY_FROM;
	uint64_t		 h = CONF_HASH_INIT;
	size_t			 i;

	for (i = 0; i < POLICY_LEN; i++) {
		h ^= b[i];
		h *= UINT64_C(0x100000001b3);
	}
	return conf_hash(h, p->retry_on_exit);
}

static int
conf_policy_eq(const struct job_policy *a, const struct job_policy *b)
{
	if ((a->retry_on_exit == NULL) != (b->retry_on_exit == NULL) ||
	    (a->retry_on_exit != NULL && strcmp(a->retry_on_exit,
	    b->retry_on_exit) != 0))
		return 0;
	return memcmp((const char *)a + POLICY_FROM, (const char *)b +
	    POLICY_FROM, POLICY_LEN) == 0;
}

/*
 * The load's copy of policy p (the job's holder moves to it; p is
 * dropped if an equal one is there).  Nearly every job has the defaults,
 * or one of a few sets: 100,000 jobs share a handful of copies.
 */
static struct job_policy *
conf_policy_intern(struct conf_loading *L, struct job_policy *p)
{
	struct job_policy	**old = L->pols, *q;
	size_t			 i, j, cap = L->pols_cap;

	if (2 * (L->npols + 1) > L->pols_cap) {
		L->pols_cap = cap == 0 ? 64 : 2 * cap;
		L->pols = xcalloc(L->pols_cap, sizeof *L->pols);
		for (i = 0; i < cap; i++) {
			if ((q = old[i]) == NULL)
				continue;
			j = conf_policy_hash(q) & (L->pols_cap - 1);
			while (L->pols[j] != NULL)
				j = (j + 1) & (L->pols_cap - 1);
			L->pols[j] = q;
		}
		free(old);
	}
	j = conf_policy_hash(p) & (L->pols_cap - 1);
	for (; (q = L->pols[j]) != NULL; j = (j + 1) & (L->pols_cap - 1)) {
		if (conf_policy_eq(p, q)) {
			job_policy_unref(p);
			q->refs++;
			return q;
		}
	}
	p->refs++;			/* the table's */
	L->pols[j] = p;
	L->npols++;
	return p;
}

/* A load's context for c's user (conf_load_jobs_dir, conf_job_parse). */
static void
conf_loading_init(struct conf_loading *L, const struct conf *c)
{
	memset(L, 0, sizeof *L);
	L->uid = c->uid;
	L->gid = c->gid;
	L->arg_max = sysconf(_SC_ARG_MAX);
	L->creds.free_value = conf_cred_free;
	L->execs.free_value = free;
	L->zones.free_value = conf_unref;
	(void)clock_gettime(CLOCK_REALTIME, &L->start);
}

static void
conf_loading_free(struct conf_loading *L)
{
	size_t	i;

	conf_memo_free(&L->ids);
	conf_memo_free(&L->creds);
	conf_memo_free(&L->execs);
	conf_memo_free(&L->zones);
	xstrunref(L->file);
	for (i = 0; i < L->pols_cap; i++)
		job_policy_unref(L->pols[i]);
	free(L->pols);
}

/*
 * One copy of a string many jobs of a load hold (their zone): the load's
 * shared copy of text, a holder added.
 */
static char *
conf_shared(struct conf_memo *m, const char *text)
{
	char	*s;
	int	 found;

	if ((s = conf_memo_get(m, text, &found)) == NULL) {
		s = xstrshare(text);
		conf_memo_put(m, text, s);
	}
	return xstrref(s);
}

/*
 * A section as text that parses back to the same keys and values: one
 * "key=value" line per key, a value's joined lines as indented
 * continuation lines.  No line is longer than the one it came from, so
 * none can exceed CONF_LINE_MAX.
 */
static size_t
conf_sec_text_len(const struct conf_sec *s)
{
	const char	*v;
	size_t		 i, n;

	n = strlen(s->name) + 3;			/* "[name]\n" */
	for (i = 0; i < s->nkv; i++) {
		n += strlen(s->kv[i].key) + 1 + s->kv[i].len + 1;
		for (v = s->kv[i].value; *v != '\0'; v++)
			n += *v == '\n';		/* a tab each */
	}
	return n;
}

/* Write it into text, conf_sec_text_len(s) + 1 bytes. */
static void
conf_sec_text(const struct conf_sec *s, char *text)
{
	const char	*v;
	char		*t = text;
	size_t		 i;

	t += sprintf(t, "[%s]\n", s->name);
	for (i = 0; i < s->nkv; i++) {
		t += sprintf(t, "%s=", s->kv[i].key);
		for (v = s->kv[i].value; *v != '\0'; v++) {
			*t++ = *v;
			if (*v == '\n')
				*t++ = '\t';
		}
		*t++ = '\n';
	}
	*t = '\0';
}

/*
 * A batch's keys: shards or shards_from (one), a list that parses, and
 * shard_parallel and batch_timeout only with one of them.  Returns the
 * number of causes added.
 */
static int
conf_batch_check(const struct job_def *d, const struct conf_sec *s,
    const char *file, struct conf_causes *causes)
{
	static const char *const alone[] = { "shard_parallel",
	    "batch_timeout" };
	char	*list, *cause;
	size_t	 i;
	int	 bad = 0;

	if (d->shards != NULL && d->shards_from != NULL) {
		conf_causes_add(causes, "%s:%d: shards_from: job \"%s\" has "
		    "shards too (line %d): one of them only", file,
		    conf_key_line(s, "shards_from"), s->name,
		    conf_key_line(s, "shards"));
		bad++;
	}
	if (d->shards != NULL) {
		if (policy_shards_list(d->shards, &list, &cause) == -1) {
			conf_causes_add(causes, "%s:%d: shards: %s", file,
			    conf_key_line(s, "shards"), cause);
			free(cause);
			bad++;
		} else
			free(list);
	}
	if (d->shards != NULL && d->only_if != NULL) {
		conf_causes_add(causes, "%s:%d: only_if: job \"%s\" has a "
		    "static shards list (line %d), which starts no process of "
		    "its instance to check it first: use shards_from, or test "
		    "in the command", file, conf_key_line(s, "only_if"),
		    s->name, conf_key_line(s, "shards"));
		bad++;
	}
	for (i = 0; d->shards == NULL && d->shards_from == NULL &&
	    i < sizeof alone / sizeof alone[0]; i++) {
		if (conf_key_line(s, alone[i]) != s->line) {
			conf_causes_add(causes, "%s:%d: %s: job \"%s\" is not "
			    "a batch (no shards or shards_from)", file,
			    conf_key_line(s, alone[i]), alone[i], s->name);
			bad++;
		}
	}
	return bad;
}

/*
 * Build and validate the job of one section.  Returns the job, or NULL
 * when it has any problem (each one added to causes).
 */
static struct job_def *
conf_job_build(struct conf *c, struct conf_loading *L, const char *file,
    const struct conf_sec *s, struct conf_causes *causes)
{
	struct job_def	*d;
	struct conf_cred *cc;
	struct envp	 env;
	const char	*zone, *key;
	char		*cause = NULL, *shared, *note, buf[32];
	size_t		 i;
	int		 bad, rc;

	/* Its text in the same allocation (100,000 jobs: one fewer each). */
	d = xcalloc(1, sizeof *d + conf_sec_text_len(s) + 1);
	d->text = d->text_buf;
	d->pol = job_policy_new();	/* interned once valid */
	conf_sec_text(s, d->text);
	envp_init(&env);
	d->id = xstrshare(s->name);	/* the daemon's job holds it too */
	/* One copy of the path for the jobs of a file. */
	if (L->file == NULL || strcmp(L->file, file) != 0) {
		xstrunref(L->file);
		L->file = xstrshare(file);
	}
	d->file = xstrref(L->file);
	d->line = s->line;
	d->strict_exec = -1;		/* unset: the daemon's default */
	d->pol->limits = (struct cgroup_limits)CGROUP_LIMITS_NONE;
	d->pol->shard_parallel = CGROUP_UNSET;	/* all at once */
	/* The schedule reads in the dialect, wherever the key is. */
	for (i = 0; i < s->nkv; i++) {
		if (strcmp(s->kv[i].key, "cron_dialect") == 0)
			(void)conf_dialect(s->kv[i].value, &d->cron_dialect);
	}
	bad = conf_apply(CONF_SEC_JOB, s, d, NULL, file, &env, causes);
	bad += conf_limits_check(c, d, s, file, causes);
	/* "6L": Saturday here, Friday in Quartz; say which is meant. */
	if (d->schedule != NULL && schedule_cron(d->schedule) != NULL &&
	    (note = cronexpr_dow_note(schedule_cron(d->schedule))) != NULL) {
		conf_causes_add(&c->warnings, "%s:%d: schedule: %s", file,
		    conf_key_line(s, "schedule"), note);
		free(note);
	}
	d->command_line = conf_key_line(s, "command");
	d->exec_line = conf_key_line(s, "exec");
	d->on_failure_line = conf_key_line(s, "on_failure");
	d->only_if_line = conf_key_line(s, "only_if");
	if (d->strict_exec == -1)
		d->strict_exec = c->strict_exec;

	for (i = 0; i < conf_nkeys; i++) {
		if (conf_keys[i].section == CONF_SEC_JOB &&
		    conf_keys[i].required &&
		    *(void *const *)conf_key_addr(&conf_keys[i], d) == NULL &&
		    conf_key_line(s, conf_keys[i].name) == s->line) {
			conf_causes_add(causes, "%s:%d: %s: missing: job \"%s\" "
			    "needs a %s", file, s->line, conf_keys[i].name,
			    s->name, conf_keys[i].name);
			bad++;
		}
	}
	/* What runs: a command (sh -c, or its words) or an exec, one. */
	if (d->command != NULL && d->exec != NULL) {
		conf_causes_add(causes, "%s:%d: exec: job \"%s\" has a "
		    "command too (line %d): one of them only", file,
		    d->exec_line, s->name, d->command_line);
		bad++;
	} else if (d->command == NULL && d->exec == NULL &&
	    d->command_line == s->line && d->exec_line == s->line) {
		conf_causes_add(causes, "%s:%d: command: missing: job \"%s\" "
		    "needs a command (or an exec)", file, s->line, s->name);
		bad++;
	}

	bad += conf_batch_check(d, s, file, causes);

	/* The zone: the job's own, else the daemon's default. */
	zone = d->timezone != NULL ? d->timezone : c->timezone;
	if (zone != NULL && (d->tz = tz_cache_get(c->tzc, zone,
	    &cause)) == NULL) {
		conf_causes_add(causes, "%s:%d: timezone: %s", file,
		    conf_key_line(s, "timezone"), cause);
		free(cause);
		cause = NULL;
		bad++;
	}
	/* One copy of a zone's name for the jobs of a load (shared). */
	if (zone != NULL) {
		shared = conf_shared(&L->zones, zone);
		free(d->timezone);		/* the key's, or NULL */
		d->timezone = shared;
	}

	/*
	 * The credentials: resolved now, never between fork and exec, and
	 * once per user and group in a load (the name service rereads its
	 * files on every call).
	 */
	cc = conf_cred_get(L, d);
	if ((rc = cc->rc) == 0) {
		priv_cred_copy(&d->cred, &cc->cred);
		/* Once per user and load: its home is not there. */
		if (d->workdir == NULL && !cc->home_told &&
		    job_def_workdir(d) != d->cred.home) {
			cc->home_told = 1;
			conf_causes_add(&c->warnings, "%s:%d: workdir: the "
			    "home directory %s of user %s does not exist: "
			    "its jobs without workdir run in / (as under "
			    "cron)", file, s->line, d->cred.home,
			    d->cred.user);
		}
	} else {
		key = rc == -2 ? "group" : "user";
		conf_causes_add(causes, "%s:%d: %s: %s", file,
		    conf_key_line(s, key), key, cc->cause);
		bad++;
	}

	/*
	 * What execve gets must fit in what the kernel takes (the stack
	 * limit / 4), with room left for PATH, HOME, USER, LOGNAME, SHELL,
	 * the TICKD_* variables and the pointers.
	 */
	if (bad == 0 && (d->command != NULL || d->exec != NULL)) {
		const char	*run = d->command != NULL ? d->command : d->exec;
		size_t		 total = strlen(run) + sizeof "/bin/sh -c";
		long	max = L->arg_max;

		for (i = 0; i < env.n; i++)
			total += strlen(env.v[i]) + 1 + sizeof(char *);
		if (max > CONF_ARG_RESERVE && total > (size_t)(max -
		    CONF_ARG_RESERVE)) {
			conf_causes_add(causes, "%s:%d: %s: the command "
			    "and the environment take %zu bytes, and a new "
			    "process may be given at most %ld", file,
			    d->command != NULL ? d->command_line :
			    d->exec_line, d->command != NULL ? "command" :
			    "exec", total,
			    max - CONF_ARG_RESERVE);
			bad++;
		}
	}

	/*
	 * The programs of a root job: nobody but root may change them.  A
	 * job refused for that alone stops at a reload (conf_job_is_bad).
	 */
	if (bad == 0 && (d->command != NULL || d->exec != NULL) &&
	    (bad = conf_exec_check(c, L, d, causes)) > 0)
		conf_list_add(&c->unsafe_ids, &c->nunsafe_ids, d->id);

	/* The vector moves into the job, at its size (most have none). */
	d->nenv = env.n;
	if (env.n == 0)
		free(env.v);
	else
		d->env = xreallocarray(env.v, env.n + 1, sizeof *env.v);
	env.v = NULL;
	if (d->pol->retry_on_exit != NULL && policy_exit_codes_parse(
	    d->pol->retry_on_exit, d->pol->retry_codes, &d->pol->retry_any,
	    &cause) == -1) {
		free(cause);	/* checked by conf_set already */
		bad++;
	}

	if (bad) {
		job_def_free(d);
		return NULL;
	}
	d->pol = conf_policy_intern(L, d->pol);
	/*
	 * What decides the instants.  "enabled" is in: a job enabled again
	 * starts afresh, with no instances from while it was disabled.
	 */
	(void)snprintf(buf, sizeof buf, "%d", d->enabled);
	d->sched_hash = conf_hash(conf_hash(conf_hash(conf_hash(conf_hash(
	    CONF_HASH_INIT, schedule_text(d->schedule)), d->timezone),
	    tz_gap_name(d->gap)), tz_fold_name(d->fold)), buf);
	if (d->cron_dialect == CRONEXPR_QUARTZ)	/* cron's: unchanged */
		d->sched_hash = conf_hash(d->sched_hash, "quartz");
	d->def_hash = d->sched_hash;
	for (i = 0; i < s->nkv; i++) {
		d->def_hash = conf_hash(d->def_hash, s->kv[i].key);
		d->def_hash = conf_hash(d->def_hash, s->kv[i].value);
	}
	return d;
}

/*
 * A job (the daemon's definition, as "define" over the control socket
 * gives it: its text and "file:line") built as if loaded from its file,
 * with c's user, zones and controllers.  NULL, with causes that name
 * the daemon's copy, if the text no longer makes a valid job.
 */
struct job_def *
conf_job_parse(struct conf *c, const char *where, const char *text,
    struct conf_causes *causes)
{
	struct conf_parse	 p;
	struct conf_loading	 L;
	struct job_def		*d = NULL;
	char			*file = xstrdup(where), *colon, *label;

	if ((colon = strrchr(file, ':')) != NULL)
		*colon = '\0';
	label = xasprintf("%s (the daemon's definition)", file);
	memset(&p, 0, sizeof p);
	p.file = label;
	p.buf = text;
	p.len = strlen(text);
	p.causes = causes;
	if (conf_parse_ini(&p) == 0 && p.nsecs == 1) {
		conf_loading_init(&L, c);
		if ((d = conf_job_build(c, &L, label, &p.secs[0], causes)) !=
		    NULL) {
			xstrunref(d->file);
			d->file = xstrshare(file);
			d->line = colon != NULL ? atoi(colon + 1) : 0;
		}
		conf_loading_free(&L);
	} else if (p.nsecs != 1)
		conf_causes_add(causes, "%s: not one job", label);
	conf_parse_free(&p);
	free(label);
	free(file);
	return d;
}

/* Add a job to the conf, keeping the array sorted by id. */
static void
conf_job_insert(struct conf *c, struct job_def *d)
{
	size_t i;

	c->jobs = xreallocarray(c->jobs, c->njobs + 1, sizeof *c->jobs);
	for (i = c->njobs; i > 0 && strcmp(c->jobs[i - 1]->id, d->id) > 0;
	    i--)
		c->jobs[i] = c->jobs[i - 1];
	c->jobs[i] = d;
	c->njobs++;
}

/* Add a job to c during a load (sorted at the end). */
static void
conf_job_append(struct conf *c, struct conf_loading *L, struct job_def *d)
{
	conf_memo_put(&L->ids, d->id, d);
	if (c->njobs == L->jobs_cap) {
		L->jobs_cap = L->jobs_cap ? 2 * L->jobs_cap : 64;
		c->jobs = xreallocarray(c->jobs, L->jobs_cap, sizeof *c->jobs);
	}
	c->jobs[c->njobs++] = d;
}

/* The job called id, or NULL (binary search). */
struct job_def *
conf_job(const struct conf *c, const char *id)
{
	size_t	lo = 0, hi = c->njobs, mid;
	int	cmp;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		cmp = strcmp(c->jobs[mid]->id, id);
		if (cmp == 0)
			return c->jobs[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Compare jobs by id for qsort and bsearch. */
static int
conf_job_cmp(const void *a, const void *b)
{
	return strcmp((*(struct job_def *const *)a)->id,
	    (*(struct job_def *const *)b)->id);
}

/*
 * Record a job file and its jobs (in file order) for the next reload.  It
 * may be taken unread then only if it loaded without a problem and was
 * last changed well before this load began: a change within the same
 * clock tick as the read would leave the same times (git's "racily
 * clean" entries).
 */
static void
conf_file_add(struct conf *c, struct conf_loading *L, const char *path,
    const struct stat *st, int clean, struct job_def *const *jobs, size_t n)
{
	struct conf_file	*f;
	time_t			 recent = L->start.tv_sec - CONF_RACY_SECS;

	if (c->nfiles == L->files_cap) {
		L->files_cap = L->files_cap ? 2 * L->files_cap : 64;
		c->files = xreallocarray(c->files, L->files_cap,
		    sizeof *c->files);
	}
	f = &c->files[c->nfiles++];
	f->path = xstrdup(path);
	f->st = *st;
	f->reusable = clean && st->st_mtim.tv_sec < recent &&
	    st->st_ctim.tv_sec < recent;
	f->jobs = n > 0 ? xreallocarray(NULL, n, sizeof *f->jobs) : NULL;
	if (n > 0)
		memcpy(f->jobs, jobs, n * sizeof *f->jobs);
	f->njobs = n;
}

/* Compare job files by path for bsearch. */
static int
conf_file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct conf_file *)a)->path,
	    ((const struct conf_file *)b)->path);
}

/* The file of c called path (c->files is in name order), or NULL. */
static struct conf_file *
conf_file_find(const struct conf *c, const char *path)
{
	struct conf_file key;

	if (c->nfiles == 0)
		return NULL;
	key.path = (char *)path;
	return bsearch(&key, c->files, c->nfiles, sizeof *c->files,
	    conf_file_cmp);
}

/*
 * Take the jobs of an unchanged file from L->prev instead of reading it.
 * What the file does not say is looked at again, as a read would: each
 * job's zone in this load's cache, its user and groups, its programs (a
 * root job's warnings are given again).  Anything that would not come
 * out the same (a zone or user gone, a program refused by strict_exec,
 * an id an earlier file now defines): 0, and the file is read instead.
 * Taken jobs leave L->prev's array at the end of the load (its slots are
 * remembered: it is searched meanwhile).  Only a reusable record's job
 * pointers are sure to be alive (conf_keep_job).
 */
static int
conf_file_take(struct conf *c, struct conf_loading *L, struct conf_file *pf)
{
	struct conf		*prev = L->prev;
	struct job_def		*d, **slot;
	struct conf_cred	*cc;
	struct stat		 st;
	char			*cause = NULL, *why;
	size_t			 i, k, ntaken = L->ntaken;
	int			 found, line;

	if (!pf->reusable || lstat(pf->path, &st) == -1 ||
	    !conf_same_file(&st, &pf->st))
		return 0;
	for (i = 0; i < pf->njobs; i++) {
		d = pf->jobs[i];
		(void)conf_memo_get(&L->ids, d->id, &found);
		slot = bsearch(&d, prev->jobs, prev->njobs, sizeof *prev->jobs,
		    conf_job_cmp);
		if (found || slot == NULL || *slot != d ||
		    tz_cache_get(c->tzc, d->timezone, &cause) == NULL ||
		    (cc = conf_cred_get(L, d))->rc != 0) {
			free(cause);
			L->ntaken = ntaken;
			return 0;
		}
		/* A program strict_exec now refuses: read the file again. */
		for (k = 0; d->strict_exec && c->uid == 0 &&
		    cc->cred.uid == 0 && k < CONF_EXEC_NKEYS; k++) {
			if ((why = conf_exec_why(L, d, k, &line)) != NULL) {
				free(why);
				L->ntaken = ntaken;
				return 0;
			}
		}
		if (L->ntaken == L->taken_cap) {
			L->taken_cap = L->taken_cap ? 2 * L->taken_cap : 64;
			L->taken = xreallocarray(L->taken, L->taken_cap,
			    sizeof *L->taken);
		}
		L->taken[L->ntaken++] = slot;
	}
	for (i = 0; i < pf->njobs; i++) {
		d = pf->jobs[i];
		d->tz = tz_cache_get(c->tzc, d->timezone, &cause);
		priv_cred_free(&d->cred);
		priv_cred_copy(&d->cred, &conf_cred_get(L, d)->cred);
		(void)conf_exec_check(c, L, d, NULL);	/* warnings only */
		conf_job_append(c, L, d);
	}
	conf_file_add(c, L, pf->path, &pf->st, 1, pf->jobs, pf->njobs);
	c->nreused++;
	return 1;
}

/* Load one job file into c. */
static void
conf_load_job_file(struct conf *c, struct conf_loading *L, const char *path,
    struct conf_causes *causes)
{
	struct conf_parse	 p;
	struct job_def		*d, *other;
	struct stat		 st;
	size_t			 len, i, from, first = c->njobs;
	ssize_t			 k;
	char			*buf, *where, at[PATH_MAX + 16];
	int			 found;

	memset(&p, 0, sizeof p);
	from = causes->n;
	/* Never through a symbolic link (tickd.job(5)), root or not. */
	if ((buf = conf_read_file(path, 1, c->uid, &len, &st,
	    causes)) == NULL) {
		conf_list_add(&c->bad_files, &c->nbad_files, path);
		return;
	}
	p.file = path;
	p.buf = buf;
	p.len = len;
	p.causes = causes;
	if (conf_parse_ini(&p) == -1) {
		/* The whole file is out; its ids keep older definitions. */
		conf_list_add(&c->bad_files, &c->nbad_files, path);
		for (i = 0; i < p.nsecs; i++) {
			/*
			 * Not an id, or an id defined before: that definition
			 * stands, as for a duplicate in a valid file.
			 */
			(void)conf_memo_get(&L->ids, p.secs[i].name, &found);
			if (!conf_id_valid(p.secs[i].name) || found ||
			    conf_list_has(c->bad_ids, c->nbad_ids,
			    p.secs[i].name))
				continue;
			conf_list_add(&c->bad_ids, &c->nbad_ids,
			    p.secs[i].name);
			c->bad_where = xreallocarray(c->bad_where, c->nbad_ids,
			    sizeof *c->bad_where);
			c->bad_where[c->nbad_ids - 1] = xasprintf("%s:%d",
			    path, p.secs[i].line);
		}
		goto out;
	}
	for (i = 0; i < p.nsecs; i++) {
		if (!conf_id_valid(p.secs[i].name)) {
			conf_causes_add(causes, "%s:%d: [%.64s]: a job id is "
			    "1-%d characters of A-Z a-z 0-9 _ . -", path,
			    p.secs[i].line, p.secs[i].name, CONF_ID_MAX);
			continue;
		}
		where = xasprintf("%s:%d", path, p.secs[i].line);
		if ((other = conf_memo_get(&L->ids, p.secs[i].name,
		    &found)) != NULL ||
		    (k = conf_list_find(c->bad_ids, c->nbad_ids,
		    p.secs[i].name)) != -1) {
			if (other != NULL)
				(void)job_def_where(other, at, sizeof at);
			conf_causes_add(causes, "%s: [%s]: duplicate job id "
			    "(also defined at %s)", where, p.secs[i].name,
			    other != NULL ? at : c->bad_where[k]);
			/* The first stands; see conf_job_is_bad for reloads. */
			if (other != NULL && !conf_list_has(c->dup_ids,
			    c->ndup_ids, other->id))
				conf_list_add(&c->dup_ids, &c->ndup_ids,
				    other->id);
			free(where);
			continue;
		}
		if ((d = conf_job_build(c, L, path, &p.secs[i],
		    causes)) == NULL) {
			conf_list_add(&c->bad_ids, &c->nbad_ids,
			    p.secs[i].name);
			c->bad_where = xreallocarray(c->bad_where, c->nbad_ids,
			    sizeof *c->bad_where);
			c->bad_where[c->nbad_ids - 1] = where;
		} else {
			free(where);
			conf_job_append(c, L, d);
		}
	}
	conf_file_add(c, L, path, &st, causes->n == from, c->jobs + first,
	    c->njobs - first);
out:
	conf_causes_cap(causes, from, path);
	conf_parse_free(&p);
	free(buf);
}

/* Compare strings for qsort. */
static int
conf_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether name ends in ".job" (and has something before it). */
static int
conf_is_job_name(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, ".job") == 0 && name[0] != '.';
}

/* Why a name of the jobs directory is not a job file's, for people. */
const char *
conf_ignored_why(const char *name)
{
	size_t n = strlen(name);

	if (name[0] == '.' && n > 4 && strcmp(name + n - 4, ".job") == 0)
		return "a hidden file (its name starts with a dot), as "
		    "editors' and dpkg's leftovers are";
	return "only *.job files hold jobs";
}

/*
 * Open the jobs directory if it is safe: whoever can write in it can
 * delete or rename the job files (a sticky directory too: its users can
 * still rename their own files over the jobs'), so it must be owned by
 * root or tickd's user and not writable by group or others, as the files
 * in it.  where is "tickd.conf:LINE: jobs_dir", for the cause.  NULL,
 * with a cause, when it cannot be read (c->jobs_dir_failed) or is not
 * safe (c->jobs_dir_unsafe too).
 */
static DIR *
conf_open_jobs_dir(struct conf *c, const char *where,
    struct conf_causes *causes)
{
	struct stat	 st;
	DIR		*dir = NULL;
	char		*why;
	int		 fd;

	c->jobs_dir_failed = 1;
	if ((fd = open(c->jobs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	    O_NOCTTY)) == -1 || fstat(fd, &st) == -1) {
		conf_causes_add(causes, "%s: %s: %s", where, c->jobs_dir,
		    strerror(errno));
		goto fail;
	}
	if ((why = conf_owner_refused(&st, c->uid, "directory")) != NULL) {
		conf_causes_add(causes, "%s: %s: refused: %s", where,
		    c->jobs_dir, why);
		free(why);
		c->jobs_dir_unsafe = 1;
		goto fail;
	}
	if ((dir = fdopendir(fd)) == NULL) {
		conf_causes_add(causes, "%s: %s: %s", where, c->jobs_dir,
		    strerror(errno));
		goto fail;
	}
	c->jobs_dir_failed = 0;
	return dir;
fail:
	if (fd != -1)
		(void)close(fd);
	return NULL;
}

/*
 * Load every *.job file of the jobs directory, in name order (where:
 * "tickd.conf:LINE: jobs_dir", for the causes about the directory).
 */
static void
conf_load_jobs_dir(struct conf *c, struct conf *prev, const char *where,
    struct conf_causes *causes)
{
	struct conf_loading L;
	struct conf_file *pf;
	DIR		 *dir;
	struct dirent	 *de;
	char		**names = NULL, *path;
	size_t		  n = 0, i;

	if ((dir = conf_open_jobs_dir(c, where, causes)) == NULL)
		return;
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (!conf_is_job_name(de->d_name)) {
			conf_list_add(&c->ignored, &c->nignored, de->d_name);
			continue;
		}
		conf_list_add(&names, &n, de->d_name);
	}
	(void)closedir(dir);
	if (n > 0)
		qsort(names, n, sizeof *names, conf_strcmp);
	if (c->nignored > 0)
		qsort(c->ignored, c->nignored, sizeof *c->ignored,
		    conf_strcmp);
	conf_loading_init(&L, c);
	/* What every job of a file takes from the daemon must not differ. */
	if (prev != NULL && strcmp(prev->jobs_dir, c->jobs_dir) == 0 &&
	    strcmp(prev->timezone, c->timezone) == 0 &&
	    prev->strict_exec == c->strict_exec && prev->uid == c->uid &&
	    prev->gid == c->gid)
		L.prev = prev;
	for (i = 0; i < n; i++) {
		path = xasprintf("%s/%s", c->jobs_dir, names[i]);
		if (L.prev == NULL || (pf = conf_file_find(L.prev,
		    path)) == NULL || !conf_file_take(c, &L, pf))
			conf_load_job_file(c, &L, path, causes);
		free(path);
	}
	/* The taken jobs leave prev, which stays sorted. */
	for (i = 0; i < L.ntaken; i++)
		*L.taken[i] = NULL;
	if (L.ntaken > 0) {
		size_t k = 0;

		for (i = 0; i < prev->njobs; i++) {
			if (prev->jobs[i] != NULL)
				prev->jobs[k++] = prev->jobs[i];
		}
		prev->njobs = k;
	}
	free(L.taken);
	/* Ids are unique (the memo saw to it): sorted once, for conf_job. */
	if (c->njobs > 1)
		qsort(c->jobs, c->njobs, sizeof *c->jobs, conf_job_cmp);
	conf_loading_free(&L);
	conf_list_free(names, n);
}

/* Load the job files given, whatever their names, in that order. */
static void
conf_load_given(struct conf *c, char *const *files, size_t n,
    struct conf_causes *causes)
{
	struct conf_loading	L;
	size_t			i;

	conf_loading_init(&L, c);
	for (i = 0; i < n; i++)
		conf_load_job_file(c, &L, files[i], causes);
	if (c->njobs > 1)
		qsort(c->jobs, c->njobs, sizeof *c->jobs, conf_job_cmp);
	conf_loading_free(&L);
}

/*
 * The system's time zone name: $TZ if set (a leading ':' is dropped, as
 * glibc does), else the target of the /etc/localtime link below a
 * "zoneinfo/" directory, else /etc/timezone (Debian), else NULL.
 */
static char *
conf_system_zone(const char **from)
{
	const char	*tz = getenv("TZ"), *z;
	char		 link[PATH_MAX], line[256];
	ssize_t		 n;
	FILE		*f;

	*from = "TZ";
	if (tz != NULL && *tz != '\0')
		return xstrdup(tz[0] == ':' ? tz + 1 : tz);
	*from = "/etc/localtime";
	n = readlink("/etc/localtime", link, sizeof link - 1);
	if (n > 0) {
		link[n] = '\0';
		if ((z = strstr(link, "zoneinfo/")) != NULL)
			return xstrdup(z + strlen("zoneinfo/"));
	}
	*from = "/etc/timezone";
	if ((f = fopen("/etc/timezone", "re")) != NULL) {
		if (fgets(line, sizeof line, f) != NULL) {
			line[strcspn(line, " \t\n")] = '\0';
			if (line[0] != '\0') {
				(void)fclose(f);
				return xstrdup(line);
			}
		}
		(void)fclose(f);
	}
	return NULL;
}

/*
 * conf_load, conf_reload and conf_load_with: the load for a
 * daemon as uid; fn (or prev's answer) says what its jobs' limits may
 * use.
 */
static struct conf *
conf_read_all(const char *path, struct conf *prev, uid_t uid, gid_t gid,
    conf_controllers_fn fn, void *arg, char *const *only, size_t nonly,
    struct conf_causes *causes)
{
	struct conf_parse	 p;
	struct conf		*c = xcalloc(1, sizeof *c);
	struct envp		 unused;
	struct conf_sec		 empty, *daemon_sec = NULL;
	const char		*from;
	char			*buf = NULL, *dir, *slash, *cause = NULL, *where;
	size_t			 len, i, before = causes->n;
	int			 found = 0, mask, line;

	memset(&p, 0, sizeof p);
	memset(&empty, 0, sizeof empty);
	envp_init(&unused);
	c->path = xstrdup(path);
	c->uid = uid;
	c->gid = gid;
	c->tzc = tz_cache_new(NULL);
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	else {
		free(dir);
		dir = xstrdup(".");
	}

	/*
	 * Job files checked alone may come without a tickd.conf; else a
	 * missing one is said with where to point (the first thing a new
	 * user meets).
	 */
	if (access(path, F_OK) == -1 && errno == ENOENT) {
		if (nonly == 0) {
			conf_causes_add(causes, "%s: No such file or directory "
			    "(no configuration there: give its path with -c "
			    "FILE or TICKD_CONFIG; make install puts one at "
			    "%s)", path, CONF_DEFAULT_PATH);
			goto fail;
		}
		buf = xstrdup("");
		len = 0;
	} else if ((buf = conf_read_file(path, 0, uid, &len, NULL,
	    causes)) == NULL)
		goto fail;
	p.file = path;
	p.buf = buf;
	p.len = len;
	p.causes = causes;
	if (conf_parse_ini(&p) == -1)
		goto fail;
	for (i = 0; i < p.nsecs; i++) {
		if (strcmp(p.secs[i].name, "daemon") != 0) {
			conf_causes_add(causes, "%s:%d: [%.64s]: unknown "
			    "section (tickd.conf has only [daemon]; jobs go in "
			    "*.job files)", path, p.secs[i].line,
			    p.secs[i].name);
			continue;
		}
		if (found++) {
			conf_causes_add(causes, "%s:%d: [daemon]: the section "
			    "appears twice", path, p.secs[i].line);
			continue;
		}
		(void)conf_apply(CONF_SEC_DAEMON, &p.secs[i], c, dir, path,
		    &unused, causes);
		daemon_sec = &p.secs[i];
	}
	if (!found)		/* no [daemon]: every default */
		(void)conf_apply(CONF_SEC_DAEMON, &empty, c, dir, path,
		    &unused, causes);

	/* The default zone of jobs must exist; UTC only if truly unset. */
	if (c->timezone == NULL) {
		if ((c->timezone = conf_system_zone(&from)) == NULL)
			c->timezone = xstrdup("UTC");
		where = xasprintf("%s: timezone: unset, and the system's zone "
		    "(from %s)", path, from);
	} else
		where = xasprintf("%s:%d: timezone", path, daemon_sec != NULL ?
		    conf_key_line(daemon_sec, "timezone") : 0);
	if (tz_cache_get(c->tzc, c->timezone, &cause) == NULL) {
		conf_causes_add(causes, "%s: %s", where, cause);
		free(cause);
	}
	free(where);
	if (causes->n > before)
		goto fail;

	/* What the jobs' limits may use: asked once per daemon. */
	if (prev != NULL) {
		c->controllers_known = prev->controllers_known;
		c->controllers = prev->controllers;
		if (prev->tracking != NULL)
			c->tracking = xstrdup(prev->tracking);
	} else if (fn != NULL && (mask = fn(c, &c->tracking, arg)) >= 0) {
		c->controllers = (unsigned)mask;
		c->controllers_known = 1;
	}
	/* conf_key_line gives the section's line for a key left unset. */
	line = daemon_sec != NULL ? conf_key_line(daemon_sec, "jobs_dir") : 0;
	where = line > 0 && line != daemon_sec->line ?
	    xasprintf("%s:%d: jobs_dir", path, line) :
	    xasprintf("%s: jobs_dir", path);
	if (nonly > 0)
		conf_load_given(c, only, nonly, causes);
	else
		conf_load_jobs_dir(c, prev, where, causes);
	free(where);
	conf_parse_free(&p);
	envp_free(&unused);
	free(buf);
	free(dir);
	return c;

fail:
	conf_parse_free(&p);
	envp_free(&unused);
	free(buf);
	free(dir);
	conf_free(c);
	return NULL;
}

/*
 * Load tickd.conf at path and the jobs it points to.  Returns a new conf
 * (caller frees with conf_free) whose problems, if any, are in causes; or
 * NULL when tickd.conf itself is unusable.
 */
struct conf *
conf_load(const char *path, struct conf_causes *causes)
{
	return conf_reload(path, NULL, causes);
}

/*
 * conf_load as a daemon running as uid/gid would: files must be root's
 * or uid's, and only root's jobs may name any user; a job naming none
 * runs as uid (tickctl checks the configuration as the daemon that wrote
 * the store runs).  The jobs' resource limits are checked against what
 * fn says tickd can enforce (conf_controllers_fn; NULL: not checked).  A
 * conf_reload of the result keeps that answer.
 */
struct conf *
conf_load_with(const char *path, uid_t uid, gid_t gid, conf_controllers_fn fn,
    void *arg, struct conf_causes *causes)
{
	return conf_read_all(path, NULL, uid, gid, fn, arg, NULL, 0, causes);
}

/*
 * conf_load_with for the job files given (tickd -n FILE.job: an editor's,
 * a configuration repository's CI), not the jobs directory's; a missing
 * tickd.conf at path is [daemon]'s defaults.
 */
struct conf *
conf_load_files(const char *path, char *const *files, size_t n, uid_t uid,
    gid_t gid, conf_controllers_fn fn, void *arg, struct conf_causes *causes)
{
	return conf_read_all(path, NULL, uid, gid, fn, arg, files, n, causes);
}

/*
 * How many files the causes name: the distinct PATH of causes that begin
 * "PATH:LINE: " (tickctl status and check count "N problems in M files").
 */
size_t
conf_causes_files(const struct conf_causes *causes)
{
	const char	*p, *q, *other;
	size_t		 i, k, len, n = 0;

	for (i = 0; i < causes->n; i++) {
		/* The first ":digits:" ends the path. */
		for (p = causes->v[i]; (p = strchr(p, ':')) != NULL; p++) {
			for (q = p + 1; *q >= '0' && *q <= '9'; q++)
				;
			if (q > p + 1 && *q == ':')
				break;
		}
		if (p == NULL)
			continue;
		len = (size_t)(p - causes->v[i]);
		for (k = 0; k < i; k++) {
			other = causes->v[k];
			if (strncmp(other, causes->v[i], len) == 0 &&
			    other[len] == ':')
				break;
		}
		n += k == i;
	}
	return n;
}

/*
 * The jobs whose schedules end (a Quartz year field): when they fire for
 * the last time, or that they never fire again.
 */
static void
conf_check_last(const struct conf *c)
{
	const struct job_def	*d;
	char			 buf[RFC3339_BUFSZ];
	int64_t			 last;
	int32_t			 utoff;
	size_t			 i;

	for (i = 0; i < c->njobs; i++) {
		d = c->jobs[i];
		if (schedule_last(d->schedule, d->tz, d->gap, d->fold,
		    &last) == -1)
			continue;
		(void)tz_to_local(d->tz, last, &utoff);
		rfc3339_format(last, utoff, buf, sizeof buf);
		(void)printf("%s:%d: [%s] %s %s; then never (its years end "
		    "in %d)\n", d->file, d->line, d->id, last > time(NULL) ?
		    "last fires at" : "fired last at", buf,
		    cronexpr_last_year(schedule_cron(d->schedule)));
	}
}

/*
 * Validate a configuration as tickd -n and tickctl check do, as this
 * process's user: path (its jobs directory, or the job files given
 * instead), with fn as in conf_load_with.  Prints each cause on stderr,
 * "PROG: PATH is invalid" when nothing loads, the warnings ("warning:
 * ..."), then on stdout "WHAT: N jobs valid, N problems[, N warnings]"
 * and how jobs are tracked; *nwarnings (if not NULL) the warnings.
 * 0: valid, 1: problems, -1: invalid.
 */
int
conf_check_report(const char *prog, const char *path, char *const *files,
    size_t nfiles, conf_controllers_fn fn, void *arg, size_t *nwarnings)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct conf		*c;
	const char		*what;
	char			 many[64];
	size_t			 i;
	int			 rc;

	c = conf_read_all(path, NULL, geteuid(), getegid(), fn, arg,
	    nfiles > 0 ? files : NULL, nfiles, &causes);
	for (i = 0; i < causes.n; i++)
		(void)fprintf(stderr, "%s\n", causes.v[i]);
	if (c == NULL) {
		(void)fprintf(stderr, "%s: %s is invalid\n", prog, path);
		conf_causes_free(&causes);
		return -1;
	}
	/* Warnings do not make the configuration invalid. */
	for (i = 0; i < c->warnings.n; i++)
		(void)fprintf(stderr, "warning: %s\n", c->warnings.v[i]);
	if (nwarnings != NULL)
		*nwarnings = c->warnings.n;
	/* What was checked: tickd.conf, or the job files given. */
	(void)snprintf(many, sizeof many, "%zu job files", nfiles);
	what = nfiles == 0 ? path : nfiles == 1 ? files[0] : many;
	if (c->warnings.n > 0)
		(void)printf("%s: %zu jobs valid, %zu problems, %zu "
		    "warnings\n", what, c->njobs, causes.n, c->warnings.n);
	else
		(void)printf("%s: %zu jobs valid, %zu problems\n", what,
		    c->njobs, causes.n);
	if (c->tracking != NULL)
		(void)printf("jobs are tracked by %s\n", c->tracking);
	conf_check_last(c);
	rc = causes.n > 0 ? 1 : 0;
	conf_causes_free(&causes);
	conf_free(c);
	return rc;
}

/*
 * conf_load, taking from prev the jobs of the job files that have not
 * changed since prev read them (conf_file_take).  prev loses them.
 */
struct conf *
conf_reload(const char *path, struct conf *prev, struct conf_causes *causes)
{
	return conf_read_all(path, prev, geteuid(), getegid(), NULL, NULL,
	    NULL, 0, causes);
}

/*
 * Whether the job d of an older conf should keep its definition instead
 * of what c says: c left it out as invalid (or could not read the jobs
 * directory at all), or c defines its id more than once and the
 * definition c took (the first, in file name order) is from another file
 * than d's.  A section copied into a new file, say 00-new.job, must not
 * take over a running job of another file at a reload.  A job refused
 * only by strict_exec does not keep its definition: it would go on
 * running, as root, the program that is refused.
 */
int
conf_job_is_bad(const struct conf *c, const struct job_def *d)
{
	const struct job_def *n = conf_job(c, d->id);

	if (n != NULL)
		return conf_list_has(c->dup_ids, c->ndup_ids, d->id) &&
		    strcmp(n->file, d->file) != 0;
	if (conf_list_has(c->unsafe_ids, c->nunsafe_ids, d->id))
		return 0;
	return c->jobs_dir_failed ||
	    conf_list_has(c->bad_ids, c->nbad_ids, d->id) ||
	    conf_list_has(c->bad_files, c->nbad_files, d->file);
}

/*
 * Move job i of old into c (a reload keeps the previous good definition
 * of a job whose new one is invalid, or ambiguous), replacing c's own
 * definition of that id if it has one.  Its zone is looked up again in
 * c's cache; if that fails the job is dropped.
 */
void
conf_keep_job(struct conf *c, struct conf *old, size_t i)
{
	struct job_def	*d = old->jobs[i], *cur;
	struct conf_file *f;
	char		*cause = NULL;
	size_t		 k;

	memmove(&old->jobs[i], &old->jobs[i + 1],
	    (old->njobs - i - 1) * sizeof *old->jobs);
	old->njobs--;
	if (d->timezone != NULL &&
	    (d->tz = tz_cache_get(c->tzc, d->timezone, &cause)) == NULL) {
		free(cause);
		job_def_free(d);
		return;
	}
	if ((cur = conf_job(c, d->id)) != NULL) {
		/* Its file's record no longer lists live jobs only. */
		if ((f = conf_file_find(c, cur->file)) != NULL)
			f->reusable = 0;
		for (k = 0; c->jobs[k] != cur; k++)
			;
		memmove(&c->jobs[k], &c->jobs[k + 1],
		    (c->njobs - k - 1) * sizeof *c->jobs);
		c->njobs--;
		job_def_free(cur);
	}
	conf_job_insert(c, d);
}

/* Free a conf and all its jobs; NULL is allowed. */
void
conf_free(struct conf *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->njobs; i++)
		job_def_free(c->jobs[i]);
	free(c->jobs);
	for (i = 0; i < c->nfiles; i++) {	/* the jobs are not theirs */
		free(c->files[i].path);
		free(c->files[i].jobs);
	}
	free(c->files);
	conf_list_free(c->bad_where, c->nbad_ids);
	conf_list_free(c->bad_ids, c->nbad_ids);
	conf_list_free(c->bad_files, c->nbad_files);
	conf_list_free(c->ignored, c->nignored);
	conf_list_free(c->dup_ids, c->ndup_ids);
	conf_list_free(c->unsafe_ids, c->nunsafe_ids);
	conf_causes_free(&c->warnings);
	free(c->path);
	free(c->jobs_dir);
	free(c->state);
	free(c->timezone);
	free(c->control);
	free(c->metrics_listen);
	free(c->node);
	free(c->cgroup);
	free(c->tracking);
	tz_cache_free(c->tzc);
	free(c);
}

/*
 * What the daemon locks to be the only one (statelock.c): its database
 * file, or with a server's database, which nodes share, "<control>.node"
 * (one daemon per node).  Allocated.
 */
char *
conf_state_lock(const struct conf *c)
{
	if (store_is_server(c->state))
		return xasprintf("%s.node", c->control);
	return xstrdup(c->state);
}

/*
 * A hash of every valid job's definition (its id and def_hash, in id
 * order): nodes sharing a database compare theirs to find one whose job
 * files differ, then the jobs' own hashes (conf_job_hash) to say which.
 */
uint64_t
conf_defs_hash(const struct conf *c)
{
	uint64_t	h = CONF_HASH_INIT;
	char		hash[CONF_HASH_HEX];
	size_t		i;

	for (i = 0; i < c->njobs; i++) {
		conf_job_hash(c->jobs[i], hash);
		h = conf_hash(conf_hash(h, c->jobs[i]->id), hash);
	}
	return h;
}

/* A job's definition hash as the store keeps it: hex, NUL-terminated. */
void
conf_job_hash(const struct job_def *d, char hash[CONF_HASH_HEX])
{
	(void)snprintf(hash, CONF_HASH_HEX, "%016" PRIx64, d->def_hash);
}

/*
 * This host's name among the nodes of a server's database: [daemon]
 * node, else the host name.  Into buf.
 */
void
conf_node(const struct conf *c, char *buf, size_t len)
{
	if (c->node != NULL)
		(void)snprintf(buf, len, "%s", c->node);
	else if (gethostname(buf, len) == -1)
		(void)snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
}

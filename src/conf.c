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
 * Validation collects every problem as "file:line: key: message" and never
 * stops at the first.  Outcomes: a line inih rejects, an unreadable or
 * unsafe file (when root: not owned by root or writable by group/other, a
 * symbolic link) invalidates every job of that file; an unreadable jobs
 * directory invalidates every job; a bad value
 * invalidates only its job; an invalid tickd.conf makes conf_load return
 * NULL.  Values come from the table in conf_table.c, defaults included.
 *
 * DIAGNOSTICS: conf_load returns NULL (daemon file invalid) or a conf;
 * either way every problem is in the cause list.  Nothing is logged here.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <ini.h>

#include "conf.h"
#include "duration.h"
#include "envp.h"
#include "log.h"
#include "policy.h"
#include "schedule.h"
#include "xmalloc.h"

#define CONF_ID_MAX	48	/* inih keeps 50 bytes of a section name */

/* One "key = value" line (with its continuation lines joined). */
struct conf_kv {
	char	*key;
	char	*value;
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

/* Append a formatted message to a cause list. */
void
conf_causes_add(struct conf_causes *c, const char *fmt, ...)
{
	va_list ap;

	c->v = xreallocarray(c->v, c->n + 1, sizeof *c->v);
	va_start(ap, fmt);
	c->v[c->n++] = xvasprintf(fmt, ap);
	va_end(ap);
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

/*
 * Read a whole file.  With strict (tickd runs as root): no symbolic link,
 * owned by root, not writable by group or others.  Returns a NUL-terminated
 * buffer (caller frees) and its length, or NULL with a cause added.
 */
static char *
conf_read_file(const char *path, int nofollow, int strict, size_t *lenp,
    struct conf_causes *causes)
{
	struct stat	 st;
	char		*buf = NULL;
	size_t		 got = 0;
	ssize_t		 n;
	int		 fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
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
	if (strict && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		conf_causes_add(causes, "%s: refused: tickd runs as root and "
		    "the file must be owned by root and not writable by group "
		    "or others (owner uid %ld, mode %04o)", path,
		    (long)st.st_uid, (unsigned)(st.st_mode & 07777));
		goto fail;
	}
	if (st.st_size > CONF_FILE_MAX) {
		conf_causes_add(causes, "%s: larger than %d bytes", path,
		    CONF_FILE_MAX);
		goto fail;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	/* Read to EOF, but never past the size: the file may be growing. */
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
	buf[got] = '\0';
	(void)close(fd);
	*lenp = got;
	return buf;

fail:
	free(buf);
	(void)close(fd);
	return NULL;
}

/* Append an indented continuation line to the last key of the section. */
static void
conf_continue(struct conf_parse *p, const char *text, size_t len)
{
	struct conf_kv	*kv;
	char		*joined;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
	    text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	while (len > 0 && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	kv = &p->secs[p->nsecs - 1].kv[p->secs[p->nsecs - 1].nkv - 1];
	joined = xasprintf("%s\n%.*s", kv->value, (int)len, text);
	free(kv->value);
	kv->value = joined;
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
	size_t			 linelen, n;

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
		conf_causes_add(p->causes, "%s:%d: %s: the key is outside any "
		    "[section]", p->file, p->lineno, name);
		return 1;
	}
	sec = &p->secs[p->nsecs - 1];
	sec->kv = xreallocarray(sec->kv, sec->nkv + 1, sizeof *sec->kv);
	kv = &sec->kv[sec->nkv++];
	kv->key = xstrdup(name);
	kv->value = xstrdup(value);
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

/*
 * Set key k in the object at base from text v.  Returns 0, or -1 with
 * *cause set to a message (without file, line or key).
 */
static int
conf_set(const struct conf_key *k, void *base, const char *dir,
    const char *v, char **cause)
{
	char		*p = (char *)base + k->offset;
	char		*why = NULL, *end;
	int64_t		 n;
	long long	 ll;
	int		 b;
	struct schedule	*s;

	switch (k->type) {
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
		free(*(char **)p);
		*(char **)p = xstrdup(v);
		return 0;
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
		errno = 0;
		ll = strtoll(v, &end, 10);
		if (k->type == CONF_T_SIZE && end != v && ll >= 0 &&
		    ll < INT64_C(1) << 40 && *end != '\0') {
			/* A unit: k, M or G (binary), with an optional B/iB. */
			if (*end == 'k' || *end == 'K')
				ll *= 1024;
			else if (*end == 'M')
				ll *= 1024 * 1024;
			else if (*end == 'G')
				ll *= 1024 * 1024 * 1024;
			else
				goto size_bad;
			end++;
			if (strcmp(end, "B") == 0 || strcmp(end, "iB") == 0)
				end += strlen(end);
		}
	size_bad:
		if (errno != 0 || end == v || *end != '\0') {
			*cause = xasprintf(k->type == CONF_T_SIZE ? "\"%s\" is "
			    "not a size (examples: 512, 64k, 1M)" : "\"%s\" is "
			    "not a whole number", v);
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
		if ((s = schedule_parse(v, cause)) == NULL)
			return -1;
		schedule_free(*(struct schedule **)p);
		*(struct schedule **)p = s;
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
			conf_causes_add(causes, "%s:%d: %s: unknown key%s",
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
static int
conf_id_valid(const char *id)
{
	size_t n = strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-");

	return n > 0 && id[n] == '\0' && n <= CONF_ID_MAX;
}

/* Free a job definition; NULL is allowed. */
void
job_def_free(struct job_def *d)
{
	size_t i;

	if (d == NULL)
		return;
	free(d->id);
	free(d->file);
	free(d->where);
	free(d->description);
	schedule_free(d->schedule);
	free(d->timezone);
	free(d->command);
	free(d->user);
	free(d->group);
	priv_cred_free(&d->cred);
	free(d->workdir);
	free(d->retry_on_exit);
	free(d->on_failure);
	for (i = 0; i < d->nenv; i++)
		free(d->env[i]);
	free(d->env);
	free(d);
}

/*
 * Build and validate the job of one section.  Returns the job, or NULL
 * when it has any problem (each one added to causes).
 */
static struct job_def *
conf_job_build(struct conf *c, const char *file, const struct conf_sec *s,
    struct conf_causes *causes)
{
	struct job_def	*d = xcalloc(1, sizeof *d);
	struct envp	 env;
	const char	*zone, *key;
	char		*cause = NULL, buf[32];
	size_t		 i;
	int		 bad, rc;

	envp_init(&env);
	d->id = xstrdup(s->name);
	d->file = xstrdup(file);
	d->line = s->line;
	bad = conf_apply(CONF_SEC_JOB, s, d, NULL, file, &env, causes);

	for (i = 0; i < conf_nkeys; i++) {
		if (conf_keys[i].section == CONF_SEC_JOB &&
		    conf_keys[i].required &&
		    *(void **)((char *)d + conf_keys[i].offset) == NULL &&
		    conf_key_line(s, conf_keys[i].name) == s->line) {
			conf_causes_add(causes, "%s:%d: %s: missing: job \"%s\" "
			    "needs a %s", file, s->line, conf_keys[i].name,
			    s->name, conf_keys[i].name);
			bad++;
		}
	}

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
	if (d->timezone == NULL && zone != NULL)
		d->timezone = xstrdup(zone);

	/* The credentials: resolved now, never between fork and exec. */
	if ((rc = priv_lookup(d->user, d->group, &d->cred, &cause)) != 0) {
		key = rc == -2 ? "group" : "user";
		conf_causes_add(causes, "%s:%d: %s: %s", file,
		    conf_key_line(s, key), key, cause);
		free(cause);
		bad++;
	}

	d->nenv = env.n;
	d->env = env.v;		/* the vector moves into the job */
	env.v = NULL;
	if (d->retry_on_exit != NULL && policy_exit_codes_parse(
	    d->retry_on_exit, d->retry_codes, &d->retry_any, &cause) == -1) {
		free(cause);	/* checked by conf_set already */
		bad++;
	}

	if (bad) {
		job_def_free(d);
		return NULL;
	}
	/*
	 * What decides the instants.  "enabled" is in: a job enabled again
	 * starts afresh, with no instances from while it was disabled.
	 */
	(void)snprintf(buf, sizeof buf, "%d", d->enabled);
	d->sched_hash = conf_hash(conf_hash(conf_hash(conf_hash(conf_hash(
	    CONF_HASH_INIT, schedule_text(d->schedule)), d->timezone),
	    tz_gap_name(d->gap)), tz_fold_name(d->fold)), buf);
	d->def_hash = d->sched_hash;
	for (i = 0; i < s->nkv; i++) {
		d->def_hash = conf_hash(d->def_hash, s->kv[i].key);
		d->def_hash = conf_hash(d->def_hash, s->kv[i].value);
	}
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

/* Load one job file into c. */
static void
conf_load_job_file(struct conf *c, const char *path, int strict,
    struct conf_causes *causes)
{
	struct conf_parse	 p;
	struct job_def		*d, *other;
	size_t			 len, i;
	ssize_t			 k;
	char			*buf, *where;

	memset(&p, 0, sizeof p);
	if ((buf = conf_read_file(path, strict, strict, &len,
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
			conf_causes_add(causes, "%s:%d: [%s]: a job id is 1-%d "
			    "characters of A-Z a-z 0-9 _ . -", path,
			    p.secs[i].line, p.secs[i].name, CONF_ID_MAX);
			continue;
		}
		where = xasprintf("%s:%d", path, p.secs[i].line);
		if ((other = conf_job(c, p.secs[i].name)) != NULL ||
		    (k = conf_list_find(c->bad_ids, c->nbad_ids,
		    p.secs[i].name)) != -1) {
			conf_causes_add(causes, "%s: [%s]: duplicate job id "
			    "(also defined at %s)", where, p.secs[i].name,
			    other != NULL ? other->where : c->bad_where[k]);
			free(where);
			continue;
		}
		if ((d = conf_job_build(c, path, &p.secs[i], causes)) == NULL) {
			conf_list_add(&c->bad_ids, &c->nbad_ids,
			    p.secs[i].name);
			c->bad_where = xreallocarray(c->bad_where, c->nbad_ids,
			    sizeof *c->bad_where);
			c->bad_where[c->nbad_ids - 1] = where;
		} else {
			d->where = where;
			conf_job_insert(c, d);
		}
	}
out:
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

/* Load every *.job file of the jobs directory, in name order. */
static void
conf_load_jobs_dir(struct conf *c, int strict, struct conf_causes *causes)
{
	DIR		 *dir;
	struct dirent	 *de;
	char		**names = NULL, *path;
	size_t		  n = 0, i;

	if ((dir = opendir(c->jobs_dir)) == NULL) {
		conf_causes_add(causes, "%s: jobs_dir: %s", c->jobs_dir,
		    strerror(errno));
		c->jobs_dir_failed = 1;
		return;
	}
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
	for (i = 0; i < n; i++) {
		path = xasprintf("%s/%s", c->jobs_dir, names[i]);
		conf_load_job_file(c, path, strict, causes);
		free(path);
	}
	conf_list_free(names, n);
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
 * Load tickd.conf at path and the jobs it points to.  Returns a new conf
 * (caller frees with conf_free) whose problems, if any, are in causes; or
 * NULL when tickd.conf itself is unusable.
 */
struct conf *
conf_load(const char *path, struct conf_causes *causes)
{
	struct conf_parse	 p;
	struct conf		*c = xcalloc(1, sizeof *c);
	struct envp		 unused;
	struct conf_sec		 empty, *daemon_sec = NULL;
	const char		*from;
	char			*buf = NULL, *dir, *slash, *cause = NULL, *where;
	size_t			 len, i, before = causes->n;
	int			 strict = geteuid() == 0, found = 0;

	memset(&p, 0, sizeof p);
	memset(&empty, 0, sizeof empty);
	envp_init(&unused);
	c->path = xstrdup(path);
	c->tzc = tz_cache_new(NULL);
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	else {
		free(dir);
		dir = xstrdup(".");
	}

	if ((buf = conf_read_file(path, 0, strict, &len, causes)) == NULL)
		goto fail;
	p.file = path;
	p.buf = buf;
	p.len = len;
	p.causes = causes;
	if (conf_parse_ini(&p) == -1)
		goto fail;
	for (i = 0; i < p.nsecs; i++) {
		if (strcmp(p.secs[i].name, "daemon") != 0) {
			conf_causes_add(causes, "%s:%d: [%s]: unknown section "
			    "(tickd.conf has only [daemon]; jobs go in %s)",
			    path, p.secs[i].line, p.secs[i].name, "*.job files");
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

	conf_load_jobs_dir(c, strict, causes);
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
 * Whether the job d of an older conf was left out of c as invalid (or
 * because the jobs directory could not be read at all).
 */
int
conf_job_is_bad(const struct conf *c, const struct job_def *d)
{
	return conf_job(c, d->id) == NULL && (c->jobs_dir_failed ||
	    conf_list_has(c->bad_ids, c->nbad_ids, d->id) ||
	    conf_list_has(c->bad_files, c->nbad_files, d->file));
}

/*
 * Move job i of old into c (a reload keeps the previous good definition
 * of a job whose new one is invalid).  Its zone is looked up again in c's
 * cache; if that fails the job is dropped.
 */
void
conf_keep_job(struct conf *c, struct conf *old, size_t i)
{
	struct job_def	*d = old->jobs[i];
	char		*cause = NULL;

	memmove(&old->jobs[i], &old->jobs[i + 1],
	    (old->njobs - i - 1) * sizeof *old->jobs);
	old->njobs--;
	if (d->timezone != NULL &&
	    (d->tz = tz_cache_get(c->tzc, d->timezone, &cause)) == NULL) {
		free(cause);
		job_def_free(d);
		return;
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
	conf_list_free(c->bad_where, c->nbad_ids);
	conf_list_free(c->bad_ids, c->nbad_ids);
	conf_list_free(c->bad_files, c->nbad_files);
	conf_list_free(c->ignored, c->nignored);
	free(c->path);
	free(c->jobs_dir);
	free(c->state);
	free(c->timezone);
	free(c->control);
	tz_cache_free(c->tzc);
	free(c);
}

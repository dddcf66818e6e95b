/*
 * ctl-fmt.c -- formatting for people, shared by the tickctl commands.
 *
 * Tables: rows of strings, the first one the header, printed with each
 * column as wide as its widest cell (counted in characters, not bytes),
 * two spaces apart, the last column unpadded.  Times: an instant is shown
 * in a job's zone as "2027-03-14 03:00:00 EDT" and in UTC as RFC 3339
 * ("2027-03-14T07:00:00Z"), never in the machine's zone.  Durations:
 * "850ms" below a second, "1.2s" below a minute, "1m32s" (duration.c)
 * above; lateness gets a sign ("+1.2s").
 *
 * Text from jobs and files (output, error messages, descriptions,
 * commands) goes through ctl_fmt_vis before it reaches a terminal: control
 * characters, C1 controls and bytes that are not UTF-8 are shown as \xHH,
 * so no job can send escape sequences to the terminal of whoever runs
 * tickctl.
 *
 * DIAGNOSTICS: the parsers return -1 (with *cause where there is one);
 * ctl_table_print returns -1 when stdout fails.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "civil.h"
#include "ctl-fmt.h"
#include "ctl-json.h"
#include "duration.h"
#include "rfc3339.h"
#include "tz.h"
#include "xmalloc.h"

/* An empty table of ncols columns. */
void
ctl_table_init(struct ctl_table *t, size_t ncols)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols;
}

/* Add a row of t->ncols cells (copied; NULL is shown as "-"). */
void
ctl_table_rowv(struct ctl_table *t, const char *const *cells)
{
	size_t i;

	t->cells = xreallocarray(t->cells, (t->nrows + 1) * t->ncols,
	    sizeof *t->cells);
	for (i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = xstrdup(cells[i] != NULL ?
		    cells[i] : "-");
	t->nrows++;
}

/* Add a row: t->ncols string arguments. */
void
ctl_table_row(struct ctl_table *t, ...)
{
	const char	**cells = xcalloc(t->ncols, sizeof *cells);
	va_list		  ap;
	size_t		  i;

	va_start(ap, t);
	for (i = 0; i < t->ncols; i++)
		cells[i] = va_arg(ap, const char *);
	va_end(ap);
	ctl_table_rowv(t, cells);
	free(cells);
}

/* The display width of s: its characters (UTF-8 sequences count one). */
size_t
ctl_fmt_width(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 n = strlen(s), i = 0, w = 0, k, bad;

	while (i < n) {
		k = ctl_json_utf8(p + i, n - i, &bad);
		i += k > 0 ? k : bad;
		w++;
	}
	return w;
}

/*
 * Print t with aligned columns, each line prefixed by indent (NULL: none).
 * Returns 0, or -1 when stdout fails.
 */
int
ctl_table_print(const struct ctl_table *t, const char *indent)
{
	size_t	*w, r, c, cw, pad, last;
	int	 rc = 0;

	if (t->nrows == 0)
		return 0;
	w = xcalloc(t->ncols, sizeof *w);
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			cw = ctl_fmt_width(t->cells[r * t->ncols + c]);
			if (cw > w[c])
				w[c] = cw;
		}
	}
	for (r = 0; r < t->nrows && rc == 0; r++) {
		if (indent != NULL && fputs(indent, stdout) == EOF)
			rc = -1;
		/* Empty cells at the end of a row: no trailing blanks. */
		for (last = t->ncols; last > 1 &&
		    t->cells[r * t->ncols + last - 1][0] == '\0'; last--)
			;
		for (c = 0; c < last && rc == 0; c++) {
			if (fputs(t->cells[r * t->ncols + c], stdout) == EOF)
				rc = -1;
			if (c + 1 == last)
				break;
			pad = w[c] - ctl_fmt_width(t->cells[r * t->ncols + c]) +
			    2;
			while (pad-- > 0 && rc == 0)
				if (putchar(' ') == EOF)
					rc = -1;
		}
		if (putchar('\n') == EOF)
			rc = -1;
	}
	free(w);
	return rc;
}

/* Free the cells of a table. */
void
ctl_table_free(struct ctl_table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof *t);
}

/*
 * A duration in milliseconds for people: "850ms", "1.2s", "1m32s"
 * (truncated, not rounded); -1 is "-".
 */
void
ctl_fmt_ms(int64_t ms, char *buf, size_t len)
{
	char	d[DURATION_BUFSZ];
	int	neg = ms < 0;

	if (ms == -1) {
		(void)snprintf(buf, len, "-");
		return;
	}
	if (neg)
		ms = ms == INT64_MIN ? INT64_MAX : -ms;
	if (ms < 1000)
		(void)snprintf(buf, len, "%s%lldms", neg ? "-" : "",
		    (long long)ms);
	else if (ms < 60000)
		(void)snprintf(buf, len, "%s%lld.%llds", neg ? "-" : "",
		    (long long)(ms / 1000), (long long)(ms % 1000 / 100));
	else {
		duration_format(ms / 1000, d, sizeof d);
		(void)snprintf(buf, len, "%s%s", neg ? "-" : "", d);
	}
}

/*
 * CPU time in microseconds for people: "0.4ms" below a millisecond,
 * else as ctl_fmt_ms; -1 is "-".
 */
void
ctl_fmt_cpu(int64_t us, char *buf, size_t len)
{
	if (us >= 0 && us < 1000)
		(void)snprintf(buf, len, "0.%lldms", (long long)(us / 100));
	else
		ctl_fmt_ms(us == -1 ? -1 : us / 1000, buf, len);
}

/*
 * A size in bytes for people, in powers of 1024 as the limits take them:
 * "812K", "45.2M", "1.5G" (truncated); -1 is "-".
 */
void
ctl_fmt_bytes(int64_t b, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int64_t	scale = 1024;
	int	u = 0;

	if (b < 0) {
		(void)snprintf(buf, len, "-");
		return;
	}
	if (b < 1024) {
		(void)snprintf(buf, len, "%lldB", (long long)b);
		return;
	}
	while (b / scale >= 1024 && u < 5) {
		scale *= 1024;
		u++;
	}
	if (b / scale >= 100)
		(void)snprintf(buf, len, "%lld%c", (long long)(b / scale),
		    units[u]);
	else
		(void)snprintf(buf, len, "%lld.%lld%c", (long long)(b / scale),
		    (long long)(b % scale * 10 / scale), units[u]);
}

/* A lateness in milliseconds with its sign: "+1.2s", "-300ms"; -1: "-". */
void
ctl_fmt_lateness(int64_t ms, char *buf, size_t len)
{
	char d[CTL_FMT_BUFSZ];

	if (ms == -1) {
		(void)snprintf(buf, len, "-");
		return;
	}
	ctl_fmt_ms(ms, d, sizeof d);
	(void)snprintf(buf, len, "%s%s", ms >= 0 ? "+" : "", d);
}

/* Instant t (s) in zone z: "2027-03-14 03:00:00 EDT"; -1: "-". */
void
ctl_fmt_local(int64_t t, const struct tz *z, char *buf, size_t len)
{
	struct tz_period	p;
	struct civil		c;
	int32_t			off;

	if (t == -1) {
		(void)snprintf(buf, len, "-");
		return;
	}
	civil_split(tz_to_local(z, t, &off), &c);
	tz_period_at(z, t, &p);
	(void)snprintf(buf, len, "%04lld-%02d-%02d %02d:%02d:%02d %s",
	    (long long)c.year, c.month, c.day, c.hour, c.min, c.sec,
	    p.abbr[0] != '\0' ? p.abbr : "UTC");
}

/* Instant t (s) in UTC, RFC 3339: "2027-03-14T07:00:00Z"; -1: "-". */
void
ctl_fmt_utc(int64_t t, char *buf, size_t len)
{
	if (t == -1) {
		(void)snprintf(buf, len, "-");
		return;
	}
	rfc3339_format_utc(t, buf, len);
}

/*
 * How long ago moment ms was at now_ms, in at most two units: "3m10s
 * ago", "2d4h ago", "in 5m"; "now" within a second; -1 is "-".
 */
void
ctl_fmt_ago(int64_t now_ms, int64_t ms, char *buf, size_t len)
{
	static const struct { char u; int64_t s; } units[] = {
		{ 'd', 86400 }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 }
	};
	char	d[CTL_FMT_BUFSZ];
	int64_t	s, v;
	size_t	i, off = 0, shown = 0;
	int	n;

	if (ms == -1) {
		(void)snprintf(buf, len, "-");
		return;
	}
	s = (now_ms - ms) / 1000;
	if (s == 0) {
		(void)snprintf(buf, len, "now");
		return;
	}
	d[0] = '\0';
	v = s < 0 ? -s : s;
	for (i = 0; i < sizeof units / sizeof units[0] && shown < 2; i++) {
		if (v < units[i].s && shown == 0)
			continue;
		n = snprintf(d + off, sizeof d - off, "%lld%c",
		    (long long)(v / units[i].s), units[i].u);
		if (n < 0 || (size_t)n >= sizeof d - off)
			break;
		off += (size_t)n;
		v %= units[i].s;
		shown++;
		if (v == 0)
			break;
	}
	if (s > 0)
		(void)snprintf(buf, len, "%s ago", d);
	else
		(void)snprintf(buf, len, "in %s", d);
}

/* How a process ended: "exit 3", "signal 9 (KILL)", or "-". */
void
ctl_fmt_exit(int exit_status, int sig, char *buf, size_t len)
{
	const char *name;

	if (sig > 0) {
		name = sigabbrev_np(sig);
		if (name != NULL)
			(void)snprintf(buf, len, "signal %d (%s)", sig, name);
		else
			(void)snprintf(buf, len, "signal %d", sig);
	} else if (exit_status >= 0)
		(void)snprintf(buf, len, "exit %d", exit_status);
	else
		(void)snprintf(buf, len, "-");
}

/*
 * The n bytes at s made safe for a terminal (caller frees): printable
 * ASCII and well-formed UTF-8 are kept, and tab; newline too when
 * keep_nl, else it is "\n"; anything else is "\xHH" (C0 and C1 controls,
 * DEL, bytes that are not UTF-8).
 */
char *
ctl_fmt_vis(const char *s, size_t n, int keep_nl)
{
	const unsigned char	*p = (const unsigned char *)s;
	char			*out = xmalloc(n * 4 + 1), *o = out;
	size_t			 i = 0, k, bad, j;

	while (i < n) {
		if (p[i] == '\n' && keep_nl) {
			*o++ = '\n';
			i++;
			continue;
		}
		if ((p[i] >= 0x20 && p[i] < 0x7f) || p[i] == '\t') {
			*o++ = (char)p[i++];
			continue;
		}
		if (p[i] == '\n') {
			*o++ = '\\';
			*o++ = 'n';
			i++;
			continue;
		}
		k = p[i] >= 0x80 ? ctl_json_utf8(p + i, n - i, &bad) : 0;
		/* C2 80 - C2 9F are the C1 controls (U+0080 - U+009F). */
		if (k > 0 && !(k == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) {
			memcpy(o, p + i, k);
			o += k;
			i += k;
			continue;
		}
		for (j = 0; j < (k > 0 ? k : 1); j++) {
			(void)sprintf(o, "\\x%02x", p[i + j]);
			o += 4;
		}
		i += k > 0 ? k : 1;
	}
	*o = '\0';
	return out;
}

/* The bytes of the one character or escape of ctl_fmt_vis at p. */
static size_t
ctl_fmt_vis_len(const unsigned char *p)
{
	if (p[0] == '\\' && p[1] == 'x' && p[2] != '\0' && p[3] != '\0')
		return 4;
	if (p[0] == '\\' && p[1] == 'n')
		return 2;
	if (p[0] >= 0xf0)
		return 4;
	if (p[0] >= 0xe0)
		return 3;
	if (p[0] >= 0xc0)
		return 2;
	return 1;
}

/*
 * The first line of the n bytes at s made safe as by ctl_fmt_vis, at
 * most max bytes (caller frees): a longer one is cut between characters
 * and ends in "..." within max.
 */
char *
ctl_fmt_clip(const char *s, size_t n, size_t max)
{
	const char	*nl;
	char		*vis;
	size_t		 len, off = 0, k;

	if ((nl = memchr(s, '\n', n)) != NULL)
		n = (size_t)(nl - s);
	vis = ctl_fmt_vis(s, n, 0);
	if ((len = strlen(vis)) <= max)
		return vis;
	if (max < 3) {
		vis[0] = '\0';
		return vis;
	}
	/* Whole characters up to max - 3 bytes, then "...". */
	while (off < len) {
		k = ctl_fmt_vis_len((const unsigned char *)vis + off);
		if (off + k > max - 3)
			break;
		off += k;
	}
	(void)memcpy(vis + off, "...", 4);
	return vis;
}

/* Elapsed time for a progress line: "45s", "1m03s", "2h05m09s". */
void
ctl_fmt_elapsed(int64_t ms, char *buf, size_t len)
{
	long long s = ms < 0 ? 0 : (long long)(ms / 1000);

	if (s < 60)
		(void)snprintf(buf, len, "%llds", s);
	else if (s < 3600)
		(void)snprintf(buf, len, "%lldm%02llds", s / 60, s % 60);
	else
		(void)snprintf(buf, len, "%lldh%02lldm%02llds", s / 3600,
		    s % 3600 / 60, s % 60);
}

/*
 * The status of a history entry for people: "failed (exit)"; a batch
 * instance's says what its shards did: "succeeded, 16 shards", "failed:
 * 2 of 16 shards", "running: 9 of 16 shards done", with its reason when
 * it is not "shards" ("failed: 3 of 16 shards (batch_timeout)").
 */
void
ctl_fmt_status(const struct store_query_run *r, char *buf, size_t len)
{
	const struct store_query_shards	*c = &r->shards;
	const char			*why = r->reason;
	char				 head[CTL_FMT_BUFSZ];

	if (!r->batch || c->total == 0 || r->status == NULL) {
		(void)snprintf(buf, len, "%s%s%s%s", r->status != NULL ?
		    r->status : "-", why != NULL ? " (" : "",
		    why != NULL ? why : "", why != NULL ? ")" : "");
		return;
	}
	if (strcmp(r->status, "succeeded") == 0)
		(void)snprintf(head, sizeof head, "succeeded, %lld shard%s",
		    (long long)c->total, c->total == 1 ? "" : "s");
	else if (strcmp(r->status, "running") == 0)
		(void)snprintf(head, sizeof head, "running: %lld of %lld "
		    "shard%s done", (long long)c->succeeded,
		    (long long)c->total, c->total == 1 ? "" : "s");
	else if (strcmp(r->status, "failed") == 0 ||
	    strcmp(r->status, "dead") == 0 ||
	    strcmp(r->status, "terminated") == 0)
		(void)snprintf(head, sizeof head, "%s: %lld of %lld shard%s",
		    r->status, (long long)c->failed, (long long)c->total,
		    c->total == 1 ? "" : "s");
	else
		(void)snprintf(head, sizeof head, "%s, %lld shard%s",
		    r->status, (long long)c->total, c->total == 1 ? "" : "s");
	if (why != NULL && strcmp(why, "shards") == 0)
		why = NULL;
	(void)snprintf(buf, len, "%s%s%s%s", head, why != NULL ? " (" : "",
	    why != NULL ? why : "", why != NULL ? ")" : "");
}

/*
 * A batch's progress: "16 shards: 9 done, 4 running, 1 failed, 2
 * waiting, 1m03s" (elapsed_ms -1: without the time).
 */
void
ctl_fmt_progress(const struct store_query_shards *c, int64_t elapsed_ms,
    char *buf, size_t len)
{
	char el[CTL_FMT_BUFSZ];

	el[0] = '\0';
	if (elapsed_ms != -1) {
		(void)snprintf(el, sizeof el, ", ");
		ctl_fmt_elapsed(elapsed_ms, el + 2, sizeof el - 2);
	}
	(void)snprintf(buf, len, "%lld shard%s: %lld done, %lld running, "
	    "%lld failed, %lld waiting%s", (long long)c->total,
	    c->total == 1 ? "" : "s", (long long)c->succeeded,
	    (long long)c->running, (long long)c->failed,
	    (long long)c->waiting, el);
}

/*
 * What --wait writes about a batch's progress at now_ms (counts c,
 * elapsed_ms since the instance started) into buf: 1 when there is
 * something to write, 0 when not.  At most once a second: on a terminal
 * one line rewritten ("\r16 shards: ..., 1m03s", blanks over what is
 * left of a longer one); otherwise a line ending in a newline each time
 * the counts change.
 */
int
ctl_progress_step(struct ctl_progress *p, const struct store_query_shards *c,
    int64_t elapsed_ms, int64_t now_ms, char *buf, size_t len)
{
	char	line[256];
	size_t	w;

	if (p->shown && now_ms - p->last_ms < 1000)
		return 0;
	if (!p->tty && p->shown && memcmp(c, &p->last, sizeof *c) == 0)
		return 0;
	if (p->tty) {
		ctl_fmt_progress(c, elapsed_ms, line, sizeof line);
		w = strlen(line);
		(void)snprintf(buf, len, "\r%s%*s", line, p->width > w ?
		    (int)(p->width - w) : 0, "");
		p->width = w;
	} else {
		ctl_fmt_progress(c, -1, line, sizeof line);
		(void)snprintf(buf, len, "%s\n", line);
	}
	p->shown = 1;
	p->last_ms = now_ms;
	p->last = *c;
	return 1;
}

/* What ends the progress of --wait: a newline after a live line. */
int
ctl_progress_end(struct ctl_progress *p, char *buf, size_t len)
{
	if (!p->tty || !p->shown)
		return 0;
	(void)snprintf(buf, len, "\n");
	p->shown = 0;
	return 1;
}

/*
 * --since: an RFC 3339 instant, or a duration meaning that long before
 * now_ms ("2h": two hours ago).  Sets *out (Unix seconds); -1 with
 * *cause.
 */
int
ctl_parse_since(const char *text, int64_t now_ms, int64_t *out, char **cause)
{
	char	*why = NULL;
	int64_t	 d;

	if (rfc3339_parse(text, out, &why) == 0)
		return 0;
	free(why);
	why = NULL;
	if (duration_parse(text, &d, &why) == 0) {
		*out = now_ms / 1000 - d;
		return 0;
	}
	free(why);
	*cause = xasprintf("\"%s\" is neither a duration nor an RFC 3339 "
	    "timestamp (examples: 2h, 7d, 2027-03-14T07:00:00Z)", text);
	return -1;
}

/* A whole number from min to max into *out; 0, or -1. */
int
ctl_parse_count(const char *text, long min, long max, long *out)
{
	char	*end;
	long	 v;

	if (text[0] < '0' || text[0] > '9')
		return -1;
	v = strtol(text, &end, 10);
	if (*end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

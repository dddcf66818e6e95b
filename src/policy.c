/*
 * policy.c -- pure scheduling decisions.
 *
 * policy_due partitions the instances of a job that are due: those found
 * more than misfire_grace late are misfires and go to the misfire policy
 * (run_once: the newest of all due instances runs and the others are one
 * "coalesced" range; catch_up: the newest catch_up_limit misfires run,
 * oldest first, older ones are one "catch_up_limit" range; skip: they are
 * one "misfire" range); on-time instances are listed for the overlap
 * policy, which the daemon applies because it depends on what runs.
 *
 * policy_random_delay spreads a job's instances over a window without
 * state: the delay is a hash of (machine id, job, scheduled instant), so
 * it is the same after a reload or a restart, differs between machines
 * and jobs, and is capped so that an instance never starts at or after
 * the job's next instance.
 *
 * policy_scan finds the instances of a job that are due: from its next
 * planned instant through now.  They are summarised as a range (first,
 * last, count), never listed, so a job every second that was down for a
 * month costs one pass and no memory; the count stops at POLICY_SCAN_MAX.
 *
 * policy_shards_list and policy_shards_from make the shard list of a
 * batch (shards = N or a list; a shards_from command's output) in the
 * form recorded with its instance: one parameter per line.
 *
 * DIAGNOSTICS: none; pure functions.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mix.h"
#include "policy.h"
#include "xmalloc.h"

static const char *const policy_overlap_names[] = {
	"skip", "queue", "allow", "replace"
};
static const char *const policy_misfire_names[] = {
	"run_once", "catch_up", "skip"
};
static const char *const policy_recover_names[] = { "rerun", "abandon" };

/* Look a word up in a name table; its index, or -1. */
static int
policy_lookup(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(names[i], s) == 0)
			return (int)i;
	}
	return -1;
}

#define POLICY_PARSER(what)						\
int									\
policy_##what##_parse(const char *s, int *out)				\
{									\
	int v = policy_lookup(policy_##what##_names,			\
	    sizeof policy_##what##_names / sizeof policy_##what##_names[0], \
	    s);								\
									\
	if (v == -1)							\
		return -1;						\
	*out = v;							\
	return 0;							\
}									\
									\
const char *								\
policy_##what##_name(int v)						\
{									\
	if (v < 0 || (size_t)v >= sizeof policy_##what##_names /	\
	    sizeof policy_##what##_names[0])				\
		return "?";						\
	return policy_##what##_names[v];				\
}

/* Parsers and names of the overlap, misfire and recover policies. */
POLICY_PARSER(overlap)
POLICY_PARSER(misfire)
POLICY_PARSER(recover)

/* Parse a signal: TERM, SIGTERM or a number 1-64; 0 or -1. */
int
policy_signal_parse(const char *s, int *out)
{
	static const struct {
		const char	*name;
		int		 sig;
	} sigs[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
		{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
		{ "TERM", SIGTERM }, { "ALRM", SIGALRM }, { "CONT", SIGCONT },
		{ "STOP", SIGSTOP }, { "TSTP", SIGTSTP }, { "WINCH", SIGWINCH },
		{ "PWR", SIGPWR },
	};
	char	*end;
	long	 v;
	size_t	 i;

	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		if (strcasecmp(s, sigs[i].name) == 0) {
			*out = sigs[i].sig;
			return 0;
		}
	}
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || v < 1 || v > 64)
		return -1;
	*out = (int)v;
	return 0;
}

/*
 * Parse retry_on_exit: "any", or a comma list of exit codes 1-255.
 * Returns 0 with the bit set of codes (or *any), or -1 with *cause set.
 */
int
policy_exit_codes_parse(const char *s, uint8_t bits[32], int *any,
    char **cause)
{
	const char	*p = s;
	char		*end;
	long		 v;

	memset(bits, 0, 32);
	*any = 0;
	if (strcmp(s, "any") == 0) {
		*any = 1;
		return 0;
	}
	for (;;) {
		while (*p == ' ')
			p++;
		v = strtol(p, &end, 10);
		if (end == p || v < 1 || v > 255) {
			*cause = xasprintf("\"%s\" is not \"any\" or a list of "
			    "exit codes 1-255", s);
			return -1;
		}
		bits[v / 8] |= (uint8_t)(1 << (v % 8));
		p = end;
		while (*p == ' ')
			p++;
		if (*p == '\0')
			return 0;
		if (*p++ != ',') {
			*cause = xasprintf("\"%s\" is not \"any\" or a list of "
			    "exit codes 1-255", s);
			return -1;
		}
	}
}

/* Append one parameter and its newline to *out (len, cap). */
static void
policy_shard_add(char **out, size_t *len, size_t *cap, const char *p,
    size_t n)
{
	if (*len + n + 2 > *cap) {
		*cap = (*len + n + 2) * 2;
		*out = xreallocarray(*out, *cap, 1);
	}
	memcpy(*out + *len, p, n);
	*len += n;
	(*out)[(*len)++] = '\n';
	(*out)[*len] = '\0';
}

/* The list's last newline goes: "a\nb", as recorded. */
static int
policy_shards_done(char *out, size_t len, int n)
{
	if (len > 0)
		out[len - 1] = '\0';
	return n;
}

/*
 * The shards of `shards = N` (indexes 0..N-1, each its own parameter) or
 * `shards = a, b, c` (items trimmed; none empty, none repeated), one
 * parameter per line in *out (allocated).  Returns how many, or -1 with
 * *cause.
 */
int
policy_shards_list(const char *spec, char **out, char **cause)
{
	const char	*p = spec, *q, *e;
	char		*end, num[24];
	size_t		 len = 0, cap = 0, i, k;
	long		 v;
	int		 n = 0;

	*out = NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	v = strtol(p, &end, 10);
	if (end != p && end[strspn(end, " \t")] == '\0') {
		if (v < 1 || v > POLICY_SHARDS_MAX) {
			*cause = xasprintf("%ld shards: from 1 to %d", v,
			    POLICY_SHARDS_MAX);
			return -1;
		}
		for (i = 0; i < (size_t)v; i++) {
			k = (size_t)snprintf(num, sizeof num, "%zu", i);
			policy_shard_add(out, &len, &cap, num, k);
		}
		return policy_shards_done(*out, len, (int)v);
	}
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		q = strchr(p, ',');
		e = q != NULL ? q : p + strlen(p);
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e == p) {
			*cause = xasprintf("\"%s\": an empty shard in the "
			    "list", spec);
			goto fail;
		}
		if ((size_t)(e - p) > POLICY_SHARD_MAX) {
			*cause = xasprintf("shard %d: longer than %d bytes", n,
			    POLICY_SHARD_MAX);
			goto fail;
		}
		if (++n > POLICY_SHARDS_MAX) {
			*cause = xasprintf("more than %d shards",
			    POLICY_SHARDS_MAX);
			goto fail;
		}
		/* A repeated name would give two shards one identity. */
		for (k = 0; k < len; k += strcspn(*out + k, "\n") + 1) {
			if (strcspn(*out + k, "\n") == (size_t)(e - p) &&
			    memcmp(*out + k, p, (size_t)(e - p)) == 0) {
				*cause = xasprintf("\"%.*s\" is in the list "
				    "twice", (int)(e - p), p);
				goto fail;
			}
		}
		policy_shard_add(out, &len, &cap, p, (size_t)(e - p));
		if (q == NULL)
			return policy_shards_done(*out, len, n);
		p = q + 1;
	}
fail:
	free(*out);
	*out = NULL;
	return -1;
}

/*
 * The shards a shards_from command printed (len bytes of its standard
 * output): each line that is not blank, without its leading and trailing
 * blanks (and a CR), in *out as policy_shards_list gives them.  Returns
 * how many, or -1 with *cause: none, too many, a line too long, a NUL.
 */
int
policy_shards_from(const char *buf, size_t len, char **out, char **cause)
{
	const char	*p = buf, *e, *nl, *end = buf + len;
	size_t		 olen = 0, cap = 0;
	int		 n = 0;

	*out = NULL;
	if (memchr(buf, '\0', len) != NULL) {
		*cause = xstrdup("its output holds a NUL byte");
		return -1;
	}
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		e = nl;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t' ||
		    e[-1] == '\r'))
			e--;
		if (e == p)
			continue;
		if ((size_t)(e - p) > POLICY_SHARD_MAX) {
			*cause = xasprintf("line %d is longer than %d bytes",
			    n + 1, POLICY_SHARD_MAX);
			goto fail;
		}
		if (++n > POLICY_SHARDS_MAX) {
			*cause = xasprintf("more than %d lines",
			    POLICY_SHARDS_MAX);
			goto fail;
		}
		policy_shard_add(out, &olen, &cap, p, (size_t)(e - p));
	}
	if (n == 0) {
		*cause = xstrdup("it printed no shard");
		goto fail;
	}
	return policy_shards_done(*out, olen, n);
fail:
	free(*out);
	*out = NULL;
	return -1;
}

/*
 * A recorded list's parameters: a vector of *n strings, all in one copy
 * of the list held by the vector's first (free(v[0]), then free(v)).
 */
char **
policy_shards_split(const char *list, int *n)
{
	char	**v, *copy = xstrdup(list), *p;
	int	  k = 1;

	for (p = copy; *p != '\0'; p++)
		k += *p == '\n';
	v = xreallocarray(NULL, (size_t)k + 1, sizeof *v);
	*n = 0;
	for (p = copy;;) {
		v[(*n)++] = p;
		if ((p = strchr(p, '\n')) == NULL)
			break;
		*p++ = '\0';
	}
	v[*n] = NULL;
	return v;
}

/*
 * Whether a failure is transient (worth a retry).  exit_status is the
 * exit code, or -1 for a failure without one (signal, timeout, spawn):
 * those are retried only with "any".
 */
int
policy_exit_retryable(const uint8_t bits[32], int any, int exit_status)
{
	if (any)
		return 1;
	if (exit_status < 1 || exit_status > 255)
		return 0;
	return bits[exit_status / 8] >> (exit_status % 8) & 1;
}

/*
 * The wait before the attempt after failed attempt k (k >= 1):
 * min(max, delay * 2^(k-1)).  Jitter is the caller's.
 */
int64_t
policy_retry_delay(int64_t delay, int64_t max, int k)
{
	int64_t d = delay;

	while (--k > 0 && d < max)
		d *= 2;
	return d < max ? d : max;
}

/* 64-bit FNV-1a of a string and its NUL, continuing from h. */
static uint64_t
policy_hash(uint64_t h, const void *data, size_t len)
{
	const unsigned char	*p = data;
	size_t			 i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

/*
 * A stable hash of a job id alone, for Jenkins' H (cronexpr_opts): the
 * same on every machine, across restarts and reloads.
 */
uint64_t
policy_id_hash(const char *job)
{
	return mix64(policy_hash(UINT64_C(0xcbf29ce484222325), job,
	    strlen(job) + 1));
}

/*
 * The delay, in seconds from 0 to max, of the instance at `at` of job on
 * this machine; never so long that the instance would start at or after
 * `next` (the job's following instance, -1 if unknown).
 */
int64_t
policy_random_delay(const char *machine_id, const char *job, int64_t at,
    int64_t max, int64_t next)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325);
	int64_t		d;

	if (max <= 0)
		return 0;
	h = policy_hash(h, machine_id, strlen(machine_id) + 1);
	h = policy_hash(h, job, strlen(job) + 1);
	h = policy_hash(h, &at, sizeof at);
	h = mix64(h);	/* nearby instants spread out */
	d = (int64_t)(h % (uint64_t)(max + 1));
	if (next > at && d >= next - at)
		d = next - at - 1;
	return d;
}

/*
 * The instances of schedule s due at now, starting with its next planned
 * instant `next` (which must be an instant of s): their range and count,
 * and the first instant after now.
 */
void
policy_scan(const struct schedule *s, const struct tz *z, enum tz_gap gap,
    enum tz_fold fold, int64_t next, int64_t now, struct policy_late *out)
{
	int64_t t = next, iv, w, u;

	memset(out, 0, sizeof *out);
	out->first = out->last = out->prev = out->next = -1;
	if (next < 0 || next > now) {
		out->next = next;
		return;
	}
	out->first = next;
	if (schedule_kind(s) == SCHEDULE_EVERY) {
		/* Arithmetic: instants are multiples of the interval. */
		iv = schedule_interval(s);
		out->count = (now - next) / iv + 1;
		out->last = next + (out->count - 1) * iv;
		out->prev = out->count > 1 ? out->last - iv : -1;
		out->next = out->last + iv;
		return;
	}
	for (;;) {
		out->prev = out->last;
		out->last = t;
		out->count++;
		if (schedule_next(s, z, gap, fold, t, &t) == -1) {
			out->next = -1;
			return;
		}
		if (t > now) {
			out->next = t;
			return;
		}
		if (out->count >= POLICY_SCAN_MAX) {
			/*
			 * Too many to count: find the newest due instant
			 * from a window before now that holds one, doubling
			 * the window, then walk only that window.
			 */
			out->capped = 1;
			for (w = 86400; now - w > t; w *= 2) {
				if (schedule_next(s, z, gap, fold, now - w,
				    &u) == 0 && u <= now) {
					t = u;
					break;
				}
			}
			while (t <= now) {
				out->prev = out->last;
				out->last = t;
				if (schedule_next(s, z, gap, fold, t, &t) ==
				    -1) {
					out->next = -1;
					return;
				}
			}
			out->next = t;
			return;
		}
	}
}

/*
 * An instant u of s, at or after lo (itself an instant), such that
 * [u, upto] holds more than k instants, searched in windows doubling back
 * from upto; lo if the whole range holds no more.
 */
static int64_t
policy_window_start(const struct schedule *s, const struct tz *z,
    enum tz_gap gap, enum tz_fold fold, int64_t lo, int64_t upto, int64_t k)
{
	int64_t	w, u, t, n;

	for (w = 3600; upto - w > lo; w *= 2) {
		if (schedule_next(s, z, gap, fold, upto - w, &u) == -1 ||
		    u > upto)
			continue;
		for (n = 0, t = u; t <= upto && n <= k; n++) {
			if (schedule_next(s, z, gap, fold, t, &t) == -1)
				break;
		}
		if (n > k)
			return u;
	}
	return lo;
}

/*
 * Decide what becomes of the due instances of one job: those from its
 * next planned instant `next` through now.  An instance is a misfire when
 * it is more than grace seconds late (the caller includes the job's
 * random_delay in grace).  buf (bufsz entries) receives the instances to
 * run; bufsz must exceed catch_up_limit.
 */
void
policy_due(const struct schedule *s, const struct tz *z, enum tz_gap gap,
    enum tz_fold fold, int64_t next, int64_t now, int64_t grace,
    int misfire, int64_t catch_up_limit, int64_t *buf, size_t bufsz,
    struct policy_due *out)
{
	struct policy_late	m, o;
	int64_t			t, start, evicted = -1, k;
	size_t			n = 0, head = 0, i, room;

	memset(out, 0, sizeof *out);
	out->run = buf;
	out->skip_first = out->skip_last = out->more_first = -1;
	out->more_last = out->last = -1;
	out->skip_reason = "";

	/* Misfires: more than grace late; then the on-time ones. */
	policy_scan(s, z, gap, fold, next, now - grace - 1, &m);
	if (m.count == 0) {
		m.next = next;
		m.last = -1;
	}
	policy_scan(s, z, gap, fold, m.next, now, &o);
	out->next = o.count > 0 ? o.next : m.next;
	out->last = o.count > 0 ? o.last : m.last;
	out->ontime_first = o.count > 0 ? o.first : -1;
	out->ontime_prev = o.count > 1 ? o.prev : -1;
	out->ontime_count = o.count;
	out->ontime_capped = o.capped;
	if (m.count + o.count == 0)
		return;

	if (m.count > 0 && misfire == POLICY_MISFIRE_RUN_ONCE) {
		/* Every due instance collapses into the newest one. */
		buf[0] = out->last;
		out->nrun = 1;
		if (m.count + o.count > 1) {
			out->skip_first = m.first;
			out->skip_last = o.count > 1 ? o.prev :
			    o.count == 1 ? m.last : m.prev;
			out->skip_count = m.count + o.count - 1;
			out->skip_capped = m.capped || o.capped;
			out->skip_reason = "coalesced";
		}
		return;
	}
	if (m.count > 0 && misfire == POLICY_MISFIRE_SKIP) {
		out->skip_first = m.first;
		out->skip_last = m.last;
		out->skip_count = m.count;
		out->skip_capped = m.capped;
		out->skip_reason = "misfire";
	}
	if (m.count > 0 && misfire == POLICY_MISFIRE_CATCH_UP) {
		/* The newest k misfires, kept in a ring, oldest first. */
		k = catch_up_limit < (int64_t)bufsz - 1 ? catch_up_limit :
		    (int64_t)bufsz - 1;
		start = m.count > k || m.capped ? policy_window_start(s, z,
		    gap, fold, m.first, m.last, k) : m.first;
		for (t = start; t != -1 && t <= m.last;) {
			if (n < (size_t)k)
				buf[n++] = t;
			else {
				evicted = buf[head];
				buf[head] = t;
				head = (head + 1) % (size_t)k;
			}
			if (schedule_next(s, z, gap, fold, t, &t) == -1)
				t = -1;
		}
		if (head != 0) {	/* rotate the ring into order */
			int64_t *tmp = xreallocarray(NULL, n, sizeof *tmp);

			for (i = 0; i < n; i++)
				tmp[i] = buf[(head + i) % n];
			memcpy(buf, tmp, n * sizeof *buf);
			free(tmp);
		}
		out->nrun = out->ncatch = n;
		if (m.count > (int64_t)n || m.capped) {
			out->skip_first = m.first;
			out->skip_last = evicted;
			out->skip_count = m.count - (int64_t)n;
			out->skip_capped = m.capped;
			out->skip_reason = "catch_up_limit";
		}
	}

	/* On-time instances, for the overlap policy; the rest as a range. */
	room = bufsz - out->nrun;
	for (t = o.count > 0 ? o.first : -1, i = 0; t != -1 && t <= now;
	    i++) {
		if (i < room)
			buf[out->nrun++] = t;
		else {
			out->more_first = t;
			out->more_last = o.last;
			out->more_count = o.count - (int64_t)room;
			out->more_capped = o.capped;
			break;
		}
		if (schedule_next(s, z, gap, fold, t, &t) == -1)
			break;
	}
}

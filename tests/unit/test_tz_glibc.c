/*
 * test_tz_glibc.c -- the tz module against glibc's localtime_r, for every
 * zone in the system database.
 *
 * The one non-hermetic unit test: it reads the host's zoneinfo directory
 * ($TZDIR, default /usr/share/zoneinfo) and exits 77 (skip) without it.
 * It is also the only code in tickd that sets TZ and calls tzset(), to
 * ask glibc for its opinion.  Every file is walked, links included;
 * files without the TZif magic (zone.tab, tzdata.zi, leapseconds, ...)
 * are skipped, and aliases of one file are compared once.  right/ (leap-
 * second zones) is skipped after checking that tz refuses one.
 *
 * For each zone: offset, isdst, abbreviation and civil fields at a sweep
 * of instants from 1900 to 2100, and at +-1 s around every transition,
 * both those tz finds by walking its periods and those read from the file
 * directly; then local -> UTC at sampled local times and around every
 * transition, checked against glibc's local times.  About 8 s here, 12 s
 * under SANITIZE=1 (Debian 12, 2 cores, 447 zone files).
 *
 * Known deviations: none on Debian 12's tzdata 2026f.  glibc evaluates a
 * POSIX TZ rule by the UTC year of the instant, which is wrong (RFC 8536)
 * for rules with a change near New Year; test_tz.c pins two such rules to
 * zic's and RFC 8536's answers.  No footer in this database has such a
 * change, so no exception is encoded: a mismatch here is a real
 * disagreement to investigate, and fails the test.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "civil.h"
#include "tz.h"

#include "t.h"

#define T_1900		(-2208988800LL)	/* 1900-01-01T00:00:00Z */
#define T_2100		4102444800LL	/* 2100-01-01T00:00:00Z */
#define STEP		(3 * 86400 + 3 * 3600 + 7 * 60 + 13)
#define LOCAL_STEP	(29 * 86400 + 5 * 3600 + 11 * 60 + 7)
#define SHOW_MAX	5		/* mismatches printed per zone */

struct names {
	char	**v;
	size_t	  n, cap;
};

/* Figures for the summary. */
static struct {
	size_t	names, zones, aliases, skipped, instants, locals;
	size_t	file_trans, tz_trans;
	size_t	mismatches;
} fig;

static size_t	zone_mismatches;

/* Record one zone name (relative to the database directory). */
static void
names_add(struct names *ns, const char *name)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 512;
		if ((ns->v = realloc(ns->v, ns->cap * sizeof *ns->v)) == NULL)
			exit(1);
	}
	if ((ns->v[ns->n++] = strdup(name)) == NULL)
		exit(1);
}

/* qsort comparator for zone names. */
static int
names_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Collect every file name under dir/rel, without following symbolic links
 * to directories (posix/ is a tree of such links).  right/ is left out.
 */
static void
walk(const char *dir, const char *rel, struct names *ns)
{
	char		 path[4096], sub[1024];
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;

	(void)snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		(void)snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "",
		    de->d_name);
		(void)snprintf(path, sizeof path, "%s/%s", dir, sub);
		if (lstat(path, &st) == -1)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (strcmp(sub, "right") != 0)
				walk(dir, sub, ns);
		} else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
			names_add(ns, sub);
	}
	(void)closedir(d);
}

/* Whether path is a regular file (through links) starting with "TZif". */
static int
is_tzif(const char *path, struct stat *st)
{
	char	magic[4];
	int	fd, ok;

	if (stat(path, st) == -1 || !S_ISREG(st->st_mode))
		return 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	ok = read(fd, magic, 4) == 4 && memcmp(magic, "TZif", 4) == 0;
	(void)close(fd);
	return ok;
}

/* Report a disagreement; the first few of each zone are printed. */
static void
mismatch(const char *zone, const char *what, int64_t t, const char *ours,
    const char *glibc)
{
	fig.mismatches++;
	if (zone_mismatches++ < SHOW_MAX)
		(void)printf("%s: %s at %" PRId64 ": tz %s, glibc %s\n", zone,
		    what, t, ours, glibc);
}

/* Civil seconds of a struct tm (its wall clock). */
static int64_t
tm_civil(const struct tm *tm)
{
	return civil_days_from_date((int64_t)tm->tm_year + 1900,
	    tm->tm_mon + 1, tm->tm_mday) * CIVIL_SECS_PER_DAY +
	    tm->tm_hour * 3600 + tm->tm_min * 60 + tm->tm_sec;
}

/* glibc's local civil seconds of instant t. */
static int64_t
glibc_local(int64_t t)
{
	struct tm	tm;
	time_t		tt = (time_t)t;

	if (localtime_r(&tt, &tm) == NULL)
		return INT64_MIN;
	return tm_civil(&tm);
}

/* Compare tz and glibc at one instant. */
static void
compare_at(const struct tz *z, const char *zone, int64_t t)
{
	struct tz_period	p;
	struct civil		c;
	struct tm		tm;
	time_t			tt = (time_t)t;
	char			a[64], b[64];

	fig.instants++;
	tz_period_at(z, t, &p);
	if (localtime_r(&tt, &tm) == NULL) {
		mismatch(zone, "localtime_r", t, "ok", strerror(errno));
		return;
	}
	civil_split(t + p.utoff, &c);
	if (p.utoff != tm.tm_gmtoff || p.isdst != (tm.tm_isdst > 0) ||
	    strcmp(p.abbr, tm.tm_zone) != 0) {
		(void)snprintf(a, sizeof a, "%d %d %s", p.utoff, p.isdst,
		    p.abbr);
		(void)snprintf(b, sizeof b, "%ld %d %s", tm.tm_gmtoff,
		    tm.tm_isdst, tm.tm_zone);
		mismatch(zone, "offset isdst abbr", t, a, b);
	} else if (c.year != (int64_t)tm.tm_year + 1900 ||
	    c.month != tm.tm_mon + 1 || c.day != tm.tm_mday ||
	    c.hour != tm.tm_hour || c.min != tm.tm_min ||
	    c.sec != tm.tm_sec || c.wday != tm.tm_wday ||
	    civil_days_from_date(c.year, c.month, c.day) -
	    civil_days_from_date(c.year, 1, 1) != tm.tm_yday) {
		(void)snprintf(a, sizeof a, "%" PRId64, tz_to_local(z, t,
		    NULL));
		(void)snprintf(b, sizeof b, "%" PRId64, tm_civil(&tm));
		mismatch(zone, "civil time", t, a, b);
	}
}

/*
 * Compare tz_local_to_utc with glibc for one local time.  Every instant
 * returned must have that local time in glibc's view; with none, glibc
 * must show a gap ending at gap_end.  cand[] are instants that may map to
 * local (local minus each nearby offset): glibc mapping one of them to
 * local means tz must have returned it.
 */
static void
compare_local(const struct tz *z, const char *zone, int64_t local,
    const int64_t *cand, int ncand)
{
	int64_t	out[TZ_OCC_MAX], gap_end = INT64_MIN;
	char	a[64], b[64];
	int	n, k, i, found;

	fig.locals++;
	n = tz_local_to_utc(z, local, out, &gap_end);
	for (k = 0; k < n; k++) {
		if (glibc_local(out[k]) != local) {
			(void)snprintf(a, sizeof a, "%" PRId64, out[k]);
			(void)snprintf(b, sizeof b, "local %" PRId64,
			    glibc_local(out[k]));
			mismatch(zone, "local to utc", local, a, b);
		}
	}
	if (n == 0 && !(glibc_local(gap_end - 1) < local &&
	    local < glibc_local(gap_end))) {
		(void)snprintf(a, sizeof a, "gap to %" PRId64, gap_end);
		(void)snprintf(b, sizeof b, "%" PRId64 " .. %" PRId64,
		    glibc_local(gap_end - 1), glibc_local(gap_end));
		mismatch(zone, "gap", local, a, b);
	}
	for (i = 0; i < ncand; i++) {
		if (glibc_local(cand[i]) != local)
			continue;
		for (found = 0, k = 0; k < n; k++)
			found |= out[k] == cand[i];
		if (!found) {
			(void)snprintf(a, sizeof a, "%d instants", n);
			(void)snprintf(b, sizeof b, "also %" PRId64, cand[i]);
			mismatch(zone, "local to utc missed", local, a, b);
		}
	}
}

/* A big-endian 32-bit value. */
static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/*
 * The explicit transition times of a version 2+ TZif file, read here
 * rather than through tz, so that a transition tz lost is still compared.
 * Returns how many were stored in *out (caller frees); 0 if unreadable.
 */
static size_t
file_transitions(const char *path, int64_t **out)
{
	unsigned char	*buf = NULL, *h;
	struct stat	 st;
	size_t		 len, off, n = 0, i;
	uint32_t	 c[6];
	int		 fd;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	if (fstat(fd, &st) == -1 || st.st_size < 88 ||
	    (buf = malloc((size_t)st.st_size)) == NULL ||
	    read(fd, buf, (size_t)st.st_size) != st.st_size || buf[4] < '2')
		goto out;
	len = (size_t)st.st_size;
	for (i = 0; i < 6; i++)
		c[i] = be32(buf + 20 + 4 * i);
	off = 44 + (size_t)c[3] * 5 + (size_t)c[4] * 6 + c[5] +
	    (size_t)c[2] * 8 + c[1] + c[0];
	if (off + 44 > len)
		goto out;
	h = buf + off;
	n = be32(h + 32);			/* v2 timecnt */
	if (n > (len - off - 44) / 8 || (*out = calloc(n + 1,
	    sizeof **out)) == NULL) {
		n = 0;
		goto out;
	}
	for (i = 0; i < n; i++)
		(*out)[i] = (int64_t)((uint64_t)be32(h + 44 + 8 * i) << 32 |
		    be32(h + 48 + 8 * i));
out:
	free(buf);
	(void)close(fd);
	return n;
}

/*
 * Compare one zone over 1900-2100; TZ is already set for glibc.  trans[]
 * are the file's own transitions.
 */
static void
compare_zone(const struct tz *z, const char *zone, const int64_t *trans,
    size_t ntrans)
{
	struct tz_period	p, q;
	int64_t			t, b, cand[2];
	size_t			i;
	int			d;

	for (t = T_1900; t < T_2100; t += STEP)
		compare_at(z, zone, t);
	for (t = T_1900 + 1234; t < T_2100; t += LOCAL_STEP)
		compare_local(z, zone, t, NULL, 0);
	for (i = 0; i < ntrans; i++) {
		if (trans[i] < T_1900 || trans[i] >= T_2100)
			continue;
		fig.file_trans++;
		for (d = -1; d <= 1; d++)
			compare_at(z, zone, trans[i] + d);
	}

	/* Every transition, found by walking the periods. */
	tz_period_at(z, T_1900, &p);
	while (p.end < T_2100) {
		b = p.end;
		fig.tz_trans++;
		tz_period_at(z, b, &q);
		for (d = -1; d <= 1; d++)
			compare_at(z, zone, b + d);
		/* The local times at both edges, and inside a gap or fold. */
		cand[0] = b - 1;
		cand[1] = b;
		for (d = -1; d <= 1; d++) {
			compare_local(z, zone, b + p.utoff + d, cand, 2);
			compare_local(z, zone, b + q.utoff + d, cand, 2);
		}
		compare_local(z, zone, b + (p.utoff + q.utoff) / 2, NULL, 0);
		p = q;
	}
}

/* Check that a leap-second zone, if the database has one, is refused. */
static void
check_right(const char *dir)
{
	char		 path[4096], *cause = NULL;
	struct stat	 st;
	struct tz	*z;

	(void)snprintf(path, sizeof path, "%s/right/Europe/Berlin", dir);
	if (!is_tzif(path, &st)) {
		(void)printf("no right/Europe/Berlin: leap-second check "
		    "skipped\n");
		return;
	}
	z = tz_load_file(dir, "right/Europe/Berlin", &cause);
	T_TRUE(z == NULL);
	T_TRUE(cause != NULL && strstr(cause, "leap-second") != NULL &&
	    strstr(cause, "right/Europe/Berlin") != NULL);
	tz_free(z);
	free(cause);
}

/* Walk the database, compare every zone, print the figures. */
int
main(void)
{
	struct names	 ns = { NULL, 0, 0 };
	struct stat	 st;
	struct timespec	 t0, t1;
	const char	*dir = tz_default_dir();
	char		 path[4096], tzvar[1100], *cause;
	dev_t		*devs = NULL;
	int64_t		*trans;
	ino_t		*inos = NULL;
	struct tz	*z;
	size_t		 i, j, ntrans;
	int		 seen;

	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	if (stat(dir, &st) == -1 || !S_ISDIR(st.st_mode)) {
		(void)printf("no zoneinfo directory %s\n", dir);
		return 77;
	}
	walk(dir, "", &ns);
	qsort(ns.v, ns.n, sizeof *ns.v, names_cmp);
	if ((devs = calloc(ns.n + 1, sizeof *devs)) == NULL ||
	    (inos = calloc(ns.n + 1, sizeof *inos)) == NULL)
		return 1;
	check_right(dir);

	for (i = 0; i < ns.n; i++) {
		(void)snprintf(path, sizeof path, "%s/%s", dir, ns.v[i]);
		/* localtime, posixrules: files, but not zone names (tz.c). */
		if (!is_tzif(path, &st) || strcmp(ns.v[i], "localtime") == 0 ||
		    strcmp(ns.v[i], "posixrules") == 0) {
			fig.skipped++;		/* zone.tab, tzdata.zi, ... */
			continue;
		}
		fig.names++;
		T_RUN(ns.v[i]);
		cause = NULL;
		z = tz_load_file(dir, ns.v[i], &cause);
		if (!T_TRUE(z != NULL)) {
			(void)printf("%s: %s\n", ns.v[i], cause);
			free(cause);
			continue;
		}
		for (seen = 0, j = 0; j < fig.zones && !seen; j++)
			seen = devs[j] == st.st_dev && inos[j] == st.st_ino;
		if (seen) {
			fig.aliases++;
			tz_free(z);
			continue;
		}
		devs[fig.zones] = st.st_dev;
		inos[fig.zones] = st.st_ino;
		fig.zones++;

		/* ":" makes glibc read the file, never parse a TZ rule. */
		(void)snprintf(tzvar, sizeof tzvar, ":%s", ns.v[i]);
		if (setenv("TZ", tzvar, 1) == -1)
			return 1;
		tzset();
		zone_mismatches = 0;
		ntrans = file_transitions(path, &trans);
		T_TRUE(trans != NULL);
		compare_zone(z, ns.v[i], trans, ntrans);
		T_EQ_INT(zone_mismatches, 0);
		free(trans);
		tz_free(z);
	}
	T_RUN("database");
	if (fig.zones == 0) {
		(void)printf("no TZif files in %s\n", dir);
		return 77;
	}

	(void)clock_gettime(CLOCK_MONOTONIC, &t1);
	(void)printf("glibc comparison in %s: %zu zone files (%zu names, "
	    "%zu aliases; %zu other entries skipped); %zu transitions walked, "
	    "%zu read from the files; %zu instants and %zu local times "
	    "compared; %zu mismatches; %.1f s\n", dir, fig.zones, fig.names,
	    fig.aliases, fig.skipped, fig.tz_trans, fig.file_trans,
	    fig.instants, fig.locals, fig.mismatches,
	    (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	T_EQ_INT(fig.mismatches, 0);
	for (i = 0; i < ns.n; i++)
		free(ns.v[i]);
	free(ns.v);
	free(devs);
	free(inos);
	return t_done();
}

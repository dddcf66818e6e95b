/*
 * test_ctl_fmt.c -- unit tests of tickctl's formatting for people:
 * durations ("850ms", "1.2s", "1m32s"), lateness with its sign, instants
 * in a zone (with its abbreviation) and in UTC, "ago", how a process
 * ended, text made safe for a terminal (controls, C1 controls, bytes that
 * are not UTF-8), display widths, aligned tables (no trailing blanks),
 * the --since and --limit parsers, and batches: an instance's status
 * from its shard counts, the progress line, first lines clipped between
 * characters, and when --wait writes its progress (a live line on a
 * terminal, a line per change otherwise, at most once a second).
 *
 * Zones come from the committed fixtures in $TICKD_TESTDATA/tzif/fat
 * (default tests/data).  Tables of cases throughout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl-fmt.h"
#include "tz.h"

#include "t.h"

#define T0	INT64_C(1805007600)	/* 2027-03-14T07:00:00Z */
#define NOW_MS	(T0 * 1000)

/* The fixture zone directory. */
static const char *
zonedir(char *buf, size_t len)
{
	const char *base = getenv("TICKD_TESTDATA");

	(void)snprintf(buf, len, "%s/tzif/fat", base != NULL && *base != '\0' ?
	    base : "tests/data");
	return buf;
}

static void
test_durations(void)
{
	static const struct {
		int64_t		 ms;
		const char	*dur, *late;
	} cases[] = {
		{ -1, "-", "-" },
		{ 0, "0ms", "+0ms" },
		{ 7, "7ms", "+7ms" },
		{ 850, "850ms", "+850ms" },
		{ 999, "999ms", "+999ms" },
		{ 1000, "1.0s", "+1.0s" },
		{ 1234, "1.2s", "+1.2s" },
		{ 1299, "1.2s", "+1.2s" },
		{ 59999, "59.9s", "+59.9s" },
		{ 60000, "1m", "+1m" },
		{ 92000, "1m32s", "+1m32s" },
		{ 92999, "1m32s", "+1m32s" },
		{ 3600000, "1h", "+1h" },
		{ 90061000, "1d1h1m1s", "+1d1h1m1s" },
		{ -300, "-300ms", "-300ms" },
		{ -1500, "-1.5s", "-1.5s" },
	};
	char	buf[CTL_FMT_BUFSZ];
	size_t	i;

	T_RUN("durations and lateness");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ctl_fmt_ms(cases[i].ms, buf, sizeof buf);
		T_EQ_STR(buf, cases[i].dur);
		ctl_fmt_lateness(cases[i].ms, buf, sizeof buf);
		T_EQ_STR(buf, cases[i].late);
	}
}

/* CPU time (us) and sizes (bytes). */
static void
test_usage(void)
{
	static const struct {
		int64_t		 v;
		const char	*cpu, *bytes;
	} cases[] = {
		{ -1, "-", "-" },
		{ 0, "0.0ms", "0B" },
		{ 99, "0.0ms", "99B" },
		{ 450, "0.4ms", "450B" },
		{ 999, "0.9ms", "999B" },
		{ 1000, "1ms", "1000B" },
		{ 1023, "1ms", "1023B" },
		{ 1024, "1ms", "1.0K" },
		{ 1536, "1ms", "1.5K" },
		{ 102400, "102ms", "100K" },
		{ 1234567, "1.2s", "1.1M" },
		{ 47395635, "47.3s", "45.1M" },
		{ 1073741824, "17m53s", "1.0G" },
		{ 1610612736, "26m50s", "1.5G" },
		{ 5497558138880LL, "63d15h5m58s", "5.0T" },
	};
	char	buf[CTL_FMT_BUFSZ];
	size_t	i;

	T_RUN("cpu time and sizes");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ctl_fmt_cpu(cases[i].v, buf, sizeof buf);
		T_EQ_STR(buf, cases[i].cpu);
		ctl_fmt_bytes(cases[i].v, buf, sizeof buf);
		T_EQ_STR(buf, cases[i].bytes);
	}
}

static void
test_times(void)
{
	static const struct {
		const char	*zone;
		int64_t		 t;
		const char	*local, *utc;
	} cases[] = {
		{ "UTC", T0, "2027-03-14 07:00:00 UTC",
		    "2027-03-14T07:00:00Z" },
		{ "America/New_York", T0, "2027-03-14 03:00:00 EDT",
		    "2027-03-14T07:00:00Z" },
		{ "America/New_York", T0 - 1, "2027-03-14 01:59:59 EST",
		    "2027-03-14T06:59:59Z" },
		{ "Europe/Berlin", T0, "2027-03-14 08:00:00 CET",
		    "2027-03-14T07:00:00Z" },
		{ "UTC", -1, "-", "-" },
	};
	struct tz	*z;
	char		 dir[4096], buf[CTL_FMT_BUFSZ], *cause = NULL;
	size_t		 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		T_RUN(cases[i].zone);
		z = strcmp(cases[i].zone, "UTC") == 0 ? tz_new_utc() :
		    tz_load_file(zonedir(dir, sizeof dir), cases[i].zone,
		    &cause);
		if (z == NULL) {
			(void)printf("  %s\n", cause);
			free(cause);
			cause = NULL;
			T_TRUE(0);
			continue;
		}
		ctl_fmt_local(cases[i].t, z, buf, sizeof buf);
		T_EQ_STR(buf, cases[i].local);
		ctl_fmt_utc(cases[i].t, buf, sizeof buf);
		T_EQ_STR(buf, cases[i].utc);
		tz_free(z);
	}
}

static void
test_ago_exit(void)
{
	static const struct {
		int64_t		 ms;
		const char	*want;
	} ago[] = {
		{ -1, "-" },
		{ NOW_MS, "now" },
		{ NOW_MS - 999, "now" },
		{ NOW_MS - 5000, "5s ago" },
		{ NOW_MS - 190000, "3m10s ago" },
		{ NOW_MS - 3600000, "1h ago" },
		{ NOW_MS - 3610000, "1h0m ago" },
		{ NOW_MS - 93784000, "1d2h ago" },
		{ NOW_MS + 300000, "in 5m" },
	};
	static const struct {
		int		 exit_status, sig;
		const char	*want;
	} ex[] = {
		{ 0, -1, "exit 0" },
		{ 3, -1, "exit 3" },
		{ -1, 9, "signal 9 (KILL)" },
		{ -1, 15, "signal 15 (TERM)" },
		{ -1, -1, "-" },
	};
	char	buf[CTL_FMT_BUFSZ];
	size_t	i;

	T_RUN("ago");
	for (i = 0; i < sizeof ago / sizeof ago[0]; i++) {
		ctl_fmt_ago(NOW_MS, ago[i].ms, buf, sizeof buf);
		T_EQ_STR(buf, ago[i].want);
	}
	T_RUN("exit");
	for (i = 0; i < sizeof ex / sizeof ex[0]; i++) {
		ctl_fmt_exit(ex[i].exit_status, ex[i].sig, buf, sizeof buf);
		T_EQ_STR(buf, ex[i].want);
	}
}

static void
test_vis(void)
{
	static const struct {
		const char	*in;
		size_t		 n;
		int		 keep_nl;
		const char	*want;
		size_t		 width;
	} cases[] = {
		{ "plain text", 0, 0, "plain text", 10 },
		{ "a\tb", 0, 0, "a\tb", 3 },
		{ "a\nb", 0, 0, "a\\nb", 3 },
		{ "a\nb", 0, 1, "a\nb", 3 },
		{ "\x1b[31mred", 0, 0, "\\x1b[31mred", 8 },
		{ "\r\x7f", 0, 0, "\\x0d\\x7f", 2 },
		{ "a\0b", 3, 0, "a\\x00b", 2 },
		{ "caf\xc3\xa9", 0, 0, "caf\xc3\xa9", 4 },
		{ "\xe2\x82\xac", 0, 0, "\xe2\x82\xac", 1 },
		{ "\xc2\x9b" "2J", 0, 0, "\\xc2\\x9b2J", 3 },
		{ "\xc2\xa0", 0, 0, "\xc2\xa0", 1 },
		{ "\xff\xfe", 0, 0, "\\xff\\xfe", 2 },
		{ "\xe2\x82", 0, 0, "\\xe2\\x82", 1 },
	};
	char	*got;
	size_t	 i;

	T_RUN("vis and width");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		got = ctl_fmt_vis(cases[i].in, cases[i].n > 0 ? cases[i].n :
		    strlen(cases[i].in), cases[i].keep_nl);
		T_EQ_STR(got, cases[i].want);
		free(got);
		if (cases[i].n == 0)
			T_EQ_INT(ctl_fmt_width(cases[i].in), cases[i].width);
	}
}

static void
test_parse(void)
{
	static const struct {
		const char	*in;
		int		 rc;
		int64_t		 want;
	} since[] = {
		{ "2h", 0, T0 - 7200 },
		{ "1d12h", 0, T0 - 129600 },
		{ "0s", 0, T0 },
		{ "2027-03-14T07:00:00Z", 0, T0 },
		{ "2027-03-14T03:00:00-04:00", 0, T0 },
		{ "yesterday", -1, 0 },
		{ "", -1, 0 },
	};
	static const struct {
		const char	*in;
		long		 min, max;
		int		 rc;
		long		 want;
	} counts[] = {
		{ "50", 0, 100, 0, 50 },
		{ "0", 0, 100, 0, 0 },
		{ "0", 1, 100, -1, 0 },
		{ "101", 0, 100, -1, 0 },
		{ "-1", 0, 100, -1, 0 },
		{ "+5", 0, 100, -1, 0 },
		{ "5x", 0, 100, -1, 0 },
		{ "", 0, 100, -1, 0 },
		{ "99999999999999999999999", 0, 100, -1, 0 },
	};
	char	*cause;
	int64_t	 t;
	long	 n;
	size_t	 i;

	T_RUN("--since");
	for (i = 0; i < sizeof since / sizeof since[0]; i++) {
		cause = NULL;
		t = 0;
		T_EQ_INT(ctl_parse_since(since[i].in, NOW_MS + 999, &t,
		    &cause), since[i].rc);
		if (since[i].rc == 0)
			T_EQ_TIME(t, since[i].want);
		else
			T_TRUE(cause != NULL && strstr(cause,
			    "is neither a duration nor") != NULL);
		free(cause);
	}
	T_RUN("counts");
	for (i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		n = -7;
		T_EQ_INT(ctl_parse_count(counts[i].in, counts[i].min,
		    counts[i].max, &n), counts[i].rc);
		if (counts[i].rc == 0)
			T_EQ_INT(n, counts[i].want);
	}
}

/* Print a table into a temporary file and read it back. */
static void
test_table(void)
{
	struct ctl_table	 t;
	char			 path[] = "/tmp/tickd-test-ctl-fmt.XXXXXX";
	char			 got[512];
	FILE			*f;
	size_t			 n;
	int			 fd, saved;

	T_RUN("table");
	ctl_table_init(&t, 3);
	ctl_table_row(&t, "JOB", "STATE", "NOTE");
	ctl_table_row(&t, "backup", "idle", "");
	ctl_table_row(&t, "caf\xc3\xa9", NULL, "x");
	ctl_table_row(&t, "a", "running", "");
	if ((fd = mkstemp(path)) == -1) {
		T_TRUE(0);
		ctl_table_free(&t);
		return;
	}
	(void)fflush(stdout);
	saved = dup(1);
	(void)dup2(fd, 1);
	T_EQ_INT(ctl_table_print(&t, "  "), 0);
	(void)fflush(stdout);
	(void)dup2(saved, 1);
	(void)close(saved);
	(void)close(fd);
	ctl_table_free(&t);
	got[0] = '\0';
	if ((f = fopen(path, "r")) != NULL) {
		n = fread(got, 1, sizeof got - 1, f);
		got[n] = '\0';
		(void)fclose(f);
	}
	(void)unlink(path);
	T_EQ_STR(got,
	    "  JOB     STATE    NOTE\n"
	    "  backup  idle\n"
	    "  caf\xc3\xa9    -        x\n"
	    "  a       running\n");
}

/* A batch's status text and progress line, from its counts. */
static void
test_batch_text(void)
{
	static const struct {
		const char			*status;
		const char			*reason;
		int				 batch;
		struct store_query_shards	 c;
		const char			*want;
	} cases[] = {
		{ "succeeded", NULL, 1, { 16, 16, 0, 0, 0 },
		    "succeeded, 16 shards" },
		{ "failed", "shards", 1, { 16, 14, 2, 0, 0 },
		    "failed: 2 of 16 shards" },
		{ "dead", "shards", 1, { 16, 13, 3, 0, 0 },
		    "dead: 3 of 16 shards" },
		{ "failed", "batch_timeout", 1, { 16, 10, 6, 0, 0 },
		    "failed: 6 of 16 shards (batch_timeout)" },
		{ "running", NULL, 1, { 16, 9, 1, 4, 2 },
		    "running: 9 of 16 shards done" },
		{ "succeeded", NULL, 1, { 1, 1, 0, 0, 0 },
		    "succeeded, 1 shard" },
		{ "queued", NULL, 1, { 4, 0, 0, 0, 4 }, "queued, 4 shards" },
		/* No shard rows yet (shards_from runs): as any run. */
		{ "running", NULL, 1, { 0, 0, 0, 0, 0 }, "running" },
		{ "failed", "shards_from", 1, { 0, 0, 0, 0, 0 },
		    "failed (shards_from)" },
		/* Not a batch: counts are not looked at. */
		{ "failed", "exit", 0, { 16, 14, 2, 0, 0 }, "failed (exit)" },
		{ "succeeded", NULL, 0, { 0, 0, 0, 0, 0 }, "succeeded" },
	};
	static const struct {
		struct store_query_shards	 c;
		int64_t				 ms;
		const char			*want;
	} progress[] = {
		{ { 16, 9, 1, 4, 2 }, 63000,
		    "16 shards: 9 done, 4 running, 1 failed, 2 waiting, "
		    "1m03s" },
		{ { 16, 9, 1, 4, 2 }, -1,
		    "16 shards: 9 done, 4 running, 1 failed, 2 waiting" },
		{ { 1, 0, 0, 1, 0 }, 999, "1 shard: 0 done, 1 running, "
		    "0 failed, 0 waiting, 0s" },
		{ { 3, 3, 0, 0, 0 }, 59999, "3 shards: 3 done, 0 running, "
		    "0 failed, 0 waiting, 59s" },
		{ { 3, 3, 0, 0, 0 }, 3723000, "3 shards: 3 done, 0 running, "
		    "0 failed, 0 waiting, 1h02m03s" },
	};
	struct store_query_run	r;
	char			buf[256];
	size_t			i;

	T_RUN("batch status text");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(&r, 0, sizeof r);
		r.status = (char *)cases[i].status;
		r.reason = (char *)cases[i].reason;
		r.batch = cases[i].batch;
		r.shards = cases[i].c;
		ctl_fmt_status(&r, buf, sizeof buf);
		T_EQ_STR(buf, cases[i].want);
	}
	T_RUN("batch progress line");
	for (i = 0; i < sizeof progress / sizeof progress[0]; i++) {
		ctl_fmt_progress(&progress[i].c, progress[i].ms, buf,
		    sizeof buf);
		T_EQ_STR(buf, progress[i].want);
	}
}

/* First lines clipped: between characters and escapes, "..." within. */
static void
test_clip(void)
{
	static const struct {
		const char	*in;
		size_t		 max;
		const char	*want;
	} cases[] = {
		{ "cursor=1234\nsecond", 60, "cursor=1234" },
		{ "short", 5, "short" },
		{ "abcdefghij", 8, "abcde..." },
		{ "", 10, "" },
		{ "\nafter", 10, "" },
		/* An escape is never cut: "\x01" is 4 bytes. */
		{ "ab\001cdefgh", 8, "ab..." },
		{ "ab\001cdefgh", 9, "ab\\x01..." },
		/* Nor a UTF-8 character (e with acute: 2 bytes). */
		{ "abcd\xc3\xa9" "fghij", 8, "abcd..." },
		{ "abcd\xc3\xa9" "fghij", 9, "abcd\xc3\xa9..." },
		{ "tab\there", 60, "tab\there" },
		{ "abc", 2, "" },
	};
	char	*got;
	size_t	 i;

	T_RUN("clip");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		got = ctl_fmt_clip(cases[i].in, strlen(cases[i].in),
		    cases[i].max);
		T_EQ_STR(got, cases[i].want);
		T_TRUE(strlen(got) <= cases[i].max);
		free(got);
	}
}

/* When --wait writes a batch's progress, and what. */
static void
test_progress_steps(void)
{
	static const struct {
		int				 tty;
		int64_t				 now_ms;
		struct store_query_shards	 c;
		int				 rc;
		const char			*want;
	} steps[] = {
		/* Not a terminal: a line per change, at most once a second. */
		{ 0, 1000, { 4, 0, 0, 4, 0 }, 1,
		    "4 shards: 0 done, 4 running, 0 failed, 0 waiting\n" },
		{ 0, 1500, { 4, 1, 0, 3, 0 }, 0, NULL },	/* too soon */
		{ 0, 2100, { 4, 1, 0, 3, 0 }, 1,
		    "4 shards: 1 done, 3 running, 0 failed, 0 waiting\n" },
		{ 0, 9000, { 4, 1, 0, 3, 0 }, 0, NULL },	/* the same */
		{ 0, 9100, { 4, 2, 1, 1, 0 }, 1,
		    "4 shards: 2 done, 1 running, 1 failed, 0 waiting\n" },
		/* A terminal: rewritten each second, blanks over the rest. */
		{ 1, 1000, { 12, 0, 0, 12, 0 }, 1, "\r12 shards: 0 done, "
		    "12 running, 0 failed, 0 waiting, 1s" },
		{ 1, 1999, { 12, 0, 0, 12, 0 }, 0, NULL },
		{ 1, 2000, { 12, 0, 0, 12, 0 }, 1, "\r12 shards: 0 done, "
		    "12 running, 0 failed, 0 waiting, 2s" },
		{ 1, 3000, { 12, 11, 0, 1, 0 }, 1, "\r12 shards: 11 done, "
		    "1 running, 0 failed, 0 waiting, 3s" },
		{ 1, 4000, { 12, 3, 0, 0, 0 }, 1, "\r12 shards: 3 done, "
		    "0 running, 0 failed, 0 waiting, 4s " },
	};
	struct ctl_progress	p;
	char			buf[256];
	size_t			i;
	int			rc, tty = -1;

	T_RUN("--wait progress");
	for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		if (steps[i].tty != tty) {
			memset(&p, 0, sizeof p);
			p.tty = tty = steps[i].tty;
		}
		buf[0] = '\0';
		rc = ctl_progress_step(&p, &steps[i].c, steps[i].now_ms,
		    steps[i].now_ms, buf, sizeof buf);
		T_EQ_INT(rc, steps[i].rc);
		if (rc == 1)
			T_EQ_STR(buf, steps[i].want);
	}
	T_EQ_INT(ctl_progress_end(&p, buf, sizeof buf), 1);
	T_EQ_STR(buf, "\n");
	T_EQ_INT(ctl_progress_end(&p, buf, sizeof buf), 0);
	memset(&p, 0, sizeof p);
	T_EQ_INT(ctl_progress_end(&p, buf, sizeof buf), 0);
}

int
main(void)
{
	test_durations();
	test_times();
	test_usage();
	test_ago_exit();
	test_vis();
	test_parse();
	test_table();
	test_batch_text();
	test_clip();
	test_progress_steps();
	return t_done();
}

/*
 * bench_next.c -- how long cronexpr_next() and the zone conversions take.
 *
 *	bench_next [ROUNDS]	timing table (default 101 rounds)
 *	bench_next --once	one untimed round, for valgrind --tool=callgrind
 *
 * A fixed mix of expressions runs in UTC and in DST zones loaded from the
 * committed fat fixtures (plus a slim New York, whose years after 2007 go
 * through the footer rule), from BENCH_STARTS starting instants spread
 * over 2000-2100: half uniformly, half within three hours of one of the
 * zone's DST transitions.  A batch is one expression in one zone from
 * every start; a round is one batch of each pair.
 *
 * cronexpr_next() calls are timed one by one with CLOCK_MONOTONIC (one
 * clock read per call, its calibrated cost subtracted), so a call that
 * the scheduler interrupts is one outlier, not a spoiled batch.  For a
 * cell, a row or the whole mix, each round gives the median call of the
 * calls it covers; the table shows the median of those over the rounds,
 * then their 99th percentile ("p99"), and the mean call time (robust
 * too: the median over rounds of each batch's mean, averaged).  The zone
 * functions and parsing are too quick to time one by one: their batches
 * are timed whole, and the median over rounds of the mean is shown.
 * The starts are a fixed pseudo-random sequence: every run does the same
 * work, so the instruction counts under callgrind are reproducible.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cronexpr.h"
#include "tz.h"

#ifndef BENCH_TZIF_DIR
#define BENCH_TZIF_DIR	"tests/data/tzif/fat"
#endif

#define BENCH_STARTS	1000
#define BENCH_ROUNDS	101
#define T2000		INT64_C(946684800)
#define T2100		INT64_C(4102444800)
#define NEAR		(3 * 3600)

static const char *const bench_exprs[] = {
	"*/15 * * * *", "30 2 * * *", "0 9 * * 1-5", "0 0 L * *",
	"0 12 * * 5L", "0 0 * * 1#2", "*/10 * * * * *", "@daily",
	"0 3 * * 0", "0 0 29 2 *",
};
#define NEXPRS	(sizeof bench_exprs / sizeof bench_exprs[0])

static const struct {
	const char	*dir;		/* NULL: built-in UTC; "slim" */
	const char	*name;
	const char	*label;
} bench_zones[] = {
	{ NULL, "UTC", "UTC" },
	{ "", "America/New_York", "New_York" },
	{ "", "Europe/Berlin", "Berlin" },
	{ "", "Australia/Lord_Howe", "Lord_Howe" },
	{ "", "Pacific/Apia", "Apia" },
	{ "slim", "America/New_York", "NY slim" },
};
#define NZONES	(sizeof bench_zones / sizeof bench_zones[0])

static struct tz	*zones[NZONES];
static struct cronexpr	*exprs[NEXPRS];
static int64_t		 starts[NZONES][BENCH_STARTS];
static int64_t		 locals[NZONES][BENCH_STARTS];
static volatile int64_t	 sink;

static uint64_t bench_rng = UINT64_C(0x9e3779b97f4a7c15);

/* xorshift64*: a fixed sequence, so every run does the same work. */
static uint64_t
bench_rand(void)
{
	bench_rng ^= bench_rng >> 12;
	bench_rng ^= bench_rng << 25;
	bench_rng ^= bench_rng >> 27;
	return bench_rng * UINT64_C(0x2545f4914f6cdd1d);
}

static uint64_t
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static int
bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile (0-1) of n values, which are sorted in place. */
static double
bench_quantile(double *v, size_t n, double q)
{
	size_t i;

	qsort(v, n, sizeof *v, bench_cmp);
	i = (size_t)(q * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

static void
bench_load(void)
{
	char		 dir[4096], *cause = NULL;
	const char	*base = getenv("BENCH_TZIF_DIR");
	size_t		 i;

	if (base == NULL || *base == '\0')
		base = BENCH_TZIF_DIR;
	for (i = 0; i < NZONES; i++) {
		if (bench_zones[i].dir == NULL) {
			zones[i] = tz_new_utc();
			continue;
		}
		/* The fat directory is BENCH_TZIF_DIR; slim is beside it. */
		if (*bench_zones[i].dir == '\0')
			(void)snprintf(dir, sizeof dir, "%s", base);
		else
			(void)snprintf(dir, sizeof dir, "%s/../%s", base,
			    bench_zones[i].dir);
		zones[i] = tz_load_file(dir, bench_zones[i].name, &cause);
		if (zones[i] == NULL) {
			(void)fprintf(stderr, "bench_next: %s (set "
			    "BENCH_TZIF_DIR to tests/data/tzif/fat)\n", cause);
			exit(1);
		}
	}
	for (i = 0; i < NEXPRS; i++) {
		if ((exprs[i] = cronexpr_parse(bench_exprs[i], &cause)) ==
		    NULL) {
			(void)fprintf(stderr, "bench_next: %s\n", cause);
			exit(1);
		}
	}
}

/*
 * Starting instants of zone zi: half uniform over 2000-2100, half within
 * NEAR of a transition there (uniform for a zone without any).
 */
static void
bench_starts(size_t zi)
{
	static int64_t		 trans[1024];
	struct tz_period	 p;
	size_t			 ntrans = 0, i;
	int64_t			 t;

	for (t = T2000; t < T2100 && ntrans < 1024; t = p.end) {
		tz_period_at(zones[zi], t, &p);
		if (p.end >= T2100)
			break;
		trans[ntrans++] = p.end;
	}
	for (i = 0; i < BENCH_STARTS; i++) {
		if (i % 2 == 0 || ntrans == 0)
			starts[zi][i] = T2000 + (int64_t)(bench_rand() %
			    (uint64_t)(T2100 - T2000));
		else
			starts[zi][i] = trans[bench_rand() % ntrans] +
			    (int64_t)(bench_rand() % (2 * NEAR + 1)) - NEAR;
		locals[zi][i] = tz_to_local(zones[zi], starts[zi][i], NULL);
	}
}

static uint32_t	 times[NEXPRS][NZONES][BENCH_STARTS];	/* ns per call */
static uint64_t	 clock_cost;		/* ns of one clock read and store */

/* One batch of cronexpr_next, each call timed into times[ei][zi]. */
static void
bench_next_batch(size_t ei, size_t zi)
{
	const struct cronexpr	*e = exprs[ei];
	const struct tz		*z = zones[zi];
	uint32_t		*tv = times[ei][zi];
	uint64_t		 prev, now;
	int64_t			 out, acc = 0;
	size_t			 i;

	prev = bench_now();
	for (i = 0; i < BENCH_STARTS; i++) {
		if (cronexpr_next(e, z, TZ_GAP_AUTO, TZ_FOLD_AUTO,
		    starts[zi][i], &out) == 0)
			acc += out;
		now = bench_now();
		tv[i] = now - prev > clock_cost ?
		    (uint32_t)(now - prev - clock_cost) : 0;
		prev = now;
	}
	sink += acc;
}

static int
bench_cmp32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of n values, which are sorted in place. */
static double
bench_median32(uint32_t *v, size_t n)
{
	qsort(v, n, sizeof *v, bench_cmp32);
	return n % 2 ? v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The cost of the timing loop itself: the median of empty iterations. */
static void
bench_calibrate(void)
{
	static uint32_t	v[100000];
	uint64_t	prev, now;
	size_t		i;

	prev = bench_now();
	for (i = 0; i < 100000; i++) {
		now = bench_now();
		v[i] = (uint32_t)(now - prev);
		prev = now;
	}
	clock_cost = (uint64_t)bench_median32(v, 100000);
}

static uint64_t
bench_period_batch(size_t zi)
{
	struct tz_period	p;
	uint64_t		t0;
	int64_t			acc = 0;
	size_t			i;

	t0 = bench_now();
	for (i = 0; i < BENCH_STARTS; i++) {
		tz_period_at(zones[zi], starts[zi][i], &p);
		acc += p.utoff;
	}
	t0 = bench_now() - t0;
	sink += acc;
	return t0;
}

static uint64_t
bench_l2u_batch(size_t zi)
{
	int64_t		out[TZ_OCC_MAX], acc = 0;
	uint64_t	t0;
	size_t		i;

	t0 = bench_now();
	for (i = 0; i < BENCH_STARTS; i++)
		acc += tz_local_to_utc(zones[zi], locals[zi][i], out, NULL);
	t0 = bench_now() - t0;
	sink += acc;
	return t0;
}

/* Parse (and free) every expression of the mix, BENCH_STARTS / 10 times. */
static uint64_t
bench_parse_batch(void)
{
	struct cronexpr	*e;
	char		*cause;
	uint64_t	 t0;
	size_t		 i, j;

	t0 = bench_now();
	for (j = 0; j < BENCH_STARTS / 10; j++) {
		for (i = 0; i < NEXPRS; i++) {
			e = cronexpr_parse(bench_exprs[i], &cause);
			sink += e != NULL;
			cronexpr_free(e);
		}
	}
	return bench_now() - t0;
}

#define PARSE_CALLS	(BENCH_STARTS / 10 * NEXPRS)

static void
bench_cpu(char *buf, size_t len)
{
	FILE	*f = fopen("/proc/cpuinfo", "r");
	char	 line[256], *p;

	(void)snprintf(buf, len, "unknown CPU");
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "model name", 10) == 0 &&
		    (p = strchr(line, ':')) != NULL) {
			p += 1 + (p[1] == ' ');
			p[strcspn(p, "\n")] = '\0';
			(void)snprintf(buf, len, "%s", p);
			break;
		}
	}
	(void)fclose(f);
}

/* One batch of cronexpr_next for every expression and zone. */
static void
bench_round(void)
{
	size_t ei, zi;

	for (ei = 0; ei < NEXPRS; ei++)
		for (zi = 0; zi < NZONES; zi++)
			bench_next_batch(ei, zi);
}

/* One untimed round, for instruction counts; prints the calls made. */
static int
bench_once(void)
{
	bench_round();
	(void)printf("bench_next --once: %zu cronexpr_next calls\n",
	    NEXPRS * NZONES * (size_t)BENCH_STARTS);
	return 0;
}

/* Median and 99th percentile over rounds of one statistic. */
static void
bench_stat(const double *v, size_t n, double *med, double *p99)
{
	static double tmp[BENCH_ROUNDS * 10];

	memcpy(tmp, v, n * sizeof *tmp);
	*med = bench_quantile(tmp, n, 0.5);
	if (p99 != NULL)
		*p99 = bench_quantile(tmp, n, 0.99);
}

#define ROUNDS_MAX	(BENCH_ROUNDS * 10)

int
main(int argc, char **argv)
{
	/* Per round: median call of each cell, row (all zones), column
	 * (all expressions) and the whole mix; mean call of each cell. */
	static double	 cmed[NEXPRS][NZONES][ROUNDS_MAX];
	static double	 cmean[NEXPRS][NZONES][ROUNDS_MAX];
	static double	 rmed[NEXPRS][ROUNDS_MAX], zmed[NZONES][ROUNDS_MAX];
	static double	 amed[ROUNDS_MAX];
	static double	 per[NZONES][ROUNDS_MAX], l2u[NZONES][ROUNDS_MAX];
	static double	 parse[ROUNDS_MAX];
	static uint32_t	 pool[NEXPRS * NZONES * BENCH_STARTS];
	double		 med, p99, mean, allmean = 0, m;
	uint64_t	 sum;
	char		 cpu[128];
	long		 rounds = BENCH_ROUNDS;
	size_t		 r, ei, zi, i, n, nr;

	bench_load();
	for (zi = 0; zi < NZONES; zi++)
		bench_starts(zi);
	bench_calibrate();
	if (argc > 1 && strcmp(argv[1], "--once") == 0)
		return bench_once();
	if (argc > 1 && ((rounds = strtol(argv[1], NULL, 10)) < 1 ||
	    rounds > ROUNDS_MAX)) {
		(void)fprintf(stderr, "usage: bench_next [ROUNDS 1-%d] | "
		    "--once\n", ROUNDS_MAX);
		return 2;
	}
	nr = (size_t)rounds;

	bench_round();				/* warm up */
	for (r = 0; r < nr; r++) {
		bench_round();
		for (ei = 0; ei < NEXPRS; ei++) {
			for (zi = 0; zi < NZONES; zi++) {
				for (sum = 0, i = 0; i < BENCH_STARTS; i++)
					sum += times[ei][zi][i];
				cmean[ei][zi][r] = (double)sum / BENCH_STARTS;
			}
		}
		/* Whole mix, then each row and column, then each cell;
		 * each median sorts its own copy. */
		memcpy(pool, times, sizeof pool);
		amed[r] = bench_median32(pool, sizeof pool / sizeof *pool);
		for (ei = 0; ei < NEXPRS; ei++) {
			memcpy(pool, times[ei], sizeof times[ei]);
			rmed[ei][r] = bench_median32(pool,
			    NZONES * BENCH_STARTS);
		}
		for (zi = 0; zi < NZONES; zi++) {
			for (n = 0, ei = 0; ei < NEXPRS; ei++, n +=
			    BENCH_STARTS)
				memcpy(pool + n, times[ei][zi],
				    sizeof times[ei][zi]);
			zmed[zi][r] = bench_median32(pool, n);
		}
		for (ei = 0; ei < NEXPRS; ei++)
			for (zi = 0; zi < NZONES; zi++)
				cmed[ei][zi][r] = bench_median32(
				    times[ei][zi], BENCH_STARTS);
		for (zi = 0; zi < NZONES; zi++) {
			per[zi][r] = (double)bench_period_batch(zi) /
			    BENCH_STARTS;
			l2u[zi][r] = (double)bench_l2u_batch(zi) /
			    BENCH_STARTS;
		}
		parse[r] = (double)bench_parse_batch() / PARSE_CALLS;
	}

	bench_cpu(cpu, sizeof cpu);
	(void)printf("bench_next: %s; %zu rounds of %d starts per cell "
	    "(2000-2100, half within 3 h\nof a DST transition); clock read "
	    "%llu ns, subtracted.  ns per call: median over rounds of each\n"
	    "round's median call; p99 = 99th percentile of those; mean = "
	    "mean call (median over rounds).\n\n", cpu, nr, BENCH_STARTS,
	    (unsigned long long)clock_cost);
	(void)printf("%-16s", "cronexpr_next");
	for (zi = 0; zi < NZONES; zi++)
		(void)printf(" %9s", bench_zones[zi].label);
	(void)printf(" | %6s %6s %6s\n", "all", "p99", "mean");
	for (ei = 0; ei < NEXPRS; ei++) {
		(void)printf("%-16s", bench_exprs[ei]);
		for (mean = 0, zi = 0; zi < NZONES; zi++) {
			bench_stat(cmed[ei][zi], nr, &med, NULL);
			(void)printf(" %9.0f", med);
			bench_stat(cmean[ei][zi], nr, &m, NULL);
			mean += m / NZONES;
		}
		allmean += mean / NEXPRS;
		bench_stat(rmed[ei], nr, &med, &p99);
		(void)printf(" | %6.0f %6.0f %6.0f\n", med, p99, mean);
	}
	(void)printf("%-16s", "all expressions");
	for (zi = 0; zi < NZONES; zi++) {
		bench_stat(zmed[zi], nr, &med, NULL);
		(void)printf(" %9.0f", med);
	}
	bench_stat(amed, nr, &med, &p99);
	(void)printf(" | %6.0f %6.0f %6.0f\n", med, p99, allmean);

	(void)printf("\n%-16s", "tz_period_at");
	for (zi = 0; zi < NZONES; zi++) {
		bench_stat(per[zi], nr, &m, NULL);
		(void)printf(" %9.1f", m);
	}
	(void)printf("   (mean of a batch)\n%-16s", "tz_local_to_utc");
	for (zi = 0; zi < NZONES; zi++) {
		bench_stat(l2u[zi], nr, &m, NULL);
		(void)printf(" %9.1f", m);
	}
	bench_stat(parse, nr, &m, &p99);
	(void)printf("   (mean of a batch)\n%-16s %9.0f   (mean over the %zu "
	    "expressions above, with cronexpr_free; p99 %.0f)\n",
	    "cronexpr_parse", m, NEXPRS, p99);

	bench_stat(amed, nr, &med, &p99);
	(void)printf("\ntarget: cronexpr_next under 1000 ns per call: %s "
	    "(median %.0f ns, p99 %.0f ns, mean %.0f ns)\n",
	    med < 1000 && allmean < 1000 ? "met" : "NOT MET", med, p99,
	    allmean);
	return 0;
}

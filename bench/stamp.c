/*
 * stamp.c -- append the wall-clock time (ns since the epoch) to a file:
 * the "trivial program" of the benchmarks, which records its own start.
 * One write with O_APPEND, so concurrent stamps do not interleave.
 *
 *   stamp FILE        appends "NOW_NS\n"      (burst.sh)
 *   stamp FILE TAG    appends "TAG NOW_NS\n"  (steady.sh: TAG is the
 *                     scheduled instant, $TICKD_SCHEDULED_AT)
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec	ts;
	char		buf[160];
	long long	now;
	int		fd, n;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	if (argc != 2 && argc != 3)
		return 2;
	now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	if (argc == 3)
		n = snprintf(buf, sizeof buf, "%.100s %lld\n", argv[2], now);
	else
		n = snprintf(buf, sizeof buf, "%lld\n", now);
	if (n < 0 || (size_t)n >= sizeof buf)
		return 1;
	if ((fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT, 0644)) == -1)
		return 1;
	if (write(fd, buf, (size_t)n) != n)
		return 1;
	return close(fd) == 0 ? 0 : 1;
}

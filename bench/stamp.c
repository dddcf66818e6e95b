/*
 * stamp.c -- append the wall-clock time (ns since the epoch) to a file:
 * the "trivial program" of the burst benchmark, which records its own
 * start.  One write with O_APPEND, so concurrent stamps do not interleave.
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec	ts;
	char		buf[32];
	int		fd, n;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	if (argc != 2)
		return 2;
	if ((fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT, 0644)) == -1)
		return 1;
	n = snprintf(buf, sizeof buf, "%lld\n",
	    (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	if (write(fd, buf, (size_t)n) != n)
		return 1;
	return close(fd) == 0 ? 0 : 1;
}

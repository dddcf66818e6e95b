/*
 * slowsync.c -- an LD_PRELOAD shim that makes fsync and fdatasync take
 * SLOWSYNC_MS (20) milliseconds longer: a slow disk (a spinning one, a
 * busy SAN) on a machine that has none.  For steady.sh's TICKD_ENV:
 *
 *	TICKD_ENV="LD_PRELOAD=$PWD/build/bench/slowsync.so SLOWSYNC_MS=20"
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void
slowsync_wait(void)
{
	const char	*v = getenv("SLOWSYNC_MS");
	long		 ms = v != NULL ? strtol(v, NULL, 10) : 20;
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) != 0)
		;
}

int
fsync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");

	slowsync_wait();
	return real(fd);
}

int
fdatasync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");

	slowsync_wait();
	return real(fd);
}

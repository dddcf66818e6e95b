/*
 * clock.c -- read the wall, monotonic and boot clocks in milliseconds
 * (wall and boot also in nanoseconds: to wait for an instant precisely,
 * and to know a new process's start time without asking /proc), and
 * sleep until the wall clock reads an instant.
 *
 * Wall-clock time decides when an instance is due; the monotonic clock
 * measures durations (timeouts, grace periods, run times), so a clock step
 * never stretches or shortens them.  The difference between wall and boot
 * time changes only when the clock is stepped; between wall and monotonic
 * also when the machine was suspended: that is how the two are told apart.
 * Every read goes through here, which is the seam tests (and libfaketime)
 * act on.
 *
 * DIAGNOSTICS: none; clock_gettime on these clocks cannot fail on Linux.
 */
#include <time.h>

#include "clock.h"

/* Clock id read in milliseconds. */
static int64_t
clock_ms(clockid_t id)
{
	struct timespec ts;

	(void)clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wall-clock Unix time in milliseconds. */
int64_t
clock_wall_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

/* Wall-clock Unix time in nanoseconds. */
int64_t
clock_wall_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Monotonic milliseconds (stops during suspend). */
int64_t
clock_mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* Nanoseconds since boot, suspend included. */
int64_t
clock_boot_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_BOOTTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Monotonic nanoseconds (stops during suspend). */
static int64_t
clock_mono_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Milliseconds since boot, suspend included. */
int64_t
clock_boot_ms(void)
{
	return clock_ms(CLOCK_BOOTTIME);
}

/*
 * Sleep until the wall clock reads wall_ms, timed on the monotonic clock:
 * a step while asleep neither stretches nor shortens the wait.  The sleeps
 * are relative, to a deadline read on the monotonic clock: libfaketime
 * 0.9.10 (the tests' clock) takes an absolute CLOCK_MONOTONIC sleep for
 * a faked wall-clock time even with FAKETIME_DONT_FAKE_MONOTONIC, and the
 * kernel refuses the negative time it makes of it (EINVAL: no sleep at
 * all).  A sleep cut short, by a signal or an error, is taken again for
 * what is left, so the wait never ends before the deadline.
 */
void
clock_wait_wall_ms(int64_t wall_ms)
{
	struct timespec	ts;
	int64_t		left = wall_ms * 1000000 - clock_wall_ns(), end;

	if (left <= 0)
		return;
	end = clock_mono_ns() + left;
	while ((left = end - clock_mono_ns()) > 0) {
		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
		/* 0, EINTR, or an error: the loop checks the time again. */
		(void)clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	}
}

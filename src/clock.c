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
#include <errno.h>
#include <time.h>

#include "clock.h"

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

/* Milliseconds since boot, suspend included. */
int64_t
clock_boot_ms(void)
{
	return clock_ms(CLOCK_BOOTTIME);
}

/*
 * Sleep until the wall clock reads wall_ms, timed on the monotonic clock:
 * a step while asleep neither stretches nor shortens the wait.  Signals
 * do not cut it short.
 */
void
clock_wait_wall_ms(int64_t wall_ms)
{
	struct timespec	ts;
	int64_t		left = wall_ms * 1000000 - clock_wall_ns(), at;

	if (left <= 0)
		return;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	at = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + left;
	ts.tv_sec = at / 1000000000;
	ts.tv_nsec = at % 1000000000;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	    EINTR)
		;
}

/*
 * clock.c -- read the wall, monotonic and boot clocks in milliseconds
 * (wall and boot also in nanoseconds: to wait for an instant precisely,
 * and to know a new process's start time without asking /proc).
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

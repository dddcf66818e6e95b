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
 * act on.  A wait for an instant ends only once the wall clock has read
 * it: never before, whatever the clock did meanwhile.
 *
 * DIAGNOSTICS: none; clock_gettime on these clocks cannot fail on Linux;
 * a wait that cannot end at its instant says so (-1).
 */
#include <errno.h>
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
 * Sleep until the wall clock reads wall_ms, for at most max_ms of the
 * monotonic clock.  The wall clock is read again after every sleep: a
 * step back meanwhile (by hand, by NTP, a leap second) moves the instant
 * away, and the wait goes on for it; a step forward ends the wait at the
 * next reading.  Slewing changes the rate of both clocks alike.  The
 * sleeps are relative: libfaketime 0.9.10 (the tests' clock) takes an
 * absolute CLOCK_MONOTONIC sleep for a faked wall-clock time even with
 * FAKETIME_DONT_FAKE_MONOTONIC, and the kernel refuses the negative time
 * it makes of it (EINVAL: no sleep at all).  Returns 0 once the wall
 * clock reads wall_ms or later; -1 when it would not within max_ms (the
 * clock went back that far) or a sleep failed, having slept no longer
 * than max_ms.
 */
int
clock_wait_wall_ms(int64_t wall_ms, int64_t max_ms)
{
	struct timespec	ts;
	int64_t		end = clock_mono_ns() + max_ms * 1000000, left;
	int		rc;

	while ((left = wall_ms * 1000000 - clock_wall_ns()) > 0) {
		if (left > end - clock_mono_ns())
			return -1;
		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
		rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		if (rc != 0 && rc != EINTR)
			return -1;
	}
	return 0;
}

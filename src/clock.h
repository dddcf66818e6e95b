/*
 * clock.h -- the daemon's three clocks, read in one place.
 */
#ifndef TICKD_CLOCK_H
#define TICKD_CLOCK_H

#include <stdint.h>

int64_t	clock_wall_ms(void);	/* CLOCK_REALTIME: decides *when* */
int64_t	clock_wall_ns(void);	/* the same, to the nanosecond */
int64_t	clock_mono_ms(void);	/* CLOCK_MONOTONIC: decides *how long* */
int64_t	clock_boot_ms(void);	/* CLOCK_BOOTTIME: counts suspend too */
int64_t	clock_boot_ns(void);
/* Sleep until the wall clock reads an instant (ms), for at most ms. */
int	clock_wait_wall_ms(int64_t, int64_t);

#endif /* TICKD_CLOCK_H */

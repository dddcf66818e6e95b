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
void	clock_wait_wall_ms(int64_t);	/* sleep until the wall clock reads it */

#endif /* TICKD_CLOCK_H */

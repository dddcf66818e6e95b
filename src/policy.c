/*
 * policy.c -- pure scheduling decisions.
 *
 * policy_random_delay spreads a job's instances over a window without
 * state: the delay is a hash of (machine id, job, scheduled instant), so
 * it is the same after a reload or a restart, differs between machines
 * and jobs, and is capped so that an instance never starts at or after
 * the job's next instance.
 *
 * policy_scan finds the instances of a job that are due: from its next
 * planned instant through now.  They are summarised as a range (first,
 * last, count), never listed, so a job every second that was down for a
 * month costs one pass and no memory; the count stops at POLICY_SCAN_MAX.
 *
 * DIAGNOSTICS: none; pure functions.
 */
#include <string.h>

#include "policy.h"

/* 64-bit FNV-1a of a string and its NUL, continuing from h. */
static uint64_t
policy_hash(uint64_t h, const void *data, size_t len)
{
	const unsigned char	*p = data;
	size_t			 i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

/*
 * The delay, in seconds from 0 to max, of the instance at `at` of job on
 * this machine; never so long that the instance would start at or after
 * `next` (the job's following instance, -1 if unknown).
 */
int64_t
policy_random_delay(const char *machine_id, const char *job, int64_t at,
    int64_t max, int64_t next)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325);
	int64_t		d;

	if (max <= 0)
		return 0;
	h = policy_hash(h, machine_id, strlen(machine_id) + 1);
	h = policy_hash(h, job, strlen(job) + 1);
	h = policy_hash(h, &at, sizeof at);
	/* Final avalanche (splitmix64) so nearby instants spread out. */
	h ^= h >> 30;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 27;
	h *= UINT64_C(0x94d049bb133111eb);
	h ^= h >> 31;
	d = (int64_t)(h % (uint64_t)(max + 1));
	if (next > at && d >= next - at)
		d = next - at - 1;
	return d;
}

/*
 * The instances of schedule s due at now, starting with its next planned
 * instant `next` (which must be an instant of s): their range and count,
 * and the first instant after now.
 */
void
policy_scan(const struct schedule *s, const struct tz *z, enum tz_gap gap,
    enum tz_fold fold, int64_t next, int64_t now, struct policy_late *out)
{
	int64_t t = next, iv, w, u;

	memset(out, 0, sizeof *out);
	out->first = out->last = out->prev = out->next = -1;
	if (next < 0 || next > now) {
		out->next = next;
		return;
	}
	out->first = next;
	if (schedule_kind(s) == SCHEDULE_EVERY) {
		/* Arithmetic: instants are multiples of the interval. */
		iv = schedule_interval(s);
		out->count = (now - next) / iv + 1;
		out->last = next + (out->count - 1) * iv;
		out->prev = out->count > 1 ? out->last - iv : -1;
		out->next = out->last + iv;
		return;
	}
	for (;;) {
		out->prev = out->last;
		out->last = t;
		out->count++;
		if (schedule_next(s, z, gap, fold, t, &t) == -1) {
			out->next = -1;
			return;
		}
		if (t > now) {
			out->next = t;
			return;
		}
		if (out->count >= POLICY_SCAN_MAX) {
			/*
			 * Too many to count: find the newest due instant
			 * from a window before now that holds one, doubling
			 * the window, then walk only that window.
			 */
			out->capped = 1;
			for (w = 86400; now - w > t; w *= 2) {
				if (schedule_next(s, z, gap, fold, now - w,
				    &u) == 0 && u <= now) {
					t = u;
					break;
				}
			}
			while (t <= now) {
				out->prev = out->last;
				out->last = t;
				if (schedule_next(s, z, gap, fold, t, &t) ==
				    -1) {
					out->next = -1;
					return;
				}
			}
			out->next = t;
			return;
		}
	}
}

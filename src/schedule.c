/*
 * schedule.c -- parse a job's schedule and compute its instants.
 *
 * Three forms: a cron expression or macro (cronexpr.c), "every DURATION"
 * (or "@every DURATION", as Go's cron libraries write it)
 * and "after DURATION" (duration.c).  Fixed-rate instants are the
 * multiples of the interval since the Unix epoch, so they are the same
 * across restarts and reloads and need no stored anchor ("every 1d" fires
 * at 00:00 UTC, not local midnight: use "@daily" for that).  Fixed-delay
 * instants depend on when the previous run ended, which only the daemon
 * knows; schedule_after_next() does their arithmetic.
 *
 * DIAGNOSTICS: schedule_parse returns NULL with *cause set; schedule_next
 * returns -1 when there is no next instant.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "civil.h"
#include "cronexpr.h"
#include "duration.h"
#include "schedule.h"
#include "xmalloc.h"

struct schedule {
	enum schedule_kind	 kind;
	struct cronexpr		*cron;		/* SCHEDULE_CRON, _REBOOT */
	int64_t			 interval;	/* _EVERY, _AFTER: seconds */
	char			*text;
};

/*
 * If text is word, alone or followed by blanks, the rest after the
 * blanks (possibly empty), else NULL.
 */
static const char *
schedule_keyword(const char *text, const char *word)
{
	size_t n = strlen(word);

	if (strncasecmp(text, word, n) != 0 ||
	    (text[n] != ' ' && text[n] != '\t' && text[n] != '\0'))
		return NULL;
	text += n;
	while (*text == ' ' || *text == '\t')
		text++;
	return text;
}

/*
 * Parse a schedule; opts (NULL: cron) say how to read a cron expression.
 * Returns a new schedule (caller frees with schedule_free), or NULL with
 * *cause set.
 */
struct schedule *
schedule_parse(const char *text, const struct cronexpr_opts *opts,
    char **cause)
{
	struct schedule	*s = xcalloc(1, sizeof *s);
	const char	*rest;
	char		*why = NULL;
	size_t		 len;

	while (isspace((unsigned char)*text))
		text++;
	len = strlen(text);
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	s->text = xstrndup(text, len);
	text = s->text;
	/* "@every 1h30m": robfig/cron's, ofelia's and supercronic's. */
	if ((rest = schedule_keyword(text, "every")) != NULL ||
	    (rest = schedule_keyword(text, "@every")) != NULL ||
	    (rest = schedule_keyword(text, "after")) != NULL) {
		s->kind = tolower((unsigned char)text[0]) == 'a' ?
		    SCHEDULE_AFTER : SCHEDULE_EVERY;
		if (*rest == '\0') {
			*cause = xasprintf("%s: needs a duration, e.g. \"%s "
			    "15m\"", s->kind == SCHEDULE_EVERY ? "every" :
			    "after", s->kind == SCHEDULE_EVERY ? "every" :
			    "after");
			goto fail;
		}
		if (duration_parse(rest, &s->interval, &why) == -1) {
			*cause = xasprintf("%s: %s", s->kind ==
			    SCHEDULE_EVERY ? "every" : "after", why);
			free(why);
			goto fail;
		}
		if (s->interval == 0) {
			*cause = xasprintf("%s: the interval must be at least "
			    "1s", s->kind == SCHEDULE_EVERY ? "every" : "after");
			goto fail;
		}
		return s;
	}
	if ((s->cron = cronexpr_parse(text, opts, cause)) == NULL)
		goto fail;
	s->kind = cronexpr_is_reboot(s->cron) ? SCHEDULE_REBOOT :
	    SCHEDULE_CRON;
	/* The expression keeps the same text: one copy per job. */
	free(s->text);
	s->text = NULL;
	return s;

fail:
	schedule_free(s);
	return NULL;
}

/* Free a schedule; NULL is allowed. */
void
schedule_free(struct schedule *s)
{
	if (s == NULL)
		return;
	cronexpr_free(s->cron);
	free(s->text);
	free(s);
}

/* The kind of schedule. */
enum schedule_kind
schedule_kind(const struct schedule *s)
{
	return s->kind;
}

/* The schedule's text as written. */
const char *
schedule_text(const struct schedule *s)
{
	return s->cron != NULL ? cronexpr_text(s->cron) : s->text;
}

/* The cron expression of a cron or @reboot schedule, else NULL. */
const struct cronexpr *
schedule_cron(const struct schedule *s)
{
	return s->cron;
}

/* The interval of an "every" or "after" schedule in seconds, else 0. */
int64_t
schedule_interval(const struct schedule *s)
{
	return s->interval;
}

/*
 * The first instant strictly after `after` for a cron or fixed-rate
 * schedule.  Returns 0 with *out set, or -1 if there is none (fixed-delay
 * and @reboot schedules have no calendar of instants).
 */
int
schedule_next(const struct schedule *s, const struct tz *z, enum tz_gap gap,
    enum tz_fold fold, int64_t after, int64_t *out)
{
	int64_t q;

	switch (s->kind) {
	case SCHEDULE_CRON:
		return cronexpr_next(s->cron, z, gap, fold, after, out);
	case SCHEDULE_EVERY:
		/* The next multiple of the interval, rounding down first. */
		q = after / s->interval - (after % s->interval < 0);
		if (q + 1 > (CRONEXPR_TIME_LIMIT - 1) / s->interval)
			return -1;	/* the next one is at year 10000 */
		*out = (q + 1) * s->interval;
		return 0;
	case SCHEDULE_AFTER:
	case SCHEDULE_REBOOT:
	default:
		return -1;
	}
}

/*
 * The last instant of a schedule whose cron expression names years
 * (Quartz): 0 with *out set, or -1 when it has no last instant (no year
 * field) or none at all.  A binary search over starting points: an
 * instant follows t exactly when t is before the last one.
 */
int
schedule_last(const struct schedule *s, const struct tz *z, enum tz_gap gap,
    enum tz_fold fold, int64_t *out)
{
	int64_t	lo, hi, mid, t;
	int	y;

	if (s->kind != SCHEDULE_CRON || (y = cronexpr_last_year(s->cron)) == 0)
		return -1;
	/* Two days of margin either side for any UTC offset. */
	lo = (civil_days_from_date(1970, 1, 1) - 2) * CIVIL_SECS_PER_DAY;
	hi = (civil_days_from_date(y + 1, 1, 1) + 2) * CIVIL_SECS_PER_DAY;
	if (cronexpr_next(s->cron, z, gap, fold, lo, &t) == -1)
		return -1;
	while (hi - lo > 1) {		/* next(lo) exists, next(hi) not */
		mid = lo + (hi - lo) / 2;
		if (cronexpr_next(s->cron, z, gap, fold, mid, &t) == 0)
			lo = mid;
		else
			hi = mid;
	}
	return cronexpr_next(s->cron, z, gap, fold, lo, out);
}

/* The instant a fixed-delay schedule fires after a run that ended at end. */
int64_t
schedule_after_next(const struct schedule *s, int64_t end)
{
	return end + s->interval;
}

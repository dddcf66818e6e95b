/*
 * ctl-next.c -- "tickctl next": the next firing instants of a schedule.
 *
 *   tickctl next --cron EXPR [--tz ZONE] [--from INSTANT] [-n COUNT]
 *                [--dst-gap shift|skip] [--dst-fold first|second|both]
 *
 * A fixed contract that other tools rely on: COUNT lines (default 5), each
 * one instant in RFC 3339 with the zone's UTC offset at that instant,
 * strictly increasing and strictly after --from (default now).  --tz
 * defaults to UTC.  Any invalid argument gives one line on stderr, nothing
 * on stdout and exit status 2.  If the schedule runs out of instants
 * before year 10000, the instants found are printed and the status is 1.
 *
 * DIAGNOSTICS: errors on stderr through ctl_error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cronexpr.h"
#include "ctl.h"
#include "rfc3339.h"
#include "tz.h"

#define CTL_NEXT_COUNT_MAX	1000000

static int	ctl_next_exec(int, char **);

const struct ctl_cmd ctl_next_cmd = {
	"next",
	"--cron EXPR [--tz ZONE] [--from INSTANT] [-n COUNT]\n"
	"           [--dst-gap shift|skip] [--dst-fold first|second|both]",
	"print the next firing instants of a cron expression",
	ctl_next_exec,
};

/* Parse -n: a whole number from 1 to CTL_NEXT_COUNT_MAX, else -1. */
static long
ctl_next_count(const char *s)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 1 ||
	    v > CTL_NEXT_COUNT_MAX)
		return -1;
	return v;
}

static int
ctl_next_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cron", required_argument, NULL, 'e' },
		{ "tz", required_argument, NULL, 'z' },
		{ "from", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "dst-gap", required_argument, NULL, 'g' },
		{ "dst-fold", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*expr = NULL, *zone = "UTC", *from = NULL;
	struct cronexpr	*e = NULL;
	struct tz	*z = NULL;
	enum tz_gap	 gap = TZ_GAP_AUTO;
	enum tz_fold	 fold = TZ_FOLD_AUTO;
	char		*cause = NULL, buf[RFC3339_BUFSZ];
	int64_t		 t, next;
	int32_t		 utoff;
	long		 count = 5, i;
	int		 ch, rc = CTL_EXIT_USAGE;

	opterr = 0;		/* our own one-line messages */
	while ((ch = getopt_long(argc, argv, "+:n:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'e':
			expr = optarg;
			break;
		case 'z':
			zone = optarg;
			break;
		case 'f':
			from = optarg;
			break;
		case 'n':
			if ((count = ctl_next_count(optarg)) == -1) {
				ctl_error("next: -n: \"%s\" is not a count "
				    "from 1 to %d", optarg, CTL_NEXT_COUNT_MAX);
				return CTL_EXIT_USAGE;
			}
			break;
		case 'g':
			if (tz_gap_parse(optarg, &gap) == -1) {
				ctl_error("next: --dst-gap: \"%s\" is not "
				    "shift or skip", optarg);
				return CTL_EXIT_USAGE;
			}
			break;
		case 'F':
			if (tz_fold_parse(optarg, &fold) == -1) {
				ctl_error("next: --dst-fold: \"%s\" is not "
				    "first, second or both", optarg);
				return CTL_EXIT_USAGE;
			}
			break;
		case 'h':
			(void)printf("usage: tickctl next %s\n",
			    ctl_next_cmd.usage);
			return CTL_EXIT_OK;
		case ':':
			ctl_error("next: %s needs a value (see tickctl next "
			    "--help)", argv[optind - 1]);
			return CTL_EXIT_USAGE;
		default:
			ctl_error("next: unknown option \"%s\" (see tickctl "
			    "next --help)", argv[optind - 1]);
			return CTL_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		ctl_error("next: unexpected argument \"%s\" (configured jobs "
		    "are not supported yet: use --cron)", argv[optind]);
		return CTL_EXIT_USAGE;
	}
	if (expr == NULL) {
		ctl_error("next: --cron EXPR is required");
		return CTL_EXIT_USAGE;
	}

	if ((e = cronexpr_parse(expr, &cause)) == NULL) {
		ctl_error("next: %s", cause);
		goto out;
	}
	if (cronexpr_is_reboot(e)) {
		ctl_error("next: @reboot has no firing instants: it runs once "
		    "per boot");
		goto out;
	}
	z = strcmp(zone, "UTC") == 0 ? tz_new_utc() :
	    tz_load_file(NULL, zone, &cause);
	if (z == NULL) {
		ctl_error("next: %s", cause);
		goto out;
	}
	if (from == NULL)
		t = (int64_t)time(NULL);
	else if (rfc3339_parse(from, &t, &cause) == -1) {
		ctl_error("next: --from: %s", cause);
		goto out;
	}

	rc = CTL_EXIT_OK;
	for (i = 0; i < count; i++) {
		if (cronexpr_next(e, z, gap, fold, t, &next) == -1) {
			ctl_error("next: no firing instant after %s before "
			    "year 10000", from != NULL ? from : "now");
			rc = CTL_EXIT_FAIL;
			break;
		}
		(void)tz_to_local(z, next, &utoff);
		rfc3339_format(next, utoff, buf, sizeof buf);
		if (puts(buf) == EOF)
			break;
		t = next;
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		ctl_error("next: stdout: %s", strerror(errno));
		rc = CTL_EXIT_FAIL;
	}
out:
	free(cause);
	cronexpr_free(e);
	tz_free(z);
	return rc;
}

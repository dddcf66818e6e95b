/*
 * ctl-next.c -- "tickctl next": the next firing instants of a schedule.
 *
 *   tickctl next --cron EXPR [--tz ZONE] [--from INSTANT] [-n COUNT]
 *                [--dst-gap shift|skip] [--dst-fold first|second|both]
 *                [--dialect cron|quartz] [--id JOB_ID]
 *   tickctl next JOB [--from INSTANT] [-n COUNT]
 *
 * A fixed contract that other tools rely on: COUNT lines (default 5), each
 * one instant in RFC 3339 with the zone's UTC offset at that instant,
 * strictly increasing and strictly after --from (default now).  --tz
 * defaults to UTC.  Any invalid argument gives one line on stderr, nothing
 * on stdout and exit status 2.  If the schedule runs out of instants
 * before year 10000, the instants found are printed and the status is 1.
 *
 * --dialect reads EXPR as a job's cron_dialect does (default cron);
 * Jenkins' H needs --id, the job id whose hash it stands for.
 *
 * With JOB instead of --cron, the schedule, zone and DST policies are the
 * configured job's ("every" schedules too); the output is the same.  With
 * the global --json, each instant is one object {"job", "at"} (RFC 3339
 * UTC) with "local" (as printed without --json), "dst", the DST decision
 * (cronexpr_dst: "gap-shifted" when the nominal local time does not exist
 * and the instant is the first after the gap, "fold-first" or
 * "fold-second" when it occurs twice and this is its first or second
 * instant, else null) and "nominal", the local time the expression asked
 * for ("02:30", with seconds when the expression has them; both null for
 * an "every" schedule); for --cron "job" is null and "schedule" is added.
 * The text output stays one RFC 3339 instant a line (the contract above).
 *
 * DIAGNOSTICS: errors on stderr through ctl_error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "civil.h"
#include "conf.h"
#include "cronexpr.h"
#include "ctl-job.h"
#include "ctl-json.h"
#include "ctl.h"
#include "policy.h"
#include "rfc3339.h"
#include "schedule.h"
#include "tz.h"

#define CTL_NEXT_COUNT_MAX	1000000

static int	ctl_next_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_next_cmd = {
	"next",
	"--cron EXPR [--tz ZONE] [--from INSTANT] [-n COUNT]\n"
	"           [--dst-gap shift|skip] [--dst-fold first|second|both]\n"
	"           [--dialect cron|quartz] [--id JOB_ID]\n"
	"       next JOB [--from INSTANT] [-n COUNT]",
	"print the next firing instants of a cron expression or a job",
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

/*
 * Print one instant: RFC 3339 in zone z, or a JSON object with the DST
 * decision of a cron expression e (NULL for an interval) at it.
 */
static int
ctl_next_print(struct ctl_ctx *ctx, struct ctl_json *j,
    const struct job_def *d, const char *expr, const struct cronexpr *e,
    const struct tz *z, int64_t t)
{
	enum cronexpr_dst	dst;
	struct civil		c;
	char			buf[RFC3339_BUFSZ], nominal[16];
	int64_t			local;
	int32_t			utoff;

	(void)tz_to_local(z, t, &utoff);
	rfc3339_format(t, utoff, buf, sizeof buf);
	if (!ctx->json)
		return puts(buf) == EOF ? -1 : 0;
	ctl_json_open(j, NULL);
	ctl_json_str(j, "job", d != NULL ? d->id : NULL);
	ctl_json_time(j, "at", t);
	ctl_json_str(j, "local", buf);
	if (expr != NULL)
		ctl_json_str(j, "schedule", expr);
	if (e != NULL) {
		dst = cronexpr_dst(e, z, t, &local);
		civil_split(local, &c);
		if (cronexpr_has_seconds(e))
			(void)snprintf(nominal, sizeof nominal,
			    "%02d:%02d:%02d", c.hour, c.min, c.sec);
		else
			(void)snprintf(nominal, sizeof nominal, "%02d:%02d",
			    c.hour, c.min);
		ctl_json_str(j, "dst", cronexpr_dst_name(dst));
		ctl_json_str(j, "nominal", nominal);
	} else {
		ctl_json_null(j, "dst");
		ctl_json_null(j, "nominal");
	}
	ctl_json_close(j);
	return ctl_json_print(j);
}

/* tickctl next: instants of a cron expression or of a configured job. */
static int
ctl_next_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "cron", required_argument, NULL, 'e' },
		{ "tz", required_argument, NULL, 'z' },
		{ "from", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "dst-gap", required_argument, NULL, 'g' },
		{ "dst-fold", required_argument, NULL, 'F' },
		{ "dialect", required_argument, NULL, 'D' },
		{ "id", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char		*expr = NULL, *zone = "UTC", *from = NULL;
	const char		*job = NULL, *cron_opt = NULL;
	const struct job_def	*d = NULL;
	const struct tz		*zz;
	struct cronexpr		*e = NULL;
	const struct cronexpr	*ce;
	struct tz		*z = NULL;
	struct ctl_json		 j;
	struct cronexpr_opts	 opts = { CRONEXPR_CRON, 0, 0 };
	enum tz_gap		 gap = TZ_GAP_AUTO;
	enum tz_fold		 fold = TZ_FOLD_AUTO;
	char			*cause = NULL;
	int64_t			 t, next;
	long			 count = 5, i;
	int			 ch, rc = CTL_EXIT_USAGE, found;

	ctl_json_init(&j);
	opterr = 0;		/* our own one-line messages */
	while ((ch = getopt_long(argc, argv, ":n:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'e':
			expr = optarg;
			break;
		case 'z':
			zone = optarg;
			cron_opt = "--tz";
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
			cron_opt = "--dst-gap";
			break;
		case 'F':
			if (tz_fold_parse(optarg, &fold) == -1) {
				ctl_error("next: --dst-fold: \"%s\" is not "
				    "first, second or both", optarg);
				return CTL_EXIT_USAGE;
			}
			cron_opt = "--dst-fold";
			break;
		case 'D':
			if (strcmp(optarg, "cron") == 0)
				opts.dialect = CRONEXPR_CRON;
			else if (strcmp(optarg, "quartz") == 0)
				opts.dialect = CRONEXPR_QUARTZ;
			else {
				ctl_error("next: --dialect: \"%s\" is not cron "
				    "or quartz", optarg);
				return CTL_EXIT_USAGE;
			}
			cron_opt = "--dialect";
			break;
		case 'i':
			opts.hash_set = 1;
			opts.hash = policy_id_hash(optarg);
			cron_opt = "--id";
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
	if (optind < argc && expr == NULL)
		job = argv[optind++];
	if (optind < argc) {
		ctl_error("next: unexpected argument \"%s\" (give a JOB or "
		    "--cron EXPR, not both)", argv[optind]);
		return CTL_EXIT_USAGE;
	}
	if (job != NULL && cron_opt != NULL) {
		ctl_error("next: %s goes with --cron only: job %s has its own "
		    "zone, DST policies, dialect and id", cron_opt, job);
		return CTL_EXIT_USAGE;
	}
	if (expr == NULL && job == NULL) {
		if (cron_opt != NULL)
			ctl_error("next: --cron EXPR is required");
		else
			ctl_error("next: a JOB or --cron EXPR is required");
		return CTL_EXIT_USAGE;
	}

	if (job != NULL) {
		if ((d = ctl_ctx_job(ctx, "next", job, &rc)) == NULL)
			goto out;
		rc = CTL_EXIT_USAGE;
		switch (schedule_kind(d->schedule)) {
		case SCHEDULE_REBOOT:
			ctl_error("next: job %s runs @reboot: it has no firing "
			    "instants, it runs once per boot", job);
			goto out;
		case SCHEDULE_AFTER:
			ctl_error("next: job %s runs \"%s\": each instance "
			    "follows the end of the previous one, not a "
			    "calendar (tickctl status %s shows the next)", job,
			    schedule_text(d->schedule), job);
			goto out;
		case SCHEDULE_CRON:
		case SCHEDULE_EVERY:
			break;
		}
		zz = d->tz;
	} else {
		if ((e = cronexpr_parse(expr, &opts, &cause)) == NULL) {
			struct schedule *sc;
			char *why = NULL;

			/* Not a cron expression: an interval, perhaps. */
			if ((sc = schedule_parse(expr, NULL, &why)) != NULL &&
			    schedule_kind(sc) != SCHEDULE_CRON &&
			    schedule_kind(sc) != SCHEDULE_REBOOT)
				ctl_error("next: interval schedules go in job "
				    "files: schedule = %s%s (tickctl next JOB "
				    "lists a job's instants)",
				    schedule_kind(sc) == SCHEDULE_AFTER ?
				    "" : "every ", schedule_kind(sc) ==
				    SCHEDULE_AFTER ? expr : expr +
				    strcspn(expr, " \t") + strspn(expr +
				    strcspn(expr, " \t"), " \t"));
			else
				ctl_error("next: %s", cause);
			schedule_free(sc);
			free(why);
			goto out;
		}
		if (cronexpr_is_reboot(e)) {
			ctl_error("next: @reboot has no firing instants: it "
			    "runs once per boot");
			goto out;
		}
		z = strcmp(zone, "UTC") == 0 ? tz_new_utc() :
		    tz_load_file(NULL, zone, &cause);
		if (z == NULL) {
			ctl_error("next: %s", cause);
			goto out;
		}
		zz = z;
	}
	if (from == NULL)
		t = ctx->now_ms / 1000;
	else if (rfc3339_parse(from, &t, &cause) == -1) {
		ctl_error("next: --from: %s", cause);
		goto out;
	}

	rc = CTL_EXIT_OK;
	for (i = 0; i < count; i++) {
		found = d != NULL ? schedule_next(d->schedule, d->tz, d->gap,
		    d->fold, t, &next) : cronexpr_next(e, z, gap, fold, t,
		    &next);
		ce = d != NULL ? schedule_cron(d->schedule) : e;
		if (found == -1 && ce != NULL && cronexpr_last_year(ce) != 0) {
			ctl_error("next: no firing instant after %s: its years "
			    "end in %d", i > 0 ? "the last" : from != NULL ?
			    from : "now", cronexpr_last_year(ce));
			rc = CTL_EXIT_FAIL;
			break;
		}
		if (found == -1) {
			ctl_error("next: no firing instant after %s before "
			    "year 10000", from != NULL ? from : "now");
			rc = CTL_EXIT_FAIL;
			break;
		}
		if (ctl_next_print(ctx, &j, d, d != NULL ? NULL : expr,
		    d == NULL ? e : schedule_kind(d->schedule) ==
		    SCHEDULE_CRON ? schedule_cron(d->schedule) : NULL, zz,
		    next) == -1)
			break;
		t = next;
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		ctl_error("next: stdout: %s", strerror(errno));
		rc = CTL_EXIT_FAIL;
	}
out:
	ctl_json_free(&j);
	free(cause);
	cronexpr_free(e);
	tz_free(z);
	return rc;
}

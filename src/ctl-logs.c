/*
 * ctl-logs.c -- "tickctl logs": the output of a job's runs.
 *
 *   tickctl [--json] logs [-f] [--limit N] [--source S] JOB [RUN_ID]
 *
 * The output of the last run of JOB (of its last N runs with --limit, of
 * RUN_ID when given), each attempt introduced by a header line
 *   == JOB@INSTANT (RUN_ID) attempt N, status S
 * (INSTANT the scheduled instant in UTC; the status from the store when it
 * can be read).  With -f, then the output of new attempts as they come,
 * until SIGINT or SIGTERM (exit 0).
 *
 * Two sources (--source, default auto):
 *   journal  the lines tickd logged there (log.c: output entries carry
 *            TICKD_JOB, TICKD_RUN_ID, TICKD_ATTEMPT, TICKD_SCHEDULED_AT and
 *            SYSLOG_IDENTIFIER=JOB), read with sd-journal, every line; -f
 *            waits with sd_journal_wait.  $TICKCTL_JOURNAL_DIR names a
 *            directory of journal files to read instead of the system's.
 *   store    the tail of each attempt's output that the store keeps
 *            (output_keep, as tickctl show prints it); -f polls the store
 *            every second and prints the attempts that ended since.
 * auto takes the journal when it holds output of JOB, else the store.
 * Text output begins with a line "-- output from the journal --" or
 * "-- output from the store (the kept tail of each attempt) --".
 *
 * JSON: one object per line of output (journal: source, job, run_id,
 * attempt, scheduled_at, stream, line) or per attempt (store: source,
 * job, run_id, attempt, scheduled_at, status, output_tail).
 *
 * DIAGNOSTICS: usage errors and an unknown job exit 2; a journal or a
 * store that cannot be read, or no run to show, exit 1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-journal.h>

#include "conf.h"
#include "ctl-fmt.h"
#include "ctl-json.h"
#include "ctl.h"
#include "rfc3339.h"
#include "store_query.h"
#include "xmalloc.h"

#define LOGS_SEEN_MAX	4096	/* attempts remembered while following */

static int	ctl_logs_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_logs_cmd = {
	"logs",
	"[-f] [--limit N] [--source auto|journal|store] JOB [RUN_ID]",
	"the output of a job's last runs (from the journal or the store)",
	ctl_logs_exec,
};

static volatile sig_atomic_t ctl_logs_stop;

static void
ctl_logs_sig(int sig)
{
	(void)sig;
	ctl_logs_stop = 1;
}

/* What one invocation asked for. */
struct ctl_logs {
	struct ctl_ctx	*ctx;
	const char	*job;
	const char	*run_id;	/* NULL: the last limit runs */
	long		 limit;
	int		 follow;
	int64_t		*seen;		/* store: rowid << 16 | attempt */
	size_t		 nseen;
	char		 hdr_run[256];	/* journal: the header printed last */
	int		 hdr_attempt;
};

/* Print the header of an attempt (text). */
static void
ctl_logs_header(const struct ctl_logs *L, const char *run_id,
    int64_t scheduled_at, int attempt, const char *status)
{
	char when[32];

	ctl_fmt_utc(scheduled_at, when, sizeof when);
	(void)printf("== %s@%s (%s) attempt %d%s%s\n", L->job, when,
	    run_id != NULL ? run_id : "-", attempt,
	    status != NULL ? ", status " : "", status != NULL ? status : "");
}

/* --- the store ---------------------------------------------------------- */

static int
ctl_logs_seen(struct ctl_logs *L, int64_t rowid, int attempt, int add)
{
	int64_t	key = rowid << 16 | (attempt & 0xffff);
	size_t	i;

	for (i = 0; i < L->nseen; i++)
		if (L->seen[i] == key)
			return 1;
	if (add) {
		if (L->nseen == LOGS_SEEN_MAX) {	/* forget the oldest */
			memmove(L->seen, L->seen + 1,
			    (LOGS_SEEN_MAX - 1) * sizeof *L->seen);
			L->nseen--;
		}
		L->seen[L->nseen++] = key;
	}
	return 0;
}

/* Print one attempt's kept output. */
static int
ctl_logs_store_attempt(struct ctl_logs *L, const struct store_query_run *r,
    const struct store_query_attempt *a)
{
	struct ctl_json	 j;
	const char	*status = a->outcome != NULL ? a->outcome : r->status;
	char		*vis, *line, *save = NULL;
	int		 rc = 0;

	if (L->ctx->json) {
		ctl_json_init(&j);
		ctl_json_open(&j, NULL);
		ctl_json_str(&j, "source", "store");
		ctl_json_str(&j, "job", r->job);
		ctl_json_str(&j, "run_id", r->run_id);
		ctl_json_int(&j, "attempt", a->attempt);
		ctl_json_time(&j, "scheduled_at", r->scheduled_at);
		ctl_json_str(&j, "status", status);
		if (a->output_tail != NULL)
			ctl_json_strn(&j, "output_tail", a->output_tail,
			    a->output_len);
		else
			ctl_json_null(&j, "output_tail");
		ctl_json_close(&j);
		rc = ctl_json_print(&j);
		ctl_json_free(&j);
		return rc;
	}
	ctl_logs_header(L, r->run_id, r->scheduled_at, a->attempt, status);
	if (a->output_tail == NULL || a->output_len == 0)
		return 0;
	vis = ctl_fmt_vis(a->output_tail, a->output_len, 1);
	for (line = strtok_r(vis, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		(void)printf("%s\n", line);
	free(vis);
	return 0;
}

/*
 * Print the attempts of the runs wanted (the last L->limit, or
 * L->run_id), oldest first; when following, only those that ended (the
 * output tail is kept at the end), and with only_new those not printed
 * yet.  The number printed, or -1 (said).
 */
static int
ctl_logs_store_pass(struct ctl_logs *L, struct store_query *q, int only_new)
{
	struct store_query_filter	 f;
	struct store_query_run		*v = NULL, *r;
	struct store_query_attempt	*a;
	const char			*id;
	char				*cause = NULL;
	size_t				 n = 0, na, i, k;
	int				 printed = 0, found;

	memset(&f, 0, sizeof f);
	f.job = L->job;
	f.since = -1;
	f.limit = only_new ? 20 : L->limit;
	if (L->run_id == NULL &&
	    store_query_history(q, &f, &v, &n, &cause) == -1)
		goto fail;
	/* Oldest first: history gives the newest first. */
	for (i = L->run_id != NULL ? 1 : n; i > 0; i--) {
		id = L->run_id != NULL ? L->run_id : v[i - 1].run_id;
		found = store_query_run(q, id, &r, &a, &na, &cause);
		if (found == -1)
			goto fail;
		if (found == 0 && L->run_id != NULL && !only_new) {
			ctl_error("logs: no run \"%s\" in %s (tickctl "
			    "history %s lists them)", id, L->ctx->conf->state,
			    L->job);
			return -1;
		}
		if (found == 0)
			continue;
		if (L->run_id != NULL && strcmp(r->job, L->job) != 0) {
			ctl_error("logs: run \"%s\" is of job \"%s\", not "
			    "\"%s\"", L->run_id, r->job, L->job);
			store_query_runs_free(r, 1);
			store_query_attempts_free(a, na);
			store_query_runs_free(v, n);
			return -1;
		}
		for (k = 0; k < na; k++) {
			if ((only_new || L->follow) && a[k].finished_ms == -1)
				continue;
			if (ctl_logs_seen(L, r->rowid, a[k].attempt,
			    a[k].finished_ms != -1) && only_new)
				continue;
			if (ctl_logs_store_attempt(L, r, &a[k]) == -1) {
				cause = xstrdup("stdout: write failed");
				store_query_runs_free(r, 1);
				store_query_attempts_free(a, na);
				goto fail;
			}
			printed++;
		}
		store_query_runs_free(r, 1);
		store_query_attempts_free(a, na);
	}
	store_query_runs_free(v, n);
	(void)fflush(stdout);
	return printed;
fail:
	ctl_error("logs: state %s: %s", L->ctx->conf->state, cause);
	free(cause);
	store_query_runs_free(v, n);
	return -1;
}

static int
ctl_logs_store(struct ctl_logs *L)
{
	struct store_query	*q;
	struct timespec		 ts = { 1, 0 };
	int			 n;

	if ((q = ctl_ctx_store(L->ctx)) == NULL)
		return CTL_EXIT_FAIL;
	if (!L->ctx->json)
		(void)printf("-- output from the store (the kept tail of each "
		    "attempt) --\n");
	if ((n = ctl_logs_store_pass(L, q, 0)) == -1)
		return CTL_EXIT_FAIL;
	if (!L->follow) {
		if (n == 0 && L->run_id == NULL) {
			ctl_error("logs: no run of \"%s\" in %s", L->job,
			    L->ctx->conf->state);
			return CTL_EXIT_FAIL;
		}
		return ctl_flush("logs");
	}
	while (!ctl_logs_stop) {
		if (nanosleep(&ts, NULL) == -1 && errno != EINTR)
			break;
		if (ctl_logs_stop)
			break;
		if (ctl_logs_store_pass(L, q, 1) == -1)
			return CTL_EXIT_FAIL;
	}
	return ctl_flush("logs");
}

/* --- the journal -------------------------------------------------------- */

/* A field's value (after "NAME="), copied into buf; NULL if absent. */
static const char *
ctl_logs_field(sd_journal *jr, const char *name, char *buf, size_t len)
{
	const void	*data;
	size_t		 n, nl = strlen(name);

	if (sd_journal_get_data(jr, name, &data, &n) < 0 || n <= nl)
		return NULL;
	n -= nl + 1;
	if (n >= len)
		n = len - 1;
	memcpy(buf, (const char *)data + nl + 1, n);
	buf[n] = '\0';
	return buf;
}

/* Print the entry at the journal's position. */
static int
ctl_logs_entry(struct ctl_logs *L, sd_journal *jr)
{
	struct store_query_run		*r = NULL;
	struct store_query_attempt	*a = NULL;
	struct store_query		*q;
	struct ctl_json			 j;
	char				 id[256], att[16], at[64], prio[8];
	char				 msg[8192], *cause = NULL;
	const char			*status = NULL;
	int64_t				 sched = -1;
	int				 attempt, rc = 0;
	size_t				 na = 0;

	if (ctl_logs_field(jr, "TICKD_RUN_ID", id, sizeof id) == NULL)
		(void)snprintf(id, sizeof id, "-");
	attempt = ctl_logs_field(jr, "TICKD_ATTEMPT", att, sizeof att) ?
	    atoi(att) : 0;
	if (ctl_logs_field(jr, "TICKD_SCHEDULED_AT", at, sizeof at) != NULL &&
	    rfc3339_parse(at, &sched, &cause) == -1) {
		free(cause);
		cause = NULL;
		sched = -1;
	}
	if (ctl_logs_field(jr, "MESSAGE", msg, sizeof msg) == NULL)
		msg[0] = '\0';
	if (ctl_logs_field(jr, "PRIORITY", prio, sizeof prio) == NULL)
		prio[0] = '\0';
	if (L->ctx->json) {
		ctl_json_init(&j);
		ctl_json_open(&j, NULL);
		ctl_json_str(&j, "source", "journal");
		ctl_json_str(&j, "job", L->job);
		ctl_json_str(&j, "run_id", id);
		ctl_json_int(&j, "attempt", attempt);
		ctl_json_time(&j, "scheduled_at", sched);
		ctl_json_str(&j, "stream", strcmp(prio, "4") == 0 ? "stderr" :
		    "stdout");
		ctl_json_str(&j, "line", msg);
		ctl_json_close(&j);
		rc = ctl_json_print(&j);
		ctl_json_free(&j);
		return rc;
	}
	if (strcmp(id, L->hdr_run) != 0 || attempt != L->hdr_attempt) {
		(void)snprintf(L->hdr_run, sizeof L->hdr_run, "%s", id);
		L->hdr_attempt = attempt;
		q = ctl_ctx_store_quiet(L->ctx);
		if (q != NULL && store_query_run(q, id, &r, &a, &na,
		    &cause) == 1)
			status = r->status;
		ctl_logs_header(L, id, sched, attempt, status);
		store_query_runs_free(r, r != NULL ? 1 : 0);
		store_query_attempts_free(a, na);
		free(cause);
	}
	(void)printf("%s\n", msg);	/* escaped by tickd (log.c) */
	return 0;
}

/* Open the journal and match the job's output lines; NULL (said). */
static sd_journal *
ctl_logs_journal_open(struct ctl_logs *L, int quiet)
{
	sd_journal	*jr = NULL;
	const char	*dir = getenv("TICKCTL_JOURNAL_DIR");
	char		 m[512];
	int		 e;

	e = dir != NULL && *dir != '\0' ?
	    sd_journal_open_directory(&jr, dir, 0) :
	    sd_journal_open(&jr, SD_JOURNAL_LOCAL_ONLY);
	if (e < 0) {
		if (!quiet)
			ctl_error("logs: journal%s%s: %s", dir ? " " : "",
			    dir ? dir : "", strerror(-e));
		return NULL;
	}
	(void)snprintf(m, sizeof m, "TICKD_JOB=%s", L->job);
	e = sd_journal_add_match(jr, m, 0);
	(void)snprintf(m, sizeof m, "SYSLOG_IDENTIFIER=%s", L->job);
	if (e >= 0)
		e = sd_journal_add_match(jr, m, 0);
	if (e >= 0 && L->run_id != NULL) {
		(void)snprintf(m, sizeof m, "TICKD_RUN_ID=%s", L->run_id);
		e = sd_journal_add_match(jr, m, 0);
	}
	if (e < 0) {
		if (!quiet)
			ctl_error("logs: journal: %s", strerror(-e));
		sd_journal_close(jr);
		return NULL;
	}
	return jr;
}

/* Whether the journal holds output of the job (for auto). */
static int
ctl_logs_journal_has(struct ctl_logs *L)
{
	sd_journal	*jr;
	int		 has;

	if ((jr = ctl_logs_journal_open(L, 1)) == NULL)
		return 0;
	has = sd_journal_seek_tail(jr) >= 0 && sd_journal_previous(jr) > 0;
	sd_journal_close(jr);
	return has;
}

static int
ctl_logs_journal(struct ctl_logs *L)
{
	sd_journal	*jr;
	char		 id[256], **runs;
	size_t		 nruns = 0, i;
	int		 e, found, printed = 0, rc = CTL_EXIT_OK;

	if ((jr = ctl_logs_journal_open(L, 0)) == NULL)
		return CTL_EXIT_FAIL;
	if (!L->ctx->json)
		(void)printf("-- output from the journal --\n");
	/* Back from the end to the first line of the runs wanted. */
	runs = xcalloc((size_t)L->limit + 1, sizeof *runs);
	(void)sd_journal_seek_tail(jr);
	while ((e = sd_journal_previous(jr)) > 0) {
		if (ctl_logs_field(jr, "TICKD_RUN_ID", id, sizeof id) == NULL)
			continue;
		for (found = 0, i = 0; i < nruns && !found; i++)
			found = strcmp(runs[i], id) == 0;
		if (found)
			continue;
		if (nruns == (size_t)L->limit && L->run_id == NULL)
			break;	/* a run before those wanted */
		runs[nruns++] = xstrdup(id);
	}
	if (e <= 0)
		(void)sd_journal_seek_head(jr);
	while (sd_journal_next(jr) > 0) {
		if (ctl_logs_field(jr, "TICKD_RUN_ID", id, sizeof id) == NULL)
			continue;
		for (found = 0, i = 0; i < nruns && !found; i++)
			found = strcmp(runs[i], id) == 0;
		if (!found)
			continue;
		if (ctl_logs_entry(L, jr) == -1) {
			rc = CTL_EXIT_FAIL;
			goto out;
		}
		printed++;
	}
	(void)fflush(stdout);
	if (!L->follow) {
		if (printed == 0) {
			ctl_error("logs: no output of \"%s\" in the journal",
			    L->job);
			rc = CTL_EXIT_FAIL;
		}
		goto out;
	}
	while (!ctl_logs_stop) {
		e = sd_journal_wait(jr, 1000000);
		if (e < 0 && e != -EINTR) {
			ctl_error("logs: journal: %s", strerror(-e));
			rc = CTL_EXIT_FAIL;
			goto out;
		}
		while (!ctl_logs_stop && sd_journal_next(jr) > 0) {
			if (ctl_logs_entry(L, jr) == -1) {
				rc = CTL_EXIT_FAIL;
				goto out;
			}
		}
		(void)fflush(stdout);
	}
out:
	for (i = 0; i < nruns; i++)
		free(runs[i]);
	free(runs);
	sd_journal_close(jr);
	if (rc == CTL_EXIT_OK)
		rc = ctl_flush("logs");
	return rc;
}

static int
ctl_logs_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'n' },
		{ "source", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctl_logs		 L;
	struct sigaction	 sa;
	const char		*source = "auto";
	int			 ch, rc, bad;
	long			 limit = 1;

	memset(&L, 0, sizeof L);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":fn:h", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'f':
			L.follow = 1;
			break;
		case 'n':
			if (ctl_parse_count(optarg, 1, 1000, &limit) == -1) {
				ctl_error("logs: --limit: \"%s\" is not a "
				    "number of runs from 1 to 1000", optarg);
				return CTL_EXIT_USAGE;
			}
			break;
		case 's':
			source = optarg;
			if (strcmp(source, "auto") != 0 &&
			    strcmp(source, "journal") != 0 &&
			    strcmp(source, "store") != 0) {
				ctl_error("logs: --source: \"%s\" is not "
				    "auto, journal or store", optarg);
				return CTL_EXIT_USAGE;
			}
			break;
		case 'h':
			(void)printf("usage: tickctl logs %s\n",
			    ctl_logs_cmd.usage);
			return CTL_EXIT_OK;
		default:
			return ctl_getopt_error(&ctl_logs_cmd, ch, argv);
		}
	}
	if (optind >= argc) {
		ctl_error("logs: a JOB is required (tickctl list lists them)");
		return CTL_EXIT_USAGE;
	}
	if (argc - optind > 2) {
		ctl_error("logs: unexpected argument \"%s\"",
		    argv[optind + 2]);
		return CTL_EXIT_USAGE;
	}
	L.ctx = ctx;
	L.job = argv[optind];
	L.run_id = argc - optind == 2 ? argv[optind + 1] : NULL;
	L.limit = limit;
	L.hdr_attempt = -1;
	if (ctl_ctx_job(ctx, "logs", L.job, &bad) == NULL)
		return bad;
	L.seen = xcalloc(LOGS_SEEN_MAX, sizeof *L.seen);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ctl_logs_sig;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	if (strcmp(source, "journal") == 0 ||
	    (strcmp(source, "auto") == 0 && ctl_logs_journal_has(&L)))
		rc = ctl_logs_journal(&L);
	else
		rc = ctl_logs_store(&L);
	free(L.seen);
	return rc;
}

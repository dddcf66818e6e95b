/*
 * ctl-show.c -- "tickctl show": one run instance and all its attempts.
 *
 *   tickctl [--json] show RUN_ID
 *
 * RUN_ID is the public id ("backup@2027-03-14T01:30:00Z", as in
 * TICKD_RUN_ID and tickctl history) or the row id (a number).  Shows the
 * instance as history does, then every attempt (trigger, pid, times,
 * lateness, duration, how it ended, outcome, the CPU time and peak memory
 * it used (from its cgroup, or its main process's rusage; schema 6),
 * error), the tail of the output of each attempt when the store keeps it
 * (attempts.output_tail, from schema 3), each attempt's cgroup, and the
 * journalctl command that shows the full output.
 *
 * JSON: one object: the history fields, attempt_list (objects with
 * attempt, pid, started_at, finished_at, exit_status, signal, error,
 * output_tail, and trigger, outcome, lateness_ms, duration_ms,
 * cpu_user_us, cpu_system_us, memory_peak_bytes, usage_source, cgroup,
 * invocation_id) and journal (the command).
 *
 * A batch instance's status says what its shards did, and a SHARDS
 * section follows its fields: a line per shard with its index, its
 * parameter (at most 24 bytes), status, attempts, where it runs (NODE/PID),
 * how it ended and the first line of its checkpoint (at most 60 bytes),
 * made safe for a terminal.  JSON: shards (objects with index, param,
 * run_id, status, reason, attempts, exit_status, signal, pid, owner,
 * checkpoint: its first line) and shard_counts (total, succeeded,
 * failed, running, waiting).  A shard is a run of its own ("RUN_ID#3"):
 * its "shard of" line (JSON: shard_of, shard) names its instance.
 *
 * DIAGNOSTICS: an unknown run id is one line on stderr and exit 1;
 * usage errors exit 2; an unreadable store exits 1.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctl-fmt.h"
#include "ctl-job.h"
#include "ctl-json.h"
#include "ctl.h"
#include "store_query.h"
#include "tz.h"
#include "xmalloc.h"

#define CTL_SHOW_PARAM_MAX	24	/* bytes of a shard's parameter */
#define CTL_SHOW_CKPT_MAX	60	/* of its checkpoint's first line */

static int	ctl_show_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_show_cmd = {
	"show",
	"RUN_ID",
	"one run instance with every attempt and the tail of its output",
	ctl_show_exec,
};

/* Print text (n bytes) made safe, each line prefixed by "  | ". */
static void
ctl_show_output(const char *text, size_t n)
{
	char	*vis = ctl_fmt_vis(text, n, 1), *line, *save = NULL;

	for (line = strtok_r(vis, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		(void)printf("  | %s\n", line);
	free(vis);
}

/* Where a running shard runs: "NODE/PID", "PID", or "-". */
static void
ctl_show_where(const struct store_query_shard *s, char *buf, size_t len)
{
	size_t n;

	if (s->status == NULL || strcmp(s->status, "running") != 0 ||
	    (s->pid == -1 && s->owner == NULL)) {
		(void)snprintf(buf, len, "-");
		return;
	}
	n = s->owner != NULL ? strcspn(s->owner, ":") : 0;
	if (s->pid == -1)
		(void)snprintf(buf, len, "%.*s", (int)n, s->owner);
	else
		(void)snprintf(buf, len, "%.*s%s%lld", (int)n,
		    n > 0 ? s->owner : "", n > 0 ? "/" : "",
		    (long long)s->pid);
}

/*
 * The SHARDS section of a batch instance: its counts, then a line per
 * shard (index, parameter, status, attempts, where it runs, how it
 * ended, its checkpoint's first line), bounded and made safe.
 */
static void
ctl_show_shards(struct ctl_ctx *ctx, const struct store_query_run *r,
    const struct store_query_shard *sh, size_t nsh)
{
	struct ctl_table	 t;
	char			 idx[16], att[16], where[CTL_FMT_BUFSZ];
	char			 ex[CTL_FMT_BUFSZ], line[256];
	char			*param, *ckpt, *vis;
	size_t			 i;

	ctl_fmt_progress(&r->shards, r->status != NULL &&
	    strcmp(r->status, "running") == 0 ? ctx->now_ms -
	    (r->started_ms != -1 ? r->started_ms : r->created_ms) : -1,
	    line, sizeof line);
	(void)printf("\nshards: %s\n", line);
	if (nsh == 0)
		return;
	ctl_table_init(&t, 7);
	ctl_table_row(&t, "SHARD", "PARAMETER", "STATUS", "ATT", "RUNNING ON",
	    "EXIT", "CHECKPOINT");
	for (i = 0; i < nsh; i++) {
		(void)snprintf(idx, sizeof idx, "%d", sh[i].index);
		(void)snprintf(att, sizeof att, "%d", sh[i].attempts);
		param = sh[i].param != NULL ? ctl_fmt_clip(sh[i].param,
		    strlen(sh[i].param), CTL_SHOW_PARAM_MAX) : xstrdup("-");
		ckpt = sh[i].checkpoint != NULL ? ctl_fmt_clip(
		    sh[i].checkpoint, sh[i].checkpoint_len,
		    CTL_SHOW_CKPT_MAX) : xstrdup("-");
		ctl_show_where(&sh[i], where, sizeof where);
		ctl_fmt_exit(sh[i].exit_status, sh[i].signal, ex, sizeof ex);
		(void)snprintf(line, sizeof line, "%s%s%s%s", sh[i].status,
		    sh[i].reason != NULL ? " (" : "", sh[i].reason != NULL ?
		    sh[i].reason : "", sh[i].reason != NULL ? ")" : "");
		vis = ctl_fmt_vis(line, strlen(line), 0);
		ctl_table_row(&t, idx, param, vis, att, where, ex, ckpt);
		free(vis);
		free(param);
		free(ckpt);
	}
	(void)ctl_table_print(&t, "  ");
	ctl_table_free(&t);
}

/* A batch instance's shards in JSON: "shards", then "shard_counts". */
static void
ctl_show_json_shards(struct ctl_json *j, const struct store_query_run *r,
    const struct store_query_shard *sh, size_t nsh)
{
	char	*ckpt;
	size_t	 i, n;

	ctl_json_open_array(j, "shards");
	for (i = 0; i < nsh; i++) {
		ctl_json_open(j, NULL);
		ctl_json_int(j, "index", sh[i].index);
		ctl_json_str(j, "param", sh[i].param);
		ctl_json_str(j, "run_id", sh[i].run_id);
		ctl_json_str(j, "status", sh[i].status);
		ctl_json_str(j, "reason", sh[i].reason);
		ctl_json_int(j, "attempts", sh[i].attempts);
		ctl_json_opt(j, "exit_status", sh[i].exit_status);
		ctl_json_opt(j, "signal", sh[i].signal);
		ctl_json_opt(j, "pid", sh[i].status != NULL &&
		    strcmp(sh[i].status, "running") == 0 ? sh[i].pid : -1);
		ctl_json_str(j, "owner", sh[i].owner);
		if (sh[i].checkpoint != NULL) {
			/* Its first line, as stored (JSON escapes it). */
			ckpt = memchr(sh[i].checkpoint, '\n',
			    sh[i].checkpoint_len);
			n = ckpt != NULL ? (size_t)(ckpt - sh[i].checkpoint) :
			    sh[i].checkpoint_len;
			ctl_json_strn(j, "checkpoint", sh[i].checkpoint, n);
		} else
			ctl_json_null(j, "checkpoint");
		ctl_json_close(j);
	}
	ctl_json_close_array(j);
	ctl_job_json_shards(j, "shard_counts", &r->shards);
}

/* The instance and its attempts for people. */
static void
ctl_show_text(struct ctl_ctx *ctx, struct store_query *q,
    const struct store_query_run *r, const struct store_query_attempt *a,
    size_t na, const struct store_query_shard *sh, size_t nsh,
    const struct tz *z, const char *journal)
{
	struct ctl_table	 t;
	char			 x[CTL_FMT_BUFSZ], y[CTL_FMT_BUFSZ];
	char			 line[512], *vis;
	size_t			 i;
	int			 shown = 0;

	ctl_table_init(&t, 2);
	ctl_table_row(&t, "run id", r->run_id);
	(void)snprintf(line, sizeof line, "%lld", (long long)r->rowid);
	ctl_table_row(&t, "row id", line);
	ctl_table_row(&t, "job", r->job);
	ctl_table_row(&t, "origin", r->origin);
	ctl_table_row(&t, "trigger", r->trigger);
	if (r->parent != -1) {
		(void)snprintf(line, sizeof line, "%s (shard %d)",
		    r->parent_run_id != NULL ? r->parent_run_id : "?",
		    r->shard);
		ctl_table_row(&t, "shard of", line);
	}
	ctl_fmt_status(r, line, sizeof line);
	ctl_table_row(&t, "status", line);
	if (r->detail != NULL) {
		vis = ctl_fmt_vis(r->detail, strlen(r->detail), 0);
		ctl_table_row(&t, "detail", vis);
		free(vis);
	}
	ctl_fmt_local(r->scheduled_at, z, x, sizeof x);
	ctl_fmt_utc(r->scheduled_at, y, sizeof y);
	(void)snprintf(line, sizeof line, "%s  %s", x, y);
	ctl_table_row(&t, "scheduled", line);
	ctl_fmt_local(r->started_ms == -1 ? -1 : r->started_ms / 1000, z, x,
	    sizeof x);
	ctl_table_row(&t, "started", x);
	ctl_fmt_local(r->finished_ms == -1 ? -1 : r->finished_ms / 1000, z, x,
	    sizeof x);
	ctl_table_row(&t, "finished", x);
	if (r->retry_at != -1) {
		ctl_fmt_local(r->retry_at / 1000, z, x, sizeof x);
		ctl_table_row(&t, "next attempt", x);
	}
	ctl_fmt_lateness(r->lateness_ms, x, sizeof x);
	(void)snprintf(line, sizeof line, "%s (scheduling delay: first "
	    "start minus when it was due)", x);
	ctl_table_row(&t, "lateness", r->lateness_ms != -1 ? line : "-");
	ctl_fmt_ms(r->duration_ms, x, sizeof x);
	(void)snprintf(line, sizeof line, "%s (execution time of the latest "
	    "attempt)", x);
	ctl_table_row(&t, "duration", r->duration_ms != -1 ? line : "-");
	ctl_fmt_exit(r->exit_status, r->signal, x, sizeof x);
	ctl_table_row(&t, "ended", x);
	(void)snprintf(line, sizeof line, "%d", r->attempts);
	ctl_table_row(&t, "attempts", line);
	(void)ctl_table_print(&t, NULL);
	ctl_table_free(&t);
	if (r->batch)
		ctl_show_shards(ctx, r, sh, nsh);

	if (na > 0) {
		(void)printf("\n");
		ctl_table_init(&t, 12);
		ctl_table_row(&t, "ATTEMPT", "TRIGGER", "PID", "STARTED",
		    "FINISHED", "LATENESS", "DURATION", "EXIT", "OUTCOME",
		    "CPU", "MEMORY", "ERROR");
		for (i = 0; i < na; i++) {
			char att[16], pid[24], st[CTL_FMT_BUFSZ];
			char fin[CTL_FMT_BUFSZ], late[CTL_FMT_BUFSZ];
			char dur[CTL_FMT_BUFSZ], ex[CTL_FMT_BUFSZ];
			char cpu[CTL_FMT_BUFSZ], mem[CTL_FMT_BUFSZ];

			(void)snprintf(att, sizeof att, "%d", a[i].attempt);
			if (a[i].pid != -1)
				(void)snprintf(pid, sizeof pid, "%lld",
				    (long long)a[i].pid);
			else
				(void)snprintf(pid, sizeof pid, "-");
			ctl_fmt_local(a[i].started_ms == -1 ? -1 :
			    a[i].started_ms / 1000, z, st, sizeof st);
			ctl_fmt_local(a[i].finished_ms == -1 ? -1 :
			    a[i].finished_ms / 1000, z, fin, sizeof fin);
			ctl_fmt_lateness(a[i].lateness_ms, late, sizeof late);
			if (a[i].duration_ms == -1 && a[i].finished_ms == -1 &&
			    a[i].started_ms != -1) {
				ctl_fmt_ms(ctx->now_ms - a[i].started_ms, dur,
				    sizeof dur);
				(void)strncat(dur, " so far", sizeof dur -
				    strlen(dur) - 1);
			} else
				ctl_fmt_ms(a[i].duration_ms, dur, sizeof dur);
			ctl_fmt_exit(a[i].exit_status, a[i].signal, ex,
			    sizeof ex);
			/* User and system together: the job's CPU time. */
			ctl_fmt_cpu(a[i].cpu_user_us == -1 ||
			    a[i].cpu_system_us == -1 ? -1 : a[i].cpu_user_us +
			    a[i].cpu_system_us, cpu, sizeof cpu);
			ctl_fmt_bytes(a[i].mem_peak, mem, sizeof mem);
			vis = a[i].error != NULL ? ctl_fmt_vis(a[i].error,
			    strlen(a[i].error), 0) : NULL;
			ctl_table_row(&t, att, a[i].trigger, pid, st, fin,
			    late, dur, ex, a[i].outcome, cpu, mem, vis);
			free(vis);
		}
		(void)ctl_table_print(&t, NULL);
		ctl_table_free(&t);
		/* Where it ran, and how its usage was measured. */
		for (i = 0; i < na; i++) {
			if (a[i].cgroup == NULL && a[i].usage_source == NULL)
				continue;
			(void)printf("attempt %d: %s%s%s\n", a[i].attempt,
			    a[i].cgroup != NULL ? "cgroup " : "no cgroup",
			    a[i].cgroup != NULL ? a[i].cgroup : "",
			    a[i].usage_source == NULL ? "" :
			    strcmp(a[i].usage_source, "rusage") == 0 ?
			    "; usage of its main process alone (rusage)" :
			    "; usage of all its processes (cgroup)");
		}
	}

	for (i = 0; i < na; i++) {
		if (a[i].output_tail == NULL || a[i].output_len == 0)
			continue;
		(void)printf("\noutput of attempt %d (its tail, as kept):\n",
		    a[i].attempt);
		ctl_show_output(a[i].output_tail, a[i].output_len);
		shown = 1;
	}
	if (!shown)
		(void)printf("\noutput: %s\n", store_query_has_output(q) ?
		    "none kept" : "not kept in this state database (schema "
		    "before 3)");
	(void)printf("full output:  %s\n", journal);
}

/* tickctl show RUN_ID: one instance and its attempts. */
static int
ctl_show_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct store_query_attempt	*a = NULL;
	struct store_query_run		*r = NULL;
	struct store_query_shard	*sh = NULL;
	struct store_query		*q;
	const struct job_def		*d;
	struct ctl_json			 j;
	struct tz			*utc = NULL;
	char				*cause = NULL, *journal = NULL;
	size_t				 na = 0, nsh = 0, i;
	int				 ch, found, rc = CTL_EXIT_FAIL;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			(void)printf("usage: tickctl show %s\n",
			    ctl_show_cmd.usage);
			return CTL_EXIT_OK;
		default:
			return ctl_getopt_error(&ctl_show_cmd, ch, argv);
		}
	}
	if (optind >= argc) {
		ctl_error("show: a RUN_ID is required (tickctl history lists "
		    "them)");
		return CTL_EXIT_USAGE;
	}
	if (argc - optind > 1) {
		ctl_error("show: unexpected argument \"%s\"",
		    argv[optind + 1]);
		return CTL_EXIT_USAGE;
	}
	if ((q = ctl_ctx_store(ctx)) == NULL)
		return CTL_EXIT_FAIL;
	found = store_query_run(q, argv[optind], &r, &a, &na, &cause);
	if (found == 1 && r->batch &&
	    (store_query_shard_counts(q, r, 1, &cause) == -1 ||
	    store_query_shards(q, r->rowid, &sh, &nsh, &cause) == -1))
		found = -1;
	if (found == -1) {
		ctl_error("show: state %s: %s", ctx->conf->state, cause);
		free(cause);
		store_query_runs_free(r, r != NULL ? 1 : 0);
		store_query_attempts_free(a, na);
		return CTL_EXIT_FAIL;
	}
	if (found == 0) {
		ctl_error("show: no run \"%s\" in %s (tickctl history lists "
		    "them)", argv[optind], ctx->conf->state);
		return CTL_EXIT_FAIL;
	}
	rc = CTL_EXIT_OK;
	journal = xasprintf("journalctl -u tickd TICKD_RUN_ID=%s", r->run_id);
	if (ctx->json) {
		ctl_json_init(&j);
		ctl_json_open(&j, NULL);
		ctl_json_str(&j, "run_id", r->run_id);
		ctl_json_str(&j, "job", r->job);
		ctl_json_time(&j, "scheduled_at", r->scheduled_at);
		ctl_json_str(&j, "trigger", r->trigger);
		ctl_json_str(&j, "status", r->status);
		ctl_json_str(&j, "reason", r->reason);
		ctl_json_int(&j, "attempts", r->attempts);
		ctl_json_time_ms(&j, "started_at", r->started_ms);
		ctl_json_time_ms(&j, "finished_at", r->finished_ms);
		ctl_json_opt(&j, "lateness_ms", r->lateness_ms);
		ctl_json_opt(&j, "duration_ms", r->duration_ms);
		ctl_json_opt(&j, "exit_status", r->exit_status);
		ctl_json_opt(&j, "signal", r->signal);
		ctl_json_open_array(&j, "attempt_list");
		for (i = 0; i < na; i++) {
			ctl_json_open(&j, NULL);
			ctl_json_int(&j, "attempt", a[i].attempt);
			ctl_json_opt(&j, "pid", a[i].pid);
			ctl_json_time_ms(&j, "started_at", a[i].started_ms);
			ctl_json_time_ms(&j, "finished_at", a[i].finished_ms);
			ctl_json_opt(&j, "exit_status", a[i].exit_status);
			ctl_json_opt(&j, "signal", a[i].signal);
			ctl_json_str(&j, "error", a[i].error);
			if (a[i].output_tail != NULL)
				ctl_json_strn(&j, "output_tail",
				    a[i].output_tail, a[i].output_len);
			else
				ctl_json_null(&j, "output_tail");
			ctl_json_str(&j, "trigger", a[i].trigger);
			ctl_json_str(&j, "outcome", a[i].outcome);
			ctl_json_opt(&j, "lateness_ms", a[i].lateness_ms);
			ctl_json_opt(&j, "duration_ms", a[i].duration_ms);
			ctl_json_opt(&j, "cpu_user_us", a[i].cpu_user_us);
			ctl_json_opt(&j, "cpu_system_us", a[i].cpu_system_us);
			ctl_json_opt(&j, "memory_peak_bytes", a[i].mem_peak);
			ctl_json_str(&j, "usage_source", a[i].usage_source);
			ctl_json_str(&j, "cgroup", a[i].cgroup);
			ctl_json_str(&j, "invocation_id", a[i].invocation);
			ctl_json_close(&j);
		}
		ctl_json_close_array(&j);
		ctl_json_str(&j, "kind", "run");
		ctl_json_int(&j, "row_id", r->rowid);
		ctl_json_str(&j, "origin", r->origin);
		ctl_json_str(&j, "detail", r->detail);
		ctl_json_time_ms(&j, "retry_at", r->retry_at);
		ctl_json_str(&j, "journal", journal);
		if (r->batch)
			ctl_show_json_shards(&j, r, sh, nsh);
		if (r->parent != -1) {
			ctl_json_str(&j, "shard_of", r->parent_run_id);
			ctl_json_int(&j, "shard", r->shard);
		}
		ctl_json_close(&j);
		if (ctl_json_print(&j) == -1)
			rc = CTL_EXIT_FAIL;
		ctl_json_free(&j);
	} else {
		d = ctl_ctx_conf_quiet(ctx) != NULL ?
		    conf_job(ctx->conf, r->job) : NULL;
		utc = tz_new_utc();
		ctl_show_text(ctx, q, r, a, na, sh, nsh, d != NULL &&
		    d->tz != NULL ?
		    d->tz : utc, journal);
	}
	if (ctl_flush("show") != CTL_EXIT_OK)
		rc = CTL_EXIT_FAIL;
	free(journal);
	tz_free(utc);
	store_query_runs_free(r, 1);
	store_query_attempts_free(a, na);
	store_query_shards_free(sh, nsh);
	return rc;
}

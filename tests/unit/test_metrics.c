/*
 * test_metrics.c -- the Prometheus text metrics.c writes, against golden
 * texts: the daemon's figures (no store families), and tickctl's (every
 * family): label escapes, exact seconds from milliseconds and
 * microseconds, negative offsets, quantiles, the nodes, and a job with
 * no next run or success left out of those gauges; the rule of a job's
 * state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "t.h"

static const char daemon_want[] =
"# HELP tickd_up Whether the tickd daemon runs (it holds the lock of its state database).\n"
"# TYPE tickd_up gauge\n"
"tickd_up 1\n"
"# HELP tickd_state_readable Help of the caller.\n"
"# TYPE tickd_state_readable gauge\n"
"tickd_state_readable 0\n"
"# HELP tickd_jobs Configured jobs per state.\n"
"# TYPE tickd_jobs gauge\n"
"tickd_jobs{state=\"idle\"} 1\n"
"tickd_jobs{state=\"running\"} 0\n"
"tickd_jobs{state=\"queued\"} 0\n"
"tickd_jobs{state=\"blocked\"} 0\n"
"tickd_jobs{state=\"paused\"} 0\n"
"tickd_jobs{state=\"disabled\"} 0\n"
"tickd_jobs{state=\"error\"} 1\n"
"# HELP tickd_job_state 1 for the state the job is in (idle, running, queued, blocked, paused, disabled, error), 0 for the others.\n"
"# TYPE tickd_job_state gauge\n"
"tickd_job_state{job=\"a\\\\b\\\"c\\n\",state=\"idle\"} 1\n"
"tickd_job_state{job=\"a\\\\b\\\"c\\n\",state=\"running\"} 0\n"
"tickd_job_state{job=\"a\\\\b\\\"c\\n\",state=\"queued\"} 0\n"
"tickd_job_state{job=\"a\\\\b\\\"c\\n\",state=\"blocked\"} 0\n"
"tickd_job_state{job=\"a\\\\b\\\"c\\n\",state=\"paused\"} 0\n"
"tickd_job_state{job=\"a\\\\b\\\"c\\n\",state=\"disabled\"} 0\n"
"tickd_job_state{job=\"a\\\\b\\\"c\\n\",state=\"error\"} 0\n"
"tickd_job_state{job=\"bad\",state=\"idle\"} 0\n"
"tickd_job_state{job=\"bad\",state=\"running\"} 0\n"
"tickd_job_state{job=\"bad\",state=\"queued\"} 0\n"
"tickd_job_state{job=\"bad\",state=\"blocked\"} 0\n"
"tickd_job_state{job=\"bad\",state=\"paused\"} 0\n"
"tickd_job_state{job=\"bad\",state=\"disabled\"} 0\n"
"tickd_job_state{job=\"bad\",state=\"error\"} 1\n"
"# HELP tickd_next_run_timestamp_seconds The job's next scheduled instant, Unix time.\n"
"# TYPE tickd_next_run_timestamp_seconds gauge\n"
"tickd_next_run_timestamp_seconds{job=\"a\\\\b\\\"c\\n\"} 1800000000\n"
"# HELP tickd_last_success_timestamp_seconds When the job's last successful instance ended, Unix time.\n"
"# TYPE tickd_last_success_timestamp_seconds gauge\n"
"tickd_last_success_timestamp_seconds{job=\"a\\\\b\\\"c\\n\"} 1799999999.005\n";

static const char store_want[] =
"# HELP tickd_runs_total Run instances recorded in the state database, per status (bounded by history retention).\n"
"# TYPE tickd_runs_total counter\n"
"tickd_runs_total{job=\"x\",status=\"succeeded\"} 7\n"
"# HELP tickd_skipped_total Scheduled instants that did not run, per reason: skipped instances and skipped ranges (bounded by history retention).\n"
"# TYPE tickd_skipped_total counter\n"
"# HELP tickd_failed_total Failed and dead instances, per reason: exit, signal, timeout, spawn, oom (killed for memory) ... (bounded by history retention).\n"
"# TYPE tickd_failed_total counter\n"
"tickd_failed_total{job=\"x\",reason=\"exit\"} 2\n"
"# HELP tickd_node_clock_offset_seconds A node's clock minus the database server's, as the node last measured it (PostgreSQL state).\n"
"# TYPE tickd_node_clock_offset_seconds gauge\n"
"tickd_node_clock_offset_seconds{node=\"n1\"} -2.500\n"
"# HELP tickd_node_heartbeat_age_seconds Time since a node's last heartbeat, by the database server's clock.\n"
"# TYPE tickd_node_heartbeat_age_seconds gauge\n"
"tickd_node_heartbeat_age_seconds{node=\"n1\"} 1.250\n"
"# HELP tickd_node_claiming 1 if a node's clock is within max_clock_skew of the server's (as this configuration sets it): it claims.\n"
"# TYPE tickd_node_claiming gauge\n"
"tickd_node_claiming{node=\"n1\"} 0.000\n"
"# HELP tickd_lateness_seconds Scheduling delay: an instance's first start minus when it was due.\n"
"# TYPE tickd_lateness_seconds summary\n"
"tickd_lateness_seconds{job=\"x\",quantile=\"0.5\"} ";

/* metrics_state: the first fact that holds decides. */
static const struct {
	int		 enabled, paused, blocked, running, waiting;
	const char	*want;
} state_cases[] = {
	{ 1, 0, 0, 0, 0, "idle" },
	{ 1, 0, 0, 0, 1, "queued" },
	{ 1, 0, 0, 1, 1, "running" },
	{ 1, 0, 1, 1, 1, "blocked" },
	{ 1, 1, 1, 1, 1, "paused" },
	{ 0, 1, 1, 1, 1, "disabled" },
	{ 0, 0, 0, 0, 0, "disabled" },
};

/* got is want; else both are printed whole (T_EQ_STR clips them). */
static int
golden(const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return 1;
	(void)printf("--- got:\n%s--- want:\n%s---\n", got, want);
	return 0;
}

int
main(void)
{
	static int64_t			 late[] = { -5, 10, 1500 };
	struct metrics_job		 jobs[] = {
		{ "a\\b\"c\n", "idle", 1800000000, 1799999999005 },
		{ "bad", "error", -1, -1 },
	};
	static char			 x[] = "x", n1[] = "n1";
	static char			 ok[] = "succeeded", ex[] = "exit";
	struct store_query_count	 runs = { x, ok, 7 };
	struct store_query_count	 fails = { x, ex, 2 };
	struct store_query_stats	 st;
	struct store_query_node		 node;
	struct metrics			 m;
	FILE				*fp;
	char				*buf = NULL, *p;
	size_t				 len = 0;

	T_RUN("states");
	for (size_t i = 0; i < sizeof state_cases / sizeof state_cases[0];
	    i++)
		T_EQ_STR(metrics_state(state_cases[i].enabled,
		    state_cases[i].paused, state_cases[i].blocked,
		    state_cases[i].running, state_cases[i].waiting),
		    state_cases[i].want);

	T_RUN("daemon's families");
	memset(&m, 0, sizeof m);
	m.up = 1;
	m.readable_help = "Help of the caller.";
	m.jobs = jobs;
	m.njobs = 2;
	m.last_success = 1;
	fp = open_memstream(&buf, &len);
	metrics_write(fp, &m);
	T_EQ_INT(fclose(fp), 0);
	T_TRUE(golden(buf, daemon_want));
	free(buf);

	T_RUN("no last success family");
	m.last_success = 0;
	buf = NULL;
	fp = open_memstream(&buf, &len);
	metrics_write(fp, &m);
	T_EQ_INT(fclose(fp), 0);
	T_EQ_INT(strstr(buf, "last_success") == NULL, 1);
	free(buf);

	T_RUN("store's families");
	memset(&st, 0, sizeof st);
	st.job = x;
	st.lateness = late;
	st.nlateness = 3;
	memset(&node, 0, sizeof node);
	node.node = n1;
	node.offset_ms = -2500;
	node.age_ms = 1250;
	m.last_success = 1;
	m.store = 1;
	m.runs = &runs;
	m.nruns = 1;
	m.fails = &fails;
	m.nfails = 1;
	m.st = &st;
	m.nst = 1;
	m.nodes = &node;
	m.nnodes = 1;
	m.max_clock_skew = 2;
	buf = NULL;
	fp = open_memstream(&buf, &len);
	metrics_write(fp, &m);
	T_EQ_INT(fclose(fp), 0);
	p = strstr(buf, "# HELP tickd_runs_total");
	T_EQ_INT(p != NULL && strncmp(p, store_want, sizeof store_want - 1) ==
	    0, 1);
	T_EQ_INT(strstr(buf, "tickd_lateness_seconds_sum{job=\"x\"} 1.505\n")
	    != NULL, 1);
	T_EQ_INT(strstr(buf, "tickd_lateness_seconds_count{job=\"x\"} 3\n")
	    != NULL, 1);
	T_EQ_INT(strstr(buf, "tickd_lateness_max_seconds{job=\"x\"} 1.500\n")
	    != NULL, 1);
	/* No shard: no family; summaries without values: headers only. */
	T_EQ_INT(strstr(buf, "tickd_shards_total") == NULL, 1);
	T_EQ_INT(strstr(buf, "# TYPE tickd_duration_seconds summary\n"
	    "# HELP tickd_duration_max_seconds") != NULL, 1);
	free(buf);
	return t_done();
}

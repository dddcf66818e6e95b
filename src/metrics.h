/*
 * metrics.h -- the Prometheus text exposition (0.0.4) of tickd's
 * figures, written by one function for "tickctl metrics" and for the
 * daemon's GET /metrics (server-metrics.c).
 */
#ifndef TICKD_METRICS_H
#define TICKD_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store_query.h"

/* The states of a job, in the order their samples are written. */
extern const char *const	metrics_states[];
#define METRICS_NSTATES		7

/* One job: its state (one of metrics_states) and instants. */
struct metrics_job {
	const char	*id;
	const char	*state;
	int64_t		 next_at;		/* Unix s, -1: none */
	int64_t		 last_success_ms;	/* Unix ms, -1: none */
};

/*
 * What is written.  The caller owns everything; the store's families
 * (counts, summaries, nodes) only when store is set.
 */
struct metrics {
	int				 up;
	int				 readable;
	const char			*readable_help;
	const struct metrics_job	*jobs;
	size_t				 njobs;
	int				 last_success;	/* write the family */
	int				 store;
	const struct store_query_count	*runs, *skips, *fails, *shards;
	size_t				 nruns, nskips, nfails, nshards;
	const struct store_query_stats	*st;
	size_t				 nst;
	const struct store_query_node	*nodes;
	size_t				 nnodes;
	int64_t				 max_clock_skew;	/* s */
};

const char	*metrics_state(int, int, int, int, int);
void		 metrics_write(FILE *, const struct metrics *);

#endif /* TICKD_METRICS_H */

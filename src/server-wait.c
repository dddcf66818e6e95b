/*
 * server-wait.c -- the loop's urgent work while the store waits for a
 * server.
 *
 * A store call runs inside one of the loop's callbacks and, on a server
 * (db_pg.c), waits for each answer up to its deadline: a claim is a few
 * round trips, and a server that is slow or gone holds the loop as long.
 * What must not wait that long is done here meanwhile (store_set_wait):
 * a run's timeout and the SIGKILL after its kill_grace, the watchdog, the
 * last-resort kill at shutdown, and reading the runs' output (a job that
 * writes more than a pipe holds would stop until the store answers).
 * Each of those callbacks touches no store; it is invoked here when its
 * timer is due, as the loop would have.  The rest (claims, ends,
 * tickctl's requests, SIGCHLD, the lease renewal) waits for the loop as
 * before: a run that ended is recorded when the call returns.
 *
 * Not the fence (server-cluster.c): it says the leases could not be
 * renewed, and while the store answers, slowly, the renewal is only
 * late, after the calls before it; fencing then stopped runs whose
 * leases had seconds left (t_pg_slow: instances rerun as attempts 2
 * and 3).  A server that does not answer fails each call at its
 * deadline, and the fence fires between calls, as before.
 *
 * An answer is taken whenever it is there: the deadline is judged only
 * after a poll found the socket silent (a long callback here must not
 * make an answered call fail).
 *
 * An answer within SERVER_WAIT_QUICK ms (a server on the same host or
 * network) costs one poll of its socket; a longer wait polls the runs'
 * output too, and wakes for the next of those timers.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>

#include <ev.h>

#include "clock.h"
#include "runner.h"
#include "server-int.h"
#include "xmalloc.h"

#define SERVER_WAIT_QUICK	5	/* ms: most answers come within */

/*
 * Invoke a timer's callback if it is due (or expired and not yet called
 * back by the loop).  Returns the seconds until it is due: 0 if it fired,
 * HUGE_VAL if it is not armed.
 */
static double
server_wait_timer(struct ev_loop *loop, ev_timer *w)
{
	double left;

	if (ev_is_pending(w))
		(void)ev_clear_pending(loop, w);	/* expired: re-armed */
	else if (!ev_is_active(w))
		return HUGE_VAL;
	else if ((left = ev_timer_remaining(loop, w)) > 0)
		return left;
	else if (w->repeat > 0)
		ev_timer_again(loop, w);
	else
		ev_timer_stop(loop, w);
	ev_invoke(loop, w, EV_TIMER);
	return 0;
}

/* Add a descriptor to the poll set, for a run's output (or NULL). */
static void
server_wait_push(struct server *s, int fd, short events, struct run *r)
{
	if (s->nwait == s->wait_cap) {
		s->wait_cap = s->wait_cap * 2 + 16;
		s->wait_fds = xreallocarray(s->wait_fds, s->wait_cap,
		    sizeof *s->wait_fds);
		s->wait_runs = xreallocarray(s->wait_runs, s->wait_cap,
		    sizeof *s->wait_runs);
	}
	s->wait_fds[s->nwait].fd = fd;
	s->wait_fds[s->nwait].events = events;
	s->wait_fds[s->nwait].revents = 0;
	s->wait_runs[s->nwait++] = r;
}

/*
 * The runs of a list: fire their due timers, add their open output.  The
 * seconds until the first of their timers is due, at most next.
 */
static double
server_wait_runs(struct server *s, struct run *r, double next)
{
	int stream, fd;

	for (; r != NULL; r = r->next_in_job) {
		next = fmin(next, fmin(server_wait_timer(s->loop,
		    &r->timeout_w), server_wait_timer(s->loop, &r->kill_w)));
		for (stream = 1; stream <= 2; stream++)
			if ((fd = runner_out_fd(r, stream)) != -1)
				server_wait_push(s, fd, POLLIN, r);
	}
	return next;
}

/*
 * One round: fire what is due and make the poll set, the store's socket
 * (slot 0) then the runs' output.  The seconds until the next timer is
 * due; 0 when one fired (its callback may have armed another: look
 * again).
 */
static double
server_wait_round(struct server *s, int fd, short events)
{
	double	next;
	size_t	i;

	ev_now_update(s->loop);
	next = fmin(server_wait_timer(s->loop, &s->watchdog_w),
	    server_wait_timer(s->loop, &s->kill_w));
	s->nwait = 0;
	server_wait_push(s, fd, events, NULL);
	for (i = 0; i < s->njobs; i++)
		next = server_wait_runs(s, s->jobs[i]->runs, next);
	for (i = 0; i < s->ngone; i++)
		next = server_wait_runs(s, s->gone[i]->runs, next);
	return server_wait_runs(s, s->hooks, next);
}

/*
 * The store's wait (db_wait_fn): until fd is ready for events, or end
 * (monotonic ms).  0 ready, -1 at end or on a poll error.
 */
int
server_wait(void *arg, int fd, short events, int64_t end)
{
	struct server	*s = arg;
	struct pollfd	 one;
	int64_t		 left;
	double		 next;
	size_t		 i;
	int		 rc;

	one.fd = fd;
	one.events = events;
	left = end - clock_mono_ms();
	do {
		rc = poll(&one, 1, left <= 0 ? 0 : left < SERVER_WAIT_QUICK ?
		    (int)left : SERVER_WAIT_QUICK);
	} while (rc == -1 && errno == EINTR);
	if (rc != 0)
		return rc > 0 ? 0 : -1;
	for (;;) {
		next = server_wait_round(s, fd, events);  /* 0: look again */
		if ((left = end - clock_mono_ms()) < 0)
			left = 0;
		if (next * 1000 < (double)left)
			left = (int64_t)ceil(next * 1000);
		rc = poll(s->wait_fds, s->nwait, left > INT32_MAX ?
		    INT32_MAX : (int)left);
		if (rc == -1 && errno != EINTR)
			return -1;
		if (rc > 0 && s->wait_fds[0].revents != 0)
			return 0;
		for (i = 1; rc > 0 && i < s->nwait; i++)
			if (s->wait_fds[i].revents != 0)
				runner_out_now(s->wait_runs[i],
				    runner_out_fd(s->wait_runs[i], 1) ==
				    s->wait_fds[i].fd ? 1 : 2);
		if (clock_mono_ms() >= end)
			return -1;
	}
}

/*
 * control.h -- the daemon's control socket: one request line in, reply
 * lines out, the last one "OK ..." or "ERR ...".
 */
#ifndef TICKD_CONTROL_H
#define TICKD_CONTROL_H

#include <stddef.h>
#include <sys/types.h>

#include <ev.h>

#define CONTROL_REQUEST_MAX	4096	/* longest request line */
#define CONTROL_ARGS_MAX	16	/* most words in a request */

struct control;
struct control_reply;

/* Handle one request (argv[0] is the command); fill the reply. */
typedef void (*control_cb)(int, char **, struct control_reply *, void *);

struct control	*control_open(struct ev_loop *, const char *, uid_t,
		     control_cb, void *, char **);
void		 control_close(struct control *);
void		 control_line(struct control_reply *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
void		 control_ok(struct control_reply *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
void		 control_err(struct control_reply *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));

#endif /* TICKD_CONTROL_H */

/*
 * control.c -- the daemon's control socket (tickctl run, replay, pause,
 * resume, reload).
 *
 * A Unix stream socket, mode 0600, in the runtime directory.  Each
 * connection sends one request line of at most CONTROL_REQUEST_MAX bytes
 * before its newline ("run backup force"), words separated by blanks; the
 * daemon answers with
 * lines, the last beginning "OK" or "ERR", and closes.  Only root and the
 * daemon's own user may connect: SO_PEERCRED is checked at accept, on top
 * of the socket's mode.  Oversized and malformed requests get "ERR" (what
 * is left unread is discarded first, so that the client reads it), idle
 * connections (CONTROL_IDLE s) are closed without a word; nothing a
 * client does can block the loop: reads and writes are non-blocking,
 * replies are buffered.
 *
 * DIAGNOSTICS: control_open returns NULL with *cause set; refused clients
 * are logged at warning; everything else is a reply to the client.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "control.h"
#include "log.h"
#include "xmalloc.h"

#define CONTROL_IDLE	5.0		/* seconds a client may take */
#define CONTROL_CLIENTS	64		/* connections at once */
#define CONTROL_DRAIN	65536		/* bytes discarded at a close */

struct control_reply {
	char	*buf;
	size_t	 len;
	int	 done;			/* OK or ERR written */
};

struct control_conn {
	struct control		*ctl;
	int			 fd;
	ev_io			 io;
	ev_timer		 idle;
	char			 in[CONTROL_REQUEST_MAX + 2];	/* + '\n', NUL */
	size_t			 inlen;
	struct control_reply	 out;
	size_t			 sent;
	struct control_conn	*next;
};

struct control {
	struct ev_loop		*loop;
	char			*path;
	int			 fd;
	ev_io			 io;
	uid_t			 allowed;	/* besides root */
	control_cb		 cb;
	void			*arg;
	struct control_conn	*conns;
	size_t			 nconns;
};

/* Append a formatted line to a reply. */
static void
control_vline(struct control_reply *r, const char *fmt, va_list ap)
{
	char	*line = xvasprintf(fmt, ap);
	size_t	 n = strlen(line);

	r->buf = xreallocarray(r->buf, r->len + n + 2, 1);
	memcpy(r->buf + r->len, line, n);
	r->len += n;
	r->buf[r->len++] = '\n';
	free(line);
}

/* A line of the reply before its final OK or ERR. */
void
control_line(struct control_reply *r, const char *fmt, ...)
{
	va_list ap;

	if (r->done)
		return;
	va_start(ap, fmt);
	control_vline(r, fmt, ap);
	va_end(ap);
}

/* The final line: success. */
void
control_ok(struct control_reply *r, const char *fmt, ...)
{
	char	*msg;
	va_list	 ap;

	if (r->done)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	control_line(r, "OK%s%s", msg[0] != '\0' ? " " : "", msg);
	free(msg);
	r->done = 1;
}

/* The final line: failure, with the reason. */
void
control_err(struct control_reply *r, const char *fmt, ...)
{
	char	*msg;
	va_list	 ap;

	if (r->done)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	control_line(r, "ERR %s", msg);
	free(msg);
	r->done = 1;
}

/*
 * Discard what the client sent beyond what was read (the rest of an
 * oversized request), up to CONTROL_DRAIN bytes: closing a socket with
 * unread data makes the client's next read fail with ECONNRESET, before
 * it reads the reply that says why.
 */
static void
control_drain(int fd)
{
	char	buf[4096];
	size_t	total = 0;
	ssize_t	n;

	while (total < CONTROL_DRAIN && (n = recv(fd, buf, sizeof buf,
	    MSG_DONTWAIT)) > 0)
		total += (size_t)n;
}

/* Close and free a connection. */
static void
control_conn_free(struct control_conn *c)
{
	struct control		 *ctl = c->ctl;
	struct control_conn	**cp;

	for (cp = &ctl->conns; *cp != NULL; cp = &(*cp)->next) {
		if (*cp == c) {
			*cp = c->next;
			break;
		}
	}
	ctl->nconns--;
	ev_io_stop(ctl->loop, &c->io);
	ev_timer_stop(ctl->loop, &c->idle);
	control_drain(c->fd);
	(void)close(c->fd);
	free(c->out.buf);
	free(c);
}

/* Write what is left of the reply; free the connection when done. */
static void
control_conn_send(struct control_conn *c)
{
	ssize_t n;

	while (c->sent < c->out.len) {
		n = send(c->fd, c->out.buf + c->sent, c->out.len - c->sent,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			ev_io_stop(c->ctl->loop, &c->io);
			ev_io_set(&c->io, c->fd, EV_WRITE);
			ev_io_start(c->ctl->loop, &c->io);
			return;
		}
		if (n <= 0)
			break;
		c->sent += (size_t)n;
	}
	control_conn_free(c);
}

/* Split a request into words and hand it to the callback. */
static void
control_conn_request(struct control_conn *c)
{
	char	*argv[CONTROL_ARGS_MAX + 1], *p, *word;
	int	 argc = 0;

	for (p = c->in; (word = strsep(&p, " \t")) != NULL;) {
		if (*word == '\0')
			continue;
		if (argc == CONTROL_ARGS_MAX) {
			control_err(&c->out, "too many words in the request");
			return;
		}
		argv[argc++] = word;
	}
	argv[argc] = NULL;
	if (argc == 0) {
		control_err(&c->out, "empty request");
		return;
	}
	c->ctl->cb(argc, argv, &c->out, c->ctl->arg);
	if (!c->out.done)
		control_err(&c->out, "internal error: no reply");
}

static void
control_conn_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct control_conn	*c = w->data;
	char			*nl;
	ssize_t			 n;
	size_t			 k;

	(void)loop;
	if (revents & EV_WRITE) {
		control_conn_send(c);
		return;
	}
	n = recv(c->fd, c->in + c->inlen, sizeof c->in - 1 - c->inlen,
	    MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		control_conn_free(c);
		return;
	}
	c->inlen += (size_t)n;
	c->in[c->inlen] = '\0';
	if ((nl = memchr(c->in, '\n', c->inlen)) == NULL) {
		if (c->inlen < sizeof c->in - 1)
			return;
		control_err(&c->out, "request longer than %d bytes",
		    CONTROL_REQUEST_MAX);
	} else {
		*nl = '\0';
		for (k = 0; k < (size_t)(nl - c->in); k++) {
			if (c->in[k] == '\0' || c->in[k] == '\r' ||
			    (unsigned char)c->in[k] < 0x20) {
				if (c->in[k] == '\t' || (c->in[k] == '\r' &&
				    k + 1 == (size_t)(nl - c->in))) {
					c->in[k] = c->in[k] == '\r' ? '\0' :
					    c->in[k];
					continue;
				}
				control_err(&c->out, "malformed request");
				break;
			}
		}
		if (!c->out.done)
			control_conn_request(c);
	}
	ev_timer_stop(c->ctl->loop, &c->idle);
	control_conn_send(c);
}

static void
control_idle_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct control_conn *c = w->data;

	(void)loop;
	(void)revents;
	control_conn_free(c);
}

/* A client connects: check who it is, then wait for its request. */
static void
control_accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct control		*ctl = w->data;
	struct control_conn	*c;
	struct ucred		 cred;
	socklen_t		 len = sizeof cred;
	int			 fd;

	(void)loop;
	(void)revents;
	fd = accept4(ctl->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd == -1) {
		if (errno != EAGAIN && errno != EINTR)
			log_warn("control: accept: %s", strerror(errno));
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1 ||
	    (cred.uid != 0 && cred.uid != ctl->allowed)) {
		log_warn("control: refused a client (uid %ld): only root and "
		    "uid %ld may steer tickd", (long)cred.uid,
		    (long)ctl->allowed);
		(void)send(fd, "ERR permission denied\n", 22,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
		(void)close(fd);
		return;
	}
	if (ctl->nconns >= CONTROL_CLIENTS) {
		(void)send(fd, "ERR busy: too many clients\n", 27,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
		(void)close(fd);
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->ctl = ctl;
	c->fd = fd;
	ev_io_init(&c->io, control_conn_cb, fd, EV_READ);
	ev_timer_init(&c->idle, control_idle_cb, CONTROL_IDLE, 0);
	c->io.data = c->idle.data = c;
	ev_io_start(ctl->loop, &c->io);
	ev_timer_start(ctl->loop, &c->idle);
	c->next = ctl->conns;
	ctl->conns = c;
	ctl->nconns++;
}

/*
 * Is something listening on the socket at sun?  A socket file left by a
 * daemon that stopped refuses connections; one that accepts belongs to a
 * live process, which must keep it.
 */
static int
control_in_use(const struct sockaddr_un *sun)
{
	int fd, live;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return 0;
	live = connect(fd, (const struct sockaddr *)sun, sizeof *sun) == 0 ||
	    errno == EAGAIN;	/* a live listener with a full backlog */
	(void)close(fd);
	return live;
}

/*
 * Listen on path (a stale socket is replaced, a live one is not: two
 * daemons sharing a control path would steer each other's jobs).  allowed
 * is the uid that may connect besides root.  Returns the control (caller frees with
 * control_close), or NULL with *cause set.
 */
struct control *
control_open(struct ev_loop *loop, const char *path, uid_t allowed,
    control_cb cb, void *arg, char **cause)
{
	struct control		*ctl;
	struct sockaddr_un	 sun;
	struct stat		 st;
	int			 fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path) {
		*cause = xasprintf("control %s: path too long", path);
		return NULL;
	}
	memcpy(sun.sun_path, path, strlen(path));
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			*cause = xasprintf("control %s: exists and is not a "
			    "socket", path);
			return NULL;
		}
		if (control_in_use(&sun)) {
			*cause = xasprintf("control %s: in use by another "
			    "process (another tickd with the same control "
			    "path?)", path);
			return NULL;
		}
		(void)unlink(path);	/* left by a stopped daemon */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1) {
		*cause = xasprintf("control: socket: %s", strerror(errno));
		return NULL;
	}
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) == -1 ||
	    chmod(path, 0600) == -1 || listen(fd, 16) == -1) {
		*cause = xasprintf("control %s: %s", path, strerror(errno));
		(void)close(fd);
		return NULL;
	}
	ctl = xcalloc(1, sizeof *ctl);
	ctl->loop = loop;
	ctl->path = xstrdup(path);
	ctl->fd = fd;
	ctl->allowed = allowed;
	ctl->cb = cb;
	ctl->arg = arg;
	ev_io_init(&ctl->io, control_accept_cb, fd, EV_READ);
	ctl->io.data = ctl;
	ev_io_start(loop, &ctl->io);
	return ctl;
}

/* Stop listening, drop the clients, remove the socket; NULL is allowed. */
void
control_close(struct control *ctl)
{
	if (ctl == NULL)
		return;
	while (ctl->conns != NULL)
		control_conn_free(ctl->conns);
	ev_io_stop(ctl->loop, &ctl->io);
	(void)close(ctl->fd);
	(void)unlink(ctl->path);
	free(ctl->path);
	free(ctl);
}

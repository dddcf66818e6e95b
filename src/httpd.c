/*
 * httpd.c -- one read-only HTTP resource on the daemon's loop: GET and
 * HEAD of one path, answered by libmicrohttpd (MHD) without threads of
 * its own.  Each listening address is an MHD daemon in its epoll mode:
 * an ev_io watches MHD's epoll descriptor, MHD_run does what is ready
 * (accept, read, write: never blocking), and an ev_timer follows
 * MHD_get_timeout for the idle connections it must close.
 *
 * Limits, against a slow or hostile client (the loop schedules jobs):
 * HTTPD_CONNECTIONS connections at once (MHD closes the ones over at
 * accept), each closed after HTTPD_TIMEOUT seconds without progress;
 * request headers within MHD's default 32 KiB per connection (431
 * beyond); no request body (413); another method than GET or HEAD is
 * 405, another path 404.  The body is made in the callback, on the
 * loop, so it must be cheap (server-metrics.c: the daemon's memory), and
 * at most once per HTTPD_FRESH seconds: the requests meanwhile share it
 * (MHD counts a response's references), so that clients scraping in a
 * loop cost the loop one body a second, whatever their number.
 *
 * The listening sockets are made here (close-on-exec, SO_REUSEADDR; an
 * IPv6 wildcard accepts IPv4 too), so that a bind error is this
 * module's to report.  A value naming both loopback addresses
 * (listenaddr.c) is served on those that bind: a host without IPv6
 * serves 127.0.0.1 only, with a notice.
 *
 * DIAGNOSTICS: httpd_open returns NULL with *cause when no address
 * could be served ("127.0.0.1:9464: bind: Address already in use");
 * MHD's own messages are logged at debug level.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <ev.h>
#include <microhttpd.h>

#include "httpd.h"
#include "listenaddr.h"
#include "log.h"
#include "xmalloc.h"

/* One listening address: an MHD daemon and its two watchers. */
struct httpd_listener {
	struct MHD_Daemon	*d;
	ev_io			 io_w;		/* MHD's epoll descriptor */
	ev_timer		 tm_w;		/* MHD_get_timeout */
	char			 name[LISTENADDR_BUFSZ];
	struct httpd		*h;
};

struct httpd {
	struct ev_loop		*loop;
	struct httpd_listener	 l[LISTENADDR_MAX];
	size_t			 n;
	char			*path;
	char			*ctype;
	char			 where[2 * LISTENADDR_BUFSZ + 8];
	httpd_body_fn		 body;
	void			*arg;
	struct MHD_Response	*cached;	/* the last body, shared */
	ev_tstamp		 cached_at;	/* when it was made */
};

static const char httpd_404[] = "not found: only /metrics is served\n";
static const char httpd_405[] = "method not allowed: GET or HEAD\n";
static const char httpd_413[] = "a request body is not accepted\n";
static const char httpd_500[] = "the figures could not be made\n";

/* MHD's messages: debug level (a client's mistakes are not ours). */
static void
httpd_log(void *arg, const char *fmt, va_list ap)
{
	char buf[512];

	(void)arg;
	(void)vsnprintf(buf, sizeof buf, fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_debug("metrics: %s", buf);
}

/* Queue a fixed text answer. */
static enum MHD_Result
httpd_text(struct MHD_Connection *c, unsigned int code, const char *text)
{
	struct MHD_Response	*r;
	enum MHD_Result		 ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)(uintptr_t)
	    text, MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    "text/plain; charset=utf-8");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		(void)MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW,
		    "GET, HEAD");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * A request, first called with its headers read: every answer is given
 * then, before any body is read (MHD closes the connection after an
 * answer given before the body).
 */
static enum MHD_Result
httpd_answer(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_len, void **state)
{
	struct httpd		*h = cls;
	struct MHD_Response	*r;
	const char		*cl;
	char			*body;
	size_t			 len;

	(void)version;
	(void)upload;
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return httpd_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, httpd_405);
	if (strcmp(url, h->path) != 0)
		return httpd_text(c, MHD_HTTP_NOT_FOUND, httpd_404);
	cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (*upload_len != 0 || (cl != NULL && strcmp(cl, "0") != 0) ||
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL)
		return httpd_text(c, MHD_HTTP_CONTENT_TOO_LARGE, httpd_413);
	if (h->cached == NULL || ev_now(h->loop) - h->cached_at >=
	    HTTPD_FRESH) {
		if ((body = h->body(h->arg, &len)) == NULL)
			return httpd_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
			    httpd_500);
		r = MHD_create_response_from_buffer(len, body,
		    MHD_RESPMEM_MUST_FREE);
		if (r == NULL) {
			free(body);
			return MHD_NO;
		}
		(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
		    h->ctype);
		/* Freed by MHD when no connection sends it any more. */
		if (h->cached != NULL)
			MHD_destroy_response(h->cached);
		h->cached = r;
		h->cached_at = ev_now(h->loop);
	}
	return MHD_queue_response(c, MHD_HTTP_OK, h->cached);
}

/* Arm the timer for what MHD must do next without I/O (or nothing). */
static void
httpd_rearm(struct httpd_listener *l)
{
	MHD_UNSIGNED_LONG_LONG ms;

	ev_timer_stop(l->h->loop, &l->tm_w);
	if (MHD_get_timeout(l->d, &ms) == MHD_YES) {
		ev_timer_set(&l->tm_w, (double)ms / 1000, 0.);
		ev_timer_start(l->h->loop, &l->tm_w);
	}
}

static void
httpd_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct httpd_listener *l = w->data;

	(void)loop;
	(void)revents;
	(void)MHD_run(l->d);
	httpd_rearm(l);
}

static void
httpd_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct httpd_listener *l = w->data;

	(void)loop;
	(void)revents;
	(void)MHD_run(l->d);
	httpd_rearm(l);
}

/* A listening socket on sa; -1 with *cause. */
static int
httpd_socket(const struct sockaddr *sa, socklen_t len, const char *name,
    char **cause)
{
	int fd, on = 1, off = 0;

	if ((fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		*cause = xasprintf("%s: socket: %s", name, strerror(errno));
		return -1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
	if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(
	    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr))
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off,
		    sizeof off);
	if (bind(fd, sa, len) == -1 || listen(fd, HTTPD_CONNECTIONS) == -1) {
		*cause = xasprintf("%s: bind: %s", name, strerror(errno));
		(void)close(fd);
		return -1;
	}
	return fd;
}

/* Serve l->name on fd (taken: closed on failure); -1 with *cause. */
static int
httpd_listen(struct httpd *h, struct httpd_listener *l, int fd,
    unsigned int conns, char **cause)
{
	const union MHD_DaemonInfo *di;

	l->h = h;
	l->d = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL,
	    NULL, httpd_answer, h,
	    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
	    MHD_OPTION_CONNECTION_LIMIT, conns,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTPD_TIMEOUT,
	    MHD_OPTION_EXTERNAL_LOGGER, httpd_log, (void *)NULL,
	    MHD_OPTION_END);
	if (l->d == NULL) {
		*cause = xasprintf("%s: the HTTP server could not start",
		    l->name);
		(void)close(fd);
		return -1;
	}
	if ((di = MHD_get_daemon_info(l->d, MHD_DAEMON_INFO_EPOLL_FD)) ==
	    NULL) {
		*cause = xasprintf("%s: no epoll descriptor", l->name);
		MHD_stop_daemon(l->d);
		return -1;
	}
	ev_io_init(&l->io_w, httpd_io_cb, di->epoll_fd, EV_READ);
	ev_init(&l->tm_w, httpd_timer_cb);
	l->io_w.data = l->tm_w.data = l;
	ev_io_start(h->loop, &l->io_w);
	return 0;
}

/*
 * Serve GET and HEAD of path at the addresses text names (a valid
 * metrics_listen value), with body() as its ctype content.  The server,
 * or NULL with *cause (nothing bound).
 */
struct httpd *
httpd_open(struct ev_loop *loop, const char *text, const char *path,
    const char *ctype, httpd_body_fn body, void *arg, char **cause)
{
	struct listenaddr	 la;
	struct httpd		*h;
	struct httpd_listener	*l;
	char			*why[LISTENADDR_MAX] = { NULL }, *tmp;
	size_t			 i, len;
	int			 fd;

	*cause = NULL;
	if (listenaddr_parse(text, &la, cause) == -1)
		return NULL;
	h = xcalloc(1, sizeof *h);
	h->loop = loop;
	h->path = xstrdup(path);
	h->ctype = xstrdup(ctype);
	h->body = body;
	h->arg = arg;
	for (i = 0; i < la.n; i++) {
		l = &h->l[h->n];
		listenaddr_format((const struct sockaddr *)(const void *)
		    &la.addr[i], l->name, sizeof l->name);
		if ((fd = httpd_socket((const struct sockaddr *)(const void *)
		    &la.addr[i], la.len[i], l->name, &why[i])) == -1 ||
		    httpd_listen(h, l, fd, HTTPD_CONNECTIONS / la.n,
		    &why[i]) == -1)
			continue;
		len = strlen(h->where);
		(void)snprintf(h->where + len, sizeof h->where - len, "%s%s",
		    h->n > 0 ? " and " : "", l->name);
		h->n++;
	}
	for (i = 0; i < la.n; i++) {
		if (why[i] == NULL)
			continue;
		if (h->n > 0)
			log_notice("metrics: %s: not served", why[i]);
		else if (*cause == NULL)
			*cause = xstrdup(why[i]);
		else {
			*cause = xasprintf("%s; %s", tmp = *cause, why[i]);
			free(tmp);
		}
		free(why[i]);
	}
	if (h->n == 0) {
		httpd_close(h);
		return NULL;
	}
	return h;
}

/* The addresses served: "127.0.0.1:9464 and [::1]:9464". */
const char *
httpd_where(const struct httpd *h)
{
	return h->where;
}

/* Stop serving: every connection and listening socket closed. */
void
httpd_close(struct httpd *h)
{
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->n; i++) {
		ev_io_stop(h->loop, &h->l[i].io_w);
		ev_timer_stop(h->loop, &h->l[i].tm_w);
		MHD_stop_daemon(h->l[i].d);
	}
	if (h->cached != NULL)
		MHD_destroy_response(h->cached);
	free(h->path);
	free(h->ctype);
	free(h);
}

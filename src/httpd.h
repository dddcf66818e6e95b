/*
 * httpd.h -- one read-only HTTP resource (GET and HEAD of one path)
 * served by libmicrohttpd on the daemon's libev loop.
 */
#ifndef TICKD_HTTPD_H
#define TICKD_HTTPD_H

#include <stddef.h>

#include <ev.h>

#define HTTPD_CONNECTIONS	16	/* open at once, all addresses */
#define HTTPD_TIMEOUT		10	/* s a connection may stay idle */
#define HTTPD_FRESH		1.0	/* s a body is served again */

struct httpd;

/*
 * The body of the resource: allocated text and its length in *len, or
 * NULL (the client is answered 500).
 */
typedef char	*(*httpd_body_fn)(void *, size_t *);

struct httpd	*httpd_open(struct ev_loop *, const char *, const char *,
		     const char *, httpd_body_fn, void *, char **);
void		 httpd_close(struct httpd *);
const char	*httpd_where(const struct httpd *);

#endif /* TICKD_HTTPD_H */

/*
 * listenaddr.h -- "ADDRESS:PORT" values of listening sockets
 * ([daemon] metrics_listen): parsed into socket addresses, no I/O.
 */
#ifndef TICKD_LISTENADDR_H
#define TICKD_LISTENADDR_H

#include <stddef.h>

#include <netinet/in.h>
#include <sys/socket.h>

#define LISTENADDR_MAX		2	/* addresses one value names */
#define LISTENADDR_BUFSZ	(INET6_ADDRSTRLEN + 10)	/* "[addr]:port" */

/* What one value names: one address, or both loopback ones. */
struct listenaddr {
	struct sockaddr_storage	 addr[LISTENADDR_MAX];
	socklen_t		 len[LISTENADDR_MAX];
	size_t			 n;
	int			 loopback;	/* 127.0.0.1 and ::1 */
};

int	listenaddr_parse(const char *, struct listenaddr *, char **);
void	listenaddr_format(const struct sockaddr *, char *, size_t);

#endif /* TICKD_LISTENADDR_H */

/*
 * server.h -- the daemon's event loop: scheduling, dispatch, reload.
 */
#ifndef TICKD_SERVER_H
#define TICKD_SERVER_H

#define SERVER_EXIT_CONFIG	78	/* EX_CONFIG: unusable configuration */

int	server_main(const char *, int);

#endif /* TICKD_SERVER_H */

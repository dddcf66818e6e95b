/*
 * listenaddr.c -- the address a listening socket binds, as written in
 * tickd.conf: "ADDRESS:PORT", with these forms:
 *
 *   9464, :9464, localhost:9464   127.0.0.1 and ::1 (loopback only)
 *   127.0.0.1:9464, 0.0.0.0:9464  one IPv4 address
 *   [::1]:9464, [::]:9464         one IPv6 address (brackets required)
 *
 * Addresses are numeric: no host name is resolved (tickd -n and the
 * daemon must agree without asking DNS).  The port is 1-65535.
 *
 * DIAGNOSTICS: listenaddr_parse returns -1 with *cause, a message
 * without the file, line or key, naming what is wrong and the accepted
 * forms.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "listenaddr.h"
#include "xmalloc.h"

#define LISTENADDR_FORMS \
	"(forms: 9464, :9464, 127.0.0.1:9464, 0.0.0.0:9464, [::1]:9464)"

/* The port in p, 1-65535 in decimal digits; -1 if it is not one. */
static int
listenaddr_port(const char *p)
{
	long	 n = 0;

	if (*p == '\0' || strlen(p) > 5)
		return -1;
	for (; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (*p - '0');
	}
	return n >= 1 && n <= 65535 ? (int)n : -1;
}

/* Add an address of family af (text a) and port to out. */
static void
listenaddr_add(struct listenaddr *out, int af, const void *a, int port)
{
	struct sockaddr_in	*s4;
	struct sockaddr_in6	*s6;
	size_t			 i = out->n++;

	memset(&out->addr[i], 0, sizeof out->addr[i]);
	if (af == AF_INET) {
		s4 = (struct sockaddr_in *)(void *)&out->addr[i];
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		memcpy(&s4->sin_addr, a, sizeof s4->sin_addr);
		out->len[i] = sizeof *s4;
	} else {
		s6 = (struct sockaddr_in6 *)(void *)&out->addr[i];
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		memcpy(&s6->sin6_addr, a, sizeof s6->sin6_addr);
		out->len[i] = sizeof *s6;
	}
}

/*
 * Parse v into out.  0, or -1 with *cause (allocated).
 */
int
listenaddr_parse(const char *v, struct listenaddr *out, char **cause)
{
	struct in_addr	 a4;
	struct in6_addr	 a6;
	const char	*colon, *close, *port;
	char		 host[INET6_ADDRSTRLEN + 1];
	size_t		 hlen;
	int		 p;

	memset(out, 0, sizeof *out);
	if (*v == '\0') {
		*cause = xstrdup("empty address " LISTENADDR_FORMS);
		return -1;
	}
	if (strpbrk(v, " \t\n\r") != NULL) {
		*cause = xasprintf("\"%s\" contains a blank " LISTENADDR_FORMS,
		    v);
		return -1;
	}
	if (v[0] == '[') {
		if ((close = strchr(v, ']')) == NULL) {
			*cause = xasprintf("\"%s\": no ] after the IPv6 "
			    "address", v);
			return -1;
		}
		if (close[1] != ':') {
			*cause = xasprintf("\"%s\": no :PORT after the IPv6 "
			    "address", v);
			return -1;
		}
		port = close + 2;
		hlen = (size_t)(close - v - 1);
		if (hlen >= sizeof host) {
			*cause = xasprintf("\"%.*s\" is not an IPv6 address",
			    (int)(close - v - 1), v + 1);
			return -1;
		}
		memcpy(host, v + 1, hlen);
		host[hlen] = '\0';
		if (inet_pton(AF_INET6, host, &a6) != 1) {
			*cause = xasprintf("\"%s\" is not an IPv6 address",
			    host);
			return -1;
		}
	} else if ((colon = strrchr(v, ':')) == NULL) {
		port = v;
		hlen = 0;
	} else {
		if (strchr(v, ':') != colon) {
			*cause = xasprintf("\"%s\": an IPv6 address goes in "
			    "brackets, as in [::1]:9464", v);
			return -1;
		}
		port = colon + 1;
		hlen = (size_t)(colon - v);
		if (hlen >= sizeof host) {
			*cause = xasprintf("\"%.*s\" is not an IPv4 address, "
			    "[IPv6 address] or localhost (host names are not "
			    "resolved)", (int)hlen, v);
			return -1;
		}
		memcpy(host, v, hlen);
		host[hlen] = '\0';
	}
	if ((p = listenaddr_port(port)) == -1 && port == v &&
	    strspn(v, "0123456789") != strlen(v)) {
		*cause = xasprintf("\"%s\" is neither a port nor "
		    "ADDRESS:PORT " LISTENADDR_FORMS, v);
		return -1;
	}
	if (p == -1) {
		*cause = xasprintf("port \"%s\" is not a number 1-65535 "
		    LISTENADDR_FORMS, port);
		return -1;
	}
	if (v[0] == '[') {
		listenaddr_add(out, AF_INET6, &a6, p);
		return 0;
	}
	if (hlen == 0 || strcmp(host, "localhost") == 0) {
		out->loopback = 1;
		a4.s_addr = htonl(INADDR_LOOPBACK);
		listenaddr_add(out, AF_INET, &a4, p);
		listenaddr_add(out, AF_INET6, &in6addr_loopback, p);
		return 0;
	}
	if (inet_pton(AF_INET, host, &a4) != 1) {
		*cause = xasprintf("\"%s\" is not an IPv4 address, [IPv6 "
		    "address] or localhost (host names are not resolved)",
		    host);
		return -1;
	}
	listenaddr_add(out, AF_INET, &a4, p);
	return 0;
}

/* sa as "127.0.0.1:9464" or "[::1]:9464" into buf. */
void
listenaddr_format(const struct sockaddr *sa, char *buf, size_t len)
{
	const struct sockaddr_in	*s4;
	const struct sockaddr_in6	*s6;
	char				 a[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET) {
		s4 = (const struct sockaddr_in *)(const void *)sa;
		(void)inet_ntop(AF_INET, &s4->sin_addr, a, sizeof a);
		(void)snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		s6 = (const struct sockaddr_in6 *)(const void *)sa;
		(void)inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof a);
		(void)snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	} else
		(void)snprintf(buf, len, "(family %d)", sa->sa_family);
}

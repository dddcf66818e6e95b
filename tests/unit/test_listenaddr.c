/*
 * test_listenaddr.c -- "ADDRESS:PORT" values of [daemon] metrics_listen,
 * table driven: what each form binds, and the message for each mistake.
 */
#include <stdlib.h>

#include "listenaddr.h"
#include "t.h"

#define FORMS	" (forms: 9464, :9464, 127.0.0.1:9464, 0.0.0.0:9464, " \
		"[::1]:9464)"

static const struct {
	const char	*text;
	const char	*want;		/* addresses bound, " " between */
	const char	*cause;		/* exact message when rejected */
} cases[] = {
	{ "9464", "127.0.0.1:9464 [::1]:9464", NULL },
	{ ":9464", "127.0.0.1:9464 [::1]:9464", NULL },
	{ "localhost:80", "127.0.0.1:80 [::1]:80", NULL },
	{ "127.0.0.1:9464", "127.0.0.1:9464", NULL },
	{ "0.0.0.0:9464", "0.0.0.0:9464", NULL },
	{ "192.0.2.7:1", "192.0.2.7:1", NULL },
	{ "[::1]:9464", "[::1]:9464", NULL },
	{ "[::]:65535", "[::]:65535", NULL },
	{ "[2001:db8::5]:9464", "[2001:db8::5]:9464", NULL },
	{ "", NULL, "empty address" FORMS },
	{ " 9464", NULL, "\" 9464\" contains a blank" FORMS },
	{ "0", NULL, "port \"0\" is not a number 1-65535" FORMS },
	{ "65536", NULL, "port \"65536\" is not a number 1-65535" FORMS },
	{ "099999", NULL, "port \"099999\" is not a number 1-65535" FORMS },
	{ "+80", NULL, "\"+80\" is neither a port nor ADDRESS:PORT" FORMS },
	{ "127.0.0.1", NULL, "\"127.0.0.1\" is neither a port nor "
	    "ADDRESS:PORT" FORMS },
	{ "localhost", NULL, "\"localhost\" is neither a port nor "
	    "ADDRESS:PORT" FORMS },
	{ "127.0.0.1:", NULL, "port \"\" is not a number 1-65535" FORMS },
	{ "127.0.0.1:http", NULL, "port \"http\" is not a number 1-65535"
	    FORMS },
	{ "example.org:9464", NULL, "\"example.org\" is not an IPv4 address, "
	    "[IPv6 address] or localhost (host names are not resolved)" },
	{ "256.1.1.1:9464", NULL, "\"256.1.1.1\" is not an IPv4 address, "
	    "[IPv6 address] or localhost (host names are not resolved)" },
	{ "::1:9464", NULL, "\"::1:9464\": an IPv6 address goes in brackets, "
	    "as in [::1]:9464" },
	{ "[::1]", NULL, "\"[::1]\": no :PORT after the IPv6 address" },
	{ "[::1:9464", NULL, "\"[::1:9464\": no ] after the IPv6 address" },
	{ "[127.0.0.1]:9464", NULL, "\"127.0.0.1\" is not an IPv6 address" },
	{ "[::1]:0", NULL, "port \"0\" is not a number 1-65535" FORMS },
};

int
main(void)
{
	struct listenaddr	 la;
	char			 got[4 * LISTENADDR_BUFSZ], one[LISTENADDR_BUFSZ];
	char			*cause;
	size_t			 i, k;
	int			 rc;

	T_RUN("parse");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cause = NULL;
		rc = listenaddr_parse(cases[i].text, &la, &cause);
		if (cases[i].want == NULL) {
			T_EQ_INT(rc, -1);
			T_EQ_STR(cause, cases[i].cause);
			free(cause);
			continue;
		}
		T_EQ_INT(rc, 0);
		got[0] = '\0';
		for (k = 0; rc == 0 && k < la.n; k++) {
			listenaddr_format((const struct sockaddr *)(const void *)
			    &la.addr[k], one, sizeof one);
			if (k > 0)
				(void)strcat(got, " ");
			(void)strcat(got, one);
		}
		T_EQ_STR(got, cases[i].want);
		T_EQ_INT(la.loopback, la.n == 2);
	}
	return t_done();
}

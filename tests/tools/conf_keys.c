/*
 * conf_keys.c -- print every configuration key the code accepts, one per
 * line as "SECTION KEY", from conf_keys[] (conf_table.c).  tests/docs.sh
 * checks each against the man pages and conf/tickd.conf, so the list of
 * keys comes from the code, never from a second hand-kept list.
 */
#include <stdio.h>

#include "conf.h"

int
main(void)
{
	size_t i;

	for (i = 0; i < conf_nkeys; i++)
		(void)printf("%s %s\n", conf_keys[i].section ==
		    CONF_SEC_DAEMON ? "daemon" : "job", conf_keys[i].name);
	return 0;
}

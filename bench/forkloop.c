/*
 * forkloop.c -- the physical floor of the burst benchmark: start N copies
 * of a program as fast as this machine can (fork+exec, or posix_spawn
 * with -s), then reap them.  Prints the wall-clock start of the loop (ns)
 * so that the programs' own stamps can be measured from it.
 *
 *	forkloop [-s] N PROGRAM [ARG...]
 */
#include <sys/wait.h>

#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int
main(int argc, char **argv)
{
	struct timespec	ts;
	pid_t		pid;
	long		n, i;
	int		spawn = 0, status;

	if (argc > 1 && strcmp(argv[1], "-s") == 0) {
		spawn = 1;
		argv++;
		argc--;
	}
	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1) {
		(void)fprintf(stderr, "usage: forkloop [-s] N PROGRAM [ARG...]\n");
		return 2;
	}
	(void)clock_gettime(CLOCK_REALTIME, &ts);
	(void)printf("%lld\n", (long long)ts.tv_sec * 1000000000LL +
	    ts.tv_nsec);
	(void)fflush(stdout);
	for (i = 0; i < n; i++) {
		if (spawn) {
			if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2,
			    environ) != 0)
				return 1;
			continue;
		}
		if ((pid = fork()) == -1)
			return 1;
		if (pid == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
	}
	while (wait(&status) > 0)
		;
	return 0;
}

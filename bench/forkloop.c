/*
 * forkloop.c -- the physical floor of the burst benchmark: start N copies
 * of a program as fast as this machine can (fork+exec, or posix_spawn
 * with -s), then reap them.  Prints the wall-clock start of the loop (ns)
 * so that the programs' own stamps can be measured from it.
 *
 * With -p, the floor of any scheduler that must not start a job before
 * its instant: the N processes are forked first, each sleeps until the
 * next whole second (clock_nanosleep, TIMER_ABSTIME) and only then execs;
 * that second is printed.  All the fork cost is paid before the instant;
 * what is left after it is the exec and the program's own start, N at
 * once on the machine's cores.
 *
 * With -t NS (ns since the epoch), that is the instant: the loop sleeps
 * until it and then starts (with -p: the processes exec at it), and it is
 * printed.  steady.sh runs the floors this way between tickd's instants,
 * measured from the instant as tickd's lateness is, wake-up included.
 *
 *	forkloop [-s | -p] [-t NS] N PROGRAM [ARG...]
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
	long long	at = -1;
	int		spawn = 0, pre = 0, status;

	if (argc > 1 && strcmp(argv[1], "-s") == 0) {
		spawn = 1;
		argv++;
		argc--;
	} else if (argc > 1 && strcmp(argv[1], "-p") == 0) {
		pre = 1;
		argv++;
		argc--;
	}
	if (argc > 2 && strcmp(argv[1], "-t") == 0) {
		if ((at = strtoll(argv[2], NULL, 10)) <= 0)
			argc = 0;		/* usage */
		argv += 2;
		argc -= 2;
	}
	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1) {
		(void)fprintf(stderr,
		    "usage: forkloop [-s | -p] [-t NS] N PROGRAM [ARG...]\n");
		return 2;
	}
	(void)clock_gettime(CLOCK_REALTIME, &ts);
	if (at > 0) {
		ts.tv_sec = at / 1000000000LL;
		ts.tv_nsec = at % 1000000000LL;
		if (!pre)
			while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME,
			    &ts, NULL) != 0)
				;
	} else if (pre) {
		ts.tv_sec++;
		ts.tv_nsec = 0;
	}
	if (pre) {
		for (i = 0; i < n; i++) {
			if ((pid = fork()) == -1)
				return 1;
			if (pid == 0) {
				while (clock_nanosleep(CLOCK_REALTIME,
				    TIMER_ABSTIME, &ts, NULL) != 0)
					;
				execv(argv[2], argv + 2);
				_exit(127);
			}
		}
	}
	(void)printf("%lld\n", (long long)ts.tv_sec * 1000000000LL +
	    ts.tv_nsec);
	(void)fflush(stdout);
	for (i = 0; i < n && !pre; i++) {
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

/*
 * tickd.c -- the tickd daemon: options and startup order.
 *
 * tickd never daemonizes: it runs in the foreground under systemd
 * (Type=notify) or a terminal.  Startup: options, logging, standard
 * descriptors made safe, SIGPIPE and SIGXFSZ ignored, then server_main
 * (server.c), which loads the configuration, opens the store and runs
 * the loop.
 * --check only loads and validates the configuration.
 *
 * DIAGNOSTICS: usage errors exit 2; --check exits 1 when it finds any
 * problem (each printed as "file:line: key: message"); an unusable
 * configuration at startup exits 78 (EX_CONFIG); other startup failures
 * exit 1.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "cronexpr.h"
#include "log.h"
#include "rfc3339.h"
#include "schedule.h"
#include "server.h"
#include "store_query.h"
#include "track.h"
#include "tz.h"

#define TICKD_TRIM_THRESHOLD	(16 * 1024 * 1024)	/* see main */
#define TICKD_MMAP_THRESHOLD	(1024 * 1024)

static void
tickd_usage(FILE *f)
{
	(void)fprintf(f, "usage: tickd [-n] [-v] [-c FILE] "
	    "[--log-target journal|stderr|auto]\n"
	    "       tickd -n [-c FILE] FILE.job ...\n"
	    "       tickd --release-cgroup [-c FILE]\n"
	    "       tickd --version | --help\n"
	    "  -c, --config FILE     configuration (default $TICKD_CONFIG,\n"
	    "                        else %s)\n"
	    "  -n, --check           validate the configuration (or the job\n"
	    "                        files given) and exit\n"
	    "      --log-target T    journal, stderr or auto (default)\n"
	    "  -v, --verbose         log at least at info; twice (-vv): debug\n"
	    "      --release-cgroup  for the unit's ExecStopPost=: stop\n"
	    "                        passing controllers down tickd's cgroup\n",
	    CONF_DEFAULT_PATH);
}

/* Make sure descriptors 0-2 are open, so no pipe or socket lands there. */
static void
tickd_stdio(void)
{
	struct stat	st;
	int		fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fstat(fd, &st) == -1 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) == -1)
			exit(1);
	}
}

/* Validate the configuration; print every problem.  Exit status. */
static int
tickd_check(const char *path, char *const *files, size_t nfiles)
{
	/* Limits checked against what the daemon recorded it can enforce. */
	switch (conf_check_report("tickd", path, files, nfiles,
	    store_query_controllers, NULL, NULL)) {
	case -1:
		return SERVER_EXIT_CONFIG;
	case 0:
		return 0;
	default:
		return 1;
	}
}

/*
 * --release-cgroup, the unit's ExecStopPost=: disable the controllers
 * tickd's cgroup passes down, so that systemd can start the next tickd
 * in it while jobs of the last one still run (track_release_cgroup).
 * Exit status 0, or 1 with a message.
 */
static int
tickd_release(const char *path)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct conf		*c;
	char			*cause = NULL;
	int			 rc = 0;

	/* The [daemon] cgroup key only: a bad job file is no matter here. */
	c = conf_load(path, &causes);
	if (track_release_cgroup(c != NULL ? c->cgroup : NULL,
	    &cause) == -1) {
		(void)fprintf(stderr, "tickd: --release-cgroup: %s\n", cause);
		rc = 1;
	}
	free(cause);
	conf_causes_free(&causes);
	conf_free(c);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'n' },
		{ "log-target", required_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "release-cgroup", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*config = NULL, *env;
	enum log_target	 target = LOG_TARGET_AUTO;
	int		 ch, check = 0, release = 0, verbose = LOG_ERR;

	while ((ch = getopt_long(argc, argv, "c:nvhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			config = optarg;
			break;
		case 'n':
			check = 1;
			break;
		case 'L':
			if (log_target_parse(optarg, &target) == -1) {
				(void)fprintf(stderr, "tickd: --log-target: "
				    "\"%s\" is not journal, stderr or auto\n",
				    optarg);
				return 2;
			}
			break;
		case 'v':		/* -v info, -vv debug: tickd(8) */
			verbose = verbose < LOG_INFO ? LOG_INFO : LOG_DEBUG;
			break;
		case 'h':
			tickd_usage(stdout);
			return 0;
		case 'V':
			(void)printf("tickd %s\n", TICKD_VERSION);
			return 0;
		case 'R':
			release = 1;
			break;
		default:
			tickd_usage(stderr);
			return 2;
		}
	}
	/* Job files to check alone: with -n only. */
	if (optind < argc && !check) {
		(void)fprintf(stderr, "tickd: unexpected argument \"%s\" (job "
		    "files are checked with -n FILE.job)\n", argv[optind]);
		tickd_usage(stderr);
		return 2;
	}
	/* As tickctl: the environment's, unless -c says otherwise. */
	if (config == NULL && (env = getenv("TICKD_CONFIG")) != NULL &&
	    *env != '\0')
		config = env;
	if (config == NULL)
		config = CONF_DEFAULT_PATH;
	tickd_stdio();
	if (check)
		return tickd_check(config, argv + optind,
		    (size_t)(argc - optind));
	if (release)
		return tickd_release(config);
	(void)signal(SIGPIPE, SIG_IGN);
	/*
	 * A write past RLIMIT_FSIZE fails with EFBIG, which the store
	 * retries like a full disk, instead of killing the daemon.  Jobs get
	 * the default back (child.c).
	 */
	(void)signal(SIGXFSZ, SIG_IGN);
	/*
	 * Keep freed memory at the top of the heap instead of giving it
	 * back at once: SQLite frees a statement journal on every claim,
	 * and each brk shrink is a TLB shootdown on every CPU the jobs run
	 * on (a third of the daemon's time in a burst, bench/README.md).
	 * server.c trims after a reload and with the hourly pruning.
	 */
	(void)mallopt(M_TRIM_THRESHOLD, TICKD_TRIM_THRESHOLD);
	(void)mallopt(M_MMAP_THRESHOLD, TICKD_MMAP_THRESHOLD);
	log_init(target, LOG_INFO);
	return server_main(config, verbose);
}

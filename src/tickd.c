/*
 * tickd.c -- the tickd daemon: option parsing and startup order.
 *
 * This is the skeleton the daemon grows from: options are parsed and the
 * version reported; the event loop, store and job runner come with the
 * next stage of the project (see ARCHITECTURE.md).
 *
 * DIAGNOSTICS: usage errors on stderr, exit 2.
 */
#include <getopt.h>
#include <stdio.h>

static void
tickd_usage(FILE *f)
{
	(void)fprintf(f, "usage: tickd [-c FILE] [-n] [--help] [--version]\n");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "c:nhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
		case 'n':
			break;
		case 'h':
			tickd_usage(stdout);
			return 0;
		case 'V':
			(void)printf("tickd %s\n", TICKD_VERSION);
			return 0;
		default:
			tickd_usage(stderr);
			return 2;
		}
	}
	(void)fprintf(stderr, "tickd: the daemon is not implemented yet\n");
	return 1;
}

/*
 * tickctl.c -- the tickd command-line tool: option parsing and dispatch.
 *
 * Global options come before the command; each command parses its own
 * (ctl-*.c).  Exit status: 0 success, 1 when the answer is "something is
 * wrong", 2 for usage errors (bad options, invalid expressions or zones).
 *
 * DIAGNOSTICS: every error is one line on stderr, "tickctl: ...".
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static const struct ctl_cmd *const ctl_cmds[] = {
	&ctl_next_cmd,
};
#define CTL_NCMDS	(sizeof ctl_cmds / sizeof ctl_cmds[0])

/* Print "tickctl: <message>" on stderr. */
void
ctl_error(const char *fmt, ...)
{
	va_list ap;

	(void)fputs("tickctl: ", stderr);
	va_start(ap, fmt);
	(void)vfprintf(stderr, fmt, ap);
	va_end(ap);
	(void)fputc('\n', stderr);
}

/* Print the overall usage to f. */
static void
ctl_usage(FILE *f)
{
	size_t i;

	(void)fprintf(f, "usage: tickctl [--help] [--version] COMMAND "
	    "[ARGS]\n\ncommands:\n");
	for (i = 0; i < CTL_NCMDS; i++)
		(void)fprintf(f, "  %s %s\n      %s\n", ctl_cmds[i]->name,
		    ctl_cmds[i]->usage, ctl_cmds[i]->summary);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	size_t	i;
	int	ch;

	/* '+': stop at the command name; its options are its own. */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			ctl_usage(stdout);
			return CTL_EXIT_OK;
		case 'V':
			(void)printf("tickctl %s\n", TICKD_VERSION);
			return CTL_EXIT_OK;
		default:
			ctl_error("unknown option \"%s\" (try tickctl --help)",
			    argv[optind - 1]);
			return CTL_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		ctl_usage(stderr);
		return CTL_EXIT_USAGE;
	}
	for (i = 0; i < CTL_NCMDS; i++) {
		if (strcmp(argv[0], ctl_cmds[i]->name) == 0) {
			optind = 0;	/* glibc: full reinitialisation */
			return ctl_cmds[i]->exec(argc, argv);
		}
	}
	ctl_error("unknown command \"%s\" (try tickctl --help)", argv[0]);
	return CTL_EXIT_USAGE;
}

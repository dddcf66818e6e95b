/*
 * tickctl.c -- the tickd command-line tool: global options and dispatch.
 *
 * Global options go before or after the command: -c/--config FILE
 * (default $TICKD_CONFIG, else CONF_DEFAULT_PATH) and --json; each command parses
 * its own (ctl-*.c) and gets them in a struct ctl_ctx (ctl-ctx.c), which
 * loads the configuration and opens the store when the command asks.
 * Exit status: 0 success, 1 when the answer is "something is wrong", 2
 * for usage errors (bad options, unknown jobs, invalid expressions).
 *
 * DIAGNOSTICS: every error is one line on stderr, "tickctl: ...".
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static const struct ctl_cmd *const ctl_cmds[] = {
	&ctl_list_cmd,
	&ctl_status_cmd,
	&ctl_next_cmd,
	&ctl_history_cmd,
	&ctl_show_cmd,
	&ctl_logs_cmd,
	&ctl_run_cmd,
	&ctl_replay_cmd,
	&ctl_pause_cmd,
	&ctl_resume_cmd,
	&ctl_reload_cmd,
	&ctl_stats_cmd,
	&ctl_metrics_cmd,
	&ctl_env_cmd,
	&ctl_check_cmd,
	&ctl_import_cmd,
	&ctl_migrate_cmd,
};
#define CTL_NCMDS	(sizeof ctl_cmds / sizeof ctl_cmds[0])

/* Print the overall usage to f. */
static void
ctl_usage(FILE *f)
{
	size_t i;

	(void)fprintf(f, "usage: tickctl [-c FILE] [--json] COMMAND [ARGS]\n"
	    "       tickctl --help | --version\n\n"
	    "  -c, --config FILE   tickd's configuration (default "
	    "$TICKD_CONFIG,\n"
	    "                      else %s)\n"
	    "      --json          one JSON object per line\n"
	    "  (before or after COMMAND)\n\n"
	    "commands:\n", CONF_DEFAULT_PATH);
	for (i = 0; i < CTL_NCMDS; i++)
		(void)fprintf(f, "  %s %s\n      %s\n", ctl_cmds[i]->name,
		    ctl_cmds[i]->usage, ctl_cmds[i]->summary);
}

/*
 * The global options after the command ("tickctl list --json"): taken
 * out of its arguments (no command has options of those names), up to a
 * "--".  Returns the arguments left, or -1 (said).
 */
static int
ctl_globals(int argc, char **argv, const char **config, int *json)
{
	int i, n = 1;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			while (i < argc)
				argv[n++] = argv[i++];
			break;
		}
		if (strcmp(argv[i], "--json") == 0)
			*json = 1;
		else if (strcmp(argv[i], "-c") == 0 ||
		    strcmp(argv[i], "--config") == 0) {
			if (i + 1 == argc) {
				ctl_error("%s needs a value (try tickctl "
				    "--help)", argv[i]);
				return -1;
			}
			*config = argv[++i];
		} else if (strncmp(argv[i], "--config=", 9) == 0)
			*config = argv[i] + 9;
		else
			argv[n++] = argv[i];
	}
	argv[n] = NULL;
	return n;
}

/* Parse the global options, then run the command with their context. */
int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctl_ctx	 ctx;
	const char	*config = NULL;
	size_t		 i;
	int		 ch, json = 0, rc;

	/* '+': stop at the command name; its options are its own. */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+:c:hV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			config = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			ctl_usage(stdout);
			return CTL_EXIT_OK;
		case 'V':
			(void)printf("tickctl %s\n", TICKD_VERSION);
			return CTL_EXIT_OK;
		case ':':
			ctl_error("%s needs a value (try tickctl --help)",
			    argv[optind - 1]);
			return CTL_EXIT_USAGE;
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
		if (strcmp(argv[0], ctl_cmds[i]->name) == 0)
			break;
	}
	if (i == CTL_NCMDS) {
		ctl_error("unknown command \"%s\" (try tickctl --help)",
		    argv[0]);
		return CTL_EXIT_USAGE;
	}
	if ((argc = ctl_globals(argc, argv, &config, &json)) == -1)
		return CTL_EXIT_USAGE;
	ctl_ctx_init(&ctx, config, json);
	optind = 0;		/* glibc: full reinitialisation */
	rc = ctl_cmds[i]->exec(argc, argv, &ctx);
	ctl_ctx_free(&ctx);
	return rc;
}

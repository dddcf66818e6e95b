/*
 * ctl.h -- tickctl subcommands.
 *
 * Each subcommand lives in its own ctl-<name>.c and exports one
 * struct ctl_cmd (the tmux cmd-*.c pattern).  exec receives argv with the
 * command name in argv[0] and returns the process exit status.
 */
#ifndef TICKD_CTL_H
#define TICKD_CTL_H

#define CTL_EXIT_OK	0	/* success */
#define CTL_EXIT_FAIL	1	/* the answer is "something is wrong" */
#define CTL_EXIT_USAGE	2	/* bad command line or arguments */

struct ctl_cmd {
	const char	*name;
	const char	*usage;		/* arguments after the name */
	const char	*summary;	/* one line for --help */
	int		(*exec)(int, char **);
};

extern const struct ctl_cmd ctl_next_cmd;

void	ctl_error(const char *, ...) __attribute__((format(printf, 1, 2)));

#endif /* TICKD_CTL_H */

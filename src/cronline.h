/*
 * cronline.h -- a crontab entry's command as Debian's cron runs it: its
 * "%" and backslash rules, and the leading "test ... &&" idiom.  Pure.
 */
#ifndef TICKD_CRONLINE_H
#define TICKD_CRONLINE_H

/* What Debian's cron hands /bin/sh for one entry's command text. */
struct cronline_cmd {
	char	*command;	/* the argument of sh -c */
	char	*input;		/* its standard input; NULL: none (empty) */
};

void	 cronline_percent(const char *, struct cronline_cmd *);
void	 cronline_cmd_free(struct cronline_cmd *);
char	*cronline_feed(const char *, const char *);
int	 cronline_condition(const char *, char **, char **);

#endif /* TICKD_CRONLINE_H */

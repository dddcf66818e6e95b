/*
 * test_cronline.c -- a crontab command as Debian's cron runs it: the "%"
 * and backslash rules (expected values from do_command.c's two loops,
 * Debian's cron 3.0pl1-162 with "Handle escapes in job input", run on
 * each case), the printf that feeds the input, and the split of a leading
 * "test ... &&" into a condition.  Table driven.
 */
#include <stdlib.h>
#include <string.h>

#include "cronline.h"
#include "t.h"

/* Command text -> what cron hands sh -c, and its stdin (NULL: none). */
static const struct {
	const char	*text;
	const char	*command;
	const char	*input;
} percent_cases[] = {
	{ "echo hi", "echo hi", NULL },
	/* The cases. */
	{ "cat%", "cat", NULL },
	{ "echo 100\\\\%", "echo 100\\", NULL },
	{ "awk 'BEGIN{print \"a\\\\tb\"}'", "awk 'BEGIN{print \"a\\tb\"}'",
	    NULL },
	/* "\%" is "%", other escapes stay in the command. */
	{ "echo 100\\%", "echo 100%", NULL },
	{ "date +\\%Y-\\%m-\\%d", "date +%Y-%m-%d", NULL },
	{ "printf 'a\\nb'", "printf 'a\\nb'", NULL },
	{ "echo a\\\\\\\\b", "echo a\\\\b", NULL },
	{ "x\\", "x\\", NULL },
	{ "echo \\\\\\\\\\\\%x", "echo \\\\\\", "x\n" },
	/* The first unescaped % ends the command, blanks kept. */
	{ "date +%Y", "date +", "Y\n" },
	{ "cat % a ", "cat ", " a \n" },
	{ "cat%a%b", "cat", "a\nb\n" },
	{ "cat%a%", "cat", "a\n" },
	{ "cat%%", "cat", "\n" },
	{ "cat%%%", "cat", "\n\n" },
	/* In the input: "\%" is "%", other backslashes stay. */
	{ "cat%\\%x", "cat", "%x\n" },
	{ "cat%\\\\%x", "cat", "\\%x\n" },
	{ "cat%a\\tb", "cat", "a\\tb\n" },
	{ "cat%\\\\", "cat", "\\\\" },
	{ "cat%a\\", "cat", "a\\\n" },
	/* A trailing "\" is not text written: no newline after it alone. */
	{ "cat%\\", "cat", "\\" },
	{ "cat%a%\\", "cat", "a\n\\" },
	/* crontab(5)'s own example: the "\\" before "%" is one "\". */
	{ "[ \"$(date +\\\\%H\\\\%M)\" == \"0000\" ] && run_some_script",
	    "[ \"$(date +\\", "H\\%M)\" == \"0000\" ] && run_some_script\n" },
};

/* A command and its input -> the sh command that feeds it. */
static const struct {
	const char	*cmd;
	const char	*input;
	const char	*want;
} feed_cases[] = {
	{ "cat", "a\n", "printf '%s\\n' 'a' | cat" },
	{ "cat", "a\nb c\n", "printf '%s\\n' 'a' 'b c' | cat" },
	{ "cat", "\n", "printf '%s\\n' '' | cat" },
	{ "cat", "it's\n", "printf '%s\\n' 'it'\\''s' | cat" },
	{ "cat", "\\", "printf '%s' '\\' | cat" },
	{ "cat", "a\n\\", "printf '%s\\n%s' 'a' '\\' | cat" },
	{ "mail -s x root", "%d 100%\n", "printf '%s\\n' '%d 100%' | "
	    "mail -s x root" },
	/* More than one pipeline: all of it reads the input. */
	{ "a && b", "x\n", "printf '%s\\n' 'x' | {\na && b\n}" },
	{ "a; b", "x\n", "printf '%s\\n' 'x' | {\na; b\n}" },
	{ "a # c", "x\n", "printf '%s\\n' 'x' | {\na # c\n}" },
	/* A final "\\" is no line continuation: sh -c, as cron. */
	{ "a; echo 100\\", "x\n", "printf '%s\\n' 'x' | /bin/sh -c "
	    "'a; echo 100\\'" },
	{ "echo it's\\", "x\n", "printf '%s\\n' 'x' | /bin/sh -c "
	    "'echo it'\\''s\\'" },
};

/* A command -> its condition and the rest, or no split (NULL). */
static const struct {
	const char	*cmd;
	const char	*cond;
	const char	*rest;
} cond_cases[] = {
	{ "test -x /usr/sbin/foo && foo", "test -x /usr/sbin/foo", "foo" },
	{ "[ -x /usr/bin/foo ] && foo -q", "[ -x /usr/bin/foo ]", "foo -q" },
	{ "  test -x /a&&b", "test -x /a", "b" },
	/* php's: a compound command after. */
	{ "[ -x /usr/lib/php/sessionclean ] && if [ ! -d /run/systemd/system ]"
	    "; then /usr/lib/php/sessionclean; fi",
	    "[ -x /usr/lib/php/sessionclean ]", "if [ ! -d /run/systemd/system ]"
	    "; then /usr/lib/php/sessionclean; fi" },
	{ "test -x /a && while read l; do echo $l; done", "test -x /a",
	    "while read l; do echo $l; done" },
	{ "test -x /a && for f in a b; do run \"$f\"; done", "test -x /a",
	    "for f in a b; do run \"$f\"; done" },
	/* certbot's: an escaped "!", and a chain after. */
	{ "test -x /usr/bin/certbot -a \\! -d /run/systemd/system && perl -e "
	    "'sleep int(rand(43200))' && certbot -q renew",
	    "test -x /usr/bin/certbot -a \\! -d /run/systemd/system",
	    "perl -e 'sleep int(rand(43200))' && certbot -q renew" },
	{ "test -x /usr/lib/sysstat/debian-sa1 && debian-sa1 1 1",
	    "test -x /usr/lib/sysstat/debian-sa1", "debian-sa1 1 1" },
	{ "[ -x \"$HOME/bin/x\" ] && \"$HOME/bin/x\"", "[ -x \"$HOME/bin/x\" ]",
	    "\"$HOME/bin/x\"" },
	{ "test -e '/a b' && run 2>&1 | logger", "test -e '/a b'",
	    "run 2>&1 | logger" },
	{ "test -x /a && { cd /; run; }", "test -x /a", "{ cd /; run; }" },
	{ "test -x /a && run \"$(date; date)\"", "test -x /a",
	    "run \"$(date; date)\"" },
	{ "test -x /a && run # note", "test -x /a", "run # note" },
	/* Not the idiom, or the split would change what runs. */
	{ "test -x /a || b", NULL, NULL },
	{ "test -x /a && b || c", NULL, NULL },
	{ "test -x /a && b; c", NULL, NULL },
	{ "test -x /a && b & c", NULL, NULL },
	{ "test -x /a && b &", NULL, NULL },
	{ "test -x /a; b && c", NULL, NULL },
	{ "test -x /a | b && c", NULL, NULL },
	{ "test -x \"/a && b\"", NULL, NULL },
	{ "test -x '/a && b' && c || d", NULL, NULL },
	{ "test -x $(which a) && a", NULL, NULL },
	{ "test -x ${A:-x&&y} && a", NULL, NULL },
	{ "test -x `which a` && a", NULL, NULL },
	{ "test -x /a 2>/dev/null && a", NULL, NULL },
	{ "test -x /a # c && a", NULL, NULL },
	{ "test -x /a && ", NULL, NULL },
	{ "test -x /a && # c", NULL, NULL },
	{ "test -x /a && (b", NULL, NULL },
	{ "test -x /a && b)", NULL, NULL },
	{ "test -x /a && echo \"x", NULL, NULL },
	{ "test -x /a && `b`", NULL, NULL },
	{ "testx -x /a && b", NULL, NULL },
	{ "[[ -x /a ]] && b", NULL, NULL },
	{ "! test -x /a && b", NULL, NULL },
	{ "echo test && b", NULL, NULL },
	{ "test -x /a \\", NULL, NULL },
	{ "test -x /a && b\nc", NULL, NULL },
	/* Keywords count only in command position. */
	{ "test -x /a && echo if; echo fi", NULL, NULL },
	{ "test -x /a && echo done; b", NULL, NULL },
	{ "test -x /a && if b; then c; fi; d", NULL, NULL },
	{ "test -x /a && if b; then c; fi || d", NULL, NULL },
	{ "test -x /a && fi", NULL, NULL },
	{ "test -x /a && if b; then c", NULL, NULL },
	{ "test -x /a && case $x in a) b;; esac", NULL, NULL },
};

int
main(void)
{
	struct cronline_cmd	 c;
	char			*s, *cond, *rest;
	size_t			 i;
	int			 split;

	T_RUN("percent");
	for (i = 0; i < sizeof percent_cases / sizeof *percent_cases; i++) {
		cronline_percent(percent_cases[i].text, &c);
		T_EQ_STR(c.command, percent_cases[i].command);
		if (percent_cases[i].input == NULL)
			T_TRUE(c.input == NULL);
		else
			T_EQ_STR(c.input != NULL ? c.input : "(none)",
			    percent_cases[i].input);
		cronline_cmd_free(&c);
	}

	T_RUN("feed");
	for (i = 0; i < sizeof feed_cases / sizeof *feed_cases; i++) {
		s = cronline_feed(feed_cases[i].cmd, feed_cases[i].input);
		T_EQ_STR(s, feed_cases[i].want);
		free(s);
	}

	T_RUN("condition");
	for (i = 0; i < sizeof cond_cases / sizeof *cond_cases; i++) {
		cond = rest = NULL;
		split = cronline_condition(cond_cases[i].cmd, &cond, &rest);
		T_EQ_STR(split ? cond : "(no split)", cond_cases[i].cond != NULL ?
		    cond_cases[i].cond : "(no split)");
		if (split && cond_cases[i].rest != NULL)
			T_EQ_STR(rest, cond_cases[i].rest);
		free(cond);
		free(rest);
	}
	return t_done();
}

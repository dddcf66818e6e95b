/*
 * test_shwords.c -- which commands need a shell and the words of those
 * that do not; the exec key's splitting, errors included.  Table driven.
 */
#include <stdlib.h>
#include <string.h>

#include "shwords.h"
#include "t.h"

/* The words of a vector as "[w1][w2]...", or "shell" for NULL. */
static const char *
fmt_words(char **v, size_t lead, char *buf, size_t len)
{
	size_t i, used = 0;

	if (v == NULL)
		return "shell";
	buf[0] = '\0';
	for (i = lead; v[i] != NULL; i++)
		used += (size_t)snprintf(buf + used, used < len ? len - used :
		    0, "[%s]", v[i]);
	return buf;
}

/* command = ...: its words, or "shell" when /bin/sh must run it. */
static const struct {
	const char	*cmd;
	const char	*want;
} split_cases[] = {
	/* Plain words. */
	{ "echo a b", "[echo][a][b]" },
	{ "/bin/echo a b", "[/bin/echo][a][b]" },
	{ "true", "[true]" },
	{ "  ls\t-l   /tmp  ", "[ls][-l][/tmp]" },
	{ "/usr/bin/env", "[/usr/bin/env]" },
	{ "backup --full /srv/data", "[backup][--full][/srv/data]" },
	{ "./run.sh x", "[./run.sh][x]" },
	{ "run-parts /etc/cron.daily", "[run-parts][/etc/cron.daily]" },
	{ "a=b", "shell" },
	{ "env A=b prog", "[env][A=b][prog]" },	/* = only in the 1st */
	{ "prog a,b c:d e@f %g +h", "[prog][a,b][c:d][e@f][%g][+h]" },
	{ "prog x\ry", "[prog][x\ry]" },	/* CR is a word byte */
	{ "prog x\vy", "[prog][x\vy]" },
	{ "curl https://example.com/a", "[curl][https://example.com/a]" },
	{ "/bin/echo -e x", "[/bin/echo][-e][x]" },	/* a path: no builtin */
	{ "/usr/bin/kill 1", "[/usr/bin/kill][1]" },
	{ "/usr/bin/printf x", "[/usr/bin/printf][x]" },
	{ "sleep 30", "[sleep][30]" },
	{ "prog -", "[prog][-]" },
	{ "echo a-b", "[echo][a-b]" },
	{ "cdx", "[cdx]" },			/* not cd */
	{ "exec2 a", "[exec2][a]" },
	{ "caser", "[caser]" },
	{ "verylongprogramname x", "[verylongprogramname][x]" },
	{ "prog ]", "shell" },			/* conservative */
	/* Empty. */
	{ "", "shell" },
	{ "   ", "shell" },
	{ "\t", "shell" },
	/* Quotes and expansions. */
	{ "echo 'a b'", "shell" },
	{ "echo \"a b\"", "shell" },
	{ "echo `date`", "shell" },
	{ "echo $HOME", "shell" },
	{ "echo $(date)", "shell" },
	{ "echo ${x}", "shell" },
	{ "echo a\\ b", "shell" },
	{ "echo \\", "shell" },
	{ "ls ~", "shell" },
	{ "ls ~/x", "shell" },
	{ "ls a~b", "shell" },			/* conservative */
	/* Globs. */
	{ "ls *.c", "shell" },
	{ "ls a?", "shell" },
	{ "ls [ab]", "shell" },
	/* Redirections, operators, grouping. */
	{ "prog > out", "shell" },
	{ "prog >out", "shell" },
	{ "prog < in", "shell" },
	{ "prog 2>&1", "shell" },
	{ "a; b", "shell" },
	{ "a | b", "shell" },
	{ "a && b", "shell" },
	{ "a || b", "shell" },
	{ "a &", "shell" },
	{ "(a)", "shell" },
	{ "{ a; }", "shell" },
	{ "prog {x}", "shell" },
	{ "a ^ b", "shell" },			/* the Bourne shell's pipe */
	/* Comments and newlines. */
	{ "prog # comment", "shell" },
	{ "prog a#b", "shell" },		/* conservative */
	{ "a\nb", "shell" },
	{ "prog\n", "shell" },
	/* Assignments. */
	{ "FOO=bar prog", "shell" },
	{ "FOO=bar", "shell" },
	{ "  X=1 prog", "shell" },
	{ "/bin/a=b", "shell" },
	/* Reserved words. */
	{ "if true", "shell" },
	{ "then", "shell" },
	{ "else", "shell" },
	{ "elif", "shell" },
	{ "fi", "shell" },
	{ "case x in", "shell" },
	{ "esac", "shell" },
	{ "for x", "shell" },
	{ "while true", "shell" },
	{ "until false", "shell" },
	{ "do", "shell" },
	{ "done", "shell" },
	{ "in", "shell" },
	{ "function f", "shell" },
	{ "select x", "shell" },
	{ "! prog", "shell" },
	{ "[[ -f x ]]", "shell" },
	{ "time prog", "shell" },
	{ "coproc prog", "shell" },
	/* Builtins. */
	{ "cd /tmp", "shell" },
	{ "exit 3", "shell" },
	{ "exit", "shell" },
	{ "export A", "shell" },
	{ "set -e", "shell" },
	{ "unset A", "shell" },
	{ "alias a", "shell" },
	{ "eval prog", "shell" },
	{ "exec prog", "shell" },
	{ ". file", "shell" },
	{ "source file", "shell" },
	{ ": nothing", "shell" },
	{ "read x", "shell" },
	{ "trap x INT", "shell" },
	{ "ulimit -n", "shell" },
	{ "umask 022", "shell" },
	{ "wait", "shell" },
	{ "shift", "shell" },
	{ "return 1", "shell" },
	{ "break", "shell" },
	{ "continue", "shell" },
	{ "readonly A", "shell" },
	{ "local a", "shell" },
	{ "type ls", "shell" },
	{ "command ls", "shell" },
	{ "hash ls", "shell" },
	{ "getopts ab x", "shell" },
	{ "times", "shell" },
	{ "jobs", "shell" },
	{ "fg", "shell" },
	{ "bg", "shell" },
	{ "kill 1", "shell" },
	{ "test x", "shell" },
	{ "printf x", "shell" },
	{ "pwd", "shell" },
	{ "let x", "shell" },
	{ "declare x", "shell" },
	{ "typeset x", "shell" },
	{ "builtin echo", "shell" },
	{ "unalias a", "shell" },
	{ "chdir /", "shell" },
	{ "login", "shell" },
	{ "logout", "shell" },
	/* Builtins that are the program unless given an option. */
	{ "echo -n a", "shell" },
	{ "echo -e a", "shell" },
	{ "echo a -e", "shell" },
	{ "echo --help", "shell" },
	{ "true --version", "shell" },
	{ "false --help", "shell" },
	{ "false", "[false]" },
	{ "echo", "[echo]" },
};

/* exec = ...: its words, or the error. */
static const struct {
	const char	*text;
	const char	*want;		/* words, or NULL: an error */
	const char	*cause;
} exec_cases[] = {
	{ "/usr/bin/foo --bar \"a b\"", "[/usr/bin/foo][--bar][a b]", NULL },
	{ "foo", "[foo]", NULL },
	{ "  /bin/echo  a\tb\n c ", "[/bin/echo][a][b][c]", NULL },
	{ "/bin/echo 'a b' \"c d\"", "[/bin/echo][a b][c d]", NULL },
	{ "/bin/echo a\"b c\"d", "[/bin/echo][ab cd]", NULL },
	{ "/bin/echo 'it\"s'", "[/bin/echo][it\"s]", NULL },
	{ "/bin/echo \"it's\"", "[/bin/echo][it's]", NULL },
	{ "/bin/echo \"\" x", "[/bin/echo][][x]", NULL },
	{ "/bin/echo ''", "[/bin/echo][]", NULL },
	{ "/bin/echo a\\ b", "[/bin/echo][a b]", NULL },
	{ "/bin/echo \\\"q\\\"", "[/bin/echo][\"q\"]", NULL },
	{ "/bin/echo \\\\", "[/bin/echo][\\]", NULL },
	{ "/bin/echo \"a\\\"b\"", "[/bin/echo][a\"b]", NULL },
	{ "/bin/echo 'a\\tb'", "[/bin/echo][a\tb]", NULL },	/* systemd */
	{ "/bin/echo \\t\\n\\s", "[/bin/echo][\t\n ]", NULL },
	{ "/bin/echo \\x41\\102", "[/bin/echo][AB]", NULL },
	{ "/bin/echo \\;", "[/bin/echo][;]", NULL },
	{ "/bin/echo a;", "[/bin/echo][a;]", NULL },
	{ "/bin/echo $HOME %h *", "[/bin/echo][$HOME][%h][*]", NULL },
	{ "/bin/sh -c 'echo $0; exit 3'",
	    "[/bin/sh][-c][echo $0; exit 3]", NULL },
	{ "\"/opt/my prog/run\" x", "[/opt/my prog/run][x]", NULL },
	/* Errors. */
	{ "", NULL, "no program to run" },
	{ " \t\n", NULL, "no program to run" },
	{ "/bin/echo \"a b", NULL, "unterminated double quote" },
	{ "/bin/echo 'a b", NULL, "unterminated single quote" },
	{ "/bin/echo a'", NULL, "unterminated single quote" },
	{ "/bin/echo a\\", NULL, "a backslash ends the line" },
	{ "/bin/echo \\q", NULL, "unknown escape \\q" },
	{ "/bin/echo \\x4", NULL, "\\x needs two hexadecimal digits" },
	{ "/bin/echo \\xZZ", NULL, "\\x needs two hexadecimal digits" },
	{ "/bin/echo \\x00", NULL, "an escape gives a NUL byte, which no "
	    "argument can hold" },
	{ "/bin/echo \\000", NULL, "an escape gives a NUL byte, which no "
	    "argument can hold" },
	{ "/bin/echo \\08", NULL, "an octal escape needs three digits "
	    "(\\000 to \\377)" },
	{ "/bin/echo a ; /bin/echo b", NULL, "\";\" between commands is "
	    "systemd's, not tickd's: one program per job (a shell runs "
	    "several: command =)" },
	{ "\"\" x", NULL, "the program's name is empty" },
	{ "bin/foo", NULL, "\"bin/foo\": the program must be an absolute "
	    "path, or a name looked up in PATH" },
	{ "./foo", NULL, "\"./foo\": the program must be an absolute path, "
	    "or a name looked up in PATH" },
	{ "-/bin/foo", NULL, "\"-/bin/foo\": the program must be an absolute "
	    "path, or a name looked up in PATH" },
};

int
main(void)
{
	char	**v, *cause, buf[512];
	size_t	  i, lead;

	T_RUN("split");
	for (i = 0; i < sizeof split_cases / sizeof split_cases[0]; i++) {
		lead = i % 3;
		v = shwords_split(split_cases[i].cmd, lead);
		T_EQ_STR(split_cases[i].cmd, split_cases[i].cmd);
		T_EQ_STR(fmt_words(v, lead, buf, sizeof buf),
		    split_cases[i].want);
		if (v != NULL && lead > 0)
			T_TRUE(v[0] == NULL && v[lead - 1] == NULL);
		free(v);
	}

	T_RUN("exec");
	for (i = 0; i < sizeof exec_cases / sizeof exec_cases[0]; i++) {
		lead = i % 2;
		cause = NULL;
		v = shwords_exec_split(exec_cases[i].text, lead, &cause);
		T_EQ_STR(exec_cases[i].text, exec_cases[i].text);
		if (exec_cases[i].want != NULL) {
			T_EQ_STR(fmt_words(v, lead, buf, sizeof buf),
			    exec_cases[i].want);
			T_TRUE(cause == NULL);
		} else {
			T_TRUE(v == NULL);
			T_EQ_STR(cause, exec_cases[i].cause);
		}
		free(v);
		free(cause);
	}
	return t_done();
}

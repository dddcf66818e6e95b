/*
 * shwords.c -- a job's command as a program's words, when no shell is
 * needed to run it (as GNU make does for its recipes: job.c, sh_chars and
 * sh_cmds), and the explicit argv form of the exec key.
 *
 * shwords_split decides whether /bin/sh -c COMMAND would do anything but
 * split COMMAND at blanks and run the first word as a program with the
 * others as its arguments.  It answers "needs a shell" (NULL) for every
 * character a POSIX shell treats specially anywhere in the text (quotes,
 * expansions, globs, redirections, operators, comments, backslashes,
 * tildes, newlines; a few harmless ones too: ! ^ ]), an assignment in
 * the first word (FOO=bar cmd), a first word (without '/') that is a
 * reserved word or a builtin of some shell (dash's and bash's: the shell
 * is /bin/sh, whichever it is) and for echo, true and false, which are
 * dash builtins too, when an argument starts with '-' (their options
 * differ from coreutils'), and an empty command.  When in doubt: the
 * shell.  Words are separated by spaces and tabs only, as the shell's
 * tokenizer does.
 *
 * shwords_exec_split splits an exec value as systemd's ExecStart= does
 * (extract_first_word with unquoting and C escapes): blanks separate
 * words; single and double quotes group, anywhere in a word; a backslash
 * escape (\a \b \f \n \r \t \v \\ \" \' \; \s \xHH \NNN, a backslash
 * before a blank) is decoded inside and outside quotes.  Unlike systemd: no $VAR
 * substitution, no % specifiers, no ';' between commands, no prefixes
 * (@ - : + !): '$' and '%' are kept as written.  The program (first word)
 * must be an absolute path or a name without '/' (searched in PATH).
 *
 * Both return one allocation, lead spare pointers first (room for a
 * caller's prefix: the runner's /bin/sh for a script without #!), then
 * the words, then NULL, then the words' text; the caller frees it with
 * free().
 *
 * DIAGNOSTICS: shwords_exec_split returns NULL with *cause set; nothing
 * else fails (allocation is xmalloc's).
 */
#include <stdlib.h>
#include <string.h>

#include "shwords.h"
#include "xmalloc.h"

/* Anywhere in a command, each of these means the shell. */
#define SHWORDS_SPECIAL	"\"'`$*?[]#~;&|<>(){}\\!^\n"
#define SHWORDS_BLANK	" \t"
#define SHWORDS_WHITE	" \t\n\r"	/* systemd's WHITESPACE */

/*
 * First words that are the shell's own: reserved words (POSIX, bash,
 * ksh) and builtins of dash and bash that are not programs, or whose
 * program behaves differently (printf, kill, pwd, test).
 */
static const char *const shwords_shell_words[] = {
	/* Reserved words. */
	"!", "[[", "]]", "case", "coproc", "do", "done", "elif", "else",
	"esac", "fi", "for", "function", "if", "in", "select", "then",
	"time", "until", "while", "{", "}",
	/* Special builtins (POSIX). */
	".", ":", "break", "continue", "eval", "exec", "exit", "export",
	"readonly", "return", "set", "shift", "times", "trap", "unset",
	/* Other builtins of dash and bash. */
	"[", "alias", "bg", "bind", "builtin", "caller", "cd", "chdir",
	"command", "compgen", "complete", "compopt", "declare", "dirs",
	"disown", "enable", "fc", "fg", "getopts", "hash", "help",
	"history", "jobs", "kill", "let", "local", "login", "logout",
	"mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray",
	"shopt", "source", "suspend", "test", "type", "typeset", "ulimit",
	"umask", "unalias", "wait",
};

/* Builtins whose program is the same unless given an option. */
static const char *const shwords_option_words[] = {
	"echo", "false", "true",
};

#define NELEM(a)	(sizeof (a) / sizeof (a)[0])

/* Whether word is in list (n entries). */
static int
shwords_in(const char *word, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(word, list[i]) == 0)
			return 1;
	}
	return 0;
}

/*
 * A vector for nwords words of textlen bytes (with their NULs) after lead
 * spare pointers: pointers first, then the text.  *text is where the
 * words' bytes go.
 */
static char **
shwords_alloc(size_t lead, size_t nwords, size_t textlen, char **text)
{
	char	**v;
	size_t	  np = lead + nwords + 1, i;

	v = xmalloc(np * sizeof *v + textlen);
	for (i = 0; i < np; i++)
		v[i] = NULL;
	*text = (char *)(v + np);
	return v;
}

/*
 * The words of cmd when /bin/sh -c cmd would only run them as a program,
 * after lead spare (NULL) pointers; NULL when cmd needs a shell (see the
 * top of this file).  Caller frees the vector with free().
 */
char **
shwords_split(const char *cmd, size_t lead)
{
	const char	*p, *first;
	char		**v, *t, word[16];
	size_t		 n = 0, len, i, firstlen;
	int		 option = 0;

	if (cmd[strcspn(cmd, SHWORDS_SPECIAL)] != '\0')
		return NULL;
	first = cmd + strspn(cmd, SHWORDS_BLANK);
	firstlen = strcspn(first, SHWORDS_BLANK);
	if (firstlen == 0)
		return NULL;			/* empty: the shell's no-op */
	if (memchr(first, '=', firstlen) != NULL)
		return NULL;			/* an assignment */
	for (p = first; *p != '\0'; p += strspn(p, SHWORDS_BLANK)) {
		if (n++ > 0 && *p == '-')
			option = 1;
		p += strcspn(p, SHWORDS_BLANK);
	}
	/* A name (no '/') that the shell may take for its own. */
	if (memchr(first, '/', firstlen) == NULL && firstlen < sizeof word) {
		memcpy(word, first, firstlen);
		word[firstlen] = '\0';
		if (shwords_in(word, shwords_shell_words,
		    NELEM(shwords_shell_words)))
			return NULL;
		if (option && shwords_in(word, shwords_option_words,
		    NELEM(shwords_option_words)))
			return NULL;
	}

	v = shwords_alloc(lead, n, strlen(first) + 1, &t);
	for (p = first, i = lead; *p != '\0'; i++) {
		len = strcspn(p, SHWORDS_BLANK);
		memcpy(t, p, len);
		t[len] = '\0';
		v[i] = t;
		t += len + 1;
		p += len;
		p += strspn(p, SHWORDS_BLANK);
	}
	return v;
}

/* The value of hexadecimal digit c, or -1. */
static int
shwords_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Decode the escape after a backslash at *pp (pointing past the
 * backslash): the byte in *out and *pp past the escape, or -1 with
 * *cause set.
 */
static int
shwords_escape(const char **pp, char *out, char **cause)
{
	const char	*p = *pp;
	int		 c = (unsigned char)*p, v, h, l;

	switch (c) {
	case '\0':
		*cause = xstrdup("a backslash ends the line");
		return -1;
	case 'a': v = '\a'; break;
	case 'b': v = '\b'; break;
	case 'f': v = '\f'; break;
	case 'n': v = '\n'; break;
	case 'r': v = '\r'; break;
	case 't': v = '\t'; break;
	case 'v': v = '\v'; break;
	case 's': v = ' '; break;
	case '\\': case '"': case '\'': case ' ': case '\t': case ';':
		v = c;
		break;
	case 'x':
		if ((h = shwords_hex((unsigned char)p[1])) == -1 ||
		    (l = shwords_hex((unsigned char)p[2])) == -1) {
			*cause = xstrdup("\\x needs two hexadecimal digits");
			return -1;
		}
		v = h * 16 + l;
		p += 2;
		break;
	case '0': case '1': case '2': case '3':
		if (p[1] < '0' || p[1] > '7' || p[2] < '0' || p[2] > '7') {
			*cause = xstrdup("an octal escape needs three digits "
			    "(\\000 to \\377)");
			return -1;
		}
		v = (c - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0');
		p += 2;
		break;
	default:
		if (c >= 0x20 && c < 0x7f)
			*cause = xasprintf("unknown escape \\%c", c);
		else
			*cause = xasprintf("unknown escape \\ followed by "
			    "byte 0x%02x", c);
		return -1;
	}
	if (v == 0) {
		*cause = xstrdup("an escape gives a NUL byte, which no "
		    "argument can hold");
		return -1;
	}
	*out = (char)v;
	*pp = p + 1;
	return 0;
}

/*
 * Split an exec value into words as systemd's ExecStart= does (see the
 * top of this file), after lead spare (NULL) pointers.  Returns the
 * vector (caller frees with free()), or NULL with *cause set: an
 * unterminated quote, a bad escape, no words, a lone ";", a program
 * that is neither an absolute path nor a name.
 */
char **
shwords_exec_split(const char *text, size_t lead, char **cause)
{
	const char	*p;
	char		**v, *t, *w, quote;
	size_t		 n = 0, i;

	/*
	 * One pass writes the words into the text area (never longer than
	 * the input), a second one points at them.
	 */
	v = shwords_alloc(lead, 0, strlen(text) + 1, &t);
	w = t;
	p = text + strspn(text, SHWORDS_WHITE);
	while (*p != '\0') {
		char		*start = w;
		const char	*src = p;

		quote = 0;
		while (*p != '\0') {
			if (quote == 0 && strchr(SHWORDS_WHITE, *p) != NULL)
				break;
			if (quote == 0 && (*p == '\'' || *p == '"'))
				quote = *p++;
			else if (quote != 0 && *p == quote) {
				quote = 0;
				p++;
			} else if (*p == '\\') {
				p++;
				if (shwords_escape(&p, w, cause) == -1)
					goto fail;
				w++;
			} else
				*w++ = *p++;
		}
		if (quote != 0) {
			*cause = xasprintf("unterminated %s quote",
			    quote == '"' ? "double" : "single");
			goto fail;
		}
		*w++ = '\0';
		if (n == 0 && *start == '\0') {
			*cause = xstrdup("the program's name is empty");
			goto fail;
		}
		if (p - src == 1 && *src == ';') {
			*cause = xstrdup("\";\" between commands is systemd's, "
			    "not tickd's: one program per job (a shell "
			    "runs several: command =)");
			goto fail;
		}
		n++;
		p += strspn(p, SHWORDS_WHITE);
	}
	if (n == 0) {
		*cause = xstrdup("no program to run");
		goto fail;
	}
	if (t[0] != '/' && strchr(t, '/') != NULL) {
		*cause = xasprintf("\"%s\": the program must be an absolute "
		    "path, or a name looked up in PATH", t);
		goto fail;
	}

	/* Room for the pointers: the text moves up behind them. */
	{
		size_t	 textlen = (size_t)(w - t), np = lead + n + 1;
		char	**nv;

		nv = xmalloc(np * sizeof *nv + textlen);
		memcpy(nv + np, t, textlen);
		free(v);
		v = nv;
		t = (char *)(v + np);
		for (i = 0; i < lead; i++)
			v[i] = NULL;
		for (i = lead; i < lead + n; i++) {
			v[i] = t;
			t += strlen(t) + 1;
		}
		v[i] = NULL;
	}
	return v;

fail:
	free(v);
	return NULL;
}

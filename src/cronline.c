/*
 * cronline.c -- a crontab entry's command as Debian's cron runs it.
 *
 * cronline_percent applies the rules of Debian's cron (3.0pl1 with its
 * patch "Handle escapes in job input", do_command.c's child_process) to
 * the command text of an entry:
 *
 *   - in the command, up to the first unescaped "%": "\%" is "%", "\\" is
 *     "\", any other "\x" stays "\x"; the first unescaped "%" ends the
 *     command, and what follows is the command's standard input;
 *   - in the input (written only when it is not empty): "%" is a newline,
 *     "\%" is "%", and every other backslash is kept ("\\" stays "\\",
 *     "\\%" is "\%"); a newline is added when the last character written
 *     was not one (so "%\" gives a lone "\" with no newline, as cron's loop
 *     does: a trailing backslash does not count as written text).
 *
 * So "cat%" has an empty input, "echo 100\\%" runs "echo 100\" with an
 * empty input, and "awk '{print \"a\\tb\"}'" reaches awk as "a\tb".
 *
 * cronline_feed writes the /bin/sh command that gives such an input to a
 * command: printf's lines piped into it, in braces when the command is
 * more than one pipeline.
 *
 * cronline_condition splits Debian's "test -x /usr/sbin/foo && foo" idiom
 * (or "[ ... ] && ...") into the test and the rest, only when that is the
 * same thing as sh: the test is one simple command (no ";", "|", "<", ">",
 * "(", "`", "$(" or "${", quotes closed before the "&&"), and the rest is an
 * and-list whose top level has no ";", "||", "&" or newline (in "A && B ||
 * C", C runs when A fails: not a precondition); inside parentheses,
 * braces and if/while/until/for/case compounds they may be.  Anything
 * this reading is unsure of is not split.
 *
 * DIAGNOSTICS: none; allocation failure is fatal (xmalloc).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cronline.h"
#include "xmalloc.h"

/*
 * Split cmd as cron does into c (caller frees with cronline_cmd_free).
 */
void
cronline_percent(const char *cmd, struct cronline_cmd *c)
{
	size_t		 len = strlen(cmd);
	char		*out = xmalloc(len + 2), *o = out, *in, *i;
	const char	*s;
	int		 escaped = 0, newline = 0;

	c->input = NULL;
	/* The command: do_command.c's first loop. */
	for (s = cmd; *s != '\0'; s++) {
		if (escaped) {
			if (*s == '%' || *s == '\\')
				o[-1] = *s;	/* the "\" replaced */
			else
				*o++ = *s;
			escaped = 0;
			continue;
		}
		*o++ = *s;
		if (*s == '\\')
			escaped = 1;
		else if (*s == '%') {
			o--;
			break;
		}
	}
	*o = '\0';
	c->command = out;
	if (*s != '%' || s[1] == '\0')
		return;		/* no input: the pipe is closed at once */
	/* The input: its second loop. */
	i = in = xmalloc(strlen(s) * 2 + 2);
	escaped = 0;
	for (s++; *s != '\0'; s++) {
		char ch = *s;

		if (escaped) {
			if (ch != '%')
				*i++ = '\\';
		} else if (ch == '%')
			ch = '\n';
		if (!(escaped = (ch == '\\'))) {
			*i++ = ch;
			newline = ch != '\n';
		}
	}
	if (escaped)
		*i++ = '\\';
	if (newline)
		*i++ = '\n';
	*i = '\0';
	c->input = in;
}

void
cronline_cmd_free(struct cronline_cmd *c)
{
	free(c->command);
	free(c->input);
	c->command = c->input = NULL;
}

/* Append s to the string *out (allocated), quoted for sh if quote. */
static void
cronline_cat(char **out, const char *s, size_t n, int quote)
{
	size_t	len = strlen(*out), k;
	char	*o;

	*out = xreallocarray(*out, len + n * 4 + 3, 1);
	o = *out + len;
	if (quote)
		*o++ = '\'';
	for (k = 0; k < n; k++) {
		if (quote && s[k] == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else
			*o++ = s[k];
	}
	if (quote)
		*o++ = '\'';
	*o = '\0';
}

/*
 * The sh command giving input (not empty) to cmd on its standard input,
 * allocated: printf '%s\n' 'line' ... | cmd.  Input without a final
 * newline gets a format of its own.  A command with ";", "&", "|", "#" or
 * a newline goes in braces, on lines of its own, so that the whole of it
 * reads the input as under cron; one that ends with "\" (which a newline
 * after it would turn into a line continuation) goes to /bin/sh -c, as
 * cron gives it.
 */
char *
cronline_feed(const char *cmd, const char *input)
{
	const char	*p, *nl;
	char		*out = xstrdup("printf ");
	size_t		 n = strlen(input);

	if (n > 0 && input[n - 1] == '\n')
		cronline_cat(&out, "%s\\n", 4, 1);
	else {
		/* One "%s\n" per line, then "%s". */
		cronline_cat(&out, "'", 1, 0);
		for (p = input; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
			cronline_cat(&out, "%s\\n", 4, 0);
		cronline_cat(&out, "%s'", 3, 0);
	}
	for (p = input; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p) - 1;
		cronline_cat(&out, " ", 1, 0);
		cronline_cat(&out, p, (size_t)(nl - p) + (*nl != '\n'), 1);
		if (nl[0] != '\n')
			break;
	}
	n = strlen(cmd);
	if (n > 0 && cmd[n - 1] == '\\') {
		/* "\" then a newline would join lines: as cron, sh -c. */
		cronline_cat(&out, " | /bin/sh -c ", 14, 0);
		cronline_cat(&out, cmd, n, 1);
	} else if (strpbrk(cmd, ";&|#\n") != NULL) {
		cronline_cat(&out, " | {\n", 5, 0);
		cronline_cat(&out, cmd, n, 0);
		cronline_cat(&out, "\n}", 2, 0);
	} else {
		cronline_cat(&out, " | ", 3, 0);
		cronline_cat(&out, cmd, strlen(cmd), 0);
	}
	return out;
}

/*
 * Skip a quoted string at *s ("'" or '"'); 0 if it does not close, or (a
 * double-quoted one, when strict) holds "`", "$(" or "${".
 */
static int
cronline_quoted(const char **s, int strict)
{
	const char *p = *s;

	if (*p == '\'') {
		if ((p = strchr(p + 1, '\'')) == NULL)
			return 0;
		*s = p + 1;
		return 1;
	}
	for (p++; *p != '"'; p++) {
		if (*p == '\0' || *p == '`')
			return 0;
		if (strict && *p == '$' && (p[1] == '(' || p[1] == '{'))
			return 0;
		if (*p == '\\' && p[1] != '\0')
			p++;
	}
	*s = p + 1;
	return 1;
}

/*
 * The end of the leading test of cmd (at its "&&"), or NULL when it is
 * not one simple command whose words are plain, quoted or escaped text.
 */
static const char *
cronline_test_end(const char *s)
{
	for (;;) {
		switch (*s) {
		case '&':
			return s[1] == '&' ? s : NULL;
		case '\\':
			if (s[1] == '\0' || s[1] == '\n')
				return NULL;
			s += 2;
			break;
		case '\'':
		case '"':
			if (!cronline_quoted(&s, 1))
				return NULL;
			break;
		case '$':
			if (!isalnum((unsigned char)s[1]) && s[1] != '_')
				return NULL;
			s++;
			break;
		case '\0':
		case '\n':
		case ';':
		case '|':
		case '<':
		case '>':
		case '(':
		case ')':
		case '{':
		case '}':
		case '`':
		case '#':
			return NULL;
		default:
			s++;
			break;
		}
	}
}

/*
 * The change of nesting a word at s makes in command position: +1 for
 * "if", "while", "until", "case", "for", -1 for "fi", "done", "esac"; 0
 * for others.  *cmdpos tells whether the next word is in command position
 * (after "then", "do", "else", "elif", "if", "while", "until").
 */
static int
cronline_keyword(const char *s, size_t n, int *cmdpos)
{
	static const char *const open[] = { "if", "while", "until", "case",
	    "for" };
	static const char *const close[] = { "fi", "done", "esac" };
	static const char *const next[] = { "then", "do", "else", "elif",
	    "if", "while", "until" };
	size_t	i;
	int	d = 0;

	for (i = 0; i < sizeof open / sizeof *open; i++) {
		if (strlen(open[i]) == n && strncmp(s, open[i], n) == 0)
			d = 1;
	}
	for (i = 0; i < sizeof close / sizeof *close; i++) {
		if (strlen(close[i]) == n && strncmp(s, close[i], n) == 0)
			d = -1;
	}
	*cmdpos = 0;
	for (i = 0; i < sizeof next / sizeof *next; i++) {
		if (strlen(next[i]) == n && strncmp(s, next[i], n) == 0)
			*cmdpos = 1;
	}
	return d;
}

/*
 * Whether s is an and-or list of pipelines joined by "&&" only at its top
 * level: no ";", "||", "&" (but in ">&" and "<&") or newline outside
 * quotes, parentheses, braces and compound commands (if ... fi, while,
 * until, for ... done, case ... esac, their words counted only in command
 * position); balanced; no backquotes.
 */
static int
cronline_and_list(const char *s)
{
	const char	*start = s, *w;
	int		 depth = 0, cmdpos = 1;

	for (;;) {
		switch (*s) {
		case '\0':
			return depth == 0;
		case ' ':
		case '\t':
			s++;
			continue;
		case '\\':
			if (s[1] == '\0')
				return 0;
			s += 2;
			cmdpos = 0;
			continue;
		case '\'':
		case '"':
			if (!cronline_quoted(&s, 0))
				return 0;
			cmdpos = 0;
			continue;
		case '`':
			return 0;
		case '(':
		case '{':
			depth++;
			cmdpos = 1;
			break;
		case ')':
		case '}':
			if (--depth < 0)
				return 0;
			cmdpos = 0;
			break;
		case '#':
			/* A comment: at the start of a word, to the end. */
			if (s == start || isspace((unsigned char)s[-1]))
				return depth == 0 && strchr(s, '\n') == NULL;
			cmdpos = 0;
			break;
		case '&':
			cmdpos = 1;
			if (s[1] == '&') {
				s++;
				break;
			}
			if (depth == 0 && (s == start || (s[-1] != '>' &&
			    s[-1] != '<')))
				return 0;
			break;
		case '|':
			cmdpos = 1;
			if (s[1] == '|' && depth == 0)
				return 0;
			if (s[1] == '|')
				s++;
			break;
		case ';':
		case '\n':
			cmdpos = 1;
			if (depth == 0)
				return 0;
			break;
		default:
			/* A word: plain characters up to an operator. */
			for (w = s; *s != '\0' && strchr(" \t\n;&|()<>{}'\"`\\#",
			    *s) == NULL; s++)
				;
			if (s == w) {		/* "<" or ">" */
				s++;
				cmdpos = 0;
			} else if (cmdpos && (depth += cronline_keyword(w,
			    (size_t)(s - w), &cmdpos)) < 0)
				return 0;
			continue;
		}
		s++;
	}
}

/*
 * Split cmd "test ... && rest" (or "[ ... ] && rest") into *cond and
 * *rest (allocated); 1 if split, 0 (nothing set) if cmd is not that idiom
 * or the split would not mean what sh makes of cmd.
 */
int
cronline_condition(const char *cmd, char **cond, char **rest)
{
	const char	*s = cmd, *end, *r;
	size_t		 n;

	while (*s == ' ' || *s == '\t')
		s++;
	if (strncmp(s, "test", 4) == 0 && (s[4] == ' ' || s[4] == '\t'))
		end = cronline_test_end(s + 4);
	else if (s[0] == '[' && (s[1] == ' ' || s[1] == '\t'))
		end = cronline_test_end(s + 1);
	else
		return 0;
	if (end == NULL)
		return 0;
	for (r = end + 2; *r == ' ' || *r == '\t'; r++)
		;
	if (*r == '\0' || *r == '#' || !cronline_and_list(r))
		return 0;
	for (n = (size_t)(end - s); n > 0 && (s[n - 1] == ' ' ||
	    s[n - 1] == '\t'); n--)
		;
	*cond = xstrndup(s, n);
	*rest = xstrdup(r);
	return 1;
}

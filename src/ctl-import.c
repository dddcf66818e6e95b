/*
 * ctl-import.c -- "tickctl import-crontab": turn crontabs into job files.
 *
 *   tickctl import-crontab [--system] [--prefix ID] [--user USER] FILE...
 *
 * Reads user crontabs (crontab(5): five fields and a command) or, with
 * --system or for /etc/crontab and the files of /etc/cron.d, system
 * crontabs (a user column after the fields), and prints one job file on
 * stdout for review:
 * one [section] per entry, the original line as a comment.  Variables
 * become "environment" lines of the jobs after them; CRON_TZ becomes
 * "timezone"; MAILTO and a SHELL other than /bin/sh are noted, since
 * tickd sends no mail (use on_failure) and always runs /bin/sh.  A "%" in
 * a command (cron's newline, and the start of the command's stdin) is
 * turned into a printf piped into the command; "\%" is a plain "%".  An
 * entry tickd cannot parse is printed commented out, with the reason, and
 * makes the exit status 1.
 *
 * DIAGNOSTICS: unreadable files and usage errors on stderr; exit 2 for
 * usage, 1 when any entry could not be converted.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "schedule.h"
#include "xmalloc.h"

static int	ctl_import_exec(int, char **, struct ctl_ctx *);

const struct ctl_cmd ctl_import_cmd = {
	"import-crontab",
	"[--system] [--prefix ID] [--user USER] FILE...",
	"print job files converted from crontab files, for review",
	ctl_import_exec,
};

/* The state of one file's conversion. */
struct ctl_import {
	const char	*file;
	const char	*prefix;
	const char	*user;		/* --user: for every job */
	int		 system;	/* a user column */
	char		**vars;		/* NAME=value, as they came */
	size_t		 nvars;
	char		*tz;		/* CRON_TZ */
	int		 n;		/* entries converted */
	int		 bad;		/* entries that could not be */
};

/* Print a value that may span lines as continuation lines. */
static void
ctl_import_value(const char *key, const char *v)
{
	const char *nl;

	(void)printf("%s = ", key);
	for (;;) {
		nl = strchr(v, '\n');
		(void)printf("%.*s\n", nl ? (int)(nl - v) : (int)strlen(v), v);
		if (nl == NULL)
			break;
		v = nl + 1;
		(void)printf("    ");
	}
}

/* Quote s for /bin/sh in single quotes. */
static char *
ctl_import_quote(const char *s)
{
	char	*out = xmalloc(strlen(s) * 4 + 3), *o = out;

	*o++ = '\'';
	for (; *s != '\0'; s++) {
		if (*s == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else
			*o++ = *s;
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

/*
 * Cron's "%" rule: the first unescaped % ends the command, the rest is
 * its stdin with each further % a newline; "\%" is a literal %.  Returns
 * the command for /bin/sh (allocated).
 */
static char *
ctl_import_command(const char *cmd)
{
	char	*plain = xmalloc(strlen(cmd) + 1), *input = NULL, *o = plain;
	char	*out, *q, *line, *p;
	size_t	 len;

	for (; *cmd != '\0'; cmd++) {
		if (cmd[0] == '\\' && cmd[1] == '%') {
			*o++ = '%';
			cmd++;
			continue;
		}
		if (*cmd == '%' && input == NULL) {
			*o++ = '\0';
			input = o;
			continue;
		}
		*o++ = *cmd == '%' ? '\n' : *cmd;
	}
	*o = '\0';
	if (input == NULL)
		return plain;
	/* printf 'line1\nline2\n' | command, each line quoted. */
	out = xstrdup("printf '%s\\n'");
	for (p = input; (line = strsep(&p, "\n")) != NULL;) {
		q = ctl_import_quote(line);
		len = strlen(out) + strlen(q) + 2;
		out = xreallocarray(out, len, 1);
		(void)strcat(out, " ");
		(void)strcat(out, q);
		free(q);
	}
	q = xasprintf("%s | %s", out, plain);
	free(out);
	free(plain);
	return q;
}

/* Split off the next blank-separated word of *sp. */
static char *
ctl_import_word(char **sp)
{
	char *s = *sp, *w;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0')
		return NULL;
	w = s;
	while (*s != '\0' && *s != ' ' && *s != '\t')
		s++;
	if (*s != '\0')
		*s++ = '\0';
	*sp = s;
	return w;
}

/* A variable line "NAME = value" (quotes removed); 1 if it was one. */
static int
ctl_import_var(struct ctl_import *im, const char *line)
{
	const char	*eq = strchr(line, '='), *v;
	char		*name, *value;
	size_t		 n, i;

	if (eq == NULL)
		return 0;
	for (n = (size_t)(eq - line); n > 0 && isblank((unsigned char)line[n - 1]);
	    n--)
		;
	if (n == 0 || strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
	    "nopqrstuvwxyz0123456789_") != n || isdigit((unsigned char)*line))
		return 0;
	name = xstrndup(line, n);
	for (v = eq + 1; isblank((unsigned char)*v); v++)
		;
	value = xstrdup(v);
	n = strlen(value);
	while (n > 0 && isspace((unsigned char)value[n - 1]))
		value[--n] = '\0';
	if (n >= 2 && (value[0] == '"' || value[0] == '\'') &&
	    value[n - 1] == value[0]) {
		memmove(value, value + 1, n - 2);
		value[n - 2] = '\0';
	}
	if (strcmp(name, "CRON_TZ") == 0) {
		free(im->tz);
		im->tz = value[0] != '\0' ? xstrdup(value) : NULL;
	} else if (strcmp(name, "MAILTO") == 0 && value[0] == '\0') {
		(void)printf("# MAILTO is empty: cron sent no mail, and tickd "
		    "sends none; output goes to the journal\n\n");
	} else if (strcmp(name, "MAILTO") == 0) {
		(void)printf("# MAILTO=%s: tickd sends no mail; use on_failure "
		    "(tickd.job(5)) to be told of failures\n\n", value);
	} else if (strcmp(name, "SHELL") == 0) {
		if (strcmp(value, "/bin/sh") != 0)
			(void)printf("# SHELL=%s: tickd runs commands with "
			    "/bin/sh; wrap them (%s -c '...') if they need "
			    "it\n\n", value, value);
	} else {
		for (i = 0; i < im->nvars; i++) {
			if (strncmp(im->vars[i], name, strlen(name)) == 0 &&
			    im->vars[i][strlen(name)] == '=')
				break;
		}
		if (i == im->nvars) {
			im->vars = xreallocarray(im->vars, im->nvars + 1,
			    sizeof *im->vars);
			im->vars[im->nvars++] = NULL;
		}
		free(im->vars[i]);
		im->vars[i] = xasprintf("%s=%s", name, value);
	}
	free(name);
	free(value);
	return 1;
}

/* Convert one entry line. */
static void
ctl_import_entry(struct ctl_import *im, const char *orig, int lineno)
{
	char		*line = xstrdup(orig), *p = line, *w, *sched = NULL;
	char		*user = NULL, *cmd, *cause = NULL;
	struct schedule	*s = NULL;
	size_t		 i;
	int		 nf;

	/* The schedule: a macro, or five fields. */
	if ((w = ctl_import_word(&p)) == NULL)
		goto out;
	if (w[0] == '@')
		sched = xstrdup(w);
	else {
		sched = xstrdup(w);
		for (nf = 1; nf < 5; nf++) {
			if ((w = ctl_import_word(&p)) == NULL)
				break;
			w = xasprintf("%s %s", sched, w);
			free(sched);
			sched = w;
		}
	}
	if (im->system && (user = ctl_import_word(&p)) == NULL) {
		cause = xstrdup("no user column");
		goto bad;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0') {
		cause = xstrdup("no command");
		goto bad;
	}
	if ((s = schedule_parse(sched, NULL, &cause)) == NULL)
		goto bad;

	im->n++;
	(void)printf("# %s:%d: %s\n[%s-%d]\n", im->file, lineno, orig,
	    im->prefix, im->n);
	(void)printf("schedule = %s\n", sched);
	if (im->tz != NULL)
		(void)printf("timezone = %s\n", im->tz);
	if (im->user != NULL || user != NULL)
		(void)printf("user = %s\n", im->user != NULL ? im->user : user);
	for (i = 0; i < im->nvars; i++)
		(void)printf("environment = %s\n", im->vars[i]);
	cmd = ctl_import_command(p);
	ctl_import_value("command", cmd);
	free(cmd);
	(void)printf("\n");
	goto out;
bad:
	im->bad++;
	(void)printf("# %s:%d: not converted: %s\n# %s\n\n", im->file, lineno,
	    cause, orig);
out:
	free(cause);
	schedule_free(s);
	free(sched);
	free(line);
}

/* Convert one crontab file; -1 if it cannot be read. */
static int
ctl_import_file(struct ctl_import *im)
{
	FILE	*f;
	char	*line = NULL, *p;
	size_t	 cap = 0, n, i;
	ssize_t	 len;
	int	 lineno = 0;

	if ((f = fopen(im->file, "re")) == NULL) {
		ctl_error("import-crontab: %s: %m", im->file);
		return -1;
	}
	(void)printf("# Converted from %s by tickctl import-crontab.\n"
	    "# Review before installing into the jobs directory: tickd "
	    "runs each\n# command with /bin/sh -c, once per instance "
	    "(overlap = skip by\n# default, where cron would start a "
	    "second copy).\n\n", im->file);
	while ((len = getline(&line, &cap, f)) != -1) {
		lineno++;
		for (n = (size_t)len; n > 0 && (line[n - 1] == '\n' ||
		    line[n - 1] == '\r'); n--)
			line[n - 1] = '\0';
		for (p = line; isblank((unsigned char)*p); p++)
			;
		if (*p == '\0' || *p == '#')
			continue;
		if (!ctl_import_var(im, p))
			ctl_import_entry(im, p, lineno);
	}
	free(line);
	(void)fclose(f);
	for (i = 0; i < im->nvars; i++)
		free(im->vars[i]);
	free(im->vars);
	im->vars = NULL;
	im->nvars = 0;
	free(im->tz);
	im->tz = NULL;
	return 0;
}

/* A job id prefix from a file name: its base name, in [A-Za-z0-9_.-]. */
static char *
ctl_import_prefix(const char *file)
{
	const char	*base = strrchr(file, '/');
	char		*p, *out;

	out = xstrdup(base != NULL ? base + 1 : file);
	for (p = out; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' &&
		    *p != '-')
			*p = '-';
	}
	if (out[0] == '\0' || strlen(out) > 32) {
		free(out);
		out = xstrdup("cron");
	}
	return out;
}

static int
ctl_import_exec(int argc, char **argv, struct ctl_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "system", no_argument, NULL, 's' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctl_import	 im;
	const char		*prefix = NULL;
	char			*auto_prefix;
	int			 ch, system = 0, rc = CTL_EXIT_OK, i;

	(void)ctx;
	memset(&im, 0, sizeof im);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			system = 1;
			break;
		case 'p':
			if (optarg[0] == '\0' || strspn(optarg, "ABCDEFGHIJ"
			    "KLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123"
			    "456789_.-") != strlen(optarg) ||
			    strlen(optarg) > 32) {
				ctl_error("import-crontab: --prefix: \"%s\" is "
				    "not 1-32 of A-Z a-z 0-9 _ . -", optarg);
				return CTL_EXIT_USAGE;
			}
			prefix = optarg;
			break;
		case 'u':
			im.user = optarg;
			break;
		case 'h':
			(void)printf("usage: tickctl import-crontab %s\n",
			    ctl_import_cmd.usage);
			return CTL_EXIT_OK;
		default:
			return ctl_getopt_error(&ctl_import_cmd, ch, argv);
		}
	}
	if (optind >= argc) {
		ctl_error("import-crontab: usage: tickctl import-crontab %s",
		    ctl_import_cmd.usage);
		return CTL_EXIT_USAGE;
	}
	for (i = optind; i < argc; i++) {
		im.file = argv[i];
		auto_prefix = prefix == NULL ? ctl_import_prefix(argv[i]) :
		    NULL;
		im.prefix = prefix != NULL ? prefix : auto_prefix;
		im.system = system || strcmp(argv[i], "/etc/crontab") == 0 ||
		    strncmp(argv[i], "/etc/cron.d/", 12) == 0;
		if (prefix == NULL)
			im.n = 0;
		if (ctl_import_file(&im) == -1)
			rc = CTL_EXIT_FAIL;
		free(auto_prefix);
	}
	if (im.bad > 0) {
		ctl_error("import-crontab: %d entr%s could not be converted "
		    "(commented out in the output)", im.bad,
		    im.bad == 1 ? "y" : "ies");
		rc = CTL_EXIT_FAIL;
	}
	if (ctl_flush("import-crontab") != 0)
		rc = CTL_EXIT_FAIL;
	return rc;
}

/*
 * ctl-import.c -- "tickctl import-crontab": turn crontabs into job files.
 *
 *   tickctl import-crontab [--system] [--prefix ID] [--user USER] FILE...
 *
 * Reads user crontabs (crontab(5): five fields and a command) or, with
 * --system or for /etc/crontab and the files of /etc/cron.d, system
 * crontabs (a user column after the fields), and prints one job file on
 * stdout for review, so that each entry behaves as under Debian's cron:
 * a header naming tickd's defaults that differ from cron, then one
 * [section] per entry, the original line as a comment.  Ids are
 * unique across one run: a file name already used gets -2, -3...
 *
 * Each job gets cron's environment: the variables before it, then
 * PATH=/usr/bin:/bin and SHELL=/bin/sh unless the crontab set them (HOME
 * and LOGNAME come from the user, as cron takes them; a LOGNAME of the
 * crontab is dropped, as cron overrides it).  CRON_TZ becomes "timezone",
 * said per entry on stdout and stderr, since Debian's cron ignores it.
 * The command is what cron hands /bin/sh (cronline.c: "%", "\%", "\\"),
 * its input fed by printf; a SHELL other than /bin/sh runs it as cron
 * would.  A leading "test ... &&" becomes only_if.  A HOME of the crontab
 * becomes workdir (cron changes into $HOME); a home directory missing at
 * import time is said per entry (the job runs in /).  An entry tickd
 * cannot parse is printed commented out, with the reason, and makes the
 * exit status 1.
 *
 * DIAGNOSTICS: unreadable files and usage errors on stderr, a CRON_TZ
 * line per entry that has one; exit 2 for usage, 1 when any entry could
 * not be converted.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cronline.h"
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

/* The state of one run, and of the file being converted. */
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
	char		**prefixes;	/* used in this run */
	size_t		 nprefixes;
};

/* What the header says: tickd's defaults that are not cron's. */
static const char ctl_import_header[] =
"# Converted by tickctl import-crontab to behave as under Debian's cron.\n"
"# Review before installing into the jobs directory.\n"
"#\n"
"# Set to match cron: each job's environment (the crontab's variables,\n"
"# and PATH=/usr/bin:/bin and SHELL=/bin/sh unless it set them; HOME and\n"
"# LOGNAME are the user's); the command as cron hands it to its shell\n"
"# (\"%\" starts the standard input, then is a newline; \"\\%\" is \"%\" and\n"
"# \"\\\\\" is \"\\\" before it); a leading \"test ... &&\" as only_if (a run it\n"
"# stops is recorded skipped, reason condition, not failed, as cron did\n"
"# not care); a HOME of the crontab as workdir.\n"
"#\n"
"# tickd's defaults that differ from cron (tickd.job(5)), kept; add the\n"
"# key to a job for cron's way:\n"
"#   overlap = skip: an instance due while the last one runs is skipped;\n"
"#     cron starts another copy (overlap = allow, max_parallel = 1000).\n"
"#   misfire = run_once: an instance missed while tickd was down runs once\n"
"#     when it starts; cron forgot it (misfire = skip).\n"
"#   misfire_grace = 60s: an instance started later than that (tickd\n"
"#     stopped, the host suspended) is a missed one; cron ran those of\n"
"#     a clock jump of up to 3 hours late, once each, and forgot the rest.\n"
"#   recover = rerun: an instance cut short by a tickd crash runs again;\n"
"#     cron's jobs outlived it and none ran twice (recover = abandon).\n"
"#   exit status: non-zero fails the run (tickctl check, on_failure,\n"
"#     retry_on_exit with retries, 0 by default); cron only logged it.\n"
"#   output: to the journal, the last output_keep = 64k kept per run; cron\n"
"#     mailed it to MAILTO or the user.  tickd sends no mail: on_failure.\n"
"#   timeout = 0: no limit, as cron; kill_signal and kill_grace apply\n"
"#     when a run is stopped (tickctl, shutdown); cron never stopped one.\n"
"#   [daemon] max_running = 256 processes at once (tickd.conf(5)); cron\n"
"#     had no limit.\n"
"#   workdir: the user's home, or / when it does not exist, as cron.\n"
"#   environment: tickd adds USER; cron on Debian added pam_env's\n"
"#     variables (/etc/environment, /etc/default/locale: LANG).\n"
"#   dst_gap, dst_fold = auto: a fixed-time entry runs once across a DST\n"
"#     change, as under Debian's cron.\n"
"#   CRON_TZ: tickd follows it (timezone); Debian's cron ignored it.\n"
"#   @reboot: when tickd starts after a boot.\n"
"\n";

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

/* The index of the crontab's variable name so far, or nvars. */
static size_t
ctl_import_findvar(const struct ctl_import *im, const char *name)
{
	size_t	i, n = strlen(name);

	for (i = 0; i < im->nvars; i++) {
		if (strncmp(im->vars[i], name, n) == 0 &&
		    im->vars[i][n] == '=')
			break;
	}
	return i;
}

/* The value of the crontab's variable name so far, or NULL. */
static const char *
ctl_import_getvar(const struct ctl_import *im, const char *name)
{
	size_t	i = ctl_import_findvar(im, name);

	return i < im->nvars ? im->vars[i] + strlen(name) + 1 : NULL;
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

/*
 * A variable line "NAME = value" (quotes removed); 1 if it was one.  Each
 * becomes the environment of the jobs after it, as cron exports them all
 * (MAILTO, CRON_TZ and SHELL too), but LOGNAME, which cron sets itself.
 */
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
	} else if (strcmp(name, "SHELL") == 0 &&
	    strcmp(value, "/bin/sh") != 0) {
		(void)printf("# SHELL=%s: the commands after this run with "
		    "%s -c, as cron ran them\n\n", value, value);
	} else if (strcmp(name, "LOGNAME") == 0) {
		(void)printf("# LOGNAME=%s: dropped, as cron sets LOGNAME to "
		    "the job's user\n\n", value);
		goto out;
	}
	if ((i = ctl_import_findvar(im, name)) == im->nvars) {
		im->vars = xreallocarray(im->vars, im->nvars + 1,
		    sizeof *im->vars);
		im->vars[im->nvars++] = NULL;
	}
	free(im->vars[i]);
	im->vars[i] = xasprintf("%s=%s", name, value);
out:
	free(name);
	free(value);
	return 1;
}

/* Whether path is a directory here. */
static int
ctl_import_isdir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/*
 * The job's directory: cron changes into $HOME (the crontab's, else the
 * user's) and ignores a failure, staying in /.  A HOME of the crontab
 * becomes workdir (/ when it is not a directory here, said so); a
 * user's home missing here is said in a comment (tickd runs in / then).
 */
static void
ctl_import_workdir(const struct ctl_import *im, const char *user)
{
	const char	*home = ctl_import_getvar(im, "HOME");
	struct passwd	*pw;

	if (home != NULL && home[0] == '/' && ctl_import_isdir(home)) {
		(void)printf("workdir = %s\n", home);
		return;
	}
	if (home != NULL) {
		(void)printf("# workdir: / (HOME=%s is not a directory here; "
		    "cron ignores the failed chdir)\nworkdir = /\n", home);
		return;
	}
	if (user == NULL)
		return;
	if ((pw = getpwnam(user)) == NULL)
		(void)printf("# user %s is not in the password database "
		    "here\n", user);
	else if (!ctl_import_isdir(pw->pw_dir))
		(void)printf("# workdir: / (home %s does not exist; cron "
		    "ignores the failed chdir)\n", pw->pw_dir);
}

/*
 * The command tickd runs for cron's command text cmd, and its condition
 * (*cond, or NULL); allocated.
 */
static char *
ctl_import_command(const struct ctl_import *im, const char *text,
    char **cond)
{
	const char		*shell = ctl_import_getvar(im, "SHELL");
	struct cronline_cmd	 c;
	char			*cmd, *rest, *q;

	*cond = NULL;
	cronline_percent(text, &c);
	if (shell != NULL && strcmp(shell, "/bin/sh") != 0) {
		q = ctl_import_quote(c.command);
		cmd = xasprintf("%s -c %s", shell, q);
		free(q);
	} else if (cronline_condition(c.command, cond, &rest))
		cmd = rest;
	else
		cmd = xstrdup(c.command);
	if (c.input != NULL) {
		q = cronline_feed(cmd, c.input);
		free(cmd);
		cmd = q;
	}
	cronline_cmd_free(&c);
	return cmd;
}

/* Convert one entry line. */
static void
ctl_import_entry(struct ctl_import *im, const char *orig, int lineno)
{
	char		*line = xstrdup(orig), *p = line, *w, *sched = NULL;
	char		*user = NULL, *cmd, *cond, *cause = NULL;
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
	if (*p == '\0' || *p == '%') {
		cause = xstrdup("no command");
		goto bad;
	}
	if ((s = schedule_parse(sched, NULL, &cause)) == NULL)
		goto bad;

	im->n++;
	(void)printf("# %s:%d: %s\n[%s-%d]\n", im->file, lineno, orig,
	    im->prefix, im->n);
	(void)printf("schedule = %s\n", sched);
	if (im->tz != NULL) {
		(void)printf("# CRON_TZ=%s: Debian's cron ignores it (this "
		    "entry ran on the system's clock); tickd follows it\n"
		    "timezone = %s\n", im->tz, im->tz);
		ctl_error("import-crontab: %s:%d: CRON_TZ=%s: Debian's cron "
		    "ignores it, tickd follows it (timezone = %s)", im->file,
		    lineno, im->tz, im->tz);
	}
	if (im->user != NULL || user != NULL)
		(void)printf("user = %s\n", im->user != NULL ? im->user : user);
	ctl_import_workdir(im, im->user != NULL ? im->user : user);
	for (i = 0; i < im->nvars; i++)
		(void)printf("environment = %s\n", im->vars[i]);
	if (ctl_import_getvar(im, "PATH") == NULL)
		(void)printf("environment = PATH=/usr/bin:/bin\n");
	if (ctl_import_getvar(im, "SHELL") == NULL)
		(void)printf("environment = SHELL=/bin/sh\n");
	cmd = ctl_import_command(im, p, &cond);
	if (cond != NULL)
		ctl_import_value("only_if", cond);
	ctl_import_value("command", cmd);
	free(cond);
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
	(void)printf("# From %s:\n\n", im->file);
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

/*
 * A job id prefix from a file name: its base name, in [A-Za-z0-9_.-],
 * then -2, -3... if an earlier file of the run had it (ids prefix-n of
 * different prefixes never meet: n has no "-").
 */
static char *
ctl_import_prefix(struct ctl_import *im, const char *file)
{
	const char	*base = strrchr(file, '/');
	char		*p, *out, *try;
	size_t		 i;
	int		 k;

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
	for (k = 1;; k++) {
		try = k == 1 ? xstrdup(out) : xasprintf("%s-%d", out, k);
		for (i = 0; i < im->nprefixes; i++) {
			if (strcmp(im->prefixes[i], try) == 0)
				break;
		}
		if (i == im->nprefixes)
			break;
		free(try);
	}
	free(out);
	im->prefixes = xreallocarray(im->prefixes, im->nprefixes + 1,
	    sizeof *im->prefixes);
	im->prefixes[im->nprefixes++] = try;
	return try;
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
	size_t			 j;
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
	(void)fputs(ctl_import_header, stdout);
	for (i = optind; i < argc; i++) {
		im.file = argv[i];
		/* --prefix: one numbering for the run; else one per file. */
		im.prefix = prefix != NULL ? prefix :
		    ctl_import_prefix(&im, argv[i]);
		im.system = system || strcmp(argv[i], "/etc/crontab") == 0 ||
		    strncmp(argv[i], "/etc/cron.d/", 12) == 0;
		if (prefix == NULL)
			im.n = 0;
		if (ctl_import_file(&im) == -1)
			rc = CTL_EXIT_FAIL;
	}
	for (j = 0; j < im.nprefixes; j++)
		free(im.prefixes[j]);
	free(im.prefixes);
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

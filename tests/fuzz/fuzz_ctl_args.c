/*
 * fuzz_ctl_args.c -- libFuzzer target: tickctl's command lines.
 *
 * The input is a command line split at NUL bytes
 * ("next\0--cron\0@hourly\0-n\0003"; a final NUL ends the last word, so
 * "a\0\0b" has an empty word between a and b); "tickctl" is put before
 * it.  It runs the real tickctl main() (src/tickctl.c, included below
 * with main renamed): the global options, the dispatch, and each
 * command's own getopt_long parsing and checks, then as much of the
 * command as runs without side effects.  In each command the parsing is
 * interleaved with the work, so the effects are cut off where they
 * start, with the linker's --wrap (the Makefile's FUZZ_WRAP_fuzz_ctl_args):
 *
 *   ctl_ctx_init   the context comes pre-loaded: a fixed "now", the
 *                  configuration loaded once from a directory made per
 *                  process (jobs of every schedule kind, an invalid job,
 *                  a file inih rejects, an ignored name), or for one
 *                  input in eight an invalid configuration; the store
 *                  already tried and unreadable; the daemon's lock
 *                  already looked at (running or not).  So no store is
 *                  opened and no lock file or /proc/locks read.
 *   ctl_ctx_free   gives the shared configuration back instead of
 *                  freeing it.
 *   ctl_request    never opens the control socket: the request line is
 *                  formatted and checked (one line, a known verb), and
 *                  the daemon's answer is made up from the input's hash:
 *                  unreachable, "OK ...", or "ERR ..." with extra lines.
 *   ctl_wait_run   returns a made-up exit status instead of polling the
 *                  store.
 *   fopen          /proc/stat and /proc/PID/stat (the boot time, a
 *                  process's start) are copies read at the start, so that
 *                  a command reads the same twice; any other file
 *                  (import-crontab's FILE operands) is one of a few
 *                  crontabs held in memory (the checkout's
 *                  tests/data/crontab ones and hostile ones), chosen by
 *                  the name's hash, or missing; a file opened for writing
 *                  is an invariant broken.  Outside tickctl_main() fopen
 *                  is the real one (replay.c reads its inputs with it).
 *
 * stdout and stderr are swapped for streams that count, hash and keep the
 * start of what the command prints (glibc lets the stdio pointers be
 * assigned; sanitizer reports and libFuzzer's own output go to file
 * descriptor 2 directly and still show).  A stream refuses what goes
 * past 256 KiB (ENOSPC), like a full disk or "| head": "next -n 1000000"
 * stops there, and the commands' write errors are tested too.  FUZZ_CTL_SHOW=1 in the
 * environment prints what each command line printed, and its exit status.
 *
 * Invariants: the exit status is 0, 1 or 2 (or the --wait exit status
 * made up); a usage error (2) writes a message on stderr and, unless an
 * argument holds a newline (they are quoted verbatim) or it is the usage
 * text, exactly one line and nothing on stdout; every stderr line starts
 * with "tickctl: " (unless made-up daemon lines were printed); with
 * --json, every line on stdout is one JSON object in UTF-8; requests
 * to the daemon are one line starting with a known verb; running the
 * same command line again gives the same exit status, output and
 * requests (getopt's state is reset between commands as tickctl.c does,
 * and no static state leaks from one command to the next).
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "ctl.h"
#include "fuzz.h"
#include "xmalloc.h"

#ifndef TICKD_VERSION
#define TICKD_VERSION	"fuzz"
#endif

/* The real main, renamed; its static command table comes with it. */
int	tickctl_main(int, char **);
#define main	tickctl_main
#include "tickctl.c"
#undef main

#define FUZZ_ARGS_MAX	64		/* words used; the rest are dropped */
#define FUZZ_OUT_KEEP	(64 * 1024)	/* bytes of output kept */
#define FUZZ_OUT_MAX	(256 * 1024)	/* bytes a stream takes */
#define FUZZ_NOW_MS	INT64_C(1805006400000)	/* 2027-03-14T06:40:00Z */

/* Linker --wrap: the real functions, and ours. */
void	__real_ctl_ctx_init(struct ctl_ctx *, const char *, int);
void	__real_ctl_ctx_free(struct ctl_ctx *);
FILE	*__real_fopen(const char *, const char *);
void	__wrap_ctl_ctx_init(struct ctl_ctx *, const char *, int);
void	__wrap_ctl_ctx_free(struct ctl_ctx *);
int	__wrap_ctl_request(struct ctl_ctx *, struct ctl_reply *, const char *,
	    ...) __attribute__((format(printf, 3, 4)));
int	__wrap_ctl_wait_run(struct ctl_ctx *, const char *);
FILE	*__wrap_fopen(const char *, const char *);

/* What a command printed on one stream. */
struct fuzz_out {
	char		 keep[FUZZ_OUT_KEEP];	/* the first bytes */
	size_t		 len;			/* all bytes */
	size_t		 nlines;
	uint64_t	 hash;
	FILE		*f;
};

/* What one run of a command line did. */
struct fuzz_run {
	int		 rc;
	size_t		 out_len, err_len;
	uint64_t	 out_hash, err_hash, req_hash;
	size_t		 nreq;
};

static char		 fuzz_dir[256];
static char		 fuzz_conf_path[512];
static struct conf	*fuzz_conf;		/* loaded once */
static struct conf_causes fuzz_causes;		/* its causes */
static char		 fuzz_bad_cause[] =
	"tickd.conf:3: lease: \"1s\" is out of range 5s-1d";
static char		*fuzz_bad_causes[] = { fuzz_bad_cause };
static struct fuzz_out	 fuzz_stdout, fuzz_stderr;

/* Steered by the input's hash, set before each command. */
static uint64_t		 fuzz_bits;
static int		 fuzz_in_cmd;		/* inside tickctl_main */
static int		 fuzz_raw_stderr;	/* made-up daemon lines */
static int		 fuzz_wait_rc;		/* made up, -2: not asked */
static uint64_t		 fuzz_req_hash;
static size_t		 fuzz_nreq;

/* /proc/stat and /proc/self/stat as they were at the start. */
static char		*fuzz_proc_stat_text, *fuzz_proc_self_text;
static size_t		 fuzz_proc_stat_len, fuzz_proc_self_len;

/* Crontabs served for import-crontab; [0] and [1] are read from disk. */
static char		*fuzz_crontabs[8];
static size_t		 fuzz_crontab_len[8];
static size_t		 fuzz_ncrontabs;
static const char *const fuzz_builtin_crontabs[] = {
	/* Variables, quoting, CRON_TZ that is no zone, % and \%, macros. */
	"SHELL=/bin/bash\nMAILTO=\"\"\nA = 'b c'\nCRON_TZ=Mars/Olympus\n"
	"@yearly echo %a%%b\\%c\n@every 5m x\n@reboot\n0 0 * *\n"
	"*/5 * * * * printf '%s\\n' \"$A\" # trailing\n"
	"CRON_TZ=America/New_York\n30 2 * * * a\r\n7 7 7 7 7 \\\n"
	"0 0 31 2 * never\n60 * * * * bad\n1,2-5/2 1 L * * last\n"
	"\t  \t\n    # indented comment\n* * * * * no newline at the end",
	/* System crontab: a user column, and missing ones. */
	"# /etc/cron.d/x\nPATH=/usr/bin\n17 * * * * root cd / && run-parts "
	"/etc/cron.hourly\n@daily nobody true\n* * * * *\n"
	"* * * * * root\n0 4 * * 0 no_such_user_x do it % with stdin\n",
	/* More variables than the converter keeps. */
	"V0=0\nV1=1\nV2=2\nV3=3\nV4=4\nV5=5\nV6=6\nV7=7\nV8=8\nV9=9\n"
	"V10=a\nV11=a\nV12=a\nV13=a\nV14=a\nV15=a\nV16=a\nV17=a\nV18=a\n"
	"V19=a\nV20=a\nV21=a\nV22=a\nV23=a\nV24=a\nV25=a\nV26=a\nV27=a\n"
	"V28=a\nV29=a\nV30=a\nV31=a\nV32=a\nV33=a\nV34=a\nV35=a\nV36=a\n"
	"V37=a\nV38=a\nV39=a\nV40=a\nV41=a\nV42=a\nV43=a\nV44=a\nV45=a\n"
	"V46=a\nV47=a\nV48=a\nV49=a\nV50=a\nV51=a\nV52=a\nV53=a\nV54=a\n"
	"V55=a\nV56=a\nV57=a\nV58=a\nV59=a\nV60=a\nV61=a\nV62=a\nV63=a\n"
	"V64=a\nV65=a\nV66=a\n* * * * * env\n",
	/* An empty file. */
	"",
};

/*
 * Remember what a stream is given; refuse what goes past FUZZ_OUT_MAX,
 * as a full disk or a closed pipe would.
 */
static ssize_t
fuzz_out_write(void *cookie, const char *p, size_t n)
{
	struct fuzz_out	*o = cookie;
	size_t		 i;

	if (o->len + n > FUZZ_OUT_MAX) {
		errno = ENOSPC;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (o->len < sizeof o->keep)
			o->keep[o->len] = p[i];
		o->len++;
		o->nlines += p[i] == '\n';
		o->hash = (o->hash ^ (unsigned char)p[i]) *
		    UINT64_C(0x100000001b3);
	}
	return (ssize_t)n;
}

/* A new, empty stream (a stream that failed stays failed). */
static void
fuzz_out_open(struct fuzz_out *o)
{
	static const cookie_io_functions_t fns = { NULL, fuzz_out_write,
	    NULL, NULL };

	o->len = 0;
	o->nlines = 0;
	o->hash = UINT64_C(0xcbf29ce484222325);
	if ((o->f = fopencookie(o, "w", fns)) == NULL)
		abort();
}

/* Close a stream; what is still buffered is written (or refused). */
static void
fuzz_out_close(struct fuzz_out *o)
{
	(void)fclose(o->f);
	o->f = NULL;
}

/* Write a whole file with mode 0644 (conf.c is strict as root). */
static void
fuzz_write(const char *dir, const char *name, const char *text)
{
	struct timespec	ts[2];
	char		path[600];
	size_t		len = strlen(text);
	int		fd;

	(void)snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1 || fchmod(fd, 0644) == -1 ||
	    write(fd, text, len) != (ssize_t)len) {
		(void)fprintf(stderr, "fuzz_ctl_args: %s: %s\n", path,
		    strerror(errno));
		exit(2);
	}
	/* Written a second ago: settled, as conf.c wants a file it reads. */
	(void)clock_gettime(CLOCK_REALTIME, &ts[1]);
	ts[1].tv_sec -= 1;
	ts[0].tv_nsec = UTIME_OMIT;
	(void)futimens(fd, ts);
	(void)close(fd);
}

/* Read a file whole with the real fopen; NULL if it cannot be. */
static char *
fuzz_slurp(const char *path, size_t *len)
{
	FILE	*f = __real_fopen(path, "re");
	char	*buf;

	if (f == NULL)
		return NULL;
	buf = xmalloc(65536);
	*len = fread(buf, 1, 65535, f);
	buf[*len] = '\0';
	(void)fclose(f);
	return buf;
}

static const char *const fuzz_job_files[][2] = {
	{ "berlin.job",
	  "[nightly]\n"
	  "description = archive\tthings \x1b[1m\n"
	  "schedule = 30 2 * * *\n"
	  "timezone = Europe/Berlin\n"
	  "dst_gap = shift\n"
	  "dst_fold = first\n"
	  "environment = DEST=/var/backups\n"
	  "    LANG=C\n"
	  "command = tar -czf \"$DEST/etc.tgz\" etc\n"
	  "    ; echo done\n"
	  "retries = 3\n"
	  "retry_on_exit = 1,2,75\n"
	  "timeout = 2h\n"
	  "on_failure = logger failed\n"
	  "expect_success_within = 26h\n"
	  "\n"
	  "[fold]\n"
	  "schedule = 30 1 * * *\n"
	  "timezone = America/New_York\n"
	  "dst_fold = both\n"
	  "overlap = queue\n"
	  "command = true\n" },
	{ "kinds.job",
	  "[every5]\n"
	  "schedule = every 5m\n"
	  "random_delay = 30s\n"
	  "command = date\n"
	  "[after]\n"
	  "schedule = after 10m\n"
	  "command = sleep 1\n"
	  "[boot]\n"
	  "schedule = @reboot\n"
	  "command = echo up\n"
	  "[off]\n"
	  "schedule = @daily\n"
	  "enabled = no\n"
	  "command = echo off\n"
	  "[lordhowe]\n"
	  "schedule = 0 2 L * *\n"
	  "timezone = Australia/Lord_Howe\n"
	  "dst_gap = skip\n"
	  "misfire = catch_up\n"
	  "command = true\n"
	  "[broken]\n"
	  "schedule = 61 * * * *\n"
	  "command = true\n" },
	{ "syntax.job",
	  "[lost]\n"
	  "schedule = every 1m\n"
	  "command = true\n"
	  "this line is neither a section nor a key\n" },
	{ "README", "not a job file\n" },
};

/* The fixture configuration and crontabs, once per process. */
static void
fuzz_setup(void)
{
	const char	*tmp = getenv("TMPDIR");
	const char	*tzif = getenv("FUZZ_TZIF_DIR");
	char		 p[600], *buf;
	size_t		 i, len;

	if (fuzz_conf != NULL)
		return;
	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	if (tzif == NULL || *tzif == '\0')
		tzif = FUZZ_TZIF_DIR;
	(void)snprintf(p, sizeof p, "%s/fat", tzif);
	if (setenv("TZDIR", p, 1) == -1 || unsetenv("TICKD_CONFIG") == -1)
		abort();
	(void)snprintf(fuzz_dir, sizeof fuzz_dir,
	    "%s/tickd-fuzz-ctl.XXXXXX", tmp);
	if (mkdtemp(fuzz_dir) == NULL) {
		(void)fprintf(stderr, "fuzz_ctl_args: mkdtemp: %s\n",
		    strerror(errno));
		exit(2);
	}
	(void)snprintf(p, sizeof p, "%s/jobs.d", fuzz_dir);
	if (mkdir(p, 0755) == -1)
		abort();
	fuzz_write(fuzz_dir, "tickd.conf", "[daemon]\n"
	    "timezone = Europe/Berlin\n"
	    "jobs_dir = jobs.d\n"
	    "state = state/tickd.db\n"
	    "control = ctl.sock\n");
	for (i = 0; i < sizeof fuzz_job_files / sizeof fuzz_job_files[0]; i++)
		fuzz_write(p, fuzz_job_files[i][0], fuzz_job_files[i][1]);
	(void)snprintf(fuzz_conf_path, sizeof fuzz_conf_path,
	    "%s/tickd.conf", fuzz_dir);
	if ((fuzz_conf = conf_load(fuzz_conf_path, &fuzz_causes)) == NULL ||
	    fuzz_conf->njobs != 7 || fuzz_conf->nbad_ids != 2) {
		(void)fprintf(stderr, "fuzz_ctl_args: the fixture "
		    "configuration did not load as expected: %s\n",
		    fuzz_causes.n > 0 ? fuzz_causes.v[0] : "no cause");
		exit(2);
	}
	/* The files are read: remove them now, nothing is left behind. */
	for (i = 0; i < sizeof fuzz_job_files / sizeof fuzz_job_files[0];
	    i++) {
		(void)snprintf(p, sizeof p, "%s/jobs.d/%s", fuzz_dir,
		    fuzz_job_files[i][0]);
		(void)unlink(p);
	}
	(void)snprintf(p, sizeof p, "%s/jobs.d", fuzz_dir);
	(void)rmdir(p);
	(void)unlink(fuzz_conf_path);
	(void)rmdir(fuzz_dir);

	if ((fuzz_proc_stat_text = fuzz_slurp("/proc/stat",
	    &fuzz_proc_stat_len)) == NULL || (fuzz_proc_self_text =
	    fuzz_slurp("/proc/self/stat", &fuzz_proc_self_len)) == NULL) {
		(void)fprintf(stderr, "fuzz_ctl_args: cannot read /proc\n");
		exit(2);
	}
	(void)snprintf(p, sizeof p, "%s/../crontab/user-crontab", tzif);
	if ((buf = fuzz_slurp(p, &len)) != NULL) {
		fuzz_crontabs[fuzz_ncrontabs] = buf;
		fuzz_crontab_len[fuzz_ncrontabs++] = len;
	}
	(void)snprintf(p, sizeof p, "%s/../crontab/debian-etc-crontab", tzif);
	if ((buf = fuzz_slurp(p, &len)) != NULL) {
		fuzz_crontabs[fuzz_ncrontabs] = buf;
		fuzz_crontab_len[fuzz_ncrontabs++] = len;
	}
	for (i = 0; i < sizeof fuzz_builtin_crontabs /
	    sizeof fuzz_builtin_crontabs[0]; i++) {
		fuzz_crontabs[fuzz_ncrontabs] = xstrdup(
		    fuzz_builtin_crontabs[i]);
		fuzz_crontab_len[fuzz_ncrontabs++] =
		    strlen(fuzz_builtin_crontabs[i]);
	}
}

/* The context of the global options, with everything already "loaded". */
static int	fuzz_json;	/* the run asked for --json */

void
__wrap_ctl_ctx_init(struct ctl_ctx *ctx, const char *config, int json)
{
	__real_ctl_ctx_init(ctx, config, json);
	fuzz_json = json;
	ctx->now_ms = FUZZ_NOW_MS;
	ctx->conf_tried = 1;
	ctx->store_tried = 1;
	ctx->daemon_tried = 1;
	if ((fuzz_bits & 7) == 0) {
		/* tickd.conf is invalid. */
		ctx->causes.v = fuzz_bad_causes;
		ctx->causes.n = 1;
		ctx->store_cause = xasprintf("config %s is invalid",
		    ctx->config);
		return;
	}
	ctx->conf = fuzz_conf;
	ctx->causes = fuzz_causes;
	ctx->store_cause = xasprintf("state %s: unable to open database file",
	    fuzz_conf->state);
	(void)snprintf(ctx->daemon.lock, sizeof ctx->daemon.lock, "%s",
	    fuzz_conf->state);
	if (fuzz_bits & 8) {
		ctx->daemon.running = 1;
		ctx->daemon.pid = (long)getpid();
	}
}

/* Give the shared configuration back, free the rest. */
void
__wrap_ctl_ctx_free(struct ctl_ctx *ctx)
{
	ctx->conf = NULL;
	memset(&ctx->causes, 0, sizeof ctx->causes);
	__real_ctl_ctx_free(ctx);
}

/* A request to the daemon: checked, answered without a socket. */
int
__wrap_ctl_request(struct ctl_ctx *ctx, struct ctl_reply *r,
    const char *fmt, ...)
{
	static const char *const verbs[] = {
		"run ", "replay ", "pause ", "resume ", "reload", "define "
	};
	const struct conf	*c;
	va_list			 ap;
	char			*req, *at;
	size_t			 i, n, len;

	memset(r, 0, sizeof *r);
	if ((c = ctl_ctx_conf(ctx)) == NULL)
		return -1;
	va_start(ap, fmt);
	req = xvasprintf(fmt, ap);
	va_end(ap);
	len = strlen(req);
	fuzz_nreq++;
	for (i = 0; i < len; i++)
		fuzz_req_hash = (fuzz_req_hash ^ (unsigned char)req[i]) *
		    UINT64_C(0x100000001b3);
	FUZZ_CHECK(strchr(req, '\n') == NULL, "a request of several lines: "
	    "\"%s\"", req);
	for (i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
		if (strncmp(req, verbs[i], strlen(verbs[i])) == 0)
			break;
	}
	FUZZ_CHECK(i < sizeof verbs / sizeof verbs[0], "unknown request "
	    "\"%s\"", req);
	switch ((fuzz_bits >> 4) % 3) {
	case 0:
		ctl_error("tickd is not running, or not reachable: %s: %s",
		    c->control, strerror(ECONNREFUSED));
		free(req);
		return -1;
	case 1:
		/*
		 * OK: a job's text and where for define (made up of the id
		 * asked: any id tickctl sends must make a section), a run id
		 * for run and replay, else some text.
		 */
		if (strncmp(req, "define ", 7) == 0 && !(fuzz_bits & 64)) {
			r->lines = xcalloc(4, sizeof *r->lines);
			r->lines[0] = xasprintf("[%s]", req + 7);
			r->lines[1] = xstrdup("schedule=@daily");
			r->lines[2] = xstrdup("command=true");
			r->nlines = 3;
			r->final = xstrdup("OK /fuzz/jobs.d/x.job:1");
			free(req);
			return 0;
		}
		if ((at = strchr(req, ' ')) == NULL)
			r->final = xstrdup("OK reloaded");
		else {
			at++;
			n = strcspn(at, " ");
			r->final = xasprintf("OK %.*s@2027-03-14T06:40:00Z/"
			    "manual", (int)n, at);
		}
		break;
	default:
		r->final = xstrdup("ERR refused (fuzz)");
		break;
	}
	if (fuzz_bits & 64) {
		/* Reply lines go out as they are, without "tickctl: ". */
		r->lines = xcalloc(2, sizeof *r->lines);
		r->lines[0] = xstrdup("job x: a problem");
		r->lines[1] = xstrdup("");
		r->nlines = 2;
		fuzz_raw_stderr = 1;
	}
	free(req);
	return strncmp(r->final, "OK", 2) == 0 ? 0 : 1;
}

/* Waiting for a run: a made-up end. */
int
__wrap_ctl_wait_run(struct ctl_ctx *ctx, const char *run_id)
{
	static const int rcs[] = { -1, 0, 1, 3, 137 };

	(void)ctx;
	FUZZ_CHECK(run_id != NULL && run_id[0] != '\0', "waiting for no run");
	fuzz_wait_rc = rcs[(fuzz_bits >> 8) % 5];
	if (fuzz_wait_rc == -1)
		ctl_error("state: unable to open database file");
	return fuzz_wait_rc;
}

/* The copy of /proc/stat or /proc/PID/stat for path, else NULL. */
static FILE *
fuzz_proc_stat(const char *path)
{
	size_t n;

	if (strcmp(path, "/proc/stat") == 0)
		return fmemopen(fuzz_proc_stat_text, fuzz_proc_stat_len, "r");
	if (strncmp(path, "/proc/", 6) != 0)
		return NULL;
	n = strspn(path + 6, "0123456789");
	if (n == 0 || strcmp(path + 6 + n, "/stat") != 0)
		return NULL;
	return fmemopen(fuzz_proc_self_text, fuzz_proc_self_len, "r");
}

/* fopen inside a command: see the top. */
FILE *
__wrap_fopen(const char *path, const char *mode)
{
	FILE		*f;
	uint64_t	 h;
	size_t		 i;

	if (!fuzz_in_cmd)
		return __real_fopen(path, mode);
	FUZZ_CHECK(mode[0] == 'r' && strchr(mode, '+') == NULL, "fopen(\"%s\", "
	    "\"%s\"): a command writes a file", path, mode);
	if ((f = fuzz_proc_stat(path)) != NULL)
		return f;
	h = fuzz_hash((const uint8_t *)path, strlen(path));
	i = (size_t)(h % (fuzz_ncrontabs + 1));
	if (i == fuzz_ncrontabs) {
		errno = ENOENT;
		return NULL;
	}
	if (fuzz_crontab_len[i] == 0)
		return __real_fopen("/dev/null", mode);
	return fmemopen(fuzz_crontabs[i], fuzz_crontab_len[i], "r");
}

/* Run the command line once; its words are copied, getopt permutes. */
static void
fuzz_run(const char *words, size_t size, int argc, struct fuzz_run *out)
{
	char	*buf = malloc(size + 1), *argv[FUZZ_ARGS_MAX + 2], *p;
	FILE	*saved_out = stdout, *saved_err = stderr;
	int	 i;

	if (buf == NULL)
		abort();
	if (size > 0)
		memcpy(buf, words, size);
	buf[size] = '\0';
	argv[0] = (char *)"tickctl";
	for (i = 1, p = buf; i <= argc; i++, p += strlen(p) + 1)
		argv[i] = p;
	argv[argc + 1] = NULL;

	fuzz_out_open(&fuzz_stdout);
	fuzz_out_open(&fuzz_stderr);
	fuzz_raw_stderr = 0;
	/* check FILE prints tickd -n's lines ("file:line: key: ..."). */
	for (i = 1; i <= argc; i++)
		if (strcmp(argv[i], "check") == 0)
			fuzz_raw_stderr = 1;
	fuzz_wait_rc = -2;
	fuzz_req_hash = UINT64_C(0xcbf29ce484222325);
	fuzz_nreq = 0;
	(void)fflush(stdout);
	(void)fflush(stderr);
	stdout = fuzz_stdout.f;
	stderr = fuzz_stderr.f;
	optind = 0;		/* glibc: full reinitialisation */
	fuzz_in_cmd = 1;
	out->rc = tickctl_main(argc + 1, argv);
	fuzz_in_cmd = 0;
	stdout = saved_out;
	stderr = saved_err;
	fuzz_out_close(&fuzz_stdout);
	fuzz_out_close(&fuzz_stderr);
	free(buf);

	out->out_len = fuzz_stdout.len;
	out->out_hash = fuzz_stdout.hash;
	out->err_len = fuzz_stderr.len;
	out->err_hash = fuzz_stderr.hash;
	out->req_hash = fuzz_req_hash;
	out->nreq = fuzz_nreq;
}

/* Print what a run wrote (for the message of a broken invariant). */
static const char *
fuzz_kept(const struct fuzz_out *o)
{
	static char	buf[512];
	size_t		n = o->len < sizeof buf - 1 ? o->len : sizeof buf - 1;

	memcpy(buf, o->keep, n);
	buf[n] = '\0';
	return buf;
}

/* Whether what o holds starts with prefix. */
static int
fuzz_starts(const struct fuzz_out *o, const char *prefix)
{
	size_t n = strlen(prefix);

	return o->len >= n && strncmp(o->keep, prefix, n) == 0;
}

/* Print what the first run printed (FUZZ_CTL_SHOW). */
static void
fuzz_show(const struct fuzz_run *r)
{
	size_t	nout = r->out_len < FUZZ_OUT_KEEP ? r->out_len : FUZZ_OUT_KEEP;
	size_t	nerr = r->err_len < FUZZ_OUT_KEEP ? r->err_len : FUZZ_OUT_KEEP;

	(void)fprintf(stderr, "exit %d\n--- stdout (%zu bytes)\n%.*s--- "
	    "stderr (%zu bytes)\n%.*s---\n", r->rc, r->out_len, (int)nout,
	    fuzz_stdout.keep, r->err_len, (int)nerr, fuzz_stderr.keep);
}

/* The length of the well-formed UTF-8 character at s (n bytes), or 0. */
static size_t
fuzz_utf8(const unsigned char *s, size_t n)
{
	unsigned char	lo = 0x80, hi = 0xbf;
	size_t		need, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;	/* no overlong form */
		hi = s[0] == 0xed ? 0x9f : 0xbf;	/* no surrogate */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;	/* up to U+10FFFF */
	} else
		return 0;
	for (i = 1; i < need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
	}
	return need;
}

/* Skip JSON white space. */
static const char *
fuzz_json_ws(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' ||
	    *s == '\r'))
		s++;
	return s;
}

/*
 * One JSON value at s (RFC 8259), strings in well-formed UTF-8 without a
 * raw DEL (ctl-json.c escapes it); the end of the value, or NULL.
 */
static const char *
fuzz_json_value(const char *s, const char *end, int depth)
{
	static const char *const lits[] = { "true", "false", "null" };
	const unsigned char	*u;
	size_t			 i, k;

	if (depth > 64 || (s = fuzz_json_ws(s, end)) >= end)
		return NULL;
	if (*s == '"') {
		for (s++; s < end && *s != '"'; s += k) {
			u = (const unsigned char *)s;
			k = 1;
			if (*u < 0x20 || *u == 0x7f)
				return NULL;
			if (*u >= 0x80 && (k = fuzz_utf8(u,
			    (size_t)(end - s))) == 0)
				return NULL;
			if (*s != '\\')
				continue;
			if (s + 1 >= end)
				return NULL;
			if (s[1] == 'u') {
				if (end - s < 6)
					return NULL;
				for (k = 2; k < 6; k++) {
					if (!isxdigit((unsigned char)s[k]))
						return NULL;
				}
			} else if (strchr("\"\\/bfnrt", s[1]) == NULL ||
			    s[1] == '\0')
				return NULL;
			else
				k = 2;
		}
		return s < end ? s + 1 : NULL;
	}
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';

		s = fuzz_json_ws(s + 1, end);
		if (s < end && *s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				s = fuzz_json_ws(s, end);
				if (s >= end || *s != '"' ||
				    (s = fuzz_json_value(s, end, depth + 1)) ==
				    NULL || (s = fuzz_json_ws(s, end)) >= end ||
				    *s++ != ':')
					return NULL;
			}
			if ((s = fuzz_json_value(s, end, depth + 1)) == NULL ||
			    (s = fuzz_json_ws(s, end)) >= end)
				return NULL;
			if (*s == close)
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	for (i = 0; i < 3; i++) {
		k = strlen(lits[i]);
		if ((size_t)(end - s) >= k && memcmp(s, lits[i], k) == 0)
			return s + k;
	}
	/* A number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
	if (s < end && *s == '-')
		s++;
	if (s < end && *s == '0')
		s++;
	else if (s < end && *s >= '1' && *s <= '9')
		while (s < end && *s >= '0' && *s <= '9')
			s++;
	else
		return NULL;
	if (s < end && *s == '.') {
		if (++s >= end || *s < '0' || *s > '9')
			return NULL;
		while (s < end && *s >= '0' && *s <= '9')
			s++;
	}
	if (s < end && (*s == 'e' || *s == 'E')) {
		if (++s < end && (*s == '+' || *s == '-'))
			s++;
		if (s >= end || *s < '0' || *s > '9')
			return NULL;
		while (s < end && *s >= '0' && *s <= '9')
			s++;
	}
	return s;
}

/*
 * With --json, when stdout starts with '{', every whole line kept is one
 * JSON object.  (--json itself, not only the '{': a human line may start
 * with what the user typed, a run id "{uZ@..." say.)
 */
static void
fuzz_check_json(void)
{
	const char	*s = fuzz_stdout.keep, *nl, *end, *v;
	size_t		 kept = fuzz_stdout.len < FUZZ_OUT_KEEP ?
			    fuzz_stdout.len : FUZZ_OUT_KEEP;

	if (!fuzz_json || kept == 0 || s[0] != '{')
		return;
	end = s + kept;
	for (; s < end && (nl = memchr(s, '\n', (size_t)(end - s))) != NULL;
	    s = nl + 1) {
		v = *s == '{' ? fuzz_json_value(s, nl, 0) : NULL;
		FUZZ_CHECK(v != NULL && fuzz_json_ws(v, nl) == nl, "not one "
		    "JSON object: \"%.*s\"", (int)(nl - s), s);
	}
}

/*
 * The exit status and the messages of one run (newline: an argument
 * holds a newline, which messages quote verbatim).
 */
static void
fuzz_check_run(const struct fuzz_run *r, int newline)
{
	const char	*e = fuzz_stderr.keep;
	size_t		 i, kept;
	int		 usage = fuzz_starts(&fuzz_stderr, "usage: ");

	FUZZ_CHECK((r->rc >= 0 && r->rc <= 2) || (fuzz_wait_rc >= 0 &&
	    r->rc == fuzz_wait_rc), "exit status %d (stderr \"%s\")", r->rc,
	    fuzz_kept(&fuzz_stderr));
	if (r->rc == CTL_EXIT_USAGE) {
		FUZZ_CHECK(fuzz_stderr.nlines >= 1, "usage error without a "
		    "message (stdout \"%s\")", fuzz_kept(&fuzz_stdout));
		if (!newline && !usage) {
			FUZZ_CHECK(fuzz_stderr.nlines == 1, "usage error in "
			    "%zu lines: \"%s\"", fuzz_stderr.nlines,
			    fuzz_kept(&fuzz_stderr));
			FUZZ_CHECK(fuzz_stdout.len == 0, "usage error (\"%s\") "
			    "after output on stdout: \"%s\"",
			    fuzz_kept(&fuzz_stderr), fuzz_kept(&fuzz_stdout));
		}
	}
	if (fuzz_raw_stderr || newline || usage)
		return;
	kept = fuzz_stderr.len < FUZZ_OUT_KEEP ? fuzz_stderr.len :
	    FUZZ_OUT_KEEP;
	for (i = 0; i + 9 <= kept; i++) {
		if (i > 0 && e[i - 1] != '\n')
			continue;
		FUZZ_CHECK(strncmp(e + i, "tickctl: ", 9) == 0, "a stderr line "
		    "without \"tickctl: \": \"%s\"", fuzz_kept(&fuzz_stderr));
	}
}

/*
 * Whether the words may ask "logs" to follow (-f, --follow, a cluster or
 * an abbreviation): it waits for new output until SIGINT, with no end.
 */
static int
fuzz_follows(const char *words, size_t len)
{
	const char	*w;
	size_t		 n;
	int		 logs = 0, f = 0;

	/* The last word may end without a NUL: bounded by len. */
	for (w = words; w < words + len; w += n + 1) {
		n = strnlen(w, (size_t)(words + len - w));
		logs |= n == 4 && memcmp(w, "logs", 4) == 0;
		f |= n > 0 && w[0] == '-' && memchr(w, 'f', n) != NULL;
	}
	return logs && f;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_run	 a, b;
	const char	*words = (const char *)data;
	size_t		 len, i, start;
	int		 argc = 0, newline = 0;

	fuzz_setup();
	fuzz_json = 0;
	fuzz_bits = fuzz_hash(data, size);
	/* The words: up to FUZZ_ARGS_MAX, a final NUL ends the last one. */
	for (i = 0, start = 0, len = 0; i < size && argc < FUZZ_ARGS_MAX; i++) {
		if (data[i] == '\0') {
			argc++;
			len = i;
			start = i + 1;
		}
	}
	if (start < size && argc < FUZZ_ARGS_MAX) {
		argc++;
		len = size;
	}
	newline = memchr(data, '\n', len) != NULL ||
	    memchr(data, '\r', len) != NULL;
	if (fuzz_follows(words, len))
		return 0;

	fuzz_run(words, len, argc, &a);
	if (getenv("FUZZ_CTL_SHOW") != NULL)
		fuzz_show(&a);
	fuzz_check_run(&a, newline);
	fuzz_check_json();
	fuzz_run(words, len, argc, &b);
	FUZZ_CHECK(a.rc == b.rc && a.out_len == b.out_len && a.out_hash ==
	    b.out_hash && a.err_len == b.err_len && a.err_hash == b.err_hash &&
	    a.nreq == b.nreq && a.req_hash == b.req_hash, "run again: exit "
	    "%d, %zu+%zu bytes, %zu requests, then exit %d, %zu+%zu bytes, %zu "
	    "requests (stderr now \"%s\")", a.rc, a.out_len, a.err_len, a.nreq,
	    b.rc, b.out_len, b.err_len, b.nreq, fuzz_kept(&fuzz_stderr));
	return 0;
}

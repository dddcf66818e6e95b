/*
 * log.c -- journald and stderr back ends for the daemon's messages.
 *
 * With the journal, every message is one entry with MESSAGE, PRIORITY and,
 * for job events, MESSAGE_ID and the TICKD_* fields of struct log_job, so
 * "journalctl -u tickd TICKD_JOB=backup" finds a job's events and output.
 * Without it (tests, containers, --log-target=stderr) the same message is
 * one line "tickd: <level>: <message>" on stderr; job output lines are
 * prefixed with the run id.  Untrusted text (job output, commands) is
 * escaped before it is logged: control characters become \xNN.
 *
 * Invariants: nothing here allocates on the output path (messages are
 * formatted into bounded stack buffers and truncated), so logging works
 * when memory is short and a flood of output cannot grow the daemon.
 *
 * DIAGNOSTICS: fatal and fatalx log at LOG_CRIT and exit 1; a message the
 * journal refuses is written to stderr instead.
 */
#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log.h"
#include "rfc3339.h"

#define LOG_LINE_MAX	4096	/* longest message, after escaping */
#define LOG_JOURNAL_SOCKET "/run/systemd/journal/socket"

int		log_level = LOG_INFO;
static int	log_journal;

static void	log_stderr_line(int, const char *, const char *);

/* MESSAGE_ID of each event kind: generated once, never to be changed. */
static const char *const log_event_ids[LOG_EV_COUNT] = {
	[LOG_EV_NONE] = NULL,
	[LOG_EV_STARTED] = "d0a41cc524da4c0cba7c2d5508a4767b",
	[LOG_EV_SUCCEEDED] = "f53af89ddf834a538837d6d5e3bb8583",
	[LOG_EV_FAILED] = "f6a3b5577db84843bfa5a822f0ac204f",
	[LOG_EV_SPAWN_FAILED] = "20ab64092b6b439399d3836cc4defa10",
	[LOG_EV_TIMED_OUT] = "4acc9660af67477eab4f454e32c481e6",
	[LOG_EV_SKIPPED] = "bb14e094ed7443f3b21708ed8e95dd97",
	[LOG_EV_MISSED] = "934b843a3ea54845813b7b9c5d15785e",
	[LOG_EV_TERMINATED] = "9fdf360b8fc4474c8b4075ba4c8579bb",
	[LOG_EV_LEASE_LOST] = "2f0df768824a4c0c86888c12748e3c35",
	[LOG_EV_CLOCK_JUMP] = "50904e0574f34511a1279ab90f2be8cd",
	[LOG_EV_OUTPUT] = "1ab384d15da54df483e30d08d8d68349",
	[LOG_EV_DAEMON_STARTED] = "d809a04bcc584a23bcc7fcaac0926140",
	[LOG_EV_DAEMON_STOPPING] = "c99124770537447091cd173e651685fe",
	[LOG_EV_RELOADED] = "607edeb53e884d758ed883622ee215e5",
	[LOG_EV_CONFIG_ERROR] = "a9b39baa0a864928b4b26a39142d4413",
	[LOG_EV_STORE_BUSY] = "10ce50a427ec41e2851c016da1be6606",
	[LOG_EV_BLOCKED] = "e3b25bd60188490884a62eef3e06661e",
	[LOG_EV_RETRY] = "8f22242abee94a5e90b9520ad1c8eb84",
	[LOG_EV_DEAD] = "e667fdf3a80847059f4a5ed175cc30b3",
	[LOG_EV_OVERDUE] = "5aa13516e62d4e759dc0d2e8da024fae",
	[LOG_EV_THROTTLED] = "f09155ae4d0f4a75826ce6ad5c23c0b6",
	[LOG_EV_ADOPTED] = "f524ed29fa574de68d85fc9d70bab8cf",
	[LOG_EV_RECOVERED] = "c1ac3e34bbb446889b636680a8f9895a",
	[LOG_EV_HOOK] = "6dc5a05e271c4c9abec5061a786322b7",
	[LOG_EV_REPLACED] = "628f30db59fb433abd413aa964eb0a1c",
};

static const struct {
	const char	*name;
	int		 prio;
} log_levels[] = {
	{ "error", LOG_ERR },
	{ "warning", LOG_WARNING },
	{ "notice", LOG_NOTICE },
	{ "info", LOG_INFO },
	{ "debug", LOG_DEBUG },
};

/*
 * Whether stderr is connected to the journal: systemd sets JOURNAL_STREAM
 * to the device and inode of the stream it gave us.
 */
static int
log_stderr_is_journal(void)
{
	const char		*js = getenv("JOURNAL_STREAM");
	struct stat		 st;
	unsigned long long	 dev, ino;

	if (js == NULL || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(STDERR_FILENO, &st) == -1)
		return 0;
	return (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino;
}

/* Choose the back end and the most verbose priority to log. */
void
log_init(enum log_target target, int level)
{
	log_level = level;
	switch (target) {
	case LOG_TARGET_JOURNAL:
		/* libsystemd reports success even with no journald. */
		log_journal = access(LOG_JOURNAL_SOCKET, W_OK) == 0;
		if (!log_journal)
			log_stderr_line(LOG_WARNING, "", "no journal at "
			    LOG_JOURNAL_SOCKET ": logging to stderr");
		break;
	case LOG_TARGET_STDERR:
		log_journal = 0;
		break;
	case LOG_TARGET_AUTO:
	default:
		log_journal = log_stderr_is_journal();
		break;
	}
}

/* Parse "journal", "stderr" or "auto"; 0 or -1. */
int
log_target_parse(const char *s, enum log_target *out)
{
	if (strcmp(s, "journal") == 0)
		*out = LOG_TARGET_JOURNAL;
	else if (strcmp(s, "stderr") == 0)
		*out = LOG_TARGET_STDERR;
	else if (strcmp(s, "auto") == 0)
		*out = LOG_TARGET_AUTO;
	else
		return -1;
	return 0;
}

/* Parse a level name ("error" ... "debug"); 0 or -1. */
int
log_level_parse(const char *s, int *out)
{
	size_t i;

	for (i = 0; i < sizeof log_levels / sizeof log_levels[0]; i++) {
		if (strcasecmp(s, log_levels[i].name) == 0) {
			*out = log_levels[i].prio;
			return 0;
		}
	}
	return -1;
}

/* The name of a priority, as printed on stderr. */
const char *
log_level_name(int prio)
{
	size_t i;

	if (prio < LOG_ERR)
		return "critical";
	for (i = 0; i < sizeof log_levels / sizeof log_levels[0]; i++) {
		if (log_levels[i].prio == prio)
			return log_levels[i].name;
	}
	return "debug";
}

/* Whether messages go to the journal. */
int
log_to_journal(void)
{
	return log_journal;
}

/* The MESSAGE_ID of an event kind, or NULL. */
const char *
log_event_id(enum log_event ev)
{
	if ((int)ev < 0 || ev >= LOG_EV_COUNT)
		return NULL;
	return log_event_ids[ev];
}

/*
 * Copy src (len bytes) to dst (size bytes, NUL-terminated) with control
 * characters, DEL and backslash escaped; stops early rather than split an
 * escape.  Returns how many bytes of src were consumed.
 */
size_t
log_escape(char *dst, size_t size, const char *src, size_t len)
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 i, o = 0;
	unsigned char		 c;

	if (size == 0)
		return 0;
	for (i = 0; i < len; i++) {
		c = (unsigned char)src[i];
		if (c == '\\' || c < 0x20 || c == 0x7f) {
			if (c == '\t' && o + 1 < size) {
				dst[o++] = '\t';
				continue;
			}
			if (o + 4 >= size)
				break;
			dst[o++] = '\\';
			if (c == '\\') {
				dst[o++] = '\\';
				continue;
			}
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
			continue;
		}
		if (o + 1 >= size)
			break;
		dst[o++] = (char)c;
	}
	dst[o] = '\0';
	return i;
}

/* Write a formatted line to stderr in one write(2). */
static void
log_stderr_line(int prio, const char *prefix, const char *msg)
{
	char	line[LOG_LINE_MAX + 128];
	int	n;

	n = snprintf(line, sizeof line, "tickd: %s: %s%s\n",
	    log_level_name(prio), prefix, msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line) {
		n = (int)sizeof line - 1;
		line[n - 1] = '\n';
	}
	(void)write(STDERR_FILENO, line, (size_t)n);
}

/* Log a plain message. */
void
log_msg(int prio, const char *fmt, ...)
{
	char	msg[LOG_LINE_MAX];
	va_list	ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (log_journal && sd_journal_send("MESSAGE=%s", msg,
	    "PRIORITY=%d", prio, NULL) >= 0)
		return;
	log_stderr_line(prio, "", msg);
}

/* Send a job event with its fields to the journal; -1 if refused. */
static int
log_job_journal(int prio, enum log_event ev, const struct log_job *j,
    const char *msg)
{
	struct iovec	 iov[21];
	char		 m[LOG_LINE_MAX + 16], f[21][256];
	char		 when[RFC3339_BUFSZ];
	int		 n = 0, len;

#define LOG_FIELD(...) do {						\
	int len_ = snprintf(f[n], sizeof f[n], __VA_ARGS__);		\
	if (len_ < 0)							\
		return -1;						\
	iov[n].iov_base = f[n];						\
	iov[n].iov_len = (size_t)len_ < sizeof f[n] ? (size_t)len_ :	\
	    sizeof f[n] - 1;						\
	n++;								\
} while (0)
	if ((len = snprintf(m, sizeof m, "MESSAGE=%s", msg)) < 0)
		return -1;
	iov[n].iov_base = m;
	iov[n++].iov_len = (size_t)len < sizeof m ? (size_t)len : sizeof m - 1;
	LOG_FIELD("PRIORITY=%d", prio);
	if (log_event_id(ev) != NULL)
		LOG_FIELD("MESSAGE_ID=%s", log_event_id(ev));
	if (j->job != NULL)
		LOG_FIELD("TICKD_JOB=%s", j->job);
	/* Job output is tagged with the job: journalctl -t JOB. */
	if (ev == LOG_EV_OUTPUT && j->job != NULL)
		LOG_FIELD("SYSLOG_IDENTIFIER=%s", j->job);
	if (j->run_id != NULL)
		LOG_FIELD("TICKD_RUN_ID=%s", j->run_id);
	if (j->scheduled_at != -1) {
		rfc3339_format_utc(j->scheduled_at, when, sizeof when);
		LOG_FIELD("TICKD_SCHEDULED_AT=%s", when);
	}
	if (j->attempt != -1)
		LOG_FIELD("TICKD_ATTEMPT=%d", j->attempt);
	if (j->shard != -1)
		LOG_FIELD("TICKD_SHARD_INDEX=%d", j->shard);
	if (j->trigger != NULL)
		LOG_FIELD("TICKD_TRIGGER=%s", j->trigger);
	if (j->pid != -1)
		LOG_FIELD("TICKD_PID=%ld", (long)j->pid);
	if (j->exit_status != -1)
		LOG_FIELD("TICKD_EXIT_STATUS=%d", j->exit_status);
	if (j->signal != -1)
		LOG_FIELD("TICKD_SIGNAL=%d", j->signal);
	if (j->lateness_ms != -1)
		LOG_FIELD("TICKD_LATENESS_MS=%" PRId64, j->lateness_ms);
	if (j->duration_ms != -1)
		LOG_FIELD("TICKD_DURATION_MS=%" PRId64, j->duration_ms);
	if (j->cpu_user_us != -1)
		LOG_FIELD("TICKD_CPU_USER_US=%" PRId64, j->cpu_user_us);
	if (j->cpu_system_us != -1)
		LOG_FIELD("TICKD_CPU_SYSTEM_US=%" PRId64, j->cpu_system_us);
	if (j->mem_peak != -1)
		LOG_FIELD("TICKD_MEMORY_PEAK=%" PRId64, j->mem_peak);
	if (j->cgroup != NULL)
		LOG_FIELD("TICKD_CGROUP=%s", j->cgroup);
#undef LOG_FIELD
	return sd_journal_sendv(iov, n) < 0 ? -1 : 0;
}

/* Log a job event with its structured fields. */
void
log_job(int prio, enum log_event ev, const struct log_job *j,
    const char *fmt, ...)
{
	char	msg[LOG_LINE_MAX];
	va_list	ap;

	if (log_level < prio)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (log_journal && log_job_journal(prio, ev, j, msg) == 0)
		return;
	log_stderr_line(prio, "", msg);
}

/*
 * Log one piece of a job's output (stream 1: stdout at info, 2: stderr at
 * warning), escaped.  The caller splits long lines into pieces.
 */
void
log_output(const struct log_job *j, int stream, const char *text, size_t len)
{
	char	msg[LOG_LINE_MAX], prefix[256];
	int	prio = stream == 2 ? LOG_WARNING : LOG_INFO;
	size_t	n;

	if (log_level < prio)
		return;
	(void)snprintf(prefix, sizeof prefix, "%s: %s: ",
	    j->run_id != NULL ? j->run_id : j->job,
	    stream == 2 ? "stderr" : "stdout");
	/* Escaping may grow the text fourfold: log it in as many pieces. */
	do {
		n = log_escape(msg, sizeof msg, text, len);
		text += n;
		len -= n;
		if (log_journal &&
		    log_job_journal(prio, LOG_EV_OUTPUT, j, msg) == 0)
			continue;
		log_stderr_line(prio, prefix, msg);
	} while (len > 0);
}

/* Log a message with strerror(errno) and exit 1. */
void
fatal(const char *fmt, ...)
{
	char	msg[LOG_LINE_MAX];
	int	saved = errno;
	va_list	ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	log_msg(LOG_CRIT, "fatal: %s: %s", msg, strerror(saved));
	exit(1);
}

/* Log a message and exit 1. */
void
fatalx(const char *fmt, ...)
{
	char	msg[LOG_LINE_MAX];
	va_list	ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	log_msg(LOG_CRIT, "fatal: %s", msg);
	exit(1);
}

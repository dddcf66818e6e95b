/*
 * cgroup.c -- the files of a cgroup v2 directory: limits written, usage
 * read, and the small texts the kernel gives (controller lists, "key
 * value" files, /proc/self/cgroup).
 *
 * Every function takes the directory as an open descriptor and names
 * files relative to it, so that the same code runs against the kernel's
 * cgroup file system and against a plain directory made by a unit test.
 * A limit keeps systemd's meaning (systemd.resource-control(5)):
 * memory_max is memory.max, memory_high memory.high, cpu_weight
 * cpu.weight, cpu_quota cpu.max over a 100 ms period (CPUQuota=50% is
 * "50000 100000"), tasks_max pids.max, io_weight io.weight's default.  An
 * attempt's cgroup with the memory controller also gets memory.oom.group
 * = 1: an out-of-memory kill takes the whole attempt, not one process of
 * it, as a failed unit would be.
 *
 * DIAGNOSTICS: cgroup_limits_write returns -1 with a cause naming the
 * file; readers return -1 (or leave -1 in a field) when a file is
 * missing or unreadable.  Nothing is logged here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "xmalloc.h"

static const struct {
	unsigned	 bit;
	const char	*name;
} cgroup_names[] = {
	{ CGROUP_CPU, "cpu" },
	{ CGROUP_IO, "io" },
	{ CGROUP_MEMORY, "memory" },
	{ CGROUP_PIDS, "pids" },
};

#define CGROUP_NNAMES	(sizeof cgroup_names / sizeof cgroup_names[0])

/* Whether a limit limits anything (set, and not "infinity"). */
static int
cgroup_limit_set(int64_t v)
{
	return v != CGROUP_UNSET && v != CGROUP_INFINITY;
}

/* The controllers a set of limits needs: "infinity" needs none. */
unsigned
cgroup_limits_need(const struct cgroup_limits *l)
{
	unsigned need = 0;

	if (cgroup_limit_set(l->memory_max) || cgroup_limit_set(l->memory_high))
		need |= CGROUP_MEMORY;
	if (cgroup_limit_set(l->cpu_weight) || cgroup_limit_set(l->cpu_quota))
		need |= CGROUP_CPU;
	if (cgroup_limit_set(l->tasks_max))
		need |= CGROUP_PIDS;
	if (cgroup_limit_set(l->io_weight))
		need |= CGROUP_IO;
	return need;
}

/* The kernel's name of one controller bit ("?" if not one). */
const char *
cgroup_controller_name(unsigned bit)
{
	size_t i;

	for (i = 0; i < CGROUP_NNAMES; i++) {
		if (cgroup_names[i].bit == bit)
			return cgroup_names[i].name;
	}
	return "?";
}

/*
 * The controllers named in a cgroup.controllers or cgroup.subtree_control
 * text ("cpuset cpu io memory pids"), those tickd uses only.
 */
unsigned
cgroup_controllers_parse(const char *text)
{
	const char	*p = text, *e;
	unsigned	 mask = 0;
	size_t		 i, n;

	for (;;) {
		p += strspn(p, " \t\n");
		if (*p == '\0')
			break;
		e = p + strcspn(p, " \t\n");
		n = (size_t)(e - p);
		for (i = 0; i < CGROUP_NNAMES; i++) {
			if (strlen(cgroup_names[i].name) == n &&
			    memcmp(cgroup_names[i].name, p, n) == 0)
				mask |= cgroup_names[i].bit;
		}
		p = e;
	}
	return mask;
}

/* A set of controllers as words ("cpu memory"), or "none". */
void
cgroup_controllers_format(unsigned mask, char *buf, size_t len)
{
	size_t	i, off = 0;
	int	n;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < CGROUP_NNAMES; i++) {
		if (!(mask & cgroup_names[i].bit))
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off > 0 ? " " : "",
		    cgroup_names[i].name);
		if (n < 0 || (size_t)n >= len - off)
			return;
		off += (size_t)n;
	}
	if (off == 0)
		(void)snprintf(buf, len, "none");
}

/*
 * Read the file name of directory dirfd into buf (NUL-terminated, at
 * most len - 1 bytes).  The length, or -1 with errno.
 */
int
cgroup_read_file(int dirfd, const char *name, char *buf, size_t len)
{
	ssize_t	n;
	size_t	got = 0;
	int	fd, saved;

	if ((fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			saved = errno;
			(void)close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	(void)close(fd);
	buf[got] = '\0';
	return (int)got;
}

/*
 * Write text to the file name of directory dirfd, in one write (the
 * kernel takes a cgroup file's value from one write).  0, or -1 with
 * errno.
 */
int
cgroup_write_file(int dirfd, const char *name, const char *text)
{
	size_t	len = strlen(text);
	ssize_t	n;
	int	fd, saved;

	if ((fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	do {
		n = write(fd, text, len);
	} while (n == -1 && errno == EINTR);
	saved = errno;
	(void)close(fd);
	if (n != (ssize_t)len) {
		errno = n == -1 ? saved : EIO;
		return -1;
	}
	return 0;
}

/* Format a byte count or CGROUP_INFINITY as a cgroup file wants it. */
static void
cgroup_fmt_max(int64_t v, char *buf, size_t len)
{
	if (v == CGROUP_INFINITY)
		(void)snprintf(buf, len, "max");
	else
		(void)snprintf(buf, len, "%" PRId64, v);
}

/*
 * Write a job's limits into the attempt cgroup dirfd, whose controllers
 * are `enabled`; with the memory controller, memory.oom.group too.
 * Returns 0, or -1 with *cause naming the file (a limit whose controller
 * is not enabled is an error: the caller checked the job against them).
 */
int
cgroup_limits_write(int dirfd, const struct cgroup_limits *l,
    unsigned enabled, char **cause)
{
	struct {
		const char	*file;
		char		 text[64];
	}		 w[7];
	size_t		 n = 0, i;
	unsigned	 missing;

	if ((missing = cgroup_limits_need(l) & ~enabled) != 0) {
		*cause = xasprintf("the %s controller is not enabled",
		    cgroup_controller_name(missing & -missing));
		return -1;
	}
	memset(w, 0, sizeof w);
	if (enabled & CGROUP_MEMORY) {
		w[n].file = "memory.oom.group";
		(void)snprintf(w[n++].text, sizeof w[0].text, "1");
	}
	/* "infinity" is what a new cgroup has: written only where it can. */
	if (l->memory_high != CGROUP_UNSET && (enabled & CGROUP_MEMORY)) {
		w[n].file = "memory.high";
		cgroup_fmt_max(l->memory_high, w[n++].text, sizeof w[0].text);
	}
	if (l->memory_max != CGROUP_UNSET && (enabled & CGROUP_MEMORY)) {
		w[n].file = "memory.max";
		cgroup_fmt_max(l->memory_max, w[n++].text, sizeof w[0].text);
	}
	if (l->cpu_weight != CGROUP_UNSET) {
		w[n].file = "cpu.weight";
		(void)snprintf(w[n++].text, sizeof w[0].text, "%" PRId64,
		    l->cpu_weight);
	}
	if (l->cpu_quota != CGROUP_UNSET) {
		/* Per myriad of one CPU over the period: 100% = a period. */
		w[n].file = "cpu.max";
		(void)snprintf(w[n++].text, sizeof w[0].text, "%" PRId64 " %d",
		    l->cpu_quota * CGROUP_CPU_PERIOD_US / 10000 > 1000 ?
		    l->cpu_quota * CGROUP_CPU_PERIOD_US / 10000 : 1000,
		    CGROUP_CPU_PERIOD_US);
	}
	if (l->tasks_max != CGROUP_UNSET && (enabled & CGROUP_PIDS)) {
		w[n].file = "pids.max";
		cgroup_fmt_max(l->tasks_max, w[n++].text, sizeof w[0].text);
	}
	if (l->io_weight != CGROUP_UNSET) {
		w[n].file = "io.weight";
		(void)snprintf(w[n++].text, sizeof w[0].text, "default %" PRId64,
		    l->io_weight);
	}
	for (i = 0; i < n; i++) {
		if (cgroup_write_file(dirfd, w[i].file, w[i].text) == -1) {
			/* An old kernel without memory.oom.group: no matter. */
			if (errno == ENOENT && strcmp(w[i].file,
			    "memory.oom.group") == 0)
				continue;
			*cause = xasprintf("%s: writing \"%s\": %s", w[i].file,
			    w[i].text, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * The value of key in a "key value" text (cpu.stat, memory.events,
 * cgroup.events), or -1 if it is not there.
 */
int64_t
cgroup_keyed(const char *text, const char *key)
{
	const char	*p = text;
	size_t		 n = strlen(key);
	long long	 v;

	while (*p != '\0') {
		if (strncmp(p, key, n) == 0 && p[n] == ' ' &&
		    sscanf(p + n + 1, "%lld", &v) == 1)
			return (int64_t)v;
		if ((p = strchr(p, '\n')) == NULL)
			break;
		p++;
	}
	return -1;
}

/*
 * What the attempt cgroup dirfd used: CPU from cpu.stat (there with or
 * without the cpu controller), the memory peak and out-of-memory kills
 * with the memory controller (memory.peak needs Linux 5.19).  Fields it
 * cannot read are -1.
 */
void
cgroup_usage_read(int dirfd, struct cgroup_usage *u)
{
	char	buf[1024];
	int64_t	g;

	u->user_us = u->system_us = u->mem_peak = u->oom_kills = -1;
	if (cgroup_read_file(dirfd, "cpu.stat", buf, sizeof buf) > 0) {
		u->user_us = cgroup_keyed(buf, "user_usec");
		u->system_us = cgroup_keyed(buf, "system_usec");
	}
	if (cgroup_read_file(dirfd, "memory.peak", buf, sizeof buf) > 0)
		u->mem_peak = strtoll(buf, NULL, 10);
	if (cgroup_read_file(dirfd, "memory.events", buf, sizeof buf) > 0) {
		u->oom_kills = cgroup_keyed(buf, "oom_kill");
		if ((g = cgroup_keyed(buf, "oom_group_kill")) > 0 &&
		    u->oom_kills == 0)
			u->oom_kills = g;
	}
}

/*
 * The cgroup v2 path in a /proc/PID/cgroup text (the "0::" line), as
 * allocated text for the caller to free; NULL if there is none.
 */
char *
cgroup_self_parse(const char *text)
{
	const char	*p = text, *e;

	while (*p != '\0') {
		e = p + strcspn(p, "\n");
		if (strncmp(p, "0::", 3) == 0 && e - p > 3)
			return xstrndup(p + 3, (size_t)(e - p - 3));
		p = *e == '\n' ? e + 1 : e;
	}
	return NULL;
}

/*
 * test_cgroup.c -- unit tests of cgroup.c: the values a job's limits
 * write into an attempt's cgroup, file by file (against a plain directory
 * standing in for the kernel's cgroup file system: these machines have no
 * resource controllers to write to; tests/systemd/ checks them under a
 * real systemd), what is read back of an attempt's usage, and the small
 * texts the kernel gives.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"

#include "t.h"

#define NONE	CGROUP_UNSET
#define INF	CGROUP_INFINITY

static char tmpdir[] = "/tmp/tickd-test-cgroup.XXXXXX";

/* The files an attempt's cgroup has with every controller. */
static const char *const files[] = {
	"memory.max", "memory.high", "memory.oom.group", "cpu.weight",
	"cpu.max", "pids.max", "io.weight", NULL
};

/* A fresh stand-in for a cgroup, its files present and empty; its fd. */
static int
fake_cgroup(const char *name)
{
	char	path[PATH_MAX];
	size_t	i;
	int	dfd, fd;

	(void)snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	if (mkdir(path, 0755) == -1 || (dfd = open(path, O_RDONLY |
	    O_DIRECTORY)) == -1)
		return -1;
	for (i = 0; files[i] != NULL; i++) {
		if ((fd = openat(dfd, files[i], O_WRONLY | O_CREAT, 0644)) == -1)
			return -1;
		(void)close(fd);
	}
	return dfd;
}

/* What the limits wrote: "file=value" for each file written, in order. */
static void
written(int dfd, char *buf, size_t len)
{
	char	v[128];
	size_t	i;
	int	n;

	buf[0] = '\0';
	for (i = 0; files[i] != NULL; i++) {
		if ((n = cgroup_read_file(dfd, files[i], v, sizeof v)) <= 0)
			continue;
		(void)snprintf(buf + strlen(buf), len - strlen(buf), "%s%s=%s",
		    buf[0] != '\0' ? " " : "", files[i], v);
	}
}

static const struct limits_case {
	const char		*name;
	struct cgroup_limits	 l;
	unsigned		 enabled;
	int			 rc;
	const char		*want;	/* the files, or the cause */
} limits_cases[] = {
	{ "nothing set, every controller",
	    { NONE, NONE, NONE, NONE, NONE, NONE }, CGROUP_ALL, 0,
	    "memory.oom.group=1" },
	{ "nothing set, no controller",
	    { NONE, NONE, NONE, NONE, NONE, NONE }, 0, 0, "" },
	{ "every key",
	    { 2147483648LL, 1610612736LL, 20, 5000, 64, 50 }, CGROUP_ALL, 0,
	    "memory.max=2147483648 memory.high=1610612736 memory.oom.group=1 "
	    "cpu.weight=20 cpu.max=50000 100000 pids.max=64 "
	    "io.weight=default 50" },
	{ "infinity is max",
	    { INF, INF, NONE, NONE, INF, NONE }, CGROUP_MEMORY | CGROUP_PIDS,
	    0, "memory.max=max memory.high=max memory.oom.group=1 "
	    "pids.max=max" },
	{ "infinity needs no controller",
	    { INF, NONE, NONE, NONE, INF, NONE }, 0, 0, "" },
	{ "two CPUs and a half",
	    { NONE, NONE, NONE, 25050, NONE, NONE }, CGROUP_CPU, 0,
	    "cpu.max=250500 100000" },
	{ "the smallest quota the kernel takes: 1 ms a period",
	    { NONE, NONE, NONE, 1, NONE, NONE }, CGROUP_CPU, 0,
	    "cpu.max=1000 100000" },
	{ "a limit without its controller",
	    { 1024, NONE, NONE, NONE, NONE, NONE }, CGROUP_CPU | CGROUP_PIDS,
	    -1, "the memory controller is not enabled" },
	{ "the first missing controller is named",
	    { NONE, NONE, 5, NONE, NONE, 7 }, CGROUP_MEMORY, -1,
	    "the cpu controller is not enabled" },
};

static void
test_limits(void)
{
	char	 name[32], got[256], *cause;
	size_t	 i;
	int	 dfd;

	for (i = 0; i < sizeof limits_cases / sizeof limits_cases[0]; i++) {
		const struct limits_case *c = &limits_cases[i];

		T_RUN(c->name);
		(void)snprintf(name, sizeof name, "a%zu", i);
		if (!T_TRUE((dfd = fake_cgroup(name)) != -1))
			continue;
		cause = NULL;
		T_EQ_INT(cgroup_limits_write(dfd, &c->l, c->enabled, &cause),
		    c->rc);
		if (c->rc == 0) {
			written(dfd, got, sizeof got);
			T_EQ_STR(got, c->want);
		} else
			T_EQ_STR(cause, c->want);
		free(cause);
		(void)close(dfd);
	}

	/* A file the kernel refuses: the cause names it and the value. */
	T_RUN("a refused write");
	if ((dfd = fake_cgroup("refused")) != -1) {
		struct cgroup_limits l = CGROUP_LIMITS_NONE;

		(void)unlinkat(dfd, "pids.max", 0);
		(void)mkdirat(dfd, "pids.max", 0755);	/* cannot be written */
		l.tasks_max = 9;
		cause = NULL;
		T_EQ_INT(cgroup_limits_write(dfd, &l, CGROUP_PIDS, &cause), -1);
		T_EQ_STR(cause, "pids.max: writing \"9\": Is a directory");
		free(cause);
		(void)close(dfd);
	}
	/* memory.oom.group missing (Linux before 4.19): no matter. */
	T_RUN("no memory.oom.group");
	if ((dfd = fake_cgroup("old")) != -1) {
		struct cgroup_limits l = CGROUP_LIMITS_NONE;

		(void)unlinkat(dfd, "memory.oom.group", 0);
		l.memory_max = 4096;
		cause = NULL;
		T_EQ_INT(cgroup_limits_write(dfd, &l, CGROUP_MEMORY, &cause), 0);
		written(dfd, got, sizeof got);
		T_EQ_STR(got, "memory.max=4096");
		free(cause);
		(void)close(dfd);
	}
}

/* Which limits need which controllers. */
static void
test_need(void)
{
	struct cgroup_limits l = CGROUP_LIMITS_NONE;
	char buf[64];

	T_RUN("need");
	T_EQ_INT(cgroup_limits_need(&l), 0);
	l.memory_high = 1;
	l.io_weight = 10;
	T_EQ_INT(cgroup_limits_need(&l), CGROUP_MEMORY | CGROUP_IO);
	l.memory_high = INF;
	T_EQ_INT(cgroup_limits_need(&l), CGROUP_IO);
	l.cpu_quota = 100;
	l.tasks_max = INF;
	T_EQ_INT(cgroup_limits_need(&l), CGROUP_IO | CGROUP_CPU);

	T_RUN("controllers");
	T_EQ_INT(cgroup_controllers_parse("cpuset cpu io memory hugetlb pids "
	    "rdma misc\n"), CGROUP_ALL);
	T_EQ_INT(cgroup_controllers_parse("memory"), CGROUP_MEMORY);
	T_EQ_INT(cgroup_controllers_parse("  cpu\tpids\n"),
	    CGROUP_CPU | CGROUP_PIDS);
	T_EQ_INT(cgroup_controllers_parse("cpuacct memoryx pid"), 0);
	T_EQ_INT(cgroup_controllers_parse(""), 0);
	cgroup_controllers_format(CGROUP_ALL, buf, sizeof buf);
	T_EQ_STR(buf, "cpu io memory pids");
	cgroup_controllers_format(CGROUP_PIDS | CGROUP_CPU, buf, sizeof buf);
	T_EQ_STR(buf, "cpu pids");
	cgroup_controllers_format(0, buf, sizeof buf);
	T_EQ_STR(buf, "none");
}

/* Write text into name of directory dfd (a stand-in's file). */
static void
put(int dfd, const char *name, const char *text)
{
	int fd;

	if ((fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644)) ==
	    -1)
		return;
	(void)write(fd, text, strlen(text));
	(void)close(fd);
}

/* What an attempt used: read back from its cgroup's files. */
static void
test_usage(void)
{
	struct cgroup_usage	u;
	int			dfd;

	T_RUN("usage, every controller");
	if ((dfd = fake_cgroup("usage")) == -1)
		return;
	put(dfd, "cpu.stat", "usage_usec 1750\nuser_usec 1500\nsystem_usec "
	    "250\nnr_periods 0\n");
	put(dfd, "memory.peak", "41943040\n");
	put(dfd, "memory.events", "low 0\nhigh 3\nmax 7\noom 1\noom_kill 1\n"
	    "oom_group_kill 1\n");
	cgroup_usage_read(dfd, &u);
	T_EQ_INT(u.user_us, 1500);
	T_EQ_INT(u.system_us, 250);
	T_EQ_INT(u.mem_peak, 41943040);
	T_EQ_INT(u.oom_kills, 1);

	T_RUN("usage, no memory controller");
	(void)unlinkat(dfd, "memory.peak", 0);
	(void)unlinkat(dfd, "memory.events", 0);
	cgroup_usage_read(dfd, &u);
	T_EQ_INT(u.user_us, 1500);
	T_EQ_INT(u.mem_peak, -1);
	T_EQ_INT(u.oom_kills, -1);

	T_RUN("usage, a group kill counted alone");
	put(dfd, "memory.events", "oom 1\noom_kill 0\noom_group_kill 2\n");
	cgroup_usage_read(dfd, &u);
	T_EQ_INT(u.oom_kills, 2);

	T_RUN("usage, nothing readable");
	(void)unlinkat(dfd, "cpu.stat", 0);
	(void)unlinkat(dfd, "memory.events", 0);
	cgroup_usage_read(dfd, &u);
	T_EQ_INT(u.user_us, -1);
	T_EQ_INT(u.system_us, -1);
	(void)close(dfd);
}

/* "key value" texts, and /proc/PID/cgroup. */
static const struct {
	const char	*text;
	const char	*key;
	int64_t		 want;
} keyed_cases[] = {
	{ "populated 1\nfrozen 0\n", "populated", 1 },
	{ "populated 0\nfrozen 0\n", "frozen", 0 },
	{ "oom 1\noom_kill 3\n", "oom", 1 },		/* not oom_kill */
	{ "oom_kill 3\n", "oom", -1 },
	{ "usage_usec 9", "usage_usec", 9 },		/* no newline */
	{ "usage_usec\n", "usage_usec", -1 },		/* no value */
	{ "", "populated", -1 },
};

static const struct {
	const char	*text;
	const char	*want;		/* NULL: none */
} self_cases[] = {
	{ "0::/system.slice/tickd.service/supervisor\n",
	    "/system.slice/tickd.service/supervisor" },
	{ "12:pids:/x\n1:name=systemd:/y\n0::/\n", "/" },
	{ "9:name=systemd:/\n4:memory:/a\n", NULL },	/* v1 only */
	{ "0::/no/newline", "/no/newline" },
	{ "0::\n", NULL },
};

static void
test_texts(void)
{
	char	*got;
	size_t	 i;

	for (i = 0; i < sizeof keyed_cases / sizeof keyed_cases[0]; i++) {
		T_RUN(keyed_cases[i].text);
		T_EQ_INT(cgroup_keyed(keyed_cases[i].text, keyed_cases[i].key),
		    keyed_cases[i].want);
	}
	for (i = 0; i < sizeof self_cases / sizeof self_cases[0]; i++) {
		T_RUN(self_cases[i].text);
		got = cgroup_self_parse(self_cases[i].text);
		if (self_cases[i].want == NULL)
			T_TRUE(got == NULL);
		else
			T_EQ_STR(got, self_cases[i].want);
		free(got);
	}
}

int
main(void)
{
	char cmd[PATH_MAX + 16];

	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_limits();
	test_need();
	test_usage();
	test_texts();
	(void)snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	(void)system(cmd);
	return t_done();
}

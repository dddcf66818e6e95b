/*
 * cgroup.h -- cgroup v2 files: a job's resource limits written into an
 * attempt's cgroup, what the attempt used read back, and the small parsers
 * of the files tickd reads (/proc/self/mountinfo, /proc/self/cgroup,
 * cgroup.controllers, cpu.stat, memory.events).
 */
#ifndef TICKD_CGROUP_H
#define TICKD_CGROUP_H

#include <stddef.h>
#include <stdint.h>

/* Controllers tickd uses, as bits. */
#define CGROUP_CPU		0x1
#define CGROUP_IO		0x2
#define CGROUP_MEMORY		0x4
#define CGROUP_PIDS		0x8
#define CGROUP_ALL		0xf

#define CGROUP_UNSET		(-1)		/* a limit not set */
#define CGROUP_INFINITY		INT64_MAX	/* "infinity": no limit */
#define CGROUP_CPU_PERIOD_US	100000		/* cpu.max period, systemd's */
#define CGROUP_NAME_MAX		255		/* a cgroup directory's name */

/*
 * A job's resource limits, with systemd's meaning (MemoryMax=,
 * MemoryHigh=, CPUWeight=, CPUQuota=, TasksMax=, IOWeight=).  Plain data;
 * CGROUP_UNSET: the key is not set.
 */
struct cgroup_limits {
	int64_t	memory_max;	/* bytes, or CGROUP_INFINITY */
	int64_t	memory_high;	/* bytes, or CGROUP_INFINITY */
	int64_t	cpu_weight;	/* 1-10000 */
	int64_t	cpu_quota;	/* per myriad of one CPU: 10000 = 100% */
	int64_t	tasks_max;	/* processes and threads, or CGROUP_INFINITY */
	int64_t	io_weight;	/* 1-10000 */
};

#define CGROUP_LIMITS_NONE	{ CGROUP_UNSET, CGROUP_UNSET, CGROUP_UNSET, \
				  CGROUP_UNSET, CGROUP_UNSET, CGROUP_UNSET }

/* What an attempt's processes used; -1 where unknown. */
struct cgroup_usage {
	int64_t	user_us;	/* CPU time in user mode */
	int64_t	system_us;	/* CPU time in the kernel */
	int64_t	mem_peak;	/* bytes */
	int64_t	oom_kills;	/* processes the OOM killer took */
};

unsigned	 cgroup_limits_need(const struct cgroup_limits *);
const char	*cgroup_controller_name(unsigned);
unsigned	 cgroup_controllers_parse(const char *);
void		 cgroup_controllers_format(unsigned, char *, size_t);
int		 cgroup_limits_write(int, const struct cgroup_limits *,
		     unsigned, char **);
void		 cgroup_usage_read(int, struct cgroup_usage *);
int64_t		 cgroup_keyed(const char *, const char *);
char		*cgroup_self_parse(const char *);
int		 cgroup_read_file(int, const char *, char *, size_t);
int		 cgroup_write_file(int, const char *, const char *);

#endif /* TICKD_CGROUP_H */

/*
 * mounts.h -- which file systems are local, from /proc/self/mountinfo.
 */
#ifndef TICKD_MOUNTS_H
#define TICKD_MOUNTS_H

#include <stddef.h>

/* A mount table: mount points (unescaped) and whether each is local. */
struct mounts {
	char		**point;
	unsigned char	 *local;
	size_t		  n, cap;
};

void	mounts_parse(struct mounts *, const char *);
int	mounts_local(const struct mounts *, const char *);
void	mounts_free(struct mounts *);
int	mounts_cgroup2(const char *, char **, char **);

#endif /* TICKD_MOUNTS_H */

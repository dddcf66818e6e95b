/*
 * test_mounts.c -- unit tests of mounts.c: reading mountinfo text and
 * deciding, by the longest covering mount point, whether a path is on a
 * local file system.  A table of paths against one realistic table (a
 * Debian host with NFS homes, autofs, FUSE, a bind over a network
 * mount, escaped names), plus malformed input.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mounts.h"

#include "t.h"

static const char mountinfo[] =
    "22 27 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "23 27 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
    "27 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro\n"
    "28 27 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=8G\n"
    "40 27 0:30 / /run rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,mode=755\n"
    "50 27 259:3 / /var rw,relatime shared:30 - xfs /dev/nvme0n1p3 rw\n"
    "60 27 0:40 / /home rw,relatime shared:31 - nfs4 srv:/export/home rw,vers=4.2\n"
    "61 27 0:41 / /net rw,relatime shared:32 - autofs /etc/auto.net rw,fd=7\n"
    "62 27 0:42 / /mnt/s3 rw,nosuid,nodev shared:33 - fuse.s3fs s3fs rw\n"
    /* A local file system mounted inside the NFS tree. */
    "63 60 259:4 / /home/local rw,relatime shared:34 - ext4 /dev/sdb1 rw\n"
    /* Escaped: "/srv/my data" (space) on btrfs, "/srv/a\\b" on cifs. */
    "64 27 0:43 / /srv/my\\040data rw shared:35 - btrfs /dev/sdc rw\n"
    "65 27 0:44 / /srv/a\\134b rw shared:36 - cifs //w/s rw\n"
    /* /opt: first local, then hidden by an NFS mount on top. */
    "66 27 259:5 / /opt rw shared:37 - ext4 /dev/sdd1 rw\n"
    "67 66 0:45 / /opt rw shared:38 - nfs srv:/opt rw\n"
    /* /data: first NFS, then a local one on top (the later wins). */
    "68 27 0:46 / /data rw shared:39 - nfs srv:/data rw\n"
    "69 68 259:6 / /data rw shared:40 - ext4 /dev/sde1 rw\n"
    /* Optional fields between field 6 and the separator. */
    "70 27 0:47 / /scratch rw shared:41 master:3 propagate_from:2 - tmpfs t rw\n"
    "71 27 0:48 / /ceph rw - ceph 10.0.0.1:/ rw\n";

static const struct {
	const char	*path;
	int		 local;
} cases[] = {
	{ "/", 1 },
	{ "/root", 1 },
	{ "/etc/tickd", 1 },
	{ "/var/lib/tickd", 1 },
	{ "/run/tickd", 1 },
	{ "/home", 0 },
	{ "/home/alice", 0 },
	{ "/home/local", 1 },
	{ "/home/local/x", 1 },
	{ "/home/localx", 0 },		/* not under /home/local */
	{ "/homer", 1 },		/* not under /home: on / */
	{ "/net/host", 0 },
	{ "/mnt/s3/bucket", 0 },
	{ "/mnt", 1 },
	{ "/srv/my data/x", 1 },
	{ "/srv/my", 1 },		/* on /, not the escaped mount */
	{ "/srv/a\\b", 0 },
	{ "/opt/app", 0 },		/* the later NFS mount hides ext4 */
	{ "/data/x", 1 },		/* the later ext4 mount hides NFS */
	{ "/scratch/tmp", 1 },
	{ "/ceph", 0 },
	{ "/proc/1", 0 },		/* proc is not a place for jobs */
	{ "/dev/shm", 1 },
};

/* Where the cgroup v2 hierarchy is: mount point and the root it shows. */
static const struct {
	const char	*name;
	const char	*text;
	const char	*point;		/* NULL: none found */
	const char	*root;
} cg2_cases[] = {
	{ "unified",
	    "25 22 0:23 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 "
	    "cgroup2 rw,nsdelegate\n", "/sys/fs/cgroup", "/" },
	{ "hybrid, beside v1 controllers",
	    "30 22 0:27 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
	    "31 30 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
	    "40 30 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
	    "/sys/fs/cgroup/unified", "/" },
	{ "a container's subtree, optional fields",
	    "800 700 0:30 /docker/abc /sys/fs/cgroup ro,nosuid shared:9 "
	    "master:4 - cgroup2 cgroup rw\n", "/sys/fs/cgroup", "/docker/abc" },
	{ "escaped mount point",
	    "1 0 0:1 / /cg\\040v2 rw - cgroup2 none rw\n", "/cg v2", "/" },
	{ "v1 only", "31 30 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup "
	    "rw,cpu\n", NULL, NULL },
	{ "a type that only starts like it",
	    "1 0 0:1 / /x rw - cgroup2x none rw\n", NULL, NULL },
	{ "empty", "", NULL, NULL },
};

static void
test_cgroup2(void)
{
	char	*point, *root;
	size_t	 i;

	for (i = 0; i < sizeof cg2_cases / sizeof cg2_cases[0]; i++) {
		T_RUN(cg2_cases[i].name);
		point = root = NULL;
		if (cg2_cases[i].point == NULL) {
			T_EQ_INT(mounts_cgroup2(cg2_cases[i].text, &point,
			    &root), -1);
			continue;
		}
		if (!T_EQ_INT(mounts_cgroup2(cg2_cases[i].text, &point,
		    &root), 0))
			continue;
		T_EQ_STR(point, cg2_cases[i].point);
		T_EQ_STR(root, cg2_cases[i].root);
		free(point);
		free(root);
	}
}

int
main(void)
{
	struct mounts	m = { 0 };
	size_t		i;

	T_RUN("parse");
	mounts_parse(&m, mountinfo);
	T_EQ_INT(m.n, 18);
	T_EQ_STR(m.point[10], "/srv/my data");
	T_EQ_STR(m.point[11], "/srv/a\\b");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		T_RUN(cases[i].path);
		T_EQ_INT(mounts_local(&m, cases[i].path), cases[i].local);
	}

	T_RUN("parse replaces the table");
	mounts_parse(&m, "1 0 8:1 / / rw - nfs srv:/ rw\n");
	T_EQ_INT(m.n, 1);
	T_EQ_INT(mounts_local(&m, "/root"), 0);

	T_RUN("malformed lines are skipped");
	mounts_parse(&m,
	    "\n"
	    "garbage\n"
	    "1 0 8:1 / / rw\n"				/* no separator */
	    "1 0 8:1 / / rw -\n"			/* no type */
	    "1 0 8:1 / relative rw - ext4 d rw\n"	/* not absolute */
	    "2 0 8:1 / /ok rw - ext4 /dev/x rw");	/* no newline */
	T_EQ_INT(m.n, 1);
	T_EQ_INT(mounts_local(&m, "/ok/x"), 1);
	T_EQ_INT(mounts_local(&m, "/"), 0);		/* nothing covers it */
	T_EQ_INT(mounts_local(&m, "/other"), 0);

	T_RUN("empty");
	mounts_parse(&m, "");
	T_EQ_INT(m.n, 0);
	T_EQ_INT(mounts_local(&m, "/"), 0);
	mounts_free(&m);
	mounts_free(&m);	/* twice is harmless */

	test_cgroup2();
	return t_done();
}

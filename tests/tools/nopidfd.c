/*
 * nopidfd.c -- run a command where pidfd_open(2) fails with ENOSYS, as on
 * kernels before 5.3 or under a container's seccomp profile that does not
 * know it: "nopidfd tickd -c ...".  A seccomp filter, inherited by the
 * command and its children; it sets no_new_privs, as seccomp requires of
 * a process that is not privileged.
 *
 * DIAGNOSTICS: exits 1 with a message if the filter cannot be installed
 * or the command cannot be executed.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif

int
main(int argc, char **argv)
{
	struct sock_filter insns[] = {
		/* Another architecture's calls: let them through. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		(unsigned short)(sizeof insns / sizeof insns[0]), insns
	};

	if (argc < 2) {
		(void)fprintf(stderr, "usage: nopidfd command [arg ...]\n");
		return 1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1) {
		(void)fprintf(stderr, "nopidfd: seccomp: %s\n", strerror(errno));
		return 1;
	}
	(void)execvp(argv[1], argv + 1);
	(void)fprintf(stderr, "nopidfd: %s: %s\n", argv[1], strerror(errno));
	return 1;
}

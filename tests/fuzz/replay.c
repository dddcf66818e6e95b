/*
 * replay.c -- run a fuzz target's inputs without libFuzzer.
 *
 *	fuzz-replay/fuzz_cronexpr FILE|DIR ...
 *
 * Linked with one target (built by the normal compiler against
 * libtickd.a), this feeds every named file, and every regular file under
 * a named directory in name order, to LLVMFuzzerTestOneInput().  A broken
 * invariant aborts; the signal handler first names the input.  Prints
 * "<target>: N inputs replayed" and exits 0, or exits 1 if an argument
 * cannot be read or nothing was replayed.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define REPLAY_FILE_MAX	(4 * 1024 * 1024)

static const char	*replay_current = "";
static long		 replay_count;

static void
replay_signal(int sig)
{
	static const char	 msg[] = "replay: crashed on input ";
	size_t			 len = strlen(replay_current);

	(void)write(STDERR_FILENO, msg, sizeof msg - 1);
	(void)write(STDERR_FILENO, replay_current, len);
	(void)write(STDERR_FILENO, "\n", 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Feed one file; -1 if it cannot be read. */
static int
replay_file(const char *path)
{
	FILE	*f;
	uint8_t	*buf;
	size_t	 len;

	if ((f = fopen(path, "rb")) == NULL) {
		(void)fprintf(stderr, "replay: %s: %s\n", path,
		    strerror(errno));
		return -1;
	}
	if ((buf = malloc(REPLAY_FILE_MAX)) == NULL)
		abort();
	len = fread(buf, 1, REPLAY_FILE_MAX, f);
	if (ferror(f)) {
		(void)fprintf(stderr, "replay: %s: read error\n", path);
		(void)fclose(f);
		free(buf);
		return -1;
	}
	(void)fclose(f);
	replay_current = path;
	(void)LLVMFuzzerTestOneInput(buf, len);
	replay_current = "";
	replay_count++;
	free(buf);
	return 0;
}

static int
replay_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Feed a file, or every regular file under a directory; -1 on error. */
static int
replay_path(const char *path)
{
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	char		**names = NULL, *p;
	size_t		 n = 0, i, len;
	int		 rc = 0;

	if (stat(path, &st) == -1) {
		(void)fprintf(stderr, "replay: %s: %s\n", path,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	if ((d = opendir(path)) == NULL) {
		(void)fprintf(stderr, "replay: %s: %s\n", path,
		    strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		len = strlen(path) + strlen(de->d_name) + 2;
		if ((p = malloc(len)) == NULL ||
		    (names = realloc(names, (n + 1) * sizeof *names)) == NULL)
			abort();
		(void)snprintf(p, len, "%s/%s", path, de->d_name);
		names[n++] = p;
	}
	(void)closedir(d);
	if (n > 0)
		qsort(names, n, sizeof *names, replay_cmp);
	for (i = 0; i < n; i++) {
		if (replay_path(names[i]) == -1)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	const char	*prog = strrchr(argv[0], '/');
	int		 i, rc = 0;

	prog = prog != NULL ? prog + 1 : argv[0];
	if (argc < 2) {
		(void)fprintf(stderr, "usage: %s FILE|DIR ...\n", prog);
		return 2;
	}
	signal(SIGABRT, replay_signal);
	signal(SIGSEGV, replay_signal);
	signal(SIGBUS, replay_signal);
	signal(SIGFPE, replay_signal);
	for (i = 1; i < argc; i++) {
		if (replay_path(argv[i]) == -1)
			rc = 1;
	}
	(void)printf("%s: %ld inputs replayed\n", prog, replay_count);
	return rc != 0 || replay_count == 0;
}

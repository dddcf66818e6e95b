/*
 * shwords.h -- a job's command as the words of a program, when no shell
 * is needed to run it, and the explicit argv form of the exec key.
 */
#ifndef TICKD_SHWORDS_H
#define TICKD_SHWORDS_H

#include <stddef.h>

char	**shwords_split(const char *, size_t);
char	**shwords_exec_split(const char *, size_t, char **);

#endif /* TICKD_SHWORDS_H */

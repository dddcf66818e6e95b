/*
 * envp.h -- environment vectors ("NAME=value" arrays) for child processes.
 */
#ifndef TICKD_ENVP_H
#define TICKD_ENVP_H

#include <stddef.h>

struct envp {
	char	**v;		/* NULL-terminated */
	size_t	  n;
	size_t	  cap;
};

void	 envp_init(struct envp *);
void	 envp_set(struct envp *, const char *, const char *);
void	 envp_put(struct envp *, const char *);
const char *envp_get(const struct envp *, const char *);
int	 envp_valid(const char *);
void	 envp_free(struct envp *);

#endif /* TICKD_ENVP_H */

/*
 * statelock.h -- one daemon per state database, whatever name reaches it.
 */
#ifndef TICKD_STATELOCK_H
#define TICKD_STATELOCK_H

char	*statelock_path(const char *);
int	 statelock_take(const char *, int [2], long *, char **);
int	 statelock_held(const char *, long *);

#endif /* TICKD_STATELOCK_H */

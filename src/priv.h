/*
 * priv.h -- the credentials a job runs with: resolved in the parent,
 * switched to in the child.
 */
#ifndef TICKD_PRIV_H
#define TICKD_PRIV_H

#include <sys/types.h>

struct priv_cred {
	uid_t	 uid;
	gid_t	 gid;
	gid_t	*groups;	/* supplementary groups */
	int	 ngroups;
	char	*user;		/* from the password database */
	char	*home;
	char	*shell;
	int	*refs;		/* holders of the above, or NULL: one */
};

int	priv_lookup(const char *, const char *, struct priv_cred *, char **);
int	priv_lookup_as(uid_t, gid_t, const char *, const char *,
	    struct priv_cred *, char **);
void	priv_cred_copy(struct priv_cred *, struct priv_cred *);
void	priv_cred_free(struct priv_cred *);
int	priv_is_self(const struct priv_cred *);
int	priv_switch(const struct priv_cred *);

#endif /* TICKD_PRIV_H */

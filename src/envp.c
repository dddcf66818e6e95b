/*
 * envp.c -- build environment vectors for jobs.
 *
 * A vector owns its strings.  Setting a name that is present replaces it,
 * so the order of envp_set calls decides precedence: later wins.  The
 * vector is always NULL-terminated and usable as execve's envp.
 *
 * DIAGNOSTICS: none; allocation failure is fatal (xmalloc).
 */
#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "envp.h"
#include "xmalloc.h"

/* An empty vector. */
void
envp_init(struct envp *e)
{
	e->n = 0;
	e->cap = 16;		/* a job's usual ten or so, and NULL */
	e->v = xcalloc(e->cap, sizeof *e->v);
}

/* Index of the entry for the name in "NAME=..." (namelen bytes), or -1. */
static ssize_t
envp_find(const struct envp *e, const char *name, size_t namelen)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		if (strncmp(e->v[i], name, namelen) == 0 &&
		    e->v[i][namelen] == '=')
			return (ssize_t)i;
	}
	return -1;
}

/* Add or replace "NAME=..." (s, whose name is namelen bytes), taking s. */
static void
envp_take(struct envp *e, char *s, size_t namelen)
{
	ssize_t i;

	if ((i = envp_find(e, s, namelen)) != -1) {
		free(e->v[i]);
		e->v[i] = s;
		return;
	}
	if (e->n + 1 >= e->cap) {
		e->cap *= 2;
		e->v = xreallocarray(e->v, e->cap, sizeof *e->v);
	}
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
}

/* Add or replace "NAME=value"; the string is copied. */
void
envp_put(struct envp *e, const char *nameval)
{
	const char *eq = strchr(nameval, '=');

	if (eq != NULL)
		envp_take(e, xstrdup(nameval), (size_t)(eq - nameval));
}

/* Add or replace NAME with value (built here: once per job's spawn). */
void
envp_set(struct envp *e, const char *name, const char *value)
{
	size_t	 nl = strlen(name), vl = strlen(value);
	char	*s = xmalloc(nl + vl + 2);

	memcpy(s, name, nl);
	s[nl] = '=';
	memcpy(s + nl + 1, value, vl + 1);
	envp_take(e, s, nl);
}

/* The value of NAME, or NULL. */
const char *
envp_get(const struct envp *e, const char *name)
{
	ssize_t i = envp_find(e, name, strlen(name));

	return i == -1 ? NULL : e->v[i] + strlen(name) + 1;
}

/* Whether s is "NAME=value" with a portable name ([A-Za-z_][A-Za-z0-9_]*). */
int
envp_valid(const char *s)
{
	const char *p = s;

	if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
	    *p == '_'))
		return 0;
	for (p++; *p != '=' && *p != '\0'; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	}
	return *p == '=';
}

/* Free every string and the vector. */
void
envp_free(struct envp *e)
{
	size_t i;

	if (e->v == NULL)
		return;
	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = e->cap = 0;
}

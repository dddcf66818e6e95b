/*
 * test_envp.c -- unit tests of environment vectors: envp_set, envp_put,
 * envp_get, replacement (later wins, order kept), NULL termination across
 * growth, and envp_valid on "NAME=value" texts.
 *
 * Tables of cases.  Each vector case is a sequence of operations applied
 * to a fresh vector, then the whole vector is compared, in order, with the
 * expected entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envp.h"

#include "t.h"

#define OPS_MAX		8
#define WANT_MAX	8

/* One operation: set (name, value), or put (name holds "NAME=value"). */
struct op {
	char		 kind;		/* 's' envp_set, 'p' envp_put */
	const char	*name;
	const char	*value;
};

/* Operations, then the vector's entries in order and some lookups. */
struct vec_case {
	const char	*name;
	struct op	 ops[OPS_MAX];
	const char	*want[WANT_MAX];	/* entries, NULL-ended */
	const char	*get_name[4];		/* envp_get lookups */
	const char	*get_want[4];		/* NULL: absent */
};

static const struct vec_case vec_cases[] = {
	{ "empty", { { 0, NULL, NULL } }, { NULL },
	    { "PATH", NULL }, { NULL } },
	{ "set one", { { 's', "PATH", "/bin" } }, { "PATH=/bin", NULL },
	    { "PATH", "PAT", "PATHX", NULL }, { "/bin", NULL, NULL } },
	{ "put one", { { 'p', "A=1", NULL } }, { "A=1", NULL },
	    { "A", NULL }, { "1" } },
	{ "set keeps order", { { 's', "B", "2" }, { 's', "A", "1" },
	    { 's', "C", "3" } }, { "B=2", "A=1", "C=3", NULL },
	    { "A", "B", "C", NULL }, { "1", "2", "3" } },
	{ "set replaces in place", { { 's', "A", "1" }, { 's', "B", "2" },
	    { 's', "A", "x" } }, { "A=x", "B=2", NULL },
	    { "A", NULL }, { "x" } },
	{ "put replaces set", { { 's', "HOME", "/root" },
	    { 'p', "HOME=/tmp", NULL } }, { "HOME=/tmp", NULL },
	    { "HOME", NULL }, { "/tmp" } },
	{ "set replaces put", { { 'p', "X=a", NULL }, { 's', "X", "b" } },
	    { "X=b", NULL }, { "X", NULL }, { "b" } },
	{ "prefix names are distinct", { { 's', "AB", "1" },
	    { 's', "A", "2" }, { 's', "ABC", "3" } },
	    { "AB=1", "A=2", "ABC=3", NULL },
	    { "A", "AB", "ABC", NULL }, { "2", "1", "3" } },
	{ "value with = and spaces", { { 'p', "A=b=c d ", NULL } },
	    { "A=b=c d ", NULL }, { "A", NULL }, { "b=c d " } },
	{ "empty value", { { 's', "E", "" } }, { "E=", NULL },
	    { "E", NULL }, { "" } },
	{ "put without = is ignored", { { 'p', "NOEQUALS", NULL } },
	    { NULL }, { "NOEQUALS", NULL }, { NULL } },
};

/* Whether a text is a valid "NAME=value". */
struct valid_case {
	const char	*text;
	int		 valid;
};

static const struct valid_case valid_cases[] = {
	{ "A=1", 1 },
	{ "_x=", 1 },
	{ "a_b9=v=w", 1 },
	{ "PATH=/usr/bin:/bin", 1 },
	{ "Z= spaces kept ", 1 },
	{ "_=", 1 },
	{ "=x", 0 },
	{ "1A=x", 0 },
	{ "A-B=x", 0 },
	{ "A.B=x", 0 },
	{ "A B=x", 0 },
	{ " A=x", 0 },
	{ "A", 0 },
	{ "", 0 },
	{ "\xc3\xa9=x", 0 },
};

/* Apply a case's operations and compare the vector. */
static void
vec_run(const struct vec_case *c)
{
	struct envp	e;
	size_t		i, nwant = 0;

	T_RUN(c->name);
	envp_init(&e);
	for (i = 0; i < OPS_MAX && c->ops[i].kind != 0; i++) {
		if (c->ops[i].kind == 's')
			envp_set(&e, c->ops[i].name, c->ops[i].value);
		else
			envp_put(&e, c->ops[i].name);
	}
	while (nwant < WANT_MAX && c->want[nwant] != NULL)
		nwant++;
	T_EQ_INT(e.n, nwant);
	for (i = 0; i < nwant && i < e.n; i++)
		T_EQ_STR(e.v[i], c->want[i]);
	T_TRUE(e.v[e.n] == NULL);
	for (i = 0; i < 4 && c->get_name[i] != NULL; i++) {
		if (c->get_want[i] == NULL)
			T_TRUE(envp_get(&e, c->get_name[i]) == NULL);
		else
			T_EQ_STR(envp_get(&e, c->get_name[i]), c->get_want[i]);
	}
	envp_free(&e);
	T_TRUE(e.v == NULL && e.n == 0);
}

/* Many entries: growth keeps every entry and the NULL terminator. */
static void
test_growth(void)
{
	struct envp	e;
	char		name[16], value[16];
	size_t		i;

	T_RUN("growth");
	envp_init(&e);
	for (i = 0; i < 100; i++) {
		(void)snprintf(name, sizeof name, "V%zu", i);
		(void)snprintf(value, sizeof value, "%zu", i * 7);
		envp_set(&e, name, value);
		T_TRUE(e.v[e.n] == NULL);
	}
	T_EQ_INT(e.n, 100);
	for (i = 0; i < 100; i++) {
		(void)snprintf(name, sizeof name, "V%zu", i);
		(void)snprintf(value, sizeof value, "%zu", i * 7);
		T_EQ_STR(envp_get(&e, name), value);
	}
	/* Replacing does not grow. */
	envp_set(&e, "V50", "fifty");
	T_EQ_INT(e.n, 100);
	T_EQ_STR(e.v[50], "V50=fifty");
	T_TRUE(e.v[100] == NULL);
	envp_free(&e);
	envp_free(&e);		/* twice is harmless */
}

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof vec_cases / sizeof vec_cases[0]; i++)
		vec_run(&vec_cases[i]);
	test_growth();
	T_RUN("envp_valid");
	for (i = 0; i < sizeof valid_cases / sizeof valid_cases[0]; i++) {
		if (envp_valid(valid_cases[i].text) != valid_cases[i].valid)
			(void)printf("  envp_valid(\"%s\")\n",
			    valid_cases[i].text);
		T_EQ_INT(envp_valid(valid_cases[i].text),
		    valid_cases[i].valid);
	}
	return t_done();
}

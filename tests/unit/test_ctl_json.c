/*
 * test_ctl_json.c -- unit tests of tickctl's JSON writer: string escaping
 * per RFC 8259 (quote, backslash, every control character, DEL), UTF-8
 * kept when well-formed and each maximal ill-formed subpart replaced by
 * one \ufffd (overlong forms, surrogates, code points above U+10FFFF,
 * truncated sequences, stray continuation bytes), strings holding NUL,
 * the shape of objects and arrays (commas, nesting, null members), and
 * instants and moments written as RFC 3339 UTC.
 *
 * Tables of cases: input bytes, then the exact JSON text wanted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-json.h"

#include "t.h"

#define T0	INT64_C(1805007600)	/* 2027-03-14T07:00:00Z */

/* A string case: n bytes of in (n 0: strlen), the JSON string wanted. */
struct str_case {
	const char	*name;
	const char	*in;
	size_t		 n;
	const char	*want;
};

static const struct str_case str_cases[] = {
	{ "plain", "backup job", 0, "\"backup job\"" },
	{ "empty", "", 0, "\"\"" },
	{ "quote and backslash", "say \"hi\" \\o/", 0,
	    "\"say \\\"hi\\\" \\\\o/\"" },
	{ "short escapes", "a\bb\fc\nd\re\tf", 0,
	    "\"a\\bb\\fc\\nd\\re\\tf\"" },
	{ "other controls", "\x01\x1b[31m\x1f", 0,
	    "\"\\u0001\\u001b[31m\\u001f\"" },
	{ "DEL", "a\x7f" "b", 0, "\"a\\u007fb\"" },
	{ "NUL inside", "a\0b", 3, "\"a\\u0000b\"" },
	{ "slash kept", "/etc/tickd", 0, "\"/etc/tickd\"" },
	{ "UTF-8 two bytes", "caf\xc3\xa9", 0, "\"caf\xc3\xa9\"" },
	{ "UTF-8 three bytes", "\xe2\x82\xac 5", 0, "\"\xe2\x82\xac 5\"" },
	{ "UTF-8 four bytes", "\xf0\x9f\x98\x80", 0,
	    "\"\xf0\x9f\x98\x80\"" },
	{ "highest code point", "\xf4\x8f\xbf\xbf", 0,
	    "\"\xf4\x8f\xbf\xbf\"" },
	{ "U+2028 kept", "\xe2\x80\xa8", 0, "\"\xe2\x80\xa8\"" },
	{ "stray continuation", "a\x80" "b", 0, "\"a\\ufffdb\"" },
	{ "two stray continuations", "\x80\xbf", 0, "\"\\ufffd\\ufffd\"" },
	{ "overlong two bytes (C0)", "\xc0\xaf", 0, "\"\\ufffd\\ufffd\"" },
	{ "overlong three bytes (E0 80)", "\xe0\x80\xaf", 0,
	    "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "overlong four bytes (F0 80)", "\xf0\x80\x80\xaf", 0,
	    "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
	{ "surrogate (ED A0 80)", "\xed\xa0\x80", 0,
	    "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "above U+10FFFF (F4 90)", "\xf4\x90\x80\x80", 0,
	    "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
	{ "F5 and FF never lead", "\xf5\xff", 0, "\"\\ufffd\\ufffd\"" },
	{ "truncated three bytes, then ASCII", "\xe2\x82" "A", 0,
	    "\"\\ufffdA\"" },
	{ "truncated four bytes at the end", "x\xf0\x9f\x98", 0,
	    "\"x\\ufffd\"" },
	{ "lead byte then a lead byte", "\xc3\xc3\xa9", 0,
	    "\"\\ufffd\xc3\xa9\"" },
	{ "latin-1 text", "na\xefve", 0, "\"na\\ufffdve\"" },
};

static void
test_strings(void)
{
	struct ctl_json	j;
	size_t		i;

	ctl_json_init(&j);
	for (i = 0; i < sizeof str_cases / sizeof str_cases[0]; i++) {
		T_RUN(str_cases[i].name);
		ctl_json_reset(&j);
		ctl_json_strn(&j, NULL, str_cases[i].in, str_cases[i].n > 0 ?
		    str_cases[i].n : strlen(str_cases[i].in));
		T_EQ_STR(ctl_json_text(&j), str_cases[i].want);
	}
	ctl_json_free(&j);
}

/* Well-formed lengths and ill-formed subpart lengths. */
static void
test_utf8(void)
{
	static const struct {
		const char	*in;
		size_t		 n;
		size_t		 len, bad;
	} cases[] = {
		{ "A", 1, 1, 1 },
		{ "\xc3\xa9", 2, 2, 1 },
		{ "\xc3", 1, 0, 1 },
		{ "\xe2\x82\xac", 3, 3, 1 },
		{ "\xe2\x82", 2, 0, 2 },
		{ "\xe2\x82" "A", 3, 0, 2 },
		{ "\xe0\x9f\x80", 3, 0, 1 },
		{ "\xed\x9f\xbf", 3, 3, 1 },
		{ "\xed\xa0\x80", 3, 0, 1 },
		{ "\xf0\x90\x80\x80", 4, 4, 1 },
		{ "\xf0\x8f\xbf\xbf", 4, 0, 1 },
		{ "\xf4\x8f\xbf\xbf", 4, 4, 1 },
		{ "\xf4\x90\x80\x80", 4, 0, 1 },
		{ "\xf0\x9f\x98", 3, 0, 3 },
		{ "\x80", 1, 0, 1 },
		{ "\xc1\xbf", 2, 0, 1 },
	};
	size_t i, bad;

	T_RUN("utf8 lengths");
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bad = 99;
		T_EQ_INT(ctl_json_utf8((const unsigned char *)cases[i].in,
		    cases[i].n, &bad), cases[i].len);
		if (cases[i].len == 0)
			T_EQ_INT(bad, cases[i].bad);
	}
}

static void
test_shapes(void)
{
	struct ctl_json j;

	ctl_json_init(&j);

	T_RUN("empty object and array");
	ctl_json_open(&j, NULL);
	ctl_json_open_array(&j, "a");
	ctl_json_close_array(&j);
	ctl_json_open(&j, "o");
	ctl_json_close(&j);
	ctl_json_close(&j);
	T_EQ_STR(ctl_json_text(&j), "{\"a\":[],\"o\":{}}");

	T_RUN("members of every kind");
	ctl_json_reset(&j);
	ctl_json_open(&j, NULL);
	ctl_json_str(&j, "s", "x");
	ctl_json_str(&j, "n", NULL);
	ctl_json_int(&j, "i", -42);
	ctl_json_int(&j, "big", INT64_MAX);
	ctl_json_opt(&j, "o", 7);
	ctl_json_opt(&j, "none", -1);
	ctl_json_bool(&j, "t", 1);
	ctl_json_bool(&j, "f", 0);
	ctl_json_null(&j, "z");
	ctl_json_close(&j);
	T_EQ_STR(ctl_json_text(&j), "{\"s\":\"x\",\"n\":null,\"i\":-42,"
	    "\"big\":9223372036854775807,\"o\":7,\"none\":null,\"t\":true,"
	    "\"f\":false,\"z\":null}");

	T_RUN("nesting and commas");
	ctl_json_reset(&j);
	ctl_json_open(&j, NULL);
	ctl_json_str(&j, "job", "a");
	ctl_json_open_array(&j, "next");
	ctl_json_time(&j, NULL, T0);
	ctl_json_time(&j, NULL, T0 + 60);
	ctl_json_close_array(&j);
	ctl_json_open_array(&j, "runs");
	ctl_json_open(&j, NULL);
	ctl_json_int(&j, "attempt", 1);
	ctl_json_close(&j);
	ctl_json_open(&j, NULL);
	ctl_json_int(&j, "attempt", 2);
	ctl_json_open(&j, "inner");
	ctl_json_close(&j);
	ctl_json_close(&j);
	ctl_json_close_array(&j);
	ctl_json_int(&j, "after", 0);
	ctl_json_close(&j);
	T_EQ_STR(ctl_json_text(&j), "{\"job\":\"a\",\"next\":["
	    "\"2027-03-14T07:00:00Z\",\"2027-03-14T07:01:00Z\"],\"runs\":["
	    "{\"attempt\":1},{\"attempt\":2,\"inner\":{}}],\"after\":0}");

	T_RUN("keys are escaped too");
	ctl_json_reset(&j);
	ctl_json_open(&j, NULL);
	ctl_json_int(&j, "a\"b\n", 1);
	ctl_json_close(&j);
	T_EQ_STR(ctl_json_text(&j), "{\"a\\\"b\\n\":1}");

	T_RUN("instants and moments");
	ctl_json_reset(&j);
	ctl_json_open(&j, NULL);
	ctl_json_time(&j, "t", T0);
	ctl_json_time(&j, "none", -1);
	ctl_json_time_ms(&j, "ms", T0 * 1000 + 999);
	ctl_json_time_ms(&j, "ms_none", -1);
	ctl_json_time_ms(&j, "before_1970", -1500);
	ctl_json_time(&j, "epoch", 0);
	ctl_json_close(&j);
	T_EQ_STR(ctl_json_text(&j), "{\"t\":\"2027-03-14T07:00:00Z\","
	    "\"none\":null,\"ms\":\"2027-03-14T07:00:00Z\",\"ms_none\":null,"
	    "\"before_1970\":\"1969-12-31T23:59:58Z\","
	    "\"epoch\":\"1970-01-01T00:00:00Z\"}");

	T_RUN("reset starts a new text");
	ctl_json_reset(&j);
	T_EQ_STR(ctl_json_text(&j), "");
	ctl_json_open(&j, NULL);
	ctl_json_close(&j);
	T_EQ_STR(ctl_json_text(&j), "{}");

	T_RUN("growth past the first buffer");
	ctl_json_reset(&j);
	{
		char	big[5000];
		size_t	i;

		memset(big, 'x', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		ctl_json_open_array(&j, NULL);
		for (i = 0; i < 4; i++)
			ctl_json_str(&j, NULL, big);
		ctl_json_close_array(&j);
		T_EQ_INT(strlen(ctl_json_text(&j)), 4 * (4999 + 2) + 3 + 2);
	}
	ctl_json_free(&j);

	T_RUN("free then unused");
	T_EQ_STR(ctl_json_text(&j), "");
}

int
main(void)
{
	test_strings();
	test_utf8();
	test_shapes();
	return t_done();
}

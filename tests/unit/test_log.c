/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Log lines (src/core/log.c): text from apps is escaped, so that one call is
 * one line and no control byte reaches a log reader. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "unit_run.h"

START_TEST(escape_control_bytes)
{
	char out[64];
	ck_assert_uint_eq(log_escape(out, sizeof(out), "Brightness"), 10);
	ck_assert_str_eq(out, "Brightness");
	log_escape(out, sizeof(out), "a\nb\rc\td\x1b[2Je\x7f");
	ck_assert_str_eq(out, "a\\x0ab\\x0dc\\x09d\\x1b[2Je\\x7f");
	log_escape(out, sizeof(out), "back\\slash");
	ck_assert_str_eq(out, "back\\\\slash");
	/* UTF-8 is text, kept as it is */
	log_escape(out, sizeof(out), "Helligkeit \xc3\xa4");
	ck_assert_str_eq(out, "Helligkeit \xc3\xa4");
}
END_TEST

START_TEST(escape_truncates_whole)
{
	char out[6];
	/* "ab" + "\x0a" would need 7 bytes with the terminator: the escape is
	 * dropped whole, never cut */
	ck_assert_uint_eq(log_escape(out, sizeof(out), "ab\ncd"), 2);
	ck_assert_str_eq(out, "ab");
	ck_assert_uint_eq(log_escape(out, sizeof(out), "abcdefgh"), 5);
	ck_assert_str_eq(out, "abcde");
	ck_assert_uint_eq(log_escape(out, 1, "abc"), 0);
	ck_assert_str_eq(out, "");
}
END_TEST

/* A mapped control named "x\n<0>forged" logs as one line. */
START_TEST(log_line_cannot_be_forged)
{
	FILE *tmp = tmpfile();
	ck_assert_ptr_nonnull(tmp);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(fileno(tmp), STDERR_FILENO), 0);
	unsetenv("JOURNAL_STREAM");
	log_set_level(LOG_LEVEL_INFO);
	log_info("control '%s' mapped", "x\n<0>uvcuse: forged");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	char buf[256] = { 0 };
	rewind(tmp);
	size_t n = fread(buf, 1, sizeof(buf) - 1, tmp);
	fclose(tmp);
	ck_assert_uint_gt(n, 0);
	ck_assert_str_eq(buf, "uvcuse: control 'x\\x0a<0>uvcuse: forged' mapped\n");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("escape");
	tcase_add_test(tc, escape_control_bytes);
	tcase_add_test(tc, escape_truncates_whole);
	tcase_add_test(tc, log_line_cannot_be_forged);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

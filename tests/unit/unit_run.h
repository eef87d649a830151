/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How every Check test program of the project ends: run the suite, print
 * Check's summary, exit non-zero on any failure. */
#ifndef UNIT_RUN_H
#define UNIT_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif

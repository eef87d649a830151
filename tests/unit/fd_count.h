/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The process's open fds, counted from /proc/self/fd: tests that a code
 * path leaks none compare the count before and after. */
#ifndef FD_COUNT_H
#define FD_COUNT_H

#include <check.h>
#include <dirent.h>

static inline unsigned open_fd_count(void)
{
	unsigned n = 0;
	DIR *d = opendir("/proc/self/fd");
	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/service/udev_wait.c: readiness from udev's database folder, in a temporary
 * folder standing in for /run/udev/data. A helper thread plays udev: it
 * writes a temporary file and renames it into place, as udev does. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/loop.h"
#include "service/udev_wait.h"
#include "unit_run.h"

static char dir[64];
static struct loop *loop;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/udev-wait.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(loop_new(&loop), 0);
}

static void teardown(void)
{
	loop_free(loop);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* What udev does once it has processed a device: entry written by rename. */
static void udev_writes(const char *entry)
{
	char tmp[128], path[128];
	snprintf(tmp, sizeof(tmp), "%s/.#%s", dir, entry);
	snprintf(path, sizeof(path), "%s/%s", dir, entry);
	FILE *f = fopen(tmp, "w");
	ck_assert_ptr_nonnull(f);
	fputs("G:uaccess\n", f);
	fclose(f);
	ck_assert_int_eq(rename(tmp, path), 0);
}

static void *udev_thread(void *arg)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	udev_writes(arg);
	return NULL;
}

START_TEST(entry_written_while_waiting)
{
	struct udev_wait *w;
	ck_assert_int_eq(udev_wait_new(dir, &w), 0);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, udev_thread, "c234:5"), 0);
	int status = -1;
	/* the timeout only bounds a failure: success ends the wait at once */
	ck_assert_int_eq(udev_wait_for(w, loop, makedev(234, 5), 20000, &status), 1);
	pthread_join(t, NULL);
	udev_wait_free(w);
}
END_TEST

/* udev may be faster than the daemon: an entry written between the start
 * of the watch and the wait counts. */
START_TEST(entry_written_before_the_wait)
{
	struct udev_wait *w;
	ck_assert_int_eq(udev_wait_new(dir, &w), 0);
	udev_writes("c234:6");
	int status = -1;
	ck_assert_int_eq(udev_wait_for(w, loop, makedev(234, 6), 20000, &status), 1);
	udev_wait_free(w);
}
END_TEST

/* A former node's entry with the same numbers (a restart) is not ours, nor
 * is another device's entry: the wait times out. */
START_TEST(stale_or_other_entry_times_out)
{
	udev_writes("c234:7");
	char path[128];
	snprintf(path, sizeof(path), "%s/c234:7", dir);
	struct timespec past[2] = { { time(NULL) - 60, 0 }, { time(NULL) - 60, 0 } };
	ck_assert_int_eq(utimensat(AT_FDCWD, path, past, 0), 0);
	struct udev_wait *w;
	ck_assert_int_eq(udev_wait_new(dir, &w), 0);
	udev_writes("c234:8");
	int status = -1;
	ck_assert_int_eq(udev_wait_for(w, loop, makedev(234, 7), 100, &status), 0);
	udev_wait_free(w);
}
END_TEST

START_TEST(no_folder)
{
	struct udev_wait *w = NULL;
	ck_assert_int_eq(udev_wait_new("/nonexistent/udev/data", &w), -ENOENT);
	ck_assert_ptr_null(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("udev-wait");
	TCase *tc = tcase_create("udev-wait");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, entry_written_while_waiting);
	tcase_add_test(tc, entry_written_before_the_wait);
	tcase_add_test(tc, stale_or_other_entry_times_out);
	tcase_add_test(tc, no_folder);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

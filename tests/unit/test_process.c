/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who a caller is (src/core/process.c): a thread's process, and a start
 * time that tells two processes with the same ID apart. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/process.h"
#include "unit_run.h"

static atomic_int thread_tid;
static int thread_pipe[2];

static void *thread_main(void *arg)
{
	(void)arg;
	atomic_store(&thread_tid, (int)syscall(SYS_gettid));
	char c;
	ck_assert_int_eq(read(thread_pipe[0], &c, 1), 1);
	return NULL;
}

START_TEST(a_thread_is_its_process)
{
	struct process_id self, of_thread;
	ck_assert_int_eq(process_identify(getpid(), &self), 0);
	ck_assert_int_eq(self.tgid, getpid());
	ck_assert_uint_gt(self.start, 0);
	ck_assert_int_eq(pipe(thread_pipe), 0);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, thread_main, NULL), 0);
	while (!atomic_load(&thread_tid))
		usleep(1000);
	ck_assert_int_ne(atomic_load(&thread_tid), getpid());
	ck_assert_int_eq(process_identify(atomic_load(&thread_tid), &of_thread), 0);
	ck_assert(process_same(&self, &of_thread));
	ck_assert_int_eq(write(thread_pipe[1], "x", 1), 1);
	pthread_join(t, NULL);
	close(thread_pipe[0]);
	close(thread_pipe[1]);
}
END_TEST

/* a child started later is another process: another ID now, and a start
 * time no earlier than ours (clock ticks: equal within a tick) */
START_TEST(a_child_is_another_process)
{
	struct process_id self, child;
	ck_assert_int_eq(process_identify(getpid(), &self), 0);
	struct timespec tick = { 0, 30 * 1000 * 1000 }; /* > 1 tick at any USER_HZ */
	nanosleep(&tick, NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	ck_assert_int_eq(process_identify(pid, &child), 0);
	ck_assert_int_eq(child.tgid, pid);
	ck_assert_uint_gt(child.start, self.start);
	ck_assert(!process_same(&self, &child));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* gone: no process has that identity any more */
	ck_assert_int_eq(process_identify(pid, &child), -ESRCH);
}
END_TEST

START_TEST(no_such_process)
{
	struct process_id out = { 7, 7 };
	ck_assert_int_eq(process_identify(0, &out), -ESRCH);
	ck_assert_int_eq(process_identify(-5, &out), -ESRCH);
	ck_assert_int_eq(process_identify(0x3fffffff, &out), -ESRCH);
	ck_assert_int_eq(out.tgid, 7); /* untouched on failure */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("process");
	TCase *tc = tcase_create("identify");
	tcase_add_test(tc, a_thread_is_its_process);
	tcase_add_test(tc, a_child_is_another_process);
	tcase_add_test(tc, no_such_process);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libuvcuse-preload.so where it must change nothing (run with the library
 * in LD_PRELOAD, see tests/unit/meson.build): anonymous, file and
 * /dev/zero mappings, syscall() for mmap, munmap and others, and errno as
 * libc leaves it, on success and on failure. The uvcuse path itself is
 * proven in the VM (tests/e2e/preload.sh). */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "unit_run.h"

START_TEST(library_is_loaded)
{
	Dl_info info;
	void *f = dlsym(RTLD_DEFAULT, "mmap");
	ck_assert_ptr_nonnull(f);
	ck_assert(dladdr(f, &info));
	ck_assert_msg(strstr(info.dli_fname, "libuvcuse-preload.so"), "mmap from %s",
		      info.dli_fname);
	f = dlsym(RTLD_DEFAULT, "syscall");
	ck_assert(dladdr(f, &info));
	ck_assert_ptr_nonnull(strstr(info.dli_fname, "libuvcuse-preload.so"));
}
END_TEST

/* Issue 29, finding 8: a character device that is not ours (here
 * /dev/zero at fd 1500: verdicts used to be kept only below fd 1024) is
 * asked whether it is a uvcuse node once, not at every mapping. */
START_TEST(verdict_kept_for_any_fd)
{
	unsigned (*hellos)(void) = (unsigned (*)(void))dlsym(RTLD_DEFAULT, "ioctl_count_hellos");
	ck_assert_msg(hellos != NULL, "ioctl_count.so is not preloaded");
	struct rlimit rl;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < 2048 && rl.rlim_max >= 2048) {
		rl.rlim_cur = 2048;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	ck_assert_uint_ge(rl.rlim_cur, 2048);
	int z = open("/dev/zero", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(z, 0);
	int high = fcntl(z, F_DUPFD_CLOEXEC, 1500);
	ck_assert_int_ge(high, 1500);
	close(z);
	unsigned before = hellos();
	for (int i = 0; i < 5; i++) {
		void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, high, 0);
		ck_assert_ptr_ne(p, MAP_FAILED);
		munmap(p, 4096);
	}
	ck_assert_uint_eq(hellos() - before, 1);
	close(high);
}
END_TEST

START_TEST(anonymous_keeps_errno)
{
	for (int i = 0; i < 1000; i++) {
		errno = 1234;
		char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ck_assert_ptr_ne(p, MAP_FAILED);
		ck_assert_int_eq(errno, 1234);
		p[8191] = 1;
		ck_assert_int_eq(munmap(p, 8192), 0);
		ck_assert_int_eq(errno, 1234);
	}
	errno = 0;
	ck_assert_int_eq(munmap((void *)1, 4096), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(files_and_devices)
{
	errno = 0;
	ck_assert_ptr_eq(mmap(NULL, 4096, PROT_READ, MAP_SHARED, 987, 0), MAP_FAILED);
	ck_assert_int_eq(errno, EBADF);
	/* /dev/zero: a character device that is not ours (ENOTTY) */
	int z = open("/dev/zero", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(z, 0);
	for (int i = 0; i < 3; i++) {
		errno = 77;
		unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, z, 0);
		ck_assert_ptr_ne(p, MAP_FAILED);
		ck_assert_int_eq(errno, 77);
		ck_assert_uint_eq(p[100], 0);
		munmap(p, 4096);
	}
	/* a device that cannot map: libc's errno (ENODEV) */
	int n = open("/dev/null", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(n, 0);
	errno = 0;
	ck_assert_ptr_eq(mmap(NULL, 4096, PROT_READ, MAP_SHARED, n, 0), MAP_FAILED);
	ck_assert_int_eq(errno, ENODEV);
	/* the same fd number, another device: the verdict is not reused */
	ck_assert_int_eq(dup2(z, n), n);
	ck_assert_ptr_ne(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, n, 0), MAP_FAILED);
	close(n);
	close(z);
	/* a regular file */
	char path[] = "/tmp/test_preload.XXXXXX";
	int f = mkstemp(path);
	ck_assert_int_ge(f, 0);
	unlink(path);
	ck_assert_int_eq(write(f, "uvcuse", 6), 6);
	errno = 5;
	char *p = mmap64(NULL, 6, PROT_READ, MAP_SHARED, f, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(errno, 5);
	ck_assert_int_eq(memcmp(p, "uvcuse", 6), 0);
	munmap(p, 6);
	close(f);
}
END_TEST

START_TEST(syscall_numbers)
{
	errno = 42;
	long a = syscall(SYS_mmap, NULL, 4096L, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
	ck_assert_int_ne(a, -1);
	ck_assert_int_eq(errno, 42);
	((char *)a)[0] = 1;
	ck_assert_int_eq(syscall(SYS_munmap, a, 4096L), 0);
	ck_assert_int_eq(syscall(SYS_munmap, 1L, 4096L), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(syscall(SYS_mmap, NULL, 4096L, PROT_READ, MAP_SHARED, 987, 0L), -1);
	ck_assert_int_eq(errno, EBADF);
	/* others go straight through, all six arguments */
	ck_assert_int_eq(syscall(SYS_getpid), getpid());
	ck_assert_int_eq(syscall(SYS_close, 999), -1);
	ck_assert_int_eq(errno, EBADF);
	char buf[4];
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(syscall(SYS_write, fds[1], "abc", 3L), 3);
	ck_assert_int_eq(syscall(SYS_read, fds[0], buf, 3L), 3);
	ck_assert_int_eq(memcmp(buf, "abc", 3), 0);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* ioctl and fcntl are interposed (DQBUF, FIONBIO, F_SETFL look at the
 * file); on anything but a uvcuse node they answer as libc, errno too. */
START_TEST(ioctl_and_fcntl_elsewhere)
{
	Dl_info info;
	ck_assert(dladdr(dlsym(RTLD_DEFAULT, "ioctl"), &info));
	ck_assert_ptr_nonnull(strstr(info.dli_fname, "libuvcuse-preload.so"));
	ck_assert(dladdr(dlsym(RTLD_DEFAULT, "fcntl"), &info));
	ck_assert_ptr_nonnull(strstr(info.dli_fname, "libuvcuse-preload.so"));
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	int null = open("/dev/null", O_RDWR);
	ck_assert_int_ge(null, 0);
	for (int round = 0; round < 2; round++) { /* the second from the cache */
		/* O_NONBLOCK set and cleared, by fcntl, fcntl64, FIONBIO, syscall */
		errno = 77;
		ck_assert_int_eq(fcntl(null, F_SETFL, O_NONBLOCK), 0);
		ck_assert_int_eq(errno, 77);
		ck_assert_int_eq(fcntl(null, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
		int off = 0;
		ck_assert_int_eq(ioctl(fds[0], FIONBIO, &off), 0);
		ck_assert_int_eq(fcntl(fds[0], F_GETFL) & O_NONBLOCK, 0);
		int on = 1;
		ck_assert_int_eq(ioctl(fds[0], FIONBIO, &on), 0);
		ck_assert_int_eq(fcntl(fds[0], F_GETFL) & O_NONBLOCK, O_NONBLOCK);
		ck_assert_int_eq(syscall(SYS_fcntl, null, F_SETFL, 0L), 0);
		ck_assert_int_eq(fcntl(null, F_GETFL) & O_NONBLOCK, 0);
		ck_assert_int_eq(fcntl(999, F_SETFL, O_NONBLOCK), -1);
		ck_assert_int_eq(errno, EBADF);
		ck_assert_int_eq(fcntl(fds[0], F_DUPFD_CLOEXEC, 100), 100);
		ck_assert_int_eq(fcntl(100, F_GETFD), FD_CLOEXEC);
		close(100);
		/* DQBUF on a character device that is not a node: its answer */
		struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					 .memory = V4L2_MEMORY_USERPTR };
		ck_assert_int_eq(ioctl(null, VIDIOC_DQBUF, &b), -1);
		ck_assert_int_eq(errno, ENOTTY);
		ck_assert_int_eq(syscall(SYS_ioctl, null, VIDIOC_DQBUF, &b), -1);
		ck_assert_int_eq(errno, ENOTTY);
		ck_assert_int_eq(ioctl(fds[0], VIDIOC_DQBUF, &b), -1);
		ck_assert_int_eq(errno, ENOTTY);
		ck_assert_int_eq(ioctl(null, VIDIOC_DQBUF, NULL), -1);
		ck_assert_int_eq(errno, ENOTTY);
		ck_assert_int_eq(ioctl(999, VIDIOC_DQBUF, &b), -1);
		ck_assert_int_eq(errno, EBADF);
		int n = -1;
		ck_assert_int_eq(ioctl(fds[0], FIONREAD, &n), 0);
		ck_assert_int_eq(n, 0);
	}
	close(null);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* A forked child inherits the library and its cache. */
START_TEST(forked_child)
{
	pid_t pid = fork();
	if (pid == 0) {
		void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int z = open("/dev/zero", O_RDONLY);
		void *q = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, z, 0);
		_exit(p != MAP_FAILED && q != MAP_FAILED ? 0 : 1);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("preload");
	TCase *tc = tcase_create("preload");
	tcase_add_test(tc, library_is_loaded);
	tcase_add_test(tc, verdict_kept_for_any_fd);
	tcase_add_test(tc, anonymous_keeps_errno);
	tcase_add_test(tc, files_and_devices);
	tcase_add_test(tc, syscall_numbers);
	tcase_add_test(tc, ioctl_and_fcntl_elsewhere);
	tcase_add_test(tc, forked_child);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

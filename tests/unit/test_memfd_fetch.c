/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The buffer socket's client (src/client/memfd_fetch.c), shared by the
 * preload library and uvcuse-pipewire, against a stand-in daemon in a
 * thread: the HELLO's token goes in the request, one memfd comes back,
 * and every wrong answer (no fd, two fds, a refusal, a bad magic, a short
 * memfd) is an error that leaves no fd open in the process. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client/memfd_fetch.h"
#include "fd_count.h"
#include "unit_run.h"
#include "uvcuse/uvcuse.h"

enum answer { GOOD, TWO_FDS, NO_FD, REFUSED, BAD_MAGIC, TOO_SMALL };

static char sock_path[UVCUSE_SOCKET_PATH_MAX];
static int listener = -1;
static const uint8_t token[UVCUSE_TOKEN_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };
static struct uvcuse_buf_request seen; /* what the daemon got */

/* The node's side of UVCUSE_IOC_HELLO (the daemon's answer), or ENOTTY
 * (a node that is not uvcuse's). */
static int hello_ours(int fd, unsigned long req, ...)
{
	(void)fd;
	if (req != UVCUSE_IOC_HELLO) {
		errno = ENOTTY;
		return -1;
	}
	va_list ap;
	va_start(ap, req);
	struct uvcuse_hello *h = va_arg(ap, struct uvcuse_hello *);
	va_end(ap);
	h->magic = UVCUSE_MAGIC;
	h->abi_version = UVCUSE_ABI_VERSION;
	memcpy(h->token, token, sizeof(token));
	snprintf(h->socket_path, sizeof(h->socket_path), "%s", sock_path);
	return 0;
}

static int hello_not_ours(int fd, unsigned long req, ...)
{
	(void)fd;
	(void)req;
	errno = ENOTTY;
	return -1;
}

static int new_memfd(size_t size)
{
	int fd = memfd_create("test-buffer", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	return fd;
}

/* One connection of the stand-in daemon, answered as told. */
static void *serve_one(void *arg)
{
	enum answer a = (enum answer)(intptr_t)arg;
	int c = accept(listener, NULL, NULL);
	ck_assert_int_ge(c, 0);
	ck_assert_int_eq(recv(c, &seen, sizeof(seen), 0), (ssize_t)sizeof(seen));
	struct uvcuse_buf_reply rep = { .magic = UVCUSE_MAGIC, .status = 0, .size = 65536 };
	if (a == BAD_MAGIC)
		rep.magic = 0x12345678;
	if (a == REFUSED)
		rep.status = -EACCES;
	if (a == TOO_SMALL)
		rep.size = 16;
	int fds[2] = { -1, -1 };
	unsigned nfds = a == TWO_FDS ? 2 : (a == NO_FD || a == REFUSED) ? 0 : 1;
	for (unsigned i = 0; i < nfds; i++)
		fds[i] = new_memfd(65536);
	struct iovec iov = { &rep, sizeof(rep) };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof(u));
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (nfds) {
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	ck_assert_int_eq(sendmsg(c, &m, 0), (ssize_t)sizeof(rep));
	for (unsigned i = 0; i < nfds; i++)
		close(fds[i]);
	close(c);
	return NULL;
}

/* fetch with the daemon answering a; returns what fetch returned, and
 * checks that the process has no fd more than before except the memfd. */
static int fetch(enum answer a, bool *ours)
{
	unsigned before = open_fd_count();
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, serve_one, (void *)(intptr_t)a), 0);
	int r = uvcuse_fetch_memfd(hello_ours, 3, 0x1000, 4096, ours);
	pthread_join(t, NULL);
	unsigned after = open_fd_count();
	ck_assert_uint_eq(after, before + (r >= 0 ? 1 : 0));
	return r;
}

static void setup(void)
{
	snprintf(sock_path, sizeof(sock_path), "/tmp/uvcuse-memfd-fetch-%d.sock", getpid());
	unlink(sock_path);
	listener = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(listener, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	ck_assert_int_eq(bind(listener, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(listener, 4), 0);
}

static void teardown(void)
{
	close(listener);
	unlink(sock_path);
}

START_TEST(one_memfd_for_the_token)
{
	bool ours = false;
	int fd = fetch(GOOD, &ours);
	ck_assert_int_ge(fd, 0);
	ck_assert(ours);
	ck_assert_uint_eq(seen.magic, UVCUSE_MAGIC);
	ck_assert_uint_eq(seen.abi_version, UVCUSE_ABI_VERSION);
	ck_assert_mem_eq(seen.token, token, sizeof(token));
	ck_assert_uint_eq(seen.offset, 0x1000);
	ck_assert_uint_eq(seen.length, 4096);
	/* it is the daemon's memory, mappable, close-on-exec */
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	munmap(p, 4096);
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
}
END_TEST

START_TEST(wrong_answers_are_errors_and_leak_nothing)
{
	bool ours;
	ck_assert_int_eq(fetch(TWO_FDS, &ours), -EPROTO);
	ck_assert(ours);
	ck_assert_int_eq(fetch(NO_FD, &ours), -EPROTO);
	ck_assert_int_eq(fetch(REFUSED, &ours), -EACCES);
	ck_assert_int_eq(fetch(BAD_MAGIC, &ours), -EPROTO);
	ck_assert_int_eq(fetch(TOO_SMALL, &ours), -EPROTO);
}
END_TEST

START_TEST(not_a_uvcuse_node)
{
	bool ours = true;
	unsigned before = open_fd_count();
	ck_assert_int_eq(uvcuse_fetch_memfd(hello_not_ours, 3, 0, 4096, &ours), -ENOTTY);
	ck_assert(!ours);
	ck_assert_uint_eq(open_fd_count(), before);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("memfd_fetch");
	TCase *tc = tcase_create("fetch");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, one_memfd_for_the_token);
	tcase_add_test(tc, wrong_answers_are_errors_and_leak_nothing);
	tcase_add_test(tc, not_a_uvcuse_node);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

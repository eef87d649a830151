/* SPDX-License-Identifier: GPL-2.0-or-later */
/* poll() through the fast path (fastpath_poll in src/preload/fastpath.c),
 * with a test thread as the daemon: a frame in the ring is POLLIN without
 * waiting; a quiet node is waited for on the doorbell, which wakes it for
 * a frame, for the node no longer being quiet, or for the daemon's end;
 * other fds of the set are answered as poll answers them; anything the
 * library cannot answer goes to the kernel (-2) with what is left of the
 * timeout; a node fd closed while another thread waits keeps the ring and
 * fds for it until it leaves, then they are freed; a node's fd number
 * reused behind the library's back is caught by poll and by the next
 * kernel V4L2 ioctl. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fastpath.h"
#include "fd_count.h"
#include "unit_run.h"

static struct uvcuse_ring *ring;
static struct uvcuse_ring *daemon_view; /* the same memory, still mapped once the slot drops ring */
static int node = -1, bell = -1, sock[2] = { -1, -1 };
static bool attached;
static int waits; /* real polls made by fastpath_poll */
static unsigned fds_before;

static int wait_real(void *ctx, struct pollfd *fds, nfds_t n, int64_t timeout_ns)
{
	(void)ctx;
	waits++;
	return poll(fds, n, timeout_ns < 0 ? -1 : (int)((timeout_ns + 999999) / 1000000));
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void setup(void)
{
	fds_before = open_fd_count();
	int mem = memfd_create("ring", MFD_CLOEXEC);
	ck_assert_int_ge(mem, 0);
	ck_assert_int_eq(ftruncate(mem, sizeof(*ring)), 0);
	ring = mmap(NULL, sizeof(*ring), PROT_READ | PROT_WRITE, MAP_SHARED, mem, 0);
	ck_assert_ptr_ne(ring, MAP_FAILED);
	daemon_view = mmap(NULL, sizeof(*ring), PROT_READ | PROT_WRITE, MAP_SHARED, mem, 0);
	ck_assert_ptr_ne(daemon_view, MAP_FAILED);
	close(mem);
	ring->magic = UVCUSE_MAGIC;
	ring->size = sizeof(*ring);
	ring->features = UVCUSE_RING_POLL_BELL;
	ring->pollable = 1;
	bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ck_assert_int_ge(bell, 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock), 0);
	node = open("/dev/null", O_RDONLY | O_CLOEXEC); /* stands for the node fd */
	ck_assert_int_ge(node, 0);
	fastpath_test_attach(node, ring, sock[0], bell);
	attached = true;
	waits = 0;
}

static void teardown(void)
{
	if (attached)
		fastpath_forget(node); /* unmaps the ring, closes sock[0] and bell */
	close(node);
	if (sock[1] >= 0)
		close(sock[1]);
	sock[1] = -1;
	munmap(daemon_view, sizeof(*daemon_view));
	ck_assert_uint_eq(open_fd_count(), fds_before);
}

/* The daemon's side: publish count entries of generation 0, then ring the
 * doorbell if anyone sleeps (as chan_ring.c). */
static void ring_bell(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ring->sleepers, __ATOMIC_RELAXED)) {
		uint64_t one = 1;
		ck_assert_int_eq(write(bell, &one, sizeof(one)), sizeof(one));
	}
}

static void publish(uint32_t count)
{
	__atomic_store_n(&ring->published, count, __ATOMIC_RELEASE);
	ring_bell();
}

static void set_pollable(uint32_t v)
{
	__atomic_store_n(&ring->pollable, v, __ATOMIC_RELEASE);
	ring_bell();
}

static int poll_node(short events, int timeout_ms, int64_t *left_ns)
{
	struct pollfd p = { .fd = node, .events = events, .revents = 0x7fff };
	int64_t t = timeout_ms < 0 ? -1 : (int64_t)timeout_ms * 1000000;
	int r = fastpath_poll(&p, 1, &t, wait_real, NULL);
	if (left_ns)
		*left_ns = t;
	if (r >= 0)
		ck_assert_int_eq(p.revents, r ? (events & (POLLIN | POLLRDNORM)) : 0);
	return r;
}

/* --- a frame in the ring ----------------------------------------------------- */

START_TEST(frame_waiting_is_pollin_without_a_system_call)
{
	publish(1);
	ck_assert_int_eq(poll_node(POLLIN | POLLRDNORM, 1000, NULL), 1);
	ck_assert_int_eq(waits, 0);
	/* taken: no longer */
	__atomic_store_n(&ring->taken, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(poll_node(POLLIN, 0, NULL), 0);
}
END_TEST

/* Issue 29, finding 7: the node's fd number closed where the library
 * cannot see it (here a raw dup2, as closefrom or io_uring would) and
 * given to another file: that file's poll is the kernel's, not answered
 * from the node's ring. */
START_TEST(reused_fd_number_is_not_the_node)
{
	publish(1);
	ck_assert_int_eq(poll_node(POLLIN, 0, NULL), 1);
	int other = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(other, 0);
	ck_assert_int_eq(dup2(other, node), node);
	close(other);
	waits = 0;
	ck_assert_int_eq(poll_node(POLLIN, 0, NULL), -2);
	ck_assert_int_eq(waits, 0);
}
END_TEST

/* maybe_node of the probe: the file is no node (as for /dev/zero) */
static bool never_a_node(int fd, struct stat *st)
{
	(void)fd;
	(void)st;
	return false;
}

static enum fastpath_verdict dqbuf_on_node(void)
{
	struct fastpath_probe probe = { .next_ioctl = NULL, .maybe_node = never_a_node };
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
	int ret = 0;
	return fastpath_ioctl(&probe, node, VIDIOC_DQBUF, &b, &ret);
}

/* The ring answers a live slot's DQBUF without checking its fd; the same
 * reuse as above is caught by the next V4L2 ioctl that goes to the kernel
 * (the new file's REQBUFS, S_FMT...: fastpath_check_fd), after which a
 * DQBUF on the number is not taken from the old file's ring. */
START_TEST(reused_fd_number_caught_by_a_kernel_ioctl)
{
	for (uint32_t i = 0; i < 2; i++)
		ring->entry[i] = (struct v4l2_buffer){ .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
						       .memory = V4L2_MEMORY_MMAP };
	publish(2);
	ck_assert_int_eq(dqbuf_on_node(), FASTPATH_HANDLED); /* from the ring */
	int other = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(other, 0);
	ck_assert_int_eq(dup2(other, node), node);
	close(other);
	fastpath_check_fd(node);
	ck_assert_int_ne(dqbuf_on_node(), FASTPATH_HANDLED);
	ck_assert(fastpath_ring_ready(daemon_view)); /* the second frame stays */
}
END_TEST

START_TEST(frame_waiting_and_other_fds)
{
	publish(1);
	int pfd[2];
	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_eq(write(pfd[1], "x", 1), 1);
	struct pollfd p[3] = { { .fd = pfd[0], .events = POLLIN },
			       { .fd = node, .events = POLLIN },
			       { .fd = pfd[1], .events = POLLOUT } };
	int64_t t = 1000000000;
	ck_assert_int_eq(fastpath_poll(p, 3, &t, wait_real, NULL), 3);
	ck_assert_int_eq(p[0].revents, POLLIN);
	ck_assert_int_eq(p[1].revents, POLLIN);
	ck_assert_int_eq(p[2].revents, POLLOUT);
	ck_assert_int_eq(waits, 1); /* the others, without waiting */
	close(pfd[0]);
	close(pfd[1]);
}
END_TEST

/* --- the doorbell -------------------------------------------------------------- */

static void *later(void *arg)
{
	void (*act)(void) = (void (*)(void))arg;
	usleep(100000);
	act();
	return NULL;
}

static void publish_one(void)
{
	publish(1);
}

static void stop_being_quiet(void)
{
	set_pollable(0);
}

static void daemon_goes(void)
{
	close(sock[1]);
	sock[1] = -1;
}

static int poll_while(void (*act)(void), int timeout_ms, int64_t *left, int64_t *took)
{
	pthread_t t;
	int64_t t0 = now_ms();
	ck_assert_int_eq(pthread_create(&t, NULL, later, (void *)act), 0);
	int r = poll_node(POLLIN, timeout_ms, left);
	*took = now_ms() - t0;
	pthread_join(t, NULL);
	return r;
}

START_TEST(quiet_node_waits_for_the_doorbell)
{
	int64_t left, took;
	ck_assert_int_eq(poll_while(publish_one, 10000, &left, &took), 1);
	ck_assert_int_ge(took, 90);
	ck_assert_int_eq(waits, 1);
	ck_assert_uint_eq(ring->sleepers, 0);
	uint64_t v;
	ck_assert_int_eq(read(bell, &v, sizeof(v)), -1); /* cleared by the poller */
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_lt(left, 10000000000LL);
}
END_TEST

START_TEST(node_no_longer_quiet_goes_to_the_kernel)
{
	int64_t left, took;
	ck_assert_int_eq(poll_while(stop_being_quiet, 10000, &left, &took), -2);
	ck_assert_int_ge(took, 90);
	ck_assert_int_lt(left, 10000000000LL - 80000000LL); /* what is left */
	ck_assert_int_gt(left, 0);
	ck_assert_uint_eq(ring->sleepers, 0);
	/* not quiet from the start: the kernel at once */
	waits = 0;
	ck_assert_int_eq(poll_node(POLLIN, 1000, &left), -2);
	ck_assert_int_eq(waits, 0);
	ck_assert_int_eq(left, 1000000000LL);
}
END_TEST

START_TEST(daemon_end_goes_to_the_kernel)
{
	int64_t left, took;
	ck_assert_int_eq(poll_while(daemon_goes, -1, &left, &took), -2);
	ck_assert_int_ge(took, 90);
	ck_assert_int_eq(left, -1); /* no timeout: still none */
}
END_TEST

START_TEST(quiet_node_times_out)
{
	int64_t t0 = now_ms(), left;
	ck_assert_int_eq(poll_node(POLLIN, 150, &left), 0);
	ck_assert_int_ge(now_ms() - t0, 150);
	ck_assert_int_eq(left, 0);
	ck_assert_uint_eq(ring->sleepers, 0);
}
END_TEST

static int pipe_w = -1;
static void pipe_gets_data(void)
{
	ck_assert_int_eq(write(pipe_w, "x", 1), 1);
}

START_TEST(other_fd_wakes_a_quiet_node_set)
{
	int pfd[2];
	ck_assert_int_eq(pipe(pfd), 0);
	pipe_w = pfd[1];
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, later, (void *)pipe_gets_data), 0);
	struct pollfd p[2] = { { .fd = node, .events = POLLIN }, { .fd = pfd[0], .events = POLLIN } };
	int64_t left = -1;
	ck_assert_int_eq(fastpath_poll(p, 2, &left, wait_real, NULL), 1);
	pthread_join(t, NULL);
	ck_assert_int_eq(p[0].revents, 0);
	ck_assert_int_eq(p[1].revents, POLLIN);
	close(pfd[0]);
	close(pfd[1]);
}
END_TEST

/* POLLPRI (events), or no ring: the kernel's. */
START_TEST(other_events_go_to_the_kernel)
{
	publish(1);
	ck_assert_int_eq(poll_node(POLLIN | POLLPRI, 1000, NULL), -2);
	ck_assert_int_eq(poll_node(POLLOUT, 1000, NULL), -2);
	struct pollfd p = { .fd = 1000, .events = POLLIN };
	int64_t t = 0;
	ck_assert_int_eq(fastpath_poll(&p, 1, &t, wait_real, NULL), -2);
	ck_assert_int_eq(waits, 0);
}
END_TEST

/* The node fd closed by another thread while a poller waits on its
 * doorbell: ring, socket and doorbell stay until it leaves (the daemon's
 * release of the file then says "not quiet"), and go with it. */
static void *poller(void *arg)
{
	int *r = arg;
	*r = poll_node(POLLIN, 10000, NULL);
	return NULL;
}

START_TEST(close_while_polling_frees_after_the_poller)
{
	int r = 99;
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, poller, &r), 0);
	for (int i = 0; i < 500 && !__atomic_load_n(&ring->sleepers, __ATOMIC_ACQUIRE); i++)
		usleep(2000);
	ck_assert_uint_eq(ring->sleepers, 1);
	fastpath_forget(node); /* the app's close() */
	attached = false;
	ck_assert_int_ge(fcntl(bell, F_GETFD), 0); /* kept for the poller */
	set_pollable(0);      /* the daemon's release */
	pthread_join(t, NULL);
	ck_assert_int_eq(r, -2);
	/* the last poller out freed them */
	ck_assert_int_eq(fcntl(bell, F_GETFD), -1);
	ck_assert_int_eq(fcntl(sock[0], F_GETFD), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fastpath-poll");
	TCase *tc = tcase_create("poll");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, frame_waiting_is_pollin_without_a_system_call);
	tcase_add_test(tc, reused_fd_number_is_not_the_node);
	tcase_add_test(tc, reused_fd_number_caught_by_a_kernel_ioctl);
	tcase_add_test(tc, frame_waiting_and_other_fds);
	tcase_add_test(tc, quiet_node_waits_for_the_doorbell);
	tcase_add_test(tc, node_no_longer_quiet_goes_to_the_kernel);
	tcase_add_test(tc, daemon_end_goes_to_the_kernel);
	tcase_add_test(tc, quiet_node_times_out);
	tcase_add_test(tc, other_fd_wakes_a_quiet_node_set);
	tcase_add_test(tc, other_events_go_to_the_kernel);
	tcase_add_test(tc, close_while_polling_frees_after_the_poller);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

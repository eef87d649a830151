/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-hostile: every flood of issue 29 at once, from one user, for
 * tests/e2e/daemon-hostile.sh (another user's stream must not suffer):
 * - openers: processes that open the node until refused and hold it all;
 * - socket holders: processes that say HELLO (so that their user holds a
 *   token) and then keep as many idle connections to the buffer socket as
 *   the daemon takes, reconnecting as it closes them;
 * - a channel churner: fast-path channels opened on one file until
 *   refused, closed, opened again;
 * - a ring poster: a process that streams on its own queue and keeps
 *   storing a ring's worth of garbage posted QBUFs in its fast-path ring.
 * Each paces its attempts (10 to 100 ms apart, a few at a time): enough to
 * keep every limit reached and the daemon busy refusing, while the
 * flooders' own CPU (printed at the end) stays small, so that what alice
 * loses is the daemon's doing, not the guest's CPUs taken by bob. Prints
 * one line per kind with what the daemon granted and refused.
 * Usage: uvcuse-hostile NODE SECONDS */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "client/memfd_fetch.h" /* uvcuse_open_channel */
#include "uvcuse/uvcuse.h"

enum { OPENERS = 6, HOLDERS = 8, MAX_HELD = 64 };

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* opens until refused; holds them for the rest of the time */
static int opener(const char *node, double seconds)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int opened = 0, refused = 0, last_err = 0;
	while (seconds_since(&t0) < seconds) {
		if (open(node, O_RDWR | O_NONBLOCK) >= 0) {
			opened++;
			continue;
		}
		last_err = errno;
		refused++;
		usleep(100000);
	}
	printf("opener %d: %d files open, %d opens refused (last: %s)\n", (int)getpid(), opened,
	       refused, last_err ? strerror(last_err) : "none");
	return 0;
}

static int connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(s);
		return -1;
	}
	return s;
}

/* HELLO, then idle connections: as many as the daemon keeps */
static int holder(const char *node, double seconds)
{
	int fd = open(node, O_RDWR);
	struct uvcuse_hello h;
	if (fd < 0 || ioctl(fd, UVCUSE_IOC_HELLO, &h) < 0) {
		printf("holder %d: no HELLO: %s\n", (int)getpid(), strerror(errno));
		return 1;
	}
	int held[MAX_HELD], n = 0;
	unsigned long made = 0, ended = 0;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seconds_since(&t0) < seconds) {
		for (int k = 0; k < 4 && n < MAX_HELD; k++) {
			int s = connect_to(h.socket_path);
			if (s >= 0) {
				held[n++] = s;
				made++;
			}
		}
		for (int i = 0; i < n; i++) { /* the ones the daemon ended */
			char b;
			ssize_t r = recv(held[i], &b, 1, MSG_DONTWAIT);
			if (r == 0 || (r < 0 && errno != EAGAIN)) {
				close(held[i]);
				held[i--] = held[--n];
				ended++;
			}
		}
		usleep(50000);
	}
	printf("holder %d: %lu connections made, %lu ended by the daemon, %d held at the end\n",
	       (int)getpid(), made, ended, n);
	return 0;
}

/* channels on one file until refused, closed, again */
static int churner(const char *node, double seconds)
{
	int fd = open(node, O_RDWR);
	if (fd < 0)
		return 1;
	int socks[16], n = 0;
	unsigned long opened = 0, refused = 0;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seconds_since(&t0) < seconds) {
		bool ours;
		int ring_fd, bell_fd;
		int s = uvcuse_open_channel((uvcuse_ioctl_fn)ioctl, fd, &ours, &ring_fd, &bell_fd);
		if (ring_fd >= 0)
			close(ring_fd);
		if (bell_fd >= 0)
			close(bell_fd);
		if (s >= 0 && n < 16) {
			socks[n++] = s;
			opened++;
		} else {
			if (s >= 0)
				close(s);
			refused++;
			while (n)
				close(socks[--n]);
		}
		usleep(20000);
	}
	printf("churner: %lu channels opened, %lu refused\n", opened, refused);
	return 0;
}

/* its own stream, and a ring's worth of garbage posts stored again and
 * again */
static int poster(const char *node, double seconds)
{
	int fd = open(node, O_RDWR | O_NONBLOCK);
	struct v4l2_requestbuffers rb = { .count = 4, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (fd < 0 || ioctl(fd, VIDIOC_REQBUFS, &rb) < 0)
		return 1;
	for (unsigned i = 0; i < rb.count; i++) {
		struct v4l2_buffer b = { .index = i, .type = type, .memory = V4L2_MEMORY_MMAP };
		ioctl(fd, VIDIOC_QBUF, &b);
	}
	bool ours;
	int ring_fd, bell_fd;
	int s = uvcuse_open_channel((uvcuse_ioctl_fn)ioctl, fd, &ours, &ring_fd, &bell_fd);
	if (ioctl(fd, VIDIOC_STREAMON, &type) < 0 || s < 0 || ring_fd < 0) {
		printf("poster: no stream or no ring\n");
		return 1;
	}
	struct uvcuse_ring *ring =
		mmap(NULL, sizeof(*ring), PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
	if (ring == MAP_FAILED)
		return 1;
	for (unsigned i = 0; i < UVCUSE_RING_ENTRIES; i++)
		ring->post[i] = (struct uvcuse_ring_post){ .index = 99 };
	unsigned long stores = 0;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seconds_since(&t0) < seconds) {
		uint32_t consumed = __atomic_load_n(&ring->consumed, __ATOMIC_ACQUIRE);
		__atomic_store_n(&ring->posted, consumed + UVCUSE_RING_ENTRIES, __ATOMIC_RELEASE);
		stores++;
		usleep(10000);
	}
	printf("poster: %lu stores of %u garbage posts, %u run or skipped by the daemon\n",
	       stores, UVCUSE_RING_ENTRIES, __atomic_load_n(&ring->consumed, __ATOMIC_ACQUIRE));
	return 0;
}

static pid_t spawn(int (*fn)(const char *, double), const char *node, double seconds)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int status = fn(node, seconds);
		fflush(stdout);
		_exit(status);
	}
	return pid;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "Usage: uvcuse-hostile NODE SECONDS\n");
		return 2;
	}
	const char *node = argv[1];
	double seconds = atof(argv[2]);
	pid_t kids[OPENERS + HOLDERS + 2];
	int n = 0;
	/* the poster first (its channel needs a socket connection the holders
	 * would take), the openers last (they take every open file the user
	 * may have) */
	kids[n++] = spawn(poster, node, seconds);
	usleep(300000);
	kids[n++] = spawn(churner, node, seconds);
	for (int i = 0; i < HOLDERS; i++)
		kids[n++] = spawn(holder, node, seconds);
	usleep(500000);
	for (int i = 0; i < OPENERS; i++)
		kids[n++] = spawn(opener, node, seconds);
	int failed = 0;
	for (int i = 0; i < n; i++) {
		int st;
		if (kids[i] < 0 || waitpid(kids[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			failed++;
	}
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	printf("hostile: %d of %d flooders failed to start; they used %.2f s of CPU in %.0f s\n",
	       failed, n, (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, seconds);
	return failed ? 1 : 0;
}

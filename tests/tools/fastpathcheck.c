/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-fastpathcheck: the V4L2 semantics a streaming app relies on, as
 * an app sees them, for tests/e2e/daemon.sh to run under uvcuse-run with
 * the preload library's fast path on and off (UVCUSE_FASTPATH=0): the same
 * answers both ways, and the same as vb2's.
 *
 *   uvcuse-fastpathcheck NODE
 *
 * One line per check, "ok: ..." or "FAIL: ...", exit 0 when all pass:
 * blocking DQBUF in order; O_NONBLOCK (set by fcntl) gives EAGAIN; a
 * DQBUF blocked with nothing queued is ended EINVAL by another thread's
 * STREAMOFF; a signal without SA_RESTART ends it EINTR and the next
 * DQBUF works; DQBUF through a dup'd fd, and after closing the dup; a
 * forked child streaming on the inherited fd; two threads streaming on
 * one fd at once; poll() of the node with a frame done (with another fd in
 * the set), with every buffer dequeued (it waits; another thread's
 * STREAMOFF ends it POLLERR). And QBUF's answers, which the fast path gives without
 * waiting for the daemon (a posted QBUF): the same as QUERYBUF's right
 * after; a second QBUF of the buffer is EINVAL, also when the first went
 * through a dup'd fd; a STREAMOFF right after a
 * QBUF returns that buffer too (the daemon must not run them out of
 * order); after REQBUFS(0) a QBUF of a buffer held before is EINVAL. The
 * node must offer YUYV 640x480 (the vcam's default). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#define BUFFERS 4

static int fd;
static unsigned n_buffers;
static int failures;
static const int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;

static void report(bool ok, const char *what, int err)
{
	if (ok) {
		printf("ok: %s\n", what);
	} else {
		printf("FAIL: %s (%s)\n", what, err ? strerror(err) : "wrong answer");
		failures++;
	}
	fflush(stdout);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dqbuf(int f, struct v4l2_buffer *b)
{
	memset(b, 0, sizeof(*b));
	b->type = type;
	b->memory = V4L2_MEMORY_MMAP;
	return ioctl(f, VIDIOC_DQBUF, b);
}

static int qbuf(int f, unsigned index)
{
	struct v4l2_buffer b = { .index = index, .type = type, .memory = V4L2_MEMORY_MMAP };
	return ioctl(f, VIDIOC_QBUF, &b);
}

static bool queue_all(void)
{
	for (unsigned i = 0; i < n_buffers; i++)
		if (qbuf(fd, i) < 0)
			return false;
	return true;
}

/* n frames dequeued and queued again on f; sequence numbers must grow */
static bool stream_frames(int f, int n, int *err)
{
	int64_t last = -1;
	for (int i = 0; i < n; i++) {
		struct v4l2_buffer b;
		if (dqbuf(f, &b) < 0 || qbuf(f, b.index) < 0) {
			*err = errno;
			return false;
		}
		if ((int64_t)b.sequence <= last || !b.bytesused) {
			*err = 0;
			return false;
		}
		last = b.sequence;
	}
	return true;
}

static void *streamoff_later(void *arg)
{
	(void)arg;
	usleep(300000);
	ioctl(fd, VIDIOC_STREAMOFF, &type);
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

struct worker {
	int frames, err;
	bool ok;
};

static void *stream_worker(void *arg)
{
	struct worker *w = arg;
	w->ok = stream_frames(fd, w->frames, &w->err);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "Usage: uvcuse-fastpathcheck NODE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	struct v4l2_format fmt = { .type = type };
	fmt.fmt.pix = (struct v4l2_pix_format){ .width = 640, .height = 480,
						.pixelformat = V4L2_PIX_FMT_YUYV };
	struct v4l2_requestbuffers rb = { .count = BUFFERS, .type = type, .memory = V4L2_MEMORY_MMAP };
	if (ioctl(fd, VIDIOC_S_FMT, &fmt) < 0 || ioctl(fd, VIDIOC_REQBUFS, &rb) < 0 || rb.count < 2) {
		perror("S_FMT/REQBUFS");
		return 2;
	}
	n_buffers = rb.count;
	for (unsigned i = 0; i < n_buffers; i++) {
		struct v4l2_buffer b = { .index = i, .type = type, .memory = V4L2_MEMORY_MMAP };
		if (ioctl(fd, VIDIOC_QUERYBUF, &b) < 0 ||
		    mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd, b.m.offset) == MAP_FAILED) {
			perror("QUERYBUF/mmap");
			return 2;
		}
	}
	int err = 0;
	bool ok = queue_all() && ioctl(fd, VIDIOC_STREAMON, &type) == 0;
	report(ok, "QBUF every buffer, STREAMON", errno);
	ok = stream_frames(fd, 5, &err);
	report(ok, "blocking DQBUF and QBUF: 5 frames in order", err);

	/* every buffer taken out: nothing queued any more */
	struct v4l2_buffer b;
	unsigned held = 0;
	for (unsigned i = 0; i < n_buffers; i++)
		held += dqbuf(fd, &b) == 0;
	report(held == n_buffers, "every buffer dequeued", errno);
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	errno = 0;
	report(dqbuf(fd, &b) < 0 && errno == EAGAIN, "O_NONBLOCK (fcntl) DQBUF with nothing queued: EAGAIN",
	       errno == EAGAIN ? 0 : errno);
	fcntl(fd, F_SETFL, fl);

	/* another thread's STREAMOFF ends a blocked DQBUF */
	pthread_t t;
	double t0 = now_s();
	pthread_create(&t, NULL, streamoff_later, NULL);
	errno = 0;
	int r = dqbuf(fd, &b);
	int e = errno;
	double waited = now_s() - t0;
	pthread_join(t, NULL);
	report(r < 0 && e == EINVAL && waited > 0.2,
	       "DQBUF blocked with nothing queued, STREAMOFF from another thread: EINVAL", r < 0 ? 0 : e);

	/* a signal without SA_RESTART ends a blocked DQBUF with EINTR */
	struct sigaction sa = { .sa_handler = on_alarm };
	sigaction(SIGALRM, &sa, NULL);
	ok = ioctl(fd, VIDIOC_STREAMON, &type) == 0;
	ualarm(300000, 0);
	errno = 0;
	r = dqbuf(fd, &b);
	e = errno;
	report(ok && r < 0 && e == EINTR, "DQBUF blocked, SIGALRM without SA_RESTART: EINTR", r < 0 ? 0 : e);
	ok = queue_all() && stream_frames(fd, 3, &err);
	report(ok, "after the EINTR, QBUF and DQBUF go on: 3 frames", err);

	/* a dup'd fd is the same file */
	int d = dup(fd);
	ok = stream_frames(d, 3, &err);
	report(ok, "DQBUF/QBUF through a dup'd fd: 3 frames", err);
	close(d);
	ok = stream_frames(fd, 3, &err);
	report(ok, "the dup closed, the first fd goes on: 3 frames", err);

	/* a forked child streams on the inherited fd, then the parent */
	pid_t child = fork();
	if (child == 0)
		_exit(stream_frames(fd, 3, &err) ? 0 : 1);
	int status = -1;
	waitpid(child, &status, 0);
	report(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a forked child streams on the inherited fd: 3 frames", 0);
	ok = stream_frames(fd, 3, &err);
	report(ok, "the parent goes on after the child: 3 frames", err);

	/* two threads on one fd at once: the fast path takes one at a time,
	 * the other goes through CUSE; every call answers right */
	struct worker w1 = { .frames = 8 }, w2 = { .frames = 8 };
	pthread_t t1, t2;
	pthread_create(&t1, NULL, stream_worker, &w1);
	pthread_create(&t2, NULL, stream_worker, &w2);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	report(w1.ok && w2.ok, "two threads streaming on one fd: 8 frames each", w1.ok ? w2.err : w1.err);

	/* poll: a done buffer makes the node readable (the fast path answers
	 * from its ring, without the kernel), the other fds of the set are
	 * still answered; with every buffer dequeued it waits */
	int pfd[2];
	ok = pipe(pfd) == 0 && write(pfd[1], "x", 1) == 1;
	usleep(200000); /* frames done meanwhile */
	struct pollfd ps[2] = { { .fd = fd, .events = POLLIN }, { .fd = pfd[0], .events = POLLIN } };
	r = poll(ps, 2, 2000);
	report(ok && r == 2 && (ps[0].revents & POLLIN) && (ps[1].revents & POLLIN),
	       "poll of the node with a frame done and of a pipe with data: both readable", r < 0 ? errno : 0);
	close(pfd[0]);
	close(pfd[1]);
	held = 0;
	for (unsigned i = 0; i < n_buffers; i++)
		held += dqbuf(fd, &b) == 0;
	struct pollfd p1 = { .fd = fd, .events = POLLIN };
	t0 = now_s();
	r = poll(&p1, 1, 300);
	waited = now_s() - t0;
	report(held == n_buffers && r == 0 && waited > 0.25, "every buffer dequeued: poll waits and times out",
	       r < 0 ? errno : 0);
	/* another thread's STREAMOFF ends a poll waiting for a frame: POLLERR */
	t0 = now_s();
	pthread_create(&t, NULL, streamoff_later, NULL);
	r = poll(&p1, 1, 5000);
	waited = now_s() - t0;
	pthread_join(t, NULL);
	report(r == 1 && (p1.revents & POLLERR) && waited > 0.2 && waited < 4,
	       "poll waiting with every buffer dequeued, STREAMOFF from another thread: POLLERR",
	       r < 0 ? errno : 0);
	ok = ioctl(fd, VIDIOC_STREAMON, &type) == 0 && queue_all();
	r = poll(&p1, 1, 2000);
	report(ok && r == 1 && (p1.revents & POLLIN), "buffers queued again: poll readable", r < 0 ? errno : 0);

	/* QBUF's answer, given by the library without waiting on the fast
	 * path, is what the daemon then has: QUERYBUF says the same */
	ok = dqbuf(fd, &b) == 0;
	struct v4l2_buffer answer = b; /* DQBUF's answer passed back, as apps do */
	ok = ok && ioctl(fd, VIDIOC_QBUF, &answer) == 0;
	e = errno;
	struct v4l2_buffer query = { .index = b.index, .type = type, .memory = V4L2_MEMORY_MMAP };
	ok = ok && ioctl(fd, VIDIOC_QUERYBUF, &query) == 0;
	report(ok && memcmp(&answer, &query, sizeof(answer)) == 0 &&
		       (answer.flags & V4L2_BUF_FLAG_QUEUED) && !(answer.flags & V4L2_BUF_FLAG_DONE) &&
		       answer.bytesused == 0,
	       "QBUF's answer is QUERYBUF's right after it (queued, nothing used)", ok ? 0 : e);
	ok = dqbuf(fd, &b) == 0 && qbuf(fd, b.index) == 0;
	errno = 0;
	r = qbuf(fd, b.index);
	e = errno;
	report(ok && r < 0 && e == EINVAL, "a second QBUF of a queued buffer: EINVAL", r < 0 ? e : 0);

	/* a buffer queued through a dup'd fd: QBUF through the first fd, which
	 * dequeued it, is then a second QBUF (EINVAL), not answered from what
	 * the first fd knew */
	ok = dqbuf(fd, &b) == 0;
	d = dup(fd);
	ok = ok && qbuf(d, b.index) == 0;
	errno = 0;
	r = qbuf(fd, b.index);
	e = errno;
	close(d);
	report(ok && r < 0 && e == EINVAL, "a buffer queued through a dup'd fd, then through the first: EINVAL",
	       r < 0 ? e : 0);

	/* a STREAMOFF right after a QBUF: every buffer comes back, and all
	 * can be queued again (ten times: an order swapped would show) */
	ok = true;
	for (int round = 0; round < 10 && ok; round++) {
		ok = dqbuf(fd, &b) == 0 && qbuf(fd, b.index) == 0 &&
		     ioctl(fd, VIDIOC_STREAMOFF, &type) == 0 && queue_all() &&
		     ioctl(fd, VIDIOC_STREAMON, &type) == 0;
		e = errno;
	}
	report(ok, "QBUF then STREAMOFF at once, ten times: every buffer back and queued again", ok ? 0 : e);
	ok = stream_frames(fd, 3, &err);
	report(ok, "streaming goes on after: 3 frames", err);

	/* buffers freed: a QBUF of one held before is EINVAL */
	ok = dqbuf(fd, &b) == 0 && ioctl(fd, VIDIOC_STREAMOFF, &type) == 0;
	struct v4l2_requestbuffers none = { .count = 0, .type = type, .memory = V4L2_MEMORY_MMAP };
	ok = ok && ioctl(fd, VIDIOC_REQBUFS, &none) == 0;
	e = errno;
	errno = 0;
	r = qbuf(fd, b.index);
	report(ok && r < 0 && errno == EINVAL, "STREAMOFF, REQBUFS(0), then QBUF of a buffer held before: EINVAL",
	       ok ? (r < 0 ? errno : 0) : e);

	close(fd);
	printf("%s\n", failures ? "verdict: fail" : "verdict: pass");
	return failures ? 1 : 0;
}

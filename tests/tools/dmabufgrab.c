/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-dmabufgrab: captures into another driver's dma-bufs
 * (V4L2_MEMORY_DMABUF), as a GPU pipeline importing a camera's frames
 * would. The dma-bufs are EXPBUF'd from EXPORTER (vivid's capture node,
 * whose current format must hold the camera's frame), and COUNT frames are
 * captured from NODE's current format into them and written to OUT, read
 * through the dma-bufs' own mappings.
 *
 * It prints a transcript of vb2's answers to meet, one a line, with fd
 * numbers as relations (so that uvcvideo's and uvcuse's transcripts can be
 * compared with diff): a bad fd, a file that is no dma-buf, lengths short
 * of the frame and beyond the dma-buf, QUERYBUF and DQBUF's m.fd and
 * length, a queued buffer queued again; while streaming, a buffer moved to
 * another dma-buf, and a dma-buf whose fd the app closed after queueing it
 * (still filled, its number no longer accepted). Exit 1 on any frame whose
 * answer is not what vb2 gives. On uvcuse it runs under uvcuse-run, which
 * hands the dma-bufs to the daemon.
 * Usage: uvcuse-dmabufgrab NODE EXPORTER COUNT OUT */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/videodev2.h>

#define NBUF 4
#define NEXP (NBUF + 2) /* two spares: a move, and a closed fd's successor */

struct exported {
	int fd;
	size_t size;
	const uint8_t *map;
};

static struct exported exp_bufs[NEXP];
static int node = -1;
static int queued_fd[NBUF]; /* the fd each buffer was last queued with */
static unsigned failures;

static void die(const char *what)
{
	fprintf(stderr, "uvcuse-dmabufgrab: %s: %s\n", what, strerror(errno));
	exit(2);
}

static const char *err_name(int r)
{
	if (r == 0)
		return "0";
	switch (errno) {
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EBADF: return "EBADF";
	case ENOTTY: return "ENOTTY";
	default: return strerrorname_np(errno) ? strerrorname_np(errno) : "?";
	}
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;
	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

static void expect(bool ok, const char *what)
{
	if (!ok) {
		printf("MISMATCH: %s\n", what);
		failures++;
	}
}

/* NEXP MMAP buffers of the exporter, exported and mapped for reading. */
static void export_buffers(const char *path)
{
	int e = open(path, O_RDWR);
	if (e < 0)
		die(path);
	struct v4l2_requestbuffers rb = { .count = NEXP, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	if (xioctl(e, VIDIOC_REQBUFS, &rb) < 0 || rb.count < NEXP)
		die("the exporter's REQBUFS");
	for (unsigned i = 0; i < NEXP; i++) {
		struct v4l2_exportbuffer x = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .index = i,
					       .flags = O_RDWR | O_CLOEXEC };
		if (xioctl(e, VIDIOC_EXPBUF, &x) < 0)
			die("the exporter's EXPBUF");
		off_t size = lseek(x.fd, 0, SEEK_END);
		if (size <= 0)
			die("a dma-buf's size");
		const uint8_t *map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, x.fd, 0);
		if (map == MAP_FAILED)
			die("mmap of a dma-buf");
		exp_bufs[i] = (struct exported){ x.fd, (size_t)size, map };
	}
	/* the exporter's fd may go: the dma-bufs keep its buffers */
	close(e);
}

static int qbuf(unsigned index, int fd, uint32_t length)
{
	struct v4l2_buffer b = { .index = index, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				 .memory = V4L2_MEMORY_DMABUF, .length = length };
	b.m.fd = fd;
	int r = xioctl(node, VIDIOC_QBUF, &b);
	if (r == 0)
		queued_fd[index] = fd;
	return r;
}

static struct v4l2_buffer querybuf(unsigned index)
{
	struct v4l2_buffer b = { .index = index, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	if (xioctl(node, VIDIOC_QUERYBUF, &b) < 0)
		die("QUERYBUF");
	return b;
}

static const struct exported *exported_of(int fd)
{
	for (unsigned i = 0; i < NEXP; i++)
		if (exp_bufs[i].fd == fd)
			return &exp_bufs[i];
	return NULL;
}

/* vb2's answers before streaming; sizeimage: the node's frame size. */
static void setup_answers(uint32_t sizeimage)
{
	struct v4l2_requestbuffers rb = { .count = NBUF, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_DMABUF };
	int r = xioctl(node, VIDIOC_REQBUFS, &rb);
	printf("reqbufs dmabuf %u: %s count %u, caps DMABUF %s\n", NBUF, err_name(r), rb.count,
	       rb.capabilities & V4L2_BUF_CAP_SUPPORTS_DMABUF ? "yes" : "no");
	if (r < 0 || rb.count != NBUF)
		exit(1);
	struct v4l2_buffer b = querybuf(0);
	printf("querybuf before qbuf: m.fd %d, length %s\n", b.m.fd,
	       b.length == sizeimage ? "sizeimage" : "other");
	printf("qbuf fd -1: %s\n", err_name(qbuf(0, -1, 0)));
	int memfd = memfd_create("not-a-dmabuf", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, (off_t)exp_bufs[0].size) < 0)
		die("memfd");
	printf("qbuf a memfd: %s\n", err_name(qbuf(0, memfd, 0)));
	close(memfd);
	printf("qbuf length sizeimage - 1: %s\n", err_name(qbuf(0, exp_bufs[0].fd, sizeimage - 1)));
	printf("qbuf length beyond the dma-buf: %s\n",
	       err_name(qbuf(0, exp_bufs[0].fd, (uint32_t)exp_bufs[0].size + 4096)));
	for (unsigned i = 0; i < NBUF; i++) {
		r = qbuf(i, exp_bufs[i].fd, i == 1 ? sizeimage : 0);
		printf("qbuf %u length %s: %s\n", i, i == 1 ? "sizeimage" : "0", err_name(r));
	}
	b = querybuf(0);
	printf("querybuf queued: m.fd %s, length %s, queued %s\n",
	       b.m.fd == exp_bufs[0].fd ? "the one queued" : "another",
	       b.length == exp_bufs[0].size ? "the dma-buf's" : "other",
	       b.flags & V4L2_BUF_FLAG_QUEUED ? "yes" : "no");
	printf("querybuf 1: length %s\n", querybuf(1).length == sizeimage ? "sizeimage" : "other");
	printf("qbuf 0 again: %s\n", err_name(qbuf(0, exp_bufs[0].fd, 0)));
}

static struct v4l2_buffer dqbuf(void)
{
	struct pollfd p = { .fd = node, .events = POLLIN };
	if (poll(&p, 1, 5000) != 1)
		die("no frame in 5 s");
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				 .memory = V4L2_MEMORY_DMABUF };
	if (xioctl(node, VIDIOC_DQBUF, &b) < 0)
		die("DQBUF");
	return b;
}

/* The dma-bufs' twists while streaming. */
static struct {
	bool moved;               /* buffer 0 went to the spare dma-buf */
	int closed_fd;            /* a queued dma-buf whose fd was closed, or -1 */
	const struct exported *closed;
	bool closed_back;         /* ...and it came back filled */
} twist = { .closed_fd = -1 };

/* The fd to queue buffer b with again: buffer 0 moves to a spare dma-buf
 * once a third of the frames are in; at half, a buffer is queued with the
 * last spare whose fd is then closed (vb2 keeps the dma-buf: it is still
 * filled, and DQBUF still names the number), and when it comes back that
 * number is refused and buffer 0's first dma-buf, free since the move,
 * takes its place. -1: queued here already. */
static int requeue_fd(unsigned n, unsigned count, const struct v4l2_buffer *b)
{
	if (!twist.moved && b->index == 0 && n >= count / 3) {
		twist.moved = true;
		printf("buffer 0 moved to another dma-buf: %s\n",
		       err_name(qbuf(0, exp_bufs[NBUF].fd, 0)));
		return -1;
	}
	if (twist.moved && twist.closed_fd < 0 && b->index != 0 && n >= count / 2) {
		twist.closed = &exp_bufs[NBUF + 1];
		twist.closed_fd = twist.closed->fd;
		if (qbuf(b->index, twist.closed_fd, 0) < 0)
			die("QBUF of the last spare");
		close(twist.closed_fd);
		printf("a queued dma-buf's fd closed\n");
		return -1;
	}
	if (b->m.fd == twist.closed_fd && !twist.closed_back) {
		twist.closed_back = true;
		printf("it came back filled; qbuf with its closed number: %s\n",
		       err_name(qbuf(b->index, twist.closed_fd, 0)));
		return exp_bufs[0].fd;
	}
	return queued_fd[b->index];
}

static const struct exported *filled(const struct v4l2_buffer *b)
{
	if (b->index >= NBUF || b->m.fd != queued_fd[b->index])
		return NULL;
	if (b->m.fd == twist.closed_fd && !twist.closed_back)
		return twist.closed;
	return exported_of(b->m.fd);
}

static void stream(unsigned count, FILE *out)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	printf("streamon: %s\n", err_name(xioctl(node, VIDIOC_STREAMON, &type)));
	for (unsigned n = 0; n < count; n++) {
		struct v4l2_buffer b = dqbuf();
		const struct exported *e = filled(&b);
		expect(e, "DQBUF's m.fd is not the fd the buffer was queued with");
		if (!e)
			continue;
		expect(b.bytesused <= b.length && b.length <= e->size, "DQBUF's bytesused or length");
		if (fwrite(e->map, 1, b.bytesused, out) != b.bytesused)
			die("OUT");
		int fd = requeue_fd(n, count, &b);
		if (fd >= 0 && qbuf(b.index, fd, 0) < 0)
			die("QBUF");
	}
	expect(twist.closed_back, "the dma-buf whose fd was closed never came back");
	printf("frames: %u\n", count);
	printf("streamoff: %s\n", err_name(xioctl(node, VIDIOC_STREAMOFF, &type)));
	struct v4l2_requestbuffers rb = { .count = 0, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_DMABUF };
	printf("reqbufs 0: %s\n", err_name(xioctl(node, VIDIOC_REQBUFS, &rb)));
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: uvcuse-dmabufgrab NODE EXPORTER COUNT OUT\n");
		return 2;
	}
	unsigned count = (unsigned)atoi(argv[3]);
	if (count < 30) /* room for the twists: 4 buffers cycle between them */
		count = 30;
	node = open(argv[1], O_RDWR);
	if (node < 0)
		die(argv[1]);
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	if (xioctl(node, VIDIOC_G_FMT, &f) < 0)
		die("G_FMT");
	export_buffers(argv[2]);
	if (exp_bufs[0].size < f.fmt.pix.sizeimage) {
		fprintf(stderr, "uvcuse-dmabufgrab: the exporter's buffers (%zu bytes) cannot hold "
				"a %u-byte frame\n", exp_bufs[0].size, f.fmt.pix.sizeimage);
		return 2;
	}
	FILE *out = fopen(argv[4], "wb");
	if (!out)
		die(argv[4]);
	setup_answers(f.fmt.pix.sizeimage);
	stream(count, out);
	if (fclose(out))
		die(argv[4]);
	printf("verdict: %s\n", failures ? "FAIL" : "ok");
	return failures ? 1 : 0;
}

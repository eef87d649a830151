/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-metagrab: streams a camera's video node (YUYV, MMAP) and its
 * metadata node (UVCH, MMAP or USERPTR) at once, as an app pairing frames
 * with their payload headers would, and checks the pairing: each metadata
 * buffer's sequence is a video frame's, with the same timestamp, and the
 * PTS of its blocks is the one uvcuse-vcam stamped on that frame (its
 * clock at the exposure time the frame's stamp carries, the vcam's
 * nominal 48 MHz clock). With UVCM (Microsoft's metadata, uvcuse-vcam
 * --msxu) each block is the whole header, whose metadata item must carry
 * the frame's own sequence number (its stamp's). Prints a line per buffer
 * and a verdict; exit 1 on any mismatch. MMAP needs the preload library
 * (uvcuse-run) on uvcuse. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/usb/video.h>
#include <linux/uvcvideo.h>
#include <linux/videodev2.h>

#include "stamp.h"

#define NBUF 4
#define MAX_FRAMES 1024
#define VCAM_CLOCK_HZ 48000000u /* tests/vcam/descriptors.h */
#define VCAM_MSXU_ITEM_ID 0x80000001u /* tests/vcam/payload.h */
#ifndef V4L2_META_FMT_UVC_MSXU_1_5
#define V4L2_META_FMT_UVC_MSXU_1_5 v4l2_fourcc('U', 'V', 'C', 'M')
#endif

struct node {
	int fd;
	unsigned type, memory;
	void *mem[NBUF];
	size_t len[NBUF];
};

/* What a video frame and a metadata buffer said. */
struct seen {
	bool have;
	uint64_t ts_us;
	uint64_t exposure_ns; /* the video frame's stamp (0: none) */
	uint32_t camera_seq;  /* the video frame's stamp; the UVCM item's */
	bool has_item;
	uint32_t pts;         /* the metadata buffer's (has_pts) */
	bool has_pts;
	unsigned blocks;
};
static struct seen video[MAX_FRAMES], meta[MAX_FRAMES];
static bool whole_headers; /* UVCM */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	int r;
	do
		r = ioctl(fd, cmd, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void setup(struct node *n, unsigned type, unsigned memory)
{
	struct v4l2_requestbuffers rb = { .count = NBUF, .type = type, .memory = memory };
	n->type = type;
	n->memory = memory;
	if (xioctl(n->fd, VIDIOC_REQBUFS, &rb) < 0 || rb.count != NBUF)
		die("REQBUFS");
	for (unsigned i = 0; i < NBUF; i++) {
		struct v4l2_buffer b = { .index = i, .type = type, .memory = memory };
		if (xioctl(n->fd, VIDIOC_QUERYBUF, &b) < 0)
			die("QUERYBUF");
		n->len[i] = b.length;
		if (memory == V4L2_MEMORY_MMAP) {
			n->mem[i] = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, n->fd,
					 b.m.offset);
			if (n->mem[i] == MAP_FAILED)
				die("mmap (run under uvcuse-run)");
		} else if (!(n->mem[i] = calloc(1, b.length))) {
			die("calloc");
		}
		b.m.userptr = memory == V4L2_MEMORY_USERPTR ? (unsigned long)n->mem[i] : b.m.userptr;
		if (xioctl(n->fd, VIDIOC_QBUF, &b) < 0)
			die("QBUF");
	}
	if (xioctl(n->fd, VIDIOC_STREAMON, &(int){ (int)type }) < 0)
		die("STREAMON");
}

/* The blocks of a metadata buffer (struct uvc_meta_buf, back to back): how
 * many, the PTS of the first that has one, and whether every block's PTS
 * agrees with it (one frame's payloads share theirs). */
static bool parse_blocks(const uint8_t *p, size_t len, struct seen *s)
{
	size_t off = 0;
	bool same = true;
	while (off + 12 <= len) {
		uint8_t hlen = p[off + 10], flags = p[off + 11];
		size_t keep = 2 + ((flags & UVC_STREAM_PTS) ? 4 : 0) + ((flags & UVC_STREAM_SCR) ? 6 : 0);
		if (whole_headers)
			keep = hlen;
		if (hlen < 2 || off + 10 + keep > len)
			return false;
		/* UVCM: the item after the standard 12 bytes (one in each) */
		if (whole_headers && keep >= 12 + 12 && le32(p + off + 22) == VCAM_MSXU_ITEM_ID) {
			uint32_t seq = le32(p + off + 30);
			same = same && (!s->has_item || seq == s->camera_seq);
			s->camera_seq = seq;
			s->has_item = true;
		}
		if (flags & UVC_STREAM_PTS) {
			uint32_t pts;
			memcpy(&pts, p + off + 12, 4);
			same = same && (!s->has_pts || pts == s->pts);
			s->pts = pts;
			s->has_pts = true;
		}
		s->blocks++;
		off += 10 + keep;
	}
	return off == len && same;
}

static uint64_t ts_us(const struct v4l2_buffer *b)
{
	return (uint64_t)b->timestamp.tv_sec * 1000000u + (uint64_t)b->timestamp.tv_usec;
}

static unsigned dq_video(struct node *n, unsigned w, unsigned h)
{
	struct v4l2_buffer b = { .type = n->type, .memory = n->memory };
	if (xioctl(n->fd, VIDIOC_DQBUF, &b) < 0)
		die("video DQBUF");
	struct stamp st = { 0 };
	int r = stamp_read(PICTURE_YUYV, n->mem[b.index], w, h, &st);
	printf("video seq %u ts %" PRIu64 " flags 0x%x stamp %s t %" PRIu64 "\n", b.sequence,
	       ts_us(&b), b.flags, r ? "none" : "ok", st.time_ns);
	if (b.sequence < MAX_FRAMES)
		video[b.sequence] = (struct seen){ .have = true, .ts_us = ts_us(&b),
						   .exposure_ns = r ? 0 : st.time_ns,
						   .camera_seq = st.sequence };
	uint32_t sequence = b.sequence; /* QBUF's answer clears it */
	if (xioctl(n->fd, VIDIOC_QBUF, &b) < 0)
		die("video QBUF");
	return sequence;
}

static int dq_meta(struct node *n)
{
	struct v4l2_buffer b = { .type = n->type, .memory = n->memory };
	if (xioctl(n->fd, VIDIOC_DQBUF, &b) < 0)
		die("meta DQBUF");
	struct seen s = { .have = true, .ts_us = ts_us(&b) };
	bool ok = parse_blocks(n->mem[b.index], b.bytesused, &s);
	printf("meta seq %u ts %" PRIu64 " flags 0x%x bytes %u blocks %u pts %08x%s\n", b.sequence,
	       s.ts_us, b.flags, b.bytesused, s.blocks, s.pts, ok ? "" : " MALFORMED");
	if (b.sequence < MAX_FRAMES)
		meta[b.sequence] = s;
	if (n->memory == V4L2_MEMORY_USERPTR) {
		b.m.userptr = (unsigned long)n->mem[b.index];
		b.length = (uint32_t)n->len[b.index];
	}
	if (xioctl(n->fd, VIDIOC_QBUF, &b) < 0)
		die("meta QBUF");
	return ok ? 0 : 1;
}

/* The vcam's clock at t: VCAM_CLOCK_HZ ticks a second, modulo 2^32. */
static uint32_t vcam_pts(uint64_t t)
{
	return (uint32_t)((t / 1000) * (VCAM_CLOCK_HZ / 1000000u) +
			  (t % 1000) * (VCAM_CLOCK_HZ / 1000000u) / 1000);
}

/* Every metadata buffer up to the app's last frame pairs with a frame. */
static int verdict(unsigned last_video)
{
	unsigned paired = 0, bad = 0;
	for (unsigned i = 0; i <= last_video && i < MAX_FRAMES; i++) {
		if (!meta[i].have)
			continue;
		const char *why = !video[i].have		      ? "no video frame of that sequence"
				  : video[i].ts_us != meta[i].ts_us   ? "timestamp differs"
				  : !meta[i].has_pts		      ? "no PTS"
				  : !video[i].exposure_ns	      ? "the frame has no stamp"
				  : vcam_pts(video[i].exposure_ns) != meta[i].pts ? "PTS is not the vcam's"
				  : whole_headers && !meta[i].has_item ? "no Microsoft metadata item"
				  : whole_headers && meta[i].camera_seq != video[i].camera_seq
					  ? "its metadata item names another frame"
					  : NULL;
		if (why) {
			printf("metadata buffer %u: %s\n", i, why);
			bad++;
		} else {
			paired++;
		}
	}
	printf("paired: %u metadata buffers with their frames, %u mismatched\n", paired, bad);
	/* the app takes both in turn: a few metadata buffers may be missing
	 * (none queued in time), not most */
	return bad || paired < last_video / 2 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "Usage: uvcuse-metagrab VIDEO META FRAMES [mmap|userptr] [uvch|uvcm]\n");
		return 2;
	}
	struct node v = { .fd = open(argv[1], O_RDWR) }, m = { .fd = open(argv[2], O_RDWR) };
	unsigned want = (unsigned)atoi(argv[3]);
	if (v.fd < 0 || m.fd < 0)
		die("open");
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	if (xioctl(v.fd, VIDIOC_G_FMT, &f) < 0 || f.fmt.pix.pixelformat != V4L2_PIX_FMT_YUYV)
		die("G_FMT (YUYV needed)");
	if (argc > 5 && !strcmp(argv[5], "uvcm")) {
		struct v4l2_format mf = { .type = V4L2_BUF_TYPE_META_CAPTURE };
		mf.fmt.meta.dataformat = V4L2_META_FMT_UVC_MSXU_1_5;
		mf.fmt.meta.buffersize = 65536;
		if (xioctl(m.fd, VIDIOC_S_FMT, &mf) < 0 ||
		    mf.fmt.meta.dataformat != V4L2_META_FMT_UVC_MSXU_1_5)
			die("S_FMT UVCM (not offered)");
		whole_headers = true;
	}
	setup(&m, V4L2_BUF_TYPE_META_CAPTURE,
	      argc > 4 && !strcmp(argv[4], "userptr") ? V4L2_MEMORY_USERPTR : V4L2_MEMORY_MMAP);
	setup(&v, V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_MEMORY_MMAP);
	unsigned frames = 0, malformed = 0, last = 0;
	while (frames < want && want < MAX_FRAMES) {
		struct pollfd p[2] = { { v.fd, POLLIN, 0 }, { m.fd, POLLIN, 0 } };
		if (poll(p, 2, 5000) <= 0)
			die("poll (no frame in 5 s)");
		if (p[1].revents & POLLIN)
			malformed += (unsigned)dq_meta(&m);
		if (p[0].revents & POLLIN) {
			unsigned seq = dq_video(&v, f.fmt.pix.width, f.fmt.pix.height);
			last = seq > last ? seq : last;
			frames++;
		}
	}
	xioctl(v.fd, VIDIOC_STREAMOFF, &(int){ V4L2_BUF_TYPE_VIDEO_CAPTURE });
	xioctl(m.fd, VIDIOC_STREAMOFF, &(int){ V4L2_BUF_TYPE_META_CAPTURE });
	if (malformed)
		printf("%u malformed metadata buffers\n", malformed);
	return verdict(last) || malformed;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-abiclient: one V4L2 client built three times, as a 64-bit
 * program, a 32-bit one with 64-bit time and a 32-bit one with 32-bit time
 * (uvcuse-abiclient32, uvcuse-abiclient32-time32), so that every ioctl whose
 * layout differs between the ABIs is asked the same way by each. It prints
 * a transcript of what the node answers that does not depend on the ABI,
 * the moment or the driver (formats, inputs, controls, control events,
 * buffers), then streams FRAMES frames with MMAP (through the preload
 * library, as uvcuse needs; each waited for in ppoll()) and FRAMES with
 * USERPTR (in a blocking DQBUF), checks each buffer's
 * sequence, timestamp (against CLOCK_MONOTONIC) and size, and writes the
 * frames to PREFIX.mmap and PREFIX.userptr for uvcuse-framecheck. The
 * transcripts of uvcvideo and uvcuse, and of the three builds, are diffed
 * by tests/e2e/daemon-abi32.sh.
 * Usage: uvcuse-abiclient DEVICE PREFIX FRAMES */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#define NBUF 4
#define WIDTH 640
#define HEIGHT 480

static int fd;
static int failures;

static int xioctl(unsigned long cmd, void *arg)
{
	int r;
	do
		r = ioctl(fd, cmd, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	failures++;
}

static const char *fourcc(uint32_t f)
{
	static char s[5];
	for (int i = 0; i < 4; i++)
		s[i] = (char)((f >> (8 * i)) & 0xff);
	return s;
}

static void show_input(void)
{
	struct v4l2_input in = { .index = 0 };
	int r = xioctl(VIDIOC_ENUMINPUT, &in);
	printf("enuminput 0: %d %s type %u std 0x%llx status 0x%x caps 0x%x\n", r,
	       r ? "" : (char *)in.name, in.type, (unsigned long long)in.std, in.status,
	       in.capabilities);
	in.index = 1;
	printf("enuminput 1: %d\n", xioctl(VIDIOC_ENUMINPUT, &in));
}

static void show_pix(const char *what, int r, const struct v4l2_format *f)
{
	const struct v4l2_pix_format *p = &f->fmt.pix;
	printf("%s: %d %s %ux%u bpl %u size %u field %u colorspace %u\n", what, r,
	       fourcc(p->pixelformat), p->width, p->height, p->bytesperline, p->sizeimage,
	       p->field, p->colorspace);
}

static void show_formats(void)
{
	struct v4l2_fmtdesc d = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	for (d.index = 0; xioctl(VIDIOC_ENUM_FMT, &d) == 0; d.index++)
		printf("format %u: %s flags 0x%x %s\n", d.index, fourcc(d.pixelformat), d.flags,
		       (char *)d.description);
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	f.fmt.pix = (struct v4l2_pix_format){ .width = 1280, .height = 720,
					      .pixelformat = V4L2_PIX_FMT_MJPEG };
	show_pix("try_fmt MJPG 1280x720", xioctl(VIDIOC_TRY_FMT, &f), &f);
	f.fmt.pix = (struct v4l2_pix_format){ .width = WIDTH, .height = HEIGHT,
					      .pixelformat = V4L2_PIX_FMT_YUYV };
	show_pix("s_fmt YUYV", xioctl(VIDIOC_S_FMT, &f), &f);
	memset(&f.fmt, 0xff, sizeof(f.fmt));
	show_pix("g_fmt", xioctl(VIDIOC_G_FMT, &f), &f);
	f.type = V4L2_BUF_TYPE_VIDEO_OVERLAY;
	printf("g_fmt overlay: %d\n", xioctl(VIDIOC_G_FMT, &f));
	struct v4l2_streamparm p = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	p.parm.capture.timeperframe = (struct v4l2_fract){ 1, 15 };
	int r = xioctl(VIDIOC_S_PARM, &p);
	printf("s_parm 1/15: %d %u/%u\n", r, p.parm.capture.timeperframe.numerator,
	       p.parm.capture.timeperframe.denominator);
}

static void show_controls(void)
{
	struct v4l2_query_ext_ctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
	while (xioctl(VIDIOC_QUERY_EXT_CTRL, &q) == 0) {
		printf("control 0x%08x %s: type %u %lld..%lld/%llu def %lld flags 0x%x\n", q.id,
		       q.name, q.type, (long long)q.minimum, (long long)q.maximum,
		       (unsigned long long)q.step, (long long)q.default_value, q.flags);
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	struct v4l2_querymenu m = { .id = V4L2_CID_POWER_LINE_FREQUENCY };
	for (m.index = 0; m.index < 4; m.index++)
		if (xioctl(VIDIOC_QUERYMENU, &m) == 0)
			printf("menu power_line_frequency %u: %s\n", m.index, m.name);
	struct v4l2_control c = { .id = V4L2_CID_BRIGHTNESS, .value = 10 };
	printf("s_ctrl brightness 10: %d\n", xioctl(VIDIOC_S_CTRL, &c));
	c.value = 0;
	int r = xioctl(VIDIOC_G_CTRL, &c);
	printf("g_ctrl brightness: %d %d\n", r, c.value);
}

/* G/S/TRY_EXT_CTRLS: the array through the 32-bit pointer, error_idx back. */
static void show_ext_controls(void)
{
	struct v4l2_ext_control ctl[2] = { { .id = V4L2_CID_BRIGHTNESS, .value = 20 },
					   { .id = V4L2_CID_CONTRAST, .value = 40 } };
	struct v4l2_ext_controls cs = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 2,
					.controls = ctl };
	printf("s_ext_ctrls brightness 20 contrast 40: %d\n", xioctl(VIDIOC_S_EXT_CTRLS, &cs));
	ctl[0].value = ctl[1].value = -1;
	int r = xioctl(VIDIOC_G_EXT_CTRLS, &cs);
	printf("g_ext_ctrls: %d %d %d\n", r, ctl[0].value, ctl[1].value);
	struct v4l2_ext_control bad[2] = { { .id = V4L2_CID_BRIGHTNESS, .value = 1 },
					   { .id = V4L2_CID_POWER_LINE_FREQUENCY, .value = 7 } };
	cs.controls = bad;
	r = xioctl(VIDIOC_TRY_EXT_CTRLS, &cs);
	printf("try_ext_ctrls power_line_frequency 7: %d error_idx %u\n", r, cs.error_idx);
	cs.which = V4L2_CTRL_WHICH_DEF_VAL;
	cs.controls = ctl;
	r = xioctl(VIDIOC_G_EXT_CTRLS, &cs);
	printf("g_ext_ctrls default: %d %d %d\n", r, ctl[0].value, ctl[1].value);
}

/* The event's time is CLOCK_MONOTONIC's, within a few seconds of now. */
static bool recent(long long sec, long long frac, long long per_sec)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double t = (double)sec + (double)frac / (double)per_sec;
	double n = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	return frac >= 0 && frac < per_sec && t <= n + 0.001 && t > n - 10;
}

static void show_event(const char *what)
{
	struct v4l2_event e;
	memset(&e, 0xa5, sizeof(e));
	int r = xioctl(VIDIOC_DQEVENT, &e);
	if (r) {
		printf("%s: %d\n", what, r);
		return;
	}
	printf("%s: type %u id 0x%x changes 0x%x value %d flags 0x%x %d..%d/%d def %d "
	       "pending %u sequence %u\n", what, e.type, e.id, e.u.ctrl.changes, e.u.ctrl.value,
	       e.u.ctrl.flags, e.u.ctrl.minimum, e.u.ctrl.maximum, e.u.ctrl.step,
	       e.u.ctrl.default_value, e.pending, e.sequence);
	if (!recent((long long)e.timestamp.tv_sec, (long long)e.timestamp.tv_nsec, 1000000000))
		fail("%s: timestamp %lld.%09lld is not now", what, (long long)e.timestamp.tv_sec,
		     (long long)e.timestamp.tv_nsec);
}

static void show_events(void)
{
	struct v4l2_event_subscription s = {
		.type = V4L2_EVENT_CTRL, .id = V4L2_CID_BRIGHTNESS,
		.flags = V4L2_EVENT_SUB_FL_SEND_INITIAL | V4L2_EVENT_SUB_FL_ALLOW_FEEDBACK
	};
	printf("subscribe brightness: %d\n", xioctl(VIDIOC_SUBSCRIBE_EVENT, &s));
	show_event("dqevent initial");
	struct v4l2_control c = { .id = V4L2_CID_BRIGHTNESS, .value = 30 };
	printf("s_ctrl brightness 30: %d\n", xioctl(VIDIOC_S_CTRL, &c));
	show_event("dqevent change");
	/* none left: ENOENT without waiting (the flag reaches uvcuse through
	 * the preload library's fcntl) */
	int flags = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	show_event("dqevent none");
	fcntl(fd, F_SETFL, flags);
	printf("unsubscribe: %d\n", xioctl(VIDIOC_UNSUBSCRIBE_EVENT, &s));
}

/* REQBUFS 2, CREATE_BUFS 1 more of G_FMT's format, QUERYBUF of it. */
static void show_create_bufs(void)
{
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	int r = xioctl(VIDIOC_REQBUFS, &rb);
	printf("reqbufs mmap 2: %d count %u\n", r, rb.count);
	struct v4l2_create_buffers cb = { .count = 1, .memory = V4L2_MEMORY_MMAP };
	cb.format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	xioctl(VIDIOC_G_FMT, &cb.format);
	r = xioctl(VIDIOC_CREATE_BUFS, &cb);
	printf("create_bufs 1: %d index %u count %u %s %ux%u\n", r, cb.index, cb.count,
	       fourcc(cb.format.fmt.pix.pixelformat), cb.format.fmt.pix.width,
	       cb.format.fmt.pix.height);
	struct v4l2_buffer b = { .index = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				 .memory = V4L2_MEMORY_MMAP };
	r = xioctl(VIDIOC_QUERYBUF, &b);
	printf("querybuf 2: %d length %u flags 0x%x\n", r, b.length, b.flags);
	rb.count = 0;
	printf("reqbufs 0: %d\n", xioctl(VIDIOC_REQBUFS, &rb));
}

struct stream {
	const char *name;
	enum v4l2_memory memory;
	void *mem[NBUF];
	size_t len[NBUF];
	uint32_t sizeimage;
};

/* REQBUFS, the memory (mapped or the client's own), every buffer queued;
 * the first USERPTR one prepared first. */
static bool setup_buffers(struct stream *s)
{
	struct v4l2_requestbuffers rb = { .count = NBUF, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = s->memory };
	int r = xioctl(VIDIOC_REQBUFS, &rb);
	printf("%s: reqbufs %d: %d count %u\n", s->name, NBUF, r, rb.count);
	if (r || rb.count != NBUF)
		return false;
	for (unsigned i = 0; i < NBUF; i++) {
		struct v4l2_buffer b = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					 .memory = s->memory };
		if (s->memory == V4L2_MEMORY_MMAP) {
			if (xioctl(VIDIOC_QUERYBUF, &b))
				return false;
			s->len[i] = b.length;
			s->mem[i] = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
					 b.m.offset);
			if (s->mem[i] == MAP_FAILED)
				return fail("%s: mmap: %s", s->name, strerror(errno)), false;
		} else {
			s->len[i] = (s->sizeimage + 4095) & ~4095u;
			s->mem[i] = aligned_alloc(4096, s->len[i]);
			b.m.userptr = (unsigned long)s->mem[i];
			b.length = (uint32_t)s->len[i];
		}
		if (s->memory == V4L2_MEMORY_USERPTR && i == 0)
			printf("%s: prepare_buf 0: %d\n", s->name, xioctl(VIDIOC_PREPARE_BUF, &b));
		r = xioctl(VIDIOC_QBUF, &b);
		if (r)
			return fail("%s: qbuf %u: %s", s->name, i, strerror(-r)), false;
	}
	return true;
}

/* One dequeued buffer judged: where it is, its size, flags, order, time. */
static void check_buffer(const struct stream *s, const struct v4l2_buffer *b,
			 const struct v4l2_buffer *prev)
{
	if (b->index >= NBUF || b->bytesused != s->sizeimage)
		fail("%s: buffer %u with %u bytes", s->name, b->index, b->bytesused);
	if (s->memory == V4L2_MEMORY_USERPTR && b->index < NBUF &&
	    (b->m.userptr != (unsigned long)s->mem[b->index] || b->length != s->len[b->index]))
		fail("%s: buffer %u at 0x%lx+%u, queued at %p+%zu", s->name, b->index,
		     b->m.userptr, b->length, s->mem[b->index], s->len[b->index]);
	if (!recent((long long)b->timestamp.tv_sec, (long long)b->timestamp.tv_usec, 1000000))
		fail("%s: timestamp %lld.%06lld is not now", s->name,
		     (long long)b->timestamp.tv_sec, (long long)b->timestamp.tv_usec);
	if (!prev)
		return;
	if (b->sequence <= prev->sequence)
		fail("%s: sequence %u after %u", s->name, b->sequence, prev->sequence);
	long long t = (long long)b->timestamp.tv_sec * 1000000 + b->timestamp.tv_usec;
	long long t0 = (long long)prev->timestamp.tv_sec * 1000000 + prev->timestamp.tv_usec;
	if (t <= t0)
		fail("%s: timestamp %lld us after %lld us", s->name, t, t0);
}

/* ppoll() until a frame is done, 5 s at most. */
static bool wait_frame(const struct stream *s)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec five = { .tv_sec = 5 };
	int n;
	do
		n = ppoll(&p, 1, &five, NULL);
	while (n < 0 && errno == EINTR);
	if (n == 1 && p.revents == POLLIN)
		return true;
	fail("%s: ppoll: %d, revents 0x%x", s->name, n, n > 0 ? p.revents : 0);
	return false;
}

static void run_stream(struct stream *s, unsigned frames, const char *path)
{
	FILE *out = fopen(path, "wb");
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (!out || !setup_buffers(s) || xioctl(VIDIOC_STREAMON, &type)) {
		fail("%s: cannot stream", s->name);
		if (out)
			fclose(out);
		return;
	}
	struct v4l2_buffer prev = { 0 }, b;
	unsigned got = 0, flags = 0;
	for (; got < frames; got++) {
		/* MMAP waits in ppoll() first (a 32-bit program with 64-bit time
		 * calls __ppoll64), USERPTR in the blocking DQBUF */
		if (s->memory == V4L2_MEMORY_MMAP && !wait_frame(s))
			break;
		b = (struct v4l2_buffer){ .type = type, .memory = s->memory };
		int r = xioctl(VIDIOC_DQBUF, &b);
		if (r) {
			fail("%s: dqbuf: %s", s->name, strerror(-r));
			break;
		}
		check_buffer(s, &b, got ? &prev : NULL);
		flags |= b.flags & (V4L2_BUF_FLAG_TIMESTAMP_MASK | V4L2_BUF_FLAG_TSTAMP_SRC_MASK);
		if (b.index < NBUF)
			fwrite(s->mem[b.index], 1, b.bytesused < s->len[b.index] ? b.bytesused :
				s->len[b.index], out);
		prev = b;
		if ((r = xioctl(VIDIOC_QBUF, &b)))
			fail("%s: qbuf again: %s", s->name, strerror(-r));
	}
	fclose(out);
	printf("%s: streamoff: %d\n", s->name, xioctl(VIDIOC_STREAMOFF, &type));
	printf("%s: %u frames of %u bytes, timestamp flags 0x%x\n", s->name, got, s->sizeimage,
	       flags);
	for (unsigned i = 0; i < NBUF; i++) {
		if (s->memory == V4L2_MEMORY_MMAP && s->mem[i] && s->mem[i] != MAP_FAILED)
			munmap(s->mem[i], s->len[i]);
		else if (s->memory == V4L2_MEMORY_USERPTR)
			free(s->mem[i]);
	}
	struct v4l2_requestbuffers rb = { .type = type, .memory = s->memory };
	printf("%s: reqbufs 0: %d\n", s->name, xioctl(VIDIOC_REQBUFS, &rb));
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: uvcuse-abiclient DEVICE PREFIX FRAMES\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	printf("abi: %zu-bit pointers, %zu-bit time\n", sizeof(void *) * 8,
	       sizeof(time_t) * 8);
	show_input();
	show_formats();
	show_controls();
	show_ext_controls();
	show_events();
	show_create_bufs();
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	xioctl(VIDIOC_G_FMT, &f);
	unsigned frames = (unsigned)atoi(argv[3]);
	char path[4096];
	struct stream mm = { .name = "mmap", .memory = V4L2_MEMORY_MMAP,
			     .sizeimage = f.fmt.pix.sizeimage };
	snprintf(path, sizeof(path), "%s.mmap", argv[2]);
	run_stream(&mm, frames, path);
	struct stream up = { .name = "userptr", .memory = V4L2_MEMORY_USERPTR,
			     .sizeimage = f.fmt.pix.sizeimage };
	snprintf(path, sizeof(path), "%s.userptr", argv[2]);
	run_stream(&up, frames, path);
	close(fd);
	printf("failures: %d\n", failures);
	return failures ? 1 : 0;
}

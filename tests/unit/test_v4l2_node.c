/* src/v4l2/node.c: the ioctl, read() and poll() semantics of the node, over
 * the vcam's camera models and a fake camera that records probes and
 * stream starts. */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>

#include "descriptors.h" /* tests/vcam */
#include "profile.h"
#include "unit_run.h"
#include "vcam_fixture.h"
#include "v4l2/node.h"

/* The fake camera: answers a probe with what was asked and a frame size
 * of its own, so tests see that the node uses the camera's answer. */
struct fake {
	unsigned probes, starts, stops, queued;
	int start_error;
	struct uvc_probe last_want, started;
	uint32_t answer_size; /* dwMaxVideoFrameSize answered; 0: w*h*2 */
	int probe_error;
};

static struct uvc_camera *camera;
static struct node n;
static struct fake fake;

static int fake_probe(void *dev, const struct uvc_probe *want, struct uvc_probe *got)
{
	struct fake *f = dev;
	f->probes++;
	f->last_want = *want;
	if (f->probe_error)
		return f->probe_error;
	*got = *want;
	got->max_video_frame_size = f->answer_size ? f->answer_size : 0x1234;
	got->max_payload_transfer_size = 3072;
	return 0;
}

static int fake_stream_on(void *dev, const struct uvc_probe *probe)
{
	struct fake *f = dev;
	f->starts++;
	f->started = *probe;
	return f->start_error;
}

static void fake_stream_off(void *dev)
{
	((struct fake *)dev)->stops++;
}

static void fake_buffer_queued(void *dev)
{
	((struct fake *)dev)->queued++;
}

static const struct node_ops ops = {
	.probe = fake_probe,
	.stream_on = fake_stream_on,
	.stream_off = fake_stream_off,
	.buffer_queued = fake_buffer_queued,
};

static int mem_alloc(void *data, struct vq_buffer *b, size_t size)
{
	(void)data;
	b->mem = calloc(1, size);
	b->length = size;
	return b->mem ? 0 : -ENOMEM;
}

static void mem_release(void *data, struct vq_buffer *b)
{
	(void)data;
	free(b->mem);
	b->mem = NULL;
}

static const struct vq_mem_ops mem = { .alloc = mem_alloc, .release = mem_release };

static void setup_profile(const char *name)
{
	camera = fixture_camera(vcam_profile_find(name));
	memset(&fake, 0, sizeof(fake));
	struct node_identity ident = { .card = "Test Camera", .bus_info = "usb-vhci_hcd.0-1",
				       .version = 0x060100 };
	/* start-up probe: format 1 (YUYV) frame 1 (640x480), 30 fps */
	struct uvc_probe probe = { .format_index = 1, .frame_index = 1, .interval = 333333,
				   .max_video_frame_size = 640 * 480 * 2 };
	ck_assert_int_eq(node_init(&n, camera, &ident, &probe, &ops, &fake, &mem, NULL), 0);
}

static void setup(void)
{
	setup_profile("default");
}

static void teardown(void)
{
	node_destroy(&n);
	uvc_camera_free(camera);
	camera = NULL;
}

static int ioctl_(struct node_file *f, unsigned cmd, void *arg)
{
	return node_ioctl(&n, f, cmd, arg, true, NULL, NULL);
}

START_TEST(querycap)
{
	struct node_file f;
	node_open(&n, &f);
	struct v4l2_capability cap;
	memset(&cap, 0xa5, sizeof(cap));
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERYCAP, &cap), 0);
	ck_assert_str_eq((char *)cap.driver, "uvcuse");
	ck_assert_str_eq((char *)cap.card, "Test Camera");
	ck_assert_str_eq((char *)cap.bus_info, "usb-vhci_hcd.0-1");
	ck_assert_uint_eq(cap.version, 0x060100);
	ck_assert_uint_eq(cap.device_caps, V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING |
						   V4L2_CAP_READWRITE | V4L2_CAP_EXT_PIX_FORMAT);
	ck_assert_uint_eq(cap.capabilities, cap.device_caps | V4L2_CAP_DEVICE_CAPS);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_uint_eq(cap.reserved[i], 0);
	ck_assert_int_eq(ioctl_(&f, _IO('V', 0xff), NULL), -ENOTTY);
	node_release(&n, &f);
}
END_TEST

START_TEST(priority)
{
	struct node_file a, b;
	node_open(&n, &a);
	node_open(&n, &b);
	uint32_t p = 0;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_G_PRIORITY, &p), 0);
	ck_assert_uint_eq(p, V4L2_PRIORITY_DEFAULT);
	p = V4L2_PRIORITY_UNSET;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_PRIORITY, &p), -EINVAL);
	p = 7;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_PRIORITY, &p), -EINVAL);
	p = V4L2_PRIORITY_RECORD;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_PRIORITY, &p), 0);
	ck_assert_int_eq(ioctl_(&b, VIDIOC_G_PRIORITY, &p), 0);
	ck_assert_uint_eq(p, V4L2_PRIORITY_RECORD);
	/* b is below the highest priority: state changes are refused */
	p = V4L2_PRIORITY_BACKGROUND;
	ck_assert_int_eq(ioctl_(&b, VIDIOC_S_PRIORITY, &p), -EBUSY);
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(ioctl_(&b, VIDIOC_G_FMT, &fmt), 0);
	ck_assert_int_eq(ioctl_(&b, VIDIOC_S_FMT, &fmt), -EBUSY);
	struct v4l2_requestbuffers rb = { .count = 1, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&b, VIDIOC_REQBUFS, &rb), -EBUSY);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_FMT, &fmt), 0);
	/* a's close gives the floor back */
	node_release(&n, &a);
	ck_assert_int_eq(ioctl_(&b, VIDIOC_G_PRIORITY, &p), 0);
	ck_assert_uint_eq(p, V4L2_PRIORITY_DEFAULT);
	ck_assert_int_eq(ioctl_(&b, VIDIOC_S_FMT, &fmt), 0);
	node_release(&n, &b);
}
END_TEST

START_TEST(inputs)
{
	struct node_file f;
	node_open(&n, &f);
	struct v4l2_input in;
	memset(&in, 0xa5, sizeof(in));
	in.index = 0;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_ENUMINPUT, &in), 0);
	ck_assert_str_eq((char *)in.name, "Camera 1");
	ck_assert_uint_eq(in.type, V4L2_INPUT_TYPE_CAMERA);
	ck_assert_uint_eq(in.std, 0);
	ck_assert_uint_eq(in.status, 0);
	ck_assert_uint_eq(in.capabilities, 0);
	in.index = 1;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_ENUMINPUT, &in), -EINVAL);
	int i = 5;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_INPUT, &i), 0);
	ck_assert_int_eq(i, 0);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_INPUT, &i), 0);
	i = 1;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_INPUT, &i), -EINVAL);
	node_release(&n, &f);
}
END_TEST

START_TEST(formats_negotiated_with_camera)
{
	struct node_file f;
	node_open(&n, &f);
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_FMT, &fmt), 0);
	ck_assert_uint_eq(fmt.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	ck_assert_uint_eq(fmt.fmt.pix.width, 640);
	ck_assert_uint_eq(fmt.fmt.pix.sizeimage, 640 * 480 * 2);
	ck_assert_uint_eq(fmt.fmt.pix.priv, V4L2_PIX_FMT_PRIV_MAGIC);

	/* TRY_FMT asks the camera and reports its frame size */
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_MJPEG;
	fmt.fmt.pix.width = 1920;
	fmt.fmt.pix.height = 1080;
	fake.answer_size = 777777;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_FMT, &fmt), 0);
	ck_assert_uint_eq(fake.probes, 1);
	ck_assert_uint_eq(fake.last_want.hint, 1);
	ck_assert_uint_eq(fmt.fmt.pix.pixelformat, V4L2_PIX_FMT_MJPEG);
	ck_assert_uint_eq(fmt.fmt.pix.width, 1920);
	ck_assert_uint_eq(fmt.fmt.pix.sizeimage, 777777);
	/* ...without changing the current format */
	struct v4l2_format cur = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_FMT, &cur), 0);
	ck_assert_uint_eq(cur.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	/* S_FMT does */
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_FMT, &fmt), 0);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_FMT, &cur), 0);
	ck_assert_uint_eq(cur.fmt.pix.pixelformat, V4L2_PIX_FMT_MJPEG);
	ck_assert_uint_eq(cur.fmt.pix.sizeimage, 777777);
	/* a camera that refuses the probe: the error reaches the app */
	fake.probe_error = -EIO;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_FMT, &fmt), -EIO);
	fake.probe_error = 0;
	/* other buffer types */
	fmt.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_FMT, &fmt), -EINVAL);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_FMT, &fmt), -EINVAL);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_FMT, &fmt), -EINVAL);
	/* buffers exist: S_FMT is busy, for everyone */
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_REQBUFS, &rb), 0);
	fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_FMT, &fmt), -EBUSY);
	node_release(&n, &f);
}
END_TEST

START_TEST(frame_rate)
{
	struct node_file f;
	node_open(&n, &f);
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_PARM, &parm), 0);
	ck_assert_uint_eq(parm.parm.capture.capability, V4L2_CAP_TIMEPERFRAME);
	ck_assert_uint_eq(parm.parm.capture.timeperframe.numerator, 1);
	ck_assert_uint_eq(parm.parm.capture.timeperframe.denominator, 30);
	ck_assert_uint_gt(parm.parm.capture.readbuffers, 0);
	parm.parm.capture.timeperframe = (struct v4l2_fract){ 1, 15 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_PARM, &parm), 0);
	ck_assert_uint_eq(fake.last_want.interval, 666666);
	ck_assert_uint_eq(parm.parm.capture.timeperframe.numerator, 1);
	ck_assert_uint_eq(parm.parm.capture.timeperframe.denominator, 15);
	/* a rate the frame lacks snaps to the nearest one */
	parm.parm.capture.timeperframe = (struct v4l2_fract){ 1, 1000 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_PARM, &parm), 0);
	ck_assert_uint_eq(parm.parm.capture.timeperframe.denominator, 30);
	parm.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_PARM, &parm), -EINVAL);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_PARM, &parm), -EINVAL);
	node_release(&n, &f);
}
END_TEST

/* The driver side of a frame: what the device does when the assembler
 * finishes one. */
static void deliver_frame(uint8_t fill, size_t bytes)
{
	struct vq_buffer *b = vq_next(&n.queue);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_ge(b->length, bytes);
	memset(b->mem, fill, bytes);
	struct timeval tv = { 1, 2 };
	vq_done(&n.queue, b, (uint32_t)bytes, 0, -1, &tv);
}

START_TEST(mmap_streaming_and_owner)
{
	struct node_file a, b;
	node_open(&n, &a);
	node_open(&n, &b);
	struct v4l2_requestbuffers rb = { .count = 3, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_REQBUFS, &rb), 0);
	ck_assert_uint_eq(rb.count, 3);
	ck_assert_int_eq(ioctl_(&b, VIDIOC_REQBUFS, &rb), -EBUSY);
	for (unsigned i = 0; i < 3; i++) {
		struct v4l2_buffer buf = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					   .memory = V4L2_MEMORY_MMAP };
		ck_assert_int_eq(ioctl_(&b, VIDIOC_QBUF, &buf), -EBUSY);
		ck_assert_int_eq(ioctl_(&a, VIDIOC_QBUF, &buf), 0);
	}
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(ioctl_(&b, VIDIOC_STREAMON, &type), -EBUSY);
	ck_assert_uint_eq(fake.starts, 0);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMON, &type), 0);
	ck_assert_uint_eq(fake.starts, 1);
	ck_assert_uint_eq(fake.started.format_index, 1);
	ck_assert_uint_eq(fake.started.frame_index, 1);
	/* no frame yet: non-blocking EAGAIN, blocking parks */
	struct v4l2_buffer buf = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, true, NULL, NULL), -EAGAIN);
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, false, NULL, NULL), NODE_WAIT);
	ck_assert_uint_eq(node_poll(&n, &a) & POLLIN, 0);
	deliver_frame(0x42, 640 * 480 * 2);
	ck_assert_uint_ne(node_poll(&n, &a) & POLLIN, 0);
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, false, NULL, NULL), 0);
	ck_assert_uint_eq(buf.bytesused, 640 * 480 * 2);
	ck_assert_uint_eq(buf.sequence, 0);
	ck_assert_uint_eq(buf.field, V4L2_FIELD_NONE);
	ck_assert(buf.flags & V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC);
	/* a queued buffer is offered to the device while streaming */
	unsigned queued = fake.queued;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_QBUF, &buf), 0);
	ck_assert_uint_eq(fake.queued, queued + 1);
	/* b can neither stop nor read while a streams */
	ck_assert_int_eq(ioctl_(&b, VIDIOC_STREAMOFF, &type), -EBUSY);
	const uint8_t *data;
	size_t len;
	ck_assert_int_eq(node_read(&n, &b, 4096, true, true, &data, &len), -EBUSY);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMOFF, &type), 0);
	ck_assert_uint_eq(fake.stops, 1);
	/* after STREAMOFF a DQBUF does not wait */
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, false, NULL, NULL), -EINVAL);
	/* closing the owner frees the queue for b */
	node_release(&n, &a);
	ck_assert_int_eq(ioctl_(&b, VIDIOC_REQBUFS, &rb), 0);
	node_release(&n, &b);
}
END_TEST

START_TEST(owner_close_stops_the_camera)
{
	struct node_file a;
	node_open(&n, &a);
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_REQBUFS, &rb), 0);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMON, &type), 0);
	node_release(&n, &a);
	ck_assert_uint_eq(fake.stops, 1);
	ck_assert(!n.queue.streaming);
}
END_TEST

/* read(): CUSE delivers a read() in chunks; one read() call returns at most
 * one frame, and a frame larger than what the app asked for is continued by
 * its next read(). */
START_TEST(read_in_chunks)
{
	struct node_file a, b;
	node_open(&n, &a);
	node_open(&n, &b);
	const size_t frame = 640 * 480 * 2, chunk = 131072;
	const uint8_t *data;
	size_t len;
	/* the first read starts the camera and waits */
	ck_assert_int_eq(node_read(&n, &a, chunk, true, false, &data, &len), NODE_WAIT);
	ck_assert_uint_eq(fake.starts, 1);
	ck_assert_int_eq(node_read(&n, &a, chunk, true, true, &data, &len), -EAGAIN);
	ck_assert_int_eq(node_read(&n, &b, chunk, true, true, &data, &len), -EBUSY);
	deliver_frame(0x11, frame);
	deliver_frame(0x22, frame);
	/* read() of a whole frame: chunks until the frame ends, then 0 */
	size_t total = 0;
	bool first = true;
	for (;;) {
		ck_assert_int_eq(node_read(&n, &a, chunk, first, true, &data, &len), 0);
		if (!len)
			break;
		ck_assert_uint_eq(data[0], 0x11);
		ck_assert_uint_eq(data[len - 1], 0x11);
		node_read_done(&n, &a, len);
		total += len;
		first = false;
		if (len < chunk)
			break;
	}
	ck_assert_uint_eq(total, frame);
	/* the next read() call starts the second frame; a small read leaves the
	 * rest of it for the read() after */
	ck_assert_int_eq(node_read(&n, &a, 100, true, true, &data, &len), 0);
	ck_assert_uint_eq(len, 100);
	ck_assert_uint_eq(data[0], 0x22);
	node_read_done(&n, &a, len);
	ck_assert_int_eq(node_read(&n, &a, chunk, true, true, &data, &len), 0);
	ck_assert_uint_eq(len, chunk);
	ck_assert_uint_eq(data[0], 0x22);
	node_read_done(&n, &a, len);
	/* MMAP on a reading queue is busy for another file */
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&b, VIDIOC_REQBUFS, &rb), -EBUSY);
	node_release(&n, &a);
	ck_assert_uint_eq(fake.stops, 1);
	/* and b can read now */
	ck_assert_int_eq(node_read(&n, &b, chunk, true, true, &data, &len), -EAGAIN);
	ck_assert_uint_eq(fake.starts, 2);
	node_release(&n, &b);
	ck_assert_uint_eq(fake.stops, 2);
}
END_TEST

/* STREAMOFF on a file that reads: the queue refuses (vb2) and the camera
 * must go on, or the reader would wait forever. */
START_TEST(streamoff_while_reading)
{
	struct node_file a;
	node_open(&n, &a);
	const uint8_t *data;
	size_t len;
	ck_assert_int_eq(node_read(&n, &a, 4096, true, true, &data, &len), -EAGAIN);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMOFF, &type), -EBUSY);
	ck_assert_uint_eq(fake.stops, 0);
	deliver_frame(0x33, 640 * 480 * 2);
	ck_assert_int_eq(node_read(&n, &a, 4096, true, true, &data, &len), 0);
	ck_assert_uint_eq(len, 4096);
	node_release(&n, &a);
	ck_assert_uint_eq(fake.stops, 1);
}
END_TEST

/* A camera that does not start: STREAMON fails, the queued buffers stay
 * queued (vb2), and a second STREAMON works. */
START_TEST(streamon_failure_keeps_buffers)
{
	struct node_file a;
	node_open(&n, &a);
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_REQBUFS, &rb), 0);
	for (unsigned i = 0; i < 2; i++) {
		struct v4l2_buffer buf = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					   .memory = V4L2_MEMORY_MMAP };
		ck_assert_int_eq(ioctl_(&a, VIDIOC_QBUF, &buf), 0);
	}
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	fake.start_error = -EIO;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMON, &type), -EIO);
	ck_assert(!n.queue.streaming);
	struct v4l2_buffer q = { .index = 1, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				 .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_QUERYBUF, &q), 0);
	ck_assert(q.flags & V4L2_BUF_FLAG_QUEUED);
	fake.start_error = 0;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMON, &type), 0);
	deliver_frame(0x44, 100);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_DQBUF, &q), 0);
	ck_assert_uint_eq(q.bytesused, 100);
	node_release(&n, &a);
}
END_TEST

/* USERPTR frames larger than what the reply can carry: DQBUF says so and
 * the frame stays first in line, never lost. */
START_TEST(userptr_too_large_is_kept)
{
	struct node_file a;
	node_open(&n, &a);
	n.max_userptr_copy = 1000;
	struct v4l2_requestbuffers rb = { .count = 1, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_USERPTR };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_REQBUFS, &rb), 0);
	struct v4l2_buffer buf = { .index = 0, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				   .memory = V4L2_MEMORY_USERPTR, .m.userptr = 0x10000,
				   .length = 640 * 480 * 2 };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_QBUF, &buf), 0);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMON, &type), 0);
	deliver_frame(0x55, 2000);
	const void *data = NULL;
	size_t len = 0;
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, true, &data, &len), -E2BIG);
	ck_assert(vq_has_done(&n.queue));
	n.max_userptr_copy = 4096;
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, true, &data, &len), 0);
	ck_assert_uint_eq(len, 2000);
	ck_assert_uint_eq(((const uint8_t *)data)[1999], 0x55);
	ck_assert_uint_eq(buf.m.userptr, 0x10000);
	node_release(&n, &a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("v4l2-node");
	TCase *tc = tcase_create("node");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, querycap);
	tcase_add_test(tc, priority);
	tcase_add_test(tc, inputs);
	tcase_add_test(tc, formats_negotiated_with_camera);
	tcase_add_test(tc, frame_rate);
	tcase_add_test(tc, mmap_streaming_and_owner);
	tcase_add_test(tc, owner_close_stops_the_camera);
	tcase_add_test(tc, read_in_chunks);
	tcase_add_test(tc, streamoff_while_reading);
	tcase_add_test(tc, streamon_failure_keeps_buffers);
	tcase_add_test(tc, userptr_too_large_is_kept);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

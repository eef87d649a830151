/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The metadata capture node's answers (src/v4l2/meta_node.c): QUERYCAP,
 * formats and the buffer size, the priority it shares with the video node,
 * a buffer filled with a frame's sequence, timestamp and error, what it
 * does not answer. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unit_run.h"
#include "uvc/metadata.h"
#include "v4l2/meta_node.h"

#define META V4L2_BUF_TYPE_META_CAPTURE

static unsigned allocs, releases;

static int mem_alloc(void *data, struct vq_buffer *b, size_t size)
{
	(void)data;
	b->mem = malloc(size);
	if (!b->mem)
		return -ENOMEM;
	b->length = size;
	allocs++;
	return 0;
}

static void mem_release(void *data, struct vq_buffer *b)
{
	(void)data;
	free(b->mem);
	b->mem = NULL;
	releases++;
}

static const struct vq_mem_ops ops = { .alloc = mem_alloc, .release = mem_release };
static struct meta_node m;
static struct v4l2_prios prios; /* the video node's */
static struct meta_file a, b;

static void start(bool msxu)
{
	memset(&prios, 0, sizeof(prios));
	allocs = releases = 0;
	struct meta_node_config cfg = { .card = "Cam", .bus_info = "usb-vhci_hcd.0-1",
					.version = 0x060100,
					.video_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING |
						      V4L2_CAP_READWRITE | V4L2_CAP_EXT_PIX_FORMAT,
					.msxu = msxu, .prios = &prios, .mem_ops = &ops,
					.input = { .index = 5, .name = "Camera 1",
						   .type = V4L2_INPUT_TYPE_CAMERA } };
	meta_node_init(&m, &cfg);
	meta_node_open(&m, &a);
	meta_node_open(&m, &b);
}

static void setup(void)
{
	start(false);
}

static void teardown(void)
{
	meta_node_release(&m, &a);
	meta_node_release(&m, &b);
	meta_node_destroy(&m);
	ck_assert_uint_eq(allocs, releases);
	ck_assert_uint_eq(prio_max(&prios), V4L2_PRIORITY_UNSET);
}

static int ioctl_(struct meta_file *f, unsigned cmd, void *arg)
{
	return meta_node_ioctl(&m, f, cmd, arg, true, NULL);
}

START_TEST(querycap_meta_capture)
{
	struct v4l2_capability cap;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_QUERYCAP, &cap), 0);
	ck_assert_str_eq((const char *)cap.card, "Cam");
	ck_assert_str_eq((const char *)cap.bus_info, "usb-vhci_hcd.0-1");
	ck_assert_uint_eq(cap.device_caps,
			  V4L2_CAP_META_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_EXT_PIX_FORMAT);
	ck_assert_uint_eq(cap.capabilities & cap.device_caps, cap.device_caps);
	ck_assert(cap.capabilities & V4L2_CAP_VIDEO_CAPTURE);
	ck_assert(cap.capabilities & V4L2_CAP_DEVICE_CAPS);
}
END_TEST

static uint32_t format_at(unsigned i, int *err)
{
	struct v4l2_fmtdesc d = { .index = i, .type = META };
	*err = ioctl_(&a, VIDIOC_ENUM_FMT, &d);
	return d.pixelformat;
}

START_TEST(formats_uvch_then_uvcm)
{
	int err;
	ck_assert_uint_eq(format_at(0, &err), V4L2_META_FMT_UVC);
	ck_assert_int_eq(err, 0);
	format_at(1, &err);
	ck_assert_int_eq(err, -EINVAL);
	struct v4l2_fmtdesc d = { .index = 0, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_ENUM_FMT, &d), -EINVAL);
	teardown();
	start(true);
	ck_assert_uint_eq(format_at(1, &err), V4L2_META_FMT_UVC_MSXU_1_5);
	ck_assert_int_eq(err, 0);
	struct v4l2_format f = { .type = META };
	f.fmt.meta.dataformat = V4L2_META_FMT_UVC_MSXU_1_5;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_FMT, &f), 0);
	ck_assert_uint_eq(f.fmt.meta.dataformat, V4L2_META_FMT_UVC_MSXU_1_5);
}
END_TEST

/* TRY_FMT: an unknown format becomes UVCH; the buffer size is at least
 * 10240 and at most our ceiling; S_FMT sets it for the next buffers, and
 * answers EBUSY while the queue has buffers. */
START_TEST(buffer_size_settable)
{
	struct v4l2_format f = { .type = META };
	f.fmt.meta.dataformat = v4l2_fourcc('J', 'U', 'N', 'K');
	f.fmt.meta.buffersize = 100;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_TRY_FMT, &f), 0);
	ck_assert_uint_eq(f.fmt.meta.dataformat, V4L2_META_FMT_UVC);
	ck_assert_uint_eq(f.fmt.meta.buffersize, META_BUFFERSIZE_MIN);
	f.fmt.meta.buffersize = 0xffffffffu;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_TRY_FMT, &f), 0);
	ck_assert_uint_eq(f.fmt.meta.buffersize, META_BUFFERSIZE_MAX);
	f.fmt.meta.buffersize = 65536;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_FMT, &f), 0);
	struct v4l2_format g = { .type = META };
	ck_assert_int_eq(ioctl_(&b, VIDIOC_G_FMT, &g), 0);
	ck_assert_uint_eq(g.fmt.meta.buffersize, 65536);
	struct v4l2_requestbuffers rb = { .count = 2, .type = META, .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_REQBUFS, &rb), 0);
	struct v4l2_buffer q = { .index = 1, .type = META };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_QUERYBUF, &q), 0);
	ck_assert_uint_eq(q.length, 65536);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_FMT, &f), -EBUSY);
	ck_assert_int_eq(ioctl_(&b, VIDIOC_REQBUFS, &rb), -EBUSY); /* a owns the queue */
}
END_TEST

/* One priority with the video node: a video file at RECORD holds the
 * metadata node's S_FMT back; G_PRIORITY sees it. */
START_TEST(priority_shared_with_video)
{
	enum v4l2_priority video = V4L2_PRIORITY_UNSET;
	prio_change(&prios, &video, V4L2_PRIORITY_RECORD);
	uint32_t p = 0;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_G_PRIORITY, &p), 0);
	ck_assert_uint_eq(p, V4L2_PRIORITY_RECORD);
	struct v4l2_format f = { .type = META };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_FMT, &f), -EBUSY);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_TRY_FMT, &f), 0);
	prio_change(&prios, &video, V4L2_PRIORITY_UNSET);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_FMT, &f), 0);
	p = 7;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_PRIORITY, &p), -EINVAL);
}
END_TEST

/* A buffer gets the video frame's sequence and timestamp, its bytes, and
 * the frame's error; a blocking DQBUF with none done waits. */
START_TEST(buffer_carries_the_frame)
{
	struct v4l2_requestbuffers rb = { .count = 2, .type = META, .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_REQBUFS, &rb), 0);
	ck_assert_ptr_null(meta_node_next(&m)); /* not streaming */
	for (unsigned i = 0; i < 2; i++) {
		struct v4l2_buffer q = { .index = i, .type = META, .memory = V4L2_MEMORY_MMAP };
		ck_assert_int_eq(ioctl_(&a, VIDIOC_QBUF, &q), 0);
	}
	int type = META;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMON, &type), 0);
	struct v4l2_buffer d = { .type = META, .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(meta_node_ioctl(&m, &a, VIDIOC_DQBUF, &d, false, NULL), NODE_WAIT);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_DQBUF, &d), -EAGAIN);
	struct vq_buffer *vb = meta_node_next(&m);
	ck_assert_ptr_nonnull(vb);
	memset(vb->mem, 0xab, 22);
	struct timeval tv = { 12, 345 };
	meta_node_done(&m, vb, 22, true, 41, &tv);
	struct vq_buffer *got = NULL;
	ck_assert_int_eq(meta_node_ioctl(&m, &a, VIDIOC_DQBUF, &d, false, &got), 0);
	ck_assert_ptr_eq(got, vb);
	ck_assert_uint_eq(d.bytesused, 22);
	ck_assert_uint_eq(d.sequence, 41);
	ck_assert_int_eq(d.timestamp.tv_sec, 12);
	ck_assert_int_eq(d.timestamp.tv_usec, 345);
	ck_assert(d.flags & V4L2_BUF_FLAG_ERROR);
	ck_assert_uint_eq(meta_node_poll(&m, &a), 0);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMOFF, &type), 0);
}
END_TEST

/* No media controller: the video node's input, as V4L2 requires of a
 * capture node without one. */
START_TEST(the_video_nodes_input)
{
	struct v4l2_input in = { .index = 0 };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_ENUMINPUT, &in), 0);
	ck_assert_uint_eq(in.index, 0);
	ck_assert_str_eq((char *)in.name, "Camera 1");
	ck_assert_uint_eq(in.type, V4L2_INPUT_TYPE_CAMERA);
	in.index = 1;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_ENUMINPUT, &in), -EINVAL);
	uint32_t index = 7;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_G_INPUT, &index), 0);
	ck_assert_uint_eq(index, 0);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_INPUT, &index), 0);
	index = 1;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_INPUT, &index), -EINVAL);
	/* S_INPUT needs the priority: another file's RECORD refuses it */
	uint32_t record = V4L2_PRIORITY_RECORD;
	ck_assert_int_eq(ioctl_(&b, VIDIOC_S_PRIORITY, &record), 0);
	index = 0;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_INPUT, &index), -EBUSY);
}
END_TEST

START_TEST(the_rest_enotty)
{
	static const unsigned cmds[] = { VIDIOC_QUERYCTRL,
					 VIDIOC_G_CTRL, VIDIOC_SUBSCRIBE_EVENT, VIDIOC_EXPBUF,
					 VIDIOC_G_PARM, VIDIOC_ENUM_FRAMESIZES, VIDIOC_LOG_STATUS };
	uint8_t arg[256] = { 0 };
	for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		ck_assert_int_eq(ioctl_(&a, cmds[i], arg), -ENOTTY);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("v4l2-meta-node");
	TCase *t = tcase_create("meta-node");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, querycap_meta_capture);
	tcase_add_test(t, the_video_nodes_input);
	tcase_add_test(t, formats_uvch_then_uvcm);
	tcase_add_test(t, buffer_size_settable);
	tcase_add_test(t, priority_shared_with_video);
	tcase_add_test(t, buffer_carries_the_frame);
	tcase_add_test(t, the_rest_enotty);
	suite_add_tcase(s, t);
	return unit_run(s);
}

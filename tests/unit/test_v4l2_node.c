/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/v4l2/node.c: the ioctl, read() and poll() semantics of the node, over
 * the vcam's camera models and a fake camera that records probes and
 * stream starts. */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>

#include <linux/usb/video.h>
#include <linux/uvcvideo.h>

#include "controls.h"    /* tests/vcam */
#include "descriptors.h" /* tests/vcam */
#include "profile.h"
#include "node_fixture.h"
#include "unit_run.h"
#include "uvc/quirks.h"
#include "vcam_fixture.h"
#include "v4l2/node.h"

/* The fake camera: answers a probe with what was asked and a frame size
 * of its own, so tests see that the node uses the camera's answer. */
struct fake {
	unsigned probes, starts, stops, queued;
	unsigned consumers_on, consumers_off; /* processes fed, stopped */
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

static int fake_consumer_on(void *dev, struct node_proc *p)
{
	(void)p;
	((struct fake *)dev)->consumers_on++;
	return 0;
}

static void fake_consumer_off(void *dev, struct node_proc *p)
{
	(void)p;
	((struct fake *)dev)->consumers_off++;
}

static const struct node_ops ops = {
	.probe = fake_probe,
	.stream_on = fake_stream_on,
	.stream_off = fake_stream_off,
	.consumer_on = fake_consumer_on,
	.consumer_off = fake_consumer_off,
	.buffer_queued = fake_buffer_queued,
};

static const struct vq_mem_ops mem = { .alloc = heap_mem_alloc, .release = heap_mem_release };

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

/* As cuse/ marshals it: the controls array of an EXT_CTRLS ioctl comes
 * as extra, never through the argument's pointer. */
static int ioctl_(struct node_file *f, unsigned cmd, void *arg)
{
	void *extra = NULL;
	size_t extra_len = 0;
	if (cmd == VIDIOC_G_EXT_CTRLS || cmd == VIDIOC_S_EXT_CTRLS || cmd == VIDIOC_TRY_EXT_CTRLS) {
		struct v4l2_ext_controls *c = arg;
		if (c->count && c->count <= V4L2_CID_MAX_CTRLS) {
			extra = c->controls;
			extra_len = c->count * sizeof(struct v4l2_ext_control);
		}
	}
	return node_ioctl(&n, f, cmd, arg, extra, extra_len, true, NULL, NULL);
}

/* --convert lists the converted formats after the camera's; without it
 * (the default) the list is exactly uvcvideo's. */
START_TEST(converted_formats_listed)
{
	struct node_file f;
	node_open(&n, &f);
	for (int on = 0; on < 2; on++) {
		n.convert = on;
		unsigned count = 0;
		for (;; count++) {
			struct v4l2_fmtdesc d = { .index = count, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
			if (ioctl_(&f, VIDIOC_ENUM_FMT, &d))
				break;
			ck_assert_uint_eq(d.flags & V4L2_FMT_FLAG_EMULATED, 0);
			if (count == 2)
				ck_assert_uint_eq(d.pixelformat, V4L2_PIX_FMT_RGB24);
		}
		ck_assert_uint_eq(count, on ? 6 : 2);
		struct v4l2_frmsizeenum fs = { .index = 2, .pixel_format = V4L2_PIX_FMT_YUV420 };
		ck_assert_int_eq(ioctl_(&f, VIDIOC_ENUM_FRAMESIZES, &fs), on ? 0 : -EINVAL);
		if (on)
			ck_assert_uint_eq(fs.discrete.width, 1920);
		struct v4l2_frmivalenum fi = { .index = 2, .pixel_format = V4L2_PIX_FMT_BGR24,
					       .width = 640, .height = 480 };
		ck_assert_int_eq(ioctl_(&f, VIDIOC_ENUM_FRAMEINTERVALS, &fi), on ? 0 : -EINVAL);
		if (on)
			ck_assert_uint_eq(fi.discrete.denominator, 5);
	}
	node_release(&n, &f);
}
END_TEST

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
	/* the daemon's own file (remembered controls) is never held back */
	struct node_file d;
	node_open(&n, &d);
	d.daemon = true;
	ck_assert_int_eq(ioctl_(&d, VIDIOC_S_FMT, &fmt), 0);
	node_release(&n, &d);
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
	/* uvcvideo 6.12's name for a camera terminal without a string (6.1
	 * said "Input 1") */
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

/* ---- inputs through a selector unit (tests/topologies/, "selector") ---- */

static uint8_t su_pin = 1;        /* the selector's current input, 1-based */
static unsigned su_gets, su_sets;

static int selector_request(void *dev, const struct ctrls_request *r, uint8_t *data)
{
	(void)dev;
	ck_assert_uint_eq(r->entity, 3);
	ck_assert_uint_eq(r->selector, UVC_SU_INPUT_SELECT_CONTROL);
	ck_assert_uint_eq(r->size, 1);
	if (r->query == UVC_GET_CUR) {
		su_gets++;
		data[0] = su_pin;
		return 1;
	}
	ck_assert_uint_eq(r->query, UVC_SET_CUR);
	su_sets++;
	su_pin = data[0];
	return 1;
}

static const struct node_ops selector_ops = {
	.probe = fake_probe,
	.stream_on = fake_stream_on,
	.stream_off = fake_stream_off,
	.buffer_queued = fake_buffer_queued,
	.ctrl_request = selector_request,
};

static struct uvc_camera *selector_camera(void)
{
	char path[4096];
	const char *dir = getenv("TOPOLOGY_DIR");
	ck_assert_ptr_nonnull(dir);
	snprintf(path, sizeof(path), "%s/f0f0_0005_topology_selector.cfg.bin", dir);
	FILE *fp = fopen(path, "rb");
	ck_assert_ptr_nonnull(fp);
	uint8_t buf[1024];
	size_t len = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	struct uvc_camera *cam = NULL;
	ck_assert_int_eq(uvc_parse_descriptors(buf, len, &cam, NULL), 0);
	return cam;
}

/* uvcvideo 6.1 (uvc_ioctl_enum_input, _g_input, _s_input): input N is the
 * terminal on the selector's pin N; G_INPUT and S_INPUT are GET_CUR and
 * SET_CUR of its input select control, pin + 1. */
START_TEST(inputs_through_a_selector_unit)
{
	struct node n2;
	struct node_file f;
	struct uvc_camera *cam = selector_camera();
	struct node_identity ident = { .card = "Selector", .bus_info = "usb-x", .version = 0x060100 };
	struct uvc_probe probe = { .format_index = 1, .frame_index = 1, .interval = 333333 };

	su_pin = 1;
	su_gets = su_sets = 0;
	ck_assert_int_eq(node_init(&n2, cam, &ident, &probe, &selector_ops, &fake, &mem, NULL), 0);
	node_open(&n2, &f);
	struct v4l2_input in = { .index = 0 };
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_ENUMINPUT, &in, NULL, 0, false, NULL, NULL), 0);
	ck_assert_str_eq((char *)in.name, "Camera 1");
	ck_assert_uint_eq(in.type, V4L2_INPUT_TYPE_CAMERA);
	in = (struct v4l2_input){ .index = 1 };
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_ENUMINPUT, &in, NULL, 0, false, NULL, NULL), 0);
	ck_assert_str_eq((char *)in.name, "Media 2");
	ck_assert_uint_eq(in.type, 0);
	/* a terminal with a string (iTerminal) is named by it */
	for (unsigned k = 0; k < cam->n_entities; k++)
		if (cam->entities[k].id == 2)
			snprintf(cam->entities[k].name, sizeof(cam->entities[k].name), "HDMI in");
	in = (struct v4l2_input){ .index = 1 };
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_ENUMINPUT, &in, NULL, 0, false, NULL, NULL), 0);
	ck_assert_str_eq((char *)in.name, "HDMI in");
	in = (struct v4l2_input){ .index = 2 };
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_ENUMINPUT, &in, NULL, 0, false, NULL, NULL), -EINVAL);

	int i = 7;
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_G_INPUT, &i, NULL, 0, false, NULL, NULL), 0);
	ck_assert_int_eq(i, 0);
	i = 1;
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_S_INPUT, &i, NULL, 0, false, NULL, NULL), 0);
	ck_assert_uint_eq(su_pin, 2);
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_G_INPUT, &i, NULL, 0, false, NULL, NULL), 0);
	ck_assert_int_eq(i, 1);
	i = 2;
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_S_INPUT, &i, NULL, 0, false, NULL, NULL), -EINVAL);
	ck_assert_uint_eq(su_sets, 1);
	ck_assert_uint_eq(su_gets, 2);
	/* the quirk: one input, nothing sent */
	cam->quirks |= UVC_QUIRK_IGNORE_SELECTOR_UNIT;
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_G_INPUT, &i, NULL, 0, false, NULL, NULL), 0);
	ck_assert_int_eq(i, 0);
	i = 1;
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_S_INPUT, &i, NULL, 0, false, NULL, NULL), -EINVAL);
	in = (struct v4l2_input){ .index = 1 };
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_ENUMINPUT, &in, NULL, 0, false, NULL, NULL), -EINVAL);
	ck_assert_uint_eq(su_sets + su_gets, 3);
	/* controls that could not be built are zeroed (node_init): no chain,
	 * so no input and no selector, though its field reads 0, not -1 */
	cam->quirks &= ~(uint32_t)UVC_QUIRK_IGNORE_SELECTOR_UNIT;
	memset(&n2.ctrls.chain, 0, sizeof(n2.ctrls.chain));
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_G_INPUT, &i, NULL, 0, false, NULL, NULL), 0);
	ck_assert_int_eq(i, 0);
	in = (struct v4l2_input){ .index = 0 };
	ck_assert_int_eq(node_ioctl(&n2, &f, VIDIOC_ENUMINPUT, &in, NULL, 0, false, NULL, NULL), -EINVAL);
	ck_assert_uint_eq(su_sets + su_gets, 3);
	node_release(&n2, &f);
	node_destroy(&n2);
	uvc_camera_free(cam);
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

/* A converted format: TRY_FMT/S_FMT probe the camera with the source the
 * rule picks and answer the destination's layout; G_FMT, the buffers and
 * STREAMON follow; S_PARM may move the source (raw at the interval, else
 * MJPEG). Without conversion, RGB3 is unknown as on uvcvideo. */
/* uvcvideo's PROBE_EXTRAFIELDS: the probe of a TRY_FMT carries the current
 * dwMaxVideoFrameSize instead of 0. */
START_TEST(probe_extrafields)
{
	struct node_file f;
	node_open(&n, &f);
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_FMT, &fmt), 0);
	fmt.fmt.pix.width = 320;
	fmt.fmt.pix.height = 240;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_FMT, &fmt), 0);
	ck_assert_uint_eq(fake.last_want.max_video_frame_size, 0);
	camera->streams[0].quirks |= UVC_QUIRK_PROBE_EXTRAFIELDS;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_FMT, &fmt), 0);
	ck_assert_uint_eq(fake.last_want.max_video_frame_size, 640 * 480 * 2);
	ck_assert_uint_eq(fake.probes, 2);
	node_release(&n, &f);
}
END_TEST

START_TEST(converted_format_negotiated)
{
	struct node_file f;
	node_open(&n, &f);
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_RGB24;
	fmt.fmt.pix.width = 640;
	fmt.fmt.pix.height = 480;
	n.convert = false;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_FMT, &fmt), 0);
	ck_assert_uint_eq(fmt.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV); /* the default format */

	n.convert = true;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_RGB24;
	fmt.fmt.pix.bytesperline = 7;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_FMT, &fmt), 0);
	ck_assert_uint_eq(fake.last_want.format_index, 1); /* YUYV */
	ck_assert_uint_eq(fake.last_want.frame_index, 1);
	ck_assert_uint_eq(fake.last_want.interval, 333333);
	ck_assert_uint_eq(fmt.fmt.pix.pixelformat, V4L2_PIX_FMT_RGB24);
	ck_assert_uint_eq(fmt.fmt.pix.width, 640);
	ck_assert_uint_eq(fmt.fmt.pix.height, 480);
	ck_assert_uint_eq(fmt.fmt.pix.bytesperline, 1920);
	ck_assert_uint_eq(fmt.fmt.pix.sizeimage, 921600);
	ck_assert_uint_eq(fmt.fmt.pix.field, V4L2_FIELD_NONE);
	ck_assert_uint_eq(fmt.fmt.pix.colorspace, V4L2_COLORSPACE_SRGB);
	ck_assert_uint_eq(fmt.fmt.pix.priv, V4L2_PIX_FMT_PRIV_MAGIC);
	ck_assert_uint_eq(n.fmt.conv_fourcc, 0); /* TRY_FMT changes nothing */

	/* 1920x1080 exists only as MJPEG: JPEG's full-range BT.601 planes */
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_YUV420;
	fmt.fmt.pix.width = 1900;
	fmt.fmt.pix.height = 1000;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_FMT, &fmt), 0);
	ck_assert_uint_eq(fake.last_want.format_index, 2);
	ck_assert_uint_eq(fmt.fmt.pix.width, 1920);
	ck_assert_uint_eq(fmt.fmt.pix.height, 1080);
	ck_assert_uint_eq(fmt.fmt.pix.bytesperline, 1920);
	ck_assert_uint_eq(fmt.fmt.pix.sizeimage, 1920 * 1080 * 3 / 2);
	ck_assert_uint_eq(fmt.fmt.pix.ycbcr_enc, V4L2_YCBCR_ENC_601);
	ck_assert_uint_eq(fmt.fmt.pix.quantization, V4L2_QUANTIZATION_FULL_RANGE);

	/* S_FMT keeps it: G_FMT, buffer sizes and the stream follow */
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_BGR24;
	fmt.fmt.pix.width = 1280;
	fmt.fmt.pix.height = 720;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_FMT, &fmt), 0);
	ck_assert_uint_eq(n.fmt.conv_fourcc, V4L2_PIX_FMT_BGR24);
	ck_assert_uint_eq(n.fmt.conv_reason, CFMT_RAW_AT_INTERVAL);
	ck_assert_uint_eq(n.fmt.format->fourcc, V4L2_PIX_FMT_YUYV);
	struct v4l2_format cur = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_FMT, &cur), 0);
	ck_assert_uint_eq(cur.fmt.pix.pixelformat, V4L2_PIX_FMT_BGR24);
	ck_assert_uint_eq(cur.fmt.pix.width, 1280);
	ck_assert_uint_eq(cur.fmt.pix.bytesperline, 3840);
	ck_assert_uint_eq(cur.fmt.pix.sizeimage, 2764800);
	ck_assert_mem_eq(&cur.fmt.pix, &fmt.fmt.pix, sizeof(cur.fmt.pix)); /* S_FMT answered the same */
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_REQBUFS, &rb), 0);
	struct v4l2_buffer b = { .index = 0, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				 .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERYBUF, &b), 0);
	ck_assert_uint_ge(b.length, 2764800);
	for (unsigned i = 0; i < 2; i++) {
		b.index = i;
		ck_assert_int_eq(ioctl_(&f, VIDIOC_QBUF, &b), 0);
	}
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_STREAMON, &type), 0);
	ck_assert_uint_eq(fake.started.format_index, 1);
	ck_assert_uint_eq(fake.started.frame_index, 2);
	/* while streaming TRY_FMT answers from the descriptors alone */
	unsigned probes = fake.probes;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_RGB24;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_FMT, &fmt), 0);
	ck_assert_uint_eq(fake.probes, probes);
	ck_assert_uint_eq(fmt.fmt.pix.sizeimage, 2764800);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_STREAMOFF, &type), 0);
	rb.count = 0;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_REQBUFS, &rb), 0);

	/* a native S_FMT ends the conversion */
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_FMT, &fmt), 0);
	ck_assert_uint_eq(n.fmt.conv_fourcc, 0);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_FMT, &cur), 0);
	ck_assert_uint_eq(cur.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	node_release(&n, &f);
}
END_TEST

/* usb3: YUYV 1280x720 at 30, 15, 5 fps; MJPEG at 60 and 30 fps. RGB3 at
 * 60 fps comes from MJPEG, at 15 fps from YUYV again. */
START_TEST(converted_source_follows_interval)
{
	teardown();
	setup_profile("usb3");
	n.convert = true;
	struct node_file f;
	node_open(&n, &f);
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_RGB24;
	fmt.fmt.pix.width = 1280;
	fmt.fmt.pix.height = 720;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_FMT, &fmt), 0);
	ck_assert_uint_eq(n.fmt.format->fourcc, V4L2_PIX_FMT_YUYV);
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	parm.parm.capture.timeperframe = (struct v4l2_fract){ 1, 60 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_PARM, &parm), 0);
	ck_assert_uint_eq(parm.parm.capture.timeperframe.denominator, 60);
	ck_assert_uint_eq(fake.last_want.format_index, 2);
	ck_assert_uint_eq(n.fmt.format->fourcc, V4L2_PIX_FMT_MJPEG);
	ck_assert_uint_eq(n.fmt.frame->width, 1280);
	ck_assert_uint_eq(n.fmt.conv_fourcc, V4L2_PIX_FMT_RGB24);
	ck_assert_uint_eq(n.fmt.conv_reason, CFMT_MJPEG);
	struct v4l2_format cur = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_FMT, &cur), 0);
	ck_assert_uint_eq(cur.fmt.pix.pixelformat, V4L2_PIX_FMT_RGB24);
	ck_assert_uint_eq(cur.fmt.pix.sizeimage, 1280 * 720 * 3);
	parm.parm.capture.timeperframe = (struct v4l2_fract){ 1, 15 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_PARM, &parm), 0);
	ck_assert_uint_eq(parm.parm.capture.timeperframe.denominator, 15);
	ck_assert_uint_eq(n.fmt.format->fourcc, V4L2_PIX_FMT_YUYV);
	ck_assert_uint_eq(n.fmt.conv_reason, CFMT_RAW_AT_INTERVAL);
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
	struct vq_buffer *b = vq_next(&n.procs->queue);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_ge(b->length, bytes);
	memset(b->mem, fill, bytes);
	struct timeval tv = { 1, 2 };
	vq_done(&n.procs->queue, b, (uint32_t)bytes, 0, -1, &tv);
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
	ck_assert(!node_poll_plain(&n, &a)); /* not streaming: POLLERR */
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
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, NULL, 0, true, NULL, NULL), -EAGAIN);
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, NULL, 0, false, NULL, NULL), NODE_WAIT);
	ck_assert_uint_eq(node_poll(&n, &a, POLLIN | POLLPRI) & POLLIN, 0);
	/* a poll of a answers POLLIN exactly for a done buffer of its own;
	 * b does not own the queue */
	ck_assert(node_poll_plain(&n, &a));
	ck_assert(!node_poll_plain(&n, &b));
	deliver_frame(0x42, 640 * 480 * 2);
	ck_assert_uint_ne(node_poll(&n, &a, POLLIN | POLLPRI) & POLLIN, 0);
	ck_assert(node_poll_plain(&n, &a));
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, NULL, 0, false, NULL, NULL), 0);
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
	ck_assert(!node_poll_plain(&n, &a));
	/* after STREAMOFF a DQBUF does not wait */
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, NULL, 0, false, NULL, NULL), -EINVAL);
	/* closing the owner frees the queue for b */
	node_release(&n, &a);
	ck_assert_int_eq(ioctl_(&b, VIDIOC_REQBUFS, &rb), 0);
	node_release(&n, &b);
}
END_TEST

/* ---- several processes on one camera (docs/architecture.md) ---- */

static int set_fmt(struct node_file *f, unsigned cmd, uint32_t fourcc, uint32_t w, uint32_t h,
		   struct v4l2_format *out)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	fmt.fmt.pix.pixelformat = fourcc;
	fmt.fmt.pix.width = w;
	fmt.fmt.pix.height = h;
	int err = ioctl_(f, cmd, &fmt);
	if (out)
		*out = fmt;
	return err;
}

static int stream_mmap(struct node_file *f, unsigned count)
{
	struct v4l2_requestbuffers rb = { .count = count, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	int err = ioctl_(f, VIDIOC_REQBUFS, &rb);
	for (unsigned i = 0; !err && i < rb.count; i++) {
		struct v4l2_buffer b = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					 .memory = V4L2_MEMORY_MMAP };
		err = ioctl_(f, VIDIOC_QBUF, &b);
	}
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	return err ? err : ioctl_(f, VIDIOC_STREAMON, &type);
}

static int stream_off(struct node_file *f)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	return ioctl_(f, VIDIOC_STREAMOFF, &type);
}

START_TEST(processes_share_the_camera)
{
	struct node_file a, a2, b;
	struct v4l2_format got;
	ck_assert_int_eq(node_open_process(&n, &a, 100, 1), 0);
	ck_assert_int_eq(node_open_process(&n, &a2, 100, 1), 0);
	ck_assert_int_eq(node_open_process(&n, &b, 200, 1), 0);
	ck_assert_ptr_eq(a.proc, a2.proc); /* one queue per process */
	ck_assert_ptr_ne(a.proc, b.proc);

	ck_assert_int_eq(set_fmt(&a, VIDIOC_S_FMT, V4L2_PIX_FMT_YUYV, 640, 480, NULL), 0);
	ck_assert_int_eq(stream_mmap(&a, 2), 0);
	ck_assert_uint_eq(fake.starts, 1);
	ck_assert_uint_eq(fake.consumers_on, 1);
	/* within a process, vb2's rule: the other file gets EBUSY */
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&a2, VIDIOC_REQBUFS, &rb), -EBUSY);

	/* another process: what the running stream gives, nothing else */
	ck_assert_int_eq(set_fmt(&b, VIDIOC_G_FMT, 0, 0, 0, &got), 0);
	ck_assert_uint_eq(got.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	ck_assert_uint_eq(got.fmt.pix.width, 640);
	ck_assert_int_eq(set_fmt(&b, VIDIOC_TRY_FMT, V4L2_PIX_FMT_MJPEG, 1280, 720, NULL), -EBUSY);
	ck_assert_int_eq(set_fmt(&b, VIDIOC_S_FMT, V4L2_PIX_FMT_YUYV, 1280, 720, NULL), -EBUSY);
	unsigned probes = fake.probes;
	ck_assert_int_eq(set_fmt(&b, VIDIOC_S_FMT, V4L2_PIX_FMT_YUYV, 640, 480, &got), 0);
	ck_assert_uint_eq(fake.probes, probes); /* the probe control is the stream's */
	struct v4l2_format running;
	ck_assert_int_eq(set_fmt(&a, VIDIOC_G_FMT, 0, 0, 0, &running), 0);
	/* the camera's answer for the running stream, not the descriptors' */
	ck_assert_uint_eq(got.fmt.pix.sizeimage, running.fmt.pix.sizeimage);
	ck_assert_uint_eq(running.fmt.pix.sizeimage, 0x1234);
	ck_assert_int_eq(stream_mmap(&b, 3), 0);
	ck_assert_uint_eq(fake.starts, 1); /* the camera streams once */
	ck_assert_uint_eq(fake.consumers_on, 2);
	ck_assert_uint_eq(b.proc->queue.n_buffers, 3);
	ck_assert_ptr_ne(b.proc->queue.buffers[0].mem, a.proc->queue.buffers[0].mem);

	/* the first one stops: the camera goes on for the other */
	ck_assert_int_eq(stream_off(&a), 0);
	ck_assert_uint_eq(fake.stops, 0);
	ck_assert_uint_eq(fake.consumers_off, 1);
	rb.count = 0;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_REQBUFS, &rb), 0);
	/* and the mode is the running one until nobody streams */
	ck_assert_int_eq(set_fmt(&a, VIDIOC_S_FMT, V4L2_PIX_FMT_MJPEG, 1280, 720, NULL), -EBUSY);
	node_release(&n, &b); /* closing stops its stream */
	ck_assert_uint_eq(fake.stops, 1);
	ck_assert_uint_eq(fake.consumers_off, 2);
	ck_assert_int_eq(set_fmt(&a, VIDIOC_S_FMT, V4L2_PIX_FMT_MJPEG, 1280, 720, &got), 0);
	ck_assert_uint_eq(got.fmt.pix.pixelformat, V4L2_PIX_FMT_MJPEG);
	node_release(&n, &a2);
	node_release(&n, &a);
	ck_assert_ptr_null(n.procs);
}
END_TEST

/* Issue 29, finding 9: a file outlives its process (passed on, inherited
 * by a child), and a later process gets the same ID. The later process is
 * another process: its own queue and format, not the dead one's. */
START_TEST(reused_process_id_is_another_process)
{
	struct node_file old, inherited, later;
	ck_assert_int_eq(node_open_process(&n, &old, 100, 1), 0);
	ck_assert_int_eq(node_open_process(&n, &inherited, 100, 1), 0);
	ck_assert_ptr_eq(old.proc, inherited.proc);
	ck_assert_int_eq(set_fmt(&old, VIDIOC_S_FMT, V4L2_PIX_FMT_YUYV, 640, 480, NULL), 0);
	ck_assert_int_eq(stream_mmap(&old, 2), 0);
	node_release(&n, &old); /* the process goes; its child keeps the file */
	ck_assert_int_eq(node_open_process(&n, &later, 100, 2), 0);
	ck_assert_ptr_ne(later.proc, inherited.proc);
	ck_assert_uint_eq(later.proc->queue.n_buffers, 0);
	ck_assert(!later.proc->own_fmt);
	/* the buffers stay the first process's: the later one's REQBUFS is
	 * its own, not vb2's EBUSY of another file's queue */
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&later, VIDIOC_REQBUFS, &rb), 0);
	ck_assert_ptr_ne(later.proc->queue.buffers[0].mem, inherited.proc->queue.buffers[0].mem);
	node_release(&n, &later);
	node_release(&n, &inherited);
	ck_assert_ptr_null(n.procs);
}
END_TEST

/* A process that set another format before the camera ran cannot stream
 * while the camera runs the first one's; a converted format of the
 * running one can, in buffers of its own size. */
START_TEST(processes_formats)
{
	struct node_file a, b, c;
	struct v4l2_format got;
	n.convert = true;
	node_open_process(&n, &a, 100, 1);
	node_open_process(&n, &b, 200, 1);
	node_open_process(&n, &c, 300, 1);
	ck_assert_int_eq(set_fmt(&c, VIDIOC_S_FMT, V4L2_PIX_FMT_MJPEG, 1280, 720, NULL), 0);
	ck_assert_int_eq(set_fmt(&a, VIDIOC_S_FMT, V4L2_PIX_FMT_YUYV, 640, 480, NULL), 0);
	ck_assert_int_eq(stream_mmap(&a, 2), 0);
	ck_assert_uint_eq(fake.started.format_index, 1); /* YUYV */
	ck_assert_int_eq(stream_mmap(&c, 2), -EBUSY);
	ck_assert(!c.proc->queue.streaming);

	ck_assert_int_eq(set_fmt(&b, VIDIOC_S_FMT, V4L2_PIX_FMT_RGB24, 640, 480, &got), 0);
	ck_assert_uint_eq(got.fmt.pix.sizeimage, 640 * 480 * 3);
	ck_assert_int_eq(set_fmt(&b, VIDIOC_S_FMT, V4L2_PIX_FMT_RGB24, 1920, 1080, NULL), -EBUSY);
	ck_assert_int_eq(stream_mmap(&b, 2), 0);
	ck_assert_uint_eq(b.proc->queue.buffers[0].plane_size, 640 * 480 * 3);
	ck_assert_uint_eq(node_proc_fmt(&n, b.proc)->conv_fourcc, V4L2_PIX_FMT_RGB24);
	ck_assert_uint_eq(node_proc_fmt(&n, a.proc)->conv_fourcc, 0);
	ck_assert_int_eq(set_fmt(&a, VIDIOC_G_FMT, 0, 0, 0, &got), 0);
	ck_assert_uint_eq(got.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	ck_assert_uint_eq(fake.starts, 1);
	node_release(&n, &a);
	node_release(&n, &b);
	ck_assert_uint_eq(fake.stops, 1);
	/* the camera idle: c's format streams now */
	ck_assert_int_eq(stream_mmap(&c, 2), 0);
	ck_assert_uint_eq(fake.started.format_index, 2); /* MJPEG */
	node_release(&n, &c);
}
END_TEST

/* read() of one process beside MMAP of another; priorities stay
 * camera-wide, as on a kernel node. */
START_TEST(processes_read_and_priority)
{
	struct node_file a, b;
	node_open_process(&n, &a, 100, 1);
	node_open_process(&n, &b, 200, 1);
	ck_assert_int_eq(stream_mmap(&a, 2), 0);
	const uint8_t *data;
	size_t len;
	ck_assert_int_eq(node_read(&n, &b, 4096, true, true, &data, &len), -EAGAIN);
	ck_assert(b.proc->queue.streaming);
	ck_assert_uint_eq(b.proc->queue.memory, VQ_MEMORY_READ);
	ck_assert_uint_eq(fake.starts, 1);
	ck_assert_uint_eq(fake.consumers_on, 2);
	uint32_t prio = V4L2_PRIORITY_RECORD;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_S_PRIORITY, &prio), 0);
	ck_assert_int_eq(set_fmt(&b, VIDIOC_S_FMT, V4L2_PIX_FMT_YUYV, 640, 480, NULL), -EBUSY);
	node_release(&n, &b);
	ck_assert_uint_eq(fake.stops, 0);
	node_release(&n, &a);
	ck_assert_uint_eq(fake.stops, 1);
}
END_TEST

/* --exclusive: uvcvideo's single owner, whatever the process. */
START_TEST(exclusive_single_owner)
{
	struct node_file a, b;
	n.exclusive = true;
	node_open_process(&n, &a, 100, 1);
	node_open_process(&n, &b, 200, 1);
	ck_assert_ptr_eq(a.proc, b.proc);
	ck_assert_int_eq(stream_mmap(&a, 2), 0);
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&b, VIDIOC_REQBUFS, &rb), -EBUSY);
	const uint8_t *data;
	size_t len;
	ck_assert_int_eq(node_read(&n, &b, 4096, true, true, &data, &len), -EBUSY);
	node_release(&n, &a);
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
	ck_assert_ptr_null(n.procs); /* the process's queue went with its last file */
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

/* vb2_core_poll: only a POLLIN poller starts read() emulation on an idle
 * queue; a POLLPRI (or POLLOUT) poller gets no queue events at all. */
START_TEST(poll_starts_reading_only_for_pollin)
{
	struct node_file a;
	node_open(&n, &a);
	ck_assert_uint_eq(node_poll(&n, &a, POLLPRI), 0);
	ck_assert_uint_eq(node_poll(&n, &a, POLLOUT), 0);
	ck_assert_uint_eq(fake.starts, 0);
	ck_assert_uint_eq(node_poll(&n, &a, POLLIN), 0);
	ck_assert_uint_eq(fake.starts, 1);
	deliver_frame(0x33, 640 * 480 * 2);
	ck_assert_uint_eq(node_poll(&n, &a, POLLPRI), 0);
	ck_assert_uint_eq(node_poll(&n, &a, POLLIN | POLLPRI), POLLIN | POLLRDNORM);
	node_release(&n, &a);
	ck_assert_uint_eq(fake.stops, 1);
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
	ck_assert(!n.procs->queue.streaming);
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

/* A camera that refuses the commit after stream_on() accepted it (the
 * device commits in the background): a STREAMON queue stops streaming with
 * its buffers still queued and may stream again; a reading file's read()
 * and poll() see a dead stream until it closes. */
START_TEST(stream_failed_later)
{
	struct node_file a, b;
	node_open(&n, &a);
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_REQBUFS, &rb), 0);
	struct v4l2_buffer q = { .index = 0, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				 .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_QBUF, &q), 0);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMON, &type), 0);
	node_stream_failed(&n);
	ck_assert(!n.procs->queue.streaming);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_QUERYBUF, &q), 0);
	ck_assert(q.flags & V4L2_BUF_FLAG_QUEUED);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMON, &type), 0);
	ck_assert_uint_eq(fake.starts, 2);
	node_release(&n, &a);

	node_open(&n, &b);
	const uint8_t *data;
	size_t len;
	ck_assert_int_eq(node_read(&n, &b, 4096, true, false, &data, &len), NODE_WAIT);
	node_stream_failed(&n);
	ck_assert_int_eq(node_read(&n, &b, 4096, true, false, &data, &len), -EIO);
	ck_assert(node_poll(&n, &b, POLLIN) & POLLERR);
	node_release(&n, &b);
}
END_TEST

/* The camera gone or back: V4L2_EVENT_SOURCE_CHANGE to the files that
 * subscribed to it (id 0), pending ones merged into one. */
START_TEST(source_change_events)
{
	struct node_file a, b;
	node_open(&n, &a);
	node_open(&n, &b);
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_SOURCE_CHANGE };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	sub.id = 7; /* any id may be subscribed; the camera's input is 0 */
	ck_assert_int_eq(ioctl_(&b, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	node_source_change(&n);
	node_source_change(&n);
	struct v4l2_event ev;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_DQEVENT, &ev), 0);
	ck_assert_uint_eq(ev.type, V4L2_EVENT_SOURCE_CHANGE);
	ck_assert_uint_eq(ev.id, 0);
	ck_assert_uint_eq(ev.u.src_change.changes, V4L2_EVENT_SRC_CH_RESOLUTION);
	ck_assert_uint_eq(ev.pending, 0);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_DQEVENT, &ev), -ENOENT);
	ck_assert_int_eq(ioctl_(&b, VIDIOC_DQEVENT, &ev), -ENOENT);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_UNSUBSCRIBE_EVENT, &sub), 0); /* id 7: not a's */
	sub.id = 0;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_UNSUBSCRIBE_EVENT, &sub), 0);
	node_source_change(&n);
	ck_assert_int_eq(ioctl_(&a, VIDIOC_DQEVENT, &ev), -ENOENT);
	node_release(&n, &a);
	node_release(&n, &b);
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
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, NULL, 0, true, &data, &len), -E2BIG);
	ck_assert(vq_has_done(&n.procs->queue));
	n.max_userptr_copy = 4096;
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, NULL, 0, true, &data, &len), 0);
	ck_assert_uint_eq(len, 2000);
	ck_assert_uint_eq(((const uint8_t *)data)[1999], 0x55);
	ck_assert_uint_eq(buf.m.userptr, 0x10000);
	node_release(&n, &a);
}
END_TEST

/* A small USERPTR frame leaves DQBUF with the reply's data round; when
 * that round never comes (a signal ended the app's ioctl), the buffer goes
 * back first in line, done, and the next DQBUF gets the same frame. */
START_TEST(userptr_lost_answer_stays_done)
{
	struct node_file a;
	node_open(&n, &a);
	n.max_userptr_copy = 4096;
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_USERPTR };
	ck_assert_int_eq(ioctl_(&a, VIDIOC_REQBUFS, &rb), 0);
	for (unsigned i = 0; i < 2; i++) {
		struct v4l2_buffer q = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					 .memory = V4L2_MEMORY_USERPTR,
					 .m.userptr = 0x10000 + i * 0x100000, .length = 640 * 480 * 2 };
		ck_assert_int_eq(ioctl_(&a, VIDIOC_QBUF, &q), 0);
	}
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMON, &type), 0);
	deliver_frame(0x66, 2000);
	struct v4l2_buffer buf = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				   .memory = V4L2_MEMORY_USERPTR };
	const void *data = NULL;
	size_t len = 0;
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, NULL, 0, true, &data, &len), 0);
	ck_assert_uint_eq(len, 2000);
	struct v4l2_buffer sent = buf;
	ck_assert(!vq_has_done(&n.procs->queue));
	node_dqbuf_lost(&n, &a, &sent); /* the data round never came */
	ck_assert(vq_has_done(&n.procs->queue));
	memset(&buf, 0, sizeof(buf));
	buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	buf.memory = V4L2_MEMORY_USERPTR;
	data = NULL;
	ck_assert_int_eq(node_ioctl(&n, &a, VIDIOC_DQBUF, &buf, NULL, 0, true, &data, &len), 0);
	ck_assert_uint_eq(buf.index, sent.index);
	ck_assert_uint_eq(buf.sequence, sent.sequence);
	ck_assert_uint_eq(len, 2000);
	ck_assert_uint_eq(((const uint8_t *)data)[1999], 0x66);
	/* once delivered (or after STREAMOFF) a late notice changes nothing */
	ck_assert_int_eq(ioctl_(&a, VIDIOC_QBUF, &buf), 0);
	node_dqbuf_lost(&n, &a, &sent);
	ck_assert(!vq_has_done(&n.procs->queue));
	ck_assert_int_eq(ioctl_(&a, VIDIOC_STREAMOFF, &type), 0);
	node_dqbuf_lost(&n, &a, &sent);
	ck_assert(!vq_has_done(&n.procs->queue));
	sent.index = 99;
	node_dqbuf_lost(&n, &a, &sent);
	node_release(&n, &a);
}
END_TEST

/* ---- controls: the vcam's control model behind the fake camera ---- */

static struct vcam_controls *vc;
static unsigned ctrl_requests, set_curs;
static int ctrl_fail_set; /* answer SET_CUR with this errno */

static int fake_ctrl_request(void *dev, const struct ctrls_request *r, uint8_t *data)
{
	(void)dev;
	enum vcam_entity ve = vcam_entity_of(camera, r->entity);
	ctrl_requests++;
	if (r->query == UVC_SET_CUR) {
		set_curs++;
		if (ctrl_fail_set)
			return ctrl_fail_set;
	}
	int len = vcam_controls_request(vc, ve, r->query, r->selector, data, r->size);
	if (len < 0)
		return vcam_errno(vcam_controls_error(vc));
	return r->query == UVC_SET_CUR ? r->size : len;
}

/* VIDIOC_LOG_STATUS: the node's lines, collected. */
static char status_text[8192];
static size_t status_len;
static unsigned status_calls;

static void collect_line(void *ctx, const char *fmt, ...)
{
	(void)ctx;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(status_text + status_len, sizeof(status_text) - status_len, fmt, ap);
	va_end(ap);
	if (w > 0)
		status_len += (size_t)w;
	if (status_len + 1 < sizeof(status_text))
		status_text[status_len++] = '\n';
	status_text[status_len < sizeof(status_text) ? status_len : sizeof(status_text) - 1] = 0;
}

static void fake_log_status(void *dev)
{
	(void)dev;
	status_calls++;
	status_len = 0;
	node_log_status(&n, collect_line, NULL);
}

static const struct node_ops ctrl_ops = {
	.probe = fake_probe,
	.stream_on = fake_stream_on,
	.stream_off = fake_stream_off,
	.buffer_queued = fake_buffer_queued,
	.ctrl_request = fake_ctrl_request,
	.log_status = fake_log_status,
};

/* The default profile with the vcam's own controls, GET_INFO read as the
 * device does at start-up. */
static void setup_controls(void)
{
	const struct vcam_profile *p = vcam_profile_find("default");
	vc = vcam_controls_new(p->bcd_uvc);
	ck_assert_ptr_nonnull(vc);
	camera = fixture_camera_with(p, vc);
	memset(&fake, 0, sizeof(fake));
	ctrl_requests = set_curs = 0;
	ctrl_fail_set = 0;
	struct node_identity ident = { .card = "Test Camera", .bus_info = "usb-vhci_hcd.0-1",
				       .version = 0x060100 };
	struct uvc_probe probe = { .format_index = 1, .frame_index = 1, .interval = 333333 };
	ck_assert_int_eq(node_init(&n, camera, &ident, &probe, &ctrl_ops, &fake, &mem, NULL), 0);
	struct ctrls_request r;
	uint8_t info;
	while (ctrls_next_info(&n.ctrls, &r)) {
		int res = fake_ctrl_request(NULL, &r, &info);
		ctrls_feed(&n.ctrls, &r, &info, res);
	}
	ck_assert_uint_gt(n.ctrls.n_maps, 20);
}

static void teardown_controls(void)
{
	teardown();
	vcam_controls_free(vc);
	vc = NULL;
}

START_TEST(ctrl_query)
{
	struct node_file f;
	node_open(&n, &f);
	/* enumeration: classes and controls by rising id, as uvcvideo */
	struct v4l2_queryctrl qc = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
	unsigned count = 0, classes = 0;
	uint32_t last = 0;
	while (ioctl_(&f, VIDIOC_QUERYCTRL, &qc) == 0) {
		ck_assert_uint_gt(qc.id, last);
		last = qc.id;
		count++;
		if (qc.type == V4L2_CTRL_TYPE_CTRL_CLASS)
			classes++;
		qc.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	ck_assert_uint_eq(classes, 2);
	ck_assert_uint_gt(count, 20);

	memset(&qc, 0xa5, sizeof(qc));
	qc.id = V4L2_CID_BRIGHTNESS;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERYCTRL, &qc), 0);
	ck_assert_str_eq((char *)qc.name, "Brightness");
	ck_assert_int_eq(qc.minimum, -64);
	ck_assert_int_eq(qc.maximum, 64);
	ck_assert_int_eq(qc.step, 1);
	ck_assert_int_eq(qc.default_value, 0);
	ck_assert_uint_eq(qc.flags, 0);

	struct v4l2_query_ext_ctrl qec = { .id = V4L2_CID_WHITE_BALANCE_TEMPERATURE };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERY_EXT_CTRL, &qec), 0);
	ck_assert_int_eq(qec.minimum, 2800);
	ck_assert_int_eq(qec.maximum, 6500);
	ck_assert_uint_eq(qec.step, 10);
	ck_assert_int_eq(qec.default_value, 4600);
	ck_assert_uint_eq(qec.elems, 1);
	ck_assert_uint_eq(qec.elem_size, 4);

	struct v4l2_querymenu qm = { .id = V4L2_CID_POWER_LINE_FREQUENCY, .index = 1 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERYMENU, &qm), 0);
	ck_assert_str_eq((char *)qm.name, "50 Hz");
	qm.index = 3; /* UVC 1.1 camera: no Auto */
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERYMENU, &qm), -EINVAL);
	qm = (struct v4l2_querymenu){ .id = V4L2_CID_BRIGHTNESS, .index = 0 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERYMENU, &qm), -EINVAL);

	qc.id = V4L2_CID_IRIS_RELATIVE; /* not offered */
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERYCTRL, &qc), -EINVAL);
	qc.id = 0;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERYCTRL, &qc), -EINVAL);
	node_release(&n, &f);
}
END_TEST

START_TEST(ctrl_get_set)
{
	struct node_file f, g;
	node_open(&n, &f);
	node_open(&n, &g);
	struct v4l2_control c = { .id = V4L2_CID_BRIGHTNESS, .value = 40 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_CTRL, &c), 0);
	ck_assert_int_eq(c.value, 40);
	ck_assert_int_eq(vcam_controls_brightness(vc), 40);
	c.value = 0;
	ck_assert_int_eq(ioctl_(&g, VIDIOC_G_CTRL, &c), 0);
	ck_assert_int_eq(c.value, 40);
	/* out of range: clamped, as uvcvideo */
	c.value = 1000;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_CTRL, &c), 0);
	ck_assert_int_eq(c.value, 64);
	ck_assert_int_eq(vcam_controls_brightness(vc), 64);
	/* a menu index outside the menu: refused */
	c = (struct v4l2_control){ .id = V4L2_CID_POWER_LINE_FREQUENCY, .value = 7 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_CTRL, &c), -ERANGE);
	/* unknown and class ids */
	c = (struct v4l2_control){ .id = V4L2_CID_IRIS_RELATIVE };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_CTRL, &c), -EINVAL);
	c = (struct v4l2_control){ .id = V4L2_CID_USER_CLASS };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_CTRL, &c), -EACCES);
	/* S_CTRL changes state: refused below the highest priority */
	uint32_t p = V4L2_PRIORITY_RECORD;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_PRIORITY, &p), 0);
	unsigned sets = set_curs;
	c = (struct v4l2_control){ .id = V4L2_CID_BRIGHTNESS, .value = 3 };
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), -EBUSY);
	struct v4l2_ext_control x = { .id = V4L2_CID_BRIGHTNESS, .value = 3 };
	struct v4l2_ext_controls xc = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1, .controls = &x };
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_EXT_CTRLS, &xc), -EBUSY);
	ck_assert_int_eq(ioctl_(&g, VIDIOC_TRY_EXT_CTRLS, &xc), 0); /* TRY changes nothing */
	ck_assert_uint_eq(set_curs, sets);
	ck_assert_int_eq(ioctl_(&g, VIDIOC_G_CTRL, &c), 0);
	ck_assert_int_eq(c.value, 64);
	node_release(&n, &f);
	node_release(&n, &g);
}
END_TEST

START_TEST(ext_ctrls_error_idx)
{
	struct node_file f;
	node_open(&n, &f);
	struct v4l2_ext_control xs[3];
	struct v4l2_ext_controls c;
#define RESET(which_, n_)                                                                  \
	do {                                                                               \
		memset(xs, 0, sizeof(xs));                                                 \
		xs[0].id = V4L2_CID_BRIGHTNESS;                                            \
		xs[0].value = 10;                                                          \
		xs[1].id = V4L2_CID_CONTRAST;                                              \
		xs[1].value = 20;                                                          \
		xs[2].id = V4L2_CID_GAIN;                                                  \
		xs[2].value = 30;                                                          \
		c = (struct v4l2_ext_controls){ .which = (which_), .count = (n_),          \
						.error_idx = 99, .controls = xs };         \
	} while (0)

	/* count 0: nothing to do, the array is not touched */
	RESET(V4L2_CTRL_WHICH_CUR_VAL, 0);
	c.controls = NULL;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_EXT_CTRLS, &c), 0);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_EXT_CTRLS, &c), 0);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_EXT_CTRLS, &c), 0);
	/* above V4L2_CID_MAX_CTRLS */
	RESET(V4L2_CTRL_WHICH_CUR_VAL, V4L2_CID_MAX_CTRLS + 1);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_EXT_CTRLS, &c), -EINVAL);
	/* an array that did not arrive whole */
	RESET(V4L2_CTRL_WHICH_CUR_VAL, 3);
	ck_assert_int_eq(node_ioctl(&n, &f, VIDIOC_G_EXT_CTRLS, &c, xs, sizeof(xs[0]), true, NULL,
				    NULL),
			 -EFAULT);

	/* set three, read them back */
	RESET(V4L2_CTRL_WHICH_CUR_VAL, 3);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_EXT_CTRLS, &c), 0);
	ck_assert_uint_eq(c.error_idx, 0);
	ck_assert_uint_eq(set_curs, 3);
	RESET(V4L2_CTRL_WHICH_CUR_VAL, 3);
	xs[0].value = xs[1].value = xs[2].value = -1;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_EXT_CTRLS, &c), 0);
	ck_assert_uint_eq(c.error_idx, 0);
	ck_assert_int_eq(xs[0].value, 10);
	ck_assert_int_eq(xs[1].value, 20);
	ck_assert_int_eq(xs[2].value, 30);
	/* defaults */
	RESET(V4L2_CTRL_WHICH_DEF_VAL, 3);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_EXT_CTRLS, &c), 0);
	ck_assert_int_eq(xs[0].value, 0);
	ck_assert_int_eq(xs[1].value, 50);
	ck_assert_int_eq(xs[2].value, 0);
	ck_assert_uint_eq(c.error_idx, 3); /* uvcvideo 6.1 leaves the count */
	/* the default value cannot be set */
	RESET(V4L2_CTRL_WHICH_DEF_VAL, 3);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_EXT_CTRLS, &c), -EINVAL);
	ck_assert_uint_eq(c.error_idx, 3);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_EXT_CTRLS, &c), -EINVAL);
	ck_assert_uint_eq(c.error_idx, 3);
	/* requests are not supported */
	RESET(V4L2_CTRL_WHICH_REQUEST_VAL, 3);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_EXT_CTRLS, &c), -EINVAL);
	ck_assert_uint_eq(c.error_idx, 3);
	/* a class: every control must belong to it */
	RESET(V4L2_CTRL_CLASS_USER, 3);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_EXT_CTRLS, &c), 0);
	RESET(V4L2_CTRL_CLASS_USER, 3);
	xs[1].id = V4L2_CID_FOCUS_ABSOLUTE;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_EXT_CTRLS, &c), -EINVAL);
	ck_assert_uint_eq(c.error_idx, 1);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_EXT_CTRLS, &c), -EINVAL);
	ck_assert_uint_eq(c.error_idx, 3);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_EXT_CTRLS, &c), -EINVAL);
	ck_assert_uint_eq(c.error_idx, 3);
	RESET(V4L2_CID_PRIVATE_BASE, 1);
	xs[0].id = V4L2_CID_PRIVATE_BASE;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_EXT_CTRLS, &c), -EINVAL);

	/* an unknown id: TRY names it, G and S give the count */
	unsigned sets = set_curs;
	RESET(V4L2_CTRL_WHICH_CUR_VAL, 3);
	xs[1].id = V4L2_CID_IRIS_RELATIVE;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_EXT_CTRLS, &c), -EINVAL);
	ck_assert_uint_eq(c.error_idx, 1);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_EXT_CTRLS, &c), -EINVAL);
	ck_assert_uint_eq(c.error_idx, 3);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_EXT_CTRLS, &c), -EINVAL);
	ck_assert_uint_eq(c.error_idx, 3);
	ck_assert_uint_eq(set_curs, sets);

	/* a value refused while setting: TRY names it, S gives the count and
	 * sends nothing */
	RESET(V4L2_CTRL_WHICH_CUR_VAL, 3);
	xs[2].id = V4L2_CID_POWER_LINE_FREQUENCY;
	xs[2].value = 9;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_EXT_CTRLS, &c), -ERANGE);
	ck_assert_uint_eq(c.error_idx, 2);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_EXT_CTRLS, &c), -ERANGE);
	ck_assert_uint_eq(c.error_idx, 3);
	ck_assert_uint_eq(set_curs, sets);

	/* TRY clamps without sending */
	RESET(V4L2_CTRL_WHICH_CUR_VAL, 1);
	xs[0].value = -500;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_TRY_EXT_CTRLS, &c), 0);
	ck_assert_int_eq(xs[0].value, -64);
	ck_assert_uint_eq(c.error_idx, 0);
	ck_assert_uint_eq(set_curs, sets);

	/* the camera refuses a SET_CUR: its error, error_idx names the
	 * control, the value stays what it was */
	RESET(V4L2_CTRL_WHICH_CUR_VAL, 3);
	xs[0].value = 11;
	ctrl_fail_set = -EBUSY;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_EXT_CTRLS, &c), -EBUSY);
	ck_assert_uint_eq(c.error_idx, 0);
	ctrl_fail_set = 0;
	struct v4l2_control g = { .id = V4L2_CID_BRIGHTNESS };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_CTRL, &g), 0);
	ck_assert_int_eq(g.value, 10);

	/* reading a class id, or a write-only/unknown: access errors */
	RESET(V4L2_CTRL_WHICH_CUR_VAL, 2);
	xs[1].id = V4L2_CID_CAMERA_CLASS;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_EXT_CTRLS, &c), -EACCES);
	ck_assert_uint_eq(c.error_idx, 2);
#undef RESET
	node_release(&n, &f);
}
END_TEST

START_TEST(ctrl_camera_gone)
{
	/* every request failing (camera unplugged): errors, no loop */
	struct node_file f;
	node_open(&n, &f);
	struct node_ops broken = ctrl_ops;
	broken.ctrl_request = NULL;
	n.ops = &broken;
	struct v4l2_queryctrl qc = { .id = V4L2_CID_SATURATION };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERYCTRL, &qc), -EIO);
	struct v4l2_control c = { .id = V4L2_CID_SATURATION, .value = 3 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_CTRL, &c), -EIO);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_CTRL, &c), -EIO);
	n.ops = &ctrl_ops;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_CTRL, &c), 0);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_CTRL, &c), 0);
	ck_assert_int_eq(c.value, 3);
	node_release(&n, &f);
}
END_TEST

static int dq(struct node_file *f, struct v4l2_event *ev)
{
	memset(ev, 0xa5, sizeof(*ev));
	return ioctl_(f, VIDIOC_DQEVENT, ev);
}

/* Controls, their events and priorities are the camera's: a process's
 * change reaches another process's subscription, and RECORD priority in one
 * process holds back the others' S_CTRL, as on a kernel node. */
START_TEST(ctrl_events_between_processes)
{
	struct node_file f, g;
	node_open_process(&n, &f, 100, 1);
	node_open_process(&n, &g, 200, 1);
	ck_assert_ptr_ne(f.proc, g.proc);
	struct v4l2_event ev;
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL, .id = V4L2_CID_BRIGHTNESS };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	struct v4l2_control c = { .id = V4L2_CID_BRIGHTNESS, .value = 33 };
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), 0);
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_uint_eq(ev.id, V4L2_CID_BRIGHTNESS);
	ck_assert_int_eq(ev.u.ctrl.value, 33);
	c.value = 0;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_CTRL, &c), 0);
	ck_assert_int_eq(c.value, 33);
	uint32_t prio = V4L2_PRIORITY_RECORD;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_PRIORITY, &prio), 0);
	c.value = 20;
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), -EBUSY);
	node_release(&n, &f);
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), 0);
	node_release(&n, &g);
}
END_TEST

START_TEST(ctrl_events)
{
	struct node_file f, g;
	node_open(&n, &f);
	node_open(&n, &g);
	struct v4l2_event ev;
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL, .id = V4L2_CID_BRIGHTNESS,
					       .flags = V4L2_EVENT_SUB_FL_SEND_INITIAL };
	ck_assert_uint_eq(f.navailable, 0);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	/* a poller waiting for events alone does not start read() emulation */
	ck_assert_uint_eq(node_poll(&n, &f, POLLPRI), POLLPRI);
	ck_assert_uint_eq(fake.starts, 0);
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_uint_eq(ev.type, V4L2_EVENT_CTRL);
	ck_assert_uint_eq(ev.id, V4L2_CID_BRIGHTNESS);
	ck_assert_uint_eq(ev.u.ctrl.changes, V4L2_EVENT_CTRL_CH_VALUE | V4L2_EVENT_CTRL_CH_FLAGS);
	ck_assert_int_eq(ev.u.ctrl.value, 0);
	ck_assert_uint_eq(ev.u.ctrl.type, V4L2_CTRL_TYPE_INTEGER);
	ck_assert_int_eq(ev.u.ctrl.minimum, -64);
	ck_assert_int_eq(ev.u.ctrl.maximum, 64);
	ck_assert_int_eq(ev.u.ctrl.step, 1);
	ck_assert_uint_eq(ev.sequence, 0);
	ck_assert_uint_eq(ev.pending, 0);
	ck_assert_uint_eq(ev.reserved[0], 0);
	ck_assert_uint_eq(node_poll(&n, &f, POLLPRI) & POLLPRI, 0);
	ck_assert_int_eq(dq(&f, &ev), -ENOENT);
	ck_assert_int_eq(node_ioctl(&n, &f, VIDIOC_DQEVENT, &ev, NULL, 0, false, NULL, NULL), NODE_WAIT);
	/* subscribing again sends nothing; classes send nothing; others fail */
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	ck_assert_int_eq(dq(&f, &ev), -ENOENT);
	sub.id = V4L2_CID_USER_CLASS;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	ck_assert_int_eq(dq(&f, &ev), -ENOENT);
	sub.id = V4L2_CID_IRIS_RELATIVE;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), -EINVAL);
	sub = (struct v4l2_event_subscription){ .type = V4L2_EVENT_EOS };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), -EINVAL);

	/* another file's change arrives; the changer's own only with feedback */
	unsigned queued = n.events_queued;
	struct v4l2_control c = { .id = V4L2_CID_BRIGHTNESS, .value = 40 };
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), 0);
	ck_assert_uint_gt(n.events_queued, queued);
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_uint_eq(ev.id, V4L2_CID_BRIGHTNESS);
	ck_assert_uint_eq(ev.u.ctrl.changes, V4L2_EVENT_CTRL_CH_VALUE);
	ck_assert_int_eq(ev.u.ctrl.value, 40);
	ck_assert_uint_eq(ev.sequence, 1);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_CTRL, &c), 0);
	ck_assert_int_eq(dq(&f, &ev), -ENOENT);
	sub = (struct v4l2_event_subscription){ .type = V4L2_EVENT_CTRL, .id = V4L2_CID_CONTRAST,
						.flags = V4L2_EVENT_SUB_FL_ALLOW_FEEDBACK };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	c = (struct v4l2_control){ .id = V4L2_CID_CONTRAST, .value = 10 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_CTRL, &c), 0);
	c.value = 12;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_CTRL, &c), 0);
	/* one event per subscription: the newer replaces the older */
	c = (struct v4l2_control){ .id = V4L2_CID_BRIGHTNESS, .value = 5 };
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), 0);
	ck_assert_uint_eq(f.navailable, 2);
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_uint_eq(ev.id, V4L2_CID_CONTRAST);
	ck_assert_int_eq(ev.u.ctrl.value, 12);
	ck_assert_uint_eq(ev.pending, 1);
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_uint_eq(ev.id, V4L2_CID_BRIGHTNESS);
	ck_assert_int_eq(ev.u.ctrl.value, 5);
	ck_assert_uint_eq(ev.pending, 0);

	/* a master set: its slave's flags change (and reach the changer) */
	sub = (struct v4l2_event_subscription){ .type = V4L2_EVENT_CTRL,
						.id = V4L2_CID_WHITE_BALANCE_TEMPERATURE };
	ck_assert_int_eq(ioctl_(&g, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	c = (struct v4l2_control){ .id = V4L2_CID_AUTO_WHITE_BALANCE, .value = 1 };
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), 0);
	ck_assert_int_eq(dq(&g, &ev), 0);
	ck_assert_uint_eq(ev.id, V4L2_CID_WHITE_BALANCE_TEMPERATURE);
	ck_assert_uint_eq(ev.u.ctrl.changes, V4L2_EVENT_CTRL_CH_VALUE | V4L2_EVENT_CTRL_CH_FLAGS);
	ck_assert_uint_eq(ev.u.ctrl.flags & V4L2_CTRL_FLAG_INACTIVE, V4L2_CTRL_FLAG_INACTIVE);
	c.value = 0;
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), 0);

	/* unsubscribing drops the pending event; V4L2_EVENT_ALL drops all */
	c = (struct v4l2_control){ .id = V4L2_CID_BRIGHTNESS, .value = 6 };
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), 0);
	ck_assert_uint_eq(f.navailable, 1);
	sub = (struct v4l2_event_subscription){ .type = V4L2_EVENT_CTRL, .id = V4L2_CID_BRIGHTNESS };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_UNSUBSCRIBE_EVENT, &sub), 0);
	ck_assert_uint_eq(f.navailable, 0);
	ck_assert_int_eq(ioctl_(&f, VIDIOC_UNSUBSCRIBE_EVENT, &sub), 0);
	sub.type = V4L2_EVENT_ALL;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_UNSUBSCRIBE_EVENT, &sub), 0);
	ck_assert_uint_eq(f.n_subs, 0);
	node_release(&n, &g);
	/* a file closed: no event goes to it */
	sub = (struct v4l2_event_subscription){ .type = V4L2_EVENT_CTRL, .id = V4L2_CID_BRIGHTNESS };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	c.value = 7;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_CTRL, &c), 0);
	node_release(&n, &f);
	ck_assert_ptr_null(n.files);
}
END_TEST

/* ---- the camera's own changes (status endpoint) ---- */

START_TEST(status_events)
{
	struct node_file f, g;
	node_open(&n, &f);
	node_open(&n, &g);
	struct v4l2_event ev;
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL,
					       .id = V4L2_CID_WHITE_BALANCE_TEMPERATURE };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);

	/* white balance temperature 4650 K, as the vcam reports it */
	const uint8_t v4650[] = { 0x2a, 0x12 };
	unsigned queued = n.events_queued;
	ck_assert_int_eq(node_status_event(&n, VCAM_ID_PROCESSING,
					   UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, v4650, 2),
			 1);
	ck_assert_uint_gt(n.events_queued, queued);
	ck_assert_uint_eq(node_poll(&n, &f, POLLPRI) & POLLPRI, POLLPRI);
	ck_assert_uint_eq(node_poll(&n, &g, POLLPRI) & POLLPRI, 0);
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_uint_eq(ev.id, V4L2_CID_WHITE_BALANCE_TEMPERATURE);
	ck_assert_uint_eq(ev.u.ctrl.changes, V4L2_EVENT_CTRL_CH_VALUE);
	ck_assert_int_eq(ev.u.ctrl.value, 4650);
	ck_assert_int_eq(ev.u.ctrl.minimum, 2800);
	ck_assert_int_eq(ev.u.ctrl.maximum, 6500);
	ck_assert_uint_eq(ev.u.ctrl.flags, 0);
	/* bytes the packet lacks read as zero */
	ck_assert_int_eq(node_status_event(&n, VCAM_ID_PROCESSING,
					   UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, v4650, 1),
			 1);
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_int_eq(ev.u.ctrl.value, 0x2a);
	/* controls nobody knows: nothing */
	queued = n.events_queued;
	ck_assert_int_eq(node_status_event(&n, 9, 1, v4650, 2), -ENOENT);
	ck_assert_int_eq(node_status_event(&n, VCAM_ID_PROCESSING, 0, v4650, 2), -ENOENT);
	ck_assert_int_eq(node_status_event(&n, VCAM_ID_EXTENSION, 1, v4650, 1), -ENOENT);
	ck_assert_uint_eq(n.events_queued, queued);

	/* the camera switched its auto white balance on by itself: the
	 * slave's flags (inactive now) and value go out first, with CH_FLAGS */
	uint8_t on = 1;
	ck_assert_int_eq(vcam_controls_request(vc, VCAM_ENTITY_PROCESSING, UVC_SET_CUR,
					       UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, &on, 1),
			 0);
	sub.id = V4L2_CID_AUTO_WHITE_BALANCE;
	ck_assert_int_eq(ioctl_(&g, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	ck_assert_int_eq(node_status_event(&n, VCAM_ID_PROCESSING,
					   UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, &on, 1),
			 1);
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_uint_eq(ev.id, V4L2_CID_WHITE_BALANCE_TEMPERATURE);
	ck_assert_uint_eq(ev.u.ctrl.changes, V4L2_EVENT_CTRL_CH_VALUE | V4L2_EVENT_CTRL_CH_FLAGS);
	ck_assert_uint_eq(ev.u.ctrl.flags & V4L2_CTRL_FLAG_INACTIVE, V4L2_CTRL_FLAG_INACTIVE);
	ck_assert_int_eq(dq(&g, &ev), 0);
	ck_assert_uint_eq(ev.id, V4L2_CID_AUTO_WHITE_BALANCE);
	ck_assert_uint_eq(ev.u.ctrl.changes, V4L2_EVENT_CTRL_CH_VALUE);
	ck_assert_int_eq(ev.u.ctrl.value, 1);
	/* and the cached value is dropped: a get reads the camera */
	struct v4l2_control c = { .id = V4L2_CID_AUTO_WHITE_BALANCE };
	ck_assert_int_eq(ioctl_(&g, VIDIOC_G_CTRL, &c), 0);
	ck_assert_int_eq(c.value, 1);
	c.value = 0;
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), 0);
	ck_assert_int_eq(dq(&f, &ev), 0); /* its slave's flags changed again */
	ck_assert_uint_eq(ev.u.ctrl.flags & V4L2_CTRL_FLAG_INACTIVE, 0);

	/* an asynchronous control: the setter awaits the camera's report,
	 * which then goes to the others only (and to it with feedback) */
	int b = ctrls_find(&n.ctrls, V4L2_CID_BRIGHTNESS);
	unsigned bi = n.ctrls.maps[b].uvc;
	n.ctrls.uvc[bi].flags |= UVC_CTRL_FLAG_ASYNCHRONOUS;
	sub.id = V4L2_CID_BRIGHTNESS;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	ck_assert_int_eq(ioctl_(&g, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	c = (struct v4l2_control){ .id = V4L2_CID_BRIGHTNESS, .value = 20 };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_S_CTRL, &c), 0);
	ck_assert_int_eq(dq(&g, &ev), -ENOENT); /* no event until the camera says */
	ck_assert_ptr_eq(n.ctrls.uvc[bi].owner, &f);
	const uint8_t v20[] = { 20, 0 };
	ck_assert_int_eq(node_status_event(&n, VCAM_ID_PROCESSING, UVC_PU_BRIGHTNESS_CONTROL, v20, 2),
			 1);
	ck_assert_ptr_null(n.ctrls.uvc[bi].owner);
	ck_assert_int_eq(dq(&f, &ev), -ENOENT);
	ck_assert_int_eq(dq(&g, &ev), 0);
	ck_assert_int_eq(ev.u.ctrl.value, 20);
	/* a report nobody awaits goes to everyone */
	ck_assert_int_eq(node_status_event(&n, VCAM_ID_PROCESSING, UVC_PU_BRIGHTNESS_CONTROL, v20, 2),
			 1);
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_int_eq(dq(&g, &ev), 0);
	/* a closed file no longer awaits anything */
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_CTRL, &c), 0);
	ck_assert_ptr_eq(n.ctrls.uvc[bi].owner, &g);
	node_release(&n, &g);
	ck_assert_ptr_null(n.ctrls.uvc[bi].owner);
	ck_assert_int_eq(node_status_event(&n, VCAM_ID_PROCESSING, UVC_PU_BRIGHTNESS_CONTROL, v20, 2),
			 1);
	ck_assert_int_eq(dq(&f, &ev), 0);

	/* whatever a camera sends: an answer, never a crash or a read
	 * beyond the bytes given (ASan) */
	for (unsigned id = 0; id < 64; id++)
		sub.id = V4L2_CID_BASE + id, ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub);
	unsigned seed = 7;
	for (unsigned round = 0; round < 3000; round++) {
		uint8_t bytes[16];
		size_t len = round % 17;
		for (size_t i = 0; i < sizeof(bytes); i++) {
			seed = seed * 1103515245u + 12345u;
			bytes[i] = (uint8_t)(seed >> 16);
		}
		uint8_t *copy = len ? malloc(len) : NULL;
		if (len)
			memcpy(copy, bytes, len);
		int r = node_status_event(&n, (uint8_t)(round % 5), (uint8_t)(bytes[0] % 24), copy, len);
		ck_assert(r >= 0 || r == -ENOENT);
		free(copy);
		while (dq(&f, &ev) == 0)
			;
	}
	node_release(&n, &f);
}
END_TEST

/* S_EXT_CTRLS of a master and its slave: one event for the slave (with
 * CH_FLAGS), none sent for it as a slave (uvc_ctrl_send_events). */
START_TEST(master_and_slave_together)
{
	struct node_file f, g;
	node_open(&n, &f);
	node_open(&n, &g);
	struct v4l2_event ev;
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL,
					       .id = V4L2_CID_WHITE_BALANCE_TEMPERATURE };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	struct v4l2_ext_control xs[2] = { { .id = V4L2_CID_AUTO_WHITE_BALANCE, .value = 0 },
					  { .id = V4L2_CID_WHITE_BALANCE_TEMPERATURE, .value = 5000 } };
	struct v4l2_ext_controls c = { .which = V4L2_CTRL_CLASS_USER, .count = 2, .controls = xs };
	ck_assert_int_eq(ioctl_(&g, VIDIOC_S_EXT_CTRLS, &c), 0);
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_uint_eq(ev.u.ctrl.changes, V4L2_EVENT_CTRL_CH_VALUE | V4L2_EVENT_CTRL_CH_FLAGS);
	ck_assert_int_eq(ev.u.ctrl.value, 5000);
	ck_assert_uint_eq(ev.sequence, 0); /* one event queued, not two merged */
	ck_assert_int_eq(dq(&f, &ev), -ENOENT);
	node_release(&n, &g);
	node_release(&n, &f);
}
END_TEST

/* UVCIOC_CTRL_QUERY and UVCIOC_CTRL_MAP through node_ioctl, as cuse/
 * marshals them (data and menu as extra). */
static int xu_ioctl(struct node_file *f, uint8_t sel, uint8_t query, uint16_t size, uint8_t *data)
{
	struct uvc_xu_control_query q = { .unit = VCAM_ID_EXTENSION, .selector = sel,
					  .query = query, .size = size, .data = NULL };
	return node_ioctl(&n, f, UVCIOC_CTRL_QUERY, &q, size ? data : NULL, size, true, NULL, NULL);
}

START_TEST(xu_ioctls)
{
	struct node_file f;
	node_open(&n, &f);
	uint8_t d[4] = { 0 };
	ck_assert_int_eq(xu_ioctl(&f, 1, UVC_GET_INFO, 1, d), 0);
	ck_assert_uint_eq(d[0], UVC_CONTROL_CAP_GET | UVC_CONTROL_CAP_SET);
	ck_assert_int_eq(xu_ioctl(&f, 1, UVC_GET_LEN, 2, d), 0);
	ck_assert_uint_eq(d[0], 1);
	ck_assert_int_eq(xu_ioctl(&f, 2, UVC_GET_CUR, 2, d), 0);
	ck_assert_uint_eq(d[0] | d[1] << 8, 0);
	d[0] = 2;
	ck_assert_int_eq(xu_ioctl(&f, 1, UVC_SET_CUR, 1, d), 0);
	ck_assert_int_eq(xu_ioctl(&f, 1, UVC_GET_CUR, 1, d), 0);
	ck_assert_uint_eq(d[0], 2);
	ck_assert_int_eq(xu_ioctl(&f, 3, UVC_SET_CUR, 4, d), -EBADRQC);
	ck_assert_int_eq(xu_ioctl(&f, 7, UVC_GET_CUR, 1, d), -ENOENT);
	ck_assert_int_eq(xu_ioctl(&f, 1, UVC_GET_CUR, 4, d), -ENOBUFS);
	d[0] = 9; /* out of the camera's range: its STALL and error code */
	ck_assert_int_eq(xu_ioctl(&f, 1, UVC_SET_CUR, 1, d), -ERANGE);
	/* the data did not come (marshalling lost it): EFAULT, nothing sent */
	struct uvc_xu_control_query q = { .unit = VCAM_ID_EXTENSION, .selector = 1,
					  .query = UVC_GET_CUR, .size = 1 };
	ck_assert_int_eq(node_ioctl(&n, &f, UVCIOC_CTRL_QUERY, &q, NULL, 0, true, NULL, NULL),
			 -EFAULT);
	/* known but not mapped: its status reports are not events */
	ck_assert_int_eq(node_status_event(&n, VCAM_ID_EXTENSION, 1, d, 1), -ENOENT);

	/* a menu mapping of the LED mode */
	struct uvc_menu_info menu[4] = { { 0, "Off" }, { 1, "On" }, { 2, "Blink" }, { 3, "Auto" } };
	struct uvc_xu_control_mapping m = { .id = V4L2_CID_CAMERA_CLASS_BASE + 0x1000,
					    .name = "LED Mode", .selector = 1, .size = 8,
					    .v4l2_type = V4L2_CTRL_TYPE_MENU,
					    .data_type = UVC_CTRL_DATA_TYPE_ENUM,
					    .menu_info = NULL, .menu_count = 4 };
	memcpy(m.entity, vcam_xu_guid, 16);
	ck_assert_int_eq(node_ioctl(&n, &f, UVCIOC_CTRL_MAP, &m, menu, sizeof(menu), true, NULL, NULL),
			 0);
	ck_assert_int_eq(node_ioctl(&n, &f, UVCIOC_CTRL_MAP, &m, menu, sizeof(menu), true, NULL, NULL),
			 -EEXIST);
	/* a menu that did not come along */
	m.id++;
	ck_assert_int_eq(node_ioctl(&n, &f, UVCIOC_CTRL_MAP, &m, NULL, 0, true, NULL, NULL), -EFAULT);
	m.id--;
	struct v4l2_queryctrl qc = { .id = m.id };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_QUERYCTRL, &qc), 0);
	ck_assert_str_eq((char *)qc.name, "LED Mode");
	struct v4l2_control c = { .id = m.id };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_G_CTRL, &c), 0);
	ck_assert_int_eq(c.value, 2);
	/* now its status reports are events */
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL, .id = m.id };
	ck_assert_int_eq(ioctl_(&f, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	d[0] = 1;
	ck_assert_int_eq(node_status_event(&n, VCAM_ID_EXTENSION, 1, d, 1), 1);
	struct v4l2_event ev;
	ck_assert_int_eq(dq(&f, &ev), 0);
	ck_assert_uint_eq(ev.id, m.id);
	ck_assert_int_eq(ev.u.ctrl.value, 1);
	ck_assert_uint_eq(ev.u.ctrl.type, V4L2_CTRL_TYPE_MENU);

	/* VIDIOC_LOG_STATUS: the node's state, every control's value */
	status_calls = 0;
	ck_assert_int_eq(ioctl_(&f, VIDIOC_LOG_STATUS, NULL), 0);
	ck_assert_uint_eq(status_calls, 1);
	ck_assert_ptr_nonnull(strstr(status_text, "format: YUYV 640x480, 1/30 s per frame"));
	ck_assert_ptr_nonnull(strstr(status_text, "streaming: no"));
	ck_assert_ptr_nonnull(strstr(status_text, "open files: 1, event subscriptions: 1"));
	ck_assert_ptr_nonnull(strstr(status_text, "User Controls\n  Brightness: 0\n"));
	ck_assert_ptr_nonnull(strstr(status_text, "  Power Line Frequency: 1 (50 Hz)\n"));
	ck_assert_ptr_nonnull(strstr(status_text, "  LED Mode: 2 (Blink)\n"));
	ck_assert_ptr_nonnull(strstr(status_text, "controls: 28 (1 mapped by applications"));
	node_release(&n, &f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("v4l2-node");
	TCase *tc = tcase_create("node");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, querycap);
	tcase_add_test(tc, reused_process_id_is_another_process);
	tcase_add_test(tc, converted_formats_listed);
	tcase_add_test(tc, priority);
	tcase_add_test(tc, inputs);
	tcase_add_test(tc, inputs_through_a_selector_unit);
	tcase_add_test(tc, formats_negotiated_with_camera);
	tcase_add_test(tc, probe_extrafields);
	tcase_add_test(tc, converted_format_negotiated);
	tcase_add_test(tc, converted_source_follows_interval);
	tcase_add_test(tc, frame_rate);
	tcase_add_test(tc, mmap_streaming_and_owner);
	tcase_add_test(tc, owner_close_stops_the_camera);
	tcase_add_test(tc, processes_share_the_camera);
	tcase_add_test(tc, processes_formats);
	tcase_add_test(tc, processes_read_and_priority);
	tcase_add_test(tc, exclusive_single_owner);
	tcase_add_test(tc, read_in_chunks);
	tcase_add_test(tc, poll_starts_reading_only_for_pollin);
	tcase_add_test(tc, streamoff_while_reading);
	tcase_add_test(tc, streamon_failure_keeps_buffers);
	tcase_add_test(tc, stream_failed_later);
	tcase_add_test(tc, source_change_events);
	tcase_add_test(tc, userptr_too_large_is_kept);
	tcase_add_test(tc, userptr_lost_answer_stays_done);
	suite_add_tcase(s, tc);
	TCase *tcc = tcase_create("controls");
	tcase_add_checked_fixture(tcc, setup_controls, teardown_controls);
	tcase_add_test(tcc, ctrl_query);
	tcase_add_test(tcc, ctrl_get_set);
	tcase_add_test(tcc, ext_ctrls_error_idx);
	tcase_add_test(tcc, ctrl_camera_gone);
	tcase_add_test(tcc, ctrl_events);
	tcase_add_test(tcc, ctrl_events_between_processes);
	tcase_add_test(tcc, status_events);
	tcase_add_test(tcc, master_and_slave_together);
	tcase_add_test(tcc, xu_ioctls);
	suite_add_tcase(s, tcc);
	return unit_run(s);
}

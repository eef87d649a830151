/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/v4l2/node.c in asynchronous mode (node_call.c): calls that need the
 * camera answer NODE_CAMERA, the test plays the device and the camera
 * answers when the test says. The same ioctls on a synchronous node over
 * an identical camera are the reference: answers, events, LOG_STATUS lines
 * and the requests the camera sees must be the same. */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>
#include <linux/uvcvideo.h>
#include <linux/videodev2.h>

#include "controls.h"    /* tests/vcam */
#include "descriptors.h" /* tests/vcam */
#include "probe.h"       /* tests/vcam */
#include "profile.h"
#include "node_fixture.h"
#include "unit_run.h"
#include "vcam_fixture.h"
#include "v4l2/node.h"

/* One node and the camera behind it. */
struct side {
	struct node node;
	struct vcam_controls *vc;
	unsigned requests;       /* the camera saw */
	char trace[32768];       /* every request the camera saw, in order */
	size_t tlen;
	char status[16384];      /* LOG_STATUS lines of the last run */
	size_t slen;
	int inject;              /* the next request fails with this */
	unsigned streams;
	struct uvc_probe probe;  /* the camera's probe control */
};

static struct uvc_camera *camera;
static struct side s_sync, s_async;

static void trace(struct side *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void trace(struct side *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(s->trace + s->tlen, sizeof(s->trace) - s->tlen, fmt, ap);
	va_end(ap);
	if (w > 0 && s->tlen + (size_t)w < sizeof(s->trace))
		s->tlen += (size_t)w;
}

/* The probe control of the vcam's default profile, as the vcam answers it. */
static int probe_request(struct side *s, const struct ctrls_request *r, uint8_t *data)
{
	const struct vcam_profile *prof = vcam_profile_find("default");
	if (r->selector != UVC_VS_PROBE_CONTROL || r->size != uvc_probe_size(prof->bcd_uvc))
		return -EPIPE;
	struct uvc_probe p;
	switch (r->query) {
	case UVC_SET_CUR:
		uvc_probe_decode(data, r->size, &p);
		if (vcam_probe_negotiate(prof, &p, &s->probe))
			return -EPIPE;
		return r->size;
	case UVC_GET_CUR:
		p = s->probe;
		break;
	case UVC_GET_MIN:
		vcam_probe_min(prof, &s->probe, &p);
		break;
	case UVC_GET_MAX:
		vcam_probe_max(prof, &s->probe, &p);
		break;
	case UVC_GET_DEF:
		vcam_probe_default(prof, &p);
		break;
	default:
		return -EPIPE;
	}
	uvc_probe_encode(&p, data, r->size);
	return r->size;
}

/* What the camera answers to r (SET_CUR: data holds the bytes sent). */
static int camera_request(struct side *s, const struct ctrls_request *r, uint8_t *data)
{
	enum vcam_entity ve = r->streaming ? VCAM_ENTITY_CAMERA : vcam_entity_of(camera, r->entity);
	s->requests++;
	trace(s, "%02x/%u/%u/%u", r->query, r->entity, r->selector, r->size);
	if (r->query == UVC_SET_CUR)
		for (unsigned i = 0; i < r->size; i++)
			trace(s, " %02x", data[i]);
	trace(s, "\n");
	if (s->inject) {
		int err = s->inject;
		s->inject = 0;
		return err;
	}
	if (r->streaming)
		return probe_request(s, r, data);
	int len = vcam_controls_request(s->vc, ve, r->query, r->selector, data, r->size);
	if (len < 0)
		return vcam_errno(vcam_controls_error(s->vc));
	return r->query == UVC_SET_CUR ? r->size : len;
}

static int sync_request(void *dev, const struct ctrls_request *r, uint8_t *data)
{
	return camera_request(dev, r, data);
}

static void collect_line(void *ctx, const char *fmt, ...)
{
	struct side *s = ctx;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(s->status + s->slen, sizeof(s->status) - s->slen - 1, fmt, ap);
	va_end(ap);
	if (w > 0 && s->slen + (size_t)w + 1 < sizeof(s->status)) {
		s->slen += (size_t)w;
		s->status[s->slen++] = '\n';
		s->status[s->slen] = 0;
	}
}

/* As the device: a run may be undone, so each starts the text afresh. */
static void log_status(void *dev)
{
	struct side *s = dev;
	s->slen = 0;
	s->status[0] = 0;
	node_log_status(&s->node, collect_line, s);
}

/* The synchronous node's probe: the same negotiation, each request
 * answered at once. */
static int sync_vs_request(void *dev, uint8_t query, uint8_t selector, uint8_t *data,
			   uint16_t len)
{
	struct ctrls_request r = { .query = query, .selector = selector, .size = len,
				   .streaming = true };
	return camera_request(dev, &r, data);
}

static int probe(void *dev, const struct uvc_probe *want, struct uvc_probe *got)
{
	struct uvc_probe_notes notes;
	int err = uvc_probe_negotiate(&camera->streams[0], camera->bcd_uvc, sync_vs_request, dev,
				      want, got, &notes);
	return err && err != -ENODEV ? -EIO : err;
}

static int stream_on(void *dev, const struct uvc_probe *p)
{
	(void)p;
	((struct side *)dev)->streams++;
	return 0;
}

static void stream_off(void *dev)
{
	(void)dev;
}

static void buffer_queued(void *dev)
{
	(void)dev;
}

static const struct node_ops ops = {
	.probe = probe,
	.stream_on = stream_on,
	.stream_off = stream_off,
	.buffer_queued = buffer_queued,
	.ctrl_request = sync_request,
	.log_status = log_status,
};

static const struct vq_mem_ops mem = { .alloc = heap_mem_alloc, .release = heap_mem_release };

static void side_init(struct side *s, bool async)
{
	const struct vcam_profile *p = vcam_profile_find("default");
	memset(s, 0, sizeof(*s));
	s->vc = vcam_controls_new(p->bcd_uvc);
	ck_assert_ptr_nonnull(s->vc);
	if (!camera)
		camera = fixture_camera_with(p, s->vc);
	struct node_identity ident = { .card = "Test Camera", .bus_info = "usb-vhci_hcd.0-1",
				       .version = 0x060100 };
	struct uvc_probe pr = { .format_index = 1, .frame_index = 1, .interval = 333333 };
	ck_assert_int_eq(node_init(&s->node, camera, &ident, &pr, &ops, s, &mem, NULL), 0);
	/* start-up: GET_INFO synchronously, as the device does */
	struct ctrls_request r;
	uint8_t info;
	while (ctrls_next_info(&s->node.ctrls, &r)) {
		int res = camera_request(s, &r, &info);
		ctrls_feed(&s->node.ctrls, &r, &info, res);
	}
	s->node.async = async;
	s->requests = 0;
	s->tlen = 0;
}

static void setup(void)
{
	side_init(&s_sync, false);
	side_init(&s_async, true);
}

static void teardown(void)
{
	node_destroy(&s_sync.node);
	node_destroy(&s_async.node);
	vcam_controls_free(s_sync.vc);
	vcam_controls_free(s_async.vc);
	uvc_camera_free(camera);
	camera = NULL;
}

/* The device's part: the camera answers the request the call waits for. */
static void answer_need(struct side *s)
{
	const struct node_camera_req *need = node_camera_need(&s->node);
	ck_assert_ptr_nonnull(need);
	struct ctrls_request r = need->ctrl;
	uint8_t *data = calloc(1, r.size ? r.size : 1);
	ck_assert_ptr_nonnull(data);
	if (r.query == UVC_SET_CUR && r.size)
		memcpy(data, need->out, r.size);
	int res = camera_request(s, &r, data);
	ck_assert_int_eq(node_camera_answer(&s->node, res, data), 0);
	free(data);
}

/* The extra memory of an ioctl, as cuse/ marshals it. */
static size_t extra_of(unsigned cmd, void *arg, void **extra)
{
	*extra = NULL;
	if (cmd == VIDIOC_G_EXT_CTRLS || cmd == VIDIOC_S_EXT_CTRLS || cmd == VIDIOC_TRY_EXT_CTRLS) {
		struct v4l2_ext_controls *c = arg;
		*extra = c->controls;
		return c->count * sizeof(struct v4l2_ext_control);
	}
	if (cmd == UVCIOC_CTRL_QUERY) {
		struct uvc_xu_control_query *q = arg;
		*extra = q->data;
		return q->size;
	}
	return 0;
}

/* One ioctl to its end: on an asynchronous node every NODE_CAMERA is
 * answered and the ioctl made again from the argument as first sent.
 * *rounds (may be NULL) counts the NODE_CAMERA answers. */
static int run(struct side *s, struct node_file *f, unsigned cmd, void *arg, unsigned *rounds)
{
	void *extra;
	size_t extra_len = extra_of(cmd, arg, &extra);
	size_t size = _IOC_SIZE(cmd);
	uint8_t *orig = malloc(size + extra_len + 1);
	ck_assert_ptr_nonnull(orig);
	memcpy(orig, arg, size);
	if (extra_len)
		memcpy(orig + size, extra, extra_len);
	unsigned n = 0;
	int res;
	for (;;) {
		res = node_ioctl(&s->node, f, cmd, arg, extra, extra_len, true, NULL, NULL);
		if (res != NODE_CAMERA)
			break;
		ck_assert(s->node.async);
		answer_need(s);
		memcpy(arg, orig, size);
		if (extra_len)
			memcpy(extra, orig + size, extra_len);
		ck_assert_uint_lt(++n, 10000);
	}
	free(orig);
	if (rounds)
		*rounds = n;
	return res;
}

static int run_status_event(struct side *s, uint8_t entity, uint8_t selector, const uint8_t *v,
			    size_t len)
{
	int res;
	while ((res = node_status_event(&s->node, entity, selector, v, len)) == NODE_CAMERA)
		answer_need(s);
	return res;
}

/* An ioctl made on both nodes: the same answer and argument. */
static int both(struct node_file *fs, struct node_file *fa, unsigned cmd, void *arg, size_t argsz)
{
	uint8_t a_copy[512], a_ext[4096], s_ext[4096];
	ck_assert_uint_le(argsz, sizeof(a_copy));
	memcpy(a_copy, arg, argsz);
	/* each node gets its own extra memory */
	void *extra;
	size_t extra_len = extra_of(cmd, arg, &extra);
	ck_assert_uint_le(extra_len, sizeof(a_ext));
	if (extra_len) {
		memcpy(s_ext, extra, extra_len);
		memcpy(a_ext, extra, extra_len);
		if (cmd == UVCIOC_CTRL_QUERY)
			((struct uvc_xu_control_query *)a_copy)->data = a_ext;
		else
			((struct v4l2_ext_controls *)a_copy)->controls = (void *)a_ext;
		if (cmd == UVCIOC_CTRL_QUERY)
			((struct uvc_xu_control_query *)arg)->data = s_ext;
		else
			((struct v4l2_ext_controls *)arg)->controls = (void *)s_ext;
	}
	int rs = run(&s_sync, fs, cmd, arg, NULL);
	int ra = run(&s_async, fa, cmd, a_copy, NULL);
	ck_assert_int_eq(ra, rs);
	ck_assert_mem_eq(a_copy, arg, argsz > 8 && extra_len ? argsz - 8 : argsz);
	if (extra_len)
		ck_assert_mem_eq(a_ext, s_ext, extra_len);
	return rs;
}

/* A parked G_CTRL: the camera is asked only by the device, the call waits,
 * and made again after the answer it gives the camera's value. */
START_TEST(parked_g_ctrl_answered_later)
{
	struct node_file f;
	node_open(&s_async.node, &f);
	struct v4l2_control c = { .id = V4L2_CID_BRIGHTNESS };
	ck_assert_int_eq(node_ioctl(&s_async.node, &f, VIDIOC_G_CTRL, &c, NULL, 0, true, NULL, NULL),
			 NODE_CAMERA);
	ck_assert_uint_eq(s_async.requests, 0);
	ck_assert(node_call_pending(&s_async.node));
	const struct node_camera_req *need = node_camera_need(&s_async.node);
	ck_assert_ptr_nonnull(need);
	ck_assert_uint_eq(need->ctrl.query, UVC_GET_CUR);
	ck_assert_uint_eq(need->ctrl.selector, UVC_PU_BRIGHTNESS_CONTROL);
	/* asked again before the answer: still waiting, nothing sent twice */
	c.id = V4L2_CID_BRIGHTNESS;
	ck_assert_int_eq(node_ioctl(&s_async.node, &f, VIDIOC_G_CTRL, &c, NULL, 0, true, NULL, NULL),
			 NODE_CAMERA);
	answer_need(&s_async);
	c = (struct v4l2_control){ .id = V4L2_CID_BRIGHTNESS };
	ck_assert_int_eq(node_ioctl(&s_async.node, &f, VIDIOC_G_CTRL, &c, NULL, 0, true, NULL, NULL),
			 0);
	ck_assert_int_eq(c.value, vcam_controls_brightness(s_async.vc));
	ck_assert_uint_eq(s_async.requests, 1);
	ck_assert(!node_call_pending(&s_async.node));
	/* cached now: answered at once */
	ck_assert_int_eq(node_ioctl(&s_async.node, &f, VIDIOC_G_CTRL, &c, NULL, 0, true, NULL, NULL),
			 0);
	node_release(&s_async.node, &f);
}
END_TEST

/* While one file waits for a slow control, another streams: its QBUF,
 * STREAMON and DQBUF are answered at once, and the waiting call is not
 * disturbed. */
START_TEST(dqbuf_answered_while_other_file_waits)
{
	struct node *n = &s_async.node;
	struct node_file a, b;
	node_open(n, &a);
	node_open(n, &b);
	struct v4l2_control c = { .id = V4L2_CID_CONTRAST };
	ck_assert_int_eq(node_ioctl(n, &a, VIDIOC_G_CTRL, &c, NULL, 0, true, NULL, NULL),
			 NODE_CAMERA);

	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(node_ioctl(n, &b, VIDIOC_REQBUFS, &rb, NULL, 0, true, NULL, NULL), 0);
	for (unsigned i = 0; i < rb.count; i++) {
		struct v4l2_buffer buf = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					   .memory = V4L2_MEMORY_MMAP };
		ck_assert_int_eq(node_ioctl(n, &b, VIDIOC_QBUF, &buf, NULL, 0, true, NULL, NULL), 0);
	}
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(node_ioctl(n, &b, VIDIOC_STREAMON, &type, NULL, 0, true, NULL, NULL), 0);
	ck_assert_uint_eq(s_async.streams, 1);
	for (int frame = 0; frame < 3; frame++) {
		struct vq_buffer *vb = vq_next(&n->procs->queue);
		ck_assert_ptr_nonnull(vb);
		struct timeval tv = { 1, frame };
		vq_done(&n->procs->queue, vb, 1000, 0, frame, &tv);
		struct v4l2_buffer buf = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					   .memory = V4L2_MEMORY_MMAP };
		ck_assert_int_eq(node_ioctl(n, &b, VIDIOC_DQBUF, &buf, NULL, 0, false, NULL, NULL), 0);
		ck_assert_uint_eq(buf.bytesused, 1000);
		ck_assert_uint_eq(buf.sequence, (unsigned)frame);
		ck_assert_int_eq(node_ioctl(n, &b, VIDIOC_QBUF, &buf, NULL, 0, true, NULL, NULL), 0);
	}
	/* the camera has still not been asked anything for the other file */
	ck_assert_uint_eq(s_async.requests, 0);
	ck_assert(node_call_pending(n));
	answer_need(&s_async);
	c = (struct v4l2_control){ .id = V4L2_CID_CONTRAST };
	ck_assert_int_eq(run(&s_async, &a, VIDIOC_G_CTRL, &c, NULL), 0);
	struct v4l2_control ref = { .id = V4L2_CID_CONTRAST };
	struct node_file fs;
	node_open(&s_sync.node, &fs);
	ck_assert_int_eq(run(&s_sync, &fs, VIDIOC_G_CTRL, &ref, NULL), 0);
	ck_assert_int_eq(c.value, ref.value);
	ck_assert_int_eq(node_ioctl(n, &b, VIDIOC_STREAMOFF, &type, NULL, 0, true, NULL, NULL), 0);
	node_release(&s_sync.node, &fs);
	node_release(n, &b);
	node_release(n, &a);
}
END_TEST

/* The same ioctls on a synchronous and an asynchronous node over equal
 * cameras: the same answers, events, LOG_STATUS lines, and the camera
 * sees the same requests in the same order. */
START_TEST(async_answers_as_sync)
{
	struct node_file sa, sb, aa, ab;
	node_open(&s_sync.node, &sa);
	node_open(&s_sync.node, &sb);
	node_open(&s_async.node, &aa);
	node_open(&s_async.node, &ab);
	unsigned rounds = 0;

	/* every control, as v4l2-ctl -l enumerates them */
	struct v4l2_queryctrl qc = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
	for (int i = 0; i < 100; i++) {
		int r = both(&sa, &aa, VIDIOC_QUERYCTRL, &qc, sizeof(qc));
		if (r)
			break;
		qc.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	/* B listens to the exposure cluster, with the initial state */
	uint32_t ids[] = { V4L2_CID_EXPOSURE_AUTO, V4L2_CID_EXPOSURE_ABSOLUTE, V4L2_CID_BRIGHTNESS };
	for (unsigned i = 0; i < 3; i++) {
		struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL, .id = ids[i],
						       .flags = V4L2_EVENT_SUB_FL_SEND_INITIAL };
		both(&sb, &ab, VIDIOC_SUBSCRIBE_EVENT, &sub, sizeof(sub));
	}
	struct v4l2_ext_control xs[3] = { { .id = V4L2_CID_BRIGHTNESS },
					  { .id = V4L2_CID_CONTRAST },
					  { .id = V4L2_CID_EXPOSURE_ABSOLUTE } };
	struct v4l2_ext_controls ec = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 3,
					.controls = xs };
	ck_assert_int_eq(both(&sa, &aa, VIDIOC_G_EXT_CTRLS, &ec, sizeof(ec)), 0);
	/* manual exposure and its value in one request: SET_CURs, events */
	struct v4l2_ext_control set[2] = { { .id = V4L2_CID_EXPOSURE_AUTO, .value = 1 },
					   { .id = V4L2_CID_EXPOSURE_ABSOLUTE, .value = 300 } };
	ec = (struct v4l2_ext_controls){ .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 2,
					 .controls = set };
	ck_assert_int_eq(both(&sa, &aa, VIDIOC_S_EXT_CTRLS, &ec, sizeof(ec)), 0);
	struct v4l2_control c = { .id = V4L2_CID_BRIGHTNESS, .value = 100000 };
	both(&sa, &aa, VIDIOC_S_CTRL, &c, sizeof(c));
	/* extension unit: introduced (GET_LEN, GET_INFO), then set and read */
	uint8_t d = 2;
	struct uvc_xu_control_query xq = { .unit = VCAM_ID_EXTENSION, .selector = 1,
					   .query = UVC_SET_CUR, .size = 1, .data = &d };
	ck_assert_int_eq(both(&sa, &aa, UVCIOC_CTRL_QUERY, &xq, sizeof(xq)), 0);
	xq = (struct uvc_xu_control_query){ .unit = VCAM_ID_EXTENSION, .selector = 1,
					    .query = UVC_GET_CUR, .size = 1, .data = &d };
	ck_assert_int_eq(both(&sa, &aa, UVCIOC_CTRL_QUERY, &xq, sizeof(xq)), 0);
	/* the camera's own change of brightness */
	uint8_t v[2] = { 77, 0 };
	const struct uvc_entity *pu = NULL;
	for (unsigned i = 0; i < camera->n_entities; i++)
		if (camera->entities[i].kind == UVC_ENTITY_PROCESSING_UNIT)
			pu = &camera->entities[i];
	ck_assert_ptr_nonnull(pu);
	int rs = run_status_event(&s_sync, pu->id, UVC_PU_BRIGHTNESS_CONTROL, v, 2);
	ck_assert_int_eq(run_status_event(&s_async, pu->id, UVC_PU_BRIGHTNESS_CONTROL, v, 2), rs);
	/* LOG_STATUS reads every control: many requests, one answer */
	ck_assert_int_eq(run(&s_sync, &sa, VIDIOC_LOG_STATUS, &(int){ 0 }, NULL), 0);
	ck_assert_int_eq(run(&s_async, &aa, VIDIOC_LOG_STATUS, &(int){ 0 }, &rounds), 0);
	ck_assert_uint_gt(rounds, 0);
	ck_assert_str_eq(s_async.status, s_sync.status);

	/* B's events: the same, in the same order */
	unsigned events = 0;
	for (;;) {
		struct v4l2_event es, ea;
		memset(&es, 0, sizeof(es));
		memset(&ea, 0, sizeof(ea));
		int r1 = node_ioctl(&s_sync.node, &sb, VIDIOC_DQEVENT, &es, NULL, 0, true, NULL, NULL);
		int r2 = node_ioctl(&s_async.node, &ab, VIDIOC_DQEVENT, &ea, NULL, 0, true, NULL, NULL);
		ck_assert_int_eq(r2, r1);
		if (r1)
			break;
		ck_assert_uint_eq(ea.id, es.id);
		ck_assert_uint_eq(ea.sequence, es.sequence);
		ck_assert_uint_eq(ea.pending, es.pending);
		ck_assert_mem_eq(&ea.u, &es.u, sizeof(ea.u));
		events++;
	}
	ck_assert_uint_ge(events, 3);
	/* and the camera saw exactly the same requests */
	ck_assert_uint_gt(s_sync.requests, 20);
	ck_assert_uint_eq(s_async.requests, s_sync.requests);
	ck_assert_str_eq(s_async.trace, s_sync.trace);
	node_release(&s_sync.node, &sa);
	node_release(&s_sync.node, &sb);
	node_release(&s_async.node, &aa);
	node_release(&s_async.node, &ab);
}
END_TEST

/* Failures come back as the synchronous path gives them: a timeout, a
 * STALL's error code, a camera gone. */
START_TEST(errors_as_sync)
{
	static const int errs[] = { -ETIMEDOUT, -ERANGE, -EPIPE, -ENODEV, -EIO, -EBUSY };
	struct node_file fs, fa;
	node_open(&s_sync.node, &fs);
	node_open(&s_async.node, &fa);
	for (unsigned i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct v4l2_control cs = { .id = V4L2_CID_SATURATION }, ca = cs;
		s_sync.inject = errs[i];
		s_async.inject = errs[i];
		int rs = run(&s_sync, &fs, VIDIOC_G_CTRL, &cs, NULL);
		ck_assert_int_eq(rs, errs[i]);
		ck_assert_int_eq(run(&s_async, &fa, VIDIOC_G_CTRL, &ca, NULL), rs);
		struct v4l2_control ss = { .id = V4L2_CID_HUE, .value = 5 }, sa = ss;
		s_sync.inject = 0;
		s_async.inject = 0;
		/* a SET_CUR that fails: after the reads of the ranges */
		run(&s_sync, &fs, VIDIOC_QUERYCTRL, &(struct v4l2_queryctrl){ .id = V4L2_CID_HUE },
		    NULL);
		run(&s_async, &fa, VIDIOC_QUERYCTRL, &(struct v4l2_queryctrl){ .id = V4L2_CID_HUE },
		    NULL);
		s_sync.inject = errs[i];
		s_async.inject = errs[i];
		ck_assert_int_eq(run(&s_async, &fa, VIDIOC_S_CTRL, &sa, NULL),
				 run(&s_sync, &fs, VIDIOC_S_CTRL, &ss, NULL));
		s_sync.inject = 0;
		s_async.inject = 0;
	}
	ck_assert_str_eq(s_async.trace, s_sync.trace);
	node_release(&s_sync.node, &fs);
	node_release(&s_async.node, &fa);
}
END_TEST

/* TRY_FMT, S_FMT and S_PARM negotiate with the camera through the call:
 * the same requests and answers as the synchronous node, one round per
 * request; a refused probe answers EIO on both. */
START_TEST(probe_async_as_sync)
{
	struct node_file fs, fa;
	node_open(&s_sync.node, &fs);
	node_open(&s_async.node, &fa);
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_MJPEG;
	f.fmt.pix.width = 1280;
	f.fmt.pix.height = 720;
	ck_assert_int_eq(both(&fs, &fa, VIDIOC_TRY_FMT, &f, sizeof(f)), 0);
	ck_assert_uint_eq(f.fmt.pix.width, 1280);
	ck_assert_int_eq(both(&fs, &fa, VIDIOC_S_FMT, &f, sizeof(f)), 0);
	ck_assert_uint_eq(f.fmt.pix.pixelformat, V4L2_PIX_FMT_MJPEG);
	ck_assert_uint_eq(s_async.node.fmt.format->fourcc, V4L2_PIX_FMT_MJPEG);
	/* SET_CUR, GET_MIN, GET_MAX, SET_CUR, GET_CUR */
	struct v4l2_format g = f;
	unsigned rounds;
	ck_assert_int_eq(run(&s_async, &fa, VIDIOC_TRY_FMT, &g, &rounds), 0);
	ck_assert_uint_eq(rounds, 5);
	g = f;
	ck_assert_int_eq(run(&s_sync, &fs, VIDIOC_TRY_FMT, &g, NULL), 0);
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	parm.parm.capture.timeperframe = (struct v4l2_fract){ 1, 15 };
	ck_assert_int_eq(both(&fs, &fa, VIDIOC_S_PARM, &parm, sizeof(parm)), 0);
	ck_assert_uint_eq(parm.parm.capture.timeperframe.denominator, 15);
	s_sync.inject = -EPIPE;
	s_async.inject = -EPIPE;
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	ck_assert_int_eq(both(&fs, &fa, VIDIOC_S_FMT, &f, sizeof(f)), -EIO);
	ck_assert_uint_eq(s_async.node.fmt.format->fourcc, V4L2_PIX_FMT_MJPEG);
	ck_assert_str_eq(s_async.trace, s_sync.trace);
	node_release(&s_sync.node, &fs);
	node_release(&s_async.node, &fa);
}
END_TEST

/* With the camera unplugged (the device keeps the node), TRY_FMT, S_FMT
 * and S_PARM answer at once from the descriptors, the camera asked
 * nothing: the same format and sizes as the camera gives, a payload size
 * for the largest alternate setting. */
START_TEST(probe_while_camera_away)
{
	struct node_file fs, fa;
	node_open(&s_sync.node, &fs);
	node_open(&s_async.node, &fa);
	s_async.node.camera_away = true;
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	f.fmt.pix.width = 1280;
	f.fmt.pix.height = 720;
	struct v4l2_format g = f;
	unsigned rounds;
	ck_assert_int_eq(run(&s_async, &fa, VIDIOC_TRY_FMT, &f, &rounds), 0);
	ck_assert_uint_eq(rounds, 0);
	ck_assert_int_eq(run(&s_async, &fa, VIDIOC_S_FMT, &f, &rounds), 0);
	ck_assert_uint_eq(rounds, 0);
	ck_assert_int_eq(run(&s_sync, &fs, VIDIOC_S_FMT, &g, NULL), 0);
	ck_assert_int_eq(memcmp(&f, &g, sizeof(f)), 0);
	ck_assert_uint_eq(s_async.node.fmt.format->fourcc, V4L2_PIX_FMT_YUYV);
	ck_assert_uint_eq(s_async.node.fmt.frame->width, 1280);
	ck_assert_uint_gt(s_async.node.fmt.probe.max_payload_transfer_size, 0);
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	parm.parm.capture.timeperframe = (struct v4l2_fract){ 1, 5 };
	ck_assert_int_eq(run(&s_async, &fa, VIDIOC_S_PARM, &parm, &rounds), 0);
	ck_assert_uint_eq(rounds, 0);
	ck_assert_uint_eq(parm.parm.capture.timeperframe.denominator, 5);
	ck_assert_uint_eq(s_async.requests, 0);
	node_release(&s_sync.node, &fs);
	node_release(&s_async.node, &fa);
}
END_TEST

/* While an S_FMT waits for the camera, another file's G_FMT answers at
 * once with the format as it was, and its REQBUFS then makes the
 * S_FMT answer EBUSY when it is made again (it checks afresh). */
START_TEST(probe_waiting_leaves_others_alone)
{
	struct node_file a, b;
	node_open(&s_async.node, &a);
	node_open(&s_async.node, &b);
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_MJPEG;
	f.fmt.pix.width = 1280;
	f.fmt.pix.height = 720;
	struct v4l2_format orig = f;
	ck_assert_int_eq(node_ioctl(&s_async.node, &a, VIDIOC_S_FMT, &f, NULL, 0, true, NULL, NULL),
			 NODE_CAMERA);
	const struct node_camera_req *need = node_camera_need(&s_async.node);
	ck_assert(need->ctrl.streaming);
	ck_assert_uint_eq(need->ctrl.query, UVC_SET_CUR);
	ck_assert_uint_eq(need->ctrl.selector, UVC_VS_PROBE_CONTROL);
	answer_need(&s_async);
	struct v4l2_format g = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(node_ioctl(&s_async.node, &b, VIDIOC_G_FMT, &g, NULL, 0, true, NULL, NULL),
			 0);
	ck_assert_uint_eq(g.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ck_assert_int_eq(node_ioctl(&s_async.node, &b, VIDIOC_REQBUFS, &rb, NULL, 0, true, NULL,
				    NULL),
			 0);
	f = orig;
	ck_assert_int_eq(run(&s_async, &a, VIDIOC_S_FMT, &f, NULL), -EBUSY);
	ck_assert_uint_eq(s_async.node.fmt.format->fourcc, V4L2_PIX_FMT_YUYV);
	node_release(&s_async.node, &a);
	node_release(&s_async.node, &b);
}
END_TEST

/* A call given up while it waits (its file closed, the device going):
 * the node is as before the call, the next call starts afresh, and
 * nothing leaks (ASan). Another file may close meanwhile. */
START_TEST(call_abandoned_while_waiting)
{
	struct node *n = &s_async.node;
	struct node_file a, b;
	node_open(n, &a);
	node_open(n, &b);
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL, .id = V4L2_CID_GAIN };
	ck_assert_int_eq(run(&s_async, &b, VIDIOC_SUBSCRIBE_EVENT, &sub, NULL), 0);
	/* both cached before the call */
	struct v4l2_control g0 = { .id = V4L2_CID_GAIN }, sh0 = { .id = V4L2_CID_SHARPNESS };
	ck_assert_int_eq(run(&s_async, &a, VIDIOC_G_CTRL, &g0, NULL), 0);
	ck_assert_int_eq(run(&s_async, &a, VIDIOC_G_CTRL, &sh0, NULL), 0);
	
	struct v4l2_ext_control set[2] = { { .id = V4L2_CID_GAIN, .value = g0.value + 10 },
					   { .id = V4L2_CID_SHARPNESS, .value = sh0.value + 1 } };
	struct v4l2_ext_controls ec = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 2,
					.controls = set };
	struct v4l2_ext_control orig[2];
	memcpy(orig, set, sizeof(orig));
	/* up to the first SET_CUR, answered; the call still has more to send */
	for (;;) {
		memcpy(set, orig, sizeof(orig));
		ck_assert_int_eq(node_ioctl(n, &a, VIDIOC_S_EXT_CTRLS, &ec, set, sizeof(set), true,
					    NULL, NULL),
				 NODE_CAMERA);
		bool was_set = node_camera_need(n)->ctrl.query == UVC_SET_CUR;
		answer_need(&s_async);
		if (was_set)
			break;
	}
	memcpy(set, orig, sizeof(orig));
	ck_assert_int_eq(node_ioctl(n, &a, VIDIOC_S_EXT_CTRLS, &ec, set, sizeof(set), true, NULL,
				    NULL),
			 NODE_CAMERA);
	ck_assert_uint_eq(node_camera_need(n)->ctrl.query, UVC_SET_CUR);
	node_release(n, &b); /* another file goes meanwhile */
	node_call_abandon(n);
	ck_assert(!node_call_pending(n));
	ck_assert_ptr_null(node_camera_need(n));
	/* the controls answer what the camera has: the SET_CUR sent first
	 * (sharpness, in uvcvideo's order) is read again, not the cache */
	struct v4l2_control c = { .id = V4L2_CID_SHARPNESS };
	ck_assert_int_eq(run(&s_async, &a, VIDIOC_G_CTRL, &c, NULL), 0);
	ck_assert_int_eq(c.value, sh0.value + 1);
	c = (struct v4l2_control){ .id = V4L2_CID_GAIN };
	ck_assert_int_eq(run(&s_async, &a, VIDIOC_G_CTRL, &c, NULL), 0);
	ck_assert_int_eq(c.value, g0.value);
	c = (struct v4l2_control){ .id = V4L2_CID_GAIN, .value = g0.value + 1 };
	ck_assert_int_eq(run(&s_async, &a, VIDIOC_S_CTRL, &c, NULL), 0);
	node_release(n, &a);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("v4l2_node_async");
	TCase *tc = tcase_create("calls");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, parked_g_ctrl_answered_later);
	tcase_add_test(tc, dqbuf_answered_while_other_file_waits);
	tcase_add_test(tc, async_answers_as_sync);
	tcase_add_test(tc, errors_as_sync);
	tcase_add_test(tc, call_abandoned_while_waiting);
	tcase_add_test(tc, probe_async_as_sync);
	tcase_add_test(tc, probe_waiting_leaves_others_alone);
	tcase_add_test(tc, probe_while_camera_away);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}

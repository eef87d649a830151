/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-seeds DIR: writes seed inputs made from the vcam's own output into
 * DIR/<target>/ (descriptors, probe replies, payload streams, node
 * sessions, MJPEG frames), in each target's input layout. The committed
 * corpus/ was made with it (then minimised, see README.md). */
#include <errno.h>
#include <linux/usb/video.h>
#include <linux/uvcvideo.h>
#include <linux/videodev2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuse/ioctl_table.h"
#include "ioctl_layouts.h"
#include "descriptors.h" /* tests/vcam */
#include "frames.h"
#include "payload.h"
#include "probe.h"
#include "profile.h"
#include "uvc/probe.h"

static const char *dir;

struct out {
	uint8_t buf[1 << 16];
	size_t len;
};

static void put(struct out *o, const void *p, size_t len)
{
	if (o->len + len > sizeof(o->buf)) {
		fprintf(stderr, "fuzz-seeds: seed too large\n");
		exit(1);
	}
	memcpy(o->buf + o->len, p, len);
	o->len += len;
}

static void put8(struct out *o, unsigned v)
{
	uint8_t b = (uint8_t)v;
	put(o, &b, 1);
}

static void put16(struct out *o, unsigned v)
{
	put8(o, v & 0xff);
	put8(o, v >> 8);
}

static void put32(struct out *o, uint32_t v)
{
	put16(o, v & 0xffff);
	put16(o, v >> 16);
}

static void save(const char *target, const struct out *o, const char *fmt, ...)
{
	char name[128], path[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(o->buf, 1, o->len, f) != o->len || fclose(f)) {
		fprintf(stderr, "fuzz-seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static const uint8_t guid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void descriptors_and_probes(void)
{
	for (size_t i = 0; i < vcam_profile_count; i++) {
		const struct vcam_profile *p = &vcam_profiles[i];
		struct vcam_identity id = { .profile = p, .serial = "SN", .ct_controls = 0x02000e,
					    .pu_controls = 0x00175f, .xu_controls = 0x000f,
					    .xu_count = 4, .xu_guid = guid };
		static struct out o;
		o.len = 0;
		ssize_t len = vcam_config_descriptor(&id, o.buf, sizeof(o.buf));
		if (len <= 0)
			exit(1);
		o.len = (size_t)len;
		save("descriptors", &o, "vcam-%s", p->name);

		/* probe: the profile's index, then its answer to each format */
		for (unsigned f = 0; f < p->n_formats; f++) {
			struct uvc_probe ask = { .format_index = (uint8_t)(f + 1), .frame_index = 1 },
					 got;
			if (vcam_probe_negotiate(p, &ask, &got))
				continue;
			size_t size = uvc_probe_size(p->bcd_uvc);
			o.len = 0;
			put8(&o, (unsigned)i);
			uvc_probe_encode(&got, o.buf + 1, size);
			o.len += size;
			save("probe", &o, "vcam-%s-%u", p->name, f + 1);
		}
	}
}

/* payload: mode byte, capacity, then records (see fuzz_payload.c) */
static void payloads(void)
{
	static uint8_t frame[3000];
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7);
	for (int bulk = 0; bulk < 2; bulk++) {
		static struct out o;
		o.len = 0;
		put8(&o, bulk | 4 | 8); /* expected size set, buffers given back */
		put16(&o, sizeof(frame));
		put16(&o, sizeof(frame));
		struct vcam_payload p;
		vcam_payload_reset(&p, 1024);
		uint64_t t = 1000000000ull;
		for (int n = 0; n < 3; n++) {
			vcam_payload_start_frame(&p, frame, sizeof(frame), t, n == 1);
			for (int k = 0; k < 8 && p.in_frame; k++, t += 125000) {
				uint8_t pkt[1024];
				long len;
				if (bulk)
					len = vcam_payload_bulk_urb(&p, pkt, 512, t);
				else
					len = (long)vcam_payload_iso_packet(&p, pkt, 800, t);
				if (len < 0)
					break;
				bool end = bulk && (len < 512 || len == 0 || !p.in_frame);
				put16(&o, (unsigned)len | (end ? 0x4000 : 0));
				put(&o, pkt, (size_t)len);
			}
		}
		save("payload", &o, "vcam-%s", bulk ? "bulk" : "iso");
	}
}

/* node: profile, flags, then steps (see fuzz_node.c) */
static unsigned table_index(unsigned cmd)
{
	size_t count;
	const struct cuse_ioctl_desc *t = ioctl_layouts(&count);
	for (size_t i = 0; i < count; i++)
		if (t[i].cmd == cmd)
			return (unsigned)i;
	fprintf(stderr, "fuzz-seeds: 0x%08x not in the table\n", cmd);
	exit(1);
}

static void ioctl_step(struct out *o, unsigned file, unsigned cmd, const void *arg)
{
	put8(o, file << 4);
	put8(o, table_index(cmd));
	put(o, arg, _IOC_SIZE(cmd));
}

static void node_sessions(void)
{
	static struct out o;
	for (unsigned memory = V4L2_MEMORY_MMAP; memory <= V4L2_MEMORY_USERPTR; memory++) {
		o.len = 0;
		put8(&o, 0); /* default profile */
		put8(&o, memory == V4L2_MEMORY_MMAP); /* --convert */
		struct v4l2_capability cap = { 0 };
		ioctl_step(&o, 0, VIDIOC_QUERYCAP, &cap);
		struct v4l2_fmtdesc fd = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		ioctl_step(&o, 0, VIDIOC_ENUM_FMT, &fd);
		struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		fmt.fmt.pix.width = 640;
		fmt.fmt.pix.height = 480;
		fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_MJPEG;
		ioctl_step(&o, 0, VIDIOC_S_FMT, &fmt);
		put8(&o, 0); /* the camera's probe answer: as asked */
		struct v4l2_requestbuffers rb = { .count = 2, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
						  .memory = memory };
		ioctl_step(&o, 0, VIDIOC_REQBUFS, &rb);
		for (unsigned i = 0; i < 2; i++) {
			struct v4l2_buffer b = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
						 .memory = memory };
			if (memory == V4L2_MEMORY_USERPTR) {
				b.m.userptr = 0x7f0000100000ul + i * 0x100000;
				b.length = 640 * 480 * 2;
			}
			ioctl_step(&o, 0, VIDIOC_QBUF, &b);
			if (memory == V4L2_MEMORY_USERPTR)
				put16(&o, 0); /* its first and last byte */
		}
		int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		ioctl_step(&o, 0, VIDIOC_STREAMON, &type);
		put8(&o, 0); /* the stream starts */
		for (unsigned i = 0; i < 2; i++) {
			put8(&o, 8); /* a frame */
			put8(&o, (unsigned)i * 2);
			put32(&o, 1000);
		}
		struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = memory };
		ioctl_step(&o, 0, VIDIOC_DQBUF, &b);
		if (memory == V4L2_MEMORY_USERPTR)
			put8(&o, 0);
		struct v4l2_event_subscription sub = { .type = V4L2_EVENT_CTRL,
						       .id = V4L2_CID_BRIGHTNESS };
		ioctl_step(&o, 1, VIDIOC_SUBSCRIBE_EVENT, &sub);
		struct v4l2_ext_control ctrl = { .id = V4L2_CID_BRIGHTNESS, .value = 10 };
		struct v4l2_ext_controls cs = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1,
						.controls = (void *)0x7f0000200000ul };
		ioctl_step(&o, 0, VIDIOC_S_EXT_CTRLS, &cs);
		put(&o, &ctrl, sizeof(ctrl));
		/* a status packet: the processing unit's brightness changed */
		put8(&o, 12);
		put8(&o, 7);
		static const uint8_t status[7] = { 1, 2, 0, 2, 0, 40, 0 };
		put(&o, status, sizeof(status));
		struct v4l2_event ev = { 0 };
		ioctl_step(&o, 1, VIDIOC_DQEVENT, &ev);
		struct v4l2_query_ext_ctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
		ioctl_step(&o, 1, VIDIOC_QUERY_EXT_CTRL, &q);
		put8(&o, 15); /* LOG_STATUS's lines */
		ioctl_step(&o, 0, VIDIOC_STREAMOFF, &type);
		put8(&o, 9 | 1 << 4); /* read() on the other file */
		put16(&o, 4096);
		put8(&o, 1);
		save("node", &o, "session-%s", memory == V4L2_MEMORY_MMAP ? "mmap" : "userptr");
	}
	/* an extension unit query and mapping */
	o.len = 0;
	put8(&o, 0);
	put8(&o, 0);
	struct uvc_xu_control_query xq = { .unit = 3, .selector = 1, .query = UVC_GET_CUR,
					   .size = 4, .data = (void *)0x7f0000300000ul };
	ioctl_step(&o, 0, UVCIOC_CTRL_QUERY, &xq);
	put32(&o, 0);
	struct uvc_xu_control_mapping map = { .id = V4L2_CID_USER_BASE + 0x1000, .name = "xu",
					      .entity = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
							  14, 15, 16 },
					      .selector = 1, .size = 8, .offset = 0,
					      .v4l2_type = V4L2_CTRL_TYPE_MENU,
					      .data_type = UVC_CTRL_DATA_TYPE_ENUM,
					      .menu_info = (void *)0x7f0000400000ul, .menu_count = 2 };
	ioctl_step(&o, 0, UVCIOC_CTRL_MAP, &map);
	struct uvc_menu_info menu[2] = { { 0, "zero" }, { 1, "one" } };
	put(&o, menu, sizeof(menu));
	save("node", &o, "xu");

	/* an asynchronous node: S_FMT waits for the camera (five probe
	 * requests), another file's QUERYCAP meanwhile, each request answered
	 * by a step; then a stream the camera fails to start */
	o.len = 0;
	put8(&o, 0);
	put8(&o, 2);
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	fmt.fmt.pix.width = 640;
	fmt.fmt.pix.height = 480;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_MJPEG;
	ioctl_step(&o, 0, VIDIOC_S_FMT, &fmt);
	struct v4l2_capability cap = { 0 };
	ioctl_step(&o, 1, VIDIOC_QUERYCAP, &cap);
	static const uint8_t zeros[48];
	size_t psize = uvc_probe_size(vcam_profile_find("default")->bcd_uvc);
	for (unsigned i = 0; i < 5; i++) {
		put8(&o, 14); /* the camera answers */
		put8(&o, 0);
		put(&o, zeros, psize);
	}
	struct v4l2_requestbuffers rb = { .count = 1, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	ioctl_step(&o, 0, VIDIOC_REQBUFS, &rb);
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
	ioctl_step(&o, 0, VIDIOC_QBUF, &b);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ioctl_step(&o, 0, VIDIOC_STREAMON, &type);
	put8(&o, 0); /* stream_on accepted */
	put8(&o, 14);
	put8(&o, 1); /* the commit refused */
	ioctl_step(&o, 0, VIDIOC_STREAMON, &type);
	put8(&o, 0);
	save("node", &o, "async");
}

/* convert: pick byte, width, height, no shortening, then an MJPEG frame */
static void jpegs(void)
{
	static const unsigned sizes[][2] = { { 320, 240 }, { 320, 180 } };
	for (unsigned s = 0; s < 2; s++) {
		struct vcam_frames *f = vcam_frames_new(VCAM_PIXEL_MJPEG, sizes[s][0], sizes[s][1], 0);
		size_t len;
		const uint8_t *jpeg = f ? vcam_frames_get(f, 1, 0, &len) : NULL;
		if (!jpeg) {
			fprintf(stderr, "fuzz-seeds: no MJPEG frame: %s\n", strerror(errno));
			exit(1);
		}
		for (unsigned dst = 0; dst < 4; dst += 2) {
			static struct out o;
			o.len = 0;
			put8(&o, dst);
			put16(&o, sizes[s][0]);
			put16(&o, sizes[s][1]);
			put8(&o, 0);
			put(&o, jpeg, len);
			save("convert", &o, "vcam-mjpeg-%ux%u-%u", sizes[s][0], sizes[s][1], dst);
		}
		vcam_frames_free(f);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz-seeds DIR\n");
		return 2;
	}
	dir = argv[1];
	mkdir(dir, 0755);
	descriptors_and_probes();
	payloads();
	node_sessions();
	jpegs();
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fake camera behind the node (src/v4l2/node.c) for the targets that
 * drive it: node_ops whose answers come from the fuzz input, and buffers
 * on the heap of exactly the size asked (ASan sees any overrun). */
#ifndef UVCUSE_FUZZ_FAKE_CAMERA_H
#define UVCUSE_FUZZ_FAKE_CAMERA_H

#include "fuzz.h"
#include "v4l2/node.h"

/* Bigger buffers are refused as a memfd the size of RAM would be. Kept
 * small: fresh pages for big buffers would cost most of each run. */
#define FAKE_MAX_BUFFER (1u << 20)
/* dwMaxVideoFrameSize the camera answers unless the input says otherwise:
 * a camera may answer any size; small ones keep runs fast. */
#define FAKE_FRAME_SIZE 16384u

struct fake {
	struct fuzz_in *in;    /* where answers come from; NULL: defaults */
	bool streaming;
	unsigned requests;
};

static inline int fake_probe(void *dev, const struct uvc_probe *want, struct uvc_probe *got)
{
	struct fake *f = dev;
	*got = *want;
	got->max_video_frame_size = FAKE_FRAME_SIZE;
	if (!f->in)
		return 0;
	/* The camera's answer: mostly what was asked, some fields its own,
	 * or a failed request. */
	uint8_t how = fuzz_u8(f->in);
	if (how & 0x80)
		return -(int)(1 + how % 8 * 4); /* EPERM, EIO, ... */
	if (how & 1)
		got->format_index = fuzz_u8(f->in);
	if (how & 2)
		got->frame_index = fuzz_u8(f->in);
	if (how & 4)
		got->interval = fuzz_u32(f->in);
	if (how & 8)
		got->max_video_frame_size = fuzz_u32(f->in);
	if (how & 16)
		got->max_payload_transfer_size = fuzz_u32(f->in);
	return 0;
}

static inline int fake_stream_on(void *dev, const struct uvc_probe *probe)
{
	struct fake *f = dev;
	(void)probe;
	FUZZ_CHECK(!f->streaming);
	if (f->in && fuzz_u8(f->in) == 0xff)
		return -EIO;
	f->streaming = true;
	return 0;
}

static inline void fake_stream_off(void *dev)
{
	((struct fake *)dev)->streaming = false;
}

static inline void fake_buffer_queued(void *dev)
{
	(void)dev;
}

/* A UVC control request: r->size bytes from the input, or an error. */
static inline int fake_ctrl_request(void *dev, const struct ctrls_request *r, uint8_t *data)
{
	struct fake *f = dev;
	f->requests++;
	if (!f->in) {
		memset(data, 0, r->size);
		return r->size;
	}
	uint8_t how = fuzz_u8(f->in);
	if (how >= 0xf0)
		return how == 0xff ? -EPIPE : -EIO;
	fuzz_fill(f->in, data, r->size);
	return r->size;
}

static inline void fake_log_status(void *dev)
{
	(void)dev;
}

static const struct node_ops fake_ops = {
	.probe = fake_probe,
	.stream_on = fake_stream_on,
	.stream_off = fake_stream_off,
	.buffer_queued = fake_buffer_queued,
	.ctrl_request = fake_ctrl_request,
	.log_status = fake_log_status,
};

static inline int fake_alloc(void *data, struct vq_buffer *b, size_t size)
{
	(void)data;
	if (size > FAKE_MAX_BUFFER)
		return -ENOMEM;
	b->mem = calloc(1, size ? size : 1);
	b->length = size;
	return b->mem ? 0 : -ENOMEM;
}

static inline void fake_release(void *data, struct vq_buffer *b)
{
	(void)data;
	free(b->mem);
	b->mem = NULL;
	b->length = 0;
}

static const struct vq_mem_ops fake_mem = { .alloc = fake_alloc, .release = fake_release };

static inline struct node_identity fake_identity(void)
{
	struct node_identity id = { .card = "Fuzz Camera", .bus_info = "usb-fuzz-1",
				    .version = 0x060100 };
	return id;
}

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The converter over libv4lconvert (v4lconvert_convert). */
#include "convert/converter.h"

#include <errno.h>
#include <stdbool.h>
#include <libv4l-plugin.h>
#include <libv4lconvert.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/catalogue.h"
#include "convert/jpeg.h"

struct converter {
	struct v4lconvert_data *lib;
	struct convert_jpeg *jpeg;
	bool jpeg_failed; /* the last error came from jpeg, not lib */
};

/* libv4lconvert asks the device what it supports at creation (QUERYCAP,
 * ENUM_FMT, controls). There is no device: QUERYCAP names a capture device
 * without quirks (libv4lconvert refuses to start without it), the format
 * list is empty and every other ioctl is ENOTTY, so it applies no software
 * processing (white balance, flips), only the conversion asked for. */
static int no_ioctl(void *priv, int fd, unsigned long request, void *arg)
{
	(void)priv, (void)fd;
	if (request == VIDIOC_QUERYCAP) {
		struct v4l2_capability *cap = arg;
		memset(cap, 0, sizeof(*cap));
		snprintf((char *)cap->driver, sizeof(cap->driver), "uvcuse");
		snprintf((char *)cap->card, sizeof(cap->card), "uvcuse converter");
		snprintf((char *)cap->bus_info, sizeof(cap->bus_info), "platform:uvcuse-convert");
		cap->capabilities = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING |
				    V4L2_CAP_DEVICE_CAPS;
		cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
		return 0;
	}
	errno = request == VIDIOC_ENUM_FMT ? EINVAL : ENOTTY;
	return -1;
}

static ssize_t no_read(void *priv, int fd, void *buffer, size_t n)
{
	(void)priv, (void)fd, (void)buffer, (void)n;
	errno = EINVAL;
	return -1;
}

static ssize_t no_write(void *priv, int fd, const void *buffer, size_t n)
{
	(void)priv, (void)fd, (void)buffer, (void)n;
	errno = EINVAL;
	return -1;
}

static const struct libv4l_dev_ops no_device_ops = {
	.ioctl = no_ioctl,
	.read = no_read,
	.write = no_write,
};

struct converter *converter_new(void)
{
	struct converter *c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	/* fd -1: libv4lconvert's device lookups (sysfs, USB ids) find nothing. */
	c->lib = v4lconvert_create_with_dev_ops(-1, NULL, &no_device_ops);
	c->jpeg = convert_jpeg_new();
	if (!c->lib || !c->jpeg) {
		if (c->lib)
			v4lconvert_destroy(c->lib);
		convert_jpeg_free(c->jpeg);
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void converter_free(struct converter *c)
{
	if (!c)
		return;
	v4lconvert_destroy(c->lib);
	convert_jpeg_free(c->jpeg);
	free(c);
}

/* Bytes of a whole raw frame; 0 for MJPEG (any length) or unknown. */
static uint64_t raw_frame_size(uint32_t fourcc, unsigned width, unsigned height)
{
	uint64_t pixels = (uint64_t)width * height;
	switch (fourcc) {
	case V4L2_PIX_FMT_YUYV:
	case V4L2_PIX_FMT_UYVY:
		return pixels * 2;
	case V4L2_PIX_FMT_NV12:
	case V4L2_PIX_FMT_YUV420:
	case V4L2_PIX_FMT_YVU420:
		return pixels * 3 / 2;
	case V4L2_PIX_FMT_RGB24:
	case V4L2_PIX_FMT_BGR24:
		return pixels * 3;
	}
	return 0;
}

static void fill_format(struct v4l2_format *f, uint32_t fourcc, unsigned width, unsigned height,
			uint32_t bytesperline, uint32_t sizeimage)
{
	memset(f, 0, sizeof(*f));
	f->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	f->fmt.pix.width = width;
	f->fmt.pix.height = height;
	f->fmt.pix.pixelformat = fourcc;
	f->fmt.pix.field = V4L2_FIELD_NONE;
	f->fmt.pix.bytesperline = bytesperline;
	f->fmt.pix.sizeimage = sizeimage;
}

long converter_run(struct converter *c, uint32_t src_fourcc, unsigned width, unsigned height,
		   const uint8_t *src, size_t src_len, uint32_t dst_fourcc, uint8_t *dst,
		   size_t dst_cap)
{
	uint32_t dst_bpl, dst_size;
	if (!convert_pair_supported(src_fourcc, dst_fourcc, width, height) ||
	    convert_frame_layout(dst_fourcc, width, height, &dst_bpl, &dst_size) < 0)
		return -EINVAL;
	if (dst_cap < dst_size)
		return -ENOSPC;
	uint64_t need = raw_frame_size(src_fourcc, width, height);
	if (src_len == 0 || src_len < need || src_len > INT32_MAX)
		return -EBADMSG;

	c->jpeg_failed = false;
	/* Never libv4lconvert's own JPEG decoder: it reads past damaged frames
	 * (found by fuzzing, tests/unit/test_convert.c). */
	if (src_fourcc == V4L2_PIX_FMT_MJPEG) {
		int ret = convert_jpeg_decode(c->jpeg, src, src_len, width, height, dst_fourcc, dst);
		c->jpeg_failed = ret < 0;
		return ret < 0 ? ret : (long)dst_size;
	}

	struct v4l2_format sf, df;
	uint32_t src_bpl = (uint32_t)(need / height);
	if (src_fourcc == V4L2_PIX_FMT_NV12 || src_fourcc == V4L2_PIX_FMT_YUV420 ||
	    src_fourcc == V4L2_PIX_FMT_YVU420)
		src_bpl = width;
	fill_format(&sf, src_fourcc, width, height, src_bpl, (uint32_t)src_len);
	fill_format(&df, dst_fourcc, width, height, dst_bpl, dst_size);
	/* libv4lconvert takes non-const source bytes but only reads them. */
	int n = v4lconvert_convert(c->lib, &sf, &df, (unsigned char *)src, (int)src_len, dst,
				   (int)dst_size);
	if (n < 0)
		return -EBADMSG;
	if ((uint32_t)n != dst_size)
		return -EBADMSG;
	return n;
}

const char *converter_error(struct converter *c)
{
	if (c->jpeg_failed)
		return convert_jpeg_error(c->jpeg);
	const char *msg = v4lconvert_get_error_message(c->lib);
	return msg ? msg : "";
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Format conversion (src/convert/converter.c, jpeg.c): any MJPEG frame a
 * camera sends, and raw frames of any length, into every destination.
 * Input: a byte choosing source and destination, width and height (u16
 * each, small sizes only), a byte making dst_cap short, then the frame. */
#include <linux/videodev2.h>

#include "convert/catalogue.h"
#include "convert/converter.h"
#include "convert/jpeg.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Beyond this a run decodes too slowly to be worth it. */
#define MAX_PIXELS (320u * 240u)

static const uint32_t dsts[] = { V4L2_PIX_FMT_RGB24, V4L2_PIX_FMT_BGR24, V4L2_PIX_FMT_YUV420,
				 V4L2_PIX_FMT_YVU420 };
/* MJPEG three times in eight: it is what cameras send most. */
static const uint32_t srcs[] = { V4L2_PIX_FMT_MJPEG, V4L2_PIX_FMT_MJPEG, V4L2_PIX_FMT_MJPEG,
				 V4L2_PIX_FMT_YUYV,  V4L2_PIX_FMT_UYVY,  V4L2_PIX_FMT_NV12,
				 V4L2_PIX_FMT_YUV420, V4L2_PIX_FMT_RGB24 };

static struct converter *conv;
static struct convert_jpeg *jpeg;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!conv) {
		conv = converter_new();
		jpeg = convert_jpeg_new();
		FUZZ_CHECK(conv && jpeg);
	}
	struct fuzz_in in = { data, size };
	uint8_t pick = fuzz_u8(&in);
	uint32_t dst_fourcc = dsts[pick & 3];
	uint32_t src_fourcc = srcs[(pick >> 2) & 7];
	unsigned width = fuzz_u16(&in), height = fuzz_u16(&in);
	uint8_t short_by = fuzz_u8(&in);
	if ((uint64_t)width * height > MAX_PIXELS)
		return 0;
	const uint8_t *frame;
	size_t len = fuzz_take(&in, in.n, &frame);
	uint8_t *src = fuzz_dup(frame, len);

	uint32_t bpl, sizeimage = 0;
	int layout = convert_frame_layout(dst_fourcc, width, height, &bpl, &sizeimage);
	FUZZ_CHECK(layout == 0 || layout == -EINVAL);
	bool supported = convert_pair_supported(src_fourcc, dst_fourcc, width, height);
	if (supported)
		FUZZ_CHECK(layout == 0 && sizeimage > 0 && bpl >= width);
	size_t cap = sizeimage;
	if (short_by & 0x80)
		cap = cap > (short_by & 0x7f) ? cap - (short_by & 0x7f) - 1 : 0;
	uint8_t *dst = malloc(cap ? cap : 1);
	FUZZ_CHECK(dst);

	long r = converter_run(conv, src_fourcc, width, height, src, len, dst_fourcc, dst, cap);
	if (!supported)
		FUZZ_CHECK(r == -EINVAL);
	else if (cap < sizeimage)
		FUZZ_CHECK(r == -ENOSPC);
	else
		FUZZ_CHECK(r == (long)sizeimage || r == -EBADMSG);
	if (r == -EBADMSG)
		FUZZ_CHECK(converter_error(conv) != NULL);

	/* The direct JPEG path alone, into a full-sized frame. */
	if (src_fourcc == V4L2_PIX_FMT_MJPEG && supported && cap == sizeimage) {
		int j = convert_jpeg_decode(jpeg, src, len, width, height, dst_fourcc, dst);
		FUZZ_CHECK(j == 0 || j == -EBADMSG);
		if (j == -EBADMSG)
			FUZZ_CHECK(*convert_jpeg_error(jpeg));
		if (j == 0)
			FUZZ_CHECK(r == (long)sizeimage);
	}
	free(dst);
	free(src);
	return 0;
}

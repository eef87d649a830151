/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The VideoStreaming interfaces' class descriptors: the input header,
 * the formats (their GUIDs as V4L2 fourccs), their frames, still image
 * sizes and colour matching (descriptors_priv.h). */
#include "descriptors_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>
#include <linux/videodev2.h>

#define STD_TAIL 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71
#define FCC_GUID(a, b, c, d) { a, b, c, d, STD_TAIL }

/* The formats uvcvideo knows: Linux 6.1.y's uvc_fmts (include/media/v4l2-uvc.h
 * in 6.1.192, Debian 12's kernel), no more and no less: a GUID it does not
 * know is a format it leaves out (6.1.46 and later), so one we knew and it
 * did not would be a format only we list. */
static const struct {
	uint8_t guid[16];
	uint32_t fourcc;
} uvc_guids[] = {
	{ FCC_GUID('Y', 'U', 'Y', '2'), V4L2_PIX_FMT_YUYV },
	/* iSight's broken YUY2 GUID: bytes 8..11 "80 00 00 00" */
	{ { 'Y', 'U', 'Y', '2', 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x38, 0x9b,
	    0x71 },
	  V4L2_PIX_FMT_YUYV },
	{ FCC_GUID('N', 'V', '1', '2'), V4L2_PIX_FMT_NV12 },
	{ FCC_GUID('M', 'J', 'P', 'G'), V4L2_PIX_FMT_MJPEG },
	{ FCC_GUID('Y', 'V', '1', '2'), V4L2_PIX_FMT_YVU420 },
	{ FCC_GUID('I', '4', '2', '0'), V4L2_PIX_FMT_YUV420 },
	{ FCC_GUID('M', '4', '2', '0'), V4L2_PIX_FMT_M420 },
	{ FCC_GUID('U', 'Y', 'V', 'Y'), V4L2_PIX_FMT_UYVY },
	{ FCC_GUID('Y', '8', '0', '0'), V4L2_PIX_FMT_GREY },
	{ FCC_GUID('Y', '8', ' ', ' '), V4L2_PIX_FMT_GREY },
	{ FCC_GUID(0x32, 0x00, 0x00, 0x00), V4L2_PIX_FMT_GREY }, /* D3DFMT_L8 */
	{ { 0x32, 0x00, 0x00, 0x00, 0x02, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b,
	    0x71 },
	  V4L2_PIX_FMT_GREY }, /* KSMEDIA_L8_IR */
	{ FCC_GUID('Y', '1', '0', ' '), V4L2_PIX_FMT_Y10 },
	{ { 'I', 'N', 'V', 'I', 0xdb, 0x57, 0x49, 0x5e, 0x8e, 0x3f, 0xf4, 0x79, 0x53, 0x2b, 0x94,
	    0x6f },
	  V4L2_PIX_FMT_Y10 },
	{ FCC_GUID('Y', '1', '2', ' '), V4L2_PIX_FMT_Y12 },
	{ FCC_GUID('Y', '1', '6', ' '), V4L2_PIX_FMT_Y16 },
	{ FCC_GUID('B', 'Y', '8', ' '), V4L2_PIX_FMT_SBGGR8 },
	{ FCC_GUID('B', 'A', '8', '1'), V4L2_PIX_FMT_SBGGR8 },
	{ FCC_GUID('G', 'B', 'R', 'G'), V4L2_PIX_FMT_SGBRG8 },
	{ FCC_GUID('G', 'R', 'B', 'G'), V4L2_PIX_FMT_SGRBG8 },
	{ FCC_GUID('R', 'G', 'G', 'B'), V4L2_PIX_FMT_SRGGB8 },
	{ FCC_GUID('R', 'G', 'B', 'P'), V4L2_PIX_FMT_RGB565 },
	/* DirectShow MEDIASUBTYPE_RGB24 and RGB32: BGR and BGRX in memory */
	{ { 0x7d, 0xeb, 0x36, 0xe4, 0x4f, 0x52, 0xce, 0x11, 0x9f, 0x53, 0x00, 0x20, 0xaf, 0x0b, 0xa7,
	    0x70 },
	  V4L2_PIX_FMT_BGR24 },
	{ { 0x7e, 0xeb, 0x36, 0xe4, 0x4f, 0x52, 0xce, 0x11, 0x9f, 0x53, 0x00, 0x20, 0xaf, 0x0b, 0xa7,
	    0x70 },
	  V4L2_PIX_FMT_XBGR32 },
	{ FCC_GUID('H', '2', '6', '4'), V4L2_PIX_FMT_H264 },
	{ FCC_GUID('H', '2', '6', '5'), V4L2_PIX_FMT_HEVC },
	{ FCC_GUID('H', 'E', 'V', 'C'), V4L2_PIX_FMT_HEVC },
	{ FCC_GUID('Y', '8', 'I', ' '), V4L2_PIX_FMT_Y8I },
	{ FCC_GUID('Y', '1', '2', 'I'), V4L2_PIX_FMT_Y12I },
	{ FCC_GUID('Z', '1', '6', ' '), V4L2_PIX_FMT_Z16 },
	{ { 'I', 'N', 'V', 'Z', 0x90, 0x2d, 0x58, 0x4a, 0x92, 0x0b, 0x77, 0x3f, 0x1f, 0x2c, 0x55,
	    0x6b },
	  V4L2_PIX_FMT_Z16 },
	{ FCC_GUID('R', 'W', '1', '0'), V4L2_PIX_FMT_SRGGB10P },
	{ FCC_GUID('B', 'G', '1', '6'), V4L2_PIX_FMT_SBGGR16 },
	{ FCC_GUID('G', 'B', '1', '6'), V4L2_PIX_FMT_SGBRG16 },
	{ FCC_GUID('R', 'G', '1', '6'), V4L2_PIX_FMT_SRGGB16 },
	{ FCC_GUID('G', 'R', '1', '6'), V4L2_PIX_FMT_SGRBG16 },
	{ { 'I', 'N', 'Z', 'I', 0x66, 0x1a, 0x42, 0xa2, 0x90, 0x65, 0xd0, 0x18, 0x14, 0xa8, 0xef,
	    0x8a },
	  V4L2_PIX_FMT_INZI },
	{ FCC_GUID('C', ' ', ' ', ' '), V4L2_PIX_FMT_CNF4 },
};

uint32_t uvc_guid_to_fourcc(const uint8_t guid[16])
{
	for (size_t i = 0; i < sizeof(uvc_guids) / sizeof(uvc_guids[0]); i++)
		if (!memcmp(uvc_guids[i].guid, guid, 16))
			return uvc_guids[i].fourcc;
	return 0;
}

static int parse_format(struct parser *ps, const uint8_t *d, unsigned l)
{
	struct uvc_streaming *vs = ps->vs;
	unsigned subtype = d[2];
	unsigned need = subtype == UVC_VS_FORMAT_MJPEG		? 11
			: subtype == UVC_VS_FORMAT_FRAME_BASED ? 28
							       : 27;
	if (l < need)
		return desc_fail(ps, "format subtype 0x%02x: bLength %u < %u", subtype, l, need);
	if (d[3] == 0)
		return desc_fail(ps, "format index 0");
	for (unsigned i = 0; i < vs->n_formats; i++)
		if (vs->formats[i].index == d[3])
			return desc_fail(ps, "format index %u: duplicate", d[3]);
	struct uvc_format *f = desc_append(&vs->formats, &vs->n_formats, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->index = d[3];
	f->n_frames_declared = d[4];
	if (subtype == UVC_VS_FORMAT_MJPEG) {
		f->kind = UVC_FORMAT_MJPEG;
		f->fourcc = V4L2_PIX_FMT_MJPEG;
		f->flags = d[5];
		f->default_frame = d[6];
		f->interlace_flags = d[9];
	} else {
		f->kind = subtype == UVC_VS_FORMAT_FRAME_BASED ? UVC_FORMAT_FRAME_BASED
							       : UVC_FORMAT_UNCOMPRESSED;
		memcpy(f->guid, d + 5, 16);
		f->fourcc = uvc_guid_to_fourcc(f->guid);
		if (!f->fourcc)
			desc_warn(ps, "format %u: unknown GUID", f->index);
		f->bpp = d[21];
		f->default_frame = d[22];
		f->interlace_flags = d[25];
		if (f->kind == UVC_FORMAT_FRAME_BASED)
			f->flags = d[27];
	}
	ps->format = f;
	return 0;
}

static int parse_frame(struct parser *ps, const uint8_t *d, unsigned l)
{
	unsigned subtype = d[2];
	bool fb = subtype == UVC_VS_FRAME_FRAME_BASED;
	struct uvc_format *f = ps->format;
	if (!f)
		return desc_fail(ps, "frame subtype 0x%02x before any format", subtype);
	enum uvc_format_kind want = subtype == UVC_VS_FRAME_MJPEG ? UVC_FORMAT_MJPEG
				    : fb			    ? UVC_FORMAT_FRAME_BASED
								    : UVC_FORMAT_UNCOMPRESSED;
	if (f->kind != want)
		return desc_fail(ps, "frame subtype 0x%02x under format %u of another kind",
				 subtype, f->index);
	if (l < 26)
		return desc_fail(ps, "frame: bLength %u < 26", l);
	unsigned type = d[fb ? 21 : 25];
	unsigned need = 26 + 4 * (type ? type : 3);
	if (l < need)
		return desc_fail(ps, "frame %u: %u intervals need %u bytes, bLength %u", d[3], type,
				 need, l);
	if (f->n_frames >= f->n_frames_declared)
		return desc_fail(ps, "format %u: more frames than its %u", f->index,
				 f->n_frames_declared);

	uint32_t *intervals = NULL;
	if (type) {
		intervals = malloc(type * sizeof(*intervals));
		if (!intervals)
			return -ENOMEM;
		for (unsigned i = 0; i < type; i++)
			intervals[i] = get32(d + 26 + 4 * i);
	}
	struct uvc_frame *fr = desc_append(&f->frames, &f->n_frames, sizeof(*fr));
	if (!fr) {
		free(intervals);
		return -ENOMEM;
	}
	fr->index = d[3];
	fr->capabilities = d[4];
	fr->width = (uint16_t)get16(d + 5);
	fr->height = (uint16_t)get16(d + 7);
	fr->min_bit_rate = get32(d + 9);
	fr->max_bit_rate = get32(d + 13);
	if (fb) {
		unsigned bpp = f->bpp ? f->bpp : 16;
		fr->max_buffer_size = (uint32_t)((uint64_t)fr->width * fr->height * bpp / 8);
		fr->default_interval = get32(d + 17);
		fr->bytes_per_line = get32(d + 22);
	} else {
		fr->max_buffer_size = get32(d + 17);
		fr->default_interval = get32(d + 21);
		/* uvcvideo computes it for uncompressed formats: chipsets get the
		 * field wrong (a 640x512 frame declaring 640x480's bytes, low
		 * bits zero, 1.1 times the size) */
		if (f->kind == UVC_FORMAT_UNCOMPRESSED)
			fr->max_buffer_size = (uint32_t)((uint64_t)f->bpp * fr->width * fr->height / 8);
	}
	fr->n_intervals = (uint8_t)type;
	fr->intervals = intervals;
	if (!type) {
		fr->continuous = true;
		fr->range.min = get32(d + 26);
		fr->range.max = get32(d + 30);
		fr->range.step = get32(d + 34);
	}
	return 0;
}

static int parse_still(struct parser *ps, const uint8_t *d, unsigned l)
{
	struct uvc_format *f = ps->format;
	if (l < 6 || l < 6u + 4u * d[4])
		return desc_fail(ps, "still image frame: bLength %u too short", l);
	if (!f) {
		desc_warn(ps, "still image frame before any format skipped");
		return 0;
	}
	if (f->n_stills) {
		desc_warn(ps, "format %u: second still image frame skipped", f->index);
		return 0;
	}
	if (!d[4])
		return 0;
	f->stills = calloc(d[4], sizeof(*f->stills));
	if (!f->stills)
		return -ENOMEM;
	f->n_stills = d[4];
	for (unsigned i = 0; i < d[4]; i++) {
		f->stills[i].width = (uint16_t)get16(d + 5 + 4 * i);
		f->stills[i].height = (uint16_t)get16(d + 7 + 4 * i);
	}
	return 0;
}

int desc_parse_vs(struct parser *ps, const uint8_t *d, unsigned l, size_t avail)
{
	struct uvc_streaming *vs = ps->vs;
	if (l < 3)
		return desc_fail(ps, "VS descriptor: bLength %u < 3", l);
	switch (d[2]) {
	case UVC_VS_INPUT_HEADER:
		if (avail < 13 || avail < 13u + (unsigned)d[3] * d[12])
			return desc_fail(ps, "VS input header: bLength %u too short", l);
		if (l < 13u + (unsigned)d[3] * d[12])
			desc_warn(ps, "VS input header: bLength %u short of its %u formats' "
				      "controls, read past it as uvcvideo does", l, d[3]);
		/* the header names the streaming endpoint (uvcvideo streams from
		 * it only), even when class descriptors follow an endpoint */
		if (d[6])
			vs->endpoint = d[6];
		vs->info = d[7];
		vs->terminal_link = d[8];
		vs->still_method = d[9];
		vs->trigger_support = d[10];
		vs->trigger_usage = d[11];
		return 0;
	case UVC_VS_FORMAT_UNCOMPRESSED:
	case UVC_VS_FORMAT_MJPEG:
	case UVC_VS_FORMAT_FRAME_BASED:
		return parse_format(ps, d, l);
	case UVC_VS_FRAME_UNCOMPRESSED:
	case UVC_VS_FRAME_MJPEG:
	case UVC_VS_FRAME_FRAME_BASED:
		return parse_frame(ps, d, l);
	case UVC_VS_STILL_IMAGE_FRAME:
		return parse_still(ps, d, l);
	case UVC_VS_COLORFORMAT:
		if (l < 6)
			return desc_fail(ps, "color matching: bLength %u < 6", l);
		if (ps->format) {
			ps->format->has_color = true;
			ps->format->primaries = d[3];
			ps->format->transfer = d[4];
			ps->format->matrix = d[5];
		}
		return 0;
	default:
		/* Output headers, MPEG2-TS, DV, stream-based, UVC 1.5 H.264/VP8
		 * formats and frames, and invalid subtypes (0x0e, 0x0f seen in
		 * the wild). A skipped format must not collect frames. */
		if (d[2] == UVC_VS_FORMAT_MPEG2TS || d[2] == UVC_VS_FORMAT_DV ||
		    d[2] == UVC_VS_FORMAT_STREAM_BASED || d[2] == 0x13 || d[2] == 0x16)
			ps->format = NULL;
		desc_warn(ps, "VS subtype 0x%02x skipped", d[2]);
		return 0;
	}
}

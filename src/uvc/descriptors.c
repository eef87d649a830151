/* Configuration descriptor -> camera model. Every read is bounds-checked
 * against the descriptor's bLength, and every bLength against the buffer. */
#include "descriptors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>
#include <linux/videodev2.h>

#define UVC_VC_ENCODING_UNIT 0x07

/* ------------------------------------------------------------------ GUIDs */

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

/* ---------------------------------------------------------------- helpers */

struct parser {
	struct uvc_camera *cam;
	struct uvc_parse_status *status;
	int want_vc;           /* the VideoControl interface to parse, -1: first */
	bool have_vc;          /* the first VideoControl interface was seen */
	bool vendor_class;     /* ... and it is vendor-specific (asked for by number) */
	bool vc_done;          /* ... and a later one started: ignore it */
	bool have_header;
	uint8_t n_collection;  /* VC header bInCollection */
	uint8_t collection[32];
	enum { IN_OTHER, IN_VC, IN_VS } where;
	struct uvc_streaming *vs;  /* current VS interface */
	uint8_t alt;
	struct uvc_alt *last_alt;  /* for the SS companion */
	struct uvc_format *format; /* current format */
	size_t cut_at;             /* offset of an invalid bLength that ended the
				    * configuration (0: none), for the error */
};

static unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

__attribute__((format(printf, 2, 3))) static int fail(struct parser *ps, const char *fmt, ...)
{
	if (ps->status) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ps->status->error, sizeof(ps->status->error), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

__attribute__((format(printf, 2, 3))) static void warn(struct parser *ps, const char *fmt, ...)
{
	if (ps->status) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ps->status->warning, sizeof(ps->status->warning), fmt, ap);
		va_end(ap);
		ps->status->n_warnings++;
	}
}

/* Appends one zeroed element to *array; NULL on ENOMEM. */
static void *append(void *array_ptr, unsigned *n, size_t size)
{
	void **array = array_ptr;
	void *grown = realloc(*array, (*n + 1) * size);
	if (!grown)
		return NULL;
	*array = grown;
	void *elem = (uint8_t *)grown + *n * size;
	memset(elem, 0, size);
	(*n)++;
	return elem;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
	uint8_t *copy = malloc(n ? n : 1);
	if (copy && n)
		memcpy(copy, p, n);
	return copy;
}

/* ------------------------------------------------------------ VideoControl */

static int parse_vc(struct parser *ps, const uint8_t *d, unsigned l)
{
	struct uvc_camera *cam = ps->cam;
	unsigned subtype = d[2];
	struct uvc_entity *e;

	if (subtype == UVC_VC_HEADER) {
		if (l < 12)
			return fail(ps, "VC header: bLength %u < 12", l);
		if (l < 12u + d[11])
			return fail(ps, "VC header: %u interfaces do not fit bLength %u", d[11], l);
		if (ps->have_header)
			return fail(ps, "VC header: second header");
		ps->have_header = true;
		cam->bcd_uvc = (uint16_t)get16(d + 3);
		cam->clock_frequency = get32(d + 7);
		ps->n_collection = d[11] < sizeof(ps->collection) ? d[11] : sizeof(ps->collection);
		memcpy(ps->collection, d + 12, ps->n_collection);
		return 0;
	}
	if (subtype < UVC_VC_INPUT_TERMINAL || subtype > UVC_VC_ENCODING_UNIT) {
		warn(ps, "VC subtype 0x%02x skipped", subtype);
		return 0;
	}
	if (l < 4)
		return fail(ps, "VC subtype 0x%02x: bLength %u < 4", subtype, l);
	if (d[3] == 0)
		return fail(ps, "VC subtype 0x%02x: entity ID 0", subtype);
	if (uvc_camera_find_entity(cam, d[3]))
		return fail(ps, "VC entity %u: duplicate ID", d[3]);

	/* Validate before allocating, so error paths own nothing new. */
	unsigned n_src = 0, src_off = 0, n_ctl = 0, ctl_off = 0;
	switch (subtype) {
	case UVC_VC_INPUT_TERMINAL:
		if (l < 8)
			return fail(ps, "input terminal %u: bLength %u < 8", d[3], l);
		if (get16(d + 4) == UVC_ITT_CAMERA) {
			if (l < 15 || l < 15u + d[14])
				return fail(ps, "camera terminal %u: bLength %u too short", d[3], l);
			n_ctl = d[14];
			ctl_off = 15;
		}
		break;
	case UVC_VC_OUTPUT_TERMINAL:
		if (l < 9)
			return fail(ps, "output terminal %u: bLength %u < 9", d[3], l);
		n_src = 1;
		src_off = 7;
		break;
	case UVC_VC_SELECTOR_UNIT:
		if (l < 5 || l < 5u + d[4])
			return fail(ps, "selector unit %u: bLength %u too short", d[3], l);
		n_src = d[4];
		src_off = 5;
		break;
	case UVC_VC_PROCESSING_UNIT:
		if (l < 8 || l < 8u + d[7])
			return fail(ps, "processing unit %u: bLength %u too short", d[3], l);
		n_src = 1;
		src_off = 4;
		n_ctl = d[7];
		ctl_off = 8;
		break;
	case UVC_VC_EXTENSION_UNIT:
		if (l < 24 || l < 24u + d[21] || l < 24u + d[21] + d[22 + d[21]])
			return fail(ps, "extension unit %u: bLength %u too short", d[3], l);
		n_src = d[21];
		src_off = 22;
		n_ctl = d[22 + n_src];
		ctl_off = 23 + n_src;
		break;
	case UVC_VC_ENCODING_UNIT:
		if (l < 7 || l < 7u + d[6])
			return fail(ps, "encoding unit %u: bLength %u too short", d[3], l);
		n_src = 1;
		src_off = 4;
		n_ctl = d[6];
		ctl_off = 7;
		break;
	}

	uint8_t *sources = dup_bytes(d + src_off, n_src);
	uint8_t *controls = dup_bytes(d + ctl_off, n_ctl);
	e = (sources && controls) ? append(&cam->entities, &cam->n_entities, sizeof(*e)) : NULL;
	if (!e) {
		free(sources);
		free(controls);
		return -ENOMEM;
	}
	e->id = d[3];
	e->n_sources = (uint8_t)n_src;
	e->sources = sources;
	e->control_size = (uint8_t)n_ctl;
	e->controls = controls;
	switch (subtype) {
	case UVC_VC_INPUT_TERMINAL:
		e->kind = UVC_ENTITY_INPUT_TERMINAL;
		e->type = (uint16_t)get16(d + 4);
		e->assoc_terminal = d[6];
		if (e->type == UVC_ITT_CAMERA) {
			e->focal_min = (uint16_t)get16(d + 8);
			e->focal_max = (uint16_t)get16(d + 10);
			e->ocular_focal = (uint16_t)get16(d + 12);
		}
		break;
	case UVC_VC_OUTPUT_TERMINAL:
		e->kind = UVC_ENTITY_OUTPUT_TERMINAL;
		e->type = (uint16_t)get16(d + 4);
		e->assoc_terminal = d[6];
		break;
	case UVC_VC_SELECTOR_UNIT:
		e->kind = UVC_ENTITY_SELECTOR_UNIT;
		break;
	case UVC_VC_PROCESSING_UNIT:
		e->kind = UVC_ENTITY_PROCESSING_UNIT;
		e->max_multiplier = (uint16_t)get16(d + 5);
		/* UVC 1.0 units end at iProcessing; 1.1 adds bmVideoStandards. */
		if (l >= 10u + n_ctl)
			e->video_standards = d[9 + n_ctl];
		break;
	case UVC_VC_EXTENSION_UNIT:
		e->kind = UVC_ENTITY_EXTENSION_UNIT;
		memcpy(e->guid, d + 4, 16);
		e->n_controls = d[20];
		break;
	case UVC_VC_ENCODING_UNIT:
		e->kind = UVC_ENTITY_ENCODING_UNIT;
		break;
	}
	return 0;
}

/* ---------------------------------------------------------- VideoStreaming */

static int parse_format(struct parser *ps, const uint8_t *d, unsigned l)
{
	struct uvc_streaming *vs = ps->vs;
	unsigned subtype = d[2];
	unsigned need = subtype == UVC_VS_FORMAT_MJPEG		? 11
			: subtype == UVC_VS_FORMAT_FRAME_BASED ? 28
							       : 27;
	if (l < need)
		return fail(ps, "format subtype 0x%02x: bLength %u < %u", subtype, l, need);
	if (d[3] == 0)
		return fail(ps, "format index 0");
	for (unsigned i = 0; i < vs->n_formats; i++)
		if (vs->formats[i].index == d[3])
			return fail(ps, "format index %u: duplicate", d[3]);
	struct uvc_format *f = append(&vs->formats, &vs->n_formats, sizeof(*f));
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
			warn(ps, "format %u: unknown GUID", f->index);
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
		return fail(ps, "frame subtype 0x%02x before any format", subtype);
	enum uvc_format_kind want = subtype == UVC_VS_FRAME_MJPEG ? UVC_FORMAT_MJPEG
				    : fb			    ? UVC_FORMAT_FRAME_BASED
								    : UVC_FORMAT_UNCOMPRESSED;
	if (f->kind != want)
		return fail(ps, "frame subtype 0x%02x under format %u of another kind", subtype,
			    f->index);
	if (l < 26)
		return fail(ps, "frame: bLength %u < 26", l);
	unsigned type = d[fb ? 21 : 25];
	unsigned need = 26 + 4 * (type ? type : 3);
	if (l < need)
		return fail(ps, "frame %u: %u intervals need %u bytes, bLength %u", d[3], type, need, l);
	if (f->n_frames >= f->n_frames_declared)
		return fail(ps, "format %u: more frames than its %u", f->index, f->n_frames_declared);

	uint32_t *intervals = NULL;
	if (type) {
		intervals = malloc(type * sizeof(*intervals));
		if (!intervals)
			return -ENOMEM;
		for (unsigned i = 0; i < type; i++)
			intervals[i] = get32(d + 26 + 4 * i);
	}
	struct uvc_frame *fr = append(&f->frames, &f->n_frames, sizeof(*fr));
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
		return fail(ps, "still image frame: bLength %u too short", l);
	if (!f) {
		warn(ps, "still image frame before any format skipped");
		return 0;
	}
	if (f->n_stills) {
		warn(ps, "format %u: second still image frame skipped", f->index);
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

/* The bytes of the class-specific descriptors from offset i up to the next
 * interface or endpoint descriptor: an interface's "extra" to the USB core. */
static size_t class_run(const uint8_t *desc, size_t total, size_t i)
{
	size_t pos = i;
	const uint8_t *d;
	while ((d = uvc_next_descriptor(desc, total, &pos)))
		if (d[1] == USB_DT_INTERFACE || d[1] == USB_DT_ENDPOINT)
			return (size_t)(d - desc) - i;
	return pos - i;
}

/* avail: the bytes from d to the interface's next standard descriptor
 * (class_run), which is what uvcvideo checks an input header against, not
 * its bLength; only an input header needs it. */
static int parse_vs(struct parser *ps, const uint8_t *d, unsigned l, size_t avail)
{
	struct uvc_streaming *vs = ps->vs;
	if (l < 3)
		return fail(ps, "VS descriptor: bLength %u < 3", l);
	switch (d[2]) {
	case UVC_VS_INPUT_HEADER:
		if (avail < 13 || avail < 13u + (unsigned)d[3] * d[12])
			return fail(ps, "VS input header: bLength %u too short", l);
		if (l < 13u + (unsigned)d[3] * d[12])
			warn(ps, "VS input header: bLength %u short of its %u formats' controls, "
				 "read past it as uvcvideo does", l, d[3]);
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
			return fail(ps, "color matching: bLength %u < 6", l);
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
		warn(ps, "VS subtype 0x%02x skipped", d[2]);
		return 0;
	}
}

/* --------------------------------------------------------------- interface */

static bool in_collection(const struct parser *ps, uint8_t intf)
{
	if (!ps->have_header)
		return true;
	for (unsigned i = 0; i < ps->n_collection; i++)
		if (ps->collection[i] == intf)
			return true;
	return false;
}

static int parse_interface(struct parser *ps, const uint8_t *d, unsigned l)
{
	struct uvc_camera *cam = ps->cam;
	if (l < USB_DT_INTERFACE_SIZE)
		return fail(ps, "interface: bLength %u < %u", l, USB_DT_INTERFACE_SIZE);
	uint8_t intf = d[2];
	ps->alt = d[3];
	ps->last_alt = NULL;
	ps->where = IN_OTHER;
	/* A vendor-specific interface is the camera's only when the caller
	 * asks for it by number: uvcvideo binds such cameras by its device
	 * table (quirks.c, VENDOR_CLASS), and then takes their streaming
	 * interfaces by subclass whatever their class. */
	bool vendor = d[5] == USB_CLASS_VENDOR_SPEC &&
		      ((d[6] == UVC_SC_VIDEOCONTROL && intf == ps->want_vc) ||
		       (d[6] == UVC_SC_VIDEOSTREAMING && ps->vendor_class));
	if (d[5] != USB_CLASS_VIDEO && !vendor)
		return 0;
	if (d[6] == UVC_SC_VIDEOCONTROL) {
		if (ps->want_vc >= 0 && intf != ps->want_vc) {
			warn(ps, "VideoControl interface %u not the one asked for", intf);
			return 0;
		}
		if (ps->have_vc && intf != cam->control_interface) {
			if (!ps->vc_done)
				warn(ps, "second VideoControl interface %u ignored", intf);
			ps->vc_done = true;
			return 0;
		}
		ps->have_vc = true;
		ps->vendor_class = vendor;
		cam->control_interface = intf;
		ps->where = IN_VC;
		return 0;
	}
	if (d[6] != UVC_SC_VIDEOSTREAMING || !ps->have_vc || !in_collection(ps, intf))
		return 0;
	ps->where = IN_VS;
	for (unsigned i = 0; i < cam->n_streams; i++) {
		if (cam->streams[i].interface == intf) {
			if (ps->vs != &cam->streams[i])
				ps->format = NULL;
			ps->vs = &cam->streams[i];
			return 0;
		}
	}
	struct uvc_streaming *vs = append(&cam->streams, &cam->n_streams, sizeof(*vs));
	if (!vs)
		return -ENOMEM;
	vs->interface = intf;
	ps->vs = vs;
	ps->format = NULL;
	return 0;
}

static int parse_endpoint(struct parser *ps, const uint8_t *d, unsigned l)
{
	struct uvc_camera *cam = ps->cam;
	if (l < USB_DT_ENDPOINT_SIZE)
		return fail(ps, "endpoint: bLength %u < %u", l, USB_DT_ENDPOINT_SIZE);
	unsigned type = d[3] & USB_ENDPOINT_XFERTYPE_MASK;
	unsigned mp = get16(d + 4);
	ps->last_alt = NULL;
	if (ps->where == IN_VC) {
		if (type == USB_ENDPOINT_XFER_INT && (d[2] & USB_DIR_IN) && !cam->status_endpoint) {
			cam->status_endpoint = d[2];
			cam->status_packet = (uint16_t)mp;
		}
		return 0;
	}
	if (ps->where != IN_VS || !(d[2] & USB_DIR_IN))
		return 0;
	struct uvc_streaming *vs = ps->vs;
	if (type != USB_ENDPOINT_XFER_ISOC && type != USB_ENDPOINT_XFER_BULK)
		return 0;
	if (!vs->endpoint)
		vs->endpoint = d[2];
	if (vs->endpoint == d[2])
		vs->transfer = type == USB_ENDPOINT_XFER_BULK ? UVC_TRANSFER_BULK
							     : UVC_TRANSFER_ISOCHRONOUS;
	/* every (alternate setting, endpoint) pair: which endpoint is the
	 * stream's is known once the header is (it may come later) */
	for (unsigned i = 0; i < vs->n_alts; i++)
		if (vs->alts[i].alt == ps->alt && vs->alts[i].endpoint == d[2])
			return 0;
	struct uvc_alt *a = append(&vs->alts, &vs->n_alts, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->alt = ps->alt;
	a->endpoint = d[2];
	a->transfer = type == USB_ENDPOINT_XFER_BULK ? UVC_TRANSFER_BULK : UVC_TRANSFER_ISOCHRONOUS;
	a->max_packet = (uint16_t)mp;
	if (type == USB_ENDPOINT_XFER_BULK)
		a->bytes = mp & 0x7ff;
	else
		a->bytes = (mp & 0x7ff) * (((mp >> 11) & 3) + 1);
	ps->last_alt = a;
	return 0;
}

static int parse_companion(struct parser *ps, const uint8_t *d, unsigned l)
{
	if (l < USB_DT_SS_EP_COMP_SIZE)
		return fail(ps, "SS endpoint companion: bLength %u < %u", l, USB_DT_SS_EP_COMP_SIZE);
	struct uvc_alt *a = ps->last_alt;
	if (!a || ps->vs->transfer != UVC_TRANSFER_ISOCHRONOUS)
		return 0;
	unsigned bpi = get16(d + 4);
	if (bpi)
		a->bytes = bpi;
	else /* dumps that lost it: packet * (bMaxBurst + 1) * (Mult + 1) */
		a->bytes = (uint32_t)(a->max_packet & 0x7ff) * (d[2] + 1u) * ((d[3] & 3) + 1u);
	return 0;
}

static int parse_all(struct parser *ps, const uint8_t *desc, size_t len)
{
	if (len < USB_DT_CONFIG_SIZE)
		return fail(ps, "configuration descriptor: %zu bytes < %u", len, USB_DT_CONFIG_SIZE);
	if (desc[0] < USB_DT_CONFIG_SIZE || desc[1] != USB_DT_CONFIG)
		return fail(ps, "not a configuration descriptor (bLength %u, type 0x%02x)", desc[0],
			    desc[1]);
	size_t total = get16(desc + 2);
	if (total < desc[0])
		return fail(ps, "wTotalLength %zu < bLength %u", total, desc[0]);
	if (total > len) {
		warn(ps, "wTotalLength %zu > %zu bytes: parsing what is there", total, len);
		total = len;
	}

	for (size_t i = desc[0]; i < total;) {
		/* As the kernel's usb_parse_configuration(): a stray byte at the
		 * end is ignored, and a descriptor whose bLength is below 2 or
		 * runs past the end ends the configuration, keeping what precedes
		 * it; uvcvideo only ever sees that part, so neither do we (the
		 * checks below then decide, as uvcvideo's probe would). */
		if (total - i < 2) {
			warn(ps, "offset %zu: %zu stray byte at the end, ignored", i, total - i);
			break;
		}
		unsigned l = desc[i];
		if (l < 2 || l > total - i) {
			warn(ps, "offset %zu: invalid bLength %u, the rest of the configuration skipped",
			     i, l);
			ps->cut_at = i;
			break;
		}
		const uint8_t *d = desc + i;
		int r = 0;
		switch (d[1]) {
		case USB_DT_INTERFACE:
			r = parse_interface(ps, d, l);
			break;
		case USB_DT_ENDPOINT:
			r = parse_endpoint(ps, d, l);
			break;
		case USB_DT_SS_ENDPOINT_COMP:
			r = parse_companion(ps, d, l);
			break;
		case USB_DT_CS_INTERFACE:
			if (l < 3)
				r = fail(ps, "offset %zu: class descriptor bLength %u < 3", i, l);
			else if (ps->where == IN_VC)
				r = parse_vc(ps, d, l);
			else if (ps->where == IN_VS)
				r = parse_vs(ps, d, l,
					     d[2] == UVC_VS_INPUT_HEADER ? class_run(desc, total, i) : l);
			break;
		default:
			break;
		}
		if (r)
			return r;
		i += l;
	}

	struct uvc_camera *cam = ps->cam;
	/* what a configuration that was cut short lacks says where it ended */
	char cut[96] = "";
	if (ps->cut_at)
		snprintf(cut, sizeof(cut), " (the configuration ends at an invalid bLength, offset %zu)",
			 ps->cut_at);
	if (!ps->have_vc)
		return fail(ps, "no VideoControl interface%s", cut);
	if (!ps->have_header)
		return fail(ps, "no VideoControl header%s", cut);
	if (!cam->n_streams)
		return fail(ps, "no VideoStreaming interface%s", cut);
	unsigned formats = 0;
	for (unsigned s = 0; s < cam->n_streams; s++) {
		struct uvc_streaming *vs = &cam->streams[s];
		/* alternate settings whose endpoint is not the header's are not
		 * the stream's (uvcvideo: uvc_find_endpoint finds nothing) */
		unsigned alts = 0;
		for (unsigned a = 0; a < vs->n_alts; a++) {
			if (vs->alts[a].endpoint == vs->endpoint) {
				vs->transfer = vs->alts[a].transfer;
				vs->alts[alts++] = vs->alts[a];
			} else
				warn(ps, "VS interface %u alternate setting %u: endpoint 0x%02x is not "
					 "the header's 0x%02x, ignored", vs->interface, vs->alts[a].alt,
				     vs->alts[a].endpoint, vs->endpoint);
		}
		vs->n_alts = alts;
		unsigned kept = 0;
		for (unsigned f = 0; f < vs->n_formats; f++) {
			struct uvc_format *fmt = &vs->formats[f];
			/* Nothing can stream a format without a frame size, and
			 * everything above picks a frame of the format it has. */
			if (!fmt->n_frames) {
				warn(ps, "format %u: no frame descriptor, ignored", fmt->index);
				free(fmt->stills);
				continue;
			}
			if (fmt->n_frames < fmt->n_frames_declared)
				warn(ps, "format %u: %u of %u frames", fmt->index, fmt->n_frames,
				     fmt->n_frames_declared);
			vs->formats[kept++] = *fmt;
		}
		vs->n_formats = kept;
		formats += kept;
	}
	if (!formats)
		return fail(ps, "no format descriptor%s", cut);
	return 0;
}

int uvc_parse_descriptors(const uint8_t *desc, size_t len, struct uvc_camera **camera,
			  struct uvc_parse_status *status)
{
	return uvc_parse_function(desc, len, -1, camera, status);
}

int uvc_parse_function(const uint8_t *desc, size_t len, int control_interface,
		       struct uvc_camera **camera, struct uvc_parse_status *status)
{
	struct parser ps = { .status = status, .want_vc = control_interface };
	if (status)
		memset(status, 0, sizeof(*status));
	*camera = NULL;
	if (!desc)
		return fail(&ps, "no descriptor");
	ps.cam = calloc(1, sizeof(*ps.cam));
	if (!ps.cam)
		return -ENOMEM;
	int r = parse_all(&ps, desc, len);
	if (r) {
		uvc_camera_free(ps.cam);
		return r;
	}
	*camera = ps.cam;
	return 0;
}

void uvc_camera_free(struct uvc_camera *cam)
{
	if (!cam)
		return;
	for (unsigned i = 0; i < cam->n_entities; i++) {
		free(cam->entities[i].sources);
		free(cam->entities[i].controls);
	}
	free(cam->entities);
	for (unsigned s = 0; s < cam->n_streams; s++) {
		struct uvc_streaming *vs = &cam->streams[s];
		for (unsigned f = 0; f < vs->n_formats; f++) {
			struct uvc_format *fmt = &vs->formats[f];
			for (unsigned k = 0; k < fmt->n_frames; k++)
				free(fmt->frames[k].intervals);
			free(fmt->frames);
			free(fmt->stills);
		}
		free(vs->formats);
		free(vs->alts);
	}
	free(cam->streams);
	free(cam);
}

const struct uvc_entity *uvc_camera_find_entity(const struct uvc_camera *cam, uint8_t id)
{
	for (unsigned i = 0; i < cam->n_entities; i++)
		if (cam->entities[i].id == id)
			return &cam->entities[i];
	return NULL;
}

bool uvc_entity_has_control(const struct uvc_entity *e, unsigned bit)
{
	return bit / 8 < e->control_size && (e->controls[bit / 8] >> (bit % 8)) & 1;
}

const struct uvc_format *uvc_stream_find_format(const struct uvc_streaming *stream, uint8_t index)
{
	for (unsigned i = 0; i < stream->n_formats; i++)
		if (stream->formats[i].index == index)
			return &stream->formats[i];
	return NULL;
}

const struct uvc_frame *uvc_format_find_frame(const struct uvc_format *format, uint8_t index)
{
	for (unsigned i = 0; format && i < format->n_frames; i++)
		if (format->frames[i].index == index)
			return &format->frames[i];
	return NULL;
}

const uint8_t *uvc_next_descriptor(const uint8_t *desc, size_t len, size_t *pos)
{
	size_t at = *pos;
	if (at + 2 > len || desc[at] < 2 || desc[at] > len - at)
		return NULL;
	*pos = at + desc[at];
	return desc + at;
}

uint8_t uvc_function_string_index(const uint8_t *desc, size_t len, uint8_t control_interface)
{
	uint8_t function = 0, interface = 0;
	bool iad_found = false, if_found = false;
	const uint8_t *d;

	for (size_t pos = 0; (d = uvc_next_descriptor(desc, len, &pos));) {
		if (d[1] == USB_DT_INTERFACE_ASSOCIATION && d[0] >= 8 && !iad_found &&
		    control_interface >= d[2] && control_interface < d[2] + d[3]) {
			iad_found = true;
			function = d[7];
		} else if (d[1] == USB_DT_INTERFACE && d[0] >= USB_DT_INTERFACE_SIZE && !if_found &&
			   d[2] == control_interface && d[3] == 0) {
			if_found = true;
			interface = d[8];
		}
	}
	return iad_found && function ? function : interface;
}

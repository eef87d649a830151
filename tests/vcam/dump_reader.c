/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The vcam's lenient reading of a configuration (dump_reader.h). Field
 * offsets are the UVC 1.5 specification's (class-specific VC and VS
 * interface descriptors, sections 3.7 and 3.9); every field is read only
 * when bLength holds it. */
#include "dump_reader.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>
#include <linux/videodev2.h>

#define UVC_VC_ENCODING_UNIT 0x07

struct reader {
	struct uvc_camera *cam;
	int vc;                        /* the VideoControl interface read */
	bool vendor;                   /* ... is vendor-specific */
	bool vc_seen;                  /* its class descriptors were read */
	enum { OUTSIDE, IN_VC, IN_VS } where;
	struct uvc_streaming *vs;
	uint8_t alt;
	struct uvc_alt *last_alt;      /* for a SuperSpeed companion */
	struct uvc_format *format;
	const uint8_t *collection;     /* the VC header's baInterfaceNr[] */
	unsigned n_collection;
	bool failed;                   /* out of memory */
};

static unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

/* Grows *items (n of them, size bytes each) by one zeroed item. */
static void *grow(struct reader *r, void *items, unsigned *n, size_t size, void **out)
{
	uint8_t *more = realloc(items, (*n + 1) * size);

	*out = NULL;
	if (!more) {
		r->failed = true;
		return items;
	}
	memset(more + *n * size, 0, size);
	*out = more + *n * size;
	(*n)++;
	return more;
}

/* A copy of n bytes at p, clipped to what bLength l holds from offset at. */
static uint8_t *bytes_of(struct reader *r, const uint8_t *d, unsigned l, unsigned at,
			 unsigned n, uint8_t *count)
{
	uint8_t *copy;

	n = at >= l ? 0 : n > l - at ? l - at : n;
	copy = malloc(n ? n : 1);
	if (!copy) {
		r->failed = true;
		n = 0;
	} else if (n) {
		memcpy(copy, d + at, n);
	}
	*count = (uint8_t)n;
	return copy;
}

/* Where an entity keeps its sources and bmControls (offset, count). */
struct entity_fields {
	unsigned src_at, n_src, ctl_at, n_ctl;
};

static struct entity_fields entity_fields(unsigned subtype, const uint8_t *d, unsigned l)
{
	struct entity_fields f = { 0 };

	switch (subtype) {
	case UVC_VC_INPUT_TERMINAL:
		if (l >= 15 && get16(d + 4) == UVC_ITT_CAMERA)
			f = (struct entity_fields){ 0, 0, 15, d[14] };
		break;
	case UVC_VC_OUTPUT_TERMINAL:
		f = (struct entity_fields){ 7, 1, 0, 0 };
		break;
	case UVC_VC_SELECTOR_UNIT:
		f = (struct entity_fields){ 5, l >= 5 ? d[4] : 0, 0, 0 };
		break;
	case UVC_VC_PROCESSING_UNIT:
		f = (struct entity_fields){ 4, 1, 8, l >= 8 ? d[7] : 0 };
		break;
	case UVC_VC_EXTENSION_UNIT:
		if (l >= 22) {
			unsigned p = d[21];
			f = (struct entity_fields){ 22, p, 23 + p, l > 22 + p ? d[22 + p] : 0 };
		}
		break;
	case UVC_VC_ENCODING_UNIT:
		f = (struct entity_fields){ 4, 1, 7, l >= 7 ? d[6] : 0 };
		break;
	}
	return f;
}

static void read_entity(struct reader *r, const uint8_t *d, unsigned l)
{
	static const enum uvc_entity_kind kinds[] = {
		[UVC_VC_INPUT_TERMINAL] = UVC_ENTITY_INPUT_TERMINAL,
		[UVC_VC_OUTPUT_TERMINAL] = UVC_ENTITY_OUTPUT_TERMINAL,
		[UVC_VC_SELECTOR_UNIT] = UVC_ENTITY_SELECTOR_UNIT,
		[UVC_VC_PROCESSING_UNIT] = UVC_ENTITY_PROCESSING_UNIT,
		[UVC_VC_EXTENSION_UNIT] = UVC_ENTITY_EXTENSION_UNIT,
		[UVC_VC_ENCODING_UNIT] = UVC_ENTITY_ENCODING_UNIT,
	};
	struct uvc_camera *cam = r->cam;
	struct entity_fields f = entity_fields(d[2], d, l);
	struct uvc_entity *e;

	cam->entities = grow(r, cam->entities, &cam->n_entities, sizeof(*e), (void **)&e);
	if (!e)
		return;
	e->kind = kinds[d[2]];
	e->id = d[3];
	if ((e->kind == UVC_ENTITY_INPUT_TERMINAL || e->kind == UVC_ENTITY_OUTPUT_TERMINAL) &&
	    l >= 6)
		e->type = (uint16_t)get16(d + 4);
	e->sources = bytes_of(r, d, l, f.src_at, f.n_src, &e->n_sources);
	e->controls = bytes_of(r, d, l, f.ctl_at, f.n_ctl, &e->control_size);
	if (e->kind == UVC_ENTITY_EXTENSION_UNIT && l >= 21) {
		memcpy(e->guid, d + 4, 16);
		e->n_controls = d[20];
	}
}

static void read_vc(struct reader *r, const uint8_t *d, unsigned l)
{
	if (d[2] == UVC_VC_HEADER && l >= 12) {
		r->cam->bcd_uvc = (uint16_t)get16(d + 3);
		r->cam->clock_frequency = get32(d + 7);
		r->collection = d + 12;
		r->n_collection = l - 12 < d[11] ? l - 12 : d[11];
	} else if (d[2] >= UVC_VC_INPUT_TERMINAL && d[2] <= UVC_VC_ENCODING_UNIT && l >= 4) {
		read_entity(r, d, l);
	}
}

/* ---- streaming ---- */

static void read_format(struct reader *r, const uint8_t *d, unsigned l)
{
	struct uvc_streaming *vs = r->vs;
	struct uvc_format *f;
	bool guid = d[2] != UVC_VS_FORMAT_MJPEG;

	r->format = NULL;
	if (l < (guid ? 23u : 7u))
		return;
	vs->formats = grow(r, vs->formats, &vs->n_formats, sizeof(*f), (void **)&f);
	if (!f)
		return;
	f->index = d[3];
	f->n_frames_declared = d[4];
	if (guid) {
		f->kind = d[2] == UVC_VS_FORMAT_UNCOMPRESSED ? UVC_FORMAT_UNCOMPRESSED
							      : UVC_FORMAT_FRAME_BASED;
		memcpy(f->guid, d + 5, 16);
		f->fourcc = uvc_guid_to_fourcc(f->guid);
		f->bpp = d[21];
		f->default_frame = d[22];
	} else {
		f->kind = UVC_FORMAT_MJPEG;
		f->fourcc = V4L2_PIX_FMT_MJPEG;
		f->default_frame = d[6];
	}
	r->format = f;
}

/* The intervals of a frame descriptor: n discrete ones, or min, max and
 * step (n == 0), from offset at. */
static void read_intervals(struct reader *r, struct uvc_frame *fr, const uint8_t *d, unsigned l,
			   unsigned n, unsigned at)
{
	if (n == 0) {
		fr->continuous = true;
		if (l >= at + 12)
			fr->range = (struct uvc_interval_range){ get32(d + at), get32(d + at + 4),
								 get32(d + at + 8) };
		return;
	}
	if (l < at)
		n = 0;
	else if (n > (l - at) / 4)
		n = (l - at) / 4;
	fr->intervals = malloc(n ? n * sizeof(uint32_t) : 1);
	if (!fr->intervals) {
		r->failed = true;
		return;
	}
	for (unsigned k = 0; k < n; k++)
		fr->intervals[k] = get32(d + at + 4 * k);
	fr->n_intervals = (uint8_t)n;
}

static void read_frame(struct reader *r, const uint8_t *d, unsigned l)
{
	struct uvc_format *f = r->format;
	enum uvc_format_kind kind = d[2] == UVC_VS_FRAME_UNCOMPRESSED ? UVC_FORMAT_UNCOMPRESSED :
				    d[2] == UVC_VS_FRAME_MJPEG	      ? UVC_FORMAT_MJPEG :
									UVC_FORMAT_FRAME_BASED;
	bool frame_based = kind == UVC_FORMAT_FRAME_BASED;
	struct uvc_frame *fr;

	if (!f || f->kind != kind || l < 26)
		return;
	f->frames = grow(r, f->frames, &f->n_frames, sizeof(*fr), (void **)&fr);
	if (!fr)
		return;
	fr->index = d[3];
	fr->capabilities = d[4];
	fr->width = (uint16_t)get16(d + 5);
	fr->height = (uint16_t)get16(d + 7);
	fr->min_bit_rate = get32(d + 9);
	fr->max_bit_rate = get32(d + 13);
	/* an uncompressed frame is as big as its size says (whatever
	 * dwMaxVideoFrameBufferSize claims, which chipsets get wrong);
	 * frame-based formats have no such field */
	if (frame_based || kind == UVC_FORMAT_UNCOMPRESSED)
		fr->max_buffer_size = (uint32_t)((uint64_t)fr->width * fr->height *
						 (f->bpp || !frame_based ? f->bpp : 16) / 8);
	if (frame_based) {
		fr->default_interval = get32(d + 17);
		fr->bytes_per_line = get32(d + 22);
		read_intervals(r, fr, d, l, d[21], 26);
	} else {
		if (kind == UVC_FORMAT_MJPEG)
			fr->max_buffer_size = get32(d + 17);
		fr->default_interval = get32(d + 21);
		read_intervals(r, fr, d, l, d[25], 26);
	}
}

static void read_vs(struct reader *r, const uint8_t *d, unsigned l)
{
	switch (d[2]) {
	case UVC_VS_INPUT_HEADER:
		if (l >= 9) { /* the endpoint is settled once all is read */
			r->vs->endpoint = d[6];
			r->vs->info = d[7];
			r->vs->terminal_link = d[8];
		}
		break;
	case UVC_VS_FORMAT_UNCOMPRESSED:
	case UVC_VS_FORMAT_MJPEG:
	case UVC_VS_FORMAT_FRAME_BASED:
		read_format(r, d, l);
		break;
	case UVC_VS_FRAME_UNCOMPRESSED:
	case UVC_VS_FRAME_MJPEG:
	case UVC_VS_FRAME_FRAME_BASED:
		read_frame(r, d, l);
		break;
	default:
		break;
	}
}

/* ---- interfaces and endpoints ---- */

static bool video_class(const struct reader *r, const uint8_t *d, uint8_t subclass)
{
	return d[6] == subclass &&
	       (d[5] == USB_CLASS_VIDEO || (r->vendor && d[5] == USB_CLASS_VENDOR_SPEC));
}

/* A streaming interface of the function read: one its header collects
 * (any, when the header names none). */
static bool collected(const struct reader *r, uint8_t interface)
{
	if (!r->n_collection)
		return true;
	return memchr(r->collection, interface, r->n_collection) != NULL;
}

static void read_interface(struct reader *r, const uint8_t *d)
{
	struct uvc_camera *cam = r->cam;

	r->where = OUTSIDE;
	r->last_alt = NULL;
	/* the VideoControl interface again (an alternate setting, a repeat):
	 * the first one's descriptors are the camera's, as for uvcvideo */
	if (d[2] == r->vc && video_class(r, d, UVC_SC_VIDEOCONTROL)) {
		r->where = r->vc_seen ? OUTSIDE : IN_VC;
		r->vc_seen = true;
		return;
	}
	if (!r->vc_seen || !video_class(r, d, UVC_SC_VIDEOSTREAMING) || !collected(r, d[2]))
		return;
	r->vs = NULL;
	for (unsigned s = 0; s < cam->n_streams; s++)
		if (cam->streams[s].interface == d[2])
			r->vs = &cam->streams[s];
	if (!r->vs) {
		cam->streams = grow(r, cam->streams, &cam->n_streams, sizeof(*r->vs),
				    (void **)&r->vs);
		if (!r->vs)
			return;
		r->vs->interface = d[2];
	}
	r->alt = d[3];
	r->format = NULL;
	r->where = IN_VS;
}

static void read_endpoint(struct reader *r, const uint8_t *d)
{
	unsigned type = d[3] & USB_ENDPOINT_XFERTYPE_MASK;
	unsigned max_packet = get16(d + 4);
	struct uvc_alt *a;

	if (!(d[2] & USB_DIR_IN))
		return;
	if (r->where == IN_VC && type == USB_ENDPOINT_XFER_INT) {
		r->cam->status_endpoint = d[2];
		r->cam->status_packet = (uint16_t)max_packet;
		return;
	}
	if (r->where != IN_VS)
		return;
	r->vs->alts = grow(r, r->vs->alts, &r->vs->n_alts, sizeof(*a), (void **)&a);
	if (!a)
		return;
	a->alt = r->alt;
	a->endpoint = d[2];
	a->transfer = type == USB_ENDPOINT_XFER_BULK ? UVC_TRANSFER_BULK : UVC_TRANSFER_ISOCHRONOUS;
	a->max_packet = (uint16_t)max_packet;
	a->bytes = type == USB_ENDPOINT_XFER_BULK
			   ? max_packet
			   : (max_packet & 0x7ff) * (((max_packet >> 11) & 3) + 1);
	r->last_alt = a;
}

/* A SuperSpeed companion: wBytesPerInterval, or computed from bMaxBurst
 * and Mult when the dump lost it. */
static void read_companion(struct reader *r, const uint8_t *d)
{
	struct uvc_alt *a = r->last_alt;
	unsigned bytes = get16(d + 4);

	if (!a || a->transfer != UVC_TRANSFER_ISOCHRONOUS)
		return;
	a->bytes = bytes ? bytes : (a->max_packet & 0x7ffu) * (d[2] + 1u) * ((d[3] & 3) + 1u);
}

/* What the rest of the vcam expects of each stream: its endpoint (the
 * input header's, else its first) and transfer, only the alternate
 * settings on it, only formats with frames. */
static void settle_streams(struct reader *r)
{
	for (unsigned s = 0; s < r->cam->n_streams; s++) {
		struct uvc_streaming *vs = &r->cam->streams[s];
		uint8_t ep = vs->endpoint;
		unsigned kept = 0;

		if (!ep && vs->n_alts)
			ep = vs->alts[0].endpoint;
		for (unsigned k = 0; k < vs->n_alts; k++)
			if (vs->alts[k].endpoint == ep)
				vs->alts[kept++] = vs->alts[k];
		vs->n_alts = kept;
		vs->endpoint = kept ? ep : 0;
		vs->transfer = kept ? vs->alts[0].transfer : UVC_TRANSFER_ISOCHRONOUS;
		kept = 0;
		for (unsigned k = 0; k < vs->n_formats; k++) {
			if (vs->formats[k].n_frames)
				vs->formats[kept++] = vs->formats[k];
			else
				free(vs->formats[k].frames);
		}
		vs->n_formats = kept;
	}
}

int vcam_dump_find_vc(const uint8_t *c, size_t len, bool *vendor)
{
	const uint8_t *d;
	int found = -1;

	for (size_t pos = 0; (d = uvc_next_descriptor(c, len, &pos));) {
		if (d[1] != USB_DT_INTERFACE || d[0] < USB_DT_INTERFACE_SIZE ||
		    d[6] != UVC_SC_VIDEOCONTROL)
			continue;
		if (d[5] == USB_CLASS_VIDEO) {
			*vendor = false;
			return d[2];
		}
		if (d[5] == USB_CLASS_VENDOR_SPEC && found < 0)
			found = d[2];
	}
	*vendor = found >= 0;
	return found;
}

int vcam_dump_read(const uint8_t *config, size_t len, int vc_interface, struct uvc_camera **out)
{
	struct reader r = { 0 };
	const uint8_t *d;

	*out = NULL;
	/* what follows wTotalLength is not this configuration */
	if (len >= USB_DT_CONFIG_SIZE && config[1] == USB_DT_CONFIG && get16(config + 2) < len &&
	    get16(config + 2) >= USB_DT_CONFIG_SIZE)
		len = get16(config + 2);
	r.vc = vcam_dump_find_vc(config, len, &r.vendor);
	if (vc_interface >= 0) {
		r.vendor = r.vendor || r.vc != vc_interface;
		r.vc = vc_interface;
	}
	if (r.vc < 0 || !(r.cam = calloc(1, sizeof(*r.cam))))
		return r.vc < 0 ? -EINVAL : -ENOMEM;
	r.cam->control_interface = (uint8_t)r.vc;
	for (size_t pos = 0; (d = uvc_next_descriptor(config, len, &pos)) && !r.failed;) {
		if (d[1] == USB_DT_INTERFACE && d[0] >= USB_DT_INTERFACE_SIZE)
			read_interface(&r, d);
		else if (d[1] == USB_DT_ENDPOINT && d[0] >= USB_DT_ENDPOINT_SIZE)
			read_endpoint(&r, d);
		else if (d[1] == USB_DT_SS_ENDPOINT_COMP && d[0] >= USB_DT_SS_EP_COMP_SIZE)
			read_companion(&r, d);
		else if (d[1] == USB_DT_CS_INTERFACE && d[0] >= 3 && r.where == IN_VC)
			read_vc(&r, d, d[0]);
		else if (d[1] == USB_DT_CS_INTERFACE && d[0] >= 3 && r.where == IN_VS)
			read_vs(&r, d, d[0]);
	}
	settle_streams(&r);
	if (r.failed) {
		uvc_camera_free(r.cam);
		return -ENOMEM;
	}
	*out = r.cam;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Configuration descriptor -> camera model. Every read is bounds-checked
 * against the descriptor's bLength, and every bLength against the buffer.
 * This file walks the configuration (interfaces, endpoints) and checks what
 * it found; the class descriptors of the VideoControl and VideoStreaming
 * interfaces are descriptors_vc.c's and descriptors_vs.c's. */
#include "descriptors_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>

/* ---------------------------------------------------------------- helpers */

int desc_fail(struct parser *ps, const char *fmt, ...)
{
	if (ps->status) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ps->status->error, sizeof(ps->status->error), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

void desc_warn(struct parser *ps, const char *fmt, ...)
{
	if (ps->status) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ps->status->warning, sizeof(ps->status->warning), fmt, ap);
		va_end(ap);
		ps->status->n_warnings++;
	}
}

void *desc_append(void *array_ptr, unsigned *n, size_t size)
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
		return desc_fail(ps, "interface: bLength %u < %u", l, USB_DT_INTERFACE_SIZE);
	uint8_t intf = d[2];
	ps->alt = d[3];
	ps->last_alt = NULL;
	ps->where = IN_OTHER;
	/* usbcore skips a repeated (interface, alternate setting) with what
	 * follows it ("Duplicate descriptor ... skipping"): the parser too,
	 * whichever VideoControl interface it is asked for */
	uint8_t bit = (uint8_t)(1u << (ps->alt & 7));
	if (ps->seen[intf][ps->alt >> 3] & bit) {
		desc_warn(ps, "interface %u alternate setting %u again: skipped", intf, ps->alt);
		return 0;
	}
	ps->seen[intf][ps->alt >> 3] |= bit;
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
			desc_warn(ps, "VideoControl interface %u not the one asked for", intf);
			return 0;
		}
		if (ps->have_vc && intf != cam->control_interface) {
			if (!ps->vc_done)
				desc_warn(ps, "second VideoControl interface %u ignored", intf);
			ps->vc_done = true;
			return 0;
		}
		if (ps->have_vc) {
			/* the same interface again (an alternate setting, or a
			 * repeat): its class descriptors are not the first
			 * one's, which uvcvideo reads alone; ignored whether
			 * asked for by number or not */
			desc_warn(ps, "VideoControl interface %u again (alternate setting %u) ignored",
				  intf, d[3]);
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
	struct uvc_streaming *vs = desc_append(&cam->streams, &cam->n_streams, sizeof(*vs));
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
		return desc_fail(ps, "endpoint: bLength %u < %u", l, USB_DT_ENDPOINT_SIZE);
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
	struct uvc_alt *a = desc_append(&vs->alts, &vs->n_alts, sizeof(*a));
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
		return desc_fail(ps, "SS endpoint companion: bLength %u < %u", l,
				 USB_DT_SS_EP_COMP_SIZE);
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

/* ------------------------------------------------------------ configuration */

/* The configuration descriptor's own header: *total is the bytes the
 * walk covers (wTotalLength, or what there is when it claims more). */
static int parse_config_header(struct parser *ps, const uint8_t *desc, size_t len, size_t *total)
{
	if (len < USB_DT_CONFIG_SIZE)
		return desc_fail(ps, "configuration descriptor: %zu bytes < %u", len,
				 USB_DT_CONFIG_SIZE);
	if (desc[0] < USB_DT_CONFIG_SIZE || desc[1] != USB_DT_CONFIG)
		return desc_fail(ps, "not a configuration descriptor (bLength %u, type 0x%02x)",
				 desc[0], desc[1]);
	*total = get16(desc + 2);
	if (*total < desc[0])
		return desc_fail(ps, "wTotalLength %zu < bLength %u", *total, desc[0]);
	if (*total > len) {
		desc_warn(ps, "wTotalLength %zu > %zu bytes: parsing what is there", *total, len);
		*total = len;
	}
	return 0;
}

/* The descriptor of bLength l at offset i, to the parser of its type. */
static int parse_one(struct parser *ps, const uint8_t *desc, size_t total, size_t i, unsigned l)
{
	const uint8_t *d = desc + i;
	switch (d[1]) {
	case USB_DT_INTERFACE:
		return parse_interface(ps, d, l);
	case USB_DT_ENDPOINT:
		return parse_endpoint(ps, d, l);
	case USB_DT_SS_ENDPOINT_COMP:
		return parse_companion(ps, d, l);
	case USB_DT_CS_INTERFACE:
		if (l < 3)
			return desc_fail(ps, "offset %zu: class descriptor bLength %u < 3", i, l);
		if (ps->where == IN_VC)
			return desc_parse_vc(ps, d, l);
		if (ps->where == IN_VS) {
			size_t avail = d[2] == UVC_VS_INPUT_HEADER ? class_run(desc, total, i) : l;
			return desc_parse_vs(ps, d, l, avail);
		}
		return 0;
	default:
		return 0;
	}
}

/* Every descriptor after the configuration's own, up to total. */
static int parse_walk(struct parser *ps, const uint8_t *desc, size_t total)
{
	for (size_t i = desc[0]; i < total;) {
		/* As the kernel's usb_parse_configuration(): a stray byte at the
		 * end is ignored, and a descriptor whose bLength is below 2 or
		 * runs past the end ends the configuration, keeping what precedes
		 * it; uvcvideo only ever sees that part, so neither do we (the
		 * checks of check_camera() then decide, as uvcvideo's probe would). */
		if (total - i < 2) {
			desc_warn(ps, "offset %zu: %zu stray byte at the end, ignored", i,
				  total - i);
			break;
		}
		unsigned l = desc[i];
		if (l < 2 || l > total - i) {
			desc_warn(ps, "offset %zu: invalid bLength %u, the rest of the "
				      "configuration skipped", i, l);
			ps->cut_at = i;
			break;
		}
		int r = parse_one(ps, desc, total, i, l);
		if (r)
			return r;
		i += l;
	}
	return 0;
}

/* Alternate settings whose endpoint is not the header's are not the
 * stream's (uvcvideo: uvc_find_endpoint finds nothing): they go. */
static void keep_header_endpoint_alts(struct parser *ps, struct uvc_streaming *vs)
{
	unsigned alts = 0;
	for (unsigned a = 0; a < vs->n_alts; a++) {
		if (vs->alts[a].endpoint == vs->endpoint) {
			vs->transfer = vs->alts[a].transfer;
			vs->alts[alts++] = vs->alts[a];
		} else
			desc_warn(ps, "VS interface %u alternate setting %u: endpoint 0x%02x is "
				      "not the header's 0x%02x, ignored", vs->interface,
				  vs->alts[a].alt, vs->alts[a].endpoint, vs->endpoint);
	}
	vs->n_alts = alts;
}

/* Formats without a frame go; returns how many are kept. */
static unsigned keep_formats_with_frames(struct parser *ps, struct uvc_streaming *vs)
{
	unsigned kept = 0;
	for (unsigned f = 0; f < vs->n_formats; f++) {
		struct uvc_format *fmt = &vs->formats[f];
		/* Nothing can stream a format without a frame size, and
		 * everything above picks a frame of the format it has. */
		if (!fmt->n_frames) {
			desc_warn(ps, "format %u: no frame descriptor, ignored", fmt->index);
			free(fmt->stills);
			continue;
		}
		if (fmt->n_frames < fmt->n_frames_declared)
			desc_warn(ps, "format %u: %u of %u frames", fmt->index, fmt->n_frames,
				  fmt->n_frames_declared);
		vs->formats[kept++] = *fmt;
	}
	vs->n_formats = kept;
	return kept;
}

/* What the walk found, trimmed to what can stream, must be a camera. */
static int check_camera(struct parser *ps)
{
	struct uvc_camera *cam = ps->cam;
	/* what a configuration that was cut short lacks says where it ended */
	char cut[96] = "";
	if (ps->cut_at)
		snprintf(cut, sizeof(cut), " (the configuration ends at an invalid bLength, offset %zu)",
			 ps->cut_at);
	if (!ps->have_vc)
		return desc_fail(ps, "no VideoControl interface%s", cut);
	if (!ps->have_header)
		return desc_fail(ps, "no VideoControl header%s", cut);
	if (!cam->n_streams)
		return desc_fail(ps, "no VideoStreaming interface%s", cut);
	unsigned formats = 0;
	for (unsigned s = 0; s < cam->n_streams; s++) {
		keep_header_endpoint_alts(ps, &cam->streams[s]);
		formats += keep_formats_with_frames(ps, &cam->streams[s]);
	}
	if (!formats)
		return desc_fail(ps, "no format descriptor%s", cut);
	return 0;
}

static int parse_all(struct parser *ps, const uint8_t *desc, size_t len)
{
	size_t total = 0;
	int r = parse_config_header(ps, desc, len, &total);
	if (!r)
		r = parse_walk(ps, desc, total);
	if (!r)
		r = check_camera(ps);
	return r;
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
		return desc_fail(&ps, "no descriptor");
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The VideoControl interface's class descriptors: its header (bcdUVC, the
 * clock, the streaming interfaces it collects) and its entities, the
 * terminals and units (descriptors_priv.h). */
#include "descriptors_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#define UVC_VC_ENCODING_UNIT 0x07

/* Where an entity descriptor keeps its baSourceID[] and bmControls. */
struct entity_layout {
	unsigned n_src, src_off; /* sources: count, offset */
	unsigned n_ctl, ctl_off; /* bytes of bmControls, offset */
};

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
	uint8_t *copy = malloc(n ? n : 1);
	if (copy && n)
		memcpy(copy, p, n);
	return copy;
}

static int parse_vc_header(struct parser *ps, const uint8_t *d, unsigned l)
{
	struct uvc_camera *cam = ps->cam;
	if (l < 12)
		return desc_fail(ps, "VC header: bLength %u < 12", l);
	if (l < 12u + d[11])
		return desc_fail(ps, "VC header: %u interfaces do not fit bLength %u", d[11], l);
	if (ps->have_header)
		return desc_fail(ps, "VC header: second header");
	ps->have_header = true;
	cam->bcd_uvc = (uint16_t)get16(d + 3);
	cam->clock_frequency = get32(d + 7);
	ps->n_collection = d[11] < sizeof(ps->collection) ? d[11] : sizeof(ps->collection);
	memcpy(ps->collection, d + 12, ps->n_collection);
	return 0;
}

/* Checks that entity descriptor d (bLength l) of its subtype holds the
 * sources and controls it counts, and says where they are. */
static int entity_layout(struct parser *ps, unsigned subtype, const uint8_t *d, unsigned l,
			 struct entity_layout *at)
{
	*at = (struct entity_layout){ 0 };
	switch (subtype) {
	case UVC_VC_INPUT_TERMINAL:
		if (l < 8)
			return desc_fail(ps, "input terminal %u: bLength %u < 8", d[3], l);
		if (get16(d + 4) == UVC_ITT_CAMERA) {
			if (l < 15 || l < 15u + d[14])
				return desc_fail(ps, "camera terminal %u: bLength %u too short",
						 d[3], l);
			at->n_ctl = d[14];
			at->ctl_off = 15;
		}
		break;
	case UVC_VC_OUTPUT_TERMINAL:
		if (l < 9)
			return desc_fail(ps, "output terminal %u: bLength %u < 9", d[3], l);
		at->n_src = 1;
		at->src_off = 7;
		break;
	case UVC_VC_SELECTOR_UNIT:
		if (l < 5 || l < 5u + d[4])
			return desc_fail(ps, "selector unit %u: bLength %u too short", d[3], l);
		at->n_src = d[4];
		at->src_off = 5;
		break;
	case UVC_VC_PROCESSING_UNIT:
		if (l < 8 || l < 8u + d[7])
			return desc_fail(ps, "processing unit %u: bLength %u too short", d[3], l);
		at->n_src = 1;
		at->src_off = 4;
		at->n_ctl = d[7];
		at->ctl_off = 8;
		break;
	case UVC_VC_EXTENSION_UNIT:
		if (l < 24 || l < 24u + d[21] || l < 24u + d[21] + d[22 + d[21]])
			return desc_fail(ps, "extension unit %u: bLength %u too short", d[3], l);
		at->n_src = d[21];
		at->src_off = 22;
		at->n_ctl = d[22 + at->n_src];
		at->ctl_off = 23 + at->n_src;
		break;
	case UVC_VC_ENCODING_UNIT:
		if (l < 7 || l < 7u + d[6])
			return desc_fail(ps, "encoding unit %u: bLength %u too short", d[3], l);
		at->n_src = 1;
		at->src_off = 4;
		at->n_ctl = d[6];
		at->ctl_off = 7;
		break;
	}
	return 0;
}

/* The kind of e and the fields only that kind has, from its descriptor d
 * (bLength l, already checked by entity_layout()). */
static void fill_entity_kind(struct uvc_entity *e, unsigned subtype, const uint8_t *d, unsigned l)
{
	switch (subtype) {
	case UVC_VC_INPUT_TERMINAL:
		e->kind = UVC_ENTITY_INPUT_TERMINAL;
		e->type = (uint16_t)get16(d + 4);
		e->assoc_terminal = d[6];
		e->string_index = d[7];
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
		e->string_index = d[8];
		break;
	case UVC_VC_SELECTOR_UNIT:
		e->kind = UVC_ENTITY_SELECTOR_UNIT;
		break;
	case UVC_VC_PROCESSING_UNIT:
		e->kind = UVC_ENTITY_PROCESSING_UNIT;
		e->max_multiplier = (uint16_t)get16(d + 5);
		/* UVC 1.0 units end at iProcessing; 1.1 adds bmVideoStandards. */
		if (l >= 10u + e->control_size)
			e->video_standards = d[9 + e->control_size];
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
}

int desc_parse_vc(struct parser *ps, const uint8_t *d, unsigned l)
{
	struct uvc_camera *cam = ps->cam;
	unsigned subtype = d[2];
	struct uvc_entity *e;

	if (subtype == UVC_VC_HEADER)
		return parse_vc_header(ps, d, l);
	if (subtype < UVC_VC_INPUT_TERMINAL || subtype > UVC_VC_ENCODING_UNIT) {
		desc_warn(ps, "VC subtype 0x%02x skipped", subtype);
		return 0;
	}
	if (l < 4)
		return desc_fail(ps, "VC subtype 0x%02x: bLength %u < 4", subtype, l);
	/* uvcvideo 6.1 keeps both and an ID names the first (uvc/chain.h);
	 * 6.13 refused such cameras and was reverted for it. */
	if (d[3] == 0)
		desc_warn(ps, "VC subtype 0x%02x: entity ID 0", subtype);
	else if (uvc_camera_find_entity(cam, d[3]))
		desc_warn(ps, "VC entity %u: duplicate ID, the first one keeps it", d[3]);

	/* Validate before allocating, so error paths own nothing new. */
	struct entity_layout at;
	int r = entity_layout(ps, subtype, d, l, &at);
	if (r)
		return r;

	uint8_t *sources = dup_bytes(d + at.src_off, at.n_src);
	uint8_t *controls = dup_bytes(d + at.ctl_off, at.n_ctl);
	e = (sources && controls) ? desc_append(&cam->entities, &cam->n_entities, sizeof(*e))
				  : NULL;
	if (!e) {
		free(sources);
		free(controls);
		return -ENOMEM;
	}
	e->id = d[3];
	e->n_sources = (uint8_t)at.n_src;
	e->sources = sources;
	e->control_size = (uint8_t)at.n_ctl;
	e->controls = controls;
	fill_entity_kind(e, subtype, d, l);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Payload headers as metadata blocks (metadata.h). */
#include "uvc/metadata.h"

#include <string.h>

#include <linux/usb/video.h>

#include "uvc/descriptors.h"

const uint8_t uvc_msxu_guid[16] = {
	0xdc, 0x95, 0x3f, 0x0f, 0x32, 0x26, 0x4e, 0x4c,
	0x92, 0xc9, 0xa0, 0x47, 0x82, 0xf4, 0x3b, 0xc8,
};

const struct uvc_entity *uvc_meta_msxu_unit(const struct uvc_camera *camera)
{
	for (unsigned i = 0; i < camera->n_entities; i++) {
		const struct uvc_entity *e = &camera->entities[i];
		if (e->kind == UVC_ENTITY_EXTENSION_UNIT && !memcmp(e->guid, uvc_msxu_guid, 16))
			return e;
	}
	return NULL;
}

void uvc_meta_begin(struct uvc_meta_writer *w, uint8_t *buf, size_t cap)
{
	w->buf = buf;
	w->cap = buf ? cap : 0;
	w->used = 0;
	w->error = false;
}

uint16_t uvc_meta_sof_of(uint64_t ns)
{
	return (uint16_t)((ns / 1000000u) & 0x7ff);
}

/* The standard part's length by bmHeaderInfo: 2, plus 4 for a PTS, plus 6
 * for an SCR. */
static size_t standard_length(uint8_t info)
{
	return 2 + (info & UVC_STREAM_PTS ? 4 : 0) + (info & UVC_STREAM_SCR ? 6 : 0);
}

/* Byte i of the header as uvcvideo reads it: past the packet, 0. */
static uint8_t header_byte(const uint8_t *packet, size_t packet_len, size_t i)
{
	return i < packet_len ? packet[i] : 0;
}

/* Whether the header's SCR (6 bytes after bmHeaderInfo and any PTS) is the
 * last one kept; *scr gets it. */
static bool same_scr(const struct uvc_meta_writer *w, const uint8_t *packet, size_t packet_len,
		     uint8_t scr[6])
{
	size_t at = 2 + (packet[1] & UVC_STREAM_PTS ? 4 : 0);
	for (size_t i = 0; i < 6; i++)
		scr[i] = header_byte(packet, packet_len, at + i);
	return w->has_last_scr && !memcmp(scr, w->last_scr, 6);
}

size_t uvc_meta_header(struct uvc_meta_writer *w, const uint8_t *packet, size_t packet_len,
		       uint64_t ns, uint16_t sof)
{
	if (!w->buf || packet_len < 2 || packet[0] <= 2)
		return 0;
	uint8_t info = packet[1], scr[6] = { 0 };
	size_t std_len = standard_length(info);
	size_t length = w->whole_headers ? packet[0] : std_len;
	bool has_scr = info & UVC_STREAM_SCR;
	bool repeated = has_scr && same_scr(w, packet, packet_len, scr);
	if (length == std_len && (!has_scr || repeated))
		return 0;
	size_t block = length + UVC_META_BLOCK_HEAD - 2;
	if (w->cap - w->used < block) {
		w->error = true;
		return 0;
	}
	uint8_t *out = w->buf + w->used;
	memcpy(out, &ns, 8); /* host byte order, unaligned, as the struct's */
	memcpy(out + 8, &sof, 2);
	out[10] = packet[0];
	out[11] = info;
	for (size_t i = 2; i < length; i++)
		out[UVC_META_BLOCK_HEAD + i - 2] = header_byte(packet, packet_len, i);
	w->used += block;
	if (has_scr) {
		memcpy(w->last_scr, scr, 6);
		w->has_last_scr = true;
	}
	return block;
}

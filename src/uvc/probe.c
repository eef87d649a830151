/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probe/commit wire layout: little-endian fields at fixed offsets. */
#include "probe.h"

#include <errno.h>
#include <string.h>

size_t uvc_probe_size(uint16_t bcd_uvc)
{
	if (bcd_uvc >= 0x0150)
		return 48;
	if (bcd_uvc >= 0x0110)
		return 34;
	return 26;
}

static void put(uint8_t *out, size_t size, size_t at, size_t width, uint32_t v)
{
	for (size_t i = 0; i < width && at + i < size; i++)
		out[at + i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get(const uint8_t *in, size_t size, size_t at, size_t width)
{
	uint32_t v = 0;
	for (size_t i = 0; i < width && at + i < size; i++)
		v |= (uint32_t)in[at + i] << (8 * i);
	return v;
}

void uvc_probe_encode(const struct uvc_probe *p, uint8_t *out, size_t size)
{
	memset(out, 0, size);
	put(out, size, 0, 2, p->hint);
	put(out, size, 2, 1, p->format_index);
	put(out, size, 3, 1, p->frame_index);
	put(out, size, 4, 4, p->interval);
	put(out, size, 8, 2, p->key_frame_rate);
	put(out, size, 10, 2, p->p_frame_rate);
	put(out, size, 12, 2, p->comp_quality);
	put(out, size, 14, 2, p->comp_window_size);
	put(out, size, 16, 2, p->delay);
	put(out, size, 18, 4, p->max_video_frame_size);
	put(out, size, 22, 4, p->max_payload_transfer_size);
	put(out, size, 26, 4, p->clock_frequency);
	put(out, size, 30, 1, p->framing_info);
	put(out, size, 31, 1, p->preferred_version);
	put(out, size, 32, 1, p->min_version);
	put(out, size, 33, 1, p->max_version);
	put(out, size, 34, 1, p->usage);
	put(out, size, 35, 1, p->bit_depth_luma);
	put(out, size, 36, 1, p->settings);
	put(out, size, 37, 1, p->max_ref_frames_plus1);
	put(out, size, 38, 2, p->rate_control_modes);
	for (size_t i = 0; i < 8; i++)
		put(out, size, 40 + i, 1, p->layout_per_stream[i]);
}

int uvc_probe_decode(const uint8_t *in, size_t size, struct uvc_probe *p)
{
	memset(p, 0, sizeof(*p));
	if (size != 26 && size != 34 && size != 48)
		return -EINVAL;
	p->hint = (uint16_t)get(in, size, 0, 2);
	p->format_index = (uint8_t)get(in, size, 2, 1);
	p->frame_index = (uint8_t)get(in, size, 3, 1);
	p->interval = get(in, size, 4, 4);
	p->key_frame_rate = (uint16_t)get(in, size, 8, 2);
	p->p_frame_rate = (uint16_t)get(in, size, 10, 2);
	p->comp_quality = (uint16_t)get(in, size, 12, 2);
	p->comp_window_size = (uint16_t)get(in, size, 14, 2);
	p->delay = (uint16_t)get(in, size, 16, 2);
	p->max_video_frame_size = get(in, size, 18, 4);
	p->max_payload_transfer_size = get(in, size, 22, 4);
	p->clock_frequency = get(in, size, 26, 4);
	p->framing_info = (uint8_t)get(in, size, 30, 1);
	p->preferred_version = (uint8_t)get(in, size, 31, 1);
	p->min_version = (uint8_t)get(in, size, 32, 1);
	p->max_version = (uint8_t)get(in, size, 33, 1);
	p->usage = (uint8_t)get(in, size, 34, 1);
	p->bit_depth_luma = (uint8_t)get(in, size, 35, 1);
	p->settings = (uint8_t)get(in, size, 36, 1);
	p->max_ref_frames_plus1 = (uint8_t)get(in, size, 37, 1);
	p->rate_control_modes = (uint16_t)get(in, size, 38, 2);
	for (size_t i = 0; i < 8; i++)
		p->layout_per_stream[i] = (uint8_t)get(in, size, 40 + i, 1);
	return 0;
}

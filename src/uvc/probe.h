/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The UVC video probe and commit controls (UVC 1.5 section 4.3.1.1) as
 * bytes: 26 bytes for UVC 1.0, 34 for 1.1, 48 for 1.5. Pure functions,
 * shared by the daemon and the project's virtual camera. */
#ifndef UVC_PROBE_H
#define UVC_PROBE_H

#include <stddef.h>
#include <stdint.h>

struct uvc_probe {
	uint16_t hint;
	uint8_t format_index, frame_index;
	uint32_t interval; /* 100 ns units */
	uint16_t key_frame_rate, p_frame_rate, comp_quality, comp_window_size, delay;
	uint32_t max_video_frame_size, max_payload_transfer_size;
	/* UVC 1.1 */
	uint32_t clock_frequency;
	uint8_t framing_info, preferred_version, min_version, max_version;
	/* UVC 1.5 */
	uint8_t usage, bit_depth_luma, settings, max_ref_frames_plus1;
	uint16_t rate_control_modes;
	uint8_t layout_per_stream[8];
};

/* The control's length for a bcdUVC: 26, 34 or 48. */
size_t uvc_probe_size(uint16_t bcd_uvc);

/* Writes the first `size` bytes of the layout (fields past it are left out). */
void uvc_probe_encode(const struct uvc_probe *p, uint8_t *out, size_t size);

/* Reads `size` bytes; fields past them are zero. -EINVAL unless size is one
 * of the three lengths (some UVC 1.1 cameras answer with 26 bytes). */
int uvc_probe_decode(const uint8_t *in, size_t size, struct uvc_probe *p);

#endif

/* UVC video probe and commit controls (UVC 1.5 section 4.3.1.1): their
 * wire layout for the 1.0, 1.1 and 1.5 lengths and the camera's side of
 * the negotiation. Pure functions. */
#ifndef VCAM_PROBE_H
#define VCAM_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct vcam_probe {
	uint16_t hint;
	uint8_t format_index, frame_index;
	uint32_t interval;
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

/* 26, 34 or 48 bytes depending on the UVC version. */
size_t vcam_probe_size(uint16_t bcd_uvc);

void vcam_probe_encode(const struct vcam_probe *p, uint8_t *out, size_t size);
void vcam_probe_decode(const uint8_t *in, size_t size, struct vcam_probe *p);

/* What the camera makes of a proposal: the format and frame must exist
 * (-ERANGE otherwise, which the caller answers with a STALL); the interval
 * snaps to the nearest one the frame supports (0 asks for the default); the
 * camera fills in sizes, payload size and clock. */
int vcam_probe_negotiate(const struct vcam_profile *prof, const struct vcam_probe *asked,
			 struct vcam_probe *out);

/* GET_DEF, GET_MIN and GET_MAX for the format and frame of `current`. */
void vcam_probe_default(const struct vcam_profile *prof, struct vcam_probe *out);
void vcam_probe_min(const struct vcam_profile *prof, const struct vcam_probe *current,
		    struct vcam_probe *out);
void vcam_probe_max(const struct vcam_profile *prof, const struct vcam_probe *current,
		    struct vcam_probe *out);

/* The format and frame a valid negotiated probe selects. */
const struct vcam_format *vcam_probe_format(const struct vcam_profile *prof,
					    const struct vcam_probe *p);
const struct vcam_frame_size *vcam_probe_frame(const struct vcam_profile *prof,
					       const struct vcam_probe *p);

#endif

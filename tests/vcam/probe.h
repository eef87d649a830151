/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera's side of the UVC probe/commit negotiation (the wire layout is
 * src/uvc/probe.h, shared with the daemon). Pure functions. */
#ifndef VCAM_PROBE_H
#define VCAM_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "uvc/probe.h"

/* What the camera makes of a proposal: the format and frame must exist
 * (-ERANGE otherwise, which the caller answers with a STALL); the interval
 * snaps to the nearest one the frame supports (0 asks for the default); the
 * camera fills in sizes, payload size and clock. */
int vcam_probe_negotiate(const struct vcam_profile *prof, const struct uvc_probe *asked,
			 struct uvc_probe *out);

/* GET_DEF, GET_MIN and GET_MAX for the format and frame of `current`. */
void vcam_probe_default(const struct vcam_profile *prof, struct uvc_probe *out);
void vcam_probe_min(const struct vcam_profile *prof, const struct uvc_probe *current,
		    struct uvc_probe *out);
void vcam_probe_max(const struct vcam_profile *prof, const struct uvc_probe *current,
		    struct uvc_probe *out);

/* The format and frame a valid negotiated probe selects. */
const struct vcam_format *vcam_probe_format(const struct vcam_profile *prof,
					    const struct uvc_probe *p);
const struct vcam_frame_size *vcam_probe_frame(const struct vcam_profile *prof,
					       const struct uvc_probe *p);

#endif

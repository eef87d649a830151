/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stream's frame timestamps: each frame's exposure from the camera's own
 * clock (its PTS through the SCR samples, uvc/clock.h) when that is on and
 * can say, else when the frame's first payload came (start of exposure as
 * near as the host knows it: uvcvideo's TSTAMP_SRC_SOE).
 *
 * Two rules keep the stamps what apps can take:
 *  - never back: each stamp is at least a microsecond (a timeval's step)
 *    after the one before;
 *  - no short interval when the source changes: the first-payload times lag
 *    the exposures the clock gives by the camera's readout and the bus
 *    (tens of milliseconds), so a stream that starts on them and goes over
 *    to the clock once it has samples would stamp one interval that much
 *    too short (ffmpeg: "non monotonically increasing dts" once it rounds to
 *    the frame rate). The difference at the change is carried over and eased
 *    out by a quarter of the frame interval a frame: every interval stays
 *    within a quarter of the camera's.
 * Pure: times in, times out. */
#ifndef UVC_STAMPER_H
#define UVC_STAMPER_H

#include <stdbool.h>
#include <stdint.h>

#include "uvc/clock.h"

struct uvc_stamper {
	struct uvc_clock clock;
	bool use_clock;          /* config camera-clock */
	uint64_t interval_ns;    /* the stream's frame interval (0: unknown) */
	uint64_t last_ns;        /* the last stamp (0: none yet) */
	bool last_from_clock;
	int64_t ease_ns;         /* added to the clock's times, eased to 0 */
};

/* A stream starts: a camera clock of hz (0: none named), frames every
 * interval_ns. */
void uvc_stamper_init(struct uvc_stamper *s, uint32_t hz, bool use_clock, uint64_t interval_ns);

/* One SCR sample (uvc_clock_sample). */
void uvc_stamper_sample(struct uvc_stamper *s, uint32_t stc, uint64_t host_ns);

/* The stamp of a frame whose PTS is pts (has_pts), whose first payload came
 * at start_ns (0: unknown), finished at now_ns (CLOCK_MONOTONIC).
 * *from_clock (may be NULL) says which source it came from. */
uint64_t uvc_stamper_frame(struct uvc_stamper *s, bool has_pts, uint32_t pts, uint64_t start_ns,
			   uint64_t now_ns, bool *from_clock);

#endif

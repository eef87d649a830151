/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera's clock on the host's time line: a frame's PTS (the camera's
 * clock at its exposure, UVC 1.5 section 2.4.3.3) turned into the host's
 * CLOCK_MONOTONIC, from the SCR samples its payloads carry (the camera's
 * clock when the payload left it) and the host time each arrived.
 *
 * uvcvideo (uvc_video_clock_*) relates both clocks through the USB frame
 * number, which a userspace driver cannot read. Here the relation is the
 * lower envelope of the samples instead: every sample is the camera's
 * clock plus a delivery delay that is never negative, so the line under
 * all the samples of a window that is closest to them (the least sum of
 * delays: an edge of their lower convex hull, as clock-skew estimation
 * over networks does it) is the camera's clock, its drift included, with
 * the shortest delays seen. The mapped time is the host time at which the
 * camera's clock read PTS plus those least delays: monotonic, and free of
 * most of the host's scheduling jitter.
 * Pure: samples in, times out. */
#ifndef UVC_CLOCK_H
#define UVC_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* The window: the least-delayed sample of each 1/32 s of the camera's
 * clock (a camera sends one per transfer, every few milliseconds), for 4 s. */
#define UVC_CLOCK_SAMPLES 128
#define UVC_CLOCK_BUCKETS_PER_S 32

struct uvc_clock {
	uint32_t hz;     /* the camera's dwClockFrequency */
	unsigned n, next;
	struct {
		int64_t stc;       /* unwrapped (32-bit wraps counted) */
		uint64_t host_ns;
	} s[UVC_CLOCK_SAMPLES];
	uint32_t last_raw;  /* the newest sample's STC as sent */
	int64_t last_stc;   /* ... unwrapped */
};

void uvc_clock_init(struct uvc_clock *c, uint32_t hz);

/* One SCR sample: the camera's clock (source time clock) in a payload's
 * header, and the host's CLOCK_MONOTONIC when that payload arrived. A
 * sample in the same 1/32 s of the camera's clock as the newest replaces it
 * when it came sooner after it was taken (a shorter delay). */
void uvc_clock_sample(struct uvc_clock *c, uint32_t stc, uint64_t host_ns);

/* The host time of the camera's clock reading pts; false before the first
 * sample, or when the camera named no clock frequency. While the window is
 * too small to fit the clock's rate in (fewer than 8 samples, or less than
 * 100 ms of the camera's clock) the nominal rate stands in, through the
 * least-delayed sample: the first frame of a stream is already stamped
 * from the camera's clock. */
bool uvc_clock_to_host(const struct uvc_clock *c, uint32_t pts, uint64_t *host_ns);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pictures of the formats and sizes a profile offers, each drawn once,
 * when first asked for, by a worker thread, so that the camera's loop never
 * stalls on them: MJPEG at 1080p takes seconds to encode under emulation,
 * longer than a host waits for a control request. */
#ifndef VCAM_FRAME_CACHE_H
#define VCAM_FRAME_CACHE_H

#include "frames.h"
#include "profile.h"

struct vcam_frame_cache;

/* Starts the worker and has it draw the profile's default format. h264_file (or NULL)
 * feeds the frame-based H.264 format. NULL + errno on failure. */
struct vcam_frame_cache *vcam_frame_cache_new(const struct vcam_profile *p, const char *h264_file);

/* Becomes readable each time a format is ready; vcam_frame_cache_ack() reads it. */
int vcam_frame_cache_fd(const struct vcam_frame_cache *c);
void vcam_frame_cache_ack(struct vcam_frame_cache *c);

/* The frames of that format and size once drawn (owned by the cache, used
 * by the caller's thread only from then on); NULL with errno EAGAIN while
 * they are being drawn (the first call asks for them), or the error that
 * drawing them ended with. */
struct vcam_frames *vcam_frame_cache_get(struct vcam_frame_cache *c, enum vcam_pixel pixel,
					 unsigned width, unsigned height);

void vcam_frame_cache_free(struct vcam_frame_cache *c);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Controls of an impersonated camera's extension and selector units: the
 * vcam cannot know what a vendor's extension unit does, so each control it
 * announces (bmControls bit n: selector n + 1) is a 4-byte value that reads
 * back what was set, range 0..0xffffffff, default 0; a selector unit has its
 * input select control (1 byte, 1..bNrInPins, default 1). Pure. */
#ifndef VCAM_XU_STORE_H
#define VCAM_XU_STORE_H

#include <stdint.h>

#include "uvc/descriptors.h"

#define VCAM_XU_VALUE_SIZE 4

struct vcam_xu_store;

/* The units of a parsed camera; NULL on no memory. */
struct vcam_xu_store *vcam_xu_store_new(const struct uvc_camera *model);
void vcam_xu_store_free(struct vcam_xu_store *s);

/* One class request to unit `id` (GET_* fill data, SET_CUR reads it).
 * Returns the bytes produced, 0 for an accepted SET_CUR, or -1 with the
 * UVC request error code in *error (INVALID_UNIT, INVALID_CONTROL,
 * INVALID_REQUEST, OUT_OF_RANGE, or 0xff for a wLength that does not fit). */
int vcam_xu_store_request(struct vcam_xu_store *s, uint8_t id, uint8_t request, uint8_t selector,
			  uint8_t *data, uint16_t length, uint8_t *error);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ring and the channel of the fast path (include/uvcuse/uvcuse.h) as
 * the 64-bit daemon lays them out, pinned by numbers: included by the
 * 64-bit unit suite (test_chan_ring.c) and by the -m32 build of
 * compat32_layouts.c, so that a 32-bit library and the daemon agree. */
#ifndef UNIT_WIRE_LAYOUT_H
#define UNIT_WIRE_LAYOUT_H

#include <stddef.h>

#include "uvcuse/uvcuse.h"

_Static_assert(sizeof(uvcuse_wire_buffer) == 88, "wire buffer: size");
_Static_assert(offsetof(uvcuse_wire_buffer, timestamp) == 24, "wire buffer: timestamp");
_Static_assert(offsetof(uvcuse_wire_buffer, timecode) == 40, "wire buffer: timecode");
_Static_assert(offsetof(uvcuse_wire_buffer, sequence) == 56, "wire buffer: sequence");
_Static_assert(offsetof(uvcuse_wire_buffer, m) == 64, "wire buffer: m");
_Static_assert(offsetof(uvcuse_wire_buffer, length) == 72, "wire buffer: length");
_Static_assert(offsetof(uvcuse_wire_buffer, request_fd) == 80, "wire buffer: request_fd");
_Static_assert(sizeof(struct uvcuse_chan_msg) == 104, "channel message: size");
_Static_assert(offsetof(struct uvcuse_chan_msg, buf) == 16, "channel message: buf");
_Static_assert(offsetof(struct uvcuse_ring, entry) == 24, "ring: entry");
_Static_assert(offsetof(struct uvcuse_ring, qbuf) == 2856, "ring: qbuf");
_Static_assert(offsetof(struct uvcuse_ring, post) == 5680, "ring: post");
_Static_assert(offsetof(struct uvcuse_ring, pollable) == 5936, "ring: pollable");
_Static_assert(sizeof(struct uvcuse_ring) == 5944, "ring: size");

#endif

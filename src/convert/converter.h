/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One converter: a libv4lconvert instance that turns a whole native frame
 * into a destination frame, in one pass straight into the caller's buffer.
 * Not thread-safe: one converter per worker thread (libv4lconvert has no
 * locks). No I/O: libv4lconvert is given ops that answer no device ioctl. */
#ifndef UVCUSE_CONVERT_CONVERTER_H
#define UVCUSE_CONVERT_CONVERTER_H

#include <stddef.h>
#include <stdint.h>

struct converter;

/* NULL + errno (ENOMEM) on failure. */
struct converter *converter_new(void);
void converter_free(struct converter *c);

/* Converts one frame of width x height from src_fourcc (a catalogue source)
 * to dst_fourcc (a catalogue destination). Returns the bytes written to dst
 * (the destination's sizeimage), or -EINVAL (pair or size not supported),
 * -ENOSPC (dst_cap too small), -EBADMSG (the frame does not decode: corrupt
 * or truncated JPEG, a raw frame shorter than its size). */
long converter_run(struct converter *c, uint32_t src_fourcc, unsigned width, unsigned height,
		   const uint8_t *src, size_t src_len, uint32_t dst_fourcc, uint8_t *dst,
		   size_t dst_cap);

/* libv4lconvert's text for the last failure ("" when none). */
const char *converter_error(struct converter *c);

#endif

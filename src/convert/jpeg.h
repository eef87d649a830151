/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MJPEG frames decoded with libjpeg(-turbo) straight into a destination
 * frame, with a strict error manager: a frame libjpeg warns about (truncated,
 * bad Huffman code, marker in the scan) is refused rather than shown half
 * grey. libv4lconvert's own JPEG path cannot tell us about warnings. */
#ifndef UVCUSE_CONVERT_JPEG_H
#define UVCUSE_CONVERT_JPEG_H

#include <stddef.h>
#include <stdint.h>

struct convert_jpeg;

struct convert_jpeg *convert_jpeg_new(void); /* NULL on ENOMEM */
void convert_jpeg_free(struct convert_jpeg *j);

/* Decodes a width x height JPEG into dst (RGB24, BGR24, YU12 or YV12, the
 * catalogue's layout). 0; -EBADMSG when it does not decode cleanly or has
 * another size (or is neither YCbCr nor grey); -ENOMEM. Every chroma
 * subsampling goes to every destination (4:2:2 and 4:2:0 to the planar ones
 * straight from libjpeg's planes). The planar outputs need a width that is a
 * multiple of 16 (convert_pair_supported()): -EINVAL otherwise. */
int convert_jpeg_decode(struct convert_jpeg *j, const uint8_t *src, size_t len, unsigned width,
			unsigned height, uint32_t dst_fourcc, uint8_t *dst);

/* libjpeg's text for the last refusal. */
const char *convert_jpeg_error(const struct convert_jpeg *j);

#endif

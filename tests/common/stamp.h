/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The frame stamp: sequence number, capture time and brightness of a frame,
 * with a magic and a CRC-32, carried in the frame itself.
 *
 * In pixels (every layout of picture.h): a band at the top of the frame made
 * of 8x8 blocks, one bit each, luma 235 for 1 and 16 for 0, neutral chroma.
 * The 160 bits (20 bytes, big-endian: magic u16, sequence u32, time u64,
 * brightness i16, CRC-32 of the 16 bytes before it) fill the block rows left
 * to right, top to bottom, most significant bit first; width / 8 bits per
 * block row, as many rows as that needs. Blocks past the last bit are 16.
 * The blocks are large and aligned so that they survive 4:2:0 subsampling,
 * YUV<->RGB conversion and JPEG (whose 8x8 DCT blocks they coincide with).
 *
 * In a JPEG: a COM segment right after SOI whose text is
 *   uvcuse-stamp seq=<u32> t=<u64 ns> b=<i16> crc=<8 hex digits>
 * with the same CRC as the band. */
#ifndef UVCUSE_STAMP_H
#define UVCUSE_STAMP_H

#include <stddef.h>
#include <stdint.h>

#include "picture.h"

#define STAMP_MAGIC 0x5543u /* "UC" */
#define STAMP_BLOCK 8       /* pixels per side of one bit */
#define STAMP_BYTES 20
#define STAMP_BITS (STAMP_BYTES * 8)
#define STAMP_LUMA_ONE 235
#define STAMP_LUMA_ZERO 16
#define STAMP_COM_PREFIX "uvcuse-stamp "
#define STAMP_COM_MAX 96 /* longest COM text, without the marker */

struct stamp {
	uint32_t sequence;
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	int16_t brightness;
};

/* CRC-32 (IEEE 802.3, as zlib's crc32()); start with crc = 0. */
uint32_t stamp_crc32(uint32_t crc, const void *data, size_t len);

/* The stamp's 20 bytes, CRC included. */
void stamp_pack(const struct stamp *s, uint8_t out[STAMP_BYTES]);
/* 0, -ENOMSG (no magic) or -EBADMSG (CRC mismatch). */
int stamp_unpack(const uint8_t in[STAMP_BYTES], struct stamp *s);

/* Height in pixels of the band for this width (a multiple of 8); 0 when the
 * width is too narrow to hold a stamp (under 16 pixels). */
unsigned stamp_band_height(unsigned width);

/* Writes the band into a frame of this layout; touches only the band's rows
 * (and their chroma). height may be as small as the band. -EINVAL when the
 * size is not a valid picture size or the band does not fit. */
int stamp_write(enum picture_layout layout, uint8_t *frame, unsigned width, unsigned height,
		const struct stamp *s);

/* Reads the band back. 0; -EINVAL (bad size), -ENOMSG (no stamp: a block is
 * neither dark nor bright, or no magic), -EBADMSG (CRC mismatch). Works on
 * limited (16/235) and full range (0/255) luma, and on RGB. */
int stamp_read(enum picture_layout layout, const uint8_t *frame, unsigned width, unsigned height,
	       struct stamp *s);

/* The COM text for the stamp (no NUL in the segment); returns its length. */
size_t stamp_com_text(const struct stamp *s, char out[STAMP_COM_MAX + 1]);
/* Parses a COM text: 0, -ENOMSG (not ours) or -EBADMSG (ours but corrupt). */
int stamp_com_parse(const uint8_t *text, size_t len, struct stamp *s);

/* Copies a JPEG (starting with SOI) to out with the stamp's COM segment right
 * after SOI. Returns the bytes written, 0 when out is too small or the input
 * does not start with SOI. Needs at most len + STAMP_COM_MAX + 4 bytes. */
size_t stamp_jpeg_insert(uint8_t *out, size_t cap, const uint8_t *jpeg, size_t len,
			 const struct stamp *s);

/* Finds our COM segment among the JPEG's header segments (before SOS).
 * 0, -ENOMSG (none), -EBADMSG (corrupt stamp or malformed header). */
int stamp_jpeg_read(const uint8_t *jpeg, size_t len, struct stamp *s);

/* Splitting concatenated JPEGs by their markers: SOI, segments with lengths,
 * entropy-coded data (stuffed FF00, RSTn) up to EOI. */
enum stamp_jpeg_extent {
	STAMP_JPEG_NONE,   /* no SOI left: *start = *end = len */
	STAMP_JPEG_WHOLE,  /* buf[*start, *end) is a JPEG from SOI to EOI */
	STAMP_JPEG_BROKEN, /* a JPEG starts at *start but is truncated or malformed;
			    * *end is where the next search resumes (next SOI or len) */
};
enum stamp_jpeg_extent stamp_jpeg_next(const uint8_t *buf, size_t len, size_t *start, size_t *end);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The frame stamp: in a band of 8x8 blocks, and in a JPEG COM segment. */
#include "stamp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t stamp_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static void put_be(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

static uint64_t get_be(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t payload_crc(const struct stamp *s)
{
	uint8_t b[STAMP_BYTES];
	stamp_pack(s, b);
	return (uint32_t)get_be(b + 16, 4);
}

void stamp_pack(const struct stamp *s, uint8_t out[STAMP_BYTES])
{
	put_be(out, STAMP_MAGIC, 2);
	put_be(out + 2, s->sequence, 4);
	put_be(out + 6, s->time_ns, 8);
	put_be(out + 14, (uint16_t)s->brightness, 2);
	put_be(out + 16, stamp_crc32(0, out, 16), 4);
}

int stamp_unpack(const uint8_t in[STAMP_BYTES], struct stamp *s)
{
	if (get_be(in, 2) != STAMP_MAGIC)
		return -ENOMSG;
	if (get_be(in + 16, 4) != stamp_crc32(0, in, 16))
		return -EBADMSG;
	s->sequence = (uint32_t)get_be(in + 2, 4);
	s->time_ns = get_be(in + 6, 8);
	s->brightness = (int16_t)(uint16_t)get_be(in + 14, 2);
	return 0;
}

/* ---- the band ---- */

unsigned stamp_band_height(unsigned width)
{
	unsigned per_row = width / STAMP_BLOCK;
	if (per_row < 2)
		return 0;
	return (STAMP_BITS + per_row - 1) / per_row * STAMP_BLOCK;
}

/* The band alone is a valid frame to write (the camera's JPEG band). */
static bool band_fits(enum picture_layout layout, unsigned w, unsigned h)
{
	unsigned band = stamp_band_height(w);
	return band && band <= h && h % 2 == 0 && w % 2 == 0 && w <= PICTURE_MAX_SIZE &&
	       h <= PICTURE_MAX_SIZE && (uint64_t)w * h <= PICTURE_MAX_PIXELS &&
	       layout <= PICTURE_SRGGB8;
}

static bool bit_at(const uint8_t bytes[STAMP_BYTES], unsigned i)
{
	return i < STAMP_BITS && (bytes[i / 8] >> (7 - i % 8) & 1);
}

int stamp_write(enum picture_layout layout, uint8_t *frame, unsigned w, unsigned h,
		const struct stamp *s)
{
	if (!frame || !s || !band_fits(layout, w, h))
		return -EINVAL;
	uint8_t bytes[STAMP_BYTES];
	stamp_pack(s, bytes);
	unsigned band = stamp_band_height(w), per_row = w / STAMP_BLOCK;
	size_t n = (size_t)w * h;
	uint8_t row[PICTURE_MAX_SIZE];

	for (unsigned br = 0; br < band / STAMP_BLOCK; br++) {
		/* One block row's luma. */
		for (unsigned x = 0; x < w; x++) {
			unsigned col = x / STAMP_BLOCK;
			bool one = col < per_row && bit_at(bytes, br * per_row + col);
			row[x] = one ? STAMP_LUMA_ONE : STAMP_LUMA_ZERO;
		}
		for (unsigned y = br * STAMP_BLOCK; y < (br + 1) * STAMP_BLOCK; y++) {
			switch (layout) {
			case PICTURE_YUYV:
			case PICTURE_UYVY: {
				uint8_t *o = frame + (size_t)y * w * 2;
				unsigned luma = layout == PICTURE_UYVY;
				for (unsigned x = 0; x < w; x++) {
					o[2 * x + luma] = row[x];
					o[2 * x + !luma] = 128;
				}
				break;
			}
			case PICTURE_NV12:
				memcpy(frame + (size_t)y * w, row, w);
				if (y % 2 == 0)
					memset(frame + n + (size_t)(y / 2) * w, 128, w);
				break;
			case PICTURE_YU12:
			case PICTURE_YV12:
				memcpy(frame + (size_t)y * w, row, w);
				if (y % 2 == 0) {
					memset(frame + n + (size_t)(y / 2) * (w / 2), 128, w / 2);
					memset(frame + n + n / 4 + (size_t)(y / 2) * (w / 2), 128, w / 2);
				}
				break;
			case PICTURE_RGB24:
			case PICTURE_BGR24: {
				uint8_t *o = frame + (size_t)y * w * 3;
				for (unsigned x = 0; x < w; x++)
					o[3 * x] = o[3 * x + 1] = o[3 * x + 2] = row[x];
				break;
			}
			case PICTURE_YUV444: {
				uint8_t *o = frame + (size_t)y * w * 3;
				for (unsigned x = 0; x < w; x++) {
					o[3 * x] = row[x];
					o[3 * x + 1] = o[3 * x + 2] = 128;
				}
				break;
			}
			case PICTURE_SBGGR8: /* grey: every colour the same */
			case PICTURE_SGBRG8:
			case PICTURE_SGRBG8:
			case PICTURE_SRGGB8:
				memcpy(frame + (size_t)y * w, row, w);
				break;
			}
		}
	}
	return 0;
}

/* Luma of pixel (x, y) in the layout's own scale. */
static unsigned luma_at(enum picture_layout layout, const uint8_t *f, unsigned w, unsigned x,
			unsigned y)
{
	switch (layout) {
	case PICTURE_YUYV:
		return f[((size_t)y * w + x) * 2];
	case PICTURE_UYVY:
		return f[((size_t)y * w + x) * 2 + 1];
	case PICTURE_NV12:
	case PICTURE_YU12:
	case PICTURE_YV12:
	case PICTURE_SBGGR8: /* the band is grey: each sample is its luma */
	case PICTURE_SGBRG8:
	case PICTURE_SGRBG8:
	case PICTURE_SRGGB8:
		return f[(size_t)y * w + x];
	case PICTURE_YUV444:
		return f[((size_t)y * w + x) * 3];
	case PICTURE_RGB24:
	case PICTURE_BGR24: {
		const uint8_t *p = f + ((size_t)y * w + x) * 3;
		return (p[0] + p[1] + p[2]) / 3u;
	}
	}
	return 0;
}

int stamp_read(enum picture_layout layout, const uint8_t *frame, unsigned w, unsigned h,
	       struct stamp *s)
{
	if (!frame || !s || !band_fits(layout, w, h))
		return -EINVAL;
	unsigned per_row = w / STAMP_BLOCK;
	uint8_t bytes[STAMP_BYTES] = { 0 };
	for (unsigned i = 0; i < STAMP_BITS; i++) {
		unsigned bx = (i % per_row) * STAMP_BLOCK, by = (i / per_row) * STAMP_BLOCK;
		unsigned sum = 0;
		/* The block's inner 4x4 pixels, away from edges that filters blur. */
		for (unsigned y = by + 2; y < by + 6; y++)
			for (unsigned x = bx + 2; x < bx + 6; x++)
				sum += luma_at(layout, frame, w, x, y);
		unsigned mean = sum / 16;
		if (mean > 80 && mean < 170)
			return -ENOMSG; /* neither dark nor bright: no stamp here */
		if (mean >= 170)
			bytes[i / 8] |= (uint8_t)(0x80u >> (i % 8));
	}
	return stamp_unpack(bytes, s);
}

/* ---- JPEG COM ---- */

size_t stamp_com_text(const struct stamp *s, char out[STAMP_COM_MAX + 1])
{
	int n = snprintf(out, STAMP_COM_MAX + 1,
			 STAMP_COM_PREFIX "seq=%" PRIu32 " t=%" PRIu64 " b=%d crc=%08" PRIx32,
			 s->sequence, s->time_ns, (int)s->brightness, payload_crc(s));
	return n < 0 ? 0 : (size_t)n;
}

/* Parses "<key>=[-]<decimal>" at *p, advancing past it and one space. */
static bool field(const char **p, const char *key, bool negative_ok, uint64_t *out, bool *neg)
{
	size_t kl = strlen(key);
	if (strncmp(*p, key, kl) != 0 || (*p)[kl] != '=')
		return false;
	const char *q = *p + kl + 1;
	*neg = false;
	if (*q == '-' && negative_ok) {
		*neg = true;
		q++;
	}
	if (*q < '0' || *q > '9')
		return false;
	uint64_t v = 0;
	while (*q >= '0' && *q <= '9') {
		unsigned d = (unsigned)(*q - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		q++;
	}
	if (*q == ' ')
		q++;
	else if (*q)
		return false;
	*out = v;
	*p = q;
	return true;
}

int stamp_com_parse(const uint8_t *text, size_t len, struct stamp *s)
{
	size_t pl = strlen(STAMP_COM_PREFIX);
	if (!text || len < pl || memcmp(text, STAMP_COM_PREFIX, pl) != 0)
		return -ENOMSG;
	if (len > STAMP_COM_MAX)
		return -EBADMSG;
	char buf[STAMP_COM_MAX + 1];
	memcpy(buf, text, len);
	buf[len] = 0;
	if (strlen(buf) != len)
		return -EBADMSG; /* a NUL inside */
	const char *p = buf + pl;
	uint64_t seq, t, b;
	bool neg;
	if (!field(&p, "seq", false, &seq, &neg) || seq > UINT32_MAX ||
	    !field(&p, "t", false, &t, &neg))
		return -EBADMSG;
	if (!field(&p, "b", true, &b, &neg) || b > (neg ? 32768u : 32767u))
		return -EBADMSG;
	if (strncmp(p, "crc=", 4) != 0 || strlen(p) != 12)
		return -EBADMSG;
	uint32_t crc = 0;
	for (const char *q = p + 4; *q; q++) {
		unsigned d;
		if (*q >= '0' && *q <= '9')
			d = (unsigned)(*q - '0');
		else if (*q >= 'a' && *q <= 'f')
			d = (unsigned)(*q - 'a' + 10);
		else
			return -EBADMSG;
		crc = crc << 4 | d;
	}
	struct stamp r = { .sequence = (uint32_t)seq,
			   .time_ns = t,
			   .brightness = (int16_t)(neg ? -(int32_t)b : (int32_t)b) };
	if (payload_crc(&r) != crc)
		return -EBADMSG;
	*s = r;
	return 0;
}

size_t stamp_jpeg_insert(uint8_t *out, size_t cap, const uint8_t *jpeg, size_t len,
			 const struct stamp *s)
{
	if (!out || !jpeg || !s || len < 2 || jpeg[0] != 0xff || jpeg[1] != 0xd8)
		return 0;
	char text[STAMP_COM_MAX + 1];
	size_t tl = stamp_com_text(s, text);
	size_t total = len + 4 + tl;
	if (total > cap)
		return 0;
	out[0] = 0xff;
	out[1] = 0xd8;
	out[2] = 0xff;
	out[3] = 0xfe;
	out[4] = (uint8_t)((tl + 2) >> 8);
	out[5] = (uint8_t)(tl + 2);
	memcpy(out + 6, text, tl);
	memcpy(out + 6 + tl, jpeg + 2, len - 2);
	return total;
}

int stamp_jpeg_read(const uint8_t *jpeg, size_t len, struct stamp *s)
{
	if (!jpeg || !s || len < 4 || jpeg[0] != 0xff || jpeg[1] != 0xd8)
		return -EBADMSG;
	size_t pos = 2;
	int result = -ENOMSG;
	while (pos + 4 <= len) {
		if (jpeg[pos] != 0xff)
			return -EBADMSG;
		uint8_t m = jpeg[pos + 1];
		if (m == 0xff) { /* fill byte */
			pos++;
			continue;
		}
		if (m == 0xd9 || m == 0xda) /* EOI or SOS: the header is over */
			return result;
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd7)) { /* no length */
			pos += 2;
			continue;
		}
		size_t seg = (size_t)jpeg[pos + 2] << 8 | jpeg[pos + 3];
		if (seg < 2 || pos + 2 + seg > len)
			return -EBADMSG;
		if (m == 0xfe) {
			struct stamp t;
			int err = stamp_com_parse(jpeg + pos + 4, seg - 2, &t);
			if (err == 0 && result != 0) {
				*s = t;
				result = 0;
			} else if (err == -EBADMSG) {
				return -EBADMSG;
			}
		}
		pos += 2 + seg;
	}
	return result == 0 ? 0 : -EBADMSG; /* ran off the end: truncated header */
}

/* ---- splitting ---- */

/* An SOI that starts a JPEG: FF D8 followed by another marker. */
static bool soi_at(const uint8_t *buf, size_t len, size_t i)
{
	return i + 3 <= len && buf[i] == 0xff && buf[i + 1] == 0xd8 && buf[i + 2] == 0xff;
}

static size_t find_soi(const uint8_t *buf, size_t len, size_t from)
{
	for (size_t i = from; i + 3 <= len; i++) {
		const uint8_t *p = memchr(buf + i, 0xff, len - i);
		if (!p)
			break;
		i = (size_t)(p - buf);
		if (soi_at(buf, len, i))
			return i;
	}
	return len;
}

enum stamp_jpeg_extent stamp_jpeg_next(const uint8_t *buf, size_t len, size_t *start, size_t *end)
{
	size_t s = find_soi(buf, len, 0);
	*start = s;
	*end = len;
	if (s >= len)
		return STAMP_JPEG_NONE;
	size_t i = s + 2;
	bool in_scan = false;
	while (i < len) {
		if (in_scan) {
			/* Entropy-coded data: FF00 is a stuffed FF, FFD0..D7 restart
			 * markers, FFFF fill; any other FFxx ends the scan. */
			const uint8_t *p = memchr(buf + i, 0xff, len - i);
			if (!p)
				break;
			i = (size_t)(p - buf);
			if (i + 1 >= len)
				break;
			uint8_t n = buf[i + 1];
			if (n == 0x00 || (n >= 0xd0 && n <= 0xd7)) {
				i += 2;
				continue;
			}
			if (n == 0xff) {
				i++;
				continue;
			}
			in_scan = false;
			continue;
		}
		if (buf[i] != 0xff)
			goto broken;
		while (i + 1 < len && buf[i + 1] == 0xff) /* fill bytes */
			i++;
		if (i + 1 >= len)
			break;
		uint8_t m = buf[i + 1];
		if (m == 0xd9) {
			*end = i + 2;
			return STAMP_JPEG_WHOLE;
		}
		if (m == 0xd8) { /* a new JPEG: this one was cut short */
			*end = i;
			return STAMP_JPEG_BROKEN;
		}
		if (m == 0x00)
			goto broken;
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd7)) {
			i += 2;
			continue;
		}
		if (i + 4 > len)
			break;
		size_t seg = (size_t)buf[i + 2] << 8 | buf[i + 3];
		if (seg < 2)
			goto broken;
		if (i + 2 + seg > len)
			break;
		i += 2 + seg;
		if (m == 0xda)
			in_scan = true;
	}
	/* Ran out of data: truncated (unless another JPEG starts inside). */
	*end = find_soi(buf, len, s + 2);
	return STAMP_JPEG_BROKEN;
broken:
	*end = find_soi(buf, len, s + 2);
	return STAMP_JPEG_BROKEN;
}

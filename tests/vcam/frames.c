/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual camera's frame source. See frames.h. */
#include "frames.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>

#include "picture.h"
#include "stamp.h"

#define H264_MAX_FILE (512u << 20)

struct phase {
	uint8_t *data; /* raw: the frame; MJPEG: the phase's JPEG */
	size_t len;
	size_t head_end; /* MJPEG: end of the SOS segment */
	size_t rest;     /* MJPEG: scan data after the band's last restart marker */
	int brightness;
	bool ready;
};

/* A growing memory destination for libjpeg. */
struct sink {
	struct jpeg_destination_mgr pub;
	uint8_t *buf;
	size_t cap, len;
};

struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jump;
};

struct encoder {
	struct jpeg_compress_struct c;
	struct jerr err;
	struct sink sink;
	bool live;
};

/* Full-range planes padded to whole MCUs (16x8 at 4:2:2), rows replicated. */
struct planes {
	unsigned width, height; /* padded */
	uint8_t *y, *cb, *cr;   /* width x height, width/2 x height, width/2 x height */
};

struct code {
	uint16_t bits;
	uint8_t len;
};

struct band_coder {
	bool ok;
	int dc_one, dc_zero;     /* quantised luma DC of a 255 and a 0 block */
	struct code ydc[12];     /* luma DC codes by category */
	struct code cdc0;        /* chroma DC, category 0 */
	struct code yeob, ceob;  /* end of block, luma and chroma */
	unsigned mcus, y_blocks; /* per MCU row: MCUs, real luma blocks */
};

struct vcam_frames {
	enum vcam_pixel pixel;
	unsigned width, height;
	int brightness;
	enum picture_layout layout;
	size_t frame_size;
	struct phase phases[PICTURE_PHASES];

	/* MJPEG */
	unsigned band, band_rows, mcu_rows; /* band height, MCU rows it spans, MCU rows in all */
	struct encoder enc;
	struct band_coder bc;
	uint8_t *band_buf;
	struct planes planes; /* the phase being encoded */
	uint8_t *scratch;     /* the picture being made (YU12) */
	struct planes band_planes;
	uint8_t *band_yu12;
	uint8_t *out;
	size_t out_cap;

	/* RGB24/BGR24 and Bayer: the stamp band drawn in YU12 and converted, as
	 * a camera converting its sensor's YUV would (the checker expects that) */
	uint8_t *rgb_band_yu12, *rgb_band;
	unsigned rgb_band_rows; /* at least 16: the picture's smallest size */

	/* H.264 */
	uint8_t *h264;
	size_t *au; /* n_au + 1 offsets */
	size_t n_au, next_au, max_au;
};

/* ---- libjpeg plumbing ---- */

static void sink_init(j_compress_ptr c)
{
	struct sink *s = (struct sink *)c->dest;
	/* libjpeg writes a byte before it checks for room: never start empty. */
	if (!s->cap) {
		s->buf = malloc(65536);
		if (!s->buf)
			c->err->error_exit((j_common_ptr)c); /* longjmps */
		s->cap = 65536;
	}
	s->len = 0;
	s->pub.next_output_byte = s->buf;
	s->pub.free_in_buffer = s->cap;
}

static boolean sink_grow(j_compress_ptr c)
{
	struct sink *s = (struct sink *)c->dest;
	size_t used = s->cap; /* the whole buffer is full when this is called */
	size_t cap = s->cap * 2;
	uint8_t *b = realloc(s->buf, cap);
	if (!b) {
		c->err->error_exit((j_common_ptr)c); /* longjmps */
	}
	s->buf = b;
	s->cap = cap;
	s->pub.next_output_byte = b + used;
	s->pub.free_in_buffer = cap - used;
	return TRUE;
}

static void sink_term(j_compress_ptr c)
{
	struct sink *s = (struct sink *)c->dest;
	s->len = s->cap - s->pub.free_in_buffer;
}

static void jerr_exit(j_common_ptr c)
{
	struct jerr *e = (struct jerr *)c->err;
	longjmp(e->jump, 1);
}

static void jerr_quiet(j_common_ptr c, int level)
{
	(void)c;
	(void)level;
}

static int encoder_init(struct encoder *e)
{
	memset(e, 0, sizeof(*e));
	e->c.err = jpeg_std_error(&e->err.pub);
	e->err.pub.error_exit = jerr_exit;
	e->err.pub.emit_message = jerr_quiet;
	if (setjmp(e->err.jump))
		return -ENOMEM;
	jpeg_create_compress(&e->c);
	e->live = true;
	e->sink.pub.init_destination = sink_init;
	e->sink.pub.empty_output_buffer = sink_grow;
	e->sink.pub.term_destination = sink_term;
	e->c.dest = &e->sink.pub;
	return 0;
}

static void encoder_free(struct encoder *e)
{
	if (e->live)
		jpeg_destroy_compress(&e->c);
	free(e->sink.buf);
	memset(e, 0, sizeof(*e));
}

/* Encodes padded planes showing a width x height image; the JPEG is in
 * e->sink.buf[0, e->sink.len). */
static void set_params(struct jpeg_compress_struct *c, unsigned width, unsigned height)
{
	c->image_width = width;
	c->image_height = height;
	c->input_components = 3;
	c->in_color_space = JCS_YCbCr;
	jpeg_set_defaults(c);
	jpeg_set_colorspace(c, JCS_YCbCr);
	jpeg_set_quality(c, VCAM_JPEG_QUALITY, TRUE);
	c->raw_data_in = TRUE;
	c->comp_info[0].h_samp_factor = 2;
	c->comp_info[0].v_samp_factor = 1;
	for (int i = 1; i < 3; i++)
		c->comp_info[i].h_samp_factor = c->comp_info[i].v_samp_factor = 1;
	c->restart_in_rows = 1;
	c->optimize_coding = FALSE;
	c->dct_method = JDCT_ISLOW;
}

static int encode(struct encoder *e, const struct planes *p, unsigned width, unsigned height)
{
	struct jpeg_compress_struct *c = &e->c;
	if (setjmp(e->err.jump)) {
		jpeg_abort_compress(c);
		return -ENOMEM;
	}
	set_params(c, width, height);
	jpeg_start_compress(c, TRUE);
	JSAMPROW yr[DCTSIZE], cbr[DCTSIZE], crr[DCTSIZE];
	JSAMPARRAY rows[3] = { yr, cbr, crr };
	for (unsigned y = 0; y < p->height; y += DCTSIZE) {
		for (unsigned k = 0; k < DCTSIZE; k++) {
			yr[k] = p->y + (size_t)(y + k) * p->width;
			cbr[k] = p->cb + (size_t)(y + k) * (p->width / 2);
			crr[k] = p->cr + (size_t)(y + k) * (p->width / 2);
		}
		if (jpeg_write_raw_data(c, rows, DCTSIZE) != DCTSIZE) {
			jpeg_abort_compress(c);
			return -EIO;
		}
	}
	jpeg_finish_compress(c);
	return 0;
}

static int planes_alloc(struct planes *p, unsigned width, unsigned height)
{
	p->width = (width + 15) / 16 * 16;
	p->height = (height + 7) / 8 * 8;
	size_t n = (size_t)p->width * p->height;
	p->y = malloc(n);
	p->cb = malloc(n / 2);
	p->cr = malloc(n / 2);
	return p->y && p->cb && p->cr ? 0 : -ENOMEM;
}

static void planes_free(struct planes *p)
{
	free(p->y);
	free(p->cb);
	free(p->cr);
	memset(p, 0, sizeof(*p));
}

static void map_row(uint8_t *dst, const uint8_t *src, size_t n, const uint8_t map[256])
{
	for (size_t i = 0; i < n; i++)
		dst[i] = map[src[i]];
}

/* Fills padded 4:2:2 planes with a limited-range YU12 picture made full
 * range (JFIF); rows and columns past the picture repeat its edge. */
static void planes_fill(struct planes *p, const uint8_t *yu12, unsigned w, unsigned h)
{
	const uint8_t *Y = yu12, *U = yu12 + (size_t)w * h, *V = U + (size_t)w * h / 4;
	unsigned pw = p->width, cw = w / 2, pcw = pw / 2;
	uint8_t lmap[256], cmap[256];
	picture_full_range_tables(lmap, cmap);
	for (unsigned y = 0; y < p->height; y++) {
		uint8_t *yr = p->y + (size_t)y * pw, *cbr = p->cb + (size_t)y * pcw,
			*crr = p->cr + (size_t)y * pcw;
		if (y >= h) {
			memcpy(yr, yr - pw, pw);
			memcpy(cbr, cbr - pcw, pcw);
			memcpy(crr, crr - pcw, pcw);
			continue;
		}
		map_row(yr, Y + (size_t)y * w, w, lmap);
		memset(yr + w, yr[w - 1], pw - w);
		if (y % 2 == 0) {
			map_row(cbr, U + (size_t)(y / 2) * cw, cw, cmap);
			memset(cbr + cw, cbr[cw - 1], pcw - cw);
			map_row(crr, V + (size_t)(y / 2) * cw, cw, cmap);
			memset(crr + cw, crr[cw - 1], pcw - cw);
		} else { /* 4:2:0 chroma, 4:2:2 planes: the row pair shares it */
			memcpy(cbr, cbr - pcw, pcw);
			memcpy(crr, crr - pcw, pcw);
		}
	}
}

/* Offset just past the SOS segment of a JPEG we made, or 0. */
static size_t scan_start(const uint8_t *j, size_t len)
{
	size_t i = 2;
	while (i + 4 <= len && j[i] == 0xff) {
		uint8_t m = j[i + 1];
		size_t seg = (size_t)j[i + 2] << 8 | j[i + 3];
		i += 2 + seg;
		if (m == 0xda)
			return i <= len ? i : 0;
	}
	return 0;
}

/* ---- the band's entropy-coded data without libjpeg ----
 *
 * The band's 8x8 blocks are uniform (luma 0 or 255 in full range, chroma
 * 128) and aligned with the JPEG's blocks, so each block is its DC alone:
 * a frame's band is a DC difference and an EOB per block, in the JPEG's own
 * quantisation and (standard) Huffman tables, which are read from libjpeg.
 * vcam_frames_new() checks the result against libjpeg's own encoding of a
 * band and falls back to libjpeg when they differ. */

struct bitsink {
	uint8_t *out;
	size_t n;
	uint32_t acc;
	unsigned nbits;
};

static void put_bits(struct bitsink *b, uint32_t bits, unsigned len)
{
	b->acc = b->acc << len | (bits & ((1u << len) - 1));
	b->nbits += len;
	while (b->nbits >= 8) {
		uint8_t byte = (uint8_t)(b->acc >> (b->nbits - 8));
		b->out[b->n++] = byte;
		if (byte == 0xff)
			b->out[b->n++] = 0; /* stuffing */
		b->nbits -= 8;
	}
	b->acc &= (1u << b->nbits) - 1;
}

static void put_code(struct bitsink *b, struct code c)
{
	put_bits(b, c.bits, c.len);
}

/* A DC difference: its category's code, then the category's low bits. */
static void put_dc(struct bitsink *b, const struct code table[12], int diff)
{
	unsigned mag = (unsigned)(diff < 0 ? -diff : diff), cat = 0;
	while (mag >> cat)
		cat++;
	put_code(b, table[cat]);
	if (cat)
		put_bits(b, (uint32_t)(diff < 0 ? diff - 1 : diff), cat);
}

/* Canonical Huffman codes of a JPEG table (ITU T.81 annex C). */
static bool table_codes(const JHUFF_TBL *t, struct code codes[256])
{
	if (!t)
		return false;
	memset(codes, 0, 256 * sizeof(*codes));
	unsigned code = 0, k = 0;
	for (unsigned len = 1; len <= 16; len++) {
		for (unsigned i = 0; i < t->bits[len]; i++) {
			if (k >= 256)
				return false;
			codes[t->huffval[k++]] = (struct code){ (uint16_t)code, (uint8_t)len };
			code++;
		}
		code <<= 1;
	}
	return true;
}

static int quantise_dc(int level, unsigned q)
{
	int v = 8 * (level - 128); /* the DC of a uniform block */
	return v < 0 ? -(int)((unsigned)(-v) + q / 2) / (int)q : (int)((unsigned)v + q / 2) / (int)q;
}

static void band_coder_init(struct band_coder *bc, struct encoder *e, unsigned width, unsigned band)
{
	memset(bc, 0, sizeof(*bc));
	struct jpeg_compress_struct *c = &e->c;
	if (setjmp(e->err.jump))
		return;
	set_params(c, width, band);
	struct code dcl[256], dcc[256], acl[256], acc[256];
	if (!c->quant_tbl_ptrs[0] ||
	    !table_codes(c->dc_huff_tbl_ptrs[0], dcl) || !table_codes(c->dc_huff_tbl_ptrs[1], dcc) ||
	    !table_codes(c->ac_huff_tbl_ptrs[0], acl) || !table_codes(c->ac_huff_tbl_ptrs[1], acc))
		return;
	unsigned q = c->quant_tbl_ptrs[0]->quantval[0];
	if (!q)
		return;
	bc->dc_one = quantise_dc(255, q);
	bc->dc_zero = quantise_dc(0, q);
	for (unsigned cat = 0; cat < 12; cat++)
		bc->ydc[cat] = dcl[cat];
	bc->cdc0 = dcc[0];
	bc->yeob = acl[0];
	bc->ceob = acc[0];
	bc->mcus = (width + 15) / 16;
	bc->y_blocks = (width + 7) / 8;
	bc->ok = bc->ydc[0].len && bc->cdc0.len && bc->yeob.len && bc->ceob.len;
}

/* Bytes the band's scan can take: per block at most a 16-bit code, 11
 * bits and an EOB, doubled by stuffing; plus padding and restart markers. */
static size_t band_scan_bound(const struct band_coder *bc, unsigned rows)
{
	return (size_t)rows * (bc->mcus * 4 * 2 * 6 + 4);
}

/* The band's MCU rows as libjpeg would code them, restart markers between
 * rows (not after the last). */
static size_t band_scan(const struct band_coder *bc, const uint8_t bytes[STAMP_BYTES],
			unsigned width, unsigned rows, uint8_t *out)
{
	unsigned per_row = width / STAMP_BLOCK;
	struct bitsink b = { .out = out };
	for (unsigned r = 0; r < rows; r++) {
		int pred = 0; /* DC prediction restarts with each row */
		unsigned blk = 0;
		for (unsigned m = 0; m < bc->mcus; m++) {
			for (unsigned k = 0; k < 2; k++, blk++) {
				int dc = pred; /* a dummy block past the edge repeats the DC */
				if (blk < bc->y_blocks) {
					unsigned bit = r * per_row + blk;
					bool one = blk < per_row && bit < STAMP_BITS &&
						   (bytes[bit / 8] >> (7 - bit % 8) & 1);
					dc = one ? bc->dc_one : bc->dc_zero;
				}
				put_dc(&b, bc->ydc, dc - pred);
				put_code(&b, bc->yeob);
				pred = dc;
			}
			for (unsigned k = 0; k < 2; k++) { /* Cb, Cr: DC 0, no AC */
				put_code(&b, bc->cdc0);
				put_code(&b, bc->ceob);
			}
		}
		if (b.nbits) /* pad with ones */
			put_bits(&b, 0xff, 8 - b.nbits);
		if (r + 1 < rows) {
			b.out[b.n++] = 0xff;
			b.out[b.n++] = (uint8_t)(0xd0 + r % 8);
		}
	}
	return b.n;
}

/* ---- phases ---- */

/* Scratch buffers for making phases, kept: 1080p phases made one after the
 * other would otherwise fault in fresh pages each time. */
static uint8_t *scratch_picture(struct vcam_frames *f)
{
	if (!f->scratch)
		f->scratch = malloc(picture_frame_size(PICTURE_YU12, f->width, f->height));
	return f->scratch;
}

static int make_raw_phase(struct vcam_frames *f, struct phase *ph, unsigned index, uint8_t *yu12)
{
	if (!ph->data) {
		ph->data = malloc(f->frame_size);
		if (!ph->data)
			return -ENOMEM;
	}
	ph->len = f->frame_size;
	if (vcam_pixel_opaque_bits(f->pixel)) {
		memset(ph->data, 0x80, f->frame_size);
		return 0;
	}
	int err = picture_render(yu12, f->width, f->height, index, f->brightness);
	if (!err)
		err = picture_convert(yu12, f->width, f->height, f->layout, PICTURE_MATH_BT601,
				      ph->data);
	ph->len = f->frame_size;
	return err;
}

static int make_jpeg_phase(struct vcam_frames *f, struct phase *ph, unsigned index, uint8_t *yu12)
{
	unsigned w = f->width, h = f->height;
	struct planes *p = &f->planes;
	int err = p->y ? 0 : planes_alloc(p, w, h);
	if (!err)
		err = picture_render(yu12, w, h, index, f->brightness);
	if (!err) {
		planes_fill(p, yu12, w, h);
		err = encode(&f->enc, p, w, h);
	}
	if (err)
		return err;

	const uint8_t *j = f->enc.sink.buf;
	size_t len = f->enc.sink.len;
	size_t head = scan_start(j, len);
	if (!head || len < head + 2 || j[len - 2] != 0xff || j[len - 1] != 0xd9)
		return -EIO;
	/* The scan data after the band's MCU rows: past the restart marker
	 * that ends the band's last row, or the EOI when the band is all. */
	size_t rest = len - 2;
	if (f->band_rows < f->mcu_rows) {
		unsigned seen = 0;
		rest = 0;
		for (size_t i = head; i + 1 < len - 2; i++) {
			if (j[i] == 0xff && j[i + 1] >= 0xd0 && j[i + 1] <= 0xd7 &&
			    ++seen == f->band_rows) {
				rest = i + 2;
				break;
			}
		}
		if (!rest)
			return -EIO;
	}
	uint8_t *copy = realloc(ph->data, len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, j, len);
	ph->data = copy;
	ph->len = len;
	ph->head_end = head;
	ph->rest = rest;
	return 0;
}

static int ensure_phase(struct vcam_frames *f, unsigned index)
{
	struct phase *ph = &f->phases[index];
	if (ph->ready && ph->brightness == f->brightness)
		return 0;
	ph->ready = false;
	uint8_t *yu12 = scratch_picture(f);
	if (!yu12)
		return -ENOMEM;
	int err = f->pixel == VCAM_PIXEL_MJPEG ? make_jpeg_phase(f, ph, index, yu12)
					       : make_raw_phase(f, ph, index, yu12);
	if (err)
		return err;
	ph->brightness = f->brightness;
	ph->ready = true;
	return 0;
}

/* The band's scan data (restart markers between its rows, none after) as
 * libjpeg codes it: the slow path, and the reference for the fast one. */
static int band_scan_libjpeg(struct vcam_frames *f, const struct stamp *s, const uint8_t **scan,
			     size_t *len)
{
	unsigned w = f->width, band = f->band;
	int err = stamp_write(PICTURE_YU12, f->band_yu12, w, band, s);
	if (err)
		return err;
	/* Luma 16/235 is 0/255 in full range; the chroma planes stay 128. */
	struct planes *p = &f->band_planes;
	for (unsigned y = 0; y < band; y++) {
		const uint8_t *src = f->band_yu12 + (size_t)y * w;
		uint8_t *dst = p->y + (size_t)y * p->width;
		for (unsigned x = 0; x < w; x++)
			dst[x] = src[x] >= 128 ? 255 : 0;
		memset(dst + w, dst[w - 1], p->width - w);
	}
	err = encode(&f->enc, p, w, band);
	if (err)
		return err;
	const uint8_t *bj = f->enc.sink.buf;
	size_t blen = f->enc.sink.len, bhead = scan_start(bj, blen);
	if (!bhead || blen < bhead + 2)
		return -EIO;
	*scan = bj + bhead;
	*len = blen - 2 - bhead; /* without EOI */
	return 0;
}

/* The MJPEG frame: SOI, COM, the phase's header, the band's MCU rows coded
 * with the stamp, the phase's remaining scan data and EOI. */
static const uint8_t *jpeg_frame(struct vcam_frames *f, const struct phase *ph,
				 const struct stamp *s, size_t *length)
{
	const uint8_t *bj;
	size_t bscan;
	if (f->bc.ok) {
		uint8_t bytes[STAMP_BYTES];
		stamp_pack(s, bytes);
		bscan = band_scan(&f->bc, bytes, f->width, f->band_rows, f->band_buf);
		bj = f->band_buf;
	} else {
		int err = band_scan_libjpeg(f, s, &bj, &bscan);
		if (err) {
			errno = -err;
			return NULL;
		}
	}
	bool more = f->band_rows < f->mcu_rows;

	char com[STAMP_COM_MAX + 1];
	size_t cl = stamp_com_text(s, com);
	size_t total = 2 + 4 + cl + (ph->head_end - 2) + bscan + (more ? 2 : 0) + (ph->len - ph->rest);
	if (total > vcam_frames_max_size(f)) {
		errno = EOVERFLOW;
		return NULL;
	}
	if (total > f->out_cap) {
		uint8_t *o = realloc(f->out, total);
		if (!o) {
			errno = ENOMEM;
			return NULL;
		}
		f->out = o;
		f->out_cap = total;
	}
	uint8_t *o = f->out;
	*o++ = 0xff;
	*o++ = 0xd8;
	*o++ = 0xff;
	*o++ = 0xfe;
	*o++ = (uint8_t)((cl + 2) >> 8);
	*o++ = (uint8_t)(cl + 2);
	memcpy(o, com, cl);
	o += cl;
	memcpy(o, ph->data + 2, ph->head_end - 2);
	o += ph->head_end - 2;
	memcpy(o, bj, bscan);
	o += bscan;
	if (more) {
		*o++ = 0xff;
		*o++ = (uint8_t)(0xd0 + (f->band_rows - 1) % 8);
	}
	memcpy(o, ph->data + ph->rest, ph->len - ph->rest);
	o += ph->len - ph->rest;
	*length = (size_t)(o - f->out);
	return f->out;
}

/* Whether the fast band coder writes what libjpeg writes, for stamps with
 * many ones, many zeros and a mix. */
static bool band_coder_agrees(struct vcam_frames *f)
{
	static const struct stamp probes[] = {
		{ 0, 0, 0 },
		{ 0xffffffffu, 0xffffffffffffffffull, -1 },
		{ 0x5a5aa5a5u, 0x0123456789abcdefull, 1234 },
	};
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		const uint8_t *ref;
		size_t ref_len;
		if (band_scan_libjpeg(f, &probes[i], &ref, &ref_len))
			return false;
		uint8_t bytes[STAMP_BYTES];
		stamp_pack(&probes[i], bytes);
		size_t n = band_scan(&f->bc, bytes, f->width, f->band_rows, f->band_buf);
		if (n != ref_len || memcmp(f->band_buf, ref, n) != 0)
			return false;
	}
	return true;
}

/* ---- API ---- */

unsigned vcam_pixel_opaque_bits(enum vcam_pixel pixel)
{
	switch (pixel) {
	case VCAM_PIXEL_OPAQUE8:
		return 8;
	case VCAM_PIXEL_OPAQUE12:
		return 12;
	case VCAM_PIXEL_OPAQUE16:
		return 16;
	case VCAM_PIXEL_OPAQUE24:
		return 24;
	case VCAM_PIXEL_OPAQUE32:
		return 32;
	default:
		return 0;
	}
}

static enum picture_layout raw_layout(enum vcam_pixel pixel)
{
	switch (pixel) {
	case VCAM_PIXEL_NV12:
		return PICTURE_NV12;
	case VCAM_PIXEL_YU12:
		return PICTURE_YU12;
	case VCAM_PIXEL_YV12:
		return PICTURE_YV12;
	case VCAM_PIXEL_RGB24:
		return PICTURE_RGB24;
	case VCAM_PIXEL_BGR24:
		return PICTURE_BGR24;
	case VCAM_PIXEL_UYVY:
		return PICTURE_UYVY;
	case VCAM_PIXEL_SBGGR8:
		return PICTURE_SBGGR8;
	case VCAM_PIXEL_SGBRG8:
		return PICTURE_SGBRG8;
	case VCAM_PIXEL_SGRBG8:
		return PICTURE_SGRBG8;
	case VCAM_PIXEL_SRGGB8:
		return PICTURE_SRGGB8;
	default:
		return PICTURE_YUYV;
	}
}

struct vcam_frames *vcam_frames_new(enum vcam_pixel pixel, unsigned width, unsigned height,
				    int brightness)
{
	bool opaque = vcam_pixel_opaque_bits(pixel) != 0; /* no picture: any size */
	if (pixel > VCAM_PIXEL_LAST ||
	    (opaque ? !width || !height || width > PICTURE_MAX_SIZE || height > PICTURE_MAX_SIZE
		    : !picture_size_ok(width, height) || !stamp_band_height(width) ||
			      stamp_band_height(width) >= height)) {
		errno = EINVAL;
		return NULL;
	}
	struct vcam_frames *f = calloc(1, sizeof(*f));
	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	f->pixel = pixel;
	f->width = width;
	f->height = height;
	vcam_frames_set_brightness(f, brightness);
	f->layout = raw_layout(pixel);
	f->frame_size = vcam_pixel_opaque_bits(pixel)
				? (size_t)width * height * vcam_pixel_opaque_bits(pixel) / 8
				: picture_frame_size(f->layout, width, height);
	if (f->layout == PICTURE_RGB24 || f->layout == PICTURE_BGR24 ||
	    picture_bayer_colour(f->layout, 0, 0) >= 0) {
		unsigned band = stamp_band_height(width);
		f->rgb_band_rows = band < PICTURE_MIN_SIZE ? PICTURE_MIN_SIZE : (band + 1) / 2 * 2;
		f->rgb_band_yu12 = calloc(1, picture_frame_size(PICTURE_YU12, width, f->rgb_band_rows));
		f->rgb_band = malloc(picture_frame_size(f->layout, width, f->rgb_band_rows));
		if (!f->rgb_band_yu12 || !f->rgb_band) {
			vcam_frames_free(f);
			errno = ENOMEM;
			return NULL;
		}
	}
	if (pixel == VCAM_PIXEL_MJPEG) {
		f->band = stamp_band_height(width);
		f->band_rows = f->band / DCTSIZE;
		f->mcu_rows = (height + DCTSIZE - 1) / DCTSIZE;
		f->band_yu12 = malloc((size_t)width * f->band * 3 / 2);
		int err = f->band_yu12 ? planes_alloc(&f->band_planes, width, f->band) : -ENOMEM;
		if (!err)
			err = encoder_init(&f->enc);
		if (err) {
			vcam_frames_free(f);
			errno = -err;
			return NULL;
		}
		memset(f->band_planes.cb, 128, (size_t)f->band_planes.width / 2 * f->band_planes.height);
		memset(f->band_planes.cr, 128, (size_t)f->band_planes.width / 2 * f->band_planes.height);
		band_coder_init(&f->bc, &f->enc, width, f->band);
		if (f->bc.ok)
			f->band_buf = malloc(band_scan_bound(&f->bc, f->band_rows));
		f->bc.ok = f->bc.ok && f->band_buf && band_coder_agrees(f);
	}
	return f;
}

int vcam_frames_set_brightness(struct vcam_frames *f, int brightness)
{
	if (!f)
		return -EINVAL;
	if (brightness < INT16_MIN)
		brightness = INT16_MIN;
	if (brightness > INT16_MAX)
		brightness = INT16_MAX;
	f->brightness = brightness; /* phases made with another one are remade lazily */
	return 0;
}

static bool is_vcl(unsigned type)
{
	return type >= 1 && type <= 5;
}

int vcam_frames_set_h264_file(struct vcam_frames *f, const char *path)
{
	if (!f || !path || f->pixel != VCAM_PIXEL_H264)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > H264_MAX_FILE) {
		close(fd);
		return S_ISREG(st.st_mode) && st.st_size > 0 ? -EFBIG : -EINVAL;
	}
	size_t len = (size_t)st.st_size;
	uint8_t *buf = malloc(len);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;
			close(fd);
			free(buf);
			return err;
		}
		got += (size_t)n;
	}
	close(fd);

	/* Access units: a new one starts at an AUD, at SPS/PPS/SEI/prefix NALs
	 * after a slice, and at a slice with first_mb_in_slice == 0 after a
	 * slice. Each starts at its first NAL's start code (zero_byte included). */
	size_t cap = 64, n_au = 0;
	size_t *au = malloc(cap * sizeof(*au));
	bool have_vcl = false, any_vcl = false;
	if (!au) {
		free(buf);
		return -ENOMEM;
	}
	for (size_t i = 0; i + 3 < len; i++) {
		if (buf[i] != 0 || buf[i + 1] != 0 || buf[i + 2] != 1)
			continue;
		size_t sc = i > 0 && buf[i - 1] == 0 ? i - 1 : i;
		unsigned type = buf[i + 3] & 0x1f;
		bool first_slice = is_vcl(type) && i + 4 < len && (buf[i + 4] & 0x80);
		bool starts = n_au == 0 || type == 9 ||
			      (have_vcl && (type == 6 || type == 7 || type == 8 ||
					    (type >= 14 && type <= 18) || first_slice));
		if (starts) {
			if (n_au + 2 > cap) {
				size_t *a = realloc(au, cap * 2 * sizeof(*au));
				if (!a) {
					free(au);
					free(buf);
					return -ENOMEM;
				}
				au = a;
				cap *= 2;
			}
			au[n_au++] = sc;
			have_vcl = false;
		}
		if (is_vcl(type))
			have_vcl = any_vcl = true;
		i += 2;
	}
	if (!any_vcl) {
		free(au);
		free(buf);
		return -EINVAL;
	}
	au[n_au] = len;
	free(f->h264);
	free(f->au);
	f->h264 = buf;
	f->au = au;
	f->n_au = n_au;
	f->next_au = 0;
	f->max_au = 0;
	for (size_t k = 0; k < n_au; k++)
		if (au[k + 1] - au[k] > f->max_au)
			f->max_au = au[k + 1] - au[k];
	return 0;
}

void vcam_frames_rewind(struct vcam_frames *f)
{
	if (f)
		f->next_au = 0;
}

int vcam_frames_brightness(const struct vcam_frames *f)
{
	return f->brightness;
}

int vcam_frames_prepare(struct vcam_frames *f)
{
	if (!f)
		return -EINVAL;
	if (f->pixel == VCAM_PIXEL_H264)
		return 0;
	for (unsigned i = 0; i < PICTURE_PHASES; i++) {
		int err = ensure_phase(f, i);
		if (err)
			return err;
	}
	return 0;
}

const uint8_t *vcam_frames_get(struct vcam_frames *f, uint32_t sequence, uint64_t time_ns,
			       size_t *length)
{
	if (!f || !length) {
		errno = EINVAL;
		return NULL;
	}
	if (f->pixel == VCAM_PIXEL_H264) {
		if (!f->n_au) {
			errno = ENODATA;
			return NULL;
		}
		size_t k = f->next_au;
		f->next_au = (k + 1) % f->n_au;
		*length = f->au[k + 1] - f->au[k];
		return f->h264 + f->au[k];
	}
	unsigned index = sequence % PICTURE_PHASES;
	int err = ensure_phase(f, index);
	if (err) {
		errno = -err;
		return NULL;
	}
	struct phase *ph = &f->phases[index];
	struct stamp s = { .sequence = sequence, .time_ns = time_ns,
			   .brightness = (int16_t)f->brightness };
	if (f->pixel == VCAM_PIXEL_MJPEG)
		return jpeg_frame(f, ph, &s, length);
	if (vcam_pixel_opaque_bits(f->pixel)) {
		*length = ph->len;
		return ph->data;
	}
	if (f->rgb_band) {
		unsigned w = f->width, rows = f->rgb_band_rows;
		err = stamp_write(PICTURE_YU12, f->rgb_band_yu12, w, rows, &s);
		if (!err)
			err = picture_convert(f->rgb_band_yu12, w, rows, f->layout, PICTURE_MATH_BT601,
					      f->rgb_band);
		if (err) {
			errno = -err;
			return NULL;
		}
		size_t row_bytes = picture_frame_size(f->layout, w, rows) / rows;
		memcpy(ph->data, f->rgb_band, row_bytes * stamp_band_height(w));
		*length = ph->len;
		return ph->data;
	}
	err = stamp_write(f->layout, ph->data, f->width, f->height, &s);
	if (err) {
		errno = -err;
		return NULL;
	}
	*length = ph->len;
	return ph->data;
}

bool vcam_frames_fast_band(const struct vcam_frames *f)
{
	return f && f->pixel == VCAM_PIXEL_MJPEG && f->bc.ok;
}

size_t vcam_frames_max_size(const struct vcam_frames *f)
{
	if (!f)
		return 0;
	size_t wh2 = (size_t)f->width * f->height * 2;
	switch (f->pixel) {
	case VCAM_PIXEL_H264:
		return f->n_au ? f->max_au : wh2;
	case VCAM_PIXEL_MJPEG:
		return wh2;
	default:
		return f->frame_size;
	}
}

void vcam_frames_free(struct vcam_frames *f)
{
	if (!f)
		return;
	for (unsigned i = 0; i < PICTURE_PHASES; i++)
		free(f->phases[i].data);
	encoder_free(&f->enc);
	free(f->band_buf);
	planes_free(&f->planes);
	free(f->scratch);
	planes_free(&f->band_planes);
	free(f->band_yu12);
	free(f->rgb_band_yu12);
	free(f->rgb_band);
	free(f->out);
	free(f->h264);
	free(f->au);
	free(f);
}

int vcam_frames_corrupt_jpeg(uint8_t *jpeg, size_t len)
{
	if (len < 512 || jpeg[0] != 0xff || jpeg[1] != 0xd8)
		return -EINVAL;
	size_t at = len / 4 * 3;
	for (size_t i = 0; i < 32; i += 2) {
		jpeg[at + i] = 0xff;
		jpeg[at + i + 1] = 0xd7;
	}
	return 0;
}

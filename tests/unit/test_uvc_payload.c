/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UVC payload headers (src/uvc/payload.c): real headers from the corpus,
 * malformed ones, and frame assembly of the vcam's iso packets and bulk URBs:
 * byte-exact frames, FID toggles without EOF, ERR, overflow, short frames,
 * missing buffers, resync, and garbage that must never crash. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#include "payload.h"
#include "uvc/metadata.h"
#include "uvc/payload.h"
#include "unit_run.h"

/* ---- header parsing ---- */

START_TEST(parse_corpus_realtek_mjpeg)
{
	/* Realtek 0bda:5602 bulk MJPEG (usbmon): `0c8cb210 18147994 1f146203 ffd8` */
	const uint8_t start[] = { 0x0c, 0x8c, 0xb2, 0x10, 0x18, 0x14, 0x79, 0x94,
				  0x1f, 0x14, 0x62, 0x03, 0xff, 0xd8 };
	struct uvc_payload_header h;
	ck_assert_int_eq(uvc_payload_parse(start, sizeof(start), &h), 0);
	ck_assert_uint_eq(h.length, 12);
	ck_assert_uint_eq(h.info, 0x8c);
	ck_assert(!h.fid && !h.eof && h.has_pts && h.has_scr && h.eoh);
	ck_assert(!h.error && !h.still && !h.res);
	ck_assert_uint_eq(h.pts, 0x141810b2u);
	ck_assert_uint_eq(h.scr_stc, 0x141f9479u);
	ck_assert_uint_eq(h.scr_sof, 0x0362);

	/* Its 14-byte tail payloads: `0c8f7e61 101445f8 17144003 ffd9` */
	const uint8_t tail[] = { 0x0c, 0x8f, 0x7e, 0x61, 0x10, 0x14, 0x45, 0xf8,
				 0x17, 0x14, 0x40, 0x03, 0xff, 0xd9 };
	ck_assert_int_eq(uvc_payload_parse(tail, sizeof(tail), &h), 0);
	ck_assert(h.fid && h.eof && h.has_pts && h.has_scr);
	ck_assert_uint_eq(h.pts, 0x1410617eu);
	ck_assert_uint_eq(h.scr_stc, 0x1417f845u);
	ck_assert_uint_eq(h.scr_sof, 0x0340);
}
END_TEST

START_TEST(parse_corpus_bulk_yuyv)
{
	/* linux-usb EPROTO snippet: `0c8d8a89 cd94dc59 d1941900 10801080` */
	const uint8_t p[] = { 0x0c, 0x8d, 0x8a, 0x89, 0xcd, 0x94, 0xdc, 0x59,
			      0xd1, 0x94, 0x19, 0x00, 0x10, 0x80, 0x10, 0x80 };
	struct uvc_payload_header h;
	ck_assert_int_eq(uvc_payload_parse(p, sizeof(p), &h), 0);
	ck_assert(h.fid && !h.eof && h.has_pts && h.has_scr);
	ck_assert_uint_eq(h.pts, 0x94cd898au);
	ck_assert_uint_eq(h.scr_stc, 0x94d159dcu);
	ck_assert_uint_eq(h.scr_sof, 0x0019);
	/* Insta360 Link (Vaultmicro capture): `0c 8d a4 9e 68 00 ...` */
	const uint8_t q[] = { 0x0c, 0x8d, 0xa4, 0x9e, 0x68, 0x00, 0, 0, 0, 0, 0, 0 };
	ck_assert_int_eq(uvc_payload_parse(q, sizeof(q), &h), 0);
	ck_assert_uint_eq(h.pts, 0x00689ea4u);
}
END_TEST

START_TEST(parse_layouts)
{
	struct uvc_payload_header h;
	/* PTS only: 6 bytes. */
	const uint8_t pts[] = { 6, UVC_STREAM_PTS | UVC_STREAM_EOH, 1, 2, 3, 4 };
	ck_assert_int_eq(uvc_payload_parse(pts, sizeof(pts), &h), 0);
	ck_assert(h.has_pts && !h.has_scr);
	ck_assert_uint_eq(h.pts, 0x04030201u);
	/* SCR only: 8 bytes, SCR right after bmHeaderInfo. */
	const uint8_t scr[] = { 8, UVC_STREAM_SCR, 1, 2, 3, 4, 0xff, 0xff };
	ck_assert_int_eq(uvc_payload_parse(scr, sizeof(scr), &h), 0);
	ck_assert(!h.has_pts && h.has_scr);
	ck_assert_uint_eq(h.scr_stc, 0x04030201u);
	ck_assert_uint_eq(h.scr_sof, 0x7ff); /* reserved bits masked */
	/* Bare 2-byte header with every other flag. */
	const uint8_t bare[] = { 2, 0xff & ~(UVC_STREAM_PTS | UVC_STREAM_SCR) };
	ck_assert_int_eq(uvc_payload_parse(bare, sizeof(bare), &h), 0);
	ck_assert(h.fid && h.eof && h.res && h.still && h.error && h.eoh);
	ck_assert_uint_eq(h.length, 2);
	/* A header longer than its fields need is fine. */
	uint8_t longer[20] = { 16, UVC_STREAM_PTS | UVC_STREAM_SCR };
	ck_assert_int_eq(uvc_payload_parse(longer, sizeof(longer), &h), 0);
	ck_assert_uint_eq(h.length, 16);
	/* Header-only payload: length == len. */
	ck_assert_int_eq(uvc_payload_parse(longer, 16, &h), 0);
}
END_TEST

START_TEST(parse_malformed)
{
	struct uvc_payload_header h;
	const uint8_t ok[] = { 12, 0x8c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	ck_assert_int_eq(uvc_payload_parse(ok, 0, &h), -EINVAL);
	ck_assert_int_eq(uvc_payload_parse(ok, 1, &h), -EINVAL);
	ck_assert_int_eq(uvc_payload_parse(ok, 11, &h), -EINVAL); /* > len */
	ck_assert_int_eq(uvc_payload_parse(NULL, 12, &h), -EINVAL);
	const uint8_t zero[] = { 0, 0, 0 }, one[] = { 1, 0, 0 };
	ck_assert_int_eq(uvc_payload_parse(zero, 3, &h), -EINVAL);
	ck_assert_int_eq(uvc_payload_parse(one, 3, &h), -EINVAL);
	/* Flags announcing more than bHeaderLength holds: taken as uvcvideo
	 * 6.1 takes them (only len and bHeaderLength are checked), the
	 * timestamps that do not fit left unread; data starts after
	 * bHeaderLength (the 0bda:5602 trace has a 3-byte header with SCR). */
	const uint8_t pts5[] = { 5, UVC_STREAM_PTS, 0, 0, 0, 0, 0, 0 };
	const uint8_t scr7[] = { 7, UVC_STREAM_SCR, 0, 0, 0, 0, 0, 0 };
	const uint8_t both11[] = { 11, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	const uint8_t both2[] = { 2, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	const uint8_t *const shorts[] = { pts5, scr7, both11, both2 };
	const size_t lens[] = { sizeof(pts5), sizeof(scr7), sizeof(both11), sizeof(both2) };
	for (unsigned k = 0; k < 4; k++) {
		ck_assert_int_eq(uvc_payload_parse(shorts[k], lens[k], &h), 0);
		ck_assert(!h.has_pts && !h.has_scr);
		ck_assert_uint_eq(h.length, shorts[k][0]);
	}
}
END_TEST

/* ---- assembly ---- */

#define MAX_EVENTS 64
#define N_BUFS 3

struct sink {
	struct uvc_assembler a;
	uint8_t *bufs[N_BUFS];
	size_t cap;
	unsigned next;
	bool refill;       /* give the next buffer from the callback */
	unsigned n;
	struct uvc_frame_event ev[MAX_EVENTS];
	uint8_t *data[MAX_EVENTS];
};

static void on_frame(void *opaque, const struct uvc_frame_event *ev)
{
	struct sink *s = opaque;
	ck_assert_uint_lt(s->n, MAX_EVENTS);
	s->ev[s->n] = *ev;
	s->data[s->n] = malloc(ev->bytesused + 1);
	ck_assert_ptr_nonnull(s->data[s->n]);
	if (ev->bytesused)
		memcpy(s->data[s->n], ev->buf, ev->bytesused);
	s->n++;
	if (s->refill)
		uvc_assembler_set_buffer(&s->a, s->bufs[s->next++ % N_BUFS], s->cap);
}

static void sink_init(struct sink *s, size_t cap, bool give_buffer)
{
	memset(s, 0, sizeof(*s));
	uvc_assembler_init(&s->a, on_frame, s);
	s->cap = cap;
	for (int i = 0; i < N_BUFS; i++) {
		s->bufs[i] = malloc(cap ? cap : 1);
		ck_assert_ptr_nonnull(s->bufs[i]);
	}
	s->refill = give_buffer;
	if (give_buffer)
		uvc_assembler_set_buffer(&s->a, s->bufs[s->next++], cap);
}

static void sink_free(struct sink *s)
{
	for (unsigned i = 0; i < s->n; i++)
		free(s->data[i]);
	for (int i = 0; i < N_BUFS; i++)
		free(s->bufs[i]);
}

/* Forgets recorded events before a call could overrun the record. */
static void sink_drain(struct sink *s)
{
	if (s->n + 2 < MAX_EVENTS)
		return;
	for (unsigned i = 0; i < s->n; i++) {
		ck_assert_uint_le(s->ev[i].bytesused, s->ev[i].cap);
		free(s->data[i]);
	}
	s->n = 0;
}

static uint8_t *make_frame(size_t len, unsigned seed)
{
	uint8_t *f = malloc(len ? len : 1);
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < len; i++)
		f[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8));
	return f;
}

#define NS_PER_FRAME 33333333ull

/* Sends one frame as iso packets of `room` bytes, with `idle` header-only
 * packets before it. */
static void send_iso(struct sink *s, struct vcam_payload *p, const uint8_t *f, size_t len,
		     unsigned seq, bool error, size_t room, unsigned idle)
{
	uint8_t pkt[4096];
	ck_assert_uint_le(room, sizeof(pkt));
	uint64_t t = seq * NS_PER_FRAME;
	for (unsigned i = 0; i < idle; i++) {
		size_t n = vcam_payload_iso_packet(p, pkt, room, t);
		ck_assert_int_eq(uvc_assembler_packet(&s->a, pkt, n), 0);
		ck_assert_int_eq(uvc_assembler_packet(&s->a, pkt, 0), 0); /* ZLP */
	}
	vcam_payload_start_frame(p, f, len, t, error);
	while (p->in_frame) {
		t += 125000;
		size_t n = vcam_payload_iso_packet(p, pkt, room, t);
		ck_assert_int_eq(uvc_assembler_packet(&s->a, pkt, n), 0);
	}
}

/* Sends one frame as bulk URBs of `room` bytes; ends payload transfers as a
 * stream engine does: short URB, ZLP, or max_payload bytes reached. */
static void send_bulk(struct sink *s, struct vcam_payload *p, const uint8_t *f, size_t len,
		      unsigned seq, bool error, size_t room)
{
	static uint8_t urb[65536];
	ck_assert_uint_le(room, sizeof(urb));
	uint64_t t = seq * NS_PER_FRAME;
	size_t acc = 0;
	vcam_payload_start_frame(p, f, len, t, error);
	for (;;) {
		long n = vcam_payload_bulk_urb(p, urb, room, t);
		if (n < 0)
			break;
		acc += (size_t)n;
		bool end = (size_t)n < room || acc >= p->max_payload;
		ck_assert_int_eq(uvc_assembler_bulk(&s->a, urb, (size_t)n, end), 0);
		if (end)
			acc = 0;
		t += 125000;
	}
}

/* send_bulk with the first URB's bHeaderLength set to 1 (a bad header). */
static void send_bulk_bad_first(struct sink *s, struct vcam_payload *p, const uint8_t *f,
				size_t len, unsigned seq, size_t room)
{
	static uint8_t urb[65536];
	uint64_t t = seq * NS_PER_FRAME;
	size_t acc = 0;
	bool first = true;
	vcam_payload_start_frame(p, f, len, t, false);
	for (;;) {
		long n = vcam_payload_bulk_urb(p, urb, room, t);
		if (n < 0)
			break;
		if (first)
			urb[0] = 1;
		acc += (size_t)n;
		bool end = (size_t)n < room || acc >= p->max_payload;
		ck_assert_int_eq(uvc_assembler_bulk(&s->a, urb, (size_t)n, end), first ? -EINVAL : 0);
		first = false;
		if (end)
			acc = 0;
		t += 125000;
	}
}

static void check_frame(struct sink *s, unsigned i, const uint8_t *f, size_t len,
			uint64_t seq, uint32_t flags)
{
	ck_assert_uint_gt(s->n, i);
	ck_assert_uint_eq(s->ev[i].bytesused, len);
	ck_assert_uint_eq(s->ev[i].flags, flags);
	ck_assert_int_eq(s->ev[i].error, (flags & UVC_ASM_ERR_MASK) != 0);
	ck_assert_uint_eq(s->ev[i].sequence, seq);
	ck_assert(memcmp(s->data[i], f, len) == 0);
}

/* The device takes a buffer back mid-frame (a process stops streaming
 * while others go on): the frame continues where it is moved, its bytes so
 * far with it, or without a buffer at all. */
START_TEST(buffer_moved_mid_frame)
{
	struct sink s;
	sink_init(&s, 20000, false);
	struct vcam_payload p;
	vcam_payload_reset(&p, 0);
	uint8_t pkt[1024];
	uint8_t *f = make_frame(10000, 5);
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	vcam_payload_start_frame(&p, f, 10000, 0, false);
	uint64_t t = 0;
	for (unsigned k = 0; p.in_frame; k++) {
		if (k == 4) {
			uvc_assembler_move_buffer(&s.a, s.bufs[0], s.bufs[1], s.cap);
			memset(s.bufs[0], 0, s.cap); /* the old buffer is no longer read */
		}
		size_t n = vcam_payload_iso_packet(&p, pkt, sizeof(pkt), t += 125000);
		ck_assert_int_eq(uvc_assembler_packet(&s.a, pkt, n), 0);
	}
	check_frame(&s, 0, f, 10000, 0, 0);
	ck_assert_ptr_eq(s.ev[0].buf, s.bufs[1]);

	/* to a smaller buffer: what does not fit is lost, the frame errored */
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	vcam_payload_start_frame(&p, f, 10000, t, false);
	for (unsigned k = 0; p.in_frame; k++) {
		if (k == 6)
			uvc_assembler_move_buffer(&s.a, s.bufs[0], s.bufs[2], 100);
		size_t n = vcam_payload_iso_packet(&p, pkt, sizeof(pkt), t += 125000);
		ck_assert_int_eq(uvc_assembler_packet(&s.a, pkt, n), 0);
	}
	ck_assert_uint_eq(s.n, 2);
	ck_assert_ptr_eq(s.ev[1].buf, s.bufs[2]);
	ck_assert_uint_eq(s.ev[1].bytesused, 100);
	ck_assert(s.ev[1].flags & UVC_ASM_ERR_OVERFLOW);
	ck_assert(memcmp(s.data[1], f, 100) == 0);

	/* to nothing: the frame goes on unwritten and is never delivered */
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	vcam_payload_start_frame(&p, f, 10000, t, false);
	for (unsigned k = 0; p.in_frame; k++) {
		if (k == 3)
			uvc_assembler_move_buffer(&s.a, s.bufs[0], NULL, 0);
		size_t n = vcam_payload_iso_packet(&p, pkt, sizeof(pkt), t += 125000);
		ck_assert_int_eq(uvc_assembler_packet(&s.a, pkt, n), 0);
	}
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.a.stats.frames_no_buffer, 1);
	/* the spare moves too */
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	uvc_assembler_move_buffer(&s.a, s.bufs[0], s.bufs[1], s.cap);
	ck_assert_ptr_eq(s.a.spare, s.bufs[1]);
	free(f);
	sink_free(&s);
}
END_TEST

/* Sends frame f as 1 KiB iso packets; before packet `at`, calls then(). */
static void send_iso_then(struct sink *s, struct vcam_payload *p, const uint8_t *f, size_t len,
			  uint64_t *t, unsigned at, void (*then)(struct sink *))
{
	uint8_t pkt[1024];
	vcam_payload_start_frame(p, f, len, *t, false);
	for (unsigned k = 0; p->in_frame; k++) {
		if (k == at && then)
			then(s);
		size_t n = vcam_payload_iso_packet(p, pkt, sizeof(pkt), *t += 125000);
		ck_assert_int_eq(uvc_assembler_packet(&s->a, pkt, n), 0);
	}
}

static void scribble_on_primary(struct sink *s)
{
	memset(s->bufs[0], 0x66, s->cap); /* its app writes on its own buffer */
}

static void primary_goes(struct sink *s)
{
	uvc_assembler_move_buffer(&s->a, s->bufs[0], NULL, 0);
	memset(s->bufs[0], 0x66, s->cap); /* no longer written, nor read */
}

static void mirror_goes(struct sink *s)
{
	uvc_assembler_move_buffer(&s->a, s->bufs[2], NULL, 0);
}

/* A spare with a mirror (issue 29, finding 4: several processes on one
 * camera): the frame is written into both straight from the payloads, so
 * the mirror holds the camera's bytes whatever the primary's owner does
 * to its own buffer; the frame goes on in the mirror when the primary is
 * taken back; a mirror too small is cut, the primary whole. */
START_TEST(mirror_written_beside_the_buffer)
{
	struct sink s;
	sink_init(&s, 20000, false);
	struct vcam_payload p;
	vcam_payload_reset(&p, 0);
	uint8_t *f = make_frame(10000, 9);
	uint64_t t = 0;
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	uvc_assembler_set_mirror(&s.a, s.bufs[2], s.cap);
	send_iso_then(&s, &p, f, 10000, &t, 5, scribble_on_primary);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_ptr_eq(s.ev[0].buf, s.bufs[0]);
	ck_assert_ptr_eq(s.ev[0].mirror, s.bufs[2]);
	ck_assert_uint_eq(s.ev[0].mirror_bytes, 10000);
	ck_assert(memcmp(s.bufs[2], f, 10000) == 0); /* the camera's bytes */
	ck_assert(memcmp(s.bufs[0], f, 10000) != 0);  /* the scribbled ones */

	/* the primary taken back mid-frame: the frame ends in the mirror */
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	uvc_assembler_set_mirror(&s.a, s.bufs[2], s.cap);
	send_iso_then(&s, &p, f, 10000, &t, 4, primary_goes);
	ck_assert_uint_eq(s.n, 2);
	check_frame(&s, 1, f, 10000, 1, 0);
	ck_assert_ptr_eq(s.ev[1].buf, s.bufs[2]);
	ck_assert_ptr_null(s.ev[1].mirror);

	/* the mirror taken back mid-frame: the primary goes on alone */
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	uvc_assembler_set_mirror(&s.a, s.bufs[2], s.cap);
	send_iso_then(&s, &p, f, 10000, &t, 4, mirror_goes);
	check_frame(&s, 2, f, 10000, 2, 0);
	ck_assert_ptr_null(s.ev[2].mirror);

	/* a mirror of 100 bytes: cut there, the frame itself whole */
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	uvc_assembler_set_mirror(&s.a, s.bufs[2], 100);
	send_iso_then(&s, &p, f, 10000, &t, 0, NULL);
	check_frame(&s, 3, f, 10000, 3, 0);
	ck_assert_uint_eq(s.ev[3].mirror_bytes, 100);
	ck_assert(memcmp(s.bufs[2], f, 100) == 0);

	/* each spare decides: a buffer given again comes without a mirror,
	 * and a mirror without a spare is not kept */
	uvc_assembler_set_buffer(&s.a, s.bufs[1], s.cap);
	send_iso_then(&s, &p, f, 10000, &t, 0, NULL);
	ck_assert_ptr_null(s.ev[4].mirror);
	uvc_assembler_set_mirror(&s.a, s.bufs[2], s.cap);
	ck_assert_ptr_null(s.a.spare_mirror);
	free(f);
	sink_free(&s);
}
END_TEST

/* drop_errors keeps an errored frame's buffer as the spare: its mirror
 * stays with it for the next frame. */
START_TEST(mirror_kept_with_a_dropped_frame)
{
	struct sink s;
	sink_init(&s, 20000, false);
	s.a.drop_errors = true;
	struct vcam_payload p;
	vcam_payload_reset(&p, 0);
	uint8_t *f = make_frame(10000, 3);
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	uvc_assembler_set_mirror(&s.a, s.bufs[2], s.cap);
	send_iso(&s, &p, f, 10000, 0, true, 1024, 0);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_ptr_eq(s.a.spare, s.bufs[0]);
	ck_assert_ptr_eq(s.a.spare_mirror, s.bufs[2]);
	send_iso(&s, &p, f, 10000, 1, false, 1024, 0);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_ptr_eq(s.ev[0].mirror, s.bufs[2]);
	ck_assert(memcmp(s.bufs[2], f, 10000) == 0);
	free(f);
	sink_free(&s);
}
END_TEST

static const size_t iso_rooms[] = { 1024, 3072, 957, 13 };

START_TEST(iso_frames_exact)
{
	size_t room = iso_rooms[_i];
	const size_t lens[] = { 10000, 4096, 1, 20000 };
	struct sink s;
	sink_init(&s, 20000, true);
	struct vcam_payload p;
	vcam_payload_reset(&p, 0);
	for (unsigned k = 0; k < 4; k++) {
		uint8_t *f = make_frame(lens[k], k);
		send_iso(&s, &p, f, lens[k], k, false, room, k == 0 ? 3 : 2);
		check_frame(&s, k, f, lens[k], k, 0);
		ck_assert(s.ev[k].has_pts && s.ev[k].has_scr);
		ck_assert_uint_eq(s.ev[k].pts, vcam_payload_clock(k * NS_PER_FRAME));
		ck_assert_int_eq(s.ev[k].fid, p.fid);
		free(f);
	}
	ck_assert_uint_eq(s.n, 4);
	ck_assert_uint_eq(s.a.stats.frames_delivered, 4);
	ck_assert_uint_eq(s.a.stats.payloads_invalid, 0);
	sink_free(&s);
}
END_TEST

struct bulk_case {
	size_t max_payload, room;
};
static const struct bulk_case bulk_cases[] = {
	{ 4096, 1024 }, { 10000, 16384 }, { 3072, 512 }, { 1000000, 16384 }, { 2048, 2048 },
};

START_TEST(bulk_frames_exact)
{
	const struct bulk_case *c = &bulk_cases[_i];
	/* 4084 + 12 = 4096: a payload that fills whole URBs needs a ZLP. */
	const size_t lens[] = { 30000, 4084, 2036, 1012, 500 };
	struct sink s;
	sink_init(&s, 40000, true);
	struct vcam_payload p;
	vcam_payload_reset(&p, c->max_payload);
	for (unsigned k = 0; k < 5; k++) {
		uint8_t *f = make_frame(lens[k], k + 5);
		send_bulk(&s, &p, f, lens[k], k, false, c->room);
		check_frame(&s, k, f, lens[k], k, 0);
		ck_assert_uint_eq(s.ev[k].pts, vcam_payload_clock(k * NS_PER_FRAME));
		free(f);
	}
	ck_assert_uint_eq(s.n, 5);
	ck_assert_uint_eq(s.a.stats.payloads_invalid, 0);
	sink_free(&s);
}
END_TEST

/* A bulk payload with a bad header between frames: when it was a whole
 * frame, the next frame is kept (uvcvideo, waiting for a FID toggle, loses
 * it too) and the lost one counted, its sequence number skipped; when it
 * began a frame of several payloads, the rest of that frame is dropped. */
START_TEST(bulk_bad_header_between_frames)
{
	struct sink s;
	sink_init(&s, 40000, true);
	s.a.drop_errors = true;
	struct vcam_payload p;
	uint8_t *f = make_frame(30000, 3);
	/* one payload a frame */
	vcam_payload_reset(&p, 30000 + VCAM_PAYLOAD_HEADER);
	send_bulk(&s, &p, f, 30000, 0, false, 16384);
	send_bulk(&s, &p, f, 30000, 1, false, 16384);
	send_bulk_bad_first(&s, &p, f, 30000, 2, 16384);
	send_bulk(&s, &p, f, 30000, 3, false, 16384);
	send_bulk(&s, &p, f, 30000, 4, false, 16384);
	ck_assert_uint_eq(s.n, 4);
	check_frame(&s, 0, f, 30000, 0, 0);
	check_frame(&s, 1, f, 30000, 1, 0);
	check_frame(&s, 2, f, 30000, 3, 0);
	check_frame(&s, 3, f, 30000, 4, 0);
	ck_assert_uint_eq(s.a.stats.frames_dropped, 1);
	ck_assert_uint_eq(s.a.stats.payloads_invalid, 1);
	sink_free(&s);

	/* three payloads a frame: the first of frame 2 is bad */
	sink_init(&s, 40000, true);
	s.a.drop_errors = true;
	vcam_payload_reset(&p, 10000 + VCAM_PAYLOAD_HEADER);
	for (unsigned k = 0; k < 5; k++) {
		if (k == 2)
			send_bulk_bad_first(&s, &p, f, 30000, k, 16384);
		else
			send_bulk(&s, &p, f, 30000, k, false, 16384);
	}
	ck_assert_uint_eq(s.n, 4);
	check_frame(&s, 2, f, 30000, 3, 0);
	check_frame(&s, 3, f, 30000, 4, 0);
	ck_assert_uint_eq(s.a.stats.frames_dropped, 1);
	sink_free(&s);
	free(f);
}
END_TEST

START_TEST(bulk_header_split)
{
	/* A payload fed byte by byte, then its data in one piece. */
	struct sink s;
	sink_init(&s, 100, true);
	const uint8_t pl[] = { 12, 0x8e, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 'a', 'b', 'c' };
	for (size_t i = 0; i < 12; i++)
		ck_assert_int_eq(uvc_assembler_bulk(&s.a, pl + i, 1, false), 0);
	ck_assert_int_eq(uvc_assembler_bulk(&s.a, pl + 12, 3, true), 0);
	ck_assert_uint_eq(s.n, 1);
	check_frame(&s, 0, (const uint8_t *)"abc", 3, 0, 0);
	ck_assert_uint_eq(s.ev[0].pts, 1);
	ck_assert_uint_eq(s.ev[0].scr_stc, 2);
	ck_assert_uint_eq(s.ev[0].scr_sof, 3);
	/* Truncated header at a transfer end; a ZLP alone is nothing. */
	ck_assert_int_eq(uvc_assembler_bulk(&s.a, pl, 5, true), -EINVAL);
	ck_assert_int_eq(uvc_assembler_bulk(&s.a, NULL, 0, true), 0);
	/* A bad header drops the whole payload transfer. */
	const uint8_t bad[] = { 1, 0x80, 'x', 'y' };
	ck_assert_int_eq(uvc_assembler_bulk(&s.a, bad, 4, false), -EINVAL);
	ck_assert_int_eq(uvc_assembler_bulk(&s.a, pl, 15, true), 0);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.a.stats.payloads_invalid, 2);
	sink_free(&s);
}
END_TEST

/* Hand-made iso payload: 2-byte header, info, data. */
static void pkt(struct sink *s, uint8_t info, const char *data)
{
	uint8_t b[64] = { 2, (uint8_t)(info | UVC_STREAM_EOH) };
	size_t n = strlen(data);
	memcpy(b + 2, data, n);
	ck_assert_int_eq(uvc_assembler_packet(&s->a, b, 2 + n), 0);
}

START_TEST(fid_toggle_without_eof)
{
	struct sink s;
	sink_init(&s, 100, true);
	pkt(&s, 0, "ab");
	pkt(&s, 0, "cd");
	ck_assert_uint_eq(s.n, 0);
	pkt(&s, UVC_STREAM_FID, "ef"); /* toggles: "abcd" is complete */
	ck_assert_uint_eq(s.n, 1);
	check_frame(&s, 0, (const uint8_t *)"abcd", 4, 0, UVC_ASM_NO_EOF);
	ck_assert(!s.ev[0].fid);
	pkt(&s, UVC_STREAM_FID | UVC_STREAM_EOF, "g");
	check_frame(&s, 1, (const uint8_t *)"efg", 3, 1, 0);
	/* A header-only toggle ends a frame too, and starts none. */
	pkt(&s, 0, "hi");
	pkt(&s, UVC_STREAM_FID, "");
	ck_assert_uint_eq(s.n, 3);
	check_frame(&s, 2, (const uint8_t *)"hi", 2, 2, UVC_ASM_NO_EOF);
	pkt(&s, UVC_STREAM_FID | UVC_STREAM_EOF, "");
	ck_assert_uint_eq(s.n, 3);
	/* Data with that FID (never seen in a frame) starts the next one. */
	pkt(&s, UVC_STREAM_FID | UVC_STREAM_EOF, "j");
	check_frame(&s, 3, (const uint8_t *)"j", 1, 3, 0);
	sink_free(&s);
}
END_TEST

/* The 0bda:5602 trace (corpus/streams) as uvcvideo 6.1 reads it: a 3-byte
 * header whose flags announce an SCR it has no room for is a payload like
 * any other, its data after bHeaderLength, its FID toggling the frame. */
START_TEST(header_too_short_for_its_timestamps)
{
	struct sink s;
	const uint8_t a[] = { 12, UVC_STREAM_EOH | UVC_STREAM_PTS | UVC_STREAM_SCR, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 'a', 'b' };
	const uint8_t b[] = { 3, UVC_STREAM_EOH | UVC_STREAM_SCR | UVC_STREAM_FID, 0x35, 'c', 'd' };
	const uint8_t c[] = { 12, UVC_STREAM_EOH | UVC_STREAM_PTS | UVC_STREAM_SCR | UVC_STREAM_EOF,
			      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'e' };

	sink_init(&s, 100, true);
	ck_assert_int_eq(uvc_assembler_bulk(&s.a, a, sizeof(a), true), 0);
	ck_assert_int_eq(uvc_assembler_bulk(&s.a, b, sizeof(b), true), 0);
	ck_assert_uint_eq(s.n, 1);
	check_frame(&s, 0, (const uint8_t *)"ab", 2, 0, UVC_ASM_NO_EOF);
	ck_assert_int_eq(uvc_assembler_bulk(&s.a, c, sizeof(c), true), 0);
	ck_assert_uint_eq(s.n, 3);
	check_frame(&s, 1, (const uint8_t *)"cd", 2, 1, UVC_ASM_NO_EOF);
	check_frame(&s, 2, (const uint8_t *)"e", 1, 2, 0);
	sink_free(&s);
}
END_TEST

/* Each transfer's newest SCR becomes one sample with the transfer's time;
 * a transfer without one adds none; the oldest give way when nobody takes
 * them. */
START_TEST(scr_sampled_per_transfer)
{
	struct sink s;
	struct uvc_scr_sample out[UVC_ASM_SCR_SAMPLES];
	uint8_t p[14] = { 12, UVC_STREAM_EOH | UVC_STREAM_PTS | UVC_STREAM_SCR, 0, 0, 0, 0,
			  0, 0, 0, 0, 0, 0, 'a', 'b' };

	sink_init(&s, 1000, true);
	s.a.now_ns = 5000;
	for (uint8_t stc = 1; stc <= 3; stc++) { /* three payloads, one transfer */
		p[6] = stc;
		uvc_assembler_packet(&s.a, p, sizeof(p));
	}
	uvc_assembler_transfer_done(&s.a);
	s.a.now_ns = 6000;
	pkt(&s, 0, "cd"); /* no SCR */
	uvc_assembler_transfer_done(&s.a);
	ck_assert_uint_eq(uvc_assembler_take_scr(&s.a, out, UVC_ASM_SCR_SAMPLES), 1);
	ck_assert_uint_eq(out[0].stc, 3);
	ck_assert_uint_eq(out[0].host_ns, 5000);
	ck_assert_uint_eq(uvc_assembler_take_scr(&s.a, out, UVC_ASM_SCR_SAMPLES), 0);
	for (unsigned k = 0; k < UVC_ASM_SCR_SAMPLES + 5; k++) {
		s.a.now_ns = 10000 + k;
		p[6] = (uint8_t)k;
		uvc_assembler_packet(&s.a, p, sizeof(p));
		uvc_assembler_transfer_done(&s.a);
	}
	ck_assert_uint_eq(uvc_assembler_take_scr(&s.a, out, 2), 2);
	ck_assert_uint_eq(out[0].host_ns, 10005);
	ck_assert_uint_eq(uvc_assembler_take_scr(&s.a, out, UVC_ASM_SCR_SAMPLES),
			  UVC_ASM_SCR_SAMPLES - 2);
	ck_assert_uint_eq(out[UVC_ASM_SCR_SAMPLES - 3].host_ns, 10000 + UVC_ASM_SCR_SAMPLES + 4);
	sink_free(&s);
}
END_TEST

/* scr_pkt: a packet with PTS and SCR (scr: its first byte) and data. */
static void scr_pkt(struct sink *s, uint8_t info, uint8_t scr, const char *data)
{
	uint8_t b[64] = { 12, (uint8_t)(info | UVC_STREAM_EOH | UVC_STREAM_PTS | UVC_STREAM_SCR) };
	b[6] = scr;
	size_t n = strlen(data);
	memcpy(b + 12, data, n);
	ck_assert_int_eq(uvc_assembler_packet(&s->a, b, 12 + n), 0);
}

/* With a metadata writer, each header that goes to a buffer becomes a
 * block (UVCH: a new SCR each), stamped with now_ns; the rest of a finished
 * frame (same FID, out of sync) and a stream with no buffer give none. */
START_TEST(headers_recorded_as_metadata)
{
	struct sink s;
	uint8_t meta[256];
	struct uvc_meta_writer w = { 0 };
	sink_init(&s, 100, true);
	s.a.meta = &w;
	uvc_meta_begin(&w, meta, sizeof(meta));
	s.a.now_ns = 3000000;
	scr_pkt(&s, 0, 1, "ab");
	scr_pkt(&s, 0, 1, "cd"); /* the same SCR: not kept */
	scr_pkt(&s, UVC_STREAM_EOF, 2, "ef");
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(w.used, 44);
	uint64_t ns;
	memcpy(&ns, meta, 8);
	ck_assert_uint_eq(ns, 3000000);
	ck_assert_uint_eq(meta[8], 3); /* sof: the 3rd millisecond */
	scr_pkt(&s, 0, 3, "gh"); /* same FID after EOF: out of sync */
	ck_assert_uint_eq(w.used, 44);
	scr_pkt(&s, UVC_STREAM_FID, 4, "ij"); /* the next frame */
	ck_assert_uint_eq(w.used, 66);
	sink_free(&s);

	sink_init(&s, 100, false); /* no buffer */
	s.a.meta = &w;
	uvc_meta_begin(&w, meta, sizeof(meta));
	scr_pkt(&s, 0, 5, "ab");
	scr_pkt(&s, UVC_STREAM_EOF, 6, "cd");
	ck_assert_uint_eq(w.used, 0);
	sink_free(&s);
}
END_TEST

/* A frame carries the caller's time of its first payload (uvcvideo's
 * start-of-frame stamp), not of the one that ends it. */
START_TEST(frame_stamped_at_its_first_payload)
{
	struct sink s;
	sink_init(&s, 100, true);
	s.a.now_ns = 1000;
	pkt(&s, 0, "ab");
	s.a.now_ns = 2000;
	pkt(&s, 0, "cd");
	s.a.now_ns = 3000;
	pkt(&s, UVC_STREAM_EOF, "e");
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.ev[0].start_ns, 1000);
	/* the next frame starts in the payload after, at its own time */
	s.a.now_ns = 4000;
	pkt(&s, UVC_STREAM_FID | UVC_STREAM_EOF, "f");
	ck_assert_uint_eq(s.ev[1].start_ns, 4000);
	sink_free(&s);
}
END_TEST

START_TEST(sync_rules)
{
	struct sink s;
	sink_init(&s, 100, true);
	/* Header-only payloads at start do not start a frame; the first data
	 * payload is accepted whatever its FID. */
	pkt(&s, UVC_STREAM_FID, "");
	pkt(&s, UVC_STREAM_FID, "xy");
	pkt(&s, UVC_STREAM_FID | UVC_STREAM_EOF, "z");
	check_frame(&s, 0, (const uint8_t *)"xyz", 3, 0, 0);
	/* After EOF, payloads with the same FID are skipped (out of sync). */
	pkt(&s, UVC_STREAM_FID, "late");
	pkt(&s, UVC_STREAM_FID | UVC_STREAM_EOF, "late");
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.a.stats.payloads_skipped, 2);
	pkt(&s, UVC_STREAM_EOF, "ok");
	check_frame(&s, 1, (const uint8_t *)"ok", 2, 1, 0);
	/* Reset: forget the FID, the same FID is accepted again. */
	uvc_assembler_reset(&s.a);
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	pkt(&s, UVC_STREAM_EOF, "re");
	check_frame(&s, 2, (const uint8_t *)"re", 2, 0, 0);
	sink_free(&s);
}
END_TEST

/* UVC_QUIRK_STREAM_NO_FID: a camera that never toggles FID. Without the
 * quirk only its first frame passes (the rest look like the tail of a
 * finished frame); with it each EOF ends a frame and the next payload
 * starts one, and an EOF among skipped payloads resynchronises. */
START_TEST(stream_no_fid)
{
	struct sink s;
	sink_init(&s, 100, true);
	pkt(&s, 0, "ab");
	pkt(&s, UVC_STREAM_EOF, "c");
	pkt(&s, 0, "de");
	pkt(&s, UVC_STREAM_EOF, "f");
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.a.stats.payloads_skipped, 2);
	sink_free(&s);

	sink_init(&s, 100, true);
	s.a.no_fid = true;
	pkt(&s, 0, "ab");
	pkt(&s, UVC_STREAM_EOF, "c");
	pkt(&s, 0, "de");
	pkt(&s, UVC_STREAM_EOF, "f");
	pkt(&s, UVC_STREAM_EOF, "g");
	ck_assert_uint_eq(s.n, 3);
	check_frame(&s, 0, (const uint8_t *)"abc", 3, 0, 0);
	check_frame(&s, 1, (const uint8_t *)"def", 3, 1, 0);
	check_frame(&s, 2, (const uint8_t *)"g", 1, 2, 0);
	ck_assert_uint_eq(s.a.stats.payloads_skipped, 0);
	/* a restart forgets the FID: the first payload after it is taken */
	uvc_assembler_reset(&s.a);
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	ck_assert(s.a.no_fid);
	pkt(&s, 0, "h");
	pkt(&s, UVC_STREAM_EOF, "i");
	check_frame(&s, 3, (const uint8_t *)"hi", 2, 0, 0);
	sink_free(&s);
}
END_TEST

START_TEST(err_flagged_or_dropped)
{
	struct sink s;
	sink_init(&s, 5000, true);
	struct vcam_payload p;
	vcam_payload_reset(&p, 0);
	uint8_t *f = make_frame(3000, 1);
	send_iso(&s, &p, f, 3000, 0, true, 1024, 1);
	check_frame(&s, 0, f, 3000, 0, UVC_ASM_ERR_DEVICE);
	send_iso(&s, &p, f, 3000, 1, false, 1024, 1);
	check_frame(&s, 1, f, 3000, 1, 0);
	ck_assert_uint_eq(s.a.stats.frames_error, 1);

	/* drop_errors: not delivered, its buffer serves the next frame. */
	s.a.drop_errors = true;
	uint8_t *spare = s.a.spare;
	send_iso(&s, &p, f, 3000, 2, true, 1024, 1);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.a.stats.frames_dropped, 1);
	ck_assert_ptr_eq(s.a.spare, spare);
	send_iso(&s, &p, f, 3000, 3, false, 1024, 1);
	check_frame(&s, 2, f, 3000, 3, 0);
	ck_assert_ptr_eq(s.ev[2].buf, spare);

	/* A spare was given meanwhile: handed back flagged DROPPED. */
	vcam_payload_start_frame(&p, f, 3000, 0, true);
	uint8_t b[1024];
	size_t n = vcam_payload_iso_packet(&p, b, sizeof(b), 0);
	ck_assert_int_eq(uvc_assembler_packet(&s.a, b, n), 0);
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	while (p.in_frame) {
		n = vcam_payload_iso_packet(&p, b, sizeof(b), 0);
		ck_assert_int_eq(uvc_assembler_packet(&s.a, b, n), 0);
	}
	ck_assert_uint_eq(s.n, 4);
	ck_assert_uint_eq(s.ev[3].flags, UVC_ASM_ERR_DEVICE | UVC_ASM_DROPPED);
	ck_assert_uint_eq(s.ev[3].bytesused, 0);
	free(f);
	sink_free(&s);
}
END_TEST

START_TEST(err_header_only_before_frame)
{
	struct sink s;
	sink_init(&s, 100, true);
	pkt(&s, UVC_STREAM_EOF, "a");
	pkt(&s, UVC_STREAM_ERR, ""); /* old FID: belongs to the finished frame */
	pkt(&s, UVC_STREAM_FID | UVC_STREAM_EOF, "b");
	check_frame(&s, 1, (const uint8_t *)"b", 1, 1, 0);
	pkt(&s, UVC_STREAM_ERR, ""); /* new FID ahead of its data */
	pkt(&s, UVC_STREAM_EOF, "c");
	check_frame(&s, 2, (const uint8_t *)"c", 1, 2, UVC_ASM_ERR_DEVICE);
	sink_free(&s);
}
END_TEST

START_TEST(overflow)
{
	struct sink s;
	sink_init(&s, 2500, true);
	struct vcam_payload p;
	vcam_payload_reset(&p, 4096);
	uint8_t *f = make_frame(6000, 3);
	send_bulk(&s, &p, f, 6000, 0, false, 1024);
	check_frame(&s, 0, f, 2500, 0, UVC_ASM_ERR_OVERFLOW);
	ck_assert_uint_eq(s.a.stats.bytes_overflow, 3500);
	send_bulk(&s, &p, f, 2500, 1, false, 1024);
	check_frame(&s, 1, f, 2500, 1, 0);
	free(f);
	sink_free(&s);
}
END_TEST

START_TEST(short_uncompressed)
{
	struct sink s;
	sink_init(&s, 4000, true);
	uvc_assembler_set_expected(&s.a, 3000);
	struct vcam_payload p;
	vcam_payload_reset(&p, 0);
	uint8_t *f = make_frame(3000, 4);
	send_iso(&s, &p, f, 2000, 0, false, 1024, 0);
	check_frame(&s, 0, f, 2000, 0, UVC_ASM_ERR_SIZE);
	send_iso(&s, &p, f, 3000, 1, false, 1024, 0);
	check_frame(&s, 1, f, 3000, 1, 0);
	/* Compressed: any size is fine. */
	uvc_assembler_set_expected(&s.a, 0);
	send_iso(&s, &p, f, 100, 2, false, 1024, 0);
	check_frame(&s, 2, f, 100, 2, 0);
	/* Short and dropped. */
	uvc_assembler_set_expected(&s.a, 3000);
	s.a.drop_errors = true;
	send_iso(&s, &p, f, 2999, 3, false, 1024, 0);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_uint_eq(s.a.stats.frames_dropped, 1);
	free(f);
	sink_free(&s);
}
END_TEST

START_TEST(no_buffer_dropped)
{
	struct sink s;
	sink_init(&s, 4000, false);
	struct vcam_payload p;
	vcam_payload_reset(&p, 0);
	uint8_t *f = make_frame(3000, 6);
	send_iso(&s, &p, f, 3000, 0, false, 1024, 1);
	send_iso(&s, &p, f, 3000, 1, false, 1024, 1);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_uint_eq(s.a.stats.frames_no_buffer, 2);
	/* A buffer given mid-frame waits for the next frame. */
	uint8_t b[1024];
	vcam_payload_start_frame(&p, f, 3000, 0, false);
	size_t n = vcam_payload_iso_packet(&p, b, sizeof(b), 0);
	ck_assert_int_eq(uvc_assembler_packet(&s.a, b, n), 0);
	uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	while (p.in_frame) {
		n = vcam_payload_iso_packet(&p, b, sizeof(b), 0);
		ck_assert_int_eq(uvc_assembler_packet(&s.a, b, n), 0);
	}
	ck_assert_uint_eq(s.n, 0);
	ck_assert_uint_eq(s.a.stats.frames_no_buffer, 3);
	send_iso(&s, &p, f, 3000, 3, false, 1024, 1);
	check_frame(&s, 0, f, 3000, 3, 0); /* sequence shows the 3 lost frames */
	free(f);
	sink_free(&s);
}
END_TEST

static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x >> 8;
}

/* Sends a frame with vcam faults as isochronous packets, the lost ones
 * reported as the stream engine reports them. */
static void send_iso_faulty(struct sink *s, struct vcam_payload *p, const uint8_t *f, size_t len,
			    unsigned seq, unsigned faults)
{
	uint8_t pkt[1024];
	uint64_t t = seq * NS_PER_FRAME;
	vcam_payload_start_frame(p, f, len, t, false);
	vcam_payload_set_faults(p, faults);
	while (p->in_frame) {
		t += 125000;
		size_t n = vcam_payload_iso_packet(p, pkt, sizeof(pkt), t);
		if (p->packet_status)
			uvc_assembler_packet_lost(&s->a);
		else
			uvc_assembler_packet(&s->a, pkt, n);
	}
	/* idle headers between frames, as the camera sends them */
	size_t n = vcam_payload_iso_packet(p, pkt, sizeof(pkt), t + 125000);
	ck_assert_int_eq(uvc_assembler_packet(&s->a, pkt, n), 0);
}

/* Each camera fault of the vcam in the second of four frames: the good
 * frames arrive intact; the faulty one is flagged errored, except where
 * uvcvideo keeps it whole (empty packets between its packets; no EOF, ended
 * by the next FID). Uncompressed (a size to check) and compressed (none). */
START_TEST(iso_camera_faults)
{
	const size_t len = 20000;
	for (int compressed = 0; compressed < 2; compressed++)
		for (unsigned fault = VCAM_FAULT_HEADER0; fault <= VCAM_FAULT_ISO_ERROR; fault <<= 1) {
			if (compressed && (fault == VCAM_FAULT_SHORT || fault == VCAM_FAULT_FID_TOGGLE))
				continue; /* a short JPEG is the decoder's to find */
			struct sink s;
			sink_init(&s, len, true); /* buffers of dwMaxVideoFrameSize */
			if (!compressed)
				uvc_assembler_set_expected(&s.a, len);
			struct vcam_payload p;
			vcam_payload_reset(&p, 0);
			uint8_t *f[4];
			for (unsigned k = 0; k < 4; k++) {
				f[k] = make_frame(len, k);
				send_iso_faulty(&s, &p, f[k], len, k, k == 1 ? fault : 0);
				sink_drain(&s);
			}
			bool kept = fault == VCAM_FAULT_ZLP || fault == VCAM_FAULT_NO_EOF;
			unsigned intact[4] = { 0 }, errored = 0;
			for (unsigned i = 0; i < s.n; i++) {
				if (s.ev[i].error) {
					errored++;
					continue;
				}
				for (unsigned k = 0; k < 4; k++)
					if (s.ev[i].bytesused == len && memcmp(s.data[i], f[k], len) == 0)
						intact[k]++;
			}
			const char *name = vcam_payload_fault_name(fault);
			ck_assert_msg(intact[0] == 1 && intact[2] == 1 && intact[3] == 1,
				      "%s: good frames lost", name);
			ck_assert_msg(intact[1] == kept, "%s (compressed %d): faulty frame %s", name,
				      compressed, kept ? "lost" : "delivered as intact");
			ck_assert_msg(kept ? errored == 0 : errored >= 1, "%s: %u errored", name, errored);
			for (unsigned k = 0; k < 4; k++)
				free(f[k]);
			sink_free(&s);
		}
}
END_TEST

/* A packet lost between two frames marks the frame that comes next, as
 * uvcvideo marks the buffer waiting for data; the one before stays good. */
START_TEST(packet_lost_between_frames)
{
	const size_t len = 5000;
	struct sink s;
	sink_init(&s, len, true);
	struct vcam_payload p;
	vcam_payload_reset(&p, 0);
	uint8_t *f0 = make_frame(len, 0), *f1 = make_frame(len, 1), *f2 = make_frame(len, 2);
	send_iso(&s, &p, f0, len, 0, false, 1024, 1);
	uvc_assembler_packet_lost(&s.a);
	send_iso(&s, &p, f1, len, 1, false, 1024, 1);
	send_iso(&s, &p, f2, len, 2, false, 1024, 1);
	ck_assert_uint_eq(s.n, 3);
	check_frame(&s, 0, f0, len, 0, 0);
	ck_assert(s.ev[1].error);
	ck_assert(s.ev[1].flags & UVC_ASM_ERR_LOST);
	check_frame(&s, 2, f2, len, 2, 0);
	ck_assert_uint_eq(s.a.stats.packets_lost, 1);
	free(f0);
	free(f1);
	free(f2);
	sink_free(&s);
}
END_TEST

START_TEST(garbage_never_crashes)
{
	struct sink s;
	sink_init(&s, 300, true);
	uvc_assembler_set_expected(&s.a, 200);
	uint32_t x = 12345;
	uint8_t b[600];
	for (int round = 0; round < 20000; round++) {
		size_t len = lcg(&x) % sizeof(b);
		for (size_t i = 0; i < len; i++)
			b[i] = (uint8_t)lcg(&x);
		/* Mostly plausible headers, so frames do get assembled. */
		if (len && lcg(&x) % 4)
			b[0] = (uint8_t)(2 + lcg(&x) % 14);
		if (round % 500 == 0)
			s.a.drop_errors = !s.a.drop_errors;
		sink_drain(&s);
		if (lcg(&x) % 2)
			(void)uvc_assembler_packet(&s.a, b, len);
		else
			(void)uvc_assembler_bulk(&s.a, b, len, lcg(&x) % 3 == 0);
		if (lcg(&x) % 50 == 0)
			uvc_assembler_set_buffer(&s.a, NULL, 0);
		if (lcg(&x) % 40 == 0)
			uvc_assembler_set_buffer(&s.a, s.bufs[0], s.cap);
	}
	for (unsigned i = 0; i < s.n; i++)
		ck_assert_uint_le(s.ev[i].bytesused, s.cap);
	ck_assert_uint_gt(s.a.stats.frames_delivered, 0);
	ck_assert_uint_gt(s.a.stats.payloads_invalid, 0);

	/* Every truncation of a real vcam packet. */
	struct vcam_payload p;
	vcam_payload_reset(&p, 0);
	uint8_t *f = make_frame(500, 9);
	vcam_payload_start_frame(&p, f, 500, 0, false);
	size_t n = vcam_payload_iso_packet(&p, b, sizeof(b), 0);
	(void)uvc_assembler_bulk(&s.a, NULL, 0, true); /* end the fuzz's payload */
	for (size_t cut = 0; cut <= n; cut++) {
		uint8_t *c = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
		ck_assert_ptr_nonnull(c);
		memcpy(c, b, cut);
		sink_drain(&s);
		int r = uvc_assembler_packet(&s.a, c, cut);
		ck_assert_int_eq(r, cut == 0 || cut >= 12 ? 0 : -EINVAL);
		r = uvc_assembler_bulk(&s.a, c, cut, true);
		ck_assert_int_eq(r, cut == 0 || cut >= 12 ? 0 : -EINVAL);
		free(c);
	}
	free(f);
	sink_free(&s);
}
END_TEST

static Suite *payload_suite(void)
{
	Suite *s = suite_create("uvc-payload");
	TCase *t = tcase_create("parse");
	tcase_add_test(t, parse_corpus_realtek_mjpeg);
	tcase_add_test(t, parse_corpus_bulk_yuyv);
	tcase_add_test(t, parse_layouts);
	tcase_add_test(t, parse_malformed);
	suite_add_tcase(s, t);
	t = tcase_create("assemble");
	tcase_add_loop_test(t, iso_frames_exact, 0, sizeof(iso_rooms) / sizeof(iso_rooms[0]));
	tcase_add_loop_test(t, bulk_frames_exact, 0, sizeof(bulk_cases) / sizeof(bulk_cases[0]));
	tcase_add_test(t, bulk_header_split);
	tcase_add_test(t, bulk_bad_header_between_frames);
	tcase_add_test(t, fid_toggle_without_eof);
	tcase_add_test(t, header_too_short_for_its_timestamps);
	tcase_add_test(t, frame_stamped_at_its_first_payload);
	tcase_add_test(t, scr_sampled_per_transfer);
	tcase_add_test(t, headers_recorded_as_metadata);
	tcase_add_test(t, sync_rules);
	tcase_add_test(t, stream_no_fid);
	tcase_add_test(t, err_flagged_or_dropped);
	tcase_add_test(t, err_header_only_before_frame);
	tcase_add_test(t, overflow);
	tcase_add_test(t, short_uncompressed);
	tcase_add_test(t, no_buffer_dropped);
	tcase_add_test(t, garbage_never_crashes);
	tcase_add_test(t, iso_camera_faults);
	tcase_add_test(t, packet_lost_between_frames);
	tcase_add_test(t, buffer_moved_mid_frame);
	tcase_add_test(t, mirror_written_beside_the_buffer);
	tcase_add_test(t, mirror_kept_with_a_dropped_frame);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return unit_run(payload_suite());
}

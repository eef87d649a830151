/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Payload headers as metadata blocks (src/uvc/metadata.c): what UVCH and
 * UVCM keep of a header, the SCR rule, a full buffer, the block's bytes. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include <linux/usb/video.h>
#include <linux/uvcvideo.h>

#include "unit_run.h"
#include "uvc/descriptors.h"
#include "uvc/metadata.h"

#define NS 1234567890123ull

/* A packet: bLength, bmHeaderInfo, then bytes 2.. of the header counting
 * up from 0xa0, then two data bytes. */
static size_t packet(uint8_t *p, uint8_t length, uint8_t info)
{
	p[0] = length;
	p[1] = info | UVC_STREAM_EOH;
	for (uint8_t i = 2; i < length; i++)
		p[i] = (uint8_t)(0xa0 + i);
	p[length] = p[length + 1] = 0x55;
	return (size_t)length + 2;
}

static const struct uvc_meta_buf *block_at(const uint8_t *buf, size_t at)
{
	return (const struct uvc_meta_buf *)(const void *)(buf + at);
}

/* UVCH: a header with PTS and SCR and 4 vendor bytes becomes a block of
 * the standard 12 bytes, its length field still 16; the same SCR again is
 * left out; a header without SCR is left out; a new SCR is kept. */
START_TEST(uvch_keeps_new_scr_standard_part)
{
	uint8_t buf[256], p[64];
	struct uvc_meta_writer w = { 0 };
	uvc_meta_begin(&w, buf, sizeof(buf));
	size_t n = packet(p, 16, UVC_STREAM_PTS | UVC_STREAM_SCR);
	ck_assert_uint_eq(uvc_meta_header(&w, p, n, NS, 77), 22);
	const struct uvc_meta_buf *b = block_at(buf, 0);
	uint64_t ns;
	uint16_t sof;
	memcpy(&ns, &b->ns, 8);
	memcpy(&sof, &b->sof, 2);
	ck_assert_uint_eq(ns, NS);
	ck_assert_uint_eq(sof, 77);
	ck_assert_uint_eq(b->length, 16);
	ck_assert_uint_eq(b->flags, p[1]);
	ck_assert_mem_eq(b->buf, p + 2, 10);
	ck_assert_uint_eq(uvc_meta_header(&w, p, n, NS + 1, 78), 0); /* same SCR */
	n = packet(p, 6, UVC_STREAM_PTS);
	ck_assert_uint_eq(uvc_meta_header(&w, p, n, NS, 78), 0); /* no SCR */
	n = packet(p, 12, UVC_STREAM_PTS | UVC_STREAM_SCR);
	p[7] ^= 1;
	ck_assert_uint_eq(uvc_meta_header(&w, p, n, NS, 79), 22);
	ck_assert_uint_eq(w.used, 44);
	ck_assert(!w.error);
}
END_TEST

/* A two-byte header is never kept, whatever the format. */
START_TEST(bare_header_never_kept)
{
	uint8_t buf[64], p[8];
	struct uvc_meta_writer w = { .whole_headers = true };
	uvc_meta_begin(&w, buf, sizeof(buf));
	ck_assert_uint_eq(uvc_meta_header(&w, p, packet(p, 2, UVC_STREAM_EOF), NS, 0), 0);
	ck_assert_uint_eq(w.used, 0);
}
END_TEST

/* UVCM keeps the whole header: vendor bytes (Microsoft's metadata items)
 * make a header worth keeping even with the SCR unchanged. */
/* The camera's MSXU: the extension unit of Microsoft's GUID, not another
 * one's, not a unit of another kind with that GUID's bytes. */
START_TEST(msxu_unit_found_by_its_guid)
{
	struct uvc_entity e[3] = { { .kind = UVC_ENTITY_EXTENSION_UNIT, .id = 3 },
				   { .kind = UVC_ENTITY_PROCESSING_UNIT, .id = 4 },
				   { .kind = UVC_ENTITY_EXTENSION_UNIT, .id = 6 } };
	struct uvc_camera cam = { .n_entities = 3, .entities = e };
	memcpy(e[1].guid, uvc_msxu_guid, 16);
	ck_assert_ptr_null(uvc_meta_msxu_unit(&cam));
	memcpy(e[2].guid, uvc_msxu_guid, 16);
	ck_assert_ptr_eq(uvc_meta_msxu_unit(&cam), &e[2]);
	ck_assert_uint_eq(uvc_msxu_guid[0], 0xdc); /* {0f3f95dc-...}: little-endian groups */
	ck_assert_uint_eq(uvc_msxu_guid[15], 0xc8);
}
END_TEST

START_TEST(uvcm_keeps_whole_headers)
{
	uint8_t buf[256], p[64];
	struct uvc_meta_writer w = { .whole_headers = true };
	uvc_meta_begin(&w, buf, sizeof(buf));
	size_t n = packet(p, 40, UVC_STREAM_PTS | UVC_STREAM_SCR);
	ck_assert_uint_eq(uvc_meta_header(&w, p, n, NS, 1), 50);
	ck_assert_uint_eq(uvc_meta_header(&w, p, n, NS, 2), 50);
	ck_assert_mem_eq(block_at(buf, 50)->buf, p + 2, 38);
	n = packet(p, 12, UVC_STREAM_PTS | UVC_STREAM_SCR); /* no vendor bytes, same SCR */
	ck_assert_uint_eq(uvc_meta_header(&w, p, n, NS, 3), 0);
}
END_TEST

/* A block that does not fit marks the buffer errored and is left out; a
 * smaller one after it may still fit. A new buffer starts clean. */
START_TEST(full_buffer_errored)
{
	uint8_t buf[48], p[64];
	struct uvc_meta_writer w = { .whole_headers = true };
	uvc_meta_begin(&w, buf, sizeof(buf));
	ck_assert_uint_eq(uvc_meta_header(&w, p, packet(p, 24, UVC_STREAM_SCR), NS, 0), 34);
	size_t n = packet(p, 8, UVC_STREAM_SCR);
	p[3] ^= 1; /* a new SCR: 18 bytes, 14 left */
	ck_assert_uint_eq(uvc_meta_header(&w, p, n, NS, 0), 0);
	ck_assert(w.error);
	ck_assert_uint_eq(uvc_meta_header(&w, p, packet(p, 4, 0), NS, 0), 14); /* fits */
	ck_assert_uint_eq(w.used, 48);
	uvc_meta_begin(&w, buf, sizeof(buf));
	ck_assert(!w.error);
	ck_assert_uint_eq(w.used, 0);
}
END_TEST

/* Flags that announce a PTS and SCR the header has no room for (a real
 * camera sends 3-byte headers with SCR set): UVCH's block takes the
 * packet's bytes and never reads past the packet. */
START_TEST(short_header_read_within_packet)
{
	uint8_t buf[64], p[4] = { 3, UVC_STREAM_EOH | UVC_STREAM_SCR, 0x35, 0x99 };
	struct uvc_meta_writer w = { 0 };
	uvc_meta_begin(&w, buf, sizeof(buf));
	ck_assert_uint_eq(uvc_meta_header(&w, p, 3, NS, 0), 18);
	const struct uvc_meta_buf *b = block_at(buf, 0);
	ck_assert_uint_eq(b->length, 3);
	ck_assert_uint_eq(b->buf[0], 0x35);
	for (int i = 1; i < 6; i++)
		ck_assert_uint_eq(b->buf[i], 0);
}
END_TEST

/* No buffer: nothing kept, nothing written. */
START_TEST(no_buffer_nothing_kept)
{
	uint8_t p[16];
	struct uvc_meta_writer w = { 0 };
	uvc_meta_begin(&w, NULL, 100);
	ck_assert_uint_eq(uvc_meta_header(&w, p, packet(p, 12, UVC_STREAM_SCR | UVC_STREAM_PTS), NS, 0),
			  0);
	ck_assert(!w.error);
}
END_TEST

START_TEST(sof_is_a_1khz_count_of_11_bits)
{
	ck_assert_uint_eq(uvc_meta_sof_of(0), 0);
	ck_assert_uint_eq(uvc_meta_sof_of(2047999999ull), 2047);
	ck_assert_uint_eq(uvc_meta_sof_of(2048000000ull), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uvc-metadata");
	TCase *t = tcase_create("metadata");
	tcase_add_test(t, uvch_keeps_new_scr_standard_part);
	tcase_add_test(t, bare_header_never_kept);
	tcase_add_test(t, uvcm_keeps_whole_headers);
	tcase_add_test(t, msxu_unit_found_by_its_guid);
	tcase_add_test(t, full_buffer_errored);
	tcase_add_test(t, short_header_read_within_packet);
	tcase_add_test(t, no_buffer_nothing_kept);
	tcase_add_test(t, sof_is_a_1khz_count_of_11_bits);
	suite_add_tcase(s, t);
	return unit_run(s);
}

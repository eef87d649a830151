/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/uvc/status.c: status interrupt packets as uvcvideo 6.1 reads them
 * (uvc_status.c), including every short and malformed form, from buffers
 * of exactly the packet's size (ASan catches a read beyond it). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "uvc/status.h"
#include "unit_run.h"

/* Parses a copy of the bytes in a buffer of exactly their size. */
static enum uvc_status_kind parse(const uint8_t *bytes, size_t len, struct uvc_status *s,
				  uint8_t **keep)
{
	uint8_t *p = len ? malloc(len) : NULL;
	if (len)
		memcpy(p, bytes, len);
	enum uvc_status_kind k = uvc_status_parse(p, len, s);
	*keep = p;
	return k;
}

START_TEST(control_change)
{
	/* the vcam's white balance temperature 4650 K: PU 2, selector 6 */
	const uint8_t pkt[] = { 0x01, 2, 0, 0x06, 0, 0x2a, 0x12 };
	struct uvc_status s;
	uint8_t *p;
	ck_assert_int_eq(parse(pkt, sizeof(pkt), &s, &p), UVC_STATUS_CONTROL);
	ck_assert_uint_eq(s.type, 1);
	ck_assert_uint_eq(s.originator, 2);
	ck_assert_uint_eq(s.selector, 6);
	ck_assert_uint_eq(s.attribute, UVC_STATUS_ATTR_VALUE);
	ck_assert_uint_eq(s.value_len, 2);
	ck_assert_uint_eq(s.value[0] | s.value[1] << 8, 4650);
	ck_assert_int_eq(s.malformed, 0);
	char line[128];
	uvc_status_describe(&s, line, sizeof(line));
	ck_assert_str_eq(line, "control 2/6 value change, 2 value bytes: 2a 12");
	/* a tiny buffer still ends in NUL */
	uvc_status_describe(&s, line, 8);
	ck_assert_uint_eq(strlen(line), 7);
	free(p);

	/* high nibble of bStatusType is ignored, as uvcvideo masks it */
	const uint8_t hi[] = { 0xf1, 1, 0, 18, 1, 0x03 };
	ck_assert_int_eq(parse(hi, sizeof(hi), &s, &p), UVC_STATUS_CONTROL);
	ck_assert_uint_eq(s.attribute, UVC_STATUS_ATTR_INFO);
	ck_assert_str_eq(uvc_status_attribute_name(s.attribute), "info");
	ck_assert_uint_eq(s.value_len, 1);
	free(p);
	/* every attribute up to max; above it the packet is invalid */
	for (uint8_t a = 0; a <= 5; a++) {
		const uint8_t at[] = { 1, 2, 0, 3, a, 9 };
		ck_assert_int_eq(parse(at, sizeof(at), &s, &p),
				 a <= UVC_STATUS_ATTR_MAX ? UVC_STATUS_CONTROL : UVC_STATUS_IGNORED);
		if (a > UVC_STATUS_ATTR_MAX) {
			ck_assert_int_eq(s.malformed, 1);
			ck_assert_str_eq(uvc_status_attribute_name(a), "?");
		}
		free(p);
	}
	ck_assert_str_eq(uvc_status_attribute_name(UVC_STATUS_ATTR_MAX), "max");
}
END_TEST

START_TEST(control_malformed)
{
	struct uvc_status s;
	uint8_t *p;
	const uint8_t full[] = { 1, 2, 0, 6, 0, 0x2a, 0x12 };
	/* fewer than 6 bytes: no value byte (uvcvideo: len < 6 invalid) */
	for (size_t len = 1; len < 6; len++) {
		ck_assert_int_eq(parse(full, len, &s, &p), UVC_STATUS_IGNORED);
		ck_assert_int_eq(s.malformed, 1);
		ck_assert_ptr_nonnull(s.why);
		ck_assert_ptr_null(s.value);
		free(p);
	}
	/* bEvent other than 0 */
	const uint8_t ev[] = { 1, 2, 1, 6, 0, 0x2a };
	ck_assert_int_eq(parse(ev, sizeof(ev), &s, &p), UVC_STATUS_IGNORED);
	ck_assert_int_eq(s.malformed, 1);
	char line[128];
	uvc_status_describe(&s, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "ignored"));
	free(p);
	/* nothing at all: a valid empty completion, not malformed */
	ck_assert_int_eq(parse(NULL, 0, &s, &p), UVC_STATUS_IGNORED);
	ck_assert_int_eq(s.malformed, 0);
	ck_assert_int_eq(uvc_status_parse(NULL, 5, &s), UVC_STATUS_IGNORED);
	/* unknown types (0, 3..15) */
	for (uint8_t t = 0; t < 16; t++) {
		if (t == 1 || t == 2)
			continue;
		const uint8_t u[] = { t, 2, 0, 6, 0, 1 };
		ck_assert_int_eq(parse(u, sizeof(u), &s, &p), UVC_STATUS_IGNORED);
		ck_assert_int_eq(s.malformed, 1);
		free(p);
	}
}
END_TEST

START_TEST(streaming)
{
	struct uvc_status s;
	uint8_t *p;
	const uint8_t press[] = { 2, 1, 0, 1 };
	ck_assert_int_eq(parse(press, sizeof(press), &s, &p), UVC_STATUS_BUTTON);
	ck_assert_uint_eq(s.originator, 1);
	ck_assert_uint_eq(s.pressed, 1);
	char line[128];
	uvc_status_describe(&s, line, sizeof(line));
	ck_assert_str_eq(line, "button (interface 1) pressed");
	free(p);
	const uint8_t release[] = { 2, 1, 0, 0 };
	ck_assert_int_eq(parse(release, sizeof(release), &s, &p), UVC_STATUS_BUTTON);
	ck_assert_uint_eq(s.pressed, 0);
	free(p);
	/* a button without its value; a streaming packet under 3 bytes */
	ck_assert_int_eq(parse(press, 3, &s, &p), UVC_STATUS_IGNORED);
	ck_assert_int_eq(s.malformed, 1);
	free(p);
	ck_assert_int_eq(parse(press, 2, &s, &p), UVC_STATUS_IGNORED);
	free(p);
	/* other events: stream errors, value optional */
	const uint8_t err[] = { 2, 1, 1 };
	ck_assert_int_eq(parse(err, sizeof(err), &s, &p), UVC_STATUS_STREAM_ERROR);
	ck_assert_uint_eq(s.event, 1);
	ck_assert_uint_eq(s.value_len, 0);
	uvc_status_describe(&s, line, sizeof(line));
	ck_assert_str_eq(line, "stream 1 error event 0x01");
	free(p);
}
END_TEST

/* Random packets of every length up to 64: the parser answers, stays
 * inside the buffer, and what it accepts is consistent. */
START_TEST(random_packets)
{
	unsigned seed = 12345;
	for (unsigned round = 0; round < 20000; round++) {
		uint8_t bytes[64];
		size_t len = round % 65;
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			bytes[i] = (uint8_t)(seed >> 16);
		}
		if (len && round % 3 == 0)
			bytes[0] = (uint8_t)(1 + round % 2); /* mostly valid types */
		struct uvc_status s;
		uint8_t *p;
		enum uvc_status_kind k = parse(bytes, len, &s, &p);
		char line[160];
		uvc_status_describe(&s, line, sizeof(line));
		ck_assert_uint_lt(strlen(line), sizeof(line));
		switch (k) {
		case UVC_STATUS_CONTROL:
			ck_assert_uint_ge(len, 6);
			ck_assert_uint_eq(s.value_len, len - 5);
			ck_assert_ptr_eq(s.value, p + 5);
			ck_assert_uint_le(s.attribute, UVC_STATUS_ATTR_MAX);
			break;
		case UVC_STATUS_BUTTON:
			ck_assert_uint_ge(len, 4);
			break;
		case UVC_STATUS_STREAM_ERROR:
			ck_assert_uint_ge(len, 3);
			ck_assert_uint_ne(s.event, 0);
			break;
		default:
			ck_assert_ptr_nonnull(s.why);
			break;
		}
		free(p);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uvc-status");
	TCase *tc = tcase_create("status");
	tcase_add_test(tc, control_change);
	tcase_add_test(tc, control_malformed);
	tcase_add_test(tc, streaming);
	tcase_add_test(tc, random_packets);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

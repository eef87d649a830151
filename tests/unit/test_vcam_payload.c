/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Payloads as uvcvideo reads them: headers, FID/EOF/ERR, packet sizes,
 * and the bulk payload ends (short transfer, full size, or a ZLP). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#include "payload.h"
#include "unit_run.h"

static uint8_t frame[100000];

static void fill_frame(size_t len)
{
	for (size_t i = 0; i < len; i++)
		frame[i] = (uint8_t)(i * 7 + 3);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A frame with Microsoft's metadata: every header of it is 28 bytes, its
 * item (Id, Size, the frame's sequence) after the standard 12; the frame's
 * bytes all arrive after the longer headers; the next frame without it is
 * back to 12. */
START_TEST(msxu_item_in_each_header)
{
	struct vcam_payload p;
	uint8_t pkt[1024], got[5000];
	size_t len = 5000, pos = 0;
	fill_frame(len);
	vcam_payload_reset(&p, sizeof(pkt));
	vcam_payload_start_frame(&p, frame, len, 1000000000ull, false);
	vcam_payload_set_msxu(&p, 77);
	while (p.in_frame) {
		size_t n = vcam_payload_iso_packet(&p, pkt, sizeof(pkt), 2000000000ull);
		ck_assert_uint_eq(pkt[0], VCAM_PAYLOAD_HEADER + VCAM_MSXU_ITEM);
		ck_assert_uint_eq(get32(pkt + 12), VCAM_MSXU_ITEM_ID);
		ck_assert_uint_eq(get32(pkt + 16), VCAM_MSXU_ITEM);
		ck_assert_uint_eq(get32(pkt + 20), 77);
		ck_assert_uint_eq(get32(pkt + 2), vcam_payload_clock(1000000000ull));
		memcpy(got + pos, pkt + pkt[0], n - pkt[0]);
		pos += n - pkt[0];
	}
	ck_assert_uint_eq(pos, len);
	ck_assert_mem_eq(got, frame, len);
	vcam_payload_start_frame(&p, frame, len, 0, false);
	vcam_payload_iso_packet(&p, pkt, sizeof(pkt), 0);
	ck_assert_uint_eq(pkt[0], VCAM_PAYLOAD_HEADER);
}
END_TEST

START_TEST(iso_packets_carry_a_frame_then_headers)
{
	struct vcam_payload p;
	uint8_t pkt[3072], got[100000];
	size_t len = 10000, pos = 0;
	fill_frame(len);
	vcam_payload_reset(&p, 3072);
	vcam_payload_start_frame(&p, frame, len, 1000000000ull, false);
	unsigned packets = 0;
	while (p.in_frame) {
		size_t n = vcam_payload_iso_packet(&p, pkt, sizeof(pkt), 2000000000ull);
		ck_assert_uint_ge(n, VCAM_PAYLOAD_HEADER);
		ck_assert_uint_le(n, sizeof(pkt));
		ck_assert_uint_eq(pkt[0], VCAM_PAYLOAD_HEADER);
		ck_assert(pkt[1] & UVC_STREAM_EOH);
		ck_assert(pkt[1] & UVC_STREAM_FID);
		ck_assert(pkt[1] & UVC_STREAM_PTS);
		ck_assert(pkt[1] & UVC_STREAM_SCR);
		ck_assert(!(pkt[1] & UVC_STREAM_ERR));
		ck_assert_uint_eq(get32(pkt + 2), vcam_payload_clock(1000000000ull));
		ck_assert_uint_eq(get32(pkt + 6), vcam_payload_clock(2000000000ull));
		bool last = pos + n - VCAM_PAYLOAD_HEADER == len;
		ck_assert_uint_eq(!!(pkt[1] & UVC_STREAM_EOF), last);
		memcpy(got + pos, pkt + VCAM_PAYLOAD_HEADER, n - VCAM_PAYLOAD_HEADER);
		pos += n - VCAM_PAYLOAD_HEADER;
		packets++;
	}
	ck_assert_uint_eq(pos, len);
	ck_assert_mem_eq(got, frame, len);
	ck_assert_uint_eq(packets, (len + 3059) / 3060);
	ck_assert_uint_eq(p.frames_done, 1);

	/* between frames: header only, same FID, no EOF */
	size_t n = vcam_payload_iso_packet(&p, pkt, sizeof(pkt), 3000000000ull);
	ck_assert_uint_eq(n, VCAM_PAYLOAD_HEADER);
	ck_assert(pkt[1] & UVC_STREAM_FID);
	ck_assert(!(pkt[1] & UVC_STREAM_EOF));

	/* next frame toggles FID; an injected error shows with EOF only */
	vcam_payload_start_frame(&p, frame, 5000, 0, true);
	n = vcam_payload_iso_packet(&p, pkt, 1024, 0);
	ck_assert_uint_eq(n, 1024);
	ck_assert(!(pkt[1] & UVC_STREAM_FID));
	ck_assert(!(pkt[1] & (UVC_STREAM_ERR | UVC_STREAM_EOF)));
	while (p.in_frame)
		n = vcam_payload_iso_packet(&p, pkt, 1024, 0);
	ck_assert(pkt[1] & UVC_STREAM_EOF);
	ck_assert(pkt[1] & UVC_STREAM_ERR);
}
END_TEST

START_TEST(iso_packet_smaller_than_header_is_empty)
{
	struct vcam_payload p;
	uint8_t pkt[16];
	fill_frame(100);
	vcam_payload_reset(&p, 3072);
	vcam_payload_start_frame(&p, frame, 100, 0, false);
	ck_assert_uint_eq(vcam_payload_iso_packet(&p, pkt, 11, 0), 0);
	ck_assert(p.in_frame);
}
END_TEST

/* Reads one bulk payload from successive URBs as uvcvideo does: it ends at a
 * short URB or when max_payload bytes arrived. */
static size_t read_bulk_payload(struct vcam_payload *p, size_t urb, uint8_t *hdr, uint8_t *data)
{
	uint8_t buf[20000];
	size_t total = 0, data_len = 0;
	for (;;) {
		long n = vcam_payload_bulk_urb(p, buf, urb, 0);
		ck_assert_int_ge(n, 0);
		if (total == 0) {
			ck_assert_int_ge(n, VCAM_PAYLOAD_HEADER);
			memcpy(hdr, buf, VCAM_PAYLOAD_HEADER);
			memcpy(data, buf + VCAM_PAYLOAD_HEADER, (size_t)n - VCAM_PAYLOAD_HEADER);
			data_len = (size_t)n - VCAM_PAYLOAD_HEADER;
		} else {
			memcpy(data + data_len, buf, (size_t)n);
			data_len += (size_t)n;
		}
		total += (size_t)n;
		if ((size_t)n < urb || total >= p->max_payload)
			return data_len;
	}
}

START_TEST(bulk_whole_frame_payload)
{
	struct vcam_payload p;
	uint8_t hdr[12], data[100000];
	size_t len = 50000;
	fill_frame(len);
	vcam_payload_reset(&p, len + VCAM_PAYLOAD_HEADER);
	vcam_payload_start_frame(&p, frame, len, 0, false);
	size_t got = read_bulk_payload(&p, 16384, hdr, data);
	ck_assert_uint_eq(got, len);
	ck_assert_mem_eq(data, frame, len);
	ck_assert(hdr[1] & UVC_STREAM_EOF);
	ck_assert(!p.in_frame);
	uint8_t buf[16];
	ck_assert_int_eq(vcam_payload_bulk_urb(&p, buf, sizeof(buf), 0), -1);
}
END_TEST

START_TEST(bulk_payload_ending_on_a_full_urb_gets_a_zlp)
{
	struct vcam_payload p;
	uint8_t hdr[12], data[100000];
	size_t len = 2 * 16384 - VCAM_PAYLOAD_HEADER; /* header + data = two full URBs */
	fill_frame(len);
	vcam_payload_reset(&p, 200000); /* a larger maximum, as for MJPEG */
	vcam_payload_start_frame(&p, frame, len, 0, false);
	uint8_t buf[16384];
	ck_assert_int_eq(vcam_payload_bulk_urb(&p, buf, sizeof(buf), 0), 16384);
	ck_assert_int_eq(vcam_payload_bulk_urb(&p, buf, sizeof(buf), 0), 16384);
	ck_assert_int_eq(vcam_payload_bulk_urb(&p, buf, sizeof(buf), 0), 0);
	ck_assert_int_eq(vcam_payload_bulk_urb(&p, buf, sizeof(buf), 0), -1);
	(void)hdr;
	(void)data;
}
END_TEST

START_TEST(bulk_frame_split_over_payloads)
{
	struct vcam_payload p;
	uint8_t hdr[12], data[100000], all[100000];
	size_t len = 30000, pos = 0;
	fill_frame(len);
	vcam_payload_reset(&p, 8192);
	vcam_payload_start_frame(&p, frame, len, 0, false);
	unsigned payloads = 0;
	while (p.in_frame) {
		size_t n = read_bulk_payload(&p, 4096, hdr, data);
		memcpy(all + pos, data, n);
		pos += n;
		payloads++;
		ck_assert(hdr[1] & UVC_STREAM_FID);
		ck_assert_uint_eq(!!(hdr[1] & UVC_STREAM_EOF), pos == len);
	}
	ck_assert_uint_eq(pos, len);
	ck_assert_mem_eq(all, frame, len);
	ck_assert_uint_eq(payloads, (len + 8179) / 8180);
}
END_TEST

/* What one faulty frame's packets look like on the wire. */
struct fault_trace {
	size_t data, packets, empty, errored, bad_header, eof;
	unsigned fid_changes;
};

static struct fault_trace send_faulty(unsigned faults, size_t len)
{
	struct vcam_payload p;
	uint8_t pkt[1024];
	struct fault_trace t = { 0 };
	fill_frame(len);
	vcam_payload_reset(&p, 1024);
	vcam_payload_start_frame(&p, frame, len, 0, false);
	vcam_payload_set_faults(&p, faults);
	int fid = -1;
	while (p.in_frame && t.packets < 1000) {
		size_t n = vcam_payload_iso_packet(&p, pkt, sizeof(pkt), 0);
		t.packets++;
		if (p.packet_status) {
			ck_assert_int_eq(p.packet_status, -71);
			ck_assert_uint_eq(n, 0);
			t.errored++;
			continue;
		}
		if (n == 0) {
			t.empty++;
			continue;
		}
		if (pkt[0] != VCAM_PAYLOAD_HEADER) {
			ck_assert(pkt[0] < 2 || pkt[0] > n);
			t.bad_header++;
			continue; /* what a host reads of it: nothing */
		}
		t.data += n - VCAM_PAYLOAD_HEADER;
		t.eof += !!(pkt[1] & UVC_STREAM_EOF);
		int f = !!(pkt[1] & UVC_STREAM_FID);
		t.fid_changes += fid >= 0 && f != fid;
		fid = f;
	}
	ck_assert(!p.in_frame);
	return t;
}

START_TEST(iso_faults_shape_the_packets)
{
	size_t len = 20000, per = 1024 - VCAM_PAYLOAD_HEADER;
	struct fault_trace t = send_faulty(0, len);
	ck_assert_uint_eq(t.data, len);
	ck_assert_uint_eq(t.eof, 1);
	ck_assert_uint_eq(t.bad_header + t.empty + t.errored + t.fid_changes, 0);
	/* one packet with a header a host must refuse: its bytes are lost */
	for (unsigned f = VCAM_FAULT_HEADER0; f <= VCAM_FAULT_HEADER_LONG; f <<= 1) {
		t = send_faulty(f, len);
		ck_assert_uint_eq(t.bad_header, 1);
		ck_assert_uint_lt(t.data, len);
		ck_assert_uint_eq(t.eof, 1);
	}
	t = send_faulty(VCAM_FAULT_NO_EOF, len);
	ck_assert_uint_eq(t.data, len);
	ck_assert_uint_eq(t.eof, 0);
	t = send_faulty(VCAM_FAULT_FID_TOGGLE, len);
	ck_assert_uint_eq(t.data, len);
	ck_assert_uint_eq(t.fid_changes, 1);
	t = send_faulty(VCAM_FAULT_OVERSIZE, len);
	ck_assert_uint_eq(t.data, len + VCAM_FAULT_OVERSIZE_BYTES);
	t = send_faulty(VCAM_FAULT_SHORT, len);
	ck_assert_uint_eq(t.data, len / 2);
	ck_assert_uint_eq(t.eof, 1);
	t = send_faulty(VCAM_FAULT_ZLP, len);
	ck_assert_uint_eq(t.data, len);
	ck_assert_uint_eq(t.empty, (len + per - 1) / per - 1); /* between the data packets */
	t = send_faulty(VCAM_FAULT_ISO_ERROR, len);
	ck_assert_uint_eq(t.errored, 3);
	ck_assert_uint_eq(t.data, len - 3 * per);
	ck_assert_uint_eq(t.eof, 1);
	/* combined */
	t = send_faulty(VCAM_FAULT_ZLP | VCAM_FAULT_SHORT | VCAM_FAULT_HEADER1, len);
	ck_assert_uint_eq(t.bad_header, 1);
	ck_assert_uint_eq(t.data, len / 2 - per);
	ck_assert_uint_gt(t.empty, 0);
}
END_TEST

/* Bulk faults: header lengths, no EOF, short and oversize frames, an empty
 * transfer before the payload, a transfer lost halfway (-EPROTO). */
START_TEST(bulk_faults_shape_the_payload)
{
	struct vcam_payload p;
	uint8_t buf[16384], hdr[12], data[100000];
	size_t len = 50000;
	fill_frame(len);
	vcam_payload_reset(&p, len + 4096 + VCAM_PAYLOAD_HEADER);

	vcam_payload_start_frame(&p, frame, len, 0, false);
	vcam_payload_set_faults(&p, VCAM_FAULT_HEADER1 | VCAM_FAULT_NO_EOF);
	ck_assert_uint_eq(read_bulk_payload(&p, 16384, hdr, data), len);
	ck_assert_uint_eq(hdr[0], 1);
	ck_assert(!(hdr[1] & UVC_STREAM_EOF));
	ck_assert(!p.in_frame);

	vcam_payload_start_frame(&p, frame, len, 0, false);
	vcam_payload_set_faults(&p, VCAM_FAULT_SHORT);
	ck_assert_uint_eq(read_bulk_payload(&p, 16384, hdr, data), len / 2);
	ck_assert(hdr[1] & UVC_STREAM_EOF);
	ck_assert_mem_eq(data, frame, len / 2);

	vcam_payload_start_frame(&p, frame, len, 0, false);
	vcam_payload_set_faults(&p, VCAM_FAULT_OVERSIZE);
	ck_assert_uint_eq(read_bulk_payload(&p, 16384, hdr, data), len + VCAM_FAULT_OVERSIZE_BYTES);
	ck_assert_mem_eq(data, frame, len);
	ck_assert_uint_eq(data[len], 0x80);

	vcam_payload_start_frame(&p, frame, len, 0, false);
	vcam_payload_set_faults(&p, VCAM_FAULT_ZLP);
	ck_assert_int_eq(vcam_payload_bulk_urb(&p, buf, sizeof(buf), 0), 0);
	ck_assert_int_eq(p.packet_status, 0);
	ck_assert_uint_eq(read_bulk_payload(&p, 16384, hdr, data), len);

	/* 50000 bytes in URBs of 16384: the third one (from 32756) is lost */
	vcam_payload_start_frame(&p, frame, len, 0, false);
	vcam_payload_set_faults(&p, VCAM_FAULT_ISO_ERROR);
	ck_assert_int_eq(vcam_payload_bulk_urb(&p, buf, sizeof(buf), 0), 16384);
	ck_assert_int_eq(vcam_payload_bulk_urb(&p, buf, sizeof(buf), 0), 16384);
	ck_assert_int_eq(vcam_payload_bulk_urb(&p, buf, sizeof(buf), 0), 0);
	ck_assert_int_eq(p.packet_status, -71);
	long last = vcam_payload_bulk_urb(&p, buf, sizeof(buf), 0);
	ck_assert_int_eq(last, (long)(len + VCAM_PAYLOAD_HEADER - 3 * 16384));
	ck_assert_int_eq(p.packet_status, 0);
	ck_assert_mem_eq(buf, frame + 3 * 16384 - VCAM_PAYLOAD_HEADER, (size_t)last);
	ck_assert(!p.in_frame);
}
END_TEST

START_TEST(fault_names)
{
	for (unsigned f = VCAM_FAULT_HEADER0; f <= VCAM_FAULT_ISO_ERROR; f <<= 1) {
		const char *name = vcam_payload_fault_name(f);
		ck_assert_ptr_nonnull(name);
		ck_assert_uint_eq(vcam_payload_fault_parse(name), f);
	}
	ck_assert_uint_eq(vcam_payload_fault_parse("nonsense"), 0);
	ck_assert_ptr_null(vcam_payload_fault_name(VCAM_FAULT_ISO_ERROR << 1));
}
END_TEST

START_TEST(clock_counts_at_48_mhz)
{
	ck_assert_uint_eq(vcam_payload_clock(0), 0);
	ck_assert_uint_eq(vcam_payload_clock(1000), 48);
	ck_assert_uint_eq(vcam_payload_clock(1000000000ull), 48000000u);
	/* wraps at 32 bits */
	ck_assert_uint_eq(vcam_payload_clock(100000000000ull), (uint32_t)4800000000ull);
}
END_TEST

/* --clock-ppm: the camera's clock drifts and starts elsewhere; zero is
 * the nominal clock. */
START_TEST(clock_drift_and_offset)
{
	struct vcam_clock c = { .ppm = 100, .offset = 1000 };
	ck_assert_uint_eq(vcam_clock_read(&c, 1000000000ull), 48000000u + 4800u + 1000u);
	c = (struct vcam_clock){ .ppm = -250 };
	ck_assert_uint_eq(vcam_clock_read(&c, 1000000000ull), 48000000u - 12000u);
	struct vcam_clock z = { 0 };
	ck_assert_uint_eq(vcam_clock_read(&z, 123456789ull), vcam_payload_clock(123456789ull));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcam-payload");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, iso_packets_carry_a_frame_then_headers);
	tcase_add_test(tc, msxu_item_in_each_header);
	tcase_add_test(tc, clock_drift_and_offset);
	tcase_add_test(tc, iso_packet_smaller_than_header_is_empty);
	tcase_add_test(tc, bulk_whole_frame_payload);
	tcase_add_test(tc, bulk_payload_ending_on_a_full_urb_gets_a_zlp);
	tcase_add_test(tc, bulk_frame_split_over_payloads);
	tcase_add_test(tc, clock_counts_at_48_mhz);
	tcase_add_test(tc, iso_faults_shape_the_packets);
	tcase_add_test(tc, fault_names);
	tcase_add_test(tc, bulk_faults_shape_the_payload);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-vcam --replay (tests/vcam/replay.c): a usbmon text trace read into
 * payload transfers as the host that recorded it saw them, and played into
 * URBs of another host's size. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "replay.h"
#include "unit_run.h"

/* A camera on 1:004 behind a mass-storage device on 2:002 (whose CSWs must
 * not be taken for video): a commit of dwMaxPayloadTransferSize 0x5000, a
 * payload of a full 16384-byte URB and a short continuation whose first
 * bytes look like a header, an EOF payload, a transfer error, an unlinked
 * URB at the end. */
static const char trace[] =
	"Some mail text before the trace\n"
	"ffff1 100 S Bi:2:002:1 -115 13 <\n"
	"ffff1 101 C Bi:2:002:1 0 13 = 55534253 ad4b0000 00000000 00\n"
	"ffff2 200 S Co:1:004:0 s 21 01 0200 0001 001a 26 = 01000204 15160500 00000000 00000000"
	" 20000058 02000050 0000\n"
	"ffff3 300 S Bi:1:004:1 -115 16384 <\n"
	"ffff3 1000 C Bi:1:004:1 0 16384 = 0c8c026c 46e15af8 4de15a05 ffd8ffdb\n"
	"ffff3 1040 C Bi:1:004:1 0 522 = 03893536 7b30c0f4\n"
	"ffff3 1050 C Bi:1:004:1 0 14 = 0c8e026c 46e1530e 4ee15a05 ffd9\n"
	"ffff3 2000 C Bi:1:004:1 -71 0\n"
	"ffff3 3000 C Bi:1:004:1 0 14 = 0c8d026c 46e1530e 4ee15a05 ffd9\n"
	"ffff3 4000 C Bi:1:004:1 -2 0\n";

START_TEST(trace_read_as_recorded)
{
	struct vcam_replay r;
	char err[128];

	ck_assert_int_eq(vcam_replay_parse(trace, &r, err, sizeof(err)), 0);
	ck_assert_str_eq(r.endpoint, "Bi:1:004:1");
	ck_assert_uint_eq(r.n, 4);
	/* the continuation stays in its payload: the committed size is not reached */
	ck_assert_uint_eq(r.payloads[0].length, 16384 + 522);
	ck_assert_uint_eq(r.payloads[0].n_pieces, 2);
	ck_assert_uint_eq(r.payloads[0].time_us, 0);
	ck_assert_uint_eq(r.payloads[1].length, 14);
	ck_assert_uint_eq(r.payloads[1].time_us, 50);
	ck_assert_int_eq(r.payloads[2].status, -EPROTO);
	ck_assert_uint_eq(r.payloads[3].length, 14);
	ck_assert_uint_eq(r.frames, 1); /* EOF in payload 1 only (payload 3: 0x8d) */
	vcam_replay_free(&r);
}
END_TEST

START_TEST(played_into_urbs)
{
	struct vcam_replay r;
	char err[128];
	uint8_t urb[20000];

	ck_assert_int_eq(vcam_replay_parse(trace, &r, err, sizeof(err)), 0);
	/* 16906 bytes over URBs of 8453: two full URBs, then a ZLP ends it */
	ck_assert_int_eq(vcam_replay_urb(&r, urb, 8453), 8453);
	ck_assert_uint_eq(urb[0], 0x0c);
	ck_assert_uint_eq(urb[1], 0x8c);
	ck_assert_uint_eq(urb[12], 0xff);
	ck_assert_int_eq(vcam_replay_urb(&r, urb, 8453), 8453);
	/* the continuation's recorded bytes at its offset */
	ck_assert_uint_eq(urb[16384 - 8453], 0x03);
	ck_assert_uint_eq(urb[16384 - 8453 + 1], 0x89);
	ck_assert_int_eq(vcam_replay_urb(&r, urb, 8453), 0);
	ck_assert_uint_eq(vcam_replay_due_us(&r), 50);
	ck_assert_int_eq(vcam_replay_urb(&r, urb, sizeof(urb)), 14);
	ck_assert_int_eq(vcam_replay_urb(&r, urb, sizeof(urb)), -EPROTO);
	ck_assert_int_eq(vcam_replay_urb(&r, urb, sizeof(urb)), 14);
	/* the loop: the first payload again, a loop later */
	ck_assert_uint_eq(r.at, 0);
	ck_assert_uint_eq(vcam_replay_due_us(&r), r.duration_us);
	ck_assert_uint_gt(r.duration_us, 2000);
	vcam_replay_free(&r);
}
END_TEST

START_TEST(no_video_endpoint)
{
	struct vcam_replay r;
	char err[128] = "";

	ck_assert_int_eq(vcam_replay_parse("ffff1 101 C Bi:2:002:1 0 13 = 55534253\nnot a line\n",
					   &r, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "payload headers"));
	ck_assert_int_eq(vcam_replay_parse("", &r, err, sizeof(err)), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcam-replay");
	TCase *tc = tcase_create("replay");
	tcase_add_test(tc, trace_read_as_recorded);
	tcase_add_test(tc, played_into_urbs);
	tcase_add_test(tc, no_video_endpoint);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stream's frame timestamps (src/uvc/stamper.c): first-payload times
 * until the camera's clock can say, the change of source eased so that no
 * interval is short, never a step back, the clock's implausible times not
 * used. A simulated camera: an exact clock, frames exposed every 33.3 ms,
 * their first payload 20 ms after the exposure, an SCR every 10 ms. */
#include <check.h>
#include <stdint.h>

#include "uvc/stamper.h"
#include "unit_run.h"

#define HZ 48000000u
#define FRAME_NS 33333333ull
#define READOUT_NS 20000000ull
#define T0 1000000000000ull

static uint32_t camera_clock(uint64_t t)
{
	return (uint32_t)((int64_t)(t - T0) * HZ / 1000000000ll); /* before T0: wraps */
}

static uint64_t exposure(unsigned k)
{
	return T0 + k * FRAME_NS;
}

/* Frame k: the SCRs sent since frame k-1 (none before frame first_scr),
 * then its stamp. */
static uint64_t frame(struct uvc_stamper *s, unsigned k, unsigned first_scr, bool *from_clock)
{
	if (k >= first_scr)
		for (uint64_t t = exposure(k) - FRAME_NS; t < exposure(k); t += 10000000ull)
			uvc_stamper_sample(s, camera_clock(t), t + 100000);
	uint64_t start = exposure(k) + READOUT_NS;
	return uvc_stamper_frame(s, true, camera_clock(exposure(k)), start, start + 5000000,
				 from_clock);
}

START_TEST(first_payload_times_without_the_clock)
{
	struct uvc_stamper s;
	uvc_stamper_init(&s, HZ, false, FRAME_NS);
	bool clock = true;
	for (unsigned k = 0; k < 30; k++) {
		ck_assert_uint_eq(frame(&s, k, 0, &clock), exposure(k) + READOUT_NS);
		ck_assert(!clock);
	}
}
END_TEST

/* The camera's SCRs come from frame 5 on: from there the stamps go from the
 * first-payload times to the exposures, a quarter interval a frame. */
START_TEST(change_of_source_eased)
{
	struct uvc_stamper s;
	uvc_stamper_init(&s, HZ, true, FRAME_NS);
	uint64_t last = 0;
	unsigned first_clock = 0;
	bool clock;
	for (unsigned k = 0; k < 40; k++) {
		uint64_t t = frame(&s, k, 5, &clock);
		if (clock && !first_clock)
			first_clock = k;
		if (!clock)
			ck_assert_uint_eq(t, exposure(k) + READOUT_NS);
		if (last) {
			uint64_t step = t - last;
			ck_assert_msg(t > last && step >= FRAME_NS * 3 / 4 && step <= FRAME_NS + 1000,
				      "frame %u: interval %llu ns", k, (unsigned long long)step);
		}
		last = t;
	}
	ck_assert_uint_eq(first_clock, 5); /* its first SCRs came with frame 5 */
	/* eased out: the last frames are stamped at their exposure (the clock's
	 * fit is exact here, to its rounding) */
	uint64_t t = frame(&s, 40, 5, &clock);
	ck_assert(clock);
	ck_assert_uint_le(t > exposure(40) ? t - exposure(40) : exposure(40) - t, 200000);
}
END_TEST

/* A stamp is never before the one before, whatever the first-payload
 * times say. */
START_TEST(never_back)
{
	struct uvc_stamper s;
	uvc_stamper_init(&s, HZ, false, FRAME_NS);
	ck_assert_uint_eq(uvc_stamper_frame(&s, false, 0, 5000000, 6000000, NULL), 5000000);
	ck_assert_uint_eq(uvc_stamper_frame(&s, false, 0, 4000000, 6000000, NULL), 5001000);
	/* no first-payload time: when it finished */
	ck_assert_uint_eq(uvc_stamper_frame(&s, false, 0, 0, 9000000, NULL), 9000000);
}
END_TEST

/* A PTS that puts the exposure after the frame's first payload is no
 * clock's: the first-payload time instead. */
START_TEST(implausible_clock_time_not_used)
{
	struct uvc_stamper s;
	uvc_stamper_init(&s, HZ, true, FRAME_NS);
	bool clock;
	for (unsigned k = 0; k < 20; k++)
		frame(&s, k, 0, &clock);
	ck_assert(clock);
	uint64_t start = exposure(20) + READOUT_NS;
	uint64_t t = uvc_stamper_frame(&s, true, camera_clock(start + 50000000ull), start,
				       start + 1000000, &clock);
	ck_assert(!clock);
	ck_assert_uint_eq(t, start);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("uvc-stamper");
	TCase *tc = tcase_create("stamper");
	tcase_add_test(tc, first_payload_times_without_the_clock);
	tcase_add_test(tc, change_of_source_eased);
	tcase_add_test(tc, never_back);
	tcase_add_test(tc, implausible_clock_time_not_used);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}

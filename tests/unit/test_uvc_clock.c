/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera's clock on the host's time line (src/uvc/clock.c), against a
 * simulated camera: a clock that drifts, payloads that arrive late by a
 * jittered delay, exposures whose true host time is known. */
#include <check.h>
#include <stdint.h>

#include "uvc/clock.h"
#include "unit_run.h"

#define HZ 48000000u
#define FRAME_NS 33333333ull
#define MIN_DELAY_NS 200000ull

struct camera {
	double ppm;      /* its clock runs this much fast */
	uint32_t stc0;   /* its clock when the host read t0 */
	uint64_t t0;
	uint32_t seed;
};

static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x >> 8;
}

/* The camera's clock at host time t. */
static uint32_t camera_clock(const struct camera *cam, uint64_t t)
{
	double ticks = (double)(t - cam->t0) * HZ / 1e9 * (1.0 + cam->ppm * 1e-6);
	return cam->stc0 + (uint32_t)(uint64_t)(ticks + 0.5);
}

/* A payload's delivery delay: at least MIN_DELAY_NS, up to 3 ms more,
 * the minimum reached every few frames. */
static uint64_t delay(struct camera *cam, unsigned k)
{
	return MIN_DELAY_NS + (k % 5 == 0 ? 0 : lcg(&cam->seed) % 3000000u);
}

/* Frame k's exposure, its host time; its SCR sampled 10 ms later. */
static uint64_t exposure(const struct camera *cam, unsigned k)
{
	return cam->t0 + 50000000ull + k * FRAME_NS;
}

static double magnitude(double x)
{
	return x < 0 ? -x : x;
}

static void feed(struct uvc_clock *c, struct camera *cam, unsigned k)
{
	uint64_t sent = exposure(cam, k) + 10000000ull;
	uvc_clock_sample(c, camera_clock(cam, sent), sent + delay(cam, k));
}

/* Frame k's exposure maps to its true time plus the least delay, within
 * 50 us, and the interval since the frame before (*prev, 0: none) is
 * steady within 10 us. */
static void check_frame(const struct uvc_clock *c, const struct camera *cam, unsigned k,
			uint64_t *prev)
{
	uint64_t got;
	ck_assert(uvc_clock_to_host(c, camera_clock(cam, exposure(cam, k)), &got));
	double err = (double)(int64_t)(got - exposure(cam, k) - MIN_DELAY_NS);
	ck_assert_msg(magnitude(err) < 50000.0, "frame %u: %.0f ns off", k, err);
	if (*prev) {
		double jitter = (double)(int64_t)(got - *prev) - (double)FRAME_NS;
		ck_assert_msg(magnitude(jitter) < 10000.0, "frame %u: interval off by %.0f ns", k,
			      jitter);
	}
	*prev = got;
}

/* After a window's worth of frames, every exposure maps to its true time
 * plus the least delay, within 50 us, and the intervals between frames
 * are steady within 10 us though each payload's delay jitters by 3 ms. */
static void check_camera(struct camera *cam)
{
	struct uvc_clock c;
	uint64_t prev = 0;

	uvc_clock_init(&c, HZ);
	for (unsigned k = 0; k < 400; k++) {
		feed(&c, cam, k);
		if (k < UVC_CLOCK_SAMPLES)
			continue;
		check_frame(&c, cam, k, &prev);
	}
}

START_TEST(drifting_camera_mapped_within_50_us)
{
	struct camera cam = { .ppm = 100.0, .stc0 = 123456789u, .t0 = 5000000000000ull, .seed = 7 };
	check_camera(&cam);
	cam.ppm = -250.0;
	check_camera(&cam);
}
END_TEST

/* The camera's 32-bit clock wraps (every 89 s at 48 MHz): no jump. */
START_TEST(clock_wrap_is_seamless)
{
	struct camera cam = { .ppm = 30.0, .stc0 = 0xfff00000u, .t0 = 1000000000ull, .seed = 3 };
	check_camera(&cam);
}
END_TEST

/* A camera sends an SCR with every transfer, every 4 ms, each delayed by
 * up to 3 ms more than the least delay, which one transfer in twenty
 * meets: once the window is full, exposures map within 50 us and the
 * intervals within 10 us, though 250 samples a second go through a window
 * of 128. */
START_TEST(sample_per_transfer_mapped_within_50_us)
{
	struct camera cam = { .ppm = 100.0, .stc0 = 987654321u, .t0 = 7000000000000ull, .seed = 11 };
	struct uvc_clock c;
	uint64_t prev = 0, next_sample = cam.t0;
	unsigned n = 0;

	uvc_clock_init(&c, HZ);
	for (unsigned k = 0; k < 300; k++) {
		uint64_t sent_by = exposure(&cam, k) + 10000000ull;
		for (; next_sample <= sent_by; next_sample += 4000000ull, n++)
			uvc_clock_sample(&c, camera_clock(&cam, next_sample),
					 next_sample + MIN_DELAY_NS +
						 (n % 20 == 0 ? 0 : lcg(&cam.seed) % 3000000u));
		if (exposure(&cam, k) >= cam.t0 + 4500000000ull)
			check_frame(&c, &cam, k, &prev);
	}
	ck_assert_uint_eq(c.n, UVC_CLOCK_SAMPLES);
}
END_TEST

/* Two samples in one 1/32 s of the camera's clock: the one delayed less
 * stays, whichever came first. */
START_TEST(slice_keeps_the_least_delayed)
{
	struct uvc_clock c;
	uvc_clock_init(&c, HZ);
	uvc_clock_sample(&c, 480000u, 1000000000ull + 12000000ull); /* 10 ms, 2 ms late */
	uvc_clock_sample(&c, 720000u, 1000000000ull + 15500000ull); /* 15 ms, 0.5 ms late */
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.s[0].host_ns, 1015500000ull);
	uvc_clock_sample(&c, 960000u, 1000000000ull + 21000000ull); /* 20 ms, 1 ms late */
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.s[0].host_ns, 1015500000ull);
	uvc_clock_sample(&c, 1500000u, 1000000000ull + 31300000ull); /* 31.25 ms: the next */
	ck_assert_uint_eq(c.n, 2);
}
END_TEST

/* No sample: no answer. A short window: the nominal rate through the
 * least-delayed sample. */
START_TEST(short_window_at_the_nominal_rate)
{
	struct uvc_clock c;
	uint64_t t;
	struct camera cam = { .t0 = 1000000000ull, .seed = 1 };

	uvc_clock_init(&c, HZ);
	ck_assert(!uvc_clock_to_host(&c, 0, &t));
	/* one sample: its delay is the least seen */
	uvc_clock_sample(&c, 4800000u, 1100000000ull + 700000ull); /* 100 ms, 0.7 ms late */
	ck_assert(uvc_clock_to_host(&c, 4800000u + 480000u, &t));  /* 10 ms later */
	ck_assert_uint_eq(t, 1110000000ull + 700000ull);
	/* a sample delayed less moves the line down; a later one more, not */
	uvc_clock_sample(&c, 6400000u, 1133333333ull + 200000ull);
	uvc_clock_sample(&c, 8000000u, 1166666667ull + 3000000ull);
	ck_assert(uvc_clock_to_host(&c, 9600000u, &t));
	ck_assert_uint_le(t > 1200000000ull + 200000ull ? t - 1200000000ull - 200000ull
							: 1200000000ull + 200000ull - t,
			  1000);
	/* 8 samples within 50 ms of the camera's clock: still the nominal rate */
	uvc_clock_init(&c, HZ);
	for (unsigned k = 0; k < 8; k++)
		uvc_clock_sample(&c, k * 100000u, 1000000000ull + k * 1000000ull);
	ck_assert(uvc_clock_to_host(&c, 0, &t));
	(void)cam;
	/* a camera that names no clock frequency */
	uvc_clock_init(&c, 0);
	for (unsigned k = 0; k < 20; k++)
		feed(&c, &cam, k);
	ck_assert(!uvc_clock_to_host(&c, 0, &t));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uvc-clock");
	TCase *tc = tcase_create("clock");
	tcase_add_test(tc, drifting_camera_mapped_within_50_us);
	tcase_add_test(tc, clock_wrap_is_seamless);
	tcase_add_test(tc, sample_per_transfer_mapped_within_50_us);
	tcase_add_test(tc, slice_keeps_the_least_delayed);
	tcase_add_test(tc, short_window_at_the_nominal_rate);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/convert/pool.c: jobs come back in submission order with the bytes
 * a lone converter makes, bad frames as -EBADMSG; drain and free with work
 * queued neither hang nor leak. */
#include <check.h>
#include <errno.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert/catalogue.h"
#include "convert/converter.h"
#include "convert/pool.h"
#include "frames.h"
#include "unit_run.h"

#define TW 320u
#define TH 240u
#define JOBS 48u

struct inputs {
	uint8_t *frame[JOBS];
	size_t len[JOBS];
	uint32_t fourcc[JOBS];
	uint8_t *out[JOBS];
	uint32_t size;
};

/* Every 3rd job MJPEG (every 9th truncated), the others YUYV. */
static void make_inputs(struct inputs *in)
{
	struct vcam_frames *y = vcam_frames_new(VCAM_PIXEL_YUYV, TW, TH, 0);
	struct vcam_frames *m = vcam_frames_new(VCAM_PIXEL_MJPEG, TW, TH, 0);
	ck_assert_ptr_nonnull(y);
	ck_assert_ptr_nonnull(m);
	uint32_t bpl;
	ck_assert_int_eq(convert_frame_layout(V4L2_PIX_FMT_RGB24, TW, TH, &bpl, &in->size), 0);
	for (unsigned i = 0; i < JOBS; i++) {
		bool jpeg = i % 3 == 0;
		const uint8_t *f = vcam_frames_get(jpeg ? m : y, i, 1000000ull * i, &in->len[i]);
		ck_assert_ptr_nonnull(f);
		in->frame[i] = malloc(in->len[i]);
		in->out[i] = malloc(in->size);
		ck_assert_ptr_nonnull(in->frame[i]);
		ck_assert_ptr_nonnull(in->out[i]);
		memcpy(in->frame[i], f, in->len[i]);
		in->fourcc[i] = jpeg ? V4L2_PIX_FMT_MJPEG : V4L2_PIX_FMT_YUYV;
		if (i % 9 == 0)
			in->len[i] /= 2;
	}
	vcam_frames_free(y);
	vcam_frames_free(m);
}

static void free_inputs(struct inputs *in)
{
	for (unsigned i = 0; i < JOBS; i++) {
		free(in->frame[i]);
		free(in->out[i]);
	}
}

static void submit_all(struct convert_pool *p, struct inputs *in)
{
	for (unsigned i = 0; i < JOBS; i++) {
		struct convert_job job = {
			.src_fourcc = in->fourcc[i], .dst_fourcc = V4L2_PIX_FMT_RGB24,
			.width = TW, .height = TH, .src = in->frame[i], .src_len = in->len[i],
			.dst = in->out[i], .dst_cap = in->size, .cookie = &in->out[i],
		};
		ck_assert_int_eq(convert_pool_submit(p, &job), 0);
	}
}

START_TEST(test_in_order)
{
	struct inputs in;
	make_inputs(&in);
	struct convert_pool *p = convert_pool_new(3);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(convert_pool_threads(p), 3);
	submit_all(p, &in);
	struct converter *lone = converter_new();
	uint8_t *want = malloc(in.size);
	ck_assert_ptr_nonnull(lone);
	ck_assert_ptr_nonnull(want);
	unsigned next = 0;
	while (next < JOBS) {
		struct pollfd pfd = { .fd = convert_pool_fd(p), .events = POLLIN };
		ck_assert_int_eq(poll(&pfd, 1, 10000), 1); /* never a hang */
		struct convert_job job;
		while (convert_pool_collect(p, &job)) {
			ck_assert_ptr_eq(job.cookie, &in.out[next]);
			long expect = converter_run(lone, in.fourcc[next], TW, TH, in.frame[next],
						    in.len[next], V4L2_PIX_FMT_RGB24, want, in.size);
			ck_assert_int_eq(job.result, expect);
			if (next % 9 == 0)
				ck_assert_int_eq(job.result, -EBADMSG);
			else
				ck_assert_int_eq(memcmp(want, in.out[next], in.size), 0);
			next++;
		}
	}
	struct convert_job job;
	ck_assert(!convert_pool_collect(p, &job));
	free(want);
	converter_free(lone);
	convert_pool_free(p);
	free_inputs(&in);
}
END_TEST

START_TEST(test_drain_and_free)
{
	struct inputs in;
	make_inputs(&in);
	struct convert_pool *p = convert_pool_new(2);
	ck_assert_ptr_nonnull(p);
	submit_all(p, &in);
	convert_pool_drain(p);
	/* After the drain every job is finished or cancelled, still in order. */
	unsigned n = 0;
	struct convert_job job;
	while (convert_pool_collect(p, &job)) {
		ck_assert_ptr_eq(job.cookie, &in.out[n]);
		ck_assert(job.result == -ECANCELED || job.result == -EBADMSG ||
			  job.result == (long)in.size);
		n++;
	}
	ck_assert_uint_eq(n, JOBS);
	/* Freed with work queued: returns, and (under ASan) leaks nothing. */
	submit_all(p, &in);
	convert_pool_free(p);
	convert_pool_free(NULL);

	p = convert_pool_new(0);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(convert_pool_threads(p), (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	convert_pool_free(p);
	free_inputs(&in);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("convert-pool");
	TCase *tc = tcase_create("pool");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_in_order);
	tcase_add_test(tc, test_drain_and_free);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/device/convert_stream.c on a real loop: native buffers are handed out until
 * every one holds a frame, converted frames come back in submission order
 * with the bytes a lone converter makes, an undecodable frame is -EBADMSG,
 * and stop reports what is outstanding as -ECANCELED and leaves no worker
 * touching the app's buffers. */
#include <check.h>
#include <errno.h>
#include <linux/videodev2.h>
#include <stdlib.h>
#include <string.h>

#include "convert/catalogue.h"
#include "convert/converter.h"
#include "device/convert_stream.h"
#include "frames.h"
#include "core/loop.h"
#include "unit_run.h"

#define TW 320u
#define TH 240u
#define MAX_DONE 64u

struct record {
	unsigned n;
	long result[MAX_DONE];
	uintptr_t cookie[MAX_DONE];
	uint32_t sequence[MAX_DONE];
};

static void on_done(void *data, void *cookie, long result, const struct convert_frame_meta *meta)
{
	struct record *r = data;
	ck_assert_uint_lt(r->n, MAX_DONE);
	r->result[r->n] = result;
	r->cookie[r->n] = (uintptr_t)cookie;
	r->sequence[r->n] = meta->sequence;
	r->n++;
}

/* Runs the loop until want frames came back (bounded: a hang fails). */
static void wait_done(struct loop *loop, struct record *r, unsigned want)
{
	for (int i = 0; i < 2000 && r->n < want; i++) {
		int status;
		ck_assert_int_ge(loop_run_once(loop, 10, &status), 0);
	}
	ck_assert_uint_eq(r->n, want);
}

START_TEST(frames_in_order)
{
	struct loop *loop;
	ck_assert_int_eq(loop_new(&loop), 0);
	struct record rec = { 0 };
	struct convert_stream *cs = convert_stream_new(loop, 2, on_done, &rec);
	ck_assert_ptr_nonnull(cs);
	ck_assert(!convert_stream_running(cs));
	size_t native_size = TW * TH * 2;
	ck_assert_int_eq(convert_stream_start(cs, V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_RGB24, TW, TH,
					      native_size), 0);
	ck_assert_uint_eq(convert_stream_threads(cs), 2);

	/* threads + 2 native buffers, then none until one comes back */
	uint8_t *native[4];
	size_t cap;
	for (unsigned i = 0; i < 4; i++) {
		native[i] = convert_stream_native(cs, &cap);
		ck_assert_ptr_nonnull(native[i]);
		ck_assert_uint_eq(cap, native_size);
	}
	ck_assert_ptr_null(convert_stream_native(cs, &cap));
	convert_stream_unused(cs, native[3]);
	ck_assert_ptr_eq(convert_stream_native(cs, &cap), native[3]);

	struct vcam_frames *y = vcam_frames_new(VCAM_PIXEL_YUYV, TW, TH, 0);
	ck_assert_ptr_nonnull(y);
	uint32_t bpl, size;
	ck_assert_int_eq(convert_frame_layout(V4L2_PIX_FMT_RGB24, TW, TH, &bpl, &size), 0);
	uint8_t *out[4], *want = malloc(size);
	struct converter *alone = converter_new();
	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(alone);
	for (unsigned i = 0; i < 4; i++) {
		size_t len;
		const uint8_t *f = vcam_frames_get(y, i, 1000000ull * i, &len);
		memcpy(native[i], f, len);
		out[i] = calloc(1, size);
		ck_assert_ptr_nonnull(out[i]);
		/* frame 2 is short: it cannot convert */
		struct convert_frame_meta meta = { .sequence = 10 + i };
		ck_assert_int_eq(convert_stream_submit(cs, native[i], i == 2 ? len / 2 : len, out[i],
						       size, (void *)(uintptr_t)(i + 1), &meta), 0);
	}
	ck_assert(convert_stream_busy(cs));
	wait_done(loop, &rec, 4);
	ck_assert(!convert_stream_busy(cs));
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_uint_eq(rec.cookie[i], i + 1);
		ck_assert_uint_eq(rec.sequence[i], 10 + i);
		if (i == 2) {
			ck_assert_int_eq(rec.result[i], -EBADMSG);
			continue;
		}
		ck_assert_int_eq(rec.result[i], (long)size);
		size_t len;
		const uint8_t *f = vcam_frames_get(y, i, 1000000ull * i, &len);
		ck_assert_int_eq(converter_run(alone, V4L2_PIX_FMT_YUYV, TW, TH, f, len,
					       V4L2_PIX_FMT_RGB24, want, size), (long)size);
		ck_assert_mem_eq(out[i], want, size);
	}
	/* every native buffer is free again */
	for (unsigned i = 0; i < 4; i++)
		ck_assert_ptr_nonnull(convert_stream_native(cs, &cap));

	convert_stream_free(cs);
	converter_free(alone);
	vcam_frames_free(y);
	for (unsigned i = 0; i < 4; i++)
		free(out[i]);
	free(want);
	loop_free(loop);
}
END_TEST

START_TEST(stop_cancels_outstanding)
{
	struct loop *loop;
	ck_assert_int_eq(loop_new(&loop), 0);
	struct record rec = { 0 };
	struct convert_stream *cs = convert_stream_new(loop, 1, on_done, &rec);
	ck_assert_ptr_nonnull(cs);
	/* 1920x1080 MJPEG takes a while: stop finds work queued and running */
	struct vcam_frames *m = vcam_frames_new(VCAM_PIXEL_MJPEG, 1920, 1080, 0);
	ck_assert_ptr_nonnull(m);
	size_t len;
	const uint8_t *f = vcam_frames_get(m, 0, 0, &len);
	ck_assert_int_eq(convert_stream_start(cs, V4L2_PIX_FMT_MJPEG, V4L2_PIX_FMT_RGB24, 1920, 1080,
					      len), 0);
	uint32_t bpl, size;
	ck_assert_int_eq(convert_frame_layout(V4L2_PIX_FMT_RGB24, 1920, 1080, &bpl, &size), 0);
	uint8_t *out = malloc(3 * (size_t)size);
	ck_assert_ptr_nonnull(out);
	for (unsigned i = 0; i < 3; i++) {
		size_t cap;
		uint8_t *native = convert_stream_native(cs, &cap);
		ck_assert_ptr_nonnull(native);
		memcpy(native, f, len);
		struct convert_frame_meta meta = { .sequence = i };
		ck_assert_int_eq(convert_stream_submit(cs, native, len, out + (size_t)i * size, size,
						       (void *)(uintptr_t)(i + 1), &meta), 0);
	}
	convert_stream_stop(cs);
	/* all three reported, in order, as cancelled, before stop returned */
	ck_assert_uint_eq(rec.n, 3);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_int_eq(rec.result[i], -ECANCELED);
		ck_assert_uint_eq(rec.cookie[i], i + 1);
	}
	ck_assert(!convert_stream_running(cs));
	ck_assert(!convert_stream_busy(cs));
	size_t cap;
	ck_assert_ptr_null(convert_stream_native(cs, &cap));
	/* no worker writes into the buffers any more */
	memset(out, 0x5a, 3 * (size_t)size);
	int status;
	for (int i = 0; i < 5; i++)
		ck_assert_int_ge(loop_run_once(loop, 10, &status), 0);
	ck_assert_uint_eq(rec.n, 3);
	for (size_t i = 0; i < 3 * (size_t)size; i += 4099)
		ck_assert_uint_eq(out[i], 0x5a);
	/* and it starts again */
	ck_assert_int_eq(convert_stream_start(cs, V4L2_PIX_FMT_MJPEG, V4L2_PIX_FMT_RGB24, 1920, 1080,
					      len), 0);
	ck_assert_ptr_nonnull(convert_stream_native(cs, &cap));
	convert_stream_free(cs);
	vcam_frames_free(m);
	free(out);
	loop_free(loop);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("convert-stream");
	TCase *tc = tcase_create("convert_stream");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, frames_in_order);
	tcase_add_test(tc, stop_cancels_outstanding);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

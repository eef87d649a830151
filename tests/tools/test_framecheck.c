/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drives the built uvcuse-framecheck (argv[1]) on capture files written
 * here: good ones in every format, and ones with a missing, damaged,
 * out-of-order, truncated or garbage frame; checks exit codes and report
 * lines, then fuzzes it a little. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jpeglib.h>

#include "frames.h"
#include "picture.h"
#include "stamp.h"
#include "../unit/unit_run.h"

static const char *checker;
static char dir[] = "/tmp/uvcuse-framecheck-XXXXXX";

#define INTERVAL_NS 33333333ull
#define T0_NS 2000000000ull

static char *path_of(const char *name)
{
	static char buf[4][256];
	static unsigned k;
	char *p = buf[k++ % 4];
	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

/* Runs the checker with NULL-terminated arguments; returns its exit status
 * (128 + signal when killed) and its stdout in *out. */
static int run(char **out, ...)
{
	const char *argv[32];
	int argc = 0;
	argv[argc++] = checker;
	va_list ap;
	va_start(ap, out);
	const char *a;
	while ((a = va_arg(ap, const char *)) && argc < 31)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		close(fds[0]);
		execv(checker, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	ssize_t n;
	while ((n = read(fds[0], buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 2)
			buf = realloc(buf, cap *= 2);
	}
	buf[len] = 0;
	close(fds[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The value of a "key: value" report line ("" when absent). */
static const char *value(const char *out, const char *key)
{
	static char v[512];
	size_t kl = strlen(key);
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, kl) == 0 && l[kl] == ':' && l[kl + 1] == ' ') {
			const char *e = strchr(l, '\n');
			size_t n = e ? (size_t)(e - l) - kl - 2 : strlen(l) - kl - 2;
			if (n >= sizeof(v))
				n = sizeof(v) - 1;
			memcpy(v, l + kl + 2, n);
			v[n] = 0;
			return v;
		}
	}
	return "";
}

#define ck_assert_report(out, key, want) \
	ck_assert_msg(strcmp(value(out, key), want) == 0, "%s: '%s', want '%s'\n%s", key, \
		      value(out, key), want, out)

/* ---- writing captures ---- */

struct spec {
	uint32_t seq;
	int brightness;
};

/* A raw frame of this layout made the way a converter would, math chosen. */
static uint8_t *raw_frame(enum picture_layout layout, enum picture_math math, unsigned w, unsigned h,
			  const struct spec *s)
{
	uint8_t *yu12 = malloc(picture_frame_size(PICTURE_YU12, w, h));
	uint8_t *f = malloc(picture_frame_size(layout, w, h));
	ck_assert_int_eq(picture_render(yu12, w, h, s->seq % PICTURE_PHASES, s->brightness), 0);
	struct stamp st = { s->seq, T0_NS + s->seq * INTERVAL_NS, (int16_t)s->brightness };
	ck_assert_int_eq(stamp_write(PICTURE_YU12, yu12, w, h, &st), 0);
	ck_assert_int_eq(picture_convert(yu12, w, h, layout, math, f), 0);
	free(yu12);
	return f;
}

static void write_file(const char *name, const void *data, size_t len, const char *mode)
{
	FILE *f = fopen(path_of(name), mode);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void write_raw(const char *name, enum picture_layout layout, enum picture_math math,
		      unsigned w, unsigned h, const struct spec *s, size_t n)
{
	write_file(name, "", 0, "wb");
	for (size_t i = 0; i < n; i++) {
		uint8_t *f = raw_frame(layout, math, w, h, &s[i]);
		write_file(name, f, picture_frame_size(layout, w, h), "ab");
		free(f);
	}
}

static void sequence(struct spec *s, size_t n, uint32_t first, int brightness)
{
	for (size_t i = 0; i < n; i++)
		s[i] = (struct spec){ first + (uint32_t)i, brightness };
}

/* MJPEG frames straight from the camera's frame source. */
static size_t camera_mjpeg(uint8_t *out, size_t cap, unsigned w, unsigned h, const struct spec *s,
			   size_t n, size_t *offsets)
{
	struct vcam_frames *f = vcam_frames_new(VCAM_PIXEL_MJPEG, w, h, 0);
	ck_assert_ptr_nonnull(f);
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		vcam_frames_set_brightness(f, s[i].brightness);
		size_t l;
		const uint8_t *p = vcam_frames_get(f, s[i].seq, T0_NS + s[i].seq * INTERVAL_NS, &l);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_le(len + l, cap);
		if (offsets)
			offsets[i] = len;
		memcpy(out + len, p, l);
		len += l;
	}
	if (offsets)
		offsets[n] = len;
	vcam_frames_free(f);
	return len;
}

/* ---- tests ---- */

START_TEST(good_yuyv)
{
	struct spec s[20];
	sequence(s, 20, 10, 0);
	write_raw("good.yuyv", PICTURE_YUYV, PICTURE_MATH_BT601, 640, 480, s, 20);
	char *out;
	ck_assert_int_eq(run(&out, path_of("good.yuyv"), "--format", "YUYV", "--size", "640x480", NULL), 0);
	ck_assert_report(out, "frames seen", "20");
	ck_assert_report(out, "frames intact", "20");
	ck_assert_report(out, "frames damaged", "0");
	ck_assert_report(out, "frames out of order", "0");
	ck_assert_report(out, "frames missing", "0");
	ck_assert_report(out, "first sequence", "10");
	ck_assert_report(out, "last sequence", "29");
	ck_assert_report(out, "brightness", "0");
	ck_assert_report(out, "stamp interval mean", "33.333");
	ck_assert_report(out, "frame rate", "30.000");
	ck_assert_report(out, "verdict", "pass");
	ck_assert(strlen(value(out, "mean luma")) > 0);
	free(out);
	/* Other spellings of the format; verbose lines. */
	ck_assert_int_eq(run(&out, "-f", "yuy2", "-s", "640x480", path_of("good.yuyv"), "-v", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "frame 0: seq=10 "));
	ck_assert_ptr_nonnull(strstr(out, "frame 19: seq=29 "));
	free(out);
	ck_assert_int_eq(run(NULL, path_of("good.yuyv"), "--format", "yuyv", "--size", "640x480",
			     "--min-frames", "20", "--max-missing", "0", NULL), 0);
	ck_assert_int_eq(run(&out, path_of("good.yuyv"), "--format", "YUYV", "--size", "640x480",
			     "--min-frames", "21", NULL), 1);
	ck_assert_ptr_nonnull(strstr(value(out, "verdict"), "fewer than 21"));
	free(out);
}
END_TEST

START_TEST(missing_frames)
{
	struct spec s[18];
	sequence(s, 5, 0, 0);
	sequence(s + 5, 13, 7, 0); /* 5 and 6 never arrive */
	write_raw("missing.yuyv", PICTURE_YUYV, PICTURE_MATH_BT601, 320, 240, s, 18);
	char *out;
	ck_assert_int_eq(run(&out, path_of("missing.yuyv"), "-f", "YUYV", "-s", "320x240", NULL), 0);
	ck_assert_report(out, "frames missing", "2");
	ck_assert_report(out, "frames intact", "18");
	ck_assert_report(out, "verdict", "pass");
	free(out);
	ck_assert_int_eq(run(NULL, path_of("missing.yuyv"), "-f", "YUYV", "-s", "320x240",
			     "--max-missing", "2", NULL), 0);
	ck_assert_int_eq(run(&out, path_of("missing.yuyv"), "-f", "YUYV", "-s", "320x240",
			     "--max-missing", "1", NULL), 1);
	ck_assert_ptr_nonnull(strstr(value(out, "verdict"), "fail: 2 frames missing"));
	free(out);
}
END_TEST

START_TEST(damaged_frames)
{
	unsigned w = 320, h = 240;
	size_t fs = picture_frame_size(PICTURE_NV12, w, h);
	struct spec s[12];
	sequence(s, 12, 0, 0);
	write_raw("damaged.nv12", PICTURE_NV12, PICTURE_MATH_BT601, w, h, s, 12);
	char *out;
	ck_assert_int_eq(run(&out, path_of("damaged.nv12"), "-f", "NV12", "-s", "320x240", NULL), 0);
	ck_assert_report(out, "frames intact", "12");
	free(out);
	/* One byte of frame 3's picture, one block of frame 8's stamp. */
	FILE *f = fopen(path_of("damaged.nv12"), "r+b");
	fseek(f, (long)(3 * fs + (size_t)w * 100 + 17), SEEK_SET);
	int c = fgetc(f);
	fseek(f, (long)(3 * fs + (size_t)w * 100 + 17), SEEK_SET);
	fputc(c ^ 0x40, f);
	for (unsigned y = 0; y < 8; y++) {
		fseek(f, (long)(8 * fs + (size_t)y * w + 200), SEEK_SET);
		uint8_t blk[8];
		ck_assert_uint_eq(fread(blk, 1, 8, f), 8);
		for (int k = 0; k < 8; k++)
			blk[k] = blk[k] > 128 ? 16 : 235;
		fseek(f, (long)(8 * fs + (size_t)y * w + 200), SEEK_SET);
		fwrite(blk, 1, 8, f);
	}
	fclose(f);
	ck_assert_int_eq(run(&out, path_of("damaged.nv12"), "-f", "NV12", "-s", "320x240", "-v", NULL), 1);
	ck_assert_report(out, "frames seen", "12");
	ck_assert_report(out, "frames intact", "10");
	ck_assert_report(out, "frames damaged", "2");
	ck_assert_report(out, "frames missing", "1"); /* frame 8's sequence is unknown */
	ck_assert_ptr_nonnull(strstr(out, "frame 3: seq=3 "));
	ck_assert_ptr_nonnull(strstr(out, "damaged (pixels differ"));
	ck_assert_ptr_nonnull(strstr(out, "frame 8: seq=? damaged (stamp corrupt)"));
	ck_assert_ptr_nonnull(strstr(value(out, "verdict"), "2 frames damaged"));
	free(out);
	/* A trailing partial frame. */
	uint8_t *half = raw_frame(PICTURE_NV12, PICTURE_MATH_BT601, w, h, &(struct spec){ 12, 0 });
	write_file("damaged.nv12", half, fs / 2, "ab");
	free(half);
	ck_assert_int_eq(run(&out, path_of("damaged.nv12"), "-f", "NV12", "-s", "320x240", NULL), 1);
	ck_assert_report(out, "frames seen", "13");
	ck_assert_report(out, "frames damaged", "3");
	free(out);
}
END_TEST

START_TEST(out_of_order)
{
	struct spec s[10];
	sequence(s, 10, 50, 0);
	struct spec t = s[4];
	s[4] = s[5];
	s[5] = t;
	write_raw("order.yuyv", PICTURE_YUYV, PICTURE_MATH_BT601, 320, 240, s, 10);
	char *out;
	ck_assert_int_eq(run(&out, path_of("order.yuyv"), "-f", "YUYV", "-s", "320x240", NULL), 1);
	ck_assert_report(out, "frames out of order", "1");
	ck_assert_report(out, "frames missing", "0");
	ck_assert_report(out, "frames intact", "10");
	ck_assert_ptr_nonnull(strstr(value(out, "verdict"), "1 frames out of order"));
	free(out);
	/* A repeated frame is out of order too. */
	s[5] = s[4];
	write_raw("repeat.yuyv", PICTURE_YUYV, PICTURE_MATH_BT601, 320, 240, s, 10);
	ck_assert_int_eq(run(&out, path_of("repeat.yuyv"), "-f", "YUYV", "-s", "320x240", NULL), 1);
	ck_assert_report(out, "frames out of order", "1");
	free(out);
}
END_TEST

START_TEST(brightness_steps)
{
	struct spec s[12];
	sequence(s, 6, 0, 0);
	sequence(s + 6, 6, 6, 32);
	write_raw("bright.yuyv", PICTURE_YUYV, PICTURE_MATH_BT601, 320, 240, s, 12);
	char *out;
	ck_assert_int_eq(run(&out, path_of("bright.yuyv"), "-f", "YUYV", "-s", "320x240",
			     "--expect-brightness", "32", NULL), 0);
	ck_assert_report(out, "brightness", "0->32");
	free(out);
	ck_assert_int_eq(run(&out, path_of("bright.yuyv"), "-f", "YUYV", "-s", "320x240",
			     "--expect-brightness", "0", NULL), 1);
	ck_assert_ptr_nonnull(strstr(value(out, "verdict"), "last brightness 32, expected 0"));
	free(out);
	sequence(s, 12, 0, -16);
	write_raw("dark.yuyv", PICTURE_YUYV, PICTURE_MATH_BT601, 320, 240, s, 12);
	ck_assert_int_eq(run(&out, path_of("dark.yuyv"), "-f", "YUYV", "-s", "320x240",
			     "--expect-brightness", "-16", NULL), 0);
	ck_assert_report(out, "brightness", "-16");
	free(out);
}
END_TEST

/* Converted layouts, as libv4lconvert and JPEG decoders make them. */
START_TEST(converted_formats)
{
	static const struct {
		const char *name, *format;
		enum picture_layout layout;
		enum picture_math math;
	} cases[] = {
		{ "conv.rgb", "RGB3", PICTURE_RGB24, PICTURE_MATH_V4LFAST },
		{ "conv2.rgb", "rgb24", PICTURE_RGB24, PICTURE_MATH_NOEXPAND },
		{ "conv.bgr", "BGR3", PICTURE_BGR24, PICTURE_MATH_BT601 },
		{ "conv.yu12", "YU12", PICTURE_YU12, PICTURE_MATH_BT601 },
		{ "conv.i420", "i420", PICTURE_YU12, PICTURE_MATH_JFIF },
		{ "conv.yv12", "YV12", PICTURE_YV12, PICTURE_MATH_BT601 },
	};
	struct spec s[8];
	sequence(s, 8, 1000, 8);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_raw(cases[i].name, cases[i].layout, cases[i].math, 320, 240, s, 8);
		char *out;
		ck_assert_msg(run(&out, path_of(cases[i].name), "-f", cases[i].format, "-s", "320x240", NULL) == 0,
			      "%s", cases[i].name);
		ck_assert_report(out, "frames intact", "8");
		free(out);
	}
	/* Wrong size or format given: nothing checks. */
	char *out;
	ck_assert_int_eq(run(&out, path_of("conv.rgb"), "-f", "BGR3", "-s", "320x240", NULL), 1);
	ck_assert_report(out, "frames intact", "0");
	free(out);
	ck_assert_int_eq(run(&out, path_of("conv.yu12"), "-f", "NV12", "-s", "320x240", NULL), 1);
	free(out);
	ck_assert_int_eq(run(&out, path_of("conv.yu12"), "-f", "YU12", "-s", "240x320", NULL), 1);
	free(out);
}
END_TEST

START_TEST(mjpeg_files)
{
	unsigned w = 320, h = 240;
	size_t cap = 4 << 20, off[21];
	uint8_t *buf = malloc(cap);
	struct spec s[20];
	sequence(s, 20, 300, 0);
	for (size_t i = 10; i < 20; i++)
		s[i].brightness = -24;
	size_t len = camera_mjpeg(buf, cap, w, h, s, 20, off);
	write_file("good.mjpeg", buf, len, "wb");
	char *out;
	ck_assert_int_eq(run(&out, path_of("good.mjpeg"), "-f", "MJPG", "-s", "320x240",
			     "--expect-brightness", "-24", NULL), 0);
	ck_assert_report(out, "frames seen", "20");
	ck_assert_report(out, "frames intact", "20");
	ck_assert_report(out, "brightness", "0->-24");
	ck_assert_report(out, "first sequence", "300");
	free(out);

	/* As RGB24 from a JPEG decoder (fancy upsampling). */
	FILE *rgb = fopen(path_of("decoded.rgb"), "wb");
	for (size_t i = 0; i < 20; i++) {
		struct jpeg_decompress_struct d;
		struct jpeg_error_mgr e;
		d.err = jpeg_std_error(&e);
		jpeg_create_decompress(&d);
		jpeg_mem_src(&d, buf + off[i], (unsigned long)(off[i + 1] - off[i]));
		jpeg_read_header(&d, TRUE);
		jpeg_start_decompress(&d);
		uint8_t row[320 * 3];
		while (d.output_scanline < h) {
			JSAMPROW r = row;
			jpeg_read_scanlines(&d, &r, 1);
			fwrite(row, 1, sizeof(row), rgb);
		}
		jpeg_finish_decompress(&d);
		jpeg_destroy_decompress(&d);
	}
	fclose(rgb);
	ck_assert_int_eq(run(&out, path_of("decoded.rgb"), "-f", "RGB24", "-s", "320x240", NULL), 0);
	ck_assert_report(out, "frames intact", "20");
	free(out);

	/* Frame 5 cut short, junk between frames 12 and 13, frame 17's COM
	 * corrupted, frame 18's scan corrupted. */
	FILE *f = fopen(path_of("broken.mjpeg"), "wb");
	for (size_t i = 0; i < 20; i++) {
		size_t l = off[i + 1] - off[i];
		uint8_t *fr = malloc(l);
		memcpy(fr, buf + off[i], l);
		if (i == 5)
			l /= 2;
		if (i == 17)
			fr[20] ^= 1;
		if (i == 18)
			for (size_t k = l / 2; k < l / 2 + 64; k++)
				if (fr[k] != 0xff && fr[k - 1] != 0xff && (fr[k] ^ 0x5a) != 0xff)
					fr[k] ^= 0x5a; /* no new markers */
		fwrite(fr, 1, l, f);
		if (i == 12)
			fwrite("garbage between frames", 1, 22, f);
		free(fr);
	}
	fclose(f);
	ck_assert_int_eq(run(&out, path_of("broken.mjpeg"), "-f", "mjpeg", "-s", "320x240", "-v", NULL), 1);
	ck_assert_report(out, "frames seen", "21");
	ck_assert_report(out, "frames intact", "17");
	ck_assert_report(out, "frames damaged", "4");
	ck_assert_report(out, "frames out of order", "0");
	ck_assert_ptr_nonnull(strstr(out, "frame 5: seq=305 "));
	ck_assert_ptr_nonnull(strstr(out, "frame 13: seq=? damaged (not a whole JPEG)"));
	ck_assert_ptr_nonnull(strstr(out, "frame 18: seq=? damaged (stamp corrupt)"));
	free(out);
	free(buf);
}
END_TEST

START_TEST(capture_times)
{
	struct spec s[10];
	sequence(s, 10, 0, 0);
	write_raw("timed.yuyv", PICTURE_YUYV, PICTURE_MATH_BT601, 320, 240, s, 10);
	FILE *ns = fopen(path_of("times.ns"), "w"), *sec = fopen(path_of("times.s"), "w");
	fprintf(sec, "# capture times\n");
	for (unsigned i = 0; i < 10; i++) {
		uint64_t t = T0_NS + i * INTERVAL_NS;
		fprintf(ns, "%llu\n", (unsigned long long)(t + 5000000u + i * 100000u));
		uint64_t c = t + 7500000u;
		fprintf(sec, "%llu.%09llu\n", (unsigned long long)(c / 1000000000u),
			(unsigned long long)(c % 1000000000u));
	}
	fclose(ns);
	fclose(sec);
	char *out;
	ck_assert_int_eq(run(&out, path_of("timed.yuyv"), "-f", "YUYV", "-s", "320x240", "--times",
			     path_of("times.ns"), NULL), 0);
	ck_assert_report(out, "latency frames", "10");
	ck_assert_report(out, "latency p50", "5.400");
	ck_assert_report(out, "latency p90", "5.800");
	ck_assert_report(out, "latency p99", "5.900");
	ck_assert_report(out, "latency max", "5.900");
	free(out);
	ck_assert_int_eq(run(&out, path_of("timed.yuyv"), "-f", "YUYV", "-s", "320x240", "-t",
			     path_of("times.s"), NULL), 0);
	ck_assert_report(out, "latency p50", "7.500");
	free(out);
	/* One time too few. */
	FILE *few = fopen(path_of("times.few"), "w");
	for (unsigned i = 0; i < 9; i++)
		fprintf(few, "%llu\n", (unsigned long long)(T0_NS + i * INTERVAL_NS));
	fclose(few);
	ck_assert_int_eq(run(&out, path_of("timed.yuyv"), "-f", "YUYV", "-s", "320x240", "-t",
			     path_of("times.few"), NULL), 1);
	ck_assert_ptr_nonnull(strstr(value(out, "verdict"), "9 capture times for 10 frames"));
	free(out);
	write_file("times.bad", "12.5\nhello\n", 11, "wb");
	ck_assert_int_eq(run(NULL, path_of("timed.yuyv"), "-f", "YUYV", "-s", "320x240", "-t",
			     path_of("times.bad"), NULL), 2);
	ck_assert_int_eq(run(NULL, path_of("timed.yuyv"), "-f", "YUYV", "-s", "320x240", "-t",
			     path_of("nonexistent"), NULL), 2);
}
END_TEST

START_TEST(usage_errors)
{
	write_file("tiny", "x", 1, "wb");
	const char *f = path_of("tiny");
	ck_assert_int_eq(run(NULL, NULL), 2);
	ck_assert_int_eq(run(NULL, "--help", NULL), 0);
	ck_assert_int_eq(run(NULL, f, "-s", "320x240", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "YUYV", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "H264", "-s", "320x240", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "YUYV", "-s", "320x", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "YUYV", "-s", "x240", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "YUYV", "-s", "321x240", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "YUYV", "-s", "100000x100000", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "YUYV", "-s", "99999999999999999999x2", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "YUYV", "-s", "16x16", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "YUYV", "-s", "320x240", "--max-missing", "-1", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "YUYV", "-s", "320x240", "--expect-brightness", "x", NULL), 2);
	ck_assert_int_eq(run(NULL, f, "-f", "YUYV", "-s", "320x240", "--bogus", NULL), 2);
	ck_assert_int_eq(run(NULL, f, f, "-f", "YUYV", "-s", "320x240", NULL), 2);
	ck_assert_int_eq(run(NULL, path_of("nonexistent"), "-f", "YUYV", "-s", "320x240", NULL), 2);
	ck_assert_int_eq(run(NULL, dir, "-f", "YUYV", "-s", "320x240", NULL), 2);
}
END_TEST

/* A run that ended normally: exit 0 or 1 with a verdict. */
static void ran_cleanly(int status, const char *out, const char *what)
{
	ck_assert_msg(status == 0 || status == 1, "%s: exit status %d", what, status);
	ck_assert_msg(strstr(out, "\nverdict: ") != NULL, "%s: no verdict:\n%s", what, out);
}

START_TEST(garbage_and_empty)
{
	static const char *formats[] = { "YUYV", "NV12", "RGB24", "BGR24", "YU12", "YV12", "MJPEG" };
	uint8_t junk[100000];
	srand(7);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(rand() >> 7);
	/* Sprinkle markers so the JPEG splitter has work. */
	for (size_t i = 0; i + 1 < sizeof(junk); i += 997) {
		junk[i] = 0xff;
		junk[i + 1] = (uint8_t)(0xd8 + i % 3);
	}
	write_file("junk", junk, sizeof(junk), "wb");
	write_file("empty", "", 0, "wb");
	for (size_t k = 0; k < sizeof(formats) / sizeof(formats[0]); k++) {
		char *out;
		int st = run(&out, path_of("junk"), "-f", formats[k], "-s", "160x120", NULL);
		ran_cleanly(st, out, formats[k]);
		ck_assert_int_eq(st, 1);
		ck_assert_report(out, "frames intact", "0");
		free(out);
		st = run(&out, path_of("empty"), "-f", formats[k], "-s", "160x120", NULL);
		ran_cleanly(st, out, formats[k]);
		ck_assert_int_eq(st, 1);
		ck_assert_report(out, "frames seen", "0");
		ck_assert_report(out, "first sequence", "-");
		free(out);
	}
}
END_TEST

/* Mutated good captures: never a crash, always a verdict. */
START_TEST(fuzz)
{
	unsigned w = 160, h = 120;
	size_t cap = 1 << 20, off[9];
	uint8_t *good = malloc(cap), *bad = malloc(cap * 2);
	struct spec s[8];
	sequence(s, 8, 0, 0);
	size_t len = camera_mjpeg(good, cap, w, h, s, 8, off);
	srand(12345);
	for (unsigned round = 0; round < 40; round++) {
		size_t n = len;
		memcpy(bad, good, len);
		unsigned edits = 1 + (unsigned)rand() % 8;
		for (unsigned e = 0; e < edits; e++) {
			size_t at = (size_t)rand() % n;
			switch (rand() % 5) {
			case 0:
				bad[at] ^= (uint8_t)(1u << (rand() % 8));
				break;
			case 1:
				bad[at] = 0xff;
				break;
			case 2: /* cut */
				n = at + 1;
				break;
			case 3: /* duplicate a chunk */
				if (n + 300 < cap * 2) {
					memmove(bad + at + 300, bad + at, n - at);
					n += 300;
				}
				break;
			default: /* big segment length */
				bad[at] = 0xff;
				if (at + 3 < n) {
					bad[at + 1] = 0xe1;
					bad[at + 2] = 0xff;
					bad[at + 3] = 0xff;
				}
				break;
			}
		}
		write_file("fuzz.mjpeg", bad, n, "wb");
		char *out;
		int st = run(&out, path_of("fuzz.mjpeg"), "-f", "MJPEG", "-s", "160x120", NULL);
		ran_cleanly(st, out, "mjpeg");
		free(out);
		st = run(&out, path_of("fuzz.mjpeg"), "-f", "NV12", "-s", "160x120", NULL);
		ran_cleanly(st, out, "nv12");
		free(out);
	}
	free(good);
	free(bad);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("framecheck");
	TCase *tc = tcase_create("framecheck");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, good_yuyv);
	tcase_add_test(tc, missing_frames);
	tcase_add_test(tc, damaged_frames);
	tcase_add_test(tc, out_of_order);
	tcase_add_test(tc, brightness_steps);
	tcase_add_test(tc, converted_formats);
	tcase_add_test(tc, mjpeg_files);
	tcase_add_test(tc, capture_times);
	tcase_add_test(tc, usage_errors);
	tcase_add_test(tc, garbage_and_empty);
	tcase_add_test(tc, fuzz);
	suite_add_tcase(s, tc);
	return s;
}

static void remove_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH-TO-uvcuse-framecheck\n", argv[0]);
		return 2;
	}
	checker = argv[1];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	int status = unit_run(suite());
	remove_dir();
	return status;
}

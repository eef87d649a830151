/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-convertbench OUTDIR FRAMES: src/convert/'s converter on the vcam's
 * frames, on one thread and through the worker pool, for the pairs of
 * scripts/bench. Prints one line per pair ("PAIR fps N pool M threads T")
 * and leaves the source frames in OUTDIR/PAIR.src so that scripts/bench can
 * time ffmpeg on the same frames. */
#include <errno.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "convert/catalogue.h"
#include "convert/converter.h"
#include "convert/pool.h"
#include "frames.h"

struct pair {
	const char *name;
	enum vcam_pixel pixel;
	uint32_t src, dst;
	unsigned width, height;
};

static const struct pair pairs[] = {
	{ "mjpeg-rgb24-1920x1080", VCAM_PIXEL_MJPEG, V4L2_PIX_FMT_MJPEG, V4L2_PIX_FMT_RGB24, 1920, 1080 },
	{ "mjpeg-yu12-1920x1080", VCAM_PIXEL_MJPEG, V4L2_PIX_FMT_MJPEG, V4L2_PIX_FMT_YUV420, 1920, 1080 },
	{ "yuyv-rgb24-1280x720", VCAM_PIXEL_YUYV, V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_RGB24, 1280, 720 },
	{ "yuyv-yu12-1280x720", VCAM_PIXEL_YUYV, V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_YUV420, 1280, 720 },
	{ "nv12-rgb24-1280x720", VCAM_PIXEL_NV12, V4L2_PIX_FMT_NV12, V4L2_PIX_FMT_RGB24, 1280, 720 },
};

#define PHASES 16u

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int run(const struct pair *p, const char *dir, unsigned frames)
{
	int ret = 1;
	struct convert_pool *pool = NULL;
	uint8_t *outs[8] = { NULL };
	struct vcam_frames *vf = vcam_frames_new(p->pixel, p->width, p->height, 0);
	struct converter *c = converter_new();
	uint32_t bpl, size;
	convert_frame_layout(p->dst, p->width, p->height, &bpl, &size);
	uint8_t *out = malloc(size);
	uint8_t *src[PHASES] = { NULL };
	size_t len[PHASES];
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.src", dir, p->name);
	FILE *f = fopen(path, "wb");
	if (!vf || !c || !out || !f)
		goto out;
	for (unsigned i = 0; i < PHASES; i++) {
		const uint8_t *frame = vcam_frames_get(vf, i, 1000000ull * i, &len[i]);
		if (!frame || !(src[i] = malloc(len[i])))
			goto out;
		memcpy(src[i], frame, len[i]);
	}
	/* The file holds the same frames in the same order as the loop below. */
	for (unsigned i = 0; i < frames; i++)
		if (fwrite(src[i % PHASES], 1, len[i % PHASES], f) != len[i % PHASES])
			goto out;
	double t0 = now();
	for (unsigned i = 0; i < frames; i++) {
		long n = converter_run(c, p->src, p->width, p->height, src[i % PHASES],
				       len[i % PHASES], p->dst, out, size);
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", p->name, converter_error(c));
			goto out;
		}
	}
	double one = frames / (now() - t0);

	/* The pool, one thread per core, at most IN_FLIGHT frames outstanding
	 * (each into its own buffer), collected in order as the loop would. */
	enum { IN_FLIGHT = 8 };
	pool = convert_pool_new(0);
	for (unsigned i = 0; i < IN_FLIGHT; i++)
		if (!(outs[i] = malloc(size)))
			goto out;
	if (!pool)
		goto out;
	t0 = now();
	unsigned sent = 0, done = 0;
	while (done < frames) {
		while (sent < frames && sent - done < IN_FLIGHT) {
			struct convert_job job = {
				.src_fourcc = p->src, .dst_fourcc = p->dst, .width = p->width,
				.height = p->height, .src = src[sent % PHASES],
				.src_len = len[sent % PHASES], .dst = outs[sent % IN_FLIGHT],
				.dst_cap = size,
			};
			if (convert_pool_submit(pool, &job))
				goto out;
			sent++;
		}
		struct pollfd pfd = { .fd = convert_pool_fd(pool), .events = POLLIN };
		poll(&pfd, 1, 1000);
		struct convert_job job;
		while (convert_pool_collect(pool, &job)) {
			if (job.result < 0)
				goto out;
			done++;
		}
	}
	printf("%s fps %.1f pool %.1f threads %u\n", p->name, one, frames / (now() - t0),
	       convert_pool_threads(pool));
	ret = 0;
out:
	if (f)
		fclose(f);
	for (unsigned i = 0; i < PHASES; i++)
		free(src[i]);
	convert_pool_free(pool);
	for (unsigned i = 0; i < 8; i++)
		free(outs[i]);
	free(out);
	converter_free(c);
	vcam_frames_free(vf);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc != 3 || atoi(argv[2]) < 1) {
		fprintf(stderr, "usage: uvcuse-convertbench OUTDIR FRAMES\n");
		return 2;
	}
	int status = 0;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		status |= run(&pairs[i], argv[1], (unsigned)atoi(argv[2]));
	return status;
}

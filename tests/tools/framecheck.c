/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-framecheck: proves that captured frames of the virtual camera are
 * whole, in order and fresh. See README.md for the report's lines. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <linux/videodev2.h>

#include "picture.h"
#include "stamp.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define MAX_BRIGHTNESS_STEPS 16

enum kind { KIND_RAW, KIND_MJPEG };

struct format {
	const char *name;
	uint32_t fourcc; /* V4L2 spelling, from videodev2.h */
	uint32_t fourcc2;
	enum kind kind;
	enum picture_layout layout;
};

static const struct format formats[] = {
	{ "YUYV", V4L2_PIX_FMT_YUYV, v4l2_fourcc('Y', 'U', 'Y', '2'), KIND_RAW, PICTURE_YUYV },
	{ "NV12", V4L2_PIX_FMT_NV12, 0, KIND_RAW, PICTURE_NV12 },
	{ "UYVY", V4L2_PIX_FMT_UYVY, 0, KIND_RAW, PICTURE_UYVY },
	{ "RGB24", V4L2_PIX_FMT_RGB24, 0, KIND_RAW, PICTURE_RGB24 },
	{ "BGR24", V4L2_PIX_FMT_BGR24, 0, KIND_RAW, PICTURE_BGR24 },
	{ "YU12", V4L2_PIX_FMT_YUV420, v4l2_fourcc('I', '4', '2', '0'), KIND_RAW, PICTURE_YU12 },
	{ "YV12", V4L2_PIX_FMT_YVU420, 0, KIND_RAW, PICTURE_YV12 },
	{ "MJPEG", V4L2_PIX_FMT_MJPEG, V4L2_PIX_FMT_JPEG, KIND_MJPEG, PICTURE_YUV444 },
	{ "SBGGR8", V4L2_PIX_FMT_SBGGR8, 0, KIND_RAW, PICTURE_SBGGR8 },
	{ "SGBRG8", V4L2_PIX_FMT_SGBRG8, 0, KIND_RAW, PICTURE_SGBRG8 },
	{ "SGRBG8", V4L2_PIX_FMT_SGRBG8, 0, KIND_RAW, PICTURE_SGRBG8 },
	{ "SRGGB8", V4L2_PIX_FMT_SRGGB8, 0, KIND_RAW, PICTURE_SRGGB8 },
};

/* The maths a converter to this layout may have used, each with the
 * tolerance it gets. The arithmetic of libv4lconvert's raw converters is
 * modelled exactly, so they are judged tightly; where a JPEG may be the
 * source (RGB from a JPEG decoder, YU12 from a JPEG's raw YCbCr or from a
 * range-correct converter) the JPEG tolerances apply. */
struct candidate {
	enum picture_math math;
	const struct picture_tolerance *tol;
};

#define MAX_CANDIDATES 6

static unsigned candidates_of(enum picture_layout layout, struct candidate c[MAX_CANDIDATES])
{
	switch (layout) {
	case PICTURE_YUYV:
	case PICTURE_UYVY:
	case PICTURE_NV12:
		c[0] = (struct candidate){ PICTURE_MATH_BT601, &picture_tolerance_exact };
		return 1;
	case PICTURE_YU12:
	case PICTURE_YV12:
		c[0] = (struct candidate){ PICTURE_MATH_BT601, &picture_tolerance_converted };
		c[1] = (struct candidate){ PICTURE_MATH_JFIF, &picture_tolerance_jpeg_420 };
		c[2] = (struct candidate){ PICTURE_MATH_BT601, &picture_tolerance_jpeg_420 };
		return 3;
	case PICTURE_RGB24:
	case PICTURE_BGR24:
		c[0] = (struct candidate){ PICTURE_MATH_V4LFAST, &picture_tolerance_converted };
		c[1] = (struct candidate){ PICTURE_MATH_NOEXPAND, &picture_tolerance_converted };
		c[2] = (struct candidate){ PICTURE_MATH_BT601, &picture_tolerance_converted };
		c[3] = (struct candidate){ PICTURE_MATH_JPEGDEC, &picture_tolerance_jpeg_rgb };
		c[4] = (struct candidate){ PICTURE_MATH_BT601, &picture_tolerance_jpeg_rgb };
		c[5] = (struct candidate){ PICTURE_MATH_JPEGMERGED, &picture_tolerance_jpeg_rgb };
		return 6;
	case PICTURE_YUV444:
		c[0] = (struct candidate){ PICTURE_MATH_JFIF, &picture_tolerance_jpeg };
		return 1;
	case PICTURE_SBGGR8: /* a sensor's own samples: nothing converts them */
	case PICTURE_SGBRG8:
	case PICTURE_SGRBG8:
	case PICTURE_SRGGB8:
		c[0] = (struct candidate){ PICTURE_MATH_BT601, &picture_tolerance_exact };
		return 1;
	}
	return 0;
}

struct options {
	const char *file, *times;
	const struct format *format;
	unsigned width, height;
	uint64_t max_missing; /* UINT64_MAX: unlimited */
	uint64_t min_frames;
	bool expect_brightness_set;
	int expect_brightness;
	bool verbose;
};

struct expected {
	uint8_t *yu12;
	int brightness;
	bool ready;
};

struct checker {
	const struct options *o;
	size_t yu12_size;
	struct expected cache[PICTURE_PHASES];
	uint8_t *scratch;  /* expected picture with the frame's band */
	uint8_t *decoded;  /* MJPEG decoded to YUV 4:4:4 */
	unsigned last_candidate;

	/* statistics */
	uint64_t seen, intact, damaged, out_of_order, stamped, luma_frames;
	double luma_sum;
	bool have_prev;
	uint32_t prev_seq, first_seq, last_seq;
	uint64_t prev_t, first_t, last_t;
	uint64_t interval_n;
	double interval_sum, interval_min, interval_max;
	uint32_t *seqs;
	size_t n_seqs, cap_seqs;
	int brightness_steps[MAX_BRIGHTNESS_STEPS];
	unsigned n_brightness;
	bool brightness_more;
	bool have_last_brightness;
	int last_brightness;
	int64_t *stamp_times; /* per frame seen; INT64_MIN when none */
	size_t cap_times;
};

struct result {
	bool stamped, pixels_read, intact;
	struct stamp st;
	const char *why;
	enum picture_math math;
	struct picture_diff diff;
	double luma;
};

static void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "uvcuse-framecheck: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'uvcuse-framecheck --help'.\n");
	exit(EXIT_USAGE);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "uvcuse-framecheck: out of memory\n");
		exit(EXIT_USAGE);
	}
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "uvcuse-framecheck: out of memory\n");
		exit(EXIT_USAGE);
	}
	return p;
}

/* ---- expected pictures ---- */

static const uint8_t *expected_for(struct checker *c, const struct stamp *st)
{
	unsigned phase = st->sequence % PICTURE_PHASES;
	struct expected *e = &c->cache[phase];
	if (!e->yu12)
		e->yu12 = xmalloc(c->yu12_size);
	if (!e->ready || e->brightness != st->brightness) {
		if (picture_render(e->yu12, c->o->width, c->o->height, phase, st->brightness))
			return NULL;
		e->brightness = st->brightness;
		e->ready = true;
	}
	memcpy(c->scratch, e->yu12, c->yu12_size);
	if (stamp_write(PICTURE_YU12, c->scratch, c->o->width, c->o->height, st))
		return NULL;
	return c->scratch;
}

/* Compares against each candidate, the last one that matched first; each
 * math is compared once. */
static void judge_pixels(struct checker *c, enum picture_layout layout, const uint8_t *pixels,
			 struct result *r)
{
	const uint8_t *want = expected_for(c, &r->st);
	if (!want) {
		r->why = "cannot make the expected picture";
		return;
	}
	struct candidate cand[MAX_CANDIDATES];
	struct picture_diff diffs[MAX_CANDIDATES];
	bool done[MAX_CANDIDATES] = { false };
	unsigned n = candidates_of(layout, cand);
	bool have_best = false;
	for (unsigned k = 0; k < n; k++) {
		unsigned i = (c->last_candidate + k) % n;
		unsigned same = i;
		for (unsigned j = 0; j < n; j++)
			if (done[j] && cand[j].math == cand[i].math)
				same = j;
		if (same == i) {
			if (picture_compare(layout, cand[i].math, pixels, want, c->o->width,
					    c->o->height, &diffs[i])) {
				r->why = "out of memory comparing";
				return;
			}
			done[i] = true;
		} else {
			diffs[i] = diffs[same];
		}
		const struct picture_diff *d = &diffs[i];
		if (picture_within(d, cand[i].tol)) {
			r->diff = *d;
			r->math = cand[i].math;
			r->intact = true;
			c->last_candidate = i;
			return;
		}
		if (!have_best || d->block < r->diff.block) {
			r->diff = *d;
			r->math = cand[i].math;
			have_best = true;
		}
	}
	r->why = "pixels differ from the expected picture";
}

static const char *stamp_error(int err)
{
	switch (err) {
	case -ENOMSG:
		return "no stamp";
	case -EBADMSG:
		return "stamp corrupt";
	default:
		return "stamp unreadable";
	}
}

static void check_raw(struct checker *c, const uint8_t *frame, size_t len, struct result *r)
{
	const struct options *o = c->o;
	enum picture_layout layout = o->format->layout;
	if (len != picture_frame_size(layout, o->width, o->height)) {
		r->why = "truncated frame";
		return;
	}
	r->pixels_read = true;
	r->luma = picture_mean_luma(layout, frame, o->width, o->height);
	int err = stamp_read(layout, frame, o->width, o->height, &r->st);
	if (err) {
		r->why = stamp_error(err);
		return;
	}
	r->stamped = true;
	judge_pixels(c, layout, frame, r);
}

/* ---- JPEG decoding ---- */

struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jump;
	unsigned warnings;
};

static void jerr_exit(j_common_ptr cinfo)
{
	longjmp(((struct jerr *)cinfo->err)->jump, 1);
}

static void jerr_message(j_common_ptr cinfo, int level)
{
	if (level < 0)
		((struct jerr *)cinfo->err)->warnings++;
}

/* Decodes to Y Cb Cr per pixel without fancy upsampling. NULL when fine,
 * else why not. */
static const char *decode_jpeg(const uint8_t *data, size_t len, unsigned width, unsigned height,
			       uint8_t *out)
{
	struct jpeg_decompress_struct d;
	struct jerr err;
	const char *volatile why = NULL;
	d.err = jpeg_std_error(&err.pub);
	err.pub.error_exit = jerr_exit;
	err.pub.emit_message = jerr_message;
	err.warnings = 0;
	jpeg_create_decompress(&d);
	if (setjmp(err.jump)) {
		jpeg_destroy_decompress(&d);
		return why ? why : "JPEG does not decode";
	}
	jpeg_mem_src(&d, data, (unsigned long)len);
	if (jpeg_read_header(&d, TRUE) != JPEG_HEADER_OK) {
		why = "JPEG has no image";
		longjmp(err.jump, 1);
	}
	if (d.image_width != width || d.image_height != height || d.num_components != 3) {
		why = "JPEG has another size";
		longjmp(err.jump, 1);
	}
	d.out_color_space = JCS_YCbCr;
	d.do_fancy_upsampling = FALSE;
	d.dct_method = JDCT_ISLOW;
	jpeg_start_decompress(&d);
	if (d.output_components != 3) {
		why = "JPEG has another size";
		longjmp(err.jump, 1);
	}
	while (d.output_scanline < d.output_height) {
		JSAMPROW row = out + (size_t)d.output_scanline * width * 3;
		if (jpeg_read_scanlines(&d, &row, 1) != 1) {
			why = "JPEG ends early";
			longjmp(err.jump, 1);
		}
	}
	jpeg_finish_decompress(&d);
	jpeg_destroy_decompress(&d);
	return err.warnings ? "JPEG data corrupt" : NULL;
}

static void check_jpeg(struct checker *c, const uint8_t *frame, size_t len, bool whole,
		       struct result *r)
{
	const struct options *o = c->o;
	if (!whole) {
		r->why = "not a whole JPEG";
		/* Still try the stamp for ordering. */
		if (len >= 2 && frame[0] == 0xff && frame[1] == 0xd8 &&
		    stamp_jpeg_read(frame, len, &r->st) == 0)
			r->stamped = true;
		return;
	}
	int err = stamp_jpeg_read(frame, len, &r->st);
	if (err) {
		r->why = stamp_error(err);
		return;
	}
	r->stamped = true;
	const char *why = decode_jpeg(frame, len, o->width, o->height, c->decoded);
	if (why) {
		r->why = why;
		return;
	}
	r->pixels_read = true;
	r->luma = picture_mean_luma(PICTURE_YUV444, c->decoded, o->width, o->height);
	struct stamp band;
	err = stamp_read(PICTURE_YUV444, c->decoded, o->width, o->height, &band);
	if (err || band.sequence != r->st.sequence || band.time_ns != r->st.time_ns ||
	    band.brightness != r->st.brightness) {
		r->why = err ? "stamp band unreadable in the JPEG's pixels"
			     : "stamp band and COM disagree";
		return;
	}
	judge_pixels(c, PICTURE_YUV444, c->decoded, r);
}

/* ---- statistics ---- */

static void record(struct checker *c, const struct result *r, size_t index)
{
	c->seen++;
	if (r->intact)
		c->intact++;
	else
		c->damaged++;
	if (r->pixels_read) {
		c->luma_sum += r->luma;
		c->luma_frames++;
	}
	if (index >= c->cap_times) {
		c->cap_times = c->cap_times ? c->cap_times * 2 : 256;
		c->stamp_times = xrealloc(c->stamp_times, c->cap_times * sizeof(*c->stamp_times));
	}
	c->stamp_times[index] = r->stamped && r->st.time_ns <= INT64_MAX ? (int64_t)r->st.time_ns
									  : INT64_MIN;
	if (!r->stamped)
		return;
	uint32_t seq = r->st.sequence;
	uint64_t t = r->st.time_ns;
	if (c->have_prev) {
		if (seq <= c->prev_seq) {
			c->out_of_order++;
		} else {
			double dt = ((double)t - (double)c->prev_t) / 1e6;
			c->interval_sum += dt;
			if (!c->interval_n || dt < c->interval_min)
				c->interval_min = dt;
			if (!c->interval_n || dt > c->interval_max)
				c->interval_max = dt;
			c->interval_n++;
		}
	} else {
		c->first_seq = seq;
		c->first_t = t;
	}
	c->have_prev = true;
	c->prev_seq = seq;
	c->prev_t = t;
	c->last_seq = seq;
	c->last_t = t;
	c->stamped++;
	if (c->n_seqs == c->cap_seqs) {
		c->cap_seqs = c->cap_seqs ? c->cap_seqs * 2 : 256;
		c->seqs = xrealloc(c->seqs, c->cap_seqs * sizeof(*c->seqs));
	}
	c->seqs[c->n_seqs++] = seq;
	if (!c->have_last_brightness || r->st.brightness != c->last_brightness) {
		if (c->n_brightness < MAX_BRIGHTNESS_STEPS)
			c->brightness_steps[c->n_brightness++] = r->st.brightness;
		else
			c->brightness_more = true;
		c->have_last_brightness = true;
		c->last_brightness = r->st.brightness;
	}
}

static void verbose_line(size_t index, const struct result *r)
{
	printf("frame %zu: ", index);
	if (r->stamped)
		printf("seq=%" PRIu32 " t=%" PRIu64 " b=%d ", r->st.sequence, r->st.time_ns,
		       (int)r->st.brightness);
	else
		printf("seq=? ");
	if (r->intact)
		printf("intact");
	else
		printf("damaged (%s)", r->why ? r->why : "?");
	if (r->diff.samples)
		printf(" math=%s mae=%.2f bias=%.2f block=%.2f@%u,%u diffs=%" PRIu64,
		       picture_math_name(r->math), r->diff.mae, r->diff.bias, r->diff.block,
		       r->diff.block_x, r->diff.block_y, r->diff.mismatches);
	printf("\n");
}

static void check_frame(struct checker *c, const uint8_t *data, size_t len, bool whole)
{
	struct result r;
	memset(&r, 0, sizeof(r));
	size_t index = c->seen;
	if (c->o->format->kind == KIND_MJPEG)
		check_jpeg(c, data, len, whole, &r);
	else
		check_raw(c, data, len, &r);
	record(c, &r, index);
	if (c->o->verbose)
		verbose_line(index, &r);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sequence numbers between the lowest and highest seen that no frame has. */
static uint64_t missing_count(struct checker *c)
{
	if (!c->n_seqs)
		return 0;
	qsort(c->seqs, c->n_seqs, sizeof(*c->seqs), cmp_u32);
	uint64_t distinct = 1;
	for (size_t i = 1; i < c->n_seqs; i++)
		if (c->seqs[i] != c->seqs[i - 1])
			distinct++;
	uint64_t span = (uint64_t)c->seqs[c->n_seqs - 1] - c->seqs[0] + 1;
	return span - distinct;
}

/* ---- input ---- */

struct input {
	const uint8_t *data;
	size_t len;
	void *map;
	uint8_t *heap;
};

static bool read_all(int fd, struct input *in)
{
	size_t cap = 1 << 20, len = 0;
	uint8_t *buf = xmalloc(cap);
	for (;;) {
		if (len == cap) {
			if (cap > SIZE_MAX / 2) {
				free(buf);
				errno = EFBIG;
				return false;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return false;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	in->data = in->heap = buf;
	in->len = len;
	return true;
}

static bool open_input(const char *path, struct input *in)
{
	memset(in, 0, sizeof(*in));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return false;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		return false;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			close(fd);
			in->map = m;
			in->data = m;
			in->len = (size_t)st.st_size;
			return true;
		}
	}
	bool ok = read_all(fd, in);
	int saved = errno;
	close(fd);
	errno = saved;
	return ok;
}

static void close_input(struct input *in)
{
	if (in->map)
		munmap(in->map, in->len);
	free(in->heap);
}

/* One time per line: "12.345678" (seconds, with a decimal point) or
 * "12345678000" (nanoseconds, an integer); blank lines and '#' comments are
 * skipped; anything after the number is ignored. */
static bool parse_time(const char *s, int64_t *ns)
{
	while (*s == ' ' || *s == '\t')
		s++;
	bool neg = *s == '-';
	if (neg)
		s++;
	if (*s < '0' || *s > '9')
		return false;
	uint64_t ip = 0;
	while (*s >= '0' && *s <= '9') {
		if (ip > (UINT64_MAX - 9) / 10)
			return false;
		ip = ip * 10 + (uint64_t)(*s++ - '0');
	}
	uint64_t v;
	if (*s == '.') {
		s++;
		uint64_t frac = 0;
		unsigned digits = 0;
		while (*s >= '0' && *s <= '9') {
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				digits++;
			}
			s++;
		}
		while (digits < 9) {
			frac *= 10;
			digits++;
		}
		if (ip > (uint64_t)INT64_MAX / 1000000000u - 1)
			return false;
		v = ip * 1000000000u + frac;
	} else {
		v = ip;
	}
	if (v > (uint64_t)INT64_MAX)
		return false;
	if (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' && *s != ',' && *s != ';')
		return false;
	*ns = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

static int64_t *read_times(const char *path, size_t *count)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "uvcuse-framecheck: %s: %s\n", path, strerror(errno));
		exit(EXIT_USAGE);
	}
	size_t cap = 256, n = 0, lineno = 0;
	int64_t *t = xmalloc(cap * sizeof(*t));
	char *line = NULL;
	size_t lcap = 0;
	while (getline(&line, &lcap, f) >= 0) {
		lineno++;
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n' || *p == '\r' || *p == 0 || *p == '#')
			continue;
		int64_t v;
		if (!parse_time(p, &v)) {
			fprintf(stderr, "uvcuse-framecheck: %s:%zu: not a time\n", path, lineno);
			exit(EXIT_USAGE);
		}
		if (n == cap) {
			cap *= 2;
			t = xrealloc(t, cap * sizeof(*t));
		}
		t[n++] = v;
	}
	free(line);
	fclose(f);
	*count = n;
	return t;
}

/* ---- options ---- */

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: uvcuse-framecheck FILE --format F --size WxH [options]\n"
		"Checks frames captured from uvcuse-vcam: stamp, pixels, order, freshness.\n"
		"\n"
		"  -f, --format F            YUYV, UYVY, NV12, RGB24 (RGB3), BGR24 (BGR3), YU12, YV12,\n"
		"                            MJPEG (MJPG, JPEG), SBGGR8 (BA81), SGBRG8 (GBRG),\n"
		"                            SGRBG8 (GRBG), SRGGB8 (RGGB); V4L2 fourccs and lower\n"
		"                            case too\n"
		"  -s, --size WxH            frame size (even, 16..16384)\n"
		"  -t, --times FILE          capture times, one per line, CLOCK_MONOTONIC:\n"
		"                            seconds with a decimal point, or integer ns\n"
		"      --max-missing N       fail when more sequence numbers are missing\n"
		"                            (default: only reported)\n"
		"      --min-frames N        fail with fewer frames (default 1)\n"
		"      --expect-brightness B fail unless the last frame has brightness B\n"
		"  -v, --verbose             one line per frame\n"
		"  -h, --help\n"
		"\n"
		"Exit status: 0 all good, 1 some check failed (see 'verdict:'), 2 usage\n"
		"error or unreadable file.\n");
}

static bool parse_u64(const char *s, uint64_t *v)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static bool parse_int(const char *s, int *v)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	long x = strtol(s, &end, 10);
	if (errno || *end || x < INT16_MIN || x > INT16_MAX)
		return false;
	*v = (int)x;
	return true;
}

static bool parse_size(const char *s, unsigned *w, unsigned *h)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	unsigned long a = strtoul(s, &end, 10);
	if (errno || (*end != 'x' && *end != 'X') || end[1] < '0' || end[1] > '9')
		return false;
	unsigned long b = strtoul(end + 1, &end, 10);
	if (errno || *end || a > PICTURE_MAX_SIZE || b > PICTURE_MAX_SIZE)
		return false;
	*w = (unsigned)a;
	*h = (unsigned)b;
	return true;
}

static const struct format *find_format(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		const struct format *f = &formats[i];
		if (!strcasecmp(name, f->name))
			return f;
		uint32_t codes[2] = { f->fourcc, f->fourcc2 };
		for (int k = 0; k < 2; k++) {
			if (!codes[k])
				continue;
			char cc[5] = { (char)(codes[k] & 0xff), (char)(codes[k] >> 8 & 0xff),
				       (char)(codes[k] >> 16 & 0xff), (char)(codes[k] >> 24 & 0xff), 0 };
			if (!strcasecmp(name, cc))
				return f;
		}
	}
	return NULL;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_MAX_MISSING = 256, OPT_MIN_FRAMES, OPT_EXPECT_BRIGHTNESS };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 's' },
		{ "times", required_argument, NULL, 't' },
		{ "max-missing", required_argument, NULL, OPT_MAX_MISSING },
		{ "min-frames", required_argument, NULL, OPT_MIN_FRAMES },
		{ "expect-brightness", required_argument, NULL, OPT_EXPECT_BRIGHTNESS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof(*o));
	o->max_missing = UINT64_MAX;
	o->min_frames = 1;
	bool have_size = false;
	const char *size_arg = NULL;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":f:s:t:vh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			o->format = find_format(optarg);
			if (!o->format)
				die_usage("unknown format '%s'", optarg);
			break;
		case 's':
			if (!parse_size(optarg, &o->width, &o->height))
				die_usage("bad size '%s' (WxH)", optarg);
			have_size = true;
			size_arg = optarg;
			break;
		case 't':
			o->times = optarg;
			break;
		case OPT_MAX_MISSING:
			if (!parse_u64(optarg, &o->max_missing))
				die_usage("bad --max-missing '%s'", optarg);
			break;
		case OPT_MIN_FRAMES:
			if (!parse_u64(optarg, &o->min_frames))
				die_usage("bad --min-frames '%s'", optarg);
			break;
		case OPT_EXPECT_BRIGHTNESS:
			if (!parse_int(optarg, &o->expect_brightness))
				die_usage("bad --expect-brightness '%s'", optarg);
			o->expect_brightness_set = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			die_usage("option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		die_usage("%s", optind >= argc ? "no FILE given" : "more than one FILE given");
	o->file = argv[optind];
	if (!o->format)
		die_usage("%s", "--format is required");
	if (!have_size)
		die_usage("%s", "--size is required");
	if (!picture_size_ok(o->width, o->height))
		die_usage("size %s is not even, 16..16384 each way and at most 64 Mpixel",
			  size_arg);
	unsigned band = stamp_band_height(o->width);
	if (!band || band >= o->height)
		die_usage("%s", "frame too small to hold a stamp");
}

/* ---- report ---- */

static void print_ms(const char *key, double v)
{
	printf("%s: %.3f\n", key, v);
}

static double percentile(const double *sorted, size_t n, double p)
{
	/* Nearest rank. */
	size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

int main(int argc, char **argv)
{
	struct options o;
	parse_options(argc, argv, &o);

	struct input in;
	if (!open_input(o.file, &in)) {
		fprintf(stderr, "uvcuse-framecheck: %s: %s\n", o.file, strerror(errno));
		return EXIT_USAGE;
	}
	size_t n_times = 0;
	int64_t *times = o.times ? read_times(o.times, &n_times) : NULL;

	struct checker c;
	memset(&c, 0, sizeof(c));
	c.o = &o;
	c.yu12_size = picture_frame_size(PICTURE_YU12, o.width, o.height);
	c.scratch = xmalloc(c.yu12_size);
	if (o.format->kind == KIND_MJPEG)
		c.decoded = xmalloc(picture_frame_size(PICTURE_YUV444, o.width, o.height));

	if (o.format->kind == KIND_RAW) {
		size_t fs = picture_frame_size(o.format->layout, o.width, o.height);
		size_t pos = 0;
		while (pos < in.len) {
			size_t n = in.len - pos < fs ? in.len - pos : fs;
			check_frame(&c, in.data + pos, n, true);
			pos += n;
		}
	} else {
		size_t pos = 0;
		while (pos < in.len) {
			size_t s, e;
			enum stamp_jpeg_extent x = stamp_jpeg_next(in.data + pos, in.len - pos, &s, &e);
			if (s > 0) /* bytes that are no JPEG: a frame that lost its start */
				check_frame(&c, in.data + pos, s, false);
			if (x == STAMP_JPEG_NONE)
				break;
			check_frame(&c, in.data + pos + s, e - s, x == STAMP_JPEG_WHOLE);
			pos += e > s ? e : s + 1;
		}
	}

	/* The report. */
	char reasons[1024] = "";
	size_t rl = 0;
#define FAIL(...)                                                                          \
	do {                                                                               \
		if (rl < sizeof(reasons))                                                  \
			rl += (size_t)snprintf(reasons + rl, sizeof(reasons) - rl, "%s",   \
					       rl ? "; " : "");                            \
		if (rl < sizeof(reasons))                                                  \
			rl += (size_t)snprintf(reasons + rl, sizeof(reasons) - rl, __VA_ARGS__); \
	} while (0)

	uint64_t missing = missing_count(&c);
	printf("format: %s\n", o.format->name);
	printf("size: %ux%u\n", o.width, o.height);
	printf("frames seen: %" PRIu64 "\n", c.seen);
	printf("frames intact: %" PRIu64 "\n", c.intact);
	printf("frames damaged: %" PRIu64 "\n", c.damaged);
	printf("frames out of order: %" PRIu64 "\n", c.out_of_order);
	printf("frames missing: %" PRIu64 "\n", missing);
	if (c.stamped) {
		printf("first sequence: %" PRIu32 "\n", c.first_seq);
		printf("last sequence: %" PRIu32 "\n", c.last_seq);
		printf("brightness: ");
		for (unsigned i = 0; i < c.n_brightness; i++)
			printf("%s%d", i ? "->" : "", c.brightness_steps[i]);
		printf("%s\n", c.brightness_more ? "->..." : "");
	} else {
		printf("first sequence: -\nlast sequence: -\nbrightness: -\n");
	}
	printf("mean luma: %.2f\n", c.luma_frames ? c.luma_sum / (double)c.luma_frames : 0.0);
	if (c.interval_n) {
		double mean = c.interval_sum / (double)c.interval_n;
		print_ms("stamp interval mean", mean);
		print_ms("stamp interval min", c.interval_min);
		print_ms("stamp interval max", c.interval_max);
		printf("frame rate: %.3f\n", mean > 0 ? 1000.0 / mean : 0.0);
		if (c.last_seq != c.first_seq)
			print_ms("stamp period",
				 ((double)c.last_t - (double)c.first_t) / 1e6 /
					 ((double)c.last_seq - (double)c.first_seq));
	}
	if (times) {
		double *lat = xmalloc((c.seen + 1) * sizeof(*lat));
		size_t n = 0;
		for (size_t i = 0; i < c.seen && i < n_times; i++)
			if (c.stamp_times[i] != INT64_MIN)
				lat[n++] = ((double)times[i] - (double)c.stamp_times[i]) / 1e6;
		printf("times: %zu\n", n_times);
		printf("latency frames: %zu\n", n);
		if (n) {
			qsort(lat, n, sizeof(*lat), cmp_double);
			print_ms("latency p50", percentile(lat, n, 50));
			print_ms("latency p90", percentile(lat, n, 90));
			print_ms("latency p99", percentile(lat, n, 99));
			print_ms("latency max", lat[n - 1]);
		}
		free(lat);
		if (n_times != c.seen)
			FAIL("%zu capture times for %" PRIu64 " frames", n_times, c.seen);
	}

	if (c.damaged)
		FAIL("%" PRIu64 " frames damaged", c.damaged);
	if (c.out_of_order)
		FAIL("%" PRIu64 " frames out of order", c.out_of_order);
	if (o.max_missing != UINT64_MAX && missing > o.max_missing)
		FAIL("%" PRIu64 " frames missing, more than %" PRIu64, missing, o.max_missing);
	if (c.seen < o.min_frames)
		FAIL("%" PRIu64 " frames seen, fewer than %" PRIu64, c.seen, o.min_frames);
	if (o.expect_brightness_set) {
		if (!c.have_last_brightness)
			FAIL("no brightness seen, expected %d", o.expect_brightness);
		else if (c.last_brightness != o.expect_brightness)
			FAIL("last brightness %d, expected %d", c.last_brightness,
			     o.expect_brightness);
	}
	if (rl)
		printf("verdict: fail: %s\n", reasons);
	else
		printf("verdict: pass\n");
	fflush(stdout);

	for (unsigned i = 0; i < PICTURE_PHASES; i++)
		free(c.cache[i].yu12);
	free(c.scratch);
	free(c.decoded);
	free(c.seqs);
	free(c.stamp_times);
	free(times);
	close_input(&in);
	return rl ? EXIT_FAIL : 0;
}

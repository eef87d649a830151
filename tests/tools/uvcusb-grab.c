/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-usbgrab: captures frames through src/usb/ alone (no V4L2, no CUSE):
 * opens a camera, negotiates (probe, commit), streams on its own loop and
 * writes each complete frame to a file, back to back. The test bench's way to
 * prove the USB layer against uvcuse-vcam; --list shows the cameras. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/video.h>
#include <linux/videodev2.h>

#include "core/loop.h"
#include "usb/usb.h"

struct grab {
	struct loop *loop;
	struct usb_camera *cam;
	struct uvc_assembler asm_;
	int out_fd;
	FILE *times;
	unsigned want, frames, errors;
	double t_start, t_first, t_last, t_progress;
	/* the camera's own clock: the PTS of the first and last frame written
	 * (a frame without one leaves the camera's rate unknown) */
	uint32_t pts_first, pts_last;
	bool pts_all;
	/* the rates are measured from this frame on: the first ones carry the
	 * stream's start-up latency, which is not its rate */
	unsigned rate_from;
	uint32_t clock_hz;
	unsigned timeout_s;
	int timer_fd, signal_fd;
	int status;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uvcuse-usbgrab [CAMERA] --format F --size WxH --fps N --frames N -o FILE\n"
		"       uvcuse-usbgrab [CAMERA] --list\n"
		"Captures from a UVC camera through uvcuse's USB layer (libusb), writing each\n"
		"complete frame without error to FILE back to back.\n\n"
		"CAMERA (default: the first UVC camera):\n"
		"  -s, --serial S       USB serial number\n"
		"  -d, --device VID:PID vendor and product id (hex)\n"
		"  -b, --bus-path P     port path as sysfs names it: BUS-PORT[.PORT...]\n\n"
		"  -l, --list           print the cameras and their formats, and exit\n"
		"  -f, --format F       YUYV, MJPG, NV12 or H264\n"
		"  -S, --size WxH       frame size\n"
		"  -r, --fps N          frame rate (nearest the camera has)\n"
		"  -n, --frames N       frames to write (default 30)\n"
		"  -o, --output FILE    where the frames go\n"
		"  -t, --times FILE     capture time of each frame written (CLOCK_MONOTONIC s)\n"
		"  -T, --timeout S      give up when no frame came for S seconds (default 10)\n"
		"  -h, --help\n\n"
		"Exit status: 0 when all frames were written, 1 otherwise, 2 usage error.\n");
}

static const struct {
	const char *name;
	uint32_t fourcc;
} formats[] = {
	{ "YUYV", V4L2_PIX_FMT_YUYV },
	{ "MJPG", V4L2_PIX_FMT_MJPEG },
	{ "MJPEG", V4L2_PIX_FMT_MJPEG },
	{ "NV12", V4L2_PIX_FMT_NV12 },
	{ "H264", V4L2_PIX_FMT_H264 },
};

static const char *fourcc_str(uint32_t f, char out[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)(f >> (8 * i));
		out[i] = c >= 32 && c < 127 ? c : '?';
	}
	out[4] = '\0';
	return out;
}

static int list_cb(void *data, const struct usb_camera_id *id, const struct uvc_camera *m,
		   const char *parse_error)
{
	const struct usb_match *match = data;
	if (match->by_id && (id->vid != match->vid || id->pid != match->pid))
		return 0;
	if (match->serial && strcmp(match->serial, id->serial))
		return 0;
	if (match->port_path && strcmp(match->port_path, id->port_path))
		return 0;
	printf("camera %s %04x:%04x interface %u bus_info %s product \"%s\" serial \"%s\"\n",
	       id->port_path, id->vid, id->pid, id->control_interface, id->bus_info, id->product,
	       id->serial);
	if (!m) {
		printf("  unusable: %s\n", parse_error ? parse_error : "?");
		return 0;
	}
	for (unsigned s = 0; s < m->n_streams; s++) {
		const struct uvc_streaming *vs = &m->streams[s];
		printf("  stream %u: interface %u, %s endpoint 0x%02x, %u alternate settings\n", s,
		       vs->interface, vs->transfer == UVC_TRANSFER_BULK ? "bulk" : "isochronous",
		       vs->endpoint, vs->n_alts);
		for (unsigned f = 0; f < vs->n_formats; f++) {
			const struct uvc_format *fmt = &vs->formats[f];
			char cc[5];
			for (unsigned k = 0; k < fmt->n_frames; k++) {
				const struct uvc_frame *fr = &fmt->frames[k];
				printf("  format %s %ux%u", fourcc_str(fmt->fourcc, cc), fr->width,
				       fr->height);
				if (fr->continuous)
					printf(" %.3f-%.3f fps", 1e7 / fr->range.max, 1e7 / fr->range.min);
				for (unsigned i = 0; i < fr->n_intervals; i++)
					printf(" %.3f", 1e7 / fr->intervals[i]);
				printf("\n");
			}
		}
	}
	return 0;
}

static void on_frame(void *opaque, const struct uvc_frame_event *ev)
{
	struct grab *g = opaque;
	if (g->frames < g->want) {
		if (ev->error || (ev->flags & UVC_ASM_DROPPED) || !ev->bytesused) {
			g->errors++;
			fprintf(stderr, "usbgrab: frame %llu: error flags 0x%x, %zu bytes (not written)\n",
				(unsigned long long)ev->sequence, ev->flags, ev->bytesused);
		} else {
			double t = now_s();
			size_t done = 0;
			while (done < ev->bytesused) {
				ssize_t n = write(g->out_fd, ev->buf + done, ev->bytesused - done);
				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0) {
					perror("usbgrab: write");
					g->status = 1;
					loop_quit(g->loop, 1);
					break;
				}
				done += (size_t)n;
			}
			if (g->times)
				fprintf(g->times, "%.6f\n", t);
			if (g->frames == g->rate_from) {
				g->t_first = t;
				g->pts_first = ev->pts;
				g->pts_all = true;
			}
			g->t_last = t;
			g->pts_last = ev->pts;
			g->pts_all = g->pts_all && ev->has_pts;
			g->t_progress = t;
			if (++g->frames == g->want)
				loop_quit(g->loop, 0);
		}
	}
	uvc_assembler_set_buffer(&g->asm_, ev->buf, ev->cap);
}

static void on_stream_error(void *data, int err)
{
	struct grab *g = data;
	fprintf(stderr, "usbgrab: stream died: %s\n", strerror(-err));
	g->status = 1;
	loop_quit(g->loop, 1);
}

static void on_timer(void *data, uint32_t events)
{
	struct grab *g = data;
	(void)events;
	uint64_t ticks;
	if (read(g->timer_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		perror("usbgrab: timerfd");
	if (now_s() - g->t_progress > g->timeout_s) {
		fprintf(stderr, "usbgrab: no frame for %u s (%u of %u written)\n", g->timeout_s,
			g->frames, g->want);
		g->status = 1;
		loop_quit(g->loop, 1);
	}
}

static void on_signal(void *data, uint32_t events)
{
	struct grab *g = data;
	(void)events;
	struct signalfd_siginfo si;
	if (read(g->signal_fd, &si, sizeof(si)) < 0 && errno != EAGAIN)
		perror("usbgrab: signalfd");
	fprintf(stderr, "usbgrab: interrupted\n");
	g->status = 1;
	loop_quit(g->loop, 1);
}

/* The stream, format and frame the arguments name. */
static int pick(const struct uvc_camera *m, uint32_t fourcc, unsigned w, unsigned h,
		unsigned *stream, const struct uvc_format **fmt, const struct uvc_frame **frame)
{
	for (unsigned s = 0; s < m->n_streams; s++) {
		const struct uvc_streaming *vs = &m->streams[s];
		for (unsigned f = 0; f < vs->n_formats; f++) {
			if (vs->formats[f].fourcc != fourcc)
				continue;
			for (unsigned k = 0; k < vs->formats[f].n_frames; k++) {
				const struct uvc_frame *fr = &vs->formats[f].frames[k];
				if (fr->width == w && fr->height == h) {
					*stream = s;
					*fmt = &vs->formats[f];
					*frame = fr;
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}

static uint32_t nearest_interval(const struct uvc_frame *fr, unsigned fps)
{
	uint32_t want = fps ? 10000000u / fps : fr->default_interval;
	if (fr->continuous) {
		if (want < fr->range.min)
			return fr->range.min;
		if (want > fr->range.max)
			return fr->range.max;
		uint32_t step = fr->range.step ? fr->range.step : 1;
		return fr->range.min + (want - fr->range.min + step / 2) / step * step;
	}
	uint32_t best = fr->default_interval;
	for (unsigned i = 0; i < fr->n_intervals; i++) {
		uint32_t d = fr->intervals[i] > want ? fr->intervals[i] - want : want - fr->intervals[i];
		uint32_t db = best > want ? best - want : want - best;
		if (d < db)
			best = fr->intervals[i];
	}
	return best;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "serial", required_argument, NULL, 's' },
		{ "device", required_argument, NULL, 'd' },
		{ "bus-path", required_argument, NULL, 'b' },
		{ "list", no_argument, NULL, 'l' },
		{ "format", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 'S' },
		{ "fps", required_argument, NULL, 'r' },
		{ "frames", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "times", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct usb_match match = { 0 };
	bool list = false;
	const char *format = NULL, *output = NULL, *times = NULL;
	unsigned w = 0, h = 0, fps = 0, want = 30, timeout_s = 10;
	int c;
	while ((c = getopt_long(argc, argv, "s:d:b:lf:S:r:n:o:t:T:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			match.serial = optarg;
			break;
		case 'd':
			if (usb_match_parse_id(optarg, &match) < 0) {
				fprintf(stderr, "usbgrab: --device wants VID:PID in hex, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'b':
			match.port_path = optarg;
			break;
		case 'l':
			list = true;
			break;
		case 'f':
			format = optarg;
			break;
		case 'S':
			if (sscanf(optarg, "%ux%u", &w, &h) != 2 || !w || !h) {
				fprintf(stderr, "usbgrab: --size wants WxH, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'r':
			fps = (unsigned)atoi(optarg);
			break;
		case 'n':
			want = (unsigned)atoi(optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case 't':
			times = optarg;
			break;
		case 'T':
			timeout_s = (unsigned)atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (list) {
		struct usb_ctx *ctx;
		int r = usb_ctx_new(NULL, &ctx);
		if (r < 0) {
			fprintf(stderr, "usbgrab: libusb: %s\n", strerror(-r));
			return 1;
		}
		r = usb_enumerate(ctx, list_cb, &match);
		usb_ctx_free(ctx);
		return r < 0 ? 1 : 0;
	}
	uint32_t fourcc = 0;
	for (size_t i = 0; format && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcasecmp(format, formats[i].name))
			fourcc = formats[i].fourcc;
	if (!fourcc || !w || !output || !want) {
		fprintf(stderr, "usbgrab: need --format (YUYV, MJPG, NV12, H264), --size, --frames and -o\n");
		return 2;
	}

	struct grab g = { .out_fd = -1, .want = want, .timeout_s = timeout_s, .status = 1,
			  .rate_from = want / 10 };
	struct usb_ctx *ctx = NULL;
	int timer = -1, sig = -1;
	uint8_t *buf = NULL;
	int r = loop_new(&g.loop);
	if (r < 0) {
		fprintf(stderr, "usbgrab: loop: %s\n", strerror(-r));
		return 1;
	}
	r = usb_ctx_new(g.loop, &ctx);
	if (r < 0) {
		fprintf(stderr, "usbgrab: libusb: %s\n", strerror(-r));
		goto out;
	}
	char err[256];
	r = usb_camera_open(ctx, &match, &g.cam, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "usbgrab: %s (%s)\n", err, strerror(-r));
		goto out;
	}
	const struct usb_camera_id *id = usb_camera_id(g.cam);
	printf("camera: %s %04x:%04x %s \"%s\" serial \"%s\"\n", id->port_path, id->vid, id->pid,
	       id->bus_info, id->product, id->serial);

	unsigned stream;
	const struct uvc_format *fmt;
	const struct uvc_frame *frame;
	if (pick(usb_camera_model(g.cam), fourcc, w, h, &stream, &fmt, &frame) < 0) {
		char cc[5];
		fprintf(stderr, "usbgrab: the camera has no %s %ux%u\n", fourcc_str(fourcc, cc), w, h);
		goto out;
	}
	/* As uvcvideo's TRY_FMT: only the choice, the camera fills the rest. */
	struct uvc_probe want_p = {
		.hint = 1,
		.format_index = fmt->index,
		.frame_index = frame->index,
		.interval = nearest_interval(frame, fps),
	}, got;
	r = usb_probe_negotiate(g.cam, stream, &want_p, &got);
	if (r < 0) {
		fprintf(stderr, "usbgrab: probe: %s\n", strerror(-r));
		goto out;
	}
	printf("negotiated: format %u frame %u interval %u (%.3f fps), frame size %u, payload %u\n",
	       got.format_index, got.frame_index, got.interval,
	       got.interval ? 1e7 / got.interval : 0.0, got.max_video_frame_size,
	       got.max_payload_transfer_size);
	if (got.format_index != fmt->index || got.frame_index != frame->index) {
		fprintf(stderr, "usbgrab: the camera chose format %u frame %u instead\n",
			got.format_index, got.frame_index);
		goto out;
	}

	size_t cap = got.max_video_frame_size > frame->max_buffer_size ? got.max_video_frame_size
									: frame->max_buffer_size;
	buf = malloc(cap);
	g.out_fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (!buf || g.out_fd < 0) {
		fprintf(stderr, "usbgrab: %s: %s\n", output, buf ? strerror(errno) : "no memory");
		goto out;
	}
	if (times && !(g.times = fopen(times, "we"))) {
		fprintf(stderr, "usbgrab: %s: %s\n", times, strerror(errno));
		goto out;
	}
	g.clock_hz = got.clock_frequency ? got.clock_frequency
				       : usb_camera_model(g.cam)->clock_frequency;
	uvc_assembler_init(&g.asm_, on_frame, &g);
	uvc_assembler_set_expected(&g.asm_, fmt->kind == UVC_FORMAT_UNCOMPRESSED
						    ? got.max_video_frame_size
						    : 0);
	uvc_assembler_set_buffer(&g.asm_, buf, cap);

	timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	struct itimerspec its = { { 1, 0 }, { 1, 0 } };
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sig = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	g.timer_fd = timer;
	g.signal_fd = sig;
	if (timer < 0 || sig < 0 || timerfd_settime(timer, 0, &its, NULL) < 0 ||
	    loop_add(g.loop, timer, EPOLLIN, on_timer, &g) < 0 ||
	    loop_add(g.loop, sig, EPOLLIN, on_signal, &g) < 0) {
		perror("usbgrab: timer/signals");
		goto out;
	}

	g.t_start = g.t_progress = now_s();
	r = usb_probe_set(g.cam, stream, true, &got);
	if (r == 0)
		r = usb_stream_start(g.cam, stream, &got, &g.asm_, on_stream_error, &g);
	if (r < 0) {
		fprintf(stderr, "usbgrab: stream start: %s\n", strerror(-r));
		goto out;
	}
	g.status = 0;
	loop_run(g.loop);
	usb_stream_stop(g.cam);
	if (g.frames < g.want)
		g.status = 1;

	struct usb_stream_stats st;
	usb_stream_get_stats(g.cam, &st);
	double elapsed = g.t_last - g.t_start;
	unsigned spans = g.frames > g.rate_from + 1 ? g.frames - 1 - g.rate_from : 0;
	double rate = spans && g.t_last > g.t_first ? spans / (g.t_last - g.t_first) : 0.0;
	printf("frames: %u\n", g.frames);
	printf("errors: %u frames with errors, %llu frames without buffer, %llu invalid payloads\n",
	       g.errors, (unsigned long long)g.asm_.stats.frames_no_buffer,
	       (unsigned long long)g.asm_.stats.payloads_invalid);
	printf("elapsed: %.3f s\n", elapsed);
	printf("fps: %.2f (from frame %u)\n", rate, g.rate_from);
	/* the rate the camera stamped: the frames it skipped between the first
	 * and last one written count, the host's delivery jitter does not */
	uint32_t pts_span = g.pts_last - g.pts_first; /* one wrap at most */
	if (spans && g.pts_all && g.clock_hz && pts_span)
		printf("camera fps: %.2f\n", spans * (double)g.clock_hz / pts_span);
	printf("alt setting: %u\n", st.alt);
	printf("transfers: %llu completed (%u x %u bytes), %llu packets, %llu packet errors, "
	       "%llu bytes\n",
	       (unsigned long long)st.transfers, st.n_transfers, st.transfer_size,
	       (unsigned long long)st.packets, (unsigned long long)st.packet_errors,
	       (unsigned long long)st.bytes);
out:
	if (g.cam)
		usb_camera_close(g.cam);
	usb_ctx_free(ctx);
	if (timer >= 0) {
		loop_remove(g.loop, timer);
		close(timer);
	}
	if (sig >= 0) {
		loop_remove(g.loop, sig);
		close(sig);
	}
	loop_free(g.loop);
	if (g.times)
		fclose(g.times);
	if (g.out_fd >= 0)
		close(g.out_fd);
	free(buf);
	return g.status;
}

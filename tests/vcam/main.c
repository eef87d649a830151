/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-vcam: a UVC camera on a vhci-hcd port, served over USB/IP.
 * One thread, one poll loop: the USB/IP socket, a timeout for frames and
 * automatic controls, and a signalfd for SIGTERM/SIGINT (leave), SIGUSR1
 * (unplug), SIGUSR2 (plug back in), SIGRTMIN (pause frames), SIGRTMIN+1
 * (resume) and SIGRTMIN+2 (request faults off, or on again). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/video.h>

#include "camera.h"
#include "controls.h"
#include "descriptors.h"
#include "frame_cache.h"
#include "impersonate.h"
#include "payload.h"
#include "replay.h"
#include "usbip.h"

struct vcam {
	struct vcam_camera *cam;
	struct vcam_frame_cache *pictures;
	const struct vcam_profile *profile;
	const char *serial;
	uint32_t devid;
	int sock, port;
	uint8_t *out_buf;
	size_t out_size;
	struct usbip_iso_desc *iso;
	uint8_t *iso_raw;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct vcam_frames *cached_frames(void *ctx, enum vcam_pixel pixel, unsigned width,
				       unsigned height)
{
	struct vcam *v = ctx;
	return vcam_frame_cache_get(v->pictures, pixel, width, height);
}

static int read_full(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		ssize_t n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_reply(void *ctx, const uint8_t *header, const uint8_t *data, size_t length,
		      const struct usbip_iso_desc *iso, unsigned packets)
{
	struct vcam *v = ctx;
	/* Hosts send at most a few dozen packets per URB; more go to the heap. */
	uint8_t stack_descs[USBIP_ISO_DESC_SIZE * 64];
	uint8_t *descs = stack_descs;
	if (packets > 64 && !(descs = malloc((size_t)packets * USBIP_ISO_DESC_SIZE)))
		return -ENOMEM;
	for (unsigned i = 0; i < packets; i++)
		usbip_encode_iso(descs + i * USBIP_ISO_DESC_SIZE, &iso[i]);

	struct iovec iov[3];
	int n = 0;
	iov[n++] = (struct iovec){ (void *)header, USBIP_HEADER_SIZE };
	if (length)
		iov[n++] = (struct iovec){ (void *)data, length };
	if (packets)
		iov[n++] = (struct iovec){ descs, (size_t)packets * USBIP_ISO_DESC_SIZE };
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)n };

	int err = 0;
	while (msg.msg_iovlen) {
		ssize_t w = sendmsg(v->sock, &msg, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			err = -errno;
			break;
		}
		/* a partial write: skip what went out */
		while (msg.msg_iovlen && (size_t)w >= msg.msg_iov[0].iov_len) {
			w -= (ssize_t)msg.msg_iov[0].iov_len;
			msg.msg_iov++;
			msg.msg_iovlen--;
		}
		if (msg.msg_iovlen) {
			msg.msg_iov[0].iov_base = (uint8_t *)msg.msg_iov[0].iov_base + w;
			msg.msg_iov[0].iov_len -= (size_t)w;
		}
	}
	if (descs != stack_descs)
		free(descs);
	return err;
}

/* Reads and handles one USB/IP command. */
static int handle_command(struct vcam *v)
{
	uint8_t raw[USBIP_HEADER_SIZE];
	struct usbip_header h;
	int err = read_full(v->sock, raw, sizeof(raw));
	if (err)
		return err;
	if (usbip_decode_command(raw, &h) < 0) {
		fprintf(stderr, "vcam: malformed USB/IP command %u, dropping the connection\n",
			h.command);
		return -EPROTO;
	}
	size_t out_len = 0;
	if (h.command == USBIP_CMD_SUBMIT && h.direction == USBIP_DIR_OUT)
		out_len = (size_t)h.length;
	if (out_len > v->out_size) {
		uint8_t *b = realloc(v->out_buf, out_len);
		if (!b)
			return -ENOMEM;
		v->out_buf = b;
		v->out_size = out_len;
	}
	if (out_len && (err = read_full(v->sock, v->out_buf, out_len)))
		return err;
	if (h.command == USBIP_CMD_SUBMIT && h.packets > 0) {
		/* one read for all descriptors: 32 per URB is usual */
		uint8_t *raw = v->iso_raw;
		if ((err = read_full(v->sock, raw, (size_t)h.packets * USBIP_ISO_DESC_SIZE)))
			return err;
		for (int i = 0; i < h.packets; i++)
			usbip_decode_iso(raw + (size_t)i * USBIP_ISO_DESC_SIZE, &v->iso[i]);
	}
	return vcam_camera_command(v->cam, &h, v->out_buf, v->iso, now_ns());
}

static bool command_waiting(int sock)
{
	int queued = 0;
	return ioctl(sock, FIONREAD, &queued) == 0 && queued >= USBIP_HEADER_SIZE;
}

static int plug(struct vcam *v)
{
	int err = usbip_attach(v->profile->speed == VCAM_SUPER_SPEED, v->devid, &v->sock, &v->port);
	if (err == -ENODEV)
		fprintf(stderr, "vcam: vhci-hcd is not loaded (%s missing): modprobe vhci-hcd\n",
			VHCI_SYSFS "/attach");
	else if (err)
		fprintf(stderr, "vcam: cannot attach to vhci-hcd: %s\n", strerror(-err));
	else
		fprintf(stderr, "vcam: attached to vhci-hcd port %d (profile %s, serial %s)\n", v->port,
			v->profile->name, v->serial);
	/* Big socket buffers: fewer wakeups for isochronous traffic. */
	if (!err) {
		int size = 4 << 20;
		setsockopt(v->sock, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
		setsockopt(v->sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	}
	return err;
}

static void unplug(struct vcam *v, const char *why)
{
	if (v->sock < 0)
		return;
	int err = usbip_detach(v->port);
	if (err && err != -EINVAL)
		fprintf(stderr, "vcam: detach port %d: %s\n", v->port, strerror(-err));
	close(v->sock);
	v->sock = -1;
	vcam_camera_unplugged(v->cam);
	fprintf(stderr, "vcam: unplugged from port %d (%s)\n", v->port, why);
}

/* How long poll may sleep before the camera's next deadline (NULL: no limit). */
static const struct timespec *until(uint64_t deadline_ns, struct timespec *ts)
{
	if (deadline_ns == UINT64_MAX)
		return NULL;
	uint64_t now = now_ns();
	uint64_t wait = deadline_ns > now ? deadline_ns - now : 0;
	ts->tv_sec = (time_t)(wait / 1000000000u);
	ts->tv_nsec = (long)(wait % 1000000000u);
	return ts;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uvcuse-vcam [OPTIONS]\n"
		"A virtual UVC camera attached to vhci-hcd through USB/IP (load vhci-hcd first).\n"
		"\n"
		"  -p, --profile NAME     camera profile (default: default; see --list-profiles)\n"
		"  -s, --serial S         USB serial number (default: VCAM0001); tells cameras apart\n"
		"  -u, --unpaced          send frames as fast as the host takes them\n"
		"      --bt601            the color matching descriptors name SMPTE 170M\n"
		"                         primaries (GStreamer's \"bt601\") instead of BT.709\n"
		"      --msxu             Microsoft's UVC 1.5 metadata: the extension unit\n"
		"                         takes the MSXU GUID and its metadata control; once\n"
		"                         the host sets it, each payload header carries an\n"
		"                         item with the frame's sequence\n"
		"  -e, --error-every N    set the ERR bit in every Nth frame\n"
		"      --corrupt-jpeg-every N  damage the entropy-coded data of every Nth\n"
		"                         MJPEG frame (RST markers where none belong)\n"
		"      --payload-fault F[,F...]  camera faults in the packets (bulk: payloads) of\n"
		"                         every Nth frame: header0, header1, header-long,\n"
		"                         no-eof, fid-toggle, oversize, short, zlp, iso-error\n"
		"      --fault-every N    which frames --payload-fault hits (default 5)\n"
		"      --ctrl-delay-ms N  answer GET_CUR/SET_CUR of unit controls N ms late\n"
		"      --ctrl-hang        never answer them (the host's timeout fires)\n"
		"      --reset-on-stream  brightness back to its default whenever streaming\n"
		"                         starts (a camera that needs restore_ctrls_on_init)\n"
		"      --stream-delay-ms N  answer SET_CUR of probe and commit N ms late\n"
		"      --request-fault F[,F...]  faulty answers on endpoint 0 and the status\n"
		"                         endpoint: ctrl-stall (unit GET_CUR and SET_CUR),\n"
		"                         ctrl-short (unit GET_CUR), errcode-stall (the error code read),\n"
		"                         probe-stall, commit-stall (their SET_CUR),\n"
		"                         status-garbage (a random status packet every 100 ms)\n"
		"      --h264 FILE        Annex-B H.264 stream for the frame-based format\n"
		"      --clock-ppm N      the camera's clock (its PTS and SCR) runs N parts per\n"
		"                         million fast (negative: slow), from an offset\n"
		"      --clock-jitter-us N  each SCR sampled up to N us late\n"
		"      --replay TRACE     a bulk camera's usbmon text trace played in a loop\n"
		"                         instead of pictures, at its own pace, whatever the\n"
		"                         host negotiated (the rest of each payload beyond\n"
		"                         the 32 bytes usbmon shows is filler)\n"
		"      --descriptors FILE impersonate a real camera: FILE is its configuration\n"
		"                         descriptor (binary, as ../shared/corpus/bin has them)\n"
		"                         or its `lsusb -v` text, rebuilt as bytes; what the vcam\n"
		"                         invents or repairs is logged\n"
		"      --status-packet-size N  with --descriptors: the status endpoint's\n"
		"                         wMaxPacketSize made N (a referee's repair, logged)\n"
		"      --class-first      with --descriptors: streaming interfaces' class\n"
		"                         descriptors moved in front of their endpoint (a\n"
		"                         referee's repair, logged)\n"
		"      --lsusb FILE       with --descriptors: the same camera's `lsusb -v` text,\n"
		"                         for its device descriptor and strings (the default when\n"
		"                         FILE is text)\n"
		"  -l, --list-profiles    list the profiles and exit\n"
		"  -d, --describe         print the formats, sizes, rates and V4L2 controls a host\n"
		"                         must enumerate, and exit\n"
		"  -h, --help             this help\n"
		"\n"
		"Signals: SIGTERM/SIGINT detach and exit, SIGUSR1 unplugs, SIGUSR2 plugs back in,\n"
		"SIGRTMIN pauses the frames (requests are still answered), SIGRTMIN+1 resumes,\n"
		"SIGRTMIN+2 switches the --request-fault faults off, and on again.\n");
}

static void log_invented(void *opaque, const char *line)
{
	(void)opaque;
	fprintf(stderr, "vcam: impersonation: %s\n", line);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *pixel_fourcc(enum vcam_pixel pixel)
{
	static const char *fourcc[] = {
		[VCAM_PIXEL_YUYV] = "YUYV",
		[VCAM_PIXEL_NV12] = "NV12",
		[VCAM_PIXEL_MJPEG] = "MJPG",
		[VCAM_PIXEL_H264] = "H264",
		[VCAM_PIXEL_YU12] = "YU12",
		[VCAM_PIXEL_YV12] = "YV12",
		[VCAM_PIXEL_RGB24] = "RGB3",
		[VCAM_PIXEL_BGR24] = "BGR3",
		[VCAM_PIXEL_UYVY] = "UYVY",
		[VCAM_PIXEL_SBGGR8] = "BA81",
		[VCAM_PIXEL_SGBRG8] = "GBRG",
		[VCAM_PIXEL_SGRBG8] = "GRBG",
		[VCAM_PIXEL_SRGGB8] = "RGGB",
		[VCAM_PIXEL_OPAQUE8] = "raw8",
		[VCAM_PIXEL_OPAQUE12] = "raw12",
		[VCAM_PIXEL_OPAQUE16] = "raw16",
		[VCAM_PIXEL_OPAQUE24] = "raw24",
		[VCAM_PIXEL_OPAQUE32] = "raw32",
	};
	return fourcc[pixel];
}

/* One line per format, size and rate, as V4L2 fourccs: what a host must
 * enumerate. Tests compare it with v4l2-ctl --list-formats-ext. */
/* --replay: a bulk camera's recorded stream. */
static int load_replay(const char *path, const struct vcam_profile *p, struct vcam_replay *r)
{
	char why[256];

	if (p->transfer != VCAM_BULK) {
		fprintf(stderr, "uvcuse-vcam: --replay plays bulk traces: the camera must be bulk\n");
		return -EINVAL;
	}
	if (vcam_replay_load(path, r, why, sizeof(why)) < 0) {
		fprintf(stderr, "uvcuse-vcam: --replay: %s\n", why);
		return -EINVAL;
	}
	fprintf(stderr, "vcam: replay of %s: %s, %u payload transfers, %u frames, %.1f ms a loop\n",
		path, r->endpoint, r->n, r->frames, (double)r->duration_us / 1000.0);
	return 0;
}

static void describe(const struct vcam_profile *p)
{
	for (unsigned f = 0; f < p->n_formats; f++) {
		const struct vcam_format *fmt = &p->formats[f];
		for (unsigned s = 0; s < fmt->n_frames; s++) {
			const struct vcam_frame_size *fs = &fmt->frames[s];
			for (unsigned k = 0; k < fs->n_intervals; k++)
				printf("format %s %ux%u %.3f\n", pixel_fourcc(fmt->pixel), fs->width,
				       fs->height, 10000000.0 / fs->intervals[k]);
		}
	}
}

/* The V4L2 controls uvcvideo (Linux 6.1, uvc_ctrl.c's mappings) makes of
 * each UVC control: the names `v4l2-ctl --list-ctrls` must show. */
static const struct {
	enum vcam_entity entity;
	uint8_t selector;
	const char *v4l2[2];
} uvcvideo_controls[] = {
	{ VCAM_ENTITY_PROCESSING, UVC_PU_BRIGHTNESS_CONTROL, { "brightness" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_CONTRAST_CONTROL, { "contrast" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_HUE_CONTROL, { "hue" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_SATURATION_CONTROL, { "saturation" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_SHARPNESS_CONTROL, { "sharpness" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_GAMMA_CONTROL, { "gamma" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_BACKLIGHT_COMPENSATION_CONTROL, { "backlight_compensation" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_GAIN_CONTROL, { "gain" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_POWER_LINE_FREQUENCY_CONTROL, { "power_line_frequency" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_HUE_AUTO_CONTROL, { "hue_automatic" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, { "white_balance_automatic" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, { "white_balance_temperature" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_WHITE_BALANCE_COMPONENT_AUTO_CONTROL, { "white_balance_automatic" } },
	{ VCAM_ENTITY_PROCESSING, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, { "blue_balance", "red_balance" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_AE_MODE_CONTROL, { "auto_exposure" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_AE_PRIORITY_CONTROL, { "exposure_dynamic_framerate" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, { "exposure_time_absolute" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_FOCUS_ABSOLUTE_CONTROL, { "focus_absolute" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_FOCUS_AUTO_CONTROL, { "focus_automatic_continuous" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_IRIS_ABSOLUTE_CONTROL, { "iris_absolute" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_IRIS_RELATIVE_CONTROL, { "iris_relative" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_ZOOM_ABSOLUTE_CONTROL, { "zoom_absolute" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_ZOOM_RELATIVE_CONTROL, { "zoom_continuous" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_PANTILT_ABSOLUTE_CONTROL, { "pan_absolute", "tilt_absolute" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_PANTILT_RELATIVE_CONTROL, { "pan_speed", "tilt_speed" } },
	{ VCAM_ENTITY_CAMERA, UVC_CT_PRIVACY_CONTROL, { "privacy" } },
};

/* "control NAME" for every V4L2 control the camera's controls become under
 * uvcvideo, sorted and unique as a test compares them. */
static void describe_controls(void)
{
	const char *names[2 * sizeof(uvcvideo_controls) / sizeof(uvcvideo_controls[0])];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(uvcvideo_controls) / sizeof(uvcvideo_controls[0]); i++) {
		if (!vcam_controls_name(uvcvideo_controls[i].entity, uvcvideo_controls[i].selector))
			continue;
		for (int k = 0; k < 2 && uvcvideo_controls[i].v4l2[k]; k++)
			names[n++] = uvcvideo_controls[i].v4l2[k];
	}
	qsort(names, n, sizeof(names[0]), compare_names);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
			printf("control %s\n", names[i]);
}

static void list_profiles(void)
{
	for (size_t i = 0; i < vcam_profile_count; i++) {
		const struct vcam_profile *p = &vcam_profiles[i];
		printf("%-8s %s\n", p->name, p->summary);
		for (unsigned f = 0; f < p->n_formats; f++) {
			const struct vcam_format *fmt = &p->formats[f];
			printf("         %-5s", pixel_fourcc(fmt->pixel));
			for (unsigned s = 0; s < fmt->n_frames; s++) {
				const struct vcam_frame_size *fs = &fmt->frames[s];
				printf(" %ux%u@", fs->width, fs->height);
				for (unsigned k = 0; k < fs->n_intervals; k++)
					printf("%s%u", k ? "/" : "", 10000000u / fs->intervals[k]);
			}
			printf("\n");
		}
	}
}

/* A count option from 1 to a million; -1 (with the message) otherwise. */
static int parse_count(const char *name, const char *arg, unsigned *out)
{
	char *end;
	long n = strtol(arg, &end, 10);
	if (*end || n < 1 || n > 1000000) {
		fprintf(stderr, "uvcuse-vcam: --%s needs a number from 1\n", name);
		return -1;
	}
	*out = (unsigned)n;
	return 0;
}

/* --clock-ppm: -1000 to 1000; the clock then starts at an offset too, so
 * that nothing can take it for the host's. */
static int parse_ppm(const char *arg, struct vcam_clock *c)
{
	char *end;
	long n = strtol(arg, &end, 10);
	if (*end || end == arg || n < -1000 || n > 1000) {
		fprintf(stderr, "uvcuse-vcam: --clock-ppm needs a number from -1000 to 1000\n");
		return -1;
	}
	c->ppm = (int32_t)n;
	c->offset = 0x9e3779b9u;
	return 0;
}

/* --payload-fault and --request-fault: comma-separated names; -1 (with the
 * message) when one is unknown. */
static int parse_faults(const char *option, const char *arg, unsigned (*parse)(const char *),
			unsigned *out)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *save = NULL, *name = strtok_r(buf, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		unsigned f = parse(name);
		if (!f) {
			fprintf(stderr, "uvcuse-vcam: unknown --%s '%s'\n", option, name);
			return -1;
		}
		*out |= f;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "serial", required_argument, NULL, 's' },
		{ "unpaced", no_argument, NULL, 'u' },
		{ "msxu", no_argument, NULL, 'X' },
		{ "bt601", no_argument, NULL, '6' },
		{ "error-every", required_argument, NULL, 'e' },
		{ "corrupt-jpeg-every", required_argument, NULL, 'C' },
		{ "ctrl-delay-ms", required_argument, NULL, 'D' },
		{ "payload-fault", required_argument, NULL, 'F' },
		{ "fault-every", required_argument, NULL, 'N' },
		{ "ctrl-hang", no_argument, NULL, 'Z' },
		{ "reset-on-stream", no_argument, NULL, 'B' },
		{ "stream-delay-ms", required_argument, NULL, 'W' },
		{ "request-fault", required_argument, NULL, 'R' },
		{ "h264", required_argument, NULL, 'H' },
		{ "descriptors", required_argument, NULL, 'I' },
		{ "replay", required_argument, NULL, 'Y' },
		{ "clock-ppm", required_argument, NULL, 'G' },
		{ "clock-jitter-us", required_argument, NULL, 'J' },
		{ "lsusb", required_argument, NULL, 'L' },
		{ "status-packet-size", required_argument, NULL, 'P' },
		{ "class-first", no_argument, NULL, 'K' },
		{ "list-profiles", no_argument, NULL, 'l' },
		{ "describe", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct vcam v = { .serial = "VCAM0001", .sock = -1 };
	struct vcam_camera_config cfg = { .fault_every = 5 };
	const char *profile = "default";
	bool describe_only = false;
	const char *h264_file = NULL;
	const char *descriptors_file = NULL, *lsusb_file = NULL, *replay_file = NULL;
	static struct vcam_replay replay;
	unsigned status_packet_size = 0;
	bool class_first = false;
	struct vcam_impersonation *imp = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "p:s:ue:ldh", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			profile = optarg;
			break;
		case 's':
			v.serial = optarg;
			break;
		case 'u':
			cfg.unpaced = true;
			break;
		case 'X':
			cfg.msxu = true;
			break;
		case '6':
			cfg.color_primaries = 4; /* SMPTE 170M */
			break;
		case 'e':
			if (parse_count("error-every", optarg, &cfg.error_every))
				return 2;
			break;
		case 'C':
			if (parse_count("corrupt-jpeg-every", optarg, &cfg.corrupt_jpeg_every))
				return 2;
			break;
		case 'D':
			if (parse_count("ctrl-delay-ms", optarg, &cfg.ctrl_delay_ms))
				return 2;
			break;
		case 'W':
			if (parse_count("stream-delay-ms", optarg, &cfg.stream_delay_ms))
				return 2;
			break;
		case 'B':
			cfg.reset_on_stream = true;
			break;
		case 'Z':
			cfg.ctrl_hang = true;
			break;
		case 'F':
			if (parse_faults("payload-fault", optarg, vcam_payload_fault_parse,
					 &cfg.payload_faults))
				return 2;
			break;
		case 'R':
			if (parse_faults("request-fault", optarg, vcam_request_fault_parse,
					 &cfg.request_faults))
				return 2;
			break;
		case 'N':
			if (parse_count("fault-every", optarg, &cfg.fault_every))
				return 2;
			break;
		case 'H':
			h264_file = optarg;
			break;
		case 'I':
			descriptors_file = optarg;
			break;
		case 'Y':
			replay_file = optarg;
			break;
		case 'G':
			if (parse_ppm(optarg, &cfg.camera_clock))
				return 2;
			break;
		case 'J':
			if (parse_count("clock-jitter-us", optarg, &cfg.camera_clock.jitter_ns))
				return 2;
			cfg.camera_clock.jitter_ns *= 1000u;
			break;
		case 'L':
			lsusb_file = optarg;
			break;
		case 'K':
			class_first = true;
			break;
		case 'P':
			if (parse_count("status-packet-size", optarg, &status_packet_size) ||
			    status_packet_size > 1024) {
				fprintf(stderr, "uvcuse-vcam: --status-packet-size: 1 to 1024\n");
				return 2;
			}
			break;
		case 'l':
			list_profiles();
			return 0;
		case 'd':
			describe_only = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "uvcuse-vcam: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if ((lsusb_file || status_packet_size || class_first) && !descriptors_file) {
		fprintf(stderr, "uvcuse-vcam: --lsusb, --status-packet-size and --class-first go with "
				"--descriptors\n");
		return 2;
	}
	if (descriptors_file) {
		char why[256];
		int err = vcam_impersonate_load(descriptors_file, lsusb_file, log_invented, NULL, &imp,
						why, sizeof(why));
		if (err) {
			fprintf(stderr, "uvcuse-vcam: cannot impersonate: %s\n", why);
			return 1;
		}
		v.profile = &imp->profile;
		if (status_packet_size &&
		    vcam_impersonate_set_status_packet(imp, (uint16_t)status_packet_size, log_invented,
						       NULL) < 0) {
			fprintf(stderr, "uvcuse-vcam: --status-packet-size: the camera has no status "
					"endpoint\n");
			return 2;
		}
		if (class_first && vcam_impersonate_class_first(imp, log_invented, NULL) < 0) {
			fprintf(stderr, "uvcuse-vcam: out of memory\n");
			return 1;
		}
		if (vcam_impersonate_set_serial(imp, v.serial) < 0) {
			fprintf(stderr, "uvcuse-vcam: out of memory\n");
			return 1;
		}
		fprintf(stderr, "vcam: impersonating %04x:%04x from %s, serial %s\n", imp->vendor,
			imp->product, descriptors_file, v.serial);
	} else {
		v.profile = vcam_profile_find(profile);
	}
	if (!v.profile) {
		fprintf(stderr, "uvcuse-vcam: unknown profile '%s' (see --list-profiles)\n", profile);
		return 2;
	}
	if ((cfg.payload_faults & VCAM_FAULT_FID_TOGGLE) && v.profile->transfer != VCAM_ISOCHRONOUS) {
		fprintf(stderr, "uvcuse-vcam: --payload-fault fid-toggle needs an isochronous profile "
				"(a bulk payload has one FID)\n");
		return 2;
	}
	if (replay_file && load_replay(replay_file, v.profile, &replay) < 0)
		return 2;
	cfg.replay = replay_file ? &replay : NULL;
	if (describe_only) {
		describe(v.profile);
		if (!imp)
			describe_controls();
		vcam_impersonate_free(imp);
		return 0;
	}
	if (strlen(v.serial) == 0 || strlen(v.serial) > 126) {
		fprintf(stderr, "uvcuse-vcam: --serial must be 1 to 126 characters\n");
		return 2;
	}
	/* Blocked before any thread starts, so that only the signalfd sees them. */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGRTMIN);
	sigaddset(&mask, SIGRTMIN + 1);
	sigaddset(&mask, SIGRTMIN + 2);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	v.iso = calloc(USBIP_MAX_ISO_PACKETS, sizeof(*v.iso));
	v.iso_raw = malloc(USBIP_MAX_ISO_PACKETS * USBIP_ISO_DESC_SIZE);
	cfg.profile = v.profile;
	cfg.impersonate = imp;
	cfg.serial = v.serial;
	cfg.send = send_reply;
	cfg.clock = now_ns;
	cfg.frames = cached_frames;
	v.pictures = vcam_frame_cache_new(v.profile, h264_file);
	if (!v.pictures) {
		perror("uvcuse-vcam: frame cache");
		return 1;
	}
	cfg.ctx = &v;
	v.cam = vcam_camera_new(&cfg);
	if (!v.cam || !v.iso || !v.iso_raw) {
		fprintf(stderr, "uvcuse-vcam: out of memory\n");
		return 1;
	}
	/* A device id of our own: bus 100 + process id, for vhci's bookkeeping. */
	v.devid = (100u << 16) | ((uint32_t)getpid() & 0xffff);

	int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		perror("uvcuse-vcam: signalfd");
		return 1;
	}
	if (plug(&v) < 0)
		return 1;

	int status = 0;
	bool request_faults_armed = cfg.request_faults != 0;
	for (;;) {
		struct timespec ts;
		const struct timespec *timeout =
			until(v.sock >= 0 ? vcam_camera_deadline(v.cam) : UINT64_MAX, &ts);
		struct pollfd fds[3] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = vcam_frame_cache_fd(v.pictures), .events = POLLIN },
			{ .fd = v.sock, .events = POLLIN },
		};
		if (ppoll(fds, v.sock >= 0 ? 3 : 2, timeout, NULL) < 0) {
			if (errno == EINTR)
				continue;
			perror("uvcuse-vcam: poll");
			status = 1;
			break;
		}
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo == SIGUSR1) {
				unplug(&v, "SIGUSR1");
			} else if ((int)si.ssi_signo == SIGRTMIN || (int)si.ssi_signo == SIGRTMIN + 1) {
				vcam_camera_pause(v.cam, (int)si.ssi_signo == SIGRTMIN, now_ns());
			} else if ((int)si.ssi_signo == SIGRTMIN + 2) {
				request_faults_armed = !request_faults_armed;
				vcam_camera_arm_request_faults(v.cam, request_faults_armed);
			} else if (si.ssi_signo == SIGUSR2) {
				if (v.sock < 0 && plug(&v) < 0) {
					status = 1;
					break;
				}
			} else {
				unplug(&v, si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
				break;
			}
		}
		if (fds[1].revents & POLLIN)
			vcam_frame_cache_ack(v.pictures);
		if (v.sock >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) {
			int err;
			/* Take every complete command queued before going back to poll. */
			do
				err = handle_command(&v);
			while (!err && command_waiting(v.sock));
			if (err) {
				fprintf(stderr, "vcam: connection to vhci-hcd lost (%s)\n", strerror(-err));
				close(v.sock);
				v.sock = -1;
				vcam_camera_unplugged(v.cam);
				status = 1;
				break;
			}
		}
		if (v.sock >= 0) {
			int err = vcam_camera_run(v.cam, now_ns());
			if (err) {
				fprintf(stderr, "vcam: sending to vhci-hcd failed (%s)\n", strerror(-err));
				unplug(&v, "send failure");
				status = 1;
				break;
			}
		}
	}
	struct vcam_camera_stats st;
	vcam_camera_stats(v.cam, &st);
	fprintf(stderr, "vcam: exit, %llu URBs served", (unsigned long long)st.urbs);
	if (st.status_garbage)
		fprintf(stderr, ", %llu garbage status packets", (unsigned long long)st.status_garbage);
	fprintf(stderr, "\n");
	vcam_camera_free(v.cam);
	vcam_frame_cache_free(v.pictures);
	vcam_impersonate_free(imp);
	free(v.out_buf);
	free(v.iso);
	free(v.iso_raw);
	return status;
}

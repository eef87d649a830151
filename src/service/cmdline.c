/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's command line (getopt_long): each option checked and noted
 * in struct cmdline; nothing is acted on here. */
#include "service/cmdline.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "service/config.h"
#include "usb/usb.h"
#include "uvc/quirks.h"

#ifndef UVCUSE_VERSION
#define UVCUSE_VERSION "unknown"
#endif

/* Long options without a short one. */
enum { OPT_STATE_DIR = 0x100, OPT_NO_RESTORE, OPT_RESET, OPT_CONFIG, OPT_CONFIG_DIR, OPT_USER,
       OPT_STATUS, OPT_UDEV, OPT_CAMERA, OPT_IS_IGNORED, OPT_CONVERT, OPT_NO_CONVERT,
       OPT_CONVERT_THREADS, OPT_LINGER, OPT_EXIT_ON_UNPLUG, OPT_EXCLUSIVE, OPT_QUIRKS, OPT_JSON,
       OPT_WATCH, OPT_CAMERA_CLOCK, OPT_NO_CAMERA_CLOCK, OPT_ERRORED_FRAMES,
       OPT_METADATA_NODE, OPT_NO_METADATA_NODE };

/* An option's handler's answers besides an exit status. */
#define OPT_OK (-1)
#define OPT_NOT_MINE (-2)

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: uvcuse [OPTION]...\n"
		"Serve a USB Video Class camera as a V4L2 capture node (/dev/videoN) from\n"
		"userspace, through CUSE.\n"
		"\n"
		"Which camera (default: the first UVC camera found):\n"
		"  -d, --device VID:PID     by USB vendor and product ID (hex)\n"
		"  -b, --bus-path BUS-PORT[.PORT...]  by where it is plugged in (as in sysfs)\n"
		"  -s, --serial SERIAL      by USB serial number\n"
		"      --camera IDENTITY    by identity, as the udev rule names the service\n"
		"                           instance: serial-VVVV-PPPP-SERIAL, or\n"
		"                           port-VVVV-PPPP-BUS-PORT[.PORT...] without a serial\n"
		"      --is-ignored IDENTITY  exit 0 when the config leaves that camera to\n"
		"                           uvcvideo, 1 otherwise (for the udev rule)\n"
		"Node:\n"
		"  -n, --name videoN        node name (default: the lowest free videoN, N >= 10)\n"
		"Daemon:\n"
		"      --config FILE        the main config file (default " CONFIG_MAIN_FILE ")\n"
		"      --config-dir DIR     more config files, DIR/*.conf in sorted order\n"
		"                           (default " CONFIG_DIR "); options given here\n"
		"                           override the files\n"
		"  -f, --foreground         stay in the foreground (for systemd)\n"
		"      --user NAME          once /dev/cuse is open, become NAME (its groups,\n"
		"                           no capabilities left) before the camera is\n"
		"                           opened: NAME must be able to open the camera's\n"
		"                           USB node (the udev rule gives it)\n"
		"  -l, --log-level LEVEL    error, warning, info (default) or debug\n"
		"Format conversion:\n"
		"      --convert            offer RGB24, BGR24, YU12 and YV12 after the\n"
		"                           camera's own formats, converted from them\n"
		"                           (the default)\n"
		"      --no-convert         offer only the camera's own formats, as uvcvideo\n"
		"      --convert-threads N  threads that convert frames (default: one per\n"
		"                           core)\n"
		"Sharing:\n"
		"      --exclusive          one process streams at a time, as uvcvideo (by\n"
		"                           default several stream the camera at once)\n"
		"Frames:\n"
		"      --camera-clock       stamp frames with their exposure from the camera's\n"
		"                           own clock (its PTS and SCR) when it sends them\n"
		"                           (the default)\n"
		"      --no-camera-clock    stamp frames when their first data arrived\n"
		"      --errored-frames deliver|drop\n"
		"                           frames the camera or the bus damaged go to apps\n"
		"                           flagged V4L2_BUF_FLAG_ERROR, as uvcvideo 6.14+\n"
		"                           (deliver, the default), or are dropped, as\n"
		"                           uvcvideo 6.1\n"
		"      --metadata-node      a second node with the payload headers, as\n"
		"                           uvcvideo's metadata node (the default)\n"
		"      --no-metadata-node   no metadata node\n"
		"Unplug:\n"
		"      --linger S           when the camera is unplugged the node stays: apps\n"
		"                           wait, and streams resume when it comes back; the\n"
		"                           node goes after S seconds with no file open\n"
		"                           (default 30)\n"
		"      --exit-on-unplug     the node goes at once, as uvcvideo's (--linger 0)\n"
		"Camera:\n"
		"      --quirks LIST        uvcvideo's quirks for the camera instead of what its\n"
		"                           device table says: names (probe_minmax,fix_bandwidth,\n"
		"                           ...), none, or a number as uvcvideo's quirks=\n"
		"Remembered controls (values apps set, saved per camera and set again when\n"
		"the camera is opened):\n"
		"      --state-dir DIR      where they are kept (default: $STATE_DIRECTORY,\n"
		"                           else /var/lib/uvcuse)\n"
		"      --no-restore-controls  start with the camera's own values (what apps\n"
		"                           set is still saved)\n"
		"      --reset-controls     set the camera's defaults and forget what was saved\n"
		"Other:\n"
		"  -L, --list               list UVC cameras with their formats, then exit\n"
		"      --status             one line per camera the daemons on this machine\n"
		"                           serve (from $RUNTIME_DIRECTORY, else /run/uvcuse):\n"
		"                           format, measured frame rate, frames, clients...\n"
		"      --watch              --status again every second\n"
		"      --json               --list and --status as JSON\n"
		"      --udev-properties NODE  the ID_* properties of the camera served as\n"
		"                           NODE, for udev's IMPORT{program}\n"
		"  -h, --help               this help\n"
		"  -V, --version            the version\n"
		"\n"
		"Exit status: 0 after SIGTERM/SIGINT or when the config says to ignore the\n"
		"camera, 1 on errors (no matching camera, not a UVC camera, no /dev/cuse,\n"
		"name taken, a bad config file), 2 on bad usage.\n");
}

/* After a usage error (said on its own line): where the rest is. */
static void try_help(void)
{
	fprintf(stderr, "Try 'uvcuse --help' for more information.\n");
}

/* Which camera and which node. */
static int camera_option(int opt, const char *arg, struct cmdline *cl)
{
	switch (opt) {
	case 'd':
		if (usb_match_parse_id(arg, &cl->cfg.match)) {
			fprintf(stderr, "uvcuse: --device wants VID:PID in hex, not '%s'\n", arg);
			return 2;
		}
		return OPT_OK;
	case 'b':
		cl->cfg.match.port_path = arg;
		return OPT_OK;
	case 's':
		cl->cfg.match.serial = arg;
		return OPT_OK;
	case OPT_IS_IGNORED:
		cl->is_ignored = true;
		/* the identity names the camera, as for --camera */
		__attribute__((fallthrough));
	case OPT_CAMERA:
		if (usb_match_parse_identity(arg, &cl->cfg.match)) {
			fprintf(stderr,
				"uvcuse: --camera wants serial-VVVV-PPPP-SERIAL or "
				"port-VVVV-PPPP-BUS-PORT, not '%s'\n",
				arg);
			return 2;
		}
		return OPT_OK;
	case 'n':
		if (strncmp(arg, "video", 5) || !arg[5] ||
		    strspn(arg + 5, "0123456789") != strlen(arg + 5) || strlen(arg) > 40) {
			fprintf(stderr, "uvcuse: --name wants videoN, not '%s'\n", arg);
			return 2;
		}
		snprintf(cl->name, sizeof(cl->name), "%s", arg);
		return OPT_OK;
	default:
		return OPT_NOT_MINE;
	}
}

/* The daemon itself, and the commands that do not serve a camera. */
static int daemon_option(int opt, const char *arg, struct cmdline *cl)
{
	switch (opt) {
	case 'f':
		cl->foreground = true;
		return OPT_OK;
	case 'l': {
		int level = log_parse_level(arg);
		if (level < 0) {
			fprintf(stderr, "uvcuse: unknown log level '%s'\n", arg);
			return 2;
		}
		log_set_level(level);
		cl->log_level_set = true;
		return OPT_OK;
	}
	case OPT_CONFIG:
		cl->config_file = arg;
		return OPT_OK;
	case OPT_CONFIG_DIR:
		cl->config_dir = arg;
		return OPT_OK;
	case OPT_USER:
		cl->user_name = arg;
		return OPT_OK;
	case OPT_STATUS:
		cl->show_status = true;
		return OPT_OK;
	case OPT_JSON:
		cl->json = true;
		return OPT_OK;
	case OPT_WATCH:
		cl->show_status = cl->watch = true;
		return OPT_OK;
	case OPT_UDEV:
		cl->udev_node = arg;
		return OPT_OK;
	case 'L':
		cl->list = true;
		return OPT_OK;
	case 'D':
		cl->cfg.debug_cuse = true;
		return OPT_OK;
	case 'h':
		usage(stdout);
		return 0;
	case 'V':
		printf("uvcuse %s\n", UVCUSE_VERSION);
		return 0;
	default:
		return OPT_NOT_MINE;
	}
}

/* A whole number in [min, max], or false. */
static bool parse_number(const char *arg, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < min || n > max)
		return false;
	*out = n;
	return true;
}

/* Remembered controls. */
static int settings_option(int opt, const char *arg, struct cmdline *cl)
{
	switch (opt) {
	case OPT_STATE_DIR:
		if (!arg[0]) {
			fprintf(stderr, "uvcuse: --state-dir wants a directory\n");
			return 2;
		}
		cl->state_dir = arg;
		return OPT_OK;
	case OPT_NO_RESTORE:
		cl->cfg.settings.no_restore = true;
		return OPT_OK;
	case OPT_RESET:
		cl->cfg.settings.reset = true;
		return OPT_OK;
	default:
		return OPT_NOT_MINE;
	}
}

/* How the camera is served: conversion, sharing, unplug, quirks. */
static int serving_option(int opt, const char *arg, struct cmdline *cl)
{
	long n;
	switch (opt) {
	case OPT_CONVERT:
	case OPT_NO_CONVERT:
		cl->convert = opt == OPT_CONVERT;
		return OPT_OK;
	case OPT_CONVERT_THREADS:
		if (!parse_number(arg, 1, 64, &n)) {
			fprintf(stderr, "uvcuse: --convert-threads wants 1 to 64, not '%s'\n", arg);
			return 2;
		}
		cl->convert_threads = (int)n;
		return OPT_OK;
	case OPT_QUIRKS:
		if (uvc_quirks_parse(arg, &cl->quirks) < 0) {
			fprintf(stderr, "uvcuse: --quirks wants quirk names, none or a number, "
					"not '%s'\n", arg);
			return 2;
		}
		cl->has_quirks = true;
		return OPT_OK;
	case OPT_LINGER:
		if (!parse_number(arg, 0, 86400, &cl->linger)) {
			fprintf(stderr, "uvcuse: --linger wants 0 to 86400 seconds, not '%s'\n", arg);
			return 2;
		}
		return OPT_OK;
	case OPT_EXIT_ON_UNPLUG:
		cl->linger = 0;
		return OPT_OK;
	case OPT_EXCLUSIVE:
		cl->exclusive = true;
		return OPT_OK;
	default:
		return OPT_NOT_MINE;
	}
}

/* What a frame carries: its timestamp, its errors. */
static int frames_option(int opt, const char *arg, struct cmdline *cl)
{
	switch (opt) {
	case OPT_CAMERA_CLOCK:
	case OPT_NO_CAMERA_CLOCK:
		cl->camera_clock = opt == OPT_CAMERA_CLOCK;
		return OPT_OK;
	case OPT_METADATA_NODE:
	case OPT_NO_METADATA_NODE:
		cl->metadata_node = opt == OPT_METADATA_NODE;
		return OPT_OK;
	case OPT_ERRORED_FRAMES:
		if (strcmp(arg, "deliver") && strcmp(arg, "drop")) {
			fprintf(stderr, "uvcuse: --errored-frames wants deliver or drop, not '%s'\n", arg);
			return 2;
		}
		cl->errored_frames = arg[1] == 'e';
		return OPT_OK;
	default:
		return OPT_NOT_MINE;
	}
}

static const struct option options[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "bus-path", required_argument, NULL, 'b' },
	{ "serial", required_argument, NULL, 's' },
	{ "camera", required_argument, NULL, OPT_CAMERA },
	{ "is-ignored", required_argument, NULL, OPT_IS_IGNORED },
	{ "name", required_argument, NULL, 'n' },
	{ "foreground", no_argument, NULL, 'f' },
	{ "log-level", required_argument, NULL, 'l' },
	{ "list", no_argument, NULL, 'L' },
	{ "debug-cuse", no_argument, NULL, 'D' },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "no-restore-controls", no_argument, NULL, OPT_NO_RESTORE },
	{ "reset-controls", no_argument, NULL, OPT_RESET },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "config-dir", required_argument, NULL, OPT_CONFIG_DIR },
	{ "user", required_argument, NULL, OPT_USER },
	{ "status", no_argument, NULL, OPT_STATUS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "watch", no_argument, NULL, OPT_WATCH },
	{ "udev-properties", required_argument, NULL, OPT_UDEV },
	{ "convert", no_argument, NULL, OPT_CONVERT },
	{ "no-convert", no_argument, NULL, OPT_NO_CONVERT },
	{ "convert-threads", required_argument, NULL, OPT_CONVERT_THREADS },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ "quirks", required_argument, NULL, OPT_QUIRKS },
	{ "exit-on-unplug", no_argument, NULL, OPT_EXIT_ON_UNPLUG },
	{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
	{ "camera-clock", no_argument, NULL, OPT_CAMERA_CLOCK },
	{ "no-camera-clock", no_argument, NULL, OPT_NO_CAMERA_CLOCK },
	{ "errored-frames", required_argument, NULL, OPT_ERRORED_FRAMES },
	{ "metadata-node", no_argument, NULL, OPT_METADATA_NODE },
	{ "no-metadata-node", no_argument, NULL, OPT_NO_METADATA_NODE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

int cmdline_parse(int argc, char **argv, struct cmdline *cl)
{
	static int (*const groups[])(int, const char *, struct cmdline *) = {
		camera_option, daemon_option, settings_option, serving_option, frames_option,
	};
	*cl = (struct cmdline){ .convert = -1, .convert_threads = -1, .linger = -1,
				.camera_clock = -1, .errored_frames = -1, .metadata_node = -1,
				.config_dir = CONFIG_DIR, .cfg.kmsg_fd = -1 };
	int opt;
	while ((opt = getopt_long(argc, argv, "d:b:s:n:fl:LhV", options, NULL)) != -1) {
		int res = OPT_NOT_MINE;
		for (unsigned i = 0; i < sizeof(groups) / sizeof(groups[0]) && res == OPT_NOT_MINE; i++)
			res = groups[i](opt, optarg, cl);
		if (res == OPT_NOT_MINE) { /* getopt said why */
			try_help();
			return 2;
		}
		if (res != OPT_OK)
			return res;
	}
	if (optind < argc) {
		fprintf(stderr, "uvcuse: unexpected argument '%s'\n", argv[optind]);
		try_help();
		return 2;
	}
	return -1;
}

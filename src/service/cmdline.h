/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's command line: what each option asks for, before the config
 * files are read (resolve.h puts the two together). */
#ifndef UVCUSE_SERVICE_CMDLINE_H
#define UVCUSE_SERVICE_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "device/device.h"

/* What the command line says. -1 (or false, NULL) where it says nothing,
 * so that the config files may. */
struct cmdline {
	struct device_config cfg;    /* camera match, debug_cuse, settings flags */
	int convert;                 /* --convert 1, --no-convert 0 */
	int convert_threads;
	long linger;                 /* --linger, --exit-on-unplug (0) */
	bool exclusive;
	int camera_clock;            /* --camera-clock 1, --no-camera-clock 0 */
	int metadata_node;           /* --metadata-node 1, --no-metadata-node 0 */
	int errored_frames;          /* --errored-frames deliver 1, drop 0 */
	bool has_quirks;
	uint32_t quirks;
	bool log_level_set;
	bool foreground;
	char name[64];               /* --name, "" when not given */
	const char *state_dir, *config_file, *config_dir, *user_name;
	/* commands other than serving a camera */
	bool list, show_status, is_ignored;
	bool json, watch;            /* --list/--status as JSON; --status every second */
	const char *udev_node;       /* --udev-properties NODE */
};

/* Reads argv into cl. Returns -1 to go on, or the exit status (0 after
 * --help or --version, 2 after bad usage, with the message printed). */
int cmdline_parse(int argc, char **argv, struct cmdline *cl);

#endif

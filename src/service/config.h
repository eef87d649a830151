/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration files (pure: parsing and camera matching, no camera).
 * /etc/uvcuse/uvcuse.conf, then /etc/uvcuse/conf.d/ *.conf in sorted order;
 * later values override earlier ones. INI syntax (libinih):
 *
 *   [uvcuse]                      defaults for every camera
 *   log-level = info
 *   [camera serial=ABC123]        cameras this section applies to: every
 *   [camera id=046d:0825]         token must match (serial=, id=VID:PID,
 *   [camera port=1-2.3]           port=BUS-PORT[.PORT]); tokens are
 *   [camera id=046d:0825 serial=X] separated by spaces
 *
 * Keys (in either kind of section, except name: camera sections only):
 *   name = videoN       node name
 *   ignore = yes|no     leave the camera to uvcvideo
 *   log-level = error|warning|info|debug
 *   convert = on|off    offer the converted formats (default on)
 *   convert-threads = N threads that convert frames, 1..64 (default: cores)
 *   exclusive = on|off  one process streams at a time (--exclusive)
 *   camera-clock = on|off  stamp frames from the camera's own clock, its
 *                       PTS and SCR (uvc/clock.h), when it sends them
 *                       (default on; off: when the frame's first data came)
 *   metadata-node = on|off  a metadata node beside the video node, as
 *                       uvcvideo's (default on)
 *   errored-frames = deliver|drop  frames with errors to apps, flagged
 *                       V4L2_BUF_FLAG_ERROR as uvcvideo 6.14+ (default), or
 *                       dropped as uvcvideo 6.1
 *   linger = SECONDS    how long the node outlives an unplugged camera with
 *                       no file open (--linger), 0..86400 (0:
 *                       --exit-on-unplug)
 *   quirks = LIST       uvcvideo's quirks for the camera, replacing what its
 *                       device table gives (uvc/quirks.h names, comma
 *                       separated, "none", or a number as quirks= takes it)
 * Booleans: yes/no, on/off, true/false, 1/0. */
#ifndef UVCUSE_CONFIG_H
#define UVCUSE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define CONFIG_MAIN_FILE "/etc/uvcuse/uvcuse.conf"
#define CONFIG_DIR "/etc/uvcuse/conf.d"

/* -1 in a field: not set. */
struct config_values {
	char name[41];
	int ignore, log_level, convert, exclusive, linger, convert_threads, camera_clock,
	    metadata_node;
	int replug;      /* 0: any-port, 1: same-port (-1: unset) */
	int errored_frames; /* 1: deliver, 0: drop (-1: unset) */
	int has_quirks;  /* quirks set (0 or 1; -1 in a fresh struct too) */
	uint32_t quirks; /* uvcvideo's quirk bits, replacing its device table's */
	/* what one process or user may hold (device_limits; -1: unset) */
	int max_opens_per_process, max_opens_per_user, max_channels_per_file, max_channels_per_user;
	int max_connections_per_user, connection_timeout_ms, max_buffer_mib_per_user;
};

/* Which cameras a [camera ...] section applies to; unset fields match all. */
struct config_match {
	int has_id;
	uint16_t vid, pid;
	char serial[128], port[32];
};

struct config_section {
	struct config_match match;
	struct config_values values;
};

/* Who a camera is, for matching (strings "" when unknown). */
struct config_camera {
	uint16_t vid, pid;
	const char *serial, *port;
};

/* Warnings (unknown keys) go to warn(data, "file:line: text"). */
typedef void (*config_warn_cb)(void *data, const char *msg);

struct config {
	struct config_values global;
	struct config_section *sections;
	size_t n_sections;
	config_warn_cb warn;
	void *warn_data;
};

/* Empty configuration (every value unset); warn may be NULL. */
void config_init(struct config *cfg, config_warn_cb warn, void *warn_data);
void config_free(struct config *cfg);

/* Parses one file into cfg. A missing file is -ENOENT (the caller decides
 * whether that is fine); a bad value or syntax is -EINVAL with
 * "file:line: reason" in err. */
int config_parse_file(struct config *cfg, const char *path, char *err, size_t errlen);
/* The main file (missing is fine when missing_ok), then dir's *.conf in
 * sorted order (a missing dir is fine). */
int config_load(struct config *cfg, const char *main_file, int missing_ok, const char *dir,
		char *err, size_t errlen);

/* The values for one camera: global, then every matching section in file
 * order. Fields still unset stay -1 (name: ""). */
void config_resolve(const struct config *cfg, const struct config_camera *cam,
		    struct config_values *out);

#endif

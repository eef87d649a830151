/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line over the config files, for the camera the command line
 * names: what the daemon will serve, and as whom. */
#ifndef UVCUSE_SERVICE_RESOLVE_H
#define UVCUSE_SERVICE_RESOLVE_H

#include <limits.h>
#include <stdbool.h>

#include "device/device.h"
#include "service/cmdline.h"
#include "service/privdrop.h"

/* How long the node outlives an unplugged camera with no file open: long
 * enough for a cable to be plugged back, short enough that a camera put
 * away does not leave a dead node behind. */
#define DEFAULT_LINGER_S 30

struct resolved {
	struct device_config cfg;  /* its strings point into this struct and the cmdline */
	char name[64];             /* the node: videoN, free */
	bool metadata_node;        /* a metadata node beside it (config, option) */
	char meta_name[64];        /* its name: videoM, free ("": none) */
	char state_dir[PATH_MAX];  /* absolute: a detached daemon works from / */
	char pinned_port[32];      /* the port of the camera the config was resolved for */
	bool drop_privileges;
	struct privdrop_user user; /* --user, looked up, its state directory ready */
};

/* Reads the config files and puts the command line over them. Returns -1
 * to go on, or the exit status: 0 when the config leaves the camera to
 * uvcvideo, --is-ignored's answer, 1 or 2 on errors (logged). */
int resolve_config(struct cmdline *cl, struct resolved *out);

#endif

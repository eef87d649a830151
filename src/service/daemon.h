/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's run: detached (unless --foreground), the loop, signals,
 * libusb, the device, the privilege drop, the sockets, readiness, until a
 * signal or the device ends it. */
#ifndef UVCUSE_SERVICE_DAEMON_H
#define UVCUSE_SERVICE_DAEMON_H

#include <stdbool.h>

#include "service/resolve.h"

/* Serves the camera r describes. Returns the exit status: 0 after
 * SIGTERM/SIGINT or an unplug that ends the node, 1 on errors (logged). */
int daemon_run(struct resolved *r, bool foreground);

#endif

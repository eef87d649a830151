/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One uvcuse node published as a PipeWire Video/Source node (a pw_stream
 * that drives its own graph). The node file is open only while a consumer
 * has a format negotiated: an idle camera costs no USB bandwidth, no
 * wakeup, and never holds the daemon (it may linger and leave after an
 * unplug). Frames travel in the daemon's own buffer memfds (fetched as the
 * preload library does), which PipeWire hands to consumers: no copy here. */
#ifndef UVCUSE_BRIDGE_CAMERA_H
#define UVCUSE_BRIDGE_CAMERA_H

#include <pipewire/pipewire.h>

struct bridge_camera;

/* Opens path as the caller (a user who may not open it gets no node:
 * -EACCES), checks that it is a uvcuse capture node (-ENOTTY otherwise),
 * reads its modes and name, closes it again and publishes the node on
 * core. 0 and *out, or -errno (logged at debug level only for -EACCES and
 * -ENOTTY, which are the normal answers of nodes not for us). */
int bridge_camera_new(struct pw_core *core, struct pw_loop *loop, const char *path,
		      struct bridge_camera **out);
/* Unpublishes the node, stops the stream, closes the file. */
void bridge_camera_free(struct bridge_camera *c);
const char *bridge_camera_path(const struct bridge_camera *c);

#endif

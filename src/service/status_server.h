/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status socket: $RUNTIME_DIRECTORY/<node>.status (else
 * /run/uvcuse/<node>.status), SOCK_SEQPACKET, mode 0660 with group video
 * when that group exists. Every connection gets one status message
 * (status_msg.h) and is closed: no request to wait for, so a peer that
 * never reads or writes cannot hold anything. */
#ifndef UVCUSE_STATUS_SERVER_H
#define UVCUSE_STATUS_SERVER_H

#include <stddef.h>

#include "device/status_msg.h"

struct loop;
struct status_server;

typedef void (*status_get_cb)(void *data, struct device_status *out);

/* runtime_dir NULL: $RUNTIME_DIRECTORY, else /run/uvcuse. */
int status_server_new(struct loop *loop, const char *runtime_dir, const char *node,
		      status_get_cb get, void *data, struct status_server **out);
/* Removes the socket. */
void status_server_free(struct status_server *srv);

/* Where node's socket is: dir (NULL as above) + "/<node>.status". */
int status_socket_path(const char *runtime_dir, const char *node, char *out, size_t len);

#endif

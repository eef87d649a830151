/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `uvcuse --status` and `uvcuse --udev-properties NODE`: the client side of
 * the status sockets (status_server.h). No privileges needed: the sockets
 * are group video's. Return the exit status. */
#ifndef UVCUSE_STATUS_CLIENT_H
#define UVCUSE_STATUS_CLIENT_H

#include <stdbool.h>

/* One line per served camera on stdout (videoN for N in 0..255), or with
 * json a JSON array of one object each; the exit status: 0, or 1 when none
 * could be shown. */
int status_client_list(bool json);
/* --watch: the list again every second, until a signal ends the program. */
int status_client_watch(bool json);
/* NODE: "video10" or "/dev/video10". */
int status_client_udev(const char *node);

#endif

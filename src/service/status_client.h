/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `uvcuse --status` and `uvcuse --udev-properties NODE`: the client side of
 * the status sockets (status_server.h). No privileges needed: the sockets
 * are group video's. Return the exit status. */
#ifndef UVCUSE_STATUS_CLIENT_H
#define UVCUSE_STATUS_CLIENT_H

/* One line per served camera on stdout (videoN for N in 0..255); the
 * exit status: 0, or 1 when none could be shown. */
int status_client_list(void);
/* NODE: "video10" or "/dev/video10". */
int status_client_udev(const char *node);

#endif

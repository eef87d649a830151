/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd's Type=notify: READY=1 once the node exists and udev has applied
 * its rules to it (its database entry written: udev_wait.h), STATUS= lines
 * when what they show changes. Nothing happens when NOTIFY_SOCKET is not
 * set. */
#ifndef UVCUSE_READINESS_H
#define UVCUSE_READINESS_H

#include <stdbool.h>
#include <sys/types.h>

struct loop;
struct readiness;

/* Starts watching udev for the cuse device `node` ("video10"); call before
 * the node is registered so its entry cannot be missed. *out is NULL when
 * not under systemd. Returns 0 or -errno (then nothing is watched). */
int readiness_new(struct loop *loop, const char *node, struct readiness **out);
/* Runs the loop until udev has processed the node devnum (1), timeout_ms
 * passed (0), or a signal ended the wait (-EINTR, *status set). 1 at once
 * without systemd or without udev. */
int readiness_wait_udev(struct readiness *r, struct loop *loop, dev_t devnum, int timeout_ms,
			int *status);
/* READY=1, once; stops watching udev. */
void readiness_ready(struct readiness *r);
/* STATUS=text, only when it differs from the last one sent. */
void readiness_status(struct readiness *r, const char *text);
void readiness_free(struct readiness *r);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Waiting for udev to have processed our node (its group, mode and links
 * applied) before telling systemd the service is ready. udev writes a
 * device's database entry, /run/udev/data/c<major>:<minor>, after its rules
 * ran and the node's permissions were set; an inotify watch on that folder
 * sees it. No netlink: the service runs in a private network namespace,
 * where udev's broadcasts never arrive. */
#ifndef UVCUSE_UDEV_WAIT_H
#define UVCUSE_UDEV_WAIT_H

#include <stdbool.h>
#include <sys/types.h>

struct loop;
struct udev_wait;

/* Starts watching dir (NULL: /run/udev/data) before the node is created:
 * an entry written from now on counts. -errno when dir cannot be watched
 * (no udev running). */
int udev_wait_new(const char *dir, struct udev_wait **out);
/* Runs the loop until the entry of devnum is written, or timeout_ms pass.
 * Returns 1 when udev has processed it, 0 on timeout, or loop_run_once's
 * quit (a signal) as -EINTR with *status set. */
int udev_wait_for(struct udev_wait *w, struct loop *loop, dev_t devnum, int timeout_ms,
		  int *status);
void udev_wait_free(struct udev_wait *w);

#endif

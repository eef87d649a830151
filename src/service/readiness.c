/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd readiness: sd_notify from libsystemd (the well-kept client of
 * the protocol; a build without libsystemd tells systemd nothing), and
 * udev's processing of the node seen in udev's database folder
 * (udev_wait.c). The service runs in a private network namespace, where
 * udev's netlink broadcasts never arrive, so no monitor socket. */
#include "service/readiness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#else
#define sd_notify(unset, text) ((void)(unset), (void)(text), 0)
#define sd_notifyf(unset, fmt, text) ((void)(unset), (void)(fmt), (void)(text), 0)
#endif

#include "core/log.h"
#include "core/loop.h"
#include "service/udev_wait.h"

struct readiness {
	struct udev_wait *udev; /* NULL: no udev to wait for */
	bool ready;
	char status[512];
};

int readiness_new(struct loop *loop, const char *node, struct readiness **out)
{
	(void)loop;
	(void)node;
	*out = NULL;
	if (!getenv("NOTIFY_SOCKET"))
		return 0;
	struct readiness *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	int e = udev_wait_new(NULL, &r->udev);
	if (e < 0)
		log_warn("cannot watch udev's database (%s): READY=1 as soon as the node exists",
			 strerror(-e));
	*out = r;
	return 0;
}

int readiness_wait_udev(struct readiness *r, struct loop *loop, dev_t devnum, int timeout_ms,
			int *status)
{
	if (!r || !r->udev)
		return 1;
	int ret = udev_wait_for(r->udev, loop, devnum, timeout_ms, status);
	udev_wait_free(r->udev);
	r->udev = NULL;
	return ret;
}

void readiness_ready(struct readiness *r)
{
	if (!r || r->ready)
		return;
	r->ready = true;
	sd_notify(0, "READY=1");
}

void readiness_status(struct readiness *r, const char *text)
{
	if (!r || !strcmp(r->status, text))
		return;
	snprintf(r->status, sizeof(r->status), "%s", text);
	sd_notifyf(0, "STATUS=%s", text);
}

void readiness_free(struct readiness *r)
{
	if (!r)
		return;
	udev_wait_free(r->udev);
	free(r);
}

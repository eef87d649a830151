/* systemd readiness through libsystemd: sd_notify, and sd-device's monitor
 * of udev's netlink group. One well-kept library does both (libudev would
 * be a second one for the monitor, and a hand-written notify client a
 * third piece to maintain). sd-device's monitor runs on an sd_event,
 * whose epoll fd sits on our loop; it lives only until READY=1. */
#include "readiness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>

#include "log.h"
#include "loop.h"

struct readiness {
	struct loop *loop;
	char node[64];
	sd_event *event;
	sd_device_monitor *monitor;
	int event_fd;
	bool udev_done, ready;
	char status[512];
};

static int on_device(sd_device_monitor *m, sd_device *device, void *userdata)
{
	struct readiness *r = userdata;
	(void)m;
	const char *sysname = NULL;
	sd_device_action_t action;
	if (sd_device_get_sysname(device, &sysname) < 0 || strcmp(sysname, r->node) != 0)
		return 0;
	if (sd_device_get_action(device, &action) < 0 || action != SD_DEVICE_ADD)
		return 0;
	log_debug("udev has processed /dev/%s", r->node);
	r->udev_done = true;
	return 0;
}

static void on_event_fd(void *data, uint32_t events)
{
	struct readiness *r = data;
	(void)events;
	sd_event_run(r->event, 0);
}

static void stop_monitor(struct readiness *r)
{
	if (r->event_fd >= 0)
		loop_remove(r->loop, r->event_fd);
	r->event_fd = -1;
	r->monitor = sd_device_monitor_unref(r->monitor);
	r->event = sd_event_unref(r->event);
}

int readiness_new(struct loop *loop, const char *node, struct readiness **out)
{
	*out = NULL;
	if (!getenv("NOTIFY_SOCKET"))
		return 0;
	struct readiness *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->loop = loop;
	r->event_fd = -1;
	snprintf(r->node, sizeof(r->node), "%s", node);
	int e = sd_event_new(&r->event);
	if (e >= 0)
		e = sd_device_monitor_new(&r->monitor);
	if (e >= 0)
		e = sd_device_monitor_filter_add_match_subsystem_devtype(r->monitor, "cuse", NULL);
	if (e >= 0)
		e = sd_device_monitor_attach_event(r->monitor, r->event);
	if (e >= 0)
		e = sd_device_monitor_start(r->monitor, on_device, r);
	if (e >= 0) {
		r->event_fd = sd_event_get_fd(r->event);
		e = r->event_fd;
	}
	if (e >= 0)
		e = loop_add(loop, r->event_fd, EPOLLIN, on_event_fd, r);
	if (e < 0) {
		r->event_fd = -1;
		log_warn("cannot watch udev (%s): READY=1 as soon as the node exists", strerror(-e));
		stop_monitor(r);
		r->udev_done = true;
	}
	*out = r;
	return 0;
}

bool readiness_udev_done(const struct readiness *r)
{
	return !r || r->udev_done;
}

void readiness_ready(struct readiness *r)
{
	if (!r || r->ready)
		return;
	stop_monitor(r);
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
	stop_monitor(r);
	free(r);
}

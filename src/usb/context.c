/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The libusb context and its place in the daemon's loop: every libusb pollfd
 * is watched by the loop, and readiness runs libusb's event handling with a
 * zero timeout (Linux libusb keeps its timeouts on a timerfd, which is one of
 * those pollfds). An eventfd lets stream callbacks, which run inside libusb's
 * event handling, defer work (stop, error report) to the loop. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "core/loop.h"
#include "core/log.h"
#include "usb/internal.h"

int usb_errno(int e)
{
	switch (e) {
	case LIBUSB_SUCCESS:
		return 0;
	case LIBUSB_ERROR_IO:
		return -EIO;
	case LIBUSB_ERROR_INVALID_PARAM:
		return -EINVAL;
	case LIBUSB_ERROR_ACCESS:
		return -EACCES;
	case LIBUSB_ERROR_NO_DEVICE:
		return -ENODEV;
	case LIBUSB_ERROR_NOT_FOUND:
		return -ENOENT;
	case LIBUSB_ERROR_BUSY:
		return -EBUSY;
	case LIBUSB_ERROR_TIMEOUT:
		return -ETIMEDOUT;
	case LIBUSB_ERROR_OVERFLOW:
		return -EOVERFLOW;
	case LIBUSB_ERROR_PIPE:
		return -EPIPE;
	case LIBUSB_ERROR_INTERRUPTED:
		return -EINTR;
	case LIBUSB_ERROR_NO_MEM:
		return -ENOMEM;
	case LIBUSB_ERROR_NOT_SUPPORTED:
		return -ENOTSUP;
	default:
		return -EIO;
	}
}

static uint32_t poll_to_epoll(short events)
{
	uint32_t ev = 0;
	if (events & POLLIN)
		ev |= EPOLLIN;
	if (events & POLLOUT)
		ev |= EPOLLOUT;
	if (events & POLLPRI)
		ev |= EPOLLPRI;
	return ev;
}

static void on_libusb_fd(void *data, uint32_t events)
{
	struct usb_ctx *ctx = data;
	(void)events;
	struct timeval zero = { 0, 0 };
	int r = libusb_handle_events_timeout_completed(ctx->lusb, &zero, NULL);
	if (r < 0 && r != LIBUSB_ERROR_INTERRUPTED)
		log_error("libusb event handling: %s", libusb_strerror(r));
}

static void on_pollfd_added(int fd, short events, void *data)
{
	struct usb_ctx *ctx = data;
	int r = loop_add(ctx->loop, fd, poll_to_epoll(events), on_libusb_fd, ctx);
	if (r == -EEXIST)
		r = loop_modify(ctx->loop, fd, poll_to_epoll(events));
	if (r < 0)
		log_error("cannot watch libusb fd %d: %s", fd, strerror(-r));
}

static void on_pollfd_removed(int fd, void *data)
{
	struct usb_ctx *ctx = data;
	loop_remove(ctx->loop, fd);
}

static void on_eventfd(void *data, uint32_t events)
{
	struct usb_ctx *ctx = data;
	(void)events;
	uint64_t n;
	if (read(ctx->eventfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_warn("eventfd read: %s", strerror(errno));
	if (ctx->left) {
		ctx->left = false;
		if (ctx->on_left)
			ctx->on_left(ctx->hotplug_data);
	}
	if (ctx->arrived) {
		ctx->arrived = false;
		if (ctx->on_arrival)
			ctx->on_arrival(ctx->hotplug_data);
	}
	/* A camera's deferred work may close another camera (the owner reacting
	 * to an error): restart the walk after each one that had work. */
	bool again = true;
	while (again) {
		again = false;
		for (struct usb_camera *c = ctx->cameras; c; c = c->next) {
			if (c->stream.stop_pending || c->stream.error_pending) {
				usb_stream_deferred(c);
				again = true;
				break;
			}
			if (usb_ctrl_has_work(c)) {
				usb_ctrl_deferred(c);
				again = true;
				break;
			}
			if (usb_status_has_work(c)) {
				usb_status_deferred(c);
				again = true;
				break;
			}
		}
	}
}

void usb_ctx_wake(struct usb_ctx *ctx)
{
	uint64_t one = 1;
	if (ctx->eventfd >= 0 && write(ctx->eventfd, &one, sizeof(one)) < 0)
		log_warn("eventfd write: %s", strerror(errno));
}

void usb_ctx_add_camera(struct usb_ctx *ctx, struct usb_camera *cam)
{
	cam->next = ctx->cameras;
	ctx->cameras = cam;
}

void usb_ctx_remove_camera(struct usb_ctx *ctx, struct usb_camera *cam)
{
	for (struct usb_camera **p = &ctx->cameras; *p; p = &(*p)->next) {
		if (*p == cam) {
			*p = cam->next;
			return;
		}
	}
}

bool usb_ctx_wait(struct usb_ctx *ctx, const bool *busy, int timeout_ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t deadline = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + timeout_ms;
	while (*busy) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 >= deadline)
			break;
		int r = usb_ctx_handle_events(ctx, 100);
		if (r < 0 && r != -EINTR && r != -ETIMEDOUT)
			break;
	}
	return !*busy;
}

int usb_ctx_handle_events(struct usb_ctx *ctx, int timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	return usb_errno(libusb_handle_events_timeout_completed(ctx->lusb, &tv, NULL));
}

int usb_ctx_new(struct loop *loop, struct usb_ctx **out)
{
	struct usb_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->loop = loop;
	ctx->eventfd = -1;
	ctx->udev_data_fd = -1;
	int r = libusb_init(&ctx->lusb);
	if (r < 0) {
		log_warn("libusb_init: %s", libusb_strerror(r));
		free(ctx);
		return usb_errno(r);
	}
	if (!loop) {
		*out = ctx;
		return 0;
	}
	if (!libusb_pollfds_handle_timeouts(ctx->lusb))
		/* Only very old kernels lack timerfd; control requests still time
		 * out (they run libusb's own waits), stream transfers have none. */
		log_warn("libusb needs timeouts handled by hand; transfer timeouts are not enforced");
	ctx->eventfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ctx->eventfd < 0) {
		r = -errno;
		goto fail;
	}
	r = loop_add(loop, ctx->eventfd, EPOLLIN, on_eventfd, ctx);
	if (r < 0)
		goto fail;
	libusb_set_pollfd_notifiers(ctx->lusb, on_pollfd_added, on_pollfd_removed, ctx);
	const struct libusb_pollfd **fds = libusb_get_pollfds(ctx->lusb);
	if (!fds) {
		r = -ENOMEM;
		goto fail;
	}
	for (const struct libusb_pollfd **p = fds; *p; p++)
		on_pollfd_added((*p)->fd, (*p)->events, ctx);
	libusb_free_pollfds(fds);
	*out = ctx;
	return 0;
fail:
	usb_ctx_free(ctx);
	return r;
}

/* Inside libusb's event handling: only noted, the loop tells the owner. */
static int on_hotplug(libusb_context *lusb, libusb_device *dev, libusb_hotplug_event event,
		      void *data)
{
	struct usb_ctx *ctx = data;
	(void)lusb;
	if (event == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED) {
		ctx->arrived = true;
		usb_ctx_wake(ctx);
		return 0;
	}
	for (struct usb_camera *c = ctx->cameras; c; c = c->next) {
		if (c->handle && !c->gone && libusb_get_device(c->handle) == dev) {
			c->gone = true;
			ctx->left = true;
			usb_ctx_wake(ctx);
		}
	}
	return 0; /* keep watching */
}

/* udev wrote a database entry, after applying its rules: for a USB device
 * (c189:N, usbfs's major) the node now has the owner our rule gives it, so
 * a camera that is gone may be back. This works where libusb's hotplug
 * does not: in a private network namespace, udevd's netlink events never
 * arrive, but its files do. */
#define UDEV_DATA_DIR "/run/udev/data"
#define USBFS_ENTRY_PREFIX "c189:"

static void on_udev_data(void *data, uint32_t events)
{
	struct usb_ctx *ctx = data;
	(void)events;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool usb = false;
	ssize_t n;
	while ((n = read(ctx->udev_data_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			if (ev->len && !strncmp(ev->name, USBFS_ENTRY_PREFIX, strlen(USBFS_ENTRY_PREFIX)))
				usb = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	bool any_gone = false;
	for (struct usb_camera *c = ctx->cameras; c; c = c->next)
		any_gone |= c->gone;
	if (usb && any_gone && ctx->on_arrival)
		ctx->on_arrival(ctx->hotplug_data);
}

static int watch_udev_data(struct usb_ctx *ctx)
{
	ctx->udev_data_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ctx->udev_data_fd < 0)
		return -errno;
	int r = 0;
	if (inotify_add_watch(ctx->udev_data_fd, UDEV_DATA_DIR, IN_MOVED_TO | IN_CLOSE_WRITE) < 0)
		r = -errno;
	else
		r = loop_add(ctx->loop, ctx->udev_data_fd, EPOLLIN, on_udev_data, ctx);
	if (r < 0) {
		close(ctx->udev_data_fd);
		ctx->udev_data_fd = -1;
	}
	return r;
}

int usb_ctx_watch(struct usb_ctx *ctx, uint16_t vid, uint16_t pid, usb_hotplug_cb on_arrival,
		  usb_hotplug_cb on_left, void *data)
{
	if (!ctx->loop || ctx->hotplug_registered || ctx->udev_data_fd >= 0)
		return -EINVAL;
	ctx->on_arrival = on_arrival;
	ctx->on_left = on_left;
	ctx->hotplug_data = data;
	int r = -ENOTSUP;
	if (libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG)) {
		r = libusb_hotplug_register_callback(
			ctx->lusb,
			LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT,
			LIBUSB_HOTPLUG_NO_FLAGS, vid, pid, LIBUSB_HOTPLUG_MATCH_ANY, on_hotplug, ctx,
			&ctx->hotplug);
		r = usb_errno(r);
		ctx->hotplug_registered = r == 0;
	}
	int u = watch_udev_data(ctx);
	if (u < 0)
		log_debug("%s: %s: a camera that comes back is seen only through libusb's hotplug",
			  UDEV_DATA_DIR, strerror(-u));
	return r == 0 || u == 0 ? 0 : r;
}

void usb_ctx_unwatch(struct usb_ctx *ctx)
{
	if (ctx->hotplug_registered)
		libusb_hotplug_deregister_callback(ctx->lusb, ctx->hotplug);
	ctx->hotplug_registered = false;
	if (ctx->udev_data_fd >= 0) {
		loop_remove(ctx->loop, ctx->udev_data_fd);
		close(ctx->udev_data_fd);
	}
	ctx->udev_data_fd = -1;
	ctx->on_arrival = ctx->on_left = NULL;
	ctx->arrived = ctx->left = false;
}

void usb_ctx_free(struct usb_ctx *ctx)
{
	if (!ctx)
		return;
	usb_ctx_unwatch(ctx);
	if (ctx->cameras)
		log_warn("context freed with cameras still open");
	if (ctx->loop) {
		libusb_set_pollfd_notifiers(ctx->lusb, NULL, NULL, NULL);
		const struct libusb_pollfd **fds = libusb_get_pollfds(ctx->lusb);
		for (const struct libusb_pollfd **p = fds; p && *p; p++)
			loop_remove(ctx->loop, (*p)->fd);
		libusb_free_pollfds(fds);
		if (ctx->eventfd >= 0)
			loop_remove(ctx->loop, ctx->eventfd);
	}
	if (ctx->eventfd >= 0)
		close(ctx->eventfd);
	libusb_exit(ctx->lusb);
	free(ctx);
}

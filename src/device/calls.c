/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Camera calls: the requests that need the camera (an app's ioctl, or a
 * control change reported on the status endpoint) run one at a time, the
 * others waiting in line, as uvcvideo's ctrl_mutex serialises them; the
 * status endpoint's packets become such calls. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/video.h>
#include <linux/version.h>

#include "core/log.h"
#include "core/loop.h"
#include "cuse/cuse.h"
#include "device/internal.h"
#include "settings/settings_store.h"
#include "share/bufshare.h"
#include "share/channel.h"
#include "uvc/negotiate.h"
#include "uvc/payload.h"
#include "uvc/quirks.h"
#include "uvc/status.h"
#include "v4l2/node.h"

/* --- status endpoint: the camera's own control changes --------------------- */

static void calls_add(struct device *dev, struct camera_call *c);

/* From the loop (usb/ defers it out of libusb's event handling), so the
 * control events may read the camera. */
static void on_status_packet(void *opaque, const uint8_t *packet, size_t len)
{
	struct device *dev = opaque;
	struct uvc_status st;
	char what[160];

	uvc_status_parse(packet, len, &st);
	uvc_status_describe(&st, what, sizeof(what));
	if (st.kind == UVC_STATUS_IGNORED) {
		if (st.malformed && dev->calls.status_malformed < 5)
			log_warn("status packet of %zu bytes ignored: %s%s", len, st.why,
				 ++dev->calls.status_malformed == 5 ? " (further ones at debug level)" : "");
		else
			log_debug("status packet of %zu bytes ignored: %s", len, st.why);
		return;
	}
	log_debug("status: %s", what);
	/* uvcvideo acts on value changes only (info, failure, min and max
	 * changes, buttons and stream errors are logged) */
	if (st.kind != UVC_STATUS_CONTROL || st.attribute != UVC_STATUS_ATTR_VALUE)
		return;
	struct camera_call *c = calloc(1, sizeof(*c));
	if (!c) {
		log_warn("status: no memory for the change of control %u/%u", st.originator,
			 st.selector);
		return;
	}
	c->originator = st.originator;
	c->selector = st.selector;
	c->value_len = st.value_len < sizeof(c->value) ? st.value_len : sizeof(c->value);
	if (st.value && c->value_len)
		memcpy(c->value, st.value, c->value_len);
	calls_add(dev, c);
}

static void on_status_error(void *opaque, int err)
{
	struct device *dev = opaque;
	dev->calls.status_running = false;
	if (err == -ENODEV) {
		device_camera_unplugged(dev);
		return;
	}
	log_warn("status endpoint stopped (%s): the camera's own control changes no longer "
		 "become events", strerror(-err));
}

void device_status_start(struct device *dev)
{
	int err = usb_status_start(dev->cam, on_status_packet, on_status_error, dev);
	dev->calls.status_running = err == 0;
	if (err == -ENOENT)
		log_debug("camera has no status endpoint: no events of its own changes");
	else if (err)
		log_warn("status endpoint: %s: no events of the camera's own changes", strerror(-err));
}

/* --- camera calls: requests that wait for the camera ------------------------ */

static void call_free(struct camera_call *c)
{
	free(c->orig);
	free(c->work);
	free(c);
}


/* The head call answered: its reply (if its caller still waits), what an
 * answered ioctl brings about, and the release it held back. */
static void call_done(struct device *dev, struct camera_call *c, int res)
{
	struct dev_file *df = c->df;
	void *arg = c->work, *extra = c->extra_len ? c->work + c->arg_size : NULL;
	if (!df) {
		if (res < 0)
			log_debug("status: control %u/%u has no V4L2 control", c->originator,
				  c->selector);
	} else {
		if (c->cmd == VIDIOC_LOG_STATUS)
			log_status_emit(dev);
		/* the camera has the values even when the caller gave up */
		if (res == 0)
			settings_store_note(dev->settings, c->cmd, arg, extra);
		if (c->req) {
			if (c->arg_size)
				memcpy(c->req_arg, arg, c->arg_size);
			if (c->extra_len)
				memcpy(c->req_extra, extra, c->extra_len);
			cuse_reply_ioctl(c->req, res, c->req_arg);
		}
	}
	device_wake_if_due(dev); /* the call queued events */
	if (df && res == 0 && (c->cmd == VIDIOC_S_FMT || c->cmd == VIDIOC_S_PARM))
		device_changed(dev);
	if (df && df->releasing) {
		bool more = false;
		for (struct camera_call *o = dev->calls.queue; o; o = o->next)
			more |= o->df == df;
		if (!more)
			requests_release_finish(dev, df);
	}
}

static void on_call_answer(void *opaque, int result, const uint8_t *answer);

/* Runs the calls in line while none waits for the camera. */
static void calls_pump(struct device *dev)
{
	if (dev->calls.pumping)
		return; /* a call answered inside another's reply: the loop below goes on */
	dev->calls.pumping = true;
	while (dev->calls.queue && !dev->calls.inflight) {
		struct camera_call *c = dev->calls.queue;
		int res;
		if (c->arg_size + c->extra_len) /* a status event has none */
			memcpy(c->work, c->orig, c->arg_size + c->extra_len);
		if (!c->df)
			res = node_status_event(&dev->node, c->originator, c->selector, c->value,
						c->value_len);
		else
			res = node_ioctl(&dev->node, &c->df->nf, c->cmd, c->work,
					 c->extra_len ? c->work + c->arg_size : NULL, c->extra_len,
					 device_file_nonblocking(c->df), NULL, NULL);
		const struct node_camera_req *need =
			res == NODE_CAMERA ? node_camera_need(&dev->node) : NULL;
		if (res == NODE_CAMERA && !need)
			res = -EIO; /* cannot happen: a call waits for a request it names */
		if (need) {
			int err = need->ctrl.streaming ?
					  usb_vs_submit(dev->cam, 0, need->ctrl.query,
							need->ctrl.selector, need->out, need->ctrl.size,
							on_call_answer, dev, &dev->calls.inflight) :
					  usb_ctrl_submit(dev->cam, need->ctrl.query, need->ctrl.entity,
							  need->ctrl.selector, need->out, need->ctrl.size,
							  on_call_answer, dev, &dev->calls.inflight);
			if (err) {
				node_camera_answer(&dev->node, err, NULL);
				continue;
			}
			if (c->req && !c->parked) {
				c->parked = true;
				cuse_req_park(c->req); /* may answer it (op_interrupt) at once */
			}
			continue;
		}
		dev->calls.queue = c->next;
		call_done(dev, c, res);
		call_free(c);
	}
	dev->calls.pumping = false;
}

static void on_call_answer(void *opaque, int result, const uint8_t *answer)
{
	struct device *dev = opaque;
	dev->calls.inflight = NULL;
	if (node_camera_answer(&dev->node, result, answer) < 0) {
		/* no memory for the journal: the call cannot go on */
		struct camera_call *c = dev->calls.queue;
		log_warn("camera request: no memory to keep its answer");
		node_call_abandon(&dev->node);
		dev->calls.queue = c->next;
		if (c->req)
			cuse_reply_ioctl(c->req, -ENOMEM, c->req_arg);
		call_done(dev, c, -ENOMEM);
		call_free(c);
	}
	calls_pump(dev);
}

static void calls_add(struct device *dev, struct camera_call *c)
{
	struct camera_call **pp = &dev->calls.queue;
	while (*pp)
		pp = &(*pp)->next;
	*pp = c;
	calls_pump(dev);
}

/* An ioctl that may need the camera: in line behind the others. */
void calls_ioctl(struct device *dev, struct dev_file *df, struct cuse_req *req,
		       unsigned int cmd, void *arg, void *extra, size_t extra_len)
{
	struct camera_call *c = calloc(1, sizeof(*c));
	size_t size = _IOC_SIZE(cmd) + extra_len;
	if (c) {
		c->orig = malloc(size ? size : 1);
		c->work = malloc(size ? size : 1);
	}
	if (!c || !c->orig || !c->work) {
		if (c)
			call_free(c);
		cuse_reply_ioctl(req, -ENOMEM, arg);
		return;
	}
	c->df = df;
	c->req = req;
	c->cmd = cmd;
	c->arg_size = _IOC_SIZE(cmd);
	c->extra_len = extra_len;
	c->req_arg = arg;
	c->req_extra = extra;
	if (c->arg_size)
		memcpy(c->orig, arg, c->arg_size);
	if (extra_len)
		memcpy(c->orig + c->arg_size, extra, extra_len);
	if (dev->calls.queue) { /* waits for the camera's other requests */
		c->parked = true;
		calls_add(dev, c);
		cuse_req_park(req);
		return;
	}
	calls_add(dev, c);
}

/* A caller interrupted while its call waits: answered now. A call not yet
 * run leaves the line; the one running goes on (the camera has its
 * request) with nobody to answer. */
bool calls_interrupt(struct device *dev, struct cuse_req *req)
{
	for (struct camera_call **pp = &dev->calls.queue; *pp; pp = &(*pp)->next) {
		struct camera_call *c = *pp;
		if (c->req != req)
			continue;
		cuse_reply_error(req, EINTR);
		c->req = NULL;
		if (c != dev->calls.queue || !node_call_pending(&dev->node)) {
			*pp = c->next;
			call_free(c);
		}
		return true;
	}
	return false;
}


/* A file is released. Its calls were answered (interrupted) before the
 * release came; those not started just leave. One may still wait for the
 * camera, and uses the file when it runs again: true then, and the file
 * goes when that call ends (call_done). */
bool calls_release_file(struct device *dev, struct dev_file *df)
{
	bool running = false;
	for (struct camera_call **pp = &dev->calls.queue; *pp;) {
		struct camera_call *c = *pp;
		if (c->df != df) {
			pp = &c->next;
			continue;
		}
		if (c->req) { /* cannot happen: CUSE answers every request first */
			cuse_reply_error(c->req, EINTR);
			c->req = NULL;
		}
		if (c == dev->calls.queue && node_call_pending(&dev->node)) {
			running = true;
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		call_free(c);
	}
	return running;
}

/* The device goes: the request on the wire is cancelled, the calls in
 * line are dropped unanswered (CUSE answered their callers already). */
void calls_free_all(struct device *dev)
{
	usb_ctrl_cancel(dev->calls.inflight);
	node_call_abandon(&dev->node);
	while (dev->calls.queue) {
		struct camera_call *c = dev->calls.queue;
		dev->calls.queue = c->next;
		call_free(c);
	}
}

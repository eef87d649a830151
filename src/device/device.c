/* One camera being served: the device's lifetime (the camera opened and
 * read at start-up, the node registered, everything freed) and its wiring:
 * the node's camera operations and the CUSE operations point into the
 * files of this folder. */
#include "device/device.h"

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

#include "share/bufshare.h"
#include "share/channel.h"
#include "cuse/cuse.h"
#include "core/log.h"
#include "device/convert_stream.h"
#include "device/internal.h"
#include "core/loop.h"
#include "settings/settings_store.h"
#include "uvc/negotiate.h"
#include "uvc/payload.h"
#include "uvc/status.h"
#include "v4l2/node.h"
#include "uvc/quirks.h"

void device_changed(struct device *dev)
{
	if (dev->on_change)
		dev->on_change(dev->change_data);
}

static const struct node_ops node_ops = {
	.probe_done = streaming_probe_done,
	.stream_on = device_stream_on,
	.stream_off = streaming_off,
	.consumer_on = frames_consumer_on,
	.consumer_off = frames_consumer_off,
	.buffer_queued = frames_buffer_queued,
	.ctrl_request = streaming_ctrl_request,
	.log_status = log_status_run,
};

static const struct cuse_server_ops cuse_ops = {
	.open = requests_open,
	.release = requests_release,
	.ioctl = requests_ioctl,
	.read = requests_read,
	.poll = requests_poll,
	.interrupt = requests_interrupt,
	.answer_lost = requests_answer_lost,
};

/* --- set-up ------------------------------------------------------------ */

static uint32_t running_kernel_version(void)
{
	struct utsname u;
	unsigned a = 0, b = 0, c = 0;
	if (uname(&u) == 0)
		sscanf(u.release, "%u.%u.%u", &a, &b, &c);
	return KERNEL_VERSION(a, b, c > 255 ? 255 : c);
}

/* The start-up probe, as uvc_video_init: SET_CUR with the camera's
 * defaults (GET_DEF) when it has them, then GET_CUR. */
static void startup_probe(struct device *dev, struct uvc_probe *probe)
{
	struct uvc_probe def;
	memset(probe, 0, sizeof(*probe));
	if (usb_probe_get(dev->cam, 0, UVC_GET_DEF, &def) == 0)
		usb_probe_set(dev->cam, 0, false, &def);
	if (usb_probe_get(dev->cam, 0, UVC_GET_CUR, probe) < 0)
		log_warn("camera refuses GET_CUR of the probe control: starting with its first format");
}

/* The camera's controls with the flags it reports (GET_INFO of each), read
 * before the start-up probe as uvcvideo does when it binds. */
static void startup_controls(struct device *dev, struct ctrls *c)
{
	struct ctrls_request r;
	unsigned failed = 0;
	if (ctrls_init(c, usb_camera_model(dev->cam))) {
		log_warn("too many controls: the camera is served without controls");
		memset(c, 0, sizeof(*c));
		return;
	}
	while (ctrls_next_info(c, &r)) {
		uint8_t info = 0;
		int res = usb_query_ctrl(dev->cam, UVC_GET_INFO, r.entity, r.selector, &info, 1);
		if (res < 0)
			failed++;
		ctrls_feed(c, &r, &info, res);
	}
	if (failed)
		log_warn("GET_INFO refused for %u of %u controls: using uvcvideo's flags for them",
			 failed, c->n_uvc);
	log_debug("%u UVC controls, %u V4L2 controls", c->n_uvc, c->n_maps);
}

int device_new(struct loop *loop, struct usb_ctx *usb, const struct device_config *cfg,
	       struct device **out)
{
	struct device *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->loop = loop;
	dev->usb = usb;
	dev->away.linger_fd = -1;
	dev->on_change = cfg->on_change;
	dev->change_data = cfg->change_data;
	char err[256] = "";
	int res = usb_camera_open(usb, &cfg->match, &dev->cam, err, sizeof(err));
	if (res) {
		/* say which camera was asked for: "... (asked for serial X)" */
		const struct usb_match *m = &cfg->match;
		char what[200] = "";
		size_t w = 0;
		if (m->by_id)
			w += (size_t)snprintf(what + w, sizeof(what) - w, " device %04x:%04x", m->vid, m->pid);
		if (m->port_path && w < sizeof(what))
			w += (size_t)snprintf(what + w, sizeof(what) - w, " bus path %s", m->port_path);
		if (m->serial && w < sizeof(what))
			snprintf(what + w, sizeof(what) - w, " serial %s", m->serial);
		if (what[0])
			log_error("%s (asked for%s)", err[0] ? err : strerror(-res), what);
		else
			log_error("%s", err[0] ? err : strerror(-res));
		free(dev);
		return res;
	}
	const struct usb_camera_id *id = usb_camera_id(dev->cam);
	const char *quirk_entry;
	uint32_t quirks = usb_camera_apply_quirks(dev->cam, cfg->has_quirks ? &cfg->quirks : NULL,
						  &quirk_entry);
	if (quirks || quirk_entry || cfg->has_quirks) {
		char names[256];
		uvc_quirks_format(quirks, names, sizeof(names));
		log_info("quirks: %s (%s%s)", names,
			 cfg->has_quirks ? "set by the configuration" : "uvcvideo's device table: ",
			 cfg->has_quirks ? "" : quirk_entry ? quirk_entry : "no entry");
		if (quirks & ~UVC_QUIRKS_APPLIED) {
			uvc_quirks_format(quirks & ~UVC_QUIRKS_APPLIED, names, sizeof(names));
			log_warn("quirks uvcuse does not apply yet: %s", names);
		}
	}
	struct node_identity ident = { .version = running_kernel_version() };
	/* cut to the V4L2 fields' size, as the kernel's strscpy does */
	if (id->product[0])
		memcpy(ident.card, id->product, sizeof(ident.card) - 1);
	else
		snprintf(ident.card, sizeof(ident.card), "UVC Camera (%04x:%04x)", id->vid, id->pid);
	/* uvcvideo (6.1) tells a device's functions apart by their name: ": "
	 * and the string, whenever the function has one, even unreadable */
	if (id->function_index) {
		size_t n = strlen(ident.card);
		if (n + 2 < sizeof(ident.card)) {
			memcpy(ident.card + n, ": ", 3);
			n += 2;
		}
		/* whole characters only, as the kernel's usb_string() writes it */
		for (const char *s = id->function; *s;) {
			size_t c = 1;
			while ((s[c] & 0xc0) == 0x80)
				c++;
			if (n + c >= sizeof(ident.card))
				break;
			memcpy(ident.card + n, s, c);
			n += c;
			s += c;
		}
		ident.card[n] = '\0';
	}
	memcpy(ident.bus_info, id->bus_info, sizeof(ident.bus_info) - 1);

	struct ctrls *ctrls = malloc(sizeof(*ctrls));
	if (!ctrls) {
		usb_camera_close(dev->cam);
		free(dev);
		return -ENOMEM;
	}
	startup_controls(dev, ctrls);
	struct uvc_probe probe;
	startup_probe(dev, &probe);
	uvc_assembler_init(&dev->frames.assembler, frames_on_frame, dev);
	dev->frames.assembler.need_buffer = frames_need_buffer;
	res = node_init(&dev->node, usb_camera_model(dev->cam), &ident, &probe, &node_ops, dev,
			&device_mem_ops, dev);
	if (res) {
		log_error("camera %04x:%04x has no format V4L2 knows", id->vid, id->pid);
		free(ctrls);
		usb_camera_close(dev->cam);
		free(dev);
		return res;
	}
	dev->node.ctrls = *ctrls;
	free(ctrls);
	dev->node.convert = cfg->convert;
	dev->node.exclusive = cfg->exclusive;
	dev->frames.convert_threads = cfg->convert_threads;
	/* what a DQBUF reply can carry besides its struct v4l2_buffer */
	dev->node.max_userptr_copy = (uint32_t)(cuse_max_chunk() - sizeof(struct v4l2_buffer));
	snprintf(dev->name, sizeof(dev->name), "%s", cfg->name);
	/* saved controls go to the camera before any app can open the node */
	struct settings_camera scam = { .vid = id->vid, .pid = id->pid, .serial = id->serial,
					.port_path = id->port_path, .product = id->product };
	settings_store_open(loop, &dev->node, &cfg->settings, &scam, &dev->settings);
	/* from here on clients may come: camera requests no longer block */
	dev->node.async = true;
	struct cuse_server_config cc = { .devname = cfg->name, .debug = cfg->debug_cuse };
	res = cuse_server_new(loop, &cc, &cuse_ops, dev, &dev->cuse);
	if (res) {
		if (res == -EEXIST)
			log_error("name %s is taken (/dev/%s exists)", cfg->name, cfg->name);
		else if (res == -ENOENT)
			log_error("no /dev/cuse: load the cuse module (modprobe cuse)");
		else
			log_error("cannot register /dev/%s: %s", cfg->name, strerror(-res));
		settings_store_close(dev->settings);
		node_destroy(&dev->node);
		usb_camera_close(dev->cam);
		free(dev);
		return res;
	}
	/* Opened once, now, before any privilege drop (see status_log). */
	dev->log.kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NONBLOCK);
	if (dev->log.kmsg < 0)
		log_debug("/dev/kmsg: %s: LOG_STATUS goes to our log only", strerror(errno));
	device_status_start(dev);
	dev->away.linger = cfg->linger;
	if (dev->away.linger) {
		dev->away.linger_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (dev->away.linger_fd < 0 || loop_add(loop, dev->away.linger_fd, EPOLLIN, device_on_linger, dev) < 0)
			log_warn("linger timer: %s: the node stays while the camera is away",
				 strerror(errno));
	}
	/* the daemon hears of an unplug and of the camera coming back from
	 * udev through libusb (without udevd, unplugs still show in requests) */
	res = usb_ctx_watch(usb, id->vid, id->pid, device_on_camera_arrived, device_on_camera_left, dev);
	if (res)
		log_debug("no USB hotplug events (%s)", strerror(-res));
	log_info("camera %04x:%04x '%s' (%s) served as /dev/%s", id->vid, id->pid, ident.card,
		 id->bus_info, cfg->name);
	*out = dev;
	return 0;
}

void device_share_buffers(struct device *dev, struct loop *loop, const char *name)
{
	/* Without the socket the node still serves read() and USERPTR. */
	if (bufshare_new(loop, NULL, name, device_buf_lookup, dev, &dev->share.bufshare) < 0)
		log_warn("no buffer socket: MMAP streaming through uvcuse-run disabled");
	else
		bufshare_set_channel(dev->share.bufshare, device_channel_open);
}

void device_free(struct device *dev)
{
	if (!dev)
		return;
	usb_status_stop(dev->cam); /* its callbacks use dev */
	usb_ctx_unwatch(dev->usb);
	if (dev->away.linger_fd >= 0) {
		loop_remove(dev->loop, dev->away.linger_fd);
		close(dev->away.linger_fd);
	}
	cuse_server_free(dev->cuse);
	bufshare_free(dev->share.bufshare);
	if (dev->log.kmsg >= 0)
		close(dev->log.kmsg);
	settings_store_close(dev->settings); /* a change not yet saved is saved now */
	calls_free_all(dev);
	free(dev->log.text);
	while (dev->open.list) {
		struct dev_file *df = dev->open.list;
		dev->open.list = df->next;
		device_channels_close(df);
		while (df->parked) {
			struct parked *p = df->parked;
			df->parked = p->next;
			free(p);
		}
		free(df);
	}
	node_destroy(&dev->node); /* stops the stream, and conversion with it */
	frames_free(dev);
	usb_camera_close(dev->cam);
	free(dev);
}

void device_get_status(const struct device *dev, struct device_status *out)
{
	const struct usb_camera_id *id = usb_camera_id(dev->cam);
	struct usb_stream_stats ss;
	usb_stream_get_stats(dev->cam, &ss);
	memset(out, 0, sizeof(*out));
	snprintf(out->node, sizeof(out->node), "%s", dev->name);
	snprintf(out->card, sizeof(out->card), "%s", dev->node.id.card);
	out->vid = id->vid;
	out->pid = id->pid;
	snprintf(out->serial, sizeof(out->serial), "%s", id->serial);
	snprintf(out->manufacturer, sizeof(out->manufacturer), "%s", id->manufacturer);
	snprintf(out->product, sizeof(out->product), "%s", id->product);
	snprintf(out->port_path, sizeof(out->port_path), "%s", id->port_path);
	snprintf(out->bus_info, sizeof(out->bus_info), "%s", id->bus_info);
	out->interface = id->control_interface;
	const struct node_fmt *cur = node_current_fmt(&dev->node);
	if (cur->format && cur->frame) {
		/* what the apps get (the first process to stream, when several do) */
		out->fourcc = cur->conv_fourcc ? cur->conv_fourcc : cur->format->fourcc;
		out->width = cur->frame->width;
		out->height = cur->frame->height;
	}
	out->interval = cur->probe.interval;
	out->streaming = usb_stream_running(dev->cam);
	out->away = dev->away.detached;
	out->frames = dev->stats.frames;
	out->dropped = frames_dropped_total(dev);
	out->errors = dev->stats.frames_error;
	out->clients = dev->open.count;
	out->streamers = frames_consumers(dev);
	out->iso_bytes = out->streaming && ss.iso ? ss.packet_size : 0;
}

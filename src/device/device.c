/* SPDX-License-Identifier: GPL-2.0-or-later */
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


/* node_ops.buffer_queued: called from inside the node, so the buffer goes
 * to the camera's frames once the current request or frame is done
 * (frames_buffers_arrived): nothing below calls back into frames.c. */
static void device_buffer_queued(void *opaque)
{
	struct device *dev = opaque;
	dev->frames.buffers_due = true;
}

static const struct node_ops node_ops = {
	.probe_done = streaming_probe_done,
	.stream_on = device_stream_on,
	.stream_off = streaming_off,
	.consumer_on = frames_consumer_on,
	.consumer_off = frames_consumer_off,
	.buffer_queued = device_buffer_queued,
	.ctrl_request = streaming_ctrl_request,
	.log_status = log_status_run,
	.waiters_changed = requests_waiters_changed,
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

/* The node over the camera: its identity, its controls with the flags the
 * camera reports, the start-up probe, as uvcvideo reads them when it binds. */
static int node_setup(struct device *dev, const struct device_config *cfg)
{
	const struct usb_camera_id *id = usb_camera_id(dev->cam);
	struct node_identity ident;
	startup_identity(id, &ident);
	struct ctrls *ctrls = malloc(sizeof(*ctrls));
	if (!ctrls)
		return -ENOMEM;
	startup_controls(dev->cam, ctrls);
	struct uvc_probe probe;
	startup_probe(dev->cam, &probe);
	uvc_assembler_init(&dev->frames.assembler, frames_on_frame, dev);
	dev->frames.assembler.need_buffer = frames_need_buffer;
	int res = node_init(&dev->node, usb_camera_model(dev->cam), &ident, &probe, &node_ops, dev,
			    &device_mem_ops, dev);
	if (res) {
		log_error("camera %04x:%04x has no format V4L2 knows", id->vid, id->pid);
		free(ctrls);
		return res;
	}
	dev->node.ctrls = *ctrls;
	free(ctrls);
	dev->node.convert = cfg->convert;
	dev->node.exclusive = cfg->exclusive;
	dev->frames.camera_clock = cfg->camera_clock;
	dev->frames.drop_errored = cfg->drop_errored;
	/* what a DQBUF reply can carry besides its struct v4l2_buffer */
	dev->node.max_userptr_copy = (uint32_t)(cuse_max_chunk() - sizeof(struct v4l2_buffer));
	return 0;
}

/* The CUSE node /dev/NAME, from which apps' requests come. */
static int register_node(struct device *dev, const struct device_config *cfg)
{
	struct cuse_server_config cc = { .devname = cfg->name, .debug = cfg->debug_cuse,
					 .ioctls = dev->ioctls, .control_fd = cfg->cuse_fd };
	cc.n_ioctls = requests_ioctl_layouts(dev->ioctls, DEV_MAX_IOCTLS);
	int res = cuse_server_new(dev->loop, &cc, &cuse_ops, dev, &dev->cuse);
	if (res == -EEXIST)
		log_error("name %s is taken (/dev/%s exists)", cfg->name, cfg->name);
	else if (res == -ENOENT)
		log_error("no /dev/cuse: load the cuse module (modprobe cuse)");
	else if (res)
		log_error("cannot register /dev/%s: %s", cfg->name, strerror(-res));
	return res;
}

/* What the device watches while it serves: the status endpoint, the
 * linger timer, the camera leaving and coming back. */
static void watch_camera(struct device *dev, const struct device_config *cfg)
{
	const struct usb_camera_id *id = usb_camera_id(dev->cam);
	device_status_start(dev);
	dev->away.linger = cfg->linger;
	dev->away.replug = cfg->replug;
	if (dev->away.linger) {
		dev->away.linger_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (dev->away.linger_fd < 0 ||
		    loop_add(dev->loop, dev->away.linger_fd, EPOLLIN, device_on_linger, dev) < 0)
			log_warn("linger timer: %s: the node stays while the camera is away",
				 strerror(errno));
	}
	/* the daemon hears of an unplug and of the camera coming back from
	 * udev through libusb (without udevd, unplugs still show in requests) */
	int res = usb_ctx_watch(dev->usb, id->vid, id->pid, device_on_camera_arrived,
				device_on_camera_left, dev);
	if (res)
		log_debug("no USB hotplug events (%s)", strerror(-res));
}

/* The configured limits, the defaults where 0 */
static struct device_limits limits_or_defaults(const struct device_limits *l)
{
	struct device_limits out = *l;
	if (!out.opens_per_process)
		out.opens_per_process = DEVICE_OPENS_PER_PROCESS;
	if (!out.opens_per_user)
		out.opens_per_user = DEVICE_OPENS_PER_USER;
	if (!out.channels_per_file || out.channels_per_file > DEV_FILE_CHANNELS)
		out.channels_per_file = DEV_FILE_CHANNELS;
	if (!out.channels_per_user)
		out.channels_per_user = DEVICE_CHANNELS_PER_USER;
	if (!out.connections_per_user)
		out.connections_per_user = BUFSHARE_CONNS_PER_UID;
	if (!out.connection_timeout_ms)
		out.connection_timeout_ms = BUFSHARE_IDLE_MS;
	if (!out.buffer_mib_per_user)
		out.buffer_mib_per_user = DEVICE_BUFFER_MIB_PER_USER;
	return out;
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
	/* /dev/kmsg for LOG_STATUS, opened once by the caller, before any
	 * privilege drop (log_status.c) */
	dev->log.kmsg = cfg->kmsg_fd;
	dev->share.udmabuf = cfg->udmabuf_fd ? *cfg->udmabuf_fd : -ENOTTY;
	dev->on_change = cfg->on_change;
	dev->change_data = cfg->change_data;
	dev->frames.convert_threads = cfg->convert_threads;
	dev->open.limits = limits_or_defaults(&cfg->limits);
	snprintf(dev->name, sizeof(dev->name), "%s", cfg->name);
	int res = startup_open_camera(usb, &cfg->match, &dev->cam);
	if (res) {
		free(dev);
		return res;
	}
	startup_quirks(dev->cam, cfg->has_quirks ? &cfg->quirks : NULL);
	res = node_setup(dev, cfg);
	if (res) {
		usb_camera_close(dev->cam);
		free(dev);
		return res;
	}
	/* saved controls go to the camera before any app can open the node */
	const struct usb_camera_id *id = usb_camera_id(dev->cam);
	struct settings_camera scam = { .vid = id->vid, .pid = id->pid, .serial = id->serial,
					.port_path = id->port_path, .product = id->product };
	settings_store_open(loop, &dev->node, &cfg->settings, &scam, &dev->settings);
	/* from here on clients may come: camera requests no longer block */
	dev->node.async = true;
	res = register_node(dev, cfg);
	if (res) {
		settings_store_close(dev->settings);
		node_destroy(&dev->node);
		usb_camera_close(dev->cam);
		free(dev);
		return res;
	}
	/* without its metadata node the camera is still served */
	if (meta_setup(dev, cfg) && cfg->meta_cuse_fd && *cfg->meta_cuse_fd >= 0)
		close(*cfg->meta_cuse_fd);
	watch_camera(dev, cfg);
	log_info("camera %04x:%04x '%s' (%s) served as /dev/%s", id->vid, id->pid, dev->node.id.card,
		 id->bus_info, cfg->name);
	*out = dev;
	return 0;
}

void device_share_buffers(struct device *dev, struct loop *loop, const char *name)
{
	/* Without the socket the node still serves read() and USERPTR. */
	if (bufshare_new(loop, NULL, name, device_buf_lookup, dev, &dev->share.bufshare) < 0) {
		log_warn("no buffer socket: MMAP streaming through uvcuse-run disabled");
		return;
	}
	bufshare_set_channel(dev->share.bufshare, device_channel_open);
	bufshare_set_import(dev->share.bufshare, device_buf_import);
	bufshare_set_dmabuf(dev->share.bufshare, dev->share.udmabuf);
	meta_share_buffers(dev, loop);
	const struct device_limits *l = &dev->open.limits;
	bufshare_set_limits(dev->share.bufshare,
			    &(struct bufshare_limits){ BUFSHARE_MAX_CONNS, BUFSHARE_CONNS_PER_PROCESS,
							l->connections_per_user,
							l->connection_timeout_ms });
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
	meta_free(dev);
	if (dev->log.kmsg >= 0)
		close(dev->log.kmsg);
	if (dev->share.udmabuf >= 0)
		close(dev->share.udmabuf);
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
	if (dev->meta.on)
		snprintf(out->meta_node, sizeof(out->meta_node), "%s", dev->meta.name);
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
	frames_streams(dev, out);
}

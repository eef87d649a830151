/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node outlives its camera: what happens when the camera is unplugged
 * (--exit-on-unplug: a dead node that answers ENODEV; else a node that
 * waits, its formats taken from the descriptors), the linger
 * timer, and the camera taken back when it returns (see
 * docs/architecture.md, "Unplug"). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/video.h>

#include "cuse/cuse.h"
#include "device/internal.h"
#include "core/log.h"
#include "core/loop.h"
#include "settings/settings_store.h"
#include "usb/usb.h"
#include "uvc/probe.h"

/* Every request a file is waiting in answers ENODEV. */
static void answer_parked_enodev(struct device *dev)
{
	for (struct dev_file *df = dev->open.list; df; df = df->next) {
		device_rings_publish(df); /* unplugged: revoked, pollers to the kernel */
		while (df->parked) {
			struct parked *p = df->parked;
			df->parked = p->next;
			device_parked_fail(p, ENODEV);
		}
		if (df->cuse)
			cuse_file_notify_poll(df->cuse);
	}
}

/* The camera is gone: the commit in flight, the stream and the status
 * endpoint stop (the status one also after its own error: it restarts on a
 * replug), and the STREAMONs waiting for the commit get STREAMON_ERR. */
static void camera_transfers_stop(struct device *dev, int streamon_err)
{
	if (dev->stream.committing) {
		usb_ctrl_cancel(dev->stream.committing);
		dev->stream.committing = NULL;
		device_answer_streamons(dev, streamon_err);
	}
	usb_stream_stop(dev->cam);
	usb_status_stop(dev->cam);
	dev->calls.status_running = false;
	device_stop_frames(dev);
}

/* The camera is gone. With linger 0 (--exit-on-unplug) the device is dead,
 * as a kernel node whose USB device left: every request of a file still
 * open answers ENODEV (a daemon that left would make them ENOTCONN), and the
 * node goes, with the daemon, when the last file closes (release_finish).
 * Otherwise the node stays: streaming files get no frames (DQBUF waits),
 * requests to the camera answer ENODEV, and the stream resumes when the
 * camera comes back (device_on_camera_arrived). */
void device_camera_unplugged(struct device *dev)
{
	if (!dev->away.linger) {
		if (dev->away.unplugged)
			return;
		dev->away.unplugged = true;
		dev->stream.failed = true;
		node_set_error(&dev->node);
		camera_transfers_stop(dev, -ENODEV);
		answer_parked_enodev(dev);
		device_changed(dev);
		if (!dev->open.count) {
			log_info("camera unplugged: removing /dev/%s", dev->name);
			loop_quit(dev->loop, 0);
		} else {
			log_info("camera unplugged: /dev/%s answers ENODEV, and goes when its %u open "
				 "files close", dev->name, dev->open.count);
		}
		return;
	}
	if (dev->away.detached)
		return;
	dev->away.detached = true;
	clock_gettime(CLOCK_MONOTONIC, &dev->away.detached_at);
	dev->away.frames_lost_since = dev->away.detached_at;
	dev->node.camera_away = true;
	dev->away.probe_at_unplug = node_current_fmt(&dev->node)->probe;
	log_info("camera unplugged: /dev/%s stays, waiting for it to come back", dev->name);
	camera_transfers_stop(dev, 0); /* the stream starts when the camera is back */
	node_source_change(&dev->node);
	device_wake_all(dev);
	device_linger_update(dev);
	device_changed(dev);
}

/* Whether a probe differs from the camera's in what negotiation settles. */
static bool probe_changed(const struct uvc_probe *a, const struct uvc_probe *b)
{
	return a->format_index != b->format_index || a->frame_index != b->frame_index ||
	       a->interval != b->interval || a->max_video_frame_size != b->max_video_frame_size ||
	       a->max_payload_transfer_size != b->max_payload_transfer_size;
}

/* The linger timer runs while the camera is away and no file is open. */
void device_linger_update(struct device *dev)
{
	bool arm = dev->away.detached && dev->open.count == 0;
	if (dev->away.linger_fd < 0 || arm == dev->away.linger_armed)
		return;
	struct itimerspec its = { .it_value = { .tv_sec = arm ? dev->away.linger : 0 } };
	if (timerfd_settime(dev->away.linger_fd, 0, &its, NULL) < 0) {
		log_warn("linger timer: %s", strerror(errno));
		return;
	}
	dev->away.linger_armed = arm;
	if (arm)
		log_info("no file open: /dev/%s goes in %u s unless the camera comes back", dev->name,
			 dev->away.linger);
}

void device_on_linger(void *data, uint32_t events)
{
	struct device *dev = data;
	(void)events;
	uint64_t n;
	if (read(dev->away.linger_fd, &n, sizeof(n)) < 0)
		return;
	log_info("camera not back after %u s with no file open: removing /dev/%s", dev->away.linger,
		 dev->name);
	dev->away.unplugged = true;
	loop_quit(dev->loop, 0);
}

void device_on_camera_left(void *data)
{
	struct device *dev = data;
	if (usb_camera_gone(dev->cam))
		device_camera_unplugged(dev);
}

/* The camera's controls as apps left them, sent again: the remembered
 * ones through the settings store, synchronously (no app request runs
 * meanwhile: every one met the camera's absence at once). */
static void restore_after_replug(struct device *dev)
{
	if (!dev->settings || dev->calls.queue)
		return;
	dev->node.async = false;
	settings_store_restore(dev->settings);
	dev->node.async = true;
}

void device_on_camera_arrived(void *data)
{
	struct device *dev = data;
	/* an unplug only a request saw (no stream, no status endpoint) */
	if (!dev->away.detached && usb_camera_gone(dev->cam))
		device_camera_unplugged(dev);
	if (!dev->away.detached)
		return;
	char err[256];
	int r = usb_camera_reattach(dev->cam, dev->away.replug, err, sizeof(err));
	if (r == -ENODEV)
		return; /* another device of the same model */
	if (r) {
		log_warn("a camera arrived but is not taken: %s", err);
		return;
	}
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double away = (double)(now.tv_sec - dev->away.detached_at.tv_sec) +
		      (double)(now.tv_nsec - dev->away.detached_at.tv_nsec) / 1e9;
	dev->away.detached = false;
	device_linger_update(dev);
	log_info("camera back after %.1f s: /dev/%s serves it again", away, dev->name);
	dev->node.camera_away = false;
	restore_after_replug(dev);
	/* the running mode cannot change while the camera is away (another
	 * process's S_FMT answers EBUSY); the node's format can */
	struct uvc_probe *probe = node_streaming(&dev->node) ? &dev->node.run.probe :
							       &dev->node.fmt.probe;
	if (probe_changed(&dev->away.probe_at_unplug, probe)) {
		/* a format set while it was away (from the descriptors),
		 * negotiated for real (synchronously, as the restore: no app
		 * request runs meanwhile) */
		struct uvc_probe got;
		int err2 = usb_probe_negotiate(dev->cam, 0, probe, &got);
		if (err2)
			log_warn("probe of the format set while the camera was away: %s",
				 strerror(-err2));
		else
			*probe = got;
	}
	device_status_start(dev);
	if (node_streaming(&dev->node)) {
		/* the frames the camera would have sent meanwhile are a gap in
		 * the sequence numbers */
		uint32_t interval = probe->interval ? probe->interval : 333333;
		double lost = (double)(now.tv_sec - dev->away.frames_lost_since.tv_sec) +
			      (double)(now.tv_nsec - dev->away.frames_lost_since.tv_nsec) / 1e9;
		uint64_t offset = dev->stream.next_sequence + (uint64_t)(lost * 1e7 / interval);
		uint64_t frames0 = dev->stream.frames0, errors0 = dev->stream.errors0;
		int err2 = device_stream_on(dev, probe);
		dev->stream.frames0 = frames0; /* the same stream goes on */
		dev->stream.errors0 = errors0;
		dev->stream.seq_offset = offset;
		dev->stream.next_sequence = offset;
		if (err2) {
			log_error("cannot resume the stream: %s", strerror(-err2));
			node_set_error(&dev->node);
		}
	}
	node_source_change(&dev->node);
	device_wake_all(dev);
	device_changed(dev);
}


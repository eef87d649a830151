/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One camera and the V4L2 node it serves: wires usb/ (the camera), v4l2/
 * (the node's semantics) and cuse/ (the character device) together, and
 * owns the requests that wait for frames. */
#ifndef UVCUSE_DEVICE_H
#define UVCUSE_DEVICE_H

#include "settings/settings_store.h"
#include "device/status_msg.h"
#include "usb/usb.h"

struct loop;
struct device;

/* Called after what STATUS= shows changed: an open or close, S_FMT,
 * S_PARM, STREAMON, STREAMOFF. */
typedef void (*device_change_cb)(void *data);

/* What one process or one user may hold of the daemon, so that no app can
 * take what the others need (uvcuse.conf(5)). 0: the default below. */
struct device_limits {
	unsigned opens_per_process;     /* open files of the node; beyond: EMFILE */
	unsigned opens_per_user;        /* all its processes together; beyond: EMFILE */
	unsigned channels_per_file;     /* fast-path channels (at most 8); beyond:
					 * the library goes through CUSE */
	unsigned channels_per_user;     /* all its files together (3 fds each) */
	unsigned connections_per_user;  /* buffer-socket connections waiting */
	unsigned connection_timeout_ms; /* how long one may wait for its request */
	unsigned buffer_mib_per_user;   /* buffers of its queues; beyond, REQBUFS
					 * and CREATE_BUFS fail with ENOMEM */
};
/* v4l2-compliance's "unlimited opens" opens a node 100 times: uvcvideo
 * lets it, and so must a process here */
#define DEVICE_OPENS_PER_PROCESS 128
#define DEVICE_OPENS_PER_USER 512
#define DEVICE_CHANNELS_PER_USER 64
#define DEVICE_BUFFER_MIB_PER_USER 512

struct device_config {
	struct usb_match match;
	const char *name;  /* "video10" */
	/* the camera's metadata node, as uvcvideo's (NULL: none), and its
	 * /dev/cuse opened beforehand as cuse_fd: the device's once
	 * device_new succeeds (closed when the node could not register) */
	const char *meta_name;
	const int *meta_cuse_fd;
	bool debug_cuse;
	/* What needs root, opened by the caller before it dropped root:
	 * /dev/cuse and /dev/kmsg for LOG_STATUS (-1: none), the device's
	 * once device_new succeeds, still the caller's when it fails. A
	 * negative cuse_fd is the error opening it (-ENOENT: no cuse module),
	 * reported once the camera has been checked; NULL: the device opens
	 * /dev/cuse itself. */
	const int *cuse_fd;
	int kmsg_fd;
	/* /dev/udmabuf opened likewise (share/udmabuf.h), or -errno saying
	 * why not; NULL: none. VIDIOC_EXPBUF's dma-bufs are made with it. */
	const int *udmabuf_fd;
	/* Offer the converted formats (RGB24, BGR24, YU12, YV12) after the
	 * camera's (--no-convert: false), converted by convert_threads
	 * worker threads (0: one per core). */
	bool convert;
	unsigned convert_threads;
	struct settings_store_config settings; /* remembered controls */
	/* One process streams at a time, as uvcvideo (--exclusive); else
	 * several stream the camera at once (node.h, node_proc). Seconds the
	 * node outlives an unplugged camera (linger). */
	bool exclusive;
	unsigned linger;
	/* Frames stamped from the camera's own clock (its PTS through its SCR
	 * samples, uvc/clock.h) when it sends them (config camera-clock). */
	bool camera_clock;
	/* Frames with errors dropped, as uvcvideo 6.1 (config errored-frames
	 * = drop); else delivered with V4L2_BUF_FLAG_ERROR, as 6.14+. */
	bool drop_errored;
	/* which device coming back during the linger is the camera (config
	 * replug =; usb.h) */
	enum usb_replug_rule replug;
	/* uvcvideo's quirks for this camera instead of its device table's
	 * (--quirks, the config's quirks =) */
	bool has_quirks;
	uint32_t quirks;
	struct device_limits limits;
	device_change_cb on_change; /* may be NULL */
	void *change_data;
};

/* Opens the camera, reads its start-up format and registers the node.
 * Returns 0, or -errno with a message already logged. */
int device_new(struct loop *loop, struct usb_ctx *usb, const struct device_config *cfg,
	       struct device **out);
void device_get_status(const struct device *dev, struct device_status *out);

/* Opens the buffer socket (uvcuse-run's mmap) as /run/uvcuse/NAME.sock or
 * under $RUNTIME_DIRECTORY: after any privilege drop, so that the daemon's
 * user owns it and can give it the node's group. */
void device_share_buffers(struct device *dev, struct loop *loop, const char *name);
/* Removes the node, stops the stream, gives the camera back. */
void device_free(struct device *dev);

#endif

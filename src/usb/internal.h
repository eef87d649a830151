/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to src/usb/: the structures the files of this folder share. No
 * other folder includes this file (nor libusb.h). */
#ifndef UVCUSE_USB_INTERNAL_H
#define UVCUSE_USB_INTERNAL_H

#include <libusb.h>

#include "usb/usb.h"

/* The devices' directory in sysfs, named by port path ("1-2.3"). */
#define SYSFS_USB "/sys/bus/usb/devices"

/* uvcvideo's UVC_URBS and UVC_MAX_PACKETS; streams may keep more transfers
 * in flight, up to a frame's worth (see plan.c). */
#define USB_STREAM_TRANSFERS 5
#define USB_STREAM_MAX_PACKETS 32
#define USB_ISO_MAX_TRANSFERS 16
#define USB_BULK_MAX_TRANSFERS 48
#define USB_STREAM_MAX_TRANSFERS USB_BULK_MAX_TRANSFERS

struct usb_camera;

struct usb_ctx {
	libusb_context *lusb;
	struct loop *loop;
	int eventfd;                /* wakes the loop for deferred stream work */
	struct usb_camera *cameras; /* open ones, for the deferred work */
	unsigned in_callback;       /* inside a stream transfer callback */
	/* hotplug: a watched device arrived, its owner hears it from the loop */
	libusb_hotplug_callback_handle hotplug;
	bool hotplug_registered, arrived, left;
	int udev_data_fd;           /* inotify on udev's database, or -1 */
	usb_hotplug_cb on_arrival, on_left;
	void *hotplug_data;
};

struct usb_stream {
	bool active;                /* transfers allocated (maybe still in flight) */
	bool running;               /* delivering payloads */
	bool stopping;              /* no resubmission; waiting for callbacks */
	bool stop_pending;          /* stop asked from a callback: finish in the loop */
	int error;                  /* first fatal error, 0 if none */
	bool error_reported;        /* on_error called (once) */
	bool error_pending;         /* on_error to call from the loop */
	unsigned index;             /* into the model's streams */
	const struct uvc_streaming *vs;
	struct usb_stream_plan plan;
	struct uvc_assembler *asm_;
	usb_stream_error_cb on_error;
	void *data;
	struct libusb_transfer *xfer[USB_STREAM_MAX_TRANSFERS];
	bool devmem[USB_STREAM_MAX_TRANSFERS];  /* libusb_dev_mem_alloc'd buffer */
	bool busy[USB_STREAM_MAX_TRANSFERS];    /* submitted, callback not yet run */
	bool leaked;                /* transfers that never came back: kept */
	unsigned n_xfer, in_flight;
	unsigned consecutive_failures;
	uint32_t bulk_payload_bytes; /* bytes of the bulk payload transfer so far */
	struct usb_stream_stats stats;
};

/* The status interrupt endpoint (status.c): one transfer always
 * resubmitted; packets wait in a small queue for the loop, which hands
 * them to the owner outside libusb's event handling. */
#define USB_STATUS_QUEUE 16
#define USB_STATUS_MAX_PACKET 64  /* bytes kept of a packet (uvcvideo reads 16) */

struct usb_status {
	bool active;                /* transfer allocated */
	bool busy;                  /* submitted, callback not yet run */
	bool stopping;
	bool held;                  /* not resubmitted: the queue is full */
	bool error_pending;         /* on_error to call from the loop */
	bool error_reported;
	int error;
	unsigned failures;          /* failed completions in a row */
	struct libusb_transfer *xfer;
	usb_status_packet_cb on_packet;
	usb_stream_error_cb on_error;
	void *data;
	uint8_t queue[USB_STATUS_QUEUE][USB_STATUS_MAX_PACKET];
	uint16_t lens[USB_STATUS_QUEUE];
	unsigned head, count;
	struct usb_status_stats stats;
};

/* Control requests on endpoint 0 (control.c): a FIFO whose head is on the
 * wire when busy; answered ones wait in done for the loop. */
struct usb_ctrl_req;
struct usb_ctrlq {
	struct usb_ctrl_req *head, **tail;
	struct usb_ctrl_req *done, **done_tail;
	bool busy;
	bool stopping;              /* closing: nothing more is sent */
};

struct usb_camera {
	struct usb_ctx *ctx;
	struct usb_camera *next;    /* in ctx->cameras */
	libusb_device_handle *handle;
	int wrapped_fd; /* the usbfs node handle wraps after a replug, or -1 */
	struct usb_camera_id id;
	struct uvc_camera *model;
	/* the configuration descriptor the model was parsed from: a camera
	 * that comes back must bring the same bytes to be taken again */
	uint8_t *config;
	size_t config_len;
	/* interfaces claimed: [0] VideoControl, then the streams' */
	unsigned n_claimed;
	uint8_t claimed[1 + 16];
	bool detached[1 + 16];
	bool gone;                  /* LIBUSB_ERROR_NO_DEVICE seen */
	bool short_answer_warned; /* a control answered short (said once) */
	struct usb_stream stream;
	struct usb_status status;
	struct usb_ctrlq ctrlq;
};

/* libusb error -> -errno. */
int usb_errno(int libusb_error);

/* A class request to interface iface (query's bit 7 gives the direction). */
int usb_class_request(struct usb_camera *cam, uint8_t iface, uint8_t query, uint8_t unit,
		      uint8_t selector, void *data, uint16_t len, unsigned timeout_ms);

/* context.c: runs libusb's event handling with a timeout (used to drain
 * cancelled transfers); wakes the loop for usb_ctx_deferred(). */
int usb_ctx_handle_events(struct usb_ctx *ctx, int timeout_ms);
void usb_ctx_wake(struct usb_ctx *ctx);
/* Runs libusb's events until *busy is false (a cancelled transfer came
 * back) or timeout_ms passed; whether it came back. */
bool usb_ctx_wait(struct usb_ctx *ctx, const bool *busy, int timeout_ms);
void usb_ctx_add_camera(struct usb_ctx *ctx, struct usb_camera *cam);
void usb_ctx_remove_camera(struct usb_ctx *ctx, struct usb_camera *cam);

/* orphan.c: t, still in flight after its stop gave up waiting, no longer
 * refers to its camera (which may be freed): its late callback frees it,
 * and its buffer when heap_buffer (device memory stays mapped: a
 * deliberate leak, logged by the caller). */
void usb_transfer_orphan(struct libusb_transfer *t, bool heap_buffer);

/* stream.c: the deferred work of one camera (finish a stop asked from a
 * callback, report an error), run from the loop outside libusb's events. */
void usb_stream_deferred(struct usb_camera *cam);

/* control.c: answered control requests handed to their owners (from the
 * loop); at close, the queue emptied and the request in flight cancelled. */
bool usb_ctrl_has_work(const struct usb_camera *cam);
void usb_ctrl_deferred(struct usb_camera *cam);
void usb_ctrl_stop(struct usb_camera *cam);

/* device_info.c: what a device says about itself, read without claiming
 * it, and usb_copy_str, a strcpy that cuts at len - 1 bytes. */
void usb_copy_str(char *out, size_t len, const char *src);
/* A small attribute of device dir in SYSFS_USB, without the trailing
 * newline ("" when it cannot be read: then -errno). */
int usb_sysfs_read(const char *dir, const char *attr, char *out, size_t len);
/* Fills id from the libusb device and sysfs. -ENOENT for root hubs. */
int usb_build_id(libusb_device *dev, struct usb_camera_id *id);
/* bus_info from the port path "B-P.P": "usb-<host controller>-P.P". */
void usb_fill_bus_info(struct usb_camera_id *id);
/* The strings sysfs did not give, by asking the device. */
void usb_fill_strings(libusb_device_handle *h, struct usb_camera_id *id);
/* String descriptor index as UTF-8 (the kernel's usb_string(): the
 * device's first language, surrogate pairs joined, a lone surrogate
 * dropped), "" when the device has none or fails. */
void usb_read_string(libusb_device_handle *h, uint8_t index, char *out, size_t cap);
/* The VideoControl interfaces of the active configuration (libusb's cached
 * copy, no device I/O): the video class's, and the vendor-specific ones of
 * the cameras uvcvideo's device table binds so. Returns how many were
 * stored in ifs. */
unsigned usb_video_functions(libusb_device *dev, uint8_t *ifs, unsigned max);
/* The active configuration descriptor (malloc'd into *out) from sysfs's
 * "descriptors" file (the device descriptor, then every configuration
 * descriptor as the device sent it), or from the device (GET_DESCRIPTOR;
 * a short answer is kept as far as it goes). 0 or -errno. */
int usb_sysfs_config(const char *port_path, uint8_t **out, size_t *outlen);
int usb_device_config(libusb_device_handle *h, uint8_t **out, size_t *outlen);

/* discover.c: the camera's interfaces, VideoControl then the streams',
 * claimed (kernel drivers detached; err says why not) and released
 * (drivers given back), and its handle closed (a wrapped usbfs fd too). */
int usb_claim_interfaces(struct usb_camera *cam, char *err, size_t errlen);
void usb_release_interfaces(struct usb_camera *cam);
void usb_close_handle(struct usb_camera *cam);

/* status.c: whether packets or an error wait for the loop, and handing
 * them over (from the loop, outside libusb's events). */
bool usb_status_has_work(const struct usb_camera *cam);
void usb_status_deferred(struct usb_camera *cam);

#endif

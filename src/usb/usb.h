/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libusb: finding UVC cameras, claiming one, UVC control requests, probe and
 * commit, and the stream engine that feeds payloads to a uvc_assembler.
 * The only code that touches libusb. Everything runs on the daemon's loop
 * thread: libusb's pollfds are registered with the loop. */
#ifndef UVCUSE_USB_H
#define UVCUSE_USB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uvc/descriptors.h"
#include "uvc/payload.h"
#include "uvc/probe.h"

struct loop;
struct usb_ctx;
struct usb_camera;

/* Who a camera is. Strings are "" when the device has none. */
struct usb_camera_id {
	uint16_t vid, pid;
	uint8_t bus, address;
	char port_path[32];     /* "1-2.3": bus, then ports, as sysfs names it */
	/* "usb-<host controller device>-<ports>", as uvcvideo's bus_info:
	 * "usb-0000:00:14.0-2.3", "usb-vhci_hcd.0-1" */
	char bus_info[64];
	char serial[128], product[128], manufacturer[128];
	/* the video function's iFunction (or VideoControl iInterface) string,
	 * its index (0: none; the string may still be "" when unreadable) */
	char function[128];
	uint8_t function_index;
	uint16_t bcd_usb, bcd_device;
	int speed;              /* LIBUSB_SPEED_* */
	uint8_t control_interface; /* the VideoControl interface */
};

/* Which camera: all set fields must match; none set: the first UVC camera. */
struct usb_match {
	bool by_id;
	uint16_t vid, pid;
	const char *port_path;  /* "1-2.3" or NULL */
	const char *serial;     /* or NULL */
};

/* Whether the camera id is one m selects. */
bool usb_match_id(const struct usb_match *m, const struct usb_camera_id *id);

/* Parses "VID:PID" (hex). -EINVAL when malformed. */
int usb_match_parse_id(const char *s, struct usb_match *m);

/* A camera's identity, the name it keeps across replugs and the instance
 * of uvcuse@.service that the udev rule starts for it:
 *   serial-VVVV-PPPP-SERIAL   with a serial number, as udev's ID_SERIAL_SHORT
 *   port-VVVV-PPPP-BUS-PORTS  without one, by where it is plugged in
 * (VVVV, PPPP: four lower-case hex digits). Parsing sets VID:PID and the
 * serial or port of m, pointing into s. -EINVAL when malformed. */
int usb_match_parse_identity(const char *s, struct usb_match *m);
/* The identity of id into out; -ENAMETOOLONG when len is too small. */
int usb_camera_identity(const struct usb_camera_id *id, char *out, size_t len);
/* udev's sanitised form of a serial number (ID_SERIAL_SHORT). */
void usb_serial_udev(const char *raw, char *out, size_t len);
/* want is serial, or udev's form of it. */
bool usb_serial_matches(const char *want, const char *serial);

/* loop may be NULL for a context that only lists cameras. */
int usb_ctx_new(struct loop *loop, struct usb_ctx **out);
void usb_ctx_free(struct usb_ctx *ctx);

/* Calls cb for each UVC video function of each device (model parsed from
 * its configuration descriptor; devices whose descriptor does not parse are
 * reported with model NULL and the parser's message). Stops early when cb
 * returns non-zero, and returns that value; 0 when all were seen. */
typedef int (*usb_camera_cb)(void *data, const struct usb_camera_id *id,
			     const struct uvc_camera *model, const char *parse_error);
int usb_enumerate(struct usb_ctx *ctx, usb_camera_cb cb, void *data);
/* The same, for who the cameras are only (what sysfs says: IDs, port,
 * strings): no descriptor is read or parsed, no device opened, so it may
 * run with any privilege; cb gets model NULL and parse_error NULL. */
int usb_enumerate_ids(struct usb_ctx *ctx, usb_camera_cb cb, void *data);

/* Opens the first camera that matches: detaches kernel drivers from its
 * VideoControl and VideoStreaming interfaces (reattached on close), claims
 * them, parses the model. Errors, with a message in err:
 *  -ENODEV  no device matches
 *  -ENOTSUP a device matches but has no UVC function (or it does not parse)
 *  -EBUSY   an interface is claimed by another program
 *  -EACCES  no permission to open the device */
int usb_camera_open(struct usb_ctx *ctx, const struct usb_match *match,
		    struct usb_camera **out, char *err, size_t errlen);
/* Stops streaming, releases the interfaces, gives the kernel driver back. */
void usb_camera_close(struct usb_camera *cam);

/* Whether the camera was unplugged (a request or transfer met
 * LIBUSB_ERROR_NO_DEVICE). */
bool usb_camera_gone(const struct usb_camera *cam);
/* Which device is the camera come back (uvcuse(8), REPLUG): always the
 * same VID:PID and serial (none, if it had none) and a configuration
 * descriptor byte for byte the one it had; with USB_REPLUG_ANY_PORT
 * anywhere when it has a serial (moved to another port), in its port when
 * it has none; with USB_REPLUG_SAME_PORT only in the port it left. */
enum usb_replug_rule { USB_REPLUG_ANY_PORT, USB_REPLUG_SAME_PORT };
/* What sysfs says of a device, for the rule. */
struct usb_seen_device {
	uint16_t vid, pid;
	const char *serial; /* "" when none */
	const char *port_path;
};
bool usb_replug_candidate(const struct usb_camera_id *was, const struct usb_seen_device *seen,
			  enum usb_replug_rule rule);
/* Takes back a camera that was unplugged and came back: the device the
 * rule allows (usb_replug_candidate) whose configuration descriptor is
 * byte for byte the one it had. Its stream,
 * status endpoint and requests must be stopped (they are: usb_stream_stop,
 * usb_status_stop). Looks in sysfs and opens the usbfs node itself, as
 * libusb's device list may not know the device yet. 0: the camera is
 * served again (no stream, no status transfer); -ENODEV: not there (yet); -ESTALE: a different camera is
 * there (message in err); other -errno as usb_camera_open. */
int usb_camera_reattach(struct usb_camera *cam, enum usb_replug_rule rule, char *err,
			size_t errlen);

/* Hotplug: on_arrival runs from the loop (outside libusb's event handling)
 * after a device of vid:pid arrives (libusb's hotplug, from udevd's netlink
 * events), or after udev wrote the database entry of any USB device while a
 * camera of this context is gone (its files reach a daemon in a private
 * network namespace, where the netlink events do not); on_left after an
 * open camera of this context left (usb_camera_gone() is then true). One
 * watch per context. 0, or -ENOTSUP when neither way is there. */
typedef void (*usb_hotplug_cb)(void *data);
int usb_ctx_watch(struct usb_ctx *ctx, uint16_t vid, uint16_t pid, usb_hotplug_cb on_arrival,
		  usb_hotplug_cb on_left, void *data);
/* uvcvideo's quirks for the camera (uvc/quirks.h): its device table's entry
 * for the VideoControl interface, or *override when not NULL (a config's
 * quirks=, replacing the table's as the module parameter does), applied to
 * the model. Returns the quirks; *entry gets the table entry's name or NULL. */
uint32_t usb_camera_apply_quirks(struct usb_camera *cam, const uint32_t *override,
				 const char **entry);

/* The callbacks of usb_ctx_watch() run no more. */
void usb_ctx_unwatch(struct usb_ctx *ctx);

const struct usb_camera_id *usb_camera_id(const struct usb_camera *cam);
const struct uvc_camera *usb_camera_model(const struct usb_camera *cam);

/* A class request on the VideoControl interface (unit 0 = the interface
 * itself), synchronous with a timeout (uvcvideo's 5 s for controls).
 * query: UVC_GET_CUR... / UVC_SET_CUR. Returns the bytes transferred or
 * -errno: -EPIPE when the camera stalls (the request is refused), -ENODEV
 * when it is gone, -ETIMEDOUT, -EIO. */
int usb_control(struct usb_camera *cam, uint8_t query, uint8_t unit, uint8_t selector,
		void *data, uint16_t len);

/* A control request as uvcvideo's uvc_query_ctrl makes it: returns len
 * when the camera moved exactly len bytes; a short transfer is -EPIPE; a
 * STALL is answered by reading VC_REQUEST_ERROR_CODE_CONTROL (GET_CUR of
 * selector 2 on the interface) and turning its code into the errno
 * uvcvideo returns (usb_uvc_error_errno); other failures as usb_control. */
int usb_query_ctrl(struct usb_camera *cam, uint8_t query, uint8_t unit, uint8_t selector,
		   void *data, uint16_t len);
/* The same request without waiting (what node ioctls use once clients may
 * be served): queued behind the camera's other control requests, one on
 * endpoint 0 at a time in order (as the kernel's callers of usb_control_msg
 * are, each waiting for its own), with uvcvideo's 5 s timeout. done gets
 * exactly usb_query_ctrl's result and, for GET_*, the len answered bytes;
 * it runs from the loop, outside libusb's event handling, and may queue
 * more requests. out: SET_CUR's len bytes (copied). *handle (may be NULL)
 * names the request until done runs, for usb_ctrl_cancel(). 0, or -ENOMEM,
 * -ENODEV (closing). */
struct usb_ctrl_req;
typedef void (*usb_ctrl_done_cb)(void *data, int result, const uint8_t *answer);
int usb_ctrl_submit(struct usb_camera *cam, uint8_t query, uint8_t unit, uint8_t selector,
		    const void *out, uint16_t len, usb_ctrl_done_cb done, void *data,
		    struct usb_ctrl_req **handle);
/* The same for probe or commit (selector UVC_VS_PROBE_CONTROL or
 * _COMMIT_CONTROL) on streaming interface 'stream', in the same line: done
 * gets the bytes moved or the transfer's -errno (no error code is read for
 * them, as uvcvideo), with uvcvideo's 5 s streaming timeout. */
int usb_vs_submit(struct usb_camera *cam, unsigned stream, uint8_t query, uint8_t selector,
		  const void *out, uint16_t len, usb_ctrl_done_cb done, void *data,
		  struct usb_ctrl_req **handle);
/* done will not run for r; a request on the wire completes harmlessly
 * (its answer is dropped), a queued one is never sent. */
void usb_ctrl_cancel(struct usb_ctrl_req *r);
/* A transfer's completion (LIBUSB_TRANSFER_* status, bytes moved) as
 * libusb_control_transfer() reports it, in -errno: COMPLETED the bytes,
 * TIMED_OUT -ETIMEDOUT, STALL -EPIPE, NO_DEVICE -ENODEV, OVERFLOW
 * -EOVERFLOW, anything else -EIO. Pure. */
int usb_transfer_errno(int status, int actual_length);

/* bRequestErrorCode -> errno, as uvc_query_ctrl of Debian 12's 6.1.192:
 * 1 not ready -EBUSY, 2 wrong state -EILSEQ, 3 power -EREMOTE, 4 out of
 * range -ERANGE, 5..7 (invalid unit, control, request) -EIO, 8 invalid
 * value within range -EINVAL, 0 and the rest -EPIPE. Pure. */
int usb_uvc_error_errno(uint8_t code);

/* Probe and commit on streaming interface 'stream' (index into the model's
 * streams), as uvcvideo does it (uvc_probe_video, uvc_commit_video):
 *  usb_probe_get: GET_CUR/GET_DEF/GET_MIN/GET_MAX of the probe control
 *    (query), decoded; cameras that answer a shorter length are accepted.
 *  usb_probe_set: SET_CUR of the probe (commit false) or commit control.
 *  usb_probe_negotiate: uvc_probe_negotiate (uvc/negotiate.h) with the
 *    camera, its notes logged.
 * They wait for the camera: for start-up and tools; a served node's
 * probes go through usb_vs_submit. */
int usb_probe_get(struct usb_camera *cam, unsigned stream, uint8_t query, struct uvc_probe *p);
int usb_probe_set(struct usb_camera *cam, unsigned stream, bool commit, const struct uvc_probe *p);
int usb_probe_negotiate(struct usb_camera *cam, unsigned stream, const struct uvc_probe *want,
			struct uvc_probe *got);

/* The stream engine. usb_stream_start() takes 'committed' (the probe the
 * caller committed first: usb_probe_set or usb_vs_submit), selects the alternate setting (isochronous: the smallest whose
 * bytes per interval hold dwMaxPayloadTransferSize, as uvcvideo), allocates
 * a pool of transfers (libusb_dev_mem_alloc when the kernel allows it,
 * sized for the frame rate) and feeds every payload to asm from the loop.
 * on_error is called once if the stream dies (camera gone: -ENODEV; a
 * transfer fails repeatedly: -EIO), from the loop (not inside libusb's event
 * handling), once the engine has stopped; it may close the camera.
 * The assembler's frame callback runs inside libusb's event handling: it may
 * call usb_stream_stop() but no synchronous request (usb_control, probe)
 * and not usb_camera_close(). The caller resets asm before starting.
 * -ENOSPC when no alternate setting carries the payload size. */
typedef void (*usb_stream_error_cb)(void *data, int err);
int usb_stream_start(struct usb_camera *cam, unsigned stream, const struct uvc_probe *committed,
		     struct uvc_assembler *asm_, usb_stream_error_cb on_error, void *data);
/* Cancels the transfers and waits for them, back to alternate setting 0
 * (isochronous) or CLEAR_FEATURE(HALT) (bulk), as uvcvideo. Safe when not
 * streaming. Called from a frame callback it only cancels (no payload is
 * fed after it returns) and the loop finishes the stop. */
void usb_stream_stop(struct usb_camera *cam);
bool usb_stream_running(const struct usb_camera *cam);

/* How a committed probe is carried (pure, unit-tested). Isochronous: the
 * alternate setting with the smallest bytes per interval >= the payload size
 * (0 counts as 1; equal sizes: the last, as uvcvideo), transfers of up to 32
 * packets, enough for one frame. Bulk: transfers of the payload size in
 * whole packets, at most 32 packets (uvcvideo's sizes; a payload transfer
 * may span several). In flight: 5, or a whole frame's worth plus one (at
 * most 16 isochronous, 48 bulk transfers). -ENOSPC when no alternate setting
 * carries the payload, -EINVAL for a stream without endpoint. */
struct usb_stream_plan {
	bool iso;
	uint8_t alt;               /* bAlternateSetting to select (iso) */
	uint32_t packet_size;      /* iso: bytes per interval; bulk: wMaxPacketSize */
	unsigned packets;          /* iso packets per transfer, 0 for bulk */
	uint32_t transfer_size;
	unsigned n_transfers;
	uint32_t max_payload;      /* bulk: where a payload transfer ends */
};
int usb_stream_plan(const struct uvc_streaming *vs, const struct uvc_probe *committed,
		    struct usb_stream_plan *plan);
/* usbfs gives all its users together at most usbfs_memory_mb (16 MiB by
 * default) of transfer memory, and refuses a submission beyond. Fewer
 * transfers in flight (never below USB_STREAM_MIN_TRANSFERS) so that the
 * plan takes at most budget bytes (0: no limit). Returns the transfers
 * the plan had, or 0 when it fitted already. */
#define USB_STREAM_MIN_TRANSFERS 2
unsigned usb_stream_plan_fit(struct usb_stream_plan *plan, uint64_t budget);
/* The usbfs budget from sysfs_param (usbcore's usbfs_memory_mb file):
 * bytes, 0 for no limit or an unreadable file. */
uint64_t usb_usbfs_budget(const char *sysfs_param);


/* The camera's status interrupt endpoint (uvcvideo's status URB, which
 * it runs while the node is open; here while the camera is served): one
 * interrupt transfer of the endpoint's wMaxPacketSize, resubmitted after
 * each packet. on_packet gets every non-empty packet (at most
 * USB_STATUS_MAX_PACKET bytes of it) from the loop, outside libusb's event
 * handling, so it may make synchronous control requests. on_error is
 * called once, from the loop, when the endpoint stops by itself: -ENODEV
 * the camera is gone, -EIO the transfer failed 8 times in a row (logged).
 * -ENOENT when the camera has no status endpoint, -EALREADY when running,
 * -ENODEV, -ENOMEM, or the submission's error. */
typedef void (*usb_status_packet_cb)(void *data, const uint8_t *packet, size_t len);
struct usb_status_stats {
	uint64_t packets;          /* non-empty packets received */
	uint64_t errors;           /* failed completions */
};
int usb_status_start(struct usb_camera *cam, usb_status_packet_cb on_packet,
		     void (*on_error)(void *data, int err), void *data);
/* Cancels the transfer and waits for it; safe when not running. Not from a
 * transfer callback. usb_camera_close() calls it. */
void usb_status_stop(struct usb_camera *cam);
void usb_status_get_stats(const struct usb_camera *cam, struct usb_status_stats *st);

struct usb_stream_stats {
	uint64_t transfers, packets, packet_errors, bytes;
	unsigned alt;              /* the selected alternate setting */
	unsigned n_transfers, transfer_size;
	bool iso;
	uint32_t packet_size;      /* iso: bytes per interval of alt */
};
void usb_stream_get_stats(const struct usb_camera *cam, struct usb_stream_stats *st);

#endif

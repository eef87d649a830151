/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fakes of what src/device/ stands on, for its unit test (test_device.c):
 * the camera (src/usb/usb.h, played by the vcam's control model and probe
 * rules) and the CUSE session (src/cuse/cuse.h, requests the test makes
 * and whose answers it reads). They replace usb/ and cuse/ at link time;
 * the rest (v4l2/, uvc/, share/, settings/, convert/, core/) is real. */
#ifndef DEVICE_FAKES_H
#define DEVICE_FAKES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cuse/cuse.h"
#include "usb/usb.h"
#include "uvc/probe.h"

struct vcam_controls;
struct vcam_profile;

/* --- the camera ------------------------------------------------------------ */

/* A request submitted asynchronously (usb_ctrl_submit, usb_vs_submit),
 * answered when the test says (fake_usb_answer). */
struct usb_ctrl_req {
	uint8_t query, unit, selector;
	bool streaming;           /* usb_vs_submit: the streaming interface */
	uint8_t data[64];
	uint16_t size;
	usb_ctrl_done_cb done;
	void *done_data;
	bool cancelled;
};

#define FAKE_USB_PENDING 16

struct fake_usb {
	const struct vcam_profile *profile;
	struct vcam_controls *vc;     /* the camera's controls */
	struct uvc_camera *model;     /* its descriptors, as the parser made them */
	struct usb_camera_id id;
	struct uvc_probe probe;       /* the camera's probe control */
	int open_err;                 /* usb_camera_open fails with it */
	bool gone;                    /* unplugged */
	int reattach_result;          /* usb_camera_reattach's answer */
	enum usb_replug_rule reattach_rule; /* the rule it was asked with */
	int inject;                   /* the next control request fails with it */
	/* requests on endpoint 0, in order; the first is on the wire */
	struct usb_ctrl_req *pending[FAKE_USB_PENDING];
	unsigned n_pending;
	unsigned sync_requests, async_requests, cancels;
	/* the stream */
	bool streaming;
	unsigned stream_starts, stream_stops;
	struct uvc_probe committed;
	struct uvc_assembler *assembler;
	usb_stream_error_cb stream_error;
	void *stream_data;
	/* the host's clock when the stream's packets arrive (the assembler's
	 * now_ns), and the camera's: clock_hz 0 sends no PTS and SCR, else
	 * its clock reads host ns * clock_hz / 1e9 (no drift, no delay), the
	 * PTS is exposure_ago_ns before each frame's first packet */
	uint64_t now_ns;
	uint32_t clock_hz;
	uint64_t exposure_ago_ns;
	/* the status endpoint */
	bool status_running;
	usb_status_packet_cb status_packet;
	void (*status_error)(void *data, int err);
	void *status_data;
	/* the hotplug watch */
	usb_hotplug_cb arrived, left;
	void *hotplug_data;
};

extern struct fake_usb fake_usb;

/* A camera of the vcam's profile (by name) with the vcam's controls. */
void fake_usb_setup(const char *profile);
void fake_usb_teardown(void);
/* The request on the wire gets its answer from the camera (or err < 0
 * instead): its callback runs. false when none waits. */
bool fake_usb_answer(int err);
/* Answers every request until none waits; returns how many. */
unsigned fake_usb_answer_all(void);
/* One whole frame of the running format through the stream's assembler, in
 * isochronous payloads; fid alternates per frame; bytes filled with fill. */
void fake_usb_frame(uint8_t fill, bool error);
/* The first bytes of the next frame (or more of the one begun): the
 * frame stays open; fake_usb_frame sends the rest. */
void fake_usb_frame_part(uint8_t fill, size_t bytes);

/* --- the CUSE session ---------------------------------------------------- */

/* A request the test makes; the device answers it through cuse_reply_*. */
struct cuse_req {
	struct cuse_file *file;
	pid_t pid;
	uid_t uid;
	bool parked;
	bool answered;
	int result;               /* 0 or -errno; read(): the length */
	uint8_t arg[256];         /* ioctl: the argument as answered */
	size_t arg_size;
	uint8_t data[256];        /* read() and USERPTR DQBUF bytes (their start) */
	size_t data_len;
};

struct cuse_file {
	int flags;
	pid_t opener;
	uid_t opener_uid;
	void *data;               /* what ops->open returned */
	unsigned poll_notified;
};

struct fake_cuse {
	const struct cuse_server_ops *ops;
	void *ctx;
	char devname[64];
	int new_err;              /* cuse_server_new fails with it */
	bool freed;
};

extern struct fake_cuse fake_cuse;

/* Opens a file of process pid (0: the test's own). NULL when refused
 * (*err: the errno). */
struct cuse_file *fake_cuse_open(pid_t pid, int flags, int *err);
/* The same, opened by user uid. */
struct cuse_file *fake_cuse_open_as(pid_t pid, uid_t uid, int flags, int *err);
void fake_cuse_release(struct cuse_file *f);
/* An ioctl with arg (size bytes, copied); extra/extra_len as the table's
 * regions would bring them. The request stays the test's: free() it. */
struct cuse_req *fake_cuse_ioctl(struct cuse_file *f, unsigned int cmd, const void *arg,
				 void *extra, size_t extra_len);
struct cuse_req *fake_cuse_read(struct cuse_file *f, size_t size, off_t off);
unsigned fake_cuse_poll(struct cuse_file *f, unsigned requested);
/* The kernel tells of a signal: the device must answer req. */
void fake_cuse_interrupt(struct cuse_file *f, struct cuse_req *req);

#endif

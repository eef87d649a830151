/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual camera as a USB device: standard and UVC class requests on
 * endpoint 0, the status interrupt endpoint and the video endpoint.
 * It knows nothing of sockets: USB/IP commands come in decoded, replies go
 * out through a callback, and time is passed in, so tests can drive it. */
#ifndef VCAM_CAMERA_H
#define VCAM_CAMERA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "payload.h"
#include "profile.h"
#include "usbip.h"

struct vcam_camera;

/* Faults of endpoint 0 and the status endpoint (--request-fault). */
enum vcam_request_fault {
	VCAM_RF_CTRL_STALL = 1u << 0,    /* GET_CUR/SET_CUR of a unit or terminal
					  * control STALLs, error code "not ready" */
	VCAM_RF_CTRL_SHORT = 1u << 1,    /* GET_CUR of a unit or terminal control
					  * answers one byte short */
	VCAM_RF_ERRCODE_STALL = 1u << 2, /* reading the request error code STALLs */
	VCAM_RF_PROBE_STALL = 1u << 3,   /* SET_CUR of the probe control STALLs */
	VCAM_RF_COMMIT_STALL = 1u << 4,  /* SET_CUR of the commit control STALLs */
	VCAM_RF_STATUS_GARBAGE = 1u << 5, /* the status endpoint sends a random
					   * packet (0 to 16 bytes) every 100 ms */
};

/* A fault's bit from its name (ctrl-stall, ctrl-short, errcode-stall,
 * probe-stall, commit-stall, status-garbage), or 0. */
unsigned vcam_request_fault_parse(const char *name);

struct vcam_impersonation;

struct vcam_camera_config {
	const struct vcam_profile *profile;
	/* A real camera impersonated (impersonate.h): its descriptors, interface
	 * and endpoint numbers and units; profile is then its profile. NULL:
	 * the vcam's own camera. */
	const struct vcam_impersonation *impersonate;
	const char *serial;
	bool unpaced;          /* frames as fast as the host takes them */
	/* Microsoft's UVC 1.5 metadata: the XU takes the MSXU GUID and its
	 * metadata control; once the host sets that, each payload header of a
	 * frame carries a metadata item with the frame's sequence (payload.h) */
	bool msxu;
	uint8_t color_primaries; /* vcam_identity's (0: BT.709) */
	unsigned error_every;  /* set ERR in every Nth frame (0: never) */
	unsigned corrupt_jpeg_every; /* damage the scan of every Nth MJPEG frame (0: never) */
	/* enum vcam_payload_fault in every fault_every-th frame (isochronous) */
	unsigned payload_faults;
	unsigned fault_every;
	/* GET_CUR and SET_CUR of unit and terminal controls are answered this
	 * late (ms), or never with ctrl_hang (the host times out and unlinks);
	 * endpoint 0 answers the requests after them in order, behind them. */
	unsigned ctrl_delay_ms;
	bool ctrl_hang;
	/* the camera sets its brightness back to the default whenever it
	 * starts streaming (as the C920 does to its exposure: uvcvideo's
	 * RESTORE_CTRLS_ON_INIT quirk) */
	bool reset_on_stream;
	/* SET_CUR of probe and commit is answered this late (ms), holding
	 * endpoint 0's later answers behind it as well */
	unsigned stream_delay_ms;
	/* enum vcam_request_fault: armed from the start, switched off and on
	 * by vcam_camera_arm_request_faults() */
	unsigned request_faults;
	/* A recorded bulk stream played instead of the pictures, whatever the
	 * host negotiated (replay.h); owned by the caller. NULL: pictures. */
	struct vcam_replay *replay;
	/* The camera's clock in its PTS and SCR (payload.h): drift, offset,
	 * jitter; zero: the nominal clock. */
	struct vcam_clock camera_clock;
	/* The frames of a format and size, owned by the caller, or NULL with
	 * errno EAGAIN while they are still being drawn (then call
	 * vcam_camera_run() again once they may be ready). */
	struct vcam_frames *(*frames)(void *ctx, enum vcam_pixel pixel, unsigned width,
				      unsigned height);
	/* Sends one reply: a 48-byte header, IN data, isochronous descriptors. */
	int (*send)(void *ctx, const uint8_t *header, const uint8_t *data, size_t length,
		    const struct usbip_iso_desc *iso, unsigned packets);
	void *ctx;
	/* CLOCK_MONOTONIC in ns: read again after work that takes long (drawing
	 * the pictures of a new format) so the first frame is not late. */
	uint64_t (*clock)(void);
};

struct vcam_camera *vcam_camera_new(const struct vcam_camera_config *cfg);
void vcam_camera_free(struct vcam_camera *cam);

/* One command from the host with its OUT data and isochronous descriptors.
 * Returns 0, or a negative errno when the reply could not be sent. */
int vcam_camera_command(struct vcam_camera *cam, const struct usbip_header *h,
			const uint8_t *out_data, const struct usbip_iso_desc *iso,
			uint64_t now_ns);

/* When the camera next has something to do by itself (CLOCK_MONOTONIC ns). */
uint64_t vcam_camera_deadline(const struct vcam_camera *cam);

/* Paused, the camera keeps answering every request but sends no frame (its
 * video URBs wait), as a sensor that stalls; resumed, frames go on from
 * the next one. */
void vcam_camera_pause(struct vcam_camera *cam, bool paused, uint64_t now_ns);

/* Request faults switched on (armed) or off; logged. */
void vcam_camera_arm_request_faults(struct vcam_camera *cam, bool armed);

/* Does what is due by now: frames, automatic control changes. */
int vcam_camera_run(struct vcam_camera *cam, uint64_t now_ns);

/* The cable was pulled: pending URBs are gone and, as with any camera that
 * loses power, every setting is back to its power-on value. */
void vcam_camera_unplugged(struct vcam_camera *cam);

/* Counters for the log line at exit. */
struct vcam_camera_stats {
	uint64_t frames_sent, frames_dropped, urbs;
	uint64_t frames_corrupted; /* by corrupt_jpeg_every */
	uint64_t frames_faulted;   /* by payload_faults */
	uint64_t status_garbage;   /* packets sent by VCAM_RF_STATUS_GARBAGE */
};
void vcam_camera_stats(const struct vcam_camera *cam, struct vcam_camera_stats *out);

#endif

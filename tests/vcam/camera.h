/* The virtual camera as a USB device: standard and UVC class requests on
 * endpoint 0, the status interrupt endpoint and the video endpoint.
 * It knows nothing of sockets: USB/IP commands come in decoded, replies go
 * out through a callback, and time is passed in, so tests can drive it. */
#ifndef VCAM_CAMERA_H
#define VCAM_CAMERA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "usbip.h"

struct vcam_camera;

struct vcam_camera_config {
	const struct vcam_profile *profile;
	const char *serial;
	bool unpaced;          /* frames as fast as the host takes them */
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
};
void vcam_camera_stats(const struct vcam_camera *cam, struct vcam_camera_stats *out);

#endif

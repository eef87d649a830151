/* Turning frames into UVC payloads (UVC 1.5 section 2.4.3.3): the 12-byte
 * header with FID, EOF, PTS, SCR and ERR, split into isochronous packets or
 * bulk payload transfers. Pure: the caller gives times and buffers. */
#ifndef VCAM_PAYLOAD_H
#define VCAM_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VCAM_PAYLOAD_HEADER 12

struct vcam_payload {
	/* the frame being sent */
	const uint8_t *frame;
	size_t frame_len, frame_pos;
	bool in_frame;
	bool fid;
	bool error;     /* send ERR in this frame's last payload */
	uint32_t pts;   /* device clock at capture */
	/* bulk: the payload transfer being sent */
	size_t max_payload; /* dwMaxPayloadTransferSize */
	size_t payload_len, payload_pos;
	bool zlp_owed;  /* a payload filled its last URB exactly: end it with a ZLP */
	/* counters */
	uint64_t frames_done, payloads;
};

/* Device clock (VCAM_CLOCK_HZ) at a CLOCK_MONOTONIC time. */
uint32_t vcam_payload_clock(uint64_t time_ns);

void vcam_payload_reset(struct vcam_payload *p, size_t max_payload);

/* Starts sending a frame; the buffer must stay valid until it is done. */
void vcam_payload_start_frame(struct vcam_payload *p, const uint8_t *frame, size_t len,
			      uint64_t capture_ns, bool error);

/* Writes one isochronous packet of at most `room` bytes at time now_ns:
 * header plus frame data, or a header alone between frames. Returns the
 * packet length. */
size_t vcam_payload_iso_packet(struct vcam_payload *p, uint8_t *out, size_t room,
			       uint64_t now_ns);

/* Fills one bulk URB of `room` bytes. Returns the bytes written, 0 for a
 * zero-length packet that ends a payload, or -1 when there is nothing to
 * send (the URB waits for the next frame). */
long vcam_payload_bulk_urb(struct vcam_payload *p, uint8_t *out, size_t room, uint64_t now_ns);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Turning frames into UVC payloads (UVC 1.5 section 2.4.3.3): the 12-byte
 * header with FID, EOF, PTS, SCR and ERR, split into isochronous packets or
 * bulk payload transfers. Pure: the caller gives times and buffers. */
#ifndef VCAM_PAYLOAD_H
#define VCAM_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VCAM_PAYLOAD_HEADER 12 /* without metadata (vcam_payload_set_msxu) */

/* The Microsoft metadata item each header of a frame carries once the host
 * turned MSXU metadata on (a KSCAMERA_METADATA_ITEMHEADER, Id and Size,
 * then the frame's sequence and a zero): VCAM_MSXU_ITEM bytes after the
 * standard 12, Id VCAM_MSXU_ITEM_ID (a custom one, bit 31). */
#define VCAM_MSXU_ITEM 16
#define VCAM_MSXU_ITEM_ID 0x80000001u

/* Camera faults in one frame's isochronous packets (vcam_payload_set_faults),
 * combinable; uvcvideo's answer to each is the reference (daemon-faults). */
enum vcam_payload_fault {
	/* the header faults hit the frame's second packet (none if it has one) */
	VCAM_FAULT_HEADER0 = 1u << 0,     /* one packet's bHeaderLength is 0 */
	VCAM_FAULT_HEADER1 = 1u << 1,     /* one packet's bHeaderLength is 1 */
	VCAM_FAULT_HEADER_LONG = 1u << 2, /* one short packet's bHeaderLength exceeds it */
	VCAM_FAULT_NO_EOF = 1u << 3,      /* the last packet lacks EOF (the next FID ends it) */
	VCAM_FAULT_FID_TOGGLE = 1u << 4,  /* FID flips halfway through the frame */
	VCAM_FAULT_OVERSIZE = 1u << 5,    /* 4 KiB more than the frame (for YUYV: more than
					   * dwMaxVideoFrameSize) */
	VCAM_FAULT_SHORT = 1u << 6,       /* EOF halfway through the frame */
	VCAM_FAULT_ZLP = 1u << 7,         /* a zero-length packet between its packets */
	VCAM_FAULT_ISO_ERROR = 1u << 8,   /* 3 packets halfway with status -EPROTO, no data */
};
#define VCAM_FAULT_OVERSIZE_BYTES 4096

/* The camera's clock as a real one runs: VCAM_CLOCK_HZ, ppm parts per
 * million fast (or slow), from offset ticks; each SCR sampled up to
 * jitter_ns late (its firmware's jitter). All zero: the nominal clock,
 * vcam_payload_clock(). */
struct vcam_clock {
	int32_t ppm;
	uint32_t offset;
	uint32_t jitter_ns;
	uint32_t seed;      /* the jitter's generator */
};

struct vcam_payload {
	/* the camera's clock (kept by vcam_payload_reset) */
	struct vcam_clock clock;
	/* the frame being sent */
	const uint8_t *frame;
	size_t frame_len, frame_pos;
	bool in_frame;
	bool fid;
	bool error;     /* send ERR in this frame's last payload */
	unsigned faults; /* enum vcam_payload_fault, for this frame */
	size_t send_len;  /* bytes of this frame to send (short, oversize) */
	unsigned fault_step; /* the frame's faults that happened */
	unsigned packets_lost; /* VCAM_FAULT_ISO_ERROR: so far in this frame */
	bool zlp_next;    /* VCAM_FAULT_ZLP: the next packet is empty */
	int packet_status; /* of the last iso packet: 0, or -EPROTO */
	uint32_t pts;   /* device clock at capture */
	/* the metadata after the standard header fields (this frame's) */
	uint8_t extra[VCAM_MSXU_ITEM];
	size_t extra_len;
	/* bulk: the payload transfer being sent */
	size_t max_payload; /* dwMaxPayloadTransferSize */
	size_t payload_len, payload_pos;
	bool zlp_owed;  /* a payload filled its last URB exactly: end it with a ZLP */
	/* counters */
	uint64_t frames_done, payloads;
};

/* Device clock (VCAM_CLOCK_HZ) at a CLOCK_MONOTONIC time. */
uint32_t vcam_payload_clock(uint64_t time_ns);

/* The clock c at a CLOCK_MONOTONIC time (its drift and offset; no
 * jitter). */
uint32_t vcam_clock_read(const struct vcam_clock *c, uint64_t time_ns);

void vcam_payload_reset(struct vcam_payload *p, size_t max_payload);

/* Starts sending a frame; the buffer must stay valid until it is done. */
void vcam_payload_start_frame(struct vcam_payload *p, const uint8_t *frame, size_t len,
			      uint64_t capture_ns, bool error);

/* The frame just started carries Microsoft metadata (VCAM_MSXU_ITEM) in
 * each of its payload headers. */
void vcam_payload_set_msxu(struct vcam_payload *p, uint32_t sequence);

/* Faults for the frame just started (0: none). */
void vcam_payload_set_faults(struct vcam_payload *p, unsigned faults);

/* A fault's name ("header0", ..., "iso-error"), or its value from a name
 * (0: unknown). */
const char *vcam_payload_fault_name(unsigned fault);
unsigned vcam_payload_fault_parse(const char *name);

/* Writes one isochronous packet of at most `room` bytes at time now_ns:
 * header plus frame data, or a header alone between frames. Returns the
 * packet length; packet_status tells the packet's USB status. */
size_t vcam_payload_iso_packet(struct vcam_payload *p, uint8_t *out, size_t room,
			       uint64_t now_ns);

/* Fills one bulk URB of `room` bytes. Returns the bytes written, 0 for a
 * zero-length packet that ends a payload (or, packet_status -EPROTO, a
 * transfer lost: VCAM_FAULT_ISO_ERROR), or -1 when there is nothing to
 * send (the URB waits for the next frame). Bulk takes every fault but
 * VCAM_FAULT_FID_TOGGLE (a payload has one FID); the header faults hit
 * each payload of the frame, zlp sends one empty transfer before it. */
long vcam_payload_bulk_urb(struct vcam_payload *p, uint8_t *out, size_t room, uint64_t now_ns);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Payload headers and packetizing. */
#include "payload.h"

#include <string.h>

#include <linux/usb/video.h>

#include "descriptors.h"

uint32_t vcam_payload_clock(uint64_t time_ns)
{
	/* 48 MHz: ns * 48 / 1000, wrapping at 32 bits as the header field does. */
	return (uint32_t)((time_ns / 1000) * (VCAM_CLOCK_HZ / 1000000u) +
			  (time_ns % 1000) * (VCAM_CLOCK_HZ / 1000000u) / 1000);
}

uint32_t vcam_clock_read(const struct vcam_clock *c, uint64_t time_ns)
{
	uint64_t ticks = (time_ns / 1000) * (VCAM_CLOCK_HZ / 1000000u) +
			 (time_ns % 1000) * (VCAM_CLOCK_HZ / 1000000u) / 1000;
	int64_t drift = (int64_t)(ticks / 1000000u) * c->ppm +
			(int64_t)(ticks % 1000000u) * c->ppm / 1000000;
	return (uint32_t)(ticks + (uint64_t)drift + c->offset);
}

void vcam_payload_reset(struct vcam_payload *p, size_t max_payload)
{
	struct vcam_clock clock = p->clock;
	memset(p, 0, sizeof(*p));
	p->clock = clock;
	p->max_payload = max_payload;
}

/* When the SCR of a packet sent at now_ns was sampled: up to jitter_ns
 * earlier. */
static uint64_t scr_time(struct vcam_payload *p, uint64_t now_ns)
{
	if (!p->clock.jitter_ns)
		return now_ns;
	p->clock.seed = p->clock.seed * 1664525u + 1013904223u;
	uint64_t late = (p->clock.seed >> 8) % p->clock.jitter_ns;
	return now_ns > late ? now_ns - late : 0;
}

void vcam_payload_start_frame(struct vcam_payload *p, const uint8_t *frame, size_t len,
			      uint64_t capture_ns, bool error)
{
	p->frame = frame;
	p->frame_len = len;
	p->frame_pos = 0;
	p->in_frame = true;
	p->fid = !p->fid;
	p->error = error;
	p->pts = vcam_clock_read(&p->clock, capture_ns);
	p->payload_len = p->payload_pos = 0;
	p->faults = 0;
	p->send_len = len;
	p->fault_step = 0;
	p->packets_lost = 0;
	p->zlp_next = false;
	p->extra_len = 0;
}

/* bHeaderLength: the standard fields and the frame's metadata. */
static size_t header_len(const struct vcam_payload *p)
{
	return VCAM_PAYLOAD_HEADER + p->extra_len;
}

static void put_le32(uint8_t *out, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(v >> (8 * i));
}

void vcam_payload_set_msxu(struct vcam_payload *p, uint32_t sequence)
{
	put_le32(p->extra, VCAM_MSXU_ITEM_ID);
	put_le32(p->extra + 4, VCAM_MSXU_ITEM);
	put_le32(p->extra + 8, sequence);
	put_le32(p->extra + 12, 0);
	p->extra_len = VCAM_MSXU_ITEM;
}

static const char *const fault_names[] = {
	"header0", "header1", "header-long", "no-eof", "fid-toggle",
	"oversize", "short", "zlp", "iso-error",
};

const char *vcam_payload_fault_name(unsigned fault)
{
	for (unsigned i = 0; i < sizeof(fault_names) / sizeof(fault_names[0]); i++)
		if (fault == 1u << i)
			return fault_names[i];
	return NULL;
}

unsigned vcam_payload_fault_parse(const char *name)
{
	for (unsigned i = 0; i < sizeof(fault_names) / sizeof(fault_names[0]); i++)
		if (strcmp(name, fault_names[i]) == 0)
			return 1u << i;
	return 0;
}

void vcam_payload_set_faults(struct vcam_payload *p, unsigned faults)
{
	p->faults = faults;
	p->send_len = p->frame_len;
	if (faults & VCAM_FAULT_SHORT)
		p->send_len = p->frame_len / 2;
	else if (faults & VCAM_FAULT_OVERSIZE)
		p->send_len = p->frame_len + VCAM_FAULT_OVERSIZE_BYTES;
}

/* Header with PTS and SCR. SCR's SOF is the 1 kHz USB frame number. */
static void write_header(struct vcam_payload *p, uint8_t *out, bool eof, uint64_t now_ns)
{
	uint8_t flags = UVC_STREAM_EOH | UVC_STREAM_PTS | UVC_STREAM_SCR;
	if (p->fid)
		flags |= UVC_STREAM_FID;
	if (eof) {
		flags |= UVC_STREAM_EOF;
		if (p->error)
			flags |= UVC_STREAM_ERR;
	}
	uint32_t stc = vcam_clock_read(&p->clock, scr_time(p, now_ns));
	uint16_t sof = (uint16_t)((now_ns / 1000000u) & 0x7ff);
	out[0] = (uint8_t)header_len(p);
	out[1] = flags;
	put_le32(out + 2, p->pts);
	put_le32(out + 6, stc);
	out[10] = sof & 0xff;
	out[11] = sof >> 8;
	memcpy(out + VCAM_PAYLOAD_HEADER, p->extra, p->extra_len);
}

static void frame_done(struct vcam_payload *p)
{
	p->in_frame = false;
	p->frame = NULL;
	p->frames_done++;
}

/* Frame bytes from pos, past the frame's end (oversize) a grey filler. */
static void copy_frame(const struct vcam_payload *p, uint8_t *out, size_t pos, size_t n)
{
	size_t from_frame = pos < p->frame_len ? p->frame_len - pos : 0;
	if (from_frame > n)
		from_frame = n;
	if (from_frame)
		memcpy(out, p->frame + pos, from_frame);
	memset(out + from_frame, 0x80, n - from_frame);
}

/* The fault that hits the packet about to carry frame bytes from
 * frame_pos, once per frame each (fault_step remembers which happened):
 * the header faults on the second packet, FID and iso errors halfway. */
static unsigned packet_fault(struct vcam_payload *p)
{
	static const unsigned header_faults =
		VCAM_FAULT_HEADER0 | VCAM_FAULT_HEADER1 | VCAM_FAULT_HEADER_LONG;
	unsigned todo = p->faults & ~p->fault_step;
	if ((todo & header_faults) && p->frame_pos > 0)
		return todo & header_faults & -(todo & header_faults); /* lowest one */
	if ((todo & VCAM_FAULT_FID_TOGGLE) && p->frame_pos >= p->send_len / 2)
		return VCAM_FAULT_FID_TOGGLE;
	if ((todo & VCAM_FAULT_ISO_ERROR) && p->frame_pos >= p->send_len / 2)
		return VCAM_FAULT_ISO_ERROR;
	return 0;
}

size_t vcam_payload_iso_packet(struct vcam_payload *p, uint8_t *out, size_t room,
			       uint64_t now_ns)
{
	p->packet_status = 0;
	if (room < header_len(p))
		return 0;
	if (!p->in_frame) {
		/* Between frames a camera keeps sending headers with the old FID. */
		write_header(p, out, false, now_ns);
		return header_len(p);
	}
	if (p->faults & VCAM_FAULT_ZLP) {
		p->zlp_next = !p->zlp_next;
		if (!p->zlp_next)
			return 0;
	}
	unsigned fault = packet_fault(p);
	if (fault != VCAM_FAULT_ISO_ERROR)
		p->fault_step |= fault; /* once a frame; iso errors: below */
	if (fault == VCAM_FAULT_FID_TOGGLE)
		p->fid = !p->fid; /* the rest of the frame looks like a new one */
	size_t left = p->send_len - p->frame_pos;
	size_t n = room - header_len(p);
	if (fault == VCAM_FAULT_HEADER_LONG && n > 100)
		n = 100; /* a packet shorter than the 255 bytes its header claims */
	if (n > left)
		n = left;
	if (fault == VCAM_FAULT_ISO_ERROR) {
		/* three packets lost on the wire: their bytes never arrive (the
		 * frame's last packet always does) */
		if (n == left || ++p->packets_lost == 3)
			p->fault_step |= VCAM_FAULT_ISO_ERROR;
		if (n < left) {
			p->frame_pos += n;
			p->packet_status = -71; /* -EPROTO, as a host controller reports it */
			return 0;
		}
	}
	bool eof = n == left;
	write_header(p, out, eof, now_ns);
	if (p->faults & VCAM_FAULT_NO_EOF)
		out[1] &= (uint8_t)~UVC_STREAM_EOF; /* ERR, if any, stays */
	if (fault == VCAM_FAULT_HEADER0)
		out[0] = 0;
	else if (fault == VCAM_FAULT_HEADER1)
		out[0] = 1;
	else if (fault == VCAM_FAULT_HEADER_LONG)
		out[0] = 255;
	copy_frame(p, out + header_len(p), p->frame_pos, n);
	p->frame_pos += n;
	p->payloads++;
	if (eof)
		frame_done(p);
	return header_len(p) + n;
}

long vcam_payload_bulk_urb(struct vcam_payload *p, uint8_t *out, size_t room, uint64_t now_ns)
{
	p->packet_status = 0;
	if (p->zlp_owed) {
		p->zlp_owed = false;
		return 0;
	}
	if (!p->in_frame || room == 0)
		return -1;
	size_t written = 0;
	if (p->payload_pos == 0) {
		if ((p->faults & VCAM_FAULT_ZLP) && !(p->fault_step & VCAM_FAULT_ZLP)) {
			p->fault_step |= VCAM_FAULT_ZLP;
			return 0; /* an empty transfer before the frame's payload */
		}
		/* A new payload transfer: header first, EOF if it holds the end. */
		size_t left = p->send_len - p->frame_pos;
		p->payload_len = left + header_len(p);
		if (p->payload_len > p->max_payload)
			p->payload_len = p->max_payload;
		bool eof = p->payload_len == left + header_len(p);
		uint8_t header[VCAM_PAYLOAD_HEADER + VCAM_MSXU_ITEM];
		write_header(p, header, eof, now_ns);
		if (p->faults & VCAM_FAULT_NO_EOF)
			header[1] &= (uint8_t)~UVC_STREAM_EOF;
		/* header faults hit every payload of the frame (a bulk frame
		 * is often one payload) */
		if (p->faults & VCAM_FAULT_HEADER0)
			header[0] = 0;
		else if (p->faults & VCAM_FAULT_HEADER1)
			header[0] = 1;
		else if (p->faults & VCAM_FAULT_HEADER_LONG)
			header[0] = 255;
		size_t h = room < header_len(p) ? room : header_len(p);
		memcpy(out, header, h);
		/* URBs smaller than a header do not happen with real hosts. */
		written = h;
		p->payload_pos = header_len(p);
		p->payloads++;
	}
	size_t n = p->payload_len - p->payload_pos;
	if (n > room - written)
		n = room - written;
	if ((p->faults & VCAM_FAULT_ISO_ERROR) && !(p->fault_step & VCAM_FAULT_ISO_ERROR) &&
	    written == 0 && p->frame_pos >= p->send_len / 2 && p->payload_pos + n < p->payload_len) {
		/* a transfer lost on the bus halfway: its bytes never arrive */
		p->fault_step |= VCAM_FAULT_ISO_ERROR;
		p->frame_pos += n;
		p->payload_pos += n;
		p->packet_status = -71; /* -EPROTO, as a host controller reports it */
		return 0;
	}
	copy_frame(p, out + written, p->frame_pos, n);
	p->frame_pos += n;
	p->payload_pos += n;
	written += n;
	if (p->payload_pos == p->payload_len) {
		/* The host only sees a payload end at a short transfer or at
		 * dwMaxPayloadTransferSize bytes; a payload that ends exactly on a
		 * full URB needs a zero-length packet after it. */
		if (written == room && p->payload_len < p->max_payload)
			p->zlp_owed = true;
		p->payload_pos = p->payload_len = 0;
		if (p->frame_pos == p->send_len)
			frame_done(p);
	}
	return (long)written;
}

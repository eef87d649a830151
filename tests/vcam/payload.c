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

void vcam_payload_reset(struct vcam_payload *p, size_t max_payload)
{
	memset(p, 0, sizeof(*p));
	p->max_payload = max_payload;
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
	p->pts = vcam_payload_clock(capture_ns);
	p->payload_len = p->payload_pos = 0;
}

/* Header with PTS and SCR. SCR's SOF is the 1 kHz USB frame number. */
static void write_header(const struct vcam_payload *p, uint8_t *out, bool eof, uint64_t now_ns)
{
	uint8_t flags = UVC_STREAM_EOH | UVC_STREAM_PTS | UVC_STREAM_SCR;
	if (p->fid)
		flags |= UVC_STREAM_FID;
	if (eof) {
		flags |= UVC_STREAM_EOF;
		if (p->error)
			flags |= UVC_STREAM_ERR;
	}
	uint32_t stc = vcam_payload_clock(now_ns);
	uint16_t sof = (uint16_t)((now_ns / 1000000u) & 0x7ff);
	out[0] = VCAM_PAYLOAD_HEADER;
	out[1] = flags;
	for (int i = 0; i < 4; i++) {
		out[2 + i] = (uint8_t)(p->pts >> (8 * i));
		out[6 + i] = (uint8_t)(stc >> (8 * i));
	}
	out[10] = sof & 0xff;
	out[11] = sof >> 8;
}

static void frame_done(struct vcam_payload *p)
{
	p->in_frame = false;
	p->frame = NULL;
	p->frames_done++;
}

size_t vcam_payload_iso_packet(struct vcam_payload *p, uint8_t *out, size_t room,
			       uint64_t now_ns)
{
	if (room < VCAM_PAYLOAD_HEADER)
		return 0;
	if (!p->in_frame) {
		/* Between frames a camera keeps sending headers with the old FID. */
		write_header(p, out, false, now_ns);
		return VCAM_PAYLOAD_HEADER;
	}
	size_t left = p->frame_len - p->frame_pos;
	size_t n = room - VCAM_PAYLOAD_HEADER;
	if (n > left)
		n = left;
	bool eof = n == left;
	write_header(p, out, eof, now_ns);
	memcpy(out + VCAM_PAYLOAD_HEADER, p->frame + p->frame_pos, n);
	p->frame_pos += n;
	p->payloads++;
	if (eof)
		frame_done(p);
	return VCAM_PAYLOAD_HEADER + n;
}

long vcam_payload_bulk_urb(struct vcam_payload *p, uint8_t *out, size_t room, uint64_t now_ns)
{
	if (p->zlp_owed) {
		p->zlp_owed = false;
		return 0;
	}
	if (!p->in_frame || room == 0)
		return -1;
	size_t written = 0;
	if (p->payload_pos == 0) {
		/* A new payload transfer: header first, EOF if it holds the end. */
		size_t left = p->frame_len - p->frame_pos;
		p->payload_len = left + VCAM_PAYLOAD_HEADER;
		if (p->payload_len > p->max_payload)
			p->payload_len = p->max_payload;
		bool eof = p->payload_len == left + VCAM_PAYLOAD_HEADER;
		uint8_t header[VCAM_PAYLOAD_HEADER];
		write_header(p, header, eof, now_ns);
		size_t h = room < VCAM_PAYLOAD_HEADER ? room : VCAM_PAYLOAD_HEADER;
		memcpy(out, header, h);
		/* URBs smaller than a header do not happen with real hosts. */
		written = h;
		p->payload_pos = VCAM_PAYLOAD_HEADER;
		p->payloads++;
	}
	size_t n = p->payload_len - p->payload_pos;
	if (n > room - written)
		n = room - written;
	memcpy(out + written, p->frame + p->frame_pos, n);
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
		if (p->frame_pos == p->frame_len)
			frame_done(p);
	}
	return (long)written;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UVC payload header parsing and frame assembly: see payload.h for the rules. */
#include "payload.h"

#include <errno.h>
#include <string.h>

#include <linux/usb/video.h>

#include "metadata.h"

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int uvc_payload_parse(const uint8_t *data, size_t len, struct uvc_payload_header *out)
{
	if (!data || len < 2 || data[0] < 2 || data[0] > len)
		return -EINVAL;
	uint8_t hlen = data[0], info = data[1];
	size_t need = 2;
	if (info & UVC_STREAM_PTS)
		need += 4;
	if (info & UVC_STREAM_SCR)
		need += 6;

	memset(out, 0, sizeof(*out));
	out->length = hlen;
	out->info = info;
	out->fid = info & UVC_STREAM_FID;
	out->eof = info & UVC_STREAM_EOF;
	/* timestamps the header is too short for are not read (uvcvideo 6.1
	 * takes the payload all the same, and its clock reads them past
	 * bHeaderLength, in the picture's bytes) */
	out->has_pts = (info & UVC_STREAM_PTS) && hlen >= need;
	out->has_scr = (info & UVC_STREAM_SCR) && hlen >= need;
	out->res = info & UVC_STREAM_RES;
	out->still = info & UVC_STREAM_STI;
	out->error = info & UVC_STREAM_ERR;
	out->eoh = info & UVC_STREAM_EOH;
	const uint8_t *p = data + 2;
	if (out->has_pts) {
		out->pts = get_le32(p);
		p += 4;
	}
	if (out->has_scr) {
		out->scr_stc = get_le32(p);
		out->scr_sof = (uint16_t)((p[4] | p[5] << 8) & 0x7ff);
	}
	return 0;
}

void uvc_assembler_init(struct uvc_assembler *a, uvc_frame_cb cb, void *opaque)
{
	memset(a, 0, sizeof(*a));
	a->cb = cb;
	a->opaque = opaque;
	a->last_fid = -1;
	a->pending_err_fid = -1;
	a->lost_fid = -1;
}

void uvc_assembler_reset(struct uvc_assembler *a)
{
	memset(&a->frame, 0, sizeof(a->frame));
	a->spare = NULL;
	a->spare_cap = 0;
	a->spare_mirror = NULL;
	a->spare_mirror_cap = 0;
	a->last_fid = -1;
	a->pending_err_fid = -1;
	a->pending_lost = false;
	a->lost_fid = -1;
	a->sequence = 0;
	a->in_payload = false;
	a->bulk_state = UVC_BULK_IDLE;
	a->bulk_hdr_len = 0;
	a->transfer_has_scr = false;
	a->scr_first = a->scr_count = 0;
}

void uvc_assembler_transfer_done(struct uvc_assembler *a)
{
	if (!a->transfer_has_scr)
		return;
	a->transfer_has_scr = false;
	if (a->scr_count == UVC_ASM_SCR_SAMPLES) { /* the oldest gives way */
		a->scr_first = (a->scr_first + 1) % UVC_ASM_SCR_SAMPLES;
		a->scr_count--;
	}
	unsigned slot = (a->scr_first + a->scr_count++) % UVC_ASM_SCR_SAMPLES;
	a->scr[slot] = (struct uvc_scr_sample){ a->transfer_scr, a->now_ns };
}

unsigned uvc_assembler_take_scr(struct uvc_assembler *a, struct uvc_scr_sample *out,
				unsigned max)
{
	unsigned n = 0;
	for (; n < max && a->scr_count; n++, a->scr_count--) {
		out[n] = a->scr[a->scr_first];
		a->scr_first = (a->scr_first + 1) % UVC_ASM_SCR_SAMPLES;
	}
	return n;
}

void uvc_assembler_set_buffer(struct uvc_assembler *a, uint8_t *buf, size_t cap)
{
	a->spare = buf;
	a->spare_cap = buf ? cap : 0;
	uvc_assembler_set_mirror(a, NULL, 0);
}

void uvc_assembler_set_mirror(struct uvc_assembler *a, uint8_t *buf, size_t cap)
{
	a->spare_mirror = a->spare ? buf : NULL;
	a->spare_mirror_cap = a->spare_mirror ? cap : 0;
}

/* A frame's bytes so far, *bytes of them in from, moved to to (cap bytes):
 * how many did not fit, and are lost. */
static size_t move_bytes(const uint8_t *from, uint8_t *to, size_t cap, size_t *bytes)
{
	size_t keep = *bytes < cap ? *bytes : cap, lost = *bytes - keep;
	if (keep)
		memmove(to, from, keep);
	*bytes = keep;
	return lost;
}

/* move_buffer of a mirror: the frame's (its bytes so far kept) or the
 * spare's. */
static void move_mirror(struct uvc_assembler *a, const uint8_t *from, uint8_t *to, size_t cap)
{
	if (a->spare_mirror == from) {
		a->spare_mirror = to;
		a->spare_mirror_cap = to ? cap : 0;
	}
	if (a->frame.mirror != from)
		return;
	if (to)
		move_bytes(from, to, cap, &a->frame.mirror_bytes);
	a->frame.mirror = to;
	a->frame.mirror_cap = to ? cap : 0;
}

/* The frame in progress loses its buffer: it goes on in its mirror, whose
 * bytes are the frame's (less what the mirror could not hold). */
static void frame_to_mirror(struct uvc_assembler *a)
{
	if (a->frame.mirror_bytes < a->frame.bytes) {
		a->frame.flags |= UVC_ASM_ERR_OVERFLOW;
		a->stats.bytes_overflow += a->frame.bytes - a->frame.mirror_bytes;
	}
	a->frame.buf = a->frame.mirror;
	a->frame.cap = a->frame.mirror_cap;
	a->frame.bytes = a->frame.mirror_bytes;
	a->frame.mirror = NULL;
	a->frame.mirror_cap = a->frame.mirror_bytes = 0;
}

void uvc_assembler_move_buffer(struct uvc_assembler *a, const uint8_t *from, uint8_t *to,
			       size_t cap)
{
	if (!from)
		return;
	if (a->spare == from) {
		a->spare = to;
		a->spare_cap = to ? cap : 0;
		if (!to)
			uvc_assembler_set_mirror(a, NULL, 0);
	}
	move_mirror(a, from, to, cap);
	if (a->frame.buf != from)
		return;
	if (!to && a->frame.mirror) {
		frame_to_mirror(a);
		return;
	}
	size_t lost = to ? move_bytes(from, to, cap, &a->frame.bytes) : 0;
	if (lost) {
		a->frame.flags |= UVC_ASM_ERR_OVERFLOW;
		a->stats.bytes_overflow += lost;
	}
	a->frame.buf = to;
	a->frame.cap = to ? cap : 0;
}

bool uvc_assembler_writing(const struct uvc_assembler *a, const uint8_t *buf, uint64_t *sequence)
{
	if (!buf || !a->frame.active || a->frame.buf != buf)
		return false;
	*sequence = a->frame.sequence;
	return true;
}

void uvc_assembler_set_expected(struct uvc_assembler *a, size_t bytes)
{
	a->expected = bytes;
}

/* Ends the frame in progress: deliver, drop or count it. */
static void frame_complete(struct uvc_assembler *a, bool eof)
{
	struct uvc_frame_event ev = {
		.buf = a->frame.buf, .cap = a->frame.cap, .bytesused = a->frame.bytes,
		.mirror = a->frame.mirror, .mirror_bytes = a->frame.mirror_bytes,
		.flags = a->frame.flags, .fid = a->frame.fid,
		.has_pts = a->frame.has_pts, .has_scr = a->frame.has_scr,
		.pts = a->frame.pts, .scr_stc = a->frame.scr_stc, .scr_sof = a->frame.scr_sof,
		.sequence = a->frame.sequence, .start_ns = a->frame.start_ns,
	};
	size_t mirror_cap = a->frame.mirror_cap;
	a->frame.active = false;
	a->frame.buf = a->frame.mirror = NULL; /* a finished frame holds neither */
	if (!ev.buf) {
		a->stats.frames_no_buffer++;
		return;
	}
	if (!eof)
		ev.flags |= UVC_ASM_NO_EOF;
	if (a->expected && ev.bytesused != a->expected)
		ev.flags |= UVC_ASM_ERR_SIZE;
	ev.error = ev.flags & UVC_ASM_ERR_MASK;
	if (ev.error && a->drop_errors) {
		a->stats.frames_dropped++;
		if (!a->spare) {
			a->spare = ev.buf;
			a->spare_cap = ev.cap;
			uvc_assembler_set_mirror(a, ev.mirror, mirror_cap);
			return;
		}
		ev.flags |= UVC_ASM_DROPPED;
		ev.bytesused = 0;
	}
	a->stats.frames_delivered++;
	if (ev.error)
		a->stats.frames_error++;
	if (a->cb)
		a->cb(a->opaque, &ev);
}

static void frame_start(struct uvc_assembler *a)
{
	const struct uvc_payload_header *h = &a->hdr;
	if (!a->spare && a->need_buffer)
		a->need_buffer(a->opaque);
	memset(&a->frame, 0, sizeof(a->frame));
	a->frame.active = true;
	a->frame.fid = h->fid;
	a->frame.buf = a->spare;
	a->frame.cap = a->spare_cap;
	a->frame.mirror = a->spare_mirror;
	a->frame.mirror_cap = a->spare_mirror_cap;
	a->spare = NULL;
	a->spare_cap = 0;
	a->spare_mirror = NULL;
	a->spare_mirror_cap = 0;
	a->frame.sequence = a->sequence++;
	a->frame.start_ns = a->now_ns;
	if (a->pending_err_fid == (int)h->fid)
		a->frame.flags |= UVC_ASM_ERR_DEVICE;
	a->pending_err_fid = -1;
	if (a->pending_lost)
		a->frame.flags |= UVC_ASM_ERR_LOST;
	a->pending_lost = false;
}

/* The current payload's header fields that belong to the frame. */
static void header_to_frame(struct uvc_assembler *a)
{
	const struct uvc_payload_header *h = &a->hdr;
	if (h->error)
		a->frame.flags |= UVC_ASM_ERR_DEVICE;
	if (h->has_scr) {
		a->frame.has_scr = true;
		a->frame.scr_stc = h->scr_stc;
		a->frame.scr_sof = h->scr_sof;
	}
	if (h->has_pts && !a->frame.has_pts) {
		a->frame.has_pts = true;
		a->frame.pts = h->pts;
	}
}

/* A valid header arrived (a->hdr): a FID toggle ends the frame in progress. */
static void payload_begin(struct uvc_assembler *a)
{
	a->stats.payloads++;
	a->in_payload = true;
	if (a->frame.active && a->hdr.fid != a->frame.fid)
		frame_complete(a, false);
	if (a->frame.active)
		header_to_frame(a);
}

/* Data of the current payload. Starts a frame when in sync. */
static void payload_data(struct uvc_assembler *a, const uint8_t *p, size_t n)
{
	if (!n || !a->in_payload)
		return;
	/* the clock's sample: a payload with data (some cameras put no real
	 * SCR in their empty ones; uvcvideo ignores those too) */
	if (a->hdr.has_scr) {
		a->transfer_has_scr = true;
		a->transfer_scr = a->hdr.scr_stc;
	}
	if (!a->frame.active) {
		if (a->last_fid == (int)a->hdr.fid) {
			/* The rest of a finished frame: wait for the FID to toggle
			 * (a camera that never toggles it: for the EOF). */
			a->stats.payloads_skipped++;
			a->in_payload = false;
			if (a->no_fid && a->hdr.eof)
				a->last_fid = !a->hdr.fid;
			return;
		}
		/* after a bulk payload lost between frames: a payload of the
		 * FID before it is the next frame (the lost one was a frame of its
		 * own: counted, its number skipped); of the other FID, the rest
		 * of the lost frame, errored */
		bool rest_of_lost = a->lost_fid >= 0 && (int)a->hdr.fid != a->lost_fid;
		if (a->lost_fid >= 0 && !rest_of_lost) {
			a->stats.frames_dropped++;
			a->sequence++;
		}
		a->lost_fid = -1;
		frame_start(a);
		if (rest_of_lost)
			a->frame.flags |= UVC_ASM_ERR_INVALID;
		a->last_fid = a->hdr.fid;
		header_to_frame(a);
	}
	if (!a->frame.buf)
		return;
	if (a->frame.mirror) {
		size_t mroom = a->frame.mirror_cap - a->frame.mirror_bytes;
		size_t m = n < mroom ? n : mroom;
		if (m)
			memcpy(a->frame.mirror + a->frame.mirror_bytes, p, m);
		a->frame.mirror_bytes += m;
	}
	size_t room = a->frame.cap - a->frame.bytes;
	size_t copy = n < room ? n : room;
	if (copy)
		memcpy(a->frame.buf + a->frame.bytes, p, copy);
	a->frame.bytes += copy;
	if (copy < n) {
		a->frame.flags |= UVC_ASM_ERR_OVERFLOW;
		a->stats.bytes_overflow += n - copy;
	}
}

static void payload_end(struct uvc_assembler *a)
{
	if (!a->in_payload)
		return;
	a->in_payload = false;
	if (a->frame.active) {
		if (a->hdr.eof) {
			frame_complete(a, true);
			/* as uvcvideo: the next payload, same FID, is a new frame */
			if (a->no_fid)
				a->last_fid = !a->hdr.fid;
		}
	} else if (a->hdr.error && a->last_fid != (int)a->hdr.fid) {
		/* Header-only ERR ahead of the next frame's data. */
		a->pending_err_fid = a->hdr.fid;
	}
}

/* A payload with a bad header: what it carried is lost. */
static int payload_invalid(struct uvc_assembler *a)
{
	a->stats.payloads_invalid++;
	a->in_payload = false;
	if (a->frame.active)
		a->frame.flags |= UVC_ASM_ERR_INVALID;
	return -EINVAL;
}

void uvc_assembler_packet_lost(struct uvc_assembler *a)
{
	a->stats.packets_lost++;
	/* a bulk payload in progress ends with it: what comes next is a header */
	a->in_payload = false;
	a->bulk_state = UVC_BULK_IDLE;
	a->bulk_hdr_len = 0;
	if (a->frame.active)
		a->frame.flags |= UVC_ASM_ERR_LOST;
	else
		a->pending_lost = true;
}

/* The header just begun goes to the metadata writer, as uvcvideo records
 * it: when a buffer takes its payload (the frame's, or the spare that a
 * new FID starts), not for the rest of a finished frame. */
static void record_header(struct uvc_assembler *a, const uint8_t *packet, size_t len)
{
	if (!a->meta || !a->in_payload)
		return;
	bool takes = a->frame.active ? a->frame.buf != NULL
				     : a->spare != NULL && a->last_fid != (int)a->hdr.fid;
	if (takes)
		uvc_meta_header(a->meta, packet, len, a->now_ns, uvc_meta_sof_of(a->now_ns));
}

int uvc_assembler_packet(struct uvc_assembler *a, const uint8_t *data, size_t len)
{
	if (!len)
		return 0;
	if (uvc_payload_parse(data, len, &a->hdr) < 0)
		return payload_invalid(a);
	payload_begin(a);
	record_header(a, data, len);
	payload_data(a, data + a->hdr.length, len - a->hdr.length);
	payload_end(a);
	return 0;
}

/* A bulk payload with a bad header. Between frames its frame is lost with
 * it, FID unknown: the next payload starts a frame whatever its FID, and
 * payload_data() decides from that FID whether the lost payload was a
 * frame of its own (bulk cameras often send a frame as one payload:
 * waiting for a FID toggle, as uvcvideo does, would lose the good frame
 * after it too) or the start of the frame that follows. Isochronous
 * streams are left as uvcvideo has them: their header-only packets between
 * frames make a bad packet there no sign of a lost frame. */
static int bulk_payload_invalid(struct uvc_assembler *a)
{
	if (!a->frame.active && a->last_fid >= 0 && a->lost_fid < 0) {
		a->lost_fid = a->last_fid;
		a->last_fid = -1;
	}
	return payload_invalid(a);
}

int uvc_assembler_bulk(struct uvc_assembler *a, const uint8_t *data, size_t len,
		       bool transfer_end)
{
	int ret = 0;
	if (!data)
		len = 0;
	switch (a->bulk_state) {
	case UVC_BULK_IDLE:
	case UVC_BULK_HEADER: {
		if (!len)
			break;
		if (a->bulk_state == UVC_BULK_IDLE) {
			a->bulk_hdr_len = 0;
			a->bulk_state = UVC_BULK_HEADER;
		}
		/* bulk_hdr[0] is bHeaderLength once the first byte is in. */
		size_t want = a->bulk_hdr_len ? a->bulk_hdr[0] : 1;
		while (len && a->bulk_hdr_len < want) {
			a->bulk_hdr[a->bulk_hdr_len++] = *data++;
			len--;
			if (a->bulk_hdr_len == 1) {
				want = a->bulk_hdr[0];
				if (want < 2) {
					ret = bulk_payload_invalid(a);
					a->bulk_state = UVC_BULK_SKIP;
					goto out;
				}
			}
		}
		if (a->bulk_hdr_len < want)
			break;
		if (uvc_payload_parse(a->bulk_hdr, a->bulk_hdr_len, &a->hdr) < 0) {
			ret = bulk_payload_invalid(a);
			a->bulk_state = UVC_BULK_SKIP;
			goto out;
		}
		payload_begin(a);
		record_header(a, a->bulk_hdr, a->bulk_hdr_len);
		a->bulk_state = UVC_BULK_DATA;
	}
		/* fall through */
	case UVC_BULK_DATA:
		payload_data(a, data, len);
		break;
	case UVC_BULK_SKIP:
		break;
	}
out:
	if (transfer_end) {
		if (a->bulk_state == UVC_BULK_HEADER)
			ret = bulk_payload_invalid(a); /* truncated header */
		else if (a->bulk_state == UVC_BULK_DATA)
			payload_end(a);
		a->bulk_state = UVC_BULK_IDLE;
		a->bulk_hdr_len = 0;
	}
	return ret;
}

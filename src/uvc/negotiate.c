/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The probe negotiation over a request function (negotiate.h). */
#include "uvc/negotiate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/usb/video.h>

#include "uvc/quirks.h"

const char *uvc_query_name(uint8_t query)
{
	switch (query) {
	case UVC_SET_CUR:
		return "SET_CUR";
	case UVC_GET_CUR:
		return "GET_CUR";
	case UVC_GET_MIN:
		return "GET_MIN";
	case UVC_GET_MAX:
		return "GET_MAX";
	case UVC_GET_RES:
		return "GET_RES";
	case UVC_GET_LEN:
		return "GET_LEN";
	case UVC_GET_INFO:
		return "GET_INFO";
	case UVC_GET_DEF:
		return "GET_DEF";
	default:
		return "?";
	}
}

static uint32_t max_alt_bytes(const struct uvc_streaming *vs)
{
	uint32_t m = 0;
	for (unsigned i = 0; i < vs->n_alts; i++)
		if (vs->alts[i].bytes > m)
			m = vs->alts[i].bytes;
	return m;
}

unsigned uvc_probe_fixup(const struct uvc_streaming *vs, struct uvc_probe *p)
{
	unsigned fixed = 0;
	const struct uvc_format *fmt = uvc_stream_find_format(vs, p->format_index);
	const struct uvc_frame *fr = uvc_format_find_frame(fmt, p->frame_index);
	if (fr && fr->max_buffer_size) {
		/* uvcvideo's UVC_FMT_FLAG_COMPRESSED: MJPEG, variable-size
		 * frame-based formats. */
		bool compressed = fmt->kind == UVC_FORMAT_MJPEG ||
				  (fmt->kind == UVC_FORMAT_FRAME_BASED && fmt->flags);
		if ((!compressed || p->max_video_frame_size == 0) &&
		    p->max_video_frame_size != fr->max_buffer_size) {
			p->max_video_frame_size = fr->max_buffer_size;
			fixed |= UVC_FIXUP_FRAME_SIZE;
		}
	}
	/* A Chicony camera sign-extends a 16-bit bandwidth (uvcvideo). */
	if ((p->max_payload_transfer_size & 0xffff0000u) == 0xffff0000u) {
		p->max_payload_transfer_size &= 0xffffu;
		fixed |= UVC_FIXUP_PAYLOAD_SIGN;
	}
	/* FIX_BANDWIDTH: cameras that ask for their largest alternate setting
	 * whatever the format; uvcvideo estimates uncompressed streams itself,
	 * per service interval (a 125 us microframe at high speed and faster,
	 * a 1 ms frame at full speed), plus a 12-byte header, and never below
	 * 1024 bytes. */
	/* (uvcvideo: more than one alternate setting, alt 0 included; our
	 * list leaves alt 0 out. Uncompressed: every format without
	 * UVC_FMT_FLAG_COMPRESSED, fixed-size frame-based ones too.) */
	bool uncompressed = fmt && (fmt->kind == UVC_FORMAT_UNCOMPRESSED ||
				    (fmt->kind == UVC_FORMAT_FRAME_BASED && !fmt->flags));
	if ((vs->quirks & UVC_QUIRK_FIX_BANDWIDTH) && fr && vs->n_alts >= 1 && uncompressed) {
		uint32_t interval = p->interval > 100000 ? p->interval
				    : fr->n_intervals     ? fr->intervals[0]
							  : fr->range.min;
		uint64_t bw = (uint64_t)fr->width * fr->height / 8 * fmt->bpp;
		bw *= 10000000u / (interval ? interval : 1) + 1;
		bw /= 1000;
		if (!vs->full_speed)
			bw /= 8;
		bw += 12;
		p->max_payload_transfer_size = bw < 1024 ? 1024 : (uint32_t)bw;
		fixed |= UVC_FIXUP_BANDWIDTH;
	}
	if (vs->transfer == UVC_TRANSFER_ISOCHRONOUS && vs->n_alts) {
		uint32_t m = max_alt_bytes(vs);
		if (p->max_payload_transfer_size == 0 || p->max_payload_transfer_size > m) {
			p->max_payload_transfer_size = m;
			fixed |= UVC_FIXUP_PAYLOAD_ISO;
		}
	}
	return fixed;
}

int uvc_probe_read(const struct uvc_streaming *vs, uint16_t bcd_uvc, uvc_vs_request_fn req,
		   void *ctx, uint8_t query, struct uvc_probe *p, struct uvc_probe_notes *notes)
{
	size_t size = uvc_probe_size(bcd_uvc);
	uint8_t buf[48] = { 0 };
	if (query == UVC_GET_DEF && (vs->quirks & UVC_QUIRK_PROBE_DEF))
		return -EIO; /* the camera is known to fail it: not asked */
	int r = req(ctx, query, UVC_VS_PROBE_CONTROL, buf, (uint16_t)size);
	if (r < 0)
		return r;
	if ((query == UVC_GET_MIN || query == UVC_GET_MAX) && r == 2) {
		/* Bison-based cameras answer with wCompQuality only (uvcvideo). */
		memset(p, 0, sizeof(*p));
		p->comp_quality = (uint16_t)(buf[0] | buf[1] << 8);
		return 0;
	}
	/* A shorter layout of an older UVC version is accepted (UVC 1.1
	 * cameras answering 26 bytes); anything else is not a probe. */
	if ((size_t)r != size && !((r == 26 || r == 34) && (size_t)r < size)) {
		notes->bad_length_query = query;
		notes->bad_length = r;
		return -EIO;
	}
	return uvc_probe_decode(buf, (size_t)r, p);
}

int uvc_probe_write(uint16_t bcd_uvc, uvc_vs_request_fn req, void *ctx, bool commit,
		    const struct uvc_probe *p, struct uvc_probe_notes *notes)
{
	size_t size = uvc_probe_size(bcd_uvc);
	uint8_t buf[48];
	uvc_probe_encode(p, buf, size);
	int r = req(ctx, UVC_SET_CUR, commit ? UVC_VS_COMMIT_CONTROL : UVC_VS_PROBE_CONTROL, buf,
		    (uint16_t)size);
	if (r < 0)
		return r;
	if ((size_t)r != size) {
		notes->set_short = true;
		return -EIO;
	}
	return 0;
}

/* GET_CUR of the probe, or, for cameras that refuse it, what was set with
 * the camera's fields (sizes, clock, framing) from GET_DEF (same format and
 * frame) or GET_MAX. */
static int probe_get_cur(const struct uvc_streaming *vs, uint16_t bcd, uvc_vs_request_fn req,
			 void *ctx, struct uvc_probe *p, struct uvc_probe_notes *notes)
{
	int r = uvc_probe_read(vs, bcd, req, ctx, UVC_GET_CUR, p, notes);
	if (r == 0 || r == -ENODEV || r == -ETIMEDOUT || r == -EINPROGRESS)
		return r;
	notes->cur_error = r;
	static const uint8_t fallbacks[] = { UVC_GET_DEF, UVC_GET_MAX };
	for (size_t i = 0; i < sizeof(fallbacks); i++) {
		struct uvc_probe q;
		if (fallbacks[i] == UVC_GET_MAX && (vs->quirks & UVC_QUIRK_PROBE_MINMAX))
			continue; /* the camera is known to fail it */
		int e = uvc_probe_read(vs, bcd, req, ctx, fallbacks[i], &q, notes);
		if (e == -EINPROGRESS || e == -ENODEV)
			return e;
		if (e < 0)
			continue;
		if (fallbacks[i] == UVC_GET_DEF &&
		    (q.format_index != p->format_index || q.frame_index != p->frame_index))
			continue;
		notes->cur_fallback = fallbacks[i];
		p->max_video_frame_size = q.max_video_frame_size;
		p->max_payload_transfer_size = q.max_payload_transfer_size;
		p->clock_frequency = q.clock_frequency;
		p->framing_info = q.framing_info;
		p->preferred_version = q.preferred_version;
		p->min_version = q.min_version;
		p->max_version = q.max_version;
		return 0;
	}
	return r;
}

int uvc_probe_negotiate(const struct uvc_streaming *vs, uint16_t bcd_uvc, uvc_vs_request_fn req,
			void *ctx, const struct uvc_probe *want, struct uvc_probe *got,
			struct uvc_probe_notes *notes)
{
	memset(notes, 0, sizeof(*notes));
	struct uvc_probe probe = *want, min, max;
	int r = uvc_probe_write(bcd_uvc, req, ctx, false, &probe, notes);
	if (r < 0)
		return r;
	/* The compression range, to lower the quality when the camera asks
	 * for more bandwidth than the endpoint has (first-generation Logitech
	 * cameras, uvcvideo). Cameras that refuse GET_MIN/MAX (uvcvideo's
	 * PROBE_MINMAX quirk) are taken as they answer. */
	bool ask_minmax = !(vs->quirks & UVC_QUIRK_PROBE_MINMAX);
	int rmin = ask_minmax ? uvc_probe_read(vs, bcd_uvc, req, ctx, UVC_GET_MIN, &min, notes)
			      : -EIO;
	if (rmin == -EINPROGRESS || rmin == -ENODEV)
		return rmin;
	int rmax = rmin ? rmin : uvc_probe_read(vs, bcd_uvc, req, ctx, UVC_GET_MAX, &max, notes);
	if (rmax == -EINPROGRESS || rmax == -ENODEV)
		return rmax;
	bool minmax = rmin == 0 && rmax == 0;
	if (minmax)
		probe.comp_quality = max.comp_quality;
	uint32_t maxpsize = max_alt_bytes(vs);
	for (int i = 0; i < 2; i++) {
		r = uvc_probe_write(bcd_uvc, req, ctx, false, &probe, notes);
		if (r < 0)
			return r;
		r = probe_get_cur(vs, bcd_uvc, req, ctx, &probe, notes);
		if (r < 0)
			return r;
		if (vs->transfer == UVC_TRANSFER_BULK)
			break;
		uint32_t bw = probe.max_payload_transfer_size;
		if ((bw & 0xffff0000u) == 0xffff0000u)
			bw &= 0xffffu;
		if (bw <= maxpsize || !minmax)
			break;
		notes->asked_bandwidth = bw;
		notes->endpoint_bandwidth = maxpsize;
		probe.key_frame_rate = min.key_frame_rate;
		probe.p_frame_rate = min.p_frame_rate;
		probe.comp_quality = min.comp_quality;
		probe.comp_window_size = min.comp_window_size;
	}
	notes->fixed = uvc_probe_fixup(vs, &probe);
	*got = probe;
	return 0;
}

void uvc_probe_notes_describe(const struct uvc_probe_notes *notes, const struct uvc_probe *got,
			      void (*line)(void *ctx, const char *text), void *ctx)
{
	char text[160];
	if (notes->bad_length_query) {
		snprintf(text, sizeof(text), "%s(PROBE) answered %d bytes, which no UVC version has",
			 uvc_query_name(notes->bad_length_query), notes->bad_length);
		line(ctx, text);
	}
	if (notes->set_short) {
		snprintf(text, sizeof(text), "SET_CUR(PROBE) took fewer bytes than sent");
		line(ctx, text);
	}
	if (notes->cur_error) {
		if (notes->cur_fallback)
			snprintf(text, sizeof(text), "GET_CUR(PROBE) refused (%s); using %s's sizes",
				 strerror(-notes->cur_error), uvc_query_name(notes->cur_fallback));
		else
			snprintf(text, sizeof(text), "GET_CUR(PROBE): %s",
				 strerror(-notes->cur_error));
		line(ctx, text);
	}
	if (notes->asked_bandwidth) {
		snprintf(text, sizeof(text),
			 "camera asks %u bytes per interval, the endpoint has %u: lowering quality",
			 notes->asked_bandwidth, notes->endpoint_bandwidth);
		line(ctx, text);
	}
	if (notes->fixed & UVC_FIXUP_FRAME_SIZE) {
		snprintf(text, sizeof(text),
			 "probe: dwMaxVideoFrameSize taken from the frame descriptor (%u)",
			 got->max_video_frame_size);
		line(ctx, text);
	}
	if (notes->fixed & (UVC_FIXUP_PAYLOAD_SIGN | UVC_FIXUP_PAYLOAD_ISO | UVC_FIXUP_BANDWIDTH)) {
		snprintf(text, sizeof(text), "probe: dwMaxPayloadTransferSize repaired to %u",
			 got->max_payload_transfer_size);
		line(ctx, text);
	}
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The probe negotiation with a camera as uvcvideo makes it (uvc_probe_video,
 * uvc_get_video_ctrl, uvc_set_video_ctrl, uvc_fixup_video_ctrl), over a
 * request function. The same steps run synchronously (start-up, tools) or
 * through the node's journal (an asynchronous call: the function answers
 * -EINPROGRESS and the negotiation stops, to be run again once the camera
 * has answered). Pure: what a caller may want to log comes back as notes. */
#ifndef UVC_NEGOTIATE_H
#define UVC_NEGOTIATE_H

#include <stdbool.h>
#include <stdint.h>

#include "uvc/descriptors.h"
#include "uvc/probe.h"

/* "GET_CUR", "SET_CUR"... for a request code, "?" for others. */
const char *uvc_query_name(uint8_t query);

/* One request of the probe (UVC_VS_PROBE_CONTROL) or commit control on the
 * streaming interface: GET_* reads up to len bytes into data, SET_CUR sends
 * len bytes. The bytes moved, or -errno; -EINPROGRESS: no answer yet. */
typedef int (*uvc_vs_request_fn)(void *ctx, uint8_t query, uint8_t selector, uint8_t *data,
				 uint16_t len);

/* uvcvideo's repair of a probe answer (uvc_fixup_video_ctrl, plus the
 * bounds of the negotiation): uncompressed formats take the frame
 * descriptor's buffer size, compressed ones when the camera says 0; a
 * sign-extended 16-bit payload size (0xffffXXXX) is cut to 16 bits; for
 * isochronous streams a payload size of 0 or above the largest alternate
 * setting becomes that largest one. Returns what it changed (UVC_FIXUP_*),
 * 0 for a sound answer. */
#define UVC_FIXUP_FRAME_SIZE   (1u << 0)
#define UVC_FIXUP_PAYLOAD_SIGN (1u << 1)
#define UVC_FIXUP_PAYLOAD_ISO  (1u << 2)
#define UVC_FIXUP_BANDWIDTH    (1u << 3) /* the FIX_BANDWIDTH quirk's estimate */
unsigned uvc_probe_fixup(const struct uvc_streaming *vs, struct uvc_probe *p);

/* What a negotiation met, for the caller's log. */
struct uvc_probe_notes {
	unsigned fixed;             /* UVC_FIXUP_* applied to the final answer */
	uint8_t cur_fallback;       /* GET_CUR refused: the sizes of UVC_GET_DEF or _MAX, or 0 */
	int cur_error;              /* why GET_CUR was refused (with or without a fallback) */
	uint32_t asked_bandwidth;   /* not 0: more than the endpoint's, quality lowered */
	uint32_t endpoint_bandwidth;
	uint8_t bad_length_query;   /* an answer of a length no UVC version has, or 0 */
	int bad_length;
	bool set_short;             /* SET_CUR took fewer bytes than sent */
};

/* GET_* (query) of the probe control, decoded: cameras that answer the
 * shorter layout of an older UVC version are accepted, Bison-based ones
 * answering GET_MIN/GET_MAX with wCompQuality alone too. No repair. */
int uvc_probe_read(const struct uvc_streaming *vs, uint16_t bcd_uvc, uvc_vs_request_fn req,
		   void *ctx, uint8_t query, struct uvc_probe *p, struct uvc_probe_notes *notes);
/* SET_CUR of the probe (commit false) or commit control. -EIO when the
 * camera took fewer bytes. */
int uvc_probe_write(uint16_t bcd_uvc, uvc_vs_request_fn req, void *ctx, bool commit,
		    const struct uvc_probe *p, struct uvc_probe_notes *notes);
/* SET_CUR probe with want, then GET_MIN/GET_MAX (for cameras that ask more
 * bandwidth than the endpoint has, the quality is lowered and the probe set
 * again, as for first-generation Logitech cameras), GET_CUR into got with
 * GET_DEF/GET_MAX fallbacks for cameras that refuse it, and the repairs of
 * uvc_probe_fixup. 0, the request's -errno, or -EINPROGRESS. */
int uvc_probe_negotiate(const struct uvc_streaming *vs, uint16_t bcd_uvc, uvc_vs_request_fn req,
			void *ctx, const struct uvc_probe *want, struct uvc_probe *got,
			struct uvc_probe_notes *notes);

/* The notes as log lines (without a trailing newline), one call of line
 * each; got is the negotiated probe. */
void uvc_probe_notes_describe(const struct uvc_probe_notes *notes, const struct uvc_probe *got,
			      void (*line)(void *ctx, const char *text), void *ctx);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probe/commit replies (src/uvc/probe.c) and what the daemon does with one
 * (uvc_probe_fixup, usb_stream_plan) over every vcam profile's
 * streaming interface. Input: a profile byte, then the reply's bytes. */
#include "fuzz.h"

#include "usb/usb.h"
#include "uvc/negotiate.h"
#include "uvc/descriptors.h"
#include "uvc/probe.h"
#include "vcam_cameras.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	const struct uvc_camera *cam = vcam_camera(fuzz_u8(&in));
	const uint8_t *reply;
	size_t len = fuzz_take(&in, in.n, &reply);

	struct uvc_probe p;
	memset(&p, 0xa5, sizeof(p));
	int r = uvc_probe_decode(reply, len, &p);
	if (len != 26 && len != 34 && len != 48) {
		FUZZ_CHECK(r == -EINVAL);
		return 0;
	}
	FUZZ_CHECK(r == 0);
	/* Every byte is a field: encoding gives the reply back. */
	uint8_t again[48];
	uvc_probe_encode(&p, again, len);
	FUZZ_CHECK(memcmp(again, reply, len) == 0);
	FUZZ_CHECK(uvc_probe_size(cam->bcd_uvc) >= 26 && uvc_probe_size(cam->bcd_uvc) <= 48);

	const struct uvc_streaming *vs = &cam->streams[0];
	struct uvc_probe fixed = p;
	unsigned what = uvc_probe_fixup(vs, &fixed);
	FUZZ_CHECK(!(what & ~(UVC_FIXUP_FRAME_SIZE | UVC_FIXUP_PAYLOAD_SIGN | UVC_FIXUP_PAYLOAD_ISO)));
	/* A sound answer is left alone; a repaired one is sound. */
	struct uvc_probe twice = fixed;
	FUZZ_CHECK(uvc_probe_fixup(vs, &twice) == 0);
	if (!what)
		FUZZ_CHECK(memcmp(&fixed, &p, sizeof(p)) == 0);

	struct usb_stream_plan plan;
	r = usb_stream_plan(vs, &fixed, &plan);
	FUZZ_CHECK_ERRNO(r);
	if (r == 0) {
		FUZZ_CHECK(plan.iso == (vs->transfer == UVC_TRANSFER_ISOCHRONOUS));
		FUZZ_CHECK(plan.n_transfers >= 1);
		FUZZ_CHECK(plan.transfer_size > 0);
		if (plan.iso) {
			bool found = false;
			for (unsigned i = 0; i < vs->n_alts; i++)
				if (vs->alts[i].alt == plan.alt) {
					found = true;
					FUZZ_CHECK(vs->alts[i].bytes == plan.packet_size);
				}
			FUZZ_CHECK(found);
			FUZZ_CHECK(plan.packets >= 1 && plan.packets <= 32);
			FUZZ_CHECK(plan.transfer_size == plan.packets * plan.packet_size);
			FUZZ_CHECK(plan.n_transfers <= 16);
		} else {
			FUZZ_CHECK(plan.packets == 0);
			FUZZ_CHECK(plan.n_transfers <= 48);
			FUZZ_CHECK(plan.transfer_size % plan.packet_size == 0);
			FUZZ_CHECK(plan.transfer_size / plan.packet_size <= 32);
		}
	}
	return 0;
}

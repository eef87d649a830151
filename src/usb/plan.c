/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How a committed stream is carried: alternate setting and transfer sizes.
 * Pure (no libusb), so the unit suite checks it on every vcam profile. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "usb/internal.h"

/* Transfers in flight: uvcvideo's 5, or enough for a whole frame plus one,
 * so that a host that pauses (a loaded machine, a slow consumer) costs no
 * data while the camera has a frame to send. Real cameras pace packets
 * themselves (a 32-packet isochronous transfer lasts 4 ms), so the extra
 * transfers are only a reserve; on vhci-hcd, which does not pace, they let
 * the camera send a frame without waiting for the host. */
static unsigned transfers_for(uint64_t frame, uint32_t transfer_size, unsigned max)
{
	uint64_t per_frame = frame ? (frame + transfer_size - 1) / transfer_size : 0;
	if (per_frame + 1 <= USB_STREAM_TRANSFERS)
		return USB_STREAM_TRANSFERS;
	return per_frame + 1 > max ? max : (unsigned)per_frame + 1;
}

unsigned usb_stream_plan_fit(struct usb_stream_plan *plan, uint64_t budget)
{
	uint64_t need = (uint64_t)plan->n_transfers * plan->transfer_size;
	if (!budget || !plan->transfer_size || need <= budget)
		return 0;
	unsigned had = plan->n_transfers;
	uint64_t fit = budget / plan->transfer_size;
	plan->n_transfers = fit < USB_STREAM_MIN_TRANSFERS ? USB_STREAM_MIN_TRANSFERS : (unsigned)fit;
	if (plan->n_transfers > had)
		plan->n_transfers = had;
	return plan->n_transfers < had ? had : 0;
}

uint64_t usb_usbfs_budget(const char *sysfs_param)
{
	FILE *f = fopen(sysfs_param, "re");
	if (!f)
		return 0;
	unsigned long long mb = 0;
	if (fscanf(f, "%llu", &mb) != 1)
		mb = 0;
	fclose(f);
	return mb > UINT64_MAX / (1024 * 1024) ? 0 : (uint64_t)mb * 1024 * 1024;
}

int usb_stream_plan(const struct uvc_streaming *vs, const struct uvc_probe *committed,
		    struct usb_stream_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	if (!vs->endpoint || !vs->n_alts)
		return -EINVAL;
	uint64_t frame = committed->max_video_frame_size;
	if (vs->transfer == UVC_TRANSFER_ISOCHRONOUS) {
		plan->iso = true;
		/* uvc_init_video: a camera asking for nothing gets the lowest. */
		uint32_t need = committed->max_payload_transfer_size ? committed->max_payload_transfer_size
								      : 1;
		const struct uvc_alt *best = NULL;
		for (unsigned i = 0; i < vs->n_alts; i++) {
			const struct uvc_alt *a = &vs->alts[i];
			if (a->bytes >= need && (!best || a->bytes <= best->bytes))
				best = a;
		}
		if (!best)
			return -ENOSPC;
		plan->alt = best->alt;
		plan->packet_size = best->bytes;
		/* uvc_alloc_urb_buffers: enough packets for a frame, at most 32. */
		uint64_t packets = frame ? (frame + best->bytes - 1) / best->bytes
					 : USB_STREAM_MAX_PACKETS;
		if (packets > USB_STREAM_MAX_PACKETS)
			packets = USB_STREAM_MAX_PACKETS;
		plan->packets = (unsigned)packets;
		plan->transfer_size = plan->packets * plan->packet_size;
		plan->max_payload = best->bytes;
		plan->n_transfers = transfers_for(frame, plan->transfer_size, USB_ISO_MAX_TRANSFERS);
		return 0;
	}
	/* Bulk, as uvcvideo: transfers of the payload size in whole packets,
	 * at most 32 packets (a payload transfer may then span several). */
	uint32_t mps = vs->alts[0].bytes ? vs->alts[0].bytes : 512;
	uint64_t payload = committed->max_payload_transfer_size;
	uint64_t packets = payload ? (payload + mps - 1) / mps : USB_STREAM_MAX_PACKETS;
	if (packets > USB_STREAM_MAX_PACKETS)
		packets = USB_STREAM_MAX_PACKETS;
	plan->packet_size = mps;
	plan->transfer_size = (uint32_t)packets * mps;
	/* 0: the camera did not say; payload transfers then end at short
	 * transfers only. */
	plan->max_payload = committed->max_payload_transfer_size;
	plan->n_transfers = transfers_for(frame, plan->transfer_size, USB_BULK_MAX_TRANSFERS);
	return 0;
}

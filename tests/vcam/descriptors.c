/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Descriptor builders. Layout and field order follow USB 2.0/3.x chapter 9
 * and UVC 1.1/1.5 sections 3.7-3.10 and the payload specifications. */
#include "descriptors.h"

#include <errno.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>

#define USB_CLASS_VIDEO_ 0x0e
#define CS_INTERFACE 0x24
#define CS_ENDPOINT 0x25

struct writer {
	uint8_t *buf;
	size_t cap, len;
};

static void put8(struct writer *w, unsigned v)
{
	if (w->len < w->cap)
		w->buf[w->len] = (uint8_t)v;
	w->len++;
}

static void put16(struct writer *w, unsigned v)
{
	put8(w, v & 0xff);
	put8(w, (v >> 8) & 0xff);
}

static void put32(struct writer *w, uint32_t v)
{
	put16(w, v & 0xffff);
	put16(w, v >> 16);
}

static void put_bytes(struct writer *w, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put8(w, b[i]);
}

static void patch16(struct writer *w, size_t at, size_t v)
{
	if (at + 1 < w->cap) {
		w->buf[at] = v & 0xff;
		w->buf[at + 1] = (v >> 8) & 0xff;
	}
}

static ssize_t finish(const struct writer *w)
{
	return w->len <= w->cap ? (ssize_t)w->len : -ENOSPC;
}

/* Format GUIDs: FOURCC-0000-0010-8000-00AA00389B71, stored little endian. */
static void put_guid_fourcc(struct writer *w, const char fourcc[4])
{
	static const uint8_t tail[12] = { 0x00, 0x00, 0x10, 0x00, 0x80, 0x00,
					  0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71 };
	put_bytes(w, (const uint8_t *)fourcc, 4);
	put_bytes(w, tail, sizeof(tail));
}

uint32_t vcam_frame_buffer_size(enum vcam_pixel pixel, unsigned width, unsigned height)
{
	switch (pixel) {
	case VCAM_PIXEL_NV12:
		return width * height * 3 / 2;
	case VCAM_PIXEL_YUYV:
	case VCAM_PIXEL_MJPEG:
	case VCAM_PIXEL_H264:
	default:
		return width * height * 2;
	}
}

static bool super_speed(const struct vcam_profile *p)
{
	return p->speed == VCAM_SUPER_SPEED;
}

ssize_t vcam_device_descriptor(const struct vcam_profile *p, uint8_t *out, size_t cap)
{
	struct writer w = { out, cap, 0 };
	put8(&w, USB_DT_DEVICE_SIZE);
	put8(&w, USB_DT_DEVICE);
	put16(&w, super_speed(p) ? 0x0320 : 0x0200);
	/* Miscellaneous / common class / interface association, as UVC asks. */
	put8(&w, USB_CLASS_MISC);
	put8(&w, 0x02);
	put8(&w, 0x01);
	put8(&w, super_speed(p) ? 9 : 64); /* SuperSpeed: 2^9 = 512 */
	put16(&w, VCAM_VENDOR_ID);
	put16(&w, VCAM_PRODUCT_ID);
	put16(&w, p->bcd_uvc); /* bcdDevice: tells the profiles apart */
	put8(&w, VCAM_STR_MANUFACTURER);
	put8(&w, VCAM_STR_PRODUCT);
	put8(&w, VCAM_STR_SERIAL);
	put8(&w, 1);
	return finish(&w);
}

ssize_t vcam_qualifier_descriptor(const struct vcam_profile *p, uint8_t *out, size_t cap)
{
	struct writer w = { out, cap, 0 };
	if (super_speed(p))
		return -EINVAL; /* SuperSpeed devices have no qualifier */
	put8(&w, sizeof(struct usb_qualifier_descriptor));
	put8(&w, USB_DT_DEVICE_QUALIFIER);
	put16(&w, 0x0200);
	put8(&w, USB_CLASS_MISC);
	put8(&w, 0x02);
	put8(&w, 0x01);
	put8(&w, 64);
	put8(&w, 1);
	put8(&w, 0);
	return finish(&w);
}

ssize_t vcam_bos_descriptor(const struct vcam_profile *p, uint8_t *out, size_t cap)
{
	struct writer w = { out, cap, 0 };
	if (!super_speed(p))
		return -EINVAL;
	put8(&w, USB_DT_BOS_SIZE);
	put8(&w, USB_DT_BOS);
	size_t total = w.len;
	put16(&w, 0);
	put8(&w, 2);
	/* USB 2.0 extension: no LPM. */
	put8(&w, USB_DT_USB_EXT_CAP_SIZE);
	put8(&w, USB_DT_DEVICE_CAPABILITY);
	put8(&w, USB_CAP_TYPE_EXT);
	put32(&w, 0);
	/* SuperSpeed capability: full, high and SuperSpeed operation. */
	put8(&w, USB_DT_USB_SS_CAP_SIZE);
	put8(&w, USB_DT_DEVICE_CAPABILITY);
	put8(&w, USB_SS_CAP_TYPE);
	put8(&w, 0);
	put16(&w, USB_FULL_SPEED_OPERATION | USB_HIGH_SPEED_OPERATION | USB_5GBPS_OPERATION);
	put8(&w, 1); /* lowest speed with full functionality: full speed */
	put8(&w, 10);
	put16(&w, 256);
	patch16(&w, total, w.len);
	return finish(&w);
}

/* Endpoint descriptor, plus the SuperSpeed companion where the bus needs it. */
static void put_endpoint(struct writer *w, const struct vcam_profile *p, uint8_t address,
			 uint8_t attributes, uint16_t max_packet, uint8_t interval, uint8_t burst,
			 uint8_t mult, uint16_t bytes_per_interval)
{
	put8(w, USB_DT_ENDPOINT_SIZE);
	put8(w, USB_DT_ENDPOINT);
	put8(w, address);
	put8(w, attributes);
	put16(w, max_packet);
	put8(w, interval);
	if (super_speed(p)) {
		put8(w, USB_DT_SS_EP_COMP_SIZE);
		put8(w, USB_DT_SS_ENDPOINT_COMP);
		put8(w, burst - 1);
		put8(w, mult - 1);
		put16(w, bytes_per_interval);
	}
}

static void put_interface(struct writer *w, uint8_t number, uint8_t alt, uint8_t endpoints,
			  uint8_t subclass, uint8_t protocol, uint8_t string)
{
	put8(w, USB_DT_INTERFACE_SIZE);
	put8(w, USB_DT_INTERFACE);
	put8(w, number);
	put8(w, alt);
	put8(w, endpoints);
	put8(w, USB_CLASS_VIDEO_);
	put8(w, subclass);
	put8(w, protocol);
	put8(w, string);
}

static void put_video_control(struct writer *w, const struct vcam_identity *id)
{
	const struct vcam_profile *p = id->profile;
	uint8_t protocol = p->bcd_uvc >= 0x0150 ? UVC_PC_PROTOCOL_15 : 0;

	put_interface(w, VCAM_IF_CONTROL, 0, 1, UVC_SC_VIDEOCONTROL, protocol, VCAM_STR_PRODUCT);

	size_t start = w->len;
	put8(w, 13);
	put8(w, CS_INTERFACE);
	put8(w, UVC_VC_HEADER);
	put16(w, p->bcd_uvc);
	size_t total = w->len;
	put16(w, 0);
	put32(w, VCAM_CLOCK_HZ);
	put8(w, 1);
	put8(w, VCAM_IF_STREAMING);

	/* Camera terminal with a 3-byte bmControls. */
	put8(w, 15 + 3);
	put8(w, CS_INTERFACE);
	put8(w, UVC_VC_INPUT_TERMINAL);
	put8(w, VCAM_ID_CAMERA);
	put16(w, UVC_ITT_CAMERA);
	put8(w, 0);
	put8(w, 0);
	put16(w, 0); /* wObjectiveFocalLengthMin */
	put16(w, 0); /* wObjectiveFocalLengthMax */
	put16(w, 0); /* wOcularFocalLength */
	put8(w, 3);
	put8(w, id->ct_controls & 0xff);
	put8(w, (id->ct_controls >> 8) & 0xff);
	put8(w, (id->ct_controls >> 16) & 0xff);

	/* Processing unit; bmVideoStandards exists from UVC 1.1 on. */
	put8(w, 10 + 3);
	put8(w, CS_INTERFACE);
	put8(w, UVC_VC_PROCESSING_UNIT);
	put8(w, VCAM_ID_PROCESSING);
	put8(w, VCAM_ID_CAMERA);
	put16(w, 0); /* wMaxMultiplier: no digital zoom */
	put8(w, 3);
	put8(w, id->pu_controls & 0xff);
	put8(w, (id->pu_controls >> 8) & 0xff);
	put8(w, (id->pu_controls >> 16) & 0xff);
	put8(w, 0);
	put8(w, 0);

	/* Extension unit with a 2-byte bmControls. */
	put8(w, 24 + 1 + 2);
	put8(w, CS_INTERFACE);
	put8(w, UVC_VC_EXTENSION_UNIT);
	put8(w, VCAM_ID_EXTENSION);
	put_bytes(w, id->xu_guid, 16);
	put8(w, id->xu_count);
	put8(w, 1);
	put8(w, VCAM_ID_PROCESSING);
	put8(w, 2);
	put8(w, id->xu_controls & 0xff);
	put8(w, (id->xu_controls >> 8) & 0xff);
	put8(w, 0);

	put8(w, 9);
	put8(w, CS_INTERFACE);
	put8(w, UVC_VC_OUTPUT_TERMINAL);
	put8(w, VCAM_ID_OUTPUT);
	put16(w, UVC_TT_STREAMING);
	put8(w, 0);
	put8(w, VCAM_ID_EXTENSION);
	put8(w, 0);
	patch16(w, total, w->len - start);

	/* Status interrupt endpoint: every 16 ms at high speed (2^(8-1) uframes). */
	put_endpoint(w, p, VCAM_EP_STATUS, USB_ENDPOINT_XFER_INT, VCAM_STATUS_PACKET, 8, 1, 1,
		     VCAM_STATUS_PACKET);
	put8(w, 5);
	put8(w, CS_ENDPOINT);
	put8(w, UVC_EP_INTERRUPT);
	put16(w, VCAM_STATUS_PACKET);
}

static const char *pixel_fourcc(enum vcam_pixel pixel)
{
	switch (pixel) {
	case VCAM_PIXEL_YUYV:
		return "YUY2";
	case VCAM_PIXEL_NV12:
		return "NV12";
	case VCAM_PIXEL_H264:
		return "H264";
	case VCAM_PIXEL_MJPEG:
	default:
		return NULL;
	}
}

static void put_frame(struct writer *w, enum vcam_pixel pixel, uint8_t index,
		      const struct vcam_frame_size *f)
{
	uint32_t size = vcam_frame_buffer_size(pixel, f->width, f->height);
	uint32_t slowest = f->intervals[f->n_intervals - 1];
	uint32_t fastest = f->intervals[0];
	bool frame_based = pixel == VCAM_PIXEL_H264;
	uint8_t subtype = pixel == VCAM_PIXEL_MJPEG ? UVC_VS_FRAME_MJPEG
			  : frame_based		    ? UVC_VS_FRAME_FRAME_BASED
						    : UVC_VS_FRAME_UNCOMPRESSED;

	put8(w, 26 + 4 * f->n_intervals);
	put8(w, CS_INTERFACE);
	put8(w, subtype);
	put8(w, index);
	put8(w, 0); /* bmCapabilities: no still image, no fixed rate */
	put16(w, f->width);
	put16(w, f->height);
	put32(w, (uint32_t)((uint64_t)size * 8 * 10000000u / slowest));
	put32(w, (uint32_t)((uint64_t)size * 8 * 10000000u / fastest));
	if (!frame_based)
		put32(w, size); /* dwMaxVideoFrameBufferSize */
	put32(w, f->intervals[0]);
	put8(w, f->n_intervals);
	if (frame_based)
		put32(w, 0); /* dwBytesPerLine: variable-size frames */
	for (unsigned i = 0; i < f->n_intervals; i++)
		put32(w, f->intervals[i]);
}

static void put_format(struct writer *w, uint8_t index, const struct vcam_format *fmt,
		       uint8_t primaries)
{
	switch (fmt->pixel) {
	case VCAM_PIXEL_MJPEG:
		put8(w, 11);
		put8(w, CS_INTERFACE);
		put8(w, UVC_VS_FORMAT_MJPEG);
		put8(w, index);
		put8(w, fmt->n_frames);
		put8(w, 0); /* bmFlags: variable-size samples */
		put8(w, 1);
		put8(w, 0);
		put8(w, 0);
		put8(w, 0);
		put8(w, 0);
		break;
	case VCAM_PIXEL_H264:
		put8(w, 28);
		put8(w, CS_INTERFACE);
		put8(w, UVC_VS_FORMAT_FRAME_BASED);
		put8(w, index);
		put8(w, fmt->n_frames);
		put_guid_fourcc(w, pixel_fourcc(fmt->pixel));
		put8(w, 16);
		put8(w, 1);
		put8(w, 0);
		put8(w, 0);
		put8(w, 0);
		put8(w, 0);
		put8(w, 1); /* bVariableSize */
		break;
	case VCAM_PIXEL_YUYV:
	case VCAM_PIXEL_NV12:
	default:
		put8(w, 27);
		put8(w, CS_INTERFACE);
		put8(w, UVC_VS_FORMAT_UNCOMPRESSED);
		put8(w, index);
		put8(w, fmt->n_frames);
		put_guid_fourcc(w, pixel_fourcc(fmt->pixel));
		put8(w, fmt->pixel == VCAM_PIXEL_NV12 ? 12 : 16);
		put8(w, 1);
		put8(w, 0);
		put8(w, 0);
		put8(w, 0);
		put8(w, 0);
		break;
	}
	for (unsigned i = 0; i < fmt->n_frames; i++)
		put_frame(w, fmt->pixel, (uint8_t)(i + 1), &fmt->frames[i]);

	/* BT.709 primaries (or the identity's) and transfer, BT.601 matrix:
	 * what webcams send. */
	put8(w, 6);
	put8(w, CS_INTERFACE);
	put8(w, UVC_VS_COLORFORMAT);
	put8(w, primaries ? primaries : 1);
	put8(w, 1);
	put8(w, 4);
}

static void put_video_streaming(struct writer *w, const struct vcam_identity *id)
{
	const struct vcam_profile *p = id->profile;
	bool bulk = p->transfer == VCAM_BULK;

	put_interface(w, VCAM_IF_STREAMING, 0, bulk ? 1 : 0, UVC_SC_VIDEOSTREAMING, 0, 0);

	size_t start = w->len;
	put8(w, 13 + p->n_formats);
	put8(w, CS_INTERFACE);
	put8(w, UVC_VS_INPUT_HEADER);
	put8(w, p->n_formats);
	size_t total = w->len;
	put16(w, 0);
	put8(w, VCAM_EP_VIDEO);
	put8(w, 0); /* bmInfo: no dynamic format change */
	put8(w, VCAM_ID_OUTPUT);
	put8(w, 0); /* bStillCaptureMethod */
	put8(w, 0);
	put8(w, 0);
	put8(w, 1);
	for (unsigned i = 0; i < p->n_formats; i++)
		put8(w, 0);
	for (unsigned i = 0; i < p->n_formats; i++)
		put_format(w, (uint8_t)(i + 1), &p->formats[i], id->color_primaries);
	patch16(w, total, w->len - start);

	if (bulk) {
		uint16_t packet = vcam_profile_bulk_packet(p);
		put_endpoint(w, p, VCAM_EP_VIDEO, USB_ENDPOINT_XFER_BULK, packet, 0, 16, 1, 0);
		return;
	}
	for (unsigned i = 0; i < p->n_alts; i++) {
		const struct vcam_alt *alt = &p->alts[i];
		uint16_t max_packet = alt->max_packet;
		uint8_t burst = 1;
		if (super_speed(p))
			burst = alt->transactions;
		else
			max_packet |= (uint16_t)((alt->transactions - 1) << 11);
		put_interface(w, VCAM_IF_STREAMING, (uint8_t)(i + 1), 1, UVC_SC_VIDEOSTREAMING, 0,
			      0);
		put_endpoint(w, p, VCAM_EP_VIDEO, USB_ENDPOINT_XFER_ISOC | USB_ENDPOINT_SYNC_ASYNC,
			     max_packet, 1, burst, alt->mult, (uint16_t)vcam_alt_bytes(alt));
	}
}

ssize_t vcam_config_descriptor(const struct vcam_identity *id, uint8_t *out, size_t cap)
{
	struct writer w = { out, cap, 0 };
	const struct vcam_profile *p = id->profile;

	if (!p || !id->xu_guid)
		return -EINVAL;
	put8(&w, USB_DT_CONFIG_SIZE);
	put8(&w, USB_DT_CONFIG);
	put16(&w, 0);
	put8(&w, 2);
	put8(&w, 1);
	put8(&w, 0);
	put8(&w, USB_CONFIG_ATT_ONE);
	put8(&w, super_speed(p) ? 112 : 250); /* 896 mA (8 mA units) / 500 mA (2 mA units) */

	put8(&w, sizeof(struct usb_interface_assoc_descriptor));
	put8(&w, USB_DT_INTERFACE_ASSOCIATION);
	put8(&w, VCAM_IF_CONTROL);
	put8(&w, 2);
	put8(&w, USB_CLASS_VIDEO_);
	put8(&w, UVC_SC_VIDEO_INTERFACE_COLLECTION);
	put8(&w, 0);
	put8(&w, VCAM_STR_PRODUCT);

	put_video_control(&w, id);
	put_video_streaming(&w, id);
	patch16(&w, 2, w.len);
	return finish(&w);
}

ssize_t vcam_string_descriptor(const struct vcam_identity *id, uint8_t index, uint8_t *out,
			       size_t cap)
{
	struct writer w = { out, cap, 0 };
	const char *s;

	if (index == 0) {
		put8(&w, 4);
		put8(&w, USB_DT_STRING);
		put16(&w, 0x0409); /* English (US) */
		return finish(&w);
	}
	switch (index) {
	case VCAM_STR_MANUFACTURER:
		s = "uvcuse project";
		break;
	case VCAM_STR_PRODUCT:
		s = "uvcuse Virtual Camera";
		break;
	case VCAM_STR_SERIAL:
		s = id->serial;
		break;
	default:
		return -EINVAL;
	}
	size_t n = strlen(s);
	if (n > 126)
		n = 126; /* bLength is one byte */
	put8(&w, 2 + 2 * n);
	put8(&w, USB_DT_STRING);
	for (size_t i = 0; i < n; i++)
		put16(&w, (uint8_t)s[i]); /* ASCII as UTF-16LE */
	return finish(&w);
}

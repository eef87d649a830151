/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Packets of the camera's status interrupt endpoint (UVC 1.5 section
 * 2.4.2.2), parsed as uvcvideo 6.1 reads them (uvc_status.c:
 * uvc_status_complete, uvc_event_control, uvc_event_streaming). Pure: bytes
 * in, a description out; the daemon turns control changes into V4L2
 * control events (src/v4l2/node.c) and logs the rest.
 *
 *   VideoControl (bStatusType & 0x0f == 1):
 *     bStatusType bOriginator bEvent bSelector bAttribute bValue...
 *     uvcvideo takes it when it has at least 6 bytes (one value byte),
 *     bEvent 0 (control change) and bAttribute 0..4 (value, info, failure,
 *     min, max); it acts on value changes only.
 *   VideoStreaming (bStatusType & 0x0f == 2):
 *     bStatusType bOriginator bEvent bValue...
 *     at least 3 bytes; bEvent 0 is a button (bValue[0]: 1 pressed,
 *     0 released, needs 4 bytes), others a stream error code.
 * Anything else is ignored (with a reason for the log). */
#ifndef UVC_STATUS_H
#define UVC_STATUS_H

#include <stddef.h>
#include <stdint.h>

/* uvcvideo's UVC_MAX_STATUS_SIZE: its status URB's buffer. */
#define UVC_STATUS_MAX_SIZE 16

enum uvc_status_kind {
	UVC_STATUS_IGNORED,        /* nothing to act on: see why */
	UVC_STATUS_CONTROL,        /* a control change (attribute says what changed) */
	UVC_STATUS_BUTTON,         /* streaming interface button */
	UVC_STATUS_STREAM_ERROR,   /* streaming interface event other than a button */
};

/* bAttribute of a control change. */
enum uvc_status_attribute {
	UVC_STATUS_ATTR_VALUE = 0,
	UVC_STATUS_ATTR_INFO = 1,
	UVC_STATUS_ATTR_FAILURE = 2,
	UVC_STATUS_ATTR_MIN = 3,
	UVC_STATUS_ATTR_MAX = 4,
};

struct uvc_status {
	enum uvc_status_kind kind;
	uint8_t type;          /* bStatusType & 0x0f */
	uint8_t originator;    /* bOriginator: unit/terminal ID, or interface number */
	uint8_t event;         /* bEvent */
	uint8_t selector;      /* control changes: bSelector */
	uint8_t attribute;     /* control changes: bAttribute */
	const uint8_t *value;  /* bValue (points into the packet) */
	size_t value_len;      /* bytes of bValue the packet carries */
	uint8_t pressed;       /* buttons: 1 pressed, 0 released */
	const char *why;       /* UVC_STATUS_IGNORED: the reason, for a log line */
	int malformed;         /* ignored because the packet breaks the spec
			        * (short, unknown attribute or type), not
			        * merely because there is nothing to do */
};

/* Parses one packet of len bytes (0 is a valid, empty completion). Never
 * reads beyond len. Returns s->kind. */
enum uvc_status_kind uvc_status_parse(const uint8_t *packet, size_t len, struct uvc_status *s);

/* "value", "info", "failure", "min", "max", or "?". */
const char *uvc_status_attribute_name(uint8_t attribute);

/* One line describing a packet for the debug log ("control 2/6 value
 * change, 2 value bytes: 32 12"), at most cap bytes with its NUL. */
void uvc_status_describe(const struct uvc_status *s, char *buf, size_t cap);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Status interrupt packets. See status.h. */
#include "uvc/status.h"

#include <stdio.h>
#include <string.h>

#define TYPE_CONTROL 1
#define TYPE_STREAMING 2

static enum uvc_status_kind ignore(struct uvc_status *s, const char *why, int malformed)
{
	s->kind = UVC_STATUS_IGNORED;
	s->why = why;
	s->malformed = malformed;
	return s->kind;
}

enum uvc_status_kind uvc_status_parse(const uint8_t *p, size_t len, struct uvc_status *s)
{
	memset(s, 0, sizeof(*s));
	if (!p || len == 0)
		return ignore(s, "empty packet", 0);
	s->type = p[0] & 0x0f;
	if (len >= 2)
		s->originator = p[1];
	if (len >= 3)
		s->event = p[2];
	switch (s->type) {
	case TYPE_CONTROL:
		if (len < 6)
			return ignore(s, "control status packet shorter than 6 bytes", 1);
		if (s->event != 0)
			return ignore(s, "control status event other than a control change", 1);
		s->selector = p[3];
		s->attribute = p[4];
		if (s->attribute > UVC_STATUS_ATTR_MAX)
			return ignore(s, "control status packet with an unknown attribute", 1);
		s->value = p + 5;
		s->value_len = len - 5;
		s->kind = UVC_STATUS_CONTROL;
		return s->kind;
	case TYPE_STREAMING:
		if (len < 3)
			return ignore(s, "streaming status packet shorter than 3 bytes", 1);
		s->value = p + 3;
		s->value_len = len - 3;
		if (s->event != 0) {
			s->kind = UVC_STATUS_STREAM_ERROR;
			return s->kind;
		}
		if (len < 4)
			return ignore(s, "button status packet without its value", 1);
		s->pressed = p[3] ? 1 : 0;
		s->kind = UVC_STATUS_BUTTON;
		return s->kind;
	default:
		return ignore(s, "unknown status type", 1);
	}
}

const char *uvc_status_attribute_name(uint8_t attribute)
{
	static const char *const names[] = { "value", "info", "failure", "min", "max" };
	return attribute < sizeof(names) / sizeof(names[0]) ? names[attribute] : "?";
}

void uvc_status_describe(const struct uvc_status *s, char *buf, size_t cap)
{
	size_t n = 0;
	int w;

	if (!cap)
		return;
	buf[0] = 0;
	switch (s->kind) {
	case UVC_STATUS_CONTROL:
		w = snprintf(buf, cap, "control %u/%u %s change, %zu value bytes:", s->originator,
			     s->selector, uvc_status_attribute_name(s->attribute), s->value_len);
		break;
	case UVC_STATUS_BUTTON:
		w = snprintf(buf, cap, "button (interface %u) %s", s->originator,
			     s->pressed ? "pressed" : "released");
		break;
	case UVC_STATUS_STREAM_ERROR:
		w = snprintf(buf, cap, "stream %u error event 0x%02x", s->originator, s->event);
		break;
	default:
		w = snprintf(buf, cap, "ignored (type %u): %s", s->type, s->why ? s->why : "?");
		break;
	}
	if (w < 0)
		return;
	n = (size_t)w < cap ? (size_t)w : cap - 1;
	if (s->kind != UVC_STATUS_CONTROL)
		return;
	for (size_t i = 0; i < s->value_len && n + 4 < cap; i++) {
		w = snprintf(buf + n, cap - n, " %02x", s->value[i]);
		if (w < 0)
			return;
		n += (size_t)w;
	}
}

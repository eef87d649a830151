/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Status interrupt packets (src/uvc/status.c): any bytes the camera's
 * interrupt endpoint may complete with, as device.c parses and logs them. */
#include "fuzz.h"
#include "uvc/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uvc_status s;
	memset(&s, 0x5a, sizeof(s));
	enum uvc_status_kind kind = uvc_status_parse(data, size, &s);
	FUZZ_CHECK(kind == s.kind);
	FUZZ_CHECK(kind <= UVC_STATUS_STREAM_ERROR);
	if (size)
		FUZZ_CHECK(s.type == (data[0] & 0x0f));
	if (kind == UVC_STATUS_IGNORED)
		FUZZ_CHECK(s.why && *s.why);
	else
		FUZZ_CHECK(!s.malformed);
	if (kind == UVC_STATUS_CONTROL) {
		FUZZ_CHECK(s.attribute <= UVC_STATUS_ATTR_MAX);
		FUZZ_CHECK(s.value_len >= 1);
	}
	if (kind == UVC_STATUS_BUTTON)
		FUZZ_CHECK(s.pressed <= 1);
	/* bValue points into the packet, never past it */
	if (kind != UVC_STATUS_IGNORED && s.value_len) {
		FUZZ_CHECK(s.value >= data && s.value + s.value_len <= data + size);
	}
	/* The log line, into buffers of every size device.c or a smaller
	 * caller might give: always terminated within cap. */
	static const size_t caps[] = { 1, 2, 5, 17, 40, 160 };
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		char *buf = malloc(caps[i]);
		FUZZ_CHECK(buf);
		uvc_status_describe(&s, buf, caps[i]);
		FUZZ_CHECK(strnlen(buf, caps[i]) < caps[i]);
		free(buf);
	}
	uvc_status_describe(&s, NULL, 0);
	FUZZ_CHECK(*uvc_status_attribute_name(s.attribute));
	return 0;
}

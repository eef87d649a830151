/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON strings (see json.h). */
#include "core/json.h"

#include <stdio.h>

size_t json_escape(char *out, size_t cap, const char *s)
{
	size_t n = 0;
	if (!cap)
		return 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];
		size_t len = 1;
		if (c == '"' || c == '\\') {
			esc[0] = '\\', esc[1] = (char)c, len = 2;
		} else if (c < 0x20 || c == 0x7f) {
			len = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", c);
		} else {
			esc[0] = (char)c;
		}
		if (n + len >= cap)
			break; /* whole escapes only */
		for (size_t i = 0; i < len; i++)
			out[n++] = esc[i];
	}
	out[n] = '\0';
	return n;
}

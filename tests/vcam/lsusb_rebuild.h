/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A configuration descriptor rebuilt as bytes from a camera's `lsusb -v`
 * text (uvcuse-vcam --descriptors TEXT), for the cameras whose owners
 * published only that. Every printed field is put back at its place from
 * the width its name implies (b 1, w 2, dw 4, bcd 2, guid 16, t 3, bm by
 * the descriptor's bControlSize or the printed width), each descriptor cut
 * or zero-filled to its bLength, hex dumps ("UNRECOGNIZED", "Invalid desc
 * subtype") taken as they are. What the text cannot say is logged:
 * the GUID byte order assumed, descriptors lsusb did not print. Pure. */
#ifndef VCAM_LSUSB_REBUILD_H
#define VCAM_LSUSB_REBUILD_H

#include <stddef.h>
#include <stdint.h>

typedef void lsusb_rebuild_log_fn(void *opaque, const char *line);

/* "2.00" -> 0x0200, "0.10" -> 0x0010, "1.0a" -> 0x010a: lsusb prints a BCD
 * field as %x.%02x. */
uint16_t lsusb_parse_bcd(const char *s);

/* HTML mail's no-break spaces (UTF-8 c2 a0) become two spaces, in place:
 * to a reader of lsusb's columns they are spaces. */
void lsusb_text_unbreak_spaces(char *text);

/* Does this file content look like `lsusb -v` text rather than bytes? */
int lsusb_text_is_lsusb(const uint8_t *data, size_t len);

/* Rebuilds every configuration the text holds, one after the other, with
 * wTotalLength as printed (the caller repairs it as for a binary dump).
 * *out is malloc'd. Returns 0, or -EINVAL with a reason in err when the
 * text has no configuration descriptor, -ENOMEM. */
int lsusb_rebuild_config(const char *text, lsusb_rebuild_log_fn *log, void *opaque,
			 uint8_t **out, size_t *out_len, char *err, size_t err_cap);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* 32-bit programs' ioctls. A 32-bit program on a 64-bit kernel numbers a
 * command with the size of its argument as its own compiler lays it out,
 * and CUSE hands the daemon that number and that layout unchanged
 * (FUSE_IOCTL_COMPAT). Where the layout holds no pointer, long or 8-byte
 * aligned field, both ABIs agree and so does the number: the native table
 * serves it. Where they differ (the layouts and numbers are in
 * include/uvcuse/compat32.h), a "form" here converts the argument to the
 * native one and the answer back.
 *
 * Pure: tests/unit/test_v4l2_compat32.c. Dependencies: the uapi headers. */
#ifndef V4L2_COMPAT32_H
#define V4L2_COMPAT32_H

#include <stddef.h>

#include "uvcuse/compat32.h"

/* A command's 32-bit form. to_native() makes the native argument of the
 * 32-bit one; from_native() writes an answer back into the 32-bit
 * argument, keeping what the native one cannot hold (its pointers: the
 * caller's own). */
typedef void compat32_to_native_fn(const void *arg32, void *native);
typedef void compat32_from_native_fn(const void *native, void *arg32);

struct compat32_form {
	unsigned int cmd;        /* as a 32-bit program numbers it */
	unsigned int native_cmd;
	const char *name;        /* "VIDIOC_QBUF (32-bit)" */
	compat32_to_native_fn *to_native;
	compat32_from_native_fn *from_native;
};

/* The 32-bit forms of the V4L2 and UVC commands whose layouts differ. */
const struct compat32_form *compat32_forms(size_t *count);

/* The forms of any command carrying a struct v4l2_buffer as its argument
 * (the preload library's DQBUF_STAGED): out[0] with 64-bit time, out[1]
 * with 32-bit time. */
void compat32_buffer_forms(unsigned int native_cmd, const char *name64, const char *name32,
			   struct compat32_form out[2]);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON strings for the commands' --json output. */
#ifndef UVCUSE_CORE_JSON_H
#define UVCUSE_CORE_JSON_H

#include <stddef.h>

/* s as the inside of a JSON string (quotes, backslashes and control
 * characters escaped), cut to fit cap with its NUL. Returns the length. */
size_t json_escape(char *out, size_t cap, const char *s);

#endif

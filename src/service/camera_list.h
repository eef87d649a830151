/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `uvcuse --list`: the UVC cameras plugged in, their identities, formats,
 * sizes and rates. */
#ifndef UVCUSE_SERVICE_CAMERA_LIST_H
#define UVCUSE_SERVICE_CAMERA_LIST_H

#include <stdbool.h>

/* Prints the list (json: a JSON array of one object per camera); returns
 * the exit status (1: no camera found). */
int camera_list_print(bool json);

#endif

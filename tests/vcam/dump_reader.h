/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual camera's own reading of a configuration descriptor: just
 * what it needs to stream and to answer controls (the entities with their
 * IDs, types, sources and bmControls; the streaming interfaces with their
 * endpoints, formats, frames and intervals), read leniently. It never
 * refuses what uvcuse's parser (src/uvc/descriptors.c) would refuse, so
 * that the vcam serves any dump as it is and the host's drivers decide;
 * the model it fills has the parser's shape (struct uvc_camera, freed with
 * uvc_camera_free) so that the rest of the vcam reads it the same way. */
#ifndef VCAM_DUMP_READER_H
#define VCAM_DUMP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uvc/descriptors.h"

/* Reads the video function whose VideoControl interface is vc_interface
 * (-1: the first of the video class) from config (len bytes). Returns 0
 * and a new model in *out, -EINVAL when it holds no VideoControl
 * interface, -ENOMEM. Whatever it cannot read is left out: an entity or
 * a format too short for its fields, a frame under no format of its kind,
 * a format without frames. */
int vcam_dump_read(const uint8_t *config, size_t len, int vc_interface, struct uvc_camera **out);

/* The first VideoControl interface of the video class, else the first
 * vendor-specific one (class 0xff, subclass 1; *vendor then true), which
 * uvcvideo binds by its device table only; -1: none. */
int vcam_dump_find_vc(const uint8_t *config, size_t len, bool *vendor);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the node tests share: buffer memory on the heap, and the vcam's
 * control model as the camera behind a node. */
#ifndef NODE_FIXTURE_H
#define NODE_FIXTURE_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "controls.h" /* tests/vcam */
#include "uvc/descriptors.h"
#include "v4l2/queue.h"

static inline int heap_mem_alloc(void *data, struct vq_buffer *b, size_t size)
{
	(void)data;
	b->mem = calloc(1, size);
	b->length = size;
	return b->mem ? 0 : -ENOMEM;
}

static inline void heap_mem_release(void *data, struct vq_buffer *b)
{
	(void)data;
	free(b->mem);
	b->mem = NULL;
}

/* uvc_query_ctrl's errno for the code the vcam keeps after a STALL. */
static inline int vcam_errno(uint8_t code)
{
	switch (code) {
	case 1: return -EBUSY;
	case 2: return -EILSEQ;
	case 3: return -EREMOTE;
	case 4: return -ERANGE;
	case 5: case 6: case 7: return -EIO;
	case 8: return -EINVAL;
	default: return -EPIPE;
	}
}

/* The vcam entity of a unit or terminal ID of the camera model. */
static inline enum vcam_entity vcam_entity_of(const struct uvc_camera *camera, uint8_t id)
{
	const struct uvc_entity *e = uvc_camera_find_entity(camera, id);
	ck_assert_ptr_nonnull(e);
	return e->kind == UVC_ENTITY_PROCESSING_UNIT ? VCAM_ENTITY_PROCESSING
	       : e->kind == UVC_ENTITY_EXTENSION_UNIT ? VCAM_ENTITY_EXTENSION
						      : VCAM_ENTITY_CAMERA;
}

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The app's struct v4l2_buffer to the wire's and back (fastpath.h): the
 * ring and the channel carry x86_64's layout (uvcuse_wire_buffer). A
 * 64-bit build's programs lay it out the same way; a 32-bit build serves
 * programs with 32-bit and with 64-bit time, each numbering QBUF and DQBUF
 * with its own layout's size (uvcuse/compat32.h). */
#include <string.h>

#include "fastpath.h"
#include "uvcuse/compat32.h"

#if UINTPTR_MAX == UINT64_MAX

bool fastpath_wire_op(unsigned long request, uint32_t *op)
{
	if (request != VIDIOC_QBUF && request != VIDIOC_DQBUF)
		return false;
	*op = request == VIDIOC_QBUF ? UVCUSE_CHAN_QBUF : UVCUSE_CHAN_DQBUF;
	return true;
}

void fastpath_wire_from_app(unsigned long request, const void *app, uvcuse_wire_buffer *w)
{
	(void)request;
	memcpy(w, app, sizeof(*w));
}

void fastpath_wire_to_app(unsigned long request, const uvcuse_wire_buffer *w, void *app)
{
	(void)request;
	memcpy(app, w, sizeof(*w));
}

#else

bool fastpath_wire_op(unsigned long request, uint32_t *op)
{
	if (request == COMPAT32_VIDIOC_QBUF || request == COMPAT32_VIDIOC_QBUF_TIME32)
		*op = UVCUSE_CHAN_QBUF;
	else if (request == COMPAT32_VIDIOC_DQBUF || request == COMPAT32_VIDIOC_DQBUF_TIME32)
		*op = UVCUSE_CHAN_DQBUF;
	else
		return false;
	return true;
}

/* Both 32-bit layouts have the same fields; only the time's width differs. */
#define FROM_APP(w, a)                                                                 \
	do {                                                                           \
		*(w) = (uvcuse_wire_buffer){ .index = (a)->index, .type = (a)->type,   \
					     .bytesused = (a)->bytesused,              \
					     .flags = (a)->flags, .field = (a)->field, \
					     .timecode = (a)->timecode,                \
					     .sequence = (a)->sequence,                \
					     .memory = (a)->memory,                    \
					     .length = (a)->length,                    \
					     .reserved2 = (a)->reserved2 };            \
		(w)->timestamp.tv_sec = (a)->timestamp.tv_sec;                         \
		(w)->timestamp.tv_usec = (a)->timestamp.tv_usec;                       \
		(w)->m.userptr = (a)->m;                                               \
		(w)->request_fd = (a)->request_fd;                                     \
	} while (0)

#define TO_APP(a, w)                                                                   \
	do {                                                                           \
		(a)->index = (w)->index, (a)->type = (w)->type;                        \
		(a)->bytesused = (w)->bytesused, (a)->flags = (w)->flags;              \
		(a)->field = (w)->field, (a)->timecode = (w)->timecode;                \
		(a)->sequence = (w)->sequence, (a)->memory = (w)->memory;              \
		(a)->length = (w)->length, (a)->reserved2 = (w)->reserved2;            \
		(a)->timestamp.tv_sec = (w)->timestamp.tv_sec;                         \
		(a)->timestamp.tv_usec = (w)->timestamp.tv_usec;                       \
		(a)->m = (uint32_t)(w)->m.userptr;                                     \
		(a)->request_fd = (w)->request_fd;                                     \
	} while (0)

void fastpath_wire_from_app(unsigned long request, const void *app, uvcuse_wire_buffer *w)
{
	if (_IOC_SIZE(request) == sizeof(struct compat32_buffer)) {
		struct compat32_buffer a;
		memcpy(&a, app, sizeof(a));
		FROM_APP(w, &a);
	} else {
		struct compat32_buffer_time32 a;
		memcpy(&a, app, sizeof(a));
		FROM_APP(w, &a);
	}
}

void fastpath_wire_to_app(unsigned long request, const uvcuse_wire_buffer *w, void *app)
{
	if (_IOC_SIZE(request) == sizeof(struct compat32_buffer)) {
		struct compat32_buffer a;
		memcpy(&a, app, sizeof(a));
		TO_APP(&a, w);
		memcpy(app, &a, sizeof(a));
	} else {
		struct compat32_buffer_time32 a;
		memcpy(&a, app, sizeof(a));
		TO_APP(&a, w);
		memcpy(app, &a, sizeof(a));
	}
}

#endif

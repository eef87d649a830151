/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Built -m32 (a shared object, never run: the machines that build may not
 * run 32-bit code), twice: with glibc's 64-bit time (-D_TIME_BITS=64) and
 * without. Its static assertions hold include/uvcuse/compat32.h to the layout a
 * 32-bit compiler gives each uapi struct (size and every field's offset)
 * and to the numbers 32-bit programs send; a difference fails the build.
 */
#include <stddef.h>
#include <stdint.h>

#include "uvcuse/uvcuse.h"
#include "uvcuse/compat32.h"

#if UINTPTR_MAX != 0xffffffffu
#error "build this file -m32"
#endif

#define SIZE(ours, theirs) \
	_Static_assert(sizeof(ours) == sizeof(theirs), "sizeof " #theirs " in uvcuse/compat32.h")
#define FIELD(ours, theirs, f)                                           \
	_Static_assert(offsetof(ours, f) == offsetof(theirs, f), #theirs "." #f \
		       " in uvcuse/compat32.h")
#define CMD(ours, theirs) _Static_assert((ours) == (theirs), #theirs " number in compat32.h")

#if defined(_TIME_BITS) && _TIME_BITS == 64
typedef struct compat32_buffer buffer32;
typedef struct compat32_event event32;
#define QBUF32 COMPAT32_VIDIOC_QBUF
#define DQBUF32 COMPAT32_VIDIOC_DQBUF
#define QUERYBUF32 COMPAT32_VIDIOC_QUERYBUF
#define PREPARE_BUF32 COMPAT32_VIDIOC_PREPARE_BUF
#define DQEVENT32 COMPAT32_VIDIOC_DQEVENT
#else
typedef struct compat32_buffer_time32 buffer32;
typedef struct compat32_event_time32 event32;
#define QBUF32 COMPAT32_VIDIOC_QBUF_TIME32
#define DQBUF32 COMPAT32_VIDIOC_DQBUF_TIME32
#define QUERYBUF32 COMPAT32_VIDIOC_QUERYBUF_TIME32
#define PREPARE_BUF32 COMPAT32_VIDIOC_PREPARE_BUF_TIME32
#define DQEVENT32 COMPAT32_VIDIOC_DQEVENT_TIME32
#endif

SIZE(buffer32, struct v4l2_buffer);
FIELD(buffer32, struct v4l2_buffer, field);
FIELD(buffer32, struct v4l2_buffer, timestamp);
FIELD(buffer32, struct v4l2_buffer, timestamp.tv_usec);
FIELD(buffer32, struct v4l2_buffer, timecode);
FIELD(buffer32, struct v4l2_buffer, sequence);
FIELD(buffer32, struct v4l2_buffer, memory);
FIELD(buffer32, struct v4l2_buffer, m);
FIELD(buffer32, struct v4l2_buffer, length);
FIELD(buffer32, struct v4l2_buffer, reserved2);
FIELD(buffer32, struct v4l2_buffer, request_fd);
CMD(QBUF32, VIDIOC_QBUF);
CMD(DQBUF32, VIDIOC_DQBUF);
CMD(QUERYBUF32, VIDIOC_QUERYBUF);
CMD(PREPARE_BUF32, VIDIOC_PREPARE_BUF);

SIZE(event32, struct v4l2_event);
FIELD(event32, struct v4l2_event, u);
FIELD(event32, struct v4l2_event, pending);
FIELD(event32, struct v4l2_event, sequence);
FIELD(event32, struct v4l2_event, timestamp);
FIELD(event32, struct v4l2_event, timestamp.tv_nsec);
FIELD(event32, struct v4l2_event, id);
FIELD(event32, struct v4l2_event, reserved);
CMD(DQEVENT32, VIDIOC_DQEVENT);
/* the union's members sit where they sit in the native layout */
_Static_assert(offsetof(struct v4l2_event_ctrl, value64) == 8, "v4l2_event_ctrl.value64");
_Static_assert(offsetof(struct v4l2_event_ctrl, flags) == 16, "v4l2_event_ctrl.flags");

SIZE(struct compat32_format, struct v4l2_format);
FIELD(struct compat32_format, struct v4l2_format, fmt);
SIZE(struct compat32_create_buffers, struct v4l2_create_buffers);
FIELD(struct compat32_create_buffers, struct v4l2_create_buffers, format);
FIELD(struct compat32_create_buffers, struct v4l2_create_buffers, capabilities);
FIELD(struct compat32_create_buffers, struct v4l2_create_buffers, flags);
FIELD(struct compat32_create_buffers, struct v4l2_create_buffers, reserved);
SIZE(struct compat32_input, struct v4l2_input);
CMD(COMPAT32_VIDIOC_G_FMT, VIDIOC_G_FMT);
CMD(COMPAT32_VIDIOC_S_FMT, VIDIOC_S_FMT);
CMD(COMPAT32_VIDIOC_TRY_FMT, VIDIOC_TRY_FMT);
CMD(COMPAT32_VIDIOC_CREATE_BUFS, VIDIOC_CREATE_BUFS);
CMD(COMPAT32_VIDIOC_ENUMINPUT, VIDIOC_ENUMINPUT);

SIZE(struct compat32_ext_controls, struct v4l2_ext_controls);
FIELD(struct compat32_ext_controls, struct v4l2_ext_controls, request_fd);
FIELD(struct compat32_ext_controls, struct v4l2_ext_controls, controls);
_Static_assert(sizeof(struct v4l2_ext_control) == 20, "v4l2_ext_control as on x86_64");
CMD(COMPAT32_VIDIOC_G_EXT_CTRLS, VIDIOC_G_EXT_CTRLS);
CMD(COMPAT32_VIDIOC_S_EXT_CTRLS, VIDIOC_S_EXT_CTRLS);
CMD(COMPAT32_VIDIOC_TRY_EXT_CTRLS, VIDIOC_TRY_EXT_CTRLS);
SIZE(struct compat32_xu_control_mapping, struct uvc_xu_control_mapping);
FIELD(struct compat32_xu_control_mapping, struct uvc_xu_control_mapping, selector);
FIELD(struct compat32_xu_control_mapping, struct uvc_xu_control_mapping, v4l2_type);
FIELD(struct compat32_xu_control_mapping, struct uvc_xu_control_mapping, menu_info);
FIELD(struct compat32_xu_control_mapping, struct uvc_xu_control_mapping, menu_count);
FIELD(struct compat32_xu_control_mapping, struct uvc_xu_control_mapping, reserved);
SIZE(struct compat32_xu_control_query, struct uvc_xu_control_query);
FIELD(struct compat32_xu_control_query, struct uvc_xu_control_query, size);
FIELD(struct compat32_xu_control_query, struct uvc_xu_control_query, data);
CMD(COMPAT32_UVCIOC_CTRL_MAP, UVCIOC_CTRL_MAP);
CMD(COMPAT32_UVCIOC_CTRL_QUERY, UVCIOC_CTRL_QUERY);

#include "wire_layout.h" /* the fast path's, as the 64-bit daemon lays it out */

/* Every command of src/v4l2/ioctls.c's table and of uvcuse.h as a 32-bit
 * program numbers it, in a section of its own: the build copies it out
 * (objcopy) for test_v4l2_compat32, which needs no 32-bit program to run. */
struct numbered {
	char name[40];
	uint32_t cmd;
};

#define N(c) { #c, c }

__attribute__((used, section("compat32_numbers"))) static const struct numbered numbers[] = {
	N(VIDIOC_QUERYCAP), N(VIDIOC_ENUM_FMT), N(VIDIOC_G_FMT), N(VIDIOC_S_FMT),
	N(VIDIOC_TRY_FMT), N(VIDIOC_REQBUFS), N(VIDIOC_QUERYBUF), N(VIDIOC_QBUF),
	N(VIDIOC_DQBUF), N(VIDIOC_PREPARE_BUF), N(VIDIOC_CREATE_BUFS), N(VIDIOC_STREAMON),
	N(VIDIOC_STREAMOFF), N(VIDIOC_G_PARM), N(VIDIOC_S_PARM), N(VIDIOC_G_PRIORITY),
	N(VIDIOC_S_PRIORITY), N(VIDIOC_ENUMINPUT), N(VIDIOC_G_INPUT), N(VIDIOC_S_INPUT),
	N(VIDIOC_ENUM_FRAMESIZES), N(VIDIOC_ENUM_FRAMEINTERVALS), N(VIDIOC_QUERYCTRL),
	N(VIDIOC_QUERY_EXT_CTRL), N(VIDIOC_QUERYMENU), N(VIDIOC_G_CTRL), N(VIDIOC_S_CTRL),
	N(VIDIOC_G_EXT_CTRLS), N(VIDIOC_S_EXT_CTRLS), N(VIDIOC_TRY_EXT_CTRLS),
	N(VIDIOC_SUBSCRIBE_EVENT), N(VIDIOC_UNSUBSCRIBE_EVENT), N(VIDIOC_DQEVENT),
	N(VIDIOC_LOG_STATUS), N(UVCIOC_CTRL_MAP), N(UVCIOC_CTRL_QUERY), N(UVCUSE_IOC_HELLO),
	N(UVCUSE_IOC_SET_FLAGS), N(UVCUSE_IOC_DQBUF_STAGED), N(UVCUSE_IOC_EXPBUF),
};

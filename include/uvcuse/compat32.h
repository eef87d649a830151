/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How a 32-bit x86 program lays out the V4L2 and UVC ioctl arguments that a
 * 64-bit one lays out differently (a pointer, a long, an 8-byte aligned
 * field), and the numbers it sends for them, as the kernel's
 * v4l2-compat-ioctl32.c and uvcvideo's compat code know them. struct
 * v4l2_buffer and v4l2_event have two 32-bit layouts: 64-bit time (glibc's
 * _TIME_BITS=64, the kernel's v4l2_buffer32) and 32-bit time
 * (v4l2_buffer32_time32). Shared by the daemon's conversions
 * (src/v4l2/compat32.c) and the 32-bit preload library, which reads a DQBUF
 * answer in either time layout. Checked against a -m32 compiler's own
 * layouts by tests/unit/compat32_layouts.c. */
#ifndef UVCUSE_COMPAT32_H
#define UVCUSE_COMPAT32_H

#include <stdint.h>

#include <linux/ioctl.h>
#include <linux/uvcvideo.h>
#include <linux/videodev2.h>

/* An 8-byte integer as i386 places it in a struct: 4-byte aligned. */
typedef int64_t compat32_s64 __attribute__((aligned(4)));

struct compat32_buffer {
	uint32_t index, type, bytesused, flags, field;
	struct {
		compat32_s64 tv_sec, tv_usec;
	} timestamp;
	struct v4l2_timecode timecode;
	uint32_t sequence, memory;
	uint32_t m; /* offset, userptr or fd: one 32-bit word */
	uint32_t length, reserved2;
	int32_t request_fd;
};

struct compat32_buffer_time32 {
	uint32_t index, type, bytesused, flags, field;
	struct {
		int32_t tv_sec, tv_usec;
	} timestamp;
	struct v4l2_timecode timecode;
	uint32_t sequence, memory;
	uint32_t m;
	uint32_t length, reserved2;
	int32_t request_fd;
};

/* The union holds a struct v4l2_window with pointers: 8-byte aligned on
 * x86_64 (the union at offset 8), 4 on i386 (offset 4). */
struct compat32_format {
	uint32_t type;
	uint8_t fmt[200];
};

struct compat32_create_buffers {
	uint32_t index, count, memory;
	struct compat32_format format;
	uint32_t capabilities, flags;
	uint32_t reserved[6];
};

/* Native only in its tail padding (std is an 8-byte field). */
struct compat32_input {
	uint8_t bytes[76];
};

struct compat32_ext_controls {
	uint32_t which, count, error_idx;
	int32_t request_fd;
	uint32_t reserved[1];
	uint32_t controls; /* the 32-bit pointer; the array's layout is shared */
};

struct compat32_event {
	uint32_t type;
	uint8_t u[64];
	uint32_t pending, sequence;
	struct {
		compat32_s64 tv_sec, tv_nsec;
	} timestamp;
	uint32_t id;
	uint32_t reserved[8];
};

struct compat32_event_time32 {
	uint32_t type;
	uint8_t u[64];
	uint32_t pending, sequence;
	struct {
		int32_t tv_sec, tv_nsec;
	} timestamp;
	uint32_t id;
	uint32_t reserved[8];
};

struct compat32_xu_control_mapping {
	uint32_t id;
	uint8_t name[32];
	uint8_t entity[16];
	uint8_t selector, size, offset;
	uint32_t v4l2_type, data_type;
	uint32_t menu_info;
	uint32_t menu_count;
	uint32_t reserved[4];
};

struct compat32_xu_control_query {
	uint8_t unit, selector, query;
	uint16_t size;
	uint32_t data;
};

/* The numbers 32-bit programs send. */
#define COMPAT32_VIDIOC_G_FMT _IOWR('V', 4, struct compat32_format)
#define COMPAT32_VIDIOC_S_FMT _IOWR('V', 5, struct compat32_format)
#define COMPAT32_VIDIOC_TRY_FMT _IOWR('V', 64, struct compat32_format)
#define COMPAT32_VIDIOC_CREATE_BUFS _IOWR('V', 92, struct compat32_create_buffers)
#define COMPAT32_VIDIOC_ENUMINPUT _IOWR('V', 26, struct compat32_input)
#define COMPAT32_VIDIOC_G_EXT_CTRLS _IOWR('V', 71, struct compat32_ext_controls)
#define COMPAT32_VIDIOC_S_EXT_CTRLS _IOWR('V', 72, struct compat32_ext_controls)
#define COMPAT32_VIDIOC_TRY_EXT_CTRLS _IOWR('V', 73, struct compat32_ext_controls)
#define COMPAT32_VIDIOC_QUERYBUF _IOWR('V', 9, struct compat32_buffer)
#define COMPAT32_VIDIOC_QBUF _IOWR('V', 15, struct compat32_buffer)
#define COMPAT32_VIDIOC_DQBUF _IOWR('V', 17, struct compat32_buffer)
#define COMPAT32_VIDIOC_PREPARE_BUF _IOWR('V', 93, struct compat32_buffer)
#define COMPAT32_VIDIOC_QUERYBUF_TIME32 _IOWR('V', 9, struct compat32_buffer_time32)
#define COMPAT32_VIDIOC_QBUF_TIME32 _IOWR('V', 15, struct compat32_buffer_time32)
#define COMPAT32_VIDIOC_DQBUF_TIME32 _IOWR('V', 17, struct compat32_buffer_time32)
#define COMPAT32_VIDIOC_PREPARE_BUF_TIME32 _IOWR('V', 93, struct compat32_buffer_time32)
#define COMPAT32_VIDIOC_DQEVENT _IOR('V', 89, struct compat32_event)
#define COMPAT32_VIDIOC_DQEVENT_TIME32 _IOR('V', 89, struct compat32_event_time32)
#define COMPAT32_UVCIOC_CTRL_MAP _IOWR('u', 0x20, struct compat32_xu_control_mapping)
#define COMPAT32_UVCIOC_CTRL_QUERY _IOWR('u', 0x21, struct compat32_xu_control_query)

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* 32-bit programs' argument layouts and their conversions (compat32.h).
 * Every conversion reads its source through a copy: a transport's buffer
 * carries no alignment promise. */
#include "v4l2/compat32.h"

#include <string.h>

/* --- struct v4l2_buffer ------------------------------------------------------- */

/* The fields both 32-bit forms share, whatever their time's width. */
#define BUFFER_TO_NATIVE(n, a)                                                         \
	do {                                                                           \
		(n)->index = (a).index, (n)->type = (a).type;                          \
		(n)->bytesused = (a).bytesused, (n)->flags = (a).flags;                \
		(n)->field = (a).field, (n)->timecode = (a).timecode;                  \
		(n)->sequence = (a).sequence, (n)->memory = (a).memory;                \
		(n)->m.userptr = (a).m; /* zero-extended: offset, pointer or fd */     \
		(n)->length = (a).length, (n)->reserved2 = (a).reserved2;              \
		(n)->request_fd = (a).request_fd;                                      \
		(n)->timestamp.tv_sec = (a).timestamp.tv_sec;                          \
		(n)->timestamp.tv_usec = (a).timestamp.tv_usec;                        \
	} while (0)

#define BUFFER_FROM_NATIVE(a, n)                                                       \
	do {                                                                           \
		(a).index = (n).index, (a).type = (n).type;                            \
		(a).bytesused = (n).bytesused, (a).flags = (n).flags;                  \
		(a).field = (n).field, (a).timecode = (n).timecode;                    \
		(a).sequence = (n).sequence, (a).memory = (n).memory;                  \
		(a).m = (uint32_t)(n).m.userptr;                                       \
		(a).length = (n).length, (a).reserved2 = (n).reserved2;                \
		(a).request_fd = (n).request_fd;                                       \
		(a).timestamp.tv_sec = (n).timestamp.tv_sec;                           \
		(a).timestamp.tv_usec = (n).timestamp.tv_usec;                         \
	} while (0)

static void buffer_to_native(const void *arg32, void *native)
{
	struct compat32_buffer a;
	memcpy(&a, arg32, sizeof(a));
	struct v4l2_buffer n = { 0 };
	BUFFER_TO_NATIVE(&n, a);
	memcpy(native, &n, sizeof(n));
}

static void buffer_from_native(const void *native, void *arg32)
{
	struct v4l2_buffer n;
	memcpy(&n, native, sizeof(n));
	struct compat32_buffer a = { 0 };
	BUFFER_FROM_NATIVE(a, n);
	memcpy(arg32, &a, sizeof(a));
}

static void buffer_time32_to_native(const void *arg32, void *native)
{
	struct compat32_buffer_time32 a;
	memcpy(&a, arg32, sizeof(a));
	struct v4l2_buffer n = { 0 };
	BUFFER_TO_NATIVE(&n, a);
	memcpy(native, &n, sizeof(n));
}

static void buffer_time32_from_native(const void *native, void *arg32)
{
	struct v4l2_buffer n;
	memcpy(&n, native, sizeof(n));
	struct compat32_buffer_time32 a = { 0 };
	/* after 2038 a 32-bit time wraps, as the kernel's own answer does */
	BUFFER_FROM_NATIVE(a, n);
	memcpy(arg32, &a, sizeof(a));
}

/* --- struct v4l2_format, v4l2_create_buffers ------------------------------------ */

/* The union's formats that uvcuse answers (pix, pix_mp, meta) hold no
 * pointer: its 200 bytes move as they are. An overlay window's pointers
 * would not, but the node refuses overlay types before reading them. */
static void format_to_native(const void *arg32, void *native)
{
	struct compat32_format a;
	memcpy(&a, arg32, sizeof(a));
	struct v4l2_format n = { .type = a.type };
	memcpy(n.fmt.raw_data, a.fmt, sizeof(a.fmt));
	memcpy(native, &n, sizeof(n));
}

static void format_from_native(const void *native, void *arg32)
{
	struct v4l2_format n;
	memcpy(&n, native, sizeof(n));
	struct compat32_format a = { .type = n.type };
	memcpy(a.fmt, n.fmt.raw_data, sizeof(a.fmt));
	memcpy(arg32, &a, sizeof(a));
}

static void create_bufs_to_native(const void *arg32, void *native)
{
	struct compat32_create_buffers a;
	memcpy(&a, arg32, sizeof(a));
	struct v4l2_create_buffers n = { .index = a.index, .count = a.count, .memory = a.memory,
					 .capabilities = a.capabilities, .flags = a.flags };
	memcpy(n.reserved, a.reserved, sizeof(n.reserved));
	format_to_native(&a.format, &n.format);
	memcpy(native, &n, sizeof(n));
}

static void create_bufs_from_native(const void *native, void *arg32)
{
	struct v4l2_create_buffers n;
	memcpy(&n, native, sizeof(n));
	struct compat32_create_buffers a = { .index = n.index, .count = n.count,
					     .memory = n.memory,
					     .capabilities = n.capabilities, .flags = n.flags };
	memcpy(a.reserved, n.reserved, sizeof(a.reserved));
	format_from_native(&n.format, &a.format);
	memcpy(arg32, &a, sizeof(a));
}

/* --- struct v4l2_input ---------------------------------------------------------- */

static void input_to_native(const void *arg32, void *native)
{
	struct v4l2_input n = { 0 };
	memcpy(&n, arg32, sizeof(struct compat32_input));
	memcpy(native, &n, sizeof(n));
}

static void input_from_native(const void *native, void *arg32)
{
	memcpy(arg32, native, sizeof(struct compat32_input));
}

/* --- struct v4l2_ext_controls --------------------------------------------------- */

/* The array keeps its layout (struct v4l2_ext_control is packed, its
 * union 8 bytes in both ABIs); only the pointer to it is narrower. The
 * node serves no control whose value is a pointer. */
static void ext_ctrls_to_native(const void *arg32, void *native)
{
	struct compat32_ext_controls a;
	memcpy(&a, arg32, sizeof(a));
	struct v4l2_ext_controls n = { .which = a.which, .count = a.count,
				       .error_idx = a.error_idx, .request_fd = a.request_fd,
				       .controls = (void *)(uintptr_t)a.controls };
	n.reserved[0] = a.reserved[0];
	memcpy(native, &n, sizeof(n));
}

static void ext_ctrls_from_native(const void *native, void *arg32)
{
	struct v4l2_ext_controls n;
	memcpy(&n, native, sizeof(n));
	struct compat32_ext_controls a;
	memcpy(&a, arg32, sizeof(a));
	a.which = n.which, a.count = n.count, a.error_idx = n.error_idx;
	a.request_fd = n.request_fd, a.reserved[0] = n.reserved[0];
	memcpy(arg32, &a, sizeof(a));
}

/* --- struct v4l2_event ---------------------------------------------------------- */

/* The union's 64 bytes hold no pointer, and its members' offsets agree
 * (v4l2_event_ctrl's 8-byte value sits at offset 8 in both). */
#define EVENT_FROM_NATIVE(a, n)                                                        \
	do {                                                                           \
		(a).type = (n).type, (a).pending = (n).pending;                        \
		(a).sequence = (n).sequence, (a).id = (n).id;                          \
		memcpy((a).u, (n).u.data, sizeof((a).u));                              \
		memcpy((a).reserved, (n).reserved, sizeof((a).reserved));             \
		(a).timestamp.tv_sec = (n).timestamp.tv_sec;                           \
		(a).timestamp.tv_nsec = (n).timestamp.tv_nsec;                         \
	} while (0)

#define EVENT_TO_NATIVE(n, a)                                                          \
	do {                                                                           \
		(n).type = (a).type, (n).pending = (a).pending;                        \
		(n).sequence = (a).sequence, (n).id = (a).id;                          \
		memcpy((n).u.data, (a).u, sizeof((a).u));                              \
		memcpy((n).reserved, (a).reserved, sizeof((a).reserved));             \
		(n).timestamp.tv_sec = (a).timestamp.tv_sec;                           \
		(n).timestamp.tv_nsec = (long)(a).timestamp.tv_nsec;                   \
	} while (0)

static void event_to_native(const void *arg32, void *native)
{
	struct compat32_event a;
	memcpy(&a, arg32, sizeof(a));
	struct v4l2_event n = { 0 };
	EVENT_TO_NATIVE(n, a);
	memcpy(native, &n, sizeof(n));
}

static void event_from_native(const void *native, void *arg32)
{
	struct v4l2_event n;
	memcpy(&n, native, sizeof(n));
	struct compat32_event a = { 0 };
	EVENT_FROM_NATIVE(a, n);
	memcpy(arg32, &a, sizeof(a));
}

static void event_time32_to_native(const void *arg32, void *native)
{
	struct compat32_event_time32 a;
	memcpy(&a, arg32, sizeof(a));
	struct v4l2_event n = { 0 };
	EVENT_TO_NATIVE(n, a);
	memcpy(native, &n, sizeof(n));
}

static void event_time32_from_native(const void *native, void *arg32)
{
	struct v4l2_event n;
	memcpy(&n, native, sizeof(n));
	struct compat32_event_time32 a = { 0 };
	EVENT_FROM_NATIVE(a, n);
	memcpy(arg32, &a, sizeof(a));
}

/* --- uvcvideo's extension unit ioctls ------------------------------------------- */

static void xu_map_to_native(const void *arg32, void *native)
{
	struct compat32_xu_control_mapping a;
	memcpy(&a, arg32, sizeof(a));
	struct uvc_xu_control_mapping n = { .id = a.id, .selector = a.selector, .size = a.size,
					    .offset = a.offset, .v4l2_type = a.v4l2_type,
					    .data_type = a.data_type,
					    .menu_info = (void *)(uintptr_t)a.menu_info,
					    .menu_count = a.menu_count };
	memcpy(n.name, a.name, sizeof(n.name));
	memcpy(n.entity, a.entity, sizeof(n.entity));
	memcpy(n.reserved, a.reserved, sizeof(n.reserved));
	memcpy(native, &n, sizeof(n));
}

static void xu_map_from_native(const void *native, void *arg32)
{
	struct uvc_xu_control_mapping n;
	memcpy(&n, native, sizeof(n));
	struct compat32_xu_control_mapping a;
	memcpy(&a, arg32, sizeof(a));
	a.id = n.id, a.selector = n.selector, a.size = n.size, a.offset = n.offset;
	a.v4l2_type = n.v4l2_type, a.data_type = n.data_type, a.menu_count = n.menu_count;
	memcpy(a.name, n.name, sizeof(a.name));
	memcpy(a.entity, n.entity, sizeof(a.entity));
	memcpy(a.reserved, n.reserved, sizeof(a.reserved));
	memcpy(arg32, &a, sizeof(a));
}

static void xu_query_to_native(const void *arg32, void *native)
{
	struct compat32_xu_control_query a;
	memcpy(&a, arg32, sizeof(a));
	struct uvc_xu_control_query n = { .unit = a.unit, .selector = a.selector,
					  .query = a.query, .size = a.size,
					  .data = (void *)(uintptr_t)a.data };
	memcpy(native, &n, sizeof(n));
}

static void xu_query_from_native(const void *native, void *arg32)
{
	struct uvc_xu_control_query n;
	memcpy(&n, native, sizeof(n));
	struct compat32_xu_control_query a;
	memcpy(&a, arg32, sizeof(a));
	a.unit = n.unit, a.selector = n.selector, a.query = n.query, a.size = n.size;
	memcpy(arg32, &a, sizeof(a));
}

/* --- the table ------------------------------------------------------------------- */

#define FORM(c, native, fn)                                                            \
	{ .cmd = COMPAT32_##c, .native_cmd = (native), .name = #c " (32-bit)",              \
	  .to_native = fn##_to_native, .from_native = fn##_from_native }

static const struct compat32_form forms[] = {
	FORM(VIDIOC_G_FMT, VIDIOC_G_FMT, format),
	FORM(VIDIOC_S_FMT, VIDIOC_S_FMT, format),
	FORM(VIDIOC_TRY_FMT, VIDIOC_TRY_FMT, format),
	FORM(VIDIOC_CREATE_BUFS, VIDIOC_CREATE_BUFS, create_bufs),
	FORM(VIDIOC_ENUMINPUT, VIDIOC_ENUMINPUT, input),
	FORM(VIDIOC_G_EXT_CTRLS, VIDIOC_G_EXT_CTRLS, ext_ctrls),
	FORM(VIDIOC_S_EXT_CTRLS, VIDIOC_S_EXT_CTRLS, ext_ctrls),
	FORM(VIDIOC_TRY_EXT_CTRLS, VIDIOC_TRY_EXT_CTRLS, ext_ctrls),
	FORM(VIDIOC_QUERYBUF, VIDIOC_QUERYBUF, buffer),
	FORM(VIDIOC_QBUF, VIDIOC_QBUF, buffer),
	FORM(VIDIOC_DQBUF, VIDIOC_DQBUF, buffer),
	FORM(VIDIOC_PREPARE_BUF, VIDIOC_PREPARE_BUF, buffer),
	FORM(VIDIOC_QUERYBUF_TIME32, VIDIOC_QUERYBUF, buffer_time32),
	FORM(VIDIOC_QBUF_TIME32, VIDIOC_QBUF, buffer_time32),
	FORM(VIDIOC_DQBUF_TIME32, VIDIOC_DQBUF, buffer_time32),
	FORM(VIDIOC_PREPARE_BUF_TIME32, VIDIOC_PREPARE_BUF, buffer_time32),
	FORM(VIDIOC_DQEVENT, VIDIOC_DQEVENT, event),
	FORM(VIDIOC_DQEVENT_TIME32, VIDIOC_DQEVENT, event_time32),
	FORM(UVCIOC_CTRL_MAP, UVCIOC_CTRL_MAP, xu_map),
	FORM(UVCIOC_CTRL_QUERY, UVCIOC_CTRL_QUERY, xu_query),
};

const struct compat32_form *compat32_forms(size_t *count)
{
	*count = sizeof(forms) / sizeof(forms[0]);
	return forms;
}

/* The number of native_cmd with the argument size of a 32-bit layout. */
static unsigned int renumbered(unsigned int native_cmd, size_t size)
{
	return _IOC(_IOC_DIR(native_cmd), _IOC_TYPE(native_cmd), _IOC_NR(native_cmd), size);
}

void compat32_buffer_forms(unsigned int native_cmd, const char *name64, const char *name32,
			   struct compat32_form out[2])
{
	out[0] = (struct compat32_form){ .cmd = renumbered(native_cmd,
							   sizeof(struct compat32_buffer)),
					 .native_cmd = native_cmd, .name = name64,
					 .to_native = buffer_to_native,
					 .from_native = buffer_from_native };
	out[1] = (struct compat32_form){ .cmd = renumbered(native_cmd,
							   sizeof(struct compat32_buffer_time32)),
					 .native_cmd = native_cmd, .name = name32,
					 .to_native = buffer_time32_to_native,
					 .from_native = buffer_time32_from_native };
}

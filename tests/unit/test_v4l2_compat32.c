/* SPDX-License-Identifier: GPL-2.0-or-later */
/* 32-bit programs' ioctls (src/v4l2/compat32.c): each form's conversions
 * keep what a 32-bit caller sent and answer in its layout; and, given the
 * numbers the -m32 builds of compat32_layouts.c recorded (64-bit time, then
 * 32-bit time), every command of the node's table as a 32-bit program numbers it
 * is either the native number (the same layout) or a form of compat32.c
 * that converts to that command. */
#include <check.h>
#include <linux/usb/video.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uvcuse/uvcuse.h"
#include "v4l2/compat32.h"
#include "v4l2/ioctls.h"
#include "unit_run.h"

static const char *helpers[2];

static const struct compat32_form *form_of(unsigned int cmd)
{
	size_t n;
	const struct compat32_form *f = compat32_forms(&n);
	for (size_t i = 0; i < n; i++)
		if (f[i].cmd == cmd)
			return &f[i];
	return NULL;
}

/* A 32-bit argument through to_native, the native answer changed by
 * change(), and back. */
static void round_trip(unsigned int cmd, void *arg32, void (*change)(void *native))
{
	const struct compat32_form *f = form_of(cmd);
	ck_assert_ptr_nonnull(f);
	_Alignas(16) unsigned char native[512];
	memset(native, 0xa5, sizeof(native));
	f->to_native(arg32, native);
	if (change)
		change(native);
	f->from_native(native, arg32);
}

START_TEST(buffer_keeps_the_pointer_and_time)
{
	struct compat32_buffer b = { .index = 3, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				     .memory = V4L2_MEMORY_USERPTR, .m = 0xf7e01000u,
				     .length = 614400, .sequence = 9 };
	const struct compat32_form *f = form_of(COMPAT32_VIDIOC_QBUF);
	ck_assert_uint_eq(f->native_cmd, VIDIOC_QBUF);
	struct v4l2_buffer n;
	f->to_native(&b, &n);
	ck_assert_uint_eq(n.index, 3);
	ck_assert_uint_eq(n.m.userptr, 0xf7e01000ul);
	ck_assert_uint_eq(n.length, 614400);
	n.timestamp.tv_sec = 5000000000; /* after 2038 */
	n.timestamp.tv_usec = 999999;
	n.bytesused = 4096;
	n.flags = V4L2_BUF_FLAG_DONE;
	f->from_native(&n, &b);
	ck_assert_int_eq(b.timestamp.tv_sec, 5000000000);
	ck_assert_int_eq(b.timestamp.tv_usec, 999999);
	ck_assert_uint_eq(b.m, 0xf7e01000u);
	ck_assert_uint_eq(b.bytesused, 4096);
	ck_assert_uint_eq(b.sequence, 9);
}
END_TEST

START_TEST(buffer_time32_and_mmap_offset)
{
	struct compat32_buffer_time32 b = { .index = 1, .memory = V4L2_MEMORY_MMAP };
	const struct compat32_form *f = form_of(COMPAT32_VIDIOC_DQBUF_TIME32);
	ck_assert_uint_eq(f->native_cmd, VIDIOC_DQBUF);
	struct v4l2_buffer n;
	f->to_native(&b, &n);
	n.m.offset = 0x20000;
	n.timestamp.tv_sec = 1234, n.timestamp.tv_usec = 56;
	f->from_native(&n, &b);
	ck_assert_uint_eq(b.m, 0x20000);
	ck_assert_int_eq(b.timestamp.tv_sec, 1234);
	ck_assert_int_eq(b.timestamp.tv_usec, 56);
}
END_TEST

START_TEST(buffer_forms_of_another_command)
{
	struct compat32_form f[2];
	compat32_buffer_forms(UVCUSE_IOC_DQBUF_STAGED, "a", "b", f);
	ck_assert_uint_eq(_IOC_SIZE(f[0].cmd), sizeof(struct compat32_buffer));
	ck_assert_uint_eq(_IOC_SIZE(f[1].cmd), sizeof(struct compat32_buffer_time32));
	ck_assert_uint_eq(_IOC_NR(f[0].cmd), _IOC_NR(UVCUSE_IOC_DQBUF_STAGED));
	ck_assert_uint_eq(_IOC_DIR(f[1].cmd), _IOC_DIR(UVCUSE_IOC_DQBUF_STAGED));
	ck_assert_uint_eq(f[0].native_cmd, UVCUSE_IOC_DQBUF_STAGED);
	ck_assert_ptr_eq(f[0].to_native, form_of(COMPAT32_VIDIOC_DQBUF)->to_native);
}
END_TEST

static void set_sizeimage(void *native)
{
	struct v4l2_format *f = native;
	ck_assert_uint_eq(f->fmt.pix.width, 640);
	f->fmt.pix.sizeimage = 614400;
}

START_TEST(format_moves_its_union)
{
	struct compat32_format a = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_pix_format pix = { .width = 640, .height = 480 };
	memcpy(a.fmt, &pix, sizeof(pix));
	round_trip(COMPAT32_VIDIOC_S_FMT, &a, set_sizeimage);
	memcpy(&pix, a.fmt, sizeof(pix));
	ck_assert_uint_eq(a.type, V4L2_BUF_TYPE_VIDEO_CAPTURE);
	ck_assert_uint_eq(pix.sizeimage, 614400);
	ck_assert_uint_eq(pix.height, 480);
}
END_TEST

static void create_one(void *native)
{
	struct v4l2_create_buffers *c = native;
	ck_assert_uint_eq(c->format.fmt.pix.width, 320);
	ck_assert_uint_eq(c->count, 2);
	c->index = 4;
	c->capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP;
}

START_TEST(create_bufs_moves_its_format)
{
	struct compat32_create_buffers a = { .count = 2, .memory = V4L2_MEMORY_MMAP };
	a.format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_pix_format pix = { .width = 320 };
	memcpy(a.format.fmt, &pix, sizeof(pix));
	round_trip(COMPAT32_VIDIOC_CREATE_BUFS, &a, create_one);
	ck_assert_uint_eq(a.index, 4);
	ck_assert_uint_eq(a.capabilities, V4L2_BUF_CAP_SUPPORTS_MMAP);
	ck_assert_uint_eq(a.format.type, V4L2_BUF_TYPE_VIDEO_CAPTURE);
}
END_TEST

static void fail_second(void *native)
{
	struct v4l2_ext_controls *c = native;
	ck_assert_uint_eq((uintptr_t)c->controls, 0xffd01230u);
	ck_assert_uint_eq(c->count, 2);
	c->error_idx = 1;
	c->controls = NULL; /* what the node does with it is not the caller's pointer */
}

START_TEST(ext_controls_keep_the_callers_pointer)
{
	struct compat32_ext_controls a = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 2,
					   .controls = 0xffd01230u };
	round_trip(COMPAT32_VIDIOC_S_EXT_CTRLS, &a, fail_second);
	ck_assert_uint_eq(a.error_idx, 1);
	ck_assert_uint_eq(a.controls, 0xffd01230u);
	ck_assert_uint_eq(a.count, 2);
}
END_TEST

static void an_event(void *native)
{
	struct v4l2_event *e = native;
	*e = (struct v4l2_event){ .type = V4L2_EVENT_CTRL, .id = V4L2_CID_BRIGHTNESS,
				  .pending = 2, .sequence = 7 };
	e->u.ctrl.changes = V4L2_EVENT_CTRL_CH_VALUE;
	e->u.ctrl.value64 = -5;
	e->u.ctrl.maximum = 255;
	e->timestamp.tv_sec = 100, e->timestamp.tv_nsec = 999999999;
}

START_TEST(event_in_both_time_layouts)
{
	struct compat32_event a = { 0 };
	round_trip(COMPAT32_VIDIOC_DQEVENT, &a, an_event);
	ck_assert_uint_eq(a.type, V4L2_EVENT_CTRL);
	ck_assert_uint_eq(a.id, V4L2_CID_BRIGHTNESS);
	ck_assert_uint_eq(a.pending, 2);
	ck_assert_uint_eq(a.sequence, 7);
	ck_assert_int_eq(a.timestamp.tv_sec, 100);
	ck_assert_int_eq(a.timestamp.tv_nsec, 999999999);
	struct v4l2_event_ctrl ctrl;
	memcpy(&ctrl, a.u, sizeof(ctrl));
	ck_assert_int_eq(ctrl.value64, -5);
	ck_assert_int_eq(ctrl.maximum, 255);

	struct compat32_event_time32 b = { 0 };
	round_trip(COMPAT32_VIDIOC_DQEVENT_TIME32, &b, an_event);
	ck_assert_int_eq(b.timestamp.tv_sec, 100);
	ck_assert_int_eq(b.timestamp.tv_nsec, 999999999);
	ck_assert_uint_eq(b.sequence, 7);
}
END_TEST

START_TEST(xu_ioctls_keep_their_pointers)
{
	struct compat32_xu_control_mapping m = { .id = 0x0a046d01, .selector = 3, .size = 8,
						 .v4l2_type = V4L2_CTRL_TYPE_MENU,
						 .menu_info = 0xffe00000u, .menu_count = 4 };
	memcpy(m.name, "Focus", 6);
	const struct compat32_form *f = form_of(COMPAT32_UVCIOC_CTRL_MAP);
	struct uvc_xu_control_mapping n;
	f->to_native(&m, &n);
	ck_assert_uint_eq((uintptr_t)n.menu_info, 0xffe00000u);
	ck_assert_uint_eq(n.menu_count, 4);
	ck_assert_str_eq((char *)n.name, "Focus");
	ck_assert_uint_eq(n.selector, 3);
	n.menu_info = NULL;
	f->from_native(&n, &m);
	ck_assert_uint_eq(m.menu_info, 0xffe00000u);

	struct compat32_xu_control_query q = { .unit = 4, .selector = 2,
					       .query = UVC_GET_LEN, .size = 2,
					       .data = 0xffc00010u };
	f = form_of(COMPAT32_UVCIOC_CTRL_QUERY);
	struct uvc_xu_control_query nq;
	f->to_native(&q, &nq);
	ck_assert_uint_eq((uintptr_t)nq.data, 0xffc00010u);
	ck_assert_uint_eq(nq.size, 2);
	f->from_native(&nq, &q);
	ck_assert_uint_eq(q.data, 0xffc00010u);
	ck_assert_uint_eq(q.unit, 4);
}
END_TEST

/* --- against a 32-bit compiler's numbers ----------------------------------------- */

/* The native number of the command a 32-bit program names NAME: the node's
 * table, else the preload library's. */
static unsigned int native_number(const char *name)
{
	size_t n;
	const struct node_ioctl *t = node_ioctl_table(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return t[i].cmd;
	if (!strcmp(name, "UVCUSE_IOC_HELLO"))
		return UVCUSE_IOC_HELLO;
	if (!strcmp(name, "UVCUSE_IOC_SET_FLAGS"))
		return UVCUSE_IOC_SET_FLAGS;
	if (!strcmp(name, "UVCUSE_IOC_DQBUF_STAGED"))
		return UVCUSE_IOC_DQBUF_STAGED;
	if (!strcmp(name, "UVCUSE_IOC_EXPBUF"))
		return UVCUSE_IOC_EXPBUF;
	return 0;
}

/* A 32-bit number is served: as the native command of the same number, or
 * by a form converting to native. */
static bool served(unsigned int cmd32, unsigned int native)
{
	if (cmd32 == native)
		return true;
	const struct compat32_form *f = form_of(cmd32);
	if (f)
		return f->native_cmd == native;
	struct compat32_form staged[2];
	compat32_buffer_forms(UVCUSE_IOC_DQBUF_STAGED, "", "", staged);
	return native == UVCUSE_IOC_DQBUF_STAGED &&
	       (cmd32 == staged[0].cmd || cmd32 == staged[1].cmd);
}

/* The numbers compat32_layouts.c's 32-bit build recorded. */
struct numbered {
	char name[40];
	uint32_t cmd;
};

static void check_numbers(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f, "cannot open %s", path);
	size_t count, seen = 0, records = 0;
	node_ioctl_table(&count);
	struct numbered r;
	while (fread(&r, sizeof(r), 1, f) == 1) {
		records++;
		r.name[sizeof(r.name) - 1] = 0;
		unsigned int native = native_number(r.name);
		ck_assert_msg(native, "%s: %s is no command of ours", path, r.name);
		ck_assert_msg(served(r.cmd, native),
			      "%s: %s, numbered 0x%08x by 32-bit programs (native 0x%08x), has "
			      "no 32-bit form", path, r.name, r.cmd, native);
		if (strncmp(r.name, "UVCUSE_", 7))
			seen++;
	}
	fclose(f);
	ck_assert_uint_eq(records, count + 4); /* and the library's four */
	ck_assert_msg(seen == count, "%s names %zu of the node's %zu commands", path, seen, count);
}

START_TEST(every_command_of_32bit_programs_is_served)
{
	check_numbers(helpers[_i]);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("v4l2-compat32");
	TCase *tc = tcase_create("forms");
	tcase_add_test(tc, buffer_keeps_the_pointer_and_time);
	tcase_add_test(tc, buffer_time32_and_mmap_offset);
	tcase_add_test(tc, buffer_forms_of_another_command);
	tcase_add_test(tc, format_moves_its_union);
	tcase_add_test(tc, create_bufs_moves_its_format);
	tcase_add_test(tc, ext_controls_keep_the_callers_pointer);
	tcase_add_test(tc, event_in_both_time_layouts);
	tcase_add_test(tc, xu_ioctls_keep_their_pointers);
	suite_add_tcase(s, tc);
	if (argc == 3) {
		helpers[0] = argv[1], helpers[1] = argv[2];
		TCase *m32 = tcase_create("m32");
		tcase_add_loop_test(m32, every_command_of_32bit_programs_is_served, 0, 2);
		suite_add_tcase(s, m32);
	} else {
		printf("no -m32 toolchain: the numbers of 32-bit programs are not checked\n");
	}
	return unit_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node's ioctl table (src/v4l2/ioctls.c) and the retry planner
 * (src/cuse/ioctl_table.c) on the layouts the daemon gives CUSE from it:
 * each round of CUSE's unrestricted-ioctl protocol, as the kernel would
 * send it. */
#include <check.h>
#include <errno.h>
#include <linux/uvcvideo.h>
#include <linux/videodev2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "cuse/ioctl_table.h"
#include "v4l2/compat32.h"
#include "v4l2/ioctls.h"
#include "unit_run.h"

#define UARG 0x7f0000001000ul

static void *ptr(unsigned long a)
{
	return (void *)(uintptr_t)a;
}

/* The layout the daemon gives CUSE for cmd (as requests_ioctl_layouts makes them
 * for the node's ioctls), or NULL. */
static const struct cuse_ioctl_desc *cuse_ioctl_find(unsigned int cmd)
{
	static struct cuse_ioctl_desc descs[64];
	static size_t n;
	const struct node_ioctl *info = node_ioctl_find(cmd);
	if (!info)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (descs[i].cmd == cmd)
			return &descs[i];
	ck_assert_uint_lt(n, 64);
	descs[n] = cuse_ioctl_describe(cmd, info->name, info->flags & NODE_IOC_COPY_ON_ERROR,
				       info->regions);
	return &descs[n++];
}

START_TEST(every_entry_matches_its_command)
{
	size_t n;
	const struct node_ioctl *t = node_ioctl_table(&n);
	ck_assert_uint_ge(n, 36);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_eq(node_ioctl_find(t[i].cmd), &t[i]);
		ck_assert_ptr_nonnull(t[i].name);
		ck_assert_ptr_nonnull(t[i].run);
		/* only what may wait, waits; only the camera's, goes in line */
		ck_assert_msg(!(t[i].flags & NODE_IOC_MAY_WAIT) || t[i].cmd == VIDIOC_DQBUF ||
				      t[i].cmd == VIDIOC_DQEVENT, "%s", t[i].name);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(t[i].cmd != t[j].cmd, "%s twice", t[i].name);
	}
	ck_assert_ptr_nonnull(cuse_ioctl_find(VIDIOC_QUERYCAP));
	ck_assert_ptr_nonnull(cuse_ioctl_find(UVCIOC_CTRL_QUERY));
	ck_assert_ptr_null(cuse_ioctl_find(VIDIOC_G_TUNER));
	ck_assert_ptr_null(cuse_ioctl_find(0));
	/* The 32-bit layout of DQBUF differs in size: not ours. */
	ck_assert_ptr_null(cuse_ioctl_find(_IOC(_IOC_READ | _IOC_WRITE, 'V', 17, 68)));
	ck_assert(cuse_ioctl_find(VIDIOC_G_EXT_CTRLS)->flags & CUSE_IOCTL_ALWAYS_COPY);
	ck_assert(!(cuse_ioctl_find(VIDIOC_S_FMT)->flags & CUSE_IOCTL_ALWAYS_COPY));
}
END_TEST

START_TEST(io_is_called_at_once)
{
	struct cuse_plan p;
	const struct cuse_ioctl_desc *d = cuse_ioctl_find(VIDIOC_LOG_STATUS);
	ck_assert_int_eq(cuse_ioctl_plan(d, 0, NULL, 0, 0, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	ck_assert_ptr_null(p.arg);
	ck_assert_ptr_null(p.extra);
	ck_assert_uint_eq(p.n_out, 0);
}
END_TEST

START_TEST(ior_asks_out_then_calls)
{
	struct cuse_plan p;
	const struct cuse_ioctl_desc *d = cuse_ioctl_find(VIDIOC_QUERYCAP);
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, NULL, 0, 0, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert(!p.mismatch);
	ck_assert_uint_eq(p.n_in, 0);
	ck_assert_uint_eq(p.n_out, 1);
	ck_assert_ptr_eq(p.out_iov[0].iov_base, ptr(UARG));
	ck_assert_uint_eq(p.out_iov[0].iov_len, sizeof(struct v4l2_capability));
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, NULL, 0, sizeof(struct v4l2_capability), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	ck_assert_ptr_null(p.arg); /* the server hands the handler zeros */
	ck_assert_uint_eq(p.n_out, 1);
	ck_assert_uint_eq(p.out_src[0], 0);
}
END_TEST

START_TEST(iow_asks_in_then_calls)
{
	struct cuse_plan p;
	const struct cuse_ioctl_desc *d = cuse_ioctl_find(VIDIOC_STREAMON);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, NULL, 0, 0, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert_uint_eq(p.n_in, 1);
	ck_assert_uint_eq(p.n_out, 0);
	ck_assert_uint_eq(p.in_iov[0].iov_len, sizeof(int));
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, &type, sizeof(type), 0, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	ck_assert_ptr_eq(p.arg, &type);
	ck_assert_uint_eq(p.n_out, 0);
}
END_TEST

START_TEST(iowr_asks_both_then_calls)
{
	struct cuse_plan p;
	const struct cuse_ioctl_desc *d = cuse_ioctl_find(VIDIOC_S_FMT);
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, NULL, 0, 0, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert_uint_eq(p.n_in, 1);
	ck_assert_uint_eq(p.n_out, 1);
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, &f, sizeof(f), sizeof(f), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	ck_assert_ptr_eq(p.arg, &f);
	ck_assert_uint_eq(p.extra_len, 0);
	/* A malformed round (argument cut short) asks again, as a mismatch. */
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, &f, 10, sizeof(f), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert(p.mismatch);
}
END_TEST

/* The in_buf of one round: the argument, then the regions' bytes. */
struct ext_round {
	struct v4l2_ext_controls c;
	struct v4l2_ext_control ctrls[64];
};

static void ext_rounds(unsigned count)
{
	struct cuse_plan p;
	const struct cuse_ioctl_desc *d = cuse_ioctl_find(VIDIOC_G_EXT_CTRLS);
	struct ext_round *r = calloc(1, sizeof(*r));
	r->c.count = count;
	r->c.controls = ptr(0x5000);
	size_t arr = count * sizeof(struct v4l2_ext_control);

	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, NULL, 0, 0, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert_uint_eq(p.n_in, 1);

	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, r, sizeof(r->c), sizeof(r->c), &p), 0);
	if (count == 0) {
		ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
		ck_assert_ptr_null(p.extra);
		free(r);
		return;
	}
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert(!p.mismatch);
	ck_assert_uint_eq(p.n_in, 2);
	ck_assert_uint_eq(p.n_out, 2);
	ck_assert_ptr_eq(p.in_iov[1].iov_base, ptr(0x5000));
	ck_assert_uint_eq(p.in_iov[1].iov_len, arr);
	ck_assert_ptr_eq(p.out_iov[1].iov_base, ptr(0x5000));
	ck_assert_uint_eq(p.out_iov[1].iov_len, arr);

	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, r, sizeof(r->c) + arr, sizeof(r->c) + arr, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	ck_assert_ptr_eq(p.arg, r);
	ck_assert_ptr_eq(p.extra, (char *)r + sizeof(r->c));
	ck_assert_uint_eq(p.extra_len, arr);
	ck_assert_uint_eq(p.out_src[0], 0);
	ck_assert_uint_eq(p.out_src[1], sizeof(r->c));
	free(r);
}

START_TEST(ext_ctrls_zero_one_many)
{
	ext_rounds(0);
	ext_rounds(1);
	ext_rounds(64);
}
END_TEST

/* QBUF/PREPARE_BUF of a USERPTR capture buffer: the kernel reads the
 * buffer's first and last byte (EFAULT before the daemon sees a bad
 * pointer); MMAP buffers and a null pointer need nothing more. */
START_TEST(userptr_first_and_last_byte)
{
	unsigned cmds[] = { VIDIOC_QBUF, VIDIOC_PREPARE_BUF };
	for (unsigned i = 0; i < 2; i++) {
		const struct cuse_ioctl_desc *d = cuse_ioctl_find(cmds[i]);
		struct cuse_plan p;
		struct {
			struct v4l2_buffer b;
			char bytes[2];
		} r = { .b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_USERPTR,
			       .m.userptr = 0x7000, .length = 614400 } };
		ck_assert_int_eq(cuse_ioctl_plan(d, UARG, &r.b, sizeof(r.b), sizeof(r.b), &p), 0);
		ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
		ck_assert_uint_eq(p.n_in, 3);
		ck_assert_ptr_eq(p.in_iov[1].iov_base, ptr(0x7000));
		ck_assert_uint_eq(p.in_iov[1].iov_len, 1);
		ck_assert_ptr_eq(p.in_iov[2].iov_base, ptr(0x7000 + 614400 - 1));
		ck_assert_uint_eq(p.in_iov[2].iov_len, 1);
		ck_assert_uint_eq(p.n_out, 1); /* nothing written back into the buffer */
		ck_assert_int_eq(cuse_ioctl_plan(d, UARG, &r, sizeof(r.b) + 2, sizeof(r.b), &p), 0);
		ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
		r.b.m.userptr = 0;
		ck_assert_int_eq(cuse_ioctl_plan(d, UARG, &r.b, sizeof(r.b), sizeof(r.b), &p), 0);
		ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
		r.b.memory = V4L2_MEMORY_MMAP;
		r.b.m.offset = 0x7000;
		ck_assert_int_eq(cuse_ioctl_plan(d, UARG, &r.b, sizeof(r.b), sizeof(r.b), &p), 0);
		ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	}
}
END_TEST

/* A 32-bit form as the device lays it out (requests_compat_layouts). */
static struct cuse_ioctl_desc compat_desc(unsigned int cmd32)
{
	size_t n;
	const struct compat32_form *f = compat32_forms(&n);
	for (size_t i = 0; i < n; i++) {
		if (f[i].cmd != cmd32)
			continue;
		struct cuse_ioctl_desc d = *cuse_ioctl_find(f[i].native_cmd);
		d.cmd = cmd32, d.size = _IOC_SIZE(cmd32), d.name = f[i].name;
		d.native_cmd = f[i].native_cmd, d.native_size = _IOC_SIZE(f[i].native_cmd);
		d.to_native = f[i].to_native, d.from_native = f[i].from_native;
		return d;
	}
	ck_abort_msg("no form 0x%08x", cmd32);
	return (struct cuse_ioctl_desc){ 0 };
}

/* A 32-bit caller gets its own form of a command, else the native entry
 * of the number it sent; a native caller never gets a 32-bit form. */
START_TEST(compat_lookup)
{
	struct cuse_ioctl_desc t[3] = { *cuse_ioctl_find(VIDIOC_QBUF),
					compat_desc(COMPAT32_VIDIOC_QBUF),
					*cuse_ioctl_find(VIDIOC_QUERYCAP) };
	ck_assert_ptr_eq(cuse_ioctl_lookup(t, 3, VIDIOC_QBUF, false), &t[0]);
	ck_assert_ptr_null(cuse_ioctl_lookup(t, 3, COMPAT32_VIDIOC_QBUF, false));
	ck_assert_ptr_eq(cuse_ioctl_lookup(t, 3, COMPAT32_VIDIOC_QBUF, true), &t[1]);
	ck_assert_ptr_eq(cuse_ioctl_lookup(t, 3, VIDIOC_QUERYCAP, true), &t[2]);
	ck_assert_ptr_null(cuse_ioctl_lookup(t, 3, COMPAT32_VIDIOC_QBUF_TIME32, true));
}
END_TEST

/* A 32-bit QBUF of a USERPTR buffer: 76 bytes in and out, the regions
 * read from its native form (the 32-bit pointer's first and last byte). */
START_TEST(compat_userptr_regions)
{
	struct cuse_ioctl_desc d = compat_desc(COMPAT32_VIDIOC_QBUF);
	struct cuse_plan p;
	struct {
		struct compat32_buffer b;
		char bytes[2];
	} r = { .b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_USERPTR,
		       .m = 0xf7000000u, .length = 4096 } };
	ck_assert_int_eq(cuse_ioctl_plan(&d, 0xffd0, NULL, 0, 0, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert_uint_eq(p.in_iov[0].iov_len, 76);
	ck_assert_int_eq(cuse_ioctl_plan(&d, 0xffd0, &r.b, 76, 76, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert_uint_eq(p.n_in, 3);
	ck_assert_ptr_eq(p.in_iov[1].iov_base, ptr(0xf7000000u));
	ck_assert_ptr_eq(p.in_iov[2].iov_base, ptr(0xf7000000u + 4095));
	ck_assert_int_eq(cuse_ioctl_plan(&d, 0xffd0, &r, 78, 76, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	/* a 32-bit S_EXT_CTRLS: the array at the 32-bit pointer, 20 bytes each */
	d = compat_desc(COMPAT32_VIDIOC_S_EXT_CTRLS);
	struct compat32_ext_controls c = { .count = 3, .controls = 0xffe000u };
	ck_assert_int_eq(cuse_ioctl_plan(&d, 0xffd0, &c, sizeof(c), sizeof(c), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert_ptr_eq(p.in_iov[1].iov_base, ptr(0xffe000u));
	ck_assert_uint_eq(p.in_iov[1].iov_len, 60);
}
END_TEST

START_TEST(ext_ctrls_too_many)
{
	struct cuse_plan p;
	const struct cuse_ioctl_desc *d = cuse_ioctl_find(VIDIOC_S_EXT_CTRLS);
	struct v4l2_ext_controls c = { .count = V4L2_CID_MAX_CTRLS, .controls = ptr(0x5000) };
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, &c, sizeof(c), sizeof(c), &p), 0);
	ck_assert_uint_eq(p.in_iov[1].iov_len, V4L2_CID_MAX_CTRLS * sizeof(struct v4l2_ext_control));
	c.count = V4L2_CID_MAX_CTRLS + 1;
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, &c, sizeof(c), sizeof(c), &p), -EINVAL);
	c.count = UINT32_MAX;
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, &c, sizeof(c), sizeof(c), &p), -EINVAL);
}
END_TEST

static int huge_regions(const void *arg, struct iovec *iov, bool *out, unsigned max)
{
	const size_t *len = arg;
	(void)max;
	iov[0] = (struct iovec){ ptr(0x9000), *len };
	out[0] = true;
	return 1;
}

START_TEST(region_too_large)
{
	struct cuse_plan p;
	struct cuse_ioctl_desc d = { .cmd = _IOWR('X', 1, size_t), .name = "TEST", .size = sizeof(size_t),
				     .regions = huge_regions };
	size_t len = CUSE_IOCTL_MAX_DATA - sizeof(size_t);
	ck_assert_int_eq(cuse_ioctl_plan(&d, UARG, &len, sizeof(len), sizeof(len), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	len++;
	ck_assert_int_eq(cuse_ioctl_plan(&d, UARG, &len, sizeof(len), sizeof(len), &p), -E2BIG);
	len = SIZE_MAX;
	ck_assert_int_eq(cuse_ioctl_plan(&d, UARG, &len, sizeof(len), sizeof(len), &p), -E2BIG);
}
END_TEST

START_TEST(argument_changed_between_rounds)
{
	struct cuse_plan p;
	const struct cuse_ioctl_desc *d = cuse_ioctl_find(VIDIOC_G_EXT_CTRLS);
	struct ext_round *r = calloc(1, sizeof(*r));
	r->c.count = 2;
	r->c.controls = ptr(0x5000);
	size_t two = 2 * sizeof(struct v4l2_ext_control);
	/* Round 3 brought 2 controls, but the argument now says 5. */
	r->c.count = 5;
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, r, sizeof(r->c) + two, sizeof(r->c) + two, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert(p.mismatch);
	ck_assert_uint_eq(p.in_iov[1].iov_len, 5 * sizeof(struct v4l2_ext_control));
	/* ...then 0: only the argument is wanted now. */
	r->c.count = 0;
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, r, sizeof(r->c) + two, sizeof(r->c) + two, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert(p.mismatch);
	ck_assert_uint_eq(p.n_in, 1);
	/* The next round is consistent: called. */
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, r, sizeof(r->c), sizeof(r->c), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	/* A pointer moved with the same count is not visible in the sizes:
	 * the kernel copied from the old one, the call goes ahead. */
	r->c.count = 2;
	r->c.controls = ptr(0x6000);
	ck_assert_int_eq(cuse_ioctl_plan(d, UARG, r, sizeof(r->c) + two, sizeof(r->c) + two, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	free(r);
}
END_TEST

START_TEST(uvc_ctrl_map_and_query)
{
	struct cuse_plan p;
	const struct cuse_ioctl_desc *map = cuse_ioctl_find(UVCIOC_CTRL_MAP);
	struct {
		struct uvc_xu_control_mapping m;
		struct uvc_menu_info menu[32];
	} a = { .m = { .v4l2_type = V4L2_CTRL_TYPE_INTEGER, .menu_count = 99 } };
	/* Not a menu: menu_info is ignored. */
	ck_assert_int_eq(cuse_ioctl_plan(map, UARG, &a, sizeof(a.m), sizeof(a.m), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	a.m.v4l2_type = V4L2_CTRL_TYPE_MENU;
	ck_assert_int_eq(cuse_ioctl_plan(map, UARG, &a, sizeof(a.m), sizeof(a.m), &p), -EINVAL);
	a.m.menu_count = 0;
	ck_assert_int_eq(cuse_ioctl_plan(map, UARG, &a, sizeof(a.m), sizeof(a.m), &p), -EINVAL);
	a.m.menu_count = 3;
	a.m.menu_info = ptr(0x7000);
	ck_assert_int_eq(cuse_ioctl_plan(map, UARG, &a, sizeof(a.m), sizeof(a.m), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert_uint_eq(p.n_in, 2);
	ck_assert_uint_eq(p.n_out, 1); /* menu_info is read only */
	ck_assert_uint_eq(p.in_iov[1].iov_len, 3 * sizeof(struct uvc_menu_info));
	size_t in = sizeof(a.m) + 3 * sizeof(struct uvc_menu_info);
	ck_assert_int_eq(cuse_ioctl_plan(map, UARG, &a, in, sizeof(a.m), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	ck_assert_uint_eq(p.extra_len, 3 * sizeof(struct uvc_menu_info));

	const struct cuse_ioctl_desc *query = cuse_ioctl_find(UVCIOC_CTRL_QUERY);
	struct {
		struct uvc_xu_control_query q;
		unsigned char data[64];
	} b = { .q = { .query = 0x81, .size = 0 } };
	ck_assert_int_eq(cuse_ioctl_plan(query, UARG, &b, sizeof(b.q), sizeof(b.q), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	b.q.size = 11;
	b.q.data = ptr(0x8000);
	ck_assert_int_eq(cuse_ioctl_plan(query, UARG, &b, sizeof(b.q), sizeof(b.q), &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_RETRY);
	ck_assert_uint_eq(p.n_out, 2);
	ck_assert_uint_eq(p.out_iov[1].iov_len, 11);
	ck_assert_int_eq(cuse_ioctl_plan(query, UARG, &b, sizeof(b.q) + 11, sizeof(b.q) + 11, &p), 0);
	ck_assert_int_eq(p.kind, CUSE_PLAN_CALL);
	ck_assert_uint_eq(p.out_src[1], sizeof(b.q));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cuse-ioctl-table");
	TCase *tc = tcase_create("plan");
	tcase_add_test(tc, every_entry_matches_its_command);
	tcase_add_test(tc, io_is_called_at_once);
	tcase_add_test(tc, ior_asks_out_then_calls);
	tcase_add_test(tc, iow_asks_in_then_calls);
	tcase_add_test(tc, iowr_asks_both_then_calls);
	tcase_add_test(tc, ext_ctrls_zero_one_many);
	tcase_add_test(tc, ext_ctrls_too_many);
	tcase_add_test(tc, userptr_first_and_last_byte);
	tcase_add_test(tc, region_too_large);
	tcase_add_test(tc, argument_changed_between_rounds);
	tcase_add_test(tc, uvc_ctrl_map_and_query);
	tcase_add_test(tc, compat_lookup);
	tcase_add_test(tc, compat_userptr_regions);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* V4L2 controls with uvcvideo 6.1's answers (src/v4l2/controls.c), over the
 * virtual camera: its descriptors give the camera model, its control model
 * (tests/vcam/controls.c) answers the UVC requests. The control list must be
 * what `uvcuse-vcam --describe` prints (uvcvideo's list in the VM); ranges,
 * defaults, flags, menus, clamping and access follow uvc_ctrl.c. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>
#include <linux/uvcvideo.h>
#include <linux/videodev2.h>

#include "controls.h"
#include "descriptors.h"
#include "profile.h"
#include "uvc/descriptors.h"
#include "v4l2/controls.h"
#include "unit_run.h"
#include "vcam_fixture.h"

static const char *vcam_exe; /* argv[1]: uvcuse-vcam, for --describe */

struct rig {
	struct uvc_camera *cam;
	struct vcam_controls *vc;
	struct ctrls c;
	unsigned requests;
	int fail_next;    /* answer the next request with this errno */
	int info_override; /* >= 0: GET_INFO of brightness answers this */
};

static struct rig *rig_new(const struct vcam_profile *p)
{
	struct rig *g = calloc(1, sizeof(*g));
	ck_assert_ptr_nonnull(g);
	g->vc = vcam_controls_new(p->bcd_uvc);
	ck_assert_ptr_nonnull(g->vc);
	g->cam = fixture_camera_with(p, g->vc);
	ck_assert_int_eq(ctrls_init(&g->c, g->cam), 0);
	g->info_override = -1;
	return g;
}

static void rig_free(struct rig *g)
{
	ctrls_free(&g->c);
	uvc_camera_free(g->cam);
	vcam_controls_free(g->vc);
	free(g);
}

/* One UVC request to the vcam, as the device layer will make it. */
static int usb(struct rig *g, const struct ctrls_request *r, uint8_t *data)
{
	const struct uvc_entity *e = uvc_camera_find_entity(g->cam, r->entity);
	ck_assert_ptr_nonnull(e);
	enum vcam_entity ve = e->kind == UVC_ENTITY_PROCESSING_UNIT ? VCAM_ENTITY_PROCESSING
			      : e->kind == UVC_ENTITY_EXTENSION_UNIT  ? VCAM_ENTITY_EXTENSION
								      : VCAM_ENTITY_CAMERA;
	g->requests++;
	if (g->fail_next) {
		int err = g->fail_next;
		g->fail_next = 0;
		return err;
	}
	if (r->query == UVC_GET_INFO && g->info_override >= 0 && ve == VCAM_ENTITY_PROCESSING &&
	    r->selector == UVC_PU_BRIGHTNESS_CONTROL) {
		data[0] = (uint8_t)g->info_override;
		return 1;
	}
	int n = vcam_controls_request(g->vc, ve, r->query, r->selector, data, r->size);
	return n < 0 ? -EPIPE : n;
}

static void feed(struct rig *g)
{
	uint8_t data[CTRLS_MAX_BYTES];
	struct ctrls_request r = g->c.need;
	ctrls_feed(&g->c, &r, data, usb(g, &r, data));
}

static void probe(struct rig *g)
{
	struct ctrls_request r;
	uint8_t data[CTRLS_MAX_BYTES];
	while (ctrls_next_info(&g->c, &r))
		ctrls_feed(&g->c, &r, data, usb(g, &r, data));
}

/* Runs an operation until it answers. */
#define RUN(g, call)                                 \
	do {                                         \
		while ((ret = (call)) == CTRLS_NEED) \
			feed(g);                     \
	} while (0)

static int queryctrl(struct rig *g, struct v4l2_queryctrl *qc)
{
	int ret;
	RUN(g, ctrls_queryctrl(&g->c, qc));
	return ret;
}

static int get(struct rig *g, uint32_t id, int32_t *v)
{
	int ret;
	RUN(g, ctrls_get(&g->c, id, v));
	ctrls_end(&g->c);
	return ret;
}

/* VIDIOC_S_EXT_CTRLS as uvc_ioctl_s_try_ext_ctrls: access, set, commit. */
static int s_ext(struct rig *g, struct v4l2_ext_control *xs, unsigned n, unsigned long ioctl,
		 unsigned *error_idx)
{
	int ret = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		RUN(g, ctrls_check_access(&g->c, xs, n, i, ioctl));
		if (ret)
			break;
	}
	if (ret) {
		*error_idx = ioctl == VIDIOC_TRY_EXT_CTRLS ? i : n;
		return ret;
	}
	for (i = 0; i < n; i++) {
		int32_t v = xs[i].value;
		RUN(g, ctrls_set(&g->c, xs[i].id, &v));
		xs[i].value = v;
		if (ret) {
			ctrls_rollback(&g->c);
			ctrls_end(&g->c);
			*error_idx = ioctl == VIDIOC_S_EXT_CTRLS ? n : i;
			return ret;
		}
	}
	*error_idx = 0;
	if (ioctl == VIDIOC_TRY_EXT_CTRLS) {
		ctrls_rollback(&g->c);
		ctrls_end(&g->c);
		return 0;
	}
	struct ctrls_request r;
	const uint8_t *bytes;
	unsigned from = 0;
	while (ctrls_commit_next(&g->c, from, &r, &bytes)) {
		uint8_t d[CTRLS_MAX_BYTES];
		memcpy(d, bytes, r.size);
		int res = usb(g, &r, d);
		ctrls_commit_done(&g->c, r.ctrl, res);
		if (res < 0) {
			ctrls_rollback(&g->c);
			*error_idx = ctrls_error_idx(&g->c, r.ctrl, xs, n);
			ret = res;
			break;
		}
		from = r.ctrl + 1;
	}
	ctrls_end(&g->c);
	return ret;
}

static int set1(struct rig *g, uint32_t id, int32_t *v)
{
	struct v4l2_ext_control x = { .id = id, .value = *v };
	unsigned idx;
	int ret = s_ext(g, &x, 1, VIDIOC_S_EXT_CTRLS, &idx);
	*v = x.value;
	return ret;
}

/* v4l2-ctl's name for a control (name2var in v4l2-ctl-common.cpp). */
static void var_name(const char *name, char *out, size_t cap)
{
	size_t n = 0;
	int underscore = 0;
	for (; *name && n + 2 < cap; name++) {
		if ((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') ||
		    (*name >= '0' && *name <= '9')) {
			if (underscore)
				out[n++] = '_';
			underscore = 0;
			out[n++] = (char)(*name >= 'A' && *name <= 'Z' ? *name + 32 : *name);
		} else if (n) {
			underscore = 1;
		}
	}
	out[n] = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* What uvcvideo 6.1 answers for the default profile (bcdUVC 1.1), derived
 * from the vcam's table and uvc_ctrl.c: id, type, min, max, step, default. */
static const struct expect {
	uint32_t id;
	uint32_t type;
	int32_t min, max, step, def;
} expected[] = {
	{ V4L2_CID_USER_CLASS, V4L2_CTRL_TYPE_CTRL_CLASS, 0, 0, 0, 0 },
	{ V4L2_CID_BRIGHTNESS, V4L2_CTRL_TYPE_INTEGER, -64, 64, 1, 0 },
	{ V4L2_CID_CONTRAST, V4L2_CTRL_TYPE_INTEGER, 0, 100, 1, 50 },
	{ V4L2_CID_SATURATION, V4L2_CTRL_TYPE_INTEGER, 0, 100, 1, 60 },
	{ V4L2_CID_HUE, V4L2_CTRL_TYPE_INTEGER, -180, 180, 1, 0 },
	{ V4L2_CID_AUTO_WHITE_BALANCE, V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 0 },
	{ V4L2_CID_RED_BALANCE, V4L2_CTRL_TYPE_INTEGER, 0, 1023, 1, 512 },
	{ V4L2_CID_BLUE_BALANCE, V4L2_CTRL_TYPE_INTEGER, 0, 1023, 1, 512 },
	{ V4L2_CID_GAMMA, V4L2_CTRL_TYPE_INTEGER, 72, 500, 1, 100 },
	{ V4L2_CID_GAIN, V4L2_CTRL_TYPE_INTEGER, 0, 100, 1, 0 },
	{ V4L2_CID_POWER_LINE_FREQUENCY, V4L2_CTRL_TYPE_MENU, 0, 2, 1, 1 },
	{ V4L2_CID_HUE_AUTO, V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 0 },
	{ V4L2_CID_WHITE_BALANCE_TEMPERATURE, V4L2_CTRL_TYPE_INTEGER, 2800, 6500, 10, 4600 },
	{ V4L2_CID_SHARPNESS, V4L2_CTRL_TYPE_INTEGER, 0, 7, 1, 3 },
	{ V4L2_CID_BACKLIGHT_COMPENSATION, V4L2_CTRL_TYPE_INTEGER, 0, 2, 1, 1 },
	{ V4L2_CID_CAMERA_CLASS, V4L2_CTRL_TYPE_CTRL_CLASS, 0, 0, 0, 0 },
	{ V4L2_CID_EXPOSURE_AUTO, V4L2_CTRL_TYPE_MENU, 0, 3, 1, V4L2_EXPOSURE_MANUAL },
	{ V4L2_CID_EXPOSURE_ABSOLUTE, V4L2_CTRL_TYPE_INTEGER, 3, 2047, 1, 156 },
	{ V4L2_CID_EXPOSURE_AUTO_PRIORITY, V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 0 }, /* no GET_DEF */
	{ V4L2_CID_PAN_ABSOLUTE, V4L2_CTRL_TYPE_INTEGER, -36000, 36000, 3600, 0 },
	{ V4L2_CID_TILT_ABSOLUTE, V4L2_CTRL_TYPE_INTEGER, -36000, 36000, 3600, 0 },
	{ V4L2_CID_FOCUS_ABSOLUTE, V4L2_CTRL_TYPE_INTEGER, 0, 250, 5, 0 },
	{ V4L2_CID_FOCUS_AUTO, V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 0 },
	{ V4L2_CID_ZOOM_ABSOLUTE, V4L2_CTRL_TYPE_INTEGER, 100, 400, 1, 100 },
	{ V4L2_CID_ZOOM_CONTINUOUS, V4L2_CTRL_TYPE_INTEGER, 0, 7, 1, 0 },
	{ V4L2_CID_PRIVACY, V4L2_CTRL_TYPE_BOOLEAN, 0, 1, 1, 0 },
	{ V4L2_CID_IRIS_ABSOLUTE, V4L2_CTRL_TYPE_INTEGER, 200, 1600, 10, 200 },
	{ V4L2_CID_PAN_SPEED, V4L2_CTRL_TYPE_INTEGER, 0, 4, 1, 0 },
	{ V4L2_CID_TILT_SPEED, V4L2_CTRL_TYPE_INTEGER, 0, 4, 1, 0 },
};
#define N_EXPECTED (sizeof(expected) / sizeof(expected[0]))

START_TEST(default_profile_list)
{
	struct rig *g = rig_new(vcam_profile_find("default"));
	struct v4l2_queryctrl qc = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
	unsigned n = 0;

	probe(g);
	while (queryctrl(g, &qc) == 0) {
		ck_assert_uint_lt(n, N_EXPECTED);
		const struct expect *x = &expected[n++];
		ck_assert_msg(qc.id == x->id, "control %u: 0x%08x, expected 0x%08x", n - 1, qc.id, x->id);
		ck_assert_uint_eq(qc.type, x->type);
		ck_assert_int_eq(qc.minimum, x->min);
		ck_assert_int_eq(qc.maximum, x->max);
		ck_assert_int_eq(qc.step, x->step);
		ck_assert_int_eq(qc.default_value, x->def);
		ck_assert_uint_eq(qc.flags, x->type == V4L2_CTRL_TYPE_CTRL_CLASS
						    ? V4L2_CTRL_FLAG_READ_ONLY | V4L2_CTRL_FLAG_WRITE_ONLY
						    : 0);
		qc.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	ck_assert_uint_eq(n, N_EXPECTED);
	ck_assert_uint_eq(n - 2, 27);

	/* Without NEXT_CTRL: each id by itself, classes too. */
	struct v4l2_queryctrl one = { .id = V4L2_CID_CAMERA_CLASS };
	ck_assert_int_eq(queryctrl(g, &one), 0);
	ck_assert_str_eq((char *)one.name, "Camera Controls");
	one = (struct v4l2_queryctrl){ .id = V4L2_CID_EXPOSURE_AUTO };
	ck_assert_int_eq(queryctrl(g, &one), 0);
	ck_assert_str_eq((char *)one.name, "Auto Exposure");
	one = (struct v4l2_queryctrl){ .id = V4L2_CID_IRIS_RELATIVE };
	ck_assert_int_eq(queryctrl(g, &one), -EINVAL);
	one = (struct v4l2_queryctrl){ .id = 0 };
	ck_assert_int_eq(queryctrl(g, &one), -EINVAL);

	/* QUERY_EXT_CTRL: NEXT_COMPOUND alone is an exact lookup; with
	 * NEXT_CTRL it enumerates the same. */
	struct v4l2_query_ext_ctrl e = { .id = V4L2_CID_BRIGHTNESS | V4L2_CTRL_FLAG_NEXT_COMPOUND };
	int ret;
	RUN(g, ctrls_query_ext_ctrl(&g->c, &e));
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(e.id, V4L2_CID_BRIGHTNESS);
	ck_assert_int_eq(e.minimum, -64);
	ck_assert_uint_eq(e.elem_size, 4);
	ck_assert_uint_eq(e.elems, 1);
	e = (struct v4l2_query_ext_ctrl){ .id = V4L2_CID_BRIGHTNESS | V4L2_CTRL_FLAG_NEXT_CTRL |
						V4L2_CTRL_FLAG_NEXT_COMPOUND };
	RUN(g, ctrls_query_ext_ctrl(&g->c, &e));
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(e.id, V4L2_CID_CONTRAST);
	e = (struct v4l2_query_ext_ctrl){ .id = V4L2_CID_TILT_SPEED | V4L2_CTRL_FLAG_NEXT_CTRL };
	RUN(g, ctrls_query_ext_ctrl(&g->c, &e));
	ck_assert_int_eq(ret, -EINVAL);
	rig_free(g);
}
END_TEST

/* The names of every profile's controls equal `uvcuse-vcam --describe`. */
START_TEST(describe_names)
{
	const struct vcam_profile *p = &vcam_profiles[_i];
	struct rig *g = rig_new(p);
	char names[64][64], line[256];
	struct v4l2_queryctrl qc = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
	unsigned n = 0, m = 0;

	probe(g);
	while (queryctrl(g, &qc) == 0) {
		if (qc.type != V4L2_CTRL_TYPE_CTRL_CLASS) {
			ck_assert_uint_lt(n, 64);
			var_name((char *)qc.name, names[n++], sizeof(names[0]));
		}
		/* The power line menu follows bcdUVC. */
		if (qc.id == V4L2_CID_POWER_LINE_FREQUENCY)
			ck_assert_int_eq(qc.maximum, p->bcd_uvc >= 0x0150 ? 3 : 2);
		qc.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	qsort(names, n, sizeof(names[0]), cmp_str);
	ck_assert_uint_eq(n, 27);

	if (!vcam_exe) {
		rig_free(g);
		return;
	}
	snprintf(line, sizeof(line), "%s --profile %s --describe", vcam_exe, p->name);
	FILE *f = popen(line, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "control ", 8))
			continue;
		line[strcspn(line, "\n")] = 0;
		ck_assert_uint_lt(m, n);
		ck_assert_str_eq(names[m], line + 8);
		m++;
	}
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_uint_eq(m, n);
	rig_free(g);
}
END_TEST

START_TEST(menus)
{
	struct rig *g = rig_new(vcam_profile_find("default"));
	struct v4l2_querymenu qm;
	int ret;

	probe(g);
	/* Auto exposure: the vcam offers Manual and Auto (GET_RES = 0x03). */
	static const char *const ae[] = { "Auto Mode", "Manual Mode", NULL, NULL };
	for (unsigned i = 0; i < 4; i++) {
		qm = (struct v4l2_querymenu){ .id = V4L2_CID_EXPOSURE_AUTO, .index = i };
		RUN(g, ctrls_querymenu(&g->c, &qm));
		if (ae[i]) {
			ck_assert_int_eq(ret, 0);
			ck_assert_str_eq((char *)qm.name, ae[i]);
		} else {
			ck_assert_int_eq(ret, -EINVAL);
		}
		ck_assert_uint_eq(qm.index, i);
	}
	qm = (struct v4l2_querymenu){ .id = V4L2_CID_EXPOSURE_AUTO, .index = 32 };
	ck_assert_int_eq(ctrls_querymenu(&g->c, &qm), -EINVAL);
	/* Power line frequency, UVC 1.1: three entries. */
	static const char *const plf[] = { "Disabled", "50 Hz", "60 Hz", NULL };
	for (unsigned i = 0; i < 4; i++) {
		qm = (struct v4l2_querymenu){ .id = V4L2_CID_POWER_LINE_FREQUENCY, .index = i };
		RUN(g, ctrls_querymenu(&g->c, &qm));
		ck_assert_int_eq(ret, plf[i] ? 0 : -EINVAL);
		if (plf[i])
			ck_assert_str_eq((char *)qm.name, plf[i]);
	}
	qm = (struct v4l2_querymenu){ .id = V4L2_CID_BRIGHTNESS, .index = 0 };
	ck_assert_int_eq(ctrls_querymenu(&g->c, &qm), -EINVAL);
	rig_free(g);

	/* UVC 1.5: Auto too. */
	for (size_t k = 0; k < vcam_profile_count; k++) {
		if (vcam_profiles[k].bcd_uvc < 0x0150)
			continue;
		g = rig_new(&vcam_profiles[k]);
		probe(g);
		qm = (struct v4l2_querymenu){ .id = V4L2_CID_POWER_LINE_FREQUENCY, .index = 3 };
		RUN(g, ctrls_querymenu(&g->c, &qm));
		ck_assert_int_eq(ret, 0);
		ck_assert_str_eq((char *)qm.name, "Auto");
		rig_free(g);
		break;
	}
}
END_TEST

/* uvc_ctrl_set's clamping: value in, value out (or error). */
static const struct clamp_case {
	uint32_t id;
	int32_t in, out;
	int err;
} clamps[] = {
	{ V4L2_CID_BRIGHTNESS, 100, 64, 0 },
	{ V4L2_CID_BRIGHTNESS, -100, -64, 0 },
	{ V4L2_CID_BRIGHTNESS, 7, 7, 0 },
	{ V4L2_CID_WHITE_BALANCE_TEMPERATURE, 2804, 2800, 0 },
	{ V4L2_CID_WHITE_BALANCE_TEMPERATURE, 2805, 2810, 0 },  /* rounds half up */
	{ V4L2_CID_WHITE_BALANCE_TEMPERATURE, 7000, 6500, 0 },
	{ V4L2_CID_WHITE_BALANCE_TEMPERATURE, 1000, 2800, 0 },
	{ V4L2_CID_CONTRAST, -5, 100, 0 },        /* unsigned: -5 is huge, so max */
	{ V4L2_CID_CONTRAST, 101, 100, 0 },
	{ V4L2_CID_PAN_ABSOLUTE, 5000, 3600, 0 }, /* steps from the minimum */
	{ V4L2_CID_PAN_ABSOLUTE, -5500, -7200, 0 },
	{ V4L2_CID_PAN_ABSOLUTE, INT32_MAX, 36000, 0 },
	{ V4L2_CID_FOCUS_ABSOLUTE, 12, 10, 0 },
	{ V4L2_CID_FOCUS_ABSOLUTE, 13, 15, 0 },
	{ V4L2_CID_AUTO_WHITE_BALANCE, 5, 1, 0 },
	{ V4L2_CID_AUTO_WHITE_BALANCE, -3, 0, 0 },
	{ V4L2_CID_POWER_LINE_FREQUENCY, 2, 2, 0 },
	{ V4L2_CID_POWER_LINE_FREQUENCY, 3, 3, -ERANGE },
	{ V4L2_CID_POWER_LINE_FREQUENCY, -1, -1, -ERANGE },
	{ V4L2_CID_EXPOSURE_AUTO, V4L2_EXPOSURE_SHUTTER_PRIORITY, 2, -EINVAL }, /* not in GET_RES */
	{ V4L2_CID_EXPOSURE_AUTO, 4, 4, -ERANGE },
	{ V4L2_CID_EXPOSURE_AUTO, V4L2_EXPOSURE_MANUAL, 1, 0 },
	{ V4L2_CID_ZOOM_CONTINUOUS, 9, 7, 0 },
	{ V4L2_CID_PAN_SPEED, -2, 0, 0 },         /* range 0..4: uvcvideo clamps to 0 */
	{ V4L2_CID_CAMERA_CLASS, 0, 0, -EACCES },
	{ V4L2_CID_IRIS_RELATIVE, 0, 0, -EINVAL },
};

START_TEST(clamping)
{
	const struct clamp_case *k = &clamps[_i];
	struct rig *g = rig_new(vcam_profile_find("default"));
	int32_t v = k->in;
	int ret;

	probe(g);
	RUN(g, ctrls_set(&g->c, k->id, &v));
	ck_assert_msg(ret == k->err, "0x%08x %d: %d, expected %d", k->id, k->in, ret, k->err);
	ck_assert_int_eq(v, k->out);
	ctrls_rollback(&g->c);
	rig_free(g);
}
END_TEST

START_TEST(set_reaches_camera)
{
	struct rig *g = rig_new(vcam_profile_find("default"));
	int32_t v = 32;
	uint8_t d[8];

	probe(g);
	ck_assert_int_eq(set1(g, V4L2_CID_BRIGHTNESS, &v), 0);
	ck_assert_int_eq(vcam_controls_brightness(g->vc), 32);
	ck_assert_int_eq(get(g, V4L2_CID_BRIGHTNESS, &v), 0);
	ck_assert_int_eq(v, 32);

	/* Pan and tilt share one control: setting tilt keeps pan. */
	v = 7200;
	ck_assert_int_eq(set1(g, V4L2_CID_PAN_ABSOLUTE, &v), 0);
	v = -3600;
	ck_assert_int_eq(set1(g, V4L2_CID_TILT_ABSOLUTE, &v), 0);
	ck_assert_int_eq(vcam_controls_request(g->vc, VCAM_ENTITY_CAMERA, UVC_GET_CUR,
					       UVC_CT_PANTILT_ABSOLUTE_CONTROL, d, 8), 8);
	ck_assert_mem_eq(d, ((uint8_t[]){ 0x20, 0x1c, 0, 0, 0xf0, 0xf1, 0xff, 0xff }), 8);
	ck_assert_int_eq(get(g, V4L2_CID_PAN_ABSOLUTE, &v), 0);
	ck_assert_int_eq(v, 7200);

	/* Both in one S_EXT_CTRLS: one SET_CUR, after one GET_CUR (the
	 * control updates itself, so its bytes are read again for the
	 * read-modify-write). */
	struct v4l2_ext_control xs[2] = { { .id = V4L2_CID_PAN_ABSOLUTE, .value = -36000 },
					  { .id = V4L2_CID_TILT_ABSOLUTE, .value = 36000 } };
	unsigned idx;
	unsigned before = g->requests;
	ck_assert_int_eq(s_ext(g, xs, 2, VIDIOC_S_EXT_CTRLS, &idx), 0);
	ck_assert_uint_eq(g->requests - before, 2);
	ck_assert_int_eq(get(g, V4L2_CID_TILT_ABSOLUTE, &v), 0);
	ck_assert_int_eq(v, 36000);

	/* Menus are set by index and read back as index. */
	v = V4L2_CID_POWER_LINE_FREQUENCY_60HZ;
	ck_assert_int_eq(set1(g, V4L2_CID_POWER_LINE_FREQUENCY, &v), 0);
	ck_assert_int_eq(get(g, V4L2_CID_POWER_LINE_FREQUENCY, &v), 0);
	ck_assert_int_eq(v, V4L2_CID_POWER_LINE_FREQUENCY_60HZ);
	ck_assert_int_eq(get(g, V4L2_CID_EXPOSURE_AUTO, &v), 0);
	ck_assert_int_eq(v, V4L2_EXPOSURE_MANUAL);

	/* Zoom continuous: direction and speed bytes. */
	v = 3;
	ck_assert_int_eq(set1(g, V4L2_CID_ZOOM_CONTINUOUS, &v), 0);
	ck_assert_int_eq(vcam_controls_request(g->vc, VCAM_ENTITY_CAMERA, UVC_GET_CUR,
					       UVC_CT_ZOOM_RELATIVE_CONTROL, d, 3), 3);
	ck_assert_mem_eq(d, ((uint8_t[]){ 1, 0, 3 }), 3);

	/* TRY changes nothing on the camera. */
	xs[0] = (struct v4l2_ext_control){ .id = V4L2_CID_BRIGHTNESS, .value = 99 };
	before = g->requests;
	ck_assert_int_eq(s_ext(g, xs, 1, VIDIOC_TRY_EXT_CTRLS, &idx), 0);
	ck_assert_int_eq(xs[0].value, 64);
	ck_assert_int_eq(vcam_controls_brightness(g->vc), 32);
	ck_assert_uint_eq(g->requests, before); /* range cached, no SET_CUR */
	rig_free(g);
}
END_TEST

START_TEST(auto_clusters)
{
	struct rig *g = rig_new(vcam_profile_find("default"));
	struct v4l2_queryctrl qc = { .id = V4L2_CID_WHITE_BALANCE_TEMPERATURE };
	struct v4l2_ext_control xs[2];
	unsigned idx;
	int32_t v = 1;

	probe(g);
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.flags, 0);
	ck_assert_int_eq(set1(g, V4L2_CID_AUTO_WHITE_BALANCE, &v), 0);
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.flags, V4L2_CTRL_FLAG_INACTIVE);
	qc = (struct v4l2_queryctrl){ .id = V4L2_CID_RED_BALANCE };
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.flags, V4L2_CTRL_FLAG_INACTIVE);

	/* S of a slave while its master is automatic: EACCES, error_idx = count;
	 * TRY is allowed. */
	xs[0] = (struct v4l2_ext_control){ .id = V4L2_CID_WHITE_BALANCE_TEMPERATURE, .value = 5000 };
	ck_assert_int_eq(s_ext(g, xs, 1, VIDIOC_S_EXT_CTRLS, &idx), -EACCES);
	ck_assert_uint_eq(idx, 1);
	ck_assert_int_eq(s_ext(g, xs, 1, VIDIOC_TRY_EXT_CTRLS, &idx), 0);
	/* ... unless the same request makes the master manual (the last wins). */
	xs[1] = (struct v4l2_ext_control){ .id = V4L2_CID_AUTO_WHITE_BALANCE, .value = 0 };
	ck_assert_int_eq(s_ext(g, xs, 2, VIDIOC_S_EXT_CTRLS, &idx), 0);
	qc = (struct v4l2_queryctrl){ .id = V4L2_CID_WHITE_BALANCE_TEMPERATURE };
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.flags, 0);
	ck_assert_int_eq(get(g, V4L2_CID_WHITE_BALANCE_TEMPERATURE, &v), 0);
	ck_assert_int_eq(v, 5000);

	/* Auto exposure (a menu master): Auto Mode makes exposure inactive. */
	v = V4L2_EXPOSURE_AUTO;
	ck_assert_int_eq(set1(g, V4L2_CID_EXPOSURE_AUTO, &v), 0);
	qc = (struct v4l2_queryctrl){ .id = V4L2_CID_EXPOSURE_ABSOLUTE };
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.flags, V4L2_CTRL_FLAG_INACTIVE);
	xs[0] = (struct v4l2_ext_control){ .id = V4L2_CID_EXPOSURE_ABSOLUTE, .value = 251 };
	xs[1] = (struct v4l2_ext_control){ .id = V4L2_CID_EXPOSURE_AUTO, .value = V4L2_EXPOSURE_MANUAL };
	ck_assert_int_eq(s_ext(g, xs, 1, VIDIOC_S_EXT_CTRLS, &idx), -EACCES);
	ck_assert_int_eq(s_ext(g, xs, 2, VIDIOC_S_EXT_CTRLS, &idx), 0);
	ck_assert_int_eq(get(g, V4L2_CID_EXPOSURE_ABSOLUTE, &v), 0);
	ck_assert_int_eq(v, 251);
	rig_free(g);
}
END_TEST

START_TEST(read_only_and_errors)
{
	struct rig *g = rig_new(vcam_profile_find("default"));
	struct v4l2_queryctrl qc = { .id = V4L2_CID_BRIGHTNESS };
	struct v4l2_ext_control x = { .id = V4L2_CID_BRIGHTNESS, .value = 1 };
	unsigned idx;
	int32_t v = 1;
	int ret;

	g->info_override = UVC_CONTROL_CAP_GET; /* brightness read-only */
	probe(g);
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.flags, V4L2_CTRL_FLAG_READ_ONLY);
	ck_assert_int_eq(s_ext(g, &x, 1, VIDIOC_TRY_EXT_CTRLS, &idx), -EACCES);
	ck_assert_uint_eq(idx, 0);
	RUN(g, ctrls_set(&g->c, V4L2_CID_BRIGHTNESS, &v));
	ck_assert_int_eq(ret, -EACCES);
	rig_free(g);

	g = rig_new(vcam_profile_find("default"));
	g->info_override = UVC_CONTROL_CAP_SET; /* write-only */
	probe(g);
	qc = (struct v4l2_queryctrl){ .id = V4L2_CID_BRIGHTNESS };
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.flags, V4L2_CTRL_FLAG_WRITE_ONLY);
	ck_assert_int_eq(get(g, V4L2_CID_BRIGHTNESS, &v), -EACCES);
	RUN(g, ctrls_check_access(&g->c, &x, 1, 0, VIDIOC_G_EXT_CTRLS));
	ck_assert_int_eq(ret, -EACCES);
	rig_free(g);

	/* A failed GET_INFO keeps the table's flags. */
	g = rig_new(vcam_profile_find("default"));
	g->fail_next = -EPIPE;
	probe(g);
	ck_assert_uint_eq(g->c.uvc[0].flags, g->c.uvc[0].info->flags);
	/* A failed range request fails the query, and is asked again after. */
	qc = (struct v4l2_queryctrl){ .id = V4L2_CID_CONTRAST };
	g->fail_next = -EPIPE;
	ck_assert_int_eq(queryctrl(g, &qc), -EPIPE);
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_int_eq(qc.maximum, 100);
	/* A failed SET_CUR rolls back and points error_idx at the control. */
	struct v4l2_ext_control xs[2] = { { .id = V4L2_CID_SATURATION, .value = 10 },
					  { .id = V4L2_CID_CONTRAST, .value = 20 } };
	int32_t v0 = 10, v1 = 20;
	RUN(g, ctrls_set(&g->c, xs[0].id, &v0));
	RUN(g, ctrls_set(&g->c, xs[1].id, &v1));
	struct ctrls_request r;
	const uint8_t *bytes;
	ck_assert_int_eq(ctrls_commit_next(&g->c, 0, &r, &bytes), 1);
	ck_assert_uint_eq(r.selector, UVC_PU_CONTRAST_CONTROL); /* bit order, not request order */
	ck_assert_uint_eq(r.query, UVC_SET_CUR);
	ck_assert_mem_eq(bytes, ((uint8_t[]){ 20, 0 }), 2);
	ctrls_commit_done(&g->c, r.ctrl, -EPIPE);
	ctrls_rollback(&g->c);
	ck_assert_uint_eq(ctrls_error_idx(&g->c, r.ctrl, xs, 2), 1);
	ck_assert_int_eq(ctrls_commit_next(&g->c, 0, &r, &bytes), 0);
	ck_assert_int_eq(get(g, V4L2_CID_CONTRAST, &v), 0);
	ck_assert_int_eq(v, 50);
	rig_free(g);
}
END_TEST

/* RESTORE_CTRLS_ON_INIT's list (uvcvideo's uvc_ctrl_restore_values): the
 * controls an app set successfully, once each, with their current bytes;
 * not those whose SET_CUR failed, nor those never set. */
START_TEST(restore_list)
{
	struct rig *g = rig_new(vcam_profile_find("default"));
	struct ctrls_request r;
	const uint8_t *bytes;

	probe(g);
	ck_assert_int_eq(ctrls_restore_next(&g->c, 0, &r, &bytes), 0);
	int32_t v = 32;
	ck_assert_int_eq(set1(g, V4L2_CID_BRIGHTNESS, &v), 0);
	v = 33;
	ck_assert_int_eq(set1(g, V4L2_CID_BRIGHTNESS, &v), 0);
	/* a SET_CUR the camera refuses is not remembered */
	int32_t c = 20;
	int ret;
	RUN(g, ctrls_set(&g->c, V4L2_CID_CONTRAST, &c));
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(ctrls_commit_next(&g->c, 0, &r, &bytes), 1);
	ctrls_commit_done(&g->c, r.ctrl, -EPIPE);
	ctrls_rollback(&g->c);

	unsigned n = 0;
	for (unsigned i = 0; ctrls_restore_next(&g->c, i, &r, &bytes); i = r.ctrl + 1) {
		ck_assert_uint_eq(r.query, UVC_SET_CUR);
		ck_assert_uint_eq(r.selector, UVC_PU_BRIGHTNESS_CONTROL);
		ck_assert_uint_eq(r.size, 2);
		ck_assert_mem_eq(bytes, ((uint8_t[]){ 33, 0 }), 2);
		n++;
	}
	ck_assert_uint_eq(n, 1);
	rig_free(g);
}
END_TEST

/* The requests uvcvideo makes, in its order: a queryctrl of a slave reads
 * the master's GET_CUR, then the slave's GET_DEF, MIN, MAX, RES; once. */
START_TEST(request_order)
{
	struct rig *g = rig_new(vcam_profile_find("default"));
	struct v4l2_queryctrl qc = { .id = V4L2_CID_EXPOSURE_ABSOLUTE };
	static const uint8_t order[] = { UVC_GET_CUR, UVC_GET_DEF, UVC_GET_MIN, UVC_GET_MAX,
					 UVC_GET_RES };
	unsigned n = 0;
	int ret;

	probe(g);
	while ((ret = ctrls_queryctrl(&g->c, &qc)) == CTRLS_NEED) {
		ck_assert_uint_lt(n, 5);
		ck_assert_uint_eq(g->c.need.query, order[n]);
		ck_assert_uint_eq(g->c.need.selector,
				  n == 0 ? UVC_CT_AE_MODE_CONTROL : UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL);
		ck_assert_uint_eq(g->c.need.size, n == 0 ? 1 : 4);
		n++;
		feed(g);
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(ctrls_queryctrl(&g->c, &qc), 0);
	rig_free(g);
}
END_TEST

/* ---- extension units ---- */

/* UVCIOC_CTRL_QUERY through the rig: the prepared request made with a
 * buffer of size bytes; returns 0 or -errno as uvc_xu_ctrl_query. */
static int xu_query(struct rig *g, uint8_t unit, uint8_t sel, uint8_t query, uint16_t size,
		    uint8_t *data)
{
	struct ctrls_request r;
	int ret;
	RUN(g, ctrls_xu_query(&g->c, unit, sel, query, size, &r));
	if (ret)
		return ret;
	ck_assert_uint_eq(r.entity, unit);
	ck_assert_uint_eq(r.selector, sel);
	ck_assert_uint_eq(r.query, query);
	ck_assert_uint_eq(r.size, size);
	ret = usb(g, &r, data);
	return ret < 0 ? ret : 0;
}

START_TEST(xu_query_rules)
{
	struct rig *g = rig_new(vcam_profile_find("default"));
	uint8_t d[8] = { 0 };
	probe(g);
	unsigned known = g->c.n_uvc, before = g->requests;

	/* no such unit (the processing unit is no extension unit), no such
	 * control (selector 0, beyond bmControls): no request at all */
	ck_assert_int_eq(xu_query(g, 99, 1, UVC_GET_CUR, 1, d), -ENOENT);
	ck_assert_int_eq(xu_query(g, VCAM_ID_PROCESSING, 1, UVC_GET_CUR, 2, d), -ENOENT);
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 0, UVC_GET_CUR, 1, d), -ENOENT);
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 4, UVC_GET_CUR, 1, d), -ENOENT);
	ck_assert_uint_eq(g->requests, before);

	/* the first query introduces the control: GET_LEN, GET_INFO */
	struct ctrls_request r;
	int ret = ctrls_xu_query(&g->c, VCAM_ID_EXTENSION, VCAM_XU_LED_MODE, UVC_GET_CUR, 1, &r);
	ck_assert_int_eq(ret, CTRLS_NEED);
	ck_assert_uint_eq(g->c.need.ctrl, CTRLS_XU_INIT);
	ck_assert_uint_eq(g->c.need.query, UVC_GET_LEN);
	ck_assert_uint_eq(g->c.need.size, 2);
	feed(g);
	ck_assert_int_eq(ctrls_xu_query(&g->c, VCAM_ID_EXTENSION, VCAM_XU_LED_MODE, UVC_GET_CUR,
					1, &r),
			 CTRLS_NEED);
	ck_assert_uint_eq(g->c.need.query, UVC_GET_INFO);
	ck_assert_uint_eq(g->c.need.size, 1);
	feed(g);
	ck_assert_int_eq(ctrls_xu_query(&g->c, VCAM_ID_EXTENSION, VCAM_XU_LED_MODE, UVC_GET_CUR,
					1, &r),
			 0);
	ck_assert_uint_eq(g->c.n_uvc, known + 1);
	/* chain order OT, XU, PU, CT: the extension unit's control first */
	ck_assert_uint_eq(r.ctrl, 0);
	ck_assert_ptr_null(g->c.uvc[0].info);
	ck_assert_uint_eq(g->c.uvc[0].size, 1);
	ck_assert_uint_eq(g->c.uvc[0].flags,
			  UVC_CTRL_FLAG_GET_CUR | UVC_CTRL_FLAG_SET_CUR | UVC_CTRL_FLAG_GET_MIN |
				  UVC_CTRL_FLAG_GET_MAX | UVC_CTRL_FLAG_GET_RES | UVC_CTRL_FLAG_GET_DEF);
	ck_assert_uint_eq(ctrls_find_uvc(&g->c, VCAM_ID_EXTENSION, VCAM_XU_LED_MODE), 0);
	/* the standard controls moved up with their mappings */
	int k = ctrls_find(&g->c, V4L2_CID_BRIGHTNESS);
	ck_assert_int_ge(k, 0);
	ck_assert_uint_eq(g->c.uvc[g->c.maps[k].uvc].selector, UVC_PU_BRIGHTNESS_CONTROL);

	/* every query, with its own size */
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_GET_CUR, 1, d), 0);
	ck_assert_uint_eq(d[0], 3); /* LED mode auto by default */
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_GET_MAX, 1, d), 0);
	ck_assert_uint_eq(d[0], 3);
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_GET_LEN, 2, d), 0);
	ck_assert_uint_eq(d[0] | d[1] << 8, 1);
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_GET_INFO, 1, d), 0);
	ck_assert_uint_eq(d[0], UVC_CONTROL_CAP_GET | UVC_CONTROL_CAP_SET);
	d[0] = 1;
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_SET_CUR, 1, d), 0);
	d[0] = 0;
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_GET_CUR, 1, d), 0);
	ck_assert_uint_eq(d[0], 1);
	/* sizes other than the control's: ENOBUFS (GET_LEN 2, GET_INFO 1) */
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_GET_CUR, 2, d), -ENOBUFS);
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_GET_LEN, 1, d), -ENOBUFS);
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_GET_INFO, 2, d), -ENOBUFS);
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_SET_CUR, 0, d), -ENOBUFS);
	/* unknown queries: EINVAL before the size is looked at */
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, 0x99, 1, d), -EINVAL);
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_RC_UNDEFINED, 7, d), -EINVAL);
	/* the read-only request counter: SET_CUR refused without a request */
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 3, UVC_GET_CUR, 4, d), 0);
	before = g->requests;
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 3, UVC_SET_CUR, 4, d), -EBADRQC);
	ck_assert_uint_eq(g->requests, before);
	/* the camera's own refusal comes back as the request's errno */
	d[0] = 9;
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_SET_CUR, 1, d), -EPIPE);

	/* a failed introduction: ENOENT, and tried again next time */
	g->fail_next = -EPIPE;
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 2, UVC_GET_CUR, 2, d), -ENOENT);
	ck_assert_int_eq(ctrls_find_uvc(&g->c, VCAM_ID_EXTENSION, 2), -ENOENT);
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 2, UVC_GET_DEF, 2, d), 0);
	ck_assert_int_eq(ctrls_find_uvc(&g->c, VCAM_ID_EXTENSION, 2), 1); /* bit order */
	/* an introduction left half done (the caller gave up after GET_LEN)
	 * starts afresh for another control */
	ret = ctrls_xu_query(&g->c, VCAM_ID_EXTENSION, 3, UVC_GET_CUR, 4, &r);
	ck_assert_int_eq(ret, 0); /* known already */
	ck_assert_uint_eq(g->c.n_uvc, known + 3);
	ctrls_free(&g->c);
	ck_assert_uint_eq(g->c.n_uvc, known);
	k = ctrls_find(&g->c, V4L2_CID_BRIGHTNESS);
	ck_assert_uint_eq(g->c.uvc[g->c.maps[k].uvc].selector, UVC_PU_BRIGHTNESS_CONTROL);
	int32_t v;
	ck_assert_int_eq(get(g, V4L2_CID_BRIGHTNESS, &v), 0);
	ck_assert_int_eq(v, 0);
	rig_free(g);
}
END_TEST

static struct uvc_xu_control_mapping xu_mapping(uint32_t id, const char *name, uint8_t sel,
						uint8_t size, uint32_t type)
{
	struct uvc_xu_control_mapping m = { .id = id, .selector = sel, .size = size,
					    .v4l2_type = type,
					    .data_type = UVC_CTRL_DATA_TYPE_UNSIGNED };
	memcpy(m.entity, vcam_xu_guid, 16);
	strncpy((char *)m.name, name, sizeof(m.name));
	return m;
}

static int xu_map(struct rig *g, struct uvc_xu_control_mapping *m, const struct uvc_menu_info *menu)
{
	int ret;
	unsigned n = m->v4l2_type == V4L2_CTRL_TYPE_MENU ? m->menu_count : 0;
	RUN(g, ctrls_xu_map(&g->c, m, menu, n));
	return ret;
}

#define LED_ID (V4L2_CID_CAMERA_CLASS_BASE + 0x1000)
#define PATTERN_ID (V4L2_CID_USER_BASE + 0x1000)

START_TEST(xu_map_rules)
{
	struct rig *g = rig_new(vcam_profile_find("default"));
	static const struct uvc_menu_info leds[] = {
		{ 0, "Off" }, { 1, "On" }, { 2, "Blink" }, { 3, "Auto" },
	};
	struct uvc_xu_control_mapping m;
	probe(g);
	unsigned before = g->requests;

	/* refusals before any request, in uvcvideo's order */
	m = xu_mapping(LED_ID, "LED Mode", 1, 8, V4L2_CTRL_TYPE_MENU);
	m.data_type = UVC_CTRL_DATA_TYPE_BITMASK + 1;
	ck_assert_int_eq(xu_map(g, &m, leds), -EINVAL);
	m = xu_mapping(LED_ID, "", 1, 8, V4L2_CTRL_TYPE_INTEGER); /* no name, unknown id */
	ck_assert_int_eq(xu_map(g, &m, NULL), -EINVAL);
	m = xu_mapping(LED_ID, "LED", 1, 8, V4L2_CTRL_TYPE_BITMASK);
	ck_assert_int_eq(xu_map(g, &m, NULL), -ENOTTY);
	m = xu_mapping(LED_ID, "LED", 1, 8, V4L2_CTRL_TYPE_STRING);
	ck_assert_int_eq(xu_map(g, &m, NULL), -ENOTTY);
	m = xu_mapping(LED_ID, "LED", 1, 8, V4L2_CTRL_TYPE_MENU);
	m.menu_count = 0;
	ck_assert_int_eq(xu_map(g, &m, leds), -EINVAL);
	m.menu_count = 33;
	ck_assert_int_eq(xu_map(g, &m, leds), -EINVAL);
	m = xu_mapping(LED_ID | V4L2_CTRL_FLAG_NEXT_CTRL, "LED", 1, 8, V4L2_CTRL_TYPE_INTEGER);
	ck_assert_int_eq(xu_map(g, &m, NULL), -EINVAL);
	m = xu_mapping(LED_ID, "LED", 1, 8, V4L2_CTRL_TYPE_INTEGER);
	m.entity[0] ^= 1; /* no unit with that GUID */
	ck_assert_int_eq(xu_map(g, &m, NULL), -ENOENT);
	m = xu_mapping(LED_ID, "LED", 5, 8, V4L2_CTRL_TYPE_INTEGER); /* no such control */
	ck_assert_int_eq(xu_map(g, &m, NULL), -ENOENT);
	ck_assert_uint_eq(g->requests, before);
	/* the control is introduced (GET_LEN, GET_INFO), then sizes checked */
	m = xu_mapping(LED_ID, "LED", 1, 33, V4L2_CTRL_TYPE_INTEGER);
	ck_assert_int_eq(xu_map(g, &m, NULL), -EINVAL);
	ck_assert_uint_eq(g->requests, before + 2);
	m = xu_mapping(LED_ID, "LED", 1, 8, V4L2_CTRL_TYPE_INTEGER);
	m.offset = 1; /* 9 bits of a 1-byte control */
	ck_assert_int_eq(xu_map(g, &m, NULL), -EINVAL);
	ck_assert_uint_eq(g->requests, before + 2);

	/* a menu of the LED mode; the name is cut to 31 characters */
	m = xu_mapping(LED_ID, "LED Mode", 1, 8, V4L2_CTRL_TYPE_MENU);
	memset(m.name, 'x', sizeof(m.name));
	memcpy(m.name, "LED Mode", 8);
	m.menu_count = 4;
	ck_assert_int_eq(xu_map(g, &m, leds), 0);
	ck_assert_uint_eq(m.name[31], 0);
	ck_assert_int_eq(xu_map(g, &m, leds), -EEXIST);
	ck_assert_uint_eq(g->c.n_user_maps, 1);
	/* an integer of the test pattern, the id in the user class */
	m = xu_mapping(PATTERN_ID, "Test Pattern", 2, 16, V4L2_CTRL_TYPE_INTEGER);
	ck_assert_int_eq(xu_map(g, &m, NULL), 0);
	/* a standard id takes the core's name, and needs none of its own */
	m = xu_mapping(V4L2_CID_FLASH_LED_MODE, "", 1, 8, V4L2_CTRL_TYPE_INTEGER);
	ck_assert_int_eq(xu_map(g, &m, NULL), 0);

	struct v4l2_queryctrl qc = { .id = LED_ID };
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_str_eq((char *)qc.name, "LED Modexxxxxxxxxxxxxxxxxxxxxxx");
	ck_assert_uint_eq(qc.type, V4L2_CTRL_TYPE_MENU);
	ck_assert_int_eq(qc.minimum, 0);
	ck_assert_int_eq(qc.maximum, 3);
	ck_assert_int_eq(qc.default_value, 3);
	ck_assert_uint_eq(qc.flags, 0);
	struct v4l2_querymenu qm = { .id = LED_ID, .index = 2 };
	int ret;
	RUN(g, ctrls_querymenu(&g->c, &qm));
	/* XU controls have GET_RES, and a BITMASK-free menu ignores it */
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq((char *)qm.name, "Blink");
	qc = (struct v4l2_queryctrl){ .id = PATTERN_ID };
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_str_eq((char *)qc.name, "Test Pattern");
	ck_assert_int_eq(qc.minimum, 0);
	ck_assert_int_eq(qc.maximum, 4);
	ck_assert_int_eq(qc.step, 1);
	qc = (struct v4l2_queryctrl){ .id = V4L2_CID_FLASH_LED_MODE };
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_str_eq((char *)qc.name, "LED Mode");

	/* enumeration: the user-class one after the standard user controls,
	 * the camera-class one after the camera controls, the flash one last */
	qc = (struct v4l2_queryctrl){ .id = V4L2_CID_BACKLIGHT_COMPENSATION | V4L2_CTRL_FLAG_NEXT_CTRL };
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.id, PATTERN_ID);
	qc.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.id, V4L2_CID_CAMERA_CLASS);
	qc = (struct v4l2_queryctrl){ .id = V4L2_CID_TILT_SPEED | V4L2_CTRL_FLAG_NEXT_CTRL };
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.id, LED_ID);
	qc.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_uint_eq(qc.id, V4L2_CID_FLASH_LED_MODE);

	/* get and set through V4L2 reach the camera */
	int32_t v = 1;
	ck_assert_int_eq(set1(g, LED_ID, &v), 0);
	uint8_t d[2];
	ck_assert_int_eq(vcam_controls_request(g->vc, VCAM_ENTITY_EXTENSION, UVC_GET_CUR, 1, d, 1), 1);
	ck_assert_uint_eq(d[0], 1);
	ck_assert_int_eq(get(g, LED_ID, &v), 0);
	ck_assert_int_eq(v, 1);
	v = 7;
	ck_assert_int_eq(set1(g, PATTERN_ID, &v), 0);
	ck_assert_int_eq(v, 4); /* clamped to GET_MAX */
	ck_assert_int_eq(get(g, PATTERN_ID, &v), 0);
	ck_assert_int_eq(v, 4);
	v = 4;
	ck_assert_int_eq(set1(g, LED_ID, &v), -ERANGE); /* menu of 4: index 4 out */

	/* an XU mapping with a standard id found first: the unit comes
	 * before the processing unit in the chain (uvc_find_control) */
	m = xu_mapping(V4L2_CID_BRIGHTNESS, "", 2, 16, V4L2_CTRL_TYPE_INTEGER);
	ck_assert_int_eq(xu_map(g, &m, NULL), 0);
	qc = (struct v4l2_queryctrl){ .id = V4L2_CID_BRIGHTNESS };
	ck_assert_int_eq(queryctrl(g, &qc), 0);
	ck_assert_int_eq(qc.maximum, 4);
	ck_assert_str_eq((char *)qc.name, "Brightness");
	/* a slot per control: 3 XU controls are not introduced twice */
	ck_assert_uint_eq(g->c.n_user_maps, 4);
	rig_free(g);
}
END_TEST

/* The chain order of a topology with forward extension units, as
 * uvc_scan_chain builds it: IT 1 -> PU 2 -> OT 4, XU 3 hanging from the
 * PU (its control goes after the PU's). */
START_TEST(xu_forward_chain)
{
	struct rig *g = rig_new(vcam_profile_find("default"));
	/* rewire the parsed model: OT takes the PU, the XU hangs forward */
	for (unsigned i = 0; i < g->cam->n_entities; i++)
		if (g->cam->entities[i].kind == UVC_ENTITY_OUTPUT_TERMINAL)
			g->cam->entities[i].sources[0] = VCAM_ID_PROCESSING;
	ck_assert_int_eq(ctrls_init(&g->c, g->cam), 0);
	ck_assert_uint_eq(g->c.chain.n, 4);
	ck_assert_uint_eq(uvc_chain_entity(g->cam, &g->c.chain, 0)->id, VCAM_ID_OUTPUT);
	ck_assert_uint_eq(uvc_chain_entity(g->cam, &g->c.chain, 1)->id, VCAM_ID_PROCESSING);
	ck_assert_uint_eq(uvc_chain_entity(g->cam, &g->c.chain, 2)->id, VCAM_ID_EXTENSION);
	ck_assert_uint_eq(uvc_chain_entity(g->cam, &g->c.chain, 3)->id, VCAM_ID_CAMERA);
	probe(g);
	uint8_t d[4];
	ck_assert_int_eq(xu_query(g, VCAM_ID_EXTENSION, 1, UVC_GET_CUR, 1, d), 0);
	int i = ctrls_find_uvc(&g->c, VCAM_ID_EXTENSION, 1);
	ck_assert_int_gt(i, 0);
	ck_assert_uint_eq(g->c.uvc[i - 1].entity, VCAM_ID_PROCESSING);
	ck_assert_uint_eq(g->c.uvc[i + 1].entity, VCAM_ID_CAMERA);
	rig_free(g);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("v4l2-controls");
	TCase *t = tcase_create("controls");
	tcase_add_test(t, default_profile_list);
	tcase_add_loop_test(t, describe_names, 0, (int)vcam_profile_count);
	tcase_add_test(t, menus);
	tcase_add_loop_test(t, clamping, 0, (int)(sizeof(clamps) / sizeof(clamps[0])));
	tcase_add_test(t, set_reaches_camera);
	tcase_add_test(t, auto_clusters);
	tcase_add_test(t, read_only_and_errors);
	tcase_add_test(t, restore_list);
	tcase_add_test(t, request_order);
	tcase_add_test(t, xu_query_rules);
	tcase_add_test(t, xu_map_rules);
	tcase_add_test(t, xu_forward_chain);
	suite_add_tcase(s, t);
	return s;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		vcam_exe = argv[1];
	return unit_run(suite());
}

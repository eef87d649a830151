/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/settings/settings.c: remembered controls as data: file names from odd and long
 * serials, the file's text (round trip, corrupt files), which controls are
 * remembered and the order saved values go back in, over the vcam's
 * controls. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>
#include <linux/videodev2.h>

#include "controls.h"    /* tests/vcam */
#include "descriptors.h" /* tests/vcam */
#include "profile.h"
#include "settings/settings.h"
#include "unit_run.h"
#include "vcam_fixture.h"

/* ---- the list ---- */

START_TEST(put_get_drop)
{
	struct settings s = { 0 };
	int32_t v;

	ck_assert_int_eq(settings_put(&s, V4L2_CID_BRIGHTNESS, 40), 1);
	ck_assert_int_eq(settings_put(&s, V4L2_CID_BRIGHTNESS, 40), 0); /* no change */
	ck_assert_int_eq(settings_put(&s, V4L2_CID_CONTRAST, 7), 1);
	ck_assert_int_eq(settings_put(&s, V4L2_CID_BRIGHTNESS, -3), 1);
	ck_assert_uint_eq(s.n, 2);
	ck_assert(settings_get(&s, V4L2_CID_BRIGHTNESS, &v));
	ck_assert_int_eq(v, -3);
	ck_assert(!settings_get(&s, V4L2_CID_GAIN, &v));
	settings_drop(&s, V4L2_CID_BRIGHTNESS);
	settings_drop(&s, V4L2_CID_GAIN);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.e[0].id, V4L2_CID_CONTRAST);
	for (uint32_t i = 0; s.n < SETTINGS_MAX; i++)
		ck_assert_int_eq(settings_put(&s, V4L2_CID_USER_BASE + 0x1000 + i, 1), 1);
	ck_assert_int_eq(settings_put(&s, V4L2_CID_GAIN, 1), -ENOSPC);
	ck_assert_int_eq(settings_put(&s, V4L2_CID_CONTRAST, 8), 1); /* known: still fits */
}
END_TEST

/* ---- file names ---- */

START_TEST(file_names)
{
	char name[SETTINGS_NAME_MAX + 1], other[SETTINGS_NAME_MAX + 1];

	ck_assert_int_eq(settings_file_name(0x046d, 0x0825, "1234ABCD", "1-2.3", name, sizeof(name)), 0);
	ck_assert_str_eq(name, "046d-0825-serial-1234ABCD.controls");
	/* no serial: the port path */
	ck_assert_int_eq(settings_file_name(0x046d, 0x0825, "", "1-2.3", name, sizeof(name)), 0);
	ck_assert_str_eq(name, "046d-0825-port-1-2.3.controls");
	ck_assert_int_eq(settings_file_name(0x046d, 0x0825, NULL, "3-1", name, sizeof(name)), 0);
	ck_assert_str_eq(name, "046d-0825-port-3-1.controls");
	ck_assert_int_eq(settings_file_name(1, 2, "", "", name, sizeof(name)), -EINVAL);
	ck_assert_int_eq(settings_file_name(1, 2, NULL, NULL, name, sizeof(name)), -EINVAL);
	/* odd bytes: escaped, never a path separator, distinct from lookalikes */
	ck_assert_int_eq(settings_file_name(0xabcd, 0xef01, "../a/b c%\n\xc3\xa9", "1-1", name,
					    sizeof(name)), 0);
	ck_assert_str_eq(name, "abcd-ef01-serial-..%2Fa%2Fb%20c%25%0A%C3%A9.controls");
	ck_assert_int_eq(settings_file_name(1, 2, "a/b", "1-1", name, sizeof(name)), 0);
	ck_assert_int_eq(settings_file_name(1, 2, "a_b", "1-1", other, sizeof(other)), 0);
	ck_assert_str_ne(name, other);
	ck_assert_ptr_null(strchr(name, '/'));
	/* too small a buffer */
	ck_assert_int_eq(settings_file_name(1, 2, "SN", "1-1", name, 10), -ENOSPC);
}
END_TEST

START_TEST(file_names_long)
{
	char serial[160], a[SETTINGS_NAME_MAX + 1], b[SETTINGS_NAME_MAX + 1];

	/* as long as usb/ keeps one (127 bytes), all of it escaped */
	memset(serial, 0xff, 127);
	serial[127] = 0;
	ck_assert_int_eq(settings_file_name(1, 2, serial, "1-1", a, sizeof(a)), 0);
	ck_assert_uint_le(strlen(a), SETTINGS_NAME_MAX);
	ck_assert_ptr_nonnull(strchr(a, '~'));
	ck_assert_str_eq(a + strlen(a) - 9, ".controls");
	/* differing only at the end: still two names */
	serial[126] = 'x';
	ck_assert_int_eq(settings_file_name(1, 2, serial, "1-1", b, sizeof(b)), 0);
	ck_assert_str_ne(a, b);
	ck_assert_uint_le(strlen(b), SETTINGS_NAME_MAX);
	/* no escape cut in half: every '%' has two hex digits after it */
	for (const char *p = strchr(a, '%'); p; p = strchr(p + 1, '%'))
		ck_assert(p[1] != '~' && p[2] != '~' && p[1] && p[2]);
	/* long but fitting: not cut */
	memset(serial, 'S', 150);
	serial[150] = 0;
	ck_assert_int_eq(settings_file_name(1, 2, serial, "1-1", a, sizeof(a)), 0);
	ck_assert_ptr_null(strchr(a, '~'));
	ck_assert_uint_eq(strlen(a), strlen("0001-0002-serial-") + 150 + 9);
}
END_TEST

START_TEST(ctrl_names)
{
	char name[64];

	settings_ctrl_name(V4L2_CID_BRIGHTNESS, name, sizeof(name));
	ck_assert_str_eq(name, "brightness");
	settings_ctrl_name(V4L2_CID_AUTO_WHITE_BALANCE, name, sizeof(name));
	ck_assert_str_eq(name, "white_balance_automatic");
	settings_ctrl_name(V4L2_CID_EXPOSURE_AUTO, name, sizeof(name));
	ck_assert_str_eq(name, "auto_exposure");
	settings_ctrl_name(V4L2_CID_EXPOSURE_ABSOLUTE, name, sizeof(name));
	ck_assert_str_eq(name, "exposure_time_absolute");
	settings_ctrl_name(V4L2_CID_POWER_LINE_FREQUENCY, name, sizeof(name));
	ck_assert_str_eq(name, "power_line_frequency");
	settings_ctrl_name(V4L2_CID_BRIGHTNESS, name, 4);
	ck_assert_uint_lt(strlen(name), 4);
}
END_TEST

/* ---- the file's text ---- */

START_TEST(format_parse_round_trip)
{
	struct settings s = { 0 }, back;
	char text[4096], err[128];
	int len;

	settings_put(&s, V4L2_CID_POWER_LINE_FREQUENCY, 2);
	settings_put(&s, V4L2_CID_BRIGHTNESS, -40);
	settings_put(&s, V4L2_CID_EXPOSURE_ABSOLUTE, 2147483647);
	settings_put(&s, V4L2_CID_CONTRAST, -2147483647 - 1);
	len = settings_format(&s, "046d:0825 serial A\nB 'Cam'", text, sizeof(text));
	ck_assert_int_gt(len, 0);
	ck_assert_uint_eq(strlen(text), (size_t)len);
	ck_assert_str_eq(text, "# uvcuse controls v1\n"
			       "# 046d:0825 serial A?B 'Cam'\n"
			       "0x00980900 brightness -40\n"
			       "0x00980901 contrast -2147483648\n"
			       "0x00980918 power_line_frequency 2\n"
			       "0x009a0902 exposure_time_absolute 2147483647\n");
	ck_assert_int_eq(settings_parse(text, (size_t)len, &back, err, sizeof(err)), 0);
	ck_assert_uint_eq(back.n, 4);
	for (unsigned i = 0; i < s.n; i++) {
		int32_t v;
		ck_assert(settings_get(&back, s.e[i].id, &v));
		ck_assert_int_eq(v, s.e[i].value);
	}
	/* an empty list is a header alone; too small a buffer fails */
	back.n = 0;
	ck_assert_int_eq(settings_format(&back, NULL, text, sizeof(text)),
			 (int)strlen(SETTINGS_HEADER "\n"));
	ck_assert_int_eq(settings_format(&s, NULL, text, 40), -ENOSPC);
}
END_TEST

static int parse(const char *text, struct settings *s, char *err)
{
	return settings_parse(text, strlen(text), s, err, 128);
}

START_TEST(parse_lenient_where_harmless)
{
	struct settings s;
	char err[128];
	int32_t v;

	/* CRLF, comments, blank lines, spaces, no final newline, a later
	 * line for the same id, a name that is not the usual one */
	ck_assert_int_eq(parse("# uvcuse controls v1  \r\n"
			       "\r\n"
			       "   # a comment\n"
			       "0x00980900 brightness 40\r\n"
			       "\t0X00980901   Contrast_2\t+7  \n"
			       "0x00980900 brightness 41",
			       &s, err), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert(settings_get(&s, V4L2_CID_BRIGHTNESS, &v));
	ck_assert_int_eq(v, 41);
	ck_assert(settings_get(&s, V4L2_CID_CONTRAST, &v));
	ck_assert_int_eq(v, 7);
	/* header only */
	ck_assert_int_eq(parse("# uvcuse controls v1\n", &s, err), 0);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

START_TEST(parse_corrupt)
{
	static const struct {
		const char *text, *err;
	} cases[] = {
		{ "", "empty" },
		{ "0x00980900 brightness 40\n", "line 1: not \"# uvcuse controls v1\"" },
		{ "# uvcuse controls v2\n0x00980900 brightness 40\n", "line 1:" },
		{ "# uvcuse controls v1\nbrightness 40\n", "line 2: the control id" },
		{ "# uvcuse controls v1\n0x 40\n", "line 2: the control id" },
		{ "# uvcuse controls v1\n0x123456789 x 40\n", "line 2: the control id" },
		{ "# uvcuse controls v1\n0x0098090g x 40\n", "line 2: the control id" },
		{ "# uvcuse controls v1\n0x00980900\n", "line 2: no control name" },
		{ "# uvcuse controls v1\n0x00980900 bright-ness 4\n", "line 2: no control name" },
		{ "# uvcuse controls v1\n\n0x00980900 brightness\n", "line 3: the value" },
		{ "# uvcuse controls v1\n0x00980900 brightness 4O\n", "line 2: the value" },
		{ "# uvcuse controls v1\n0x00980900 brightness 2147483648\n", "line 2: the value" },
		{ "# uvcuse controls v1\n0x00980900 brightness -2147483649\n", "line 2: the value" },
		{ "# uvcuse controls v1\n0x00980900 brightness 99999999999999\n", "line 2: the value" },
		{ "# uvcuse controls v1\n0x00980900 brightness -\n", "line 2: the value" },
		{ "# uvcuse controls v1\n0x00980900 brightness 4 5\n", "line 2: more than" },
	};
	struct settings s;
	char err[128];

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s.n = 7;
		ck_assert_msg(parse(cases[i].text, &s, err) == -EINVAL, "case %u parsed", i);
		ck_assert_uint_eq(s.n, 0);
		ck_assert_msg(strstr(err, cases[i].err) == err, "case %u: '%s', want '%s'", i, err,
			      cases[i].err);
	}
	/* a NUL byte (a torn write of another tool) */
	static const char nul[] = "# uvcuse controls v1\n0x00980900 brightness 4\0\n";
	ck_assert_int_eq(settings_parse(nul, sizeof(nul) - 1, &s, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "holds a NUL byte");
	/* more controls than any camera has */
	char *big = malloc(SETTINGS_MAX_FILE + 2);
	size_t n = (size_t)sprintf(big, "%s\n", SETTINGS_HEADER);
	for (unsigned i = 0; i <= SETTINGS_MAX; i++)
		n += (size_t)sprintf(big + n, "0x%08x c %u\n", 0x00981000 + i, i);
	ck_assert_int_eq(settings_parse(big, n, &s, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "more controls than a camera has"));
	/* larger than 64 KiB, even of comments */
	memset(big, '#', SETTINGS_MAX_FILE + 1);
	memcpy(big, SETTINGS_HEADER "\n", strlen(SETTINGS_HEADER) + 1);
	ck_assert_int_eq(settings_parse(big, SETTINGS_MAX_FILE + 1, &s, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "larger than 64 KiB");
	free(big);
	/* random bytes are corrupt, never a crash */
	unsigned seed = 1;
	char junk[512];
	for (int round = 0; round < 2000; round++) {
		size_t len = (size_t)(rand_r(&seed) % (int)sizeof(junk));
		for (size_t i = 0; i < len; i++)
			junk[i] = (char)rand_r(&seed);
		if (round % 2)
			memcpy(junk, SETTINGS_HEADER "\n", len < 21 ? len : 21);
		settings_parse(junk, len, &s, err, sizeof(err));
		ck_assert_uint_le(s.n, SETTINGS_MAX);
	}
}
END_TEST

/* ---- the vcam's controls, GET_INFO answered as at start-up ---- */

static struct vcam_controls *vc;
static struct uvc_camera *camera;
static struct ctrls ctrls;

static void setup_ctrls(void)
{
	const struct vcam_profile *p = vcam_profile_find("default");
	vc = vcam_controls_new(p->bcd_uvc);
	ck_assert_ptr_nonnull(vc);
	camera = fixture_camera_with(p, vc);
	ck_assert_int_eq(ctrls_init(&ctrls, camera), 0);
	struct ctrls_request r;
	while (ctrls_next_info(&ctrls, &r)) {
		const struct uvc_entity *e = uvc_camera_find_entity(camera, r.entity);
		uint8_t info = 0;
		int res = vcam_controls_request(vc, e->kind == UVC_ENTITY_PROCESSING_UNIT ?
							    VCAM_ENTITY_PROCESSING :
							    VCAM_ENTITY_CAMERA,
						UVC_GET_INFO, r.selector, &info, 1);
		ctrls_feed(&ctrls, &r, &info, res);
	}
}

static void teardown_ctrls(void)
{
	uvc_camera_free(camera);
	vcam_controls_free(vc);
}

START_TEST(which_are_remembered)
{
	/* settings of the picture and the automatic modes */
	ck_assert(settings_savable(&ctrls, V4L2_CID_BRIGHTNESS));
	ck_assert(settings_savable(&ctrls, V4L2_CID_POWER_LINE_FREQUENCY));
	ck_assert(settings_savable(&ctrls, V4L2_CID_AUTO_WHITE_BALANCE));
	ck_assert(settings_savable(&ctrls, V4L2_CID_WHITE_BALANCE_TEMPERATURE));
	ck_assert(settings_savable(&ctrls, V4L2_CID_EXPOSURE_AUTO));
	ck_assert(settings_savable(&ctrls, V4L2_CID_EXPOSURE_ABSOLUTE));
	ck_assert(settings_savable(&ctrls, V4L2_CID_FOCUS_ABSOLUTE));
	ck_assert(settings_savable(&ctrls, V4L2_CID_PAN_ABSOLUTE));
	/* not motions (relative controls), not unknown ids, not with flag bits */
	ck_assert(!settings_savable(&ctrls, V4L2_CID_ZOOM_CONTINUOUS));
	ck_assert(!settings_savable(&ctrls, V4L2_CID_PAN_SPEED));
	ck_assert(!settings_savable(&ctrls, V4L2_CID_IRIS_RELATIVE));
	ck_assert(!settings_savable(&ctrls, 0x00981234));
	ck_assert(!settings_savable(&ctrls, V4L2_CID_USER_CLASS));
	ck_assert(!settings_savable(&ctrls, V4L2_CID_BRIGHTNESS | V4L2_CTRL_FLAG_NEXT_CTRL));
	/* the camera says it cannot set it: not remembered */
	int k = ctrls_find(&ctrls, V4L2_CID_GAIN);
	ck_assert_int_ge(k, 0);
	ctrls.uvc[ctrls.maps[k].uvc].flags &= (uint16_t)~UVC_CTRL_FLAG_SET_CUR;
	ck_assert(!settings_savable(&ctrls, V4L2_CID_GAIN));
	/* reset: only those with a default the camera tells */
	ck_assert(settings_resettable(&ctrls, V4L2_CID_BRIGHTNESS));
	ck_assert(settings_resettable(&ctrls, V4L2_CID_AUTO_WHITE_BALANCE));
	ck_assert(settings_savable(&ctrls, V4L2_CID_PRIVACY));
	ck_assert(!settings_resettable(&ctrls, V4L2_CID_PRIVACY)); /* no GET_DEF */
	ck_assert(!settings_resettable(&ctrls, V4L2_CID_GAIN));
	/* an extension unit control mapped by an app (no table entry): never,
	 * and asking must not crash */
	static const struct uvc_ctrl_mapping xu_map = { .id = 0x009a1900, .selector = 1,
							 .size = 8, .v4l2_type = V4L2_CTRL_TYPE_INTEGER };
	unsigned u = ctrls.n_uvc++;
	ctrls.uvc[u] = (struct ctrls_uvc){ .entity = 4, .selector = 1, .size = 1,
					  .flags = UVC_CTRL_FLAG_GET_CUR | UVC_CTRL_FLAG_SET_CUR |
						   UVC_CTRL_FLAG_GET_DEF };
	ctrls.maps[ctrls.n_maps++] = (struct ctrls_map){ .map = &xu_map, .uvc = u };
	ck_assert_int_ge(ctrls_find(&ctrls, 0x009a1900), 0);
	ck_assert(!settings_savable(&ctrls, 0x009a1900));
	ck_assert(!settings_resettable(&ctrls, 0x009a1900));
	ctrls.n_maps--;
	ctrls.n_uvc--;
	/* masters */
	ck_assert(settings_is_master(&ctrls, V4L2_CID_AUTO_WHITE_BALANCE));
	ck_assert(settings_is_master(&ctrls, V4L2_CID_EXPOSURE_AUTO));
	ck_assert(settings_is_master(&ctrls, V4L2_CID_FOCUS_AUTO));
	ck_assert(!settings_is_master(&ctrls, V4L2_CID_WHITE_BALANCE_TEMPERATURE));
	ck_assert(!settings_is_master(&ctrls, V4L2_CID_BRIGHTNESS));
}
END_TEST

static void plan_of(const struct settings *t, const struct settings *now,
		    struct settings_step *steps, int n_want)
{
	ck_assert_int_eq(settings_plan(&ctrls, t, now, steps, SETTINGS_MAX), n_want);
}

START_TEST(plan_masters_first)
{
	struct settings t = { 0 }, now = { 0 };
	struct settings_step st[SETTINGS_MAX];

	/* saved in the order a user set them: the slave before its master */
	settings_put(&t, V4L2_CID_POWER_LINE_FREQUENCY, 2);
	settings_put(&t, V4L2_CID_WHITE_BALANCE_TEMPERATURE, 5000);
	settings_put(&t, V4L2_CID_BRIGHTNESS, 40);
	settings_put(&t, V4L2_CID_AUTO_WHITE_BALANCE, 0);
	settings_put(&t, 0x00981234, 1); /* not this camera's */
	settings_put(&now, V4L2_CID_AUTO_WHITE_BALANCE, 1); /* automatic now */
	plan_of(&t, &now, st, 5);
	ck_assert_uint_eq(st[0].id, V4L2_CID_AUTO_WHITE_BALANCE);
	ck_assert_int_eq(st[0].phase, SETTINGS_MASTERS);
	/* then uvcvideo's order: brightness, power line (PU bits 0, 10) come
	 * in mapping order, white balance temperature after its master */
	ck_assert_int_eq(st[1].phase, SETTINGS_AFTER);
	ck_assert_int_eq(st[2].phase, SETTINGS_AFTER);
	ck_assert_int_eq(st[3].phase, SETTINGS_AFTER);
	ck_assert_uint_eq(st[1].id, V4L2_CID_BRIGHTNESS);
	ck_assert_int_lt(ctrls_find(&ctrls, st[1].id), ctrls_find(&ctrls, st[2].id));
	ck_assert_int_lt(ctrls_find(&ctrls, st[2].id), ctrls_find(&ctrls, st[3].id));
	ck_assert_int_eq(st[4].phase, SETTINGS_SKIP);
	ck_assert_uint_eq(st[4].id, 0x00981234);
	ck_assert_uint_eq(st[4].master_id, 0);
	ck_assert_int_eq(st[1].value, 40);
}
END_TEST

START_TEST(plan_slave_before_master_goes_automatic)
{
	struct settings t = { 0 }, now = { 0 };
	struct settings_step st[SETTINGS_MAX];

	/* manual now, automatic wanted: the manual value goes first */
	settings_put(&t, V4L2_CID_AUTO_WHITE_BALANCE, 1);
	settings_put(&t, V4L2_CID_WHITE_BALANCE_TEMPERATURE, 5000);
	settings_put(&t, V4L2_CID_EXPOSURE_AUTO, V4L2_EXPOSURE_APERTURE_PRIORITY);
	settings_put(&t, V4L2_CID_EXPOSURE_ABSOLUTE, 300);
	settings_put(&now, V4L2_CID_AUTO_WHITE_BALANCE, 0);
	settings_put(&now, V4L2_CID_EXPOSURE_AUTO, V4L2_EXPOSURE_MANUAL);
	plan_of(&t, &now, st, 4);
	ck_assert_int_eq(st[0].phase, SETTINGS_BEFORE);
	ck_assert_int_eq(st[1].phase, SETTINGS_BEFORE);
	ck_assert_int_eq(st[2].phase, SETTINGS_MASTERS);
	ck_assert_int_eq(st[3].phase, SETTINGS_MASTERS);
	ck_assert(st[0].id == V4L2_CID_WHITE_BALANCE_TEMPERATURE || st[0].id == V4L2_CID_EXPOSURE_ABSOLUTE);
	/* automatic now and staying so: the slave is not sent */
	settings_put(&now, V4L2_CID_AUTO_WHITE_BALANCE, 1);
	plan_of(&t, &now, st, 4);
	ck_assert_int_eq(st[3].phase, SETTINGS_SKIP);
	ck_assert_uint_eq(st[3].id, V4L2_CID_WHITE_BALANCE_TEMPERATURE);
	ck_assert_uint_eq(st[3].master_id, V4L2_CID_AUTO_WHITE_BALANCE);
	/* the master not among the targets: its current mode decides */
	struct settings only = { 0 };
	settings_put(&only, V4L2_CID_WHITE_BALANCE_TEMPERATURE, 5000);
	plan_of(&only, &now, st, 1);
	ck_assert_int_eq(st[0].phase, SETTINGS_SKIP);
	settings_put(&now, V4L2_CID_AUTO_WHITE_BALANCE, 0);
	plan_of(&only, &now, st, 1);
	ck_assert_int_eq(st[0].phase, SETTINGS_AFTER);
	/* a master that could not be read counts as manual (as uvcvideo) */
	now.n = 0;
	plan_of(&only, &now, st, 1);
	ck_assert_int_eq(st[0].phase, SETTINGS_AFTER);
	/* room */
	ck_assert_int_eq(settings_plan(&ctrls, &t, &now, st, 3), -ENOSPC);
}
END_TEST

/* ---- where ---- */

START_TEST(state_dirs)
{
	char out[64];

	ck_assert_int_eq(settings_state_dir("/tmp/s", "/env", "/cwd", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/tmp/s");
	ck_assert_int_eq(settings_state_dir("rel/d/", "/env", "/cwd", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/cwd/rel/d");
	ck_assert_int_eq(settings_state_dir("rel", NULL, "/", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/rel");
	ck_assert_int_eq(settings_state_dir(NULL, "/var/lib/uvcuse:/var/lib/other", "/", out,
					    sizeof(out)), 0);
	ck_assert_str_eq(out, "/var/lib/uvcuse");
	ck_assert_int_eq(settings_state_dir(NULL, "", "/", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/var/lib/uvcuse");
	ck_assert_int_eq(settings_state_dir(NULL, NULL, NULL, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/var/lib/uvcuse");
	ck_assert_int_eq(settings_state_dir("/", NULL, NULL, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/");
	ck_assert_int_eq(settings_state_dir("", NULL, "/", out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(settings_state_dir("rel", NULL, NULL, out, sizeof(out)), -EINVAL);
	ck_assert_int_eq(settings_state_dir("/a/very/long/path/that/does/not/fit/in/sixty/four/bytes/at/all/x",
					    NULL, NULL, out, sizeof(out)), -ENAMETOOLONG);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("settings");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, put_get_drop);
	tcase_add_test(tc, file_names);
	tcase_add_test(tc, file_names_long);
	tcase_add_test(tc, ctrl_names);
	tcase_add_test(tc, format_parse_round_trip);
	tcase_add_test(tc, parse_lenient_where_harmless);
	tcase_add_test(tc, parse_corrupt);
	tcase_add_test(tc, state_dirs);
	suite_add_tcase(s, tc);
	tc = tcase_create("controls");
	tcase_add_checked_fixture(tc, setup_ctrls, teardown_ctrls);
	tcase_add_test(tc, which_are_remembered);
	tcase_add_test(tc, plan_masters_first);
	tcase_add_test(tc, plan_slave_before_master_goes_automatic);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

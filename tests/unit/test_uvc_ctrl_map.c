/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcvideo 6.1's control tables and value codecs (src/uvc/ctrl_map.c):
 * bit packing round trips, the relative/zoom codecs, menus, GET_INFO flags
 * and the tables' invariants. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <linux/usb/video.h>
#include <linux/videodev2.h>

#include "uvc/ctrl_map.h"
#include "unit_run.h"

static const struct uvc_ctrl_mapping *mapping(uint32_t id, uint16_t bcd)
{
	for (unsigned i = 0; i < uvc_ctrl_n_mappings; i++) {
		const struct uvc_ctrl_mapping *m = &uvc_ctrl_mappings[i];
		if (m->id == id && m->unit != UVC_CTRL_UNIT_GPIO &&
		    (!m->bcd_min || bcd >= m->bcd_min) && (!m->bcd_max || bcd < m->bcd_max))
			return m;
	}
	ck_abort_msg("no mapping for 0x%08x", id);
	return NULL;
}

START_TEST(tables_match_uvcvideo)
{
	unsigned pu = 0, ct = 0, versioned = 0;

	ck_assert_uint_eq(uvc_ctrl_n_infos, 36);
	for (unsigned i = 0; i < uvc_ctrl_n_infos; i++) {
		pu += uvc_ctrl_infos[i].unit == UVC_CTRL_UNIT_PROCESSING;
		ct += uvc_ctrl_infos[i].unit == UVC_CTRL_UNIT_CAMERA;
	}
	ck_assert_uint_eq(pu, 18);
	ck_assert_uint_eq(ct, 17);
	ck_assert_uint_eq(uvc_ctrl_n_mappings, 31);
	for (unsigned i = 0; i < uvc_ctrl_n_mappings; i++) {
		const struct uvc_ctrl_mapping *m = &uvc_ctrl_mappings[i];
		const struct uvc_ctrl_info *info = NULL;

		versioned += m->bcd_min || m->bcd_max;
		for (unsigned k = 0; k < uvc_ctrl_n_infos; k++)
			if (uvc_ctrl_infos[k].unit == m->unit && uvc_ctrl_infos[k].selector == m->selector)
				info = &uvc_ctrl_infos[k];
		ck_assert_msg(info, "mapping %u has no control", i);
		ck_assert_uint_le(m->offset + m->size, info->size * 8u);
		ck_assert_uint_le(m->size, 32);
		if (m->v4l2_type == V4L2_CTRL_TYPE_MENU)
			ck_assert_ptr_nonnull(m->menu);
		ck_assert_str_ne(uvc_ctrl_v4l2_name(m->id), "Unknown Control");
	}
	/* Versioned mappings come last, as uvc_ctrl_init_ctrl adds them last. */
	ck_assert_uint_eq(versioned, 2);
	ck_assert(uvc_ctrl_mappings[uvc_ctrl_n_mappings - 1].bcd_min == 0x0150);

	/* A few facts by hand. */
	const struct uvc_ctrl_info *ae = uvc_ctrl_info_find(UVC_CTRL_UNIT_CAMERA, 1);
	ck_assert_uint_eq(ae->selector, UVC_CT_AE_MODE_CONTROL);
	ck_assert_uint_eq(ae->flags, UVC_CTRL_FLAG_SET_CUR | UVC_CTRL_FLAG_GET_CUR |
					     UVC_CTRL_FLAG_GET_DEF | UVC_CTRL_FLAG_GET_RES |
					     UVC_CTRL_FLAG_RESTORE);
	ck_assert_ptr_null(uvc_ctrl_info_find(UVC_CTRL_UNIT_CAMERA, 15)); /* no bit 15 */
	ck_assert_ptr_null(uvc_ctrl_info_find(UVC_CTRL_UNIT_PROCESSING, 18)); /* 1.5 contrast auto */
	const struct uvc_ctrl_info *zr = uvc_ctrl_info_find(UVC_CTRL_UNIT_CAMERA, 10);
	ck_assert_uint_eq(zr->size, 3);
	ck_assert(!(zr->flags & UVC_CTRL_FLAG_GET_CUR)); /* GET_INFO adds it */
	ck_assert_int_eq(mapping(V4L2_CID_EXPOSURE_ABSOLUTE, 0x100)->master_id, V4L2_CID_EXPOSURE_AUTO);
	ck_assert_int_eq(mapping(V4L2_CID_EXPOSURE_ABSOLUTE, 0x100)->master_manual,
			 V4L2_EXPOSURE_MANUAL);
	ck_assert_int_eq(mapping(V4L2_CID_RED_BALANCE, 0x100)->offset, 16);
	ck_assert_int_eq(mapping(V4L2_CID_TILT_ABSOLUTE, 0x100)->offset, 32);
	ck_assert_str_eq(uvc_ctrl_v4l2_name(V4L2_CID_EXPOSURE_AUTO), "Auto Exposure");
	ck_assert_str_eq(uvc_ctrl_v4l2_name(V4L2_CID_CAMERA_CLASS), "Camera Controls");
	ck_assert_str_eq(uvc_ctrl_v4l2_name(0x12345678), "Unknown Control");
}
END_TEST

START_TEST(power_line_menu_per_version)
{
	const struct uvc_ctrl_info *plf = uvc_ctrl_info_find(UVC_CTRL_UNIT_PROCESSING, 10);
	static const uint16_t bcds[] = { 0x0100, 0x0110, 0x0150 };
	static const uint32_t masks[] = { 0x7, 0x7, 0xf };

	for (unsigned v = 0; v < 3; v++) {
		unsigned n = 0;
		for (unsigned i = 0; i < uvc_ctrl_n_mappings; i++) {
			const struct uvc_ctrl_mapping *m = &uvc_ctrl_mappings[i];
			if (!uvc_ctrl_mapping_applies(m, plf, bcds[v]))
				continue;
			n++;
			ck_assert_uint_eq(m->menu_mask, masks[v]);
			ck_assert_int_eq(uvc_ctrl_menu_min(m->menu_mask), 0);
			ck_assert_int_eq(uvc_ctrl_menu_max(m->menu_mask), v == 2 ? 3 : 2);
			ck_assert_str_eq(m->menu[1].name, "50 Hz");
		}
		ck_assert_uint_eq(n, 1);
	}
	ck_assert_uint_eq(uvc_ctrl_power_line_limited.menu_mask, 0x6);
	ck_assert_int_eq(uvc_ctrl_menu_min(0x6), 1);
	ck_assert_int_eq(uvc_ctrl_menu_max(0x6), 2);
	ck_assert_int_eq(uvc_ctrl_menu_min(0), -1);
}
END_TEST

START_TEST(exposure_menu)
{
	const struct uvc_ctrl_mapping *m = mapping(V4L2_CID_EXPOSURE_AUTO, 0x110);
	uint8_t d[1] = { 0xf0 | 0x02 };

	ck_assert_uint_eq(m->menu_mask, 0xf);
	ck_assert_int_eq(m->menu[V4L2_EXPOSURE_AUTO].value, 2);
	ck_assert_int_eq(m->menu[V4L2_EXPOSURE_MANUAL].value, 1);
	ck_assert_int_eq(m->menu[V4L2_EXPOSURE_SHUTTER_PRIORITY].value, 4);
	ck_assert_int_eq(m->menu[V4L2_EXPOSURE_APERTURE_PRIORITY].value, 8);
	/* 4 bits of the byte: the high nibble is not part of the value. */
	ck_assert_int_eq(uvc_ctrl_get_value(m, UVC_GET_CUR, d), 2);
	ck_assert_int_eq(uvc_ctrl_menu_index(m, 2), 0);
	ck_assert_int_eq(uvc_ctrl_menu_index(m, 8), 3);
	ck_assert_int_eq(uvc_ctrl_menu_index(m, 3), 3); /* not a mode: raw, as uvcvideo */
	uvc_ctrl_set_value(m, 8, d);
	ck_assert_uint_eq(d[0], 0xf8); /* high nibble kept */
}
END_TEST

/* Generic field extraction, for checking the codec against. */
static int64_t ref_get(const uint8_t *d, unsigned off, unsigned size, int is_signed)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)((d[(off + i) / 8] >> ((off + i) % 8)) & 1) << i;
	if (is_signed && size < 64 && (v >> (size - 1)) & 1)
		v |= ~0ull << size;
	return (int64_t)v;
}

START_TEST(le_round_trips)
{
	/* Byte-aligned fields of every size, and fields within one byte: what
	 * uvc_set_le_value packs as expected. */
	static const int32_t values[] = { 0, 1, -1, 2, -2, 0x7f, -0x80, 0x1234, -0x1234,
					  0x7fffffff, INT32_MIN, 0x55aa55aa };
	for (unsigned size = 1; size <= 32; size++) {
		for (unsigned off = 0; off < 40; off++) {
			if ((off % 8) && (off % 8) + size > 8)
				continue;
			for (int sg = 0; sg < 2; sg++) {
				struct uvc_ctrl_mapping m = {
					.size = (uint8_t)size, .offset = (uint8_t)off,
					.v4l2_type = V4L2_CTRL_TYPE_INTEGER,
					.data_type = sg ? UVC_CTRL_DATA_TYPE_SIGNED
							: UVC_CTRL_DATA_TYPE_UNSIGNED,
				};
				for (unsigned k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
					uint8_t d[9], before[9];
					memset(d, 0xa5, sizeof(d));
					memcpy(before, d, sizeof(d));
					uvc_ctrl_set_value(&m, values[k], d);
					int32_t got = uvc_ctrl_get_value(&m, UVC_GET_CUR, d);
					int64_t want = ref_get((const uint8_t *)&(uint64_t){ (uint64_t)(int64_t)values[k] },
							       0, size, sg);
					ck_assert_int_eq(got, (int32_t)want);
					/* Bits outside the field are untouched. */
					for (unsigned b = 0; b < 72; b++) {
						if (b >= off && b < off + size)
							continue;
						ck_assert_int_eq((d[b / 8] >> (b % 8)) & 1,
								 (before[b / 8] >> (b % 8)) & 1);
					}
				}
			}
		}
	}
}
END_TEST

START_TEST(le_layout)
{
	struct uvc_ctrl_mapping s16 = { .size = 16, .data_type = UVC_CTRL_DATA_TYPE_SIGNED,
					.v4l2_type = V4L2_CTRL_TYPE_INTEGER };
	struct uvc_ctrl_mapping u16 = s16;
	uint8_t d[4] = { 0xc0, 0xff, 0x34, 0x12 };

	u16.data_type = UVC_CTRL_DATA_TYPE_UNSIGNED;
	ck_assert_int_eq(uvc_ctrl_get_value(&s16, UVC_GET_CUR, d), -64);
	ck_assert_int_eq(uvc_ctrl_get_value(&u16, UVC_GET_CUR, d), 0xffc0);
	s16.offset = 16;
	ck_assert_int_eq(uvc_ctrl_get_value(&s16, UVC_GET_CUR, d), 0x1234);
	uvc_ctrl_set_value(&s16, -2, d);
	ck_assert_uint_eq(d[2], 0xfe);
	ck_assert_uint_eq(d[3], 0xff);
	ck_assert_uint_eq(d[0], 0xc0);

	/* uvc_set_le_value after a partial first byte moves on by the offset,
	 * not by the bits written: offset 2, 8 bits, value 0xff writes bits
	 * 2..7 with ones and bits 8..9 with value >> 2's low bits (ones). With
	 * 0x3c: bits 2..7 = 0x3c's low 6 bits (111100), bits 8..9 = (0x3c >> 2)
	 * & 3 = 3 where a plain packing would have 0. */
	struct uvc_ctrl_mapping odd = { .size = 8, .offset = 2,
					.data_type = UVC_CTRL_DATA_TYPE_UNSIGNED,
					.v4l2_type = V4L2_CTRL_TYPE_INTEGER };
	uint8_t e[2] = { 0, 0 };
	uvc_ctrl_set_value(&odd, 0x3c, e);
	ck_assert_uint_eq(e[0], 0xf0);
	ck_assert_uint_eq(e[1], 0x03);

	/* Buttons write ones whatever the value. */
	struct uvc_ctrl_mapping button = { .size = 1, .v4l2_type = V4L2_CTRL_TYPE_BUTTON };
	uint8_t f[1] = { 0 };
	uvc_ctrl_set_value(&button, 0, f);
	ck_assert_uint_eq(f[0], 1);
}
END_TEST

START_TEST(relative_codecs)
{
	const struct uvc_ctrl_mapping *zoom = mapping(V4L2_CID_ZOOM_CONTINUOUS, 0x110);
	const struct uvc_ctrl_mapping *pan = mapping(V4L2_CID_PAN_SPEED, 0x110);
	const struct uvc_ctrl_mapping *tilt = mapping(V4L2_CID_TILT_SPEED, 0x110);
	uint8_t z[3] = { 0, 0x55, 0 }, p[4] = { 0x11, 0x22, 0x33, 0x44 };

	uvc_ctrl_set_value(zoom, -3, z);
	ck_assert_mem_eq(z, ((uint8_t[]){ 0xff, 0x55, 3 }), 3);
	ck_assert_int_eq(uvc_ctrl_get_value(zoom, UVC_GET_CUR, z), -3);
	ck_assert_int_eq(uvc_ctrl_get_value(zoom, UVC_GET_MIN, z), 3); /* bSpeed as is */
	uvc_ctrl_set_value(zoom, 300, z);
	ck_assert_mem_eq(z, ((uint8_t[]){ 1, 0x55, 0xff }), 3);
	uvc_ctrl_set_value(zoom, 0, z);
	ck_assert_uint_eq(z[0], 0);
	ck_assert_int_eq(uvc_ctrl_get_value(zoom, UVC_GET_CUR, z), 0);
	uvc_ctrl_set_value(zoom, INT32_MIN, z);
	ck_assert_mem_eq(z, ((uint8_t[]){ 0xff, 0x55, 0 }), 3);

	uvc_ctrl_set_value(pan, -2, p);
	ck_assert_mem_eq(p, ((uint8_t[]){ 0xff, 2, 0x33, 0x44 }), 4);
	uvc_ctrl_set_value(tilt, 4, p);
	ck_assert_mem_eq(p, ((uint8_t[]){ 0xff, 2, 1, 4 }), 4);
	ck_assert_int_eq(uvc_ctrl_get_value(pan, UVC_GET_CUR, p), -2);
	ck_assert_int_eq(uvc_ctrl_get_value(tilt, UVC_GET_CUR, p), 4);
	/* GET_MIN negates the speed; MAX, RES, DEF take it as is. */
	ck_assert_int_eq(uvc_ctrl_get_value(pan, UVC_GET_MIN, p), -2);
	ck_assert_int_eq(uvc_ctrl_get_value(pan, UVC_GET_MAX, p), 2);
	ck_assert_int_eq(uvc_ctrl_get_value(tilt, UVC_GET_RES, p), 4);
}
END_TEST

START_TEST(info_flags)
{
	uint16_t table = UVC_CTRL_FLAG_SET_CUR | UVC_CTRL_FLAG_GET_RANGE | UVC_CTRL_FLAG_RESTORE;

	ck_assert_uint_eq(uvc_ctrl_flags_from_info(table, -EPIPE), table);
	ck_assert_uint_eq(uvc_ctrl_flags_from_info(table, UVC_CONTROL_CAP_GET),
			  (table & ~UVC_CTRL_FLAG_SET_CUR));
	ck_assert_uint_eq(uvc_ctrl_flags_from_info(table, UVC_CONTROL_CAP_SET | UVC_CONTROL_CAP_AUTOUPDATE |
								  UVC_CONTROL_CAP_ASYNCHRONOUS |
								  UVC_CONTROL_CAP_DISABLED),
			  (table & ~UVC_CTRL_FLAG_GET_CUR) | UVC_CTRL_FLAG_AUTO_UPDATE |
				  UVC_CTRL_FLAG_ASYNCHRONOUS);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("uvc-ctrl-map");
	TCase *t = tcase_create("ctrl-map");
	tcase_add_test(t, tables_match_uvcvideo);
	tcase_add_test(t, power_line_menu_per_version);
	tcase_add_test(t, exposure_menu);
	tcase_add_test(t, le_round_trips);
	tcase_add_test(t, le_layout);
	tcase_add_test(t, relative_codecs);
	tcase_add_test(t, info_flags);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return unit_run(suite());
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual camera's descriptors: well-formed chains whose totals add up,
 * and contents that say what each profile says. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>

#include "descriptors.h"
#include "profile.h"
#include "unit_run.h"
#include "vcam_fixture.h"

static struct vcam_identity identity(const char *profile)
{
	const struct vcam_profile *p = vcam_profile_find(profile);
	ck_assert_ptr_nonnull(p);
	return test_identity(p);
}

static unsigned get16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct census {
	unsigned interfaces, alts, endpoints, companions, iads;
	unsigned formats, frames, colorformats, frame_intervals;
	unsigned vc_total, vc_counted, vs_total, vs_counted;
	unsigned iso_alt_bytes[VCAM_MAX_ALTS + 1];
};

/* Walks a configuration descriptor the way a host does, checking lengths. */
static struct census walk(const uint8_t *d, size_t len)
{
	struct census c = { 0 };
	ck_assert_uint_ge(len, USB_DT_CONFIG_SIZE);
	ck_assert_uint_eq(get16(d + 2), len);
	int intf = -1, alt = -1;
	bool in_vc = false, in_vs = false;
	for (size_t i = 0; i < len;) {
		unsigned l = d[i], type = d[i + 1];
		ck_assert_uint_ge(l, 2);
		ck_assert_uint_le(i + l, len);
		if (type == USB_DT_INTERFACE) {
			intf = d[i + 2];
			alt = d[i + 3];
			in_vc = d[i + 6] == UVC_SC_VIDEOCONTROL;
			in_vs = d[i + 6] == UVC_SC_VIDEOSTREAMING;
			ck_assert_uint_eq(d[i + 5], 0x0e);
			if (alt == 0)
				c.interfaces++;
			else
				c.alts++;
		} else if (type == USB_DT_INTERFACE_ASSOCIATION) {
			c.iads++;
		} else if (type == USB_DT_ENDPOINT) {
			c.endpoints++;
			if ((d[i + 3] & 3) == USB_ENDPOINT_XFER_ISOC) {
				unsigned mp = get16(d + i + 4);
				c.iso_alt_bytes[alt] = (mp & 0x7ff) * (((mp >> 11) & 3) + 1);
			}
		} else if (type == USB_DT_SS_ENDPOINT_COMP) {
			c.companions++;
			if (alt > 0) {
				unsigned burst = d[i + 2] + 1, mult = (d[i + 3] & 3) + 1;
				ck_assert_uint_eq(get16(d + i + 4), 1024 * burst * mult);
				c.iso_alt_bytes[alt] = get16(d + i + 4);
			}
		} else if (type == 0x24 && in_vc) {
			if (d[i + 2] == UVC_VC_HEADER)
				c.vc_total = get16(d + i + 5);
			c.vc_counted += l;
		} else if (type == 0x24 && in_vs) {
			unsigned sub = d[i + 2];
			if (sub == UVC_VS_INPUT_HEADER)
				c.vs_total = get16(d + i + 4);
			c.vs_counted += l;
			if (sub == UVC_VS_FORMAT_UNCOMPRESSED || sub == UVC_VS_FORMAT_MJPEG ||
			    sub == UVC_VS_FORMAT_FRAME_BASED)
				c.formats++;
			if (sub == UVC_VS_FRAME_UNCOMPRESSED || sub == UVC_VS_FRAME_MJPEG) {
				c.frames++;
				ck_assert_uint_eq(l, 26 + 4 * d[i + 25]);
				c.frame_intervals += d[i + 25];
				/* the default interval is one of the listed ones */
				uint32_t def = get32(d + i + 21);
				bool found = false;
				for (unsigned k = 0; k < d[i + 25]; k++)
					found |= get32(d + i + 26 + 4 * k) == def;
				ck_assert(found);
			}
			if (sub == UVC_VS_FRAME_FRAME_BASED) {
				c.frames++;
				ck_assert_uint_eq(l, 26 + 4 * d[i + 21]);
				c.frame_intervals += d[i + 21];
			}
			if (sub == UVC_VS_COLORFORMAT)
				c.colorformats++;
		}
		(void)intf;
		i += l;
	}
	return c;
}

START_TEST(config_adds_up_for_every_profile)
{
	for (size_t n = 0; n < vcam_profile_count; n++) {
		const struct vcam_profile *p = &vcam_profiles[n];
		struct vcam_identity id = identity(p->name);
		uint8_t buf[4096];
		ssize_t len = vcam_config_descriptor(&id, buf, sizeof(buf));
		ck_assert_int_gt(len, 0);
		struct census c = walk(buf, (size_t)len);
		ck_assert_uint_eq(c.iads, 1);
		ck_assert_uint_eq(c.interfaces, 2);
		ck_assert_uint_eq(c.vc_total, c.vc_counted);
		ck_assert_uint_eq(c.vs_total, c.vs_counted);
		ck_assert_uint_eq(c.formats, p->n_formats);
		ck_assert_uint_eq(c.colorformats, p->n_formats);
		unsigned frames = 0, intervals = 0;
		for (unsigned f = 0; f < p->n_formats; f++) {
			frames += p->formats[f].n_frames;
			for (unsigned s = 0; s < p->formats[f].n_frames; s++)
				intervals += p->formats[f].frames[s].n_intervals;
		}
		ck_assert_uint_eq(c.frames, frames);
		ck_assert_uint_eq(c.frame_intervals, intervals);
		if (p->transfer == VCAM_ISOCHRONOUS) {
			ck_assert_uint_eq(c.alts, p->n_alts);
			ck_assert_uint_eq(c.endpoints, 1 + p->n_alts);
			for (unsigned a = 1; a <= p->n_alts; a++) {
				ck_assert_uint_eq(c.iso_alt_bytes[a], vcam_alt_bytes(&p->alts[a - 1]));
				if (a > 1) /* growing bandwidth, as hosts expect */
					ck_assert_uint_gt(c.iso_alt_bytes[a], c.iso_alt_bytes[a - 1]);
			}
		} else {
			ck_assert_uint_eq(c.alts, 0);
			ck_assert_uint_eq(c.endpoints, 2);
		}
		ck_assert_uint_eq(c.companions, p->speed == VCAM_SUPER_SPEED ? c.endpoints : 0);
	}
}
END_TEST

START_TEST(config_carries_controls_and_guid)
{
	struct vcam_identity id = identity("default");
	uint8_t buf[4096];
	ssize_t len = vcam_config_descriptor(&id, buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	bool ct = false, pu = false, xu = false;
	for (ssize_t i = 0; i < len; i += buf[i]) {
		if (buf[i + 1] == USB_DT_INTERFACE && buf[i + 6] == UVC_SC_VIDEOSTREAMING)
			break; /* VS subtypes reuse the VC numbers */
		if (buf[i + 1] != 0x24)
			continue;
		if (buf[i + 2] == UVC_VC_INPUT_TERMINAL) {
			ck_assert_uint_eq(get16(buf + i + 4), UVC_ITT_CAMERA);
			ck_assert_uint_eq(buf[i + 14], 3);
			ck_assert_uint_eq(buf[i + 15] | buf[i + 16] << 8 | buf[i + 17] << 16, 0x02000e);
			ct = true;
		} else if (buf[i + 2] == UVC_VC_PROCESSING_UNIT) {
			ck_assert_uint_eq(buf[i + 4], VCAM_ID_CAMERA);
			ck_assert_uint_eq(buf[i + 8] | buf[i + 9] << 8 | buf[i + 10] << 16, 0x00175f);
			pu = true;
		} else if (buf[i + 2] == UVC_VC_EXTENSION_UNIT) {
			ck_assert_mem_eq(buf + i + 4, test_guid, 16);
			ck_assert_uint_eq(buf[i + 20], 4);
			xu = true;
		}
	}
	ck_assert(ct && pu && xu);
}
END_TEST

START_TEST(small_buffer_is_refused_without_overflow)
{
	struct vcam_identity id = identity("usb3");
	uint8_t buf[64];
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(vcam_config_descriptor(&id, buf, 32), -ENOSPC);
	for (size_t i = 32; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xa5);
}
END_TEST

START_TEST(device_strings_and_bos)
{
	struct vcam_identity hs = identity("default"), ss = identity("usb3");
	uint8_t buf[256];
	ck_assert_int_eq(vcam_device_descriptor(hs.profile, buf, sizeof(buf)), 18);
	ck_assert_uint_eq(get16(buf + 2), 0x0200);
	ck_assert_uint_eq(buf[7], 64);
	ck_assert_uint_eq(get16(buf + 8), VCAM_VENDOR_ID);
	ck_assert_int_eq(vcam_device_descriptor(ss.profile, buf, sizeof(buf)), 18);
	ck_assert_uint_ge(get16(buf + 2), 0x0300);
	ck_assert_uint_eq(buf[7], 9);

	ssize_t n = vcam_bos_descriptor(ss.profile, buf, sizeof(buf));
	ck_assert_int_gt(n, 5);
	ck_assert_uint_eq(get16(buf + 2), (unsigned)n);
	ck_assert_int_eq(vcam_bos_descriptor(hs.profile, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(vcam_qualifier_descriptor(hs.profile, buf, sizeof(buf)), 10);
	ck_assert_int_eq(vcam_qualifier_descriptor(ss.profile, buf, sizeof(buf)), -EINVAL);

	n = vcam_string_descriptor(&hs, VCAM_STR_SERIAL, buf, sizeof(buf));
	ck_assert_int_eq(n, 2 + 2 * 4);
	ck_assert_uint_eq(buf[0], n);
	ck_assert_uint_eq(buf[2], 'S');
	ck_assert_uint_eq(buf[3], 0);
	ck_assert_uint_eq(buf[8], '2');
	ck_assert_int_eq(vcam_string_descriptor(&hs, 0, buf, sizeof(buf)), 4);
	ck_assert_uint_eq(get16(buf + 2), 0x0409);
	ck_assert_int_eq(vcam_string_descriptor(&hs, 9, buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(profiles_are_as_the_bench_needs)
{
	const struct vcam_profile *p = vcam_profile_find("default");
	ck_assert_uint_eq(p->transfer, VCAM_ISOCHRONOUS);
	ck_assert_uint_ge(p->n_alts, 3);
	ck_assert_uint_eq(p->formats[0].pixel, VCAM_PIXEL_YUYV);
	ck_assert_uint_eq(p->formats[1].pixel, VCAM_PIXEL_MJPEG);
	ck_assert_uint_eq(p->formats[1].frames[2].width, 1920);
	ck_assert_uint_eq(vcam_profile_find("bulk")->transfer, VCAM_BULK);
	ck_assert_uint_eq(vcam_profile_find("usb3")->speed, VCAM_SUPER_SPEED);
	ck_assert_uint_eq(vcam_profile_find("h264")->formats[0].pixel, VCAM_PIXEL_H264);
	ck_assert_uint_eq(vcam_profile_find("nv12")->formats[0].pixel, VCAM_PIXEL_NV12);
	ck_assert_ptr_null(vcam_profile_find("nonesuch"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcam-descriptors");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, config_adds_up_for_every_profile);
	tcase_add_test(tc, config_carries_controls_and_guid);
	tcase_add_test(tc, small_buffer_is_refused_without_overflow);
	tcase_add_test(tc, device_strings_and_bos);
	tcase_add_test(tc, profiles_are_as_the_bench_needs);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcvideo 6.1's device table and quirk names (src/uvc/quirks.c). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>
#include <linux/videodev2.h>

#include "unit_run.h"
#include "uvc/descriptors.h"
#include "uvc/negotiate.h"
#include "uvc/quirks.h"

#define VIDEO USB_CLASS_VIDEO
#define VENDOR USB_CLASS_VENDOR_SPEC
#define VC UVC_SC_VIDEOCONTROL

static const char *const generic10 = "generic UVC 1.0/1.1 interface";
static const char *const generic15 = "generic UVC 1.5 interface";

START_TEST(table_shape)
{
	/* 67 cameras and the two class-wide entries, last. */
	ck_assert_uint_eq(uvc_quirk_n_entries, 69);
	ck_assert_str_eq(uvc_quirk_entries[67].name, generic10);
	ck_assert_str_eq(uvc_quirk_entries[68].name, generic15);
	unsigned power_line = 0, with_quirks = 0;
	for (unsigned i = 0; i < uvc_quirk_n_entries; i++) {
		const struct uvc_quirk_entry *e = &uvc_quirk_entries[i];
		ck_assert_uint_eq(e->quirks & ~UVC_QUIRKS_KNOWN, 0);
		ck_assert_ptr_nonnull(e->name);
		if (i >= 67)
			continue;
		/* the name starts with the entry's own VID:PID */
		char id[11];
		snprintf(id, sizeof(id), "%04x:%04x ", e->vid, e->pid);
		ck_assert_msg(!strncmp(e->name, id, 10), "%s", e->name);
		ck_assert_uint_eq(e->if_subclass, VC);
		power_line += e->mapping != NULL;
		with_quirks += e->quirks != 0;
	}
	ck_assert_uint_eq(power_line, 8);
	ck_assert_uint_eq(with_quirks, 49);
}
END_TEST

START_TEST(lookup_entries)
{
	const char *name;
	ck_assert_uint_eq(uvc_quirks_lookup(0x05ac, 0x8501, 0x0100, VIDEO, VC, 0, &name),
			  UVC_QUIRK_PROBE_MINMAX | UVC_QUIRK_BUILTIN_ISIGHT);
	ck_assert_str_eq(name, "05ac:8501 Apple Built-In iSight");
	ck_assert_uint_eq(uvc_quirks_lookup(0x0416, 0xa91a, 0, VIDEO, VC, 0, NULL),
			  UVC_QUIRK_PROBE_MINMAX);
	ck_assert_uint_eq(uvc_quirks_lookup(0x046d, 0x082d, 0x0011, VIDEO, VC, 0, &name),
			  UVC_QUIRK_RESTORE_CTRLS_ON_INIT);
	ck_assert_str_eq(name, "046d:082d Logitech HD Pro Webcam C920");
	ck_assert_uint_eq(uvc_quirks_lookup(0x174f, 0x8a12, 0, VIDEO, VC, 0, NULL),
			  UVC_QUIRK_STREAM_NO_FID);

	/* the other uvc_device_info fields */
	const struct uvc_quirk_entry *e = uvc_quirks_match(0x1bcf, 0x0b40, 0, VIDEO, VC, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->uvc_version, 0x010a);
	ck_assert_uint_eq(e->quirks, 0);
	e = uvc_quirks_match(0x8086, 0x0b03, 0, VIDEO, VC, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->meta_format, V4L2_META_FMT_D4XX);
	e = uvc_quirks_match(0x04f2, 0xb746, 0, VIDEO, VC, 0);
	ck_assert_ptr_eq(e->mapping, &uvc_ctrl_power_line_limited);
	ck_assert_ptr_null(uvc_quirks_match(0x046d, 0x0821, 0, VIDEO, VC, 0)->mapping);
}
END_TEST

START_TEST(interface_protocol_and_class)
{
	const char *name;
	/* 0408:4034 is listed for UVC 1.5 interfaces only */
	const struct uvc_quirk_entry *e = uvc_quirks_match(0x0408, 0x4034, 0, VIDEO, VC, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_eq(e->mapping, &uvc_ctrl_power_line_limited);
	e = uvc_quirks_match(0x0408, 0x4034, 0, VIDEO, VC, 0);
	ck_assert_str_eq(e->name, generic10);
	ck_assert_ptr_null(e->mapping);

	/* vendor-specific class: the listed QuickCams only */
	ck_assert_uint_eq(uvc_quirks_lookup(0x046d, 0x08c2, 0, VENDOR, VC, 0, &name), 0);
	ck_assert_str_eq(name, "046d:08c2 Logitech Quickcam Orbit MP");
	ck_assert_uint_eq(uvc_quirks_lookup(0x2833, 0x0211, 0, VENDOR, VC, 0, &name),
			  UVC_QUIRK_FORCE_Y8);
	/* a listed camera seen through another interface (protocol 1, or
	 * VideoStreaming) is not that entry */
	ck_assert_uint_eq(uvc_quirks_lookup(0x2833, 0x0211, 0, VENDOR, VC, 1, &name), 0);
	ck_assert_ptr_null(name);
	ck_assert_uint_eq(uvc_quirks_lookup(0x05ac, 0x8501, 0, VIDEO, UVC_SC_VIDEOSTREAMING, 0,
					    &name), 0);
	ck_assert_ptr_null(name);
	/* the same QuickCam announcing the video class gets the generic entry */
	ck_assert_uint_eq(uvc_quirks_lookup(0x046d, 0x08c2, 0, VIDEO, VC, 0, &name), 0);
	ck_assert_str_eq(name, generic10);
}
END_TEST

START_TEST(bcd_device_range)
{
	const char *name;
	/* Bodelin ProScopeHR up to bcdDevice 0x0126 */
	ck_assert_uint_eq(uvc_quirks_lookup(0x19ab, 0x1000, 0x0126, VIDEO, VC, 0, &name),
			  UVC_QUIRK_STATUS_INTERVAL);
	ck_assert_str_eq(name, "19ab:1000 Bodelin ProScopeHR");
	ck_assert_uint_eq(uvc_quirks_lookup(0x19ab, 0x1000, 0x0000, VIDEO, VC, 0, NULL),
			  UVC_QUIRK_STATUS_INTERVAL);
	ck_assert_uint_eq(uvc_quirks_lookup(0x19ab, 0x1000, 0x0127, VIDEO, VC, 0, &name), 0);
	ck_assert_str_eq(name, generic10);
}
END_TEST

START_TEST(first_match_and_unknown)
{
	const char *name = "x";
	/* a listed camera matches its own entry and the generic one: the
	 * first in table order wins */
	const struct uvc_quirk_entry *e = uvc_quirks_match(0x0e8d, 0x0004, 0, VIDEO, VC, 0);
	ck_assert_uint_eq(e->quirks, UVC_QUIRK_PROBE_MINMAX | UVC_QUIRK_PROBE_DEF);
	ck_assert_uint_lt((unsigned)(e - uvc_quirk_entries), 67);
	/* no two camera entries match the same interface, so order among
	 * them never matters */
	for (unsigned i = 0; i < 67; i++) {
		const struct uvc_quirk_entry *a = &uvc_quirk_entries[i];
		ck_assert_ptr_eq(uvc_quirks_match(a->vid, a->pid, a->bcd_hi, a->if_class,
						  a->if_subclass, a->if_protocol), a);
	}

	/* unknown cameras: the class-wide entries, or nothing */
	ck_assert_uint_eq(uvc_quirks_lookup(0x1234, 0x5678, 0x0100, VIDEO, VC, 0, &name), 0);
	ck_assert_str_eq(name, generic10);
	ck_assert_uint_eq(uvc_quirks_lookup(0x1234, 0x5678, 0x0100, VIDEO, VC, 1, &name), 0);
	ck_assert_str_eq(name, generic15);
	ck_assert_uint_eq(uvc_quirks_lookup(0x1234, 0x5678, 0x0100, VIDEO, VC, 2, &name), 0);
	ck_assert_ptr_null(name);
	ck_assert_uint_eq(uvc_quirks_lookup(0x1234, 0x5678, 0x0100, VENDOR, VC, 0, &name), 0);
	ck_assert_ptr_null(name);
	ck_assert_ptr_null(uvc_quirks_match(0x1234, 0x5678, 0, VIDEO, UVC_SC_VIDEOSTREAMING, 0));
}
END_TEST

START_TEST(names_round_trip)
{
	unsigned named = 0;
	for (unsigned b = 0; b < 32; b++) {
		uint32_t bit = 1u << b;
		const char *n = uvc_quirk_name(bit);
		ck_assert_int_eq(n != NULL, (UVC_QUIRKS_KNOWN & bit) != 0);
		if (!n)
			continue;
		named++;
		uint32_t q = 0;
		ck_assert_int_eq(uvc_quirks_parse(n, &q), 0);
		ck_assert_uint_eq(q, bit);
	}
	ck_assert_uint_eq(named, 17);
	ck_assert_str_eq(uvc_quirk_name(UVC_QUIRK_PROBE_MINMAX), "probe_minmax");
	ck_assert_str_eq(uvc_quirk_name(UVC_QUIRK_MJPEG_NO_EOF), "mjpeg_no_eof");
	ck_assert_ptr_null(uvc_quirk_name(0x40));
	ck_assert_ptr_null(uvc_quirk_name(0));
	ck_assert_ptr_null(uvc_quirk_name(UVC_QUIRK_PROBE_MINMAX | UVC_QUIRK_PROBE_DEF));

	/* format -> parse gives the value back, for every entry and odd values */
	char buf[512];
	for (unsigned i = 0; i < uvc_quirk_n_entries; i++) {
		uint32_t q = ~0u;
		uvc_quirks_format(uvc_quirk_entries[i].quirks, buf, sizeof(buf));
		ck_assert_int_eq(uvc_quirks_parse(buf, &q), 0);
		ck_assert_uint_eq(q, uvc_quirk_entries[i].quirks);
	}
	const uint32_t odd[] = { 0, UVC_QUIRKS_KNOWN, 0x40, 0xffffffffu, 0x82 };
	for (unsigned i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		uint32_t q = 1;
		int len = uvc_quirks_format(odd[i], buf, sizeof(buf));
		ck_assert_int_eq(len, (int)strlen(buf));
		ck_assert_int_eq(uvc_quirks_parse(buf, &q), 0);
		ck_assert_uint_eq(q, odd[i]);
	}
	uvc_quirks_format(0x82, buf, sizeof(buf));
	ck_assert_str_eq(buf, "probe_minmax,fix_bandwidth");
	uvc_quirks_format(0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "none");
	uvc_quirks_format(0x42, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0x42");
	/* snprintf's contract: the length needed, truncated text */
	ck_assert_int_eq(uvc_quirks_format(0x82, NULL, 0), 26);
	ck_assert_int_eq(uvc_quirks_format(0x82, buf, 8), 26);
	ck_assert_str_eq(buf, "probe_m");
}
END_TEST

START_TEST(parse_lists_and_numbers)
{
	uint32_t q;
	ck_assert_int_eq(uvc_quirks_parse("probe_minmax,fix_bandwidth", &q), 0);
	ck_assert_uint_eq(q, UVC_QUIRK_PROBE_MINMAX | UVC_QUIRK_FIX_BANDWIDTH);
	ck_assert_int_eq(uvc_quirks_parse(" PROBE_DEF , uvc_quirk_force_y8\n", &q), 0);
	ck_assert_uint_eq(q, UVC_QUIRK_PROBE_DEF | UVC_QUIRK_FORCE_Y8);
	ck_assert_int_eq(uvc_quirks_parse("probe_def,probe_def", &q), 0);
	ck_assert_uint_eq(q, UVC_QUIRK_PROBE_DEF);
	q = 7;
	ck_assert_int_eq(uvc_quirks_parse("", &q), 0);
	ck_assert_uint_eq(q, 0);
	q = 7;
	ck_assert_int_eq(uvc_quirks_parse("None", &q), 0);
	ck_assert_uint_eq(q, 0);

	/* numbers as uvcvideo's quirks= takes them */
	ck_assert_int_eq(uvc_quirks_parse("0x80", &q), 0);
	ck_assert_uint_eq(q, 0x80);
	ck_assert_int_eq(uvc_quirks_parse("0X2002", &q), 0);
	ck_assert_uint_eq(q, 0x2002);
	ck_assert_int_eq(uvc_quirks_parse("128", &q), 0);
	ck_assert_uint_eq(q, 128);
	ck_assert_int_eq(uvc_quirks_parse("0200\n", &q), 0);
	ck_assert_uint_eq(q, 0x80);
	ck_assert_int_eq(uvc_quirks_parse("0xffffffff", &q), 0);
	ck_assert_uint_eq(q, 0xffffffffu);

	/* errors leave *out alone */
	const char *bad[] = {
		"bogus", "probe_minmax,bogus", "probe_minmax,", ",probe_minmax",
		"probe_minmax,,fix_bandwidth", "probe", "uvc_quirk_", "probe_minmax fix_bandwidth",
		"0x", "0x1g", "08", "0x100000000", "99999999999999999999", "-1", "+1",
		"0x80,probe_def", "probe_def,0x80", "none,probe_def",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		q = 0x1234;
		ck_assert_msg(uvc_quirks_parse(bad[i], &q) == -EINVAL, "'%s' accepted", bad[i]);
		ck_assert_uint_eq(q, 0x1234);
	}
}
END_TEST

/* ---- applying quirks to a camera ---- */

/* A camera of one stream: YUYV 640x480 at 30/15/5 fps (default 15), and
 * 1280x720 with continuous intervals; two isochronous alternate settings. */
static uint32_t intervals[3];
static struct uvc_frame frames[2];
static struct uvc_format format;
static struct uvc_alt alts[2] = { { .alt = 1, .bytes = 512 }, { .alt = 2, .bytes = 1024 } };
static struct uvc_streaming stream;
static struct uvc_camera camera;

static void make_camera(void)
{
	intervals[0] = 333333, intervals[1] = 666666, intervals[2] = 2000000;
	alts[1].bytes = 1024;
	frames[0] = (struct uvc_frame){ .index = 1, .width = 640, .height = 480,
					.max_buffer_size = 614400, .default_interval = 666666,
					.n_intervals = 3, .intervals = intervals };
	frames[1] = (struct uvc_frame){ .index = 2, .width = 1280, .height = 720,
					.max_buffer_size = 1843200, .default_interval = 333333,
					.continuous = true,
					.range = { 333333, 2000000, 333333 } };
	format = (struct uvc_format){ .index = 1, .kind = UVC_FORMAT_UNCOMPRESSED,
				      .fourcc = V4L2_PIX_FMT_YUYV, .bpp = 16, .n_frames = 2,
				      .frames = frames };
	stream = (struct uvc_streaming){ .interface = 1, .endpoint = 0x81,
					 .transfer = UVC_TRANSFER_ISOCHRONOUS, .n_alts = 2,
					 .alts = alts, .n_formats = 1, .formats = &format };
	camera = (struct uvc_camera){ .bcd_uvc = 0x0100, .n_streams = 1, .streams = &stream };
}

START_TEST(apply_to_the_model)
{
	make_camera();
	ck_assert_int_eq(uvc_quirks_apply(&camera, NULL, UVC_QUIRK_RESTRICT_FRAME_RATE), 0);
	ck_assert_uint_eq(camera.quirks, UVC_QUIRK_RESTRICT_FRAME_RATE);
	ck_assert_uint_eq(stream.quirks, UVC_QUIRK_RESTRICT_FRAME_RATE);
	/* each frame offers its default interval only, continuous ones too */
	ck_assert_uint_eq(frames[0].n_intervals, 1);
	ck_assert_uint_eq(frames[0].intervals[0], 666666);
	ck_assert(!frames[1].continuous);
	ck_assert_uint_eq(frames[1].n_intervals, 1);
	ck_assert_uint_eq(frames[1].intervals[0], 333333);
	free(frames[1].intervals);

	make_camera();
	ck_assert_int_eq(uvc_quirks_apply(&camera, NULL, UVC_QUIRK_FORCE_Y8), 0);
	ck_assert_uint_eq(format.fourcc, V4L2_PIX_FMT_GREY);
	ck_assert_uint_eq(format.bpp, 8);
	ck_assert_uint_eq(frames[0].width, 1280); /* the same bytes, read as Y8 */
	ck_assert_uint_eq(frames[1].width, 2560);
	ck_assert_uint_eq(frames[0].n_intervals, 3);

	make_camera();
	format.bpp = 0; /* a camera that says nothing */
	ck_assert_int_eq(uvc_quirks_apply(&camera, NULL, UVC_QUIRK_FORCE_BPP), 0);
	ck_assert_uint_eq(format.bpp, 16);

	/* a table entry's forced bcdUVC and power line mapping */
	const struct uvc_quirk_entry *e = NULL;
	for (unsigned i = 0; i < uvc_quirk_n_entries && !e; i++)
		if (uvc_quirk_entries[i].uvc_version)
			e = &uvc_quirk_entries[i];
	ck_assert_ptr_nonnull(e);
	make_camera();
	ck_assert_int_eq(uvc_quirks_apply(&camera, e, e->quirks), 0);
	ck_assert_uint_eq(camera.bcd_uvc, e->uvc_version);
	const struct uvc_quirk_entry *plf = uvc_quirks_match(0x5986, 0x1172, 0x100, VIDEO, VC, 0);
	ck_assert_ptr_nonnull(plf);
	ck_assert_ptr_nonnull(plf->mapping);
	make_camera();
	ck_assert_int_eq(uvc_quirks_apply(&camera, plf, plf->quirks), 0);
	ck_assert_ptr_eq(camera.custom_mapping, plf->mapping);
}
END_TEST

/* ---- the negotiation under PROBE_MINMAX and PROBE_DEF ---- */

static unsigned asked[256];
static uint32_t answer_payload;

/* A camera that asks for more bandwidth than its endpoint has. */
static int greedy_camera(void *ctx, uint8_t query, uint8_t selector, uint8_t *data, uint16_t len)
{
	(void)ctx, (void)selector;
	asked[query]++;
	if (query == UVC_SET_CUR)
		return len;
	struct uvc_probe p = { .format_index = 1, .frame_index = 1, .interval = 333333,
			       .max_video_frame_size = 614400,
			       .max_payload_transfer_size = answer_payload };
	uvc_probe_encode(&p, data, len);
	return len;
}

START_TEST(negotiation_quirks)
{
	struct uvc_probe want = { .format_index = 1, .frame_index = 1, .interval = 333333 }, got;
	struct uvc_probe_notes notes;

	/* without quirks: GET_MIN/MAX asked, quality lowered, the answer taken */
	make_camera();
	memset(asked, 0, sizeof(asked));
	answer_payload = 3072;
	ck_assert_int_eq(uvc_probe_negotiate(&stream, 0x0100, greedy_camera, NULL, &want, &got,
					     &notes), 0);
	ck_assert_uint_eq(asked[UVC_GET_MIN], 1);
	ck_assert_uint_eq(asked[UVC_GET_MAX], 1);

	/* PROBE_MINMAX: no GET_MIN/MAX; the answer is taken, and (as uvcvideo's
	 * fixup of every GET_CUR does) cut to the largest alternate setting */
	make_camera();
	uvc_quirks_apply(&camera, NULL, UVC_QUIRK_PROBE_MINMAX);
	memset(asked, 0, sizeof(asked));
	ck_assert_int_eq(uvc_probe_negotiate(&stream, 0x0100, greedy_camera, NULL, &want, &got,
					     &notes), 0);
	ck_assert_uint_eq(asked[UVC_GET_MIN] + asked[UVC_GET_MAX], 0);
	ck_assert_uint_eq(got.max_payload_transfer_size, 1024);

	/* PROBE_DEF: GET_DEF is never sent */
	make_camera();
	uvc_quirks_apply(&camera, NULL, UVC_QUIRK_PROBE_DEF);
	memset(asked, 0, sizeof(asked));
	struct uvc_probe def;
	ck_assert_int_eq(uvc_probe_read(&stream, 0x0100, greedy_camera, NULL, UVC_GET_DEF, &def,
					&notes), -EIO);
	ck_assert_uint_eq(asked[UVC_GET_DEF], 0);

	/* FIX_BANDWIDTH: YUYV 640x480 at 30 fps estimated, not the camera's 3072 */
	make_camera();
	alts[1].bytes = 3072; /* room for the estimate: it is not clamped */
	uvc_quirks_apply(&camera, NULL, UVC_QUIRK_FIX_BANDWIDTH);
	answer_payload = 3072;
	ck_assert_int_eq(uvc_probe_negotiate(&stream, 0x0100, greedy_camera, NULL, &want, &got,
					     &notes), 0);
	/* 640 * 480 / 8 * 16 * (30 + 1) / 1000 / 8 + 12 */
	ck_assert_uint_eq(got.max_payload_transfer_size, 2392);
	ck_assert(notes.fixed & UVC_FIXUP_BANDWIDTH);
	/* at full speed per 1 ms frame: eight times that, less the header's share */
	make_camera();
	alts[1].bytes = 20000;
	stream.full_speed = true;
	uvc_quirks_apply(&camera, NULL, UVC_QUIRK_FIX_BANDWIDTH);
	ck_assert_int_eq(uvc_probe_negotiate(&stream, 0x0100, greedy_camera, NULL, &want, &got,
					     &notes), 0);
	ck_assert_uint_eq(got.max_payload_transfer_size, 19046 + 12);
	stream.full_speed = false;
	alts[1].bytes = 1024;
}
END_TEST

/* The udev rule starts uvcuse for exactly the vendor-specific cameras the
 * table binds: one line per VENDOR_CLASS entry, none other. */
START_TEST(udev_rule_lists_vendor_class_cameras)
{
	const char *path = getenv("UVCUSE_UDEV_RULES");
	ck_assert_msg(path != NULL, "UVCUSE_UDEV_RULES is not set");
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	static char rules[65536];
	size_t n = fread(rules, 1, sizeof(rules) - 1, f);
	rules[n] = 0;
	fclose(f);
	unsigned vendor_entries = 0;
	for (unsigned i = 0; i < uvc_quirk_n_entries; i++) {
		const struct uvc_quirk_entry *e = &uvc_quirk_entries[i];
		if (e->if_class != VENDOR)
			continue;
		char line[160];
		snprintf(line, sizeof(line),
			 "ENV{ID_USB_INTERFACES}==\"*:ff01??:*\", ATTR{idVendor}==\"%04x\", "
			 "ATTR{idProduct}==\"%04x\", GOTO=\"uvcuse_camera\"\n",
			 e->vid, e->pid);
		ck_assert_msg(strstr(rules, line), "%s: no rule line %s", e->name, line);
		vendor_entries++;
	}
	unsigned lines = 0;
	for (const char *p = rules; (p = strstr(p, "\nENV{ID_USB_INTERFACES}==\"*:ff01")); p++)
		lines++;
	ck_assert_uint_eq(vendor_entries, 9);
	ck_assert_uint_eq(lines, vendor_entries);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uvc-quirks");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, table_shape);
	tcase_add_test(tc, lookup_entries);
	tcase_add_test(tc, interface_protocol_and_class);
	tcase_add_test(tc, bcd_device_range);
	tcase_add_test(tc, first_match_and_unknown);
	tcase_add_test(tc, names_round_trip);
	tcase_add_test(tc, parse_lists_and_numbers);
	tcase_add_test(tc, apply_to_the_model);
	tcase_add_test(tc, negotiation_quirks);
	tcase_add_test(tc, udev_rule_lists_vendor_class_cameras);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

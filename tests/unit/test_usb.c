/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/usb/: the pure parts of the USB layer. VID:PID parsing, the repair of
 * probe answers (uvc_probe_fixup) and the transfer plan (alternate setting,
 * transfer sizes) over what every vcam profile negotiates. The rest needs a
 * device: tests/e2e/usb-stream.sh drives it in the VM. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "descriptors.h" /* tests/vcam */
#include "probe.h"
#include "profile.h"
#include "unit_run.h"
#include "vcam_fixture.h"
#include "usb/internal.h" /* usb_transfer_orphan */
#include "usb/usb.h"
#include "uvc/negotiate.h"


/* Issue 29, finding 10: which device coming back is the camera. Always
 * its VID:PID and serial; a camera with a serial anywhere under
 * any-port (it was moved), only in its port under same-port; one without
 * a serial only in its port. (The descriptors are compared after.) */
START_TEST(test_replug_candidate)
{
	struct usb_camera_id was = { .vid = 0x1209, .pid = 0x0001, .serial = "CAM1",
				     .port_path = "1-2" };
	struct usb_seen_device same = { 0x1209, 0x0001, "CAM1", "1-2" };
	struct usb_seen_device moved = { 0x1209, 0x0001, "CAM1", "3-1.4" };
	struct usb_seen_device other = { 0x1209, 0x0001, "CAM2", "1-2" };
	struct usb_seen_device model = { 0x1209, 0x0002, "CAM1", "1-2" };
	ck_assert(usb_replug_candidate(&was, &same, USB_REPLUG_ANY_PORT));
	ck_assert(usb_replug_candidate(&was, &moved, USB_REPLUG_ANY_PORT));
	ck_assert(usb_replug_candidate(&was, &same, USB_REPLUG_SAME_PORT));
	ck_assert(!usb_replug_candidate(&was, &moved, USB_REPLUG_SAME_PORT));
	ck_assert(!usb_replug_candidate(&was, &other, USB_REPLUG_ANY_PORT));
	ck_assert(!usb_replug_candidate(&was, &model, USB_REPLUG_ANY_PORT));
	/* no serial: the port is the identity, whatever the rule */
	struct usb_camera_id anon = { .vid = 0x1209, .pid = 0x0001, .port_path = "1-2" };
	struct usb_seen_device anon_same = { 0x1209, 0x0001, "", "1-2" };
	struct usb_seen_device anon_moved = { 0x1209, 0x0001, "", "1-3" };
	ck_assert(usb_replug_candidate(&anon, &anon_same, USB_REPLUG_ANY_PORT));
	ck_assert(!usb_replug_candidate(&anon, &anon_moved, USB_REPLUG_ANY_PORT));
	ck_assert(!usb_replug_candidate(&anon, &same, USB_REPLUG_ANY_PORT)); /* a serial now */
}
END_TEST

START_TEST(test_match_parse_id)
{
	struct usb_match m = { 0 };
	ck_assert_int_eq(usb_match_parse_id("046d:0825", &m), 0);
	ck_assert(m.by_id);
	ck_assert_uint_eq(m.vid, 0x046d);
	ck_assert_uint_eq(m.pid, 0x0825);
	ck_assert_int_eq(usb_match_parse_id("ABCD:ef01", &m), 0);
	ck_assert_uint_eq(m.vid, 0xabcd);
	ck_assert_uint_eq(m.pid, 0xef01);
	ck_assert_int_eq(usb_match_parse_id("1209:1", &m), 0);
	ck_assert_uint_eq(m.vid, 0x1209);
	ck_assert_uint_eq(m.pid, 0x0001);

	static const char *const bad[] = { "", "046d", "046d:", ":0825", "12345:0001",
					   "046d:12345", "046g:0001", "046d:0825x", "046d:08:25",
					   " 046d:0825", "046d-0825", "0x46d:825" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct usb_match n = { 0 };
		ck_assert_msg(usb_match_parse_id(bad[i], &n) == -EINVAL, "'%s' accepted", bad[i]);
		ck_assert_msg(!n.by_id && !n.vid && !n.pid, "'%s' changed the match", bad[i]);
	}
	ck_assert_int_eq(usb_match_parse_id(NULL, &m), -EINVAL);
}
END_TEST

/* The identity the udev rule names the service instance after, both ways. */
START_TEST(test_camera_identity)
{
	struct usb_match m = { 0 };
	ck_assert_int_eq(usb_match_parse_identity("serial-046d-0825-AB-12_x", &m), 0);
	ck_assert(m.by_id);
	ck_assert_uint_eq(m.vid, 0x046d);
	ck_assert_uint_eq(m.pid, 0x0825);
	ck_assert_str_eq(m.serial, "AB-12_x");
	ck_assert_ptr_null(m.port_path);

	struct usb_match p = { 0 };
	ck_assert_int_eq(usb_match_parse_identity("port-1d6b-0104-3-1.4.2", &p), 0);
	ck_assert_uint_eq(p.vid, 0x1d6b);
	ck_assert_uint_eq(p.pid, 0x0104);
	ck_assert_str_eq(p.port_path, "3-1.4.2");
	ck_assert_ptr_null(p.serial);

	static const char *const bad[] = { "", "serial-", "serial-046d-0825-", "serial-046d-0825",
					   "serial-46d-0825-X", "serial-046d:0825-X", "serial-046g-0825-X",
					   "port-046d-0825-", "port-046d-0825-1", "port-046d-0825-1-",
					   "port-046d-0825-1-2.", "port-046d-0825-1-2..3", "port-046d-0825-a-2",
					   "port-046d-0825-1-2x", "046d:0825", "Serial-046d-0825-X" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct usb_match n = { 0 };
		ck_assert_msg(usb_match_parse_identity(bad[i], &n) == -EINVAL, "'%s' accepted", bad[i]);
		ck_assert_msg(!n.by_id && !n.serial && !n.port_path, "'%s' changed the match", bad[i]);
	}

	struct usb_camera_id id = { .vid = 0x1209, .pid = 0x0001 };
	strcpy(id.port_path, "1-2.3");
	char out[64];
	ck_assert_int_eq(usb_camera_identity(&id, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "port-1209-0001-1-2.3");
	strcpy(id.serial, "  SN 1/2\tx  ");
	ck_assert_int_eq(usb_camera_identity(&id, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "serial-1209-0001-SN_1_2_x");
	ck_assert_int_eq(usb_camera_identity(&id, out, 10), -ENAMETOOLONG);

	/* The udev form round-trips to a match of the raw serial. */
	struct usb_match r = { 0 };
	ck_assert_int_eq(usb_match_parse_identity("serial-1209-0001-SN_1_2_x", &r), 0);
	ck_assert(usb_serial_matches(r.serial, id.serial));
	ck_assert(usb_serial_matches("DEMO0001", "DEMO0001"));
	ck_assert(!usb_serial_matches("DEMO0001", "DEMO0002"));
	ck_assert(!usb_serial_matches("SN_1", "SN 12"));
	char udev[16];
	usb_serial_udev("a#+-.:=@_b;c", udev, sizeof(udev));
	ck_assert_str_eq(udev, "a#+-.:=@_b_c");
	usb_serial_udev("0123456789abcdefgh", udev, sizeof(udev));
	ck_assert_str_eq(udev, "0123456789abcde");
}
END_TEST

static uint32_t max_alt(const struct uvc_streaming *vs)
{
	uint32_t m = 0;
	for (unsigned i = 0; i < vs->n_alts; i++)
		if (vs->alts[i].bytes > m)
			m = vs->alts[i].bytes;
	return m;
}

/* Every format, frame and rate of every profile: what the camera answers is
 * sound (no repair), and the plan carries it as uvcvideo would. */
START_TEST(test_plan_every_profile)
{
	unsigned checked = 0;
	for (size_t pi = 0; pi < vcam_profile_count; pi++) {
		const struct vcam_profile *prof = &vcam_profiles[pi];
		struct uvc_camera *cam = fixture_camera(prof);
		const struct uvc_streaming *vs = &cam->streams[0];
		for (unsigned f = 0; f < prof->n_formats; f++) {
			for (unsigned fr = 0; fr < prof->formats[f].n_frames; fr++) {
				const struct vcam_frame_size *size = &prof->formats[f].frames[fr];
				for (unsigned i = 0; i < size->n_intervals; i++) {
					struct uvc_probe asked = {
						.hint = 1,
						.format_index = (uint8_t)(f + 1),
						.frame_index = (uint8_t)(fr + 1),
						.interval = size->intervals[i],
					}, got;
					ck_assert_int_eq(vcam_probe_negotiate(prof, &asked, &got), 0);
					struct uvc_probe fixed = got;
					ck_assert_msg(uvc_probe_fixup(vs, &fixed) == 0,
						      "%s %u/%u: sound answer repaired", prof->name,
						      f + 1, fr + 1);
					ck_assert_mem_eq(&fixed, &got, sizeof(got));

					struct usb_stream_plan plan;
					ck_assert_int_eq(usb_stream_plan(vs, &got, &plan), 0);
					ck_assert_uint_ge(plan.n_transfers, 5);
					ck_assert_uint_le(plan.n_transfers,
							  prof->transfer == VCAM_BULK ? 48 : 16);
					ck_assert_uint_gt(plan.transfer_size, 0);
					if (prof->transfer == VCAM_ISOCHRONOUS) {
						ck_assert(plan.iso);
						/* smallest alt that carries the payload */
						uint32_t best = UINT32_MAX;
						for (unsigned a = 0; a < vs->n_alts; a++)
							if (vs->alts[a].bytes >= got.max_payload_transfer_size &&
							    vs->alts[a].bytes < best)
								best = vs->alts[a].bytes;
						ck_assert_uint_eq(plan.packet_size, best);
						/* the vcam sizes its payload to one of its alts */
						ck_assert_uint_eq(plan.packet_size,
								  got.max_payload_transfer_size);
						ck_assert_uint_eq(
							vcam_alt_bytes(&prof->alts[plan.alt - 1]),
							plan.packet_size);
						ck_assert_uint_ge(plan.packets, 1);
						ck_assert_uint_le(plan.packets, 32);
						ck_assert_uint_eq(plan.transfer_size,
								  plan.packets * plan.packet_size);
						/* a whole frame in flight, unless 16 cannot */
						uint64_t in_flight = (uint64_t)plan.n_transfers *
								     plan.transfer_size;
						ck_assert(in_flight >= got.max_video_frame_size ||
							  plan.n_transfers == 16);
					} else {
						ck_assert(!plan.iso);
						ck_assert_uint_eq(plan.packets, 0);
						ck_assert_uint_eq(plan.transfer_size % plan.packet_size, 0);
						ck_assert_uint_le(plan.transfer_size, 32 * plan.packet_size);
						ck_assert_uint_eq(plan.max_payload,
								  got.max_payload_transfer_size);
						uint64_t whole = (got.max_payload_transfer_size +
								  plan.packet_size - 1) /
								 plan.packet_size * plan.packet_size;
						ck_assert_uint_eq(plan.transfer_size,
								  whole < 32u * plan.packet_size
									  ? whole
									  : 32u * plan.packet_size);
						uint64_t in_flight = (uint64_t)plan.n_transfers *
								     plan.transfer_size;
						ck_assert(in_flight >= got.max_video_frame_size ||
							  plan.n_transfers == 48);
					}
					checked++;
				}
			}
		}
		uvc_camera_free(cam);
	}
	ck_assert_uint_gt(checked, 40);
}
END_TEST

static struct uvc_probe negotiate(const struct vcam_profile *prof, uint8_t format, uint8_t frame,
				  uint32_t interval)
{
	struct uvc_probe asked = { .hint = 1, .format_index = format, .frame_index = frame,
				   .interval = interval }, got;
	ck_assert_int_eq(vcam_probe_negotiate(prof, &asked, &got), 0);
	return got;
}

/* usbfs_memory_mb: a plan that would not fit runs with fewer transfers,
 * never fewer than two; one that fits, or no limit, is left alone. */
START_TEST(test_plan_fits_usbfs_memory)
{
	struct usb_stream_plan plan = { .transfer_size = 98304, .n_transfers = 8 };
	ck_assert_uint_eq(usb_stream_plan_fit(&plan, 0), 0);
	ck_assert_uint_eq(plan.n_transfers, 8);
	ck_assert_uint_eq(usb_stream_plan_fit(&plan, 16u << 20), 0);
	ck_assert_uint_eq(plan.n_transfers, 8);
	ck_assert_uint_eq(usb_stream_plan_fit(&plan, 5 * 98304 + 100), 8);
	ck_assert_uint_eq(plan.n_transfers, 5);
	plan.n_transfers = 48;
	plan.transfer_size = 1u << 20; /* 48 MiB against 16 */
	ck_assert_uint_eq(usb_stream_plan_fit(&plan, 16u << 20), 48);
	ck_assert_uint_eq(plan.n_transfers, 16);
	ck_assert_uint_eq(usb_stream_plan_fit(&plan, 1u << 20), 16);
	ck_assert_uint_eq(plan.n_transfers, USB_STREAM_MIN_TRANSFERS);

	char path[] = "/tmp/test_usb_budget.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "16\n", 3), 3);
	close(fd);
	ck_assert_uint_eq(usb_usbfs_budget(path), 16u << 20);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "0\n", 2), 2); /* no limit */
	close(fd);
	ck_assert_uint_eq(usb_usbfs_budget(path), 0);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "junk", 4), 4);
	close(fd);
	ck_assert_uint_eq(usb_usbfs_budget(path), 0);
	unlink(path);
	ck_assert_uint_eq(usb_usbfs_budget("/nonexistent/usbfs_memory_mb"), 0);
}
END_TEST

/* The figures the VM scenario shows, fixed here. */
START_TEST(test_plan_figures)
{
	const struct vcam_profile *def = vcam_profile_find("default");
	struct uvc_camera *cam = fixture_camera(def);
	struct usb_stream_plan plan;
	/* YUYV 640x480 at 30 fps: 2316 bytes per microframe + 25% -> 3 x 1024 */
	struct uvc_probe p = negotiate(def, 1, 1, VCAM_FPS(30));
	ck_assert_int_eq(usb_stream_plan(&cam->streams[0], &p, &plan), 0);
	ck_assert_uint_eq(plan.alt, 6);
	ck_assert_uint_eq(plan.packet_size, 3072);
	ck_assert_uint_eq(plan.packets, 32);
	ck_assert_uint_eq(plan.transfer_size, 98304);
	ck_assert_uint_eq(plan.n_transfers, 8); /* 614400 / 98304 = 6.25 -> 7, + 1 */
	/* YUYV 640x480 at 5 fps: 396 bytes + 25% -> 800 bytes, alt 3; a frame
	 * is 24 transfers of 32 x 800, more than the 16 kept in flight */
	p = negotiate(def, 1, 1, VCAM_FPS(5));
	ck_assert_int_eq(usb_stream_plan(&cam->streams[0], &p, &plan), 0);
	ck_assert_uint_eq(plan.alt, 3);
	ck_assert_uint_eq(plan.packet_size, 800);
	ck_assert_uint_eq(plan.transfer_size, 25600);
	ck_assert_uint_eq(plan.n_transfers, 16);
	uvc_camera_free(cam);

	const struct vcam_profile *bulk = vcam_profile_find("bulk");
	cam = fixture_camera(bulk);
	p = negotiate(bulk, 1, 1, VCAM_FPS(30));
	ck_assert_int_eq(usb_stream_plan(&cam->streams[0], &p, &plan), 0);
	ck_assert_uint_eq(p.max_payload_transfer_size, 614412);
	ck_assert_uint_eq(plan.packet_size, 512);
	ck_assert_uint_eq(plan.transfer_size, 16384); /* uvcvideo's 32 x 512 */
	ck_assert_uint_eq(plan.max_payload, 614412);
	ck_assert_uint_eq(plan.n_transfers, 39);      /* 37.5 -> 38, + 1 */
	/* 1280x720 YUYV: 1843212 bytes, more than 48 transfers hold */
	p = negotiate(bulk, 1, 2, VCAM_FPS(30));
	ck_assert_int_eq(usb_stream_plan(&cam->streams[0], &p, &plan), 0);
	ck_assert_uint_eq(plan.transfer_size, 16384);
	ck_assert_uint_eq(plan.max_payload, 1843212);
	ck_assert_uint_eq(plan.n_transfers, 48);
	uvc_camera_free(cam);
}
END_TEST

/* Hand-made alternate settings: the corner cases of the choice. */
START_TEST(test_plan_corners)
{
	struct uvc_alt alts[] = {
		{ .alt = 1, .bytes = 512 },  { .alt = 2, .bytes = 1024 }, { .alt = 3, .bytes = 1024 },
		{ .alt = 4, .bytes = 3072 }, { .alt = 5, .bytes = 2048 },
	};
	struct uvc_streaming vs = { .interface = 1, .endpoint = 0x81,
				    .transfer = UVC_TRANSFER_ISOCHRONOUS, .n_alts = 5, .alts = alts };
	struct uvc_probe p = { .max_video_frame_size = 100000 };
	struct usb_stream_plan plan;

	/* 0 asks for nothing: the lowest (uvcvideo's "null bandwidth") */
	p.max_payload_transfer_size = 0;
	ck_assert_int_eq(usb_stream_plan(&vs, &p, &plan), 0);
	ck_assert_uint_eq(plan.alt, 1);
	/* equal sizes: the last one, as uvcvideo's <= */
	p.max_payload_transfer_size = 600;
	ck_assert_int_eq(usb_stream_plan(&vs, &p, &plan), 0);
	ck_assert_uint_eq(plan.alt, 3);
	ck_assert_uint_eq(plan.packets, 32); /* 100000 / 1024 > 32 */
	/* not in bAlternateSetting order */
	p.max_payload_transfer_size = 1500;
	ck_assert_int_eq(usb_stream_plan(&vs, &p, &plan), 0);
	ck_assert_uint_eq(plan.alt, 5);
	p.max_payload_transfer_size = 3072;
	ck_assert_int_eq(usb_stream_plan(&vs, &p, &plan), 0);
	ck_assert_uint_eq(plan.alt, 4);
	ck_assert_uint_eq(plan.packets, 33 > 32 ? 32 : 33);
	p.max_payload_transfer_size = 3073;
	ck_assert_int_eq(usb_stream_plan(&vs, &p, &plan), -ENOSPC);
	/* small frames: fewer packets; unknown frame size: 32 */
	p.max_payload_transfer_size = 3072;
	p.max_video_frame_size = 5000;
	ck_assert_int_eq(usb_stream_plan(&vs, &p, &plan), 0);
	ck_assert_uint_eq(plan.packets, 2);
	ck_assert_uint_eq(plan.n_transfers, 5);
	p.max_video_frame_size = 0;
	ck_assert_int_eq(usb_stream_plan(&vs, &p, &plan), 0);
	ck_assert_uint_eq(plan.packets, 32);
	ck_assert_uint_eq(plan.n_transfers, 5);
	/* no endpoint */
	vs.endpoint = 0;
	ck_assert_int_eq(usb_stream_plan(&vs, &p, &plan), -EINVAL);
	vs.endpoint = 0x81;
	vs.n_alts = 0;
	ck_assert_int_eq(usb_stream_plan(&vs, &p, &plan), -EINVAL);

	/* bulk: a camera that names no payload size: transfers end at short
	 * packets only */
	struct uvc_alt balt = { .alt = 0, .bytes = 512 };
	struct uvc_streaming bs = { .interface = 1, .endpoint = 0x82, .transfer = UVC_TRANSFER_BULK,
				    .n_alts = 1, .alts = &balt };
	p.max_payload_transfer_size = 0;
	ck_assert_int_eq(usb_stream_plan(&bs, &p, &plan), 0);
	ck_assert_uint_eq(plan.transfer_size, 16384);
	ck_assert_uint_eq(plan.max_payload, 0);
	ck_assert_uint_eq(plan.n_transfers, 5); /* frame size 0: unknown */
	p.max_payload_transfer_size = 0xffffffffu;
	ck_assert_int_eq(usb_stream_plan(&bs, &p, &plan), 0);
	ck_assert_uint_eq(plan.transfer_size, 16384);
	p.max_payload_transfer_size = 1;
	ck_assert_int_eq(usb_stream_plan(&bs, &p, &plan), 0);
	ck_assert_uint_eq(plan.transfer_size, 512);
	/* SuperSpeed packets */
	balt.bytes = 1024;
	p.max_payload_transfer_size = 3000000;
	p.max_video_frame_size = 3000000;
	ck_assert_int_eq(usb_stream_plan(&bs, &p, &plan), 0);
	ck_assert_uint_eq(plan.transfer_size, 32768);
	ck_assert_uint_eq(plan.n_transfers, 48);
}
END_TEST

START_TEST(test_fixup)
{
	const struct vcam_profile *def = vcam_profile_find("default");
	struct uvc_camera *cam = fixture_camera(def);
	const struct uvc_streaming *vs = &cam->streams[0];
	uint32_t top = max_alt(vs);
	ck_assert_uint_eq(top, 3072);

	/* uncompressed: the frame descriptor's size, whatever the camera says */
	struct uvc_probe p = negotiate(def, 1, 1, VCAM_FPS(30));
	p.max_video_frame_size = 0;
	ck_assert_uint_eq(uvc_probe_fixup(vs, &p), UVC_FIXUP_FRAME_SIZE);
	ck_assert_uint_eq(p.max_video_frame_size, 640 * 480 * 2);
	p.max_video_frame_size = 1000;
	ck_assert_uint_eq(uvc_probe_fixup(vs, &p), UVC_FIXUP_FRAME_SIZE);
	ck_assert_uint_eq(p.max_video_frame_size, 640 * 480 * 2);

	/* MJPEG: kept unless 0 */
	p = negotiate(def, 2, 1, VCAM_FPS(30));
	p.max_video_frame_size = 50000;
	ck_assert_uint_eq(uvc_probe_fixup(vs, &p), 0);
	ck_assert_uint_eq(p.max_video_frame_size, 50000);
	p.max_video_frame_size = 0;
	ck_assert_uint_eq(uvc_probe_fixup(vs, &p), UVC_FIXUP_FRAME_SIZE);
	ck_assert_uint_eq(p.max_video_frame_size, 640 * 480 * 2);

	/* Chicony's sign extension, then within the alternate settings */
	p.max_payload_transfer_size = 0xffff0c00u;
	ck_assert_uint_eq(uvc_probe_fixup(vs, &p), UVC_FIXUP_PAYLOAD_SIGN);
	ck_assert_uint_eq(p.max_payload_transfer_size, 0x0c00);
	p.max_payload_transfer_size = 0xffff8000u;
	ck_assert_uint_eq(uvc_probe_fixup(vs, &p), UVC_FIXUP_PAYLOAD_SIGN | UVC_FIXUP_PAYLOAD_ISO);
	ck_assert_uint_eq(p.max_payload_transfer_size, top);
	/* missing or absurd for isochronous: the largest alternate setting */
	p.max_payload_transfer_size = 0;
	ck_assert_uint_eq(uvc_probe_fixup(vs, &p), UVC_FIXUP_PAYLOAD_ISO);
	ck_assert_uint_eq(p.max_payload_transfer_size, top);
	p.max_payload_transfer_size = 614412;
	ck_assert_uint_eq(uvc_probe_fixup(vs, &p), UVC_FIXUP_PAYLOAD_ISO);
	ck_assert_uint_eq(p.max_payload_transfer_size, top);

	/* an answer naming a format or frame that does not exist: only the
	 * payload size can be judged */
	p.format_index = 9;
	p.max_video_frame_size = 0;
	p.max_payload_transfer_size = 0;
	ck_assert_uint_eq(uvc_probe_fixup(vs, &p), UVC_FIXUP_PAYLOAD_ISO);
	ck_assert_uint_eq(p.max_video_frame_size, 0);
	p.format_index = 1;
	p.frame_index = 0;
	ck_assert_uint_eq(uvc_probe_fixup(vs, &p), 0);
	uvc_camera_free(cam);

	/* bulk: the payload size is the camera's, even 0 */
	const struct vcam_profile *bulk = vcam_profile_find("bulk");
	cam = fixture_camera(bulk);
	p = negotiate(bulk, 1, 1, VCAM_FPS(30));
	p.max_payload_transfer_size = 0;
	ck_assert_uint_eq(uvc_probe_fixup(&cam->streams[0], &p), 0);
	ck_assert_uint_eq(p.max_payload_transfer_size, 0);
	uvc_camera_free(cam);
}
END_TEST

/* uvc_query_ctrl's errno for each VC_REQUEST_ERROR_CODE after a STALL. */
START_TEST(test_request_error_codes)
{
	static const struct {
		uint8_t code;
		int err;
	} cases[] = {
		{ 0, -EPIPE }, { 1, -EBUSY }, { 2, -EILSEQ }, { 3, -EREMOTE }, { 4, -ERANGE },
		{ 5, -EIO }, { 6, -EIO }, { 7, -EIO }, { 8, -EINVAL }, { 9, -EPIPE },
		{ 0xff, -EPIPE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_int_eq(usb_uvc_error_errno(cases[i].code), cases[i].err);
}
END_TEST

/* A queued control transfer's completion answers what the synchronous
 * libusb_control_transfer() answered (so uvc_query_ctrl's mapping above
 * sees the same): the bytes, a timeout as -ETIMEDOUT (uvcvideo's answer
 * too), a STALL as -EPIPE (then the error code is read), a camera gone. */
START_TEST(test_transfer_errno)
{
	static const struct {
		int status, actual, err;
	} cases[] = {
		{ LIBUSB_TRANSFER_COMPLETED, 2, 2 },   { LIBUSB_TRANSFER_COMPLETED, 0, 0 },
		{ LIBUSB_TRANSFER_TIMED_OUT, 0, -ETIMEDOUT }, { LIBUSB_TRANSFER_STALL, 0, -EPIPE },
		{ LIBUSB_TRANSFER_NO_DEVICE, 0, -ENODEV },  { LIBUSB_TRANSFER_OVERFLOW, 0, -EOVERFLOW },
		{ LIBUSB_TRANSFER_ERROR, 0, -EIO },        { LIBUSB_TRANSFER_CANCELLED, 0, -EIO },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_int_eq(usb_transfer_errno(cases[i].status, cases[i].actual), cases[i].err);
}
END_TEST

/* A transfer that outlived its camera: its late callback (as libusb runs
 * it, from the transfer's callback field) touches nothing of the freed
 * camera (ASan) and frees the transfer and its heap buffer (LSan). */
static int touched;
static void on_camera_transfer(struct libusb_transfer *t)
{
	touched += *(int *)t->user_data; /* what the stream's callback does: reads its camera */
}

START_TEST(test_orphaned_transfer)
{
	struct libusb_transfer *t = libusb_alloc_transfer(0);
	ck_assert_ptr_nonnull(t);
	uint8_t *buf = malloc(512);
	int *camera = malloc(sizeof(*camera));
	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(camera);
	*camera = 1;
	libusb_fill_bulk_transfer(t, NULL, 0x81, buf, 512, on_camera_transfer, camera, 0);
	usb_transfer_orphan(t, true);
	free(camera); /* usb_camera_close */
	t->status = LIBUSB_TRANSFER_CANCELLED;
	t->callback(t); /* it came back late */
	ck_assert_int_eq(touched, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("usb");
	TCase *tc = tcase_create("usb");
	tcase_add_test(tc, test_match_parse_id);
	tcase_add_test(tc, test_replug_candidate);
	tcase_add_test(tc, test_camera_identity);
	tcase_add_test(tc, test_plan_every_profile);
	tcase_add_test(tc, test_plan_figures);
	tcase_add_test(tc, test_plan_corners);
	tcase_add_test(tc, test_fixup);
	tcase_add_test(tc, test_request_error_codes);
	tcase_add_test(tc, test_transfer_errno);
	tcase_add_test(tc, test_orphaned_transfer);
	tcase_add_test(tc, test_plan_fits_usbfs_memory);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/device/status_msg.c: the status socket's message both ways, what a reader
 * does with unknown keys and broken messages, and the lines shown to
 * people (--status, STATUS=) and to udev (--udev-properties). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/videodev2.h>

#include "device/status_msg.h"
#include "unit_run.h"

static struct device_status sample(void)
{
	struct device_status st = {
		.node = "video10", .meta_node = "video11", .card = "uvcuse vcam",
		.manufacturer = "uvcuse project",
		.product = "uvcuse vcam", .vid = 0x1d6b, .pid = 0x0102, .serial = "VCAM0001",
		.port_path = "3-1", .bus_info = "usb-vhci_hcd.0-1", .interface = 0,
		.fourcc = V4L2_PIX_FMT_YUYV, .width = 640, .height = 480, .interval = 333333,
		.streaming = true, .frames = 1234567890123ull, .dropped = 3, .errors = 1, .clients = 2,
		.iso_bytes = 3072, .measured_mfps = 29970, .n_streams = 2,
		.streams = { { 100, 1 }, { 50, 0 } },
	};
	return st;
}

START_TEST(round_trip)
{
	struct device_status st = sample(), back;
	char msg[STATUS_MSG_MAX];
	int n = status_msg_encode(&st, msg, sizeof(msg));
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(strlen(msg), (size_t)n);
	ck_assert(!strncmp(msg, "version=1\nnode=video10\n", 23));
	ck_assert_int_eq(status_msg_decode(msg, (size_t)n, &back), 0);
	ck_assert_int_eq(memcmp(&st, &back, sizeof(st)), 0);
}
END_TEST

START_TEST(control_characters_cannot_forge_keys)
{
	struct device_status st = sample(), back;
	strcpy(st.serial, "A\nclients=99");
	char msg[STATUS_MSG_MAX];
	int n = status_msg_encode(&st, msg, sizeof(msg));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(status_msg_decode(msg, (size_t)n, &back), 0);
	ck_assert_str_eq(back.serial, "A?clients=99");
	ck_assert_uint_eq(back.clients, 2);
}
END_TEST

START_TEST(small_buffer)
{
	struct device_status st = sample();
	char msg[64];
	ck_assert_int_eq(status_msg_encode(&st, msg, sizeof(msg)), -ENOSPC);
}
END_TEST

START_TEST(reader_tolerance)
{
	struct device_status st;
	static const char future[] = "version=1\nnode=video11\ncolour=red\nframes=5\nno equals sign\n";
	ck_assert_int_eq(status_msg_decode(future, sizeof(future) - 1, &st), 0);
	ck_assert_str_eq(st.node, "video11");
	ck_assert_uint_eq(st.frames, 5);
	static const char v2[] = "version=2\nnode=video11\n";
	ck_assert_int_eq(status_msg_decode(v2, sizeof(v2) - 1, &st), -EPROTO);
	static const char nonode[] = "version=1\nframes=5\n";
	ck_assert_int_eq(status_msg_decode(nonode, sizeof(nonode) - 1, &st), -EPROTO);
	/* cut short: what arrived is kept, strings bounded */
	char longname[300] = "version=1\nnode=";
	memset(longname + 15, 'x', 200);
	ck_assert_int_eq(status_msg_decode(longname, 215, &st), 0);
	ck_assert_uint_eq(strlen(st.node), sizeof(st.node) - 1);
}
END_TEST

START_TEST(lines_for_people)
{
	struct device_status st = sample();
	char line[512];
	status_msg_line(&st, line, sizeof(line));
	ck_assert_str_eq(line, "/dev/video10: uvcuse vcam (1d6b:0102, serial VCAM0001), YUYV 640x480 "
			       "30.00 fps, streaming, frames 1234567890123, dropped 3, errors 1, "
			       "clients 2, iso 3072 bytes/interval, measured 29.97 fps");
	status_msg_summary(&st, line, sizeof(line));
	ck_assert_str_eq(line, "uvcuse vcam (1d6b:0102, serial VCAM0001) on /dev/video10: YUYV "
			       "640x480 30.00 fps, streaming, 2 clients");
	/* several processes share the stream */
	st.streamers = 3;
	st.clients = 4;
	status_msg_summary(&st, line, sizeof(line));
	ck_assert_str_eq(line, "uvcuse vcam (1d6b:0102, serial VCAM0001) on /dev/video10: YUYV "
			       "640x480 30.00 fps, streaming to 3 processes, 4 clients");
	char msg[STATUS_MSG_MAX];
	struct device_status back;
	int n = status_msg_encode(&st, msg, sizeof(msg));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(status_msg_decode(msg, (size_t)n, &back), 0);
	ck_assert_uint_eq(back.streamers, 3);
	st.streaming = false;
	st.clients = 1;
	st.serial[0] = '\0';
	st.fourcc = 0;
	status_msg_summary(&st, line, sizeof(line));
	ck_assert_str_eq(line, "uvcuse vcam (1d6b:0102) on /dev/video10: no format, idle, 1 client");
}
END_TEST

START_TEST(json_for_programs)
{
	struct device_status st = sample();
	snprintf(st.card, sizeof(st.card), "a \"quoted\"\\card\n");
	char out[2048];
	int n = status_msg_json(&st, out, sizeof(out));
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(strlen(out), (size_t)n);
	ck_assert_str_eq(out, "{\"node\": \"video10\", \"meta_node\": \"video11\", \"card\": \"a \\\"quoted\\\"\\\\card\\u000a\", "
			      "\"manufacturer\": \"uvcuse project\", \"product\": \"uvcuse vcam\", "
			      "\"vid\": \"1d6b\", \"pid\": \"0102\", \"serial\": \"VCAM0001\", "
			      "\"port\": \"3-1\", \"bus_info\": \"usb-vhci_hcd.0-1\", \"fourcc\": \"YUYV\", "
			      "\"width\": 640, \"height\": 480, \"fps\": 30.000, \"measured_fps\": 29.970, "
			      "\"streaming\": true, \"away\": false, \"frames\": 1234567890123, "
			      "\"dropped\": 3, \"errors\": 1, \"clients\": 2, \"iso_bytes\": 3072, "
			      "\"streams\": [{\"frames\": 100, \"lost\": 1}, {\"frames\": 50, \"lost\": 0}]}");
	/* too small: said, not cut */
	ck_assert_int_eq(status_msg_json(&st, out, 64), -ENOSPC);
}
END_TEST

START_TEST(camera_away)
{
	struct device_status st = sample(), back;
	st.streaming = false;
	st.away = true;
	char msg[STATUS_MSG_MAX];
	int n = status_msg_encode(&st, msg, sizeof(msg));
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(strstr(msg, "\naway=1\n"));
	ck_assert_int_eq(status_msg_decode(msg, (size_t)n, &back), 0);
	ck_assert(back.away);
	char line[512];
	status_msg_summary(&st, line, sizeof(line));
	ck_assert_str_eq(line, "uvcuse vcam (1d6b:0102, serial VCAM0001) on /dev/video10: YUYV "
			       "640x480 30.00 fps, camera away, 2 clients");
	status_msg_line(&st, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, ", camera away, frames "));
}
END_TEST

START_TEST(udev_properties)
{
	struct device_status st = sample();
	char out[1024];
	ck_assert_int_gt(status_msg_udev_properties(&st, 0, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "ID_VENDOR_ID=1d6b\nID_MODEL_ID=0102\n"
			      "ID_SERIAL=uvcuse_project_uvcuse_vcam_VCAM0001\n"
			      "ID_SERIAL_SHORT=VCAM0001\n"
			      "ID_PATH=platform-vhci_hcd.0-usb-0:1:1.0\n"
			      "ID_PATH_TAG=platform-vhci_hcd_0-usb-0_1_1_0\n"
			      "ID_USB_INTERFACE_NUM=00\nUVCUSE=1\nUVCUSE_INDEX=0\n");
	/* its metadata node: the same camera, index 1 (the by-id link's) */
	ck_assert_int_gt(status_msg_udev_properties(&st, 1, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nUVCUSE=1\nUVCUSE_INDEX=1\n"));

	/* PCI controller, hub ports, no strings: usb_id's hex fallbacks */
	st = sample();
	strcpy(st.bus_info, "usb-0000:00:14.0-2.3");
	st.manufacturer[0] = st.product[0] = st.serial[0] = '\0';
	st.interface = 2;
	ck_assert_int_gt(status_msg_udev_properties(&st, 0, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "ID_VENDOR_ID=1d6b\nID_MODEL_ID=0102\nID_SERIAL=1d6b_0102\n"
			      "ID_PATH=pci-0000:00:14.0-usb-0:2.3:1.2\n"
			      "ID_PATH_TAG=pci-0000_00_14_0-usb-0_2_3_1_2\n"
			      "ID_USB_INTERFACE_NUM=02\nUVCUSE=1\nUVCUSE_INDEX=0\n");

	/* usb_id's cleaning: spaces collapse, unsafe characters become _ */
	st = sample();
	strcpy(st.manufacturer, "  Acme  Inc/x ");
	strcpy(st.product, "Cam*1");
	strcpy(st.serial, "S N");
	ck_assert_int_gt(status_msg_udev_properties(&st, 0, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "ID_SERIAL=Acme_Inc_x_Cam_1_S_N\nID_SERIAL_SHORT=S_N\n"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("status_msg");
	TCase *tc = tcase_create("status_msg");
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, control_characters_cannot_forge_keys);
	tcase_add_test(tc, small_buffer);
	tcase_add_test(tc, reader_tolerance);
	tcase_add_test(tc, lines_for_people);
	tcase_add_test(tc, json_for_programs);
	tcase_add_test(tc, camera_away);
	tcase_add_test(tc, udev_properties);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

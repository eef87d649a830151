/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-xuctl: drives the vcam's extension unit through uvcvideo's own
 * ioctls (UVCIOC_CTRL_QUERY, UVCIOC_CTRL_MAP from <linux/uvcvideo.h>), as
 * vendor tools and uvcdynctrl do, and prints one line per request with its
 * answer or errno name, so that the output on uvcvideo's node and on
 * uvcuse's can be compared with diff. Values that depend on the camera's
 * history (the request counter) are printed as differences. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/usb/video.h>
#include <linux/uvcvideo.h>
#include <linux/videodev2.h>

#include "controls.h"    /* tests/vcam: vcam_xu_guid, VCAM_XU_* */
#include "descriptors.h" /* tests/vcam: VCAM_ID_EXTENSION */

/* The ids the map command gives the LED mode and the test pattern: in the
 * camera and user classes, above every standard id. */
#define LED_MODE_ID (V4L2_CID_CAMERA_CLASS_BASE + 0x1000)
#define TEST_PATTERN_ID (V4L2_CID_USER_BASE + 0x1000)

static const char *errname(int e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ ENOENT, "ENOENT" }, { EINVAL, "EINVAL" }, { ENOBUFS, "ENOBUFS" },
		{ EBADRQC, "EBADRQC" }, { ERANGE, "ERANGE" }, { EEXIST, "EEXIST" },
		{ ENOTTY, "ENOTTY" }, { EIO, "EIO" }, { EPIPE, "EPIPE" },
		{ EFAULT, "EFAULT" }, { ENOMEM, "ENOMEM" }, { EILSEQ, "EILSEQ" },
		{ EBUSY, "EBUSY" }, { EACCES, "EACCES" }, { ENODEV, "ENODEV" },
	};
	static char buf[32];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static const char *query_name(uint8_t q)
{
	switch (q) {
	case UVC_SET_CUR: return "SET_CUR";
	case UVC_GET_CUR: return "GET_CUR";
	case UVC_GET_MIN: return "GET_MIN";
	case UVC_GET_MAX: return "GET_MAX";
	case UVC_GET_RES: return "GET_RES";
	case UVC_GET_LEN: return "GET_LEN";
	case UVC_GET_INFO: return "GET_INFO";
	case UVC_GET_DEF: return "GET_DEF";
	default: return NULL;
	}
}

/* One UVCIOC_CTRL_QUERY; 0 or errno. */
static int query(int fd, uint8_t unit, uint8_t sel, uint8_t q, uint16_t size, uint8_t *data)
{
	struct uvc_xu_control_query x = { .unit = unit, .selector = sel, .query = q, .size = size,
					  .data = data };
	return ioctl(fd, UVCIOC_CTRL_QUERY, &x) < 0 ? errno : 0;
}

/* Runs a query and prints "label: QUERY [bytes in] -> ok bytes | ERRNO". */
static int show(int fd, const char *label, uint8_t unit, uint8_t sel, uint8_t q, uint16_t size,
		uint8_t *data)
{
	const char *qn = query_name(q);
	char qbuf[16];
	if (!qn) {
		snprintf(qbuf, sizeof(qbuf), "query 0x%02x", q);
		qn = qbuf;
	}
	printf("%s: %s size %u", label, qn, size);
	if (q == UVC_SET_CUR) {
		for (unsigned i = 0; i < size; i++)
			printf(" %02x", data[i]);
	}
	int err = query(fd, unit, sel, q, size, data);
	if (err) {
		printf(" -> %s\n", errname(err));
		return err;
	}
	printf(" -> ok");
	if (q != UVC_SET_CUR)
		for (unsigned i = 0; i < size; i++)
			printf(" %02x", data[i]);
	printf("\n");
	return 0;
}

static uint32_t le32(const uint8_t *d)
{
	return (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
}

static int cmd_query(int fd, uint8_t unit)
{
	static const uint8_t reads[] = { UVC_GET_INFO, UVC_GET_LEN, UVC_GET_MIN, UVC_GET_MAX,
					 UVC_GET_RES, UVC_GET_DEF };
	static const struct {
		uint8_t sel;
		const char *name;
		uint16_t size;
	} ctrls[] = {
		{ VCAM_XU_LED_MODE, "LED mode", 1 },
		{ VCAM_XU_TEST_PATTERN, "test pattern", 2 },
		{ VCAM_XU_REQUEST_COUNTER, "request counter", 4 },
	};
	uint8_t d[8];
	int failures = 0;

	for (size_t c = 0; c < sizeof(ctrls) / sizeof(ctrls[0]); c++) {
		for (size_t r = 0; r < sizeof(reads); r++) {
			uint16_t size = reads[r] == UVC_GET_LEN ? 2 : reads[r] == UVC_GET_INFO ? 1
											  : ctrls[c].size;
			memset(d, 0, sizeof(d));
			failures += show(fd, ctrls[c].name, unit, ctrls[c].sel, reads[r], size, d) != 0;
		}
	}
	/* the writable ones: set, read back, put the default back */
	d[0] = 1;
	failures += show(fd, "LED mode", unit, VCAM_XU_LED_MODE, UVC_SET_CUR, 1, d) != 0;
	failures += show(fd, "LED mode", unit, VCAM_XU_LED_MODE, UVC_GET_CUR, 1, d) != 0;
	d[0] = 2, d[1] = 0;
	failures += show(fd, "test pattern", unit, VCAM_XU_TEST_PATTERN, UVC_SET_CUR, 2, d) != 0;
	failures += show(fd, "test pattern", unit, VCAM_XU_TEST_PATTERN, UVC_GET_CUR, 2, d) != 0;
	/* the request counter counts the camera's accepted SET_CURs: one more */
	uint8_t before[4] = { 0 }, after[4] = { 0 };
	int e1 = query(fd, unit, VCAM_XU_REQUEST_COUNTER, UVC_GET_CUR, 4, before);
	d[0] = 3;
	int e2 = query(fd, unit, VCAM_XU_LED_MODE, UVC_SET_CUR, 1, d);
	int e3 = query(fd, unit, VCAM_XU_REQUEST_COUNTER, UVC_GET_CUR, 4, after);
	if (e1 || e2 || e3) {
		printf("request counter: %s\n", errname(e1 ? e1 : e2 ? e2 : e3));
		failures++;
	} else {
		printf("request counter: +%u after one SET_CUR\n", le32(after) - le32(before));
	}
	d[0] = 0, d[1] = 0;
	failures += show(fd, "test pattern", unit, VCAM_XU_TEST_PATTERN, UVC_SET_CUR, 2, d) != 0;
	failures += show(fd, "LED mode", unit, VCAM_XU_LED_MODE, UVC_GET_CUR, 1, d) != 0;

	/* refusals: each must fail, with uvcvideo's errno */
	int refused = 0, expected = 0;
	memset(d, 0, sizeof(d));
	refused += show(fd, "request counter (read-only)", unit, VCAM_XU_REQUEST_COUNTER,
			UVC_SET_CUR, 4, d) != 0, expected++;
	d[0] = 9;
	refused += show(fd, "LED mode (out of range)", unit, VCAM_XU_LED_MODE, UVC_SET_CUR, 1, d) != 0,
		expected++;
	refused += show(fd, "LED mode (wrong size)", unit, VCAM_XU_LED_MODE, UVC_GET_CUR, 2, d) != 0,
		expected++;
	refused += show(fd, "LED mode (GET_LEN size 1)", unit, VCAM_XU_LED_MODE, UVC_GET_LEN, 1, d) != 0,
		expected++;
	refused += show(fd, "LED mode (unknown query)", unit, VCAM_XU_LED_MODE, 0x99, 1, d) != 0,
		expected++;
	refused += show(fd, "selector 4 (none)", unit, 4, UVC_GET_CUR, 1, d) != 0, expected++;
	refused += show(fd, "selector 0", unit, 0, UVC_GET_CUR, 1, d) != 0, expected++;
	refused += show(fd, "unit 2 (processing unit)", VCAM_ID_PROCESSING, 1, UVC_GET_CUR, 2, d) != 0,
		expected++;
	refused += show(fd, "unit 99 (none)", 99, 1, UVC_GET_CUR, 1, d) != 0, expected++;
	printf("refused: %d of %d\n", refused, expected);
	return failures || refused != expected;
}

static struct uvc_xu_control_mapping mapping(uint32_t id, const char *name, uint8_t sel,
					     uint8_t size, uint32_t type, uint32_t data_type)
{
	struct uvc_xu_control_mapping m;
	memset(&m, 0, sizeof(m));
	m.id = id;
	snprintf((char *)m.name, sizeof(m.name), "%s", name);
	memcpy(m.entity, vcam_xu_guid, sizeof(m.entity));
	m.selector = sel;
	m.size = size;
	m.v4l2_type = type;
	m.data_type = data_type;
	return m;
}

static int map(int fd, const char *label, struct uvc_xu_control_mapping *m)
{
	int err = ioctl(fd, UVCIOC_CTRL_MAP, m) < 0 ? errno : 0;
	printf("map %s: %s\n", label, err ? errname(err) : "ok");
	return err;
}

static int cmd_map(int fd)
{
	static struct uvc_menu_info leds[] = {
		{ 0, "Off" }, { 1, "On" }, { 2, "Blink" }, { 3, "Auto" },
	};
	struct uvc_xu_control_mapping m;
	int failures = 0;

	m = mapping(LED_MODE_ID, "LED Mode", VCAM_XU_LED_MODE, 8, V4L2_CTRL_TYPE_MENU,
		    UVC_CTRL_DATA_TYPE_ENUM);
	m.menu_info = leds;
	m.menu_count = 4;
	failures += map(fd, "LED mode (menu)", &m) != 0;
	failures += map(fd, "LED mode again", &m) != EEXIST;
	m = mapping(TEST_PATTERN_ID, "Test Pattern", VCAM_XU_TEST_PATTERN, 16,
		    V4L2_CTRL_TYPE_INTEGER, UVC_CTRL_DATA_TYPE_UNSIGNED);
	failures += map(fd, "test pattern (integer)", &m) != 0;

	/* refusals */
	m = mapping(LED_MODE_ID + 1, "Nothing", VCAM_XU_LED_MODE, 8, V4L2_CTRL_TYPE_INTEGER,
		    UVC_CTRL_DATA_TYPE_UNSIGNED);
	m.entity[15] ^= 0xff;
	failures += map(fd, "unknown GUID", &m) != ENOENT;
	m = mapping(LED_MODE_ID + 1, "Nothing", 5, 8, V4L2_CTRL_TYPE_INTEGER,
		    UVC_CTRL_DATA_TYPE_UNSIGNED);
	failures += map(fd, "selector 5 (none)", &m) != ENOENT;
	m = mapping(LED_MODE_ID + 1, "Nothing", VCAM_XU_LED_MODE, 9, V4L2_CTRL_TYPE_INTEGER,
		    UVC_CTRL_DATA_TYPE_UNSIGNED);
	failures += map(fd, "9 bits of a 1-byte control", &m) != EINVAL;
	m = mapping(LED_MODE_ID + 1, "Nothing", VCAM_XU_REQUEST_COUNTER, 33, V4L2_CTRL_TYPE_INTEGER,
		    UVC_CTRL_DATA_TYPE_UNSIGNED);
	failures += map(fd, "33 bits", &m) != EINVAL;
	m = mapping(LED_MODE_ID + 1, "Nothing", VCAM_XU_LED_MODE, 8, V4L2_CTRL_TYPE_BITMASK,
		    UVC_CTRL_DATA_TYPE_BITMASK);
	failures += map(fd, "bitmask type", &m) != ENOTTY;
	m = mapping(LED_MODE_ID + 1, "Nothing", VCAM_XU_LED_MODE, 8, V4L2_CTRL_TYPE_INTEGER, 6);
	failures += map(fd, "data type 6", &m) != EINVAL;
	m = mapping(LED_MODE_ID + 1, "", VCAM_XU_LED_MODE, 8, V4L2_CTRL_TYPE_INTEGER,
		    UVC_CTRL_DATA_TYPE_UNSIGNED);
	failures += map(fd, "no name for a private id", &m) != EINVAL;
	m = mapping(LED_MODE_ID + 1, "Nothing", VCAM_XU_LED_MODE, 8, V4L2_CTRL_TYPE_MENU,
		    UVC_CTRL_DATA_TYPE_ENUM);
	m.menu_info = leds;
	m.menu_count = 33;
	failures += map(fd, "menu of 33 entries", &m) != EINVAL;
	m.menu_count = 0;
	failures += map(fd, "menu of no entries", &m) != EINVAL;
	printf("map: %s\n", failures ? "unexpected answers" : "as expected");
	return failures != 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: uvcuse-xuctl NODE query [UNIT]   UVCIOC_CTRL_QUERY on the vcam's extension\n"
		"                                         unit (ID %u): every request of its three\n"
		"                                         controls, then refusals\n"
		"       uvcuse-xuctl NODE map            UVCIOC_CTRL_MAP of its LED mode (menu,\n"
		"                                         id 0x%08x) and test pattern (integer,\n"
		"                                         id 0x%08x), then refusals\n"
		"Exit 0 when every answer is the expected one.\n",
		VCAM_ID_EXTENSION, LED_MODE_ID, TEST_PATTERN_ID);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		usage(stderr);
		return 2;
	}
	int fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	int ret;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[2], "query")) {
		ret = cmd_query(fd, argc > 3 ? (uint8_t)atoi(argv[3]) : VCAM_ID_EXTENSION);
	} else if (!strcmp(argv[2], "map")) {
		ret = cmd_map(fd);
	} else {
		usage(stderr);
		ret = 2;
	}
	close(fd);
	return ret;
}

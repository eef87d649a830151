/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-vcam --descriptors: every corpus camera that parses is impersonated,
 * serving its own descriptors (only the logged repairs differ) and answering
 * for its own units; the extension/selector unit store; and the parser's
 * function name index that the card name uses. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>

#include "camera.h"
#include "controls.h"
#include "dump_reader.h"
#include "impersonate.h"
#include "unit_run.h"
#include "uvc/descriptors.h"
#include "xu_store.h"

static unsigned logged;
static void count_log(void *opaque, const char *line)
{
	(void)opaque;
	ck_assert_uint_gt(strlen(line), 0);
	logged++;
}

static const char *corpus_dir(void)
{
	const char *dir = getenv("UVC_CORPUS_DIR");
	/* A missing corpus is a failure, not a skip: it would pass with no check. */
	ck_assert_msg(dir != NULL, "UVC_CORPUS_DIR is not set");
	return dir;
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	uint8_t *buf = malloc(65536);
	*len = fread(buf, 1, 65536, f);
	fclose(f);
	return buf;
}

static struct vcam_impersonation *impersonate(const char *name)
{
	char bin[4096], txt[4096], err[256];
	snprintf(bin, sizeof(bin), "%s/%s.cfg.bin", corpus_dir(), name);
	snprintf(txt, sizeof(txt), "%s/../lsusb/%s.lsusb.txt", corpus_dir(), name);
	struct vcam_impersonation *imp = NULL;
	int r = vcam_impersonate_load(bin, txt, count_log, NULL, &imp, err, sizeof(err));
	ck_assert_msg(r == 0, "%s: %s", name, err);
	return imp;
}

/* Every dump the parser accepts is impersonated; what is served is the dump
 * with only wTotalLength and lost SuperSpeed wBytesPerInterval repaired. */
START_TEST(corpus_impersonated)
{
	DIR *dp = opendir(corpus_dir());
	ck_assert_msg(dp != NULL, "corpus %s: %s", corpus_dir(), strerror(errno));
	unsigned parsed = 0, impersonated = 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		size_t nl = strlen(de->d_name);
		if (nl < 8 || strcmp(de->d_name + nl - 8, ".cfg.bin"))
			continue;
		char path[4096], name[256];
		snprintf(path, sizeof(path), "%s/%s", corpus_dir(), de->d_name);
		snprintf(name, sizeof(name), "%.*s", (int)(nl - 8), de->d_name);
		size_t len;
		uint8_t *dump = read_all(path, &len);
		struct uvc_camera *model;
		if (uvc_parse_descriptors(dump, len, &model, NULL) != 0) {
			free(dump);
			continue;
		}
		parsed++;
		struct vcam_impersonation *imp = impersonate(name);
		impersonated++;
		unsigned declared = dump[2] | dump[3] << 8;
		if (declared < len) /* a dump of several configurations: the first */
			len = declared;
		ck_assert_uint_eq(imp->config_len, len);
		ck_assert_uint_eq(imp->config[2] | imp->config[3] << 8, len);
		for (size_t i = 4; i < len; i++) {
			bool companion_bytes = false; /* wBytesPerInterval of an SS companion */
			for (size_t p = 0; p + 6 <= len && dump[p] >= 2; p += dump[p])
				if (dump[p + 1] == USB_DT_SS_ENDPOINT_COMP && (i == p + 4 || i == p + 5))
					companion_bytes = dump[p + 4] == 0 && dump[p + 5] == 0;
			ck_assert_msg(imp->config[i] == dump[i] || companion_bytes,
				      "%s: byte %zu changed", name, i);
		}
		unsigned vid, pid;
		ck_assert_int_eq(sscanf(name, "%4x_%4x_", &vid, &pid), 2);
		ck_assert_uint_eq(imp->vendor, vid);
		ck_assert_uint_eq(imp->product, pid);
		ck_assert_uint_eq(imp->device[8] | imp->device[9] << 8, vid);
		ck_assert_uint_ge(imp->profile.n_formats, 1);
		for (unsigned f = 0; f < imp->profile.n_formats; f++)
			ck_assert_uint_ge(imp->profile.formats[f].n_frames, 1);
		ck_assert(imp->roles[imp->first_ct ? imp->first_ct : imp->first_pu] != VCAM_ROLE_NONE ||
			  (!imp->first_ct && !imp->first_pu));
		vcam_impersonate_free(imp);
		uvc_camera_free(model);
		free(dump);
	}
	closedir(dp);
	printf("impersonated %u of the %u corpus dumps that parse\n", impersonated, parsed);
	ck_assert_uint_eq(impersonated, parsed);
	ck_assert_uint_eq(parsed, 70);
}
END_TEST

/* ---- the vcam's own reading (dump_reader.c) ---- */

static void same_entities(const char *name, const struct uvc_camera *a, const struct uvc_camera *b)
{
	ck_assert_msg(a->n_entities == b->n_entities, "%s: %u entities, parser %u", name,
		      a->n_entities, b->n_entities);
	for (unsigned i = 0; i < a->n_entities; i++) {
		const struct uvc_entity *x = &a->entities[i], *y = &b->entities[i];
		ck_assert_msg(x->kind == y->kind && x->id == y->id && x->type == y->type &&
				      x->n_sources == y->n_sources &&
				      !memcmp(x->sources, y->sources, x->n_sources) &&
				      x->control_size == y->control_size &&
				      !memcmp(x->controls, y->controls, x->control_size) &&
				      !memcmp(x->guid, y->guid, 16) && x->n_controls == y->n_controls,
			      "%s: entity %u (ID %u) read otherwise", name, i, x->id);
	}
}

static void same_frame(const char *name, const struct uvc_frame *x, const struct uvc_frame *y)
{
	ck_assert_msg(x->index == y->index && x->width == y->width && x->height == y->height &&
			      x->max_buffer_size == y->max_buffer_size &&
			      x->default_interval == y->default_interval &&
			      x->continuous == y->continuous && x->n_intervals == y->n_intervals,
		      "%s: frame %u %ux%u read otherwise", name, x->index, x->width, x->height);
	if (x->continuous)
		ck_assert(!memcmp(&x->range, &y->range, sizeof(x->range)));
	else
		ck_assert(!memcmp(x->intervals, y->intervals, x->n_intervals * sizeof(uint32_t)));
}

static void same_stream(const char *name, const struct uvc_streaming *x,
			const struct uvc_streaming *y)
{
	ck_assert_msg(x->interface == y->interface && x->endpoint == y->endpoint &&
			      x->transfer == y->transfer && x->terminal_link == y->terminal_link &&
			      x->n_alts == y->n_alts && x->n_formats == y->n_formats,
		      "%s: streaming interface %u read otherwise", name, x->interface);
	for (unsigned k = 0; k < x->n_alts; k++)
		ck_assert_msg(x->alts[k].alt == y->alts[k].alt &&
				      x->alts[k].max_packet == y->alts[k].max_packet &&
				      x->alts[k].bytes == y->alts[k].bytes,
			      "%s: alternate setting %u read otherwise", name, x->alts[k].alt);
	for (unsigned f = 0; f < x->n_formats; f++) {
		const struct uvc_format *a = &x->formats[f], *b = &y->formats[f];
		ck_assert_msg(a->index == b->index && a->kind == b->kind && a->fourcc == b->fourcc &&
				      a->bpp == b->bpp && a->default_frame == b->default_frame &&
				      a->n_frames == b->n_frames,
			      "%s: format %u read otherwise", name, a->index);
		for (unsigned k = 0; k < a->n_frames; k++)
			same_frame(name, &a->frames[k], &b->frames[k]);
	}
}

/* Wherever uvcuse's parser accepts a corpus dump, the vcam reads what it
 * serves from (entities, streams, formats, frames, intervals, alternate
 * settings) exactly as the parser does: the impersonations made before the
 * vcam had its own reading are the same. */
START_TEST(reading_agrees_with_the_parser)
{
	DIR *dp = opendir(corpus_dir());
	unsigned compared = 0;
	struct dirent *de;

	ck_assert_ptr_nonnull(dp);
	while ((de = readdir(dp))) {
		size_t nl = strlen(de->d_name);
		if (nl < 8 || strcmp(de->d_name + nl - 8, ".cfg.bin"))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", corpus_dir(), de->d_name);
		size_t len;
		uint8_t *dump = read_all(path, &len);
		struct uvc_camera *parsed, *read;
		if (uvc_parse_descriptors(dump, len, &parsed, NULL) == 0) {
			ck_assert_int_eq(vcam_dump_read(dump, len, -1, &read), 0);
			ck_assert_uint_eq(read->bcd_uvc, parsed->bcd_uvc);
			ck_assert_uint_eq(read->control_interface, parsed->control_interface);
			ck_assert_uint_eq(read->status_endpoint, parsed->status_endpoint);
			same_entities(de->d_name, read, parsed);
			ck_assert_uint_eq(read->n_streams, parsed->n_streams);
			for (unsigned s = 0; s < read->n_streams; s++)
				same_stream(de->d_name, &read->streams[s], &parsed->streams[s]);
			uvc_camera_free(read);
			uvc_camera_free(parsed);
			compared++;
		}
		free(dump);
	}
	closedir(dp);
	ck_assert_uint_eq(compared, 70);
}
END_TEST

/* Every corpus camera (from its lsusb text, what its owner published) and
 * every synthetic broken topology is served, whatever uvcuse's parser
 * thinks of it: duplicate IDs it once refused included. */
START_TEST(every_dump_served)
{
	char dir[4096], path[4400], err[256];
	const char *topologies = getenv("TOPOLOGY_DIR");
	unsigned served = 0;
	struct dirent *de;

	ck_assert_ptr_nonnull(topologies);
	snprintf(dir, sizeof(dir), "%s/../lsusb", corpus_dir());
	for (int pass = 0; pass < 2; pass++) {
		const char *where = pass ? topologies : dir;
		DIR *dp = opendir(where);
		ck_assert_msg(dp != NULL, "%s: %s", where, strerror(errno));
		while ((de = readdir(dp))) {
			if (!strstr(de->d_name, pass ? ".cfg.bin" : ".lsusb.txt"))
				continue;
			struct vcam_impersonation *imp = NULL;
			snprintf(path, sizeof(path), "%s/%s", where, de->d_name);
			int r = vcam_impersonate_load(path, NULL, count_log, NULL, &imp, err,
						      sizeof(err));
			ck_assert_msg(r == 0, "%s: %s", de->d_name, err);
			ck_assert_uint_ge(imp->profile.n_formats, 1);
			vcam_impersonate_free(imp);
			served++;
		}
		closedir(dp);
	}
	ck_assert_uint_eq(served, 76 + 11);
}
END_TEST

/* ---- the impersonated C270 as vhci-hcd sees it ---- */

static uint8_t last_reply[4096];
static size_t last_length;
static int32_t last_status;

static int fake_send(void *ctx, const uint8_t *header, const uint8_t *data, size_t length,
		     const struct usbip_iso_desc *iso, unsigned packets)
{
	(void)ctx, (void)iso, (void)packets;
	last_status = (int32_t)((uint32_t)header[20] << 24 | (uint32_t)header[21] << 16 |
				(uint32_t)header[22] << 8 | header[23]);
	ck_assert_uint_le(length, sizeof(last_reply));
	if (length)
		memcpy(last_reply, data, length);
	last_length = length;
	return 0;
}

static uint64_t fake_clock(void)
{
	return 1;
}

static int request(struct vcam_camera *cam, uint8_t type, uint8_t req, uint16_t value,
		   uint16_t index, uint16_t length, const uint8_t *out)
{
	static uint32_t seq;
	struct usbip_header h = {
		.command = USBIP_CMD_SUBMIT, .seqnum = ++seq, .ep = 0,
		.direction = (type & USB_DIR_IN) ? USBIP_DIR_IN : USBIP_DIR_OUT, .length = length,
		.setup = { type, req, value & 0xff, value >> 8, index & 0xff, index >> 8,
			   length & 0xff, length >> 8 },
	};
	last_status = 1;
	ck_assert_int_eq(vcam_camera_command(cam, &h, out, NULL, 1), 0);
	ck_assert_int_ne(last_status, 1);
	return last_status;
}

#define CLASS_IN (USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE)
#define CLASS_OUT (USB_TYPE_CLASS | USB_RECIP_INTERFACE)

START_TEST(c270_answers_as_itself)
{
	struct vcam_impersonation *imp = impersonate("046d_0825_webcam_c270");
	ck_assert_int_eq(vcam_impersonate_set_serial(imp, "UNIT7"), 0);
	struct vcam_camera_config cfg = { .profile = &imp->profile, .impersonate = imp,
					  .serial = "UNIT7", .send = fake_send,
					  .clock = fake_clock };
	struct vcam_camera *cam = vcam_camera_new(&cfg);
	ck_assert_ptr_nonnull(cam);

	ck_assert_int_eq(request(cam, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 0, 18,
				 NULL), 0);
	ck_assert_uint_eq(last_reply[8] | last_reply[9] << 8, 0x046d);
	ck_assert_uint_eq(last_reply[10] | last_reply[11] << 8, 0x0825);
	uint8_t i_serial = last_reply[16];
	ck_assert_int_eq(request(cam, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0, 4096,
				 NULL), 0);
	ck_assert_uint_eq(last_length, imp->config_len);
	ck_assert_mem_eq(last_reply, imp->config, imp->config_len);
	ck_assert_int_eq(request(cam, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
				 (USB_DT_STRING << 8) | i_serial, 0x409, 255, NULL), 0);
	ck_assert_uint_eq(last_length, 2 + 2 * 5);
	ck_assert_uint_eq(last_reply[2], 'U');
	ck_assert_uint_eq(last_reply[10], '7');
	ck_assert_int_eq(request(cam, 0, USB_REQ_SET_CONFIGURATION, imp->config[5], 0, 0, NULL), 0);

	/* each camera terminal control the dump announces and the vcam models
	 * answers GET_INFO at the terminal's own ID */
	const struct uvc_entity *ct = uvc_camera_find_entity(imp->model, imp->first_ct);
	ck_assert_ptr_nonnull(ct);
	uint16_t vc = imp->vc_interface;
	ck_assert_int_eq(request(cam, CLASS_IN, UVC_GET_INFO, UVC_CT_AE_MODE_CONTROL << 8,
				 (uint16_t)(ct->id << 8 | vc), 1, NULL), 0);
	ck_assert_uint_eq(last_reply[0] & 3, 3);
	/* a control the terminal does not announce (zoom): STALL, INVALID_CONTROL */
	ck_assert(!uvc_entity_has_control(ct, 9));
	ck_assert_int_eq(request(cam, CLASS_IN, UVC_GET_INFO, UVC_CT_ZOOM_ABSOLUTE_CONTROL << 8,
				 (uint16_t)(ct->id << 8 | vc), 1, NULL), -EPIPE);
	ck_assert_int_eq(request(cam, CLASS_IN, UVC_GET_CUR, UVC_VC_REQUEST_ERROR_CODE_CONTROL << 8,
				 vc, 1, NULL), 0);
	ck_assert_uint_eq(last_reply[0], VCAM_ERR_INVALID_CONTROL);
	/* the extension units answer for the selectors their bmControls has */
	unsigned xus = 0;
	for (unsigned i = 0; i < imp->model->n_entities; i++) {
		const struct uvc_entity *e = &imp->model->entities[i];
		if (e->kind != UVC_ENTITY_EXTENSION_UNIT)
			continue;
		for (unsigned bit = 0; bit < 8u * e->control_size; bit++) {
			int want = uvc_entity_has_control(e, bit) ? 0 : -EPIPE;
			ck_assert_int_eq(request(cam, CLASS_IN, UVC_GET_LEN, (uint16_t)((bit + 1) << 8),
						 (uint16_t)(e->id << 8 | vc), 2, NULL), want);
		}
		xus++;
	}
	ck_assert_uint_ge(xus, 1);
	/* an ID no entity has: INVALID_UNIT */
	ck_assert_int_eq(request(cam, CLASS_IN, UVC_GET_INFO, 1 << 8, (uint16_t)(200 << 8 | vc), 1,
				 NULL), -EPIPE);
	ck_assert_int_eq(request(cam, CLASS_IN, UVC_GET_CUR, UVC_VC_REQUEST_ERROR_CODE_CONTROL << 8,
				 vc, 1, NULL), 0);
	ck_assert_uint_eq(last_reply[0], VCAM_ERR_INVALID_UNIT);
	/* the probe's default is the dump's first format and its default frame */
	ck_assert_int_eq(request(cam, CLASS_IN, UVC_GET_DEF, UVC_VS_PROBE_CONTROL << 8,
				 imp->vs_interface, 26, NULL), 0);
	const struct uvc_format *f0 = &imp->model->streams[0].formats[0];
	ck_assert_uint_eq(last_reply[2], f0->index);
	ck_assert_uint_eq(last_reply[3], f0->default_frame ? f0->default_frame : 1);
	vcam_camera_free(cam);
	vcam_impersonate_free(imp);
}
END_TEST

/* A configuration whose dump lost wTotalLength's bytes and a SuperSpeed
 * companion's wBytesPerInterval: repaired, and each repair logged. */
START_TEST(repairs_are_logged)
{
	struct vcam_impersonation *imp = impersonate("0fd9_009b_elgato_4k_x");
	vcam_impersonate_free(imp);
	logged = 0;
	imp = impersonate("046d_0825_webcam_c270");
	ck_assert_uint_ge(logged, 1); /* 5 bytes short: the VC interrupt endpoint's CS descriptor */
	ck_assert_uint_eq(imp->profile.speed, VCAM_HIGH_SPEED);
	vcam_impersonate_free(imp);
}
END_TEST

/* --status-packet-size: 0c45:62e0's status endpoint (0x1000: 3 x 0 bytes,
 * which the kernel refuses to submit to) made 16 bytes, logged, nothing
 * else changed; a camera without a status endpoint says so. */
START_TEST(status_packet_repair)
{
	struct vcam_impersonation *imp = impersonate("0c45_62e0_usb_2_0_camera");
	ck_assert_uint_eq(imp->status_ep, 0x83);
	uint8_t *before = malloc(imp->config_len);
	memcpy(before, imp->config, imp->config_len);
	logged = 0;
	ck_assert_int_eq(vcam_impersonate_set_status_packet(imp, 16, count_log, NULL), 0);
	ck_assert_uint_eq(logged, 1);
	unsigned changed = 0;
	for (size_t i = 0; i < imp->config_len; i++)
		changed += imp->config[i] != before[i];
	ck_assert_uint_eq(changed, 2); /* 0x1000 -> 0x0010: both bytes */
	const uint8_t *d;
	bool found = false;
	for (size_t pos = 0; (d = uvc_next_descriptor(imp->config, imp->config_len, &pos));)
		if (d[1] == USB_DT_ENDPOINT && d[2] == 0x83) {
			ck_assert_uint_eq(d[4] | d[5] << 8, 16);
			found = true;
		}
	ck_assert(found);
	imp->status_ep = 0;
	ck_assert_int_eq(vcam_impersonate_set_status_packet(imp, 16, count_log, NULL), -ENOENT);
	free(before);
	vcam_impersonate_free(imp);
}
END_TEST

/* --class-first: 054c:0b7f puts its VS class descriptors after its bulk
 * endpoint and SuperSpeed companion, where uvcvideo does not look; moved
 * in front of the endpoint, the same bytes, the same camera to uvcuse's
 * parser; a camera without such descriptors is left alone. */
START_TEST(class_descriptors_first)
{
	char txt[4096], err[256];
	snprintf(txt, sizeof(txt), "%s/../lsusb/054c_0b7f_sony_corp.lsusb.txt", corpus_dir());
	struct vcam_impersonation *imp = NULL;
	ck_assert_int_eq(vcam_impersonate_load(txt, NULL, count_log, NULL, &imp, err, sizeof(err)), 0);
	uint8_t *before = malloc(imp->config_len);
	memcpy(before, imp->config, imp->config_len);
	logged = 0;
	ck_assert_int_eq(vcam_impersonate_class_first(imp, count_log, NULL), 1);
	ck_assert_uint_eq(logged, 1);
	ck_assert(memcmp(before, imp->config, imp->config_len) != 0);
	/* the same bytes in another order */
	unsigned counts[2][256] = { { 0 } };
	for (size_t i = 0; i < imp->config_len; i++)
		counts[0][before[i]]++, counts[1][imp->config[i]]++;
	ck_assert_mem_eq(counts[0], counts[1], sizeof(counts[0]));
	/* in the streaming interface, no endpoint before a class descriptor */
	const uint8_t *d;
	bool vs = false, endpoint = false;
	for (size_t pos = 0; (d = uvc_next_descriptor(imp->config, imp->config_len, &pos));) {
		if (d[1] == USB_DT_INTERFACE)
			vs = d[6] == 2, endpoint = false;
		else if (vs && d[1] == USB_DT_ENDPOINT)
			endpoint = true;
		else if (vs && d[1] == USB_DT_CS_INTERFACE)
			ck_assert(!endpoint);
	}
	struct uvc_camera *a, *b;
	ck_assert_int_eq(uvc_parse_descriptors(before, imp->config_len, &a, NULL), 0);
	ck_assert_int_eq(uvc_parse_descriptors(imp->config, imp->config_len, &b, NULL), 0);
	ck_assert_uint_eq(a->streams[0].n_formats, b->streams[0].n_formats);
	ck_assert_uint_eq(a->streams[0].endpoint, b->streams[0].endpoint);
	uvc_camera_free(a);
	uvc_camera_free(b);
	free(before);
	vcam_impersonate_free(imp);

	imp = impersonate("046d_0825_webcam_c270");
	ck_assert_int_eq(vcam_impersonate_class_first(imp, count_log, NULL), 0);
	vcam_impersonate_free(imp);
}
END_TEST

/* The device descriptor from lsusb's text: its device block only (not the
 * qualifier's fields), BCD in hex, "(error)" strings unreadable, and a
 * serial that shares the product's index gets an index of its own. */
START_TEST(lsusb_device_part)
{
	char path[4096], err[256];
	snprintf(path, sizeof(path), "%s/046d_0825_webcam_c270.cfg.bin", corpus_dir());
	size_t len;
	uint8_t *config = read_all(path, &len);
	static const char text[] =
		"Bus 001 Device 004: ID 046d:0825 Logitech, Inc. Webcam C270\n"
		"Device Descriptor:\n"
		"  bLength                18\n"
		"  bcdUSB               2.00\n"
		"  bDeviceClass          239 Miscellaneous Device\n"
		"  bDeviceSubClass         2 \n"
		"  bDeviceProtocol         1 Interface Association\n"
		"  bMaxPacketSize0        64\n"
		"  idVendor           0x046d Logitech, Inc.\n"
		"  idProduct          0x0825 Webcam C270\n"
		"  bcdDevice            0.0a\n"
		"  iManufacturer           1 (error)\n"
		"  iProduct                2 Cam \n"
		"  iSerial                 2 Cam \n"
		"Device Qualifier (for other device speed):\n"
		"  bcdUSB               1.10\n"
		"  bDeviceClass            0 \n"
		"  bMaxPacketSize0         8\n";
	struct vcam_impersonation *imp = NULL;
	ck_assert_int_eq(vcam_impersonate_build("046d_0825_test", config, len, text, NULL, NULL, &imp,
						err, sizeof(err)), 0);
	free(config);
	ck_assert_uint_eq(imp->device[2] | imp->device[3] << 8, 0x0200);
	ck_assert_uint_eq(imp->device[4], 239);
	ck_assert_uint_eq(imp->device[7], 64);
	ck_assert_uint_eq(imp->device[12] | imp->device[13] << 8, 0x000a);
	uint8_t buf[256];
	ck_assert_int_eq(vcam_impersonate_string(imp, 1, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(vcam_impersonate_string(imp, 2, buf, sizeof(buf)), 2 + 2 * 4);
	ck_assert_uint_eq(buf[8], ' '); /* "Cam ": trailing blanks are the string's */
	ck_assert_int_eq(vcam_impersonate_set_serial(imp, "SER"), 0);
	ck_assert_uint_ne(imp->device[16], 2);
	ck_assert_uint_ne(imp->device[16], 1);
	ck_assert_int_eq(vcam_impersonate_string(imp, 2, buf, sizeof(buf)), 2 + 2 * 4);
	ck_assert_int_eq(vcam_impersonate_string(imp, imp->device[16], buf, sizeof(buf)), 2 + 2 * 3);
	vcam_impersonate_free(imp);
}
END_TEST

START_TEST(unit_store)
{
	uint8_t xu_controls[2] = { 0x05, 0x00 }; /* selectors 1 and 3 */
	uint8_t su_sources[2] = { 1, 2 };
	struct uvc_entity ents[2] = {
		{ .kind = UVC_ENTITY_EXTENSION_UNIT, .id = 6, .control_size = 2,
		  .controls = xu_controls },
		{ .kind = UVC_ENTITY_SELECTOR_UNIT, .id = 7, .n_sources = 2, .sources = su_sources },
	};
	struct uvc_camera model = { .n_entities = 2, .entities = ents };
	struct vcam_xu_store *s = vcam_xu_store_new(&model);
	ck_assert_ptr_nonnull(s);
	uint8_t d[8] = { 0 }, err = 0xaa;
	ck_assert_int_eq(vcam_xu_store_request(s, 6, UVC_GET_LEN, 1, d, 2, &err), 2);
	ck_assert_uint_eq(d[0], VCAM_XU_VALUE_SIZE);
	ck_assert_uint_eq(err, VCAM_ERR_NONE);
	ck_assert_int_eq(vcam_xu_store_request(s, 6, UVC_GET_INFO, 2, d, 1, &err), -1);
	ck_assert_uint_eq(err, VCAM_ERR_INVALID_CONTROL);
	ck_assert_int_eq(vcam_xu_store_request(s, 9, UVC_GET_INFO, 1, d, 1, &err), -1);
	ck_assert_uint_eq(err, VCAM_ERR_INVALID_UNIT);
	ck_assert_int_eq(vcam_xu_store_request(s, 6, UVC_GET_CUR, 3, d, 2, &err), -1);
	ck_assert_uint_eq(err, VCAM_ERR_UNKNOWN);
	uint8_t v[4] = { 0x78, 0x56, 0x34, 0x12 };
	ck_assert_int_eq(vcam_xu_store_request(s, 6, UVC_SET_CUR, 3, v, 4, &err), 0);
	ck_assert_int_eq(vcam_xu_store_request(s, 6, UVC_GET_CUR, 3, d, 4, &err), 4);
	ck_assert_mem_eq(d, v, 4);
	ck_assert_int_eq(vcam_xu_store_request(s, 6, UVC_GET_CUR, 1, d, 4, &err), 4);
	ck_assert_uint_eq(d[0], 0); /* the other control kept its own value */
	/* the selector unit: input 1..2 */
	ck_assert_int_eq(vcam_xu_store_request(s, 7, UVC_GET_MAX, UVC_SU_INPUT_SELECT_CONTROL, d, 1,
					       &err), 1);
	ck_assert_uint_eq(d[0], 2);
	uint8_t three = 3;
	ck_assert_int_eq(vcam_xu_store_request(s, 7, UVC_SET_CUR, UVC_SU_INPUT_SELECT_CONTROL,
					       &three, 1, &err), -1);
	ck_assert_uint_eq(err, VCAM_ERR_OUT_OF_RANGE);
	vcam_xu_store_free(s);
}
END_TEST

/* uvcvideo's card name suffix: the IAD's iFunction, else the VideoControl
 * interface's iInterface. */
START_TEST(function_string_index)
{
	uint8_t with_iad[] = {
		9, USB_DT_CONFIG, 34, 0, 2, 1, 0, 0x80, 250,
		8, USB_DT_INTERFACE_ASSOCIATION, 0, 2, 0x0e, 3, 0, 5,
		9, USB_DT_INTERFACE, 0, 0, 0, 0x0e, 1, 0, 6,
		8, USB_DT_INTERFACE_ASSOCIATION, 2, 1, 1, 1, 0, 9,
	};
	ck_assert_uint_eq(uvc_function_string_index(with_iad, sizeof(with_iad), 0), 5);
	with_iad[16] = 0; /* iFunction 0: the interface's string */
	ck_assert_uint_eq(uvc_function_string_index(with_iad, sizeof(with_iad), 0), 6);
	/* an interface no IAD holds */
	ck_assert_uint_eq(uvc_function_string_index(with_iad + 17, 9, 0), 6);
	ck_assert_uint_eq(uvc_function_string_index(with_iad, sizeof(with_iad), 4), 0);
	/* a stray byte ends the walk without reading past it */
	ck_assert_uint_eq(uvc_function_string_index(with_iad, 10, 0), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcam-impersonate");
	TCase *tc = tcase_create("impersonate");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, corpus_impersonated);
	tcase_add_test(tc, reading_agrees_with_the_parser);
	tcase_add_test(tc, every_dump_served);
	tcase_add_test(tc, c270_answers_as_itself);
	tcase_add_test(tc, repairs_are_logged);
	tcase_add_test(tc, status_packet_repair);
	tcase_add_test(tc, class_descriptors_first);
	tcase_add_test(tc, unit_store);
	tcase_add_test(tc, lsusb_device_part);
	tcase_add_test(tc, function_string_index);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-vcam --descriptors TEXT: `lsusb -v` text rebuilt as configuration
 * descriptor bytes (tests/vcam/lsusb_rebuild.c). Against the corpus' own
 * rebuilds (../shared/corpus/bin), which agree byte for byte except where
 * that rebuild lost bytes; the text then impersonates every camera the
 * binary does, with the same formats, and the cameras whose binary is
 * damaged too; and hand-written texts for each rule. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impersonate.h"
#include "lsusb_rebuild.h"
#include "unit_run.h"
#include "uvc/descriptors.h"

static const char *corpus_dir(void)
{
	const char *dir = getenv("UVC_CORPUS_DIR"); /* .../corpus/bin */
	/* A missing corpus is a failure, not a skip: it would pass with no check. */
	ck_assert_msg(dir != NULL, "UVC_CORPUS_DIR is not set");
	return dir;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	char *buf = malloc(1 << 20);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

static unsigned logged;
static char last_log[256];
static void keep_log(void *opaque, const char *line)
{
	(void)opaque;
	snprintf(last_log, sizeof(last_log), "%s", line);
	logged++;
}

/* The corpus' own rebuild wrote 0xaa over the class-specific descriptors of
 * non-video interfaces (audio): a run of three or more matches any bytes. */
static bool same_as_corpus(const uint8_t *ours, size_t ours_len, const uint8_t *bin, size_t bin_len)
{
	size_t i = 0;
	while (i < bin_len && i < ours_len) {
		if (ours[i] == bin[i]) {
			i++;
			continue;
		}
		size_t run = 0;
		while (i + run < bin_len && bin[i + run] == 0xaa)
			run++;
		if (run < 3)
			return false;
		i += run;
	}
	return i == bin_len && i == ours_len;
}

/* Where the corpus' binary and the text rebuilt here differ, the binary
 * lost bytes the text has (docs/corpus-unparsed.md for the first six). */
static const char *const corpus_bin_lossy[] = {
	"045e_074a_microsoft_lifecam",	 /* a line joined by e-mail reflow: one byte lost */
	"046d_0991_quickcam_pro_for_notebooks", /* wrapped hex dumps' second lines */
	"054c_0b7f_sony_corp",		 /* HTML mail's no-break spaces */
	"05ac_8600_ibridge",		 /* CDC functional descriptors (no bLength printed) */
	"090c_71b3_usb_2_0_pc_cam",	 /* a GUID wrapped mid-digits */
	"0bda_5691_integrated_webcam_hd", /* a wrapped vendor descriptor */
	"1871_0516_usb2_0_camera",	 /* a wrapped extension unit */
	"18ec_5850_usb2_0_pc_camera",	 /* a still image descriptor's last two patterns */
	"199e_8302_unknown",		 /* the binary ignores the input header's bLength */
	"3474_750e_m3lite",		 /* CDC functional descriptors */
};

static bool is_lossy(const char *name)
{
	for (size_t i = 0; i < sizeof(corpus_bin_lossy) / sizeof(corpus_bin_lossy[0]); i++)
		if (!strcmp(name, corpus_bin_lossy[i]))
			return true;
	return false;
}

static bool same_formats(const struct vcam_profile *a, const struct vcam_profile *b)
{
	if (a->n_formats != b->n_formats)
		return false;
	for (unsigned f = 0; f < a->n_formats; f++)
		if (a->formats[f].pixel != b->formats[f].pixel)
			return false;
	return true;
}

static bool same_profile(const struct vcam_profile *a, const struct vcam_profile *b)
{
	if (!same_formats(a, b) || a->n_alts != b->n_alts || a->speed != b->speed ||
	    a->transfer != b->transfer || a->bcd_uvc != b->bcd_uvc)
		return false;
	for (unsigned f = 0; f < a->n_formats; f++) {
		const struct vcam_format *fa = &a->formats[f], *fb = &b->formats[f];
		if (fa->pixel != fb->pixel || fa->n_frames != fb->n_frames)
			return false;
		for (unsigned i = 0; i < fa->n_frames; i++)
			if (memcmp(&fa->frames[i], &fb->frames[i], sizeof(fa->frames[i])))
				return false;
	}
	return memcmp(a->alts, b->alts, sizeof(a->alts)) == 0;
}

/* The corpus' cameras by their lsusb texts: each call gives the next
 * camera's name and the paths of its text and binary; false at the end. */
struct corpus_walk {
	DIR *dp;
	char dir[2048];
	char name[256], text[4096], bin[4096];
};

static bool next_camera(struct corpus_walk *w)
{
	if (!w->dp) {
		snprintf(w->dir, sizeof(w->dir), "%s/../lsusb", corpus_dir());
		w->dp = opendir(w->dir);
		ck_assert_msg(w->dp != NULL, "%s: %s", w->dir, strerror(errno));
	}
	struct dirent *de;
	while ((de = readdir(w->dp))) {
		size_t nl = strlen(de->d_name);
		if (nl < 10 || strcmp(de->d_name + nl - 10, ".lsusb.txt"))
			continue;
		snprintf(w->name, sizeof(w->name), "%.*s", (int)(nl - 10), de->d_name);
		snprintf(w->text, sizeof(w->text), "%s/%s", w->dir, de->d_name);
		snprintf(w->bin, sizeof(w->bin), "%s/%s.cfg.bin", corpus_dir(), w->name);
		return true;
	}
	closedir(w->dp);
	w->dp = NULL;
	return false;
}

/* Every text rebuilds; 66 exactly as the corpus' binary, the other ten
 * where the binary lost bytes, each of them longer than that binary and
 * never past what the camera declared. */
START_TEST(corpus_texts_rebuild)
{
	struct corpus_walk w = { 0 };
	unsigned texts = 0, identical = 0;
	while (next_camera(&w)) {
		const char *name = w.name;
		size_t text_len, bin_len;
		char *text = read_all(w.text, &text_len);
		uint8_t *bin = (uint8_t *)read_all(w.bin, &bin_len);
		uint8_t *ours;
		size_t ours_len;
		char err[256];
		ck_assert(lsusb_text_is_lsusb((const uint8_t *)text, text_len));
		ck_assert(!lsusb_text_is_lsusb(bin, bin_len));
		int rc = lsusb_rebuild_config(text, NULL, NULL, &ours, &ours_len, err, sizeof(err));
		ck_assert_msg(rc == 0, "%s: %s", name, err);
		texts++;
		if (same_as_corpus(ours, ours_len, bin, bin_len)) {
			ck_assert_msg(!is_lossy(name), "%s is listed as lossy but is identical", name);
			identical++;
		} else {
			ck_assert_msg(is_lossy(name), "%s: rebuilt unlike the corpus' binary", name);
			ck_assert_uint_ne(ours_len, bin_len);
		}
		unsigned declared = ours[2] | ours[3] << 8;
		/* 05ac:8600 declares its first configuration only */
		ck_assert_msg(ours_len <= declared || !strcmp(name, "05ac_8600_ibridge"),
			      "%s: %zu bytes, %u declared", name, ours_len, declared);
		free(ours);
		free(bin);
		free(text);
	}
	printf("%u texts rebuilt, %u identical to the corpus' binaries\n", texts, identical);
	ck_assert_uint_eq(texts, 76);
	ck_assert_uint_eq(identical, 66);
}
END_TEST

static struct vcam_impersonation *load(const char *path, const char *lsusb, char *err, size_t cap)
{
	struct vcam_impersonation *imp = NULL;
	if (vcam_impersonate_load(path, lsusb, NULL, NULL, &imp, err, cap) != 0)
		return NULL;
	return imp;
}

/* The text alone impersonates each camera the binary does, with the same
 * profile, and the six whose binary is damaged: all 76. */
START_TEST(corpus_texts_impersonate)
{
	struct corpus_walk w = { 0 };
	unsigned from_text = 0, from_bin = 0, only_text = 0;
	while (next_camera(&w)) {
		const char *name = w.name;
		char err[256];
		struct vcam_impersonation *t = load(w.text, NULL, err, sizeof(err));
		struct vcam_impersonation *b = load(w.bin, w.text, err, sizeof(err));
		if (b) {
			from_bin++;
			ck_assert_msg(t != NULL, "%s: the binary impersonates, the text not", name);
			/* 18ec:5850's binary lost two bytes of a still image
			 * descriptor: its alternate setting 0 gained an endpoint */
			ck_assert_msg(is_lossy(name) ? same_formats(&t->profile, &b->profile)
						     : same_profile(&t->profile, &b->profile),
				      "%s: profiles differ", name);
			ck_assert_uint_eq(t->vendor, b->vendor);
			ck_assert_uint_eq(t->product, b->product);
			ck_assert_mem_eq(t->device, b->device, sizeof(t->device));
			for (unsigned i = 0; i < 256; i++) /* invented ones follow the bytes */
				if (t->strings[i] && b->strings[i])
					ck_assert_str_eq(t->strings[i], b->strings[i]);
		} else if (t) {
			ck_assert_msg(is_lossy(name), "%s", name);
			only_text++;
		}
		from_text += t != NULL;
		if (t)
			vcam_impersonate_free(t);
		if (b)
			vcam_impersonate_free(b);
	}
	printf("impersonated: %u from the texts, %u from the binaries, %u only from the text\n",
	       from_text, from_bin, only_text);
	ck_assert_uint_eq(from_bin, 70);
	ck_assert_uint_eq(only_text, 6);
	ck_assert_uint_eq(from_text, 76);
}
END_TEST

static uint8_t *rebuild(const char *text, size_t *len)
{
	uint8_t *out = NULL;
	char err[256];
	logged = 0;
	int rc = lsusb_rebuild_config(text, keep_log, NULL, &out, len, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	return out;
}

#define CONFIG_HEAD                                                                                \
	"Configuration Descriptor:\n"                                                              \
	"  bLength 9\n  bDescriptorType 2\n  wTotalLength 0x0020\n  bNumInterfaces 1\n"           \
	"  bConfigurationValue 1\n  iConfiguration 0\n  bmAttributes 0x80\n  MaxPower 500mA\n"

/* Each field at its width, bcd and MHz values, a unit's bmControls as wide
 * as its bControlSize though lsusb printed fewer bytes, a descriptor cut at
 * its bLength, a GUID wrapped over two lines in the order the YUY2 GUID
 * reveals, and the end at the device qualifier. */
START_TEST(fields_by_name)
{
	static const char text[] =
		"Device Descriptor:\n  bcdUSB 2.00\n" CONFIG_HEAD
		"    VideoControl Interface Descriptor:\n"
		"      bLength 13\n      bDescriptorType 36\n      bDescriptorSubtype 1 (HEADER)\n"
		"      bcdUVC 1.10\n      wTotalLength 77\n      dwClockFrequency 48.000000MHz\n"
		"      bInCollection 1\n      baInterfaceNr( 0) 1\n"
		"    VideoControl Interface Descriptor:\n"
		"      bLength 11\n      bDescriptorType 36\n      bDescriptorSubtype 5 (PROCESSING_UNIT)\n"
		"    Warning: Descriptor too short\n"
		"      bUnitID 2\n      bSourceID 1\n      wMaxMultiplier 16384\n      bControlSize 3\n"
		"      bmControls 0x0000175b\n        Brightness\n      iProcessing 0\n"
		"      bmVideoStandards 0x1b\n"
		"    VideoStreaming Interface Descriptor:\n"
		"      bLength 27\n      bDescriptorType 36\n      bDescriptorSubtype 4\n"
		"      bFormatIndex 1\n      bNumFrameDescriptors 1\n      guidFormat\n"
		"{59555932-0000-1000-8000-00aa00389\n b71}\n      bBitsPerPixel 16\n"
		"Device Qualifier (for other device speed):\n  bLength 10\n";
	static const uint8_t want[] = {
		9, 2, 0x20, 0, 1, 1, 0, 0x80, 250,
		13, 36, 1, 0x10, 0x01, 77, 0, 0x00, 0x6c, 0xdc, 0x02, 1, 1,
		11, 36, 5, 2, 1, 0x00, 0x40, 3, 0x5b, 0x17, 0x00, /* iProcessing on: cut */
		27, 36, 4, 1, 1, 'Y', 'U', 'Y', '2', 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b,
		0x71, 16, 0, 0, 0, 0, 0,
	};
	size_t len;
	uint8_t *got = rebuild(text, &len);
	ck_assert_uint_eq(len, sizeof(want));
	ck_assert_mem_eq(got, want, sizeof(want));
	ck_assert_uint_eq(logged, 0);
	free(got);
}
END_TEST

/* usbutils 009+ print GUIDs in RFC 4122 order; without a well-known GUID
 * that order is assumed and said. */
START_TEST(guid_order)
{
	static const char rfc[] = CONFIG_HEAD "  VideoStreaming Interface Descriptor:\n"
					      "    bLength 21\n    bDescriptorType 36\n"
					      "    bDescriptorSubtype 4\n    bFormatIndex 1\n"
					      "    bNumFrameDescriptors 1\n"
					      "    guidFormat {32595559-0000-0010-8000-00aa00389b71} YUY2\n";
	size_t len;
	uint8_t *got = rebuild(rfc, &len);
	ck_assert_uint_eq(len, 9 + 21);
	ck_assert_mem_eq(got + 9 + 5, "YUY2\0\0\x10\0\x80\0\0\xaa\0" "8\x9b\x71", 16);
	ck_assert_uint_eq(logged, 0);
	free(got);

	static const char unknown[] = CONFIG_HEAD "  VideoControl Interface Descriptor:\n"
						  "    bLength 19\n    bDescriptorType 36\n"
						  "    bDescriptorSubtype 6\n"
						  "    guidExtensionCode {01020304-0506-0708-090a-0b0c0d0e0f10}\n";
	got = rebuild(unknown, &len);
	ck_assert_mem_eq(got + 9 + 3, "\x04\x03\x02\x01\x06\x05\x08\x07\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10",
			 16);
	ck_assert_uint_eq(logged, 1);
	ck_assert_ptr_nonnull(strstr(last_log, "RFC 4122"));
	free(got);
}
END_TEST

/* Hex dumps (whole, wrapped, or after bDescriptorSubtype), CDC functional
 * descriptors sized by their fields, an SS companion printed inside its
 * endpoint, HTML no-break spaces and quote markers. */
START_TEST(dumps_companions_and_mail)
{
	static const char text[] =
		"Device Descriptor:\n  bcdUSB 3.10\n"
		"> \xc2\xa0" "Configuration Descriptor:\n"
		">\xc2\xa0\xc2\xa0 bLength\xc2\xa0\xc2\xa0 9\n  bDescriptorType 2\n  wTotalLength 100\n"
		"  bNumInterfaces 1\n  bConfigurationValue 1\n  iConfiguration 0\n"
		"  bmAttributes 0x80\n  MaxPower 896mA\n"
		"  ** UNRECOGNIZED:  06 ff 01 02\n03 04\n"
		"  VideoControl Interface Descriptor:\n    bLength 6\n    bDescriptorType 36\n"
		"    bDescriptorSubtype 7 (unknown)\n    Invalid desc subtype: 0b 04 00\n"
		"  CDC Union:\n    bMasterInterface 2\n    bSlaveInterface 3\n"
		"  Endpoint Descriptor:\n    bLength 7\n    bDescriptorType 5\n"
		"    bEndpointAddress 0x81 EP 1 IN\n    bmAttributes 5\n      Transfer Type Isochronous\n"
		"    wMaxPacketSize 0x0400 1x 1024 bytes\n    bInterval 1\n    bMaxBurst 3\n"
		"    Mult 2\n"
		"  INTERFACE CLASS:  04 24 01 00\n"
		"Binary Object Store Descriptor:\n  bLength 5\n";
	static const uint8_t want[] = {
		9, 2, 100, 0, 1, 1, 0, 0x80, 112,
		6, 0xff, 1, 2, 3, 4,
		6, 36, 7, 0x0b, 4, 0,
		5, 0x24, 6, 2, 3,
		7, 5, 0x81, 5, 0x00, 0x04, 1,
		6, 0x30, 3, 2, 0, 0,
		4, 0x24, 1, 0,
	};
	size_t len;
	uint8_t *got = rebuild(text, &len);
	ck_assert_uint_eq(len, sizeof(want));
	ck_assert_mem_eq(got, want, sizeof(want));
	free(got);
}
END_TEST

/* Text that is not a configuration: refused with a reason, never a crash. */
START_TEST(not_a_configuration)
{
	static const char *const texts[] = {
		"", "Bus 001 Device 002: ID 1234:5678\nDevice Descriptor:\n  bLength 18\n",
		"Configuration Descriptor:\n", "Configuration Descriptor:\n  bLength 1\n",
		"Configuration Descriptor:\n  bLength 9\n  bDescriptorType 4\n",
		"Configuration Descriptor:\n  guidFormat {0102\n",
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		uint8_t *out = NULL;
		size_t len = 0;
		char err[256] = "";
		ck_assert_int_eq(lsusb_rebuild_config(texts[i], NULL, NULL, &out, &len, err, sizeof(err)),
				 -EINVAL);
		ck_assert_ptr_null(out);
		ck_assert_uint_gt(strlen(err), 0);
	}
	ck_assert(!lsusb_text_is_lsusb((const uint8_t *)"\x09\x02Configuration Descriptor:", 27));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcam-lsusb-rebuild");
	TCase *tc = tcase_create("rebuild");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, corpus_texts_rebuild);
	tcase_add_test(tc, corpus_texts_impersonate);
	tcase_add_test(tc, fields_by_name);
	tcase_add_test(tc, guid_order);
	tcase_add_test(tc, dumps_companions_and_mail);
	tcase_add_test(tc, not_a_configuration);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

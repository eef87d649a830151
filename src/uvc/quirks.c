/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcvideo 6.1's device table and quirk names. See quirks.h. */
#include "uvc/quirks.h"

#include "uvc/descriptors.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>
#include <linux/videodev2.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Every entry of uvc_ids[] names vendor and product and the interface
 * triple (USB_DEVICE_ID_MATCH_DEVICE | USB_DEVICE_ID_MATCH_INT_INFO);
 * the class is video, or vendor-specific for cameras that are UVC inside
 * but do not say so (early Logitech and a few others). Subclass 1 is the
 * VideoControl interface; protocol 0 unless an entry says otherwise. */
#define CAMERA_MATCH (UVC_ID_MATCH_VENDOR | UVC_ID_MATCH_PRODUCT | UVC_ID_MATCH_INT_CLASS | \
		      UVC_ID_MATCH_INT_SUBCLASS | UVC_ID_MATCH_INT_PROTOCOL)
#define CAMERA(v, p) \
	.match = CAMERA_MATCH, .vid = v, .pid = p, \
	.if_class = USB_CLASS_VIDEO, .if_subclass = UVC_SC_VIDEOCONTROL
#define VENDOR_CLASS(v, p) \
	.match = CAMERA_MATCH, .vid = v, .pid = p, \
	.if_class = USB_CLASS_VENDOR_SPEC, .if_subclass = UVC_SC_VIDEOCONTROL
/* The same with an upper bound on bcdDevice (USB_DEVICE_ID_MATCH_DEV_HI). */
#define CAMERA_UPTO(v, p, hi) \
	.match = CAMERA_MATCH | UVC_ID_MATCH_DEV_HI, .vid = v, .pid = p, .bcd_hi = hi, \
	.if_class = USB_CLASS_VIDEO, .if_subclass = UVC_SC_VIDEOCONTROL
/* USB_INTERFACE_INFO: any device, by the interface triple alone. */
#define CLASS_WIDE(proto) \
	.match = UVC_ID_MATCH_INT_CLASS | UVC_ID_MATCH_INT_SUBCLASS | UVC_ID_MATCH_INT_PROTOCOL, \
	.if_class = USB_CLASS_VIDEO, .if_subclass = UVC_SC_VIDEOCONTROL, .if_protocol = proto

/* uvc_ids[] of 6.1.192 (unchanged since at least 6.1.158), in its order:
 * the order decides which entry a device gets. Mostly sorted by vendor
 * and product, but not strictly (the C920 follows the QuickCams). */
const struct uvc_quirk_entry uvc_quirk_entries[] = {
	{ CAMERA(0x0408, 0x3090), .mapping = &uvc_ctrl_power_line_limited,
	  .name = "0408:3090 Quanta USB2.0 HD UVC Webcam" },
	{ CAMERA(0x0408, 0x4030), .mapping = &uvc_ctrl_power_line_limited,
	  .name = "0408:4030 Quanta USB2.0 HD UVC Webcam" },
	/* UVC 1.5 interfaces only: the same product with protocol 0 gets the
	 * class-wide entry, with the standard power line menu. */
	{ CAMERA(0x0408, 0x4034), .if_protocol = UVC_PC_PROTOCOL_15,
	  .mapping = &uvc_ctrl_power_line_limited,
	  .name = "0408:4034 Quanta USB2.0 HD UVC Webcam" },
	{ CAMERA(0x0416, 0xa91a), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "0416:a91a LogiLink Wireless Webcam" },
	{ CAMERA(0x0458, 0x706e), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "0458:706e Genius eFace 2025" },
	{ CAMERA(0x045e, 0x00f8), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "045e:00f8 Microsoft Lifecam NX-6000" },
	{ CAMERA(0x045e, 0x0721), .quirks = UVC_QUIRK_PROBE_DEF,
	  .name = "045e:0721 Microsoft Lifecam NX-3000" },
	{ CAMERA(0x045e, 0x0723), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "045e:0723 Microsoft Lifecam VX-7000" },
	{ CAMERA(0x046d, 0x0821), .quirks = UVC_QUIRK_WAKE_AUTOSUSPEND,
	  .name = "046d:0821 Logitech, Webcam C910" },
	{ CAMERA(0x046d, 0x0823), .quirks = UVC_QUIRK_WAKE_AUTOSUSPEND,
	  .name = "046d:0823 Logitech, Webcam B910" },
	{ VENDOR_CLASS(0x046d, 0x08c1),
	  .name = "046d:08c1 Logitech Quickcam Fusion" },
	{ VENDOR_CLASS(0x046d, 0x08c2),
	  .name = "046d:08c2 Logitech Quickcam Orbit MP" },
	{ VENDOR_CLASS(0x046d, 0x08c3),
	  .name = "046d:08c3 Logitech Quickcam Pro for Notebook" },
	{ VENDOR_CLASS(0x046d, 0x08c5),
	  .name = "046d:08c5 Logitech Quickcam Pro 5000" },
	{ VENDOR_CLASS(0x046d, 0x08c6),
	  .name = "046d:08c6 Logitech Quickcam OEM Dell Notebook" },
	{ VENDOR_CLASS(0x046d, 0x08c7),
	  .name = "046d:08c7 Logitech Quickcam OEM Cisco VT Camera II" },
	{ CAMERA(0x046d, 0x082d), .quirks = UVC_QUIRK_RESTORE_CTRLS_ON_INIT,
	  .name = "046d:082d Logitech HD Pro Webcam C920" },
	{ CAMERA(0x04f2, 0xb071), .quirks = UVC_QUIRK_RESTRICT_FRAME_RATE,
	  .name = "04f2:b071 Chicony CNF7129 (Asus EEE 100HE)" },
	{ CAMERA(0x04f2, 0xb5eb), .mapping = &uvc_ctrl_power_line_limited,
	  .name = "04f2:b5eb Chicony EasyCamera" },
	{ CAMERA(0x04f2, 0xb6ba), .mapping = &uvc_ctrl_power_line_limited,
	  .name = "04f2:b6ba Chicony EasyCamera" },
	{ CAMERA(0x04f2, 0xb746), .mapping = &uvc_ctrl_power_line_limited,
	  .name = "04f2:b746 Chicony EasyCamera" },
	{ CAMERA(0x058f, 0x3820), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "058f:3820 Alcor Micro AU3820 (Future Boy PC USB Webcam)" },
	{ CAMERA(0x05a9, 0x2640), .quirks = UVC_QUIRK_PROBE_DEF,
	  .name = "05a9:2640 Dell XPS m1530" },
	{ CAMERA(0x05a9, 0x2641), .quirks = UVC_QUIRK_PROBE_DEF,
	  .name = "05a9:2641 Dell SP2008WFP Monitor" },
	{ CAMERA(0x05a9, 0x2643), .quirks = UVC_QUIRK_PROBE_DEF,
	  .name = "05a9:2643 Dell Alienware X51" },
	{ CAMERA(0x05a9, 0x264a), .quirks = UVC_QUIRK_PROBE_DEF,
	  .name = "05a9:264a Dell Studio Hybrid 140g (OmniVision webcam)" },
	{ CAMERA(0x05a9, 0x7670), .quirks = UVC_QUIRK_PROBE_DEF,
	  .name = "05a9:7670 Dell XPS M1330 (OmniVision OV7670 webcam)" },
	{ CAMERA(0x05ac, 0x8501), .quirks = UVC_QUIRK_PROBE_MINMAX | UVC_QUIRK_BUILTIN_ISIGHT,
	  .name = "05ac:8501 Apple Built-In iSight" },
	{ CAMERA(0x05ac, 0x8514), .quirks = UVC_QUIRK_PROBE_DEF,
	  .name = "05ac:8514 Apple FaceTime HD Camera (Built-In)" },
	{ CAMERA(0x05ac, 0x8600), .quirks = UVC_QUIRK_PROBE_DEF,
	  .name = "05ac:8600 Apple Built-In iSight via iBridge" },
	{ CAMERA(0x05c8, 0x0403), .quirks = UVC_QUIRK_FIX_BANDWIDTH,
	  .name = "05c8:0403 Foxlink (\"HP Webcam\" on HP Mini 5103)" },
	{ CAMERA(0x05e3, 0x0505), .quirks = UVC_QUIRK_STREAM_NO_FID,
	  .name = "05e3:0505 Genesys Logic USB 2.0 PC Camera" },
	{ CAMERA(0x06f8, 0x300c), .quirks = UVC_QUIRK_FIX_BANDWIDTH,
	  .name = "06f8:300c Hercules Classic Silver" },
	{ CAMERA(0x0ac8, 0x332d), .quirks = UVC_QUIRK_FIX_BANDWIDTH,
	  .name = "0ac8:332d ViMicro Vega" },
	{ CAMERA(0x0ac8, 0x3410), .quirks = UVC_QUIRK_FIX_BANDWIDTH,
	  .name = "0ac8:3410 ViMicro - Minoru3D" },
	{ CAMERA(0x0ac8, 0x3420), .quirks = UVC_QUIRK_FIX_BANDWIDTH,
	  .name = "0ac8:3420 ViMicro Venus - Minoru3D" },
	{ CAMERA(0x0bd3, 0x0555), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "0bd3:0555 Ophir Optronics - SPCAM 620U" },
	{ CAMERA(0x0e8d, 0x0004), .quirks = UVC_QUIRK_PROBE_MINMAX | UVC_QUIRK_PROBE_DEF,
	  .name = "0e8d:0004 MT6227" },
	{ CAMERA(0x13d3, 0x5103), .quirks = UVC_QUIRK_STREAM_NO_FID,
	  .name = "13d3:5103 IMC Networks (Medion Akoya)" },
	{ CAMERA(0x152d, 0x0310), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "152d:0310 JMicron USB2.0 XGA WebCam" },
	{ CAMERA(0x174f, 0x5212), .quirks = UVC_QUIRK_STREAM_NO_FID,
	  .name = "174f:5212 Syntek (HP Spartan)" },
	{ CAMERA(0x174f, 0x5931), .quirks = UVC_QUIRK_STREAM_NO_FID,
	  .name = "174f:5931 Syntek (Samsung Q310)" },
	{ CAMERA(0x174f, 0x8a12), .quirks = UVC_QUIRK_STREAM_NO_FID,
	  .name = "174f:8a12 Syntek (Packard Bell EasyNote MX52)" },
	{ CAMERA(0x174f, 0x8a31), .quirks = UVC_QUIRK_STREAM_NO_FID,
	  .name = "174f:8a31 Syntek (Asus F9SG)" },
	{ CAMERA(0x174f, 0x8a33), .quirks = UVC_QUIRK_STREAM_NO_FID,
	  .name = "174f:8a33 Syntek (Asus U3S)" },
	{ CAMERA(0x174f, 0x8a34), .quirks = UVC_QUIRK_STREAM_NO_FID,
	  .name = "174f:8a34 Syntek (JAOtech Smart Terminal)" },
	{ CAMERA(0x17dc, 0x0202), .quirks = UVC_QUIRK_STREAM_NO_FID,
	  .name = "17dc:0202 Miricle 307K" },
	{ CAMERA(0x17ef, 0x480b), .quirks = UVC_QUIRK_STREAM_NO_FID,
	  .name = "17ef:480b Lenovo Thinkpad SL400/SL500" },
	{ CAMERA(0x1871, 0x0306), .quirks = UVC_QUIRK_PROBE_MINMAX | UVC_QUIRK_PROBE_EXTRAFIELDS,
	  .name = "1871:0306 Aveo Technology USB 2.0 Camera" },
	{ VENDOR_CLASS(0x1871, 0x0516),
	  .name = "1871:0516 Aveo Technology USB 2.0 Camera (Tasco USB Microscope)" },
	{ CAMERA(0x18cd, 0xcafe), .quirks = UVC_QUIRK_PROBE_EXTRAFIELDS,
	  .name = "18cd:cafe Ecamm Pico iMage" },
	{ CAMERA(0x18ec, 0x3188), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "18ec:3188 Manta MM-353 Plako" },
	{ CAMERA(0x18ec, 0x3288), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "18ec:3288 FSC WebCam V30S" },
	{ CAMERA(0x18ec, 0x3290), .quirks = UVC_QUIRK_PROBE_DEF,
	  .name = "18ec:3290 Arkmicro unbranded" },
	{ VENDOR_CLASS(0x199e, 0x8102),
	  .name = "199e:8102 The Imaging Source USB CCD cameras" },
	/* bcdDevice 0x0126 and below only. */
	{ CAMERA_UPTO(0x19ab, 0x1000, 0x0126), .quirks = UVC_QUIRK_STATUS_INTERVAL,
	  .name = "19ab:1000 Bodelin ProScopeHR" },
	{ CAMERA(0x1b3b, 0x2951), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "1b3b:2951 MSI StarCam 370i" },
	{ CAMERA(0x1b3f, 0x2002), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "1b3f:2002 Generalplus Technology Inc. 808 Camera" },
	{ CAMERA(0x1bcf, 0x0b40), .uvc_version = 0x010a,
	  .name = "1bcf:0b40 Shenzhen Aoni Electronic Co.,Ltd 2K FHD camera" },
	{ CAMERA(0x1c4f, 0x3000), .quirks = UVC_QUIRK_PROBE_MINMAX | UVC_QUIRK_IGNORE_SELECTOR_UNIT,
	  .name = "1c4f:3000 SiGma Micro USB Web Camera" },
	{ CAMERA(0x1fc9, 0x009b), .quirks = UVC_QUIRK_PROBE_MINMAX,
	  .name = "1fc9:009b NXP Semiconductors IR VIDEO" },
	{ CAMERA(0x2833, 0x0201), .quirks = UVC_QUIRK_FORCE_Y8,
	  .name = "2833:0201 Oculus VR Positional Tracker DK2" },
	{ VENDOR_CLASS(0x2833, 0x0211), .quirks = UVC_QUIRK_FORCE_Y8,
	  .name = "2833:0211 Oculus VR Rift Sensor" },
	{ CAMERA(0x29fe, 0x4d53), .quirks = UVC_QUIRK_FORCE_BPP,
	  .name = "29fe:4d53 GEO Semiconductor GC6500" },
	{ CAMERA(0x3277, 0x0072), .mapping = &uvc_ctrl_power_line_limited,
	  .name = "3277:0072 Sonix Technology USB 2.0 Camera" },
	{ CAMERA(0x5986, 0x1172), .mapping = &uvc_ctrl_power_line_limited,
	  .name = "5986:1172 Acer EasyCamera" },
	{ CAMERA(0x8086, 0x0b03), .meta_format = V4L2_META_FMT_D4XX,
	  .name = "8086:0b03 Intel RealSense D4M" },
	/* Every other UVC camera: 1.0/1.1 interfaces, then 1.5 ones. */
	{ CLASS_WIDE(UVC_PC_PROTOCOL_UNDEFINED), .name = "generic UVC 1.0/1.1 interface" },
	{ CLASS_WIDE(UVC_PC_PROTOCOL_15), .name = "generic UVC 1.5 interface" },
};
const unsigned uvc_quirk_n_entries = N(uvc_quirk_entries);

/* usb_match_device and usb_match_one_id_intf, for the fields uvcvideo's
 * entries use. */
static int entry_matches(const struct uvc_quirk_entry *e, uint16_t vid, uint16_t pid,
			 uint16_t bcd, uint8_t cls, uint8_t sub, uint8_t proto)
{
	if ((e->match & UVC_ID_MATCH_VENDOR) && e->vid != vid)
		return 0;
	if ((e->match & UVC_ID_MATCH_PRODUCT) && e->pid != pid)
		return 0;
	if ((e->match & UVC_ID_MATCH_DEV_LO) && bcd < e->bcd_lo)
		return 0;
	if ((e->match & UVC_ID_MATCH_DEV_HI) && bcd > e->bcd_hi)
		return 0;
	if ((e->match & UVC_ID_MATCH_INT_CLASS) && e->if_class != cls)
		return 0;
	if ((e->match & UVC_ID_MATCH_INT_SUBCLASS) && e->if_subclass != sub)
		return 0;
	if ((e->match & UVC_ID_MATCH_INT_PROTOCOL) && e->if_protocol != proto)
		return 0;
	return 1;
}

const struct uvc_quirk_entry *uvc_quirks_match(uint16_t vid, uint16_t pid, uint16_t bcd_device,
					       uint8_t if_class, uint8_t if_subclass,
					       uint8_t if_protocol)
{
	for (unsigned i = 0; i < uvc_quirk_n_entries; i++) {
		const struct uvc_quirk_entry *e = &uvc_quirk_entries[i];
		if (entry_matches(e, vid, pid, bcd_device, if_class, if_subclass, if_protocol))
			return e;
	}
	return NULL;
}

uint32_t uvc_quirks_lookup(uint16_t vid, uint16_t pid, uint16_t bcd_device, uint8_t if_class,
			   uint8_t if_subclass, uint8_t if_protocol, const char **entry_name)
{
	const struct uvc_quirk_entry *e =
		uvc_quirks_match(vid, pid, bcd_device, if_class, if_subclass, if_protocol);
	if (entry_name)
		*entry_name = e ? e->name : NULL;
	return e ? e->quirks : 0;
}

/* Our names: uvcvideo's, lower case, without the prefix. */
static const struct {
	uint32_t bit;
	const char *name;
} quirk_names[] = {
	{ UVC_QUIRK_STATUS_INTERVAL, "status_interval" },
	{ UVC_QUIRK_PROBE_MINMAX, "probe_minmax" },
	{ UVC_QUIRK_PROBE_EXTRAFIELDS, "probe_extrafields" },
	{ UVC_QUIRK_BUILTIN_ISIGHT, "builtin_isight" },
	{ UVC_QUIRK_STREAM_NO_FID, "stream_no_fid" },
	{ UVC_QUIRK_IGNORE_SELECTOR_UNIT, "ignore_selector_unit" },
	{ UVC_QUIRK_FIX_BANDWIDTH, "fix_bandwidth" },
	{ UVC_QUIRK_PROBE_DEF, "probe_def" },
	{ UVC_QUIRK_RESTRICT_FRAME_RATE, "restrict_frame_rate" },
	{ UVC_QUIRK_RESTORE_CTRLS_ON_INIT, "restore_ctrls_on_init" },
	{ UVC_QUIRK_FORCE_Y8, "force_y8" },
	{ UVC_QUIRK_FORCE_BPP, "force_bpp" },
	{ UVC_QUIRK_WAKE_AUTOSUSPEND, "wake_autosuspend" },
	{ UVC_QUIRK_NO_RESET_RESUME, "no_reset_resume" },
	{ UVC_QUIRK_DISABLE_AUTOSUSPEND, "disable_autosuspend" },
	{ UVC_QUIRK_INVALID_DEVICE_SOF, "invalid_device_sof" },
	{ UVC_QUIRK_MJPEG_NO_EOF, "mjpeg_no_eof" },
};

const char *uvc_quirk_name(uint32_t bit)
{
	for (unsigned i = 0; i < N(quirk_names); i++)
		if (quirk_names[i].bit == bit)
			return quirk_names[i].name;
	return NULL;
}

/* The bit named by s[0..len), 0 when none. */
static uint32_t quirk_by_name(const char *s, size_t len)
{
	static const char prefix[] = "uvc_quirk_";
	if (len > sizeof(prefix) - 1 && !strncasecmp(s, prefix, sizeof(prefix) - 1)) {
		s += sizeof(prefix) - 1;
		len -= sizeof(prefix) - 1;
	}
	for (unsigned i = 0; i < N(quirk_names); i++)
		if (strlen(quirk_names[i].name) == len && !strncasecmp(s, quirk_names[i].name, len))
			return quirk_names[i].bit;
	return 0;
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A number the way the kernel reads a uint module parameter (kstrtouint
 * with base 0: 0x hex, leading 0 octal, else decimal; one trailing newline
 * allowed, here any trailing blanks). */
static int parse_number(const char *s, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || v > UINT32_MAX)
		return -EINVAL;
	while (blank(*end))
		end++;
	if (*end)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int uvc_quirks_parse(const char *list, uint32_t *out)
{
	const char *s = list;
	while (blank(*s))
		s++;
	/* A leading digit means a number: strtoull alone would also take a
	 * sign or blanks, which quirks= does not. */
	if (isdigit((unsigned char)*s))
		return parse_number(s, out);

	size_t n = strlen(s);
	while (n && blank(s[n - 1]))
		n--;
	if (n == 0 || (n == 4 && !strncasecmp(s, "none", 4))) {
		*out = 0;
		return 0;
	}
	uint32_t q = 0;
	const char *end = s + n;
	while (s <= end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *item_end = comma ? comma : end;
		const char *a = s, *b = item_end;
		while (a < b && blank(*a))
			a++;
		while (b > a && blank(b[-1]))
			b--;
		uint32_t bit = quirk_by_name(a, (size_t)(b - a));
		if (!bit)
			return -EINVAL; /* unknown or empty name */
		q |= bit;
		s = item_end + 1;
	}
	*out = q;
	return 0;
}

int uvc_quirks_format(uint32_t quirks, char *buf, unsigned size)
{
	if (quirks == 0)
		return snprintf(buf, size, "none");
	if (quirks & ~UVC_QUIRKS_KNOWN)
		return snprintf(buf, size, "0x%x", (unsigned)quirks);
	int total = 0;
	for (unsigned i = 0; i < N(quirk_names); i++) {
		if (!(quirks & quirk_names[i].bit))
			continue;
		size_t used = (size_t)total < size ? (size_t)total : size;
		int r = snprintf(buf ? buf + used : NULL, size - used, "%s%s", total ? "," : "",
				 quirk_names[i].name);
		if (r < 0)
			return r;
		total += r;
	}
	return total;
}

/* Bits per pixel as the 6.1 core's format table gives them (FORCE_BPP),
 * for the fourccs our GUID table makes; 0: left as the descriptor says. */
static unsigned fourcc_bpp(uint32_t fourcc)
{
	switch (fourcc) {
	case V4L2_PIX_FMT_GREY:
	case V4L2_PIX_FMT_SBGGR8:
	case V4L2_PIX_FMT_SGBRG8:
	case V4L2_PIX_FMT_SGRBG8:
	case V4L2_PIX_FMT_SRGGB8:
		return 8;
	case V4L2_PIX_FMT_NV12:
	case V4L2_PIX_FMT_YUV420:
	case V4L2_PIX_FMT_YVU420:
	case V4L2_PIX_FMT_M420:
		return 12;
	case V4L2_PIX_FMT_YUYV:
	case V4L2_PIX_FMT_UYVY:
	case V4L2_PIX_FMT_Y16:
	case V4L2_PIX_FMT_RGB565:
	case V4L2_PIX_FMT_Z16:
		return 16;
	case V4L2_PIX_FMT_BGR24:
		return 24;
	case V4L2_PIX_FMT_XBGR32:
		return 32;
	default:
		return 0;
	}
}

int uvc_quirks_apply(struct uvc_camera *cam, const struct uvc_quirk_entry *entry,
		     uint32_t quirks)
{
	cam->quirks = quirks;
	if (entry && entry->uvc_version)
		cam->bcd_uvc = entry->uvc_version;
	cam->custom_mapping = entry ? entry->mapping : NULL;
	for (unsigned s = 0; s < cam->n_streams; s++) {
		struct uvc_streaming *vs = &cam->streams[s];
		vs->quirks = quirks;
		for (unsigned f = 0; f < vs->n_formats; f++) {
			struct uvc_format *fmt = &vs->formats[f];
			unsigned widen = 1;
			if ((quirks & UVC_QUIRK_FORCE_Y8) && fmt->fourcc == V4L2_PIX_FMT_YUYV) {
				fmt->fourcc = V4L2_PIX_FMT_GREY;
				fmt->bpp = 8;
				widen = 2;
			}
			if ((quirks & UVC_QUIRK_FORCE_BPP) && fourcc_bpp(fmt->fourcc))
				fmt->bpp = (uint8_t)fourcc_bpp(fmt->fourcc);
			for (unsigned k = 0; k < fmt->n_frames; k++) {
				struct uvc_frame *fr = &fmt->frames[k];
				fr->width = (uint16_t)(fr->width * widen);
				/* as the parser, from the (forced) bpp */
				if (fmt->kind == UVC_FORMAT_UNCOMPRESSED)
					fr->max_buffer_size = (uint32_t)((uint64_t)fmt->bpp * fr->width *
									 fr->height / 8);
				if (!(quirks & UVC_QUIRK_RESTRICT_FRAME_RATE))
					continue;
				/* the default, kept between the first and the last
				 * interval listed (uvcvideo's clamp) */
				uint32_t lo = fr->continuous ? fr->range.min
					      : fr->n_intervals ? fr->intervals[0] : fr->default_interval;
				uint32_t hi = fr->continuous ? fr->range.max
					      : fr->n_intervals ? fr->intervals[fr->n_intervals - 1]
								: fr->default_interval;
				uint32_t def = fr->default_interval > lo ? fr->default_interval : lo;
				if (def > hi)
					def = hi;
				if (!fr->intervals) {
					fr->intervals = malloc(sizeof(*fr->intervals));
					if (!fr->intervals)
						return -ENOMEM;
				}
				fr->intervals[0] = def;
				fr->n_intervals = 1;
				fr->continuous = false;
			}
		}
	}
	return 0;
}

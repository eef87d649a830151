/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcvideo's (Linux 6.1) device table and quirk flags as data: which USB
 * interfaces the driver binds to, and what it does differently for the
 * cameras it lists. Pure: no I/O, no allocation.
 *
 * Source of the facts: drivers/media/usb/uvc/ of Debian 12's
 * linux-source-6.1 6.1.192 (uvc_ids[] and the uvc_device_info values in
 * uvc_driver.c, the UVC_QUIRK_* bits in uvcvideo.h, and every test of
 * dev->quirks); the table is the same in 6.1.158. The USB core's matching
 * (drivers/usb/core/driver.c: usb_match_id, usb_match_device,
 * usb_match_one_id_intf) decides which entry a device gets: the first one
 * that matches, in table order.
 *
 * How uvcvideo uses a matched entry (uvc_driver.c: uvc_probe): the quirks
 * are the entry's unless the module's quirks= parameter is set, which then
 * REPLACES them for every camera (it is not OR-ed in; 0xffffffff, the
 * default, means "not set"). The entry's other fields (forced bcdUVC,
 * metadata format, custom control mapping) stay in force either way.
 *
 * Where 6.1 acts on each quirk, and what a userspace driver does to match:
 *
 *   status_interval (0x1) uvc_status.c: uvc_status_init: a high-speed
 *     interrupt bInterval above 16 is taken as a frame count (log2 of it).
 *     Dead in practice: the USB core already rewrites out-of-range
 *     high-speed bIntervals when it parses the descriptors
 *     (usb/core/config.c), and usbfs polls at the core's value. Nothing
 *     to do.
 *   probe_minmax (0x2) uvc_video.c: uvc_probe_video: no GET_MIN/GET_MAX
 *     on the probe control. (Its -ENOSPC for a camera asking more than the
 *     largest alternate setting never fires: uvc_fixup_video_ctrl already
 *     cut every GET_CUR answer to that setting.) -> src/uvc/negotiate.c.
 *   probe_extrafields (0x4) uvc_v4l2.c: uvc_v4l2_try_format: the probe
 *     sent for a format carries the current dwMaxVideoFrameSize instead of
 *     0 (these cameras stall on 0). -> the probe the node builds.
 *   builtin_isight (0x8) uvc_driver.c: uvc_parse_control: the interrupt
 *     endpoint is not used as a status endpoint; uvc_video.c:
 *     uvc_video_init: payloads are decoded by uvc_isight.c (one header
 *     packet per image, marked by 11 22 33 44 de ad be ef de ad fa ce at
 *     byte 2 or 3, then raw data packets). -> no status polling, and a
 *     second payload decoder in src/uvc/payload.c.
 *   stream_no_fid (0x10) uvc_video.c: uvc_video_decode_start and
 *     uvc_video_decode_end: the expected FID is flipped at every EOF (the
 *     camera never toggles FID), also when an out-of-sync payload with
 *     EOF is dropped. -> frame assembly in src/uvc/payload.c.
 *   ignore_selector_unit (0x20) uvc_v4l2.c: uvc_ioctl_enum_input,
 *     _g_input, _s_input: act as if the chain had no selector unit: one
 *     input (the chain's first input terminal), no SU requests. -> the
 *     node's input ioctls.
 *   fix_bandwidth (0x80) uvc_video.c: uvc_fixup_video_ctrl: for
 *     uncompressed formats on isochronous interfaces (more than one
 *     alternate setting) dwMaxPayloadTransferSize is replaced by
 *     w * h / 8 * bpp * (10^7 / interval + 1) / 1000, divided by 8 at
 *     high speed and above, plus 12, at least 1024 (interval: the probe's
 *     dwFrameInterval when above 100000, else the frame's first one).
 *     -> the probe repairs (src/usb/, src/uvc/negotiate.c).
 *   probe_def (0x100) uvc_video.c: uvc_get_video_ctrl: GET_DEF on the
 *     probe control is never sent (taken as failed, so uvc_video_init
 *     keeps the camera's current values via GET_CUR). -> stream start-up.
 *   restrict_frame_rate (0x200) uvc_driver.c: uvc_parse_format: every
 *     frame offers only its (clamped) default interval, as one discrete
 *     interval. -> src/uvc/descriptors.c.
 *   restore_ctrls_on_init (0x400) uvc_video.c: uvc_video_start_transfer:
 *     once the stream's URBs are submitted, every control with the RESTORE
 *     flag that an application changed is written again (SET_CUR)
 *     (uvc_ctrl.c: uvc_ctrl_restore_values). -> after STREAMON.
 *   force_y8 (0x800) uvc_driver.c: uvc_parse_format: YUYV formats become
 *     GREY with 8 bpp and every frame of them twice as wide.
 *     -> src/uvc/descriptors.c.
 *   force_bpp (0x1000) uvc_driver.c: uvc_parse_format: the format's bpp is
 *     computed from the fourcc (V4L2 format info: all planes, rounded up)
 *     instead of bBitsPerPixel; bytesperline and frame-based buffer sizes
 *     follow. -> src/uvc/descriptors.c.
 *   wake_autosuspend (0x2000) uvc_video.c: uvc_video_start_transfer: on
 *     isochronous start the chosen alternate setting is selected, then 0,
 *     then the chosen one again (these cameras miss a resume otherwise).
 *     -> the same three SET_INTERFACE requests at stream start.
 *   no_reset_resume (0x4000), disable_autosuspend (0x8000),
 *   invalid_device_sof (0x10000): defined by 6.1.192's uvcvideo.h (they
 *     came in with the backport of mjpeg_no_eof) but nothing in 6.1 tests
 *     them, so they do nothing there even through quirks=. (Mainline:
 *     clear the device's USB reset-resume quirk; skip enabling
 *     autosuspend; use the host's SOF counter for clock recovery.) Nothing
 *     to do.
 *   mjpeg_no_eof (0x20000) uvc_video.c: uvc_video_decode_start: on an
 *     MJPEG/JPEG stream, a payload whose data starts with a JPEG SOI
 *     (ff d8) while the current buffer holds data ends that buffer,
 *     flagged as an error, and flips the expected FID. Since 6.1.187; no
 *     table entry sets it in 6.1 (quirks= only). -> src/uvc/payload.c.
 *
 * The entries' other fields (6.1's uvc_device_info):
 *   mapping: uvc_ctrl.c: uvc_ctrl_init_ctrl: a custom mapping replaces
 *     every standard mapping (common and per-bcdUVC) of the control it
 *     names; in 6.1 only uvc_ctrl_power_line_limited (50/60 Hz, no
 *     "Disabled"), for 8 cameras. -> src/v4l2/controls.c.
 *   uvc_version: uvc_probe: bcdUVC taken as this value instead of the
 *     descriptor's (probe size, power line menu, ...); one camera, 1.0a.
 *   meta_format: uvc_metadata.c: the metadata node offers this format as
 *     its second one, after V4L2_META_FMT_UVC; one camera (D4XX).
 *
 * Device-specific behaviour of 6.1 outside the table (not implemented
 * here; matched on vendor and product only, any interface):
 *   uvc_ctrl.c: uvc_ctrl_fixup_xu_info: extension unit 9, selector 1 gets
 *     the flags GET_MIN|GET_MAX|GET_DEF|SET_CUR|AUTO_UPDATE whatever
 *     GET_INFO says, on 046d:08c2, 046d:08cc, 046d:0994 (Logitech).
 *   uvc_ctrl.c: uvc_ctrl_prune_entity: bmControls bits cleared before the
 *     controls are built: processing unit bit 9 (gain) on 13d3:509b, bit 6
 *     (white balance temperature) on 1c4f:3000, bit 2 (hue) on 5986:0241;
 *     camera terminal bit 9 (zoom absolute) on 06f8:3005.
 *   uvc_video.c: uvc_fixup_video_ctrl: on 0fd9:0066 (Elgato Cam Link 4K)
 *     a probe answer with bmHint > 255 is read as bFormatIndex = bmHint
 *     >> 8, bmHint = 1.
 *   uvc_driver.c: uvc_parse_vendor_control: on vendor 046d (Logitech) a
 *     class-specific descriptor of type 0x41 subtype 0x01 is parsed as an
 *     extension unit (Logitech's LXU layout).
 *   The power line control limited to 50/60 Hz is no list in uvc_ctrl.c
 *   in 6.1.158/6.1.192: it is table data (the `mapping` field above).
 * Repairs 6.1 applies to every camera by content (sign-extended
 * dwMaxPayloadTransferSize, payload size above the endpoint's, 2-byte
 * GET_MIN/MAX answers, failing GET_DEF) live in src/uvc/negotiate.c. */
#ifndef UVC_QUIRKS_H
#define UVC_QUIRKS_H

#include <stdint.h>

#include "uvc/ctrl_map.h"

/* What uvcuse does with, in src/uvc/ (quirks.c, negotiate.c, payload.c)
 * and at start-up: probe_minmax, probe_def, probe_extrafields (v4l2/node.c:
 * a format's probe carries the current dwMaxVideoFrameSize), fix_bandwidth
 * (per microframe, per frame at full speed), restrict_frame_rate, force_y8,
 * force_bpp, stream_no_fid (the frame assembler), restore_ctrls_on_init
 * (device.c: the controls apps set are sent again once the stream has
 * started), ignore_selector_unit (uvcuse never addresses a selector unit:
 * one input, as with the quirk; a selector with several inputs is one input
 * short of uvcvideo without it), and the entries' bcdUVC and power line
 * mapping. The others are accepted and logged as not applied
 * (UVC_QUIRKS_APPLIED); status_interval cannot be: the kernel schedules a
 * usbfs interrupt transfer by the endpoint's own bInterval. */
#define UVC_QUIRKS_APPLIED 0x00001fb6u

/* uvcvideo 6.1's quirk bits, same values (its quirks= module parameter
 * and our configuration take them as numbers too). 0x40 is unused. */
enum uvc_quirk {
	UVC_QUIRK_STATUS_INTERVAL = 0x00000001,       /* interrupt bInterval in frames */
	UVC_QUIRK_PROBE_MINMAX = 0x00000002,          /* no GET_MIN/MAX on the probe */
	UVC_QUIRK_PROBE_EXTRAFIELDS = 0x00000004,     /* probe carries dwMaxVideoFrameSize */
	UVC_QUIRK_BUILTIN_ISIGHT = 0x00000008,        /* Apple iSight payloads, no status */
	UVC_QUIRK_STREAM_NO_FID = 0x00000010,         /* frames end at EOF only */
	UVC_QUIRK_IGNORE_SELECTOR_UNIT = 0x00000020,  /* one input, no SU requests */
	UVC_QUIRK_FIX_BANDWIDTH = 0x00000080,         /* estimate payload size ourselves */
	UVC_QUIRK_PROBE_DEF = 0x00000100,             /* no GET_DEF on the probe */
	UVC_QUIRK_RESTRICT_FRAME_RATE = 0x00000200,   /* default interval only */
	UVC_QUIRK_RESTORE_CTRLS_ON_INIT = 0x00000400, /* rewrite controls after start */
	UVC_QUIRK_FORCE_Y8 = 0x00000800,              /* YUYV is really GREY */
	UVC_QUIRK_FORCE_BPP = 0x00001000,             /* bpp from the fourcc */
	UVC_QUIRK_WAKE_AUTOSUSPEND = 0x00002000,      /* toggle the alt setting at start */
	UVC_QUIRK_NO_RESET_RESUME = 0x00004000,       /* 6.1: defined, unused */
	UVC_QUIRK_DISABLE_AUTOSUSPEND = 0x00008000,   /* 6.1: defined, unused */
	UVC_QUIRK_INVALID_DEVICE_SOF = 0x00010000,    /* 6.1: defined, unused */
	UVC_QUIRK_MJPEG_NO_EOF = 0x00020000,          /* a JPEG SOI ends the frame */
};

/* Every bit above. */
#define UVC_QUIRKS_KNOWN 0x0003ffbfu

/* What an entry compares, as the USB core's USB_DEVICE_ID_MATCH_* bits
 * (same values). Device class fields are never used by uvcvideo. */
enum uvc_id_match {
	UVC_ID_MATCH_VENDOR = 0x0001,
	UVC_ID_MATCH_PRODUCT = 0x0002,
	UVC_ID_MATCH_DEV_LO = 0x0004,       /* bcdDevice >= bcd_lo */
	UVC_ID_MATCH_DEV_HI = 0x0008,       /* bcdDevice <= bcd_hi */
	UVC_ID_MATCH_INT_CLASS = 0x0080,
	UVC_ID_MATCH_INT_SUBCLASS = 0x0100,
	UVC_ID_MATCH_INT_PROTOCOL = 0x0200,
};

/* One entry of uvc_ids[]. The interface fields are those of the interface
 * uvcvideo is offered: the VideoControl one (subclass 1). */
struct uvc_quirk_entry {
	uint16_t match;                 /* UVC_ID_MATCH_* */
	uint16_t vid, pid;
	uint16_t bcd_lo, bcd_hi;        /* bcdDevice range (inclusive) */
	uint8_t if_class, if_subclass, if_protocol;
	uint32_t quirks;                /* enum uvc_quirk bits */
	/* The rest of 6.1's uvc_device_info (0/NULL: none). */
	const struct uvc_ctrl_mapping *mapping; /* replaces the standard mappings
						 * of its control */
	uint16_t uvc_version;           /* bcdUVC to use instead of the descriptor's */
	uint32_t meta_format;           /* second metadata format (V4L2 fourcc) */
	/* "vvvv:pppp Product" as uvcvideo's comment names it; for the two
	 * class-wide entries, "generic ..." */
	const char *name;
};

/* The table, in uvc_ids[] order: 67 cameras, then the two class-wide
 * entries (class 0x0e subclass 1, protocol 0 and protocol 1). */
extern const struct uvc_quirk_entry uvc_quirk_entries[];
extern const unsigned uvc_quirk_n_entries;

/* The first entry matching an interface of a device, as the USB core
 * matches uvcvideo's table; NULL when uvcvideo would not bind to it.
 * One thing the arguments cannot tell: the core never lets an entry
 * without a vendor (the two class-wide ones) match a device whose
 * bDeviceClass is 0xff; the caller checks that. */
const struct uvc_quirk_entry *uvc_quirks_match(uint16_t vid, uint16_t pid, uint16_t bcd_device,
					       uint8_t if_class, uint8_t if_subclass,
					       uint8_t if_protocol);

/* The quirks of the first matching entry, 0 when none matches.
 * entry_name (may be NULL) gets that entry's name, or NULL. */
uint32_t uvc_quirks_lookup(uint16_t vid, uint16_t pid, uint16_t bcd_device, uint8_t if_class,
			   uint8_t if_subclass, uint8_t if_protocol, const char **entry_name);

struct uvc_camera;

/* Makes a parsed camera what uvcvideo makes of it with these quirks and
 * this table entry (NULL: none): the entry's forced bcdUVC and control
 * mapping; RESTRICT_FRAME_RATE (each frame offers its default interval
 * only), FORCE_Y8 (YUYV frames are GREY of twice the width), FORCE_BPP
 * (bits per pixel from the fourcc); and the quirks themselves, kept in the
 * camera and its streams for the negotiation and the payloads. -ENOMEM. */
int uvc_quirks_apply(struct uvc_camera *cam, const struct uvc_quirk_entry *entry,
		     uint32_t quirks);

/* Our name of one quirk bit ("probe_minmax"), NULL for anything that is
 * not exactly one known bit. */
const char *uvc_quirk_name(uint32_t bit);

/* A configuration value: a comma-separated list of quirk names
 * ("probe_minmax,fix_bandwidth"; case and an "uvc_quirk_" prefix do not
 * matter, blanks around names are skipped), "none" or an empty string for
 * 0, or a number as uvcvideo's quirks= takes it ("0x80", "128": C
 * prefixes, any 32-bit value). 0, or -EINVAL with *out untouched. */
int uvc_quirks_parse(const char *list, uint32_t *out);

/* The text uvc_quirks_parse reads back to the same value, for logs:
 * "none", the names in bit order, or "0x..." when a bit has no name.
 * snprintf's contract: returns the length it needed. */
int uvc_quirks_format(uint32_t quirks, char *buf, unsigned size);

#endif

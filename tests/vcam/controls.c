/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual camera's control model: a table of controls, as uvcvideo keeps
 * one, and the request semantics of UVC 1.1/1.5 chapter 4. See controls.h.
 *
 * What is offered, and what is left out (facts from Linux 6.1.192, Debian
 * 12's kernel, drivers/media/usb/uvc/uvc_ctrl.c):
 *  - Only controls with a uvc_ctrl_mappings entry: scanning mode, exposure
 *    time relative, focus relative, roll, digital multiplier (+limit), analog
 *    video standard/lock status and UVC 1.5 contrast auto have none, so
 *    `v4l2-ctl --list-ctrls-menus` would not show them.
 *  - Not iris relative: uvcvideo's uvc_ctrls entry has no GET_MIN/MAX/RES
 *    flags, so its V4L2 control reports step 0, which v4l2-compliance fails.
 *  - Not white balance component auto: uvcvideo maps it and white balance
 *    temperature auto to the same V4L2_CID_AUTO_WHITE_BALANCE, and the second
 *    mapping is never enumerated. The camera instead has one AWB loop,
 *    switched by white balance temperature auto, that drives both white
 *    balance temperature and white balance component (uvcvideo, finding the
 *    master of red/blue balance by ID in the same unit, agrees).
 *
 * Auto/manual pairs. uvcvideo 6.1 (uvc_ctrl_is_accessible) refuses
 * VIDIOC_S_CTRL/S_EXT_CTRLS of hue, white balance temperature, red/blue
 * balance, exposure time absolute and focus absolute with EACCES while their
 * master (hue auto, WB auto, AE mode, focus auto) is not manual, unless the
 * same S_EXT_CTRLS switches the master to manual. In that last case it
 * commits in bmControls bit order, so hue (bit 2), WB temperature (6), WB
 * component (7) and focus absolute (5) reach the device BEFORE their auto
 * control (11, 12, 12, 17) is switched off; the same order is used when it
 * restores controls after resume. A camera that STALLed such a SET_CUR would
 * make that legitimate ioctl fail (and roll it back); one that dropped it
 * would lose the value. So this camera does what UVC 1.1 says ("attempts to
 * programmatically set the auto-adjusted control are ignored") for the
 * picture, but keeps the value as the manual setting: SET_CUR is accepted,
 * GET_CUR keeps returning the value the automatic loop uses, GET_INFO has
 * D2 (disabled due to automatic mode) set, and when the automatic mode is
 * switched off the stored manual setting is in use again. uvcvideo reads
 * GET_INFO once at probe, so D1 (SET supported) stays set throughout.
 * v4l2-compliance 1.22.1 (Debian 12) sets every control, inactive or not, and
 * fails on EACCES (the is_uvcvideo exemption came in v4l-utils 1.24), so
 * every automatic mode defaults to manual, and the AE mode menu offers
 * Manual as its last item (its menu test leaves the last valid item set). */
#include "controls.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

const uint8_t vcam_xu_guid[16] = {
	0x6d, 0x61, 0x63, 0x76, 0x63, 0x75, 0x73, 0x45,
	0x8d, 0x1e, 0x3c, 0x5a, 0x9f, 0x2b, 0x6e, 0x01,
};

const uint8_t vcam_msxu_guid[16] = {
	0xdc, 0x95, 0x3f, 0x0f, 0x32, 0x26, 0x4e, 0x4c,
	0x92, 0xc9, 0xa0, 0x47, 0x82, 0xf4, 0x3b, 0xc8,
};

/* UVC 1.5's processing unit selector 0x13, which <linux/usb/video.h> lacks. */
#define PU_CONTRAST_AUTO_CONTROL 0x13

#define NS_PER_SEC 1000000000ull
#define LOOP_PERIOD_NS NS_PER_SEC          /* automatic loops step once a second */
#define MOTION_PERIOD_NS (NS_PER_SEC / 10) /* relative motion steps every 100 ms */
#define MAX_CATCH_UP 1000                  /* steps applied by one tick at most */

#define MAX_FIELDS 4
#define MAX_SIZE 8

/* Requests a control supports, one bit per request code. */
enum {
	RQ_SET = 1u << 0,
	RQ_CUR = 1u << 1,
	RQ_MIN = 1u << 2,
	RQ_MAX = 1u << 3,
	RQ_RES = 1u << 4,
	RQ_LEN = 1u << 5,
	RQ_INFO = 1u << 6,
	RQ_DEF = 1u << 7,
};
/* The spec's request sets (GET_LEN added to every unit/terminal control). */
#define RQ_RANGE (RQ_SET | RQ_CUR | RQ_MIN | RQ_MAX | RQ_RES | RQ_DEF | RQ_INFO | RQ_LEN)
#define RQ_SWITCH (RQ_SET | RQ_CUR | RQ_DEF | RQ_INFO | RQ_LEN) /* auto controls, PLF */
#define RQ_FLAG (RQ_SET | RQ_CUR | RQ_INFO | RQ_LEN)            /* AE priority, privacy */
#define RQ_AE (RQ_SET | RQ_CUR | RQ_RES | RQ_DEF | RQ_INFO | RQ_LEN)
#define RQ_READ_RANGE (RQ_CUR | RQ_MIN | RQ_MAX | RQ_RES | RQ_DEF | RQ_INFO | RQ_LEN)

#define CAP_RW (UVC_CONTROL_CAP_GET | UVC_CONTROL_CAP_SET)
#define CAP_RO UVC_CONTROL_CAP_GET
#define CAP_AUTO UVC_CONTROL_CAP_AUTOUPDATE

enum kind {
	K_VALUE,      /* fields with MIN/MAX/RES/DEF */
	K_AE_MODE,    /* one-bit mode; GET_RES = bitmap of supported modes */
	K_RELATIVE,   /* direction/speed fields driving an absolute control */
	K_COUNTER,    /* read-only request counter */
	K_POWER_MODE, /* VC_VIDEO_POWER_MODE_CONTROL */
	K_ERROR_CODE, /* VC_REQUEST_ERROR_CODE_CONTROL */
};

/* AE mode values (bmAutoExposureMode). */
enum { AE_MANUAL = 0x01, AE_AUTO = 0x02, AE_SHUTTER_PRIORITY = 0x04, AE_APERTURE_PRIORITY = 0x08 };
#define AE_SUPPORTED (AE_MANUAL | AE_AUTO)

/* bDevicePowerMode: full power, powered by the bus (D5), no device dependent
 * power mode (D4 = 0). */
#define POWER_FULL 0x00
#define POWER_DEVICE_DEPENDENT 0x01
#define POWER_SOURCE_BUS 0x20

struct field {
	uint8_t offset, size;
	bool is_signed;
	int64_t min, max, res, def;
};

struct axis {
	uint8_t dir, speed; /* fields of the relative control */
	uint8_t target;     /* field of the absolute control it moves */
};

struct spec {
	enum vcam_entity entity;
	uint8_t selector;
	int8_t bit; /* bmControls bit, -1 for interface controls */
	const char *name;
	enum kind kind;
	uint8_t size;
	uint8_t requests;
	uint8_t caps; /* GET_INFO without D2 */
	bool picture; /* the frame generator depends on it */
	uint8_t nfields;
	struct field f[MAX_FIELDS];
	int64_t max_uvc15; /* field 0's max under UVC 1.5, 0: the same */
	/* Taken over by an automatic mode: while (master's value & auto_mask). */
	int8_t master;
	uint8_t auto_mask;
	/* The automatic loop's triangle wave on field 0 (step 0: none). */
	int64_t loop_lo, loop_hi, loop_step;
	/* The automatic value derived from other controls instead of a loop. */
	void (*derive)(const struct vcam_controls *c, int64_t out[MAX_FIELDS]);
	/* K_RELATIVE: the absolute control it moves. */
	int8_t target;
	uint8_t naxes;
	struct axis ax[2];
	bool impersonation_only; /* not part of the vcam's own profiles */
	bool msxu_only;          /* offered with vcam_controls_enable_msxu() */
};

/* One line per control, in table order. */
enum {
	C_BRIGHTNESS,
	C_CONTRAST,
	C_HUE,
	C_SATURATION,
	C_SHARPNESS,
	C_GAMMA,
	C_WB_TEMPERATURE,
	C_WB_COMPONENT,
	C_BACKLIGHT,
	C_GAIN,
	C_POWER_LINE,
	C_HUE_AUTO,
	C_WB_TEMPERATURE_AUTO,
	C_AE_MODE,
	C_AE_PRIORITY,
	C_EXPOSURE,
	C_FOCUS,
	C_IRIS,
	C_ZOOM,
	C_ZOOM_RELATIVE,
	C_PANTILT,
	C_PANTILT_RELATIVE,
	C_FOCUS_AUTO,
	C_PRIVACY,
	/* Offered only when impersonating a camera whose bmControls has them
	 * (vcam_controls_new_masked()): uvcvideo has no V4L2 mapping for most
	 * of them, but queries GET_INFO of each at probe. */
	C_SCANNING_MODE,
	C_EXPOSURE_RELATIVE,
	C_FOCUS_RELATIVE,
	C_IRIS_RELATIVE,
	C_ROLL,
	C_ROLL_RELATIVE,
	C_WB_COMPONENT_AUTO,
	C_DIGITAL_MULTIPLIER,
	C_DIGITAL_MULTIPLIER_LIMIT,
	C_ANALOG_STANDARD,
	C_ANALOG_LOCK,
	C_CONTRAST_AUTO,
	C_XU_LED_MODE,
	C_XU_TEST_PATTERN,
	C_XU_REQUEST_COUNTER,
	C_XU_MSXU_METADATA, /* with --msxu only */
	C_POWER_MODE,
	C_ERROR_CODE,
	N_CONTROLS
};

#define FIELD(off, sz, sg, mn, mx, rs, df)                                        \
	{ .offset = (off), .size = (sz), .is_signed = (sg), .min = (mn), .max = (mx), \
	  .res = (rs), .def = (df) }
#define ONE(sz, sg, mn, mx, rs, df) \
	.size = (sz), .nfields = 1, .f = { FIELD(0, sz, sg, mn, mx, rs, df) }
#define SWITCH(df) .kind = K_VALUE, ONE(1, false, 0, 1, 1, df)

#define PU(sel, b, nm) .entity = VCAM_ENTITY_PROCESSING, .selector = (sel), .bit = (b), .name = (nm)
#define CT(sel, b, nm) .entity = VCAM_ENTITY_CAMERA, .selector = (sel), .bit = (b), .name = (nm)
#define XU(sel, nm) \
	.entity = VCAM_ENTITY_EXTENSION, .selector = (sel), .bit = (sel) - 1, .name = (nm)
#define VC(sel, nm) .entity = VCAM_ENTITY_INTERFACE, .selector = (sel), .bit = -1, .name = (nm)

#define NO_MASTER .master = -1, .target = -1
#define SLAVE(m, mask) .master = (m), .auto_mask = (mask), .target = -1
#define LOOP(lo, hi, step) .loop_lo = (lo), .loop_hi = (hi), .loop_step = (step)

static void derive_wb_component(const struct vcam_controls *c, int64_t out[MAX_FIELDS]);

/* Ranges of a typical 720p/1080p webcam. Units: exposure 100 us, WB kelvin,
 * iris f-number * 100, pan/tilt arc seconds (res 3600 = 1 degree), zoom and
 * focus the camera's own steps. */
static const struct spec specs[N_CONTROLS] = {
	[C_BRIGHTNESS] = { PU(UVC_PU_BRIGHTNESS_CONTROL, 0, "brightness"), .kind = K_VALUE,
			   ONE(2, true, -64, 64, 1, 0), .requests = RQ_RANGE, .caps = CAP_RW,
			   .picture = true, NO_MASTER },
	[C_CONTRAST] = { PU(UVC_PU_CONTRAST_CONTROL, 1, "contrast"), .kind = K_VALUE,
			 ONE(2, false, 0, 100, 1, 50), .requests = RQ_RANGE, .caps = CAP_RW, NO_MASTER },
	[C_HUE] = { PU(UVC_PU_HUE_CONTROL, 2, "hue"), .kind = K_VALUE, ONE(2, true, -180, 180, 1, 0),
		    .requests = RQ_RANGE, .caps = CAP_RW | CAP_AUTO, SLAVE(C_HUE_AUTO, 1),
		    LOOP(-6, 6, 2) },
	[C_SATURATION] = { PU(UVC_PU_SATURATION_CONTROL, 3, "saturation"), .kind = K_VALUE,
			   ONE(2, false, 0, 100, 1, 60), .requests = RQ_RANGE, .caps = CAP_RW,
			   NO_MASTER },
	[C_SHARPNESS] = { PU(UVC_PU_SHARPNESS_CONTROL, 4, "sharpness"), .kind = K_VALUE,
			  ONE(2, false, 0, 7, 1, 3), .requests = RQ_RANGE, .caps = CAP_RW, NO_MASTER },
	[C_GAMMA] = { PU(UVC_PU_GAMMA_CONTROL, 5, "gamma"), .kind = K_VALUE,
		      ONE(2, false, 72, 500, 1, 100), .requests = RQ_RANGE, .caps = CAP_RW, NO_MASTER },
	[C_WB_TEMPERATURE] = { PU(UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 6,
				  "white_balance_temperature"),
			       .kind = K_VALUE, ONE(2, false, 2800, 6500, 10, 4600),
			       .requests = RQ_RANGE, .caps = CAP_RW | CAP_AUTO,
			       SLAVE(C_WB_TEMPERATURE_AUTO, 1), LOOP(4000, 5600, 50) },
	[C_WB_COMPONENT] = { PU(UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, 7, "white_balance_component"),
			     .kind = K_VALUE, .size = 4, .nfields = 2,
			     .f = { FIELD(0, 2, false, 0, 1023, 1, 512),    /* blue */
				    FIELD(2, 2, false, 0, 1023, 1, 512) }, /* red */
			     .requests = RQ_RANGE, .caps = CAP_RW | CAP_AUTO,
			     SLAVE(C_WB_TEMPERATURE_AUTO, 1), .derive = derive_wb_component },
	[C_BACKLIGHT] = { PU(UVC_PU_BACKLIGHT_COMPENSATION_CONTROL, 8, "backlight_compensation"),
			  .kind = K_VALUE, ONE(2, false, 0, 2, 1, 1), .requests = RQ_RANGE,
			  .caps = CAP_RW, NO_MASTER },
	[C_GAIN] = { PU(UVC_PU_GAIN_CONTROL, 9, "gain"), .kind = K_VALUE, ONE(2, false, 0, 100, 1, 0),
		     .requests = RQ_RANGE, .caps = CAP_RW, NO_MASTER },
	/* 0 disabled, 1 50 Hz, 2 60 Hz; UVC 1.5 adds 3 auto. */
	[C_POWER_LINE] = { PU(UVC_PU_POWER_LINE_FREQUENCY_CONTROL, 10, "power_line_frequency"),
			   .kind = K_VALUE, ONE(1, false, 0, 2, 1, 1), .max_uvc15 = 3,
			   .requests = RQ_SWITCH, .caps = CAP_RW, NO_MASTER },
	[C_HUE_AUTO] = { PU(UVC_PU_HUE_AUTO_CONTROL, 11, "hue_auto"), SWITCH(0), .requests = RQ_SWITCH,
			 .caps = CAP_RW, NO_MASTER },
	[C_WB_TEMPERATURE_AUTO] = { PU(UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, 12,
				       "white_balance_temperature_auto"),
				    SWITCH(0), .requests = RQ_SWITCH, .caps = CAP_RW, NO_MASTER },

	/* GET_RES is the bitmap of supported modes, GET_DEF the default mode. */
	[C_AE_MODE] = { CT(UVC_CT_AE_MODE_CONTROL, 1, "ae_mode"), .kind = K_AE_MODE,
			ONE(1, false, AE_MANUAL, AE_APERTURE_PRIORITY, AE_SUPPORTED, AE_MANUAL),
			.requests = RQ_AE, .caps = CAP_RW, NO_MASTER },
	/* 0: constant frame rate, 1: the frame rate may vary. No GET_DEF. */
	[C_AE_PRIORITY] = { CT(UVC_CT_AE_PRIORITY_CONTROL, 2, "ae_priority"), SWITCH(0),
			    .requests = RQ_FLAG, .caps = CAP_RW, NO_MASTER },
	[C_EXPOSURE] = { CT(UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, 3, "exposure_time_absolute"),
			 .kind = K_VALUE, ONE(4, false, 3, 2047, 1, 156), .requests = RQ_RANGE,
			 .caps = CAP_RW | CAP_AUTO, SLAVE(C_AE_MODE, AE_AUTO | AE_APERTURE_PRIORITY),
			 LOOP(100, 220, 4) },
	[C_FOCUS] = { CT(UVC_CT_FOCUS_ABSOLUTE_CONTROL, 5, "focus_absolute"), .kind = K_VALUE,
		      ONE(2, false, 0, 250, 5, 0), .requests = RQ_RANGE, .caps = CAP_RW | CAP_AUTO,
		      SLAVE(C_FOCUS_AUTO, 1), LOOP(30, 60, 5) },
	[C_IRIS] = { CT(UVC_CT_IRIS_ABSOLUTE_CONTROL, 7, "iris_absolute"), .kind = K_VALUE,
		     ONE(2, false, 200, 1600, 10, 200), .requests = RQ_RANGE,
		     .caps = CAP_RW | CAP_AUTO, SLAVE(C_AE_MODE, AE_AUTO | AE_SHUTTER_PRIORITY),
		     LOOP(200, 280, 10) },
	[C_ZOOM] = { CT(UVC_CT_ZOOM_ABSOLUTE_CONTROL, 9, "zoom_absolute"), .kind = K_VALUE,
		     ONE(2, false, 100, 400, 1, 100), .requests = RQ_RANGE,
		     .caps = CAP_RW | CAP_AUTO, NO_MASTER },
	/* bZoom (0 stop, 1 tele, 0xff wide), bDigitalZoom (none here), bSpeed.
	 * uvcvideo's V4L2 range is GET_MIN..GET_MAX of bSpeed and its value 0
	 * when stopped, so the speed range starts at 0 (speed 0: no motion) and
	 * the default is "stopped". */
	[C_ZOOM_RELATIVE] = { CT(UVC_CT_ZOOM_RELATIVE_CONTROL, 10, "zoom_relative"),
			      .kind = K_RELATIVE, .size = 3, .nfields = 3,
			      .f = { FIELD(0, 1, true, -1, 1, 1, 0), FIELD(1, 1, false, 0, 0, 1, 0),
				     FIELD(2, 1, false, 0, 7, 1, 0) },
			      .requests = RQ_RANGE, .caps = CAP_RW | CAP_AUTO, .master = -1,
			      .target = C_ZOOM, .naxes = 1, .ax = { { 0, 2, 0 } } },
	[C_PANTILT] = { CT(UVC_CT_PANTILT_ABSOLUTE_CONTROL, 11, "pan_tilt_absolute"), .kind = K_VALUE,
			.size = 8, .nfields = 2,
			.f = { FIELD(0, 4, true, -36000, 36000, 3600, 0),    /* pan */
			       FIELD(4, 4, true, -36000, 36000, 3600, 0) }, /* tilt */
			.requests = RQ_RANGE, .caps = CAP_RW | CAP_AUTO, NO_MASTER },
	/* bPanRelative, bPanSpeed, bTiltRelative, bTiltSpeed (see zoom). */
	[C_PANTILT_RELATIVE] = { CT(UVC_CT_PANTILT_RELATIVE_CONTROL, 12, "pan_tilt_relative"),
				 .kind = K_RELATIVE, .size = 4, .nfields = 4,
				 .f = { FIELD(0, 1, true, -1, 1, 1, 0), FIELD(1, 1, false, 0, 4, 1, 0),
					FIELD(2, 1, true, -1, 1, 1, 0), FIELD(3, 1, false, 0, 4, 1, 0) },
				 .requests = RQ_RANGE, .caps = CAP_RW | CAP_AUTO, .master = -1,
				 .target = C_PANTILT, .naxes = 2, .ax = { { 0, 1, 0 }, { 2, 3, 1 } } },
	[C_FOCUS_AUTO] = { CT(UVC_CT_FOCUS_AUTO_CONTROL, 17, "focus_auto"), SWITCH(0),
			   .requests = RQ_SWITCH, .caps = CAP_RW, NO_MASTER },
	[C_PRIVACY] = { CT(UVC_CT_PRIVACY_CONTROL, 18, "privacy"), SWITCH(0), .requests = RQ_FLAG,
			.caps = CAP_RW, NO_MASTER },

	[C_SCANNING_MODE] = { CT(UVC_CT_SCANNING_MODE_CONTROL, 0, "scanning_mode"), SWITCH(1),
			      .requests = RQ_FLAG, .caps = CAP_RW, NO_MASTER,
			      .impersonation_only = true },
	/* Relative controls step the absolute one once; reading gives 0. */
	[C_EXPOSURE_RELATIVE] = { CT(UVC_CT_EXPOSURE_TIME_RELATIVE_CONTROL, 4,
				     "exposure_time_relative"),
				  .kind = K_VALUE, ONE(1, true, -1, 1, 1, 0), .requests = RQ_FLAG,
				  .caps = CAP_RW, NO_MASTER, .impersonation_only = true },
	[C_FOCUS_RELATIVE] = { CT(UVC_CT_FOCUS_RELATIVE_CONTROL, 6, "focus_relative"),
			       .kind = K_VALUE, .size = 2, .nfields = 2,
			       .f = { FIELD(0, 1, true, -1, 1, 1, 0), FIELD(1, 1, false, 0, 7, 1, 0) },
			       .requests = RQ_RANGE, .caps = CAP_RW | CAP_AUTO, NO_MASTER,
			       .impersonation_only = true },
	[C_IRIS_RELATIVE] = { CT(UVC_CT_IRIS_RELATIVE_CONTROL, 8, "iris_relative"), .kind = K_VALUE,
			      ONE(1, true, -1, 1, 1, 0), .requests = RQ_FLAG,
			      .caps = CAP_RW | CAP_AUTO, NO_MASTER, .impersonation_only = true },
	[C_ROLL] = { CT(UVC_CT_ROLL_ABSOLUTE_CONTROL, 13, "roll_absolute"), .kind = K_VALUE,
		     ONE(2, true, -180, 180, 1, 0), .requests = RQ_RANGE, .caps = CAP_RW | CAP_AUTO,
		     NO_MASTER, .impersonation_only = true },
	[C_ROLL_RELATIVE] = { CT(UVC_CT_ROLL_RELATIVE_CONTROL, 14, "roll_relative"),
			      .kind = K_VALUE, .size = 2, .nfields = 2,
			      .f = { FIELD(0, 1, true, -1, 1, 1, 0), FIELD(1, 1, false, 0, 7, 1, 0) },
			      .requests = RQ_RANGE, .caps = CAP_RW | CAP_AUTO, NO_MASTER,
			      .impersonation_only = true },
	[C_WB_COMPONENT_AUTO] = { PU(UVC_PU_WHITE_BALANCE_COMPONENT_AUTO_CONTROL, 13,
				     "white_balance_component_auto"),
				  SWITCH(0), .requests = RQ_SWITCH, .caps = CAP_RW, NO_MASTER,
				  .impersonation_only = true },
	[C_DIGITAL_MULTIPLIER] = { PU(UVC_PU_DIGITAL_MULTIPLIER_CONTROL, 14, "digital_multiplier"),
				   .kind = K_VALUE, ONE(2, false, 100, 400, 1, 100),
				   .requests = RQ_RANGE, .caps = CAP_RW, NO_MASTER,
				   .impersonation_only = true },
	[C_DIGITAL_MULTIPLIER_LIMIT] = { PU(UVC_PU_DIGITAL_MULTIPLIER_LIMIT_CONTROL, 15,
					    "digital_multiplier_limit"),
					 .kind = K_VALUE, ONE(2, false, 100, 400, 1, 400),
					 .requests = RQ_RANGE, .caps = CAP_RW, NO_MASTER,
					 .impersonation_only = true },
	/* Read-only: a sensor, no analog input (standard 0: none, lock 1: not locked). */
	[C_ANALOG_STANDARD] = { PU(UVC_PU_ANALOG_VIDEO_STANDARD_CONTROL, 16, "analog_video_standard"),
				.kind = K_VALUE, ONE(1, false, 0, 0, 1, 0),
				.requests = RQ_CUR | RQ_INFO | RQ_LEN, .caps = CAP_RO, NO_MASTER,
				.impersonation_only = true },
	[C_ANALOG_LOCK] = { PU(UVC_PU_ANALOG_LOCK_STATUS_CONTROL, 17, "analog_lock_status"),
			    .kind = K_VALUE, ONE(1, false, 1, 1, 1, 1),
			    .requests = RQ_CUR | RQ_INFO | RQ_LEN, .caps = CAP_RO, NO_MASTER,
			    .impersonation_only = true },
	[C_CONTRAST_AUTO] = { PU(PU_CONTRAST_AUTO_CONTROL, 18, "contrast_auto"), SWITCH(0),
			      .requests = RQ_SWITCH, .caps = CAP_RW, NO_MASTER,
			      .impersonation_only = true },

	[C_XU_LED_MODE] = { XU(VCAM_XU_LED_MODE, "xu_led_mode"), .kind = K_VALUE,
			    ONE(1, false, 0, 3, 1, 3), .requests = RQ_RANGE, .caps = CAP_RW,
			    NO_MASTER },
	[C_XU_TEST_PATTERN] = { XU(VCAM_XU_TEST_PATTERN, "xu_test_pattern"), .kind = K_VALUE,
				ONE(2, false, 0, 4, 1, 0), .requests = RQ_RANGE, .caps = CAP_RW,
				NO_MASTER },
	[C_XU_REQUEST_COUNTER] = { XU(VCAM_XU_REQUEST_COUNTER, "xu_request_counter"),
				   .kind = K_COUNTER, ONE(4, false, 0, UINT32_MAX, 1, 0),
				   .requests = RQ_READ_RANGE, .caps = CAP_RO, NO_MASTER },

	[C_XU_MSXU_METADATA] = { XU(VCAM_XU_MSXU_METADATA, "msxu_metadata"), .kind = K_VALUE,
				 ONE(4, false, 0, VCAM_MSXU_MAX, 1, 0), .requests = RQ_RANGE,
				 .caps = CAP_RW, NO_MASTER, .msxu_only = true },

	[C_POWER_MODE] = { VC(UVC_VC_VIDEO_POWER_MODE_CONTROL, "video_power_mode"),
			   .kind = K_POWER_MODE, .size = 1, .requests = RQ_SET | RQ_CUR | RQ_INFO,
			   .caps = CAP_RW, NO_MASTER },
	[C_ERROR_CODE] = { VC(UVC_VC_REQUEST_ERROR_CODE_CONTROL, "request_error_code"),
			   .kind = K_ERROR_CODE, .size = 1, .requests = RQ_CUR | RQ_INFO,
			   .caps = CAP_RO, NO_MASTER },
};

struct state {
	int64_t cur[MAX_FIELDS]; /* the setting (the manual one for a slave) */
	int64_t autov;           /* field 0 as the automatic loop has it */
	int dir;                 /* the loop's direction */
	bool armed;              /* clock started for the loop or the motion */
	uint64_t next_ns;        /* when the next step is due */
	uint8_t shown[MAX_SIZE]; /* GET_CUR bytes the host has seen */
	uint8_t shown_info;      /* GET_INFO the host has seen */
};

struct vcam_controls {
	uint16_t bcd_uvc;
	uint8_t error;
	uint8_t power_mode;
	uint32_t counter;
	unsigned generation;
	int picture_brightness;
	vcam_controls_log_fn *log;
	void *log_opaque;
	struct state st[N_CONTROLS];
	bool offered[N_CONTROLS];
};

/* ---- fields ---- */

static int64_t get_field(const uint8_t *d, const struct field *f)
{
	uint64_t u = 0;

	for (unsigned i = 0; i < f->size; i++)
		u |= (uint64_t)d[f->offset + i] << (8 * i);
	if (f->is_signed && f->size < 8 && ((u >> (8 * f->size - 1)) & 1))
		u |= ~0ull << (8 * f->size);
	return (int64_t)u;
}

static void put_field(uint8_t *d, const struct field *f, int64_t v)
{
	uint64_t u = (uint64_t)v;

	for (unsigned i = 0; i < f->size; i++)
		d[f->offset + i] = (uint8_t)(u >> (8 * i));
}

static int64_t field_max(const struct vcam_controls *c, const struct spec *s, unsigned k)
{
	if (k == 0 && s->max_uvc15 && c->bcd_uvc >= 0x0150)
		return s->max_uvc15;
	return s->f[k].max;
}

static bool on_grid(int64_t v, int64_t min, int64_t res)
{
	return res <= 1 || (v - min) % res == 0;
}

/* ---- automatic modes ---- */

static bool is_auto(const struct vcam_controls *c, int i)
{
	const struct spec *s = &specs[i];

	return s->master >= 0 && c->offered[s->master] &&
	       (c->st[s->master].cur[0] & s->auto_mask) != 0;
}

/* The values in use: the setting, or what the automatic loop has. */
static void effective(const struct vcam_controls *c, int i, int64_t out[MAX_FIELDS])
{
	const struct spec *s = &specs[i];

	memcpy(out, c->st[i].cur, sizeof(c->st[i].cur));
	if (!is_auto(c, i))
		return;
	if (s->derive)
		s->derive(c, out);
	else
		out[0] = c->st[i].autov;
}

/* The AWB loop's gains: more blue for warm light, more red for cold. */
static void derive_wb_component(const struct vcam_controls *c, int64_t out[MAX_FIELDS])
{
	int64_t t[MAX_FIELDS];
	int64_t shift;

	effective(c, C_WB_TEMPERATURE, t);
	shift = (4600 - t[0]) / 10;
	out[0] = 512 + shift;
	out[1] = 512 - shift;
}

static uint8_t info_byte(const struct vcam_controls *c, int i)
{
	return specs[i].caps | (is_auto(c, i) ? UVC_CONTROL_CAP_DISABLED : 0);
}

/* GET_CUR bytes; returns the size. */
static unsigned cur_bytes(const struct vcam_controls *c, int i, uint8_t *out)
{
	const struct spec *s = &specs[i];
	int64_t v[MAX_FIELDS];

	memset(out, 0, s->size);
	switch (s->kind) {
	case K_COUNTER:
		put_field(out, &s->f[0], c->counter);
		break;
	case K_POWER_MODE:
		out[0] = c->power_mode | POWER_SOURCE_BUS;
		break;
	case K_ERROR_CODE:
		out[0] = c->error;
		break;
	default:
		effective(c, i, v);
		for (unsigned k = 0; k < s->nfields; k++)
			put_field(out, &s->f[k], v[k]);
		break;
	}
	return s->size;
}

static void update_picture(struct vcam_controls *c)
{
	int64_t v[MAX_FIELDS];

	effective(c, C_BRIGHTNESS, v);
	if ((int)v[0] != c->picture_brightness) {
		c->picture_brightness = (int)v[0];
		c->generation++;
	}
}

/* ---- logging ---- */

static void log_setting(struct vcam_controls *c, int i)
{
	const struct spec *s = &specs[i];
	char line[160];
	size_t n;

	if (!c->log)
		return;
	n = (size_t)snprintf(line, sizeof(line), "control %s =", s->name);
	for (unsigned k = 0; k < s->nfields && n < sizeof(line); k++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %" PRId64, c->st[i].cur[k]);
	if (is_auto(c, i) && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, " (kept for manual mode, automatic now)");
	c->log(c->log_opaque, line);
}

/* ---- the public API ---- */

/* bcd_uvc picks the power line menu: 1.5 and later, or before. */
static struct vcam_controls *controls_new(uint16_t bcd_uvc, const bool offered[N_CONTROLS])
{
	struct vcam_controls *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->bcd_uvc = bcd_uvc >= 0x0150 ? 0x0150 : 0x0110;
	c->power_mode = POWER_FULL;
	memcpy(c->offered, offered, sizeof(c->offered));
	for (int i = 0; i < N_CONTROLS; i++) {
		const struct spec *s = &specs[i];

		for (unsigned k = 0; k < s->nfields; k++)
			c->st[i].cur[k] = s->f[k].def;
		c->st[i].autov = s->f[0].def;
		c->st[i].dir = 1;
	}
	for (int i = 0; i < N_CONTROLS; i++) {
		cur_bytes(c, i, c->st[i].shown);
		c->st[i].shown_info = info_byte(c, i);
	}
	c->picture_brightness = (int)c->st[C_BRIGHTNESS].cur[0];
	return c;
}

struct vcam_controls *vcam_controls_new(uint16_t bcd_uvc)
{
	bool offered[N_CONTROLS];

	if (bcd_uvc != 0x0110 && bcd_uvc != 0x0150)
		return NULL;
	for (int i = 0; i < N_CONTROLS; i++)
		offered[i] = !specs[i].impersonation_only && !specs[i].msxu_only;
	return controls_new(bcd_uvc, offered);
}

struct vcam_controls *vcam_controls_new_masked(uint16_t bcd_uvc, uint32_t ct_bits,
					       uint32_t pu_bits)
{
	bool offered[N_CONTROLS];

	for (int i = 0; i < N_CONTROLS; i++) {
		const struct spec *s = &specs[i];

		offered[i] = s->entity == VCAM_ENTITY_INTERFACE ||
			     (s->entity == VCAM_ENTITY_CAMERA && (ct_bits >> s->bit & 1)) ||
			     (s->entity == VCAM_ENTITY_PROCESSING && (pu_bits >> s->bit & 1));
	}
	return controls_new(bcd_uvc, offered);
}

void vcam_controls_free(struct vcam_controls *c)
{
	free(c);
}

uint32_t vcam_controls_bitmap(const struct vcam_controls *c, enum vcam_entity e)
{
	uint32_t bits = 0;

	for (int i = 0; i < N_CONTROLS; i++)
		if (c->offered[i] && specs[i].entity == e && specs[i].bit >= 0)
			bits |= 1u << specs[i].bit;
	return bits;
}

unsigned vcam_controls_xu_count(const struct vcam_controls *c)
{
	unsigned n = 0;

	for (int i = 0; i < N_CONTROLS; i++)
		n += c->offered[i] && specs[i].entity == VCAM_ENTITY_EXTENSION;
	return n;
}

void vcam_controls_enable_msxu(struct vcam_controls *c)
{
	c->offered[C_XU_MSXU_METADATA] = true;
}

uint32_t vcam_controls_msxu_size(const struct vcam_controls *c)
{
	return c->offered[C_XU_MSXU_METADATA] ? (uint32_t)c->st[C_XU_MSXU_METADATA].cur[0] : 0;
}

static int find(enum vcam_entity e, uint8_t selector)
{
	for (int i = 0; i < N_CONTROLS; i++)
		if (specs[i].entity == e && specs[i].selector == selector)
			return i;
	return -1;
}

const char *vcam_controls_name(enum vcam_entity e, uint8_t selector)
{
	int i = find(e, selector);

	/* the vcam's own camera: what impersonation and --msxu add is not
	 * among them */
	return i < 0 || specs[i].impersonation_only || specs[i].msxu_only ? NULL : specs[i].name;
}

int vcam_controls_reject(struct vcam_controls *c, uint8_t code)
{
	c->error = code;
	return -1;
}

uint8_t vcam_controls_error(const struct vcam_controls *c)
{
	return c->error;
}

void vcam_controls_set_log(struct vcam_controls *c, vcam_controls_log_fn *fn, void *opaque)
{
	c->log = fn;
	c->log_opaque = opaque;
}

int vcam_controls_brightness(const struct vcam_controls *c)
{
	return c->picture_brightness;
}

unsigned vcam_controls_picture_generation(const struct vcam_controls *c)
{
	return c->generation;
}

static unsigned request_bit(uint8_t request)
{
	switch (request) {
	case UVC_SET_CUR:
		return RQ_SET;
	case UVC_GET_CUR:
		return RQ_CUR;
	case UVC_GET_MIN:
		return RQ_MIN;
	case UVC_GET_MAX:
		return RQ_MAX;
	case UVC_GET_RES:
		return RQ_RES;
	case UVC_GET_LEN:
		return RQ_LEN;
	case UVC_GET_INFO:
		return RQ_INFO;
	case UVC_GET_DEF:
		return RQ_DEF;
	default:
		return 0;
	}
}

/* GET_MIN/MAX/RES/DEF of a field control. */
static void attribute_bytes(const struct vcam_controls *c, int i, uint8_t request, uint8_t *out)
{
	const struct spec *s = &specs[i];

	memset(out, 0, s->size);
	for (unsigned k = 0; k < s->nfields; k++) {
		const struct field *f = &s->f[k];
		int64_t v = request == UVC_GET_MIN   ? f->min
			    : request == UVC_GET_MAX ? field_max(c, s, k)
			    : request == UVC_GET_RES ? f->res
						     : f->def;
		put_field(out, f, v);
	}
}

/* Validates a SET_CUR; returns 0 or the error code. */
static uint8_t check_set(const struct vcam_controls *c, int i, const uint8_t *data,
			 int64_t v[MAX_FIELDS])
{
	const struct spec *s = &specs[i];

	switch (s->kind) {
	case K_AE_MODE:
		v[0] = data[0];
		if (v[0] == 0 || (v[0] & (v[0] - 1)) || v[0] > AE_APERTURE_PRIORITY)
			return VCAM_ERR_OUT_OF_RANGE;
		return (v[0] & s->f[0].res) ? 0 : VCAM_ERR_INVALID_VALUE;
	case K_POWER_MODE:
		/* D4..D7 are read-only and ignored. */
		v[0] = data[0] & 0x0f;
		if (v[0] == POWER_FULL)
			return 0;
		return v[0] == POWER_DEVICE_DEPENDENT ? VCAM_ERR_INVALID_VALUE
						      : VCAM_ERR_OUT_OF_RANGE;
	default:
		for (unsigned k = 0; k < s->nfields; k++) {
			const struct field *f = &s->f[k];

			v[k] = get_field(data, f);
			if (v[k] < f->min || v[k] > field_max(c, s, k) || !on_grid(v[k], f->min, f->res))
				return VCAM_ERR_OUT_OF_RANGE;
		}
		return 0;
	}
}

/* After a master changed: slaves entering an automatic mode start their
 * loop from the value in use. */
static void master_changed(struct vcam_controls *c, int m, const bool was_auto[N_CONTROLS])
{
	for (int i = 0; i < N_CONTROLS; i++) {
		struct state *st = &c->st[i];

		if (specs[i].master != m || was_auto[i] || !is_auto(c, i))
			continue;
		st->autov = st->cur[0];
		st->dir = 1;
		st->armed = false;
	}
}

static void set_cur(struct vcam_controls *c, int i, const int64_t v[MAX_FIELDS])
{
	const struct spec *s = &specs[i];
	struct state *st = &c->st[i];
	bool was_auto[N_CONTROLS];
	bool changed = false;
	unsigned n = s->kind == K_POWER_MODE ? 1 : s->nfields;

	for (int j = 0; j < N_CONTROLS; j++)
		was_auto[j] = is_auto(c, j);
	if (s->kind == K_POWER_MODE) {
		changed = c->power_mode != v[0];
		c->power_mode = (uint8_t)v[0];
	} else {
		for (unsigned k = 0; k < n; k++) {
			changed |= st->cur[k] != v[k];
			st->cur[k] = v[k];
		}
	}
	if (s->kind == K_RELATIVE && changed)
		st->armed = false; /* the motion's clock starts at the next tick */
	master_changed(c, i, was_auto);
	c->counter++;
	cur_bytes(c, i, st->shown);
	update_picture(c);
	if (changed)
		log_setting(c, i);
}

int vcam_controls_request(struct vcam_controls *c, enum vcam_entity e, uint8_t request,
			  uint8_t selector, uint8_t *data, uint16_t length)
{
	unsigned bit = request_bit(request);
	int64_t v[MAX_FIELDS] = { 0 };
	uint8_t expect, err;
	int i, n;

	if (e != VCAM_ENTITY_INTERFACE && e != VCAM_ENTITY_CAMERA && e != VCAM_ENTITY_PROCESSING &&
	    e != VCAM_ENTITY_EXTENSION)
		return vcam_controls_reject(c, VCAM_ERR_INVALID_UNIT);
	i = find(e, selector);
	if (i < 0 || !c->offered[i])
		return vcam_controls_reject(c, VCAM_ERR_INVALID_CONTROL);
	if (!(specs[i].requests & bit))
		return vcam_controls_reject(c, VCAM_ERR_INVALID_REQUEST);
	expect = request == UVC_GET_LEN ? 2 : request == UVC_GET_INFO ? 1 : specs[i].size;
	if (length != expect || !data)
		return vcam_controls_reject(c, VCAM_ERR_UNKNOWN);

	switch (request) {
	case UVC_SET_CUR:
		err = check_set(c, i, data, v);
		if (err)
			return vcam_controls_reject(c, err);
		set_cur(c, i, v);
		n = 0;
		break;
	case UVC_GET_CUR:
		n = (int)cur_bytes(c, i, data);
		break;
	case UVC_GET_INFO:
		data[0] = info_byte(c, i);
		n = 1;
		break;
	case UVC_GET_LEN:
		data[0] = specs[i].size & 0xff;
		data[1] = specs[i].size >> 8;
		n = 2;
		break;
	default: /* GET_MIN, GET_MAX, GET_RES, GET_DEF */
		attribute_bytes(c, i, request, data);
		n = specs[i].size;
		break;
	}
	c->error = VCAM_ERR_NONE;
	return n;
}

/* ---- the camera's own changes ---- */

/* Runs fn once per period elapsed since the clock was armed. */
static void run_clock(struct state *st, uint64_t now, uint64_t period,
		      void (*fn)(struct vcam_controls *, int), struct vcam_controls *c, int i)
{
	unsigned steps = 0;

	if (!st->armed) {
		st->armed = true;
		st->next_ns = now + period;
		return;
	}
	while (now >= st->next_ns && st->armed) {
		fn(c, i);
		st->next_ns += period;
		if (++steps == MAX_CATCH_UP && now >= st->next_ns) {
			st->next_ns = now + period;
			break;
		}
	}
}

static void loop_step(struct vcam_controls *c, int i)
{
	const struct spec *s = &specs[i];
	struct state *st = &c->st[i];

	if (st->autov >= s->loop_hi)
		st->dir = -1;
	else if (st->autov <= s->loop_lo)
		st->dir = 1;
	st->autov += st->dir * s->loop_step;
	if (st->autov > s->f[0].max)
		st->autov = s->f[0].max;
	if (st->autov < s->f[0].min)
		st->autov = s->f[0].min;
}

static bool moving(const struct vcam_controls *c, int i)
{
	const struct spec *s = &specs[i];

	for (unsigned a = 0; a < s->naxes; a++)
		if (c->st[i].cur[s->ax[a].dir] != 0)
			return true;
	return false;
}

/* One motion step: each moving axis advances its absolute field by speed
 * resolution steps, and stops at the end of the range. */
static void motion_step(struct vcam_controls *c, int i)
{
	const struct spec *s = &specs[i];
	const struct spec *t = &specs[s->target];
	struct state *st = &c->st[i];
	struct state *tt = &c->st[s->target];

	for (unsigned a = 0; a < s->naxes; a++) {
		const struct axis *ax = &s->ax[a];
		const struct field *f = &t->f[ax->target];
		int64_t dir = st->cur[ax->dir];
		int64_t pos;

		if (dir == 0)
			continue;
		pos = tt->cur[ax->target] + dir * st->cur[ax->speed] * f->res;
		if ((dir > 0 && pos >= f->max) || (dir < 0 && pos <= f->min)) {
			pos = dir > 0 ? f->max : f->min;
			st->cur[ax->dir] = 0; /* the end of the range stops the motion */
		}
		tt->cur[ax->target] = pos;
	}
	if (!moving(c, i))
		st->armed = false;
}

static bool has_loop(int i)
{
	return specs[i].master >= 0 && specs[i].loop_step > 0;
}

size_t vcam_controls_tick(struct vcam_controls *c, uint64_t now_ns,
			  struct vcam_control_event *events, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < N_CONTROLS; i++) {
		struct state *st = &c->st[i];

		if (!c->offered[i])
			continue;
		if (has_loop(i)) {
			if (is_auto(c, i))
				run_clock(st, now_ns, LOOP_PERIOD_NS, loop_step, c, i);
			else
				st->armed = false;
		} else if (specs[i].kind == K_RELATIVE) {
			if (moving(c, i))
				run_clock(st, now_ns, MOTION_PERIOD_NS, motion_step, c, i);
			else
				st->armed = false;
		}
	}
	update_picture(c);

	/* Values that changed without a SET_CUR to them. */
	for (int i = 0; i < N_CONTROLS && n < max; i++) {
		struct state *st = &c->st[i];
		uint8_t now[MAX_SIZE];
		unsigned size;

		if (!c->offered[i] || !(specs[i].caps & UVC_CONTROL_CAP_AUTOUPDATE))
			continue;
		size = cur_bytes(c, i, now);
		if (!memcmp(now, st->shown, size))
			continue;
		memcpy(st->shown, now, size);
		events[n] = (struct vcam_control_event){ .entity = specs[i].entity,
							 .selector = specs[i].selector,
							 .attribute = VCAM_ATTR_VALUE,
							 .length = (uint8_t)size };
		memcpy(events[n].value, now, size);
		n++;
	}
	/* GET_INFO bytes that changed (D2 follows the automatic modes). */
	for (int i = 0; i < N_CONTROLS && n < max; i++) {
		struct state *st = &c->st[i];
		uint8_t info = info_byte(c, i);

		if (!c->offered[i] || info == st->shown_info)
			continue;
		st->shown_info = info;
		events[n] = (struct vcam_control_event){ .entity = specs[i].entity,
							 .selector = specs[i].selector,
							 .attribute = VCAM_ATTR_INFO,
							 .length = 1,
							 .value = { info } };
		n++;
	}
	return n;
}

/* ---- table invariants ---- */

static int fail(char *msg, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (msg && cap) {
		va_start(ap, fmt);
		vsnprintf(msg, cap, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool representable(const struct field *f, int64_t v)
{
	int bits = 8 * f->size;

	if (bits >= 64)
		return true;
	if (f->is_signed)
		return v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1));
	return v >= 0 && v < (INT64_C(1) << bits);
}

static int check_fields(const struct spec *s, char *msg, size_t cap)
{
	unsigned end = 0;

	if (s->nfields < 1 || s->nfields > MAX_FIELDS)
		return fail(msg, cap, "%s: %u fields", s->name, s->nfields);
	for (unsigned k = 0; k < s->nfields; k++) {
		const struct field *f = &s->f[k];
		int64_t max = s->max_uvc15 && k == 0 ? s->max_uvc15 : f->max;

		if (f->offset != end || f->size == 0)
			return fail(msg, cap, "%s: field %u not packed", s->name, k);
		end += f->size;
		if (s->kind == K_AE_MODE) {
			if ((f->def & (f->def - 1)) || !(f->def & f->res))
				return fail(msg, cap, "%s: default not a supported mode", s->name);
			continue;
		}
		if (f->res < 1)
			return fail(msg, cap, "%s: res < 1", s->name);
		if (!(f->min <= f->def && f->def <= f->max && f->max <= max))
			return fail(msg, cap, "%s: not min <= def <= max", s->name);
		if (!on_grid(f->def, f->min, f->res) || !on_grid(f->max, f->min, f->res) ||
		    !on_grid(max, f->min, f->res))
			return fail(msg, cap, "%s: def or max off the res grid", s->name);
		if (!representable(f, f->min) || !representable(f, max) || !representable(f, f->res))
			return fail(msg, cap, "%s: range does not fit the field", s->name);
	}
	if (end != s->size)
		return fail(msg, cap, "%s: fields cover %u of %u bytes", s->name, end, s->size);
	return 0;
}

int vcam_controls_self_check(char *msg, size_t cap)
{
	for (int i = 0; i < N_CONTROLS; i++) {
		const struct spec *s = &specs[i];

		if (!s->name || s->selector == 0)
			return fail(msg, cap, "control %d: no name or selector", i);
		if (s->size == 0 || s->size > MAX_SIZE)
			return fail(msg, cap, "%s: size %u", s->name, s->size);
		if (!(s->requests & RQ_CUR) || !(s->requests & RQ_INFO))
			return fail(msg, cap, "%s: GET_CUR and GET_INFO are mandatory", s->name);
		if (!(s->caps & UVC_CONTROL_CAP_GET) ||
		    !!(s->caps & UVC_CONTROL_CAP_SET) != !!(s->requests & RQ_SET))
			return fail(msg, cap, "%s: GET_INFO disagrees with the requests", s->name);
		if ((s->entity == VCAM_ENTITY_INTERFACE) != (s->bit < 0))
			return fail(msg, cap, "%s: bmControls bit", s->name);
		if (s->entity == VCAM_ENTITY_EXTENSION && s->bit != s->selector - 1)
			return fail(msg, cap, "%s: XU selector must be bit + 1", s->name);
		if (s->kind != K_POWER_MODE && s->kind != K_ERROR_CODE && check_fields(s, msg, cap))
			return -1;
		for (int j = 0; j < i; j++) {
			if (specs[j].entity != s->entity)
				continue;
			if (specs[j].selector == s->selector || (s->bit >= 0 && specs[j].bit == s->bit))
				return fail(msg, cap, "%s: selector or bit used twice", s->name);
		}
		if (s->master >= 0) {
			const struct spec *m = &specs[s->master];

			if (m->entity != s->entity || m->nfields != 1 ||
			    (m->kind != K_AE_MODE && m->f[0].max != 1))
				return fail(msg, cap, "%s: master is not an auto control", s->name);
			if (!(s->caps & UVC_CONTROL_CAP_AUTOUPDATE))
				return fail(msg, cap, "%s: automatic but not autoupdate", s->name);
			if (!s->derive && s->loop_step <= 0)
				return fail(msg, cap, "%s: automatic without a loop", s->name);
			if (!s->derive &&
			    (s->loop_lo < s->f[0].min || s->loop_hi > s->f[0].max ||
			     s->loop_lo > s->loop_hi || s->loop_step % s->f[0].res ||
			     !on_grid(s->loop_lo, s->f[0].min, s->f[0].res)))
				return fail(msg, cap, "%s: loop off range or grid", s->name);
			if (m->kind == K_AE_MODE ? (m->f[0].def & s->auto_mask) : m->f[0].def)
				return fail(msg, cap, "%s: automatic by default", s->name);
		}
		if (s->kind == K_RELATIVE) {
			const struct spec *t;

			if (s->target < 0 || s->naxes < 1 || s->naxes > 2)
				return fail(msg, cap, "%s: relative without target", s->name);
			t = &specs[s->target];
			if (!(t->caps & UVC_CONTROL_CAP_AUTOUPDATE) ||
			    !(s->caps & UVC_CONTROL_CAP_AUTOUPDATE))
				return fail(msg, cap, "%s: motion must be autoupdate", s->name);
			for (unsigned a = 0; a < s->naxes; a++) {
				const struct axis *ax = &s->ax[a];

				if (ax->dir >= s->nfields || ax->speed >= s->nfields ||
				    ax->target >= t->nfields || s->f[ax->dir].min != -1 ||
				    s->f[ax->dir].max != 1 || s->f[ax->dir].def != 0 ||
				    s->f[ax->speed].def != 0)
					return fail(msg, cap, "%s: bad axis %u", s->name, a);
			}
		}
	}
	return 0;
}

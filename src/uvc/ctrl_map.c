/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcvideo 6.1's control tables and value codecs. See ctrl_map.h. */
#include "uvc/ctrl_map.h"

#include <stddef.h>

#include <linux/usb/video.h>
#include <linux/videodev2.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Request sets of uvc_ctrls[] (UVC_CTRL_FLAG_GET_RANGE is CUR|MIN|MAX|RES|DEF). */
#define SET UVC_CTRL_FLAG_SET_CUR
#define CUR UVC_CTRL_FLAG_GET_CUR
#define MIN UVC_CTRL_FLAG_GET_MIN
#define MAX UVC_CTRL_FLAG_GET_MAX
#define RES UVC_CTRL_FLAG_GET_RES
#define DEF UVC_CTRL_FLAG_GET_DEF
#define RANGE UVC_CTRL_FLAG_GET_RANGE
#define KEEP UVC_CTRL_FLAG_RESTORE
#define AUTO UVC_CTRL_FLAG_AUTO_UPDATE

#define PU_(sel, bit, sz, fl, nm) \
	{ UVC_CTRL_UNIT_PROCESSING, UVC_PU_##sel##_CONTROL, bit, sz, fl, nm }
#define CT_(sel, bit, sz, fl, nm) \
	{ UVC_CTRL_UNIT_CAMERA, UVC_CT_##sel##_CONTROL, bit, sz, fl, nm }

/* Every control of uvc_ctrls[], in its order: unit, selector, bmControls
 * bit, size in bytes, requests. */
const struct uvc_ctrl_info uvc_ctrl_infos[] = {
	PU_(BRIGHTNESS, 0, 2, SET | RANGE | KEEP, "brightness"),
	PU_(CONTRAST, 1, 2, SET | RANGE | KEEP, "contrast"),
	PU_(HUE, 2, 2, SET | RANGE | KEEP | AUTO, "hue"),
	PU_(SATURATION, 3, 2, SET | RANGE | KEEP, "saturation"),
	PU_(SHARPNESS, 4, 2, SET | RANGE | KEEP, "sharpness"),
	PU_(GAMMA, 5, 2, SET | RANGE | KEEP, "gamma"),
	PU_(WHITE_BALANCE_TEMPERATURE, 6, 2, SET | RANGE | KEEP | AUTO, "white balance temperature"),
	PU_(WHITE_BALANCE_COMPONENT, 7, 4, SET | RANGE | KEEP | AUTO, "white balance component"),
	PU_(BACKLIGHT_COMPENSATION, 8, 2, SET | RANGE | KEEP, "backlight compensation"),
	PU_(GAIN, 9, 2, SET | RANGE | KEEP, "gain"),
	PU_(POWER_LINE_FREQUENCY, 10, 1, SET | CUR | DEF | KEEP, "power line frequency"),
	PU_(HUE_AUTO, 11, 1, SET | CUR | DEF | KEEP, "hue auto"),
	PU_(WHITE_BALANCE_TEMPERATURE_AUTO, 12, 1, SET | CUR | DEF | KEEP,
	    "white balance temperature auto"),
	PU_(WHITE_BALANCE_COMPONENT_AUTO, 13, 1, SET | CUR | DEF | KEEP,
	    "white balance component auto"),
	PU_(DIGITAL_MULTIPLIER, 14, 2, SET | RANGE | KEEP, "digital multiplier"),
	PU_(DIGITAL_MULTIPLIER_LIMIT, 15, 2, SET | RANGE | KEEP, "digital multiplier limit"),
	PU_(ANALOG_VIDEO_STANDARD, 16, 1, CUR, "analog video standard"),
	PU_(ANALOG_LOCK_STATUS, 17, 1, CUR, "analog lock status"),
	CT_(SCANNING_MODE, 0, 1, SET | CUR | KEEP, "scanning mode"),
	CT_(AE_MODE, 1, 1, SET | CUR | DEF | RES | KEEP, "AE mode"),
	CT_(AE_PRIORITY, 2, 1, SET | CUR | KEEP, "AE priority"),
	CT_(EXPOSURE_TIME_ABSOLUTE, 3, 4, SET | RANGE | KEEP | AUTO, "exposure time absolute"),
	CT_(EXPOSURE_TIME_RELATIVE, 4, 1, SET | KEEP, "exposure time relative"),
	CT_(FOCUS_ABSOLUTE, 5, 2, SET | RANGE | KEEP | AUTO, "focus absolute"),
	CT_(FOCUS_RELATIVE, 6, 2, SET | MIN | MAX | RES | DEF | AUTO, "focus relative"),
	CT_(IRIS_ABSOLUTE, 7, 2, SET | RANGE | KEEP | AUTO, "iris absolute"),
	CT_(IRIS_RELATIVE, 8, 1, SET | AUTO, "iris relative"),
	CT_(ZOOM_ABSOLUTE, 9, 2, SET | RANGE | KEEP | AUTO, "zoom absolute"),
	CT_(ZOOM_RELATIVE, 10, 3, SET | MIN | MAX | RES | DEF | AUTO, "zoom relative"),
	CT_(PANTILT_ABSOLUTE, 11, 8, SET | RANGE | KEEP | AUTO, "pan/tilt absolute"),
	CT_(PANTILT_RELATIVE, 12, 4, SET | RANGE | AUTO, "pan/tilt relative"),
	CT_(ROLL_ABSOLUTE, 13, 2, SET | RANGE | KEEP | AUTO, "roll absolute"),
	CT_(ROLL_RELATIVE, 14, 2, SET | MIN | MAX | RES | DEF | AUTO, "roll relative"),
	CT_(FOCUS_AUTO, 17, 1, SET | CUR | DEF | KEEP, "focus auto"),
	CT_(PRIVACY, 18, 1, SET | CUR | KEEP | AUTO, "privacy"),
	{ UVC_CTRL_UNIT_GPIO, UVC_CT_PRIVACY_CONTROL, 0, 1, CUR | AUTO, "privacy (GPIO)" },
};
const unsigned uvc_ctrl_n_infos = N(uvc_ctrl_infos);

/* Menus, indexed by V4L2 menu index. */
static const struct uvc_ctrl_menu power_line_menu[] = {
	{ 0, "Disabled" },
	{ 1, "50 Hz" },
	{ 2, "60 Hz" },
	{ 3, "Auto" },
};

/* V4L2_EXPOSURE_AUTO (0), _MANUAL (1), _SHUTTER_PRIORITY (2),
 * _APERTURE_PRIORITY (3) against bmAutoExposureMode bits. */
static const struct uvc_ctrl_menu exposure_auto_menu[] = {
	{ 2, "Auto Mode" },
	{ 1, "Manual Mode" },
	{ 4, "Shutter Priority Mode" },
	{ 8, "Aperture Priority Mode" },
};

#define INT V4L2_CTRL_TYPE_INTEGER
#define BOOL V4L2_CTRL_TYPE_BOOLEAN
#define MENU V4L2_CTRL_TYPE_MENU
#define S UVC_CTRL_DATA_TYPE_SIGNED
#define U UVC_CTRL_DATA_TYPE_UNSIGNED
#define B UVC_CTRL_DATA_TYPE_BOOLEAN

#define MAP(cid, unit_, sel, sz, off, type, dt) \
	.id = V4L2_CID_##cid, .unit = UVC_CTRL_UNIT_##unit_, .selector = (sel), .size = (sz), \
	.offset = (off), .v4l2_type = (type), .data_type = (dt)
#define PU(cid, sel, sz, off, type, dt) MAP(cid, PROCESSING, UVC_PU_##sel##_CONTROL, sz, off, type, dt)
#define CT(cid, sel, sz, off, type, dt) MAP(cid, CAMERA, UVC_CT_##sel##_CONTROL, sz, off, type, dt)
#define MASTER(cid, manual) .master_id = V4L2_CID_##cid, .master_manual = (manual)
#define GENMASK32(h, l) ((~0u >> (31 - (h))) & (~0u << (l)))

/* uvc_ctrl_mappings[] in its order, then the power line mappings of
 * uvc_ctrl_mappings_uvc11 (bcdUVC < 1.5) and _uvc15. */
const struct uvc_ctrl_mapping uvc_ctrl_mappings[] = {
	{ PU(BRIGHTNESS, BRIGHTNESS, 16, 0, INT, S) },
	{ PU(CONTRAST, CONTRAST, 16, 0, INT, U) },
	{ PU(HUE, HUE, 16, 0, INT, S), MASTER(HUE_AUTO, 0) },
	{ PU(SATURATION, SATURATION, 16, 0, INT, U) },
	{ PU(SHARPNESS, SHARPNESS, 16, 0, INT, U) },
	{ PU(GAMMA, GAMMA, 16, 0, INT, U) },
	{ PU(BACKLIGHT_COMPENSATION, BACKLIGHT_COMPENSATION, 16, 0, INT, U) },
	{ PU(GAIN, GAIN, 16, 0, INT, U) },
	{ PU(HUE_AUTO, HUE_AUTO, 1, 0, BOOL, B), .slave_ids = { V4L2_CID_HUE } },
	{ CT(EXPOSURE_AUTO, AE_MODE, 4, 0, MENU, UVC_CTRL_DATA_TYPE_BITMASK),
	  .menu = exposure_auto_menu,
	  .menu_mask = GENMASK32(V4L2_EXPOSURE_APERTURE_PRIORITY, V4L2_EXPOSURE_AUTO),
	  .slave_ids = { V4L2_CID_EXPOSURE_ABSOLUTE } },
	{ CT(EXPOSURE_AUTO_PRIORITY, AE_PRIORITY, 1, 0, BOOL, B) },
	{ CT(EXPOSURE_ABSOLUTE, EXPOSURE_TIME_ABSOLUTE, 32, 0, INT, U),
	  MASTER(EXPOSURE_AUTO, V4L2_EXPOSURE_MANUAL) },
	{ PU(AUTO_WHITE_BALANCE, WHITE_BALANCE_TEMPERATURE_AUTO, 1, 0, BOOL, B),
	  .slave_ids = { V4L2_CID_WHITE_BALANCE_TEMPERATURE } },
	{ PU(WHITE_BALANCE_TEMPERATURE, WHITE_BALANCE_TEMPERATURE, 16, 0, INT, U),
	  MASTER(AUTO_WHITE_BALANCE, 0) },
	{ PU(AUTO_WHITE_BALANCE, WHITE_BALANCE_COMPONENT_AUTO, 1, 0, BOOL, B),
	  .slave_ids = { V4L2_CID_BLUE_BALANCE, V4L2_CID_RED_BALANCE } },
	{ PU(BLUE_BALANCE, WHITE_BALANCE_COMPONENT, 16, 0, INT, S), MASTER(AUTO_WHITE_BALANCE, 0) },
	{ PU(RED_BALANCE, WHITE_BALANCE_COMPONENT, 16, 16, INT, S), MASTER(AUTO_WHITE_BALANCE, 0) },
	{ CT(FOCUS_ABSOLUTE, FOCUS_ABSOLUTE, 16, 0, INT, U), MASTER(FOCUS_AUTO, 0) },
	{ CT(FOCUS_AUTO, FOCUS_AUTO, 1, 0, BOOL, B), .slave_ids = { V4L2_CID_FOCUS_ABSOLUTE } },
	{ CT(IRIS_ABSOLUTE, IRIS_ABSOLUTE, 16, 0, INT, U) },
	{ CT(IRIS_RELATIVE, IRIS_RELATIVE, 8, 0, INT, S) },
	{ CT(ZOOM_ABSOLUTE, ZOOM_ABSOLUTE, 16, 0, INT, U) },
	{ CT(ZOOM_CONTINUOUS, ZOOM_RELATIVE, 0, 0, INT, S), .codec = UVC_CTRL_CODEC_ZOOM },
	{ CT(PAN_ABSOLUTE, PANTILT_ABSOLUTE, 32, 0, INT, S) },
	{ CT(TILT_ABSOLUTE, PANTILT_ABSOLUTE, 32, 32, INT, S) },
	{ CT(PAN_SPEED, PANTILT_RELATIVE, 16, 0, INT, S), .codec = UVC_CTRL_CODEC_REL_SPEED },
	{ CT(TILT_SPEED, PANTILT_RELATIVE, 16, 16, INT, S), .codec = UVC_CTRL_CODEC_REL_SPEED },
	{ CT(PRIVACY, PRIVACY, 1, 0, BOOL, B) },
	{ MAP(PRIVACY, GPIO, UVC_CT_PRIVACY_CONTROL, 1, 0, BOOL, B) },
	{ PU(POWER_LINE_FREQUENCY, POWER_LINE_FREQUENCY, 2, 0, MENU, UVC_CTRL_DATA_TYPE_ENUM),
	  .menu = power_line_menu,
	  .menu_mask = GENMASK32(V4L2_CID_POWER_LINE_FREQUENCY_60HZ,
				 V4L2_CID_POWER_LINE_FREQUENCY_DISABLED),
	  .bcd_max = 0x0150 },
	{ PU(POWER_LINE_FREQUENCY, POWER_LINE_FREQUENCY, 2, 0, MENU, UVC_CTRL_DATA_TYPE_ENUM),
	  .menu = power_line_menu,
	  .menu_mask = GENMASK32(V4L2_CID_POWER_LINE_FREQUENCY_AUTO,
				 V4L2_CID_POWER_LINE_FREQUENCY_DISABLED),
	  .bcd_min = 0x0150 },
};
const unsigned uvc_ctrl_n_mappings = N(uvc_ctrl_mappings);

const struct uvc_ctrl_mapping uvc_ctrl_power_line_limited = {
	PU(POWER_LINE_FREQUENCY, POWER_LINE_FREQUENCY, 2, 0, MENU, UVC_CTRL_DATA_TYPE_ENUM),
	.menu = power_line_menu,
	.menu_mask = GENMASK32(V4L2_CID_POWER_LINE_FREQUENCY_60HZ,
			       V4L2_CID_POWER_LINE_FREQUENCY_50HZ),
};

int uvc_ctrl_entity_unit(const struct uvc_entity *e)
{
	if (e->kind == UVC_ENTITY_INPUT_TERMINAL && e->type == UVC_ITT_CAMERA)
		return UVC_CTRL_UNIT_CAMERA;
	if (e->kind == UVC_ENTITY_PROCESSING_UNIT)
		return UVC_CTRL_UNIT_PROCESSING;
	return -1;
}

const struct uvc_ctrl_info *uvc_ctrl_info_find(enum uvc_ctrl_unit unit, unsigned index)
{
	for (unsigned i = 0; i < uvc_ctrl_n_infos; i++)
		if (uvc_ctrl_infos[i].unit == unit && uvc_ctrl_infos[i].index == index)
			return &uvc_ctrl_infos[i];
	return NULL;
}

bool uvc_ctrl_mapping_applies(const struct uvc_ctrl_mapping *m, const struct uvc_ctrl_info *info,
			      uint16_t bcd_uvc)
{
	if (m->unit != info->unit || m->selector != info->selector)
		return false;
	if (m->bcd_min && bcd_uvc < m->bcd_min)
		return false;
	return !m->bcd_max || bcd_uvc < m->bcd_max;
}

uint16_t uvc_ctrl_flags_from_info(uint16_t flags, int info_byte)
{
	if (info_byte < 0)
		return flags;
	flags &= (uint16_t)~(UVC_CTRL_FLAG_GET_CUR | UVC_CTRL_FLAG_SET_CUR |
			     UVC_CTRL_FLAG_AUTO_UPDATE | UVC_CTRL_FLAG_ASYNCHRONOUS);
	if (info_byte & UVC_CONTROL_CAP_GET)
		flags |= UVC_CTRL_FLAG_GET_CUR;
	if (info_byte & UVC_CONTROL_CAP_SET)
		flags |= UVC_CTRL_FLAG_SET_CUR;
	if (info_byte & UVC_CONTROL_CAP_AUTOUPDATE)
		flags |= UVC_CTRL_FLAG_AUTO_UPDATE;
	if (info_byte & UVC_CONTROL_CAP_ASYNCHRONOUS)
		flags |= UVC_CTRL_FLAG_ASYNCHRONOUS;
	return flags;
}

/* ---- value codecs ---- */

/* Bits [offset, offset + size) of little-endian data, sign-extended for
 * signed mappings (size <= 32). */
static int32_t get_le(const struct uvc_ctrl_mapping *m, const uint8_t *data)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < m->size; i++) {
		unsigned bit = m->offset + i;

		v |= (uint32_t)((data[bit / 8] >> (bit % 8)) & 1) << i;
	}
	if (m->data_type == UVC_CTRL_DATA_TYPE_SIGNED && m->size && m->size < 32 &&
	    (v >> (m->size - 1)) & 1)
		v |= ~0u << m->size;
	return (int32_t)v;
}

/* uvc_set_le_value step by step: each byte takes (value << offset) under
 * the byte's mask, then value moves on by 'offset' bits if the byte was
 * partial (8 otherwise). */
static void set_le(const struct uvc_ctrl_mapping *m, int32_t value, uint8_t *data)
{
	int bits = m->size;
	unsigned offset = m->offset & 7;
	int64_t v = m->v4l2_type == V4L2_CTRL_TYPE_BUTTON ? -1 : value;

	data += m->offset / 8;
	for (; bits > 0; data++) {
		uint8_t mask = (uint8_t)((((uint64_t)1 << bits) - 1) << offset);
		uint8_t shifted = (uint8_t)((uint64_t)v << offset);

		*data = (uint8_t)((*data & ~mask) | (shifted & mask));
		v >>= offset ? offset : 8; /* arithmetic, as the kernel's s32 */
		bits -= 8 - (int)offset;
		offset = 0;
	}
}

/* abs() clamped to a byte as min((int)abs(v), 0xff): abs(INT32_MIN) stays
 * negative in the kernel, so it clamps to itself and truncates to 0. */
static uint8_t speed_byte(int32_t v)
{
	if (v == INT32_MIN)
		return 0;
	v = v < 0 ? -v : v;
	return (uint8_t)(v > 0xff ? 0xff : v);
}

int32_t uvc_ctrl_get_value(const struct uvc_ctrl_mapping *m, uint8_t query, const uint8_t *data)
{
	unsigned first = m->offset / 8;
	int8_t dir;

	switch (m->codec) {
	case UVC_CTRL_CODEC_ZOOM: /* bZoom, bDigitalZoom, bSpeed */
		dir = (int8_t)data[0];
		if (query == UVC_GET_CUR)
			return dir == 0 ? 0 : dir > 0 ? data[2] : -(int32_t)data[2];
		return data[2];
	case UVC_CTRL_CODEC_REL_SPEED: /* direction byte, speed byte */
		dir = (int8_t)data[first];
		if (query == UVC_GET_CUR)
			return dir == 0 ? 0 : dir > 0 ? data[first + 1] : -(int32_t)data[first + 1];
		if (query == UVC_GET_MIN)
			return -(int32_t)data[first + 1];
		return data[first + 1];
	default:
		return get_le(m, data);
	}
}

void uvc_ctrl_set_value(const struct uvc_ctrl_mapping *m, int32_t value, uint8_t *data)
{
	unsigned first = m->offset / 8;
	uint8_t dir = value == 0 ? 0 : value > 0 ? 1 : 0xff;

	switch (m->codec) {
	case UVC_CTRL_CODEC_ZOOM:
		data[0] = dir;
		data[2] = speed_byte(value);
		break;
	case UVC_CTRL_CODEC_REL_SPEED:
		data[first] = dir;
		data[first + 1] = speed_byte(value);
		break;
	default:
		set_le(m, value, data);
		break;
	}
}

/* ---- menus ---- */

int uvc_ctrl_menu_min(uint32_t mask)
{
	return mask ? __builtin_ctz(mask) : -1;
}

int uvc_ctrl_menu_max(uint32_t mask)
{
	return mask ? 31 - __builtin_clz(mask) : -1;
}

int32_t uvc_ctrl_menu_index(const struct uvc_ctrl_mapping *m, int32_t uvc_value)
{
	for (unsigned i = 0; i < 32 && (1ull << i) <= m->menu_mask; i++)
		if ((m->menu_mask >> i) & 1 && (int32_t)m->menu[i].value == uvc_value)
			return (int32_t)i;
	return uvc_value;
}

/* ---- names ---- */

/* v4l2_ctrl_get_name() of the 6.1 core for the classes a camera's
 * extension unit controls are mapped into (user, camera, flash, image
 * source, image processing; v4l2-ctrls-defs.c): UVCIOC_CTRL_MAP takes the
 * application's name only for ids it does not know. */
static const struct {
	uint32_t id;
	const char *name;
} names[] = {
	{ V4L2_CID_USER_CLASS, "User Controls" },
	{ V4L2_CID_BRIGHTNESS, "Brightness" },
	{ V4L2_CID_CONTRAST, "Contrast" },
	{ V4L2_CID_SATURATION, "Saturation" },
	{ V4L2_CID_HUE, "Hue" },
	{ V4L2_CID_AUDIO_VOLUME, "Volume" },
	{ V4L2_CID_AUDIO_BALANCE, "Balance" },
	{ V4L2_CID_AUDIO_BASS, "Bass" },
	{ V4L2_CID_AUDIO_TREBLE, "Treble" },
	{ V4L2_CID_AUDIO_MUTE, "Mute" },
	{ V4L2_CID_AUDIO_LOUDNESS, "Loudness" },
	{ V4L2_CID_BLACK_LEVEL, "Black Level" },
	{ V4L2_CID_AUTO_WHITE_BALANCE, "White Balance, Automatic" },
	{ V4L2_CID_DO_WHITE_BALANCE, "Do White Balance" },
	{ V4L2_CID_RED_BALANCE, "Red Balance" },
	{ V4L2_CID_BLUE_BALANCE, "Blue Balance" },
	{ V4L2_CID_GAMMA, "Gamma" },
	{ V4L2_CID_EXPOSURE, "Exposure" },
	{ V4L2_CID_AUTOGAIN, "Gain, Automatic" },
	{ V4L2_CID_GAIN, "Gain" },
	{ V4L2_CID_HFLIP, "Horizontal Flip" },
	{ V4L2_CID_VFLIP, "Vertical Flip" },
	{ V4L2_CID_POWER_LINE_FREQUENCY, "Power Line Frequency" },
	{ V4L2_CID_HUE_AUTO, "Hue, Automatic" },
	{ V4L2_CID_WHITE_BALANCE_TEMPERATURE, "White Balance Temperature" },
	{ V4L2_CID_SHARPNESS, "Sharpness" },
	{ V4L2_CID_BACKLIGHT_COMPENSATION, "Backlight Compensation" },
	{ V4L2_CID_CHROMA_AGC, "Chroma AGC" },
	{ V4L2_CID_COLOR_KILLER, "Color Killer" },
	{ V4L2_CID_COLORFX, "Color Effects" },
	{ V4L2_CID_AUTOBRIGHTNESS, "Brightness, Automatic" },
	{ V4L2_CID_BAND_STOP_FILTER, "Band-Stop Filter" },
	{ V4L2_CID_ROTATE, "Rotate" },
	{ V4L2_CID_BG_COLOR, "Background Color" },
	{ V4L2_CID_CHROMA_GAIN, "Chroma Gain" },
	{ V4L2_CID_ILLUMINATORS_1, "Illuminator 1" },
	{ V4L2_CID_ILLUMINATORS_2, "Illuminator 2" },
	{ V4L2_CID_MIN_BUFFERS_FOR_CAPTURE, "Min Number of Capture Buffers" },
	{ V4L2_CID_MIN_BUFFERS_FOR_OUTPUT, "Min Number of Output Buffers" },
	{ V4L2_CID_ALPHA_COMPONENT, "Alpha Component" },
	{ V4L2_CID_COLORFX_CBCR, "Color Effects, CbCr" },
	{ V4L2_CID_COLORFX_RGB, "Color Effects, RGB" },
	{ V4L2_CID_CAMERA_CLASS, "Camera Controls" },
	{ V4L2_CID_EXPOSURE_AUTO, "Auto Exposure" },
	{ V4L2_CID_EXPOSURE_ABSOLUTE, "Exposure Time, Absolute" },
	{ V4L2_CID_EXPOSURE_AUTO_PRIORITY, "Exposure, Dynamic Framerate" },
	{ V4L2_CID_PAN_RELATIVE, "Pan, Relative" },
	{ V4L2_CID_TILT_RELATIVE, "Tilt, Relative" },
	{ V4L2_CID_PAN_RESET, "Pan, Reset" },
	{ V4L2_CID_TILT_RESET, "Tilt, Reset" },
	{ V4L2_CID_PAN_ABSOLUTE, "Pan, Absolute" },
	{ V4L2_CID_TILT_ABSOLUTE, "Tilt, Absolute" },
	{ V4L2_CID_FOCUS_ABSOLUTE, "Focus, Absolute" },
	{ V4L2_CID_FOCUS_RELATIVE, "Focus, Relative" },
	{ V4L2_CID_FOCUS_AUTO, "Focus, Automatic Continuous" },
	{ V4L2_CID_ZOOM_ABSOLUTE, "Zoom, Absolute" },
	{ V4L2_CID_ZOOM_RELATIVE, "Zoom, Relative" },
	{ V4L2_CID_ZOOM_CONTINUOUS, "Zoom, Continuous" },
	{ V4L2_CID_PRIVACY, "Privacy" },
	{ V4L2_CID_IRIS_ABSOLUTE, "Iris, Absolute" },
	{ V4L2_CID_IRIS_RELATIVE, "Iris, Relative" },
	{ V4L2_CID_AUTO_EXPOSURE_BIAS, "Auto Exposure, Bias" },
	{ V4L2_CID_AUTO_N_PRESET_WHITE_BALANCE, "White Balance, Auto & Preset" },
	{ V4L2_CID_WIDE_DYNAMIC_RANGE, "Wide Dynamic Range" },
	{ V4L2_CID_IMAGE_STABILIZATION, "Image Stabilization" },
	{ V4L2_CID_ISO_SENSITIVITY, "ISO Sensitivity" },
	{ V4L2_CID_ISO_SENSITIVITY_AUTO, "ISO Sensitivity, Auto" },
	{ V4L2_CID_EXPOSURE_METERING, "Exposure, Metering Mode" },
	{ V4L2_CID_SCENE_MODE, "Scene Mode" },
	{ V4L2_CID_3A_LOCK, "3A Lock" },
	{ V4L2_CID_AUTO_FOCUS_START, "Auto Focus, Start" },
	{ V4L2_CID_AUTO_FOCUS_STOP, "Auto Focus, Stop" },
	{ V4L2_CID_AUTO_FOCUS_STATUS, "Auto Focus, Status" },
	{ V4L2_CID_AUTO_FOCUS_RANGE, "Auto Focus, Range" },
	{ V4L2_CID_PAN_SPEED, "Pan, Speed" },
	{ V4L2_CID_TILT_SPEED, "Tilt, Speed" },
	{ V4L2_CID_UNIT_CELL_SIZE, "Unit Cell Size" },
	{ V4L2_CID_CAMERA_ORIENTATION, "Camera Orientation" },
	{ V4L2_CID_CAMERA_SENSOR_ROTATION, "Camera Sensor Rotation" },
	{ V4L2_CID_FLASH_CLASS, "Flash Controls" },
	{ V4L2_CID_FLASH_LED_MODE, "LED Mode" },
	{ V4L2_CID_FLASH_STROBE_SOURCE, "Strobe Source" },
	{ V4L2_CID_FLASH_STROBE, "Strobe" },
	{ V4L2_CID_FLASH_STROBE_STOP, "Stop Strobe" },
	{ V4L2_CID_FLASH_STROBE_STATUS, "Strobe Status" },
	{ V4L2_CID_FLASH_TIMEOUT, "Strobe Timeout" },
	{ V4L2_CID_FLASH_INTENSITY, "Intensity, Flash Mode" },
	{ V4L2_CID_FLASH_TORCH_INTENSITY, "Intensity, Torch Mode" },
	{ V4L2_CID_FLASH_INDICATOR_INTENSITY, "Intensity, Indicator" },
	{ V4L2_CID_FLASH_FAULT, "Faults" },
	{ V4L2_CID_FLASH_CHARGE, "Charge" },
	{ V4L2_CID_FLASH_READY, "Ready to Strobe" },
	{ V4L2_CID_IMAGE_SOURCE_CLASS, "Image Source Controls" },
	{ V4L2_CID_VBLANK, "Vertical Blanking" },
	{ V4L2_CID_HBLANK, "Horizontal Blanking" },
	{ V4L2_CID_ANALOGUE_GAIN, "Analogue Gain" },
	{ V4L2_CID_TEST_PATTERN_RED, "Red Pixel Value" },
	{ V4L2_CID_TEST_PATTERN_GREENR, "Green (Red) Pixel Value" },
	{ V4L2_CID_TEST_PATTERN_BLUE, "Blue Pixel Value" },
	{ V4L2_CID_TEST_PATTERN_GREENB, "Green (Blue) Pixel Value" },
	{ V4L2_CID_NOTIFY_GAINS, "Notify Gains" },
	{ V4L2_CID_IMAGE_PROC_CLASS, "Image Processing Controls" },
	{ V4L2_CID_LINK_FREQ, "Link Frequency" },
	{ V4L2_CID_PIXEL_RATE, "Pixel Rate" },
	{ V4L2_CID_TEST_PATTERN, "Test Pattern" },
	{ V4L2_CID_DEINTERLACING_MODE, "Deinterlacing Mode" },
	{ V4L2_CID_DIGITAL_GAIN, "Digital Gain" },
};

const char *uvc_ctrl_v4l2_std_name(uint32_t id)
{
	for (size_t i = 0; i < N(names); i++)
		if (names[i].id == id)
			return names[i].name;
	return NULL;
}

const char *uvc_ctrl_v4l2_name(uint32_t id)
{
	const char *name = uvc_ctrl_v4l2_std_name(id);
	return name ? name : "Unknown Control";
}

const char *uvc_ctrl_mapping_name(const struct uvc_ctrl_mapping *m)
{
	return m->name ? m->name : uvc_ctrl_v4l2_name(m->id);
}

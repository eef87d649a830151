/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual camera's controls: a pure model (no I/O) of the UVC
 * class-specific control requests addressed to the VideoControl interface,
 * its camera terminal (CT), processing unit (PU) and extension unit (XU),
 * plus the camera's own automatic changes (auto white balance, auto
 * exposure, autofocus, relative zoom/pan/tilt motion) reported as status
 * interrupt events.
 *
 * Offered controls and the V4L2 controls uvcvideo (Linux 6.1) makes of them:
 *   PU brightness, contrast, hue, saturation, sharpness, gamma,
 *      white balance temperature, white balance component (red/blue),
 *      backlight compensation, gain, power line frequency (UVC 1.1: 0..2,
 *      UVC 1.5: 0..3 with Auto), hue auto, white balance temperature auto.
 *   CT AE mode (Manual and Auto), AE priority, exposure time absolute,
 *      focus absolute, iris absolute, zoom absolute, zoom relative,
 *      pan/tilt absolute, pan/tilt relative, focus auto, privacy.
 *   XU (vcam_xu_guid) LED mode, test pattern, request counter.
 * Only controls uvcvideo maps to V4L2 controls are offered, so that
 * `v4l2-ctl --list-ctrls-menus` shows every one of them (see controls.c
 * for the controls left out and why).
 *
 * Automatic modes (WB temperature auto, hue auto, focus auto, AE mode Auto)
 * default to manual: with Debian 12's pair of uvcvideo (which answers
 * EACCES to setting a control whose auto master is on) and v4l2-compliance
 * 1.22.1 (which counts that EACCES as a failure) any auto mode left on by
 * default fails v4l2-compliance. */
#ifndef VCAM_CONTROLS_H
#define VCAM_CONTROLS_H

#include <stddef.h>
#include <stdint.h>

/* Who a request is addressed to. The caller maps wIndex's entity ID:
 * 0 -> INTERFACE, the CT/PU/XU IDs of descriptors.h -> the rest. */
enum vcam_entity {
	VCAM_ENTITY_INTERFACE,
	VCAM_ENTITY_CAMERA,
	VCAM_ENTITY_PROCESSING,
	VCAM_ENTITY_EXTENSION,
};

/* bRequestErrorCode values of VC_REQUEST_ERROR_CODE_CONTROL (UVC 1.1/1.5
 * section 4.2.1.2; <linux/usb/video.h> does not define them). */
enum vcam_request_error {
	VCAM_ERR_NONE = 0x00,
	VCAM_ERR_NOT_READY = 0x01,
	VCAM_ERR_WRONG_STATE = 0x02,
	VCAM_ERR_POWER = 0x03,
	VCAM_ERR_OUT_OF_RANGE = 0x04,   /* outside MIN..MAX, or off the RES grid */
	VCAM_ERR_INVALID_UNIT = 0x05,
	VCAM_ERR_INVALID_CONTROL = 0x06,
	VCAM_ERR_INVALID_REQUEST = 0x07, /* request not supported by the control */
	VCAM_ERR_INVALID_VALUE = 0x08,   /* within range but not supported */
	VCAM_ERR_UNKNOWN = 0xff,         /* also used for a wLength that does not
					  * match the control: the spec has no
					  * code of its own for it */
};

/* bAttribute of a control status interrupt packet (UVC section 2.4.2.2). */
enum {
	VCAM_ATTR_VALUE = 0,
	VCAM_ATTR_INFO = 1,
	VCAM_ATTR_FAILURE = 2,
	VCAM_ATTR_MIN = 3,
	VCAM_ATTR_MAX = 4,
};

/* Extension unit controls. uvcvideo requires selector = bmControls bit + 1. */
enum {
	VCAM_XU_LED_MODE = 1,        /* 1 byte: 0 off, 1 on, 2 blink, 3 auto; def 3 */
	VCAM_XU_TEST_PATTERN = 2,    /* 2 bytes: 0 live, 1 bars, 2 ramp, 3 checker,
				      * 4 black; def 0 (stored only for now) */
	VCAM_XU_REQUEST_COUNTER = 3, /* 4 bytes, read-only: SET_CUR requests the
				      * camera accepted since power-on */
	/* Microsoft's UVC 1.5 metadata control (MSXU_CONTROL_METADATA), with
	 * vcam_controls_enable_msxu() only: 4 bytes, the metadata bytes the
	 * camera may add to a frame's payload headers; 0 (the default): none.
	 * GET_MAX: VCAM_MSXU_MAX. */
	VCAM_XU_MSXU_METADATA = 9,
};
#define VCAM_MSXU_MAX 1024

/* Microsoft's UVC 1.5 extension unit GUID (MSXU_1_5,
 * {0f3f95dc-2632-4c4e-92c9-a04782f43bc8}), which the XU takes with --msxu. */
extern const uint8_t vcam_msxu_guid[16];

/* The extension unit's GUID, made up for uvcuse:
 * {7663616d-7563-4573-8d1e-3c5a9f2b6e01}, in descriptor byte order (the first
 * three groups little-endian), which is how uvcvideo prints it. */
extern const uint8_t vcam_xu_guid[16];

struct vcam_controls;

/* A camera with every control at its default. bcd_uvc is 0x0110 or 0x0150
 * (the VC header's bcdUVC: it selects the power line frequency menu).
 * NULL on a bad version or no memory. */
struct vcam_controls *vcam_controls_new(uint16_t bcd_uvc);
/* A camera being impersonated: the controls its camera terminal and
 * processing unit descriptors announce (bmControls, bit n = 1 << n), each
 * with the vcam's plausible range, and no extension unit controls (an
 * impersonated camera's XUs are served by xu_store.c). Any bcdUVC: before
 * 1.5 it gets the UVC 1.1 power line menu. Controls whose bit the vcam has
 * no model for are not offered (the request STALLs, INVALID_CONTROL). */
struct vcam_controls *vcam_controls_new_masked(uint16_t bcd_uvc, uint32_t ct_bits,
					       uint32_t pu_bits);
void vcam_controls_free(struct vcam_controls *c);

/* bmControls of the CT (3 bytes used), PU (3 bytes) and XU (2 bytes) descriptors;
 * 0 for the interface. */
uint32_t vcam_controls_bitmap(const struct vcam_controls *c, enum vcam_entity e);
/* bNumControls of the XU descriptor. */
unsigned vcam_controls_xu_count(const struct vcam_controls *c);
/* The XU offers the MSXU metadata control too (--msxu). */
void vcam_controls_enable_msxu(struct vcam_controls *c);
/* Its value: the metadata bytes a frame may carry (0: none, or not offered). */
uint32_t vcam_controls_msxu_size(const struct vcam_controls *c);

/* Handles one class-specific control request (bRequest = request,
 * wValue high byte = selector). data holds wLength = length bytes: the input
 * of a SET_CUR, the room for a GET_*. Returns the number of bytes produced
 * for a GET, 0 for an accepted SET_CUR, or -1 when the device must STALL;
 * the reason is then kept for VC_REQUEST_ERROR_CODE_CONTROL. Any request
 * that succeeds resets that code to 0. */
int vcam_controls_request(struct vcam_controls *c, enum vcam_entity e, uint8_t request,
			  uint8_t selector, uint8_t *data, uint16_t length);

/* For requests the caller refuses itself (an unknown unit ID: INVALID_UNIT,
 * the output terminal: INVALID_CONTROL): keeps code and returns -1. */
int vcam_controls_reject(struct vcam_controls *c, uint8_t code);

/* The code VC_REQUEST_ERROR_CODE_CONTROL holds now (without resetting it),
 * for logging a STALL. */
uint8_t vcam_controls_error(const struct vcam_controls *c);

/* A control status interrupt to send: bOriginator is the entity's ID,
 * bSelector = selector, bAttribute = attribute, bValue = value[0..length).
 * VALUE events carry the control's new GET_CUR bytes, INFO events its new
 * GET_INFO byte. */
struct vcam_control_event {
	enum vcam_entity entity;
	uint8_t selector;
	uint8_t attribute;
	uint8_t length;
	uint8_t value[8];
};

/* Advances the camera's automatic loops to now_ns (any monotonic clock;
 * only differences matter) and writes at most max events for the changes the
 * host has not seen yet: values that changed by themselves (automatic loops
 * step once a second, relative motion every 100 ms, starting from the first
 * tick after the mode was entered) and GET_INFO bytes that changed (the
 * "disabled due to automatic mode" bit). Events left over come with the next
 * call. Returns the number written. Deterministic in the times passed. */
size_t vcam_controls_tick(struct vcam_controls *c, uint64_t now_ns,
			  struct vcam_control_event *events, size_t max);

/* The brightness the picture must show (PU brightness, -64..64, 0 = neutral). */
int vcam_controls_brightness(const struct vcam_controls *c);
/* Changes whenever a value the picture depends on (for now: brightness)
 * changes, so the frame generator knows to redraw. */
unsigned vcam_controls_picture_generation(const struct vcam_controls *c);

/* Called after each SET_CUR that changes a setting, with a line such as
 * "control brightness = 32" (no newline, no prefix). */
typedef void vcam_controls_log_fn(void *opaque, const char *line);
void vcam_controls_set_log(struct vcam_controls *c, vcam_controls_log_fn *fn, void *opaque);

/* The short name of a control ("brightness", "pan_tilt_absolute", ...), or
 * NULL when the vcam's own camera has no such control. */
const char *vcam_controls_name(enum vcam_entity e, uint8_t selector);

/* Checks the control table's invariants (min <= def <= max, def and max on
 * the RES grid, field layout, unique selectors and bits, auto loops within
 * range). Returns 0, or -1 with a reason in msg. For the unit tests. */
int vcam_controls_self_check(char *msg, size_t cap);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcvideo's (Linux 6.1) control tables as data: which UVC controls of the
 * camera terminal and processing unit the driver knows (size, requests it
 * makes), and how each becomes V4L2 controls (CID, bit field, type, menu,
 * auto/manual clusters). Pure: no I/O, no allocation. The V4L2 semantics over
 * these tables live in src/v4l2/controls.[ch].
 *
 * Source of the facts: drivers/media/usb/uvc/uvc_ctrl.c of Debian 12's
 * linux-source-6.1 (uvc_ctrls[], uvc_ctrl_mappings[], the _uvc11/_uvc15
 * power line mappings, uvc_get_le_value, uvc_set_le_value,
 * uvc_ctrl_get/set_zoom, uvc_ctrl_get/set_rel_speed, uvc_ctrl_get_flags) and
 * v4l2-ctrls-defs.c (v4l2_ctrl_get_name). */
#ifndef UVC_CTRL_MAP_H
#define UVC_CTRL_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/uvcvideo.h> /* UVC_CTRL_FLAG_*, UVC_CTRL_DATA_TYPE_* */

#include "uvc/descriptors.h"

/* The entity a standard control belongs to: uvcvideo matches by GUID, the
 * camera terminal and processing unit having fixed ones. GPIO is uvcvideo's
 * own privacy-GPIO entity (no descriptor; never in a camera model). UVC 1.5
 * encoding units have no entry in 6.1's tables. */
enum uvc_ctrl_unit {
	UVC_CTRL_UNIT_CAMERA,
	UVC_CTRL_UNIT_PROCESSING,
	UVC_CTRL_UNIT_GPIO,
	UVC_CTRL_UNIT_EXTENSION, /* vendor controls: mapped by applications
				  * (UVCIOC_CTRL_MAP), never in the tables */
};

/* One UVC control uvcvideo knows (uvc_ctrls[]). */
struct uvc_ctrl_info {
	enum uvc_ctrl_unit unit;
	uint8_t selector;
	uint8_t index;   /* bmControls bit */
	uint8_t size;    /* bytes (wLength of every request) */
	uint16_t flags;  /* UVC_CTRL_FLAG_*: what uvcvideo requests; GET_INFO
			  * replaces GET_CUR, SET_CUR, AUTO_UPDATE, ASYNCHRONOUS */
	const char *name; /* short name, for logs */
};

/* How a mapping turns the control's bytes into a V4L2 value. */
enum uvc_ctrl_codec {
	UVC_CTRL_CODEC_LE,        /* uvc_get_le_value / uvc_set_le_value */
	UVC_CTRL_CODEC_ZOOM,      /* uvc_ctrl_get_zoom / _set_zoom */
	UVC_CTRL_CODEC_REL_SPEED, /* uvc_ctrl_get_rel_speed / _set_rel_speed */
};

struct uvc_ctrl_menu {
	uint32_t value;   /* the UVC value (a bit for BITMASK controls) */
	const char *name; /* what VIDIOC_QUERYMENU answers */
};

/* One V4L2 control made of (part of) a UVC control (uvc_ctrl_mappings[]). */
struct uvc_ctrl_mapping {
	uint32_t id;            /* V4L2_CID_* */
	enum uvc_ctrl_unit unit;
	uint8_t selector;
	uint8_t size, offset;   /* bits */
	uint32_t v4l2_type;     /* V4L2_CTRL_TYPE_* */
	uint8_t data_type;      /* UVC_CTRL_DATA_TYPE_* */
	enum uvc_ctrl_codec codec;
	const struct uvc_ctrl_menu *menu; /* indexed by the V4L2 menu index */
	uint32_t menu_mask;     /* valid menu indices */
	uint32_t master_id;     /* inactive unless master == master_manual */
	int32_t master_manual;
	uint32_t slave_ids[2];
	/* Applies when bcd_min <= bcdUVC < bcd_max (0: no bound). */
	uint16_t bcd_min, bcd_max;
	/* The application's name of a UVCIOC_CTRL_MAP mapping whose id the
	 * V4L2 core does not name; NULL: the core's name for the id. */
	const char *name;
};

/* The tables, in uvcvideo's order. The mappings hold the common ones first,
 * then the version-specific ones, as uvc_ctrl_init_ctrl adds them. */
extern const struct uvc_ctrl_info uvc_ctrl_infos[];
extern const unsigned uvc_ctrl_n_infos;
extern const struct uvc_ctrl_mapping uvc_ctrl_mappings[];
extern const unsigned uvc_ctrl_n_mappings;
/* uvcvideo's per-device override for cameras whose power line control
 * lacks "Disabled" (uvc_ctrl_power_line_mapping_limited: 50/60 Hz only);
 * used through quirks, never by default. */
extern const struct uvc_ctrl_mapping uvc_ctrl_power_line_limited;

/* The unit kind of a model entity: the camera terminal (input terminal of
 * type ITT_CAMERA) and processing units; -1 for every other entity. */
int uvc_ctrl_entity_unit(const struct uvc_entity *e);

/* The control uvcvideo knows at bmControls bit 'index' of a unit, or NULL
 * (uvc_ctrl_init_ctrl matches GUID and index). */
const struct uvc_ctrl_info *uvc_ctrl_info_find(enum uvc_ctrl_unit unit, unsigned index);

/* Whether a mapping applies to a control under a camera's bcdUVC. */
bool uvc_ctrl_mapping_applies(const struct uvc_ctrl_mapping *m, const struct uvc_ctrl_info *info,
			      uint16_t bcd_uvc);

/* The control's flags after GET_INFO answered info_byte (>= 0), as
 * uvc_ctrl_get_flags: CAP_GET/SET/AUTOUPDATE/ASYNCHRONOUS replace GET_CUR,
 * SET_CUR, AUTO_UPDATE, ASYNCHRONOUS. A failed GET_INFO (negative) keeps
 * the table's flags. */
uint16_t uvc_ctrl_flags_from_info(uint16_t flags, int info_byte);

/* The value of a mapping in a control's bytes for a query (UVC_GET_CUR,
 * _MIN, _MAX, _RES, _DEF: the relative and zoom codecs answer each
 * differently). data holds the control's full size. */
int32_t uvc_ctrl_get_value(const struct uvc_ctrl_mapping *m, uint8_t query, const uint8_t *data);

/* Writes value into the mapping's bits of data (read-modify-write: other
 * bits are kept). Faithful to uvc_set_le_value, including its shift after a
 * first partial byte (only byte-aligned fields, or fields within one byte,
 * pack as one expects: all the standard mappings are). Buttons write all
 * ones. */
void uvc_ctrl_set_value(const struct uvc_ctrl_mapping *m, int32_t value, uint8_t *data);

/* Lowest and highest valid menu index of a mask (ffs - 1, fls - 1). */
int uvc_ctrl_menu_min(uint32_t mask);
int uvc_ctrl_menu_max(uint32_t mask);

/* The V4L2 menu index of a UVC value (the first index in the mask whose
 * entry has it), or the value itself when none has it, as
 * __uvc_ctrl_get_value does. */
int32_t uvc_ctrl_menu_index(const struct uvc_ctrl_mapping *m, int32_t uvc_value);

/* The name v4l2_ctrl_get_name gives an id of the user, camera, flash,
 * image source or image processing class (the classes a camera's controls
 * belong to), or NULL when it has none there. Ids of the other classes
 * (codecs, radio, DV, detection, colorimetry) read as unnamed. */
const char *uvc_ctrl_v4l2_std_name(uint32_t id);

/* The same with "Unknown Control" for unnamed ids. */
const char *uvc_ctrl_v4l2_name(uint32_t id);

/* What VIDIOC_QUERYCTRL names a mapping (uvc_map_get_name): its own name
 * (UVCIOC_CTRL_MAP), the core's, or "Unknown Control". */
const char *uvc_ctrl_mapping_name(const struct uvc_ctrl_mapping *m);

#endif

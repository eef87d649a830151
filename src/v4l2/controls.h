/* SPDX-License-Identifier: GPL-2.0-or-later */
/* V4L2 controls of one camera with uvcvideo 6.1's answers, without I/O.
 *
 * The caller owns a struct ctrls (fixed size, no allocation anywhere here)
 * and is the only one to talk to the camera. Every operation either answers
 * (0 or a negative errno, as uvcvideo would) or returns CTRLS_NEED with
 * c->need filled: the UVC request (unit/terminal ID, selector, GET_* query,
 * wLength) whose answer is missing. The caller makes that request, hands the
 * answer to ctrls_feed() and calls the same operation again, until it
 * answers. uvcvideo reads lazily and caches the same way (GET_DEF, MIN, MAX,
 * RES once per control on first need; GET_CUR until the control is reloaded),
 * so the camera sees the same requests in the same order.
 *
 * The device layer:
 *   ctrls_init(&c, camera);                      after parsing descriptors
 *   while (ctrls_next_info(&c, &r))              GET_INFO of every control
 *       ctrls_feed(&c, &r, buf, usb_get(r));
 *   ioctl: ret = ctrls_queryctrl(&c, &qc);
 *          while (ret == CTRLS_NEED) { n = usb(c.need); ctrls_feed(&c, &c.need, buf, n);
 *                                      ret = ctrls_queryctrl(&c, &qc); }
 *   S/TRY_EXT_CTRLS: ctrls_check_access() for each, ctrls_set() for each
 *   (stages bytes), then for S: ctrls_commit_next()/ctrls_commit_done()
 *   (SET_CUR in uvcvideo's order), for TRY or on error: ctrls_rollback();
 *   G/S/TRY_EXT_CTRLS end with ctrls_end() (auto-update controls and
 *   controls without GET_CUR are read again next time, as uvcvideo does).
 *
 * Extension unit controls (UVCIOC_CTRL_QUERY, UVCIOC_CTRL_MAP) are known
 * only once an application names them, as in uvcvideo: ctrls_xu_query()
 * and ctrls_xu_map() read GET_LEN and GET_INFO then (CTRLS_NEED as above)
 * and keep the control in c->uvc[] at its place in the chain. Their bytes
 * and the mappings applications add live on the heap: ctrls_free().
 */
#ifndef V4L2_CONTROLS_H
#define V4L2_CONTROLS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/videodev2.h>

#include "uvc/chain.h"
#include "uvc/ctrl_map.h"
#include "uvc/descriptors.h"

#define CTRLS_MAX_STD 40   /* uvcvideo knows 36 standard UVC controls */
#define CTRLS_MAX_XU 256   /* extension unit controls in use at once */
#define CTRLS_MAX_UVC (CTRLS_MAX_STD + CTRLS_MAX_XU)
/* Mappings applications may add (uvcvideo's UVC_MAX_CONTROL_MAPPINGS) */
#define CTRLS_MAX_USER_MAPS 1024
#define CTRLS_MAX_MAPS (48 + CTRLS_MAX_USER_MAPS) /* 33 standard ones */
/* The largest standard control (pan/tilt absolute); extension unit
 * controls may be larger (GET_LEN says, up to 65535 bytes). */
#define CTRLS_MAX_BYTES 8
/* Entities of the chain uvcvideo scans that ctrls keeps in order. */
#define CTRLS_MAX_CHAIN UVC_CHAIN_MAX_ENTITIES
/* uvcvideo's UVC_MAX_CONTROL_MENU_ENTRIES */
#define CTRLS_MAX_MENU 32

#define CTRLS_NEED 1

/* Bytes kept per UVC control, as uvcvideo's UVC_CTRL_DATA_*. */
enum ctrls_data {
	CTRLS_CUR,
	CTRLS_BACKUP,
	CTRLS_MIN,
	CTRLS_MAX,
	CTRLS_RES,
	CTRLS_DEF,
	CTRLS_N_DATA
};

/* The ctrl of the GET_LEN and GET_INFO requests that introduce an
 * extension unit control (not yet in c->uvc[]). */
#define CTRLS_XU_INIT 0xffffffffu

/* A UVC request the caller must make (GET_* only; SET_CUR comes from
 * ctrls_commit_next, any query from ctrls_xu_query). */
struct ctrls_request {
	unsigned ctrl;     /* index in c->uvc[], or CTRLS_XU_INIT */
	uint8_t entity;    /* bUnitID / bTerminalID: wIndex high byte */
	uint8_t selector;  /* wValue high byte */
	uint8_t query;     /* UVC_GET_INFO, _CUR, _MIN, _MAX, _RES, _DEF, _LEN, UVC_SET_CUR */
	uint16_t size;     /* wLength */
	/* Not a control: probe or commit (selector UVC_VS_PROBE_CONTROL or
	 * _COMMIT_CONTROL, entity 0) on the node's streaming interface. */
	bool streaming;
};

/* One UVC control of the camera (uvcvideo's struct uvc_control). */
struct ctrls_uvc {
	const struct uvc_ctrl_info *info; /* standard controls; NULL: extension unit */
	uint8_t entity;
	uint8_t selector;
	uint8_t bit;         /* bmControls bit */
	uint16_t size;       /* bytes of every request (extension units: GET_LEN) */
	uint16_t flags;      /* the table's, with GET_INFO applied */
	bool info_done;      /* GET_INFO answered (or failed: table flags kept) */
	bool loaded;         /* CUR is valid */
	bool dirty;          /* CUR staged by ctrls_set, not yet committed */
	bool modified;       /* an app's SET_CUR of it succeeded (uvcvideo's
			      * ctrl->modified: what RESTORE_CTRLS_ON_INIT sends) */
	uint8_t have;        /* which of MIN, MAX, RES, DEF arrived (bit per enum) */
	uint8_t data[CTRLS_N_DATA][CTRLS_MAX_BYTES];
	uint8_t *xdata;      /* controls above CTRLS_MAX_BYTES: CTRLS_N_DATA * size bytes */
	/* The caller's: who set this asynchronous control and awaits the
	 * camera's status report (uvcvideo's ctrl->handle). */
	void *owner;
};

/* One V4L2 control: a mapping of a UVC control. */
struct ctrls_map {
	const struct uvc_ctrl_mapping *map;
	unsigned uvc; /* index in c->uvc[] */
	bool user;    /* added by UVCIOC_CTRL_MAP: map is ours to free */
};

struct ctrls {
	const struct uvc_camera *cam; /* not owned; outlives the controls */
	uint16_t bcd_uvc;
	uint8_t class_bitmap; /* bit 0: camera class, bit 1: user class */
	unsigned n_uvc, n_maps, n_user_maps;
	/* The chain of the node's streaming interface, as uvcvideo scans it
	 * (uvc/chain.h): its order is the order of the controls; empty when
	 * uvcvideo finds none. */
	struct uvc_chain chain;
	/* In uvcvideo's order: by chain entity, then bmControls bit; a
	 * control's mappings in table order, then those applications added. */
	struct ctrls_uvc uvc[CTRLS_MAX_UVC];
	struct ctrls_map maps[CTRLS_MAX_MAPS];
	struct ctrls_request need; /* valid after CTRLS_NEED */
	int error;                 /* a failed request's errno, for the retry */
	struct {                   /* an extension unit control being introduced */
		bool active, have_len;
		uint8_t entity, selector;
		uint16_t size;
	} xu_init;
};

/* Builds the controls of a camera: the controls of its camera terminal and
 * processing units that uvcvideo knows and whose bmControls bit is set, with
 * the mappings that apply under its bcdUVC. Returns 0, or -E2BIG if the
 * tables overflow (cannot happen with uvcvideo's tables). c holds nothing
 * on the heap afterwards (a plain copy moves it). */
int ctrls_init(struct ctrls *c, const struct uvc_camera *cam);

/* Frees what extension unit controls and application mappings took; the
 * standard controls stay usable. */
void ctrls_free(struct ctrls *c);

/* The next GET_INFO to make (1), or 0 when every control has its flags.
 * uvcvideo reads GET_INFO of each control at probe, in this order. */
int ctrls_next_info(const struct ctrls *c, struct ctrls_request *r);

/* The answer to request r: len bytes of data (len >= r->size), or a
 * negative errno when the request failed (the operation that asked then
 * fails with it; a failed GET_INFO keeps the table's flags, as uvcvideo). */
void ctrls_feed(struct ctrls *c, const struct ctrls_request *r, const uint8_t *data, int len);

/* The mapping for a V4L2 id (exact match, the first in uvcvideo's order),
 * or -EINVAL. */
int ctrls_find(const struct ctrls *c, uint32_t id);

/* The mapping of id among those of entity (__uvc_find_control within one
 * unit: how masters and slaves find each other), or -1. */
int ctrls_find_in_entity(const struct ctrls *c, uint8_t entity, uint32_t id);

/* The UVC control a status packet names (uvc_event_find_ctrl: bOriginator
 * and bSelector, among the controls known so far), or -ENOENT. */
int ctrls_find_uvc(const struct ctrls *c, uint8_t entity, uint8_t selector);

/* The control's bytes of one kind (CTRLS_CUR ...): c->uvc[i].size bytes. */
uint8_t *ctrls_data(struct ctrls *c, unsigned i, enum ctrls_data d);

/* Forgets the current value of control i (a status report said it
 * changed): the next get reads GET_CUR. */
void ctrls_invalidate(struct ctrls *c, unsigned i);

/* The id names one of the camera's control classes (__uvc_query_v4l2_class). */
bool ctrls_is_class(const struct ctrls *c, uint32_t id);

/* VIDIOC_QUERYCTRL and VIDIOC_QUERY_EXT_CTRL (V4L2_CTRL_FLAG_NEXT_CTRL
 * enumerates by rising id with the control classes in between;
 * NEXT_COMPOUND alone finds nothing more, as uvcvideo has no compound
 * controls), VIDIOC_QUERYMENU. */
int ctrls_queryctrl(struct ctrls *c, struct v4l2_queryctrl *qc);
int ctrls_query_ext_ctrl(struct ctrls *c, struct v4l2_query_ext_ctrl *qec);
int ctrls_querymenu(struct ctrls *c, struct v4l2_querymenu *qm);

/* QUERYCTRL of mapping k itself (__uvc_query_v4l2_ctrl: what a control
 * event of that mapping carries). */
int ctrls_query_map(struct ctrls *c, unsigned k, struct v4l2_queryctrl *qc);

/* The current value of mapping k (__uvc_ctrl_get), -EACCES without GET_CUR. */
int ctrls_get_map(struct ctrls *c, unsigned k, int32_t *value);

/* The V4L2 value mapping k reads in a control's bytes (GET_CUR layout, menu
 * controls as their index): what a status report's bValue means. */
int32_t ctrls_value_of(const struct ctrls *c, unsigned k, const uint8_t *data);

/* uvc_ctrl_is_accessible for xs[idx] of an ioctl (VIDIOC_G_EXT_CTRLS,
 * VIDIOC_TRY_EXT_CTRLS or VIDIOC_S_EXT_CTRLS): classes and controls the
 * camera cannot read (G) or write (TRY, S) give -EACCES, unknown ids
 * -EINVAL; for S a slave whose master is not manual (in the same request,
 * the last one wins, else the master's current value) gives -EACCES. */
int ctrls_check_access(struct ctrls *c, const struct v4l2_ext_control *xs, unsigned count,
		       unsigned idx, unsigned long ioctl);

/* uvc_ctrl_get: the current value (menu controls: the menu index). */
int ctrls_get(struct ctrls *c, uint32_t id, int32_t *value);

/* uvc_ctrl_set: clamps *value as uvcvideo (integers: rounded to the step
 * from the minimum, then clamped, signed or unsigned as the mapping;
 * booleans: 0..1; menus: -ERANGE outside the mask's span, -EINVAL for an
 * index not in the mask or a mode GET_RES does not offer) and stages the
 * new bytes in CUR (the old ones kept in BACKUP). -EACCES without SET_CUR. */
int ctrls_set(struct ctrls *c, uint32_t id, int32_t *value);

/* The bytes a value makes of a control without staging them: CUR with the
 * mapping's bits replaced. out holds c->uvc[ctrl].info->size bytes. The
 * value is not clamped (ctrls_set does that). */
int ctrls_encode(struct ctrls *c, uint32_t id, int32_t value, uint8_t *out);

/* The next staged control to send (SET_CUR with *bytes), in uvcvideo's
 * commit order, starting at index from; returns 1, or 0 when none is left. */
int ctrls_commit_next(const struct ctrls *c, unsigned from, struct ctrls_request *r,
		      const uint8_t **bytes);

/* The SET_CUR of control 'ctrl' succeeded (result >= 0): the staged bytes
 * are current. Failed: they are dropped (BACKUP restored); uvcvideo then
 * rolls back the others (ctrls_rollback) and returns the error. */
void ctrls_commit_done(struct ctrls *c, unsigned ctrl, int result);

/* Drops every staged value. */
void ctrls_rollback(struct ctrls *c);

/* uvcvideo's uvc_ctrl_restore_values: the next control, from index from,
 * that an app changed and whose table entry says restore (standard
 * controls only), with its current bytes for a SET_CUR; 1, or 0 when none
 * is left. For cameras that lose them when they start streaming
 * (UVC_QUIRK_RESTORE_CTRLS_ON_INIT). */
int ctrls_restore_next(const struct ctrls *c, unsigned from, struct ctrls_request *r,
		       const uint8_t **bytes);

/* Ends a G/S/TRY_EXT_CTRLS: controls that update themselves or cannot be
 * read are loaded again when next needed. */
void ctrls_end(struct ctrls *c);

/* The index of the ext control that names UVC control 'ctrl' (uvcvideo's
 * error_idx after a failed commit), or count. */
unsigned ctrls_error_idx(const struct ctrls *c, unsigned ctrl, const struct v4l2_ext_control *xs,
			 unsigned count);

/* UVCIOC_CTRL_QUERY (uvc_xu_ctrl_query): the request to make, with the
 * caller's own buffer of size bytes, for 'query' on control 'selector' of
 * extension unit 'unit'. The control is introduced first (GET_LEN, then
 * GET_INFO, through CTRLS_NEED; afterwards it has GET_MIN/MAX/RES/DEF and
 * what GET_INFO says). 0 with *r set, or: -ENOENT no such extension unit in
 * the chain, no such control (bit selector - 1 of bmControls), or its
 * GET_LEN/GET_INFO failed (tried again next time); -EINVAL unknown query;
 * -ENOBUFS size is not the control's (GET_LEN: 2, GET_INFO: 1); -EBADRQC
 * the control does not take that request; -ENOMEM more than CTRLS_MAX_XU
 * extension unit controls, or no memory. */
int ctrls_xu_query(struct ctrls *c, uint8_t unit, uint8_t selector, uint8_t query,
		   uint16_t size, struct ctrls_request *r);

/* UVCIOC_CTRL_MAP (uvc_ioctl_ctrl_map, uvc_ctrl_add_mapping): maps bits of
 * an extension unit control (named by the unit's GUID and the selector) to
 * a V4L2 control, which then enumerates in uvcvideo's order. menu: the
 * menu_count entries of a menu mapping (xm->menu_info is not followed).
 * Checks, in uvcvideo's order: data type above BITMASK -EINVAL; an id the
 * core does not name without a name -EINVAL (the name is cut to 31
 * characters in xm); v4l2 type other than INTEGER, BOOLEAN, BUTTON, MENU
 * -ENOTTY; menu of 0 or more than 32 entries -EINVAL; id with flag bits
 * -EINVAL; no such control -ENOENT (also when its GET_LEN/GET_INFO
 * fails); size above 32 bits or beyond the control -EINVAL; id already
 * mapped on that control -EEXIST; more than CTRLS_MAX_USER_MAPS -ENOMEM. */
int ctrls_xu_map(struct ctrls *c, struct uvc_xu_control_mapping *xm,
		 const struct uvc_menu_info *menu, unsigned menu_count);

#endif

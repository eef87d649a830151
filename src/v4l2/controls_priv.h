/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to the files of the controls (controls.h): what they ask of each
 * other. controls.c: the controls built from the chain, requests and their
 * answers, lookup, control classes, queries; controls_value.c: access
 * checks, get, set and commit; controls_xu.c: extension unit controls and
 * the mappings applications add. */
#ifndef V4L2_CONTROLS_PRIV_H
#define V4L2_CONTROLS_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "v4l2/controls.h"

#define BIT(n) (1u << (n))

/* The control's bytes of one kind (CTRLS_CUR ...): u->size bytes, in the
 * control itself or, for a large extension unit control, on the heap. */
static inline uint8_t *ctrl_bytes(struct ctrls_uvc *u, int kind)
{
	return u->xdata ? u->xdata + (size_t)kind * u->size : u->data[kind];
}

static inline const uint8_t *ctrl_bytes_const(const struct ctrls_uvc *u, int kind)
{
	return u->xdata ? u->xdata + (size_t)kind * u->size : u->data[kind];
}

/* --- controls.c ---------------------------------------------------------- */

/* Request 'query' of control i, of the control's own size. */
struct ctrls_request ctrls_request_of(const struct ctrls *c, unsigned i, uint8_t query);

/* The error a failed request left for the operation that asked for it (0:
 * none); taking it clears it. */
int ctrls_take_error(struct ctrls *c);

/* uvc_ctrl_populate_cache: GET_DEF, MIN, MAX, RES as the flags allow (0
 * once they are there, or CTRLS_NEED). */
int ctrls_populate_cache(struct ctrls *c, unsigned i);
/* __uvc_ctrl_load_cur: GET_CUR unless CUR is loaded (0, or CTRLS_NEED); a
 * control without GET_CUR reads as zeros. */
int ctrls_load_cur(struct ctrls *c, unsigned i);

/* uvc_find_control: exact id (the first mapping in order), or with
 * V4L2_CTRL_FLAG_NEXT_CTRL the lowest id above it (the first on ties); the
 * mapping's index, or -1. */
int ctrls_find_or_next(const struct ctrls *c, uint32_t id);

/* What an operation on mapping k answers before anything else: the error a
 * failed request left, or -EINVAL when there is no mapping k; 0 to go on. */
int ctrls_check_map(struct ctrls *c, unsigned k);

/* __uvc_query_v4l2_class: the class the id names, or with NEXT_CTRL the
 * first class between it and found_id; -1 when none. */
int ctrls_find_class(const struct ctrls *c, uint32_t req, uint32_t found_id);
/* A mapping of this id makes its control class one of the camera's. */
void ctrls_mark_class(struct ctrls *c, uint32_t id);

/* --- controls_value.c ---------------------------------------------------- */

/* __uvc_ctrl_get of mapping k: GET_CUR needed (-EACCES without it), menus
 * as indices; 0, or CTRLS_NEED. */
int ctrls_cur_value(struct ctrls *c, unsigned k, int32_t *value);

/* --- controls_xu.c ------------------------------------------------------- */

/* ctrls_feed of a request that introduces an extension unit control
 * (r->ctrl CTRLS_XU_INIT): GET_LEN, then GET_INFO, which adds it. */
void ctrls_xu_feed_init(struct ctrls *c, const struct ctrls_request *r, const uint8_t *data,
			int len);

#endif

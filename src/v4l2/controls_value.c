/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Values of the V4L2 controls with uvcvideo 6.1's answers (uvc_ctrl.c:
 * uvc_ctrl_is_accessible, __uvc_ctrl_get, uvc_ctrl_get, uvc_ctrl_set,
 * uvc_ctrl_commit_entity, uvc_ctrl_restore_values): access checks, get,
 * set with its clamping, the commit of staged values in uvcvideo's order,
 * rollback, and what a status report changes. */
#include "v4l2/controls.h"

#include <errno.h>
#include <string.h>

#include <linux/usb/video.h>

#include "v4l2/controls_priv.h"

/* ---- current values ---- */

int ctrls_cur_value(struct ctrls *c, unsigned k, int32_t *value)
{
	unsigned i = c->maps[k].uvc;
	int r;

	if (!(c->uvc[i].flags & UVC_CTRL_FLAG_GET_CUR))
		return -EACCES;
	r = ctrls_load_cur(c, i);
	if (r)
		return r;
	*value = ctrls_value_of(c, k, ctrl_bytes_const(&c->uvc[i], CTRLS_CUR));
	return 0;
}

int32_t ctrls_value_of(const struct ctrls *c, unsigned k, const uint8_t *data)
{
	const struct uvc_ctrl_mapping *m = c->maps[k].map;
	int32_t value = uvc_ctrl_get_value(m, UVC_GET_CUR, data);

	if (m->v4l2_type == V4L2_CTRL_TYPE_MENU)
		value = uvc_ctrl_menu_index(m, value);
	return value;
}

int ctrls_get_map(struct ctrls *c, unsigned k, int32_t *value)
{
	int err = ctrls_check_map(c, k);

	return err ? err : ctrls_cur_value(c, k, value);
}

/* ---- get and set ---- */

int ctrls_check_access(struct ctrls *c, const struct v4l2_ext_control *xs, unsigned count,
		       unsigned idx, unsigned long ioctl)
{
	bool read = ioctl == VIDIOC_G_EXT_CTRLS;
	int err = ctrls_take_error(c);
	const struct uvc_ctrl_mapping *m;
	uint16_t flags;
	int32_t master_value;
	int k, master, r;

	if (ctrls_find_class(c, xs[idx].id, 0) >= 0)
		return -EACCES;
	k = ctrls_find_or_next(c, xs[idx].id);
	if (k < 0)
		return -EINVAL;
	m = c->maps[k].map;
	flags = c->uvc[c->maps[k].uvc].flags;
	if (read && !(flags & UVC_CTRL_FLAG_GET_CUR))
		return -EACCES;
	if (!read && !(flags & UVC_CTRL_FLAG_SET_CUR))
		return -EACCES;
	if (ioctl != VIDIOC_S_EXT_CTRLS || !m->master_id)
		return 0;
	for (unsigned j = count; j-- > 0;)
		if (xs[j].id == m->master_id)
			return xs[j].value == m->master_manual ? 0 : -EACCES;
	master = ctrls_find_in_entity(c, c->uvc[c->maps[k].uvc].entity, m->master_id);
	if (master < 0 || !(c->uvc[c->maps[master].uvc].flags & UVC_CTRL_FLAG_GET_CUR))
		return 0;
	if (err)
		return 0; /* uvcvideo ignores a master it cannot read */
	r = ctrls_cur_value(c, (unsigned)master, &master_value);
	if (r == CTRLS_NEED)
		return r;
	return r == 0 && master_value != m->master_manual ? -EACCES : 0;
}

int ctrls_get(struct ctrls *c, uint32_t id, int32_t *value)
{
	int err = ctrls_take_error(c);
	int k;

	if (err)
		return err;
	if (ctrls_find_class(c, id, 0) >= 0)
		return -EACCES;
	k = ctrls_find_or_next(c, id);
	if (k < 0)
		return -EINVAL;
	return ctrls_cur_value(c, (unsigned)k, value);
}

/* The integer clamp of uvc_ctrl_set, in the kernel's u32/s32 arithmetic:
 * min + DIV_ROUND_CLOSEST((u32)(value - min), step) * step, then clamped
 * as s32 for signed mappings and as u32 otherwise. */
static int32_t clamp_integer(const struct uvc_ctrl_mapping *m, const struct ctrls_uvc *u,
			     int32_t value)
{
	int32_t min = uvc_ctrl_get_value(m, UVC_GET_MIN, ctrl_bytes_const(u, CTRLS_MIN));
	int32_t max = uvc_ctrl_get_value(m, UVC_GET_MAX, ctrl_bytes_const(u, CTRLS_MAX));
	uint32_t step =
		(uint32_t)uvc_ctrl_get_value(m, UVC_GET_RES, ctrl_bytes_const(u, CTRLS_RES));
	uint32_t from_min, unsigned_value;
	int32_t rounded;

	if (step == 0)
		step = 1;
	from_min = (uint32_t)value - (uint32_t)min;
	rounded = (int32_t)((uint32_t)min + (from_min + step / 2) / step * step);
	if (m->data_type == UVC_CTRL_DATA_TYPE_SIGNED) {
		rounded = rounded < min ? min : rounded;
		return rounded > max ? max : rounded;
	}
	unsigned_value = (uint32_t)rounded < (uint32_t)min ? (uint32_t)min : (uint32_t)rounded;
	return (int32_t)(unsigned_value > (uint32_t)max ? (uint32_t)max : unsigned_value);
}

int ctrls_set(struct ctrls *c, uint32_t id, int32_t *value)
{
	int err = ctrls_take_error(c);
	const struct uvc_ctrl_mapping *m;
	struct ctrls_uvc *u;
	int32_t v4l2_value = *value, uvc_value;
	unsigned i;
	int k, r;

	if (ctrls_find_class(c, id, 0) >= 0)
		return -EACCES;
	k = ctrls_find_or_next(c, id);
	if (k < 0)
		return -EINVAL;
	m = c->maps[k].map;
	i = c->maps[k].uvc;
	u = &c->uvc[i];
	if (!(u->flags & UVC_CTRL_FLAG_SET_CUR))
		return -EACCES;

	switch (m->v4l2_type) {
	case V4L2_CTRL_TYPE_INTEGER:
		r = ctrls_populate_cache(c, i);
		if (r)
			return err ? err : r;
		v4l2_value = clamp_integer(m, u, *value);
		uvc_value = v4l2_value;
		break;
	case V4L2_CTRL_TYPE_BOOLEAN:
		v4l2_value = *value < 0 ? 0 : *value > 1 ? 1 : *value;
		uvc_value = v4l2_value;
		break;
	case V4L2_CTRL_TYPE_MENU:
		if (*value < uvc_ctrl_menu_min(m->menu_mask) ||
		    *value > uvc_ctrl_menu_max(m->menu_mask))
			return -ERANGE;
		if (!(m->menu_mask & BIT(*value)))
			return -EINVAL;
		uvc_value = (int32_t)m->menu[*value].value;
		if (m->data_type == UVC_CTRL_DATA_TYPE_BITMASK && (u->flags & UVC_CTRL_FLAG_GET_RES)) {
			r = ctrls_populate_cache(c, i);
			if (r)
				return err ? err : r;
			uint32_t res = (uint32_t)uvc_ctrl_get_value(m, UVC_GET_RES,
								    ctrl_bytes(u, CTRLS_RES));

			if (!(res & (uint32_t)uvc_value))
				return -EINVAL;
		}
		break;
	default:
		uvc_value = *value;
		break;
	}

	/* A mapping that covers part of the control: read-modify-write. */
	if (u->size * 8u != m->size) {
		r = ctrls_load_cur(c, i);
		if (r) {
			if (err)
				*value = v4l2_value; /* uvcvideo clamped it before failing */
			return err ? err : r;
		}
	}
	if (err)
		return err;
	*value = v4l2_value;
	if (!u->dirty && u->size)
		memcpy(ctrl_bytes(u, CTRLS_BACKUP), ctrl_bytes(u, CTRLS_CUR), u->size);
	uvc_ctrl_set_value(m, uvc_value, ctrl_bytes(u, CTRLS_CUR));
	u->dirty = true;
	return 0;
}

int ctrls_encode(struct ctrls *c, uint32_t id, int32_t value, uint8_t *out)
{
	int err = ctrls_take_error(c);
	unsigned i;
	int k, r;

	if (err)
		return err;
	k = ctrls_find_or_next(c, id);
	if (k < 0)
		return -EINVAL;
	i = c->maps[k].uvc;
	if (c->uvc[i].size * 8u != c->maps[k].map->size) {
		r = ctrls_load_cur(c, i);
		if (r)
			return r;
		memcpy(out, ctrl_bytes(&c->uvc[i], CTRLS_CUR), c->uvc[i].size);
	} else {
		memset(out, 0, c->uvc[i].size);
	}
	uvc_ctrl_set_value(c->maps[k].map, value, out);
	return 0;
}

/* ---- commit ---- */

int ctrls_commit_next(const struct ctrls *c, unsigned from, struct ctrls_request *r,
		      const uint8_t **bytes)
{
	for (unsigned i = from; i < c->n_uvc; i++) {
		if (!c->uvc[i].dirty)
			continue;
		*r = ctrls_request_of(c, i, UVC_SET_CUR);
		*bytes = ctrl_bytes_const(&c->uvc[i], CTRLS_CUR);
		return 1;
	}
	return 0;
}

void ctrls_commit_done(struct ctrls *c, unsigned ctrl, int result)
{
	struct ctrls_uvc *u;

	if (ctrl >= c->n_uvc)
		return;
	u = &c->uvc[ctrl];
	if (result < 0 && u->dirty && u->size)
		memcpy(ctrl_bytes(u, CTRLS_CUR), ctrl_bytes(u, CTRLS_BACKUP), u->size);
	if (result >= 0 && u->dirty)
		u->modified = true;
	u->dirty = false;
}

int ctrls_restore_next(const struct ctrls *c, unsigned from, struct ctrls_request *r,
		       const uint8_t **bytes)
{
	for (unsigned i = from; i < c->n_uvc; i++) {
		const struct ctrls_uvc *u = &c->uvc[i];
		/* the bytes of a SET_CUR that succeeded are CUR, loaded or not */
		if (!u->modified || !u->info || !(u->flags & UVC_CTRL_FLAG_RESTORE))
			continue;
		*r = ctrls_request_of(c, i, UVC_SET_CUR);
		*bytes = ctrl_bytes_const(u, CTRLS_CUR);
		return 1;
	}
	return 0;
}

void ctrls_rollback(struct ctrls *c)
{
	for (unsigned i = 0; i < c->n_uvc; i++)
		ctrls_commit_done(c, i, c->uvc[i].dirty ? -1 : 0);
}

void ctrls_end(struct ctrls *c)
{
	for (unsigned i = 0; i < c->n_uvc; i++)
		if ((c->uvc[i].flags & UVC_CTRL_FLAG_AUTO_UPDATE) ||
		    !(c->uvc[i].flags & UVC_CTRL_FLAG_GET_CUR))
			c->uvc[i].loaded = false;
}

unsigned ctrls_error_idx(const struct ctrls *c, unsigned ctrl, const struct v4l2_ext_control *xs,
			 unsigned count)
{
	if (ctrl >= c->n_uvc)
		return count;
	for (unsigned j = 0; j < count; j++) {
		int k = ctrls_find_in_entity(c, c->uvc[ctrl].entity, xs[j].id & V4L2_CTRL_ID_MASK);

		if (k >= 0 && c->maps[k].uvc == ctrl)
			return j;
	}
	return count;
}

/* ---- status reports ---- */

void ctrls_invalidate(struct ctrls *c, unsigned i)
{
	if (i < c->n_uvc && !c->uvc[i].dirty)
		c->uvc[i].loaded = false;
}

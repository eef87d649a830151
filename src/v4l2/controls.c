/* SPDX-License-Identifier: GPL-2.0-or-later */
/* V4L2 controls with uvcvideo 6.1's answers (uvc_ctrl.c: uvc_query_v4l2_ctrl,
 * uvc_query_v4l2_menu, uvc_ctrl_populate_cache, __uvc_ctrl_load_cur;
 * uvc_v4l2.c: uvc_ioctl_query_ext_ctrl; uvc_driver.c: uvc_scan_chain). See
 * controls.h for the request protocol; values are in controls_value.c,
 * extension units in controls_xu.c. */
#include "v4l2/controls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#include "v4l2/controls_priv.h"

/* uvc_control_classes[], in its order; class_bitmap bit = index. */
static const uint32_t classes[] = { V4L2_CID_CAMERA_CLASS, V4L2_CID_USER_CLASS };
#define N_CLASSES (sizeof(classes) / sizeof(classes[0]))

/* ---- building ---- */

void ctrls_mark_class(struct ctrls *c, uint32_t id)
{
	for (unsigned k = 0; k < N_CLASSES; k++)
		if (V4L2_CTRL_ID2WHICH(classes[k]) == V4L2_CTRL_ID2WHICH(id))
			c->class_bitmap |= (uint8_t)BIT(k);
}

/* The chain of the node's streaming interface (the first one's, the
 * only one uvcuse serves): the chain holding its output terminal; if none
 * does (uvcvideo makes no node then), the first chain, so that the
 * camera keeps its controls; none at all: no controls. */
static int node_chain(const struct uvc_camera *cam, struct uvc_chain *out)
{
	struct uvc_chains *all = malloc(sizeof(*all));
	const struct uvc_chain *mine = NULL;
	int n = all ? uvc_chains_scan(cam, all) : -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->selector = out->processing = -1;
	if (n > 0) {
		mine = cam->n_streams ? uvc_chains_find_terminal(all, cam, cam->streams[0].terminal_link)
				      : NULL;
		*out = mine ? *mine : all->chain[0];
	}
	free(all);
	return n < 0 ? n : 0;
}

int ctrls_init(struct ctrls *c, const struct uvc_camera *cam)
{
	memset(c, 0, sizeof(*c));
	c->cam = cam;
	c->bcd_uvc = cam->bcd_uvc;
	if (node_chain(cam, &c->chain) < 0)
		return -ENOMEM;
	for (unsigned k = 0; k < c->chain.n; k++) {
		const struct uvc_entity *e = uvc_chain_entity(cam, &c->chain, k);
		int unit = uvc_ctrl_entity_unit(e);

		if (unit < 0)
			continue;
		for (unsigned bit = 0; bit < 8u * e->control_size; bit++) {
			const struct uvc_ctrl_info *info;
			struct ctrls_uvc *u;

			if (!uvc_entity_has_control(e, bit))
				continue;
			info = uvc_ctrl_info_find((enum uvc_ctrl_unit)unit, bit);
			if (!info)
				continue;
			if (c->n_uvc == CTRLS_MAX_STD)
				return -E2BIG;
			u = &c->uvc[c->n_uvc];
			u->info = info;
			u->entity = e->id;
			u->selector = info->selector;
			u->bit = (uint8_t)bit;
			u->size = info->size;
			u->flags = info->flags;
			/* a device table's mapping for this control replaces the
			 * standard ones (uvcvideo's uvc_device_info.mappings) */
			const struct uvc_ctrl_mapping *custom = cam->custom_mapping;
			bool custom_here = custom && custom->unit == info->unit &&
					   custom->selector == info->selector;
			for (unsigned m = 0; m < (custom_here ? 1 : uvc_ctrl_n_mappings); m++) {
				const struct uvc_ctrl_mapping *map =
					custom_here ? custom : &uvc_ctrl_mappings[m];

				if (!custom_here && !uvc_ctrl_mapping_applies(map, info, c->bcd_uvc))
					continue;
				if (c->n_maps == CTRLS_MAX_MAPS)
					return -E2BIG;
				c->maps[c->n_maps++] = (struct ctrls_map){ map, c->n_uvc, false };
				ctrls_mark_class(c, map->id);
			}
			c->n_uvc++;
		}
	}
	return 0;
}

/* ---- requests ---- */

struct ctrls_request ctrls_request_of(const struct ctrls *c, unsigned i, uint8_t query)
{
	const struct ctrls_uvc *u = &c->uvc[i];

	return (struct ctrls_request){ .ctrl = i,
				       .entity = u->entity,
				       .selector = u->selector,
				       .query = query,
				       .size = u->size };
}

/* Leaves request 'query' of control i in c->need for the caller to make. */
static int ask_camera(struct ctrls *c, unsigned i, uint8_t query)
{
	c->need = ctrls_request_of(c, i, query);
	return CTRLS_NEED;
}

int ctrls_take_error(struct ctrls *c)
{
	int err = c->error;

	c->error = 0;
	return err;
}

int ctrls_next_info(const struct ctrls *c, struct ctrls_request *r)
{
	for (unsigned i = 0; i < c->n_uvc; i++) {
		if (c->uvc[i].info_done)
			continue;
		*r = ctrls_request_of(c, i, UVC_GET_INFO);
		r->size = 1;
		return 1;
	}
	return 0;
}

/* The kind of bytes a GET_* request reads, or -1 (GET_INFO, GET_LEN). */
static int kind_of_query(uint8_t query)
{
	switch (query) {
	case UVC_GET_CUR:
		return CTRLS_CUR;
	case UVC_GET_MIN:
		return CTRLS_MIN;
	case UVC_GET_MAX:
		return CTRLS_MAX;
	case UVC_GET_RES:
		return CTRLS_RES;
	case UVC_GET_DEF:
		return CTRLS_DEF;
	default:
		return -1;
	}
}

uint8_t *ctrls_data(struct ctrls *c, unsigned i, enum ctrls_data kind)
{
	return ctrl_bytes(&c->uvc[i], (int)kind);
}

void ctrls_feed(struct ctrls *c, const struct ctrls_request *r, const uint8_t *data, int len)
{
	struct ctrls_uvc *u;
	int kind;

	if (r->ctrl == CTRLS_XU_INIT) {
		ctrls_xu_feed_init(c, r, data, len);
		return;
	}
	if (r->ctrl >= c->n_uvc)
		return;
	u = &c->uvc[r->ctrl];
	if (r->query == UVC_GET_INFO) {
		if (u->info)
			u->flags = uvc_ctrl_flags_from_info(u->info->flags, len >= 1 ? data[0] : -EIO);
		u->info_done = true;
		return;
	}
	kind = kind_of_query(r->query);
	if (kind < 0)
		return;
	if (len < 0 || len < u->size) {
		if (kind == CTRLS_RES && !u->info) {
			/* uvc_ctrl_populate_cache: GET_RES is mandatory for
			 * extension unit controls, yet cameras choke on it;
			 * uvcvideo takes a resolution of zero */
			memset(ctrl_bytes(u, kind), 0, u->size);
			u->have |= (uint8_t)BIT(kind);
			return;
		}
		c->error = len < 0 ? len : -EIO;
		if (kind != CTRLS_CUR)
			u->have = 0; /* uvcvideo fills its cache again from GET_DEF */
		return;
	}
	if (u->size)
		memcpy(ctrl_bytes(u, kind), data, u->size);
	if (kind == CTRLS_CUR)
		u->loaded = true;
	else
		u->have |= (uint8_t)BIT(kind);
}

int ctrls_populate_cache(struct ctrls *c, unsigned i)
{
	static const struct {
		uint16_t flag;
		uint8_t query;
		uint8_t data;
	} order[] = {
		{ UVC_CTRL_FLAG_GET_DEF, UVC_GET_DEF, CTRLS_DEF },
		{ UVC_CTRL_FLAG_GET_MIN, UVC_GET_MIN, CTRLS_MIN },
		{ UVC_CTRL_FLAG_GET_MAX, UVC_GET_MAX, CTRLS_MAX },
		{ UVC_CTRL_FLAG_GET_RES, UVC_GET_RES, CTRLS_RES },
	};
	struct ctrls_uvc *u = &c->uvc[i];

	for (unsigned k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		if ((u->flags & order[k].flag) && !(u->have & BIT(order[k].data)))
			return ask_camera(c, i, order[k].query);
	return 0;
}

int ctrls_load_cur(struct ctrls *c, unsigned i)
{
	struct ctrls_uvc *u = &c->uvc[i];

	if (u->loaded)
		return 0;
	if (!(u->flags & UVC_CTRL_FLAG_GET_CUR)) {
		memset(ctrl_bytes(u, CTRLS_CUR), 0, u->size);
		u->loaded = true;
		return 0;
	}
	return ask_camera(c, i, UVC_GET_CUR);
}

/* ---- lookup ---- */

int ctrls_find_or_next(const struct ctrls *c, uint32_t id)
{
	bool next = id & V4L2_CTRL_FLAG_NEXT_CTRL;
	int best = -1;

	id &= V4L2_CTRL_ID_MASK;
	for (unsigned k = 0; k < c->n_maps; k++) {
		uint32_t map_id = c->maps[k].map->id;

		if (!next && map_id == id)
			return (int)k;
		if (next && map_id > id && (best < 0 || c->maps[best].map->id > map_id))
			best = (int)k;
	}
	return best;
}

int ctrls_check_map(struct ctrls *c, unsigned k)
{
	int err = ctrls_take_error(c);

	if (err)
		return err;
	return k < c->n_maps ? 0 : -EINVAL;
}

int ctrls_find(const struct ctrls *c, uint32_t id)
{
	int k = ctrls_find_or_next(c, id & V4L2_CTRL_ID_MASK);

	return k < 0 ? -EINVAL : k;
}

int ctrls_find_uvc(const struct ctrls *c, uint8_t entity, uint8_t selector)
{
	for (unsigned i = 0; i < c->n_uvc; i++)
		if (c->uvc[i].entity == entity && c->uvc[i].selector == selector)
			return (int)i;
	return -ENOENT;
}

/* __uvc_find_control within one entity (masters live beside their slaves). */
int ctrls_find_in_entity(const struct ctrls *c, uint8_t entity, uint32_t id)
{
	for (unsigned k = 0; k < c->n_maps; k++)
		if (c->uvc[c->maps[k].uvc].entity == entity && c->maps[k].map->id == id)
			return (int)k;
	return -1;
}

int ctrls_find_class(const struct ctrls *c, uint32_t req, uint32_t found_id)
{
	bool next = req & V4L2_CTRL_FLAG_NEXT_CTRL;

	req &= V4L2_CTRL_ID_MASK;
	for (unsigned k = 0; k < N_CLASSES; k++) {
		if (!(c->class_bitmap & BIT(k)))
			continue;
		if (!next) {
			if (classes[k] == req)
				return (int)k;
			continue;
		}
		if (classes[k] > req && classes[k] < found_id)
			return (int)k;
	}
	return -1;
}

bool ctrls_is_class(const struct ctrls *c, uint32_t id)
{
	return ctrls_find_class(c, id, 0) >= 0;
}

static void fill_class(struct v4l2_queryctrl *qc, int k)
{
	memset(qc, 0, sizeof(*qc));
	qc->id = classes[k];
	strncpy((char *)qc->name, uvc_ctrl_v4l2_name(qc->id), sizeof(qc->name) - 1);
	qc->type = V4L2_CTRL_TYPE_CTRL_CLASS;
	qc->flags = V4L2_CTRL_FLAG_WRITE_ONLY | V4L2_CTRL_FLAG_READ_ONLY;
}

/* ---- queries ---- */

static int query_map(struct ctrls *c, unsigned k, struct v4l2_queryctrl *qc)
{
	const struct uvc_ctrl_mapping *m = c->maps[k].map;
	unsigned i = c->maps[k].uvc;
	struct ctrls_uvc *u = &c->uvc[i];
	int r;

	memset(qc, 0, sizeof(*qc));
	qc->id = m->id;
	qc->type = m->v4l2_type;
	strncpy((char *)qc->name, uvc_ctrl_mapping_name(m), sizeof(qc->name) - 1);
	if (!(u->flags & UVC_CTRL_FLAG_GET_CUR))
		qc->flags |= V4L2_CTRL_FLAG_WRITE_ONLY;
	if (!(u->flags & UVC_CTRL_FLAG_SET_CUR))
		qc->flags |= V4L2_CTRL_FLAG_READ_ONLY;

	if (m->master_id) {
		int master = ctrls_find_in_entity(c, u->entity, m->master_id);

		if (master >= 0 && (c->uvc[c->maps[master].uvc].flags & UVC_CTRL_FLAG_GET_CUR)) {
			int32_t master_value;

			r = ctrls_cur_value(c, (unsigned)master, &master_value);
			if (r)
				return r;
			if (master_value != m->master_manual)
				qc->flags |= V4L2_CTRL_FLAG_INACTIVE;
		}
	}
	r = ctrls_populate_cache(c, i);
	if (r)
		return r;
	if (u->flags & UVC_CTRL_FLAG_GET_DEF)
		qc->default_value = uvc_ctrl_get_value(m, UVC_GET_DEF, ctrl_bytes(u, CTRLS_DEF));

	switch (m->v4l2_type) {
	case V4L2_CTRL_TYPE_MENU:
		qc->minimum = uvc_ctrl_menu_min(m->menu_mask);
		qc->maximum = uvc_ctrl_menu_max(m->menu_mask);
		qc->step = 1;
		qc->default_value = uvc_ctrl_menu_index(m, qc->default_value);
		return 0;
	case V4L2_CTRL_TYPE_BOOLEAN:
		qc->minimum = 0;
		qc->maximum = 1;
		qc->step = 1;
		return 0;
	case V4L2_CTRL_TYPE_BUTTON:
		qc->minimum = 0;
		qc->maximum = 0;
		qc->step = 0;
		return 0;
	default:
		break;
	}
	if (u->flags & UVC_CTRL_FLAG_GET_MIN)
		qc->minimum = uvc_ctrl_get_value(m, UVC_GET_MIN, ctrl_bytes(u, CTRLS_MIN));
	if (u->flags & UVC_CTRL_FLAG_GET_MAX)
		qc->maximum = uvc_ctrl_get_value(m, UVC_GET_MAX, ctrl_bytes(u, CTRLS_MAX));
	if (u->flags & UVC_CTRL_FLAG_GET_RES)
		qc->step = uvc_ctrl_get_value(m, UVC_GET_RES, ctrl_bytes(u, CTRLS_RES));
	return 0;
}

int ctrls_query_map(struct ctrls *c, unsigned k, struct v4l2_queryctrl *qc)
{
	int err = ctrls_check_map(c, k);

	return err ? err : query_map(c, k, qc);
}

int ctrls_queryctrl(struct ctrls *c, struct v4l2_queryctrl *qc)
{
	uint32_t id = qc->id;
	int err = ctrls_take_error(c);
	int k, cls;

	if (err)
		return err;
	if (!(id & V4L2_CTRL_FLAG_NEXT_CTRL)) {
		cls = ctrls_find_class(c, id, 0);
		if (cls >= 0) {
			fill_class(qc, cls);
			return 0;
		}
	}
	k = ctrls_find_or_next(c, id);
	if (k < 0)
		return -EINVAL;
	if (id & V4L2_CTRL_FLAG_NEXT_CTRL) {
		cls = ctrls_find_class(c, id, c->maps[k].map->id);
		if (cls >= 0) {
			fill_class(qc, cls);
			return 0;
		}
	}
	return query_map(c, (unsigned)k, qc);
}

int ctrls_query_ext_ctrl(struct ctrls *c, struct v4l2_query_ext_ctrl *qec)
{
	struct v4l2_queryctrl qc = { .id = qec->id };
	int r = ctrls_queryctrl(c, &qc);

	if (r)
		return r;
	qec->id = qc.id;
	qec->type = qc.type;
	memset(qec->name, 0, sizeof(qec->name));
	memcpy(qec->name, qc.name, sizeof(qc.name));
	qec->minimum = qc.minimum;
	qec->maximum = qc.maximum;
	qec->step = (uint64_t)(int64_t)qc.step; /* s32 into u64, as the kernel */
	qec->default_value = qc.default_value;
	qec->flags = qc.flags;
	qec->elem_size = 4;
	qec->elems = 1;
	qec->nr_of_dims = 0;
	memset(qec->dims, 0, sizeof(qec->dims));
	memset(qec->reserved, 0, sizeof(qec->reserved));
	return 0;
}

int ctrls_querymenu(struct ctrls *c, struct v4l2_querymenu *qm)
{
	uint32_t id = qm->id, index = qm->index;
	int err = ctrls_take_error(c);
	const struct uvc_ctrl_mapping *m;
	const struct uvc_ctrl_menu *entry;
	unsigned i;
	int k, r;

	memset(qm, 0, sizeof(*qm));
	qm->id = id;
	qm->index = index;
	if (index >= 32)
		return -EINVAL;
	if (err)
		return err;
	k = ctrls_find_or_next(c, id);
	if (k < 0 || c->maps[k].map->v4l2_type != V4L2_CTRL_TYPE_MENU)
		return -EINVAL;
	m = c->maps[k].map;
	i = c->maps[k].uvc;
	if (!(m->menu_mask & BIT(index)))
		return -EINVAL;
	entry = &m->menu[index];
	if (m->data_type == UVC_CTRL_DATA_TYPE_BITMASK && (c->uvc[i].flags & UVC_CTRL_FLAG_GET_RES)) {
		r = ctrls_populate_cache(c, i);
		if (r)
			return r;
		if (!(uvc_ctrl_get_value(m, UVC_GET_RES, ctrl_bytes(&c->uvc[i], CTRLS_RES)) &
		      (int32_t)entry->value))
			return -EINVAL;
	}
	strncpy((char *)qm->name, entry->name, sizeof(qm->name) - 1);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Extension unit controls with uvcvideo 6.1's answers (uvc_ctrl.c:
 * uvc_xu_ctrl_query, uvc_ctrl_init_xu_ctrl, uvc_ctrl_add_mapping;
 * uvc_v4l2.c: uvc_ioctl_ctrl_map): a control joins c->uvc[] when an
 * application first names it, and the mappings applications add join
 * c->maps[]; both on the heap until ctrls_free(). */
#include "v4l2/controls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#include "v4l2/controls_priv.h"

/* An application mapping with the storage its names and menu need. */
struct user_map {
	struct uvc_ctrl_mapping map; /* first: freed through it */
	char name[32];
	struct uvc_ctrl_menu menu[CTRLS_MAX_MENU];
	char menu_names[CTRLS_MAX_MENU][32];
};

void ctrls_free(struct ctrls *c)
{
	unsigned n = 0;

	/* Application mappings are all of extension unit controls, which go
	 * too: what stays are the standard controls and their mappings. */
	for (unsigned k = 0; k < c->n_maps; k++) {
		if (c->maps[k].user)
			free((void *)c->maps[k].map);
		else
			c->maps[n++] = c->maps[k];
	}
	c->n_maps = n;
	c->n_user_maps = 0;
	n = 0;
	for (unsigned i = 0; i < c->n_uvc; i++) {
		if (!c->uvc[i].info) {
			free(c->uvc[i].xdata);
			continue;
		}
		for (unsigned k = 0; k < c->n_maps; k++)
			if (c->maps[k].uvc == i)
				c->maps[k].uvc = n;
		c->uvc[n++] = c->uvc[i];
	}
	c->n_uvc = n;
	memset(&c->xu_init, 0, sizeof(c->xu_init));
}

/* The place in the chain of the entity with this ID that can carry
 * controls (a camera terminal, a processing or an extension unit: an ID
 * two entities share names the first of those), or c->chain.n. */
static int chain_pos(const struct ctrls *c, uint8_t entity)
{
	for (unsigned k = 0; c->cam && k < c->chain.n; k++) {
		const struct uvc_entity *e = uvc_chain_entity(c->cam, &c->chain, k);

		if (e->id == entity &&
		    (e->kind == UVC_ENTITY_EXTENSION_UNIT || uvc_ctrl_entity_unit(e) >= 0))
			return (int)k;
	}
	return (int)c->chain.n;
}

/* The extension unit with this ID in the chain, or NULL (uvcvideo's
 * uvc_xu_ctrl_query looks among the chain's extension units). */
static const struct uvc_entity *xu_by_id(const struct ctrls *c, uint8_t id)
{
	for (unsigned k = 0; c->cam && k < c->chain.n; k++) {
		const struct uvc_entity *e = uvc_chain_entity(c->cam, &c->chain, k);

		if (e->id == id && e->kind == UVC_ENTITY_EXTENSION_UNIT)
			return e;
	}
	return NULL;
}

/* uvcvideo finds a control of an extension unit by ctrl->index ==
 * selector - 1 among the bits set in bmControls (selector 0 never). */
static bool xu_has(const struct uvc_entity *e, uint8_t selector)
{
	return selector > 0 && uvc_entity_has_control(e, selector - 1u);
}

/* The control's place in c->uvc[]: chain order, then bmControls bit. */
static unsigned xu_slot(const struct ctrls *c, uint8_t entity, uint8_t bit)
{
	int pos = chain_pos(c, entity);
	unsigned i = 0;

	for (; i < c->n_uvc; i++) {
		int p = chain_pos(c, c->uvc[i].entity);

		if (p > pos || (p == pos && c->uvc[i].bit > bit))
			break;
	}
	return i;
}

/* Adds the extension unit control GET_LEN and GET_INFO described
 * (uvc_ctrl_add_info), at its place; the indices of the controls after it
 * move up, in c->uvc[] and in c->maps[]. Returns its index, or -ENOMEM. */
static int xu_insert(struct ctrls *c, uint8_t entity, uint8_t selector, uint16_t size,
		     int info_byte)
{
	unsigned n_xu = 0, at;
	struct ctrls_uvc *u;
	uint8_t *xdata = NULL;

	for (unsigned i = 0; i < c->n_uvc; i++)
		n_xu += !c->uvc[i].info;
	if (n_xu >= CTRLS_MAX_XU || c->n_uvc >= CTRLS_MAX_UVC)
		return -ENOMEM;
	if (size > CTRLS_MAX_BYTES) {
		xdata = calloc(CTRLS_N_DATA, size);
		if (!xdata)
			return -ENOMEM;
	}
	at = xu_slot(c, entity, (uint8_t)(selector - 1));
	memmove(&c->uvc[at + 1], &c->uvc[at], (c->n_uvc - at) * sizeof(c->uvc[0]));
	c->n_uvc++;
	for (unsigned k = 0; k < c->n_maps; k++)
		if (c->maps[k].uvc >= at)
			c->maps[k].uvc++;
	u = &c->uvc[at];
	memset(u, 0, sizeof(*u));
	u->entity = entity;
	u->selector = selector;
	u->bit = (uint8_t)(selector - 1);
	u->size = size;
	u->xdata = xdata;
	u->info_done = true;
	/* uvc_ctrl_fill_xu_info: the range requests, and what GET_INFO says */
	u->flags = uvc_ctrl_flags_from_info(UVC_CTRL_FLAG_GET_MIN | UVC_CTRL_FLAG_GET_MAX |
						    UVC_CTRL_FLAG_GET_RES | UVC_CTRL_FLAG_GET_DEF,
					    info_byte);
	return (int)at;
}

void ctrls_xu_feed_init(struct ctrls *c, const struct ctrls_request *r, const uint8_t *data,
			int len)
{
	if (!c->xu_init.active || r->entity != c->xu_init.entity ||
	    r->selector != c->xu_init.selector)
		return;
	if (r->query == UVC_GET_LEN) {
		if (len != 2) {
			c->error = len < 0 ? len : -EPIPE;
			return;
		}
		c->xu_init.size = (uint16_t)(data[0] | data[1] << 8);
		c->xu_init.have_len = true;
		return;
	}
	if (r->query != UVC_GET_INFO)
		return;
	if (len != 1) {
		c->error = len < 0 ? len : -EPIPE;
		return;
	}
	uint16_t size = c->xu_init.size;
	memset(&c->xu_init, 0, sizeof(c->xu_init));
	c->error = xu_insert(c, r->entity, r->selector, size, data[0]);
	if (c->error > 0)
		c->error = 0;
}

/* uvc_ctrl_init_xu_ctrl: 0 with the control's index in *index once
 * GET_LEN and GET_INFO answered, CTRLS_NEED for them, or -errno (the
 * control stays unknown, to be tried again). */
static int xu_init(struct ctrls *c, uint8_t entity, uint8_t selector, unsigned *index)
{
	int err = ctrls_take_error(c);
	int i = ctrls_find_uvc(c, entity, selector);
	bool ours = c->xu_init.active && c->xu_init.entity == entity &&
		    c->xu_init.selector == selector;

	if (i >= 0) {
		*index = (unsigned)i; /* GET_INFO just answered, or known before */
		return 0;
	}
	if (err || (!ours && c->xu_init.active)) {
		/* a request failed, or an earlier introduction was left
		 * half done (the caller gave up on it): start afresh */
		memset(&c->xu_init, 0, sizeof(c->xu_init));
		if (err)
			return err == -ENOMEM ? -ENOMEM : -EIO;
	}
	if (!c->xu_init.active) {
		c->xu_init.active = true;
		c->xu_init.entity = entity;
		c->xu_init.selector = selector;
	}
	c->need = (struct ctrls_request){ .ctrl = CTRLS_XU_INIT,
					  .entity = entity,
					  .selector = selector,
					  .query = c->xu_init.have_len ? UVC_GET_INFO : UVC_GET_LEN,
					  .size = c->xu_init.have_len ? 1 : 2 };
	return CTRLS_NEED;
}

int ctrls_xu_query(struct ctrls *c, uint8_t unit, uint8_t selector, uint8_t query,
		   uint16_t size, struct ctrls_request *r)
{
	const struct uvc_entity *e = xu_by_id(c, unit);
	uint16_t query_flag = 0, want_size;
	struct ctrls_uvc *u;
	unsigned i;
	int ret;

	if (!e || !xu_has(e, selector)) {
		ctrls_take_error(c);
		return -ENOENT;
	}
	ret = xu_init(c, unit, selector, &i);
	if (ret == CTRLS_NEED)
		return ret;
	if (ret < 0)
		return ret == -ENOMEM ? -ENOMEM : -ENOENT;
	u = &c->uvc[i];
	want_size = u->size;
	switch (query) {
	case UVC_GET_CUR:
		query_flag = UVC_CTRL_FLAG_GET_CUR;
		break;
	case UVC_GET_MIN:
		query_flag = UVC_CTRL_FLAG_GET_MIN;
		break;
	case UVC_GET_MAX:
		query_flag = UVC_CTRL_FLAG_GET_MAX;
		break;
	case UVC_GET_DEF:
		query_flag = UVC_CTRL_FLAG_GET_DEF;
		break;
	case UVC_GET_RES:
		query_flag = UVC_CTRL_FLAG_GET_RES;
		break;
	case UVC_SET_CUR:
		query_flag = UVC_CTRL_FLAG_SET_CUR;
		break;
	case UVC_GET_LEN:
		want_size = 2;
		break;
	case UVC_GET_INFO:
		want_size = 1;
		break;
	default:
		return -EINVAL;
	}
	if (size != want_size)
		return -ENOBUFS;
	if (query_flag && !(u->flags & query_flag))
		return -EBADRQC;
	*r = (struct ctrls_request){ .ctrl = i,
				     .entity = unit,
				     .selector = selector,
				     .query = query,
				     .size = size };
	return 0;
}

/* The extension unit control a mapping names: the first unit of the chain
 * with that GUID that has the control (uvc_ctrl_add_mapping). */
static const struct uvc_entity *xu_by_guid(const struct ctrls *c, const uint8_t guid[16],
					   uint8_t selector)
{
	if (!c->cam)
		return NULL;
	for (unsigned k = 0; k < c->chain.n; k++) {
		const struct uvc_entity *e = uvc_chain_entity(c->cam, &c->chain, k);

		if (e->kind == UVC_ENTITY_EXTENSION_UNIT && !memcmp(e->guid, guid, 16) &&
		    xu_has(e, selector))
			return e;
	}
	return NULL;
}

/* Checks of uvc_ioctl_ctrl_map, before any request. */
static int map_check(struct uvc_xu_control_mapping *xm, const struct uvc_menu_info *menu,
		     unsigned menu_count)
{
	if (xm->data_type > UVC_CTRL_DATA_TYPE_BITMASK)
		return -EINVAL;
	if (!uvc_ctrl_v4l2_std_name(xm->id)) {
		if (!xm->name[0])
			return -EINVAL;
		xm->name[sizeof(xm->name) - 1] = 0;
	}
	switch (xm->v4l2_type) {
	case V4L2_CTRL_TYPE_INTEGER:
	case V4L2_CTRL_TYPE_BOOLEAN:
	case V4L2_CTRL_TYPE_BUTTON:
		break;
	case V4L2_CTRL_TYPE_MENU:
		if (xm->menu_count == 0 || xm->menu_count > CTRLS_MAX_MENU)
			return -EINVAL;
		if (menu_count != xm->menu_count || !menu)
			return -EFAULT; /* the caller could not read the menu */
		break;
	default:
		return -ENOTTY;
	}
	if (xm->id & ~V4L2_CTRL_ID_MASK)
		return -EINVAL;
	return 0;
}

static struct user_map *user_map_new(const struct uvc_xu_control_mapping *xm,
				     const struct uvc_menu_info *menu)
{
	struct user_map *um = calloc(1, sizeof(*um));

	if (!um)
		return NULL;
	um->map.id = xm->id;
	um->map.unit = UVC_CTRL_UNIT_EXTENSION;
	um->map.selector = xm->selector;
	um->map.size = xm->size;
	um->map.offset = xm->offset;
	um->map.v4l2_type = xm->v4l2_type;
	um->map.data_type = (uint8_t)xm->data_type;
	um->map.codec = UVC_CTRL_CODEC_LE;
	if (!uvc_ctrl_v4l2_std_name(xm->id)) {
		memcpy(um->name, xm->name, sizeof(um->name) - 1);
		um->map.name = um->name;
	}
	if (xm->v4l2_type == V4L2_CTRL_TYPE_MENU) {
		for (unsigned j = 0; j < xm->menu_count; j++) {
			memcpy(um->menu_names[j], menu[j].name, sizeof(um->menu_names[j]) - 1);
			um->menu[j].value = menu[j].value;
			um->menu[j].name = um->menu_names[j];
		}
		um->map.menu = um->menu;
		um->map.menu_mask = xm->menu_count >= 32 ? ~0u : (1u << xm->menu_count) - 1;
	}
	return um;
}

int ctrls_xu_map(struct ctrls *c, struct uvc_xu_control_mapping *xm,
		 const struct uvc_menu_info *menu, unsigned menu_count)
{
	const struct uvc_entity *e;
	struct user_map *um;
	unsigned at, i;
	int r;

	r = map_check(xm, menu, menu_count);
	if (r) {
		ctrls_take_error(c);
		return r;
	}
	e = xu_by_guid(c, xm->entity, xm->selector);
	if (!e) {
		ctrls_take_error(c);
		return -ENOENT;
	}
	r = xu_init(c, e->id, xm->selector, &i);
	if (r == CTRLS_NEED)
		return r;
	if (r < 0)
		return r == -ENOMEM ? -ENOMEM : -ENOENT;
	if (xm->size > 32 || xm->offset + xm->size > c->uvc[i].size * 8u)
		return -EINVAL;
	for (unsigned k = 0; k < c->n_maps; k++)
		if (c->maps[k].uvc == i && c->maps[k].map->id == xm->id)
			return -EEXIST;
	if (c->n_user_maps >= CTRLS_MAX_USER_MAPS || c->n_maps >= CTRLS_MAX_MAPS)
		return -ENOMEM;
	um = user_map_new(xm, menu);
	if (!um)
		return -ENOMEM;
	/* after the control's other mappings (list_add_tail) */
	for (at = 0; at < c->n_maps && c->maps[at].uvc <= i; at++)
		;
	memmove(&c->maps[at + 1], &c->maps[at], (c->n_maps - at) * sizeof(c->maps[0]));
	c->maps[at] = (struct ctrls_map){ &um->map, i, true };
	c->n_maps++;
	c->n_user_maps++;
	ctrls_mark_class(c, xm->id);
	return 0;
}

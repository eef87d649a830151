/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Extension and selector unit controls of an impersonated camera. */
#include "xu_store.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#include "controls.h" /* enum vcam_request_error */

struct unit_control {
	uint8_t id, selector;
	uint8_t size;
	uint32_t min, max, def, cur;
};

struct vcam_xu_store {
	unsigned n;
	struct unit_control *c;
};

static bool add(struct vcam_xu_store *s, uint8_t id, uint8_t selector, uint8_t size,
		uint32_t min, uint32_t max, uint32_t def)
{
	struct unit_control *c = realloc(s->c, (s->n + 1) * sizeof(*c));
	if (!c)
		return false;
	s->c = c;
	s->c[s->n++] = (struct unit_control){ id, selector, size, min, max, def, def };
	return true;
}

struct vcam_xu_store *vcam_xu_store_new(const struct uvc_camera *model)
{
	struct vcam_xu_store *s = calloc(1, sizeof(*s));
	bool ok = s != NULL;

	for (unsigned i = 0; ok && i < model->n_entities; i++) {
		const struct uvc_entity *e = &model->entities[i];
		if (e->kind == UVC_ENTITY_SELECTOR_UNIT) {
			ok = add(s, e->id, UVC_SU_INPUT_SELECT_CONTROL, 1, 1,
				 e->n_sources ? e->n_sources : 1, 1);
			continue;
		}
		if (e->kind != UVC_ENTITY_EXTENSION_UNIT)
			continue;
		for (unsigned bit = 0; ok && bit < 8u * e->control_size && bit < 255; bit++)
			if (e->controls[bit / 8] >> (bit % 8) & 1)
				ok = add(s, e->id, (uint8_t)(bit + 1), VCAM_XU_VALUE_SIZE, 0,
					 UINT32_MAX, 0);
	}
	if (!ok) {
		vcam_xu_store_free(s);
		return NULL;
	}
	return s;
}

void vcam_xu_store_free(struct vcam_xu_store *s)
{
	if (!s)
		return;
	free(s->c);
	free(s);
}

static void put(uint8_t *d, unsigned size, uint32_t v)
{
	for (unsigned i = 0; i < size; i++)
		d[i] = (uint8_t)(v >> (8 * i));
}

static int reject(uint8_t *error, uint8_t code)
{
	*error = code;
	return -1;
}

int vcam_xu_store_request(struct vcam_xu_store *s, uint8_t id, uint8_t request, uint8_t selector,
			  uint8_t *data, uint16_t length, uint8_t *error)
{
	struct unit_control *c = NULL;
	bool unit = false;

	for (unsigned i = 0; i < s->n; i++) {
		unit |= s->c[i].id == id;
		if (s->c[i].id == id && s->c[i].selector == selector)
			c = &s->c[i];
	}
	if (!c)
		return reject(error, unit ? VCAM_ERR_INVALID_CONTROL : VCAM_ERR_INVALID_UNIT);
	unsigned expect = request == UVC_GET_LEN ? 2 : request == UVC_GET_INFO ? 1 : c->size;
	if (length != expect)
		return reject(error, VCAM_ERR_UNKNOWN);
	*error = VCAM_ERR_NONE;
	switch (request) {
	case UVC_SET_CUR: {
		uint32_t v = 0;
		for (unsigned i = 0; i < c->size; i++)
			v |= (uint32_t)data[i] << (8 * i);
		if (v < c->min || v > c->max)
			return reject(error, VCAM_ERR_OUT_OF_RANGE);
		c->cur = v;
		return 0;
	}
	case UVC_GET_CUR:
		put(data, c->size, c->cur);
		return c->size;
	case UVC_GET_MIN:
		put(data, c->size, c->min);
		return c->size;
	case UVC_GET_MAX:
		put(data, c->size, c->max);
		return c->size;
	case UVC_GET_RES:
		put(data, c->size, 1);
		return c->size;
	case UVC_GET_DEF:
		put(data, c->size, c->def);
		return c->size;
	case UVC_GET_LEN:
		put(data, 2, c->size);
		return 2;
	case UVC_GET_INFO:
		data[0] = UVC_CONTROL_CAP_GET | UVC_CONTROL_CAP_SET;
		return 1;
	default:
		return reject(error, VCAM_ERR_INVALID_REQUEST);
	}
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcvideo 6.1's chain scan (chain.h), step for step: the same entities in
 * the same order, the same failures. Indices into camera->entities stand
 * for uvcvideo's entity pointers; `taken` for its chain links, which it
 * never clears, not even for a chain it drops; `source0` for the first
 * source it rewrites when an extension unit hangs from an output terminal. */
#include "uvc/chain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

struct scan {
	const struct uvc_camera *cam;
	bool *taken;
	uint8_t *source0;
};

/* uvcvideo creates no entity for an encoding unit (6.1 does not parse
 * it), for an input terminal whose type has no high byte or the output
 * bit, nor for an output terminal whose type has no high byte. */
static bool exists(const struct uvc_entity *e)
{
	switch (e->kind) {
	case UVC_ENTITY_ENCODING_UNIT:
		return false;
	case UVC_ENTITY_INPUT_TERMINAL:
		return (e->type & 0x7f00) && !(e->type & 0x8000);
	case UVC_ENTITY_OUTPUT_TERMINAL:
		return (e->type & 0xff00) != 0;
	default:
		return true;
	}
}

static const struct uvc_entity *at(const struct scan *s, int i)
{
	return &s->cam->entities[i];
}

/* uvc_entity_by_id: the first entity with this ID, or -1. */
static int by_id(const struct scan *s, unsigned id)
{
	for (unsigned i = 0; i < s->cam->n_entities; i++)
		if (exists(at(s, (int)i)) && at(s, (int)i)->id == id)
			return (int)i;
	return -1;
}

static uint8_t source(const struct scan *s, int i, unsigned pin)
{
	return pin == 0 ? s->source0[i] : at(s, i)->sources[pin];
}

/* uvc_entity_by_reference: the next entity after `after` that has id
 * among its sources, or -1. */
static int by_reference(const struct scan *s, unsigned id, int after)
{
	for (unsigned i = (unsigned)(after + 1); i < s->cam->n_entities; i++) {
		if (!exists(at(s, (int)i)))
			continue;
		for (unsigned pin = 0; pin < at(s, (int)i)->n_sources; pin++)
			if (source(s, (int)i, pin) == id)
				return (int)i;
	}
	return -1;
}

static int append(struct scan *s, struct uvc_chain *c, int i)
{
	if (c->n == UVC_CHAIN_MAX_ENTITIES)
		return -1;
	c->at[c->n++] = (uint16_t)i;
	s->taken[i] = true;
	return 0;
}

/* The terminal types a chain may hold (either direction). */
static bool chain_terminal_type(uint16_t type)
{
	switch (type) {
	case UVC_ITT_VENDOR_SPECIFIC:
	case UVC_ITT_CAMERA:
	case UVC_ITT_MEDIA_TRANSPORT_INPUT:
	case UVC_OTT_VENDOR_SPECIFIC:
	case UVC_OTT_DISPLAY:
	case UVC_OTT_MEDIA_TRANSPORT_OUTPUT:
	case UVC_TT_STREAMING:
		return true;
	default:
		return false;
	}
}

/* uvc_scan_chain_entity: checks entity i against the chain and adds it. */
static int scan_entity(struct scan *s, struct uvc_chain *c, int i)
{
	const struct uvc_entity *e = at(s, i);

	switch (e->kind) {
	case UVC_ENTITY_EXTENSION_UNIT:
		if (e->n_sources != 1)
			return -1;
		break;
	case UVC_ENTITY_PROCESSING_UNIT:
		if (c->processing >= 0)
			return -1;
		c->processing = i;
		break;
	case UVC_ENTITY_SELECTOR_UNIT:
		if (e->n_sources == 1)
			break;
		if (c->selector >= 0)
			return -1;
		c->selector = i;
		break;
	case UVC_ENTITY_INPUT_TERMINAL:
	case UVC_ENTITY_OUTPUT_TERMINAL:
		if (!chain_terminal_type(e->type & 0x7fffu))
			return -1;
		break;
	default:
		return -1;
	}
	return append(s, c, i);
}

/* A terminal whose type (direction aside) is an output terminal type or
 * streaming: what the forward scan takes besides extension units. */
static bool output_like(const struct uvc_entity *e)
{
	unsigned type = e->type & 0x7fffu;

	if (e->kind != UVC_ENTITY_INPUT_TERMINAL && e->kind != UVC_ENTITY_OUTPUT_TERMINAL)
		return false;
	return type == UVC_TT_STREAMING ||
	       (type >= UVC_OTT_VENDOR_SPECIFIC && type <= UVC_OTT_MEDIA_TRANSPORT_OUTPUT);
}

/* The forward scan's extension unit fwd, fed by entity i: one input only;
 * fed by an output terminal, it is moved to that terminal's source, and
 * left out when there is none. */
static int forward_xu(struct scan *s, struct uvc_chain *c, int i, int fwd)
{
	if (at(s, fwd)->n_sources != 1)
		return -1;
	if (at(s, i)->kind == UVC_ENTITY_OUTPUT_TERMINAL) {
		int src = by_id(s, s->source0[i]);

		if (src < 0)
			return 0;
		s->source0[fwd] = at(s, src)->id;
	}
	return append(s, c, fwd);
}

/* uvc_scan_chain_forward: the extension units and output terminals that
 * entity i feeds join the chain (prev, where the walk came from, aside). */
static int scan_forward(struct scan *s, struct uvc_chain *c, int i, int prev)
{
	for (int fwd = by_reference(s, at(s, i)->id, -1); fwd >= 0;
	     fwd = by_reference(s, at(s, i)->id, fwd)) {
		const struct uvc_entity *f = at(s, fwd);

		if (fwd == prev)
			continue;
		if (s->taken[fwd])
			return -1;
		if (f->kind == UVC_ENTITY_EXTENSION_UNIT) {
			if (forward_xu(s, c, i, fwd) < 0)
				return -1;
		} else if (output_like(f)) {
			if (f->kind == UVC_ENTITY_INPUT_TERMINAL)
				return -1;
			/* one output terminal feeding another: left out */
			if (at(s, i)->kind != UVC_ENTITY_OUTPUT_TERMINAL && append(s, c, fwd) < 0)
				return -1;
		}
	}
	return 0;
}

/* A selector unit with several inputs: each must be an input terminal not
 * yet taken; each joins with what it feeds (whose failure uvcvideo
 * ignores here), and the walk ends. */
static int scan_selector(struct scan *s, struct uvc_chain *c, int su)
{
	c->selector = su;
	for (unsigned pin = 0; pin < at(s, su)->n_sources; pin++) {
		int it = by_id(s, source(s, su, pin));

		if (it < 0 || at(s, it)->kind != UVC_ENTITY_INPUT_TERMINAL || s->taken[it])
			return -1;
		if (append(s, c, it) < 0)
			return -1;
		(void)scan_forward(s, c, it, su);
	}
	return 0;
}

/* uvc_scan_chain_backward: from entity *i to its source; *i = -1 at the
 * end of the chain. */
static int scan_backward(struct scan *s, struct uvc_chain *c, int *i)
{
	const struct uvc_entity *e = at(s, *i);
	unsigned id = 0;

	if (e->kind == UVC_ENTITY_SELECTOR_UNIT && e->n_sources != 1) {
		int su = *i;

		*i = -1;
		return scan_selector(s, c, su);
	}
	/* a one-input selector unit is walked through as a unit; an input
	 * terminal ends the chain */
	if (e->kind != UVC_ENTITY_INPUT_TERMINAL && e->n_sources)
		id = s->source0[*i];
	if (id == 0) {
		*i = -1;
		return 0;
	}
	*i = by_id(s, id);
	return *i < 0 ? -1 : 0;
}

/* uvc_scan_chain: from output terminal ot back to the input terminals. */
static int scan_chain(struct scan *s, struct uvc_chain *c, int ot)
{
	int prev = -1;

	for (int i = ot; i >= 0;) {
		if (s->taken[i] || scan_entity(s, c, i) < 0 || scan_forward(s, c, i, prev) < 0)
			return -1;
		prev = i;
		if (scan_backward(s, c, &i) < 0)
			return -1;
	}
	return 0;
}

/* uvc_scan_fallback: exactly one input and one output terminal; between
 * them every processing unit and one-input extension unit, the last in
 * descriptor order first. */
static int scan_fallback(struct scan *s, struct uvc_chain *c)
{
	int it = -1, ot = -1;

	for (unsigned k = 0; k < s->cam->n_entities; k++) {
		const struct uvc_entity *e = at(s, (int)k);
		int *slot = e->kind == UVC_ENTITY_INPUT_TERMINAL  ? &it :
			    e->kind == UVC_ENTITY_OUTPUT_TERMINAL ? &ot : NULL;

		if (!slot || !exists(e))
			continue;
		if (*slot >= 0)
			return -1;
		*slot = (int)k;
	}
	if (it < 0 || ot < 0 || scan_entity(s, c, ot) < 0)
		return -1;
	for (int k = (int)s->cam->n_entities - 1; k >= 0; k--) {
		const struct uvc_entity *e = at(s, k);

		if ((e->kind != UVC_ENTITY_PROCESSING_UNIT && e->kind != UVC_ENTITY_EXTENSION_UNIT) ||
		    e->n_sources != 1)
			continue;
		if (scan_entity(s, c, k) < 0)
			return -1;
	}
	if (scan_entity(s, c, it) < 0)
		return -1;
	c->fallback = true;
	return 0;
}

static void chain_init(struct uvc_chain *c)
{
	memset(c, 0, sizeof(*c));
	c->selector = -1;
	c->processing = -1;
}

static void scan_device(struct scan *s, struct uvc_chains *out)
{
	for (unsigned k = 0; k < s->cam->n_entities && out->n < UVC_CHAINS_MAX; k++) {
		const struct uvc_entity *e = at(s, (int)k);
		struct uvc_chain *c = &out->chain[out->n];

		if (e->kind != UVC_ENTITY_OUTPUT_TERMINAL || !exists(e) || s->taken[k])
			continue;
		chain_init(c);
		if (scan_chain(s, c, (int)k) == 0)
			out->n++;
	}
	if (out->n == 0) {
		chain_init(&out->chain[0]);
		if (scan_fallback(s, &out->chain[0]) == 0)
			out->n = 1;
	}
}

int uvc_chains_scan(const struct uvc_camera *cam, struct uvc_chains *out)
{
	struct scan s = { .cam = cam };
	unsigned n = cam->n_entities;

	memset(out, 0, sizeof(*out));
	s.taken = calloc(n ? n : 1, sizeof(*s.taken));
	s.source0 = calloc(n ? n : 1, sizeof(*s.source0));
	if (!s.taken || !s.source0) {
		free(s.taken);
		free(s.source0);
		return -ENOMEM;
	}
	for (unsigned k = 0; k < n; k++)
		s.source0[k] = cam->entities[k].n_sources ? cam->entities[k].sources[0] : 0;
	scan_device(&s, out);
	free(s.taken);
	free(s.source0);
	return (int)out->n;
}

const struct uvc_chain *uvc_chains_find_terminal(const struct uvc_chains *chains,
						 const struct uvc_camera *cam, uint8_t terminal_link)
{
	for (unsigned c = 0; c < chains->n; c++)
		for (unsigned k = 0; k < chains->chain[c].n; k++) {
			const struct uvc_entity *e = uvc_chain_entity(cam, &chains->chain[c], k);

			if (e->type == UVC_TT_STREAMING && e->kind == UVC_ENTITY_OUTPUT_TERMINAL &&
			    e->id == terminal_link)
				return &chains->chain[c];
		}
	return NULL;
}

const struct uvc_entity *uvc_chain_first_input(const struct uvc_camera *cam,
					       const struct uvc_chain *chain)
{
	for (unsigned k = 0; chain && k < chain->n; k++)
		if (uvc_chain_entity(cam, chain, k)->kind == UVC_ENTITY_INPUT_TERMINAL)
			return uvc_chain_entity(cam, chain, k);
	return NULL;
}

const struct uvc_entity *uvc_chain_input_by_id(const struct uvc_camera *cam,
					       const struct uvc_chain *chain, uint8_t id)
{
	for (unsigned k = 0; chain && k < chain->n; k++) {
		const struct uvc_entity *e = uvc_chain_entity(cam, chain, k);

		if (e->kind == UVC_ENTITY_INPUT_TERMINAL && e->id == id)
			return e;
	}
	return NULL;
}

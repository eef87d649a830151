/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The journal, need and snapshot of a node call that waits for the camera
 * (node_call.h). */
#include "v4l2/node_call.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

/* More camera requests than any one call makes (LOG_STATUS of every
 * control with its ranges and menus): a journal beyond is a runaway. */
#define CALL_MAX_REQUESTS 4096

struct call_entry {
	struct ctrls_request r;
	int result;
	uint8_t *bytes;  /* SET_CUR: what was sent; GET_*: the answer (r.size) */
};

struct node_call {
	struct call_entry *log;
	unsigned n_log, cap_log;
	unsigned pos;            /* entries replayed by this run */
	bool running, aborted, need_valid;
	struct node_camera_req need;
	uint8_t *need_bytes;     /* SET_CUR's bytes (need.out) */
	size_t need_cap;
	/* the controls as the run found them, and the bytes of those kept on
	 * the heap (extension unit controls above CTRLS_MAX_BYTES) */
	struct ctrls snap;
	uint8_t *snap_x[CTRLS_MAX_UVC];
	struct call_event *events;
	unsigned n_events, cap_events;
};

static size_t xdata_size(const struct ctrls_uvc *u)
{
	return (size_t)CTRLS_N_DATA * u->size;
}

static void snap_drop(struct node_call *c)
{
	for (unsigned i = 0; i < CTRLS_MAX_UVC; i++) {
		free(c->snap_x[i]);
		c->snap_x[i] = NULL;
	}
}

static int snap_take(struct node *n)
{
	struct node_call *c = n->call;
	memcpy(&c->snap, &n->ctrls, sizeof(c->snap));
	for (unsigned i = 0; i < n->ctrls.n_uvc; i++) {
		const struct ctrls_uvc *u = &n->ctrls.uvc[i];
		if (!u->xdata)
			continue;
		c->snap_x[i] = malloc(xdata_size(u));
		if (!c->snap_x[i]) {
			snap_drop(c);
			return -ENOMEM;
		}
		memcpy(c->snap_x[i], u->xdata, xdata_size(u));
	}
	return 0;
}

static bool snap_has_xdata(const struct ctrls *s, const uint8_t *p)
{
	for (unsigned i = 0; i < s->n_uvc; i++)
		if (s->uvc[i].xdata == p)
			return true;
	return false;
}

static bool snap_has_map(const struct ctrls *s, const struct uvc_ctrl_mapping *m)
{
	for (unsigned k = 0; k < s->n_maps; k++)
		if (s->maps[k].map == m)
			return true;
	return false;
}

/* Back to the snapshot: what the run put on the heap is freed (an
 * extension unit control it introduced, a mapping), the heap bytes of the
 * others get their old contents. */
static void snap_restore(struct node *n)
{
	struct node_call *c = n->call;
	for (unsigned i = 0; i < n->ctrls.n_uvc; i++)
		if (n->ctrls.uvc[i].xdata && !snap_has_xdata(&c->snap, n->ctrls.uvc[i].xdata))
			free(n->ctrls.uvc[i].xdata);
	for (unsigned k = 0; k < n->ctrls.n_maps; k++)
		if (n->ctrls.maps[k].user && !snap_has_map(&c->snap, n->ctrls.maps[k].map))
			free((void *)n->ctrls.maps[k].map);
	memcpy(&n->ctrls, &c->snap, sizeof(n->ctrls));
	for (unsigned i = 0; i < n->ctrls.n_uvc; i++)
		if (c->snap_x[i])
			memcpy(n->ctrls.uvc[i].xdata, c->snap_x[i], xdata_size(&n->ctrls.uvc[i]));
	snap_drop(c);
}

static void log_truncate(struct node_call *c, unsigned from)
{
	for (unsigned i = from; i < c->n_log; i++)
		free(c->log[i].bytes);
	c->n_log = from;
}

int call_begin(struct node *n)
{
	if (!n->call) {
		n->call = calloc(1, sizeof(*n->call));
		if (!n->call)
			return -ENOMEM;
	}
	struct node_call *c = n->call;
	c->running = true;
	c->aborted = false;
	c->pos = 0;
	c->n_events = 0;
	int err = snap_take(n);
	if (err)
		c->running = false;
	return err;
}

bool call_running(const struct node *n)
{
	return n->call && n->call->running;
}

bool call_aborted(const struct node *n)
{
	return call_running(n) && n->call->aborted;
}

static bool is_set(const struct ctrls_request *r)
{
	return r->query == UVC_SET_CUR;
}

static bool same_request(const struct call_entry *e, const struct ctrls_request *r,
			 const uint8_t *data)
{
	if (e->r.query != r->query || e->r.entity != r->entity ||
	    e->r.selector != r->selector || e->r.size != r->size ||
	    e->r.streaming != r->streaming)
		return false;
	return !is_set(r) || !r->size || memcmp(e->bytes, data, r->size) == 0;
}

int call_request(struct node *n, const struct ctrls_request *r, uint8_t *data)
{
	struct node_call *c = n->call;
	if (c->aborted)
		return CALL_PENDING; /* the run is undone anyway: finish it quickly */
	if (c->pos < c->n_log) {
		struct call_entry *e = &c->log[c->pos];
		if (same_request(e, r, data)) {
			c->pos++;
			if (!is_set(r) && e->result > 0 && r->size)
				memcpy(data, e->bytes, r->size);
			return e->result;
		}
		/* Something changed the state between runs (another file's
		 * STREAMON, a release): the rest of the journal is stale. */
		log_truncate(c, c->pos);
	}
	if (c->n_log >= CALL_MAX_REQUESTS)
		return -EIO;
	if (is_set(r) && r->size > c->need_cap) {
		uint8_t *b = realloc(c->need_bytes, r->size);
		if (!b)
			return -ENOMEM;
		c->need_bytes = b;
		c->need_cap = r->size;
	}
	c->need.ctrl = *r;
	c->need.out = NULL;
	if (is_set(r) && r->size) {
		memcpy(c->need_bytes, data, r->size);
		c->need.out = c->need_bytes;
	}
	c->need_valid = true;
	c->aborted = true;
	return CALL_PENDING;
}

bool call_defer_event(struct node *n, struct node_file *f, struct node_sub *s,
		      const struct v4l2_event *ev)
{
	struct node_call *c = n->call;
	if (!c || !c->running)
		return false;
	if (c->n_events == c->cap_events) {
		unsigned cap = c->cap_events ? 2 * c->cap_events : 16;
		struct call_event *e = realloc(c->events, cap * sizeof(*e));
		if (!e)
			return true; /* lost, as an event queue that overflows */
		c->events = e;
		c->cap_events = cap;
	}
	c->events[c->n_events++] = (struct call_event){ f, s, *ev };
	return true;
}

bool call_end(struct node *n, struct call_event **events, unsigned *count)
{
	struct node_call *c = n->call;
	c->running = false;
	if (c->aborted) {
		snap_restore(n);
		c->n_events = 0;
		return true;
	}
	snap_drop(c);
	log_truncate(c, 0);
	c->need_valid = false;
	*events = c->events;
	*count = c->n_events;
	c->n_events = 0;
	return false;
}

void call_free(struct node *n)
{
	struct node_call *c = n->call;
	if (!c)
		return;
	log_truncate(c, 0);
	free(c->log);
	free(c->need_bytes);
	free(c->events);
	snap_drop(c);
	free(c);
	n->call = NULL;
}

/* ---- the device's side (node.h) ---- */

const struct node_camera_req *node_camera_need(const struct node *n)
{
	return n->call && n->call->need_valid ? &n->call->need : NULL;
}

bool node_call_pending(const struct node *n)
{
	return n->call && (n->call->need_valid || n->call->n_log);
}

int node_camera_answer(struct node *n, int result, const uint8_t *answer)
{
	struct node_call *c = n->call;
	if (!c || !c->need_valid)
		return -EINVAL;
	const struct ctrls_request *r = &c->need.ctrl;
	if (c->n_log == c->cap_log) {
		unsigned cap = c->cap_log ? 2 * c->cap_log : 16;
		struct call_entry *l = realloc(c->log, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		c->log = l;
		c->cap_log = cap;
	}
	struct call_entry e = { .r = *r, .result = result };
	const uint8_t *keep = is_set(r) ? c->need.out : result >= 0 ? answer : NULL;
	if (keep && r->size) {
		e.bytes = malloc(r->size);
		if (!e.bytes)
			return -ENOMEM;
		memcpy(e.bytes, keep, r->size);
	}
	c->log[c->n_log++] = e;
	c->need_valid = false;
	return 0;
}

void node_call_abandon(struct node *n)
{
	struct node_call *c = n->call;
	if (!c)
		return;
	/* the camera took the values the journal sent: what the controls
	 * cached of them is no longer known */
	for (unsigned i = 0; i < c->n_log; i++) {
		const struct ctrls_request *r = &c->log[i].r;
		if (r->streaming)
			continue; /* a probe: the next one sets it again */
		int k = ctrls_find_uvc(&n->ctrls, r->entity, r->selector);
		if (is_set(r) && c->log[i].result >= 0 && k >= 0)
			ctrls_invalidate(&n->ctrls, (unsigned)k);
	}
	log_truncate(c, 0);
	c->need_valid = false;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node's controls (src/v4l2/node.h): the V4L2 core's control ioctls
 * and uvcvideo's around src/v4l2/controls.c, control events as v4l2-event.c
 * keeps them with uvcvideo's control event ops, the camera's own changes
 * from its status endpoint, and uvcvideo's extension unit ioctls. Every
 * camera request goes through node_ctrl_request: synchronous at start-up,
 * through the call's journal (node_call.c) once the node is asynchronous. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/usb/video.h>
#include <linux/uvcvideo.h>

#include "v4l2/node.h"
#include "v4l2/node_call.h"
#include "v4l2/node_priv.h"

/* ---- controls: the V4L2 core's part (v4l2-ioctl.c) and uvcvideo's
 * (uvc_v4l2.c) around src/v4l2/controls.c ---- */

/* A buffer for one control request: extension unit controls may be far
 * larger than the standard ones. */
struct req_buf {
	uint8_t small[64];
	uint8_t *data;
};

static uint8_t *req_buf_get(struct req_buf *b, size_t size)
{
	memset(b->small, 0, sizeof(b->small));
	b->data = size <= sizeof(b->small) ? b->small : calloc(1, size);
	return b->data;
}

static void req_buf_put(struct req_buf *b)
{
	if (b->data != b->small)
		free(b->data);
	b->data = NULL;
}

/* One request to the camera (r->size bytes at data): from the call's
 * journal in asynchronous mode (CALL_PENDING when the camera must answer
 * first), else synchronous. */
int node_ctrl_request(struct node *n, const struct ctrls_request *r, uint8_t *data)
{
	if (n->async && call_running(n))
		return call_request(n, r, data);
	if (!n->ops->ctrl_request)
		return -EIO;
	return n->ops->ctrl_request(n->dev, r, data);
}

/* Makes the request the control layer asked for and feeds the answer. */
void node_ctrl_feed(struct node *n)
{
	struct ctrls_request r = n->ctrls.need;
	struct req_buf b;
	uint8_t *data = req_buf_get(&b, r.size);
	int len = data ? node_ctrl_request(n, &r, data) : -ENOMEM;

	ctrls_feed(&n->ctrls, &r, data ? data : b.small, len);
	req_buf_put(&b);
}


/* check_ext_ctrls() of the 6.1 core, for drivers without a control
 * handler: which is the current or default value, or one control class
 * that every id belongs to; V4L2_CID_PRIVATE_BASE only through G/S_CTRL. */
static bool check_ext_ctrls(struct v4l2_ext_controls *c, struct v4l2_ext_control *xs,
			    unsigned long ioctl)
{
	c->reserved[0] = 0;
	for (unsigned i = 0; i < c->count; i++)
		xs[i].reserved2[0] = 0;
	switch (c->which) {
	case V4L2_CID_PRIVATE_BASE:
		if (ioctl != VIDIOC_G_CTRL && ioctl != VIDIOC_S_CTRL)
			return false;
		break;
	case V4L2_CTRL_WHICH_DEF_VAL:
		if (ioctl == VIDIOC_S_EXT_CTRLS || ioctl == VIDIOC_TRY_EXT_CTRLS) {
			c->error_idx = c->count;
			return false;
		}
		return true;
	case V4L2_CTRL_WHICH_CUR_VAL:
		return true;
	case V4L2_CTRL_WHICH_REQUEST_VAL:
		c->error_idx = c->count;
		return false;
	}
	for (unsigned i = 0; i < c->count; i++) {
		if (V4L2_CTRL_ID2WHICH(xs[i].id) != c->which) {
			c->error_idx = ioctl == VIDIOC_TRY_EXT_CTRLS ? i : c->count;
			return false;
		}
	}
	return true;
}

/* uvc_ctrl_check_access: error_idx is the failing control only for TRY
 * (the count otherwise, also on success). */
static int ctrls_access(struct node *n, struct v4l2_ext_controls *c, struct v4l2_ext_control *xs,
			unsigned long ioctl)
{
	unsigned i;
	int ret = 0;

	for (i = 0; i < c->count; i++) {
		CTRL_RUN(n, ret, ctrls_check_access(&n->ctrls, xs, c->count, i, ioctl));
		if (ret)
			break;
	}
	c->error_idx = ioctl == VIDIOC_TRY_EXT_CTRLS ? i : c->count;
	return ret;
}

/* uvc_ioctl_g_ext_ctrls (6.1): which DEF_VAL reads the defaults through
 * QUERYCTRL (error_idx stays the count on success), anything else the
 * current values. */
static int g_ext_ctrls(struct node *n, struct v4l2_ext_controls *c, struct v4l2_ext_control *xs)
{
	int ret = ctrls_access(n, c, xs, VIDIOC_G_EXT_CTRLS);

	if (ret < 0)
		return ret;
	if (c->which == V4L2_CTRL_WHICH_DEF_VAL) {
		for (unsigned i = 0; i < c->count; i++) {
			struct v4l2_queryctrl qc = { .id = xs[i].id };

			CTRL_RUN(n, ret, ctrls_queryctrl(&n->ctrls, &qc));
			if (ret < 0) {
				c->error_idx = i;
				return ret;
			}
			xs[i].value = qc.default_value;
		}
		return 0;
	}
	for (unsigned i = 0; i < c->count; i++) {
		int32_t v = 0;

		CTRL_RUN(n, ret, ctrls_get(&n->ctrls, xs[i].id, &v));
		if (ret < 0) {
			ctrls_rollback(&n->ctrls);
			ctrls_end(&n->ctrls);
			c->error_idx = i;
			return ret;
		}
		xs[i].value = v;
	}
	c->error_idx = 0;
	ctrls_rollback(&n->ctrls);
	ctrls_end(&n->ctrls);
	return 0;
}

/* uvc_ioctl_s_try_ext_ctrls: access of all, then each value clamped and
 * staged; S sends the staged controls (SET_CUR in uvcvideo's order), TRY
 * drops them. */
static void send_events(struct node *n, struct node_file *origin, uint8_t entity,
			const struct v4l2_ext_control *xs, unsigned count);

static int s_try_ext_ctrls(struct node *n, struct node_file *f, struct v4l2_ext_controls *c,
			   struct v4l2_ext_control *xs, unsigned long ioctl)
{
	struct ctrls_request r;
	const uint8_t *bytes;
	unsigned from = 0;
	int ret = ctrls_access(n, c, xs, ioctl);

	if (ret < 0)
		return ret;
	for (unsigned i = 0; i < c->count; i++) {
		int32_t v = xs[i].value;

		CTRL_RUN(n, ret, ctrls_set(&n->ctrls, xs[i].id, &v));
		xs[i].value = v;
		if (ret < 0) {
			ctrls_rollback(&n->ctrls);
			ctrls_end(&n->ctrls);
			c->error_idx = ioctl == VIDIOC_S_EXT_CTRLS ? c->count : i;
			return ret;
		}
	}
	c->error_idx = 0;
	if (ioctl != VIDIOC_S_EXT_CTRLS) {
		ctrls_rollback(&n->ctrls);
		ctrls_end(&n->ctrls);
		return 0;
	}
	/* __uvc_ctrl_commit: entity by entity in chain order; an entity
	 * whose controls all went through sends its events, one that failed
	 * does not and the rest are not sent */
	uint8_t done[CTRLS_MAX_CHAIN];
	unsigned n_done = 0;
	int failed_entity = -1;

	while (ctrls_commit_next(&n->ctrls, from, &r, &bytes)) {
		struct req_buf b;
		uint8_t *data = req_buf_get(&b, r.size);
		int res = -ENOMEM;

		if (data) {
			if (r.size)
				memcpy(data, bytes, r.size);
			res = node_ctrl_request(n, &r, data);
		}
		req_buf_put(&b);
		ctrls_commit_done(&n->ctrls, r.ctrl, res);
		if (res < 0) {
			/* the camera refused one: the rest are not sent */
			ctrls_rollback(&n->ctrls);
			c->error_idx = ctrls_error_idx(&n->ctrls, r.ctrl, xs, c->count);
			failed_entity = r.entity;
			ret = res;
			break;
		}
		/* uvc_ctrl_set_handle: the camera reports it when done */
		if (n->ctrls.uvc[r.ctrl].flags & UVC_CTRL_FLAG_ASYNCHRONOUS)
			n->ctrls.uvc[r.ctrl].owner = f;
		if ((!n_done || done[n_done - 1] != r.entity) && n_done < CTRLS_MAX_CHAIN)
			done[n_done++] = r.entity;
		from = r.ctrl + 1;
	}
	ctrls_end(&n->ctrls);
	for (unsigned e = 0; e < n_done; e++)
		if (done[e] != failed_entity)
			send_events(n, f, done[e], xs, c->count);
	return ret;
}

/* VIDIOC_G/S/TRY_EXT_CTRLS: the array arrived in extra (the count limit of
 * check_array_args was applied by the marshalling already; checked again
 * here for callers that did not). */
int node_ext_ctrls(struct node *n, struct node_file *f, unsigned int cmd,
		   struct v4l2_ext_controls *c, void *extra, size_t extra_len)
{
	struct v4l2_ext_control *xs = extra;

	if (c->count > V4L2_CID_MAX_CTRLS)
		return -EINVAL;
	if (c->count && (!xs || extra_len != (size_t)c->count * sizeof(*xs)))
		return -EFAULT;
	c->error_idx = c->count;
	if (!check_ext_ctrls(c, xs, cmd))
		return -EINVAL;
	if (cmd == VIDIOC_G_EXT_CTRLS)
		return g_ext_ctrls(n, c, xs);
	return s_try_ext_ctrls(n, f, c, xs, cmd);
}

/* VIDIOC_G_CTRL and VIDIOC_S_CTRL: the core makes them one-control
 * extended requests of the id's class (uvcvideo has no g/s_ctrl). */
int node_g_s_ctrl(struct node *n, struct node_file *f, unsigned int cmd, struct v4l2_control *p)
{
	struct v4l2_ext_control x = { .id = p->id, .value = p->value };
	struct v4l2_ext_controls c = { .which = V4L2_CTRL_ID2WHICH(p->id), .count = 1 };
	int err;

	if (!check_ext_ctrls(&c, &x, cmd))
		return -EINVAL;
	err = cmd == VIDIOC_G_CTRL ? g_ext_ctrls(n, &c, &x) :
				     s_try_ext_ctrls(n, f, &c, &x, VIDIOC_S_EXT_CTRLS);
	if (!err)
		p->value = x.value;
	return err;
}

/* ---- control events: v4l2-event.c with uvcvideo's control event ops
 * (uvc_ctrl_add_event, uvc_ctrl_send_events) ---- */

struct node_sub *node_sub_find(struct node_file *f, uint32_t type, uint32_t id)
{
	for (unsigned i = 0; i < f->n_subs; i++)
		if (f->subs[i].type == type && f->subs[i].id == id)
			return &f->subs[i];
	return NULL;
}

/* __v4l2_event_queue_fh with one element per subscription: a pending
 * event is replaced (v4l2_ctrl_replace: the new payload, the changes of
 * both) and moves to the end of the line. */
void node_event_queue(struct node *n, struct node_file *f, struct node_sub *s,
			const struct v4l2_event *ev)
{
	struct timespec ts;

	if (call_defer_event(n, f, s, ev))
		return; /* delivered when the run answers (node_call.h) */
	uint32_t old_changes = 0;

	f->sequence++;
	if (s->pending) {
		old_changes = s->ev.u.ctrl.changes;
		f->navailable--;
	}
	memset(&s->ev, 0, sizeof(s->ev));
	s->ev.type = ev->type;
	s->ev.id = ev->id;
	s->ev.u = ev->u;
	s->ev.u.ctrl.changes |= old_changes;
	s->ev.sequence = f->sequence;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->ev.timestamp.tv_sec = ts.tv_sec;
	s->ev.timestamp.tv_nsec = ts.tv_nsec;
	s->pending = true;
	s->order = ++n->event_order;
	f->navailable++;
	n->events_queued++;
	if (n->ops->waiters_changed)
		n->ops->waiters_changed(n->dev);
}

/* uvc_ctrl_fill_event: mapping k as QUERYCTRL describes it now (a failed
 * query leaves what it filled, as uvcvideo ignores that error too). */
static void fill_event(struct node *n, unsigned k, int32_t value, uint32_t changes,
		       struct v4l2_event *ev)
{
	struct v4l2_queryctrl qc = { .id = n->ctrls.maps[k].map->id };
	int ret;

	CTRL_RUN(n, ret, ctrls_query_map(&n->ctrls, k, &qc));
	(void)ret;
	memset(ev, 0, sizeof(*ev));
	ev->type = V4L2_EVENT_CTRL;
	ev->id = n->ctrls.maps[k].map->id;
	ev->u.ctrl.value = value;
	ev->u.ctrl.changes = changes;
	ev->u.ctrl.type = qc.type;
	ev->u.ctrl.flags = qc.flags;
	ev->u.ctrl.minimum = qc.minimum;
	ev->u.ctrl.maximum = qc.maximum;
	ev->u.ctrl.step = qc.step;
	ev->u.ctrl.default_value = qc.default_value;
}

/* The file's subscription to mapping k, or NULL. */
static struct node_sub *sub_of_map(struct node_file *f, const struct ctrls *c, unsigned k)
{
	struct node_sub *s = node_sub_find(f, V4L2_EVENT_CTRL, c->maps[k].map->id);

	return s && s->map == c->maps[k].map ? s : NULL;
}

/* uvc_ctrl_send_event: to every subscriber of mapping k but the file that
 * made the change (NULL: none did), unless it asked for feedback or the
 * flags changed. */
static void send_event(struct node *n, struct node_file *origin, unsigned k, int32_t value,
		       uint32_t changes)
{
	struct v4l2_event ev;
	bool any = false;

	for (struct node_file *f = n->files; f && !any; f = f->next)
		any = sub_of_map(f, &n->ctrls, k) != NULL;
	if (!any)
		return;
	fill_event(n, k, value, changes, &ev);
	for (struct node_file *f = n->files; f; f = f->next) {
		struct node_sub *s = sub_of_map(f, &n->ctrls, k);

		if (s && (f != origin || (s->flags & V4L2_EVENT_SUB_FL_ALLOW_FEEDBACK) ||
			  (changes & V4L2_EVENT_CTRL_CH_FLAGS)))
			node_event_queue(n, f, s, &ev);
	}
}

/* uvc_ctrl_send_slave_event: a master changed, so did its slave's flags. */
static void send_slave_event(struct node *n, struct node_file *origin, uint8_t entity,
			     uint32_t slave_id)
{
	uint32_t changes = V4L2_EVENT_CTRL_CH_FLAGS;
	int k = ctrls_find_in_entity(&n->ctrls, entity, slave_id);
	int32_t val = 0;
	int ret;

	if (k < 0)
		return;
	CTRL_RUN(n, ret, ctrls_get_map(&n->ctrls, (unsigned)k, &val));
	if (ret == 0)
		changes |= V4L2_EVENT_CTRL_CH_VALUE;
	send_event(n, origin, (unsigned)k, val, changes);
}

static bool xs_has(const struct v4l2_ext_control *xs, unsigned count, uint32_t id)
{
	for (unsigned j = 0; j < count; j++)
		if (xs[j].id == id)
			return true;
	return false;
}

/* uvc_ctrl_send_events for one entity after its controls were committed. */
static void send_events(struct node *n, struct node_file *origin, uint8_t entity,
			const struct v4l2_ext_control *xs, unsigned count)
{
	for (unsigned i = 0; i < count; i++) {
		int k = ctrls_find(&n->ctrls, xs[i].id);
		const struct uvc_ctrl_mapping *m;
		const struct ctrls_uvc *u;
		uint32_t changes = V4L2_EVENT_CTRL_CH_VALUE;

		if (k < 0)
			continue;
		m = n->ctrls.maps[k].map;
		u = &n->ctrls.uvc[n->ctrls.maps[k].uvc];
		if (u->entity != entity)
			continue;
		if (u->flags & UVC_CTRL_FLAG_ASYNCHRONOUS)
			continue; /* the camera reports it on its status endpoint */
		for (unsigned j = 0; j < 2 && m->slave_ids[j]; j++)
			/* a slave set in the same request sends its own */
			if (!xs_has(xs, count, m->slave_ids[j]))
				send_slave_event(n, origin, u->entity, m->slave_ids[j]);
		/* the master set in the same request: the flags may change too */
		if (m->master_id && xs_has(xs, count, m->master_id))
			changes |= V4L2_EVENT_CTRL_CH_FLAGS;
		send_event(n, origin, (unsigned)k, xs[i].value, changes);
	}
}

int node_ctrl_status_event(struct node *n, uint8_t originator, uint8_t selector, const uint8_t *value,
			size_t len)
{
	int i = ctrls_find_uvc(&n->ctrls, originator, selector);
	struct node_file *origin;
	struct req_buf b;
	uint8_t *data;
	unsigned size, reported = 0;
	bool mapped = false;

	if (i < 0)
		return -ENOENT;
	for (unsigned k = 0; k < n->ctrls.n_maps && !mapped; k++)
		mapped = n->ctrls.maps[k].uvc == (unsigned)i;
	if (!mapped)
		return -ENOENT; /* uvc_ctrl_status_event_async: nothing to tell */
	size = n->ctrls.uvc[i].size;
	/* the mappings read the control's full size: what the packet lacks
	 * is zero */
	data = req_buf_get(&b, size ? size : 1);
	if (!data)
		return -ENOMEM;
	if (value && len && size)
		memcpy(data, value, len < size ? len : size);
	origin = n->ctrls.uvc[i].owner;
	n->ctrls.uvc[i].owner = NULL;
	ctrls_invalidate(&n->ctrls, (unsigned)i);
	/* the list of mappings may not change below (no ioctl runs), but
	 * their indices are looked up again for each */
	for (unsigned k = 0; k < n->ctrls.n_maps; k++) {
		const struct uvc_ctrl_mapping *m = n->ctrls.maps[k].map;
		uint8_t entity = n->ctrls.uvc[i].entity;
		int32_t v;

		if (n->ctrls.maps[k].uvc != (unsigned)i)
			continue;
		v = ctrls_value_of(&n->ctrls, k, data);
		for (unsigned j = 0; j < 2 && m->slave_ids[j]; j++)
			send_slave_event(n, origin, entity, m->slave_ids[j]);
		send_event(n, origin, k, v, V4L2_EVENT_CTRL_CH_VALUE);
		reported++;
	}
	req_buf_put(&b);
	return (int)reported;
}

/* VIDIOC_SUBSCRIBE_EVENT: control events only; a class is accepted and
 * sends nothing; SEND_INITIAL queues the current state at once. */
int node_subscribe(struct node *n, struct node_file *f, const struct v4l2_event_subscription *sub)
{
	struct node_sub *s;
	struct v4l2_event ev;
	uint32_t changes = V4L2_EVENT_CTRL_CH_FLAGS;
	int32_t val = 0;
	int ret, k = -1;

	if (sub->type != V4L2_EVENT_CTRL && sub->type != V4L2_EVENT_SOURCE_CHANGE)
		return -EINVAL;
	if (node_sub_find(f, sub->type, sub->id))
		return 0; /* already listening */
	if (sub->type == V4L2_EVENT_SOURCE_CHANGE) {
		/* v4l2_src_change_event_subscribe: any id, nothing initial */
		if (f->n_subs == NODE_MAX_SUBS)
			return -ENOMEM;
		s = &f->subs[f->n_subs++];
		memset(s, 0, sizeof(*s));
		s->type = sub->type;
		s->id = sub->id;
		s->flags = sub->flags;
		return 0;
	}
	bool is_class = ctrls_is_class(&n->ctrls, sub->id);
	if (!is_class) {
		k = ctrls_find(&n->ctrls, sub->id);
		if (k < 0)
			return -EINVAL;
	}
	if (f->n_subs == NODE_MAX_SUBS)
		return -ENOMEM;
	bool initial = !is_class && (sub->flags & V4L2_EVENT_SUB_FL_SEND_INITIAL);
	if (initial) {
		CTRL_RUN(n, ret, ctrls_get_map(&n->ctrls, (unsigned)k, &val));
		if (ret == 0)
			changes |= V4L2_EVENT_CTRL_CH_VALUE;
		fill_event(n, (unsigned)k, val, changes, &ev);
		if (call_aborted(n))
			return CALL_PENDING; /* subscribed when the run is made again */
	}
	s = &f->subs[f->n_subs++];
	memset(s, 0, sizeof(*s));
	s->type = sub->type;
	s->id = sub->id;
	s->flags = sub->flags;
	s->map = is_class ? NULL : n->ctrls.maps[k].map;
	if (initial)
		node_event_queue(n, f, s, &ev);
	return 0;
}

static void sub_remove(struct node_file *f, struct node_sub *s)
{
	if (s->pending)
		f->navailable--;
	*s = f->subs[--f->n_subs];
}

/* VIDIOC_UNSUBSCRIBE_EVENT: 0 also when not subscribed; V4L2_EVENT_ALL
 * drops every subscription. */
int node_unsubscribe(struct node_file *f, const struct v4l2_event_subscription *sub)
{
	struct node_sub *s;

	if (sub->type == V4L2_EVENT_ALL) {
		f->n_subs = 0;
		f->navailable = 0;
		return 0;
	}
	s = node_sub_find(f, sub->type, sub->id);
	if (s)
		sub_remove(f, s);
	return 0;
}

/* VIDIOC_DQEVENT: the oldest pending event; pending counts the rest. */
int node_dqevent(struct node_file *f, struct v4l2_event *ev, bool nonblock)
{
	struct node_sub *first = NULL;

	for (unsigned i = 0; i < f->n_subs; i++)
		if (f->subs[i].pending && (!first || f->subs[i].order < first->order))
			first = &f->subs[i];
	if (!first)
		return nonblock ? -ENOENT : NODE_WAIT;
	first->pending = false;
	f->navailable--;
	*ev = first->ev;
	ev->pending = f->navailable;
	return 0;
}

/* ---- extension units: uvcvideo's own ioctls (uvc_ioctl_default) ---- */

/* UVCIOC_CTRL_QUERY: the request goes to the camera with the caller's
 * bytes (extra), which also take the answer; the control cache is not
 * involved, as in uvcvideo. */
int node_xu_query(struct node *n, struct uvc_xu_control_query *q, void *extra, size_t extra_len)
{
	struct ctrls_request r;
	int ret;

	CTRL_RUN(n, ret, ctrls_xu_query(&n->ctrls, q->unit, q->selector, q->query, q->size, &r));
	if (ret)
		return ret;
	if (q->size && (!extra || extra_len != q->size))
		return -EFAULT; /* the marshalling did not bring the data */
	ret = node_ctrl_request(n, &r, extra);
	return ret < 0 ? ret : 0;
}

/* UVCIOC_CTRL_MAP: the menu arrives as extra (menu mappings only). */
int node_xu_map(struct node *n, struct uvc_xu_control_mapping *xm, const void *extra,
		  size_t extra_len)
{
	struct uvc_menu_info menu[CTRLS_MAX_MENU];
	unsigned count = 0;
	int ret;

	if (xm->v4l2_type == V4L2_CTRL_TYPE_MENU && extra &&
	    extra_len % sizeof(menu[0]) == 0 && extra_len <= sizeof(menu)) {
		count = (unsigned)(extra_len / sizeof(menu[0]));
		memcpy(menu, extra, extra_len);
	}
	CTRL_RUN(n, ret, ctrls_xu_map(&n->ctrls, xm, menu, count));
	return ret;
}


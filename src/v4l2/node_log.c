/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node's part of VIDIOC_LOG_STATUS. */
#include "v4l2/node.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>

#include <linux/usb/video.h>
#include <linux/uvcvideo.h>

#include "convert/catalogue.h"
#include "uvc/quirks.h"
#include "v4l2/conv_formats.h"
#include "v4l2/node_call.h"
#include "v4l2/node_priv.h"

static const char *memory_name(unsigned memory)
{
	switch (memory) {
	case V4L2_MEMORY_MMAP:
		return "mmap";
	case V4L2_MEMORY_USERPTR:
		return "userptr";
	case VQ_MEMORY_READ:
		return "read()";
	default:
		return "none";
	}
}

/* One control as v4l2_ctrl_log_status prints it: name, value, the menu
 * item, flags. */
static void log_control(struct node *n, const struct v4l2_queryctrl *qc, node_log_fn *fn, void *ctx)
{
	const char *inactive = qc->flags & V4L2_CTRL_FLAG_INACTIVE ? " (inactive)" : "";
	int32_t v = 0;
	int ret;

	if (qc->flags & V4L2_CTRL_FLAG_WRITE_ONLY) {
		fn(ctx, "  %s: write-only%s", (const char *)qc->name, inactive);
		return;
	}
	CTRL_RUN(n, ret, ctrls_get(&n->ctrls, qc->id, &v));
	if (ret) {
		fn(ctx, "  %s: unreadable (%s)%s", (const char *)qc->name, strerror(-ret), inactive);
		return;
	}
	if (qc->type == V4L2_CTRL_TYPE_MENU) {
		struct v4l2_querymenu qm = { .id = qc->id, .index = (uint32_t)v };

		CTRL_RUN(n, ret, ctrls_querymenu(&n->ctrls, &qm));
		fn(ctx, "  %s: %d (%s)%s", (const char *)qc->name, v,
		   ret ? "?" : (const char *)qm.name, inactive);
		return;
	}
	fn(ctx, "  %s: %d%s", (const char *)qc->name, v, inactive);
}

void node_log_status(struct node *n, node_log_fn *fn, void *ctx)
{
	const struct node_fmt *cur = node_current_fmt(n);
	struct v4l2_fract t = fmt_interval_fract(cur->probe.interval);
	char fourcc[5] = { 0 };
	unsigned files = 0, subs = 0, pending = 0, listed = 0, procs = 0;
	struct v4l2_queryctrl qc = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
	int ret;

	for (unsigned i = 0; i < 4; i++)
		fourcc[i] = (char)((cur->format->fourcc >> (8 * i)) & 0xff);
	/* one line, converted or not: the block's length stays the camera's */
	char conv[128] = "";
	if (cur->conv_fourcc)
		snprintf(conv, sizeof(conv), "; converted to %.4s (%s)",
			 (const char *)&cur->conv_fourcc, cfmt_reason_text(cur->conv_reason));
	fn(ctx, "format: %s %ux%u, %u/%u s per frame, at most %u bytes per frame%s", fourcc,
	   cur->frame->width, cur->frame->height, t.numerator, t.denominator,
	   cur->probe.max_video_frame_size, conv);
	/* the queues in use: one in the words of uvcvideo's; each prefixed by
	 * its process when several processes share the camera */
	for (const struct node_proc *p = n->procs; p; p = p->next)
		procs += p->queue.n_buffers || p->queue.streaming;
	for (const struct node_proc *p = n->procs; p; p = p->next) {
		const struct vq *q = &p->queue;
		if (procs && !q->n_buffers && !q->streaming)
			continue;
		const struct node_fmt *f = node_proc_fmt(n, p);
		char who[32] = "", as[32] = "";
		if (procs > 1) {
			uint32_t fcc = f->conv_fourcc ? f->conv_fourcc : f->format->fourcc;
			snprintf(who, sizeof(who), "process %d: ", (int)p->pid);
			snprintf(as, sizeof(as), "; as %.4s", (const char *)&fcc);
		}
		fn(ctx, "%sstreaming: %s; buffers: %u (%s), %u queued, %u done%s%s", who,
		   q->streaming ? "yes" : "no", q->n_buffers, memory_name(q->memory), q->n_queued,
		   q->n_done, q->error ? "; queue in error" : "", as);
		if (!procs)
			break;
	}
	for (const struct node_file *f = n->files; f; f = f->next) {
		files++;
		subs += f->n_subs;
		pending += f->navailable;
	}
	fn(ctx, "open files: %u, event subscriptions: %u, events pending: %u", files, subs,
	   pending);
	fn(ctx, "controls: %u (%u mapped by applications, %u UVC controls)", n->ctrls.n_maps,
	   n->ctrls.n_user_maps, n->ctrls.n_uvc);
	/* in enumeration order, as v4l2-ctl lists them */
	for (;;) {
		uint32_t last = qc.id & V4L2_CTRL_ID_MASK;

		qc.id = last | V4L2_CTRL_FLAG_NEXT_CTRL;
		CTRL_RUN(n, ret, ctrls_queryctrl(&n->ctrls, &qc));
		if (ret == -EINVAL)
			break;
		if (ret) {
			fn(ctx, "  control after 0x%08x: %s", last, strerror(-ret));
			break;
		}
		if ((qc.id & V4L2_CTRL_ID_MASK) <= last)
			break;
		if (qc.type == V4L2_CTRL_TYPE_CTRL_CLASS) {
			fn(ctx, "%s", (const char *)qc.name);
			continue;
		}
		log_control(n, &qc, fn, ctx);
		if (++listed > CTRLS_MAX_MAPS)
			break;
	}
	ctrls_end(&n->ctrls);
}


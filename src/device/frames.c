/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera's frames to the processes that stream (issue 13's sharing).
 *
 * The camera streams once; each streaming process is a consumer with its
 * own queue (node_proc), fed natively or through its own converter.
 * - The assembler writes straight into the next queued buffer of the
 *   first consumer in line that has one, or into a native buffer of its
 *   converter: no copy for it beyond the one from the USB transfers (the
 *   single-app path of uvcvideo).
 * - With several consumers, an app's buffer is mirrored: the assembler
 *   writes the same payloads into the device's fan-out buffer too, and
 *   each other consumer gets a copy from there (or from the converter's
 *   native buffer) in its next queued buffer or native buffer. When no
 *   consumer has a buffer ready, the frame is assembled in the fan-out
 *   buffer alone and copied to each.
 * No frame goes to a process from memory another process can write (issue
 * 29, finding 4): the copies come from the fan-out buffer or a native
 * buffer (heap memory no app maps), never from an app's own buffer. While
 * a frame is written into one app's buffer unmirrored (it was alone), a
 * consumer that joins starts with the next frame (its sequence counts from
 * there), and when that app leaves mid-frame the frame is lost to the ones
 * that joined meanwhile, which never counted it. A frame in the fan-out
 * buffer, mirrored there or in a native buffer goes on for the others when
 * its consumer leaves: they see no gap. */
#include "device/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device/convert_stream.h"
#include "core/log.h"
#include "v4l2/node.h"

static struct timeval timeval_of_ns(uint64_t ns)
{
	return (struct timeval){ .tv_sec = (time_t)(ns / 1000000000u),
				 .tv_usec = (suseconds_t)(ns % 1000000000u / 1000) };
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct timeval now_tv(void)
{
	return timeval_of_ns(now_ns());
}

/* A frame's timestamp (uvc/stamper.h): its exposure from the camera's
 * clock, fed with the SCRs of the transfers since the last frame, or when
 * its first payload came. */
static struct timeval frame_time(struct dev_frames *f, const struct uvc_frame_event *ev)
{
	struct uvc_scr_sample s[UVC_ASM_SCR_SAMPLES];
	unsigned n = uvc_assembler_take_scr(&f->assembler, s, UVC_ASM_SCR_SAMPLES);
	for (unsigned k = 0; k < n; k++)
		uvc_stamper_sample(&f->stamper, s[k].stc, s[k].host_ns);
	return timeval_of_ns(
		uvc_stamper_frame(&f->stamper, ev->has_pts, ev->pts, ev->start_ns, now_ns(), NULL));
}

/* The camera's sequence number of a frame of the assembler: its count
 * plus the frames a replug lost (device_replug.c). */
static uint64_t frame_sequence(struct device *dev, const struct uvc_frame_event *ev)
{
	uint64_t seq = ev->sequence + dev->stream.seq_offset;
	dev->stream.next_sequence = seq + 1;
	return seq;
}

/* The measured frame rate: the frames of windows of at least a second; a
 * pause of two seconds starts afresh. */
static void measure_rate(struct dev_counters *s, const struct timeval *now)
{
	uint64_t now_us = (uint64_t)now->tv_sec * 1000000u + (uint64_t)now->tv_usec;
	if (!s->last_frame_us || now_us - s->last_frame_us > 2000000u) {
		s->rate_since_us = now_us;
		s->rate_frames0 = s->frames;
		s->measured_mfps = 0;
	} else if (now_us - s->rate_since_us >= 1000000u) {
		s->measured_mfps = (uint32_t)((s->frames - s->rate_frames0) * 1000000000ull /
					      (now_us - s->rate_since_us));
		s->rate_since_us = now_us;
		s->rate_frames0 = s->frames;
	}
	s->last_frame_us = now_us;
}

/* A consumer counts from its STREAMON, as vb2 does; gaps stay gaps. */
static uint32_t consumer_sequence(const struct dev_consumer *c, uint64_t seq)
{
	return (uint32_t)(seq - c->seq_base);
}

/* The fan-out buffer holds at least cap bytes and a frame of the running
 * format (heap memory: no app maps it). */
static bool fan_ready(struct device *dev, size_t cap)
{
	size_t need = node_current_fmt(&dev->node)->probe.max_video_frame_size;
	if (need < cap)
		need = cap;
	if (dev->frames.fan_buf && dev->frames.fan_cap >= need)
		return true;
	uint8_t *buf = malloc(need);
	if (!buf) {
		log_warn("no memory for a %zu-byte frame shared between processes", need);
		return false;
	}
	free(dev->frames.fan_buf);
	dev->frames.fan_buf = buf;
	dev->frames.fan_cap = need;
	return true;
}

/* Held native frames go to the converter as the app's buffers allow,
 * oldest first, each straight into the next queued buffer. */
static void submit_held(struct dev_consumer *c)
{
	struct vq *q = &c->proc->queue;
	struct vq_buffer *b;
	while (c->converting && c->n_held && (b = vq_next(q))) {
		struct held_frame h = c->held[0];
		memmove(&c->held[0], &c->held[1], --c->n_held * sizeof(c->held[0]));
		if (convert_stream_submit(c->conv, h.native, h.len, b->mem, b->length, b, &h.meta)) {
			c->dev->stats.frames_dropped++;
			vq_requeue(q, b);
			convert_stream_unused(c->conv, h.native);
		}
	}
}

static void drop_oldest_held(struct dev_consumer *c)
{
	c->dev->stats.frames_no_app_buffer++;
	c->missed++;
	convert_stream_unused(c->conv, c->held[0].native);
	memmove(&c->held[0], &c->held[1], --c->n_held * sizeof(c->held[0]));
}

/* A native frame for converting consumer c is complete in one of its
 * native buffers. While its app has no buffer queued the frame waits
 * there (uvcvideo would drop it); when too many wait, the oldest is lost,
 * its sequence number skipped. */
static void native_frame(struct dev_consumer *c, uint8_t *native, size_t len,
			 const struct convert_frame_meta *meta)
{
	/* held: the newest frames, as many as leaves the assembler a buffer
	 * and a thread one */
	if (c->n_held == HELD_MAX || c->n_held + 2 >= convert_stream_slots(c->conv))
		drop_oldest_held(c);
	c->held[c->n_held++] = (struct held_frame){ .native = native, .len = len, .meta = *meta };
	submit_held(c);
}

/* A copy of a finished frame for consumer c (several consumers, or one
 * that joined while the frame was assembled elsewhere). */
static void deliver_copy(struct dev_consumer *c, const uint8_t *src, size_t len, uint64_t seq,
			 const struct convert_frame_meta *camera_meta)
{
	struct device *dev = c->dev;
	struct convert_frame_meta meta = *camera_meta;
	meta.sequence = consumer_sequence(c, seq);
	if (c->conv) {
		size_t cap;
		uint8_t *native = c->converting ? convert_stream_native(c->conv, &cap) : NULL;
		if (!native && c->converting && c->n_held) {
			drop_oldest_held(c);
			native = convert_stream_native(c->conv, &cap);
		}
		if (!native) {
			dev->stats.frames_no_app_buffer++;
			c->missed++;
			return;
		}
		size_t n = len < cap ? len : cap;
		memcpy(native, src, n);
		dev->stats.bytes_copied_after += n;
		native_frame(c, native, n, &meta);
		return;
	}
	struct vq *q = &c->proc->queue;
	struct vq_buffer *b = vq_next(q);
	if (!b) {
		dev->stats.frames_no_app_buffer++;
		c->missed++;
		return;
	}
	memcpy(b->mem, src, len < b->length ? len : b->length);
	dev->stats.bytes_copied_after += len < b->length ? len : b->length;
	/* a frame beyond the buffer is cut and flagged by vq_done */
	vq_done(q, b, (uint32_t)len, meta.flags, meta.sequence, &meta.timestamp);
	c->frames++;
}

/* Frames the assembler started without a buffer: the lateness of the
 * consumer that was alone (with several, the fan-out buffer is always
 * there), put down to it for its log line. */
static void account_no_buffer(struct device *dev)
{
	uint64_t now = dev->frames.assembler.stats.frames_no_buffer;
	struct dev_consumer *c = dev->frames.consumers;
	if (c && !c->next)
		c->missed += now - dev->frames.no_buffer_seen;
	dev->frames.no_buffer_seen = now;
}

/* A buffer the assembler had goes back unused. */
static void give_back(struct device *dev, const struct frames_given *g)
{
	(void)dev;
	if (g->kind == GIVEN_APP)
		vq_requeue(&g->c->proc->queue, g->b);
	else if (g->kind == GIVEN_NATIVE && g->c->converting)
		convert_stream_unused(g->c->conv, g->mem);
}

/* Where the other consumers' copies of a finished frame come from: its
 * mirror, the fan-out buffer or a converter's native buffer (memory no
 * app maps); NULL when it was written into an app's buffer unmirrored.
 * *cut: the mirror could not hold the whole frame. */
static const uint8_t *copy_source(const struct frames_given *g, const struct uvc_frame_event *ev,
				  size_t *len, bool *cut)
{
	*cut = false;
	*len = ev->bytesused;
	if (ev->mirror) {
		*len = ev->mirror_bytes;
		*cut = ev->mirror_bytes < ev->bytesused;
		return ev->mirror;
	}
	return g->kind == GIVEN_FAN || g->kind == GIVEN_NATIVE ? ev->buf : NULL;
}

/* A frame for the consumers other than g's own: copies first, before
 * vq_done hands the frame's buffer to its app. */
static void deliver_copies(struct device *dev, const struct frames_given *g,
			   const struct uvc_frame_event *ev, uint64_t seq,
			   const struct convert_frame_meta *meta)
{
	size_t len;
	bool cut;
	const uint8_t *src = copy_source(g, ev, &len, &cut);
	if (!src)
		return;
	struct convert_frame_meta copy_meta = *meta;
	if (cut)
		copy_meta.flags |= V4L2_BUF_FLAG_ERROR;
	if (ev->mirror) /* the mirror is a copy made for the others */
		dev->stats.bytes_copied_after += len;
	for (struct dev_consumer *c = dev->frames.consumers; c; c = c->next)
		if (c != g->c)
			deliver_copy(c, src, len, seq, &copy_meta);
}

void frames_on_frame(void *opaque, const struct uvc_frame_event *ev)
{
	struct device *dev = opaque;
	/* QBUFs the fast path posted count for this frame's copies */
	device_rings_apply_all(dev);
	struct frames_given g = dev->frames.given;
	account_no_buffer(dev);
	if (g.kind == GIVEN_NONE || ev->buf != g.mem)
		return; /* cannot happen: the assembler only writes what we gave */
	dev->frames.given = (struct frames_given){ .kind = GIVEN_NONE };
	if (ev->flags & UVC_ASM_DROPPED) { /* counted by the assembler */
		give_back(dev, &g);
		meta_frame_end(dev, false, true, 0, NULL);
	} else {
		uint64_t seq = frame_sequence(dev, ev);
		struct convert_frame_meta meta = { .flags = ev->error ? V4L2_BUF_FLAG_ERROR : 0,
						   .timestamp = frame_time(&dev->frames, ev) };
		dev->stats.frames++;
		measure_rate(&dev->stats, &meta.timestamp);
		if (ev->error)
			dev->stats.frames_error++;
		dev->stats.bytes_assembled += ev->bytesused;
		if (g.kind == GIVEN_APP)
			dev->stats.frames_into_app++;
		deliver_copies(dev, &g, ev, seq, &meta);
		if (g.kind == GIVEN_APP) {
			vq_done(&g.c->proc->queue, g.b, (uint32_t)ev->bytesused, meta.flags,
				consumer_sequence(g.c, seq), &meta.timestamp);
			g.c->frames++;
		} else if (g.kind == GIVEN_NATIVE) {
			meta.sequence = consumer_sequence(g.c, seq);
			native_frame(g.c, g.mem, ev->bytesused, &meta);
		}
		/* the metadata buffer pairs with the first streaming process's
		 * frame: its sequence */
		const struct dev_consumer *first = dev->frames.consumers;
		meta_frame_end(dev, true, ev->error,
			       first ? consumer_sequence(first, seq) : (uint32_t)seq, &meta.timestamp);
	}
	/* buffers the posted QBUFs queued, held converted frames first */
	frames_buffers_arrived(dev);
	device_wake_all(dev);
	/* what the wake-up's ring revocations queued */
	if (dev->frames.buffers_due)
		frames_buffers_arrived(dev);
}

/* Consumer c's next buffer for the assembler, in *g, if it has one ready:
 * a native buffer of its converter, or its app's next queued buffer. */
static bool consumer_buffer(struct dev_consumer *c, struct frames_given *g)
{
	if (c->conv) {
		size_t cap;
		uint8_t *native = c->converting ? convert_stream_native(c->conv, &cap) : NULL;
		if (!native)
			return false;
		*g = (struct frames_given){ .kind = GIVEN_NATIVE, .c = c, .mem = native, .cap = cap };
		return true;
	}
	struct vq_buffer *b = vq_next(&c->proc->queue);
	if (!b)
		return false;
	*g = (struct frames_given){ .kind = GIVEN_APP, .c = c, .b = b, .mem = b->mem, .cap = b->length };
	return true;
}

/* The app buffer given gets the fan-out buffer as its mirror, for the
 * others' copies (without memory for it, they miss that frame). */
static void mirror_given(struct device *dev)
{
	struct frames_given *g = &dev->frames.given;
	if (!fan_ready(dev, g->cap))
		return;
	uvc_assembler_set_mirror(&dev->frames.assembler, dev->frames.fan_buf, dev->frames.fan_cap);
	g->mirrored = true;
}

void frames_give(struct device *dev)
{
	struct dev_consumer *first = dev->frames.consumers, *c;
	if (dev->away.detached || dev->away.unplugged || dev->frames.given.kind != GIVEN_NONE || !first)
		return; /* while the camera is away buffers stay queued for the replug */
	struct frames_given g = { .kind = GIVEN_NONE };
	for (c = first; c && !consumer_buffer(c, &g); c = c->next)
		;
	if (!c) { /* no buffer ready: the fan-out buffer waits for them */
		if (!first->next || !fan_ready(dev, 0))
			return;
		g = (struct frames_given){ .kind = GIVEN_FAN, .mem = dev->frames.fan_buf, .cap = dev->frames.fan_cap };
	}
	dev->frames.given = g;
	uvc_assembler_set_buffer(&dev->frames.assembler, g.mem, g.cap);
	if (g.kind == GIVEN_APP && first->next)
		mirror_given(dev);
}

/* A converted frame is back from the pool, in order. */
static void on_converted(void *data, void *cookie, long result,
			 const struct convert_frame_meta *meta)
{
	struct dev_consumer *c = data;
	struct device *dev = c->dev;
	struct vq *q = &c->proc->queue;
	struct vq_buffer *b = cookie;
	if (result == -ECANCELED) {
		/* the stream stops: the buffer goes back unused (ignored when
		 * the queue took it back already) */
		if (!c->conv_discard)
			vq_requeue(q, b);
		return;
	}
	if (result < 0) {
		/* as an errored frame under uvcvideo's rules: dropped, its
		 * sequence number skipped, the buffer reused */
		dev->stats.frames_undecodable++;
		log_debug("frame %u does not convert: %s", meta->sequence, strerror((int)-result));
		vq_requeue(q, b);
	} else {
		dev->stats.frames_converted++;
		c->frames++;
		vq_done(q, b, (uint32_t)result, meta->flags, (int64_t)meta->sequence, &meta->timestamp);
	}
	frames_give(dev); /* its native buffer is free again */
	device_wake_all(dev);
}

/* Consumer c's converter starts for the running format. */
static int consumer_start(struct dev_consumer *c)
{
	struct device *dev = c->dev;
	const struct node_fmt *run = node_current_fmt(&dev->node);
	uint32_t dst = node_proc_fmt(&dev->node, c->proc)->conv_fourcc;
	if (!c->conv || c->converting)
		return 0;
	int err = convert_stream_start(c->conv, run->format->fourcc, dst, run->frame->width,
				       run->frame->height, run->probe.max_video_frame_size);
	if (err) {
		log_error("cannot start converting to %.4s: %s", (const char *)&dst, strerror(-err));
		return -ENOMEM;
	}
	c->converting = true;
	return 0;
}

static void consumer_stop(struct dev_consumer *c)
{
	if (c->converting)
		convert_stream_stop(c->conv); /* requeues through on_converted; frees held frames */
	c->converting = false;
	c->n_held = 0;
}

/* The assembler lets go of the given buffer and of the fan-out buffer
 * (the frame in progress, if any, goes on without a buffer). */
static void assembler_let_go(struct device *dev)
{
	struct uvc_assembler *a = &dev->frames.assembler;
	uvc_assembler_set_buffer(a, NULL, 0);
	uvc_assembler_move_buffer(a, dev->frames.given.mem, NULL, 0);
	uvc_assembler_move_buffer(a, dev->frames.fan_buf, NULL, 0);
}

int frames_start(struct device *dev)
{
	give_back(dev, &dev->frames.given);
	assembler_let_go(dev);
	dev->frames.given = (struct frames_given){ .kind = GIVEN_NONE };
	int ret = 0;
	for (struct dev_consumer *c = dev->frames.consumers; c; c = c->next) {
		int err = consumer_start(c);
		if (err) {
			vq_set_error(&c->proc->queue);
			ret = err;
		}
	}
	frames_give(dev);
	meta_stream_start(dev);
	return ret;
}

void device_stop_frames(struct device *dev)
{
	meta_stream_stop(dev);
	assembler_let_go(dev);
	give_back(dev, &dev->frames.given);
	dev->frames.given = (struct frames_given){ .kind = GIVEN_NONE };
	for (struct dev_consumer *c = dev->frames.consumers; c; c = c->next)
		consumer_stop(c);
}

unsigned frames_consumers(const struct device *dev)
{
	unsigned n = 0;
	for (const struct dev_consumer *c = dev->frames.consumers; c; c = c->next)
		n++;
	return n;
}

/* The camera's sequence number of the first frame a joining consumer gets:
 * not one being written into another app's buffer unmirrored (it cannot
 * be copied from there). A buffer only given, not yet written, gets its
 * mirror now: the next frame is for both. */
static uint64_t joining_sequence(struct device *dev)
{
	struct frames_given *g = &dev->frames.given;
	uint64_t writing;
	if (g->kind != GIVEN_APP)
		return dev->stream.next_sequence;
	if (uvc_assembler_writing(&dev->frames.assembler, g->mem, &writing))
		return writing + dev->stream.seq_offset + (g->mirrored ? 0 : 1);
	if (!g->mirrored)
		mirror_given(dev);
	return dev->stream.next_sequence;
}

int frames_consumer_on(void *opaque, struct node_proc *p)
{
	struct device *dev = opaque;
	const struct node_fmt *f = node_proc_fmt(&dev->node, p);
	struct dev_consumer *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->dev = dev;
	c->proc = p;
	c->seq_base = joining_sequence(dev);
	if (f->conv_fourcc &&
	    !(c->conv = convert_stream_new(dev->loop, dev->frames.convert_threads, on_converted, c))) {
		free(c);
		return -ENOMEM;
	}
	if (!dev->away.detached && !dev->away.unplugged && consumer_start(c)) {
		convert_stream_free(c->conv);
		free(c);
		return -ENOMEM;
	}
	account_no_buffer(dev);
	struct dev_consumer **pp = &dev->frames.consumers;
	while (*pp)
		pp = &(*pp)->next;
	*pp = c; /* in the order they came */
	p->dev_data = c;
	if (c != dev->frames.consumers) {
		for (struct dev_consumer *o = dev->frames.consumers; o; o = o->next)
			o->shared = true;
		uint32_t fourcc = f->conv_fourcc ? f->conv_fourcc : f->format->fourcc;
		log_info("process %d joins the stream as %.4s %ux%u (%u processes streaming)",
			 (int)p->pid, (const char *)&fourcc, f->frame->width, f->frame->height,
			 frames_consumers(dev));
	}
	frames_give(dev);
	device_changed(dev); /* the processes streaming: --status, STATUS= */
	return 0;
}

/* The given buffer goes: its consumer left the list, or its app frees it.
 * A frame in a converter's native buffer goes on in the fan-out buffer
 * for the others, and a mirrored one in its mirror: they see no gap. One
 * only in the app's own buffer is lost (the others joined after it
 * began). Returns what was given, for the caller to give back or forget. */
static struct frames_given given_goes(struct device *dev)
{
	struct frames_given g = dev->frames.given;
	struct uvc_assembler *a = &dev->frames.assembler;
	bool others = false, to_fan;
	uint64_t seq;
	for (const struct dev_consumer *o = dev->frames.consumers; o; o = o->next)
		others |= o != g.c;
	dev->frames.given = (struct frames_given){ .kind = GIVEN_NONE };
	if (g.kind == GIVEN_NATIVE && others && fan_ready(dev, g.cap)) {
		uvc_assembler_move_buffer(a, g.mem, dev->frames.fan_buf, dev->frames.fan_cap);
		to_fan = true;
	} else {
		uvc_assembler_move_buffer(a, g.mem, NULL, 0); /* a mirrored frame goes on in its mirror */
		to_fan = g.mirrored && others && uvc_assembler_writing(a, dev->frames.fan_buf, &seq);
		if (g.mirrored && !to_fan)
			uvc_assembler_move_buffer(a, dev->frames.fan_buf, NULL, 0);
	}
	if (to_fan)
		dev->frames.given = (struct frames_given){ .kind = GIVEN_FAN, .mem = dev->frames.fan_buf,
							    .cap = dev->frames.fan_cap };
	return g;
}

void frames_consumer_off(void *opaque, struct node_proc *p)
{
	struct device *dev = opaque;
	struct dev_consumer *c = p->dev_data;
	if (!c)
		return;
	account_no_buffer(dev);
	for (struct dev_consumer **pp = &dev->frames.consumers; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	if (dev->frames.given.kind != GIVEN_NONE && dev->frames.given.c == c) {
		struct frames_given g = given_goes(dev);
		give_back(dev, &g);
	}
	if (c->shared)
		log_info("process %d left the stream after %llu frames, %llu lost for want of a "
			 "buffer (%u processes streaming)",
			 (int)p->pid, (unsigned long long)c->frames, (unsigned long long)c->missed,
			 frames_consumers(dev));
	consumer_stop(c);
	if (c->conv && convert_stream_threads(c->conv))
		dev->frames.last_convert_threads = convert_stream_threads(c->conv);
	convert_stream_free(c->conv);
	p->dev_data = NULL;
	free(c);
	frames_give(dev);
	device_changed(dev);
}

void frames_need_buffer(void *opaque)
{
	/* a QBUF the fast path posted and the daemon has not run yet: run
	 * now, it gives the frame its buffer */
	struct device *dev = opaque;
	device_rings_apply_all(dev);
	if (dev->frames.buffers_due)
		frames_buffers_arrived(dev);
}

void frames_buffers_arrived(struct device *dev)
{
	dev->frames.buffers_due = false;
	for (struct dev_consumer *c = dev->frames.consumers; c; c = c->next)
		submit_held(c);
	frames_give(dev);
}

void frames_request_done(struct device *dev)
{
	if (dev->frames.buffers_due)
		frames_buffers_arrived(dev);
	device_wake_if_due(dev);
}

void frames_forget_buffer(struct device *dev, struct vq_buffer *b)
{
	if (dev->frames.given.kind == GIVEN_APP && dev->frames.given.b == b)
		given_goes(dev); /* forgotten, not given back: it is being freed */
	/* No worker may write into memory that goes away. The node stops a
	 * consumer (consumer_off) before its queue frees buffers; this only
	 * guards that order. */
	for (struct dev_consumer *c = dev->frames.consumers; c; c = c->next) {
		struct vq *q = &c->proc->queue;
		if (!c->conv || !convert_stream_busy(c->conv) || b < q->buffers ||
		    b >= q->buffers + VIDEO_MAX_FRAME)
			continue;
		log_warn("buffers freed while frames were being converted: conversion stopped");
		if (dev->frames.given.kind == GIVEN_NATIVE && dev->frames.given.c == c) {
			uvc_assembler_move_buffer(&dev->frames.assembler, dev->frames.given.mem, NULL, 0);
			dev->frames.given = (struct frames_given){ .kind = GIVEN_NONE };
		}
		c->conv_discard = true; /* the queue is freeing: leave it alone */
		consumer_stop(c);
		c->conv_discard = false;
	}
}

void frames_streams(const struct device *dev, struct device_status *out)
{
	out->n_streams = 0;
	for (const struct dev_consumer *c = dev->frames.consumers;
	     c && out->n_streams < STATUS_MAX_STREAMS; c = c->next) {
		out->streams[out->n_streams].frames = c->frames;
		out->streams[out->n_streams++].lost = c->missed;
	}
	/* the rate stands while frames come */
	struct timeval now = now_tv();
	uint64_t now_us = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_usec;
	const struct dev_counters *s = &dev->stats;
	out->measured_mfps = s->last_frame_us && now_us - s->last_frame_us <= 2000000u ?
				     s->measured_mfps : 0;
}

unsigned frames_converters(const struct device *dev, unsigned *threads)
{
	unsigned n = 0;
	*threads = dev->frames.last_convert_threads;
	for (const struct dev_consumer *c = dev->frames.consumers; c; c = c->next) {
		if (!c->conv)
			continue;
		if (!n++)
			*threads = convert_stream_threads(c->conv);
	}
	return n;
}

void frames_free(struct device *dev)
{
	free(dev->frames.fan_buf);
	dev->frames.fan_buf = NULL;
	dev->frames.fan_cap = 0;
}

/* Frames dropped: errored ones (by the assembler, as uvcvideo drops them;
 * most never reach the device, their buffer reused at once) and those lost
 * after assembly. */
uint64_t frames_dropped_total(const struct device *dev)
{
	return dev->frames.assembler.stats.frames_dropped + dev->stats.frames_dropped;
}

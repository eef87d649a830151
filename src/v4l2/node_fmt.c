/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node's formats: TRY_FMT, S_FMT, G_FMT, S_PARM, G_PARM negotiated with
 * the camera as uvcvideo does (the probe control), converted formats and
 * the running mode of another process; QUERYCAP. */
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

const struct uvc_format *node_find_format(const struct uvc_streaming *s, uint8_t index)
{
	const struct uvc_format *format = uvc_stream_find_format(s, index);
	return format && format->fourcc ? format : NULL;
}

/* The frame of the camera's start-up probe, as uvc_video_init picks it:
 * an unknown format index falls back to the first format, an unknown frame
 * index to the format's default frame (or its first). */
void node_adopt_probe(const struct node *n, struct node_fmt *dst, const struct uvc_probe *probe,
			const struct cfmt_choice *conv)
{
	const struct uvc_format *format = node_find_format(n->stream, probe->format_index);
	if (!format)
		format = fmt_at(n->stream, 0);
	const struct uvc_frame *frame = uvc_format_find_frame(format, probe->frame_index);
	if (!frame)
		frame = uvc_format_find_frame(format, format->default_frame);
	if (!frame)
		frame = &format->frames[0];
	dst->format = format;
	dst->frame = frame;
	dst->probe = *probe;
	dst->probe.format_index = format->index;
	dst->probe.frame_index = frame->index;
	if (!dst->probe.interval)
		dst->probe.interval = fmt_default_interval(frame);
	if (!dst->probe.max_video_frame_size)
		dst->probe.max_video_frame_size = fmt_frame_buffer_size(format, frame);
	/* A camera that answered a format which cannot feed the destination
	 * leaves the app its native format (try_format prevents it). */
	uint32_t bpl, conv_size = 0;
	dst->conv_fourcc = 0;
	if (conv && conv->dst && convert_pair_supported(format->fourcc, conv->dst, frame->width,
							frame->height)) {
		dst->conv_fourcc = conv->dst;
		dst->conv_reason = conv->reason;
		(void)convert_frame_layout(conv->dst, frame->width, frame->height, &bpl, &conv_size);
	}
	dst->sizeimage = dst->conv_fourcc ? conv_size : dst->probe.max_video_frame_size;
}


int node_querycap(struct node *n, struct v4l2_capability *cap)
{
	memset(cap, 0, sizeof(*cap));
	strncpy((char *)cap->driver, "uvcuse", sizeof(cap->driver) - 1);
	memcpy(cap->card, n->id.card, sizeof(cap->card));
	cap->card[sizeof(cap->card) - 1] = 0;
	memcpy(cap->bus_info, n->id.bus_info, sizeof(cap->bus_info));
	cap->bus_info[sizeof(cap->bus_info) - 1] = 0;
	cap->version = n->id.version;
	cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_READWRITE |
			   V4L2_CAP_EXT_PIX_FORMAT;
	cap->capabilities = cap->device_caps | n->meta_caps | V4L2_CAP_DEVICE_CAPS;
	return 0;
}

/* One probe request of an asynchronous negotiation, through the journal. */
static int vs_request(void *ctx, uint8_t query, uint8_t selector, uint8_t *data, uint16_t len)
{
	struct ctrls_request r = { .query = query, .selector = selector, .size = len,
				   .streaming = true };
	return node_ctrl_request(ctx, &r, data);
}

/* The probe with the camera: in asynchronous mode negotiated here through
 * the call's journal (CALL_PENDING until the camera answered every step),
 * else by the device. uvcvideo answers EIO for a probe the camera failed,
 * however it failed (STALL, short, timeout). */
static int camera_probe(struct node *n, const struct uvc_probe *want, struct uvc_probe *got)
{
	if (n->camera_away) {
		*got = *want;
		got->max_video_frame_size = 0;
		got->max_payload_transfer_size = 0;
		uvc_probe_fixup(n->stream, got);
		return 0;
	}
	if (!(n->async && call_running(n)))
		return n->ops->probe ? n->ops->probe(n->dev, want, got) : -EIO;
	struct uvc_probe_notes notes;
	int err = uvc_probe_negotiate(n->stream, n->camera->bcd_uvc, vs_request, n, want, got,
				      &notes);
	if (err == CALL_PENDING)
		return err;
	/* the last request of the TRY_FMT/S_FMT/S_PARM: this run answers */
	if (n->ops->probe_done)
		n->ops->probe_done(n->dev, want, got, err, &notes);
	return err && err != -ENODEV && err != -ENOMEM ? -EIO : err;
}

/* The probe of a TRY_FMT/S_FMT/S_PARM: with the camera, or while the
 * stream runs (the probe control then belongs to it) from the descriptors
 * alone; unknown indexes in the camera's answer mean "as asked". */
static int probe_choice(struct node *n, const struct uvc_probe *want,
			const struct uvc_format *format, const struct uvc_frame *frame,
			struct uvc_probe *out)
{
	if (n->streamers) {
		*out = *want;
		out->max_video_frame_size = fmt_frame_buffer_size(format, frame);
		if (!out->max_video_frame_size)
			out->max_video_frame_size = n->run.probe.max_video_frame_size;
	} else {
		struct uvc_probe asked = *want;
		/* uvcvideo's PROBE_EXTRAFIELDS: cameras that stall on a probe
		 * whose dwMaxVideoFrameSize is 0 get the current one */
		if (n->stream->quirks & UVC_QUIRK_PROBE_EXTRAFIELDS)
			asked.max_video_frame_size = node_current_fmt(n)->probe.max_video_frame_size;
		int err = camera_probe(n, &asked, out);
		if (err)
			return err;
	}
	if (!out->interval)
		out->interval = want->interval;
	return 0;
}

/* A TRY_FMT answer of a converted format, after the core's
 * v4l_sanitize_format (as fmt_try). */
static void fill_converted(struct v4l2_pix_format *pix, const struct cfmt_choice *conv)
{
	if (pix->priv != V4L2_PIX_FMT_PRIV_MAGIC) {
		pix->ycbcr_enc = 0;
		pix->xfer_func = 0;
	}
	pix->flags = 0;
	cfmt_fill_pix(pix, conv);
	pix->priv = V4L2_PIX_FMT_PRIV_MAGIC;
}

/* TRY_FMT of a converted format: the source by the rule of
 * cfmt_choose at the current interval, probed as a native TRY_FMT of it. */
static int try_converted(struct node *n, const struct node_fmt *seen, struct v4l2_format *fmt,
			 struct uvc_probe *out, struct cfmt_choice *conv)
{
	struct v4l2_pix_format *pix = &fmt->fmt.pix;
	int err = cfmt_choose(n->stream, pix->pixelformat, pix->width, pix->height,
			      seen->probe.interval, conv);
	if (err)
		return err;
	struct uvc_probe want = { 0 };
	want.hint = 1; /* keep dwFrameInterval */
	want.format_index = conv->format->index;
	want.frame_index = conv->frame->index;
	want.interval = conv->interval;
	err = probe_choice(n, &want, conv->format, conv->frame, out);
	if (err)
		return err;
	const struct uvc_format *format = node_find_format(n->stream, out->format_index);
	const struct uvc_frame *frame = format ? uvc_format_find_frame(format, out->frame_index) : NULL;
	if (!frame || !convert_pair_supported(format->fourcc, conv->dst, frame->width, frame->height)) {
		format = conv->format;
		frame = conv->frame;
	}
	conv->format = format;
	conv->frame = frame;
	out->format_index = format->index;
	out->frame_index = frame->index;
	fill_converted(pix, conv);
	return 0;
}

/* TRY_FMT of a process while another one streams: only what the running
 * stream gives, its format and size or a conversion of them; anything
 * else is -EBUSY. */
static int try_running(struct node *n, struct v4l2_format *fmt, struct uvc_probe *out,
		       struct cfmt_choice *conv)
{
	const struct node_fmt *run = &n->run;
	struct v4l2_pix_format *pix = &fmt->fmt.pix;
	if (n->convert && cfmt_is_converted(n->stream, pix->pixelformat)) {
		int err = cfmt_choose(n->stream, pix->pixelformat, pix->width, pix->height,
				      run->probe.interval, conv);
		if (err)
			return err;
		if (conv->frame->width != run->frame->width ||
		    conv->frame->height != run->frame->height ||
		    !convert_pair_supported(run->format->fourcc, conv->dst, run->frame->width,
					    run->frame->height))
			return -EBUSY;
		conv->format = run->format;
		conv->frame = run->frame;
		conv->interval = run->probe.interval;
		fill_converted(pix, conv);
	} else {
		struct fmt_choice choice;
		int err = fmt_try(n->stream, n->def_format, fmt, &choice);
		if (err)
			return err;
		if (choice.format != run->format || choice.frame != run->frame)
			return -EBUSY;
		fmt_fill_pix(pix, run->format, run->frame, run->probe.max_video_frame_size);
	}
	*out = run->probe;
	return 0;
}

/* TRY_FMT as uvc_v4l2_try_format: the choice from the descriptors, then a
 * probe with the camera, whose answer (format, frame, dwMaxVideoFrameSize)
 * is what the app sees. conv->dst is the converted format asked for, or 0. */
int node_try_format(struct node *n, struct node_proc *p, struct v4l2_format *fmt,
		      struct uvc_probe *out, struct cfmt_choice *conv)
{
	conv->dst = 0;
	if (n->streamers && !p->fed && fmt->type == V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return try_running(n, fmt, out, conv);
	if (n->convert && fmt->type == V4L2_BUF_TYPE_VIDEO_CAPTURE &&
	    cfmt_is_converted(n->stream, fmt->fmt.pix.pixelformat))
		return try_converted(n, node_proc_fmt(n, p), fmt, out, conv);
	struct fmt_choice choice;
	int err = fmt_try(n->stream, n->def_format, fmt, &choice);
	if (err)
		return err;
	struct uvc_probe want = { 0 };
	want.hint = 1; /* keep dwFrameInterval */
	want.format_index = choice.format->index;
	want.frame_index = choice.frame->index;
	want.interval = choice.interval;
	err = probe_choice(n, &want, choice.format, choice.frame, out);
	if (err)
		return err;
	const struct uvc_format *format = node_find_format(n->stream, out->format_index);
	if (!format)
		format = choice.format;
	const struct uvc_frame *frame = uvc_format_find_frame(format, out->frame_index);
	if (!frame)
		frame = format == choice.format ? choice.frame : &format->frames[0];
	out->format_index = format->index;
	out->frame_index = frame->index;
	fmt_fill_pix(&fmt->fmt.pix, format, frame, out->max_video_frame_size);
	return 0;
}

/* The current converted format as a choice (G_FMT, S_PARM, LOG_STATUS). */
static struct cfmt_choice current_conv(const struct node_fmt *f)
{
	return (struct cfmt_choice){ .dst = f->conv_fourcc, .format = f->format, .frame = f->frame,
				     .interval = f->probe.interval, .reason = f->conv_reason };
}

int node_g_fmt(struct node *n, struct node_proc *p, struct v4l2_format *fmt)
{
	if (fmt->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	const struct node_fmt *f = node_proc_fmt(n, p);
	memset(&fmt->fmt, 0, sizeof(fmt->fmt));
	if (f->conv_fourcc) {
		struct cfmt_choice c = current_conv(f);
		cfmt_fill_pix(&fmt->fmt.pix, &c);
	} else {
		fmt_fill_pix(&fmt->fmt.pix, f->format, f->frame, f->probe.max_video_frame_size);
	}
	fmt->fmt.pix.priv = V4L2_PIX_FMT_PRIV_MAGIC;
	return 0;
}

int node_s_fmt(struct node *n, struct node_file *f, struct v4l2_format *fmt)
{
	if (fmt->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	int err;
	/* vb2_is_busy: buffers exist (whoever owns them in the process) */
	struct node_proc *p = f->proc;
	if (p->queue.n_buffers || p->queue.streaming)
		return -EBUSY;
	struct uvc_probe probe;
	struct cfmt_choice conv;
	err = node_try_format(n, p, fmt, &probe, &conv);
	if (err)
		return err;
	node_adopt_probe(n, &p->fmt, &probe, &conv);
	p->own_fmt = true;
	/* with the camera idle, also what processes that set none see */
	if (!n->streamers)
		n->fmt = p->fmt;
	return 0;
}

static void fill_parm(const struct node *n, const struct node_fmt *f,
		      struct v4l2_streamparm *parm)
{
	uint32_t type = parm->type;
	memset(parm, 0, sizeof(*parm));
	parm->type = type;
	parm->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
	parm->parm.capture.timeperframe = fmt_interval_fract(f->probe.interval);
	/* uvcvideo says 0; with read() supported the spec wants the count */
	parm->parm.capture.readbuffers = n->read_buffers;
}

int node_g_parm(struct node *n, struct node_proc *p, struct v4l2_streamparm *parm)
{
	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	fill_parm(n, node_proc_fmt(n, p), parm);
	return 0;
}

int node_s_parm(struct node *n, struct node_file *f, struct v4l2_streamparm *parm)
{
	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	int err;
	struct node_proc *p = f->proc;
	if (p->queue.streaming)
		return -EBUSY;
	if (n->streamers) {
		/* another process streams: the camera's interval is the one
		 * there is (S_PARM may adjust what it is asked for) */
		fill_parm(n, &n->run, parm);
		return 0;
	}
	const struct node_fmt *cur = node_proc_fmt(n, p);
	struct v4l2_fract t = parm->parm.capture.timeperframe;
	uint32_t asked = fmt_fract_to_interval(t.numerator, t.denominator);
	struct uvc_probe want = cur->probe, got;
	struct cfmt_choice conv = { 0 };
	if (cur->conv_fourcc) {
		/* the interval may change the source (raw at it, else MJPEG) */
		err = cfmt_choose(n->stream, cur->conv_fourcc, cur->frame->width, cur->frame->height,
				  asked, &conv);
		if (err)
			return err;
		want.format_index = conv.format->index;
		want.frame_index = conv.frame->index;
		want.interval = conv.interval;
	} else {
		want.interval = fmt_try_interval(cur->frame, asked);
	}
	err = camera_probe(n, &want, &got);
	if (err)
		return err;
	/* keep our format if the camera answers nonsense indexes */
	got.format_index = want.format_index;
	got.frame_index = want.frame_index;
	if (!got.interval)
		got.interval = want.interval;
	node_adopt_probe(n, &p->fmt, &got, cur->conv_fourcc ? &conv : NULL);
	p->own_fmt = true;
	n->fmt = p->fmt;
	fill_parm(n, &p->fmt, parm);
	return 0;
}


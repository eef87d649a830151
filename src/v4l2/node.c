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

/* V4L2 priorities as the core keeps them (v4l2-dev.c v4l2_prio_*): every
 * open file starts at DEFAULT; ioctls that change state need a priority at
 * least the highest one held. */
static bool prio_valid(uint32_t p)
{
	return p == V4L2_PRIORITY_BACKGROUND || p == V4L2_PRIORITY_INTERACTIVE ||
	       p == V4L2_PRIORITY_RECORD;
}

static enum v4l2_priority prio_max(const struct node *n)
{
	for (int p = V4L2_PRIORITY_RECORD; p > V4L2_PRIORITY_UNSET; p--)
		if (n->prios[p])
			return p;
	return V4L2_PRIORITY_UNSET;
}

int node_prio_check(const struct node *n, const struct node_file *f)
{
	return f->prio < prio_max(n) && !f->daemon ? -EBUSY : 0;
}

static void prio_set(struct node *n, struct node_file *f, enum v4l2_priority p)
{
	if (prio_valid(f->prio))
		n->prios[f->prio]--;
	f->prio = p;
	if (prio_valid(p))
		n->prios[p]++;
}

/* A format V4L2 sees (known fourcc) by its bFormatIndex. */
static const struct uvc_format *find_format(const struct uvc_streaming *s, uint8_t index)
{
	const struct uvc_format *format = uvc_stream_find_format(s, index);
	return format && format->fourcc ? format : NULL;
}

/* The frame of the camera's start-up probe, as uvc_video_init picks it:
 * an unknown format index falls back to the first format, an unknown frame
 * index to the format's default frame (or its first). */
static void adopt_probe(const struct node *n, struct node_fmt *dst, const struct uvc_probe *probe,
			const struct cfmt_choice *conv)
{
	const struct uvc_format *format = find_format(n->stream, probe->format_index);
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

const struct node_fmt *node_current_fmt(const struct node *n)
{
	return n->streamers ? &n->run : &n->fmt;
}

const struct node_fmt *node_proc_fmt(const struct node *n, const struct node_proc *p)
{
	return p->own_fmt ? &p->fmt : node_current_fmt(n);
}

bool node_streaming(const struct node *n)
{
	return n->streamers > 0;
}

/* The queue's buffers take the size of the format its process sees now. */
static struct vq *proc_queue(struct node *n, struct node_proc *p)
{
	vq_set_sizeimage(&p->queue, node_proc_fmt(n, p)->sizeimage);
	return &p->queue;
}

int node_init(struct node *n, const struct uvc_camera *camera, const struct node_identity *id,
	      const struct uvc_probe *probe, const struct node_ops *ops, void *dev,
	      const struct vq_mem_ops *mem_ops, void *mem_data)
{
	memset(n, 0, sizeof(*n));
	if (!camera->n_streams || !fmt_count(&camera->streams[0]))
		return -EINVAL;
	n->camera = camera;
	n->stream = &camera->streams[0];
	n->id = *id;
	n->ops = ops;
	n->dev = dev;
	/* read() emulation's buffers: a frame is lost only when the reader is
	 * this many frames behind. Each read() costs several CUSE round trips,
	 * so give the reader more slack than vb2's few (~270 ms at 30 fps). */
	n->read_buffers = 8;
	n->max_userptr_copy = UINT32_MAX;
	n->mem_ops = mem_ops;
	n->mem_data = mem_data;
	adopt_probe(n, &n->fmt, probe, NULL);
	n->def_format = n->fmt.format;
	/* cannot overflow with uvcvideo's tables; a camera without controls
	 * is still a camera */
	if (ctrls_init(&n->ctrls, camera))
		memset(&n->ctrls, 0, sizeof(n->ctrls));
	return 0;
}

/* Process p's queue gets no more frames; the camera stops after the last
 * one. Before its buffers may go (the device lets go of them). */
static void proc_stop(struct node *n, struct node_proc *p)
{
	if (!p->fed)
		return;
	if (n->ops->consumer_off)
		n->ops->consumer_off(n->dev, p);
	p->fed = false;
	if (--n->streamers == 0)
		n->ops->stream_off(n->dev);
}

/* Whether process p may stream the running mode: the format it sees has
 * the same format and frame (its conversion of them is its own; one that
 * set none sees the running one), and its buffers hold such a frame. */
static bool fits_running(const struct node *n, const struct node_proc *p)
{
	const struct node_fmt *f = node_proc_fmt(n, p);
	if (f->format != n->run.format || f->frame != n->run.frame)
		return false;
	/* buffers made for another format may be too small */
	for (unsigned i = 0; i < p->queue.n_buffers; i++)
		if (p->queue.buffers[i].plane_size < f->sizeimage)
			return false;
	return true;
}

/* p's queue started streaming (STREAMON, read emulation): it is fed the
 * camera's frames, the camera starting in its format when it is the
 * first. -EBUSY when another process streams a mode p's format differs
 * from, as a kernel node answers while another file owns it. */
static int proc_start(struct node *n, struct node_proc *p)
{
	if (p->fed)
		return 0;
	if (!n->streamers) {
		n->run = *node_proc_fmt(n, p);
		int err = n->ops->stream_on(n->dev, &n->run.probe);
		if (err)
			return err;
	} else if (!fits_running(n, p)) {
		return -EBUSY;
	} else if (p->own_fmt) {
		p->fmt.probe = n->run.probe; /* the camera's interval */
	}
	p->fed = true;
	n->streamers++;
	int err = n->ops->consumer_on ? n->ops->consumer_on(n->dev, p) : 0;
	if (err)
		proc_stop(n, p);
	return err;
}

static void proc_free(struct node *n, struct node_proc *p)
{
	proc_stop(n, p);
	vq_destroy(&p->queue);
	for (struct node_proc **pp = &n->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	free(p);
}

void node_destroy(struct node *n)
{
	while (n->procs)
		proc_free(n, n->procs);
	ctrls_free(&n->ctrls);
	call_free(n);
}

int node_open_pid(struct node *n, struct node_file *f, pid_t pid)
{
	memset(f, 0, sizeof(*f));
	if (n->exclusive)
		pid = 0;
	struct node_proc *p = n->procs;
	while (p && p->pid != pid)
		p = p->next;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		vq_init(&p->queue, n->mem_ops, n->mem_data);
		p->next = n->procs;
		n->procs = p;
	}
	p->files++;
	f->proc = p;
	f->sequence = UINT32_MAX; /* v4l2_fh_init: the first event is 0 */
	prio_set(n, f, V4L2_PRIORITY_DEFAULT);
	f->next = n->files;
	n->files = f;
	return 0;
}

int node_open(struct node *n, struct node_file *f)
{
	return node_open_pid(n, f, 0);
}

/* The queue stopped streaming by itself (REQBUFS, read restart): its
 * process is fed no more. */
static void follow_queue(struct node *n, struct node_proc *p)
{
	if (p->fed && !p->queue.streaming)
		proc_stop(n, p);
}

void node_release(struct node *n, struct node_file *f)
{
	struct node_proc *p = f->proc;
	if (p->queue.owner == f)
		proc_stop(n, p);
	vq_release(&p->queue, f);
	follow_queue(n, p);
	if (--p->files == 0)
		proc_free(n, p);
	f->proc = NULL;
	prio_set(n, f, V4L2_PRIORITY_UNSET);
	/* uvc_ctrl_cleanup_fh: a status report of its asynchronous control
	 * now goes to everyone */
	for (unsigned i = 0; i < n->ctrls.n_uvc; i++)
		if (n->ctrls.uvc[i].owner == f)
			n->ctrls.uvc[i].owner = NULL;
	for (struct node_file **pp = &n->files; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	f->n_subs = 0;
	f->navailable = 0;
}

static int querycap(struct node *n, struct v4l2_capability *cap)
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
	cap->capabilities = cap->device_caps | V4L2_CAP_DEVICE_CAPS;
	return 0;
}

/* The input terminal the stream's chain starts from (no selector unit
 * support yet: uvcvideo's single-input case). */
static const struct uvc_entity *input_terminal(const struct node *n)
{
	for (unsigned i = 0; i < n->camera->n_entities; i++)
		if (n->camera->entities[i].kind == UVC_ENTITY_INPUT_TERMINAL)
			return &n->camera->entities[i];
	return NULL;
}

static int enum_input(struct node *n, struct v4l2_input *in)
{
	uint32_t index = in->index;
	const struct uvc_entity *it = input_terminal(n);
	if (index != 0 || !it)
		return -EINVAL;
	memset(in, 0, sizeof(*in));
	in->index = index;
	/* uvcvideo names terminals without a string "Camera N" / "Media N" /
	 * "Input N" after their ID. */
	const char *kind = it->type == UVC_ITT_CAMERA ? "Camera" :
			   it->type == UVC_ITT_MEDIA_TRANSPORT_INPUT ? "Media" : "Input";
	snprintf((char *)in->name, sizeof(in->name), "%s %u", kind, it->id);
	if (it->type == UVC_ITT_CAMERA)
		in->type = V4L2_INPUT_TYPE_CAMERA;
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
	const struct uvc_format *format = find_format(n->stream, out->format_index);
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
static int try_format(struct node *n, struct node_proc *p, struct v4l2_format *fmt,
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
	const struct uvc_format *format = find_format(n->stream, out->format_index);
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

static int g_fmt(struct node *n, struct node_proc *p, struct v4l2_format *fmt)
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

static int s_fmt(struct node *n, struct node_file *f, struct v4l2_format *fmt)
{
	if (fmt->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	int err = node_prio_check(n, f);
	if (err)
		return err;
	/* vb2_is_busy: buffers exist (whoever owns them in the process) */
	struct node_proc *p = f->proc;
	if (p->queue.n_buffers || p->queue.streaming)
		return -EBUSY;
	struct uvc_probe probe;
	struct cfmt_choice conv;
	err = try_format(n, p, fmt, &probe, &conv);
	if (err)
		return err;
	adopt_probe(n, &p->fmt, &probe, &conv);
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

static int g_parm(struct node *n, struct node_proc *p, struct v4l2_streamparm *parm)
{
	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	fill_parm(n, node_proc_fmt(n, p), parm);
	return 0;
}

static int s_parm(struct node *n, struct node_file *f, struct v4l2_streamparm *parm)
{
	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	int err = node_prio_check(n, f);
	if (err)
		return err;
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
	adopt_probe(n, &p->fmt, &got, cur->conv_fourcc ? &conv : NULL);
	p->own_fmt = true;
	n->fmt = p->fmt;
	fill_parm(n, &p->fmt, parm);
	return 0;
}

static int streamon(struct node *n, struct node_file *f, const int *type)
{
	int err = node_prio_check(n, f);
	if (err)
		return err;
	struct node_proc *p = f->proc;
	bool was = p->queue.streaming;
	err = vq_streamon(&p->queue, f, *type);
	if (err || was)
		return err;
	err = proc_start(n, p);
	if (err)
		vq_streamon_failed(&p->queue);
	return err;
}

static int streamoff(struct node *n, struct node_file *f, const int *type)
{
	int err = node_prio_check(n, f);
	if (err)
		return err;
	/* the queue decides (it refuses during read() emulation); the
	 * process is fed no more only when the queue stopped */
	struct node_proc *p = f->proc;
	err = vq_streamoff(&p->queue, f, *type);
	if (!err)
		follow_queue(n, p);
	return err;
}

static int ioctl_run(struct node *n, struct node_file *f, unsigned int cmd, void *arg, void *extra,
		     size_t extra_len, bool nonblock, const void **data, size_t *data_len)
{
	struct node_proc *p = f->proc;
	struct vq *q = &p->queue;
	int err;

	switch (cmd) {
	case VIDIOC_QUERYCAP:
		return querycap(n, arg);
	case VIDIOC_G_PRIORITY:
		*(uint32_t *)arg = prio_max(n);
		return 0;
	case VIDIOC_S_PRIORITY: {
		uint32_t p = *(uint32_t *)arg;
		err = node_prio_check(n, f);
		if (err)
			return err;
		if (!prio_valid(p))
			return -EINVAL;
		prio_set(n, f, p);
		return 0;
	}
	case VIDIOC_ENUMINPUT:
		return enum_input(n, arg);
	case VIDIOC_G_INPUT:
		*(int *)arg = 0;
		return 0;
	case VIDIOC_S_INPUT:
		err = node_prio_check(n, f);
		if (err)
			return err;
		return *(unsigned *)arg == 0 ? 0 : -EINVAL;
	case VIDIOC_ENUM_FMT:
		return n->convert ? cfmt_enum(n->stream, arg) : fmt_enum(n->stream, arg);
	case VIDIOC_ENUM_FRAMESIZES:
		return n->convert ? cfmt_enum_framesizes(n->stream, arg) :
				    fmt_enum_framesizes(n->stream, arg);
	case VIDIOC_ENUM_FRAMEINTERVALS:
		return n->convert ? cfmt_enum_frameintervals(n->stream, arg) :
				    fmt_enum_frameintervals(n->stream, arg);
	case VIDIOC_G_FMT:
		return g_fmt(n, p, arg);
	case VIDIOC_TRY_FMT: {
		struct uvc_probe probe;
		struct cfmt_choice conv;
		return try_format(n, p, arg, &probe, &conv);
	}
	case VIDIOC_S_FMT:
		return s_fmt(n, f, arg);
	case VIDIOC_G_PARM:
		return g_parm(n, p, arg);
	case VIDIOC_S_PARM:
		return s_parm(n, f, arg);
	case VIDIOC_REQBUFS:
		err = node_prio_check(n, f);
		if (!err)
			err = vq_reqbufs(proc_queue(n, p), f, arg);
		follow_queue(n, p);
		return err;
	case VIDIOC_CREATE_BUFS:
		err = node_prio_check(n, f);
		if (err)
			return err;
		return vq_create_bufs(proc_queue(n, p), f, arg,
				      ((struct v4l2_create_buffers *)arg)->format.fmt.pix.sizeimage);
	case VIDIOC_QUERYBUF:
		return vq_querybuf(q, arg);
	case VIDIOC_PREPARE_BUF:
		return vq_prepare_buf(q, f, arg);
	case VIDIOC_QBUF:
		err = vq_qbuf(q, f, arg);
		if (!err && q->streaming)
			n->ops->buffer_queued(n->dev);
		return err;
	case VIDIOC_DQBUF: {
		struct vq_buffer *b = NULL;
		err = vq_dqbuf(q, f, arg, &b);
		if (err == -EAGAIN && !nonblock)
			return NODE_WAIT;
		if (!err && q->memory == V4L2_MEMORY_USERPTR && data) {
			/* the frame goes into the app's memory with the reply; one
			 * that cannot stays first in line instead of being lost.
			 * (Without data, the caller leaves it in b->mem for the
			 * app to fetch: the preload library's staged DQBUF.) */
			if (b->bytesused > n->max_userptr_copy) {
				vq_undo_dqbuf(q, b);
				return -E2BIG;
			}
			*data = b->mem;
			*data_len = b->bytesused;
		}
		return err;
	}
	case VIDIOC_STREAMON:
		return streamon(n, f, arg);
	case VIDIOC_STREAMOFF:
		return streamoff(n, f, arg);
	case VIDIOC_QUERYCTRL:
		CTRL_RUN(n, err, ctrls_queryctrl(&n->ctrls, arg));
		return err;
	case VIDIOC_QUERY_EXT_CTRL:
		CTRL_RUN(n, err, ctrls_query_ext_ctrl(&n->ctrls, arg));
		return err;
	case VIDIOC_QUERYMENU:
		CTRL_RUN(n, err, ctrls_querymenu(&n->ctrls, arg));
		return err;
	case VIDIOC_G_CTRL:
	case VIDIOC_S_CTRL:
		return node_g_s_ctrl(n, f, cmd, arg);
	case VIDIOC_G_EXT_CTRLS:
	case VIDIOC_S_EXT_CTRLS:
	case VIDIOC_TRY_EXT_CTRLS:
		return node_ext_ctrls(n, f, cmd, arg, extra, extra_len);
	case VIDIOC_SUBSCRIBE_EVENT:
		return node_subscribe(n, f, arg);
	case VIDIOC_UNSUBSCRIBE_EVENT:
		return node_unsubscribe(f, arg);
	case VIDIOC_DQEVENT:
		return node_dqevent(f, arg, nonblock);
	case VIDIOC_LOG_STATUS:
		/* uvcvideo has none (ENOTTY); v4l2-ctl --log-status users
		 * expect the state logged and 0 */
		if (n->ops->log_status)
			n->ops->log_status(n->dev);
		return 0;
	case UVCIOC_CTRL_QUERY:
		return node_xu_query(n, arg, extra, extra_len);
	case UVCIOC_CTRL_MAP:
		return node_xu_map(n, arg, extra, extra_len);
	default:
		return -ENOTTY;
	}
}

bool node_uses_camera(unsigned int cmd)
{
	switch (cmd) {
	case VIDIOC_QUERYCTRL:
	case VIDIOC_QUERY_EXT_CTRL:
	case VIDIOC_QUERYMENU:
	case VIDIOC_G_CTRL:
	case VIDIOC_S_CTRL:
	case VIDIOC_G_EXT_CTRLS:
	case VIDIOC_S_EXT_CTRLS:
	case VIDIOC_TRY_EXT_CTRLS:
	case VIDIOC_SUBSCRIBE_EVENT:
	case VIDIOC_LOG_STATUS:
	case UVCIOC_CTRL_QUERY:
	case UVCIOC_CTRL_MAP:
	case VIDIOC_TRY_FMT:
	case VIDIOC_S_FMT:
	case VIDIOC_S_PARM:
		return true;
	default:
		return false;
	}
}

/* The end of a run in asynchronous mode: NODE_CAMERA, or its answer with
 * the events it queued delivered now. */
static int call_finish(struct node *n, int ret)
{
	struct call_event *events;
	unsigned count;

	if (call_end(n, &events, &count))
		return NODE_CAMERA;
	for (unsigned i = 0; i < count; i++)
		node_event_queue(n, events[i].f, events[i].s, &events[i].ev);
	return ret;
}

int node_ioctl(struct node *n, struct node_file *f, unsigned int cmd, void *arg, void *extra,
	       size_t extra_len, bool nonblock, const void **data, size_t *data_len)
{
	if (!n->async || !node_uses_camera(cmd))
		return ioctl_run(n, f, cmd, arg, extra, extra_len, nonblock, data, data_len);
	int err = call_begin(n);
	if (err)
		return err;
	int ret = ioctl_run(n, f, cmd, arg, extra, extra_len, nonblock, data, data_len);
	return call_finish(n, ret);
}

int node_status_event(struct node *n, uint8_t originator, uint8_t selector, const uint8_t *value,
		      size_t len)
{
	if (!n->async)
		return node_ctrl_status_event(n, originator, selector, value, len);
	int err = call_begin(n);
	if (err)
		return err;
	int ret = node_ctrl_status_event(n, originator, selector, value, len);
	return call_finish(n, ret);
}

void node_source_change(struct node *n)
{
	struct v4l2_event ev = { .type = V4L2_EVENT_SOURCE_CHANGE, .id = 0 };
	ev.u.src_change.changes = V4L2_EVENT_SRC_CH_RESOLUTION;
	for (struct node_file *f = n->files; f; f = f->next) {
		struct node_sub *sub = node_sub_find(f, V4L2_EVENT_SOURCE_CHANGE, 0);
		if (sub)
			node_event_queue(n, f, sub, &ev);
	}
}

void node_stream_failed(struct node *n)
{
	for (struct node_proc *p = n->procs; p; p = p->next) {
		struct vq *q = &p->queue;
		if (!p->fed)
			continue;
		if (n->ops->consumer_off)
			n->ops->consumer_off(n->dev, p);
		p->fed = false;
		if (q->memory == VQ_MEMORY_READ)
			vq_set_error(q);
		else
			vq_streamon_failed(q);
	}
	n->streamers = 0;
}

void node_set_error(struct node *n)
{
	for (struct node_proc *p = n->procs; p; p = p->next)
		if (p->fed)
			vq_set_error(&p->queue);
}

int node_dqbuf_peek(struct node *n, struct node_file *f, unsigned i, struct v4l2_buffer *b)
{
	(void)n;
	const struct vq *q = &f->proc->queue;
	if (q->memory != V4L2_MEMORY_MMAP)
		return -EOPNOTSUPP;
	return vq_dqbuf_peek(q, f, i, b);
}

bool node_poll_plain(struct node *n, struct node_file *f)
{
	(void)n;
	if (!f->proc)
		return false;
	const struct vq *q = &f->proc->queue;
	/* f's own queue: another file's done buffers are no DQBUF of f's,
	 * so no entry of f's ring would announce them */
	return q->owner == f && q->memory == V4L2_MEMORY_MMAP && !(vq_poll(q, f) & POLLERR);
}

int node_qbuf_preview(struct node *n, struct node_file *f, unsigned index, struct v4l2_buffer *b)
{
	(void)n;
	return vq_qbuf_preview(&f->proc->queue, index, b);
}

void node_dqbuf_lost(struct node *n, struct node_file *f, const struct v4l2_buffer *b)
{
	(void)n;
	struct vq *q = &f->proc->queue;
	if (q->memory != V4L2_MEMORY_USERPTR || b->index >= q->n_buffers)
		return;
	vq_undo_dqbuf(q, &q->buffers[b->index]);
}

/* read(): vb2's emulation over the same queue. */
int node_read(struct node *n, struct node_file *f, size_t size, bool first_chunk, bool nonblock,
	      const uint8_t **data, size_t *len)
{
	struct node_proc *pr = f->proc;
	struct vq *q = &pr->queue;
	*data = NULL;
	*len = 0;
	if (!first_chunk && !f->in_read)
		return 0; /* the frame ended with the previous chunk */
	if (first_chunk) {
		f->in_read = false;
		if (vq_is_busy(q, f))
			return -EBUSY;
		if (q->memory != VQ_MEMORY_READ) {
			int err = vq_read_start(proc_queue(n, pr), f, n->read_buffers);
			if (err)
				return err;
			err = proc_start(n, pr);
			if (err) {
				vq_release(q, f);
				return err;
			}
		}
	}
	struct vq_buffer *b;
	const uint8_t *p;
	size_t left;
	int err = vq_read_peek(q, f, &p, &left, &b);
	if (err == -EAGAIN) {
		if (!first_chunk)
			return 0;
		return nonblock ? -EAGAIN : NODE_WAIT;
	}
	if (err)
		return err;
	*data = p;
	*len = left < size ? left : size;
	return 0;
}

void node_read_done(struct node *n, struct node_file *f, size_t len)
{
	struct vq *q = &f->proc->queue;
	struct vq_buffer *b;
	const uint8_t *p;
	size_t left;
	if (vq_read_peek(q, f, &p, &left, &b))
		return;
	vq_read_consume(q, b, len);
	/* more of this frame goes to the next chunk of the same read() call */
	f->in_read = len < left;
	if (!f->in_read)
		n->ops->buffer_queued(n->dev);
}

unsigned node_poll(struct node *n, struct node_file *f, unsigned requested)
{
	struct node_proc *p = f->proc;
	struct vq *q = &p->queue;
	unsigned events = f->navailable ? POLLPRI : 0;
	/* vb2_core_poll: the queue answers only pollers of POLLIN, and the
	 * first such poller of an idle queue starts read() emulation. */
	if (!(requested & (POLLIN | POLLRDNORM)))
		return events;
	if (!q->owner && !q->n_buffers && !q->streaming) {
		if (!vq_read_start(proc_queue(n, p), f, n->read_buffers) && proc_start(n, p))
			vq_release(q, f);
	}
	return vq_poll(q, f) | events;
}

/* ---- VIDIOC_LOG_STATUS ---- */

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

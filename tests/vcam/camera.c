/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera's USB behaviour. Requests follow USB 2.0 chapter 9 and UVC 1.5
 * chapter 4; streaming follows the payload rules in payload.c. */
#include "camera.h"
#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>

#include "controls.h"
#include "descriptors.h"
#include "frames.h"
#include "impersonate.h"
#include "payload.h"
#include "probe.h"
#include "xu_store.h"

#define STATUS_QUEUE 16
#define CONTROL_TICK_NS 100000000ull /* automatic controls move every 100 ms */

struct urb {
	struct usbip_header h;
	struct usbip_iso_desc *iso;
	struct urb *next;
};

struct urb_queue {
	struct urb *head, **tail;
};

/* An endpoint 0 answer sent later (ctrl_delay_ms, ctrl_hang). */
struct held_reply {
	uint32_t seqnum;
	uint64_t due_ns;          /* UINT64_MAX: never (ctrl_hang) */
	uint8_t header[USBIP_HEADER_SIZE];
	uint8_t *data;
	size_t length;
	struct held_reply *next;
};

struct vcam_camera {
	struct vcam_camera_config cfg;
	const struct vcam_profile *profile;
	struct vcam_identity identity;
	struct vcam_controls *controls;
	/* an impersonated camera: its descriptors, and its XU and SU controls */
	const struct vcam_impersonation *imp;
	struct vcam_xu_store *units;
	uint8_t if_control, if_streaming;
	uint8_t ep_video, ep_status; /* addresses */
	uint8_t config_value;        /* bConfigurationValue */
	struct uvc_probe secondary_probe[VCAM_MAX_SECONDARY];

	uint8_t configuration;
	uint8_t streaming_alt;
	bool video_halted;

	size_t probe_size;
	struct uvc_probe probe, commit;
	bool committed;

	/* streaming */
	bool streaming;
	struct vcam_frames *frames; /* the stream's pictures, owned by the caller */
	unsigned picture_generation;
	struct vcam_payload payload;
	uint32_t packet_room; /* isochronous bytes per packet */
	uint64_t stream_start_ns, interval_ns, next_index;
	bool paused; /* the sensor sends nothing (URBs are still answered) */
	uint32_t sequence_base, sequence;

	struct urb_queue video_urbs, status_urbs;
	uint8_t status_packets[STATUS_QUEUE][VCAM_STATUS_PACKET];
	uint8_t status_lengths[STATUS_QUEUE];
	unsigned status_head, status_count;
	uint64_t next_tick_ns;

	uint8_t *scratch;
	uint8_t *corrupt; /* the damaged copy of the frame in flight */
	size_t corrupt_len;
	size_t scratch_size;

	struct vcam_camera_stats stats;

	/* endpoint 0 answers waiting (in order), and when the one being
	 * made goes out (0: at once) */
	struct held_reply *held;
	uint64_t hold_until;

	/* request faults (cfg.request_faults) in force, and the one making
	 * this answer short */
	bool faults_armed;
	bool short_answer;
	uint32_t garbage_seed;
};

static const char *const request_fault_names[] = {
	"ctrl-stall", "ctrl-short", "errcode-stall", "probe-stall", "commit-stall", "status-garbage",
};

unsigned vcam_request_fault_parse(const char *name)
{
	for (unsigned i = 0; i < sizeof(request_fault_names) / sizeof(request_fault_names[0]); i++)
		if (strcmp(name, request_fault_names[i]) == 0)
			return 1u << i;
	return 0;
}

#define LOG(...) fprintf(stderr, "vcam: " __VA_ARGS__)

static void queue_init(struct urb_queue *q)
{
	q->head = NULL;
	q->tail = &q->head;
}

static void queue_push(struct urb_queue *q, struct urb *u)
{
	u->next = NULL;
	*q->tail = u;
	q->tail = &u->next;
}

static struct urb *queue_pop(struct urb_queue *q)
{
	struct urb *u = q->head;
	if (u) {
		q->head = u->next;
		if (!q->head)
			q->tail = &q->head;
	}
	return u;
}

static struct urb *queue_remove(struct urb_queue *q, uint32_t seqnum)
{
	for (struct urb **pp = &q->head; *pp; pp = &(*pp)->next) {
		struct urb *u = *pp;
		if (u->h.seqnum == seqnum) {
			*pp = u->next;
			if (!*pp)
				q->tail = pp;
			return u;
		}
	}
	return NULL;
}

static void urb_free(struct urb *u)
{
	if (u) {
		free(u->iso);
		free(u);
	}
}

static void queue_clear(struct urb_queue *q)
{
	struct urb *u;
	while ((u = queue_pop(q)))
		urb_free(u);
}

static uint8_t *scratch(struct vcam_camera *cam, size_t size)
{
	if (size > cam->scratch_size) {
		uint8_t *b = realloc(cam->scratch, size);
		if (!b)
			return NULL;
		cam->scratch = b;
		cam->scratch_size = size;
	}
	return cam->scratch;
}

static int reply(struct vcam_camera *cam, const struct usbip_header *h, int32_t status,
		 const uint8_t *data, size_t length, const struct usbip_iso_desc *iso,
		 unsigned packets)
{
	uint8_t header[USBIP_HEADER_SIZE];
	/* An OUT transfer reports what it consumed; its data does not travel back. */
	int32_t actual = (int32_t)length;
	if (h->direction == USBIP_DIR_OUT && status == 0)
		actual = h->length;
	usbip_encode_ret_submit(header, h->seqnum, status, actual, 0, (int32_t)packets, 0);
	cam->stats.urbs++;
	if (h->ep == 0 && (cam->hold_until || cam->held)) {
		struct held_reply *r = calloc(1, sizeof(*r));
		if (!r || (length && !(r->data = malloc(length)))) {
			free(r);
			return -ENOMEM;
		}
		r->seqnum = h->seqnum;
		r->due_ns = cam->hold_until;
		memcpy(r->header, header, sizeof(header));
		if (length)
			memcpy(r->data, data, length);
		r->length = length;
		struct held_reply **pp = &cam->held;
		while (*pp) {
			/* never before the answer ahead of it */
			if ((*pp)->due_ns > r->due_ns)
				r->due_ns = (*pp)->due_ns;
			pp = &(*pp)->next;
		}
		*pp = r;
		return 0;
	}
	return cam->cfg.send(cam->cfg.ctx, header, data, length, iso, packets);
}

static void held_free(struct vcam_camera *cam)
{
	while (cam->held) {
		struct held_reply *r = cam->held;
		cam->held = r->next;
		free(r->data);
		free(r);
	}
}

/* The held answers that are due, in order. */
static int send_held(struct vcam_camera *cam, uint64_t now_ns)
{
	while (cam->held && cam->held->due_ns <= now_ns) {
		struct held_reply *r = cam->held;
		cam->held = r->next;
		int err = cam->cfg.send(cam->cfg.ctx, r->header, r->data, r->length, NULL, 0);
		free(r->data);
		free(r);
		if (err)
			return err;
	}
	return 0;
}

/* The controls keep VC_REQUEST_ERROR_CODE_CONTROL for every request. */
static int stall(struct vcam_camera *cam, const struct usbip_header *h, uint8_t error)
{
	vcam_controls_reject(cam->controls, error);
	return reply(cam, h, -EPIPE, NULL, 0, NULL, 0);
}

static void request_ok(struct vcam_camera *cam)
{
	vcam_controls_reject(cam->controls, VCAM_ERR_NONE);
}

static int reply_in(struct vcam_camera *cam, const struct usbip_header *h, const uint8_t *data,
		    size_t length)
{
	if (length > (size_t)h->length)
		length = (size_t)h->length;
	if (cam->short_answer && length)
		length--;
	return reply(cam, h, 0, data, length, NULL, 0);
}

/* ---- controls and the status endpoint ---- */

static void controls_changed(void *ctx, const char *line)
{
	(void)ctx;
	LOG("%s\n", line);
}

static void controls_reset(struct vcam_camera *cam)
{
	vcam_controls_free(cam->controls);
	cam->controls = cam->imp ? vcam_controls_new_masked(cam->imp->model->bcd_uvc, cam->imp->ct_bits,
							     cam->imp->pu_bits)
				 : vcam_controls_new(cam->profile->bcd_uvc);
	if (cam->imp) {
		vcam_xu_store_free(cam->units);
		cam->units = vcam_xu_store_new(cam->imp->model);
		if (!cam->units) {
			vcam_controls_free(cam->controls);
			cam->controls = NULL;
		}
	}
	if (cam->controls)
		vcam_controls_set_log(cam->controls, controls_changed, cam);
	if (cam->controls && cam->cfg.msxu && !cam->imp)
		vcam_controls_enable_msxu(cam->controls);
}

static int send_status(struct vcam_camera *cam)
{
	while (cam->status_count && cam->status_urbs.head) {
		struct urb *u = queue_pop(&cam->status_urbs);
		unsigned i = cam->status_head;
		int err = reply_in(cam, &u->h, cam->status_packets[i], cam->status_lengths[i]);
		urb_free(u);
		cam->status_head = (i + 1) % STATUS_QUEUE;
		cam->status_count--;
		if (err)
			return err;
	}
	return 0;
}

static void queue_status_event(struct vcam_camera *cam, const struct vcam_control_event *e)
{
	static const uint8_t originator[] = {
		[VCAM_ENTITY_INTERFACE] = 0,
		[VCAM_ENTITY_CAMERA] = VCAM_ID_CAMERA,
		[VCAM_ENTITY_PROCESSING] = VCAM_ID_PROCESSING,
		[VCAM_ENTITY_EXTENSION] = VCAM_ID_EXTENSION,
	};
	if (cam->status_count == STATUS_QUEUE)
		return; /* nobody listens: the oldest news is enough */
	unsigned i = (cam->status_head + cam->status_count) % STATUS_QUEUE;
	uint8_t *pkt = cam->status_packets[i];
	unsigned len = e->length > VCAM_STATUS_PACKET - 5 ? VCAM_STATUS_PACKET - 5 : e->length;
	pkt[0] = 0x01; /* bStatusType: VideoControl interface */
	pkt[1] = originator[e->entity];
	if (cam->imp)
		pkt[1] = e->entity == VCAM_ENTITY_CAMERA     ? cam->imp->first_ct
			 : e->entity == VCAM_ENTITY_PROCESSING ? cam->imp->first_pu
							       : 0;
	pkt[2] = 0x00; /* bEvent: control change */
	pkt[3] = e->selector;
	pkt[4] = e->attribute;
	memcpy(pkt + 5, e->value, len);
	cam->status_lengths[i] = (uint8_t)(5 + len);
	cam->status_count++;
}

/* A random status packet (VCAM_RF_STATUS_GARBAGE): any length up to the
 * endpoint's, half of them with a real bStatusType and originator so that
 * they reach further into the host's parser. */
static void queue_status_garbage(struct vcam_camera *cam)
{
	static const uint8_t ids[] = { 0, VCAM_ID_CAMERA, VCAM_ID_PROCESSING, VCAM_ID_EXTENSION,
				       VCAM_ID_OUTPUT, 0x7f };
	if (cam->status_count == STATUS_QUEUE)
		return;
	unsigned i = (cam->status_head + cam->status_count) % STATUS_QUEUE;
	uint8_t *pkt = cam->status_packets[i];
	uint32_t x = cam->garbage_seed;
	for (unsigned k = 0; k < VCAM_STATUS_PACKET; k++) {
		x ^= x << 13; /* xorshift32 */
		x ^= x >> 17;
		x ^= x << 5;
		pkt[k] = (uint8_t)x;
	}
	cam->garbage_seed = x;
	if (pkt[0] & 1) {
		pkt[0] = 1 + (pkt[1] & 1); /* VideoControl or VideoStreaming */
		pkt[1] = ids[pkt[2] % sizeof(ids)];
	}
	cam->status_lengths[i] = (uint8_t)(x % (VCAM_STATUS_PACKET + 1));
	cam->status_count++;
	cam->stats.status_garbage++;
}

/* ---- streaming ---- */

static void stop_streaming(struct vcam_camera *cam, const char *why)
{
	if (!cam->streaming)
		return;
	cam->streaming = false;
	LOG("stream stopped (%s): %" PRIu64 " frames sent, %" PRIu64 " dropped, %" PRIu64
	    " corrupted, %" PRIu64 " faulted\n", why, cam->stats.frames_sent,
	    cam->stats.frames_dropped, cam->stats.frames_corrupted, cam->stats.frames_faulted);
}

static const struct uvc_probe *active_probe(const struct vcam_camera *cam)
{
	return cam->committed ? &cam->commit : &cam->probe;
}

/* Takes the pictures for the stream's format, once drawn; the sensor starts
 * then. False while they are not ready. */
static bool acquire_frames(struct vcam_camera *cam, uint64_t now_ns)
{
	if (cam->frames)
		return true;
	const struct uvc_probe *p = active_probe(cam);
	const struct vcam_format *fmt = vcam_probe_format(cam->profile, p);
	const struct vcam_frame_size *f = vcam_probe_frame(cam->profile, p);
	cam->frames = cam->cfg.frames(cam->cfg.ctx, fmt->pixel, f->width, f->height);
	if (!cam->frames) {
		if (errno != EAGAIN) {
			LOG("cannot make frames for format %u frame %u: %s\n", p->format_index,
			    p->frame_index, strerror(errno));
			stop_streaming(cam, "no pictures");
		}
		return false;
	}
	vcam_frames_rewind(cam->frames);
	/* Pictures are drawn at brightness 0: redraw if the host changed it. */
	cam->picture_generation = ~vcam_controls_picture_generation(cam->controls);
	cam->stream_start_ns = now_ns;
	cam->next_index = 0;
	return true;
}

static void start_streaming(struct vcam_camera *cam, uint64_t now_ns)
{
	if (cam->cfg.reset_on_stream) {
		uint8_t def[2];
		if (vcam_controls_request(cam->controls, VCAM_ENTITY_PROCESSING, UVC_GET_DEF,
					  UVC_PU_BRIGHTNESS_CONTROL, def, 2) == 2)
			vcam_controls_request(cam->controls, VCAM_ENTITY_PROCESSING, UVC_SET_CUR,
					      UVC_PU_BRIGHTNESS_CONTROL, def, 2);
	}
	const struct uvc_probe *p = active_probe(cam);
	const struct vcam_frame_size *f = vcam_probe_frame(cam->profile, p);
	vcam_payload_reset(&cam->payload, p->max_payload_transfer_size);
	cam->payload.clock = cam->cfg.camera_clock;
	cam->streaming = true;
	if (cam->cfg.replay) {
		struct vcam_replay *r = cam->cfg.replay;
		r->at = r->sent = 0;
		r->loops = 0;
		r->zlp_owed = false;
		cam->stream_start_ns = now_ns;
		LOG("stream started: replaying %s, %u payloads, %u frames a loop\n", r->endpoint, r->n,
		    r->frames);
		return;
	}
	cam->frames = NULL;
	cam->interval_ns = (uint64_t)p->interval * 100;
	cam->sequence_base = cam->sequence;
	cam->stats.frames_sent = cam->stats.frames_dropped = cam->stats.frames_corrupted = 0;
	cam->stats.frames_faulted = 0;
	LOG("stream started: format %u frame %u (%ux%u) interval %u00 ns, payload %u bytes%s\n",
	    p->format_index, p->frame_index, f->width, f->height, p->interval,
	    p->max_payload_transfer_size, cam->cfg.unpaced ? ", unpaced" : "");
	if (!acquire_frames(cam, now_ns) && cam->streaming)
		LOG("waiting for the pictures of %ux%u to be drawn\n", f->width, f->height);
}

/* Every nth frame (sequence n-1, 2n-1, ...) gets a fault; n 0: none. */
static bool every_nth(uint32_t sequence, unsigned n)
{
	return n && sequence % n == n - 1;
}

/* The frame the sensor has ready by now, if the last one is out. */
static bool next_frame(struct vcam_camera *cam, uint64_t now_ns)
{
	uint64_t index = cam->next_index;
	if (cam->paused)
		return false;
	if (!cam->cfg.unpaced) {
		if (now_ns < cam->stream_start_ns + index * cam->interval_ns)
			return false;
		/* A camera whose host falls behind drops frames: send the newest. */
		uint64_t due = (now_ns - cam->stream_start_ns) / cam->interval_ns;
		if (due > index) {
			/* each gap logged: a checker tells the camera's drops in
			 * its window from the host's (tests/e2e/daemon-hostile.sh) */
			LOG("late: frames %u to %u dropped\n", cam->sequence_base + (uint32_t)index,
			    cam->sequence_base + (uint32_t)due - 1);
			cam->stats.frames_dropped += due - index;
			index = due;
		}
	}
	unsigned generation = vcam_controls_picture_generation(cam->controls);
	if (generation != cam->picture_generation) {
		int brightness = vcam_controls_brightness(cam->controls);
		if (vcam_frames_brightness(cam->frames) != brightness) {
			vcam_frames_set_brightness(cam->frames, brightness);
			vcam_frames_prepare(cam->frames);
		}
		cam->picture_generation = generation;
	}
	uint64_t capture_ns = cam->cfg.unpaced ? now_ns : cam->stream_start_ns + index * cam->interval_ns;
	uint32_t sequence = cam->sequence_base + (uint32_t)index;
	size_t len;
	const uint8_t *frame = vcam_frames_get(cam->frames, sequence, capture_ns, &len);
	if (!frame)
		return false;
	bool error = every_nth(sequence, cam->cfg.error_every);
	if (every_nth(sequence, cam->cfg.corrupt_jpeg_every) &&
	    vcam_probe_format(cam->profile, active_probe(cam))->pixel == VCAM_PIXEL_MJPEG) {
		/* the payload reads the frame until it ends: keep the copy here */
		if (cam->corrupt_len < len) {
			uint8_t *c = realloc(cam->corrupt, len);
			if (!c)
				return false;
			cam->corrupt = c;
			cam->corrupt_len = len;
		}
		memcpy(cam->corrupt, frame, len);
		if (vcam_frames_corrupt_jpeg(cam->corrupt, len) == 0) {
			frame = cam->corrupt;
			cam->stats.frames_corrupted++;
		}
	}
	vcam_payload_start_frame(&cam->payload, frame, len, capture_ns, error);
	if (vcam_controls_msxu_size(cam->controls) >= VCAM_MSXU_ITEM)
		vcam_payload_set_msxu(&cam->payload, sequence);
	if (cam->cfg.payload_faults && every_nth(sequence, cam->cfg.fault_every)) {
		vcam_payload_set_faults(&cam->payload, cam->cfg.payload_faults);
		cam->stats.frames_faulted++;
	}
	cam->next_index = index + 1;
	cam->sequence = sequence + 1;
	cam->stats.frames_sent++;
	return true;
}

static int complete_iso(struct vcam_camera *cam, struct urb *u, uint64_t now_ns)
{
	unsigned n = (unsigned)u->h.packets;
	uint8_t *buf = scratch(cam, (size_t)u->h.length);
	if (!buf && u->h.length)
		return -ENOMEM;
	size_t pos = 0;
	for (unsigned i = 0; i < n; i++) {
		struct usbip_iso_desc *d = &u->iso[i];
		size_t room = d->length < cam->packet_room ? d->length : cam->packet_room;
		if (pos + room > (size_t)u->h.length)
			room = (size_t)u->h.length - pos;
		if (!cam->payload.in_frame)
			next_frame(cam, now_ns);
		size_t got = vcam_payload_iso_packet(&cam->payload, buf + pos, room, now_ns);
		d->actual_length = (uint32_t)got;
		d->status = cam->payload.packet_status;
		pos += got;
	}
	return reply(cam, &u->h, 0, buf, pos, u->iso, n);
}

static uint64_t replay_due_ns(const struct vcam_camera *cam)
{
	return cam->stream_start_ns + vcam_replay_due_us(cam->cfg.replay) * 1000;
}

/* A recorded stream: each URB takes the next piece of the trace once it is
 * due, a recorded transfer error as its status. */
static int serve_replay(struct vcam_camera *cam, uint64_t now_ns)
{
	while (cam->streaming && cam->video_urbs.head && now_ns >= replay_due_ns(cam)) {
		struct urb *u = queue_pop(&cam->video_urbs);
		uint8_t *buf = scratch(cam, (size_t)u->h.length);
		long got = buf ? vcam_replay_urb(cam->cfg.replay, buf, (size_t)u->h.length) : -ENOMEM;
		int err = reply(cam, &u->h, got < 0 ? (int32_t)got : 0, buf, got > 0 ? (size_t)got : 0,
				NULL, 0);
		urb_free(u);
		if (err)
			return err;
	}
	return 0;
}

/* Sends every video URB that has data to carry by now. */
static int serve_video(struct vcam_camera *cam, uint64_t now_ns)
{
	if (cam->cfg.replay)
		return serve_replay(cam, now_ns);
	if (cam->streaming && !acquire_frames(cam, now_ns))
		return 0;
	while (cam->streaming && cam->video_urbs.head) {
		struct urb *u = cam->video_urbs.head;
		if (!cam->payload.in_frame && !cam->payload.zlp_owed && !next_frame(cam, now_ns))
			return 0; /* wait for the sensor */
		queue_pop(&cam->video_urbs);
		int err;
		if (cam->profile->transfer == VCAM_ISOCHRONOUS) {
			err = complete_iso(cam, u, now_ns);
		} else {
			uint8_t *buf = scratch(cam, (size_t)u->h.length);
			long got = buf ? vcam_payload_bulk_urb(&cam->payload, buf, (size_t)u->h.length, now_ns)
				       : -1;
			err = reply(cam, &u->h, got == 0 ? cam->payload.packet_status : 0, buf,
				    got > 0 ? (size_t)got : 0, NULL, 0);
		}
		urb_free(u);
		if (err)
			return err;
	}
	return 0;
}

/* ---- endpoint 0 ---- */

/* An impersonated camera's descriptors: its own, as the dump has them. */
static int get_impersonated_descriptor(struct vcam_camera *cam, const struct usbip_header *h,
				       unsigned type, unsigned index)
{
	const struct vcam_impersonation *imp = cam->imp;
	uint8_t buf[256];
	long n;
	switch (type) {
	case USB_DT_DEVICE:
		return reply_in(cam, h, imp->device, sizeof(imp->device));
	case USB_DT_CONFIG:
		if (index != 0)
			break;
		return reply_in(cam, h, imp->config, imp->config_len);
	case USB_DT_STRING:
		n = vcam_impersonate_string(imp, (uint8_t)index, buf, sizeof(buf));
		if (n < 0)
			break;
		return reply_in(cam, h, buf, (size_t)n);
	case USB_DT_DEVICE_QUALIFIER:
		n = vcam_qualifier_descriptor(cam->profile, buf, sizeof(buf));
		if (n < 0)
			break;
		return reply_in(cam, h, buf, (size_t)n);
	case USB_DT_BOS:
		n = vcam_bos_descriptor(cam->profile, buf, sizeof(buf));
		if (n < 0)
			break;
		return reply_in(cam, h, buf, (size_t)n);
	default:
		break;
	}
	return stall(cam, h, VCAM_ERR_INVALID_REQUEST);
}

static int get_descriptor(struct vcam_camera *cam, const struct usbip_header *h, unsigned type,
			  unsigned index)
{
	uint8_t buf[4096];
	ssize_t n;
	if (cam->imp)
		return get_impersonated_descriptor(cam, h, type, index);
	switch (type) {
	case USB_DT_DEVICE:
		n = vcam_device_descriptor(cam->profile, buf, sizeof(buf));
		break;
	case USB_DT_CONFIG:
		n = index == 0 ? vcam_config_descriptor(&cam->identity, buf, sizeof(buf)) : -EINVAL;
		break;
	case USB_DT_STRING:
		n = vcam_string_descriptor(&cam->identity, (uint8_t)index, buf, sizeof(buf));
		break;
	case USB_DT_DEVICE_QUALIFIER:
		n = vcam_qualifier_descriptor(cam->profile, buf, sizeof(buf));
		break;
	case USB_DT_BOS:
		n = vcam_bos_descriptor(cam->profile, buf, sizeof(buf));
		break;
	default:
		n = -EINVAL;
		break;
	}
	if (n < 0)
		return stall(cam, h, VCAM_ERR_INVALID_REQUEST);
	return reply_in(cam, h, buf, (size_t)n);
}

static void set_configuration(struct vcam_camera *cam, uint8_t value)
{
	if (cam->configuration != value)
		LOG("configuration %u\n", value);
	cam->configuration = value;
	cam->streaming_alt = 0;
	cam->video_halted = false;
	stop_streaming(cam, "configuration changed");
}

static int set_interface(struct vcam_camera *cam, const struct usbip_header *h, unsigned intf,
			 unsigned alt, uint64_t now_ns)
{
	bool iso = cam->profile->transfer == VCAM_ISOCHRONOUS;
	if (cam->configuration == 0)
		return stall(cam, h, VCAM_ERR_WRONG_STATE);
	if (intf == cam->if_control && alt == 0)
		return reply(cam, h, 0, NULL, 0, NULL, 0);
	/* an impersonated camera's other interfaces (audio, a second stream):
	 * accepted, nothing behind them */
	if (cam->imp && intf != cam->if_streaming && intf != cam->if_control)
		return reply(cam, h, 0, NULL, 0, NULL, 0);
	const struct vcam_alt *setting = alt && iso ? vcam_profile_alt(cam->profile, alt) : NULL;
	if (intf != cam->if_streaming || (alt && !setting))
		return stall(cam, h, VCAM_ERR_INVALID_REQUEST);
	cam->streaming_alt = (uint8_t)alt;
	stop_streaming(cam, "alternate setting changed");
	/* Answer first: drawing a new format's pictures can take seconds under
	 * emulation, longer than a host waits for a control transfer. */
	int err = reply(cam, h, 0, NULL, 0, NULL, 0);
	if (err || alt == 0)
		return err;
	cam->packet_room = vcam_alt_bytes(setting);
	LOG("alternate setting %u: %u bytes per interval\n", alt, cam->packet_room);
	start_streaming(cam, now_ns);
	return serve_video(cam, now_ns);
}

static int standard_request(struct vcam_camera *cam, const struct usbip_header *h,
			    const struct usb_ctrlrequest *r, uint64_t now_ns)
{
	unsigned value = r->wValue, index = r->wIndex;
	unsigned recipient = r->bRequestType & USB_RECIP_MASK;
	uint8_t two[2] = { 0, 0 };

	switch (r->bRequest) {
	case USB_REQ_GET_DESCRIPTOR:
		return get_descriptor(cam, h, value >> 8, value & 0xff);
	case USB_REQ_GET_STATUS:
		if (recipient == USB_RECIP_ENDPOINT && (index & 0x7f) == (cam->ep_video & 0x7f))
			two[0] = cam->video_halted;
		return reply_in(cam, h, two, 2);
	case USB_REQ_SET_ADDRESS:
	case USB_REQ_SET_FEATURE:
	case USB_REQ_SET_SEL:
	case USB_REQ_SET_ISOCH_DELAY:
		return reply(cam, h, 0, NULL, 0, NULL, 0);
	case USB_REQ_CLEAR_FEATURE:
		/* Hosts stop a bulk camera with CLEAR_FEATURE(ENDPOINT_HALT). */
		if (recipient == USB_RECIP_ENDPOINT && value == USB_ENDPOINT_HALT &&
		    index == cam->ep_video && cam->profile->transfer == VCAM_BULK) {
			stop_streaming(cam, "endpoint halt cleared");
			cam->committed = false;
		}
		return reply(cam, h, 0, NULL, 0, NULL, 0);
	case USB_REQ_GET_CONFIGURATION:
		return reply_in(cam, h, &cam->configuration, 1);
	case USB_REQ_SET_CONFIGURATION:
		if (value != 0 && value != cam->config_value)
			return stall(cam, h, VCAM_ERR_INVALID_REQUEST);
		set_configuration(cam, (uint8_t)value);
		return reply(cam, h, 0, NULL, 0, NULL, 0);
	case USB_REQ_GET_INTERFACE:
		if (cam->configuration == 0 || (!cam->imp && index > VCAM_IF_STREAMING))
			return stall(cam, h, VCAM_ERR_WRONG_STATE);
		two[0] = index == cam->if_streaming ? cam->streaming_alt : 0;
		return reply_in(cam, h, two, 1);
	case USB_REQ_SET_INTERFACE:
		return set_interface(cam, h, index, value, now_ns);
	default:
		return stall(cam, h, VCAM_ERR_INVALID_REQUEST);
	}
}

/* GET_* of a streaming interface's probe (or commit) control: prof its
 * formats, cur what GET_CUR answers, basis the probe GET_MIN/MAX describe. */
static int probe_get(struct vcam_camera *cam, const struct usbip_header *h, uint8_t request,
		     const struct vcam_profile *prof, const struct uvc_probe *cur,
		     const struct uvc_probe *basis, bool is_probe)
{
	struct uvc_probe p;
	uint8_t buf[64];

	switch (request) {
	case UVC_GET_CUR:
		p = *cur;
		break;
	case UVC_GET_MIN:
		vcam_probe_min(prof, basis, &p);
		break;
	case UVC_GET_MAX:
		vcam_probe_max(prof, basis, &p);
		break;
	case UVC_GET_DEF:
		vcam_probe_default(prof, &p);
		break;
	case UVC_GET_LEN:
		buf[0] = (uint8_t)cam->probe_size;
		buf[1] = 0;
		request_ok(cam);
		return reply_in(cam, h, buf, 2);
	case UVC_GET_INFO:
		buf[0] = 0x03; /* GET and SET supported */
		request_ok(cam);
		return reply_in(cam, h, buf, 1);
	default:
		return stall(cam, h, VCAM_ERR_INVALID_REQUEST);
	}
	if (!is_probe && request != UVC_GET_CUR)
		return stall(cam, h, VCAM_ERR_INVALID_REQUEST); /* commit has CUR only */
	uvc_probe_encode(&p, buf, cam->probe_size);
	request_ok(cam);
	return reply_in(cam, h, buf, cam->probe_size);
}

static int streaming_request(struct vcam_camera *cam, const struct usbip_header *h,
			     const struct usb_ctrlrequest *r, const uint8_t *out, uint64_t now_ns)
{
	unsigned selector = r->wValue >> 8;
	struct uvc_probe p;
	bool is_probe = selector == UVC_VS_PROBE_CONTROL;

	if (r->wIndex >> 8 != 0 || (selector != UVC_VS_PROBE_CONTROL && selector != UVC_VS_COMMIT_CONTROL))
		return stall(cam, h, VCAM_ERR_INVALID_CONTROL);
	switch (r->bRequest) {
	case UVC_SET_CUR: {
		if (r->wLength != cam->probe_size)
			return stall(cam, h, VCAM_ERR_INVALID_REQUEST);
		struct uvc_probe asked;
		uvc_probe_decode(out, cam->probe_size, &asked);
		if (vcam_probe_negotiate(cam->profile, &asked, &p) < 0)
			return stall(cam, h, VCAM_ERR_OUT_OF_RANGE);
		if (is_probe) {
			cam->probe = p;
		} else {
			if (cam->streaming && cam->profile->transfer == VCAM_ISOCHRONOUS)
				return stall(cam, h, VCAM_ERR_WRONG_STATE);
			stop_streaming(cam, "new commit");
			cam->commit = p;
			cam->committed = true;
			cam->probe = p;
			LOG("commit: format %u frame %u interval %u\n", p.format_index, p.frame_index,
			    p.interval);
		}
		request_ok(cam);
		int err = reply(cam, h, 0, NULL, 0, NULL, 0);
		if (err)
			return err;
		/* Bulk cameras start sending once the host commits (after the
		 * answer, as for SET_INTERFACE). */
		if (!is_probe && cam->profile->transfer == VCAM_BULK)
			start_streaming(cam, now_ns);
		return serve_video(cam, now_ns);
	}
	default:
		return probe_get(cam, h, r->bRequest, cam->profile,
				 is_probe ? &cam->probe : active_probe(cam), &cam->probe, is_probe);
	}
}

/* Probe and commit of an impersonated camera's other streaming interfaces:
 * negotiated against their own formats and kept, nothing streams. */
static int secondary_streaming_request(struct vcam_camera *cam, const struct usbip_header *h,
				       const struct usb_ctrlrequest *r, const uint8_t *out,
				       unsigned k)
{
	const struct vcam_profile *prof = &cam->imp->secondary[k].profile;
	unsigned selector = r->wValue >> 8;
	struct uvc_probe p, asked;

	if (selector != UVC_VS_PROBE_CONTROL && selector != UVC_VS_COMMIT_CONTROL)
		return stall(cam, h, VCAM_ERR_INVALID_CONTROL);
	switch (r->bRequest) {
	case UVC_SET_CUR:
		if (r->wLength != cam->probe_size)
			return stall(cam, h, VCAM_ERR_INVALID_REQUEST);
		uvc_probe_decode(out, cam->probe_size, &asked);
		if (vcam_probe_negotiate(prof, &asked, &p) < 0)
			return stall(cam, h, VCAM_ERR_OUT_OF_RANGE);
		cam->secondary_probe[k] = p;
		request_ok(cam);
		return reply(cam, h, 0, NULL, 0, NULL, 0);
	default:
		return probe_get(cam, h, r->bRequest, prof, &cam->secondary_probe[k],
				 &cam->secondary_probe[k], selector == UVC_VS_PROBE_CONTROL);
	}
}

static int control_answer(struct vcam_camera *cam, const struct usbip_header *h,
			  const struct usb_ctrlrequest *r, uint8_t *data, int n)
{
	if (n < 0)
		return reply(cam, h, -EPIPE, NULL, 0, NULL, 0);
	if (r->bRequestType & USB_DIR_IN)
		return reply_in(cam, h, data, (size_t)n);
	return reply(cam, h, 0, NULL, 0, NULL, 0);
}

/* An impersonated camera's units by what their ID is: every camera terminal
 * and processing unit is the one control model (a second chain shares its
 * values), extension and selector units are the unit store. */
static int impersonated_control_request(struct vcam_camera *cam, const struct usbip_header *h,
					const struct usb_ctrlrequest *r, uint8_t *data)
{
	unsigned entity = r->wIndex >> 8;
	uint8_t selector = (uint8_t)(r->wValue >> 8), code;
	int n;

	switch (entity ? cam->imp->roles[entity] : VCAM_ROLE_CAMERA) {
	case VCAM_ROLE_CAMERA:
	case VCAM_ROLE_PROCESSING:
		n = vcam_controls_request(cam->controls,
					  entity == 0 ? VCAM_ENTITY_INTERFACE
					  : cam->imp->roles[entity] == VCAM_ROLE_CAMERA
						  ? VCAM_ENTITY_CAMERA
						  : VCAM_ENTITY_PROCESSING,
					  r->bRequest, selector, data, r->wLength);
		break;
	case VCAM_ROLE_EXTENSION:
	case VCAM_ROLE_SELECTOR:
		n = vcam_xu_store_request(cam->units, (uint8_t)entity, r->bRequest, selector, data,
					  r->wLength, &code);
		if (n < 0)
			vcam_controls_reject(cam->controls, code);
		else
			request_ok(cam);
		break;
	case VCAM_ROLE_NO_CONTROLS:
		n = vcam_controls_reject(cam->controls, VCAM_ERR_INVALID_CONTROL);
		break;
	default:
		n = vcam_controls_reject(cam->controls, VCAM_ERR_INVALID_UNIT);
		break;
	}
	return control_answer(cam, h, r, data, n);
}

static int control_request(struct vcam_camera *cam, const struct usbip_header *h,
			   const struct usb_ctrlrequest *r, uint8_t *data)
{
	unsigned entity = r->wIndex >> 8;
	unsigned selector = r->wValue >> 8;
	enum vcam_entity e;

	if (cam->imp)
		return impersonated_control_request(cam, h, r, data);
	switch (entity) {
	case 0:
		e = VCAM_ENTITY_INTERFACE;
		break;
	case VCAM_ID_CAMERA:
		e = VCAM_ENTITY_CAMERA;
		break;
	case VCAM_ID_PROCESSING:
		e = VCAM_ENTITY_PROCESSING;
		break;
	case VCAM_ID_EXTENSION:
		e = VCAM_ENTITY_EXTENSION;
		break;
	case VCAM_ID_OUTPUT:
		return stall(cam, h, VCAM_ERR_INVALID_CONTROL);
	default:
		return stall(cam, h, VCAM_ERR_INVALID_UNIT);
	}
	int n = vcam_controls_request(cam->controls, e, r->bRequest, (uint8_t)selector, data,
				      r->wLength);
	return control_answer(cam, h, r, data, n);
}

static int endpoint0_class(struct vcam_camera *cam, const struct usbip_header *h,
			   const struct usb_ctrlrequest *rp, const uint8_t *out, uint64_t now_ns);

/* A class request while request faults are armed: those that match one
 * fail as it says, the others are answered as usual. */
static int faulty_class_request(struct vcam_camera *cam, const struct usbip_header *h,
				const struct usb_ctrlrequest *r, const uint8_t *out, uint64_t now_ns)
{
	unsigned faults = cam->cfg.request_faults;
	unsigned intf = r->wIndex & 0xff, entity = r->wIndex >> 8, selector = r->wValue >> 8;
	bool unit_value = intf == cam->if_control && entity != 0 &&
			  (r->bRequest == UVC_GET_CUR || r->bRequest == UVC_SET_CUR);

	if ((faults & VCAM_RF_CTRL_STALL) && unit_value)
		return stall(cam, h, VCAM_ERR_NOT_READY);
	if ((faults & VCAM_RF_ERRCODE_STALL) && intf == cam->if_control && entity == 0 &&
	    selector == UVC_VC_REQUEST_ERROR_CODE_CONTROL && r->bRequest == UVC_GET_CUR)
		return reply(cam, h, -EPIPE, NULL, 0, NULL, 0); /* the code stays */
	if (intf == cam->if_streaming && r->bRequest == UVC_SET_CUR &&
	    (((faults & VCAM_RF_PROBE_STALL) && selector == UVC_VS_PROBE_CONTROL) ||
	     ((faults & VCAM_RF_COMMIT_STALL) && selector == UVC_VS_COMMIT_CONTROL)))
		return stall(cam, h, VCAM_ERR_WRONG_STATE);
	cam->short_answer = (faults & VCAM_RF_CTRL_SHORT) && unit_value && r->bRequest == UVC_GET_CUR;
	int err = endpoint0_class(cam, h, r, out, now_ns);
	cam->short_answer = false;
	return err;
}

static int endpoint0(struct vcam_camera *cam, const struct usbip_header *h, const uint8_t *out,
		     uint64_t now_ns)
{
	struct usb_ctrlrequest r;

	r.bRequestType = h->setup[0];
	r.bRequest = h->setup[1];
	r.wValue = (uint16_t)(h->setup[2] | h->setup[3] << 8);
	r.wIndex = (uint16_t)(h->setup[4] | h->setup[5] << 8);
	r.wLength = (uint16_t)(h->setup[6] | h->setup[7] << 8);

	if ((r.bRequestType & USB_TYPE_MASK) == USB_TYPE_STANDARD)
		return standard_request(cam, h, &r, now_ns);
	if (cam->faults_armed && cam->cfg.request_faults)
		return faulty_class_request(cam, h, &r, out, now_ns);
	/* a slow camera: the values of its units take long (not GET_INFO,
	 * ranges, the error code), and so may setting probe and commit */
	if ((cam->cfg.ctrl_delay_ms || cam->cfg.ctrl_hang) && (r.wIndex & 0xff) == cam->if_control &&
	    (r.wIndex >> 8) != 0 && (r.bRequest == UVC_GET_CUR || r.bRequest == UVC_SET_CUR))
		cam->hold_until = cam->cfg.ctrl_hang ? UINT64_MAX :
						       now_ns + (uint64_t)cam->cfg.ctrl_delay_ms * 1000000u;
	else if (cam->cfg.stream_delay_ms && (r.wIndex & 0xff) == cam->if_streaming &&
		 r.bRequest == UVC_SET_CUR)
		cam->hold_until = now_ns + (uint64_t)cam->cfg.stream_delay_ms * 1000000u;
	int err = endpoint0_class(cam, h, &r, out, now_ns);
	cam->hold_until = 0;
	return err;
}

static int endpoint0_class(struct vcam_camera *cam, const struct usbip_header *h,
			   const struct usb_ctrlrequest *rp, const uint8_t *out, uint64_t now_ns)
{
	struct usb_ctrlrequest r = *rp;
	uint8_t data[512];

	if ((r.bRequestType & USB_TYPE_MASK) != USB_TYPE_CLASS ||
	    (r.bRequestType & USB_RECIP_MASK) != USB_RECIP_INTERFACE || r.wLength > sizeof(data) ||
	    (size_t)h->length < r.wLength)
		return stall(cam, h, VCAM_ERR_INVALID_REQUEST);

	memset(data, 0, sizeof(data));
	if (!(r.bRequestType & USB_DIR_IN))
		memcpy(data, out, r.wLength);
	if ((r.wIndex & 0xff) == cam->if_control)
		return control_request(cam, h, &r, data);
	if ((r.wIndex & 0xff) == cam->if_streaming)
		return streaming_request(cam, h, &r, data, now_ns);
	for (unsigned k = 0; cam->imp && k < cam->imp->n_secondary; k++)
		if ((r.wIndex & 0xff) == cam->imp->secondary[k].interface)
			return secondary_streaming_request(cam, h, &r, data, k);
	return stall(cam, h, VCAM_ERR_INVALID_REQUEST);
}

/* ---- USB/IP commands ---- */

static int unlink_urb(struct vcam_camera *cam, const struct usbip_header *h)
{
	struct urb *u = queue_remove(&cam->video_urbs, h->unlink_seqnum);
	if (!u)
		u = queue_remove(&cam->status_urbs, h->unlink_seqnum);
	bool found = u != NULL;
	/* an answer held back (a request the host gave up on, timed out) */
	for (struct held_reply **pp = &cam->held; *pp && !found; pp = &(*pp)->next) {
		struct held_reply *r = *pp;
		if (r->seqnum == h->unlink_seqnum) {
			*pp = r->next;
			free(r->data);
			free(r);
			found = true;
			LOG("control request %u unlinked by the host before its answer\n",
			    h->unlink_seqnum);
			break;
		}
	}
	uint8_t header[USBIP_HEADER_SIZE];
	/* -ECONNRESET: unlinked before completion; 0: it had completed already. */
	usbip_encode_ret_unlink(header, h->seqnum, found ? -ECONNRESET : 0);
	urb_free(u);
	return cam->cfg.send(cam->cfg.ctx, header, NULL, 0, NULL, 0);
}

int vcam_camera_command(struct vcam_camera *cam, const struct usbip_header *h,
			const uint8_t *out_data, const struct usbip_iso_desc *iso, uint64_t now_ns)
{
	if (!cam->controls)
		return -ENOMEM;
	if (h->command == USBIP_CMD_UNLINK)
		return unlink_urb(cam, h);
	if (h->ep == 0)
		return endpoint0(cam, h, out_data, now_ns);

	bool video = h->ep == (cam->ep_video & 0x7f) && h->direction == USBIP_DIR_IN;
	bool status = cam->ep_status && h->ep == (cam->ep_status & 0x7f) &&
		      h->direction == USBIP_DIR_IN;
	bool iso_ep = cam->profile->transfer == VCAM_ISOCHRONOUS;
	if (!video && !status)
		return reply(cam, h, -EPIPE, NULL, 0, NULL, 0);
	if (video && (iso_ep != (h->packets > 0)))
		return reply(cam, h, -EPIPE, NULL, 0, NULL, 0);

	struct urb *u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->h = *h;
	if (h->packets > 0) {
		u->iso = malloc(sizeof(*u->iso) * (size_t)h->packets);
		if (!u->iso) {
			free(u);
			return -ENOMEM;
		}
		memcpy(u->iso, iso, sizeof(*u->iso) * (size_t)h->packets);
	}
	if (status) {
		queue_push(&cam->status_urbs, u);
		return send_status(cam);
	}
	queue_push(&cam->video_urbs, u);
	return serve_video(cam, now_ns);
}

uint64_t vcam_camera_deadline(const struct vcam_camera *cam)
{
	uint64_t t = cam->next_tick_ns;
	if (cam->held && cam->held->due_ns < t)
		t = cam->held->due_ns;
	if (cam->cfg.replay && cam->streaming && cam->video_urbs.head && replay_due_ns(cam) < t)
		t = replay_due_ns(cam);
	if (cam->streaming && cam->frames && cam->video_urbs.head && !cam->payload.in_frame &&
	    !cam->cfg.unpaced && !cam->paused) {
		uint64_t due = cam->stream_start_ns + cam->next_index * cam->interval_ns;
		if (due < t)
			t = due;
	}
	return t;
}

void vcam_camera_arm_request_faults(struct vcam_camera *cam, bool armed)
{
	if (!cam->cfg.request_faults || cam->faults_armed == armed)
		return;
	cam->faults_armed = armed;
	LOG("request faults %s\n", armed ? "armed" : "off");
}

void vcam_camera_pause(struct vcam_camera *cam, bool paused, uint64_t now_ns)
{
	if (cam->paused == paused)
		return;
	cam->paused = paused;
	/* resume with the next frame due now: a pause is not a host falling
	 * behind, so no frame counts as dropped */
	if (!paused && cam->streaming && cam->interval_ns)
		cam->stream_start_ns = now_ns - cam->next_index * cam->interval_ns;
	LOG("%s\n", paused ? "paused: no frames until resumed" : "resumed");
}

int vcam_camera_run(struct vcam_camera *cam, uint64_t now_ns)
{
	int held_err = send_held(cam, now_ns);
	if (held_err)
		return held_err;
	if (now_ns >= cam->next_tick_ns) {
		struct vcam_control_event events[8];
		size_t n = vcam_controls_tick(cam->controls, now_ns, events, 8);
		for (size_t i = 0; i < n; i++)
			queue_status_event(cam, &events[i]);
		if (cam->faults_armed && (cam->cfg.request_faults & VCAM_RF_STATUS_GARBAGE))
			queue_status_garbage(cam);
		cam->next_tick_ns = now_ns + CONTROL_TICK_NS;
		int err = send_status(cam);
		if (err)
			return err;
	}
	return serve_video(cam, now_ns);
}

static void power_on_state(struct vcam_camera *cam)
{
	cam->configuration = 0;
	cam->streaming_alt = 0;
	cam->video_halted = false;
	cam->committed = false;
	vcam_probe_default(cam->profile, &cam->probe);
	cam->commit = cam->probe;
	for (unsigned k = 0; cam->imp && k < cam->imp->n_secondary; k++)
		vcam_probe_default(&cam->imp->secondary[k].profile, &cam->secondary_probe[k]);
	cam->status_count = 0;
	cam->next_tick_ns = 0;
}

void vcam_camera_unplugged(struct vcam_camera *cam)
{
	stop_streaming(cam, "unplugged");
	queue_clear(&cam->video_urbs);
	queue_clear(&cam->status_urbs);
	held_free(cam);
	controls_reset(cam);
	power_on_state(cam);
}

struct vcam_camera *vcam_camera_new(const struct vcam_camera_config *cfg)
{
	struct vcam_camera *cam = calloc(1, sizeof(*cam));
	if (!cam)
		return NULL;
	cam->cfg = *cfg;
	cam->profile = cfg->profile;
	cam->imp = cfg->impersonate;
	if (cam->imp) {
		cam->profile = &cam->imp->profile;
		cam->if_control = cam->imp->vc_interface;
		cam->if_streaming = cam->imp->vs_interface;
		cam->ep_video = cam->imp->video_ep;
		cam->ep_status = cam->imp->status_ep;
		cam->config_value = cam->imp->config[5];
	} else {
		cam->if_control = VCAM_IF_CONTROL;
		cam->if_streaming = VCAM_IF_STREAMING;
		cam->ep_video = VCAM_EP_VIDEO;
		cam->ep_status = VCAM_EP_STATUS;
		cam->config_value = 1;
	}
	cam->probe_size = uvc_probe_size(cam->profile->bcd_uvc);
	cam->faults_armed = cfg->request_faults != 0;
	cam->garbage_seed = 0x9e3779b9u;
	queue_init(&cam->video_urbs);
	queue_init(&cam->status_urbs);
	controls_reset(cam);
	if (!cam->controls) {
		free(cam);
		return NULL;
	}
	cam->identity = (struct vcam_identity){
		.profile = cam->profile,
		.serial = cfg->serial,
		.ct_controls = vcam_controls_bitmap(cam->controls, VCAM_ENTITY_CAMERA),
		.pu_controls = vcam_controls_bitmap(cam->controls, VCAM_ENTITY_PROCESSING),
		.xu_controls = vcam_controls_bitmap(cam->controls, VCAM_ENTITY_EXTENSION),
		.xu_count = (uint8_t)vcam_controls_xu_count(cam->controls),
		.xu_guid = cfg->msxu ? vcam_msxu_guid : vcam_xu_guid,
		.color_primaries = cfg->color_primaries,
	};
	power_on_state(cam);
	return cam;
}

void vcam_camera_free(struct vcam_camera *cam)
{
	if (!cam)
		return;
	queue_clear(&cam->video_urbs);
	queue_clear(&cam->status_urbs);
	held_free(cam);
	vcam_controls_free(cam->controls);
	vcam_xu_store_free(cam->units);
	free(cam->scratch);
	free(cam->corrupt);
	free(cam);
}

void vcam_camera_stats(const struct vcam_camera *cam, struct vcam_camera_stats *out)
{
	*out = cam->stats;
}

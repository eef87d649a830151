/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One uvcuse node as a PipeWire Video/Source node (camera.h): the
 * pw_stream published with the node's modes, its events (a format
 * negotiated, buffers added and removed, the graph's process cycle, state
 * changes), and a fresh node published after an error. What the node is
 * comes from camera_probe.c, the streaming itself from camera_stream.c. */
#include "camera.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>
#include <spa/buffer/meta.h>
#include <spa/param/buffers.h>
#include <spa/param/video/format-utils.h>

#include "camera_priv.h"
#include "core/log.h"

void camera_arm_ms(struct pw_loop *loop, struct spa_source *timer, unsigned ms)
{
	struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	pw_loop_update_timer(loop, timer, &t, NULL, false);
}

/* A fresh node after revive_ms, later and later while publishing keeps
 * failing. */
static void schedule_revive(struct bridge_camera *c)
{
	camera_arm_ms(c->loop, c->revive, c->revive_ms);
	c->revive_ms = c->revive_ms * 2 > REVIVE_MAX_MS ? REVIVE_MAX_MS : c->revive_ms * 2;
}

/* --- the pw_stream's events -------------------------------------------- */

/* The add_buffer event hands each buffer's block with the types the
 * consumers agreed on as a mask; one is chosen there. A dma-buf where they
 * take one: PipeWire's convention for a camera's dma-bufs (as its v4l2
 * source gives VIDIOC_EXPBUF's): no modifier negotiated, the producer
 * chooses DmaBuf only for memory it knows mmap reads (udmabuf's is a
 * memfd's pages); a memfd otherwise. */
static uint32_t buffer_types(const struct bridge_camera *c)
{
	return (1u << SPA_DATA_MemFd) | (c->dmabufs ? 1u << SPA_DATA_DmaBuf : 0);
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param)
{
	struct bridge_camera *c = data;
	if (id != SPA_PARAM_Format)
		return;
	if (!param) {
		/* no consumer any more: let the camera go */
		camera_release_node(c);
		return;
	}
	struct bridge_mode m;
	if (bridge_mode_from_format(param, &m) < 0) {
		pw_stream_set_error(c->stream, -EINVAL, "not a format this camera offers");
		return;
	}
	if (bridge_modes_find(&c->modes, &m) < 0 && m.fourcc == V4L2_PIX_FMT_MJPEG) {
		/* SPA has one name for both: the camera's own is JPEG */
		m.fourcc = V4L2_PIX_FMT_JPEG;
		if (bridge_modes_find(&c->modes, &m) < 0)
			m.fourcc = V4L2_PIX_FMT_MJPEG;
	}
	int err = camera_configure(c, &m);
	if (err < 0) {
		camera_fail_stream(c, err, "setting the format");
		return;
	}
	uint8_t space[1024];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(space, sizeof(space));
	const struct spa_pod *params[2];
	params[0] = spa_pod_builder_add_object(
		&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers, SPA_PARAM_BUFFERS_buffers,
		SPA_POD_CHOICE_RANGE_Int((int)c->n_bufs, 1, (int)c->n_bufs),
		SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1), SPA_PARAM_BUFFERS_size,
		SPA_POD_Int((int)c->sizeimage), SPA_PARAM_BUFFERS_stride,
		SPA_POD_Int((int)c->bytesperline), SPA_PARAM_BUFFERS_dataType,
		SPA_POD_CHOICE_FLAGS_Int(buffer_types(c)));
	params[1] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
					       SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
					       SPA_PARAM_META_size,
					       SPA_POD_Int(sizeof(struct spa_meta_header)));
	pw_stream_update_params(c->stream, params, 2);
}

static void on_add_buffer(void *data, struct pw_buffer *pwb)
{
	struct bridge_camera *c = data;
	struct spa_data *block = &pwb->buffer->datas[0];
	bool dmabuf = c->dmabufs && (block->type & (1u << SPA_DATA_DmaBuf));
	pwb->user_data = NULL;
	for (unsigned i = 0; i < c->n_bufs; i++) {
		struct camera_buf *b = &c->bufs[i];
		if (b->pwb || b->memfd < 0 || b->owner == OWNER_NODE)
			continue;
		b->pwb = pwb;
		b->owner = OWNER_PIPEWIRE;
		pwb->user_data = b;
		block->type = dmabuf ? SPA_DATA_DmaBuf : SPA_DATA_MemFd;
		c->gave_dmabufs = dmabuf;
		block->flags = SPA_DATA_FLAG_READABLE;
		block->fd = dmabuf ? b->dmabuf : b->memfd;
		block->mapoffset = 0;
		block->maxsize = b->length;
		block->data = NULL; /* never touched here: the daemon writes, consumers read */
		return;
	}
	log_warn("%s: PipeWire wants more buffers than the node gave (%u)", c->path, c->n_bufs);
}

static void on_remove_buffer(void *data, struct pw_buffer *pwb)
{
	(void)data;
	struct camera_buf *b = pwb->user_data;
	if (b && b->pwb == pwb) {
		b->pwb = NULL;
		/* one still queued to the node stays so until DQBUF or STREAMOFF */
		if (b->owner != OWNER_NODE)
			b->owner = OWNER_PIPEWIRE;
	}
}

static void on_process(void *data)
{
	camera_take_free_buffers(data);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state,
			     const char *error)
{
	struct bridge_camera *c = data;
	(void)old;
	log_debug("%s: stream %s%s%s", c->path, pw_stream_state_as_string(state),
		  error ? ": " : "", error ? error : "");
	if (state == PW_STREAM_STATE_PAUSED && !c->in_graph) {
		/* only now is the node in PipeWire's registry, where the
		 * session manager and the portal see it */
		c->in_graph = true;
		log_info("%s: published as PipeWire node %s (id %u, \"%s\", %u modes)", c->path,
			 c->name, pw_stream_get_node_id(c->stream), c->card, (unsigned)c->modes.n);
	}
	if (state == PW_STREAM_STATE_STREAMING) {
		camera_start_stream(c);
		return;
	}
	camera_stop_stream(c);
	if (state == PW_STREAM_STATE_ERROR) {
		/* this stream is dead; a fresh node serves the next consumer */
		schedule_revive(c);
	}
}

static const struct pw_stream_events stream_events = {
	PW_VERSION_STREAM_EVENTS,
	.state_changed = on_state_changed,
	.param_changed = on_param_changed,
	.add_buffer = on_add_buffer,
	.remove_buffer = on_remove_buffer,
	.process = on_process,
};

static int publish(struct bridge_camera *c)
{
	struct pw_properties *props = pw_properties_new(
		PW_KEY_MEDIA_CLASS, "Video/Source", PW_KEY_MEDIA_ROLE, "Camera",
		PW_KEY_MEDIA_CATEGORY, "Capture", PW_KEY_NODE_NAME, c->name,
		PW_KEY_NODE_DESCRIPTION, c->card, PW_KEY_NODE_NICK, c->card,
		PW_KEY_MEDIA_NAME, c->card, PW_KEY_OBJECT_PATH, c->path, "api.v4l2.path",
		c->path, "device.api", "v4l2", NULL);
	if (!props)
		return -ENOMEM;
	if (c->vendor[0])
		pw_properties_setf(props, PW_KEY_DEVICE_VENDOR_ID, "0x%s", c->vendor);
	if (c->product[0])
		pw_properties_setf(props, PW_KEY_DEVICE_PRODUCT_ID, "0x%s", c->product);
	if (c->serial[0])
		pw_properties_set(props, PW_KEY_DEVICE_SERIAL, c->serial);
	c->in_graph = false;
	c->stream = pw_stream_new(c->core, c->card, props);
	if (!c->stream)
		return -errno;
	pw_stream_add_listener(c->stream, &c->listener, &stream_events, c);
	/* one fixed format per mode; ~100 bytes each */
	size_t cap = c->modes.n * 160 + 256;
	uint8_t *space = malloc(cap);
	const struct spa_pod **params = calloc(c->modes.n, sizeof(*params));
	int err = -ENOMEM;
	if (space && params) {
		struct spa_pod_builder b = SPA_POD_BUILDER_INIT(space, (uint32_t)cap);
		uint32_t n = 0;
		for (size_t i = 0; i < c->modes.n; i++) {
			const struct spa_pod *p = bridge_mode_enum_format(&b, &c->modes.v[i]);
			if (p)
				params[n++] = p;
		}
		err = pw_stream_connect(c->stream, PW_DIRECTION_OUTPUT, PW_ID_ANY,
					PW_STREAM_FLAG_DRIVER | PW_STREAM_FLAG_ALLOC_BUFFERS,
					params, n);
		if (err >= 0)
			log_debug("%s: publishing %s with %u formats", c->path, c->name, n);
	}
	free(space);
	free(params);
	return err < 0 ? err : 0;
}

static void unpublish(struct bridge_camera *c)
{
	if (!c->stream)
		return;
	spa_hook_remove(&c->listener);
	camera_release_node(c);
	pw_stream_destroy(c->stream);
	c->stream = NULL;
}

static void on_revive(void *data, uint64_t expirations)
{
	struct bridge_camera *c = data;
	(void)expirations;
	unpublish(c);
	int err = publish(c);
	if (err < 0) {
		log_warn("%s: publishing again: %s; next try in %u ms", c->path, strerror(-err),
			 c->revive_ms);
		schedule_revive(c);
	}
}

int bridge_camera_new(struct pw_core *core, struct pw_loop *loop, const char *path,
		      struct bridge_camera **out)
{
	struct bridge_camera *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = -1;
	c->core = core;
	c->loop = loop;
	snprintf(c->path, sizeof(c->path), "%s", path);
	for (unsigned i = 0; i < CAMERA_BUFFERS; i++)
		c->bufs[i] = (struct camera_buf){ .memfd = -1, .dmabuf = -1 };
	int err = camera_probe(c);
	if (err < 0) {
		if (err == -EACCES || err == -ENOTTY || err == -EPERM)
			log_debug("%s: not published: %s", path, strerror(-err));
		else
			log_warn("%s: not published: %s", path, strerror(-err));
		bridge_modes_clear(&c->modes);
		free(c);
		return err;
	}
	c->revive_ms = REVIVE_MS;
	c->revive = pw_loop_add_timer(loop, on_revive, c);
	c->starved = pw_loop_add_timer(loop, camera_on_starved, c);
	err = c->revive && c->starved ? publish(c) : -ENOMEM;
	if (err < 0) {
		log_warn("%s: publishing: %s", path, strerror(-err));
		bridge_camera_free(c);
		return err;
	}
	*out = c;
	return 0;
}

void bridge_camera_free(struct bridge_camera *c)
{
	if (!c)
		return;
	unpublish(c);
	if (c->revive)
		pw_loop_destroy_source(c->loop, c->revive);
	if (c->starved)
		pw_loop_destroy_source(c->loop, c->starved);
	log_info("%s: node removed", c->path);
	bridge_modes_clear(&c->modes);
	free(c);
}

const char *bridge_camera_path(const struct bridge_camera *c)
{
	return c->path;
}

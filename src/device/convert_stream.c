/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The converted stream: native buffer slots, the pool's eventfd on the
 * loop, and the hand-back of converted frames. */
#include "device/convert_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "convert/pool.h"
#include "core/log.h"
#include "core/loop.h"

/* One native frame buffer; while busy it belongs to a queued or running
 * job and only the job's thread touches its bytes. */
struct slot {
	uint8_t *mem;
	size_t cap;
	bool busy;
	void *dst_cookie;
	struct convert_frame_meta meta;
};

struct convert_stream {
	struct loop *loop;
	unsigned threads; /* asked for; 0: one per core */
	convert_stream_done_fn *done;
	void *data;
	struct convert_pool *pool; /* created by the first start */
	bool running;
	uint32_t src, dst;
	unsigned width, height;
	struct slot *slots;
	unsigned n_slots;
	unsigned outstanding; /* submitted, not yet collected */
};

static struct slot *slot_of(struct convert_stream *cs, const uint8_t *mem)
{
	for (unsigned i = 0; i < cs->n_slots; i++)
		if (cs->slots[i].mem == mem)
			return &cs->slots[i];
	return NULL;
}

/* Collected jobs, oldest first; cancel: report them as -ECANCELED. */
static void collect(struct convert_stream *cs, bool cancel)
{
	struct convert_job job;
	while (convert_pool_collect(cs->pool, &job)) {
		struct slot *s = job.cookie;
		s->busy = false;
		cs->outstanding--;
		struct convert_frame_meta meta = s->meta;
		/* the slot is free before done() runs: it may give it to the
		 * assembler at once */
		cs->done(cs->data, s->dst_cookie, cancel ? -ECANCELED : job.result, &meta);
	}
}

static void on_pool(void *data, uint32_t events)
{
	(void)events;
	struct convert_stream *cs = data;
	collect(cs, false);
}

struct convert_stream *convert_stream_new(struct loop *loop, unsigned threads,
					  convert_stream_done_fn *done, void *data)
{
	struct convert_stream *cs = calloc(1, sizeof(*cs));
	if (!cs)
		return NULL;
	cs->loop = loop;
	cs->threads = threads;
	cs->done = done;
	cs->data = data;
	return cs;
}

static void free_slots(struct convert_stream *cs)
{
	for (unsigned i = 0; i < cs->n_slots; i++)
		free(cs->slots[i].mem);
	free(cs->slots);
	cs->slots = NULL;
	cs->n_slots = 0;
}

void convert_stream_free(struct convert_stream *cs)
{
	if (!cs)
		return;
	convert_stream_stop(cs);
	if (cs->pool) {
		loop_remove(cs->loop, convert_pool_fd(cs->pool));
		convert_pool_free(cs->pool);
	}
	free(cs);
}

int convert_stream_start(struct convert_stream *cs, uint32_t src_fourcc, uint32_t dst_fourcc,
			 unsigned width, unsigned height, size_t native_size)
{
	convert_stream_stop(cs);
	if (!cs->pool) {
		struct convert_pool *pool = convert_pool_new(cs->threads);
		if (!pool)
			return -errno;
		int err = loop_add(cs->loop, convert_pool_fd(pool), EPOLLIN, on_pool, cs);
		if (err) {
			convert_pool_free(pool);
			return err;
		}
		cs->pool = pool;
		log_info("conversion: %u worker threads", convert_pool_threads(pool));
	}
	unsigned n = convert_pool_threads(cs->pool) + 2;
	cs->slots = calloc(n, sizeof(*cs->slots));
	if (!cs->slots)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		cs->slots[i].mem = malloc(native_size ? native_size : 1);
		cs->slots[i].cap = native_size;
		cs->n_slots = i + 1;
		if (!cs->slots[i].mem) {
			free_slots(cs);
			return -ENOMEM;
		}
	}
	cs->src = src_fourcc;
	cs->dst = dst_fourcc;
	cs->width = width;
	cs->height = height;
	cs->running = true;
	return 0;
}

void convert_stream_stop(struct convert_stream *cs)
{
	if (!cs->running)
		return;
	cs->running = false;
	convert_pool_drain(cs->pool);
	collect(cs, true);
	free_slots(cs);
}

bool convert_stream_running(const struct convert_stream *cs)
{
	return cs->running;
}

bool convert_stream_busy(const struct convert_stream *cs)
{
	return cs->outstanding > 0;
}

uint8_t *convert_stream_native(struct convert_stream *cs, size_t *cap)
{
	for (unsigned i = 0; cs->running && i < cs->n_slots; i++)
		if (!cs->slots[i].busy) {
			cs->slots[i].busy = true;
			*cap = cs->slots[i].cap;
			return cs->slots[i].mem;
		}
	return NULL;
}

void convert_stream_unused(struct convert_stream *cs, uint8_t *native)
{
	struct slot *s = slot_of(cs, native);
	if (s)
		s->busy = false;
}

int convert_stream_submit(struct convert_stream *cs, uint8_t *native, size_t len, uint8_t *dst,
			  size_t dst_cap, void *dst_cookie, const struct convert_frame_meta *meta)
{
	struct slot *s = slot_of(cs, native);
	if (!s || !cs->running)
		return -EINVAL;
	s->dst_cookie = dst_cookie;
	s->meta = *meta;
	struct convert_job job = {
		.src_fourcc = cs->src,
		.dst_fourcc = cs->dst,
		.width = cs->width,
		.height = cs->height,
		.src = native,
		.src_len = len,
		.dst = dst,
		.dst_cap = dst_cap,
		.cookie = s,
	};
	int err = convert_pool_submit(cs->pool, &job);
	if (err) {
		s->busy = false;
		return err;
	}
	cs->outstanding++;
	return 0;
}

unsigned convert_stream_threads(const struct convert_stream *cs)
{
	return cs->pool ? convert_pool_threads(cs->pool) : 0;
}

unsigned convert_stream_slots(const struct convert_stream *cs)
{
	return cs->n_slots;
}

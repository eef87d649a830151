/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frame cache: one worker thread that draws what was asked for, at a lower
 * priority than the camera's loop; entries published with release/acquire. */
#include "frame_cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

struct entry {
	enum vcam_pixel pixel;
	unsigned width, height;
	struct vcam_frames *frames;
	int error;          /* written before `done` is published */
	bool requested;     /* under the lock */
	atomic_bool done;
};

struct vcam_frame_cache {
	struct entry entries[VCAM_MAX_FORMATS * VCAM_MAX_FRAMES];
	size_t n;
	const char *h264_file;
	int efd;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;          /* under the lock */
	pthread_t worker;
	bool started;
};

static void draw(struct vcam_frame_cache *c, struct entry *e)
{
	e->frames = vcam_frames_new(e->pixel, e->width, e->height, 0);
	if (!e->frames) {
		e->error = errno;
		return;
	}
	int err = 0;
	if (e->pixel == VCAM_PIXEL_H264)
		err = c->h264_file ? vcam_frames_set_h264_file(e->frames, c->h264_file) : -ENOENT;
	if (!err)
		err = vcam_frames_prepare(e->frames);
	if (err) {
		vcam_frames_free(e->frames);
		e->frames = NULL;
		e->error = -err;
	}
}

static struct entry *next_request(struct vcam_frame_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->entries[i].requested && !atomic_load(&c->entries[i].done))
			return &c->entries[i];
	return NULL;
}

static void *worker(void *arg)
{
	struct vcam_frame_cache *c = arg;
	/* Drawing yields to the loop that serves the host. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct entry *e = NULL;
		while (!c->stop && !(e = next_request(c)))
			pthread_cond_wait(&c->wake, &c->lock);
		if (c->stop)
			break;
		pthread_mutex_unlock(&c->lock);
		draw(c, e);
		atomic_store_explicit(&e->done, true, memory_order_release);
		uint64_t one = 1;
		if (write(c->efd, &one, sizeof(one)) < 0)
			perror("vcam: frame cache eventfd");
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct vcam_frame_cache *vcam_frame_cache_new(const struct vcam_profile *p, const char *h264_file)
{
	struct vcam_frame_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->h264_file = h264_file;
	for (unsigned f = 0; f < p->n_formats; f++)
		for (unsigned s = 0; s < p->formats[f].n_frames; s++) {
			struct entry *e = &c->entries[c->n++];
			e->pixel = p->formats[f].pixel;
			e->width = p->formats[f].frames[s].width;
			e->height = p->formats[f].frames[s].height;
		}
	/* The default format is what a host streams first: draw it right away. */
	if (c->n)
		c->entries[0].requested = true;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	c->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	int err = c->efd < 0 ? errno : pthread_create(&c->worker, NULL, worker, c);
	if (err) {
		if (c->efd >= 0)
			close(c->efd);
		free(c);
		errno = err;
		return NULL;
	}
	c->started = true;
	return c;
}

int vcam_frame_cache_fd(const struct vcam_frame_cache *c)
{
	return c->efd;
}

void vcam_frame_cache_ack(struct vcam_frame_cache *c)
{
	uint64_t n;
	if (read(c->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		perror("vcam: frame cache eventfd");
}

struct vcam_frames *vcam_frame_cache_get(struct vcam_frame_cache *c, enum vcam_pixel pixel,
					 unsigned width, unsigned height)
{
	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = &c->entries[i];
		if (e->pixel != pixel || e->width != width || e->height != height)
			continue;
		if (!atomic_load_explicit(&e->done, memory_order_acquire)) {
			pthread_mutex_lock(&c->lock);
			e->requested = true;
			pthread_cond_signal(&c->wake);
			pthread_mutex_unlock(&c->lock);
			errno = EAGAIN;
			return NULL;
		}
		if (!e->frames)
			errno = e->error;
		return e->frames;
	}
	errno = EINVAL;
	return NULL;
}

void vcam_frame_cache_free(struct vcam_frame_cache *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	if (c->started)
		pthread_join(c->worker, NULL);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->wake);
	for (size_t i = 0; i < c->n; i++)
		vcam_frames_free(c->entries[i].frames);
	close(c->efd);
	free(c);
}

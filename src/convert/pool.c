/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The worker pool: one mutex-guarded FIFO of jobs; workers take the oldest
 * queued one; the loop collects from the head only when it is done. */
#include "convert/pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "convert/converter.h"

enum job_state { JOB_QUEUED, JOB_RUNNING, JOB_DONE };

struct entry {
	struct convert_job job;
	enum job_state state;
	struct entry *next;
};

struct worker {
	struct convert_pool *pool;
	struct converter *conv;
	pthread_t thread;
	bool started;
};

struct convert_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;  /* a job was queued, or stop */
	pthread_cond_t idle;  /* a job finished */
	struct entry *head, *tail;
	unsigned running;
	bool stop;
	int efd;
	unsigned n_workers;
	struct worker *workers;
};

static struct entry *first_queued(struct convert_pool *p)
{
	for (struct entry *e = p->head; e; e = e->next)
		if (e->state == JOB_QUEUED)
			return e;
	return NULL;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct convert_pool *p = w->pool;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct entry *e = NULL;
		while (!p->stop && !(e = first_queued(p)))
			pthread_cond_wait(&p->work, &p->lock);
		if (p->stop)
			break;
		e->state = JOB_RUNNING;
		p->running++;
		struct convert_job job = e->job;
		pthread_mutex_unlock(&p->lock);
		long r = converter_run(w->conv, job.src_fourcc, job.width, job.height, job.src,
				       job.src_len, job.dst_fourcc, job.dst, job.dst_cap);
		pthread_mutex_lock(&p->lock);
		e->job.result = r;
		e->state = JOB_DONE;
		p->running--;
		pthread_cond_broadcast(&p->idle);
		uint64_t one = 1;
		/* A full counter (2^64 - 2) cannot happen; the loop reads it. */
		(void)!write(p->efd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct convert_pool *convert_pool_new(unsigned threads)
{
	if (threads == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		threads = n > 0 ? (unsigned)n : 1;
	}
	struct convert_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->efd = -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->idle, NULL);
	p->workers = calloc(threads, sizeof(*p->workers));
	p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!p->workers || p->efd < 0)
		goto fail;
	for (unsigned i = 0; i < threads; i++) {
		struct worker *w = &p->workers[i];
		w->pool = p;
		w->conv = converter_new();
		p->n_workers = i + 1;
		if (!w->conv)
			goto fail;
		int err = pthread_create(&w->thread, NULL, worker_main, w);
		if (err) {
			errno = err;
			goto fail;
		}
		w->started = true;
	}
	return p;
fail: {
	int saved = errno ? errno : ENOMEM;
	convert_pool_free(p);
	errno = saved;
	return NULL;
}
}

void convert_pool_free(struct convert_pool *p)
{
	if (!p)
		return;
	convert_pool_drain(p);
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->n_workers; i++) {
		if (p->workers[i].started)
			pthread_join(p->workers[i].thread, NULL);
		converter_free(p->workers[i].conv);
	}
	while (p->head) {
		struct entry *e = p->head;
		p->head = e->next;
		free(e);
	}
	if (p->efd >= 0)
		close(p->efd);
	free(p->workers);
	pthread_cond_destroy(&p->idle);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

unsigned convert_pool_threads(const struct convert_pool *p)
{
	return p->n_workers;
}

int convert_pool_fd(const struct convert_pool *p)
{
	return p->efd;
}

int convert_pool_submit(struct convert_pool *p, const struct convert_job *job)
{
	struct entry *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->job = *job;
	e->state = JOB_QUEUED;
	pthread_mutex_lock(&p->lock);
	if (p->tail)
		p->tail->next = e;
	else
		p->head = e;
	p->tail = e;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

bool convert_pool_collect(struct convert_pool *p, struct convert_job *out)
{
	pthread_mutex_lock(&p->lock);
	struct entry *e = p->head;
	bool ready = e && e->state == JOB_DONE;
	if (ready) {
		p->head = e->next;
		if (!p->head)
			p->tail = NULL;
	} else {
		uint64_t count;
		(void)!read(p->efd, &count, sizeof(count)); /* re-armed by the next finish */
	}
	pthread_mutex_unlock(&p->lock);
	if (!ready)
		return false;
	*out = e->job;
	free(e);
	return true;
}

void convert_pool_drain(struct convert_pool *p)
{
	pthread_mutex_lock(&p->lock);
	for (struct entry *e = p->head; e; e = e->next)
		if (e->state == JOB_QUEUED) {
			e->state = JOB_DONE;
			e->job.result = -ECANCELED;
		}
	while (p->running)
		pthread_cond_wait(&p->idle, &p->lock);
	uint64_t one = 1;
	(void)!write(p->efd, &one, sizeof(one));
	pthread_mutex_unlock(&p->lock);
}

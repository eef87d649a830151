/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The conversion worker pool: N threads, each with its own converter
 * (libv4lconvert and libjpeg state are per thread), converting jobs the
 * loop thread submits. Finished jobs are collected on the loop thread in
 * submission order, so frames complete in order however the threads race.
 * The only fd is an eventfd counter the loop polls; no other I/O. */
#ifndef UVCUSE_CONVERT_POOL_H
#define UVCUSE_CONVERT_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct convert_job {
	uint32_t src_fourcc, dst_fourcc;
	unsigned width, height;
	const uint8_t *src; /* the assembled native frame; must live until collected */
	size_t src_len;
	uint8_t *dst;       /* the app's buffer: written straight */
	size_t dst_cap;
	void *cookie;       /* the caller's (its buffer) */
	long result;        /* collected: converter_run()'s, or -ECANCELED */
};

struct convert_pool;

/* threads 0: one per online core. NULL + errno (ENOMEM, EMFILE, ...). */
struct convert_pool *convert_pool_new(unsigned threads);
/* Drops queued jobs, waits for running ones, joins the threads. */
void convert_pool_free(struct convert_pool *p);

unsigned convert_pool_threads(const struct convert_pool *p);
/* Readable while a collected job may be ready (eventfd, non-blocking). */
int convert_pool_fd(const struct convert_pool *p);

/* Queues a copy of job. 0 or -ENOMEM. */
int convert_pool_submit(struct convert_pool *p, const struct convert_job *job);
/* The oldest submitted job if it is finished (result set): true and *out;
 * false when it is still queued or running, or none is left. Clears the
 * eventfd when it returns false. */
bool convert_pool_collect(struct convert_pool *p, struct convert_job *out);
/* Cancels queued jobs (result -ECANCELED) and waits until none runs: after
 * it, no thread touches any job's buffers (for STREAMOFF/REQBUFS). The jobs
 * are still collected, in order. */
void convert_pool_drain(struct convert_pool *p);

#endif

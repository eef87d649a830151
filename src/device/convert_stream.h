/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A converted stream on the loop: the camera's native frames are assembled
 * into this stream's own buffers, converted on the worker pool
 * (convert/pool) straight into the app's queue buffers, and handed back on
 * the loop thread in the order they were submitted. The loop thread never
 * decodes; the only copy is the conversion itself. */
#ifndef UVCUSE_CONVERT_STREAM_H
#define UVCUSE_CONVERT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

struct loop;
struct convert_stream;

/* What the native frame carried, returned with its converted frame. */
struct convert_frame_meta {
	uint32_t sequence;
	uint32_t flags; /* V4L2_BUF_FLAG_* to pass on */
	struct timeval timestamp;
};

/* Called on the loop thread for each submitted frame, in submission
 * order: dst_cookie as given to convert_stream_submit, and the bytes
 * written into its buffer, or -EBADMSG (the frame does not decode),
 * -ECANCELED (convert_stream_stop), another -errno. */
typedef void convert_stream_done_fn(void *data, void *dst_cookie, long result,
				    const struct convert_frame_meta *meta);

/* threads 0: one per online core. The worker threads start with the
 * first convert_stream_start. NULL + errno. */
struct convert_stream *convert_stream_new(struct loop *loop, unsigned threads,
					  convert_stream_done_fn *done, void *data);
void convert_stream_free(struct convert_stream *cs);

/* Begins converting native frames of src_fourcc, width x height, at most
 * native_size bytes, into dst_fourcc: allocates the native buffers (one
 * per thread and two more, so the camera never waits for a free one while
 * the threads keep up). 0, -ENOMEM, or -errno of the pool. */
int convert_stream_start(struct convert_stream *cs, uint32_t src_fourcc, uint32_t dst_fourcc,
			 unsigned width, unsigned height, size_t native_size);
/* Cancels queued conversions and waits for running ones: afterwards no
 * thread touches any app buffer. done() runs for every frame still
 * outstanding, with -ECANCELED, before it returns. Frees the native
 * buffers. Does nothing when not started. */
void convert_stream_stop(struct convert_stream *cs);
bool convert_stream_running(const struct convert_stream *cs);
/* Whether a frame is being converted or waits to be collected. */
bool convert_stream_busy(const struct convert_stream *cs);

/* A free native buffer for the assembler (cap: its size), or NULL when
 * every one holds a frame being converted. */
uint8_t *convert_stream_native(struct convert_stream *cs, size_t *cap);
/* A native buffer the assembler gave back unused. */
void convert_stream_unused(struct convert_stream *cs, uint8_t *native);
/* A native frame of len bytes is complete in native: convert it into dst
 * (dst_cap bytes, the app's buffer). 0, or -ENOMEM (nothing queued; the
 * native buffer is free again). */
int convert_stream_submit(struct convert_stream *cs, uint8_t *native, size_t len, uint8_t *dst,
			  size_t dst_cap, void *dst_cookie, const struct convert_frame_meta *meta);

/* How many native buffers the running stream has. */
unsigned convert_stream_slots(const struct convert_stream *cs);
/* For LOG_STATUS. */
unsigned convert_stream_threads(const struct convert_stream *cs);

#endif

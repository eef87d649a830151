/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to src/device/: the device's state and what its files offer
 * each other, one section per file (see README.md for what each holds). */
#ifndef UVCUSE_DEVICE_INTERNAL_H
#define UVCUSE_DEVICE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <linux/videodev2.h>

#include "core/process.h"
#include "cuse/ioctl_table.h"
#include "device/convert_stream.h"
#include "device/device.h"
#include "uvc/stamper.h"
#include "uvc/metadata.h"
#include "uvc/payload.h"
#include "v4l2/meta_node.h"
#include "v4l2/node.h"

struct bufshare;
struct channel;
struct chan_ring;
struct cuse_file;
struct cuse_req;
struct cuse_server;
struct loop;
struct settings_store;
struct usb_camera;
struct usb_ctrl_req;
struct usb_ctx;

/* A request waiting for a frame or an event: a blocking DQBUF, the first
 * chunk of a blocking read(), a blocking DQEVENT. */
struct parked {
	struct cuse_req *req;   /* NULL: a fast-path request, answered on chan */
	struct channel *chan;
	bool is_read;
	bool streamon;          /* a STREAMON: answered once the camera took the commit */
	bool staged;            /* UVCUSE_IOC_DQBUF_STAGED: no frame bytes in the reply */
	unsigned int cmd;
	union { /* the ioctl's argument as the app sent it */
		struct v4l2_buffer buf;
		struct v4l2_event ev;
	} arg;
	size_t size;            /* read() chunk size */
	struct parked *next;
};

/* A converted stream's finished native frame waiting for an app buffer. */
#define HELD_MAX 8
struct held_frame {
	uint8_t *native;
	size_t len;
	struct convert_frame_meta meta;
};

/* A process the camera's frames go to (device_frames.c): node_proc p's
 * queue, fed natively or through its own converter. */
struct dev_consumer {
	struct device *dev;
	struct node_proc *proc;
	/* its format is converted: the assembler (or a copy of its frame)
	 * fills conv's native buffers, whose threads convert into the queue */
	struct convert_stream *conv;
	bool converting;          /* conv started for the running stream */
	bool conv_discard;        /* cancelled conversions: do not touch the queue */
	struct held_frame held[HELD_MAX]; /* finished, waiting for an app buffer */
	unsigned n_held;
	uint64_t seq_base;        /* the camera's sequence when it joined */
	uint64_t frames, missed;  /* frames it got; lost for want of a buffer */
	bool shared;              /* another process streamed beside it */
	struct dev_consumer *next;
};

/* What the assembler writes into: one consumer's queue buffer or native
 * buffer (no copy for it), or, when no consumer has a buffer ready, the
 * device's own fan-out buffer whose frames are copied to every consumer.
 * With several consumers an app's buffer comes with the fan-out buffer as
 * its mirror: the others' copies come from there, never from memory an
 * app maps. */
enum given_kind { GIVEN_NONE, GIVEN_APP, GIVEN_NATIVE, GIVEN_FAN };
struct frames_given {
	enum given_kind kind;
	struct dev_consumer *c;   /* APP, NATIVE */
	struct vq_buffer *b;      /* APP */
	uint8_t *mem;
	size_t cap;
	bool mirrored;            /* APP: the fan-out buffer is its mirror */
};

/* A request that needs the camera (node_uses_camera): an app's ioctl, or a
 * control change from the status endpoint. One runs at a time (it owns the
 * node's call until it answers); the others wait in line, in order. Each
 * run starts from the argument as it came (orig), in a copy of its own
 * (work): the CUSE request may be answered early (interrupted) while the
 * call goes on to its end, as the camera has its requests already. */
struct camera_call {
	struct dev_file *df;      /* NULL: a status event */
	struct cuse_req *req;     /* NULL: answered already, or a status event */
	bool parked;              /* registered for interruption */
	unsigned int cmd;
	size_t arg_size, extra_len;
	void *req_arg, *req_extra; /* the CUSE request's buffers (while req) */
	uint8_t *orig, *work;     /* arg_size + extra_len bytes each */
	uint8_t originator, selector; /* status event: the control and its value */
	uint8_t value[64];
	size_t value_len;
	struct camera_call *next;
};

/* Fast-path channels one open file may have (one per process using it
 * through the preload library); more go through CUSE. */
#define DEV_FILE_CHANNELS 8

struct dev_file {
	struct device *dev;
	struct channel *chans[DEV_FILE_CHANNELS];
	struct chan_ring *rings[DEV_FILE_CHANNELS]; /* chans[i]'s ring, or NULL */
	struct cuse_file *cuse;   /* NULL once released while its call ran on */
	struct process_id opener; /* who opened it (device_limits), */
	uid_t uid;                /* and as which user */
	bool releasing;           /* released: freed when its call ends */
	struct node_file nf;
	struct parked *parked;
	struct dev_file *next;
	bool warned_userptr;
	/* For the hint that MMAP needs uvcuse-run: who queried MMAP buffers
	 * (pid and command, read at the first QUERYBUF while the process
	 * surely lives) and whether the preload library fetched any. */
	pid_t mmap_pid;
	char mmap_comm[32];
	bool fetched_buffers;
};

/* The files open on the node (requests.c). */
struct dev_files {
	struct dev_file *list;
	unsigned count;
	struct device_limits limits; /* what a process or user may hold */
	pid_t hinted_pid; /* the last process told that MMAP needs uvcuse-run */
	/* the node said waiting requests may get another answer
	 * (node_ops.waiters_changed): they run again after the current one */
	bool wake_due;
};

/* The preload library's buffer socket (fastpath.c, streaming.c). */
struct dev_share {
	struct bufshare *bufshare; /* NULL: no socket, HELLO is ENOTTY */
	bool warned;               /* its permissions could not follow the node */
	int udmabuf;               /* /dev/udmabuf, or -errno (EXPBUF) */
};

/* The camera's stream (streaming.c): the commit, its health, its numbers. */
struct dev_stream {
	bool failed;
	/* the stream starts once the camera took the commit, on the wire
	 * meanwhile (STREAMON waits for it, as uvcvideo's does) */
	struct usb_ctrl_req *committing;
	struct uvc_probe commit_probe;
	/* Sequence numbers go on across a replug, jumping by the frames the
	 * camera would have sent meanwhile: the assembler's count plus this. */
	uint64_t seq_offset, next_sequence;
	/* the counters when the stream (re)started by a STREAMON began */
	uint64_t frames0, errors0;
};

/* Frames to the processes streaming (frames.c). */
struct dev_frames {
	struct uvc_assembler assembler;
	struct frames_given given;
	struct dev_consumer *consumers; /* the processes streaming */
	uint8_t *fan_buf;        /* several consumers: frames assembled here */
	size_t fan_cap;
	/* the assembler's frames_no_buffer already put down to a consumer */
	uint64_t no_buffer_seen;
	unsigned convert_threads;
	unsigned last_convert_threads; /* of the last converter that stopped */
	/* the node queued buffers (node_ops.buffer_queued): they reach the
	 * assembler and the converters when the request or frame is done */
	bool buffers_due;
	/* the frames' timestamps: from the camera's clock (fed with the SCR of
	 * every transfer) when camera_clock is set and it can say */
	struct uvc_stamper stamper;
	bool camera_clock;
	bool drop_errored; /* device_config.drop_errored */
};

/* What LOG_STATUS and --status count. */
struct dev_counters {
	uint64_t frames, frames_error;
	/* frames lost after assembly (a conversion that could not start); the
	 * assembler counts the errored ones it dropped */
	uint64_t frames_dropped;
	uint64_t frames_converted, frames_undecodable, frames_no_app_buffer;
	/* requests served through CUSE (ioctl, read, poll) and through the
	 * fast-path channels: per frame, what a frame costs in round trips */
	uint64_t cuse_requests, chan_requests, ring_takes, posted_qbufs;
	/* copies: bytes of finished frames the assembler wrote from the USB
	 * transfers, frames it wrote straight into an app's buffer, and bytes
	 * copied again after assembly (to more processes, or to a converter) */
	uint64_t bytes_assembled, frames_into_app, bytes_copied_after;
	/* the measured frame rate (--status): frames over windows of at
	 * least a second, in frames per 1000 s; µs of CLOCK_MONOTONIC */
	uint64_t rate_since_us, rate_frames0, last_frame_us;
	uint32_t measured_mfps;
};

/* Camera requests (calls.c): the call first in line runs, its transfer on
 * the wire; and the status endpoint whose packets become calls. */
struct dev_calls {
	struct camera_call *queue;
	struct usb_ctrl_req *inflight;
	bool pumping;
	unsigned status_malformed;
	bool status_running;
};

/* VIDIOC_LOG_STATUS (log_status.c): the current run's lines, written once
 * it answers, and /dev/kmsg. */
struct dev_log {
	int kmsg; /* or -1 */
	char *text;
	size_t len, cap;
};

/* The camera away (replug.c). Unplugged with linger > 0: the node stays
 * (detached) until the camera comes back, or linger seconds with no file
 * open; with linger 0 the device is dead (unplugged). */
struct dev_away {
	bool unplugged; /* seen (by the stream or the status endpoint), said once */
	unsigned linger;
	enum usb_replug_rule replug; /* which device coming back is the camera */
	bool detached;
	struct timespec detached_at;
	/* since when the stream lost frames: the unplug, or a STREAMON after it */
	struct timespec frames_lost_since;
	/* the probe the camera took before it went: one the node changed while
	 * it was away (from the descriptors) is negotiated when it is back */
	struct uvc_probe probe_at_unplug;
	int linger_fd;           /* timerfd, armed while detached with no file open */
	bool linger_armed;
};

/* A file of the metadata node (meta.c), and a DQBUF of it that waits. */
struct meta_parked {
	struct cuse_req *req;
	bool staged;             /* UVCUSE_IOC_DQBUF_STAGED */
	struct v4l2_buffer buf;  /* the argument as the app sent it */
	struct meta_parked *next;
};
struct dev_meta_file {
	struct cuse_file *cuse;
	uid_t uid;
	struct meta_file mf;
	struct meta_parked *parked;
	struct dev_meta_file *next;
};

/* More than the metadata node's commands, the private ioctls and their
 * 32-bit forms. */
#define DEV_META_MAX_IOCTLS 48

/* The camera's metadata node (meta.c): its own CUSE node and buffer
 * socket; the assembler writes each payload header that goes to a frame
 * into the buffer being filled, which is done with the frame. */
struct dev_meta {
	bool on;                 /* the node exists (device_config.meta_name) */
	char name[64];
	struct cuse_server *cuse;
	struct cuse_ioctl_desc ioctls[DEV_META_MAX_IOCTLS];
	struct bufshare *bufshare;
	bool share_warned;       /* its socket could not follow the node */
	struct meta_node node;
	struct dev_meta_file *files;
	struct uvc_meta_writer writer;
	struct vq_buffer *filling; /* the buffer the writer fills, or NULL */
};

/* More than the node's table, the private ioctls and their 32-bit forms. */
#define DEV_MAX_IOCTLS 96

struct device {
	struct loop *loop;
	struct usb_ctx *usb;
	struct usb_camera *cam;
	struct cuse_server *cuse;
	struct cuse_ioctl_desc ioctls[DEV_MAX_IOCTLS]; /* what cuse carries */
	struct node node;
	char name[64];
	struct settings_store *settings; /* NULL: controls not remembered */
	device_change_cb on_change;
	void *change_data;
	struct dev_files open;
	struct dev_share share;
	struct dev_stream stream;
	struct dev_frames frames;
	struct dev_counters stats;
	struct dev_calls calls;
	struct dev_log log;
	struct dev_away away;
	struct dev_meta meta;
};

/* --- device.c: lifetime and wiring ---------------------------------------- */

/* Tells the owner (STATUS=, the status socket) that something changed. */
static inline void device_changed(struct device *dev)
{
	if (dev->on_change)
		dev->on_change(dev->change_data);
}

/* --- startup.c: the camera opened and read, synchronously ------------------- */

/* usb_camera_open, the error logged with the camera asked for. */
int startup_open_camera(struct usb_ctx *usb, const struct usb_match *match,
			struct usb_camera **cam);
/* uvcvideo's quirks for the camera (override: the configuration's). */
void startup_quirks(struct usb_camera *cam, const uint32_t *override);
/* The node's card, bus_info and version, as uvcvideo gives them. */
void startup_identity(const struct usb_camera_id *id, struct node_identity *ident);
/* The controls with the flags the camera reports (GET_INFO of each). */
void startup_controls(struct usb_camera *cam, struct ctrls *c);
/* The start-up probe, as uvc_video_init. */
void startup_probe(struct usb_camera *cam, struct uvc_probe *probe);
/* Whether the camera sends Microsoft's metadata, turned on as uvcvideo
 * 6.17 does (its MSXU's metadata control set to its maximum). */
bool startup_msxu(struct usb_camera *cam);

/* --- requests.c: the apps' requests through CUSE ------------------------------ */

/* The cuse_server_ops. */
int requests_open(void *dev, struct cuse_file *file, int flags, void **data);
void requests_release(void *dev, void *file);
void requests_ioctl(void *dev, void *file, struct cuse_req *req, unsigned int cmd, void *arg,
		    void *extra, size_t extra_len);
void requests_read(void *dev, void *file, struct cuse_req *req, size_t size, off_t off, int flags);
unsigned requests_poll(void *dev, void *file, unsigned requested);
void requests_interrupt(void *dev, void *file, struct cuse_req *req);
void requests_answer_lost(void *dev, void *file, unsigned int cmd, const void *arg);
/* The ioctls CUSE carries, with their layouts: the node's table, then the
 * preload library's private ones. Returns how many (at most max). */
size_t requests_ioctl_layouts(struct cuse_ioctl_desc *out, size_t max);
/* The private ones alone (the metadata node's table ends with them). */
size_t requests_private_layouts(struct cuse_ioctl_desc *out, size_t max);
/* Appends to out[0..n) the 32-bit forms of its commands whose layouts
 * differ (v4l2/compat32.h); returns the new count (at most max). */
size_t requests_compat_layouts(struct cuse_ioctl_desc *out, size_t n, size_t max);
/* Whose private ioctl it is: the node's buffer socket (NULL: none), the
 * file's key there, its CUSE file, the node's name, its warned-once flag. */
struct private_target {
	struct bufshare *bufshare;
	void *file;
	struct cuse_file *cuse;
	const char *node_name;
	bool *warned;
	/* EXPBUF: the file's queue and its identity there, and /dev/udmabuf
	 * (or -errno: then EXPBUF is ENOTTY) */
	struct vq *queue;
	const void *owner;
	int udmabuf;
};
/* HELLO, SET_FLAGS and EXPBUF answered: true when cmd was one of them. */
bool requests_private_ioctl(const struct private_target *t, struct cuse_req *req,
			    unsigned int cmd, void *arg);
/* The rest of a release, once no call of the file runs. */
void requests_release_finish(struct device *dev, struct dev_file *df);

/* --- limits.c: what one process or user may hold ------------------------------ */

/* Whether process who (of user uid) may open one more file: 0, or -EMFILE
 * (logged a few times a second at most). */
int limits_may_open(struct device *dev, const struct process_id *who, uid_t uid);
/* Whether user uid may open one more fast-path channel (logged when not). */
bool limits_may_open_channel(struct device *dev, uid_t uid);
/* Whether df's REQBUFS or CREATE_BUFS (arg) keeps its user's buffers
 * within the limit: 0 (also for any other cmd), or -ENOMEM (logged). */
int limits_buffer_memory(struct device *dev, const struct dev_file *df, unsigned cmd,
			 const void *arg);

/* --- waiters.c: requests that wait, and answers -------------------------------- */

/* A file's O_NONBLOCK as the daemon knows it. */
bool device_file_nonblocking(const struct dev_file *df);
/* p waits (CUSE's interrupt registered). */
void waiters_park(struct dev_file *df, struct parked *p);
/* An ioctl's answer through CUSE, a USERPTR frame's bytes with it. */
void waiters_reply_ioctl(struct device *dev, struct dev_file *df, struct cuse_req *req,
			 unsigned int cmd, void *arg, int res, const void *data, size_t len);
/* Answers a parked request err (> 0), through CUSE or its channel, and frees it. */
void device_parked_fail(struct parked *p, int err);
/* Frames or errors changed what waiting requests would get: runs them
 * again, and wakes pollers. */
void device_wake_all(struct device *dev);
/* node_ops.waiters_changed: the waiting requests run again once the
 * current request is answered (device_wake_if_due). */
void requests_waiters_changed(void *dev);
void device_wake_if_due(struct device *dev);
/* The answer of a fast-path request that ran (res: node_ioctl's). */
void device_channel_reply(struct device *dev, struct dev_file *df, struct channel *ch,
			  unsigned int cmd, struct v4l2_buffer *b, int res);

/* --- calls.c: requests that wait for the camera ------------------------------- */

/* An ioctl that may need the camera (node_uses_camera): in line behind the others. */
void calls_ioctl(struct device *dev, struct dev_file *df, struct cuse_req *req, unsigned int cmd,
		 void *arg, void *extra, size_t extra_len);
/* A caller interrupted while its call waits: answered EINTR now (true), or
 * no call of its (false). */
bool calls_interrupt(struct device *dev, struct cuse_req *req);
/* The file is released: its calls leave the line; true when one still runs
 * (the file is freed when it ends). */
bool calls_release_file(struct device *dev, struct dev_file *df);
/* The device goes: calls dropped, the request on the wire cancelled. */
void calls_free_all(struct device *dev);
/* The status endpoint's transfer starts (when the camera has one). */
void device_status_start(struct device *dev);

/* --- streaming.c: buffer memory, the commit, the stream ------------------------ */

/* The queue's buffer memory: one memfd per buffer, mapped here too. */
extern const struct vq_mem_ops device_mem_ops;
/* The preload library's memory lookup (bufshare_lookup_cb). */
int device_buf_lookup(void *ctx, void *file, uint64_t offset, uint64_t length, int *memfd);
/* bufshare's import: the app's dma-buf mapped as DMABUF buffer index of
 * the file's queue (vq_attach_dmabuf); the mapping and dmabuf then
 * released with the buffer, as a memfd is. */
int device_buf_import(void *ctx, void *file, unsigned index, int app_fd, int dmabuf);
/* The node_ops of the camera: probe notes, stream on and off, start-up's
 * synchronous control requests. */
void streaming_probe_done(void *dev, const struct uvc_probe *want, const struct uvc_probe *got,
			  int err, const struct uvc_probe_notes *notes);
/* Commits probe, the stream starts once the camera took it; while the
 * camera is away, at the replug. */
int device_stream_on(void *dev, const struct uvc_probe *probe);
void streaming_off(void *dev);
/* The STREAMONs waiting for the commit get err. */
void device_answer_streamons(struct device *dev, int err);
int streaming_ctrl_request(void *dev, const struct ctrls_request *r, uint8_t *data);

/* --- log_status.c: VIDIOC_LOG_STATUS ---------------------------------------- */

/* node_ops log_status: one run's lines, kept (the run may be undone). */
void log_status_run(void *dev);
/* The kept lines to our log and /dev/kmsg, once the call answers. */
void log_status_emit(struct device *dev);

/* --- channels.c: the preload library's fast-path channels -------------------- */

/* bufshare_channel_cb: the connection fd becomes a channel of file, with a
 * ring (*memfd) and its doorbell (*bell). */
int device_channel_open(void *dev, void *file, int fd, pid_t pid, int *memfd, int *bell);
/* The file goes: its channels close, their waiting requests unanswered. */
void device_channels_close(struct dev_file *df);

/* --- rings.c: the fast path's rings ------------------------------------------ */

/* The rings of the file's channels (include/uvcuse/uvcuse.h): apply the
 * entries the library took (dequeue those buffers) and the QBUFs it
 * posted; revoke the entries not taken (before anything that may change
 * what DQBUF answers); publish the done buffers not yet published (after). */
void device_rings_apply(struct dev_file *df);
void device_rings_revoke(struct dev_file *df);
void device_rings_publish(struct dev_file *df);
/* Every file's rings applied: before a frame needs an app's buffer. */
void device_rings_apply_all(struct device *dev);
/* The rings of the other files of df's process (whose queue is df's too)
 * applied: before serving a CUSE request of df. */
void device_rings_apply_proc(struct dev_file *df);
/* The QBUF answer of MMAP buffer index kept in ring, for the library to
 * answer that buffer's QBUF itself. */
void rings_keep_qbuf(struct dev_file *df, struct chan_ring *ring, unsigned index);
/* The file's waiting request on channel ch, taken out of its list, or NULL. */
struct parked *rings_take_parked(struct dev_file *df, struct channel *ch);
/* Channel ch of the file goes, with its ring: what its library took is
 * applied first, its waiting requests dropped unanswered. */
void rings_forget_channel(struct dev_file *df, struct channel *ch);

/* --- frames.c: the camera's frames to the processes streaming ----------------- */

/* The assembler's callback: a frame is complete. */
void frames_on_frame(void *dev, const struct uvc_frame_event *ev);
/* The next buffer the assembler fills, if it has none. */
void frames_give(struct device *dev);
/* node_ops consumer_on/off. */
int frames_consumer_on(void *dev, struct node_proc *p);
void frames_consumer_off(void *dev, struct node_proc *p);
/* Buffers were queued (node_ops.buffer_queued set buffers_due): the held
 * converted frames go to them, the assembler gets its next one. */
void frames_buffers_arrived(struct device *dev);
/* After any request: buffers queued reach the camera, then the waiting
 * requests run again if the node said so. */
void frames_request_done(struct device *dev);
/* The assembler's need_buffer: a frame starts and no buffer was given. */
void frames_need_buffer(void *dev);
/* The stream (re)starts: each consumer's converter starts. 0 or -errno. */
int frames_start(struct device *dev);
/* Every buffer handed to the assembler or the converter goes back. */
void device_stop_frames(struct device *dev);
/* A queue buffer is being freed: nothing may write into it any more. */
void frames_forget_buffer(struct device *dev, struct vq_buffer *b);
/* For LOG_STATUS: converting consumers and the threads of one (with none:
 * of the last one). */
unsigned frames_converters(const struct device *dev, unsigned *threads);
/* The processes streaming (--status). */
unsigned frames_consumers(const struct device *dev);
/* --status: what each process streaming got and lost, the measured rate. */
void frames_streams(const struct device *dev, struct device_status *out);
/* Errored frames the assembler dropped and frames lost after assembly. */
uint64_t frames_dropped_total(const struct device *dev);
void frames_free(struct device *dev);

/* --- meta.c: the metadata node ------------------------------------------------ */

/* Registers the metadata node /dev/cfg->meta_name (nothing when NULL). 0
 * or -errno (logged). */
int meta_setup(struct device *dev, const struct device_config *cfg);
/* Its buffer socket (without: MMAP through uvcuse-run disabled). */
void meta_share_buffers(struct device *dev, struct loop *loop);
void meta_free(struct device *dev);
/* A frame ended: the buffer being filled is done with the frame's
 * sequence and timestamp when the frame was delivered (delivered false:
 * its blocks are dropped), and the next queued buffer is taken. */
void meta_frame_end(struct device *dev, bool delivered, bool errored, uint32_t sequence,
		    const struct timeval *timestamp);
/* The video stream starts (a buffer is taken) or stops (the buffer being
 * filled goes back to the queue, unfilled). */
void meta_stream_start(struct device *dev);
void meta_stream_stop(struct device *dev);
/* The memfd the preload library maps for an MMAP buffer at offset (or a
 * USERPTR buffer's staging memory) of queue q, owned by owner. */
int device_queue_memfd(struct vq *q, const void *owner, uint64_t offset, uint64_t length,
		       int *memfd);

/* --- replug.c: the node while the camera is away ----------------------------- */

/* The camera is gone (the stream, the status endpoint, a request or the
 * hotplug watch saw it). */
void device_camera_unplugged(struct device *dev);
/* Arms or disarms the linger timer: it runs while the camera is away and
 * no file is open. */
void device_linger_update(struct device *dev);
/* The linger timer's fd is readable: the node goes. */
void device_on_linger(void *dev, uint32_t events);
/* usb_ctx_watch's callbacks. */
void device_on_camera_left(void *dev);
void device_on_camera_arrived(void *dev);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The V4L2 capture node's semantics: what each ioctl, read() and poll()
 * answers, per open file, as Linux 6.1 uvcvideo (with the V4L2 core and
 * videobuf2 around it) answers them, plus read() which uvcvideo lacks.
 * No I/O: requests to the camera go through node_ops, implemented by the
 * device (src/device/device.c) over src/usb/. No locks: one loop thread calls in. */
#ifndef V4L2_NODE_H
#define V4L2_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/videodev2.h>

#include "uvc/descriptors.h"
#include "uvc/negotiate.h"
#include "uvc/probe.h"
#include "v4l2/controls.h"
#include "v4l2/conv_formats.h"
#include "v4l2/formats.h"
#include "v4l2/prio.h"
#include "v4l2/queue.h"

/* node_ioctl()/node_read() answer: park the request and call again after
 * node_ops->... reported a frame (node_frame_ready). */
#define NODE_WAIT 1

/* node_ioctl()/node_status_event() answer of a node in asynchronous mode
 * (n->async): the camera must answer node_camera_need() first; hand its
 * answer to node_camera_answer() and make the same call again, with the
 * argument as the app sent it (a run may have changed it). Until the call
 * answers, the device runs no other call that uses the camera (see
 * node_uses_camera): one call at a time owns the controls, as uvcvideo's
 * ctrl_mutex. The journal of answers lives in the node (node_call.c).
 * Above any count node_status_event() returns, so that it stays apart. */
#define NODE_CAMERA 0x10000

/* A camera request a call waits for: GET_* (ctrl.size bytes to answer) or
 * SET_CUR with the ctrl.size bytes at out. */
struct node_camera_req {
	struct ctrls_request ctrl;
	const uint8_t *out;
};

struct node_proc;

struct node_ops {
	/* Probe (TRY_FMT, S_FMT, S_PARM) while the node is not asynchronous:
	 * SET_CUR/GET_CUR of the probe control. Returns 0 or -errno. NULL:
	 * -EIO. An asynchronous node negotiates itself (uvc/negotiate.h), its
	 * requests coming back as NODE_CAMERA with ctrl.streaming set. */
	int (*probe)(void *dev, const struct uvc_probe *want, struct uvc_probe *got);
	/* An asynchronous node's probe ended with err (0: got holds the
	 * camera's answer): notes for the log. May be NULL. */
	void (*probe_done)(void *dev, const struct uvc_probe *want, const struct uvc_probe *got,
			   int err, const struct uvc_probe_notes *notes);
	/* The camera: commit probe and start streaming (the first process
	 * to stream), or stop (the last one stopped). */
	int (*stream_on)(void *dev, const struct uvc_probe *probe);
	void (*stream_off)(void *dev);
	/* A process's queue starts receiving the camera's frames (after
	 * stream_on for the first one), in the format node_proc_fmt() gives;
	 * 0 or -errno (its STREAMON fails). May be NULL. */
	int (*consumer_on)(void *dev, struct node_proc *p);
	/* It stops: before this returns, the device gives back every buffer
	 * of p's queue it holds and no longer writes into any (the queue may
	 * free them next). Before stream_off for the last one. May be NULL. */
	void (*consumer_off)(void *dev, struct node_proc *p);
	/* A buffer was queued while streaming (the device may have none). */
	void (*buffer_queued)(void *dev);
	/* A UVC control request (GET_* into data, SET_CUR from data, r->size
	 * bytes), synchronous, as uvc_query_ctrl: r->size on success or
	 * -errno. Only while the node is not asynchronous (n->async: start-up);
	 * afterwards requests come back as NODE_CAMERA. NULL: every request
	 * fails with -EIO. */
	int (*ctrl_request)(void *dev, const struct ctrls_request *r, uint8_t *data);
	/* VIDIOC_LOG_STATUS: log the device's state (node_log_status gives
	 * the node's part). NULL: nothing is logged, the ioctl succeeds. */
	void (*log_status)(void *dev);
	/* What a waiting DQBUF, DQEVENT or poll() would get may have changed:
	 * an event was queued, or an ioctl took the stream or the buffers
	 * away (NODE_IOC_WAKES). Called from inside the node: the device runs
	 * its waiting requests again once the current one is answered. May
	 * be NULL. */
	void (*waiters_changed)(void *dev);
};

struct node_identity {
	char card[32];        /* the USB product string, or "UVC Camera (vid:pid)" */
	char bus_info[32];    /* usb-<controller>-<ports> */
	uint32_t version;     /* KERNEL_VERSION of the running kernel */
};

/* One event subscription of a file, holding at most one pending event as
 * uvcvideo's (v4l2_event_subscribe with one element: a newer event
 * replaces the pending one, their control changes merged). */
struct node_sub {
	uint32_t type, id, flags;
	/* The mapping the id named when subscribing (uvcvideo keeps its
	 * subscribers per mapping); NULL for a control class. */
	const struct uvc_ctrl_mapping *map;
	bool pending;
	uint64_t order;       /* when the pending event was queued (DQEVENT order) */
	struct v4l2_event ev;
};

/* Every standard control and class of a camera fits (48 mappings, 2
 * classes), with room for what applications map; more: -ENOMEM. */
#define NODE_MAX_SUBS 64

/* A format as a process sees it: the camera's format, frame and probe,
 * and the converted format they feed (0: the native one). */
struct node_fmt {
	const struct uvc_format *format;
	const struct uvc_frame *frame;
	struct uvc_probe probe;
	uint32_t conv_fourcc;
	enum cfmt_reason conv_reason; /* why format feeds it */
	uint32_t sizeimage;           /* what the app's buffers need */
};

/* One process's side of the node (docs/architecture.md, "Several
 * processes on one camera"): its queue, and its format once it set one.
 * Every file a process opens shares it, so vb2's rules between the files
 * of one process hold unchanged; two processes each stream on their own.
 * With n->exclusive every file belongs to one of them: uvcvideo's single
 * owner. */
struct node_proc {
	pid_t pid;            /* thread group; 0: the daemon's, or exclusive */
	uint64_t start;       /* when it started (node_open_process) */
	unsigned files;
	struct vq queue;
	bool own_fmt;         /* S_FMT/S_PARM of this process set fmt */
	struct node_fmt fmt;
	bool fed;             /* its queue gets the camera's frames (consumer_on) */
	void *dev_data;       /* the device's per-consumer state */
	struct node_proc *next;
};

struct node_file {
	enum v4l2_priority prio;
	/* the daemon's own file (remembered controls sent to the camera):
	 * no app's priority holds it back; set after node_open */
	bool daemon;
	bool in_read;         /* inside a read() call: its later chunks continue the frame */
	struct node_file *next; /* the node's open files */
	struct node_proc *proc; /* its process's queue and format */
	uint32_t sequence;    /* of the last event queued, as v4l2_fh */
	unsigned navailable;  /* pending events */
	unsigned n_subs;
	struct node_sub subs[NODE_MAX_SUBS];
};

struct node {
	const struct uvc_camera *camera;
	const struct uvc_streaming *stream;
	struct node_identity id;
	const struct node_ops *ops;
	void *dev;
	struct v4l2_prios prios; /* open files per priority (its metadata node's too) */
	/* the caps of the camera's other node (its metadata node's
	 * V4L2_CAP_META_CAPTURE), which QUERYCAP's capabilities include */
	uint32_t meta_caps;
	const struct uvc_format *def_format;
	/* The format of a process that set none while the camera is idle: as
	 * the last S_FMT/S_PARM (or start-up) left it, as on a kernel node. */
	struct node_fmt fmt;
	/* The camera's mode while it streams: the format of the first process
	 * that streamed. Others stream it, or a conversion of it. */
	struct node_fmt run;
	unsigned streamers;   /* processes fed (the camera streams while > 0) */
	struct node_proc *procs;
	bool exclusive;       /* one queue for every process (--exclusive) */
	const struct vq_mem_ops *mem_ops;
	void *mem_data;
	unsigned read_buffers;
	/* Largest USERPTR frame the caller can copy into an app's memory with
	 * a DQBUF reply (CUSE: what one ioctl moves); DQBUF of a bigger one
	 * answers -E2BIG and leaves the buffer done. */
	uint32_t max_userptr_copy;
	struct node_file *files;
	uint64_t event_order;
	/* Counts every event queued to any file (ops->waiters_changed tells
	 * the device each time). */
	unsigned events_queued;
	/* The camera's controls: node_init builds them with the table's
	 * flags; the device replaces them with the ones it built and read
	 * GET_INFO for before the start-up probe (uvcvideo's order). */
	struct ctrls ctrls;
	/* Camera requests wait (NODE_CAMERA) instead of running through
	 * ops->ctrl_request; off at start-up, when nothing else is served. */
	bool async;
	/* The camera is unplugged (the device keeps the node): TRY_FMT, S_FMT
	 * and S_PARM take the probe from the descriptors, as uvc_probe_fixup
	 * repairs a camera's answer, and the device negotiates the probe with
	 * the camera when it comes back. */
	bool camera_away;
	struct node_call *call; /* the call waiting for the camera (node_call.c) */
	/* ENUM_FMT/ENUM_FRAMESIZES/ENUM_FRAMEINTERVALS also list the converted
	 * formats (v4l2/conv_formats); false: exactly uvcvideo's list. */
	bool convert;
};

/* Sets up the node over stream 0 of camera; probe is what the camera
 * reported at start-up (GET_CUR after GET_DEF/SET_CUR, as uvc_video_init):
 * its format and frame (or the first ones) become current. -EINVAL when
 * the camera has no usable format. */
int node_init(struct node *n, const struct uvc_camera *camera, const struct node_identity *id,
	      const struct uvc_probe *probe, const struct node_ops *ops, void *dev,
	      const struct vq_mem_ops *mem_ops, void *mem_data);
void node_destroy(struct node *n);

/* Whether the ioctl may need the camera (NODE_CAMERA): controls, control
 * events, extension units, LOG_STATUS, and the probes of TRY_FMT, S_FMT
 * and S_PARM. Pure, for the device's ordering. */
bool node_uses_camera(unsigned int cmd);
/* After NODE_CAMERA: the request to make (valid until answered). */
const struct node_camera_req *node_camera_need(const struct node *n);
/* Its answer, as node_ops->ctrl_request gives it: the size (answer holds
 * the bytes of a GET_*) or -errno. 0, -EINVAL (nothing asked), -ENOMEM. */
int node_camera_answer(struct node *n, int result, const uint8_t *answer);
/* A call is under way (a request asked or answered, the call not yet
 * made again to its end). */
bool node_call_pending(const struct node *n);
/* The device gives the call up (it will not be made again): the next call
 * starts afresh. The node's state is as before the call. */
void node_call_abandon(struct node *n);

/* The device could not start the stream its stream_on() accepted (the
 * camera refused the commit later): every fed queue stops (consumer_off
 * called for each), a STREAMON queue's buffers staying queued (vb2 when
 * start_streaming fails); read() emulation fails as a dead stream (read()
 * EIO, poll() POLLERR). */
void node_stream_failed(struct node *n);

/* The camera went away or came back: V4L2_EVENT_SOURCE_CHANGE (changes
 * V4L2_EVENT_SRC_CH_RESOLUTION, id 0: the only input) to every file that
 * subscribed to it, as a capture driver tells of a lost or returned
 * signal; pending ones merge. The node accepts that subscription (uvcvideo
 * only takes V4L2_EVENT_CTRL): apps such as GStreamer's v4l2src restart
 * their stream on it. */
void node_source_change(struct node *n);

/* A file of process pid (its thread group), started at start (any value
 * that differs between two processes that had the same ID: the device
 * gives /proc's start time), opens: it joins that process's queue (one for
 * all under n->exclusive). A later process with a reused ID is another
 * process: it never joins the queue of one whose files are still open
 * (passed on, inherited). 0 or -ENOMEM. node_open: the daemon's own files
 * and single-process users (pid 0). */
int node_open_process(struct node *n, struct node_file *f, pid_t pid, uint64_t start);
int node_open(struct node *n, struct node_file *f);
void node_release(struct node *n, struct node_file *f);

/* The format process p sees: its own, else the camera's running mode while
 * it streams, else the node's. */
const struct node_fmt *node_proc_fmt(const struct node *n, const struct node_proc *p);
/* The format apps get now: the running mode, or the node's. */
const struct node_fmt *node_current_fmt(const struct node *n);
/* The camera streams for some process. */
bool node_streaming(const struct node *n);
/* Every fed queue answers -EIO (the camera died), as vq_set_error. */
void node_set_error(struct node *n);

/* VIDIOC_QUERYCAP's and VIDIOC_ENUMINPUT's answers (its metadata node
 * copies the identity and the first input). */
int node_querycap(struct node *n, struct v4l2_capability *cap);
int node_enum_input(struct node *n, struct v4l2_input *in);

/* One ioctl with its argument in daemon memory. Returns 0 (arg holds the
 * answer), -errno, NODE_WAIT (only for a blocking DQBUF or DQEVENT), or
 * NODE_CAMERA (asynchronous node, node_uses_camera(cmd)). For DQBUF of
 * USERPTR memory, data and data_len are set to the frame bytes the caller must
 * copy to arg's m.userptr (-E2BIG, the frame kept, when they exceed
 * max_userptr_copy); with data NULL the frame stays in the buffer's
 * staging memory for the app to fetch, whatever its size. extra/extra_len: the user memory the argument
 * points to, read in (cuse/ioctl_table.h): for G/S/TRY_EXT_CTRLS the
 * controls array (count entries), answered in place; for UVCIOC_CTRL_QUERY
 * the size bytes of data (read for SET_CUR, answered in place for GET_*);
 * for UVCIOC_CTRL_MAP the menu_count menu entries of a menu mapping. The
 * argument's own pointers are never followed. */
int node_ioctl(struct node *n, struct node_file *f, unsigned int cmd, void *arg, void *extra,
	       size_t extra_len, bool nonblock, const void **data, size_t *data_len);

/* The answer to a USERPTR DQBUF that carried frame bytes (data above)
 * never reached the app (its ioctl was interrupted before the data round):
 * the buffer b names goes back first in line, done, for the next DQBUF,
 * instead of being lost until STREAMOFF. Does nothing when that buffer is
 * no longer dequeued (STREAMOFF, REQBUFS since). */
void node_dqbuf_lost(struct node *n, struct node_file *f, const struct v4l2_buffer *b);

/* What VIDIOC_DQBUF would answer f for the i-th done buffer of its MMAP
 * or DMABUF queue, without dequeuing (the fast path publishes these): 0,
 * -EAGAIN (no such buffer), -EOPNOTSUPP (USERPTR, read()), DQBUF's errors. */
int node_dqbuf_peek(struct node *n, struct node_file *f, unsigned i, struct v4l2_buffer *b);
/* Whether node_poll(f, POLLIN) answers POLLIN exactly when f may dequeue
 * a done buffer of its MMAP or DMABUF queue, and nothing else (f owns the queue, it
 * streams without error, a QBUF was made since STREAMON, no read()
 * emulation to start): the fast path may then wait for frames on its own
 * doorbell. */
bool node_poll_plain(struct node *n, struct node_file *f);
/* What QBUF of MMAP (or DMABUF, queued again as it was) buffer index, which
 * the app holds, will answer it with no app flags (vq_qbuf_preview). */
int node_qbuf_preview(struct node *n, struct node_file *f, unsigned index, struct v4l2_buffer *b);

/* One chunk of a read() (see cuse.h: off 0 starts a read() call). On 0,
 * data and len are what to answer (len may be 0: end of this read() call);
 * afterwards call node_read_done(len) with what was sent. -EAGAIN
 * (nonblock), NODE_WAIT, -EBUSY (another file streams), -EIO. */
int node_read(struct node *n, struct node_file *f, size_t size, bool first_chunk, bool nonblock,
	      const uint8_t **data, size_t *len);
void node_read_done(struct node *n, struct node_file *f, size_t len);

/* poll() events for the file given the requested ones (POLLPRI when an
 * event is pending); a POLLIN poller of an idle queue starts read()
 * emulation, as vb2 does. */
unsigned node_poll(struct node *n, struct node_file *f, unsigned requested);

/* A control change the camera reported on its status endpoint (bOriginator,
 * bSelector, bValue of a value change, len bytes; bytes the packet lacks
 * read as 0), as uvc_ctrl_status_event: every mapping of the control sends
 * V4L2_EVENT_CTRL with CH_VALUE (the slaves of a master first, with
 * CH_FLAGS) to its subscribers, all of them unless the file that set an
 * asynchronous control awaits this report (it then gets it only with
 * ALLOW_FEEDBACK). The control's cached value is dropped. Its requests
 * (the ranges and values the events carry) are synchronous, or, on an
 * asynchronous node, NODE_CAMERA as for node_ioctl. Returns the number of
 * mappings reported, or -ENOENT when no known control (with mappings)
 * matches. */
int node_status_event(struct node *n, uint8_t originator, uint8_t selector, const uint8_t *value,
		      size_t len);

/* The node's part of VIDIOC_LOG_STATUS, one line per call of fn: format,
 * interval, queue and streaming state, open files, every control's value
 * (read from the camera where needed). */
typedef void node_log_fn(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void node_log_status(struct node *n, node_log_fn *fn, void *ctx);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The V4L2 node (src/v4l2/node.c, with the queue and controls under it)
 * over a fake camera, fed what an app can send: any ioctl of the CUSE
 * table (src/cuse/ioctl_table.c) with any argument bytes and any bytes in
 * the regions the argument points to, marshalled by the table's planner as
 * cuse.c does and handed over as device.c does; read(), poll(), opens and
 * closes, frames arriving, and status packets from the camera.
 *
 * Input: a profile byte, a flags byte (1: converted formats listed, 2: the
 * node asynchronous, as device.c serves it), then steps: an operation byte
 * and its operands (see step()). The fake camera's answers (probe, control
 * requests) come from the same stream; an asynchronous node's camera call
 * waits for a step that answers it, other files' ioctls running meanwhile. */
#include <poll.h>
#include <stdarg.h>
#include <sys/ioctl.h>

#include <linux/usb/video.h>

#include "cuse/ioctl_table.h"
#include "ioctl_layouts.h"
#include "fake_camera.h"
#include "uvc/status.h"
#include "uvcuse/uvcuse.h"
#include "vcam_cameras.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 3

/* FUZZ_TRACE=1: each ioctl's name and answer on stderr, to see what an
 * input does. */
static bool trace;
/* what device.c sets: one CUSE ioctl's worth */
#define USERPTR_COPY (128u * 1024u)

/* A blocking DQBUF, DQEVENT or read() that answered NODE_WAIT: device.c
 * parks it, a copy of its argument, and runs it again (answer_parked). */
struct parked {
	bool used, is_read, staged;
	unsigned cmd;
	size_t size;
	uint8_t *arg; /* exactly _IOC_SIZE(cmd) bytes */
};

/* An asynchronous node's call waiting for the camera (device.c's
 * camera_call): made again from its argument as sent after each answer. */
struct call {
	bool used;
	unsigned file, cmd;
	bool nonblock;
	size_t size, extra_len;
	uint8_t *orig, *work; /* size + extra_len bytes each */
};

struct harness {
	struct node n;
	struct call call;
	struct parked parked[MAX_FILES];
	struct fake fake;
	struct fuzz_in in;
	struct node_file *files[MAX_FILES];
	bool nonblock[MAX_FILES];
	bool logged;
	bool processes; /* the files belong to three processes, else to one */
};

/* The process of file i: sharing between processes is fuzzed too. */
static pid_t file_pid(const struct harness *h, unsigned i)
{
	return h->processes ? (pid_t)(100 + i % 3) : 0;
}

/* Reads the first and last byte the node hands out, so ASan checks the
 * whole range lies in one live block (every byte would cost too much). */
static unsigned touch(const uint8_t *p, size_t len)
{
	return len ? (unsigned)p[0] + p[len - 1] : 0;
}

static size_t iov_total(const struct iovec *iov, unsigned n)
{
	size_t t = 0;
	for (unsigned i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

static void check_out(struct harness *h, struct node_file *f, unsigned cmd, const uint8_t *block,
		      int r, const void *out, size_t out_len);

static unsigned file_index(const struct harness *h, const struct node_file *f)
{
	for (unsigned i = 0; i < MAX_FILES; i++)
		if (h->files[i] == f)
			return i;
	FUZZ_CHECK(!"a file of the harness");
	return 0;
}

/* A newer request of the same file replaces a parked one, as if the app's
 * earlier call had been interrupted (device.c answers that EINTR). */
static void unpark(struct parked *p)
{
	free(p->arg);
	memset(p, 0, sizeof(*p));
}

static void park(struct harness *h, struct node_file *f, unsigned cmd, bool staged, uint8_t *arg)
{
	struct parked *p = &h->parked[file_index(h, f)];
	unpark(p);
	*p = (struct parked){ .used = true, .cmd = cmd, .staged = staged, .arg = arg };
}

static void park_read(struct harness *h, struct node_file *f, size_t size)
{
	struct parked *p = &h->parked[file_index(h, f)];
	unpark(p);
	*p = (struct parked){ .used = true, .is_read = true, .size = size };
}

static void check_read(struct harness *h, struct node_file *f, int r, size_t want,
		       const uint8_t *data, size_t len);

/* device.c's wake_all: every parked request runs again, blocking. */
static void wake_all(struct harness *h)
{
	for (unsigned i = 0; i < MAX_FILES; i++) {
		struct parked *p = &h->parked[i];
		struct node_file *f = h->files[i];
		if (!p->used)
			continue;
		FUZZ_CHECK(f);
		if (p->is_read) {
			const uint8_t *data = NULL;
			size_t len = 0;
			int r = node_read(&h->n, f, p->size, true, false, &data, &len);
			if (r != NODE_WAIT) {
				check_read(h, f, r, p->size, data, len);
				unpark(p);
			}
			continue;
		}
		const void *out = NULL;
		size_t out_len = 0;
		int r = node_ioctl(&h->n, f, p->cmd, p->arg, NULL, 0, false,
				   p->staged ? NULL : &out, &out_len);
		FUZZ_CHECK(r == 0 || r == NODE_WAIT || (r < 0 && r > -4096));
		if (r != NODE_WAIT) {
			check_out(h, f, p->cmd, p->arg, r, out, out_len);
			unpark(p);
		}
	}
}

/* A 32-bit form's block made native as cuse.c makes it: the native
 * argument (to_native), then the regions; the answer's way back
 * (from_native) tried on it at once. Returns the native layout. */
static const struct cuse_ioctl_desc *compat_to_native(const struct cuse_ioctl_desc *d,
						      uint8_t **block, size_t *block_len,
						      size_t extra_len,
						      struct cuse_ioctl_desc *native)
{
	FUZZ_CHECK(d->native_size <= CUSE_IOCTL_MAX_NATIVE);
	size_t len = d->native_size + extra_len;
	uint8_t *nb = calloc(1, len ? len : 1);
	FUZZ_CHECK(nb);
	d->to_native(*block, nb);
	memcpy(nb + d->native_size, *block + d->size, extra_len);
	d->from_native(nb, *block);
	free(*block);
	*block = nb;
	*block_len = len;
	*native = *d;
	native->cmd = d->native_cmd;
	native->size = d->native_size;
	native->to_native = NULL;
	native->from_native = NULL;
	return native;
}

/* One ioctl as the kernel, cuse.c and device.c carry it: the retry rounds
 * of the planner (the app's memory is the input: the argument, then the
 * bytes of the regions it names), the argument and regions copied into one
 * block of exactly their size, and the node's answer. */
static void do_ioctl(struct harness *h, struct node_file *f, bool nonblock)
{
	size_t count;
	const struct cuse_ioctl_desc *table = ioctl_layouts(&count);
	const struct cuse_ioctl_desc *d = &table[fuzz_u8(&h->in) % count];

	uint8_t arg[512];
	FUZZ_CHECK(d->size <= sizeof(arg));
	fuzz_fill(&h->in, arg, d->size);
	const unsigned long user_arg = 0x7f0000001000ul;

	struct cuse_plan plan;
	size_t in_sz = 0, out_sz = 0;
	uint8_t *in_buf = NULL;
	int r = 0;
	for (unsigned round = 0;; round++) {
		FUZZ_CHECK(round < 4);
		r = cuse_ioctl_plan(d, user_arg, in_buf, in_sz, out_sz, &plan);
		FUZZ_CHECK_ERRNO(r);
		if (r < 0 || plan.kind == CUSE_PLAN_CALL)
			break;
		FUZZ_CHECK(!plan.mismatch);
		FUZZ_CHECK(plan.n_in <= 1 + CUSE_IOCTL_MAX_EXTRA);
		FUZZ_CHECK(plan.n_out <= 1 + CUSE_IOCTL_MAX_EXTRA);
		in_sz = iov_total(plan.in_iov, plan.n_in);
		out_sz = iov_total(plan.out_iov, plan.n_out);
		FUZZ_CHECK(in_sz <= CUSE_IOCTL_MAX_DATA && out_sz <= CUSE_IOCTL_MAX_DATA);
		/* The kernel reads the app's memory: the argument as it is, the
		 * regions from the input. */
		free(in_buf);
		in_buf = malloc(in_sz ? in_sz : 1);
		FUZZ_CHECK(in_buf);
		size_t off = 0;
		for (unsigned i = 0; i < plan.n_in; i++) {
			size_t l = plan.in_iov[i].iov_len;
			if (i == 0 && (unsigned long)plan.in_iov[0].iov_base == user_arg) {
				FUZZ_CHECK(l == d->size);
				memcpy(in_buf, arg, l);
			} else {
				fuzz_fill(&h->in, in_buf + off, l);
			}
			off += l;
		}
	}
	if (r < 0) {
		if (trace)
			fprintf(stderr, "%s: plan %d\n", d->name, r);
		free(in_buf);
		return;
	}
	/* cuse.c's block: zeroed, the argument as sent, then the regions */
	size_t block_len = d->size + plan.extra_len;
	uint8_t *block = calloc(1, block_len ? block_len : 1);
	FUZZ_CHECK(block);
	if (plan.arg)
		memcpy(block, plan.arg, d->size);
	if (plan.extra_len)
		memcpy(block + d->size, plan.extra, plan.extra_len);
	for (unsigned i = 0; i < plan.n_out; i++)
		FUZZ_CHECK(plan.out_src[i] + plan.out_iov[i].iov_len <= block_len);
	free(in_buf);
	struct cuse_ioctl_desc native;
	if (d->to_native) /* a 32-bit form: the node sees its native argument */
		d = compat_to_native(d, &block, &block_len, plan.extra_len, &native);

	unsigned cmd = d->cmd;
	bool staged = cmd == UVCUSE_IOC_DQBUF_STAGED;
	if (cmd == UVCUSE_IOC_HELLO || cmd == UVCUSE_IOC_SET_FLAGS) {
		free(block); /* device.c answers them without the node */
		return;
	}
	if (staged)
		cmd = VIDIOC_DQBUF;
	bool camera = h->n.async && node_uses_camera(cmd);
	if (camera && h->call.used) {
		free(block); /* device.c puts it in line behind the call */
		return;
	}
	uint8_t *orig = camera ? fuzz_dup(block, block_len) : NULL;
	const void *out = NULL;
	size_t out_len = 0;
	r = node_ioctl(&h->n, f, cmd, d->size ? block : NULL,
		       plan.extra_len ? block + d->size : NULL, plan.extra_len, nonblock,
		       staged ? NULL : &out, &out_len);
	FUZZ_CHECK(r == 0 || r == NODE_WAIT || (camera && r == NODE_CAMERA) ||
		   (r < 0 && r > -4096));
	if (trace)
		fprintf(stderr, "%s: %d\n", d->name, r);
	if (r == NODE_CAMERA) {
		FUZZ_CHECK(node_camera_need(&h->n));
		h->call = (struct call){ .used = true, .file = file_index(h, f), .cmd = cmd,
					 .nonblock = nonblock, .size = d->size,
					 .extra_len = plan.extra_len, .orig = orig, .work = block };
		return;
	}
	free(orig);
	if (r == NODE_WAIT) {
		FUZZ_CHECK(cmd == VIDIOC_DQBUF || cmd == VIDIOC_DQEVENT);
		FUZZ_CHECK(!nonblock);
		park(h, f, cmd, staged, block);
		return;
	}
	check_out(h, f, cmd, block, r, out, out_len);
	free(block);
}

static void call_drop(struct call *c)
{
	free(c->orig);
	free(c->work);
	memset(c, 0, sizeof(*c));
}

/* The camera answers the request the node waits for, from the input. */
static void answer_need(struct harness *h)
{
	const struct node_camera_req *need = node_camera_need(&h->n);
	FUZZ_CHECK(need);
	uint8_t *data = calloc(1, need->ctrl.size ? need->ctrl.size : 1);
	FUZZ_CHECK(data);
	if (need->ctrl.query == UVC_SET_CUR && need->ctrl.size)
		memcpy(data, need->out, need->ctrl.size);
	int res = fake_ctrl_request(&h->fake, &need->ctrl, data);
	FUZZ_CHECK(node_camera_answer(&h->n, res, data) == 0);
	free(data);
}

/* The waiting call gets its answer and runs again; it may wait for
 * another one. */
static void call_answer(struct harness *h)
{
	struct call *c = &h->call;
	FUZZ_CHECK(h->files[c->file]);
	answer_need(h);
	memcpy(c->work, c->orig, c->size + c->extra_len);
	int r = node_ioctl(&h->n, h->files[c->file], c->cmd, c->size ? c->work : NULL,
			   c->extra_len ? c->work + c->size : NULL, c->extra_len, c->nonblock, NULL,
			   NULL);
	FUZZ_CHECK(r == 0 || r == NODE_CAMERA || (r < 0 && r > -4096));
	if (trace)
		fprintf(stderr, "call %x: %d\n", c->cmd, r);
	if (r != NODE_CAMERA)
		call_drop(c);
}

/* The device gives the call up (its file closes, the daemon stops). */
static void call_abandon(struct harness *h)
{
	if (!h->call.used)
		return;
	node_call_abandon(&h->n);
	call_drop(&h->call);
}

/* What device.c's reply_ioctl sends back. */
static void check_out(struct harness *h, struct node_file *f, unsigned cmd, const uint8_t *block,
		      int r, const void *out, size_t out_len)
{
	if (out) {
		FUZZ_CHECK(r == 0 && cmd == VIDIOC_DQBUF);
		FUZZ_CHECK(out_len <= h->n.max_userptr_copy);
		(void)touch(out, out_len);
		/* sometimes the app's ioctl is interrupted before the data round */
		if (fuzz_u8(&h->in) & 1)
			node_dqbuf_lost(&h->n, f, (const struct v4l2_buffer *)block);
	}
}

/* One process's queue, chosen by the input (NULL: no file open). */
static struct vq *some_queue(struct harness *h)
{
	unsigned k = fuzz_u8(&h->in), count = 0;
	for (struct node_proc *p = h->n.procs; p; p = p->next)
		count++;
	if (!count)
		return NULL;
	struct node_proc *p = h->n.procs;
	for (k %= count; k; k--)
		p = p->next;
	return &p->queue;
}

/* A frame as device_frames.c delivers one: the next queued buffer of a
 * process, some bytes written, done (maybe errored) or handed back. */
static void frame(struct harness *h)
{
	struct vq *q = some_queue(h);
	if (!q)
		return;
	struct vq_buffer *b = vq_next(q);
	uint8_t how = fuzz_u8(&h->in);
	uint32_t used = fuzz_u32(&h->in);
	if (!b)
		return;
	FUZZ_CHECK(b->mem && b->length >= b->plane_size);
	used = b->length ? used % (uint32_t)(b->length + 1) : 0;
	if (used) { /* the assembler writes the frame's bytes: its ends will do */
		b->mem[0] = how;
		b->mem[used - 1] = how;
	}
	if (how == 0xff) {
		vq_requeue(q, b);
		return;
	}
	struct timeval tv = { .tv_sec = 1, .tv_usec = how };
	vq_done(q, b, used, how & 1 ? V4L2_BUF_FLAG_ERROR : 0, how, &tv);
}

static void check_read(struct harness *h, struct node_file *f, int r, size_t want,
		       const uint8_t *data, size_t len)
{
	FUZZ_CHECK(r == 0 || (r < 0 && r > -4096));
	if (r == 0) {
		FUZZ_CHECK(len <= want);
		FUZZ_CHECK(!len || data);
		(void)touch(data, len);
		node_read_done(&h->n, f, len);
	}
}

static void do_read(struct harness *h, struct node_file *f, bool nonblock)
{
	size_t want = fuzz_u16(&h->in) * 4u;
	bool first = fuzz_u8(&h->in) & 1;
	const uint8_t *data = NULL;
	size_t len = 0;
	int r = node_read(&h->n, f, want, first, nonblock, &data, &len);
	if (r == NODE_WAIT) {
		FUZZ_CHECK(!nonblock);
		park_read(h, f, want);
		return;
	}
	check_read(h, f, r, want, data, len);
}

static void status_packet(struct harness *h)
{
	uint8_t packet[UVC_STATUS_MAX_SIZE];
	size_t len = fuzz_u8(&h->in) % (sizeof(packet) + 1);
	fuzz_fill(&h->in, packet, len);
	uint8_t *p = fuzz_dup(packet, len);
	struct uvc_status st;
	/* device.c's on_status */
	if (uvc_status_parse(p, len, &st) == UVC_STATUS_CONTROL &&
	    st.attribute == UVC_STATUS_ATTR_VALUE) {
		int r = 0;
		if (!h->call.used) {
			while ((r = node_status_event(&h->n, st.originator, st.selector, st.value,
						      st.value_len)) == NODE_CAMERA)
				answer_need(h);
		}
		FUZZ_CHECK(r >= 0 || r == -ENOENT);
	}
	free(p);
}

static void log_line(void *ctx, const char *fmt, ...)
{
	(void)ctx;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
}

static void step(struct harness *h)
{
	uint8_t op = fuzz_u8(&h->in);
	unsigned which = (op >> 4) % MAX_FILES;
	struct node_file *f = h->files[which];
	switch (op & 15) {
	default: /* 0..7: most steps are ioctls */
		if (f)
			do_ioctl(h, f, h->nonblock[which]);
		break;
	case 8:
		frame(h);
		break;
	case 9:
		if (f)
			do_read(h, f, h->nonblock[which]);
		break;
	case 10:
		if (f)
			(void)node_poll(&h->n, f, fuzz_u8(&h->in) & 1 ? POLLIN | POLLPRI : POLLPRI);
		break;
	case 11:
		if (f) {
			if (h->call.used && h->call.file == which)
				call_abandon(h);
			unpark(&h->parked[which]); /* CUSE answers it before release */
			node_release(&h->n, f);
			free(f);
			h->files[which] = NULL;
		} else {
			f = malloc(sizeof(*f));
			FUZZ_CHECK(f);
			FUZZ_CHECK(node_open_process(&h->n, f, file_pid(h, which), 1) == 0);
			h->files[which] = f;
		}
		break;
	case 12:
		status_packet(h);
		break;
	case 13:
		h->nonblock[which] = !h->nonblock[which];
		break;
	case 14:
		/* the camera answers a waiting call, or the stream dies (or
		 * does not start: the commit refused) */
		if (h->call.used)
			call_answer(h);
		else if (fuzz_u8(&h->in) & 1) {
			node_stream_failed(&h->n);
			h->fake.streaming = false; /* the camera never started */
		}
		else if (some_queue(h))
			node_set_error(&h->n);
		break;
	case 15:
		/* once per input: it reads every control (slow) */
		if (!h->logged)
			node_log_status(&h->n, log_line, NULL);
		h->logged = true;
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool env_read;
	if (!env_read) {
		trace = getenv("FUZZ_TRACE") != NULL;
		env_read = true;
	}
	struct harness *h = calloc(1, sizeof(*h));
	FUZZ_CHECK(h);
	h->in = (struct fuzz_in){ data, size };
	const struct uvc_camera *cam = vcam_camera(fuzz_u8(&h->in));
	uint8_t flags = fuzz_u8(&h->in);
	struct uvc_probe probe = { .format_index = 1, .frame_index = 1, .interval = 333333,
				   .max_video_frame_size = FAKE_FRAME_SIZE };
	struct node_identity id = fake_identity();
	FUZZ_CHECK(node_init(&h->n, cam, &id, &probe, &fake_ops, &h->fake, &fake_mem, NULL) == 0);
	h->n.max_userptr_copy = USERPTR_COPY;
	h->n.convert = flags & 1;
	h->n.async = flags & 2;
	h->processes = flags & 4;
	h->n.exclusive = flags & 8;
	h->fake.in = &h->in;
	for (unsigned i = 0; i < MAX_FILES; i++) {
		h->files[i] = malloc(sizeof(*h->files[i]));
		FUZZ_CHECK(h->files[i]);
		FUZZ_CHECK(node_open_process(&h->n, h->files[i], file_pid(h, i), 1) == 0);
		h->nonblock[i] = true;
	}
	for (unsigned steps = 0; h->in.n && steps < 256; steps++) {
		step(h);
		wake_all(h);
	}
	call_abandon(h);
	for (unsigned i = 0; i < MAX_FILES; i++)
		if (h->files[i]) {
			unpark(&h->parked[i]);
			node_release(&h->n, h->files[i]);
			free(h->files[i]);
		}
	node_destroy(&h->n);
	FUZZ_CHECK(!h->fake.streaming);
	free(h);
	return 0;
}

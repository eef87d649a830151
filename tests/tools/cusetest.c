/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-cusetest: a CUSE node built on src/cuse/ that answers a few table
 * ioctls and read() with fixed, checkable content, so tests/e2e/cuse-node.sh
 * can prove the marshalling byte-exact, parked requests, interrupts, many
 * opens, a taken name and node removal.
 *
 *   uvcuse-cusetest --name NAME [--frames N] [--debug] [--hold-ms MS]
 *                                                        serve /dev/NAME
 *   uvcuse-cusetest --ioctls                             print the table
 *
 * Content:
 * - QUERYCAP: driver "cusetest", card "cusetest card", bus_info "cuse:NAME".
 * - S_FMT/TRY_FMT: echoes pix with bytesperline = 2 * width, sizeimage =
 *   bytesperline * height, field NONE; S_FMT stores it for G_FMT.
 * - G/S/TRY_EXT_CTRLS: G answers value = id * 3 + index (or the stored S
 *   value); S stores; a control with id 0 fails EINVAL with error_idx at it.
 * - DQBUF, memory USERPTR: writes length bytes of pattern (byte i =
 *   (i * 7 + sequence) & 0xff) to m.userptr through cuse_reply_ioctl_data().
 * - DQBUF, memory MMAP: parks until any file's QBUF (or, when index is 1, a
 *   200 ms timer) releases it; EAGAIN for O_NONBLOCK files.
 * - STREAMON: makes one frame ready (wakes a parked read, pollers).
 * - read(): each read() call takes one frame of FRAME_SIZE bytes, byte p =
 *   p % 251; parks while no frame is ready (--frames N: ready at start, -1:
 *   always). Interrupted requests are answered EINTR and logged.
 * - UVCIOC_CTRL_QUERY: GET_CUR fills data[i] = i ^ 0xa5; SET_CUR checks it
 *   reads size bytes. LOG_STATUS logs the counters.
 * - G_INPUT (a test channel): the number of parked requests, so a client
 *   knows another one's request reached the server before it acts.
 * Other table ioctls: ENOTTY from the handler. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/usb/video.h>
#include <linux/uvcvideo.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "cuse/cuse.h"
#include "cuse/ioctl_table.h"
#include "v4l2/ioctls.h"
#include "core/loop.h"

#define FRAME_SIZE (600 * 1024)

struct parked {
	struct cuse_req *req;
	struct tfile *file;
	bool is_read, timer;
	size_t size; /* read: the chunk asked for */
	struct v4l2_buffer buf; /* DQBUF: the argument */
	struct parked *next;
};

struct tfile {
	int id;
};

struct test {
	const char *name;
	struct loop *loop;
	struct cuse_server *server;
	long frames; /* ready frames, -1: always */
	unsigned sequence;
	struct v4l2_pix_format pix;
	int32_t ctrl_values[8]; /* S_EXT_CTRLS for ids 1..8 */
	bool ctrl_set[8];
	struct parked *parked;
	struct cuse_file *files[1024];
	int timerfd;
	unsigned long opens, releases, interrupts, ioctls, reads;
	int next_id;
};

static unsigned char read_pattern[FRAME_SIZE];

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "cusetest: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void park(struct test *t, struct cuse_req *req, struct tfile *f, size_t size,
		 const struct v4l2_buffer *buf, bool timer)
{
	struct parked *p = calloc(1, sizeof(*p));
	if (!p) {
		cuse_reply_error(req, ENOMEM);
		return;
	}
	*p = (struct parked){ .req = req, .file = f, .is_read = !buf, .timer = timer,
			      .size = size, .next = t->parked };
	if (buf)
		p->buf = *buf;
	t->parked = p;
	/* Listed first: park may call ops->interrupt at once. */
	cuse_req_park(req);
}

/* Unlinks the first parked request matching, or NULL. */
static struct parked *unpark(struct test *t, bool (*match)(struct parked *, void *), void *arg)
{
	struct parked **last = NULL;
	/* Oldest first: the list is newest first, so take the last match. */
	for (struct parked **pp = &t->parked; *pp; pp = &(*pp)->next)
		if (match(*pp, arg))
			last = pp;
	if (!last)
		return NULL;
	struct parked *p = *last;
	*last = p->next;
	return p;
}

static bool match_req(struct parked *p, void *arg) { return p->req == arg; }
static bool match_read(struct parked *p, void *arg) { (void)arg; return p->is_read; }
static bool match_dqbuf(struct parked *p, void *arg) { (void)arg; return !p->is_read; }
static bool match_timer(struct parked *p, void *arg) { (void)arg; return !p->is_read && p->timer; }

static void answer_read(struct test *t, struct cuse_req *req, size_t size, off_t off)
{
	if (off >= FRAME_SIZE) {
		cuse_reply_read(req, NULL, 0);
		return;
	}
	size_t n = FRAME_SIZE - (size_t)off;
	if (n > size)
		n = size;
	t->reads++;
	cuse_reply_read(req, read_pattern + off, n);
}

static void answer_dqbuf(struct test *t, struct cuse_req *req, struct v4l2_buffer *b)
{
	b->sequence = t->sequence++;
	b->bytesused = 4096;
	b->flags = V4L2_BUF_FLAG_DONE;
	cuse_reply_ioctl(req, 0, b);
}

static void notify_all(struct test *t)
{
	for (size_t i = 0; i < sizeof(t->files) / sizeof(t->files[0]); i++)
		if (t->files[i])
			cuse_file_notify_poll(t->files[i]);
}

/* A frame became ready: the oldest parked read takes it. */
static void frame_ready(struct test *t)
{
	if (t->frames >= 0)
		t->frames++;
	struct parked *p = unpark(t, match_read, NULL);
	if (p) {
		if (t->frames > 0)
			t->frames--;
		answer_read(t, p->req, p->size, 0);
		free(p);
	}
	notify_all(t);
}

static int t_open(void *ctx, struct cuse_file *file, int flags, void **data)
{
	struct test *t = ctx;
	(void)flags;
	struct tfile *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	size_t i;
	for (i = 0; i < sizeof(t->files) / sizeof(t->files[0]); i++)
		if (!t->files[i])
			break;
	if (i == sizeof(t->files) / sizeof(t->files[0])) {
		free(f);
		return -EMFILE;
	}
	t->files[i] = file;
	f->id = (int)i;
	t->opens++;
	*data = f;
	return 0;
}

static void t_release(void *ctx, void *data)
{
	struct test *t = ctx;
	struct tfile *f = data;
	for (struct parked *p = t->parked; p; p = p->next)
		if (p->file == f)
			logf_("BUG: release with a parked request");
	t->files[f->id] = NULL;
	t->releases++;
	free(f);
}

static void t_read(void *ctx, void *data, struct cuse_req *req, size_t size, off_t off, int flags)
{
	struct test *t = ctx;
	if (off > 0) {
		answer_read(t, req, size, off);
		return;
	}
	if (t->frames != 0) {
		if (t->frames > 0)
			t->frames--;
		answer_read(t, req, size, off);
		return;
	}
	if (flags & O_NONBLOCK) {
		cuse_reply_error(req, EAGAIN);
		return;
	}
	park(t, req, data, size, NULL, false);
}

static unsigned t_poll(void *ctx, void *data, unsigned requested)
{
	(void)requested;
	struct test *t = ctx;
	(void)data;
	return t->frames != 0 ? POLLIN | POLLRDNORM : 0;
}

static void t_interrupt(void *ctx, void *data, struct cuse_req *req)
{
	struct test *t = ctx;
	(void)data;
	struct parked *p = unpark(t, match_req, req);
	if (!p)
		return;
	t->interrupts++;
	logf_("interrupted %s from pid %d", p->is_read ? "read" : "DQBUF", (int)cuse_req_pid(req));
	cuse_reply_error(req, EINTR);
	free(p);
}

static void ext_ctrls(struct test *t, struct cuse_req *req, unsigned cmd, struct v4l2_ext_controls *c,
		      struct v4l2_ext_control *ctrls, size_t extra_len)
{
	if (extra_len != c->count * sizeof(*ctrls)) {
		logf_("BUG: EXT_CTRLS extra %zu for count %u", extra_len, c->count);
		cuse_reply_ioctl(req, -EIO, c);
		return;
	}
	for (unsigned i = 0; i < c->count; i++) {
		struct v4l2_ext_control x;
		memcpy(&x, &ctrls[i], sizeof(x));
		if (x.id == 0) {
			c->error_idx = i;
			cuse_reply_ioctl(req, -EINVAL, c);
			return;
		}
		unsigned slot = x.id % 8;
		if (cmd == VIDIOC_G_EXT_CTRLS) {
			x.value = t->ctrl_set[slot] ? t->ctrl_values[slot] : (int32_t)(x.id * 3 + i);
		} else if (cmd == VIDIOC_S_EXT_CTRLS) {
			t->ctrl_values[slot] = x.value;
			t->ctrl_set[slot] = true;
		}
		memcpy(&ctrls[i], &x, sizeof(x));
	}
	c->error_idx = c->count;
	cuse_reply_ioctl(req, 0, c);
}

static void t_ioctl(void *ctx, void *data, struct cuse_req *req, unsigned int cmd, void *arg,
		    void *extra, size_t extra_len)
{
	struct test *t = ctx;
	t->ioctls++;
	switch (cmd) {
	case VIDIOC_QUERYCAP: {
		struct v4l2_capability *cap = arg;
		snprintf((char *)cap->driver, sizeof(cap->driver), "cusetest");
		snprintf((char *)cap->card, sizeof(cap->card), "cusetest card");
		snprintf((char *)cap->bus_info, sizeof(cap->bus_info), "cuse:%s", t->name);
		cap->version = 0x060100;
		cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_READWRITE;
		cap->capabilities = cap->device_caps | V4L2_CAP_DEVICE_CAPS;
		cuse_reply_ioctl(req, 0, cap);
		return;
	}
	case VIDIOC_G_FMT:
	case VIDIOC_S_FMT:
	case VIDIOC_TRY_FMT: {
		struct v4l2_format *f = arg;
		if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) {
			cuse_reply_ioctl(req, -EINVAL, NULL);
			return;
		}
		if (cmd == VIDIOC_G_FMT) {
			f->fmt.pix = t->pix;
		} else {
			f->fmt.pix.bytesperline = f->fmt.pix.width * 2;
			f->fmt.pix.sizeimage = f->fmt.pix.bytesperline * f->fmt.pix.height;
			f->fmt.pix.field = V4L2_FIELD_NONE;
			if (cmd == VIDIOC_S_FMT)
				t->pix = f->fmt.pix;
		}
		cuse_reply_ioctl(req, 0, f);
		return;
	}
	case VIDIOC_G_EXT_CTRLS:
	case VIDIOC_S_EXT_CTRLS:
	case VIDIOC_TRY_EXT_CTRLS:
		ext_ctrls(t, req, cmd, arg, extra, extra_len);
		return;
	case VIDIOC_DQBUF: {
		struct v4l2_buffer *b = arg;
		if (b->memory == V4L2_MEMORY_USERPTR) {
			unsigned char *pat = malloc(b->length ? b->length : 1);
			if (!pat) {
				cuse_reply_ioctl(req, -ENOMEM, NULL);
				return;
			}
			b->sequence = t->sequence++;
			for (size_t i = 0; i < b->length; i++)
				pat[i] = (unsigned char)((i * 7 + b->sequence) & 0xff);
			b->bytesused = b->length;
			b->flags = V4L2_BUF_FLAG_DONE;
			cuse_reply_ioctl_data(req, 0, b, b->m.userptr, pat, b->length);
			free(pat);
			return;
		}
		if (cuse_file_flags(cuse_req_file(req)) & O_NONBLOCK) {
			cuse_reply_ioctl(req, -EAGAIN, NULL);
			return;
		}
		if (b->index == 1) {
			struct itimerspec its = { .it_value = { .tv_nsec = 200 * 1000 * 1000 } };
			timerfd_settime(t->timerfd, 0, &its, NULL);
		}
		park(t, req, data, 0, b, b->index == 1);
		return;
	}
	case VIDIOC_QBUF: {
		struct parked *p = unpark(t, match_dqbuf, NULL);
		if (p) {
			answer_dqbuf(t, p->req, &p->buf);
			free(p);
		}
		cuse_reply_ioctl(req, 0, arg);
		return;
	}
	case VIDIOC_STREAMON:
		frame_ready(t);
		cuse_reply_ioctl(req, 0, NULL);
		return;
	case UVCIOC_CTRL_QUERY: {
		struct uvc_xu_control_query *q = arg;
		unsigned char *d = extra;
		if (extra_len != q->size) {
			cuse_reply_ioctl(req, -EIO, NULL);
			return;
		}
		if (q->query == UVC_GET_CUR) {
			for (size_t i = 0; i < q->size; i++)
				d[i] = (unsigned char)(i ^ 0xa5);
		} else if (q->query == UVC_SET_CUR) {
			for (size_t i = 0; i < q->size; i++)
				if (d[i] != (unsigned char)(i ^ 0x5a)) {
					cuse_reply_ioctl(req, -EBADMSG, NULL);
					return;
				}
		}
		cuse_reply_ioctl(req, 0, q);
		return;
	}
	case VIDIOC_G_INPUT: {
		int n = 0;
		for (struct parked *p = t->parked; p; p = p->next)
			n++;
		cuse_reply_ioctl(req, 0, &n);
		return;
	}
	case VIDIOC_LOG_STATUS:
		logf_("status: %lu opens, %lu releases, %lu ioctls, %lu read chunks, %lu interrupts",
		      t->opens, t->releases, t->ioctls, t->reads, t->interrupts);
		cuse_reply_ioctl(req, 0, NULL);
		return;
	default:
		cuse_reply_ioctl(req, -ENOTTY, NULL);
	}
}

static void on_timer(void *data, uint32_t events)
{
	struct test *t = data;
	(void)events;
	uint64_t n;
	if (read(t->timerfd, &n, sizeof(n)) < 0)
		return;
	struct parked *p;
	while ((p = unpark(t, match_timer, NULL))) {
		answer_dqbuf(t, p->req, &p->buf);
		free(p);
	}
}

static void on_signal(void *data, uint32_t events)
{
	struct loop *loop = data;
	(void)events;
	loop_quit(loop, 0);
}

/* The node's ioctls (src/v4l2/ioctls.c), each with its V4L2 layout. */
static size_t node_layouts(struct cuse_ioctl_desc *out, size_t max)
{
	size_t n;
	const struct node_ioctl *t = node_ioctl_table(&n);
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = cuse_ioctl_describe(t[i].cmd, t[i].name,
					     t[i].flags & NODE_IOC_COPY_ON_ERROR, t[i].regions);
	return n < max ? n : max;
}

static int print_table(void)
{
	size_t n;
	const struct node_ioctl *d = node_ioctl_table(&n);
	for (size_t i = 0; i < n; i++)
		printf("%s 0x%08x %u\n", d[i].name, d[i].cmd, _IOC_SIZE(d[i].cmd));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "frames", required_argument, NULL, 'f' },
		{ "debug", no_argument, NULL, 'd' },
		{ "ioctls", no_argument, NULL, 'i' },
		{ "hold-ms", required_argument, NULL, 'h' },
		{ 0 },
	};
	struct test t = { .frames = 0 };
	bool debug = false;
	long hold_ms = 0;
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n': t.name = optarg; break;
		case 'f': t.frames = strtol(optarg, NULL, 0); break;
		case 'd': debug = true; break;
		case 'i': return print_table();
		case 'h': hold_ms = strtol(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (!t.name) {
		fprintf(stderr, "usage: uvcuse-cusetest --name NAME [--frames N] [--debug] | --ioctls\n");
		return 2;
	}
	for (size_t i = 0; i < FRAME_SIZE; i++)
		read_pattern[i] = (unsigned char)(i % 251);
	t.pix = (struct v4l2_pix_format){ .width = 640, .height = 480,
					  .pixelformat = V4L2_PIX_FMT_YUYV, .field = V4L2_FIELD_NONE,
					  .bytesperline = 1280, .sizeimage = 1280 * 480 };

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	t.timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sfd < 0 || t.timerfd < 0 || loop_new(&t.loop) < 0) {
		perror("cusetest: setup");
		return 1;
	}
	loop_add(t.loop, sfd, EPOLLIN, on_signal, t.loop);
	loop_add(t.loop, t.timerfd, EPOLLIN, on_timer, &t);

	static const struct cuse_server_ops ops = {
		.open = t_open, .release = t_release, .ioctl = t_ioctl,
		.read = t_read, .poll = t_poll, .interrupt = t_interrupt,
	};
	static struct cuse_ioctl_desc layouts[64];
	struct cuse_server_config cfg = { .devname = t.name, .debug = debug, .ioctls = layouts,
					  .n_ioctls = node_layouts(layouts, 64) };
	int err = cuse_server_new(t.loop, &cfg, &ops, &t, &t.server);
	if (err < 0) {
		if (err == -EEXIST)
			fprintf(stderr, "cusetest: /dev/%s: name taken\n", t.name);
		else
			fprintf(stderr, "cusetest: cannot serve /dev/%s: %s\n", t.name, strerror(-err));
		loop_free(t.loop);
		close(sfd);
		close(t.timerfd);
		return err == -EEXIST ? 3 : 1;
	}
	/* --hold-ms: the name is checked but not registered yet, so a second
	 * server can take it and the kernel refuses this one's CUSE_INIT. */
	if (hold_ms > 0) {
		fprintf(stderr, "cusetest: /dev/%s: name checked, holding %ld ms\n", t.name, hold_ms);
		usleep((useconds_t)hold_ms * 1000);
	}
	logf_("serving /dev/%s", t.name);
	int status = loop_run(t.loop);
	logf_("exit: status %d, session %d; %lu opens, %lu releases, %lu interrupts", status,
	      cuse_server_status(t.server), t.opens, t.releases, t.interrupts);
	while (t.parked) {
		struct parked *p = t.parked;
		t.parked = p->next;
		cuse_reply_error(p->req, ESHUTDOWN);
		free(p);
	}
	cuse_server_free(t.server);
	loop_free(t.loop);
	close(sfd);
	close(t.timerfd);
	return status;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CUSE session on the daemon's loop (see cuse.h). libfuse's
 * cuse_lowlevel_setup() would install signal handlers and daemonize, so the
 * session is built with cuse_lowlevel_new() and /dev/cuse is opened here and
 * handed over as "/dev/fd/N" (fuse_session_mount() takes such an fd without
 * mounting anything). Requests are read and processed on the loop thread
 * only; libfuse spawns no thread in this mode. */
#include "cuse/cuse_priv.h"

#include <cuse_lowlevel.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/loop.h"

/* Requests read per loop wake-up: one. A second read mostly meets EAGAIN
 * (a syscall per request, tens of µs in the test VM: scripts/bench counts
 * them), and the loop's epoll is level-triggered, so a queued request
 * wakes it again, after the other fds had their turn. */
#define RECEIVE_BATCH 1

size_t cuse_max_chunk(void)
{
	return CUSE_IOCTL_MAX_DATA;
}

/* ---- requests ---- */

static struct cuse_req *req_new(struct cuse_file *file, fuse_req_t req, enum req_kind kind,
				size_t block_size)
{
	struct cuse_req *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	if (block_size) {
		r->block = calloc(1, block_size);
		if (!r->block) {
			free(r);
			return NULL;
		}
	}
	r->req = req;
	r->file = file;
	r->kind = kind;
	struct cuse_server *s = file->server;
	r->next = s->reqs;
	if (s->reqs)
		s->reqs->prev = r;
	s->reqs = r;
	return r;
}

void cuse_req_done(struct cuse_req *r)
{
	struct cuse_server *s = r->file->server;
	if (r->prev)
		r->prev->next = r->next;
	else
		s->reqs = r->next;
	if (r->next)
		r->next->prev = r->prev;
	free(r->block);
	free(r);
}

pid_t cuse_req_pid(const struct cuse_req *req)
{
	return fuse_req_ctx(req->req)->pid;
}

uid_t cuse_req_uid(const struct cuse_req *req)
{
	return fuse_req_ctx(req->req)->uid;
}

struct cuse_file *cuse_req_file(const struct cuse_req *req)
{
	return req->file;
}

/* libfuse calls this from the loop thread while it processes the kernel's
 * FUSE_INTERRUPT for a parked request; the owner answers, which frees r.
 * libfuse holds its own reference to the fuse request meanwhile
 * (find_interrupted()), so answering inside the callback is safe. */
static void on_interrupt(fuse_req_t req, void *data)
{
	(void)req;
	struct cuse_req *r = data;
	struct cuse_server *s = r->file->server;
	s->ops->interrupt(s->ctx, r->file->data, r);
}

void cuse_req_park(struct cuse_req *req)
{
	/* fuse_req_interrupt_func() calls an already interrupted request's
	 * function itself, holding the request's lock, and unlocks it after:
	 * an answer given in there frees the request first (use after free).
	 * So an interrupted request is handed to the owner here instead. */
	if (fuse_req_interrupted(req->req)) {
		struct cuse_server *s = req->file->server;
		s->ops->interrupt(s->ctx, req->file->data, req);
		return;
	}
	fuse_req_interrupt_func(req->req, on_interrupt, req);
}

void cuse_reply_error(struct cuse_req *req, int err)
{
	fuse_reply_err(req->req, err);
	cuse_req_done(req);
}

void cuse_reply_read(struct cuse_req *req, const void *data, size_t len)
{
	if (len > req->read_size) {
		log_warn("cuse: read answer of %zu bytes cut to the %zu asked for", len,
			 req->read_size);
		len = req->read_size;
	}
	fuse_reply_buf(req->req, data, len);
	cuse_req_done(req);
}

void cuse_req_store_answer(struct cuse_req *r, const void *arg)
{
	const struct cuse_ioctl_desc *d = &r->desc;
	if (d->from_native)
		d->from_native(arg ? arg : r->native, r->block);
	else if (arg && arg != r->block && d->size)
		memmove(r->block, arg, d->size);
}

void cuse_reply_ioctl(struct cuse_req *req, int result, const void *arg)
{
	const struct cuse_ioctl_desc *d = &req->desc;
	cuse_req_store_answer(req, arg);
	if (result < 0 && !(d->flags & CUSE_IOCTL_ALWAYS_COPY)) {
		fuse_reply_ioctl(req->req, result, NULL, 0);
	} else {
		struct iovec iov[1 + CUSE_IOCTL_MAX_EXTRA];
		for (unsigned i = 0; i < req->n_out; i++)
			iov[i] = (struct iovec){ req->block + req->out_src[i], req->out_iov[i].iov_len };
		fuse_reply_ioctl_iov(req->req, result, iov, (int)req->n_out);
	}
	cuse_req_done(req);
}

/* ---- files ---- */

static struct cuse_file *file_of(const struct fuse_file_info *fi)
{
	return (struct cuse_file *)(uintptr_t)fi->fh;
}

void *cuse_file_data(const struct cuse_file *file)
{
	return file->data;
}

pid_t cuse_file_opener(const struct cuse_file *file)
{
	return file->opener;
}

uid_t cuse_file_opener_uid(const struct cuse_file *file)
{
	return file->opener_uid;
}

int cuse_file_flags(const struct cuse_file *file)
{
	return file->flags;
}

void cuse_file_set_flags(struct cuse_file *file, int flags)
{
	file->flags = flags;
}

void cuse_file_notify_poll(struct cuse_file *file)
{
	if (!file->ph)
		return;
	/* One wakeup per handle: the woken poller polls again and sends a
	 * new one. */
	fuse_lowlevel_notify_poll(file->ph);
	fuse_pollhandle_destroy(file->ph);
	file->ph = NULL;
}

static void file_free(struct cuse_file *f)
{
	struct cuse_server *s = f->server;
	if (f->prev)
		f->prev->next = f->next;
	else
		s->files = f->next;
	if (f->next)
		f->next->prev = f->prev;
	if (f->ph)
		fuse_pollhandle_destroy(f->ph);
	cuse_answers_free(f);
	free(f);
}

/* ---- libfuse callbacks (loop thread) ---- */

static void ll_init_done(void *userdata)
{
	struct cuse_server *s = userdata;
	s->init_done = true;
}

static void ll_open(fuse_req_t req, struct fuse_file_info *fi)
{
	struct cuse_server *s = fuse_req_userdata(req);
	struct cuse_file *f = calloc(1, sizeof(*f));
	if (!f) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	f->server = s;
	f->flags = fi->flags;
	f->opener = fuse_req_ctx(req)->pid;
	f->opener_uid = fuse_req_ctx(req)->uid;
	s->opens++;
	int err = s->ops->open(s->ctx, f, fi->flags, &f->data);
	if (err < 0) {
		free(f);
		fuse_reply_err(req, -err);
		return;
	}
	f->next = s->files;
	if (s->files)
		s->files->prev = f;
	s->files = f;
	fi->fh = (uintptr_t)f;
	fi->nonseekable = 1;
	/* -ENOENT: the opener is gone and no release will come. */
	if (fuse_reply_open(req, fi) != 0) {
		s->ops->release(s->ctx, f->data);
		file_free(f);
	}
}

static void ll_release(fuse_req_t req, struct fuse_file_info *fi)
{
	struct cuse_server *s = fuse_req_userdata(req);
	struct cuse_file *f = file_of(fi);
	s->ops->release(s->ctx, f->data);
	file_free(f);
	fuse_reply_err(req, 0);
}

static void ll_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct cuse_server *s = fuse_req_userdata(req);
	struct cuse_file *f = file_of(fi);
	f->flags = fi->flags;
	cuse_answers_lost_by(f, fuse_req_ctx(req)->pid);
	struct cuse_req *r = req_new(f, req, REQ_READ, 0);
	if (!r) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	r->read_size = size;
	s->ops->read(s->ctx, f->data, r, size, off, fi->flags);
}

static void ll_poll(fuse_req_t req, struct fuse_file_info *fi, struct fuse_pollhandle *ph)
{
	struct cuse_server *s = fuse_req_userdata(req);
	struct cuse_file *f = file_of(fi);
	/* The kernel has one poll handle per open file (its kh): the newest
	 * handle replaces the older. */
	if (ph) {
		if (f->ph)
			fuse_pollhandle_destroy(f->ph);
		f->ph = ph;
	}
	fuse_reply_poll(req, s->ops->poll(s->ctx, f->data, fi->poll_events));
}

/* Counts retry rounds whose sizes show the app changing the argument; true
 * when that ioctl has had enough. */
static bool too_many_mismatches(struct cuse_file *f, unsigned int cmd, unsigned long user_arg)
{
	if (f->mismatch_cmd != cmd || f->mismatch_arg != user_arg) {
		f->mismatch_cmd = cmd;
		f->mismatch_arg = user_arg;
		f->mismatches = 0;
	}
	return ++f->mismatches > CUSE_IOCTL_MAX_MISMATCH;
}

/* A command no table entry serves. As the V4L2 core (video_usercopy):
 * what the caller passes in is copied before the command is looked at, so
 * a bad pointer is EFAULT, from the kernel's copy, even for a command
 * nobody serves. */
static void reply_unserved(fuse_req_t req, unsigned int cmd, void *arg, unsigned int flags,
			   size_t in_bufsz)
{
	size_t in_size = _IOC_SIZE(cmd);
	if (!(flags & FUSE_IOCTL_COMPAT) && (_IOC_DIR(cmd) & _IOC_WRITE) && in_size &&
	    in_bufsz < in_size) {
		struct iovec in = { .iov_base = arg, .iov_len = in_size };
		fuse_reply_ioctl_retry(req, &in, 1, NULL, 0);
		return;
	}
	fuse_reply_err(req, ENOTTY);
}

/* Asks the kernel for the round the plan wants, unless the caller keeps
 * changing the argument between rounds (then EINVAL). */
static void reply_retry(fuse_req_t req, struct cuse_file *f, const struct cuse_ioctl_desc *d,
			unsigned int cmd, unsigned long user_arg, const struct cuse_plan *plan)
{
	if (plan->mismatch && too_many_mismatches(f, cmd, user_arg)) {
		log_warn("cuse: %s from pid %d: the argument keeps changing between "
			 "retries: EINVAL", d->name, (int)fuse_req_ctx(req)->pid);
		f->mismatches = 0;
		fuse_reply_err(req, EINVAL);
		return;
	}
	fuse_reply_ioctl_retry(req, plan->in_iov, plan->n_in, plan->out_iov, plan->n_out);
}

/* Every byte of the call came in: the owner gets it as a request. */
static void ioctl_call(fuse_req_t req, struct cuse_file *f, const struct cuse_ioctl_desc *d,
		       unsigned int cmd, unsigned long user_arg, const struct cuse_plan *plan)
{
	struct cuse_server *s = fuse_req_userdata(req);
	/* The request may be parked: the argument and regions move to a block
	 * it owns, followed by the native form of a 32-bit argument (aligned
	 * for its 8-byte fields). */
	size_t native_at = (d->size + plan->extra_len + 15) & ~(size_t)15;
	size_t block = d->to_native ? native_at + d->native_size : d->size + plan->extra_len;
	struct cuse_req *r = req_new(f, req, REQ_IOCTL, block);
	if (!r) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	r->desc = *d;
	r->user_arg = user_arg;
	r->n_out = plan->n_out;
	memcpy(r->out_iov, plan->out_iov, sizeof(plan->out_iov));
	memcpy(r->out_src, plan->out_src, sizeof(plan->out_src));
	if (plan->arg)
		memcpy(r->block, plan->arg, d->size);
	if (plan->extra_len)
		memcpy(r->block + d->size, plan->extra, plan->extra_len);
	void *arg = d->size ? r->block : NULL;
	if (d->to_native) {
		r->native = r->block + native_at;
		d->to_native(r->block, r->native);
		arg = r->native;
		cmd = d->native_cmd;
	}
	s->ops->ioctl(s->ctx, f->data, r, cmd, arg, plan->extra_len ? r->block + d->size : NULL,
		      plan->extra_len);
}

static void ll_ioctl(fuse_req_t req, int cmd_, void *arg, struct fuse_file_info *fi,
		     unsigned int flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	const struct cuse_server *s = fuse_req_userdata(req);
	struct cuse_file *f = file_of(fi);
	unsigned int cmd = (unsigned int)cmd_;
	unsigned long user_arg = (unsigned long)(uintptr_t)arg;

	/* A 32-bit caller's command: its own form where its layout differs. */
	const struct cuse_ioctl_desc *d =
		cuse_ioctl_lookup(s->ioctls, s->n_ioctls, cmd, flags & FUSE_IOCTL_COMPAT);
	if (!d) {
		reply_unserved(req, cmd, arg, flags, in_bufsz);
		return;
	}
	if (cuse_answer_retry(f, req, cmd, user_arg, in_bufsz, out_bufsz))
		return;

	struct cuse_plan plan;
	int err = cuse_ioctl_plan(d, user_arg, in_buf, in_bufsz, out_bufsz, &plan);
	if (err == -E2BIG)
		log_warn("cuse: %s: the argument names more than %u bytes: E2BIG", d->name,
			 CUSE_IOCTL_MAX_DATA);
	if (err < 0) {
		fuse_reply_err(req, -err);
		return;
	}
	if (plan.kind == CUSE_PLAN_RETRY) {
		reply_retry(req, f, d, cmd, user_arg, &plan);
		return;
	}
	if (f->mismatch_cmd == cmd && f->mismatch_arg == user_arg)
		f->mismatches = 0;
	if (log_get_level() >= LOG_LEVEL_DEBUG)
		log_debug("cuse: %s pid %d arg %zu extra %zu", d->name, (int)fuse_req_ctx(req)->pid,
			  d->size, plan.extra_len);
	ioctl_call(req, f, d, cmd, user_arg, &plan);
}

static const struct cuse_lowlevel_ops ll_ops = {
	.init_done = ll_init_done,
	.open = ll_open,
	.read = ll_read,
	.release = ll_release,
	.ioctl = ll_ioctl,
	.poll = ll_poll,
};

/* ---- the session ---- */

static void session_ended(struct cuse_server *s, int err)
{
	if (s->status)
		return;
	s->status = err;
	/* libfuse reports init_done once it has answered CUSE_INIT; the
	 * kernel may still refuse the device then (its name is taken), so
	 * "never opened" is the hint that it never appeared. */
	if (!s->init_done || !s->opens)
		log_error("cuse: the session ended before /dev/%s was used (%s): the kernel "
			  "refused the device (name taken?)", s->devname, strerror(-err));
	else
		log_error("cuse: the session of /dev/%s ended (%s)", s->devname, strerror(-err));
	loop_remove(s->loop, s->fd);
	if (!s->optional)
		loop_quit(s->loop, 1);
}

static void on_channel(void *data, uint32_t events)
{
	(void)events;
	struct cuse_server *s = data;
	for (int i = 0; i < RECEIVE_BATCH && !s->status; i++) {
		int n = fuse_session_receive_buf(s->se, &s->buf);
		if (n == -EAGAIN || n == -EINTR)
			return;
		/* libfuse turns ENODEV (the kernel aborted the connection,
		 * e.g. it refused the device name) into exited + 0. */
		if (fuse_session_exited(s->se) || n == 0) {
			session_ended(s, -ENODEV);
			return;
		}
		if (n < 0) {
			session_ended(s, n);
			return;
		}
		fuse_session_process_buf(s->se, &s->buf);
	}
}

static bool name_taken(const char *devname)
{
	char path[300];
	struct stat st;
	snprintf(path, sizeof(path), "/dev/%s", devname);
	if (lstat(path, &st) == 0)
		return true;
	snprintf(path, sizeof(path), "/sys/class/cuse/%s", devname);
	return lstat(path, &st) == 0;
}

int cuse_open_control(void)
{
	int fd = open("/dev/cuse", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int cuse_server_new(struct loop *loop, const struct cuse_server_config *cfg,
		    const struct cuse_server_ops *ops, void *ctx, struct cuse_server **out)
{
	if (!cfg->devname || !*cfg->devname || strchr(cfg->devname, '/') ||
	    strlen(cfg->devname) > 200)
		return -EINVAL;
	for (size_t i = 0; i < cfg->n_ioctls; i++)
		if (cfg->ioctls[i].native_size > CUSE_IOCTL_MAX_NATIVE)
			return -EINVAL;
	if (name_taken(cfg->devname))
		return -EEXIST;
	struct cuse_server *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = (struct cuse_server){ .loop = loop, .ops = ops, .ctx = ctx, .fd = -1 };
	snprintf(s->devname, sizeof(s->devname), "%s", cfg->devname);
	s->optional = cfg->optional;
	s->ioctls = cfg->ioctls;
	s->n_ioctls = cfg->n_ioctls;

	int err;
	char devinfo[220];
	snprintf(devinfo, sizeof(devinfo), "DEVNAME=%s", cfg->devname);
	const char *dev_info_argv[] = { devinfo };
	struct cuse_info ci = {
		.dev_info_argc = 1,
		.dev_info_argv = dev_info_argv,
		.flags = CUSE_UNRESTRICTED_IOCTL,
	};
	char prog[] = "uvcuse", debug[] = "-d";
	char *argv[] = { prog, cfg->debug ? debug : NULL, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(cfg->debug ? 2 : 1, argv);
	s->se = cuse_lowlevel_new(&args, &ci, &ll_ops, s);
	fuse_opt_free_args(&args);
	if (!s->se) {
		err = -ENOMEM;
		goto fail;
	}
	int fd = cfg->control_fd ? *cfg->control_fd : cuse_open_control();
	if (fd < 0) {
		err = fd;
		goto fail;
	}
	char mnt[32];
	snprintf(mnt, sizeof(mnt), "/dev/fd/%d", fd);
	if (fuse_session_mount(s->se, mnt) != 0) {
		if (!cfg->control_fd) /* the caller's stays the caller's on failure */
			close(fd);
		err = -EIO;
		goto fail;
	}
	s->fd = fd; /* owned by the session from here */
	err = loop_add(loop, fd, EPOLLIN, on_channel, s);
	if (err < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	if (s->se)
		fuse_session_destroy(s->se);
	free(s);
	return err;
}

void cuse_server_free(struct cuse_server *server)
{
	if (!server)
		return;
	if (!server->status)
		loop_remove(server->loop, server->fd);
	/* Requests the owner still holds end with EIO; files go without
	 * ops->release (the owner is tearing down its own state). */
	while (server->reqs)
		cuse_reply_error(server->reqs, EIO);
	while (server->files)
		file_free(server->files);
	/* Closing /dev/cuse makes the kernel unregister the device. */
	fuse_session_unmount(server->se);
	fuse_session_destroy(server->se);
	free(server->buf.mem);
	free(server);
}

int cuse_server_status(const struct cuse_server *server)
{
	return server->status;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cuse_reply_ioctl_data(): an ioctl's answer that carries data to a user
 * region the kernel has not mapped (a USERPTR buffer) is kept while the
 * kernel retries the ioctl with that region mapped, and sent then; one the
 * kernel never comes back for is lost, and its owner told. */
#include "cuse/cuse_priv.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "core/log.h"

/* Answers kept for cuse_reply_ioctl_data() retries, per file. */
#define MAX_PENDING_ANSWERS 8

/* An ioctl answered with data for a user region that the kernel still has
 * to map: sent when the kernel re-issues (cmd, user_arg) with exactly
 * in_len bytes in and len bytes of room. */
struct pending_answer {
	unsigned int cmd;
	unsigned long user_arg;
	pid_t tid; /* the caller's thread: its next request is the retry */
	int result;
	size_t in_len, len;
	/* a 32-bit caller's form: what the owner is told of it is native */
	unsigned int native_cmd;
	void (*to_native)(const void *arg, void *native);
	struct pending_answer *next;
	unsigned char buf[]; /* the argument (for _IOR) then the data */
};

/* a will never be sent: its owner hears of it, then it is freed. */
static void answer_lose(struct cuse_file *f, struct pending_answer *a)
{
	if (!a)
		return;
	const struct cuse_server *s = f->server;
	if (s->ops->answer_lost && a->to_native) {
		_Alignas(16) unsigned char native[CUSE_IOCTL_MAX_NATIVE];
		a->to_native(a->buf, native);
		s->ops->answer_lost(s->ctx, f->data, a->native_cmd, native);
	} else if (s->ops->answer_lost) {
		s->ops->answer_lost(s->ctx, f->data, a->cmd, a->buf);
	}
	free(a);
}

/* The kernel gave those up: the retry comes at once, from the same thread,
 * within the same ioctl call. */
void cuse_answers_lost_by(struct cuse_file *f, pid_t tid)
{
	struct pending_answer *lost = NULL;
	for (struct pending_answer **p = &f->answers; *p;) {
		struct pending_answer *a = *p;
		if (a->tid == tid) {
			*p = a->next;
			a->next = lost;
			lost = a;
		} else {
			p = &a->next;
		}
	}
	/* unlinked first: the owner's callback may reply to other requests */
	while (lost) {
		struct pending_answer *next = lost->next;
		answer_lose(f, lost);
		lost = next;
	}
}

void cuse_answers_free(struct cuse_file *f)
{
	while (f->answers) {
		struct pending_answer *a = f->answers;
		f->answers = a->next;
		free(a);
	}
}

/* Unlinks and returns the answer for (cmd, user_arg), if any. */
static struct pending_answer *answer_take(struct cuse_file *f, unsigned int cmd,
					  unsigned long user_arg)
{
	for (struct pending_answer **p = &f->answers; *p; p = &(*p)->next) {
		struct pending_answer *a = *p;
		if (a->cmd == cmd && a->user_arg == user_arg) {
			*p = a->next;
			return a;
		}
	}
	return NULL;
}

/* Keeps a, replacing an older answer for the same ioctl and dropping the
 * oldest beyond MAX_PENDING_ANSWERS (their callers went away). */
static void answer_keep(struct cuse_file *f, struct pending_answer *a)
{
	answer_lose(f, answer_take(f, a->cmd, a->user_arg));
	a->next = f->answers;
	f->answers = a;
	unsigned n = 0;
	for (struct pending_answer **p = &f->answers; *p; p = &(*p)->next) {
		if (++n > MAX_PENDING_ANSWERS) {
			struct pending_answer *old = *p;
			*p = NULL;
			while (old) {
				struct pending_answer *next = old->next;
				answer_lose(f, old);
				old = next;
			}
			break;
		}
	}
}


bool cuse_answer_retry(struct cuse_file *f, fuse_req_t req, unsigned int cmd,
		       unsigned long user_arg, size_t in_bufsz, size_t out_bufsz)
{
	if (!f->answers)
		return false;
	struct pending_answer *a = answer_take(f, cmd, user_arg);
	if (a && a->in_len == in_bufsz && a->len == out_bufsz) {
		fuse_reply_ioctl(req, a->result, a->buf, a->len);
		free(a);
		return true;
	}
	if (a)
		answer_keep(f, a);
	cuse_answers_lost_by(f, fuse_req_ctx(req)->pid);
	return false;
}

void cuse_reply_ioctl_data(struct cuse_req *req, int result, const void *arg,
			   unsigned long user_addr, const void *data, size_t len)
{
	const struct cuse_ioctl_desc *d = &req->desc;
	if (result < 0 || len == 0) {
		cuse_reply_ioctl(req, result, arg);
		return;
	}
	size_t arg_len = (_IOC_DIR(d->cmd) & _IOC_READ) ? d->size : 0;
	if (d->size == 0) {
		log_error("cuse: %s has no argument to carry data: EINVAL", d->name);
		cuse_reply_error(req, EINVAL);
		return;
	}
	if (arg_len + len > cuse_max_chunk()) {
		log_error("cuse: %s: %zu bytes of data exceed the %zu an ioctl can carry: E2BIG",
			  d->name, len, cuse_max_chunk() - arg_len);
		cuse_reply_error(req, E2BIG);
		return;
	}
	/* The table never maps a USERPTR buffer into a plan, so the data
	 * always travels in a further round: keep the answer, let the kernel
	 * map the buffer, send the answer when it re-issues the ioctl.
	 * The retry asks for the argument in again although it is not needed:
	 * Linux 6.1's fuse_do_ioctl() keeps in_pages set from the previous
	 * round, and a retry without in data makes it send a page of our own
	 * iovec reply in place of struct fuse_ioctl_in. */
	struct pending_answer *a = malloc(sizeof(*a) + arg_len + len);
	if (!a) {
		cuse_reply_error(req, ENOMEM);
		return;
	}
	*a = (struct pending_answer){ .cmd = d->cmd, .user_arg = req->user_arg,
				      .tid = fuse_req_ctx(req->req)->pid, .result = result,
				      .in_len = d->size, .len = arg_len + len,
				      .native_cmd = d->native_cmd,
				      .to_native = arg_len ? d->to_native : NULL };
	cuse_req_store_answer(req, arg);
	memcpy(a->buf, req->block, arg_len);
	memcpy(a->buf + arg_len, data, len);
	struct iovec out[2];
	unsigned n = 0;
	if (arg_len)
		out[n++] = (struct iovec){ (void *)(uintptr_t)req->user_arg, arg_len };
	out[n++] = (struct iovec){ (void *)(uintptr_t)user_addr, len };
	struct cuse_file *f = req->file;
	struct iovec in = { (void *)(uintptr_t)req->user_arg, d->size };
	if (fuse_reply_ioctl_retry(req->req, &in, 1, out, n) == 0)
		answer_keep(f, a);
	else
		answer_lose(f, a); /* the caller is gone */
	cuse_req_done(req);
}

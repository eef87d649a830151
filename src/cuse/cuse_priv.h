/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to src/cuse/: the server, its files and requests, shared by the
 * session (cuse.c) and the answers kept for a USERPTR retry (ioctl_data.c). */
#ifndef UVCUSE_CUSE_PRIV_H
#define UVCUSE_CUSE_PRIV_H

/* libfuse's API version: before any libfuse header. */
#define FUSE_USE_VERSION 31

#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "cuse/cuse.h"
#include "cuse/ioctl_table.h"

struct pending_answer; /* ioctl_data.c */

struct cuse_file {
	struct cuse_server *server;
	void *data;
	int flags;
	pid_t opener;   /* the thread that opened it (the request's pid) */
	uid_t opener_uid;
	struct fuse_pollhandle *ph;
	struct pending_answer *answers;
	/* The ioctl whose argument keeps changing between retry rounds. */
	unsigned int mismatch_cmd;
	unsigned long mismatch_arg;
	unsigned mismatches;
	struct cuse_file *prev, *next;
};

enum req_kind { REQ_IOCTL, REQ_READ };

struct cuse_req {
	fuse_req_t req;
	struct cuse_file *file;
	enum req_kind kind;
	/* ioctl */
	struct cuse_ioctl_desc desc;
	unsigned long user_arg;
	struct iovec out_iov[1 + CUSE_IOCTL_MAX_EXTRA];
	size_t out_src[1 + CUSE_IOCTL_MAX_EXTRA];
	unsigned n_out;
	size_t read_size;
	struct cuse_req *prev, *next;
	unsigned char *block; /* the argument, then the regions */
	unsigned char *native; /* in block: a 32-bit argument's native form */
};

struct cuse_server {
	struct loop *loop;
	struct fuse_session *se;
	int fd;
	const struct cuse_server_ops *ops;
	void *ctx;
	const struct cuse_ioctl_desc *ioctls; /* the owner's (cuse_server_config) */
	size_t n_ioctls;
	int status;
	bool init_done;
	bool optional; /* cuse_server_config.optional */
	unsigned long opens;
	char devname[201];
	struct fuse_buf buf;
	struct cuse_file *files;
	struct cuse_req *reqs; /* every request not answered yet */
};

/* cuse.c: after a request's answer, libfuse has freed r->req, and we free r. */
void cuse_req_done(struct cuse_req *r);
/* cuse.c: the owner's answer (arg; NULL: the argument it was handed) into
 * r->block in the caller's layout, ready to be copied out. */
void cuse_req_store_answer(struct cuse_req *r, const void *arg);

/* ioctl_data.c: the ioctl (cmd, user_arg) arriving with in_bufsz bytes in
 * and out_bufsz of room: true when it was the retry of an answer kept for
 * it, which is then sent. Otherwise the kept answers of the request's
 * thread are given up, as by cuse_answers_lost_by(). */
bool cuse_answer_retry(struct cuse_file *f, fuse_req_t req, unsigned int cmd,
		       unsigned long user_arg, size_t in_bufsz, size_t out_bufsz);
/* Thread tid sent a request that is not the retry of its kept answers: the
 * owner hears of each one lost (ops->answer_lost). */
void cuse_answers_lost_by(struct cuse_file *f, pid_t tid);
/* The file's kept answers freed unsent (the file goes). */
void cuse_answers_free(struct cuse_file *f);

#endif

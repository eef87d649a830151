/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The buffer socket and its token registry (see bufshare.h). */
#include "share/bufshare.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/accept.h"
#include "core/loop.h"
#include "core/process.h"
#include "share/udmabuf.h"
#include "uvcuse/passed_fds.h"

struct token {
	void *file;
	pid_t tgid;
	uid_t uid;
	uint64_t serial; /* issue order: the oldest goes first */
	uint8_t bytes[UVCUSE_TOKEN_LEN];
};

struct conn {
	struct bufshare *bs;
	int fd;
	pid_t pid;
	uid_t uid;
	uint64_t since_ms; /* accepted (CLOCK_MONOTONIC) */
};

struct bufshare {
	struct loop *loop;
	int fd;
	char path[UVCUSE_SOCKET_PATH_MAX];
	bufshare_lookup_cb lookup;
	bufshare_channel_cb channel;
	bufshare_import_cb import;
	void *ctx;
	struct token *tokens;
	size_t n_tokens, cap_tokens;
	uint64_t serial;
	struct conn *conns[BUFSHARE_MAX_CONNS];
	struct bufshare_limits limits;
	struct accept_reserve reserve; /* an fd to shed connections with at EMFILE */
	gid_t gid; /* the socket's group */
	struct log_limit refusal_limit; /* refusal lines: at most a few a second */
	int udmabuf;     /* /dev/udmabuf (bufshare_set_dmabuf), or -errno */
	bool dmabuf_said; /* why EXPBUF cannot be served: logged once */
};

/* Whether a refusal may be logged: a local client hammering the socket
 * must not flood the log. */
static bool refusal_log_ok(struct bufshare *bs)
{
	return log_allowed(&bs->refusal_limit, 5);
}

/* --- tokens -------------------------------------------------------------- */

static void token_drop(struct bufshare *bs, size_t i)
{
	bs->tokens[i] = bs->tokens[--bs->n_tokens];
}

int bufshare_hello(struct bufshare *bs, void *file, pid_t pid, uid_t uid,
		   struct uvcuse_hello *out)
{
	/* The caller is blocked in this ioctl, so its thread id names it
	 * now; SO_PEERCRED will show its thread group. */
	struct process_id who;
	int err = process_identify(pid, &who);
	if (err)
		return err;
	struct token t = { .file = file, .tgid = who.tgid, .uid = uid, .serial = ++bs->serial };
	if (getrandom(t.bytes, sizeof(t.bytes), 0) != (ssize_t)sizeof(t.bytes))
		return -EAGAIN;
	/* Bounded per file: an app looping on HELLO cannot grow the daemon. */
	size_t count = 0, oldest = 0;
	for (size_t i = 0; i < bs->n_tokens; i++) {
		if (bs->tokens[i].file != file)
			continue;
		if (!count++ || bs->tokens[i].serial < bs->tokens[oldest].serial)
			oldest = i;
	}
	if (count >= BUFSHARE_TOKENS_PER_FILE)
		token_drop(bs, oldest);
	if (bs->n_tokens == bs->cap_tokens) {
		size_t cap = bs->cap_tokens ? bs->cap_tokens * 2 : 16;
		struct token *n = realloc(bs->tokens, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		bs->tokens = n;
		bs->cap_tokens = cap;
	}
	bs->tokens[bs->n_tokens++] = t;
	memset(out, 0, sizeof(*out));
	out->magic = UVCUSE_MAGIC;
	out->abi_version = UVCUSE_ABI_VERSION;
	memcpy(out->token, t.bytes, sizeof(t.bytes));
	memcpy(out->socket_path, bs->path, sizeof(out->socket_path));
	return 0;
}

void bufshare_forget(struct bufshare *bs, void *file)
{
	for (size_t i = 0; i < bs->n_tokens;) {
		if (bs->tokens[i].file == file)
			token_drop(bs, i);
		else
			i++;
	}
}

size_t bufshare_tokens(const struct bufshare *bs)
{
	return bs->n_tokens;
}

/* Constant time: the comparison tells nothing about how close a guess was. */
static bool token_equal(const uint8_t *a, const uint8_t *b)
{
	uint8_t d = 0;
	for (size_t i = 0; i < UVCUSE_TOKEN_LEN; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

int bufshare_parse_request(const void *msg, size_t len, struct uvcuse_buf_request *req)
{
	if (len != sizeof(*req))
		return -EPROTO;
	memcpy(req, msg, sizeof(*req));
	if (req->magic != UVCUSE_MAGIC || req->abi_version != UVCUSE_ABI_VERSION)
		return -EPROTO;
	return 0;
}

int bufshare_authorize(struct bufshare *bs, const struct uvcuse_buf_request *req, pid_t peer_pid,
		       uid_t peer_uid, void **file)
{
	for (size_t i = 0; i < bs->n_tokens; i++) {
		struct token t = bs->tokens[i];
		if (!token_equal(t.bytes, req->token))
			continue;
		token_drop(bs, i); /* one use, whatever the outcome */
		if (t.tgid != peer_pid || t.uid != peer_uid) {
			if (refusal_log_ok(bs))
				log_warn("buffer socket: refused pid %d uid %u: token issued to pid %d uid %u",
					 (int)peer_pid, (unsigned)peer_uid, (int)t.tgid,
					 (unsigned)t.uid);
			return -EACCES;
		}
		*file = t.file;
		return 0;
	}
	if (refusal_log_ok(bs))
		log_warn("buffer socket: refused pid %d uid %u: unknown token", (int)peer_pid,
			 (unsigned)peer_uid);
	return -EACCES;
}

/* --- connections ------------------------------------------------------- */

/* Forgets the connection; its fd stays open when keep_fd (a channel's). */
static void conn_drop(struct conn *c, bool keep_fd)
{
	struct bufshare *bs = c->bs;
	for (size_t i = 0; i < BUFSHARE_MAX_CONNS; i++)
		if (bs->conns[i] == c)
			bs->conns[i] = NULL;
	if (bs->loop)
		loop_remove(bs->loop, c->fd);
	if (!keep_fd)
		close(c->fd);
	free(c);
}

static void conn_close(struct conn *c)
{
	conn_drop(c, false);
}

ssize_t bufshare_send2(int sock, const void *msg, size_t len, int fd, int fd2)
{
	struct iovec iov = { (void *)msg, len };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[2], n = 0;
	if (fd >= 0)
		fds[n++] = fd;
	if (fd2 >= 0)
		fds[n++] = fd2;
	if (n) {
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(n * sizeof(int));
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	}
	/* never blocks the loop; a peer that went away costs nothing (no SIGPIPE) */
	return sendmsg(sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

ssize_t bufshare_send(int sock, const void *msg, size_t len, int fd)
{
	return bufshare_send2(sock, msg, len, fd, -1);
}

static void send_reply_fd(int fd, pid_t pid, int status, int memfd, int fd2, uint64_t size)
{
	struct uvcuse_buf_reply r = { .magic = UVCUSE_MAGIC, .status = status, .size = size };
	/* A fresh SEQPACKET connection has room for one small message. */
	if (bufshare_send2(fd, &r, sizeof(r), status == 0 ? memfd : -1,
			   status == 0 && memfd >= 0 ? fd2 : -1) < 0)
		log_debug("buffer socket: reply to pid %d lost: %s", (int)pid, strerror(errno));
}

static void send_reply(struct conn *c, int status, int memfd, uint64_t size)
{
	send_reply_fd(c->fd, c->pid, status, memfd, -1, size);
}

int bufshare_seal(int memfd)
{
	/* The app gets a writable fd: seal the size so it cannot shrink the
	 * memory under the daemon's writes (SIGBUS). Idempotent. */
	if (fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0) {
		log_warn("buffer socket: cannot seal buffer memory: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

/* A dma-buf over the whole of memfd, which it replaces (VIDIOC_EXPBUF).
 * Without /dev/udmabuf: -ENOTTY, as a driver that cannot export answers,
 * and one line saying why. */
static int export_dmabuf(struct bufshare *bs, int *memfd, uint64_t size)
{
	int fd = udmabuf_export(bs->udmabuf, *memfd, (size_t)size);
	if (fd < 0 && !bs->dmabuf_said) {
		bs->dmabuf_said = true;
		int why = bs->udmabuf < 0 ? -bs->udmabuf : -fd;
		log_warn("VIDIOC_EXPBUF: no dma-buf for %s: %s", bs->path, strerror(why));
	}
	if (fd < 0)
		return bs->udmabuf < 0 ? -ENOTTY : fd;
	*memfd = fd; /* ours to close once sent; the memfd stays its owner's */
	return 0;
}

/* The fd answering req (*memfd: the owner's memfd, or a dma-buf over it
 * that is ours to close, *made), and the memory's size. */
static int serve(struct conn *c, const struct uvcuse_buf_request *req, int *memfd,
		 uint64_t *size, bool *made)
{
	struct bufshare *bs = c->bs;
	void *file;
	int err = bufshare_authorize(bs, req, c->pid, c->uid, &file);
	if (err < 0)
		return err;
	bool dmabuf = (req->offset & UVCUSE_DMABUF_FLAG) && !(req->offset & UVCUSE_STAGING_FLAG);
	uint64_t offset = dmabuf ? req->offset & ~UVCUSE_DMABUF_FLAG : req->offset;
	err = bs->lookup(bs->ctx, file, offset, req->length, memfd);
	if (err < 0)
		return err;
	err = bufshare_seal(*memfd);
	struct stat st;
	if (!err && fstat(*memfd, &st) < 0)
		err = -EIO;
	if (!err && dmabuf)
		err = export_dmabuf(bs, memfd, (uint64_t)st.st_size);
	if (err < 0)
		return err;
	*made = dmabuf;
	*size = (uint64_t)st.st_size;
	return 0;
}

void bufshare_set_dmabuf(struct bufshare *bs, int udmabuf)
{
	bs->udmabuf = udmabuf;
}

void bufshare_set_import(struct bufshare *bs, bufshare_import_cb import)
{
	bs->import = import;
}

/* One message of c into buf, and the fd it passed (*passed, -1: none; at
 * most one is taken, any other closed): recvmsg's answer. */
static ssize_t recv_request(struct conn *c, char *buf, size_t len, int *passed)
{
	struct iovec iov = { buf, len };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	*passed = -1;
	ssize_t n = recvmsg(c->fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n >= 0)
		uvcuse_take_passed_fds(&m, passed, 1, close);
	return n;
}

/* The connection becomes the file's fast-path channel: answered here, c
 * gone. */
static void serve_channel(struct conn *c, const struct uvcuse_buf_request *req)
{
	void *file;
	struct bufshare *bs = c->bs;
	int status = bufshare_authorize(bs, req, c->pid, c->uid, &file);
	if (status == 0 && !bs->channel)
		status = -EOPNOTSUPP;
	if (status < 0) {
		send_reply(c, status, -1, 0);
		conn_close(c);
		return;
	}
	int fd = c->fd;
	pid_t pid = c->pid;
	conn_drop(c, true); /* off the loop, fd kept */
	int ring = -1, bell = -1;
	status = bs->channel(bs->ctx, file, fd, pid, &ring, &bell);
	send_reply_fd(fd, pid, status, ring, bell, 0);
	if (status < 0)
		close(fd);
}

/* A DMABUF import: the passed dma-buf to the owner (who keeps it on
 * success), for the file the token names. */
static int serve_import(struct conn *c, const struct uvcuse_buf_request *req, int *passed)
{
	void *file;
	struct bufshare *bs = c->bs;
	int status = bufshare_authorize(bs, req, c->pid, c->uid, &file);
	if (status < 0)
		return status;
	if (*passed < 0 || !bs->import)
		return -EINVAL;
	status = bs->import(bs->ctx, file, UVCUSE_IMPORT_INDEX(req->offset),
			    UVCUSE_IMPORT_FD(req->offset), *passed);
	if (status == 0)
		*passed = -1; /* the owner's now */
	return status;
}

static void on_conn(void *data, uint32_t events)
{
	struct conn *c = data;
	(void)events;
	union {
		struct uvcuse_buf_request req;
		char buf[sizeof(struct uvcuse_buf_request) + 1]; /* + 1: detects longer */
	} msg;
	int passed;
	ssize_t n = recv_request(c, msg.buf, sizeof(msg.buf), &passed);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (passed >= 0)
			close(passed);
		conn_close(c);
		return;
	}
	struct uvcuse_buf_request req;
	int memfd = -1;
	uint64_t size = 0;
	bool made = false; /* memfd is a dma-buf of ours */
	int status = bufshare_parse_request(msg.buf, (size_t)n, &req);
	bool import = status == 0 && (req.offset & UVCUSE_IMPORT_FLAG) &&
		      !(req.offset & (UVCUSE_STAGING_FLAG | UVCUSE_CHANNEL_OFFSET));
	if (status < 0) {
		log_warn("buffer socket: malformed request from pid %d", (int)c->pid);
	} else if (req.offset == UVCUSE_CHANNEL_OFFSET && passed < 0) {
		serve_channel(c, &req);
		return;
	} else if (import) {
		status = serve_import(c, &req, &passed);
	} else if (passed >= 0) {
		status = -EINVAL; /* nothing else passes an fd */
	} else {
		status = serve(c, &req, &memfd, &size, &made);
	}
	if (passed >= 0)
		close(passed);
	send_reply(c, status, memfd, size);
	if (made)
		close(memfd);
	conn_close(c); /* one request per connection */
}

/* Whether a peer of this uid may hold a connection: only a user holding
 * an unused token, i.e. one that has the node open and said HELLO. Anyone
 * else could only be refused later, so it gets no slot at all. */
static bool peer_uid_ok(const struct bufshare *bs, uid_t uid)
{
	for (size_t i = 0; i < bs->n_tokens; i++)
		if (bs->tokens[i].uid == uid)
			return true;
	return false;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Connections that waited longer than the limit for their request are
 * closed: the slots they held are free again. */
static void close_idle(struct bufshare *bs, uint64_t now)
{
	unsigned closed = 0;
	for (int i = 0; i < BUFSHARE_MAX_CONNS; i++) {
		struct conn *c = bs->conns[i];
		if (c && now - c->since_ms > bs->limits.idle_ms) {
			conn_close(c);
			closed++;
		}
	}
	if (closed && refusal_log_ok(bs))
		log_warn("buffer socket: closed %u connections that sent no request within %u ms",
			 closed, bs->limits.idle_ms);
}

/* Why a new connection of pid and uid gets no slot, or NULL; its slot in *slot. */
static const char *no_slot_for(const struct bufshare *bs, pid_t pid, uid_t uid, int *slot)
{
	unsigned of_pid = 0, of_uid = 0, used = 0;
	*slot = -1;
	for (int i = 0; i < BUFSHARE_MAX_CONNS; i++) {
		const struct conn *c = bs->conns[i];
		if (!c) {
			if (*slot < 0)
				*slot = i;
			continue;
		}
		used++;
		of_pid += c->pid == pid;
		of_uid += c->uid == uid;
	}
	if (of_pid >= bs->limits.conns_per_process)
		return "the process has as many connections waiting as it may";
	if (of_uid >= bs->limits.conns_per_uid)
		return "the user has as many connections waiting as it may";
	if (used >= bs->limits.conns || *slot < 0)
		return "the table of waiting connections is full";
	return NULL;
}

static void on_listen(void *data, uint32_t events)
{
	struct bufshare *bs = data;
	(void)events;
	/* Bounded per wake-up: a flood of connects cannot starve the loop's
	 * other work (frames, CUSE requests); the rest waits for the next
	 * wake-up (level-triggered). */
	/* the idle connections' places, freed once a wake-up, not at each accept */
	uint64_t now = now_ms();
	close_idle(bs, now);
	for (int n = 0; n < BUFSHARE_ACCEPTS_PER_WAKE; n++) {
		int fd = accept_or_shed(bs->fd, &bs->reserve);
		if (fd == -EMFILE || fd == -ENFILE)
			continue; /* shed, logged: the next one may find an fd */
		if (fd < 0) {
			if (fd != -EAGAIN && refusal_log_ok(bs))
				log_warn("buffer socket: accept: %s", strerror(-fd));
			return;
		}
		struct ucred cred;
		socklen_t len = sizeof(cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
			close(fd);
			continue;
		}
		if (!peer_uid_ok(bs, cred.uid)) {
			if (refusal_log_ok(bs))
				log_warn("buffer socket: refused pid %d uid %u: holds no token",
					 (int)cred.pid, (unsigned)cred.uid);
			close(fd);
			continue;
		}
		/* Over a limit, the new connection is refused; the waiting
		 * ones keep their slots until they time out (evicting one
		 * that may still send its request would fail an mmap). */
		int slot;
		const char *why = no_slot_for(bs, cred.pid, cred.uid, &slot);
		if (why) {
			if (refusal_log_ok(bs))
				log_warn("buffer socket: refused pid %d uid %u: %s", (int)cred.pid,
					 (unsigned)cred.uid, why);
			close(fd);
			continue;
		}
		struct conn *c = calloc(1, sizeof(*c));
		if (!c || loop_add(bs->loop, fd, EPOLLIN, on_conn, c) < 0) {
			free(c);
			close(fd);
			continue;
		}
		*c = (struct conn){ .bs = bs, .fd = fd, .pid = cred.pid, .uid = cred.uid,
				    .since_ms = now };
		bs->conns[slot] = c;
	}
}

void bufshare_set_limits(struct bufshare *bs, const struct bufshare_limits *limits)
{
	bs->limits = *limits;
	if (bs->limits.conns > BUFSHARE_MAX_CONNS)
		bs->limits.conns = BUFSHARE_MAX_CONNS;
}

size_t bufshare_conns(const struct bufshare *bs)
{
	size_t n = 0;
	for (size_t i = 0; i < BUFSHARE_MAX_CONNS; i++)
		n += bs->conns[i] != NULL;
	return n;
}

int bufshare_follow_node(struct bufshare *bs, const char *node_path)
{
	struct stat st;
	if (stat(node_path, &st) < 0)
		return -errno;
	/* Who may connect is who may open the node: its group and group
	 * bits, and its ACL (udev's uaccess gives the seat's user one). */
	if (st.st_gid != bs->gid) {
		if (chown(bs->path, (uid_t)-1, st.st_gid) < 0)
			return -errno;
		bs->gid = st.st_gid;
	}
	mode_t mode = 0600 | (st.st_mode & 0060);
	if (chmod(bs->path, mode) < 0)
		return -errno;
	char acl[1024];
	ssize_t n = getxattr(node_path, "system.posix_acl_access", acl, sizeof(acl));
	if (n > 0 && setxattr(bs->path, "system.posix_acl_access", acl, (size_t)n, 0) < 0)
		return -errno;
	return 0;
}

/* --- set-up ------------------------------------------------------------ */

/* The socket's directory: a real directory, ours, writable by nobody else
 * (else someone could swap the socket for theirs). */
static int check_dir(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st) < 0) {
		if (errno != ENOENT || mkdir(dir, 0711) < 0 || lstat(dir, &st) < 0)
			return -errno;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return -EPERM;
	return 0;
}

int bufshare_new(struct loop *loop, const char *runtime_dir, const char *name,
		 bufshare_lookup_cb lookup, void *ctx, struct bufshare **out)
{
	char dir[UVCUSE_SOCKET_PATH_MAX], user_dir[UVCUSE_SOCKET_PATH_MAX];
	if (!runtime_dir) {
		/* systemd may list several, separated by ':'; the first is ours.
		 * A daemon run by a user (not root) uses that user's runtime
		 * directory. */
		const char *env = getenv("RUNTIME_DIRECTORY"), *xdg = getenv("XDG_RUNTIME_DIR");
		if (env && *env)
			runtime_dir = env;
		else if (geteuid() != 0 && xdg && *xdg &&
			 (size_t)snprintf(user_dir, sizeof(user_dir), "%s/uvcuse", xdg) <
				 sizeof(user_dir))
			runtime_dir = user_dir;
		else
			runtime_dir = "/run/uvcuse";
	}
	size_t dlen = strcspn(runtime_dir, ":");
	if (dlen >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, runtime_dir, dlen);
	dir[dlen] = 0;

	struct bufshare *bs = calloc(1, sizeof(*bs));
	if (!bs)
		return -ENOMEM;
	bs->loop = loop;
	bs->lookup = lookup;
	bs->ctx = ctx;
	bs->fd = -1;
	bs->udmabuf = -ENOTTY;
	bs->gid = getegid();
	accept_reserve_init(&bs->reserve, "buffer socket");
	bs->limits = (struct bufshare_limits){ BUFSHARE_MAX_CONNS, BUFSHARE_CONNS_PER_PROCESS,
					       BUFSHARE_CONNS_PER_UID, BUFSHARE_IDLE_MS };
	int err;
	if ((size_t)snprintf(bs->path, sizeof(bs->path), "%s/%s.sock", dir, name) >=
	    sizeof(bs->path)) {
		err = -ENAMETOOLONG;
		goto fail;
	}
	err = check_dir(dir);
	if (err < 0) {
		log_error("buffer socket: %s: %s", dir,
			  err == -EPERM ? "not a directory of ours closed to others" : strerror(-err));
		goto fail;
	}
	bs->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, bs->path, sizeof(bs->path));
	if (bs->fd < 0 || (unlink(bs->path) < 0 && errno != ENOENT) ||
	    bind(bs->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    /* Ours alone until bufshare_follow_node() opens it to the node's
	     * group; the token + SO_PEERCRED still decide who gets memory. */
	    chmod(bs->path, 0600) < 0 || listen(bs->fd, 16) < 0 ||
	    (loop && (err = loop_add(loop, bs->fd, EPOLLIN, on_listen, bs)) < 0)) {
		err = err < 0 ? err : -errno;
		log_error("buffer socket: %s: %s", bs->path, strerror(-err));
		unlink(bs->path);
		goto fail;
	}
	*out = bs;
	return 0;
fail:
	if (bs->fd >= 0)
		close(bs->fd);
	accept_reserve_free(&bs->reserve);
	free(bs);
	return err;
}

void bufshare_free(struct bufshare *bs)
{
	if (!bs)
		return;
	for (size_t i = 0; i < BUFSHARE_MAX_CONNS; i++)
		if (bs->conns[i])
			conn_close(bs->conns[i]);
	if (bs->loop)
		loop_remove(bs->loop, bs->fd);
	close(bs->fd);
	unlink(bs->path);
	accept_reserve_free(&bs->reserve);
	free(bs->tokens);
	free(bs);
}

void bufshare_set_channel(struct bufshare *bs, bufshare_channel_cb channel)
{
	bs->channel = channel;
}

const char *bufshare_path(const struct bufshare *bs)
{
	return bs->path;
}

int bufshare_fd(const struct bufshare *bs)
{
	return bs->fd;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The buffer socket (src/share/bufshare.c): request checks, the token registry
 * and its permission decisions, and the socket served from a real loop
 * handing over a sealed memfd. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "share/bufshare.h"
#include "share/dmabuf_map.h"
#include "core/log.h"
#include "core/loop.h"
#include "fd_count.h"
#include "unit_run.h"

#define BUF_SIZE (3 * 4096)
#define COOKIE 0x2000

static char dir[64];
static struct loop *loop;
static struct bufshare *bs;
static int memfd = -1;
static int file_a, file_b; /* two "open files": only A owns the buffer */
static int lookups;

static int lookup(void *ctx, void *file, uint64_t offset, uint64_t length, int *fd)
{
	ck_assert_ptr_eq(ctx, &lookups);
	lookups++;
	if (file != &file_a)
		return -EACCES;
	if (offset != COOKIE || length > BUF_SIZE)
		return -EINVAL;
	*fd = memfd;
	return 0;
}

static void setup(void)
{
	strcpy(dir, "/tmp/test_bufshare.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	chmod(dir, 0700);
	ck_assert_int_eq(loop_new(&loop), 0);
	ck_assert_int_eq(bufshare_new(loop, dir, "video99", lookup, &lookups, &bs), 0);
	memfd = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_ge(memfd, 0);
	ck_assert_int_eq(ftruncate(memfd, BUF_SIZE), 0);
	uint8_t *p = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	for (size_t i = 0; i < BUF_SIZE; i++)
		p[i] = (uint8_t)(i * 13 + 7);
	munmap(p, BUF_SIZE);
	lookups = 0;
}

static void teardown(void)
{
	bufshare_free(bs);
	loop_free(loop);
	close(memfd);
	rmdir(dir);
}

static struct uvcuse_buf_request request(const struct uvcuse_hello *h, uint64_t offset,
					 uint64_t length)
{
	struct uvcuse_buf_request r = { .magic = UVCUSE_MAGIC, .abi_version = UVCUSE_ABI_VERSION,
					.offset = offset, .length = length };
	memcpy(r.token, h->token, sizeof(r.token));
	return r;
}

START_TEST(parse_request)
{
	struct uvcuse_hello h = { 0 };
	struct uvcuse_buf_request r = request(&h, 1, 2), out;
	ck_assert_int_eq(bufshare_parse_request(&r, sizeof(r), &out), 0);
	ck_assert_uint_eq(out.offset, 1);
	ck_assert_uint_eq(out.length, 2);
	ck_assert_int_eq(bufshare_parse_request(&r, sizeof(r) - 1, &out), -EPROTO);
	ck_assert_int_eq(bufshare_parse_request(&r, 0, &out), -EPROTO);
	r.magic ^= 1;
	ck_assert_int_eq(bufshare_parse_request(&r, sizeof(r), &out), -EPROTO);
	r.magic ^= 1;
	r.abi_version = UVCUSE_ABI_VERSION + 1;
	ck_assert_int_eq(bufshare_parse_request(&r, sizeof(r), &out), -EPROTO);
}
END_TEST

/* A thread that tells its id and stays alive until told to end. */
static _Atomic pid_t thread_id;
static int thread_pipe[2];

static void *thread_main(void *arg)
{
	(void)arg;
	atomic_store(&thread_id, (pid_t)syscall(SYS_gettid));
	char c;
	ck_assert_int_eq(read(thread_pipe[0], &c, 1), 1);
	return NULL;
}

START_TEST(tgid_of_threads)
{
	ck_assert_int_eq(pipe(thread_pipe), 0);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, thread_main, NULL), 0);
	while (!atomic_load(&thread_id))
		usleep(1000);
	pid_t tid = atomic_load(&thread_id);
	ck_assert_int_ne(tid, getpid());
	/* a token asked for by a thread is bound to its process */
	struct uvcuse_hello h;
	void *file;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, tid, getuid(), &h), 0);
	struct uvcuse_buf_request r = { .magic = UVCUSE_MAGIC, .abi_version = UVCUSE_ABI_VERSION };
	memcpy(r.token, h.token, sizeof(r.token));
	ck_assert_int_eq(bufshare_authorize(bs, &r, getpid(), getuid(), &file), 0);
	ck_assert_int_eq(write(thread_pipe[1], "x", 1), 1);
	pthread_join(t, NULL);
	close(thread_pipe[0]);
	close(thread_pipe[1]);
	ck_assert_int_eq(bufshare_hello(bs, &file_a, 0x3fffffff, getuid(), &h), -ESRCH);
}
END_TEST

START_TEST(hello_fills_abi)
{
	struct uvcuse_hello h1, h2;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h1), 0);
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h2), 0);
	ck_assert_uint_eq(h1.magic, UVCUSE_MAGIC);
	ck_assert_uint_eq(h1.abi_version, UVCUSE_ABI_VERSION);
	ck_assert_str_eq(h1.socket_path, bufshare_path(bs));
	ck_assert_ptr_nonnull(strstr(h1.socket_path, "/video99.sock"));
	ck_assert(memcmp(h1.token, h2.token, UVCUSE_TOKEN_LEN) != 0);
	struct stat st;
	ck_assert_int_eq(stat(h1.socket_path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0600); /* ours until it follows the node */
	ck_assert_uint_eq(bufshare_tokens(bs), 2);
}
END_TEST

START_TEST(authorize_rules)
{
	struct uvcuse_hello h;
	void *file = NULL;
	pid_t me = getpid();
	uid_t uid = getuid();
	/* right token, process and user: once */
	ck_assert_int_eq(bufshare_hello(bs, &file_b, me, uid, &h), 0);
	struct uvcuse_buf_request r = request(&h, 0, 1);
	ck_assert_int_eq(bufshare_authorize(bs, &r, me, uid, &file), 0);
	ck_assert_ptr_eq(file, &file_b);
	ck_assert_int_eq(bufshare_authorize(bs, &r, me, uid, &file), -EACCES);
	/* another process: refused, and the token is gone */
	ck_assert_int_eq(bufshare_hello(bs, &file_b, me, uid, &h), 0);
	r = request(&h, 0, 1);
	ck_assert_int_eq(bufshare_authorize(bs, &r, me + 1, uid, &file), -EACCES);
	ck_assert_int_eq(bufshare_authorize(bs, &r, me, uid, &file), -EACCES);
	/* another user */
	ck_assert_int_eq(bufshare_hello(bs, &file_b, me, uid, &h), 0);
	r = request(&h, 0, 1);
	ck_assert_int_eq(bufshare_authorize(bs, &r, me, uid + 1, &file), -EACCES);
	/* a made-up token */
	ck_assert_int_eq(bufshare_hello(bs, &file_b, me, uid, &h), 0);
	r = request(&h, 0, 1);
	r.token[3] ^= 0x40;
	ck_assert_int_eq(bufshare_authorize(bs, &r, me, uid, &file), -EACCES);
	ck_assert_uint_eq(bufshare_tokens(bs), 1);
	/* a caller that vanished */
	ck_assert_int_eq(bufshare_hello(bs, &file_b, 0, uid, &h), -ESRCH);
}
END_TEST

START_TEST(tokens_bounded_and_forgotten)
{
	struct uvcuse_hello first, h;
	void *file;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &first), 0);
	for (int i = 0; i < 3 * BUFSHARE_TOKENS_PER_FILE; i++)
		ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	ck_assert_int_eq(bufshare_hello(bs, &file_b, getpid(), getuid(), &h), 0);
	ck_assert_uint_eq(bufshare_tokens(bs), BUFSHARE_TOKENS_PER_FILE + 1);
	/* the oldest was dropped */
	struct uvcuse_buf_request r = request(&first, 0, 1);
	ck_assert_int_eq(bufshare_authorize(bs, &r, getpid(), getuid(), &file), -EACCES);
	bufshare_forget(bs, &file_a);
	ck_assert_uint_eq(bufshare_tokens(bs), 1);
	/* a released file's token is dead */
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	r = request(&h, 0, 1);
	bufshare_forget(bs, &file_a);
	ck_assert_int_eq(bufshare_authorize(bs, &r, getpid(), getuid(), &file), -EACCES);
}
END_TEST

/* Client side of one request; *fd_out the memfd or -1. Runs the loop in
 * between (accept, then the request). */
static void send_passing(int s, const void *msg, size_t len, int passed)
{
	struct iovec iov = { (void *)msg, len };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof(u));
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (passed >= 0) {
		m.msg_control = u.buf;
		m.msg_controllen = sizeof(u.buf);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &passed, sizeof(int));
	}
	ck_assert_int_eq(sendmsg(s, &m, 0), (ssize_t)len);
}

/* client() passing fd 'passed' (-1: none) with the request. */
static int client_passing(const struct uvcuse_buf_request *req, size_t len, int passed,
			  int *fd_out)
{
	*fd_out = -1;
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	strcpy(sa.sun_path, bufshare_path(bs));
	ck_assert_int_eq(connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	send_passing(s, req, len, passed);
	int st;
	for (int i = 0; i < 3; i++)
		ck_assert_int_ge(loop_run_once(loop, 100, &st), 0);
	struct uvcuse_buf_reply rep;
	struct iovec iov = { &rep, sizeof(rep) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	ssize_t n = recvmsg(s, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	ck_assert_int_eq(n, sizeof(rep));
	ck_assert_uint_eq(rep.magic, UVCUSE_MAGIC);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(fd_out, CMSG_DATA(cm), sizeof(int));
	ck_assert_int_eq(recv(s, &rep, sizeof(rep), MSG_DONTWAIT), 0); /* closed after one */
	close(s);
	if (rep.status == 0 && passed < 0)
		ck_assert_uint_eq(rep.size, BUF_SIZE);
	return rep.status;
}

static int client(const struct uvcuse_buf_request *req, size_t len, int *fd_out)
{
	return client_passing(req, len, -1, fd_out);
}

START_TEST(socket_hands_over_memfd)
{
	struct uvcuse_hello h;
	int fd;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	struct uvcuse_buf_request r = request(&h, COOKIE, BUF_SIZE);
	ck_assert_int_eq(client(&r, sizeof(r), &fd), 0);
	ck_assert_int_ge(fd, 0);
	const uint8_t *p = mmap(NULL, BUF_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	for (size_t i = 0; i < BUF_SIZE; i++)
		ck_assert_uint_eq(p[i], (uint8_t)(i * 13 + 7));
	munmap((void *)p, BUF_SIZE);
	/* sealed: the app cannot shrink the daemon's memory */
	ck_assert_int_eq(ftruncate(fd, 4096), -1);
	ck_assert_int_eq(errno, EPERM);
	close(fd);
	/* the token was used up (another token admits the peer at accept) */
	struct uvcuse_hello other;
	ck_assert_int_eq(bufshare_hello(bs, &file_b, getpid(), getuid(), &other), 0);
	ck_assert_int_eq(client(&r, sizeof(r), &fd), -EACCES);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(lookups, 1);
}
END_TEST

START_TEST(socket_refusals)
{
	struct uvcuse_hello h;
	int fd;
	/* the lookup's answer: other file, bad offset or length */
	ck_assert_int_eq(bufshare_hello(bs, &file_b, getpid(), getuid(), &h), 0);
	struct uvcuse_buf_request r = request(&h, COOKIE, BUF_SIZE);
	ck_assert_int_eq(client(&r, sizeof(r), &fd), -EACCES);
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	r = request(&h, COOKIE + 4096, 4096);
	ck_assert_int_eq(client(&r, sizeof(r), &fd), -EINVAL);
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	r = request(&h, COOKIE, BUF_SIZE + 1);
	ck_assert_int_eq(client(&r, sizeof(r), &fd), -EINVAL);
	ck_assert_int_eq(lookups, 3);
	/* malformed, from a peer that holds a token (else refused at accept) */
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	ck_assert_int_eq(client(&r, sizeof(r) - 4, &fd), -EPROTO);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(lookups, 3);
}
END_TEST

/* What the import callback was given; it keeps the fd for file A only. */
static struct {
	int calls;
	void *file;
	unsigned index;
	int app_fd;
	int kept;
} imported = { .kept = -1 };

static int import(void *ctx, void *file, unsigned index, int app_fd, int dmabuf)
{
	ck_assert_ptr_eq(ctx, &lookups);
	imported.calls++;
	imported.file = file;
	imported.index = index;
	imported.app_fd = app_fd;
	if (file != &file_a)
		return -EBUSY;
	imported.kept = dmabuf;
	return 0;
}

/* DMABUF import: the passed fd reaches the owner with the buffer and the
 * app's number decoded, is kept only when the owner says so, and a passed
 * fd anywhere else is refused and closed: nothing leaks. */
START_TEST(socket_import_passes_the_fd)
{
	bufshare_set_import(bs, import);
	unsigned fds0 = open_fd_count();
	struct uvcuse_hello h;
	int fd;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	struct uvcuse_buf_request r = request(&h, UVCUSE_IMPORT_OFFSET(31, 1234567), 0);
	ck_assert_int_eq(client_passing(&r, sizeof(r), memfd, &fd), 0);
	ck_assert_int_eq(fd, -1); /* the answer is a status */
	ck_assert_int_eq(imported.calls, 1);
	ck_assert_ptr_eq(imported.file, &file_a);
	ck_assert_uint_eq(imported.index, 31);
	ck_assert_int_eq(imported.app_fd, 1234567);
	struct stat a, b;
	ck_assert_int_eq(fstat(imported.kept, &a), 0);
	ck_assert_int_eq(fstat(memfd, &b), 0);
	ck_assert_uint_eq(a.st_ino, b.st_ino); /* the very file passed */
	close(imported.kept);
	/* refused by the owner, without an fd, or an fd with another request */
	ck_assert_int_eq(bufshare_hello(bs, &file_b, getpid(), getuid(), &h), 0);
	r = request(&h, UVCUSE_IMPORT_OFFSET(0, 5), 0);
	ck_assert_int_eq(client_passing(&r, sizeof(r), memfd, &fd), -EBUSY);
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	r = request(&h, UVCUSE_IMPORT_OFFSET(0, 5), 0);
	ck_assert_int_eq(client_passing(&r, sizeof(r), -1, &fd), -EINVAL);
	ck_assert_int_eq(imported.calls, 2);
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	r = request(&h, COOKIE, BUF_SIZE);
	ck_assert_int_eq(client_passing(&r, sizeof(r), memfd, &fd), -EINVAL);
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	r = request(&h, UVCUSE_CHANNEL_OFFSET, 0);
	ck_assert_int_eq(client_passing(&r, sizeof(r), memfd, &fd), -EINVAL);
	ck_assert_int_eq(lookups, 0);
	ck_assert_uint_eq(open_fd_count(), fds0);
	/* without an owner's import: refused */
	bufshare_set_import(bs, NULL);
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	r = request(&h, UVCUSE_IMPORT_OFFSET(0, 5), 0);
	ck_assert_int_eq(client_passing(&r, sizeof(r), memfd, &fd), -EINVAL);
	ck_assert_int_eq(imported.calls, 2);
	ck_assert_uint_eq(open_fd_count(), fds0);
}
END_TEST

/* An import's fd must be a dma-buf: a memfd or a pipe of any size is not
 * (a real dma-buf is mapped in the VM's daemon-dmabuf-import scenario). */
START_TEST(dmabuf_map_refuses_other_files)
{
	struct dmabuf_map m = { 0 };
	ck_assert_int_eq(dmabuf_map(memfd, &m), -EINVAL);
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(dmabuf_map(p[0], &m), -EINVAL);
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(dmabuf_map(-1, &m), -EINVAL);
	ck_assert_ptr_null(m.mem);
}
END_TEST

/* SO_PEERCRED: a child process presenting the parent's token is refused,
 * and the token dies with it. */
START_TEST(socket_other_process)
{
	struct uvcuse_hello h;
	int fd;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	struct uvcuse_buf_request r = request(&h, COOKIE, BUF_SIZE);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		strcpy(sa.sun_path, bufshare_path(bs));
		struct uvcuse_buf_reply rep = { 0 };
		char buf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { &rep, sizeof(rep) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
				    .msg_controllen = sizeof(buf) };
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    send(s, &r, sizeof(r), 0) != sizeof(r) || recvmsg(s, &m, 0) != sizeof(rep))
			_exit(2);
		_exit(rep.status == -EACCES && m.msg_controllen == 0 ? 0 : 1);
	}
	int st;
	for (int i = 0; i < 50; i++) {
		loop_run_once(loop, 20, &st);
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
	}
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	/* the token died (another token admits the peer at accept) */
	ck_assert_int_eq(bufshare_hello(bs, &file_b, getpid(), getuid(), &h), 0);
	ck_assert_int_eq(client(&r, sizeof(r), &fd), -EACCES);
	ck_assert_int_eq(lookups, 0);
}
END_TEST

static int connect_socket(void)
{
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(s, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	strcpy(sa.sun_path, bufshare_path(bs));
	ck_assert_int_eq(connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return s;
}

/* Whether the daemon closed s without a reply. */
static bool closed_unanswered(int s)
{
	struct uvcuse_buf_reply rep;
	/* closed with our request unread: ECONNRESET rather than EOF */
	ssize_t n = recv(s, &rep, sizeof(rep), MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* Not world-writable: ours until it follows the node's group, mode and
 * ACL. */
START_TEST(socket_mode_follows_node)
{
	struct stat st;
	ck_assert_int_eq(stat(bufshare_path(bs), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	char node[96];
	snprintf(node, sizeof(node), "%s/node", dir);
	int fd = open(node, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* root may give any group; a user only its own */
	gid_t gid = geteuid() == 0 ? 4242 : getegid();
	ck_assert_int_eq(chown(node, (uid_t)-1, gid), 0);
	ck_assert_int_eq(chmod(node, 0664), 0);
	ck_assert_int_eq(bufshare_follow_node(bs, node), 0);
	ck_assert_int_eq(stat(bufshare_path(bs), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0660); /* never "other" */
	ck_assert_uint_eq(st.st_gid, gid);
	ck_assert_int_eq(chmod(node, 0600), 0);
	ck_assert_int_eq(bufshare_follow_node(bs, node), 0);
	ck_assert_int_eq(stat(bufshare_path(bs), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	unlink(node);
	ck_assert_int_eq(bufshare_follow_node(bs, node), -ENOENT);
}
END_TEST

/* A peer whose user holds no token (has not opened the node and said
 * HELLO) gets no slot: closed at accept, no lookup. */
START_TEST(socket_refuses_tokenless_peer)
{
	struct uvcuse_hello h = { 0 };
	struct uvcuse_buf_request r = request(&h, COOKIE, BUF_SIZE);
	int s = connect_socket();
	ck_assert_int_eq(send(s, &r, sizeof(r), 0), (ssize_t)sizeof(r));
	int st;
	loop_run_once(loop, 100, &st);
	ck_assert_uint_eq(bufshare_conns(bs), 0);
	ck_assert(closed_unanswered(s));
	ck_assert_int_eq(lookups, 0);
	close(s);
}
END_TEST

/* A child process that connects n sockets to the buffer socket and holds
 * them until killed (each process may have only a few waiting); returns
 * its pid once it has connected. */
static pid_t connecting_child(int n)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		for (int i = 0; i < n; i++)
			(void)connect_socket();
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	char c;
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static void end_children(const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/* Accepts are bounded per wake-up; the rest come on the next ones. */
START_TEST(socket_accepts_bounded)
{
	struct uvcuse_hello h;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	pid_t kids[3];
	for (int i = 0; i < 3; i++)
		kids[i] = connecting_child(BUFSHARE_CONNS_PER_PROCESS);
	int st;
	loop_run_once(loop, 100, &st);
	ck_assert_uint_eq(bufshare_conns(bs), BUFSHARE_ACCEPTS_PER_WAKE);
	loop_run_once(loop, 100, &st);
	ck_assert_uint_eq(bufshare_conns(bs), 3 * BUFSHARE_CONNS_PER_PROCESS);
	end_children(kids, 3);
}
END_TEST

/* One process has at most BUFSHARE_CONNS_PER_PROCESS connections waiting:
 * a process that floods the socket cannot take the slots other apps'
 * mmaps need. */
START_TEST(socket_caps_each_process)
{
	struct uvcuse_hello h;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	int s[BUFSHARE_CONNS_PER_PROCESS + 2], st;
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		s[i] = connect_socket();
	loop_run_once(loop, 100, &st);
	ck_assert_uint_eq(bufshare_conns(bs), BUFSHARE_CONNS_PER_PROCESS);
	ck_assert(closed_unanswered(s[BUFSHARE_CONNS_PER_PROCESS]));
	ck_assert(closed_unanswered(s[BUFSHARE_CONNS_PER_PROCESS + 1]));
	/* another process still gets a slot */
	pid_t kid = connecting_child(1);
	loop_run_once(loop, 100, &st);
	ck_assert_uint_eq(bufshare_conns(bs), BUFSHARE_CONNS_PER_PROCESS + 1);
	end_children(&kid, 1);
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		close(s[i]);
}
END_TEST

/* Full: the newcomer is refused, and the oldest waiting connection is
 * still served (it used to be evicted: a legitimate mmap failed). */
START_TEST(socket_full_refuses_newcomer)
{
	/* one user may fill the table here (socket_caps_each_user) */
	bufshare_set_limits(bs, &(struct bufshare_limits){ BUFSHARE_MAX_CONNS,
		BUFSHARE_CONNS_PER_PROCESS, BUFSHARE_MAX_CONNS, BUFSHARE_IDLE_MS });
	struct uvcuse_hello h;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	int first = connect_socket(), st;
	loop_run_once(loop, 100, &st);
	enum { KIDS = (BUFSHARE_MAX_CONNS - 1 + BUFSHARE_CONNS_PER_PROCESS - 1) /
		      BUFSHARE_CONNS_PER_PROCESS };
	pid_t kids[KIDS];
	int left = BUFSHARE_MAX_CONNS - 1;
	for (int i = 0; i < KIDS; i++) {
		int n = left < BUFSHARE_CONNS_PER_PROCESS ? left : BUFSHARE_CONNS_PER_PROCESS;
		kids[i] = connecting_child(n);
		left -= n;
		loop_run_once(loop, 100, &st);
	}
	ck_assert_uint_eq(bufshare_conns(bs), BUFSHARE_MAX_CONNS);
	int extra = connect_socket();
	loop_run_once(loop, 100, &st);
	ck_assert(closed_unanswered(extra));
	ck_assert_uint_eq(bufshare_conns(bs), BUFSHARE_MAX_CONNS);
	close(extra);
	/* the first one still works */
	struct uvcuse_buf_request r = request(&h, COOKIE, BUF_SIZE);
	ck_assert_int_eq(send(first, &r, sizeof(r), 0), (ssize_t)sizeof(r));
	loop_run_once(loop, 100, &st);
	struct uvcuse_buf_reply rep = { 0 };
	ck_assert_int_eq(recv(first, &rep, sizeof(rep), MSG_DONTWAIT), (ssize_t)sizeof(rep));
	ck_assert_int_eq(rep.status, 0);
	ck_assert_int_eq(lookups, 1);
	close(first);
	end_children(kids, KIDS);
}
END_TEST

/* Issue 29, finding 3: one user's processes together hold at most
 * conns_per_uid slots (one HELLO and children holding idle connections
 * used to block every user's mmap). */
START_TEST(socket_caps_each_user)
{
	bufshare_set_limits(bs, &(struct bufshare_limits){ BUFSHARE_MAX_CONNS,
		BUFSHARE_CONNS_PER_PROCESS, 2 * BUFSHARE_CONNS_PER_PROCESS, BUFSHARE_IDLE_MS });
	struct uvcuse_hello h;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	pid_t kids[3];
	int st;
	for (int i = 0; i < 3; i++) {
		kids[i] = connecting_child(BUFSHARE_CONNS_PER_PROCESS);
		loop_run_once(loop, 100, &st);
	}
	ck_assert_uint_eq(bufshare_conns(bs), 2 * BUFSHARE_CONNS_PER_PROCESS);
	end_children(kids, 3);
}
END_TEST

/* Issue 29, finding 3: a connection that sends no request holds its slot
 * for idle_ms at most: a newcomer that finds no slot after that closes
 * the idle ones and is served. */
START_TEST(socket_idle_connections_time_out)
{
	enum { IDLE_MS = 1000 }; /* the refusal below must come well within it */
	bufshare_set_limits(bs, &(struct bufshare_limits){ BUFSHARE_MAX_CONNS,
		BUFSHARE_CONNS_PER_PROCESS, BUFSHARE_CONNS_PER_PROCESS, IDLE_MS });
	struct uvcuse_hello h;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	pid_t idler = connecting_child(BUFSHARE_CONNS_PER_PROCESS);
	int st;
	loop_run_once(loop, 100, &st);
	ck_assert_uint_eq(bufshare_conns(bs), BUFSHARE_CONNS_PER_PROCESS);
	int early = connect_socket();
	loop_run_once(loop, 100, &st);
	ck_assert(closed_unanswered(early)); /* the idle ones are still young */
	close(early);
	usleep((IDLE_MS + 300) * 1000);
	int late = connect_socket();
	loop_run_once(loop, 100, &st);
	ck_assert_uint_eq(bufshare_conns(bs), 1); /* the idler's four closed */
	struct uvcuse_buf_request r = request(&h, COOKIE, BUF_SIZE);
	ck_assert_int_eq(send(late, &r, sizeof(r), 0), (ssize_t)sizeof(r));
	loop_run_once(loop, 100, &st);
	struct uvcuse_buf_reply rep = { 0 };
	ck_assert_int_eq(recv(late, &rep, sizeof(rep), MSG_DONTWAIT), (ssize_t)sizeof(rep));
	ck_assert_int_eq(rep.status, 0);
	close(late);
	end_children(&idler, 1);
}
END_TEST

/* Issue 29, finding 2: out of file descriptors, a waiting connection is
 * taken and ended (the reserve fd): the listening socket stops waking the
 * loop, which used to spin on accept4's EMFILE. */
START_TEST(socket_sheds_at_emfile)
{
	struct uvcuse_hello h;
	ck_assert_int_eq(bufshare_hello(bs, &file_a, getpid(), getuid(), &h), 0);
	int s = connect_socket();
	/* every fd below the limit taken (this test runs in a process of
	 * its own: Check forks one per test) */
	struct rlimit rl;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = 256;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	int fillers[256], n = 0;
	while (n < 256 && (fillers[n] = dup(memfd)) >= 0)
		n++;
	ck_assert_int_eq(errno, EMFILE);
	int st;
	loop_run_once(loop, 100, &st);
	ck_assert(closed_unanswered(s));
	ck_assert_uint_eq(bufshare_conns(bs), 0);
	struct pollfd p = { .fd = bufshare_fd(bs), .events = POLLIN };
	ck_assert_int_eq(poll(&p, 1, 0), 0); /* nothing left to wake the loop */
	for (int i = 0; i < n; i++)
		close(fillers[i]);
	close(s);
	/* with fds again, connections are served */
	s = connect_socket();
	struct uvcuse_buf_request r = request(&h, COOKIE, BUF_SIZE);
	ck_assert_int_eq(send(s, &r, sizeof(r), 0), (ssize_t)sizeof(r));
	loop_run_once(loop, 100, &st);
	loop_run_once(loop, 100, &st);
	struct uvcuse_buf_reply rep = { 0 };
	ck_assert_int_eq(recv(s, &rep, sizeof(rep), MSG_DONTWAIT), (ssize_t)sizeof(rep));
	ck_assert_int_eq(rep.status, 0);
	close(s);
}
END_TEST

START_TEST(directory_checks)
{
	struct bufshare *b2;
	char sub[96];
	/* created 0711 when missing */
	snprintf(sub, sizeof(sub), "%s/run", dir);
	ck_assert_int_eq(bufshare_new(loop, sub, "v", lookup, &lookups, &b2), 0);
	struct stat st;
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0711);
	bufshare_free(b2);
	ck_assert_int_eq(stat(sub, &st), 0);
	/* open to others: refused */
	chmod(sub, 0777);
	ck_assert_int_eq(bufshare_new(loop, sub, "v", lookup, &lookups, &b2), -EPERM);
	rmdir(sub);
	/* a symlink is not a directory of ours */
	ck_assert_int_eq(symlink("/tmp", sub), 0);
	ck_assert_int_eq(bufshare_new(loop, sub, "v", lookup, &lookups, &b2), -EPERM);
	unlink(sub);
	/* $RUNTIME_DIRECTORY, first of a list */
	char env[200];
	snprintf(env, sizeof(env), "%s:/nonexistent", dir);
	setenv("RUNTIME_DIRECTORY", env, 1);
	ck_assert_int_eq(bufshare_new(loop, NULL, "w", lookup, &lookups, &b2), 0);
	snprintf(sub, sizeof(sub), "%s/w.sock", dir);
	ck_assert_str_eq(bufshare_path(b2), sub);
	bufshare_free(b2);
	unsetenv("RUNTIME_DIRECTORY");
	ck_assert_int_eq(access(sub, F_OK), -1);
	char longname[120];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	ck_assert_int_eq(bufshare_new(loop, dir, longname, lookup, &lookups, &b2), -ENAMETOOLONG);
}
END_TEST

int main(void)
{
	log_set_level(LOG_LEVEL_ERROR);
	Suite *s = suite_create("bufshare");
	TCase *tc = tcase_create("bufshare");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, parse_request);
	tcase_add_test(tc, tgid_of_threads);
	tcase_add_test(tc, hello_fills_abi);
	tcase_add_test(tc, authorize_rules);
	tcase_add_test(tc, tokens_bounded_and_forgotten);
	tcase_add_test(tc, socket_hands_over_memfd);
	tcase_add_test(tc, socket_refusals);
	tcase_add_test(tc, socket_import_passes_the_fd);
	tcase_add_test(tc, dmabuf_map_refuses_other_files);
	tcase_add_test(tc, socket_other_process);
	tcase_add_test(tc, socket_mode_follows_node);
	tcase_add_test(tc, socket_refuses_tokenless_peer);
	tcase_add_test(tc, socket_accepts_bounded);
	tcase_add_test(tc, socket_full_refuses_newcomer);
	tcase_add_test(tc, socket_caps_each_process);
	tcase_add_test(tc, socket_caps_each_user);
	tcase_add_test(tc, socket_idle_connections_time_out);
	tcase_add_test(tc, socket_sheds_at_emfile);
	tcase_add_test(tc, directory_checks);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

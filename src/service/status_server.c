/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status socket (see status_server.h). */
#include "service/status_server.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/accept.h"
#include "core/log.h"
#include "core/loop.h"

/* Connections answered per wake-up: the loop serves the camera first. */
#define ACCEPTS_PER_WAKE 8

struct status_server {
	struct loop *loop;
	int fd;
	char path[108];
	status_get_cb get;
	void *data;
	struct accept_reserve reserve; /* an fd to shed connections with at EMFILE */
};

int status_socket_path(const char *runtime_dir, const char *node, char *out, size_t len)
{
	if (!runtime_dir)
		runtime_dir = getenv("RUNTIME_DIRECTORY");
	if (!runtime_dir || !runtime_dir[0])
		runtime_dir = "/run/uvcuse";
	/* RUNTIME_DIRECTORY may list several, separated by ':' */
	int dlen = (int)strcspn(runtime_dir, ":");
	int n = snprintf(out, len, "%.*s/%s.status", dlen, runtime_dir, node);
	if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

static void on_accept(void *data, uint32_t events)
{
	struct status_server *srv = data;
	(void)events;
	for (int i = 0; i < ACCEPTS_PER_WAKE; i++) {
		int c = accept_or_shed(srv->fd, &srv->reserve);
		if (c == -EMFILE || c == -ENFILE)
			continue; /* shed, logged */
		if (c < 0)
			return; /* EAGAIN: all served; others: the next wake-up */
		struct device_status st;
		char msg[STATUS_MSG_MAX];
		srv->get(srv->data, &st);
		int n = status_msg_encode(&st, msg, sizeof(msg));
		/* one short message into an empty socket buffer: never blocks;
		 * a failure only costs that peer its answer */
		if (n > 0 && send(c, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			log_debug("status socket: %s", strerror(errno));
		close(c);
	}
}

int status_server_new(struct loop *loop, const char *runtime_dir, const char *node,
		      status_get_cb get, void *data, struct status_server **out)
{
	*out = NULL;
	struct status_server *srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->loop = loop;
	srv->get = get;
	srv->data = data;
	srv->fd = -1;
	accept_reserve_init(&srv->reserve, "status socket");
	int err = status_socket_path(runtime_dir, node, srv->path, sizeof(srv->path));
	if (err < 0)
		goto fail;
	/* our own /run/uvcuse: reachable by everyone, the socket is what
	 * is guarded */
	char dir[108];
	snprintf(dir, sizeof(dir), "%s", srv->path);
	*strrchr(dir, '/') = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		err = -errno;
		goto fail;
	}
	srv->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (srv->fd < 0) {
		err = -errno;
		goto fail;
	}
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	memcpy(addr.sun_path, srv->path, strlen(srv->path) + 1);
	unlink(srv->path); /* a stale one: our node name is ours (checked at start) */
	/* never a moment with a wider mode than 0660 */
	mode_t old = umask(0117);
	int r = bind(srv->fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old);
	if (r < 0) {
		err = -errno;
		goto fail;
	}
	struct group *video = getgrnam("video");
	if (video && chown(srv->path, (uid_t)-1, video->gr_gid) < 0)
		log_warn("status socket %s: cannot give it to group video: %s", srv->path,
			 strerror(errno));
	if (chmod(srv->path, 0660) < 0 || listen(srv->fd, 16) < 0 ||
	    (err = loop_add(loop, srv->fd, EPOLLIN, on_accept, srv)) < 0) {
		err = err < 0 ? err : -errno;
		unlink(srv->path);
		goto fail;
	}
	*out = srv;
	return 0;
fail:
	if (srv->fd >= 0)
		close(srv->fd);
	accept_reserve_free(&srv->reserve);
	free(srv);
	return err;
}

void status_server_free(struct status_server *srv)
{
	if (!srv)
		return;
	loop_remove(srv->loop, srv->fd);
	close(srv->fd);
	unlink(srv->path);
	accept_reserve_free(&srv->reserve);
	free(srv);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The client side of the status sockets (see status_client.h). */
#include "service/status_client.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "device/status_msg.h"
#include "service/status_server.h"

/* Fetches node's message; -errno when there is no daemon on it. */
static int fetch(const char *node, struct device_status *st)
{
	char path[108];
	int err = status_socket_path(NULL, node, path, sizeof(path));
	if (err < 0)
		return err;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	memcpy(addr.sun_path, path, strlen(path) + 1);
	/* a daemon stuck elsewhere must not hang the listing */
	struct timeval tv = { .tv_sec = 2 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	char msg[STATUS_MSG_MAX];
	ssize_t n = -1;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
		n = recv(fd, msg, sizeof(msg), 0);
	err = n < 0 ? -errno : n == 0 ? -ECONNRESET : 0;
	close(fd);
	if (err < 0)
		return err;
	return status_msg_decode(msg, (size_t)n, st);
}

/* One camera as a line, or as a JSON object after the first (", "). */
static void print_one(const struct device_status *st, bool json, bool first)
{
	char text[2048];
	if (json) {
		if (status_msg_json(st, text, sizeof(text)) < 0)
			snprintf(text, sizeof(text), "{\"node\": \"%s\"}", st->node);
		printf("%s%s", first ? "" : ",\n ", text);
	} else {
		status_msg_line(st, text, sizeof(text));
		printf("%s\n", text);
	}
}

int status_client_list(bool json)
{
	unsigned found = 0, refused = 0;
	if (json)
		printf("[");
	for (unsigned i = 0; i < 256; i++) {
		char node[16];
		snprintf(node, sizeof(node), "video%u", i);
		struct device_status st;
		int err = fetch(node, &st);
		if (err == -EACCES)
			refused++;
		if (err < 0)
			continue;
		print_one(&st, json, !found);
		found++;
	}
	if (json)
		printf("]\n");
	if (refused)
		fprintf(stderr, "uvcuse: %u camera%s not shown: their status socket is for group video\n",
			refused, refused == 1 ? "" : "s");
	if (!found && !refused)
		fprintf(stderr, "uvcuse: no camera served\n");
	return found ? 0 : 1;
}

int status_client_watch(bool json)
{
	bool tty = isatty(STDOUT_FILENO);
	for (;;) {
		if (tty && !json)
			printf("\033[H\033[J"); /* the screen cleared: one table, refreshed */
		status_client_list(json);
		fflush(stdout);
		sleep(1);
	}
}

/* The daemon whose metadata node is node: the status sockets are named
 * after the video nodes. 0 or -ENOENT. */
static int fetch_meta(const char *node, struct device_status *st)
{
	for (unsigned i = 0; i < 256; i++) {
		char video[16];
		snprintf(video, sizeof(video), "video%u", i);
		if (fetch(video, st) == 0 && !strcmp(st->meta_node, node))
			return 0;
	}
	return -ENOENT;
}

int status_client_udev(const char *node)
{
	if (!strncmp(node, "/dev/", 5))
		node += 5;
	struct device_status st;
	unsigned index = 0;
	int err = fetch(node, &st);
	if (err < 0 && fetch_meta(node, &st) == 0) {
		index = 1;
		err = 0;
	}
	if (err < 0) {
		fprintf(stderr, "uvcuse: no daemon answers for %s: %s\n", node, strerror(-err));
		return 1;
	}
	char props[2048];
	if (status_msg_udev_properties(&st, index, props, sizeof(props)) < 0)
		return 1;
	fputs(props, stdout);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/service/status_server.c on a real socket in a temporary directory: the mode
 * (never world-accessible), one message per connection on the loop, more
 * waiting connections than one wake-up serves, a peer that never reads,
 * and the socket removed at the end. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/loop.h"
#include "service/status_server.h"
#include "unit_run.h"

static unsigned asked;

static void get(void *data, struct device_status *out)
{
	(void)data;
	memset(out, 0, sizeof(*out));
	snprintf(out->node, sizeof(out->node), "video42");
	out->frames = ++asked;
	out->clients = 3;
}

static int connect_to(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	return fd;
}

START_TEST(serves_and_cleans_up)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/uvcuse-status-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct loop *loop;
	ck_assert_int_eq(loop_new(&loop), 0);
	struct status_server *srv;
	asked = 0;
	ck_assert_int_eq(status_server_new(loop, dir, "video42", get, NULL, &srv), 0);
	char path[108];
	ck_assert_int_eq(status_socket_path(dir, "video42", path, sizeof(path)), 0);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0660);

	/* 12 peers at once (within the backlog), one of which never reads:
	 * 8 per wake-up, the rest at the next one */
	enum { PEERS = 12 };
	int fds[PEERS];
	for (int i = 0; i < PEERS; i++)
		fds[i] = connect_to(path);
	int status;
	ck_assert_int_eq(loop_run_once(loop, 100, &status), 0);
	ck_assert_uint_eq(asked, 8);
	ck_assert_int_eq(loop_run_once(loop, 100, &status), 0);
	ck_assert_uint_eq(asked, PEERS);
	for (int i = 1; i < PEERS; i++) {
		char msg[STATUS_MSG_MAX];
		ssize_t n = recv(fds[i], msg, sizeof(msg), MSG_DONTWAIT);
		ck_assert_int_gt(n, 0);
		struct device_status got;
		ck_assert_int_eq(status_msg_decode(msg, (size_t)n, &got), 0);
		ck_assert_str_eq(got.node, "video42");
		ck_assert_uint_eq(got.clients, 3);
		/* and then the daemon closed it */
		ck_assert_int_eq(recv(fds[i], msg, sizeof(msg), MSG_DONTWAIT), 0);
	}
	for (int i = 0; i < PEERS; i++)
		close(fds[i]);

	status_server_free(srv);
	ck_assert_int_eq(stat(path, &st), -1);
	loop_free(loop);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(socket_path)
{
	char path[108];
	ck_assert_int_eq(status_socket_path("/run/a:/run/b", "video3", path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/run/a/video3.status");
	unsetenv("RUNTIME_DIRECTORY");
	ck_assert_int_eq(status_socket_path(NULL, "video3", path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/run/uvcuse/video3.status");
	char longdir[200];
	memset(longdir, 'd', sizeof(longdir) - 1);
	longdir[sizeof(longdir) - 1] = '\0';
	ck_assert_int_eq(status_socket_path(longdir, "video3", path, sizeof(path)), -ENAMETOOLONG);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("status_server");
	TCase *tc = tcase_create("status_server");
	tcase_add_test(tc, serves_and_cleans_up);
	tcase_add_test(tc, socket_path);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

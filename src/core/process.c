/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A thread's process and its start time, from /proc (see process.h). */
#include "core/process.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc/ID/FILE read whole into buf (NUL-terminated); -ESRCH if ID is gone */
static int read_proc(pid_t id, const char *file, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)id, file);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	ssize_t n = read(fd, buf, size - 1);
	int err = errno;
	close(fd);
	if (n < 0)
		return err == ESRCH ? -ESRCH : -err;
	buf[n] = '\0';
	return 0;
}

static int tgid_of(pid_t tid, pid_t *tgid)
{
	char buf[2048];
	int err = read_proc(tid, "status", buf, sizeof(buf));
	if (err)
		return err;
	const char *line = strstr(buf, "\nTgid:");
	if (!line || sscanf(line + 6, "%d", tgid) != 1 || *tgid <= 0)
		return -EPROTO;
	return 0;
}

/* field 22 of stat; the name (field 2) may hold spaces and ')', so the
 * fields are counted from the last ')' */
static int start_of(pid_t tgid, uint64_t *start)
{
	char buf[1024];
	int err = read_proc(tgid, "stat", buf, sizeof(buf));
	if (err)
		return err;
	const char *p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -EPROTO;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1)
		return -EPROTO;
	*start = v;
	return 0;
}

int process_identify(pid_t tid, struct process_id *out)
{
	if (tid <= 0)
		return -ESRCH;
	struct process_id id;
	int err = tgid_of(tid, &id.tgid);
	if (!err)
		err = start_of(id.tgid, &id.start);
	if (!err)
		*out = id;
	return err;
}

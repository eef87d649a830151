/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Remembered control settings at run time. See settings_store.h. */
#include "settings/settings_store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "core/log.h"
#include "core/loop.h"
#include "settings/settings.h"
#include "v4l2/node.h"

struct settings_store {
	struct loop *loop;
	struct node *node;
	char dir[PATH_MAX];
	char name[SETTINGS_NAME_MAX + 1];
	char path[PATH_MAX + SETTINGS_NAME_MAX + 2];
	char comment[320];
	struct settings saved;
	bool dirty;
	bool write_failed; /* warned once; said again when a write works */
	bool full_warned;
	int timer_fd;
	bool armed;
	/* the node file the start-up requests are made on, as an app's */
	struct node_file file;
};

/* ---- files ---- */

static int join(char *out, size_t cap, const char *dir, const char *prefix, const char *name,
		const char *suffix)
{
	int w = snprintf(out, cap, "%s/%s%s%s", dir, prefix, name, suffix);

	return w < 0 || (size_t)w >= cap ? -ENAMETOOLONG : 0;
}

/* mkdir -p with 0755 for what is missing. */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;
	size_t len = strlen(dir);

	if (len >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (p[i] != '/' && p[i] != 0)
			continue;
		p[i] = 0;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		p[i] = i < len ? '/' : 0;
	}
	if (stat(dir, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}

int settings_file_write(const char *dir, const char *name, const char *text, size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd = -1, err;

	err = join(path, sizeof(path), dir, "", name, "");
	if (!err)
		err = join(tmp, sizeof(tmp), dir, ".", name, ".XXXXXX");
	if (!err)
		err = make_dirs(dir);
	if (err)
		return err;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0)
		goto fail;
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, text + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			goto fail;
		done += (size_t)w;
	}
	if (fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	/* the rename itself must survive a power cut */
	return sync_dir(dir);
fail:
	err = -errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return err;
}

int settings_file_read(const char *dir, const char *name, char *buf, size_t cap, size_t *len)
{
	char path[PATH_MAX];
	struct stat st;
	size_t done = 0;
	int fd, err = join(path, sizeof(path), dir, "", name, "");

	if (err)
		return err;
	/* The state directory is shared by every instance (one user): a link
	 * planted there by another is not followed, and a file someone else
	 * owns is not ours to read. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto out;
	}
	if (st.st_uid != geteuid()) {
		err = -EPERM;
		goto out;
	}
	if ((uint64_t)st.st_size > cap) {
		err = -EFBIG;
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf + done, cap - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto out;
		}
		if (r == 0)
			break;
		done += (size_t)r;
		if (done == cap) {
			char extra;

			if (read(fd, &extra, 1) > 0)
				err = -EFBIG; /* grew since fstat */
			break;
		}
	}
	*len = done;
out:
	close(fd);
	return err;
}

int settings_file_remove(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int err = join(path, sizeof(path), dir, "", name, "");

	if (err)
		return err;
	if (unlink(path) < 0)
		return errno == ENOENT ? 0 : -errno;
	return sync_dir(dir);
}

/* ---- the node, as an app uses it ---- */

static int ext_ctrl(struct settings_store *st, unsigned long cmd, uint32_t id, int32_t *value)
{
	struct v4l2_ext_control x = { .id = id, .value = *value };
	struct v4l2_ext_controls c = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1, .controls = &x };
	int r = node_ioctl(st->node, &st->file, (unsigned)cmd, &c, &x, sizeof(x), true, NULL, NULL);

	*value = x.value;
	return r;
}

static int set_ctrl(struct settings_store *st, uint32_t id, int32_t *value)
{
	return ext_ctrl(st, VIDIOC_S_EXT_CTRLS, id, value);
}

static int get_ctrl(struct settings_store *st, uint32_t id, int32_t *value)
{
	*value = 0;
	return ext_ctrl(st, VIDIOC_G_EXT_CTRLS, id, value);
}

static int query_ctrl(struct settings_store *st, struct v4l2_queryctrl *qc)
{
	return node_ioctl(st->node, &st->file, VIDIOC_QUERYCTRL, qc, NULL, 0, true, NULL, NULL);
}

static const char *ctrl_name(uint32_t id, char *buf, size_t cap)
{
	settings_ctrl_name(id, buf, cap);
	if (!buf[0] || !strcmp(buf, "unknown_control"))
		snprintf(buf, cap, "control 0x%08x", id);
	return buf;
}

/* A saved value the camera can take: 0; -ENOENT (no such control here, or
 * one that is not remembered) and -ERANGE (outside its range) forget it;
 * another -errno (the camera did not answer) keeps it. */
static int check_saved(struct settings_store *st, uint32_t id, int32_t value)
{
	struct v4l2_queryctrl qc = { .id = id };
	int r;

	if (!settings_savable(&st->node->ctrls, id))
		return -ENOENT;
	r = query_ctrl(st, &qc);
	if (r < 0)
		return r;
	if (value < qc.minimum || value > qc.maximum)
		return -ERANGE;
	if (qc.type == V4L2_CTRL_TYPE_MENU) {
		struct v4l2_querymenu qm = { .id = id, .index = (uint32_t)value };

		if (node_ioctl(st->node, &st->file, VIDIOC_QUERYMENU, &qm, NULL, 0, true, NULL,
			       NULL) < 0)
			return -ERANGE;
	}
	return 0;
}

/* The current values of the masters of the targets' slaves. */
static void read_masters(struct settings_store *st, const struct settings *targets,
			 struct settings *now)
{
	const struct ctrls *c = &st->node->ctrls;

	now->n = 0;
	for (unsigned i = 0; i < targets->n; i++) {
		int k = ctrls_find(c, targets->e[i].id);
		uint32_t master = k >= 0 ? c->maps[k].map->master_id : 0;
		int32_t v;

		if (!master || ctrls_find(c, master) < 0 || settings_get(now, master, NULL))
			continue;
		if (get_ctrl(st, master, &v) == 0)
			settings_put(now, master, v);
	}
}

/* Sends targets in settings_plan()'s order; "name value" of each sent
 * control into done. Returns how many the camera took. */
static unsigned apply(struct settings_store *st, const struct settings *targets, const char *what,
		      char *done, size_t cap)
{
	struct settings_step steps[SETTINGS_MAX];
	struct settings masters_now;
	unsigned ok = 0;
	size_t n = 0;
	int count;

	done[0] = 0;
	read_masters(st, targets, &masters_now);
	count = settings_plan(&st->node->ctrls, targets, &masters_now, steps, SETTINGS_MAX);
	for (int i = 0; i < count; i++) {
		const struct settings_step *s = &steps[i];
		char name[64], master[64];
		int32_t v = s->value;
		int r;

		if (s->phase == SETTINGS_SKIP && !s->master_id) {
			log_warn("%s not %s: the camera has no such control",
				 ctrl_name(s->id, name, sizeof(name)), what);
			continue;
		}
		if (s->phase == SETTINGS_SKIP) {
			log_info("%s %" PRId32 " not %s: inactive while %s is not manual",
				 ctrl_name(s->id, name, sizeof(name)), s->value, what,
				 ctrl_name(s->master_id, master, sizeof(master)));
			continue;
		}
		r = set_ctrl(st, s->id, &v);
		ctrl_name(s->id, name, sizeof(name));
		if (r == -ENODEV) {
			log_warn("camera gone: %d controls not %s", count - i, what);
			break;
		}
		if (r < 0) {
			log_warn("%s %" PRId32 " not %s: %s", name, s->value, what, strerror(-r));
			continue;
		}
		log_debug("%s %s = %" PRId32, what, name, v);
		ok++;
		if (n < cap) {
			int w = snprintf(done + n, cap - n, "%s%s %" PRId32, n ? ", " : "", name, v);

			n = w < 0 ? cap : n + (size_t)w;
		}
	}
	return ok;
}

static void restore(struct settings_store *st)
{
	struct settings targets = { 0 };
	char done[512];
	unsigned ok;

	for (unsigned i = 0; i < st->saved.n;) {
		const struct settings_entry *e = &st->saved.e[i];
		int r = check_saved(st, e->id, e->value);
		char name[64];

		if (r == 0) {
			settings_put(&targets, e->id, e->value);
			i++;
			continue;
		}
		ctrl_name(e->id, name, sizeof(name));
		if (r == -ENOENT || r == -ERANGE) {
			log_warn("%s: %s %" PRId32 " skipped: %s", st->path, name, e->value,
				 r == -ENOENT ? "the camera has no such control to set" :
						"out of the camera's range");
			settings_drop(&st->saved, e->id); /* gone from the file at the next save */
			continue;
		}
		log_warn("%s: %s %" PRId32 " not restored: %s", st->path, name, e->value, strerror(-r));
		i++;
	}
	ok = apply(st, &targets, "restored", done, sizeof(done));
	log_info("restored %u of %u saved controls from %s%s%s", ok, targets.n, st->path,
		 ok ? ": " : "", done);
}

void settings_store_restore(struct settings_store *st)
{
	if (!st || !st->saved.n)
		return;
	/* a file of its own for the while, as at start-up; no app can hold
	 * the controls back by priority from the daemon's own restore */
	node_open(st->node, &st->file);
	st->file.daemon = true;
	restore(st);
	node_release(st->node, &st->file);
}

static void reset(struct settings_store *st)
{
	const struct ctrls *c = &st->node->ctrls;
	struct settings targets = { 0 };
	char done[512];
	unsigned ok;
	int r;

	for (unsigned k = 0; k < c->n_maps; k++) {
		uint32_t id = c->maps[k].map->id;
		struct v4l2_queryctrl qc = { .id = id };

		if (ctrls_find(c, id) != (int)k || !settings_resettable(c, id))
			continue;
		if (query_ctrl(st, &qc) == 0)
			settings_put(&targets, id, qc.default_value);
	}
	ok = apply(st, &targets, "reset", done, sizeof(done));
	st->saved.n = 0;
	st->dirty = false;
	r = settings_file_remove(st->dir, st->name);
	if (r < 0)
		log_warn("--reset-controls: cannot delete %s: %s", st->path, strerror(-r));
	log_info("--reset-controls: %u of %u controls set to the camera's defaults, %s forgotten",
		 ok, targets.n, st->path);
	log_debug("reset: %s", done);
}

/* ---- saving ---- */

void settings_store_flush(struct settings_store *st)
{
	char text[8192];
	int len, r;

	if (!st || !st->dirty)
		return;
	st->dirty = false;
	len = settings_format(&st->saved, st->comment, text, sizeof(text));
	r = len < 0 ? len : settings_file_write(st->dir, st->name, text, (size_t)len);
	if (r < 0) {
		if (!st->write_failed)
			log_warn("cannot save the controls to %s: %s (they are not remembered)",
				 st->path, strerror(-r));
		st->write_failed = true;
		return;
	}
	if (st->write_failed)
		log_info("controls saved to %s again", st->path);
	st->write_failed = false;
	log_debug("%u controls saved to %s", st->saved.n, st->path);
}

static void on_timer(void *data, uint32_t events)
{
	struct settings_store *st = data;
	uint64_t expirations;

	(void)events;
	if (read(st->timer_fd, &expirations, sizeof(expirations)) < 0) {
		/* EAGAIN: nothing to clear */
	}
	st->armed = false;
	settings_store_flush(st);
}

static void schedule(struct settings_store *st)
{
	struct itimerspec its = { .it_value = { .tv_sec = SETTINGS_SAVE_DELAY_MS / 1000,
						.tv_nsec = SETTINGS_SAVE_DELAY_MS % 1000 * 1000000L } };

	if (st->armed)
		return; /* the next save takes this change too */
	if (st->timer_fd < 0 || timerfd_settime(st->timer_fd, 0, &its, NULL) < 0) {
		settings_store_flush(st);
		return;
	}
	st->armed = true;
}

void settings_store_note(struct settings_store *st, unsigned int cmd, const void *arg,
			 const void *extra)
{
	const struct v4l2_ext_control *xs = extra;
	struct v4l2_ext_control one;
	unsigned count = 0;
	bool changed = false;

	if (!st)
		return;
	if (cmd == VIDIOC_S_CTRL) {
		const struct v4l2_control *c = arg;

		one = (struct v4l2_ext_control){ .id = c->id, .value = c->value };
		xs = &one;
		count = 1;
	} else if (cmd == VIDIOC_S_EXT_CTRLS) {
		count = xs ? ((const struct v4l2_ext_controls *)arg)->count : 0;
	}
	for (unsigned i = 0; i < count; i++) {
		/* uvcvideo finds a control by the id's low bits */
		uint32_t id = xs[i].id & V4L2_CTRL_ID_MASK;
		int r;

		if (!settings_savable(&st->node->ctrls, id))
			continue;
		r = settings_put(&st->saved, id, xs[i].value);
		if (r > 0)
			changed = true;
		if (r < 0 && !st->full_warned) {
			log_warn("more than %u controls to remember: the rest is not saved",
				 SETTINGS_MAX);
			st->full_warned = true;
		}
	}
	if (changed) {
		st->dirty = true;
		schedule(st);
	}
}

/* ---- life ---- */

static void load(struct settings_store *st)
{
	char *text = malloc(SETTINGS_MAX_FILE);
	char err[160];
	size_t len = 0;
	int r;

	if (!text) {
		log_warn("%s: not read: %s", st->path, strerror(ENOMEM));
		return;
	}
	r = settings_file_read(st->dir, st->name, text, SETTINGS_MAX_FILE, &len);
	if (r == -ENOENT) {
		log_debug("no saved controls in %s", st->path);
	} else if (r == -EFBIG) {
		log_warn("%s is corrupt (larger than 64 KiB): ignored, replaced at the next change",
			 st->path);
	} else if (r < 0) {
		log_warn("cannot read %s: %s: the camera starts with its own values", st->path,
			 strerror(-r));
	} else if (settings_parse(text, len, &st->saved, err, sizeof(err)) < 0) {
		log_warn("%s is corrupt (%s): ignored, replaced at the next change", st->path, err);
	}
	free(text);
}

int settings_store_open(struct loop *loop, struct node *n, const struct settings_store_config *cfg,
			const struct settings_camera *cam, struct settings_store **out)
{
	struct settings_store *st;
	int r;

	*out = NULL;
	if (!cfg->dir)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st) {
		log_warn("out of memory: controls are not remembered");
		return -ENOMEM;
	}
	st->loop = loop;
	st->node = n;
	st->timer_fd = -1;
	snprintf(st->dir, sizeof(st->dir), "%s", cfg->dir);
	r = settings_file_name(cam->vid, cam->pid, cam->serial, cam->port_path, st->name,
			       sizeof(st->name));
	if (r < 0) {
		log_warn("camera %04x:%04x has neither serial nor port path: its controls are not "
			 "remembered", cam->vid, cam->pid);
		free(st);
		return 0;
	}
	snprintf(st->path, sizeof(st->path), "%s/%s", st->dir, st->name);
	snprintf(st->comment, sizeof(st->comment), "%04x:%04x %s %s%s%s%s", cam->vid, cam->pid,
		 cam->serial && cam->serial[0] ? "serial" : "port",
		 cam->serial && cam->serial[0] ? cam->serial : cam->port_path,
		 cam->product && cam->product[0] ? " '" : "", cam->product ? cam->product : "",
		 cam->product && cam->product[0] ? "'" : "");
	if (loop) {
		st->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (st->timer_fd >= 0 && loop_add(loop, st->timer_fd, EPOLLIN, on_timer, st) < 0) {
			close(st->timer_fd);
			st->timer_fd = -1; /* every change is then saved at once */
		}
	}

	node_open(n, &st->file);
	st->file.daemon = true;
	if (cfg->reset) {
		reset(st);
	} else {
		load(st);
		if (st->saved.n && cfg->no_restore)
			log_info("--no-restore-controls: %u saved controls in %s not restored",
				 st->saved.n, st->path);
		else if (st->saved.n)
			restore(st);
	}
	node_release(n, &st->file);
	*out = st;
	return 0;
}

void settings_store_close(struct settings_store *st)
{
	if (!st)
		return;
	settings_store_flush(st);
	if (st->timer_fd >= 0) {
		if (st->loop)
			loop_remove(st->loop, st->timer_fd);
		close(st->timer_fd);
	}
	free(st);
}

const char *settings_store_path(const struct settings_store *st)
{
	return st->path;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-pipewire: publishes every uvcuse camera the user may open as a
 * PipeWire Video/Source node (media.role Camera), so that the desktop's
 * PipeWire consumers see it: the Camera portal and the sandboxed apps
 * behind it, OBS, GStreamer's device monitor and pipewiresrc. A node of
 * the cuse subsystem is invisible to PipeWire's own v4l2 monitor.
 *
 * One thread, PipeWire's main loop. Cameras are found in /dev (an inotify
 * watch: nodes come and go with their daemons, and udev's permission
 * changes show as IN_ATTRIB); PipeWire going away (a restart) drops every
 * node, and they are published again once it is back. Idle, nothing wakes
 * up: no timer runs while PipeWire is there and no consumer streams. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <unistd.h>

#include <pipewire/pipewire.h>

#include "camera.h"
#include "core/log.h"

#define MAX_CAMERAS 64
/* Reconnecting to PipeWire: first try, and the longest wait between tries. */
#define RECONNECT_FIRST_MS 100
#define RECONNECT_MAX_MS 5000

struct bridge {
	struct pw_main_loop *main_loop;
	struct pw_loop *loop;
	struct pw_context *context;
	struct pw_core *core;
	struct spa_hook core_listener;
	struct spa_source *reconnect;
	unsigned reconnect_ms;
	const char *dev_dir;
	int dev_watch_fd;
	struct spa_source *dev_watch;
	struct bridge_camera *cams[MAX_CAMERAS];
};

static bool is_video_name(const char *name)
{
	if (strncmp(name, "video", 5) != 0 || !name[5])
		return false;
	for (const char *p = name + 5; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* A node of the cuse subsystem (uvcuse's, or another CUSE driver's; the
 * camera code asks the node itself): kernel video nodes are not opened,
 * which would wake their cameras. */
static bool is_cuse_node(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
		return false;
	char link[PATH_MAX], target[PATH_MAX];
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/subsystem", major(st.st_rdev),
		 minor(st.st_rdev));
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = 0;
	const char *base = strrchr(target, '/');
	return base && strcmp(base + 1, "cuse") == 0;
}

static int find_camera(struct bridge *br, const char *path)
{
	for (int i = 0; i < MAX_CAMERAS; i++)
		if (br->cams[i] && strcmp(bridge_camera_path(br->cams[i]), path) == 0)
			return i;
	return -1;
}

static void drop_slot(struct bridge *br, int i)
{
	bridge_camera_free(br->cams[i]);
	br->cams[i] = NULL;
}

static void remove_camera(struct bridge *br, const char *path)
{
	int i = find_camera(br, path);
	if (i >= 0)
		drop_slot(br, i);
}

/* A node appeared or its permissions changed: publish it when it is a
 * uvcuse camera we may open; unpublish it when we no longer may. */
static void consider(struct bridge *br, const char *name)
{
	if (!is_video_name(name))
		return;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", br->dev_dir, name);
	int i = find_camera(br, path);
	if (i >= 0) {
		if (access(path, R_OK | W_OK) < 0) {
			log_info("%s: access withdrawn", path);
			remove_camera(br, path);
		}
		return;
	}
	if (!br->core || !is_cuse_node(path))
		return;
	int slot;
	for (slot = 0; slot < MAX_CAMERAS && br->cams[slot]; slot++)
		;
	if (slot == MAX_CAMERAS) {
		log_warn("%s: more than %d cameras; not published", path, MAX_CAMERAS);
		return;
	}
	bridge_camera_new(br->core, br->loop, path, &br->cams[slot]);
}

static void scan(struct bridge *br)
{
	DIR *d = opendir(br->dev_dir);
	if (!d) {
		log_error("%s: %s", br->dev_dir, strerror(errno));
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		consider(br, e->d_name);
	closedir(d);
}

/* After an overflow of the watch's queue: cameras whose node went are
 * dropped, the directory is read again. */
static void rescan(struct bridge *br)
{
	for (int i = 0; i < MAX_CAMERAS; i++) {
		struct stat st;
		if (br->cams[i] &&
		    (stat(bridge_camera_path(br->cams[i]), &st) < 0 || !S_ISCHR(st.st_mode)))
			drop_slot(br, i);
	}
	scan(br);
}

static void on_dev_event(void *data, int fd, uint32_t mask)
{
	struct bridge *br = data;
	(void)mask;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				log_warn("%s: events lost; reading it again", br->dev_dir);
				rescan(br);
				continue;
			}
			if (!ev->len || !is_video_name(ev->name))
				continue;
			if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
				char path[PATH_MAX];
				snprintf(path, sizeof(path), "%s/%s", br->dev_dir, ev->name);
				remove_camera(br, path);
			} else {
				consider(br, ev->name);
			}
		}
	}
}

/* --- PipeWire's connection --------------------------------------------- */

static void drop_all(struct bridge *br)
{
	for (int i = 0; i < MAX_CAMERAS; i++)
		drop_slot(br, i);
}

static void schedule_reconnect(struct bridge *br)
{
	struct timespec t = { .tv_sec = br->reconnect_ms / 1000,
			      .tv_nsec = (long)(br->reconnect_ms % 1000) * 1000000L };
	pw_loop_update_timer(br->loop, br->reconnect, &t, NULL, false);
}

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message)
{
	struct bridge *br = data;
	(void)seq;
	if (id != PW_ID_CORE || res != -EPIPE) {
		log_debug("PipeWire: error on object %u: %s (%s)", id, message, strerror(-res));
		return;
	}
	log_warn("PipeWire went away; its nodes are published again when it is back");
	/* the core goes from the loop, not from within its own callback */
	br->reconnect_ms = RECONNECT_FIRST_MS;
	schedule_reconnect(br);
}

static const struct pw_core_events core_events = {
	PW_VERSION_CORE_EVENTS,
	.error = on_core_error,
};

static void disconnect(struct bridge *br)
{
	drop_all(br);
	if (br->core) {
		spa_hook_remove(&br->core_listener);
		pw_core_disconnect(br->core);
		br->core = NULL;
	}
}

static void on_reconnect(void *data, uint64_t expirations)
{
	struct bridge *br = data;
	(void)expirations;
	disconnect(br);
	br->core = pw_context_connect(br->context, NULL, 0);
	if (!br->core) {
		log_debug("PipeWire: connecting: %s; again in %u ms", strerror(errno),
			  br->reconnect_ms);
		schedule_reconnect(br);
		br->reconnect_ms = br->reconnect_ms * 2 > RECONNECT_MAX_MS ? RECONNECT_MAX_MS
									  : br->reconnect_ms * 2;
		return;
	}
	pw_core_add_listener(br->core, &br->core_listener, &core_events, br);
	log_info("connected to PipeWire");
	scan(br);
}

static void on_signal(void *data, int signo)
{
	struct bridge *br = data;
	log_info("signal %d: leaving", signo);
	pw_main_loop_quit(br->main_loop);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: uvcuse-pipewire [OPTIONS]\n"
		   "Publishes the uvcuse cameras this user may open as PipeWire camera nodes.\n\n"
		   "  --dev-dir DIR       where the video nodes are (default /dev)\n"
		   "  --log-level LEVEL   error, warning, info (default) or debug\n"
		   "  -h, --help          this text\n"
		   "  -V, --version       the version\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev-dir", required_argument, NULL, 'd' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct bridge br = { .dev_dir = "/dev", .dev_watch_fd = -1,
			     .reconnect_ms = RECONNECT_FIRST_MS };
	int o;
	while ((o = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			br.dev_dir = optarg;
			break;
		case 'l': {
			int level = log_parse_level(optarg);
			if (level < 0) {
				fprintf(stderr, "uvcuse-pipewire: unknown log level '%s'\n", optarg);
				return 2;
			}
			log_set_level((enum log_level)level);
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("uvcuse-pipewire %s\n", UVCUSE_VERSION);
			return 0;
		default: /* getopt said why */
			fprintf(stderr, "Try 'uvcuse-pipewire --help' for more information.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "uvcuse-pipewire: unexpected argument '%s'\n"
				"Try 'uvcuse-pipewire --help' for more information.\n", argv[optind]);
		return 2;
	}

	pw_init(&argc, &argv);
	int rc = 1;
	br.main_loop = pw_main_loop_new(NULL);
	if (!br.main_loop)
		goto out;
	br.loop = pw_main_loop_get_loop(br.main_loop);
	br.context = pw_context_new(br.loop, NULL, 0);
	br.reconnect = pw_loop_add_timer(br.loop, on_reconnect, &br);
	br.dev_watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (!br.context || !br.reconnect || br.dev_watch_fd < 0) {
		log_error("setting up: %s", strerror(errno));
		goto out;
	}
	if (inotify_add_watch(br.dev_watch_fd, br.dev_dir,
			      IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM) < 0) {
		log_error("watching %s: %s", br.dev_dir, strerror(errno));
		goto out;
	}
	br.dev_watch = pw_loop_add_io(br.loop, br.dev_watch_fd, SPA_IO_IN, false, on_dev_event,
				      &br);
	pw_loop_add_signal(br.loop, SIGINT, on_signal, &br);
	pw_loop_add_signal(br.loop, SIGTERM, on_signal, &br);
	on_reconnect(&br, 1);
	pw_main_loop_run(br.main_loop);
	rc = 0;
out:
	disconnect(&br);
	if (br.dev_watch_fd >= 0)
		close(br.dev_watch_fd);
	if (br.context)
		pw_context_destroy(br.context);
	if (br.main_loop)
		pw_main_loop_destroy(br.main_loop);
	pw_deinit();
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's run (see daemon.h). Everything runs on one loop; start-up
 * blocks only until the node exists and udev has processed it. */
#include "service/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/loop.h"
#include "cuse/cuse.h"
#include "device/device.h"
#include "service/privdrop.h"
#include "service/readiness.h"
#include "service/status_server.h"
#include "share/udmabuf.h"
#include "usb/usb.h"

struct daemon {
	struct loop *loop;
	int signal_fd;
	struct usb_ctx *usb;
	struct device *dev;
	struct readiness *ready;
	struct status_server *status;
	int report_fd; /* detached: the parent waits for our verdict on it */
};

static void get_status(void *data, struct device_status *out)
{
	struct daemon *d = data;
	device_get_status(d->dev, out);
}

static void on_device_change(void *data)
{
	struct daemon *d = data;
	if (!d->dev || !d->ready)
		return;
	struct device_status st;
	char text[400];
	device_get_status(d->dev, &st);
	status_msg_summary(&st, text, sizeof(text));
	readiness_status(d->ready, text);
}

static void on_signal(void *data, uint32_t events)
{
	struct daemon *d = data;
	(void)events;
	struct signalfd_siginfo si;
	if (read(d->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		log_info("signal %u: exiting", si.ssi_signo);
		loop_quit(d->loop, 0);
	}
}

/* Without --foreground the parent waits until the node is registered and
 * exits with the child's verdict, so callers see start-up errors. */
static int detach(int *report_fd)
{
	int pipefd[2];
	if (pipe(pipefd) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(pipefd[1]);
		char status = 1;
		if (read(pipefd[0], &status, 1) != 1)
			status = 1;
		_exit(status);
	}
	close(pipefd[0]);
	setsid();
	*report_fd = pipefd[1];
	return 0;
}

static void report(int *fd, char status)
{
	if (*fd < 0)
		return;
	if (write(*fd, &status, 1) != 1) {
		/* the parent is gone: nothing to tell */
	}
	close(*fd);
	*fd = -1;
	if (status != 0)
		return;
	/* Detached and running: let go of the terminal and the caller's
	 * pipes ($(uvcuse) must return) and of the working directory; log
	 * lines go to syslog. */
	log_use_syslog();
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	if (chdir("/") != 0) {
		/* stays where it was: harmless */
	}
}


/* The loop, with signals on it (blocked first so that no thread, libusb's,
 * takes them), libusb and the readiness watch. */
static int daemon_setup(struct daemon *d, const char *name)
{
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (loop_new(&d->loop) < 0) {
		log_error("cannot create the event loop");
		return -1;
	}
	d->signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d->signal_fd < 0 || loop_add(d->loop, d->signal_fd, EPOLLIN, on_signal, d) < 0) {
		log_error("cannot watch signals: %s", strerror(errno));
		return -1;
	}
	int err = usb_ctx_new(d->loop, &d->usb);
	if (err) {
		log_error("cannot use libusb: %s", strerror(-err));
		return -1;
	}
	/* watching udev first: the node's database entry must not be missed */
	if (readiness_new(d->loop, name, &d->ready) < 0) {
		log_error("cannot set up systemd notification");
		return -1;
	}
	return 0;
}

/* What needs root, opened while the daemon has it: /dev/cuse, and
 * /dev/kmsg for LOG_STATUS and /dev/udmabuf for EXPBUF (optional). Then root is dropped: the camera,
 * its descriptors and answers, and the state directory are read as the
 * daemon's user (udev gives it the camera's usbfs node). */
static int open_privileged_then_drop(struct resolved *r, int *cuse_fd, int *meta_cuse_fd,
				     int *kmsg_fd, int *udmabuf_fd)
{
	/* A failure is device_new's to report, after the camera's own
	 * errors (no such camera, not UVC, name taken): those say more. */
	*cuse_fd = cuse_open_control();
	*meta_cuse_fd = r->cfg.meta_name ? cuse_open_control() : -1;
	*kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NONBLOCK);
	if (*kmsg_fd < 0)
		log_debug("/dev/kmsg: %s: LOG_STATUS goes to our log only", strerror(errno));
	/* VIDIOC_EXPBUF's dma-bufs */
	*udmabuf_fd = udmabuf_open();
	if (*udmabuf_fd < 0)
		log_info("/dev/udmabuf: %s: VIDIOC_EXPBUF answers ENOTTY%s", strerror(-*udmabuf_fd),
			 *udmabuf_fd == -ENOENT ? " (a kernel without CONFIG_UDMABUF)" : "");
	if (!r->drop_privileges)
		return 0;
	char err[160];
	if (privdrop_apply(&r->user, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return -1;
	}
	log_info("running as %s (uid %u, gid %u), no capabilities, before the camera is read",
		 r->user.name, (unsigned)r->user.uid, (unsigned)r->user.gid);
	return 0;
}

/* /dev/cuse and /dev/kmsg opened, root dropped, then the device and the
 * sockets (the daemon's user owns them, can remove them at exit and give
 * them a group it is a member of). */
static int daemon_serve(struct daemon *d, struct resolved *r)
{
	int cuse_fd = -1, meta_cuse_fd = -1, kmsg_fd = -1, udmabuf_fd = -ENOTTY;
	int err = open_privileged_then_drop(r, &cuse_fd, &meta_cuse_fd, &kmsg_fd, &udmabuf_fd);
	if (!err) {
		r->cfg.cuse_fd = &cuse_fd;
		r->cfg.meta_cuse_fd = &meta_cuse_fd;
		r->cfg.kmsg_fd = kmsg_fd;
		r->cfg.udmabuf_fd = &udmabuf_fd;
		r->cfg.on_change = on_device_change;
		r->cfg.change_data = d;
		err = device_new(d->loop, d->usb, &r->cfg, &d->dev);
	}
	if (err < 0) { /* still ours */
		if (cuse_fd >= 0)
			close(cuse_fd);
		if (meta_cuse_fd >= 0)
			close(meta_cuse_fd);
		if (kmsg_fd >= 0)
			close(kmsg_fd);
		if (udmabuf_fd >= 0)
			close(udmabuf_fd);
		return -1;
	}
	device_share_buffers(d->dev, d->loop, r->name);
	err = status_server_new(d->loop, NULL, r->name, get_status, d, &d->status);
	if (err < 0)
		log_warn("no status socket (uvcuse --status will not list /dev/%s): %s", r->name,
			 strerror(-err));
	return 0;
}

/* The node appears once the kernel has answered CUSE_INIT, which the loop
 * handles; under systemd, ready means udev has applied its rules (group,
 * mode, links) too, but a udev that never says so must not keep the unit
 * from starting. Returns -1 when ready, else the exit status (0 after a
 * signal). */
static int wait_ready(struct daemon *d, const char *name)
{
	char path[80];
	snprintf(path, sizeof(path), "/dev/%s", name);
	struct stat st;
	int status = 1;
	for (int waited = 0; stat(path, &st) != 0; waited += 50) {
		int quit = loop_run_once(d->loop, 50, &status);
		if (quit == 0 && waited > 10000)
			log_error("/dev/%s did not appear within 10 s", name);
		if (quit < 0 || (quit == 0 && waited > 10000))
			return 1;
		if (quit > 0)
			return status; /* a signal (0) or the session ended (1) */
	}
	int udev = readiness_wait_udev(d->ready, d->loop, st.st_rdev, 10000, &status);
	if (udev == -EINTR)
		return status; /* a signal (0) or the session ended (1) */
	if (udev < 0)
		return 1;
	if (udev == 0)
		log_warn("udev did not process /dev/%s within 10 s: ready anyway", name);
	return -1;
}

static void daemon_teardown(struct daemon *d)
{
	report(&d->report_fd, 1);
	status_server_free(d->status);
	struct device *dev = d->dev;
	d->dev = NULL; /* no STATUS= from a device going away */
	device_free(dev);
	readiness_free(d->ready);
	usb_ctx_free(d->usb);
	if (d->signal_fd >= 0)
		close(d->signal_fd);
	loop_free(d->loop);
}

int daemon_run(struct resolved *r, bool foreground)
{
	struct daemon d = { .signal_fd = -1, .report_fd = -1 };
	if (!foreground && detach(&d.report_fd) < 0) {
		log_error("cannot detach: %s", strerror(errno));
		return 1;
	}
	int status = 1;
	if (daemon_setup(&d, r->name) == 0 && daemon_serve(&d, r) == 0) {
		status = wait_ready(&d, r->name);
		if (status < 0) {
			log_info("ready: /dev/%s", r->name);
			on_device_change(&d);
			readiness_ready(d.ready);
			report(&d.report_fd, 0);
			status = loop_run(d.loop);
			if (status < 0) {
				log_error("event loop: %s", strerror(-status));
				status = 1;
			}
		}
	}
	daemon_teardown(&d);
	return status;
}

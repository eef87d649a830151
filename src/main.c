/* uvcuse: serves one UVC camera as a V4L2 node through CUSE.
 * Command line, start-up, signals and the event loop; device.c does the
 * rest. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service/config.h"
#include "device/device.h"
#include "core/log.h"
#include "core/loop.h"
#include "service/privdrop.h"
#include "service/readiness.h"
#include "service/status_client.h"
#include "service/status_server.h"
#include "settings/settings.h"
#include "usb/usb.h"
#include "v4l2/formats.h"
#include "uvc/quirks.h"

#ifndef UVCUSE_VERSION
#define UVCUSE_VERSION "unknown"
#endif

/* How long the node outlives an unplugged camera with no file open: long
 * enough for a cable to be plugged back, short enough that a camera put
 * away does not leave a dead node behind. */
#define DEFAULT_LINGER_S 30

/* Long options without a short one. */
enum { OPT_STATE_DIR = 0x100, OPT_NO_RESTORE, OPT_RESET, OPT_CONFIG, OPT_CONFIG_DIR, OPT_USER, OPT_STATUS, OPT_UDEV,
       OPT_CAMERA, OPT_IS_IGNORED, OPT_CONVERT, OPT_NO_CONVERT, OPT_CONVERT_THREADS,
       OPT_LINGER, OPT_EXIT_ON_UNPLUG, OPT_EXCLUSIVE, OPT_QUIRKS };

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: uvcuse [OPTION]...\n"
		"Serve a USB Video Class camera as a V4L2 capture node (/dev/videoN) from\n"
		"userspace, through CUSE.\n"
		"\n"
		"Which camera (default: the first UVC camera found):\n"
		"  -d, --device VID:PID     by USB vendor and product ID (hex)\n"
		"  -b, --bus-path BUS-PORT[.PORT...]  by where it is plugged in (as in sysfs)\n"
		"  -s, --serial SERIAL      by USB serial number\n"
		"      --camera IDENTITY    by identity, as the udev rule names the service\n"
		"                           instance: serial-VVVV-PPPP-SERIAL, or\n"
		"                           port-VVVV-PPPP-BUS-PORT[.PORT...] without a serial\n"
		"      --is-ignored IDENTITY  exit 0 when the config leaves that camera to\n"
		"                           uvcvideo, 1 otherwise (for the udev rule)\n"
		"Node:\n"
		"  -n, --name videoN        node name (default: the lowest free videoN, N >= 10)\n"
		"Daemon:\n"
		"      --config FILE        the main config file (default " CONFIG_MAIN_FILE ")\n"
		"      --config-dir DIR     more config files, DIR/*.conf in sorted order\n"
		"                           (default " CONFIG_DIR "); options given here\n"
		"                           override the files\n"
		"  -f, --foreground         stay in the foreground (for systemd)\n"
		"      --user NAME          once /dev/cuse and the camera are open, become\n"
		"                           NAME (its groups, no capabilities left)\n"
		"  -l, --log-level LEVEL    error, warning, info (default) or debug\n"
		"Format conversion:\n"
		"      --convert            offer RGB24, BGR24, YU12 and YV12 after the\n"
		"                           camera's own formats, converted from them\n"
		"                           (the default)\n"
		"      --no-convert         offer only the camera's own formats, as uvcvideo\n"
		"      --convert-threads N  threads that convert frames (default: one per\n"
		"                           core)\n"
		"Sharing:\n"
		"      --exclusive          one process streams at a time, as uvcvideo (by\n"
		"                           default several stream the camera at once)\n"
		"Unplug:\n"
		"      --linger S           when the camera is unplugged the node stays: apps\n"
		"                           wait, and streams resume when it comes back; the\n"
		"                           node goes after S seconds with no file open\n"
		"                           (default 30)\n"
		"      --exit-on-unplug     the node goes at once, as uvcvideo's (--linger 0)\n"
		"Camera:\n"
		"      --quirks LIST        uvcvideo's quirks for the camera instead of what its\n"
		"                           device table says: names (probe_minmax,fix_bandwidth,\n"
		"                           ...), none, or a number as uvcvideo's quirks=\n"
		"Remembered controls (values apps set, saved per camera and set again when\n"
		"the camera is opened):\n"
		"      --state-dir DIR      where they are kept (default: $STATE_DIRECTORY,\n"
		"                           else /var/lib/uvcuse)\n"
		"      --no-restore-controls  start with the camera's own values (what apps\n"
		"                           set is still saved)\n"
		"      --reset-controls     set the camera's defaults and forget what was saved\n"
		"Other:\n"
		"  -L, --list               list UVC cameras with their formats, then exit\n"
		"      --status             one line per camera the daemons on this machine\n"
		"                           serve (from $RUNTIME_DIRECTORY, else /run/uvcuse)\n"
		"      --udev-properties NODE  the ID_* properties of the camera served as\n"
		"                           NODE, for udev's IMPORT{program}\n"
		"  -h, --help               this help\n"
		"  -V, --version            the version\n"
		"\n"
		"Exit status: 0 after SIGTERM/SIGINT or when the config says to ignore the\n"
		"camera, 1 on errors (no matching camera, not a UVC camera, no /dev/cuse,\n"
		"name taken, a bad config file), 2 on bad usage.\n");
}

static bool node_name_free(const char *name)
{
	static const char *const dirs[] = { "/dev/", "/sys/class/video4linux/", "/sys/class/cuse/" };
	char path[128];
	struct stat st;
	for (unsigned i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", dirs[i], name);
		if (lstat(path, &st) == 0)
			return false;
	}
	return true;
}

/* --- --list -------------------------------------------------------------- */

static void print_intervals(const struct uvc_streaming *s, uint32_t fourcc, unsigned w, unsigned h)
{
	struct v4l2_frmivalenum fi = { .pixel_format = fourcc, .width = w, .height = h };
	for (fi.index = 0; fmt_enum_frameintervals(s, &fi) == 0; fi.index++) {
		if (fi.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
			printf(" %.3f", (double)fi.discrete.denominator / fi.discrete.numerator);
		} else {
			printf(" %.3f-%.3f", (double)fi.stepwise.max.denominator / fi.stepwise.max.numerator,
			       (double)fi.stepwise.min.denominator / fi.stepwise.min.numerator);
			break;
		}
	}
}

static int list_one(void *data, const struct usb_camera_id *id, const struct uvc_camera *model,
		    const char *parse_error)
{
	unsigned *count = data;
	(*count)++;
	printf("%04x:%04x %s (port %s) '%s'", id->vid, id->pid, id->bus_info, id->port_path,
	       id->product[0] ? id->product : "UVC Camera");
	if (id->serial[0])
		printf(" serial %s", id->serial);
	char identity[192];
	if (usb_camera_identity(id, identity, sizeof(identity)) == 0)
		printf(" identity %s", identity);
	printf("\n");
	if (!model) {
		printf("  descriptors do not parse: %s\n", parse_error ? parse_error : "?");
		return 0;
	}
	for (unsigned si = 0; si < model->n_streams; si++) {
		const struct uvc_streaming *s = &model->streams[si];
		struct v4l2_fmtdesc fd = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		for (fd.index = 0; fmt_enum(s, &fd) == 0; fd.index++) {
			printf("  %.4s '%s'%s\n", (const char *)&fd.pixelformat, fd.description,
			       fd.flags & V4L2_FMT_FLAG_COMPRESSED ? " (compressed)" : "");
			struct v4l2_frmsizeenum fs = { .pixel_format = fd.pixelformat };
			for (fs.index = 0; fmt_enum_framesizes(s, &fs) == 0; fs.index++) {
				printf("    %ux%u fps", fs.discrete.width, fs.discrete.height);
				print_intervals(s, fd.pixelformat, fs.discrete.width, fs.discrete.height);
				printf("\n");
			}
		}
	}
	return 0;
}

static int list_cameras(void)
{
	struct usb_ctx *usb;
	int err = usb_ctx_new(NULL, &usb);
	if (err) {
		log_error("cannot use libusb: %s", strerror(-err));
		return 1;
	}
	unsigned count = 0;
	usb_enumerate(usb, list_one, &count);
	usb_ctx_free(usb);
	if (!count)
		printf("no UVC camera found\n");
	return 0;
}

/* --- config ------------------------------------------------------------ */

struct found_camera {
	const struct usb_match *match;
	bool found;
	struct usb_camera_id id;
};

static int find_one(void *data, const struct usb_camera_id *id, const struct uvc_camera *model,
		    const char *parse_error)
{
	struct found_camera *f = data;
	(void)model;
	(void)parse_error;
	if (!usb_match_id(f->match, id))
		return 0;
	f->found = true;
	f->id = *id;
	return 1;
}

static void config_warning(void *data, const char *msg)
{
	(void)data;
	log_warn("%s", msg);
}

/* The camera the command line selects, without claiming it, so that the
 * config can leave it alone. false when none is found (device_new then
 * says why). */
static bool find_camera(const struct usb_match *match, struct usb_camera_id *out)
{
	struct usb_ctx *usb;
	if (usb_ctx_new(NULL, &usb) < 0)
		return false;
	struct found_camera f = { .match = match };
	usb_enumerate(usb, find_one, &f);
	usb_ctx_free(usb);
	if (f.found)
		*out = f.id;
	return f.found;
}

/* --- daemon ------------------------------------------------------------ */

struct daemon_state {
	struct device *dev;
	struct readiness *ready;
	struct status_server *status;
};

static void get_status(void *data, struct device_status *out)
{
	struct daemon_state *d = data;
	device_get_status(d->dev, out);
}

static void on_device_change(void *data)
{
	struct daemon_state *d = data;
	if (!d->dev || !d->ready)
		return;
	struct device_status st;
	char text[400];
	device_get_status(d->dev, &st);
	status_msg_summary(&st, text, sizeof(text));
	readiness_status(d->ready, text);
}

struct sigwatch {
	struct loop *loop;
	int fd;
};

static void on_signal(void *data, uint32_t events)
{
	struct sigwatch *sig = data;
	(void)events;
	struct signalfd_siginfo si;
	if (read(sig->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		log_info("signal %u: exiting", si.ssi_signo);
		loop_quit(sig->loop, 0);
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

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "bus-path", required_argument, NULL, 'b' },
		{ "serial", required_argument, NULL, 's' },
		{ "camera", required_argument, NULL, OPT_CAMERA },
		{ "is-ignored", required_argument, NULL, OPT_IS_IGNORED },
		{ "name", required_argument, NULL, 'n' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "list", no_argument, NULL, 'L' },
		{ "debug-cuse", no_argument, NULL, 'D' },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "no-restore-controls", no_argument, NULL, OPT_NO_RESTORE },
		{ "reset-controls", no_argument, NULL, OPT_RESET },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "config-dir", required_argument, NULL, OPT_CONFIG_DIR },
		{ "user", required_argument, NULL, OPT_USER },
		{ "status", no_argument, NULL, OPT_STATUS },
		{ "udev-properties", required_argument, NULL, OPT_UDEV },
		{ "convert", no_argument, NULL, OPT_CONVERT },
		{ "no-convert", no_argument, NULL, OPT_NO_CONVERT },
		{ "convert-threads", required_argument, NULL, OPT_CONVERT_THREADS },
		{ "linger", required_argument, NULL, OPT_LINGER },
		{ "quirks", required_argument, NULL, OPT_QUIRKS },
		{ "exit-on-unplug", no_argument, NULL, OPT_EXIT_ON_UNPLUG },
		{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct device_config cfg = { 0 };
	int cli_convert = -1; /* --convert / --no-convert win over the files */
	int cli_convert_threads = -1;
	long cli_linger = -1;
	bool cli_exclusive = false;
	bool cli_has_quirks = false;
	uint32_t cli_quirks = 0;
	bool foreground = false, list = false, cli_log_level = false;
	char name[64] = "";
	const char *state_dir = NULL, *config_file = NULL, *config_dir = CONFIG_DIR;
	const char *user_name = NULL, *udev_node = NULL;
	bool is_ignored = false;
	bool show_status = false;
	int opt;
	while ((opt = getopt_long(argc, argv, "d:b:s:n:fl:LhV", options, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (usb_match_parse_id(optarg, &cfg.match)) {
				fprintf(stderr, "uvcuse: --device wants VID:PID in hex, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'b':
			cfg.match.port_path = optarg;
			break;
		case 's':
			cfg.match.serial = optarg;
			break;
		case OPT_IS_IGNORED:
			is_ignored = true;
			/* the identity names the camera, as for --camera */
			__attribute__((fallthrough));
		case OPT_CAMERA:
			if (usb_match_parse_identity(optarg, &cfg.match)) {
				fprintf(stderr,
					"uvcuse: --camera wants serial-VVVV-PPPP-SERIAL or "
					"port-VVVV-PPPP-BUS-PORT, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			if (strncmp(optarg, "video", 5) || !optarg[5] ||
			    strspn(optarg + 5, "0123456789") != strlen(optarg + 5) || strlen(optarg) > 40) {
				fprintf(stderr, "uvcuse: --name wants videoN, not '%s'\n", optarg);
				return 2;
			}
			snprintf(name, sizeof(name), "%s", optarg);
			break;
		case 'f':
			foreground = true;
			break;
		case 'l': {
			int level = log_parse_level(optarg);
			if (level < 0) {
				fprintf(stderr, "uvcuse: unknown log level '%s'\n", optarg);
				return 2;
			}
			log_set_level(level);
			cli_log_level = true;
			break;
		}
		case OPT_CONFIG:
			config_file = optarg;
			break;
		case OPT_CONFIG_DIR:
			config_dir = optarg;
			break;
		case OPT_USER:
			user_name = optarg;
			break;
		case OPT_STATUS:
			show_status = true;
			break;
		case OPT_UDEV:
			udev_node = optarg;
			break;
		case 'L':
			list = true;
			break;
		case 'D':
			cfg.debug_cuse = true;
			break;
		case OPT_STATE_DIR:
			if (!optarg[0]) {
				fprintf(stderr, "uvcuse: --state-dir wants a directory\n");
				return 2;
			}
			state_dir = optarg;
			break;
		case OPT_NO_RESTORE:
			cfg.settings.no_restore = true;
			break;
		case OPT_RESET:
			cfg.settings.reset = true;
			break;
		case OPT_CONVERT:
			cli_convert = 1;
			break;
		case OPT_NO_CONVERT:
			cli_convert = 0;
			break;
		case OPT_CONVERT_THREADS: {
			char *end;
			errno = 0;
			unsigned long n = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > 64 || optarg[0] == '-') {
				fprintf(stderr, "uvcuse: --convert-threads wants 1 to 64, not '%s'\n",
					optarg);
				return 2;
			}
			cli_convert_threads = (int)n;
			break;
		}
		case OPT_QUIRKS:
			if (uvc_quirks_parse(optarg, &cli_quirks) < 0) {
				fprintf(stderr, "uvcuse: --quirks wants quirk names, none or a number, "
						"not '%s'\n", optarg);
				return 2;
			}
			cli_has_quirks = true;
			break;
		case OPT_LINGER: {
			char *end;
			errno = 0;
			cli_linger = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || cli_linger < 0 || cli_linger > 86400) {
				fprintf(stderr, "uvcuse: --linger wants 0 to 86400 seconds, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		}
		case OPT_EXIT_ON_UNPLUG:
			cli_linger = 0;
			break;
		case OPT_EXCLUSIVE:
			cli_exclusive = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("uvcuse %s\n", UVCUSE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "uvcuse: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (list)
		return list_cameras();
	if (show_status)
		return status_client_list();
	if (udev_node)
		return status_client_udev(udev_node);

	/* The files, then the command line over them. */
	struct config conf;
	config_init(&conf, config_warning, NULL);
	char conf_err[512];
	if (config_load(&conf, config_file ? config_file : CONFIG_MAIN_FILE, !config_file, config_dir,
			conf_err, sizeof(conf_err)) < 0) {
		log_error("%s", conf_err);
		config_free(&conf);
		return 1;
	}
	struct usb_camera_id cam_id = { 0 };
	struct config_values values;
	char pinned_port[sizeof(cam_id.port_path)] = "";
	if (find_camera(&cfg.match, &cam_id)) {
		struct config_camera who = { cam_id.vid, cam_id.pid, cam_id.serial, cam_id.port_path };
		config_resolve(&conf, &who, &values);
		/* open exactly the camera the config was resolved for */
		snprintf(pinned_port, sizeof(pinned_port), "%s", cam_id.port_path);
		cfg.match.port_path = pinned_port;
	} else if (is_ignored) {
		/* not plugged in (any more): what the identity says of it */
		struct config_camera who = { cfg.match.vid, cfg.match.pid,
					     cfg.match.serial ? cfg.match.serial : "",
					     cfg.match.port_path ? cfg.match.port_path : "" };
		config_resolve(&conf, &who, &values);
	} else {
		config_resolve(&conf, &(struct config_camera){ 0, 0, "", "" }, &values);
	}
	config_free(&conf);
	if (is_ignored) {
		/* for the udev rule: 0 = leave this camera to uvcvideo */
		return values.ignore == 1 ? 0 : 1;
	}
	if (values.log_level >= 0 && !cli_log_level)
		log_set_level((enum log_level)values.log_level);
	if (values.ignore == 1) {
		if (cam_id.port_path[0])
			log_info("camera %04x:%04x at %s%s%s: the config says ignore: left to uvcvideo",
				 cam_id.vid, cam_id.pid, cam_id.port_path, cam_id.serial[0] ? ", serial " : "",
				 cam_id.serial);
		else
			log_info("the config says ignore (no camera found): nothing to do");
		return 0;
	}
	if (values.name[0] && !name[0])
		snprintf(name, sizeof(name), "%s", values.name);
	cfg.convert = true;
	if (cli_convert >= 0)
		cfg.convert = cli_convert;
	else if (values.convert >= 0)
		cfg.convert = values.convert;
	if (cli_convert_threads > 0)
		cfg.convert_threads = (unsigned)cli_convert_threads;
	else if (values.convert_threads > 0)
		cfg.convert_threads = (unsigned)values.convert_threads;
	if (cli_exclusive)
		cfg.exclusive = true;
	else if (values.exclusive >= 0)
		cfg.exclusive = values.exclusive;
	if (cli_has_quirks || values.has_quirks > 0) {
		cfg.has_quirks = true;
		cfg.quirks = cli_has_quirks ? cli_quirks : values.quirks;
	}
	cfg.linger = DEFAULT_LINGER_S;
	if (cli_linger >= 0)
		cfg.linger = (unsigned)cli_linger;
	else if (values.linger >= 0)
		cfg.linger = (unsigned)values.linger;

	/* absolute: a detached daemon works from / */
	char cwd[PATH_MAX], state[PATH_MAX];
	const char *env_state = getenv("STATE_DIRECTORY");
	if (settings_state_dir(state_dir, env_state, getcwd(cwd, sizeof(cwd)), state, sizeof(state)) < 0) {
		fprintf(stderr, "uvcuse: unusable state directory '%s'\n",
			state_dir ? state_dir : env_state ? env_state : "");
		return 2;
	}
	cfg.settings.dir = state;

	struct privdrop_user user;
	if (user_name) {
		char err[160];
		if (privdrop_lookup(user_name, &user, err, sizeof(err)) < 0) {
			log_error("%s", err);
			return 1;
		}
		int e = privdrop_prepare_dir(&user, state);
		if (e < 0) {
			log_error("state directory %s: %s", state, strerror(-e));
			return 1;
		}
	}

	if (!name[0]) {
		for (unsigned n = 10; n < 256 && !name[0]; n++) {
			char candidate[16];
			snprintf(candidate, sizeof(candidate), "video%u", n);
			if (node_name_free(candidate))
				snprintf(name, sizeof(name), "%s", candidate);
		}
		if (!name[0]) {
			log_error("no free videoN name between video10 and video255");
			return 1;
		}
	} else if (!node_name_free(name)) {
		log_error("name %s is taken", name);
		return 1;
	}
	cfg.name = name;

	int report_fd = -1;
	if (!foreground && detach(&report_fd) < 0) {
		log_error("cannot detach: %s", strerror(errno));
		return 1;
	}

	/* signals arrive through a signalfd on the loop; block them first so
	 * no thread (libusb's) takes them */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	struct loop *loop = NULL;
	struct usb_ctx *usb = NULL;
	struct device *dev = NULL;
	struct daemon_state dstate = { NULL, NULL, NULL };
	int status = 1;
	struct sigwatch sig = { NULL, -1 };

	if (loop_new(&loop) < 0) {
		log_error("cannot create the event loop");
		goto out;
	}
	sig.loop = loop;
	sig.fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sig.fd < 0 || loop_add(loop, sig.fd, EPOLLIN, on_signal, &sig) < 0) {
		log_error("cannot watch signals: %s", strerror(errno));
		goto out;
	}
	int err = usb_ctx_new(loop, &usb);
	if (err) {
		log_error("cannot use libusb: %s", strerror(-err));
		goto out;
	}
	/* watching udev first: the node's database entry must not be missed */
	if (readiness_new(loop, name, &dstate.ready) < 0) {
		log_error("cannot set up systemd notification");
		goto out;
	}
	cfg.on_change = on_device_change;
	cfg.change_data = &dstate;
	if (device_new(loop, usb, &cfg, &dev) < 0)
		goto out;
	dstate.dev = dev;
	/* Everything that needs root is open: /dev/cuse, the camera's usbfs
	 * node, /dev/kmsg. */
	if (user_name) {
		char err[160];
		if (privdrop_apply(&user, err, sizeof(err)) < 0) {
			log_error("%s", err);
			goto out;
		}
		log_info("running as %s (uid %u, gid %u), no capabilities", user.name,
			 (unsigned)user.uid, (unsigned)user.gid);
	}
	/* The sockets after the drop: the daemon's user owns them (and can
	 * remove them at exit, and give them a group it is a member of). */
	device_share_buffers(dev, loop, name);
	err = status_server_new(loop, NULL, name, get_status, &dstate, &dstate.status);
	if (err < 0)
		log_warn("no status socket (uvcuse --status will not list /dev/%s): %s", name,
			 strerror(-err));
	/* The node appears once the kernel has answered CUSE_INIT, which the
	 * loop handles: only then is start-up a success. */
	char path[80];
	snprintf(path, sizeof(path), "/dev/%s", name);
	struct stat st;
	for (int waited = 0; stat(path, &st) != 0; waited += 50) {
		int quit = loop_run_once(loop, 50, &status);
		if (quit < 0 || (quit == 0 && waited > 10000)) {
			if (quit == 0)
				log_error("/dev/%s did not appear within 10 s", name);
			status = 1;
			goto out;
		}
		if (quit > 0)
			goto out; /* a signal (status 0) or the session ended (1) */
	}
	/* Under systemd, ready means udev has applied its rules (group,
	 * mode, links) too; a udev that never says so must not keep the
	 * unit from starting. */
	int udev = readiness_wait_udev(dstate.ready, loop, st.st_rdev, 10000, &status);
	if (udev == -EINTR)
		goto out; /* a signal (status 0) or the session ended (1) */
	if (udev < 0) {
		status = 1;
		goto out;
	}
	if (udev == 0)
		log_warn("udev did not process /dev/%s within 10 s: ready anyway", name);
	log_info("ready: /dev/%s", name);
	on_device_change(&dstate);
	readiness_ready(dstate.ready);
	report(&report_fd, 0);
	status = loop_run(loop);
	if (status < 0) {
		log_error("event loop: %s", strerror(-status));
		status = 1;
	}
out:
	report(&report_fd, 1);
	status_server_free(dstate.status);
	dstate.dev = NULL; /* no STATUS= from a device going away */
	device_free(dev);
	readiness_free(dstate.ready);
	usb_ctx_free(usb);
	if (sig.fd >= 0)
		close(sig.fd);
	loop_free(loop);
	return status;
}

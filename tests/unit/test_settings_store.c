/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/settings/settings_store.c: the files (atomic writes in a temporary directory,
 * missing and unwritable directories), and remembered controls over a node
 * whose camera is the vcam's control model: what the camera receives on
 * open, with --reset-controls and --no-restore-controls, corrupt files, and
 * saves coalesced on a loop. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/usb/video.h>
#include <linux/videodev2.h>

#include "controls.h"    /* tests/vcam */
#include "descriptors.h" /* tests/vcam */
#include "core/log.h"
#include "core/loop.h"
#include "profile.h"
#include "settings/settings.h"
#include "settings/settings_store.h"
#include "node_fixture.h"
#include "unit_run.h"
#include "vcam_fixture.h"
#include "v4l2/node.h"

static char dir[64];

static void rm_rf(const char *path)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
}

static void setup_dir(void)
{
	strcpy(dir, "/tmp/test_settings.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown_dir(void)
{
	rm_rf(dir);
}

/* The entries of a directory, but . and .. */
static unsigned count_entries(const char *d)
{
	DIR *dh = opendir(d);
	unsigned n = 0;
	struct dirent *e;
	ck_assert_ptr_nonnull(dh);
	while ((e = readdir(dh)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dh);
	return n;
}

static char *read_text(const char *d, const char *name)
{
	static char buf[8192];
	size_t len = 0;
	if (settings_file_read(d, name, buf, sizeof(buf) - 1, &len) < 0)
		return NULL;
	buf[len] = 0;
	return buf;
}

/* ---- files ---- */

START_TEST(write_read_atomic)
{
	char sub[128], *text;
	struct stat st;

	/* the directory and its parents are made */
	snprintf(sub, sizeof(sub), "%s/state/uvcuse", dir);
	ck_assert_int_eq(settings_file_write(sub, "a.controls", "one\n", 4), 0);
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0755 & ~(unsigned)umask(022));
	text = read_text(sub, "a.controls");
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, "one\n");
	snprintf(sub, sizeof(sub), "%s/state/uvcuse/a.controls", dir);
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);
	/* replaced whole; no temporary file left behind */
	snprintf(sub, sizeof(sub), "%s/state/uvcuse", dir);
	ck_assert_int_eq(settings_file_write(sub, "a.controls", "two, longer\n", 12), 0);
	ck_assert_str_eq(read_text(sub, "a.controls"), "two, longer\n");
	ck_assert_uint_eq(count_entries(sub), 1);
	/* an empty file is a file */
	ck_assert_int_eq(settings_file_write(sub, "a.controls", "", 0), 0);
	ck_assert_str_eq(read_text(sub, "a.controls"), "");
	/* remove: gone, and removing nothing is fine */
	ck_assert_int_eq(settings_file_remove(sub, "a.controls"), 0);
	ck_assert_int_eq(settings_file_remove(sub, "a.controls"), 0);
	ck_assert_uint_eq(count_entries(sub), 0);
}
END_TEST

START_TEST(read_errors)
{
	char buf[32], sub[128];
	size_t len;

	ck_assert_int_eq(settings_file_read(dir, "none.controls", buf, sizeof(buf), &len), -ENOENT);
	snprintf(sub, sizeof(sub), "%s/missing", dir);
	ck_assert_int_eq(settings_file_read(sub, "none.controls", buf, sizeof(buf), &len), -ENOENT);
	ck_assert_int_eq(settings_file_write(dir, "big", "0123456789abcdefX", 17), 0);
	ck_assert_int_eq(settings_file_read(dir, "big", buf, 16, &len), -EFBIG);
	ck_assert_int_eq(settings_file_read(dir, "big", buf, 17, &len), 0);
	ck_assert_uint_eq(len, 17);
	/* a directory where the file should be */
	snprintf(sub, sizeof(sub), "%s/d.controls", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(settings_file_read(dir, "d.controls", buf, sizeof(buf), &len), -EINVAL);
	/* a link planted where the file should be (another instance shares
	 * the directory): not followed, its target not read */
	char target[160], link[160];
	snprintf(target, sizeof(target), "%s/big", dir);
	snprintf(link, sizeof(link), "%s/l.controls", dir);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(settings_file_read(dir, "l.controls", buf, sizeof(buf), &len), -ELOOP);
	/* another user's file: as root, one made over to nobody */
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(target, 65534, 65534), 0);
		ck_assert_int_eq(settings_file_read(dir, "big", buf, 17, &len), -EPERM);
	}
}
END_TEST

START_TEST(write_errors_leave_nothing)
{
	char file[128], sub[128];

	/* the state directory cannot be made: a file is in the way */
	snprintf(file, sizeof(file), "%s/plain", dir);
	ck_assert_int_eq(settings_file_write(dir, "plain", "x", 1), 0);
	snprintf(sub, sizeof(sub), "%s/plain/state", dir);
	ck_assert_int_eq(settings_file_write(sub, "a.controls", "x", 1), -ENOTDIR);
	ck_assert_int_eq(settings_file_write(file, "a.controls", "x", 1), -ENOTDIR);
	/* the target is a directory: rename fails, the temporary file goes */
	snprintf(sub, sizeof(sub), "%s/d.controls", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/d.controls/x", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_lt(settings_file_write(dir, "d.controls", "x", 1), 0);
	ck_assert_uint_eq(count_entries(dir), 2); /* plain, d.controls */
	/* a name too long for a path */
	char longname[PATH_MAX];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	ck_assert_int_eq(settings_file_write(dir, longname, "x", 1), -ENAMETOOLONG);
}
END_TEST

/* ---- over a node and the vcam's controls ---- */

static struct vcam_controls *vc;
static struct uvc_camera *camera;
static struct node n;
static char camlog[4096]; /* the camera's SET_CUR lines, one per line */
static unsigned set_curs;

static void on_camera_log(void *opaque, const char *line)
{
	(void)opaque;
	size_t len = strlen(camlog);
	snprintf(camlog + len, sizeof(camlog) - len, "%s\n", line);
}

static int ctrl_request(void *dev, const struct ctrls_request *r, uint8_t *data)
{
	(void)dev;
	const struct uvc_entity *e = uvc_camera_find_entity(camera, r->entity);
	ck_assert_ptr_nonnull(e);
	enum vcam_entity ve = e->kind == UVC_ENTITY_PROCESSING_UNIT ? VCAM_ENTITY_PROCESSING
								     : VCAM_ENTITY_CAMERA;
	set_curs += r->query == UVC_SET_CUR;
	int len = vcam_controls_request(vc, ve, r->query, r->selector, data, r->size);
	if (len < 0)
		return vcam_errno(vcam_controls_error(vc));
	return r->query == UVC_SET_CUR ? r->size : len;
}

static int probe(void *dev, const struct uvc_probe *want, struct uvc_probe *got)
{
	(void)dev;
	*got = *want;
	return 0;
}

static int stream_on(void *dev, const struct uvc_probe *p)
{
	(void)dev;
	(void)p;
	return 0;
}

static void nothing(void *dev)
{
	(void)dev;
}

static const struct node_ops ops = {
	.probe = probe,
	.stream_on = stream_on,
	.stream_off = nothing,
	.buffer_queued = nothing,
	.ctrl_request = ctrl_request,
};

static const struct vq_mem_ops mem = { .alloc = heap_mem_alloc, .release = heap_mem_release };

static const struct settings_camera cam = {
	.vid = 0x1d6b, .pid = 0x0104, .serial = "SN42", .port_path = "1-1", .product = "vcam"
};
#define FILE_NAME "1d6b-0104-serial-SN42.controls"

/* A freshly plugged camera: every control at its default. */
static void plug_camera(void)
{
	const struct vcam_profile *p = vcam_profile_find("default");
	vc = vcam_controls_new(p->bcd_uvc);
	ck_assert_ptr_nonnull(vc);
	vcam_controls_set_log(vc, on_camera_log, NULL);
	camera = fixture_camera_with(p, vc);
	struct node_identity ident = { .card = "vcam", .bus_info = "usb-vhci_hcd.0-1" };
	struct uvc_probe pr = { .format_index = 1, .frame_index = 1, .interval = 333333 };
	ck_assert_int_eq(node_init(&n, camera, &ident, &pr, &ops, NULL, &mem, NULL), 0);
	struct ctrls_request r;
	uint8_t info;
	while (ctrls_next_info(&n.ctrls, &r)) {
		int res = ctrl_request(NULL, &r, &info);
		ctrls_feed(&n.ctrls, &r, &info, res);
	}
	camlog[0] = 0;
	set_curs = 0;
}

static void unplug_camera(void)
{
	node_destroy(&n);
	uvc_camera_free(camera);
	vcam_controls_free(vc);
	camera = NULL;
	vc = NULL;
}

static void setup(void)
{
	setup_dir();
	log_set_level(LOG_LEVEL_DEBUG);
	plug_camera();
}

static void teardown(void)
{
	unplug_camera();
	teardown_dir();
}

static struct settings_store *open_store(bool no_restore, bool reset)
{
	struct settings_store_config cfg = { .dir = dir, .no_restore = no_restore, .reset = reset };
	struct settings_store *st = NULL;
	ck_assert_int_eq(settings_store_open(NULL, &n, &cfg, &cam, &st), 0);
	ck_assert_ptr_nonnull(st);
	return st;
}

/* What an app does: S_CTRL on an open file, then the device notes it. */
static int app_s_ctrl(struct settings_store *st, uint32_t id, int32_t value)
{
	struct node_file f;
	struct v4l2_control c = { .id = id, .value = value };
	node_open(&n, &f);
	int r = node_ioctl(&n, &f, VIDIOC_S_CTRL, &c, NULL, 0, true, NULL, NULL);
	if (r == 0)
		settings_store_note(st, VIDIOC_S_CTRL, &c, NULL);
	node_release(&n, &f);
	return r;
}

static int app_s_ext(struct settings_store *st, struct v4l2_ext_control *xs, unsigned count)
{
	struct node_file f;
	struct v4l2_ext_controls c = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = count, .controls = xs };
	node_open(&n, &f);
	int r = node_ioctl(&n, &f, VIDIOC_S_EXT_CTRLS, &c, xs, count * sizeof(*xs), true, NULL, NULL);
	if (r == 0)
		settings_store_note(st, VIDIOC_S_EXT_CTRLS, &c, xs);
	node_release(&n, &f);
	return r;
}

static int32_t app_g_ctrl(uint32_t id)
{
	struct node_file f;
	struct v4l2_control c = { .id = id };
	node_open(&n, &f);
	ck_assert_int_eq(node_ioctl(&n, &f, VIDIOC_G_CTRL, &c, NULL, 0, true, NULL, NULL), 0);
	node_release(&n, &f);
	return c.value;
}

static void replug(void)
{
	unplug_camera();
	plug_camera();
}

START_TEST(set_then_restore_on_replug)
{
	struct settings_store *st = open_store(false, false);
	ck_assert_uint_eq(set_curs, 0); /* nothing saved yet: nothing sent */
	ck_assert_ptr_null(read_text(dir, FILE_NAME));

	/* three controls set as apps do (no loop: saved at once), one of them
	 * clamped, and a motion that is not remembered */
	ck_assert_int_eq(app_s_ctrl(st, V4L2_CID_BRIGHTNESS, 40), 0);
	struct v4l2_ext_control xs[] = {
		{ .id = V4L2_CID_CONTRAST, .value = 170 }, /* clamped to 100 */
		{ .id = V4L2_CID_POWER_LINE_FREQUENCY, .value = 2 },
		{ .id = V4L2_CID_ZOOM_CONTINUOUS, .value = 0 },
	};
	ck_assert_int_eq(app_s_ext(st, xs, 3), 0);
	char want[128];
	snprintf(want, sizeof(want), "%s/%s", dir, FILE_NAME);
	ck_assert_str_eq(settings_store_path(st), want);
	const char *text = read_text(dir, FILE_NAME);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, "# uvcuse controls v1\n"
			       "# 1d6b:0104 serial SN42 'vcam'\n"
			       "0x00980900 brightness 40\n"
			       "0x00980901 contrast 100\n"
			       "0x00980918 power_line_frequency 2\n");
	settings_store_close(st);

	/* the camera is unplugged (back to its defaults) and opened again */
	replug();
	ck_assert_int_eq(vcam_controls_brightness(vc), 0);
	st = open_store(false, false);
	ck_assert_str_eq(camlog, "control brightness = 40\n"
				 "control contrast = 100\n"
				 "control power_line_frequency = 2\n");
	ck_assert_int_eq(vcam_controls_brightness(vc), 40);
	ck_assert_int_eq(app_g_ctrl(V4L2_CID_CONTRAST), 100);
	ck_assert_int_eq(app_g_ctrl(V4L2_CID_POWER_LINE_FREQUENCY), 2);
	/* restoring is not a change: the file is not written again */
	struct stat before, after;
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, FILE_NAME);
	ck_assert_int_eq(stat(path, &before), 0);
	settings_store_close(st);
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_eq(before.st_ino, after.st_ino);
}
END_TEST

static void write_file(const char *text)
{
	ck_assert_int_eq(settings_file_write(dir, FILE_NAME, text, strlen(text)), 0);
}

START_TEST(restore_order_auto_manual)
{
	/* a manual white balance saved before its switch was: the switch
	 * goes first, then the value; an unknown id and an out-of-range
	 * value are skipped and forgotten */
	write_file("# uvcuse controls v1\n"
		   "0x0098091a white_balance_temperature 5000\n"
		   "0x0098090c white_balance_automatic 0\n"
		   "0x00981234 not_a_control 1\n"
		   "0x00980910 gamma 9999\n"
		   "0x009a0901 auto_exposure 1\n"
		   "0x009a0902 exposure_time_absolute 300\n");
	/* the camera is in automatic white balance when opened */
	ck_assert_int_eq(app_s_ctrl(NULL, V4L2_CID_AUTO_WHITE_BALANCE, 1), 0);
	camlog[0] = 0;
	struct settings_store *st = open_store(false, false);
	ck_assert_str_eq(camlog, "control white_balance_temperature_auto = 0\n"
				 "control white_balance_temperature = 5000\n"
				 "control exposure_time_absolute = 300\n");
	ck_assert_int_eq(app_g_ctrl(V4L2_CID_WHITE_BALANCE_TEMPERATURE), 5000);
	/* the next change writes the file without the skipped lines */
	ck_assert_int_eq(app_s_ctrl(st, V4L2_CID_BRIGHTNESS, -5), 0);
	const char *text = read_text(dir, FILE_NAME);
	ck_assert_ptr_null(strstr(text, "gamma"));
	ck_assert_ptr_null(strstr(text, "0x00981234"));
	ck_assert_ptr_nonnull(strstr(text, "0x0098091a white_balance_temperature 5000\n"));
	ck_assert_ptr_nonnull(strstr(text, "0x00980900 brightness -5\n"));
	settings_store_close(st);
}
END_TEST

START_TEST(restore_manual_value_before_automatic)
{
	/* saved: automatic white balance, with a manual value kept for
	 * later; the camera is manual when opened: the value goes first */
	write_file("# uvcuse controls v1\n"
		   "0x0098090c white_balance_automatic 1\n"
		   "0x0098091a white_balance_temperature 3000\n");
	struct settings_store *st = open_store(false, false);
	ck_assert_str_eq(camlog, "control white_balance_temperature = 3000\n"
				 "control white_balance_temperature_auto = 1\n");
	settings_store_close(st);
	/* the camera is automatic when opened: the value is not sent */
	replug();
	ck_assert_int_eq(app_s_ctrl(NULL, V4L2_CID_AUTO_WHITE_BALANCE, 1), 0);
	camlog[0] = 0;
	set_curs = 0;
	st = open_store(false, false);
	ck_assert_uint_eq(set_curs, 1); /* the switch, set again */
	ck_assert_str_eq(camlog, "");   /* ...to what it was: no change to log */
	settings_store_close(st);
}
END_TEST

START_TEST(no_restore_still_saves)
{
	write_file("# uvcuse controls v1\n0x00980900 brightness 40\n");
	struct settings_store *st = open_store(true, false);
	ck_assert_uint_eq(set_curs, 0);
	ck_assert_int_eq(vcam_controls_brightness(vc), 0);
	ck_assert_int_eq(app_s_ctrl(st, V4L2_CID_CONTRAST, 30), 0);
	ck_assert_str_eq(read_text(dir, FILE_NAME), "# uvcuse controls v1\n"
						    "# 1d6b:0104 serial SN42 'vcam'\n"
						    "0x00980900 brightness 40\n"
						    "0x00980901 contrast 30\n");
	settings_store_close(st);
}
END_TEST

START_TEST(reset_sets_defaults_and_forgets)
{
	ck_assert_int_eq(app_s_ctrl(NULL, V4L2_CID_BRIGHTNESS, 40), 0);
	ck_assert_int_eq(app_s_ctrl(NULL, V4L2_CID_WHITE_BALANCE_TEMPERATURE, 3000), 0);
	ck_assert_int_eq(app_s_ctrl(NULL, V4L2_CID_AUTO_WHITE_BALANCE, 1), 0);
	write_file("# uvcuse controls v1\n0x00980900 brightness 40\n");
	camlog[0] = 0;
	struct settings_store *st = open_store(false, true);
	/* the switch is automatic now and its default manual: the switch
	 * goes first, the value after (refused while automatic) */
	ck_assert_ptr_nonnull(strstr(camlog, "control brightness = 0\n"));
	const char *sw = strstr(camlog, "control white_balance_temperature_auto = 0\n");
	const char *t = strstr(camlog, "control white_balance_temperature = 4600\n");
	ck_assert_ptr_nonnull(sw);
	ck_assert_ptr_nonnull(t);
	ck_assert(sw < t);
	ck_assert_int_eq(vcam_controls_brightness(vc), 0);
	ck_assert_ptr_null(read_text(dir, FILE_NAME));
	/* forgotten: the next open sends nothing */
	settings_store_close(st);
	replug();
	st = open_store(false, false);
	ck_assert_uint_eq(set_curs, 0);
	settings_store_close(st);
}
END_TEST

START_TEST(corrupt_file_ignored)
{
	write_file("# uvcuse controls v1\n0x00980900 brightness forty\n");
	struct settings_store *st = open_store(false, false);
	ck_assert_uint_eq(set_curs, 0);
	/* kept as it is until a change replaces it with a sound one */
	ck_assert_str_eq(read_text(dir, FILE_NAME), "# uvcuse controls v1\n0x00980900 brightness forty\n");
	ck_assert_int_eq(app_s_ctrl(st, V4L2_CID_GAIN, 10), 0);
	ck_assert_str_eq(read_text(dir, FILE_NAME), "# uvcuse controls v1\n"
						    "# 1d6b:0104 serial SN42 'vcam'\n"
						    "0x00980913 gain 10\n");
	settings_store_close(st);
	/* binary junk */
	write_file("\x7f" "ELF\x01\x02");
	set_curs = 0;
	st = open_store(false, false);
	ck_assert_uint_eq(set_curs, 0);
	settings_store_close(st);
}
END_TEST

START_TEST(unwritable_dir_not_fatal)
{
	char blocked[128];
	snprintf(blocked, sizeof(blocked), "%s/plain", dir);
	ck_assert_int_eq(settings_file_write(dir, "plain", "x", 1), 0);
	strcat(blocked, "/state");
	struct settings_store_config cfg = { .dir = blocked };
	struct settings_store *st = NULL;
	ck_assert_int_eq(settings_store_open(NULL, &n, &cfg, &cam, &st), 0);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(app_s_ctrl(st, V4L2_CID_BRIGHTNESS, 10), 0); /* warns once */
	ck_assert_int_eq(app_s_ctrl(st, V4L2_CID_BRIGHTNESS, 11), 0); /* quietly */
	ck_assert_int_eq(vcam_controls_brightness(vc), 11);
	settings_store_close(st);
	/* no state directory at all: off */
	cfg.dir = NULL;
	ck_assert_int_eq(settings_store_open(NULL, &n, &cfg, &cam, &st), 0);
	ck_assert_ptr_null(st);
	settings_store_note(NULL, VIDIOC_S_CTRL, &(struct v4l2_control){ 0 }, NULL);
	settings_store_close(NULL);
}
END_TEST

START_TEST(no_serial_uses_port)
{
	struct settings_camera portcam = { .vid = 0x1d6b, .pid = 0x0104, .serial = "", .port_path = "3-1.2" };
	struct settings_store_config cfg = { .dir = dir };
	struct settings_store *st = NULL;
	ck_assert_int_eq(settings_store_open(NULL, &n, &cfg, &portcam, &st), 0);
	ck_assert_int_eq(app_s_ctrl(st, V4L2_CID_BRIGHTNESS, 10), 0);
	ck_assert_ptr_nonnull(read_text(dir, "1d6b-0104-port-3-1.2.controls"));
	settings_store_close(st);
}
END_TEST

START_TEST(saves_coalesced_on_loop)
{
	struct loop *loop;
	struct settings_store_config cfg = { .dir = dir };
	struct settings_store *st = NULL;
	int status;

	ck_assert_int_eq(loop_new(&loop), 0);
	ck_assert_int_eq(settings_store_open(loop, &n, &cfg, &cam, &st), 0);
	/* a slider: many sets, one write a second later */
	for (int v = 1; v <= 20; v++)
		ck_assert_int_eq(app_s_ctrl(st, V4L2_CID_BRIGHTNESS, v), 0);
	ck_assert_int_eq(app_s_ctrl(st, V4L2_CID_CONTRAST, 20), 0);
	ck_assert_ptr_null(read_text(dir, FILE_NAME));
	ck_assert_int_eq(loop_run_once(loop, 3 * SETTINGS_SAVE_DELAY_MS, &status), 0);
	const char *text = read_text(dir, FILE_NAME);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "brightness 20\n"));
	ck_assert_ptr_nonnull(strstr(text, "contrast 20\n"));
	/* a change pending at exit is saved by close */
	ck_assert_int_eq(app_s_ctrl(st, V4L2_CID_BRIGHTNESS, 33), 0);
	ck_assert_ptr_nonnull(strstr(read_text(dir, FILE_NAME), "brightness 20\n"));
	settings_store_close(st);
	ck_assert_ptr_nonnull(strstr(read_text(dir, FILE_NAME), "brightness 33\n"));
	loop_free(loop);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("settings_store");
	TCase *tc = tcase_create("files");
	tcase_add_checked_fixture(tc, setup_dir, teardown_dir);
	tcase_add_test(tc, write_read_atomic);
	tcase_add_test(tc, read_errors);
	tcase_add_test(tc, write_errors_leave_nothing);
	suite_add_tcase(s, tc);
	tc = tcase_create("camera");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, set_then_restore_on_replug);
	tcase_add_test(tc, restore_order_auto_manual);
	tcase_add_test(tc, restore_manual_value_before_automatic);
	tcase_add_test(tc, no_restore_still_saves);
	tcase_add_test(tc, reset_sets_defaults_and_forgets);
	tcase_add_test(tc, corrupt_file_ignored);
	tcase_add_test(tc, unwritable_dir_not_fatal);
	tcase_add_test(tc, no_serial_uses_port);
	tcase_add_test(tc, saves_coalesced_on_loop);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

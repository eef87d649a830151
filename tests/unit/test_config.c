/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/service/config.c: files written to a temporary directory: a good file, an
 * unknown key (a warning naming file and line), bad values (refused with
 * the right line), conf.d order and override, and camera matching. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service/config.h"
#include "core/log.h"
#include "unit_run.h"

static char dir[64], confd[96];

static void setup_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/uvcuse-config-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(confd, sizeof(confd), "%s/conf.d", dir);
	ck_assert_int_eq(mkdir(confd, 0700), 0);
}

static void teardown_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *write_file(const char *name, const char *text)
{
	static char path[160];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

struct warnings {
	int count;
	char last[512];
};

static void collect(void *data, const char *msg)
{
	struct warnings *w = data;
	w->count++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

static const struct config_camera cam_abc = { 0x046d, 0x0825, "ABC", "1-2.3" };
static const struct config_camera cam_other = { 0x1d6b, 0x0102, "XYZ", "1-1" };

START_TEST(good_file)
{
	const char *path = write_file("uvcuse.conf",
				      "# defaults\n"
				      "[uvcuse]\n"
				      "log-level = warning\n"
				      "convert = off\n"
				      "linger = 5\n"
				      "convert-threads = 3\n"
				      "\n"
				      "[camera serial=ABC]\n"
				      "name = video20\n"
				      "exclusive = yes\n"
				      "camera-clock = on\n"
				      "errored-frames = drop\n"
				      "quirks = probe_minmax, fix_bandwidth\n"
				      "; a comment\n"
				      "[camera id=1d6b:0102]\n"
				      "ignore = on\n");
	struct config cfg;
	struct warnings w = { 0 };
	config_init(&cfg, collect, &w);
	char err[256] = "";
	ck_assert_int_eq(config_parse_file(&cfg, path, err, sizeof(err)), 0);
	ck_assert_int_eq(w.count, 0);
	ck_assert_uint_eq(cfg.n_sections, 2);

	struct config_values v;
	config_resolve(&cfg, &cam_abc, &v);
	ck_assert_str_eq(v.name, "video20");
	ck_assert_int_eq(v.log_level, LOG_LEVEL_WARNING);
	ck_assert_int_eq(v.convert, 0);
	ck_assert_int_eq(v.linger, 5);
	ck_assert_int_eq(v.convert_threads, 3);
	ck_assert_int_eq(v.exclusive, 1);
	ck_assert_int_eq(v.camera_clock, 1);
	ck_assert_int_eq(v.errored_frames, 0);
	ck_assert_int_eq(v.ignore, -1);
	ck_assert_int_eq(v.has_quirks, 1);
	ck_assert_uint_eq(v.quirks, 0x82); /* uvcvideo's bits: PROBE_MINMAX | FIX_BANDWIDTH */

	config_resolve(&cfg, &cam_other, &v);
	ck_assert_str_eq(v.name, "");
	ck_assert_int_eq(v.ignore, 1);
	ck_assert_int_eq(v.exclusive, -1);
	ck_assert_int_eq(v.camera_clock, -1);
	ck_assert_int_eq(v.errored_frames, -1);
	ck_assert_int_le(v.has_quirks, 0);
	config_free(&cfg);
}
END_TEST

START_TEST(unknown_key_warns)
{
	const char *path = write_file("uvcuse.conf",
				      "[uvcuse]\n"
				      "log-level = info\n"
				      "\n"
				      "colour = blue\n"
				      "[elsewhere]\n"
				      "x = 1\n");
	struct config cfg;
	struct warnings w = { 0 };
	config_init(&cfg, collect, &w);
	char err[256] = "";
	ck_assert_int_eq(config_parse_file(&cfg, path, err, sizeof(err)), 0);
	ck_assert_int_eq(w.count, 2);
	ck_assert_ptr_nonnull(strstr(w.last, "uvcuse.conf:6: unknown section [elsewhere]"));
	config_free(&cfg);

	/* the first warning, alone */
	path = write_file("uvcuse.conf", "[uvcuse]\n\n\ncolour = blue\n");
	w.count = 0;
	config_init(&cfg, collect, &w);
	ck_assert_int_eq(config_parse_file(&cfg, path, err, sizeof(err)), 0);
	ck_assert_int_eq(w.count, 1);
	char want[200];
	snprintf(want, sizeof(want), "%s:4: unknown key 'colour': ignored", path);
	ck_assert_str_eq(w.last, want);
	config_free(&cfg);
}
END_TEST

static void expect_refused(const char *text, int line, const char *reason)
{
	const char *path = write_file("bad.conf", text);
	struct config cfg;
	config_init(&cfg, NULL, NULL);
	char err[256] = "";
	ck_assert_int_eq(config_parse_file(&cfg, path, err, sizeof(err)), -EINVAL);
	char want[256];
	snprintf(want, sizeof(want), "%s:%d: %s", path, line, reason);
	ck_assert_msg(!strncmp(err, want, strlen(want)), "got '%s', want '%s'", err, want);
	config_free(&cfg);
}

/* The limits (issue 29, finding 2) and the replug rule (finding 10): a
 * camera section over the defaults; unset ones stay -1. */
START_TEST(limits_and_replug)
{
	const char *path = write_file("uvcuse.conf",
				      "[uvcuse]\n"
				      "max-opens-per-process = 8\n"
				      "max-buffer-memory-per-user = 256\n"
				      "replug = same-port\n"
				      "[camera serial=ABC]\n"
				      "max-opens-per-process = 4\n"
				      "max-opens-per-user = 40\n"
				      "max-channels-per-file = 2\n"
				      "max-connections-per-user = 6\n"
				      "connection-timeout = 500\n"
				      "replug = any-port\n");
	struct config cfg;
	struct warnings w = { 0 };
	config_init(&cfg, collect, &w);
	char err[256] = "";
	ck_assert_msg(config_parse_file(&cfg, path, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(w.count, 0);
	struct config_values v;
	config_resolve(&cfg, &cam_abc, &v);
	ck_assert_int_eq(v.max_opens_per_process, 4);
	ck_assert_int_eq(v.max_opens_per_user, 40);
	ck_assert_int_eq(v.max_channels_per_file, 2);
	ck_assert_int_eq(v.max_connections_per_user, 6);
	ck_assert_int_eq(v.connection_timeout_ms, 500);
	ck_assert_int_eq(v.max_buffer_mib_per_user, 256);
	ck_assert_int_eq(v.replug, 0);
	config_resolve(&cfg, &cam_other, &v);
	ck_assert_int_eq(v.max_opens_per_process, 8);
	ck_assert_int_eq(v.max_opens_per_user, -1);
	ck_assert_int_eq(v.replug, 1);
	config_free(&cfg);
}
END_TEST

START_TEST(bad_values_name_their_line)
{
	expect_refused("[uvcuse]\nconvert = maybe\n", 2, "convert wants yes or no, not 'maybe'");
	expect_refused("[uvcuse]\n# c\n\nlog-level = loud\n", 4, "log-level wants");
	expect_refused("[camera serial=A]\nlinger = -1\n", 2, "linger wants seconds");
	expect_refused("[uvcuse]\nconvert-threads = 0\n", 2, "convert-threads wants 1 to 64");
	expect_refused("[uvcuse]\nquirks = probe_minmax,no_such\n", 2, "quirks wants quirk names");
	expect_refused("[uvcuse]\nconvert-threads = 65\n", 2, "convert-threads wants 1 to 64");
	expect_refused("[camera serial=A]\nlinger = 10s\n", 2, "linger wants seconds");
	expect_refused("[camera serial=A]\nname = camera\n", 2, "name wants videoN");
	expect_refused("[uvcuse]\nname = video3\n", 2, "name belongs in a [camera ...] section");
	expect_refused("[uvcuse]\nmax-opens-per-process = 0\n", 2,
		       "max-opens-per-process wants a whole number from 1 to 4096");
	expect_refused("[uvcuse]\nmax-channels-per-file = 9\n", 2,
		       "max-channels-per-file wants a whole number from 1 to 8");
	expect_refused("[uvcuse]\nconnection-timeout = 2s\n", 2, "connection-timeout wants");
	expect_refused("[uvcuse]\nreplug = anywhere\n", 2, "replug wants any-port or same-port");
	expect_refused("[uvcuse]\nerrored-frames = keep\n", 2, "errored-frames wants deliver or drop");
	expect_refused("[camera vendor=1]\nignore = yes\n", 2, "section [camera vendor=1]");
	expect_refused("[camera id=12345:1]\nignore = yes\n", 2, "section [camera id=12345:1]");
	expect_refused("[camera]\nignore = yes\n", 2, "section [camera] needs");
	expect_refused("ignore = yes\n", 1, "keys before any section");
	expect_refused("[uvcuse]\nlog-level = info\nthis is not ini\n", 3, "not a section header");
}
END_TEST

START_TEST(confd_order_and_override)
{
	const char *main_file = write_file("uvcuse.conf", "[uvcuse]\nlog-level = error\nlinger = 1\n");
	write_file("conf.d/20-b.conf", "[uvcuse]\nlinger = 20\n[camera port=1-2.3]\nname = video30\n");
	write_file("conf.d/10-a.conf", "[uvcuse]\nlinger = 10\nlog-level = debug\n"
				       "[camera serial=ABC]\nname = video11\n");
	write_file("conf.d/30-c.conf.disabled", "[uvcuse]\nlinger = 99\n");
	struct config cfg;
	config_init(&cfg, NULL, NULL);
	char err[256] = "";
	ck_assert_int_eq(config_load(&cfg, main_file, 0, confd, err, sizeof(err)), 0);
	struct config_values v;
	config_resolve(&cfg, &cam_abc, &v);
	ck_assert_int_eq(v.linger, 20);            /* 20-b after 10-a, .disabled skipped */
	ck_assert_int_eq(v.log_level, LOG_LEVEL_DEBUG); /* 10-a over the main file */
	ck_assert_str_eq(v.name, "video30");       /* 20-b's section comes later */
	config_resolve(&cfg, &cam_other, &v);
	ck_assert_str_eq(v.name, "");
	config_free(&cfg);

	/* a bad value in conf.d stops the load and names that file */
	write_file("conf.d/15-bad.conf", "[uvcuse]\n\nexclusive = sometimes\n");
	config_init(&cfg, NULL, NULL);
	ck_assert_int_eq(config_load(&cfg, main_file, 0, confd, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "conf.d/15-bad.conf:3: exclusive wants yes or no"));
	config_free(&cfg);
}
END_TEST

START_TEST(missing_files)
{
	char missing[128], err[256];
	snprintf(missing, sizeof(missing), "%s/none.conf", dir);
	struct config cfg;
	config_init(&cfg, NULL, NULL);
	ck_assert_int_eq(config_load(&cfg, missing, 1, "/nonexistent-dir", err, sizeof(err)), 0);
	ck_assert_int_eq(config_load(&cfg, missing, 0, confd, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "none.conf"));
	config_free(&cfg);
}
END_TEST

START_TEST(camera_matching)
{
	const char *path = write_file("uvcuse.conf",
				      "[camera id=046D:0825 serial=ABC]\nlinger = 1\n"
				      "[camera id=046d:0825 serial=OTHER]\nlinger = 2\n"
				      "[camera port=1-2.3]\nconvert = no\n"
				      "[camera port=1-2]\nconvert = yes\n");
	struct config cfg;
	config_init(&cfg, NULL, NULL);
	char err[256] = "";
	ck_assert_int_eq(config_parse_file(&cfg, path, err, sizeof(err)), 0);
	struct config_values v;
	config_resolve(&cfg, &cam_abc, &v);
	ck_assert_int_eq(v.linger, 1);  /* every token must match; hex in any case */
	ck_assert_int_eq(v.convert, 0); /* port is compared whole: 1-2 is not 1-2.3 */
	const struct config_camera no_serial = { 0x046d, 0x0825, "", "1-2" };
	config_resolve(&cfg, &no_serial, &v);
	ck_assert_int_eq(v.linger, -1);
	ck_assert_int_eq(v.convert, 1);
	config_free(&cfg);
}
END_TEST

/* docs/uvcuse.conf.example parses without a warning */
START_TEST(shipped_example)
{
	const char *path = getenv("UVCUSE_CONF_EXAMPLE");
	ck_assert_ptr_nonnull(path);
	struct config cfg;
	struct warnings w = { 0 };
	config_init(&cfg, collect, &w);
	char err[256] = "";
	ck_assert_msg(config_parse_file(&cfg, path, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(w.count == 0, "%s", w.last);
	struct config_values v;
	config_resolve(&cfg, &cam_abc, &v);
	ck_assert_int_eq(v.convert, 1); /* the example says the default: on */
	ck_assert_int_eq(v.convert_threads, -1);
	ck_assert_int_eq(v.linger, 30); /* the default, as --linger's */
	ck_assert_int_eq(v.camera_clock, 1);   /* the defaults: on, */
	ck_assert_int_eq(v.errored_frames, 1); /* deliver */
	config_free(&cfg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");
	tcase_add_checked_fixture(tc, setup_dir, teardown_dir);
	tcase_add_test(tc, good_file);
	tcase_add_test(tc, limits_and_replug);
	tcase_add_test(tc, unknown_key_warns);
	tcase_add_test(tc, bad_values_name_their_line);
	tcase_add_test(tc, confd_order_and_override);
	tcase_add_test(tc, missing_files);
	tcase_add_test(tc, camera_matching);
	tcase_add_test(tc, shipped_example);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

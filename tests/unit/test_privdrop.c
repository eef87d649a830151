/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/service/privdrop.c: as root, a forked child prepares a state directory for
 * nobody, drops to nobody and checks what the daemon relies on: no
 * capabilities (capget and /proc/self/status), no way back to root, the
 * directory writable. Not root: only the lookups and the check. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "service/privdrop.h"
#include "unit_run.h"

START_TEST(lookup)
{
	struct privdrop_user u;
	char err[160];
	ck_assert_int_eq(privdrop_lookup("root", &u, err, sizeof(err)), 0);
	ck_assert_uint_eq(u.uid, 0);
	ck_assert_int_eq(privdrop_lookup("no-such-user-uvcuse", &u, err, sizeof(err)), -ENOENT);
	ck_assert_str_eq(err, "no user 'no-such-user-uvcuse'");
}
END_TEST

START_TEST(root_keeps_caps_is_refused)
{
	if (geteuid() != 0)
		return;
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct privdrop_user u;
		char err[160];
		if (privdrop_lookup("root", &u, err, sizeof(err)) < 0)
			_exit(10);
		_exit(privdrop_apply(&u, err, sizeof(err)) == -EPERM ? 0 : 11);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

static int cap_line_zero(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	char line[256];
	int zero = 0;
	size_t n = strlen(field);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n))
			zero = !strcmp(line + n, ":\t0000000000000000\n");
	fclose(f);
	return zero;
}

START_TEST(drop_to_nobody)
{
	if (geteuid() != 0)
		return; /* only root can drop; the VM test covers the daemon */
	char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/uvcuse-privdrop-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	chmod(dir, 0755);
	char state[96];
	snprintf(state, sizeof(state), "%s/state/uvcuse", dir);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct privdrop_user u;
		char err[160];
		if (privdrop_lookup("nobody", &u, err, sizeof(err)) < 0)
			_exit(10);
		if (privdrop_prepare_dir(&u, state) < 0)
			_exit(11);
		/* an existing root-owned one (StateDirectory=) is given over too */
		char root_owned[128];
		snprintf(root_owned, sizeof(root_owned), "%s/root-owned", dir);
		if (mkdir(root_owned, 0755) < 0 || privdrop_prepare_dir(&u, root_owned) < 0)
			_exit(17);
		struct stat rs;
		if (stat(root_owned, &rs) < 0 || rs.st_uid != u.uid)
			_exit(18);
		if (privdrop_apply(&u, err, sizeof(err)) < 0)
			_exit(12);
		if (getuid() != u.uid || geteuid() != u.uid || getgid() != u.gid)
			_exit(13);
		if (privdrop_check_no_caps() != 0 || !cap_line_zero("CapEff") || !cap_line_zero("CapPrm"))
			_exit(14);
		if (setuid(0) == 0)
			_exit(15);
		char file[128];
		snprintf(file, sizeof(file), "%s/written", state);
		FILE *f = fopen(file, "w");
		if (!f)
			_exit(16);
		fclose(f);
		_exit(0);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("privdrop");
	TCase *tc = tcase_create("privdrop");
	tcase_add_test(tc, lookup);
	tcase_add_test(tc, root_keeps_caps_is_refused);
	tcase_add_test(tc, drop_to_nobody);
	suite_add_tcase(s, tc);
	return unit_run(s);
}

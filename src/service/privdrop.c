/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --user NAME (see privdrop.h). */
#include "service/privdrop.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int privdrop_lookup(const char *name, struct privdrop_user *out, char *err, size_t errlen)
{
	if (strlen(name) >= sizeof(out->name)) {
		snprintf(err, errlen, "user name '%s' is too long", name);
		return -EINVAL;
	}
	errno = 0;
	struct passwd *pw = getpwnam(name);
	if (!pw) {
		int e = errno ? errno : ENOENT;
		snprintf(err, errlen, "no user '%s'%s%s", name, errno ? ": " : "",
			 errno ? strerror(errno) : "");
		return -e;
	}
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->uid = pw->pw_uid;
	out->gid = pw->pw_gid;
	return 0;
}

int privdrop_prepare_dir(const struct privdrop_user *user, const char *dir)
{
	struct stat st;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		/* root's: systemd's StateDirectory= of a unit without User=
		 * (the daemon must start as root); the directory is ours */
		if (st.st_uid == 0 && user->uid != 0 && chown(dir, user->uid, user->gid) < 0)
			return -errno;
		return 0;
	}
	if (errno != ENOENT)
		return -errno;
	/* ours to create: the parents as root (0755), the last one for user */
	char path[4096];
	snprintf(path, sizeof(path), "%s", dir);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (chown(path, user->uid, user->gid) < 0)
		return -errno;
	return 0;
}

int privdrop_check_no_caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	for (unsigned i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective || data[i].permitted)
			return -EPERM;
	return 0;
}

int privdrop_apply(const struct privdrop_user *user, char *err, size_t errlen)
{
	const char *step = NULL;
	if (getuid() == user->uid && geteuid() == user->uid && user->uid != 0) {
		/* started as that user already: nothing to give up */
	} else if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0) {
		step = "prctl(PR_SET_KEEPCAPS, 0)";
	} else if (initgroups(user->name, user->gid) < 0) {
		step = "initgroups";
	} else if (setresgid(user->gid, user->gid, user->gid) < 0) {
		step = "setresgid";
	} else if (setresuid(user->uid, user->uid, user->uid) < 0) {
		step = "setresuid";
	}
	if (step) {
		int e = errno;
		snprintf(err, errlen, "cannot become %s: %s: %s", user->name, step, strerror(e));
		return -e;
	}
	/* no setuid binary or file capability can give anything back */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		int e = errno;
		snprintf(err, errlen, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(e));
		return -e;
	}
	int ret = privdrop_check_no_caps();
	if (ret == 0 && user->uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		ret = -EPERM;
	if (ret < 0) {
		snprintf(err, errlen, "still privileged after becoming %s: %s", user->name,
			 ret == -EPERM ? "capabilities or root left" : strerror(-ret));
		return ret;
	}
	return 0;
}

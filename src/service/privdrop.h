/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Dropping root (--user NAME): once /dev/cuse, the USB device and every
 * other privileged fd are open, become NAME with its groups and no
 * capabilities left. */
#ifndef UVCUSE_PRIVDROP_H
#define UVCUSE_PRIVDROP_H

#include <stddef.h>
#include <sys/types.h>

struct privdrop_user {
	char name[64];
	uid_t uid;
	gid_t gid;
};

/* Looks NAME up (at start, while NSS still has all its files).
 * -ENOENT when there is no such user; err says why. */
int privdrop_lookup(const char *name, struct privdrop_user *out, char *err, size_t errlen);

/* Makes sure dir exists and that user can write it: a directory we create
 * and one root owns (systemd's StateDirectory= of a unit without User=)
 * are given to user; the files in it are not touched. Returns 0 or
 * -errno. Call as root, before the drop. */
int privdrop_prepare_dir(const struct privdrop_user *user, const char *dir);

/* initgroups, setgid, setuid (keep-caps off, no-new-privs on), then checks
 * that no capability is left and that root cannot be taken back.
 * Already that user (not root): only the check. Returns 0 or -errno. */
int privdrop_apply(const struct privdrop_user *user, char *err, size_t errlen);

/* 0 when the calling thread's effective and permitted sets are empty,
 * -EPERM when not, -errno when they cannot be read. */
int privdrop_check_no_caps(void);

#endif

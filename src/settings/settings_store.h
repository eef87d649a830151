/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Remembered control settings at run time: one camera's file under the
 * state directory, its values sent back to the camera when the daemon
 * opens it, and the values apps set saved again (atomically, at most once
 * a second). Runs on the daemon's loop; the text and the order come from
 * settings.[ch].
 *
 * Values go to the camera through the node, exactly as an app's
 * VIDIOC_S_EXT_CTRLS (clamping, access checks, uvcvideo's commit), one
 * control per request in settings_plan()'s order, before the node is
 * served: no app is open, so no control event is sent. Nothing here is
 * fatal: a missing, unreadable or corrupt file, or a directory that cannot
 * be written, is logged and the camera runs with its own values. */
#ifndef UVCUSE_SETTINGS_STORE_H
#define UVCUSE_SETTINGS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct loop;
struct node;
struct settings_store;

/* What the daemon was told (main.c). */
struct settings_store_config {
	const char *dir;  /* the state directory (settings_state_dir()); NULL: off */
	bool no_restore;  /* --no-restore-controls: the saved values are not sent;
			   * what apps set is still saved (merged into the file) */
	bool reset;       /* --reset-controls: every resettable control to the
			   * camera's default, the file deleted */
};

/* Who the camera is: its file name comes from these. */
struct settings_camera {
	uint16_t vid, pid;
	const char *serial;    /* "" or NULL: none */
	const char *port_path; /* "1-2.3" */
	const char *product;   /* for the file's comment line; may be NULL */
};

/* How long after a change the file is written (changes in between are
 * written together). */
#define SETTINGS_SAVE_DELAY_MS 1000

/* Reads the camera's file and, per cfg, sends the saved values to the camera
 * or resets it, through node n (whose controls are set up, GET_INFO read).
 * loop: where the delayed saves run (NULL: each change is saved at once).
 * Returns 0, or -ENOMEM (*out NULL; the camera is served without remembered
 * settings). With cfg->dir NULL, *out is NULL and 0 is returned. */
int settings_store_open(struct loop *loop, struct node *n, const struct settings_store_config *cfg,
			const struct settings_camera *cam, struct settings_store **out);
/* node_ioctl() answered 0 to cmd on arg (extra: the controls array of
 * VIDIOC_S_EXT_CTRLS): the values of a VIDIOC_S_CTRL or S_EXT_CTRLS that
 * are remembered (settings_savable) are noted, and saved within
 * SETTINGS_SAVE_DELAY_MS when they changed. Other commands: nothing. NULL
 * st: nothing. */
void settings_store_note(struct settings_store *st, unsigned int cmd, const void *arg,
			 const void *extra);
/* Sends the remembered values to the camera again (a camera that was
 * unplugged and came back), through the node, which must answer
 * synchronously meanwhile (n->async false). NULL st: nothing. */
void settings_store_restore(struct settings_store *st);
/* Writes the file now if a change waits. */
void settings_store_flush(struct settings_store *st);
/* Flushes and frees. NULL is fine. */
void settings_store_close(struct settings_store *st);
/* The file's path (for logs and tests). */
const char *settings_store_path(const struct settings_store *st);

/* ---- the files, for the unit suite ---- */

/* Writes text as DIR/NAME atomically: a temporary file in DIR, written,
 * fsync'ed, renamed over NAME, then DIR fsync'ed; DIR and its parents are
 * created (0755) when missing. 0 or -errno; on error NAME is untouched and
 * no temporary file is left. */
int settings_file_write(const char *dir, const char *name, const char *text, size_t len);
/* Reads DIR/NAME (a regular file of at most cap bytes, ours) into buf. 0,
 * -ENOENT, -EFBIG (larger than cap), -EINVAL (not a regular file), -ELOOP
 * (a symbolic link: not followed), -EPERM (another user's), or -errno. */
int settings_file_read(const char *dir, const char *name, char *buf, size_t cap, size_t *len);
/* Deletes DIR/NAME (0 also when it is not there) and fsyncs DIR. */
int settings_file_remove(const char *dir, const char *name);

#endif

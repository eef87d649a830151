/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Remembered control settings, the pure part: which camera file holds them,
 * the file's text, which controls are worth remembering, and the order in
 * which saved values go back to a camera. No I/O (settings_store.[ch] reads
 * and writes the files and drives the node).
 *
 * The file, one per camera (name: settings_file_name()):
 *
 *   # uvcuse controls v1
 *   # 046d:0825 serial 1234ABCD
 *   0x00980900 brightness 40
 *   0x009a0901 auto_exposure 1
 *
 * The first line is the format's header; then lines "ID NAME VALUE": the
 * V4L2 control id (hex, the key), a name for people (ignored on load) and the
 * value (decimal, a menu index for menu controls). Blank lines and lines
 * starting with '#' are comments. Anything else makes the file corrupt. */
#ifndef UVCUSE_SETTINGS_H
#define UVCUSE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "v4l2/controls.h"

#define SETTINGS_HEADER "# uvcuse controls v1"
/* More than a camera's controls (CTRLS_MAX_MAPS); a file with more lines
 * is not ours. */
#define SETTINGS_MAX 64
/* A file larger than this is not ours either. */
#define SETTINGS_MAX_FILE (64 * 1024)
/* Longest file name settings_file_name() makes (NAME_MAX is 255). */
#define SETTINGS_NAME_MAX 200

struct settings_entry {
	uint32_t id;
	int32_t value;
};

/* What is remembered of one camera: values by control id, at most one
 * entry per id, in the order they were first set. */
struct settings {
	unsigned n;
	struct settings_entry e[SETTINGS_MAX];
};

/* Sets id to value: 1 when that changed what is remembered, 0 when it was
 * already so, -ENOSPC when full. */
int settings_put(struct settings *s, uint32_t id, int32_t value);
/* The remembered value of id: true and *value, or false. */
bool settings_get(const struct settings *s, uint32_t id, int32_t *value);
/* Forgets id (nothing when unknown). */
void settings_drop(struct settings *s, uint32_t id);

/* The file name of a camera's settings, safe in any directory:
 * "VVVV-PPPP-serial-S.controls", or "VVVV-PPPP-port-P.controls" when the
 * camera has no serial (port path "1-2.3"). Bytes other than ASCII letters,
 * digits, '-', '_' and '.' are written %XX, so distinct serials give distinct
 * names; a name that would exceed SETTINGS_NAME_MAX is cut and ends with a
 * hash of the whole serial. Returns 0, or -EINVAL (no serial and no port
 * path), -ENOSPC (cap too small; SETTINGS_NAME_MAX + 1 always fits). */
int settings_file_name(uint16_t vid, uint16_t pid, const char *serial, const char *port_path,
		       char *out, size_t cap);

/* The name v4l2-ctl shows for a control id ("brightness",
 * "white_balance_automatic"), from uvcvideo's control names. */
void settings_ctrl_name(uint32_t id, char *out, size_t cap);

/* The file's text: the header, the comment line ("# " + comment, when not
 * NULL), the entries sorted by id. Returns the length (text NUL-terminated),
 * or -ENOSPC. */
int settings_format(const struct settings *s, const char *comment, char *out, size_t cap);

/* Reads a file's text (len bytes, not necessarily NUL-terminated) into s.
 * 0, or -EINVAL for a corrupt file (s is then empty and err says what and
 * on which line). A later line for the same id wins. */
int settings_parse(const char *text, size_t len, struct settings *s, char *err, size_t errlen);

/* Whether the V4L2 control id of the camera is one whose value is
 * remembered: the camera reads and writes it (GET_INFO) and uvcvideo
 * restores it after a suspend (UVC_CTRL_FLAG_RESTORE: not the relative
 * motions, not the read-only status). */
bool settings_savable(const struct ctrls *c, uint32_t id);
/* Savable and with a default the camera tells (GET_DEF): what
 * --reset-controls sets. */
bool settings_resettable(const struct ctrls *c, uint32_t id);

/* When a value goes to the camera. A value for a control that an automatic
 * mode drives (its master) is refused while the master is automatic, and
 * cameras ignore it then; so:
 *   BEFORE: slaves whose master is manual now but is to become automatic,
 *           set while they still may be (the camera keeps them for manual);
 *   MASTERS: the automatic modes;
 *   AFTER:  everything else, slaves after their master became manual;
 *   SKIP:   slaves whose master is and stays automatic (and ids the camera
 *           does not have): their value is kept, not sent. */
enum settings_phase { SETTINGS_BEFORE, SETTINGS_MASTERS, SETTINGS_AFTER, SETTINGS_SKIP };

struct settings_step {
	uint32_t id;
	int32_t value;
	enum settings_phase phase;
	uint32_t master_id; /* SKIP of a slave: the automatic master */
};

/* The order in which to set targets on the camera: phase by phase, in
 * uvcvideo's control order within a phase, SKIP last; one step per target.
 * masters_now holds the masters' current values (a master missing there
 * counts as manual: uvcvideo ignores a master it cannot read). Returns the
 * number of steps (n of targets), or -ENOSPC when cap is smaller. */
int settings_plan(const struct ctrls *c, const struct settings *targets,
		  const struct settings *masters_now, struct settings_step *steps, unsigned cap);

/* Whether control id is a master (an automatic mode other controls follow). */
bool settings_is_master(const struct ctrls *c, uint32_t id);

/* The state directory: opt (--state-dir) when given, else the first path of
 * env ($STATE_DIRECTORY, systemd's StateDirectory=, ':'-separated), else
 * /var/lib/uvcuse; a relative path is taken from cwd. 0 or -ENAMETOOLONG,
 * -EINVAL (an empty or relative path without cwd). */
int settings_state_dir(const char *opt, const char *env, const char *cwd, char *out, size_t cap);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line over the config files: the camera looked up without
 * claiming it (so that the config can leave it to uvcvideo), the config
 * resolved for it, each setting taken from the command line, else the
 * files, else its default; the state directory and the node's name. */
#include "service/resolve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "service/config.h"
#include "settings/settings.h"
#include "usb/usb.h"

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
	/* who it is, from sysfs: no camera bytes parsed before the drop */
	usb_enumerate_ids(usb, find_one, &f);
	usb_ctx_free(usb);
	if (f.found)
		*out = f.id;
	return f.found;
}

/* The config files resolved for the camera the command line names (or,
 * for --is-ignored, the one its identity names). -1 on a bad file. */
static int load_config(struct cmdline *cl, struct config_values *values,
		       struct usb_camera_id *cam_id, struct resolved *out)
{
	struct config conf;
	config_init(&conf, config_warning, NULL);
	char conf_err[512];
	if (config_load(&conf, cl->config_file ? cl->config_file : CONFIG_MAIN_FILE,
			!cl->config_file, cl->config_dir, conf_err, sizeof(conf_err)) < 0) {
		log_error("%s", conf_err);
		config_free(&conf);
		return -1;
	}
	const struct usb_match *m = &cl->cfg.match;
	if (find_camera(m, cam_id)) {
		struct config_camera who = { cam_id->vid, cam_id->pid, cam_id->serial,
					     cam_id->port_path };
		config_resolve(&conf, &who, values);
		/* open exactly the camera the config was resolved for */
		snprintf(out->pinned_port, sizeof(out->pinned_port), "%s", cam_id->port_path);
		cl->cfg.match.port_path = out->pinned_port;
	} else if (cl->is_ignored) {
		/* not plugged in (any more): what the identity says of it */
		struct config_camera who = { m->vid, m->pid, m->serial ? m->serial : "",
					     m->port_path ? m->port_path : "" };
		config_resolve(&conf, &who, values);
	} else {
		config_resolve(&conf, &(struct config_camera){ 0, 0, "", "" }, values);
	}
	config_free(&conf);
	return 0;
}

/* A value from the files, or 0 (the device's default) when unset. */
static unsigned or_default(int value)
{
	return value > 0 ? (unsigned)value : 0;
}

/* Each setting: the command line's, else the files', else the default. */
static void merge_settings(const struct cmdline *cl, const struct config_values *values,
			   struct resolved *out)
{
	struct device_config *cfg = &out->cfg;
	*cfg = cl->cfg;
	snprintf(out->name, sizeof(out->name), "%s", cl->name[0] ? cl->name : values->name);
	cfg->convert = cl->convert >= 0 ? cl->convert : values->convert >= 0 ? values->convert : true;
	if (cl->convert_threads > 0)
		cfg->convert_threads = (unsigned)cl->convert_threads;
	else if (values->convert_threads > 0)
		cfg->convert_threads = (unsigned)values->convert_threads;
	cfg->exclusive = cl->exclusive || values->exclusive > 0;
	out->metadata_node = cl->metadata_node >= 0 ? cl->metadata_node :
			     values->metadata_node >= 0 ? values->metadata_node : true;
	cfg->camera_clock = cl->camera_clock >= 0 ? cl->camera_clock :
			    values->camera_clock >= 0 ? values->camera_clock : true;
	cfg->drop_errored = !(cl->errored_frames >= 0 ? cl->errored_frames :
			      values->errored_frames >= 0 ? values->errored_frames : true);
	if (cl->has_quirks || values->has_quirks > 0) {
		cfg->has_quirks = true;
		cfg->quirks = cl->has_quirks ? cl->quirks : values->quirks;
	}
	cfg->linger = cl->linger >= 0 ? (unsigned)cl->linger :
		      values->linger >= 0 ? (unsigned)values->linger : DEFAULT_LINGER_S;
	cfg->replug = values->replug == 1 ? USB_REPLUG_SAME_PORT : USB_REPLUG_ANY_PORT;
	/* the files' only; unset (-1) becomes 0, the device's default */
	cfg->limits = (struct device_limits){
		.opens_per_process = or_default(values->max_opens_per_process),
		.opens_per_user = or_default(values->max_opens_per_user),
		.channels_per_file = or_default(values->max_channels_per_file),
		.channels_per_user = or_default(values->max_channels_per_user),
		.connections_per_user = or_default(values->max_connections_per_user),
		.connection_timeout_ms = or_default(values->connection_timeout_ms),
		.buffer_mib_per_user = or_default(values->max_buffer_mib_per_user),
	};
}

/* The state directory, absolute, made the daemon's user's when it drops
 * root. Returns -1 to go on, or the exit status. */
static int prepare_state(const struct cmdline *cl, struct resolved *out)
{
	char cwd[PATH_MAX];
	const char *env_state = getenv("STATE_DIRECTORY");
	if (settings_state_dir(cl->state_dir, env_state, getcwd(cwd, sizeof(cwd)),
			       out->state_dir, sizeof(out->state_dir)) < 0) {
		fprintf(stderr, "uvcuse: unusable state directory '%s'\n",
			cl->state_dir ? cl->state_dir : env_state ? env_state : "");
		return 2;
	}
	out->cfg.settings.dir = out->state_dir;
	if (!cl->user_name)
		return -1;
	char err[160];
	if (privdrop_lookup(cl->user_name, &out->user, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return 1;
	}
	out->drop_privileges = true;
	int e = privdrop_prepare_dir(&out->user, out->state_dir);
	if (e < 0) {
		log_error("state directory %s: %s", out->state_dir, strerror(-e));
		return 1;
	}
	return -1;
}

/* The lowest free videoN from video<from> up to video255 that is not skip,
 * in out (len bytes); false when none is. */
static bool lowest_free_video(unsigned from, const char *skip, char *out, size_t len)
{
	for (unsigned n = from; n < 256; n++) {
		char candidate[16];
		snprintf(candidate, sizeof(candidate), "video%u", n);
		if (strcmp(candidate, skip) && node_name_free(candidate)) {
			snprintf(out, len, "%s", candidate);
			return true;
		}
	}
	return false;
}

/* The node's name: the one asked for if free, else the lowest free videoN
 * from video10. */
static int choose_name(struct resolved *out)
{
	char *name = out->name;
	if (name[0] && !node_name_free(name)) {
		log_error("name %s is taken", name);
		return 1;
	}
	if (!name[0] && !lowest_free_video(10, "", name, sizeof(out->name))) {
		log_error("no free videoN name between video10 and video255");
		return 1;
	}
	out->cfg.name = name;
	return -1;
}

/* The metadata node's name: the lowest free videoM after the video node's
 * N (from video10 when the video node has another name), as uvcvideo
 * registers its metadata node right after the video node. */
static void choose_meta_name(struct resolved *out)
{
	unsigned n = 9;
	if (!out->metadata_node)
		return;
	if (sscanf(out->name, "video%u", &n) != 1 || n > 254)
		n = 9;
	if (lowest_free_video(n + 1, out->name, out->meta_name, sizeof(out->meta_name)))
		out->cfg.meta_name = out->meta_name;
	else
		log_warn("no free videoN name after %s: no metadata node", out->name);
}

int resolve_config(struct cmdline *cl, struct resolved *out)
{
	struct usb_camera_id cam_id = { 0 };
	struct config_values values;
	memset(out, 0, sizeof(*out));
	if (load_config(cl, &values, &cam_id, out) < 0)
		return 1;
	if (cl->is_ignored) /* for the udev rule: 0 = leave this camera to uvcvideo */
		return values.ignore == 1 ? 0 : 1;
	if (values.log_level >= 0 && !cl->log_level_set)
		log_set_level((enum log_level)values.log_level);
	if (values.ignore == 1) {
		if (cam_id.port_path[0])
			log_info("camera %04x:%04x at %s%s%s: the config says ignore: left to uvcvideo",
				 cam_id.vid, cam_id.pid, cam_id.port_path,
				 cam_id.serial[0] ? ", serial " : "", cam_id.serial);
		else
			log_info("the config says ignore (no camera found): nothing to do");
		return 0;
	}
	merge_settings(cl, &values, out);
	int status = prepare_state(cl, out);
	if (status >= 0)
		return status;
	status = choose_name(out);
	if (status < 0)
		choose_meta_name(out);
	return status;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A real camera impersonated from its descriptors (uvcuse-vcam --descriptors):
 * the configuration descriptor of ../shared/corpus/bin served as it is
 * (repaired where the kernel needs it, each repair logged), its device
 * descriptor and strings from the same camera's `lsusb -v` text, and what
 * the rest of the vcam works from: a profile made of its first streaming
 * interface, its interface and endpoint numbers, and which of its entities
 * the control model serves. Pure apart from reading the two files. */
#ifndef VCAM_IMPERSONATE_H
#define VCAM_IMPERSONATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "uvc/descriptors.h"

/* What an entity ID of the impersonated camera is to the vcam. */
enum vcam_unit_role {
	VCAM_ROLE_NONE,       /* no such entity: INVALID_UNIT */
	VCAM_ROLE_CAMERA,     /* a camera terminal: the control model's CT part */
	VCAM_ROLE_PROCESSING, /* a processing unit: its PU part */
	VCAM_ROLE_EXTENSION,  /* an extension unit: xu_store.c */
	VCAM_ROLE_SELECTOR,   /* a selector unit: xu_store.c */
	VCAM_ROLE_NO_CONTROLS, /* output and other terminals, encoding units */
};

#define VCAM_MAX_SECONDARY 3

/* A streaming interface besides the first: probe and commit only. */
struct vcam_secondary_stream {
	uint8_t interface;
	struct vcam_profile profile;
};

struct vcam_impersonation {
	struct vcam_profile profile; /* the first streaming interface */
	unsigned n_secondary;
	struct vcam_secondary_stream secondary[VCAM_MAX_SECONDARY];
	char name[96];               /* the file's base name */
	uint8_t *config;             /* configuration descriptor as served */
	size_t config_len;
	uint8_t device[18];
	char *strings[256];          /* string descriptor index -> UTF-8 text */
	bool unreadable[256];        /* lsusb printed "(error)": STALLed */
	uint16_t vendor, product;
	uint8_t vc_interface, vs_interface;
	uint8_t status_ep, video_ep; /* endpoint addresses; status 0: none */
	struct uvc_camera *model;    /* the parsed first video function */
	enum vcam_unit_role roles[256];
	uint32_t ct_bits, pu_bits;   /* bmControls of the CTs and PUs (all of them) */
	uint8_t first_ct, first_pu;  /* entity IDs for status events (0: none) */
};

/* One line of what was invented or repaired ("no newline"). */
typedef void vcam_impersonate_log_fn(void *opaque, const char *line);

/* Reads config_path (a binary configuration descriptor, or `lsusb -v` text
 * rebuilt as bytes by lsusb_rebuild.c) and, when not NULL, lsusb_path (the
 * same camera's `lsusb -v` text) for the device descriptor and strings; a
 * text config_path is its own lsusb_path. Without text the IDs come from a file name that starts
 * "vvvv_pppp_" and the strings are invented. Returns 0, or a negative errno
 * with a reason in err: -EINVAL for descriptors uvcuse's parser refuses or
 * that have no streaming interface the vcam can serve. */
int vcam_impersonate_load(const char *config_path, const char *lsusb_path,
			  vcam_impersonate_log_fn *log, void *opaque,
			  struct vcam_impersonation **out, char *err, size_t err_cap);

/* The same from memory (for the unit tests): config bytes, lsusb text or NULL. */
int vcam_impersonate_build(const char *name, const uint8_t *config, size_t config_len,
			   const char *lsusb_text, vcam_impersonate_log_fn *log, void *opaque,
			   struct vcam_impersonation **out, char *err, size_t err_cap);

void vcam_impersonate_free(struct vcam_impersonation *imp);

/* Gives the camera this serial number (iSerialNumber), so that a test finds
 * it among others; the dump's own, if any, is replaced. 0 or -ENOMEM. */
int vcam_impersonate_set_serial(struct vcam_impersonation *imp, const char *serial);

/* Makes the status (interrupt) endpoint's wMaxPacketSize size, logged: a
 * repair for the referee's sake when the camera's own value is one the
 * kernel refuses to submit to (0x1000 on 0c45:62e0: 3 x 0 bytes). 0, or
 * -ENOENT when the camera has no status endpoint. */
int vcam_impersonate_set_status_packet(struct vcam_impersonation *imp, uint16_t size,
				       vcam_impersonate_log_fn *log, void *opaque);

/* Moves the class-specific descriptors of each streaming interface that
 * follow its endpoint (and SuperSpeed companion) in front of it, logged: a
 * repair for the referee's sake, since uvcvideo looks for them right after
 * the interface or the endpoint, not after a companion (054c:0b7f).
 * Returns how many interfaces were rearranged, or -ENOMEM. */
int vcam_impersonate_class_first(struct vcam_impersonation *imp, vcam_impersonate_log_fn *log,
				 void *opaque);

/* A string descriptor (index 0: the language list, US English), or -EINVAL
 * for an index the camera has no string for. */
long vcam_impersonate_string(const struct vcam_impersonation *imp, uint8_t index, uint8_t *out,
			     size_t cap);

#endif

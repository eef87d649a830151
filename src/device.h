/* One camera and the V4L2 node it serves: wires usb/ (the camera), v4l2/
 * (the node's semantics) and cuse/ (the character device) together, and
 * owns the requests that wait for frames. */
#ifndef UVCUSE_DEVICE_H
#define UVCUSE_DEVICE_H

#include "settings_store.h"
#include "usb/usb.h"

struct loop;
struct device;

struct device_config {
	struct usb_match match;
	const char *name;  /* "video10" */
	bool debug_cuse;
	/* List the converted formats (RGB24, BGR24, YU12, YV12) after the
	 * camera's: --convert. Off by default until frames are converted:
	 * today only the enumeration answers for them. */
	bool convert;
	struct settings_store_config settings; /* remembered controls */
};

/* Opens the camera, reads its start-up format and registers the node.
 * Returns 0, or -errno with a message already logged. */
int device_new(struct loop *loop, struct usb_ctx *usb, const struct device_config *cfg,
	       struct device **out);
/* Removes the node, stops the stream, gives the camera back. */
void device_free(struct device *dev);

#endif

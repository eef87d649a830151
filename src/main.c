/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse: serves one UVC camera as a V4L2 node through CUSE. The command
 * line (service/cmdline.c) names a command or a camera; the config files
 * are put under it (service/resolve.c), and the daemon serves the camera
 * (service/daemon.c, around device/). */
#include "service/camera_list.h"
#include "service/cmdline.h"
#include "service/daemon.h"
#include "service/resolve.h"
#include "service/status_client.h"

int main(int argc, char **argv)
{
	struct cmdline cl;
	int status = cmdline_parse(argc, argv, &cl);
	if (status >= 0)
		return status;
	if (cl.list)
		return camera_list_print(cl.json);
	if (cl.watch)
		return status_client_watch(cl.json);
	if (cl.show_status)
		return status_client_list(cl.json);
	if (cl.udev_node)
		return status_client_udev(cl.udev_node);
	struct resolved r;
	status = resolve_config(&cl, &r);
	if (status >= 0)
		return status;
	return daemon_run(&r, cl.foreground);
}

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Camera portal as a host app uses it (tests/e2e/pipewire.sh).

Usage: portal_camera.py NODE_NAME COUNT CAPS FILE
Checks IsCameraPresent, asks AccessCamera and waits for its Response,
then opens a PipeWire remote with OpenPipeWireRemote and captures COUNT
frames from NODE_NAME through that remote alone (pipewiresrc fd=N) into
FILE. Exit 0 when all of it worked."""
import os
import subprocess
import sys

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

BUS_NAME = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
CAMERA = "org.freedesktop.portal.Camera"


def fail(msg):
    print(f"portal: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def main():
    node, count, caps, out = sys.argv[1:5]
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    portal = bus.get_object(BUS_NAME, PATH)
    props = dbus.Interface(portal, "org.freedesktop.DBus.Properties")
    present = bool(props.Get(CAMERA, "IsCameraPresent"))
    print(f"IsCameraPresent: {present}", flush=True)
    if not present:
        fail("no camera present")

    camera = dbus.Interface(portal, CAMERA)
    token = f"uvcuse{os.getpid()}"
    sender = bus.get_unique_name()[1:].replace(".", "_")
    request_path = f"{PATH}/request/{sender}/{token}"
    loop = GLib.MainLoop()
    answer = {}

    def on_response(response, results):
        answer["response"] = int(response)
        loop.quit()

    bus.add_signal_receiver(on_response, "Response", "org.freedesktop.portal.Request",
                            BUS_NAME, request_path)
    handle = camera.AccessCamera({"handle_token": dbus.String(token)})
    if handle != request_path:
        fail(f"request path {handle}, expected {request_path}")
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()
    print(f"AccessCamera response: {answer.get('response')}", flush=True)
    if answer.get("response") != 0:
        fail("camera access not granted")

    fd = camera.OpenPipeWireRemote(dbus.Dictionary({}, signature="sv")).take()
    print(f"OpenPipeWireRemote: fd {fd}", flush=True)
    os.set_inheritable(fd, True)
    cmd = ["gst-launch-1.0", "pipewiresrc", f"fd={fd}", f"target-object={node}",
           f"num-buffers={count}", "!", caps, "!", "filesink", f"location={out}"]
    done = subprocess.run(cmd, pass_fds=(fd,), timeout=120, capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-2000:], file=sys.stderr)
        fail(f"pipewiresrc through the portal's remote exited {done.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A headless access backend for xdg-desktop-portal (tests only).

Owns org.freedesktop.impl.portal.desktop.uvcusetest on the session bus and
answers org.freedesktop.impl.portal.Access.AccessDialog with "allowed"
(response 0), printing one line per question so the test can see that the
Camera portal asked. The portal finds it through uvcusetest.portal."""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.freedesktop.impl.portal.desktop.uvcusetest"
PATH = "/org/freedesktop/portal/desktop"
IFACE = "org.freedesktop.impl.portal.Access"


class Access(dbus.service.Object):
    @dbus.service.method(IFACE, in_signature="osssssa{sv}", out_signature="ua{sv}")
    def AccessDialog(self, handle, app_id, parent, title, subtitle, body, options):
        print(f"access dialog: app '{app_id}', title '{title}': allowed", flush=True)
        return dbus.UInt32(0), dbus.Dictionary({}, signature="sv")


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    Access(bus, PATH)
    print(f"access backend {name.get_name()} ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    sys.exit(main())

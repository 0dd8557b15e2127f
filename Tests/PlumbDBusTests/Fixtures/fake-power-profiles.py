#!/usr/bin/python3
"""A stand-in for power-profiles-daemon on a test bus: serves ActiveProfile under the names the
real daemon uses, so PowerProfilesReader's tests talk D-Bus to a separate process.

Usage: fake-power-profiles.py ADDRESS NAMES PROFILE
  NAMES: "upower", "hadess" or "both" (which bus names, paths and interfaces to serve)
Prints "ready" once the names are owned, then reads commands from stdin, one per line:
  set PROFILE   ActiveProfile becomes PROFILE (PropertiesChanged is emitted)
  deny          Get answers org.freedesktop.DBus.Error.AccessDenied
  integer       Get answers an integer instead of a string
  hang          Get answers only after 1 s (a daemon that does not answer in time)
  autostart     prints "autostart yes" or "autostart no": whether the last Get asked the bus to
                start the service (no NO_AUTO_START flag), or "autostart none" before any Get
  quit          exits (the names go away)
"""
import sys
import time
import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

SERVICES = {
    "upower": ("org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles"),
    "hadess": ("net.hadess.PowerProfiles", "/net/hadess/PowerProfiles"),
}
state = {"profile": sys.argv[3], "mode": "ok", "autostart": "none"}


class Denied(dbus.DBusException):
    _dbus_error_name = "org.freedesktop.DBus.Error.AccessDenied"


class Profiles(dbus.service.Object):
    def __init__(self, bus, path, interface):
        super().__init__(bus, path)
        self.interface = interface

    @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="ss", out_signature="v",
                         message_keyword="message")
    def Get(self, interface, name, message):
        state["autostart"] = "yes" if message.get_auto_start() else "no"
        if interface != self.interface or name != "ActiveProfile":
            raise dbus.DBusException("no such property", name="org.freedesktop.DBus.Error.UnknownProperty")
        if state["mode"] == "deny":
            raise Denied("not allowed")
        if state["mode"] == "hang":
            time.sleep(1)
        if state["mode"] == "integer":
            return dbus.Int32(3, variant_level=1)
        return dbus.String(state["profile"], variant_level=1)

    @dbus.service.signal("org.freedesktop.DBus.Properties", signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(sys.argv[1])
    names = ["upower", "hadess"] if sys.argv[2] == "both" else [sys.argv[2]]
    objects, owned = [], []
    for key in names:
        name, path = SERVICES[key]
        owned.append(dbus.service.BusName(name, bus, do_not_queue=True))
        objects.append(Profiles(bus, path, name))
    loop = GLib.MainLoop()

    def command(source, condition):
        line = sys.stdin.readline()
        if not line or line.strip() == "quit":
            loop.quit()
            return False
        word, _, argument = line.strip().partition(" ")
        if word == "set":
            state["profile"], state["mode"] = argument, "ok"
            for o in objects:
                o.PropertiesChanged(o.interface, {"ActiveProfile": argument}, [])
        elif word in ("deny", "integer", "hang"):
            state["mode"] = word
        elif word == "autostart":
            print("autostart " + state["autostart"], flush=True)
            return True
        print("ok", flush=True)
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, command)
    print("ready", flush=True)
    loop.run()


main()

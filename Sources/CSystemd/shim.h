// sd-daemon(3) from libsystemd: sd_notify and sd_watchdog_enabled.
#include <systemd/sd-daemon.h>

// The Linux i2c-dev interface and libi2c's SMBus helpers (i2c-tools >= 4.0, libi2c-dev).
// Ioctl numbers and I2C_FUNC_* bits come from linux-libc-dev's <linux/i2c-dev.h>, <linux/i2c.h>.
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <i2c/smbus.h>

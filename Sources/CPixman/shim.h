// pixman (libpixman-1-dev), the rasteriser X and Wayland compositors use: `plumb bench render`
// runs the same bilinear rotation through it as the reference.
#include <pixman.h>

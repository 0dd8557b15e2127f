#ifndef PLUMB_IMAGEIO_H
#define PLUMB_IMAGEIO_H
// Image decoding and encoding for PlumbDisplay: JPEG through libjpeg-turbo, PNG through libpng's
// simplified API (png_image, libpng 1.6). Everything works on memory buffers; reading and writing
// files is the Swift side's job. Pixels are always 8-bit RGBA, rows packed (stride = 4 × width).

#include <stddef.h>
#include <stdint.h>

#define PLUMB_IMAGEIO_MESSAGE_LENGTH 200

/// The most pixels a decoded picture may have: 64 megapixels, 256 MiB as RGBA (an 8192 x 8192
/// picture, or a 61-megapixel photo). A file's header can claim 65535 x 65535 in a few bytes; the
/// decoders refuse such a picture before allocating rather than let the kernel's OOM killer end
/// the process on a board with 512 MiB.
#define PLUMB_IMAGEIO_MAX_PIXELS (64u * 1024u * 1024u)

/// What went wrong, in the library's words (libjpeg's message table, png_image.message).
typedef struct {
    char message[PLUMB_IMAGEIO_MESSAGE_LENGTH];
} plumb_imageio_error;

/// Decodes a JPEG (baseline or progressive; grayscale, YCbCr or RGB) into RGBA.
/// On success returns 0 and sets *pixels (free with plumb_imageio_free), *width, *height.
/// A warning about corrupt or missing data (a truncated file) is an error here, not a grey fill.
int plumb_jpeg_decode(const uint8_t *data, size_t size, uint8_t **pixels,
                      uint32_t *width, uint32_t *height, plumb_imageio_error *error);

/// Encodes RGBA pixels (alpha ignored) as a JPEG of the given quality (1...100).
int plumb_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int quality,
                      int progressive, uint8_t **out, size_t *out_size, plumb_imageio_error *error);

/// Decodes a PNG of any bit depth and colour type into 8-bit RGBA (16-bit samples are reduced).
int plumb_png_decode(const uint8_t *data, size_t size, uint8_t **pixels,
                     uint32_t *width, uint32_t *height, plumb_imageio_error *error);

/// Encodes RGBA pixels as an 8-bit RGBA PNG.
int plumb_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height,
                     uint8_t **out, size_t *out_size, plumb_imageio_error *error);

/// Frees a buffer returned by the functions above.
void plumb_imageio_free(void *buffer);

#endif

// PNG through libpng's simplified API (png_image, libpng 1.6.x): it converts every bit depth,
// palette and grey type to the requested format and reports errors in png_image.message
// without the caller needing setjmp.
#include "plumb_imageio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

int plumb_png_decode(const uint8_t *data, size_t size, uint8_t **pixels,
                     uint32_t *width, uint32_t *height, plumb_imageio_error *error) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    *pixels = NULL;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        snprintf(error->message, sizeof error->message, "%s", image.message);
        png_image_free(&image);
        return -1;
    }
    if ((uint64_t)image.width * image.height > PLUMB_IMAGEIO_MAX_PIXELS) {
        snprintf(error->message, sizeof error->message, "%ux%u pixels is past the %u-megapixel limit",
                 image.width, image.height, PLUMB_IMAGEIO_MAX_PIXELS >> 20);
        png_image_free(&image);
        return -1;
    }
    image.format = PNG_FORMAT_RGBA;
    size_t bytes = PNG_IMAGE_SIZE(image);
    uint8_t *out = malloc(bytes);
    if (!out) {
        snprintf(error->message, sizeof error->message, "out of memory for %ux%u pixels",
                 image.width, image.height);
        png_image_free(&image);
        return -1;
    }
    if (!png_image_finish_read(&image, NULL, out, 0, NULL)) {
        snprintf(error->message, sizeof error->message, "%s", image.message);
        free(out);
        png_image_free(&image);
        return -1;
    }
    *width = image.width;
    *height = image.height;
    *pixels = out;
    return 0;
}

int plumb_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height,
                     uint8_t **out, size_t *out_size, plumb_imageio_error *error) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_RGBA;
    png_alloc_size_t size = 0;
    *out = NULL;
    if (!png_image_write_to_memory(&image, NULL, &size, 0, rgba, 0, NULL)) {
        snprintf(error->message, sizeof error->message, "%s", image.message);
        return -1;
    }
    uint8_t *buffer = malloc(size);
    if (!buffer) {
        snprintf(error->message, sizeof error->message, "out of memory for a %zu-byte PNG", (size_t)size);
        return -1;
    }
    if (!png_image_write_to_memory(&image, buffer, &size, 0, rgba, 0, NULL)) {
        snprintf(error->message, sizeof error->message, "%s", image.message);
        free(buffer);
        return -1;
    }
    *out = buffer;
    *out_size = size;
    return 0;
}

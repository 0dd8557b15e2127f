// JPEG through libjpeg-turbo. libjpeg reports fatal errors through error_exit, which must not
// return: the only way out is longjmp back to the caller (libjpeg's example.c, "struct my_error_mgr").
#include "plumb_imageio.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    plumb_imageio_error *error;
} plumb_jpeg_error_mgr;

static void plumb_jpeg_error_exit(j_common_ptr cinfo) {
    plumb_jpeg_error_mgr *mgr = (plumb_jpeg_error_mgr *)cinfo->err;
    if (mgr->error) {
        char buffer[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, buffer);
        snprintf(mgr->error->message, sizeof mgr->error->message, "%s", buffer);
    }
    longjmp(mgr->escape, 1);
}

// Warnings (msg_level -1) such as "Premature end of JPEG file" mean the picture is damaged:
// treat them as errors. Trace messages (level >= 0) are ignored.
static void plumb_jpeg_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level < 0) plumb_jpeg_error_exit(cinfo);
}

int plumb_jpeg_decode(const uint8_t *data, size_t size, uint8_t **pixels,
                      uint32_t *width, uint32_t *height, plumb_imageio_error *error) {
    struct jpeg_decompress_struct cinfo;
    plumb_jpeg_error_mgr mgr;
    uint8_t *volatile out = NULL;
    *pixels = NULL;
    cinfo.err = jpeg_std_error(&mgr.base);
    mgr.base.error_exit = plumb_jpeg_error_exit;
    mgr.base.emit_message = plumb_jpeg_emit_message;
    mgr.error = error;
    if (setjmp(mgr.escape)) {
        jpeg_destroy_decompress(&cinfo);
        free(out);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    if ((uint64_t)cinfo.image_width * cinfo.image_height > PLUMB_IMAGEIO_MAX_PIXELS) {
        snprintf(error->message, sizeof error->message, "%ux%u pixels is past the %u-megapixel limit",
                 cinfo.image_width, cinfo.image_height, PLUMB_IMAGEIO_MAX_PIXELS >> 20);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    cinfo.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * 4;
    out = malloc(stride * cinfo.output_height);
    if (!out) {
        snprintf(error->message, sizeof error->message, "out of memory for %ux%u pixels",
                 cinfo.output_width, cinfo.output_height);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = out + stride * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    *width = cinfo.output_width;
    *height = cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    *pixels = out;
    return 0;
}

int plumb_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int quality,
                      int progressive, uint8_t **out, size_t *out_size, plumb_imageio_error *error) {
    struct jpeg_compress_struct cinfo;
    plumb_jpeg_error_mgr mgr;
    unsigned char *buffer = NULL;
    unsigned long length = 0;
    *out = NULL;
    cinfo.err = jpeg_std_error(&mgr.base);
    mgr.base.error_exit = plumb_jpeg_error_exit;
    mgr.base.emit_message = plumb_jpeg_emit_message;
    mgr.error = error;
    if (setjmp(mgr.escape)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &length);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgba + (size_t)width * 4 * cinfo.next_scanline);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_size = length;
    return 0;
}

void plumb_imageio_free(void *buffer) { free(buffer); }

/*
 * frame - drawing one SVG frame with librsvg into a cairo surface of the
 * video's size (1920x1080, 1080x1920 or 1080x1080: canvas.h), and
 * converting it to the encoder's picture.
 *
 * One framer per thread: its own cairo surface (a librsvg handle is made
 * per frame from the SVG text, 0.2 ms).  The frame is painted opaque
 * white first (cairo stores premultiplied colour and the conversion drops
 * alpha, so a transparent area would come out dark).  The conversion is
 * BGRA to yuv420p with BT.709 coefficients and limited range, as the
 * encoder's tags say (yuv_convert.h).
 */
#ifndef EXPLAINER_FRAME_H
#define EXPLAINER_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* The bytes of a yuv420p picture of width x height (both even). */
#define FRAME_YUV_SIZE(width, height) ((size_t)(width) * (size_t)(height) * 3 / 2)

struct framer;

/* A framer drawing width x height pixels (even sizes); NULL with err. */
struct framer *framer_new(int width, int height, char *err, size_t errlen);
/* 0, or -1 with err (librsvg's message). */
int framer_draw(struct framer *f, const char *svg, size_t len, char *err, size_t errlen);
/* The same for a scene in two layers (scene_layers_at): still (may be
 * NULL) is drawn only when it differs from the still layer drawn last,
 * and kept; moving is drawn over a copy of it. */
int framer_draw_layers(struct framer *f, const char *still, size_t still_len, const char *moving,
		       size_t moving_len, char *err, size_t errlen);
/* Draws svg over the frame last drawn (a caption, captions.h).  0, or -1
 * with err. */
int framer_draw_over(struct framer *f, const char *svg, size_t len, char *err, size_t errlen);
/* framer_draw_layers and framer_yuv at once, for the video: only the part
 * of the frame the moving layer paints (librsvg's ink rectangle of it) is
 * drawn and converted, the rest is the still layer's picture, converted
 * once per still layer.  The same samples as drawing and converting the
 * whole frame; the framer's surface then holds the frame only in that
 * part (framer_pixels and framer_surface are for the other two).  0, or
 * -1 with err. */
int framer_draw_yuv(struct framer *f, const char *still, size_t still_len, const char *moving, size_t moving_len,
		    uint8_t *yuv, char *err, size_t errlen);
/* The frame last drawn, as yuv420p: Y (width x height), then U and V
 * (each a quarter of that): FRAME_YUV_SIZE(width, height) bytes. */
void framer_yuv(struct framer *f, uint8_t *yuv);
/* The frame last drawn as BGRA rows (stride *stride bytes). */
const uint8_t *framer_pixels(struct framer *f, int *stride);
/* The frame last drawn, as a cairo image surface (owned by the framer). */
struct _cairo_surface *framer_surface(struct framer *f);
void framer_free(struct framer *f);

#endif

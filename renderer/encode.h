/*
 * encode - the MP4 encoder and muxer on libavcodec/libavformat (FFmpeg 5.1),
 * after doc/examples/muxing.c.
 *
 * Video: libx264 at the settings' size and rate (1920x1080 at 30 fps for
 * the default canvas, canvas.h; time base 1/fps), yuv420p, BT.709
 * primaries, transfer and matrix, limited (MPEG) range, tune animation;
 * x264 keeps its own keyframe interval (at most 250 frames: 8.3 s at 30
 * fps, 4.2 s at 60) and picks the level from the size and rate.
 * Audio: the native AAC encoder, 48 kHz mono, 128 kb/s.  The MP4 has its
 * index at the front (movflags +faststart).  Audio is handed over whole
 * before the first frame and encoded as the video catches up, so the
 * muxer interleaves the two.
 */
#ifndef EXPLAINER_ENCODE_H
#define EXPLAINER_ENCODE_H

#include <stddef.h>
#include <stdint.h>

struct encoder_settings {
	const char *preset;  /* x264 preset, e.g. "veryfast" */
	int crf;             /* x264 constant rate factor, e.g. 20 */
	int threads;         /* x264 threads; 0: libx264 decides */
	int width, height;   /* the picture, even sizes, e.g. 1920x1080 */
	int fps;             /* frames a second, 30 or 60 (the audio needs whole samples a frame) */
};

struct encoder;

/* Opens PATH (an existing temporary file, truncated) for writing and
 * writes the MP4 header.  NULL with err, also for settings x264 would
 * refuse.  Routes libav's log lines (errors only) through hb_log, for the
 * whole process. */
struct encoder *encoder_open(const char *path, const struct encoder_settings *s, char *err, size_t errlen);
/* The whole audio track (48 kHz mono float), kept by pointer until
 * encoder_finish/encoder_abort.  Call once, before the first frame. */
int encoder_audio(struct encoder *enc, const float *pcm, size_t n, char *err, size_t errlen);
/* The next video frame (yuv420p, FRAME_YUV_SIZE(width, height) bytes,
 * only read during the call: libx264 copies it before the call returns).  After
 * -1 only encoder_abort is left. */
int encoder_video(struct encoder *enc, const uint8_t *yuv, char *err, size_t errlen);
/* Encodes the rest of the audio, drains both encoders, writes the trailer
 * (and so the faststart index), closes the file and frees the encoder,
 * also on failure.  0 or -1 with err; -1 also when the audio track and the
 * frames differ in length by a frame or more. */
int encoder_finish(struct encoder *enc, char *err, size_t errlen);
/* Closes and frees without finishing; the caller removes the file. */
void encoder_abort(struct encoder *enc);

#endif

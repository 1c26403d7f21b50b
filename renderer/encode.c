/*
 * encode - H.264 + AAC into MP4 with libavcodec/libavformat, in the shape
 * of FFmpeg 5.1's doc/examples/muxing.c (see encode.h).
 *
 * The audio track is known whole before the first frame, so each video
 * frame first lets the audio catch up to its time: the muxer then gets
 * the two streams in time order and its interleaving queue stays short
 * instead of holding the whole audio until the end.  libav's own log lines
 * would go to stderr in libav's format; they go through hb_log instead, and
 * every failure becomes one sentence in err.
 */
#include "encode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>

#include "soundtrack.h"
#include "frame.h"
#include "log.h"

#define AUDIO_BITRATE 128000
/* The largest picture side: far above the formats (canvas.h), within H.264's. */
#define VIDEO_SIDE_MAX 4096
#define CRF_MAX 51

struct stream {
	AVStream *st;
	AVCodecContext *codec;
	AVFrame *frame;
	int64_t next_pts; /* in the codec's time base: frames, or samples */
};

struct encoder {
	AVFormatContext *mux;
	AVPacket *packet;
	struct stream video, audio;
	int fps;
	const float *pcm; /* the caller's, see encoder_audio */
	size_t pcm_len;
	int audio_given;
	int broken; /* a step failed half-way: only encoder_abort is left */
};

/* x264's own list (x264_preset_names), to name a bad preset before x264
 * fails with a bare "Invalid argument". */
static const char *const presets[] = { "ultrafast", "superfast", "veryfast", "faster", "fast",
				       "medium",    "slow",      "slower",   "veryslow", "placebo" };

/* libav's errors, one hb_log line each; its chatter below errors is dropped. */
static void log_libav(void *avcl, int level, const char *fmt, va_list ap)
{
	char line[1024];
	int print_prefix = 1;
	size_t len;

	if (level > AV_LOG_ERROR)
		return;
	if (av_log_format_line2(avcl, level, fmt, ap, line, sizeof line, &print_prefix) < 0)
		return;
	len = strlen(line);
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	if (len)
		log_warn("libav", "%s", line);
}

static int fail_av(char *err, size_t errlen, const char *what, int averr)
{
	char why[AV_ERROR_MAX_STRING_SIZE];

	if (av_strerror(averr, why, sizeof why) < 0)
		snprintf(why, sizeof why, "libav error %d", averr);
	snprintf(err, errlen, "%s: %s", what, why);
	return -1;
}

static int check_settings(const struct encoder_settings *s, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < sizeof presets / sizeof presets[0]; i++)
		if (s->preset && strcmp(s->preset, presets[i]) == 0)
			break;
	if (i == sizeof presets / sizeof presets[0]) {
		snprintf(err, errlen, "\"%s\" is not an x264 preset (ultrafast, superfast, veryfast, faster, fast, "
			 "medium, slow, slower, veryslow, placebo)", s->preset ? s->preset : "");
		return -1;
	}
	if (s->crf < 0 || s->crf > CRF_MAX) {
		snprintf(err, errlen, "the x264 quality (crf) is %d; it goes from 0 (lossless) to %d", s->crf, CRF_MAX);
		return -1;
	}
	if (s->threads < 0) {
		snprintf(err, errlen, "the number of x264 threads is %d; give 0 (x264 decides) or more", s->threads);
		return -1;
	}
	if (s->width < 2 || s->height < 2 || s->width > VIDEO_SIDE_MAX || s->height > VIDEO_SIDE_MAX ||
	    s->width % 2 || s->height % 2) {
		snprintf(err, errlen, "the picture is %dx%d; give even sizes from 2 to %d", s->width, s->height,
			 VIDEO_SIDE_MAX);
		return -1;
	}
	if (s->fps <= 0 || AUDIO_RATE % s->fps != 0) {
		snprintf(err, errlen, "the frame rate is %d fps; give one with a whole number of audio samples a "
			 "frame, such as 30 or 60", s->fps);
		return -1;
	}
	return 0;
}

/* A new stream of the muxer with an encoder context for codec; its
 * options are set by the caller before open_stream. */
static int add_stream(struct encoder *enc, struct stream *s, const AVCodec *codec, AVRational tb, char *err,
		      size_t errlen)
{
	if (!(s->st = avformat_new_stream(enc->mux, NULL)) || !(s->codec = avcodec_alloc_context3(codec)) ||
	    !(s->frame = av_frame_alloc())) {
		snprintf(err, errlen, "out of memory while setting up the %s encoder", codec->name);
		return -1;
	}
	s->st->time_base = tb;
	s->codec->time_base = tb;
	/* MP4 keeps the codec headers in its index (avcC, esds), not in the stream. */
	if (enc->mux->oformat->flags & AVFMT_GLOBALHEADER)
		s->codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
	return 0;
}

/* Opens the encoder, gives the muxer its parameters and allocates the
 * frame the encoder is fed from (its fields set by the caller). */
static int open_stream(struct stream *s, const char *what, char *err, size_t errlen)
{
	char msg[128];
	int rc;

	snprintf(msg, sizeof msg, "cannot open the %s encoder", what);
	if ((rc = avcodec_open2(s->codec, s->codec->codec, NULL)) < 0)
		return fail_av(err, errlen, msg, rc);
	if ((rc = avcodec_parameters_from_context(s->st->codecpar, s->codec)) < 0)
		return fail_av(err, errlen, msg, rc);
	return 0;
}

static int open_video(struct encoder *enc, const struct encoder_settings *set, char *err, size_t errlen)
{
	const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
	struct stream *s = &enc->video;
	AVCodecContext *c;
	int rc;

	if (!codec) {
		snprintf(err, errlen, "this FFmpeg has no libx264 encoder (Debian's libavcodec59 has it)");
		return -1;
	}
	if (add_stream(enc, s, codec, (AVRational){ 1, set->fps }, err, errlen) < 0)
		return -1;
	c = s->codec;
	c->width = set->width;
	c->height = set->height;
	c->pix_fmt = AV_PIX_FMT_YUV420P;
	c->framerate = (AVRational){ set->fps, 1 };
	c->color_primaries = AVCOL_PRI_BT709;
	c->color_trc = AVCOL_TRC_BT709;
	c->colorspace = AVCOL_SPC_BT709;
	c->color_range = AVCOL_RANGE_MPEG;
	c->thread_count = set->threads;
	if ((rc = av_opt_set(c->priv_data, "preset", set->preset, 0)) < 0 ||
	    (rc = av_opt_set(c->priv_data, "tune", "animation", 0)) < 0 ||
	    (rc = av_opt_set_double(c->priv_data, "crf", set->crf, 0)) < 0)
		return fail_av(err, errlen, "cannot set up the H.264 encoder", rc);
	if (open_stream(s, "H.264", err, errlen) < 0)
		return -1;
	return 0;
}

static int open_audio(struct encoder *enc, char *err, size_t errlen)
{
	const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_AAC);
	struct stream *s = &enc->audio;
	AVCodecContext *c;
	int rc;

	if (!codec) {
		snprintf(err, errlen, "this FFmpeg has no AAC encoder");
		return -1;
	}
	if (add_stream(enc, s, codec, (AVRational){ 1, AUDIO_RATE }, err, errlen) < 0)
		return -1;
	c = s->codec;
	c->sample_fmt = AV_SAMPLE_FMT_FLTP; /* the only one the native AAC encoder takes */
	c->sample_rate = AUDIO_RATE;
	c->bit_rate = AUDIO_BITRATE;
	av_channel_layout_default(&c->ch_layout, 1);
	if (open_stream(s, "AAC", err, errlen) < 0)
		return -1;
	s->frame->format = c->sample_fmt;
	s->frame->sample_rate = c->sample_rate;
	s->frame->nb_samples = c->frame_size;
	if ((rc = av_channel_layout_copy(&s->frame->ch_layout, &c->ch_layout)) < 0 ||
	    (rc = av_frame_get_buffer(s->frame, 0)) < 0)
		return fail_av(err, errlen, "cannot allocate an audio frame", rc);
	return 0;
}

/* Sends frame (NULL: end of stream) and hands every packet that comes out
 * to the muxer, in the stream's time base (the muxer may have changed it). */
static int encode_frame(struct encoder *enc, struct stream *s, const AVFrame *frame, char *err, size_t errlen)
{
	int rc = avcodec_send_frame(s->codec, frame);

	if (rc < 0)
		return fail_av(err, errlen, "the encoder refused a frame", rc);
	while ((rc = avcodec_receive_packet(s->codec, enc->packet)) >= 0) {
		/* libx264 in 5.1 leaves it 0; the muxer would then end the track
		 * at the last frame's start, a frame short of the audio. */
		if (enc->packet->duration == 0 && s == &enc->video)
			enc->packet->duration = 1;
		av_packet_rescale_ts(enc->packet, s->codec->time_base, s->st->time_base);
		enc->packet->stream_index = s->st->index;
		/* Takes the packet's data, even on failure. */
		if ((rc = av_interleaved_write_frame(enc->mux, enc->packet)) < 0)
			return fail_av(err, errlen, "cannot write the video file", rc);
	}
	if (rc != AVERROR(EAGAIN) && rc != AVERROR_EOF)
		return fail_av(err, errlen, "the encoder failed", rc);
	return 0;
}

/* The next AAC frame of the track: frame_size samples, fewer at the end. */
static int send_audio_frame(struct encoder *enc, char *err, size_t errlen)
{
	struct stream *s = &enc->audio;
	size_t at = (size_t)s->next_pts, n = enc->pcm_len - at;
	int rc;

	if (n > (size_t)s->codec->frame_size)
		n = (size_t)s->codec->frame_size;
	if ((rc = av_frame_make_writable(s->frame)) < 0)
		return fail_av(err, errlen, "cannot allocate an audio frame", rc);
	s->frame->nb_samples = (int)n;
	memcpy(s->frame->data[0], enc->pcm + at, n * sizeof *enc->pcm);
	s->frame->pts = s->next_pts;
	s->next_pts += (int64_t)n;
	return encode_frame(enc, s, s->frame, err, errlen);
}

static int audio_left(const struct encoder *enc)
{
	return (size_t)enc->audio.next_pts < enc->pcm_len;
}

/* The muxer, before its streams.  "file:" keeps a name with a colon
 * ("a:b.mp4") from reading as a protocol. */
static int open_muxer(struct encoder *enc, const char *url, char *err, size_t errlen)
{
	int rc = avformat_alloc_output_context2(&enc->mux, NULL, "mp4", url);

	if (rc < 0 || !enc->mux)
		return fail_av(err, errlen, "cannot set up the MP4 muxer", rc < 0 ? rc : AVERROR(ENOMEM));
	if (!(enc->packet = av_packet_alloc())) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* The file, after the streams. */
static int start_file(struct encoder *enc, const char *url, const char *path, char *err, size_t errlen)
{
	AVDictionary *opts = NULL;
	int rc = avio_open(&enc->mux->pb, url, AVIO_FLAG_WRITE);

	if (rc < 0) {
		char what[64 + 512];
		snprintf(what, sizeof what, "cannot open %.512s for writing", path);
		return fail_av(err, errlen, what, rc);
	}
	/* The index (moov) goes to the front at the trailer, so a player can
	 * start before the whole file has arrived. */
	if ((rc = av_dict_set(&opts, "movflags", "+faststart", 0)) >= 0)
		rc = avformat_write_header(enc->mux, &opts);
	av_dict_free(&opts);
	return rc < 0 ? fail_av(err, errlen, "cannot start the MP4 file", rc) : 0;
}

struct encoder *encoder_open(const char *path, const struct encoder_settings *s, char *err, size_t errlen)
{
	size_t len = strlen(path) + sizeof "file:";
	struct encoder *enc;
	char *url;
	int ok;

	if (check_settings(s, err, errlen) < 0)
		return NULL;
	/* Process-wide, and the same for every encoder. */
	av_log_set_callback(log_libav);
	enc = calloc(1, sizeof *enc);
	if (!enc || !(url = malloc(len))) {
		free(enc);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(url, len, "file:%s", path);
	enc->fps = s->fps;
	ok = open_muxer(enc, url, err, errlen) == 0 && open_video(enc, s, err, errlen) == 0 &&
	     open_audio(enc, err, errlen) == 0 && start_file(enc, url, path, err, errlen) == 0;
	free(url);
	if (!ok) {
		encoder_abort(enc);
		return NULL;
	}
	return enc;
}

int encoder_audio(struct encoder *enc, const float *pcm, size_t n, char *err, size_t errlen)
{
	if (enc->audio_given || enc->video.next_pts > 0) {
		snprintf(err, errlen, "the sound track must be given once, before the first frame");
		return -1;
	}
	if (n == 0 || !pcm) {
		snprintf(err, errlen, "the sound track is empty");
		return -1;
	}
	enc->pcm = pcm;
	enc->pcm_len = n;
	enc->audio_given = 1;
	return 0;
}

static void keep_buffer(void *opaque, uint8_t *data)
{
	(void)opaque;
	(void)data; /* the caller's picture: not ours to free */
}

/* The frame lends the caller's picture (yuv420p, tightly packed) to the
 * encoder instead of copying it: libx264 copies it into its own frame
 * before avcodec_send_frame returns.  NULL when out of memory. */
static AVBufferRef *lend_picture(AVFrame *f, const AVCodecContext *c, const uint8_t *yuv)
{
	size_t luma = (size_t)c->width * (size_t)c->height, chroma = luma / 4;
	AVBufferRef *buf = av_buffer_create((uint8_t *)yuv, luma + 2 * chroma, keep_buffer, NULL,
					    AV_BUFFER_FLAG_READONLY);

	if (!buf)
		return NULL;
	f->buf[0] = buf;
	f->format = c->pix_fmt;
	f->width = c->width;
	f->height = c->height;
	f->data[0] = (uint8_t *)yuv;
	f->data[1] = (uint8_t *)yuv + luma;
	f->data[2] = (uint8_t *)yuv + luma + chroma;
	f->linesize[0] = c->width;
	f->linesize[1] = f->linesize[2] = c->width / 2;
	return buf;
}

int encoder_video(struct encoder *enc, const uint8_t *yuv, char *err, size_t errlen)
{
	struct stream *v = &enc->video;
	AVBufferRef *buf;
	int rc, kept;

	if (enc->broken || !enc->audio_given) {
		snprintf(err, errlen, enc->broken ? "the encoder failed before; the video cannot go on"
						  : "the sound track must be given before the first frame");
		return -1;
	}
	while (audio_left(enc) &&
	       av_compare_ts(enc->audio.next_pts, enc->audio.codec->time_base, v->next_pts, v->codec->time_base) <= 0) {
		if (send_audio_frame(enc, err, errlen) < 0)
			goto broken;
	}
	if (!(buf = lend_picture(v->frame, v->codec, yuv))) {
		snprintf(err, errlen, "out of memory for a video frame");
		goto broken;
	}
	v->frame->pts = v->next_pts++;
	rc = encode_frame(enc, v, v->frame, err, errlen);
	/* The picture is the caller's again once the encoder let go of it. */
	kept = av_buffer_get_ref_count(buf) > 1;
	av_frame_unref(v->frame);
	if (rc < 0)
		goto broken;
	if (kept) {
		snprintf(err, errlen, "the H.264 encoder kept a picture it was lent (this libavcodec buffers "
			 "frames); the video cannot go on");
		goto broken;
	}
	return 0;
broken:
	enc->broken = 1;
	return -1;
}

/* The rest of the audio, both encoders drained, the trailer (where the
 * faststart pass moves the index to the front), the file closed. */
static int finish(struct encoder *enc, char *err, size_t errlen)
{
	const size_t per_frame = AUDIO_SAMPLES_PER_FRAME(enc->fps);
	size_t video_samples = (size_t)enc->video.next_pts * per_frame;
	int rc;

	if (enc->broken || !enc->audio_given || enc->video.next_pts == 0) {
		snprintf(err, errlen, enc->broken ? "the encoder failed before; the video cannot be finished"
						  : "the video has no %s", enc->audio_given ? "frames" : "sound track");
		return -1;
	}
	/* Both streams must end together; audio_track makes them equal. */
	if (enc->pcm_len + per_frame <= video_samples || enc->pcm_len >= video_samples + per_frame) {
		snprintf(err, errlen, "the sound track lasts %.3f s but the video %.3f s; they must end together",
			 (double)enc->pcm_len / AUDIO_RATE, (double)enc->video.next_pts / enc->fps);
		return -1;
	}
	while (audio_left(enc))
		if (send_audio_frame(enc, err, errlen) < 0)
			return -1;
	if (encode_frame(enc, &enc->audio, NULL, err, errlen) < 0 ||
	    encode_frame(enc, &enc->video, NULL, err, errlen) < 0)
		return -1;
	if ((rc = av_write_trailer(enc->mux)) < 0)
		return fail_av(err, errlen, "cannot finish the MP4 file", rc);
	if (enc->mux->pb->error < 0)
		return fail_av(err, errlen, "cannot write the video file", enc->mux->pb->error);
	if ((rc = avio_closep(&enc->mux->pb)) < 0)
		return fail_av(err, errlen, "cannot close the video file", rc);
	return 0;
}

int encoder_finish(struct encoder *enc, char *err, size_t errlen)
{
	int rc = finish(enc, err, errlen);

	encoder_abort(enc);
	return rc;
}

/* An encoder left before its flush (a cancelled or failed render) is
 * drained first: libx264 hands back the frames its threads still hold
 * only by encoding them, and a cancelled render's encoder was once seen
 * by LeakSanitizer to lose them (8 MB) when closed without it.  The
 * packets are thrown away; it costs the few frames of its lookahead. */
static void drain_stream(struct stream *s, AVPacket *packet)
{
	if (!s->codec || !avcodec_is_open(s->codec) || !packet)
		return;
	if (avcodec_send_frame(s->codec, NULL) < 0)
		return; /* flushed already (AVERROR_EOF), or nothing to give back */
	while (avcodec_receive_packet(s->codec, packet) >= 0)
		av_packet_unref(packet);
}

static void close_stream(struct stream *s, AVPacket *packet)
{
	drain_stream(s, packet);
	avcodec_free_context(&s->codec);
	av_frame_free(&s->frame);
}

void encoder_abort(struct encoder *enc)
{
	if (!enc)
		return;
	close_stream(&enc->video, enc->packet);
	close_stream(&enc->audio, enc->packet);
	av_packet_free(&enc->packet);
	if (enc->mux) {
		if (enc->mux->pb)
			avio_closep(&enc->mux->pb);
		avformat_free_context(enc->mux);
	}
	free(enc);
}

/*
 * video_mime - the video types Gemini reads: the nine of its current list
 * (gemini.md) and three aliases servers still send (video/mov,
 * video/x-msvideo, video/x-ms-wmv), each mapped to the name in Gemini's
 * list, so that what we tell Gemini is always a type it documents.
 */
#ifndef VIDEO_MIME_H
#define VIDEO_MIME_H

#include <stddef.h>

#define VIDEO_MIME_MAX 128

/* The media type of a Content-Type value: lowercase, without parameters
 * or blanks ("Video/MP4; codecs=x" -> "video/mp4").  0, or -1 when there
 * is no type/subtype in it. */
int video_mime_normalize(const char *header, char *out, size_t outlen);
/* Gemini's name for a supported (normalized) type, or NULL. */
const char *video_mime_supported(const char *mime);
/* Gemini's type for a file name by its extension (any case), or NULL. */
const char *video_mime_for_path(const char *path);
/* "video/mp4, video/mpeg, ..." and ".mp4, .mpeg, ...", for messages. */
const char *video_mime_list(void);
const char *video_mime_extensions(void);

#endif

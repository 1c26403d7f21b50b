/*
 * video_mime - one table for the twelve accepted types and the file
 * extensions, so the HEAD check, the local file check and the messages
 * that list them never disagree.
 */
#include "video_mime.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *mime, *gemini;
} types[] = {
	{ "video/mp4", "video/mp4" },       { "video/mpeg", "video/mpeg" },   { "video/quicktime", "video/quicktime" },
	{ "video/avi", "video/avi" },       { "video/x-flv", "video/x-flv" }, { "video/mpg", "video/mpg" },
	{ "video/webm", "video/webm" },     { "video/wmv", "video/wmv" },     { "video/3gpp", "video/3gpp" },
	{ "video/mov", "video/quicktime" }, { "video/x-msvideo", "video/avi" }, { "video/x-ms-wmv", "video/wmv" },
};

/* gemini.md's extension map, plus the spellings of the same containers
 * cameras and screen recorders write (.m4v, .qt, .3gpp). */
static const struct {
	const char *ext, *gemini;
} extensions[] = {
	{ "mp4", "video/mp4" },  { "m4v", "video/mp4" },        { "mpeg", "video/mpeg" }, { "mpg", "video/mpg" },
	{ "mov", "video/quicktime" }, { "qt", "video/quicktime" }, { "avi", "video/avi" },  { "flv", "video/x-flv" },
	{ "webm", "video/webm" }, { "wmv", "video/wmv" },       { "3gp", "video/3gpp" },  { "3gpp", "video/3gpp" },
};

int video_mime_normalize(const char *header, char *out, size_t outlen)
{
	size_t n = 0;
	const char *slash;

	while (*header == ' ' || *header == '\t')
		header++;
	for (; *header && *header != ';' && *header != ' ' && *header != '\t'; header++) {
		if (n + 1 >= outlen)
			return -1;
		out[n++] = (char)tolower((unsigned char)*header);
	}
	out[n] = '\0';
	slash = strchr(out, '/');
	return n > 0 && slash && slash != out && slash[1] && !strchr(slash + 1, '/') ? 0 : -1;
}

const char *video_mime_supported(const char *mime)
{
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcmp(types[i].mime, mime) == 0)
			return types[i].gemini;
	return NULL;
}

const char *video_mime_for_path(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	if (!(dot = strrchr(base, '.')) || dot == base)
		return NULL;
	for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
		if (strcasecmp(extensions[i].ext, dot + 1) == 0)
			return extensions[i].gemini;
	return NULL;
}

const char *video_mime_list(void)
{
	return "video/mp4, video/mpeg, video/quicktime, video/avi, video/x-flv, video/mpg, video/webm, video/wmv, "
	       "video/3gpp, video/mov, video/x-msvideo, video/x-ms-wmv";
}

const char *video_mime_extensions(void)
{
	return ".mp4, .m4v, .mpeg, .mpg, .mov, .qt, .avi, .flv, .webm, .wmv, .3gp, .3gpp";
}

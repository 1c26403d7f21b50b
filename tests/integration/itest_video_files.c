/*
 * itest_video_files - extract_video_context on a local file, through the
 * real hb-broker and svc-video against the fake Gemini server
 * (video_rig.h): a local file through the Files API (chunks, offsets and
 * the bytes' SHA-256 at the server, PROCESSING -> ACTIVE, the file deleted
 * afterwards), a failed chunk resumed from the server's offset, FAILED and
 * never-ready files; consent and path rules; what a local file holds
 * (links named like videos to other files, files that are no video,
 * Matroska, a link to a real video uploaded as the file it leads to).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness/fake_gemini.h"
#include "../harness/group.h"
#include "../harness/harness.h"
#include "netaddr.h"
#include "sha256.h"
#include "video_rig.h"

/* Checks the upload of the clip: start, the chunks in order, the bytes. */
static void check_upload(const char *const *commands, const long long *offsets, size_t n)
{
	json_t *start = fg_records_of(&G, "upload-start"), *ups = fg_records_of(&G, "upload"), *last;

	assert_int_equal(json_array_size(start), 1);
	assert_string_equal(fg_str(json_array_get(start, 0), "uploadMime"), "video/mp4");
	assert_string_equal(fg_str(json_array_get(start, 0), "displayName"), "clip.mp4");
	assert_string_equal(fg_str(json_array_get(start, 0), "apiKey"), KEY);
	assert_int_equal(fg_int(json_array_get(start, 0), "size"), CLIP_BYTES);
	assert_int_equal(json_array_size(ups), n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(fg_str(json_array_get(ups, i), "command"), commands[i]);
		assert_int_equal(fg_int(json_array_get(ups, i), "offset"), offsets[i]);
	}
	last = json_array_get(ups, n - 1);
	assert_int_equal(fg_int(last, "size"), CLIP_BYTES);
	assert_string_equal(fg_str(last, "sha256"), clip_sha);
	json_decref(start);
	json_decref(ups);
}

static void test_local_file_upload(void **state)
{
	static const char *const cmds[] = { "upload", "upload", "upload, finalize" };
	static const long long offs[] = { 0, CHUNK, 2 * CHUNK };
	char *args = file_args(clip), *md;
	json_t *gets, *vid, *del, *all;
	size_t i, at_video = 0, at_delete = 0;

	(void)state;
	control("{\"videoJson\":" TUTORIAL_JSON ",\"processingPolls\":2}");
	md = watch_ok(args);
	assert_non_null(strstr(md, "- Source: "));
	assert_non_null(strstr(md, clip));
	free(md);
	check_upload(cmds, offs, 3);
	/* PROCESSING, PROCESSING, ACTIVE: then the video is named by its uri. */
	gets = fg_records_of(&G, "file-get");
	assert_int_equal(json_array_size(gets), 3);
	assert_string_equal(fg_str(json_array_get(gets, 0), "state"), "PROCESSING");
	assert_string_equal(fg_str(json_array_get(gets, 2), "state"), "ACTIVE");
	vid = fg_records_of(&G, "video");
	assert_int_equal(json_array_size(vid), 1);
	assert_non_null(strstr(fg_str(json_array_get(vid, 0), "fileUri"), "/v1beta/files/"));
	assert_string_equal(fg_str(json_array_get(vid, 0), "fileMimeType"), "video/mp4");
	assert_int_equal(fg_int(json_array_get(vid, 0), "status"), 200);
	/* Deleted afterwards, after the analysis. */
	del = fg_records_of(&G, "file-delete");
	assert_int_equal(json_array_size(del), 1);
	assert_string_equal(fg_str(json_array_get(del, 0), "fileName"), fg_str(json_array_get(gets, 0), "fileName"));
	assert_int_equal(fg_int(json_array_get(del, 0), "status"), 200);
	all = fg_records(&G);
	for (i = 0; i < json_array_size(all); i++) {
		if (strcmp(fg_str(json_array_get(all, i), "kind"), "video") == 0)
			at_video = i;
		if (strcmp(fg_str(json_array_get(all, i), "kind"), "file-delete") == 0)
			at_delete = i;
	}
	assert_true(at_delete > at_video);
	json_decref(all);
	json_decref(gets);
	json_decref(vid);
	json_decref(del);
	free(args);
}

/* The second chunk fails: the client asks where the upload stands and
 * goes on from the offset the server gives, so no byte arrives twice and
 * none is missing (the SHA-256 of what the server assembled). */
static void test_upload_resumes(void **state)
{
	static const char *const kept_cmds[] = { "upload", "upload", "upload, finalize" };
	static const long long kept_offs[] = { 0, CHUNK, 2 * CHUNK };
	static const char *const lost_cmds[] = { "upload", "upload", "upload", "upload, finalize" };
	static const long long lost_offs[] = { 0, CHUNK, CHUNK, 2 * CHUNK };
	char *args = file_args(clip);
	json_t *ups;

	(void)state;
	/* Stored before the failure: the next request starts after it. */
	control("{\"videoJson\":" TUTORIAL_JSON ",\"processingPolls\":0,\"rules\":[{\"kind\":\"upload\",\"times\":1},"
		"{\"kind\":\"upload\",\"times\":1,\"status\":503,\"keep\":true}]}");
	free(watch_ok(args));
	check_upload(kept_cmds, kept_offs, 3);
	ups = fg_records_of(&G, "upload");
	assert_int_equal(fg_int(json_array_get(ups, 1), "status"), 503);
	json_decref(ups);
	assert_int_equal(count_of("upload-query"), 1);
	assert_int_equal(count_of("file-delete"), 1);
	/* Lost: the same chunk again. */
	control("{\"videoJson\":" TUTORIAL_JSON ",\"processingPolls\":0,\"rules\":[{\"kind\":\"upload\",\"times\":1},"
		"{\"kind\":\"upload\",\"times\":1,\"status\":500}]}");
	free(watch_ok(args));
	check_upload(lost_cmds, lost_offs, 4);
	assert_int_equal(count_of("upload-query"), 1);
	/* Failing for good: three tries, then the reason; the session cancelled. */
	control("{\"videoJson\":" TUTORIAL_JSON ",\"rules\":[{\"kind\":\"upload\",\"status\":503}]}");
	watch_fails(args, "uploading the local file failed at byte 0: Gemini is overloaded or down (HTTP 503");
	assert_int_equal(count_of("upload"), 3);
	assert_int_equal(count_of("upload-cancel"), 1);
	free(args);
}

static void test_file_failures(void **state)
{
	char *args = file_args(clip);

	(void)state;
	control("{\"videoJson\":" TUTORIAL_JSON ",\"fileState\":\"FAILED\"}");
	watch_fails(args, "Gemini could not process the video (state FAILED): Video processing failed");
	assert_int_equal(count_of("video"), 0);
	assert_int_equal(count_of("file-delete"), 1);
	control("{\"videoJson\":" TUTORIAL_JSON ",\"fileState\":\"STUCK\"}");
	watch_fails(args, "Gemini was still processing the video after 2 s");
	assert_int_equal(count_of("video"), 0);
	assert_int_equal(count_of("file-delete"), 1);
	/* The upload cannot start: nothing to delete, the reason given. */
	control("{\"rules\":[{\"kind\":\"upload-start\",\"status\":400}]}");
	watch_fails(args, "cannot start the upload: Gemini refused the request (HTTP 400 INVALID_ARGUMENT)");
	assert_int_equal(count_of("upload"), 0);
	free(args);
}

static void test_consent_and_paths(void **state)
{
	char path[300], *args;
	int fd;

	(void)state;
	control("{\"videoJson\":" TUTORIAL_JSON "}");
	snprintf(path, sizeof path, "{\"local_file\":\"%s\",\"intent\":\"tutorial\",\"goal\":\"g\"}", clip);
	watch_fails(path, "only with \"localFileConsent\": true");
	snprintf(path, sizeof path, "{\"local_file\":\"%s\",\"localFileConsent\":false,\"intent\":\"tutorial\","
		 "\"goal\":\"g\"}", clip);
	watch_fails(path, "only with \"localFileConsent\": true");
	watch_fails("{\"local_file\":\"clip.mp4\",\"localFileConsent\":true,\"intent\":\"tutorial\",\"goal\":\"g\"}",
		    "must be an absolute path");
	watch_fails("{\"local_file\":\"~/clip.mp4\",\"localFileConsent\":true,\"intent\":\"tutorial\",\"goal\":\"g\"}",
		    "must be an absolute path");
	watch_fails("{\"local_file\":\"/a.mp4\",\"localFileConsent\":\"yes\",\"intent\":\"tutorial\",\"goal\":\"g\"}",
		    "\"localFileConsent\" must be true or false");
	snprintf(path, sizeof path, "%s/missing.mp4", gdir);
	args = file_args(path);
	watch_fails(args, "there is no such file");
	free(args);
	snprintf(path, sizeof path, "%s/folder.mp4", gdir);
	assert_int_equal(mkdir(path, 0700), 0);
	args = file_args(path);
	watch_fails(args, "is a folder, not a regular file");
	free(args);
	snprintf(path, sizeof path, "%s/empty.webm", gdir);
	assert_true((fd = open(path, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
	args = file_args(path);
	watch_fails(args, "is empty");
	free(args);
	snprintf(path, sizeof path, "%s/notes.txt", gdir);
	assert_true((fd = open(path, O_CREAT | O_WRONLY, 0600)) >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	args = file_args(path);
	watch_fails(args, "is not a video type Gemini reads; the name must end in one of .mp4");
	free(args);
	snprintf(path, sizeof path, "%s/locked.mp4", gdir);
	assert_true((fd = open(path, O_CREAT | O_WRONLY, 0000)) >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	if (geteuid() != 0) { /* root reads any file */
		args = file_args(path);
		watch_fails(args, "Permission denied");
		free(args);
	}
	assert_int_equal(fg_started(&G), 0);
}

/* dir/name with len bytes of data (a string's when len is 0), and with
 * len set 4 KiB of filler after them (a video is more than its header);
 * its path. */
static char *put_file(const char *name, const char *data, size_t len)
{
	int pad = len > 0;

	char *path = malloc(300);
	FILE *f;

	assert_non_null(path);
	snprintf(path, 300, "%s/%s", gdir, name);
	len = len ? len : strlen(data);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(data, 1, len, f), len);
	for (int i = 0; pad && i < 4096; i++)
		assert_int_equal(fputc(i & 0xff, f), i & 0xff);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* The link dir/name to target; its path. */
static char *put_link(const char *name, const char *target)
{
	char *path = malloc(300);

	assert_non_null(path);
	snprintf(path, 300, "%s/%s", gdir, name);
	assert_int_equal(symlink(target, path), 0);
	return path;
}

/* What a local file holds decides, not its name: a link named like a
 * video to another kind of file, and a file named like a video that is
 * none, are refused before anything is sent, saying which file it is; a
 * link to a real video uploads the file it leads to, under that file's
 * name, with the type its bytes say. */
static void test_local_file_contents(void **state)
{
	char *notes = put_file("notes.md", "# my notes\nssh-ed25519 AAAA... me@host\n", 0);
	char *fake = put_file("fake.mp4", "this is text, not a video\n", 0);
	char *mkv = put_file("film.webm", MKV_HEAD, sizeof MKV_HEAD - 1);
	char *webm = put_file("real.webm", WEBM_HEAD, sizeof WEBM_HEAD - 1);
	char *links[] = { put_link("x.mp4", notes), put_link("talk.mp4", webm), put_link("clip-link.mp4", clip),
			  put_link("passwd.mov", "/etc/passwd") };
	char *args, want[700];
	json_t *start;

	(void)state;
	control("{\"videoJson\":" TUTORIAL_JSON ",\"processingPolls\":0}");
	args = file_args(links[0]);
	snprintf(want, sizeof want, "local_file \"%s\" (which is \"%s\") is not a video: its contents are none of the "
		 "video types Gemini reads (MP4, QuickTime, 3GPP, WebM, AVI, FLV, MPEG, WMV), whatever its name says",
		 links[0], notes);
	watch_fails(args, want);
	free(args);
	if (access("/etc/passwd", R_OK) == 0) {
		args = file_args(links[3]);
		watch_fails(args, "(which is \"/etc/passwd\") is not a video");
		free(args);
	}
	args = file_args(fake);
	snprintf(want, sizeof want, "local_file \"%s\" is not a video: its contents are none", fake);
	watch_fails(args, want);
	free(args);
	args = file_args(mkv);
	watch_fails(args, "film.webm\" is a Matroska (MKV) video, a type Gemini does not read");
	free(args);
	assert_int_equal(fg_started(&G), 0);

	/* A link to a real video: the clip, as the clip. */
	args = file_args(links[2]);
	free(watch_ok(args));
	free(args);
	start = fg_records_of(&G, "upload-start");
	assert_string_equal(fg_str(json_array_get(start, 0), "displayName"), "clip.mp4");
	assert_string_equal(fg_str(json_array_get(start, 0), "uploadMime"), "video/mp4");
	json_decref(start);
	start = fg_records_of(&G, "upload");
	assert_string_equal(fg_str(json_array_get(start, json_array_size(start) - 1), "sha256"), clip_sha);
	json_decref(start);
	/* Named .mp4, a WebM file: sent as what it is. */
	control("{\"videoJson\":" TUTORIAL_JSON ",\"processingPolls\":0}");
	args = file_args(links[1]);
	free(watch_ok(args));
	free(args);
	start = fg_records_of(&G, "upload-start");
	assert_string_equal(fg_str(json_array_get(start, 0), "displayName"), "real.webm");
	assert_string_equal(fg_str(json_array_get(start, 0), "uploadMime"), "video/webm");
	json_decref(start);
	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
		free(links[i]);
	free(notes);
	free(fake);
	free(mkv);
	free(webm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local_file_upload),
		cmocka_unit_test(test_upload_resumes),
		cmocka_unit_test(test_file_failures),
		cmocka_unit_test(test_consent_and_paths),
		cmocka_unit_test(test_local_file_contents),
	};

	return ck_run_group_tests_name("with the fake web server", tests, video_setup, video_teardown);
}

/*
 * test_explainer_output - the explainer's atomic output file: the
 * temporary file's name, place and mode; abort leaves the target (absent or
 * old) as it was; commit replaces it with the umask's mode and leaves
 * nothing else; a failed commit harms nothing; leftovers of dead processes
 * of the same target are removed and all others kept; every unusable
 * target gets a sentence.  (A real SIGKILL mid-encode is in
 * test_explainer_encode.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../renderer/output.h"
#include "../harness/fx_folder.h"

#define OLD_VIDEO "an older video that must survive\n"
#define NEW_VIDEO "the new video\n"

/* The file's whole content equals text (NULL: the file does not exist). */
static void assert_content(const char *path, const char *text)
{
	FILE *f = fopen(path, "rb");
	char buf[256];
	size_t n;

	if (!text) {
		assert_null(f);
		return;
	}
	assert_non_null(f);
	n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	assert_int_equal(n, strlen(text));
	assert_memory_equal(buf, text, n);
}

static void test_temporary_file(void **state)
{
	struct fx_folder *f = *state;
	char *target = fx_path_in(f->path, "video.mp4"), want[128], err[256];
	struct output o;
	struct stat st;
	size_t len;

	assert_int_equal(output_begin(&o, target, err, sizeof err), 0);
	assert_string_equal(o.target, target);
	/* "<folder>/.video.mp4.hb-PID-XXXXXX.part", made 0600. */
	len = (size_t)snprintf(want, sizeof want, "%s/.video.mp4.hb-%ld-", f->path, (long)getpid());
	assert_int_equal(strncmp(o.tmp, want, len), 0);
	assert_int_equal(strlen(o.tmp), len + 6 + strlen(".part"));
	assert_string_equal(o.tmp + len + 6, ".part");
	assert_int_equal(stat(o.tmp, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, 0);
	output_abort(&o);
	assert_null(o.tmp);
	output_abort(&o); /* twice is harmless */
	assert_int_equal(fx_entries(f->path), 0);
	free(target);
}

/* A relative target: the temporary file is in the current folder. */
static void test_relative_target(void **state)
{
	struct fx_folder *f = *state;
	char cwd[4096], err[256], *target = fx_path_in(f->path, "plain.mp4");
	struct output o;

	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(f->path), 0);
	assert_int_equal(output_begin(&o, "plain.mp4", err, sizeof err), 0);
	assert_int_equal(strncmp(o.tmp, "./.plain.mp4.hb-", 16), 0);
	fx_write_file(o.tmp, NEW_VIDEO);
	assert_int_equal(output_commit(&o, err, sizeof err), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_content(target, NEW_VIDEO);
	assert_int_equal(fx_entries(f->path), 1);
	free(target);
}

static void test_abort_keeps_target(void **state)
{
	struct fx_folder *f = *state;
	char *target = fx_path_in(f->path, "video.mp4"), err[256];
	struct output o;

	/* No file before: none after. */
	assert_int_equal(output_begin(&o, target, err, sizeof err), 0);
	fx_write_file(o.tmp, "half a video");
	output_abort(&o);
	assert_content(target, NULL);
	assert_int_equal(fx_entries(f->path), 0);
	/* An old file: the same bytes after. */
	fx_write_file(target, OLD_VIDEO);
	assert_int_equal(output_begin(&o, target, err, sizeof err), 0);
	fx_write_file(o.tmp, "half a video");
	assert_content(target, OLD_VIDEO);
	output_abort(&o);
	assert_content(target, OLD_VIDEO);
	assert_int_equal(fx_entries(f->path), 1);
	free(target);
}

static void commit_under(const char *target, mode_t mask)
{
	mode_t old = umask(mask);
	struct output o;
	struct stat st;
	char err[256];

	if (output_begin(&o, target, err, sizeof err) < 0)
		fail_msg("%s", err);
	fx_write_file(o.tmp, NEW_VIDEO);
	if (output_commit(&o, err, sizeof err) < 0)
		fail_msg("%s", err);
	umask(old);
	assert_null(o.tmp);
	assert_null(o.target);
	output_abort(&o); /* nothing left to do */
	assert_content(target, NEW_VIDEO);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0666 & ~mask);
}

static void test_commit_replaces(void **state)
{
	struct fx_folder *f = *state;
	char *target = fx_path_in(f->path, "video.mp4");

	fx_write_file(target, OLD_VIDEO);
	commit_under(target, 022);
	assert_int_equal(fx_entries(f->path), 1);
	commit_under(target, 077);
	commit_under(target, 002);
	assert_int_equal(fx_entries(f->path), 1);
	free(target);
}

/* The target turned into a folder during the render: the commit fails,
 * says why, removes its temporary file and leaves the folder alone. */
static void test_commit_failure(void **state)
{
	struct fx_folder *f = *state;
	char *target = fx_path_in(f->path, "video.mp4"), *inside = fx_path_in(f->path, "video.mp4/keep"), err[512];
	struct output o;
	struct stat st;

	assert_int_equal(output_begin(&o, target, err, sizeof err), 0);
	fx_write_file(o.tmp, NEW_VIDEO);
	assert_int_equal(mkdir(target, 0700), 0);
	fx_write_file(inside, OLD_VIDEO);
	assert_int_equal(output_commit(&o, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot move the finished video to"));
	assert_null(o.tmp);
	assert_int_equal(stat(target, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_content(inside, OLD_VIDEO);
	assert_int_equal(fx_entries(f->path), 1);
	free(target);
	free(inside);
}

static pid_t dead_pid(void)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return pid;
}

static void make_leftover(const struct fx_folder *f, const char *target_name, const char *pid_and_rest)
{
	char name[256], *path;

	snprintf(name, sizeof name, ".%s.hb-%s", target_name, pid_and_rest);
	path = fx_path_in(f->path, name);
	fx_write_file(path, "leftover");
	free(path);
}

static int exists(const struct fx_folder *f, const char *target_name, const char *pid_and_rest)
{
	char name[256], *path;
	int ok;

	snprintf(name, sizeof name, ".%s.hb-%s", target_name, pid_and_rest);
	path = fx_path_in(f->path, name);
	ok = access(path, F_OK) == 0;
	free(path);
	return ok;
}

static void test_leftovers(void **state)
{
	struct fx_folder *f = *state;
	char *target = fx_path_in(f->path, "video.mp4"), dead[64], dead_tmp[64], live[64], err[256];
	int gate[2], status;
	struct output o;
	pid_t child, gone = dead_pid();

	/* A live process: a child blocked until we close its pipe. */
	assert_int_equal(pipe(gate), 0);
	assert_true((child = fork()) >= 0);
	if (child == 0) {
		char c;
		close(gate[1]);
		_exit(read(gate[0], &c, 1) == 0 ? 0 : 1);
	}
	close(gate[0]);
	snprintf(dead, sizeof dead, "%ld-a1B2c3.part", (long)gone);
	snprintf(dead_tmp, sizeof dead_tmp, "%ld-a1B2c3.tmp", (long)gone);
	snprintf(live, sizeof live, "%ld-a1B2c3.part", (long)child);
	make_leftover(f, "video.mp4", dead);
	make_leftover(f, "video.mp4", live);
	make_leftover(f, "other.mp4", dead);              /* another target's */
	make_leftover(f, "video.mp4", dead_tmp);          /* not ours: another suffix */
	make_leftover(f, "video.mp4", "12x-a1B2c3.part"); /* not a pid */
	make_leftover(f, "video.mp4", "0-a1B2c3.part");

	assert_int_equal(output_begin(&o, target, err, sizeof err), 0);
	assert_false(exists(f, "video.mp4", dead));
	assert_true(exists(f, "video.mp4", live));
	assert_true(exists(f, "other.mp4", dead));
	assert_true(exists(f, "video.mp4", dead_tmp));
	assert_true(exists(f, "video.mp4", "12x-a1B2c3.part"));
	assert_true(exists(f, "video.mp4", "0-a1B2c3.part"));
	output_abort(&o);
	assert_int_equal(fx_entries(f->path), 5);

	close(gate[1]);
	assert_int_equal(waitpid(child, &status, 0), child);
	free(target);
}

static void expect_refusal(const char *target, const char *says)
{
	struct output o;
	char err[512] = "";

	assert_int_equal(output_begin(&o, target, err, sizeof err), -1);
	if (!strstr(err, says))
		fail_msg("for %s: \"%s\" does not say \"%s\"", target, err, says);
	assert_null(o.tmp);
	assert_null(o.target);
	output_abort(&o);
}

static void test_unusable_targets(void **state)
{
	struct fx_folder *f = *state;
	char *missing = fx_path_in(f->path, "nowhere/video.mp4"), *file = fx_path_in(f->path, "file.txt"),
	     *under_file = fx_path_in(f->path, "file.txt/video.mp4"), *dir = fx_path_in(f->path, "sub"), *slash = fx_path_in(f->path, "sub/");

	expect_refusal(missing, "does not exist");
	fx_write_file(file, "x");
	expect_refusal(under_file, "is not a folder");
	assert_int_equal(mkdir(dir, 0700), 0);
	expect_refusal(dir, "is a folder; give the path of the video file");
	expect_refusal(slash, "names no file");
	expect_refusal("", "names no file");
	assert_int_equal(fx_entries(f->path), 2);
	free(missing);
	free(file);
	free(under_file);
	free(dir);
	free(slash);
}

/* A folder we may not write to: as root (who may write anywhere) checked
 * in a child that became nobody. */
static void test_unwritable_folder(void **state)
{
	struct fx_folder *f = *state;
	char *ro = fx_path_in(f->path, "ro"), *target = fx_path_in(f->path, "ro/video.mp4");
	int status;
	pid_t pid;

	assert_int_equal(mkdir(ro, 0755), 0);
	assert_int_equal(chmod(f->path, 0755), 0);
	if (geteuid() != 0) {
		assert_int_equal(chmod(ro, 0555), 0);
		expect_refusal(target, "cannot create a file in the folder");
	} else {
		assert_true((pid = fork()) >= 0);
		if (pid == 0) {
			struct output o;
			char err[512];
			if (setgid(65534) < 0 || setuid(65534) < 0)
				_exit(2);
			if (output_begin(&o, target, err, sizeof err) == 0)
				_exit(1);
			_exit(strstr(err, "cannot create a file in the folder") && strstr(err, "Permission denied") ? 0
															   : 3);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(fx_entries(ro), 0);
	free(ro);
	free(target);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_temporary_file, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_relative_target, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_abort_keeps_target, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_commit_replaces, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_commit_failure, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_leftovers, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_unusable_targets, fx_folder_make, fx_folder_remove),
		cmocka_unit_test_setup_teardown(test_unwritable_folder, fx_folder_make, fx_folder_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

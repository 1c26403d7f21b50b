/*
 * rmtree - remove a folder and all below it (rmtree.h).
 *
 * Everything goes through descriptors of the folders (openat, fstatat,
 * unlinkat) with O_NOFOLLOW, so a link in the folder, one that appears
 * while we work too, is removed as a name, never followed somewhere else.
 */
#include "rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Deeper than any folder we remove; a bound so recursion cannot run away. */
#define REMOVE_DEPTH_MAX 32

int hb_is_dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

DIR *hb_list_folder(int fd)
{
	int copy = dup(fd);
	DIR *d = copy < 0 ? NULL : fdopendir(copy);

	if (!d && copy >= 0)
		close(copy);
	return d;
}

/* Removes everything in the folder fd (depth levels down at most). */
static int remove_contents(int fd, const char *path, int depth, char *err, size_t errlen)
{
	DIR *d = hb_list_folder(fd);
	struct dirent *e;
	struct stat st;
	int rc = 0;

	if (!d) {
		snprintf(err, errlen, "cannot list %s to remove it: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d))) {
		if (hb_is_dot(e->d_name))
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			snprintf(err, errlen, "cannot look at %s/%s to remove it: %s", path, e->d_name, strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			int sub = depth < REMOVE_DEPTH_MAX ? openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
									    O_CLOEXEC)
							   : -1;
			if (sub < 0) {
				snprintf(err, errlen, "cannot remove the folder %s/%s: %s", path, e->d_name,
					 depth < REMOVE_DEPTH_MAX ? strerror(errno) : "it is nested too deep");
				rc = -1;
			} else {
				rc = remove_contents(sub, path, depth + 1, err, errlen);
				close(sub);
				if (rc == 0 && unlinkat(fd, e->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
					snprintf(err, errlen, "cannot remove the folder %s/%s: %s", path, e->d_name,
						 strerror(errno));
					rc = -1;
				}
			}
		} else if (unlinkat(fd, e->d_name, 0) < 0 && errno != ENOENT) {
			snprintf(err, errlen, "cannot remove %s/%s: %s", path, e->d_name, strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

int hb_remove_contents(int fd, const char *path, char *err, size_t errlen)
{
	return remove_contents(fd, path, 0, err, errlen);
}

int hb_remove_tree(const char *dir, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		/* A link or a file where the folder was: remove the name itself. */
		if ((errno == ELOOP || errno == ENOTDIR) && unlink(dir) == 0)
			return 0;
		snprintf(err, errlen, "cannot remove the folder %s: %s", dir, strerror(errno));
		return -1;
	}
	rc = hb_remove_contents(fd, dir, err, errlen);
	close(fd);
	if (rc == 0 && rmdir(dir) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "cannot remove the folder %s: %s", dir, strerror(errno));
		rc = -1;
	}
	return rc;
}

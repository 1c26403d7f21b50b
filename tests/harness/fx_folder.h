/*
 * fx_folder - a throwaway folder under /tmp for the unit tests that write
 * files (the explainer's output and encoder, its work folders), and the
 * few file helpers they share, so no test copies them.  For cmocka tests:
 * where a helper cannot do its work it fails the running test.
 */
#ifndef HB_FX_FOLDER_H
#define HB_FX_FOLDER_H

struct fx_folder {
	char path[64];
};

/* cmocka setup: *state gets a new struct fx_folder, its folder
 * /tmp/hb-test.XXXXXX made.  0, or -1. */
int fx_folder_make(void **state);
/* cmocka teardown: remove the folder and all below it, free the struct. */
int fx_folder_remove(void **state);
/* Remove path and all below it, following no symbolic link: 0, or -1. */
int fx_remove_tree(const char *path);
/* dir/name, malloc'd. */
char *fx_path_in(const char *dir, const char *name);
/* How many names dir holds besides "." and "..". */
int fx_entries(const char *dir);
/* Create or replace path with text. */
void fx_write_file(const char *path, const char *text);

#endif

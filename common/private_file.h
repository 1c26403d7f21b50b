/*
 * private_file - an SQLite database of the user's (appdata.db, the alert
 * spool) and the files SQLite keeps beside it, readable by this user
 * alone.
 *
 * SQLite creates a database 0644 (less the umask), and its -wal, -shm and
 * -journal files with the database's own mode: session titles, messages
 * and alerts were readable by every local user.  Creating the database
 * 0600 before SQLite opens it gives all of them 0600; files an older
 * version left 0644 are narrowed.
 */
#ifndef HB_PRIVATE_FILE_H
#define HB_PRIVATE_FILE_H

#include <stddef.h>

/* db_path created empty with mode 0600 when missing (SQLite takes an
 * empty file for a new database), and it and each of its -wal, -shm and
 * -journal files that exists given mode 0600 when it has other bits.
 * Symbolic links are not followed; ":memory:" and "" (SQLite's databases
 * without a file) are left alone.  0, or -1 with a sentence in err. */
int hb_db_files_private(const char *db_path, char *err, size_t errlen);

#endif

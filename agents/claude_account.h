/*
 * claude_account - the Claude accounts of page 003, "Accounts and usage".
 *
 * The default account is this computer's Claude sign-in: Claude's own
 * folder ($CLAUDE_CONFIG_DIR, else ~/.claude), used as it is.  An added
 * account is a Claude folder of its own in the data folder,
 * DATA/claude-accounts/NAME.  It keeps its own sign-in (the entries of
 * HB_CLAUDE_OWN_ENTRIES, which Claude's own `claude auth login` writes
 * there) and links every other entry to the main folder, so every account
 * reads and continues the same conversations with the same settings; a
 * switch changes only who pays for a turn.  A run is started with
 * CLAUDE_CONFIG_DIR set to its account's folder, chosen when the run
 * starts: the next run takes the active account, a running one keeps the
 * one it started with.  Nothing here reads a sign-in file: they are only
 * left out of the linking.
 */
#ifndef HB_CLAUDE_ACCOUNT_H
#define HB_CLAUDE_ACCOUNT_H

#include <stddef.h>

#include "paths.h"

#define HB_CLAUDE_ACCOUNT_DEFAULT "default"
#define HB_CLAUDE_ACCOUNT_NAME_MAX 33	/* 32 characters and the NUL */
#define HB_CLAUDE_ACCOUNTS_DIR "claude-accounts"
/* An account folder's own entries, never linked: Claude's sign-in file on
 * Linux, its state file (which holds the signed-in account), and that
 * file's backups. */
#define HB_CLAUDE_OWN_ENTRIES { ".credentials.json", ".claude.json", "backups", NULL }

/* 1 when name may name an added account: 1 to 32 of a-z 0-9 - _, starting
 * with a letter or digit, and not "default". */
int hb_claude_account_name_ok(const char *name);
/* Claude's main folder: $CLAUDE_CONFIG_DIR, else $HOME/.claude.  0, or
 * -1 with err. */
int hb_claude_main_dir(char *out, size_t outlen, char *err, size_t errlen);
/* DATA/claude-accounts/NAME (the default account has no such folder).
 * 0, or -1 with err. */
int hb_claude_account_dir(const struct hb_paths *p, const char *name, char *out, size_t outlen, char *err,
			  size_t errlen);
/* Whether the added account name exists (its folder is there). */
int hb_claude_account_exists(const struct hb_paths *p, const char *name);
/* The active account: the setting "claudeAccount" (HB_CLAUDE_ACCOUNT in
 * the environment), "default" when unset.  0, or -1 with err when it
 * names an account that does not exist or cannot be read. */
int hb_claude_account_active(const struct hb_paths *p, char *name, size_t namelen, char *err, size_t errlen);
/* Make or refresh account name's folder: create it (mode 0700) when
 * create is set, make sure the main folder has "projects", link each
 * entry of the main folder that is not an own entry and not already in
 * the account folder, and remove links of ours whose entry is gone.  An
 * entry Claude made in the account folder itself is left as it is.  0,
 * or -1 with err. */
int hb_claude_account_link(const struct hb_paths *p, const char *name, int create, char *err, size_t errlen);
/* For a run about to start: the active account's name, and the
 * CLAUDE_CONFIG_DIR to start Claude with ("" for the default account:
 * the environment stays as it is), its links refreshed.  0, or -1 with
 * err. */
int hb_claude_account_for_run(const struct hb_paths *p, char *name, size_t namelen, char *dir, size_t dirlen,
			      char *err, size_t errlen);
/* Remove an added account's folder: its own entries and its links (never
 * what a link points at).  0, or -1 with err. */
int hb_claude_account_remove(const struct hb_paths *p, const char *name, char *err, size_t errlen);

#endif

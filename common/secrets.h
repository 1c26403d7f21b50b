/*
 * secrets - the environment variables that hold the user's secrets, which
 * no process may pass on beyond the services that need them.
 *
 * The Gemini key is for svc-speech and svc-video (the broker hands it to
 * the services whose config names it, and to no other).  A bridge starts
 * the agent itself, and an agent runs the model's shell commands: a key
 * in its environment would give the model a secret the user never gave it.
 * A service that keeps a key and starts an agent of its own (svc-explainer's
 * worker) gives the agent a copy of its environment without them.
 */
#ifndef HB_SECRETS_H
#define HB_SECRETS_H

/* NULL-terminated. */
extern const char *const hb_always_secret[];

/* Removes every one of them from this process's environment (so from
 * every child's); call before any thread starts. */
void hb_forget_secrets(void);

/* A copy of env (NAME=value strings, NULL-terminated: environ or the
 * like) without the variables of hb_always_secret, nor those named in
 * also (NULL-terminated; NULL: none), for a child's envp.
 * The array and its strings are one allocation: free() it once.  NULL
 * when out of memory. */
char **hb_env_without_secrets(char *const *env, const char *const *also);

/* The nine variables a parent Claude Code session gives its children: an
 * agent host that inherits them runs as a child session, whose transcript
 * is not saved.  NULL-terminated; for hb_env_without_secrets' also. */
extern const char *const hb_claude_child_markers[];

#endif

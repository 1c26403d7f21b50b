/*
 * secrets - the environment variables that hold the user's secrets, which
 * no process may pass on beyond the services that need them.
 *
 * The Gemini key is for svc-speech and svc-video (the broker hands it to
 * the services whose config names it, and to no other).  A bridge starts
 * the agent itself, and an agent runs the model's shell commands: a key
 * in its environment would give the model a secret the user never gave it.
 */
#ifndef HB_SECRETS_H
#define HB_SECRETS_H

/* NULL-terminated. */
extern const char *const hb_always_secret[];

/* Removes every one of them from this process's environment (so from
 * every child's); call before any thread starts. */
void hb_forget_secrets(void);

#endif

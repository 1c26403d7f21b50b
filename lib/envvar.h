/*
 * envvar - integer settings from the environment (timings, pool sizes),
 * and a child's environment with one variable set (a threaded service
 * cannot setenv for one child).
 */
#ifndef HB_ENVVAR_H
#define HB_ENVVAR_H

/* The value of name when it is a whole number in [min,max], else dflt. */
int hb_getenv_int(const char *name, int dflt, int min, int max);
/* A copy of env (NULL-terminated) with name=value in place of any name=
 * it had: one allocation, freed with free(); NULL when out of memory. */
char **hb_env_with(char *const *env, const char *name, const char *value);

#endif

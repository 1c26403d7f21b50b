/*
 * envvar - integer settings from the environment (timings, pool sizes).
 */
#ifndef HB_ENVVAR_H
#define HB_ENVVAR_H

/* The value of name when it is a whole number in [min,max], else dflt. */
int hb_getenv_int(const char *name, int dflt, int min, int max);

#endif

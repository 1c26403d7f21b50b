/*
 * hbctl - the commands of the status CLI, one file a group.
 */
#ifndef HB_HBCTL_H
#define HB_HBCTL_H

#define EXIT_FAIL 1
#define EXIT_NO_BROKER 2
#define EXIT_USAGE 100

int usage(void);
/* settings.c: works on the files directly, with or without a broker. */
int cmd_settings(int argc, char **argv);

#endif

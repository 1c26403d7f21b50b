/*
 * services - find a service of the broker by its name or by a tool it
 * serves (from the config's tools lines).
 */
#ifndef HB_SERVICES_H
#define HB_SERVICES_H

#include "broker.h"

/* The service, or NULL. */
struct service *broker_service_by_name(struct broker *b, const char *name);
struct service *broker_service_by_tool(struct broker *b, const char *tool);

#endif

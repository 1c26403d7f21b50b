/*
 * services - find a service of the broker by its name or by a tool it
 * serves (from the config's tools lines), or the one that carries session
 * messages (its `ready` named a deliveryTask).
 */
#ifndef HB_SERVICES_H
#define HB_SERVICES_H

#include "broker.h"

/* The service, or NULL. */
struct service *broker_service_by_name(struct broker *b, const char *name);
struct service *broker_service_by_tool(struct broker *b, const char *tool);
/* The service a caller (a client, an agent, another service) reaches for
 * tool: NULL for an internal tool ("_name"), which only the broker calls. */
struct service *broker_service_for_caller(struct broker *b, const char *tool);
/* The ready current incarnation whose task carries session messages, or
 * NULL (none declared one, or it is restarting). */
struct instance *broker_delivery_instance(struct broker *b);
/* The ready service whose task hears of approval cards (approvalTask in
 * its ready: svc-alerts), or NULL. */
struct instance *broker_approval_instance(struct broker *b);

#endif

/*
 * store_schema.h -- SQL of each schema migration step.
 */
#ifndef TICKD_STORE_SCHEMA_H
#define TICKD_STORE_SCHEMA_H

#include <stddef.h>

extern const char *const	store_schema[];
extern const size_t		store_schema_steps;

#endif /* TICKD_STORE_SCHEMA_H */

/*
 * store_schema.h -- SQL of each schema migration step.
 */
#ifndef TICKD_STORE_SCHEMA_H
#define TICKD_STORE_SCHEMA_H

#include <stddef.h>

extern const char *const	store_schema[];
extern const size_t		store_schema_steps;
extern const char *const	store_schema_pg[];
extern const size_t		store_schema_pg_steps;
extern const size_t		store_schema_pg_base;

#endif /* TICKD_STORE_SCHEMA_H */

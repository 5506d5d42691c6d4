/*
 * registry.h - the internal side of the process-wide registry of embedded sources.
 */
#ifndef ROCJIT_REGISTRY_H
#define ROCJIT_REGISTRY_H

#include <stddef.h>

#include "rocjit.h"

/* A malloc'ed copy of the registered files' pointers, in registration order. */
int rj_registry_snapshot(const rocjit_source_file ***out, size_t *n);

#endif

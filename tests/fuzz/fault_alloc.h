/*
 * Allocation-failure injection (issue #25): the test executables that use
 * this are linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,
 * --wrap=strdup,--wrap=free (tests/fuzz/meson.build), so every allocation
 * that libprnn's objects make comes here; cJSON's are routed here too
 * (cJSON_InitHooks). Armed, the nth allocation from then on fails (NULL,
 * errno ENOMEM); always, the live allocations are counted, so a sequence
 * that frees what it allocated brings the count back. The tests' own
 * buffers come from fault_real_malloc and are neither failed nor counted.
 */
#ifndef PRNN_FAULT_ALLOC_H
#define PRNN_FAULT_ALLOC_H

#include <stddef.h>

/* Routes cJSON's allocations through the wrappers. Call once, first. */
void fault_alloc_init(void);

/* Fails the nth allocation (0-based) from now; -1 disarms. */
void fault_alloc_arm(long nth);
/* Fails the nth allocation from now and every one after it (memory has
 * run out for good); -1 disarms. */
void fault_alloc_arm_from(long nth);
/* Allocations since the last arm. */
long fault_alloc_count(void);
/* 1 when the armed failure has happened. */
int fault_alloc_fired(void);
/* Allocations made through the wrappers and not yet freed. */
long fault_alloc_live(void);

void *fault_real_malloc(size_t n);
void fault_real_free(void *p);

#endif

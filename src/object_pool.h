/*
 * Memory for the objects the API hands out (handles and descriptors), kept
 * so that using one after its Destroy is safe to detect.
 *
 * Every check of a handle or descriptor reads the magic word at its head.
 * If Destroy gave the memory back to malloc, that read after a Destroy
 * would be a use of freed memory (AddressSanitizer reports it, and the
 * allocator may have handed the bytes to anyone). Instead a destroyed
 * object's memory goes to a free list of its size, with its magic word
 * left saying "destroyed", and is only ever reused for a new object of the
 * same size: reading it stays defined. What this detects and what it does
 * not is written in prnn.h (the general rules).
 *
 * The memory kept is the most objects of each size that were alive at once.
 */
#ifndef PRNN_OBJECT_POOL_H
#define PRNN_OBJECT_POOL_H

#include <stddef.h>

/* size zeroed bytes, or NULL when out of memory. */
void *prnn_object_alloc(size_t size);

/* Takes back an object of size bytes from prnn_object_alloc, leaving its
 * contents as they are (the caller has marked it destroyed). */
void prnn_object_release(void *p, size_t size);

/* For the allocation-failure tests only (tests/fuzz): the number of objects
 * the free lists hold (each one a live allocation that is not a leak), and
 * a way to free them so that the next creations allocate again. After a
 * trim, a destroyed object's pointer is no longer detected as destroyed:
 * never called by the library. */
size_t prnn_object_pool_count(void);
void prnn_object_pool_trim(void);

#endif

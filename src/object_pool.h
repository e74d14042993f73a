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

#endif

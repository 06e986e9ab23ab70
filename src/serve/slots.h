/*
 * slots.h — the work slots of `gpuecon serve`: at most `running` API requests compute at once; a
 * request that finds them all taken waits in a first-come queue of at most `depth` requests for at
 * most `wait_s` seconds, and is refused (the caller answers 503 with Retry-After) when the queue
 * is full, when its wait runs out, or when the server starts shutting down.
 */
#ifndef GPUECON_SERVE_SLOTS_H
#define GPUECON_SERVE_SLOTS_H

#include <pthread.h>
#include <stdbool.h>

typedef struct slot_waiter slot_waiter;

typedef struct slots {
    pthread_mutex_t mu;
    int running, max_running; /* requests computing; the --max-concurrent cap */
    int waiting, max_waiting; /* requests queued; the --queue-depth cap */
    double wait_s;            /* the longest a request waits in the queue (--queue-wait) */
    bool closed;              /* shutting down: the queue is emptied and no request may join */
    slot_waiter *head, *tail; /* the queue, first come first */
} slots;

typedef enum slot_result {
    SLOT_TAKEN,   /* the caller holds a slot: call slots_release when its work is done */
    SLOT_FULL,    /* every slot busy and the queue full: refused at once */
    SLOT_TIMEOUT, /* waited wait_s in the queue without a slot */
    SLOT_CLOSED   /* the server is shutting down */
} slot_result;

/* Sets up the slots; 0 on success. max_running >= 1, max_waiting >= 0, wait_s >= 0. */
int slots_init(slots *s, int max_running, int max_waiting, double wait_s);
void slots_destroy(slots *s);
/* Takes a slot, waiting in the queue when none is free (see slot_result). *waited_s: the time
 * spent in the queue. Thread-safe. */
slot_result slots_acquire(slots *s, double *waited_s);
/* Gives a slot back: the first request in the queue, if any, takes it at once. */
void slots_release(slots *s);
/* Closes the queue (at shutdown): every queued request is refused with SLOT_CLOSED, and so is every
 * later one that finds no free slot. */
void slots_close(slots *s);
/* Requests computing now, and queued now (for the shutdown wait and tests). */
int slots_running(slots *s);
int slots_waiting(slots *s);

#endif

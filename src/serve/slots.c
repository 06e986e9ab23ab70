/*
 * slots.c — the work slots and the bounded queue of `gpuecon serve` (slots.h).
 *
 * Key choice: a queued request waits on a condition variable of its own, in a linked list kept
 * in arrival order, and a released slot is handed to the list's head directly (running stays
 * at the cap), so no later request can take a slot an earlier one waits for, and a wait ends by
 * exactly one of: handed a slot, its deadline (it unlinks itself), or the queue closing.
 */
#include "slots.h"

#include <errno.h>
#include <time.h>

struct slot_waiter {
    pthread_cond_t cv;
    slot_waiter *next;
    enum { WAITING, HANDED, REFUSED } state;
};

int slots_init(slots *s, int max_running, int max_waiting, double wait_s)
{
    *s = (slots){.max_running = max_running, .max_waiting = max_waiting, .wait_s = wait_s};
    return pthread_mutex_init(&s->mu, NULL);
}

void slots_destroy(slots *s)
{
    pthread_mutex_destroy(&s->mu);
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* Unlinks w from the queue (it is in it). Caller holds the mutex. */
static void unlink_waiter(slots *s, slot_waiter *w)
{
    slot_waiter **pp = &s->head, *prev = NULL;
    while (*pp && *pp != w) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (!*pp)
        return;
    *pp = w->next;
    if (s->tail == w)
        s->tail = prev;
    s->waiting--;
}

slot_result slots_acquire(slots *s, double *waited_s)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    *waited_s = 0;
    pthread_mutex_lock(&s->mu);
    if (s->running < s->max_running && !s->head) {
        s->running++;
        pthread_mutex_unlock(&s->mu);
        return SLOT_TAKEN;
    }
    if (s->closed || s->waiting >= s->max_waiting) {
        slot_result r = s->closed ? SLOT_CLOSED : SLOT_FULL;
        pthread_mutex_unlock(&s->mu);
        return r;
    }
    slot_waiter w = {.next = NULL, .state = WAITING};
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w.cv, &ca);
    pthread_condattr_destroy(&ca);
    if (s->tail)
        s->tail->next = &w;
    else
        s->head = &w;
    s->tail = &w;
    s->waiting++;
    struct timespec deadline = t0;
    double whole = (double)(long)s->wait_s;
    deadline.tv_sec += (time_t)whole;
    deadline.tv_nsec += (long)((s->wait_s - whole) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    while (w.state == WAITING)
        if (pthread_cond_timedwait(&w.cv, &s->mu, &deadline) == ETIMEDOUT && w.state == WAITING) {
            unlink_waiter(s, &w);
            break;
        }
    slot_result r = w.state == HANDED ? SLOT_TAKEN : w.state == REFUSED ? SLOT_CLOSED : SLOT_TIMEOUT;
    pthread_mutex_unlock(&s->mu);
    pthread_cond_destroy(&w.cv);
    *waited_s = since(&t0);
    return r;
}

void slots_release(slots *s)
{
    pthread_mutex_lock(&s->mu);
    slot_waiter *w = s->head;
    if (w) { /* the slot passes to the first in the queue: running stays the same */
        s->head = w->next;
        if (!s->head)
            s->tail = NULL;
        s->waiting--;
        w->state = HANDED;
        pthread_cond_signal(&w->cv);
    } else {
        s->running--;
    }
    pthread_mutex_unlock(&s->mu);
}

void slots_close(slots *s)
{
    pthread_mutex_lock(&s->mu);
    s->closed = true;
    for (slot_waiter *w = s->head, *next; w; w = next) {
        next = w->next;
        w->state = REFUSED;
        pthread_cond_signal(&w->cv);
    }
    s->head = s->tail = NULL;
    s->waiting = 0;
    pthread_mutex_unlock(&s->mu);
}

int slots_running(slots *s)
{
    pthread_mutex_lock(&s->mu);
    int n = s->running;
    pthread_mutex_unlock(&s->mu);
    return n;
}

int slots_waiting(slots *s)
{
    pthread_mutex_lock(&s->mu);
    int n = s->waiting;
    pthread_mutex_unlock(&s->mu);
    return n;
}

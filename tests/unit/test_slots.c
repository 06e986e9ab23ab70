/*
 * test_slots.c — the work slots and bounded queue of `gpuecon serve` (src/serve/slots.c): a
 * request beyond the slots is refused at once when the queue is full, waits at most the queue
 * wait, takes slots in arrival order (a released slot goes to the first in the queue, never to a
 * later one), and is refused when the queue closes at shutdown.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "slots.h"

#include <pthread.h>
#include <time.h>

/* Sleeps until count(s) is want, or 10 s pass (then the assertion after it fails). */
static void wait_for(slots *s, int (*count)(slots *), int want)
{
    struct timespec tick = {0, 2 * 1000 * 1000};
    for (int i = 0; i < 5000 && count(s) != want; i++)
        nanosleep(&tick, NULL);
    assert_int_equal(count(s), want);
}

/* One slot, no queue: the second request is refused at once (SLOT_FULL, no wait). */
static void test_full(void **state)
{
    (void)state;
    slots s;
    assert_int_equal(slots_init(&s, 1, 0, 5.0), 0);
    double waited = -1;
    assert_int_equal(slots_acquire(&s, &waited), SLOT_TAKEN);
    assert_int_equal(slots_acquire(&s, &waited), SLOT_FULL);
    assert_true(waited < 0.1);
    slots_release(&s);
    assert_int_equal(slots_acquire(&s, &waited), SLOT_TAKEN);
    slots_release(&s);
    assert_int_equal(slots_running(&s), 0);
    slots_destroy(&s);
}

typedef struct waiter_arg {
    slots *s;
    int id;
    slot_result got;
    double waited;
    pthread_mutex_t *mu;
    int *order, *n;
} waiter_arg;

/* Waits for a slot; on one, appends its id to the order and gives the slot back. */
static void *waiter(void *p)
{
    waiter_arg *a = p;
    a->got = slots_acquire(a->s, &a->waited);
    if (a->got == SLOT_TAKEN) {
        pthread_mutex_lock(a->mu);
        a->order[(*a->n)++] = a->id;
        pthread_mutex_unlock(a->mu);
        slots_release(a->s);
    }
    return NULL;
}

/* One slot held, a 0.2 s queue wait: the queued request is refused after 0.2 s (measured 0.2 s
 * up to 2 s on a loaded machine), and leaves the queue. */
static void test_timeout(void **state)
{
    (void)state;
    slots s;
    assert_int_equal(slots_init(&s, 1, 2, 0.2), 0);
    double waited;
    assert_int_equal(slots_acquire(&s, &waited), SLOT_TAKEN);
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    int order[1], n = 0;
    waiter_arg a = {&s, 1, SLOT_TAKEN, 0, &mu, order, &n};
    pthread_t t;
    pthread_create(&t, NULL, waiter, &a);
    pthread_join(t, NULL);
    assert_int_equal(a.got, SLOT_TIMEOUT);
    assert_true(a.waited >= 0.199 && a.waited < 2.0);
    assert_int_equal(slots_waiting(&s), 0);
    assert_int_equal(n, 0);
    slots_release(&s);
    slots_destroy(&s);
}

/* One slot held; three requests queue one after another (1, 2, 3), a fourth finds the 3-deep
 * queue full. Released, the slot passes 1 -> 2 -> 3 in that order, and a request that arrives
 * while they wait does not overtake them. */
static void test_fifo(void **state)
{
    (void)state;
    slots s;
    assert_int_equal(slots_init(&s, 1, 3, 30.0), 0);
    double waited;
    assert_int_equal(slots_acquire(&s, &waited), SLOT_TAKEN);
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    int order[3] = {0}, n = 0;
    waiter_arg a[3];
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        a[i] = (waiter_arg){&s, i + 1, SLOT_FULL, 0, &mu, order, &n};
        pthread_create(&t[i], NULL, waiter, &a[i]);
        wait_for(&s, slots_waiting, i + 1);
    }
    assert_int_equal(slots_acquire(&s, &waited), SLOT_FULL);
    slots_release(&s);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 3; i++)
        assert_int_equal(a[i].got, SLOT_TAKEN);
    assert_int_equal(n, 3);
    assert_int_equal(order[0], 1);
    assert_int_equal(order[1], 2);
    assert_int_equal(order[2], 3);
    assert_int_equal(slots_running(&s), 0);
    assert_int_equal(slots_waiting(&s), 0);
    slots_destroy(&s);
}

/* Two slots, both held, two queued: closing the queue refuses both at once (SLOT_CLOSED) and
 * every later request that finds no free slot; the running ones finish as before. */
static void test_close(void **state)
{
    (void)state;
    slots s;
    assert_int_equal(slots_init(&s, 2, 4, 30.0), 0);
    double waited;
    assert_int_equal(slots_acquire(&s, &waited), SLOT_TAKEN);
    assert_int_equal(slots_acquire(&s, &waited), SLOT_TAKEN);
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    int order[2], n = 0;
    waiter_arg a[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        a[i] = (waiter_arg){&s, i + 1, SLOT_TAKEN, 0, &mu, order, &n};
        pthread_create(&t[i], NULL, waiter, &a[i]);
        wait_for(&s, slots_waiting, i + 1);
    }
    slots_close(&s);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(a[i].got, SLOT_CLOSED);
        assert_true(a[i].waited < 10.0);
    }
    assert_int_equal(n, 0);
    assert_int_equal(slots_acquire(&s, &waited), SLOT_CLOSED);
    assert_int_equal(slots_running(&s), 2);
    slots_release(&s);
    slots_release(&s);
    assert_int_equal(slots_running(&s), 0);
    slots_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

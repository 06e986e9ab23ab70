/*
 * rng.h — xoshiro256** (Blackman & Vigna 2018), seeded by splitmix64 from (seed, stream), for
 * every Monte Carlo of the library (sim.c, infer_sim.c): one generator per independent trial
 * or replication, so results never depend on the thread count.
 */
#ifndef GPUECON_RNG_H
#define GPUECON_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct rng {
    uint64_t s[4];
} rng;

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t splitmix64(uint64_t *x)
{
    return mix64(*x += 0x9e3779b97f4a7c15ULL);
}

static inline void rng_seed(rng *r, uint64_t seed, uint64_t trial)
{
    uint64_t x = mix64(seed + 0x9e3779b97f4a7c15ULL) ^ mix64(trial + 0x632be59bd9b4e019ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

static inline double rng_u01(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static inline int rng_below(rng *r, int n) /* uniform in [0, n), n < 2^31 */
{
    return (int)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

static inline double rng_exp(rng *r, double rate)
{
    return -log1p(-rng_u01(r)) / rate;
}

#endif

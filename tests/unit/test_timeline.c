/*
 * test_timeline.c — ISO dates and runs over a throughput timeline, against hand-derived days.
 */
#include "core.h"
#include "test_util.h"

#include <math.h>

static void test_dates(void **state)
{
    (void)state;
    long d = 0;
    char buf[11];
    assert_true(gpuecon_date_parse("1970-01-01", &d));
    assert_int_equal(d, 0);
    assert_true(gpuecon_date_parse("2025-05", &d)); /* the month's first day */
    long may = d;
    assert_true(gpuecon_date_parse("2025-07-01", &d));
    assert_int_equal(d - may, 31 + 30); /* May and June */
    assert_true(gpuecon_date_parse("2024-03-01", &d));
    long mar = d;
    assert_true(gpuecon_date_parse("2024-02-29", &d)); /* 2024 is a leap year */
    assert_int_equal(mar - d, 1);
    gpuecon_date_format(may + 27, buf, sizeof buf);
    assert_string_equal(buf, "2025-05-28");
    const char *bad[] = {"2025-13", "yesterday", "2025-02-29", "2025-5", "2025-05-1", "1969-12-31", "2025/05",
                         "2025-00", "2025-04-31", "", "2025-05-01x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(gpuecon_date_parse(bad[i], &d));
    assert_false(gpuecon_date_parse(NULL, &d));
}

static void test_run(void **state)
{
    (void)state;
    gpuecon_timeline_point p[2] = {{0}};
    p[0].day = 100;
    p[0].tokens_per_s_per_gpu = 600;
    p[1].day = 131;
    p[1].tokens_per_s_per_gpu = 1200;
    bool used[2];
    /* 1 token per day per tok/s/GPU: 600 a day for 31 days (18,600), then 1,200 a day */
    double eq = timeline_run(p, 2, 100, 0, 30000, 1, used);
    double days = 31 + (30000 - 18600) / 1200.0; /* 40.5 */
    assert_close(30000 / eq, days, 1e-9);
    assert_true(used[0] && used[1]);
    /* inside the first step only */
    eq = timeline_run(p, 2, 100, 0, 6000, 1, used);
    assert_close(eq, 600, 1e-9);
    assert_true(used[0] && !used[1]);
    /* before the first point: the default throughput, then the steps */
    eq = timeline_run(p, 2, 90, 300, 3000 + 18600, 1, used);
    assert_close((3000 + 18600) / eq, 10 + 31, 1e-9);
    assert_true(isnan(timeline_run(p, 2, 90, 0, 1000, 1, used)));
    /* interpolation: halfway between the points */
    assert_close(timeline_interp(p, 2, 100 + 31 / 2, 0), 600 + 600 * (15.0 / 31), 1e-9);
    assert_close(timeline_interp(p, 2, 500, 0), 1200, 0);
    assert_int_equal(timeline_in_force(p, 2, 99), -1);
    assert_int_equal(timeline_in_force(p, 2, 131), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_dates), cmocka_unit_test(test_run)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

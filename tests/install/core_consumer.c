/* SPDX-License-Identifier: MIT */
/* Uses the installed C core: cast four ci8 samples to cf32 on the CPU. */
#include <blade/blade.h>

#include <stdio.h>

int main(void)
{
    const signed char in[8] = { 1, -2, 3, -4, 5, -6, 7, -8 };
    float out[8];
    const blade_shape shape = blade_shape_aftp(1, 1, 4, 1);
    const blade_cast_config config = { BLADE_CI8, BLADE_CF32 };
    blade_cast* cast;
    if (blade_cast_create(&cast, &config, &shape, blade_device_cpu()) != BLADE_OK) {
        fprintf(stderr, "%s\n", blade_last_error());
        return 1;
    }
    blade_tensor input = blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), (void*)in);
    blade_tensor output = blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), out);
    if (blade_cast_process(cast, &input, &output, NULL) != BLADE_OK)
        return 1;
    blade_cast_destroy(cast);
    for (int i = 0; i < 8; i++)
        if (out[i] != (float)in[i])
            return 1;
    printf("libblade %s: cast OK\n", blade_version());
    return 0;
}

/* 2-D Jacobi relaxation on a square grid, with a residual reduction.
 * origin: written for accls, modelled on the PolyBench jacobi-2d kernel and the
 * OpenACC training "Laplace" exercise. licence: BSD-3-Clause (this project).
 * Try: accls suggest examples/jacobi2d.c   (or --model openmp)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 512
#define ITERS 100

static double A[N][N];
static double Anew[N][N];

static void init(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = (i == 0) ? 1.0 : 0.0;
}

static double relax(void)
{
    double err = 0.0;
    for (int i = 1; i < N - 1; i++) {
        for (int j = 1; j < N - 1; j++) {
            Anew[i][j] = 0.25 * (A[i][j + 1] + A[i][j - 1] + A[i - 1][j] + A[i + 1][j]);
            err = fmax(err, fabs(Anew[i][j] - A[i][j]));
        }
    }
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            A[i][j] = Anew[i][j];
    return err;
}

/* The running total makes this loop sequential: accls refuses it and says why. */
static void prefix_rows(double *restrict out, int n)
{
    out[0] = A[0][0];
    for (int i = 1; i < n; i++)
        out[i] = out[i - 1] + A[i][0];
}

int main(void)
{
    double prefix[N];
    double err = 1.0;
    int iter = 0;
    init();
    while (err > 1e-6 && iter < ITERS) {
        err = relax();
        iter++;
    }
    prefix_rows(prefix, N);
    printf("%d iterations, error %.6e, prefix %.6e\n", iter, err, prefix[N - 1]);
    return EXIT_SUCCESS;
}

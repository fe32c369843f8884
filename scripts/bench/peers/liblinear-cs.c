/*
 * liblinear-cs: LIBLINEAR's Crammer-Singer solver (-s 4) on a LIBSVM file, timed (scripts/bench/liblinear.ts).
 *
 *   liblinear-cs TRAIN C EPS REPEATS WOUT
 *
 * Reads TRAIN as liblinear-train does (features 1..n, no bias term), calls train() REPEATS times with srand(1) before
 * each (liblinear-train never seeds rand(), so each repeat is its run), and prints one JSON line per repeat with the
 * CPU seconds of train() alone (CLOCK_PROCESS_CPUTIME_ID). The last model's w is written to WOUT as little-endian
 * float64 in gapbcfw's multiclass layout: class-major (class c owns w[c*n .. c*n+n)), classes in increasing label value.
 * Builds with `cc -O2 liblinear-cs.c -llinear` against Debian's liblinear-dev.
 */
#include <linear.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void quiet(const char *s) { (void)s; }

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Appends to a growing array; exits on allocation failure. */
static void *grow(void *p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return p;
  while (*cap < need) *cap = *cap ? 2 * *cap : 1024;
  p = realloc(p, *cap * size);
  if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
  return p;
}

/* The rows of a LIBSVM file: labels, and feature nodes with each row ended by index -1. */
static void read_libsvm(const char *path, struct problem *prob) {
  FILE *f = fopen(path, "r");
  if (!f) { perror(path); exit(1); }
  size_t rows = 0, rcap = 0, nodes = 0, ncap = 0, *start = NULL, scap = 0;
  double *y = NULL;
  struct feature_node *x = NULL;
  char *line = NULL;
  size_t len = 0;
  int maxidx = 0;
  while (getline(&line, &len, f) != -1) {
    char *p = line, *end;
    double label = strtod(p, &end);
    if (end == p) continue; /* blank or comment */
    y = grow(y, &rcap, rows + 1, sizeof *y);
    start = grow(start, &scap, rows + 1, sizeof *start);
    y[rows] = label;
    start[rows] = nodes;
    p = end;
    for (;;) {
      long idx = strtol(p, &end, 10);
      if (end == p || *end != ':') break;
      double v = strtod(end + 1, &p);
      x = grow(x, &ncap, nodes + 1, sizeof *x);
      x[nodes].index = (int)idx;
      x[nodes++].value = v;
      if (idx > maxidx) maxidx = (int)idx;
    }
    x = grow(x, &ncap, nodes + 1, sizeof *x);
    x[nodes++].index = -1;
    rows++;
  }
  fclose(f);
  free(line);
  prob->l = (int)rows;
  prob->n = maxidx;
  prob->y = y;
  prob->bias = -1;
  prob->x = malloc(rows * sizeof *prob->x);
  for (size_t r = 0; r < rows; r++) prob->x[r] = x + start[r];
  free(start);
}

static int by_value(const void *a, const void *b) {
  const double u = *(const double *)a, v = *(const double *)b;
  return (u > v) - (u < v);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: liblinear-cs TRAIN C EPS REPEATS WOUT\n");
    return 2;
  }
  struct problem prob;
  read_libsvm(argv[1], &prob);
  struct parameter param;
  memset(&param, 0, sizeof param);
  param.solver_type = MCSVM_CS;
  param.C = atof(argv[2]);
  param.eps = atof(argv[3]);
  set_print_string_function(quiet);
  const char *err = check_parameter(&prob, &param);
  if (err) { fprintf(stderr, "%s\n", err); return 1; }
  struct model *m = NULL;
  for (int r = 0; r < atoi(argv[4]); r++) {
    if (m) free_and_destroy_model(&m);
    srand(1);
    const double t0 = cpu_seconds();
    m = train(&prob, &param);
    printf("{\"trainCpu\":%.6f}\n", cpu_seconds() - t0);
  }
  const int K = m->nr_class, n = prob.n;
  double *labels = malloc(K * sizeof *labels);
  for (int k = 0; k < K; k++) labels[k] = m->label[k];
  qsort(labels, K, sizeof *labels, by_value);
  double *w = calloc((size_t)K * n, sizeof *w);
  for (int c = 0; c < K; c++) {
    int k = 0;
    while (m->label[k] != labels[c]) k++;
    for (int j = 0; j < n; j++) w[(size_t)c * n + j] = m->w[(size_t)j * K + k];
  }
  FILE *out = fopen(argv[5], "wb");
  if (!out || fwrite(w, sizeof *w, (size_t)K * n, out) != (size_t)K * n) { perror(argv[5]); return 1; }
  fclose(out);
  return 0;
}

/* Embeds its arguments with the model folder given first and prints each
   vector's first values and its squared norm: enough to show that an installed
   Sieve links and runs, whichever way it was found. */
#include <sieve.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(sieve_status* status) {
  fprintf(stderr, "consumer: %s: %s\n", sieve_status_code_name(sieve_status_get_code(status)),
          sieve_status_message(status));
  sieve_status_destroy(status);
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: consumer MODEL_DIR TEXT...\n");
    return 2;
  }
  if (sieve_abi_version() != SIEVE_ABI_VERSION) {
    fprintf(stderr, "consumer: ABI %u, built for %d\n", sieve_abi_version(), SIEVE_ABI_VERSION);
    return 1;
  }
  sieve_model* model = NULL;
  sieve_status* status = sieve_model_load(argv[1], NULL, &model);
  if (status) return fail(status);
  const size_t count = (size_t)(argc - 2);
  sieve_text* texts = calloc(count, sizeof *texts);
  size_t floats = 0;
  status = sieve_embed_size(model, count, &floats);
  float* vectors = malloc(floats * sizeof *vectors);
  if (!texts || !vectors || status) {
    free(texts);
    free(vectors);
    sieve_model_destroy(model);
    return status ? fail(status) : 1;
  }
  for (size_t i = 0; i < count; ++i) {
    texts[i].data = argv[i + 2];
    texts[i].size = strlen(argv[i + 2]);
  }
  status = sieve_embed(model, texts, count, vectors, floats);
  if (!status) {
    const size_t dimension = floats / count;
    for (size_t i = 0; i < count; ++i) {
      double norm = 0;
      for (size_t j = 0; j < dimension; ++j) norm += (double)vectors[i * dimension + j] * vectors[i * dimension + j];
      printf("%zu %.6f %.6f squared-norm %.4f\n", dimension, vectors[i * dimension], vectors[i * dimension + 1], norm);
    }
  }
  free(texts);
  free(vectors);
  sieve_model_destroy(model);
  return status ? fail(status) : 0;
}

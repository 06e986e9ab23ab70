/* hf.h — Hugging Face config.json files read as models (hf.c). */
#ifndef GPUECON_HF_H
#define GPUECON_HF_H

#include "yaml.h"

/* Whether the document is a Hugging Face config (a mapping with "architectures" or "model_type"). */
bool hf_is_config(const yaml_doc *doc);
/* The model-file YAML (docs/catalog.md) of the config, into yaml (initialised here, through ctx's
 * allocator; the caller sb_frees it after a success, nothing to free after an error). path names
 * the file (errors, the model's name when the config has no _name_or_path). Errors name the
 * config.json field at its position. */
int hf_model_yaml(gpuecon_ctx *ctx, const yaml_doc *doc, const char *path, strbuf *yaml, gpuecon_error *err);

#endif

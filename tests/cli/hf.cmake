# Command-line contract, part 'hf' (run by CTest as cli_hf): Hugging Face config.json files as
# --model-file (tests/cases/hf/, the configs of public models; their parameter counts are
# checked in tests/unit/test_hf.c).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# --model may be omitted; the name comes from _name_or_path
run(0 train --model-file ${SRC}/tests/cases/hf/llama-3.1-8b.json --system hgx-h100 --gpus 8 --seq 8192 --gbs 64 --json)
string(JSON name GET "${OUT}" model)
if(NOT name STREQUAL "meta-llama/Llama-3.1-8B")
  message(FATAL_ERROR "model name '${name}'")
endif()
# the file's stem without _name_or_path; an MoE with sliding windows serves
run(0 infer --model-file ${SRC}/tests/cases/hf/gpt-oss-120b.json --system hgx-h100 --weights fp8 --json)
string(JSON name GET "${OUT}" model)
if(NOT name STREQUAL "gpt-oss-120b")
  message(FATAL_ERROR "model name '${name}'")
endif()
# the catalog's gpt-oss-120b and qwen3-30b-a3b are the same models as their config.json files
foreach(m gpt-oss-120b qwen3-30b-a3b)
  run(0 train --model-file ${SRC}/tests/cases/hf/${m}.json --system hgx-h100 --gpus 64 --seq 4096 --gbs 512 --tp 1
      --pp 1 --json)
  string(JSON f_hf GET "${OUT}" model_flops_per_token)
  string(JSON t_hf GET "${OUT}" tokens_per_s_per_gpu)
  run(0 train --model ${m} --system hgx-h100 --gpus 64 --seq 4096 --gbs 512 --tp 1 --pp 1 --json)
  json_near(model_flops_per_token ${f_hf} 1e-9)
  json_near(tokens_per_s_per_gpu ${t_hf} 1e-9)
endforeach()
run(0 catalog models gemma-3-27b --model-file ${SRC}/tests/cases/hf/gemma-3-27b.json)
expect_out("Gemma3ForConditionalGeneration")

# an id or a path given as --model points to --model-file
run(2 train --model meta-llama/Llama-3.1-8B --system hgx-h100 --gpus 8 --seq 8192 --gbs 64)
expect_err("--model: 'meta-llama/Llama-3.1-8B' is not a catalog model; for a Hugging Face model give its config.json with --model-file FILE")
run(2 infer --model config.json --system hgx-h100)
expect_err("--model-file FILE")

# other architectures are refused with the known ones; bad fields are named with their line
file(WRITE bert.json "{\"architectures\": [\"BertForMaskedLM\"], \"hidden_size\": 768}\n")
run(2 catalog models --model-file bert.json)
expect_err("bert.json:1:21: architectures: 'BertForMaskedLM' is not supported \\(known: LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM, DeepseekV3ForCausalLM, Gemma2ForCausalLM, Gemma3ForCausalLM, Gemma3ForConditionalGeneration, GptOssForCausalLM\\)")
file(WRITE kv.json "{\"architectures\": [\"MistralForCausalLM\"],\n \"hidden_size\": 4096, \"num_hidden_layers\": 32,\n"
     " \"num_attention_heads\": 32, \"num_key_value_heads\": 6,\n \"intermediate_size\": 14336, \"vocab_size\": 32000}\n")
run(2 catalog models --model-file kv.json)
expect_err("kv.json:3:52: num_key_value_heads \\(6\\) must divide num_attention_heads \\(32\\)")
file(WRITE nolayers.json "{\"architectures\": [\"Qwen3ForCausalLM\"], \"hidden_size\": 4096}\n")
run(2 catalog models --model-file nolayers.json)
expect_err("nolayers.json:1:3: num_hidden_layers is required in a Qwen3ForCausalLM config.json")

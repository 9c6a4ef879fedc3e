// Package tokenizer is the simulator's tokenizer and the text of its
// generated tokens. It is deterministic and documented so that a load
// generator can synthesise prompts of an exact length without a model
// tokenizer: each maximal run of non-whitespace characters is one token, and
// its id is 1000 + FNV-1a-32(word) mod (128256 − 1000), so ids fall in
// [1000, 128256) like Llama 3's vocabulary. Token-id prompts are taken as
// they are: their length is the number of ids.
//
// Chat prompts are rendered through a fixed template: every message costs
// its content's tokens plus 4 (a header-start, a role, a header-end and an
// end-of-turn token), and the prompt ends with 2 more (the assistant header).
// So a chat prompt has Σ(content tokens + 4) + 2 tokens, on the API and on
// POST /tokenize alike.
//
// It is not a real model's tokenizer: a real server counts the same text
// differently. Use it to build prompts for vllmsim; against a real server,
// ask its POST /tokenize.
package tokenizer

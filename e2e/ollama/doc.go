// Package ollamae2e runs llmslo end to end against a real server that
// nobody here wrote: Ollama, built from its Go module at the version this
// module's go.mod requires (the one place it is pinned), serving a tiny
// llama model written through Ollama's own GGUF package.
//
// It is a module of its own, so that Ollama's dependencies never enter
// llmslo's go.mod. Its tests build the binary with cgo (Ollama's CPU
// backend is C and C++) into a cache directory keyed by version, reused
// when present: about a minute and a half on two cores, several minutes
// more the first time the module proxy is read. A pinned version that
// stops building fails the tests, saying so; they never skip.
//
//	cd e2e/ollama && go test -timeout 30m ./...
package ollamae2e

// Package vllmcaptures holds responses of real vLLM servers, collected
// from public sources, as the contract the client, the scraper and the
// simulator are tested against. testdata/README.md names each capture's source and
// the vLLM version it came from; nothing here was written by this project
// except where that README says a capture was rendered from vLLM's source.
package vllmcaptures

import (
	"embed"
	"io/fs"
)

//go:embed testdata/*.sse testdata/*.json testdata/*.txt
var files embed.FS

// Read returns a capture's bytes; it panics on a name that is not one,
// which is a test's own mistake.
func Read(name string) []byte {
	b, err := fs.ReadFile(files, "testdata/"+name)
	if err != nil {
		panic("vllmcaptures: " + err.Error())
	}
	return b
}

// Names lists every capture, in name order.
func Names() []string {
	entries, err := fs.ReadDir(files, "testdata")
	if err != nil {
		panic("vllmcaptures: " + err.Error())
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

package main

import (
	"io"
	"os"

	"github.com/llmslo/llmslo/internal/progress"
	"golang.org/x/term"
)

// progressFor shows progress on stderr: one live line per running step
// when stderr is a terminal, cut to its width; a line every 10 s and one
// per step's end when it is not (CI, a pipe, a file), where a redrawn line
// would pile up frame after frame.
func progressFor(stderr io.Writer) *progress.Writer {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return progress.Plain(stderr)
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		width = 0 // unknown: lines are not cut
	}
	return progress.Terminal(stderr, progress.WithWidth(width))
}

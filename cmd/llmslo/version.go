package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

func init() {
	register("version", command{summary: "print the module version (also llmslo --version)", run: versionCmd})
}

func versionCmd(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmslo version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 {
		return unexpectedArg("llmslo version", fs, args, stderr)
	}
	fmt.Fprintln(stdout, "llmslo "+version())
	return exitPass
}

// version is the module version the binary was built from: "(devel)"
// from a checkout, with the VCS revision when the build recorded one.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	return versionOf(info)
}

// versionOf is version's text for one build's information.
func versionOf(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += " (revision " + rev + dirty + ")"
	}
	return v
}

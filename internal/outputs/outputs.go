// Package outputs checks, before a run sends its first request, that each
// file the run will write can be written: a face's setup mistake found
// before the load, not after it. Both faces (slotest and the command) use
// it; package load writes no file of the face's.
package outputs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CheckWritable reports why path could not be written as a file: it is a
// directory, a parent is a file, or a directory refuses writes. An
// existing file is opened without truncation; a new one is probed with a
// temporary file in the nearest existing directory, then removed. The faces
// call it on every file a run will write, before the first request.
func CheckWritable(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return errors.New("is a directory, not a file")
	case err == nil:
		file, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return file.Close()
	case !missing(err):
		return err
	}
	dir := filepath.Dir(path)
	for {
		st, err := os.Stat(dir)
		if err == nil && !st.IsDir() {
			return fmt.Errorf("%s is a file, not a directory", dir)
		}
		if err == nil {
			break
		}
		if !missing(err) {
			return err
		}
		dir = filepath.Dir(dir)
	}
	probe, err := os.CreateTemp(dir, ".llmslo-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// missing reports whether err says a path, or a directory on it, is not
// there (ENOTDIR: a file stands where a directory would be).
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

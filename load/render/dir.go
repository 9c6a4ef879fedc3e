package render

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmslo/llmslo/load/report"
)

// WriteDir writes the report into dir as report.json and report.html, and
// each step's latency histograms as an HDR log (STEP.hlog): the report
// directory of a gate (slotest's -artifacts or SLOTEST_REPORT_DIR). It
// returns the JSON report's path.
func WriteDir(r *report.Report, dir string) (string, error) {
	path := filepath.Join(dir, "report.json")
	if err := r.WriteJSON(path); err != nil {
		return path, err
	}
	if err := WriteHTMLFile(filepath.Join(dir, "report.html"), r); err != nil {
		return path, err
	}
	for i := range r.Steps {
		st := &r.Steps[i]
		if st.Histograms == nil {
			continue // a step read back from JSON
		}
		var b bytes.Buffer
		if err := st.WriteHDRLog(&b, r.StartedAt); err != nil {
			return path, err
		}
		name := strings.NewReplacer("/", "_", "=", "-", " ", "_").Replace(st.Name) + ".hlog"
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			return path, fmt.Errorf("write hdr log: %w", err)
		}
	}
	return path, nil
}

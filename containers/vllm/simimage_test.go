package vllm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stringLogs is a logSource over fixed text.
type stringLogs string

func (s stringLogs) Logs(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader(string(s))), nil
}

func TestReadBuildStream(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantLog string
		wantErr string
	}{
		{
			name:    "success",
			in:      `{"stream":"Step 1/2 : FROM scratch\n"}` + "\n" + `{"stream":" ---\u003e Running\n"}{"aux":{"ID":"sha256:1"}}`,
			wantLog: "Step 1/2 : FROM scratch\n ---> Running\n",
		},
		{
			name:    "error detail",
			in:      `{"stream":"Step 1/2\n"}{"errorDetail":{"message":"COPY failed: file not found"},"error":"COPY failed"}{"stream":"never"}`,
			wantLog: "Step 1/2\n",
			wantErr: "COPY failed: file not found",
		},
		{name: "bare error", in: `{"error":"no space left"}`, wantErr: "no space left"},
		{name: "garbage", in: `{"stream":"ok"} not json`, wantLog: "ok", wantErr: "reading build output"},
		{name: "empty", in: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log strings.Builder
			err := readBuildStream(strings.NewReader(tt.in), &log)
			assert.Equal(t, tt.wantLog, log.String())
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func FuzzReadBuildStream(f *testing.F) {
	f.Add("Step 1/2 : FROM scratch\n", "COPY failed")
	f.Add("", "x")
	f.Add("\u003e", "")
	f.Fuzz(func(t *testing.T, stream, failure string) {
		if !utf8.ValidString(stream) || !utf8.ValidString(failure) {
			return // JSON would replace the invalid bytes
		}
		msgs, err := json.Marshal(map[string]string{"stream": stream})
		require.NoError(t, err)
		if failure != "" {
			e, err := json.Marshal(map[string]string{"error": failure})
			require.NoError(t, err)
			msgs = append(msgs, e...)
		}
		var log strings.Builder
		err = readBuildStream(bytes.NewReader(msgs), &log)
		assert.Equal(t, stream, log.String())
		if failure == "" {
			assert.NoError(t, err)
		} else {
			assert.EqualError(t, err, failure)
		}
	})
}

package vllm

import (
	"fmt"

	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/llmslo/llmslo/containers/vllm/serve"
)

// redactingLogger passes testcontainers' log lines (which include a failed
// container's logs) through the redactor before they reach next.
type redactingLogger struct {
	next tclog.Logger
	r    *serve.Redactor
}

func (l redactingLogger) Printf(format string, v ...any) {
	l.next.Printf("%s", l.r.String(fmt.Sprintf(format, v...)))
}

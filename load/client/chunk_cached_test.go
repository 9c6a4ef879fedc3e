package client

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseChunkReadsCachedTokens(t *testing.T) {
	var c chunk
	require.NoError(t, parseChunk([]byte(`{"choices":[],"usage":{"prompt_tokens":1024,"completion_tokens":8,"prompt_tokens_details":{"cached_tokens":512}}}`), &c))
	assert.True(t, c.hasCached)
	assert.Equal(t, 512, c.cached)
	require.NoError(t, parseChunk([]byte(`{"choices":[],"usage":{"prompt_tokens":1024,"completion_tokens":8,"prompt_tokens_details":null}}`), &c))
	assert.False(t, c.hasCached)
	require.NoError(t, parseChunk([]byte(`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":null}}}`), &c))
	assert.False(t, c.hasCached)
	assert.Error(t, parseChunk([]byte(`{"usage":{"prompt_tokens_details":{"cached_tokens":-1}}}`), &c))
	assert.Error(t, parseChunk([]byte(`{"usage":{"prompt_tokens_details":7}}`), &c))
}
